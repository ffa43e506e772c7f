"""perfstudy: benchmarking that can be trusted.

Modules, one concept each (see DESIGN.md): ``schedules`` (who runs what where), ``model``
(random effects, simulation), ``estimate`` (variance components from data), ``designs`` (standard errors, budgets), ``sweeps`` (simulation
studies), ``parallel`` (executors), ``plots``, ``widgets``, ``records``, ``report``/``cli``.
"""

import importlib

# Names are imported when first used (PEP 562), so that `perfstudy --help` and `perfstudy compare`
# do not pay for scipy and the simulators before reading a byte.
_HOMES = {
    "CostModel": "designs",
    "duplication_coefficients": "designs",
    "optimal_allocation": "designs",
    "standard_error": "designs",
    "variance_from_schedule": "designs",
    "VarianceFit": "estimate",
    "fit_variance_components": "estimate",
    "PERFLAB_ENDPOINTS": "model",
    "Simulation": "model",
    "VarianceComponents": "model",
    "clustered_standard_error": "model",
    "design_effect": "model",
    "intraclass_correlation": "model",
    "sample_delta_hat": "model",
    "simulate": "model",
    "DESIGNS": "schedules",
    "Schedule": "schedules",
    "pilot_schedule": "schedules",
    "schedule": "schedules",
}


def __getattr__(name: str):
    if name in _HOMES:
        value = getattr(importlib.import_module(f"perfstudy.{_HOMES[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'perfstudy' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_HOMES))


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
