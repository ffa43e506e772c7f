"""A suite compared at once: every benchmark's batches laid out in arrays, and the benchmarks that share a
layout compared together.

Two benchmarks share a *layout* when they have the same number of batches (clusters) in A and in B. Such a
group gets one matrix of bootstrap draws, and its intervals, p-values, drift and odd-batch checks are array
operations over all its benchmarks (:mod:`perfstudy.comparison._grouped`). Before this, each benchmark drew
its own matrix in a Python loop: 1.6 ms a benchmark, most of ``perfstudy compare``'s time on 2,000.

Sharing the draws leaves each benchmark's interval what it was: a benchmark's bootstrap distribution is
its own, whichever resamples of batch positions it sees. The Monte Carlo errors of benchmarks in one group
are correlated, which Holm's and Benjamini-Hochberg's corrections allow (Holm holds under any
dependence; BH under the positive dependence shared resamples give). ``tests/comparison/test_suite.py``
checks that a group gives the per-benchmark answer to 1e-12 on the same draws.

Benchmarks that fit no group go through :func:`perfstudy.comparison._one._compare_one` one at a time,
as before: Go's ``assume=exact``, paired blocks, a side with one batch, and the median of batches of more
than one value. Zeros and negative values (the difference scale) are grouped too.

Random streams: the caller's ``rng`` gives one child (advancing it by one, as :func:`numpy.random.Generator.spawn`
does); benchmark ``i``'s own stream (a benchmark compared alone, CONFIRM's trials) is that child's
``(0, i)`` descendant, and the draws of the layout ``(C_a, C_b)`` its ``(1, C_a, C_b)`` descendant. Results
depend on the seed and the benchmarks' positions, never on the executor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from perfstudy._lib.checks import check_bool, check_choice, check_fraction, check_real, check_threshold
from perfstudy.comparison._intervals import SCALES
from perfstudy.comparison._streams import _streams, benchmark_stream

if TYPE_CHECKING:
    from perfstudy._lib.types import Executor, Seed


@dataclass(frozen=True, eq=False)
class _Suite:
    """The rows of every benchmark compared, in arrays: each benchmark's A rows then its B rows, in the order
    of the input within each. ``starts[i]``, ``middles[i]``, ``ends[i]``: where benchmark ``i``'s A rows
    start, where its B rows start and where they end."""

    names: list
    values: np.ndarray  # in the benchmark's one unit
    labels: np.ndarray  # each row's cluster label, as given
    starts: np.ndarray
    middles: np.ndarray
    ends: np.ndarray
    higher_is_better: np.ndarray  # bool per benchmark
    exact: np.ndarray  # bool per benchmark: Go's assume=exact
    blocks: np.ndarray | None = None  # with compare(block=...): each row's block
    hosts: np.ndarray | None = None  # with a block and a host column
    scales: np.ndarray | None = None  # per benchmark: the power of 2 its values were divided by (None: all 1)


@dataclass(frozen=True, eq=False)
class _Layout:
    """Every benchmark's clusters: their sums and counts in arrays of *segments* (one per benchmark, side and
    cluster, clusters in their labels' sorted order), where each side's segments start and how many."""

    sums: np.ndarray  # per segment
    counts: np.ndarray  # per segment
    labels: np.ndarray  # per segment: the cluster's label
    first: np.ndarray  # (2, benchmarks): index of the side's first segment
    clusters: np.ndarray  # (2, benchmarks): how many segments (clusters) the side has
    smallest: np.ndarray  # (2, benchmarks): the side's smallest value
    totals: np.ndarray  # (2, benchmarks): the sum of the side's values
    largest_count: np.ndarray  # (2, benchmarks): values in the side's largest cluster


def _cluster_codes(labels: np.ndarray) -> np.ndarray:
    """Integer codes of the labels in their sorted order (as :func:`numpy.unique` sorts them); labels of
    mixed types that do not sort together are coded by their text. Integer labels (go test's lines, a
    harness's process numbers) are their own codes: no sort, no inverse array."""
    if labels.dtype.kind in "iu" and labels.size:
        return labels - labels.min()
    try:
        return np.unique(labels, return_inverse=True)[1].reshape(-1)
    except TypeError:
        return np.unique(labels.astype(str), return_inverse=True)[1].reshape(-1)


def lay_out(suite: _Suite) -> _Layout:
    """The clusters of every benchmark and side, in one sort of all the rows."""
    n = suite.values.size
    count = len(suite.names)
    side = np.zeros(n, dtype=np.int32)
    side[_ranges(suite.middles, suite.ends)] = 1
    key = np.repeat(np.arange(0, 2 * count, 2, dtype=np.int32), suite.ends - suite.starts) + side  # A before B
    del side
    codes = _cluster_codes(suite.labels)
    values, order = suite.values, None
    # the rows are benchmark-major and A before B already; within a side, most harnesses write the batches
    # in order (go test's lines always), and then no sort is needed: none of the gathered copies either
    if not ((codes[1:] >= codes[:-1]) | (key[1:] != key[:-1])).all():
        order = np.lexsort((codes, key))  # stable: a cluster's values keep their order
        codes, key, values = codes[order], key[order], values[order]
    new = np.ones(n, dtype=bool)
    new[1:] = (key[1:] != key[:-1]) | (codes[1:] != codes[:-1])
    del codes
    starts = np.flatnonzero(new)
    del new
    counts = np.diff(np.append(starts, n))
    sums = np.add.reduceat(values, starts)
    segment_key = key[starts]
    side_start = np.flatnonzero(np.r_[True, segment_key[1:] != segment_key[:-1]])
    # every benchmark has both sides (compare keeps only those), so the sides are 0..2*count-1 in order
    first = side_start.reshape(count, 2).T
    clusters = np.diff(np.append(side_start, starts.size)).reshape(count, 2).T
    row_start = starts[side_start]
    smallest = np.minimum.reduceat(values, row_start).reshape(count, 2).T
    totals = np.add.reduceat(values, row_start).reshape(count, 2).T
    largest = np.maximum.reduceat(counts, side_start).reshape(count, 2).T
    return _Layout(
        sums=sums,
        counts=counts.astype(float),
        labels=suite.labels[starts if order is None else order[starts]],
        first=first,
        clusters=clusters,
        smallest=smallest,
        totals=totals,
        largest_count=largest,
    )


def _ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The concatenated ``arange(start, end)`` of each pair, without a Python loop."""
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.cumsum(np.r_[0, lengths[:-1]]), lengths)
    return np.arange(total) + offsets


def groupable(suite: _Suite, layout: _Layout, statistic: str, blocked: bool) -> tuple[np.ndarray, np.ndarray]:
    """Which benchmarks a layout group can compare, and which of those are on the ratio scale (every value
    >= 0, every cluster statistic > 0; the others on the difference scale). A group takes at least two
    clusters a side, no ``assume=exact``, no blocks, and for the median one value a batch (its batch
    statistic is then the value)."""
    count = len(suite.names)
    if blocked:
        return np.zeros(count, dtype=bool), np.zeros(count, dtype=bool)
    positive = np.logical_and.reduceat(layout.sums > 0, layout.first.T.reshape(-1)).reshape(-1, 2).T
    ok = (layout.clusters >= 2).all(0) & ~suite.exact
    if statistic == "median":
        ok &= (layout.largest_count == 1).all(0)
    ratio = np.asarray((layout.smallest >= 0).all(0) & positive.all(0), dtype=bool)
    return ok, ratio


def compare_suite(suite: _Suite, settings, *, rng: Seed, executor: Executor, progress: bool, one) -> list[dict]:
    """Every benchmark's row (before the correction and verdict), in the suite's order: the groupable in
    layout groups, the others by ``one(task, stream)`` (:func:`perfstudy.comparison._one._compare_one`)."""
    from perfstudy.comparison._grouped import compare_group

    root = _streams(rng)
    layout = lay_out(suite)
    ok, ratio = groupable(suite, layout, settings.statistic, settings.block is not None)
    rows: list = [None] * len(suite.names)
    alone = np.flatnonzero(~ok)
    if alone.size:
        from perfstudy._lib.parallel import map_tasks

        tasks = [_task(suite, int(i), settings) for i in alone]
        streams = [benchmark_stream(root, int(i)) for i in alone]
        for i, row in zip(alone, map_tasks(_one_with_stream, list(zip(tasks, streams, [one] * len(tasks))),
                                           executor=executor, progress=progress, desc="benchmarks")):  # fmt: skip
            rows[int(i)] = row
    together = np.flatnonzero(ok)
    if together.size:
        shape = layout.clusters[:, together]
        keys = shape[0].astype(np.int64) * (int(shape[1].max()) + 1) + shape[1]
        for key in sorted(set(keys.tolist())):  # np.unique would import numpy.ma (10 ms)
            members = together[keys == key]
            clusters_a, clusters_b = (int(c) for c in layout.clusters[:, members[0]])
            found = compare_group(suite, layout, members, ratio[members], settings, root, clusters_a, clusters_b)
            for i, row in zip(members, found):
                rows[int(i)] = row
    if suite.scales is not None:
        for i in np.flatnonzero(suite.scales != 1.0).tolist():
            _unscaled(rows[i], float(suite.scales[i]))
    return rows


#: values whose largest magnitude is beyond 2**64 or below 2**-64 are computed divided by a power of 2
_SCALED_BEYOND = 64


def scaled(values: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Each benchmark's values divided by a power of 2 near its largest magnitude, where that magnitude is
    beyond ``2**64`` or below ``2**-64``: their squares (a variance, Welch's degrees of freedom, Fieller's
    quadratic) would overflow to infinity or underflow to 0. A power of 2 divides exactly, so ratios, p-values
    and spreads are the same numbers; :func:`_unscaled` multiplies what is in units back. Returns the values
    and the scales (None where no benchmark needed one)."""
    if values.size == 0:
        return values, None
    largest = np.maximum.reduceat(np.abs(values), starts)
    exponent = np.frexp(largest)[1]
    needs = (largest > 0) & (np.abs(exponent) > _SCALED_BEYOND)
    if not needs.any():
        return values, None
    scales = np.where(needs, np.ldexp(1.0, np.where(needs, exponent - 1, 0)), 1.0)  # 2**1024 is not a float
    return values / np.repeat(scales, ends - starts), scales


def _unscaled(row: dict, scale: float) -> None:
    """A row computed on values divided by ``scale`` (:func:`scaled`), in the values' own units again: the
    estimates always, the change and its interval on the difference scale."""
    for key in ("estimate_a", "estimate_b"):
        row[key] = row[key] * scale
    if row.get("scale") == "difference":
        for key in ("change", "low", "high"):
            row[key] = row[key] * scale


def _one_with_stream(item, _unused_rng):
    """Adapter for :func:`map_tasks`: a benchmark compared alone, on its own stream (not the executor's)."""
    task, stream, one = item
    return one(task, np.random.default_rng(stream))


def _task(suite: _Suite, i: int, settings):
    """Benchmark ``i`` as a :class:`perfstudy.comparison._one._Task`, its rows in the input's order."""
    from perfstudy.comparison._task import _Task

    a = slice(int(suite.starts[i]), int(suite.middles[i]))
    b = slice(int(suite.middles[i]), int(suite.ends[i]))
    return _Task(
        name=suite.names[i],
        values_a=suite.values[a],
        labels_a=suite.labels[a],
        values_b=suite.values[b],
        labels_b=suite.labels[b],
        higher_is_better=bool(suite.higher_is_better[i]),
        settings=settings,
        exact=bool(suite.exact[i]),
        blocks_a=None if suite.blocks is None else suite.blocks[a],
        blocks_b=None if suite.blocks is None else suite.blocks[b],
        hosts_b=None if suite.hosts is None else suite.hosts[b],
    )


def judged(rows: list[dict], *, correction: str, confidence: float, threshold: float) -> list[dict]:
    """The rows with their p-values corrected over the benchmarks (``p_adjusted``, before ``method``) and their
    verdict (before ``notes``): the table of :class:`perfstudy.comparison._compare.Comparison`."""
    from perfstudy.comparison._intervals import adjust_p_values

    alpha = 1.0 - confidence
    # a benchmark whose values are one and the same number on both sides (a deterministic B/op, 0 allocs/op) is
    # "no change" by inspection, not by a test: it is left out of the correction's family (NaN is what
    # adjust_p_values leaves out), so that it cannot make another benchmark's adjusted p-value larger
    p_values = np.array([np.nan if identical(row) else row["p_value"] for row in rows], dtype=float)
    adjusted = adjust_p_values(p_values, correction)  # type: ignore[arg-type]
    adjusted = np.where(np.isnan(p_values), [row["p_value"] for row in rows], adjusted)
    family = int(np.isfinite(p_values).sum())
    out = []
    for row, p in zip(rows, adjusted.tolist()):
        new = {}
        for key, value in row.items():
            if key == "method":
                new["p_adjusted"] = p
            if key == "notes":
                args = (row["low"], row["high"], p, alpha, threshold, row["higher_is_better"], row["scale"])
                new["verdict"] = _verdict(*args, row["estimate_a"])
                alone = _verdict(row["low"], row["high"], row["p_value"], *args[3:], row["estimate_a"])
                if alone != new["verdict"]:  # the row's own interval says more than the family allows
                    value = tuple(value) + (_family_note(alone, p, correction, family, confidence),)
            new[key] = value
        out.append(new)
    return out


def _family_note(alone: str, adjusted: float, correction: str, family: int, confidence: float) -> str:
    """Why a row's verdict is not what its interval alone says: the interval shown is the row's own, at
    ``confidence``; the verdict is the family's, by the adjusted p-value."""
    return (
        f"its {100 * confidence:g}% interval alone says {alone}; over the {family} benchmarks tested, the "
        f"{correction}-adjusted p ({adjusted:.2g}) does not reach {1 - confidence:.2g}, so the verdict waits"
    )


def identical(row: dict) -> bool:
    """Whether a benchmark's values are one number on both sides: an interval that is the single point 0 and
    neither side with any spread (no test is needed, and none counts in a correction's family)."""
    spreads = [row.get(key) for key in ("spread_a", "spread_b")]
    flat = all(spread is None or spread == 0.0 or math.isnan(spread) for spread in spreads)  # NaN: a centre of 0
    return row["low"] == row["high"] == 0.0 and row["change"] == 0.0 and flat


def _verdict(low, high, p_value, alpha, threshold, higher_is_better, scale, estimate_a) -> str:
    if not (math.isfinite(low) and math.isfinite(high)):
        return "inconclusive"
    band = threshold if scale == "ratio" else threshold * abs(estimate_a)
    if low == high == 0.0 or (band > 0 and -band <= low and high <= band):
        return "no change"
    if p_value < alpha:
        if low > band:
            return "faster" if higher_is_better else "slower"
        if high < -band:
            return "slower" if higher_is_better else "faster"
    return "inconclusive"


def verdict(
    low: float,
    high: float,
    p_value: float,
    *,
    alpha: float = 0.05,
    threshold: float = 0.0,
    higher_is_better: bool = False,
    scale: Literal["ratio", "difference"] = "ratio",
    estimate_a: float = 1.0,
) -> str:
    """The verdict on one benchmark's change, as :func:`compare` and ``perfstudy run`` give it.

    ``"no change"`` when the interval lies within ``+-threshold`` (times ``|estimate_a|`` on the
    difference scale) or is the single point 0; ``"slower"``/``"faster"`` when ``p_value`` (adjusted for
    the benchmarks compared with it) is below ``alpha`` and the interval lies beyond the threshold;
    otherwise ``"inconclusive"``.

    Parameters
    ----------
    low, high : float
        The interval of the change: ``B/A - 1`` on the ratio scale, ``B - A`` on the difference scale.
    p_value : float
        The test of no change, adjusted for multiple comparisons.
    alpha : float
        The test's size, ``1 - confidence``.
    threshold : float
        The smallest relative change that matters, ``0 <= threshold < 1``.
    higher_is_better : bool
        The unit's direction (a rate); a positive change is then faster.
    scale : {"ratio", "difference"}
        How the change is measured.
    estimate_a : float
        A's statistic: the threshold's scale on the difference scale.

    Returns
    -------
    str
        One of :data:`VERDICTS`.
    """
    low, high, p_value = (_number(name, value) for name, value in (("low", low), ("high", high), ("p_value", p_value)))
    alpha = check_fraction("alpha", alpha)
    threshold = check_threshold(threshold)
    higher_is_better = check_bool("higher_is_better", higher_is_better)
    check_choice("scale", scale, SCALES)
    estimate_a = check_real("estimate_a", estimate_a)
    if math.isnan(low) or math.isnan(high) or low > high:
        raise ValueError(f"low, high: [{low}, {high}] is not an interval")
    if not 0 <= p_value <= 1:
        raise ValueError(f"p_value={p_value!r}: expected a probability in [0, 1]")
    if scale == "ratio" and low < -1:
        raise ValueError(
            f"low={low!r}: a change B/A - 1 below -100% is impossible on the ratio scale (B would be below 0); "
            "give the interval of B/A - 1, or scale='difference' for B - A"
        )
    return _verdict(low, high, p_value, alpha, threshold, higher_is_better, scale, estimate_a)


def _number(name: str, value) -> float:
    """A real number, infinities included (an interval may be unbounded); NaN is refused by the caller."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}={value!r}: expected a real number")
    return float(value)
