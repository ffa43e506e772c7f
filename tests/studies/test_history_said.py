"""What notebook 10 says: each sentence against hand-made results whose answers are known, and its Monte Carlo
errors and bounds against their closed forms."""

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from perfstudy.studies import history_said, history_validation as hv
from perfstudy.studies.bisecting import ShortHistoryTrial
from perfstudy.studies.history_validation import Scores

NAN = math.nan


def _scores(table, missed=None, missing=()):
    missed = pd.DataFrame(missed or {"detector": [], "kind": [], "series": [], "missed": []})
    return Scores(table=pd.DataFrame(table), margin=5, missing=tuple(missing), missed=missed)


def _summary(missing=()):
    labels = _scores({"detector": ["perfstudy", "perfherder"], "found": [5, 3], "labelled": [5, 5], "exact": [4, 0],
                      "false": [0, 7], "F1": [1.0, 0.4]}, missing=missing)  # fmt: skip
    planted = _scores(
        {"detector": ["perfstudy", "perfherder"], "series": [100, 100], "step_F1": [0.93, 0.8],
         "spread_recall": [0.2, 0.0], "ramp_recall": [0.95, 0.5], "spikes_flagged": [0.0, 0.3]},
        missed={"detector": ["perfstudy", "perfstudy", "perfherder"], "kind": ["step", "step", "step"],
                "series": ["a", "b", "c"], "missed": [1, 3, 9]},
    )  # fmt: skip
    null = _scores({"series": [30, 30], "points": [200, 200], "change_points": [1, 0]})
    real = _scores({"points": [4000, 1000], "change_points": [0, 2]})
    cost = _scores({"detector": ["perfstudy", "perfherder", "pelt"], "seconds_per_1000_series": [2.0, 3.0, 1.0]})
    return history_said.summary_said(labels, planted, null, real, cost).text


def test_a_rate_is_judged_against_its_goal_by_its_binomial_error():
    # 0.93 from 100 copies: SE sqrt(.93 .07 / 100) = 0.0255, so 0.95 is 0.8 SE away: within 2
    assert history_said.judged(0.93, 0.95, 100) == "is within 2 MC SE of"
    assert history_said.judged(0.80, 0.95, 100) == "misses" and history_said.judged(0.95, 0.95, 100) == "meets"
    assert history_said.judged(0.0, 0.05, 100, higher=False) == "meets"  # spikes: fewer is better
    # a rate of 0 still has an error: the floor sqrt(0.25 / n / n) = 0.5 / n = 0.005 at n = 100
    assert history_said.judged(0.0, 0.009, 100) == "is within 2 MC SE of"
    assert history_said.judged(0.0, 0.011, 100) == "misses"


def test_the_summary_says_what_the_tables_hold():
    text = _summary()
    assert text.startswith(
        "* **SAP's labels.** perfstudy found 5 of 5 labelled regressions (4 at the exact index) with 0 false change "
        "points on the 25 series (F1 1.00). perfherder: 3 found, 7 false (F1 0.40).\n"
    )
    assert "Step F1 0.93 ± 0.03, which is within 2 MC SE of the goal of 0.95 (best peer 0.80)" in text
    assert "spread recall 0.20 ± 0.04, which misses 0.5" in text and "ramp recall 0.95 ± 0.02, which meets 0.9" in text
    assert "spikes flagged 0.0% ± 0.5%, which meets at most 5% (fewest among peers 30.0%)" in text
    assert "Missed steps by series copied (copies missed): b (3), a (1).\n" in text  # ours only, most missed first
    # 1 in 2 x 30 x 200 = 12,000 simulated points; 2 in 5,000 real ones
    assert "1 false change points in 12,000 simulated points over 2 calls (0.083 per 1,000 points); 2 in 5,000 real points (0.400 per 1,000)" in text  # fmt: skip
    assert text.endswith("* **Cost.** 2.00 s per 1,000 series; slower or equal: perfherder.")
    assert _summary(missing=("otava",)).endswith(" Not installed here, so not compared: otava.")


