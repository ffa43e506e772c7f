"""Change points over commits (notebook 10): SAP's series with what each detector reported, and the planted
changes' recall per detector.

Each takes the study's frames, checks them at its top (perfstudy._lib.checks) and returns the matplotlib figure.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfstudy._lib.checks import check_frame, check_int, check_mapping
from perfstudy.notebook.plots import panel_grid

__all__ = ["plot_planted_recall", "plot_sap_series", "plot_short_history"]

_MARKS = {"perfstudy": ("#c0392b", "-"), "perfherder": ("#1f77b4", "--"), "otava": ("#2ca02c", ":")}


def _points(name: str, value) -> dict:
    """``{benchmark: [index, ...]}`` with integer indices."""
    value = check_mapping(name, value, entries=0)
    out = {}
    for key, indices in value.items():
        if isinstance(indices, (str, bytes)) or not hasattr(indices, "__iter__"):
            raise TypeError(f"{name}[{key!r}]: expected a list of change-point indices, got {type(indices).__name__}")
        out[key] = [check_int(f"{name}[{key!r}]", i, minimum=0) for i in indices]
    return out


def plot_sap_series(frame, found, *, columns: int = 5):
    """Every SAP series, its measurements in order, the labelled regression shaded and each detector's change
    points as vertical lines (perfstudy solid red, Perfherder dashed blue, Otava dotted green).

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`perfstudy.studies.history_validation.sap_frame`.
    found : mapping of str to mapping of str to list of int
        Detector name to ``{benchmark: [index, ...]}``.
    columns : int
        Panels to a row.

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame("frame", frame, ["benchmark", "value", "label", "truth"], numeric=["value", "truth"])
    if not np.isfinite(frame["value"].to_numpy(dtype=float)).all():
        raise ValueError("frame: column 'value' has NaN or infinite values; expected sap_frame()'s measurements")
    found = check_mapping("found", found, _points)
    columns = check_int("columns", columns, maximum=12)
    names = list(pd.unique(frame["benchmark"]))
    fig, axes = panel_grid(len(names), columns, (3.0, 1.9))
    for ax, name in zip(axes, names, strict=False):
        rows = frame[frame["benchmark"] == name]
        y = rows["value"].to_numpy()
        ax.plot(np.arange(y.size), y, ".", ms=1.5, color="0.35")
        lo, hi = np.percentile(y, [1, 99])
        pad = (hi - lo) * 0.3 or abs(hi) * 0.05 or 1.0
        ax.set_ylim(lo - pad, hi + pad)
        truth = int(rows["truth"].iat[0])
        if truth >= 0:
            ax.axvspan(truth, y.size, color="#f5b7b1", alpha=0.35, lw=0)
        # perfstudy last and wider, so that a peer's line at the same index does not hide it
        for detector, points in sorted(found.items(), key=lambda item: item[0] == "perfstudy"):
            colour, style = _MARKS.get(detector, ("0.5", "-."))
            for i in points.get(name, []):
                ax.axvline(i, color=colour, ls=style, lw=1.8 if detector == "perfstudy" else 1.0)
        ax.set_title(f"{name} · {rows['label'].iat[0]}", fontsize=8)
        ax.tick_params(labelsize=6)
    fig.suptitle("SAP small_2021: labelled regression shaded; perfstudy (red), Perfherder (blue --), Otava (green :)")
    fig.tight_layout()
    return fig


def plot_planted_recall(table):
    """Per detector: the step's recall and F1, the spread's and the ramp's recall, the share of spikes flagged;
    the legend gives each detector's false detections a copy, which recall alone hides.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`perfstudy.studies.history_validation.score_planted`'s table.

    Returns
    -------
    matplotlib.figure.Figure
    """
    columns = ["step_recall", "step_F1", "spread_recall", "ramp_recall", "spikes_flagged"]
    check_frame("table", table, ["detector"], numeric=[*columns, "false_per_copy"])
    fig, axes = panel_grid(1, 1, (8.5, 2.9))
    ax = axes[0]
    width = 0.8 / max(len(table), 1)
    x = np.arange(len(columns))
    for i, row in enumerate(table.itertuples(index=False)):
        label = f"{row.detector} ({row.false_per_copy:.2f} false a copy)"
        ax.bar(x + i * width, [getattr(row, c) for c in columns], width, label=label)
    names = ["step recall", "step F1", "spread recall", "ramp recall", "spikes flagged"]
    ax.set_xticks(x + width * (len(table) - 1) / 2, names)
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7, ncol=min(len(table), 3), loc="upper center", bbox_to_anchor=(0.5, -0.14))
    ax.set_title("Planted changes in SAP's 20 series without a regression")
    fig.tight_layout()
    return fig


def plot_short_history(trial):
    """A short real history: each commit's sequential measurements (ms), the first commit of each planted change
    (dashed grey), the history's change points (dotted blue) with the commits that may be the first of the new
    level (shaded), and each bisect's culprit (a red line) or the range it left (hatched).

    Parameters
    ----------
    trial : ShortHistoryTrial
        :func:`perfstudy.studies.bisecting.short_history_trial`'s result.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from perfstudy.studies.bisecting import ShortHistoryTrial

    if not isinstance(trial, ShortHistoryTrial):
        raise TypeError(f"trial: expected a ShortHistoryTrial, got {type(trial).__name__}")
    fig, axes = panel_grid(1, 1, (8.5, 3.0))
    ax = axes[0]
    sweep = trial.sweep
    ax.plot(sweep["commit_index"], 1e3 * sweep["value"], ".", color="#555555", alpha=0.6, label="sequential runs")
    medians = sweep.groupby("commit_index")["value"].median()
    ax.plot(medians.index, 1e3 * medians.to_numpy(), "-", color="#555555", lw=1, label="commit medians")
    for i, row in enumerate(trial.found.to_dict("records")):
        # the planted line on top of the culprit's wide pale one: where they agree, both stay visible
        ax.axvline(row["commit"], color="#404040", ls="--", lw=1.2, zorder=3,
                   label="planted change" if i == 0 else None)  # fmt: skip
        if np.isfinite(row["culprit"]):
            ax.axvline(row["culprit"], color="#c0392b", ls="-", lw=5, alpha=0.35, zorder=1,
                       label="bisect's culprit" if i == 0 else None)  # fmt: skip
        elif np.isfinite(row["bisect_first"]):
            ax.axvspan(row["bisect_first"] - 0.5, row["bisect_last"] + 0.5, fill=False, hatch="//", ec="#c0392b", lw=0)
    for i, row in enumerate(trial.history.change_points.to_dict("records")):
        ax.axvspan(row["range_first_index"] - 0.5, row["range_last_index"] + 0.5, color="#2874a6", alpha=0.15,
                   label="history: may be in" if i == 0 else None)  # fmt: skip
        ax.axvline(row["commit_index"], color="#2874a6", ls=":", lw=1.5, label="history's commit" if i == 0 else None)
    ax.set_xlabel("commit (oldest first)")
    ax.set_ylabel("run time (ms)")
    load = "under a toggled load" if trial.load else "without a load"
    ax.set_title(f"{sweep['commit_index'].nunique()} commits measured one after another {load}")
    ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.3))  # below the axis label
    fig.tight_layout()
    return fig
