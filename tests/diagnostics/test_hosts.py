import numpy as np
import pandas as pd
import pytest

from perfstudy.diagnostics.hosts import eliminate_unrepresentative, mmd_test, rank_hosts


def slow_mmd2(x, y, sigma):
    def k(a, b):
        return np.exp(-np.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=2) / (2 * sigma**2))

    m, n = len(x), len(y)
    kxx, kyy, kxy = k(x, x), k(y, y), k(x, y)
    return (kxx.sum() - np.trace(kxx)) / (m * (m - 1)) + (kyy.sum() - np.trace(kyy)) / (n * (n - 1)) - 2 * kxy.mean()


@pytest.mark.parametrize("shape", [(40,), (40, 3)])
def test_statistic_against_the_definition(shape):
    rng = np.random.default_rng(0)
    x = rng.normal(size=shape)
    y = rng.normal(0.3, 1.2, size=(55,) + shape[1:])
    result = mmd_test(x, y, permutations=50, rng=1)
    x2, y2 = x.reshape(len(x), -1), y.reshape(len(y), -1)
    assert result.statistic == pytest.approx(slow_mmd2(x2, y2, result.bandwidth), rel=1e-10)
    assert result.statistic == pytest.approx(mmd_test(y, x, permutations=50, rng=1).statistic, rel=1e-10)
    # every permuted statistic is the statistic of some relabelling: check one by brute force
    pooled = np.vstack([x2, y2])
    rng2 = np.random.default_rng(2)
    keys = rng2.random((1, len(pooled)))
    subset = np.argpartition(keys, len(x2) - 1, axis=1)[0, : len(x2)]
    rest = np.setdiff1d(np.arange(len(pooled)), subset)
    from scipy.spatial.distance import pdist, squareform

    from perfstudy.diagnostics.hosts import _statistics

    kernel = np.exp(-squareform(pdist(pooled, "sqeuclidean")) / (2 * result.bandwidth**2))
    permuted = _statistics(kernel, kernel.sum(1), kernel.sum(), subset[None, :])[0]
    assert permuted == pytest.approx(slow_mmd2(pooled[subset], pooled[rest], result.bandwidth), rel=1e-10)


def test_p_values_are_uniform_under_the_null_and_the_test_has_power():
    # 400 null tests (both samples N(0, 1), 30 + 30 points, 199 permutations): P(p <= 0.05) and
    # P(p <= 0.2) within 4 Monte Carlo SEs (0.044 and 0.080) of 0.05 and 0.2; a KS test against
    # U(0, 1) on the discrete p-values (grid 1/200) should not reject at 0.001.
    rng = np.random.default_rng(3)
    p = np.array(
        [mmd_test(rng.normal(size=30), rng.normal(size=30), permutations=199, rng=rng).p_value for _ in range(400)]
    )
    assert abs(np.mean(p <= 0.05) - 0.05) < 0.044
    assert abs(np.mean(p <= 0.2) - 0.2) < 0.080
    from scipy import stats

    assert stats.kstest(p, "uniform").pvalue > 0.001
    # a shift of half a standard deviation with 200 + 200 points: power ~1 (measured 100 of 100)
    power = np.mean(
        [
            mmd_test(rng.normal(size=200), rng.normal(0.5, 1, 200), permutations=199, rng=rng).p_value <= 0.05
            for _ in range(100)
        ]
    )
    assert power > 0.95


def _fleet(rng, servers=12, per=20, bad=None, shift=0.5):
    rows = []
    for s in range(servers):
        level = 1.0 + (shift if s == bad else 0.0)
        rows.append(
            pd.DataFrame(
                {"host": f"h{s:02d}", "latency": rng.normal(10 * level, 0.5, per), "bandwidth": rng.normal(100, 3, per)}
            )
        )
    return pd.concat(rows, ignore_index=True)


def test_ranking_puts_a_degraded_server_first_and_elimination_stops():
    rng = np.random.default_rng(4)
    fleet = _fleet(rng, bad=7, shift=0.1)
    ranking = rank_hosts(fleet, metrics=["latency", "bandwidth"], permutations=199, rng=5)
    assert ranking.host.iloc[0] == "h07" and ranking.p_value.iloc[0] < 0.01
    assert (
        list(ranking.columns) == ["host", "statistic", "p_value", "reject", "n", "n_used"] and (ranking.n == 20).all()
    )
    result = eliminate_unrepresentative(fleet, metrics=["latency", "bandwidth"], permutations=199, rng=6)
    assert result.removed[0] == "h07"
    assert len(result.curve) == len(result.removed) and (result.curve.p_value < 0.05).all()
    assert result.final_ranking.p_value.iloc[0] >= 0.05 or len(result.final_ranking) == 2
    none = eliminate_unrepresentative(fleet, metrics=["latency", "bandwidth"], max_remove=0, permutations=99, rng=6)
    assert none.removed == [] and len(none.final_ranking) == 12


def test_bad_input():
    rng = np.random.default_rng(7)
    fleet = _fleet(rng)
    with pytest.raises(ValueError, match=r"metrics='cpu': df has no such column"):
        rank_hosts(fleet, metrics=["cpu"])
    one = pd.concat([fleet, pd.DataFrame({"host": ["lonely"], "latency": [10.0], "bandwidth": [100.0]})])
    with pytest.raises(ValueError, match="fewer than 2 samples: \\['lonely'\\]"):
        rank_hosts(one, metrics=["latency"])
    holes = fleet.copy()
    holes.loc[3, "bandwidth"] = np.nan
    with pytest.raises(ValueError, match="missing values \\(servers \\['h00'\\]\\)"):
        rank_hosts(holes, metrics=["latency", "bandwidth"])
    with pytest.raises(ValueError, match="NaN"):
        mmd_test(np.r_[1.0, np.nan, 2.0], np.arange(5.0))
    with pytest.raises(ValueError, match="at least 2"):
        mmd_test(np.array([1.0]), np.arange(5.0))
    with pytest.raises(ValueError, match="2 metrics, y has 1"):
        mmd_test(np.ones((5, 2)), np.arange(5.0))


def test_large_servers_are_subsampled_and_say_so():
    rng = np.random.default_rng(8)
    fleet = _fleet(rng, servers=4, per=300, bad=2, shift=0.05)
    ranking = rank_hosts(fleet, metrics=["latency"], permutations=99, max_samples=50, rng=9)
    assert (ranking.n == 300).all() and (ranking.n_used == 50).all()
    assert ranking.host.iloc[0] == "h02"
    again = rank_hosts(fleet, metrics=["latency"], permutations=99, max_samples=50, rng=9)
    pd.testing.assert_frame_equal(ranking, again)
