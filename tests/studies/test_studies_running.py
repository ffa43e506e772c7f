"""perfstudy.studies.running (its name shared with perfstudy.comparison.running, whose mirror is test_running.py).
Its calibrations of the stopping rules are tested beside the rules, in tests/comparison/test_sequential.py and
test_sign_sequence.py; its figures in test_running_figures.py.

Notebook 09's real trial on a loaded machine: a run that stops before the rule's first possible verdict is
recorded as having no interval yet, and the notebook's record takes it (an infinity stopped the notebook)."""

import math

from perfstudy.notebook.records import Recorder
from perfstudy.studies import running


def test_a_trial_run_without_an_interval_yet_is_recorded_as_such(tmp_path):
    trial = running.toggled_trial(1000, changes=(0.0,), seconds=0.05, threshold=0.01, busy=1, seed=3)
    table = trial.table
    assert len(table) >= 2
    for row in table.itertuples(index=False):
        assert row.bounded == (math.isfinite(row.low) and math.isfinite(row.high))
        assert not math.isinf(row.low) and not math.isinf(row.high)
    assert not table["bounded"].all()  # 0.05 s: no run reaches the sign rule's first possible verdict
    record = Recorder("trial", tmp_path)
    record("trial", table)
    assert any(row["low"] is None for row in record.values["trial"])
