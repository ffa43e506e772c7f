"""compare(): calibration under the null, the t and bootstrap paths against independent computations,
the corrections against statsmodels, verdicts, warnings and bad input."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from support.frames import clustered, suite

from perfstudy._lib.units import higher_is_better
from perfstudy.comparison import Comparison, _intervals as cmp, adjust_p_values, compare, format_comparison, verdict

# --- calibration: Type I error of A/A comparisons at 5% -----------------------------------------

# 1,000 A/A benchmarks per case: the rejection share has Monte Carlo SE sqrt(0.05 * 0.95 / 1000) =
# 0.0069; the tests allow 3 of them above 5% (0.071). Measured over 4,000: t 4.6% (mean, 5
# clusters a side), 4.4% (median, 5); bootstrap 5.2% (mean, 25), 4.2% (median, 25), 4.9% (mean,
# 60). Without its small-sample stretch the bootstrap gave 6.5-7% at 25 clusters; with 3 clusters a
# side a plain bootstrap rejected 21%.
CALIBRATION = [("mean", 5, "t"), ("median", 5, "t"), ("mean", 25, "bootstrap"), ("median", 25, "bootstrap")]


@pytest.mark.parametrize(
    "statistic, clusters, method",
    # the median's bootstrap takes over 3 s on 2 cores
    [pytest.param(*c, marks=pytest.mark.slow) if c == ("median", 25, "bootstrap") else c for c in CALIBRATION],
)
def test_type1_error_of_a_a_comparisons_is_nominal(statistic, clusters, method):
    df = clustered(1000, clusters, 20, rng=clusters)
    table = compare(df, statistic=statistic, correction="none", replicates=999, checks=False, rng=1).table
    assert (table.method == method).all()
    rejected = float((table.p_value < 0.05).mean())
    error = math.sqrt(0.05 * 0.95 / len(table))
    assert rejected <= 0.05 + 3 * error, f"Type I error {rejected:.3f}"
    assert rejected >= 0.05 - 4 * error  # not absurdly conservative either (the t is exact here)
    # the interval and the p-value agree: 0 lies outside the interval exactly when p < 0.05
    outside = (table.low > 0) | (table.high < 0)
    assert (outside == (table.p_value < 0.05)).mean() >= (0.99 if method == "bootstrap" else 1.0)


def test_an_iid_analysis_of_the_same_data_is_not_calibrated():
    # the same A/A data with every value its own cluster (benchstat's and pyperf's independence):
    # the process effect is read as a real change
    df = clustered(200, 5, 20, rng=7)
    iid = compare(df.assign(batch=np.arange(len(df))), correction="none", replicates=999, checks=False, rng=1)
    assert (iid.table.p_value < 0.05).mean() > 0.5


# --- the two interval methods against independent computations -----------------------------------


@pytest.mark.parametrize("statistic", ["mean", "median"])
def test_few_clusters_give_welch_t_and_fiellers_interval(statistic):
    # scipy's Welch test on the batch statistics gives the standard error and the degrees of freedom;
    # the estimate is each version's statistic of all its values, what the A and B columns show
    # (once, --statistic median showed the geometric mean of the batch medians). The interval
    # is Fieller's: the ratios r at which the same t, (B - r A) / sqrt(se_B^2 + r^2 se_A^2), is
    # at the quantile, found here by root-finding.
    from scipy.optimize import brentq

    df = clustered(1, 6, 10, rng=3, change=0.03)
    result = compare(df, statistic=statistic, confidence=0.9, replicates=999, checks=False).table.iloc[0]
    per_batch = df.groupby(["version", "batch"]).value.agg(statistic)
    a, b = per_batch[0].to_numpy(), per_batch[1].to_numpy()
    welch = stats.ttest_ind(b, a, equal_var=False)
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    pooled = df.groupby("version").value.agg(statistic)
    assert result.method == "t" and result.scale == "ratio"
    assert (result.estimate_a, result.estimate_b) == pytest.approx((pooled[0], pooled[1]), rel=1e-12)
    assert result.change == pytest.approx(pooled[1] / pooled[0] - 1, rel=1e-12)
    t = (pooled[1] - pooled[0]) / math.sqrt(va + vb)
    assert result.p_value == pytest.approx(2 * stats.t.sf(abs(t), welch.df), rel=1e-10)
    if statistic == "mean":  # equal batch sizes: the pooled mean is the mean of the batch means
        assert result.p_value == pytest.approx(welch.pvalue, rel=1e-10)
    q = stats.t.ppf(0.95, welch.df)
    excess = lambda r: abs(pooled[1] - r * pooled[0]) / math.sqrt(vb + r**2 * va) - q  # noqa: E731
    ratio = pooled[1] / pooled[0]
    assert result.low == pytest.approx(brentq(excess, 0.5, ratio) - 1, rel=1e-9)
    assert result.high == pytest.approx(brentq(excess, ratio, 2.0) - 1, rel=1e-9)


def test_one_stalled_batch_is_not_read_as_a_change():
    # seen in CI: hyperfine's "sleep 0.005" stalled once for 12 s; the mean of A is then 1.0 s, and
    # a t on log batch values centred on the ratio of those means said "faster, p = 0.0002"
    a = np.r_[12.0, np.full(11, 0.005)]
    b = np.full(12, 0.03) * np.exp(np.random.default_rng(0).normal(0, 0.01, 12))
    df = pd.DataFrame(dict(version=np.repeat([0, 1], 12), batch=np.arange(24), value=np.r_[a, b]))
    row = compare(df, threshold=0.05, checks=False).table.iloc[0]
    welch = stats.ttest_ind(b, a, equal_var=False)
    assert row.p_value == pytest.approx(welch.pvalue, rel=1e-10) and row.p_value > 0.3
    assert row.verdict == "inconclusive" and math.isnan(row.low)  # A's mean is not told from 0: unbounded


@pytest.mark.parametrize("statistic", ["mean", "median"])
def test_the_cluster_bootstrap_resamples_whole_clusters(statistic):
    # a slow, obvious version: draw the same cluster counts, build each resample by repeating whole
    # clusters, take its mean or median
    rng = np.random.default_rng(5)
    values = rng.lognormal(0, 0.1, 57)
    labels = rng.integers(0, 7, 57)
    side = cmp._side(values, labels, statistic)
    fast = cmp._resampled(side, statistic, 50, np.random.default_rng(9))
    draws = cmp._draw_counts(7, 50, np.random.default_rng(9))
    groups = [values[side.cluster == c] for c in range(7)]
    slow = [
        getattr(np, statistic)(np.concatenate([np.repeat(g, k) for g, k in zip(groups, row)], axis=None))
        for row in draws
    ]
    # np.repeat of a group by k repeats elements; order does not matter for a mean or a median
    assert np.allclose(fast, slow, rtol=1e-12)


def test_cluster_draws_are_multinomial():
    # C clusters drawn with replacement: each count is Binomial(C, 1/C), the counts sum to C
    counts = cmp._draw_counts(8, 20000, np.random.default_rng(0))
    assert (counts.sum(axis=1) == 8).all()
    assert counts.mean() == pytest.approx(1.0, abs=0.01)  # SE sqrt(7/8 / 160000) = 0.0023
    assert counts.var() == pytest.approx(7 / 8, rel=0.02)
    assert np.corrcoef(counts[:, 0], counts[:, 1])[0, 1] == pytest.approx(-1 / 7, abs=0.02)


def test_bootstrap_interval_and_p_value_follow_the_replicates():
    df = clustered(1, 30, 10, rng=4, change=0.01)
    result = compare(df, replicates=1999, checks=False, rng=2).table.iloc[0]
    assert result.method == "bootstrap" and result.low < result.change < result.high
    # a bootstrap SE from the spread of cluster means: the interval's half-width is about 1.96 of it
    means = df.groupby(["version", "batch"]).value.mean()
    se = math.sqrt(means[0].var() / 30 + means[1].var() / 30) / means[0].mean()
    assert (result.high - result.low) / 2 == pytest.approx(1.96 * se, rel=0.15)


# --- corrections against statsmodels -------------------------------------------------------------


@pytest.mark.parametrize("method, reference", [("holm", "holm"), ("bh", "fdr_bh")])
def test_corrections_match_statsmodels(method, reference):
    from statsmodels.stats.multitest import multipletests

    p = np.random.default_rng(0).uniform(0, 0.2, 40) ** 2
    p[[3, 17]] = np.nan
    expected = np.full(40, np.nan)
    finite = ~np.isnan(p)
    expected[finite] = multipletests(p[finite], method=reference)[1]
    assert np.allclose(adjust_p_values(p, method), expected, equal_nan=True, rtol=1e-12)
    assert np.array_equal(adjust_p_values(p, "none"), p, equal_nan=True)


@pytest.mark.parametrize("seed", range(6))
def test_drift_trend_is_scipy_spearman(seed):
    """compare's drift check is Spearman's rho against batch order with scipy's p-value (ties included)."""
    from scipy import stats

    from perfstudy.comparison._batch_checks import _trend

    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(0, 1, 12 + 3 * seed) + 0.1 * seed * np.arange(12 + 3 * seed), 1)  # rounding: ties
    rho, p = _trend(x)
    reference = stats.spearmanr(np.arange(x.size), x)
    assert rho == pytest.approx(reference.statistic, rel=1e-12)
    assert p == pytest.approx(reference.pvalue, rel=1e-9)


