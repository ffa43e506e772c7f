"""Go's benchmark format: what ``go test -bench`` prints, and benchstat reads.

The rules are those of ``golang.org/x/perf/benchfmt``:

- A *result line* starts with ``Benchmark``: the name, the iteration count, then one or more
  ``value unit`` pairs (``ns/op``, ``B/op``, ``allocs/op``, ``MB/s``, custom metrics). The name keeps
  its sub-benchmarks (``/size=100K``) and its ``-N`` GOMAXPROCS suffix.
- A *configuration line* is ``key: value`` with a key that starts with a lower-case letter and has
  no space or upper-case letter (``goos:``, ``pkg:``, ``cpu:``, ``note:`` ...). It holds for the
  result lines after it, until the key is set again; an empty value removes it.
- A *unit line*, ``Unit ns/op assume=exact better=lower``, gives metadata of a unit: ``assume=exact``
  says the values have no distribution (a binary size), ``better=higher|lower`` which way is better.
- Every other line (``PASS``, ``ok``, test output) is ignored.
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from perfstudy.io._json import MalformedFileError, _reader
from perfstudy.io.columns import COLUMNS, FileColumns, _codes, _measured

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_go"]

_CONFIG = re.compile(r"^([a-z][^\s:A-Z]*):(?:[ \t]+(.*?)\s*|)$")


def _text(source) -> tuple[str, str]:
    """``(text, where)`` of a text file given by path or file object."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
        return path.read_text(encoding="utf-8-sig", errors="replace"), str(path)
    if hasattr(source, "read"):
        text = source.read()
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        return text, getattr(source, "name", "<stream>")
    raise TypeError(f"source: expected a path or a file object, got {type(source).__name__}")


#: the keys of a ``Unit`` line and their values (golang.org/x/perf/benchfmt: ``better`` and ``assume``)
_UNIT_KEYS = {"better": ("higher", "lower"), "assume": ("nothing", "exact")}


def _unit_line(fields: list[str], where: str, number: int, unit_meta: dict) -> None:
    """A ``Unit`` line's keys into ``unit_meta``; unknown keys and values are refused, not guessed."""
    if len(fields) < 2:
        raise MalformedFileError(f"source: {where}:{number}: a Unit line without a unit")
    for item in fields[2:]:
        key, equals, value = item.partition("=")
        if not equals or not key:
            raise MalformedFileError(f"source: {where}:{number}: expected key=value in the Unit line, got {item!r}")
        allowed = _UNIT_KEYS.get(key)
        if allowed is None:
            raise MalformedFileError(
                f"source: {where}:{number}: unknown Unit key {key!r} (Go's benchmark format knows "
                f"{sorted(_UNIT_KEYS)}); perfstudy will not guess what it means"
            )
        if value not in allowed:
            raise MalformedFileError(
                f"source: {where}:{number}: Unit {fields[1]} {key}={value}: expected one of {allowed}"
            )
        unit_meta[(fields[1], key)] = value


class _Lines:
    """The result lines of a file: each one's name, iteration count and configuration (an index into
    ``snapshots``), and its metrics flattened: the line each belongs to, its position on the line, value
    and unit."""

    def __init__(self):
        self.names: list[str] = []
        self.iterations: list[int] | np.ndarray = []
        self.snapshot: list[int] | np.ndarray = []
        self.metric_line: list[int] | np.ndarray = []
        self.position: list[int] | np.ndarray = []
        self.values: list[float] | np.ndarray = []
        self.units: list[str] = []
        self.snapshots: list[dict] = [{}]
        self.keys: dict[str, None] = {}
        self.unit_meta: dict[tuple[str, str], str] = {}


def _other_line(line: str, where: str, number: int, parsed: _Lines, config: dict) -> bool:
    """A line that is not a result: a ``Unit`` line into ``parsed.unit_meta``, a configuration line into
    ``config`` and a new snapshot of it; anything else ignored. True when the configuration changed."""
    if line.startswith("Unit"):
        fields = line.split()
        if fields[0] == "Unit":
            _unit_line(fields, where, number, parsed.unit_meta)
            return False
    found = _CONFIG.match(line)
    if not found:
        return False
    key, value = found.group(1), found.group(2)
    if value:
        config[key] = value
        parsed.keys[key] = None
    else:
        config.pop(key, None)
    parsed.snapshots.append(dict(config))
    return True


