"""What notebook 11 says of the shared-runner trial: each method's numbers from its calls, the targets' words from
the scores, and the methods left out with why."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from perfstudy.studies.ci_trial import CITrial
from perfstudy.studies.ci_trial_said import trial_said


def _trial(half: float, *, left_out=None) -> CITrial:
    """Eight pull requests of interleaved calls: every planted change found, one unchanged benchmark called slower in
    pull request 1 (falsely red, a false alarm), intervals of half-width ``half``."""
    rows = []
    for request in range(1, 9):
        for index, planted in enumerate([0.0] * 16 + [0.02, 0.02, 0.05, 0.05]):
            call = "slower" if planted or (request == 1 and index == 0) else ""
            rows.append(dict(pull_request=request, method="interleaved", benchmark=f"B{index}", planted=planted,
                             call=call, verdict=call, change=planted, low=planted - half, high=planted + half,
                             machine_seconds=120.0, rounds=300))  # fmt: skip
    return CITrial(table=pd.DataFrame(rows), methods=("interleaved",), seconds=120.0, threshold=0.01, gate=0.02,
                   batch="2ms", benchtimes={}, load=(1.5, 2.25), left_out=left_out or {})  # fmt: skip


def test_the_sentence_quotes_the_scores_and_says_which_targets_hold():
    text = trial_said(_trial(0.008)).text
    assert (
        "**perfstudy, interleaved rounds**: 1 of 8 pull requests falsely red; false alarms on 0.8% of 128 unchanged "
        "benchmarks; found 16 of 16 planted +2% and 16 of 16 planted +5%; median 95% interval half-width 0.80%; 2.0 "
        "machine minutes per pull request."
    ) in text
    # 1 of 8 red is the target's edge (met); 1 of 128 = 0.78% false alarms is under 1% (met)
    assert "at most 1 in 8 pull requests falsely red, met; at most 1% false alarms, met;" in text
    assert "a median half-width of at most 1%, met." in text
    assert "the 1-minute load average was 1.50 at the start and 2.25 at the end" in text


def test_a_wide_or_unbounded_interval_misses_the_width_target_in_words():
    assert "a median half-width of at most 1%, not met." in trial_said(_trial(0.02)).text
    assert "half-width unbounded;" in trial_said(_trial(math.inf)).text


def test_a_method_left_out_is_named_with_why():
    text = trial_said(_trial(0.01, left_out={"benchstat": "benchstat was not found"})).text
    assert "* **-count 10 of base then head, benchstat** did not run: benchstat was not found." in text


def test_anything_but_a_trial_is_refused():
    with pytest.raises(TypeError, match="expected ci_trial's result"):
        trial_said(pd.DataFrame())
