"""A harness's file as columns, without pandas: what ``perfstudy compare`` of two files compares.

The readers (:func:`perfstudy.io.read`) give a checked DataFrame. ``perfstudy compare BASE NEW`` needs only
each value's benchmark, batch, position, warm-up flag and unit, and importing pandas alone takes longer than
the rest of a 200-benchmark comparison. :func:`perfstudy.io.file_columns` reads the JSON of pyperf, hyperfine, Google
Benchmark, JMH, pytest-benchmark, BenchmarkDotNet, asv and criterion into :class:`FileColumns` by the readers'
own parse (:mod:`perfstudy.io._rows`, each harness module's ``_*_rows``,
:func:`perfstudy.io.pyperf.pyperf_columns`), and :func:`rows_columns` takes a reader's rows only when the
DataFrame would hold the same values and the reader would accept the file. Anything else raises
:class:`ColumnsError`, and the caller reads the file with :func:`perfstudy.io.read`, which refuses it by name
or reads it. "Anything else" is:

- a value that is not a number JSON wrote as one, not finite, or below 0;
- a batch or iteration that is not an integer, or a warm-up flag that is not true or false;
- a count of iterations, operations or loops below 1 or not a number;
- two entries of one benchmark, batch and iteration (JMH's histograms excepted), or a benchmark in two units;
- dates that pandas might not read alike: not ISO 8601, or of two shapes;
- a unit that is not a text (asv's benchmarks other than ``time_*``), or an asv start time out of pandas' dates;
- a file the reader refuses, or one whose shape is not the format asked for.

A tidy CSV has rules of its own (:mod:`perfstudy.io._csv_columns`). Parquet, a criterion directory or
``raw.csv``, and a Go file are not read here (Go text has its own columns, :func:`perfstudy.io.go.go_columns`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

import numpy as np

from perfstudy._lib.checks import check_bool, check_text
from perfstudy._lib.result import Result

__all__ = ["ColumnsError", "FileColumns", "rows_columns"]


#: the columns of a count the readers refuse below 1 (:func:`perfstudy.io._read._check_counts`)
_COUNTS = ("iterations", "operations", "loops", "inner_loops")

#: ISO 8601 dates and times, with a fraction and an offset or without
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$")


class ColumnsError(ValueError):
    """The file is one that :func:`file_columns` does not read (see the module text): read it with
    :func:`perfstudy.io.read`."""


@dataclass(frozen=True, eq=False)
class FileColumns(Result):
    """A harness's file as columns, one entry per value (warm-ups included), in the file's order: the rows of its
    reader's DataFrame.

    Attributes
    ----------
    codes : ndarray of int
        Each entry's benchmark as its position in ``distinct``.
    distinct : list of str
        The benchmarks, in the file's order.
    batch : ndarray of int
        The entry's batch (the process, fork or repetition).
    iteration : ndarray of int
        The entry's position in its batch, warm-ups first.
    warmup : ndarray of bool
    value : ndarray of float
    unit : list of str or None
        Each benchmark's unit, by code (None for every benchmark of a tidy CSV without a ``unit`` column).
    tool : str
        The harness, as the reader's ``attrs["tool"]`` names it.
    one_process : bool
        Every value came from one process (pytest-benchmark's rounds, criterion's samples: the readers' ``process``
        column, 0 on every row), which :func:`perfstudy.comparison.compare` notes and judges inconclusive.
    better, assume : list or None
        Each benchmark's direction and ``assume`` by code, where the file says them (Go's ``Unit`` lines); None
        for a file that says neither.
    """

    codes: np.ndarray
    distinct: list
    batch: np.ndarray
    iteration: np.ndarray
    warmup: np.ndarray
    value: np.ndarray
    unit: list
    tool: str = "pyperf"
    one_process: bool = False
    better: list | None = None
    assume: list | None = None

    def to_frame(self):
        """The columns as a DataFrame: benchmark, batch, iteration, warmup, value, unit."""
        import pandas as pd

        return pd.DataFrame(
            {
                "benchmark": [self.distinct[c] for c in self.codes.tolist()],
                "batch": self.batch,
                "iteration": self.iteration,
                "warmup": self.warmup,
                "value": self.value,
                "unit": [self.unit[c] for c in self.codes.tolist()],
            }
        )

    def renamed(self, name: str) -> FileColumns:
        """A file of one benchmark with that benchmark called ``name``.

        Parameters
        ----------
        name : str
            The benchmark's new name.

        Returns
        -------
        FileColumns

        Raises
        ------
        ValueError
            The file holds more than one benchmark.
        """
        check_text("name", name)
        if len(self.distinct) != 1:
            raise ValueError(
                f"name={name!r}: only a file of one benchmark is renamed; this one has {len(self.distinct)}"
            )
        return replace(self, distinct=[name])


def _number(value) -> bool:
    """A number JSON wrote as one (numpy's floats too, as JMH's histograms give them), not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _count(value) -> bool:
    """A count the readers accept: missing (None or NaN), or a number of at least 1."""
    if value is None:
        return True
    return _number(value) and (value >= 1 or math.isnan(value))


