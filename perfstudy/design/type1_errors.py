"""Type I error of bootstrap confidence intervals under simulated A/A tests (Table 3).

Bakshy & Frachtenberg, WWW 2015, section 5.2: 10,000 simulated A/A tests per design (endpoint 1,
16 hosts, 512 requests per condition), each analysed with the iid, request, host and (for the
request-balanced design) host-block bootstraps; the Type I error is the share of 95% intervals that
exclude zero, beside the mean bootstrap SE and the true SE.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfstudy._lib.checks import (
    check_allocation,
    check_choice,
    check_fraction,
    check_int,
    check_names,
    check_resamples,
    check_sample,
)
from perfstudy._lib.parallel import map_tasks
from perfstudy._lib.result import Result
from perfstudy._lib.types import Executor, Seed
from perfstudy.design.bootstrap import (
    DENOMINATORS,
    check_denominator,
    check_denominators,
    check_weights,
    clustered_bootstrap,
    clustered_bootstraps,
    host_blocks,
)
from perfstudy.design.model import PERFLAB_ENDPOINTS, VarianceComponents, check_components, simulate
from perfstudy.design.schedules import Schedule, check_design
from perfstudy.design.standard_errors import standard_error

__all__ = [
    "BOOTSTRAPS",
    "ROWS",
    "bootstrap_clusters",
    "AATests",
    "aa_tests",
    "type1_error_table",
    "type1_error_tables",
    "segment_aa_study",
]

BOOTSTRAPS = ("iid", "request", "host", "host_block")

#: The default design x bootstrap pairs, design by design: every design with the iid, request and
#: host bootstraps, and the host-block bootstrap for the request-balanced design, the one design
#: whose host blocks are neither single hosts nor one block of all of them (section 5.2).
ROWS: tuple[tuple[str, str], ...] = tuple(
    (design, bootstrap)
    for design in ("unbalanced", "request_balanced", "host_balanced", "fully_balanced")
    for bootstrap in BOOTSTRAPS
    if bootstrap != "host_block" or design == "request_balanced"
)

#: Experiments per task: each task simulates this many experiments on its own spawned stream and
#: bootstraps them with shared replicate weights. Fixed, so results do not depend on the executor.
CHUNK = 1000


def bootstrap_clusters(bootstrap: str, schedule: Schedule):
    """The ``clusters`` argument of :func:`clustered_bootstrap` for a named bootstrap.

    Parameters
    ----------
    bootstrap : {"iid", "request", "host", "host_block"}
        Which unit gets one weight: the observation, the request, the host, or the host block
        (:func:`perfstudy.design.bootstrap.host_blocks`).
    schedule : Schedule
        Who runs what where.
    """
    check_choice("bootstrap", bootstrap, BOOTSTRAPS)
    if not isinstance(schedule, Schedule):
        raise TypeError(f"schedule: expected a Schedule, got {type(schedule).__name__}")
    if bootstrap == "iid":
        return None
    if bootstrap == "request":
        return schedule.request
    if bootstrap == "host":
        return schedule.host
    if bootstrap == "host_block":
        return host_blocks(schedule.host, schedule.request)
    raise ValueError(f"bootstrap={bootstrap!r}: expected one of {', '.join(map(repr, BOOTSTRAPS))}")


@dataclass(frozen=True, eq=False)
class AATests(Result):
    """Simulated A/A tests of one design, each analysed by several bootstraps.

    Attributes
    ----------
    design : str
    delta_hat : ndarray, shape (experiments,)
        Each test's difference in means (the true effect is 0).
    bootstraps : dict of str to BootstrapResult
        One vectorised bootstrap per named bootstrap, over all the tests.
    """

    design: str
    delta_hat: np.ndarray
    bootstraps: dict

    def to_frame(self) -> pd.DataFrame:
        """One row per A/A experiment: ``experiment`` and its ``delta_hat``."""
        return pd.DataFrame(
            {"design": self.design, "experiment": np.arange(self.delta_hat.size), "delta_hat": self.delta_hat}
        )


def aa_tests(
    design: str,
    components: VarianceComponents,
    *,
    bootstraps=("iid", "request", "host"),
    requests: int,
    hosts: int,
    experiments: int,
    replicates: int = 1000,
    weights: str = "poisson",
    denominator: str = "weights",
    rng: Seed = None,
) -> AATests:
    """Simulate ``experiments`` A/A tests of ``design`` and bootstrap each with every named bootstrap.

    The random stream is spawned into one child for the simulation and one per bootstrap, in that
    order, so a bootstrap's replicates do not depend on which others run beside it.

    Parameters
    ----------
    design : str
        One of the four designs.
    components : VarianceComponents
        The model the tests are simulated from.
    bootstraps : sequence of {"iid", "request", "host", "host_block"}
        Which bootstraps analyse the tests.
    requests, hosts : int
        Requests per condition, hosts.
    experiments : int
        A/A tests.
    replicates : int
        Bootstrap replicates per test.
    weights : {"poisson", "uniform", "exponential"}
        The bootstrap weight law.
    denominator : {"weights", "counts"}
        What a replicate's weighted sums are divided by (:func:`perfstudy.design.bootstrap.clustered_bootstrap`).
    rng : None, int, SeedSequence or Generator
        Parent of the simulation's and the bootstraps' streams.

    Returns
    -------
    AATests
    """
    bootstraps = check_names("bootstraps", bootstraps, BOOTSTRAPS)
    check_denominator(denominator)
    delta_hat, results = _simulated_bootstraps(
        design, components, bootstraps, (denominator,), (requests, hosts, experiments, replicates), weights, rng
    )
    return AATests(design, delta_hat, {name: by_denominator[denominator] for name, by_denominator in results.items()})


def _simulated_bootstraps(design, components, bootstraps, denominators, sizes, weights, rng):
    """``(delta_hat, {bootstrap: {denominator: BootstrapResult}})``: one simulation, and per bootstrap one draw
    of replicate weights that every denominator divides by (:func:`perfstudy.design.bootstrap.clustered_bootstraps`).
    ``sizes`` is ``(requests, hosts, experiments, replicates)``. The stream is spawned into the simulation's and
    one per bootstrap, in that order (:func:`aa_tests`)."""
    requests, hosts, experiments, replicates = sizes
    sim_rng, *boot_rngs = np.random.default_rng(rng).spawn(1 + len(bootstraps))
    sim = simulate(design, components, requests=requests, hosts=hosts, experiments=experiments, rng=sim_rng)
    results = {
        name: clustered_bootstraps(
            sim.y,
            sim.schedule.version,
            bootstrap_clusters(name, sim.schedule),
            replicates=replicates,
            weights=weights,
            denominators=denominators,
            rng=stream,
        )
        for name, stream in zip(bootstraps, boot_rngs)
    }
    return sim.delta_hat, results


def _task(task, rng):
    design, bootstraps, components, requests, hosts, experiments, replicates, weights, denominators, confidence = task
    delta_hat, results = _simulated_bootstraps(
        design, components, bootstraps, denominators, (requests, hosts, experiments, replicates), weights, rng
    )
    found: dict = {"delta_hat": delta_hat}
    for name, by_denominator in results.items():
        for denominator, result in by_denominator.items():
            found[name, denominator] = dict(
                se=result.standard_error,
                clusters=result.clusters_per_condition,
                redrawn=result.redrawn,
                z=result.critical_value(confidence, "normal"),
                t=result.critical_value(confidence, "t"),
            )
    return found


def type1_error_table(
    components: VarianceComponents = PERFLAB_ENDPOINTS[1],
    *,
    requests: int = 512,
    hosts: int = 16,
    experiments: int = 10_000,
    replicates: int = 1_000,
    confidence: float = 0.95,
    weights: str = "poisson",
    denominator: str = "weights",
    rows=ROWS,
    rng: Seed = None,
    executor: Executor = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Type I error and mean bootstrap SE of design x bootstrap pairs under simulated A/A tests.

    Bakshy & Frachtenberg, section 5.2 (their Table 3: endpoint 1, 16 hosts, 512 requests, 10,000
    tests, 1,000 replicates, the defaults here). Each design's experiments are simulated once (in
    chunks of ``CHUNK``, each on its own spawned stream) and analysed by every bootstrap of that
    design.

    Parameters
    ----------
    components : VarianceComponents
        The model the A/A tests are simulated from (no effect: ``delta = 0``).
    requests, hosts : int
        Requests per condition and hosts of each design.
    experiments : int
        Simulated A/A tests per design.
    replicates : int
        Bootstrap replicates per test.
    confidence : float
        Coverage of the intervals; a test is a false positive when its interval excludes 0.
    weights : {"poisson", "uniform", "exponential"}
        The bootstrap weight law.
    denominator : {"weights", "counts"}
        What a replicate's weighted sums are divided by (:func:`perfstudy.design.bootstrap.clustered_bootstrap`).
    rows : sequence of (design, bootstrap)
        Which pairs, in the order of the result (default :data:`ROWS`).
    rng : None, int, SeedSequence or Generator
        Parent of one stream per task.
    executor : concurrent.futures.Executor, optional
        Runs the tasks elsewhere; the same ``rng`` gives the same table on any executor.
    progress : bool
        Show a progress bar.

    Returns
    -------
    DataFrame
        One row per ``(design, bootstrap)``: ``type1_error`` (share of CLT intervals at
        ``confidence`` excluding 0), ``type1_error_mc`` (its binomial Monte Carlo standard error),
        ``type1_error_t`` (the same with Student-t intervals on ``C - 1`` df),
        ``mean_estimated_se``, ``true_se`` (spread of ``delta_hat`` over the experiments),
        ``analytic_se`` (section 4.2.1), ``clusters`` (per condition), ``redrawn`` replicates.

    Examples
    --------
    >>> from perfstudy.design.type1_errors import type1_error_table
    >>> table = type1_error_table(requests=32, hosts=4, experiments=200, replicates=50,
    ...                           rows=[("fully_balanced", "host")], rng=1)
    >>> table[["design", "bootstrap", "type1_error"]].shape
    (1, 3)
    """
    check_denominator(denominator)
    return type1_error_tables(
        components,
        requests=requests,
        hosts=hosts,
        experiments=experiments,
        replicates=replicates,
        confidence=confidence,
        weights=weights,
        denominators=(denominator,),
        rows=rows,
        rng=rng,
        executor=executor,
        progress=progress,
    )[denominator]


