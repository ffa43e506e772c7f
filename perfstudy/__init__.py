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
    from perfstudy._lib.parallel import local_executor as local_executor
    from perfstudy.analysis import analyze as analyze
    from perfstudy.comparison import Comparison as Comparison, compare as compare
    from perfstudy.design.estimate import VarianceFit as VarianceFit, fit_variance_components as fit_variance_components
    from perfstudy.design.model import (
        PERFLAB_ENDPOINTS as PERFLAB_ENDPOINTS,
        Simulation as Simulation,
        VarianceComponents as VarianceComponents,
        clustered_standard_error as clustered_standard_error,
        design_effect as design_effect,
        intraclass_correlation as intraclass_correlation,
        sample_delta_hat as sample_delta_hat,
        simulate as simulate,
    )
    from perfstudy.design.schedules import (
        DESIGNS as DESIGNS,
        Schedule as Schedule,
        pilot_schedule as pilot_schedule,
        schedule as schedule,
    )
    from perfstudy.design.standard_errors import (
        CostModel as CostModel,
        duplication_coefficients as duplication_coefficients,
        optimal_allocation as optimal_allocation,
        standard_error as standard_error,
        variance_from_schedule as variance_from_schedule,
    )
    from perfstudy.diagnostics.diagnosis import diagnose as diagnose, diagnose_series as diagnose_series
    from perfstudy.experiment import RunResult as RunResult, read_experiment as read_experiment, run as run
    from perfstudy.io import read as read

# Names are imported when first used (PEP 562), so that `perfstudy --help` and `perfstudy compare`
# do not pay for scipy and the simulators before reading a byte.
__getattr__, __dir__, __all__ = lazy_exports(__name__)

__version__ = "0.2.0"
