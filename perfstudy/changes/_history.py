"""``history``: which commit changed a benchmark, by how much, and is it real.

A project's results, one row per measurement, in commit order. The measurements of one commit are a cluster:
each commit is summarised by its median, and every test and interval treats commits, not measurements, as the
units. What a change point says, and the rules behind it, are in :func:`history`'s docstring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from perfstudy._lib.checks import check_executor, check_int
from perfstudy._lib.parallel import map_tasks
from perfstudy._lib.result import Result
from perfstudy._lib.types import Executor
from perfstudy._lib.units import higher_is_better
from perfstudy.changes._detect import Found, find_changes, interval, window_bounds
from perfstudy.changes._location import location_range
from perfstudy.changes._measurements import _measurements, _order
from perfstudy.changes._power import _commits_after, _commits_for_change, _commits_needed, noise_between_commits
from perfstudy.changes._settings import DEFAULT_WIDTHS, HistorySettings
from perfstudy.comparison import adjust_p_values
from perfstudy.io.harnesses import refuse_chosen_metric

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CHANGE_VERDICTS", "History", "history"]

#: what a change point says: the level (slower, faster) or the spread (noisier, quieter)
CHANGE_VERDICTS = ("slower", "faster", "noisier", "quieter")
#: benchmarks per task when an executor runs them
CHUNK_SERIES = 64

_COLUMNS = [
    "benchmark",
    "index",
    "commit",
    "commit_index",
    "timestamp",
    "change",
    "verdict",
    "level_change",
    "level_low",
    "level_high",
    "spread_ratio",
    "spread_low",
    "spread_high",
    "before",
    "after",
    "commits_before",
    "commits_after",
    "range_first",
    "range_last",
    "range_first_index",
    "range_last_index",
    "p_value",
    "q_value",
    "unit",
]


@dataclass(frozen=True)
class History(Result):
    """Change points of every benchmark over a project's commits.

    Attributes
    ----------
    change_points : pandas.DataFrame
        One row per change point (columns in :func:`history`'s Returns), benchmarks in order, then index.
    series : pandas.DataFrame
        One row per benchmark: ``benchmark``, ``points`` (measurements), ``commits``, ``change_points``,
        ``p_value`` (its smallest scan p-value, 1 when nothing was a candidate), ``q_value`` (Benjamini-Hochberg
        over the benchmarks), ``unit``, ``commits_needed`` (the fewest commits on each side with which a change,
        however large, can be found in this benchmark: a benchmark with fewer than twice as many commits can show
        none), ``commits_after_needed`` (the fewest commits after a change with which it can be found, the commits
        before it filling the widest window: fewer than ``commits_needed`` when they are many), and
        ``judged_from`` (the first commit that a change cannot yet start at: the newest
        ``commits_after_needed - 1`` commits cannot be judged yet), ``noise`` (the relative SD of commits about
        their level, :func:`noise_between_commits`; NaN for a series with values of both signs) and
        ``commits_for_threshold`` (about how many commits on each side a change of ``threshold`` needs to be found
        four times in five at that noise, :func:`commits_for_change`; ``inf`` when such a change is under
        ``min_sigmas`` noise SDs and is not reported at any length).
    commits : pandas.DataFrame
        One row per commit of every benchmark: ``benchmark``, ``commit``, ``commit_index``, ``index`` (its first
        measurement's position), ``timestamp``, ``median``, ``n``. What the plots draw.
    fdr : float
        The false discovery rate across benchmarks.
    confidence : float
        The coverage of the intervals.
    widths : tuple of int
        The scan widths, commits on each side.
    min_side : int
        Fewest commits on either side of a change point.
    threshold : float
        Smallest relative change of level reported.
    notes : tuple of str
        What was done to the input before the scan, in sentences: measurements without a value left out (with
        ``dropna``), units converted.
    """

    change_points: pd.DataFrame = field(repr=False)
    series: pd.DataFrame = field(repr=False)
    commits: pd.DataFrame = field(repr=False)
    fdr: float
    confidence: float
    widths: tuple[int, ...]
    min_side: int
    threshold: float
    notes: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """The change points, one row each."""
        return self.change_points.copy()

    @property
    def regressions(self) -> pd.DataFrame:
        """The change points whose verdict is ``slower`` or ``noisier``, largest level change first."""
        cp = self.change_points
        bad = cp[cp["verdict"].isin(["slower", "noisier"])]
        return bad.sort_values("level_change", key=np.abs, ascending=False, kind="stable", na_position="last")  # pyright: ignore

    @property
    def unseen(self) -> list[tuple[str, str, str, int, bool]]:
        """The stretches of commits beside a benchmark's change points too short for another change in them to be
        found: fewer than ``commits_needed`` on each side of every boundary (at the newest end, fewer than
        ``commits_after_needed`` after it with the widest scan window before it). Another change there goes unseen,
        and the level beside the one found pools both. Each as ``(benchmark, first commit, last commit, commits,
        whether it ends at the newest commit)``."""
        cp, widest, spans = self.change_points, max(self.widths), []
        for row in self.series.to_dict("records"):
            name = row["benchmark"]
            cuts = sorted({int(i) for i in cp.loc[cp["benchmark"] == name, "commit_index"]})
            if not cuts:
                continue
            m, need, after = int(row["commits"]), int(row["commits_needed"]), int(row["commits_after_needed"])
            names = self.commits.loc[self.commits["benchmark"] == name].set_index("commit_index")["commit"]
            for start, end in zip([0, *cuts], [*cuts, m]):
                if end - start < (min(2 * need, widest + after) if end == m else 2 * need):
                    spans.append((str(name), str(names[start]), str(names[end - 1]), end - start, end == m))
        return spans

    def format(self, format: str = "table") -> str:
        """The history as a table, Markdown, JSON or an HTML page (:func:`perfstudy.changes.format_history`).

        Parameters
        ----------
        format : {"table", "markdown", "json", "html"}
        """
        from perfstudy.changes._render import format_history

        return format_history(self, format)  # type: ignore[arg-type]

    def newest(self, commits: int = 1) -> pd.DataFrame:
        """The change points whose new level starts in a benchmark's newest ``commits`` commits.

        Parameters
        ----------
        commits : int
            How many of each benchmark's newest commits count as new.
        """
        commits = check_int("commits", commits, maximum=2**31)
        size = self.series.set_index("benchmark")["commits"]
        cp = self.change_points
        newest = cp["commit_index"].to_numpy() >= size.loc[cp["benchmark"]].to_numpy() - commits
        return cp[newest]  # pyright: ignore


def _merge(found: list[Found], near: int) -> list[tuple[int, Found | None, Found | None]]:
    """Level and spread changes at most ``near`` commits apart are one change of both."""
    levels = [f for f in found if f.kind == "level"]
    spreads = [f for f in found if f.kind == "spread"]
    out: list[tuple[int, Found | None, Found | None]] = []
    used: set[int] = set()
    for lv in levels:
        match = None
        for i, sp in enumerate(spreads):
            if i not in used and abs(sp.boundary - lv.boundary) <= near:
                match = i
                break
        if match is not None:
            used.add(match)
            out.append((lv.boundary, lv, spreads[match]))
        else:
            out.append((lv.boundary, lv, None))
    out += [(sp.boundary, None, sp) for i, sp in enumerate(spreads) if i not in used]
    return sorted(out, key=lambda t: t[0])


def _one_series(
    y: np.ndarray, log: bool, settings: dict, within: tuple[np.ndarray, np.ndarray] | None = None
) -> list[dict]:
    found = find_changes(y, **settings["detect"], within=within)
    rows = []
    bounds = sorted({f.boundary for f in found} | {0, y.size})
    levels = [f.boundary for f in found if f.kind == "level"]
    lb = [0, *levels, y.size]
    centre = np.concatenate([np.full(b - a, np.median(y[a:b])) for a, b in zip(lb[:-1], lb[1:], strict=True)])
    if within is None:
        resid = np.abs(y - centre)
        edges = np.arange(y.size + 1)
    else:
        resid, starts = within
        edges = np.r_[starts, resid.size]
    floor = max(float(np.median(resid[resid > 0])) if (resid > 0).any() else 1.0, 1e-300) * 1e-3

    def spread_side(lo: int, hi: int) -> np.ndarray:
        side = resid[edges[lo] : edges[hi]]
        # a commit's median measurement deviates by exactly 0 when it has an odd count: not a spread
        kept = side[side > 0] if within is not None and (side > 0).sum() >= 2 else side
        return np.log(np.maximum(kept, floor))

    for k, lv, sp in _merge(found, settings["near"]):
        width = max(f.width for f in (lv, sp) if f is not None)
        a, b = window_bounds(k, width, bounds, y.size)
        before, after = y[a:k], y[k:b]
        row = {"commit_index": k, "commits_before": k - a, "commits_after": b - k}
        # where the change may be: Hansen's location set on the level, or on the log spread of the residuals
        located = y[a:b] if lv is not None else np.log(np.maximum(np.abs(y - centre), floor))[a:b]
        first, last = location_range(located, k - a, settings["confidence"])
        row |= {"range_first_index": a + first, "range_last_index": a + last}
        shift, low, high = interval(before, after, settings["confidence"])
        med_b, med_a = float(np.median(before)), float(np.median(after))
        if log:
            row |= {"before": math.exp(med_b), "after": math.exp(med_a)}
            row |= {"level_change": math.expm1(shift), "level_low": math.expm1(low), "level_high": math.expm1(high)}
        else:
            scale = abs(med_b) if med_b != 0 else float("nan")
            row |= {"before": med_b, "after": med_a}
            row |= {"level_change": shift / scale, "level_low": low / scale, "level_high": high / scale}
        if sp is not None:
            ratio, r_low, r_high = interval(spread_side(a, k), spread_side(k, b), settings["confidence"])
            row |= {"spread_ratio": math.exp(ratio), "spread_low": math.exp(r_low), "spread_high": math.exp(r_high)}
        else:
            row |= {"spread_ratio": float("nan"), "spread_low": float("nan"), "spread_high": float("nan")}
        row["change"] = "both" if lv is not None and sp is not None else ("level" if lv is not None else "spread")  # pyright: ignore
        row["p_value"] = min(f.p_value for f in (lv, sp) if f is not None)
        rows.append(row)
    return rows


def _chunk(chunk: list, rng=None, *, settings: dict) -> list[list[dict]]:
    """The change points of each series of a chunk (a task of :func:`perfstudy._lib.parallel.map_tasks`; the
    method draws nothing, so ``rng`` is unused)."""
    out = []
    for y, log, cut, within in chunk:
        mine = {**settings, "detect": {**settings["detect"], "threshold": cut}}
        out.append(_one_series(y, log, mine, within))
    return out


def _verdict(row: dict, better_up: bool) -> str:
    if row["change"] == "spread":
        return "noisier" if row["spread_ratio"] > 1 else "quieter"
    up = row["level_change"] > 0
    return "faster" if up == better_up else "slower"


def history(
    data: pd.DataFrame,
    *,
    commit: str = "commit",
    value: str = "value",
    benchmark: str | None = "benchmark",
    timestamp: str | None = None,
    fdr: float = HistorySettings.fdr,
    threshold: float | str = HistorySettings.threshold,
    min_sigmas: float = 2.0,
    min_ratio: float = 1.5,
    min_side: int = HistorySettings.min_side,
    widths: tuple[int, ...] = DEFAULT_WIDTHS,
    confidence: float | str = HistorySettings.confidence,
    progress: bool = False,
    executor: Executor = None,
    unit: str | None = "unit",
    dropna: bool = False,
    settings: HistorySettings | None = None,
) -> History:
    """Change points of each benchmark's level and spread over a project's commits.

    Each commit is a cluster of its measurements, summarised by their median (on the log scale when every value
    is positive). The change points of a benchmark are found by rank (MOSUM Mann-Whitney) scans at several
    widths, greedily, windows clipped at the change points already accepted (``changes._detect``, after
    Eichinger & Kirch 2018 and Pettitt 1979); a change of spread is a rank scan of the absolute residuals about
    the level segments. Ranks make the rule robust to spikes and heavy tails: one measurement, however extreme,
    moves a window's statistic by one rank.

    The guarantee, stated: each benchmark's scan p-value is Bonferroni over its boundaries and widths, valid
    when a benchmark's commits are exchangeable (no change, no trend, no autocorrelation); Benjamini-Hochberg
    over the benchmarks then holds the false discovery rate at ``fdr`` (and, when no benchmark changed, the
    chance of any false change point at ``fdr``). A change point must also matter: a level change of at least
    ``threshold`` and ``min_sigmas`` robust noise SDs, or a spread ratio of at least ``min_ratio``. Real series
    are autocorrelated; the size rules are what keep a drift from being reported, and notebook 10 measures the
    false change points per 1,000 points on real stable series.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per measurement, in commit order (or with a ``timestamp`` column that orders the commits).
    commit : str
        The column naming the commit (any hashable labels; a commit's rows need not be adjacent).
    value : str
        The measured column.
    benchmark : str or None
        The column naming the benchmark; None when the frame is one series.
    timestamp : str or None
        A column of times that orders the commits (each commit's earliest); None keeps the rows' order.
    fdr : float
        False discovery rate across benchmarks (Benjamini-Hochberg), and each series' scan level.
    threshold : float or str
        Smallest relative change of level reported (``0.01`` or ``"1%"``).
    min_sigmas : float
        Smallest level change reported, in robust noise SDs of the commits about their windows' medians.
    min_ratio : float
        Smallest ratio of spreads (median absolute residual after against before, or its inverse) reported.
    min_side : int
        Fewest commits on either side of a change point: the newest ``min_side - 1`` commits cannot be judged.
    widths : tuple of int
        The scan widths, commits on each side of a boundary.
    confidence : float or str
        Coverage of the intervals (Moses' distribution-free interval of the Hodges-Lehmann shift over commits).
    progress : bool
        Show a progress bar over the benchmarks (chunks of ``CHUNK_SERIES``).
    executor : concurrent.futures.Executor, optional
        Runs the chunks of benchmarks (a process pool, Dask's ``Client.get_executor()``); None runs them here. The
        result is the same either way.
    unit : str or None
        The column of each value's unit, where there is one. A benchmark whose values are in units that convert
        (``s`` and ``ms``) is converted to the unit most of its values are in, and the result's ``notes`` say so;
        one whose units do not convert (``s`` and ``B``) is refused by name.
    dropna : bool
        Leave out measurements without a value (NaN: a failed run, a gap in the history); ``notes`` counts them.
        Without it they are refused.
    settings : HistorySettings, optional
        Every option above in one checked object (what ``perfstudy history`` passes); then no other option may
        be given. Those keywords are a convenience that builds the HistorySettings.

    Returns
    -------
    History
        ``change_points`` has, per change point: ``benchmark``; ``index`` (0-based position, among the
        benchmark's measurements in commit order, of the first measurement of the new level); ``commit``,
        ``commit_index`` and ``timestamp``; ``change`` (``level``, ``spread`` or ``both``); ``verdict`` (slower,
        faster, noisier, quieter: the level's where it changed); ``level_change`` (relative, after against
        before) with ``level_low``/``level_high``; ``spread_ratio`` with ``spread_low``/``spread_high`` (NaN for a
        level change only); ``before`` and ``after`` (the commits' medians either side), ``commits_before``,
        ``commits_after``; ``range_first`` and ``range_last`` (the first and last commit that may hold the change
        at ``confidence``, Hansen's likelihood-ratio set: ``changes._location``) with their commit indices
        ``range_first_index`` and ``range_last_index``; ``p_value`` (the scan's) and ``q_value`` (the benchmark's BH q-value); ``unit``.
    """
    import pandas as pd

    given: dict[str, Any] = dict(
        commit=commit,
        value=value,
        benchmark=benchmark,
        timestamp=timestamp,
        fdr=fdr,
        threshold=threshold,
        min_sigmas=min_sigmas,
        min_ratio=min_ratio,
        min_side=min_side,
        widths=widths,
        confidence=confidence,
        progress=progress,
        unit=unit,
        dropna=dropna,
    )
    settings = HistorySettings.one_source(settings, given, defaults=True)
    refuse_chosen_metric(
        settings.option("metric"),
        settings.metric,
        "a frame (its value column; read_history(path, metric=...) chooses it)",
    )
    check_executor(executor)
    frame, notes = _measurements(data, settings)
    fdr, threshold, confidence = settings.fdr, float(settings.threshold), float(settings.confidence)
    min_side, widths, progress = settings.min_side, settings.widths, settings.progress
    min_sigmas, min_ratio = settings.min_sigmas, settings.min_ratio
    units = frame["unit"].to_numpy() if "unit" in frame.columns else None
    timestamp = "timestamp" if "timestamp" in frame.columns else None
    frame = _order(frame, "commit", timestamp)
    scan = {
        "detect": {
            "widths": widths,
            "alpha": fdr,
            "min_side": min_side,
            "min_sigmas": min_sigmas,
            "threshold": 0.0,
            "min_ratio": min_ratio,
        },
        "near": max(1, min_side // 2),
        "confidence": confidence,
    }
    grouped = frame.groupby(["benchmark", "commit_index"], sort=False)
    commits = grouped.agg(commit=("commit", "first"), index=("index", "min"), median=("value", "median"))
    commits["n"] = grouped.size()
    # each measurement's absolute deviation from its commit's median (log scale for positive values)
    positive = bool((frame["value"] > 0).all())
    scaled = np.log(frame["value"]) if positive else frame["value"]
    keys = [frame["benchmark"], frame["commit_index"]]
    deviations = (scaled - scaled.groupby(keys, sort=False).transform("median")).abs().to_numpy()  # pyright: ignore
    if timestamp is not None:
        commits["timestamp"] = grouped["timestamp"].min()
    else:
        commits["timestamp"] = pd.NaT
    commits = commits.reset_index()
    rows: list[dict] = []
    series_rows: list[dict] = []
    bounds = np.flatnonzero(np.r_[True, commits["benchmark"].to_numpy()[1:] != commits["benchmark"].to_numpy()[:-1]])
    bounds = np.r_[bounds, len(commits)]
    row_of = frame.reset_index(drop=True).groupby("benchmark", sort=False).indices
    row_of = {b: int(rows_[0]) for b, rows_ in row_of.items()}
    tasks, meta = [], []
    for start, stop in zip(bounds[:-1], bounds[1:], strict=True):
        name = commits["benchmark"].iat[start]
        med = commits["median"].to_numpy()[start:stop]
        log = bool((med > 0).all())
        y = np.log(med) if log else med
        cut = math.log1p(threshold) if log else threshold * float(np.median(np.abs(y)))
        counts = commits["n"].to_numpy()[start:stop]
        within = None
        if log and np.median(counts) >= 2:
            # several measurements a commit: its noise is seen within it, where no change of level can hide it
            first_row = int(row_of[name])
            starts = np.r_[0, np.cumsum(counts)[:-1]]
            within = (deviations[first_row : first_row + int(counts.sum())], starts)
        tasks.append((y, log, cut, within))
        meta.append((name, start, stop))
    # a task is a chunk of series, so that an executor's overhead is paid per chunk, not per series
    chunks = [tasks[i : i + CHUNK_SERIES] for i in range(0, len(tasks), CHUNK_SERIES)]
    found_all = [
        found
        for chunk in map_tasks(
            partial(_chunk, settings=scan), chunks, executor=executor, progress=progress, desc="history"
        )
        for found in chunk
    ]
    for (name, start, stop), found, (y, log, _, _) in zip(meta, found_all, tasks, strict=True):
        noise = noise_between_commits(y)
        unit = units[row_of[name]] if units is not None else None
        unit = None if unit is None or unit != unit else str(unit)
        up = higher_is_better(unit)
        first_index = commits["index"].to_numpy()[start:stop]
        for row in found:
            k = row["commit_index"]
            row |= {
                "benchmark": name,
                "index": int(first_index[k]),
                "commit": commits["commit"].iat[start + k],
                "range_first": commits["commit"].iat[start + row["range_first_index"]],
                "range_last": commits["commit"].iat[start + row["range_last_index"]],
                "timestamp": commits["timestamp"].iat[start + k],
                "verdict": _verdict(row, up),
                "unit": unit,
            }
        rows += found
        series_rows.append(
            {
                "benchmark": name,
                "points": int(commits["n"].to_numpy()[start:stop].sum()),
                "commits": int(stop - start),
                "p_value": min([r["p_value"] for r in found], default=1.0),
                "unit": unit,
                "commits_needed": _commits_needed(int(stop - start), widths, fdr, min_side),
                "commits_after_needed": _commits_after(int(stop - start), widths, fdr, min_side),
                "noise": math.expm1(noise) if log else float("nan"),
                "commits_for_threshold": _commits_for_change(
                    math.log1p(threshold), noise, int(stop - start), widths, fdr, min_side, min_sigmas
                )
                if log and threshold > 0
                else float("nan"),
            }
        )
    series = pd.DataFrame(series_rows)
    if len(series):
        series["judged_from"] = np.maximum(series["commits"] - series["commits_after_needed"] + 1, 0)
    else:
        series["commits_needed"] = series["commits_after_needed"] = series["judged_from"] = []
        series["noise"] = series["commits_for_threshold"] = []
    series["q_value"] = adjust_p_values(series["p_value"].to_numpy(), "bh") if len(series) else []
    keep = set(series.loc[series["q_value"] <= fdr, "benchmark"])
    q_of = dict(zip(series["benchmark"], series["q_value"], strict=True))
    rows = [r | {"q_value": q_of[r["benchmark"]]} for r in rows if r["benchmark"] in keep]
    change_points = pd.DataFrame(rows, columns=_COLUMNS)
    counts = change_points.groupby("benchmark").size()
    series["change_points"] = series["benchmark"].map(counts).fillna(0).astype(int)  # pyright: ignore
    series = series[
        [
            "benchmark",
            "points",
            "commits",
            "change_points",
            "p_value",
            "q_value",
            "unit",
            "commits_needed",
            "commits_after_needed",
            "judged_from",
            "noise",
            "commits_for_threshold",
        ]
    ]
    return History(
        change_points=change_points.reset_index(drop=True),
        series=series,  # pyright: ignore
        commits=commits,
        fdr=fdr,
        confidence=confidence,
        widths=widths,
        min_side=min_side,
        threshold=threshold,
        notes=tuple(notes),
    )
