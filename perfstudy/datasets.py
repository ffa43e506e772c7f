"""Real published measurements: a registry with pinned URLs and sha256, and tidy loaders.

The registry is the repository's ``data/datasets.toml`` (perfstudy is installed editable from its
checkout, as the Makefile does). A file is looked for in

1. ``$PERFSTUDY_DATA/<path>`` (CI points it at ``../shared/datasets``),
2. the user cache, ``$XDG_CACHE_HOME/perfstudy`` or ``~/.cache/perfstudy``,
3. its pinned URL, downloaded into the cache.

Every file is checked against its sha256 before use; a mismatch is an error, never a warning. The
files themselves are never part of this repository.
"""

from __future__ import annotations

from dataclasses import dataclass
import hashlib
import os
from pathlib import Path
import tomllib
import urllib.error
import urllib.request

import numpy as np
import pandas as pd

__all__ = ["Dataset", "registry", "list_datasets", "locate", "load", "DataUnavailableError"]

ENV = "PERFSTUDY_DATA"


class DataUnavailableError(FileNotFoundError):
    """A dataset is neither under ``$PERFSTUDY_DATA`` nor cached, and could not be downloaded."""


@dataclass(frozen=True)
class Dataset:
    """One registered file: where it comes from and what a row is."""

    name: str
    family: str
    description: str
    path: str
    url: str
    sha256: str
    rows: int
    unit: str
    licence: str
    citation: str
    benchmark: str | None = None
    config: str | None = None
    split_row: int | None = None


def _registry_file() -> Path:
    candidate = Path(__file__).resolve().parent.parent / "data" / "datasets.toml"
    if not candidate.exists():
        raise FileNotFoundError(f"{candidate}: the dataset registry is missing; install perfstudy editable from its checkout")
    return candidate


def registry() -> dict[str, Dataset]:
    """All registered datasets by name."""
    entries = tomllib.loads(_registry_file().read_text())
    return {name: Dataset(name=name, **fields) for name, fields in entries.items()}


def list_datasets() -> pd.DataFrame:
    """One row per dataset: name, family, description, rows, unit, licence, citation."""
    return pd.DataFrame(
        [dict(name=d.name, family=d.family, description=d.description, rows=d.rows, unit=d.unit,
              licence=d.licence, citation=d.citation) for d in registry().values()]
    )


def _get(name: str) -> Dataset:
    datasets = registry()
    if name not in datasets:
        close = [n for n in datasets if name.lower() in n.lower()][:5]
        hint = f"; did you mean {', '.join(close)}?" if close else "; see perfstudy.datasets.list_datasets()"
        raise ValueError(f"name={name!r}: no such dataset{hint}")
    return datasets[name]


def _cache_dir() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "perfstudy"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _verified(path: Path, dataset: Dataset) -> Path:
    actual = _sha256(path)
    if actual != dataset.sha256:
        raise ValueError(
            f"{dataset.name}: {path} has sha256 {actual}, expected {dataset.sha256}; the file is refused "
            "(corrupt, truncated or a different version). Delete it or point $PERFSTUDY_DATA at the right copy."
        )
    return path


def locate(name: str, *, download: bool = True) -> Path:
    """Path of a dataset's verified file: ``$PERFSTUDY_DATA``, then the cache, then a download.

    Raises
    ------
    ValueError
        Unknown name, or a file whose sha256 does not match (refused).
    DataUnavailableError
        Not found locally and the download failed (offline) or ``download=False``.
    """
    dataset = _get(name)
    root = os.environ.get(ENV, "")
    if root:
        candidate = Path(root) / dataset.path
        if candidate.exists():
            return _verified(candidate, dataset)
    cached = _cache_dir() / dataset.path
    if cached.exists():
        return _verified(cached, dataset)
    if not download:
        raise DataUnavailableError(f"{name}: not found; set ${ENV} to a directory holding {dataset.path}")
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(cached.suffix + ".part")
    try:
        with urllib.request.urlopen(dataset.url, timeout=60) as response, open(partial, "wb") as out:
            while block := response.read(1 << 20):
                out.write(block)
    except (urllib.error.URLError, OSError) as error:
        partial.unlink(missing_ok=True)
        where = f"${ENV}={root!r} has no {dataset.path}" if root else f"${ENV} is not set"
        raise DataUnavailableError(
            f"{name}: not found locally ({where}; not in {cached.parent}) and the download of {dataset.url} "
            f"failed ({error}). Set {ENV} to a directory that holds {dataset.path}, e.g. the shared/datasets mirror."
        ) from error
    try:
        _verified(partial, dataset)
    except ValueError:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(cached)
    return cached


def _load_azure(path: Path, dataset: Dataset) -> pd.DataFrame:
    raw = pd.read_csv(path)
    expected = {"value", "runtime", "starttime", "VM_id"}
    if set(raw.columns) != expected:
        raise ValueError(f"{dataset.name}: expected columns {sorted(expected)}, got {list(raw.columns)}")
    frame = pd.DataFrame(
        {
            "timestamp": pd.to_datetime(raw["starttime"]),
            "vm": raw["VM_id"].astype(int),
            "value": raw["value"].astype(float),
            "runtime_s": raw["runtime"].astype(float),
        }
    )
    frame.insert(0, "benchmark", dataset.name.removeprefix("azure-"))
    return frame.sort_values(["vm", "timestamp"], kind="stable").reset_index(drop=True)


def _load_pt4cloud(path: Path, dataset: Dataset) -> pd.DataFrame:
    values = np.loadtxt(path, dtype=float, ndmin=1)
    index = np.arange(values.size)
    return pd.DataFrame(
        {
            "benchmark": dataset.benchmark,
            "config": dataset.config,
            "index": index,
            "split": np.where(index < dataset.split_row, "sampled", "ground_truth"),
            "value": values,
        }
    )


_LOADERS = {"azure-vm-noise": _load_azure, "pt4cloud": _load_pt4cloud}


def load(name: str, *, download: bool = True) -> pd.DataFrame:
    """Load a dataset as a tidy frame, one row per measurement, in time order.

    - ``azure-*``: ``benchmark``, ``timestamp`` (run start, UTC), ``vm`` (0..2 for long-lived VMs; a new
      VM each for short-lived), ``value`` (in the dataset's ``unit``), ``runtime_s``.
    - ``pt4cloud-*``: ``benchmark``, ``config``, ``index`` (run order), ``split`` (``"sampled"`` for
      the rows before the artifact's split row, the thinned three weeks; ``"ground_truth"`` after),
      ``value``.
    """
    dataset = _get(name)
    frame = _LOADERS[dataset.family](locate(name, download=download), dataset)
    if len(frame) != dataset.rows:
        raise ValueError(f"{name}: parsed {len(frame)} rows, the registry says {dataset.rows}")
    if not np.all(np.isfinite(frame["value"])):
        raise ValueError(f"{name}: non-finite values in the file")
    return frame
