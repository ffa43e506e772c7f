"""A simulated server under load, with a known peak rate (Shivam et al., USENIX ATC 2008).

No public code or traces of the paper's workbench exist, so its policies are studied on this model:

- capacity ``mu`` from two factors, disks and daemons, combined harmonically,
  ``mu = 1 / (1 / (disk_rate disks) + 1 / (daemon_rate daemons))``: more disks help only with
  enough daemons to keep them busy (the interaction of Figure 2);
- open-queue mean response time ``R(lambda) = S + 1 / (mu - lambda)`` (service demand ``S``,
  M/M/1 queueing) below saturation; above it, a backlog that grows over the run:
  ``R = S + 1/mu + (lambda - mu) L / (2 mu)`` for a run of ``L`` seconds;
- trial-to-trial noise: the mean over a run of ``L`` seconds has a coefficient of variation
  ``sqrt(cv_floor^2 + min(b (1 + rho) / ((1 - rho)^2 lambda L), cv_max^2))`` (``b`` times the
  variance of a time average of an M/M/1 queue, capped, plus a floor for what a longer run cannot average out: state
  that differs between trials), so noise grows near saturation and shrinks with longer runs
  (section 3.2, Figures 4-5); in overload ``sqrt(cv_floor^2 + 1 / (lambda L))``;
- each trial costs its run length plus a fixed set-up time.

The true peak rate solves ``R(lambda*) = R*``: ``lambda* = mu - 1 / (R* - S)``. Any object with
``run(load, runlength, *, trials, rng)`` and ``saturation_response`` can stand in for it
(:func:`check_server`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from perfstudy._lib.checks import check_int, check_real
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed

__all__ = [
    "SimulatedServer",
    "check_server",
    "check_runlength",
    "MAX_TRIALS",
]

#: most trials at one load a call may ask for (a bound checked up front)
MAX_TRIALS = 100_000

#: the longest trial (s) and the highest load (requests/s) a simulated server accepts
MAX_RUNLENGTH = 1e7

MAX_LOAD = 1e12


@dataclass(frozen=True)
class SimulatedServer(Result):
    """A server under test with a known peak rate (see the module docstring for the model).

    Parameters
    ----------
    disks, daemons : int
        The factors of the response surface.
    disk_rate, daemon_rate : float
        Requests/s one disk, one daemon can serve.
    service_time : float
        ``S``, seconds.
    saturation_response : float
        ``R*``, seconds: the response time that defines saturation.
    cv_floor : float
        Trial-to-trial coefficient of variation no run length removes.
    cv_max : float
        Cap of the queueing part of the noise near saturation.
    burstiness : float
        Variance of a run's mean response relative to an M/M/1 queue with Poisson arrivals and
        exponential service (1). Real request streams and service times are burstier (seeks,
        caches, batching): a larger value moves the sweet spot of Figure 6 to longer runs. With the
        defaults it lies at 15 to 60 s; the paper's NFS server had it at a few minutes.
    setup : float
        Seconds of set-up per trial (restart, warm-up; counted in the cost).
    """

    disks: int = 4
    daemons: int = 16
    disk_rate: float = 100.0
    daemon_rate: float = 40.0
    service_time: float = 0.005
    saturation_response: float = 0.05
    cv_floor: float = 0.02
    cv_max: float = 0.5
    burstiness: float = 1.0
    setup: float = 120.0

    def __post_init__(self):
        check_int("disks", self.disks)
        check_int("daemons", self.daemons)
        for name in ("disk_rate", "daemon_rate", "service_time", "saturation_response", "cv_max"):
            check_real(name, getattr(self, name), positive=True)
        for name in ("cv_floor", "burstiness", "setup"):
            check_real(name, getattr(self, name), nonnegative=True)
        if not self.saturation_response > self.service_time:
            raise ValueError(
                f"saturation_response={self.saturation_response!r}, service_time={self.service_time!r}: "
                "expected saturation_response > service_time"
            )
        if not self.true_peak_rate > 0:
            raise ValueError(
                f"saturation_response={self.saturation_response!r}: the server never reaches it (its capacity, "
                f"{self.capacity:.3g} requests/s, is too low); expected a larger saturation_response"
            )

    @property
    def capacity(self) -> float:
        """``mu``, requests/s."""
        return 1.0 / (1.0 / (self.disk_rate * self.disks) + 1.0 / (self.daemon_rate * self.daemons))

    @property
    def true_peak_rate(self) -> float:
        """``lambda*`` with ``R(lambda*) = R*``."""
        return self.capacity - 1.0 / (self.saturation_response - self.service_time)

    def mean_response(self, load: float, runlength: float = 600.0) -> float:
        """Expected mean response time (s) at ``load`` requests/s over a run of ``runlength`` s.

        Parameters
        ----------
        load : float
            Offered load, requests/s.
        runlength : float
            Duration of the run, s.
        """
        load, runlength = _load_runlength(load, runlength, zero_load=True)
        mu = self.capacity
        if load < mu:
            return self.service_time + 1.0 / (mu - load)
        return self.service_time + 1.0 / mu + (load - mu) * runlength / (2.0 * mu)

    def noise_cv(self, load: float, runlength: float) -> float:
        """Coefficient of variation of one trial's mean response time.

        Below capacity the M/M/1 time-average term, capped at ``cv_max`` (a run cannot be noisier
        than its own backlog allows); in overload the backlog grows almost deterministically and
        only the arrival count varies, ``1 / sqrt(lambda L)``.

        Parameters
        ----------
        load, runlength : float
            As in :meth:`mean_response`.
        """
        load, runlength = _load_runlength(load, runlength)
        rho = load / self.capacity
        if rho >= 1:
            queueing = 1.0 / (load * runlength)
        else:
            queueing = min(self.burstiness * (1 + rho) / ((1 - rho) ** 2 * load * runlength), self.cv_max**2)
        return math.sqrt(self.cv_floor**2 + queueing)

    def run(self, load: float, runlength: float, *, trials: int = 1, rng: Seed = None) -> np.ndarray:
        """Mean response time of ``trials`` independent runs (lognormal around the expected mean).

        Parameters
        ----------
        load : float
            Arrival rate, requests/s.
        runlength : float
            Seconds per run.
        trials : int
            Independent runs.
        rng : None, int, SeedSequence or Generator
            A Generator is used as it is, so consecutive calls continue its stream.

        Returns
        -------
        ndarray, shape (trials,)
            Each run's mean response time, seconds.
        """
        load, runlength = _load_runlength(load, runlength)
        trials = check_int("trials", trials, maximum=MAX_TRIALS)
        rng = np.random.default_rng(rng)
        cv = self.noise_cv(load, runlength)
        sigma = math.sqrt(math.log1p(cv * cv))
        return self.mean_response(load, runlength) * np.exp(rng.normal(-sigma * sigma / 2, sigma, size=trials))


def check_runlength(name: str, runlength) -> float:
    """``runlength`` as a float: a positive duration in seconds of at most :data:`MAX_RUNLENGTH`.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    runlength : float
        What the caller passed.
    """
    runlength = check_real(name, runlength, positive=True)
    if runlength > MAX_RUNLENGTH:
        raise ValueError(f"{name}={runlength!r}: expected at most {MAX_RUNLENGTH:g} s")
    return runlength


def _load_runlength(load, runlength, zero_load: bool = False) -> tuple[float, float]:
    load = check_real("load", load, nonnegative=zero_load, positive=not zero_load)
    if load > MAX_LOAD:
        raise ValueError(f"load={load!r}: expected at most {MAX_LOAD:g} requests/s")
    return load, check_runlength("runlength", runlength)


def check_server(server) -> None:
    """TypeError unless ``server`` can be benchmarked: ``run(load, runlength, *, trials, rng)`` and
    ``saturation_response``, as :class:`SimulatedServer` has.

    Parameters
    ----------
    server : object
        What the caller passed as ``server``.
    """
    if not callable(getattr(server, "run", None)) or not hasattr(server, "saturation_response"):
        raise TypeError(
            f"server={server!r}: expected a server with run(load, runlength, *, trials, rng) and "
            "saturation_response, such as SimulatedServer()"
        )
