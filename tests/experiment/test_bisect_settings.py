"""A bisect's settings: checked once, errors in the user's spelling, each step's run settings at its confidence."""

import math

import pytest

from perfstudy.experiment.bisect_settings import BisectSettings
from perfstudy.experiment.bisection import bisect, step_confidence
from perfstudy.experiment.settings import UNBOUNDED_ROUNDS, RunSettings


def test_each_steps_run_settings_are_the_bisects_at_the_steps_confidence():
    s = BisectSettings(threshold="10%", confidence=0.9, max_time="2m", statistic="min", rule="t", values=2)
    assert (s.threshold, s.confidence, s.max_time, s.max_rounds) == (0.1, 0.9, 120.0, UNBOUNDED_ROUNDS)
    level, steps = step_confidence(0.9, 9)  # 8 commits after the good one: 1 + ceil(log2 8) = 4 steps
    assert steps == 4 and level == pytest.approx(1 - 0.1 / 4)
    step = s.step(level)
    assert isinstance(step, RunSettings)
    assert (step.confidence, step.threshold, step.statistic, step.rule, step.values) == (level, 0.1, "min", "t", 2)
    assert (step.max_time, step.max_rounds) == (120.0, UNBOUNDED_ROUNDS)
    assert s.record() == {"rule": "t", "statistic": "min", "values": 2}


@pytest.mark.parametrize(
    ("given", "python", "cli"),
    [
        (dict(threshold=0), "threshold=0: a bisect needs a threshold above 0", "--threshold 0: a bisect needs"),
        (dict(max_rounds=2), "max_rounds=2", "--max-rounds 2"),
        (dict(metric="wall,cpu"), "metric='wall,cpu': a bisect follows one metric", "--metric wall,cpu: a bisect"),
        (dict(max_time="30"), "max_time='30': a bare number", "--max-time 30: a bare number"),
        (dict(statistic="mode"), "statistic='mode'", "--statistic mode"),
        (dict(setup="git checkout {commit}", shell=False), "drop shell=False", "drop --no-shell"),
    ],
)
def test_a_bad_setting_is_refused_in_the_users_spelling(given, python, cli):
    with pytest.raises((ValueError, TypeError)) as refused:
        BisectSettings(**given)
    assert python in str(refused.value)
    with pytest.raises((ValueError, TypeError)) as refused:
        BisectSettings(**given, spelling="cli")
    assert cli in str(refused.value)
    assert "min_rounds" not in str(refused.value)  # a bisect has no such option


def test_settings_or_keywords_not_both_and_a_runs_own_arguments_refused():
    with pytest.raises(TypeError, match="give the settings once"):
        bisect(["c0", "c1"], "x {commit}", settings=BisectSettings(), threshold=0.1)
    with pytest.raises(TypeError, match="settings: expected a BisectSettings"):
        bisect(["c0", "c1"], "x {commit}", settings=RunSettings())
    with pytest.raises(TypeError, match="min_rounds: bisect sets it"):
        bisect(["c0", "c1"], "x {commit}", min_rounds=3)
    with pytest.raises(TypeError, match="thresold: not one of BisectSettings's settings"):
        bisect(["c0", "c1"], "x {commit}", thresold=0.1)
    assert math.isclose(BisectSettings(seed=None).run.confidence, 0.95) and BisectSettings(seed=None).seed is None
