"""Figures are written byte for byte the same from the same data, so that a report's figures/ diff only when a result moved."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

from perfstudy.notebook.plots import plot_clustered_se, plot_runs, save_and_show, savefig


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


def test_save_and_show_writes_the_files_and_shows_that_png_once(tmp_path, monkeypatch):
    """The image shown is the PNG written, byte for byte, at the inline backend's 100 pixels to the inch; the figure
    is closed, so that ``plt.show()`` after it draws nothing again."""
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *objects: shown.extend(objects))
    fig = plot_clustered_se(rhos=(0.2,))
    paths = save_and_show(fig, "fig", figures_dir=tmp_path, dpi=150)
    assert [p.name for p in paths] == ["fig.png", "fig.pdf"]
    (image,) = shown
    assert image.data == paths[0].read_bytes()
    pixels = int.from_bytes(image.data[16:20], "big")
    assert image.width == round(pixels * 100 / 150) and pixels > 300
    assert not plt.fignum_exists(fig.number)
    with pytest.raises(ValueError, match="'png' among them"):
        save_and_show(plt.figure(), "fig", figures_dir=tmp_path, formats=("pdf",))


def test_a_runs_figure_draws_each_batch_boundary_without_moving_the_values_limits():
    """One line at each batch's start after the first, a version's lines in its colour, spanning the panel's height
    (axes coordinates) without widening the y limits past the values."""
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame(
        {
            "benchmark": "b",
            "version": np.repeat(["A", "B"], 40),
            "batch": np.tile(np.repeat(np.arange(4), 10), 2),
            "iteration": np.tile(np.arange(10), 8),
            "value": np.linspace(1e-3, 2e-3, 80),
            "unit": "second",
        }
    )
    table = pd.DataFrame({"benchmark": ["b", "b"], "version": ["A", "B"], "warmup_iterations": [2, 0]})
    fig = plot_runs(frame, table, columns=1)
    ax = fig.axes[0]
    low, high = ax.get_ylim()
    assert 0.9e-3 < low < 1e-3 and 2e-3 < high < 2.1e-3
    starts = [sorted(segment[0][0] for segment in lines.get_segments()) for lines in ax.collections]
    assert starts == [[10.0, 20.0, 30.0], [10.0, 20.0, 30.0]]
    assert [tuple(lines.get_segments()[0][:, 1]) for lines in ax.collections] == [(0.0, 1.0), (0.0, 1.0)]
    plt.close(fig)


@pytest.mark.parametrize(
    "scale, unit",
    [(1.234e5, "ops/s"), (7e-9, "s"), (3.3e3, "ns"), (4e-3, "second"), (-5.0, None), (123456789.0, None)],
)
def test_a_sized_runs_figure_holds_all_it_draws_and_is_saved_at_its_size(tmp_path, scale, unit):
    """With ``size``, the margins are made for the labels before anything is drawn, so the figure is saved uncropped
    (laid out once): everything drawn lies inside the figure, and the PNG is the size asked at the dpi asked."""
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame(
        {
            "benchmark": "a long benchmark name/with parameters=1024",
            "version": np.repeat(["A", "B"], 40),
            "batch": np.tile(np.repeat(np.arange(4), 10), 2),
            "iteration": np.tile(np.arange(10), 8),
            "value": scale * (1 + 0.01 * np.random.default_rng(1).normal(size=80)),
        }
    )
    if unit:
        frame["unit"] = unit
    table = pd.DataFrame({"benchmark": [frame["benchmark"][0]] * 2, "version": ["A", "B"], "warmup_iterations": [1, 0]})
    fig = plot_runs(frame, table, columns=1, size=(9, 3.2))
    drawn = fig.get_tightbbox(fig.canvas.get_renderer())  # in inches
    assert drawn.x0 >= 0 and drawn.y0 >= 0 and drawn.x1 <= 9 and drawn.y1 <= 3.2, drawn
    assert drawn.x0 < 0.5 and drawn.y0 < 0.5  # and the margins are not wasted
    (png,) = savefig(fig, "runs", figures_dir=tmp_path, formats=("png",), dpi=100, tight=False)
    data = png.read_bytes()
    assert (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")) == (900, 320)
    plt.close(fig)
    with pytest.raises(ValueError, match="one benchmark only"):
        plot_runs(pd.concat([frame, frame.assign(benchmark="b")]), pd.concat([table, table.assign(benchmark="b")]),
                  size=(9, 3.2))  # fmt: skip


def test_a_benchmark_name_becomes_a_safe_file_stem():
    from perfstudy.notebook.plots import file_stem

    assert file_stem("regex/compile[64]") == "regex_compile_64_" and file_stem(3) == "3"
    with pytest.raises(ValueError, match="empty name"):
        file_stem("")
