"""Each study function called directly at a small size, without a notebook run.

``STUDY_CALLS`` holds one small call per study function that takes ``rng``; the vocabulary test
(tests/test_vocabulary.py) calls each with ``rng=None`` and twice with ``rng=0``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.studies import (
    AZURE,
    E1,
    STUDY_CALLS,
    _have_data,
    _pilot_fit,
    _synthetic_pairs,
    needs_data,
)

from perfstudy import DESIGNS, CostModel
from perfstudy.capacity.server_model import SimulatedServer
from perfstudy.design.standard_errors import optimal_allocation, standard_error
from perfstudy.design.type1_errors import ROWS
from perfstudy.io.datasets import load
from perfstudy.studies import bakshy2015, bakshy2015_real, he2019, kolaczkowski, maricq2018, shivam2008, versions
from perfstudy.studies.public_data import SERIES, iter_series

# ---- Bakshy & Frachtenberg -------------------------------------------------------------------------------------


def test_table_3_constants_are_the_paper_s():
    # Table 3 of WWW'15: 13 rows; the analytic SE column is 0.10, 0.07, 0.07, 0.03 by design
    assert len(bakshy2015.TABLE_3) == 13 and set(bakshy2015.TABLE_3) == set(ROWS)
    assert bakshy2015.TABLE_3["request_balanced", "host_block"] == (0.057, 0.08, 0.07)
    table = bakshy2015.table3_standard_errors(E1)
    assert (table.closed_form.round(2) == table.paper).all()
    assert np.allclose(table.eq5_from_schedule, table.closed_form, rtol=1e-12)


def test_table1_recovery_covers_and_names():
    table = STUDY_CALLS["perfstudy.studies.bakshy2015_real.table1_recovery"](1)
    assert len(table) == 25 and list(table.parameter[:5]) == ["request", "host", "request_batch", "host_batch", "noise"]
    assert np.allclose(table.truth[:5], [E1.request, E1.host, E1.request_batch, E1.host_batch, E1.noise])
    assert (table.low <= table.high).all()
    assert (table.covered == ((table.low <= table.truth) & (table.truth <= table.high))).all()


def test_design_from_pilot_keeps_its_promise():
    fit = _pilot_fit()
    costs = CostModel(setup=600.0, request=2.0, repetition=0.5, host=60.0)
    plan = bakshy2015_real.design_from_pilot(fit, costs, target_se=0.1, experiments=2000, rng=3)
    assert list(plan.design) == list(DESIGNS) and plan.best.sum() == 1
    assert dict(zip(plan.design, plan.bootstrap)) == bakshy2015_real.BOOTSTRAP_FOR_DESIGN
    feasible = plan[plan.feasible]
    assert (feasible.promised_se <= 0.1).all()
    # achieved SE from 2,000 simulated experiments within 4 of its Monte Carlo standard errors
    assert (abs(feasible.achieved_se - feasible.promised_se) <= 4 * feasible.achieved_se_error).all()


@needs_data
def test_variance_split_equals_the_anova_where_only_hosts_and_noise_vary():
    # Two CWB metrics whose fits put region and batch at 0: what is left is a one-way layout of VMs
    # within instance types, 3 iterations each, balanced within a VM, so REML equals the ANOVA
    # estimates: noise^2 = pooled within-VM variance, host^2 = pooled between-VM variance - noise^2/3.
    metrics = ("sysbench/threads-1-duration", "md-sim-duration")
    cwb = load("cwb-aws-microbench")
    split = bakshy2015_real.variance_split(cwb=metrics, azure=()).set_index("benchmark")
    for metric in metrics:
        rows = cwb[cwb.benchmark == metric].assign(y=lambda f: np.log(f.value))
        within = rows.groupby("host").y.var(ddof=1).mean()
        means = rows.groupby(["config", "host"]).y.mean()
        between = ((means - means.groupby("config").transform("mean")) ** 2).sum() / (
            means.groupby("config").size() - 1
        ).sum()
        row = split.loc[metric]
        assert row.sd_batch < 1e-4 and row.sd_region < 1e-4, metric
        assert row.sd_noise == pytest.approx(math.sqrt(within), rel=1e-4), metric
        assert row.sd_host == pytest.approx(math.sqrt(between - within / 3), rel=1e-4), metric
        shares = row[[f"share_{r}" for r in bakshy2015_real.VARIANCE_ROLES]].dropna()
        assert shares.sum() == pytest.approx(1.0) and row.total_sd**2 == pytest.approx(
            sum(row[f"sd_{r}"] ** 2 for r in ("region", "host", "batch", "noise"))
        )
        assert (row.n, row.dropped, row.hosts, row.batches) == (732, 0, 244, 3)


@needs_data
def test_variance_split_names_what_it_did_not_fit():
    # the 4k random-write latency is 0.01 or 0.02 ms, decided by the instance type, and 0 on 3 rows
    split = bakshy2015_real.variance_split(cwb=["sysbench/fileio-4k-rand-write-latency"], azure=AZURE)
    cwb_row, azure_row = split.iloc[0], split.iloc[1]
    assert (cwb_row.n, cwb_row.dropped) == (729, 3) and "constant within every config" in cwb_row.note
    assert np.isnan(cwb_row.sd_host) and not cwb_row.converged
    # Azure: batch = the calendar day (UTC), shared by the 3 hosts
    redis = load(AZURE[0])
    assert (azure_row.hosts, azure_row.batches, azure_row.n) == (3, redis.timestamp.dt.date.nunique(), len(redis))
    assert azure_row.converged and np.isnan(azure_row.sd_region) and np.isfinite(azure_row.sd_host_batch)
    with pytest.raises(ValueError, match="not CWB metrics"):
        bakshy2015_real.variance_split(cwb=["nope"], azure=())


def test_pilot_budget_judges_each_recommendation_under_the_truth():
    costs = CostModel(setup=600.0, request=2.0, repetition=0.5, host=60.0)
    budget = STUDY_CALLS["perfstudy.studies.bakshy2015_real.pilot_budget"](4)
    per_pilot = budget.pilots
    assert len(per_pilot) == 2 * 2 * 3 and len(budget.by_pilot) == 4
    oracle = optimal_allocation(E1, costs, target_se=0.1, hosts=[4, 8, 16])
    assert budget.oracle == oracle[oracle.best]
    for row in per_pilot.itertuples():
        # the promise is made under the fitted sigmas, and judged under the true ones
        assert row.promised_se <= 0.1 + 1e-12
        truth = standard_error(row.design, E1, requests=row.requests, hosts=row.hosts, repetitions=row.repetitions)
        assert row.true_se == pytest.approx(truth, rel=1e-12)
    first = per_pilot[(per_pilot.pilot_hosts == 4) & (per_pilot.pilot_batches == 2)]
    ratio = first.true_se / 0.1
    summary = budget.by_pilot.iloc[0]
    assert summary.within_10pct == pytest.approx(np.mean(abs(ratio - 1) <= 0.1))
    assert summary.se_ratio_median == pytest.approx(ratio.median())
    assert summary.oracle_design_share == pytest.approx(np.mean(first.design == budget.oracle.design))


def test_aa_calibration_counts_what_each_method_says():
    from pyperf._utils import is_significant
    from scipy import stats as scipy_stats

    from perfstudy.comparison import compare

    pairs = _synthetic_pairs(pairs=8)
    rates = versions.aa_calibration(pairs, slowdowns=(0.0, 0.03), replicates=199, rng=1).set_index(
        ["slowdown", "method"]
    )
    planted = pairs.assign(value=np.where(pairs.version == 1, pairs.value * 1.03, pairs.value))
    ours = compare(
        planted, correction="none", checks=False, replicates=199, rng=np.random.default_rng(1).spawn(2)[1]
    ).table
    assert rates.loc[(0.03, "perfstudy"), "rate"] == ours.verdict.isin(["faster", "slower"]).mean()
    groups = [g for _, g in planted.groupby("benchmark")]
    mann_whitney = np.mean(
        [scipy_stats.mannwhitneyu(g.value[g.version == 0], g.value[g.version == 1]).pvalue < 0.05 for g in groups]
    )
    assert rates.loc[(0.03, "Mann-Whitney"), "rate"] == mann_whitney
    # pyperf's test is Student's t on all values at 95% (equal counts here)
    pyperf = np.mean([is_significant(list(g.value[g.version == 0]), list(g.value[g.version == 1]))[0] for g in groups])
    assert rates.loc[(0.03, "pyperf"), "rate"] == pyperf
    assert rates.loc[(0.0, "perfstudy"), "mc_se"] == pytest.approx(math.sqrt(0.05 * 0.95 / 8))


def test_aa_pairs_split_windows_of_batches():
    pairs = (
        versions.aa_pairs(clusters=3, laaber=("laaber-golang-snappy",), max_pairs_per_series=2)
        if _have_data()
        else None
    )
    if pairs is None:
        pytest.skip("real datasets unavailable ($PERFSTUDY_DATA, cache)")
    first = pairs[pairs.benchmark == 0]
    assert list(first.version) == [0, 1, 0, 1, 0, 1] and list(first.batch) == [0, 1, 2, 3, 4, 5]
    sequential = versions.aa_pairs(
        clusters=3, layout="sequential", laaber=("laaber-golang-snappy",), max_pairs_per_series=2
    )
    assert list(sequential[sequential.benchmark == 1].version) == [0, 0, 0, 1, 1, 1]
    assert pairs.groupby("series").benchmark.nunique().max() == 2
    with pytest.raises(ValueError, match="layout"):
        versions.aa_pairs(layout="random")


@needs_data
def test_compare_is_calibrated_on_interleaved_real_a_a_pairs():
    # 10 batches a side, interleaved: Azure days (184 pairs), PT4Cloud blocks of 10 runs (40 pairs).
    # Measured: 3.3% and 2.5%. Bound: 5% + 3 MC SE (at the nominal rate) per source.
    pairs = versions.aa_pairs(
        azure=bakshy2015_real.AZURE_LONG, pt4cloud=("pt4cloud-AWS-EP-L", "pt4cloud-AWS-YCSB-L"), max_pairs_per_series=20
    )
    rates = versions.aa_calibration(pairs, slowdowns=(0.0,), methods=("perfstudy",), rng=0)
    for row in rates.itertuples():
        assert row.rate <= 0.05 + 3 * row.mc_se, (row.source, row.rate, row.pairs)


def test_table1_and_figure2():
    table = bakshy2015.table1()
    assert list(table.index) == [1, 2, 3, 4, 5]
    # rho of endpoint 1 = 1.02^2 / (1.02^2 + 0.13^2); Eq. 1's ratio for T = 10 vs 1 is sqrt((1 + 9 rho) / 10)
    rho = 1.02**2 / (1.02**2 + 0.13**2)
    assert table.loc[1, "rho"] == pytest.approx(rho)
    assert bakshy2015.figure2_repetition_ratio(E1) == pytest.approx(math.sqrt((1 + 9 * rho) / 10))


def test_table3_in_paper_order_with_gaps():
    table = STUDY_CALLS["perfstudy.studies.bakshy2015.table3"](1)
    assert [tuple(r) for r in table[["design", "bootstrap"]].to_numpy()] == list(bakshy2015.TABLE_3_ROWS)
    assert np.allclose(table.type1_diff_points, 100 * (table.type1_error - table.paper_type1_error))


def test_combined_mc_error_is_the_two_sample_binomial_test_s():
    # checked against scipy: the pooled two-proportion z test's z^2 is the 2x2 chi-square statistic
    from scipy import stats

    ours, n, paper, m = 0.065, 1000, 0.036, 10_000
    z = (ours - paper) / bakshy2015.combined_mc_error(ours, n, paper, m)
    counts = np.array([ours * n, paper * m])
    chi2 = stats.chi2_contingency(np.array([counts, [n, m] - counts]), correction=False)[0]
    assert float(z) ** 2 == pytest.approx(chi2, rel=1e-9)  # z^2 of the pooled z test is the 2x2 chi-square
    assert float(bakshy2015.combined_mc_error(0.0, 1000, 0.0, 10_000)) == 0.0  # both 0: no difference to scale
    assert float(bakshy2015.combined_mc_error(0.0, 1000, 0.001, 10_000)) > 0  # Table 3's 0.0% row is scalable


def test_table3_distances_are_gaps_over_combined_errors():
    table = STUDY_CALLS["perfstudy.studies.bakshy2015.table3"](1)
    gap = (table.type1_error - table.paper_type1_error).abs()
    positive = table.type1_combined_mc > 0
    assert np.allclose(table.type1_distance_mc[positive], (gap / table.type1_combined_mc)[positive])
    assert (table.type1_distance_mc_t >= 0).all()


def test_figures_5_6_7_shapes_and_sense():
    fig5 = bakshy2015.figure5(E1, requests=32, hosts=4, experiments=400, rng=2)
    # (n - 1) s^2 / SE^2 ~ chi2(n - 1): the empirical sd is within 20% of the closed form (P(fail) < 1e-4)
    assert np.allclose(fig5.table.empirical_sd, fig5.table.analytic_se, rtol=0.2)
    fig6 = bakshy2015.figure6(E1, requests=512, hosts=16, simulations=300, replicates=300, rng=3)
    # the request bootstrap of a fully balanced experiment misses the host effects: far too narrow
    assert fig6.headline["request_bootstrap_se"] < 0.6 * fig6.headline["true_sd"]
    fig7 = bakshy2015.figure7(E1, requests=64, hosts=8, tests=60, replicates=100, rng=4)
    assert len(fig7.intervals) == 12 and fig7.rates.false_positive_rate.between(0, 1).all()
    rate = fig7.rates.set_index(["design", "bootstrap"]).false_positive_rate
    assert rate["request_balanced", "request"] > 0.3  # 72% in the paper's Table 3


def test_allocations_need_a_budget_or_target():
    from perfstudy import CostModel

    costs = CostModel(setup=600.0, request=2.0, repetition=0.5, host=60.0)
    frame = bakshy2015.allocations(E1, costs, budgets=[20_000], targets=[0.05])
    assert set(frame.budget.dropna()) == {20_000} and set(frame.target_se.dropna()) == {0.05}
    with pytest.raises(ValueError, match="budgets, targets"):
        bakshy2015.allocations(E1, costs)


def test_real_aa_leaves_out_short_series_and_says_so():
    per_series = STUDY_CALLS["perfstudy.studies.bakshy2015_real.real_aa"](0)
    summary = bakshy2015_real.real_aa(
        [("a", np.arange(100.0) % 7)], segments=2, segment_length=5, experiments=3, replicates=3, rng=0
    )
    assert set(per_series.series) == {"a"} and set(summary.by_bootstrap.bootstrap) == {"iid", "segment"}
    with pytest.raises(ValueError, match="none holds"):
        bakshy2015_real.real_aa([("short", np.ones(3))])


# ---- Shivam et al. ------------------------------------------------------------------------------------------------


def test_shivam_figures_on_the_simulated_server():
    summary = STUDY_CALLS["perfstudy.studies.shivam2008.figure3"](1)
    assert summary["strawman_hours"] > summary["binsearch_hours"]
    table = STUDY_CALLS["perfstudy.studies.shivam2008.figure6"](2)
    sweep = shivam2008.figure6(
        SimulatedServer(), load_factors=[0.5], runlengths=[60], repeats=2, target_accuracy=0.1, confidence=0.95, rng=2
    )
    assert sweep.table.equals(table) and len(table) == 1 and len(sweep.sweet_spot) == 1 and table.trials.iloc[0] >= 2
    calibration = STUDY_CALLS["perfstudy.studies.shivam2008.calibration"](3)
    assert calibration["searches"] == 2 and calibration["converged"] == 1.0
    growth = STUDY_CALLS["perfstudy.studies.shivam2008.growth"](4)
    assert growth.true_peak.iloc[0] == pytest.approx(SimulatedServer().true_peak_rate)


def test_shivam_table4_fits_the_chosen_samples():
    table = STUDY_CALLS["perfstudy.studies.shivam2008.table4"](5)
    # 6 samples for 6 coefficients: the quadratic interpolates them, so the error is over the others
    assert len(table.chosen.iloc[0]) == 6 and 0 < table.mape_true.iloc[0] < 1


# ---- real data ----------------------------------------------------------------------------------------------------


@needs_data
def test_public_data_series_definitions():
    assert SERIES["azure-vm-noise"] == (["benchmark", "host"], "timestamp")
    series = list(iter_series(["azure-redis-get-short"]))
    assert len(series) == 1 and series[0].key == {"benchmark": "redis-get-short"}  # the fleet, in time order


@needs_data
def test_he2019_tables_and_the_ycsb_check():
    # Table 3 of FSE'19, YCSB row, AWS-L column: 3 weeks; Table 4: a week without sampling
    assert he2019.TABLE_3_WEEKS["YCSB", "AWS-L"] == 3
    assert he2019.TABLE_4_HOURS["YCSB", "AWS-L"] == (168, 168)
    assert he2019.TABLE_4_HOURS["EP", "AWS-XL"] == (24, 12)
    assert sum(v != (None, None) for v in he2019.TABLE_4_HOURS.values()) == 33
    check = he2019.short_interval_check("pt4cloud-AWS-YCSB-L", 96)
    # the first sampled week sits above the next two; two 4-day intervals agree, validation would not
    assert check["week_medians"][0] > 1.03 * check["week_medians"][1]
    assert check["stable"] and not check["validates"] and check["accuracy"] < 0.1
    weekly = STUDY_CALLS["perfstudy.studies.he2019.weekly_study"](0)
    assert weekly.weeks.iloc[0] == weekly.paper_weeks.iloc[0] == 2


@needs_data
def test_he2019_reduction_table4_and_summary():
    names = ["pt4cloud-AWS-YCSB-L", "pt4cloud-AWS-JPS-L"]
    hours = [12, 24, 48, 72, 96, 120, 168]
    reduced = he2019.reduction_study(names, hours=hours)
    sampled = he2019.reduction_study(names, hours=hours, portion=0.5)
    table = he2019.table4_comparison(reduced, sampled).set_index("dataset")
    assert table.loc["pt4cloud-AWS-YCSB-L", "hours"] == 96 and table.loc["pt4cloud-AWS-JPS-L", "agrees"]
    weekly = he2019.weekly_study(names, band=False)
    summary = he2019.reduction_summary(weekly, reduced, sampled, portion=0.5)
    assert list(summary.paper_runs_saved.iloc[[0, 2]]) == [0.62, 0.901]
    assert (summary.runs_saved_all_rounds <= summary.runs_saved + 1e-12).all()
    with pytest.raises(ValueError, match="portion"):
        he2019.reduction_study(names, portion=0)


@needs_data
def test_maricq_tables():
    indices = maricq2018.median_ci_index_table([8, 100])
    # by hand, n = 8, z = 1.96: floor((8 - 5.54)/2) = 1, ceil(1 + 13.54/2) = 8; Le Boudec's n = 100: 40, 61
    assert list(indices.iloc[0, 1:3]) == [1, 8] and list(indices.iloc[1, 1:3]) == [40, 61]
    summary = STUDY_CALLS["perfstudy.studies.maricq2018.figure3_normality"](0)
    assert summary["across_tests"] == 145 and 0.75 < summary["across_reject_share"] < 0.9
    table = STUDY_CALLS["perfstudy.studies.maricq2018.table4_degraded_server"](1)
    assert table.runs_with_outlier.iloc[0] == 4 * 40 and table.servers.iloc[0] == 3


@needs_data
def test_maricq_servers_and_survey_figures():
    ranking = STUDY_CALLS["perfstudy.studies.maricq2018.degraded_copy_ranking"](0)
    assert ranking.copy_rank.iloc[0] == 1  # a 10% slower copy of host 0 stands out among three hosts
    survey = STUDY_CALLS["perfstudy.studies.public_data.survey_datasets"](0)
    fig4 = maricq2018.figure4_stationarity(survey)
    assert fig4["sap"].loc["Regression", "non-stationary"] == 1  # SAP labels sap-hana-0016 a regression
    assert set(maricq2018.order_table(fig4["series"]).columns) == {"series", "order_matters", "median_lag1"}
    assert maricq2018.warmup_table(fig4["series"]).loc["sap-hana", "series"] == 1
    cov = maricq2018.cov_summary(survey)
    assert cov["by_family"].loc["sap-hana", "series"] == 1 and cov["by_family"].series.dtype.kind == "i"


@needs_data
def test_blog_trap_recomputed_by_hand():
    trap = kolaczkowski.standard_error_trap(AZURE, batches=20).set_index("series")
    from perfstudy.io.datasets import load

    x = load("azure-redis-get-long").query("host == 0").sort_values("timestamp").value.to_numpy()
    blocks = x[: 20 * (x.size // 20)].reshape(20, -1).mean(axis=1)
    assert trap.loc["redis-get-long host0", "batch_means_se"] == pytest.approx(blocks.std(ddof=1) / math.sqrt(20))
    assert trap.loc["redis-get-long host0", "naive_se"] == pytest.approx(x.std(ddof=1) / math.sqrt(x.size))


def test_paper_type1_range_against_a_grid_of_the_rounded_values():
    # slow and obvious: every .SE and SE that prints as the given two decimals, on a fine grid
    from scipy import stats

    for printed_se, printed_true in [(0.07, 0.07), (0.07, 0.10), (0.01, 0.03)]:
        s = np.linspace(printed_se - 0.005, printed_se + 0.005, 201)
        sigma = np.linspace(printed_true - 0.005, printed_true + 0.005, 201)
        rates = 2 * stats.norm.sf(1.959964 * s[:, None] / sigma[None, :])
        low, high = bakshy2015.paper_type1_range(printed_se, printed_true)
        assert (low, high) == pytest.approx((rates.min(), rates.max()), rel=1e-4)
    low, high = bakshy2015.paper_type1_range(0.07, 0.07)
    assert round(low, 3) == 0.024 and round(high, 3) == 0.089  # Table 3's 10.8% (request balanced / iid) is outside
    lows, highs = bakshy2015.paper_type1_range([0.07, 0.01], [0.10, 0.07])
    assert lows.shape == (2,) and (lows < highs).all()


@needs_data
def test_he2019_accuracy_diagnosis_recomputes_each_number_directly():
    from perfstudy.stability.pt4cloud import accuracy

    name = "pt4cloud-Chameleon-FT-M"  # 81% in the weekly study: below the paper's 90%
    weekly = he2019.weekly_study([name], band=False, rng=0)
    row = he2019.accuracy_diagnosis(weekly, draws=5, rng=1).iloc[0]
    c = he2019.configuration(name)
    reported = weekly.result.iloc[0].sample
    assert row.accuracy == weekly.accuracy.iloc[0] < 0.9
    assert row.all_sampled == accuracy(c.sampled, c.ground_truth)
    half = c.ground_truth.size // 2
    assert row.ground_truth_halves == accuracy(c.ground_truth[:half], c.ground_truth[half:])
    q = np.percentile(reported, [25, 75]), np.percentile(c.ground_truth, [25, 75])
    assert row.spread_ratio == pytest.approx((q[0][1] - q[0][0]) / (q[1][1] - q[1][0]))
    # the estimator's numerics do not move it; a same-size sample of the ground truth scores far higher
    assert abs(row.accuracy_exact - row.accuracy) < 1e-3 and abs(row.accuracy_fine - row.accuracy) < 1e-3
    assert row.noise_floor_low <= row.noise_floor and row.noise_floor > 0.95
    assert row.accuracy_wide > row.accuracy  # more smoothing, closer densities


def test_bandwidth_factor_smooths_and_both_kdes_agree():
    from perfstudy.stability.pt4cloud import accuracy

    rng = np.random.default_rng(3)
    a, b = rng.normal(size=800), rng.normal(0.3, 1.2, size=900)
    assert accuracy(a, b) == accuracy(a, b, bandwidth_factor=1.0)
    wide = accuracy(a, b, bandwidth_factor=2.0)
    assert wide > accuracy(a, b)
    assert wide == pytest.approx(accuracy(a, b, bandwidth_factor=2.0, method="exact"), abs=2e-3)
    with pytest.raises(ValueError, match="bandwidth_factor=0"):
        accuracy(a, b, bandwidth_factor=0)


def test_table3_takes_some_of_its_rows_and_refuses_others_by_name():
    rows = [("request_balanced", "host_block"), ("request_balanced", "iid")]
    table = bakshy2015.table3(E1, requests=32, hosts=4, experiments=40, replicates=20, rows=rows, rng=0)
    assert [tuple(r) for r in table[["design", "bootstrap"]].to_numpy()] == rows
    assert list(table.paper_type1_error) == [0.057, 0.108]  # Table 3, request balanced: host block, iid
    assert {"type1_error_counts_t", "closest_variant"} <= set(table.columns)
    with pytest.raises(ValueError, match=r"rows: \[\('fully_balanced', 'host_block'\)\] are not rows of Table 3"):
        bakshy2015.table3(E1, rows=[("fully_balanced", "host_block")])
    with pytest.raises(TypeError, match="rows="):
        bakshy2015.table3(E1, rows=[])


# ---- history: SAP's labels, planted changes, the Perfherder port -----------------------------------------------


def test_perfherder_port_gives_treeherders_own_test_answers():
    from perfstudy.studies.history_validation import _perfherder

    # treeherder tests/perfalert/test_analyze.py::test_detect_changes: 8 zeros then 8 ones, windows 5/5/5, t > 2:
    # the change is detected at revision 8 and nowhere else
    values = np.array([0.0] * 8 + [1.0] * 8)
    assert _perfherder(values, np.arange(16), min_back=5, max_back=5, fore=5, t_threshold=2, alert_threshold=0) == [8]
    # ::test_detect_changes_few_revisions_many_values: three revisions of 80, 40, 40 values, windows 5/10/5, t > 2:
    # the second revision (its first value is the 80th) is the change
    revs = [[0.0] * 50 + [1.0] * 30, [0.0] * 10 + [1.0] * 30, [0.0] * 10 + [1.0] * 30]
    values = np.concatenate(revs)
    commits = np.repeat([0, 1, 2], [80, 40, 40])
    assert _perfherder(values, commits, min_back=5, max_back=10, fore=5, t_threshold=2, alert_threshold=0) == [80]


@needs_data
def test_sap_labels_perfstudy_exact_and_the_peers_as_measured():
    from perfstudy.studies import history_validation

    table = history_validation.score_labels(detectors=("perfstudy", "perfherder")).table.set_index("detector")
    # dataset_details.csv: 5 regressions at 54, 98, 88, 117, 155; perfstudy at each index and nothing else;
    # Perfherder's t > 7 and 2% alert threshold: the same 5, no false alarm (the measurement: F1 1.00)
    assert table.loc["perfstudy", ["found", "exact", "false"]].tolist() == [5, 5, 0]
    assert table.loc["perfherder", ["found", "false"]].tolist() == [5, 0]


@needs_data
def test_planted_changes_are_found_at_the_rates_measured_over_600_copies():
    from perfstudy.studies import history_validation

    table = history_validation.score_planted(rng=7, repeats=5, detectors=("perfstudy",)).table.iloc[0]
    # Over 600 copies a kind (seeds 1-6, 5 repeats; the closing note of the history work): step recall 0.933,
    # spread 0.528, ramp 0.962, spikes 0. Here 100 copies a kind: each rate within 3 binomial SEs of those,
    # sqrt(r (1 - r) / 100) = 0.025, 0.050, 0.019 (spikes: at most 3 of 100, P(X >= 4 | p = 0.005) < 0.002)
    assert table["step_recall"] >= 0.933 - 3 * 0.025
    assert table["spread_recall"] >= 0.528 - 3 * 0.050
    assert table["ramp_recall"] >= 0.962 - 3 * 0.019
    assert table["spikes_flagged"] <= 0.03


@needs_data
def test_real_series_without_a_change_give_no_change_point():
    from perfstudy.studies import history_validation

    table = history_validation.real_false_alarms().table
    assert table["points"].sum() > 18_000 and table["change_points"].sum() == 0
