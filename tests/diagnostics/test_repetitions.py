import numpy as np
import pytest
from scipy import stats

from perfstudy.diagnostics import repetitions as confirm_module
from perfstudy.diagnostics.repetitions import median_ci, median_ci_indices, repetitions_needed


def test_order_statistic_indices_by_hand():
    # n = 10, 95%: z = 1.95996; (10 - 1.95996 sqrt 10)/2 = 1.901 -> 1; 1 + (10 + 6.198)/2 = 9.099 -> 10
    assert tuple(int(i) for i in median_ci_indices(10)) == (1, 10)
    # n = 100: (100 - 19.6)/2 = 40.2 -> 40; 1 + 119.6/2 = 60.8 -> 61 (Le Boudec's table: 40, 61)
    assert tuple(int(i) for i in median_ci_indices(100)) == (40, 61)
    # n = 30, 90%: z = 1.64485; (30 - 9.009)/2 = 10.495 -> 10; 1 + 39.009/2 = 20.50 -> 21
    assert tuple(int(i) for i in median_ci_indices(30, 0.90)) == (10, 21)
    # CONFIRM's rounding, n = 100: rint(50 - 9.8) = 40 -> 41 (1-based); rint(1 + 50 + 9.8) = 61 -> 62
    assert tuple(int(i) for i in median_ci_indices(100, method="confirm")) == (41, 62)
    ci = median_ci(np.arange(1.0, 101.0))
    assert (ci.low, ci.median, ci.high, ci.lower_index, ci.upper_index) == (40.0, 50.5, 61.0, 40, 61)
    with pytest.raises(ValueError, match="too few"):
        median_ci(np.arange(5.0))
    with pytest.raises(ValueError, match="method="):
        median_ci(np.arange(50.0), method="exact")


def test_median_ci_coverage_on_skewed_data():
    # lognormal(0, 1), n = 50, true median 1. The order-statistic interval is conservative: its exact
    # coverage is P(l <= B <= u - 1), B ~ Binomial(50, 1/2), = 0.9672 for (l, u) = (18, 33).
    # 4,000 samples: Monte Carlo SE sqrt(0.967 0.033 / 4000) = 0.0028; allow 4 of them.
    rng = np.random.default_rng(0)
    samples = rng.lognormal(0, 1, size=(4000, 50))
    low, high = median_ci_indices(50)
    exact = stats.binom.cdf(high - 1, 50, 0.5) - stats.binom.cdf(low - 1, 50, 0.5)
    ordered = np.sort(samples, axis=1)
    covered = (ordered[:, low - 1] <= 1.0) & (1.0 <= ordered[:, high - 1])
    assert exact == pytest.approx(0.9672, abs=1e-4)
    assert abs(covered.mean() - exact) < 4 * np.sqrt(exact * (1 - exact) / 4000)
    assert exact >= 0.95


def slow_confirm(x, error, confidence, trials, start, stop, rng):
    """The published procedure, literally: for each size, `trials` subsets without replacement."""
    median = np.median(x)
    curve = []
    for s in range(start, stop):
        lo, hi = (int(i) for i in median_ci_indices(s, confidence))
        if lo < 1 or hi > s:
            continue
        bounds = np.array([np.sort(rng.choice(x, s, replace=False))[[lo - 1, hi - 1]] for _ in range(trials)])
        curve.append((s, *bounds.mean(axis=0)))
    curve = np.array(curve)
    inside = (curve[:, 1] >= median * (1 - error)) & (curve[:, 2] <= median * (1 + error))
    return curve, (int(curve[np.argmax(inside), 0]) if inside.any() else None)


def test_repetitions_needed_against_the_slow_procedure():
    rng = np.random.default_rng(1)
    x = rng.lognormal(0, 0.05, 300)
    fast = repetitions_needed(x, error=0.01, trials=400, rng=2)
    curve, estimate = slow_confirm(x, 0.01, 0.95, 400, 10, 300, np.random.default_rng(3))
    ours = fast.to_frame().set_index("size").loc[curve[:, 0].astype(int)]
    # both are means of 400 random bounds: their difference has SD ~ sqrt(2/400) x the bound's SD
    # across subsets (< 0.02 here); allow 0.004 on values near 1 with a 5% spread
    assert np.max(np.abs(ours.mean_low.to_numpy() - curve[:, 1])) < 0.004
    assert np.max(np.abs(ours.mean_high.to_numpy() - curve[:, 2])) < 0.004
    assert fast.estimate is not None and abs(fast.estimate - estimate) <= 0.15 * estimate


def test_repetitions_needed_scales_with_spread_and_says_when_n_is_not_enough():
    rng = np.random.default_rng(4)
    base = rng.lognormal(0, 1, 3000)
    tight = repetitions_needed(1 + 0.02 * (base - 1), rng=5)
    loose = repetitions_needed(1 + 0.04 * (base - 1), rng=5)
    # the CI half-width scales with spread / sqrt(s): twice the spread, about four times the runs
    assert 3 < loose.estimate / tight.estimate < 5
    assert repetitions_needed(rng.lognormal(0, 1, 200), rng=6).estimate is None
    with pytest.raises(ValueError, match="at least 10"):
        repetitions_needed(np.arange(1.0, 9.0))
    with pytest.raises(ValueError, match="NaN"):
        repetitions_needed(np.r_[np.arange(1.0, 20.0), np.nan])
    with pytest.raises(ValueError, match="median is 0"):
        repetitions_needed(np.r_[np.zeros(11), np.ones(10)])


def test_max_size_bounds_the_search():
    x = np.random.default_rng(7).lognormal(0, 0.05, 2000)
    full = repetitions_needed(x, rng=8)
    capped = repetitions_needed(x, max_size=full.estimate - 1, rng=8)
    assert capped.estimate is None and capped.sizes[-1] == full.estimate - 1
    assert repetitions_needed(x, max_size=full.estimate + 50, rng=9).estimate == pytest.approx(full.estimate, rel=0.1)


@pytest.mark.parametrize("n", [12, 40, 64, 300])
def test_sorted_runs_sorted_lists_and_fenwick_trees_give_the_same_bounds(n, monkeypatch):
    """Three ways to the same order statistics: one sort per size (up to DIRECT_MAX_RUNS runs), a sorted list
    per trial (up to INSORT_MAX_RUNS), Fenwick trees beyond; forced onto each, equal to the last bit."""
    x = np.random.default_rng(n).lognormal(0, 0.05, n)
    results = []
    for direct, insort in ((n, n), (0, n), (0, 0)):
        monkeypatch.setattr(confirm_module, "DIRECT_MAX_RUNS", direct)
        monkeypatch.setattr(confirm_module, "INSORT_MAX_RUNS", insort)
        results.append(repetitions_needed(x, error=0.02, trials=50, rng=3))
    for other in results[1:]:
        assert other.estimate == results[0].estimate
        assert np.array_equal(other.mean_low, results[0].mean_low, equal_nan=True)
        assert np.array_equal(other.mean_high, results[0].mean_high, equal_nan=True)
