""":func:`csv_columns`: a tidy CSV table as :class:`perfstudy.io.columns.FileColumns`, without pandas, where
``pandas.read_csv`` would give the same columns; :class:`perfstudy.io.columns.ColumnsError` otherwise, and the
caller reads the file with :func:`perfstudy.io.read`.

``pd.read_csv`` infers each column's type from all of its fields: a column of names that all look like numbers
becomes numbers, ``NA`` or ``null`` becomes missing, ``True`` a flag. Rather than imitate that inference, the
lean path takes only a table whose every field reads one way:

- the header names only ``benchmark``, ``batch``, ``iteration``, ``warmup``, ``value`` and ``unit``, each once,
  ``value`` and ``batch`` among them;
- no quotes, no byte-order mark, no blank line, every row as many fields as the header;
- ``value``: decimal numbers, finite (``read`` refuses the rest by name, or leaves them out with ``dropna``);
- ``batch`` and ``iteration``: integers; ``warmup``: ``True``/``False`` (any case pandas reads as a flag) or
  ``0``/``1``, one spelling throughout;
- ``benchmark`` and ``unit``: texts that no reader would take for a number, a flag or a missing value, and one unit
  a benchmark (``read`` keeps several, which compare converts);
- without an ``iteration`` column, each benchmark's batches in the order of their numbers, and the benchmarks in
  an order that sorting by batch keeps (``compare`` then takes the rows in the file's order, and ``iteration``
  here is the row's place in the file).

A CSV of perfstudy's own run (beside its ``.json`` record) is not for this path: the command line sends it to
``read`` before it gets here.
"""

from __future__ import annotations

from itertools import repeat
from pathlib import Path

import numpy as np

from perfstudy.io.columns import ColumnsError, FileColumns

__all__ = ["csv_columns"]

_COLUMNS = ("benchmark", "batch", "iteration", "warmup", "value", "unit")
_DECIMAL = frozenset("0123456789.eE+-")
_SIGNED = frozenset("0123456789+-")
_FLAGS = {"True": True, "TRUE": True, "true": True, "False": False, "FALSE": False, "false": False}
#: pandas' default missing-value markers (``pd.read_csv``'s ``na_values``)
_MISSING = frozenset(
    ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA",
     "NULL", "NaN", "None", "n/a", "nan", "null")
)  # fmt: skip
#: the extensions from which ``pd.read_csv`` infers a compression
_COMPRESSED = (".gz", ".bz2", ".zip", ".xz", ".zst", ".tar", ".tgz")


def csv_columns(path) -> FileColumns:
    """A tidy CSV table's columns, as :func:`perfstudy.io.read` would give them (module text for what it takes).

    Parameters
    ----------
    path : str or path
        The ``.csv`` file.

    Returns
    -------
    FileColumns
        ``tool`` is ``"csv"``; ``unit`` holds None for every benchmark of a table without a ``unit`` column.

    Raises
    ------
    ColumnsError
        A table whose fields might read otherwise: read it with :func:`perfstudy.io.read`.
    """
    path = Path(path)
    if path.suffix.lower() in _COMPRESSED:
        raise ColumnsError(f"source: {path.name} is compressed; read by perfstudy.io.read")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ColumnsError("source: not UTF-8 text") from None
    text = text.replace("\r\n", "\n")
    if '"' in text or "\r" in text or text.startswith("\ufeff"):
        raise ColumnsError("source: quotes, a lone carriage return or a byte-order mark")
    first, _, body = text.partition("\n")
    header = first.split(",")
    if len(set(header)) != len(header) or not set(header) <= set(_COLUMNS) or not {"value", "batch"} <= set(header):
        raise ColumnsError(f"source: the header {header[:8]} is not of tidy columns alone, with value and batch")
    body = body.removesuffix("\n")
    width = len(header)
    if not body or set(map(str.count, body.split("\n"), repeat(","))) != {width - 1}:
        raise ColumnsError("source: no rows, a blank line, or a row of another length than the header")
    flat = body.replace("\n", ",").split(",")
    found = {name: flat[i::width] for i, name in enumerate(header)}
    count = len(found["value"])
    batch = _integers(found["batch"])
    names = _texts(found.get("benchmark", ["benchmark"] * count))
    index = {name: code for code, name in enumerate(dict.fromkeys(names))}
    codes = np.fromiter(map(index.__getitem__, names), dtype=np.int64, count=count)
    return FileColumns(
        codes=codes,
        distinct=list(index),
        batch=batch,
        iteration=_integers(found["iteration"]) if "iteration" in found else _positions(batch, codes),
        warmup=_flags(found["warmup"]) if "warmup" in found else np.zeros(count, dtype=bool),
        value=_numbers(found["value"]),
        unit=_units(found["unit"], codes, len(index)) if "unit" in found else [None] * len(index),
        tool="csv",
    )


