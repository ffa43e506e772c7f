"""Is B faster than A, by how much, and can it be trusted: two versions compared per benchmark.

The change is ``B / A - 1`` of the mean or the median of all values of each version (the
*ratio* scale). Its interval comes from resampling the unit that carries the dependence, the
*cluster* (a pyperf process, a JMH fork, a host: ``batch`` in the tidy schema), never single
values: values from one process share its start-up state, and an iid analysis of them overstates
significance (notebook 02; Bakshy & Frachtenberg, section 5). This is where the peers go wrong:
benchstat runs Mann-Whitney on pooled values, pyperf's ``compare_to`` a t-test on them.

- With at least :data:`MIN_BOOTSTRAP_CLUSTERS` clusters on each side, a percentile interval of the
  cluster bootstrap (clusters resampled with replacement within each version, the statistic
  recomputed on all their values). The replicates of the log ratio are first stretched about the
  estimate by ``sqrt(C / (C - 1)) t_{C_a + C_b - 2} / z``: a C-cluster bootstrap's spread is
  ``sqrt((C - 1) / C)`` of the unbiased one and its tails are normal; without the stretch the A/A
  Type I error at 25 clusters a side was 6.5-7%, with it 5.2%. The p-value is the share of the
  stretched replicates beyond 0 (the test the percentile interval inverts) while at least
  :data:`MIN_TAIL_REPLICATES` of them lie there; further out, that share has no resolution (it
  cannot go below ``2 / (replicates + 1)``, about 0.001 at 2,000 replicates, which Holm over 200
  benchmarks turned into 0.2: a +5% regression with an interval of [+4.3%, +7.2%] passed a CI
  gate), and the p-value is that of the studentised estimate, ``t = log(B/A) / se*`` on
  ``C_a + C_b - 2`` degrees of freedom, ``se*`` the bootstrap standard error times
  ``sqrt(C / (C - 1))``, which has no floor.
- With fewer, Welch's t for the difference of the two versions' statistics, each with the
  standard error of its clusters' statistics (their means or medians, each cluster counted once),
  on the Welch-Satterthwaite degrees of freedom, which lie between ``C - 1`` (``C`` the fewer
  clusters of the two sides) and ``C_a + C_b - 2``; the interval of ``B/A - 1`` is Fieller's, the
  ratios that test does not reject (unbounded, so NaN, when A cannot be told from 0). A bootstrap
  of a handful of clusters is too narrow (its Type I error was 21% with 3 clusters a side and 13%
  with 5, against 2.8% and 4.6% for a t; ``tests/test_compare.py``).
- With one cluster on a side there is no between-cluster variance to estimate: the interval and
  p-value are NaN and the verdict is "inconclusive", with a warning. Never a narrow interval.

Values that are zero or negative (Go's ``0 allocs/op``, a failure count, a time of 0.0) have no
ratio where a version's statistic can be 0. A benchmark with a value below 0, or with a cluster
whose statistic is 0, is compared on the *difference* scale: ``B - A`` in the benchmark's unit,
with the same two interval methods on the statistics themselves instead of their logs; the table
says so in its ``scale`` column. ``0 -> 0`` is "no change"; ``0 -> 100`` is a change whose verdict
comes from the difference, beyond ``threshold`` times ``|A|``.

p-values of many benchmarks are corrected (Holm, or Benjamini-Hochberg) before the verdicts. A
benchmark that cannot be compared (units that do not convert between the versions, no values left
once warm-ups are left out) is listed in :attr:`Comparison.excluded` with its reason; the others
are compared.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd

from perfstudy._lib.checks import (
    check_allocation,
    check_bool,
    check_choice,
    check_column,
    check_fraction,
    check_resamples,
    check_sample,
)
from perfstudy._lib.format import display_unit, plural, si
from perfstudy._lib.parallel import map_tasks
from perfstudy._lib.result import Result
from perfstudy._lib.tdist import norm_ppf, t_ppf, t_sf
from perfstudy._lib.units import conversion_factor, higher_is_better

__all__ = [
    "STATISTICS",
    "CORRECTIONS",
    "VERDICTS",
    "SCALES",
    "MIN_BOOTSTRAP_CLUSTERS",
    "Comparison",
    "compare",
    "adjust_p_values",
    "higher_is_better",
    "format_comparison",
    "odd_batches",
]

STATISTICS = ("mean", "median")
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


def adjust_p_values(p_values, method: str = "holm") -> np.ndarray:
    """p-values adjusted for multiple comparisons (NaN entries are left out and stay NaN).

    The same numbers as ``statsmodels.stats.multitest.multipletests(p, method="holm" or "fdr_bh")[1]``
    (tests/test_compare.py checks it to 1e-12), computed here because importing statsmodels costs 1.5 s,
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
    # clusters a side from 6.5-7% to the nominal 5% (tests/test_compare.py).
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
    low, high = back(np.quantile(replicated, [alpha / 2, 1.0 - alpha / 2]))
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


def _warmup_test(side: _Side, alpha: float, threshold: float) -> tuple[int, float, float] | None:
    """Are the first values of each cluster unlike the rest? A one-sample t-test over clusters of
    the per-cluster relative difference, first :data:`WARMUP_SHARE` of its values against the rest
    (clusters of fewer than 4 values are left out). Returns ``(values, mean difference, p)`` when it
    rejects at ``alpha`` and the difference exceeds half the threshold (and 0.5%), else None.
    :func:`perfstudy.analysis.analyze` uses the same test, so its table and advice agree with the note."""
    cluster = side.cluster
    order = np.argsort(cluster, kind="stable")
    starts = np.concatenate([[0], np.cumsum(side.counts)[:-1]]).astype(np.int64)
    position = np.empty(cluster.size, dtype=np.int64)
    position[order] = np.arange(cluster.size) - starts[cluster[order]]
    first = np.maximum(1, np.rint(WARMUP_SHARE * side.counts)).astype(np.int64)
    usable = side.counts >= 2 * first + 2
    if usable.sum() < 3:
        return None
    early = position < first[cluster]
    early_mean = np.bincount(cluster, weights=side.values * early, minlength=side.clusters) / first
    late_mean = np.bincount(cluster, weights=side.values * ~early, minlength=side.clusters) / (side.counts - first)
    d = (early_mean / late_mean - 1.0)[usable]
    spread = d.std(ddof=1)
    if spread == 0.0:
        return None
    p = _t_p_value(d.mean() / (spread / math.sqrt(d.size)), d.size - 1)
    if p < alpha and abs(d.mean()) > max(threshold / 2, 0.005):
        return int(first[usable].min()), float(d.mean()), p
    return None


