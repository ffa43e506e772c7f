"""What ``history`` reads: a tidy file, a folder of any harness's files (by a manifest or their dates), an asv
results directory, or ``perfstudy run`` files, each made one tidy frame of ``benchmark, commit, value`` (and
``timestamp``, ``unit`` where known) in commit order."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from perfstudy.experiment import is_run_file, read_run
from perfstudy.io import read

__all__ = ["read_history"]


def _tidy(frame: pd.DataFrame, where: str) -> pd.DataFrame:
    if "commit" not in frame.columns:
        raise ValueError(
            f"{where}: a tidy history needs a 'commit' column (and 'value'; 'benchmark', 'timestamp' optional); "
            f"it has {list(frame.columns)}"
        )
    if "benchmark" not in frame.columns:
        frame = frame.assign(benchmark="series")
    return frame


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


def _harness(path: Path, commit) -> pd.DataFrame:
    if is_run_file(path):
        return _run_rows(path, commit)
    frame = read(path)
    keep = [c for c in ("benchmark", "value", "unit", "timestamp") if c in frame.columns]
    out = frame[keep].copy()
    if "benchmark" not in out.columns:
        out["benchmark"] = "series"
    out["commit"] = commit if commit is not None else frame.get("commit", path.stem)
    return out  # pyright: ignore


def _manifest(path: Path, folder: Path) -> list[tuple[str, Path]]:
    table = pd.read_csv(path, dtype=str)
    missing = [c for c in ("commit", "path") if c not in table.columns]
    if missing:
        raise ValueError(
            f"manifest {path}: no column {missing}; expected 'commit,path' (one row per file, oldest first)"
        )
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
    for file in _asv_results(folder)[:3]:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        if isinstance(data, dict) and "commit_hash" in data:
            return True
    return False


def _read_asv(folder: Path) -> pd.DataFrame:
    parts = []
    for file in _asv_results(folder):
        data = json.loads(file.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or "commit_hash" not in data:
            continue
        frame = read(file, "asv")
        out = frame[[c for c in ("benchmark", "value", "unit") if c in frame.columns]].copy()
        out["commit"] = data["commit_hash"]
        # asv's "date" is the commit's date (ms since the epoch): the order of the history
        out["timestamp"] = pd.to_datetime(data.get("date", 0), unit="ms")
        parts.append(out)
    if not parts:
        raise ValueError(f"{folder}: no asv result files (JSON with 'commit_hash') under it")
    return pd.concat(parts, ignore_index=True)


def read_history(path, manifest=None) -> pd.DataFrame:
    """A project's results as one tidy frame for :func:`history`: ``benchmark, commit, value`` in commit order.

    - a tidy CSV or Parquet file with ``commit`` and ``value`` (``benchmark``, ``timestamp``, ``unit`` kept);
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
        The CSV that names each file's commit, oldest first.

    Returns
    -------
    pandas.DataFrame
        ``benchmark``, ``commit``, ``value`` and, where known, ``timestamp`` and ``unit``. Its ``attrs["order"]``
        says how the commits were ordered (``rows``, ``timestamp``, ``manifest``).
    """
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
        folder = path if path.is_dir() else manifest.parent
        frame = pd.concat([_harness(file, commit) for commit, file in _manifest(manifest, folder)], ignore_index=True)
        frame.attrs["order"] = "manifest"
        return frame.drop(columns=["timestamp"], errors="ignore")
    if path.is_file():
        if is_run_file(path):
            frame = _run_rows(path)
            frame.attrs["order"] = "rows"
            return frame
        frame = _tidy(read(path), str(path))
        frame.attrs["order"] = "timestamp" if "timestamp" in frame.columns else "rows"
        return frame
    if _is_asv(path):
        frame = _read_asv(path)
        frame.attrs["order"] = "timestamp"
        return frame
    files = sorted(f for f in path.iterdir() if f.is_file() and not f.name.endswith(".json.json"))
    files = [f for f in files if not (f.suffix == ".json" and Path(str(f)[: -len(".json")]).is_file())]
    if not files:
        raise ValueError(f"{path}: an empty folder; expected result files and a --manifest naming their commits")
    parts = []
    for file in files:
        part = _harness(file, file.stem)
        if "timestamp" not in part.columns or part["timestamp"].isna().all():  # pyright: ignore
            raise ValueError(
                f"{path}: {file.name} records no dates, so the files' order is unknown; give a manifest "
                "(a CSV of commit,path, oldest first)"
            )
        part["timestamp"] = pd.to_datetime(part["timestamp"]).min()
        parts.append(part)
    frame = pd.concat(parts, ignore_index=True)
    frame.attrs["order"] = "timestamp"
    return frame
