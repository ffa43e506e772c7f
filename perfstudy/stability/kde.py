"""Gaussian kernel density estimates on a grid of strips: exact, and binned with an FFT.

PT4Cloud (He et al., ESEC/FSE 2019, section 3.1) partitions each distribution into 1,000 strips.
Here a strip's density is the KDE's *average over the strip* (its probability mass divided by
the strip width): no mass is lost however narrow the bandwidth, and when the bandwidth is wider
than a strip it equals the value at the strip's midpoint up to O((width / bandwidth)^2).

The exact estimate (``scipy.stats.gaussian_kde.integrate_box_1d`` per strip) costs ``n`` normal
CDFs per strip edge (6e7 for 60,000 runs); the binned estimate (Wand 1994; Silverman 1982) costs
O(n + M log M):

1. a fine grid of ``k`` nodes per strip, at the midpoints of ``k`` equal sub-strips, with ``k``
   chosen so that the node spacing ``delta <= bandwidth / 40``, extended to hold every point;
2. *linear binning*: each point puts weight ``1 - f`` on the node below it and ``f`` on the node
   above (``f`` its fractional position);
3. the binned weights convolved (by FFT, over the whole grid: no kernel truncation) with the
   Gaussian kernel sampled at multiples of ``delta``; each strip's density is the mean of its ``k``
   nodes (the midpoint rule inside the strip).

Linear binning makes an error of order ``(delta / bandwidth)^2 / 12`` relative to the density's
curvature, under 1e-4 here; tests bound the difference from the exact estimate. FFT round-off is
about 1e-16 of the peak: densities more than twelve orders of magnitude below the peak are noise,
which is why :mod:`perfstudy.stability.pt4cloud` floors densities at 1e-12 of the peak.

The bandwidth is Scott's rule, ``sd(x) n^(-1/5)`` (sd with ddof = 1), scipy's default.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import fft as sfft

from perfstudy._lib.checks import check_allocation, check_int, check_real, check_resamples, check_sample
from perfstudy._lib.types import Seed

__all__ = [
    "GridTooFine",
    "scott_bandwidth",
    "Grid",
    "strip_grid",
    "exact_density",
    "binned_density",
    "bootstrap_densities",
]

#: fine-grid spacing is at most the bandwidth divided by this
RESOLUTION = 40
#: refuse fine grids beyond this many nodes (a bandwidth tiny against the range: heavy outliers)
MAX_NODES = 1 << 22
#: most strips a grid may have
MAX_STRIPS = 1 << 22


class GridTooFine(ValueError):
    """The bandwidth is so small against the range of the data that the fine grid would be too large."""


def scott_bandwidth(x: np.ndarray) -> float:
    """Scott's rule, ``sd(x, ddof=1) * n^(-1/5)``: scipy's ``gaussian_kde`` default in one dimension.

    Parameters
    ----------
    x : ndarray, 1-D
        The sample (at least two distinct values).
    """
    x = check_sample("x", x, minimum=2, method="a bandwidth")
    return float(np.std(x, ddof=1) * x.size ** (-0.2))


def _check_grid(grid):
    if not isinstance(grid, Grid):
        raise TypeError(f"grid={grid!r}: expected a Grid, such as strip_grid(x)")
    return grid


def _check_x(x) -> np.ndarray:
    return check_sample("x", x, minimum=1)


class Grid:
    """``n`` strips of equal width ``step`` from ``lo``; densities are evaluated at their midpoints.

    Parameters
    ----------
    lo : float
        Left edge of the first strip.
    step : float
        Width of a strip.
    n : int
        Number of strips.
    """

    __slots__ = ("lo", "step", "n")

    def __init__(self, lo: float, step: float, n: int):
        self.lo = check_real("lo", lo)
        self.step = check_real("step", step, positive=True)
        self.n = check_int("n", n, maximum=MAX_STRIPS)
        if not math.isfinite(self.lo + self.n * self.step):
            raise ValueError(f"step={step!r}, n={n!r}: the grid's right edge is not a finite number")

    @property
    def midpoints(self) -> np.ndarray:
        return self.lo + (np.arange(self.n) + 0.5) * self.step

    @property
    def hi(self) -> float:
        return self.lo + self.n * self.step


def strip_grid(*samples: np.ndarray, strips: int = 1000) -> Grid:
    """``strips`` strips over the range covered by all ``samples`` together.

    Parameters
    ----------
    *samples : ndarray
        One or more samples; the grid covers their union.
    strips : int
        Number of strips.
    """
    strips = check_int("strips", strips, maximum=MAX_STRIPS)
    if not samples:
        raise ValueError("samples: expected at least one sample")
    samples = [check_sample("samples", s) for s in samples]
    lo = min(float(np.min(s)) for s in samples)
    hi = max(float(np.max(s)) for s in samples)
    if not hi > lo:
        raise ValueError("the samples have no spread: every value is the same, so no density can be estimated")
    return Grid(lo, (hi - lo) / strips, strips)


def exact_density(x: np.ndarray, grid: Grid, bandwidth: float) -> np.ndarray:
    """The Gaussian KDE of ``x`` averaged over each strip, exactly: each point's kernel mass in the strip
    ``[a, b)``, ``Phi((b - x_i) / h) - Phi((a - x_i) / h)``, summed over the points and divided by ``n`` and the
    strip width (what ``scipy.stats.gaussian_kde.integrate_box_1d`` gives strip by strip, at once for every strip).

    Each edge's smaller tail is computed once, and a strip above a point is the difference of its upper tails,
    ``Phi(-(a - x_i) / h) - Phi(-(b - x_i) / h)``, so that far tails keep their digits instead of cancelling against
    1. Costs ``n (M + 1)`` normal CDFs for ``M`` strips, in blocks of points.

    Parameters
    ----------
    x : ndarray, 1-D
        The sample.
    grid : Grid
        The strips.
    bandwidth : float
        Standard deviation of the Gaussian kernel.

    Returns
    -------
    ndarray, shape (grid.n,)
    """
    from scipy.special import ndtr

    x = check_sample("x", x, minimum=2, method="the exact density (a sum of normal CDFs)")
    grid = _check_grid(grid)
    bandwidth = check_real("bandwidth", bandwidth, positive=True)
    edges = grid.lo + np.arange(grid.n + 1) * grid.step
    mass = np.zeros(grid.n)
    block = max(1, (1 << 21) // (grid.n + 1))  # points a block: about 16 MiB of CDFs
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for start in range(0, x.size, block):
            z = (edges[None, :] - x[start : start + block, None]) / bandwidth
            tail = ndtr(-np.abs(z))  # the smaller tail at each edge: above the point, the upper one
            low, high = tail[:, :-1], tail[:, 1:]
            inside = np.where(z[:, 1:] <= 0, high - low, 1.0 - low - high)  # below the point, or around it
            mass += np.sum(np.where(z[:, :-1] > 0, low - high, inside), axis=0)
    density = mass / (x.size * grid.step)
    if not np.all(np.isfinite(density)):
        raise ValueError(f"bandwidth={bandwidth!r}: too large against the data for a density in floating point")
    return density


def _fine(grid: Grid, bandwidth: float, lo_data: float, hi_data: float, resolution: float = RESOLUTION):
    """Fine grid: ``k`` nodes per strip at sub-strip midpoints, spacing ``delta`` <= bandwidth / resolution,
    extended beyond the strips to hold every point. Returns the first node, ``delta``, ``k``, the
    number of nodes before the first strip, and the number of nodes."""
    k = max(1, math.ceil(resolution * grid.step / bandwidth))
    delta = grid.step / k
    first = grid.lo + 0.5 * delta  # the first node inside the strips
    below = max(0, math.ceil((first - lo_data) / delta)) + 1
    last = grid.hi - 0.5 * delta
    above = max(0, math.ceil((hi_data - last) / delta)) + 1
    nodes = below + grid.n * k + above
    if nodes > MAX_NODES:
        raise GridTooFine(
            f"the bandwidth ({bandwidth:.3g}) is too small against the range of the data for a "
            f"binned estimate ({nodes} nodes, at a resolution of {resolution:g} nodes per bandwidth); "
            "use method='exact' or a lower resolution"
        )
    return first - below * delta, delta, k, below, nodes


def _binning(x: np.ndarray, grid: Grid, bandwidth: float, resolution: float = RESOLUTION):
    origin, delta, k, below, nodes = _fine(grid, bandwidth, float(x.min()), float(x.max()), resolution)
    position = (x - origin) / delta
    left = np.floor(position).astype(np.int64)
    return left, position - left, delta, k, below, nodes


def _smooth(
    counts: np.ndarray, n: int, grid: Grid, bandwidth: float, delta: float, k: int, below: int, nodes: int
) -> np.ndarray:
    """Convolve binned counts (..., nodes) with the Gaussian kernel by FFT; average each strip's nodes."""
    size = sfft.next_fast_len(2 * nodes)
    # the kernel at every node offset -(nodes-1)..(nodes-1), in FFT (wrap-around) order: no truncation
    lags = np.arange(size, dtype=float)
    lags = np.where(lags < size / 2, lags, lags - size)
    kernel = np.exp(-0.5 * (lags * delta / bandwidth) ** 2) / (bandwidth * math.sqrt(2 * math.pi))
    smoothed = sfft.irfft(sfft.rfft(counts, size, axis=-1) * sfft.rfft(kernel), size, axis=-1)
    inside = smoothed[..., below : below + grid.n * k]
    return inside.reshape(*inside.shape[:-1], grid.n, k).mean(axis=-1) / n


