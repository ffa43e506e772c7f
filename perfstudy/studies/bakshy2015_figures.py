"""Figures of the Bakshy & Frachtenberg reproduction (notebooks 01, 02 and 07): densities of the
estimates per design, bootstrap against truth, Type I error on real series, recovery of the sigmas,
profile against bootstrap intervals, the variance split of real benchmarks, and pilots' budgets.

Each takes the study's result, checks it at its top (perfstudy._lib.checks) and returns the matplotlib
figure; what a user applies to their own data stays in :mod:`perfstudy.notebook.plots`.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd
from scipy import stats

from perfstudy._lib.checks import (
    check_fraction,
    check_frame,
    check_int,
    check_mapping,
    check_real,
    check_sample,
    check_text,
)
from perfstudy.notebook.plots import DESIGN_COLORS, DESIGN_LABELS, panel_grid

__all__ = [
    "VARIANCE_COLORS",
    "plot_delta_hat_densities",
    "plot_bootstrap_vs_truth",
    "plot_type1_by_series",
    "plot_recovery",
    "plot_interval_methods",
    "plot_variance_split",
    "plot_pilot_budget",
]

VARIANCE_COLORS = {
    "region": "#9467bd",
    "host": "#d62728",
    "batch": "#ff7f0e",
    "host_batch": "#bcbd22",
    "noise": "#1f77b4",
}


def plot_delta_hat_densities(
    samples: Mapping[str, np.ndarray], analytic_se: Mapping[str, float] | None = None, *, title: str = ""
):
    """Figure 5: density of ``delta_hat`` per design (histogram), with the normal of the closed-form SE.

    Parameters
    ----------
    samples : mapping of str to ndarray
        Design name to ``delta_hat`` of many experiments.
    analytic_se : mapping of str to float, optional
        Design name to its closed-form SE; draws the normal density with it.
    title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    samples = check_mapping("samples", samples, check_sample, minimum=2, method="a density")
    if analytic_se is not None:
        analytic_se = check_mapping("analytic_se", analytic_se, check_real, positive=True)
    check_text("title", title)
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
    ax.set_title((f"{title}: " if title else "") + f"delta_hat over {n:,} simulated experiments", fontsize="medium")
    fig.tight_layout()
    return fig


def plot_bootstrap_vs_truth(
    true_delta_hat: np.ndarray, bootstraps: Mapping[str, np.ndarray], *, estimate: float, title: str = ""
):
    """Figure 6: the true distribution of ``delta_hat`` against bootstrap distributions of one experiment.

    Bootstrap replicates are shifted by ``-estimate`` so their spread is compared with the truth's
    around the true effect (0 in an A/A test); the paper overlays them the same way.

    Parameters
    ----------
    true_delta_hat : ndarray
        ``delta_hat`` of many independent experiments (its true sampling distribution).
    bootstraps : mapping of str to ndarray
        Bootstrap replicates of one experiment, per bootstrap.
    estimate : float
        That experiment's ``delta_hat``.
    title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    true_delta_hat = check_sample("true_delta_hat", true_delta_hat, minimum=2, method="a density")
    bootstraps = check_mapping("bootstraps", bootstraps, check_sample, minimum=2, method="a density")
    estimate = check_real("estimate", estimate)
    check_text("title", title)
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for label, b in bootstraps.items():
        if not np.ptp(b - estimate) > 0:
            raise ValueError(f"estimate={estimate!r}: shifting bootstraps[{label!r}] by it leaves no spread")
    spread = max(np.abs(true_delta_hat).max(), *(np.abs(b - estimate).max() for b in bootstraps.values()))
    x = np.linspace(-spread, spread, 400)
    ax.plot(
        x,
        stats.gaussian_kde(true_delta_hat)(x),
        color="k",
        lw=2,
        label=f"true distribution ({true_delta_hat.size:,} simulations), sd {true_delta_hat.std(ddof=1):.4f}",
    )
    styles = ["--", ":", "-."]
    for (name, replicates), style in zip(bootstraps.items(), styles):
        centred = replicates - estimate
        ax.plot(
            x,
            stats.gaussian_kde(centred)(x),
            ls=style,
            lw=1.6,
            label=f"{name} bootstrap of one experiment, sd {replicates.std(ddof=1):.4f}",
        )
    ax.set(xlabel="delta_hat (bootstrap replicates centred on the experiment's estimate)", ylabel="density")
    ax.legend(fontsize="small")
    ax.set_title((f"{title}: " if title else "") + "which bootstrap reproduces the true spread?", fontsize="medium")
    fig.tight_layout()
    return fig


def plot_type1_by_series(frame, *, experiments: int, confidence: float = 0.95, title: str = ""):
    """Figure 8: Type I error per real series for the iid and clustered bootstraps, and SE ratios.

    ``frame`` has columns ``series``, ``bootstrap``, ``type1_error``, ``type1_error_mc``, ``se_ratio``.
    The shaded band is where a true rate of ``1 - confidence`` would be observed 95% of the time
    (binomial, ``experiments`` tests).

    Parameters
    ----------
    frame : DataFrame
        As described above.
    experiments : int
        A/A tests behind each rate (for the binomial band).
    confidence : float
        Of the intervals whose error rate is shown.
    title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame("frame", frame, ("series", "bootstrap"), numeric=("type1_error", "type1_error_mc", "se_ratio"))
    experiments = check_int("experiments", experiments, maximum=10**12)
    confidence = check_fraction("confidence", confidence)
    check_text("title", title)
    nominal = 1 - confidence
    series = list(dict.fromkeys(frame["series"]))
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 0.28 * len(series) + 1.6), sharey=True)
    y = np.arange(len(series))
    band = 1.96 * np.sqrt(nominal * (1 - nominal) / experiments)
    left.axvspan(nominal - band, nominal + band, color="0.9")
    left.axvline(nominal, color="k", lw=1)
    colors = {"iid": "#d62728", "segment": "#1f77b4"}
    for boot, group in frame.groupby("bootstrap", sort=False):
        group = group.set_index("series").loc[series]
        left.errorbar(
            group.type1_error, y, xerr=2 * group.type1_error_mc, fmt="o", ms=3.5, color=colors.get(boot), label=boot
        )
        right.plot(group.se_ratio, y, "o", ms=3.5, color=colors.get(boot), label=boot)
    left.set_xscale("symlog", linthresh=0.1, linscale=1)
    left.set(
        yticks=y,
        yticklabels=series,
        xlabel="Type I error rate (linear to 10%, log above)",
        xlim=(0, 1),
        title="Type I error (+-2 MC s.e.)",
    )
    left.set_xticks([0, 0.05, 0.1, 0.25, 0.5, 1.0])
    left.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
    left.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    right.axvline(1, color="k", lw=1)
    right.set(xlabel="mean SE relative to the segment bootstrap", title="standard error")
    left.legend(fontsize="small", loc="lower right")
    left.invert_yaxis()
    fig.suptitle((f"{title}: " if title else "") + "A/A tests cut from long real series", fontsize="medium")
    fig.tight_layout()
    return fig


