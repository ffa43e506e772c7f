"""What notebook 06 shows and says: the tables and the summary against hand-made results whose answers are known."""

import pandas as pd
import pytest

from perfstudy.capacity.server_model import SimulatedServer
from perfstudy.studies import shivam2008_said as said


def _results():
    calibration = dict(searches=100, within_target=0.97, converged=1.0, median_error=0.01, max_error=0.123)
    costs = pd.DataFrame({"policy": ["binsearch", "binsearch", "linear", "linear"],
                          "seeding": [True, False, True, False], "hours": [10.0, 20.0, 30.0, 30.0],
                          "max_error": [0.05, 0.06, 0.07, 0.08], "converged": [1.0, 0.9, 0.75, 1.0]})  # fmt: skip
    growth = pd.DataFrame({"scale": [1, 1, 16, 16], "policy": ["binsearch", "linear"] * 2,
                           "test_loads": [6, 10, 10, 160]})  # fmt: skip
    table4 = pd.DataFrame({"samples": [6, 8], "chosen": [[(1, 2), (4, 48)], [(2, 4)]], "mape_measured": [0.2, 0.1],
                           "mape_true": [0.19, 0.11], "hours": [5.0, 7.5]})  # fmt: skip
    return calibration, costs, growth, table4


def test_the_summary_reads_each_table():
    text = said.summary_said(*_results(), search=dict(target_accuracy=0.1, confidence=0.95, runlength=60)).text
    assert text.startswith(
        "* **Calibration.** On the example server 97% of 100 searches report a peak within 10% of the true one "
        "(promised: 95%); the worst error is 12.3%."
    )
    assert "binsearch 5.0% (seeded), binsearch 6.0% (unseeded), linear 7.0% (seeded), linear 8.0% (unseeded)" in text
    assert "seeded searches that converged is binsearch 100%, linear 75%." in text
    assert "From a 1x to a 16x server, Binsearch's test loads go from 6 to 10 and Linear's from 10 to 160." in text
    assert "changes the cost of mapping the surface by -50% for binsearch, +0% for linear." in text
    assert text.endswith("misses the measured peaks by a MAPE of 20.0%, 10.0% (6, 8 samples).")
    with pytest.raises(ValueError, match="'confidence'"):
        said.summary_said(*_results(), search=dict(target_accuracy=0.1))


def test_the_tables_show_what_a_reader_compares():
    _, costs, _, table4 = _results()
    html = said.costs_view(costs).to_html()
    assert "from 10 req/s" in html and "worst error" in html and "75%" in html
    html = said.table4_view(table4).to_html()
    assert "1×2, 4×48" in html and "MAPE, measured peaks" in html and "20.0%" in html


def test_the_true_peaks_are_the_simulated_servers():
    grid = pd.DataFrame({"disks": [1, 1, 4], "daemons": [2, 16, 16]})
    peaks = said.true_peaks(grid)
    assert peaks.loc[4, 16] == SimulatedServer(disks=4, daemons=16).true_peak_rate
    assert peaks.loc[1, 2] == SimulatedServer(disks=1, daemons=2).true_peak_rate and pd.isna(peaks.loc[4, 2])
