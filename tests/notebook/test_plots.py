"""Figures are written byte for byte the same from the same data, so that a report's figures/ diff only when a result moved."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

from perfstudy.notebook.plots import plot_clustered_se, savefig


def test_savefig_is_byte_reproducible(tmp_path):
    paths = []
    for run in ("first", "second"):
        fig = plot_clustered_se(rhos=(0.2, 0.9))
        paths.append(savefig(fig, "fig", figures_dir=tmp_path / run))
        plt.close(fig)
    for a, b in zip(*paths):
        assert a.read_bytes() == b.read_bytes(), a.name
    assert b"CreationDate" not in paths[0][1].read_bytes()
    with pytest.raises(ValueError, match="name"):
        savefig(plt.figure(), "../escape", figures_dir=tmp_path)
    with pytest.raises(ValueError, match="formats"):
        savefig(plt.figure(), "fig", figures_dir=tmp_path, formats=("bmp",))