# --- verdicts -----------------------------------------------------------------------------------


def test_verdicts_follow_the_direction_the_unit_gives():
    slow = clustered(1, 25, 10, rng=1, change=0.05)  # B takes 5% longer
    assert compare(slow, rng=0).table.verdict.iloc[0] == "slower"
    rate = slow.assign(unit="ops/s")  # B does 5% more operations per second
    assert compare(rate, rng=0).table.verdict.iloc[0] == "faster"
    same = clustered(1, 25, 10, rng=1, sd_cluster=0.002, sd_noise=0.002)
    table = compare(same, threshold=0.02, rng=0).table.iloc[0]
    assert table.verdict == "no change" and -0.02 <= table.low and table.high <= 0.02
    # a significant change that stays inside the threshold is not a regression
    small = clustered(1, 25, 10, rng=1, change=0.01, sd_cluster=0.002, sd_noise=0.002)
    assert compare(small, threshold=0.05, rng=0).table.verdict.iloc[0] == "no change"
    assert compare(small, threshold=0.0, rng=0).table.verdict.iloc[0] == "slower"


def test_verdicts_use_the_corrected_p_values():
    df = clustered(20, 6, 10, rng=11)
    df.loc[(df.benchmark == 0) & (df.version == 1), "value"] *= 1.02
    raw = compare(df, correction="none", checks=False, rng=0)
    holm = compare(df, correction="holm", checks=False, rng=0)
    assert (holm.table.p_adjusted >= holm.table.p_value).all()
    assert (holm.table.verdict != "inconclusive").sum() <= (raw.table.verdict != "inconclusive").sum()


