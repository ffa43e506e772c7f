"""A history's measurements from the user's columns: checked (values real and finite, gaps left out with ``dropna``,
commits present, timestamps times), each benchmark's values in one unit, and the rows in commit order."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from perfstudy._lib.checks import check_frame, said
from perfstudy._lib.units import conversion_factor, never_negative
from perfstudy.changes._settings import HistorySettings, parse_times

if TYPE_CHECKING:
    import pandas as pd

__all__: list[str] = []


def _measurements(data, settings: HistorySettings) -> tuple[pd.DataFrame, list[str]]:
    """``commit, value, benchmark`` (and ``timestamp``, ``unit``) from the user's columns, checked: values real
    and finite (gaps left out and counted with ``dropna``), commits present, timestamps times, units converted
    per benchmark."""
    import pandas as pd

    s = settings
    named = [c for c in (s.commit, s.benchmark, s.timestamp) if c is not None]
    if isinstance(data, pd.DataFrame) and s.benchmark is not None and s.benchmark not in data.columns:
        if s.benchmark == "benchmark":
            named.remove(s.benchmark)  # the default: a frame without the column is one series
    check_frame("data", data, named + [s.value])
    column = data[s.value]
    if pd.api.types.is_complex_dtype(column) or not (
        pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)
    ):
        raise TypeError(f"data: column {s.value!r} holds {column.dtype} values; expected real numbers")
    values = column.to_numpy(dtype=float)
    notes: list[str] = []
    infinite = np.isinf(values)
    if infinite.any():
        raise ValueError(
            f"data: column {s.value!r} has {int(infinite.sum())} infinite value(s) (e.g. row "
            f"{data.index[np.flatnonzero(infinite)[0]]!r}); a measurement is finite"
        )
    missing = np.isnan(values)
    keep = ~missing
    if missing.any():
        if not s.dropna:
            raise ValueError(
                f"data: column {s.value!r} has {int(missing.sum())} measurement(s) without a value (NaN, e.g. row "
                f"{data.index[np.flatnonzero(missing)[0]]!r}): gaps and failed runs; leave them out with "
                f"{s.advice('dropna')}"
            )
        notes.append(f"{int(missing.sum())} measurement(s) without a value left out")
    earlier = int(getattr(data, "attrs", {}).get("dropped", 0) or 0)
    if earlier:
        notes.append(f"{earlier} value(s) left out when the files were read (not numbers, or runs that failed)")
    if data[s.commit].isna().any():  # pyright: ignore
        raise ValueError(f"data: column {s.commit!r} has missing commits; every measurement needs its commit")
    frame = pd.DataFrame({"commit": data[s.commit].to_numpy(), "value": values})
    has_bench = s.benchmark is not None and s.benchmark in data.columns
    if has_bench and data[s.benchmark].isna().any():  # pyright: ignore
        raise ValueError(
            f"data: column {s.benchmark!r} has {int(data[s.benchmark].isna().sum())} row(s) without a benchmark "  # pyright: ignore
            f"name; fill them in, or treat the file as one series ({s.option('benchmark')} none)"
            if s.spelling == "cli"
            else f"data: column {s.benchmark!r} has rows without a benchmark name; fill them in, or benchmark=None"
        )
    frame["benchmark"] = data[s.benchmark].astype(str).to_numpy() if has_bench else "series"
    if s.timestamp is not None:
        frame["timestamp"] = parse_times(data[s.timestamp], s)
    if s.unit is not None and s.unit in data.columns:
        frame["unit"] = data[s.unit].to_numpy()
    elif s.unit not in (None, "unit"):  # a column named that is not there: its units would go unread (s beside ms)
        raise ValueError(
            f"data: {said(s.option('unit'), s.unit)}: no such column (it has {list(data.columns)[:8]}); name the column "
            f"of each value's unit, or {'leave it out' if s.spelling == 'cli' else 'unit=None'} if there is none"
        )
    frame = pd.DataFrame(frame[keep]).reset_index(drop=True)
    if frame.empty:
        raise ValueError(f"data: no measurement has a value in column {s.value!r}")
    if "unit" in frame.columns:  # a time, a rate or a size is never below 0: as every harness's reader refuses it
        signless = frame["unit"].map(lambda unit: never_negative(unit if unit == unit else None)).to_numpy(dtype=bool)
        negative = np.flatnonzero(signless & (frame["value"].to_numpy() < 0))
        if negative.size:
            first = frame.iloc[negative[0]]
            raise ValueError(
                f"data: {negative.size} negative value(s) in units that cannot be negative (first: {first['benchmark']} "
                f"at {first['commit']}, {first['value']:g} {first['unit']}); the file is damaged or not what it seems"
            )
        frame, converted = _convert_units(frame, s)
        notes += converted
    return frame, notes


def _convert_units(frame: pd.DataFrame, settings: HistorySettings) -> tuple[pd.DataFrame, list[str]]:
    """Each benchmark's values in one unit: the unit most of its values are in (of equally many, the first in
    sorted order). A benchmark whose units do not convert is refused by name."""
    units = frame["unit"].astype(object).where(frame["unit"].notna(), None)
    frame = frame.assign(unit=units)
    notes, refused = [], []
    factors = np.ones(len(frame))
    for name, rows in frame.groupby("benchmark", sort=False).indices.items():
        present = units.iloc[rows]
        kinds = present.value_counts(dropna=False)
        if len(kinds) <= 1:
            continue
        if present.isna().any():
            refused.append(f"{name} (some values have a unit and some none)")
            continue
        most = max(kinds.items(), key=lambda kv: (kv[1], -sorted(kinds.index).index(kv[0])))[0]
        each = {u: conversion_factor(u, most) for u in kinds.index}
        wrong = sorted(str(u) for u, f in each.items() if f is None)
        if wrong:
            refused.append(f"{name} ({', '.join(sorted(map(str, kinds.index)))} do not convert)")
            continue
        factors[rows] = present.map(each).to_numpy(dtype=float)
        frame.loc[frame.index[rows], "unit"] = most
        notes.append(
            f"{name}: values in {', '.join(sorted(str(u) for u in kinds.index if u != most))} converted to {most}"
        )
    if refused:
        raise ValueError(
            f"data: {len(refused)} benchmark(s) mix units that do not convert: {'; '.join(refused[:3])}"
            + ("; ..." if len(refused) > 3 else "")
            + "; give each benchmark one unit, or split them into benchmarks of their own"
        )
    frame["value"] = frame["value"].to_numpy() * factors
    if len(notes) > 3:
        notes = [*notes[:3], f"and {len(notes) - 3} more benchmark(s) converted"]
    return frame, notes


def _order(frame: pd.DataFrame, commit: str, timestamp: str | None) -> pd.DataFrame:
    """Rows in commit order: a commit's first appearance, or its earliest timestamp where there is one."""
    import pandas as pd

    first = frame.groupby(["benchmark", commit], sort=False).cumcount() == 0
    key = frame.loc[first, ["benchmark", commit]].copy()
    if timestamp is not None:
        key["when"] = frame.groupby(["benchmark", commit], sort=False)[timestamp].transform("min")[first].to_numpy()
        key = key.sort_values(["benchmark", "when"], kind="stable")
    key["commit_index"] = key.groupby("benchmark", sort=False).cumcount()
    out = frame.merge(key[["benchmark", commit, "commit_index"]], on=["benchmark", commit], how="left")
    out["_row"] = np.arange(len(out))
    out["_bench"] = pd.factorize(out["benchmark"])[0]
    out = out.sort_values(["_bench", "commit_index", "_row"], kind="stable").drop(columns="_bench")
    out["index"] = out.groupby("benchmark", sort=False).cumcount()
    return pd.DataFrame(out).drop(columns="_row")
