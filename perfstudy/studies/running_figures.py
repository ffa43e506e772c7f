"""Running an experiment (notebook 09): the two layouts side by side, and the stopping rule's calibration.

Each takes the study's result, checks it at its top (perfstudy._lib.checks) and returns the matplotlib figure.
"""

from __future__ import annotations

import pandas as pd

from perfstudy._lib.checks import check_fraction, check_frame, check_int, check_mapping, check_text
from perfstudy.notebook.plots import panel_grid

__all__ = ["plot_layouts", "plot_stopping_calibration", "plot_rules"]


def plot_layouts(frames, titles):
    """Each layout's batch means over time, A and B in their colours: the drift a sequential layout reads as a
    change, and the interleaved rounds in which A and B share it.

    Parameters
    ----------
    frames : mapping of str to DataFrame
        Layout name to its rows (``version``, ``batch``, ``start``, ``value``, ``warmup``), as
        :func:`perfstudy.studies.running.sequential_layout` and :func:`perfstudy.experiment._run.run` return them.
    titles : mapping of str to str
        Layout name to its panel's title (the verdict, the rounds).

    Returns
    -------
    matplotlib.figure.Figure
    """
    frames = check_mapping("frames", frames)
    titles = check_mapping("titles", titles)
    for name, frame in frames.items():
        check_frame(f"frames[{name!r}]", frame, ("version", "batch", "warmup"), numeric=("start", "value"))
        check_text(f"titles[{name!r}]", titles.get(name, ""))
    fig, axes = panel_grid(len(frames), len(frames), (5.6, 3.4))
    colours = {"A": "tab:blue", "B": "tab:orange"}
    for ax, (name, frame) in zip(axes, frames.items()):
        kept = frame[~frame["warmup"].astype(bool)]
        means = kept.groupby(["version", "batch"], sort=False).agg(start=("start", "first"), value=("value", "mean"))
        origin = float(kept["start"].min())
        for version, group in means.reset_index().groupby("version"):
            ax.plot(
                group["start"] - origin,
                1000 * group["value"],
                "o",
                ms=4,
                color=colours.get(str(version)),
                label=f"version {version}",
            )
        ax.set_xlabel("seconds since the first batch")
        ax.set_ylabel("batch mean (ms)")
        ax.set_title(titles.get(name, name), fontsize=10)
        ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


def plot_stopping_calibration(table: pd.DataFrame, *, title: str = ""):
    """The share of A/A runs that ever reach a verdict of change, per stopping rule, with 2 MC SE bars and the
    nominal rate plus 3 MC SE (dashed).

    Parameters
    ----------
    table : DataFrame
        :attr:`perfstudy.studies.running.StoppingCalibration.table`.
    title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame("table", table, ("rule",), numeric=("false_rate", "mc_se", "limit"))
    check_text("title", title)
    fig, axes = panel_grid(1, 1, (6.4, 2.8))
    ax = axes[0]
    positions = range(len(table))
    ax.barh(list(positions), table["false_rate"], xerr=2 * table["mc_se"], color="tab:gray")
    ax.axvline(float(table["limit"].iloc[0]), ls="--", color="tab:red", label="5% + 3 MC SE")
    ax.set_yticks(list(positions), table["rule"])
    ax.set_xlabel("A/A runs ever called faster or slower")
    ax.legend(frameon=False, fontsize=8)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def plot_rules(table: pd.DataFrame, *, limit: float, max_rounds: int, title: str = ""):
    """The two stopping rules on the same contended rounds: the share of wrong verdicts per planted change
    (A/A against ``limit``), and the mean rounds to a verdict (an undecided run counts ``max_rounds + 1``),
    one line per rule and batch statistic.

    Parameters
    ----------
    table : DataFrame
        :attr:`perfstudy.studies.running.RulesUnderContention.table`.
    limit : float
        The A/A limit, 5% plus 3 MC SE.
    max_rounds : int
        The budget: the rounds axis ends there.
    title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame("table", table, ("rule", "statistic"), numeric=("change", "wrong", "mc_se", "mean_rounds"))
    check_text("title", title)
    limit = check_fraction("limit", limit)
    max_rounds = check_int("max_rounds", max_rounds, maximum=10**7)
    fig, axes = panel_grid(2, 2, (5.0, 3.2))
    styles = {"t": "--", "sign": "-"}
    for (rule, statistic), group in table.groupby(["rule", "statistic"], sort=False):  # pyright: ignore[reportGeneralTypeIssues]
        group = group.sort_values("change")
        label = f"{rule} rule, batch {statistic}"
        changes = 100 * group["change"]
        axes[0].errorbar(changes, group["wrong"], yerr=2 * group["mc_se"], ls=styles.get(str(rule), "-"), marker="o",
                         ms=3, label=label)  # fmt: skip
        axes[1].plot(changes, group["mean_rounds"], ls=styles.get(str(rule), "-"), marker="o", ms=3, label=label)
    axes[0].axhline(limit, color="tab:red", lw=0.8, ls=":", label="A/A limit (5% + 3 MC SE)")
    axes[0].set_xlabel("planted change (%)")
    axes[0].set_ylabel("share of runs with a wrong verdict")
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    axes[1].axhline(max_rounds + 1, color="0.6", lw=0.8, ls=":")
    axes[1].annotate("budget: an undecided run counts here", (0, max_rounds + 1), xytext=(2, -10),
                     textcoords="offset points", fontsize=7, color="0.4")  # fmt: skip
    axes[1].set_yscale("log")
    ticks = [t for t in (5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000) if t <= 2 * (max_rounds + 1)]
    axes[1].set_yticks(ticks)
    axes[1].yaxis.set_major_formatter(ScalarFormatter())
    axes[1].yaxis.set_minor_formatter(NullFormatter())
    axes[1].set_xlabel("planted change (%)")
    axes[1].set_ylabel("mean rounds to a verdict")
    axes[0].legend(frameon=False, fontsize=7, loc="center right")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
