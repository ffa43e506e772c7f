"""Percentiles of bootstrap replicates, as :func:`numpy.quantile` computes them, without importing numpy.ma.

``np.quantile`` calls ``np.unique`` on its partition indices, and numpy 2.4's ``np.unique`` without
options asks ``np.ma.is_masked``: importing numpy.ma costs ``perfstudy compare`` 18 ms of its start on
2 cores, a tenth of benchstat's whole run at 200 benchmarks. :func:`linear_quantiles` is numpy's default
method (Hyndman & Fan's definition 7, ``h = (n - 1) p``) with numpy's own interpolation, so that the
bounds agree to the last bit; ``tests/_lib/test_quantiles.py`` checks that they do.
"""

from __future__ import annotations

import numpy as np

__all__ = ["linear_quantiles"]


def linear_quantiles(x: np.ndarray, probabilities) -> np.ndarray:
    """The quantiles of ``x`` along its first axis: ``np.quantile(x, probabilities, axis=0)``.

    Hyndman & Fan (1996), definition 7: with the ``n`` values sorted, the ``p`` quantile lies ``g = h -
    floor(h)`` of the way from the ``floor(h)``-th value to the next, ``h = (n - 1) p``. The interpolation is
    numpy's ``_lerp``: ``a + (b - a) g``, or ``b - (b - a)(1 - g)`` where ``g >= 0.5``. A column holding NaN
    gives NaN, as ``np.quantile``'s does.

    Parameters
    ----------
    x : array of float, shape ``(n, ...)``
        The values, ``n >= 1`` along the first axis.
    probabilities : sequence of float
        Each in ``[0, 1]``.

    Returns
    -------
    array of float, shape ``(len(probabilities), ...)``
    """
    x = np.asarray(x, dtype=float)
    p = np.asarray(probabilities, dtype=float)
    n = x.shape[0]
    if n == 0 or p.ndim != 1 or not np.all((p >= 0.0) & (p <= 1.0)):
        raise ValueError(f"linear_quantiles needs values and probabilities in [0, 1]; got {n} values, {p!r}")
    h = (n - 1) * p
    below = np.floor(h).astype(np.int64)
    above = np.minimum(below + 1, n - 1)
    kth = sorted({0, n - 1, *below.tolist(), *above.tolist()})
    ordered = np.partition(x, kth, axis=0)
    a, b = ordered[below], ordered[above]
    g = (h - below).reshape((-1,) + (1,) * (x.ndim - 1))
    difference = b - a
    result = np.asarray(a + difference * g)
    np.subtract(b, difference * (1 - g), out=result, where=np.broadcast_to(g >= 0.5, result.shape))
    return np.where(np.isnan(ordered[-1]), np.nan, result)
