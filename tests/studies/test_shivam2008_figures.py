"""Notebook 06's figures: a line per load factor, target accuracy or policy, on the axes the paper's figures use."""

import pandas as pd
import pytest
from support.figures import legend_labels, panels

from perfstudy.studies import shivam2008_figures


def test_each_figure_draws_its_lines_on_its_axes():
    figure6 = pd.DataFrame({"runlength": [5, 60, 5, 60], "load_factor": [0.5, 0.5, 0.9, 0.9],
                            "trials": [40, 4, 90, 12], "hours": [1.0, 0.5, 2.0, 1.5]})  # fmt: skip
    (ax,) = panels(shivam2008_figures.plot_figure6(figure6, y="hours"))
    assert ax.get_xscale() == "log" and ax.get_ylabel() == "hours to the target accuracy"
    assert legend_labels(ax) == ["load_factor = 0.5", "load_factor = 0.9"]
    assert list(ax.lines[1].get_ydata()) == [2.0, 1.5]
    figure9 = pd.DataFrame({"confidence": [0.9, 0.95], "hours": [3.0, 4.0], "target_accuracy": [0.1, 0.1]})
    (ax,) = panels(shivam2008_figures.plot_figure9(figure9))
    assert ax.get_xlabel() == "target confidence" and legend_labels(ax) == ["target_accuracy = 0.1"]
    figure10 = pd.DataFrame({"region_width": [0.05, 0.2], "hours": [5.0, 2.0], "policy": ["linear", "linear"]})
    (ax,) = panels(shivam2008_figures.plot_figure10(figure10))
    assert ax.get_title() == "Figure 10: cost against region width"
    with pytest.raises(ValueError, match="y="):
        shivam2008_figures.plot_figure6(figure6, y="loads")
