"""The rank scan against a slow obvious implementation, and the Hodges-Lehmann interval against its definition."""

import numpy as np
import pytest

from perfstudy.changes._scan import RankScan, hodges_lehmann


def rank_scan(y, width, cuts=()):
    """One width's scan with ``cuts`` accepted, as the detector builds it: a :class:`RankScan` cut at each."""
    scan = RankScan(y, width)
    for c in np.unique(np.asarray(cuts, dtype=int)):
        scan.cut(int(c))
    return scan.z()


def slow_scan(y, width, cuts):
    """Mann-Whitney's sign sum of every boundary, windows clipped at the cuts, one pair at a time."""
    m = y.size
    out = []
    for k in range(1, m):
        lo = max([0, k - width] + [c for c in cuts if c < k])
        hi = min([m, k + width] + [c for c in cuts if c > k])
        left, right = y[lo:k], y[k:hi]
        s = sum(np.sign(b - a) for a in left for b in right)
        n = left.size + right.size
        # the tie correction at its expectation over the whole series (module docstring)
        _, c = np.unique(y, return_counts=True)
        tie2 = sum(c * (c - 1)) / (m * (m - 1))
        tie3 = sum(c * (c - 1) * (c - 2)) / (m * (m - 1) * (m - 2))
        var = left.size * right.size * max((n + 1) - (n - 2) * tie3 - 3 * tie2, 0) / 3
        out.append((s / np.sqrt(var) if var and k not in cuts else 0.0, left.size, right.size))
    return np.array(out)


@pytest.mark.parametrize("width", [1, 3, 7, 40])
@pytest.mark.parametrize("cuts", [(), (10,), (5, 6, 30)])
def test_the_scan_is_the_sign_sum_of_every_clipped_window(width, cuts):
    rng = np.random.default_rng(width)
    y = np.round(rng.standard_normal(37), 1)  # rounded: ties count 0
    z, left, right = rank_scan(y, width, cuts)
    slow = slow_scan(y, width, cuts)
    np.testing.assert_allclose(z, slow[:, 0], atol=1e-12)
    np.testing.assert_array_equal(left, slow[:, 1])
    np.testing.assert_array_equal(right, slow[:, 2])


def test_a_spike_moves_the_statistic_by_one_rank_at_most():
    rng = np.random.default_rng(3)
    y = rng.standard_normal(60)
    spiked = y.copy()
    spiked[30] = 1e6
    z0, left, right = rank_scan(y, 15)
    z1, _, _ = rank_scan(spiked, 15)
    # one value changes at most n_other of the signs, each by at most 2, so S moves by at most 2 * 15
    bound = 2 * 15 / np.sqrt(left * right * (left + right + 1) / 3)
    assert np.all(np.abs(z1 - z0) <= bound + 1e-12)


def test_hodges_lehmann_is_the_median_of_differences_with_moses_interval():
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal(12), rng.standard_normal(15) + 1
    shift, low, high = hodges_lehmann(a, b, 1.959963984540054)
    diffs = np.sort((b[None, :] - a[:, None]).ravel())
    assert shift == pytest.approx(np.median(diffs))
    # Moses: C = n m / 2 - z sqrt(n m (n + m + 1) / 12) = 90 - 1.96 * sqrt(180 * 28 / 12) = 49.83 -> 49
    assert (low, high) == (diffs[49], diffs[180 - 1 - 49])


def test_accepting_change_points_one_at_a_time_equals_the_obvious_scan():
    from perfstudy.changes._scan import RankScan

    rng = np.random.default_rng(9)
    y = np.round(rng.standard_normal(120), 1)
    scan = RankScan(y, 12)
    at = np.array([3, 30, 61, 100])
    part = RankScan(y, 12, at)
    for cut in (60, 20, 21, 110, 5):
        scan.cut(cut)
        part.cut(cut)
        slow = slow_scan(y, 12, scan.cuts)
        for got, want in zip(scan.z(), slow.T, strict=True):
            np.testing.assert_allclose(got, want, atol=1e-12)
        np.testing.assert_allclose(part.z()[0], slow[at - 1, 0], atol=1e-12)
