import math

import numpy as np
import pytest

from perfstudy.design.model import (
    CHUNK_EXPERIMENTS,
    PERFLAB_ENDPOINTS,
    VarianceComponents,
    clustered_standard_error,
    design_effect,
    intraclass_correlation,
    sample_delta_hat,
    simulate,
)
from perfstudy.design.schedules import DESIGNS, schedule


def test_table_1_presets():
    # Table 1: (mu, sigma_alpha, sigma_beta, sigma_gamma, sigma_eta, sigma_eps) per endpoint
    table_1 = {
        1: (0.06, 1.02, 0.12, 0.10, 0.08, 0.13),
        2: (0.08, 1.08, 0.10, 0.05, 0.06, 0.08),
        3: (0.07, 1.02, 0.11, 0.04, 0.05, 0.06),
        4: (0.08, 1.08, 0.05, 0.05, 0.02, 0.06),
        5: (0.04, 1.08, 0.04, 0.01, 0.02, 0.14),
    }
    assert set(PERFLAB_ENDPOINTS) == set(table_1)
    for endpoint, row in table_1.items():
        c = PERFLAB_ENDPOINTS[endpoint]
        assert (c.mu, c.request, c.host, c.request_batch, c.host_batch, c.noise) == row
    with pytest.raises(TypeError):
        PERFLAB_ENDPOINTS[6] = PERFLAB_ENDPOINTS[1]


def test_rho_of_endpoint_1():
    # section 3.1.1: rho = s_a^2 / (s_a^2 + s_eps^2) = 1.0404 / (1.0404 + 0.0169)
    assert PERFLAB_ENDPOINTS[1].rho == pytest.approx(1.0404 / 1.0573, rel=1e-12)
    # "nearly all endpoints have values of rho between 0.8 and 0.97" (section 3.1.1)
    assert all(0.8 < c.rho < 0.999 for c in PERFLAB_ENDPOINTS.values())


@pytest.mark.parametrize(
    "field,value,error",
    [
        ("request", -0.1, ValueError),
        ("host", math.nan, ValueError),
        ("noise", math.inf, ValueError),
        ("mu", math.nan, ValueError),
        ("host_batch", "0.1", TypeError),
        ("request_batch", True, TypeError),
    ],
)
def test_variance_components_validation(field, value, error):
    kwargs = dict(request=1.0, host=0.1, request_batch=0.1, host_batch=0.1, noise=0.1)
    kwargs[field] = value
    with pytest.raises(error, match=field):
        VarianceComponents(**kwargs)


def test_negative_mu_is_allowed():
    assert VarianceComponents(1, 0, 0, 0, 1, mu=-3).mu == -3.0


def slow_clustered_variance(sigma, rho, requests, repetitions):
    """Var of the grand mean from the full compound-symmetric covariance matrix."""
    n = requests * repetitions
    cluster = np.repeat(np.arange(requests), repetitions)
    cov = np.where(cluster[:, None] == cluster[None, :], rho * sigma**2, 0.0)
    cov[np.diag_indices(n)] = sigma**2
    ones = np.ones(n) / n
    return ones @ cov @ ones


@pytest.mark.parametrize("rho,requests,repetitions", [(0.0, 5, 4), (0.5, 3, 7), (0.97, 10, 3), (1.0, 4, 5)])
def test_clustered_se_against_covariance_matrix(rho, requests, repetitions):
    se = clustered_standard_error(1.7, rho=rho, requests=requests, repetitions=repetitions)
    assert se**2 == pytest.approx(slow_clustered_variance(1.7, rho, requests, repetitions), rel=1e-12)
    assert design_effect(rho, repetitions) == pytest.approx(
        slow_clustered_variance(1.0, rho, requests, repetitions) * requests * repetitions, rel=1e-12
    )


def test_design_effect_broadcasts_and_validates():
    np.testing.assert_allclose(design_effect([0.1, 0.9], [[1], [11]]), [[1, 1], [2, 10]])
    with pytest.raises(ValueError, match="rho"):
        design_effect(1.2, 3)
    with pytest.raises(ValueError, match="repetitions"):
        design_effect(0.5, 0)
    with pytest.raises(ValueError, match="requests"):
        clustered_standard_error(1.0, rho=0.5, requests=0)
    with pytest.raises(ValueError, match="between, within"):
        intraclass_correlation(0.0, 0.0)