def binned_density(x: ArrayLike, grid: Grid, bandwidth: float) -> np.ndarray:
    """The Gaussian KDE of ``x`` averaged over each strip, by linear binning and an FFT convolution.

    Parameters
    ----------
    x : array_like, 1-D
        The sample.
    grid : Grid
        The strips (from :func:`strip_grid`).
    bandwidth : float
        Standard deviation of the Gaussian kernel.

    Returns
    -------
    ndarray, shape (grid.n,)
    """
    x = _check_x(x)
    grid = _check_grid(grid)
    bandwidth = check_real("bandwidth", bandwidth, positive=True)
    left, upper, delta, k, below, nodes = _binning(x, grid, bandwidth)
    counts = np.bincount(left, 1.0 - upper, minlength=nodes + 1) + np.bincount(left + 1, upper, minlength=nodes + 1)
    return _smooth(counts[:nodes], x.size, grid, bandwidth, delta, k, below, nodes)


def bootstrap_densities(
    x,
    grid: Grid,
    bandwidth: float,
    *,
    replicates: int,
    chunk: int = 100,
    resolution: float = float(RESOLUTION),
    rng: Seed = None,
) -> np.ndarray:
    """KDEs of ``replicates`` bootstrap resamples of ``x`` (same bandwidth), averaged over each strip.

    Resample ``r`` is ``x[i]`` for ``i`` = ``rng.integers(0, n, (chunk, n), dtype=int32)`` row by row,
    chunk after chunk. A resample's binned weights are its multiplicities times the sparse
    linear-binning matrix of ``x``, so each replicate costs O(n) plus one batched FFT.

    Parameters
    ----------
    x : array, shape (n,)
        The sample.
    grid : Grid
        The strips.
    bandwidth : float
        The Gaussian kernel's standard deviation (the original sample's, for every resample).
    replicates : int
        Resamples.
    chunk : int
        Resamples drawn and binned at once (memory ``chunk * n``).
    resolution : float
        Fine-grid nodes per bandwidth.
    rng : None, int, SeedSequence or Generator
        Draws the resamples.

    Returns
    -------
    ndarray, shape (replicates, grid.n)
    """
    from scipy import sparse

    x = _check_x(x)
    grid = _check_grid(grid)
    bandwidth = check_real("bandwidth", bandwidth, positive=True)
    replicates = check_resamples("replicates", replicates)
    chunk = check_int("chunk", chunk)
    resolution = check_real("resolution", resolution, positive=True)
    n = x.size
    check_allocation("replicates", replicates, 8.0 * replicates * grid.n, what="the densities (replicates x strips)")
    chunk = min(chunk, replicates)
    check_allocation("chunk", chunk, 40.0 * chunk * n, what="one chunk of resamples (chunk x n)")
    rng = np.random.default_rng(rng)
    left, upper, delta, k, below, nodes = _binning(x, grid, bandwidth, resolution)
    rows = np.r_[left, left + 1]
    columns = np.r_[np.arange(n), np.arange(n)]
    binning = sparse.csr_matrix((np.r_[1.0 - upper, upper], (rows, columns)), shape=(nodes + 1, n))
    out = np.empty((replicates, grid.n))
    for start in range(0, replicates, chunk):
        size = min(chunk, replicates - start)
        draws = rng.integers(0, n, size=(size, n), dtype=np.int32)
        offsets = (np.arange(size, dtype=np.int64) * n)[:, None]
        multiplicity = np.bincount((draws + offsets).ravel(), minlength=size * n).reshape(size, n)
        counts = (binning @ multiplicity.T.astype(float)).T[:, :nodes]
        out[start : start + size] = _smooth(counts, n, grid, bandwidth, delta, k, below, nodes)
    return out
