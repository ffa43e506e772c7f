"""How many repetitions does a benchmark need? Nonparametric median CIs and CONFIRM.

Maricq et al., "Taming Performance Variability", OSDI 2018:

- Section 2 (after Le Boudec): a distribution-free confidence interval for the median from order
  statistics. With ``z`` the normal quantile of the confidence, the interval runs from the
  ``floor((n - z sqrt n) / 2)``-th to the ``ceil(1 + (n + z sqrt n) / 2)``-th smallest value
  (1-based).
- Section 5, CONFIRM: for subset sizes ``s`` = ``start``, ``start + 1``, ..., draw ``trials`` random
  subsets of ``s`` runs without replacement, compute each one's median CI, and average the lower and
  upper bounds; the estimate is the smallest ``s`` whose mean bounds lie within ``+-error`` of the
  median of all the runs.

The resampling is computed for all sizes at once: each trial is a random permutation of the runs,
and its subset of size ``s`` is the first ``s`` runs of the permutation, a uniform random subset of
size ``s`` (so every mean bound has the expectation the published procedure gives; subsets of
different sizes within one trial are nested, which correlates neighbouring sizes but not their
means). A Fenwick tree over the ranks of the runs, one per trial and all trials advanced together,
gives the k-th smallest of the first ``s`` runs in O(log n): O(trials n log n) in all, instead of
O(trials n^2 log n) for sorting every subset.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from perfstudy._lib.checks import check_allocation, check_choice, check_fraction, check_int, check_real, check_sample
from perfstudy._lib.result import Result
from perfstudy._lib.tdist import norm_ppf
from perfstudy._lib.types import Seed

__all__ = ["MedianCI", "median_ci", "median_ci_indices", "Repetitions", "repetitions_needed"]

METHODS = ("order_statistics", "confirm")


def _series(x, minimum: int = 1) -> np.ndarray:
    return check_sample("x", x, minimum=minimum)


def median_ci_indices(n, confidence: float = 0.95, method: str = "order_statistics"):
    """1-based indices of the order statistics that bound the median's CI for samples of size ``n``.

    ``"order_statistics"``: ``floor((n - z sqrt n) / 2)`` and ``ceil(1 + (n + z sqrt n) / 2)``.
    ``"confirm"``: the CONFIRM tool's rounding, 0-based ``rint(n/2 - z sqrt(n)/2)`` and
    ``rint(1 + n/2 + z sqrt(n)/2)``, returned here + 1. ``n`` may be an array.
    Indices outside ``1..n`` mean ``n`` is too small for that confidence.

    Parameters
    ----------
    n : int or array_like of int
        Sample size(s).
    confidence : float
        Nominal coverage, in (0, 1); ``z`` is its two-sided normal quantile.
    method : {"order_statistics", "confirm"}
        The rounding, as above.

    Returns
    -------
    lower, upper : int or ndarray of int
    """
    confidence = check_fraction("confidence", confidence)
    check_choice("method", method, METHODS)
    if np.ndim(n) == 0:
        n = float(check_int("n", n, minimum=0))
    else:
        try:
            n = np.asarray(n, dtype=float)
        except (ValueError, TypeError):
            raise TypeError("n: expected sample sizes (integers of at least 0)") from None
        if not (np.isfinite(n).all() and (n >= 0).all() and (n == np.floor(n)).all()):
            raise ValueError("n: expected sample sizes (integers of at least 0)")
    n = np.asarray(n, dtype=float)
    z = norm_ppf(0.5 + confidence / 2)
    if method == "order_statistics":
        low = np.floor((n - z * np.sqrt(n)) / 2)
        high = np.ceil(1 + (n + z * np.sqrt(n)) / 2)
    else:
        low = np.rint(n / 2 - z * np.sqrt(n) / 2) + 1
        high = np.rint(1 + n / 2 + z * np.sqrt(n) / 2) + 1
    return low.astype(int), high.astype(int)


@dataclass(frozen=True)
class MedianCI(Result):
    """A distribution-free CI for the median: ``low`` and ``high`` are the ``lower_index``-th and
    ``upper_index``-th smallest values (1-based).

    Attributes
    ----------
    low, high : float
        The bounds: the ``lower_index``-th and ``upper_index``-th smallest values.
    median : float
        The sample median.
    lower_index, upper_index : int
        1-based ranks of the bounding order statistics (see :func:`median_ci_indices`).
    n : int
        Sample size.
    confidence : float
        Nominal coverage.
    method : {"order_statistics", "confirm"}
        The rounding of the ranks.
    """

    low: float
    median: float
    high: float
    lower_index: int
    upper_index: int
    n: int
    confidence: float
    method: str

    @property
    def relative_half_width(self) -> float:
        """``max(median - low, high - median) / |median|``: CONFIRM's error (infinite for a median of
        0 with an interval of any width, NaN for a median of 0 known exactly: no relative error exists)."""
        half = max(self.median - self.low, self.high - self.median)
        if self.median == 0:
            return math.inf if half > 0 else math.nan
        return half / abs(self.median)


def median_ci(x: ArrayLike, *, confidence: float = 0.95, method: str = "order_statistics") -> MedianCI:
    """Nonparametric CI for the median from order statistics (Maricq et al., section 2).

    Parameters
    ----------
    x : array_like, 1-D
        The runs; their order does not matter.
    confidence : float
        Nominal coverage, in (0, 1).
    method : {"order_statistics", "confirm"}
        Rounding of the order-statistic ranks, see :func:`median_ci_indices`.

    Raises
    ------
    ValueError
        NaN values, or ``n`` too small for the confidence (an index outside ``1..n``: e.g. fewer
        than 6 points at 95% with ``"order_statistics"``).
    """
    x = _series(x)
    n = x.size
    low, high = (int(i) for i in median_ci_indices(n, confidence, method))
    if low < 1 or high > n:
        raise ValueError(
            f"x: {n} points are too few for a {confidence:.0%} median CI (order statistics {low} and {high} of {n})"
        )
    ordered = np.sort(x)
    return MedianCI(
        float(ordered[low - 1]), float(np.median(x)), float(ordered[high - 1]), low, high, n, confidence, method
    )


@dataclass(frozen=True, eq=False)
class Repetitions(Result):
    """CONFIRM's estimate and the curve behind it (Maricq et al., section 5, Figure 5).

    Attributes
    ----------
    estimate : int or None
        Smallest subset size whose mean CI bounds lie within ``+-error`` of the median; None if
        no size up to ``n`` does.
    sizes, mean_low, mean_high : ndarray
        The curve: subset size and the mean lower and upper bounds over the trials.
    median : float
        Median of all the runs (the reference of ``error``).
    error, confidence : float
    trials : int
    """

    estimate: int | None
    sizes: np.ndarray
    mean_low: np.ndarray
    mean_high: np.ndarray
    median: float
    error: float
    confidence: float
    trials: int

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {"size": self.sizes, "mean_low": self.mean_low, "mean_high": self.mean_high, "median": self.median}
        )


#: Up to this many runs, CONFIRM sorts each trial's first runs at every size instead of keeping
#: Fenwick trees (the same bounds; tests/diagnostics/test_repetitions.py): a comparison's 20 batches took 1.4 ms
#: per call the tree's way.
DIRECT_MAX_RUNS = 64
#: Up to this many runs per trial, each trial keeps its runs in a sorted list (bisect.insort, a memmove
#: in C) and reads the two order statistics at every size; beyond, the Fenwick trees. Measured here
#: (2 cores), the same bounds: 200 runs x 40 trials 5 ms against 31 ms, 600 x 40 13 against 118 ms,
#: 3,000 x 200 0.47 against 0.81 s; the list's O(n) insert loses to the tree's O(log n) further out.
INSORT_MAX_RUNS = 5000


def _kth(flat_tree: np.ndarray, offsets: np.ndarray, k: np.ndarray, top: int, size: int) -> np.ndarray:
    """For each entry, the 0-based rank of the ``k``-th (1-based) smallest run inserted in the Fenwick
    tree starting at ``offsets`` (binary lifting). Each tree holds ``size + 2`` counts (index
    ``size + 1`` is a sink)."""
    position = np.zeros(offsets.size, dtype=np.int64)
    remaining = k.astype(np.int64)
    step = top
    while step:
        nxt = position + step
        counts = flat_tree[offsets + np.minimum(nxt, size + 1)]  # past the end: read the sink, never step there
        go = (nxt <= size) & (counts < remaining)
        position = np.where(go, nxt, position)
        remaining = np.where(go, remaining - counts, remaining)
        step >>= 1
    return position


def repetitions_needed(
    x,
    *,
    error: float = 0.01,
    confidence: float = 0.95,
    trials: int = 200,
    start: int = 10,
    max_size: int | None = None,
    method: str = "order_statistics",
    rng: Seed = None,
) -> Repetitions:
    """CONFIRM: how many repetitions until the median's CI is within ``+-error`` of it (section 5).

    Parameters
    ----------
    x : array
        All the runs available (their order does not matter).
    error : float
        ``r``, relative to the median (0.01: 1%).
    confidence : float
    trials : int
        Random subsets per size.
    start : int
        Smallest subset size (the paper: 10).
    max_size : int, optional
        Largest subset size to try (default ``n``); the cost grows linearly with it. With it the
        estimate is None when no size up to ``max_size`` suffices.
    method : {"order_statistics", "confirm"}
        Rounding of the order-statistic indices, see :func:`median_ci_indices`. Sizes whose
        indices fall outside ``1..s`` have no CI and are skipped.
    rng : None, int or Generator
        Seed of the random subsets.

    Raises
    ------
    ValueError
        Fewer than ``start`` points, NaN values, a median of 0 (no relative error).

    Examples
    --------
    >>> import numpy as np
    >>> from perfstudy.diagnostics.repetitions import repetitions_needed
    >>> runs = np.random.default_rng(0).lognormal(0, 0.05, 1000)  # a CoV of 5%
    >>> repetitions_needed(runs, error=0.01, rng=1).estimate
    185
    """
    start = check_int("start", start, minimum=2)
    x = _series(x, minimum=start)
    trials = check_int("trials", trials, minimum=1)
    error = check_real("error", error, positive=True, what="fraction, e.g. 0.01 for 1%")
    confidence = check_fraction("confidence", confidence)
    check_choice("method", method, METHODS)
    median = float(np.median(x))
    if median == 0:
        raise ValueError("x: the median is 0, so an error relative to it is undefined")
    rng = np.random.default_rng(rng)
    n = x.size
    largest = n if max_size is None else min(n, check_int("max_size", max_size, minimum=start))
    check_allocation("trials", trials, 8.0 * trials * (n + 2) * 3, what="the random orders (trials x runs)")
    ordered = np.sort(x)
    ranks = np.empty(n, dtype=np.int64)
    ranks[np.argsort(x, kind="stable")] = np.arange(n)
    if largest == n:
        permutations = ranks[rng.permuted(np.broadcast_to(np.arange(n), (trials, n)), axis=1)]
    else:  # only the first max_size runs of each permutation are needed: draw just those
        permutations = ranks[np.array([rng.choice(n, size=largest, replace=False) for _ in range(trials)])]
    sizes = np.arange(1, largest + 1)
    low_index, high_index = median_ci_indices(sizes, confidence, method)
    if n <= DIRECT_MAX_RUNS:
        mean_low, mean_high = _direct_bounds(ordered[permutations], low_index, high_index, start)
    elif largest <= INSORT_MAX_RUNS:
        mean_low, mean_high = _insort_bounds(ordered, permutations, low_index, high_index, start)
    else:
        mean_low, mean_high = _fenwick_bounds(ordered, permutations, low_index, high_index, start)
    keep = sizes >= start
    sizes, mean_low, mean_high = sizes[keep], mean_low[keep], mean_high[keep]
    within = (mean_low >= median - error * abs(median)) & (mean_high <= median + error * abs(median))
    hits = np.flatnonzero(within)
    estimate = int(sizes[hits[0]]) if hits.size else None
    return Repetitions(estimate, sizes, mean_low, mean_high, median, float(error), confidence, trials)


def _direct_bounds(values: np.ndarray, low_index, high_index, start: int):
    """Per size ``s``, the mean over trials of the order statistics that bound the median's CI,
    from each trial's first ``s`` values sorted: few runs (a comparison's batches) need no tree.
    All sizes in one sort: row ``s`` of a (sizes, trials, runs) stack holds each trial's first ``s``
    values and +inf after them, so its order statistics ``1..s`` are those of the first ``s``."""
    largest = values.shape[1]
    mean_low = np.full(largest, np.nan)
    mean_high = np.full(largest, np.nan)
    sizes = np.arange(start, largest + 1)
    sizes = sizes[(low_index[sizes - 1] >= 1) & (high_index[sizes - 1] <= sizes)]
    if sizes.size == 0:
        return mean_low, mean_high
    beyond = np.arange(largest)[None, None, :] >= sizes[:, None, None]
    stack = np.sort(np.where(beyond, np.inf, values[None, :, :]), axis=2)
    low = low_index[sizes - 1].astype(np.int64) - 1
    high = high_index[sizes - 1].astype(np.int64) - 1
    rows = np.arange(sizes.size)
    mean_low[sizes - 1] = stack[rows, :, low].mean(axis=1)
    mean_high[sizes - 1] = stack[rows, :, high].mean(axis=1)
    return mean_low, mean_high


def _insort_bounds(ordered: np.ndarray, permutations: np.ndarray, low_index, high_index, start: int):
    """As :func:`_direct_bounds`: each trial inserts its runs' ranks, one at a time, into a sorted list and
    reads the ranks of the two order statistics that bound the median's CI at every size."""
    import bisect

    trials, largest = permutations.shape
    sizes = np.arange(1, largest + 1)
    usable = (sizes >= start) & (low_index[:largest] >= 1) & (high_index[:largest] <= sizes)
    low = np.where(usable, low_index[:largest] - 1, 0).astype(np.int64).tolist()
    high = np.where(usable, high_index[:largest] - 1, 0).astype(np.int64).tolist()
    low_ranks = np.empty((trials, largest), dtype=np.int64)
    high_ranks = np.empty((trials, largest), dtype=np.int64)
    for trial, row in enumerate(permutations.tolist()):
        seen: list[int] = []
        lows, highs = [0] * largest, [0] * largest
        for s, rank in enumerate(row):
            bisect.insort(seen, rank)
            if s + 1 >= start:  # before, low/high point at 0, which every list of one rank has
                lows[s], highs[s] = seen[low[s]], seen[high[s]]
        low_ranks[trial], high_ranks[trial] = lows, highs
    mean_low = np.full(largest, np.nan)
    mean_high = np.full(largest, np.nan)
    mean_low[usable] = ordered[low_ranks[:, usable]].mean(axis=0)
    mean_high[usable] = ordered[high_ranks[:, usable]].mean(axis=0)
    return mean_low, mean_high


