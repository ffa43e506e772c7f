"""perfstudy._lib.tdist against scipy.special: the t tail and quantile and the normal quantile that
compare uses without importing scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from perfstudy._lib import tdist as _tdist

DFS = [0.7, 1.0, 2.0, 3.5, 5.0, 9.3, 18.0, 38.0, 58.0, 120.0, 398.0, 5000.0]


@pytest.mark.parametrize("df", DFS)
def test_the_t_tail_matches_scipy(df):
    for t in [-40.0, -7.0, -2.1, -0.3, 0.0, 0.01, 0.5, 1.96, 3.0, 6.5, 12.0, 60.0]:
        expected = special.stdtr(df, -t)
        got = _tdist.t_sf(t, df)
        assert got == pytest.approx(expected, rel=1e-10, abs=1e-300), (t, df)


@pytest.mark.parametrize("df", DFS)
def test_the_t_quantile_matches_scipy(df):
    for q in [1e-9, 0.001, 0.025, 0.05, 0.3, 0.5, 0.8, 0.95, 0.975, 0.995, 1 - 1e-7]:
        assert _tdist.t_ppf(q, df) == pytest.approx(special.stdtrit(df, q), rel=1e-9, abs=1e-12), (q, df)


def test_the_normal_quantile_and_the_edges():
    for q in np.linspace(0.001, 0.999, 37):
        assert _tdist.norm_ppf(q) == pytest.approx(special.ndtri(q), rel=1e-12, abs=1e-14)
    assert _tdist.t_sf(np.inf, 5) == 0.0 and _tdist.t_sf(-np.inf, 5) == 1.0
    assert np.isnan(_tdist.t_sf(1.0, 0.0)) and np.isnan(_tdist.t_ppf(1.0, 5)) and np.isnan(_tdist.norm_ppf(0.0))
    assert _tdist.t_sf(2.0, np.inf) == pytest.approx(special.ndtr(-2.0), rel=1e-14)


def test_the_array_forms_match_scipy_and_the_scalar_forms():
    """t_sf_array and t_ppf_array: a suite's Welch degrees of freedom at once, the same numbers."""
    t, df = np.meshgrid([-40.0, -7.0, -2.1, -0.3, 0.0, 0.01, 0.5, 1.96, 3.0, 6.5, 12.0, 60.0], DFS)
    np.testing.assert_allclose(_tdist.t_sf_array(t, df), special.stdtr(df, -t), rtol=1e-10, atol=1e-300)
    q, df = np.meshgrid([1e-9, 0.001, 0.025, 0.05, 0.3, 0.5, 0.8, 0.95, 0.975, 0.995, 1 - 1e-7], DFS)
    np.testing.assert_allclose(_tdist.t_ppf_array(q, df), special.stdtrit(df, q), rtol=1e-9, atol=1e-12)
    scalar = np.vectorize(_tdist.t_ppf)(q, df)
    np.testing.assert_allclose(_tdist.t_ppf_array(q, df), scalar, rtol=1e-13)
    edges = _tdist.t_sf_array([np.inf, -np.inf, 1.0, np.nan, 2.0], [5.0, 5.0, 0.0, 5.0, np.inf])
    np.testing.assert_allclose(edges, [0.0, 1.0, np.nan, np.nan, special.ndtr(-2.0)], rtol=1e-14)
    assert np.isnan(_tdist.t_ppf_array([0.0, 1.0, 0.5], [5.0, 5.0, -1.0])).all()


@pytest.mark.parametrize(("d1", "d2"), [(1, 1), (1, 30), (3, 12), (7, 200), (2.5, 9.5)])
def test_f_sf_against_scipy(d1, d2):
    from scipy import stats

    from perfstudy._lib.tdist import f_sf

    for f in (0.0, 0.01, 0.5, 1.0, 2.7, 9.0, 60.0):
        assert f_sf(f, d1, d2) == pytest.approx(stats.f.sf(f, d1, d2), rel=1e-10, abs=1e-300)


def test_one_way_p_is_scipys_f_oneway():
    from scipy import stats

    from perfstudy.comparison._paired import _one_way_p

    rng = np.random.default_rng(5)
    groups = [rng.normal(shift, 1.0, size) for shift, size in ((0.0, 5), (0.4, 8), (1.1, 6))]
    assert _one_way_p(groups) == pytest.approx(stats.f_oneway(*groups).pvalue, rel=1e-10)
