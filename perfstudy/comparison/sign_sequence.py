"""An anytime-valid confidence sequence for a median, from signs alone: the robust stopping rule.

Lai's sequence (:mod:`perfstudy.comparison.sequential`) is for the mean of normal observations. The
rounds of a run on a contended machine are not that: when background load comes and goes, a round in
which one version met the load and the other did not has a log-ratio of tens of percent, and the mean
of such rounds moves with every one of them. This sequence asks only for signs.

For a candidate median ``m``, let ``k_n(m)`` be how many of the first ``n`` observations lie above
``m`` (observations equal to ``m`` are left out and ``n`` counts the rest). If every observation's
conditional median given the past is ``m`` (no distribution, variance or independence of the sizes is
assumed; the load may come and go as it likes), each sign is a fair coin, and the mixture over
``p ~ Beta(c, c)`` of the likelihood ratios of ``p`` against ``1/2``,

    M_n(m) = 2^n B(k + c, n - k + c) / B(c, c),

is a nonnegative martingale with ``M_0 = 1`` (Robbins 1970, "Statistical methods related to the law of
the iterated logarithm", the method of mixtures; the sign-test form of the betting sequences of
Waudby-Smith & Ramdas, "Estimating means of bounded random variables by betting", JRSS-B 86(1), 2024,
with the bet integrated over a Beta prior).
Ville's inequality gives ``P(exists n: M_n(median) >= 1/alpha) <= alpha``. ``{m: M_n(m) < 1/alpha}``
is the interval between two order statistics of the first ``n`` observations, symmetric in their
ranks; the sequence returned is the running intersection of these intervals, and
``1 / max_{t <= n} M_t(null)`` is the anytime-valid p-value that agrees with it.

Why this is the median of a change: in a run, round ``r``'s log-ratio is ``log(1 + change) + e_r``
with ``e_r = log(stat(A'_r) / stat(A_r))`` for a multiplicative change, where ``A'`` is B's batch
with the change taken out. A random order within the round makes ``A`` and ``A'`` exchangeable
given the platform's state, so ``e_r`` is symmetric about 0 whatever the load did: its median is 0
and the median of the log-ratios is ``log(1 + change)`` exactly, for any batch statistic that scales
with the times (the mean, the median, the minimum).

``c`` (``concentration``) tunes the sequence: a large ``c`` puts the prior near ``p = 1/2``, which
pays for small shifts of the coin late and costs early stopping on large ones. The default, 2, was
chosen by the simulations of notebook 09 (``perfstudy.studies.running``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import ClassVar

import numpy as np

from perfstudy._lib.checks import check_fraction, check_int, check_numbers, check_real
from perfstudy._lib.result import Result
from perfstudy.comparison._anytime import AnytimeSequence

__all__ = [
    "SignSequence",
    "sign_confidence_sequence",
    "RunningSign",
    "sign_rounds_needed",
    "DEFAULT_CONCENTRATION",
]

#: ``c`` of the Beta(c, c) prior over the coin's bias (module text)
DEFAULT_CONCENTRATION = 2.0


@dataclass(frozen=True)
class SignSequence(AnytimeSequence, Result):
    """The sign confidence sequence for a median, after every observation (module text).

    Attributes
    ----------
    n : ndarray
        ``1, 2, ..., N``.
    median, low, high : ndarray
        The running median and the interval at each ``n`` alone, shaped as the input (``-inf``/``inf``
        while the interval is the whole line).
    running_low, running_high : ndarray
        The intersection of the intervals so far (NaN where they share no point): the confidence
        sequence a run reports, and the one that agrees with ``p_values``.
    p_values : ndarray
        ``min(1, 1 / max_{t <= n} M_t(null))``.
    confidence, concentration, null : float
    """

    n: np.ndarray
    median: np.ndarray
    low: np.ndarray
    high: np.ndarray
    running_low: np.ndarray
    running_high: np.ndarray
    p_values: np.ndarray
    confidence: float
    concentration: float
    null: float

    CENTRE: ClassVar[str] = "median"


def _check_concentration(concentration) -> float:
    concentration = check_real("concentration", concentration, positive=True)
    if not 1e-3 <= concentration <= 1e6:
        raise ValueError(f"concentration={concentration!r}: expected 0.001 to 1e6 (the Beta prior's c)")
    return concentration


def _log_sign_martingale(n, k, concentration: float = DEFAULT_CONCENTRATION) -> np.ndarray:
    """``log M_n`` for ``k`` of ``n`` signs above the candidate (module text); 0 where ``n == 0``.

    Parameters
    ----------
    n, k : array_like of int
        Observations (ties with the candidate left out) and how many lie above it.
    concentration : float
        ``c``.

    Returns
    -------
    ndarray
    """
    c = _check_concentration(concentration)
    n = np.asarray(n, dtype=float)
    k = np.asarray(k, dtype=float)
    lgamma = np.vectorize(math.lgamma, otypes=[float])
    log_beta_prior = 2 * math.lgamma(c) - math.lgamma(2 * c)
    return lgamma(k + c) + lgamma(n - k + c) - lgamma(n + 2 * c) - log_beta_prior + n * math.log(2.0)


def _log_m(n: int, k: int, c: float) -> float:
    """``log M_n`` for one count (module text), in plain floats."""
    return (
        math.lgamma(k + c)
        + math.lgamma(n - k + c)
        - math.lgamma(n + 2 * c)
        - (2 * math.lgamma(c) - math.lgamma(2 * c))
        + n * math.log(2.0)
    )


@cache
def _largest_accepted(n: int, concentration: float, alpha: float) -> int:
    """The largest ``k`` with ``M_n(k) < 1/alpha``: the accepted counts are ``n - K .. K``. ``M_n(k)`` grows
    with ``|k - n/2|``, so the count is found by walking out from the middle."""
    limit = math.log(1.0 / alpha)
    k = (n + 1) // 2
    if _log_m(n, k, concentration) >= limit:
        return k - 1
    while k < n and _log_m(n, k + 1, concentration) < limit:
        k += 1
    return k


def _accepted(n_max: int, concentration: float, alpha: float) -> np.ndarray:
    """:func:`_largest_accepted` for ``n = 1 .. n_max`` (index ``n - 1``)."""
    return np.array([_largest_accepted(n, concentration, alpha) for n in range(1, n_max + 1)])


def sign_confidence_sequence(
    x, confidence: float = 0.95, *, concentration: float = DEFAULT_CONCENTRATION, null: float = 0.0
) -> SignSequence:
    """The anytime-valid sign confidence sequence for the median of ``x`` after each observation.

    Parameters
    ----------
    x : array_like
        Observations along the last axis (rounds); leading axes are independent sequences.
    confidence : float
        The probability that the interval covers the median at every ``n`` at once.
    concentration : float
        ``c`` of the Beta(c, c) mixture (module text).
    null : float
        The median the p-value tests.

    Returns
    -------
    SignSequence
        Arrays shaped as ``x``: column ``j`` uses the first ``j + 1`` observations.

    Notes
    -----
    Valid (conservatively) whenever each observation's conditional median given the past is the
    median: heavy tails, mixtures, a variance that changes over the run. ``tests/comparison/
    test_sign_sequence.py`` checks the interval against a direct search of ``{m: M_n(m) < 1/alpha}``,
    the martingale against the Beta-Binomial mixture summed term by term, and the time-uniform
    coverage by simulation under Cauchy and contention-mixture rounds.
    """
    confidence = check_fraction("confidence", confidence)
    c = _check_concentration(concentration)
    null = check_real("null", null)
    values = check_numbers("x", x)
    if values.ndim == 0 or values.shape[-1] == 0:
        raise ValueError("x: expected at least one observation along the last axis")
    if not np.all(np.isfinite(values)):
        raise ValueError("x: expected finite observations")
    alpha = 1.0 - confidence
    total = values.shape[-1]
    largest = _accepted(total, c, alpha)
    shape = values.shape
    low = np.full(shape, -np.inf)
    high = np.full(shape, np.inf)
    median = np.empty(shape)
    for t in range(1, total + 1):
        first = values[..., :t]
        j = t - largest[t - 1]  # 1-based rank of the lower end; the upper end is rank t + 1 - j
        lower_middle, upper_middle = (t - 1) // 2, t // 2
        kth = sorted({lower_middle, upper_middle} | ({j - 1, t - j} if j >= 1 else set()))
        ordered = np.partition(first, kth, axis=-1)
        # halves first: the mean of two values near the float limit overflows as a sum
        median[..., t - 1] = 0.5 * ordered[..., lower_middle] + 0.5 * ordered[..., upper_middle]
        if j >= 1:
            low[..., t - 1] = ordered[..., j - 1]
            high[..., t - 1] = ordered[..., t - j]
    above = np.cumsum(values > null, axis=-1)
    counted = np.cumsum(values != null, axis=-1)
    log_m = _log_sign_martingale(counted, above, c)
    p_values = np.minimum(1.0, np.exp(-np.maximum.accumulate(log_m, axis=-1)))
    running_low = np.maximum.accumulate(low, axis=-1)
    running_high = np.minimum.accumulate(high, axis=-1)
    empty = running_low > running_high
    return SignSequence(
        n=np.arange(1, total + 1),
        median=median,
        low=low,
        high=high,
        running_low=np.where(empty, np.nan, running_low),
        running_high=np.where(empty, np.nan, running_high),
        p_values=p_values,
        confidence=confidence,
        concentration=c,
        null=null,
    )


class RunningSign:
    """The sign sequence kept up round by round, for a run's stopping rule: each :meth:`add` costs one
    insertion into the sorted rounds, where :func:`sign_confidence_sequence` recomputes every round.

    Parameters
    ----------
    confidence : float
    concentration : float
    null : float
    """

    def __init__(self, confidence: float = 0.95, concentration: float = DEFAULT_CONCENTRATION, null: float = 0.0):
        self.confidence = check_fraction("confidence", confidence)
        self.concentration = _check_concentration(concentration)
        self.null = check_real("null", null)
        self.ordered: list[float] = []
        self.low, self.high = -math.inf, math.inf
        self.last_low, self.last_high = -math.inf, math.inf
        self.above = self.counted = 0
        self.log_m_max = 0.0

    def add(self, observation: float) -> None:
        """One more observation.

        Parameters
        ----------
        observation : float
            Finite.
        """
        import bisect

        value = check_real("observation", observation)  # finite, or refused by name
        bisect.insort(self.ordered, value)
        t = len(self.ordered)
        j = t - _largest_accepted(t, self.concentration, 1.0 - self.confidence)
        self.last_low, self.last_high = (self.ordered[j - 1], self.ordered[t - j]) if j >= 1 else (-math.inf, math.inf)
        self.low, self.high = max(self.low, self.last_low), min(self.high, self.last_high)
        if value != self.null:
            self.counted += 1
            self.above += value > self.null
            self.log_m_max = max(self.log_m_max, _log_m(self.counted, self.above, self.concentration))

    @property
    def median(self) -> float:
        t = len(self.ordered)
        if not t:
            return math.nan
        return 0.5 * self.ordered[(t - 1) // 2] + 0.5 * self.ordered[t // 2]

    @property
    def centre(self) -> float:
        """The rule's centre: the median observation (:class:`perfstudy.comparison.running.RunningRule`)."""
        return self.median

    def rounds_needed(self, gap: float, *, limit: int = 100_000) -> int:
        """About how many observations the interval needs before its half-width is below ``gap``
        (:func:`sign_rounds_needed` on the interval now), for a progress bar.

        Parameters
        ----------
        gap : float
            The half-width that decides.
        limit : int
            The answer when the interval is unbounded or no ``n`` up to ``limit`` is enough.
        """
        gap = check_real("gap", gap, positive=True)
        limit = check_int("limit", limit, minimum=2, maximum=10**12)
        low, high, _ = self.current()
        return sign_rounds_needed(low, high, len(self.ordered), gap, limit=limit, confidence=self.confidence)

    def current(self) -> tuple[float, float, float]:
        """``(low, high, p_value)`` as :meth:`SignSequence.current` gives them after the same observations."""
        low, high = (self.low, self.high) if self.low <= self.high else (self.last_low, self.last_high)
        return low, high, min(1.0, math.exp(-self.log_m_max))