def _numbers(column: list) -> np.ndarray:
    """Decimal numbers (digits, a point, an exponent, signs), finite: parsed as Python's float parses them, which
    is how ``pd.read_csv``'s converter rounds (``tests/io/test_csv_columns.py`` compares the two bit for bit)."""
    if not set("".join(column)) <= _DECIMAL or not all(column):
        raise ColumnsError("source: a value that is not a plain decimal number")
    try:
        values = np.array(column, dtype=float)
    except ValueError:
        raise ColumnsError("source: a value that is not a plain decimal number") from None
    if max(map(len, column)) > 16 and any("." not in f and "e" not in f.lower() and len(f) > 16 for f in column):
        raise ColumnsError("source: an integer value too long for a float")  # pandas keeps it an integer
    if not np.isfinite(values).all():
        raise ColumnsError("source: a value that is not finite")
    return values


def _integers(column: list) -> np.ndarray:
    if not set("".join(column)) <= _SIGNED or not all(column) or max(map(len, column)) > 16:
        raise ColumnsError("source: a batch or iteration that is not an integer")
    try:
        return np.array(column, dtype=np.int64)
    except ValueError:
        raise ColumnsError("source: a batch or iteration that is not an integer") from None


def _flags(column: list) -> np.ndarray:
    spellings = set(column)
    if spellings <= set(_FLAGS):
        return np.array([_FLAGS[field] for field in column], dtype=bool)
    if spellings <= {"0", "1"}:
        return np.array([field == "1" for field in column], dtype=bool)
    raise ColumnsError("source: a warm-up flag that is not True/False or 0/1 throughout")


def _texts(column: list) -> list:
    for field in set(column):
        if field in _MISSING or field in _FLAGS or _looks_numeric(field):
            raise ColumnsError(f"source: {field!r} might be read as a number, a flag or a missing value")
    return column


def _looks_numeric(field: str) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def _units(column: list, codes: np.ndarray, count: int) -> list:
    """Each benchmark's one unit, by code."""
    units: list = [None] * count
    for code, unit in dict.fromkeys(zip(codes.tolist(), _texts(column))):
        if units[code] is not None:
            raise ColumnsError("source: a benchmark in two units, which compare converts from read()'s frame")
        units[code] = unit
    return units


def _positions(batch: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Each row's place for a table without an ``iteration`` column: its row in the file. compare takes such a
    table's rows in the file's order, and the columns are sorted by batch and then this place; the two agree
    where each benchmark's batches come in the order of their numbers and the benchmarks first appear in the same
    order either way, which is asked here."""
    rows = np.arange(batch.size)
    by_benchmark = np.lexsort((rows, codes))
    same = codes[by_benchmark][1:] == codes[by_benchmark][:-1]
    if (np.diff(batch[by_benchmark])[same] < 0).any():
        raise ColumnsError("source: a benchmark's batches out of order and no iteration column to order them")
    sorted_codes = codes[np.lexsort((rows, batch))]
    if list(dict.fromkeys(sorted_codes.tolist())) != list(dict.fromkeys(codes.tolist())):
        raise ColumnsError("source: benchmarks that sorting by batch would reorder, and no iteration column")
    return rows
