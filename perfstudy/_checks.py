"""Argument checks shared by the public functions: one message format, named arguments."""

from __future__ import annotations

import math
import operator

import numpy as np

__all__ = ["check_int", "check_real", "check_level", "check_version"]


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


def check_real(name: str, value, *, nonnegative: bool = False, what: str = "number") -> float:
    """``value`` as a finite float; TypeError if not a real number, ValueError if NaN, inf or negative."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}={value!r}: expected a real number")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name}={value!r}: expected a finite {what}")
    if nonnegative and value < 0:
        raise ValueError(f"{name}={value!r}: expected a non-negative {what}")
    return value


def check_level(level) -> float:
    """A confidence level in (0, 1) as a float; ValueError otherwise."""
    level = float(level)
    if not 0 < level < 1:
        raise ValueError(f"level={level!r}: expected a confidence level in (0, 1)")
    return level


def check_version(version) -> np.ndarray:
    """Condition labels as an int array: every entry 0 (control) or 1 (treatment), both present."""
    version = np.asarray(version)
    if not np.isin(version, (0, 1)).all():
        raise ValueError("version: expected 0 (control) or 1 (treatment) for every observation")
    if np.unique(version).size != 2:
        raise ValueError("version: both conditions (0 and 1) must have observations")
    return version.astype(np.intp)
