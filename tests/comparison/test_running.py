"""A stopping rule is an object: the sign and t sequences behind one protocol, kept up round by round, equal to
their whole-sample forms; the run's judge calls the protocol and never the rule's name."""

import inspect
import math

import numpy as np
import pytest

from perfstudy.comparison.running import RunningRule, RunningT, running_rule
from perfstudy.comparison.sequential import rounds_needed, t_confidence_sequence
from perfstudy.comparison.sign_sequence import RunningSign, sign_confidence_sequence


@pytest.mark.parametrize("rule", ["sign", "t"])
def test_each_rule_is_a_running_rule_that_agrees_with_its_whole_sample_form(rule):
    rng = np.random.default_rng(3)
    d = rng.standard_t(3, 60) * 0.05 + 0.02
    running = running_rule(rule, 0.9)
    assert isinstance(running, RunningRule)
    assert isinstance(running, RunningSign if rule == "sign" else RunningT)
    whole = sign_confidence_sequence if rule == "sign" else t_confidence_sequence
    for n, x in enumerate(d, start=1):
        running.add(float(x))
        if n in (2, 7, 30, 60):
            assert running.current() == pytest.approx(whole(d[:n], 0.9).current(), rel=1e-12, abs=1e-12)
    assert running.centre == pytest.approx(np.median(d) if rule == "sign" else np.mean(d))


def test_running_t_estimates_rounds_from_its_sd_and_refuses_what_is_not_a_number():
    running = RunningT(0.95)
    assert running.current() == (-math.inf, math.inf, 1.0) and math.isnan(running.centre)
    assert running.rounds_needed(0.01, limit=500) == 500  # no SD yet
    for x in (0.01, 0.03, -0.02, 0.04):
        running.add(x)
    sd = float(np.std([0.01, 0.03, -0.02, 0.04], ddof=1))
    assert running.rounds_needed(0.01) == rounds_needed(sd, 0.01, 0.95)
    with pytest.raises(ValueError, match="finite"):
        running.add(math.inf)
    with pytest.raises(ValueError, match="rule"):
        running_rule("bogus")


def test_the_judge_uses_the_protocol_not_the_rules_name():
    from perfstudy.experiment import _judge

    source = inspect.getsource(_judge)
    assert '"sign"' not in source.replace('``"sign"``', "") and '== "t"' not in source
    assert "RunningSign" not in source and "t_confidence_sequence" not in source
