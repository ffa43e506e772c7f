import math

import numpy as np
import pytest
from scipy import stats

from perfstudy.design.bootstrap import (
    _cell_weights,
    _cells,
    _prepare,
    _replicate_deltas,
    clustered_bootstrap,
    clustered_bootstraps,
    host_blocks,
)
from perfstudy.design.schedules import schedule


def naive_replicates(y, version, obs_weights):
    """Straightforward loops: for each experiment and replicate, weighted means per condition."""
    out = np.empty((y.shape[0], obs_weights.shape[0]))
    for e in range(y.shape[0]):
        for r in range(obs_weights.shape[0]):
            w = obs_weights[r]
            treated = np.sum(w * y[e] * (version == 1)) / np.sum(w * (version == 1))
            control = np.sum(w * y[e] * (version == 0)) / np.sum(w * (version == 0))
            out[e, r] = treated - control
    return out


def observation_weights(cells, cell_weights, version, codes):
    """Expand cell weights back to observations by matching each observation's key, by hand."""
    keys = list(zip(*codes, version)) if codes else [(i, v) for i, v in enumerate(version)]
    cell_keys = (
        list(zip(*cells.factor_codes, cells.version))
        if codes
        else [(i, v) for i, v in zip(cells.factor_codes[0], cells.version)]
    )
    index = {k: j for j, k in enumerate(cell_keys)}
    return cell_weights[:, [index[k] for k in keys]]


@pytest.mark.parametrize("clusters", ["iid", "host", "request", "multiway"])
def test_engine_equals_naive_loop(clusters):
    sched = schedule("fully_balanced", requests=6, hosts=3, repetitions=2)
    rng = np.random.default_rng(0)
    y = rng.normal(size=(4, sched.observations))
    labels = {"iid": None, "host": sched.host, "request": sched.request, "multiway": (sched.host, sched.request)}[
        clusters
    ]
    y2, _, version, codes = _prepare(y, sched.version, labels)
    cells = _cells(version, codes)
    weights, _ = _cell_weights(cells, 50, "poisson", np.random.default_rng(1))
    fast = _replicate_deltas(y2, cells, weights)["weights"]
    slow = naive_replicates(y, sched.version, observation_weights(cells, weights, version, codes))
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-12)


def test_multiway_weight_is_the_product_of_level_weights():
    sched = schedule("fully_balanced", requests=4, hosts=2)
    _, _, version, codes = _prepare(np.zeros(sched.observations), sched.version, (sched.host, sched.request))
    cells = _cells(version, codes)
    rng = np.random.default_rng(5)
    weights, redrawn = _cell_weights(cells, 3, "exponential", rng)
    again = np.random.default_rng(5)
    host_w = again.standard_exponential((3, 2))
    request_w = again.standard_exponential((3, 4))
    expected = host_w[:, cells.factor_codes[0]] * request_w[:, cells.factor_codes[1]]
    assert redrawn == 0
    np.testing.assert_allclose(weights, expected)


def linearised_se(y, version, labels):
    """Delta-method SE of the reweighted difference in means for mean-one, variance-one weights.

    delta* ~= delta + sum_c (w_c - 1) (e_c1 / N1 - e_c0 / N0), e_cd = sum over cluster c and
    condition d of (y - mean_d); the clusters' weights are independent with variance 1.
    """
    total = 0.0
    n1, n0 = (version == 1).sum(), (version == 0).sum()
    resid = np.where(version == 1, y - y[version == 1].mean(), y - y[version == 0].mean())
    for c in np.unique(labels):
        e1 = resid[(labels == c) & (version == 1)].sum()
        e0 = resid[(labels == c) & (version == 0)].sum()
        total += (e1 / n1 - e0 / n0) ** 2
    return math.sqrt(total)


@pytest.mark.parametrize(
    "design,factor",
    [("unbalanced", "host"), ("fully_balanced", "host"), ("request_balanced", "request"), ("host_balanced", None)],
)
@pytest.mark.parametrize("weights", ["poisson", "exponential", "uniform"])
def test_bootstrap_se_matches_the_delta_method(design, factor, weights):
    # every law estimates the delta method's SE: Uniform(0, 2)'s variance of 1/3 is scaled away
    # 40 clusters per condition keeps the ratio's nonlinearity small (O(1/C), ~1%); with 20,000
    # replicates the SD estimate has relative MC error 1/sqrt(2 * 20000) = 0.5%. Tolerance 4%.
    sched = schedule(design, requests=80, hosts=80 if design in ("host_balanced", "fully_balanced") else 80)
    y = (
        np.random.default_rng(3).normal(size=sched.observations)
        + 0.5 * np.random.default_rng(4).normal(size=sched.host.max() + 1)[sched.host]
    )
    labels = None if factor is None else getattr(sched, factor)
    result = clustered_bootstrap(y, sched.version, labels, replicates=20_000, weights=weights, rng=8)
    reference = linearised_se(y, sched.version, np.arange(y.size) if labels is None else labels)
    assert result.standard_error == pytest.approx(reference, rel=0.04)


