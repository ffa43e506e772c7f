"""Notebook 10's figures: SAP's series with each detector's change points, and the planted changes' recall."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from support.figures import bar_heights, legend_labels, panels, vertical_lines

from perfstudy.studies.history_figures import plot_planted_recall, plot_sap_series


def _sap() -> pd.DataFrame:
    """Two series shaped like history_validation.sap_frame: s0 with its labelled step at 40, s1 without."""
    rng = np.random.default_rng(0)
    parts = [
        pd.DataFrame({"benchmark": b, "value": np.exp(rng.standard_normal(80) * 0.01 + 0.2 * (np.arange(80) >= 40) * (t >= 0)),
                      "label": f"label {b}", "truth": t})
        for b, t in (("s0", 40), ("s1", -1))
    ]  # fmt: skip
    return pd.concat(parts, ignore_index=True)


def test_each_series_is_a_panel_with_its_truth_shaded_and_each_detectors_lines():
    fig = plot_sap_series(_sap(), {"perfstudy": {"s0": [41]}, "otava": {"s1": [7, 60]}, "perfherder": {}})
    s0, s1 = panels(fig)
    assert [s0.get_title(), s1.get_title()] == ["s0 · label s0", "s1 · label s1"]
    assert vertical_lines(s0) == [(41.0, "#c0392b", "-")]  # perfstudy: red, solid
    assert vertical_lines(s1) == [(7.0, "#2ca02c", ":"), (60.0, "#2ca02c", ":")]  # otava: green, dotted
    (shade,) = s0.patches  # the labelled regression, from its index to the series' end
    assert shade.get_x() == pytest.approx(40) and shade.get_width() == pytest.approx(40)
    assert not s1.patches  # no label, no shade
    assert len(s0.lines[0].get_xdata()) == 80  # every measurement


def test_a_series_with_a_gap_is_refused_by_name():
    frame = _sap()
    frame.loc[3, "value"] = np.nan
    with pytest.raises(ValueError, match="column 'value' has NaN"):
        plot_sap_series(frame, {})
    with pytest.raises(TypeError, match=r"found\['perfstudy'\]\['s0'\]"):
        plot_sap_series(_sap(), {"perfstudy": {"s0": 41}})


def test_each_detectors_bars_are_its_rates_and_its_legend_counts_false_detections():
    table = pd.DataFrame(
        {"detector": ["perfstudy", "perfherder"], "step_recall": [0.9, 0.5], "step_F1": [0.85, 0.6],
         "spread_recall": [0.5, 0.0], "ramp_recall": [0.7, 0.1], "spikes_flagged": [0.0, 0.2],
         "false_per_copy": [0.1, 1.25]}
    )  # fmt: skip
    (ax,) = panels(plot_planted_recall(table))
    heights = bar_heights(ax)
    assert heights[:5] == pytest.approx([0.9, 0.85, 0.5, 0.7, 0.0])
    assert heights[5:] == pytest.approx([0.5, 0.6, 0.0, 0.1, 0.2])
    assert legend_labels(ax) == ["perfstudy (0.10 false a copy)", "perfherder (1.25 false a copy)"]
    assert [t.get_text() for t in ax.get_xticklabels()][:2] == ["step recall", "step F1"]
