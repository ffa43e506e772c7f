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

import os
import re
from pathlib import Path

import pandas as pd

from perfstudy.io._json import _reader
from perfstudy.io._read import COLUMNS, _frame

__all__ = ["read_go"]

_CONFIG = re.compile(r"^([a-z][^\s:A-Z]*):(?:[ \t]+(.*?)\s*|)$")


def _text_lines(source) -> tuple[list[str], str]:
    """``(lines, where)`` of a text file given by path or file object."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
        return path.read_text(encoding="utf-8", errors="replace").splitlines(), str(path)
    if hasattr(source, "read"):
        text = source.read()
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        return text.splitlines(), getattr(source, "name", "<stream>")
    raise TypeError(f"source: expected a path or a file object, got {type(source).__name__}")


#: the keys of a ``Unit`` line and their values (golang.org/x/perf/benchfmt: ``better`` and ``assume``)
_UNIT_KEYS = {"better": ("higher", "lower"), "assume": ("nothing", "exact")}


def _unit_line(fields: list[str], where: str, number: int, unit_meta: dict) -> None:
    """A ``Unit`` line's keys into ``unit_meta``; unknown keys and values are refused, not guessed."""
    if len(fields) < 2:
        raise ValueError(f"source: {where}:{number}: a Unit line without a unit")
    for item in fields[2:]:
        key, equals, value = item.partition("=")
        if not equals or not key:
            raise ValueError(f"source: {where}:{number}: expected key=value in the Unit line, got {item!r}")
        allowed = _UNIT_KEYS.get(key)
        if allowed is None:
            raise ValueError(
                f"source: {where}:{number}: unknown Unit key {key!r} (Go's benchmark format knows "
                f"{sorted(_UNIT_KEYS)}); perfstudy will not guess what it means"
            )
        if value not in allowed:
            raise ValueError(f"source: {where}:{number}: Unit {fields[1]} {key}={value}: expected one of {allowed}")
        unit_meta[(fields[1], key)] = value


@_reader("Go benchmark", accepts="text")
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
    lines, where = _text_lines(source)
    config: dict[str, str] = {}
    keys: dict[str, None] = {}
    unit_meta: dict[tuple[str, str], str] = {}
    results = []  # (line number, name, iterations, [(value, unit), ...], config)
    for number, line in enumerate(lines, start=1):
        if line.startswith("Benchmark"):
            fields = line.split()
            if len(fields) == 1:
                continue  # a name alone: go test -v prints it before the result
            name = fields[0][len("Benchmark") :]
            try:
                iterations = int(fields[1])
            except ValueError:
                raise ValueError(f"source: {where}:{number}: iteration count {fields[1]!r} is not an integer") from None
            if iterations < 1:
                raise ValueError(f"source: {where}:{number}: iteration count {iterations} is not a positive integer")
            pairs = fields[2:]
            if not pairs or len(pairs) % 2:
                raise ValueError(f"source: {where}:{number}: expected 'value unit' pairs after the iteration count")
            metrics = []
            for value, unit in zip(pairs[::2], pairs[1::2]):
                try:
                    metrics.append((float(value), unit))
                except ValueError:
                    raise ValueError(f"source: {where}:{number}: measurement {value!r} is not a number") from None
            results.append((number, name, iterations, metrics, dict(config)))
            continue
        if line.startswith("Unit"):
            fields = line.split()
            if fields[0] == "Unit":
                _unit_line(fields, where, number, unit_meta)
                continue
        match = _CONFIG.match(line)
        if match:
            key, value = match.group(1), match.group(2)
            if value:
                config[key] = value
                keys[key] = None
            else:
                config.pop(key, None)
    if not results:
        raise ValueError(f"source: {where}: no Go benchmark result lines ('BenchmarkName N value unit ...')")
    packages = {r[4].get("pkg") for r in results}
    prefix = len(packages) > 1
    procs_pattern = re.compile(r"-(\d+)$")
    rows, batches = [], {}
    for _, name, iterations, metrics, settings in results:
        full = f"{settings['pkg']}.{name}" if prefix and settings.get("pkg") else name
        procs = procs_pattern.search(name)
        for position, (value, unit) in enumerate(metrics):
            benchmark = full if position == 0 else f"{full} {unit}"
            batch = batches.get(benchmark, 0)
            batches[benchmark] = batch + 1
            rows.append(
                dict(
                    benchmark=benchmark,
                    batch=batch,
                    iteration=0,
                    warmup=False,
                    value=value,
                    unit=unit,
                    iterations=iterations,
                    procs=int(procs.group(1)) if procs else None,
                    assume=unit_meta.get((unit, "assume")),
                    better=unit_meta.get((unit, "better")),
                    **{key: settings.get(key) for key in keys},
                )
            )
    extra = ["iterations", "procs", "assume", "better", *[k for k in keys if k not in COLUMNS]]
    return _frame(rows, extra, {"tool": "go", "units": {f"{u} {k}": v for (u, k), v in unit_meta.items()}}, dropna)
