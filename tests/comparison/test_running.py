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


@pytest.mark.parametrize("name", ["sign", "t"])
def test_each_rules_batch_form_is_its_whole_sample_sequence_and_its_estimate_its_centre(name):
    """The registry's batch form is the module's function, and a rule's estimate is the centre its sequence ends at:
    the median round for the sign rule, the mean round for t (checked against numpy, not the rule)."""
    from perfstudy.comparison.running import stopping_rule

    d = np.random.default_rng(5).normal(0.01, 0.03, 40)
    rule = stopping_rule(name)
    whole = sign_confidence_sequence if name == "sign" else t_confidence_sequence
    assert rule.sequence(d, 0.9).current() == whole(d, 0.9).current()
    assert rule.estimate(d) == pytest.approx(np.median(d) if name == "sign" else np.mean(d), rel=1e-15)
    assert rule.sequence(d, 0.9).centre[-1] == pytest.approx(rule.estimate(d), rel=1e-12)
    assert rule.centre == ("median round" if name == "sign" else "mean round")
    assert isinstance(rule.running(0.9), RunningRule)


def test_the_registry_is_the_one_list_of_rules():
    """The signatures' Literal, the settings' choices, the command line's choices and the help come from RULES; no
    module outside the registry compares a value with a rule's name."""
    import pathlib
    import re
    import typing

    from perfstudy.cli import _parser as build_parser
    from perfstudy.comparison import SEQUENTIAL_RULES
    from perfstudy.comparison.running import RULES, RuleName

    assert typing.get_args(RuleName) == tuple(RULES) == SEQUENTIAL_RULES
    assert all(rule.name == name for name, rule in RULES.items())
    parser = build_parser()
    for command in ("run", "bisect"):
        sub = parser._subparsers._group_actions[0].choices[command]
        (action,) = [a for a in sub._actions if "--rule" in a.option_strings]
        assert tuple(action.choices) == tuple(RULES)
        assert all(rule.summary in " ".join(action.help.split()) for rule in RULES.values())
    names = "|".join(re.escape(name) for name in RULES)
    compared = re.compile(rf"""(==|!=)\s*["']({names})["']|["']({names})["']\s*(==|!=)|(rule|sequential)\s*==""")
    package = pathlib.Path(__file__).resolve().parents[2] / "perfstudy"
    found = [
        f"{path.relative_to(package)}:{number}: {line.strip()}"
        for path in package.rglob("*.py")
        if path.name != "running.py"
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if compared.search(line) and re.search(r"\b(rule|sequential)\b", line)
    ]
    assert not found, found
