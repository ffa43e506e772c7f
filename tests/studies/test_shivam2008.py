"""Shivam et al. (ATC'08) on the simulated server: the figures and Table 4."""

from __future__ import annotations

import pytest
from support.studies import (
    STUDY_CALLS,
)

from perfstudy.capacity.server_model import SimulatedServer
from perfstudy.studies import shivam2008


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
