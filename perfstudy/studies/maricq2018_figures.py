"""Figures of the Maricq et al. reproduction (notebooks 03 and 05): CoV overview, sorted p-values,
CONFIRM's convergence and CoV against repetitions.

Each takes the study's result, checks it at its top (perfstudy._lib.checks) and returns the matplotlib
figure; what a user applies to their own data stays in :mod:`perfstudy.notebook.plots`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd

from perfstudy._lib.checks import (
    check_fraction,
    check_frame,
    check_instance,
    check_int,
    check_mapping,
    check_real,
    check_sample,
    check_text,
)
from perfstudy.diagnostics.repetitions import Repetitions
from perfstudy.notebook.plots import panel_grid
from perfstudy.studies.maricq2018 import NormalityTests

__all__ = [
    "FAMILY_COLORS",
    "plot_cov_overview",
    "plot_sorted_p_values",
    "plot_figure3",
    "plot_figure4",
    "plot_confirm_convergence",
    "plot_cov_vs_repetitions",
]

FAMILY_COLORS = {
    "azure-vm-noise": "#1f77b4",
    "pt4cloud": "#ff7f0e",
    "sap-hana": "#2ca02c",
    "laaber-go": "#9467bd",
    "cwb": "#8c564b",
}


def _percent(value, _position=None) -> str:
    return f"{100 * value:.3g}%"


def plot_cov_overview(survey, *, label_top: int = 3, title: str = ""):
    """Figure 1 of Maricq et al. on public data: the CoV of every series, sorted, coloured by family.

    ``survey`` is the frame of :func:`perfstudy.diagnostics.diagnosis.survey_datasets` (columns ``family``,
    ``dataset``, ``benchmark``, ``cov``). The y axis is logarithmic: CoVs span several decades.
    Series with a CoV of 0 (constant) cannot be drawn on it and are counted in the title.

    Parameters
    ----------
    survey : DataFrame
        As described above.
    label_top : int
        Label this many of the most variable series.
    title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame("survey", survey, ("family", "dataset"), numeric=("cov",))
    label_top = check_int("label_top", label_top, minimum=0, maximum=10_000)
    check_text("title", title)
    # a CoV below 1e-9 is a constant series up to rounding (e.g. 1e-14): not drawn, counted in the title
    constant = survey["cov"] < 1e-9
    zero = int(constant.sum())
    frame = survey[~constant].sort_values("cov").reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(10, 4.2))
    for family, group in frame.groupby("family", sort=False):
        ax.scatter(group.index, group["cov"], s=8, color=FAMILY_COLORS.get(family), label=f"{family} ({len(group)})")
    # the most variable series: a number beside each point, the names in a box in the empty upper left
    # (long names beside the points ran over each other and over the curve)
    names = []
    for rank, position in enumerate(range(len(frame) - 1, max(-1, len(frame) - 1 - label_top), -1), 1):
        row = frame.iloc[position]
        where = ", ".join(str(row[k]) for k in ("benchmark", "config", "host") if k in row and pd.notna(row[k]))
        ax.annotate(
            str(rank),
            (position, row["cov"]),
            fontsize=7,
            xytext=(-6, 2 - 7 * rank),
            textcoords="offset points",
            ha="right",
            va="center",
        )
        names.append(f"{rank}. {row['dataset']}: {where} ({_percent(row['cov'], None)})")
    if names:
        ax.text(
            0.01,
            0.97,
            "\n".join(names),
            transform=ax.transAxes,
            fontsize=7,
            va="top",
            ha="left",
            bbox=dict(boxstyle="round,pad=0.3", facecolor="white", edgecolor="0.8"),
        )
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_percent))
    ax.axhline(0.10, color="0.5", lw=0.8, ls="--")
    ax.text(
        0.5,
        0.10,
        "10%: 'may be attributed to hardware variability' (section 4.1)",
        fontsize=7,
        va="bottom",
        transform=ax.get_yaxis_transform(),
        ha="center",
    )
    title = (f"{title}: " if title else "") + "CoV of every series"
    ax.set(
        xlabel="series, ordered by CoV",
        ylabel="coefficient of variation (sd / mean)",
        title=title + (f" ({zero} constant series not drawn)" if zero else ""),
    )
    ax.legend(fontsize="small", loc="lower right")
    fig.tight_layout()
    return fig


