"""The crossed random-effects model of distributed benchmarks.

Bakshy & Frachtenberg, "Design and Analysis of Benchmarking Experiments for Distributed Internet
Services", WWW 2015, sections 3 and 4.1:

    Y_i = f(mu + delta D_i + alpha_r[i] + beta_h[i] + gamma_r[i],b[i] + eta_h[i],b[i] + eps_i)   (Eq. 3/4)

with independent normal effects of standard deviations sigma_alpha (request), sigma_beta (host),
sigma_gamma (request x batch), sigma_eta (host x batch) and sigma_epsilon (noise), under the sharp
null of section 4.2 (the same effects under both versions, a constant additive effect delta).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from types import MappingProxyType

import numpy as np
import pandas as pd

from perfstudy._lib.checks import check_allocation, check_int, check_numbers, check_real
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed
from perfstudy.design.schedules import Schedule, schedule as build_schedule

__all__ = [
    "VarianceComponents",
    "PERFLAB_ENDPOINTS",
    "intraclass_correlation",
    "design_effect",
    "clustered_standard_error",
    "DrawnEffects",
    "Simulation",
    "simulate",
    "sample_delta_hat",
    "CHUNK_EXPERIMENTS",
    "check_components",
]

#: Experiments drawn per block. Fixed (never derived from the machine) so that a seed gives the same
#: numbers everywhere, and so that :func:`simulate` and :func:`sample_delta_hat` read the random
#: stream in the same order.
CHUNK_EXPERIMENTS = 1024

# Order of the random effects in the random stream and in DrawnEffects.
_EFFECTS = ("request", "host", "request_batch", "host_batch")


@dataclass(frozen=True)
class VarianceComponents(Result):
    """Standard deviations of the random effects of Eq. 3.

    Parameters
    ----------
    request : float
        sigma_alpha, the request effect.
    host : float
        sigma_beta, the host effect.
    request_batch : float
        sigma_gamma, the request x batch effect (drawn again at each service start).
    host_batch : float
        sigma_eta, the host x batch effect.
    noise : float
        sigma_epsilon, the per-observation noise.
    mu : float
        The grand mean (on the link scale).
    """

    request: float
    host: float
    request_batch: float
    host_batch: float
    noise: float
    mu: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            is_sigma = f.name != "mu"
            value = check_real(
                f.name,
                getattr(self, f.name),
                nonnegative=is_sigma,
                what="standard deviation (VarianceComponents takes sigmas, not variances)" if is_sigma else "number",
            )
            object.__setattr__(self, f.name, value)

    @property
    def sigmas(self) -> dict[str, float]:
        """The five standard deviations by name (without ``mu``)."""
        return {
            "request": self.request,
            "host": self.host,
            "request_batch": self.request_batch,
            "host_batch": self.host_batch,
            "noise": self.noise,
        }

    @property
    def rho(self) -> float:
        """Request intraclass correlation, section 3.1.1: ``sigma_alpha^2 / (sigma_alpha^2 + sigma_eps^2)``."""
        return intraclass_correlation(self.request, self.noise)

    def to_frame(self) -> pd.DataFrame:
        """One row: ``mu`` and the five sigmas."""
        return pd.DataFrame([{"mu": self.mu, **self.sigmas}])


#: Table 1 of the paper: parameter estimates of Eq. 3 for the five most trafficked endpoints
#: (outcomes standardised, footnote 2), keyed 1..5.
PERFLAB_ENDPOINTS: MappingProxyType[int, VarianceComponents] = MappingProxyType(
    {
        endpoint: VarianceComponents(request=alpha, host=beta, request_batch=gamma, host_batch=eta, noise=eps, mu=mu)
        for endpoint, (mu, alpha, beta, gamma, eta, eps) in {
            1: (0.06, 1.02, 0.12, 0.10, 0.08, 0.13),
            2: (0.08, 1.08, 0.10, 0.05, 0.06, 0.08),
            3: (0.07, 1.02, 0.11, 0.04, 0.05, 0.06),
            4: (0.08, 1.08, 0.05, 0.05, 0.02, 0.06),
            5: (0.04, 1.08, 0.04, 0.01, 0.02, 0.14),
        }.items()
    }
)


def _nonnegative_array(name: str, value) -> np.ndarray:
    array = check_numbers(name, value, "a number or an array of numbers")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name}: expected finite numbers")
    if np.any(array < 0):
        raise ValueError(f"{name}: expected non-negative numbers")
    return array


def _at_least_one(name: str, value) -> np.ndarray:
    """``R`` or ``T`` in a closed form: at least 1, and real-valued (Figure 2 draws the curves over a
    continuous ``R``)."""
    array = _nonnegative_array(name, value)
    if np.any(array < 1):
        raise ValueError(f"{name}: expected at least 1, got {value!r}")
    return array


def _scalar_or_array(value: np.ndarray):
    return float(value) if np.ndim(value) == 0 else value


def intraclass_correlation(between, within):
    """Intraclass correlation ``rho = between^2 / (between^2 + within^2)`` (section 3.1.1).

    Parameters
    ----------
    between, within : float or array
        Standard deviations of the cluster effect (e.g. sigma_alpha) and of the noise.
    """
    between = _nonnegative_array("between", between)
    within = _nonnegative_array("within", within)
    total = between**2 + within**2
    if np.any(total == 0):
        raise ValueError("between, within: the ICC is undefined when both are zero")
    return _scalar_or_array(between**2 / total)


def design_effect(rho, repetitions):
    """Design effect ``deff = 1 + (T - 1) rho`` (section 3.1.1, after Kish).

    The ratio of the variance of the mean of ``T`` repetitions of each cluster to that of a simple
    random sample of the same size. Broadcasts over arrays.

    Parameters
    ----------
    rho : float or array_like
        Intra-cluster correlation.
    repetitions : int or array_like
        ``T``, observations per cluster.
    """
    rho = _nonnegative_array("rho", rho)
    if np.any(rho > 1):
        raise ValueError(f"rho={rho!r}: expected a correlation in [0, 1]")
    repetitions = _at_least_one("repetitions", repetitions)
    return _scalar_or_array(1.0 + (repetitions - 1.0) * rho)


def clustered_standard_error(sigma, *, rho, requests, repetitions=1):
    """Standard error of the mean of ``R`` clusters of ``T`` repetitions (Eq. 1).

    ``SE_clust = sigma / sqrt(R T) * sqrt(1 + (T - 1) rho)``, where ``sigma`` is the total standard
    deviation of one observation, ``sqrt(sigma_alpha^2 + sigma_eps^2)``. Broadcasts over arrays,
    which is how Figure 2 is drawn.

    Parameters
    ----------
    sigma : float or array_like
        Total standard deviation of one observation.
    rho : float or array_like
        Intra-cluster correlation, ``sigma_alpha^2 / sigma^2``.
    requests : int or array_like
        ``R``, the number of clusters.
    repetitions : int or array_like
        ``T``, observations per cluster.
    """
    sigma = _nonnegative_array("sigma", sigma)
    requests = _at_least_one("requests", requests)
    repetitions = _at_least_one("repetitions", repetitions)
    deff = design_effect(rho, repetitions)
    return _scalar_or_array(sigma * np.sqrt(deff / (requests * repetitions)))


@dataclass(frozen=True, eq=False)
class DrawnEffects(Result):
    """The random effects drawn for each experiment (leading axis), one column per level.

    Level order is that of ``Schedule.levels``; ``noise`` is per observation.

    Attributes
    ----------
    request, host, request_batch, host_batch : ndarray, shape (experiments, levels)
        The effect of each level of the four random terms of Eq. 3.
    noise : ndarray, shape (experiments, observations)
        ``epsilon`` of each observation.
    """

    request: np.ndarray
    host: np.ndarray
    request_batch: np.ndarray
    host_batch: np.ndarray
    noise: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        """One row per effect: how many values were drawn and their standard deviation."""
        effects = {f.name: getattr(self, f.name) for f in fields(self)}
        return pd.DataFrame(
            {
                "effect": list(effects),
                "values": [e.size for e in effects.values()],
                "sd": [float(np.std(e)) if e.size else np.nan for e in effects.values()],
            }
        )


@dataclass(frozen=True, eq=False)
class Simulation(Result):
    """Simulated benchmark experiments under one schedule.

    Attributes
    ----------
    y : ndarray, shape (experiments, observations)
        Observations ``Y_i`` on the outcome scale (after the link).
    schedule : Schedule
        Request, host, batch and version of each column of ``y``.
    effects : DrawnEffects
        The random effects each experiment drew (link scale).
    delta_hat : ndarray, shape (experiments,)
        Difference in means, treatment minus control, on the link scale (for ``link="log"``, of
        ``log y``: the estimate of the multiplicative effect ``delta``; section 4.2, footnote 7).
    components, effect, link
        The inputs.
    """

    y: np.ndarray
    schedule: Schedule
    effects: DrawnEffects
    delta_hat: np.ndarray
    components: VarianceComponents
    effect: float
    link: str

    @property
    def experiments(self) -> int:
        return self.y.shape[0]

    def to_frame(self, experiments=None) -> pd.DataFrame:
        """Tidy frame, one row per observation: ``experiment``, the schedule columns, ``value``.

        Parameters
        ----------
        experiments : int, sequence of int or None
            Which experiments to include (all by default).
        """
        index = np.arange(self.experiments) if experiments is None else np.atleast_1d(experiments)
        if index.dtype.kind not in "iu" or index.ndim != 1:
            raise TypeError(f"experiments={experiments!r}: expected an index or a sequence of indices (integers)")
        if index.size and (index.min() < -self.experiments or index.max() >= self.experiments):
            raise ValueError(f"experiments: expected indices below {self.experiments}")
        sched = self.schedule.to_frame()
        n = self.schedule.observations
        frame = pd.concat([sched] * index.size, ignore_index=True)
        frame.insert(0, "experiment", np.repeat(index % self.experiments, n))
        frame["value"] = self.y[index].reshape(-1)
        return frame


def _row_dot(matrix: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``matrix @ weights`` without BLAS.

    OpenBLAS starts spinning threads for a matrix-vector product; in each worker of a process pool
    they compete with the other workers for the cores and cancel the pool's speed-up (measured:
    no gain from 2 workers on 2 cores). ``einsum`` stays on one thread and costs ~1 ms per
    block, against ~20 ms to draw the block.
    """
    return np.einsum("ij,j->i", matrix, weights)


