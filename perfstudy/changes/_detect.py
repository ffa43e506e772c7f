"""Change points of one series of commit summaries: greedy acceptance over rank scans at several widths.

The procedure, for the level and then for the spread:

1. Scan every boundary at every width ``W`` in ``widths`` (``_scan.RankScan``), the windows clipped at the
   change points accepted so far. A boundary's p-value is the two-sided normal tail of ``z_k`` times the number
   of boundaries and widths scanned (Bonferroni over the scan: valid for exchangeable commits, conservative
   because neighbouring windows overlap).
2. Among the boundaries with at least ``min_side`` commits on each side and a p-value below ``alpha``, take the
   largest ``|z_k|``. Accept it when the change is large enough to matter: the Hodges-Lehmann shift is at least
   ``min_sigmas`` robust noise SDs (``1.4826 MAD`` about each window's median) and at least ``threshold`` in
   relative terms. A boundary that fails is not tried again.
3. Repeat until nothing is accepted.

The spread is scanned the same way, so that a change of level is never taken for a change of spread: where
commits hold several measurements, on each measurement's absolute deviation from its commit's median (scaled by
the design effect by commit); otherwise on the commits' absolute residuals about the level segments' medians. Its
size rule is a ratio of median absolute deviations of at least ``min_ratio``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from perfstudy._lib.robust import MAD_SD
from perfstudy._lib.tdist import norm_ppf
from perfstudy.changes._scan import RankScan, boundary_counts, hodges_lehmann

__all__ = ["Found", "find_changes", "interval", "window_bounds"]

#: the most measurements on each side of a boundary in a scan of the spread
SPREAD_POINTS = 384
#: how far (commits) the L1 refinement may move a boundary from the scan's largest |z|
REFINE = 8


@dataclass(frozen=True)
class Found:
    """One accepted boundary of one series (internal): what changed, where, and how sure."""

    kind: str  # "level" or "spread"
    boundary: int  # the first commit of the new level
    width: int
    z: float
    p_value: float  # Bonferroni over the scan (module docstring)


def window_bounds(k: int, width: int, cuts, m: int) -> tuple[int, int]:
    """``lo, hi``: the window of boundary ``k`` is ``[lo, k)`` before and ``[k, hi)`` after, ``width`` commits
    each side of ``m``, clipped at the change points ``cuts`` (the window of every size rule, refinement and
    interval)."""
    lo = max([0, k - width] + [c for c in cuts if c < k])
    hi = min([m, k + width] + [c for c in cuts if c > k])
    return lo, hi


def _windows(y: np.ndarray, k: int, width: int, cuts: list[int]) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = window_bounds(k, width, cuts, y.size)
    return y[lo:k], y[k:hi]


def _robust_sd(before: np.ndarray, after: np.ndarray) -> float:
    dev = np.concatenate([np.abs(before - np.median(before)), np.abs(after - np.median(after))])
    return MAD_SD * float(np.median(dev))


def _refine(y: np.ndarray, k: int, width: int, cuts: list[int], min_side: int) -> int:
    """The boundary near ``k`` that best splits its window into two medians (least absolute deviations).

    The scan's largest ``|z|`` can sit a commit or two off a step; the L1 two-segment fit over the same window
    (within ``REFINE`` commits of ``k``, and half a width) puts it on the step, and stays robust to spikes.
    """
    lo, hi = window_bounds(k, width, cuts, y.size)
    best, cost = k, np.inf
    reach = min(width // 2, REFINE)
    for j in range(max(lo + min_side, k - reach), min(hi - min_side, k + reach) + 1):
        a, b = y[lo:j], y[j:hi]
        c = float(np.abs(a - np.median(a)).sum() + np.abs(b - np.median(b)).sum())
        if c < cost - 1e-12 or (abs(c - cost) <= 1e-12 and abs(j - k) < abs(best - k)):
            best, cost = j, c
    return best


def _scan(scanner, width, tests, cuts, alpha, min_side, tried, big_enough) -> Found | None:
    """The boundary of largest |z| at one width that is significant and passes the size rule, or None."""
    z, left, right = scanner(width, cuts)
    usable = (left >= min_side) & (right >= min_side)
    usable[np.asarray(cuts, dtype=int) - 1] = False
    for k in tried.get(width, ()):
        usable[k - 1] = False
    # the tail is needed only where it can be small enough: |z| beyond the Bonferroni bound
    bound = norm_ppf(1 - alpha / (2 * tests))
    usable &= np.abs(z) >= bound
    for i in np.flatnonzero(usable)[np.argsort(-np.abs(z[usable]), kind="stable")]:
        k = int(i + 1)
        if big_enough(k, width, cuts):
            p = min(1.0, math.erfc(abs(z[i]) / math.sqrt(2.0)) * tests)
            return Found("", k, width, float(z[i]), p)
        tried.setdefault(width, set()).add(k)
    return None


def _best(scanner, m, widths, cuts, alpha, min_side, tried, big_enough) -> Found | None:
    """The largest |z| over all widths that passes the size rule, or None."""
    tests = len(widths) * (m - 1)
    best = None
    for width in widths:
        found = _scan(scanner, width, tests, cuts, alpha, min_side, tried, big_enough)
        if found is not None and (best is None or abs(found.z) > abs(best.z)):
            best = found
    return best


def _updated(scan: RankScan, cuts: list[int]) -> RankScan:
    """``scan`` with every change point of ``cuts`` accepted (they only ever grow)."""
    for c in cuts:
        if c not in scan.cuts:
            scan.cut(int(c))
    return scan


def design_effect(values: np.ndarray, starts: np.ndarray) -> float:
    """Kish's design effect ``1 + (n0 - 1) ICC`` of the ranks of ``values`` clustered by commit (at least 1).

    The intraclass correlation is the one-way ANOVA estimator ``(MSB - MSW) / (MSB + (n0 - 1) MSW)`` with
    ``n0 = (N - sum n_c^2 / N) / (m - 1)`` (Donner 1986), on the ranks so that it is as robust as the scan. A change
    of spread adds between-commit variance, so the estimate errs towards a larger effect: conservative.
    """
    n = values.size
    m = starts.size
    if m < 2 or n <= m:
        return 1.0
    ranks = np.empty(n)
    ranks[np.argsort(values, kind="stable")] = np.arange(n, dtype=float)
    counts = np.diff(np.r_[starts, n])
    sums = np.add.reduceat(ranks, starts)
    means = sums / counts
    grand = ranks.mean()
    between = float((counts * (means - grand) ** 2).sum()) / (m - 1)
    within = float(((ranks - np.repeat(means, counts)) ** 2).sum()) / (n - m)
    n0 = (n - float((counts**2).sum()) / n) / (m - 1)
    if between + (n0 - 1) * within <= 0:
        return 1.0
    icc = min(max((between - within) / (between + (n0 - 1) * within), 0.0), 1.0)
    return 1.0 + (float(counts.mean()) - 1.0) * icc


def _measurement_scanner(deviations: np.ndarray, starts: np.ndarray, widths: tuple[int, ...]):
    """A scan of the measurements' own absolute deviations at the commits' boundaries.

    Widths are commits, made measurements at the mean commit size (at most ``SPREAD_POINTS``); the counts each
    side are commits. The statistic is divided by the square root of the deviations' design effect by commit (:func:`design_effect`),
    so that commits whose measurements are alike in spread do not count as independent evidence.
    """
    m = starts.size
    size = deviations.size / m
    inflate = math.sqrt(design_effect(deviations, starts))
    points = {w: max(1, min(round(w * size), SPREAD_POINTS)) for w in widths}
    scan = RankScan(deviations, tuple(sorted(set(points.values()))), starts[1:])

    def scanner(width: int, cuts: list[int]):
        z, _, _ = _updated(scan, [int(starts[c]) for c in cuts]).z(points[width])
        left, right = boundary_counts(m, width, np.asarray(cuts, dtype=int))
        return z / inflate, left, right

    return scanner


def find_changes(
    y: np.ndarray,
    *,
    widths: tuple[int, ...],
    alpha: float,
    min_side: int,
    min_sigmas: float,
    threshold: float,
    min_ratio: float,
    within: tuple[np.ndarray, np.ndarray] | None = None,
) -> list[Found]:
    """Level and spread change points of one series (module docstring), in boundary order.

    Parameters
    ----------
    y : numpy.ndarray
        One summary per commit, log scale for a ratio series.
    widths : tuple of int
        The scan widths ``W`` (commits each side, fewer where the series or a change point ends the window).
    alpha : float
        The per-series level of the scan (Bonferroni over boundaries and widths).
    min_side : int
        Fewest commits on either side of a change.
    min_sigmas, threshold, min_ratio : float
        The size rules of a level change (robust SDs, relative shift on ``y``'s scale) and of a spread change.
    within : (numpy.ndarray, numpy.ndarray), optional
        Each measurement's absolute deviation from its commit's median, and the position of each commit's first
        measurement: where commits hold several measurements, the spread is scanned on these (at the commits'
        boundaries, a commit's noise seen within it, where no change of level can hide it) instead of on the
        commits' residuals, and level changes do not clip it. The deviations of one commit are taken as
        independent.
    """
    m = y.size
    if m < 2 * min_side:
        return []
    # a width of m - 1 or more is the whole series: one scan of it is enough
    widths = tuple(sorted({min(w, m - 1) for w in widths}))
    found: list[Found] = []
    cuts: list[int] = []
    tried: dict[int, set[int]] = {}

    def level_matters(k: int, width: int, cuts: list[int]) -> bool:
        before, after = _windows(y, k, width, cuts)
        shift = float(np.median((after[None, :] - before[:, None]).ravel()))
        return abs(shift) >= max(min_sigmas * _robust_sd(before, after), threshold)

    level_scan = RankScan(y, widths)

    def level_scanner(width: int, cuts: list[int]):
        return _updated(level_scan, cuts).z(width)

    while (hit := _best(level_scanner, m, widths, cuts, alpha, min_side, tried, level_matters)) is not None:
        k = _refine(y, hit.boundary, hit.width, cuts, min_side)
        found.append(Found("level", k, hit.width, hit.z, hit.p_value))
        cuts = sorted([*cuts, k])
    tried = {}
    if within is None:
        bounds = [0, *cuts, m]
        pieces = [np.full(b - a, np.median(y[a:b])) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        spread = np.abs(y - np.concatenate(pieces))
        spread_cuts = list(cuts)

        spread_scan = RankScan(spread, widths)

        def spread_scanner(width: int, cuts: list[int]):
            return _updated(spread_scan, cuts).z(width)

        def spread_windows(k: int, width: int, cuts: list[int]):
            return _windows(spread, k, width, cuts)

    else:
        deviations, starts = within
        starts = np.asarray(starts, dtype=int)
        edges = np.r_[starts, deviations.size]
        spread_cuts = []
        spread_scanner = _measurement_scanner(deviations, starts, widths)

        def spread_windows(k: int, width: int, cuts: list[int]):
            lo, hi = window_bounds(k, width, cuts, m)
            return deviations[edges[lo] : edges[k]], deviations[edges[k] : edges[hi]]

    def spread_matters(k: int, width: int, cuts: list[int]) -> bool:
        before, after = spread_windows(k, width, cuts)
        low, high = np.median(before), np.median(after)
        if low <= 0 or high <= 0:
            return low != high
        return abs(math.log(high / low)) >= math.log(min_ratio)

    while (hit := _best(spread_scanner, m, widths, spread_cuts, alpha, min_side, tried, spread_matters)) is not None:
        found.append(Found("spread", hit.boundary, hit.width, hit.z, hit.p_value))
        spread_cuts = sorted([*spread_cuts, hit.boundary])
    return sorted(found, key=lambda f: (f.boundary, f.kind))


def interval(before: np.ndarray, after: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """Hodges-Lehmann shift of ``after`` against ``before`` with Moses' interval at ``confidence``."""
    return hodges_lehmann(before, after, norm_ppf(0.5 + confidence / 2))
