"""Which servers of a supposedly identical fleet do not behave like the rest? (MMD, section 6)

Maricq et al., "Taming Performance Variability", OSDI 2018, section 6: compare each server's
measurements with those of all the other servers by the maximum mean discrepancy (Gretton et
al., JMLR 2012) with a Gaussian kernel, rank servers by it, and remove the most dissimilar one at a
time, recomputing after each removal (Figure 7).

``MMD^2_u`` is the unbiased quadratic-time statistic (Gretton et al., Eq. 3):
``(1/(m(m-1))) sum_{i != j} k(x_i, x_j) + (1/(n(n-1))) sum_{i != j} k(y_i, y_j) - (2/(mn)) sum k(x_i, y_j)``.
The permutation test reuses one kernel matrix of the pooled sample: for a relabelling that puts the
``m`` points of the smaller group at positions ``S``, the three sums follow from
``sum_{i,j in S} K``, ``sum_{i in S} rowsum_i`` and the total, so each permutation costs
O(m^2) instead of O((m + n)^2). The p-value is ``(1 + #{perm >= observed}) / (permutations + 1)``.
The bandwidth is the median heuristic: the median distance between distinct pooled points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.spatial.distance import pdist, squareform
from tqdm.auto import tqdm

from perfstudy._lib.checks import check_column, check_fraction, check_frame, check_int, check_real, check_resamples
from perfstudy._lib.frames import column, table
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed

__all__ = ["MMDTest", "mmd_test", "rank_hosts", "Elimination", "eliminate_unrepresentative", "MIN_HOST_SAMPLES"]

#: a server needs at least this many measurements for the unbiased statistic
MIN_HOST_SAMPLES = 2


def _points(name: str, x) -> np.ndarray:
    try:
        x = np.asarray(x, dtype=float)
    except (ValueError, TypeError):
        raise TypeError(f"{name}: expected numbers, shape (n,) or (n, metrics)") from None
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim != 2:
        raise ValueError(f"{name}: expected shape (n,) or (n, metrics), got {x.shape}")
    if x.shape[0] < MIN_HOST_SAMPLES:
        raise ValueError(f"{name}: {x.shape[0]} sample(s); the unbiased MMD needs at least {MIN_HOST_SAMPLES}")
    bad = ~np.isfinite(x)
    if bad.any():
        raise ValueError(f"{name}: {int(bad.sum())} NaN or infinite values")
    return x


@dataclass(frozen=True, eq=False)
class MMDTest(Result):
    """Unbiased ``MMD^2`` of two samples and its permutation p-value.

    Attributes
    ----------
    statistic : float
        ``MMD^2_u`` (may be slightly negative when the distributions agree).
    p_value : float
        ``(1 + #{null >= statistic}) / (permutations + 1)``.
    reject : bool
        ``p_value < alpha``: the two samples differ.
    alpha : float
    bandwidth : float
        The Gaussian kernel's ``sigma``.
    null : ndarray
        ``MMD^2_u`` under ``permutations`` relabellings.
    """

    statistic: float
    p_value: float
    reject: bool
    alpha: float
    bandwidth: float
    null: np.ndarray

    @property
    def permutations(self) -> int:
        """Relabellings drawn for the null distribution."""
        return int(self.null.size)


def _bandwidth(distances: np.ndarray, bandwidth) -> float:
    """``bandwidth``, or with "median" the median of the positive pairwise ``distances``."""
    if bandwidth == "median":
        positive = distances[distances > 0]
        if positive.size == 0:
            raise ValueError("x, y: every point is the same; the median-distance bandwidth is 0")
        return float(np.median(positive))
    if isinstance(bandwidth, str):
        raise ValueError(f"bandwidth={bandwidth!r}: expected 'median' or a positive number")
    return check_real("bandwidth", bandwidth, positive=True, what="bandwidth (or 'median')")


def _statistics(kernel: np.ndarray, rowsum: np.ndarray, total: float, subsets: np.ndarray) -> np.ndarray:
    """``MMD^2_u`` for each row of ``subsets`` taken as the first group (size m) of the pooled sample."""
    m = subsets.shape[1]
    n = kernel.shape[0] - m
    # 1_S' K 1_S for every subset S at once, through one matrix product (BLAS) rather than gathering the m x m
    # entries of each subset: 5.3 s of 7.3 in notebook 05's quick degraded-copy ranking went to that gather
    indicator = np.zeros((subsets.shape[0], kernel.shape[0]))
    np.put_along_axis(indicator, subsets, 1.0, axis=1)
    inner = np.einsum("ij,ij->i", indicator @ kernel, indicator)  # sum_{i,j in S} K, diagonal incl.
    rows = indicator @ rowsum  # sum_{i in S} sum_j K_ij
    # with K_ii = 1: XX = inner - m; XY = rows - inner; YY = total - 2 rows + inner - n
    xx = (inner - m) / (m * (m - 1))
    yy = (total - 2 * rows + inner - n) / (n * (n - 1))
    xy = (rows - inner) / (m * n)
    return xx + yy - 2 * xy


def mmd_test(
    x: ArrayLike, y, *, permutations: int = 1000, bandwidth="median", alpha: float = 0.05, rng: Seed = None
) -> MMDTest:
    """Two-sample test by the unbiased ``MMD^2`` with a Gaussian kernel (Gretton et al. 2012).

    Parameters
    ----------
    x, y : array, shape (m,) or (m, d); (n,) or (n, d)
        Univariate or multivariate samples (rows are observations).
    permutations : int
        Relabellings for the null distribution.
    bandwidth : "median" or float
        ``sigma`` of ``k(a, b) = exp(-|a - b|^2 / (2 sigma^2))``; "median" is the median distance
        between distinct points of the pooled sample. A finite positive number otherwise.
    alpha : float
        Size of the test, for ``reject``.
    rng : None, int, SeedSequence or Generator
        Draws the relabellings.

    Returns
    -------
    MMDTest

    Examples
    --------
    >>> import numpy as np
    >>> from perfstudy.diagnostics.hosts import mmd_test
    >>> rng = np.random.default_rng(0)
    >>> test = mmd_test(rng.normal(0, 1, 100), rng.normal(1, 1, 100), permutations=200, rng=1)
    >>> bool(test.reject), test.p_value < 0.01
    (True, True)
    """
    x = _points("x", x)
    y = _points("y", y)
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"x has {x.shape[1]} metrics, y has {y.shape[1]}")
    permutations = check_resamples("permutations", permutations)
    alpha = check_fraction("alpha", alpha)
    rng = np.random.default_rng(rng)
    small, large = (x, y) if x.shape[0] <= y.shape[0] else (y, x)
    pooled = np.vstack([small, large])
    distances = pdist(pooled)  # one pass serves the bandwidth and the kernel
    sigma = _bandwidth(distances, bandwidth)
    kernel = np.exp(-squareform(distances**2) / (2 * sigma**2))
    rowsum = kernel.sum(axis=1)
    total = float(rowsum.sum())
    m = small.shape[0]
    observed = float(_statistics(kernel, rowsum, total, np.arange(m)[None, :])[0])
    null = np.empty(permutations)
    chunk = max(1, min(permutations, 2**22 // pooled.shape[0]))  # two (chunk x pooled) arrays: 64 MiB
    for start in range(0, permutations, chunk):
        size = min(chunk, permutations - start)
        keys = rng.random((size, pooled.shape[0]))
        subsets = np.argpartition(keys, m - 1, axis=1)[:, :m]  # a uniform random m-subset per row
        null[start : start + size] = _statistics(kernel, rowsum, total, subsets)
    p_value = (1 + int(np.sum(null >= observed))) / (permutations + 1)
    return MMDTest(observed, p_value, bool(p_value < alpha), alpha, sigma, null)


def _metrics(metrics) -> list:
    metrics = [metrics] if isinstance(metrics, str) else metrics
    if not isinstance(metrics, (list, tuple)) or not all(isinstance(m, str) for m in metrics):
        raise TypeError(f"metrics={metrics!r}: expected a column name or a sequence of them")
    return list(metrics)


def _scaled(df: pd.DataFrame, by: str, metrics) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df: expected a pandas DataFrame, got {type(df).__name__}")
    if not isinstance(by, str):
        raise TypeError(f"by={by!r}: expected the name of the column that identifies a server")
    metrics = _metrics(metrics)
    if not metrics:
        raise ValueError("metrics: name at least one column")
    check_column("by", by, df)
    for metric in metrics:
        check_column("metrics", metric, df)
    check_frame("df", df, numeric=metrics, minimum=0)
    unlabelled = column(df[by]).isna()
    if unlabelled.any():
        raise ValueError(
            f"by={by!r}: {int(unlabelled.sum())} of {len(df)} rows have no server label (NaN); label or drop "
            "them first (left out of the ranking, they would still be counted in every other server's rest)"
        )
    frame = table(df[[by, *metrics]])
    holes = table(frame[metrics]).isna()
    if holes.any().any():
        where = frame.loc[holes.any(axis=1), by].unique()[:5].tolist()
        raise ValueError(
            f"metrics: {int(holes.sum().sum())} missing values (servers {where}); every server needs "
            "every metric: drop those servers or metrics first"
        )
    counts = column(frame.groupby(by).size())
    few = column(counts[counts < MIN_HOST_SAMPLES])
    if not few.empty:
        raise ValueError(
            f"{by}: {len(few)} host(s) with fewer than {MIN_HOST_SAMPLES} samples: {few.index[:5].tolist()}"
        )
    if counts.size < 2:
        raise ValueError(f"df: {counts.size} server(s) in column {by!r}; ranking needs at least 2")
    medians = table(frame[metrics]).median()
    if (medians == 0).any():
        raise ValueError(f"metrics {medians.index[medians == 0].tolist()}: median 0, cannot scale by it")
    scaled = frame.copy()
    scaled[metrics] = frame[metrics] / medians  # section 6: each metric divided by its median
    return scaled


def rank_hosts(
    df: pd.DataFrame,
    *,
    by: str = "host",
    metrics=("value",),
    permutations: int = 1000,
    bandwidth="median",
    alpha: float = 0.05,
    max_samples: int | None = 500,
    rng: Seed = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Each server's samples against all the other servers' together, most dissimilar first (section 6).

    Every metric is divided by its median over the fleet first, so that metrics in different units
    weigh alike; the samples are the rows (each a vector of ``metrics``).

    The statistic costs O((m + n)^2) memory and time. With ``max_samples`` (default 500), a server
    with more rows contributes a seeded random subset of that many, to its own test and to the
    "rest" of every other test; ``n_used`` says how many. ``None`` uses every row.

    Parameters
    ----------
    df : DataFrame
        Tidy measurements, one row per sample.
    by : str
        The column that identifies a server (the loaders call it ``host``).
    metrics : str or sequence of str
        The columns of a sample.
    permutations : int
        Relabellings per test.
    bandwidth : "median" or float
        See :func:`mmd_test`.
    alpha : float
        Size of each test, for ``reject``.
    max_samples : int or None
        Rows per server at most (a seeded random subset beyond).
    rng : None, int, SeedSequence or Generator
        One stream per server.
    progress : bool
        Show a progress bar.

    Returns
    -------
    DataFrame
        The ``by`` column, ``statistic`` (``MMD^2_u``), ``p_value``, ``reject``, ``n`` (the
        server's samples), ``n_used``, sorted by ``statistic`` descending.
    """
    metrics = _metrics(metrics)
    scaled = _scaled(df, by, metrics)
    alpha = check_fraction("alpha", alpha)
    rng = np.random.default_rng(rng)
    counts = scaled.groupby(by, sort=False).size()
    if max_samples is not None:
        limit = check_int("max_samples", max_samples, minimum=MIN_HOST_SAMPLES)
        subsample_rng, rng = rng.spawn(2)
        keep = []
        for positions in scaled.groupby(by, sort=False).indices.values():
            if positions.size > limit:
                positions = np.sort(subsample_rng.choice(positions, limit, replace=False))
            keep.append(positions)
        scaled = scaled.iloc[np.sort(np.concatenate(keep))]
    values = scaled[metrics].to_numpy(dtype=float)
    labels = scaled[by].to_numpy()
    names = pd.unique(labels)
    streams = rng.spawn(len(names))
    rows = []
    for name, stream in zip(tqdm(names, desc="servers", disable=not progress), streams):
        mine = labels == name
        test = mmd_test(
            values[mine], values[~mine], permutations=permutations, bandwidth=bandwidth, alpha=alpha, rng=stream
        )
        rows.append(
            {
                by: name,
                "statistic": test.statistic,
                "p_value": test.p_value,
                "reject": test.reject,
                "n": int(counts[name]),
                "n_used": int(mine.sum()),
            }
        )
    return pd.DataFrame(rows).sort_values("statistic", ascending=False, kind="stable").reset_index(drop=True)


@dataclass(frozen=True, eq=False)
class Elimination(Result):
    """Iterative removal of the most dissimilar server (Figure 7(c)).

    Attributes
    ----------
    removed : list
        Servers in the order they were removed.
    curve : DataFrame
        One row per round: ``round``, ``removed`` (the server taken out), ``statistic`` and
        ``p_value`` of that server against the rest, ``servers_left``, ``max_statistic_after``
        (the largest statistic among the servers left, recomputed).
    final_ranking : DataFrame
        The ranking of the servers left.
    """

    removed: list
    curve: pd.DataFrame
    final_ranking: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """The elimination curve, one row per round (``curve``)."""
        return self.curve.copy()


def eliminate_unrepresentative(
    df: pd.DataFrame,
    *,
    by: str = "host",
    metrics=("value",),
    alpha: float = 0.05,
    max_remove: int | None = None,
    permutations: int = 1000,
    bandwidth="median",
    max_samples: int | None = 500,
    rng: Seed = None,
    progress: bool = False,
) -> Elimination:
    """Remove the most dissimilar server while its MMD test rejects at ``alpha``; recompute after each.

    Stops when the top-ranked server is no longer significantly different from the rest, when
    ``max_remove`` servers are gone, or when two servers are left. Medians for scaling are
    recomputed on the servers left.

    Parameters
    ----------
    df, by, metrics, permutations, bandwidth, max_samples, progress
        As in :func:`rank_hosts`.
    alpha : float
        Size of each test: a server is removed while its test rejects.
    max_remove : int or None
        Most servers to remove (None: no bound but the two that must remain).
    rng : None, int, SeedSequence or Generator
        One stream per ranking.

    Returns
    -------
    Elimination
    """
    alpha = check_fraction("alpha", alpha)
    frame: pd.DataFrame = df
    limit = np.inf if max_remove is None else check_int("max_remove", max_remove, minimum=0)
    rng = np.random.default_rng(rng)
    settings: dict[str, Any] = dict(
        by=by,
        metrics=metrics,
        permutations=permutations,
        bandwidth=bandwidth,
        alpha=alpha,
        max_samples=max_samples,
        progress=progress,
    )
    removed, rows = [], []
    ranking = rank_hosts(frame, rng=rng.spawn(1)[0], **settings)
    while len(removed) < limit and len(ranking) > 2 and ranking.reject.iloc[0]:
        worst = ranking.iloc[0]
        removed.append(worst[by])
        frame = table(frame[frame[by] != worst[by]])
        ranking = rank_hosts(frame, rng=rng.spawn(1)[0], **settings)
        rows.append(
            {
                "round": len(removed),
                "removed": worst[by],
                "statistic": worst["statistic"],
                "p_value": worst["p_value"],
                "servers_left": len(ranking),
                "max_statistic_after": float(ranking.statistic.iloc[0]),
            }
        )
    columns = ["round", "removed", "statistic", "p_value", "servers_left", "max_statistic_after"]
    return Elimination(removed, pd.DataFrame(rows, columns=columns), ranking)
