"""A harness's file as columns: the one representation of measurements that every reader gives.

Each harness's parse (:mod:`perfstudy.io._rows`, each harness module, :mod:`perfstudy.io.go`) gives its values as
rows or columns; :func:`_measured` checks them once and gives :class:`FileColumns`. :func:`perfstudy.io.read` is
their view as a DataFrame (:meth:`FileColumns.to_frame`), and ``perfstudy compare`` of two files compares the
columns themselves (:func:`perfstudy.comparison.compare_files`), without pandas. What a reader refuses, it
refuses here, in one set of words:

- no measured values;
- a run's date that is not a date (ISO 8601 of one shape is checked here; any other shape is handed to pandas,
  which :meth:`FileColumns.to_frame` will use);
- a batch or iteration index that is not an integer;
- a value that is null, NaN, infinite or not a number (true and false are none), unless ``dropna`` (then left out
  and counted);
- a value of a run that exited with a status other than 0 (hyperfine's ``-i``), unless ``dropna`` (likewise);
- a negative value in a unit that cannot be negative;
- a count of iterations, operations or loops below 1;
- two entries of one benchmark, batch, iteration and warm-up flag (JMH's sample histograms excepted).
"""

from __future__ import annotations

import itertools
import math
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np

from perfstudy._lib.checks import check_text
from perfstudy._lib.result import Result
from perfstudy.io._json import MalformedFileError
from perfstudy.io._values import left_out, not_finite

__all__ = ["COLUMNS", "FileColumns"]

#: The columns every reader returns, in this order; tool-specific columns follow.
COLUMNS = ["benchmark", "host", "timestamp", "batch", "iteration", "warmup", "value", "unit"]

#: the columns of a count the readers refuse below 1
_COUNTS = ("iterations", "operations", "loops", "inner_loops")

#: ISO 8601 dates and times, with a fraction and an offset or without
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$")

#: the dates pandas holds (nanoseconds in an int64), as numpy's datetime64 in ms
_FIRST, _LAST = np.datetime64("1677-09-22", "ms"), np.datetime64("2262-04-11", "ms")


@dataclass(frozen=True, eq=False)
class FileColumns(Result):
    """A harness's file as columns, one entry per value (warm-ups included), in its reader's order: the rows of
    :func:`perfstudy.io.read`'s DataFrame, without pandas.

    Attributes
    ----------
    columns : dict
        Each column by name (:data:`COLUMNS`, then the harness's own): an array or a list of one entry per value,
        or, for a column with one value throughout (Go's configuration, a missing host), that value once
        (:meth:`column` gives every column as an array).
    attrs : dict
        What the file says once (the reader's ``DataFrame.attrs``): ``tool``, ``dropped`` and the harness's own.
    """

    columns: Mapping[str, Any]
    attrs: Mapping[str, Any]

    @classmethod
    def from_frame(cls, frame) -> FileColumns:
        """A DataFrame's columns as they are, each an array (a tidy table's, or a version's rows in
        :func:`perfstudy.comparison.compare`), with its ``attrs``.

        Parameters
        ----------
        frame : DataFrame

        Returns
        -------
        FileColumns
        """
        return cls(columns={str(name): frame[name].to_numpy() for name in frame.columns}, attrs=dict(frame.attrs))

    @property
    def tool(self) -> str:
        """The harness, as ``attrs["tool"]`` names it."""
        return str(self.attrs.get("tool", ""))

    @property
    def size(self) -> int:
        """The number of entries."""
        return len(self.columns["value"])

    @cached_property
    def _factorised(self) -> tuple[np.ndarray, list]:
        return _codes(self.columns["benchmark"])

    @property
    def codes(self) -> np.ndarray:
        """Each entry's benchmark as its position in :attr:`distinct`."""
        return self._factorised[0]

    @property
    def distinct(self) -> list:
        """The benchmarks, in order of first appearance."""
        return self._factorised[1]

    def column(self, name: str) -> np.ndarray:
        """One column as an array.

        Parameters
        ----------
        name : str
            A column of :attr:`columns`.
        """
        check_text("name", name)
        if name not in self.columns:
            raise ValueError(f"name={name!r}: the file has no such column; its columns are {list(self.columns)}")
        values = self.columns[name]
        if isinstance(values, np.ndarray):
            return values
        if isinstance(values, list):
            return np.asarray(values, dtype=object)
        return np.full(self.size, values, dtype=object)  # one value throughout

    def to_frame(self):
        """The columns as the reader's DataFrame: :data:`COLUMNS` first, dates as dates, ``attrs`` kept."""
        import pandas as pd

        data = dict(self.columns)
        if "timestamp" in data and not isinstance(data["timestamp"], np.ndarray):
            data["timestamp"] = _dates(_each(data["timestamp"], self.size))
        frame = pd.DataFrame(data, columns=list(data))  # a value given once fills its column
        frame.attrs.update(self.attrs)
        return frame

    def _with_attrs(self, **attrs) -> FileColumns:
        """The same columns with more ``attrs`` (and the benchmarks' codes already found)."""
        found = replace(self, attrs={**self.attrs, **attrs})
        if "_factorised" in self.__dict__:
            found.__dict__["_factorised"] = self.__dict__["_factorised"]
        return found

    def _taken(self, order: np.ndarray) -> FileColumns:
        """The entries in another order (``order``: positions of the entries kept, in their new order)."""
        return replace(self, columns={name: _take(values, order) for name, values in self.columns.items()})

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
        return replace(self, columns={**self.columns, "benchmark": [name] * self.size})


