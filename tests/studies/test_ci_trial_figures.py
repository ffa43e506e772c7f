"""The shared-runner trial's figure: a panel per method, every call at its planted row in its call's colour."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from perfstudy.studies.ci_trial import CITrial  # noqa: E402
from perfstudy.studies.ci_trial_figures import plot_trial  # noqa: E402


def test_each_method_has_a_panel_and_each_call_its_colour_and_row():
    rows = []
    for method, calls in (("interleaved", ("", "", "slower")), ("gate", ("faster", "slower", "slower"))):
        for planted, call in zip((0.0, 0.02, 0.05), calls):
            rows.append(dict(pull_request=1, method=method, benchmark=f"B{planted}", planted=planted, call=call,
                             verdict=call, change=planted + 0.001, low=planted - 0.01, high=planted + 0.01,
                             machine_seconds=60.0, rounds=10))  # fmt: skip
    trial = CITrial(table=pd.DataFrame(rows), methods=("interleaved", "gate"), seconds=60.0, threshold=0.01,
                    gate=0.02, batch="2ms", benchtimes={}, load=(1.0, 1.0), left_out={})  # fmt: skip
    fig = plot_trial(trial)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["perfstudy, interleaved rounds", "a 2% gate on 5-run means"]
    for ax, calls in zip(axes, (("", "", "slower"), ("faster", "slower", "slower"))):
        points = {line.get_label(): line for line in ax.get_lines() if line.get_marker() == "o"}
        expected = {c or "neither" for c in calls}
        assert set(points) == expected
        slower = points["slower"]
        rows_drawn = np.round(slower.get_ydata()).astype(int)  # the row of each slower call: +2% is 1, +5% is 2
        assert sorted(rows_drawn) == sorted(1 + (p == 0.05) for p, c in zip((0.0, 0.02, 0.05), calls) if c == "slower")
        assert np.allclose(sorted(slower.get_xdata()), sorted(100 * p + 0.1 for p, c in zip((0.0, 0.02, 0.05), calls)
                                                               if c == "slower"))  # fmt: skip
        assert [t.get_text() for t in ax.get_yticklabels()] == ["unchanged", "+2%", "+5%"]
    plt.close(fig)
