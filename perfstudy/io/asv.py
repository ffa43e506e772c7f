"""airspeed velocity's result files (``.asv/results/<machine>/<commit>-<environment>.json``, written
by ``asv run --record-samples``)."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np

from perfstudy.io._json import MalformedFileError, _mapping, _read_json, _reader, _require
from perfstudy.io.columns import FileColumns, _measured_rows

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_asv"]


def read_asv(source, *, dropna: bool = False) -> pd.DataFrame:
    """Read an asv result file into the tidy schema.

    asv stores one row per benchmark under the names of ``result_columns``; ``samples`` holds, per
    combination of the benchmark's parameters, every value it measured, and is written only with
    ``asv run --record-samples``. asv runs a benchmark in several processes (``processes``, 2 by
    default) but does not record which process took which sample, so each sample is its own
    ``batch`` here: a comparison of asv files treats the samples as independent, which overstates
    its confidence when processes differ (notebook 02). ``value`` is in the benchmark's unit:
    seconds for ``time_*`` benchmarks (asv's ``unit`` is not in the file), as written otherwise;
    ``unit`` is ``"s"`` for ``time_*`` names and missing for the rest.

    Parameters are appended to ``benchmark`` (``"module.time_x [n=10]"``); ``host`` is missing,
    ``timestamp`` the benchmark's ``started_at`` (ms since the epoch).

    Extra columns: ``commit``, ``environment``, ``params``.

    Parameters
    ----------
    source : str, path or file-like
        The result JSON file.
    dropna : bool
        Values that are null, NaN, infinite or not numbers are an error naming their count; with
        True they are left out with a warning, and ``attrs["dropped"]`` counts them. (asv writes
        null for a parameter combination that failed.)

    Raises
    ------
    ValueError
        A file without samples (``asv run`` without ``--record-samples`` keeps only summaries).
    """
    return _asv_columns(source, dropna=dropna).to_frame()


@_reader("asv")
def _asv_columns(source, *, dropna: bool = False) -> FileColumns:
    """:func:`read_asv`'s measurements as columns."""
    rows, extra, attrs = _asv_rows(_read_json(source, "asv"))
    dates: dict = {}  # one conversion a benchmark's started_at, as its rows share it
    for row in rows:
        started = row["timestamp"]
        if started is not None:
            if started not in dates:
                dates[started] = _date(started)
            row["timestamp"] = dates[started]
    return _measured_rows(rows, extra, attrs, dropna)


def _date(started):
    """asv's ``started_at``, ms since the epoch, as a date (a start time that is not a number of ms is kept, and
    refused as not a date)."""
    if isinstance(started, (int, float)) and not isinstance(started, bool) and abs(started) < 2**62:
        return np.datetime64(int(started), "ms")
    return started


def _asv_rows(data) -> tuple[list[dict], list[str], dict]:
    """:func:`read_asv`'s rows (``timestamp`` as asv writes it, ms since the epoch), extra columns and attrs from the
    parsed JSON, without pandas."""
    results = _mapping(_require(data, "results", "asv file", "asv"), "'results'")
    columns = data.get("result_columns")
    if not isinstance(columns, list) or "samples" not in columns:
        raise MalformedFileError(
            "source: an asv file without 'result_columns' naming 'samples' (asv 0.5 or later writes it)"
        )
    rows, missing = [], []
    for name, row in results.items():
        if not isinstance(row, list):
            raise MalformedFileError(f"source: asv result {name!r} is {type(row).__name__}, expected a list")
        cell = dict(zip(columns, row))
        samples = cell.get("samples")
        if samples is None:
            missing.append(name)
            continue
        combos = list(itertools.product(*(cell.get("params") or [])))  # [()] without parameters
        if len(combos) != len(samples):
            raise MalformedFileError(
                f"source: asv result {name!r}: {len(samples)} sample lists for {len(combos)} parameter sets"
            )
        timestamp = cell.get("started_at")  # ms since the epoch: the reader makes it a date
        for combo, values in zip(combos, samples):
            label = ", ".join(str(v) for v in combo)
            benchmark = f"{name} [{label}]" if label else name
            for batch, value in enumerate(values if values is not None else [None]):
                rows.append(
                    dict(
                        benchmark=benchmark,
                        timestamp=timestamp,
                        batch=batch,
                        iteration=0,
                        warmup=False,
                        value=value,
                        unit="s" if name.split(".")[-1].startswith("time_") else None,
                        commit=data.get("commit_hash"),
                        environment=data.get("env_name"),
                        params=label or None,
                    )
                )
    if missing and not rows:
        raise MalformedFileError(
            f"source: no samples in the file ({len(missing)} benchmarks have only summaries); run asv with "
            "--record-samples"
        )
    return rows, ["commit", "environment", "params"], {"tool": "asv", "without_samples": missing}