def _warmup_warning(side: _Side, name: str, alpha: float, threshold: float) -> str | None:
    found = _warmup_test(side, alpha, threshold)
    if found is None:
        return None
    count, change, p = found
    return f"warm-up in {name}: {_first(count)} of each batch differ from the rest by {100 * change:+.1f}% (p={p:.2g}); drop them"


def _first(count: int) -> str:
    return "the first value" if count == 1 else f"the first {count} values"


def _trend(statistics: np.ndarray) -> tuple[float, float]:
    """Spearman's rank correlation of ``statistics`` with their order, and its two-sided p-value by the
    t approximation: what ``scipy.stats.spearmanr(np.arange(n), statistics)`` returns (tests/test_compare.py
    checks it), without importing scipy.stats (1.0 s here, more than a whole ``perfstudy compare`` of a
    200-benchmark Go suite; see perfstudy/_tdist.py)."""
    n = statistics.size
    ranks = _average_ranks(statistics)
    rho = float(np.corrcoef(np.arange(n), ranks)[0, 1])
    if abs(rho) >= 1.0:
        return rho, 0.0
    return rho, _t_p_value(rho * math.sqrt((n - 2) / (1 - rho**2)), n - 2)


def _drift_warning(side: _Side, name: str, alpha: float) -> str | None:
    """Do the cluster statistics trend with the cluster order (a non-stationary series)? Spearman's
    rank correlation (:func:`_trend`)."""
    if side.clusters < 8 or np.ptp(side.statistics) == 0.0:
        return None
    rho, p = _trend(side.statistics)
    if p < alpha:
        return f"drift in {name}: batch results trend with batch order (Spearman rho={rho:+.2f}, p={p:.2g})"
    return None