def _settings(lines: list[str], where: str, is_result: np.ndarray, parsed: _Lines) -> np.ndarray:
    """Read every line that is not a result (configuration and ``Unit`` lines) into ``parsed``; return, for
    each line of the file, the configuration snapshot in force there (an index into ``parsed.snapshots``)."""
    config: dict[str, str] = {}
    changed_after = []  # the line after which each snapshot (from the second) holds
    for index in np.flatnonzero(~is_result).tolist():
        if _other_line(lines[index], where, index + 1, parsed, config):
            changed_after.append(index)
    return np.searchsorted(np.asarray(changed_after, dtype=np.int64), np.arange(len(lines)), side="left")


def _line_by_line(lines: list[str], where: str) -> _Lines:
    """benchfmt's rules, one line at a time: the reference the fast path is tested against, and the path
    that names the line of any error."""
    parsed = _Lines()
    is_result = np.array([line.startswith("Benchmark") and len(line.split()) > 1 for line in lines], dtype=bool)
    at = _settings(lines, where, is_result, parsed).tolist()
    for number, line in enumerate(lines, start=1):
        if not is_result[number - 1]:
            continue
        fields = line.split()
        try:
            iterations = int(fields[1])
        except ValueError:
            raise MalformedFileError(
                f"source: {where}:{number}: iteration count {fields[1]!r} is not an integer"
            ) from None
        if not 1 <= iterations <= _MAX_ITERATIONS:
            raise MalformedFileError(
                f"source: {where}:{number}: iteration count {iterations} is not a positive integer below 2^63"
            )
        pairs = fields[2:]
        if not pairs or len(pairs) % 2:
            raise MalformedFileError(f"source: {where}:{number}: expected 'value unit' pairs after the iteration count")
        index = len(parsed.names)
        for position, (value, unit) in enumerate(zip(pairs[::2], pairs[1::2])):
            try:
                number_value = float(value)
            except ValueError:
                raise MalformedFileError(f"source: {where}:{number}: measurement {value!r} is not a number") from None
            parsed.metric_line.append(index)  # type: ignore[union-attr]
            parsed.position.append(position)  # type: ignore[union-attr]
            parsed.values.append(number_value)  # type: ignore[union-attr]
            parsed.units.append(unit)
        parsed.names.append(fields[0][len("Benchmark") :])
        parsed.iterations.append(iterations)  # type: ignore[union-attr]
        parsed.snapshot.append(at[number - 1])  # type: ignore[union-attr]
    return parsed


#: a line that is not a result (configuration, Unit, test output, blank), with the line end before it: a
#: pattern that starts with a literal is searched for at C speed, where ``^`` is tried at every position.
#: Files whose result lines differ in width (a metric on some lines only) are read line by line.
_OTHER = re.compile(r"\n(?!Benchmark)[^\n]*")
#: line ends other than \n that str.splitlines also breaks at: such a file is read line by line
_OTHER_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


#: characters of result lines split at a time: the tokens of one piece, not of the file, are held at once
PIECE = 1 << 18


def _blocks(text: str, where: str, parsed: _Lines) -> list[tuple[int, int, int]]:
    """The runs of result lines between other lines, as ``(start, end, snapshot)`` offsets into ``text``;
    the other lines (configuration, ``Unit``) are read into ``parsed`` on the way."""
    config: dict[str, str] = {}
    blocks = []

    def other(line: str) -> None:
        _other_line(line, where, 0, parsed, config)  # line 0: an error is named by the line-by-line reading

    end = -1  # the line end before the next line
    if not text.startswith("Benchmark"):
        end = text.find("\n")
        end = len(text) if end < 0 else end
        other(text[:end])
    for match in _OTHER.finditer(text, max(end, 0)):
        start = match.start()
        if start > end:  # the result lines since the last other line
            blocks.append((end + 1, start, len(parsed.snapshots) - 1))
        end = match.end()
        other(match.group()[1:])
    if end + 1 < len(text):
        blocks.append((end + 1, len(text), len(parsed.snapshots) - 1))
    return blocks


def _pieces(text: str, start: int, end: int):
    """``text[start:end]`` in pieces of about :data:`PIECE` characters, each ending at a line end."""
    while start < end:
        stop = min(end, start + PIECE)
        if stop < end:
            cut = text.rfind("\n", start, stop)
            stop = cut if cut > start else (text.find("\n", stop, end) if text.find("\n", stop, end) >= 0 else end)
        yield text[start:stop]
        start = stop + 1