def test_simulate_shapes_and_reconstruction(endpoint1):
    sim = simulate("fully_balanced", endpoint1, requests=6, hosts=3, repetitions=2, experiments=5, rng=1)
    s = sim.schedule
    assert sim.y.shape == (5, 24) and sim.delta_hat.shape == (5,)
    # y is exactly mu + the drawn effects at each observation's levels + noise
    e = sim.effects
    rebuilt = endpoint1.mu + e.noise
    for name in ("request", "host", "request_batch", "host_batch"):
        rebuilt = rebuilt + getattr(e, name)[:, s.levels[name][0]]
    np.testing.assert_allclose(sim.y, rebuilt, rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        sim.delta_hat, sim.y[:, s.version == 1].mean(1) - sim.y[:, s.version == 0].mean(1), atol=1e-12
    )
    frame = sim.to_frame(experiments=[0, 4])
    assert len(frame) == 48 and set(frame.experiment) == {0, 4}
    assert np.array_equal(frame.value.to_numpy()[24:], sim.y[4])


def test_simulate_is_reproducible_and_seeds_differ(endpoint1):
    a = simulate("unbalanced", endpoint1, requests=8, hosts=4, experiments=3, rng=7)
    b = simulate("unbalanced", endpoint1, requests=8, hosts=4, experiments=3, rng=7)
    c = simulate("unbalanced", endpoint1, requests=8, hosts=4, experiments=3, rng=8)
    assert np.array_equal(a.y, b.y) and not np.array_equal(a.y, c.y)


@pytest.mark.parametrize("design", DESIGNS)
def test_sample_delta_hat_equals_simulate(design, endpoint1):
    # more experiments than one block, so the block boundary is crossed
    kwargs = dict(requests=10, hosts=2, repetitions=2, experiments=CHUNK_EXPERIMENTS + 37, effect=0.3, rng=11)
    full = simulate(design, endpoint1, **kwargs).delta_hat
    fast = sample_delta_hat(design, endpoint1, **kwargs)
    np.testing.assert_allclose(fast, full, rtol=0, atol=1e-12)


def test_effect_and_log_link(endpoint1):
    sim = simulate("fully_balanced", endpoint1, requests=4, hosts=2, experiments=3, effect=0.25, link="log", rng=3)
    assert np.all(sim.y > 0)
    logs = np.log(sim.y)
    np.testing.assert_allclose(sim.delta_hat, logs[:, 4:].mean(1) - logs[:, :4].mean(1), atol=1e-12)
    ident = simulate("fully_balanced", endpoint1, requests=4, hosts=2, experiments=3, effect=0.25, rng=3)
    np.testing.assert_allclose(sim.y, np.exp(ident.y), rtol=1e-12)
    # with no random effects at all, delta_hat is the effect exactly
    zero = VarianceComponents(0, 0, 0, 0, 0, mu=2.0)
    assert np.allclose(simulate("unbalanced", zero, requests=4, hosts=2, effect=0.25).delta_hat, 0.25)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(design="nope", requests=4, hosts=2), "design='nope'"),
        (dict(design="unbalanced", requests=0, hosts=2), "requests=0"),
        (dict(design="unbalanced", requests=4, hosts=3), "hosts"),
        (dict(design="unbalanced", requests=4, hosts=2, experiments=0), "experiments=0"),
        (dict(design="unbalanced", requests=4, hosts=2, link="logit"), "link='logit'"),
        (dict(design="unbalanced", requests=4, hosts=2, effect=math.nan), "effect"),
        (dict(design="unbalanced", requests=4), "requests, hosts"),
    ],
)
def test_simulate_bad_input(kwargs, match, endpoint1):
    design = kwargs.pop("design")
    with pytest.raises(ValueError, match=match):
        simulate(design, endpoint1, **kwargs)


def test_simulate_rejects_non_components():
    with pytest.raises(TypeError, match="components"):
        simulate("unbalanced", (1, 0, 0, 0, 1), requests=4, hosts=2)


def test_simulate_accepts_a_custom_schedule(endpoint1):
    s = schedule("host_balanced", requests=4, hosts=2)
    sim = simulate(s, endpoint1, experiments=2, rng=0)
    assert sim.schedule is s
    with pytest.raises(ValueError, match="not with a Schedule"):
        simulate(s, endpoint1, requests=4, hosts=2)


def test_shared_argument_checks():
    from perfstudy._lib.checks import check_int, check_real

    assert check_int("n", 4.0) == 4 and check_int("n", np.int64(3)) == 3
    with pytest.raises(TypeError, match="not a bool"):
        check_int("n", True)
    with pytest.raises(TypeError, match="n=2.5"):
        check_int("n", 2.5)
    with pytest.raises(ValueError, match="n=1: expected an integer of at least 2"):
        check_int("n", 1, minimum=2)
    with pytest.raises(ValueError, match="non-negative cost"):
        check_real("c", -1, nonnegative=True, what="cost")
    with pytest.raises(TypeError, match="real number"):
        check_real("c", "1")
