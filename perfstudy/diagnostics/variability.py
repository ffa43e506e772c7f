"""Variability diagnostics: CoV, normality, stationarity, autocorrelation-corrected SE, independence.

Maricq et al., "Taming Performance Variability", OSDI 2018, sections 4.1 (CoV), 4.3 (Shapiro-Wilk
across and within servers), 4.4 (augmented Dickey-Fuller), 7.4 (original against shuffled order);
and "Estimating Benchmark Results Uncertainty" (blog), Eq. 6: the autocovariance-corrected
standard error of the mean.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from perfstudy._lib.checks import (
    check_bool,
    check_choice,
    check_fraction,
    check_int,
    check_resamples,
    check_sample,
    check_timestamps,
)
from perfstudy._lib.frames import float_values
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed
from perfstudy.diagnostics.adf import adf, adf_suffixes, min_suffix

__all__ = [
    "coefficient_of_variation",
    "AutocorrelationSE",
    "autocorrelation_se",
    "BatchMeans",
    "batch_means",
    "effective_sample_size",
    "normality",
    "stationarity",
    "IndependenceTest",
    "independence_test",
    "Warmup",
    "warmup",
]

#: Shapiro-Wilk's p-value approximation (Royston) is validated up to 5,000 points (scipy warns
#: beyond); larger groups are tested on a seeded random subsample of this size.
SHAPIRO_MAX = 5000
#: Fewest points for which the ADF regression with AIC lag selection is meaningful here.
ADF_MIN = 20


def _series(name: str, x, minimum: int = 2, *, method: str | None = None) -> np.ndarray:
    """A finite 1-D float series of at least ``minimum`` points; with ``method``, also not constant."""
    return check_sample(name, x, minimum=minimum, method=method)


def _ratio(a: float, b: float) -> float:
    if b == 0:
        return math.nan if a == 0 else math.inf
    return a / b


def coefficient_of_variation(x: ArrayLike, *, ddof: int = 1) -> float:
    """CoV = standard deviation / mean (Maricq et al., section 4.1), as a fraction.

    Parameters
    ----------
    x : array_like, 1-D
        The runs; NaN is an error.
    ddof : int
        Delta degrees of freedom of the standard deviation.

    Raises
    ------
    ValueError
        A mean of 0 (the CoV is undefined).
    """
    x = _series("x", x)
    ddof = check_int("ddof", ddof, minimum=0)
    if ddof >= x.size:
        raise ValueError(f"ddof={ddof}: expected fewer than the {x.size} values")
    mean = x.mean()
    if mean == 0:
        raise ValueError("x: the mean is 0, so the coefficient of variation is undefined")
    return float(x.std(ddof=ddof) / abs(mean))


def _autocovariances(x: np.ndarray, max_lag: int) -> np.ndarray:
    """gamma_hat(k) = (1/N) sum_{i=1}^{N-k} (x_i - mean)(x_{i+k} - mean), k = 0..max_lag (by FFT)."""
    n = x.size
    d = x - x.mean()
    size = 1 << (2 * n - 1).bit_length()
    spectrum = np.fft.rfft(d, size)
    acov = np.fft.irfft(spectrum * np.conj(spectrum), size)[: max_lag + 1] / n
    return acov


@dataclass(frozen=True)
class AutocorrelationSE(Result):
    """Standard error of the mean of an autocorrelated series.

    Attributes
    ----------
    mean, standard_error, naive_standard_error : float
        ``naive_standard_error`` is ``s / sqrt(N)`` (ddof=1), right only for independent points.
    effective_sample_size : float
        ``gamma_hat(0) / standard_error^2``: how many independent points the series is worth.
    lags : int
        Largest lag used.
    kernel : str
    autocovariance : ndarray
        ``gamma_hat(0..lags)``.
    """

    mean: float
    standard_error: float
    naive_standard_error: float
    effective_sample_size: float
    lags: int
    kernel: str
    autocovariance: np.ndarray

    @property
    def inflation(self) -> float:
        """How many times too narrow the naive interval is: ``standard_error / naive_standard_error``
        (NaN for a constant series, where both are 0)."""
        return _ratio(self.standard_error, self.naive_standard_error)


def autocorrelation_se(x: ArrayLike, *, max_lag="sqrt", kernel: str = "truncated") -> AutocorrelationSE:
    """Autocovariance-corrected standard error of the mean (blog, Eq. 6).

    Parameters
    ----------
    x : array, shape (N,)
        The series in time order.
    max_lag : "sqrt" or int
        ``L``; ``"sqrt"`` is ``floor(sqrt(N))``, the blog's cut-off.
    kernel : {"truncated", "bartlett"}
        - ``"truncated"``: Eq. 6 as printed,
          ``Var = (1/N) (gamma(0) + (2/N) sum_{k=1}^{L} (N - k) gamma(k))``, with the blog's
          ``gamma_hat(k) = (1/N) sum (x_i - m)(x_{i+k} - m)``.
        - ``"bartlett"``: Newey-West, ``Var = (1/N) (gamma(0) + 2 sum_{k=1}^{L} (1 - k/(L+1)) gamma(k))``,
          the HAC variance of a regression on a constant (statsmodels ``cov_hac``); never negative.

    A negative variance (possible with the truncated kernel) is clipped at 0, as in the blog's code.
    """
    x = _series("x", x, minimum=3)
    n = x.size
    if isinstance(max_lag, str):
        check_choice("max_lag", max_lag, ("sqrt",))
        lags = int(math.isqrt(n))
    else:
        lags = check_int("max_lag", max_lag, minimum=0)
    lags = min(lags, n - 1)
    check_choice("kernel", kernel, ("truncated", "bartlett"))
    gamma = _autocovariances(x, lags)
    k = np.arange(1, lags + 1)
    if kernel == "truncated":
        weights = 2.0 * (n - k) / n
    else:
        weights = 2.0 * (1.0 - k / (lags + 1.0))
    variance = max(0.0, (gamma[0] + float(weights @ gamma[1:])) / n)
    se = math.sqrt(variance)
    naive = float(x.std(ddof=1) / math.sqrt(n))
    ess = float(gamma[0] / variance) if variance > 0 else math.inf
    return AutocorrelationSE(float(x.mean()), se, naive, ess, lags, kernel, gamma)


def effective_sample_size(x: ArrayLike, *, max_lag="sqrt", kernel: str = "truncated") -> float:
    """Effective number of independent points, ``gamma_hat(0) / SE^2`` (see :func:`autocorrelation_se`).

    Parameters
    ----------
    x : array_like, 1-D
        The series, in time order.
    max_lag, kernel
        As in :func:`autocorrelation_se`.
    """
    return autocorrelation_se(x, max_lag=max_lag, kernel=kernel).effective_sample_size


@dataclass(frozen=True, eq=False)
class BatchMeans(Result):
    """The spread of the means of disjoint consecutive batches, and what it says about the mean.

    Attributes
    ----------
    means : ndarray, shape (batches,)
        Mean of each batch of ``batch_length`` consecutive points (a remainder is left out).
    batch_length, batches : int
    standard_error : float
        Batch-means standard error of the mean of the batched points, ``sd(means) / sqrt(batches)``:
        an estimate that needs no model of the autocorrelation, only batches long enough for their
        means to be nearly independent.
    naive_standard_error : float
        ``s / sqrt(N)`` over the same points, right only for independent points.
    """

    means: np.ndarray
    batch_length: int
    batches: int
    standard_error: float
    naive_standard_error: float

    @property
    def too_narrow(self) -> float:
        """How many times wider an honest interval is than the naive one: ``standard_error / naive_standard_error``
        (NaN for a constant series, where both are 0)."""
        return _ratio(self.standard_error, self.naive_standard_error)


def batch_means(x: ArrayLike, *, batches: int = 20) -> BatchMeans:
    """Batch means (non-overlapping): the observed spread of the means of disjoint blocks.

    The series is cut into ``batches`` consecutive blocks of ``N // batches`` points; the standard
    deviation of their means, divided by ``sqrt(batches)``, estimates the standard error of the
    overall mean (Schmeiser 1982; the check the blog's argument calls for: if points were
    independent it would agree with ``s / sqrt(N)``). With ``batches`` = 20 the estimate itself has a
    relative standard error of about ``1 / sqrt(2 (batches - 1))`` = 16%.

    Parameters
    ----------
    x : array_like, 1-D
        The series, in time order.
    batches : int
        Number of disjoint blocks (at least 2; each needs at least one point).
    """
    batches = check_int("batches", batches, minimum=2)
    x = _series("x", x, minimum=4)
    if x.size < 2 * batches:
        raise ValueError(f"batches={batches}: {x.size} values hold at most {x.size // 2} batches of 2")
    length = x.size // batches
    used = x[: length * batches]
    means = used.reshape(batches, length).mean(axis=1)
    se = float(means.std(ddof=1) / math.sqrt(batches))
    naive = float(used.std(ddof=1) / math.sqrt(used.size))
    return BatchMeans(means, length, batches, se, naive)


def _groups(df: pd.DataFrame, by, value: str, dropna: bool = False, *, in_time_order: bool = False):
    """Yield ``(key, values, dropped)`` per group: the group's values as a float array (in ``timestamp``
    order with ``in_time_order`` if the frame has that column), and how many NaN/inf rows were left
    out on request (``dropna``)."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df: expected a pandas DataFrame, got {type(df).__name__}")
    if not isinstance(value, str) or value not in df.columns:
        raise ValueError(f"value={value!r}: no such column; columns are {list(df.columns)}")
    dropna = check_bool("dropna", dropna)
    keys = _keys(by)
    missing = [k for k in keys if k not in df.columns]
    if missing:
        raise ValueError(f"by: no column(s) {missing}; columns are {list(df.columns)}")
    if df.empty:
        raise ValueError("df: no rows")
    if in_time_order and "timestamp" in df.columns:
        check_timestamps("df", df["timestamp"])
        df = df.sort_values("timestamp", kind="stable")
    column = df[value]
    if (
        pd.api.types.is_datetime64_any_dtype(column)
        or pd.api.types.is_timedelta64_dtype(column)
        or pd.api.types.is_bool_dtype(column)
    ):
        raise TypeError(f"value={value!r}: expected a column of measurements, got dtype {column.dtype}")
    values = float_values(column)
    finite = np.isfinite(values)
    if dropna and not finite.all():
        warnings.warn(
            f"{value}: {int((~finite).sum())} of {finite.size} rows are NaN or infinite and were "
            "left out (dropna=True); the 'dropped' column counts them per group",
            stacklevel=3,
        )
    if keys:
        # positions per group, in frame order; far faster than iterating over sub-frames
        groups = df.groupby(keys, sort=True, dropna=False).indices.items()
    else:
        groups = [((), np.arange(len(df)))]
    for key, positions in groups:
        key = key if isinstance(key, tuple) else (key,)
        x = values[positions]
        dropped = 0
        if dropna:
            keep = finite[positions]
            dropped = int((~keep).sum())
            x = x[keep]
        yield dict(zip(keys, key)), x, dropped


