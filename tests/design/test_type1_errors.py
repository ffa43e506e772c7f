"""Table 3 at full size against the paper, and the same table on every executor."""

from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from perfstudy._lib.parallel import twin_streams
from perfstudy.design.type1_errors import bootstrap_clusters, segment_aa_study, type1_error_table, type1_error_tables
from perfstudy.studies.bakshy2015 import TABLE_3_ROWS, table3


@pytest.fixture(scope="module")
def table_3():
    # the paper's sizes: endpoint 1, 16 hosts, 512 requests, 10,000 A/A tests, 1,000 replicates (~11 s)
    return table3(rng=20150518)


@pytest.mark.slow  # simulates 13 rows of A/A tests
def test_table_3_rows_against_the_paper_in_monte_carlo_errors(table_3):
    """Table 3 (Type I err., .SE, SE): every row the stated model can produce is within 3 MC errors.

    Rows it cannot produce: in the unbalanced and host-balanced designs each request runs once, so the
    request bootstrap is the iid bootstrap and at most one row of each pair can match the paper (its
    pairs are 6.4 and 4.3 MC errors apart); and request-balanced / iid, whose 10.8% lies outside the
    2.4-8.9% that the paper's own .SE 0.07 and SE 0.07 allow. With 13 rows and 4 implementations the
    closest of them is within 3 combined MC errors (ours from 10,000 tests, the paper's from 10,000)
    where they agree; a row off by chance fails with p about 13 * 0.003.
    """
    assert [tuple(r) for r in table_3[["design", "bootstrap"]].to_numpy()] == list(TABLE_3_ROWS)
    t3 = table_3.set_index(["design", "bootstrap"])
    unreachable = {("request_balanced", "iid")}
    for design in ("unbalanced", "host_balanced"):
        pair = t3.loc[design].loc[["request", "iid"]]
        unreachable.add((design, pair.closest_distance_mc.idxmax()))
        # ours: one law, the two rows within 3 MC errors of each other
        assert abs(pair.type1_error.iloc[0] - pair.type1_error.iloc[1]) < 3 * np.sqrt(2 * 0.2 * 0.8 / 10_000)
    reachable = t3.drop(index=list(unreachable))
    assert len(reachable) == 10
    # the one reachable row the stated model misses: host block, 4.5-4.7% with t against 5.7% (3.2 here);
    # test_request_balanced_rows_at_the_implied_true_se brings it within
    missed = reachable[reachable.closest_distance_mc > 3]
    assert list(missed.index) == [("request_balanced", "host_block")], reachable.closest_distance_mc
    assert missed.closest_distance_mc.iloc[0] < 4.5
    for row in table_3.itertuples():
        assert round(row.analytic_se, 2) == row.paper_se  # Table 3 "SE" column
        assert row.type1_error_mc == pytest.approx(np.sqrt(row.type1_error * (1 - row.type1_error) / 10_000))
    rb_iid = t3.loc[("request_balanced", "iid")]
    assert not rb_iid.paper_type1_low <= rb_iid.paper_type1_error <= rb_iid.paper_type1_high
    assert rb_iid.paper_type1_low <= rb_iid.type1_error <= rb_iid.paper_type1_high  # ours is consistent


def test_implied_true_se_round_trips_through_a_simulation():
    """The paper's request-balanced iid rate (10.8%) and our iid SE imply a true SE of 0.0795 (the formula
    gives 0.0728); simulated with host SDs scaled to it, the iid rate comes back to 10.8% within 3 MC
    errors of a rate from 10,000 tests, and the simulated true SE to within the chi-square band."""
    from perfstudy.studies import bakshy2015

    implied = bakshy2015.implied_true_se(0.108, 0.0652)
    assert implied == pytest.approx(1.959964 * 0.0652 / stats.norm.isf(0.054))
    scaled, k = bakshy2015.with_host_sd_scaled_to("request_balanced", implied)
    assert k == pytest.approx(1.093, abs=0.002)
    table = type1_error_table(scaled, rows=[("request_balanced", "iid")], rng=7)
    assert abs(table.type1_error.iloc[0] - 0.108) < 3 * np.sqrt(0.108 * 0.892 / 10_000)
    assert table.true_se.iloc[0] == pytest.approx(implied, rel=0.03)  # chi2 band of 10,000 draws: +-1.4% (99%)
    with pytest.raises(ValueError, match="target_se=0.001"):
        bakshy2015.with_host_sd_scaled_to("request_balanced", 0.001)


