"""Where a change point can be: the commits that hold it at a stated confidence.

A history names one commit per change, yet neighbouring commits can explain the data almost as well: the
commits measured at different times meet different machine states, and a 2-sigma step is placed exactly less
than two times in three (notebook 10). The range is Hansen's (2000) likelihood-ratio confidence set for the
location of one change in a window that holds one change:

    LR(j) = (SSR(j) - min_i SSR(i)) / s^2,    s^2 = min_i SSR(i) / (n - 2),

where ``SSR(j)`` is the residual sum of squares of the window's commits about two means split before commit
``j``. Every ``j`` with ``LR(j) <= -2 log(1 - sqrt(confidence))`` is in the set (7.35 at 95%: the quantile of the
limit ``P(LR <= x) = (1 - exp(-x / 2))^2``, Hansen 2000, Theorem 2), and the range is its hull with the commit the
history names. The limit is for small shifts; larger ones give wider sets than needed (coverage above the stated
confidence). Simulated coverage at 95%, 8-12 Gaussian commits a side, shifts of 1.5-5 SDs: 95.9-99.9%; t(3)
noise: 94.1-96.9%; AR(1) noise with phi 0.3 at a 2-SD shift: 92.7% (``tests/changes/test_location.py``).
"""

from __future__ import annotations

import math

import numpy as np

from perfstudy._lib.checks import check_fraction

__all__ = ["location_range", "location_threshold"]


def location_threshold(confidence: float) -> float:
    """The likelihood-ratio bound of a location set at ``confidence``: ``-2 log(1 - sqrt(confidence))``.

    Parameters
    ----------
    confidence : float
        In (0, 1).

    Returns
    -------
    float
        7.35 at 0.95 (Hansen 2000, Table 1).
    """
    confidence = check_fraction("confidence", confidence)
    return -2.0 * math.log1p(-math.sqrt(confidence))


def location_range(y: np.ndarray, k: int, confidence: float) -> tuple[int, int]:
    """The first and last commit of a window that may hold its one change (module docstring).

    Parameters
    ----------
    y : numpy.ndarray
        One summary per commit of the window (log scale for a ratio series), at least 3.
    k : int
        The position in ``y`` of the commit the history names (the first of the new level), ``1 <= k < len(y)``.
    confidence : float
        Coverage of the set.

    Returns
    -------
    tuple of int
        ``first, last``: positions in ``y``, ``first <= k <= last``. Both are ``k`` when the window is too short
        for a variance (3 commits or fewer) or has none.
    """
    y = np.asarray(y, dtype=float)
    n = y.size
    if not 1 <= k < n:
        raise ValueError(f"k: {k} is not a boundary of a window of {n} commits")
    bound = location_threshold(confidence)
    if n <= 3:
        return k, k
    centred = y - y.mean()  # the sums of squares below lose no digits to a large level
    j = np.arange(1, n)
    s1, s2 = np.cumsum(centred), np.cumsum(centred * centred)
    left = s2[j - 1] - s1[j - 1] ** 2 / j
    right = (s2[-1] - s2[j - 1]) - (s1[-1] - s1[j - 1]) ** 2 / (n - j)
    ssr = np.maximum(left + right, 0.0)
    variance = float(ssr.min()) / (n - 2)
    if variance <= 0:
        return k, k
    inside = j[(ssr - ssr.min()) / variance <= bound]
    return int(min(inside.min(), k)), int(max(inside.max(), k))
