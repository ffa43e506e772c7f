"""Is a benchmark's series fit to be summarised: variability, normality, stationarity, autocorrelation-
corrected standard errors and independence (``variability``), the ADF test (``adf``), how many
repetitions a benchmark needs (``repetitions``, CONFIRM), hosts that do not behave like the rest
(``hosts``, MMD), and every diagnostic of every series (:func:`diagnose`).
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.diagnostics.adf import ADFResult, adf_suffixes, default_maxlag, min_suffix
    from perfstudy.diagnostics.diagnosis import SeriesDiagnosis, diagnose, diagnose_series
    from perfstudy.diagnostics.hosts import (
        MIN_HOST_SAMPLES,
        Elimination,
        MMDTest,
        eliminate_unrepresentative,
        mmd_test,
        rank_hosts,
    )
    from perfstudy.diagnostics.repetitions import (
        MedianCI,
        Repetitions,
        median_ci,
        median_ci_indices,
        repetitions_needed,
    )
    from perfstudy.diagnostics.variability import (
        AutocorrelationSE,
        BatchMeans,
        IndependenceTest,
        Warmup,
        autocorrelation_se,
        batch_means,
        coefficient_of_variation,
        effective_sample_size,
        independence_test,
        normality,
        stationarity,
        warmup,
    )

_HOMES = {
    "coefficient_of_variation": ".variability",
    "AutocorrelationSE": ".variability",
    "autocorrelation_se": ".variability",
    "BatchMeans": ".variability",
    "batch_means": ".variability",
    "effective_sample_size": ".variability",
    "normality": ".variability",
    "stationarity": ".variability",
    "IndependenceTest": ".variability",
    "independence_test": ".variability",
    "Warmup": ".variability",
    "warmup": ".variability",
    "ADFResult": ".adf",
    "adf_suffixes": ".adf",
    "default_maxlag": ".adf",
    "min_suffix": ".adf",
    "MedianCI": ".repetitions",
    "median_ci": ".repetitions",
    "median_ci_indices": ".repetitions",
    "Repetitions": ".repetitions",
    "repetitions_needed": ".repetitions",
    "MMDTest": ".hosts",
    "mmd_test": ".hosts",
    "rank_hosts": ".hosts",
    "Elimination": ".hosts",
    "eliminate_unrepresentative": ".hosts",
    "MIN_HOST_SAMPLES": ".hosts",
    "SeriesDiagnosis": ".diagnosis",
    "diagnose_series": ".diagnosis",
    "diagnose": ".diagnosis",
}
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
__all__ = [
    "coefficient_of_variation",
    "AutocorrelationSE",
    "autocorrelation_se",
    "BatchMeans",
    "batch_means",
    "effective_sample_size",
    "normality",
    "stationarity",
    "IndependenceTest",
    "independence_test",
    "Warmup",
    "warmup",
    "ADFResult",
    "adf_suffixes",
    "default_maxlag",
    "min_suffix",
    "MedianCI",
    "median_ci",
    "median_ci_indices",
    "Repetitions",
    "repetitions_needed",
    "MMDTest",
    "mmd_test",
    "rank_hosts",
    "Elimination",
    "eliminate_unrepresentative",
    "MIN_HOST_SAMPLES",
    "SeriesDiagnosis",
    "diagnose_series",
    "diagnose",
]
