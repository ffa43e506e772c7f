"""The sign confidence sequence: its martingale, its interval, its time-uniform coverage under heavy tails
and contention, its round-by-round form, and the rule it gives ``perfstudy run`` against Lai's."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from perfstudy.comparison import compare
from perfstudy.comparison.sign_sequence import (
    RunningSign,
    _log_sign_martingale,
    sign_confidence_sequence,
    sign_rounds_needed,
)
from perfstudy.studies.running import ContentionModel, rules_under_contention, simulate_contended_rounds


@pytest.mark.parametrize("n, k, c", [(10, 7, 2.0), (25, 3, 0.5), (40, 20, 8.0), (7, 7, 1.0)])
def test_the_martingale_is_the_beta_mixture_of_likelihood_ratios(n, k, c):
    """M_n = integral of p^k (1-p)^(n-k) / 2^-n against Beta(c, c), by quadrature."""
    mixture, _ = integrate.quad(lambda p: p**k * (1 - p) ** (n - k) * stats.beta.pdf(p, c, c), 0, 1, epsabs=1e-14)
    assert math.exp(float(_log_sign_martingale(n, k, c))) == pytest.approx(mixture * 2.0**n, rel=1e-8)


def test_the_interval_is_the_set_the_martingale_accepts():
    """At each n, a point between two order statistics is inside the interval exactly when M_n(m) < 1/alpha
    (a direct search over the gaps, not the order-statistic formula)."""
    rng = np.random.default_rng(4)
    x = rng.standard_cauchy(60)
    cs = sign_confidence_sequence(x, 0.9)
    for n in (5, 12, 30, 60):
        ordered = np.sort(x[:n])
        candidates = np.concatenate([[ordered[0] - 1], (ordered[1:] + ordered[:-1]) / 2, [ordered[-1] + 1]])
        for m in candidates:
            accepted = _log_sign_martingale(n, int((x[:n] > m).sum())) < math.log(1 / 0.1)
            assert accepted == (cs.low[n - 1] <= m < cs.high[n - 1]), (n, m)


@pytest.mark.parametrize(
    "draw",
    [
        lambda rng, shape: rng.standard_cauchy(shape),
        lambda rng, shape: np.where(rng.random(shape) < 0.3, rng.normal(0, 0.5, shape), rng.normal(0, 0.01, shape)),
    ],
    ids=["cauchy", "contention mixture"],
)
def test_time_uniform_coverage_under_heavy_tails(draw):
    """2,000 sequences of 200 with median 0: the share whose running interval ever misses 0 is at most
    alpha + 3 MC SE (MC SE at 5%: sqrt(.05 * .95 / 2000) = 0.0049). Lai's t sequence on the same data is no
    guide here: its assumption (normal rounds) is what these break."""
    rng = np.random.default_rng(8)
    x = draw(rng, (2000, 200))
    cs = sign_confidence_sequence(x, 0.95)
    missed = ~((cs.running_low <= 0) & (0 < cs.running_high)).all(axis=1)
    assert missed.mean() <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 2000)
    assert missed.mean() > 0, "a sequence that never misses is too wide to be the one derived"


def test_the_round_by_round_form_equals_the_vectorised_one():
    rng = np.random.default_rng(2)
    x = rng.standard_t(2, 80) + 0.3
    cs = sign_confidence_sequence(x, 0.95)
    running = RunningSign(0.95)
    for n, value in enumerate(x, start=1):
        running.add(value)
        low, high, p = running.current()
        assert (low, high, p) == pytest.approx(
            (cs.running_low[n - 1], cs.running_high[n - 1], cs.p_values[n - 1])
        ) or math.isnan(cs.running_low[n - 1])
        assert running.median == pytest.approx(np.median(x[:n]))


def test_the_p_value_agrees_with_the_interval():
    """0 lies outside the running interval exactly when the anytime p-value is at most alpha."""
    rng = np.random.default_rng(6)
    x = rng.normal(0.2, 1.0, (300, 60))
    cs = sign_confidence_sequence(x, 0.95)
    outside = ~((cs.running_low <= 0) & (0 < cs.running_high))
    assert np.array_equal(outside, cs.p_values <= 0.05)


def test_rounds_needed_is_a_guess_that_falls_as_the_interval_narrows():
    assert sign_rounds_needed(-0.1, 0.1, 20, 0.05) > sign_rounds_needed(-0.06, 0.06, 20, 0.05) > 20
    assert sign_rounds_needed(-math.inf, math.inf, 3, 0.05, limit=999) == 999


def test_compare_with_the_sign_rule_reports_the_median_round():
    rng = np.random.default_rng(1)
    rows = []
    for r in range(40):
        slow = 3.0 if rng.random() < 0.2 else 1.0  # a contended round slows both, unevenly
        a, b = 1.0 * slow * rng.lognormal(0, 0.01), 1.05 * slow ** rng.uniform(0.5, 1.5) * rng.lognormal(0, 0.01)
        rows += [dict(version="A", round=r, batch=f"{r}A", value=a), dict(version="B", round=r, batch=f"{r}B", value=b)]
    frame = pd.DataFrame(rows)
    result = compare(frame, block="round", sequential="sign", threshold=0.01, rng=0)
    row = result.table.iloc[0]
    d = np.log(frame[frame.version == "B"].value.to_numpy() / frame[frame.version == "A"].value.to_numpy())
    assert row["change"] == pytest.approx(math.expm1(np.median(d)))
    assert row["method"] == "sign sequence" and row["verdict"] == "slower"
    with pytest.raises(ValueError, match="minimum is compared per block"):
        compare(frame, statistic="min")


def test_under_contention_the_sign_rule_keeps_its_error_and_decides_in_far_fewer_rounds():
    """Simulated contended rounds (ContentionModel: 30% of the time 1.8x slower, in episodes): on the same
    rounds, both rules keep A/A false verdicts within alpha + 3 MC SE, and the sign rule needs at least 2x
    fewer rounds on average for planted 2%, 5% and 10% changes (measured: 6-10x at 2% and 5%)."""
    found = rules_under_contention(experiments=400, max_rounds=200, statistics=("mean",), rng=3).table
    limit = 0.05 + 3 * math.sqrt(0.05 * 0.95 / 400)
    assert (found[found.change == 0].wrong <= limit).all()
    by = found.set_index(["rule", "change"])
    for change in (0.02, 0.05, 0.10):
        assert by.loc[("sign", change), "mean_rounds"] * 2 <= by.loc[("t", change), "mean_rounds"], change
        assert by.loc[("sign", change), "wrong"] <= 0.05


def test_contended_rounds_are_symmetric_about_the_change():
    """The median round log-ratio is log(1 + change) (the module text's argument), checked on 200,000 rounds."""
    d = simulate_contended_rounds(ContentionModel(), 1000, 200, change=0.05, statistic="min", rng=5)
    assert np.median(d) == pytest.approx(math.log1p(0.05), abs=0.002)