def plot_sorted_p_values(
    panels: Mapping[str, Mapping[str, np.ndarray]],
    *,
    alpha: float = 0.05,
    ylabel: str = "p-value",
    title: str = "",
    floor: float = 1e-300,
):
    """Figures 3 and 4 of Maricq et al.: p-values in increasing order with the ``alpha`` line.

    ``panels`` maps a panel title to ``{label: p-values}``. Each label's p-values are drawn sorted
    against their rank as a fraction (0 to 1), so families of very different sizes share one axis
    and none hides another; the legend gives each one's share at or above ``alpha``. The y axis is
    logarithmic; p-values below ``floor`` (0 included: MacKinnon's ADF p-values underflow) are drawn
    at ``floor``, which the axis label says.

    Parameters
    ----------
    panels : mapping of str to mapping of str to ndarray
        As described above.
    alpha : float
        Drawn as a horizontal line.
    ylabel, title : str
    floor : float
        Smallest p-value drawn.

    Returns
    -------
    matplotlib.figure.Figure
    """
    panels = check_mapping("panels", panels, check_mapping, check_sample)
    alpha = check_fraction("alpha", alpha)
    check_text("ylabel", ylabel)
    check_text("title", title)
    floor = check_real("floor", floor, positive=True)
    if not floor < 1:
        raise ValueError(f"floor={floor!r}: expected a number below 1")
    # the legend goes below each panel: inside, it covered the curves' rise at the right
    fig, axes = plt.subplots(1, len(panels), figsize=(5.4 * len(panels), 4.9), squeeze=False)
    for ax, (name, groups) in zip(axes[0], panels.items()):
        everything = np.concatenate([np.asarray(v, dtype=float) for v in groups.values()])
        for label, values in groups.items():
            values = np.sort(np.maximum(np.asarray(values, dtype=float), floor))
            rank = (np.arange(values.size) + 0.5) / values.size
            share = float(np.mean(values >= alpha))
            style = dict(ls="-", marker="o" if values.size < 60 else None, ms=3, lw=1.4)
            ax.plot(
                rank, values, color=FAMILY_COLORS.get(label), label=f"{label}: {share:.0%} of {values.size}", **style
            )
        ax.axhline(alpha, color="k", lw=1, ls="--")
        ax.set_yscale("log")
        ax.set_ylim(floor / 3, 3)
        ax.set(
            xlabel="fraction of series, ordered by p-value",
            xlim=(0, 1),
            ylabel=ylabel + (f" (below {floor:g} drawn at it)" if floor > 1e-300 else ""),
            title=f"{name}\n{np.mean(everything >= alpha):.0%} of {everything.size} at or above {alpha:g}",
        )
        ax.legend(
            fontsize="x-small",
            loc="upper center",
            bbox_to_anchor=(0.5, -0.2),
            ncols=2,
            title=f"share >= {alpha:g}",
            title_fontsize="x-small",
        )
    if title:
        fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    return fig


def plot_figure3(tests, *, window: int, alpha: float = 0.05):
    """Figure 3 on public data: Shapiro-Wilk p-values across VMs and in windows within one VM, per family.

    Parameters
    ----------
    tests : NormalityTests
        :func:`perfstudy.studies.maricq2018.figure3_normality`.
    window : int
        The runs per within-host window it was run with (the panel says so).
    alpha : float
        The tests' size.
    """
    tests = check_instance("tests", tests, NormalityTests)
    across, within = tests.across, tests.within
    panels: Any = {
        f"across VMs ({len(across)} configurations)": {f: g.p_value for f, g in across.groupby("family")},
        f"within one VM, windows of {check_int('window', window)} runs ({len(within)})": {
            f: g.p_value for f, g in within.groupby("family")
        },
    }
    title = "Figure 3 on public data: testing normality"
    return plot_sorted_p_values(panels, alpha=alpha, ylabel="Shapiro-Wilk p-value", title=title, floor=1e-6)


