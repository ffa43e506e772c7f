"""Checks of each version's batches before their values are pooled: warm-ups left in, drift over the
batch order, odd batches (a rank test), and too few batches for the median (CONFIRM)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from perfstudy._lib.checks import (
    check_fraction,
    check_labels,
    check_sample,
    check_threshold,
)
from perfstudy._lib.format import plural
from perfstudy._lib.tdist import t_ppf
from perfstudy.comparison._intervals import WARMUP_SHARE, _Side, _side, _t_p_value

if TYPE_CHECKING:
    from perfstudy.comparison._task import _Settings


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
    with np.errstate(divide="ignore", invalid="ignore"):  # a batch of one value has no rest: not usable
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
    t approximation: what ``scipy.stats.spearmanr(np.arange(n), statistics)`` returns (tests/comparison/test_compare.py
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
    # centred first: identical batches (a constant B/op) give deviations of exactly 0, not rounding residue
    # that the ratio below turned into 20 "odd" batches of 20
    x = np.log(x)
    x = x - x.mean() if x.size else x
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


def warmup_check(values, batches, *, alpha: float = 0.05, threshold: float | str = 0.0):
    """:func:`compare`'s warm-up check on one version's values: are the first values of each batch
    (:data:`WARMUP_SHARE` of them, at least one) unlike the rest? A one-sample t-test over batches of
    each batch's relative difference, first values against the rest; it speaks only when the
    difference is also larger than half the threshold (and 0.5%).

    Parameters
    ----------
    values : array_like
        One version's values, in the order they ran within each batch.
    batches : array_like
        The batch of each value (labels).
    alpha : float
        The test's size.
    threshold : float or str
        The comparison's threshold (``0.05`` or ``"5%"``).

    Returns
    -------
    tuple or None
        ``(values to drop per batch, mean relative difference, p-value)`` when the first values are
        warm-up, else None (also when fewer than 3 batches are long enough to tell).
    """
    values = check_sample("values", values)
    batches = check_labels("batches", batches, values.size)
    alpha = check_fraction("alpha", alpha)
    threshold = check_threshold(threshold)
    return _warmup_test(_side(values, batches, "mean"), alpha, threshold)