def type1_error_tables(
    components: VarianceComponents = PERFLAB_ENDPOINTS[1],
    *,
    requests: int = 512,
    hosts: int = 16,
    experiments: int = 10_000,
    replicates: int = 1_000,
    confidence: float = 0.95,
    weights: str = "poisson",
    denominators=DENOMINATORS,
    rows=ROWS,
    rng: Seed = None,
    executor: Executor = None,
    progress: bool = False,
) -> dict:
    """:func:`type1_error_table` under several denominators, from one simulation and one draw of replicate weights.

    Each design's experiments are simulated once, each bootstrap's replicate weights are drawn once, and the
    weighted sums are formed once; only the division by ``N*_r`` or ``N`` differs between the denominators
    (:func:`perfstudy.design.bootstrap.clustered_bootstraps`). Each table is the one :func:`type1_error_table`
    gives with that ``denominator`` and the same ``rng``, bit for bit, in about the time of one.

    Parameters
    ----------
    components, requests, hosts, experiments, replicates, confidence, weights, rows, rng, executor, progress
        As in :func:`type1_error_table`.
    denominators : sequence of {"weights", "counts"}
        What a replicate's weighted sums are divided by (:func:`perfstudy.design.bootstrap.clustered_bootstrap`),
        each once.

    Returns
    -------
    dict of str to DataFrame
        Per denominator, in the order given, :func:`type1_error_table`'s table.
    """
    check_components(components)
    experiments = check_int("experiments", experiments, minimum=2)
    replicates = check_resamples("replicates", replicates, minimum=2)
    confidence = check_fraction("confidence", confidence)
    check_weights(weights)  # here too: fail before any work is sent to an executor
    denominators = check_denominators(denominators)
    if not isinstance(rows, (list, tuple)) or not rows:
        raise TypeError(f"rows={rows!r}: expected a non-empty sequence of (design, bootstrap) pairs")
    if not all(isinstance(r, (list, tuple)) and len(r) == 2 for r in rows):
        raise ValueError(f"rows={rows!r}: expected (design, bootstrap) pairs")
    rows = [tuple(r) for r in rows]
    for design, bootstrap in rows:
        check_design(design)
        if bootstrap not in BOOTSTRAPS:
            raise ValueError(f"rows: bootstrap {bootstrap!r} is not one of {', '.join(BOOTSTRAPS)}")
    check_allocation("experiments", experiments, 8.0 * experiments * (1 + len(rows) * len(denominators)))
    designs = list(dict.fromkeys(d for d, _ in rows))
    by_design = {d: list(dict.fromkeys(b for dd, b in rows if dd == d)) for d in designs}
    sizes = [min(CHUNK, experiments - start) for start in range(0, experiments, CHUNK)]
    tasks = [
        (d, tuple(by_design[d]), components, requests, hosts, size, replicates, weights, denominators, confidence)
        for d in designs
        for size in sizes
    ]
    results = map_tasks(_task, tasks, rng=rng, executor=executor, progress=progress, desc="Table 3")

    tables: dict = {denominator: [] for denominator in denominators}
    for design in designs:
        chunks = [r for t, r in zip(tasks, results) if t[0] == design]
        delta_hat = np.concatenate([c["delta_hat"] for c in chunks])
        true_se = float(delta_hat.std(ddof=1))
        analytic_se = standard_error(design, components, requests=requests, hosts=hosts)
        for bootstrap in by_design[design]:
            for denominator in denominators:
                found = [c[bootstrap, denominator] for c in chunks]
                se = np.concatenate([f["se"] for f in found])
                first = found[0]  # z, t and clusters are the same in every chunk
                rate = float(np.mean(np.abs(delta_hat) > first["z"] * se))
                tables[denominator].append(
                    dict(
                        design=design,
                        bootstrap=bootstrap,
                        type1_error=rate,
                        type1_error_mc=math.sqrt(rate * (1 - rate) / delta_hat.size),
                        type1_error_t=float(np.mean(np.abs(delta_hat) > first["t"] * se)),
                        mean_estimated_se=float(se.mean()),
                        true_se=true_se,
                        analytic_se=analytic_se,
                        clusters=min(first["clusters"]),
                        redrawn=int(sum(f["redrawn"] for f in found)),
                    )
                )
    order = {r: i for i, r in enumerate(rows)}
    return {
        denominator: pd.DataFrame(sorted(table, key=lambda row: order[(row["design"], row["bootstrap"])]))
        for denominator, table in tables.items()
    }


