"""The two readings of Table 3's sample size, each statistic against something independent."""

from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from perfstudy import PERFLAB_ENDPOINTS
from perfstudy.design.type1_errors import type1_error_table
from perfstudy.studies import table3_readings as readings
from perfstudy.studies.bakshy2015 import TABLE_3, TABLE_3_ROWS, combined_mc_error, paper_type1_range

E1 = PERFLAB_ENDPOINTS[1]
PAPER = [TABLE_3[row][0] for row in TABLE_3_ROWS]


def _printed_even_slow(rate, tests):
    """P(a rate from `tests` tests prints with an even last digit at 0.1%), rounding every outcome in decimal
    (half up, as the module does: a tie such as 21.45% is about one outcome in ten)."""
    pmf = stats.binom.pmf(np.arange(tests + 1), tests, rate)
    tenths = [(Decimal(k) * 1000 / tests).quantize(Decimal(1), rounding=ROUND_HALF_UP) for k in range(tests + 1)]
    even = [int(t) % 2 == 0 for t in tenths]
    return float(pmf[even].sum())


def test_the_digit_evidence_counts_the_even_rates_and_weighs_them_exactly():
    evidence = readings.digit_evidence(PAPER)
    # Table 3 of the paper: every rate but request balanced / host block's 5.7% is k/500
    assert (evidence.multiples, evidence.rows) == (12, 13)
    assert [row for row, m in zip(TABLE_3_ROWS, evidence.table.multiple) if not m] == [
        ("request_balanced", "host_block")
    ]
    # from 500 tests every rate prints as k/500, so at least 12 of 13 is certain
    assert evidence.probability[500] == pytest.approx(1.0, abs=1e-12)
    # from 10,000 tests: each rate's chance against formatting every binomial outcome (0.0% is always even)
    for rate, p in zip(PAPER, evidence.table.p_multiple_10000):
        assert p == pytest.approx(_printed_even_slow(rate, 10_000), abs=1e-9)
    # closed form: twelve rates at chance 1/2 (rounding 0.8% gives 0.513, a hair above) beside the certain 0.0%,
    # so at least 12 of 13 is at least 11 of 12 fair coins, 13 / 4096 = 0.0032
    assert evidence.probability[10_000] == pytest.approx(13 / 4096, rel=0.05)


def test_thirteen_fair_coins_give_the_audits_number():
    # the independent audit's 0.0017: 13 rates away from 0, each even with chance 1/2: 14 / 8192
    evidence = readings.digit_evidence(np.linspace(0.11, 0.83, 13).round(3))
    assert evidence.probability[10_000] == pytest.approx(stats.binom.sf(evidence.multiples - 1, 13, 0.5), rel=0.02)


@pytest.mark.parametrize("design, tests", [(d, n) for d in readings.SAME_LAW_DESIGNS for n in readings.READINGS])
def test_the_pair_gap_probability_is_the_convolution_of_two_binomials(design, tests):
    a, b = TABLE_3[(design, "request")][0], TABLE_3[(design, "iid")][0]
    pmf = stats.binom.pmf(np.arange(tests + 1), tests, (a + b) / 2)
    difference = np.convolve(pmf, pmf[::-1])  # X - Y, from -tests to tests
    d = round(abs(a - b) * tests)
    offsets = np.arange(-tests, tests + 1)
    slow = float(difference[np.abs(offsets) >= d].sum())
    assert readings.pair_gap_probability(a, b, tests) == pytest.approx(slow, rel=1e-6, abs=1e-15)