def _average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties given their average rank (:func:`scipy.stats.rankdata`'s default)."""
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return (ends - (counts - 1) / 2.0)[inverse.reshape(-1)]


def odd_batches(statistics, labels=None, *, alpha: float = 0.05) -> list:
    """Batches whose statistic is unlike the others': for each batch, its log statistic against the
    mean and spread of the *other* batches' (the externally studentised residual,
    ``t = (x_c - mean_others) / (sd_others sqrt(1 + 1/(C - 1)))``, Student's t on ``C - 2``
    degrees of freedom under normality), Bonferroni-corrected over the ``C`` batches.

    A robust z-score (median and MAD) flagged ordinary batches too often here: the MAD of 20 batch
    medians can come out at half the true spread by chance (seen on simulated runs).

    Parameters
    ----------
    statistics : array_like
        One positive statistic per batch (its mean or median).
    labels : array_like, optional
        The batches' labels (default: their positions).
    alpha : float
        Family-wise size over the batches.

    Returns
    -------
    list
        The labels of the odd batches, most extreme first (empty with fewer than 5 batches).
    """
    alpha = check_fraction("alpha", alpha)
    x = check_sample("statistics", statistics, minimum=0)
    if (x <= 0).any():
        raise ValueError("statistics: expected positive batch statistics (they are compared on a log scale)")
    x = np.log(x)
    labels = np.arange(x.size) if labels is None else np.asarray(labels)
    if labels.shape != x.shape:
        raise ValueError(f"labels: {labels.size} labels for {x.size} statistics")
    c = x.size
    if c < 5:
        return []
    total, squares = x.sum(), (x**2).sum()
    others_mean = (total - x) / (c - 1)
    others_var = np.maximum((squares - x**2 - (c - 1) * others_mean**2) / (c - 2), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(x - others_mean) / np.sqrt(others_var * (1 + 1 / (c - 1)))
    t = np.where(np.isnan(t), 0.0, t)  # a batch equal to identical others
    # Bonferroni, 2 P(T > t) c < alpha, is t beyond the t quantile at 1 - alpha / (2c); the most
    # extreme first is the largest t first
    odd = np.flatnonzero(t > t_ppf(1.0 - alpha / (2 * c), c - 2))
    return [labels[i] for i in odd[np.argsort(-t[odd], kind="stable")]]


def _outlier_warning(side: _Side, labels, name: str, alpha: float) -> str | None:
    """The most extreme of :func:`odd_batches`, if any."""
    odd = odd_batches(side.statistics, labels, alpha=alpha)
    if odd:
        more = f" (and {len(odd) - 1} more)" if len(odd) > 1 else ""
        return f"batch {odd[0]} of {name} is unlike the others{more}"
    return None


@dataclass(frozen=True)
class _Settings:
    statistic: str
    confidence: float
    threshold: float
    replicates: int
    checks: bool
    cluster: str
    block: str | None
    sequential: bool
    check_alpha: float  # size of each diagnostic behind the warnings: Bonferroni over the benchmarks


@dataclass(frozen=True, eq=False)
class _Task:
    """One benchmark's values and cluster labels in both versions (picklable, for an executor)."""

    name: object
    values_a: np.ndarray
    labels_a: np.ndarray
    values_b: np.ndarray
    labels_b: np.ndarray
    higher_is_better: bool
    settings: _Settings
    exact: bool = False  # Go's "Unit ... assume=exact": the values have no distribution
    blocks_a: np.ndarray | None = None  # with compare(block=...): each value's block (round)
    blocks_b: np.ndarray | None = None
    hosts_b: np.ndarray | None = None  # each of B's values' host, where a host column says


def _confirm_warning(side: _Side, name: str, settings: _Settings, rng) -> str | None:
    """CONFIRM (Maricq et al., section 5) on the batches' statistics: how many batches until the
    median's interval is within ``+-threshold``; a warning when this side has fewer."""
    if settings.threshold <= 0 or side.clusters < 10:
        return None
    from perfstudy.diagnostics.repetitions import repetitions_needed

    needed = repetitions_needed(
        side.statistics, error=settings.threshold, confidence=settings.confidence, trials=100, rng=rng
    )
    if needed.estimate is None:
        return (
            f"CONFIRM: {side.clusters} {plural(settings.cluster)} in {name} do not pin the median to "
            f"+-{100 * settings.threshold:g}%; run more"
        )
    return None


def _one_value(frame: pd.DataFrame, column: str) -> dict:
    """``{benchmark: value}`` for the benchmarks whose rows hold exactly one value of ``column``
    (a unit, Go's ``better`` or ``assume``); others, and a frame without the column, are left out."""
    if column not in frame.columns:
        return {}
    pairs = frame[["benchmark", column]].dropna().drop_duplicates()
    once = pairs["benchmark"].map(pairs["benchmark"].value_counts()) == 1
    return dict(zip(pairs.loc[once, "benchmark"], pairs.loc[once, column].astype(str)))


def _common_unit(units_a: pd.Series, units_b: pd.Series):
    """``(unit, factors_a, factors_b, reason)``: the unit both versions' values are converted to
    (the one most of A's values are in), the factors to multiply each side's values by, and None;
    or a reason for units that do not convert (:func:`perfstudy._lib.units.conversion_factor`)."""
    present = pd.concat([units_a, units_b]).dropna()
    if present.empty:
        return None, 1.0, 1.0, None
    if units_a.isna().any() or units_b.isna().any():
        return None, 1.0, 1.0, f"unit: some values have a unit ({present.iloc[0]!r}) and some have none"
    found = present.astype(str).unique()
    if found.size == 1:
        return str(found[0]), 1.0, 1.0, None
    target = str(units_a.astype(str).mode().iloc[0])
    factors = {u: conversion_factor(u, target) for u in found}
    wrong = sorted(u for u, f in factors.items() if f is None)
    if wrong:
        return None, 1.0, 1.0, f"unit: measured in {sorted(found)}, and {wrong} do not convert to {target!r}"
    return (
        target,
        units_a.astype(str).map(factors).to_numpy(dtype=float),
        units_b.astype(str).map(factors).to_numpy(dtype=float),
        None,
    )


def _compare_one(task: _Task, rng) -> dict:
    """The row of one benchmark (see :class:`Comparison`), before the correction and verdict."""
    s = task.settings
    alpha = s.check_alpha
    a = _side(task.values_a, task.labels_a, s.statistic)
    b = _side(task.values_b, task.labels_b, s.statistic)
    interval_rng, confirm_rng = np.random.default_rng(rng).spawn(2)
    method, scale = ("exact" if task.exact else _method(a, b)), _scale(a, b)
    notes = []
    if task.exact:
        # benchstat's AssumeExact: one value is the truth, any difference is real; p is 0 or 1
        low = high = _change(a, b, scale)
        p = 0.0 if low != 0 else 1.0
        for side, label in ((a, "A"), (b, "B")):
            if np.ptp(side.values) > 0:
                notes.append(
                    f"assume=exact, but the values in {label} range from {side.values.min():.6g} to "
                    f"{side.values.max():.6g}"
                )
    elif s.block is not None:
        return _paired_row(task, a, b)
    else:
        low, high, p = _interval(a, b, scale, method, s.statistic, s.confidence, s.replicates, interval_rng)
    if scale == "difference":
        notes.append("a value or batch statistic of 0 or below: compared as the difference B - A, not a ratio")
    for side, label in ((a, "A"), (b, "B")):
        if side.clusters == 1 and not task.exact:
            notes.append(f"one {s.cluster} in {label}: no interval can be trusted; run more {plural(s.cluster)}")
    if method == "t":
        notes.append(
            f"few {plural(s.cluster)} ({min(a.clusters, b.clusters)}): Welch t interval over the {plural(s.cluster)}"
        )
    if s.checks and scale == "ratio" and not task.exact:  # the checks compare batches by their ratios
        for side, label, labels in ((a, "A", task.labels_a), (b, "B", task.labels_b)):
            notes += filter(
                None,
                (
                    _warmup_warning(side, label, alpha, s.threshold),
                    _drift_warning(side, label, alpha),
                    _outlier_warning(side, np.unique(labels), label, alpha),
                    _confirm_warning(side, label, s, confirm_rng),
                ),
            )
    return _row(
        task, a, b, clusters=(a.clusters, b.clusters), scale=scale, change=_change(a, b, scale), low=low, high=high,
        p_value=p, method=method, notes=notes,
    )  # fmt: skip


def _row(task: _Task, a: _Side, b: _Side, *, clusters, scale, change, low, high, p_value, method, notes) -> dict:
    """One benchmark's row of :class:`Comparison`'s table, before the correction and verdict."""
    return dict(
        benchmark=task.name,
        n_a=int(a.values.size),
        n_b=int(b.values.size),
        clusters_a=clusters[0],
        clusters_b=clusters[1],
        estimate_a=a.estimate,
        estimate_b=b.estimate,
        spread_a=_spread(a),
        spread_b=_spread(b),
        scale=scale,
        change=change,
        low=low,
        high=high,
        p_value=p_value,
        method=method,
        higher_is_better=task.higher_is_better,
        warnings="; ".join(notes),
        notes=tuple(notes),
    )


def _paired_row(task: _Task, a: _Side, b: _Side) -> dict:
    """The row of one benchmark paired over blocks (:mod:`perfstudy.comparison._paired`)."""
    from perfstudy.comparison._paired import block_differences, paired_interval

    s = task.settings
    blocks, stat_a, stat_b = block_differences(
        task.values_a, task.blocks_a, task.values_b, task.blocks_b, statistic=s.statistic
    )
    if blocks.size == 0:
        raise ValueError(
            f"block={s.block!r}: benchmark {task.name!r}: no {s.block} holds both versions, so nothing pairs; give "
            f"the column in which both versions ran side by side (a run's 'round'), or leave block out"
        )
    hosts = None
    if task.hosts_b is not None:
        host_of = dict(zip(task.blocks_b.tolist(), task.hosts_b.tolist()))  # type: ignore[union-attr]
        hosts = np.array([host_of[block] for block in blocks.tolist()])
    found = paired_interval(stat_a, stat_b, confidence=s.confidence, sequential=s.sequential, hosts=hosts,
                            check_alpha=s.check_alpha)  # fmt: skip
    notes = list(found["notes"])
    unpaired = len(np.unique(task.blocks_a)) + len(np.unique(task.blocks_b)) - 2 * blocks.size  # type: ignore[arg-type]
    if unpaired:
        blocks_word = s.block if unpaired == 1 else plural(s.block)  # type: ignore[arg-type]
        notes.append(f"{unpaired} {blocks_word} with only one version left out of the pairing")
    if s.checks and found["scale"] == "ratio":
        for side, label in ((a, "A"), (b, "B")):
            notes += filter(None, (_warmup_warning(side, label, s.check_alpha, s.threshold),))
    return _row(
        task, a, b, clusters=(int(blocks.size), int(blocks.size)), scale=found["scale"], change=found["change"],
        low=found["low"], high=found["high"], p_value=found["p_value"], method=found["method"], notes=notes,
    )  # fmt: skip


def _spread(side: _Side) -> float:
    """The side's spread relative to its centre: the SD of its batch statistics over ``|estimate|`` (of its
    values when it has one batch); NaN with a single value or a centre of 0."""
    spread = side.statistics if side.clusters > 1 else side.values
    if spread.size < 2 or side.estimate == 0:
        return math.nan
    return float(spread.std(ddof=1) / abs(side.estimate))


@dataclass(frozen=True, eq=False)
class Comparison(Result):
    """The change from version A to version B, per benchmark, with its interval and a verdict.

    Attributes
    ----------
    table : DataFrame
        One row per benchmark present in both versions: ``benchmark``, ``n_a``, ``n_b``,
        ``clusters_a``, ``clusters_b``, ``estimate_a``, ``estimate_b`` (the mean or median of all
        the version's values, in ``units``), ``spread_a``, ``spread_b`` (the SD of the version's batch
        statistics relative to its estimate; of its values when it has one batch), ``change``,
        ``low``, ``high`` (at ``confidence``), ``p_value`` (uncorrected, H0: no change),
        ``p_adjusted`` (after ``correction``), ``method`` (``"bootstrap"``, ``"t"``, ``"none"``, or
        ``"exact"`` for a unit with Go's ``assume=exact``: the values are the truth, p is 0 or 1),
        ``scale`` (``"ratio"``: ``change``, ``low`` and ``high`` are relative, ``B/A - 1``;
        ``"difference"``: they are ``B - A`` in the benchmark's unit, for zeros and negative values),
        ``higher_is_better``, ``verdict`` (one of :data:`VERDICTS`), ``warnings`` (text, ``"; "``
        between warnings) and ``notes`` (the same warnings, a tuple of one string each).
    statistic : str
    confidence : float
    threshold : float
        Relative change below which a difference does not matter.
    correction : str
    replicates : int
    cluster : str
        The column whose values were resampled.
    only_a, only_b : tuple of str
        Benchmarks present in only one version (not compared).
    dropped : int
        Rows with a missing value, dropped with ``dropna=True``.
    warmup_dropped : int
        Rows flagged ``warmup`` by the harness, left out.
    labels : mapping
        ``{"a": ..., "b": ...}``: the values of the ``by`` column that are versions A and B.
    units : mapping
        Benchmark to unit, where a ``unit`` column gave one (after conversion).
    excluded : mapping
        Benchmark to the reason it could not be compared (units that do not convert, no values
        left once warm-ups are left out).
    """

    table: pd.DataFrame
    statistic: str
    confidence: float
    threshold: float
    correction: str
    replicates: int
    cluster: str
    only_a: tuple = ()
    only_b: tuple = ()
    dropped: int = 0
    warmup_dropped: int = 0
    labels: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    units: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    excluded: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))

    def to_frame(self) -> pd.DataFrame:
        """The per-benchmark table (a copy)."""
        return self.table.copy()

    def _repr_html_(self) -> str:
        return _html(self)

    @property
    def regressions(self) -> pd.DataFrame:
        """The rows whose verdict is ``"slower"``."""
        return self.table[self.table["verdict"] == "slower"].copy()