@pytest.mark.parametrize(("unit", "higher"), [("ops/s", True), ("ops/ms", True), ("requests / s", True),
                                              ("s", False), ("ns/op", False), ("second", False), (None, False)])  # fmt: skip
def test_direction_from_the_unit(unit, higher):
    assert higher_is_better(unit) is higher


def test_one_cluster_per_side_is_never_a_narrow_interval():
    df = clustered(1, 1, 50, rng=0, change=0.05)
    row = compare(df).table.iloc[0]
    assert row.method == "none" and np.isnan(row.low) and np.isnan(row.p_value)
    assert (
        row.verdict == "inconclusive"
        and "one batch in A" in "; ".join(row.notes)
        and "one batch in B" in "; ".join(row.notes)
    )


# --- warnings -----------------------------------------------------------------------------------


def test_warnings_name_warmup_drift_and_an_odd_batch():
    df = clustered(1, 25, 40, rng=2, sd_cluster=0.005)
    first = df.groupby("batch").cumcount() < 4
    warm = df.assign(value=np.where(first & (df.version == 1), df.value * 1.3, df.value))
    assert "warm-up in B" in "; ".join(compare(warm, rng=0).table.notes.iloc[0])
    drift = df.assign(value=df.value * (1 + 0.004 * df.batch))
    assert "drift in" in "; ".join(compare(drift, rng=0).table.notes.iloc[0])
    odd = df.assign(value=np.where(df.batch == 7, df.value * 1.5, df.value))
    assert "batch 7 of A is unlike the others" in "; ".join(compare(odd, rng=0).table.notes.iloc[0])
    assert compare(df, rng=0).table.notes.iloc[0] == ()


def test_flagged_warmups_are_left_out_and_counted():
    df = clustered(1, 25, 10, rng=2).assign(warmup=lambda d: d.groupby("batch").cumcount() < 2)
    result = compare(df, rng=0)
    assert result.warmup_dropped == 2 * 50 and result.table.n_a.iloc[0] == 25 * 8


# --- bad input ----------------------------------------------------------------------------------


def test_benchmarks_in_one_version_only_are_listed():
    df = clustered(3, 3, 5, rng=0)
    df = df[~((df.benchmark == 1) & (df.version == 1)) & ~((df.benchmark == 2) & (df.version == 0))]
    result = compare(df, checks=False)
    assert list(result.table.benchmark) == [0] and result.only_a == ("1",) and result.only_b == ("2",)


