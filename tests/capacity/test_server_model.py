"""The simulated server of Shivam et al.: its capacity and true peak rate in closed form, noise that grows near
saturation and falls with longer runs, lognormal draws that keep the mean."""

import math

import pytest

from perfstudy.capacity.server_model import SimulatedServer


def test_server_model():
    s = SimulatedServer(disks=2, daemons=8, disk_rate=100, daemon_rate=40)
    assert s.capacity == pytest.approx(1 / (1 / 200 + 1 / 320))
    # the true peak rate solves S + 1/(mu - lambda) = R*
    assert s.mean_response(s.true_peak_rate) == pytest.approx(s.saturation_response, rel=1e-12)
    assert s.noise_cv(0.9 * s.capacity, 60) > s.noise_cv(0.5 * s.capacity, 60)  # noisier near saturation
    assert s.noise_cv(0.9 * s.capacity, 600) < s.noise_cv(0.9 * s.capacity, 60)  # quieter with longer runs
    draws = s.run(0.8 * s.capacity, 300, trials=20000, rng=0)
    # lognormal noise preserves the mean: 20,000 draws, SE = cv / sqrt(20000) relative
    cv = s.noise_cv(0.8 * s.capacity, 300)
    assert draws.mean() / s.mean_response(0.8 * s.capacity) == pytest.approx(1, abs=4 * cv / math.sqrt(20000))
    assert s.mean_response(1.2 * s.capacity, 600) > s.mean_response(1.2 * s.capacity, 60)  # backlog grows
