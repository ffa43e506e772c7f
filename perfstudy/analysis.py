"""A report on any benchmark file: every diagnostic perfstudy has, per benchmark, and advice in
plain sentences (the engine of ``perfstudy analyze`` and ``notebooks/analyze.ipynb``).

Per benchmark and version, on the values left once the harness's flagged warm-ups are out:

- warm-up still in the data: for each position within a batch, a t-test over the batches of that
  position's value against the batch's second half; the leading positions that differ are the
  iterations to drop (with one value per batch, the series-level ADF search of
  :func:`perfstudy.diagnostics.variability.warmup` instead);
- normality (Shapiro-Wilk), stationarity (ADF), independence (lag-1 shuffle test), the naive and
  the autocorrelation-corrected standard error of the mean (:func:`perfstudy.diagnostics.diagnosis.diagnose_series`);
- the median's distribution-free interval (:func:`perfstudy.diagnostics.repetitions.median_ci`);
- CONFIRM's repetitions for +-1% and +-5% (:func:`perfstudy.diagnostics.repetitions.repetitions_needed`), on the
  batches' means when there are 10 batches or more (the batch is the independent unit), else on
  the values;
- batches unlike the others: a batch median that a t-test against the other batches' medians
  rejects, Bonferroni over all the batches of the report (:func:`perfstudy.comparison._compare.odd_batches`). Not MMD against the rest (Maricq et al., section 6): with
  a process effect, which is the normal case, every batch's distribution differs from the rest and
  MMD flags them all (it did, on every batch of a simulated 20-process run);
- PT4Cloud stability over the time-ordered quarters of the runs, when there are timestamps;
- with two versions, :func:`perfstudy.comparison._compare.compare`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd
from scipy import stats

from perfstudy._lib.checks import (
    check_allocation,
    check_bool,
    check_column,
    check_fraction,
    check_frame,
    check_int,
    check_labels,
    check_resamples,
    check_sample,
    said,
)
from perfstudy._lib.defaults import default
from perfstudy._lib.format import display_unit, plural, si, with_unit
from perfstudy._lib.frames import column as as_column, each_row, one_value_each, table as as_table
from perfstudy._lib.result import Result
from perfstudy._lib.spelling import Spelled
from perfstudy._lib.types import Seed
from perfstudy.comparison import CompareSettings, Comparison, compare, odd_batches, warmup_check
from perfstudy.diagnostics.diagnosis import diagnose_series
from perfstudy.diagnostics.repetitions import median_ci, repetitions_needed
from perfstudy.stability.pt4cloud import pt4cloud

__all__ = ["Analysis", "AnalyzeSettings", "analyze", "warmup_iterations", "demo_runs", "DEMO_PROBLEMS"]


def _labels(name: str, labels, n: int) -> np.ndarray:
    """One label per value, none missing (:func:`check_labels`) nor infinite; integral floats as
    integers."""
    labels = check_labels(name, labels, n)
    if labels.dtype.kind == "f":
        if not np.isfinite(labels).all():
            raise ValueError(f"{name}: {int((~np.isfinite(labels)).sum())} labels are infinite")
        if (labels == np.floor(labels)).all():
            labels = labels.astype(np.int64)
    return labels


def warmup_iterations(values, batches, iterations, *, alpha: float = 0.05, max_fraction: float = 0.5) -> int:
    """How many leading iterations of every batch to drop: the leading positions whose values
    differ, over the batches, from the same batch's second half.

    For position ``j``, ``d_c = x_cj / mean(second half of batch c) - 1`` over batches ``c``; a
    one-sample t-test (Bonferroni over the positions tried) says whether ``j`` is still warm-up.
    The answer is the number of leading positions that are, up to ``max_fraction`` of the shortest
    batch.

    Parameters
    ----------
    values, batches, iterations : array_like
        One entry per value: the value, its batch label and its position within the batch.
    alpha : float
        Family-wise size over the positions tried.
    max_fraction : float
        Largest share of a batch that may be called warm-up.

    Returns
    -------
    int
        0 when fewer than 3 batches have 4 values or more.
    """
    alpha = check_fraction("alpha", alpha)
    max_fraction = check_fraction("max_fraction", max_fraction)
    values = check_sample("values", values, minimum=0)
    batches = _labels("batches", batches, values.size)
    iterations = _labels("iterations", iterations, values.size)
    if not (iterations.dtype.kind in "iu" and (iterations >= 0).all()):
        raise ValueError("iterations: expected each value's position in its batch, integers of at least 0")
    frame = pd.DataFrame({"value": values, "batch": batches, "iteration": iterations})
    wide = frame.pivot_table(index="batch", columns="iteration", values="value", aggfunc="first")
    wide = wide[wide.notna().sum(axis=1) >= 4]
    if len(wide) < 3:
        return 0
    shortest = int(wide.notna().sum(axis=1).min())
    half = wide.iloc[:, shortest // 2 : shortest].mean(axis=1)
    tries = max(1, int(max_fraction * shortest))
    dropped = 0
    for j in range(tries):
        d = (wide.iloc[:, j] / half - 1.0).dropna().to_numpy()
        if d.size < 3:
            break
        p = stats.ttest_1samp(d, 0.0).pvalue if np.ptp(d) > 0 else float(d[0] == 0)
        if not p < alpha / tries:
            break
        dropped = j + 1
    return dropped


@dataclass(frozen=True, eq=False)
class Analysis(Result):
    """Everything :func:`analyze` found, per benchmark and version, and what to do about it.

    Attributes
    ----------
    table : DataFrame
        One row per version and benchmark: ``version``, ``benchmark``, ``n``, ``batches``,
        ``mean``, ``cov``, ``warmup_iterations`` (leading iterations of each batch to drop),
        ``warmup_index`` (series-level ADF search, for one value per batch), ``shapiro_reject``
        (not normal), ``adf_reject`` (stationary), ``independence_reject`` (autocorrelated),
        ``naive_low``, ``naive_high``, ``corrected_low``, ``corrected_high`` (intervals of the mean
        from the naive and the autocorrelation-corrected SE), ``se_inflation``, ``median``,
        ``median_low``, ``median_high``, ``confirm_unit`` (``"batch"`` or ``"value"``),
        ``confirm_1pct``, ``confirm_5pct`` (repetitions needed; NaN: more than there are),
        ``odd_batches`` (batches unlike the others, :func:`perfstudy.comparison._compare.odd_batches`), ``pt4cloud_stable``,
        ``pt4cloud_quarters`` (NaN without timestamps), ``notes``.
    advice : tuple of str
        Plain sentences, most important first.
    comparison : Comparison or None
        With two versions.
    confidence : float
    units : mapping
        Benchmark to its unit, where the data have a ``unit`` column.
    cluster : str
        The batch column.
    """

    table: pd.DataFrame
    advice: tuple
    comparison: Comparison | None
    confidence: float
    units: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    cluster: str = "batch"

    def to_frame(self) -> pd.DataFrame:
        """The per-benchmark table (a copy)."""
        return self.table.copy()

    def card(self, benchmark) -> pd.DataFrame:
        """One benchmark's findings for people: a row per diagnostic in plain words (the method named after
        them), a column per version, values in the benchmark's unit with SI prefixes (``70.31 µs``).

        Parameters
        ----------
        benchmark
            A value of the table's ``benchmark`` column.
        """
        rows = as_table(self.table[self.table["benchmark"] == benchmark])
        if rows.empty:
            raise ValueError(
                f"benchmark={benchmark!r}: not in the analysis; it has {list(self.table.benchmark.unique())}"
            )
        factor, shown, small = display_unit(self.units.get(str(benchmark)))

        def value(x: float) -> str:
            return with_unit(float(x) * factor, shown, small=small)

        def interval(centre, low, high) -> str:
            return f"{value(centre)} [{si(float(low) * factor, small=small)}, {si(float(high) * factor, small=small)}]"

        def yes(flag) -> str:
            return "yes" if bool(flag) else "no"

        level, cluster = f"{100 * self.confidence:g}%", self.cluster
        card = {}
        row: Any  # a named tuple of the table's columns (pandas types itertuples' rows as plain tuples)
        for row in each_row(rows):
            warm = int(row.warmup_iterations)
            reading, _ = _confirm_reading(row)
            if reading == "constant":
                confirm = "none: every value is the same"
            elif reading == "too few":
                confirm = f"too few {plural(cluster)} ({row.batches}) to tell; run at least 10"
            else:
                unit = f"{plural(cluster)}" if row.confirm_unit == "batch" else "repetitions"
                need = [
                    "more than there are" if not math.isfinite(n) else f"{int(n)}"
                    for n in (row.confirm_1pct, row.confirm_5pct)
                ]
                confirm = f"{need[0]} for ±1%, {need[1]} for ±5% ({unit})"
            stable = row.pt4cloud_stable
            card[str(row.version)] = {
                f"values ({plural(cluster)})": f"{row.n} ({row.batches})",
                f"warm-up left at the start of each {cluster}": (
                    "none found" if warm == 0 else f"the first {warm} iteration{'s' if warm > 1 else ''}: drop them"
                ),
                f"mean, {level} interval as if the values were independent": interval(
                    row.mean, row.naive_low, row.naive_high
                ),
                f"mean, {level} interval allowing for correlated values": interval(
                    row.mean, row.corrected_low, row.corrected_high
                ),
                f"median, {level} interval (distribution-free)": interval(row.median, row.median_low, row.median_high),
                "spread: SD over the mean": f"{100 * row.cov:.1f}%",
                "values look normal (Shapiro-Wilk)": yes(not row.shapiro_reject),
                "values settle, no drift (ADF)": yes(row.adf_reject),
                "values independent of the one before (lag-1 shuffle test)": yes(not row.independence_reject),
                "repetitions needed for the median (CONFIRM)": confirm,
                f"{plural(cluster)} unlike the others": row.odd_batches or "none",
                "distribution stable by the end (PT4Cloud)": (
                    "no timestamps" if isinstance(stable, float) and math.isnan(stable) else yes(stable)
                ),
            }
        return pd.DataFrame(card)


def _ordered(frame: pd.DataFrame, cluster: str) -> pd.DataFrame:
    keys = [c for c in ("timestamp", cluster, "iteration") if c in frame.columns and bool(frame[c].notna().all())]
    return frame.sort_values(keys, kind="stable") if keys else frame


def _one(series: pd.DataFrame, *, cluster, confidence, levels: dict, threshold, permutations, rng) -> dict:
    """One benchmark's card: ``levels`` holds the tests' sizes, ``alpha`` (each diagnostic), ``odd`` (the odd
    batches, Bonferroni over the cards) and ``warmup`` (compare's warm-up check, as compare sizes it)."""
    alpha, odd_alpha, warmup_alpha = levels["alpha"], levels["odd"], levels["warmup"]
    x = series["value"].to_numpy(dtype=float)
    batches = series[cluster].to_numpy() if cluster in series.columns else np.zeros(x.size)
    n_batches = int(pd.unique(batches).size)
    iterations = (
        series["iteration"].to_numpy()
        if "iteration" in series.columns
        else series.groupby(batches).cumcount().to_numpy()
    )
    streams = np.random.default_rng(rng).spawn(3)
    notes = []
    row: dict[str, Any] = dict(n=int(x.size), batches=n_batches)
    row["warmup_iterations"] = warmup_iterations(x, batches, iterations, alpha=alpha)
    if row["warmup_iterations"] == 0 and (x > 0).all():
        # the comparison's own warm-up check (first tenth of each batch against the rest): when it sees one,
        # the table and the advice say so too, and never "no warm-up" beside its "drop them"
        found = warmup_check(x, batches, alpha=warmup_alpha, threshold=threshold)
        if found is not None:
            row["warmup_iterations"] = found[0]
    values = x[iterations >= row["warmup_iterations"]]
    diagnosis = diagnose_series(values, alpha=alpha, permutations=permutations, rng=streams[0].spawn(1)[0])
    d = {k: np.nan if v is None else v for k, v in asdict(diagnosis).items()}  # not computed: NaN, as in a table
    z = stats.norm.ppf(0.5 + confidence / 2)
    row.update(
        mean=float(d["mean"]),
        cov=float(d["cov"]),
        warmup_index=d["warmup_index"],
        shapiro_reject=d["shapiro_reject"],
        adf_reject=d["adf_reject"],
        independence_reject=d["independence_reject"],
        naive_low=d["mean"] - z * d["naive_se"],
        naive_high=d["mean"] + z * d["naive_se"],
        corrected_low=d["mean"] - z * d["corrected_se"],
        corrected_high=d["mean"] + z * d["corrected_se"],
        se_inflation=d["se_inflation"],
    )
    if isinstance(d["notes"], str) and d["notes"]:
        notes.append(d["notes"])
    try:
        interval = median_ci(values, confidence=confidence)
        row.update(median=interval.median, median_low=interval.low, median_high=interval.high)
    except ValueError:  # too few values for a distribution-free interval (Go's -count 6 at 95%)
        row.update(median=float(np.median(values)), median_low=math.nan, median_high=math.nan)
        notes.append(
            f"{values.size} values are too few for a distribution-free {confidence:.0%} interval of the median"
        )
    kept_batches = batches[iterations >= row["warmup_iterations"]]
    means = np.asarray(pd.Series(values).groupby(kept_batches).mean(), dtype=float)
    unit, sample = ("batch", means) if means.size >= 10 and n_batches < values.size else ("value", values)
    row["confirm_unit"] = unit
    for error, column in ((0.01, "confirm_1pct"), (0.05, "confirm_5pct")):
        if sample.size < 10:
            row[column] = math.nan
            continue
        needed = repetitions_needed(sample, error=error, confidence=confidence, trials=100, rng=streams[1])
        row[column] = math.nan if needed.estimate is None else needed.estimate
    medians = pd.Series(values).groupby(kept_batches).median()
    row["odd_batches"] = ", ".join(str(b) for b in odd_batches(medians.to_numpy(), medians.index, alpha=odd_alpha))
    row["pt4cloud_stable"], row["pt4cloud_quarters"] = math.nan, math.nan
    if "timestamp" in series.columns and bool(series["timestamp"].notna().all()) and series["timestamp"].nunique() > 1:
        ordered = series.sort_values("timestamp", kind="stable")["value"].to_numpy(dtype=float)
        try:
            result = pt4cloud(ordered, intervals=ordered.size // 4, band=False, rng=streams[2])
            row["pt4cloud_stable"], row["pt4cloud_quarters"] = bool(result.stopped), result.intervals_used
        except ValueError as error:
            notes.append(f"PT4Cloud: {error}")
    row["notes"] = "; ".join(notes)
    return row


def _confirm_reading(row) -> tuple[str, int]:
    """What CONFIRM's columns of a table row can say, and the repetitions it counted (batches or values):
    ``"constant"`` (every value the same, as Go's 16 B/op: no number of repetitions changes it), ``"too few"``
    (the batch is the independent unit and CONFIRM needs 10 of them: counting values, or saying "more than
    6" of a 6-batch run, would promise what only more batches can tell) or ``"counted"``. The card and the
    advice both read a row through this."""
    have = row.batches if row.confirm_unit == "batch" else row.n
    if row.cov == 0:
        return "constant", have
    if (row.confirm_unit == "value" and 1 < row.batches < row.n) or have < 10:
        return "too few", have
    return "counted", have


def _names(rows: pd.DataFrame, versions: int) -> str:
    labels = [f"{r.benchmark}" + (f" ({r.version})" if versions > 1 else "") for r in each_row(rows)]
    return ", ".join(labels[:6]) + (f" and {len(labels) - 6} more" if len(labels) > 6 else "")


def _advice(table: pd.DataFrame, comparison: Comparison | None, cluster: str) -> list[str]:
    """Plain sentences, one per kind of problem, naming the series that have it."""
    versions = int(as_column(table["version"]).nunique())
    advice = []
    if comparison is not None:
        for row in each_row(comparison.table):
            if row.verdict in ("faster", "slower"):
                advice.append(
                    f"{row.benchmark}: B is {row.verdict} than A by {100 * abs(row.change):.1f}% "
                    f"(interval {100 * row.low:+.1f}% to {100 * row.high:+.1f}%)."
                )
    for k, rows in as_table(table[table["warmup_iterations"] > 0]).groupby("warmup_iterations"):
        advice.append(f"Drop the first {k} iterations of every {cluster} of {_names(rows, versions)}.")
    for row in each_row(as_table(table[table["odd_batches"] != ""])):
        which = f"{row.benchmark}" + (f" ({row.version})" if versions > 1 else "")
        advice.append(f"{cluster.capitalize()} {row.odd_batches} of {which} is unlike the others; look at it.")
    correlated = as_table(table[table["independence_reject"].astype(bool) & (table["se_inflation"] > 1.2)])
    if len(correlated):
        advice.append(
            f"Values are correlated in {_names(correlated, versions)}: the naive interval of the mean is up to "
            f"{correlated['se_inflation'].max():.1f}x too narrow; use the corrected one, or whole {plural(cluster)}."
        )
    moving = as_table(table[~table["adf_reject"].astype(bool)])
    if len(moving):
        advice.append(
            f"{_names(moving, versions)}: the values drift during the run, so the mean depends on when the run "
            "stops (not stationary by the ADF test)."
        )
    short, few = [], []
    for row in each_row(table):
        which = f"{row.benchmark}" + (f" ({row.version})" if versions > 1 else "")
        reading, have = _confirm_reading(row)
        if reading == "constant":
            continue
        if reading == "too few":
            few.append((which, row.batches))
            continue
        need = row.confirm_1pct
        if isinstance(need, float) and math.isnan(need):
            short.append(f"{which}: more than {have}")
        elif need > have:
            short.append(f"{which}: {int(need) - have} more")
    if short:
        unit = f"{plural(cluster)}" if bool((table["confirm_unit"] == "batch").all()) else "repetitions"
        advice.append(f"For ±1% on the median, run more {unit} (CONFIRM): " + "; ".join(short[:6]) + ".")
    if few:
        counts = sorted({n for _, n in few})
        have = " or ".join(map(str, counts))
        names = ", ".join(w for w, _ in few[:6]) + (f" and {len(few) - 6} more" if len(few) > 6 else "")
        advice.append(
            f"Run at least 10 {plural(cluster)} of {names}: with {have} there are too few to say how many are needed "
            "for ±1% on the median (CONFIRM)."
        )
    unstable = as_table(table[table["pt4cloud_stable"].astype(object) == False])  # noqa: E712 - NaN means not tested
    if len(unstable):
        advice.append(f"{_names(unstable, versions)}: the distribution was still changing at the end (PT4Cloud).")
    if comparison is not None:
        for row in each_row(comparison.table):
            if row.verdict == "inconclusive":
                advice.append(
                    f"{row.benchmark}: the comparison is inconclusive ({'; '.join(row.notes) or 'a wide interval'})."
                )
    return advice or ["Nothing to fix: no warm-up left, no odd batch, and enough repetitions for +-1%."]


@dataclass(frozen=True)
class AnalyzeSettings(Spelled, Result):
    """What an analysis reads and how it tests and compares, checked once when built.

    Parameters
    ----------
    by : str
        The column that tells versions apart, if any (absent: one version).
    cluster : str, optional
        The column of the unit that carries the dependence (a process, a fork). By default ``batch`` where the frame
        has it; without one, every value is its own batch, and the advice says so. A name that is not a column is
        refused: a misspelt cluster would make every value its own cluster and overstate every comparison.
    confidence : float or str
        Of every interval (the table of defaults' ``analyze`` row).
    alpha : float
        Size of every test.
    threshold : float or str
        For the comparison and the advice (the table of defaults' ``analyze`` row, 2%).
    permutations : int
        Of the independence and MMD tests.
    replicates : int
        Of the comparison's bootstrap.
    baseline, block, sequential, statistic
        For the comparison, as :func:`perfstudy.comparison.compare` takes them: which version is A (default: the
        first in sorted order), the column whose blocks pair the versions (``"round"`` for a run's file), the
        anytime-valid rule of a run that looked after every round (``"sign"`` or ``"t"``), and each batch's
        statistic (a run's file gives all four: :attr:`perfstudy.experiment.RunFile.pairing`).
    spelling : {"python", "cli"}
        How errors name a setting.

    Attributes
    ----------
    by, cluster, baseline, block, sequential, statistic, replicates, spelling
        As given, checked (``cluster`` None: ``batch``, or every value its own batch).
    confidence, alpha, threshold : float
        As fractions.
    permutations : int
    comparing : CompareSettings
        The comparison's settings, checked whether or not the data hold two versions to compare.
    """

    by: str = "version"
    cluster: str | None = None
    confidence: Any = field(default_factory=lambda: default("analyze", "confidence"))
    alpha: float = 0.05
    threshold: Any = field(default_factory=lambda: default("analyze", "threshold"))
    permutations: int = 200
    replicates: int = field(default_factory=lambda: default("compare", "replicates"))
    baseline: Any = None
    block: str | None = None
    sequential: Any = False
    statistic: str = "mean"
    spelling: Literal["python", "cli"] = field(default="python", compare=False, repr=False)
    comparing: CompareSettings = field(init=False, compare=False, repr=False)

    #: ``perfstudy analyze`` has --threshold of these; the others have no option, and keep their name there too
    OPTIONS: ClassVar[Mapping[str, str]] = MappingProxyType(
        {name: name for name in ("by", "cluster", "confidence", "alpha", "permutations", "replicates", "baseline")}
        | {name: name for name in ("block", "sequential", "statistic")}
        | {"threshold": "--threshold"}
    )
    KIND: ClassVar[str] = "analysis's setting"

    def __post_init__(self) -> None:
        if self.spelling not in ("python", "cli"):
            raise ValueError(f"spelling={self.spelling!r}: expected 'python' or 'cli'")
        if not isinstance(self.by, str):
            raise TypeError(f"{said(self.option('by'), self.by)}: expected a column name")
        comparing = CompareSettings(
            by=self.by,
            cluster="batch" if self.cluster is None else self.cluster,
            confidence=self.confidence,
            threshold=self.threshold,
            replicates=self.replicates,
            baseline=self.baseline,
            block=self.block,
            sequential=self.sequential,
            statistic=self.statistic,  # pyright: ignore[reportArgumentType]
            spelling=self.spelling,
        )
        set_ = object.__setattr__
        set_(self, "comparing", comparing)
        set_(self, "confidence", comparing.confidence)
        set_(self, "threshold", comparing.threshold)
        set_(self, "alpha", check_fraction(self.option("alpha"), self.alpha))
        set_(self, "permutations", check_resamples(self.option("permutations"), self.permutations, minimum=19))


def analyze(
    df: pd.DataFrame,
    *,
    settings: AnalyzeSettings | None = None,
    rng: Seed = None,
    progress: bool = False,
    **keywords,
) -> Analysis:
    """Every diagnostic per benchmark (and version), a comparison when there are two versions,
    and advice (see the module docstring for what is computed and how).

    Parameters
    ----------
    df : DataFrame
        Tidy measurements as the readers of :mod:`perfstudy.io` return them: ``value``, and where
        known ``benchmark``, ``batch``, ``iteration``, ``warmup``, ``timestamp``, ``unit``.
    settings : AnalyzeSettings, optional
        The columns, the levels of the intervals and tests, the threshold, the resamples and the comparison's
        pairing (:class:`AnalyzeSettings`).
    rng : None, int, SeedSequence or Generator
    progress : bool
        A progress bar over the series.
    **keywords
        A convenience: the settings as keywords (``threshold=0.05, permutations=99``), built into an
        :class:`AnalyzeSettings`; not with ``settings``.

    Returns
    -------
    Analysis
    """
    from tqdm.auto import tqdm

    check_frame("df", df, numeric=("value",))
    s = AnalyzeSettings.one_source(settings, keywords)
    by, cluster, comparing = s.by, s.cluster, s.comparing
    if cluster is not None:
        check_column("cluster", cluster, df)
    unclustered = cluster is None and "batch" not in df.columns
    cluster = comparing.cluster
    confidence, threshold, alpha, permutations = s.confidence, s.threshold, s.alpha, s.permutations
    progress = check_bool("progress", progress)
    frame = df.copy()
    if "benchmark" not in frame.columns:
        frame["benchmark"] = "benchmark"
    if by not in frame.columns:
        frame[by] = 0
    if cluster not in frame.columns:
        frame[cluster] = np.arange(len(frame))
    missing = frame["value"].isna()
    if missing.any():
        names = sorted(frame.loc[missing, "benchmark"].astype(str).unique())
        raise ValueError(f"value: {int(missing.sum())} missing value(s) in {names[:5]}; drop or fix them first")
    unnamed = int(frame["benchmark"].isna().sum())
    if unnamed:
        raise ValueError(f"benchmark: {unnamed} row(s) with no benchmark label; drop or label them first")
    flagged = frame["warmup"].astype(bool) if "warmup" in frame.columns else pd.Series(False, index=frame.index)
    kept = frame[~flagged]
    groups = list(kept.groupby([by, "benchmark"], sort=False))
    streams = np.random.default_rng(rng).spawn(len(groups) + 1)
    rows = []
    for ((version, benchmark), series), stream in zip(tqdm(groups, disable=not progress), streams):
        row: dict[str, Any] = dict(version=version, benchmark=benchmark)
        row.update(
            _one(
                _ordered(series, cluster),
                cluster=cluster,
                confidence=confidence,
                levels=dict(
                    alpha=alpha,
                    odd=alpha / len(groups),
                    warmup=(1 - confidence) / pd.Series(kept["benchmark"]).nunique(),  # as compare() checks it
                ),
                threshold=threshold,
                permutations=permutations,
                rng=stream,
            )
        )
        rows.append(row)
    table = pd.DataFrame(rows)
    comparison = None
    if frame[by].nunique() == 2:
        comparison = compare(frame, settings=comparing, rng=streams[-1])
    advice = _advice(table, comparison, cluster)
    if unclustered:
        advice = [a for a in advice if not a.startswith("Nothing to fix")]
        advice.insert(
            0,
            "The data name no batches (no 'batch' column, and no cluster= given): every value was taken as "
            "its own batch, which overstates every interval if values share a process; name the column that "
            "says which process or fork each value came from.",
        )
    units = {str(name): unit for name, unit in one_value_each(as_table(kept), "unit").items()}
    return Analysis(
        table=table,
        advice=tuple(advice),
        comparison=comparison,
        confidence=confidence,
        units=MappingProxyType(units),
        cluster=cluster,
    )


#: what :func:`demo_runs` plants: B's slowdown of ``json_dumps``, the warm-up iterations of ``regex`` and
#: their excess, the slow process of ``startup`` in A and its excess
DEMO_PROBLEMS = {
    "json_dumps_slowdown": 0.03,
    "regex_warmup": 4,
    "regex_warmup_excess": 0.25,
    "startup_slow_process": 7,
    "startup_slow_excess": 0.30,
}


def demo_runs(*, processes: int = 20, values: int = 30, rng: Seed = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two simulated pyperf-like runs (version A, version B) with known problems, for the template
    notebook when it is given no files: ``json_dumps`` is 3% slower in B; ``regex`` has 4 warm-up
    iterations in every process; process 7 of ``startup`` in A is 30% slower.

    Parameters
    ----------
    processes, values : int
        Processes (batches) per benchmark and version, values per process.
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    (DataFrame, DataFrame)
        Tidy frames as :func:`perfstudy.io.read_pyperf` returns them (``benchmark``, ``batch``,
        ``iteration``, ``warmup``, ``value``, ``unit``).
    """
    processes = check_int("processes", processes, minimum=2)
    values = check_int("values", values, minimum=2)
    larger = ("processes", processes) if processes >= values else ("values", values)
    check_allocation(*larger, 2 * 80.0 * processes * values, what="the two demo frames")
    rng = np.random.default_rng(rng)
    frames = []
    for version in (0, 1):
        parts = []
        for benchmark, level in (("json_dumps", 12e-6), ("regex", 40e-6), ("startup", 8e-3)):
            batch = np.repeat(np.arange(processes), values)
            iteration = np.tile(np.arange(values), processes)
            effect = rng.normal(0, 0.01, processes)[batch]
            value = level * np.exp(effect + rng.normal(0, 0.01, batch.size))
            if benchmark == "json_dumps" and version == 1:
                value *= 1 + DEMO_PROBLEMS["json_dumps_slowdown"]
            if benchmark == "regex":
                value *= np.where(
                    iteration < DEMO_PROBLEMS["regex_warmup"], 1 + DEMO_PROBLEMS["regex_warmup_excess"], 1.0
                )
            if benchmark == "startup" and version == 0:
                value *= np.where(
                    batch == DEMO_PROBLEMS["startup_slow_process"], 1 + DEMO_PROBLEMS["startup_slow_excess"], 1.0
                )
            parts.append(
                pd.DataFrame(
                    dict(benchmark=benchmark, batch=batch, iteration=iteration, warmup=False, value=value, unit="s")
                )
            )
        frames.append(pd.concat(parts, ignore_index=True))
    return frames[0], frames[1]