def _vectorised(text: str, where: str) -> _Lines:
    """The same as :func:`_line_by_line`, without a Python step per line where the file allows: the result
    lines between other lines are split a piece at a time (:data:`PIECE`), and when every result line has
    the same number of fields (every name at that stride) their numbers are converted by numpy, column by
    column. Names and units are shared objects, one per distinct value. Raises on anything irregular, for
    the caller to read the file line by line (and name the line at fault)."""
    if any(c in text for c in _OTHER_BREAKS):
        raise ValueError("line ends other than \\n")
    parsed = _Lines()
    blocks = _blocks(text, where, parsed)
    if not blocks:
        raise ValueError("no result line")
    first = text[blocks[0][0] : blocks[0][1]].split("\n", 1)[0].split()
    width = len(first)
    if width < 4 or width % 2:
        raise ValueError("irregular")
    metrics = (width - 2) // 2
    stripped: dict = {}
    shared_units: dict = {}
    iterations, values, units, names, lines_per_block = [], [], [], [], []
    for start, end, _ in blocks:
        lines = 0
        for piece in _pieces(text, start, end):
            flat = piece.split()
            count = piece.count("\n") + 1
            if len(flat) != width * count or not all(map(str.startswith, flat[::width], itertools.repeat("Benchmark"))):
                raise ValueError("irregular")
            lines += count
            iterations.append(np.asarray(flat[1::width], dtype=np.int64))
            matrix = np.empty((count, metrics))
            piece_units = []
            for position in range(metrics):
                matrix[:, position] = np.asarray(flat[2 + 2 * position :: width], dtype=float)
                piece_units.append(list(map(shared_units.setdefault, flat[3 + 2 * position :: width], flat[3 + 2 * position :: width])))  # fmt: skip
            values.append(matrix.reshape(-1))
            units += piece_units[0] if metrics == 1 else itertools.chain.from_iterable(zip(*piece_units))
            for name in flat[::width]:
                if name not in stripped:
                    stripped[name] = name[len("Benchmark") :]
            names += map(stripped.__getitem__, flat[::width])
        lines_per_block.append(lines)
    count = len(names)
    parsed.iterations = np.concatenate(iterations)
    if (parsed.iterations < 1).any():
        raise ValueError("irregular")
    parsed.values, parsed.units, parsed.names = np.concatenate(values), units, names
    parsed.metric_line = np.repeat(np.arange(count), metrics)
    parsed.position = np.tile(np.arange(metrics), count)
    parsed.snapshot = np.repeat(np.asarray([b[2] for b in blocks], dtype=np.int64), lines_per_block)
    return parsed


