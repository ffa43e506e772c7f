"""What notebooks 03 and 05 say: each sentence against hand-made results whose answers are known."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from perfstudy.studies import maricq2018, maricq2018_said as said
from perfstudy.studies.maricq2018 import DegradedCopyRanking, NormalityTests


def _tests():
    """Four across-host tests (three rejected) and ten within-host windows (four normal)."""
    across = pd.DataFrame({"family": ["cwb"] * 3 + ["azure-vm-noise"], "p_value": [0.001, 0.01, 0.2, 0.04],
                           "reject": [True, True, False, True]})  # fmt: skip
    within = pd.DataFrame({"family": ["sap-hana"] * 10, "p_value": np.linspace(0.001, 0.5, 10),
                           "reject": [True] * 6 + [False] * 4})  # fmt: skip
    return NormalityTests(across, within, across_constant=2, within_constant=1234)


def _survey():
    return pd.DataFrame({
        "family": ["azure-vm-noise", "azure-vm-noise", "pt4cloud", "cwb", "sap-hana"],
        "dataset": ["a", "a", "pt4cloud-x", "cwb", "sap"], "benchmark": ["r", "r", "ep", "cpu", "q1"],
        "cov": [0.02, 0.15, 0.05, 0.3, 0.01], "shapiro_reject": [True, True, False, True, True],
    })  # fmt: skip


def _stationarity():
    series = pd.DataFrame(
        {"family": ["azure-vm-noise", "azure-vm-noise", "sap-hana"], "adf_reject": [False, True, False]}
    )
    sap = pd.DataFrame({"series": [5, 20], "non-stationary": [5, 1]}, index=pd.Index(["Regression", "Stable"]))
    return dict(series=series, stationary_share=1 / 3, sap=sap)


def _trap():
    return pd.DataFrame({"too_narrow": [2.0, 3.0, 10.0], "naive_95_coverage": [0.67, 0.49, 0.15],
                         "corrected_vs_blocks": [0.8, 0.9, 0.5]})  # fmt: skip


def _fig7(curve):
    ranking = pd.DataFrame({"host": list("abcd"), "reject": [True, False, False, False]})
    with_copy = pd.concat([ranking, pd.DataFrame({"host": ["copy"], "reject": [True]})], ignore_index=True)
    elimination = SimpleNamespace(curve=pd.DataFrame({"statistic": curve}))
    return DegradedCopyRanking(ranking, with_copy, "copy", 3, 1, elimination)


def test_figure3_states_the_shares_against_the_paper():
    text = said.figure3_said(_tests(), window=30).text
    assert text == (
        "Across VMs normality is rejected for 75.0% of 4 configurations (OSDI: 710 of 713); 2 constant groups have no "
        "test. Within one VM 40.0% of 10 windows of 30 runs look normal (OSDI: roughly half); 1234 constant windows "
        "have no test."
    )


def test_the_trap_sentence_reads_the_medians_and_the_range():
    text = said.trap_said(_trap()).text
    assert text.startswith("The naive interval is too narrow by a median factor of 3.0 (range 2.0 to 10.0) on 3 ")
    assert "covers the mean about 49% of the time. Eq. 6 recovers a median 0.80 of the batch-means SE." in text


def test_the_diagnostics_summary_counts_what_its_tables_hold():
    text = said.diagnostics_said(_survey(), _tests(), _stationarity(), _trap(), window=30).text
    # CoVs 0.02, 0.15, 0.05, 0.3, 0.01: three of five below 10%
    assert text.startswith("* **Variability.** 60% of the series sit below the 10% CoV")
    assert "normality is rejected for 75% of 4 configurations (CloudLab: 710 of 713)" in text
    assert "40% of 10 windows of 30 runs look normal" in text
    # the whole long series: two Azure rows and one PT4Cloud row, two rejected
    assert "whole long series are rejected 67% of the time" in text
    assert "Of SAP's series, 5 labelled *Regression* fail it and 1 with other labels; 1 long-lived Azure" in text
    assert "too small by a median factor of 3.0, so a naive 95% interval covers the mean about 49%" in text


def test_the_ranking_sentence_reads_the_curve_shape():
    steep = said.ranking_said(_fig7([0.9, 0.3, 0.25, 0.2, 0.19, 0.18])).text
    assert steep.startswith("25% of the 4 VMs differ significantly from the rest (permutation p below 0.05). ")
    assert "The degraded copy of the VM ranked 3 ranks 1 of 5." in steep
    assert "from 0.9 to 0.25 in the first 2 removals and to 0.18 by the last: steeply at first" in steep
    flat = said.ranking_said(_fig7([0.5, 0.45, 0.4])).text
    assert "in the first removal and" in flat and flat.endswith("shows no clear set of unrepresentative VMs here.")


def test_the_short_lived_sentence_follows_the_refusal():
    refused = said.short_lived_said(dict(vms=1000, single_run=990, refused="needs two runs")).text
    assert refused == (
        "The short-lived fleet cannot be ranked: ranking a server needs at least two runs on it. The Azure "
        "short-lived fleet has 1,000 VMs, 990 of which ran once."
    )
    assert said.short_lived_said(dict(vms=3, single_run=0, refused="")).text.startswith("The short-lived fleet was")


def test_the_repetitions_summary_reads_each_table():
    figure6 = dict(estimated=200, series=250, spearman_cov_estimate=0.71, median_estimate_cov_below_4pct=35.0)
    table4 = pd.DataFrame({"inflation": [1.5, 4.25]})
    copies = pd.DataFrame({"copy_rank": [1, 2, 1]})
    text = said.repetitions_said(figure6, table4, copies, _fig7([0.5, 0.4])).text
    assert "CONFIRM estimated 200 of 250 series; the CoV orders the estimates only roughly (Spearman 0.71)" in text
    assert "series below 4% CoV need a median of 35 runs" in text
    assert "multiplies the runs needed by 1.5-4.2 times on the Azure benchmarks (Maricq et al.: 2.1 to 5.9" in text
    assert "ranks first on 2 of 3 Azure benchmarks. On the CWB fleet 25% of 4 VMs" in text


def test_the_survey_view_shows_the_compared_columns():
    survey = _survey().assign(n=[10] * 5, shapiro_p_value=0.01, adf_p_value=0.2, se_inflation=1.5, ess=3.0, notes="")
    html = said.survey_view(survey, rows=2).to_html()
    assert "Shapiro-Wilk p" in html and "effective n" in html and "2.00%" in html and "15.00%" in html
    assert "30.00%" not in html  # the third row is not shown


def test_whole_series_share_reads_only_the_long_families():
    assert maricq2018.whole_series_reject_share(_survey()) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="no Azure or PT4Cloud series"):
        maricq2018.whole_series_reject_share(_survey().query("family == 'cwb'"))


def test_wrong_results_are_refused_by_name():
    with pytest.raises(TypeError, match="tests: expected NormalityTests"):
        said.figure3_said(_survey(), window=30)
    with pytest.raises(ValueError, match="too_narrow"):
        said.trap_said(_survey())
