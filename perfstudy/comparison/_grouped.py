"""The benchmarks of one layout compared in array operations: the same intervals, p-values and checks as
:func:`perfstudy.comparison._one._compare_one`, over a matrix whose rows are benchmarks.

Each function here is the array form of one in :mod:`perfstudy.comparison._intervals` or
:mod:`perfstudy.comparison._batch_checks`, and names it; ``tests/comparison/test_suite.py`` holds the two
to 1e-12 on the same draws. Work goes in chunks of benchmarks sized so that a ``replicates x chunk`` matrix
stays near 4 MB: memory grows with the data, not with the suite times the replicates.
"""

from __future__ import annotations

import math

import numpy as np

from perfstudy._lib.format import plural
from perfstudy._lib.quantiles import linear_quantiles
from perfstudy._lib.tdist import norm_ppf, t_ppf, t_ppf_array, t_sf_array
from perfstudy.comparison._intervals import MIN_BOOTSTRAP_CLUSTERS, MIN_TAIL_REPLICATES, _draw_counts, _t_p_value

#: floats in one ``replicates x benchmarks`` matrix of a chunk (4 MB)
CHUNK_FLOATS = 500_000


def compare_group(
    suite, layout, members: np.ndarray, ratio: np.ndarray, settings, root, clusters_a: int, clusters_b: int
) -> list[dict]:
    """The rows of ``members``, benchmarks that all have ``clusters_a`` batches in A and ``clusters_b`` in B;
    ``ratio`` says which are on the ratio scale (the others on the difference scale: zeros, negative values).
    Both scales share the layout's draws."""
    from perfstudy.comparison._streams import benchmark_stream, layout_stream

    fewer = min(clusters_a, clusters_b)
    method = "t" if fewer < MIN_BOOTSTRAP_CLUSTERS else "bootstrap"
    draws = None
    if method == "bootstrap":
        generator = np.random.default_rng(layout_stream(root, clusters_a, clusters_b))
        # the order of _interval: B's resamples, then A's
        draw_b = _draw_counts(clusters_b, settings.replicates, generator).astype(float)
        draw_a = _draw_counts(clusters_a, settings.replicates, generator).astype(float)
        draws = (draw_a, draw_b)
    per_row = settings.replicates * (clusters_a + clusters_b if settings.statistic == "median" else 1)
    # Welch-Fieller holds no replicates: the whole group at once (its t tail and quantile iterate together)
    chunk = (
        max(1, CHUNK_FLOATS // per_row) if method == "bootstrap" else max(1, CHUNK_FLOATS // (clusters_a + clusters_b))
    )
    rows = []
    for start in range(0, members.size, chunk):
        part = members[start : start + chunk]
        sides = [
            _sides(layout, part, side, clusters, settings.statistic)
            for side, clusters in ((0, clusters_a), (1, clusters_b))
        ]
        on_ratio = ratio[start : start + chunk]
        found: list = [None] * part.size
        for scale, which in (("ratio", np.flatnonzero(on_ratio)), ("difference", np.flatnonzero(~on_ratio))):
            if which.size == 0:
                continue
            streams = None
            if scale == "ratio" and settings.checks and settings.threshold > 0 and max(clusters_a, clusters_b) >= 10:
                streams = [benchmark_stream(root, int(i)) for i in part[which]]
            subset = [side.take(which) for side in sides]
            for k, row in zip(
                which, _rows(suite, layout, part[which], subset, (method, draws), settings, streams, scale)
            ):
                found[k] = row
        rows += found
    return rows


class _Sides:
    """One side of a chunk of benchmarks: ``(benchmarks, clusters)`` matrices of cluster sums, counts and
    statistics, and each benchmark's estimate (the statistic of all its values)."""

    __slots__ = ("sums", "counts", "statistics", "estimate", "index", "values")

    def __init__(self, sums, counts, statistics, estimate, index, values):
        self.sums, self.counts, self.statistics, self.estimate = sums, counts, statistics, estimate
        self.index, self.values = index, values

    def take(self, which: np.ndarray) -> _Sides:
        """The benchmarks at positions ``which``."""
        if which.size == self.estimate.size:
            return self
        return _Sides(*(getattr(self, k)[which] for k in self.__slots__))


def _sides(layout, part: np.ndarray, side: int, clusters: int, statistic: str) -> _Sides:
    index = layout.first[side, part][:, None] + np.arange(clusters)
    sums, counts = layout.sums[index], layout.counts[index]
    values = counts.sum(1)
    if statistic == "mean":
        statistics = sums / counts
        estimate = layout.totals[side, part] / values
    else:  # one value a batch (groupable): the batch statistic is the value
        statistics = sums
        estimate = np.median(sums, axis=1)
    return _Sides(sums, counts, statistics, estimate, index, values)


def _resampled(side: _Sides, draw: np.ndarray, statistic: str) -> np.ndarray:
    """``(replicates, benchmarks)``: :func:`perfstudy.comparison._intervals._resampled` of every benchmark
    on the same draw counts."""
    if statistic == "mean":
        return (draw @ side.sums.T) / (draw @ side.counts.T)
    # the median of a resample of one-value batches: the values in order, each as often as its batch was
    # drawn; the middle one or two of the cumulative counts
    order = np.argsort(side.statistics, axis=1, kind="stable")
    ordered = np.take_along_axis(side.statistics, order, axis=1)
    reached = np.cumsum(draw[:, order], axis=2)  # (replicates, benchmarks, clusters)
    total = side.statistics.shape[1]
    low = (reached < math.ceil(total / 2)).sum(2)
    high = (reached < total // 2 + 1).sum(2)
    columns = np.arange(ordered.shape[0])
    return 0.5 * (ordered[columns, low] + ordered[columns, high])


def _bootstrap(a: _Sides, b: _Sides, draws, statistic: str, confidence: float, replicates: int, scale: str):
    """``(low, high, p)`` arrays: :func:`perfstudy.comparison._intervals._interval` of every benchmark, cluster
    bootstrap: of ``B/A - 1`` computed on logs (ratio scale), or of ``B - A`` (difference scale)."""
    alpha = 1.0 - confidence
    clusters_a, clusters_b = a.statistics.shape[1], b.statistics.shape[1]
    fewer = min(clusters_a, clusters_b)
    to_scale, back = (np.log, np.expm1) if scale == "ratio" else (np.asarray, np.asarray)
    centre = to_scale(b.estimate) - to_scale(a.estimate)
    replicated = to_scale(_resampled(b, draws[1], statistic)) - to_scale(_resampled(a, draws[0], statistic))
    df = clusters_a + clusters_b - 2
    inflation = math.sqrt(fewer / (fewer - 1))
    se = inflation * replicated.std(axis=0, ddof=1)
    stretch = inflation * t_ppf(1 - alpha / 2, df) / norm_ppf(1 - alpha / 2)
    replicated = centre + stretch * (replicated - centre)
    low, high = back(linear_quantiles(replicated, [alpha / 2, 1.0 - alpha / 2]))
    beyond = np.minimum(np.count_nonzero(replicated <= 0.0, axis=0), np.count_nonzero(replicated >= 0.0, axis=0))
    p = np.minimum(1.0, 2.0 * (1 + beyond) / (replicates + 1))
    for j in np.flatnonzero(beyond < MIN_TAIL_REPLICATES):  # the tail unresolved: the studentised estimate
        p[j] = _t_p_value(centre[j] / se[j], df) if se[j] > 0 else p[j]
    flat = se == 0.0
    if flat.any():  # every resample the same: the estimate itself, p 0 or 1
        low[flat] = high[flat] = back(centre[flat])
        p[flat] = np.where(centre[flat] == 0.0, 1.0, 0.0)
    return low, high, p


def _welch_fieller(a: _Sides, b: _Sides, confidence: float, scale: str):
    """``(low, high, p)`` arrays: :func:`perfstudy.comparison._intervals._welch_fieller`, its t tail and quantile
    on every benchmark's Welch-Satterthwaite degrees of freedom at once: Fieller's interval of ``B/A - 1``
    (ratio scale), or Welch's of ``B - A`` (difference scale)."""
    alpha = 1.0 - confidence
    clusters_a, clusters_b = a.statistics.shape[1], b.statistics.shape[1]
    va = a.statistics.var(axis=1, ddof=1) / clusters_a
    vb = b.statistics.var(axis=1, ddof=1) / clusters_b
    se = np.sqrt(va + vb)
    ea, eb = a.estimate, b.estimate
    difference = eb - ea
    flat = se == 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        df = (va + vb) ** 2 / (va**2 / (clusters_a - 1) + vb**2 / (clusters_b - 1))
        df = np.where(flat, 1.0, df)
        p = 2.0 * t_sf_array(np.abs(difference / np.where(flat, 1.0, se)), df)
        q = t_ppf_array(1.0 - alpha / 2, df)
        lead = ea**2 - q**2 * va
        half_width = np.sqrt(np.maximum(0.0, (ea * eb) ** 2 - lead * (eb**2 - q**2 * vb)))
        low = np.maximum((ea * eb - half_width) / lead, 0.0) - 1.0
        high = (ea * eb + half_width) / lead - 1.0
    unbounded = lead <= 0.0  # A itself not told from 0
    low, high = np.where(unbounded, np.nan, low), np.where(unbounded, np.nan, high)
    if scale == "difference":
        low, high = difference - q * se, difference + q * se
    change = eb / ea - 1.0 if scale == "ratio" else difference
    low, high = np.where(flat, change, low), np.where(flat, change, high)
    p = np.where(flat, np.where(difference == 0.0, 1.0, 0.0), p)
    return low, high, p


def _drift(statistics: np.ndarray, alpha: float) -> list:
    """Per benchmark, ``(rho, p)`` where its batch statistics trend with their order at ``alpha``
    (:func:`perfstudy.comparison._batch_checks._drift_warning`: Spearman's rho, its t approximation), else None."""
    count, clusters = statistics.shape
    found: list = [None] * count
    if clusters < 8:
        return found
    x = statistics[:, None, :]
    # average ranks (scipy's rankdata default): those below, plus half of the ties beyond itself, plus 1
    ranks = (x < statistics[:, :, None]).sum(2) + ((x == statistics[:, :, None]).sum(2) + 1) / 2.0
    order = np.arange(clusters) - (clusters - 1) / 2.0
    centred = ranks - ranks.mean(1, keepdims=True)
    spread = np.sqrt((centred**2).sum(1) * (order**2).sum())
    varied = np.ptp(statistics, axis=1) > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(varied, (centred * order).sum(1) / spread, 0.0)
        t = np.abs(rho) * np.sqrt((clusters - 2) / np.maximum(1e-300, 1 - rho**2))
    critical = t_ppf(1.0 - alpha / 2, clusters - 2)
    for j in np.flatnonzero(varied & (t > 0.9 * critical)):  # the few near or beyond: their exact p
        r = float(np.clip(rho[j], -1.0, 1.0))
        p = 0.0 if abs(r) >= 1.0 else _t_p_value(r * math.sqrt((clusters - 2) / (1 - r**2)), clusters - 2)
        if p < alpha:
            found[j] = (r, p)
    return found


def _odd(statistics: np.ndarray, alpha: float) -> list:
    """Per benchmark, the positions of its odd batches, most extreme first
    (:func:`perfstudy.comparison._batch_checks.odd_batches` on every row)."""
    count, c = statistics.shape
    if c < 5:
        return [[] for _ in range(count)]
    x = np.log(statistics)
    x = x - x.mean(axis=1, keepdims=True)  # as odd_batches: identical batches deviate by exactly 0
    total, squares = x.sum(1, keepdims=True), (x**2).sum(1, keepdims=True)
    others_mean = (total - x) / (c - 1)
    others_var = np.maximum((squares - x**2 - (c - 1) * others_mean**2) / (c - 2), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(x - others_mean) / np.sqrt(others_var * (1 + 1 / (c - 1)))
    t = np.where(np.isnan(t), 0.0, t)
    odd = t > t_ppf(1.0 - alpha / (2 * c), c - 2)
    found = [[] for _ in range(count)]
    for j in np.flatnonzero(odd.any(1)):
        where = np.flatnonzero(odd[j])
        found[j] = list(where[np.argsort(-t[j, where], kind="stable")])
    return found


def _rows(suite, layout, part: np.ndarray, sides, how: tuple, settings, streams, scale: str) -> list[dict]:
    """The rows of ``part``: ``how`` is the interval's method and the group's bootstrap draws (None for
    Welch-Fieller)."""
    method, draws = how
    a, b = sides
    s = settings
    if method == "bootstrap":
        low, high, p = _bootstrap(a, b, draws, s.statistic, s.confidence, s.replicates, scale)
    else:
        low, high, p = _welch_fieller(a, b, s.confidence, scale)
    change = b.estimate / a.estimate - 1.0 if scale == "ratio" else b.estimate - a.estimate
    with np.errstate(divide="ignore", invalid="ignore"):  # a centre of 0 has no relative spread: NaN
        spread = [
            np.where(side.estimate == 0, np.nan, side.statistics.std(axis=1, ddof=1) / np.abs(side.estimate))
            for side in sides
        ]
    checks = [None, None]
    checked = s.checks and scale == "ratio"  # the checks compare batches by their ratios
    if checked:
        checks = [(_drift(side.statistics, s.check_alpha), _odd(side.statistics, s.check_alpha)) for side in sides]
    rows = []
    for j, i in enumerate(part.tolist()):
        notes = []
        if scale == "difference":
            notes.append("a value or batch statistic of 0 or below: compared as the difference B - A, not a ratio")
        if method == "t":
            notes.append(
                f"few {plural(s.cluster)} ({min(a.statistics.shape[1], b.statistics.shape[1])}): "
                f"Welch t interval over the {plural(s.cluster)}"
            )
        if checked:
            notes += _notes(suite, layout, i, j, sides, checks, s, streams)
        rows.append(
            dict(
                benchmark=suite.names[i],
                n_a=int(a.values[j]),
                n_b=int(b.values[j]),
                clusters_a=a.statistics.shape[1],
                clusters_b=b.statistics.shape[1],
                estimate_a=float(a.estimate[j]),
                estimate_b=float(b.estimate[j]),
                spread_a=float(spread[0][j]),
                spread_b=float(spread[1][j]),
                scale=scale,
                change=float(change[j]),
                low=float(low[j]),
                high=float(high[j]),
                p_value=float(p[j]),
                method=method,
                higher_is_better=bool(suite.higher_is_better[i]),
                notes=tuple(notes),
            )
        )
    return rows


def _notes(suite, layout, i: int, j: int, sides, checks, s, streams) -> list[str]:
    """Benchmark ``i``'s check notes, A's then B's, each side warm-up, drift, odd batch, CONFIRM (the order
    of :func:`perfstudy.comparison._one._compare_one`)."""
    from perfstudy.comparison._batch_checks import _confirm_warning, _warmup_warning
    from perfstudy.comparison._intervals import _side

    notes = []
    confirm_rng = None
    if streams is not None:
        confirm_rng = np.random.default_rng(streams[j]).spawn(2)[1]
    for position, (side, label, (drift, odd)) in enumerate(zip(sides, "AB", checks)):
        one = None
        if layout.largest_count[position, i] >= 4 or confirm_rng is not None:  # warm-up and CONFIRM: one side at a time
            rows = (
                slice(int(suite.starts[i]), int(suite.middles[i]))
                if position == 0
                else slice(int(suite.middles[i]), int(suite.ends[i]))
            )
            one = _side(suite.values[rows], suite.labels[rows], s.statistic)
        if one is not None and layout.largest_count[position, i] >= 4:
            notes += filter(None, (_warmup_warning(one, label, s.check_alpha, s.threshold),))
        if drift[j] is not None:
            rho, p = drift[j]
            notes.append(f"drift in {label}: batch results trend with batch order (Spearman rho={rho:+.2f}, p={p:.2g})")
        if odd[j]:
            first = layout.labels[side.index[j, odd[j][0]]]
            more = f" (and {len(odd[j]) - 1} more)" if len(odd[j]) > 1 else ""
            notes.append(f"batch {first} of {label} is unlike the others{more}")
        if confirm_rng is not None and one is not None:
            notes += filter(None, (_confirm_warning(one, label, s, confirm_rng),))
    return notes