@pytest.mark.parametrize(
    "change, kwargs, error, match",
    [
        (lambda d: d.drop(columns="batch"), {}, ValueError, "cluster='batch': df has no such column"),
        (lambda d: d.assign(version=d.batch % 3), {}, ValueError, "exactly two versions"),
        (lambda d: d.assign(value=np.where(d.index == 3, np.nan, d.value)), {}, ValueError, "dropna=True"),
        (lambda d: d.assign(value=np.where(d.index == 3, np.inf, d.value)), {}, ValueError, "1 value.* not finite"),
        (lambda d: d.assign(benchmark=np.where(d.index == 3, None, d.benchmark)), {}, ValueError, "1 benchmark label"),
        (lambda d: d.assign(unit=np.where(d.version == 1, "ms", "kg")), {}, ValueError, r"none can be compared.*kg"),
        (lambda d: d.assign(warmup=True), {}, ValueError, r"none can be compared.*no values left"),
        (lambda d: d.assign(value=d.value.astype(str)), {}, TypeError, "numbers"),
        (lambda d: d, {"statistic": "mode"}, ValueError, "statistic"),
        (lambda d: d, {"correction": "bonferroni"}, ValueError, "correction"),
        (lambda d: d, {"threshold": 2.0}, ValueError, "threshold"),
        (lambda d: d, {"confidence": 1.5}, ValueError, "confidence"),
        (lambda d: d, {"replicates": 10}, ValueError, "replicates"),
        (lambda d: d, {"baseline": 7}, ValueError, "baseline=7"),
        (lambda d: d.assign(benchmark=np.where(d.version == 0, "x", "y")), {}, ValueError, "none is present in both"),
    ],
)
def test_bad_input_is_named(change, kwargs, error, match):
    with pytest.raises(error, match=match):
        compare(change(clustered(2, 3, 5, rng=0)), checks=False, **kwargs)


def test_missing_values_can_be_dropped_with_a_count():
    df = clustered(1, 3, 5, rng=0)
    df.loc[[2, 20], "value"] = np.nan
    result = compare(df, dropna=True, checks=False)
    assert result.dropped == 2 and result.table.n_a.iloc[0] + result.table.n_b.iloc[0] == 28


def test_a_comparison_is_a_frozen_result_with_its_frame():
    result = compare(clustered(2, 3, 5, rng=0), checks=False)
    assert isinstance(result, Comparison)
    assert list(result.to_frame().columns) == [
        "benchmark", "n_a", "n_b", "clusters_a", "clusters_b", "estimate_a", "estimate_b", "spread_a", "spread_b",
        "scale", "change", "low", "high", "p_value", "p_adjusted", "method", "higher_is_better", "verdict",
        "notes",
    ]  # fmt: skip
    with pytest.raises(AttributeError):
        result.threshold = 1.0


def test_same_seed_same_comparison_on_any_executor():
    from concurrent.futures import ThreadPoolExecutor

    df = clustered(3, 25, 5, rng=0)
    here = compare(df, threshold=0.01, rng=4).table
    pd.testing.assert_frame_equal(here, compare(df, threshold=0.01, rng=4).table)
    with ThreadPoolExecutor(2) as pool:
        pd.testing.assert_frame_equal(here, compare(df, threshold=0.01, rng=4, executor=pool).table)


def test_confirm_warns_when_batches_cannot_pin_the_median():
    # 12 batches a side whose means scatter by 5%: +-0.5% needs far more of them
    df = clustered(1, 12, 10, rng=0, sd_cluster=0.05)
    assert "CONFIRM: 12 batches in A do not pin the median to +-0.5%" in "; ".join(
        compare(df, threshold=0.005).table.notes[0]
    )
    assert "CONFIRM" not in "; ".join(compare(df, threshold=0.2).table.notes[0])


def test_odd_batches_is_a_studentised_outlier_test():
    from perfstudy.comparison import odd_batches

    rng = np.random.default_rng(0)
    # the statistic against a slow reading: each batch against the mean and SD of the others
    x = rng.lognormal(0, 0.02, 12)
    x[4] *= 1.2
    logs = np.log(x)
    slow = []
    for c in range(12):
        others = np.delete(logs, c)
        t = abs(logs[c] - others.mean()) / (others.std(ddof=1) * math.sqrt(1 + 1 / 11))
        slow.append(2 * stats.t.sf(t, 10) * 12)
    assert (
        odd_batches(x, list("abcdefghijkl"))
        == ["e"]
        == [list("abcdefghijkl")[i] for i in np.flatnonzero(np.array(slow) < 0.05)]
    )
    # family-wise error under the null: 2,000 sets of 20 log-normal batches, at most 5% + 3 MC SE
    # (0.0049); measured 4.75%. The robust z > 5 it replaced flagged 3 ordinary batches in one demo run.
    flagged = np.mean([bool(odd_batches(rng.lognormal(0, 0.01, 20))) for _ in range(2000)])
    assert flagged <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 2000)
    assert odd_batches([1.0, 1.0, 1.0, 1.0, 1.0]) == [] and odd_batches([1.0, 2.0]) == []


