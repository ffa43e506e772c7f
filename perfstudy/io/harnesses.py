"""The harnesses whose files perfstudy reads, one record each, in one registry (:data:`HARNESSES`).

A :class:`Harness` says how its files are told apart (the shape of its JSON, or its kind of file), which parse gives
its measurements (:class:`perfstudy.io.columns.FileColumns`, of which :func:`perfstudy.io.read`'s DataFrame is a
view), whether ``perfstudy run --measure`` can read a command's output in it, and what the README says of it.
:func:`perfstudy.io.file_columns`, :func:`perfstudy.io.read`, :func:`perfstudy.io.detect_format`, ``run --measure``
and the README's table read these records; nothing else lists the formats.

Adding a format is a record here, its name in :data:`Format` (the signatures' Literal, held to the registry by
test), its reader and its tests. No pandas and no reader is imported here: the readers are named, and imported when
a file is read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from perfstudy._lib.result import Result

__all__ = [
    "Harness",
    "HARNESSES",
    "Format",
    "FORMATS",
    "MEASURED_FORMATS",
    "harness",
    "harness_metrics",
    "check_metric_name",
    "refuse_chosen_metric",
]


def _first(items) -> dict | None:
    return items[0] if isinstance(items, list) and items and isinstance(items[0], dict) else None


@dataclass(frozen=True)
class Harness(Result):
    """One harness's files.

    Attributes
    ----------
    name : str
        The format's name (``read(format=)``, ``--input-format``).
    writes : str
        The file, as the README's table says it: which command or option writes it.
    batch : str
        What counts as a batch of its values, as the README's table says it.
    reader : str
        ``"module:function"`` of its parse into :class:`perfstudy.io.columns.FileColumns` (whose ``to_frame()``
        is what :func:`perfstudy.io.read` gives), called with the parsed JSON (or the path, see ``by_path``) and
        ``dropna=``.
    kind : {"json", "text", "table", "directory"}
        What its files are.
    shape : callable or None
        For a JSON harness: whether parsed JSON is this harness's (detection: a file must match exactly one).
    by_path : bool
        The reader takes the path, not the parsed JSON (criterion reads the files beside its ``sample.json``).
    measured : bool
        ``perfstudy run --measure`` reads a command's standard output in this format.
    metrics : tuple of str
        The metrics its files carry per measurement, as the harness names them, the default first; the reader takes
        the chosen one as ``metric=`` (``--metric`` of compare, run, history and bisect). Empty: one metric.
    other_metrics : str
        Besides ``metrics``, what else names a metric (JMH: any secondary metric's name), as the help says it.
    metric_note : str
        Why a metric that users look for in its files is not there, and what measures it.
    """

    name: str
    writes: str
    batch: str
    reader: str
    kind: Literal["json", "text", "table", "directory"] = "json"
    shape: Callable[[Any], bool] | None = None
    by_path: bool = False
    measured: bool = False
    metrics: tuple[str, ...] = ()
    other_metrics: str = ""
    metric_note: str = ""

    def measure(self, source, *, dropna: bool = False, metric: str | None = None):
        """Its file's measurements as :class:`perfstudy.io.columns.FileColumns`, by its reader (``source``: a
        path, or the parsed JSON; see ``by_path``).

        Parameters
        ----------
        source : path or parsed JSON
        dropna : bool
        metric : str, optional
            One of its metrics (:meth:`check_metric`); None, its default.
        """
        chosen = self.check_metric(metric)
        options = {} if chosen is None else {"metric": chosen}
        return _function(self.reader)(source, dropna=dropna, **options)

    def check_metric(self, metric: str | None, option: str = "metric") -> str | None:
        """``metric`` if its files carry it (None for the default), else a ValueError that lists what they carry.

        Parameters
        ----------
        metric : str or None
        option : str
            The setting as the user writes it (``metric``, ``--metric``), for the message.
        """
        from perfstudy._lib.checks import said

        if check_metric_name(option, metric) is None or (self.metrics and metric == self.metrics[0]):
            return None
        if metric in self.metrics or self.other_metrics:
            return metric
        note = f"; {self.metric_note}" if self.metric_note else ""
        if not self.metrics:
            raise ValueError(
                f"{said(option, metric)}: a {self.name} file has one metric per benchmark, so there is none to choose; "
                f"leave it out{note}"
            )
        also = f", or {self.other_metrics}" if self.other_metrics else ""
        raise ValueError(
            f"{said(option, metric)}: a {self.name} file's metrics are {', '.join(self.metrics)} (the first is the "
            f"default){also}{note}"
        )


def _function(where: str):
    module, name = where.split(":")
    return getattr(importlib.import_module(module), name)


#: every harness, by name, in the order of :data:`FORMATS`
HARNESSES: dict[str, Harness] = {
    h.name: h
    for h in (
        Harness(
            "pyperf",
            "`pyperf ... -o file.json` (also `.json.gz`)",
            "a worker process",
            "perfstudy.io._rows:_pyperf_columns",
            shape=lambda d: (
                isinstance(d, dict)
                and isinstance(d.get("benchmarks"), list)
                and "runs" in (_first(d["benchmarks"]) or {"runs": None})
            ),
            measured=True,
        ),
        Harness(
            "hyperfine",
            "`hyperfine --export-json`",
            "a run (each is a fresh process)",
            "perfstudy.io._rows:_hyperfine_columns",
            shape=lambda d: (
                isinstance(d, dict)
                and isinstance(d.get("results"), list)
                and "command" in (_first(d["results"]) or {"command": None})
            ),
            measured=True,
            metrics=("wall", "rss"),
            metric_note="hyperfine writes user and system CPU time only as each command's mean, not per run, so "
            "they have no interval: `perfstudy run --metric cpu` measures each run's",
        ),
        Harness(
            "google_benchmark",
            "`--benchmark_format=json` / `--benchmark_out`",
            "a repetition (`--benchmark_repetitions`)",
            "perfstudy.io._rows:_google_benchmark_columns",
            shape=lambda d: (
                isinstance(d, dict) and isinstance(d.get("benchmarks"), list) and isinstance(d.get("context"), dict)
            ),
            measured=True,
            metrics=("real_time", "cpu_time"),
        ),
        Harness(
            "jmh",
            "`-rf json`",
            "a fork",
            "perfstudy.io._rows:_jmh_columns",
            shape=lambda d: isinstance(d, list) and "primaryMetric" in (_first(d) or {}),
            measured=True,
            metrics=("primary",),
            other_metrics="any secondary metric's name, as secondaryMetrics keys it (·gc.alloc.rate.norm)",
        ),
        Harness(
            "go",
            "`go test -bench . -count N` output; configuration lines (`goos:`, `pkg:`, `note:` ...) become columns, "
            "`Unit ... assume=exact better=higher` lines are honoured, each further metric on a line (`B/op`, "
            "`allocs/op`, `MB/s`) is a benchmark of its own",
            "each result line (one run of the benchmark function)",
            "perfstudy.io.go:_go_file_columns",
            kind="text",
            by_path=True,
            measured=True,
            metric_note="each metric of a result line (ns/op, B/op, allocs/op, MB/s) is already a benchmark of its own",
        ),
        Harness(
            "criterion",
            "`target/criterion` (every `*/new/sample.json`), one `sample.json`, or `raw.csv`",
            "a sample (all samples share one process)",
            "perfstudy.io.criterion:_criterion_columns",
            kind="directory",
            shape=lambda d: (
                isinstance(d, dict) and isinstance(d.get("iters"), list) and isinstance(d.get("times"), list)
            ),
            by_path=True,
            measured=True,
        ),
        Harness(
            "pytest_benchmark",
            "`--benchmark-json`, or `--benchmark-save` with `--benchmark-save-data`",
            "a round (all rounds share one process)",
            "perfstudy.io.pytest_benchmark:_pytest_benchmark_columns",
            shape=lambda d: (
                isinstance(d, dict)
                and isinstance(d.get("benchmarks"), list)
                and "machine_info" in d
                and "stats" in (_first(d["benchmarks"]) or {"stats": None})
            ),
            measured=True,
        ),
        Harness(
            "asv",
            "`asv run --record-samples` result files",
            "a sample (asv does not record which of its processes took it)",
            "perfstudy.io.asv:_asv_columns",
            shape=lambda d: isinstance(d, dict) and isinstance(d.get("results"), dict) and "commit_hash" in d,
            measured=True,
        ),
        Harness(
            "benchmarkdotnet",
            "the full JSON export (`*-report-full.json`)",
            "a launch (`LaunchIndex`, a process); warm-up iterations are flagged and left out",
            "perfstudy.io.benchmarkdotnet:_benchmarkdotnet_columns",
            shape=lambda d: isinstance(d, dict) and isinstance(d.get("Benchmarks"), list),
        ),
        Harness(
            "csv",
            "a tidy table with `value` (and `benchmark`, `batch`, `unit`, ...)",
            "the `batch` column (`--cluster` names another)",
            "perfstudy.io._read:_csv_table_columns",
            kind="table",
            by_path=True,
        ),
        Harness(
            "parquet",
            "a tidy table with `value` (and `benchmark`, `batch`, `unit`, ...)",
            "the `batch` column (`--cluster` names another)",
            "perfstudy.io._read:_parquet_table_columns",
            kind="table",
            by_path=True,
        ),
    )
}

#: what :func:`perfstudy.io.read` accepts for ``format``; "auto" detects it from the content
Format = Literal[
    "auto",
    "pyperf",
    "hyperfine",
    "google_benchmark",
    "jmh",
    "go",
    "criterion",
    "pytest_benchmark",
    "asv",
    "benchmarkdotnet",
    "csv",
    "parquet",
]
FORMATS: tuple[str, ...] = get_args(Format)
#: the formats ``perfstudy run --measure`` reads a command's output in
MEASURED_FORMATS: tuple[str, ...] = tuple(h.name for h in HARNESSES.values() if h.measured)


def harness(name: str) -> Harness:
    """The harness called ``name`` (a key of :data:`HARNESSES`).

    Parameters
    ----------
    name : str
    """
    from perfstudy._lib.checks import check_choice

    return HARNESSES[check_choice("name", name, tuple(HARNESSES))]


def harness_metrics() -> str:
    """The harnesses whose files carry several metrics, and their metrics, as ``--help`` says them (``%`` doubled
    for argparse)."""
    listed = "; ".join(
        f"{h.name}: {' or '.join(h.metrics)}" + (f" or {h.other_metrics}" if h.other_metrics else "")
        for h in HARNESSES.values()
        if h.metrics
    )
    return f"the first of each is its default; {listed}".replace("%", "%%")


def check_metric_name(option: str, metric) -> str | None:
    """``metric`` if it is None or a metric's name (text that is not blank); a TypeError naming ``option`` otherwise.

    Parameters
    ----------
    option : str
        The setting as the user writes it (``metric``, ``--metric``).
    metric : str or None
    """
    from perfstudy._lib.checks import said

    if metric is not None and (not isinstance(metric, str) or not metric.strip()):
        raise TypeError(f"{said(option, metric)}: expected a harness's metric's name, or None")
    return metric


def refuse_chosen_metric(option: str, metric, what: str) -> None:
    """A harness's metric is chosen as its files are read: a ValueError naming ``option`` where ``metric`` is given
    for ``what``, whose values were chosen already (a frame, a tidy file, a run's file); nothing for None.

    Parameters
    ----------
    option : str
        The setting as the user writes it (``metric``, ``--metric``).
    metric : str or None
    what : str
        What was given instead of a harness's files, as the message says it.
    """
    from perfstudy._lib.checks import said

    if metric is not None:
        raise ValueError(
            f"{said(option, metric)}: a harness's metric is chosen as its files are read; {what} holds its values "
            "already, so leave it out"
        )
