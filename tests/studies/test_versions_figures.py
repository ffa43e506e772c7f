"""Notebook 08's detection curves: the share called different against the planted slowdown, a panel a source."""

from __future__ import annotations

import pandas as pd
import pytest
from support.figures import errorbars, horizontal_lines, legend_labels, panels

from perfstudy.studies.versions_figures import plot_detection


def test_each_source_is_a_panel_with_its_pairs_and_each_method_a_line():
    frame = pd.DataFrame(
        {"source": ["cwb"] * 4 + ["azure"] * 2, "method": ["perfstudy", "perfstudy", "t", "t", "perfstudy", "perfstudy"],
         "slowdown": [0.05, 0.0, 0.0, 0.05, 0.0, 0.05], "pairs": [12] * 4 + [3] * 2,
         "rate": [0.9, 0.04, 0.2, 0.95, 0.0, 0.5], "mc_se": [0.01] * 6}
    )  # fmt: skip
    fig = plot_detection(frame, title="planted slowdowns")
    cwb, azure = panels(fig)
    assert [cwb.get_title(), azure.get_title()] == ["cwb, 12 pairs", "azure, 3 pairs"]
    # sorted by slowdown, in %
    assert errorbars(cwb) == {"perfstudy": ([0.0, 5.0], [0.04, 0.9]), "t": ([0.0, 5.0], [0.2, 0.95])}
    assert 0.05 in horizontal_lines(cwb)  # the nominal Type I error
    assert legend_labels(cwb) == ["perfstudy", "t"]
    assert fig._suptitle.get_text() == "planted slowdowns"


def test_a_frame_without_its_pair_counts_is_refused_by_column():
    with pytest.raises(ValueError, match="pairs"):
        plot_detection(
            pd.DataFrame({"source": ["a"], "method": ["m"], "slowdown": [0.0], "rate": [0.0], "mc_se": [0.0]})
        )