def plot_recovery(frame: pd.DataFrame):
    """Fitted sigmas with their intervals beside the truth, one panel per parameter.

    Parameters
    ----------
    frame : DataFrame
        Columns ``endpoint``, ``parameter``, ``truth``, ``estimate``, ``low``, ``high`` (as from
        :func:`perfstudy.studies.bakshy2015_real.table1_recovery`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame("frame", frame, ("endpoint", "parameter"), numeric=("truth", "estimate", "low", "high"))
    parameters = list(dict.fromkeys(frame["parameter"]))
    fig, axes = panel_grid(len(parameters), len(parameters), (2.6, 2.8))
    for ax, name in zip(axes, parameters):
        rows = frame[frame["parameter"] == name]
        x = np.arange(len(rows))
        # the interval as a line from low to high: a percentile interval need not contain the estimate
        ax.vlines(x, rows["low"], rows["high"], color="tab:blue", lw=1.5)
        ax.plot(x, rows["estimate"], "o", color="tab:blue", label="fit (interval)")
        ax.scatter(x, rows["truth"], marker="x", color="black", zorder=3, label="truth")
        ax.set_xticks(x, rows["endpoint"])
        ax.set_xlabel("endpoint")
        ax.set_title(f"sigma {name}")
        ax.set_ylim(bottom=0)
    axes[0].legend(fontsize="small")
    fig.tight_layout()
    return fig


def plot_interval_methods(frame: pd.DataFrame, *, title: str | None = None):
    """Profile-likelihood and bootstrap intervals side by side, one panel per standard deviation
    (each on its own scale: a host sigma and an iteration sigma differ by orders of magnitude).

    Parameters
    ----------
    frame : DataFrame
        Columns ``term``, ``estimate``, ``profile_low``, ``profile_high``, ``bootstrap_low`` and
        ``bootstrap_high`` (as from :func:`perfstudy.studies.bakshy2015_real.interval_methods`); a
        ``levels`` column, if present, labels each panel.
    title : str, optional
        Above the panels.

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame(
        "frame",
        frame,
        ("term",),
        numeric=("estimate", "profile_low", "profile_high", "bootstrap_low", "bootstrap_high"),
    )
    if title is not None:
        check_text("title", title)
    fig, axes = panel_grid(len(frame), len(frame), (2.4, 2.4))
    methods = (("profile", "tab:blue"), ("bootstrap", "tab:orange"))
    for ax, (_, row) in zip(axes, frame.iterrows()):
        for x, (method, color) in enumerate(methods):
            ax.vlines(x, row[f"{method}_low"], row[f"{method}_high"], color=color, lw=3, label=method)
        ax.axhline(row["estimate"], color="black", lw=1, ls="--", label="estimate")
        ax.set_xticks(range(len(methods)), [m for m, _ in methods])
        ax.set_xlim(-0.6, len(methods) - 0.4)
        ax.margins(y=0.15)
        levels = f"\n({int(row['levels'])} levels)" if "levels" in frame else ""
        ax.set_title(f"sigma {row['term']}{levels}", fontsize="medium")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize="small", frameon=False)
    if title:
        fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