def sign_rounds_needed(
    low: float, high: float, rounds: int, gap: float, *, limit: int = 100_000, confidence: float = 0.95
) -> int:
    """About how many observations the sign sequence needs before its half-width is below ``gap``.

    The half-width of an interval between order statistics shrinks as ``sqrt(log(n) / n)`` of the
    rank distance; this scales the current half-width by the ratio of that rate at ``n`` to the rate
    now, and is meant for a progress bar, not for a decision.

    Parameters
    ----------
    low, high : float
        The current interval.
    rounds : int
        The observations it uses.
    gap : float
        The half-width that decides.
    limit : int
        The answer when the interval is unbounded or no ``n`` up to ``limit`` is enough.
    confidence : float

    Returns
    -------
    int
    """
    for name, value in (("low", low), ("high", high)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or value != value:
            raise TypeError(f"{name}={value!r}: expected a bound (a real number, or an infinity)")
    if low > high:
        raise ValueError(f"low, high: [{low}, {high}] is not an interval")
    rounds = check_int("rounds", rounds, minimum=0, maximum=10**12)
    gap = check_real("gap", gap, positive=True)
    limit = check_int("limit", limit, minimum=2, maximum=10**12)
    confidence = check_fraction("confidence", confidence)
    if not (math.isfinite(low) and math.isfinite(high)) or rounds < 2:
        return limit
    half = (high - low) / 2
    if half <= gap:
        return rounds
    # half(n) ~ half(rounds) * sqrt(log(n / alpha) * rounds / (n * log(rounds / alpha)))
    alpha = 1 - confidence
    now = math.log(rounds / alpha) / rounds
    n = rounds
    while n < limit:
        n = min(limit, int(n * 1.25) + 1)
        if half * math.sqrt(math.log(n / alpha) / n / now) <= gap:
            return n
    return limit
