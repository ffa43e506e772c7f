"""criterion.rs's output: ``target/criterion/<benchmark>/new/sample.json`` beside ``benchmark.json``,
or the ``raw.csv`` files that criterion writes next to them."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

from perfstudy.io._json import MalformedFileError, _read_json, _reader, _require, _sequence
from perfstudy.io.columns import FileColumns, _measured_rows

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_criterion"]

_CSV_COLUMNS = ("group", "function", "value", "sample_measured_value", "unit", "iteration_count")
#: criterion's time units, to nanoseconds
_NS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}


def _sample_rows(sample_path: Path, name: str) -> list[dict]:
    """The rows of one ``sample.json``."""
    sample = _read_json(sample_path, "criterion")
    iters = _sequence(_require(sample, "iters", str(sample_path), "criterion"), "'iters'")
    times = _sequence(_require(sample, "times", str(sample_path), "criterion"), "'times'")
    if len(iters) != len(times):
        raise MalformedFileError(f"source: {sample_path}: {len(iters)} iteration counts for {len(times)} times")
    mode = sample.get("sampling_mode")
    return [
        dict(
            benchmark=name,
            batch=i,
            iteration=0,
            warmup=False,
            value=t / n if n else None,
            unit="ns",
            iterations=n,
            sampling_mode=mode,
        )
        for i, (n, t) in enumerate(zip(iters, times))
    ]


def _name(folder: Path, root: Path | None) -> str:
    """The benchmark's id: ``full_id`` from benchmark.json, else the folder's path below ``root``."""
    info = folder / "benchmark.json"
    if info.is_file():
        meta = _read_json(info, "criterion")
        if isinstance(meta, dict) and meta.get("full_id"):
            return str(meta["full_id"])
    if root is None or folder.parent == root:
        return folder.parent.name
    return folder.parent.relative_to(root).as_posix()


def _csv_rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in _CSV_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise MalformedFileError(f"source: {path}: not criterion's raw.csv (no {missing} columns)")
        rows = []
        for i, line in enumerate(reader):
            name = "/".join(part for part in (line["group"], line["function"], line["value"]) if part)
            unit = line["unit"]
            if unit not in _NS:
                raise MalformedFileError(
                    f"source: {path}: unit {unit!r} is not one of criterion's time units {sorted(_NS)}"
                )
            try:
                measured, count = float(line["sample_measured_value"]), float(line["iteration_count"])
            except ValueError:
                raise MalformedFileError(f"source: {path}: row {i + 1} holds a value that is not a number") from None
            rows.append(
                dict(
                    benchmark=name,
                    batch=i,
                    iteration=0,
                    warmup=False,
                    value=measured * _NS[unit] / count if count else None,
                    unit="ns",
                    iterations=count,
                    sampling_mode=None,
                )
            )
    # rows are numbered per benchmark
    seen: dict[str, int] = {}
    for row in rows:
        row["batch"] = seen.get(row["benchmark"], 0)
        seen[row["benchmark"]] = row["batch"] + 1
    return rows


def read_criterion(source, *, which: str = "new", dropna: bool = False) -> pd.DataFrame:
    """Read criterion.rs's measurements into the tidy schema.

    criterion takes each benchmark's *samples* in one process: sample ``i`` runs the routine
    ``iters[i]`` times and records the total time ``times[i]`` (ns); ``value`` is their ratio, ns per
    iteration. A sample is the ``batch``, the unit criterion itself repeats; all samples of a
    benchmark ran in one process one after the other, so what the process shares is not resampled
    (compare several runs of ``cargo bench`` as separate batches, in a tidy CSV, to include it).
    criterion's warm-up is not written: ``warmup`` is all False.

    Extra columns: ``iterations``, ``sampling_mode`` (``Linear``/``Flat``, from sample.json), and ``process``, 0 on
    every row: :func:`perfstudy.comparison.compare` reads it as one process a side (its verdict is then
    "inconclusive" unless ``trust_one_process``).

    Parameters
    ----------
    source : str or path
        ``target/criterion`` (or any folder below it: every ``<benchmark>/<which>/sample.json`` found),
        one ``sample.json``, or one ``raw.csv``.
    which : {"new", "base"}
        With a folder, the latest run (``new``) or the saved baseline (``base``, ``--save-baseline``).
    dropna : bool
        Values that are null, NaN, infinite or not numbers are an error naming their count; with
        True they are left out with a warning, and ``attrs["dropped"]`` counts them.
    """
    return _criterion_columns(source, which=which, dropna=dropna).to_frame()


@_reader("criterion", accepts="path", which=("new", "base"))
def _criterion_columns(source, *, which: str = "new", dropna: bool = False) -> FileColumns:
    """:func:`read_criterion`'s measurements as columns."""
    path = Path(source)
    if path.is_dir():
        samples = sorted(p for p in path.rglob("sample.json") if p.parent.name == which)
        if not samples:
            raise MalformedFileError(f"source: {path}: no */{which}/sample.json below it; is this target/criterion?")
        rows = [row for sample in samples for row in _sample_rows(sample, _name(sample.parent, path))]
    elif path.suffix.lower() == ".csv":
        rows = _csv_rows(path)
    elif path.is_file():
        rows = _sample_rows(path, _name(path.parent, None))
    else:
        raise FileNotFoundError(f"{path}: no such file")
    rows = [row | {"process": 0} for row in rows]  # one process took every sample
    extra = ["iterations", "sampling_mode", "process"]
    return _measured_rows(rows, extra, {"tool": "criterion", "which": which}, dropna)
