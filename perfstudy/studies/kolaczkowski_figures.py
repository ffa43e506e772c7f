"""The standard-error trap of the autocorrelation blog post (notebook 03).

Each takes the study's result, checks it at its top (perfstudy._lib.checks) and returns the matplotlib
figure; what a user applies to their own data stays in :mod:`perfstudy.notebook.plots`.
"""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np

from perfstudy._lib.checks import (
    check_frame,
)

__all__ = [
    "plot_standard_error_trap",
]


def plot_standard_error_trap(table):
    """The blog's trap: naive SE of the mean against the corrected SEs and the batch-means SE.

    ``table`` has one row per series with ``series``, ``naive_se``, ``truncated_se``, ``bartlett_se``
    and ``batch_means_se``. Everything is drawn relative to the batch-means SE (the observed spread
    of disjoint block means), so 1 is "as wide as the data say"; below 1 is too narrow.

    Parameters
    ----------
    table : DataFrame
        As described above.

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame("table", table, ("series",), numeric=("naive_se", "truncated_se", "bartlett_se", "batch_means_se"))
    frame = table.reset_index(drop=True)
    y = np.arange(len(frame))
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(frame) + 1.9))
    reference = frame["batch_means_se"].to_numpy()
    for column, color, name in [
        ("naive_se", "#d62728", "naive s/sqrt(N)"),
        ("truncated_se", "#1f77b4", "blog Eq. 6 (lags <= sqrt N)"),
        ("bartlett_se", "#2ca02c", "Newey-West (Bartlett)"),
    ]:
        ax.plot(frame[column].to_numpy() / reference, y, "o", ms=4.5, color=color, label=name)
    ax.axvline(1, color="k", lw=1)
    ax.set_xscale("log")
    ax.set_xticks([0.1, 0.2, 0.5, 1, 2])
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set(
        yticks=y,
        yticklabels=frame["series"],
        xlabel="standard error of the mean / batch-means SE",
        title="SE estimates against the spread of disjoint block means",
    )
    ax.invert_yaxis()
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.25 / max(len(frame), 1)), ncol=3)
    fig.tight_layout()
    return fig
