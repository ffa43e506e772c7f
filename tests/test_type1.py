"""Table 3 at full size against the paper, and the same table on every executor."""

from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from perfstudy.studies.bakshy2015 import TABLE_3, TABLE_3_ROWS, table3
from perfstudy.type1 import bootstrap_clusters, segment_aa_study, type1_error_table


@pytest.fixture(scope="module")
def table_3():
    # the paper's sizes: endpoint 1, 16 hosts, 512 requests, 10,000 A/A tests, 1,000 replicates (~11 s)
    return table3(rng=20150518)


def test_table_3_rows_within_tolerance(table_3):
    """Table 3 (Type I err., .SE): each rate within 4 points and each mean SE within 0.015."""
    assert [tuple(r) for r in table_3[["design", "bootstrap"]].to_numpy()] == list(TABLE_3_ROWS)
    for row in table_3.itertuples():
        paper_rate, paper_se, paper_true = TABLE_3[(row.design, row.bootstrap)]
        assert abs(row.type1_error - paper_rate) <= 0.04, row
        assert abs(row.mean_estimated_se - paper_se) <= 0.015, row
        assert round(row.analytic_se, 2) == paper_true  # Table 3 "SE" column
        assert row.type1_error_mc == pytest.approx(np.sqrt(row.type1_error * (1 - row.type1_error) / 10_000))


def test_table_3_true_se_matches_theory(table_3):
    # (n - 1) s^2 / SE^2 ~ chi2(n - 1) with n = 10,000: central 99.9% band (about +-4.7% on variance)
    low, high = stats.chi2.ppf([5e-4, 1 - 5e-4], 9_999)
    for design, group in table_3.groupby("design"):
        q = 9_999 * group.true_se.iloc[0] ** 2 / group.analytic_se.iloc[0] ** 2
        assert low < q < high, design


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


def test_bad_input():
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