def _take(values, order: np.ndarray):
    if isinstance(values, np.ndarray):
        return values[order]
    if isinstance(values, list):
        return np.asarray(values, dtype=object)[order].tolist()
    return values  # one value throughout


def _each(values, length: int) -> list | np.ndarray:
    """A column as one entry per value: a value given once, repeated (a number or a flag as an array)."""
    if isinstance(values, (list, np.ndarray)):
        return values
    if isinstance(values, (bool, int, float)):
        return np.full(length, values)
    return [values] * length


#: the columns the one check reads entry by entry; any other column given once stays once
_CHECKED = ("benchmark", "batch", "iteration", "warmup", "value", "unit", "exit_code", "stage", *_COUNTS)


def _measured_rows(rows: list, extra: list, attrs: dict, dropna: bool = False) -> FileColumns:
    """:func:`measured` of a parse that gave rows: one dict a value, :data:`COLUMNS` and ``extra`` its keys.

    Parameters
    ----------
    rows : list of dict
    extra : list of str
        The harness's own columns, in order.
    attrs : dict
        What the file says once; ``tool`` names the harness.
    dropna : bool
        Leave out values that are not finite numbers, counting them (else they are refused).

    Returns
    -------
    FileColumns
    """
    names = COLUMNS + [name for name in extra if name not in COLUMNS]
    nan = float("nan")  # what pandas puts where a row has no such key
    return _measured({name: [row.get(name, nan) for row in rows] for name in names}, attrs, dropna)


def _measured(columns: dict, attrs: dict, dropna: bool = False, codes: tuple | None = None) -> FileColumns:
    """A harness's values checked once (module text) as :class:`FileColumns`.

    Parameters
    ----------
    columns : dict
        Each column by name (:data:`COLUMNS` first; one not given is missing throughout): a list or an array of one
        entry per value, or one value for every entry.
    attrs : dict
        What the file says once; ``tool`` names the harness (JMH's values may repeat within an iteration).
    dropna : bool
        Leave out values that are not finite numbers, with a warning that counts them; ``attrs["dropped"]``
        counts them.
    codes : tuple, optional
        ``(codes, distinct)`` of the benchmark column, where the parse has found them already.

    Returns
    -------
    FileColumns

    Raises
    ------
    MalformedFileError
        What the module text lists.
    """
    length = max((len(v) for v in columns.values() if isinstance(v, (list, np.ndarray))), default=0)
    if length == 0:
        raise MalformedFileError("source: the file holds no measured values")
    columns = {
        name: columns.get(name, float("nan")) for name in COLUMNS
    } | columns  # pandas' NaN for a column not given
    data = {name: (_each(v, length) if name in _CHECKED else v) for name, v in columns.items()}
    _check_dates(data["timestamp"])
    for name in ("batch", "iteration"):
        numbers = _numbers(data[name])
        bad = np.isnan(numbers) | (numbers != np.floor(numbers)) | (np.abs(numbers) >= _LARGEST_INDEX)
        if bad.any():
            first = [data[name][i] for i in np.flatnonzero(bad)[:1].tolist()]
            raise MalformedFileError(f"source: a {name} index is not an integer below 2**53: {first}")
        data[name] = numbers.astype(np.int64)
    data["warmup"] = _flags(data["warmup"])
    value = _numbers(data["value"])
    data["value"] = value
    failed = _failed(data, dropna)
    bad = not_finite(value, data["benchmark"], dropna=dropna, where="source")
    if failed.any():
        warnings.warn(_failed_said(failed, data["benchmark"], "were left out (dropna=True)"), stacklevel=4)
    if bad.any():
        warnings.warn(left_out(bad, data["benchmark"], where="source"), stacklevel=4)
    bad |= failed
    dropped = int(bad.sum())
    if dropped:
        data = {name: _take(values, ~bad) for name, values in data.items()}
        if not data["value"].size:
            raise ValueError("source: no finite values left")
    if codes is None or dropped:
        codes = _codes(data["benchmark"])
    unnamed = [i for i, name in enumerate(codes[1]) if _missing_name(name)]
    if unnamed:  # a table row, a JSON key or a CSV cell with no name: no one could tell what it measured
        count = int(np.bincount(codes[0], minlength=len(codes[1]))[unnamed].sum())
        raise MalformedFileError(f"source: {count} value(s) have no benchmark name ({codes[1][unnamed[0]]!r})")
    _check_counts(data, codes, repeats=attrs.get("tool") == "JMH")
    result = FileColumns(columns=data, attrs={**attrs, "dropped": dropped})
    result.__dict__["_factorised"] = codes  # the cached property, computed here once for the checks
    return result


