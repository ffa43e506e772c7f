import math

import numpy as np
import pandas as pd
import pytest
from scipy import special

from perfstudy.stability.kde import (
    Grid,
    binned_density,
    bootstrap_densities,
    exact_density,
    scott_bandwidth,
    strip_grid,
)
from perfstudy.stability.pt4cloud import (
    FLOOR,
    accuracy,
    confidence_band,
    divergence,
    hourly_sample,
    pt4cloud,
    pt4cloud_short,
    split_intervals,
    stability_probability,
)


def slow_divergence(x, y, strips=1000):
    """Section 3.1 written out: Gaussian KDEs (Scott) averaged over each of the strips of the union
    range (each point's kernel mass in the strip, by erf), floored at FLOOR x the larger peak,
    renormalised, J = KL(p||q) + KL(q||p) in bits."""
    lo, hi = min(x.min(), y.min()), max(x.max(), y.max())
    step = (hi - lo) / strips
    edges = lo + np.arange(strips + 1) * step

    def kde(s):
        h = np.std(s, ddof=1) * len(s) ** -0.2
        total = np.zeros(strips)
        for value in s:
            cdf = 0.5 * (1 + special.erf((edges - value) / (h * math.sqrt(2))))
            total += np.diff(cdf)
        return total / (len(s) * step)

    p, q = kde(x), kde(y)
    floor = FLOOR * max(p.max(), q.max())
    p, q = np.maximum(p, floor), np.maximum(q, floor)
    p, q = p / (p.sum() * step), q / (q.sum() * step)
    bits = np.sum(p * np.log2(p / q)) * step + np.sum(q * np.log2(q / p)) * step
    return bits, 2.0**-bits


PAIRS = {
    "shifted normals": lambda r: (r.normal(0, 1, 800), r.normal(0.3, 1.1, 900)),
    "gamma": lambda r: (r.gamma(2.0, 1.0, 700), r.gamma(2.3, 1.0, 1000)),
    "bimodal vs unimodal": lambda r: (np.r_[r.normal(0, 1, 400), r.normal(6, 1, 400)], r.normal(3, 2, 800)),
    "outliers": lambda r: (np.r_[r.normal(100, 1, 600), [160.0, 170.0]], r.normal(100.5, 1, 600)),
    "disjoint": lambda r: (r.normal(0, 1, 300), r.normal(50, 1, 300)),
}


@pytest.mark.parametrize("name", list(PAIRS))
def test_against_a_slow_exact_implementation(name):
    x, y = PAIRS[name](np.random.default_rng(7))
    bits, probability = slow_divergence(x, y)
    exact = divergence(x, y, method="exact")
    assert exact.bits == pytest.approx(bits, rel=1e-9, abs=1e-9)
    binned = divergence(x, y)
    # linear binning at <= bandwidth/40: |dJ| within 1e-3 bits + 0.1% (measured: < 2e-4 here)
    assert abs(binned.bits - bits) <= 1e-3 + 1e-3 * bits
    assert abs(binned.probability - probability) <= 1e-3
    assert 0.0 <= binned.probability <= 1.0 and np.isfinite(binned.bits)


def test_identical_samples_give_one_and_disjoint_give_zero_never_nan():
    x = np.random.default_rng(1).gamma(3.0, 2.0, 5000)
    assert stability_probability(x, x) == 1.0
    # a bandwidth far below the strip width (points 1e6 apart): mass lands in the right strips
    assert stability_probability(x, x.copy(), method="exact") == 1.0
    far = divergence(np.arange(10.0), np.arange(10.0) + 1e6)
    # the floor caps J near 2 log2(1 / FLOOR) = 80 bits: finite, and P ~ 1e-24
    assert far.probability < 1e-20 and 75 < far.bits < 81
    assert stability_probability(np.arange(10.0), np.arange(10.0) + 1e-9) > 0.99