def _versions(frame: pd.DataFrame, by: str, baseline):
    values = list(dict.fromkeys(frame[by].tolist()))
    if len(values) != 2:
        raise ValueError(f"{by}: expected exactly two versions to compare, found {len(values)}: {values[:5]}")
    if baseline is None:  # a stated rule, never the order of the rows alone: 0 before 1, "A" before "B"
        try:
            baseline = sorted(values)[0]
        except TypeError:
            baseline = sorted(values, key=str)[0]
        vocabulary = {frozenset({"A", "B"}), frozenset({0, 1})}  # the project's own names: A and 0 are the baseline
        if baseline != values[0] and frozenset(values) not in vocabulary:  # rows and sorted order disagree
            raise ValueError(
                f"{by}: which version is A, the baseline? {values[0]!r} comes first in the rows and {baseline!r} in "
                f"sorted order; name it: baseline={values[0]!r} (perfstudy compare --a-version {values[0]})"
            )
    if baseline not in values:
        raise ValueError(f"baseline={baseline!r}: not a value of {by!r} ({values})")
    candidate = values[1] if values[0] == baseline else values[0]
    return baseline, candidate


def compare(
    df: pd.DataFrame,
    *,
    by: str = "version",
    value: str = "value",
    cluster: str = "batch",
    statistic: str = "mean",
    confidence: float = 0.95,
    threshold: float = 0.0,
    correction: str = "holm",
    replicates: int = 2000,
    baseline=None,
    dropna: bool = False,
    checks: bool = True,
    block: str | None = None,
    sequential: bool = False,
    rng=None,
    executor=None,
    progress: bool = False,
) -> Comparison:
    """Compare two versions per benchmark: ``B/A - 1`` with a cluster-aware interval and a verdict.

    Parameters
    ----------
    df : DataFrame
        Tidy measurements: a ``benchmark`` column (optional: one benchmark if absent), the
        ``by`` column with two versions, the ``cluster`` column and ``value``. A ``warmup`` column
        (as the readers of :mod:`perfstudy.io` write) marks rows to leave out; a ``unit`` column
        decides which direction is better (:func:`higher_is_better`), and units that differ only in
        their time part (``ns`` and ``s``, ``ops/s`` and ``ops/ms``) are converted to the one most of
        A's values are in; a benchmark whose units do not convert is excluded, with its reason. Within a cluster, rows are taken in their order in ``df`` (or of
        an ``iteration`` column, if present) for the warm-up check.
    by : str
        The column that tells the versions apart (vocabulary: ``version``, 0 = A, 1 = B).
    value : str
        The measured value: a time, a rate, a count. Where every batch statistic is positive the
        change is the ratio ``B/A - 1``; with zeros or negative values, the difference ``B - A``
        (the ``scale`` column says which).
    cluster : str
        The unit that carries the dependence: pyperf's process, JMH's fork, a host (``batch``).
    statistic : {"mean", "median"}
        What is compared: the mean of all values of a version, or their median.
    confidence : float
        Coverage of the intervals; ``1 - confidence`` is the size of each test.
    threshold : float
        The smallest relative change that matters (0.02 for 2%). An interval inside
        ``[-threshold, threshold]`` is ``"no change"``; a significant change must lie beyond it to
        be ``"faster"`` or ``"slower"``.
    correction : {"holm", "bh", "none"}
        Multiple-comparison correction of the p-values across benchmarks, used by the verdicts.
    replicates : int
        Cluster-bootstrap replicates.
    baseline : optional
        The value of ``by`` that is version A. By default ``"A"`` of ``"A"``/``"B"`` and 0 of 0/1 (the
        vocabulary), else the first of the two in sorted order when it is also the first in the rows; where
        the two disagree (``"before"`` and ``"after"``) the call is refused and asks for ``baseline``: the
        order of the rows alone is no rule, since a randomised run puts either version first.
    dropna : bool
        Drop rows with a missing value (counted in ``dropped``) instead of refusing them.
    checks : bool
        Run the per-benchmark diagnostics behind ``warnings``: warm-up left in the data, batch
        results that drift with batch order, a batch unlike the others (:func:`odd_batches`),
        fewer batches than CONFIRM needs to pin the median to ``+-threshold``. Each test has size
        ``(1 - confidence) / B`` over ``B`` benchmarks (Bonferroni), so that a clean report of many
        benchmarks is not littered with false warnings.
    block : str, optional
        A column of blocks (``round``) in which both versions ran under the same conditions, as
        :func:`perfstudy.experiment._run.run` writes: the comparison is then paired, on each block's ``B/A``
        (:mod:`perfstudy.comparison._paired`), ``clusters_a`` and ``clusters_b`` count the paired blocks and
        ``cluster`` is not resampled. With a ``host`` column, the host and round variances are split.
    sequential : bool
        With ``block``: the anytime-valid interval (:mod:`perfstudy.comparison.sequential`) of a run that looked
        after every block and stopped when it knew; a fixed-level interval would be too narrow.
    rng : None, int, SeedSequence or Generator
        Draws the bootstrap (one stream per benchmark, so the result does not depend on
        ``executor``).
    executor : concurrent.futures.Executor, optional
        Spreads the benchmarks over workers (a process pool, a Dask client's executor).
    progress : bool
        A progress bar over the benchmarks.

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        A missing column, not exactly two versions, missing values, clusters, versions or benchmark
        labels (without ``dropna``), infinite values, no benchmark that can be compared. A single
        benchmark that cannot be compared does not raise: it is listed in ``excluded``.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df: expected a DataFrame, got {type(df).__name__}")
    check_choice("statistic", statistic, STATISTICS)
    check_choice("correction", correction, CORRECTIONS)
    dropna = check_bool("dropna", dropna)
    checks = check_bool("checks", checks)
    confidence = check_fraction("confidence", confidence)
    if not (isinstance(threshold, (int, float)) and math.isfinite(threshold) and 0 <= threshold < 1):
        raise ValueError(f"threshold={threshold!r}: expected a relative change in [0, 1), e.g. 0.02 for 2%")
    replicates = check_resamples("replicates", replicates, minimum=99)
    sequential = check_bool("sequential", sequential)
    if block is None and sequential:
        raise ValueError("sequential=True: a sequential interval is over blocks; give block= (e.g. 'round')")
    for name, column in (("by", by), ("value", value), ("cluster", cluster)) + ((("block", block),) if block else ()):
        check_column(name, column, df)
    missing_blocks = int(np.asarray(df[block].isna()).sum()) if block else 0
    if missing_blocks:
        raise ValueError(f"block: {missing_blocks} rows have no {block!r}; every value needs its block")
    if df.empty:
        raise ValueError("df: no rows")
    check_allocation("replicates", replicates, 8.0 * replicates * (4 + 2 * df[cluster].nunique()))
    frame, dropped = _clean(df, by=by, value=value, cluster=cluster, dropna=dropna)
    a_label, b_label = _versions(frame, by, baseline)
    if block:
        shared = set(frame.loc[frame[by] == a_label, block]) & set(frame.loc[frame[by] == b_label, block])
        if not shared:
            raise ValueError(
                f"block={block!r}: no {block} holds both versions, so nothing pairs; give the column in which both "
                f"versions ran side by side (a run's 'round'), or leave block out for an unpaired comparison"
            )
    frame, warmup_dropped, excluded = _without_warmups(frame, by)
    if "iteration" in frame.columns:
        frame = frame.sort_values([cluster, "iteration"], kind="stable")
    tasks, units, only_a, only_b = _tasks(
        frame,
        by=by,
        value=value,
        cluster=cluster,
        labels=(a_label, b_label),
        excluded=excluded,
        settings=dict(
            statistic=statistic,
            confidence=confidence,
            threshold=float(threshold),
            replicates=replicates,
            checks=checks,
            block=block,
            sequential=sequential,
        ),
    )
    rows = map_tasks(_compare_one, tasks, rng=rng, executor=executor, progress=progress, desc="benchmarks")
    return Comparison(
        table=_table(rows, correction=correction, confidence=confidence, threshold=threshold),
        statistic=statistic,
        confidence=confidence,
        threshold=float(threshold),
        correction=correction,
        replicates=replicates,
        cluster=block or cluster,
        only_a=only_a,
        only_b=only_b,
        dropped=dropped,
        warmup_dropped=warmup_dropped,
        labels=MappingProxyType({"a": a_label, "b": b_label}),
        units=MappingProxyType(units),
        excluded=MappingProxyType(excluded),
    )


def _clean(df: pd.DataFrame, *, by: str, value: str, cluster: str, dropna: bool) -> tuple[pd.DataFrame, int]:
    """The rows that can be compared, and how many were dropped for a missing value, cluster, version or
    benchmark label (refused, naming them, without ``dropna``); infinite values are refused."""
    frame = df if "benchmark" in df.columns else df.assign(benchmark="benchmark")
    frame = frame.copy(deep=False)
    frame.attrs = {}  # pandas deep-copies attrs (a reader's metadata) on every slice below
    if not pd.api.types.is_numeric_dtype(frame[value]):
        raise TypeError(f"{value}: expected numbers, got dtype {frame[value].dtype}")
    missing = frame[value].isna() | frame[cluster].isna() | frame[by].isna() | frame["benchmark"].isna()
    dropped = int(missing.sum())
    if dropped and not dropna:
        parts = [
            f"{int(frame[column].isna().sum())} {what}"
            for column, what in ((value, "value"), (cluster, cluster), (by, by), ("benchmark", "benchmark label"))
            if frame[column].isna().any()
        ]
        named = frame.loc[missing, "benchmark"].dropna().astype(str).unique()
        where = f" in {sorted(named)[:5]}{' ...' if len(named) > 5 else ''}" if len(named) else ""
        raise ValueError(
            f"{value}: {dropped} row(s) with a missing {', '.join(parts)}{where}; drop them with dropna=True"
        )
    frame = frame[~missing]
    infinite = ~np.isfinite(frame[value].to_numpy(dtype=float))
    if infinite.any():
        names = sorted(frame.loc[infinite, "benchmark"].astype(str).unique())
        raise ValueError(f"{value}: {int(infinite.sum())} value(s) not finite in {names[:5]}")
    return frame, dropped


def _without_warmups(frame: pd.DataFrame, by: str) -> tuple[pd.DataFrame, int, dict]:
    """``frame`` without the rows its ``warmup`` column flags, how many those were, and the benchmarks
    left with no values in a version (excluded, with the reason)."""
    excluded = {}
    if "warmup" not in frame.columns:
        return frame, 0, excluded
    flagged = frame["warmup"].astype(bool)
    before = set(frame.groupby([by, "benchmark"], sort=False).groups)
    frame = frame[~flagged]
    for version, name in before - set(frame.groupby([by, "benchmark"], sort=False).groups):
        excluded[str(name)] = f"no values left in {by}={version!r} once warm-ups are left out"
    return frame, int(flagged.sum()), excluded


def _tasks(frame: pd.DataFrame, *, by: str, value: str, cluster: str, labels: tuple, excluded: dict, settings: dict):
    """One :class:`_Task` per benchmark present in both versions, its values in one unit.

    Returns the tasks, the unit of each benchmark, and the benchmarks only in A and only in B;
    ``excluded`` gains the benchmarks whose units do not convert.
    """
    a_label, b_label = labels
    # positions of each (version, benchmark) in the frame's arrays: one groupby, no sub-frames
    positions = frame.groupby([by, "benchmark"], sort=False).indices
    sides = {label: {} for label in labels}
    for (version, name), where in positions.items():
        sides[version][name] = where
    only_a = tuple(sorted(map(str, set(sides[a_label]) - set(sides[b_label]) - set(excluded))))
    only_b = tuple(sorted(map(str, set(sides[b_label]) - set(sides[a_label]) - set(excluded))))
    names = [name for name in sides[a_label] if name in sides[b_label] and str(name) not in excluded]
    check_size = (1 - settings["confidence"]) / max(1, len(names))  # Bonferroni over the benchmarks
    shared = _Settings(**settings, cluster=cluster, check_alpha=check_size)
    tasks = []
    units = {}
    # each benchmark's one unit and metadata, found once for all (a pandas concat per benchmark
    # took a third of the command's time on 200 benchmarks)
    metadata = {column: _one_value(frame, column) for column in ("unit", "better", "assume")}
    unitless = set(frame.loc[frame["unit"].isna(), "benchmark"]) if "unit" in frame.columns else set()
    all_values, all_labels = frame[value].to_numpy(dtype=float), frame[cluster].to_numpy()
    block = settings["block"]
    all_blocks = frame[block].to_numpy() if block else None
    all_hosts = frame["host"].to_numpy() if block and "host" in frame.columns and block != "host" else None
    for name in names:
        where_a, where_b = sides[a_label][name], sides[b_label][name]
        values_a, values_b = all_values[where_a], all_values[where_b]
        unit = None
        if name in metadata["unit"] and name not in unitless:
            unit = metadata["unit"][name]
            units[str(name)] = unit
        elif "unit" in frame.columns:
            unit_column = frame["unit"]
            unit, factors_a, factors_b, reason = _common_unit(unit_column.iloc[where_a], unit_column.iloc[where_b])
            if reason is not None:
                excluded[str(name)] = reason
                continue
            values_a, values_b = values_a * factors_a, values_b * factors_b
            if unit is not None:
                units[str(name)] = unit
        better = higher_is_better(unit)
        if metadata["better"].get(name) in ("higher", "lower"):
            better = metadata["better"][name] == "higher"
        tasks.append(
            _Task(
                name=name,
                values_a=values_a,
                labels_a=all_labels[where_a],
                values_b=values_b,
                labels_b=all_labels[where_b],
                higher_is_better=better,
                settings=shared,
                exact=metadata["assume"].get(name) == "exact",
                blocks_a=None if all_blocks is None else all_blocks[where_a],
                blocks_b=None if all_blocks is None else all_blocks[where_b],
                hosts_b=None if all_hosts is None else all_hosts[where_b],
            )
        )
    if not tasks:
        reasons = "; ".join(f"{k}: {v}" for k, v in list(excluded.items())[:3])
        raise ValueError(
            f"benchmark: none can be compared between {by}={a_label!r} and {by}={b_label!r}"
            + (f" ({reasons})" if reasons else " (none is present in both)")
        )
    return tasks, units, only_a, only_b


def _table(rows, *, correction: str, confidence: float, threshold: float) -> pd.DataFrame:
    """The per-benchmark rows as the comparison's table, with corrected p-values and the verdicts."""
    alpha = 1.0 - confidence
    table = pd.DataFrame(rows)
    table.insert(table.columns.get_loc("method"), "p_adjusted", adjust_p_values(table["p_value"], correction))
    table.insert(
        table.columns.get_loc("warnings"), "verdict", [_verdict(r, alpha, threshold) for r in table.itertuples()]
    )
    return table


