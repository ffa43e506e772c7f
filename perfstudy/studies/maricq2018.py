"""Maricq et al., "Taming Performance Variability", OSDI 2018: its published numbers, and one function
per table or figure on the public datasets (notebooks 03 and 05).

CloudLab's measurements (the paper's Zenodo record) are not mirrored here, so every figure is
redrawn on the registered public series (:mod:`perfstudy.studies.public_data`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from perfstudy._lib.checks import (
    check_bool,
    check_each,
    check_fraction,
    check_frame,
    check_int,
    check_names,
    check_real,
    check_text,
)
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed
from perfstudy.diagnostics.hosts import eliminate_unrepresentative, rank_hosts
from perfstudy.diagnostics.repetitions import median_ci_indices, repetitions_needed
from perfstudy.diagnostics.variability import coefficient_of_variation, normality
from perfstudy.io import datasets
from perfstudy.studies.public_data import SERIES, iter_series

__all__ = [
    "ConvergenceCurves",
    "RepetitionsAgainstCoV",
    "series_values",
    "PUBLISHED",
    "cov_summary",
    "NormalityTests",
    "figure3_normality",
    "figure4_stationarity",
    "whole_series_reject_share",
    "short_lived_ranking",
    "warmup_table",
    "order_table",
    "median_ci_index_table",
    "figure5_convergence",
    "figure6_cov_vs_repetitions",
    "table4_degraded_server",
    "DegradedCopyRanking",
    "figure7_cwb",
    "degraded_copy_ranking",
]

#: Numbers printed in the paper: normality rejected across servers for 710 of 713 configurations
#: (section 4.3); "roughly half" of single-server sets normal (4.3); CoV up to 10% attributable to
#: hardware (4.1); the bulk of Figure 1's 70 configurations between 0.3% and 9.0% CoV and latency
#: tests up to 29.2% (4.1); ADF run on all 70 (4.4); "most configurations up to about 4% CoV require
#: only tens of repetitions" (5, Figure 6); one bad server in ten inflates CONFIRM's estimate 2.1 to
#: 5.9 times (Table 4).
PUBLISHED = {
    "across_rejected": 710,
    "across_configurations": 713,
    "within_normal_share": 0.5,
    "hardware_cov": 0.10,
    "bulk_cov": (0.003, 0.090),
    "latency_cov_max": 0.292,
    "figure1_configurations": 70,
    "tens_of_repetitions_cov": 0.04,
    "table4_inflation": (2.1, 5.9),
}


def _performance(survey: pd.DataFrame) -> pd.DataFrame:
    """The survey without CWB's failure counts (not performance)."""
    return survey[~survey.benchmark.astype(str).str.contains("failure")]


def cov_summary(survey: pd.DataFrame) -> dict:
    """Figure 1 in numbers: the CoV per family, the share of series below 10%, PT4Cloud's CoVs.

    Parameters
    ----------
    survey : DataFrame
        :func:`perfstudy.studies.public_data.survey_datasets`.

    Returns
    -------
    dict
        ``by_family`` (``series``, an integer count, and the CoV's ``min``, ``median``, ``max``),
        ``share_below_hardware`` (below
        ``PUBLISHED["hardware_cov"]``), ``pt4cloud`` (CoV per configuration), ``performance`` (the
        survey rows drawn).
    """
    check_frame("survey", survey, minimum=0)
    performance = _performance(survey)
    grouped = performance.groupby("family")["cov"]
    by_family = pd.DataFrame(
        {"series": grouped.size(), "min": grouped.min(), "median": grouped.median(), "max": grouped.max()}
    )
    return dict(
        by_family=by_family,
        share_below_hardware=float((performance["cov"] < PUBLISHED["hardware_cov"]).mean()),
        pt4cloud=survey[survey.family == "pt4cloud"].set_index("dataset")["cov"],
        performance=performance,
    )


