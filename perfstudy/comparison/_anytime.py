"""What the two anytime-valid sequences share: a sequence after every observation, its table, and its interval now.

:class:`perfstudy.comparison.sequential.ConfidenceSequence` (Lai's, for a mean) and
:class:`perfstudy.comparison.sign_sequence.SignSequence` (the sign sequence, for a median) differ in their centre
and in how they are computed; a run reads both the same way.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    import numpy as np

__all__ = ["AnytimeSequence"]


class AnytimeSequence:
    """The base of a frozen dataclass with fields ``n``, ``low``, ``high``, ``p_values``, ``running_low``,
    ``running_high`` and the field :attr:`CENTRE` names (the running centre).

    The intervals so far intersected (``running_low``, ``running_high``) are the sequence a run reports: NaN
    where they share no point.
    """

    #: the field that holds the running centre: ``"mean"`` or ``"median"``
    CENTRE: ClassVar[str]
    # the fields every such sequence has (annotations only: the dataclass that derives from this base holds them)
    n: np.ndarray
    low: np.ndarray
    high: np.ndarray
    p_values: np.ndarray
    running_low: np.ndarray
    running_high: np.ndarray

    @property
    def centre(self) -> np.ndarray:
        """The running centre: the field :attr:`CENTRE` names."""
        return getattr(self, self.CENTRE)

    def to_frame(self):
        """One row per number of observations (a one-dimensional input only)."""
        import pandas as pd

        if self.centre.ndim != 1:
            raise ValueError("to_frame: one row per n needs one sequence; index the arrays for a batch of them")
        return pd.DataFrame(
            {
                "n": self.n,
                self.CENTRE: self.centre,
                "low": self.low,
                "high": self.high,
                "p_value": self.p_values,
                "running_low": self.running_low,
                "running_high": self.running_high,
            }
        )

    def current(self) -> tuple[float, float, float]:
        """``(low, high, p_value)`` after the last observation (a one-dimensional input): the intersection of the
        intervals so far, which agrees with the anytime p-value, or the last interval where they share no point."""
        if self.centre.ndim != 1:
            raise ValueError("current: one interval needs one sequence; index the arrays for a batch of them")
        low, high = float(self.running_low[-1]), float(self.running_high[-1])
        if math.isnan(low):
            low, high = float(self.low[-1]), float(self.high[-1])
        return low, high, float(self.p_values[-1])
