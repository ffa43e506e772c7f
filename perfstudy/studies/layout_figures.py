"""The layout study (notebook 12): every batch's time, round by round, with the layout fixed and randomised. Takes
the trial's result, checks it at its top and returns the matplotlib figure."""

from __future__ import annotations

from perfstudy._lib.checks import check_frame
from perfstudy.notebook.plots import panel_grid

__all__ = ["plot_batches"]

#: each version's colour
COLOURS = {"A": "tab:blue", "B": "tab:orange"}


def plot_batches(trial):
    """Three panels: each batch's time (ms) at its round with the layout fixed, then randomised, A and B in their
    colours, a batch whose copy landed :data:`~perfstudy.studies.layout.SLOW_DISTANCE` bytes past its source ringed
    in black; then every batch of both runs at that distance (bytes past the source, modulo 4096): the layout's own
    effect, which the randomised run spreads over both versions. The panels share the time axis.

    Parameters
    ----------
    trial : LayoutTrial
        :func:`perfstudy.studies.layout.layout_trial`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from perfstudy.studies.layout import SLOW_DISTANCE, LayoutTrial

    if not isinstance(trial, LayoutTrial):
        raise TypeError(f"trial: expected layout_trial's result, got {type(trial).__name__}")
    batches = check_frame(
        "trial.batches", trial.batches, ("layout", "version"), numeric=("round", "seconds", "distance")
    )
    fig, axes = panel_grid(3, 3, (4.2, 3.4))
    top = 1.1e3 * max((float(s) for s in batches["seconds"]), default=1e-3)
    ring = dict(ms=8, mfc="none", mec="black", lw=0.8, label=f"buffer {SLOW_DISTANCE} bytes past its source")
    for ax, layout in zip(axes, ("fixed", "randomised")):
        shown = batches[batches["layout"] == layout]
        for version, colour in COLOURS.items():
            rows = shown[shown["version"] == version]
            ax.plot(rows["round"], 1e3 * rows["seconds"], "o", ms=3.5, color=colour, label=version)
        slow = shown[shown["distance"] == SLOW_DISTANCE]
        if len(slow):
            ax.plot(slow["round"], 1e3 * slow["seconds"], "o", **ring)
        ax.set_xlabel("round")
        ax.set_title(f"layout {layout} ({len(set(shown['round']))} rounds)", fontsize=9)
    ax = axes[2]
    for version, colour in COLOURS.items():
        rows = batches[batches["version"] == version]
        ax.plot(rows["distance"], 1e3 * rows["seconds"], "o", ms=3.5, color=colour, alpha=0.7, label=version)
    slow = batches[batches["distance"] == SLOW_DISTANCE]
    if len(slow):
        ax.plot(slow["distance"], 1e3 * slow["seconds"], "o", **ring)
    ax.set_xlim(-100, 4196)
    ax.set_xlabel("buffer past the source, bytes (mod 4096)")
    ax.set_title("every batch, by where its buffer lay", fontsize=9)
    shown_labels: dict = {}  # one legend under the panels: a panel's own would cover its points
    for ax in axes[:3]:
        ax.set_ylim(0, top)
        ax.set_ylabel("batch time, ms")
        for handle, label in zip(*ax.get_legend_handles_labels()):
            shown_labels.setdefault(label, handle)
    fig.legend(list(shown_labels.values()), list(shown_labels), loc="lower center", ncol=len(shown_labels),
               frameon=False, fontsize=8)  # fmt: skip
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig
