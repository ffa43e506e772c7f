"""What notebook 12 says: every number from the runs' tables, the disagreement as the run's table said it, and
whether the fixed layout's false call and the randomised "no change" were both seen, decided from the verdicts."""

import pandas as pd
import pytest

from perfstudy.studies.layout import LayoutTrial, Runs
from perfstudy.studies.layout_said import instructions_said, layout_said


def _row(part, verdict, change, low, high, rounds, unit="instructions", a=6_124_166.0, b=6_124_166.0, **more):
    return dict(part=part, benchmark="command", unit=unit, a=a, b=b, change=change, low=low, high=high,
                verdict=verdict, rounds=rounds, spread_a=0.0, **more)  # fmt: skip


def test_instruction_runs_are_said_from_their_rows_and_the_runs_own_disagreement():
    table = pd.DataFrame([
        _row("A/A", "no change", 0.0, -2e-6, 2e-6, 9),
        _row("+1%", "slower", 0.009796, 0.009795, 0.009797, 9, b=6_184_166.0),
        _row("disagreement", "faster", -0.47, -0.48, -0.43, 11, unit="s"),
        _row("disagreement", "slower", 0.1984, 0.1983, 0.1985, 11),
    ])  # fmt: skip
    said = instructions_said(Runs(table, ("Instructions and time disagree on command: ...",), "valgrind-3.19.0"))
    text = said.text
    assert "Instructions counted by valgrind-3.19.0." in text
    assert "A/A: **no change** (+0.0000%, interval [-0.0002%, +0.0002%]) after 9 rounds" in text
    assert "The loop 1% longer (6,184,166 instructions): **slower** (+0.980%, interval [+0.980%, +0.980%])" in text
    assert "instructions **slower** (+19.84%, interval [+19.83%, +19.85%]) after 11 rounds" in text
    assert "wall-clock time **faster** (-47.00%, interval [-48.00%, -43.00%])" in text
    assert text.endswith("The run's table said: Instructions and time disagree on command: ...")
    quiet = instructions_said(Runs(table, (), "valgrind-3.19.0")).text
    assert quiet.endswith("The run's table named no disagreement.")
    with pytest.raises(TypeError, match="runs: expected instruction_runs' result, got dict"):
        instructions_said({})


def _trial(fixed_verdict: str, randomised_verdict: str, within: str = "") -> LayoutTrial:
    table = pd.DataFrame([
        _row("fixed", fixed_verdict, 2.1, 1.9, 2.5, 9, unit="s", layout="fixed", within_layout=""),
        _row("randomised", randomised_verdict, 0.01, -0.02, 0.04, 80, unit="s", layout="randomised",
             within_layout=within),
    ])  # fmt: skip
    batches = pd.DataFrame([
        dict(layout="fixed", version="A", round=0, padding=None, seconds=0.020, distance=1392),
        dict(layout="fixed", version="B", round=0, padding=None, seconds=0.062, distance=16),
        dict(layout="randomised", version="A", round=0, padding=100, seconds=0.020, distance=1296),
        dict(layout="randomised", version="B", round=0, padding=2000, seconds=0.021, distance=16),
        dict(layout="randomised", version="A", round=1, padding=5, seconds=0.020, distance=1392),
        dict(layout="randomised", version="B", round=1, padding=7, seconds=0.019, distance=1376),
    ])  # fmt: skip
    return LayoutTrial(table, batches, 1364, {"A": 1392, "B": 16}, {"A": 0.0277, "B": 0.0679})


def test_the_layout_trial_is_said_from_its_runs_and_batches():
    text = layout_said(_trial("slower", "no change")).text
    assert "with 1364 more bytes in its environment, which put its stack buffer 16 bytes past the static source (A's " \
           "lay 1392 past); one probe run each took 27.7 ms (A) and 67.9 ms (B)" in text  # fmt: skip
    assert (
        "Layout fixed: 50% of the batches at the slow distance; B's median batch took 3.10 times A's; **slower** "
        "(+210.0%, interval [+190.0%, +250.0%]) after 9 rounds — a false call, since A and B are one build." in text
    )
    assert (
        "Layout randomised: 25.0% of 4 batches landed at the slow distance; B's median batch took 1.000 times "
        "A's; **no change** (+1.0%, interval [-2.0%, +4.0%]) after 80 rounds." in text
    )  # medians 0.020, 0.020
    assert "This run shows the fixed layout's false call beside the randomised layout's \"no change\"." in text


def test_a_run_without_the_false_call_or_the_no_change_says_it_does_not_show_them():
    missed = layout_said(_trial("no change", "no change")).text
    assert "a false call" not in missed and "This run does not show the fixed layout's false call" in missed
    within = "command: no change beyond layout: B differs from A by -2.0% to +4.0%, ..."
    undecided = layout_said(_trial("slower", "inconclusive", within)).text
    assert f"**inconclusive** (+1.0%, interval [-2.0%, +4.0%]) after 80 rounds. {within}" in undecided
    assert "This run does not show" in undecided
    with pytest.raises(TypeError, match="trial: expected layout_trial's result, got NoneType"):
        layout_said(None)
