"""Real published measurements: a registry with pinned URLs and sha256, and tidy loaders.

The registry is ``data/datasets.toml``, shipped inside the package and read with
:mod:`importlib.resources`, so an installed wheel has it too. A file is looked for in

1. ``$PERFSTUDY_DATA/<path>`` (CI points it at ``../shared/datasets``),
2. the user cache, ``$XDG_CACHE_HOME/perfstudy`` or ``~/.cache/perfstudy``,
3. its pinned URL, downloaded into the cache.

Every file is checked against its sha256 before use; a mismatch is an error, never a warning. The
files themselves are never part of this repository.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import os
import tempfile
import tomllib
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pandas as pd

from perfstudy._lib.checks import check_bool
from perfstudy._lib.result import Result

__all__ = ["Dataset", "registry", "list_datasets", "locate", "load", "load_family", "DataUnavailableError"]

ENV = "PERFSTUDY_DATA"


class DataUnavailableError(FileNotFoundError):
    """A dataset is neither under ``$PERFSTUDY_DATA`` nor cached, and could not be downloaded."""


@dataclass(frozen=True)
class Dataset(Result):
    """One registered file: where it comes from and what a row is.

    Attributes
    ----------
    name : str
        Registry key, e.g. ``"pt4cloud-AWS-EP-L"``.
    family : str
        Group of related files (``"azure"``, ``"pt4cloud"``, ``"sap-hana"``, ``"cwb"``, ``"laaber"``).
    description : str
    path : str
        File name relative to the data directory.
    url : str
        Pinned download address.
    sha256 : str
        Checksum the file must match to be used.
    rows : int
        Rows the loader returns (checked by the tests).
    unit : str
        Unit of ``value`` (or ``"mixed"``, with a ``unit`` column).
    licence, citation : str
        Terms of reuse and the work to cite.
    benchmark, config : str, optional
        Fixed values of those columns for single-benchmark files.
    split_row : int, optional
        PT4Cloud files: first row of the ground-truth part.
    metrics : mapping, optional
        CWB: the metrics read, each with its unit.
    """

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
    metrics: MappingProxyType[str, str] | None = None


def _registry_file() -> Path:
    """The registry shipped with the package (``perfstudy/data/datasets.toml``, package data)."""
    candidate = Path(str(importlib.resources.files("perfstudy") / "data" / "datasets.toml"))
    if not candidate.exists():
        raise FileNotFoundError(f"{candidate}: the dataset registry is missing from the installed package")
    return candidate


def registry() -> dict[str, Dataset]:
    """All registered datasets by name."""
    path = _registry_file()
    return dict(_parse_registry(str(path), path.stat().st_mtime_ns))


@functools.lru_cache(maxsize=4)
def _parse_registry(path: str, mtime_ns: int) -> dict[str, Dataset]:
    # parsed once per version of the file (the TOML parse costs ~20 ms, and loaders ask often)
    datasets = {}
    for name, fields in tomllib.loads(Path(path).read_text()).items():
        if "metrics" in fields:
            fields["metrics"] = MappingProxyType(dict(fields["metrics"]))
        datasets[name] = Dataset(name=name, **fields)
    return datasets


def list_datasets() -> pd.DataFrame:
    """One row per dataset: name, family, description, rows, unit, licence, citation."""
    return pd.DataFrame(
        [
            dict(
                name=d.name,
                family=d.family,
                description=d.description,
                rows=d.rows,
                unit=d.unit,
                licence=d.licence,
                citation=d.citation,
            )
            for d in registry().values()
        ]
    )


def _get(name: str) -> Dataset:
    if not isinstance(name, str):
        raise TypeError(f"name={name!r}: expected a dataset's name (see perfstudy.io.datasets.list_datasets())")
    datasets = registry()
    if name not in datasets:
        close = [n for n in datasets if name.lower() in n.lower()][:5]
        hint = f"; did you mean {', '.join(close)}?" if close else "; see perfstudy.io.datasets.list_datasets()"
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

    Parameters
    ----------
    name : str
        A registered dataset.
    download : bool
        Try the pinned URL when the file is not found locally.

    Raises
    ------
    ValueError
        Unknown name, or a file whose sha256 does not match (refused).
    DataUnavailableError
        Not found locally and the download failed (offline) or ``download=False``.
    """
    dataset = _get(name)
    download = check_bool("download", download)
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
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        # a name of this process's own: two processes downloading at once never write one file, and
        # only a complete, verified download is ever renamed to the dataset's name
        handle, partial = tempfile.mkstemp(dir=cached.parent, prefix=cached.name + ".", suffix=".part")
        os.close(handle)
        partial = Path(partial)
    except OSError as error:
        raise DataUnavailableError(
            f"{name}: not found locally, and the cache {cached.parent} cannot be written ({error.strerror}); "
            f"set {ENV} to a directory that holds {dataset.path}, or XDG_CACHE_HOME to a writable directory"
        ) from error
    try:
        with urllib.request.urlopen(dataset.url, timeout=60) as response, open(partial, "wb") as out:
            while block := response.read(1 << 20):
                out.write(block)
    except BaseException as error:  # offline, a full disk, or an interrupt: never leave a partial file
        partial.unlink(missing_ok=True)
        if not isinstance(error, (urllib.error.URLError, OSError)):
            raise
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
    os.replace(partial, cached)  # atomic: a reader sees no file or the whole verified one
    return cached