def test_the_pair_gap_probabilities_match_the_audits_normal_approximation():
    # the independent audit's two-sided normal tails at the printed difference: 1.4e-10 and 2.0e-5 (10,000 tests),
    # 0.15 and 0.34 (500). The exact tail carries a continuity correction the normal one lacks, so it is a
    # little larger; with that correction (d - 1/2) the two agree to 2%.
    for design, audit in (("unbalanced", (1.4e-10, 0.15)), ("host_balanced", (2.0e-5, 0.34))):
        a, b = TABLE_3[(design, "request")][0], TABLE_3[(design, "iid")][0]
        for tests, quoted in zip(readings.READINGS, audit):
            sd = np.sqrt(2 * (a + b) / 2 * (1 - (a + b) / 2) / tests)
            assert 2 * stats.norm.sf(abs(a - b) / sd) == pytest.approx(quoted, rel=0.1)
            corrected = 2 * stats.norm.sf((abs(a - b) * tests - 0.5) / (sd * tests))
            assert readings.pair_gap_probability(a, b, tests) == pytest.approx(corrected, rel=0.02)


def test_the_joint_window_ends_where_each_rows_distance_is_three_mc_errors():
    for design in readings.SAME_LAW_DESIGNS:
        rates = [TABLE_3[(design, "request")][0], TABLE_3[(design, "iid")][0]]
        for tests in readings.READINGS:
            low, high = readings.joint_window(rates, experiments=10_000, paper_tests=tests)
            # each end is some row's 3-MC boundary, and the window is the intersection of the rows' windows
            for end in (low, high):
                gaps = [abs(end - a) / combined_mc_error(end, 10_000, a, tests) for a in rates]
                assert min(abs(g - 3) for g in gaps) < 1e-6
                assert max(gaps) <= 3 + 1e-6 or low > high  # inside every row's window, unless it is empty
    # unbalanced at 10,000: the windows of 21.4% and 17.8% do not meet (the audit's 19.69% above 19.45%)
    low, high = readings.joint_window([0.214, 0.178], experiments=10_000, paper_tests=10_000)
    assert (round(100 * low, 2), round(100 * high, 2)) == (19.69, 19.45)
    assert readings.joint_window([0.084, 0.068], experiments=10_000, paper_tests=10_000)[0] < 0.0727


@pytest.mark.parametrize("design", readings.SAME_LAW_DESIGNS)
def test_the_closed_form_at_t1_matches_the_simulated_iid_and_request_rows(design):
    closed = readings.iid_type1_error(design, E1)
    table = type1_error_table(
        E1, requests=512, hosts=16, experiments=4000, replicates=1000, rows=[(design, "iid"), (design, "request")],
        rng=5,
    ).set_index("bootstrap")  # fmt: skip
    # the true SE is Eq. 5's, and the closed form agrees with the design's formula of section 4.2.1
    assert closed["true_se"] == pytest.approx(table.analytic_se.iloc[0], rel=1e-12)
    # the bootstrap SE: 4,000 means of SEs from 1,000 replicates each (relative SD 1/sqrt(2000) = 2.2% apiece, 0.04%
    # for their mean); the first-order expansion of the ratio and Jensen's inequality take a few tenths of a percent
    assert table.mean_estimated_se.to_numpy() == pytest.approx(closed["bootstrap_se"], rel=0.01)
    # the rate: 3 binomial MC errors of 4,000 tests, plus 0.3 points for the SE's spread over experiments, which
    # the closed form takes as constant
    p = closed["type1_error"]
    tolerance = 3 * np.sqrt(p * (1 - p) / 4000) + 0.003
    assert np.abs(table.type1_error.to_numpy() - p).max() < tolerance


def test_a_printed_rate_is_out_of_reach_only_beyond_its_own_mc_error():
    low, high = paper_type1_range(0.07, 0.07)  # request balanced / iid: 2.4% to 8.9%
    # 10.8% from 10,000 tests is 6 MC errors above 8.9%; from 500 tests, 1.3
    assert readings.outside_printed_range(0.108, low, high, tests=10_000)[0]
    assert not readings.outside_printed_range(0.108, low, high, tests=500)[0]
    assert not readings.outside_printed_range(0.05, low, high, tests=10_000)[0]
    with pytest.raises(ValueError, match="low: expected rates between 0 and 1"):
        readings.outside_printed_range(0.5, np.nan, np.nan, tests=10_000)  # few clusters: no range to hold it to


