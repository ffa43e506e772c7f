"""Notebooks 05 and 06's figures after Maricq et al.: CoV overview, sorted p-values, CONFIRM's convergence
and CoV against repetitions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from support.figures import horizontal_lines, legend_labels, panels, texts, vertical_lines

from perfstudy.diagnostics.repetitions import repetitions_needed
from perfstudy.studies.maricq2018_figures import (
    plot_confirm_convergence,
    plot_cov_overview,
    plot_cov_vs_repetitions,
    plot_sorted_p_values,
)


def test_the_cov_overview_sorts_every_series_and_counts_the_constant_ones_it_cannot_draw():
    survey = pd.DataFrame(
        {"family": ["cloud", "cloud", "micro", "micro"], "dataset": ["d1", "d1", "d2", "d2"],
         "benchmark": ["w", "x", "y", "z"], "cov": [0.2, 0.01, 1e-15, 0.05]}
    )  # fmt: skip
    fig = plot_cov_overview(survey, label_top=1)
    (ax,) = panels(fig)
    assert ax.get_title() == "CoV of every series (1 constant series not drawn)"
    assert legend_labels(ax) == ["cloud (2)", "micro (1)"]
    drawn = np.concatenate([c.get_offsets()[:, 1] for c in ax.collections])
    assert sorted(drawn) == pytest.approx([0.01, 0.05, 0.2])
    assert "1. d1: w (20%)" in texts(fig)  # the most variable series, named
    assert 0.10 in horizontal_lines(ax)


def test_sorted_p_values_give_each_familys_share_above_alpha_and_draw_zero_at_the_floor():
    fig = plot_sorted_p_values({"ADF": {"micro": np.array([0.0, 0.2, 0.5]), "cloud": np.array([0.01])}}, floor=1e-10)
    (ax,) = panels(fig)
    assert legend_labels(ax) == ["micro: 67% of 3", "cloud: 0% of 1"]
    assert ax.get_title() == "ADF\n50% of 4 at or above 0.05"
    assert min(ax.lines[0].get_ydata()) == 1e-10 and "below 1e-10 drawn at it" in ax.get_ylabel()
    with pytest.raises(ValueError, match="floor=2"):
        plot_sorted_p_values({"p": {"a": np.array([0.1, 0.2])}}, floor=2)


def test_confirm_convergence_marks_its_estimate_and_the_error_bounds():
    x = np.random.default_rng(0).lognormal(0, 0.02, 400)
    rep = repetitions_needed(x, error=0.01, trials=20, rng=0)
    fig = plot_confirm_convergence({"lognormal 2%": rep})
    (ax,) = panels(fig)
    assert ax.get_title() == "lognormal 2%"
    assert vertical_lines(ax)[0][0] == rep.estimate and f"{rep.estimate} runs" in texts(fig)
    assert sorted(horizontal_lines(ax)) == pytest.approx([-0.01, 0.0, 0.01])


def test_series_confirm_could_not_settle_are_triangles_at_the_largest_size():
    frame = pd.DataFrame({"family": ["f", "f", "g"], "cov": [0.01, 0.05, 0.02], "estimate": [20.0, np.nan, 50.0]})
    (ax,) = panels(plot_cov_vs_repetitions(frame, max_size=300))
    assert legend_labels(ax) == ["f (1 of 2)", "g (1 of 1)"]
    triangles = np.concatenate([c.get_offsets() for c in ax.collections if len(c.get_offsets())][1:2])
    assert triangles.tolist() == [[0.05, 300.0]]
    assert ax.get_title() == "(triangles: more than 300 runs)"


def test_figures_3_and_4_draw_a_panel_per_scope_and_a_line_per_family():
    from perfstudy.studies.maricq2018 import NormalityTests
    from perfstudy.studies.maricq2018_figures import plot_figure3, plot_figure4

    across = pd.DataFrame({"family": ["cwb", "cwb", "azure-vm-noise"], "p_value": [0.01, 0.2, 0.5]})
    within = pd.DataFrame({"family": ["sap-hana"] * 4, "p_value": [1e-9, 0.01, 0.3, 0.6]})
    fig = plot_figure3(NormalityTests(across, within, 0, 0), window=30, alpha=0.05)
    left, right = panels(fig)
    assert (
        left.get_title().startswith("across VMs (3 configurations)") and "67% of 3 at or above 0.05" in left.get_title()
    )
    assert right.get_title().startswith("within one VM, windows of 30 runs (4)")
    assert legend_labels(left) == ["azure-vm-noise: 100% of 1", "cwb: 50% of 2"] and horizontal_lines(left) == [0.05]
    series = pd.DataFrame({"family": ["sap-hana", "pt4cloud"], "adf_p_value": [0.0, 0.2]})
    (ax,) = panels(plot_figure4(series, alpha=0.05))
    assert ax.get_title().startswith("2 series in time order") and "(below 1e-12 drawn at it)" in ax.get_ylabel()
    with pytest.raises(TypeError, match="tests: expected NormalityTests"):
        plot_figure3(across, window=30)