def _check_link(link: str) -> str:
    if link not in ("identity", "log"):
        raise ValueError(f"link={link!r}: expected 'identity' or 'log'")
    return link


def _resolve_schedule(design, requests, hosts, repetitions) -> Schedule:
    if isinstance(design, Schedule):
        if requests is not None or hosts is not None:
            raise ValueError("requests, hosts: give them with a design name, not with a Schedule")
        return design
    if requests is None or hosts is None:
        raise ValueError("requests, hosts: both are required with a design name")
    return build_schedule(design, requests=requests, hosts=hosts, repetitions=repetitions)


def check_components(components) -> VarianceComponents:
    """``components`` if it is a :class:`VarianceComponents`, else a TypeError naming the argument.

    Parameters
    ----------
    components : object
        What the caller passed as ``components``.
    """
    if not isinstance(components, VarianceComponents):
        raise TypeError(f"components: expected VarianceComponents, got {type(components).__name__}")
    return components


def _check_inputs(components, experiments, effect, sched: Schedule | None = None) -> tuple[int, float]:
    check_components(components)
    experiments = check_int("experiments", experiments)
    if sched is not None:  # y, the effects and the noise: about three values per observation and experiment
        check_allocation("experiments", experiments, 3 * 8.0 * experiments * sched.observations)
    return experiments, check_real("effect", effect)