def _verdict(row, alpha: float, threshold: float) -> str:
    """``"no change"`` when the interval lies within ``+-threshold`` (times ``|A|`` on the
    difference scale) or is the single point 0; ``"slower"``/``"faster"`` when the adjusted p-value
    is below ``alpha`` and the interval lies beyond the threshold."""
    if not (math.isfinite(row.low) and math.isfinite(row.high)):
        return "inconclusive"
    band = threshold if row.scale == "ratio" else threshold * abs(row.estimate_a)
    if row.low == row.high == 0.0 or (band > 0 and -band <= row.low and row.high <= band):
        return "no change"
    if row.p_adjusted < alpha:
        if row.low > band:
            return "faster" if row.higher_is_better else "slower"
        if row.high < -band:
            return "slower" if row.higher_is_better else "faster"
    return "inconclusive"


#: the version of the JSON that ``perfstudy compare --format json`` writes (README, "The JSON output");
#: fields are only ever added within a version
JSON_SCHEMA = "perfstudy.compare/1"


def _percent(x: float) -> str:
    return "n/a" if not math.isfinite(x) else f"{100 * x:+.1f}%"


def _p_text(p: float) -> str:
    return "n/a" if not math.isfinite(p) else f"{p:.2g}"


def _count_text(values: int, clusters: int) -> str:
    """``batches×values`` per batch, as benchstat's ``n``: ``6×10``; ``58 in 6`` when batches differ in size."""
    return f"{clusters}×{values // clusters}" if values % clusters == 0 else f"{values} in {clusters}"


