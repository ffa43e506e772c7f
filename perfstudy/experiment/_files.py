"""A run's file and its record: the writer that appends each round, resume, and reading a run back
(:func:`read_experiment`, :func:`read_run`)."""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from perfstudy._lib.result import Result
from perfstudy.experiment.settings import DEFAULTS, LEGACY, _check_each

#: the columns of a run's file, in order
COLUMNS = (
    "benchmark",
    "version",
    "command",
    "round",
    "position",
    "batch",
    "host",
    "iteration",
    "warmup",
    "value",
    "unit",
    "start",
    "end",
    "exit_status",
    "load",
    "probe",
    "cpu",
    "rss",
    "layout",
)

#: the columns a run's file of an earlier perfstudy lacks (each run's CPU seconds and peak RSS in bytes, its batch's
#: padding): such a file is read with them empty
NEWER_COLUMNS = ("cpu", "rss", "layout")


#: the version names a run gives its two commands
NAMES = ("A", "B")


if TYPE_CHECKING:
    import pandas as pd


def read_experiment(path) -> dict:
    """The experiment record beside a run's file (``path + ".json"``).

    Parameters
    ----------
    path : str or path
        The run's file (``--out``).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a file path, got {type(path).__name__}")
    with open(f"{path}.json", encoding="utf-8") as handle:
        return json.load(handle)


def is_run_file(path) -> bool:
    """Whether ``path`` is a file that ``perfstudy run`` wrote: its record ``path + ".json"`` says so.

    Parameters
    ----------
    path : str or path
    """
    if not isinstance(path, (str, os.PathLike)):
        return False
    try:
        record = read_experiment(path)
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and str(record.get("schema", "")).startswith("perfstudy.run/")


@dataclass(frozen=True)
class RunFile(Result):
    """A run's file read back with its record: what :func:`perfstudy.comparison._compare.compare` and
    :func:`perfstudy.analysis.analyze` need to report the run as it was run.

    Attributes
    ----------
    frame : DataFrame
        The batches that ran to the end (failed ones left out), with ``timestamp``, each batch's start.
    record : mapping
        The experiment record (commands, settings, seed, machine, stopped, rounds).
    failed_rows : int
        Rows of failed batches left out.
    """

    frame: pd.DataFrame
    record: MappingProxyType
    failed_rows: int

    #: the versions: A is the baseline, whatever ran first
    baseline = NAMES[0]

    @property
    def threshold(self) -> float:
        """The threshold the run was judged by."""
        return float(self.record["settings"].get("threshold", DEFAULTS["threshold"]))

    @property
    def confidence(self) -> float:
        """The confidence the run was judged by."""
        return self.pairing["confidence"]

    @property
    def statistic(self) -> str:
        """Each batch's statistic the run judged its rounds by (``"mean"``, ``"median"``, ``"min"``)."""
        return self.pairing["statistic"]

    @property
    def rule(self) -> str:
        """The anytime-valid rule the run stopped by: ``"sign"`` (median round) or ``"t"`` (mean round)."""
        return self.pairing["sequential"]

    @property
    def pairing(self) -> dict:
        """What :func:`perfstudy.comparison.compare` and :func:`perfstudy.analysis.analyze` need to judge the
        run as it judged itself: ``baseline``, ``block``, ``sequential`` (the rule), ``statistic`` and
        ``confidence``."""
        return run_pairing(self.record["settings"])

    @property
    def commands(self) -> dict:
        """``{"A": command, "B": command}``."""
        return dict(self.record["commands"])

    def to_frame(self):
        """The batches that ran (a copy)."""
        return self.frame.copy()


def run_pairing(settings) -> dict:
    """How a run judged itself, from its record's ``settings``: version A the baseline, paired by round under its
    anytime-valid rule (``sequential``), each batch's ``statistic``, its ``confidence``; a record from before a
    setting existed ran by the old one (``LEGACY``). :attr:`RunFile.pairing` and a run's own comparison use it."""
    return dict(
        baseline=NAMES[0],
        block="round",
        sequential=str(settings.get("rule", LEGACY["rule"])),
        statistic=str(settings.get("statistic", LEGACY["statistic"])),
        confidence=float(settings.get("confidence", DEFAULTS["confidence"])),
    )


