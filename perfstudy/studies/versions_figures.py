"""Detection of planted slowdowns on public A/A pairs (notebook 08).

Each takes the study's result, checks it at its top (perfstudy._lib.checks) and returns the matplotlib
figure; what a user applies to their own data stays in :mod:`perfstudy.notebook.plots`.
"""

from __future__ import annotations

import pandas as pd

from perfstudy._lib.checks import (
    check_frame,
    check_text,
)
from perfstudy.notebook.plots import panel_grid

__all__ = [
    "plot_detection",
]


def plot_detection(frame: pd.DataFrame, *, title: str = ""):
    """Detection rate against planted slowdown, one line per method, one panel per source; the
    point at 0 is the Type I error (nominal 5%, dashed), with twice its Monte Carlo error.

    Parameters
    ----------
    frame : DataFrame
        ``source``, ``slowdown``, ``method``, ``rate``, ``mc_se`` (as from
        :func:`perfstudy.studies.versions.aa_calibration`).
    title : str
        Above the panels.

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame("frame", frame, ("source", "method"), numeric=("slowdown", "pairs", "rate", "mc_se"))
    check_text("title", title)
    sources = list(dict.fromkeys(frame["source"]))
    fig, axes = panel_grid(len(sources), len(sources), (3.6, 3.2))
    for ax, source in zip(axes, sources):
        rows = frame[frame["source"] == source]
        for method, line in rows.groupby("method", sort=False):
            line = line.sort_values("slowdown")
            ax.errorbar(
                100 * line["slowdown"], line["rate"], yerr=2 * line["mc_se"], fmt="o-", capsize=2, label=method, ms=3
            )
        ax.axhline(0.05, color="black", ls="--", lw=0.8)
        pairs = int(rows["pairs"].iloc[0])
        ax.set(xlabel="planted slowdown of B (%)", ylim=(0, 1.02), title=f"{source}, {pairs} pairs")
        ax.title.set_fontsize("small")
    axes[0].set_ylabel("share called different")
    axes[0].legend(fontsize="x-small")
    if title:
        fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    return fig
