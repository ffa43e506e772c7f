"""Augmented Dickey-Fuller test, fast enough to run over every series and every warm-up candidate.

The ADF regression (Said & Dickey 1984; Maricq et al., OSDI 2018, section 4.4) of a series
``x_0..x_{n-1}`` with ``p`` lagged differences is

    dx_t = a + (b t) + gamma x_{t-1} + sum_{i=1}^{p} c_i dx_{t-i} + e_t,

and the statistic is the t-ratio of ``gamma``. statsmodels' ``adfuller`` chooses ``p`` by fitting
one OLS regression per candidate lag (``0..maxlag``, ~60 for 60,000 points) on a common sample and
keeping the smallest AIC. Here the same search costs one QR factorisation: with ``[X | y]`` = ``QR``
and the columns of ``X`` ordered as statsmodels orders them (trend, level, lag 1, ..., lag maxlag),
the residual sum of squares of the regression on the first ``k`` columns is
``sum_{i >= k} R[i, -1]^2`` (the tail of the last column of ``R``). The chosen lag is then fitted
by statsmodels itself, so the statistic, p-value (MacKinnon 1994/2010) and critical values are
statsmodels' own.

Warm-up detection asks the same question of many suffixes ``x[s:]`` with a fixed lag. The design
rows of a suffix are rows of the whole series' design (every index they use is at least ``s``), so
the normal equations of all suffixes come from one backward accumulation of ``X'X`` and ``X'y``:
O(n p^2) in all, instead of one regression per suffix.

The t-ratio of ``gamma`` is unchanged by shifting ``x`` when the regression has a constant and by
scaling ``x``; both are applied first (standardising) so that the normal equations are well
conditioned. Every function here is tested against ``statsmodels.tsa.stattools.adfuller``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import linalg

from perfstudy._lib.checks import check_choice, check_fraction, check_int, check_sample
from perfstudy._lib.result import Result

__all__ = ["ADFResult", "adf", "adf_suffixes", "default_maxlag", "min_suffix"]

REGRESSIONS = ("c", "ct", "ctt", "n")


@dataclass(frozen=True)
class ADFResult(Result):
    """One augmented Dickey-Fuller test.

    Attributes
    ----------
    statistic : float
        t-ratio of the lagged level; more negative is more evidence against a unit root.
    p_value : float
        MacKinnon's approximate p-value; small means the series looks stationary.
    reject : bool
        ``p_value < alpha``: the unit root is rejected, the series looks stationary.
    alpha : float
    lags : int
        Lagged differences in the regression.
    nobs : int
        Observations in the regression (``n - 1 - lags``).
    critical_values : dict
        ``{"1%": ..., "5%": ..., "10%": ...}``.
    ic : float or None
        The information criterion of the chosen lag (None when the lag was given).
    """

    statistic: float
    p_value: float
    reject: bool
    alpha: float
    lags: int
    nobs: int
    critical_values: dict
    ic: float | None

    def to_frame(self) -> pd.DataFrame:
        """One row: the statistic, p-value, verdict, lags and a ``critical_<level>`` column per critical value."""
        row = self._scalars() | {f"critical_{level}": value for level, value in self.critical_values.items()}
        return pd.DataFrame([row])


def _check(x, regression: str) -> np.ndarray:
    check_choice("regression", regression, REGRESSIONS)
    return check_sample("x", x, minimum=4, method="the ADF test")


def _singular(n: int) -> ValueError:
    return ValueError(
        f"x: the ADF regression on these {n} points is singular or fits exactly (a straight line, a "
        "periodic or otherwise exactly predictable series); the test is undefined for it"
    )


def _ntrend(regression: str) -> int:
    return 0 if regression == "n" else len(regression)


def default_maxlag(n: int, regression: str = "c") -> int:
    """statsmodels' default: ``ceil(12 (n/100)^(1/4))`` (Schwert 1989), at most ``n//2 - ntrend - 1``.

    Parameters
    ----------
    n : int
        Length of the series.
    regression : {"c", "ct", "ctt", "n"}
        Deterministic terms; each one takes a degree of freedom from the bound.
    """
    n = check_int("n", n, minimum=0)
    check_choice("regression", regression, REGRESSIONS)
    maxlag = min(n // 2 - _ntrend(regression) - 1, int(np.ceil(12.0 * np.power(n / 100.0, 0.25))))
    if maxlag < 0:
        raise ValueError(f"x: {n} points are too few for the ADF regression {regression!r}")
    return maxlag


def min_suffix(lags: int, regression: str = "c") -> int:
    """Fewest points for which the ADF regression with ``lags`` lags is allowed (statsmodels' rule).

    Parameters
    ----------
    lags : int
        Lagged differences in the regression.
    regression : {"c", "ct", "ctt", "n"}
        Deterministic terms.
    """
    lags = check_int("lags", lags, minimum=0)
    check_choice("regression", regression, REGRESSIONS)
    return 2 * (lags + _ntrend(regression) + 1)


def _standardised(x: np.ndarray, regression: str) -> np.ndarray:
    # a shift is absorbed by the constant (not with "n"); a scale cancels in every t-ratio
    centre = 0.0 if regression == "n" else x.mean()
    return (x - centre) / x.std()


def _design(z: np.ndarray, lags: int, regression: str, *, trend_first: bool = True):
    """statsmodels' ADF design: ``X`` = [trend..., level, dx lag 1..lags] (trend first), ``y`` = dx."""
    dz = np.diff(z)
    nobs = dz.size - lags
    columns = [z[lags:-1]] + [dz[lags - i : lags - i + nobs] for i in range(1, lags + 1)]
    if regression != "n":
        t = np.arange(1, nobs + 1, dtype=float) / nobs  # a rescaled trend spans the same space
        trend = [np.ones(nobs), t, t * t][: _ntrend(regression)]
        columns = trend + columns if trend_first else columns + trend
    return np.column_stack(columns), dz[lags:]


def _mackinnon(statistic: float, regression: str, nobs: int) -> tuple[float, dict]:
    from statsmodels.tsa.adfvalues import mackinnoncrit, mackinnonp

    crit = mackinnoncrit(N=1, regression=regression, nobs=nobs)
    return float(mackinnonp(statistic, regression=regression, N=1)), {"1%": crit[0], "5%": crit[1], "10%": crit[2]}


def _search_lag(z: np.ndarray, maxlag: int, regression: str, autolag: str, scale: float) -> tuple[int, float]:
    """statsmodels' ``_autolag``: the lag in 0..maxlag with the smallest AIC/BIC on a common sample."""
    X, y = _design(z, maxlag, regression)
    nobs = y.size
    r = linalg.qr(np.column_stack([X, y]), mode="r", check_finite=False)[0]
    tail = r[: X.shape[1] + 1, -1] ** 2
    ssr = np.cumsum(tail[::-1])[::-1]  # ssr[k] = RSS of the regression on the first k columns
    k = np.arange(_ntrend(regression) + 1, X.shape[1] + 1)  # trend + level + 0..maxlag lags
    # OLS log-likelihood on the original scale of x: RSS scales by scale**2
    llf = -nobs / 2.0 * (math.log(2 * math.pi) + np.log(ssr[k] * scale**2 / nobs) + 1.0)
    penalty = 2.0 * k if autolag == "aic" else k * math.log(nobs)
    ic = -2.0 * llf + penalty
    best = int(np.argmin(ic))  # first minimum: statsmodels' min over (ic, lag) pairs
    return best, float(ic[best])


def adf(
    x, *, regression: str = "c", autolag: str | None = "AIC", maxlag: int | None = None, alpha: float = 0.05
) -> ADFResult:
    """Augmented Dickey-Fuller test, as ``statsmodels.tsa.stattools.adfuller``, with a one-QR lag search.

    Parameters
    ----------
    x : array, shape (n,)
        The series, in time order.
    regression : {"c", "ct", "ctt", "n"}
        Deterministic terms: constant, + linear trend, + quadratic trend, none.
    autolag : {"AIC", "BIC"} or None
        Choose the number of lagged differences in ``0..maxlag`` by this criterion on a common
        sample; with None, use ``maxlag`` lags.
    maxlag : int, optional
        Default :func:`default_maxlag`.
    alpha : float
        Size of the test, for ``reject``.

    Returns
    -------
    ADFResult

    Examples
    --------
    >>> import numpy as np
    >>> from perfstudy.diagnostics.adf import adf
    >>> noise = np.random.default_rng(0).normal(size=500)
    >>> bool(adf(noise).reject), bool(adf(np.cumsum(noise)).reject)
    (True, False)
    """
    x = _check(x, regression)
    alpha = check_fraction("alpha", alpha)
    n = x.size
    if maxlag is None:
        maxlag = default_maxlag(n, regression)
    elif not 0 <= check_int("maxlag", maxlag, minimum=0) <= n // 2 - _ntrend(regression) - 1:
        raise ValueError(
            f"maxlag={maxlag!r}: expected 0 <= maxlag <= n//2 - ntrend - 1 = {n // 2 - _ntrend(regression) - 1}"
        )
    z = _standardised(x, regression)
    ic = None
    if autolag is None:
        lags = maxlag
    elif isinstance(autolag, str) and autolag.lower() in ("aic", "bic"):
        lags, ic = _search_lag(z, maxlag, regression, str(autolag).lower(), float(x.std()))
    else:
        raise ValueError(f"autolag={autolag!r}: expected 'AIC', 'BIC' or None")
    statistic, nobs = _t_level(z, lags, regression)
    p_value, critical = _mackinnon(statistic, regression, nobs)
    return ADFResult(statistic, p_value, bool(p_value < alpha), alpha, lags, nobs, critical, ic)


def _t_level(z: np.ndarray, lags: int, regression: str) -> tuple[float, int]:
    """t-ratio of the lagged level in the ADF regression with ``lags`` lags, by QR."""
    X, y = _design(z, lags, regression, trend_first=False)
    q, r = linalg.qr(X, mode="economic", check_finite=False)
    diagonal = np.abs(np.diag(r))
    if not diagonal.min() > 1e-10 * max(diagonal.max(), 1.0):
        raise _singular(z.size)
    beta = linalg.solve_triangular(r, q.T @ y, check_finite=False)
    resid = y - X @ beta
    dof = y.size - X.shape[1]
    sigma2 = float(resid @ resid) / dof
    if not sigma2 > 1e-24 * max(float(y @ y), 1e-300):
        raise _singular(z.size)
    # (X'X)^-1 = R^-1 R^-T; its [0, 0] entry is the squared norm of row 0 of R^-1
    rinv = linalg.solve_triangular(r, np.eye(r.shape[0]), check_finite=False)
    return float(beta[0] / math.sqrt(sigma2 * float(rinv[0] @ rinv[0]))), y.size


def adf_suffixes(x: ArrayLike, starts, *, lags: int, regression: str = "c") -> tuple[np.ndarray, np.ndarray]:
    """ADF statistics and p-values of ``x[s:]`` for every ``s`` in ``starts``, with a fixed lag.

    Equal to ``adfuller(x[s:], maxlag=lags, autolag=None)`` for each ``s`` (tested), at the cost of
    one pass over the series: the normal equations of each suffix are the whole-series ones minus
    the rows before it.

    Parameters
    ----------
    x : array_like, 1-D
        The whole series, in time order.
    starts : array_like of int
        Candidate first indices; each suffix ``x[s:]`` must hold at least ``min_suffix(lags)`` points.
    lags : int
        Lagged differences in every regression (no lag search: the warm-up scan fixes it once).
    regression : {"c", "ct", "ctt", "n"}
        Deterministic terms, as in :func:`adf`.

    Returns
    -------
    statistics, p_values : ndarray, shape (len(starts),)
    """
    x = _check(x, regression)
    lags = check_int("lags", lags, minimum=0)
    try:
        starts_float = np.asarray(starts, dtype=float)
    except (ValueError, TypeError):
        raise TypeError("starts: expected integer indices") from None
    if starts_float.ndim != 1 or starts_float.size == 0:
        raise ValueError("starts: expected a non-empty one-dimensional array of indices")
    if not (np.isfinite(starts_float).all() and (starts_float == np.floor(starts_float)).all()):
        raise ValueError("starts: expected integer indices")
    starts = starts_float.astype(np.int64)
    if starts.ndim != 1 or starts.size == 0:
        raise ValueError("starts: expected a non-empty one-dimensional array of indices")
    k = _ntrend(regression) + 1 + lags
    shortest = x.size - int(starts.max())
    if starts.min() < 0 or shortest - 1 - lags <= k or lags > shortest // 2 - _ntrend(regression) - 1:
        raise ValueError(
            f"starts: every suffix needs at least {min_suffix(lags, regression)} points "
            f"for {lags} lags; the shortest has {shortest}"
        )
    z = _standardised(x, regression)
    X, y = _design(z, lags, regression)  # rows are times j = lags..n-2 of the differences
    # suffix x[s:] uses the rows j >= s + lags, i.e. design rows from s on
    order = np.argsort(starts)[::-1]
    gram = np.zeros((k, k))
    xty = np.zeros(k)
    yty = 0.0
    # trend columns are not shift-invariant row by row: a suffix's own trend starts at 1. A constant
    # is in every "c"/"ct"/"ctt" design, and trend + constant spans the same space whatever the origin,
    # so the whole-series trend columns serve every suffix.
    stop = X.shape[0]
    statistics = np.empty(starts.size)
    p_values = np.empty(starts.size)
    level = _ntrend(regression)  # column of the lagged level when the trend comes first
    for i in order:
        first = int(starts[i])
        block, target = X[first:stop], y[first:stop]
        gram += block.T @ block
        xty += block.T @ target
        yty += float(target @ target)
        stop = first
        nobs = X.shape[0] - first
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", linalg.LinAlgWarning)
            try:
                factor = linalg.cho_factor(gram, check_finite=False)
            except linalg.LinAlgError:
                raise _singular(x.size - first) from None
            beta = linalg.cho_solve(factor, xty, check_finite=False)
            unit = np.zeros(k)
            unit[level] = 1.0
            inverse_level = float(linalg.cho_solve(factor, unit, check_finite=False)[level])
        ssr = max(yty - float(beta @ xty), 0.0)
        sigma2 = ssr / (nobs - k)
        if not (sigma2 > 1e-24 * max(yty, 1e-300) and inverse_level > 0):
            raise _singular(x.size - first)
        statistics[i] = beta[level] / math.sqrt(sigma2 * inverse_level)
        p_values[i] = _mackinnon(float(statistics[i]), regression, nobs)[0]
    return statistics, p_values