def _trial(found, aa, *, need=12.0):
    history = SimpleNamespace(series=pd.DataFrame({"noise": [0.012], "commits_for_threshold": [need]}))
    sweep = pd.DataFrame({"commit_index": np.repeat(np.arange(10), 3)})
    return ShortHistoryTrial(
        found=pd.DataFrame(found), aa=pd.DataFrame(aa), history=history, sweep=sweep,  # type: ignore[arg-type]
        sweep_seconds=31.2, bisect_seconds=95.4, aa_seconds=14.9, false_history=1, aa_bound=0.05,
        threshold=0.1, confidence=0.95, load=True, aa_threshold=0.1,
    )  # fmt: skip


def _found(**changed):
    row = dict(commit=5, change=0.3, measured=0.142, measured_low=0.1, measured_high=0.19, history_needs=8.0,
               history_commit=5.0, history_first=4.0, history_last=5.0, history_change=0.13, culprit=5.0,
               bisect_first=5.0, bisect_last=5.0, steps=4, rounds=40, seconds=20.0, stopped="decided")  # fmt: skip
    return {k: [v] for k, v in (row | changed).items()}


def test_the_short_history_sentence_says_what_each_planted_change_met():
    text = history_said.short_history_said(_trial(_found(), {"culprit": [NAN, NAN]}), count=3).text
    assert text.startswith(
        "* **A short real history under a toggled load** (10 commits of a real repository, 3 runs each, measured one "
        "after another in 31 s). Planted in the loop's iterations: +30% at commit 5 (+14.2% in run time [+10.0%, "
        "+19.0%], measured by its bisect's first step). The sweep's history found the +30% at commit 5 (may be in "
        "4-5; +13.0%) and 1 change point(s) that no planted change explains; at its noise between commits (1.2%), a "
        "change of 10% needs about 12 commits on each side."
    )
    assert "named 1 of 1 planted commits (+30%: commit 5, 4 steps, 40 rounds, 20 s) with 0 wrong culprit(s), in 95 s" in text  # fmt: skip
    # no culprit in 2 A/A bisects: the one-sided Clopper-Pearson bound is 1 - 0.05^(1/2) = 77.6%, and no tail
    assert text.endswith(
        "Over 2 bisects of a range without a change they named 0 culprit(s) (0%; the stated bound is 5%; the error "
        "rate is at most 78% at 95% confidence), in 15 s."
    )


def test_a_missed_change_says_why_and_a_named_aa_culprit_gives_its_binomial_tail():
    found = _found(history_commit=NAN, history_needs=math.inf, culprit=7.0)
    text = history_said.short_history_said(
        _trial(found, {"culprit": [3.0, NAN, NAN, NAN]}, need=math.inf), count=3
    ).text
    assert "no number of commits would report it; the +30%'s +14.2% in run time is under 2 noise SDs" in text
    assert "The sweep's history found none of them" in text and "with 1 wrong culprit(s)" in text
    # 1 or more of 4 at 5%: 1 - 0.95^4 = 0.185; Clopper-Pearson upper bound of 1 in 4 from the beta quantile
    from scipy import stats

    assert f"1 or more of 4 at the bound has probability {1 - 0.95**4:.2f}" in text
    assert f"the error rate is at most {stats.beta.ppf(0.95, 2, 3):.0%} at 95% confidence" in text
    finite = history_said.short_history_said(_trial(_found(history_commit=NAN), {"culprit": []}), count=3).text
    # 5 commits before the only planted change and 5 after it, in the 10 the sweep measured
    assert "needs about 8 commits on each side, and it had 5 and 5" in finite
    assert finite.endswith("No bisect of a range without a change started within its budget.")
    scalars = history_said.short_scalars(_trial(_found(), {"culprit": []}, need=math.inf))
    assert scalars["commits_for_threshold"] is None and scalars["noise"] == pytest.approx(0.012)


def test_the_method_is_read_from_where_it_is_used():
    from perfstudy.changes import HistorySettings

    method = hv.method()
    assert (method["fdr"], method["threshold"], method["widths"]) == (0.05, 0.01, list(HistorySettings().widths))
    # Treeherder's perfalert: windows 12/24/12, t > 7, a 2% alert threshold; the planted sizes of the notebook's text
    assert method["perfherder"] == dict(min_back=12, max_back=24, fore=12, t=7.0, alert_percent=2.0)
    assert (method["step_sds"], method["ramp_points"], method["spread_factor"], method["spike_sds"]) == (
        3.0,
        50,
        3.0,
        10.0,
    )
