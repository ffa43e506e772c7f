"""He et al. (FSE'19), PT4Cloud: the tables, the YCSB check, the reduction and the accuracy diagnosis recomputed."""

from __future__ import annotations

import numpy as np
import pytest
from support.studies import (
    STUDY_CALLS,
    needs_data,
)

from perfstudy.studies import he2019


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
