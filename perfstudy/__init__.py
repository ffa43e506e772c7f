"""perfstudy: benchmarking that can be trusted.

Modules, one concept each (see DESIGN.md): ``schedules`` (who runs what where), ``model``
(random effects, simulation), ``estimate`` (variance components from data), ``designs`` (standard errors, budgets), ``sweeps`` (simulation
studies), ``parallel`` (executors), ``plots``, ``widgets``, ``records``, ``report``/``cli``.
"""

from perfstudy.designs import (
    CostModel,
    duplication_coefficients,
    optimal_allocation,
    standard_error,
    variance_from_schedule,
)
from perfstudy.estimate import VarianceFit, fit_variance_components
from perfstudy.model import (
    PERFLAB_ENDPOINTS,
    Simulation,
    VarianceComponents,
    clustered_standard_error,
    design_effect,
    intraclass_correlation,
    sample_delta_hat,
    simulate,
)
from perfstudy.schedules import DESIGNS, Schedule, pilot_schedule, schedule

__version__ = "0.1.0"

__all__ = [
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