def _draw_chunks(sched: Schedule, components: VarianceComponents, experiments: int, rng):
    """Yield ``(slice, DrawnEffects)`` blocks of at most CHUNK_EXPERIMENTS experiments.

    Within a block the stream is read in the order request, host, request_batch, host_batch, noise.
    """
    sigmas = components.sigmas
    for start in range(0, experiments, CHUNK_EXPERIMENTS):
        size = min(CHUNK_EXPERIMENTS, experiments - start)
        drawn = {name: sigmas[name] * rng.standard_normal((size, sched.levels[name][1])) for name in _EFFECTS}
        drawn["noise"] = sigmas["noise"] * rng.standard_normal((size, sched.observations))
        yield slice(start, start + size), DrawnEffects(**drawn)


def simulate(
    design,
    components: VarianceComponents,
    *,
    requests: int | None = None,
    hosts: int | None = None,
    repetitions: int = 1,
    experiments: int = 1,
    effect: float = 0.0,
    link: str = "identity",
    rng: Seed = None,
) -> Simulation:
    """Simulate benchmark experiments from the random-effects model (Eq. 3/4).

    Parameters
    ----------
    design : str or Schedule
        One of the four design names (see :func:`perfstudy.design.schedules.schedule`) or a custom schedule.
    components : VarianceComponents
        Sigmas and ``mu`` (e.g. ``PERFLAB_ENDPOINTS[1]``).
    requests, hosts, repetitions : int
        ``R`` per condition, ``H``, ``T`` (with a design name).
    experiments : int
        Independent experiments, the leading axis of the result.
    effect : float
        The additive treatment effect ``delta`` (multiplicative with ``link="log"``).
    link : {"identity", "log"}
        ``f`` of Eq. 3: ``y`` is the linear predictor, or its exponential.
    rng : None, int, SeedSequence or Generator
        Passed to ``numpy.random.default_rng``.

    Returns
    -------
    Simulation
        Every experiment draws its own request, host and batch effects and noise; there is no
        Python loop over experiments (blocks of ``CHUNK_EXPERIMENTS`` are drawn at once).

    Examples
    --------
    Two thousand A/A experiments of the request-balanced design; the spread of ``delta_hat``
    matches the closed form of :func:`perfstudy.design.standard_errors.standard_error` (0.106):

    >>> from perfstudy import PERFLAB_ENDPOINTS, simulate
    >>> sim = simulate("request_balanced", PERFLAB_ENDPOINTS[1], requests=64, hosts=8, experiments=2000, rng=0)
    >>> sim.delta_hat.shape, round(float(sim.delta_hat.std()), 2)
    ((2000,), 0.11)
    """
    link = _check_link(link)
    sched = _resolve_schedule(design, requests, hosts, repetitions)
    experiments, effect = _check_inputs(components, experiments, effect, sched)
    rng = np.random.default_rng(rng)

    n = sched.observations
    y = np.empty((experiments, n))
    blocks = {name: np.empty((experiments, sched.levels[name][1])) for name in _EFFECTS}
    noise = np.empty((experiments, n))
    base = components.mu + effect * sched.version
    for rows, drawn in _draw_chunks(sched, components, experiments, rng):
        linear = base + drawn.noise
        for name in _EFFECTS:
            codes = sched.levels[name][0]
            linear += np.take(getattr(drawn, name), codes, axis=1)
            blocks[name][rows] = getattr(drawn, name)
        noise[rows] = drawn.noise
        y[rows] = linear
    delta_hat = _row_dot(y, sched.contrast)
    if link == "log":
        np.exp(y, out=y)
    return Simulation(
        y=y,
        schedule=sched,
        effects=DrawnEffects(**blocks, noise=noise),
        delta_hat=delta_hat,
        components=components,
        effect=effect,
        link=link,
    )