def read_run(path) -> RunFile:
    """A run's file and its record, for reading back: versions A and B by the record, never by row order.

    Parameters
    ----------
    path : str or path
        The run's file (``--out``); its record is ``path + ".json"``.

    Returns
    -------
    RunFile

    Raises
    ------
    FileNotFoundError, ValueError
        No such file, no record beside it, or not a run's file (naming what is wrong).
    """
    import pandas as pd

    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a file path, got {type(path).__name__}")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    record = _checked_record(path, what=str(path))
    try:
        frame = pd.read_csv(path, dtype={"command": str})  # a command "true" is text, not a flag
    except (ValueError, pd.errors.ParserError) as error:
        raise ValueError(f"{path}: not a run's CSV file ({' '.join(str(error).split())})") from None
    missing = [c for c in COLUMNS if c not in frame.columns and c not in NEWER_COLUMNS]
    if missing:
        raise ValueError(f"{path} lacks the columns {missing}; is it a perfstudy run's file?")
    frame = frame.reindex(columns=[*frame.columns, *(c for c in NEWER_COLUMNS if c not in frame.columns)])
    others = sorted(set(frame["version"].astype(str)) - set(NAMES))
    if others:
        raise ValueError(f"{path}: versions {others[:3]} are not a run's (A and B)")
    _check_values(frame, record, str(path))
    failed = _numbers(frame["exit_status"]) != 0
    frame = frame.loc[~failed].copy()
    values, start = _numbers(frame["value"]), _numbers(frame["start"])
    if np.isnan(values).any() or np.isnan(start).any():
        raise ValueError(f"{path}: a batch that ran has a missing or non-numeric value or start; was the file edited?")
    frame["value"] = values
    frame["timestamp"] = pd.to_datetime(pd.Series(start, index=frame.index), unit="s")
    return RunFile(frame=frame.reset_index(drop=True), record=MappingProxyType(record), failed_rows=int(failed.sum()))


def _numbers(column) -> np.ndarray:
    """A column as floats, NaN where it holds no number."""
    from perfstudy._lib.frames import float_values

    return float_values(column)


def _experiment(commands: dict, settings: dict) -> dict:
    return {"schema": "perfstudy.run/1", "commands": commands, "settings": settings}


def _existing(path: Path, commands: dict) -> tuple[list[dict], dict]:
    """The rows of a run's file to resume, and its experiment record; refuses another experiment's file.

    A last line cut short by a kill is dropped (and cut from the file when the run appends)."""
    import pandas as pd

    if not path.is_file():
        raise FileNotFoundError(f"resume: {path}: no such file to resume; run without --resume to start it")
    record = _checked_record(path)
    _check_commands(path, record, commands)
    _cut_partial_line(path)
    try:
        frame = (
            pd.read_csv(path, dtype={"command": str}) if path.stat().st_size else pd.DataFrame(columns=list(COLUMNS))
        )
    except (ValueError, pd.errors.ParserError) as error:
        raise ValueError(f"resume: {path}: not a run's CSV file ({' '.join(str(error).split())})") from None
    missing = [c for c in COLUMNS if c not in frame.columns and c not in NEWER_COLUMNS]
    if missing:
        raise ValueError(f"resume: {path} lacks the columns {missing}; is it a perfstudy run's file?")
    lacking = [c for c in NEWER_COLUMNS if c not in frame.columns]
    if lacking:
        raise ValueError(
            f"resume: {path} was written by an earlier perfstudy (no {' and '.join(lacking)} column"
            f"{'s' if len(lacking) > 1 else ''}); start a new run in another file, or compare this one as it is"
        )
    status, values, rounds = _numbers(frame["exit_status"]), _numbers(frame["value"]), _numbers(frame["round"])
    versions = np.asarray(frame["version"].isin(NAMES), dtype=bool)
    bad = ((status == 0) & ~np.isfinite(values)) | np.isnan(rounds) | np.isnan(status) | ~versions
    if bad.any():
        line = int(np.flatnonzero(bad)[0]) + 2
        raise ValueError(
            f"resume: {path}: {int(bad.sum())} row(s) with a missing or non-numeric value, round, exit status or "
            f"version (first on line {line}); a perfstudy run writes none, so the file was edited"
        )
    _check_values(frame, record, f"resume: {path}")
    _check_rows_commands(frame, record, f"resume: {path}")
    frame = frame.assign(value=values, round=rounds.astype(int), exit_status=status.astype(int))
    rows = frame.astype(object).where(frame.notna(), None).to_dict("records")
    return rows, record


def _check_commands(path: Path, record: dict, commands: dict) -> None:
    theirs = record["commands"]
    different = [
        f"{name}: {theirs.get(name)!r} there, {command!r} here"
        for name, command in commands.items()
        if theirs.get(name) != command
    ]
    if different:
        raise ValueError(f"resume: {path} is another experiment's file (other commands: {'; '.join(different)})")


def _checked_record(path: Path, what: str = "resume") -> dict:
    """The experiment record beside ``path``, refused by name where it is not one that ``run`` wrote."""
    where = f"{what}: {path}.json" if what == "resume" else f"{path}.json"
    try:
        record = read_experiment(path)
    except OSError:
        raise FileNotFoundError(f"{where}: missing; is {path} a perfstudy run's file?") from None
    except ValueError as error:
        raise ValueError(f"{where}: not JSON ({error}); is {path} a perfstudy run's file?") from None
    if not isinstance(record, dict) or not str(record.get("schema", "")).startswith("perfstudy.run/"):
        raise ValueError(f"{where}: not a perfstudy run's record (no schema perfstudy.run/1)")
    commands, settings = record.get("commands"), record.get("settings")
    if not (
        isinstance(commands, dict)
        and set(commands) == set(NAMES)
        and all(isinstance(c, str) for c in commands.values())
    ):
        raise ValueError(f"{where}: its commands should map A and B to command lines, found {commands!r}")
    if not isinstance(settings, dict):
        raise ValueError(f"{where}: its settings should be a mapping, found {settings!r}")
    _check_read_back(settings, where)
    for key in ("shell_startup", "shell_startup_cpu"):  # subtracted from every run's time
        value = record.get(key)
        if value is not None and not (
            isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= _STARTUP_MOST
        ):
            raise ValueError(
                f"{where}: {key}={value!r} is no shell's start-up (0 to {_STARTUP_MOST:g} s), and it would be taken "
                "from every run's time: the record was edited; start a new run"
            )
    return record


