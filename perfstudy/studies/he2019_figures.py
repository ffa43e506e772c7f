"""Figures of the PT4Cloud reproduction (notebook 04): distributions after each interval against the
ground truth, and the accuracy of each method per configuration.

Each takes the study's result, checks it at its top (perfstudy._lib.checks) and returns the matplotlib
figure; what a user applies to their own data stays in :mod:`perfstudy.notebook.plots`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np

from perfstudy._lib.checks import (
    check_column,
    check_fraction,
    check_frame,
    check_instance,
    check_int,
    check_mapping,
    check_names,
    check_sample,
    check_text,
    check_tuple,
)
from perfstudy.notebook.plots import panel_grid
from perfstudy.stability.pt4cloud import PT4CloudResult

__all__ = [
    "plot_pt4cloud_distributions",
    "plot_weekly",
    "plot_method_accuracy",
    "plot_sota",
]


def _samples(name, value):
    """A non-empty list of samples for densities."""
    if not isinstance(value, (list, tuple)) or not value:
        raise TypeError(f"{name}: expected a non-empty list of samples")
    return [check_sample(f"{name}[{i}]", v, minimum=2, method="a density") for i, v in enumerate(value)]


def _pt4cloud_case(name, case):
    """``(samples after each interval, PT4CloudResult, ground truth)``."""
    return check_tuple(
        name,
        case,
        _samples,
        check_instance,
        check_sample,
        options=({}, {"kind": PT4CloudResult}, {"minimum": 2, "method": "a density"}),
    )


def plot_pt4cloud_distributions(
    cases: Mapping[str, tuple], *, columns: int = 2, xlabels: Mapping[str, str] | None = None
):
    """Figures 4 and 5 of He et al.: the distribution after each interval, the ground truth, the band.

    ``cases`` maps a panel title to ``(intervals, result, ground_truth)``: the list of per-interval
    arrays, the :class:`perfstudy.stability.pt4cloud.PT4CloudResult` (with its band), and the ground-truth
    runs (or None). Cumulative KDEs after intervals 1, 2, ... are drawn in darkening greys; the
    reported one is the last, with its point-wise band shaded.

    Parameters
    ----------
    cases : mapping of str to tuple
        As described above.
    columns : int
        Panels per row.
    xlabels : mapping of str to str, optional
        Per panel title, the x axis label: the metric and its unit (:data:`perfstudy.studies.he2019.METRICS`);
        ``"performance"`` where none is given.

    Returns
    -------
    matplotlib.figure.Figure
    """
    cases = check_mapping("cases", cases, _pt4cloud_case)
    columns = check_int("columns", columns, maximum=12)
    xlabels = {} if xlabels is None else check_mapping("xlabels", xlabels, check_text)
    from perfstudy.stability.kde import binned_density, scott_bandwidth, strip_grid

    fig, axes = panel_grid(len(cases), columns, (5.2, 3.3))
    for ax, (title, (intervals, result, ground_truth)) in zip(axes, cases.items()):
        used = result.intervals_used
        greys = plt.cm.Greys(np.linspace(0.35, 0.8, used))
        for k in range(used):
            sample = np.concatenate(intervals[: k + 1])
            grid = strip_grid(sample, strips=400)
            ax.plot(
                grid.midpoints,
                binned_density(sample, grid, scott_bandwidth(sample)),
                color=greys[k],
                lw=1,
                label=f"after interval {k + 1}" + (" (reported)" if k == used - 1 else ""),
            )
        band = result.band
        if band is not None:
            ax.fill_between(
                band.midpoints, band.low, band.high, color="#1f77b4", alpha=0.3, label=f"{band.confidence:.0%} band"
            )
        if ground_truth is not None:
            grid = strip_grid(ground_truth, strips=400)
            ax.plot(
                grid.midpoints,
                binned_density(ground_truth, grid, scott_bandwidth(ground_truth)),
                color="#d62728",
                lw=1.2,
                ls="--",
                label="ground truth",
            )
        # the bulk of the runs, not the whole kernel grid: a few outliers stretched the axis to 65 around 47-53
        shown = np.concatenate([*intervals[:used], *([] if ground_truth is None else [ground_truth])])
        low, high = np.quantile(shown, [0.001, 0.999])
        margin = 0.15 * (high - low) or 1.0
        ax.set_xlim(low - margin, high + margin)
        ax.set(title=title, xlabel=xlabels.get(title, "performance"), ylabel="density")
        # plain numbers (no "+2.05e4" offset), thousands separated; headroom above the curves for the legend
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.6g}"))
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(5))
        ax.set_ylim(0, ax.get_ylim()[1] * 1.55)
        ax.legend(fontsize="x-small", loc="upper left", ncols=2, framealpha=0.9)
    fig.tight_layout()
    return fig


def plot_method_accuracy(frame, *, methods: Sequence[str], labels: Mapping[str, str] | None = None):
    """Figure 6/9 of He et al.: accuracy per configuration for several methods, with their averages.

    ``frame`` has a ``config`` column and one accuracy column per entry of ``methods``.

    Parameters
    ----------
    frame : DataFrame
        As described above.
    methods : sequence of str
        Accuracy columns, one bar per configuration each.
    labels : mapping of str to str, optional
        Legend label per method (default the column name).

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame("frame", frame, ("config",))
    methods = list(check_names("methods", methods))  # a list: pandas reads a tuple of columns as one key
    if labels is not None:
        labels = check_mapping("labels", labels, check_text, entries=0)
    labels = dict(labels or {})
    for method in methods:
        check_column("methods", method, frame, "frame")
    check_frame("frame", frame, numeric=methods)
    frame = frame.reset_index(drop=True)
    x = np.arange(len(frame))
    width = 0.8 / len(methods)
    fig, ax = plt.subplots(figsize=(max(8, 0.32 * len(frame) + 2), 3.8))
    colors = plt.cm.tab10(np.arange(len(methods)))
    for i, method in enumerate(methods):
        values = frame[method].to_numpy(dtype=float)
        ax.bar(
            x + (i - (len(methods) - 1) / 2) * width,
            values,
            width,
            color=colors[i],
            label=f"{labels.get(method, method)} (mean {np.nanmean(values):.1%})",
        )
    ax.set_xticks(x)
    ax.set_xticklabels(frame["config"], rotation=90, fontsize=7)
    ax.set_ylim(0, 1.02)
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set(ylabel="accuracy against the ground truth")
    ax.legend(fontsize="small", loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(methods), frameon=False)
    fig.tight_layout()
    return fig


