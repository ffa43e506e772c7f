"""Is a benchmark's series fit to be summarised: variability, normality, stationarity, autocorrelation-
corrected standard errors and independence (``variability``), the ADF test (``adf``), how many
repetitions a benchmark needs (``repetitions``, CONFIRM), hosts that do not behave like the rest
(``hosts``, MMD), and every diagnostic of every series (:func:`diagnose`).
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.diagnostics.adf import (
        ADFResult as ADFResult,
        adf_suffixes as adf_suffixes,
        default_maxlag as default_maxlag,
        min_suffix as min_suffix,
    )
    from perfstudy.diagnostics.diagnosis import (
        SeriesDiagnosis as SeriesDiagnosis,
        diagnose as diagnose,
        diagnose_series as diagnose_series,
    )
    from perfstudy.diagnostics.hosts import (
        MIN_HOST_SAMPLES as MIN_HOST_SAMPLES,
        Elimination as Elimination,
        MMDTest as MMDTest,
        eliminate_unrepresentative as eliminate_unrepresentative,
        mmd_test as mmd_test,
        rank_hosts as rank_hosts,
    )
    from perfstudy.diagnostics.repetitions import (
        MedianCI as MedianCI,
        Repetitions as Repetitions,
        median_ci as median_ci,
        median_ci_indices as median_ci_indices,
        repetitions_needed as repetitions_needed,
    )
    from perfstudy.diagnostics.variability import (
        AutocorrelationSE as AutocorrelationSE,
        BatchMeans as BatchMeans,
        IndependenceTest as IndependenceTest,
        Warmup as Warmup,
        autocorrelation_se as autocorrelation_se,
        batch_means as batch_means,
        coefficient_of_variation as coefficient_of_variation,
        effective_sample_size as effective_sample_size,
        independence_test as independence_test,
        normality as normality,
        stationarity as stationarity,
        warmup as warmup,
    )

__getattr__, __dir__, __all__ = lazy_exports(__name__)