def _keys(by) -> list:
    """``by`` as a list of column names: None, a name, or a list of names."""
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    if isinstance(by, (list, tuple)) and all(isinstance(k, str) for k in by):
        return list(by)
    raise TypeError(f"by={by!r}: expected a column name, a list of them, or None")


def _label(key: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in key.items()) or "the whole frame"


#: scipy's Shapiro-Wilk without its axis/NaN-policy wrapper, which costs 90 us a call against the test's own
#: 6 us (notebook 03's 18,265 windows: 4.4 s of wrapper); the values here are finite and 1-D already.
#: tests/diagnostics/test_variability.py checks it against stats.shapiro.
_SHAPIRO = getattr(stats.shapiro, "__wrapped__", stats.shapiro)


def _shapiro(x: np.ndarray, rng: np.random.Generator) -> tuple[float, float, int]:
    """Shapiro-Wilk W and p-value, on a seeded random ``SHAPIRO_MAX`` of ``x`` if it is longer;
    also returns how many points were tested."""
    tested = x if x.size <= SHAPIRO_MAX else rng.choice(x, SHAPIRO_MAX, replace=False)
    statistic, p_value = _SHAPIRO(tested)
    return float(statistic), float(p_value), tested.size


def normality(
    df: pd.DataFrame, by=None, *, value: str = "value", alpha: float = 0.05, dropna: bool = False, rng: Seed = None
) -> pd.DataFrame:
    """Shapiro-Wilk test per group (Maricq et al., section 4.3).

    Use ``by="benchmark"`` for a test across servers and ``by=["benchmark", "host"]`` within each.
    A group of more than ``SHAPIRO_MAX`` (5,000) points is tested on a seeded random subsample of
    5,000 (scipy's p-value is not validated beyond); ``n_tested`` says so. With thousands of points
    the test rejects even small departures from normality: read the statistic ``W`` too.

    NaN or infinite values are an error unless ``dropna=True``, which leaves those rows out, warns
    with their number and adds a ``dropped`` column (rows left out per group).

    Parameters
    ----------
    df : DataFrame
        Tidy measurements.
    by : str or list of str, optional
        Grouping columns; None tests all rows as one group.
    value : str
        Column holding the measurements.
    alpha : float
        Size of each test.
    dropna : bool
        Leave NaN and infinite rows out (with a warning) instead of refusing them.
    rng : None, int or Generator
        Seed of the subsample drawn from groups larger than ``SHAPIRO_MAX``.

    Returns
    -------
    DataFrame
        The group keys, ``n``, ``n_tested``, ``statistic`` (W), ``p_value``, ``reject`` (p < alpha),
        and ``dropped`` with ``dropna=True``.

    Raises
    ------
    ValueError
        A group with fewer than 3 points, a constant group, NaN values, unknown columns.
    """
    alpha = check_fraction("alpha", alpha)
    rng = np.random.default_rng(rng)
    rows = []
    for key, x, dropped in _groups(df, by, value, dropna):
        x = _series(f"{value} ({_label(key)})", x, minimum=3, method="Shapiro-Wilk")
        statistic, p_value, tested = _shapiro(x, rng)
        rows.append(
            {
                **key,
                "n": x.size,
                "n_tested": tested,
                "statistic": statistic,
                "p_value": p_value,
                "reject": bool(p_value < alpha),
                **({"dropped": dropped} if dropna else {}),
            }
        )
    return pd.DataFrame(rows)