#: Colours of the parts of a benchmark's variance (:func:`plot_variance_split`).


def plot_variance_split(frame: pd.DataFrame):
    """How each benchmark's variance splits between regions, hosts, batches and noise: one stacked
    bar per benchmark, a panel per family, benchmarks sorted by their host share.

    Parameters
    ----------
    frame : DataFrame
        Columns ``family``, ``benchmark``, ``total_sd`` and ``share_<role>`` for the roles of
        :data:`VARIANCE_COLORS` (as from :func:`perfstudy.studies.bakshy2015_real.variance_split`);
        benchmarks with no fit (NaN shares) are drawn as empty bars labelled "not fitted".

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame(
        "frame",
        frame,
        ("family", "benchmark"),
        numeric=("share_region", "share_host", "share_batch", "share_host_batch", "share_noise", "total_sd"),
    )
    families = list(dict.fromkeys(frame["family"]))
    heights = [max(2.0, 0.22 * (frame["family"] == f).sum() + 1.0) for f in families]
    fig, axes = plt.subplots(
        len(families), 1, figsize=(8.5, sum(heights)), squeeze=False, gridspec_kw=dict(height_ratios=heights)
    )
    for ax, family in zip(axes[:, 0], families):
        rows = frame[frame["family"] == family].sort_values("share_host", na_position="first")
        y = np.arange(len(rows))
        left = np.zeros(len(rows))
        for role, color in VARIANCE_COLORS.items():
            share = rows[f"share_{role}"].to_numpy(dtype=float)
            if np.all(np.isnan(share)):
                continue
            share = np.nan_to_num(share)
            ax.barh(y, share, left=left, color=color, label=role.replace("_", " x "))
            left += share
        labels = [
            f"{b}  (sd {sd:.3f})" if np.isfinite(sd) else f"{b}  (not fitted)"
            for b, sd in zip(rows["benchmark"], rows["total_sd"])
        ]
        ax.set_yticks(y, labels, fontsize="x-small")
        ax.set_xlim(0, 1)
        ax.set_title(f"{family}: share of the variance of log value", fontsize="medium", pad=16)
        ax.legend(fontsize="x-small", ncol=5, loc="lower center", bbox_to_anchor=(0.5, 0.995), frameon=False)
    axes[-1, 0].set_xlabel("share of variance")
    fig.tight_layout()
    return fig


def plot_pilot_budget(summary: pd.DataFrame, *, target_se: float):
    """What pilots of each size recommend: the SE their design really delivers over the target
    (median with a 10-90% band), and the share of pilots landing within 10% of it.

    Parameters
    ----------
    summary : DataFrame
        ``PilotBudget.by_pilot`` (:func:`perfstudy.studies.bakshy2015_real.pilot_budget`).
    target_se : float
        The target, for the axis label.

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame(
        "summary",
        summary,
        numeric=("pilot_hosts", "pilot_batches", "se_ratio_median", "se_ratio_low", "se_ratio_high", "within_10pct"),
    )
    target_se = check_real("target_se", target_se, positive=True)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    for batches, rows in summary.groupby("pilot_batches", sort=True):
        rows = rows.sort_values("pilot_hosts")
        (line,) = left.plot(rows["pilot_hosts"], rows["se_ratio_median"], "o-", label=f"{batches} batches")
        left.fill_between(
            rows["pilot_hosts"], rows["se_ratio_low"], rows["se_ratio_high"], color=line.get_color(), alpha=0.15
        )
        right.plot(rows["pilot_hosts"], rows["within_10pct"], "o-", color=line.get_color(), label=f"{batches} batches")
    left.axhline(1.0, color="black", lw=0.8)
    left.set(xlabel="hosts in the pilot", ylabel=f"true SE / target ({target_se:g})", xscale="log")
    left.set_title("SE the recommended design delivers", fontsize="medium")
    right.set(xlabel="hosts in the pilot", ylabel="share within 10% of target", xscale="log", ylim=(0, 1.02))
    right.set_title("pilots whose design keeps its promise", fontsize="medium")
    for ax in (left, right):
        ticks = sorted(summary["pilot_hosts"].unique())
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.minorticks_off()
    left.legend(fontsize="small")
    fig.tight_layout()
    return fig