def _unit_groups(result: Comparison) -> dict:
    """The table's rows grouped by the unit shown in the header: ``{shown unit: (factor, timed, rows)}``
    (:func:`perfstudy._lib.format.display_unit`)."""
    groups: dict = {}
    for row in result.table.itertuples():
        factor, shown, timed = display_unit(result.units.get(str(row.benchmark)))
        groups.setdefault(shown, (factor, timed, []))[2].append(row)
    return groups


def _geomean(rows) -> tuple[float, float, float] | None:
    """The geometric means of A and B and of B/A over the rows on the ratio scale (benchstat's geomean row);
    None with fewer than two."""
    ratio = [r for r in rows if r.scale == "ratio" and r.estimate_a > 0 and r.estimate_b > 0]
    if len(ratio) < 2:
        return None
    a = np.log([r.estimate_a for r in ratio])
    b = np.log([r.estimate_b for r in ratio])
    return float(np.exp(a.mean())), float(np.exp(b.mean())), float(np.exp((b - a).mean()) - 1.0)


def _side_names(result: Comparison) -> tuple[str, str]:
    """A and B as the table's header names them: ``A: base.json`` (the file's base name when that still tells
    the two apart, else the label whole), or plain ``A`` when the label is the letter itself."""
    import os

    labels = [str(result.labels.get(k, k.upper())) for k in ("a", "b")]
    short = [os.path.basename(label.rstrip("/")) or label for label in labels]
    names = short if short[0] != short[1] else labels
    return tuple(side if name == side else f"{side}: {name}" for side, name in zip("AB", names))


