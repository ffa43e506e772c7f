"""pytest-benchmark's JSON (``pytest --benchmark-json=file.json``, or the files that
``--benchmark-save``/``--benchmark-autosave`` write under ``.benchmarks/`` when given
``--benchmark-save-data``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from perfstudy.io._json import MalformedFileError, _entries, _mapping, _read_json, _reader, _require, _sequence
from perfstudy.io.columns import FileColumns, _measured_rows

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_pytest_benchmark"]


def read_pytest_benchmark(source, *, dropna: bool = False) -> pd.DataFrame:
    """Read pytest-benchmark JSON into the tidy schema.

    Each benchmark's ``stats.data`` holds one value per *round*: the time of one call, averaged over
    the round's ``iterations`` calls, in seconds. A round is the ``batch`` here, the unit that
    pytest-benchmark itself repeats; all the rounds of one file ran in one pytest process, one
    after the other, so what a process shares (its memory layout, its warm caches) is not
    resampled: to include it, run pytest several times and give each run's rows their own batches
    (a tidy CSV). Warm-up rounds (``--benchmark-warmup``) are not written: ``warmup`` is all False.
    ``host`` is ``machine_info.node``, ``timestamp`` the file's ``datetime``.

    Extra columns: ``iterations`` (calls per round), ``group``, ``params``, and ``process``, 0 on every row: one
    process ran them all, which :func:`perfstudy.comparison.compare` reads as one process a side (its verdict is
    then "inconclusive" unless ``trust_one_process``).

    Parameters
    ----------
    source : str, path or file-like
        The JSON file.
    dropna : bool
        Values that are null, NaN, infinite or not numbers are an error naming their count; with
        True they are left out with a warning, and ``attrs["dropped"]`` counts them.

    Raises
    ------
    ValueError
        A benchmark without raw rounds (``stats.data``): a file that ``--benchmark-save`` wrote without
        ``--benchmark-save-data`` holds only summaries, which cannot be resampled.
    """
    return _pytest_benchmark_columns(source, dropna=dropna).to_frame()


@_reader("pytest-benchmark")
def _pytest_benchmark_columns(source, *, dropna: bool = False) -> FileColumns:
    """:func:`read_pytest_benchmark`'s measurements as columns."""
    return _measured_rows(*_pytest_benchmark_rows(_read_json(source, "pytest-benchmark")), dropna)


def _pytest_benchmark_rows(data) -> tuple[list[dict], list[str], dict]:
    """:func:`read_pytest_benchmark`'s rows, extra columns and attrs from the parsed JSON, without pandas."""
    machine = _mapping(data.get("machine_info"), "'machine_info'")
    rows = []
    for position, bench in _entries(data, "benchmarks", "pytest-benchmark"):
        name = bench.get("fullname") or _require(bench, "name", f"benchmark {position}", "pytest-benchmark")
        stats = _mapping(_require(bench, "stats", name, "pytest-benchmark"), f"{name}'s stats")
        if "data" not in stats:
            raise MalformedFileError(
                f"source: {name} has no raw rounds (stats.data), only summaries; write the file with "
                "--benchmark-json, or --benchmark-save with --benchmark-save-data"
            )
        params = _mapping(bench.get("params"), f"{name}'s params")
        label = ", ".join(f"{k}={v}" for k, v in params.items())
        for round_, value in enumerate(_sequence(stats["data"], f"{name}'s stats.data")):
            rows.append(
                dict(
                    benchmark=name,
                    host=machine.get("node"),
                    timestamp=data.get("datetime"),
                    batch=round_,
                    iteration=0,
                    warmup=False,
                    value=value,
                    unit="s",
                    iterations=stats.get("iterations"),
                    group=bench.get("group"),
                    params=label or None,
                    process=0,
                )
            )
    attrs = {"tool": "pytest-benchmark", "machine_info": machine, "commit_info": data.get("commit_info")}
    return rows, ["iterations", "group", "params", "process"], attrs
