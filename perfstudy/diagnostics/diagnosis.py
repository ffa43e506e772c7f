"""Every diagnostic of one series (:func:`diagnose_series`), and of every series of a tidy frame, one row
per series, none left out (:func:`diagnose`).

:func:`diagnose` runs, per group of a tidy frame, the coefficient of variation (Maricq et al.,
section 4.1), Shapiro-Wilk (4.3), the ADF test (4.4), the autocorrelation-corrected standard error
of the mean (blog, Eq. 6), the shuffle independence test (7.4) and warm-up detection. The strict
functions of :mod:`perfstudy.diagnostics.variability` raise on a series they cannot test; a survey must go on,
so here a diagnostic that does not apply is left empty and the ``notes`` column says why (too
short, constant, no time order). No series is left out.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from perfstudy._lib.checks import (
    check_bool,
    check_column,
    check_fraction,
    check_names,
    check_resamples,
    check_sample,
    check_timestamps,
)
from perfstudy._lib.frames import float_values
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed
from perfstudy.diagnostics.adf import adf
from perfstudy.diagnostics.variability import (
    ADF_MIN,
    SHAPIRO_MAX,
    _shapiro,
    autocorrelation_se,
    independence_test,
    warmup,
)

__all__ = ["COLUMNS", "SeriesDiagnosis", "diagnose_series", "diagnose"]


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
        row.update(shapiro_statistic=w, shapiro_p_value=p, shapiro_reject=bool(p < alpha))
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
        row.update(
            adf_statistic=result.statistic,
            adf_p_value=result.p_value,
            adf_lags=result.lags,
            adf_reject=bool(result.p_value < alpha),
        )
    else:
        notes.append(f"fewer than {ADF_MIN} points: no ADF")
    corrected = autocorrelation_se(x)
    independence = independence_test(x, permutations=permutations, alpha=alpha, rng=rng)
    row.update(
        naive_se=corrected.naive_standard_error,
        corrected_se=corrected.standard_error,
        se_inflation=corrected.inflation,
        ess=corrected.effective_sample_size,
        independence_statistic=independence.statistic,
        independence_p_value=independence.p_value,
        independence_reject=independence.reject,
    )
    if x.size >= 2 * ADF_MIN:
        start = warmup(x, alpha=alpha).index
        row["warmup_index"] = np.nan if start is None else start
        if start is None:
            notes.append("no stationary remainder within the first half")
    else:
        notes.append(f"fewer than {2 * ADF_MIN} points: no warm-up search")
    return {**row, "notes": "; ".join(notes)}


@dataclass(frozen=True)
class SeriesDiagnosis(Result):
    """Every diagnostic of one series; a diagnostic that does not apply is NaN (or None) and ``notes`` says why.

    Attributes
    ----------
    n, mean, cov : int, float, float
        Size, mean and coefficient of variation (Maricq et al., section 4.1).
    shapiro_statistic, shapiro_p_value, shapiro_reject
        Shapiro-Wilk's W (4.3); a reject says "not normal".
    adf_statistic, adf_p_value, adf_lags, adf_reject
        The ADF test (4.4); a reject says "no unit root" (the series looks stationary).
    naive_se, corrected_se, se_inflation, ess
        Standard errors of the mean, iid and autocorrelation-corrected (blog, Eq. 6), their ratio and the
        effective sample size.
    independence_statistic, independence_p_value, independence_reject
        The shuffle test of lag-1 autocorrelation (7.4); a reject says "order matters".
    warmup_index : float
        First value of the stationary remainder (NaN: none within the first half, or not searched).
    notes : str
        What was not computed and why.
    """

    n: int
    mean: float
    cov: float
    shapiro_statistic: float = math.nan
    shapiro_p_value: float = math.nan
    shapiro_reject: bool | None = None
    adf_statistic: float = math.nan
    adf_p_value: float = math.nan
    adf_lags: int | None = None
    adf_reject: bool | None = None
    naive_se: float = math.nan
    corrected_se: float = math.nan
    se_inflation: float = math.nan
    ess: float = math.nan
    independence_statistic: float = math.nan
    independence_p_value: float = math.nan
    independence_reject: bool | None = None
    warmup_index: float = math.nan
    notes: str = ""


def diagnose_series(
    x, *, ordered: bool = True, alpha: float = 0.05, permutations: int = 1000, rng: Seed = None
) -> SeriesDiagnosis:
    """Every diagnostic of one series (the per-series step of :func:`diagnose`).

    Parameters
    ----------
    x : array_like
        Finite values, in time order when ``ordered``.
    ordered : bool
        Whether ``x`` is in time order. If not, only the order-free diagnostics (CoV, Shapiro-Wilk)
        are computed.
    alpha : float
        Size of the Shapiro-Wilk, ADF, independence and warm-up decisions.
    permutations : int
        Shuffles for the independence test.
    rng : None, int, SeedSequence or Generator
        For the independence test's shuffles (and Shapiro-Wilk's subsample above 5,000 values).

    Returns
    -------
    SeriesDiagnosis
    """
    x = check_sample("x", x)
    ordered = check_bool("ordered", ordered)
    alpha = check_fraction("alpha", alpha)
    permutations = check_resamples("permutations", permutations)
    row = _one(x, ordered, np.random.default_rng(rng), alpha=alpha, permutations=permutations)
    return SeriesDiagnosis(**row)


#: The columns of :func:`diagnose` after the group keys. Each test has ``<test>_statistic``,
#: ``<test>_p_value`` and ``<test>_reject``: Shapiro-Wilk rejects normality, ADF rejects a unit root
#: (the series looks stationary), the independence test rejects "order does not matter".
COLUMNS = [
    "n",
    "mean",
    "cov",
    "shapiro_statistic",
    "shapiro_p_value",
    "shapiro_reject",
    "adf_statistic",
    "adf_p_value",
    "adf_lags",
    "adf_reject",
    "naive_se",
    "corrected_se",
    "se_inflation",
    "ess",
    "independence_statistic",
    "independence_p_value",
    "independence_reject",
    "warmup_index",
    "notes",
]


def diagnose(
    df: pd.DataFrame,
    by,
    *,
    order: str | None = None,
    value: str = "value",
    alpha: float = 0.05,
    permutations: int = 1000,
    dropna: bool = False,
    rng: Seed = None,
    progress: bool = False,
) -> pd.DataFrame:
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
    value : str
        The measurement column.
    alpha : float
        Size of the Shapiro-Wilk, ADF, independence and warm-up decisions.
    permutations : int
        Shuffles for the independence test.
    dropna : bool
        NaN or infinite values are an error (naming the groups) unless True: then those rows are
        left out, with a warning and a ``dropped`` column counting them per group.
    rng : None, int, SeedSequence or Generator
        One stream per group (spawned), so a group's result does not depend on the others.
    progress : bool
        Show a progress bar over the groups.

    Returns
    -------
    DataFrame
        The group keys, then :data:`COLUMNS`: ``n``, ``mean``, ``cov``; ``shapiro_statistic`` (W),
        ``shapiro_p_value``, ``shapiro_reject``; ``adf_statistic``, ``adf_p_value``, ``adf_lags``,
        ``adf_reject``; ``naive_se``, ``corrected_se``, ``se_inflation`` (corrected / naive),
        ``ess``; ``independence_statistic`` (lag-1 autocorrelation), ``independence_p_value``,
        ``independence_reject``; ``warmup_index``; ``notes`` (what was not computed and why).

    Raises
    ------
    ValueError
        Missing columns, NaN or infinite values (say which groups), an empty frame.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df: expected a pandas DataFrame, got {type(df).__name__}")
    alpha = check_fraction("alpha", alpha)
    permutations = check_resamples("permutations", permutations)
    dropna = check_bool("dropna", dropna)
    keys = [by] if isinstance(by, str) else list(check_names("by", by))
    for key in keys:
        check_column("by", key, df)
    check_column("value", value, df)
    if order is not None:
        check_column("order", order, df)
    if df.empty:
        raise ValueError("df: no rows")
    bad = ~np.isfinite(float_values(df[value]))
    if bad.any() and not dropna:
        where = df.loc[bad, keys].drop_duplicates().head(3).to_dict("records")
        raise ValueError(
            f"{value}: {int(bad.sum())} NaN or infinite values (in groups {where}); "
            "fix them, or pass dropna=True to leave those rows out and count them"
        )
    if bad.any():
        warnings.warn(
            f"{value}: {int(bad.sum())} of {bad.size} rows are NaN or infinite and were left out "
            "(dropna=True); the 'dropped' column counts them per group",
            stacklevel=2,
        )
    groups = list(df.groupby(keys, sort=True, dropna=False))  # a NaN key is a group too
    if order is not None and pd.api.types.is_datetime64_any_dtype(df[order]):
        check_timestamps("df", df[order])
    streams = np.random.default_rng(rng).spawn(len(groups))
    rows = []
    for (key, group), stream in zip(tqdm(groups, desc="series", disable=not progress), streams):
        if order:
            group = group.sort_values(order, kind="stable")
        key = key if isinstance(key, tuple) else (key,)
        x = float_values(group[value])
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
