"""Bakshy & Frachtenberg (WWW'15) reproduced: Table 1, Figure 2, Table 3 and its distances in Monte Carlo errors, Figures 5-7, the allocations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.studies import (
    E1,
    STUDY_CALLS,
)

from perfstudy import CostModel
from perfstudy.design.type1_errors import ROWS
from perfstudy.studies import bakshy2015


def test_table_3_constants_are_the_paper_s():
    # Table 3 of WWW'15: 13 rows; the analytic SE column is 0.10, 0.07, 0.07, 0.03 by design
    assert len(bakshy2015.TABLE_3) == 13 and set(bakshy2015.TABLE_3) == set(ROWS)
    assert bakshy2015.TABLE_3["request_balanced", "host_block"] == (0.057, 0.08, 0.07)
    table = bakshy2015.table3_standard_errors(E1)
    assert (table.closed_form.round(2) == table.paper).all()
    assert np.allclose(table.eq5_from_schedule, table.closed_form, rtol=1e-12)


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

    costs = CostModel(setup=600.0, request=2.0, repetition=0.5, host=60.0)
    frame = bakshy2015.allocations(E1, costs, budgets=[20_000], targets=[0.05])
    assert set(frame.budget.dropna()) == {20_000} and set(frame.target_se.dropna()) == {0.05}
    with pytest.raises(ValueError, match="budgets, targets"):
        bakshy2015.allocations(E1, costs)


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


def test_the_origin_check_moves_the_counts_bootstrap_and_not_the_summed_weights():
    """A difference of means, and the SE of a bootstrap dividing by its summed weights, do not depend on where y
    is measured from: the same A/A tests moved by a constant give the same rates. Dividing by the counts puts the
    squared condition means in the SE (section 5.1 divides by the weights), so its rates move."""
    rows = [("unbalanced", "host"), ("host_balanced", "host")]
    check = bakshy2015.origin_check(E1, rows, shift=3.0, experiments=200, replicates=100, rng=4)
    table = check.table
    assert table["design / bootstrap"].tolist() == ["unbalanced / host", "host balanced / host"]
    assert check.se_moved < 1e-12 and (check.shift, check.experiments) == (3.0, 200)
    assert table["normal"].tolist() == table["normal, shifted"].tolist()
    assert table["t"].tolist() == table["t, shifted"].tolist()
    assert table["counts"].tolist() != table["counts, shifted"].tolist()