@pytest.mark.slow  # shares the simulated Table 3
def test_table_3_denominators_see_the_same_experiments(table_3):
    """Both denominators analyse one set of A/A tests: the iid rows barely move (y's mean is 0.06 against
    an SD near 1, so the counts SE differs by about 0.2%), the request rows of balanced designs (SE 0.01)
    by a few per cent, the host rows of the single-batch designs by the squared condition means."""
    t3 = table_3.set_index(["design", "bootstrap"])
    ratio = t3.mean_estimated_se_counts / t3.mean_estimated_se
    assert np.allclose(ratio.xs("iid", level="bootstrap"), 1, atol=0.01)
    assert (ratio.xs("request", level="bootstrap") < 1.05).all()
    assert ratio["unbalanced", "host"] > 1.02 and ratio["request_balanced", "host"] > 1.02
    # two-batch designs weight a host alike in both conditions, so a common mean cancels
    assert ratio["fully_balanced", "host"] == pytest.approx(1, abs=0.005)


@pytest.mark.slow  # shares the simulated Table 3
def test_table_3_true_se_matches_theory(table_3):
    # (n - 1) s^2 / SE^2 ~ chi2(n - 1) with n = 10,000: central 99.9% band (about +-4.7% on variance)
    low, high = stats.chi2.ppf([5e-4, 1 - 5e-4], 9_999)
    for design, group in table_3.groupby("design"):
        q = 9_999 * group.true_se.iloc[0] ** 2 / group.analytic_se.iloc[0] ** 2
        assert low < q < high, design


@pytest.mark.slow  # shares the simulated Table 3
def test_table_3_qualitative_findings(table_3):
    rate = table_3.set_index(["design", "bootstrap"]).type1_error
    # request bootstrap massively anti-conservative wherever requests are balanced (section 5.2)
    assert rate["request_balanced", "request"] > 0.6 and rate["fully_balanced", "request"] > 0.4
    # iid bootstrap of the fully balanced design: conservative to the point of no false positives
    assert rate["fully_balanced", "iid"] < 0.005
    # host-block repairs the request-balanced host bootstrap's overestimate
    se = table_3.set_index(["design", "bootstrap"]).mean_estimated_se
    assert se["request_balanced", "host"] > 1.2 * se["request_balanced", "host_block"]
    # with few clusters (8 or 16) the t interval on C - 1 df is closer to 5% than the normal one
    t_rate = table_3.set_index(["design", "bootstrap"]).type1_error_t
    for key in [("host_balanced", "host"), ("fully_balanced", "host"), ("request_balanced", "host_block")]:
        assert abs(t_rate[key] - 0.05) < abs(rate[key] - 0.05)


SMALL = dict(
    experiments=1_300,
    replicates=40,
    requests=32,
    hosts=4,
    rows=[("unbalanced", "host"), ("request_balanced", "host_block"), ("fully_balanced", "iid")],
)


def test_same_table_on_every_executor():
    """The same seed gives the same table in-process, on a process pool and on a Dask cluster."""
    distributed = pytest.importorskip("distributed")
    serial = type1_error_table(rng=3, **SMALL)
    with ProcessPoolExecutor(2) as pool:
        pooled = type1_error_table(rng=3, executor=pool, **SMALL)
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        dasked = type1_error_table(rng=3, executor=client.get_executor(), **SMALL)
    pd.testing.assert_frame_equal(serial, pooled)
    pd.testing.assert_frame_equal(serial, dasked)
    assert not serial.equals(type1_error_table(rng=4, **SMALL))


