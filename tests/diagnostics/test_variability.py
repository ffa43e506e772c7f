import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from perfstudy.diagnostics.variability import (
    _autocovariances,
    autocorrelation_se,
    coefficient_of_variation,
    effective_sample_size,
    independence_test,
    normality,
    stationarity,
    warmup,
)


def ar1(n, phi, rng, size=None):
    noise = rng.normal(size=(size or 1, n))
    x = np.empty_like(noise)
    x[:, 0] = noise[:, 0] / math.sqrt(1 - phi**2)  # start in the stationary law
    for i in range(1, n):
        x[:, i] = phi * x[:, i - 1] + noise[:, i]
    return x if size else x[0]


def blog_error_of_the_mean(v):
    """The blog's Rust `error_of_the_mean`, transcribed line by line."""
    n = len(v)
    mean = sum(v) / n
    var = sum((x - mean) ** 2 for x in v) / n
    max_lag = min(n, math.ceil(n**0.5))
    cov = 0.0
    for lag in range(1, max_lag):
        weight = 1.0 - lag / n
        for i in range(lag, n):
            cov += 2.0 * (v[i] - mean) * (v[i - lag] - mean) * weight
    cov /= n
    return math.sqrt(max(var + cov, 0.0) / n)


def test_autocovariances_against_a_loop():
    x = np.random.default_rng(0).normal(size=257)
    d = x - x.mean()
    direct = [np.sum(d[: x.size - k] * d[k:]) / x.size for k in range(20)]
    np.testing.assert_allclose(_autocovariances(x, 19), direct, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("phi", [0.0, 0.6, -0.3])
def test_truncated_kernel_is_the_blogs_code(phi):
    x = ar1(1000, phi, np.random.default_rng(1))  # sqrt(1000) = 31.6: the code's lags 1..31 = floor
    result = autocorrelation_se(x)
    assert result.lags == 31
    assert result.standard_error == pytest.approx(blog_error_of_the_mean(list(x)), rel=1e-10)
    assert result.naive_standard_error == pytest.approx(x.std(ddof=1) / math.sqrt(1000))


@pytest.mark.parametrize("lags", [0, 5, 40])
def test_bartlett_kernel_is_statsmodels_newey_west(lags):
    import statsmodels.api as sm
    from statsmodels.stats.sandwich_covariance import cov_hac

    x = ar1(800, 0.7, np.random.default_rng(2))
    fit = sm.OLS(x, np.ones(x.size)).fit()
    reference = math.sqrt(cov_hac(fit, nlags=lags, use_correction=False)[0, 0])
    assert autocorrelation_se(x, max_lag=lags, kernel="bartlett").standard_error == pytest.approx(reference, rel=1e-10)


def test_corrected_se_is_calibrated_on_ar1():
    # 400 AR(1) series, phi = 0.5, N = 4000: the spread of their means is the truth. The naive SE
    # is too small by sqrt((1 - phi) / (1 + phi)) = 0.577; the corrected one is right. The SD of
    # 400 means has relative MC error 1/sqrt(800) = 3.5%: tolerance 12% (3.5 sigma).
    series = ar1(4000, 0.5, np.random.default_rng(3), size=400)
    truth = series.mean(axis=1).std(ddof=1)
    results = [autocorrelation_se(s) for s in series]
    corrected = math.sqrt(np.mean([r.standard_error**2 for r in results]))
    naive = math.sqrt(np.mean([r.naive_standard_error**2 for r in results]))
    assert corrected / truth == pytest.approx(1.0, abs=0.12)
    assert naive / truth == pytest.approx(math.sqrt(1 / 3), abs=0.06)
    # ESS = N (1 - phi) / (1 + phi) = 1333 for AR(1)
    assert np.median([r.effective_sample_size for r in results]) == pytest.approx(4000 / 3, rel=0.15)
    assert results[0].inflation == pytest.approx(results[0].standard_error / results[0].naive_standard_error)


def test_effective_sample_size_of_independent_points():
    x = np.random.default_rng(4).normal(size=20_000)
    # Bartlett with a few lags: the sum of 5 weighted autocorrelations has sd ~ 2e-2, so ESS ~ N +- 5%
    assert effective_sample_size(x, max_lag=5, kernel="bartlett") == pytest.approx(20_000, rel=0.1)


def test_autocorrelation_se_bad_input():
    with pytest.raises(ValueError, match="1 of 4 values are NaN or infinite"):
        autocorrelation_se([1.0, 2.0, np.nan, 3.0])
    with pytest.raises(ValueError, match="at least 3"):
        autocorrelation_se([1.0, 2.0])
    with pytest.raises(ValueError, match="kernel='parzen'"):
        autocorrelation_se(np.arange(10.0), kernel="parzen")
    with pytest.raises(ValueError, match="max_lag"):
        autocorrelation_se(np.arange(10.0), max_lag=-1)


def test_coefficient_of_variation():
    x = np.random.default_rng(5).gamma(4.0, size=500)
    assert coefficient_of_variation(x) == pytest.approx(stats.variation(x, ddof=1))
    with pytest.raises(ValueError, match="mean is 0"):
        coefficient_of_variation([-1.0, 1.0])


@pytest.fixture
def fleet():
    rng = np.random.default_rng(6)
    frames = []
    for host in range(3):
        values = rng.normal(10 + host, 1, 300) if host < 2 else rng.exponential(1.0, 300) + 12
        frames.append(pd.DataFrame({"benchmark": "b", "host": host, "value": values}))
    return pd.concat(frames, ignore_index=True)


def test_normality_per_group_matches_scipy(fleet):
    within = normality(fleet, by=["benchmark", "host"])
    assert list(within.columns) == ["benchmark", "host", "n", "n_tested", "statistic", "p_value", "reject"]
    for row in within.itertuples():
        w, p = stats.shapiro(fleet.value[fleet.host == row.host])
        assert (row.statistic, row.p_value) == pytest.approx((w, p))
    assert list(within.reject) == [False, False, True]  # the exponential host is not normal
    across = normality(fleet, by="benchmark")
    assert across.n.iloc[0] == 900 and bool(across.reject.iloc[0])  # mixing hosts breaks normality


def test_normality_subsamples_large_groups_reproducibly():
    frame = pd.DataFrame({"value": np.random.default_rng(7).normal(size=12_000)})
    a, b = normality(frame, rng=1), normality(frame, rng=1)
    assert a.n.iloc[0] == 12_000 and a.n_tested.iloc[0] == 5_000
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize(
    "frame,kwargs,match",
    [
        (pd.DataFrame({"value": [1.0, 2.0]}), {}, "at least 3"),
        (pd.DataFrame({"value": [1.0] * 10}), {}, "constant"),
        (pd.DataFrame({"value": [1.0, np.nan, 2.0, 3.0]}), {}, "NaN"),
        (pd.DataFrame({"v": [1.0, 2.0, 3.0]}), {}, "value='value': no such column"),
        (pd.DataFrame({"value": [1.0, 2.0, 3.0]}), {"by": "host"}, "by: no column"),
    ],
)
def test_normality_bad_input(frame, kwargs, match):
    with pytest.raises(ValueError, match=match):
        normality(frame, **kwargs)


def test_stationarity_matches_statsmodels_and_decides():
    from statsmodels.tsa.stattools import adfuller as _adfuller

    def adfuller(x, autolag):
        with warnings.catch_warnings():  # statsmodels' FutureWarning about its return type
            warnings.simplefilter("ignore")
            return _adfuller(x, autolag=autolag)

    rng = np.random.default_rng(8)
    noise = rng.normal(size=600)
    walk = np.cumsum(rng.normal(size=600))
    frame = pd.DataFrame({"series": ["noise"] * 600 + ["walk"] * 600, "value": np.r_[noise, walk]})
    result = stationarity(frame, by="series").set_index("series")
    assert result.loc["noise", "p_value"] == pytest.approx(adfuller(noise, autolag="AIC")[1])
    assert result.loc["walk", "p_value"] == pytest.approx(adfuller(walk, autolag="AIC")[1])
    assert bool(result.loc["noise", "reject"]) and not bool(result.loc["walk", "reject"])
    # rows are put in timestamp order first
    timed = frame.assign(timestamp=pd.Timestamp("2024-01-01") + pd.to_timedelta(np.tile(np.arange(600), 2), "min"))
    shuffled = timed.sample(frac=1.0, random_state=0)
    pd.testing.assert_frame_equal(stationarity(shuffled, by="series"), stationarity(timed, by="series"))


def test_stationarity_bad_input():
    with pytest.raises(ValueError, match="19 values; at least 20"):
        stationarity(pd.DataFrame({"value": np.arange(19.0)}))
    with pytest.raises(ValueError, match="constant"):
        stationarity(pd.DataFrame({"value": np.ones(50)}))
    with pytest.raises(ValueError, match="regression"):
        stationarity(pd.DataFrame({"value": np.arange(50.0)}), regression="x")
    with pytest.raises(TypeError, match="DataFrame"):
        stationarity(np.arange(50.0))


def test_independence_test():
    rng = np.random.default_rng(9)
    iid = independence_test(rng.normal(size=500), permutations=999, rng=1)
    assert iid.p_value > 0.05
    # the null of shuffled orders centres on -1/(N-1)
    assert iid.null.mean() == pytest.approx(-1 / 499, abs=3 * iid.null.std() / math.sqrt(999))
    dependent = independence_test(ar1(500, 0.5, rng), permutations=999, rng=1)
    assert dependent.p_value == pytest.approx(1 / 1000) and dependent.statistic > 0.3
    with pytest.raises(ValueError, match="constant"):
        independence_test(np.ones(10))


def test_warmup_detection():
    rng = np.random.default_rng(0)
    n = 2000
    walk = np.cumsum(rng.normal(size=800))  # an 800-run unit-root warm-up, then a settled level
    warm = warmup(np.r_[walk, walk[-1] + rng.normal(size=n - 800)])
    # ADF judges the remainder as a whole: a warm-up is found, at or before its true end (800)
    assert warm.index is not None and 0 < warm.index <= 800
    assert warmup(rng.normal(size=n)).index == 0
    assert warmup(np.cumsum(rng.normal(size=n))).index is None
    assert list(warm.to_frame().columns) == ["start", "p_value", "reject"]
    with pytest.raises(ValueError, match="max_fraction"):
        warmup(rng.normal(size=n), max_fraction=1.5)


def test_independence_test_type1_error_is_nominal():
    # 400 iid series, 199 shuffles each: the permutation test is exact, so the rejection rate at
    # 0.05 is Binomial(400, 0.05)/400; 4 Monte Carlo SEs = 4 sqrt(0.05 0.95 / 400) = 0.044
    rng = np.random.default_rng(21)
    p = np.array([independence_test(rng.exponential(size=50), permutations=199, rng=rng).p_value for _ in range(400)])
    assert abs(np.mean(p <= 0.05) - 0.05) < 0.044


def test_nan_rows_are_an_error_or_dropped_and_counted():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"host": np.repeat(["a", "b"], 60), "value": rng.normal(size=120)})
    frame.loc[[5, 7, 100], "value"] = np.nan
    with pytest.raises(ValueError, match="2 of 60 values are NaN or infinite"):
        normality(frame, by="host")
    with pytest.warns(UserWarning, match="3 of 120 rows are NaN"):
        result = normality(frame, by="host", dropna=True)
    assert result.dropped.tolist() == [2, 1] and result.n.tolist() == [58, 59]
    clean = frame.dropna()
    expected = [stats.shapiro(clean[clean.host == h].value).pvalue for h in "ab"]
    np.testing.assert_allclose(result.p_value, expected)
    with pytest.warns(UserWarning, match="3 of 120"):
        adf_result = stationarity(frame, by="host", dropna=True)
    assert adf_result.dropped.tolist() == [2, 1]
    with pytest.raises(ValueError, match="NaN"):
        stationarity(frame, by="host")


