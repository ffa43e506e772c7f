"""One check per kind of argument for every study function, by the argument's name.

The studies share a vocabulary (``experiments``, ``replicates``, ``confidence``, ``hours`` ...), and an
argument of a given name means the same thing in every study: a count, a probability, a positive
number of hours, a list of names. :func:`checked` wraps each public study function so that its
arguments pass these checks before any work starts, and a bad one is refused with a ValueError or
TypeError naming it. A scalar or a sequence is accepted wherever the studies accept both
(``hosts=16`` and ``hosts=(4, 8, 16)``); deeper constraints (an even host count for a design, a size
no larger than a series) stay with the library functions the studies call.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np
import pandas as pd

from perfstudy._checks import check_bool, check_duration, check_fraction, check_int, check_real

__all__ = ["checked", "KINDS"]


def _each(check):
    """``check`` on a scalar, or on every item of a non-empty sequence."""

    def each(name, value):
        if isinstance(value, (list, tuple, np.ndarray, pd.Series)):
            if len(value) == 0:
                raise ValueError(f"{name}: expected at least one value")
            for item in value:
                check(name, item)
        else:
            check(name, value)

    return each


def _count(name, value):
    check_int(name, value, minimum=1)


def _count_or_zero(name, value):
    check_int(name, value, minimum=0)


def _fraction(name, value):
    check_fraction(name, value)


def _portion(name, value):
    value = check_real(name, value)
    if not 0 < value <= 1:
        raise ValueError(f"{name}={value!r}: expected a fraction in (0, 1]")


def _positive(name, value):
    check_real(name, value, positive=True)


def _nonnegative(name, value):
    check_real(name, value, nonnegative=True)


def _flag(name, value):
    check_bool(name, value)


def _names(name, value):
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name}={value!r}: expected a list of names")
    if not all(isinstance(v, str) for v in value):
        raise TypeError(f"{name}={value!r}: expected names (strings)")


def _name(name, value):
    if not isinstance(value, str):
        raise TypeError(f"{name}={value!r}: expected a name (a string)")


def _flag_or_names(name, value):
    if not isinstance(value, (bool, np.bool_)):
        _names(name, value)


def _frame(name, value):
    if not isinstance(value, pd.DataFrame):
        raise TypeError(f"{name}: expected a DataFrame, got {type(value).__name__}")


def _frame_or_list(name, value):
    if not isinstance(value, (pd.DataFrame, list, tuple)):
        raise TypeError(f"{name}: expected a DataFrame or a list, got {type(value).__name__}")


def _mapping(name, value):
    if not isinstance(value, dict):
        raise TypeError(f"{name}: expected a dict, got {type(value).__name__}")


def _instance(kind: str, *attributes):
    def check(name, value):
        if not all(hasattr(value, a) for a in attributes):
            raise TypeError(f"{name}: expected {kind}, got {type(value).__name__}")

    return check


def _duration(name, value):
    check_duration(name, value)


#: argument name -> its check (applied when the value is not None)
KINDS = {
    # counts (a scalar or a list of them)
    **dict.fromkeys(
        (
            "experiments",
            "replicates",
            "requests",
            "hosts",
            "tests",
            "simulations",
            "segments",
            "segment_length",
            "pilots",
            "batches",
            "trials",
            "permutations",
            "repeats",
            "searches",
            "runs_per_host",
            "window",
            "min_hosts",
            "clusters",
            "block",
            "max_pairs_per_series",
            "design_hosts",
            "sizes",
            "start",
            "min_runs",
            "max_size",
            "endpoint",
            "repetitions",
        ),
        _each(_count),
    ),  # fmt: skip
    "max_remove": _each(_count_or_zero),
    # probabilities
    **dict.fromkeys(
        ("confidence", "alpha", "objective_probability", "target_accuracy", "confidences", "accuracies", "widths"),
        _each(_fraction),
    ),
    "portion": _portion,
    # positive and non-negative numbers
    **dict.fromkeys(
        (
            "target_se",
            "hours",
            "step_hours",
            "validate_below_hours",
            "periods_hours",
            "spans_hours",
            "runlengths",
            "load_factors",
            "budgets",
            "targets",
            "error",
            "scales",
        ),
        _each(_positive),
    ),  # fmt: skip
    **dict.fromkeys(("shift", "margin", "threshold", "slowdowns"), _each(_nonnegative)),
    # flags, names, frames, objects
    **dict.fromkeys(("band", "progress"), _flag),
    "pt4cloud": _flag_or_names,
    **dict.fromkeys(("bootstraps", "policies", "methods", "metrics", "azure", "laaber", "cwb", "names"), _names),
    **dict.fromkeys(("name", "config", "layout", "design"), _name),
    "interval": _duration,
    **dict.fromkeys(("grid", "weekly", "reduced", "sampled", "baselines", "survey", "pairs", "frame"), _frame),
    "series": _frame_or_list,
    "search": _mapping,
    "components": _instance("VarianceComponents", "sigmas", "rho"),
    "costs": _instance("a CostModel", "cost", "setup"),
    **dict.fromkeys(("server", "neighbour"), _instance("a server (SimulatedServer)", "run", "saturation_response")),
    "fit": _instance("a VarianceFit", "components", "sd"),
}


def checked(function):
    """``function`` with its arguments checked by :data:`KINDS` before it runs.

    Parameters
    ----------
    function : callable
        A study function.
    """
    signature = inspect.signature(function)
    kinds = {name: KINDS[name] for name in signature.parameters if name in KINDS}
    # None is a value to check unless it is the argument's default (an optional argument left out)
    optional = {name for name, p in signature.parameters.items() if p.default is None}

    @functools.wraps(function)
    def run(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        for name, check in kinds.items():
            if name not in bound.arguments:
                continue
            value = bound.arguments[name]
            if value is None and name in optional:
                continue
            if value is None:
                raise TypeError(f"{name}=None: this argument is required")
            check(name, value)
        return function(*args, **kwargs)

    return run


def check_module(namespace: dict) -> None:
    """Wrap with :func:`checked` every public function of the module whose ``globals()`` is
    ``namespace`` (its ``__all__``), and the public methods of its public classes.

    Parameters
    ----------
    namespace : dict
        The module's ``globals()``.
    """
    module = namespace["__name__"]
    for name in namespace.get("__all__", []):
        obj = namespace[name]
        if inspect.isfunction(obj) and obj.__module__ == module:
            namespace[name] = checked(obj)
        elif inspect.isclass(obj) and obj.__module__ == module:
            for attribute, member in list(vars(obj).items()):
                if not attribute.startswith("_") and inspect.isfunction(member):
                    setattr(obj, attribute, checked(member))
