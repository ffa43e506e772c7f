"""Simulation against theory: the simulator's delta_hat has the variance of section 4.2.1.

delta_hat is a linear combination of independent normal effects, hence exactly normal with mean
delta; so with the analytic SE, Q = sum((delta_hat - delta)^2) / SE^2 follows chi-square with
n = experiments degrees of freedom. Each check accepts Q inside the central 99.9% of that law
(alpha = 1e-3 per check); the seeds are fixed, so the outcome is deterministic, and the band is
the Monte Carlo tolerance, derived rather than chosen. At n = 4000 the band is about +-7.4% on the
variance (+-3.7% on the SE).
"""

import numpy as np
import pytest
from scipy import stats

from perfstudy.design.model import PERFLAB_ENDPOINTS, VarianceComponents, simulate
from perfstudy.design.schedules import DESIGNS
from perfstudy.design.standard_errors import standard_error

#: minutes of simulation or of real commands run under the clock: `make test` runs it, `make test-fast` does not
pytestmark = pytest.mark.slow

EXPERIMENTS = 4000
ALPHA = 1e-3
LOW, HIGH = stats.chi2.ppf([ALPHA / 2, 1 - ALPHA / 2], EXPERIMENTS)
SIZES = dict(requests=64, hosts=8, repetitions=2)


def chi2_statistic(delta_hat, effect, se):
    return float(np.sum((delta_hat - effect) ** 2) / se**2)


@pytest.mark.parametrize("seed,design", list(enumerate(DESIGNS)))
def test_simulated_se_matches_closed_form(seed, design):
    components = PERFLAB_ENDPOINTS[1]
    sim = simulate(design, components, experiments=EXPERIMENTS, effect=0.1, rng=100 + seed, **SIZES)
    se = standard_error(design, components, **SIZES)
    q = chi2_statistic(sim.delta_hat, 0.1, se)
    assert LOW <= q <= HIGH, f"{design}: Q = {q:.0f} outside [{LOW:.0f}, {HIGH:.0f}]"


def test_the_check_rejects_wrong_theories():
    """Negative controls: the same check must reject SEs that drop a term the design keeps."""
    components = PERFLAB_ENDPOINTS[1]
    fb = simulate("fully_balanced", components, experiments=EXPERIMENTS, rng=200, **SIZES).delta_hat
    # fully balanced without the request x batch term (var 1.09e-3 -> 0.93e-3, -15%)
    no_gamma = VarianceComponents(1.02, 0.12, 0.0, 0.08, 0.13)
    assert chi2_statistic(fb, 0.0, standard_error("fully_balanced", no_gamma, **SIZES)) > HIGH
    # the unbalanced design analysed as if its observations were iid
    ub = simulate("unbalanced", components, experiments=EXPERIMENTS, rng=201, **SIZES).delta_hat
    total = sum(v**2 for v in components.sigmas.values())
    naive_se = np.sqrt(2 * total / (SIZES["requests"] * SIZES["repetitions"]))
    assert chi2_statistic(ub, 0.0, naive_se) > HIGH