def test_batch_means_by_hand_and_calibrated_on_ar1():
    from perfstudy.diagnostics.variability import batch_means

    x = np.arange(10.0) ** 2
    result = batch_means(x, batches=3)  # blocks [0,1,4], [9,16,25], [36,49,64]; the 10th point is left out
    np.testing.assert_allclose(result.means, [5 / 3, 50 / 3, 149 / 3])
    assert result.standard_error == pytest.approx(np.std([5 / 3, 50 / 3, 149 / 3], ddof=1) / math.sqrt(3))
    assert result.naive_standard_error == pytest.approx(np.std(x[:9], ddof=1) / 3)
    # AR(1), phi = 0.6, unit innovations: Var(mean) -> 1 / ((1 - phi)^2 N). 300 series of 8,000 points,
    # 20 batches of 400: the batch-means variance is unbiased up to O(1/400); its mean over 300 series
    # has a relative Monte Carlo error of sqrt(2/19/300) = 1.9%: allow 4 of them (7.5%) plus a 2% bias
    rng = np.random.default_rng(12)
    phi, n = 0.6, 8000
    series = ar1(n, phi, rng, size=300)
    variances = np.array([batch_means(s).standard_error ** 2 for s in series])
    truth = 1 / ((1 - phi) ** 2 * n)
    assert variances.mean() / truth == pytest.approx(1.0, abs=0.095)
    # and the naive SE is too narrow by about sqrt((1 + phi) / (1 - phi)) = 2
    assert np.median([batch_means(s).too_narrow for s in series]) == pytest.approx(2.0, rel=0.1)
    with pytest.raises(ValueError, match="batches=20: 30 values hold at most 15 batches of 2"):
        batch_means(np.arange(30.0))


def test_warmup_on_a_short_series_keeps_enough_points_for_its_lags():
    # 45 points: AIC may pick up to 10 lags, which need suffixes of at least 2 (10 + 2) = 24 points
    from perfstudy.diagnostics.adf import adf

    rng = np.random.default_rng(0)
    lags = []
    for seed in range(20):
        x = np.cumsum(np.random.default_rng(seed).normal(size=45)) + rng.normal(size=45)
        lags.append(adf(x).lags)
        result = warmup(x)  # raised before the candidates were cut to what the lags allow
        assert result.candidates.max() <= 45 - max(20, 2 * (lags[-1] + 2))
    assert max(lags) == 10  # the case that needs the cut occurs


def test_the_unwrapped_shapiro_wilk_is_scipys():
    from scipy import stats

    from perfstudy.diagnostics.variability import _SHAPIRO

    for n in (3, 30, 500, 5000):
        x = np.random.default_rng(n).lognormal(size=n)
        assert tuple(_SHAPIRO(x)) == tuple(stats.shapiro(x))
