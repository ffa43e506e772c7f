"""Weighted clustered bootstraps of a difference in means, vectorised over experiments.

Bakshy & Frachtenberg, WWW 2015, section 5.1: each replicate ``r`` gives every cluster (observation,
request, host, host block) a mean-one random weight and recomputes

    delta*_r = sum_i w_r,c(i) y_i [D_i = 1] / N*_r  -  sum_i w_r,c(i) y_i [D_i = 0] / M*_r,

where ``N*_r`` and ``M*_r`` are the summed weights under treatment and control. With several
clustering factors the observation weight is the product of the per-level weights (Owen & Eckles
2012). Confidence intervals use the CLT (the paper's choice) or the percentiles.

Computation: observations are summed into cells (one per combination of cluster levels and
condition) by one sparse product, so a replicate costs one dot product per cell, and all
replicates of many experiments are one dense matrix product.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse, stats
from scipy.sparse.csgraph import connected_components

from perfstudy._lib.checks import check_allocation, check_fraction, check_resamples, check_version
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed

__all__ = [
    "WEIGHTS",
    "DENOMINATORS",
    "BootstrapResult",
    "check_denominator",
    "check_denominators",
    "check_weights",
    "clustered_bootstrap",
    "clustered_bootstraps",
    "host_blocks",
]

#: Mean-one weight laws: Poisson(1) (the online bootstrap), Uniform(0, 2) and Exponential(1) (the Bayesian
#: bootstrap, Rubin 1981).
WEIGHTS = ("poisson", "uniform", "exponential")
#: Each law's variance. A replicate's deviation from ``delta_hat`` is, to first order, linear in ``w - 1``, so a
#: law of variance ``v`` spreads the replicates ``sqrt(v)`` times as far as Poisson(1) does; :func:`clustered_bootstrap`
#: divides the deviations by ``sqrt(v)``, so every law estimates the same standard error (section 5.1 names
#: Uniform(0, 2), whose variance is 1/3: unscaled, its SEs and intervals would be ``sqrt(3)`` times too narrow).
WEIGHT_VARIANCE = {"poisson": 1.0, "uniform": 1.0 / 3.0, "exponential": 1.0}


def check_weights(weights: str) -> str:
    """``weights`` if it is one of :data:`WEIGHTS`, else a ValueError naming the argument.

    Parameters
    ----------
    weights : str
        A name from :data:`WEIGHTS` (``"poisson"``, ``"uniform"``, ``"exponential"``).
    """
    if weights not in WEIGHTS:
        raise ValueError(f"weights={weights!r}: expected one of {', '.join(map(repr, WEIGHTS))}")
    return weights


#: What a replicate's weighted sum is divided by: ``"weights"``, the sum of the weights in the
#: condition (``N*_r`` of section 5.1, a ratio estimator: adding a constant to ``y`` leaves every
#: replicate difference unchanged), or ``"counts"``, the number of observations (the weights'
#: expectation; the replicate difference then moves with the level of ``y``, see
#: :func:`clustered_bootstrap`).
DENOMINATORS = ("weights", "counts")


def check_denominator(denominator: str) -> str:
    """``denominator`` if it is one of :data:`DENOMINATORS`, else a ValueError naming the argument.

    Parameters
    ----------
    denominator : str
        ``"weights"`` or ``"counts"``.
    """
    if denominator not in DENOMINATORS:
        raise ValueError(f"denominator={denominator!r}: expected one of {', '.join(map(repr, DENOMINATORS))}")
    return denominator


#: Redraw attempts for replicates where a condition got zero total weight, before giving up.
_MAX_REDRAWS = 1000


@dataclass(frozen=True, eq=False)
class BootstrapResult(Result):
    """Bootstrap of the difference in means, treatment minus control.

    Attributes
    ----------
    estimate : float or ndarray, shape (experiments,)
        ``delta_hat``, the difference in (unweighted) means.
    standard_error : float or ndarray
        Standard deviation (ddof=1) of the replicates.
    distribution : ndarray, shape (replicates,) or (experiments, replicates)
        The replicates ``delta*_r``.
    replicates : int
    weights : str
    redrawn : int
        Replicates redrawn because a condition received zero total weight (see
        :func:`clustered_bootstrap`).
    clusters_per_condition : (int, int)
        Clusters resampled in the control and the treatment condition.
    denominator : {"weights", "counts"}
        What each replicate's weighted sums were divided by (:data:`DENOMINATORS`).
    """

    estimate: float | np.ndarray
    standard_error: float | np.ndarray
    distribution: np.ndarray
    replicates: int
    weights: str
    redrawn: int
    clusters_per_condition: tuple[int, int]
    denominator: str = "weights"

    def critical_value(self, confidence: float = 0.95, method: str = "normal") -> float:
        """The multiplier of ``standard_error`` in a ``"normal"`` or ``"t"`` interval.

        Parameters
        ----------
        confidence : float
            Coverage of the two-sided interval, in (0, 1).
        method : {"normal", "t"}
            The normal quantile ``z_{(1+confidence)/2}``, or Student's t on ``C - 1`` degrees of
            freedom, ``C`` the fewer clusters of the two conditions.
        """
        confidence = check_fraction("confidence", confidence)
        if method == "normal":
            return float(stats.norm.ppf(0.5 + confidence / 2))
        if method == "t":
            return float(stats.t.ppf(0.5 + confidence / 2, df=max(1, min(self.clusters_per_condition) - 1)))
        raise ValueError(f"method={method!r}: expected 'normal' or 't'")

    def confidence_interval(self, confidence: float = 0.95, method: str = "normal"):
        """``(low, high)`` at ``confidence``.

        Parameters
        ----------
        confidence : float
            Coverage of the two-sided interval, in (0, 1).
        method : {"normal", "t", "percentile"}
            ``"normal"``: ``estimate +- z_{(1+confidence)/2} standard_error``, the CLT interval of
            section 5.1 (the paper's choice). ``"t"``: the same with Student's t on ``C - 1``
            degrees of freedom, ``C`` the fewer clusters of the two conditions; with few clusters the
            bootstrap SE is itself noisy and the normal interval is too narrow. ``"percentile"``:
            the ``(1-confidence)/2`` and ``(1+confidence)/2`` quantiles of the replicates.

        Returns
        -------
        low, high : float or ndarray, shape (experiments,)
        """
        confidence = check_fraction("confidence", confidence)
        if method in ("normal", "t"):
            half = self.critical_value(confidence, method) * np.asarray(self.standard_error)
            low, high = np.asarray(self.estimate) - half, np.asarray(self.estimate) + half
        elif method == "percentile":
            low, high = np.quantile(self.distribution, [0.5 - confidence / 2, 0.5 + confidence / 2], axis=-1)
        else:
            raise ValueError(f"method={method!r}: expected 'normal', 't' or 'percentile'")
        if np.ndim(self.estimate) == 0:
            return float(low), float(high)
        return low, high

    def to_frame(self, confidence: float = 0.95, method: str = "normal") -> pd.DataFrame:
        """One row per experiment: ``estimate``, ``standard_error``, and the interval's ``low`` and ``high``.

        Parameters
        ----------
        confidence, method
            As in :meth:`confidence_interval`.
        """
        low, high = self.confidence_interval(confidence, method)
        return pd.DataFrame(
            {
                "estimate": np.atleast_1d(self.estimate),
                "standard_error": np.atleast_1d(self.standard_error),
                "low": np.atleast_1d(low),
                "high": np.atleast_1d(high),
            }
        )


def host_blocks(host, request) -> np.ndarray:
    """Host-block labels for the host-block bootstrap (section 5.2).

    Hosts that served a common request are joined (transitively) into one block, so that "pairs of
    hosts that execute the same requests are bootstrapped" together and request balance survives
    resampling. In the request-balanced design each block is a control host and its treatment twin.

    Parameters
    ----------
    host, request : array_like, shape (n,)
        Host and request label of each observation.

    Returns
    -------
    ndarray of int, shape (n,)
        The block of each observation's host.
    """
    host, request = _ids("host", host), _ids("request", request)
    if host.shape != request.shape:
        raise ValueError("host, request: expected one-dimensional arrays of the same length")
    host_codes, host_index = np.unique(host, return_inverse=True)
    _, request_index = np.unique(request, return_inverse=True)
    n_hosts, n_requests = host_codes.size, request_index.max() + 1
    # bipartite graph hosts -- requests; components give the blocks
    graph = sparse.coo_matrix(
        (np.ones(host.size), (host_index, n_hosts + request_index)),
        shape=(n_hosts + n_requests, n_hosts + n_requests),
    )
    _, labels = connected_components(graph, directed=False)
    return np.unique(labels[:n_hosts], return_inverse=True)[1][host_index]


@dataclass(frozen=True, eq=False)
class _Cells:
    """Observations grouped by (cluster levels..., condition), the control's cells first: each condition's
    cells are one contiguous slice, so that its weights and sums are views, not copies."""

    indicator: sparse.csr_matrix | None  # (cells, n); None for iid (cells are observations)
    version: np.ndarray  # (cells,), sorted: 0s then 1s
    counts: np.ndarray  # (cells,)
    factor_codes: tuple[np.ndarray, ...]  # per factor, the level of each cell
    factor_levels: tuple[int, ...]
    order: np.ndarray | None = None  # iid: the observation of each cell (y's columns in cell order)

    @property
    def split(self) -> int:
        """The first treatment cell: ``slice(0, split)`` is the control's cells, ``slice(split, None)`` the treatment's."""
        return int(np.searchsorted(self.version, 1))


def _ids(name: str, labels) -> np.ndarray:
    """Integer ids, one-dimensional, none missing."""
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size == 0:
        raise ValueError(f"{name}: expected a non-empty one-dimensional array of ids")
    if labels.dtype.kind == "f":
        if not (np.isfinite(labels).all() and (labels == np.floor(labels)).all()):
            raise ValueError(f"{name}: expected integer ids (no NaN, inf or fractions)")
        labels = labels.astype(np.int64)
    if labels.dtype.kind not in "iu":
        raise TypeError(f"{name}: expected integer ids, got dtype {labels.dtype}")
    if (labels < 0).any():
        raise ValueError(f"{name}: expected non-negative ids")
    return labels


def _prepare(y, version, clusters):
    try:
        y = np.asarray(y, dtype=float)
    except (ValueError, TypeError):
        raise TypeError("y: expected numbers, shape (observations,) or (experiments, observations)") from None
    single = y.ndim == 1
    y2 = y[None, :] if single else y
    if y2.ndim != 2 or y2.shape[1] == 0:
        raise ValueError("y: expected shape (observations,) or (experiments, observations)")
    if not np.all(np.isfinite(y2)):
        raise ValueError("y: contains NaN or inf")
    n = y2.shape[1]
    version = np.asarray(version)
    if version.shape != (n,):
        raise ValueError(f"version: expected {n} entries (one per observation in y), got shape {version.shape}")
    version = check_version(version)

    if clusters is None:
        factors = ()
    elif isinstance(clusters, tuple):
        factors = clusters
        if not factors:
            raise ValueError("clusters: an empty tuple; pass None for the iid bootstrap")
    else:
        factors = (clusters,)
    codes = []
    for k, labels in enumerate(factors):
        labels = np.asarray(labels)
        name = "clusters" if len(factors) == 1 else f"clusters[{k}]"
        if labels.shape != (n,):
            raise ValueError(f"{name}: expected {n} labels (one per observation in y), got shape {labels.shape}")
        if pd.isna(labels).any():
            raise ValueError(f"{name}: {int(pd.isna(labels).sum())} labels are missing (NaN or None)")
        codes.append(np.unique(labels, return_inverse=True)[1].reshape(-1))
    for d in (0, 1):
        if not codes and (version == d).sum() < 2:
            raise ValueError(
                f"version: condition {d} has a single observation; its variance cannot be estimated "
                "(the bootstrap's standard error would be 0)"
            )
        if codes and all(np.unique(c[version == d]).size < 2 for c in codes):
            raise ValueError(
                f"clusters: condition {d} has a single cluster; its between-cluster variance "
                "cannot be estimated (use more clusters or a different clustering)"
            )
    return y2, single, version, codes


def _clusters_per_condition(version, codes) -> tuple[int, int]:
    """Clusters of the first factor in each condition (observations for the iid bootstrap)."""
    if not codes:
        return tuple(int((version == d).sum()) for d in (0, 1))
    return tuple(int(np.unique(codes[0][version == d]).size) for d in (0, 1))


def _cells(version, codes) -> _Cells:
    if not codes:
        n = version.size
        order = np.argsort(version, kind="stable")
        return _Cells(None, version[order], np.ones(n), (order,), (n,), order)
    keys = np.stack([version, *codes], axis=1)  # sorted by condition first
    unique, cell_of = np.unique(keys, axis=0, return_inverse=True)
    cell_of = cell_of.reshape(-1)
    n_cells = unique.shape[0]
    indicator = sparse.csr_matrix(
        (np.ones(version.size), (cell_of, np.arange(version.size))), shape=(n_cells, version.size)
    )
    counts = np.bincount(cell_of, minlength=n_cells).astype(float)
    levels = tuple(int(c.max()) + 1 for c in codes)
    return _Cells(indicator, unique[:, 0], counts, tuple(unique[:, 1 + k] for k in range(len(codes))), levels)


def _draw_weights(kind: str, rng, shape) -> np.ndarray:
    if kind == "poisson":
        return rng.poisson(1.0, size=shape).astype(float)
    if kind == "uniform":
        return rng.uniform(0.0, 2.0, size=shape)
    return rng.standard_exponential(size=shape)


def _cell_weights(cells: _Cells, replicates: int, kind: str, rng) -> tuple[np.ndarray, int]:
    """``(replicates, cells)`` weights; rows where a condition has zero total weight are redrawn."""

    def draw(rows: int) -> np.ndarray:
        w = None
        for codes, levels in zip(cells.factor_codes, cells.factor_levels):
            level_weights = _draw_weights(kind, rng, (rows, levels))[:, codes]
            if w is None:
                w = level_weights
            else:
                w *= level_weights
        return w  # pyright: ignore[reportReturnType]

    weights = draw(replicates)
    redrawn = 0
    split = cells.split
    sides = (slice(0, split), slice(split, None))
    for _ in range(_MAX_REDRAWS):
        totals = [weights[:, side] @ cells.counts[side] for side in sides]
        bad = (totals[0] <= 0) | (totals[1] <= 0)
        if not bad.any():
            return weights, redrawn
        redrawn += int(bad.sum())
        weights[bad] = draw(int(bad.sum()))
    raise ValueError(  # pragma: no cover - needs ~1 cluster per condition, rejected above
        "clusters: replicates keep giving a condition zero weight; too few clusters for this bootstrap"
    )


def _replicate_deltas(y2: np.ndarray, cells: _Cells, weights: np.ndarray, denominators=("weights",)) -> dict:
    """``{denominator: (experiments, replicates) bootstrap differences in means}``: one weighted sum per
    condition (the one dense product), divided by each denominator in turn."""
    sums = y2[:, cells.order] if cells.indicator is None else (cells.indicator @ y2.T).T
    split = cells.split
    sides = (slice(split, None), slice(0, split))  # treatment, control: views, a condition's cells are contiguous
    weighted = [sums[:, side] @ weights[:, side].T for side in sides]
    out: dict = {}
    for denominator in denominators:
        treated, control = (
            weights[:, side] @ cells.counts[side] if denominator == "weights" else cells.counts[side].sum()
            for side in sides
        )
        delta = np.divide(weighted[0], treated)
        delta -= np.divide(weighted[1], control)
        out[denominator] = delta
    return out


def check_denominators(denominators) -> tuple[str, ...]:
    """``denominators`` as a tuple if it is a non-empty sequence of distinct :data:`DENOMINATORS`, else a
    TypeError or ValueError naming the argument.

    Parameters
    ----------
    denominators : sequence of str
    """
    if isinstance(denominators, str) or not isinstance(denominators, (list, tuple)) or not denominators:
        raise TypeError(f"denominators={denominators!r}: expected a non-empty sequence of {DENOMINATORS}")
    for denominator in denominators:
        if denominator not in DENOMINATORS:
            raise ValueError(f"denominators: {denominator!r} is not one of {', '.join(map(repr, DENOMINATORS))}")
    if len(set(denominators)) != len(denominators):
        raise ValueError(f"denominators={denominators!r}: each at most once")
    return tuple(denominators)


def clustered_bootstrap(
    y,
    version,
    clusters=None,
    *,
    replicates: int = 1000,
    weights: str = "poisson",
    denominator: str = "weights",
    rng: Seed = None,
) -> BootstrapResult:
    """Reweighting bootstrap of the difference in means (section 5.1), iid, clustered or multiway.

    Parameters
    ----------
    y : array, shape (observations,) or (experiments, observations)
        Outcomes; each row is an independent experiment sharing ``version`` and ``clusters``.
    version : array of {0, 1}, shape (observations,)
        Condition of each observation (0 = control/A, 1 = treatment/B).
    clusters : None, array or tuple of arrays, shape (observations,) each
        None: one weight per observation (iid bootstrap). One label array: one weight per label
        (e.g. host or request ids; a label present in both conditions gets the same weight in both,
        which is what preserves balance). A tuple: multiway, the observation's weight is the product
        of its levels' weights (Owen & Eckles 2012).
    replicates : int
        ``R``, at least 2.
    weights : {"poisson", "uniform", "exponential"}
        Poisson(1), Uniform(0, 2) or Exponential(1) (Bayesian bootstrap). Uniform's replicates are spread
        about ``delta_hat`` by ``sqrt(3)``, the inverse of its SD (:data:`WEIGHT_VARIANCE`), so that its SE
        estimates what the others' do.
    denominator : {"weights", "counts"}
        ``"weights"`` (the default, section 5.1's formula): divide each condition's weighted sum by
        its summed weights ``N*_r``. ``"counts"``: divide by the observation count ``N``. Then
        ``delta*_r - delta_hat`` carries ``(N*_r / N - 1)`` times the condition's mean, so the
        bootstrap variance grows by about ``(ybar_0^2 + ybar_1^2) / C`` with ``C`` clusters per
        condition and depends on where ``y`` is measured from; it is here to reproduce published
        numbers (Table 3), not to be used.
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    BootstrapResult

    Notes
    -----
    A replicate in which a condition receives zero total weight has no mean for that condition; it
    is redrawn, i.e. the bootstrap is conditioned on both conditions being observed, and the number
    of redraws is reported in ``redrawn``. With Poisson weights and ``C`` clusters in a condition
    this happens with probability ``exp(-C)`` per replicate.

    All experiments in one call share the same replicate weights (common random numbers): each
    experiment's bootstrap is exact, and one dense product computes them all.

    Examples
    --------
    Twenty hosts of ten runs, half per version, with a host effect much larger than the noise:
    resampling runs as if independent understates the standard error about threefold.

    >>> import numpy as np
    >>> from perfstudy.design.bootstrap import clustered_bootstrap
    >>> rng = np.random.default_rng(0)
    >>> host = np.repeat(np.arange(20), 10)
    >>> y = rng.normal(size=20)[host] + rng.normal(0, 0.2, 200)
    >>> iid = clustered_bootstrap(y, host % 2, replicates=500, rng=1)
    >>> by_host = clustered_bootstrap(y, host % 2, host, replicates=500, rng=1)
    >>> float(by_host.standard_error / iid.standard_error) > 2
    True
    """
    check_denominator(denominator)
    return clustered_bootstraps(
        y, version, clusters, replicates=replicates, weights=weights, denominators=(denominator,), rng=rng
    )[denominator]


def clustered_bootstraps(
    y,
    version,
    clusters=None,
    *,
    replicates: int = 1000,
    weights: str = "poisson",
    denominators=DENOMINATORS,
    rng: Seed = None,
) -> dict:
    """:func:`clustered_bootstrap` under several denominators at once, from one draw of the replicate weights.

    Each denominator's result is the one :func:`clustered_bootstrap` gives with the same ``rng`` (the same
    weights, bit for bit): the weights and the weighted sums are computed once, and only the division by
    ``N*_r`` or ``N`` differs (section 5.1's formula, and the counts reading of Table 3).

    Parameters
    ----------
    y, version, clusters, replicates, weights, rng
        As in :func:`clustered_bootstrap`.
    denominators : sequence of {"weights", "counts"}
        Which denominators (:data:`DENOMINATORS`), each once.

    Returns
    -------
    dict of str to BootstrapResult
        One result per denominator, in the order given.
    """
    check_weights(weights)
    denominators = check_denominators(denominators)
    replicates = check_resamples("replicates", replicates, minimum=2)
    y2, single, version, codes = _prepare(y, version, clusters)
    # the weights (replicates x cells, cells <= observations) and the replicate deltas (experiments x replicates)
    check_allocation("replicates", replicates, (1 + len(denominators)) * 8.0 * replicates * (y2.shape[0] + y2.shape[1]))
    rng = np.random.default_rng(rng)
    cells = _cells(version, codes)
    w, redrawn = _cell_weights(cells, int(replicates), weights, rng)
    distributions = _replicate_deltas(y2, cells, w, denominators)
    estimate = y2[:, version == 1].mean(axis=1) - y2[:, version == 0].mean(axis=1)
    per_condition = _clusters_per_condition(version, codes)
    results = {}
    for denominator, distribution in distributions.items():
        if WEIGHT_VARIANCE[weights] != 1.0:  # a law of variance v spreads the replicates sqrt(v) times too little
            distribution = estimate[:, None] + (distribution - estimate[:, None]) / math.sqrt(WEIGHT_VARIANCE[weights])
        se = distribution.std(axis=1, ddof=1)
        found = (float(estimate[0]), float(se[0]), distribution[0]) if single else (estimate, se, distribution)
        results[denominator] = BootstrapResult(*found, int(replicates), weights, redrawn, per_condition, denominator)
    return results
