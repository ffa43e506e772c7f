"""perfstudy: benchmarking that can be trusted.

The verbs
---------
read
    Any benchmark file perfstudy knows (ten harnesses, tidy CSV/Parquet, a run's own file) as a tidy
    frame, its format detected from the content.
compare
    Is B faster than A, by how much, and can it be trusted: a clustered interval and a verdict per
    benchmark (:class:`Comparison`).
run
    Run A and B yourself, in randomised interleaved rounds, and stop when the answer is known
    (:class:`RunResult`); :func:`read_experiment` reads its file back.
analyze
    Every diagnostic perfstudy has, per benchmark, with advice in sentences.
diagnose, diagnose_series
    Every diagnostic of every series of a tidy frame, one row per series.
fit_variance_components
    REML variance components of crossed and nested random intercepts, from your own runs.
simulate, schedule, pilot_schedule, standard_error, optimal_allocation
    The random-effects model of distributed benchmarks and its four designs (Bakshy & Frachtenberg,
    WWW'15).

The packages, one concept each (see DESIGN.md)
----------------------------------------------
``io``
    Readers, one module per harness, and the published datasets.
``comparison``
    Intervals, verdicts, paired and sequential comparisons.
``experiment``
    ``perfstudy run``: batches, the machine's record, plans from a pilot.
``diagnostics``
    Variability, ADF, CONFIRM repetitions, MMD odd hosts.
``design``
    The random-effects model, schedules, designs' standard errors, REML, bootstraps, A/A tests.
``stability``
    PT4Cloud and the stopping rules it is compared with.
``capacity``
    A simulated server and the peak-rate search.
``notebook``
    Figures, explorers, records, and the papermill report.
``studies``
    The five papers' reproductions; nothing in the library imports them.

Packages are nouns and the verbs are functions, so that importing a package never replaces a
function of the same name on ``perfstudy``.
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy._lib.parallel import local_executor
    from perfstudy.analysis import analyze
    from perfstudy.comparison import Comparison, compare
    from perfstudy.design.estimate import VarianceFit, fit_variance_components
    from perfstudy.design.model import (
        PERFLAB_ENDPOINTS,
        Simulation,
        VarianceComponents,
        clustered_standard_error,
        design_effect,
        intraclass_correlation,
        sample_delta_hat,
        simulate,
    )
    from perfstudy.design.schedules import DESIGNS, Schedule, pilot_schedule, schedule
    from perfstudy.design.standard_errors import (
        CostModel,
        duplication_coefficients,
        optimal_allocation,
        standard_error,
        variance_from_schedule,
    )
    from perfstudy.diagnostics.diagnosis import diagnose, diagnose_series
    from perfstudy.experiment import RunResult, read_experiment, run
    from perfstudy.io import read

# Names are imported when first used (PEP 562), so that `perfstudy --help` and `perfstudy compare`
# do not pay for scipy and the simulators before reading a byte.
_HOMES = {
    "read": ".io._read",
    "compare": ".comparison._compare",
    "Comparison": ".comparison._compare",
    "run": ".experiment._run",
    "RunResult": ".experiment._run",
    "read_experiment": ".experiment._run",
    "analyze": ".analysis",
    "diagnose": ".diagnostics.diagnosis",
    "diagnose_series": ".diagnostics.diagnosis",
    "local_executor": "._lib.parallel",
    "CostModel": ".design.standard_errors",
    "duplication_coefficients": ".design.standard_errors",
    "optimal_allocation": ".design.standard_errors",
    "standard_error": ".design.standard_errors",
    "variance_from_schedule": ".design.standard_errors",
    "VarianceFit": ".design.estimate",
    "fit_variance_components": ".design.estimate",
    "PERFLAB_ENDPOINTS": ".design.model",
    "Simulation": ".design.model",
    "VarianceComponents": ".design.model",
    "clustered_standard_error": ".design.model",
    "design_effect": ".design.model",
    "intraclass_correlation": ".design.model",
    "sample_delta_hat": ".design.model",
    "simulate": ".design.model",
    "DESIGNS": ".design.schedules",
    "Schedule": ".design.schedules",
    "pilot_schedule": ".design.schedules",
    "schedule": ".design.schedules",
}
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)

__version__ = "0.2.0"

__all__ = [
    "read",
    "compare",
    "Comparison",
    "run",
    "RunResult",
    "read_experiment",
    "analyze",
    "diagnose",
    "diagnose_series",
    "local_executor",
    "PERFLAB_ENDPOINTS",
    "DESIGNS",
    "CostModel",
    "Schedule",
    "Simulation",
    "VarianceComponents",
    "VarianceFit",
    "clustered_standard_error",
    "design_effect",
    "duplication_coefficients",
    "fit_variance_components",
    "intraclass_correlation",
    "optimal_allocation",
    "pilot_schedule",
    "sample_delta_hat",
    "schedule",
    "simulate",
    "standard_error",
    "variance_from_schedule",
]