def _columns(raw: pd.DataFrame, expected, dataset: Dataset) -> None:
    missing = sorted(set(expected) - set(raw.columns))
    if missing:
        raise ValueError(f"{dataset.name}: columns {missing} missing; the file has {list(raw.columns)}")


def _load_azure(path: Path, dataset: Dataset) -> tuple[pd.DataFrame, int]:
    raw = pd.read_csv(path)
    _columns(raw, {"value", "runtime", "starttime", "VM_id"}, dataset)
    frame = pd.DataFrame(
        {
            "timestamp": pd.to_datetime(raw["starttime"]),
            "host": raw["VM_id"].astype(int),
            "value": raw["value"].astype(float),
            "runtime_s": raw["runtime"].astype(float),
        }
    )
    frame.insert(0, "benchmark", dataset.name.removeprefix("azure-"))
    return frame.sort_values(["host", "timestamp"], kind="stable").reset_index(drop=True), len(raw)


def _load_pt4cloud(path: Path, dataset: Dataset) -> tuple[pd.DataFrame, int]:
    values = np.loadtxt(path, dtype=float, ndmin=1)
    index = np.arange(values.size)
    frame = pd.DataFrame(
        {
            "benchmark": dataset.benchmark,
            "config": dataset.config,
            "index": index,
            "split": np.where(index < dataset.split_row, "sampled", "ground_truth"),
            "value": values,
        }
    )
    return frame, values.size


def _load_sap_details(path: Path, dataset: Dataset) -> tuple[pd.DataFrame, int]:
    raw = pd.read_csv(path, sep=";")
    _columns(raw, {"Type", "Dataset", "Change Point"}, dataset)
    label = raw["Type"].str.strip()
    frame = pd.DataFrame(
        {
            "benchmark": raw["Dataset"].str.removesuffix(".csv"),
            "label": label.str[:1].str.upper() + label.str[1:],
            # "the last Index before the regression was introduced"; 0 stands for none
            "change_point": raw["Change Point"].where(raw["Change Point"] > 0).astype("Int64"),
        }
    )
    return frame.sort_values("benchmark", kind="stable").reset_index(drop=True), len(raw)


def _load_sap(path: Path, dataset: Dataset) -> tuple[pd.DataFrame, int]:
    raw = pd.read_csv(path)
    _columns(raw, {"Index", "GHC", "Measurement"}, dataset)
    details = load("sap-hana-details").set_index("benchmark").loc[dataset.benchmark]
    change_point = details["change_point"]
    index = raw["Index"].astype(int)
    frame = pd.DataFrame(
        {
            "benchmark": dataset.benchmark,
            "label": details["label"],
            "index": index,
            "build": raw["GHC"].astype(int),
            "value": raw["Measurement"].astype(float),
            "after_change": (index > change_point) if not pd.isna(change_point) else False,
        }
    )
    return frame, len(raw)


def _load_cwb(path: Path, dataset: Dataset) -> tuple[pd.DataFrame, int]:
    raw = pd.read_csv(path, sep=";")
    metrics = dict(dataset.metrics)
    _columns(raw, {"provider_vm_id", "iteration", "source", *metrics}, dataset)
    # source "rmit-combined_v3_aws-us_m3.medium": suite version, region prefix, instance type;
    # no prefix or "eu" is eu-west-1a, "us" is us-east-1a (cwb-data-interim.upstream.md)
    parts = raw["source"].str.extract(r"^rmit-combined_(?P<suite>v\d+)_aws(?:-(?P<region>eu|us))?_(?P<config>.+)$")
    if parts["config"].isna().any():
        raise ValueError(
            f"{dataset.name}: unrecognised source names {sorted(raw['source'][parts['config'].isna()].unique())}"
        )
    region = parts["region"].map({"us": "us-east-1a", "eu": "eu-west-1a"}).fillna("eu-west-1a")
    ids = pd.DataFrame(
        {
            "config": parts["config"],
            "region": region,
            "suite": parts["suite"],
            "host": raw["provider_vm_id"],
            "batch": raw["iteration"].astype(int),
        }
    )
    wide = pd.concat([ids, raw[list(metrics)]], axis=1)
    frame = wide.melt(id_vars=list(ids.columns), var_name="benchmark", value_name="value")
    frame["unit"] = frame["benchmark"].map(metrics)
    frame = frame[["benchmark", "config", "region", "suite", "host", "batch", "value", "unit"]]
    return frame.sort_values(["benchmark", "config", "host", "batch"], kind="stable").reset_index(drop=True), len(raw)


