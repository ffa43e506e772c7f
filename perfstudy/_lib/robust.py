"""The robust SD every package uses: 1.4826 times the median absolute deviation, and the noise between neighbours."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["MAD_SD", "mad_sd", "neighbour_noise"]

#: ``1 / Phi^-1(3/4)``: the MAD of a normal sample times this estimates its SD
MAD_SD = 1.4826


def mad_sd(values) -> float:
    """``1.4826 * median(|x - median(x)|)``: the SD of a normal sample, robustly (NaN for no values)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return math.nan
    return MAD_SD * float(np.median(np.abs(x - np.median(x))))


def neighbour_noise(y) -> float:
    """The SD of a series about its level, robustly: :func:`mad_sd` of the differences of neighbours over
    ``sqrt 2`` (a change of level moves one difference, not the estimate). 0 for fewer than 3 points."""
    y = np.asarray(y, dtype=float)
    if y.size < 3:
        return 0.0
    return mad_sd(np.diff(y)) / math.sqrt(2)