@dataclass(frozen=True, eq=False)
class NormalityTests(Result):
    """Figure 3 on public data: Shapiro-Wilk across hosts and within one host.

    Attributes
    ----------
    across : DataFrame
        :func:`perfstudy.diagnostics.variability.normality` per CWB metric and instance type (first iteration
        on each host) and for the Azure short-lived fleet (``family`` says which).
    within : DataFrame
        The same per window of consecutive runs on one host.
    across_constant, within_constant : int
        Groups and windows whose values are all equal (no statistic), counted, not hidden.
    """

    across: pd.DataFrame
    within: pd.DataFrame
    across_constant: int
    within_constant: int

    def to_frame(self) -> pd.DataFrame:
        """Every test, across hosts and within windows, with a ``scope`` column saying which."""
        return pd.concat([self.across.assign(scope="across"), self.within.assign(scope="within")], ignore_index=True)

    def shares(self) -> dict:
        """Tests, shares rejected (across) and normal (within), and constant groups."""
        return dict(
            across_tests=len(self.across),
            across_reject_share=float(self.across.reject.mean()),
            across_constant_groups=self.across_constant,
            within_windows=len(self.within),
            within_normal_share=float(np.mean(~self.within.reject)),
            within_normal_share_by_family=self.within.groupby("family")
            .reject.apply(lambda r: float(np.mean(~r)))
            .to_dict(),
            within_constant_windows=self.within_constant,
        )


def _split_constant(frame: pd.DataFrame, keys: list[str]) -> tuple[pd.DataFrame, int]:
    values = frame.groupby(keys).value
    flat = (values.transform("max") - values.transform("min")) == 0
    return frame[~flat], frame[flat].groupby(keys).ngroups


def figure3_normality(
    *, window: int = 30, min_hosts: int = 20, alpha: float = 0.05, rng: Seed = None
) -> NormalityTests:
    """Figure 3 on public data: is performance normal across hosts, and within one host?

    *Across*: each CWB metric on each instance type with at least ``min_hosts`` hosts (the first
    iteration on each, so points are independent draws of a host), and the Azure short-lived fleet
    (a fresh VM per run). *Within*: disjoint windows of ``window`` consecutive runs of every series
    in time order (:data:`perfstudy.studies.public_data.SERIES`), the short-lived fleet excepted.

    Parameters
    ----------
    window : int
        Runs per within-host window (section 4.3 tested servers with at least 20).
    min_hosts : int
        Fewest hosts for an across-host CWB group.
    alpha : float
        Size of the tests.
    rng : None, int, SeedSequence or Generator
        Seeds Shapiro-Wilk's subsample of groups beyond 5,000 points.
    """
    check_int("window", window)
    check_int("min_hosts", min_hosts)
    check_fraction("alpha", alpha)
    rng = np.random.default_rng(rng)
    cwb = datasets.load("cwb-aws-microbench")
    first = cwb[(cwb.batch == 1) & ~cwb.benchmark.str.contains("failure")]
    first = first[first.groupby(["benchmark", "config"]).host.transform("nunique") >= min_hosts]
    first, across_constant = _split_constant(first, ["benchmark", "config"])
    across = pd.concat(
        [
            normality(first, by=["benchmark", "config"], alpha=alpha).assign(family="cwb"),
            normality(datasets.load("azure-redis-get-short"), by="benchmark", alpha=alpha, rng=rng).assign(
                family="azure-vm-noise"
            ),
        ],
        ignore_index=True,
    )
    windows = []
    for name, entry in datasets.registry().items():
        if entry.family not in SERIES or SERIES[entry.family][1] is None or name == "azure-redis-get-short":
            continue
        keys, order = SERIES[entry.family]
        frame = datasets.load(name).sort_values(keys + [order], kind="stable")
        frame["series"] = frame.groupby(keys, sort=False).ngroup()
        frame["window"] = frame.groupby("series").cumcount() // window
        full = frame.groupby(["series", "window"]).value.transform("size") == window
        windows.append(frame.loc[full, ["series", "window", "value"]].assign(dataset=name, family=entry.family))
    windows, within_constant = _split_constant(pd.concat(windows, ignore_index=True), ["dataset", "series", "window"])
    within = normality(windows, by=["family", "dataset", "series", "window"], alpha=alpha)
    return NormalityTests(across, within, across_constant, within_constant)


def figure4_stationarity(survey: pd.DataFrame) -> dict:
    """Figure 4 on public data: ADF over every series in time order, and SAP's labels as a check.

    Parameters
    ----------
    survey : DataFrame
        :func:`perfstudy.studies.public_data.survey_datasets`.

    Returns
    -------
    dict
        ``series`` (the survey rows with an ADF test), ``stationary_share``,
        ``stationary_share_by_family``, ``sap`` (SAP series per label and how many look
        non-stationary).
    """
    check_frame("survey", survey, minimum=0)
    series = survey[survey.adf_p_value.notna()].copy()
    stationary = series.adf_reject.astype(bool)
    sap = series[series.family == "sap-hana"].merge(datasets.load("sap-hana-details"), on="benchmark")
    labels = pd.concat(
        [
            sap.groupby("label").size().rename("series"),
            sap.groupby("label").adf_reject.apply(lambda s: int((~s.astype(bool)).sum())).rename("non-stationary"),
        ],
        axis=1,
    )
    return dict(
        series=series,
        stationary_share=float(stationary.mean()),
        stationary_share_by_family=stationary.groupby(series.family).mean().to_dict(),
        sap=labels,
    )


