"""Standard errors of the four benchmark designs, and what a budget buys.

Bakshy & Frachtenberg, WWW 2015, section 4: duplication coefficients (section 4.1), the variance
of the difference in means for any schedule (Eq. 5), the closed-form standard errors of the four
designs (section 4.2.1), and the sampling-on-a-budget trade-off of section 3.1.2 extended to the
designs' batches and hosts.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfstudy._lib.checks import check_counts, check_int, check_names, check_real, check_text
from perfstudy._lib.result import Result
from perfstudy.design.model import VarianceComponents, check_components
from perfstudy.design.schedules import (
    BATCHES,
    DESIGNS,
    Schedule,
    check_design,
    check_hosts,
    schedule,
)

__all__ = [
    "DESIGNS",
    "Schedule",
    "schedule",
    "DuplicationCoefficients",
    "duplication_coefficients",
    "variance_from_schedule",
    "standard_error",
    "CostModel",
    "Allocation",
    "AllocationResult",
    "optimal_allocation",
    "DesignComparison",
    "compare_designs",
]

_FACTORS = ("request", "host", "request_batch", "host_batch")
#: largest number of repetitions :func:`optimal_allocation` searches (the bound of its grid)
MAX_REPETITIONS = 100_000


@dataclass(frozen=True)
class DuplicationCoefficients(Result):
    """Duplication coefficients of section 4.1, per random effect.

    ``nu[k] = (nu_k^(0), nu_k^(1))`` with ``nu_k^(d) = sum_l (n_l^(d))^2 / N`` (average number of
    observations sharing a level of effect ``k`` within condition ``d``), and
    ``omega[k] = sum_l n_l^(0) n_l^(1) / N`` (between-condition duplication). The paper's
    ``nu_R, nu_H, omega_R, omega_H`` are ``k = "request"`` and ``"host"``; the batch-level effects
    (``"request_batch"``, ``"host_batch"``) get their own coefficients here so that Eq. 5 holds for
    any schedule. ``N`` is the number of observations per condition.

    Attributes
    ----------
    observations_per_condition : int
        ``N``.
    nu : dict of str to (float, float)
        ``nu_k^(0)``, ``nu_k^(1)`` per effect ``k``.
    omega : dict of str to float
        ``omega_k`` per effect ``k``.
    """

    observations_per_condition: int
    nu: dict[str, tuple[float, float]]
    omega: dict[str, float]

    @property
    def nu_R(self) -> float:
        """``nu_R`` of the control (Eq. 5 assumes both conditions share it)."""
        return self.nu["request"][0]

    @property
    def nu_H(self) -> float:
        return self.nu["host"][0]

    @property
    def omega_R(self) -> float:
        return self.omega["request"]

    @property
    def omega_H(self) -> float:
        return self.omega["host"]

    def to_frame(self) -> pd.DataFrame:
        """One row per effect: ``nu_control``, ``nu_treatment``, ``omega``."""
        return pd.DataFrame(
            {
                "effect": list(self.nu),
                "nu_control": [v[0] for v in self.nu.values()],
                "nu_treatment": [v[1] for v in self.nu.values()],
                "omega": [self.omega[k] for k in self.nu],
            }
        )


def _per_condition(sched: Schedule) -> int:
    n0, n1 = sched.observations_per_condition
    if n0 != n1:
        raise ValueError(f"schedule: Eq. 5 needs the same number of observations in both conditions, got {n0} and {n1}")
    return n0


def duplication_coefficients(sched: Schedule) -> DuplicationCoefficients:
    """Duplication coefficients ``nu`` and ``omega`` of a schedule (section 4.1).

    Parameters
    ----------
    sched : Schedule
        Any schedule (:func:`perfstudy.design.schedules.schedule`), not only the four designs.
    """
    if not isinstance(sched, Schedule):
        raise TypeError(f"schedule: expected a Schedule, got {type(sched).__name__}")
    n = _per_condition(sched)
    nu, omega = {}, {}
    for name in _FACTORS:
        codes, count = sched.levels[name]
        counts = [np.bincount(codes[sched.version == d], minlength=count).astype(float) for d in (0, 1)]
        nu[name] = (float(counts[0] @ counts[0]) / n, float(counts[1] @ counts[1]) / n)
        omega[name] = float(counts[0] @ counts[1]) / n
    return DuplicationCoefficients(observations_per_condition=n, nu=nu, omega=omega)


def variance_from_schedule(sched: Schedule, components: VarianceComponents) -> float:
    """Variance of ``delta_hat`` for any schedule under the sharp null (Eq. 5).

    ``V = (1/N) sum_k sigma_k^2 (nu_k^(0) + nu_k^(1) - 2 omega_k) + 2 sigma_eps^2 / N``

    With equal sigmas in both conditions and perfectly correlated effects (the sharp null of
    section 4.2, so ``sigma_alpha(0),alpha(1) = sigma_alpha^2``), this is Eq. 5. The paper writes
    the batch terms as ``2 nu_R sigma_gamma^2`` and ``2 nu_H sigma_eta^2``; that is the special case
    where each request (host) runs in one batch per condition and no batch is shared across
    conditions, which holds for all four designs. Here they carry their own coefficients, so the
    result is exact for every schedule.

    Parameters
    ----------
    sched : Schedule
        Any schedule.
    components : VarianceComponents
        The five sigmas.
    """
    check_components(components)
    dup = duplication_coefficients(sched)
    sigmas = components.sigmas
    total = sum(sigmas[k] ** 2 * (dup.nu[k][0] + dup.nu[k][1] - 2.0 * dup.omega[k]) for k in _FACTORS)
    total += 2.0 * sigmas["noise"] ** 2
    return total / dup.observations_per_condition


def _variance_terms(design: str, components: VarianceComponents, hosts):
    """``(a, b, c)`` with ``V = 2 (a / R + b + c / (R T))`` for a design (section 4.2.1)."""
    s = {k: v**2 for k, v in components.sigmas.items()}
    hosts = np.asarray(hosts, dtype=float)
    request_term = {
        "unbalanced": s["request"] + s["request_batch"],
        "request_balanced": s["request_batch"],
        "host_balanced": s["request"] + s["request_batch"],
        "fully_balanced": s["request_batch"],
    }[design]
    host_term = {
        "unbalanced": 2.0 / hosts * (s["host"] + s["host_batch"]),
        "request_balanced": 2.0 / hosts * (s["host"] + s["host_batch"]),
        "host_balanced": s["host_batch"] / hosts,
        "fully_balanced": s["host_batch"] / hosts,
    }[design]
    return request_term, host_term, s["noise"]


def standard_error(design: str, components: VarianceComponents, *, requests, hosts, repetitions=1):
    """Closed-form standard error of ``delta_hat`` for one of the four designs (section 4.2.1).

    - unbalanced:       ``sqrt(2 ((s_a^2 + s_g^2)/R + 2/H (s_b^2 + s_e^2) + s_eps^2/(R T)))``
    - request balanced: ``sqrt(2 (s_g^2/R + 2/H (s_b^2 + s_e^2) + s_eps^2/(R T)))``
    - host balanced:    ``sqrt(2 ((s_a^2 + s_g^2)/R + s_e^2/H + s_eps^2/(R T)))``
    - fully balanced:   ``sqrt(2 (s_g^2/R + s_e^2/H + s_eps^2/(R T)))``

    (``s_a, s_b, s_g, s_e`` are sigma_alpha, beta, gamma, eta.) These assume equal host loads, i.e.
    ``R`` a multiple of the hosts per condition; :func:`variance_from_schedule` is exact otherwise.
    Broadcasts over arrays of ``requests``, ``hosts`` and ``repetitions``.

    Parameters
    ----------
    design : {"unbalanced", "request_balanced", "host_balanced", "fully_balanced"}
        The design.
    components : VarianceComponents
        The sigmas of Eq. 3.
    requests : int or array
        ``R``, requests per condition.
    hosts : int or array
        ``H``, hosts in all.
    repetitions : int or array
        ``T``, repetitions of each request per batch.

    Examples
    --------
    Endpoint 1 of Table 1, 16 hosts, 512 requests, T = 1 (Table 3's "SE" column: 0.10, 0.07, 0.07, 0.03):

    >>> from perfstudy import DESIGNS, PERFLAB_ENDPOINTS, standard_error
    >>> [round(standard_error(d, PERFLAB_ENDPOINTS[1], requests=512, hosts=16), 3) for d in DESIGNS]
    [0.097, 0.073, 0.07, 0.03]
    """
    check_design(design)
    check_components(components)
    arrays = {}
    for name, value in (("requests", requests), ("hosts", hosts), ("repetitions", repetitions)):
        arrays[name] = check_counts(name, value).astype(float)
    check_hosts(design, arrays["hosts"].astype(int), arrays["requests"].astype(int))
    a, b, c = _variance_terms(design, components, arrays["hosts"])
    r, t = arrays["requests"], arrays["repetitions"]
    se = np.sqrt(2.0 * (a / r + b + c / (r * t)))
    return float(se) if se.ndim == 0 else se


@dataclass(frozen=True)
class CostModel(Result):
    """Costs of a benchmark, in any one unit (seconds, host-hours, dollars).

    Section 3.1.2 prices one condition as ``S_f + R (C_f + T C_m) <= B``. Extended to the designs:

        cost = batches * setup + hosts * host + 2 R (request + T * repetition)

    Parameters
    ----------
    setup : float
        ``S_f``, setting up one batch (restarts, cache flushes, warm-up).
    request : float
        ``C_f``, the fixed cost of benchmarking one request in one condition.
    repetition : float
        ``C_m``, the marginal cost of one more repetition (one observation).
    host : float
        Cost of one host for the experiment.
    """

    setup: float
    request: float
    repetition: float
    host: float = 0.0

    def __post_init__(self) -> None:
        for name in ("setup", "request", "repetition", "host"):
            object.__setattr__(self, name, check_real(name, getattr(self, name), nonnegative=True, what="cost"))
        if self.request + self.repetition <= 0:
            raise ValueError("request, repetition: at least one must be positive, else requests are free")

    def cost(self, design: str, *, requests, hosts, repetitions=1):
        """Total cost of running ``design`` with ``R``, ``H``, ``T`` (broadcasts).

        Parameters
        ----------
        design : str
            One of :data:`perfstudy.design.schedules.DESIGNS` (each batch pays the setup once).
        requests, hosts : int or array_like
            ``R`` and ``H``.
        repetitions : int or array_like
            ``T``.
        """
        check_design(design)
        requests, hosts, repetitions = (
            check_counts(name, v).astype(float)
            for name, v in (("requests", requests), ("hosts", hosts), ("repetitions", repetitions))
        )
        total = (
            BATCHES[design] * self.setup
            + hosts * self.host
            + 2.0 * requests * (self.request + repetitions * self.repetition)
        )
        return float(total) if total.ndim == 0 else total


@dataclass(frozen=True)
class Allocation(Result):
    """The best ``(R, T, H)`` found for one design; ``feasible`` is False if none qualifies.

    Attributes
    ----------
    design : str
        One of :data:`perfstudy.design.schedules.DESIGNS`.
    feasible : bool
        Whether any allocation within the bounds meets the target.
    requests, repetitions, hosts : int or None
        ``R``, ``T`` and ``H`` of the cheapest allocation (None if not feasible).
    cost : float
        Its cost under the :class:`CostModel` (inf if not feasible).
    standard_error : float
        Its standard error of ``delta_hat`` (Eq. 5).
    """

    design: str
    feasible: bool
    requests: int | None
    repetitions: int | None
    hosts: int | None
    cost: float
    standard_error: float


@dataclass(frozen=True)
class AllocationResult(Result):
    """What a budget buys, or what a target standard error costs, for each design.

    Attributes
    ----------
    allocations : tuple of Allocation
        Per design: with a ``target_se``, the cheapest allocation that meets it (within ``budget`` if
        one is given); with only a ``budget``, the allocation with the smallest SE.
    best : str or None
        With a budget only: the design with the smallest SE. With a target: the cheapest design
        that meets it. None if no design qualifies.
    budget, target_se : float or None
        The constraints the search was given.
    """

    allocations: tuple[Allocation, ...]
    best: str | None
    budget: float | None
    target_se: float | None

    def __getitem__(self, design: str) -> Allocation:
        for allocation in self.allocations:
            if allocation.design == design:
                return allocation
        raise KeyError(design)

    def to_frame(self) -> pd.DataFrame:
        frame = pd.DataFrame([a.__dict__ for a in self.allocations])
        frame["best"] = frame["design"] == self.best
        return frame


def _candidate_hosts(design: str, hosts) -> np.ndarray:
    values = np.atleast_1d(np.asarray(hosts))
    if values.size == 0 or not np.issubdtype(values.dtype, np.integer) or np.any(values < 1):
        raise ValueError(f"hosts={hosts!r}: expected a positive integer or a sequence of them")
    if BATCHES[design] == 1:
        values = values[values % 2 == 0]
    return np.unique(values)


def _smallest_cost(design: str, costs: CostModel, hosts) -> float:
    """Cost of the smallest experiment a design can run: fewest hosts, one request per host, T = 1."""
    h = int(_candidate_hosts(design, hosts).min())
    r = h // 2 if BATCHES[design] == 1 else h
    return costs.cost(design, requests=r, hosts=h, repetitions=1)


def optimal_allocation(
    components: VarianceComponents,
    costs: CostModel,
    *,
    budget: float | None = None,
    target_se: float | None = None,
    hosts=16,
    max_repetitions: int = 64,
    designs=DESIGNS,
) -> AllocationResult:
    """Requests, repetitions and hosts that minimise each design's SE, or its cost.

    Section 3.1.2 minimises Eq. 1 subject to ``S_f + R (C_f + T C_m) <= B``; here the SE is that of
    each design (:func:`standard_error`) and the cost that of :class:`CostModel` (batches, hosts,
    both conditions). The search is exact over ``T in 1..max_repetitions`` and the candidate
    ``hosts``: for each ``(T, H)``, the SE decreases in ``R`` and the cost increases, so the best
    ``R`` is the largest affordable one (for a budget) or the smallest that meets the target
    (solved in closed form from ``V = 2 (a/R + b + c/(R T))``).

    Parameters
    ----------
    components : VarianceComponents
    costs : CostModel
    budget : float, optional
        ``B``. With no ``target_se``, minimise each design's SE within it.
    target_se : float, optional
        Find each design's cheapest allocation with SE <= target (within ``budget`` if given) and
        the cheapest design overall.
    hosts : int or sequence of int
        Host counts to consider (odd counts are skipped for single-batch designs).
    max_repetitions : int
    designs : sequence of str

    Raises
    ------
    ValueError
        If neither ``budget`` nor ``target_se`` is given, or if the budget cannot buy one request
        under any design.
    """
    check_components(components)
    if not isinstance(costs, CostModel):
        raise TypeError(f"costs: expected CostModel, got {type(costs).__name__}")
    if budget is None and target_se is None:
        raise ValueError("budget, target_se: give at least one")
    if budget is not None:
        budget = check_real("budget", budget, positive=True)
    if target_se is not None:
        target_se = check_real("target_se", target_se, positive=True)
    max_repetitions = check_int("max_repetitions", max_repetitions, maximum=MAX_REPETITIONS)
    designs = check_names("designs", designs, DESIGNS)

    repetitions = np.arange(1, max_repetitions + 1, dtype=float)
    allocations = []
    for design in designs:
        host_values = _candidate_hosts(design, hosts)
        if host_values.size == 0:
            raise ValueError(f"hosts={hosts!r}: the {design} design needs an even number of hosts")
        t, h = (a.ravel() for a in np.meshgrid(repetitions, host_values.astype(float)))
        min_requests = h / 2 if BATCHES[design] == 1 else h
        per_request = 2.0 * (costs.request + t * costs.repetition)
        fixed = BATCHES[design] * costs.setup + h * costs.host
        if budget is not None:
            affordable = np.floor((budget - fixed) / per_request + 1e-12)
        else:
            affordable = np.full_like(t, np.inf)
        a, b, c = _variance_terms(design, components, h)
        if target_se is not None:
            with np.errstate(over="ignore"):  # a huge target: every allocation meets it
                slack = np.square(np.float64(target_se)) / 2.0 - b
            with np.errstate(divide="ignore", invalid="ignore"):
                needed = np.where(slack > 0, np.ceil((a + c / t) / slack - 1e-9), np.inf)
            r = np.maximum(needed, min_requests)
        else:
            r = affordable
        ok = np.isfinite(r) & (r >= min_requests) & (r <= affordable)
        if not ok.any():
            allocations.append(Allocation(design, False, None, None, None, math.nan, math.nan))
            continue
        r_ok = np.where(ok, r, 1.0)
        se = np.sqrt(2.0 * (a / r_ok + b + c / (r_ok * t)))
        cost = fixed + per_request * r_ok
        objective = np.where(ok, cost if target_se is not None else se, np.inf)
        i = int(np.argmin(objective))
        allocations.append(
            Allocation(
                design=design,
                feasible=True,
                requests=int(r_ok[i]),
                repetitions=int(t[i]),
                hosts=int(h[i]),
                cost=float(cost[i]),
                standard_error=float(se[i]),
            )
        )

    feasible = [a for a in allocations if a.feasible]
    if not feasible and target_se is None:
        cheapest = min(_smallest_cost(d, costs, hosts) for d in designs)
        raise ValueError(
            f"budget={budget!r}: cannot buy one request under any design; the cheapest "
            f"experiment considered costs {cheapest:g}"
        )
    if target_se is not None:
        best = min(feasible, key=lambda a: a.cost).design if feasible else None
    else:
        best = min(feasible, key=lambda a: a.standard_error).design
    return AllocationResult(tuple(allocations), best, budget, target_se)


@dataclass(frozen=True)
class DesignComparison(Result):
    """The four designs at one ``(R, H, T)``: SE, cost, and which meet a target SE.

    Attributes
    ----------
    standard_errors, costs : dict
        Per design (section 4.2.1 closed forms; :class:`CostModel`).
    target_se : float or None
    cheapest : str or None
        The cheapest design at these sizes whose SE meets ``target_se``.
    allocation : AllocationResult or None
        With a target: each design's cheapest ``(R, T)`` at these hosts that meets it.
    requests, hosts, repetitions : int
        ``R``, ``H`` and ``T`` of the comparison.
    """

    requests: int
    hosts: int
    repetitions: int
    standard_errors: dict
    costs: dict
    target_se: float | None
    cheapest: str | None
    allocation: AllocationResult | None

    def to_frame(self) -> pd.DataFrame:
        frame = pd.DataFrame(
            {
                "design": list(self.standard_errors),
                "standard_error": list(self.standard_errors.values()),
                "cost": [self.costs[d] for d in self.standard_errors],
            }
        )
        if self.target_se is not None:
            frame["meets_target"] = frame["standard_error"] <= self.target_se
        return frame

    def _repr_html_(self) -> str:
        return self.to_html()

    def to_html(self, cost_unit: str | None = None) -> str:
        """Each design's SE and cost, the cheapest that meets the target in bold, and the cheapest
        allocation that meets it with these hosts.

        Parameters
        ----------
        cost_unit : str, optional
            The costs' unit (:class:`CostModel` takes any one), shown in the cost column's header and
            after the allocation's cost.
        """
        if cost_unit is not None:
            check_text("cost_unit", cost_unit)
            if not cost_unit.strip():
                raise ValueError("cost_unit='': expected a unit, e.g. 's' or 'USD', or None")
        unit = "" if cost_unit is None else html.escape(cost_unit)
        rows = []
        for design, se in self.standard_errors.items():
            meets = self.target_se is not None and se <= self.target_se
            style = ' style="font-weight:bold"' if design == self.cheapest else ""
            rows.append(
                f"<tr{style}><td>{html.escape(design.replace('_', ' '))}</td><td>{se:.4f}</td>"
                f"<td>{self.costs[design]:,.0f}</td><td>{'yes' if meets else 'no'}</td></tr>"
            )
        head = f"<tr><th>design</th><th>SE</th><th>cost{f' ({unit})' if unit else ''}</th><th>meets target</th></tr>"
        text = [f"<table>{head}{''.join(rows)}</table>"]
        if self.target_se is not None:
            if self.cheapest:
                text.append(
                    f"<p>Cheapest design meeting SE &le; {self.target_se:g} at these sizes: "
                    f"<b>{self.cheapest.replace('_', ' ')}</b>.</p>"
                )
            else:
                text.append(f"<p>No design meets SE &le; {self.target_se:g} at these sizes.</p>")
            if self.allocation is not None and self.allocation.best:
                best = self.allocation[self.allocation.best]
                text.append(
                    f"<p>Cheapest way to meet it with {self.hosts} hosts: "
                    f"<b>{best.design.replace('_', ' ')}</b>, R = {best.requests}, T = {best.repetitions}, "
                    f"cost {best.cost:,.0f}{f' {unit}' if unit else ''} (SE {best.standard_error:.4f}).</p>"
                )
        return "".join(text)


def compare_designs(
    components: VarianceComponents,
    *,
    requests: int,
    hosts: int,
    repetitions: int = 1,
    costs: CostModel | None = None,
    target_se: float | None = None,
    max_repetitions: int = 64,
) -> DesignComparison:
    """Compare the four designs at the same requests, hosts and repetitions.

    With ``costs`` and ``target_se``, also the cheapest design meeting the target at these sizes
    and, through :func:`optimal_allocation`, the cheapest allocation of each design at ``hosts``.
    This is what the design explorer widget shows.

    Parameters
    ----------
    components : VarianceComponents
        The five sigmas (Eq. 3).
    requests, hosts : int
        ``R`` and ``H``; ``hosts`` must suit every design (see :func:`perfstudy.design.schedules.check_hosts`).
    repetitions : int
        ``T``.
    costs : CostModel, optional
        Prices of setup, requests, repetitions and hosts; with ``target_se``, enables the cost columns.
    target_se : float, optional
        The standard error to reach.
    max_repetitions : int
        Largest ``T`` the allocation search tries.
    """
    requests, hosts = check_int("requests", requests), check_int("hosts", hosts)
    repetitions = check_int("repetitions", repetitions)
    if costs is not None and not isinstance(costs, CostModel):
        raise TypeError(f"costs: expected a CostModel or None, got {type(costs).__name__}")
    if target_se is not None:
        target_se = check_real("target_se", target_se, positive=True)
    max_repetitions = check_int("max_repetitions", max_repetitions, maximum=MAX_REPETITIONS)
    ses = {d: standard_error(d, components, requests=requests, hosts=hosts, repetitions=repetitions) for d in DESIGNS}
    cost = {
        d: (costs.cost(d, requests=requests, hosts=hosts, repetitions=repetitions) if costs else math.nan)
        for d in DESIGNS
    }
    cheapest, allocation = None, None
    if target_se is not None:
        meeting = [d for d in DESIGNS if ses[d] <= target_se]
        if meeting:
            cheapest = min(meeting, key=lambda d: (cost[d] if costs else 0.0, ses[d]))
        if costs is not None:
            allocation = optimal_allocation(
                components, costs, target_se=target_se, hosts=hosts, max_repetitions=max_repetitions
            )
    return DesignComparison(int(requests), int(hosts), int(repetitions), ses, cost, target_se, cheapest, allocation)