def _adf(x: np.ndarray, name: str, regression: str, autolag):
    x = _series(name, x, minimum=ADF_MIN, method="the ADF test")
    return x.size, adf(x, regression=regression, autolag=autolag)


def stationarity(
    df: pd.DataFrame,
    by=None,
    *,
    value: str = "value",
    regression: str = "c",
    autolag="AIC",
    alpha: float = 0.05,
    dropna: bool = False,
) -> pd.DataFrame:
    """Augmented Dickey-Fuller test per group (Maricq et al., section 4.4).

    The test is statsmodels' ``adfuller`` with its lag search done by one QR factorisation
    (:func:`perfstudy.diagnostics.adf.adf`; same statistic, lag and p-value, ~25 times faster on 60,000 points).

    The null hypothesis is a unit root (non-stationary); ``reject`` means the series looks stationary.
    Rows are taken in ``timestamp`` order if that column exists, else in the frame's order.

    NaN handling as in :func:`normality` (``dropna``). A group needs ``ADF_MIN`` (20) points.

    Parameters
    ----------
    df, by, value, alpha, dropna
        As in :func:`normality` (with ``by=None`` all rows are one series).
    regression : {"c", "ct", "ctt", "n"}
        Deterministic terms of the ADF regression.
    autolag : {"AIC", "BIC"} or None
        Lag selection; None uses :func:`perfstudy.diagnostics.adf.default_maxlag` lags.

    Returns
    -------
    DataFrame
        The group keys, ``n``, ``statistic``, ``p_value``, ``lags`` (chosen by ``autolag``), ``reject``,
        and ``dropped`` with ``dropna=True``.

    Raises
    ------
    ValueError
        A group too short or constant, NaN values, unknown columns, an unknown ``regression``.
    """
    if regression not in ("c", "ct", "ctt", "n"):
        raise ValueError(f"regression={regression!r}: expected 'c', 'ct', 'ctt' or 'n'")
    alpha = check_fraction("alpha", alpha)
    rows = []
    for key, x, dropped in _groups(df, by, value, dropna, in_time_order=True):
        n, result = _adf(x, f"{value} ({_label(key)})", regression, autolag)
        rows.append(
            {
                **key,
                "n": n,
                "statistic": result.statistic,
                "p_value": result.p_value,
                "lags": result.lags,
                "reject": bool(result.p_value < alpha),
                **({"dropped": dropped} if dropna else {}),
            }
        )
    return pd.DataFrame(rows)