def test_both_denominators_from_one_draw_are_each_denominators_own_table_bit_for_bit():
    """One simulation and one weight draw serve both denominators: each table equals the one a separate run
    at that denominator gives from the same stream (the slow, obvious way: Table 3 drew everything twice)."""
    both = type1_error_tables(rng=11, **SMALL)
    assert list(both) == ["weights", "counts"]
    for denominator, table in both.items():
        pd.testing.assert_frame_equal(
            table, type1_error_table(denominator=denominator, rng=11, **SMALL), rtol=0, atol=0
        )
    # the denominators do differ (the host rows of a single-batch design by the squared condition means)
    assert not np.array_equal(both["weights"].mean_estimated_se, both["counts"].mean_estimated_se)
    # table3 is those two tables, on the stream each drew from when it was drawn twice
    rows = [("unbalanced", "host"), ("request_balanced", "host_block")]
    small = dict(experiments=1_300, replicates=40, requests=32, hosts=4)
    t3 = table3(rows=rows, rng=5, **small)
    for denominator, stream in zip(("weights", "counts"), twin_streams(2, rng=5)):
        alone = type1_error_table(denominator=denominator, rows=rows, rng=stream, **small)
        column = "mean_estimated_se" if denominator == "weights" else "mean_estimated_se_counts"
        np.testing.assert_array_equal(t3[column], alone.mean_estimated_se)
        np.testing.assert_array_equal(
            t3["type1_error" if denominator == "weights" else "type1_error_counts"], alone.type1_error
        )


def test_bad_input():
    with pytest.raises(TypeError, match="denominators='counts'"):
        type1_error_tables(denominators="counts", experiments=10)
    with pytest.raises(ValueError, match="each at most once"):
        type1_error_tables(denominators=("counts", "counts"), experiments=10)
    with pytest.raises(ValueError, match="'sizes' is not one of"):
        type1_error_tables(denominators=("weights", "sizes"), experiments=10)
    with pytest.raises(ValueError, match="experiments"):
        type1_error_table(experiments=1)
    with pytest.raises(ValueError, match="confidence"):
        type1_error_table(confidence=95, experiments=10)
    with pytest.raises(ValueError, match="weights"):
        type1_error_table(weights="normal", experiments=10)
    with pytest.raises(ValueError, match="bootstrap 'jackknife'"):
        type1_error_table(rows=[("unbalanced", "jackknife")], experiments=10)
    with pytest.raises(ValueError, match="design="):
        type1_error_table(rows=[("balanced", "iid")], experiments=10)
    with pytest.raises(ValueError, match="bootstrap="):
        bootstrap_clusters("pairs", None)


def test_segment_study_on_independent_data_is_nominal():
    # iid normal runs: both bootstraps should reject about 5%. 3,000 A/A tests, binomial MC error
    # 0.4 pp (understated: tests reuse one series); 20 segments per condition keep the few-cluster
    # excess small. Tolerance +-2.5 points.
    values = np.random.default_rng(1).normal(size=60_000)
    study = segment_aa_study(values, segments=20, segment_length=25, experiments=3000, replicates=300, rng=2)
    assert list(study.bootstrap) == ["iid", "segment"]
    assert np.all(np.abs(study.type1_error - 0.05) < 0.025), study


def test_segment_study_catches_autocorrelation():
    # AR(1) runs with phi = 0.95: the iid bootstrap ignores the dependence within segments (its SE is
    # too small by about sqrt((1 + phi) / (1 - phi)) / ~2 at L = 30) and rejects far too often; the
    # segment bootstrap stays near 5% (with 8 segments, up to ~8% from the normal quantile)
    rng = np.random.default_rng(3)
    noise = rng.normal(size=40_000)
    values = np.empty_like(noise)
    values[0] = noise[0]
    for i in range(1, noise.size):
        values[i] = 0.95 * values[i - 1] + noise[i]
    study = segment_aa_study(values, experiments=2000, replicates=300, rng=4).set_index("bootstrap")
    assert study.loc["iid", "type1_error"] > 0.4
    assert study.loc["segment", "type1_error"] < 0.1
    assert study.loc["iid", "se_ratio"] < 0.5
    assert study.loc["segment", "mean_estimated_se"] == pytest.approx(study.loc["segment", "true_se"], rel=0.15)


def test_segment_study_bad_input():
    with pytest.raises(ValueError, match="values: 100 runs hold 3 segments"):
        segment_aa_study(np.arange(100.0), segments=8, segment_length=30)
    with pytest.raises(ValueError, match="finite"):
        segment_aa_study(np.array([1.0, np.nan] * 500))
    with pytest.raises(ValueError, match="segments=1"):
        segment_aa_study(np.arange(1000.0), segments=1)
