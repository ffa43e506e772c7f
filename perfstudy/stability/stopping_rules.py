"""The two stopping rules PT4Cloud is compared with (He et al., ESEC/FSE 2019, section 5.4).

- **SOTA1**, repetitiveness (AlGhamdi, Syer, Shang, Hassan, "An automated approach for
  recommending when to stop performance tests", ICSME 2016): cut the runs so far into windows of
  ``period`` runs; a window is *repeated* if some other window is statistically alike (Mann-Whitney
  p >= ``alpha``, or a negligible Cliff's delta, ``|d| < effect``); repetitiveness is the share of
  repeated windows. Stop when it has changed by at most ``threshold`` over the last ``span`` runs.
  All windows are compared (the original draws random windows; all of them is its limit).
- **SOTA2**, confidence-interval width (the classical rule, extended by He et al. to a whole
  distribution): stop when the bootstrap CI of every percentile lies within ``+-margin`` of the
  observed percentile.

He et al. do not print SOTA1's 18 parameter sets nor SOTA2's margin; the defaults here (and the
grid in notebook 04) are our reading, stated where used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import special

from perfstudy._lib.checks import check_allocation, check_fraction, check_int, check_real, check_resamples, check_sample
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed

__all__ = ["StoppingResult", "sota1", "sota2", "repetitiveness"]


@dataclass(frozen=True, eq=False)
class StoppingResult(Result):
    """Where a stopping rule stopped.

    Attributes
    ----------
    stopped : bool
        False if the runs ran out first (then ``runs`` is all of them).
    runs : int
    sample : ndarray
        The first ``runs`` runs.
    checks : DataFrame
        One row per check: ``runs`` and the rule's statistic.
    """

    stopped: bool
    runs: int
    sample: np.ndarray
    checks: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """The rule's checks, one row per look (``checks``)."""
        return self.checks.copy()


def _series(x) -> np.ndarray:
    return check_sample("x", x, minimum=4)


def _alike(new: np.ndarray, old: np.ndarray, alpha: float, effect: float) -> np.ndarray:
    """Is window ``new`` (p,) alike each of ``old`` (w, p)? Mann-Whitney (normal approximation) or Cliff's delta."""
    p = new.size
    greater = (new[None, :, None] > old[:, None, :]).sum(axis=(1, 2))
    less = (new[None, :, None] < old[:, None, :]).sum(axis=(1, 2))
    delta = (greater - less) / (p * p)
    u = greater + 0.5 * (p * p - greater - less)
    z = (u - p * p / 2) / math.sqrt(p * p * (2 * p + 1) / 12)
    p_value = special.erfc(np.abs(z) / math.sqrt(2))
    return (p_value >= alpha) | (np.abs(delta) < effect)


