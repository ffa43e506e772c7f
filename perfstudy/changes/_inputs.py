"""What ``history`` reads: a tidy file, a folder of any harness's files (by a manifest or their dates), an asv
results directory, or ``perfstudy run`` files, each made one tidy frame of ``benchmark, commit, value`` (and
``timestamp``, ``unit`` where known) in commit order."""

from __future__ import annotations

import json
import math
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from perfstudy._lib.csv_end import check_csv_end
from perfstudy.changes._settings import HistorySettings, parse_times
from perfstudy.experiment import is_run_file, read_run
from perfstudy.io import MalformedFileError, detect_format, harness, read
from perfstudy.io.harnesses import refuse_chosen_metric

__all__ = ["read_history"]

#: the columns of the frame read_history returns, by the setting that names each in a tidy file
STANDARD = {"benchmark": "benchmark", "commit": "commit", "value": "value", "timestamp": "timestamp", "unit": "unit"}


def _table(path: Path, kind: str) -> pd.DataFrame:
    """A tidy CSV or Parquet file as a frame, or a one-line reason it cannot be one."""
    if kind == "parquet":
        try:
            return pd.read_parquet(path)
        except ImportError as error:
            raise ValueError(f"{path}: reading parquet needs pyarrow (pip install pyarrow)") from error
        except (OSError, ValueError) as error:
            raise MalformedFileError(f"{path}: not a readable Parquet file ({' '.join(str(error).split())})") from None
    try:
        frame = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise MalformedFileError(f"{path}: an empty file (0 bytes); expected a CSV with a header row") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as error:
        raise MalformedFileError(f"{path}: not a CSV table ({' '.join(str(error).split())})") from None
    check_csv_end(path, len(frame.columns), MalformedFileError)
    return frame


def _tidy(frame: pd.DataFrame, where: str, settings: HistorySettings) -> pd.DataFrame:
    """A tidy table's columns, named by the settings, renamed to :data:`STANDARD`'s; absent optional ones left
    out (a frame without its benchmark column is one series)."""
    s = settings
    needed = {"commit": s.commit, "value": s.value}
    missing = [f"{s.option(k)} {v!r}" for k, v in needed.items() if v not in frame.columns]
    if missing:
        raise ValueError(
            f"{where}: a tidy history needs a commit and a value column; there is no column for "
            f"{' or '.join(missing)} (it has {list(frame.columns)[:8]}); name them with "
            f"{s.option('commit')} and {s.option('value')}"
        )
    if frame.empty:
        raise ValueError(f"{where}: a header ({list(frame.columns)[:8]}) and no rows: no measurements")
    wanted = {"benchmark": s.benchmark, "timestamp": s.timestamp or "timestamp", "unit": s.unit}
    plain = HistorySettings()  # the defaults: a default column may be absent, a named one may not
    for key, column in (("benchmark", s.benchmark), ("timestamp", s.timestamp), ("unit", s.unit)):
        if column is not None and column != getattr(plain, key) and column not in frame.columns:
            raise ValueError(f"{where}: {s.option(key)} {column!r}: no such column (it has {list(frame.columns)[:8]})")
    renames = {v: STANDARD[k] for k, v in (needed | wanted).items() if v is not None and v in frame.columns}
    clash = [c for c in STANDARD.values() if c in frame.columns and c not in renames and c in renames.values()]
    out = frame.drop(columns=clash).rename(columns=renames)
    keep = [c for c in STANDARD.values() if c in out.columns]
    out = pd.DataFrame(out[keep]).copy()
    if "timestamp" in out.columns:
        out["timestamp"] = parse_times(pd.Series(out["timestamp"], name=wanted["timestamp"]), s)
    if "benchmark" not in out.columns:
        out["benchmark"] = "series"
    return out


def _not_tidy(settings: HistorySettings, what: str) -> None:
    """A column option applies to a tidy file only: refused by name elsewhere rather than ignored."""
    plain = HistorySettings()
    given = [
        settings.option(k)
        for k in ("commit", "value", "benchmark", "unit")
        if getattr(settings, k) != getattr(plain, k)
    ]
    if settings.timestamp not in (None, "timestamp"):
        given.append(settings.option("timestamp"))
    if given:
        raise ValueError(
            f"{', '.join(given)}: name(s) the columns of a tidy CSV or Parquet file; {what} has its own columns, so "
            "leave them out"
        )


def _run_rows(path: Path, commit=None) -> pd.DataFrame:
    """A run's file: its two versions as two commits, or with ``commit`` its B as that commit."""
    run = read_run(path)
    frame = run.frame
    if commit is not None:
        frame = frame[frame["version"] == "B"].assign(commit=commit)
    else:
        names = {v: f"{v}: {c}" for v, c in run.commands.items()}
        frame = frame.assign(commit=frame["version"].map(names))  # pyright: ignore
        frame = frame.sort_values("version", kind="stable")  # A is the older version
    bench = frame["benchmark"] if "benchmark" in frame.columns else "run"
    out = pd.DataFrame({"benchmark": bench, "commit": frame["commit"], "value": frame["value"]})
    out["timestamp"] = frame["timestamp"]
    return out


