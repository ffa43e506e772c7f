"""Maricq et al. (OSDI'18): the tables, the servers and the survey figures."""

from __future__ import annotations

from support.studies import (
    STUDY_CALLS,
    needs_data,
)

from perfstudy.studies import maricq2018


@needs_data
def test_maricq_tables():
    indices = maricq2018.median_ci_index_table([8, 100])
    # by hand, n = 8, z = 1.96: floor((8 - 5.54)/2) = 1, ceil(1 + 13.54/2) = 8; Le Boudec's n = 100: 40, 61
    assert list(indices.iloc[0, 1:3]) == [1, 8] and list(indices.iloc[1, 1:3]) == [40, 61]
    summary = STUDY_CALLS["perfstudy.studies.maricq2018.figure3_normality"](0)
    assert summary["across_tests"] == 145 and 0.75 < summary["across_reject_share"] < 0.9
    table = STUDY_CALLS["perfstudy.studies.maricq2018.table4_degraded_server"](1)
    assert table.runs_with_outlier.iloc[0] == 4 * 40 and table.servers.iloc[0] == 3


@needs_data
def test_maricq_servers_and_survey_figures():
    ranking = STUDY_CALLS["perfstudy.studies.maricq2018.degraded_copy_ranking"](0)
    assert ranking.copy_rank.iloc[0] == 1  # a 10% slower copy of host 0 stands out among three hosts
    survey = STUDY_CALLS["perfstudy.studies.public_data.survey_datasets"](0)
    fig4 = maricq2018.figure4_stationarity(survey)
    assert fig4["sap"].loc["Regression", "non-stationary"] == 1  # SAP labels sap-hana-0016 a regression
    assert set(maricq2018.order_table(fig4["series"]).columns) == {"series", "order_matters", "median_lag1"}
    assert maricq2018.warmup_table(fig4["series"]).loc["sap-hana", "series"] == 1
    cov = maricq2018.cov_summary(survey)
    assert cov["by_family"].loc["sap-hana", "series"] == 1 and cov["by_family"].series.dtype.kind == "i"


@needs_data
def test_the_short_lived_fleet_is_refused_by_the_ranking_and_counted():
    from perfstudy.io.datasets import load

    fleet = maricq2018.short_lived_ranking("azure-redis-get-short")
    runs = load("azure-redis-get-short").groupby("host").size()
    assert fleet["vms"] == runs.size and fleet["single_run"] == int((runs < 2).sum())
    assert "fewer than 2 samples" in fleet["refused"]  # rank_hosts' own refusal, kept word for word