def test_a_process_pool_gives_the_same_comparison():
    # the tasks cross a process boundary (pickled), as on a Dask cluster's executor
    from concurrent.futures import ProcessPoolExecutor

    df = clustered(4, 25, 5, rng=1)
    here = compare(df, threshold=0.01, rng=7).table
    with ProcessPoolExecutor(2) as pool:
        pd.testing.assert_frame_equal(here, compare(df, threshold=0.01, rng=7, executor=pool).table)


# --- a gate that catches regressions at any number of batches ---------------------------


@pytest.mark.parametrize("runs, correction", [(19, "holm"), (20, "holm"), (20, "bh"), (40, "holm")])
def test_the_200_benchmark_gate_catches_its_planted_regressions(runs, correction):
    # on the code before the gate was fixed, 20 runs a side gave p >= 2/2001 for every benchmark, Holm made
    # that 0.2, and all 200 were "inconclusive"; 19 runs (Welch's t) caught all 20. Adding runs must
    # never make the gate worse.
    result = compare(suite(runs=runs), correction=correction, threshold=0.01, rng=1)
    caught = set(result.regressions.benchmark)
    assert caught >= set(range(20)), f"missed {sorted(set(range(20)) - caught)}"
    assert len(caught - set(range(20))) <= 2  # Holm: P(any false) <= 5%; BH: FDR <= 5% of ~20
    assert result.table.p_value.min() < 1e-6  # no floor at 2 / (replicates + 1)


# 1,000 A/A benchmarks per case (MC SE of a 5% rejection share 0.0069; 3 of them allowed above, 4
# below), and the lower tail where the p-value comes from the t approximation (the share of
# replicates beyond 0 is resolved only to about 10 / replicates): P(p < 0.01) over 1,000 has MC SE
# 0.0031, 3 of them allowed. Measured over 4,000 A/A benchmarks each (p < 0.05 / p < 0.01): 20
# batches 5.0% / 1.18%, 50 batches 4.2% / 1.08%, 200 batches 5.1% / 1.15%.
@pytest.mark.parametrize("clusters, per_cluster", [(20, 5), (50, 4), (200, 2)])
def test_type1_error_holds_at_20_50_and_200_batches(clusters, per_cluster):
    df = clustered(1000, clusters, per_cluster, rng=100 + clusters)
    table = compare(df, correction="none", replicates=499, checks=False, rng=2).table
    assert (table.method == "bootstrap").all()
    for level in (0.05, 0.01):
        rejected = float((table.p_value < level).mean())
        error = math.sqrt(level * (1 - level) / len(table))
        assert level - 4 * error <= rejected <= level + 3 * error, f"at {level}: {rejected:.4f}"


def test_p_values_of_large_changes_are_not_floored_by_the_replicates():
    df = clustered(1, 30, 5, rng=8, change=0.05)
    p = compare(df, replicates=199, checks=False, rng=0).table.p_value.iloc[0]
    assert p < 1e-8  # the share of 199 replicates could not go below 0.01
    # the t tail: log ratio over the bootstrap SE (times sqrt(C / (C - 1))), 58 degrees of freedom
    means = df.groupby(["version", "batch"]).value.mean()
    se = math.sqrt(means[0].var() / 30 + means[1].var() / 30) / means[0].mean()
    expected = 2 * stats.t.sf(math.log1p(0.05) / se, 58)
    assert math.log10(p) == pytest.approx(math.log10(expected), abs=3)  # same order of magnitude


# --- zeros, counts, negative values --------------------------------------------------------------


