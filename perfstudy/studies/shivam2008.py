"""Shivam et al., "Cutting Corners: Workbench Automation for Server Benchmarking", USENIX ATC 2008:
one function per figure and table, on the simulated workbench (notebook 06).

No code or traces of the paper are public; :class:`perfstudy.capacity.server_model.SimulatedServer` stands in
for its NFS server, with a known true peak rate, which is what lets these studies check the
policies' claims.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfstudy._lib.checks import (
    check_each,
    check_fraction,
    check_frame,
    check_instance,
    check_int,
    check_names,
    check_real,
)
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed
from perfstudy.capacity.peak_search import POLICIES, find_peak_rate, trials_needed
from perfstudy.capacity.response_surface import d_optimal, fit_quadratic_surface, map_response_surface
from perfstudy.capacity.server_model import SimulatedServer

__all__ = [
    "StrawmanAgainstBinsearch",
    "RunlengthSweep",
    "figure3",
    "figure6",
    "calibration",
    "growth",
    "policy_traces",
    "surface_costs",
    "figure9",
    "figure10",
    "table4",
]


@dataclass(frozen=True)
class StrawmanAgainstBinsearch(Result):
    """Figure 3: the strawman's fixed trials against Binsearch's adaptive search on one server.

    Attributes
    ----------
    headline : dict
        Hours and peaks of both, and the true peak.
    traces : dict
        ``{"strawman": (search, true_peak), "binsearch": (...)}`` for
        :func:`perfstudy.notebook.plots.plot_search_traces`.
    """

    headline: dict
    traces: dict

    def to_frame(self) -> pd.DataFrame:
        """One row of the headline numbers."""
        return pd.DataFrame([self.headline])


@dataclass(frozen=True)
class RunlengthSweep(Result):
    """Figure 6: trials and hours to reach the target accuracy, per load factor and run length.

    Attributes
    ----------
    table : DataFrame
        ``load_factor``, ``runlength``, ``trials`` (mean), ``hours`` (mean, with set-up).
    sweet_spot : DataFrame
        The row of least ``hours`` per load factor.
    """

    table: pd.DataFrame
    sweet_spot: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """One row per load factor and run length (``table``)."""
        return self.table.copy()


def figure3(server: SimulatedServer, *, search: dict, rng: Seed = None) -> StrawmanAgainstBinsearch:
    """Figure 3: the strawman scan against Algorithm 2 with Binsearch, on one server.

    Parameters
    ----------
    server : SimulatedServer
        The server.
    search : dict
        Keyword arguments of :func:`perfstudy.capacity.peak_search.find_peak_rate`.
    rng : None, int, SeedSequence or Generator
        One stream, shared by the two searches in turn.

    Returns
    -------
    StrawmanAgainstBinsearch
    """
    check_instance("server", server, SimulatedServer)
    check_instance("search", search, dict)
    rng = np.random.default_rng(rng)
    straw = find_peak_rate(server, policy="strawman", rng=rng, **search)
    binary = find_peak_rate(server, policy="binsearch", rng=rng, **search)
    summary = dict(
        strawman_hours=straw.cost / 3600,
        binsearch_hours=binary.cost / 3600,
        strawman_peak=straw.peak_rate,
        binsearch_peak=binary.peak_rate,
        true_peak=server.true_peak_rate,
    )
    traces = {"strawman": (straw, server.true_peak_rate), "binsearch": (binary, server.true_peak_rate)}
    return StrawmanAgainstBinsearch(headline=summary, traces=traces)


def figure6(
    server: SimulatedServer,
    *,
    load_factors,
    runlengths,
    repeats: int,
    target_accuracy: float,
    confidence: float,
    rng: Seed = None,
) -> RunlengthSweep:
    """Figure 6: trials to the target accuracy against run length, and the sweet spot in time.

    Parameters
    ----------
    server : SimulatedServer
        The server.
    load_factors : sequence of float
        Loads as fractions of the true peak rate.
    runlengths : sequence of float
        Seconds per trial.
    repeats : int
        Searches averaged per point.
    target_accuracy, confidence : float
        As in :func:`perfstudy.capacity.peak_search.trials_needed`.
    rng : None, int, SeedSequence or Generator
        One stream, used in turn.

    Returns
    -------
    RunlengthSweep
    """
    check_instance("server", server, SimulatedServer)
    check_each("load_factors", load_factors, check_real, positive=True)
    check_each("runlengths", runlengths, check_real, positive=True)
    check_int("repeats", repeats)
    check_fraction("target_accuracy", target_accuracy)
    check_fraction("confidence", confidence)
    rng = np.random.default_rng(rng)
    rows = []
    for factor in load_factors:
        for length in runlengths:
            counts = [
                trials_needed(
                    server,
                    load=factor * server.true_peak_rate,
                    runlength=length,
                    target_accuracy=target_accuracy,
                    confidence=confidence,
                    rng=rng,
                )
                for _ in range(repeats)
            ]
            rows.append(
                dict(
                    load_factor=factor,
                    runlength=length,
                    trials=float(np.mean(counts)),
                    hours=float(np.mean(counts)) * (length + server.setup) / 3600,
                )
            )
    table = pd.DataFrame(rows)
    sweet = table.loc[table.groupby("load_factor").hours.idxmin(), ["load_factor", "runlength", "trials", "hours"]]
    return RunlengthSweep(table=table, sweet_spot=sweet)


def calibration(server: SimulatedServer, *, searches: int, search: dict, rng: Seed = None) -> dict:
    """Does the reported peak meet the promise? ``searches`` independent searches of one server.

    Parameters
    ----------
    server : SimulatedServer
        The server.
    searches : int
        Independent searches.
    search : dict
        Keyword arguments of :func:`perfstudy.capacity.peak_search.find_peak_rate` (``target_accuracy`` among them).
    rng : None, int, SeedSequence or Generator
        One stream per search.

    Returns
    -------
    dict
        ``searches``, ``within_target`` (share within ``target_accuracy`` of the true peak),
        ``converged``, ``median_error``, ``max_error``, ``median_hours``.
    """
    check_instance("server", server, SimulatedServer)
    check_int("searches", searches)
    check_instance("search", search, dict)
    results = [find_peak_rate(server, rng=stream, **search) for stream in np.random.default_rng(rng).spawn(searches)]
    errors = np.array([abs(r.peak_rate / server.true_peak_rate - 1) if r.converged else np.inf for r in results])
    return dict(
        searches=searches,
        within_target=float(np.mean(errors <= search.get("target_accuracy", 0.10))),
        converged=float(np.mean([r.converged for r in results])),
        median_error=float(np.median(errors)),
        max_error=float(np.max(errors)),
        median_hours=float(np.median([r.cost for r in results]) / 3600),
    )


def growth(
    *, scales=(1, 2, 4, 8, 16), policies=("binsearch", "linear"), search: dict, rng: Seed = None
) -> pd.DataFrame:
    """Cost against the size of the peak: servers of the same shape, capacity times ``scales``.

    Parameters
    ----------
    scales : sequence of float
        Capacity multipliers (disk and daemon rates).
    policies : sequence of str
        Load pickers.
    search : dict
        Keyword arguments of :func:`perfstudy.capacity.peak_search.find_peak_rate`.
    rng : None, int, SeedSequence or Generator
        One stream, used in turn.

    Returns
    -------
    DataFrame
        ``scale``, ``true_peak``, ``policy``, ``test_loads``, ``hours``, ``converged``.
    """
    check_each("scales", scales, check_real, positive=True)
    check_names("policies", policies, POLICIES)
    check_instance("search", search, dict)
    rng = np.random.default_rng(rng)
    rows = []
    for scale in scales:
        server = SimulatedServer(disks=4, daemons=16, disk_rate=100 * scale, daemon_rate=40 * scale)
        for policy in policies:
            found = find_peak_rate(server, policy=policy, rng=rng, **search)
            rows.append(
                dict(
                    scale=scale,
                    true_peak=server.true_peak_rate,
                    policy=policy,
                    test_loads=len(found.loads),
                    hours=found.cost / 3600,
                    converged=found.converged,
                )
            )
    return pd.DataFrame(rows)


def policy_traces(
    server: SimulatedServer,
    neighbour: SimulatedServer,
    *,
    policies=("binsearch", "linear", "model"),
    search: dict,
    rng: Seed = None,
) -> dict:
    """Figure 7: one server's search with each policy, unseeded and seeded from its neighbour's peak.

    Parameters
    ----------
    server, neighbour : SimulatedServer
        The sample searched and the nearby one whose peak seeds it.
    policies, search, rng
        As in :func:`growth`.

    Returns
    -------
    dict
        ``label -> (search, true_peak)`` for :func:`perfstudy.notebook.plots.plot_search_traces`.
    """
    check_instance("server", server, SimulatedServer)
    check_instance("neighbour", neighbour, SimulatedServer)
    check_names("policies", policies, POLICIES)
    check_instance("search", search, dict)
    rng = np.random.default_rng(rng)
    seed_load = find_peak_rate(neighbour, rng=rng, **search).peak_rate
    traces = {}
    for policy in policies:
        for seeded in (False, True):
            found = find_peak_rate(server, policy=policy, seed_load=seed_load if seeded else None, rng=rng, **search)
            traces[f"{policy}{' + seeding' if seeded else ''}"] = (found, server.true_peak_rate)
    return traces


def surface_costs(
    grid: pd.DataFrame, *, policies=("binsearch", "linear", "model"), repeats: int, search: dict, rng: Seed = None
) -> pd.DataFrame:
    """The cost of mapping the whole surface with each policy, with and without seeding (section 3.7).

    Parameters
    ----------
    grid : DataFrame
        One sample per row (``disks``, ``daemons``).
    policies : sequence of str
        Load pickers.
    repeats : int
        Surfaces mapped per policy and seeding, averaged.
    search : dict
        Keyword arguments of :func:`perfstudy.capacity.peak_search.find_peak_rate`.
    rng : None, int, SeedSequence or Generator
        Spawned per cell.

    Returns
    -------
    DataFrame
        ``policy``, ``seeding``, ``hours`` (mean), ``converged`` (mean share), ``max_error`` (worst
        relative error of a reported peak).
    """
    check_frame("grid", grid, minimum=0)
    check_names("policies", policies, POLICIES)
    check_int("repeats", repeats)
    check_instance("search", search, dict)
    rng = np.random.default_rng(rng)
    rows = []
    for policy in policies:
        for seeded in (False, True):
            surfaces = [
                map_response_surface(grid, policy=policy, seeding=seeded, rng=stream, **search)
                for stream in rng.spawn(repeats)
            ]
            rows.append(
                dict(
                    policy=policy,
                    seeding=seeded,
                    hours=np.mean([s.total_cost for s in surfaces]) / 3600,
                    converged=float(np.mean([s.samples.converged.mean() for s in surfaces])),
                    max_error=float(
                        np.max([(s.samples.peak_rate / s.samples.true_peak_rate - 1).abs().max() for s in surfaces])
                    ),
                )
            )
    return pd.DataFrame(rows)


def figure9(grid: pd.DataFrame, *, confidences, accuracies, search: dict, rng: Seed = None) -> pd.DataFrame:
    """Figure 9: the cost of mapping the surface (Binsearch, seeded) against target confidence and accuracy.

    Parameters
    ----------
    grid : DataFrame
        The samples.
    confidences, accuracies : sequences of float
        The targets.
    search : dict
        The other keyword arguments of :func:`perfstudy.capacity.peak_search.find_peak_rate`.
    rng : None, int, SeedSequence or Generator
        One stream, used in turn.
    """
    check_frame("grid", grid, minimum=0)
    check_each("confidences", confidences, check_fraction)
    check_each("accuracies", accuracies, check_fraction)
    check_instance("search", search, dict)
    rng = np.random.default_rng(rng)
    rows = []
    for confidence in confidences:
        for target in accuracies:
            settings = dict(search, confidence=confidence, target_accuracy=target)
            surface = map_response_surface(grid, policy="binsearch", seeding=True, rng=rng, **settings)
            rows.append(dict(confidence=confidence, target_accuracy=target, hours=surface.total_cost / 3600))
    return pd.DataFrame(rows)


def figure10(
    grid: pd.DataFrame, *, widths, policies=("binsearch", "linear", "model"), search: dict, rng: Seed = None
) -> pd.DataFrame:
    """Figure 10: the cost of mapping the surface (seeded) against the width of the peak-rate region.

    Parameters
    ----------
    grid : DataFrame
        The samples.
    widths : sequence of float
        Region widths ``w``.
    policies : sequence of str
        Load pickers.
    search : dict
        The other keyword arguments of :func:`perfstudy.capacity.peak_search.find_peak_rate`.
    rng : None, int, SeedSequence or Generator
        One stream, used after :func:`figure9`'s in the notebook.
    """
    check_frame("grid", grid, minimum=0)
    check_each("widths", widths, check_fraction)
    check_names("policies", policies, POLICIES)
    check_instance("search", search, dict)
    rng = np.random.default_rng(rng)
    rows = []
    for policy in policies:
        for width in widths:
            surface = map_response_surface(
                grid, policy=policy, seeding=True, rng=rng, **dict(search, region_width=width)
            )
            rows.append(dict(policy=policy, region_width=width, hours=surface.total_cost / 3600))
    return pd.DataFrame(rows)


def table4(grid: pd.DataFrame, *, sizes, search: dict, rng: Seed = None) -> pd.DataFrame:
    """Table 4: a quadratic surface fitted to D-optimal subsets of samples, and its error over all of them.

    The surface is measured once (Binsearch, seeded); for each size ``k`` the D-optimal ``k``
    samples are chosen, a quadratic fitted to their measured peaks, and its mean absolute
    percentage error taken over every sample, against the measured peaks (as in the paper) and the
    true ones.

    Parameters
    ----------
    grid : DataFrame
        The samples (``disks``, ``daemons``).
    sizes : sequence of int
        Subset sizes ``k`` (at least the 6 coefficients of a quadratic in two factors).
    search : dict
        Keyword arguments of :func:`perfstudy.capacity.peak_search.find_peak_rate`.
    rng : None, int, SeedSequence or Generator
        One stream for the measurement and the exchanges, used in turn.

    Returns
    -------
    DataFrame
        ``samples``, ``chosen`` (factor tuples), ``mape_measured``, ``mape_true``, ``hours`` (to
        measure the chosen samples).
    """
    check_frame("grid", grid, minimum=0)
    check_each("sizes", sizes, check_int)
    check_instance("search", search, dict)
    rng = np.random.default_rng(rng)
    measured = map_response_surface(grid, policy="binsearch", seeding=True, rng=rng, **search).samples
    factors = grid[["disks", "daemons"]]
    rows = []
    for k in sizes:
        chosen = d_optimal(factors, k, rng=rng)
        surface = fit_quadratic_surface(factors.iloc[chosen], measured.peak_rate.to_numpy()[chosen])
        rows.append(
            dict(
                samples=k,
                chosen=grid.iloc[chosen].apply(tuple, axis=1).tolist(),
                mape_measured=surface.mean_absolute_percentage_error(factors, measured.peak_rate),
                mape_true=surface.mean_absolute_percentage_error(factors, measured.true_peak_rate),
                hours=float(measured.cost.to_numpy()[chosen].sum() / 3600),
            )
        )
    return pd.DataFrame(rows)