def _missing_name(name) -> bool:
    """An empty or blank benchmark name, or none (None, NaN)."""
    return name is None or (isinstance(name, float) and name != name) or not str(name).strip()


#: the largest batch or iteration index held exactly (a float holds every integer below it; int64 casts it)
_LARGEST_INDEX = 2.0**53


#: the types of a column of numbers that numpy converts as pandas does (None as NaN)
_PLAIN = frozenset((int, float, type(None), np.float64, np.float32, np.int64, np.int32))


def _failed(data: dict, dropna: bool) -> np.ndarray:
    """Which values come from a run that exited with a status other than 0 (hyperfine ``-i`` keeps them): a broken
    build's time is not the program's. Refused, counting them, unless ``dropna`` (then left out and counted)."""
    status = data.get("exit_code")
    if status is None:
        return np.zeros(len(data["value"]), dtype=bool)
    codes = _numbers(status)
    failed = ~np.isnan(codes) & (codes != 0)
    if failed.any() and not dropna:
        raise MalformedFileError(
            _failed_said(failed, data["benchmark"], "are not the program's times")
            + "; fix the command, or pass dropna=True to leave them out"
        )
    return failed


def _failed_said(failed: np.ndarray, names, what: str) -> str:
    named = sorted({str(names[i]) for i in np.flatnonzero(failed).tolist()})
    return (
        f"source: {int(failed.sum())} of {failed.size} runs exited with a status other than 0 (benchmarks "
        f"{named[:3]}{' ...' if len(named) > 3 else ''}) and {what}"
    )


def _numbers(values) -> np.ndarray:
    """A column as floats, text and missing values as NaN, as ``pd.to_numeric(errors="coerce")`` makes it (numbers
    and None without pandas, anything else by pandas), but true and false as NaN: a flag is not a number."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iuf":
        return values.astype(float)
    types = set(map(type, values))
    if _PLAIN.issuperset(types):
        return np.asarray(values, dtype=float)
    if types & _FLAGS:  # JSON's true is no number: pandas would read it as 1
        values = [None if isinstance(v, (bool, np.bool_)) else v for v in values]
    import pandas as pd

    return np.asarray(pd.to_numeric(pd.Series(values), errors="coerce"), dtype=float)


#: the types of a column of flags that numpy converts as pandas does
_FLAGS = frozenset((bool, np.bool_))


def _flags(values) -> np.ndarray:
    """A column of warm-up flags as booleans, as pandas' ``astype(bool)`` makes them."""
    if isinstance(values, np.ndarray) or _FLAGS.issuperset(map(type, values)):
        return np.asarray(values, dtype=bool)
    return np.fromiter((bool(v) for v in values), dtype=bool, count=len(values))


def _check_dates(dates) -> None:
    """Every entry's date is missing or a date: ISO 8601 of one shape, or a datetime64 pandas holds, is checked
    here; any other value is handed to pandas, which :meth:`FileColumns.to_frame` will read it by."""
    if isinstance(dates, np.ndarray) and dates.dtype.kind == "M":
        return
    if not isinstance(dates, (list, np.ndarray)):
        dates = [dates]  # one date throughout
    present = {date for date in dates if not (date is None or (isinstance(date, float) and date != date))}
    if not present:
        return
    texts = [d for d in present if isinstance(d, str)]
    stamps = [d for d in present if isinstance(d, np.datetime64)]
    if len(texts) == len(present) and all(_ISO.match(d) for d in texts):
        if len({re.sub(r"\d", "0", d) for d in texts}) == 1:
            return
    elif len(stamps) == len(present) and all(_FIRST <= d <= _LAST for d in stamps):
        return
    _dates(list(dates))


def _dates(dates: list | np.ndarray):
    """The dates as pandas reads them, or :class:`MalformedFileError` saying one is not a date."""
    import pandas as pd

    iso = all(d is None or (isinstance(d, float) and d != d) or (isinstance(d, str) and _ISO.match(d)) for d in dates)
    try:  # ISO 8601 in shapes that differ ('T' or a space, with or without seconds): pyperf writes both
        return pd.to_datetime(pd.Series(dates, dtype=object), format="ISO8601" if iso else None)
    except (ValueError, TypeError, OverflowError) as error:
        raise MalformedFileError(f"source: a run's date is not a date ({error})") from None