def plot_weekly(weekly, names):
    """Figure 5 of He et al. for the configurations ``names`` of the weekly study: each one's sampled weeks, the
    reported distribution with its band and the ground truth, titled with its weeks and accuracy.

    Parameters
    ----------
    weekly : DataFrame
        :func:`perfstudy.studies.he2019.weekly_study`.
    names : sequence of str
        Datasets among its rows.
    """
    from perfstudy.studies import he2019

    rows: Any = check_frame("weekly", weekly, ["dataset", "result"], numeric=("weeks", "accuracy")).set_index("dataset")
    names = check_names("names", names, list(rows.index))
    cases, xlabels = {}, {}
    for name in names:
        row, c = rows.loc[name], he2019.configuration(name)
        panel = f"{c.benchmark} on {c.config}: {row.weeks} weeks, accuracy {row.accuracy:.1%}"
        xlabels[panel] = he2019.METRICS[c.benchmark]
        cases[panel] = (c.weeks(), row.result, c.ground_truth)
    return plot_pt4cloud_distributions(cases, xlabels=xlabels)


def plot_sota(compare, *, margin: float):
    """Figure 6 of He et al.: PT4Cloud's weekly accuracy per configuration beside the two state-of-the-art
    baselines' (SOTA1 at the best of its grid, SOTA2 at its margin of error).

    Parameters
    ----------
    compare : DataFrame
        ``sota_comparison(...).per_config``.
    margin : float
        SOTA2's margin of error, as the legend says.
    """
    compare = check_frame("compare", compare, ["label", "accuracy", "sota1_accuracy", "sota2_accuracy"])
    labels = {"accuracy": "PT4Cloud (weekly)", "sota1_accuracy": "SOTA1 (best of grid)",
              "sota2_accuracy": f"SOTA2 (+-{check_fraction('margin', margin):.0%})"}  # fmt: skip
    return plot_method_accuracy(compare.assign(config=compare.label), methods=list(labels), labels=labels)
