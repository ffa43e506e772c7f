"""compare(): calibration under the null, the t and bootstrap paths against independent computations,
the corrections against statsmodels, verdicts, warnings and bad input."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from perfstudy import compare as cmp
from perfstudy.compare import Comparison, adjust_p_values, compare, higher_is_better


def clustered(benchmarks, clusters, per_cluster, *, rng, sd_cluster=0.02, sd_noise=0.01, change=0.0, unit="s"):
    """Log-normal values with a random cluster (process) effect; version 1 multiplied by 1 + change."""
    rng = np.random.default_rng(rng)
    b = np.repeat(np.arange(benchmarks), 2 * clusters * per_cluster)
    version = np.tile(np.repeat([0, 1], clusters * per_cluster), benchmarks)
    batch = np.tile(np.repeat(np.arange(2 * clusters), per_cluster), benchmarks)
    effect = rng.normal(0, sd_cluster, benchmarks * 2 * clusters)[b * 2 * clusters + batch]
    value = np.exp(effect + rng.normal(0, sd_noise, b.size)) * (1 + change * version)
    return pd.DataFrame(dict(benchmark=b, version=version, batch=batch, value=value, unit=unit))


# --- calibration: Type I error of A/A comparisons at 5% -----------------------------------------

# 1,000 A/A benchmarks per case: the rejection share has Monte Carlo SE sqrt(0.05 * 0.95 / 1000) =
# 0.0069; the tests allow 3 of them above 5% (0.071). Measured over 4,000: t 4.6% (mean, 5
# clusters a side), 4.4% (median, 5); bootstrap 5.2% (mean, 25), 4.2% (median, 25), 4.9% (mean,
# 60). Without its small-sample stretch the bootstrap gave 6.5-7% at 25 clusters; with 3 clusters a
# side a plain bootstrap rejected 21%.
CALIBRATION = [("mean", 5, "t"), ("median", 5, "t"), ("mean", 25, "bootstrap"), ("median", 25, "bootstrap")]


@pytest.mark.parametrize("statistic, clusters, method", CALIBRATION)
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


def test_few_clusters_give_welch_t_on_the_cluster_statistics():
    df = clustered(1, 6, 10, rng=3, change=0.03)
    result = compare(df, confidence=0.9, replicates=999, checks=False).table.iloc[0]
    means = df.groupby(["version", "batch"]).value.mean()
    a, b = np.log(means[0].to_numpy()), np.log(means[1].to_numpy())
    welch = stats.ttest_ind(b, a, equal_var=False)
    interval = welch.confidence_interval(0.9)
    assert result.method == "t"
    assert result.p_value == pytest.approx(welch.pvalue, rel=1e-10)
    assert result.low == pytest.approx(math.expm1(interval.low), rel=1e-10)
    assert result.high == pytest.approx(math.expm1(interval.high), rel=1e-10)
    assert result.change == pytest.approx(math.expm1(b.mean() - a.mean()), rel=1e-12)
    assert result.estimate_a == pytest.approx(math.exp(a.mean()), rel=1e-12)


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
    assert row.verdict == "inconclusive" and "one batch in A" in row.warnings and "one batch in B" in row.warnings


# --- warnings -----------------------------------------------------------------------------------


def test_warnings_name_warmup_drift_and_an_odd_batch():
    df = clustered(1, 25, 40, rng=2, sd_cluster=0.005)
    first = df.groupby("batch").cumcount() < 4
    warm = df.assign(value=np.where(first & (df.version == 1), df.value * 1.3, df.value))
    assert "warm-up in B" in compare(warm, rng=0).table.warnings.iloc[0]
    drift = df.assign(value=df.value * (1 + 0.004 * df.batch))
    assert "drift in" in compare(drift, rng=0).table.warnings.iloc[0]
    odd = df.assign(value=np.where(df.batch == 7, df.value * 1.5, df.value))
    assert "batch 7 of A is unlike the others" in compare(odd, rng=0).table.warnings.iloc[0]
    assert compare(df, rng=0).table.warnings.iloc[0] == ""


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
        (lambda d: d.assign(value=np.where(d.index == 3, -1.0, d.value)), {}, ValueError, "positive and finite"),
        (lambda d: d.assign(value=np.where(d.index == 3, np.inf, d.value)), {}, ValueError, "positive and finite"),
        (lambda d: d.assign(unit=np.where(d.version == 1, "ms", "s")), {}, ValueError, r"\['ms', 's'\]"),
        (lambda d: d.assign(value=d.value.astype(str)), {}, TypeError, "numbers"),
        (lambda d: d, {"statistic": "mode"}, ValueError, "statistic"),
        (lambda d: d, {"correction": "bonferroni"}, ValueError, "correction"),
        (lambda d: d, {"threshold": 2.0}, ValueError, "threshold"),
        (lambda d: d, {"confidence": 1.5}, ValueError, "confidence"),
        (lambda d: d, {"replicates": 10}, ValueError, "replicates"),
        (lambda d: d, {"baseline": 7}, ValueError, "baseline=7"),
        (lambda d: d.assign(benchmark=np.where(d.version == 0, "x", "y")), {}, ValueError, "none present in both"),
        (lambda d: d.assign(warmup=d.benchmark == 1), {}, ValueError, r"no values left .* \[\'\(0, 1\)\'"),
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
        "benchmark", "n_a", "n_b", "clusters_a", "clusters_b", "estimate_a", "estimate_b", "change", "low",
        "high", "p_value", "p_adjusted", "method", "higher_is_better", "verdict", "warnings",
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
    assert "CONFIRM: 12 batches in A do not pin the median to +-0.5%" in compare(df, threshold=0.005).table.warnings[0]
    assert "CONFIRM" not in compare(df, threshold=0.2).table.warnings[0]


def test_odd_batches_is_a_studentised_outlier_test():
    from perfstudy.compare import odd_batches

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