def test_zero_to_zero_is_no_change_and_zero_to_some_is_a_change():
    rows = []
    for version, allocs in ((0, 0.0), (1, 0.0)):
        rows += [dict(benchmark="zero", version=version, batch=i, value=allocs, unit="allocs/op") for i in range(6)]
    for version, allocs in ((0, 0.0), (1, 100.0)):
        rows += [dict(benchmark="grew", version=version, batch=i, value=allocs, unit="allocs/op") for i in range(6)]
    for version, bytes_ in ((0, 64.0), (1, 32.0)):
        rows += [dict(benchmark="halved", version=version, batch=i, value=bytes_, unit="B/op") for i in range(6)]
    table = compare(pd.DataFrame(rows), threshold=0.02).table.set_index("benchmark")
    assert table.loc["zero", "verdict"] == "no change" and table.loc["zero", "scale"] == "difference"
    assert table.loc["zero", "change"] == 0.0
    assert table.loc["grew", "verdict"] == "slower" and table.loc["grew", "scale"] == "difference"
    assert table.loc["grew", "change"] == 100.0  # B - A, in allocs/op
    assert table.loc["halved", "verdict"] == "faster" and table.loc["halved", "scale"] == "ratio"
    assert table.loc["halved", "change"] == -0.5


def test_the_difference_scale_is_welch_t_on_the_batch_statistics():
    rng = np.random.default_rng(4)
    values = np.concatenate([rng.poisson(0.5, 40), rng.poisson(1.5, 40)]).astype(float)
    values[:5] = 0.0  # a batch that allocated nothing: its mean is 0, a ratio of logs is undefined
    df = pd.DataFrame(dict(version=np.repeat([0, 1], 40), batch=np.tile(np.repeat(np.arange(8), 5), 2), value=values))
    assert (df.value == 0).any()
    row = compare(df, confidence=0.9, checks=False).table.iloc[0]
    means = df.groupby(["version", "batch"]).value.mean()
    welch = stats.ttest_ind(means[1], means[0], equal_var=False)
    interval = welch.confidence_interval(0.9)
    assert row.scale == "difference" and row.method == "t"
    assert row.change == pytest.approx(values[40:].mean() - values[:40].mean(), rel=1e-12)
    assert row.p_value == pytest.approx(welch.pvalue, rel=1e-10)  # equal batch sizes: the same centre
    assert (row.low, row.high) == pytest.approx((interval.low, interval.high), rel=1e-10)
    assert row.notes[0].startswith("a value or batch statistic of 0")


def test_the_difference_scale_bootstrap_covers_under_the_null():
    # 300 A/A count benchmarks with zeros, 25 batches a side: Type I error within 3 MC SE (0.038) of 5%
    rng = np.random.default_rng(12)
    df = pd.DataFrame(
        dict(
            benchmark=np.repeat(np.arange(300), 2 * 25 * 4),
            version=np.tile(np.repeat([0, 1], 100), 300),
            batch=np.tile(np.repeat(np.arange(50), 4), 300),
            value=rng.poisson(0.7, 300 * 200).astype(float),
        )
    )
    table = compare(df, correction="none", replicates=499, checks=False, rng=3).table
    # a benchmark whose 50 batch means are all above 0 is a ratio (9 of 300 here)
    assert (table.scale == "difference").sum() > 250 and (table.method == "bootstrap").all()
    assert abs((table.p_value < 0.05).mean() - 0.05) < 3 * math.sqrt(0.05 * 0.95 / 300)


# --- one bad benchmark never sinks the file -------------------------------------------------------


def test_time_units_convert_and_a_unit_that_cannot_is_excluded_with_its_reason():
    df = clustered(3, 3, 5, rng=0, change=0.0)
    b1 = (df.benchmark == 1) & (df.version == 1)
    df["unit"] = np.where(b1, "ns", "s")
    df.loc[b1, "value"] *= 1e9  # Google Benchmark's time_unit changed from s to ns between the runs
    df.loc[(df.benchmark == 2) & (df.version == 1), "unit"] = "allocs/op"
    result = compare(df, checks=False)
    assert list(result.table.benchmark) == [0, 1]
    assert result.units["1"] == "s"
    plain = compare(df[df.benchmark == 0].assign(unit="s"), checks=False).table.iloc[0]
    converted = result.table.iloc[1]
    assert converted.estimate_a == pytest.approx(df[(df.benchmark == 1) & (df.version == 0)].value.mean())
    assert abs(converted.change) < 0.1 and plain.verdict == converted.verdict == "inconclusive"
    assert "allocs/op" in result.excluded["2"] and "do not convert" in result.excluded["2"]
    text = format_comparison(result)
    assert "not comparable" in text and "2: not comparable: unit" in text
    import json

    assert json.loads(format_comparison(result, "json"))["excluded"][0]["benchmark"] == "2"


