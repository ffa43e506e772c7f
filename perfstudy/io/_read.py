"""Readers for the files that benchmark harnesses write, into perfstudy's tidy schema.

Every reader returns one row per measured value with the columns

``benchmark``
    The tool's name for the benchmark (with its parameters, where the tool has them).
``host``, ``timestamp``
    Where and when, if the file says (else missing).
``batch``
    The unit that is re-initialised between groups of values: the *process* for pyperf and
    hyperfine, the *fork* for JMH, the *repetition* for Google Benchmark. Values within a batch share
    its start-up state, which is why the clustered bootstrap resamples batches, not values.
``iteration``
    Position within the batch, warm-ups first.
``warmup``
    True for warm-up values. They are flagged, never dropped: filter with ``df[~df.warmup]``.
``value``, ``unit``
    As the tool wrote them (a per-operation mean over the tool's inner loop where it has one).

What each tool writes differs; the reader's docstring says what is and what is not in its file
(hyperfine, JMH and Google Benchmark do not record their warm-up runs in their JSON, so
``warmup`` is all False there). Settings that are not per-row (JMH's warm-up iterations, the
context block of Google Benchmark, ...) are kept in ``DataFrame.attrs``.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd

from perfstudy._lib.checks import check_bool, check_choice
from perfstudy._lib.csv_end import check_csv_end
from perfstudy.io._json import MalformedFileError
from perfstudy.io._rows import _google_benchmark_columns, _hyperfine_columns, _jmh_columns, _pyperf_columns
from perfstudy.io._values import left_out, not_finite
from perfstudy.io.columns import COLUMNS, FileColumns, _check_signs
from perfstudy.io.harnesses import Format

__all__ = [
    "COLUMNS",
    "read",
    "read_pyperf",
    "read_hyperfine",
    "read_google_benchmark",
    "read_jmh",
]


def _finite_values(frame: pd.DataFrame, dropna: bool, where: str = "source") -> pd.DataFrame:
    """A tidy table's rows whose ``value`` is a finite number. Others (null, NaN, Infinity, text) are an error
    naming how many and where, or with ``dropna`` are left out with a warning that counts them, and
    ``attrs["dropped"]`` holds the count: a row is never lost without a word."""
    from perfstudy._lib.frames import numeric_column

    dropna = check_bool("dropna", dropna)
    values = numeric_column(frame["value"]).astype(float)
    names = frame["benchmark"].to_numpy() if "benchmark" in frame.columns else None
    bad = not_finite(values.to_numpy(), names, dropna=dropna, where=where)
    count = int(bad.sum())
    frame = frame.assign(value=values)
    if count:
        warnings.warn(left_out(bad, names, where=where), stacklevel=3)
        frame = frame[~bad].reset_index(drop=True)
        if frame.empty:
            raise ValueError(f"{where}: no finite values left")
    frame.attrs["dropped"] = count
    return frame


def read_pyperf(source, *, dropna: bool = False) -> pd.DataFrame:
    """Read a pyperf JSON file (``python -m pyperf ... -o file.json``; ``.json.gz`` too).

    pyperf runs each benchmark in several worker *processes* (``batch``); each process writes its
    warm-up values first, then its measured values, all per loop iteration in the benchmark's unit
    (seconds by default). Calibration processes, which hold warm-ups only, appear as batches whose
    rows are all warm-ups. Metadata is merged suite -> benchmark -> run, as pyperf does; ``host``
    is the ``hostname`` metadata, ``timestamp`` the run's ``date``.

    Extra columns: ``loops`` (outer loop count behind each value), ``inner_loops``.

    Parameters
    ----------
    source : str, path or file-like
        The JSON file, plain or gzip-compressed (``.json.gz``).
    dropna : bool
        Values that are null, NaN, infinite or not numbers are an error naming their count; with
        True they are left out with a warning, and ``attrs["dropped"]`` counts them.
    """
    return _pyperf_columns(source, dropna=dropna).to_frame()


def read_hyperfine(source, *, metric: str = "wall", dropna: bool = False) -> pd.DataFrame:
    """Read a hyperfine JSON export (``hyperfine --export-json file.json ...``).

    Each timed run of a command is a fresh process: one row per run, ``batch`` = run index,
    ``iteration`` = 0, wall-clock ``value`` in seconds. hyperfine executes ``--warmup`` runs but
    does not write them to its JSON, so ``warmup`` is all False. Parameter-scan values are added
    to ``benchmark`` (``"cmd [n=10]"``) and kept in ``params``.

    Extra columns: ``command``, ``params``, ``exit_code`` (non-zero only with ``--ignore-failure``) and ``rss``,
    each run's peak memory in bytes where the file has it (``memory_usage_byte``, hyperfine 1.20 and later).
    hyperfine writes each command's user and system CPU time only as a mean over its runs (``user``,
    ``system``; no version writes them per run): they are in ``attrs["cpu"]``, ``{benchmark: user + system}``
    in seconds, never as a column that would look like one value per run.

    Parameters
    ----------
    source : str, path or file-like
        The JSON export.
    metric : {"wall", "rss"}
        ``value`` is each run's wall-clock time in seconds, or with ``"rss"`` its peak memory in bytes (``unit``
        ``"B"``; a file without ``memory_usage_byte`` is refused, saying which hyperfine writes it).
    dropna : bool
        Values that are null, NaN, infinite or not numbers are an error naming their count; with
        True they are left out with a warning, and ``attrs["dropped"]`` counts them.
    """
    return _hyperfine_columns(source, metric=metric, dropna=dropna).to_frame()


def read_google_benchmark(
    source, *, time: str = "real_time", errors: str = "raise", dropna: bool = False
) -> pd.DataFrame:
    """Read Google Benchmark JSON (``--benchmark_format=json`` or ``--benchmark_out=file.json``).

    Rows with ``run_type == "iteration"`` are the measured values, each the mean time per iteration
    over ``iterations`` iterations; ``batch`` is the ``repetition_index`` (``--benchmark_repetitions``).
    Aggregate rows (mean, median, stddev, cv, ...) are summaries, not measurements: they are not
    returned, and ``attrs["aggregates"]`` counts them. Google Benchmark does not write its warm-up
    (``--benchmark_min_warmup_time``) to the file: ``warmup`` is all False. ``host`` and
    ``timestamp`` come from the ``context`` block, kept whole in ``attrs["context"]``.

    Extra columns: ``iterations``, ``threads``.

    Parameters
    ----------
    source : str, path or file-like
        The JSON file.
    time : {"real_time", "cpu_time"}
    errors : {"raise", "drop"}
        A benchmark that reported an error (``error_occurred``) has no valid time. ``"raise"``
        refuses the file; ``"drop"`` leaves those rows out with a warning that counts them, and
        records their names in ``attrs["errors"]``.
    dropna : bool
        Values that are null, NaN, infinite or not numbers are an error naming their count; with
        True they are left out with a warning, and ``attrs["dropped"]`` counts them.
    """
    check_choice("time", time, ("real_time", "cpu_time"))
    return _google_benchmark_columns(source, metric=time, errors=errors, dropna=dropna).to_frame()


def read_jmh(source, *, metric: str | None = None, dropna: bool = False) -> pd.DataFrame:
    """Read JMH results (``java -jar benchmarks.jar -rf json -rff file.json``).

    ``rawData`` holds, per *fork* (``batch``), the score of each measurement iteration
    (``iteration``); in SampleTime mode ``rawDataHistogram`` holds per iteration a histogram of
    ``[value, count]`` pairs, expanded here into ``count`` rows each. JMH does not write warm-up
    iterations to its JSON: ``warmup`` is all False, and the per-benchmark warm-up settings are in
    the ``warmup_iterations`` and ``warmup_time`` columns. ``@Param`` values are appended to
    ``benchmark`` (``"pkg.Bench.method [size=10]"``).

    Extra columns: ``mode`` (thrpt, avgt, sample, ss), ``threads``, ``params``,
    ``warmup_iterations``, ``warmup_time``, ``jvm``.

    Parameters
    ----------
    source : str, path or file-like
        The JSON results file.
    metric : str, optional
        A secondary metric to read instead of the primary one (e.g. ``"gc.alloc.rate.norm"``);
        it must have raw data.
    dropna : bool
        Values that are null, NaN, infinite or not numbers are an error naming their count; with
        True they are left out with a warning, and ``attrs["dropped"]`` counts them.
    """
    return _jmh_columns(source, metric=metric, dropna=dropna).to_frame()


def read(
    path: str | os.PathLike, format: Format = "auto", *, dropna: bool = False, metric: str | None = None
) -> pd.DataFrame:
    """Read any benchmark file perfstudy knows into the tidy schema, detecting its format.

    Detection looks at the content, not only the name, and refuses a file that matches two formats
    (naming both):

    - JSON: pyperf (``benchmarks`` holding ``runs``; also ``.json.gz``), hyperfine (``results``
      holding ``command``), Google Benchmark (``context`` and ``benchmarks``), JMH (a list of results
      with ``primaryMetric``), pytest-benchmark (``machine_info`` and ``benchmarks`` holding
      ``stats``), asv (``commit_hash`` and ``results``), BenchmarkDotNet's full export
      (``Benchmarks``), criterion.rs's ``sample.json`` (``iters`` and ``times``);
    - text with ``BenchmarkName N value unit`` lines: Go (``go test -bench``);
    - a directory: criterion.rs's output (``target/criterion``);
    - CSV: criterion.rs's ``raw.csv`` (its ``sample_measured_value`` and ``iteration_count``
      columns), else a tidy table (it needs a ``value`` column; ``benchmark``, ``batch`` and the rest
      are kept as they are); ``.parquet``: a tidy table.

    Parameters
    ----------
    path : str or path
        The file (a directory for criterion.rs).
    format : {"auto", "pyperf", "hyperfine", "google_benchmark", "jmh", "go", "criterion", \
"pytest_benchmark", "asv", "benchmarkdotnet", "csv", "parquet"}
        The format; ``"auto"`` detects it.
    dropna : bool
        Values that are null, NaN, infinite or not numbers are an error naming their count; with
        True they are left out with a warning, and ``attrs["dropped"]`` counts them.
    metric : str, optional
        Which of the harness's metrics is ``value`` (``--metric`` on the command line), where its files carry
        more than one (:attr:`perfstudy.io.Harness.metrics`): Google Benchmark's ``real_time`` (the default) or
        ``cpu_time``; hyperfine's ``wall`` or ``rss``; JMH's ``primary`` or a secondary metric's name. None is
        the harness's default; a metric its files do not carry is refused, listing those they do.

    Returns
    -------
    DataFrame
        As the format's reader returns it (:data:`COLUMNS` first); ``attrs["format"]`` names the
        format.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        An unknown format, a file that matches two, or a file that is not what ``format`` says.
    """
    from perfstudy.io._file_columns import file_columns

    return file_columns(path, format, dropna=dropna, metric=metric).to_frame()


def _csv_table_columns(path, *, dropna: bool = False) -> FileColumns:
    """A tidy CSV table's columns (the ``csv`` harness's reader)."""
    import pandas as pd

    try:
        frame = pd.read_csv(path)
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise MalformedFileError(f"path: {path}: not a CSV table ({' '.join(str(error).split())})") from None
    check_csv_end(path, len(frame.columns), MalformedFileError)
    return _tidy_table(frame, path, dropna)


def _parquet_table_columns(path, *, dropna: bool = False) -> FileColumns:
    """A tidy Parquet table's columns (the ``parquet`` harness's reader)."""
    import pandas as pd

    try:
        frame = pd.read_parquet(path)
    except ImportError as error:
        raise ValueError(f"{path}: reading parquet needs pyarrow (pip install pyarrow)") from error
    return _tidy_table(frame, path, dropna)


def _tidy_table(frame: pd.DataFrame, path, dropna: bool) -> FileColumns:
    """A tidy table's columns as they are, each an array, once it has finite values (:func:`_finite_values`)."""
    if "value" not in frame.columns:
        raise MalformedFileError(f"path: {path} is a tidy table without a 'value' column; it has {list(frame.columns)}")
    if frame.empty:
        raise MalformedFileError(f"path: {path} has a header ({list(frame.columns)}) and no rows: no measurements")
    if {"batch", "iteration"} <= set(frame.columns):  # an iteration of a batch is one value
        twice = frame.drop(columns="value").duplicated(keep=False)
        if twice.any():
            first = frame[twice].head(2).drop(columns="value").iloc[0].to_dict()
            raise MalformedFileError(
                f"path: {path}: {int(twice.sum())} rows are alike in every column but 'value' (first: {first}): one "
                "iteration measured twice, or a file joined to itself; give each iteration once"
            )
    frame = _finite_values(frame, dropna, where=f"path: {path}")
    if "unit" in frame.columns:  # a time, a rate or a size is never below 0: as every harness's reader refuses it
        values = np.asarray(pd.to_numeric(frame["value"], errors="coerce"), dtype=float)
        names = frame["benchmark"].tolist() if "benchmark" in frame.columns else [""] * len(frame)
        _check_signs(names, values, frame["unit"].tolist(), f"path: {path}")
    return FileColumns.from_frame(frame)
