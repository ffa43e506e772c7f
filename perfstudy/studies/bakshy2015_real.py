"""Bakshy & Frachtenberg (WWW'15) beyond the paper: its methods on real published measurements
(A/A tests on real series, variance components of the CWB and Azure datasets, interval methods), and
what a pilot run tells you (recovery of Table 1, designs and budgets from a pilot). Notebooks 01, 02
and 07."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfstudy._lib.checks import (
    check_bool,
    check_each,
    check_fraction,
    check_instance,
    check_int,
    check_names,
    check_real,
)
from perfstudy._lib.result import Result
from perfstudy._lib.types import Executor, Seed
from perfstudy.design.estimate import SCHEDULE_TERMS, VarianceFit, fit_variance_components
from perfstudy.design.model import (
    PERFLAB_ENDPOINTS,
    sample_delta_hat,
    simulate,
)
from perfstudy.design.schedules import DESIGNS, pilot_schedule
from perfstudy.design.standard_errors import CostModel, optimal_allocation, standard_error
from perfstudy.design.type1_errors import segment_aa_study
from perfstudy.io import datasets
from perfstudy.studies.bakshy2015 import TABLE_3, TABLE_3_ROWS
from perfstudy.studies.public_data import AZURE_LONG

__all__ = [
    "RealAATests",
    "real_series",
    "real_aa",
    "BOOTSTRAP_FOR_DESIGN",
    "table1_recovery",
    "design_from_pilot",
    "VARIANCE_ROLES",
    "REAL_MODELS",
    "variance_split",
    "interval_methods",
    "PilotBudget",
    "pilot_budget",
]


def real_series(azure: tuple[str, ...] = (), *, pt4cloud: bool = True) -> list[tuple[str, np.ndarray]]:
    """Long real series for A/A tests: each Azure host of the ``azure`` datasets in time order, and
    each PT4Cloud configuration's ground-truth runs.

    Parameters
    ----------
    azure : sequence of str
        Registered Azure datasets with long-lived hosts.
    pt4cloud : bool
        Include the 33 PT4Cloud configurations.

    Returns
    -------
    list of (label, values)
    """
    check_names("azure", azure, empty=True)
    check_bool("pt4cloud", pt4cloud)
    series = []
    for name in azure:
        frame = datasets.load(name)
        for host, group in frame.groupby("host"):
            series.append((f"{name.removeprefix('azure-')} host{host}", group.value.to_numpy()))
    if pt4cloud:
        for name in datasets.list_datasets().query("family == 'pt4cloud'").name:
            frame = datasets.load(name)
            series.append(
                (name.removeprefix("pt4cloud-"), frame.loc[frame.split == "ground_truth", "value"].to_numpy())
            )
    return series


@dataclass(frozen=True)
class RealAATests(Result):
    """A/A tests cut from long real series (Figure 8 in spirit), per series and per bootstrap.

    Attributes
    ----------
    per_series : DataFrame
        :func:`perfstudy.design.type1_errors.segment_aa_study` rows with ``series``.
    by_bootstrap : DataFrame
        Per bootstrap: median, min and max Type I error, the median t-interval rate, the median SE ratio.
    """

    per_series: pd.DataFrame
    by_bootstrap: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """One row per bootstrap (``by_bootstrap``)."""
        return self.by_bootstrap.copy()


def real_aa(
    series,
    *,
    segments: int = 8,
    segment_length: int = 30,
    experiments: int = 2_000,
    replicates: int = 500,
    rng: Seed = None,
    progress: bool = False,
) -> RealAATests:
    """Figure 8 in spirit: A/A tests cut from each long real series, iid against segment bootstrap.

    Series shorter than ``2 * segments * segment_length`` runs are left out (see the first
    result's ``series`` column for those used).

    Parameters
    ----------
    series : list of (label, values)
        E.g. :func:`real_series`.
    segments, segment_length, experiments, replicates
        As in :func:`perfstudy.design.type1_errors.segment_aa_study`.
    rng : None, int, SeedSequence or Generator
        One stream per usable series.
    progress : bool
        A progress bar over the series.

    Returns
    -------
    RealAATests
    """
    check_instance("series", series, (list, tuple))
    check_int("segments", segments)
    check_int("segment_length", segment_length)
    check_int("experiments", experiments)
    check_int("replicates", replicates)
    check_bool("progress", progress)
    usable = [(label, values) for label, values in series if len(values) >= 2 * segments * segment_length]
    if not usable:
        raise ValueError(f"series: none holds {2 * segments * segment_length} runs")
    from tqdm.auto import tqdm

    streams = np.random.default_rng(rng).spawn(len(usable))
    frames = [
        segment_aa_study(
            values,
            segments=segments,
            segment_length=segment_length,
            experiments=experiments,
            replicates=replicates,
            rng=stream,
        ).assign(series=label)
        for (label, values), stream in zip(tqdm(usable, desc="series", disable=not progress), streams)
    ]
    per_series = pd.concat(frames, ignore_index=True)
    summary = (
        per_series.groupby("bootstrap")
        .agg(
            median_type1=("type1_error", "median"),
            min_type1=("type1_error", "min"),
            max_type1=("type1_error", "max"),
            median_t_type1=("type1_error_t", "median"),
            median_se_ratio=("se_ratio", "median"),
        )
        .reset_index()
    )
    return RealAATests(per_series=per_series, by_bootstrap=summary)


#: The bootstrap to analyse each design with: the row of Table 3 whose Type I error is nearest the
#: nominal 5% (unbalanced/host 0.036, request_balanced/host_block 0.057, host_balanced/host 0.050,
#: fully_balanced/host 0.048).
BOOTSTRAP_FOR_DESIGN = {
    design: min((row for row in TABLE_3_ROWS if row[0] == design), key=lambda row: abs(TABLE_3[row][0] - 0.05))[1]
    for design in DESIGNS
}


def table1_recovery(
    *,
    requests: int = 200,
    hosts: int = 16,
    batches: int = 4,
    replicates: int = 200,
    confidence: float = 0.95,
    rng: Seed = None,
    executor: Executor = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Table 1 recovered: a simulated pilot per endpoint, fitted by REML, with bootstrap intervals.

    Section 3.2.2 fits Eq. 3 to pilot data to get Table 1; this runs that loop on pilots drawn from
    Table 1 itself (:func:`perfstudy.design.schedules.pilot_schedule`: each request in each batch and
    version on a random host), so the truth is known.

    Parameters
    ----------
    requests, hosts, batches : int
        The pilot's size (``2 * requests * batches`` observations).
    replicates : int
        Parametric bootstrap refits per endpoint.
    confidence : float
        Coverage of the intervals.
    rng : None, int, SeedSequence or Generator
        Draws the pilots and the bootstrap.
    executor : concurrent.futures.Executor, optional
        Runs the bootstrap refits.
    progress : bool
        Progress bars over the refits.

    Returns
    -------
    DataFrame
        One row per endpoint and sigma: ``endpoint``, ``parameter`` (the names of
        :class:`~perfstudy.design.model.VarianceComponents`), ``truth``, ``estimate``, ``low``, ``high``,
        ``covered``; plus ``singular`` and ``converged`` of the endpoint's fit.
    """
    check_int("requests", requests)
    check_int("hosts", hosts)
    check_int("batches", batches)
    check_int("replicates", replicates)
    check_fraction("confidence", confidence)
    check_bool("progress", progress)
    streams = np.random.default_rng(rng).spawn(2 * len(PERFLAB_ENDPOINTS))
    names = dict(zip([*SCHEDULE_TERMS, "residual"], ["request", "host", "request_batch", "host_batch", "noise"]))
    rows = []
    for i, (endpoint, truth) in enumerate(PERFLAB_ENDPOINTS.items()):
        sched = pilot_schedule(requests, hosts, batches=batches, rng=streams[2 * i])
        pilot = simulate(sched, truth, rng=streams[2 * i]).to_frame(0)
        fit = fit_variance_components(pilot, random=SCHEDULE_TERMS)
        interval = fit.confidence_interval(
            confidence, replicates=replicates, rng=streams[2 * i + 1], executor=executor, progress=progress
        )
        for term, name in names.items():
            true = truth.sigmas[name]
            low, high = interval.low[term], interval.high[term]
            rows.append(
                dict(
                    endpoint=endpoint,
                    parameter=name,
                    truth=true,
                    estimate=fit.sd[term],
                    low=low,
                    high=high,
                    covered=low <= true <= high,
                    singular=fit.singular,
                    converged=fit.converged,
                )
            )
    return pd.DataFrame(rows)


def design_from_pilot(
    fit: VarianceFit,
    costs: CostModel,
    *,
    target_se: float,
    hosts=(4, 8, 16, 32),
    experiments: int = 2000,
    rng: Seed = None,
) -> pd.DataFrame:
    """From a pilot's fit to a design: the cheapest allocation per design, and its SE checked.

    The fitted sigmas go to :func:`perfstudy.design.standard_errors.optimal_allocation` (section 3.1.2 with the
    SEs of section 4.2); each design's recommendation is then simulated from the same sigmas and
    the spread of ``delta_hat`` over ``experiments`` is the achieved SE, against the promised one.

    Parameters
    ----------
    fit : VarianceFit
        A fit with the terms of Eq. 3 (:meth:`VarianceFit.components`).
    costs : CostModel
        Prices of a setup, a host, a request, a repetition.
    target_se : float
        The standard error of ``delta_hat`` to reach (on the fit's scale).
    hosts : sequence of int
        Host counts to consider.
    experiments : int
        Simulated experiments per design for the achieved SE.
    rng : None, int, SeedSequence or Generator
        Draws the simulated experiments.

    Returns
    -------
    DataFrame
        One row per design: ``design``, ``feasible``, ``requests``, ``repetitions``, ``hosts``,
        ``cost``, ``promised_se``, ``achieved_se``, ``achieved_se_error`` (its Monte Carlo
        standard error, ``achieved / sqrt(2 (experiments - 1))``), ``bootstrap`` (the clustering to
        analyse it with, :data:`BOOTSTRAP_FOR_DESIGN`) and ``best``.
    """
    check_instance("fit", fit, VarianceFit)
    check_instance("costs", costs, CostModel)
    check_real("target_se", target_se, positive=True)
    check_each("hosts", hosts, check_int)
    check_int("experiments", experiments)
    components = fit.components()
    allocation = optimal_allocation(components, costs, target_se=target_se, hosts=list(hosts))
    streams = np.random.default_rng(rng).spawn(len(allocation.allocations))
    rows = []
    for a, stream in zip(allocation.allocations, streams):
        achieved = math.nan
        if a.feasible:
            deltas = sample_delta_hat(
                a.design,
                components,
                requests=a.requests,
                hosts=a.hosts,
                repetitions=a.repetitions,
                experiments=experiments,
                rng=stream,
            )
            achieved = float(deltas.std(ddof=1))
        rows.append(
            dict(
                design=a.design,
                feasible=a.feasible,
                requests=a.requests,
                repetitions=a.repetitions,
                hosts=a.hosts,
                cost=a.cost,
                promised_se=a.standard_error,
                achieved_se=achieved,
                achieved_se_error=achieved / math.sqrt(2 * (experiments - 1)),
                bootstrap=BOOTSTRAP_FOR_DESIGN[a.design],
                best=a.design == allocation.best,
            )
        )
    return pd.DataFrame(rows)


#: The parts a real benchmark's variance splits into, in plotting order.
VARIANCE_ROLES = ("region", "host", "batch", "host_batch", "noise")


#: Eq. 3 on the real datasets: per family, the random terms, the fixed effects and each term's role.
#: CWB: a VM (host) nested in its region, the iteration (1-3) as a batch crossed with the VMs, and the
#: instance type as a fixed effect; one measurement per VM and iteration, so the residual holds the
#: host x batch interaction too. Azure: a host, the calendar day (UTC) as a batch shared by the hosts,
#: their interaction, and the runs within a host-day as noise.
REAL_MODELS = {
    "cwb": (
        ("region", "region:host", "batch"),
        ("config",),
        {"region": "region", "region:host": "host", "batch": "batch", "residual": "noise"},
    ),
    "azure-vm-noise": (
        ("host", "day", "host:day"),
        (),
        {"host": "host", "day": "batch", "host:day": "host_batch", "residual": "noise"},
    ),
}


def _real_benchmarks(cwb, azure):
    """(family, dataset, benchmark, rows) for every real benchmark that :func:`variance_split` fits."""
    if cwb is None or len(cwb):
        frame = datasets.load("cwb-aws-microbench")
        # failure counts and rates are mostly zero: not a performance measurement on a log scale
        frame = frame[~frame["benchmark"].str.contains("failure")]
        if cwb is not None:
            unknown = sorted(set(cwb) - set(frame["benchmark"]))
            if unknown:
                raise ValueError(f"cwb: {unknown} are not CWB metrics; see datasets.load('cwb-aws-microbench')")
            frame = frame[frame["benchmark"].isin(cwb)]
        for benchmark, rows in frame.groupby("benchmark", sort=True):
            yield "cwb", "cwb-aws-microbench", benchmark, rows
    for name in azure:
        frame = datasets.load(name)
        frame = frame.assign(day=frame["timestamp"].dt.strftime("%Y-%m-%d"))
        yield "azure-vm-noise", name, name.removeprefix("azure-"), frame


def interval_methods(
    benchmark: str = "fio/8k-rand-read-iops",
    *,
    confidence: float = 0.95,
    replicates: int = 200,
    rng: Seed = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Profile-likelihood against parametric-bootstrap intervals for one CWB metric's sigmas.

    The fit is :func:`variance_split`'s (:data:`REAL_MODELS` ``"cwb"``: region, VM within region and
    iteration random, instance type fixed, log scale). The profile is lme4's (of the ML deviance,
    see :meth:`perfstudy.design.estimate.VarianceFit.confidence_interval`); the bootstrap refits
    ``replicates`` data sets drawn from the REML fit. With 2 regions and 3 iterations the two
    disagree most where the levels are fewest.

    Parameters
    ----------
    benchmark : str
        A CWB metric (``cwb-aws-microbench``).
    confidence : float
        Coverage of both intervals.
    replicates : int
        Bootstrap refits.
    rng : None, int, SeedSequence or Generator
        The bootstrap's randomness.
    progress : bool
        A progress bar over the bootstrap's blocks of refits.

    Returns
    -------
    DataFrame
        One row per term and the residual: ``term``, ``role``, ``levels``, ``estimate``,
        ``profile_low``, ``profile_high``, ``bootstrap_low``, ``bootstrap_high``; the seconds each
        method took are in ``attrs["seconds"]`` (``{"profile": ..., "bootstrap": ...}``).
    """
    check_fraction("confidence", confidence)
    check_int("replicates", replicates)
    check_bool("progress", progress)
    import time

    if not isinstance(benchmark, str):
        raise TypeError(f"benchmark={benchmark!r}: expected the name of a CWB metric")
    frame = datasets.load("cwb-aws-microbench")
    if benchmark not in set(frame["benchmark"]):
        raise ValueError(f"benchmark={benchmark!r} is not a CWB metric; see datasets.load('cwb-aws-microbench')")
    rows = frame[(frame["benchmark"] == benchmark) & (frame["value"] > 0)]
    random, fixed, roles = REAL_MODELS["cwb"]
    fit = fit_variance_components(rows, random=random, fixed=fixed, transform="log")
    start = time.perf_counter()
    profile = fit.confidence_interval(confidence, method="profile")
    profile_s = time.perf_counter() - start
    start = time.perf_counter()
    bootstrap = fit.confidence_interval(confidence, replicates=replicates, rng=rng, progress=progress)
    bootstrap_s = time.perf_counter() - start
    terms = list(fit.sd)
    table = pd.DataFrame(
        {
            "term": terms,
            "role": [roles[t] for t in terms],
            "levels": [*fit.levels.values(), fit.n],
            "estimate": [fit.sd[t] for t in terms],
            "profile_low": [profile.low[t] for t in terms],
            "profile_high": [profile.high[t] for t in terms],
            "bootstrap_low": [bootstrap.low[t] for t in terms],
            "bootstrap_high": [bootstrap.high[t] for t in terms],
        }
    )
    table.attrs["seconds"] = {"profile": profile_s, "bootstrap": bootstrap_s}
    return table


def variance_split(*, cwb=None, azure=AZURE_LONG, progress: bool = False) -> pd.DataFrame:
    """How real benchmarks' variance splits between regions, hosts, batches and noise (REML fits).

    Section 3.2.2 fits Eq. 3 to Facebook's pilots; this fits its analogue (:data:`REAL_MODELS`) to
    every benchmark of the public CWB suite and of the long-lived Azure hosts, on the log scale, so
    the sigmas are relative spreads comparable across units. CWB's instance type is a fixed effect:
    its shares are of the variance within an instance type.

    Parameters
    ----------
    cwb : sequence of str, optional
        CWB metrics to fit (``cwb-aws-microbench``); None fits all 50 (its failure counts and rates
        are left out), an empty sequence none.
    azure : sequence of str
        Azure datasets to fit, one benchmark each; default :data:`AZURE_LONG`.
    progress : bool
        A progress bar over the benchmarks.

    Returns
    -------
    DataFrame
        One row per benchmark: ``family``, ``dataset``, ``benchmark``, ``unit``, ``n`` (rows
        fitted), ``dropped`` (rows with a value <= 0, which have no logarithm), ``hosts``,
        ``batches``, ``singular``, ``converged``, ``note`` (why a benchmark was not fitted: one
        whose values the instance type alone decides has no variance to split; its sigmas are NaN);
        ``sd_<role>`` and ``share_<role>`` (its share of
        the summed variances) for each role in :data:`VARIANCE_ROLES` (NaN where the family has no
        such term); and ``total_sd``.
    """
    if cwb is not None:
        check_names("cwb", cwb, empty=True)
    check_names("azure", azure, empty=True)
    check_bool("progress", progress)
    from tqdm.auto import tqdm

    rows = []
    for family, dataset, benchmark, frame in tqdm(list(_real_benchmarks(cwb, azure)), disable=not progress):
        random, fixed, roles = REAL_MODELS[family]
        role_column = {role: term.split(":")[-1] for term, role in roles.items()}  # "region:host" -> host
        positive = frame["value"] > 0
        kept = frame[positive]
        row = dict(
            family=family,
            dataset=dataset,
            benchmark=benchmark,
            unit=frame["unit"].iloc[0] if "unit" in frame else datasets.registry()[dataset].unit,
            n=len(kept),
            dropped=int((~positive).sum()),
            hosts=kept[role_column["host"]].nunique(),
            batches=kept[role_column["batch"]].nunique(),
            singular=False,
            converged=False,
            note="",
        )
        variances = {}
        constant = kept.groupby(list(fixed))["value"].nunique().max() if fixed else kept["value"].nunique()
        if constant == 1:  # a quantised metric that the instance type alone decides
            row["note"] = f"constant within every {' x '.join(fixed) or 'row'}: nothing to split"
        else:
            fit = fit_variance_components(kept, random=random, fixed=fixed, transform="log")
            variances = {roles[term]: sd**2 for term, sd in fit.sd.items()}
            row.update(singular=fit.singular, converged=fit.converged)
        total = sum(variances.values()) or math.nan
        for role in VARIANCE_ROLES:
            row[f"sd_{role}"] = math.sqrt(variances[role]) if role in variances else math.nan
        for role in VARIANCE_ROLES:
            row[f"share_{role}"] = variances[role] / total if role in variances else math.nan
        row["total_sd"] = math.sqrt(total)
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class PilotBudget(Result):
    """What a pilot of each size recommends, against the design the true sigmas recommend.

    Attributes
    ----------
    pilots : DataFrame
        One row per simulated pilot: ``pilot_hosts``, ``pilot_batches``, ``pilot``, ``singular``,
        the recommended ``design``, ``requests``, ``repetitions``, ``hosts``, ``cost``,
        ``promised_se`` (under the fitted sigmas) and ``true_se`` (the same allocation under the
        true sigmas, :func:`~perfstudy.design.standard_errors.standard_error`).
    by_pilot : DataFrame
        One row per pilot size: ``pilot_hosts``, ``pilot_batches``, ``observations``,
        ``oracle_design_share`` (pilots that recommend the oracle's design), ``cost_ratio``
        (median cost over the oracle's), ``se_ratio_median``, ``se_ratio_low`` and
        ``se_ratio_high`` (10th and 90th percentiles of ``true_se / target_se``) and
        ``within_10pct`` (share of pilots whose recommendation truly lands within 10% of the
        target).
    oracle : Allocation
        The cheapest allocation under the true sigmas.
    target_se : float
    """

    pilots: pd.DataFrame
    by_pilot: pd.DataFrame
    oracle: object
    target_se: float

    def to_frame(self) -> pd.DataFrame:
        """One row per pilot size (``by_pilot``)."""
        return self.by_pilot.copy()


def pilot_budget(
    costs: CostModel,
    *,
    endpoint: int = 1,
    target_se: float = 0.05,
    requests: int = 200,
    hosts=(4, 8, 16, 32),
    batches=(2, 3, 4),
    pilots: int = 20,
    design_hosts=(4, 8, 16, 32),
    rng: Seed = None,
    progress: bool = False,
) -> PilotBudget:
    """How many hosts and batches a pilot needs before its recommended design stops changing.

    For each pilot size, ``pilots`` pilots are simulated from Table 1's ``endpoint``
    (:func:`~perfstudy.design.schedules.pilot_schedule`), fitted by REML, and turned into the cheapest
    design that promises ``target_se`` (:func:`~perfstudy.design.standard_errors.optimal_allocation`, section
    3.1.2). Each recommendation is then priced and judged under the true sigmas: the SE it really
    delivers against the target, and its cost against the oracle's (the recommendation the true
    sigmas give). A pilot is big enough when the recommendations stop scattering around the
    oracle's.

    Parameters
    ----------
    costs : CostModel
        Prices of a setup, a host, a request, a repetition.
    endpoint : int
        The truth: a key of :data:`perfstudy.PERFLAB_ENDPOINTS`.
    target_se : float
        The standard error of ``delta_hat`` the design must reach (log scale).
    requests : int
        Requests per pilot (each runs in every batch under both versions).
    hosts, batches : sequence of int
        The pilot sizes to try (every combination).
    pilots : int
        Simulated pilots per size.
    design_hosts : sequence of int
        Host counts the recommended design may use.
    rng : None, int, SeedSequence or Generator
        Draws the pilots.
    progress : bool
        A progress bar over the pilot sizes.

    Returns
    -------
    PilotBudget
    """
    check_instance("costs", costs, CostModel)
    check_int("endpoint", endpoint)
    check_real("target_se", target_se, positive=True)
    check_int("requests", requests)
    check_each("hosts", hosts, check_int)
    check_each("batches", batches, check_int)
    check_int("pilots", pilots)
    check_each("design_hosts", design_hosts, check_int)
    check_bool("progress", progress)
    from tqdm.auto import tqdm

    truth = PERFLAB_ENDPOINTS[endpoint]
    design_hosts = list(design_hosts)
    oracle = optimal_allocation(truth, costs, target_se=target_se, hosts=design_hosts)
    oracle = oracle[oracle.best]
    sizes = [(h, b) for h in hosts for b in batches]
    streams = np.random.default_rng(rng).spawn(len(sizes))
    rows = []
    for (pilot_hosts, pilot_batches), stream in zip(tqdm(sizes, disable=not progress), streams):
        sched = pilot_schedule(requests, pilot_hosts, batches=pilot_batches, rng=stream)
        simulated = simulate(sched, truth, experiments=pilots, rng=stream)
        for i in range(pilots):
            fit = fit_variance_components(simulated.to_frame(i), random=SCHEDULE_TERMS)
            allocation = optimal_allocation(fit.components(), costs, target_se=target_se, hosts=design_hosts)
            best = allocation[allocation.best]
            true_se = standard_error(
                best.design, truth, requests=best.requests, hosts=best.hosts, repetitions=best.repetitions
            )
            rows.append(
                dict(
                    pilot_hosts=pilot_hosts,
                    pilot_batches=pilot_batches,
                    pilot=i,
                    observations=fit.n,
                    singular=fit.singular,
                    design=best.design,
                    requests=best.requests,
                    repetitions=best.repetitions,
                    hosts=best.hosts,
                    cost=best.cost,
                    promised_se=best.standard_error,
                    true_se=float(true_se),
                )
            )
    per_pilot = pd.DataFrame(rows)
    ratio = per_pilot["true_se"] / target_se
    summary = (
        per_pilot.assign(
            oracle_design=per_pilot["design"] == oracle.design,
            cost_ratio=per_pilot["cost"] / oracle.cost,
            se_ratio=ratio,
            within=(ratio - 1.0).abs() <= 0.1,
        )
        .groupby(["pilot_hosts", "pilot_batches"])
        .agg(
            observations=("observations", "first"),
            singular_share=("singular", "mean"),
            oracle_design_share=("oracle_design", "mean"),
            cost_ratio=("cost_ratio", "median"),
            se_ratio_median=("se_ratio", "median"),
            se_ratio_low=("se_ratio", lambda r: r.quantile(0.1)),
            se_ratio_high=("se_ratio", lambda r: r.quantile(0.9)),
            within_10pct=("within", "mean"),
        )
        .reset_index()
    )
    return PilotBudget(pilots=per_pilot, by_pilot=summary, oracle=oracle, target_se=target_se)
