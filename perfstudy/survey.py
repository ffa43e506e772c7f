"""Every diagnostic over every series: one row per series of a tidy frame or of the shipped datasets.

:func:`diagnose` runs, per group of a tidy frame, the coefficient of variation (Maricq et al.,
section 4.1), Shapiro-Wilk (4.3), the ADF test (4.4), the autocorrelation-corrected standard error
of the mean (blog, Eq. 6), the shuffle independence test (7.4) and warm-up detection. The strict
functions of :mod:`perfstudy.diagnostics` raise on a series they cannot test; a survey must go on,
so here a diagnostic that does not apply is left empty and the ``notes`` column says why (too
short, constant, no time order). No series is left out.

:data:`SERIES` says what one series is in each dataset family and whether its rows are in time
order; :func:`survey_datasets` applies :func:`diagnose` to all of them.
"""

from __future__ import annotations

from dataclasses import dataclass
import warnings

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from perfstudy import datasets
from perfstudy.adf import adf
from perfstudy.diagnostics import (
    ADF_MIN,
    SHAPIRO_MAX,
    _shapiro,
    autocorrelation_se,
    independence_test,
    warmup,
)

__all__ = ["SERIES", "Series", "iter_series", "diagnose", "survey_datasets"]

#: family -> (columns that identify one series, column giving time order or None if unordered)
SERIES = {
    "azure-vm-noise": (["benchmark", "vm"], "timestamp"),
    "pt4cloud": (["benchmark", "config"], "index"),
    "sap-hana": (["benchmark"], "index"),
    "laaber-go": (["project", "benchmark"], "batch"),
    # three iterations on each of many VMs, VMs in no known order: order-free diagnostics only
    "cwb": (["benchmark", "config"], None),
}
#: the short-lived Azure VMs run once each: their series is the fleet, in time order across VMs
SHORT_LIVED = ["benchmark"]


@dataclass(frozen=True, eq=False)
class Series:
    """One series of a registered dataset: its values in time order (where there is one)."""

    family: str
    dataset: str
    key: dict
    values: np.ndarray

    @property
    def label(self) -> str:
        return " ".join(str(v) for v in self.key.values())


def _series_keys(name: str, frame: pd.DataFrame) -> tuple[list[str], str | None]:
    family = datasets.registry()[name].family
    keys, order = SERIES[family]
    if family == "azure-vm-noise" and frame.groupby("vm").size().max() == 1:
        keys = SHORT_LIVED
    return keys, order


def iter_series(names=None):
    """Every series of the registered datasets (or of ``names``), as :class:`Series`, in the order of
    :func:`perfstudy.datasets.registry`; what a series is per family is :data:`SERIES`."""
    registry = datasets.registry()
    names = [n for n, d in registry.items() if d.family in SERIES] if names is None else list(names)
    for name in names:
        if name not in registry or registry[name].family not in SERIES:
            raise ValueError(f"{name!r}: not a registered dataset with series (families {sorted(SERIES)})")
        frame = datasets.load(name)
        keys, order = _series_keys(name, frame)
        if order:
            frame = frame.sort_values(keys + [order], kind="stable")
        for key, group in frame.groupby(keys, sort=True):
            key = key if isinstance(key, tuple) else (key,)
            yield Series(registry[name].family, name, dict(zip(keys, key)), group["value"].to_numpy(dtype=float))


def _one(x: np.ndarray, ordered: bool, rng: np.random.Generator, *, alpha: float, permutations: int) -> dict:
    row: dict = {"n": x.size}
    notes = []
    mean = x.mean()
    row["mean"] = mean
    row["cov"] = x.std(ddof=1) / abs(mean) if x.size > 1 and mean != 0 else np.nan
    if np.ptp(x) == 0:
        return {**row, "notes": "constant: no test applies"}
    if x.size >= 3:
        w, p, tested = _shapiro(x, rng)
        row.update(shapiro_w=w, shapiro_p=p, normal=bool(p >= alpha))
        if tested < x.size:
            notes.append(f"Shapiro-Wilk on a random {SHAPIRO_MAX} of {x.size}")
    else:
        notes.append("fewer than 3 points: no Shapiro-Wilk")
    if not ordered:
        notes.append("no time order: no ADF, autocorrelation or warm-up")
        return {**row, "notes": "; ".join(notes)}
    if x.size < 3:
        notes.append("fewer than 3 points: no test of order")
        return {**row, "notes": "; ".join(notes)}
    if x.size >= ADF_MIN:
        result = adf(x)
        row.update(adf_statistic=result.statistic, adf_p=result.p_value, adf_lags=result.lags,
                   stationary=bool(result.p_value < alpha))
    else:
        notes.append(f"fewer than {ADF_MIN} points: no ADF")
    corrected = autocorrelation_se(x)
    independence = independence_test(x, permutations=permutations, rng=rng)
    row.update(naive_se=corrected.naive_standard_error, corrected_se=corrected.standard_error,
               se_inflation=corrected.inflation, ess=corrected.effective_sample_size,
               lag1=independence.statistic, independence_p=independence.p_value)
    if x.size >= 2 * ADF_MIN:
        start = warmup(x, alpha=alpha).index
        row["warmup_index"] = np.nan if start is None else start
        if start is None:
            notes.append("no stationary remainder within the first half")
    else:
        notes.append(f"fewer than {2 * ADF_MIN} points: no warm-up search")
    return {**row, "notes": "; ".join(notes)}


