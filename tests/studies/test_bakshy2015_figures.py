"""Notebooks 01 and 02's figures after Bakshy & Frachtenberg: delta_hat's densities, bootstraps against the
truth, Type I error per real series, the recovered sigmas, interval methods, the variance split and pilots."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from support.figures import bar_widths, legend_labels, panels, texts

from perfstudy.notebook.plots import DESIGN_LABELS
from perfstudy.studies import bakshy2015_figures as figures


def test_the_dashed_normal_has_the_closed_form_se_and_the_title_counts_experiments():
    x = np.random.default_rng(0).normal(0, 0.1, 500)
    (ax,) = panels(figures.plot_delta_hat_densities({"unbalanced": x}, {"unbalanced": 0.1}, title="E1"))
    (normal,) = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert max(normal.get_ydata()) == pytest.approx(stats.norm.pdf(0, scale=0.1), rel=1e-3)
    assert legend_labels(ax) == [DESIGN_LABELS["unbalanced"]]
    assert ax.get_title() == "E1: delta_hat over 500 simulated experiments"


def test_bootstraps_are_centred_on_the_estimate_and_labelled_with_their_spread():
    rng = np.random.default_rng(0)
    truth, boot = rng.normal(0, 1, 400), rng.normal(3, 0.5, 400)
    (ax,) = panels(figures.plot_bootstrap_vs_truth(truth, {"iid": boot}, estimate=3.0))
    assert legend_labels(ax) == [
        f"true distribution (400 simulations), sd {truth.std(ddof=1):.4f}",
        f"iid bootstrap of one experiment, sd {boot.std(ddof=1):.4f}",
    ]
    centred = ax.lines[1]
    peak = centred.get_xdata()[np.argmax(centred.get_ydata())]
    assert abs(peak) < 0.3  # shifted by -estimate: around 0, not 3
    with pytest.raises(ValueError, match=r"bootstraps\['iid'\]: every value is 3.0; a density is undefined"):
        figures.plot_bootstrap_vs_truth(truth, {"iid": np.full(5, 3.0)}, estimate=3.0)


def test_the_type1_band_is_the_binomial_95_percent_range_of_the_nominal_rate():
    frame = pd.DataFrame(
        {"series": ["a", "b", "a", "b"], "bootstrap": ["iid", "iid", "segment", "segment"],
         "type1_error": [0.3, 0.2, 0.05, 0.06], "type1_error_mc": [0.02] * 4, "se_ratio": [0.4, 0.5, 1.0, 1.0]}
    )  # fmt: skip
    fig = figures.plot_type1_by_series(frame, experiments=400)
    left, right = panels(fig)
    (band,) = [p for p in left.patches if p.get_width() < 1]
    half = 1.96 * np.sqrt(0.05 * 0.95 / 400)
    assert (band.get_x(), band.get_x() + band.get_width()) == pytest.approx((0.05 - half, 0.05 + half))
    assert [t.get_text() for t in left.get_yticklabels()] == ["a", "b"]
    assert legend_labels(left) == ["iid", "segment"]


def test_recovery_draws_each_fit_and_its_interval_beside_the_truth():
    frame = pd.DataFrame(
        {"endpoint": ["E1", "E2"], "parameter": ["host", "host"], "truth": [0.1, 0.2], "estimate": [0.12, 0.18],
         "low": [0.05, 0.1], "high": [0.2, 0.3]}
    )  # fmt: skip
    (ax,) = panels(figures.plot_recovery(frame))
    assert ax.get_title() == "sigma host"
    assert list(ax.lines[0].get_ydata()) == pytest.approx([0.12, 0.18])
    assert ax.collections[-1].get_offsets()[:, 1].tolist() == pytest.approx([0.1, 0.2])  # truth, crosses
    assert [t.get_text() for t in ax.get_xticklabels()] == ["E1", "E2"]


def test_interval_methods_draw_both_intervals_a_panel_a_term():
    frame = pd.DataFrame(
        {"term": ["host"], "estimate": [0.1], "profile_low": [0.05], "profile_high": [0.2],
         "bootstrap_low": [0.07], "bootstrap_high": [0.15], "levels": [8]}
    )  # fmt: skip
    fig = figures.plot_interval_methods(frame, title="md-sim")
    (ax,) = panels(fig)
    segments = [c.get_segments()[0][:, 1].tolist() for c in ax.collections]
    assert segments == [pytest.approx([0.05, 0.2]), pytest.approx([0.07, 0.15])]
    assert ax.get_title() == "sigma host\n(8 levels)"


def test_the_variance_split_stacks_each_benchmarks_shares_and_names_the_unfitted():
    frame = pd.DataFrame(
        {"family": ["cwb", "cwb"], "benchmark": ["x", "y"], "total_sd": [0.05, np.nan],
         "share_region": [0.0, np.nan], "share_host": [0.6, np.nan], "share_batch": [0.1, np.nan],
         "share_host_batch": [0.1, np.nan], "share_noise": [0.2, np.nan]}
    )  # fmt: skip
    (ax,) = panels(figures.plot_variance_split(frame))
    assert [t.get_text() for t in ax.get_yticklabels()] == ["y  (not fitted)", "x  (sd 0.050)"]
    # x's bars, one per role, end to end; y's are empty
    assert bar_widths(ax)[1::2].sum() == pytest.approx(1.0) and bar_widths(ax)[0::2].sum() == 0


def test_the_pilot_budget_draws_each_batch_count_a_line():
    summary = pd.DataFrame(
        {"pilot_hosts": [4, 8, 4, 8], "pilot_batches": [2, 2, 4, 4], "se_ratio_median": [1.4, 1.1, 1.2, 1.0],
         "se_ratio_low": [0.9] * 4, "se_ratio_high": [2.0] * 4, "within_10pct": [0.2, 0.5, 0.3, 0.7]}
    )  # fmt: skip
    fig = figures.plot_pilot_budget(summary, target_se=0.05)
    left, right = panels(fig)
    assert legend_labels(left) == ["2 batches", "4 batches"]
    assert [list(line.get_ydata()) for line in right.lines] == [[0.2, 0.5], [0.3, 0.7]]
    assert left.get_ylabel() == "true SE / target (0.05)"
    assert "pilots whose design keeps its promise" in texts(fig)
