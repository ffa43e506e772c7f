"""Figures: one function per figure kind, and :func:`savefig` with reproducible output.

Every function takes the library's results (never raw notebook state), draws on a new or given
figure, and returns the ``matplotlib`` figure. Colours of the four designs are fixed across figures.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from perfstudy.designs import standard_error
from perfstudy.model import VarianceComponents, clustered_standard_error
from perfstudy.schedules import DESIGNS

__all__ = [
    "DESIGN_COLORS",
    "DESIGN_LABELS",
    "savefig",
    "plot_clustered_se",
    "plot_design_standard_errors",
    "plot_delta_hat_densities",
]

DESIGN_COLORS = {
    "unbalanced": "#d62728",
    "request_balanced": "#ff7f0e",
    "host_balanced": "#2ca02c",
    "fully_balanced": "#1f77b4",
}
DESIGN_LABELS = {
    "unbalanced": "unbalanced",
    "request_balanced": "request balanced",
    "host_balanced": "host balanced",
    "fully_balanced": "fully balanced",
}


def savefig(fig, name: str, *, figures_dir="figures", formats: Sequence[str] = ("png", "pdf"), dpi: int = 150):
    """Save ``fig`` as ``figures_dir/name.{png,pdf}`` with no timestamps in the metadata.

    The same figure gives byte-identical files on every run (PDF ``CreationDate`` is omitted, PNG
    carries no date), so committed or compared figures change only when their content does.

    Returns
    -------
    list of pathlib.Path
    """
    if not name or Path(name).name != name:
        raise ValueError(f"name={name!r}: expected a bare file name without directories")
    directory = Path(figures_dir)
    directory.mkdir(parents=True, exist_ok=True)
    software = f"perfstudy, matplotlib {matplotlib.__version__}"
    paths = []
    for fmt in formats:
        if fmt == "png":
            metadata = {"Software": software}
        elif fmt == "pdf":
            metadata = {"Creator": software, "Producer": software, "CreationDate": None}
        elif fmt == "svg":
            metadata = {"Creator": software, "Date": None}
        else:
            raise ValueError(f"formats: {fmt!r} is not one of 'png', 'pdf', 'svg'")
        path = directory / f"{name}.{fmt}"
        with matplotlib.rc_context({"svg.hashsalt": "perfstudy"}):
            fig.savefig(path, format=fmt, dpi=dpi, metadata=metadata, bbox_inches="tight")
        paths.append(path)
    return paths


def plot_clustered_se(
    *,
    sigma: float = 1.0,
    rhos: Sequence[float] = (0.1, 0.5, 0.9),
    requests=np.geomspace(10, 1000, 50),
    repetitions: Sequence[int] = (1, 2, 5, 10, 30),
):
    """Figure 2: Eq. 1's SE against requests, one line per repetition count, one panel per rho."""
    requests = np.asarray(requests, dtype=float)
    fig, axes = plt.subplots(1, len(rhos), figsize=(3.6 * len(rhos), 3.4), sharey=True, squeeze=False)
    colors = plt.cm.viridis(np.linspace(0, 0.9, len(repetitions)))
    for ax, rho in zip(axes[0], rhos):
        for t, color in zip(repetitions, colors):
            se = clustered_standard_error(sigma, rho=rho, requests=requests, repetitions=t)
            ax.plot(requests, se, color=color, label=f"T = {t}")
        ax.set(xscale="log", yscale="log", title=f"rho = {rho:g}", xlabel="requests R")
        ax.grid(True, which="both", alpha=0.3)
    axes[0, 0].set_ylabel("standard error (units of sigma)")
    axes[0, -1].legend(title="repetitions", fontsize="small")
    fig.suptitle("Eq. 1: repeating requests helps only when rho is small", fontsize="medium")
    fig.tight_layout()
    return fig


def plot_design_standard_errors(sweep, components: VarianceComponents, *, line_points: int = 60):
    """Figure 4: theoretical SE lines and empirical points, one panel per host count.

    Parameters
    ----------
    sweep : perfstudy.sweeps.SweepResult
        Empirical SEs; points carry +-2 Monte Carlo standard errors.
    components : VarianceComponents
        For the theory lines (section 4.2.1).
    """
    frame = sweep.to_frame()
    hosts = sorted(frame.hosts.unique())
    fig, axes = plt.subplots(1, len(hosts), figsize=(3.2 * len(hosts), 3.6), sharey=True, squeeze=False)
    r_min, r_max = frame.requests.min(), frame.requests.max()
    for ax, h in zip(axes[0], hosts):
        panel = frame[frame.hosts == h]
        for design in DESIGNS:
            points = panel[panel.design == design]
            if points.empty:
                continue
            color = DESIGN_COLORS[design]
            grid = np.unique(np.round(np.geomspace(max(r_min, h), r_max, line_points)))
            theory = standard_error(design, components, requests=grid, hosts=h,
                                    repetitions=int(points.repetitions.iloc[0]))
            ax.plot(grid, theory, color=color, lw=1.5, label=DESIGN_LABELS[design])
            ax.errorbar(points.requests, points.empirical_se, yerr=2 * points.monte_carlo_error,
                        fmt="o", ms=3.5, color=color, mfc="white")
        ax.set(xscale="log", title=f"{h} hosts", xlabel="requests per condition")
        ax.grid(True, which="both", alpha=0.3)
    axes[0, 0].set_ylabel("standard error of delta_hat")
    axes[0, -1].legend(fontsize="small")
    fig.suptitle(
        f"Figure 4: lines = section 4.2.1, points = {sweep.experiments:,} simulations (+-2 MC s.e.)",
        fontsize="medium",
    )
    fig.tight_layout()
    return fig


def plot_delta_hat_densities(samples: Mapping[str, np.ndarray], analytic_se: Mapping[str, float] | None = None):
    """Figure 5: density of ``delta_hat`` per design (histogram), with the normal of the closed-form SE."""
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    spread = max(np.abs(v).max() for v in samples.values())
    n = min(len(v) for v in samples.values())
    bins = np.linspace(-spread, spread, int(np.clip(2 * np.sqrt(n), 20, 120)) + 1)
    x = np.linspace(-spread, spread, 400)
    for design, values in samples.items():
        color = DESIGN_COLORS.get(design)
        ax.hist(values, bins=bins, density=True, histtype="stepfilled", alpha=0.25, color=color)
        ax.hist(values, bins=bins, density=True, histtype="step", color=color, label=DESIGN_LABELS.get(design, design))
        if analytic_se is not None and design in analytic_se:
            ax.plot(x, stats.norm.pdf(x, scale=analytic_se[design]), color=color, lw=1, ls="--")
    ax.set(xlabel="delta_hat (A/A test: true effect 0)", ylabel="density")
    ax.legend(fontsize="small", title="dashed: N(0, SE^2), section 4.2.1")
    ax.set_title(f"Figure 5: delta_hat over {n:,} simulated experiments", fontsize="medium")
    fig.tight_layout()
    return fig
