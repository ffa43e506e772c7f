""":func:`file_columns`: a harness's JSON file or a tidy CSV as :class:`perfstudy.io.columns.FileColumns`, by its reader's own
parse, or :class:`perfstudy.io.columns.ColumnsError` for :func:`perfstudy.io.read` to read it (the rules are in
:mod:`perfstudy.io.columns`). No pandas."""

from __future__ import annotations

import math
import os
from dataclasses import replace
from pathlib import Path

import numpy as np

from perfstudy.io.columns import COLUMN_FORMATS, ColumnsError, FileColumns, _number, rows_columns

__all__ = ["file_columns"]

#: the formats whose every value came from one process (their readers' ``process`` column is 0 on every row)
_ONE_PROCESS = frozenset(("pytest_benchmark", "criterion"))


def file_columns(path, format: str = "auto") -> FileColumns:
    """A JSON file of pyperf, hyperfine, Google Benchmark, JMH, pytest-benchmark, BenchmarkDotNet (its full export),
    asv or criterion (one ``sample.json``), or a tidy CSV table (:func:`perfstudy.io._csv_columns.csv_columns`), as
    :class:`FileColumns`, read as :func:`perfstudy.io.read` reads it with its defaults, without pandas.

    Parameters
    ----------
    path : str or path
        The file (``.json.gz`` too).
    format : {"auto", "pyperf", "hyperfine", "google_benchmark", "jmh", "pytest_benchmark", "benchmarkdotnet", \
"asv", "criterion", "csv"}
        The format; ``"auto"`` detects it from the content, and a file of another shape than the one given
        is not read here.

    Returns
    -------
    FileColumns

    Raises
    ------
    ColumnsError
        A file that this reader does not read to the rows :func:`perfstudy.io.read` gives (module text), or of
        another format: read it with :func:`perfstudy.io.read`, which refuses it by name or reads it.
    FileNotFoundError
        A path that is not there.
    """
    from perfstudy.io._detect import _detect, _kind
    from perfstudy.io._json import _read_json

    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path={path!r}: expected the path of a file")
    if format not in ("auto", *COLUMN_FORMATS):
        raise ColumnsError(f"format={format!r}: read by perfstudy.io.read")
    if format == "csv" or (format == "auto" and Path(path).is_file() and _kind(Path(path)) == "csv"):
        from perfstudy.io._csv_columns import csv_columns

        return csv_columns(path)
    try:
        data = _read_json(path, "benchmark")
        shape = _detect(data)
    except FileNotFoundError:
        raise
    except (ValueError, OSError, EOFError) as error:  # not JSON, or two formats' shape: read() says so
        raise ColumnsError(f"source: {error}") from None
    if shape not in COLUMN_FORMATS or format not in ("auto", shape):
        raise ColumnsError(f"source: a {shape or 'file of no known shape'}, not one read here as {format}")
    if shape == "pyperf":
        from perfstudy.io.pyperf import pyperf_columns

        return pyperf_columns(data)
    try:
        rows, tool = _parsed_rows(shape, data, path)
    except Exception as error:  # noqa: BLE001 - the reader refuses the file in its own words on the general path
        raise ColumnsError(f"source: {type(error).__name__}") from None
    columns = rows_columns(rows, tool=tool, repeats=shape == "jmh", one_process=shape in _ONE_PROCESS)
    return _in_launch_order(columns) if shape == "benchmarkdotnet" else columns


def _parsed_rows(shape: str, data, path) -> tuple[list, str]:
    """The reader's rows of the file (its own parse, with its default options) and its tool's name."""
    from perfstudy.io import _rows

    if shape == "hyperfine":
        rows, _, attrs = _rows.hyperfine_rows(data)
    elif shape == "google_benchmark":
        rows, _, attrs = _rows.google_benchmark_rows(data, time="real_time", errors="raise")
    elif shape == "jmh":
        rows, _, attrs = _rows.jmh_rows(data, metric=None)
    elif shape == "pytest_benchmark":
        from perfstudy.io.pytest_benchmark import _pytest_benchmark_rows

        rows, _, attrs = _pytest_benchmark_rows(data)
    elif shape == "benchmarkdotnet":
        from perfstudy.io.benchmarkdotnet import _benchmarkdotnet_rows

        rows, _, attrs = _benchmarkdotnet_rows(data, stage="Result")
    elif shape == "asv":
        from perfstudy.io.asv import _asv_rows

        rows, _, attrs = _asv_rows(data)
        if not all(_epoch_ms(row["timestamp"]) for row in rows):
            raise ColumnsError("source: a start time that is not a date pandas holds")
        rows = [dict(row, timestamp=None) for row in rows]  # a number of ms, not a date's text
    else:
        from perfstudy.io.criterion import _sample_file_rows

        return _sample_file_rows(Path(path), data), "criterion"  # the JSON parsed once, to tell its shape
    return rows, attrs["tool"]


def _epoch_ms(value) -> bool:
    """asv's ``started_at``: missing, or ms since the epoch within the dates pandas holds (1677 to 2262)."""
    return value is None or (_number(value) and math.isfinite(value) and abs(value) < 9.2e15)


def _in_launch_order(c: FileColumns) -> FileColumns:
    """BenchmarkDotNet's columns in its reader's order: by benchmark name, launch, warm-ups first and iteration
    (a stable sort, as pandas' of several keys); the benchmarks renumbered in that order."""
    by_name = np.argsort(np.asarray(c.distinct, dtype=object), kind="stable").tolist()
    ranks = np.empty(len(c.distinct), dtype=np.int64)
    ranks[by_name] = np.arange(len(c.distinct))
    order = np.lexsort((c.iteration, ~c.warmup, c.batch, ranks[c.codes]))
    return replace(
        c,
        codes=ranks[c.codes][order],
        distinct=[c.distinct[i] for i in by_name],
        batch=c.batch[order],
        iteration=c.iteration[order],
        warmup=c.warmup[order],
        value=c.value[order],
        unit=[c.unit[i] for i in by_name],
    )
