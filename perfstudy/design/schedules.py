"""Schedules: which request runs on which host, in which batch, under which version.

A schedule is the index structure of the random-effects model of Bakshy & Frachtenberg (WWW 2015),
Eq. 4: observation ``i`` has request ``r[i]``, host ``h[i]``, batch ``b[i]`` and condition ``D_i``.
This module builds the schedules of the four designs of section 4.2 (Table 2), generalised to
``R`` requests per condition, ``H`` hosts and ``T`` repetitions, and accepts any user schedule.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from perfstudy._lib.checks import check_allocation, check_choice, check_counts, check_int, check_real, check_version
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed

__all__ = [
    "DESIGNS",
    "BATCHES",
    "Schedule",
    "schedule",
    "pilot_schedule",
    "check_design",
    "check_hosts",
    "check_size",
    "BYTES_PER_OBSERVATION",
]

#: The four designs of section 4.2, in the order of the paper's Table 3.
DESIGNS: tuple[str, ...] = ("unbalanced", "request_balanced", "host_balanced", "fully_balanced")

#: Batches each design needs: single-batch designs split the hosts between the versions,
#: two-batch designs run both versions on every host, one after the other (section 4.2).
BATCHES: dict[str, int] = {
    "unbalanced": 1,
    "request_balanced": 1,
    "host_balanced": 2,
    "fully_balanced": 2,
}


def check_design(design: str) -> str:
    """Return ``design`` if it is one of :data:`DESIGNS`, else raise ``ValueError``.

    Parameters
    ----------
    design : str
    """
    return check_choice("design", design, DESIGNS)


#: bytes per observation of a schedule (request, host, batch, version, repetition ids and a value)
BYTES_PER_OBSERVATION = 48


def check_size(observations: float, **arguments) -> None:
    """Refuse a schedule whose ``observations`` would not fit in memory, naming the largest of the
    ``arguments`` that produced it (see :func:`perfstudy._lib.checks.check_allocation`).

    Parameters
    ----------
    observations : float
        Observations the schedule would hold.
    **arguments
        The sizes that produced it, by name (``requests=...``, ``repetitions=...``).
    """
    observations = check_real("observations", observations, nonnegative=True)
    name, value = max(arguments.items(), key=lambda item: item[1])
    check_allocation(name, value, BYTES_PER_OBSERVATION * observations, what=f"{observations:,.0f} observations")


def check_hosts(design: str, hosts, requests) -> None:
    """Raise ``ValueError`` if ``design`` cannot use ``hosts`` hosts with ``requests`` requests.

    Works elementwise on arrays. Single-batch designs give half the hosts to each version, so
    ``hosts`` must be even; every host must serve at least one request, so ``hosts / 2 <= requests``
    (single batch) or ``hosts <= requests`` (two batches).

    Parameters
    ----------
    design : str
        One of :data:`DESIGNS`.
    hosts, requests : int or array_like
        ``H`` and ``R``.
    """
    hosts = check_counts("hosts", hosts)
    requests = check_counts("requests", requests)
    if BATCHES[check_design(design)] == 1:
        if np.any(hosts % 2):
            raise ValueError(
                f"hosts={hosts.tolist()}: the {design} design gives half the hosts to each version, "
                "so hosts must be even (and at least 2)"
            )
        if np.any(hosts // 2 > requests):
            raise ValueError(
                f"hosts={hosts.tolist()}: the {design} design cannot use more than 2 * requests hosts "
                f"(requests={requests.tolist()}); some hosts would serve no request"
            )
    elif np.any(hosts > requests):
        raise ValueError(
            f"hosts={hosts.tolist()}: the {design} design cannot use more hosts than requests "
            f"(requests={requests.tolist()}); some hosts would serve no request"
        )


def _codes(*keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Integer codes 0..L-1 for the distinct tuples of ``keys`` (first-appearance order is not kept)."""
    stacked = np.stack(keys, axis=1)
    _, inverse = np.unique(stacked, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    return inverse.astype(np.intp), int(inverse.max()) + 1


@dataclass(frozen=True, eq=False)
class Schedule(Result):
    """Who runs what where: one entry per observation.

    Parameters
    ----------
    request, host, batch, version : array of int, shape (n,)
        Request id ``r[i]``, host id ``h[i]``, batch id ``b[i]`` and condition ``D_i`` (0 = control/A,
        1 = treatment/B) of each observation, as in Eq. 4.
    repetition : array of int, shape (n,), optional
        Repetition number of the observation within its request (0-based).
    design : str
        The design's name, or ``"custom"``.

    Notes
    -----
    Random-effect levels (Eq. 3): ``alpha`` per request, ``beta`` per host, ``eta`` per
    (host, batch), and ``gamma`` per (request, host, batch). The paper draws ``gamma`` "each time a
    service is initialized" (section 3.2.1), that is once per request and per host restart; this is
    the reading under which the request-balanced design keeps its ``sigma_gamma^2 / R`` term
    (section 4.2.1).
    """

    request: np.ndarray
    host: np.ndarray
    batch: np.ndarray
    version: np.ndarray
    repetition: np.ndarray | None = None
    design: str = "custom"

    def __post_init__(self) -> None:
        arrays = {}
        for name in ("request", "host", "batch", "version"):
            values = np.asarray(getattr(self, name))
            if values.dtype.kind == "f" and np.isfinite(values).all() and (values == np.floor(values)).all():
                values = values.astype(np.int64)  # integral floats, as check_int accepts them
            if values.ndim != 1 or values.size == 0:
                raise ValueError(f"{name}: expected a non-empty one-dimensional array of integers")
            if not np.issubdtype(values.dtype, np.integer):
                raise TypeError(f"{name}: expected integers, got dtype {values.dtype}")
            if values.min() < 0:
                raise ValueError(f"{name}: expected non-negative integer ids")
            arrays[name] = values.astype(np.intp)
        lengths = {name: a.size for name, a in arrays.items()}
        if len(set(lengths.values())) != 1:
            raise ValueError(f"request, host, batch, version: mismatched lengths {lengths}")
        arrays["version"] = check_version(arrays["version"])
        repetition = self.repetition
        if repetition is None:
            repetition = np.zeros(lengths["request"], dtype=np.intp)
        repetition = np.asarray(repetition, dtype=float)
        if repetition.shape != arrays["request"].shape:
            raise ValueError("repetition: expected the same length as request")
        if not (
            np.isfinite(repetition).all() and (repetition == np.floor(repetition)).all() and (repetition >= 0).all()
        ):
            raise ValueError("repetition: expected non-negative integer ids (no NaN)")
        repetition = repetition.astype(np.intp)
        if repetition.shape != arrays["request"].shape:
            raise ValueError("repetition: expected the same length as request")
        for name, values in arrays.items():
            values.setflags(write=False)
            object.__setattr__(self, name, values)
        repetition.setflags(write=False)
        object.__setattr__(self, "repetition", repetition)

    @property
    def observations(self) -> int:
        """Total number of observations (both conditions)."""
        return self.request.size

    @cached_property
    def observations_per_condition(self) -> tuple[int, int]:
        """``(N0, N1)``: observations under control and treatment."""
        n1 = int(self.version.sum())
        return self.observations - n1, n1

    @cached_property
    def contrast(self) -> np.ndarray:
        """Weights ``c`` with ``delta_hat = c @ y``: ``1/N1`` for treatment, ``-1/N0`` for control."""
        n0, n1 = self.observations_per_condition
        return np.where(self.version == 1, 1.0 / n1, -1.0 / n0)

    @cached_property
    def levels(self) -> dict[str, tuple[np.ndarray, int]]:
        """For each random effect of Eq. 3, the level code of every observation and the level count.

        Keys: ``"request"`` (alpha), ``"host"`` (beta), ``"request_batch"`` (gamma, per request,
        host and batch) and ``"host_batch"`` (eta, per host and batch).
        """
        return {
            "request": _codes(self.request),
            "host": _codes(self.host),
            "request_batch": _codes(self.request, self.host, self.batch),
            "host_batch": _codes(self.host, self.batch),
        }

    @cached_property
    def level_weights(self) -> dict[str, np.ndarray]:
        """Contrast weight of each level: ``w_l = sum of c_i over observations in level l``.

        ``delta_hat = delta + sum_k w_k @ effects_k + c @ noise`` for the additive model.
        """
        return {
            name: np.bincount(codes, weights=self.contrast, minlength=count)
            for name, (codes, count) in self.levels.items()
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per observation: ``request``, ``host``, ``batch``, ``version``, ``repetition``."""
        return pd.DataFrame(
            {
                "request": self.request,
                "host": self.host,
                "batch": self.batch,
                "version": self.version,
                "repetition": self.repetition,
            }
        )


def schedule(design: str, *, requests: int, hosts: int, repetitions: int = 1) -> Schedule:
    """Build the schedule of one of the four designs of section 4.2 (Table 2).

    Parameters
    ----------
    design : {"unbalanced", "request_balanced", "host_balanced", "fully_balanced"}
        - ``unbalanced`` ("live"): one batch; hosts ``0..H/2-1`` run the control and ``H/2..H-1``
          the treatment; each condition gets its own ``R`` requests.
        - ``request_balanced`` ("parallel"): one batch; the same ``R`` requests run under both
          versions, on a control host and on a treatment host.
        - ``host_balanced`` ("sequential"): two batches; every host runs the control in batch 0 and
          the treatment in batch 1, on different requests.
        - ``fully_balanced`` ("controlled"): two batches; the same request on the same host under
          both versions.
    requests : int
        ``R``, requests per condition.
    hosts : int
        ``H``, hosts in the experiment. Requests are dealt to a condition's hosts round-robin,
        so host loads are equal when ``R`` is a multiple of the hosts per condition.
    repetitions : int
        ``T``, repetitions of each request in each condition (``N = R T`` per condition).

    Returns
    -------
    Schedule
        Observations ordered by version, request and repetition. For ``R = H = 2``, ``T = 1`` it is
        Table 2 (with 0-based batches).
    """
    check_design(design)
    requests = check_int("requests", requests)
    hosts = check_int("hosts", hosts)
    repetitions = check_int("repetitions", repetitions)
    check_hosts(design, hosts, requests)
    check_size(2.0 * requests * repetitions, requests=requests, repetitions=repetitions)

    r = np.arange(requests)
    single_batch = BATCHES[design] == 1
    per_condition = hosts // 2 if single_batch else hosts
    host0 = r % per_condition
    host1 = host0 + (per_condition if single_batch else 0)
    same_requests = design in ("request_balanced", "fully_balanced")
    request1 = r if same_requests else r + requests
    batch1 = 0 if single_batch else 1

    def expand(values) -> np.ndarray:
        return np.repeat(np.broadcast_to(values, (requests,)), repetitions)

    return Schedule(
        request=np.concatenate([expand(r), expand(request1)]),
        host=np.concatenate([expand(host0), expand(host1)]),
        batch=np.concatenate([expand(0), expand(batch1)]),
        version=np.repeat([0, 1], requests * repetitions),
        repetition=np.tile(np.arange(repetitions), 2 * requests),
        design=design,
    )


def pilot_schedule(requests: int, hosts: int, *, batches: int = 2, repetitions: int = 1, rng: Seed = None) -> Schedule:
    """A pilot run for fitting variance components: every request in every batch under both versions,
    each time on a host drawn at random.

    The unbalanced layout of the REML speed benchmark (and of a pilot taken from a live fleet):
    request ``r`` runs ``repetitions`` times in each batch and version, on a host drawn uniformly
    from ``hosts``. Requests, hosts and batches are crossed, with no two terms of Eq. 3 confounded
    once ``requests`` is well above ``hosts``.

    Parameters
    ----------
    requests : int
        Distinct requests ``R``.
    hosts : int
        Hosts to draw from ``H`` (a host that is never drawn is simply absent).
    batches : int
        Service starts ``B`` (each draws new request x batch and host x batch effects).
    repetitions : int
        Repetitions of a request on its host in one batch and version.
    rng : None, int, SeedSequence or Generator
        Draws the hosts.

    Returns
    -------
    Schedule
        ``R * B * 2 * T`` observations, ``design="pilot"``, ordered by request, batch, version.
    """
    requests = check_int("requests", requests)
    hosts = check_int("hosts", hosts)
    batches = check_int("batches", batches)
    repetitions = check_int("repetitions", repetitions)
    check_size(2.0 * requests * batches * repetitions, requests=requests, batches=batches, repetitions=repetitions)
    rng = np.random.default_rng(rng)
    request, batch, version = (
        a.ravel() for a in np.meshgrid(np.arange(requests), np.arange(batches), [0, 1], indexing="ij")
    )
    host = rng.integers(hosts, size=request.size)
    return Schedule(
        request=np.repeat(request, repetitions),
        host=np.repeat(host, repetitions),
        batch=np.repeat(batch, repetitions),
        version=np.repeat(version, repetitions),
        repetition=np.tile(np.arange(repetitions), request.size),
        design="pilot",
    )
