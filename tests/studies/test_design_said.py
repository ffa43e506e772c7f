"""What notebook 01 says: the z checks against their closed forms, the recheck of the largest point, and the
summary against hand-made tables."""

import math

import pandas as pd
import pytest
from scipy import stats

from perfstudy import PERFLAB_ENDPOINTS
from perfstudy.studies import design_said as said


def _sweep(z):
    return pd.DataFrame({"design": ["unbalanced", "fully_balanced", "host_balanced"][: len(z)], "hosts": [4, 8, 16][: len(z)],
                         "requests": [100, 300, 1000][: len(z)], "z": z})  # fmt: skip


def test_the_z_checks_are_bonferroni_and_chi_square_of_the_zs():
    checks = said.z_checks(_sweep([0.5, -2.5, 1.0]))
    # the largest |z| 2.5 among 3 points: 3 x 2 x (1 - Phi(2.5)) = 0.0373; sum of squares 7.5 on 3 df
    assert checks["bonferroni"] == pytest.approx(3 * 2 * (1 - stats.norm.cdf(2.5)))
    assert (checks["statistic"], checks["df"]) == (7.5, 3)
    # chi-square on 3 df in closed form: P(X > x) = 2 (1 - Phi(sqrt x)) + sqrt(2 x / pi) exp(-x / 2)
    assert checks["p"] == pytest.approx(2 * stats.norm.sf(math.sqrt(7.5)) + math.sqrt(15 / math.pi) * math.exp(-3.75))
    assert (
        said.z_checks(_sweep([5.0, 0.0, 0.0]))["bonferroni"] < 1e-5
        and said.z_checks(_sweep([0.1, 0.0, 0.0]))["bonferroni"] == 1.0
    )


def test_the_largest_point_is_simulated_again_and_its_zs_judged():
    recheck = said.recheck_largest(_sweep([0.5, -2.5, 1.0]), PERFLAB_ENDPOINTS[1], repeats=8, experiments=200, rng=3)
    assert (recheck["design"], recheck["hosts"], recheck["requests"], recheck["z"]) == ("fully_balanced", 8, 300, -2.5)
    # calibrated: mean within 3 / sqrt(8) of 0 and SD within 3 / sqrt(14) of 1
    calibrated = abs(recheck["mean_z"]) <= 3 / 8**0.5 and abs(recheck["sd_z"] - 1) <= 3 / 14**0.5
    assert recheck["calibrated"] == calibrated and recheck["repeats"] == 8


def test_the_summary_says_what_the_checks_found():
    table3 = pd.DataFrame({"design": ["unbalanced", "fully_balanced"], "closed_form": [0.104, 0.052],
                           "paper": [0.10, 0.05], "eq5_from_schedule": [0.104, 0.05201]})  # fmt: skip
    recheck = dict(design="fully_balanced", hosts=8, requests=300, z=-2.5, repeats=20, mean_z=0.1, sd_z=1.05,
                   calibrated=True)  # fmt: skip
    checks = dict(bonferroni=0.04, statistic=7.5, df=3, p=0.06)
    text = said.summary_said(table3, _sweep([0.5, -2.5, 1.0]), checks, recheck).text
    assert text.startswith("- The closed forms of section 4.2.1 reproduce Table 3's SE column and agree with Eq. 5 on explicit schedules (largest relative gap 1.9e-04).")  # fmt: skip
    assert "median |z| 1.00, largest 2.50 at fully balanced, 8 hosts, 300 requests (Bonferroni p = 0.040)" in text
    assert "the sum of $z^2$ is 7.5 on 3 degrees of freedom (p = 0.06)" in text
    # calibrated, chi-square fine, Bonferroni small: the largest |z| is a chance extreme
    assert "so the largest |z| is a chance extreme of the first draw" in text
    assert text.endswith("the fully balanced design's SE is 0.50 of the unbalanced design's.")
    off = said.summary_said(table3.assign(paper=[0.11, 0.05]), _sweep([0.5]), dict(checks, p=0.01), recheck).text
    assert "do not reproduce" in off and "The z's are not N(0, 1)" in off