def format_comparison(result: Comparison, format: str = "table") -> str:
    """The comparison as people read it, in benchstat's manner.

    One table per unit, the unit once in its header and each value with an SI prefix (``70.31µ``): each
    benchmark's A and B as centre ± spread (the SD of the batch statistics relative to the centre), the
    change with its interval, the adjusted p-value, the verdict, and n as batches×values per batch for A
    and B; a geomean row over the benchmarks on the ratio scale. A benchmark's notes are numbered
    footnotes under the tables, one line each; then what applies to the whole comparison.

    Parameters
    ----------
    result : Comparison
    format : {"table", "markdown", "json"}
        Aligned text for a terminal; a Markdown table ready for a pull-request comment; or JSON in the
        schema :data:`JSON_SCHEMA` (documented in the README), stable across versions.
    """
    if not isinstance(result, Comparison):
        raise TypeError(f"result: expected Comparison, got {type(result).__name__}")
    if format == "json":
        return _json(result)
    if format not in ("table", "markdown"):
        raise ValueError(f"format={format!r}: expected 'table', 'markdown' or 'json'")
    markdown = format == "markdown"
    footnotes: list[str] = []
    out: list[str] = []
    for shown, (factor, small, rows) in _unit_groups(result).items():
        out += _unit_table(result, shown, factor, small, rows, footnotes, markdown) + [""]
    if result.excluded:
        out += [
            f"{'- ' if markdown else ''}{name}: not comparable: {reason}" for name, reason in result.excluded.items()
        ]
        out.append("")
    if footnotes:
        if markdown:
            out += [f"{i}. {text}" for i, text in enumerate(footnotes, 1)] + [""]
        else:
            out += [f"[{i}] {text}" for i, text in enumerate(footnotes, 1)] + [""]
    out += _general_lines(result)
    return "\n".join(out)


def _unit_rows(result: Comparison, factor: float, small: bool, rows, footnotes: list) -> tuple[list, list]:
    """One unit's header and rows of cells; each benchmark's notes are added to ``footnotes`` (once each) and
    marked. ``small``: prefixes below one (a time: 70.31µ; a count or a percentage keeps its decimals)."""

    def value(x: float, *, signed: bool = False) -> str:
        text = si(x * factor, small=small)
        return ("+" + text) if signed and math.isfinite(x) and x >= 0 else text

    def side(centre: float, spread: float) -> str:
        return value(centre) + ("" if not math.isfinite(spread) else f" ± {100 * spread:.0f}%")

    name_a, name_b = _side_names(result)
    level = f"{100 * result.confidence:g}%"
    header = [
        "benchmark", name_a, name_b, f"change [{level} interval]", f"p ({result.correction})",
        "verdict", "n A, B",
    ]  # fmt: skip
    lines = []
    for row in rows:
        marks = []
        for note in row.notes:  # a note that several benchmarks share is one footnote
            if note not in footnotes:
                footnotes.append(note)
            marks.append(str(footnotes.index(note) + 1))
        if row.scale == "ratio":
            change = f"{_percent(row.change)} [{_percent(row.low)}, {_percent(row.high)}]"
        else:
            low, high = value(row.low, signed=True), value(row.high, signed=True)
            change = f"B - A {value(row.change, signed=True)} [{low}, {high}]"
        name, unit = str(row.benchmark), result.units.get(str(row.benchmark))
        if unit and name.endswith(f" {unit}"):  # Go's "Alloc B/op": the unit is in the caption already
            name = name[: -len(unit) - 1]
        lines.append(
            [
                name + (f" [{','.join(marks)}]" if marks else ""),
                side(row.estimate_a, row.spread_a),
                side(row.estimate_b, row.spread_b),
                change,
                _p_text(row.p_adjusted),
                row.verdict,
                f"{_count_text(row.n_a, row.clusters_a)}, {_count_text(row.n_b, row.clusters_b)}",
            ]
        )
    geomean = _geomean(rows)
    if geomean is not None:
        lines.append(["geomean", value(geomean[0]), value(geomean[1]), _percent(geomean[2]), "", "", ""])
    return header, lines


