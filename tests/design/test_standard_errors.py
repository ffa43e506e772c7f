import itertools
import math

import numpy as np
import pytest
from conftest import brute_force_variance

from perfstudy.design.model import PERFLAB_ENDPOINTS, VarianceComponents
from perfstudy.design.schedules import BATCHES, DESIGNS, Schedule, schedule
from perfstudy.design.standard_errors import (
    CostModel,
    compare_designs,
    duplication_coefficients,
    optimal_allocation,
    standard_error,
    variance_from_schedule,
)

# A components set with every sigma distinct, so that a swapped term cannot cancel out.
DISTINCT = VarianceComponents(request=0.9, host=0.35, request_batch=0.2, host_batch=0.15, noise=0.4)


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("requests,hosts,repetitions", [(8, 4, 1), (12, 6, 3), (32, 8, 2)])
def test_closed_form_equals_eq5(design, requests, hosts, repetitions):
    # R is a multiple of the hosts per condition here, so host loads are equal (section 4.2.1)
    s = schedule(design, requests=requests, hosts=hosts, repetitions=repetitions)
    closed = standard_error(design, DISTINCT, requests=requests, hosts=hosts, repetitions=repetitions)
    assert closed**2 == pytest.approx(variance_from_schedule(s, DISTINCT), rel=1e-12)


@pytest.mark.parametrize("design", DESIGNS)
def test_eq5_against_brute_force_covariance(design):
    s = schedule(design, requests=6, hosts=4 if BATCHES[design] == 2 else 4, repetitions=2)
    brute = brute_force_variance(
        s.request.tolist(), s.host.tolist(), s.batch.tolist(), s.version.tolist(), DISTINCT.sigmas
    )
    assert variance_from_schedule(s, DISTINCT) == pytest.approx(brute, rel=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_eq5_on_random_custom_schedules(seed):
    # arbitrary schedules: requests on several hosts and batches, shared host-batches across versions
    rng = np.random.default_rng(seed)
    n = 20
    version = np.repeat([0, 1], n // 2)
    rng.shuffle(version)
    s = Schedule(
        request=rng.integers(0, 6, n), host=rng.integers(0, 3, n), batch=rng.integers(0, 2, n), version=version
    )
    brute = brute_force_variance(
        s.request.tolist(), s.host.tolist(), s.batch.tolist(), s.version.tolist(), DISTINCT.sigmas
    )
    assert variance_from_schedule(s, DISTINCT) == pytest.approx(brute, rel=1e-12)


def test_eq5_needs_equal_conditions():
    s = Schedule(request=[0, 1, 2], host=[0, 0, 1], batch=[0, 0, 0], version=[0, 0, 1])
    with pytest.raises(ValueError, match="same number of observations"):
        variance_from_schedule(s, DISTINCT)


def test_duplication_coefficients_section_4_2():
    # section 4.2: single batch nu_H = 2RT/H, two batches nu_H = RT/H; nu_R = T;
    # omega_R = T when requests are shared (RB, FB), omega_H = RT/H when hosts are shared (HB, FB)
    r, h, t = 24, 6, 3
    expected = {
        "unbalanced": (t, 2 * r * t / h, 0, 0),
        "request_balanced": (t, 2 * r * t / h, t, 0),
        "host_balanced": (t, r * t / h, 0, r * t / h),
        "fully_balanced": (t, r * t / h, t, r * t / h),
    }
    for design, (nu_r, nu_h, omega_r, omega_h) in expected.items():
        d = duplication_coefficients(schedule(design, requests=r, hosts=h, repetitions=t))
        assert (d.nu_R, d.nu_H, d.omega_R, d.omega_H) == pytest.approx((nu_r, nu_h, omega_r, omega_h))
        assert d.nu["request"][0] == d.nu["request"][1]
        assert len(d.to_frame()) == 4


def test_table_3_se_column(endpoint1):
    # Table 3 ("SE" column; endpoint 1, 16 hosts, 512 requests per condition, T = 1):
    # unbalanced 0.10, request-balanced 0.07, host-balanced 0.07, fully balanced 0.03
    table_3 = {"unbalanced": 0.10, "request_balanced": 0.07, "host_balanced": 0.07, "fully_balanced": 0.03}
    for design, printed in table_3.items():
        se = standard_error(design, endpoint1, requests=512, hosts=16)
        assert round(se, 2) == printed
    # and by hand from section 4.2.1, unbalanced:
    # 2 * ((1.02^2 + 0.10^2)/512 + 2/16 (0.12^2 + 0.08^2) + 0.13^2/512)
    by_hand = 2 * ((1.02**2 + 0.10**2) / 512 + 2 / 16 * (0.12**2 + 0.08**2) + 0.13**2 / 512)
    assert standard_error("unbalanced", endpoint1, requests=512, hosts=16) == pytest.approx(math.sqrt(by_hand))


def test_standard_error_broadcasts(endpoint1):
    grid = standard_error("fully_balanced", endpoint1, requests=[[100], [1000]], hosts=[4, 8, 16])
    assert grid.shape == (2, 3)
    assert grid[0, 0] == standard_error("fully_balanced", endpoint1, requests=100, hosts=4)
    assert np.all(np.diff(grid, axis=0) < 0) and np.all(np.diff(grid, axis=1) < 0)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(design="random", requests=10, hosts=2), "design='random'"),
        (dict(design="unbalanced", requests=0, hosts=2), "requests"),
        (dict(design="unbalanced", requests=10, hosts=5), "hosts.*even"),
        (dict(design="host_balanced", requests=10, hosts=11), "hosts"),
        (dict(design="host_balanced", requests=10.5, hosts=2), "requests"),
    ],
)
def test_standard_error_bad_input(kwargs, match, endpoint1):
    design = kwargs.pop("design")
    with pytest.raises((ValueError, TypeError), match=match):  # a fraction for a count: TypeError, as check_int
        standard_error(design, endpoint1, **kwargs)


