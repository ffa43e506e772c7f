"""What notebook 09 says: each sentence against hand-made results whose answers are known."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from perfstudy.studies import running_said as said


def _comparison(verdict="no change", change=0.012, low=-0.02, high=0.044):
    return SimpleNamespace(table=pd.DataFrame({"verdict": [verdict], "change": [change], "low": [low], "high": [high]}))


def test_the_recorded_interval_and_the_panel_title_are_the_comparisons_first_row():
    assert said.interval_record(_comparison()) == dict(verdict="no change", change=0.012, low=-0.02, high=0.044)
    title = said.layout_title("sequential", _comparison("slower", 0.153, 0.101, 0.2), "10 batches each")
    assert title == "sequential: slower +15.3% [+10.1%, +20.0%], 10 batches each"


def test_the_drifts_are_medians_of_the_first_and_last_fifth_of_rounds():
    rounds = np.repeat(np.arange(10), 3)  # 10 rounds of 3 rows, the first of each a warm-up
    frame = pd.DataFrame(
        {"round": rounds, "probe": 1e-3 * (1 + rounds), "warmup": np.tile([True, False, False], 10),
         "value": np.where(np.tile([True, False, False], 10), 99.0, 0.1 * (1 + rounds))}
    )  # fmt: skip
    drift, slowdown = said.drifts(frame)
    # a fifth of 10 rounds is 2: the probe's round medians 1, 2 ms and 9, 10 ms; the measured means 0.1, 0.2 and
    # 0.9, 1.0 (the warm-ups' 99 left out)
    assert drift == pytest.approx(dict(first=1.5e-3, last=9.5e-3)) and slowdown == pytest.approx(0.95 / 0.15)
    text = said.probe_said(drift, slowdown).text
    assert text.startswith("Over the run the probe's median moved by a factor 6.33 (first fifth of rounds to last) while the commands' round means moved by 6.33.")  # fmt: skip
    assert text.endswith("The probe moved with the commands.")
    assert said.probe_said(dict(first=1.0, last=1.02), 1.3).text.endswith("sees its own share.")


def _calibration(sign=0.03, lai=0.04, t=0.3):
    return pd.DataFrame(
        {"rule": ["sign sequence, every round", "t sequence, every round", "t interval, every round"],
         "limit": [0.0646] * 3, "false_rate": [sign, lai, t], "within": [sign <= 0.0646, lai <= 0.0646, t <= 0.0646]}
    )  # fmt: skip


def _cost(near_median=40.0):
    return pd.DataFrame({"change": [0.15, 0.02], "median_rounds": [12.0, near_median], "fixed_rounds": [8.0, 30.0]})


def test_the_summary_judges_each_layout_and_rule_from_its_numbers():
    seq = dict(verdict="slower", change=0.081, low=0.03, high=0.13)
    inter = dict(verdict="no change", change=0.004, low=-0.02, high=0.03, rounds=23, stopped="decided")
    text = said.summary_said(seq, inter, _calibration(), _cost(), threshold=0.1, experiments=2000).text
    assert text.startswith(
        "* **Sequential layout: slower**, +8.1% [+3.0%, +13.0%] for an A/A pair at a 10% threshold. A false call: B's "
        "batches ran under a different load than A's.\n* **Interleaved run: no change**, +0.4% [-2.0%, +3.0%] after 23 "
        "rounds (decided). Each round's B/A is taken under one load, so the drift cancels.\n"
    )
    assert "the sign sequence (the run's rule) called a change in 3.0% of runs (within the limit)" in text
    assert "a fixed t interval recomputed every round in 30.0% (above the limit)" in text
    assert text.endswith(
        "a 15% change took a median of 12 rounds against 8 for a one-look t test of equal power; a 2% change took a "
        "median of 40 rounds against 30: near the threshold the sequence pays for being valid at every look."
    )
    quiet = dict(seq, verdict="no change", low=0.01)  # no call, but the interval excludes 0
    text = said.summary_said(quiet, inter, _calibration(), _cost(20.0), threshold=0.1, experiments=2000).text
    assert "No call this time, but the interval excludes 0" in text
    assert text.endswith("a 2% change took a median of 20 rounds against 30.")


def test_the_rules_sentence_gives_the_rounds_ratio_and_each_configurations_runs():
    contended = pd.DataFrame(
        {"rule": ["t", "sign", "t", "sign", "t", "sign"], "statistic": ["median"] * 6,
         "change": [0.0, 0.0, 0.02, 0.02, 0.1, 0.1], "wrong": [0.08, 0.03, 0, 0, 0, 0],
         "mean_rounds": [100.0, 100.0, 30.0, 20.0, 12.0, 10.0]}
    )  # fmt: skip
    trial = SimpleNamespace(
        cpus=2,
        table=pd.DataFrame(
            {"rule": ["t", "sign", "sign"], "duet": [False, False, True], "wrong": [1, 0, 0],
             "verdict": ["slower", "inconclusive", "no change"], "seconds": [10.0, 10.0, 8.5],
             "rounds": [20, 31, 14], "round_sd": [0.04, 0.03, 0.02]}
        ),
    )  # fmt: skip
    text = said.rules_said(contended, trial, experiments=400, rounds=100, limit=0.0827, budget=10.0).text
    assert text.startswith(
        "* **Simulated contention** (400 runs per change, batch median, up to 100 rounds): A/A wrong verdicts 8.0% "
        "for the t rule and 3.0% for the sign rule (limit 8.3%). For planted changes of 2%, 10%, the t rule needed "
        "1.2 to 1.5 times the sign rule's mean rounds.\n"
    )
    assert text.endswith(
        "(10 s each, 2 CPUs): t rule, interleaved: 1 wrong of 1, 1 decided, median 10.0 s and 20 rounds, round SD "
        "4.0%; sign rule, interleaved: 0 wrong of 1, 0 decided, median 10.0 s and 31 rounds, round SD 3.0%; sign "
        "rule, duet: 0 wrong of 1, 1 decided, median 8.5 s and 14 rounds, round SD 2.0%."
    )