def _caption(result: Comparison, shown: str) -> str:
    return f"{shown or 'no unit'}: {result.statistic} ± SD of the {result.cluster} {result.statistic}s"


def _unit_table(
    result: Comparison, shown: str, factor: float, small: bool, rows, footnotes: list, markdown: bool
) -> list:
    """The lines of one unit's table (:func:`_unit_rows`), aligned text or Markdown."""
    header, lines = _unit_rows(result, factor, small, rows, footnotes)
    caption = _caption(result, shown)
    if markdown:

        def escape(text: str) -> str:
            return text.replace("|", "\\|")

        table = [f"**{escape(caption)}**", "", "| " + " | ".join(header) + " |"]
        table.append("|" + "|".join(["---", "---:", "---:", "---:", "---:", "---", "---:"]) + "|")
        return table + ["| " + " | ".join(escape(c) for c in cells) + " |" for cells in lines]
    widths = [max(len(r[i]) for r in [header, *lines]) for i in range(len(header))]
    right = (False, True, True, True, True, False, True)

    def join(cells):
        return "  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)).rstrip()

    return [caption, join(header), *map(join, lines)]


#: the notebook view's column order over :func:`_unit_rows`' cells: what a reader looks for first
_HTML_ORDER = (0, 3, 5, 4, 1, 2, 6)


def _general_lines(result: Comparison) -> list[str]:
    """What applies to the whole comparison: which is A and B, the correction, the threshold, what was left out."""
    count = len(result.table)
    threshold = (
        f"a change within ±{100 * result.threshold:g}% is no change"
        if result.threshold > 0
        else "no threshold (--threshold): the smallest real change is a change"
    )
    labels = [str(result.labels.get(k)) for k in ("a", "b")]
    sides = "" if labels == ["A", "B"] else f"A is {labels[0]}, B is {labels[1]}; "
    general = [
        f"{sides}p adjusted ({result.correction}) over {count} benchmark{'s' if count != 1 else ''}; {threshold}."
    ]
    if result.only_a:
        general.append(f"Only in A (not compared): {', '.join(map(str, result.only_a))}.")
    if result.only_b:
        general.append(f"Only in B (not compared): {', '.join(map(str, result.only_b))}.")
    if result.warmup_dropped:
        general.append(f"{result.warmup_dropped} values flagged as warm-up by the harness were left out.")
    if result.dropped:
        general.append(f"{result.dropped} rows with a missing value were dropped.")
    return general


def _html(result: Comparison) -> str:
    """The notebook view: per unit a table led by benchmark, change [interval] and verdict, then p, A, B and
    n; the notes as numbered footnotes under it; then what applies to the whole comparison."""
    import html as h

    footnotes: list[str] = []
    name_a, name_b = _side_names(result)
    parts = [f"<p><strong>Comparison of {h.escape(name_a)} and {h.escape(name_b)}</strong></p>"]
    for shown, (factor, small, rows) in _unit_groups(result).items():
        header, lines = _unit_rows(result, factor, small, rows, footnotes)
        head = "".join(f"<th>{h.escape(header[i])}</th>" for i in _HTML_ORDER)
        body = "".join(
            "<tr>"
            + "".join(
                f"<td style='text-align:{'left' if i in (0, 5) else 'right'};white-space:nowrap'>"
                + (f"<b>{h.escape(cells[i])}</b>" if i == 5 else h.escape(cells[i]))
                + "</td>"
                for i in _HTML_ORDER
            )
            + "</tr>"
            for cells in lines
        )
        parts.append(
            f"<table><caption style='text-align:left'>{h.escape(_caption(result, shown))}</caption>"
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        )
    for name, reason in result.excluded.items():
        parts.append(f"<p>{h.escape(str(name))}: not comparable: {h.escape(str(reason))}</p>")
    if footnotes:
        parts.append("<ol style='font-size:smaller'>" + "".join(f"<li>{h.escape(n)}</li>" for n in footnotes) + "</ol>")
    parts += [f"<p>{h.escape(line)}</p>" for line in _general_lines(result)]
    return "\n".join(parts)


def _json(result: Comparison) -> str:
    """The comparison in the schema :data:`JSON_SCHEMA` (see the README)."""
    import json

    benchmarks = []
    records = json.loads(result.table.drop(columns=["notes"]).to_json(orient="records"))
    for record, notes in zip(records, result.table["notes"]):  # the records are the table's rows, in order
        record["unit"] = result.units.get(str(record["benchmark"]))
        record["notes"] = list(notes)
        benchmarks.append(record)
    geomeans = []
    for shown, (factor, _, rows) in _unit_groups(result).items():
        geomean = _geomean(rows)
        if geomean is not None:
            geomeans.append(dict(unit=shown or None, a=geomean[0] * factor, b=geomean[1] * factor, change=geomean[2]))
    payload = dict(
        schema=JSON_SCHEMA,
        statistic=result.statistic,
        confidence=result.confidence,
        threshold=result.threshold,
        correction=result.correction,
        cluster=result.cluster,
        labels={k: str(v) for k, v in result.labels.items()},
        only_a=[str(v) for v in result.only_a],
        only_b=[str(v) for v in result.only_b],
        dropped=result.dropped,
        warmup_dropped=result.warmup_dropped,
        benchmarks=benchmarks,
        geomean=geomeans,
        excluded=[dict(benchmark=k, reason=v) for k, v in result.excluded.items()],
    )
    return json.dumps(payload, indent=2)