COSTS = CostModel(setup=200.0, request=3.0, repetition=1.0, host=25.0)


def brute_force_allocation(design, components, costs, budget, target, hosts, max_t):
    """Enumerate every (R, T, H) with R up to 5000: (objective, R, T, H) of the best, or None."""
    best = None
    for h, t in itertools.product(hosts, range(1, max_t + 1)):
        if BATCHES[design] == 1 and h % 2:
            continue
        r = np.arange(h // 2 if BATCHES[design] == 1 else h, 5000)
        cost = costs.cost(design, requests=r, hosts=h, repetitions=t)
        se = standard_error(design, components, requests=r, hosts=h, repetitions=t)
        ok = np.ones(r.size, bool) if budget is None else cost <= budget
        if target is not None:
            ok &= se <= target
        if not ok.any():
            continue
        objective = np.where(ok, cost if target is not None else se, np.inf)
        i = int(np.argmin(objective))
        if best is None or objective[i] < best[0]:
            best = (objective[i], int(r[i]), t, h)
    return best


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("budget,target", [(3000.0, None), (None, 0.06), (6000.0, 0.05)])
def test_optimal_allocation_against_enumeration(design, budget, target):
    components = PERFLAB_ENDPOINTS[3]
    hosts = [2, 3, 4, 8]
    result = optimal_allocation(
        components, COSTS, budget=budget, target_se=target, hosts=hosts, max_repetitions=4, designs=[design]
    )
    brute = brute_force_allocation(design, components, COSTS, budget, target, hosts, 4)
    got = result[design]
    if brute is None:
        assert not got.feasible
        return
    assert got.feasible
    if target is None:
        assert got.standard_error == pytest.approx(brute[0], rel=1e-12)
    else:
        assert got.cost == pytest.approx(brute[0])
        assert got.standard_error <= target
    if budget is not None:
        assert got.cost <= budget


def test_optimal_allocation_picks_designs(endpoint1):
    costs = CostModel(setup=100, request=5, repetition=1, host=10)
    budgeted = optimal_allocation(endpoint1, costs, budget=10_000, hosts=[4, 8, 16, 32])
    assert budgeted.best == "fully_balanced"
    frame = budgeted.to_frame()
    assert list(frame.design) == list(DESIGNS) and frame.best.sum() == 1
    # rho = 0.98: where the request effect stays in the SE (unbalanced, host-balanced), repetitions
    # buy nothing and T = 1; where it cancels (request-, fully balanced), the noise is what is left
    # and repeating (C_m = 1 < C_f = 5) pays
    assert budgeted["unbalanced"].repetitions == 1 and budgeted["host_balanced"].repetitions == 1
    assert budgeted["request_balanced"].repetitions > 1 and budgeted["fully_balanced"].repetitions > 1
    targeted = optimal_allocation(endpoint1, costs, target_se=0.05, hosts=[4, 8, 16, 32])
    # the single-batch designs' host term 2/H (s_b^2 + s_e^2) alone exceeds 0.05^2 / 2 at 32 hosts
    assert not targeted["unbalanced"].feasible and not targeted["request_balanced"].feasible
    assert targeted.best == "fully_balanced"


def test_optimal_allocation_bad_input(endpoint1):
    with pytest.raises(ValueError, match="budget=10"):
        optimal_allocation(endpoint1, COSTS, budget=10.0)
    with pytest.raises(ValueError, match="budget, target_se"):
        optimal_allocation(endpoint1, COSTS)
    with pytest.raises(ValueError, match="target_se"):
        optimal_allocation(endpoint1, COSTS, target_se=-1.0)
    with pytest.raises(ValueError, match="designs="):
        optimal_allocation(endpoint1, COSTS, budget=1e4, designs=["fast"])
    with pytest.raises(ValueError, match="setup"):
        CostModel(setup=-1, request=1, repetition=1)
    with pytest.raises(ValueError, match="request, repetition"):
        CostModel(setup=1, request=0, repetition=0)


def test_cost_model_reduces_to_section_3_1_2():
    # one condition of section 3.1.2 costs S_f + R (C_f + T C_m); ours runs two conditions
    c = CostModel(setup=50, request=4, repetition=0.5)
    assert c.cost("unbalanced", requests=10, hosts=2, repetitions=3) == 50 + 2 * 10 * (4 + 3 * 0.5)
    assert c.cost("fully_balanced", requests=10, hosts=2, repetitions=3) == 100 + 2 * 10 * (4 + 3 * 0.5)


def test_compare_designs_and_render():
    comparison = compare_designs(
        PERFLAB_ENDPOINTS[1], requests=256, hosts=16, costs=CostModel(600, 2, 0.5, 60), target_se=0.05
    )
    frame = comparison.to_frame()
    assert list(frame.meets_target) == [False, False, False, True]
    assert comparison.cheapest == "fully_balanced"
    html = comparison._repr_html_()
    assert '<tr style="font-weight:bold"><td>fully balanced' in html
    assert "Cheapest way to meet it with 16 hosts" in html
    none_meet = compare_designs(PERFLAB_ENDPOINTS[1], requests=256, hosts=16, target_se=0.001)
    assert none_meet.cheapest is None and "No design meets" in none_meet._repr_html_()


def test_design_comparison_html_carries_the_cost_unit_or_none():
    from perfstudy import CostModel
    from perfstudy.design.standard_errors import compare_designs

    costs = CostModel(setup=600.0, request=2.0, repetition=0.5, host=60.0)
    comparison = compare_designs(PERFLAB_ENDPOINTS[1], requests=256, hosts=16, costs=costs, target_se=0.05)
    assert comparison._repr_html_() == comparison.to_html()
    assert "<th>cost</th>" in comparison.to_html()
    best = comparison.allocation[comparison.allocation.best]
    assert f"cost {best.cost:,.0f} h (SE" in comparison.to_html(cost_unit="h")
    assert "<th>cost (h)</th>" in comparison.to_html(cost_unit="h")
