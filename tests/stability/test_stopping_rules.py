import numpy as np
import pytest
from scipy import stats

from perfstudy.stability.stopping_rules import _alike, repetitiveness, sota1, sota2


def test_window_similarity_matches_mann_whitney_and_cliffs_delta():
    rng = np.random.default_rng(0)
    new = rng.normal(size=8)
    old = rng.normal(0.8, 1, size=(30, 8))
    ours = _alike(new, old, alpha=0.05, effect=0.147)
    for row, alike in zip(old, ours):
        p = stats.mannwhitneyu(new, row, use_continuity=False, method="asymptotic").pvalue
        delta = (np.sum(new[:, None] > row[None, :]) - np.sum(new[:, None] < row[None, :])) / 64
        assert alike == ((p >= 0.05) or (abs(delta) < 0.147))
    assert 0 < ours.sum() < 30  # both outcomes occur


def test_repetitiveness_and_sota1():
    rng = np.random.default_rng(1)
    alternating = np.concatenate([rng.normal(0 if k % 2 == 0 else 10, 1, 20) for k in range(12)])
    shares = repetitiveness(alternating, 20)
    # windows A B A B ...: after A B A two of three windows are repeated, from the fourth on all are
    assert shares[:3].tolist() == [0, 0, pytest.approx(2 / 3)] and np.all(shares[3:] == 1)
    result = sota1(alternating, period=20, span=60)
    assert result.stopped and result.runs == 140  # windows 4..7 (a 60-run span back from 7) all at 1
    assert sota1(alternating, period=20, span=80).runs == 160  # the 2/3 -> 1 step must leave the span
    # no window is ever like another: repetitiveness stays 0, which the rule reads as "stopped
    # changing" at the first full span; the early stop He et al. report for SOTA1
    rising = np.arange(400.0) + rng.normal(0, 0.01, 400)
    early = sota1(rising, period=20, span=60)
    assert early.stopped and early.runs == 80 and early.checks.repetitiveness.max() == 0


def test_sota2_against_a_loop():
    x = np.random.default_rng(2).lognormal(0, 0.3, 600)
    result = sota2(x, step=200, margin=0.5, replicates=100, rng=3)
    assert result.stopped and result.runs == 200
    rng = np.random.default_rng(3)
    sample = x[:200]
    q = np.arange(1, 100)
    boot = np.array([np.percentile(sample[rng.integers(0, 200, 200)], q) for _ in range(100)])
    lower, upper = np.quantile(boot, [0.025, 0.975], axis=0)
    observed = np.percentile(sample, q)
    worst = np.max(np.maximum(observed - lower, upper - observed) / observed)
    assert result.checks.worst_relative_half_width.iloc[0] == pytest.approx(worst, rel=1e-12)
    strict = sota2(x, step=200, margin=0.001, replicates=100, rng=3)
    assert not strict.stopped and strict.runs == 600 and len(strict.checks) == 3


def test_bad_input():
    with pytest.raises(ValueError, match="NaN"):
        sota2(np.r_[np.arange(10.0), np.nan], step=5)
    with pytest.raises(ValueError, match="span"):
        sota1(np.arange(100.0), period=10, span=5)
    with pytest.raises(ValueError, match="margin"):
        sota2(np.arange(100.0), step=10, margin=0)