def _harness(path: Path, commit, settings: HistorySettings) -> pd.DataFrame:
    if is_run_file(path):
        refuse_chosen_metric(settings.option("metric"), settings.metric, "a run's file")
        return _run_rows(path, commit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a value left out with dropna is counted in attrs["dropped"]
        frame = read(path, dropna=settings.dropna, metric=settings.metric)
    keep = [c for c in ("benchmark", "value", "unit", "timestamp") if c in frame.columns]
    out = frame[keep].copy()
    if "benchmark" not in out.columns:
        out["benchmark"] = "series"
    # hyperfine's user + system mean of each command: a NAME:cpu series, beside its default metric
    cpu = (frame.attrs.get("cpu") or {}) if settings.metric is None else {}
    if cpu:
        rows = pd.DataFrame({"benchmark": [f"{n}:cpu" for n in cpu], "value": list(cpu.values()), "unit": "s"})
        if "timestamp" in out.columns:
            rows["timestamp"] = frame["timestamp"].iloc[0] if len(frame) else pd.NaT
        out = pd.concat([out, rows], ignore_index=True)
    out["commit"] = commit if commit is not None else frame.get("commit", path.stem)
    out.attrs["dropped"] = frame.attrs.get("dropped", 0)
    return out  # pyright: ignore


def _manifest(path: Path, folder: Path) -> list[tuple[str, Path]]:
    try:
        table = pd.read_csv(path, dtype=str)
    except pd.errors.EmptyDataError:
        raise MalformedFileError(f"manifest {path}: an empty file; expected 'commit,path' rows, oldest first") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as error:
        raise MalformedFileError(f"manifest {path}: not a CSV table ({' '.join(str(error).split())})") from None
    missing = [c for c in ("commit", "path") if c not in table.columns]
    if missing:
        raise ValueError(
            f"manifest {path}: no column {missing}; expected 'commit,path' (one row per file, oldest first)"
        )
    if table.empty:
        raise ValueError(f"manifest {path}: a header and no rows; expected one 'commit,path' row per file")
    absent = (table["commit"].isna() | table["path"].isna()).to_numpy()
    if absent.any():
        row = int(np.flatnonzero(absent)[0]) + 2
        raise ValueError(f"manifest {path}: line {row} has no commit or no path")
    rows = []
    for commit, name in zip(table["commit"], table["path"], strict=True):
        file = Path(name) if Path(name).is_absolute() else folder / name
        if not file.exists():
            raise FileNotFoundError(f"manifest {path}: {file} (commit {commit}) does not exist")
        rows.append((commit, file))
    return rows


def _asv_results(folder: Path) -> list[Path]:
    files = []
    for file in sorted(folder.rglob("*.json")):
        if file.name in ("machine.json", "benchmarks.json"):
            continue
        files.append(file)
    return files


def _is_asv(folder: Path) -> bool:
    """Whether any of the first JSON files under ``folder`` is an asv result (a damaged one is said later)."""
    for file in _asv_results(folder)[:5]:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and "commit_hash" in data:
            return True
    return False


def _read_asv(folder: Path, dropna: bool) -> pd.DataFrame:
    parts = []
    dropped = 0
    for file in _asv_results(folder):
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise MalformedFileError(
                f"{folder}: {file.relative_to(folder)} is not an asv result file ({' '.join(str(error).split())}); "
                "repair or remove it"
            ) from None
        if not isinstance(data, dict) or "commit_hash" not in data:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # counted in attrs["dropped"]
                frame = read(file, "asv", dropna=dropna)
        except (ValueError, TypeError, KeyError) as error:
            raise MalformedFileError(f"{folder}: {file.relative_to(folder)}: {' '.join(str(error).split())}") from None
        dropped += frame.attrs.get("dropped", 0)
        out = frame[[c for c in ("benchmark", "value", "unit") if c in frame.columns]].copy()
        out["commit"] = data["commit_hash"]
        # asv's "date" is the commit's date (ms since the epoch): the order of the history
        date = data.get("date")
        if isinstance(date, bool) or not isinstance(date, (int, float)) or not math.isfinite(date):
            raise MalformedFileError(
                f"{folder}: {file.relative_to(folder)} has no commit date ('date': {date!r}), so its place in the "
                "history is unknown; repair or remove it"
            )
        out["timestamp"] = pd.to_datetime(date, unit="ms")
        parts.append(out)
    if not parts:
        raise ValueError(f"{folder}: no asv result files (JSON with 'commit_hash') under it")
    frame = pd.concat(parts, ignore_index=True)
    frame.attrs["dropped"] = dropped
    return frame


def read_history(path, manifest=None, *, settings: HistorySettings | None = None, **options) -> pd.DataFrame:
    """A project's results as one tidy frame for :func:`history`: ``benchmark, commit, value`` in commit order.

    - a tidy CSV or Parquet file with a commit and a value column (named by ``commit`` and ``value``;
      ``benchmark``, ``timestamp`` and ``unit`` kept where present);
    - a ``perfstudy run`` file: its versions A and B as two commits;
    - an asv results directory (``.asv/results``): each result file a commit, ordered by asv's commit date;
    - a folder of any harness's files (anything :func:`perfstudy.read` reads, run files included): each file one
      commit, in the order of ``manifest`` (a CSV of ``commit,path``, oldest first; a run file counts its B) or,
      without one, by the earliest timestamp each file records.

    Parameters
    ----------
    path : str or path
        The file or folder.
    manifest : str or path, optional
        The CSV that names each file's commit, oldest first (for a folder of harness files only).
    settings : HistorySettings, optional
        The columns of a tidy file and ``dropna``.
    **options
        Or the same as keywords (``commit="sha"``, ``value="ns"``, ``dropna=True``), which build the settings.

    Returns
    -------
    pandas.DataFrame
        ``benchmark``, ``commit``, ``value`` and, where known, ``timestamp`` and ``unit``, whatever the file
        called them. Its ``attrs["order"]`` says how the commits were ordered (``rows``, ``timestamp``,
        ``manifest``), and ``attrs["dropped"]`` how many values a harness's file had without a number (left out
        with ``dropna``).
    """
    if settings is None:
        settings = HistorySettings(**options)
    elif options:
        raise TypeError(f"settings is given, and so are {sorted(options)}: give every option in one place")
    elif not isinstance(settings, HistorySettings):
        raise TypeError(f"settings: expected a HistorySettings, got {type(settings).__name__}")
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a file or folder path, got {type(path).__name__}")
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or folder")
    if manifest is not None:
        if not isinstance(manifest, (str, os.PathLike)):
            raise TypeError(f"manifest: expected a CSV file path, got {type(manifest).__name__}")
        manifest = Path(manifest)
        if not manifest.is_file():
            raise FileNotFoundError(f"{manifest}: no such manifest file")
        if not path.is_dir():
            raise ValueError(
                f"{path} is a file and a manifest is given: a manifest orders a folder of harness files (give the "
                "folder as PATH); a tidy file or a run's file orders itself, so leave the manifest out"
            )
        _not_tidy(settings, "a folder of harness files")
        parts = [_harness(file, commit, settings) for commit, file in _manifest(manifest, path)]
        frame = pd.concat(parts, ignore_index=True)
        frame.attrs["order"] = "manifest"
        frame.attrs["dropped"] = sum(p.attrs.get("dropped", 0) for p in parts)
        return frame.drop(columns=["timestamp"], errors="ignore")
    if path.is_file():
        if is_run_file(path):
            _not_tidy(settings, "a run's file")
            refuse_chosen_metric(settings.option("metric"), settings.metric, "a run's file")
            frame = _run_rows(path)
            frame.attrs["order"] = "rows"
            return frame
        if path.stat().st_size == 0:
            raise MalformedFileError(f"{path}: an empty file (0 bytes); expected a CSV with a header row")
        kind = detect_format(path) if path.suffix.lower() not in (".csv", ".parquet") else path.suffix[1:].lower()
        if kind in ("csv", "parquet"):
            refuse_chosen_metric(
                settings.option("metric"), settings.metric, f"a tidy file (its {settings.option('value')} column)"
            )
            frame = _tidy(_table(path, kind), str(path), settings)
        else:
            raise ValueError(
                f"{path}: a {kind} file is one commit's results; a history is a folder of such files with a "
                "--manifest naming each file's commit (or the dates they record), or a tidy CSV of commit,value"
            )
        frame.attrs["order"] = "timestamp" if "timestamp" in frame.columns else "rows"
        return frame
    _not_tidy(settings, "a folder")
    if _is_asv(path):
        harness("asv").check_metric(settings.metric, settings.option("metric"))
        frame = _read_asv(path, settings.dropna)
        frame.attrs["order"] = "timestamp"
        return frame
    files = sorted(f for f in path.iterdir() if f.is_file() and not f.name.endswith(".json.json"))
    files = [f for f in files if not (f.suffix == ".json" and Path(str(f)[: -len(".json")]).is_file())]
    if not files:
        raise ValueError(f"{path}: an empty folder; expected result files and a --manifest naming their commits")
    parts = []
    for file in files:
        part = _harness(file, file.stem, settings)
        if "timestamp" not in part.columns or part["timestamp"].isna().all():  # pyright: ignore
            raise ValueError(
                f"{path}: {file.name} records no dates, so the files' order is unknown; give a manifest "
                "(a CSV of commit,path, oldest first)"
            )
        part["timestamp"] = pd.to_datetime(part["timestamp"]).min()
        parts.append(part)
    frame = pd.concat(parts, ignore_index=True)
    frame.attrs["order"] = "timestamp"
    frame.attrs["dropped"] = sum(p.attrs.get("dropped", 0) for p in parts)
    return frame