@dataclass(frozen=True, eq=False)
class IndependenceTest(Result):
    """Original order against shuffled orders (Maricq et al., section 7.4).

    ``statistic`` is the lag-1 autocorrelation of the series as measured; ``null`` the same for
    ``permutations`` random shuffles, which destroy any dependence on order; ``p_value`` is
    ``(1 + #{|null| >= |statistic|}) / (permutations + 1)``; ``reject`` is ``p_value < alpha``:
    the order matters.

    Attributes
    ----------
    statistic : float
        Lag-1 autocorrelation of the series as measured.
    p_value : float
        Two-sided permutation p-value.
    reject : bool
        ``p_value < alpha``: the order matters.
    alpha : float
        Size of the test.
    null : ndarray, shape (permutations,)
        The statistic of each shuffle.
    permutations : int
    """

    statistic: float
    p_value: float
    reject: bool
    alpha: float
    null: np.ndarray
    permutations: int


def _lag1(x: np.ndarray) -> np.ndarray:
    """Lag-1 autocorrelation along the last axis."""
    d = x - x.mean(axis=-1, keepdims=True)
    return np.sum(d[..., 1:] * d[..., :-1], axis=-1) / np.sum(d * d, axis=-1)


def independence_test(
    x: ArrayLike, *, permutations: int = 1000, alpha: float = 0.05, rng: Seed = None
) -> IndependenceTest:
    """Does the order of the measurements matter? A permutation test of lag-1 autocorrelation.

    Maricq et al. (section 7.4) compare the original order against shuffled orders; this is that
    comparison with the lag-1 autocorrelation as its statistic (they compare the two orders'
    results by Mann-Whitney or MMD instead).

    Parameters
    ----------
    x : array, shape (N,)
        The series in time order.
    permutations : int
        Shuffles for the null distribution.
    alpha : float
        Size of the test, for ``reject``.
    rng : None, int, SeedSequence or Generator
        Draws the shuffles.

    Returns
    -------
    IndependenceTest
    """
    x = _series("x", x, minimum=3, method="the independence test")
    permutations = check_resamples("permutations", permutations)
    alpha = check_fraction("alpha", alpha)
    rng = np.random.default_rng(rng)
    statistic = float(_lag1(x))
    # shuffling changes neither the mean nor the sum of squares: only the lag-1 cross products
    d = x - x.mean()
    scale = float(d @ d)
    null = np.empty(permutations)
    block = max(1, min(permutations, 2**24 // x.size))  # bound memory: shuffle in blocks
    for start in range(0, permutations, block):
        stop = min(permutations, start + block)
        shuffled = rng.permuted(np.broadcast_to(d, (stop - start, x.size)), axis=1)
        null[start:stop] = np.einsum("ij,ij->i", shuffled[:, 1:], shuffled[:, :-1]) / scale
    p_value = (1 + int(np.sum(np.abs(null) >= abs(statistic)))) / (permutations + 1)
    return IndependenceTest(statistic, p_value, bool(p_value < alpha), alpha, null, permutations)


@dataclass(frozen=True, eq=False)
class Warmup(Result):
    """First index from which a series passes the ADF test, among ``candidates``.

    ``index`` is None when no candidate start gives a stationary remainder.

    Attributes
    ----------
    index : int or None
        First index of the stationary remainder (discard the runs before it).
    candidates : ndarray of int
        Candidate starts tried.
    p_values : ndarray
        ADF p-value of the remainder from each candidate.
    alpha : float
        Size of the ADF tests.
    """

    index: int | None
    candidates: np.ndarray
    p_values: np.ndarray
    alpha: float

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"start": self.candidates, "p_value": self.p_values, "reject": self.p_values < self.alpha})