def _load_laaber(path: Path, dataset: Dataset) -> tuple[pd.DataFrame, int]:
    raw = pd.read_csv(path, sep=";")
    _columns(raw, {"project", "commit", "benchmark", "trial", "value"}, dataset)
    frame = pd.DataFrame(
        {
            "project": raw["project"],
            "commit": raw["commit"],
            "benchmark": raw["benchmark"],
            "batch": raw["trial"].astype(int),
            "value": raw["value"].astype(float),
        }
    )
    return frame.sort_values(["benchmark", "batch"], kind="stable").reset_index(drop=True), len(raw)


_LOADERS = {
    "azure-vm-noise": _load_azure,
    "pt4cloud": _load_pt4cloud,
    "sap-hana": _load_sap,
    "sap-hana-details": _load_sap_details,
    "cwb": _load_cwb,
    "laaber-go": _load_laaber,
}


def load(name: str, *, download: bool = True) -> pd.DataFrame:
    """Load a dataset as a tidy frame, one row per measurement (time order wherever it is known).

    - ``azure-*``: ``benchmark``, ``timestamp`` (run start, UTC), ``host`` (the VM: 0..2 for long-lived
      VMs; a new VM each for short-lived), ``value`` (in the dataset's ``unit``), ``runtime_s``.
    - ``pt4cloud-*``: ``benchmark``, ``config``, ``index`` (run order), ``split`` (``"sampled"`` for
      the rows before the artifact's split row, the thinned three weeks; ``"ground_truth"`` after),
      ``value``.
    - ``sap-hana-NNNN``: ``benchmark`` (the series, ``"0000"``..), ``label`` (SAP's judgement:
      Stable, Spike, Regression, High deviation, Build-dependent), ``index``, ``build`` (GHC; rows
      of one build are repeated measurements of it), ``value`` (a unitless duration),
      ``after_change`` (True after a labelled regression's change point).
    - ``sap-hana-details``: ``benchmark``, ``label``, ``change_point`` (last ``index`` before the
      regression; missing when there is none).
    - ``cwb-aws-microbench``: long format, ``benchmark`` (the metric), ``config`` (EC2 instance
      type), ``region``, ``suite`` (CWB suite version), ``host`` (the VM), ``batch`` (iteration 1..3 on it),
      ``value``, ``unit``. No timestamps: the order of VMs is not time order.
    - ``laaber-*``: ``project``, ``commit``, ``benchmark``, ``batch`` (the repetition, ``trial``),
      ``value`` (ns/op).

    Parameters
    ----------
    name : str
        A registered dataset (``list_datasets()["name"]``).
    download : bool
        Download (and verify) the file when it is neither under ``$PERFSTUDY_DATA`` nor cached.

    Raises
    ------
    ValueError
        Unknown name, a file refused by its sha256, or a file that does not parse as registered.
    DataUnavailableError
        Not found locally and not downloadable; the message names ``$PERFSTUDY_DATA``.
    """
    dataset = _get(name)
    download = check_bool("download", download)
    frame, rows = _LOADERS[dataset.family](locate(name, download=download), dataset)
    if rows != dataset.rows:
        raise ValueError(f"{name}: parsed {rows} rows, the registry says {dataset.rows}")
    if "value" in frame and not np.all(np.isfinite(frame["value"])):
        raise ValueError(f"{name}: non-finite values in the file")
    return frame


def load_family(family: str, *, download: bool = True) -> pd.DataFrame:
    """All datasets of one ``family`` (``list_datasets()["family"]``), concatenated, with a ``dataset`` column.

    Parameters
    ----------
    family : str
        A registered family.
    download : bool
        As in :func:`load`.

    Raises
    ------
    ValueError
        An unknown family (the message lists the known ones).
    """
    if not isinstance(family, str):
        raise TypeError(f"family={family!r}: expected a family's name")
    download = check_bool("download", download)
    names = [d.name for d in registry().values() if d.family == family]
    if not names:
        families = sorted({d.family for d in registry().values()})
        raise ValueError(f"family={family!r}: no such family; expected one of {families}")
    frames = [load(name, download=download).assign(dataset=name) for name in names]
    return pd.concat(frames, ignore_index=True)