def test_a_benchmark_emptied_by_warmups_is_excluded_not_fatal():
    df = clustered(2, 3, 5, rng=0).assign(warmup=lambda d: d.benchmark == 1)
    result = compare(df, checks=False)
    assert list(result.table.benchmark) == [0] and "warm-ups" in result.excluded["1"]


def test_rows_without_a_benchmark_label_are_refused_or_counted():
    df = clustered(2, 3, 5, rng=0)
    df["benchmark"] = df.benchmark.astype(object)
    df.loc[[0, 7, 30], "benchmark"] = None
    with pytest.raises(ValueError, match="3 row.* 3 benchmark label"):
        compare(df, checks=False)
    assert compare(df, dropna=True, checks=False).dropped == 3


def test_the_median_columns_show_medians():
    df = clustered(1, 5, 11, rng=3)
    row = compare(df, statistic="median", checks=False).table.iloc[0]
    medians = df.groupby("version").value.median()
    assert (row.estimate_a, row.estimate_b) == (medians[0], medians[1])
    assert row.estimate_a != df[df.version == 0].value.mean()


def test_notebook_view_leads_with_change_and_verdict_and_notes_once():
    # what a person sees at 1366 px: benchmark, change [interval], verdict first; each note once, as a footnote
    import re

    rng = np.random.default_rng(0)
    rows = [
        dict(
            benchmark=name,
            version=v,
            batch=b,
            value=base * (1.1 if v == "B" and name == "parse" else 1)
            + rng.normal(0, 0.02)
            + (0.3 if b == 5 and name == "render" else 0),
        )
        for name, base in (("parse", 1.0), ("render", 2.0))
        for v in ("A", "B")
        for b in range(6)
        for _ in range(10)
    ]
    result = compare(pd.DataFrame(rows), rng=1)
    page = result._repr_html_()
    headers = re.findall(r"<th>(.*?)</th>", page)
    assert headers[:3] == ["benchmark", "change [95% interval]", "verdict"]
    assert "warnings" not in headers and "notes" not in headers and "(" not in re.sub(r"\(holm\)", "", "".join(headers))
    first = re.search(r"<tbody><tr>(.*?)</tr>", page).group(1)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", first)
    parse = result.table.set_index("benchmark").loc["parse"]
    assert cells[0].startswith("parse") and cells[1].startswith(f"+{100 * parse.change:.1f}%")
    assert cells[2] == f"<b>{parse.verdict}</b>"
    notes = [n for row in result.table.notes for n in row]
    footnotes = re.findall(r"<li>(.*?)</li>", page)
    assert sorted(footnotes) == sorted(set(notes)) and len(footnotes) == len(set(notes))  # each note once


def test_fieller_interval_never_reaches_below_minus_100_percent():
    # B's six batch means: five near 111 us and one preempted at 700 us (a contended CI run): Fieller's set
    # for B/A reaches negative ratios, which no two positive times have; the interval stops at -100%
    a = [27.1, 28.3, 27.5, 26.9, 29.0, 27.8]
    b = [110.0, 112.5, 109.8, 700.0, 111.2, 108.9]
    rows = [
        dict(benchmark="BM_Sum", version=v, batch=i, value=x)
        for v, xs in (("A", a), ("B", b))
        for i, x in enumerate(xs)
    ]
    row = compare(pd.DataFrame(rows), threshold=0.05, rng=0).table.iloc[0]
    assert row.method == "t" and row.scale == "ratio"
    assert row.low == -1.0 < row.change < row.high  # cut at -100%, the estimate inside
    # an independent check of the upper end: Fieller's quadratic solved by numpy
    from scipy import stats

    va, vb = np.var(a, ddof=1) / 6, np.var(b, ddof=1) / 6
    df = (va + vb) ** 2 / (va**2 / 5 + vb**2 / 5)
    q = stats.t.ppf(0.975, df)
    roots = np.roots([np.mean(a) ** 2 - q**2 * va, -2 * np.mean(a) * np.mean(b), np.mean(b) ** 2 - q**2 * vb])
    assert row.high == pytest.approx(max(roots) - 1, rel=1e-6) and min(roots) < 0  # the raw set went below 0


