"""Bakshy & Frachtenberg, "Design and Analysis of Benchmarking Experiments for Distributed Internet
Services", WWW 2015: its published numbers, and one function per table or figure (notebooks 01, 02).

Table 1 (the five endpoints' sigmas) is a model preset and lives in :data:`perfstudy.PERFLAB_ENDPOINTS`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd
from scipy import stats

from perfstudy._lib.checks import (
    check_bool,
    check_choice,
    check_each,
    check_fraction,
    check_instance,
    check_int,
    check_names,
    check_numbers,
    check_real,
)
from perfstudy._lib.parallel import twin_streams
from perfstudy._lib.result import Result
from perfstudy._lib.types import Executor, Seed
from perfstudy.design.bootstrap import clustered_bootstrap
from perfstudy.design.model import (
    PERFLAB_ENDPOINTS,
    VarianceComponents,
    clustered_standard_error,
    sample_delta_hat,
    simulate,
)
from perfstudy.design.schedules import DESIGNS, schedule
from perfstudy.design.simulated_errors import SweepResult, standard_error_sweep
from perfstudy.design.standard_errors import CostModel, optimal_allocation, standard_error, variance_from_schedule
from perfstudy.design.type1_errors import (
    BOOTSTRAPS,
    aa_tests,
    bootstrap_clusters,
    type1_error_table,
    type1_error_tables,
)

__all__ = [
    "TABLE_3_ROWS",
    "TABLE_3",
    "TABLE_3_EXPERIMENTS",
    "FIGURE_7_TESTS",
    "TABLE_3_VARIANTS",
    "MANY_CLUSTERS",
    "paper_type1_range",
    "implied_true_se",
    "with_host_sd_scaled_to",
    "combined_mc_error",
    "table1",
    "figure2_repetition_ratio",
    "table3_standard_errors",
    "figure4",
    "DeltaHatDensities",
    "figure5",
    "allocations",
    "table3",
    "BootstrapAgainstTruth",
    "figure6",
    "RankedAATests",
    "figure7",
    "OriginCheck",
    "origin_check",
]

#: The 13 rows of Table 3, in the paper's order.
TABLE_3_ROWS: tuple[tuple[str, str], ...] = (
    ("unbalanced", "request"),
    ("unbalanced", "iid"),
    ("unbalanced", "host"),
    ("request_balanced", "request"),
    ("request_balanced", "iid"),
    ("request_balanced", "host"),
    ("request_balanced", "host_block"),
    ("host_balanced", "request"),
    ("host_balanced", "iid"),
    ("host_balanced", "host"),
    ("fully_balanced", "request"),
    ("fully_balanced", "host"),
    ("fully_balanced", "iid"),
)

#: Table 3 as printed, per row: (Type I error, mean bootstrap SE ".SE", analytic "SE").
TABLE_3: dict[tuple[str, str], tuple[float, float, float]] = dict(
    zip(
        TABLE_3_ROWS,
        [
            (0.214, 0.07, 0.10),
            (0.178, 0.07, 0.10),
            (0.036, 0.11, 0.10),
            (0.716, 0.01, 0.07),
            (0.108, 0.07, 0.07),
            (0.008, 0.11, 0.07),
            (0.057, 0.08, 0.07),
            (0.084, 0.07, 0.07),
            (0.068, 0.07, 0.07),
            (0.050, 0.08, 0.07),
            (0.468, 0.01, 0.03),
            (0.048, 0.03, 0.03),
            (0.000, 0.07, 0.03),
        ],
    )
)


def table1() -> pd.DataFrame:
    """Table 1: the five endpoints' sigmas and ``mu``, with each one's request ICC ``rho`` (section 3.1.1).

    Returns
    -------
    DataFrame
        Indexed by ``endpoint`` (1..5).
    """
    frames = [c.to_frame().assign(endpoint=e, rho=c.rho) for e, c in PERFLAB_ENDPOINTS.items()]
    return pd.concat(frames).set_index("endpoint")


def figure2_repetition_ratio(components: VarianceComponents, *, requests: int = 100, repetitions: int = 10) -> float:
    """Figure 2's lesson in one number: the SE of ``requests`` requests repeated ``repetitions``
    times, relative to one repetition (Eq. 1), at the request ICC of ``components``.

    Parameters
    ----------
    components : VarianceComponents
        Supplies ``rho`` (section 3.1.1).
    requests, repetitions : int
        ``R`` and ``T``.
    """
    check_instance("components", components, VarianceComponents)
    check_int("requests", requests)
    check_int("repetitions", repetitions)
    one = clustered_standard_error(1.0, rho=components.rho, requests=requests, repetitions=1)
    many = clustered_standard_error(1.0, rho=components.rho, requests=requests, repetitions=repetitions)
    return float(many / one)


def table3_standard_errors(components: VarianceComponents, *, requests: int = 512, hosts: int = 16) -> pd.DataFrame:
    """Table 3's "SE" column: the closed forms of section 4.2.1, Eq. 5 on an explicit schedule, and
    the paper's printed value.

    Parameters
    ----------
    components : VarianceComponents
        Endpoint 1 in the paper.
    requests, hosts : int
        512 requests per condition and 16 hosts in the paper.

    Returns
    -------
    DataFrame
        ``design``, ``closed_form``, ``eq5_from_schedule``, ``paper``.
    """
    check_instance("components", components, VarianceComponents)
    check_int("requests", requests)
    check_int("hosts", hosts)
    printed = {design: se for (design, _), (_, _, se) in TABLE_3.items()}
    rows = []
    for design in DESIGNS:
        closed = standard_error(design, components, requests=requests, hosts=hosts)
        eq5 = math.sqrt(variance_from_schedule(schedule(design, requests=requests, hosts=hosts), components))
        rows.append(dict(design=design, closed_form=closed, eq5_from_schedule=eq5, paper=printed[design]))
    return pd.DataFrame(rows)


def figure4(
    components: VarianceComponents,
    *,
    hosts=(4, 8, 16, 32),
    requests=(100, 150, 200, 300, 500, 700, 1000),
    experiments: int = 10_000,
    rng: Seed = None,
    executor: Executor = None,
    progress: bool = False,
) -> SweepResult:
    """Figure 4: the SE of every design against requests, simulated beside the closed forms.

    Parameters
    ----------
    components : VarianceComponents
        The model.
    hosts, requests : sequences of int
        The panels and the x axis.
    experiments : int
        Simulated experiments per point (the paper: 10,000).
    rng : None, int, SeedSequence or Generator
        One stream per point.
    executor : concurrent.futures.Executor, optional
        Where the points run.
    progress : bool
        Show a progress bar.
    """
    check_instance("components", components, VarianceComponents)
    check_each("hosts", hosts, check_int)
    check_each("requests", requests, check_int)
    check_int("experiments", experiments)
    check_bool("progress", progress)
    return standard_error_sweep(
        components,
        hosts=hosts,
        requests=requests,
        experiments=experiments,
        rng=rng,
        executor=executor,
        progress=progress,
    )


@dataclass(frozen=True, eq=False)
class DeltaHatDensities(Result):
    """Figure 5: ``delta_hat`` of simulated A/A tests per design.

    Attributes
    ----------
    samples : dict of str to ndarray
        ``delta_hat`` per design.
    analytic_se : dict of str to float
        Section 4.2.1's SE per design.
    table : DataFrame
        ``design``, ``empirical_sd``, ``analytic_se``, ``mean``.
    """

    samples: dict
    analytic_se: dict
    table: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """The table of the figure, one row per design (``table``)."""
        return self.table.copy()


def figure5(
    components: VarianceComponents, *, requests: int = 256, hosts: int = 16, experiments: int = 10_000, rng: Seed = None
) -> DeltaHatDensities:
    """Figure 5: the distribution of ``delta_hat`` per design, against the normal of its closed-form SE.

    Parameters
    ----------
    components : VarianceComponents
        The model.
    requests, hosts : int
        Sizes of every design.
    experiments : int
        Simulated A/A tests per design.
    rng : None, int, SeedSequence or Generator
        One stream per design.
    """
    check_instance("components", components, VarianceComponents)
    check_int("requests", requests)
    check_int("hosts", hosts)
    check_int("experiments", experiments)
    streams = np.random.default_rng(rng).spawn(len(DESIGNS))
    samples = {
        d: sample_delta_hat(d, components, requests=requests, hosts=hosts, experiments=experiments, rng=g)
        for d, g in zip(DESIGNS, streams)
    }
    analytic = {d: standard_error(d, components, requests=requests, hosts=hosts) for d in DESIGNS}
    table = pd.DataFrame(
        {
            "design": DESIGNS,
            "empirical_sd": [samples[d].std(ddof=1) for d in DESIGNS],
            "analytic_se": [analytic[d] for d in DESIGNS],
            "mean": [samples[d].mean() for d in DESIGNS],
        }
    )
    return DeltaHatDensities(samples, analytic, table)


def allocations(
    components: VarianceComponents, costs: CostModel, *, budgets=(), targets=(), hosts=(4, 8, 16, 32)
) -> pd.DataFrame:
    """What a budget buys (section 3.1.2, extended to the designs): each design's best allocation
    for each budget, and for each target SE.

    Parameters
    ----------
    components : VarianceComponents
        The model.
    costs : CostModel
        Prices of a batch, a host, a request and a repetition.
    budgets : sequence of float
        Budgets to spend (rows carry ``budget``).
    targets : sequence of float
        Target SEs to meet (rows carry ``target_se``).
    hosts : sequence of int
        Host counts allowed.

    Returns
    -------
    DataFrame
        :meth:`perfstudy.design.standard_errors.AllocationResult.to_frame` rows with ``budget`` or ``target_se``.
    """
    check_instance("components", components, VarianceComponents)
    check_instance("costs", costs, CostModel)
    check_each("budgets", budgets, check_real, empty=True, positive=True)
    check_each("targets", targets, check_real, empty=True, positive=True)
    check_each("hosts", hosts, check_int)
    frames = [
        optimal_allocation(components, costs, budget=b, hosts=list(hosts)).to_frame().assign(budget=b) for b in budgets
    ]
    frames += [
        optimal_allocation(components, costs, target_se=t, hosts=list(hosts)).to_frame().assign(target_se=t)
        for t in targets
    ]
    if not frames:
        raise ValueError("budgets, targets: give at least one budget or target")
    return pd.concat(frames, ignore_index=True)


#: The implementations Table 3 is computed with, by column suffix: what a replicate divides by
#: (:data:`perfstudy.design.bootstrap.DENOMINATORS`) and which quantile makes the interval. ``""`` is
#: section 5.1 as written (summed weights, normal quantile); ``"_t"`` takes Student-t quantiles on
#: ``C - 1`` degrees of freedom; ``"_counts"`` divides by the observation counts.
TABLE_3_VARIANTS: dict[str, tuple[str, str]] = {
    "": ("weights", "normal"),
    "_t": ("weights", "t"),
    "_counts": ("counts", "normal"),
    "_counts_t": ("counts", "t"),
}

#: Clusters per condition from which a bootstrap SE is treated as a constant in
#: :func:`paper_type1_range` (its relative spread over experiments is then about ``1/sqrt(2C)``).
MANY_CLUSTERS = 100


def paper_type1_range(mean_se, true_se, *, digits: int = 2, confidence: float = 0.95):
    """The Type I errors a row's own printed ``.SE`` and ``SE`` allow, given their rounding.

    A CLT interval ``delta_hat +- z s`` with a constant bootstrap SE ``s`` and a normal
    ``delta_hat`` of SD ``sigma`` excludes 0 with probability ``2 (1 - Phi(z s / sigma))``. Table 3
    prints ``s`` and ``sigma`` to ``digits`` decimals, so each lies within half a unit of the last
    digit; the extremes of the ratio give the range. It holds where ``s`` barely varies over
    experiments (many clusters, see :data:`MANY_CLUSTERS`) and ``delta_hat`` is normal (Eq. 3 is a
    Gaussian linear model).

    Parameters
    ----------
    mean_se, true_se : float or array
        The printed ``.SE`` and ``SE``.
    digits : int
        Decimals printed.
    confidence : float
        The intervals' coverage.

    Returns
    -------
    (low, high) : floats or arrays
    """
    digits = check_int("digits", digits, minimum=0)
    confidence = check_fraction("confidence", confidence)
    mean_se = np.asarray(check_numbers("mean_se", mean_se, "SEs"), dtype=float)
    true_se = np.asarray(check_numbers("true_se", true_se, "SEs"), dtype=float)
    for name, array in (("mean_se", mean_se), ("true_se", true_se)):
        if not (np.isfinite(array) & (array >= 0)).all():
            raise ValueError(f"{name}: expected finite, non-negative SEs")
    half = 0.5 * 10.0**-digits
    if (true_se - half <= 0).any():
        raise ValueError(f"true_se: expected SEs above the rounding half-width {half}")
    z = stats.norm.ppf(0.5 + confidence / 2)
    low_ratio = np.maximum(mean_se - half, 0.0) / (true_se + half)
    high_ratio = (mean_se + half) / (true_se - half)
    low, high = 2 * stats.norm.sf(z * high_ratio), 2 * stats.norm.sf(z * low_ratio)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def implied_true_se(rate, mean_se, *, confidence: float = 0.95):
    """The true SE of ``delta_hat`` under which a constant bootstrap SE gives a Type I error ``rate``.

    Inverts ``rate = 2 (1 - Phi(z s / sigma))`` (see :func:`paper_type1_range`):
    ``sigma = z s / Phi^-1(1 - rate / 2)``.

    Parameters
    ----------
    rate : float
        A Type I error, strictly between 0 and 1.
    mean_se : float
        The bootstrap SE ``s`` (positive).
    confidence : float
        The intervals' coverage.
    """
    rate = check_fraction("rate", rate)
    mean_se = check_real("mean_se", mean_se, positive=True, what="SE")
    confidence = check_fraction("confidence", confidence)
    if not 0 < rate < 1:
        raise ValueError(f"rate={rate!r}: expected a Type I error strictly between 0 and 1")
    z = stats.norm.ppf(0.5 + confidence / 2)
    return float(z * mean_se / stats.norm.isf(rate / 2))


def with_host_sd_scaled_to(
    design: str,
    target_se: float,
    components: VarianceComponents = PERFLAB_ENDPOINTS[1],
    *,
    requests: int = 512,
    hosts: int = 16,
) -> tuple[VarianceComponents, float]:
    """Endpoint ``components`` with ``sigma_beta`` and ``sigma_eta`` times ``k``, ``k`` chosen so that
    the closed-form SE of ``design`` (section 4.2.1) is ``target_se``.

    A one-parameter departure from the stated model, for testing whether one number explains several
    rows of Table 3 (notebook 02).

    Parameters
    ----------
    design : {"unbalanced", "request_balanced", "host_balanced", "fully_balanced"}
    target_se : float
        Above the SE the design keeps with no host variance at all.
    components : VarianceComponents
    requests, hosts : int

    Returns
    -------
    (VarianceComponents, float)
        The scaled components and ``k``.
    """
    import dataclasses

    from scipy.optimize import brentq

    check_choice("design", design, DESIGNS)
    target_se = check_real("target_se", target_se, positive=True, what="SE")
    check_instance("components", components, VarianceComponents)
    requests, hosts = check_int("requests", requests), check_int("hosts", hosts)

    def scaled(k):
        return dataclasses.replace(components, host=components.host * k, host_batch=components.host_batch * k)

    def gap(k):
        return standard_error(design, scaled(k), requests=requests, hosts=hosts) - target_se

    if gap(0.0) >= 0 or gap(100.0) <= 0:
        raise ValueError(
            f"target_se={target_se!r}: the {design} design's SE cannot reach it by scaling the host SDs "
            f"(from {gap(0.0) + target_se:.4g} with none to {gap(100.0) + target_se:.4g} at 100 times)"
        )
    k = float(cast(float, brentq(gap, 0.0, 100.0, xtol=1e-12)))
    return scaled(k), k


def table3(
    components: VarianceComponents = PERFLAB_ENDPOINTS[1],
    *,
    requests: int = 512,
    hosts: int = 16,
    experiments: int = 10_000,
    replicates: int = 1_000,
    rows=TABLE_3_ROWS,
    rng: Seed = None,
    executor: Executor = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Table 3: Type I error and mean bootstrap SE of its 13 rows under each implementation, beside the paper's.

    Both denominators (:data:`TABLE_3_VARIANTS`) analyse the same simulated experiments with the same
    replicate weights (common random numbers), so their difference is the implementation's alone; the
    simulation, the weights and the weighted sums are computed once for both
    (:func:`perfstudy.design.type1_errors.type1_error_tables`).

    Parameters
    ----------
    components : VarianceComponents
        Endpoint 1 in the paper.
    requests, hosts : int
        512 requests per condition, 16 hosts in the paper.
    experiments, replicates : int
        10,000 A/A tests in the paper; it does not state the replicates.
    rows : sequence of (design, bootstrap)
        Some of :data:`TABLE_3_ROWS` (all by default), in the order of the result; e.g. one design's
        rows under other components.
    rng : None, int, SeedSequence or Generator
        See :func:`perfstudy.design.type1_errors.type1_error_table`.
    executor : concurrent.futures.Executor, optional
        Where the tasks run.
    progress : bool
        Show a progress bar.

    Returns
    -------
    DataFrame
        :func:`perfstudy.design.type1_errors.type1_error_table`'s columns in the paper's row order (section 5.1 as
        written), then ``type1_error_counts``, ``type1_error_counts_t`` and
        ``mean_estimated_se_counts``; ``paper_type1_error``, ``paper_mean_se``, ``paper_se``, the
        gaps ``type1_diff_points`` (percentage points) and ``se_diff``; per variant ``v`` of
        :data:`TABLE_3_VARIANTS` the combined Monte Carlo error of ours and the paper's
        (:func:`combined_mc_error`) as ``type1_combined_mc<v>`` and the gap in those errors as
        ``type1_distance_mc<v>``; ``closest_variant`` (the suffix, ``"normal"`` for ``""``),
        ``closest_type1_error`` and ``closest_distance_mc``; the same under the reading that each of the
        paper's rates comes from :data:`FIGURE_7_TESTS` tests (``type1_combined_mc_500<v>``,
        ``type1_distance_mc_500<v>``, ``closest_variant_500``, ``closest_type1_error_500``,
        ``closest_distance_mc_500``; see :mod:`perfstudy.studies.table3_readings`); and ``paper_type1_low`` /
        ``paper_type1_high`` (:func:`paper_type1_range`, for rows with at least
        :data:`MANY_CLUSTERS` clusters, else NaN).
    """
    check_instance("components", components, VarianceComponents)
    check_int("requests", requests)
    check_int("hosts", hosts)
    check_int("experiments", experiments)
    check_int("replicates", replicates)
    check_bool("progress", progress)
    if not isinstance(rows, (list, tuple)) or not rows:
        raise TypeError(f"rows={rows!r}: expected a non-empty sequence of Table 3's (design, bootstrap) pairs")
    rows = [tuple(row) if isinstance(row, (list, tuple)) else row for row in rows]
    unknown = [row for row in rows if row not in TABLE_3_ROWS]  # ==, not hashing: any bad value is named
    if unknown:
        raise ValueError(f"rows: {unknown} are not rows of Table 3 (TABLE_3_ROWS), so the paper has no number for them")
    denominators = list(dict.fromkeys(denominator for denominator, _ in TABLE_3_VARIANTS.values()))
    # One simulation and one draw of replicate weights serve both denominators; only the division differs.
    tables = type1_error_tables(
        components,
        requests=requests,
        hosts=hosts,
        experiments=experiments,
        replicates=replicates,
        denominators=denominators,
        rows=rows,
        rng=twin_streams(1, rng=rng)[0],  # the stream each denominator's own table drew from before
        executor=executor,
        progress=progress,
    )
    table = tables["weights"]
    for suffix, (denominator, quantile) in TABLE_3_VARIANTS.items():
        table[f"type1_error{suffix}"] = tables[denominator]["type1_error" if quantile == "normal" else "type1_error_t"]
    table["mean_estimated_se_counts"] = tables["counts"].mean_estimated_se
    paper = np.array([TABLE_3[(d, b)] for d, b in zip(table.design, table.bootstrap)])
    table["paper_type1_error"], table["paper_mean_se"], table["paper_se"] = paper.T
    table["type1_diff_points"] = 100 * (table.type1_error - table.paper_type1_error)
    table["se_diff"] = table.mean_estimated_se - table.paper_mean_se
    suffixes = list(TABLE_3_VARIANTS)
    for reading, paper_tests in (("", TABLE_3_EXPERIMENTS), ("_500", FIGURE_7_TESTS)):
        for suffix in suffixes:
            error = combined_mc_error(table[f"type1_error{suffix}"], experiments, table.paper_type1_error, paper_tests)
            gap = (table[f"type1_error{suffix}"] - table.paper_type1_error).abs()
            table[f"type1_combined_mc{reading}{suffix}"] = error
            table[f"type1_distance_mc{reading}{suffix}"] = np.where(
                gap == 0, 0.0, gap / np.where(error > 0, error, np.nan)
            )
        distances = table[[f"type1_distance_mc{reading}{suffix}" for suffix in suffixes]].to_numpy()
        best = np.argmin(distances, axis=1)
        table[f"closest_variant{reading}"] = [suffixes[i].lstrip("_") or "normal" for i in best]
        table[f"closest_type1_error{reading}"] = [
            table[f"type1_error{suffixes[i]}"].iloc[row] for row, i in enumerate(best)
        ]
        table[f"closest_distance_mc{reading}"] = distances[np.arange(len(table)), best]
    low, high = paper_type1_range(table.paper_mean_se, table.paper_se)
    many = table.clusters.to_numpy() >= MANY_CLUSTERS
    table["paper_type1_low"] = np.where(many, low, np.nan)
    table["paper_type1_high"] = np.where(many, high, np.nan)
    return table


