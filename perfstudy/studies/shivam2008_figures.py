"""Figures of the Shivam et al. reproduction (notebook 06): trials and hours against run length (Figure 6), and
the cost of mapping the surface against confidence, accuracy (Figure 9) and region width (Figure 10).

Each takes the study's table from :mod:`perfstudy.studies.shivam2008` and draws it with
:func:`perfstudy.notebook.plots.plot_lines`.
"""

from __future__ import annotations

from perfstudy._lib.checks import check_choice, check_frame
from perfstudy.notebook.plots import plot_lines

__all__ = ["plot_figure6", "plot_figure9", "plot_figure10"]

_FIGURE6 = {
    "trials": ("trials to the target accuracy", "Figure 6: trials against run length"),
    "hours": ("hours to the target accuracy", "... and the time they take: the sweet spot"),
}


def plot_figure6(figure6, *, y: str = "trials"):
    """Figure 6: trials (or hours) to the target accuracy against run length, one line per load factor.

    Parameters
    ----------
    figure6 : DataFrame
        The ``table`` of :func:`perfstudy.studies.shivam2008.figure6`.
    y : {"trials", "hours"}
        Trials needed, or the time they take (whose minimum is the sweet spot).
    """
    check_frame("figure6", figure6, ["load_factor"], numeric=("runlength", "trials", "hours"))
    ylabel, title = _FIGURE6[check_choice("y", y, list(_FIGURE6))]
    return plot_lines(
        figure6, x="runlength", y=y, hue="load_factor", logx=True, xlabel="run length (s)", ylabel=ylabel, title=title
    )


def plot_figure9(figure9):
    """Figure 9: hours to map the surface against the target confidence, one line per target accuracy.

    Parameters
    ----------
    figure9 : DataFrame
        :func:`perfstudy.studies.shivam2008.figure9`.
    """
    check_frame("figure9", figure9, numeric=("confidence", "hours", "target_accuracy"))
    return plot_lines(
        figure9, x="confidence", y="hours", hue="target_accuracy", xlabel="target confidence",
        ylabel="hours to map the surface", title="Figure 9: cost against confidence and accuracy",
    )  # fmt: skip


def plot_figure10(figure10):
    """Figure 10: hours to map the surface against the width of the peak-rate region, one line per policy.

    Parameters
    ----------
    figure10 : DataFrame
        :func:`perfstudy.studies.shivam2008.figure10`.
    """
    check_frame("figure10", figure10, ["policy"], numeric=("region_width", "hours"))
    return plot_lines(
        figure10, x="region_width", y="hours", hue="policy", xlabel="peak-rate region width w",
        ylabel="hours to map the surface", title="Figure 10: cost against region width",
    )  # fmt: skip