def whole_series_reject_share(survey: pd.DataFrame) -> float:
    """The share of whole long series (the Azure long-lived VMs and PT4Cloud's) whose normality the survey rejects:
    with thousands of points Shapiro-Wilk rejects departures too small to matter (section 4.3's caveat).

    Parameters
    ----------
    survey : DataFrame
        :func:`perfstudy.studies.public_data.survey_datasets`.
    """
    survey = check_frame("survey", survey, ["family", "shapiro_reject"])
    long_series = survey[survey.family.isin(["azure-vm-noise", "pt4cloud"])]
    if not len(long_series):
        raise ValueError("survey: no Azure or PT4Cloud series, so no whole long series to test")
    return float(np.mean(long_series.shapiro_reject.astype(bool)))


def warmup_table(series: pd.DataFrame) -> pd.DataFrame:
    """Per family: series stationary from the first run, after a warm-up, or never within half.

    Parameters
    ----------
    series : DataFrame
        Survey rows with an ADF test (``figure4_stationarity(...)["series"]``).
    """
    check_frame("series", series, minimum=0)
    return series.groupby("family").warmup_index.agg(
        series="size",
        from_start=lambda w: int((w == 0).sum()),
        later=lambda w: int((w > 0).sum()),
        never=lambda w: int(w.isna().sum()),
    )


def order_table(series: pd.DataFrame) -> pd.DataFrame:
    """Section 7.4 per family: the share of series whose order matters, and the median lag-1 autocorrelation.

    Parameters
    ----------
    series : DataFrame
        Survey rows with an ADF test (``figure4_stationarity(...)["series"]``).
    """
    check_frame("series", series, minimum=0)
    return series.groupby("family").agg(
        series=("independence_p_value", "size"),
        order_matters=("independence_reject", lambda r: float(r.astype(bool).mean())),
        median_lag1=("independence_statistic", "median"),
    )


def median_ci_index_table(sizes=(7, 8, 10, 20, 50, 100, 1000), *, confidence: float = 0.95) -> pd.DataFrame:
    """Section 2: the 1-based order statistics that bound the median, by the formula and by CONFIRM's rounding.

    Parameters
    ----------
    sizes : sequence of int
        Sample sizes.
    confidence : float
        Coverage of the median's interval.
    """
    check_each("sizes", sizes, check_int)
    check_fraction("confidence", confidence)
    sizes = np.asarray(sizes)
    table = pd.DataFrame({"n": sizes})
    for method in ("order_statistics", "confirm"):
        table[f"{method}_low"], table[f"{method}_high"] = median_ci_indices(sizes, confidence, method)
    return table


def series_values(dataset: str, selector: str) -> np.ndarray:
    """The runs of one series of a registered dataset, in file order.

    Parameters
    ----------
    dataset : str
        A registered dataset.
    selector : str
        A PT4Cloud dataset's ``split`` (``"sampled"``, ``"ground_truth"``), or another dataset's ``benchmark``.
    """
    frame = datasets.load(dataset)
    column = "split" if "split" in frame else "benchmark"
    values = frame.loc[frame[column] == selector, "value"].to_numpy()
    if values.size == 0:
        choices = sorted(map(str, frame[column].unique()))[:10]
        raise ValueError(f"selector={selector!r}: {dataset} has no such {column}; it has e.g. {choices}")
    return values


def _values(dataset: str, selector: str) -> np.ndarray:
    frame = datasets.load(dataset)
    if "split" in frame:
        return frame.loc[frame.split == selector, "value"].to_numpy()
    return frame.loc[frame.benchmark == selector, "value"].to_numpy()


@dataclass(frozen=True)
class ConvergenceCurves(Result):
    """Figure 5: CONFIRM's curves (the median's interval against the number of runs) per series.

    Attributes
    ----------
    curves : dict of str to Repetitions
        By panel title.
    table : DataFrame
        ``dataset``, ``series``, ``runs``, ``cov``, ``estimate``, ``median``.
    """

    curves: dict
    table: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """One row per series (``table``)."""
        return self.table.copy()


