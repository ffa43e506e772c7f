"""The Monte Carlo bound the studies hold a false-positive rate to: a nominal rate plus a few binomial standard
errors of a rate estimated from a finite number of A/A tests."""

from __future__ import annotations

import math

from perfstudy._lib.checks import check_fraction, check_int, check_real

__all__ = ["type1_limit"]


def type1_limit(tests: int, *, alpha: float = 0.05, errors: float = 3.0) -> float:
    """The largest false-positive rate from ``tests`` A/A tests still consistent with a nominal ``alpha``:
    ``alpha + errors * sqrt(alpha (1 - alpha) / tests)``, the binomial Monte Carlo error taken at the nominal rate.

    At 3 errors a method whose true rate is ``alpha`` exceeds it about once in 700 (one-sided normal tail).

    Parameters
    ----------
    tests : int
        A/A tests the rate is over.
    alpha : float
        The nominal rate.
    errors : float
        Monte Carlo standard errors allowed above it.
    """
    tests = check_int("tests", tests)
    alpha = check_fraction("alpha", alpha)
    errors = check_real("errors", errors, nonnegative=True)
    return alpha + errors * math.sqrt(alpha * (1 - alpha) / tests)