#: A/A tests behind each of Table 3's Type I errors (section 5.2: "10,000 simulated A/A tests for each configuration")
TABLE_3_EXPERIMENTS = 10_000
#: A/A tests per panel of Figure 7 ("500 simulated A/A tests"): the other reading of Table 3's sample size, which
#: its printed digits support (:func:`perfstudy.studies.table3_readings.digit_evidence`)
FIGURE_7_TESTS = 500


def combined_mc_error(ours, experiments: int, paper, paper_experiments: int = TABLE_3_EXPERIMENTS):
    """The Monte Carlo standard error of the difference of two simulated rates, ours and the paper's.

    Under the hypothesis that both estimate one rate, its pooled estimate
    ``p = (ours * n + paper * m) / (n + m)`` gives ``sqrt(p (1 - p) (1/n + 1/m))``: the two-sample
    binomial test's standard error, which stays positive where one rate is 0 (Table 3's 0.0%).

    Parameters
    ----------
    ours : float or array
        Our rates, each from ``experiments`` A/A tests.
    experiments : int
    paper : float or array
        The paper's rates, each from ``paper_experiments``.
    paper_experiments : int
        10,000 in Table 3.
    """
    experiments = check_int("experiments", experiments)
    paper_experiments = check_int("paper_experiments", paper_experiments)
    rates = []
    for name, value in (("ours", ours), ("paper", paper)):
        array = np.atleast_1d(check_numbers(name, value, "rates"))
        if not ((array >= 0) & (array <= 1)).all():  # NaN fails this too
            raise ValueError(f"{name}: expected rates between 0 and 1")
        rates.append(array if np.ndim(value) else array[0])
    ours, paper = rates
    pooled = (ours * experiments + paper * paper_experiments) / (experiments + paper_experiments)
    return np.sqrt(pooled * (1 - pooled) * (1 / experiments + 1 / paper_experiments))