def test_two_normals_match_the_analytic_symmetric_kl():
    # J(N(m1, s1^2), N(m2, s2^2)) = ((s1^2 - s2^2)^2 + (s1^2 + s2^2)(m1 - m2)^2) / (2 s1^2 s2^2) nats.
    # A Gaussian KDE of a normal sample estimates N(m, s^2 + h^2), h = s n^(-1/5) (Scott), so s^2 is
    # inflated by 1 + n^(-2/5). With n = 200,000 per sample, J's spread over seeds is ~1.5% (20 seeds,
    # measured); 6% allows 4 of those.
    n = 200_000
    inflate = 1 + n**-0.4
    s1, s2, m1, m2 = 1.0, 1.2, 0.0, 0.5
    v1, v2 = s1**2 * inflate, s2**2 * inflate
    expected = ((v1 - v2) ** 2 + (v1 + v2) * (m1 - m2) ** 2) / (2 * v1 * v2) / math.log(2)
    rng = np.random.default_rng(3)
    result = divergence(rng.normal(m1, s1, n), rng.normal(m2, s2, n))
    assert result.bits == pytest.approx(expected, rel=0.06)
    assert result.probability == pytest.approx(2.0**-expected, rel=0.06)


def _scipy_density(x, grid, h):
    """The slow, obvious strip averages: scipy's gaussian_kde integrated over each strip, one call a strip."""
    from scipy.stats import gaussian_kde

    kde = gaussian_kde(x, bw_method=h / np.std(x, ddof=1))
    edges = grid.lo + np.arange(grid.n + 1) * grid.step
    return np.array([kde.integrate_box_1d(a, b) for a, b in zip(edges[:-1], edges[1:])]) / grid.step


def test_exact_kde_is_scipys_strip_by_strip_and_keeps_far_tails():
    rng = np.random.default_rng(4)
    x = rng.lognormal(0, 0.5, 700)
    grid = strip_grid(x)
    h = scott_bandwidth(x)
    reference = _scipy_density(x, grid, h)
    # the two sum the same normal CDFs in another order: round-off of order 1e-16 of the peak
    assert np.max(np.abs(exact_density(x, grid, h) - reference)) < 1e-12 * reference.max()
    # points at -1 and 1, strips 10 to 12 bandwidths above them: the mass in closed form by upper tails (scipy's
    # sf), where differences of CDFs near 1 would give 0
    from scipy.stats import norm

    edges = np.array([10.0, 11.0, 12.0])
    expected = np.mean([-np.diff(norm.sf(edges - point)) for point in (-1.0, 1.0)], axis=0)
    assert np.allclose(exact_density(np.array([-1.0, 1.0]), Grid(10.0, 1.0, 2), 1.0), expected, rtol=1e-10, atol=0)


def test_binned_kde_and_bootstrap_kdes_match_direct_sums():
    rng = np.random.default_rng(5)
    x = rng.lognormal(0, 0.5, 3000)
    grid = strip_grid(x)
    h = scott_bandwidth(x)
    exact = exact_density(x, grid, h)
    assert np.max(np.abs(binned_density(x, grid, h) - exact)) < 1e-4 * exact.max()
    replicas = bootstrap_densities(x, grid, h, replicates=3, chunk=2, rng=np.random.default_rng(9))
    draws = np.random.default_rng(9)
    first = draws.integers(0, x.size, size=(2, x.size), dtype=np.int32)
    second = draws.integers(0, x.size, size=(1, x.size), dtype=np.int32)
    for row, index in zip(replicas, [first[0], first[1], second[0]]):
        assert np.max(np.abs(row - exact_density(x[index], grid, h))) < 1e-4 * exact.max()


@pytest.mark.slow  # over 3 s on 2 cores
def test_band_coverage_is_close_to_nominal():
    # 300 samples of 400 from N(0, 1); 90% bands from 300 resamples. The KDE with bandwidth h
    # estimates N(0, 1 + h^2): the band is checked against that at x = 0 and x = 1. Monte Carlo
    # error of a coverage over 300 samples: sqrt(0.9 0.1 / 300) = 0.017; the percentile band's own
    # O(n^-1/2) error is ~0.03 here. Allowed: 0.9 +- (4 x 0.017 + 0.03) = +-0.10.
    rng = np.random.default_rng(11)
    hits = np.zeros(2)
    trials = 300
    points = np.array([0.0, 1.0])
    for _ in range(trials):
        x = rng.normal(size=400)
        grid = Grid(-1.0 - 0.0025, 0.005, 441)  # midpoints -1, -0.995, ..., 1.2: includes 0 and 1
        band = confidence_band(x, confidence=0.9, replicates=300, grid=grid, rng=rng)
        h = scott_bandwidth(x)
        target = np.exp(-0.5 * points**2 / (1 + h**2)) / np.sqrt(2 * np.pi * (1 + h**2))
        where = np.rint((points - band.midpoints[0]) / 0.005).astype(int)
        hits += (band.low[where] <= target) & (target <= band.high[where])
    coverage = hits / trials
    assert np.all(np.abs(coverage - 0.9) < 0.10), coverage


