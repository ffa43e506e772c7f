"""A stopping rule as an object: the anytime-valid sequences kept up one observation at a time behind one
protocol (:class:`RunningRule`: ``add``, ``current``, ``centre``, ``rounds_needed``), as benchstat's
``Assumption`` is one interface over its tests. ``perfstudy run``'s judge builds one per benchmark by the rule's
name (:func:`running_rule`) and then calls only the protocol, never the name.

- ``"sign"``: :class:`perfstudy.comparison.sign_sequence.RunningSign`, the sign confidence sequence for the
  median observation;
- ``"t"``: :class:`RunningT`, Lai's confidence sequence for the mean
  (:func:`perfstudy.comparison.sequential.t_confidence_sequence`).
"""

from __future__ import annotations

import math
from typing import Protocol, runtime_checkable

import numpy as np

from perfstudy._lib.checks import check_choice, check_fraction, check_int, check_real

__all__ = ["RunningRule", "RunningT", "running_rule", "RULE_METHODS", "RULE_INTERVALS"]

#: each rule's ``method``, as a comparison's row names it
RULE_METHODS = {"sign": "sign sequence", "t": "sequence"}

#: each rule's interval, in the words of a comparison's note on a paired row
RULE_INTERVALS = {
    "sign": "anytime-valid interval for the median round (the sign confidence sequence, intersected over the "
    "rounds), valid however the run decided to stop and whatever the load did to single rounds",
    "t": "anytime-valid interval (Lai's confidence sequence, intersected over the rounds so that it agrees "
    "with the anytime p-value), valid however the run decided to stop",
}


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


def running_rule(rule: str, confidence: float = 0.95) -> RunningRule:
    """The stopping rule named ``rule`` (one of :data:`perfstudy.comparison.SEQUENTIAL_RULES`), ready for
    observations.

    Parameters
    ----------
    rule : {"sign", "t"}
    confidence : float
    """
    from perfstudy.comparison._intervals import SEQUENTIAL_RULES
    from perfstudy.comparison.sign_sequence import RunningSign

    check_choice("rule", rule, SEQUENTIAL_RULES)
    return RunningSign(confidence) if rule == "sign" else RunningT(confidence)
