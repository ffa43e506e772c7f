"""The shared-runner trial (notebook 11): every call of every method, its estimate and interval, by the change
planted. Takes the trial's result, checks it at its top and returns the matplotlib figure."""

from __future__ import annotations

from typing import Any

import numpy as np

from perfstudy._lib.checks import check_frame
from perfstudy.notebook.plots import panel_grid

__all__ = ["plot_trial"]

#: each call's colour
COLOURS = {"slower": "tab:red", "faster": "tab:green", "": "0.55"}


def plot_trial(trial):
    """One panel per method: each benchmark of each pull request at its planted change (0, +2%, +5%, spread a little
    apart), its estimated change and interval (at ``trial.confidence``), red where the method called it slower, green faster, grey
    neither; dotted lines at 0, +2% and +5%. The axis spans 1.5 times the 95th percentile of the estimates' sizes
    (8% to 20%); what lies beyond is drawn at its edge.

    Parameters
    ----------
    trial : CITrial
        :func:`perfstudy.studies.ci_trial.ci_trial`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from perfstudy.studies.ci_trial import CITrial
    from perfstudy.studies.ci_trial_said import NAMES

    if not isinstance(trial, CITrial):
        raise TypeError(f"trial: expected ci_trial's result, got {type(trial).__name__}")
    table = check_frame("trial.table", trial.table, ("method", "call"), numeric=("planted", "change", "low", "high"))
    methods = [m for m in trial.methods if (table.method == m).any()]
    fig, axes = panel_grid(max(len(methods), 1), min(max(len(methods), 1), 4), (3.3, 3.6))
    jitter = np.random.default_rng(0)
    rows_of = {0.0: 0, 0.02: 1, 0.05: 2}  # each planted change's row
    changes = 100 * np.abs(table.change.to_numpy(dtype=float))
    edge = float(np.clip(1.5 * np.nanpercentile(changes, 95), 8, 20)) if np.isfinite(changes).any() else 20.0
    for ax, method in zip(axes, methods):
        rows: Any = table[table.method == method]
        y = np.array([rows_of.get(round(float(p), 4), np.nan) for p in rows.planted]) + jitter.uniform(
            -0.3, 0.3, len(rows)
        )
        for call, colour in COLOURS.items():
            chosen = (rows.call == call).to_numpy()
            if not chosen.any():
                continue
            change, low, high = (100 * rows[c].to_numpy(dtype=float)[chosen] for c in ("change", "low", "high"))
            ax.hlines(y[chosen], np.clip(low, -edge, edge), np.clip(high, -edge, edge), color=colour, lw=0.8, alpha=0.5)
            ax.plot(np.clip(change, -edge, edge), y[chosen], "o", ms=3, color=colour, label=call or "neither")
        for planted in (0, 2, 5):
            ax.axvline(planted, ls=":", color="0.3", lw=0.8)
        ax.set_yticks([0, 1, 2], ["unchanged", "+2%", "+5%"])
        ax.set_ylim(-0.5, 2.5)
        ax.set_xlim(-edge, edge)
        ax.set_xlabel(f"estimated change, % ({trial.confidence:.0%} interval)")
        ax.set_title(NAMES[method], fontsize=9)
        ax.legend(frameon=False, fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig
