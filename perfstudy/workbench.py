"""A simulated server workbench and the peak-rate search of Shivam et al. (USENIX ATC 2008).

"Cutting Corners: Workbench Automation for Server Benchmarking". The *peak rate* of a server is
the highest arrival rate whose mean response time stays below a saturation threshold ``R*``; the
*peak-rate region* is ``R* (1 +- w)`` (Table 2's width ``w``). Algorithm 2 runs two trials at a
test load, adds trials only while the confidence interval of the mean response time overlaps the
region, and stops at a load whose interval is both inside the region and accurate enough. Load
pickers: Linear, Binsearch (Algorithm 3) and model-guided (Algorithm 4); seeding from the nearest
sample (section 3.7); response-surface mapping with a D-optimal subset of samples (section 4).

The simulated server (no public code or traces exist, so the policies are studied here):

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

The true peak rate solves ``R(lambda*) = R*``: ``lambda* = mu - 1 / (R* - S)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from perfstudy._checks import check_bool, check_choice, check_fraction, check_int, check_real, check_sample

#: most trials at one load, and most test loads, a search may be asked for (bounds checked up front)
MAX_TRIALS = 100_000
MAX_LOADS = 100_000
#: the longest trial (s) and the highest load (requests/s) a simulated server accepts
MAX_RUNLENGTH = 1e7
MAX_LOAD = 1e12
#: most random starts of the D-optimal exchange
MAX_STARTS = 10_000

__all__ = [
    "SimulatedServer",
    "PeakSearch",
    "find_peak_rate",
    "trials_needed",
    "Surface",
    "map_response_surface",
    "d_optimal",
    "quadratic_design",
    "fit_quadratic_surface",
    "QuadraticSurface",
    "POLICIES",
]

POLICIES = ("binsearch", "linear", "model", "strawman")


@dataclass(frozen=True)
class SimulatedServer:
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

    def run(self, load: float, runlength: float, *, trials: int = 1, rng=None) -> np.ndarray:
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


def _load_runlength(load, runlength, zero_load: bool = False) -> tuple[float, float]:
    load = check_real("load", load, nonnegative=zero_load, positive=not zero_load)
    runlength = check_real("runlength", runlength, positive=True)
    if load > MAX_LOAD:
        raise ValueError(f"load={load!r}: expected at most {MAX_LOAD:g} requests/s")
    if runlength > MAX_RUNLENGTH:
        raise ValueError(f"runlength={runlength!r}: expected at most {MAX_RUNLENGTH:g} s")
    return load, runlength


def _interval(values: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """Mean and the Student-t interval at ``confidence`` (t for few trials, section 2.1)."""
    n = values.size
    mean = float(values.mean())
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1) * values.std(ddof=1) / math.sqrt(n))
    return mean, mean - half, mean + half


@dataclass(frozen=True, eq=False)
class PeakSearch:
    """Outcome of :func:`find_peak_rate`.

    Attributes
    ----------
    peak_rate : float or None
        The load reported as the peak rate (None if not converged).
    converged : bool
    reason : str
    cost : float
        Benchmarking time, seconds (run lengths plus set-up).
    trials : DataFrame
        One row per trial: ``load``, ``trial``, ``response``, ``elapsed`` (cumulative cost after it).
    loads : DataFrame
        One row per test load: ``load``, ``trials``, ``mean``, ``low``, ``high`` (95%), ``verdict``
        (below, above, peak, undecided).
    policy : str
        The load picker that ran.
    """

    peak_rate: float | None
    converged: bool
    reason: str
    cost: float
    trials: pd.DataFrame
    loads: pd.DataFrame
    policy: str = field(default="binsearch")


def find_peak_rate(
    server: SimulatedServer,
    *,
    policy: str = "binsearch",
    seed_load: float | None = None,
    target_accuracy: float = 0.10,
    confidence: float = 0.95,
    region_width: float = 0.10,
    runlength: float = 300.0,
    increment: float | None = None,
    max_trials: int = 30,
    max_loads: int = 60,
    max_load: float | None = None,
    strawman_trials: int = 5,
    strawman_runlength: float = 600.0,
    rng=None,
) -> PeakSearch:
    """Algorithm 2: search for the peak rate at a target confidence and accuracy.

    At each test load: two trials; a 95% Student-t interval of the mean response time. If it misses
    the peak-rate region ``R* (1 +- region_width)``, the load is below or above the peak and the
    load picker moves on. If it overlaps, trials are added until the interval *at the target
    confidence* has ``(hi - lo) / (hi + lo) <= target_accuracy`` (accuracy ``1 - (hi-lo)/(hi+lo)``
    of at least ``1 - target_accuracy``); the load is the peak rate if the mean then lies in the
    region, otherwise it is classed below or above by its mean. ``max_trials`` per load bounds it.

    Parameters
    ----------
    server : SimulatedServer
        The system under test (anything with ``run(load, runlength, *, trials, rng)`` and
        ``saturation_response``, ``R*``).
    policy : {"binsearch", "linear", "model", "strawman"}
        Load pickers of section 3.5-3.6; ``"strawman"`` is the fixed-step scan of section 3.1
        (``strawman_trials`` trials of ``strawman_runlength`` s per load, no adaptation; its peak
        is the last load before one whose mean response exceeds ``R*``).
    seed_load : float, optional
        First test load in requests/s (default 10).
    increment : float
        Linear's and strawman's step (default the seed load).
    max_load : float
        Loads above it are not tried (default 1e6): if the server has not saturated there the
        search reports ``converged=False``.
    target_accuracy : float
        As described above.
    confidence : float
        Of the interval at the peak.
    region_width : float
        Half-width of the peak-rate region, relative to ``R*``.
    runlength : float
        Duration of one trial, s.
    max_trials : int
        Trials per load at most.
    max_loads : int
        Test loads at most.
    strawman_trials, strawman_runlength
        The strawman's fixed trials per load and their duration.
    rng : None, int or Generator
        Seed of the trials.

    Raises
    ------
    ValueError
        ``target_accuracy``, ``confidence`` or ``region_width`` outside (0, 1); an unknown policy.

    Examples
    --------
    >>> from perfstudy.workbench import SimulatedServer, find_peak_rate
    >>> server = SimulatedServer()
    >>> search = find_peak_rate(server, rng=0)
    >>> search.converged, round(server.true_peak_rate, 1), search.peak_rate
    (True, 223.9, 225.0)
    """
    _check_server(server)
    target_accuracy = check_fraction("target_accuracy", target_accuracy)
    confidence = check_fraction("confidence", confidence)
    region_width = check_fraction("region_width", region_width)
    check_choice("policy", policy, POLICIES)
    max_trials = check_int("max_trials", max_trials, minimum=2, maximum=MAX_TRIALS)
    max_loads = check_int("max_loads", max_loads, maximum=MAX_LOADS)
    strawman_trials = check_int("strawman_trials", strawman_trials, minimum=2, maximum=MAX_TRIALS)
    strawman_runlength = check_real("strawman_runlength", strawman_runlength, positive=True)
    _, runlength = _load_runlength(1.0, runlength)
    _, strawman_runlength = _load_runlength(1.0, strawman_runlength)
    rng = np.random.default_rng(rng)
    load = 10.0 if seed_load is None else check_real("seed_load", seed_load, positive=True)
    step = load if increment is None else check_real("increment", increment, positive=True)
    ceiling = 1e6 if max_load is None else check_real("max_load", max_load, positive=True)
    target = server.saturation_response
    region = (target * (1 - region_width), target * (1 + region_width))
    trial_rows, load_rows = [], []
    cost = 0.0
    below, above = [], []  # loads judged below / above the peak
    history = []  # (load, mean response) for the model-guided picker

    trials_at: dict[float, int] = {}

    def measure(at: float, count: int, length: float) -> np.ndarray:
        nonlocal cost
        values = server.run(at, length, trials=count, rng=rng)
        for value in values:
            cost += length + server.setup
            trial_rows.append(dict(load=at, trial=trials_at.get(at, 0), response=value, elapsed=cost))
            trials_at[at] = trials_at.get(at, 0) + 1
        return values

    def finish(peak: float | None, reason: str) -> PeakSearch:
        return PeakSearch(
            peak, peak is not None, reason, cost, pd.DataFrame(trial_rows), pd.DataFrame(load_rows), policy
        )

    if policy == "strawman":
        previous = None
        for _ in range(max_loads):
            if load > ceiling:
                break
            values = measure(load, strawman_trials, strawman_runlength)
            mean, low, high = _interval(values, 0.95)
            saturated = mean > target
            load_rows.append(
                dict(
                    load=load,
                    trials=values.size,
                    mean=mean,
                    low=low,
                    high=high,
                    verdict="above" if saturated else "below",
                )
            )
            if saturated:
                return finish(previous, "saturated" if previous is not None else "saturated at the first load")
            previous, load = load, load + step
        return finish(None, f"no saturation up to max_load={ceiling:g}")

    for _ in range(max_loads):
        if load > ceiling:
            return finish(None, f"no saturation up to max_load={ceiling:g}")
        values = _Growing(measure(load, 2, runlength))
        verdict = "undecided"
        while True:
            mean, low, high = _interval(values.view, 0.95)
            if high < region[0]:
                verdict = "below"
                break
            if low > region[1]:
                verdict = "above"
                break
            _, t_low, t_high = _interval(values.view, confidence)
            if (t_high - t_low) / (t_high + t_low) <= target_accuracy:
                verdict = "peak" if region[0] <= mean <= region[1] else ("below" if mean < region[0] else "above")
                break
            if values.size >= max_trials:
                verdict = "below" if mean < target else "above"
                break
            values.add(measure(load, 1, runlength))
        load_rows.append(dict(load=load, trials=values.size, mean=mean, low=low, high=high, verdict=verdict))
        history.append((load, mean))
        if verdict == "peak":
            return finish(load, "peak-rate region reached at the target accuracy")
        (below if verdict == "below" else above).append(load)
        load = _next_load(policy, load, below, above, history, step, target)
        if not load > 0:
            break
    return finish(None, f"no peak found in {max_loads} test loads")


def _next_load(policy: str, load: float, below: list, above: list, history: list, step: float, target: float) -> float:
    lo = max(below) if below else None
    hi = min(above) if above else None
    if policy == "model" and len(history) >= 2:
        # Algorithm 4: fit 1/R = a - b lambda to the last tuple and the one closest to R*
        last = history[-1]
        closest = min(history[:-1], key=lambda t: abs(t[1] - target))
        (l1, r1), (l2, r2) = last, closest
        if l1 != l2:
            b = (1 / r2 - 1 / r1) / (l1 - l2)
            a = 1 / r1 + b * l1
            if b > 0:
                prediction = (a - 1 / target) / b
                inside = (lo is None or prediction > lo) and (hi is None or prediction < hi)
                if prediction > 0 and inside and not any(math.isclose(prediction, h[0]) for h in history):
                    return prediction
    if hi is None:  # no saturation yet: double (Binsearch, model fallback) or step (Linear)
        return load + step if policy == "linear" else 2 * load
    if lo is None:
        return hi / 2
    return (lo + hi) / 2


def trials_needed(
    server: SimulatedServer,
    *,
    load: float,
    runlength: float,
    target_accuracy: float = 0.10,
    confidence: float = 0.95,
    max_trials: int = 200,
    rng=None,
) -> int:
    """Trials until the interval of the mean response time at ``load`` reaches ``target_accuracy``
    (Figure 6); ``max_trials`` if it never does.

    Parameters
    ----------
    server : SimulatedServer
    load : float
        Offered load, requests/s.
    runlength : float
        Duration of one trial, s.
    target_accuracy : float
        As in :func:`find_peak_rate`.
    confidence : float
        Of the interval.
    max_trials : int
        Give up after this many.
    rng : None, int or Generator
        Seed of the trials.
    """
    _check_server(server)
    target_accuracy = check_fraction("target_accuracy", target_accuracy)
    confidence = check_fraction("confidence", confidence)
    max_trials = check_int("max_trials", max_trials, minimum=2, maximum=MAX_TRIALS)
    rng = np.random.default_rng(rng)
    values = _Growing(server.run(load, runlength, trials=2, rng=rng))
    while values.size < max_trials:
        _, low, high = _interval(values.view, confidence)
        if (high - low) / (high + low) <= target_accuracy:
            break
        values.add(server.run(load, runlength, rng=rng))
    return int(values.size)


class _Growing:
    """A sample that grows a trial at a time in amortised constant time (``np.append`` copies the
    whole array each time, which made a long search quadratic)."""

    def __init__(self, first: np.ndarray):
        self._buffer = np.array(first, dtype=float)
        self.size = self._buffer.size

    def add(self, more: np.ndarray) -> None:
        more = np.asarray(more, dtype=float)
        if self.size + more.size > self._buffer.size:
            grown = np.empty(max(2 * self._buffer.size, self.size + more.size))
            grown[: self.size] = self._buffer[: self.size]
            self._buffer = grown
        self._buffer[self.size : self.size + more.size] = more
        self.size += more.size

    @property
    def view(self) -> np.ndarray:
        return self._buffer[: self.size]


def _check_server(server) -> None:
    if not callable(getattr(server, "run", None)) or not hasattr(server, "saturation_response"):
        raise TypeError(
            f"server={server!r}: expected a server with run(load, runlength, *, trials, rng) and "
            "saturation_response, such as SimulatedServer()"
        )


@dataclass(frozen=True, eq=False)
class Surface:
    """A mapped response surface: one row per sample (factors, true and found peak rates, cost).

    Attributes
    ----------
    samples : DataFrame
        One row per sample.
    total_cost : float
        Benchmarking time of all searches, s.
    searches : list of PeakSearch
        One per sample, in order.
    """

    samples: pd.DataFrame
    total_cost: float
    searches: list


def map_response_surface(
    samples,
    *,
    server_factory=SimulatedServer,
    policy: str = "binsearch",
    seeding: bool = True,
    default_seed: float = 10.0,
    rng=None,
    **search,
) -> Surface:
    """Algorithm 1's outer loop: the peak rate of every sample, seeding each search from the peak
    of the nearest sample measured so far (section 3.7) when ``seeding``.

    ``samples`` is a DataFrame (or list of dicts) of factor values passed to ``server_factory``;
    ``search`` goes to :func:`find_peak_rate`.

    Parameters
    ----------
    samples : DataFrame or list of dict
        Factor values, one row per sample.
    server_factory : callable
        ``server_factory(**factors) -> server``.
    policy : str
        Load picker, see :func:`find_peak_rate`.
    seeding : bool
        Seed each search from the nearest sample's peak.
    default_seed : float
        Seed load of the first search (and of all without ``seeding``).
    rng : None, int or Generator
        Seed of all trials.
    **search
        Passed to :func:`find_peak_rate`.
    """
    try:
        frame = pd.DataFrame(samples).reset_index(drop=True)
    except (ValueError, TypeError) as error:
        raise TypeError(f"samples: expected a DataFrame or a list of dicts of factor values ({error})") from None
    if frame.empty or not len(frame.columns):
        raise ValueError("samples: expected at least one sample")
    if not callable(server_factory):
        raise TypeError(f"server_factory={server_factory!r}: expected a callable returning a server")
    seeding = check_bool("seeding", seeding)
    default_seed = check_real("default_seed", default_seed, positive=True)
    check_choice("policy", policy, POLICIES)
    factors = list(frame.columns)
    streams = np.random.default_rng(rng).spawn(len(frame))
    rows, searches, found = [], [], []
    for i, stream in enumerate(streams):
        row = frame.iloc[i].to_dict()
        try:
            server = server_factory(**row)
        except TypeError as error:
            raise TypeError(f"samples: row {i} ({row}) does not fit server_factory: {error}") from None
        seed = default_seed
        if seeding and found:
            points = frame.iloc[[j for j, _ in found]][factors].to_numpy(dtype=float)
            nearest = int(np.argmin(np.sum((points - frame.iloc[i][factors].to_numpy(dtype=float)) ** 2, axis=1)))
            seed = found[nearest][1]
        result = find_peak_rate(server, policy=policy, seed_load=seed, rng=stream, **search)
        if result.converged:
            found.append((i, result.peak_rate))
        searches.append(result)
        rows.append(
            {
                **row,
                "true_peak_rate": server.true_peak_rate,
                "peak_rate": result.peak_rate,
                "converged": result.converged,
                "cost": result.cost,
                "seed_load": seed,
                "test_loads": len(result.loads),
            }
        )
    table = pd.DataFrame(rows)
    return Surface(table, float(table.cost.sum()), searches)


def quadratic_design(points) -> np.ndarray:
    """Model matrix of a full quadratic surface in the columns of ``points``: 1, x_i, x_i^2, x_i x_j.

    Parameters
    ----------
    points : array or DataFrame, shape (n, factors)
        One row per sample, one column per factor.
    """
    try:
        x = np.asarray(points, dtype=float)
    except (ValueError, TypeError):
        raise TypeError("points: expected numbers, shape (samples, factors)") from None
    if x.ndim != 2 or not x.size:
        raise ValueError(f"points: expected shape (samples, factors), got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"points: {int((~np.isfinite(x)).sum())} values are NaN or infinite")
    columns = [np.ones(len(x))] + [x[:, i] for i in range(x.shape[1])] + [x[:, i] ** 2 for i in range(x.shape[1])]
    columns += [x[:, i] * x[:, j] for i in range(x.shape[1]) for j in range(i + 1, x.shape[1])]
    return np.column_stack(columns)


def d_optimal(points, k: int, *, starts: int = 20, rng=None) -> np.ndarray:
    """Indices of ``k`` of ``points`` maximising ``det(X'X)`` for a quadratic surface (D-optimal).

    Fedorov-style exchange from ``starts`` random subsets: swap a chosen point for an unchosen one
    while the determinant grows; the best subset over all starts is returned, sorted.

    Parameters
    ----------
    points : array_like, shape (n, 2)
        Candidate factor settings.
    k : int
        Points to choose (at least the 6 coefficients of the quadratic).
    starts : int
        Random initial subsets.
    rng : None, int or Generator
        Seed of the initial subsets.
    """
    design = quadratic_design(points)
    n, p = design.shape
    k = check_int("k", k, minimum=p)
    if k > n:
        raise ValueError(f"k={k}: only {n} points to choose from")
    starts = check_int("starts", starts, maximum=MAX_STARTS)
    rng = np.random.default_rng(rng)

    def logdet(index):
        sign, value = np.linalg.slogdet(design[index].T @ design[index])
        return value if sign > 0 else -np.inf

    best, best_value = None, -np.inf
    for _ in range(starts):
        chosen = list(rng.choice(n, k, replace=False))
        value = logdet(chosen)
        improved = True
        while improved:
            improved = False
            for position in range(k):
                for candidate in range(n):
                    if candidate in chosen:
                        continue
                    trial = chosen.copy()
                    trial[position] = candidate
                    trial_value = logdet(trial)
                    if trial_value > value + 1e-12:
                        chosen, value, improved = trial, trial_value, True
        if value > best_value:
            best, best_value = sorted(chosen), value
    if best is None:  # every subset is singular: the points do not span a quadratic surface
        raise ValueError(
            f"points: no {k} of them determine a quadratic surface (det(X'X) = 0 for every subset tried); "
            "they need at least 6 distinct settings, not all on one line or conic"
        )
    return np.array(best)


@dataclass(frozen=True, eq=False)
class QuadraticSurface:
    """A full quadratic response surface fitted by least squares (section 4).

    Attributes
    ----------
    coefficients : ndarray
        In the column order of :func:`quadratic_design`.
    """

    coefficients: np.ndarray

    def predict(self, points) -> np.ndarray:
        """The surface at ``points``.

        Parameters
        ----------
        points : array or DataFrame, shape (n, factors)
            As the points it was fitted on.
        """
        design = quadratic_design(points)
        if design.shape[1] != self.coefficients.size:
            raise ValueError(
                f"points: {design.shape[1]} quadratic terms, the surface has {self.coefficients.size}; "
                "expected the factors it was fitted on"
            )
        return design @ self.coefficients

    def mean_absolute_percentage_error(self, points, values) -> float:
        """``mean |predicted / values - 1|`` over ``points``.

        Parameters
        ----------
        points : array or DataFrame, shape (n, factors)
            Where to compare.
        values : array, shape (n,)
            The measured (or true) responses there, all non-zero.
        """
        values = check_sample("values", values)
        predicted = self.predict(points)
        if values.shape != predicted.shape:
            raise ValueError(f"values: {values.size} responses for {predicted.size} points")
        if np.any(values == 0):
            raise ValueError("values: expected non-zero responses (the error is relative to them)")
        return float(np.mean(np.abs(predicted / values - 1)))


def fit_quadratic_surface(points, values) -> QuadraticSurface:
    """Least-squares fit of a full quadratic surface to responses measured at ``points`` (section 4,
    the surface a D-optimal subset of samples is chosen for).

    Parameters
    ----------
    points : array or DataFrame, shape (n, factors)
        The samples measured (e.g. a :func:`d_optimal` subset).
    values : array, shape (n,)
        The response at each (e.g. its peak rate).
    """
    design = quadratic_design(points)
    values = check_sample("values", values)
    if values.shape != (design.shape[0],):
        raise ValueError(f"values: expected {design.shape[0]} finite responses, one per point")
    if design.shape[0] < design.shape[1]:
        raise ValueError(f"points: {design.shape[0]} samples for {design.shape[1]} coefficients")
    return QuadraticSurface(np.linalg.lstsq(design, values, rcond=None)[0])
