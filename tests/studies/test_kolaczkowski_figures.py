"""Notebook 03's standard-error trap: each SE drawn relative to the batch-means SE, one row a series."""

from __future__ import annotations

import pandas as pd
import pytest
from support.figures import legend_labels, panels, vertical_lines

from perfstudy.studies.kolaczkowski_figures import plot_standard_error_trap


def test_each_se_is_drawn_over_the_batch_means_se_one_row_a_series():
    table = pd.DataFrame(
        {"series": ["redis", "lru"], "naive_se": [0.1, 0.4], "truncated_se": [0.5, 0.4],
         "bartlett_se": [0.8, 0.5], "batch_means_se": [1.0, 0.5]}
    )  # fmt: skip
    (ax,) = panels(plot_standard_error_trap(table))
    naive, truncated, bartlett = ax.lines[:3]
    assert list(naive.get_xdata()) == pytest.approx([0.1, 0.8])  # 0.1 / 1.0 and 0.4 / 0.5
    assert list(truncated.get_xdata()) == pytest.approx([0.5, 0.8])
    assert list(bartlett.get_xdata()) == pytest.approx([0.8, 1.0])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["redis", "lru"]
    assert ax.yaxis_inverted()  # the first series on top, as in the table
    assert vertical_lines(ax)[0][0] == 1.0  # "as wide as the data say"
    assert legend_labels(ax)[0] == "naive s/sqrt(N)"


def test_a_table_without_the_batch_means_se_is_refused_by_column():
    with pytest.raises(ValueError, match="batch_means_se"):
        plot_standard_error_trap(pd.DataFrame({"series": ["a"], "naive_se": [1.0], "truncated_se": [1.0],
                                               "bartlett_se": [1.0]}))  # fmt: skip
