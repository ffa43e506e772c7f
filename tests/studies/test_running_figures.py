"""Notebook 09's figures: the layouts' batch means over time, and the stopping rules' calibration."""

from __future__ import annotations

import pandas as pd
import pytest
from support.figures import bar_widths, errorbars, horizontal_lines, legend_labels, panels, vertical_lines

from perfstudy.studies.running_figures import plot_layouts, plot_rules, plot_stopping_calibration


def _rows() -> pd.DataFrame:
    """Two rounds of A then B, two runs a batch, after a warm-up batch that must not be drawn."""
    rows = [dict(version="A", batch="w", start=0.0, value=9.0, warmup=True)]
    for r in range(2):
        for v, base in (("A", 0.010), ("B", 0.020)):
            for k in range(2):
                rows.append(dict(version=v, batch=f"{r}{v}", start=10.0 + 2 * r + (v == "B"), value=base + 0.002 * k + 0.001 * r,
                                 warmup=False))  # fmt: skip
    return pd.DataFrame(rows)


def test_each_layout_draws_its_batch_means_in_ms_since_its_first_batch():
    fig = plot_layouts({"interleaved": _rows()}, {"interleaved": "B slower, 2 rounds"})
    (ax,) = panels(fig)
    a, b = ax.lines
    assert list(a.get_xdata()) == [0.0, 2.0] and list(b.get_xdata()) == [1.0, 3.0]  # the warm-up at 0 s is left out
    assert list(a.get_ydata()) == pytest.approx([11.0, 12.0])  # means of 10 and 12 ms, then of 11 and 13 ms
    assert list(b.get_ydata()) == pytest.approx([21.0, 22.0])
    assert ax.get_title() == "B slower, 2 rounds" and legend_labels(ax) == ["version A", "version B"]
    assert ax.get_ylabel() == "batch mean (ms)"


def test_the_calibration_bars_are_each_rules_false_rate_against_its_limit():
    table = pd.DataFrame(
        {"rule": ["sign", "t"], "false_rate": [0.03, 0.2], "mc_se": [0.01, 0.02], "limit": [0.08, 0.08]}
    )
    (ax,) = panels(plot_stopping_calibration(table, title="A/A"))
    assert list(bar_widths(ax)) == pytest.approx([0.03, 0.2])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["sign", "t"]
    assert vertical_lines(ax)[0][0] == pytest.approx(0.08)


def test_the_rules_panels_draw_wrong_verdicts_and_rounds_a_line_a_rule():
    table = pd.DataFrame(
        {"rule": ["sign", "sign", "t", "t"], "statistic": ["median"] * 4, "change": [0.1, 0.0, 0.0, 0.1],
         "wrong": [0.0, 0.02, 0.3, 0.0], "mc_se": [0.01] * 4, "mean_rounds": [12.0, 41.0, 30.0, 8.0]}
    )  # fmt: skip
    wrong, rounds = panels(plot_rules(table, limit=0.08, max_rounds=40))
    assert errorbars(wrong) == {"sign rule, batch median": ([0.0, 10.0], [0.02, 0.0]),
                                "t rule, batch median": ([0.0, 10.0], [0.3, 0.0])}  # fmt: skip
    assert 0.08 in horizontal_lines(wrong)
    assert 41.0 in horizontal_lines(rounds)  # an undecided run counts max_rounds + 1
    assert rounds.get_yscale() == "log"
    with pytest.raises(ValueError, match="limit=1.5"):
        plot_rules(table, limit=1.5, max_rounds=40)
