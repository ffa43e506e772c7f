"""perfstudy.diagnostics.adf against statsmodels' adfuller: same lag, statistic, p-value and information criterion."""

import os
import warnings
from pathlib import Path

import numpy as np
import pytest

from perfstudy.diagnostics.adf import adf, adf_suffixes, default_maxlag

MIRROR = Path(os.environ.get("PERFSTUDY_DATA") or "/nonexistent")


def reference(x, **kwargs):
    from statsmodels.tsa.stattools import adfuller  # imported here: it costs a second of every collection

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels 0.15's FutureWarning about its return type
        return adfuller(x, **kwargs)


def _series():
    rng = np.random.default_rng(11)
    n = 1500
    e = rng.standard_normal(n)
    ar = np.empty(n)
    ar[0] = e[0]
    for t in range(1, n):
        ar[t] = 0.7 * ar[t - 1] + e[t]
    return {
        "white noise": 5.0 + rng.standard_normal(400),
        "random walk": np.cumsum(rng.standard_normal(900)),
        "AR(1) 0.7, level 1e6": 1e6 + 3e3 * ar,  # like the JPetStore counts: large level, small spread
        "trend + noise": np.linspace(0, 4, 700) + rng.standard_normal(700),
        "ties (integer counts)": rng.poisson(3.0, 600).astype(float),
    }


@pytest.mark.parametrize("regression", ["c", "ct", "ctt", "n"])
@pytest.mark.parametrize("autolag", ["AIC", "BIC"])
@pytest.mark.parametrize("name", list(_series()))
def test_lag_search_matches_statsmodels(name, regression, autolag):
    x = _series()[name]
    ours = adf(x, regression=regression, autolag=autolag)
    stat, p, lags, nobs, crit, ic = reference(x, regression=regression, autolag=autolag)
    assert ours.lags == lags and ours.nobs == nobs
    assert ours.statistic == pytest.approx(stat, rel=1e-9, abs=1e-9)
    assert ours.p_value == pytest.approx(p, rel=1e-7, abs=1e-12)
    assert ours.ic == pytest.approx(ic, rel=1e-10)
    assert ours.critical_values == pytest.approx(crit)


@pytest.mark.parametrize("maxlag", [0, 1, 7])
def test_fixed_lag_matches_statsmodels(maxlag):
    x = _series()["AR(1) 0.7, level 1e6"]
    ours = adf(x, autolag=None, maxlag=maxlag)
    stat, p, lags, nobs, _ = reference(x, autolag=None, maxlag=maxlag)
    assert (ours.lags, ours.nobs, ours.ic) == (maxlag, nobs, None)
    assert ours.statistic == pytest.approx(stat, rel=1e-9)


@pytest.mark.parametrize("regression", ["c", "ct", "n"])
def test_suffixes_match_one_regression_each(regression):
    x = _series()["AR(1) 0.7, level 1e6"][:900]
    x = np.concatenate([np.cumsum(np.full(100, 40.0)) + x[:100], x[100:]])  # a drifting warm-up
    starts = np.array([0, 13, 100, 250, 400])
    stats_, p_values = adf_suffixes(x, starts, lags=4, regression=regression)
    for s, stat, p in zip(starts, stats_, p_values):
        ref = reference(x[s:], maxlag=4, autolag=None, regression=regression)
        assert stat == pytest.approx(ref[0], rel=1e-8), s
        assert p == pytest.approx(ref[1], rel=1e-6, abs=1e-12), s


@pytest.mark.skipif(not MIRROR.is_dir(), reason="PERFSTUDY_DATA does not point at the dataset mirror")
@pytest.mark.parametrize("name", ["pt4cloud-AWS-JPS-L", "pt4cloud-Chameleon-YCSB-S", "azure-mlc-idle-latency-long"])
def test_real_series_match_statsmodels(name):
    from perfstudy.io.datasets import load

    x = load(name).value.to_numpy()
    ours = adf(x)
    stat, p, lags, *_ = reference(x, autolag="AIC")
    assert ours.lags == lags
    assert ours.statistic == pytest.approx(stat, rel=1e-9)


def test_bad_input():
    with pytest.raises(ValueError, match="regression="):
        adf(np.arange(50.0), regression="t")
    with pytest.raises(ValueError, match="constant"):
        adf(np.ones(50))
    with pytest.raises(ValueError, match="NaN"):
        adf(np.r_[np.arange(50.0), np.nan])
    with pytest.raises(ValueError, match="maxlag=30"):
        adf(np.random.default_rng(0).standard_normal(50), maxlag=30, autolag=None)
    with pytest.raises(ValueError, match="autolag="):
        adf(np.random.default_rng(0).standard_normal(50), autolag="t-stat")
    with pytest.raises(ValueError, match="at least 12 points for 4 lags; the shortest has 10"):
        adf_suffixes(np.random.default_rng(0).standard_normal(50), [0, 40], lags=4)
    assert default_maxlag(61257) == 60 and default_maxlag(20, "ct") == 7
