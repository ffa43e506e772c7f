"""``history``'s settings: one frozen object, checked when it is built, that :func:`read_history`,
:func:`history` and ``perfstudy history`` share. Its errors name the option as the user wrote it: the
argument in the library, the option on the command line (``spelling="cli"``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import ClassVar, Literal

import numpy as np

from perfstudy._lib.checks import check_bool, check_coverage, check_int, check_real, check_threshold, said
from perfstudy._lib.defaults import default
from perfstudy._lib.result import Result
from perfstudy._lib.spelling import Spelled
from perfstudy.io.harnesses import check_metric_name

__all__ = ["HistorySettings", "parse_times"]

#: the scan widths, in commits on each side of a boundary
DEFAULT_WIDTHS = (15, 40, 100)

#: each setting's option on the command line
OPTIONS = {
    "commit": "--commit",
    "value": "--value",
    "benchmark": "--benchmark",
    "timestamp": "--timestamp",
    "unit": "--unit",
    "dropna": "--dropna",
    "metric": "--metric",
    "fdr": "--fdr",
    "threshold": "--threshold",
    "min_sigmas": "min_sigmas",
    "min_ratio": "min_ratio",
    "min_side": "--min-side",
    "widths": "widths",
    "confidence": "--confidence",
    "progress": "--no-progress",
}


def _column(name: str, value, *, optional: bool) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value.strip():
        what = "a column name, or None" if optional else "a column name"
        raise (TypeError if not isinstance(value, str) else ValueError)(f"{said(name, value)}: expected {what}")
    return value


@dataclass(frozen=True)
class HistorySettings(Spelled, Result):
    """What ``history`` reads and how it judges, checked once when built.

    Parameters
    ----------
    commit, value : str
        The columns naming the commit and holding the measurement.
    benchmark : str or None
        The column naming the benchmark (None, or absent from a file: one series).
    timestamp : str or None
        A column of times that orders the commits (each commit's earliest); None keeps the rows' order.
    unit : str or None
        The column of each value's unit. Units that convert (``s`` and ``ms``) are converted to the unit most
        of a benchmark's values are in; a benchmark whose units do not convert is refused by name.
    dropna : bool
        Leave out measurements with no value (NaN: a failed run, a gap) and count them; without it they are
        refused, naming this option.
    metric : str or None
        Which of a harness's metrics :func:`read_history` reads from a folder of its files, as
        :func:`perfstudy.io.read` takes it (Google Benchmark's ``cpu_time``, hyperfine's ``rss``, a JMH secondary
        metric); None, each harness's default. Refused for a tidy file or a run's file, whose values are chosen.
    fdr, threshold, min_sigmas, min_ratio, min_side, widths, confidence, progress
        As :func:`perfstudy.changes.history` describes them.
    spelling : {"python", "cli"}
        How errors name a setting: ``fdr=`` (the library) or ``--fdr`` (the command line).
    """

    commit: str = "commit"
    value: str = "value"
    benchmark: str | None = "benchmark"
    timestamp: str | None = None
    unit: str | None = "unit"
    dropna: bool = False
    metric: str | None = None
    fdr: float = default("history", "fdr")
    threshold: float | str = default("history", "threshold")
    min_sigmas: float = 2.0
    min_ratio: float = 1.5
    min_side: int = default("history", "min_side")
    widths: tuple[int, ...] = DEFAULT_WIDTHS
    confidence: float | str = default("history", "confidence")
    progress: bool = False
    spelling: Literal["python", "cli"] = field(default="python", compare=False, repr=False)

    OPTIONS: ClassVar[Mapping[str, str]] = OPTIONS
    KIND: ClassVar[str] = "setting"
    FLAGS: ClassVar[tuple[str, ...]] = ("dropna", "progress")

    def __post_init__(self) -> None:
        if self.spelling not in ("python", "cli"):
            raise ValueError(f"spelling={self.spelling!r}: expected 'python' or 'cli'")
        name = self.option
        set_ = object.__setattr__
        set_(self, "commit", _column(name("commit"), self.commit, optional=False))
        set_(self, "value", _column(name("value"), self.value, optional=False))
        set_(self, "benchmark", _column(name("benchmark"), self.benchmark, optional=True))
        set_(self, "timestamp", _column(name("timestamp"), self.timestamp, optional=True))
        set_(self, "unit", _column(name("unit"), self.unit, optional=True))
        set_(self, "dropna", check_bool(name("dropna"), self.dropna))
        check_metric_name(name("metric"), self.metric)
        fdr = check_real(name("fdr"), self.fdr, positive=True)
        if fdr >= 1:
            raise ValueError(f"{said(name('fdr'), fdr)}: expected a rate in (0, 1), such as 0.05")
        set_(self, "fdr", fdr)
        set_(self, "threshold", check_threshold(self.threshold, name("threshold")))
        set_(self, "min_sigmas", check_real(name("min_sigmas"), self.min_sigmas, nonnegative=True))
        ratio = check_real(name("min_ratio"), self.min_ratio, positive=True)
        if ratio < 1:
            raise ValueError(f"{said(name('min_ratio'), ratio)}: expected a ratio of at least 1, such as 1.5")
        set_(self, "min_ratio", ratio)
        min_side = check_int(name("min_side"), self.min_side, minimum=2)
        set_(self, "min_side", min_side)
        widths = (self.widths,) if isinstance(self.widths, (int, np.integer)) else self.widths
        if not isinstance(widths, (tuple, list)) or not widths:
            raise ValueError(f"{name('widths')}: expected at least one scan width, such as (15, 40, 100)")
        set_(self, "widths", tuple(check_int(name("widths"), w, minimum=min_side) for w in widths))
        set_(self, "confidence", check_coverage(self.confidence, name("confidence")))
        set_(self, "progress", check_bool(name("progress"), self.progress))
        names = {"commit": self.commit, "value": self.value, "benchmark": self.benchmark, "timestamp": self.timestamp}
        seen: dict[str, str] = {}
        for key, column in names.items():
            if column is not None and column in seen:
                raise ValueError(
                    f"{name(seen[column])} and {name(key)} both name the column {column!r}; each names its own"
                )
            if column is not None:
                seen[column] = key

    def standard(self, *, ordered: bool) -> HistorySettings:
        """These settings for the frame :func:`read_history` returns, whose columns have their standard names
        (``commit``, ``value``, ``benchmark``, ``unit``; ``timestamp`` where it orders the commits) and whose
        values are the ``metric`` read.

        Parameters
        ----------
        ordered : bool
            Whether the frame's ``timestamp`` column orders its commits.
        """
        ordered = check_bool("ordered", ordered)
        return self.replace(
            commit="commit",
            value="value",
            benchmark="benchmark",
            unit="unit",
            timestamp="timestamp" if ordered else None,
            metric=None,
        )

    def replace(self, **changes) -> HistorySettings:
        """A copy with ``changes``, checked again.

        Parameters
        ----------
        **changes
            Fields and their new values.
        """
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return HistorySettings(**(values | changes))


def parse_times(column, settings: HistorySettings):
    """A timestamp column as times: text parsed (any time zones made UTC), refused by name where it is not a
    time or is missing."""
    import pandas as pd

    name = settings.option("timestamp")
    if pd.api.types.is_datetime64_any_dtype(column):
        parsed = column
    elif pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        raise ValueError(
            f"{name}: column {column.name!r} holds numbers ({column.dtype}), not times; give dates such as "
            "2026-11-26T10:00:00, or leave the option out to keep the rows' order"
        )
    else:
        text = column.astype("string")
        try:
            parsed = pd.to_datetime(text, utc=True, format="mixed")
        except (ValueError, TypeError, OverflowError):
            bad = None
            for item in text.dropna():
                try:
                    pd.to_datetime(item, utc=True)
                except (ValueError, TypeError, OverflowError):
                    bad = item
                    break
            raise ValueError(
                f"{name}: column {column.name!r} has {bad!r}, which is not a date and time; give dates such as "
                "2026-11-26T10:00:00 (time zones are made UTC)"
            ) from None
    missing = int(parsed.isna().sum())
    if missing:
        raise ValueError(
            f"{name}: {missing} of {len(parsed)} timestamps in column {column.name!r} are missing; the commits' "
            "order needs every measurement's time (or leave the option out to keep the rows' order)"
        )
    parsed = pd.Series(parsed)
    if getattr(parsed.dt, "tz", None) is not None:
        parsed = parsed.dt.tz_convert(None)  # UTC, without a zone: one kind of time to sort
    return parsed.to_numpy()