def test_workflow_stops_when_an_interval_no_longer_changes_the_distribution():
    rng = np.random.default_rng(2)
    weeks = [rng.normal(10, 1, 500), rng.normal(12, 1, 500), rng.normal(11, 1.4, 500), rng.normal(11, 1.4, 500)]
    result = pt4cloud(weeks, replicates=200, rng=4)
    table = result.to_frame()
    assert result.stopped and result.intervals_used == len(table) + 1
    assert table.probability.iloc[0] < 0.9 <= table.probability.iloc[-1]
    assert result.runs == 500 * result.intervals_used
    assert np.all(result.band.low <= result.band.density) and np.all(result.band.density <= result.band.high)
    stable = pt4cloud([rng.normal(size=400) for _ in range(3)], band=False)
    assert stable.intervals_used == 2 and stable.band is None
    drifting = pt4cloud([rng.normal(k * 3.0, 1, 300) for k in range(3)], band=False)
    assert not drifting.stopped and drifting.intervals_used == 3 and drifting.runs == 900


def test_split_intervals_by_duration_and_by_runs():
    start = pd.Timestamp("2024-03-04")
    times = start + pd.to_timedelta(np.arange(0, 24 * 23, 0.5), unit="h")  # 23 days, a run every 30 min
    frame = pd.DataFrame({"timestamp": times, "value": np.arange(times.size, dtype=float)})
    parts, unused = split_intervals(frame, "7D")
    assert [p.size for p in parts] == [336] * 3 and unused == 2 * 24 * 2  # days 22-23: not a full week
    parts, unused = split_intervals(frame.iloc[: 336 * 2], "7D")
    assert len(parts) == 2 and unused == 0  # the last run starts in the final 1% of week 2
    gap = frame[(frame.timestamp < start + pd.Timedelta("7D")) | (frame.timestamp >= start + pd.Timedelta("14D"))]
    with pytest.raises(ValueError, match=r"interval\(s\) \[1\] of 7 days"):
        split_intervals(gap, "7D")
    parts, unused = split_intervals(np.arange(25.0), 10)
    assert [p[0] for p in parts] == [0.0, 10.0] and unused == 5


def test_short_interval_variant():
    rng = np.random.default_rng(8)
    iid = rng.normal(size=4000)
    quick = pt4cloud_short(iid, interval_lengths=[100, 400, 1000])
    assert quick.stopped and quick.interval == 100 and quick.runs_spent == 200 and quick.validated is None
    validated = pt4cloud_short(iid, interval_lengths=[100, 400, 1000], validate=True)
    assert validated.validated and validated.runs_spent == 400
    # a level that changes every 300 runs: 100-run intervals agree inside a level, but validation
    # over the next two intervals crosses into the next level and fails
    steps = np.repeat(rng.normal(0, 3, 14), 300) + rng.normal(size=4200)
    grown = pt4cloud_short(steps, interval_lengths=[100, 1000, 1400], validate=True)
    assert grown.rounds.outcome.iloc[0] != "stable and validated"
    assert grown.runs_spent > grown.sample.size


def test_hourly_sampling():
    kept = hourly_sample(np.arange(16.0), 0.5, runs_per_hour=4)
    assert kept.tolist() == [0, 1, 4, 5, 8, 9, 12, 13]
    times = pd.Timestamp("2024-01-01") + pd.to_timedelta(np.arange(0, 180, 10), unit="min")
    frame = pd.DataFrame({"timestamp": times, "value": 1.0})
    assert hourly_sample(frame, 0.5).timestamp.dt.minute.tolist() == [0, 10, 20] * 3
    with pytest.raises(ValueError, match="runs_per_hour"):
        hourly_sample(np.arange(10.0), 0.5)


