"""The public datasets as series: what one series is in each registered family.

The registered files (:mod:`perfstudy.io.datasets`) differ in what a series is: one benchmark on one
Azure host in time order, one PT4Cloud configuration in run order, one SAP HANA benchmark in build
order, one Go benchmark over its repetitions, one CWB metric on one instance type across VMs that
ran in no known order. :data:`SERIES` says so once; :func:`iter_series` and
:func:`survey_datasets` apply it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from perfstudy._lib.checks import check_bool, check_fraction, check_frame, check_int, check_names, check_text
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed
from perfstudy.diagnostics.diagnosis import diagnose
from perfstudy.io import datasets

__all__ = [
    "SERIES",
    "SHORT_LIVED",
    "AZURE_LONG",
    "Series",
    "family_table",
    "series_keys",
    "iter_series",
    "survey_datasets",
]

#: family -> (columns that identify one series, column giving time order or None if unordered)
SERIES = {
    "azure-vm-noise": (["benchmark", "host"], "timestamp"),
    "pt4cloud": (["benchmark", "config"], "index"),
    "sap-hana": (["benchmark"], "index"),
    "laaber-go": (["project", "benchmark"], "batch"),
    # three iterations on each of many VMs, VMs in no known order: order-free diagnostics only
    "cwb": (["benchmark", "config"], None),
}
#: the short-lived Azure VMs run once each: their series is the fleet, in time order across hosts
SHORT_LIVED = ["benchmark"]
#: the Azure VM noise datasets whose three hosts each ran for about a year (the short-lived fleet runs once per host)
AZURE_LONG = (
    "azure-redis-get-long",
    "azure-postgres-sf25-c25-readonly-long",
    "azure-mlc-idle-latency-long",
    "azure-osbench-create-processes-long",
    "azure-fio-randwrite-buffered-local-long",
)


def family_table() -> pd.DataFrame:
    """One row per registered family: its datasets, rows and licence, what one series is in it (:data:`SERIES`) and
    which column puts its rows in time order ("none" where no order is known, "-" for a family this module does not
    read as series)."""
    catalogue = datasets.list_datasets()
    families = catalogue.groupby("family").agg(
        datasets=("name", "size"), rows=("rows", "sum"), licence=("licence", "first")
    )
    families["series"] = [", ".join(SERIES[f][0]) if f in SERIES else "-" for f in families.index]
    families["time order"] = [(SERIES[f][1] or "none") if f in SERIES else "-" for f in families.index]
    return families


@dataclass(frozen=True, eq=False)
class Series(Result):
    """One series of a registered dataset: its values in time order (where there is one).

    Attributes
    ----------
    family, dataset : str
        The registry's family and dataset name.
    key : dict
        The values of the grouping columns that pick the series out of the dataset.
    values : ndarray
        The measurements.
    """

    family: str
    dataset: str
    key: dict
    values: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        """One row: family, dataset, the key's columns and the number of values."""
        return pd.DataFrame([{"family": self.family, "dataset": self.dataset, **self.key, "values": self.values.size}])

    @property
    def label(self) -> str:
        """The key's values, space-separated."""
        return " ".join(str(v) for v in self.key.values())


def series_keys(name: str, frame: pd.DataFrame) -> tuple[list[str], str | None]:
    """The columns that identify one series of dataset ``name`` and the column of its time order
    (None where there is none), for its loaded ``frame`` (:data:`SERIES`, and :data:`SHORT_LIVED`
    for an Azure fleet whose hosts ran once each).

    Parameters
    ----------
    name : str
        A registered dataset.
    frame : DataFrame
        What :func:`perfstudy.io.datasets.load` returned for it.
    """
    check_text("name", name)
    check_frame("frame", frame, minimum=0)
    family = datasets.registry()[name].family
    keys, order = SERIES[family]
    if family == "azure-vm-noise" and frame.groupby("host").size().max() == 1:
        keys = SHORT_LIVED
    return keys, order


def iter_series(names=None):
    """Every series of the registered datasets (or of ``names``), as :class:`Series`, in the order of
    :func:`perfstudy.io.datasets.registry`; what a series is per family is :data:`SERIES`.

    Parameters
    ----------
    names : sequence of str, optional
        Registered datasets (default: every one whose family is in :data:`SERIES`).
    """
    if names is not None:
        check_names("names", names)
    registry = datasets.registry()
    names = [n for n, d in registry.items() if d.family in SERIES] if names is None else list(names)
    for name in names:
        if name not in registry or registry[name].family not in SERIES:
            raise ValueError(f"{name!r}: not a registered dataset with series (families {sorted(SERIES)})")
        frame = datasets.load(name)
        keys, order = series_keys(name, frame)
        if order:
            frame = frame.sort_values(keys + [order], kind="stable")
        for key, group in frame.groupby(keys, sort=True):
            key = key if isinstance(key, tuple) else (key,)
            yield Series(registry[name].family, name, dict(zip(keys, key)), group["value"].to_numpy(dtype=float))


def survey_datasets(
    names=None, *, alpha: float = 0.05, permutations: int = 1000, rng: Seed = None, progress: bool = False
) -> pd.DataFrame:
    """:func:`diagnose` over every series of the registered datasets (or of ``names``).

    A series is what :data:`SERIES` says for the dataset's family; the short-lived Azure VMs run
    once each, so their series is the fleet in time order.

    Parameters
    ----------
    names : sequence of str, optional
        Registered datasets (default: every one whose family is in :data:`SERIES`).
    alpha, permutations
        As in :func:`perfstudy.diagnostics.diagnosis.diagnose`.
    rng : None, int, SeedSequence or Generator
        One stream per dataset.
    progress : bool
        Show a progress bar over the datasets.

    Returns
    -------
    DataFrame
        One row per series with ``dataset`` and ``family`` in front; series keys that a family
        lacks are empty.
    """
    if names is not None:
        check_names("names", names)
    check_fraction("alpha", alpha)
    check_int("permutations", permutations)
    check_bool("progress", progress)
    registry = datasets.registry()
    names = [n for n, d in registry.items() if d.family in SERIES] if names is None else list(names)
    frames = []
    streams = np.random.default_rng(rng).spawn(len(names))
    for name, stream in zip(tqdm(names, desc="datasets", disable=not progress), streams):
        family = registry[name].family if name in registry else None
        if family not in SERIES:
            raise ValueError(f"{name!r}: not a registered dataset with series (families {sorted(SERIES)})")
        frame = datasets.load(name)
        keys, order = series_keys(name, frame)
        result = diagnose(frame, keys, order=order, alpha=alpha, permutations=permutations, rng=stream)
        result.insert(0, "family", family)
        result.insert(0, "dataset", name)
        frames.append(result)
    return pd.concat(frames, ignore_index=True)
