"""Rank scans of one series of commit summaries: where the level or the spread changes.

The statistic is a moving-sum (MOSUM) Mann-Whitney test (Eichinger & Kirch 2018, "A MOSUM procedure for the
estimation of multiple random change points", Bernoulli 24(1), for the moving sums; Pettitt 1979 and
Mann & Whitney 1947 for the rank statistic). For a boundary ``k`` (commit ``k`` is the first of the new level)
and a window of ``W`` commits, the ``W`` commits before ``k`` are compared with the ``W`` from ``k`` on:

    S_k = sum_{i in [k-W, k)} sum_{j in [k, k+W)} sign(y_j - y_i),    z_k = S_k / sqrt(n_L n_R (n_L + n_R + 1) / 3)

which is ``2U - n_L n_R`` of Mann-Whitney's U. Under exchangeable commits ``z_k`` is approximately standard normal
whatever the distribution of the noise, and one spike moves ``S_k`` by at most ``n_R`` (or ``n_L``): ranks make
the scan robust to spikes and heavy tails. Ties count 0; the variance's tie correction, ``sum(t^3 - t) / (N (N -
1))`` in Mann-Whitney's variance, is taken at its expectation for a window drawn from the whole series (from the
chances that two or three of its values are equal), so that quantised values (a timer's ticks) keep their power
without counting the ties of every window.

Windows never cross a change point already accepted: the pairs (i, j) with an accepted change point in
``(i, j]`` are left out, so that a second change near the first is judged on its own segment. All boundaries of
a series are computed in ``O(m W)`` from the row-wise cumulative sums of the band of signs, and each accepted
change point updates them in ``O(W^2)`` (:class:`RankScan`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["RankScan", "boundary_counts", "hodges_lehmann"]


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


class RankScan:
    """The scans of one series at several widths, kept up to date as change points are accepted.

    One band of cumulative signs, as wide as the widest scan, serves every width: width ``w`` reads
    ``C[i, a + w - 1] - C[i, a - 1]``. Accepting a change point ``c`` zeroes the pairs that cross it (rows
    ``c - 2W + 1 .. c - 1`` of the band) and recomputes, for each width ``w``, the boundaries whose windows held
    such pairs (``c - w < k < c + w``): ``O(W^2)`` per change point instead of a new ``O(m W)`` scan.

    Parameters
    ----------
    y : numpy.ndarray
        The series (no NaN).
    widths : int or tuple of int
        ``W``, the points on each side, one per scan.
    at : array_like of int, optional
        The boundaries that are tested (default all, ``1..m-1``).
    """

    def __init__(self, y: np.ndarray, widths, at=None):
        self.y = np.asarray(y, dtype=float)
        self.widths = tuple(int(w) for w in np.atleast_1d(widths))
        top = max(self.widths)
        m = self.y.size
        span = 2 * top
        self.at = np.arange(1, m) if at is None else np.asarray(at, dtype=int)
        ahead = np.lib.stride_tricks.sliding_window_view(np.r_[self.y[1:], np.full(span, np.nan)], span - 1)[:m]
        here = self.y[:, None]
        self.signs = (ahead > here).view(np.int8) - (ahead < here).view(np.int8)
        self.band = np.zeros((m + top, span), dtype=np.int32)
        np.cumsum(self.signs, axis=1, out=self.band[top:, 1:])
        self.sums = {w: self._sums(w, self.at) for w in self.widths}
        self.cuts: list[int] = []
        # ties: the chance that two (three) of the series' values drawn without replacement are equal
        _, counts = np.unique(self.y, return_counts=True)
        c = counts.astype(float)
        self.tie2 = float((c * (c - 1)).sum()) / max(m * (m - 1), 1)
        self.tie3 = float((c * (c - 1) * (c - 2)).sum()) / max(m * (m - 1) * (m - 2), 1)

    def _sums(self, width: int, k: np.ndarray) -> np.ndarray:
        top = max(self.widths)
        a = np.arange(1, width + 1)
        rows = (k[:, None] - a[None, :]) + top  # i = k - a, shifted past the zero block
        # sum over j in [k, k + W) of sign(y_j - y_i) = C[i, a + W - 1] - C[i, a - 1], with d = j - i
        total = self.band[rows, a[None, :] + width - 1] - self.band[rows, a[None, :] - 1]
        return total.sum(axis=1, dtype=np.int64)

    def cut(self, c: int) -> None:
        """Accept a change point at boundary ``c``: no window crosses it from now on."""
        top = max(self.widths)
        lo = max(0, c - 2 * top + 1)
        if lo < c:
            reach = c - np.arange(lo, c)  # d >= reach crosses c
            block = self.signs[lo:c]
            block[np.arange(1, 2 * top)[None, :] >= reach[:, None]] = 0
            np.cumsum(block, axis=1, out=self.band[top + lo : top + c, 1:])
        for w in self.widths:
            near = np.flatnonzero((self.at > c - w) & (self.at < c + w))
            if near.size:
                self.sums[w][near] = self._sums(w, self.at[near])
        self.cuts = sorted({*self.cuts, int(c)})

    def z(self, width: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``z, left, right`` of one width (the first by default) at the tested boundaries: the standardised
        statistic (0 at the accepted change points themselves) and the commits on each side.

        Parameters
        ----------
        width : int, optional
            One of ``widths``.
        """
        width = self.widths[0] if width is None else int(width)
        cuts = np.asarray(self.cuts, dtype=int)
        left, right = boundary_counts(self.y.size, width, cuts)
        left, right = left[self.at - 1], right[self.at - 1]
        n = left + right
        # Var(2U - n_L n_R) with ties: n_L n_R / 3 [(N + 1) - sum(t^3 - t) / (N (N - 1))], the tie sum at its
        # expectation for N values drawn from the series, (N - 2) tie3 + 3 tie2 (no ties: the plain formula)
        var = left * right * np.maximum((n + 1) - (n - 2) * self.tie3 - 3 * self.tie2, 0.0) / 3.0
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.where(var > 0, self.sums[width] / np.sqrt(np.where(var > 0, var, 1.0)), 0.0)
        z[np.isin(self.at, cuts)] = 0.0  # an accepted change point is not tested again
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
