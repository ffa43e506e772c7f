""":func:`file_columns`: a harness's JSON file or a tidy CSV as :class:`perfstudy.io.columns.FileColumns`, by its reader's own
parse, or :class:`perfstudy.io.columns.ColumnsError` for :func:`perfstudy.io.read` to read it (the rules are in
:mod:`perfstudy.io.columns`). No pandas."""

from __future__ import annotations

import importlib
import math
import os
from dataclasses import replace
from pathlib import Path

import numpy as np

from perfstudy.io.columns import ColumnsError, FileColumns, _number, rows_columns
from perfstudy.io.harnesses import HARNESSES

__all__ = ["file_columns"]


def file_columns(path, format: str = "auto") -> FileColumns:
    """Go text, a JSON file of pyperf, hyperfine, Google Benchmark, JMH, pytest-benchmark, BenchmarkDotNet (its full
    export), asv or criterion (one ``sample.json``), or a tidy CSV table (:func:`perfstudy.io._csv_columns.csv_columns`), as
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
    if format != "auto" and not _read_here(format):
        raise ColumnsError(f"format={format!r}: read by perfstudy.io.read")
    if format == "auto" and Path(path).is_file() and (kind := _kind(Path(path))) in ("csv", "go"):
        format = kind
    if format != "auto" and HARNESSES[format].kind in ("table", "text"):
        return _columns_of(HARNESSES[format], None, path)
    try:
        data = _read_json(path, "benchmark")
        shape = _detect(data)
    except FileNotFoundError:
        raise
    except (ValueError, OSError, EOFError) as error:  # not JSON, or two formats' shape: read() says so
        raise ColumnsError(f"source: {error}") from None
    if shape is None or not _read_here(shape) or format not in ("auto", shape):
        raise ColumnsError(f"source: a {shape or 'file of no known shape'}, not one read here as {format}")
    return _columns_of(HARNESSES[shape], data, path)


def _read_here(name) -> bool:
    """Whether the harness ``name`` has a columns function (:data:`perfstudy.io.harnesses.HARNESSES`)."""
    return isinstance(name, str) and name in HARNESSES and HARNESSES[name].columns is not None


def _columns_of(found, data, path) -> FileColumns:
    """The harness's columns function (:attr:`perfstudy.io.harnesses.Harness.columns`) on the parsed file, marked as
    of one process where its record says so."""
    module, name = found.columns.split(":")
    columns = getattr(importlib.import_module(module), name)(data, path)
    return replace(columns, one_process=True) if found.one_process and not columns.one_process else columns


def _rows_file_columns(rows_of, data, *, repeats: bool = False) -> FileColumns:
    """Columns from a reader's own rows (``rows_of(data)`` gives ``(rows, extra, attrs)``), its default options;
    a file the reader refuses goes to :func:`perfstudy.io.read`, which refuses it in its own words."""
    try:
        rows, _, attrs = rows_of(data)
    except ColumnsError:
        raise
    except Exception as error:  # noqa: BLE001 - the reader refuses the file in its own words on the general path
        raise ColumnsError(f"source: {type(error).__name__}") from None
    return rows_columns(rows, tool=attrs["tool"], repeats=repeats)


def _pyperf_file_columns(data, path) -> FileColumns:
    """pyperf's columns (:func:`perfstudy.io.pyperf.pyperf_columns`)."""
    from perfstudy.io.pyperf import pyperf_columns

    return pyperf_columns(data)


def _hyperfine_columns(data, path) -> FileColumns:
    """hyperfine's columns, from its reader's rows."""
    from perfstudy.io._rows import hyperfine_rows

    return _rows_file_columns(hyperfine_rows, data)


def _google_benchmark_columns(data, path) -> FileColumns:
    """Google Benchmark's columns (real time, errors raised: its reader's defaults), from its reader's rows."""
    from perfstudy.io._rows import google_benchmark_rows

    return _rows_file_columns(lambda d: google_benchmark_rows(d, time="real_time", errors="raise"), data)


def _jmh_columns(data, path) -> FileColumns:
    """JMH's columns (its primary metric; a histogram's values repeat), from its reader's rows."""
    from perfstudy.io._rows import jmh_rows

    return _rows_file_columns(lambda d: jmh_rows(d, metric=None), data, repeats=True)


def _pytest_benchmark_columns(data, path) -> FileColumns:
    """pytest-benchmark's columns, from its reader's rows."""
    from perfstudy.io.pytest_benchmark import _pytest_benchmark_rows

    return _rows_file_columns(_pytest_benchmark_rows, data)


def _benchmarkdotnet_columns(data, path) -> FileColumns:
    """BenchmarkDotNet's columns (its result stage), in its reader's order, from its reader's rows."""
    from perfstudy.io.benchmarkdotnet import _benchmarkdotnet_rows

    return _in_launch_order(_rows_file_columns(lambda d: _benchmarkdotnet_rows(d, stage="Result"), data))


def _asv_columns(data, path) -> FileColumns:
    """asv's columns, from its reader's rows; a start time out of pandas' dates goes to ``read``."""
    from perfstudy.io.asv import _asv_rows

    def rows_of(d):
        rows, extra, attrs = _asv_rows(d)
        if not all(_epoch_ms(row["timestamp"]) for row in rows):
            raise ColumnsError("source: a start time that is not a date pandas holds")
        return [dict(row, timestamp=None) for row in rows], extra, attrs  # a number of ms, not a date's text

    return _rows_file_columns(rows_of, data)


def _criterion_columns(data, path) -> FileColumns:
    """One criterion ``sample.json``'s columns, from its reader's rows: the JSON parsed once, to tell its shape, and
    the path for the files beside it."""
    from perfstudy.io.criterion import _sample_file_rows

    return _rows_file_columns(lambda d: (_sample_file_rows(Path(path), d), [], {"tool": "criterion"}), data)


def _go_file_columns(data, path) -> FileColumns:
    """Go text's columns (:func:`perfstudy.io.go.go_columns`, which checks the values as :func:`read_go` does): each
    result line a batch, a benchmark's unit its first line's, its ``Unit`` lines' direction and ``assume``; a
    benchmark in two units, or a file go_columns refuses, goes to ``read``."""
    from perfstudy.io.go import go_columns

    try:
        g = go_columns(path)
    except FileNotFoundError:
        raise
    except (ValueError, OSError) as error:
        raise ColumnsError(f"source: {error}") from None
    first = np.unique(g.codes, return_index=True)[1]  # codes count up from 0 in order of first appearance
    unit = [g.unit[i] for i in first.tolist()]
    if any(row != unit[c] for row, c in zip(g.unit, g.codes.tolist())):
        raise ColumnsError("source: a benchmark in two units")
    described = bool(g.unit_meta)
    return FileColumns(
        codes=g.codes,
        distinct=list(g.distinct),
        batch=g.batch,
        iteration=np.zeros(g.value.size, dtype=np.int64),
        warmup=np.zeros(g.value.size, dtype=bool),
        value=g.value,
        unit=unit,
        tool="go",
        better=[g.unit_meta.get((u, "better")) for u in unit] if described else None,
        assume=[g.unit_meta.get((u, "assume")) for u in unit] if described else None,
    )


def _csv_file_columns(data, path) -> FileColumns:
    """A tidy CSV's columns (:func:`perfstudy.io._csv_columns.csv_columns`)."""
    from perfstudy.io._csv_columns import csv_columns

    return csv_columns(path)


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
