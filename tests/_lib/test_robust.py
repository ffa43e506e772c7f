"""The robust SD: 1.4826 MAD, against a hand computation and against the SD of a large normal sample."""

import math

import numpy as np
import pytest
from scipy import stats

from perfstudy._lib.robust import MAD_SD, mad_sd, neighbour_noise


def test_the_constant_is_one_over_the_normal_quartile():
    assert MAD_SD == pytest.approx(1 / stats.norm.ppf(0.75), rel=1e-4)


def test_mad_sd_by_hand():
    # median 3; deviations 2, 1, 0, 1, 97: their median is 1
    assert mad_sd([1, 2, 3, 4, 100]) == pytest.approx(1.4826)
    assert math.isnan(mad_sd([]))


def test_mad_sd_estimates_a_normal_sds():
    # n = 200,000: the MAD estimator's SE is about 1.17 sigma / sqrt(n) = 0.0026 sigma; 5 SE is 0.013
    x = np.random.default_rng(0).normal(10, 2.0, 200_000)
    assert mad_sd(x) == pytest.approx(2.0, abs=5 * 1.17 * 2.0 / math.sqrt(200_000))


def test_neighbour_noise_ignores_a_step_and_centres_the_differences():
    rng = np.random.default_rng(1)
    y = rng.normal(0, 1.0, 100_000)
    y[50_000:] += 20  # one step moves one difference
    # the differences of iid N(0, 1) have SD sqrt 2; the same SE bound as above, on sqrt 2 / sqrt 2
    assert neighbour_noise(y) == pytest.approx(1.0, abs=5 * 1.17 * math.sqrt(2) / math.sqrt(100_000) / math.sqrt(2))
    # a linear trend adds a constant to every difference: centred, the noise is unchanged by it
    trend = y + 0.5 * np.arange(y.size)
    assert neighbour_noise(trend) == pytest.approx(neighbour_noise(y), rel=1e-9)
    assert neighbour_noise([1.0, 2.0]) == 0.0
