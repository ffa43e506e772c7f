"""The layout study's figure: each run's batches at their rounds in their versions' colours, the slow ones ringed,
and every batch at the distance its buffer lay."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from perfstudy.studies.layout import LayoutTrial  # noqa: E402
from perfstudy.studies.layout_figures import plot_batches  # noqa: E402


def test_each_batch_is_drawn_at_its_round_and_its_distance_and_the_slow_ones_ringed():
    batches = pd.DataFrame([
        dict(layout="fixed", version="A", round=0, padding=None, seconds=0.020, distance=1392),
        dict(layout="fixed", version="B", round=0, padding=None, seconds=0.062, distance=16),
        dict(layout="randomised", version="A", round=0, padding=100, seconds=0.021, distance=1296),
        dict(layout="randomised", version="B", round=0, padding=9, seconds=0.019, distance=2048),
        dict(layout="randomised", version="A", round=1, padding=5, seconds=0.023, distance=16),
    ])  # fmt: skip
    fig = plot_batches(LayoutTrial(pd.DataFrame(), batches, 1364, {"A": 1392, "B": 16}, {"A": 0.02, "B": 0.06}))
    fixed, randomised, by_distance = [ax for ax in fig.axes if ax.get_visible()]
    assert fixed.get_title() == "layout fixed (1 rounds)" and randomised.get_title() == "layout randomised (2 rounds)"
    lines = {line.get_label(): line for line in randomised.get_lines()}
    assert list(lines["A"].get_xdata()) == [0, 1] and np.allclose(lines["A"].get_ydata(), [21, 23])
    ring = "buffer 16 bytes past its source"
    assert np.allclose(lines[ring].get_ydata(), [23])  # the slow one of this run, ringed
    drawn = {line.get_label(): line for line in by_distance.get_lines()}
    assert sorted(drawn["B"].get_xdata()) == [16, 2048] and np.allclose(sorted(drawn[ring].get_ydata()), [23, 62])
    assert fixed.get_ylim() == randomised.get_ylim() == by_distance.get_ylim()  # one time axis
    plt.close(fig)
    with pytest.raises(TypeError, match="trial: expected layout_trial's result, got str"):
        plot_batches("trial")
