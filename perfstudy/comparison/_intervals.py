"""The interval mathematics of a comparison: each version's clusters (:class:`_Side`), the change
(ratio or difference), the cluster bootstrap, Welch-Fieller and Student-t intervals, p-values and their
multiple-comparison corrections."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from perfstudy._lib.checks import (
    check_choice,
)
from perfstudy._lib.quantiles import linear_quantiles
from perfstudy._lib.tdist import norm_ppf, t_ppf, t_sf
from perfstudy.comparison.running import RULES

STATISTICS = ("mean", "median")

#: a block's statistic in a paired comparison over blocks (a run's rounds): the minimum too, which a
#: bootstrap of clusters cannot resample soundly but a block's ratio can use
BLOCK_STATISTICS = ("mean", "median", "min")

#: the anytime-valid rules of a run that looked after every round, by name (the registry:
#: :data:`perfstudy.comparison.running.RULES`)
SEQUENTIAL_RULES = tuple(RULES)

#: Multiple-comparison corrections: Holm's step-down (family-wise error), Benjamini-Hochberg (false
#: discovery rate), or none.
CORRECTIONS = ("holm", "bh", "none")

VERDICTS = ("faster", "slower", "no change", "inconclusive")

#: Fewer clusters than this on either side: a Student-t interval instead of the cluster bootstrap.
MIN_BOOTSTRAP_CLUSTERS = 20

#: Below this many bootstrap replicates beyond 0, the p-value comes from the studentised estimate
#: (a t tail) instead of their share, which cannot resolve p-values below ``2 / (replicates + 1)``.
MIN_TAIL_REPLICATES = 10

#: Share of each cluster's first values compared with the rest by the warm-up check.
WARMUP_SHARE = 0.1

#: How a benchmark's change is measured: ``B/A - 1`` where every statistic is positive, else ``B - A``
#: in the benchmark's unit (zeros, negative values).
SCALES = ("ratio", "difference")


def adjust_p_values(p_values, method: Literal["holm", "bh", "none"] = "holm") -> np.ndarray:
    """p-values adjusted for multiple comparisons (NaN entries are left out and stay NaN).

    The same numbers as ``statsmodels.stats.multitest.multipletests(p, method="holm" or "fdr_bh")[1]``
    (tests/comparison/test_compare.py checks it to 1e-12), computed here because importing statsmodels costs 1.5 s,
    which every ``perfstudy compare`` would pay.

    Parameters
    ----------
    p_values : array_like
        One per hypothesis.
    method : {"holm", "bh", "none"}
        Holm (1979) step-down, controlling the family-wise error rate; Benjamini & Hochberg (1995),
        controlling the false discovery rate; or none.
    """
    check_choice("method", method, CORRECTIONS)
    try:
        p = np.asarray(p_values, dtype=float)
    except (ValueError, TypeError):
        raise TypeError("p_values: expected numbers in [0, 1] (NaN for a hypothesis not tested)") from None
    if p.ndim != 1:
        raise ValueError(f"p_values: expected a one-dimensional array, got shape {p.shape}")
    outside = ~np.isnan(p) & ~((p >= 0) & (p <= 1))
    if outside.any():
        raise ValueError(f"p_values: {int(outside.sum())} value(s) outside [0, 1], e.g. {p[outside][0]!r}")
    out = np.full(p.shape, np.nan)
    finite = ~np.isnan(p)
    q = p[finite]
    m = q.size
    if m == 0 or method == "none":
        out[finite] = q
        return out
    order = np.argsort(q, kind="stable")
    ranked = q[order]
    if method == "holm":
        adjusted = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * ranked))
    else:
        adjusted = np.minimum.accumulate(m / np.arange(m, 0, -1) * ranked[::-1])[::-1]
        adjusted = np.minimum(1.0, adjusted)
    result = np.empty(m)
    result[order] = adjusted
    out[finite] = result
    return out


@dataclass(frozen=True)
class _Side:
    """One version of one benchmark: its values grouped by cluster."""

    values: np.ndarray  # all values, grouped by cluster
    cluster: np.ndarray  # cluster index (0..C-1) of each value
    sums: np.ndarray  # per cluster
    counts: np.ndarray  # per cluster
    statistics: np.ndarray  # per cluster: mean or median
    estimate: float  # the statistic of all the values: what the table's A and B columns show

    @property
    def clusters(self) -> int:
        return self.counts.size


def _side(values: np.ndarray, labels: np.ndarray, statistic: str) -> _Side:
    codes, cluster = np.unique(labels, return_inverse=True)
    cluster = cluster.reshape(-1)
    counts = np.bincount(cluster, minlength=codes.size).astype(float)
    sums = np.bincount(cluster, weights=values, minlength=codes.size)
    if statistic == "mean":
        per_cluster = sums / counts
        estimate = float(values.mean())
    elif statistic == "min":
        per_cluster = np.full(codes.size, np.inf)
        np.minimum.at(per_cluster, cluster, values)
        estimate = float(values.min())
    else:
        order = np.lexsort((values, cluster))
        ordered, starts = values[order], np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        sizes = counts.astype(np.int64)
        per_cluster = 0.5 * (ordered[starts + (sizes - 1) // 2] + ordered[starts + sizes // 2])
        estimate = float(np.median(values))
    return _Side(values, cluster, sums, counts, per_cluster, estimate)


def _scale(a: _Side, b: _Side) -> str:
    """``"ratio"`` when every value is >= 0 and every cluster statistic > 0 on both sides (then
    every resample's statistic is > 0 too), else ``"difference"``."""
    positive = all((side.values >= 0).all() and (side.statistics > 0).all() for side in (a, b))
    return "ratio" if positive else "difference"


def _change(a: _Side, b: _Side, scale: str) -> float:
    """The change from A to B: ``B/A - 1`` on the ratio scale, ``B - A`` on the difference scale."""
    return b.estimate / a.estimate - 1.0 if scale == "ratio" else b.estimate - a.estimate


def _method(a: _Side, b: _Side) -> str:
    fewer = min(a.clusters, b.clusters)
    return "none" if fewer < 2 else "t" if fewer < MIN_BOOTSTRAP_CLUSTERS else "bootstrap"


def _draw_counts(clusters: int, replicates: int, rng: np.random.Generator) -> np.ndarray:
    """``(replicates, clusters)``: how often each cluster is drawn when ``clusters`` clusters are
    drawn with replacement."""
    draws = rng.integers(0, clusters, size=(replicates, clusters))
    rows = np.arange(replicates)[:, None] * clusters
    return np.bincount((draws + rows).ravel(), minlength=replicates * clusters).reshape(replicates, clusters)


def _resampled(side: _Side, statistic: str, replicates: int, rng: np.random.Generator) -> np.ndarray:
    """The statistic of ``replicates`` resamples of whole clusters (with replacement)."""
    k = _draw_counts(side.clusters, replicates, rng).astype(float)
    if statistic == "mean":
        return (k @ side.sums) / (k @ side.counts)
    # The median of a resample is that of the values, each repeated as often as its cluster was
    # drawn. below[c, j]: values of cluster c among the j + 1 smallest; k @ below[:, j] is then the
    # rank of the (j + 1)-th smallest value in the resample, and a vectorised bisection finds the
    # positions of the resample's middle one or two values.
    order = np.argsort(side.values, kind="stable")
    ordered = side.values[order]
    below = np.cumsum(side.cluster[order][None, :] == np.arange(side.clusters)[:, None], axis=1, dtype=float)
    total = k @ side.counts

    def first_reaching(target: np.ndarray) -> np.ndarray:
        low, high = np.zeros(replicates, dtype=np.int64), np.full(replicates, ordered.size - 1)
        while np.any(low < high):
            mid = (low + high) // 2
            reached = np.einsum("rc,cr->r", k, below[:, mid]) >= target
            low, high = np.where(reached, low, mid + 1), np.where(reached, mid, high)
        return low

    middle_low = first_reaching(np.ceil(total / 2))
    middle_high = first_reaching(np.floor(total / 2) + 1)
    return 0.5 * (ordered[middle_low] + ordered[middle_high])


def _interval(a: _Side, b: _Side, scale: str, method: str, statistic, confidence, replicates, rng):
    """``(low, high, p_value)`` for the change from A to B by ``method`` (:func:`_method`): of
    ``B/A - 1`` on the ratio scale (computed on logs), of ``B - A`` on the difference scale."""
    alpha = 1.0 - confidence
    fewer = min(a.clusters, b.clusters)
    if method == "none":
        return math.nan, math.nan, math.nan
    if method == "t":
        return _welch_fieller(a, b, scale, alpha)
    to_scale, back = (np.log, np.expm1) if scale == "ratio" else (np.asarray, np.asarray)
    centre = float(to_scale(b.estimate) - to_scale(a.estimate))
    replicated = to_scale(_resampled(b, statistic, replicates, rng)) - to_scale(
        _resampled(a, statistic, replicates, rng)
    )
    # Small-sample correction: the spread of a C-cluster bootstrap is sqrt((C - 1) / C) of the
    # unbiased one, and its tails are normal where those of C cluster means are t; stretching the
    # replicates about the estimate by the product of both ratios took the Type I error at 25
    # clusters a side from 6.5-7% to the nominal 5% (tests/comparison/test_compare.py).
    df = a.clusters + b.clusters - 2
    inflation = math.sqrt(fewer / (fewer - 1))
    se = inflation * float(replicated.std(ddof=1))
    if se == 0.0:
        p = 1.0 if centre == 0.0 else 0.0
        return float(back(centre)), float(back(centre)), p
    # the studentised estimate: no floor at 2 / (replicates + 1), unlike the share of replicates
    p = _t_p_value(centre / se, df)
    stretch = inflation * t_ppf(1 - alpha / 2, df) / norm_ppf(1 - alpha / 2)
    replicated = centre + stretch * (replicated - centre)
    low, high = back(linear_quantiles(replicated, [alpha / 2, 1.0 - alpha / 2]))
    beyond = min(np.count_nonzero(replicated <= 0.0), np.count_nonzero(replicated >= 0.0))
    if beyond >= MIN_TAIL_REPLICATES:
        # the tail is resolved: the share of replicates beyond 0, the test the percentile interval
        # inverts (they agree on skewed bootstrap distributions, a median's, where the t does not)
        p = min(1.0, 2.0 * (1 + beyond) / (replicates + 1))
    return float(low), float(high), p


def _welch_fieller(a: _Side, b: _Side, scale: str, alpha: float):
    """``(low, high, p_value)`` with few clusters: Welch's t for ``B - A`` of the two versions'
    statistics, each with the standard error of its clusters' statistics (``sd / sqrt(C)``), on the
    Welch-Satterthwaite degrees of freedom. On the ratio scale the interval of ``B/A - 1`` is
    Fieller's: the ratios ``r`` with ``(B - r A)^2 <= q^2 (se_B^2 + r^2 se_A^2)``, exactly the
    ratios the same test does not reject, so 0 lies outside it when ``p < alpha``, cut at a ratio of
    0 (every statistic is positive on this scale, so B/A is). It is unbounded (NaN here) when A itself
    is not distinguishable from 0.

    Centre and spread on one scale: a t on log batch statistics centred on the log ratio of the
    pooled means read one 12 s stall among twelve 5 ms runs as "faster, p = 0.0002"; on this scale
    the same data give p = 0.34."""
    va, vb = a.statistics.var(ddof=1) / a.clusters, b.statistics.var(ddof=1) / b.clusters
    se = math.sqrt(va + vb)
    difference = b.estimate - a.estimate
    if se == 0.0:
        change = _change(a, b, scale)
        return change, change, 1.0 if difference == 0.0 else 0.0
    # Welch-Satterthwaite: between C - 1 (one side's variance dominates) and C_a + C_b - 2
    df = (va + vb) ** 2 / (va**2 / (a.clusters - 1) + vb**2 / (b.clusters - 1))
    p = _t_p_value(difference / se, df)
    q = t_ppf(1.0 - alpha / 2, df)
    if scale == "difference":
        return difference - q * se, difference + q * se, p
    # Fieller: (A^2 - q^2 va) r^2 - 2 A B r + (B^2 - q^2 vb) <= 0
    lead = a.estimate**2 - q**2 * va
    half_width = math.sqrt(max(0.0, (a.estimate * b.estimate) ** 2 - lead * (b.estimate**2 - q**2 * vb)))
    if lead <= 0.0:
        return math.nan, math.nan, p
    low, high = (a.estimate * b.estimate - half_width) / lead, (a.estimate * b.estimate + half_width) / lead
    # The ratio scale is used only where every batch statistic is positive, so B/A > 0: the part of
    # Fieller's set below 0 (a B so noisy that a negative mean is not rejected) holds no possible
    # ratio, and cutting it off keeps the coverage. Shown as -100%: "any faster is possible".
    return max(low, 0.0) - 1.0, high - 1.0, p


def _t_p_value(t: float, df: float) -> float:
    return 2.0 * t_sf(abs(t), df)