def figure5_convergence(
    cases,
    *,
    error: float = 0.01,
    confidence: float = 0.95,
    trials: int = 200,
    start: int = 10,
    max_size: int | None = None,
    rng: Seed = None,
) -> ConvergenceCurves:
    """Figure 5: CONFIRM's curve for a few real series.

    Parameters
    ----------
    cases : sequence of (dataset, selector)
        A PT4Cloud dataset and its ``split``, or another dataset and its ``benchmark``.
    error, confidence, trials, start, max_size
        As in :func:`perfstudy.diagnostics.repetitions.repetitions_needed`.
    rng : None, int, SeedSequence or Generator
        One stream per case.

    Returns
    -------
    ConvergenceCurves
    """
    check_real("error", error, positive=True)
    check_fraction("confidence", confidence)
    check_int("trials", trials)
    check_int("start", start)
    if max_size is not None:
        check_int("max_size", max_size)
    curves, rows = {}, []
    for (dataset, selector), stream in zip(cases, np.random.default_rng(rng).spawn(len(cases))):
        x = _values(dataset, selector)
        result = repetitions_needed(
            x, error=error, confidence=confidence, trials=trials, start=start, max_size=max_size, rng=stream
        )
        curves[f"{dataset}\n{selector} ({x.size} runs)"] = result
        rows.append(
            dict(
                dataset=dataset,
                series=selector,
                runs=x.size,
                cov=coefficient_of_variation(x),
                estimate=result.estimate,
                median=result.median,
            )
        )
    return ConvergenceCurves(curves=curves, table=pd.DataFrame(rows))


@dataclass(frozen=True)
class RepetitionsAgainstCoV(Result):
    """Figure 6: CONFIRM's repetitions estimate against the CoV of every long series.

    Attributes
    ----------
    table : DataFrame
        ``family``, ``dataset``, ``series``, ``runs``, ``cov``, ``estimate`` (missing beyond ``max_size``).
    headline : dict
        ``series``, ``constant_left_out``, ``estimated``, ``median_estimate_cov_below_4pct``,
        ``spearman_cov_estimate``.
    """

    table: pd.DataFrame
    headline: dict

    def to_frame(self) -> pd.DataFrame:
        """One row per series (``table``)."""
        return self.table.copy()


def figure6_cov_vs_repetitions(
    *,
    min_runs: int = 100,
    error: float = 0.01,
    confidence: float = 0.95,
    trials: int = 200,
    start: int = 10,
    max_size: int | None = None,
    rng: Seed = None,
    progress: bool = False,
) -> RepetitionsAgainstCoV:
    """Figure 6 on public data: CoV against CONFIRM's estimate for every series of ``min_runs`` or more.

    Constant series (a CoV below 1e-9: CWB metrics that did not vary) need no repetitions to speak
    of; they are counted in the summary and left out of the figure.

    Parameters
    ----------
    min_runs : int
        Shortest series used.
    error, confidence, trials, start, max_size
        As in :func:`perfstudy.diagnostics.repetitions.repetitions_needed`.
    rng : None, int, SeedSequence or Generator
        One stream per series.
    progress : bool
        Show a progress bar.

    Returns
    -------
    RepetitionsAgainstCoV
    """
    check_int("min_runs", min_runs)
    check_real("error", error, positive=True)
    check_fraction("confidence", confidence)
    check_int("trials", trials)
    check_int("start", start)
    if max_size is not None:
        check_int("max_size", max_size)
    check_bool("progress", progress)
    from tqdm.auto import tqdm

    candidates = [s for s in iter_series() if s.values.size >= min_runs and np.median(s.values) != 0]
    constant = [s for s in candidates if np.std(s.values) <= 1e-9 * abs(np.mean(s.values))]
    varying = [s for s in candidates if np.std(s.values) > 1e-9 * abs(np.mean(s.values))]
    rows = []
    streams = np.random.default_rng(rng).spawn(len(varying))
    for item, stream in zip(tqdm(varying, desc="series", disable=not progress), streams):
        result = repetitions_needed(
            item.values, error=error, confidence=confidence, trials=trials, start=start, max_size=max_size, rng=stream
        )
        rows.append(
            dict(
                family=item.family,
                dataset=item.dataset,
                series=item.label,
                runs=item.values.size,
                cov=coefficient_of_variation(item.values),
                estimate=result.estimate,
            )
        )
    table = pd.DataFrame(rows)
    table["estimate"] = table.estimate.astype("Float64")
    found = table.estimate.notna()
    below4 = table[found & (table["cov"] <= 0.04)]
    summary = dict(
        series=len(table),
        constant_left_out=len(constant),
        estimated=int(found.sum()),
        median_estimate_cov_below_4pct=float(below4.estimate.median()) if len(below4) else None,
        spearman_cov_estimate=float(table[found][["cov", "estimate"]].astype(float).corr("spearman").iloc[0, 1]),
    )
    return RepetitionsAgainstCoV(table=table, headline=summary)


