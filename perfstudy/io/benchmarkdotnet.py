"""BenchmarkDotNet's full JSON export (``[JsonExporterAttribute.Full]``, or ``--exporters json`` with
the full variant: ``*-report-full.json``), which holds every measurement."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from perfstudy.io._json import MalformedFileError, _entries, _mapping, _read_json, _reader, _require, _sequence
from perfstudy.io.columns import FileColumns, _measured_rows

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_benchmarkdotnet"]

#: BenchmarkDotNet's stages of the workload: Warmup (and Jitting, Pilot) before Actual measurements;
#: "Result" rows are Actual ones less the overhead, the values BenchmarkDotNet reports.
_KEEP = {"Actual": False, "Warmup": True}


def read_benchmarkdotnet(source, *, dropna: bool = False, stage: str = "Result") -> pd.DataFrame:
    """Read BenchmarkDotNet's full JSON export into the tidy schema.

    Each benchmark's ``Measurements`` hold, per *launch* (a fresh process: ``LaunchIndex``, the
    ``batch``), its iterations (``IterationIndex``) with their operation count and total
    nanoseconds; ``value`` is nanoseconds per operation. The rows kept are the workload's
    ``stage`` measurements (``"Result"``: the actual iterations less the overhead, what
    BenchmarkDotNet's own statistics use; or ``"Actual"``) and its warm-up iterations, flagged
    ``warmup``. Jitting, pilot and overhead iterations are left out. ``host`` is the machine name
    where the export has it, ``timestamp`` missing.

    The summary's ``DisplayInfo`` and ``FullName`` name the benchmark (with its parameters).

    Extra columns: ``operations``, ``stage``.

    Parameters
    ----------
    source : str, path or file-like
        The ``*-report-full.json`` file.
    dropna : bool
        Values that are null, NaN, infinite or not numbers are an error naming their count; with
        True they are left out with a warning, and ``attrs["dropped"]`` counts them.
    stage : {"Result", "Actual"}
        Which measured iterations to take.

    Raises
    ------
    ValueError
        A benchmark without ``Measurements``: the brief export (``*-report-brief.json``) has only
        statistics, which cannot be resampled.
    """
    return _benchmarkdotnet_columns(source, dropna=dropna, stage=stage).to_frame()


@_reader("BenchmarkDotNet", stage=("Result", "Actual"))
def _benchmarkdotnet_columns(source, *, dropna: bool = False, stage: str = "Result") -> FileColumns:
    """:func:`read_benchmarkdotnet`'s measurements as columns."""
    columns = _measured_rows(*_benchmarkdotnet_rows(_read_json(source, "BenchmarkDotNet"), stage=stage), dropna)
    # by benchmark name, launch, warm-ups first and iteration, as the harness ran them (stable, as a sort of keys)
    names = np.unique(columns.column("benchmark").astype(str), return_inverse=True)[1]
    order = np.lexsort((columns.column("iteration"), ~columns.column("warmup"), columns.column("batch"), names))
    return columns._taken(order)


def _benchmarkdotnet_rows(data, *, stage: str) -> tuple[list[dict], list[str], dict]:
    """:func:`read_benchmarkdotnet`'s rows (in the file's order; the reader sorts them by :data:`_ORDER`), extra
    columns and attrs from the parsed JSON, without pandas."""
    host = _mapping(data.get("HostEnvironmentInfo"), "'HostEnvironmentInfo'")
    rows = []
    for position, bench in _entries(data, "Benchmarks", "BenchmarkDotNet"):
        name = bench.get("FullName") or _require(bench, "DisplayInfo", f"benchmark {position}", "BenchmarkDotNet")
        if "Measurements" not in bench:
            raise MalformedFileError(
                f"source: {name} has no Measurements; export the full JSON (JsonExporterAttribute.Full), "
                "not the brief one"
            )
        for measurement in _sequence(bench["Measurements"], f"{name}'s Measurements"):
            measurement = _mapping(measurement, f"a measurement of {name}")
            if measurement.get("IterationMode") != "Workload":
                continue
            kind = measurement.get("IterationStage")
            if kind != stage and kind != "Warmup":
                continue
            operations = _require(measurement, "Operations", name, "BenchmarkDotNet")
            nanoseconds = _require(measurement, "Nanoseconds", name, "BenchmarkDotNet")
            rows.append(
                dict(
                    benchmark=name,
                    host=host.get("MachineName"),
                    batch=_require(measurement, "LaunchIndex", name, "BenchmarkDotNet"),
                    iteration=_require(measurement, "IterationIndex", name, "BenchmarkDotNet"),
                    warmup=kind == "Warmup",
                    value=nanoseconds / operations if operations else None,
                    unit="ns",
                    operations=operations,
                    stage=kind,
                )
            )
    return rows, ["operations", "stage"], {"tool": "BenchmarkDotNet", "host": host}