def _check_signs(names, value: np.ndarray, units, where: str) -> None:
    """Refuse a negative value in a unit that cannot be negative (a time, a rate, a size): what no harness writes.
    Every reader's check (:func:`_check_counts`) and a tidy table's (:func:`perfstudy.io._read._tidy_table`).

    Parameters
    ----------
    names, units
        Each entry's benchmark and unit (an entry's unit may be missing).
    value : ndarray
        Each entry's value.
    where : str
        What the message names first (``"source"``, a file).
    """
    from perfstudy._lib.units import never_negative

    negative = np.flatnonzero(value < 0).tolist()
    if not negative:
        return
    signless = {unit: never_negative(unit) for unit in {units[i] for i in negative}}
    found = [i for i in negative if signless[units[i]]]
    if found:
        i = found[0]
        raise MalformedFileError(
            f"{where}: {len(found)} negative value(s) in units that cannot be negative (first: "
            f"{names[i]!s}, {value[i]:g} {units[i]}); the file is damaged or not what it seems"
        )


def _check_counts(data: dict, codes: tuple[np.ndarray, list], repeats: bool = False) -> None:
    """Refuse what a harness never writes: a negative time, rate or size; a count of iterations (loops,
    operations) below 1; and two entries of one name, whose batches would merge into one benchmark
    (``repeats``: a value may repeat within an iteration, as JMH's sample histograms do)."""
    names = data["benchmark"]
    _check_signs(names, data["value"], data["unit"], "source")
    for name in _COUNTS:
        if name in data:
            counts = _numbers(data[name])
            bad = ~(counts >= 1) & ~np.isnan(counts) | _missing_as_text(data[name], counts)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise MalformedFileError(
                    f"source: {int(bad.sum())} row(s) with {name} below 1 or not a number (first: "
                    f"{names[i]!s}, {name}={data[name][i]!r}); a value per iteration needs at least one"
                )
    twice = np.zeros(0, dtype=bool) if repeats else _duplicated(_keys(data, codes[0]))
    if twice.any():
        found = sorted({str(codes[1][c]) for c in codes[0][twice].tolist()})
        raise MalformedFileError(
            f"source: two or more entries are named {found[:3]}: their batches would merge into one benchmark. "
            "Give each entry its own name (hyperfine -n, a parameter in the name), or split the file"
        )


def _missing_as_text(values, counts: np.ndarray) -> np.ndarray:
    """The entries that are present but not numbers (NaN from text): a count that is not a number."""
    if isinstance(values, np.ndarray) or _PLAIN.issuperset(map(type, values)):
        return np.zeros(counts.size, dtype=bool)
    return np.isnan(counts) & np.fromiter(
        (v is not None and not (isinstance(v, float) and v != v) for v in values), dtype=bool, count=len(values)
    )


def _codes(names) -> tuple[np.ndarray, list]:
    """Each entry's benchmark as a code 0, 1, 2, ... in order of first appearance, and the names in that order."""
    first: dict = {}
    at = np.fromiter(map(first.setdefault, names, itertools.count()), dtype=np.int64, count=len(names))
    dense = np.empty(len(names), dtype=np.int64)
    dense[np.fromiter(first.values(), dtype=np.int64, count=len(first))] = np.arange(len(first))
    return dense[at], list(first)


def _keys(data: dict, codes: np.ndarray) -> np.ndarray:
    """Each entry's benchmark, batch, iteration, warm-up flag and stage, as rows of integers: one row, their mixed-radix
    number, where it fits in an int64 (a fifth of the memory of a suite's rows)."""
    keys = [codes, data["batch"], data["iteration"], data["warmup"].astype(np.int64)]
    if "stage" in data:
        keys.append(_codes(data["stage"])[0])
    low = [int(k.min()) for k in keys]
    sizes = [int(k.max()) - lo + 1 for k, lo in zip(keys, low)]
    if math.prod(sizes) >= 2**62:
        return np.stack(keys)
    number = np.zeros(codes.size, dtype=np.int64)
    for key, lo, size in zip(keys, low, sizes):
        number *= size
        number += key - lo
    return number[None, :]


def _duplicated(keys: np.ndarray) -> np.ndarray:
    """Which columns of ``keys`` occur more than once."""
    order = np.lexsort(keys[::-1])
    ordered = keys[:, order]
    same = (ordered[:, 1:] == ordered[:, :-1]).all(axis=0)
    twice = np.zeros(keys.shape[1], dtype=bool)
    twice[order[1:][same]] = True
    twice[order[:-1][same]] = True
    return twice
