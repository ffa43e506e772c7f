"""The Monte Carlo bound on a false-positive rate, against its closed form and the normal tail it stands for."""

import math

import numpy as np
import pytest
from scipy import stats

from perfstudy.studies.montecarlo import type1_limit


def test_the_limit_is_five_percent_plus_three_binomial_errors():
    assert type1_limit(10_000) == pytest.approx(0.05 + 3 * np.sqrt(0.05 * 0.95 / 10_000))
    # as the notebooks print them: 10,000 A/A tests (section 5.2 of Bakshy & Frachtenberg) and Figure 7's 500
    assert f"{type1_limit(10_000):.2%}" == "5.65%" and f"{type1_limit(500):.1%}" == "7.9%"
    assert type1_limit(400, alpha=0.10, errors=2) == pytest.approx(0.10 + 2 * math.sqrt(0.09 / 400))
    assert type1_limit(7, errors=0) == 0.05


def test_a_method_at_its_nominal_rate_exceeds_the_limit_about_as_the_normal_tail_says():
    # exact binomial: P(X / n > limit) for X ~ Bin(n, 0.05), against the one-sided normal tail at 3 SE (0.00135);
    # at n = 10,000 the binomial's skew leaves it within a factor of two
    n = 10_000
    beyond = stats.binom.sf(math.floor(type1_limit(n) * n), n, 0.05)
    assert stats.norm.sf(3) / 2 < beyond < 2 * stats.norm.sf(3)


@pytest.mark.parametrize("tests, alpha, errors", [(0, 0.05, 3), (10, 1.5, 3), (10, 0.05, -1)])
def test_nonsense_is_refused(tests, alpha, errors):
    with pytest.raises(ValueError):
        type1_limit(tests, alpha=alpha, errors=errors)