def table4_degraded_server(
    names,
    *,
    runs_per_host: int = 300,
    shift: float = 0.10,
    error: float = 0.01,
    confidence: float = 0.95,
    trials: int = 200,
    rng: Seed = None,
) -> pd.DataFrame:
    """Table 4 on public data: CONFIRM's estimate without and with one degraded server.

    ``runs_per_host`` runs from each long-lived host of an Azure benchmark, then the same plus a
    *degraded server*, a copy of the first host's runs times ``1 + shift``.

    Parameters
    ----------
    names : sequence of str
        Registered Azure datasets with long-lived hosts.
    runs_per_host : int
        Runs drawn from each host.
    shift : float
        The degraded server's relative slowdown.
    error, confidence, trials
        As in :func:`perfstudy.diagnostics.repetitions.repetitions_needed`.
    rng : None, int, SeedSequence or Generator
        Draws the runs and CONFIRM's subsets.

    Returns
    -------
    DataFrame
        ``benchmark``, ``servers``, ``runs``, ``estimate``, ``runs_with_outlier``,
        ``estimate_with_outlier``, ``inflation``.
    """
    check_names("names", names)
    check_int("runs_per_host", runs_per_host)
    check_real("shift", shift, nonnegative=True)
    check_real("error", error, positive=True)
    check_fraction("confidence", confidence)
    check_int("trials", trials)
    rng = np.random.default_rng(rng)
    rows = []
    for name in names:
        frame = datasets.load(name)
        good = [
            rng.choice(g.value.to_numpy(), min(runs_per_host, len(g)), replace=False) for _, g in frame.groupby("host")
        ]
        base, both = np.concatenate(good), np.concatenate(good + [good[0] * (1 + shift)])
        streams = rng.spawn(2)
        without = repetitions_needed(base, error=error, confidence=confidence, trials=trials, rng=streams[0]).estimate
        with_it = repetitions_needed(both, error=error, confidence=confidence, trials=trials, rng=streams[1]).estimate
        rows.append(
            dict(
                benchmark=name.removeprefix("azure-"),
                servers=len(good),
                runs=base.size,
                estimate=without,
                runs_with_outlier=both.size,
                estimate_with_outlier=with_it,
            )
        )
    table = pd.DataFrame(rows)
    table["inflation"] = table.estimate_with_outlier / table.estimate
    return table


@dataclass(frozen=True, eq=False)
class DegradedCopyRanking(Result):
    """Figure 7 on the CWB fleet: a ranking, a degraded copy's rank, and the elimination curve.

    Attributes
    ----------
    ranking : DataFrame
        :func:`perfstudy.diagnostics.hosts.rank_hosts` of the fleet.
    with_copy : DataFrame
        The same with the degraded copy of the median-ranked host added.
    copy : str
        The copy's host label.
    rank_before, rank_after : int
        1-based rank of the original host, and of its degraded copy.
    elimination : Elimination
    """

    ranking: pd.DataFrame
    with_copy: pd.DataFrame
    copy: str
    rank_before: int
    rank_after: int
    elimination: object

    def to_frame(self) -> pd.DataFrame:
        """The ranking with the degraded copy among the servers (``with_copy``)."""
        return self.with_copy.copy()


