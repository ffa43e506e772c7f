"""The stopping rule of ``perfstudy run`` by simulation: its error rate under looks after every round,
and the rounds it saves against a fixed-budget design of equal power.

A simulated run is a sequence of batches on a drifting platform (:class:`RoundModel`): the platform's
log-speed is a random walk with a slow linear trend, every batch (a process) has its own random effect,
optionally with a share of slow processes, and its values add measurement noise. In the interleaved
layout round ``r`` runs A and B at times ``2r`` and ``2r + 1`` in a random order; in the sequential
layout all of A runs first. The per-round log-ratio of batch means is what :func:`perfstudy.experiment._run.run` judges.

- :func:`calibration`: sequential A/A runs; the share that ever reaches a verdict of change under the
  sign sequence (:mod:`perfstudy.comparison.sign_sequence`, the run's default) and Lai's t sequence
  (:mod:`perfstudy.comparison.sequential`), beside a fixed 95% t interval recomputed after every round (the
  naive rule) and used once at the end.
- :func:`rules_under_contention`: both sequences on the same simulated rounds of a contended machine
  (:class:`ContentionModel`); :func:`toggled_trial`: real runs under :func:`toggled_load`.
- :func:`power_and_cost`: planted changes; the rounds the sequential rule uses, against the fixed
  number of rounds a one-look paired t test needs for the same power (noncentral t, closed form).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from perfstudy._lib.checks import check_choice, check_each, check_fraction, check_int, check_real
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed
from perfstudy.comparison.sequential import t_confidence_sequence
from perfstudy.studies.montecarlo import type1_limit

__all__ = [
    "ContentionModel",
    "simulate_contended_rounds",
    "RulesUnderContention",
    "rules_under_contention",
    "RoundModel",
    "simulate_round_ratios",
    "StoppingCalibration",
    "calibration",
    "PowerAndCost",
    "power_and_cost",
    "LAYOUTS",
    "ramping_load",
    "toggled_load",
    "ToggledTrial",
    "toggled_trial",
    "TRIAL_CONFIGS",
    "sequential_layout",
]

LAYOUTS = ("interleaved", "sequential")


@dataclass(frozen=True)
class RoundModel(Result):
    """A drifting platform and noisy batches, on the log scale (module text).

    Parameters
    ----------
    process_sd : float
        SD of a batch's (process's) own effect.
    drift_sd : float
        SD of the platform's random-walk step from one batch to the next.
    trend : float
        The platform's slow linear trend per batch.
    value_sd : float
        SD of one value's noise around its batch.
    values : int
        Values per batch (the batch mean's noise is ``value_sd / sqrt(values)``).
    slow_share : float
        Share of batches whose process is slow (a heavy tail), by ``slow``.
    slow : float
        The slow processes' relative slowdown.
    """

    process_sd: float = 0.02
    drift_sd: float = 0.01
    trend: float = 0.001
    value_sd: float = 0.02
    values: int = 3
    slow_share: float = 0.05
    slow: float = 0.15

    def __post_init__(self):
        for name in ("process_sd", "drift_sd", "trend", "value_sd", "slow"):
            object.__setattr__(self, name, check_real(name, getattr(self, name), nonnegative=True))
        object.__setattr__(self, "values", check_int("values", self.values))
        object.__setattr__(self, "slow_share", check_real("slow_share", self.slow_share, nonnegative=True))
        if self.slow_share > 1:
            raise ValueError(f"slow_share={self.slow_share!r}: expected a share in [0, 1]")


def _simulation(model, kind: type, experiments, rounds, change, most: int) -> tuple[int, int, float]:
    """A simulation's model, sizes and planted change, checked."""
    if not isinstance(model, kind):
        raise TypeError(f"model: expected a {kind.__name__}, got {type(model).__name__}")
    experiments = check_int("experiments", experiments, maximum=most)
    rounds = check_int("rounds", rounds, minimum=2, maximum=100_000)
    change = check_real("change", change)
    if change <= -1:
        raise ValueError(f"change={change!r}: expected a relative change above -1")
    return experiments, rounds, change


def simulate_round_ratios(
    model: RoundModel,
    experiments: int,
    rounds: int,
    *,
    change: float = 0.0,
    layout: str = "interleaved",
    rng: Seed = None,
) -> np.ndarray:
    """Per-round ``log(mean B / mean A)`` of simulated runs, shape ``(experiments, rounds)``.

    Parameters
    ----------
    model : RoundModel
    experiments, rounds : int
    change : float
        B's true relative change (``0.05``: B is 5% slower).
    layout : {"interleaved", "sequential"}
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    ndarray
    """
    experiments, rounds, change = _simulation(model, RoundModel, experiments, rounds, change, 10_000_000)
    check_choice("layout", layout, LAYOUTS)
    generator = np.random.default_rng(rng)
    batches = 2 * rounds
    steps = generator.normal(0.0, model.drift_sd, (experiments, batches))
    platform = np.cumsum(steps, axis=1) + model.trend * np.arange(batches)

    def batch_means(shape):
        process = generator.normal(0.0, model.process_sd, shape)
        process += math.log1p(model.slow) * (generator.random(shape) < model.slow_share)
        return process + generator.normal(0.0, model.value_sd / math.sqrt(model.values), shape)

    if layout == "interleaved":
        b_second = generator.random((experiments, rounds)) < 0.5
        first, second = platform[:, 0::2], platform[:, 1::2]
        at_a = np.where(b_second, first, second)
        at_b = np.where(b_second, second, first)
    else:
        at_a, at_b = platform[:, :rounds], platform[:, rounds:]
    shape = (experiments, rounds)
    return (math.log1p(change) + at_b + batch_means(shape)) - (at_a + batch_means(shape))


@dataclass(frozen=True)
class StoppingCalibration(Result):
    """The share of A/A runs that ever reach a verdict of change, per rule.

    Attributes
    ----------
    table : DataFrame
        One row per rule: ``rule``, ``false_rate``, ``mc_se`` (``sqrt(p (1 - p) / experiments)``),
        ``limit`` (the nominal rate plus 3 MC SE) and ``within`` (false_rate <= limit).
    experiments, rounds, min_rounds : int
    confidence, threshold : float
    layout : str
    """

    table: pd.DataFrame
    experiments: int
    rounds: int
    min_rounds: int
    confidence: float
    threshold: float
    layout: str

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()


def _first_verdicts(low, high, band: float, min_rounds: int):
    """Per experiment: ``(round stopped (1-based) or 0, verdict)`` with verdict +1 (slower), -1 (faster),
    0 (no change) or 2 (inconclusive at the end), stopping at the first decided round from ``min_rounds``."""
    change_up = low > band
    change_down = high < -band
    no_change = (low >= -band) & (high <= band) if band > 0 else np.zeros_like(change_up)
    decided = change_up | change_down | no_change
    decided[:, : min_rounds - 1] = False
    any_decided = decided.any(axis=1)
    first = np.where(any_decided, decided.argmax(axis=1), low.shape[1] - 1)
    rows = np.arange(low.shape[0])
    verdict = np.where(change_up[rows, first], 1, np.where(change_down[rows, first], -1, 0))
    verdict = np.where(any_decided, verdict, 2)
    return first + 1, verdict


def calibration(
    model: RoundModel | None = None,
    *,
    experiments: int = 2000,
    rounds: int = 200,
    min_rounds: int = 5,
    threshold: float = 0.0,
    confidence: float = 0.95,
    layout: str = "interleaved",
    rng: Seed = None,
) -> StoppingCalibration:
    """Sequential A/A runs under ``model``: how often each rule ever calls a change (module text).

    Parameters
    ----------
    model : RoundModel, optional
        Default :class:`RoundModel()`.
    experiments : int
        A/A runs (2,000 gives an MC SE of 0.5 points at 5%).
    rounds : int
        Looks per run (the budget).
    min_rounds : int
        The first round a verdict may stop a run.
    threshold : float
        The ``+-threshold`` band of "no change"; 0 (the hardest case) lets no run stop on "no change".
    confidence : float
    layout : {"interleaved", "sequential"}
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    StoppingCalibration
        Rules: ``"sign sequence, every round"`` (``perfstudy run``'s default rule), ``"t sequence, every
        round"`` (Lai's, ``--rule t``), ``"t interval, every round"`` (the naive rule) and ``"t interval, once
        at the end"`` (a fixed design, for reference).
    """
    model = RoundModel() if model is None else model
    experiments = check_int("experiments", experiments, minimum=10, maximum=1_000_000)
    rounds = check_int("rounds", rounds, minimum=2, maximum=100_000)
    min_rounds = check_int("min_rounds", min_rounds, minimum=2, maximum=rounds)
    threshold = check_real("threshold", threshold, nonnegative=True)
    confidence = check_fraction("confidence", confidence)
    check_choice("layout", layout, LAYOUTS)
    d = simulate_round_ratios(model, experiments, rounds, layout=layout, rng=rng)
    band = math.log1p(threshold)
    alpha = 1 - confidence
    from perfstudy.comparison.sign_sequence import sign_confidence_sequence

    cs = t_confidence_sequence(d, confidence)
    _, sequence_verdict = _first_verdicts(cs.low, cs.high, band, min_rounds)
    sign = sign_confidence_sequence(d, confidence)
    _, sign_verdict = _first_verdicts(sign.running_low, sign.running_high, band, min_rounds)
    n = np.arange(1, rounds + 1)
    mean = np.cumsum(d, axis=1) / n
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(np.maximum(np.cumsum(d**2, axis=1) - n * mean**2, 0) / np.maximum(n - 1, 1))
        half = stats.t.ppf(1 - alpha / 2, np.maximum(n - 1, 1)) * sd / np.sqrt(n)
    half[:, 0] = np.inf
    _, naive_verdict = _first_verdicts(mean - half, mean + half, band, min_rounds)
    end_low, end_high = (mean - half)[:, -1:], (mean + half)[:, -1:]
    once = (end_low[:, 0] > band) | (end_high[:, 0] < -band)
    rates = {
        "sign sequence, every round": np.isin(sign_verdict, (1, -1)).mean(),
        "t sequence, every round": np.isin(sequence_verdict, (1, -1)).mean(),
        "t interval, every round": np.isin(naive_verdict, (1, -1)).mean(),
        "t interval, once at the end": once.mean(),
    }
    rows = []
    for rule, rate in rates.items():
        se = math.sqrt(rate * (1 - rate) / experiments)
        limit = type1_limit(experiments, alpha=alpha)
        rows.append(dict(rule=rule, false_rate=float(rate), mc_se=se, limit=limit, within=bool(rate <= limit)))
    return StoppingCalibration(
        table=pd.DataFrame(rows),
        experiments=experiments,
        rounds=rounds,
        min_rounds=min_rounds,
        confidence=confidence,
        threshold=threshold,
        layout=layout,
    )


@dataclass(frozen=True)
class PowerAndCost(Result):
    """Rounds used by the sequential rule against a fixed design of equal power.

    Attributes
    ----------
    table : DataFrame
        One row per planted change: ``change``, ``power`` (share of runs called "slower" by
        ``max_rounds``), ``mean_rounds`` and ``median_rounds`` (rounds the sequential runs used, the
        budget for those that never decided), ``fixed_rounds`` (the rounds a one-look paired t test needs
        for the same power, from the noncentral t; a power of 1 is matched at ``1 - 1 / (2 experiments)``) and ``saving`` (``1 - mean_rounds / fixed_rounds``).
    round_sd : float
        The SD of one round's log-ratio under the model (estimated from the simulation).
    threshold, confidence : float
    max_rounds, experiments : int
    """

    table: pd.DataFrame
    round_sd: float
    threshold: float
    confidence: float
    max_rounds: int
    experiments: int

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()


def _fixed_rounds(power: float, effect: float, sd: float, band: float, alpha: float, limit: int) -> float:
    """The fewest rounds at which a one-look paired t interval lies above ``band`` with probability ``power``
    (noncentral t: ``P(T > t_{1 - alpha/2})`` with non-centrality ``(effect - band) sqrt(n) / sd``)."""
    if power <= 0:
        return math.nan
    for n in range(2, limit + 1):
        critical = stats.t.ppf(1 - alpha / 2, n - 1)
        if stats.nct.sf(critical, n - 1, (effect - band) * math.sqrt(n) / sd) >= power:
            return float(n)
    return math.inf


def power_and_cost(
    model: RoundModel | None = None,
    *,
    changes=(0.02, 0.05, 0.15),
    threshold: float = 0.01,
    experiments: int = 2000,
    max_rounds: int = 200,
    min_rounds: int = 5,
    confidence: float = 0.95,
    rng: Seed = None,
) -> PowerAndCost:
    """Planted changes: the rounds the sequential rule uses and a fixed design's rounds for equal power.

    Parameters
    ----------
    model : RoundModel, optional
    changes : sequence of float
        B's true relative slowdowns.
    threshold : float
        The "no change" band; a change is called "slower" when the interval lies above it.
    experiments, max_rounds, min_rounds : int
    confidence : float
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    PowerAndCost
    """
    model = RoundModel() if model is None else model
    changes = check_each("changes", changes, check_real, positive=True)
    changes = [float(c) for c in np.atleast_1d(np.asarray(changes, dtype=float))]
    threshold = check_real("threshold", threshold, nonnegative=True)
    experiments = check_int("experiments", experiments, minimum=10, maximum=1_000_000)
    max_rounds = check_int("max_rounds", max_rounds, minimum=2, maximum=100_000)
    min_rounds = check_int("min_rounds", min_rounds, minimum=2, maximum=max_rounds)
    confidence = check_fraction("confidence", confidence)
    streams = np.random.default_rng(rng).spawn(len(changes) + 1)
    round_sd = float(simulate_round_ratios(model, 4000, 50, rng=streams[-1]).std())
    band = math.log1p(threshold)
    rows = []
    for change, stream in zip(changes, streams):
        d = simulate_round_ratios(model, experiments, max_rounds, change=change, rng=stream)
        cs = t_confidence_sequence(d, confidence)
        used, verdict = _first_verdicts(cs.low, cs.high, band, min_rounds)
        power = float((verdict == 1).mean())
        # a power of 1 within Monte Carlo error is matched at 1 - 1/(2 experiments): no fixed n reaches 1
        fixed = _fixed_rounds(
            min(power, 1 - 0.5 / experiments), math.log1p(change), round_sd, band, 1 - confidence, 100 * max_rounds
        )
        mean_used = float(used.mean())
        rows.append(
            dict(
                change=change,
                power=power,
                mean_rounds=mean_used,
                median_rounds=float(np.median(used)),
                fixed_rounds=fixed,
                saving=1 - mean_used / fixed if math.isfinite(fixed) and fixed > 0 else math.nan,
            )
        )
    return PowerAndCost(
        table=pd.DataFrame(rows),
        round_sd=round_sd,
        threshold=threshold,
        confidence=confidence,
        max_rounds=max_rounds,
        experiments=experiments,
    )


# The background load of notebook 09: a launcher that starts one spinning process every ``step`` seconds, up to
# ``spinners``; every process stops by itself at the deadline, and the launcher kills them on SIGTERM. Each spins
# in a session of its own, as another user's job would: Linux's scheduler autogroups share the CPUs between
# sessions, and perfstudy runs each command in a session of its own (so that Ctrl-C reaches the runner alone),
# so load in one shared session would hardly reach it.
_LOAD = """
import signal, subprocess, sys, time
seconds, spinners, step = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
deadline = time.monotonic() + seconds
spin = "import time\\nwhile time.monotonic() < %r: pass" % (deadline,)
started = []
def stop(*_):
    for process in started:
        process.kill()
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
for _ in range(spinners):
    if time.monotonic() + step >= deadline:
        break
    time.sleep(step)
    started.append(subprocess.Popen([sys.executable, "-S", "-c", spin], start_new_session=True))
time.sleep(max(0.0, deadline - time.monotonic()))
"""


@dataclass(frozen=True)
class ContentionModel(Result):
    """A machine whose background load comes and goes (the bimodal rounds of a shared 2-core box).

    Each batch slot is contended or not by a two-state Markov chain: contended a share ``share`` of the time,
    in episodes of ``episode`` batches on average. An uncontended value is ``exp(N(0, value_sd))``; a
    contended batch is slowed by ``exp(N(slowdown, slowdown_sd))`` (one draw a batch: the load of the moment)
    and each of its values by a further ``exp(N(0, jitter))``. The defaults follow the trial of a 34.5 ms C
    loop on this project's VM, whose contended runs took 50-190 ms (``slowdown`` 0.6 on the log scale, 1.8 times).

    Parameters
    ----------
    share, episode, slowdown, slowdown_sd, jitter, value_sd : float
    values : int
        Values per batch.
    """

    share: float = 0.3
    episode: float = 16.0
    slowdown: float = 0.6
    slowdown_sd: float = 0.3
    jitter: float = 0.05
    value_sd: float = 0.01
    values: int = 3

    def __post_init__(self):
        for name in ("slowdown", "slowdown_sd", "jitter", "value_sd"):
            object.__setattr__(self, name, check_real(name, getattr(self, name), nonnegative=True))
        share = check_real("share", self.share, nonnegative=True)
        if share >= 1:
            raise ValueError(f"share={share!r}: expected a share of the time in [0, 1)")
        object.__setattr__(self, "share", share)
        episode = check_real("episode", self.episode, positive=True)
        if episode < 1:
            raise ValueError(f"episode={episode!r}: expected at least 1 batch")
        object.__setattr__(self, "episode", episode)
        object.__setattr__(self, "values", check_int("values", self.values))


#: a batch's statistic of its values, vectorised over the last axis
_BATCH_STATISTICS = {"mean": np.mean, "median": np.median, "min": np.min}


def simulate_contended_rounds(
    model: ContentionModel,
    experiments: int,
    rounds: int,
    *,
    change: float = 0.0,
    statistic: str = "mean",
    rng: Seed = None,
) -> np.ndarray:
    """Per-round ``log(stat(B) / stat(A))`` of interleaved runs on a contended machine, ``(experiments, rounds)``.

    Round ``r`` runs A and B in slots ``2r`` and ``2r + 1`` in a random order (module text of
    :class:`ContentionModel`); B is ``1 + change`` times A.

    Parameters
    ----------
    model : ContentionModel
    experiments, rounds : int
    change : float
    statistic : {"mean", "median", "min"}
        Each batch's statistic of its values.
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    ndarray
    """
    experiments, rounds, change = _simulation(model, ContentionModel, experiments, rounds, change, 1_000_000)
    check_choice("statistic", statistic, tuple(_BATCH_STATISTICS))
    generator = np.random.default_rng(rng)
    slots = 2 * rounds
    leave = 1.0 / model.episode
    enter = model.share / ((1.0 - model.share) * model.episode) if model.share > 0 else 0.0
    state = generator.random(experiments) < model.share
    steps = generator.random((experiments, slots))
    contended = np.empty((experiments, slots), dtype=bool)
    for slot in range(slots):
        contended[:, slot] = state
        state = np.where(state, steps[:, slot] >= leave, steps[:, slot] < enter)
    shape = (experiments, slots, model.values)
    slowed = generator.normal(model.slowdown, model.slowdown_sd, (experiments, slots))[..., None]
    logs = generator.normal(0.0, model.value_sd, shape) + contended[..., None] * (
        slowed + generator.normal(0.0, model.jitter, shape)
    )
    batch = np.log(_BATCH_STATISTICS[statistic](np.exp(logs), axis=-1))
    b_second = generator.random((experiments, rounds)) < 0.5
    first, second = batch[:, 0::2], batch[:, 1::2]
    at_a = np.where(b_second, first, second)
    at_b = np.where(b_second, second, first)
    return math.log1p(change) + at_b - at_a


@dataclass(frozen=True)
class RulesUnderContention(Result):
    """The two stopping rules of ``perfstudy run`` on the same simulated contended rounds.

    Attributes
    ----------
    table : DataFrame
        One row per rule, batch statistic and planted change: ``rule``, ``statistic``, ``change``,
        ``decided`` (share of runs decided within ``max_rounds``), ``wrong`` (share with a wrong verdict: any
        change called on an A/A run; "no change" or the wrong direction on a planted one), ``mc_se`` (of
        ``wrong``), ``median_rounds`` and ``mean_rounds`` (rounds to a verdict, counting ``max_rounds + 1``
        for an undecided run) and ``round_sd`` (SD of a round's log-ratio).
    model : ContentionModel
    experiments, max_rounds, min_rounds : int
    threshold, confidence : float
    """

    table: pd.DataFrame
    model: ContentionModel
    experiments: int
    max_rounds: int
    min_rounds: int
    threshold: float
    confidence: float

    def to_frame(self):
        """The table."""
        return self.table.copy()


def rules_under_contention(
    model: ContentionModel | None = None,
    *,
    changes=(0.0, 0.02, 0.05, 0.10),
    statistics=("mean", "median", "min"),
    threshold: float = 0.01,
    experiments: int = 1000,
    max_rounds: int = 300,
    min_rounds: int = 5,
    confidence: float = 0.95,
    rng: Seed = None,
) -> RulesUnderContention:
    """Lai's t sequence and the sign sequence on the same contended rounds: errors and rounds to decide.

    Both rules see the same rounds of each experiment (one draw per statistic and change), looked at after
    every round from ``min_rounds`` on, as :func:`perfstudy.experiment._run.run` looks.

    Parameters
    ----------
    model : ContentionModel, optional
    changes : sequence of float
        B's true relative changes (0: A/A).
    statistics : sequence of str
        Batch statistics.
    threshold : float
        The "no change" band.
    experiments, max_rounds, min_rounds : int
    confidence : float
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    RulesUnderContention
    """
    from perfstudy.comparison.sign_sequence import sign_confidence_sequence

    model = ContentionModel() if model is None else model
    changes = [float(c) for c in np.atleast_1d(np.asarray(check_each("changes", changes, check_real), dtype=float))]
    if any(c <= -1 for c in changes):
        raise ValueError(f"changes={changes!r}: expected relative changes above -1")
    statistics = list(statistics) if not isinstance(statistics, str) else [statistics]
    for statistic in statistics:
        check_choice("statistics", statistic, tuple(_BATCH_STATISTICS))
    threshold = check_real("threshold", threshold, nonnegative=True)
    experiments = check_int("experiments", experiments, minimum=10, maximum=1_000_000)
    max_rounds = check_int("max_rounds", max_rounds, minimum=2, maximum=100_000)
    min_rounds = check_int("min_rounds", min_rounds, minimum=2, maximum=max_rounds)
    confidence = check_fraction("confidence", confidence)
    band = math.log1p(threshold)
    streams = np.random.default_rng(rng).spawn(len(changes) * len(statistics))
    rows = []
    for index, (statistic, change) in enumerate((s, c) for s in statistics for c in changes):
        d = simulate_contended_rounds(model, experiments, max_rounds, change=change, statistic=statistic,
                                      rng=streams[index])  # fmt: skip
        t = t_confidence_sequence(d, confidence)
        sign = sign_confidence_sequence(d, confidence)
        intervals = {
            "t": (np.maximum.accumulate(t.low, axis=1), np.minimum.accumulate(t.high, axis=1)),
            "sign": (sign.running_low, sign.running_high),
        }
        for rule, (low, high) in intervals.items():
            used, verdict = _first_verdicts(low, high, band, min_rounds)
            decided = verdict != 2  # _first_verdicts: 1 slower, -1 faster, 0 no change, 2 undecided
            if change == 0:
                wrong = np.isin(verdict, (1, -1))
            else:
                right = 1 if change > 0 else -1
                wrong = np.isin(verdict, (-right, 0)) if abs(change) > threshold else verdict == -right
            rate = float(wrong.mean())
            rows.append(
                dict(
                    rule=rule,
                    statistic=statistic,
                    change=change,
                    decided=float(decided.mean()),
                    wrong=rate,
                    mc_se=math.sqrt(max(rate * (1 - rate), 1.0 / experiments) / experiments),
                    median_rounds=float(np.median(np.where(decided, used, max_rounds + 1))),
                    mean_rounds=float(np.mean(np.where(decided, used, max_rounds + 1))),
                    round_sd=float(d.std()),
                )
            )
    return RulesUnderContention(
        table=pd.DataFrame(rows),
        model=model,
        experiments=experiments,
        max_rounds=max_rounds,
        min_rounds=min_rounds,
        threshold=threshold,
        confidence=confidence,
    )


def ramping_load(seconds: float, *, spinners: int = 6, step: float = 1.0):
    """A CPU load that ramps while the block runs: one more busy process every ``step`` seconds, up to
    ``spinners``, all gone after ``seconds`` (or when the block ends, whichever is first).

    On this project's 2-core VM a 70 ms command takes about the same with up to 2 busy processes, 2.4 times
    as long with 4 and 3.6 times with 6: a drift no analysis of a sequential layout can tell from a change.

    Parameters
    ----------
    seconds : float
        The load's bound in time.
    spinners : int
        Busy processes at the peak.
    step : float
        Seconds between two more.

    Returns
    -------
    context manager
        The load runs from its ``with`` block's start to its end (or ``seconds``).
    """
    seconds = check_real("seconds", seconds, positive=True)
    spinners = check_int("spinners", spinners, maximum=64)
    step = check_real("step", step, positive=True)
    return _ramping_load(seconds, spinners, step)


@contextmanager
def _ramping_load(seconds: float, spinners: int, step: float):
    launcher = subprocess.Popen([sys.executable, "-S", "-c", _LOAD, str(seconds), str(spinners), str(step)])
    try:
        yield launcher
    finally:
        launcher.terminate()  # it kills its busy processes
        launcher.wait()


#: the configurations of the rules' trial: (rule, duet)
TRIAL_CONFIGS = (("t", False), ("sign", False), ("sign", True))


@dataclass(frozen=True)
class ToggledTrial(Result):
    """Real runs of a loop and the same loop made longer, under a load switched on and off, each rule and
    layout in turn (:func:`toggled_trial`).

    Attributes
    ----------
    table : DataFrame
        One row per planted change and configuration: ``change`` (B's extra loop iterations, relative; the
        time grows a little less, by the interpreter's start-up), ``rule``, ``duet``, ``verdict``,
        ``estimate``, ``low``, ``high`` (NaN where the run has no bounded interval yet: it stopped before the
        rule's first possible verdict), ``bounded``, ``rounds``, ``seconds`` (the run's wall time), ``round_sd``
        (SD of the rounds' log-ratios), ``stopped`` and ``wrong`` (a change called on an A/A pair; "faster" or
        "no change" for a slower B).
    loops : int
    threshold : float
    seconds : float
        Each run's budget.
    cpus : int
    """

    table: pd.DataFrame
    loops: int
    threshold: float
    seconds: float
    cpus: int

    def to_frame(self):
        """The table."""
        return self.table.copy()


def toggled_trial(
    loops: int = 2_000_000,
    *,
    changes=(0.0, 0.05, 0.10),
    seconds: float = 90.0,
    threshold: float = 0.01,
    busy: int = 2,
    seed: int = 0,
) -> ToggledTrial:
    """Run A (a Python loop of ``loops`` iterations in a bare interpreter) against B (the same loop
    ``1 + change`` times longer) with ``perfstudy run``, once per rule and layout of :data:`TRIAL_CONFIGS`
    (Lai's t rule and the sign rule interleaved, the sign rule in duet rounds), each within ``seconds``,
    while :func:`toggled_load` switches ``busy`` spinning processes on and off every 1-4 s.

    Parameters
    ----------
    loops : int
    changes : sequence of float
        B's extra iterations, relative (0: an A/A pair).
    seconds : float
        Each run's budget (``max_time``).
    threshold : float
    busy : int
    seed : int
        The load's periods and each run's round orders.

    Returns
    -------
    ToggledTrial
    """
    import os
    import tempfile

    from perfstudy.experiment import run

    loops = check_int("loops", loops, maximum=10**10)
    changes = [float(c) for c in np.atleast_1d(np.asarray(check_each("changes", changes, check_real), dtype=float))]
    if any(c < 0 for c in changes):
        raise ValueError(f"changes={changes!r}: expected extra iterations, 0 or more")
    seconds = check_real("seconds", seconds, positive=True)
    threshold = check_real("threshold", threshold, nonnegative=True)
    busy = check_int("busy", busy, maximum=64)
    seed = check_int("seed", seed, minimum=0, maximum=2**31)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    configs = [(rule, duet) for rule, duet in TRIAL_CONFIGS if not duet or cpus >= 2]
    rows = []
    budget = seconds * len(changes) * len(configs) + 60.0
    with tempfile.TemporaryDirectory() as folder, toggled_load(budget, busy=busy, seed=seed):
        for index, (change, (rule, duet)) in enumerate((c, k) for c in changes for k in configs):
            a = f"{sys.executable} -S -c 'for _ in range({loops}): pass'"
            b = f"{sys.executable} -S -c 'for _ in range({round(loops * (1 + change))}): pass'"
            started = time.monotonic()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the load is the point: its warnings are the trial's subject
                result = run(a, b, values=1, warmup=0, threshold=threshold, max_time=f"{seconds}s",
                             max_rounds=1_000_000, rule=rule, duet=duet, seed=seed + index,  # type: ignore[arg-type]
                             out=os.path.join(folder, f"run{index}.csv"), progress=False)  # fmt: skip
            elapsed = time.monotonic() - started
            verdict = result.verdicts[0] if result.verdicts else None
            said = verdict["verdict"] if verdict else "inconclusive"
            low, high = (verdict["low"], verdict["high"]) if verdict else (math.nan, math.nan)
            # a run stopped before the rule's first possible verdict has an unbounded interval: no interval yet,
            # recorded as such (NaN, null in the record), not as an infinity the record cannot hold
            bounded = math.isfinite(low) and math.isfinite(high)
            wrong = said in ("faster", "slower") if change == 0 else said in ("faster", "no change")
            rows.append(
                dict(
                    change=change,
                    rule=rule,
                    duet=duet,
                    verdict=said,
                    estimate=verdict["change"] if verdict else math.nan,
                    low=low if bounded else math.nan,
                    high=high if bounded else math.nan,
                    bounded=bounded,
                    rounds=result.rounds,
                    seconds=elapsed,
                    round_sd=verdict["sd"] if verdict else math.nan,
                    stopped=result.stopped,
                    wrong=wrong,
                )
            )
    return ToggledTrial(table=pd.DataFrame(rows), loops=loops, threshold=threshold, seconds=seconds, cpus=cpus)


# The load of the rules' trial: ``busy`` spinning processes switched on and off at random every ``low`` to
# ``high`` seconds (from ``seed``), each in a session of its own, all gone at the deadline, on SIGTERM, or a period
# after their owner dies (killed: no ``finally`` ran).
_TOGGLE = """
import os, random, signal, subprocess, sys, time
seconds, busy, low, high, seed = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
parent = int(sys.argv[6])  # the owner's pid, as it gave it: by the time this runs, it may already be gone
rng = random.Random(seed)
deadline = time.monotonic() + seconds
spin = "import time\\nwhile time.monotonic() < %r: pass" % (deadline,)
running = []
def stop(*_):
    for process in running:
        process.kill()
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
while time.monotonic() < deadline:
    time.sleep(min(rng.uniform(low, high), max(0.0, deadline - time.monotonic())))
    if os.getppid() != parent: stop()
    if running:
        for process in running:
            process.kill()
        running = []
    elif time.monotonic() < deadline:
        running = [subprocess.Popen([sys.executable, "-S", "-c", spin], start_new_session=True) for _ in range(busy)]
stop()
"""


def toggled_load(seconds: float, *, busy: int = 2, low: float = 1.0, high: float = 4.0, seed: int = 0):
    """A CPU load switched on and off while the block runs: ``busy`` spinning processes, on for a random
    ``low`` to ``high`` seconds, then off as long, and so on (the trial's machine: a shared box whose other
    work comes and goes).

    Parameters
    ----------
    seconds : float
        The load's bound in time.
    busy : int
        Spinning processes while it is on.
    low, high : float
        The range of each on and off period, in seconds.
    seed : int
        Draws the periods.

    Returns
    -------
    context manager
    """
    seconds = check_real("seconds", seconds, positive=True)
    busy = check_int("busy", busy, maximum=64)
    low = check_real("low", low, positive=True)
    high = check_real("high", high, positive=True)
    if high < low:
        raise ValueError(f"high={high!r} is below low={low!r}")
    seed = check_int("seed", seed, minimum=0, maximum=2**32 - 1)
    return _process_load([str(seconds), str(busy), str(low), str(high), str(seed), str(os.getpid())], _TOGGLE)


@contextmanager
def _process_load(arguments: list[str], program: str):
    launcher = subprocess.Popen([sys.executable, "-S", "-c", program, *arguments])
    try:
        yield launcher
    finally:
        launcher.terminate()  # it kills its busy processes
        launcher.wait()


def sequential_layout(a, b, *, batches: int, values: int = 3, warmup: int = 1) -> pd.DataFrame:
    """All of A's batches, then all of B's (as hyperfine or a CI job run them): the layout a drift defeats.

    Parameters
    ----------
    a, b : str, sequence of str or callable
        As :func:`perfstudy.experiment._run.run` (a command line through ``/bin/sh -c``, its start-up subtracted).
    batches : int
        Batches of each version.
    values, warmup : int
        Runs per batch, as :func:`perfstudy.experiment._run.run`.

    Returns
    -------
    DataFrame
        The rows of :func:`perfstudy.experiment.batches.time_batch`, ``round`` numbering each version's batches.
    """
    from perfstudy.experiment import SHELL, Batch, command_argv, shell_startup, time_batch

    commands = {"A": command_argv(a, "a"), "B": command_argv(b, "b")}
    batches = check_int("batches", batches, maximum=100_000)
    values = check_int("values", values, maximum=100_000)
    warmup = check_int("warmup", warmup, minimum=0, maximum=100_000)
    # the shell's start-up is subtracted as perfstudy run subtracts it, so that both layouts time the same thing
    shelled = any(isinstance(c, tuple) and c[:2] == (SHELL, "-c") for c in commands.values())
    startup = shell_startup() if shelled else 0.0
    rows = []
    for version, command in commands.items():
        for index in range(batches):
            cut = startup if isinstance(command, tuple) and command[:2] == (SHELL, "-c") else 0.0
            rows += time_batch(Batch(version, command, index, 0, values=values, warmup=warmup, startup=cut)).rows
    return pd.DataFrame(rows)