def _fenwick_bounds(ordered: np.ndarray, permutations: np.ndarray, low_index, high_index, start: int):
    """As :func:`_direct_bounds`, by inserting the runs of all trials one size at a time into
    Fenwick trees of ranks: O(trials n log n) for all sizes together."""
    trials, largest = permutations.shape
    n = ordered.size
    width = n + 2  # Fenwick indices 1..n, and n + 1 as a sink for updates that run past the end
    flat_tree = np.zeros(trials * width, dtype=np.int64)
    offsets = np.arange(trials, dtype=np.int64) * width
    both_offsets = np.tile(offsets, 2)
    top = 1 << (n.bit_length() - 1)
    levels = n.bit_length() + 1
    mean_low = np.full(largest, np.nan)
    mean_high = np.full(largest, np.nan)
    for s in range(1, largest + 1):
        index = permutations[:, s - 1] + 1
        for _ in range(levels):  # Fenwick insert, all trials at once; finished ones park in the sink
            flat_tree[offsets + index] += 1
            index = np.minimum(index + (index & -index), n + 1)
        flat_tree[offsets + n + 1] = 0
        if s < start or low_index[s - 1] < 1 or high_index[s - 1] > s:
            continue
        # both bounds in one pass: the trials' trees twice, asked for the low and the high order statistic
        k = np.repeat([low_index[s - 1], high_index[s - 1]], trials)
        bounds = ordered[_kth(flat_tree, both_offsets, k, top, n)].reshape(2, trials).mean(axis=1)
        mean_low[s - 1], mean_high[s - 1] = bounds
    return mean_low, mean_high