def warmup(x: ArrayLike, *, step=None, max_fraction: float = 0.5, alpha: float = 0.05, regression: str = "c") -> Warmup:
    """Warm-up detection: the first candidate start after which the rest of the series is stationary.

    Candidates are ``0, step, 2 step, ...`` up to ``max_fraction`` of the series (``step`` defaults
    to 2% of its length); each remainder gets the ADF test of :func:`stationarity` and the first
    with ``p < alpha`` is returned. Discarding up to that index is the warm-up of Maricq et al.
    (section 4.4) and of Bakshy & Frachtenberg (section 2.2).

    ADF asks whether the remainder *as a whole* looks stationary, so a non-stationary start that is
    short against the rest can pass: the index tends to fall before the true end of the warm-up
    (in tests, 80 to 520 for an 800-run random-walk warm-up in 2,000 runs). Read it as the least
    to discard, and look at the series. The ADF lag order is chosen once, by AIC on the whole series.

    Parameters
    ----------
    x : array_like, 1-D
        The series, in time order.
    step : int, optional
        Distance between candidate starts (default 2% of the length, at least 1).
    max_fraction : float
        Largest share of the series that may be called warm-up.
    alpha : float
        Size of each ADF test.
    regression : {"c", "ct", "ctt", "n"}
        Deterministic terms of the ADF regression.
    """
    x = _series("x", x, minimum=2 * ADF_MIN)
    max_fraction = check_fraction("max_fraction", max_fraction)
    alpha = check_fraction("alpha", alpha)
    step = max(1, x.size // 50) if step is None else check_int("step", step)
    # the lag order is chosen once, by AIC on the whole series, and kept for every remainder, whose
    # regressions then come from one pass over the series (perfstudy.diagnostics.adf.adf_suffixes)
    lags = adf(x, regression=regression, autolag="AIC").lags
    last = min(int(max_fraction * x.size), x.size - max(ADF_MIN, min_suffix(lags, regression)))
    candidates = np.arange(0, max(last, 0) + 1, step)
    p_values = adf_suffixes(x, candidates, lags=lags, regression=regression)[1]
    hits = np.flatnonzero(p_values < alpha)
    index = int(candidates[hits[0]]) if hits.size else None
    return Warmup(index, candidates, p_values, alpha)
