"""pyperf's JSON as columns, without pandas: what ``perfstudy compare`` of two pyperf files compares.

:func:`perfstudy.io.read_pyperf` gives the tidy DataFrame and states pyperf's rules: each benchmark runs in
worker processes (a run, ``batch``), each writing its warm-up values and then its measured values, per loop
iteration in the benchmark's unit; metadata merges suite -> benchmark -> run. :func:`pyperf_columns` reads
the same values into arrays. It reads only a file that :func:`read_pyperf` would read to the same rows
and accept: anything else (a value that is not a finite number, one below 0, a loop count below 1, two
benchmarks of one name, a run that renames its benchmark or changes its unit, dates of more than one
shape) raises :class:`PyperfColumnsError`, and the caller reads the file with :func:`read_pyperf`, which
refuses it by name or reads it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from perfstudy.io._json import _read_json
from perfstudy.io.columns import ColumnsError, FileColumns

__all__ = ["PyperfColumns", "PyperfColumnsError", "pyperf_columns"]

#: the shapes of a run's ``date`` that pandas parses alike in one column: with or without a fraction of a
#: second, ``T`` or a space between date and time
_DATES = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?$", re.MULTILINE)

#: run metadata that would rename a run's benchmark or change its unit
_RUN_KEYS = frozenset(("name", "unit", "inner_loops"))


class PyperfColumnsError(ColumnsError):
    """The file is one that :func:`pyperf_columns` does not read (see the module text): read it with
    :func:`perfstudy.io.read_pyperf`."""


@dataclass(frozen=True, eq=False)
class PyperfColumns(FileColumns):
    """A pyperf file as columns (:class:`perfstudy.io.columns.FileColumns`): each run is a batch, its warm-ups
    first.

    Attributes
    ----------
    codes, distinct, batch, iteration, warmup, value
        As :class:`perfstudy.io.columns.FileColumns` has them; ``batch`` is the run (worker process).
    unit : list of str
        Each benchmark's unit, ``"second"`` unless its metadata says otherwise.
    tool : str
        ``"pyperf"``.
    one_process : bool
        False: pyperf runs each benchmark in several worker processes.
    better, assume : None
        pyperf's files say neither.
    """


#: the types of JSON's numbers (not bool, a subclass of int)
_NUMBERS = frozenset((int, float))


def _number(value) -> bool:
    """A finite number that JSON wrote as one (not a bool, not a text)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _count(value) -> bool:
    """A loop count :func:`read_pyperf` accepts: missing, or a number of at least 1."""
    return value is None or (_number(value) and value >= 1)


def _run_values(run, meta: dict, dates: list) -> tuple[list, list]:
    """A run's warm-up values and measured values, checked (module text); ``dates`` gains its date, checked with
    the others' at the end (:func:`_check_dates`)."""
    if not isinstance(run, dict):
        raise PyperfColumnsError("source: a run that is not an object")
    run_meta = run.get("metadata") or {}
    if not isinstance(run_meta, dict) or not _RUN_KEYS.isdisjoint(run_meta):
        raise PyperfColumnsError("source: a run that renames its benchmark or changes its unit")
    if not _count(run_meta.get("loops", meta.get("loops"))):
        raise PyperfColumnsError("source: a loop count below 1")
    date = run_meta.get("date", meta.get("date"))
    if date is not None:
        dates.append(date)
    warm, measured = run.get("warmups", []), run.get("values", [])
    if not (isinstance(warm, list) and isinstance(measured, list)):
        raise PyperfColumnsError("source: warm-ups or values that are not lists")
    for pair in warm:
        if not (isinstance(pair, list) and len(pair) == 2 and _count(pair[0]) and _number(pair[1])):
            raise PyperfColumnsError("source: a warm-up that is not (loops, value)")
    if not _NUMBERS.issuperset(map(type, measured)):  # finite: checked over all values at once
        raise PyperfColumnsError("source: a value that is not a finite number")
    return [pair[1] for pair in warm], measured


