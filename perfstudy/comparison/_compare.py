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
  with 5, against 2.8% and 4.6% for a t; ``tests/comparison/test_compare.py``).
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

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

import numpy as np
import pandas as pd

from perfstudy._lib.checks import check_allocation, check_column, check_executor, said
from perfstudy._lib.result import Result
from perfstudy._lib.types import Executor, Seed
from perfstudy._lib.units import higher_is_better
from perfstudy.comparison._batch_checks import odd_batches
from perfstudy.comparison._intervals import (
    CORRECTIONS,
    MIN_BOOTSTRAP_CLUSTERS,
    SCALES,
    STATISTICS,
    VERDICTS,
    adjust_p_values,
)
from perfstudy.comparison._render import Report, _html, render
from perfstudy.comparison._suite import verdict
from perfstudy.comparison.running import RuleName
from perfstudy.comparison.settings import CompareSettings
from perfstudy.io.harnesses import refuse_chosen_metric

__all__ = [
    "STATISTICS",
    "CORRECTIONS",
    "VERDICTS",
    "SCALES",
    "MIN_BOOTSTRAP_CLUSTERS",
    "Comparison",
    "compare",
    "verdict",
    "adjust_p_values",
    "higher_is_better",
    "format_comparison",
    "odd_batches",
]


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
        ``higher_is_better``, ``verdict`` (one of :data:`VERDICTS`) and ``notes`` (the warnings and
        notes on the benchmark, a tuple of one sentence each).
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
        return _html(_report_of(self))

    def report(self) -> Report:
        """What the comparison shows, as a :class:`Report` (rows and settings, no DataFrame)."""
        return _report_of(self)

    @property
    def regressions(self) -> pd.DataFrame:
        """The rows whose verdict is ``"slower"``."""
        return self.table[self.table["verdict"] == "slower"].copy()


def _versions(frame: pd.DataFrame, s: CompareSettings):
    """Version A's and B's values of the ``by`` column: ``baseline``, else a stated rule (module docstring)."""
    by, baseline = s.by, s.baseline
    values = list(dict.fromkeys(frame[by].tolist()))
    if len(values) != 2:
        raise ValueError(
            f"{said(s.option('by'), by)}: expected exactly two versions to compare, found {len(values)}: {values[:5]}"
        )
    if baseline is None:  # a stated rule, never the order of the rows alone: 0 before 1, "A" before "B"
        try:
            baseline = sorted(values)[0]
        except TypeError:
            baseline = sorted(values, key=str)[0]
        vocabulary = {frozenset({"A", "B"}), frozenset({0, 1})}  # the project's own names: A and 0 are the baseline
        if baseline != values[0] and frozenset(values) not in vocabulary:  # rows and sorted order disagree
            raise ValueError(
                f"{said(s.option('by'), by)}: which version is A, the baseline? {values[0]!r} comes first in the rows "
                f"and {baseline!r} in sorted order; name it: {said(s.option('baseline'), values[0])}"
            )
    if baseline not in values:
        raise ValueError(f"{said(s.option('baseline'), baseline)}: not a value of {by!r} ({values})")
    candidate = values[1] if values[0] == baseline else values[0]
    return baseline, candidate