@dataclass(frozen=True, eq=False)
class BootstrapAgainstTruth(Result):
    """Figure 6: the true spread of ``delta_hat`` against two bootstraps of one experiment.

    Attributes
    ----------
    delta_hat : ndarray
        Over all simulated experiments (the true distribution).
    estimate : float
        The first experiment's estimate.
    replicates : dict of str to ndarray
        Each bootstrap's replicates of the first experiment.
    headline : dict
        ``true_sd``, ``analytic_se`` and ``<bootstrap>_bootstrap_se``.
    """

    delta_hat: np.ndarray
    estimate: float
    replicates: dict
    headline: dict

    def to_frame(self) -> pd.DataFrame:
        """One row of the figure's numbers (``headline``)."""
        return pd.DataFrame([self.headline])


def figure6(
    components: VarianceComponents,
    *,
    design: str = "fully_balanced",
    requests: int = 512,
    hosts: int = 16,
    simulations: int = 10_000,
    replicates: int = 2_000,
    rng: Seed = None,
) -> BootstrapAgainstTruth:
    """Figure 6: one experiment's host and request bootstraps against the true distribution.

    Parameters
    ----------
    components : VarianceComponents
        The model.
    design : str
        The paper draws the fully balanced design.
    requests, hosts : int
        Sizes.
    simulations : int
        Experiments for the true distribution.
    replicates : int
        Bootstrap replicates of the first experiment.
    rng : None, int, SeedSequence or Generator
        The simulation's and the bootstraps' streams.
    """
    check_instance("components", components, VarianceComponents)
    check_choice("design", design, DESIGNS)
    check_int("requests", requests)
    check_int("hosts", hosts)
    check_int("simulations", simulations)
    check_int("replicates", replicates)
    rng = np.random.default_rng(rng)
    sim = simulate(design, components, requests=requests, hosts=hosts, experiments=simulations, rng=rng)
    boots = {
        name: clustered_bootstrap(
            sim.y[0], sim.schedule.version, bootstrap_clusters(name, sim.schedule), replicates=replicates, rng=stream
        )
        for name, stream in zip(("host", "request"), rng.spawn(2))
    }
    summary = {
        "true_sd": float(sim.delta_hat.std(ddof=1)),
        "analytic_se": standard_error(design, components, requests=requests, hosts=hosts),
        **{f"{name}_bootstrap_se": boot.standard_error for name, boot in boots.items()},
    }
    return BootstrapAgainstTruth(
        sim.delta_hat, float(boots["host"].estimate), {k: b.distribution for k, b in boots.items()}, summary
    )