def repetitiveness(x: ArrayLike, period: int, *, alpha: float = 0.05, effect: float = 0.147) -> np.ndarray:
    """Repetitiveness after each complete window of ``period`` runs: the share of windows alike another.

    Parameters
    ----------
    x : array
        Runs in order.
    period : int
        Runs per window.
    alpha : float
        Windows are alike when Mann-Whitney's p-value is at least ``alpha`` ...
    effect : float
        ... or Cliff's ``|delta|`` is below ``effect`` (0.147: "negligible").

    Returns
    -------
    ndarray, shape (windows,)
    """
    x = _series(x)
    period = check_int("period", period, minimum=2)
    alpha = check_fraction("alpha", alpha)
    effect = check_real("effect", effect, nonnegative=True)
    windows = x[: x.size // period * period].reshape(-1, period)
    repeated = np.zeros(len(windows), dtype=bool)
    shares = np.zeros(len(windows))
    for k in range(1, len(windows)):
        alike = _alike(windows[k], windows[:k], alpha, effect)
        if alike.any():
            repeated[k] = True
            repeated[:k] |= alike
        shares[k] = repeated[: k + 1].mean()
    return shares


def sota1(
    x, *, period: int, span: int, threshold: float = 0.01, alpha: float = 0.05, effect: float = 0.147
) -> StoppingResult:
    """SOTA1: stop when repetitiveness changed by at most ``threshold`` over the last ``span`` runs.

    Parameters
    ----------
    x, period, alpha, effect
        As in :func:`repetitiveness`.
    span : int
        Runs over which repetitiveness must stay within ``threshold`` (at least one window).
    threshold : float
        Largest change of repetitiveness over ``span`` that counts as no change.

    Returns
    -------
    StoppingResult
    """
    x = _series(x)
    period = check_int("period", period, minimum=2)
    if period > x.size:
        raise ValueError(f"period={period}: longer than the {x.size} runs")
    span = check_int("span", span, minimum=period)
    threshold = check_real("threshold", threshold, nonnegative=True, what="change in repetitiveness")
    shares = repetitiveness(x, period, alpha=alpha, effect=effect)
    runs = (np.arange(shares.size) + 1) * period
    lookback = span // period
    checks = pd.DataFrame({"runs": runs, "repetitiveness": shares})
    for k in range(lookback, shares.size):
        recent = shares[k - lookback : k + 1]
        if recent.max() - recent.min() <= threshold:
            return StoppingResult(True, int(runs[k]), x[: runs[k]], checks.iloc[: k + 1])
    return StoppingResult(False, x.size, x, checks)


def sota2(
    x,
    *,
    step: int,
    margin: float = 0.1,
    percentiles=None,
    confidence: float = 0.95,
    replicates: int = 200,
    min_runs: int | None = None,
    rng: Seed = None,
) -> StoppingResult:
    """SOTA2: stop when the bootstrap CI of every percentile is within ``+-margin`` of it.

    Checked after every ``step`` runs (from ``min_runs``, default ``step``): ``replicates``
    resamples of the runs so far give percentile CIs at ``confidence``; the rule is met when for
    every percentile ``q``, ``lower >= q (1 - margin)`` and ``upper <= q (1 + margin)`` (for
    positive data; ``|q|`` otherwise). ``percentiles`` default 1..99.

    ``checks`` records the largest CI half-width relative to its percentile at each check.

    Parameters
    ----------
    x : array_like, 1-D
        The runs, in the order they were taken.
    step : int
        Runs added between two checks.
    margin : float
        Allowed half-width of each percentile's interval, relative to the percentile (0.1: 10%).
    percentiles : array_like of float, optional
        Percentiles (0-100) that must all be stable; default 1, 2, ..., 99.
    confidence : float
        Coverage of the bootstrap percentile intervals.
    replicates : int
        Bootstrap resamples per check.
    min_runs : int, optional
        Runs before the first check (default ``step``).
    rng : None, int or Generator
        Seed of the bootstrap resamples.
    """
    x = _series(x)
    step = check_int("step", step, minimum=1)
    confidence = check_fraction("confidence", confidence)
    replicates = check_resamples("replicates", replicates, minimum=10)
    margin = check_real("margin", margin, positive=True, what="fraction")
    if percentiles is None:
        q = np.arange(1, 100)
    else:
        q = check_sample("percentiles", percentiles)
        if not ((q >= 0) & (q <= 100)).all():
            raise ValueError("percentiles: expected values in [0, 100]")
    check_allocation("replicates", replicates, 8.0 * 2 * replicates * x.size)
    rng = np.random.default_rng(rng)
    start = step if min_runs is None else check_int("min_runs", min_runs, minimum=2)
    rows = []
    for runs in range(start, x.size + 1, step):
        sample = x[:runs]
        observed = np.percentile(sample, q)
        resamples = sample[rng.integers(0, runs, size=(replicates, runs))]
        lower, upper = np.quantile(
            np.percentile(resamples, q, axis=1), [(1 - confidence) / 2, (1 + confidence) / 2], axis=1
        )
        half = np.maximum(observed - lower, upper - observed)
        scale = np.abs(observed)
        with np.errstate(divide="ignore", invalid="ignore"):
            relative = np.where(scale > 0, half / scale, np.where(half > 0, np.inf, 0.0))
        worst = float(np.max(relative))
        rows.append({"runs": runs, "worst_relative_half_width": worst})
        if worst <= margin:
            return StoppingResult(True, runs, sample, pd.DataFrame(rows))
    return StoppingResult(False, x.size, x, pd.DataFrame(rows))