def _check_dates(dates: set) -> None:
    """One shape of ISO 8601 date for every row that has one (pandas reads a column of one shape alike)."""
    if not dates:
        return
    if not all(isinstance(date, str) and _ISO.match(date) for date in dates):
        raise ColumnsError("source: a date that is not ISO 8601")
    if len({re.sub(r"\d", "0", date) for date in dates}) > 1:
        raise ColumnsError("source: dates of two shapes")


def rows_columns(rows: list, *, tool: str, repeats: bool = False, one_process: bool = False) -> FileColumns:
    """A reader's rows (:mod:`perfstudy.io._rows`) as :class:`FileColumns`, or :class:`ColumnsError` where its
    DataFrame might differ or the reader would refuse them (module text).

    Parameters
    ----------
    rows : list of dict
        One a value: ``benchmark``, ``batch``, ``iteration``, ``warmup``, ``value``, ``unit`` and the tool's own.
    tool : str
        The harness.
    repeats : bool
        A value may repeat within an iteration (JMH's sample histograms).
    one_process : bool
        Every value came from one process (:attr:`FileColumns.one_process`).

    Returns
    -------
    FileColumns
    """
    check_text("tool", tool)
    repeats, one_process = check_bool("repeats", repeats), check_bool("one_process", one_process)
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise TypeError(f"rows: expected a list of dicts, a reader's rows; got {type(rows).__name__}")
    if not rows:
        raise ColumnsError("rows: no measured values")
    distinct: dict = {}
    units: list = []
    codes, batches, iterations, warmups, values = [], [], [], [], []
    dates: set = set()
    for row in rows:
        name, unit = row.get("benchmark"), row.get("unit")
        if not (isinstance(name, str) and isinstance(unit, str)):
            raise ColumnsError("source: a benchmark without a name, or with a unit that is not a text")
        code = distinct.setdefault(name, len(distinct))
        if code == len(units):
            units.append(unit)
        elif units[code] != unit:
            raise ColumnsError("source: a benchmark in two units")
        batch, iteration, warmup, value = row.get("batch"), row.get("iteration"), row.get("warmup"), row.get("value")
        if not all(_number(x) and math.isfinite(x) and x == int(x) for x in (batch, iteration)):
            raise ColumnsError("source: a batch or iteration that is not an integer")
        if not (isinstance(warmup, (bool, np.bool_)) and _number(value)):
            raise ColumnsError("source: a value that is not a number, or a warm-up flag that is not true or false")
        if not all(_count(row.get(column)) for column in _COUNTS):
            raise ColumnsError("source: a count of iterations or loops below 1")
        if row.get("timestamp") is not None:
            dates.add(row["timestamp"])
        codes.append(code)
        batches.append(int(batch))
        iterations.append(int(iteration))
        warmups.append(bool(warmup))
        values.append(value)
    _check_dates(dates)
    value = np.asarray(values, dtype=float)
    if not np.isfinite(value).all() or (value < 0).any():
        raise ColumnsError("source: a value that is not finite, or below 0")
    columns = FileColumns(
        codes=np.asarray(codes, dtype=np.int64),
        distinct=list(distinct),
        batch=np.asarray(batches, dtype=np.int64),
        iteration=np.asarray(iterations, dtype=np.int64),
        warmup=np.asarray(warmups, dtype=bool),
        value=value,
        unit=units,
        tool=tool,
        one_process=one_process,
    )
    if not repeats and _has_twins(columns):
        raise ColumnsError("source: two entries of one benchmark, batch and iteration")
    return columns


def _has_twins(c: FileColumns) -> bool:
    """Whether two entries share benchmark, batch, iteration and warm-up flag (the readers refuse them)."""
    order = np.lexsort((c.warmup, c.iteration, c.batch, c.codes))
    keys = np.stack([c.codes, c.batch, c.iteration, c.warmup.astype(np.int64)])[:, order]
    return bool((keys[:, 1:] == keys[:, :-1]).all(axis=0).any())
