"""Rank scans of one series of commit summaries: where the level or the spread changes.

The statistic is a moving-sum (MOSUM) Mann-Whitney test (Eichinger & Kirch 2018, "A MOSUM procedure for the
estimation of multiple random change points", Bernoulli 24(1), for the moving sums; Pettitt 1979 and
Mann & Whitney 1947 for the rank statistic). For a boundary ``k`` (commit ``k`` is the first of the new level)
and a window of ``W`` commits, the ``W`` commits before ``k`` are compared with the ``W`` from ``k`` on:

    S_k = sum_{i in [k-W, k)} sum_{j in [k, k+W)} sign(y_j - y_i),    z_k = S_k / sqrt(n_L n_R (n_L + n_R + 1) / 3)

which is ``2U - n_L n_R`` of Mann-Whitney's U. Under exchangeable commits ``z_k`` is approximately standard normal
whatever the distribution of the noise, and one spike moves ``S_k`` by at most ``n_R`` (or ``n_L``): ranks make
the scan robust to spikes and heavy tails. Ties count 0 and the variance is left without the tie correction,
which makes the test conservative for quantised values.

Windows never cross a change point already accepted: the pairs (i, j) with an accepted change point in
``(i, j]`` are left out, so that a second change near the first is judged on its own segment. All boundaries of
a series are computed in ``O(m W)`` from the row-wise cumulative sums of the band of signs.
"""

from __future__ import annotations

import numpy as np

__all__ = ["boundary_counts", "hodges_lehmann", "rank_scan"]


def _band(y: np.ndarray, width: int, cuts: np.ndarray) -> np.ndarray:
    """Cumulative signs ``C[i + width, d] = sum_{1 <= e <= d} sign(y[i + e] - y[i])`` (a zero row block in front).

    Pairs that reach past the end, or across an accepted change point (``cuts``), count 0.
    """
    m = y.size
    span = 2 * width
    d = np.arange(1, span)
    j = np.arange(m)[:, None] + d[None, :]
    inside = j < m
    signs = np.zeros((m, span - 1), dtype=np.int8)
    jj = np.where(inside, j, 0)
    signs[inside] = np.sign(y[jj] - y[:, None])[inside].astype(np.int8)
    if cuts.size:
        # an accepted change point c in (i, i + d] cuts the pair: the first cut after i bounds d
        first = np.searchsorted(cuts, np.arange(m), side="right")
        nearest = np.where(first < cuts.size, cuts[np.minimum(first, cuts.size - 1)], m + span)
        signs[j >= nearest[:, None]] = 0
    out = np.zeros((m + width, span), dtype=np.int32)
    np.cumsum(signs, axis=1, out=out[width:, 1:])
    return out


def boundary_counts(m: int, width: int, cuts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Commits in the left and right windows of each boundary ``k = 1..m-1``, clipped at ``cuts``."""
    k = np.arange(1, m)
    cuts = np.asarray(cuts, dtype=int)
    if cuts.size:
        at = np.searchsorted(cuts, k, side="right")
        below = np.where(at > 0, cuts[np.maximum(at - 1, 0)], 0)
        above = np.where(at < cuts.size, cuts[np.minimum(at, cuts.size - 1)], m)
        # a boundary that is itself a cut: its left window starts at the previous cut
        own = (at > 0) & (below == k)
        below = np.where(own, np.where(at > 1, cuts[np.maximum(at - 2, 0)], 0), below)
    else:
        below = np.zeros_like(k)
        above = np.full_like(k, m)
    left = k - np.maximum(k - width, below)
    right = np.minimum(k + width, above) - k
    return left, right


def rank_scan(y: np.ndarray, width: int, cuts=()) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Standardised Mann-Whitney statistics ``z_k`` of every boundary ``k = 1..m-1`` (module docstring).

    Parameters
    ----------
    y : numpy.ndarray
        One summary per commit, in commit order (no NaN).
    width : int
        ``W``, the commits on each side.
    cuts : array_like of int
        Accepted change points (boundaries) that no window crosses.

    Returns
    -------
    z, left, right : numpy.ndarray
        The statistic (0 at the accepted change points themselves) and the commits on each side, one entry per
        boundary ``k = 1..m-1``.
    """
    y = np.asarray(y, dtype=float)
    m = y.size
    cuts = np.unique(np.asarray(cuts, dtype=int))
    band = _band(y, width, cuts)
    k = np.arange(1, m)
    a = np.arange(1, width + 1)
    rows = (k[:, None] - a[None, :]) + width  # i = k - a, shifted past the zero block
    # sum over j in [k, k + W) of sign(y_j - y_i) = C[i, a + W - 1] - C[i, a - 1], with d = j - i
    total = band[rows, a[None, :] + width - 1] - band[rows, a[None, :] - 1]
    s = total.sum(axis=1, dtype=np.int64).astype(float)
    left, right = boundary_counts(m, width, cuts)
    var = left * right * (left + right + 1) / 3.0
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(var > 0, s / np.sqrt(np.where(var > 0, var, 1.0)), 0.0)
    z[cuts[(cuts >= 1) & (cuts < m)] - 1] = 0.0  # an accepted change point is not tested again
    return z, left, right


def hodges_lehmann(before: np.ndarray, after: np.ndarray, z_crit: float) -> tuple[float, float, float]:
    """Hodges-Lehmann shift ``median(after_j - before_i)`` and its distribution-free interval.

    The interval is Moses' (Hollander, Wolfe & Chicken, *Nonparametric Statistical Methods*, 3rd ed., section
    4.3): the ``C``-th smallest and largest of the ``n_L n_R`` differences, ``C = n_L n_R / 2 - z sqrt(n_L n_R
    (n_L + n_R + 1) / 12)`` rounded down (the normal approximation), at least the first.
    """
    diff = np.sort((after[None, :] - before[:, None]).ravel())
    n = diff.size
    nl, nr = before.size, after.size
    c = int(np.floor(nl * nr / 2 - z_crit * np.sqrt(nl * nr * (nl + nr + 1) / 12.0)))
    c = min(max(c, 0), (n - 1) // 2)
    return float(np.median(diff)), float(diff[c]), float(diff[n - 1 - c])