def test_iid_bootstrap_type1_error_is_nominal():
    # iid normal A/A data, 4,000 experiments of 2 x 100 observations; the rate's binomial MC error is
    # sqrt(.05 * .95 / 4000) = 0.34 pp; tolerance 4 MC errors (plus O(1/n) bias of the normal interval)
    rng = np.random.default_rng(11)
    version = np.repeat([0, 1], 100)
    y = rng.normal(size=(4000, 200))
    result = clustered_bootstrap(y, version, replicates=400, rng=12)
    low, high = result.confidence_interval(0.95)
    rate = np.mean((low > 0) | (high < 0))
    assert abs(rate - 0.05) < 4 * math.sqrt(0.05 * 0.95 / 4000)


def test_confidence_intervals():
    rng = np.random.default_rng(2)
    version = np.repeat([0, 1], 30)
    y = rng.normal(size=60)
    r = clustered_bootstrap(y, version, np.arange(60) // 3, replicates=500, rng=3)
    assert isinstance(r.estimate, float) and r.distribution.shape == (500,)
    assert r.estimate == pytest.approx(y[30:].mean() - y[:30].mean())
    assert r.standard_error == pytest.approx(r.distribution.std(ddof=1))
    low, high = r.confidence_interval(0.9)
    assert (low, high) == pytest.approx(
        (r.estimate - 1.6448536 * r.standard_error, r.estimate + 1.6448536 * r.standard_error)
    )
    assert r.confidence_interval(0.9, "percentile") == pytest.approx(tuple(np.quantile(r.distribution, [0.05, 0.95])))
    assert r.clusters_per_condition == (10, 10)
    t_low, _ = r.confidence_interval(0.9, "t")
    assert t_low == pytest.approx(r.estimate - stats.t.ppf(0.95, 9) * r.standard_error)
    with pytest.raises(ValueError, match="confidence"):
        r.confidence_interval(1.5)
    with pytest.raises(ValueError, match="method"):
        r.confidence_interval(0.9, "bca")
    assert list(r.to_frame().columns) == ["estimate", "standard_error", "low", "high"]


def test_zero_weight_replicates_are_redrawn_not_nan():
    # two clusters per condition: a Poisson replicate leaves a condition empty with prob.
    # 1 - (1 - e^-2)^2 = 25%; those replicates are redrawn
    version = np.repeat([0, 1], 4)
    y = np.arange(8.0)
    r = clustered_bootstrap(y, version, np.array([0, 0, 1, 1, 2, 2, 3, 3]), replicates=20_000, rng=0)
    assert np.all(np.isfinite(r.distribution)) and r.distribution.size == 20_000
    # every draw fails independently with p = 0.2524: failed / all draws within 4 binomial errors
    p, draws = 1 - (1 - math.exp(-2)) ** 2, 20_000 + r.redrawn
    assert r.redrawn / draws == pytest.approx(p, abs=4 * math.sqrt(p * (1 - p) / draws))


def test_host_blocks():
    s = schedule("request_balanced", requests=8, hosts=4)
    blocks = host_blocks(s.host, s.request)
    # host h serves the control and h + 2 the treatment of the same requests: blocks {0, 2}, {1, 3}
    assert np.unique(blocks).size == 2
    assert all(np.unique(blocks[s.host == h]).size == 1 for h in range(4))
    assert blocks[s.host == 0][0] == blocks[s.host == 2][0] != blocks[s.host == 1][0]
    # transitive: host 0 and 1 share request 5, host 1 and 2 share request 6
    chained = host_blocks(np.array([0, 1, 1, 2, 3]), np.array([5, 5, 6, 6, 7]))
    assert list(chained) == [0, 0, 0, 0, 1]


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(y=np.ones(5)), "version: expected 5 entries"),
        (dict(clusters=np.arange(3)), "clusters: expected 6 labels"),
        (dict(clusters=(np.arange(6), np.arange(2))), "clusters\\[1\\]"),
        (dict(clusters=np.array([0, 0, 0, 1, 2, 3])), "condition 0 has a single cluster"),
        (dict(y=np.array([1, 2, np.nan, 4, 5, 6.0])), "NaN or inf"),
        (dict(y=np.array([1, 2, np.inf, 4, 5, 6.0])), "NaN or inf"),
        (dict(replicates=1), "replicates=1"),
        (dict(weights="gamma"), "weights='gamma'"),
        (dict(version=np.zeros(6)), "both conditions"),
        (dict(version=np.array([0, 1, 2, 0, 1, 0])), "version: expected 0"),
        (dict(clusters=()), "empty tuple"),
    ],
)
def test_bad_input(kwargs, match):
    args = dict(y=np.arange(6.0), version=np.array([0, 0, 0, 1, 1, 1]), clusters=None)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        clustered_bootstrap(args.pop("y"), args.pop("version"), args.pop("clusters"), **args)