def _check_dates(dates: list) -> None:
    """Every run's date of one shape that pandas parses (:data:`_DATES`), in one pass over them all."""
    if not dates:
        return
    if not all(isinstance(date, str) for date in dates):
        raise PyperfColumnsError("source: a run's date of an unusual shape")
    text = "\n".join(dates)
    if text.count("\n") != len(dates) - 1 or len(_DATES.findall(text)) != len(dates):
        raise PyperfColumnsError("source: a run's date of an unusual shape")
    if len({(date[10], len(date) > 19) for date in dates}) > 1:
        raise PyperfColumnsError("source: dates of two shapes")


def pyperf_columns(source) -> PyperfColumns:
    """The values of a pyperf JSON file (``.json.gz`` too) as :class:`PyperfColumns`, without pandas.

    Parameters
    ----------
    source : str, path or parsed JSON
        The file.

    Raises
    ------
    PyperfColumnsError
        A file that this reader does not read to the rows :func:`perfstudy.io.read_pyperf` gives (module text);
        read it with :func:`read_pyperf`, which refuses it by name or reads it.
    FileNotFoundError
        A path that is not there.
    """
    try:
        data = _read_json(source, "pyperf")
    except FileNotFoundError:
        raise
    except (ValueError, OSError, EOFError) as error:  # not JSON: read_pyperf says so in its words
        raise PyperfColumnsError(f"source: not JSON ({error})") from None
    from perfstudy.io._detect import _detect

    try:
        shape = _detect(data)
    except ValueError:
        shape = None
    if shape != "pyperf":
        raise PyperfColumnsError("source: not pyperf JSON by its shape")
    suite_meta = data.get("metadata") or {}
    if not isinstance(suite_meta, dict):
        raise PyperfColumnsError("source: the suite's metadata is not an object")
    distinct: list = []
    units: list = []
    values: list = []
    codes: list = []  # per run: its benchmark, its position, its warm-ups and its values in all
    batches: list = []
    warm_counts: list = []
    counts: list = []
    dates: list = []
    for bench in data["benchmarks"]:
        if not isinstance(bench, dict) or not isinstance(bench.get("runs"), list):
            raise PyperfColumnsError("source: a benchmark without a list of runs")
        bench_meta = bench.get("metadata") or {}
        if not isinstance(bench_meta, dict):
            raise PyperfColumnsError("source: a benchmark's metadata is not an object")
        meta = {**suite_meta, **bench_meta}
        name, unit = meta.get("name"), meta.get("unit", "second")
        if not isinstance(name, str) or not isinstance(unit, str) or not _count(meta.get("inner_loops", 1)):
            raise PyperfColumnsError("source: a benchmark without a name, or with an unusual unit or inner loop count")
        code = len(distinct)
        distinct.append(name)
        units.append(unit)
        for batch, run in enumerate(bench["runs"]):
            warm, measured = _run_values(run, meta, dates)
            values += warm
            values += measured
            codes.append(code)
            batches.append(batch)
            warm_counts.append(len(warm))
            counts.append(len(warm) + len(measured))
    if len(set(distinct)) != len(distinct):
        raise PyperfColumnsError("source: two benchmarks of one name")
    _check_dates(dates)
    value = np.asarray(values, dtype=float)
    if not np.isfinite(value).all():
        raise PyperfColumnsError("source: a value that is not a finite number")
    if value.size == 0 or (value < 0).any():
        raise PyperfColumnsError("source: no values, or a value below 0")
    per_run = np.asarray(counts, dtype=np.int64)
    iteration = np.arange(value.size, dtype=np.int64) - np.repeat(np.cumsum(per_run) - per_run, per_run)
    return PyperfColumns(
        codes=np.repeat(np.asarray(codes, dtype=np.int64), per_run),
        distinct=distinct,
        batch=np.repeat(np.asarray(batches, dtype=np.int64), per_run),
        iteration=iteration,
        warmup=iteration < np.repeat(np.asarray(warm_counts, dtype=np.int64), per_run),
        value=value,
        unit=units,
        tool="pyperf",
    )
