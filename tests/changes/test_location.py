"""Where a change may be: Hansen's likelihood-ratio set for a change's location, and history's commit range."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from perfstudy.changes import format_history, history
from perfstudy.changes._location import location_range, location_threshold


def test_the_bound_is_hansens_quantile():
    # Hansen (2000), Table 1: the 95% critical value of the location LR is 7.35; the limit's CDF is (1 - e^{-x/2})^2
    assert location_threshold(0.95) == pytest.approx(7.35, abs=0.005)
    for c in (0.8, 0.9, 0.99):
        assert (1 - math.exp(-location_threshold(c) / 2)) ** 2 == pytest.approx(c, rel=1e-12)


def _slow_set(y, confidence):
    """Every split's residual sum of squares about two means, one split at a time."""
    n = len(y)
    ssr = {j: ((y[:j] - y[:j].mean()) ** 2).sum() + ((y[j:] - y[j:].mean()) ** 2).sum() for j in range(1, n)}
    best = min(ssr.values())
    s2 = best / (n - 2)
    return [j for j, s in ssr.items() if (s - best) / s2 <= location_threshold(confidence)]


def test_the_range_is_the_hull_of_the_slow_set_and_holds_the_named_commit():
    rng = np.random.default_rng(4)
    for _ in range(50):
        y = np.r_[rng.normal(0, 1, 9), rng.normal(2, 1, 11)] + 1e6  # a large level: no digits lost
        inside = _slow_set(y, 0.9)
        k = int(rng.integers(1, 20))
        first, last = location_range(y, k, 0.9)
        assert (first, last) == (min(*inside, k), max(*inside, k))


def test_coverage_is_at_least_the_stated_confidence_in_simulation():
    # 2,000 series of 10 + 10 Gaussian commits, a 2-SD step at 10; the set claims 95%. The MC SE of a
    # coverage near 0.96 is sqrt(.96 .04 / 2000) = 0.0044: 3 SE below 95% is 0.937.
    rng = np.random.default_rng(11)
    held = 0
    for _ in range(2000):
        y = np.r_[rng.standard_normal(10), 2 + rng.standard_normal(10)]
        first, last = location_range(y, 10, 0.95)
        held += first <= 10 <= last
    assert held / 2000 >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / 2000)


def test_a_large_step_is_one_commit_and_a_short_window_has_no_range():
    y = np.r_[np.zeros(8), np.full(8, 50.0)] + np.tile([0.1, -0.1], 8)
    assert location_range(y, 8, 0.95) == (8, 8)
    assert location_range(np.array([1.0, 2.0, 3.0]), 1, 0.95) == (1, 1)
    with pytest.raises(ValueError, match="not a boundary"):
        location_range(y, 0, 0.95)


def test_history_gives_each_change_point_a_commit_range_that_holds_the_step():
    # 30 commits, a +10% step at commit 12 with 4% noise between commits (2.5 SDs): the history names a commit,
    # and its range holds commit 12 in each of 20 seeds (coverage 95%: 20 of 20 has probability 0.36 even at
    # exactly 95%, so the assertion allows two misses: P(more than 2 of 20 miss) = 0.075 at 95%)
    missed = found_in = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        level = np.where(np.arange(30) >= 12, 1.10, 1.0)
        frame = pd.DataFrame(
            {"commit": [f"c{i:02d}" for i in range(30)], "value": 100 * level * np.exp(rng.normal(0, 0.04, 30))}
        )
        found = history(frame, benchmark=None, threshold=0.05)
        cp = found.change_points
        if cp.empty:
            continue
        row = cp.iloc[0]
        found_in += 1
        assert row.range_first_index <= row.commit_index <= row.range_last_index
        assert row.range_first == f"c{row.range_first_index:02d}" and row.range_last == f"c{row.range_last_index:02d}"
        missed += not row.range_first_index <= 12 <= row.range_last_index
    assert found_in >= 15 and missed <= 2  # 19 of 20 found when written
    out = json.loads(format_history(found, "json"))
    point = out["change_points"][0]
    assert point["commit_range"] == [point["range_first"], point["range_last"]]
    table = format_history(found, "table")
    assert "may be in" in table and ("commits)" in table or "this commit only" in table)