def compare(
    df: pd.DataFrame,
    *,
    by: str = "version",
    value: str = "value",
    cluster: str = "batch",
    statistic: Literal["mean", "median", "min"] = "mean",
    confidence: float = 0.95,
    threshold: float | str = 0.0,
    correction: Literal["holm", "bh", "none"] = "holm",
    replicates: int = 2000,
    baseline=None,
    dropna: bool = False,
    checks: bool = True,
    block: str | None = None,
    sequential: bool | RuleName = False,
    trust_one_process: bool = False,
    rng: Seed = None,
    executor: Executor = None,
    progress: bool = False,
    settings: CompareSettings | None = None,
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
    statistic : {"mean", "median", "min"}
        What is compared: the mean of all values of a version, or their median; with ``block``, each
        block's statistic, which may also be the minimum.
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
        Run the per-benchmark diagnostics behind the ``notes``: warm-up left in the data, batch
        results that drift with batch order, a batch unlike the others (:func:`odd_batches`),
        fewer batches than CONFIRM needs to pin the median to ``+-threshold``. Each test has size
        ``(1 - confidence) / B`` over ``B`` benchmarks (Bonferroni), so that a clean report of many
        benchmarks is not littered with false warnings.
    block : str, optional
        A column of blocks (``round``) in which both versions ran under the same conditions, as
        :func:`perfstudy.experiment._run.run` writes: the comparison is then paired, on each block's ``B/A``
        (:mod:`perfstudy.comparison._paired`), ``clusters_a`` and ``clusters_b`` count the paired blocks and
        ``cluster`` is not resampled. With a ``host`` column, the host and round variances are split.
    sequential : bool or {"t", "sign"}
        With ``block``: the anytime-valid interval of a run that looked after every block and stopped when it
        knew (a fixed-level interval would be too narrow). ``"t"`` (or True) is Lai's sequence for the mean of
        the blocks' log-ratios (:mod:`perfstudy.comparison.sequential`), ``"sign"`` the sign sequence for their
        median (:mod:`perfstudy.comparison.sign_sequence`), which a heavy-tailed, contended machine does not
        mislead; a run's file says which it stopped by (:attr:`perfstudy.experiment.RunFile.pairing`).
    trust_one_process : bool
        Where a ``process`` column says that all of a side's values came from one process (pytest-benchmark's and
        criterion's rounds, as their readers write it), the interval covers only the noise within that process:
        one process a side cannot tell a version from the state of its process (its memory layout, its warm
        caches, the load while it ran). Such a benchmark's verdict is "inconclusive", with a note, unless this is
        True; the note stays either way.
    rng : None, int, SeedSequence or Generator
        Draws the bootstrap (one stream per benchmark, so the result does not depend on
        ``executor``).
    executor : concurrent.futures.Executor, optional
        Spreads the benchmarks over workers (a process pool, a Dask client's executor).
    progress : bool
        A progress bar over the benchmarks.
    settings : CompareSettings, optional
        The settings from ``by`` to ``sequential`` as one object, checked when it was built
        (:class:`perfstudy.comparison.CompareSettings`): given, the keywords keep their defaults (both is refused).
        The keywords from ``by`` to ``sequential`` are a convenience that builds the CompareSettings.

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
    keywords = dict(
        by=by,
        value=value,
        cluster=cluster,
        statistic=statistic,
        confidence=confidence,
        threshold=threshold,
        correction=correction,
        replicates=replicates,
        baseline=baseline,
        dropna=dropna,
        checks=checks,
        block=block,
        sequential=sequential,
        trust_one_process=trust_one_process,
    )
    s = CompareSettings.one_source(settings, keywords, defaults=True)
    refuse_chosen_metric(s.option("metric"), s.metric, "a frame (its value column; read(path, metric=...) chooses it)")
    check_executor(executor)
    by, value, cluster, block = s.by, s.value, s.cluster, s.block
    for name in ("by", "value", "cluster") + (("block",) if block else ()):
        check_column(s.option(name), getattr(s, name), df, "the file" if s.spelling == "cli" else "df")
    missing_blocks = int(np.asarray(df[block].isna()).sum()) if block else 0
    if missing_blocks:
        raise ValueError(f"{s.option('block')}: {missing_blocks} rows have no {block!r}; every value needs its block")
    if df.empty:
        raise ValueError("df: no rows")
    clusters = pd.Series(df[cluster]).nunique()
    check_allocation(s.option("replicates"), s.replicates, 8.0 * s.replicates * (4 + 2 * clusters))
    frame, dropped = _clean(df, s)
    a_label, b_label = _versions(frame, s)
    from perfstudy.comparison._files import compared, laid_out
    from perfstudy.io import FileColumns

    sides = [FileColumns.from_frame(frame[np.asarray(frame[by] == label, dtype=bool)]) for label in (a_label, b_label)]
    laid = laid_out(sides[0], sides[1], (a_label, b_label), s)
    table = pd.DataFrame(compared(laid, s, rng=rng, executor=executor, progress=progress))
    return Comparison(
        table=table,
        statistic=s.statistic,
        confidence=s.confidence,
        threshold=s.threshold,
        correction=s.correction,
        replicates=s.replicates,
        cluster=block or cluster,
        only_a=laid.only_a,
        only_b=laid.only_b,
        dropped=dropped,
        warmup_dropped=laid.warmups,
        labels=MappingProxyType({"a": a_label, "b": b_label}),
        units=MappingProxyType(laid.units),
        excluded=MappingProxyType(laid.excluded),
    )


def _clean(df: pd.DataFrame, s: CompareSettings) -> tuple[pd.DataFrame, int]:
    """The rows that can be compared, and how many were dropped for a missing value, cluster, version or
    benchmark label (refused, naming them, without ``dropna``); infinite values are refused."""
    by, value, cluster = s.by, s.value, s.cluster
    frame = df if "benchmark" in df.columns else df.assign(benchmark="benchmark")
    frame = frame.copy(deep=False)
    frame.attrs = {}  # pandas deep-copies attrs (a reader's metadata) on every slice below
    if not pd.api.types.is_numeric_dtype(frame[value]):
        raise TypeError(f"{_values(s)}: expected numbers, got dtype {frame[value].dtype}")
    missing = frame[value].isna() | frame[cluster].isna() | frame[by].isna() | frame["benchmark"].isna()
    dropped = int(missing.sum())
    if dropped and not s.dropna:
        parts = [
            f"{int(frame[column].isna().sum())} {what}"
            for column, what in ((value, "value"), (cluster, cluster), (by, by), ("benchmark", "benchmark label"))
            if frame[column].isna().any()
        ]
        named = frame.loc[missing, "benchmark"].dropna().astype(str).unique()
        where = f" in {sorted(named)[:5]}{' ...' if len(named) > 5 else ''}" if len(named) else ""
        raise ValueError(
            f"{_values(s)}: {dropped} row(s) with a missing {', '.join(parts)}{where}; drop them "
            f"with {s.advice('dropna')}"
        )
    frame = frame[~missing]
    infinite = ~np.isfinite(frame[value].to_numpy(dtype=float))
    if infinite.any():
        names = sorted(frame.loc[infinite, "benchmark"].astype(str).unique())
        raise ValueError(f"{_values(s)}: {int(infinite.sum())} value(s) not finite in {names[:5]}")
    return frame, dropped


def _values(s: CompareSettings) -> str:
    """The value column as a message names it: ``value='value'`` in the library, "the files' values" on the command
    line, which reads its values from files and has no option for the column."""
    return "the files' values" if s.spelling == "cli" else said(s.option("value"), s.value)


def _report_of(result: Comparison) -> Report:
    return Report(
        rows=tuple(result.table.to_dict("records")),
        statistic=result.statistic,
        confidence=result.confidence,
        threshold=result.threshold,
        correction=result.correction,
        cluster=result.cluster,
        labels=result.labels,
        units=result.units,
        excluded=result.excluded,
        only_a=result.only_a,
        only_b=result.only_b,
        dropped=result.dropped,
        warmup_dropped=result.warmup_dropped,
    )


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
    if format not in ("table", "markdown", "json"):
        raise ValueError(f"format={format!r}: expected 'table', 'markdown' or 'json'")
    return render(_report_of(result), format)
