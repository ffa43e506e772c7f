"""The stopping rules, one object each, in one registry (:data:`RULES`): a rule owns its name, its words, its
batch form (the sequence over a run's rounds, for :func:`perfstudy.comparison.compare` and a run's table) and its
online form (kept up round by round behind :class:`RunningRule`: ``add``, ``current``, ``centre``,
``rounds_needed``), as benchstat's ``Assumption`` is one interface over its tests. Nothing outside this module
branches on a rule's name: callers look the rule up (:func:`stopping_rule`) and use its attributes.

- ``"sign"``: :class:`SignRule`, the sign confidence sequence for the median round
  (:mod:`perfstudy.comparison.sign_sequence`);
- ``"t"``: :class:`TRule`, Lai's confidence sequence for the mean round
  (:func:`perfstudy.comparison.sequential.t_confidence_sequence`).

Adding a rule is a subclass of :class:`StoppingRule`, its entry in :data:`RULES` and in :data:`RuleName`, and its
tests.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol, runtime_checkable

import numpy as np

from perfstudy._lib.checks import check_choice, check_fraction, check_int, check_numbers, check_real

if TYPE_CHECKING:
    from perfstudy.comparison._anytime import AnytimeSequence

__all__ = [
    "RunningRule",
    "RunningT",
    "StoppingRule",
    "SignRule",
    "TRule",
    "RULES",
    "RuleName",
    "stopping_rule",
    "running_rule",
    "rules_help",
]

#: the names of the rules, for signatures (:data:`RULES` holds one rule of each name; a test holds the two equal)
RuleName = Literal["t", "sign"]


@runtime_checkable
class RunningRule(Protocol):
    """What a stopping rule offers a run's judge, after each observation (a round's log-ratio)."""

    def add(self, observation: float) -> None:
        """One more observation."""
        ...

    def current(self) -> tuple[float, float, float]:
        """``(low, high, p_value)``: the interval, intersected over the observations so far, and the anytime
        p-value of no change."""
        ...

    @property
    def centre(self) -> float:
        """The estimate the interval is about: the median (sign) or the mean (t) observation."""
        ...

    def rounds_needed(self, gap: float, *, limit: int = 100_000) -> int:
        """About how many observations in all before the half-width is below ``gap`` (a progress bar's guess)."""
        ...


class RunningT:
    """Lai's confidence sequence for the mean (:func:`perfstudy.comparison.sequential.t_confidence_sequence`)
    behind :class:`RunningRule`: the observations are kept, and :meth:`current` is the sequence's over all of
    them.

    Parameters
    ----------
    confidence : float
    """

    def __init__(self, confidence: float = 0.95):
        self.confidence = check_fraction("confidence", confidence)
        self.observations: list[float] = []

    def add(self, observation: float) -> None:
        """One more observation.

        Parameters
        ----------
        observation : float
            Finite.
        """
        value = check_real("observation", observation)  # finite, or refused by name
        self.observations.append(value)

    def current(self) -> tuple[float, float, float]:
        """``(low, high, p_value)`` of :func:`perfstudy.comparison.sequential.t_confidence_sequence` over the
        observations so far."""
        from perfstudy.comparison.sequential import t_confidence_sequence

        if not self.observations:
            return -math.inf, math.inf, 1.0
        return t_confidence_sequence(np.asarray(self.observations), self.confidence).current()

    @property
    def centre(self) -> float:
        """The mean observation (NaN before the first)."""
        return float(np.mean(self.observations)) if self.observations else math.nan

    def rounds_needed(self, gap: float, *, limit: int = 100_000) -> int:
        """:func:`perfstudy.comparison.sequential.rounds_needed` at the observations' SD so far.

        Parameters
        ----------
        gap : float
            The half-width that decides.
        limit : int
            The answer when fewer than two observations give no SD, or no ``n`` up to ``limit`` is enough.
        """
        from perfstudy.comparison.sequential import rounds_needed

        gap = check_real("gap", gap, positive=True)
        limit = check_int("limit", limit, minimum=2, maximum=10**12)
        if len(self.observations) < 2:
            return limit
        sd = float(np.std(self.observations, ddof=1))
        return rounds_needed(sd, gap, self.confidence, limit=limit)


class StoppingRule:
    """An anytime-valid stopping rule: what a run, a comparison of paired rounds and their tables need of it.

    Attributes
    ----------
    name : str
        How settings, the command line and records name it.
    centre : str
        What its interval is about, as a table's header says it (``"median round"``).
    method : str
        A comparison row's ``method``.
    interval : str
        Its interval in the words of a comparison's note on a paired row.
    how : str
        The sequence, as a run's table says it under the rows.
    summary : str
        When to choose it, as the command line's help says it.
    """

    name: ClassVar[str]
    summary: ClassVar[str]
    centre: ClassVar[str]
    method: ClassVar[str]
    interval: ClassVar[str]
    how: ClassVar[str]

    def sequence(self, observations: np.ndarray, confidence: float) -> AnytimeSequence:
        """The batch form: the sequence after each of ``observations``.

        Parameters
        ----------
        observations : ndarray
            A run's rounds (their log-ratios), in the order they ran.
        confidence : float

        Returns
        -------
        AnytimeSequence
        """
        return self._sequence(_observations(observations), check_fraction("confidence", confidence))

    def estimate(self, observations: np.ndarray) -> float:
        """The point the interval is about, over all of ``observations``.

        Parameters
        ----------
        observations : ndarray
        """
        return self._estimate(_observations(observations))

    def running(self, confidence: float = 0.95) -> RunningRule:
        """The online form, ready for observations.

        Parameters
        ----------
        confidence : float
        """
        return self._running(check_fraction("confidence", confidence))

    def _sequence(self, observations, confidence) -> AnytimeSequence:
        raise NotImplementedError

    def _estimate(self, observations) -> float:
        raise NotImplementedError

    def _running(self, confidence) -> RunningRule:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"stopping_rule({self.name!r})"


def _observations(observations) -> np.ndarray:
    """A run's rounds as a one-dimensional array of finite numbers, at least one, or refused by name."""
    values = check_numbers("observations", observations)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"observations: expected a sequence of at least one round, got shape {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError("observations: expected finite numbers")
    return values


class SignRule(StoppingRule):
    """The sign confidence sequence for the median round (:func:`perfstudy.comparison.sign_sequence.sign_confidence_sequence`)."""

    name = "sign"
    centre = "median round"
    method = "sign sequence"
    interval = (
        "anytime-valid interval for the median round (the sign confidence sequence, intersected over the "
        "rounds), valid however the run decided to stop and whatever the load did to single rounds"
    )
    how = "the sign confidence sequence for the median round's B/A"
    summary = "median round; valid under heavy tails and contention"

    def _sequence(self, observations, confidence):
        from perfstudy.comparison.sign_sequence import sign_confidence_sequence

        return sign_confidence_sequence(observations, confidence)

    def _estimate(self, observations):
        return float(np.median(observations))

    def _running(self, confidence):
        from perfstudy.comparison.sign_sequence import RunningSign

        return RunningSign(confidence)


class TRule(StoppingRule):
    """Lai's confidence sequence for the mean round (:func:`perfstudy.comparison.sequential.t_confidence_sequence`)."""

    name = "t"
    centre = "mean round"
    method = "sequence"
    interval = (
        "anytime-valid interval (Lai's confidence sequence, intersected over the rounds so that it agrees "
        "with the anytime p-value), valid however the run decided to stop"
    )
    how = "Lai's confidence sequence for the mean round's B/A"
    summary = "Lai's sequence for the mean round; quicker on a quiet machine only"

    def _sequence(self, observations, confidence):
        from perfstudy.comparison.sequential import t_confidence_sequence

        return t_confidence_sequence(observations, confidence)

    def _estimate(self, observations):
        return float(np.mean(observations))

    def _running(self, confidence):
        return RunningT(confidence)


#: every stopping rule, by name
RULES: dict[str, StoppingRule] = {rule.name: rule for rule in (TRule(), SignRule())}


def rules_help() -> str:
    """Every rule and when to choose it, for the command line's help."""
    return " or ".join(f"{rule.name} ({rule.summary})" for rule in RULES.values())


def stopping_rule(rule: str) -> StoppingRule:
    """The stopping rule called ``rule`` (a key of :data:`RULES`).

    Parameters
    ----------
    rule : {"t", "sign"}

    Returns
    -------
    StoppingRule
    """
    return RULES[check_choice("rule", rule, tuple(RULES))]


def running_rule(rule: str, confidence: float = 0.95) -> RunningRule:
    """The stopping rule named ``rule``, ready for observations: ``stopping_rule(rule).running(confidence)``.

    Parameters
    ----------
    rule : {"t", "sign"}
    confidence : float
    """
    return stopping_rule(rule).running(confidence)