def test_counts_denominator_matches_its_closed_form():
    # with iid Poisson(1) weights and fixed denominators, delta* = sum w y_1 / N - sum w y_0 / M has
    # variance sum y_1^2 / N^2 + sum y_0^2 / M^2 exactly; 20,000 replicates give the SD a relative MC
    # error of 1/sqrt(2 * 20000) = 0.5%, tolerance 2.5%
    rng = np.random.default_rng(21)
    version = np.repeat([0, 1], 50)
    y = 3.0 + rng.normal(size=100)
    result = clustered_bootstrap(y, version, replicates=20_000, denominator="counts", rng=22)
    exact = math.sqrt((y[version == 1] ** 2).sum() / 50**2 + (y[version == 0] ** 2).sum() / 50**2)
    assert result.standard_error == pytest.approx(exact, rel=0.025)
    assert result.denominator == "counts"


def test_summed_weights_do_not_see_a_constant_and_counts_do():
    rng = np.random.default_rng(23)
    host = np.repeat(np.arange(8), 10)
    version = (host >= 4).astype(int)
    y = rng.normal(size=80) + rng.normal(size=8)[host]
    args = dict(replicates=500, rng=24)
    base = clustered_bootstrap(y, version, host, **args)
    moved = clustered_bootstrap(y + 100.0, version, host, **args)
    assert moved.standard_error == pytest.approx(base.standard_error, rel=1e-9)
    counts = clustered_bootstrap(y, version, host, denominator="counts", **args)
    counts_moved = clustered_bootstrap(y + 100.0, version, host, denominator="counts", **args)
    assert counts_moved.standard_error > 10 * counts.standard_error
    with pytest.raises(ValueError, match="denominator='sum'"):
        clustered_bootstrap(y, version, host, denominator="sum", **args)


@pytest.mark.parametrize("weights", ["poisson", "uniform"])
@pytest.mark.parametrize("experiments", [None, 3])
def test_several_denominators_from_one_draw_are_each_ones_own_bootstrap(weights, experiments):
    """One draw of weights and one weighted sum serve both denominators: each result is, bit for bit, what
    clustered_bootstrap gives alone with the same seed; and the counts one is the naive loop's divided by N."""
    rng = np.random.default_rng(25)
    host = np.repeat(np.arange(8), 5)
    version = (host % 2).astype(int)
    shape = (40,) if experiments is None else (experiments, 40)
    y = 2.0 + rng.normal(size=shape)
    both = clustered_bootstraps(y, version, host, replicates=60, weights=weights, rng=26)
    assert list(both) == ["weights", "counts"]
    for denominator, result in both.items():
        alone = clustered_bootstrap(y, version, host, replicates=60, weights=weights, denominator=denominator, rng=26)
        assert result.denominator == denominator
        np.testing.assert_array_equal(result.distribution, alone.distribution)
        np.testing.assert_array_equal(result.standard_error, alone.standard_error)
        assert result.redrawn == alone.redrawn and result.clusters_per_condition == alone.clusters_per_condition
    # the counts replicates by hand: sum w y over the condition's count, treatment minus control
    y2, _, v, codes = _prepare(y, version, host)
    cells = _cells(v, codes)
    w, _ = _cell_weights(cells, 60, "poisson", np.random.default_rng(1))
    per_obs = observation_weights(cells, w, v, codes)
    by_hand = (y2 * (v == 1)) @ per_obs.T / (v == 1).sum() - (y2 * (v == 0)) @ per_obs.T / (v == 0).sum()
    np.testing.assert_allclose(_replicate_deltas(y2, cells, w, ("counts",))["counts"], by_hand, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "denominators, error, match",
    [("counts", TypeError, "denominators='counts'"), ((), TypeError, "non-empty"),
     (("counts", "counts"), ValueError, "each at most once"), (("weights", "sum"), ValueError, "'sum' is not one of")],
)  # fmt: skip
def test_several_denominators_refuse_bad_ones_by_name(denominators, error, match):
    with pytest.raises(error, match=match):
        clustered_bootstraps(np.arange(8.0), np.repeat([0, 1], 4), denominators=denominators, replicates=10, rng=0)
