"""Simulation studies of the designs: empirical against analytic standard errors (Figure 4).

Bakshy & Frachtenberg, WWW 2015, section 4.2.2: "Lines are theoretical standard errors from
Section 4.2.1 and points are empirical standard errors from 10,000 simulations."
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfstudy._lib.checks import check_allocation, check_int, check_names
from perfstudy._lib.parallel import map_tasks
from perfstudy._lib.result import Result
from perfstudy._lib.types import Executor, Seed
from perfstudy.design.model import VarianceComponents, check_components, sample_delta_hat
from perfstudy.design.schedules import DESIGNS, check_hosts, check_size
from perfstudy.design.standard_errors import standard_error

__all__ = ["SweepResult", "standard_error_sweep"]


@dataclass(frozen=True, eq=False)
class SweepResult(Result):
    """Analytic and empirical standard errors over a grid of designs, hosts and requests.

    Attributes
    ----------
    design, hosts, requests, repetitions : ndarray
        One entry per grid point.
    analytic_se : ndarray
        Section 4.2.1 closed forms.
    empirical_se : ndarray
        Sample standard deviation (ddof=1) of ``delta_hat`` over ``experiments`` simulations.
    monte_carlo_error : ndarray
        Standard error of ``empirical_se`` itself: ``delta_hat`` is normal, so
        ``sd(s) ~= sigma / sqrt(2 (n - 1))``.
    mean_delta_hat : ndarray
        Mean of ``delta_hat`` (its expectation is the effect, 0 here).
    experiments : int
    """

    design: np.ndarray
    hosts: np.ndarray
    requests: np.ndarray
    repetitions: np.ndarray
    analytic_se: np.ndarray
    empirical_se: np.ndarray
    monte_carlo_error: np.ndarray
    mean_delta_hat: np.ndarray
    experiments: int

    def to_frame(self) -> pd.DataFrame:
        frame = pd.DataFrame(
            {
                name: getattr(self, name)
                for name in (
                    "design",
                    "hosts",
                    "requests",
                    "repetitions",
                    "analytic_se",
                    "empirical_se",
                    "monte_carlo_error",
                    "mean_delta_hat",
                )
            }
        )
        frame["z"] = (frame["empirical_se"] - frame["analytic_se"]) / frame["monte_carlo_error"]
        return frame


def _sweep_task(task, rng):
    design, hosts, requests, repetitions, components, experiments = task
    delta_hat = sample_delta_hat(
        design,
        components,
        requests=requests,
        hosts=hosts,
        repetitions=repetitions,
        experiments=experiments,
        rng=rng,
    )
    return float(delta_hat.std(ddof=1)), float(delta_hat.mean())


def standard_error_sweep(
    components: VarianceComponents,
    *,
    designs=DESIGNS,
    hosts=(4, 8, 16, 32),
    requests=(100, 150, 200, 300, 500, 700, 1000),
    repetitions: int = 1,
    experiments: int = 10_000,
    rng: Seed = None,
    executor: Executor = None,
    progress: bool = False,
) -> SweepResult:
    """Empirical SE of ``delta_hat`` from simulated experiments, beside the closed form (Figure 4).

    Each grid point simulates ``experiments`` experiments from Eq. 3 (every request, host and batch
    effect and every observation's noise drawn, then reduced by :func:`sample_delta_hat`) on its
    own random stream, so the result does not depend on ``executor``. The streams are the children of
    one ``numpy.random.SeedSequence.spawn`` (distinct spawn keys), hence independent across points;
    a grid may repeat a point to check the Monte Carlo error (notebook 01 re-simulates its
    largest-|z| point so).

    Parameters
    ----------
    components : VarianceComponents
    designs, hosts, requests : sequences
        The grid (Figure 4: the four designs, 4, 8, 16, 32 hosts, 100 to 1000 requests).
    repetitions : int
    experiments : int
        Simulations per grid point (the paper: 10,000).
    rng : None, int, SeedSequence or Generator
    executor : concurrent.futures.Executor, optional
        E.g. ``ProcessPoolExecutor()`` or a Dask client's ``get_executor()``.
    progress : bool
        Show a progress bar.
    """
    check_components(components)
    designs = check_names("designs", designs, DESIGNS)
    experiments = check_int("experiments", experiments, minimum=2)
    repetitions = check_int("repetitions", repetitions)
    for name, values in (("hosts", hosts), ("requests", requests)):
        if isinstance(values, (str, bytes)) or not np.iterable(values) or not len(values):
            raise TypeError(f"{name}={values!r}: expected a non-empty sequence of positive integers")
    grid = list(itertools.product(designs, hosts, requests))
    for design, h, r in grid:
        check_hosts(design, h, r)
    largest = 2.0 * max(int(r) for r in requests) * repetitions
    check_size(largest, requests=max(int(r) for r in requests), repetitions=repetitions)
    check_allocation("experiments", experiments, 8.0 * experiments * len(grid))  # one delta-hat per experiment
    tasks = [(d, int(h), int(r), int(repetitions), components, int(experiments)) for d, h, r in grid]
    results = map_tasks(_sweep_task, tasks, rng=rng, executor=executor, progress=progress, desc="SE sweep")
    empirical = np.array([r[0] for r in results])
    design = np.array([g[0] for g in grid])
    host_arr = np.array([g[1] for g in grid], dtype=int)
    req_arr = np.array([g[2] for g in grid], dtype=int)
    analytic = np.array(
        [standard_error(d, components, requests=r, hosts=h, repetitions=repetitions) for d, h, r in grid]
    )
    return SweepResult(
        design=design,
        hosts=host_arr,
        requests=req_arr,
        repetitions=np.full(len(grid), int(repetitions)),
        analytic_se=analytic,
        empirical_se=empirical,
        monte_carlo_error=empirical / np.sqrt(2.0 * (experiments - 1)),
        mean_delta_hat=np.array([r[1] for r in results]),
        experiments=int(experiments),
    )
