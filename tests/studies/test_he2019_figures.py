"""Notebook 04's figures: PT4Cloud's distribution after each interval with its band, and each method's accuracy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from support.figures import bar_heights, legend_labels, panels

from perfstudy.stability.pt4cloud import pt4cloud
from perfstudy.studies.he2019_figures import plot_method_accuracy, plot_pt4cloud_distributions


def test_each_interval_up_to_the_reported_one_is_a_curve_beside_the_band_and_the_truth():
    rng = np.random.default_rng(1)
    intervals = [rng.normal(50, 2, 300) for _ in range(4)]
    result = pt4cloud(intervals, replicates=20, rng=0)
    truth = rng.normal(50, 2, 2000)
    fig = plot_pt4cloud_distributions({"EP on m5": (intervals, result, truth)}, xlabels={"EP on m5": "runtime (s)"})
    (ax,) = panels(fig)
    used = result.intervals_used
    expected = [f"after interval {k}" for k in range(1, used)] + [f"after interval {used} (reported)"]
    assert legend_labels(ax) == [*expected, "99% band", "ground truth"]
    assert ax.get_title() == "EP on m5" and ax.get_xlabel() == "runtime (s)"
    low, high = ax.get_xlim()
    assert low < 45 and high > 55 and high - low < 30  # the bulk of the runs, not the kernel grid's tails


def test_a_case_that_is_not_a_pt4cloud_result_is_refused_by_name():
    x = np.arange(10.0)
    with pytest.raises(TypeError, match=r"cases\['c'\]"):
        plot_pt4cloud_distributions({"c": ([x], "not a result", x)})


def test_each_methods_bars_are_its_accuracies_and_its_legend_their_mean():
    frame = pd.DataFrame({"config": ["a", "b", "c"], "pt4cloud": [0.9, 0.8, 1.0], "cov": [0.5, np.nan, 0.7]})
    (ax,) = panels(plot_method_accuracy(frame, methods=["pt4cloud", "cov"], labels={"cov": "CoV rule"}))
    assert bar_heights(ax)[:3] == pytest.approx([0.9, 0.8, 1.0])
    assert legend_labels(ax) == ["pt4cloud (mean 90.0%)", "CoV rule (mean 60.0%)"]  # a missing accuracy is not a 0
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    with pytest.raises(ValueError, match="bogus"):
        plot_method_accuracy(frame, methods=["bogus"])


def test_the_sota_figure_names_its_methods_and_margin():
    from perfstudy.studies.he2019_figures import plot_sota

    compare = pd.DataFrame({"label": ["EP AWS-L", "FT Chm-M"], "accuracy": [0.95, 0.9], "sota1_accuracy": [0.8, 0.7],
                            "sota2_accuracy": [0.85, 0.6]})  # fmt: skip
    (ax,) = panels(plot_sota(compare, margin=0.1))
    assert [label.split(" (mean")[0] for label in legend_labels(ax)] == [
        "PT4Cloud (weekly)", "SOTA1 (best of grid)", "SOTA2 (+-10%)"]  # fmt: skip
    with pytest.raises(ValueError, match="sota2_accuracy"):
        plot_sota(compare.drop(columns="sota2_accuracy"), margin=0.1)


def test_the_weekly_figure_titles_each_panel_with_its_weeks_and_accuracy():
    from support.studies import _have_data

    from perfstudy.studies import he2019
    from perfstudy.studies.he2019_figures import plot_weekly

    if not _have_data():
        pytest.skip("real datasets unavailable ($PERFSTUDY_DATA, cache)")
    weekly = he2019.weekly_study(["pt4cloud-AWS-EP-L"], replicates=50, rng=0)
    (ax,) = panels(plot_weekly(weekly, ["pt4cloud-AWS-EP-L"]))
    row = weekly.iloc[0]
    assert ax.get_title().startswith(f"EP on AWS-L: {row.weeks} weeks, accuracy {row.accuracy:.1%}")
    with pytest.raises(ValueError, match="names"):
        plot_weekly(weekly, ["pt4cloud-AWS-FT-XL"])  # not among the study's rows
