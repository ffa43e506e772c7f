import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from perfstudy.diagnostics.diagnosis import diagnose
from perfstudy.diagnostics.variability import autocorrelation_se, stationarity, warmup
from perfstudy.studies.public_data import survey_datasets

MIRROR = Path(os.environ.get("PERFSTUDY_DATA") or "/nonexistent")


def _fleet():
    rng = np.random.default_rng(5)
    walk = np.cumsum(rng.normal(size=300))
    return pd.DataFrame(
        {
            "host": np.repeat(["iid", "walk", "short", "flat"], [300, 300, 12, 50]),
            "t": np.r_[np.arange(300), np.arange(300), np.arange(12), np.arange(50)],
            "value": np.r_[rng.normal(10, 1, 300), 50 + walk, rng.normal(size=12), np.full(50, 3.0)],
        }
    )


def test_diagnose_agrees_with_the_strict_functions():
    frame = _fleet()
    result = diagnose(frame.sample(frac=1.0, random_state=1), "host", order="t", rng=2).set_index("host")
    assert result.index.tolist() == ["flat", "iid", "short", "walk"]  # no series left out
    for host in ["iid", "walk"]:
        x = frame[frame.host == host].value.to_numpy()
        assert result.loc[host, "shapiro_p_value"] == pytest.approx(stats.shapiro(x).pvalue)
        assert result.loc[host, "adf_p_value"] == pytest.approx(
            stationarity(frame[frame.host == host].drop(columns="t")).p_value[0]
        )
        assert result.loc[host, "corrected_se"] == pytest.approx(autocorrelation_se(x).standard_error)
        expected = warmup(x).index
        assert (
            np.isnan(result.loc[host, "warmup_index"])
            if expected is None
            else result.loc[host, "warmup_index"] == expected
        )
    assert bool(result.loc["iid", "adf_reject"]) and not bool(result.loc["walk", "adf_reject"])
    assert result.loc["walk", "independence_p_value"] < 0.01 < result.loc["iid", "independence_p_value"]
    assert bool(result.loc["walk", "independence_reject"]) and not bool(result.loc["iid", "independence_reject"])
    assert result.loc["walk", "se_inflation"] > 3
    assert result.loc["flat", "notes"] == "constant: no test applies"
    assert "fewer than 20 points: no ADF" in result.loc["short", "notes"] and np.isnan(
        result.loc["short", "adf_p_value"]
    )


def test_diagnose_without_order_runs_only_order_free_tests():
    result = diagnose(_fleet(), "host", rng=0).set_index("host")
    assert result.adf_p_value.isna().all() and result.corrected_se.isna().all()
    assert result.loc["iid", "shapiro_p_value"] > 0 and "no time order" in result.loc["iid", "notes"]


def test_diagnose_is_reproducible_and_reports_nan():
    frame = _fleet()
    pd.testing.assert_frame_equal(diagnose(frame, "host", order="t", rng=4), diagnose(frame, "host", order="t", rng=4))
    frame.loc[[3, 4], "value"] = np.nan
    frame.loc[frame.host == "short", "value"] = np.nan
    with pytest.raises(ValueError, match=r"14 NaN or infinite values \(in groups \[\{'host': 'iid'\}"):
        diagnose(frame, "host", order="t")
    with pytest.warns(UserWarning, match="14 of 662 rows"):
        result = diagnose(frame, "host", order="t", dropna=True, rng=4).set_index("host")
    assert result.dropped.to_dict() == {"flat": 0, "iid": 2, "short": 12, "walk": 0}
    assert result.loc["iid", "n"] == 298 and result.loc["short", "notes"] == "every value is NaN or infinite"
    with pytest.raises(ValueError, match=r"by='vm': df has no such column"):
        diagnose(frame, "vm")


@pytest.mark.skipif(not MIRROR.is_dir(), reason="PERFSTUDY_DATA does not point at the dataset mirror")
def test_survey_of_datasets():
    result = survey_datasets(
        ["azure-redis-get-long", "azure-redis-get-short", "sap-hana-0017", "laaber-golang-snappy"],
        permutations=99,
        rng=0,
    )
    counts = result.groupby("dataset").size().to_dict()
    # 3 long-lived VMs; short-lived VMs run once each, so the fleet is one series; 14 Go benchmarks
    assert counts == {
        "azure-redis-get-long": 3,
        "azure-redis-get-short": 1,
        "sap-hana-0017": 1,
        "laaber-golang-snappy": 14,
    }
    assert result.loc[result.dataset == "azure-redis-get-short", "n"].item() == 11868
    with pytest.raises(ValueError, match="not a registered dataset with series"):
        survey_datasets(["sap-hana-details"])


def test_diagnose_series_is_the_row_diagnose_writes():
    """The per-series function is the step of the survey: same numbers as diagnose's one-group row, and
    its statistics are scipy's (Shapiro-Wilk) and numpy's (mean, CoV)."""
    from scipy import stats

    from perfstudy.diagnostics.diagnosis import SeriesDiagnosis, diagnose, diagnose_series

    x = np.random.default_rng(5).normal(10, 1, 300).cumsum() / 100 + 10
    one = diagnose_series(x, permutations=199, rng=np.random.default_rng(7).spawn(1)[0])
    assert isinstance(one, SeriesDiagnosis)
    row = diagnose(
        pd.DataFrame({"value": x, "t": np.arange(x.size), "s": 0}), "s", order="t", permutations=199, rng=7
    ).iloc[0]
    for name in ("n", "mean", "cov", "shapiro_p_value", "adf_statistic", "corrected_se", "independence_p_value"):
        assert getattr(one, name) == pytest.approx(row[name], rel=1e-12), name
    assert one.mean == pytest.approx(x.mean()) and one.cov == pytest.approx(x.std(ddof=1) / x.mean())
    assert one.shapiro_p_value == pytest.approx(stats.shapiro(x).pvalue, rel=1e-9)
    unordered = diagnose_series(x, ordered=False)
    assert np.isnan(unordered.adf_statistic) and "no time order" in unordered.notes
    with pytest.raises(ValueError, match="x: 1 of 300 values are NaN"):
        diagnose_series(np.where(np.arange(300) == 5, np.nan, x))
