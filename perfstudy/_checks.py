"""Argument checks shared by the public functions: one message format, named arguments."""

from __future__ import annotations

import math
import operator

import numpy as np

__all__ = ["check_int", "check_real", "check_fraction", "check_version", "check_sample"]


def check_int(name: str, value, minimum: int = 1) -> int:
    """``value`` as an int; TypeError if it is not an integer (bools refused), ValueError below ``minimum``.

    Integral floats (``4.0``) are accepted.
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}={value!r}: expected an integer, not a bool")
    try:
        as_int = operator.index(value)
    except TypeError:
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            as_int = int(value)
        else:
            raise TypeError(f"{name}={value!r}: expected an integer of at least {minimum}") from None
    if as_int < minimum:
        raise ValueError(f"{name}={value!r}: expected an integer of at least {minimum}")
    return as_int


def check_real(name: str, value, *, nonnegative: bool = False, positive: bool = False, what: str = "number") -> float:
    """``value`` as a finite float; TypeError if not a real number, ValueError if NaN, inf, negative
    (with ``nonnegative``) or not above 0 (with ``positive``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}={value!r}: expected a real number")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name}={value!r}: expected a finite {what}")
    if nonnegative and value < 0:
        raise ValueError(f"{name}={value!r}: expected a non-negative {what}")
    if positive and value <= 0:
        raise ValueError(f"{name}={value!r}: expected a positive {what}")
    return value


def check_fraction(name: str, value) -> float:
    """A probability or fraction strictly between 0 and 1 (a ``confidence``, an ``alpha``, a portion),
    as a float; TypeError if not a real number, ValueError naming ``name`` otherwise (NaN included)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}={value!r}: expected a real number in (0, 1)")
    value = float(value)
    if not 0 < value < 1:
        raise ValueError(f"{name}={value!r}: expected a value in (0, 1)")
    return value


def check_version(version) -> np.ndarray:
    """Condition labels as an int array: every entry 0 (control) or 1 (treatment), both present."""
    version = np.asarray(version)
    if not np.isin(version, (0, 1)).all():
        raise ValueError("version: expected 0 (control) or 1 (treatment) for every observation")
    if np.unique(version).size != 2:
        raise ValueError("version: both conditions (0 and 1) must have observations")
    return version.astype(np.intp)


def check_sample(name: str, x, *, minimum: int = 1, method: str | None = None) -> np.ndarray:
    """A one-dimensional sample as a float array: at least ``minimum`` values, all finite; with
    ``method``, also not constant (``method`` names what a constant sample makes undefined).

    Every message starts with ``name``: "``n`` values; at least ``minimum`` are needed",
    "``k`` of ``n`` values are NaN or infinite", "every value is ``v``; ``method`` is undefined for a
    constant sample".
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"{name}: expected a one-dimensional sample, got shape {x.shape}")
    if x.size < minimum:
        raise ValueError(f"{name}: {x.size} values; at least {minimum} are needed")
    bad = ~np.isfinite(x)
    if bad.any():
        raise ValueError(f"{name}: {int(bad.sum())} of {x.size} values are NaN or infinite")
    if method is not None and x.size and np.ptp(x) == 0:
        raise ValueError(f"{name}: every value is {x[0]!r}; {method} is undefined for a constant sample")
    return x