@dataclass(frozen=True, eq=False)
class RankedAATests(Result):
    """Figure 7: ranked intervals of simulated A/A tests per design and bootstrap.

    Attributes
    ----------
    intervals : dict of (design, bootstrap) to (estimate, low, high)
        Arrays over the tests.
    rates : DataFrame
        ``design``, ``bootstrap``, ``false_positive_rate``.
    """

    intervals: dict
    rates: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """False-positive rates per design and bootstrap (``rates``)."""
        return self.rates.copy()


def figure7(
    components: VarianceComponents,
    *,
    requests: int = 512,
    hosts: int = 16,
    tests: int = 500,
    replicates: int = 1_000,
    confidence: float = 0.95,
    bootstraps=("iid", "request", "host"),
    rng: Seed = None,
) -> RankedAATests:
    """Figure 7: ``tests`` A/A tests per design, each bootstrap's CLT interval at ``confidence``.

    Parameters
    ----------
    components : VarianceComponents
        The model.
    requests, hosts : int
        Sizes.
    tests : int
        A/A tests per design (the paper: 500).
    replicates : int
        Bootstrap replicates per test.
    confidence : float
        Coverage of the intervals.
    bootstraps : sequence of str
        The rows of the figure.
    rng : None, int, SeedSequence or Generator
        One stream per design.
    """
    check_instance("components", components, VarianceComponents)
    check_int("requests", requests)
    check_int("hosts", hosts)
    check_int("tests", tests)
    check_int("replicates", replicates)
    check_fraction("confidence", confidence)
    check_names("bootstraps", bootstraps, BOOTSTRAPS)
    intervals, rates = {}, []
    for design, stream in zip(DESIGNS, np.random.default_rng(rng).spawn(len(DESIGNS))):
        result = aa_tests(
            design,
            components,
            bootstraps=bootstraps,
            requests=requests,
            hosts=hosts,
            experiments=tests,
            replicates=replicates,
            rng=stream,
        )
        for name, boot in result.bootstraps.items():
            low, high = boot.confidence_interval(confidence)
            intervals[(design, name)] = (boot.estimate, low, high)
            rates.append(
                dict(design=design, bootstrap=name, false_positive_rate=float(np.mean((low > 0) | (high < 0))))
            )
    return RankedAATests(intervals, pd.DataFrame(rates))


