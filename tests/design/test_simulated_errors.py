"""Figure 4's simulated standard errors against their closed-form lines: each point's z is N(0, 1), one point
repeated on its own streams included."""

import numpy as np
import pytest
from scipy import stats

from perfstudy.design.model import PERFLAB_ENDPOINTS
from perfstudy.design.simulated_errors import standard_error_sweep

#: thousands of simulated experiments per point: `make test` runs them, `make test-fast` does not
pytestmark = pytest.mark.slow


def test_sweep_is_calibrated():
    """Figure 4's points against its lines: each z = (s - SE) / mc_error is approximately N(0, 1).

    With 16 grid points the chance that any |z| exceeds 4 is about 16 * 6.3e-5 = 1e-3.
    """
    result = standard_error_sweep(PERFLAB_ENDPOINTS[1], hosts=(4, 16), requests=(64, 256), experiments=3000, rng=5)
    frame = result.to_frame()
    assert len(frame) == 16
    assert frame["z"].abs().max() < 4
    assert np.all(np.abs(frame["mean_delta_hat"]) < 5 * frame["analytic_se"] / np.sqrt(3000))


def test_sweep_monte_carlo_error_is_calibrated_over_repeated_points():
    # one point (host balanced, 4 hosts, 100 requests: Figure 4's max |z| of 4.06 at the notebook's seed)
    # repeated 100 times, each on its own spawned stream: its z's are N(0, 1). The sample SD of 100 N(0, 1)
    # has SE 1/sqrt(2 * 99) = 0.071, the mean 0.1: tolerance 3 of each; KS against N(0, 1) at alpha 0.001
    sweep = standard_error_sweep(
        PERFLAB_ENDPOINTS[1], designs=("host_balanced",), hosts=[4], requests=[100] * 100, experiments=2_000, rng=4
    )
    z = sweep.to_frame().z.to_numpy()
    assert len(set(sweep.empirical_se)) == 100  # a stream per point: no two points drew alike
    assert abs(z.mean()) < 3 * 0.1 and abs(z.std(ddof=1) - 1) < 3 / (2 * 99) ** 0.5
    assert stats.kstest(z, "norm").pvalue > 1e-3