def figure7_cwb(
    *,
    config: str = "m3.medium",
    metrics=(),
    shift: float = 0.10,
    permutations: int = 1000,
    max_remove: int = 15,
    rng: Seed = None,
    progress: bool = False,
) -> DegradedCopyRanking:
    """Figure 7 on public data: rank the hosts of one CWB instance type, plant a degraded copy, and eliminate.

    Parameters
    ----------
    config : str
        The instance type (m3.medium: 96 hosts, 3 iterations each).
    metrics : sequence of str
        CWB metrics, each one dimension of a sample (divided by its median).
    shift : float
        The copy is ``1 + shift`` times slower on durations, as much less on throughputs.
    permutations : int
        Per MMD test.
    max_remove : int
        Most hosts eliminated.
    rng : None, int, SeedSequence or Generator
        Streams for the ranking, the ranking with the copy, and the elimination.
    progress : bool
        Show a progress bar.
    """
    check_text("config", config)
    check_names("metrics", metrics, empty=True)
    check_real("shift", shift, nonnegative=True)
    check_int("permutations", permutations)
    check_int("max_remove", max_remove, minimum=0)
    check_bool("progress", progress)
    metrics = list(metrics)
    if not metrics:
        raise ValueError("metrics: name at least one CWB metric")
    cwb = datasets.load("cwb-aws-microbench")
    fleet = (
        cwb[(cwb.config == config) & cwb.benchmark.isin(metrics)]
        .pivot_table(index=["host", "batch"], columns="benchmark", values="value")
        .reset_index()
    )
    first, second, third = np.random.default_rng(rng).spawn(3)
    ranking = rank_hosts(fleet, metrics=metrics, permutations=permutations, rng=first, progress=progress)
    target = ranking.host.iloc[len(ranking) // 2]
    copy = fleet[fleet.host == target].copy()
    copy["host"] = f"degraded copy of {target}"
    for metric in metrics:
        copy[metric] = copy[metric] * ((1 + shift) if "duration" in metric else 1 / (1 + shift))
    with_copy = rank_hosts(
        pd.concat([fleet, copy], ignore_index=True), metrics=metrics, permutations=permutations, rng=second
    )
    elimination = eliminate_unrepresentative(
        fleet, metrics=metrics, permutations=permutations, max_remove=max_remove, rng=third
    )
    return DegradedCopyRanking(
        ranking,
        with_copy,
        copy.host.iloc[0],
        ranking.host.tolist().index(target) + 1,
        with_copy.host.tolist().index(copy.host.iloc[0]) + 1,
        elimination,
    )


def short_lived_ranking(name: str = "azure-redis-get-short") -> dict:
    """Try to rank an Azure short-lived fleet's VMs (section 6 on a fresh VM per run): the unbiased MMD needs two
    runs on a server, so :func:`~perfstudy.diagnostics.hosts.rank_hosts` refuses a fleet of single runs.

    Parameters
    ----------
    name : str
        A registered short-lived Azure dataset.

    Returns
    -------
    dict
        ``vms``, ``single_run`` (VMs that ran once) and ``refused`` (the library's refusal, or "" if it ranked).
    """
    frame = datasets.load(check_text("name", name))
    runs_per_vm: Any = frame.groupby("host").size()
    try:
        rank_hosts(frame, metrics="value")
        refused = ""
    except ValueError as refusal:
        refused = str(refusal)
    return dict(vms=int(runs_per_vm.size), single_run=int((runs_per_vm < 2).sum()), refused=refused)


def degraded_copy_ranking(names, *, shift: float = 0.10, permutations: int = 1000, rng: Seed = None) -> pd.DataFrame:
    """MMD on the Azure long-lived hosts plus a degraded copy of host 0: where does the copy rank?

    Parameters
    ----------
    names : sequence of str
        Registered Azure datasets with long-lived hosts.
    shift : float
        The copy's relative slowdown.
    permutations : int
        Per MMD test.
    rng : None, int, SeedSequence or Generator
        One stream per dataset.

    Returns
    -------
    DataFrame
        ``benchmark``, ``order`` (hosts, most dissimilar first; the copy is -1), ``copy_rank``,
        ``copy_statistic``, ``next_statistic``.
    """
    check_names("names", names)
    check_real("shift", shift, nonnegative=True)
    check_int("permutations", permutations)
    rows = []
    for name, stream in zip(names, np.random.default_rng(rng).spawn(len(names))):
        frame = datasets.load(name)[["host", "value"]]
        copy = frame[frame.host == 0].assign(host=-1, value=lambda f: f.value * (1 + shift))
        ranked = rank_hosts(
            pd.concat([frame, copy], ignore_index=True), metrics="value", permutations=permutations, rng=stream
        )
        rows.append(
            dict(
                benchmark=name.removeprefix("azure-"),
                order=ranked.host.tolist(),
                copy_rank=ranked.host.tolist().index(-1) + 1,
                copy_statistic=float(ranked.statistic.iloc[0]),
                next_statistic=float(ranked.statistic.iloc[1]),
            )
        )
    return pd.DataFrame(rows)