#: the longest shell start-up a record may hold, in seconds (a shell starts in about a millisecond)
_STARTUP_MOST = 0.5


def _check_read_back(settings: dict, where: str) -> None:
    """The settings a run's file is read back by (its rule, statistic, threshold, confidence, measure), refused
    by name where the record holds something no run writes: a record that was edited or damaged."""
    read_back = {
        key: settings[key] for key in ("rule", "statistic", "threshold", "confidence", "measure") if key in settings
    }
    try:
        _check_each(read_back, str)  # RunSettings' own checks, each naming the setting
    except (TypeError, ValueError) as error:
        raise ValueError(f"{where}: its settings are not a run's ({error}); was the record edited?") from None


def _check_values(frame, record: dict, where: str) -> None:
    """The measurements of the batches that ran, refused by name where no run writes them: a value that is not
    finite, a time, CPU time or peak memory below 0."""
    status = _numbers(frame["exit_status"])
    ran = status == 0
    checks = [("value", "value", _numbers(frame["value"]))]
    checks += [
        (c, {"cpu": "CPU time", "rss": "peak memory", "layout": "layout padding"}[c], _numbers(frame[c]))
        for c in NEWER_COLUMNS
        if c in frame
    ]
    timed = record.get("settings", {}).get("measure", "time") == "time"
    for column, what, values in checks:
        present = ran & ~np.isnan(values) if column != "value" else ran
        bad = present & ~np.isfinite(values)
        if column != "value" or timed:
            bad |= present & (values < 0)
        if bad.any():
            line = int(np.flatnonzero(bad)[0]) + 2
            raise ValueError(
                f"{where}: {int(bad.sum())} batch(es) that ran have a {what} that is infinite or below 0 (first on "
                f"line {line}, {column}={values[bad][0]!r}); a perfstudy run writes none, so the file was edited"
            )


def _check_rows_commands(frame, record: dict, where: str) -> None:
    """Rows that are this run's: each version's rows ran the record's command for it, and no batch's row is there
    twice (a batch appended twice, a file joined to itself), refused by name."""
    commands = record.get("commands", {})
    for version, command in commands.items():
        ran = frame.loc[frame["version"] == version, "command"].dropna().astype(str)
        other = sorted(set(ran) - {command})
        if other:
            raise ValueError(
                f"{where}: its rows of version {version} ran {other[0]!r}, and its record says {command!r}: the file "
                "holds another experiment's rows; start a new run in another file"
            )
    keys = [c for c in ("version", "round", "position", "batch", "iteration", "benchmark") if c in frame.columns]
    twice = frame.duplicated(subset=keys, keep=False)
    if twice.any():
        line = int(np.flatnonzero(twice.to_numpy())[0]) + 2
        raise ValueError(
            f"{where}: {int(twice.sum())} rows repeat a batch's row (first on line {line}): a batch appended twice, "
            "or the file joined to itself; a perfstudy run writes each once"
        )


def _cut_partial_line(path: Path) -> None:
    """Drop a last line that a kill cut short (everything after the last newline)."""
    size = path.stat().st_size
    if not size:
        return
    with open(path, "rb+") as handle:
        handle.seek(max(0, size - 1))
        if handle.read(1) == b"\n":
            return
        handle.seek(0)
        data = handle.read()
        handle.truncate(data.rfind(b"\n") + 1)


class _Writer:
    """Appends each batch's rows as one write, flushed at once."""

    def __init__(self, path: Path | None, fresh: bool):
        self.handle = None
        if path is not None:
            self.handle = open(path, "w" if fresh else "a", encoding="utf-8", newline="")
            if self.handle.tell() == 0:  # a new file, or one resumed that a kill left empty: its header first
                self.handle.write(",".join(COLUMNS) + "\n")
                self.handle.flush()

    def write(self, rows) -> None:
        if self.handle is None:
            return
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        for row in rows:
            writer.writerow(["" if row.get(c) is None else row.get(c) for c in COLUMNS])
        self.handle.write(buffer.getvalue())
        self.handle.flush()

    def close(self):
        if self.handle is not None:
            self.handle.close()


def _write_record(path: Path | None, record: dict) -> None:
    if path is None:
        return
    temporary = Path(f"{path}.json.tmp")
    temporary.write_text(json.dumps(record, indent=1, default=str), encoding="utf-8")
    os.replace(temporary, f"{path}.json")