@dataclass(frozen=True, eq=False)
class OriginCheck(Result):
    """The Type I error of chosen rows by quantile and denominator, as simulated and with every value moved.

    A bootstrap that divides a replicate's weighted sum by the observation count (``counts``) carries the squared
    condition means in its SE, so its intervals depend on where ``y`` is measured from; dividing by the summed
    weights (section 5.1) does not.

    Attributes
    ----------
    table : DataFrame
        Per row: ``design / bootstrap``, then ``normal``, ``t`` (summed weights, normal and Student-t quantiles)
        and ``counts``, each also with ``", shifted"``: the same A/A tests with ``shift`` added to every value.
    se_moved : float
        The largest move of the summed-weights bootstrap's mean SE under the shift (0 up to rounding).
    shift : float
    experiments : int
        A/A tests per row.
    """

    table: pd.DataFrame
    se_moved: float
    shift: float
    experiments: int

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()


def origin_check(
    components: VarianceComponents,
    rows,
    *,
    shift: float = 1.0,
    requests: int = 512,
    hosts: int = 16,
    experiments: int = 2_000,
    replicates: int = 1_000,
    rng: Seed = None,
) -> OriginCheck:
    """Whether the bootstraps of ``rows`` depend on the origin of ``y``: :func:`type1_error_table` by each
    denominator, at the model's mean and at ``mu + shift`` (the same A/A tests, every value plus ``shift``: a factor
    ``e`` on a log scale at 1), on twin streams so that the four tables share their tests.

    Parameters
    ----------
    components : VarianceComponents
    rows : sequence of (design, bootstrap)
    shift : float
        Added to ``mu``.
    requests, hosts, experiments, replicates : int
        As :func:`type1_error_table`.
    rng : None, int, SeedSequence or Generator
    """
    import dataclasses

    check_instance("components", components, VarianceComponents)
    shift = check_real("shift", shift)
    rows = [tuple(r) for r in rows]
    tables = {}
    cases = [(d, moved) for moved in (0.0, shift) for d in ("weights", "counts")]
    for (denominator, moved), stream in zip(cases, twin_streams(len(cases), rng=rng)):
        tables[denominator, moved] = type1_error_table(
            dataclasses.replace(components, mu=components.mu + moved),
            requests=requests,
            hosts=hosts,
            experiments=experiments,
            replicates=replicates,
            denominator=denominator,
            rows=rows,
            rng=stream,
        )
    table = pd.DataFrame({"design / bootstrap": [" / ".join(r).replace("_", " ") for r in rows]})
    for moved, label in ((0.0, ""), (shift, ", shifted")):
        table["normal" + label] = tables["weights", moved].type1_error.to_numpy()
        table["t" + label] = tables["weights", moved].type1_error_t.to_numpy()
        table["counts" + label] = tables["counts", moved].type1_error.to_numpy()
    se_moved = np.abs(tables["weights", shift].mean_estimated_se - tables["weights", 0.0].mean_estimated_se).max()
    return OriginCheck(table=table, se_moved=float(se_moved), shift=shift, experiments=experiments)