def test_a_version_of_zeros_is_compared_as_a_difference_and_says_so():
    """Every A value 0: no ratio exists, so the paired rounds are B - A, and the footnote says so rather than
    'each round's B/A'."""
    n = 30
    frame = pd.DataFrame(
        {
            "version": ["A"] * n + ["B"] * n,
            "round": list(range(n)) * 2,
            "batch": list(range(n)) * 2,
            "value": np.r_[np.zeros(n), np.full(n, 0.02)],
        }
    )
    for rule in ("sign", "t"):
        row = compare(frame, block="round", sequential=rule, baseline="A", rng=0).table.iloc[0]
        assert row["scale"] == "difference" and row["change"] == pytest.approx(0.02)
        notes = " ".join(row["notes"])
        assert "each round's B - A" in notes and "B/A" not in notes


def test_verdict_refuses_a_ratio_change_below_minus_100_percent():
    with pytest.raises(ValueError, match="below -100% is impossible on the ratio scale"):
        verdict(-2.0, -1.5, 0.01)
    assert verdict(-2.0, -1.5, 0.01, scale="difference", estimate_a=10.0) == "faster"


def test_an_executor_that_is_not_one_is_refused_even_when_nothing_uses_it():
    frame = pd.DataFrame({"version": [0, 0, 1, 1], "batch": [0, 1, 0, 1], "value": [1.0, 1.1, 1.0, 1.1]})
    with pytest.raises(TypeError, match="executor: expected a concurrent.futures.Executor"):
        compare(frame, executor="x")


@pytest.mark.parametrize("power", [1000, 700, 200, -200, -1000])
def test_values_near_the_float_limits_give_the_same_comparison(power):
    """A change is scale-free: every value times 2**power (to 1e301 and 1e-301) gives the same change, interval and
    p-value as the values themselves, and the estimates times 2**power, with no overflow warning and no NaN
    (before, values near 1e308 gave NaN after an overflow warning)."""
    import warnings

    rng = np.random.default_rng(4)
    n = 12
    values = np.r_[rng.uniform(1.0, 1.1, n), rng.uniform(1.05, 1.15, n)]
    frame = pd.DataFrame({"version": [0] * n + [1] * n, "batch": list(range(n)) * 2, "value": values})
    plain = compare(frame, rng=0).table.iloc[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        big = compare(frame.assign(value=np.ldexp(values, power)), rng=0).table.iloc[0]
    for key in ("change", "low", "high", "p_value", "spread_a", "spread_b"):
        assert big[key] == pytest.approx(plain[key], rel=1e-12), key
    assert big["estimate_a"] == pytest.approx(math.ldexp(plain["estimate_a"], power), rel=1e-12)
    assert big["verdict"] == plain["verdict"] == "slower"


def test_the_sign_sequence_takes_values_near_the_float_limit():
    import warnings

    from perfstudy.comparison.sign_sequence import RunningSign, sign_confidence_sequence

    x = np.array([1e308, 1.5e308, -1e308, 1.7e308] * 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low, high, _ = sign_confidence_sequence(x, 0.9).current()
        running = RunningSign(0.9)
        for value in x:
            running.add(float(value))
    assert (low, high) == (-1e308, 1.7e308) and running.median == 1.25e308


def test_benchmarks_identical_on_both_sides_are_no_change_and_leave_the_family():
    """A deterministic B/op (64 and 64 in every batch) and 0 allocs/op are 'no change' untested, and do not count in
    Holm's family: the timed benchmark's adjusted p-value is its own, as if it were alone (it was 3 times it)."""
    rng = np.random.default_rng(8)
    rows = []
    for version in (0, 1):
        for batch in range(10):
            rows.append(
                dict(version=version, batch=batch, benchmark="t", value=1.0 + 0.05 * version + 0.05 * rng.random())
            )
            rows.append(dict(version=version, batch=batch, benchmark="B/op", value=64.0))
            rows.append(dict(version=version, batch=batch, benchmark="allocs/op", value=0.0))
    frame = pd.DataFrame(rows)
    table = compare(frame, rng=0).table.set_index("benchmark")
    alone = compare(frame[frame["benchmark"] == "t"], rng=0).table.iloc[0]
    assert table.loc["t", "p_adjusted"] == pytest.approx(alone["p_adjusted"], rel=1e-12)
    assert table.loc["t", "p_adjusted"] == pytest.approx(table.loc["t", "p_value"], rel=1e-12)
    assert (table.loc[["B/op", "allocs/op"], "verdict"] == "no change").all()
    text = format_comparison(compare(frame, rng=0), "table")
    assert "over 1 benchmark (2 with one and the same value on both sides: no change, untested, not counted)" in text
    # their p cell says so, not "1": no test was run
    assert [line.split()[-5] for line in text.splitlines() if line.startswith(("B/op", "allocs/op"))] == [
        "untested"
    ] * 2