def sample_delta_hat(
    design,
    components: VarianceComponents,
    *,
    requests: int | None = None,
    hosts: int | None = None,
    repetitions: int = 1,
    experiments: int = 1,
    effect: float = 0.0,
    rng: Seed = None,
) -> np.ndarray:
    """Draw ``delta_hat`` for many experiments without storing their observations.

    Draws exactly the same random effects and noise as :func:`simulate` with the same ``rng``
    (same order, same blocks), and reduces them through the schedule's contrast:
    ``delta_hat = delta + sum_k w_k @ effects_k + c @ noise``, where ``w_k`` are the level weights
    (sums of the contrast ``c`` over each level). Equal to ``simulate(...).delta_hat`` up to
    floating-point summation order, at a fraction of the memory.

    Parameters
    ----------
    design, components, requests, hosts, repetitions, experiments, effect, rng
        As in :func:`simulate` (the identity link only).

    Returns
    -------
    ndarray, shape (experiments,)
        Difference in means on the link scale.
    """
    sched = _resolve_schedule(design, requests, hosts, repetitions)
    experiments, effect = _check_inputs(components, experiments, effect)
    check_allocation("experiments", experiments, 8.0 * experiments)
    rng = np.random.default_rng(rng)
    out = np.empty(experiments)
    weights = sched.level_weights
    for rows, drawn in _draw_chunks(sched, components, experiments, rng):
        total = _row_dot(drawn.noise, sched.contrast)
        for name in _EFFECTS:
            total += _row_dot(getattr(drawn, name), weights[name])
        out[rows] = effect + total
    return out
