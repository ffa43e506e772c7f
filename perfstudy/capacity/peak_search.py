"""The peak-rate search of Shivam et al. (USENIX ATC 2008), "Cutting Corners: Workbench Automation for
Server Benchmarking".

The *peak rate* of a server is the highest arrival rate whose mean response time stays below a
saturation threshold ``R*``; the *peak-rate region* is ``R* (1 +- w)`` (Table 2's width ``w``).
Algorithm 2 runs two trials at a test load, adds trials only while the confidence interval of the mean
response time overlaps the region, and stops at a load whose interval is both inside the region and
accurate enough. Load pickers: Linear, Binsearch (Algorithm 3) and model-guided (Algorithm 4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from perfstudy._lib.checks import check_choice, check_fraction, check_int, check_real
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed
from perfstudy.capacity.server_model import MAX_TRIALS, SimulatedServer, check_runlength, check_server

__all__ = [
    "PeakSearch",
    "find_peak_rate",
    "trials_needed",
    "POLICIES",
    "MAX_TRIALS",
]

#: most test loads a search may be asked for (a bound checked up front)
MAX_LOADS = 100_000

POLICIES = ("binsearch", "linear", "model", "strawman")


def _interval(values: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """Mean and the Student-t interval at ``confidence`` (t for few trials, section 2.1)."""
    n = values.size
    mean = float(values.mean())
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1) * values.std(ddof=1) / math.sqrt(n))
    return mean, mean - half, mean + half


@dataclass(frozen=True, eq=False)
class PeakSearch(Result):
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

    def to_frame(self) -> pd.DataFrame:
        """Every trial of the search, in order (``trials``)."""
        return self.trials.copy()


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
    rng: Seed = None,
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
    >>> from perfstudy.capacity.peak_search import find_peak_rate
    >>> from perfstudy.capacity.server_model import SimulatedServer
    >>> server = SimulatedServer()
    >>> search = find_peak_rate(server, rng=0)
    >>> search.converged, round(server.true_peak_rate, 1), search.peak_rate
    (True, 223.9, 225.0)
    """
    check_server(server)
    target_accuracy = check_fraction("target_accuracy", target_accuracy)
    confidence = check_fraction("confidence", confidence)
    region_width = check_fraction("region_width", region_width)
    check_choice("policy", policy, POLICIES)
    max_trials = check_int("max_trials", max_trials, minimum=2, maximum=MAX_TRIALS)
    max_loads = check_int("max_loads", max_loads, maximum=MAX_LOADS)
    strawman_trials = check_int("strawman_trials", strawman_trials, minimum=2, maximum=MAX_TRIALS)
    strawman_runlength = check_real("strawman_runlength", strawman_runlength, positive=True)
    runlength = check_runlength("runlength", runlength)
    strawman_runlength = check_runlength("strawman_runlength", strawman_runlength)
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
    rng: Seed = None,
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
    check_server(server)
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