def segment_aa_study(
    values,
    *,
    segments: int = 8,
    segment_length: int = 30,
    experiments: int = 2000,
    replicates: int = 500,
    confidence: float = 0.95,
    weights: str = "poisson",
    rng: Seed = None,
) -> pd.DataFrame:
    """A/A tests cut from one long real series, in the spirit of Figure 8 (section 5.3).

    The series (one system, one version, in time order) is divided into aligned, non-overlapping
    segments of ``segment_length`` consecutive runs: pseudo-batches that share whatever drifts
    slowly (a host's state, the time of day). Each experiment draws ``2 * segments`` distinct
    segments at random, calls the first half "A" and the second "B", and tests the difference in
    means with the iid bootstrap (one weight per run) and the segment-clustered bootstrap (one per
    segment). Nothing differs between A and B, so every rejection is a false positive.

    Parameters
    ----------
    values : array, shape (n,)
        The series, in time order; ``n >= 2 * segments * segment_length``.
    segments : int
        Segments per condition.
    segment_length : int
        Consecutive runs per segment (the pseudo-batch).
    experiments : int
        A/A tests drawn.
    replicates : int
        Bootstrap replicates per test.
    confidence : float
        Coverage of the intervals.
    weights : {"poisson", "uniform", "exponential"}
        The bootstrap weight law.
    rng : None, int, SeedSequence or Generator
        Draws the segments and the bootstrap weights.

    Returns
    -------
    DataFrame
        One row per bootstrap (``"iid"``, ``"segment"``): ``type1_error``, ``type1_error_mc``
        (binomial; experiments reuse the same series, so read it as a lower bound),
        ``type1_error_t`` (Student-t interval on ``C - 1`` df), ``mean_estimated_se``, ``true_se`` (spread of ``delta_hat`` over the experiments),
        ``se_ratio`` (mean SE relative to the segment bootstrap's).
    """
    values = check_sample("values", values)
    confidence = check_fraction("confidence", confidence)
    segments = check_int("segments", segments, minimum=2)
    segment_length = check_int("segment_length", segment_length)
    experiments = check_int("experiments", experiments, minimum=2)
    replicates = check_resamples("replicates", replicates, minimum=2)
    slots = values.size // segment_length
    if slots < 2 * segments:
        raise ValueError(
            f"values: {values.size} runs hold {slots} segments of {segment_length}; "
            f"{2 * segments} are needed (shorten segment_length or use fewer segments)"
        )
    check_allocation("experiments", experiments, 8.0 * experiments * (2 * segments * segment_length + slots))
    rng = np.random.default_rng(rng)
    draw_rng, *boot_rngs = rng.spawn(3)
    keys = draw_rng.random((experiments, slots))
    chosen = np.argpartition(keys, 2 * segments - 1, axis=1)[:, : 2 * segments]  # a random subset per row
    index = (chosen[:, :, None] * segment_length + np.arange(segment_length)).reshape(experiments, -1)
    y = values[index]
    version = np.repeat([0, 1], segments * segment_length)
    labels = np.repeat(np.arange(2 * segments), segment_length)
    rows = []
    for bootstrap, clusters, stream in (("iid", None, boot_rngs[0]), ("segment", labels, boot_rngs[1])):
        result = clustered_bootstrap(y, version, clusters, replicates=replicates, weights=weights, rng=stream)
        # a zero SE (a constant resample) rejects any non-zero difference and no zero one
        size = np.abs(result.estimate)
        excess = np.divide(
            size, result.standard_error, out=np.where(size > 0, np.inf, 0.0), where=result.standard_error > 0
        )
        rate = float(np.mean(excess > result.critical_value(confidence, "normal")))
        rows.append(
            dict(
                bootstrap=bootstrap,
                type1_error=rate,
                type1_error_mc=math.sqrt(rate * (1 - rate) / experiments),
                type1_error_t=float(np.mean(excess > result.critical_value(confidence, "t"))),
                mean_estimated_se=float(np.mean(result.standard_error)),
                true_se=float(np.std(result.estimate, ddof=1)),
            )
        )
    frame = pd.DataFrame(rows)
    frame["se_ratio"] = (
        frame["mean_estimated_se"] / frame.loc[frame.bootstrap == "segment", "mean_estimated_se"].iloc[0]
    )
    return frame