COLUMNS = ["n", "mean", "cov", "shapiro_w", "shapiro_p", "normal", "adf_statistic", "adf_p", "adf_lags",
           "stationary", "naive_se", "corrected_se", "se_inflation", "ess", "lag1", "independence_p",
           "warmup_index", "notes"]


def diagnose(df: pd.DataFrame, by, *, order: str | None = None, value: str = "value", alpha: float = 0.05,
             permutations: int = 1000, dropna: bool = False, rng=None, progress: bool = False) -> pd.DataFrame:
    """All diagnostics for each group of ``df``: one row per group, none left out.

    Parameters
    ----------
    df : DataFrame
        Tidy measurements.
    by : str or list of str
        Columns that identify one series.
    order : str, optional
        Column giving time order within a series. Without it, only the order-free diagnostics
        (CoV, Shapiro-Wilk) are computed: the others depend on the order of the rows.
    alpha : float
        Level of the Shapiro-Wilk, ADF and warm-up decisions.
    permutations : int
        Shuffles for the independence test.
    dropna : bool
        NaN or infinite values are an error (naming the groups) unless True: then those rows are
        left out, with a warning and a ``dropped`` column counting them per group.
    rng : seed or Generator
        One stream per group (spawned), so a group's result does not depend on the others.

    Returns
    -------
    DataFrame
        The group keys; ``n``, ``mean``, ``cov``; ``shapiro_w``, ``shapiro_p``, ``normal``;
        ``adf_statistic``, ``adf_p``, ``adf_lags``, ``stationary``; ``naive_se``, ``corrected_se``,
        ``se_inflation`` (corrected / naive), ``ess``; ``lag1``, ``independence_p``;
        ``warmup_index``; ``notes`` (what was not computed and why).

    Raises
    ------
    ValueError
        Missing columns, NaN or infinite values (say which groups), an empty frame.
    """
    keys = [by] if isinstance(by, str) else list(by)
    needed = keys + [value] + ([order] if order else [])
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise ValueError(f"columns {missing} not in the frame; it has {list(df.columns)}")
    if df.empty:
        raise ValueError("df: no rows")
    bad = ~np.isfinite(pd.to_numeric(df[value], errors="coerce").to_numpy(dtype=float))
    if bad.any() and not dropna:
        where = df.loc[bad, keys].drop_duplicates().head(3).to_dict("records")
        raise ValueError(f"{value}: {int(bad.sum())} NaN or infinite values (in groups {where}); "
                         "fix them, or pass dropna=True to leave those rows out and count them")
    if bad.any():
        warnings.warn(f"{value}: {int(bad.sum())} of {bad.size} rows are NaN or infinite and were left out "
                      "(dropna=True); the 'dropped' column counts them per group", stacklevel=2)
    groups = list(df.groupby(keys, sort=True, dropna=False))  # a NaN key is a group too
    streams = np.random.default_rng(rng).spawn(len(groups))
    rows = []
    for (key, group), stream in zip(tqdm(groups, desc="series", disable=not progress), streams):
        if order:
            group = group.sort_values(order, kind="stable")
        key = key if isinstance(key, tuple) else (key,)
        x = pd.to_numeric(group[value], errors="coerce").to_numpy(dtype=float)
        keep = np.isfinite(x)
        if keep.any():
            result = _one(x[keep], order is not None, stream, alpha=alpha, permutations=permutations)
        else:
            result = {"n": 0, "notes": "every value is NaN or infinite"}
        if dropna:
            result["dropped"] = int((~keep).sum())
        rows.append({**dict(zip(keys, key)), **result})
    frame = pd.DataFrame(rows).reindex(columns=keys + COLUMNS + (["dropped"] if dropna else []))
    return frame


def survey_datasets(names=None, *, alpha: float = 0.05, permutations: int = 1000, rng=None,
                    progress: bool = False) -> pd.DataFrame:
    """:func:`diagnose` over every series of the registered datasets (or of ``names``).

    A series is what :data:`SERIES` says for the dataset's family; the short-lived Azure VMs run
    once each, so their series is the fleet in time order. Returns one row per series with
    ``dataset`` and ``family`` in front; series keys that a family lacks are empty.
    """
    registry = datasets.registry()
    names = [n for n, d in registry.items() if d.family in SERIES] if names is None else list(names)
    frames = []
    streams = np.random.default_rng(rng).spawn(len(names))
    for name, stream in zip(tqdm(names, desc="datasets", disable=not progress), streams):
        family = registry[name].family if name in registry else None
        if family not in SERIES:
            raise ValueError(f"{name!r}: not a registered dataset with series (families {sorted(SERIES)})")
        frame = datasets.load(name)
        keys, order = _series_keys(name, frame)
        result = diagnose(frame, keys, order=order, alpha=alpha, permutations=permutations, rng=stream)
        result.insert(0, "family", family)
        result.insert(0, "dataset", name)
        frames.append(result)
    return pd.concat(frames, ignore_index=True)