@_reader("Go benchmark", accepts="text")
def _go_file_columns(source, *, dropna: bool = False) -> FileColumns:
    """:func:`read_go`'s measurements as columns: each metric of a result line an entry, its benchmark's name
    composed once (a suite's rows share its few names), the configuration in force at its line."""
    text, where = _text(source)
    try:
        parsed = _vectorised(text, where)
    except (ValueError, OverflowError):
        # names the line at fault, or reads what the fast path could not
        parsed = _line_by_line(text.splitlines(), where)
    if not parsed.names:
        raise MalformedFileError(f"source: {where}: no Go benchmark result lines ('BenchmarkName N value unit ...')")
    snapshot = np.asarray(parsed.snapshot, dtype=np.int64)
    metric_line = np.asarray(parsed.metric_line, dtype=np.int64)
    position = np.asarray(parsed.position, dtype=np.int64)
    one_metric = metric_line.size == len(parsed.names)  # then metric_line is 0, 1, 2, ...
    packages = {parsed.snapshots[i].get("pkg") for i in set(snapshot.tolist())}
    full = parsed.names
    made: dict = {}  # each composed name once: a suite's rows share its few distinct names
    if len(packages) > 1:
        pkg = [parsed.snapshots[i].get("pkg") for i in snapshot.tolist()]
        full = [made.setdefault((p, name), f"{p}.{name}" if p else name) for p, name in zip(pkg, parsed.names)]
    units = parsed.units
    if one_metric:
        benchmark = list(full)
        row_names = parsed.names
    else:
        benchmark = [
            full[line] if p == 0 else made.setdefault((full[line], unit), f"{full[line]} {unit}")
            for line, p, unit in zip(metric_line.tolist(), position.tolist(), units)
        ]
        row_names = [parsed.names[line] for line in metric_line.tolist()]
    procs_of = {}
    for name in set(parsed.names):
        found = _PROCS.search(name)
        procs_of[name] = int(found.group(1)) if found else None
    coded = _codes(benchmark)
    codes = coded[0]
    row_snapshot = snapshot[metric_line]
    unit_meta = dict(parsed.unit_meta)
    columns = dict(
        benchmark=benchmark,
        host=np.nan,
        timestamp=None,
        batch=_occurrence(codes),
        iteration=0,
        warmup=False,
        value=np.asarray(parsed.values, dtype=float),
        unit=units,
        iterations=np.asarray(parsed.iterations, dtype=np.int64)[metric_line],
        procs=_procs_column(list(map(procs_of.__getitem__, row_names))),
        assume=[unit_meta.get((unit, "assume")) for unit in units] if unit_meta else None,
        better=[unit_meta.get((unit, "better")) for unit in units] if unit_meta else None,
    )
    used = set(row_snapshot.tolist())  # (np.unique would import numpy.ma: test_quantiles)
    for key in (k for k in parsed.keys if k not in COLUMNS):
        values = {parsed.snapshots[i].get(key) for i in used}
        if len(values) == 1:  # set once for the whole file (goos, goarch, cpu): one value, not one a line
            columns[key] = next(iter(values))
        else:
            by_snapshot = np.array([state.get(key) for state in parsed.snapshots], dtype=object)
            columns[key] = by_snapshot[row_snapshot].tolist()
    units_said = {f"{u} {k}": v for (u, k), v in unit_meta.items()}
    del text, parsed, full, made, row_names  # the parse, freed before the check: a suite's peak memory is the sum
    return _measured(columns, {"tool": "go", "units": units_said}, dropna, codes=coded)


#: the largest iteration count an int64 holds (go test's b.N is an int)
_MAX_ITERATIONS = 2**63 - 1


def _occurrence(codes: np.ndarray) -> np.ndarray:
    """Each entry's count of earlier entries with the same code: its batch (0, 1, 2, ... per benchmark)."""
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes)
    occurrence = np.empty(codes.size, dtype=np.int64)
    occurrence[order] = np.arange(codes.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    return occurrence


_PROCS = re.compile(r"-(\d+)$")


def _procs_column(procs: list):
    """The ``procs`` column as pandas would make it of ints and Nones: ints, floats with NaN, or Nones."""
    if None not in procs:
        return np.asarray(procs, dtype=np.int64)
    if all(p is None for p in procs):
        return None  # no -N suffix anywhere: one value throughout
    return np.array([np.nan if p is None else p for p in procs], dtype=float)


def read_go(source, *, dropna: bool = False) -> pd.DataFrame:
    """Read Go benchmark text (``go test -bench . -count 10 > file.txt``), with benchfmt's rules.

    Every result line is one *batch*: ``go test`` runs the benchmark function afresh for it, with
    its own iteration count and one per-operation mean per metric. ``iteration`` is 0 and
    ``warmup`` False (go test does not write its warm-up). The first metric of a line (``ns/op`` as
    ``go test`` writes it) keeps the benchmark's name, without the ``Benchmark`` prefix; each further
    metric is a benchmark of its own, named ``"<name> <unit>"`` (``"Encode-8 allocs/op"``), so that
    a comparison judges each. Where the file has result lines of several ``pkg:`` values, names are
    prefixed by their package (``"index/suffixarray.New-8"``).

    Extra columns: ``iterations`` (``b.N``), ``procs`` (the ``-N`` suffix, else missing),
    ``assume`` and ``better`` (from ``Unit`` lines, else missing), and one column per configuration
    key (``goos``, ``goarch``, ``pkg``, ``cpu``, ``note``, ...), holding the value in force at the
    line. Split a file into versions by one of them, as benchstat's ``-col``, with
    ``compare(df, by="note")`` or ``perfstudy compare FILE --by note``.

    Parameters
    ----------
    source : str, path or file-like
        The text file.
    dropna : bool
        Values that are NaN or infinite are an error naming their count; with True they are left
        out with a warning, and ``attrs["dropped"]`` counts them.

    Raises
    ------
    ValueError
        A result line without an iteration count, a value or a unit (naming its line), or a file
        with no result line.
    """

    return _go_file_columns(source, dropna=dropna).to_frame()