@pytest.mark.parametrize(
    "bad, match",
    [
        ([np.arange(10.0)], "1 complete interval"),
        ([np.arange(10.0), np.arange(3.0)], "interval 1: 3 runs"),
        ([np.ones(10), np.arange(10.0)], "constant sample"),
        ([np.r_[np.arange(9.0), np.nan], np.arange(10.0)], "interval 0: 1 NaN"),
    ],
)
def test_bad_input(bad, match):
    with pytest.raises(ValueError, match=match):
        pt4cloud(bad, band=False)


def test_bad_input_to_the_probability():
    with pytest.raises(ValueError, match="d2: 1 of 6 values are NaN"):
        stability_probability(np.arange(6.0), np.r_[np.arange(5.0), np.nan])
    with pytest.raises(ValueError, match="samples: 4 values"):
        accuracy(np.arange(4.0), np.arange(10.0))
    with pytest.raises(ValueError, match="method="):
        stability_probability(np.arange(6.0), np.arange(6.0), method="fft")
    with pytest.raises(ValueError, match="objective_probability"):
        pt4cloud([np.arange(6.0)] * 2, objective_probability=1.5)


def test_gaps_can_be_skipped_and_validation_limited_to_short_lengths():
    start = pd.Timestamp("2024-03-04")
    hours = np.r_[np.arange(0, 24 * 7), np.arange(24 * 14, 24 * 28)]  # week 2 has no runs
    frame = pd.DataFrame(
        {
            "timestamp": start + pd.to_timedelta(hours, unit="h"),
            "value": np.random.default_rng(0).normal(size=hours.size),
        }
    )
    with pytest.raises(ValueError, match="empty='skip'"):
        pt4cloud(frame, intervals="7D", band=False)
    parts, _ = split_intervals(frame, "7D", empty="skip")
    assert [p.size for p in parts] == [168, 168, 168]
    assert pt4cloud(frame, intervals="7D", empty="skip", band=False).intervals_used == 2
    iid = np.random.default_rng(1).normal(size=3000)
    # validate only lengths below 300 runs: 100 is validated (4 intervals), 400 would not be
    below = pt4cloud_short(iid, interval_lengths=[100, 400, 1000], validate=300)
    assert below.validated and below.runs_spent == 400
    above = pt4cloud_short(iid, interval_lengths=[100, 400, 1000], validate=50)
    assert above.validated is None and above.runs_spent == 200


def test_the_bandwidth_factor_reaches_every_kde_of_the_workflows():
    rng = np.random.default_rng(21)
    runs = np.concatenate([rng.gamma(4, 1, 300), rng.gamma(4, 1.1, 300), rng.gamma(4, 1, 600)])
    short = pt4cloud_short(runs, interval_lengths=[150, 300, 600], validate=True, bandwidth_factor=2.0)
    first = short.rounds.iloc[0]
    # the round's probabilities are stability_probability's at the same factor, on the same cut
    assert first.probability == stability_probability(runs[:150], runs[:300], bandwidth_factor=2.0)
    if not np.isnan(first.validation_probability):
        assert first.validation_probability == stability_probability(runs[:300], runs[300:600], bandwidth_factor=2.0)
    # the standard workflow's too, and its band is drawn at that bandwidth
    wide = pt4cloud([runs[:300], runs[300:600], runs[600:]], bandwidth_factor=2.0, replicates=50, rng=0)
    assert wide.probabilities[0] == stability_probability(runs[:300], runs[:600], bandwidth_factor=2.0)
    assert wide.probabilities[0] != pt4cloud([runs[:300], runs[300:600]], band=False).probabilities[0]
    narrow = pt4cloud([runs[:300], runs[300:600], runs[600:]], bandwidth_factor=0.5, replicates=50, rng=0)
    assert np.ptp(wide.band.high - wide.band.low) < np.ptp(narrow.band.high - narrow.band.low)