def _table(rates, distances_10000, distances_500):
    rows = list(TABLE_3_ROWS)
    low, high = paper_type1_range([TABLE_3[r][1] for r in rows], [TABLE_3[r][2] for r in rows])
    return pd.DataFrame(
        {
            "design": [d for d, _ in rows],
            "bootstrap": [b for _, b in rows],
            "type1_error": rates,
            "paper_type1_error": [TABLE_3[r][0] for r in rows],
            "paper_type1_low": low,
            "paper_type1_high": high,
            "closest_distance_mc": distances_10000,
            "closest_distance_mc_500": distances_500,
        }
    )


def test_the_reading_summary_counts_what_the_checks_prove():
    rates = [TABLE_3[r][0] for r in TABLE_3_ROWS]
    d10 = [4.0, 2.0, 0.5, 0.4, 7.2, 0.0, 3.2, 3.5, 0.2, 0.2, 0.1, 0.2, 1.4]  # the full run's distances
    d500 = [1.3, 0.6, 0.2, 0.1, 2.4, 0.0, 1.0, 1.1, 0.1, 0.1, 0.0, 0.1, 0.3]
    table = _table(rates, d10, d500)
    pairs = readings.same_law_pairs(table.assign(type1_error=0.19), E1, experiments=10_000)
    stated = readings.reading_summary(table, pairs, tests=10_000)
    # unbalanced: an empty window, its request row the farther; host balanced: a window, so both are reachable
    assert stated["unreachable"] == ["unbalanced / request", "request balanced / iid"]
    assert stated["within"] == 9 and stated["missed"] == ["request balanced / host block", "host balanced / request"]
    assert readings.reading_summary(table, pairs, tests=500) == dict(
        tests=500, within=13, rows=13, unreachable=[], reachable=13, reachable_within=13, missed=[]
    )
    with pytest.raises(ValueError, match="tests=1000: table3 holds distances for 10000, 500 tests only"):
        readings.reading_summary(table, pairs, tests=1000)


def test_the_host_block_leads_agree_with_table_3s_rows_and_with_each_other():
    leads = readings.host_block_leads(E1, experiments=4000, replicates=400, rng=3).set_index("lead")
    assert list(leads.index) == [lead for lead, *_ in readings.HOST_BLOCK_LEADS]
    table = type1_error_table(
        E1, requests=512, hosts=16, experiments=4000, replicates=400,
        rows=[("request_balanced", "host_block"), ("request_balanced", "host")], rng=4,
    ).set_index("bootstrap")  # fmt: skip
    # independent simulations of one law: 4 combined binomial MC errors of 4,000 tests each
    for lead, row, column in (
        ("as written: blocks, normal quantile", "host_block", "type1_error"),
        ("t on C - 1 df", "host_block", "type1_error_t"),
        ("weights per host x condition", "host", "type1_error"),
    ):
        ours, theirs = leads.loc[lead, "type1_error"], table.loc[row, column]
        assert abs(ours - theirs) < 4 * combined_mc_error(ours, 4000, theirs, 4000), lead
    # one set of SEs: a larger critical value never calls more; a half-width reading rescales only the .SE
    blocks = leads[leads.clusters == 8].iloc[[0, 3, 2]]  # z, t on 14 df, t on 7 df
    assert blocks.critical_value.is_monotonic_increasing and blocks.type1_error.is_monotonic_decreasing
    written, half = leads.loc["t on C - 1 df"], leads.loc["t on C - 1 df, .SE = half-width / 1.96"]
    assert half.type1_error == written.type1_error
    assert half.printed_se == pytest.approx(written.printed_se * stats.t.ppf(0.975, 7) / stats.norm.ppf(0.975))
    assert (leads.explains == (leads.se_matches & (leads.type1_distance_mc <= 3))).all()