def plot_figure4(series, *, alpha: float = 0.05):
    """Figure 4 on public data: ADF p-values of every series in time order, per family (small p: stationary).

    Parameters
    ----------
    series : DataFrame
        ``figure4_stationarity(survey)["series"]``.
    alpha : float
        The tests' size.
    """
    series = check_frame("series", series, ["family", "adf_p_value"], minimum=0)
    panels: Any = {f"{len(series)} series in time order": {f: g.adf_p_value for f, g in series.groupby("family")}}
    title = "Figure 4 on public data: testing stationarity (small p = stationary)"
    return plot_sorted_p_values(panels, alpha=alpha, ylabel="ADF p-value", title=title, floor=1e-12)


def plot_confirm_convergence(cases: Mapping[str, object], *, columns: int = 3):
    """Figure 5 of Maricq et al.: mean CI bounds of the median against the number of runs.

    ``cases`` maps a panel title to a :class:`perfstudy.diagnostics.repetitions.Repetitions`. The band is the mean
    lower to mean upper bound, the dashed lines the ``+-error`` bounds around the median, and the
    red line CONFIRM's estimate, annotated.

    Parameters
    ----------
    cases : mapping of str to Repetitions
        Panel title to CONFIRM result.
    columns : int
        Panels per row.

    Returns
    -------
    matplotlib.figure.Figure
    """
    cases = check_mapping("cases", cases, check_instance, Repetitions)
    columns = check_int("columns", columns, maximum=12)
    fig, axes = panel_grid(len(cases), columns, (4.6, 3.3))
    for ax, (title, rep) in zip(axes, cases.items()):
        relative_low = rep.mean_low / rep.median - 1
        relative_high = rep.mean_high / rep.median - 1
        ax.fill_between(
            rep.sizes,
            relative_low,
            relative_high,
            color="#1f77b4",
            alpha=0.35,
            label=f"mean {rep.confidence:.0%} CI of the median",
        )
        ax.axhline(0, color="#1f77b4", lw=1.5)
        for sign in (-1, 1):
            ax.axhline(sign * rep.error, color="k", ls="--", lw=0.8)
        if rep.estimate is not None:
            ax.axvline(rep.estimate, color="#d62728", lw=1.2)
            ax.annotate(
                f"{rep.estimate} runs",
                (rep.estimate, 3 * rep.error),
                color="#d62728",
                fontsize=8,
                xytext=(4, 0),
                textcoords="offset points",
            )
        ax.set_xscale("log")
        ax.set_ylim(-6 * rep.error, 6 * rep.error)
        ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=1))
        ax.set(title=title, xlabel="runs (subset size)", ylabel="relative to the median")
        ax.legend(fontsize="x-small", loc="lower right")
    fig.tight_layout()
    return fig


def plot_cov_vs_repetitions(frame, *, max_size: int, title: str = ""):
    """Figure 6 of Maricq et al.: CoV against CONFIRM's estimate, one point per series.

    ``frame`` has ``family``, ``cov`` and ``estimate`` (None/NaN when ``max_size`` runs were not
    enough; those are drawn at ``max_size`` with an upward triangle).

    Parameters
    ----------
    frame : DataFrame
        As described above.
    max_size : int
        The largest subset size CONFIRM tried.
    title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame("frame", frame, ("family",), numeric=("cov", "estimate"))
    max_size = check_int("max_size", max_size, maximum=10**12)
    check_text("title", title)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for family, group in frame.groupby("family", sort=False):
        found = group["estimate"].notna()
        color = FAMILY_COLORS.get(family)
        ax.scatter(
            group.loc[found, "cov"],
            group.loc[found, "estimate"],
            s=16,
            color=color,
            label=f"{family} ({int(found.sum())} of {len(group)})",
        )
        ax.scatter(group.loc[~found, "cov"], np.full(int((~found).sum()), max_size), marker="^", s=22, color=color)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_percent))
    ax.axhline(max_size, color="0.6", ls=":", lw=0.8)
    ax.set(
        xlabel="coefficient of variation",
        ylabel="runs for a 95% CI within +-1% of the median",
        title=(f"{title} " if title else "") + f"(triangles: more than {max_size} runs)",
    )
    ax.legend(fontsize="x-small", loc="upper left")
    fig.tight_layout()
    return fig
