"""Figures: one function per figure kind, and :func:`savefig` with reproducible output.

Every function takes the library's results (never raw notebook state), draws on a new or given
figure, and returns the ``matplotlib`` figure. Colours of the four designs are fixed across figures.

Every plot checks its arguments before it draws: a missing column, text where numbers belong, an
empty mapping or a bad size is a ValueError or TypeError naming the argument. A NaN inside a numeric
column is drawn as a gap (a missing marker or a break in a line), as matplotlib does; it is not an error.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd
from scipy import stats

from perfstudy._checks import (
    check_bool,
    check_column,
    check_directory,
    check_fraction,
    check_frame,
    check_int,
    check_names,
    check_real,
    check_sample,
)
from perfstudy.designs import standard_error
from perfstudy.model import VarianceComponents, check_components, clustered_standard_error
from perfstudy.schedules import DESIGNS

__all__ = [
    "DESIGN_COLORS",
    "DESIGN_LABELS",
    "savefig",
    "plot_recovery",
    "plot_interval_methods",
    "VARIANCE_COLORS",
    "plot_variance_split",
    "plot_pilot_budget",
    "plot_runs",
    "plot_mean_intervals",
    "plot_comparison",
    "plot_detection",
    "plot_clustered_se",
    "plot_design_standard_errors",
    "plot_delta_hat_densities",
    "plot_bootstrap_vs_truth",
    "plot_ranked_intervals",
    "plot_type1_by_series",
    "FAMILY_COLORS",
    "plot_cov_overview",
    "plot_sorted_p_values",
    "plot_standard_error_trap",
    "plot_pt4cloud_distributions",
    "plot_method_accuracy",
    "plot_confirm_convergence",
    "plot_cov_vs_repetitions",
    "plot_server_ranking",
    "plot_search_traces",
    "plot_lines",
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


# ---- argument checks: every plot refuses bad input by name before it draws -------------------------------------
#
# A plot draws what it is given: a NaN inside a numeric column is a gap in a line or a missing
# marker, not an error (the module's documented behaviour; samples for densities must be finite). A missing column, a frame that is not a frame, text where numbers
# belong, an empty mapping or a bad size is refused with a ValueError or TypeError naming the argument.


def _inputs(**spec):
    """Decorate a plot: each argument named in ``spec`` goes through its check before the plot draws."""

    def wrap(function):
        signature = inspect.signature(function)

        @functools.wraps(function)
        def checked(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            for name, check in spec.items():
                bound.arguments[name] = check(name, bound.arguments[name])
            return function(*bound.args, **bound.kwargs)

        return checked

    return wrap


def _frame(*columns, numeric=()):
    def check(name, value):
        return check_frame(name, value, columns, numeric=numeric)

    return check


def _sample(minimum: int = 1, spread: bool = False):
    def check(name, value):
        return check_sample(name, value, minimum=minimum, method="a density" if spread else None)

    return check


def _count(minimum: int = 1, maximum: int = 10_000):
    def check(name, value):
        return check_int(name, value, minimum=minimum, maximum=maximum)

    return check


def _real(positive: bool = False, nonnegative: bool = False):
    def check(name, value):
        return check_real(name, value, positive=positive, nonnegative=nonnegative)

    return check


def _text(name, value):
    if not isinstance(value, str):
        raise TypeError(f"{name}={value!r}: expected a string")
    return value


def _optional(inner):
    def check(name, value):
        return None if value is None else inner(name, value)

    return check


def _mapping(of, minimum: int = 1):
    """A mapping of at least ``minimum`` entries, each value checked by ``of`` under ``name[key]``."""

    def check(name, value):
        if not isinstance(value, Mapping):
            raise TypeError(f"{name}: expected a mapping, got {type(value).__name__}")
        if len(value) < minimum:
            raise ValueError(f"{name}: expected at least {minimum} entr{'y' if minimum == 1 else 'ies'}")
        return {key: of(f"{name}[{key!r}]", item) for key, item in value.items()}

    return check


def _tuple(*parts):
    """A tuple (or list) of ``len(parts)`` items, each checked by its part."""

    def check(name, value):
        if not isinstance(value, (tuple, list)) or len(value) != len(parts):
            raise TypeError(f"{name}: expected a tuple of {len(parts)} items, got {type(value).__name__}")
        return tuple(part(f"{name}[{i}]", item) for i, (part, item) in enumerate(zip(parts, value)))

    return check


def _samples(minimum: int = 1, spread: bool = False):
    """A non-empty list of samples."""

    def check(name, value):
        if not isinstance(value, (list, tuple)) or not value:
            raise TypeError(f"{name}: expected a non-empty list of samples")
        return [
            check_sample(f"{name}[{i}]", v, minimum=minimum, method="a density" if spread else None)
            for i, v in enumerate(value)
        ]

    return check


def _having(*attributes, what: str):
    def check(name, value):
        missing = [a for a in attributes if not hasattr(value, a)]
        if missing:
            raise TypeError(f"{name}: expected {what}, got {type(value).__name__}")
        return value

    return check


def _strings(name, value):
    return list(check_names(name, value))  # a list: pandas reads a tuple of columns as one key


def _components(name, value):
    return check_components(value)


def _correlations(name, value):
    x = check_sample(name, value)
    if ((x < 0) | (x > 1)).any():
        raise ValueError(f"{name}: expected correlations in [0, 1]")
    return x


def _below_one(name, value):
    value = check_real(name, value, positive=True)
    if not value < 1:
        raise ValueError(f"{name}={value!r}: expected a number below 1")
    return value


def _positive_values(name, value):
    x = check_sample(name, value)
    if (x <= 0).any():
        raise ValueError(f"{name}: expected positive values")
    return x


def _panel_grid(count: int, columns: int, size: tuple[float, float]):
    """A figure of ``count`` panels, ``columns`` to a row, each ``size`` inches; spare panels hidden.

    Returns the figure and the ``count`` axes in reading order.
    """
    rows = math.ceil(count / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(size[0] * columns, size[1] * rows), squeeze=False)
    for ax in axes.ravel()[count:]:
        ax.set_visible(False)
    return fig, axes.ravel()[:count]


@_inputs(
    fig=_having("savefig", what="a matplotlib Figure"),
    name=_text,
    formats=_strings,
    dpi=_count(1, 2400),
)
def savefig(fig, name: str, *, figures_dir="figures", formats: Sequence[str] = ("png", "pdf"), dpi: int = 150):
    """Save ``fig`` as ``figures_dir/name.{png,pdf}`` with no timestamps in the metadata.

    The same figure gives byte-identical files on every run (PDF ``CreationDate`` is omitted, PNG
    carries no date), so committed or compared figures change only when their content does.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    name : str
        File name without extension.
    figures_dir : str or path
        Created if missing.
    formats : sequence of str
        Extensions to write.
    dpi : int
        Resolution of raster formats.

    Returns
    -------
    list of pathlib.Path
    """
    if not name or Path(name).name != name:
        raise ValueError(f"name={name!r}: expected a bare file name without directories")
    check_directory("figures_dir", figures_dir)
    directory = Path(figures_dir)
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


@_inputs(sigma=_real(positive=True), rhos=_correlations, requests=_positive_values, repetitions=_positive_values)
def plot_clustered_se(
    *,
    sigma: float = 1.0,
    rhos: Sequence[float] = (0.1, 0.5, 0.9),
    requests=np.geomspace(10, 1000, 50),
    repetitions: Sequence[int] = (1, 2, 5, 10, 30),
):
    """Figure 2: Eq. 1's SE against requests, one line per repetition count, one panel per rho.

    Parameters
    ----------
    sigma : float
        Total standard deviation of one observation.
    rhos : sequence of float
        Intra-cluster correlations, one panel each.
    requests : array_like
        ``R`` values on the x axis.
    repetitions : sequence of int
        ``T`` values, one line each.

    Returns
    -------
    matplotlib.figure.Figure
    """
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


@_inputs(
    sweep=_having("to_frame", "design", "analytic_se", what="a SweepResult"),
    components=_components,
    line_points=_count(2),
    title=_text,
)
def plot_design_standard_errors(sweep, components: VarianceComponents, *, line_points: int = 60, title: str = ""):
    """Figure 4: theoretical SE lines and empirical points, one panel per host count.

    Parameters
    ----------
    sweep : perfstudy.sweeps.SweepResult
        Empirical SEs; points carry +-2 Monte Carlo standard errors.
    components : VarianceComponents
        For the theory lines (section 4.2.1).
    line_points : int
        Points per theory line.
    title : str
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
            theory = standard_error(
                design, components, requests=grid, hosts=h, repetitions=int(points.repetitions.iloc[0])
            )
            ax.plot(grid, theory, color=color, lw=1.5, label=DESIGN_LABELS[design])
            ax.errorbar(
                points.requests,
                points.empirical_se,
                yerr=2 * points.monte_carlo_error,
                fmt="o",
                ms=3.5,
                color=color,
                mfc="white",
            )
        ax.set(xscale="log", title=f"{h} hosts", xlabel="requests per condition")
        ax.grid(True, which="both", alpha=0.3)
    axes[0, 0].set_ylabel("standard error of delta_hat")
    axes[0, -1].legend(fontsize="small")
    fig.suptitle(
        (f"{title}: " if title else "")
        + f"lines = section 4.2.1, points = {sweep.experiments:,} simulations (+-2 MC s.e.)",
        fontsize="medium",
    )
    fig.tight_layout()
    return fig


@_inputs(samples=_mapping(_sample(2, spread=True)), analytic_se=_optional(_mapping(_real(positive=True))), title=_text)
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


@_inputs(
    true_delta_hat=_sample(2, spread=True), bootstraps=_mapping(_sample(2, spread=True)), estimate=_real(), title=_text
)
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


@_inputs(intervals=_mapping(_tuple(_sample(), _sample(), _sample())), title=_text)
def plot_ranked_intervals(
    intervals: Mapping[tuple[str, str], tuple[np.ndarray, np.ndarray, np.ndarray]], *, title: str = ""
):
    """Figure 7: A/A tests ranked by estimate, with their intervals; false positives shaded red.

    Parameters
    ----------
    intervals : mapping (design, bootstrap) -> (estimate, low, high)
        One panel per key, designs as columns and bootstraps as rows.
    title : str
    """
    designs = list(dict.fromkeys(d for d, _ in intervals))
    boots = list(dict.fromkeys(b for _, b in intervals))
    # one panel alone (the explorer) is drawn at a full figure's size, not a grid cell's
    width, height = (6.4, 3.4) if len(intervals) == 1 else (3.1 * len(designs), 2.3 * len(boots))
    fig, axes = plt.subplots(
        len(boots),
        len(designs),
        figsize=(width, height),
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    for (design, boot), (estimate, low, high) in intervals.items():
        ax = axes[boots.index(boot), designs.index(design)]
        order = np.argsort(estimate)
        rank = np.arange(order.size)
        false_positive = (low[order] > 0) | (high[order] < 0)
        ax.vlines(
            rank[~false_positive], low[order][~false_positive], high[order][~false_positive], color="0.65", lw=0.6
        )
        ax.vlines(
            rank[false_positive], low[order][false_positive], high[order][false_positive], color="#d62728", lw=0.8
        )
        ax.plot(rank, estimate[order], color="k", lw=0.8)
        ax.axhline(0, color=DESIGN_COLORS.get(design, "k"), lw=0.8)
        ax.text(
            0.03,
            0.92,
            f"{false_positive.mean():.1%} false positives",
            transform=ax.transAxes,
            fontsize="small",
            va="top",
        )
        if boots.index(boot) == 0:
            ax.set_title(DESIGN_LABELS.get(design, design), fontsize="small")
        if designs.index(design) == 0:
            ax.set_ylabel(f"{boot} bootstrap\nestimated effect", fontsize="small")
        if boots.index(boot) == len(boots) - 1:
            ax.set_xlabel("rank")
    fig.suptitle(
        (f"{title}: " if title else "") + "A/A tests ranked by estimate; red intervals exclude 0", fontsize="medium"
    )
    fig.tight_layout()
    return fig


@_inputs(
    frame=_frame("series", "bootstrap", numeric=("type1_error", "type1_error_mc", "se_ratio")),
    experiments=_count(1, 10**12),
    confidence=check_fraction,
    title=_text,
)
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


FAMILY_COLORS = {
    "azure-vm-noise": "#1f77b4",
    "pt4cloud": "#ff7f0e",
    "sap-hana": "#2ca02c",
    "laaber-go": "#9467bd",
    "cwb": "#8c564b",
}


def _percent(value, _position=None) -> str:
    return f"{100 * value:.3g}%"


@_inputs(survey=_frame("family", "dataset", numeric=("cov",)), label_top=_count(0), title=_text)
def plot_cov_overview(survey, *, label_top: int = 3, title: str = ""):
    """Figure 1 of Maricq et al. on public data: the CoV of every series, sorted, coloured by family.

    ``survey`` is the frame of :func:`perfstudy.survey.survey_datasets` (columns ``family``,
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
    # a CoV below 1e-9 is a constant series up to rounding (e.g. 1e-14): not drawn, counted in the title
    constant = survey["cov"] < 1e-9
    zero = int(constant.sum())
    frame = survey[~constant].sort_values("cov").reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(10, 4.2))
    for family, group in frame.groupby("family", sort=False):
        ax.scatter(group.index, group["cov"], s=8, color=FAMILY_COLORS.get(family), label=f"{family} ({len(group)})")
    for rank, position in enumerate(range(len(frame) - 1, max(-1, len(frame) - 1 - label_top), -1)):
        row = frame.iloc[position]
        where = ", ".join(str(row[k]) for k in ("benchmark", "config", "host") if k in row and pd.notna(row[k]))
        ax.annotate(
            f"{row['dataset']}: {where}",
            (position, row["cov"]),
            fontsize=6.5,
            xytext=(-8, -10 - 11 * rank),
            textcoords="offset points",
            ha="right",
            arrowprops=dict(arrowstyle="-", color="0.6", lw=0.5),
        )
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_percent))
    ax.axhline(0.10, color="0.5", lw=0.8, ls="--")
    ax.text(0, 0.10, "10%: 'may be attributed to hardware variability' (section 4.1)", fontsize=7, va="bottom")
    title = (f"{title}: " if title else "") + "CoV of every series"
    ax.set(
        xlabel="series, ordered by CoV",
        ylabel="coefficient of variation (sd / mean)",
        title=title + (f" ({zero} constant series not drawn)" if zero else ""),
    )
    ax.legend(fontsize="small", loc="lower right")
    fig.tight_layout()
    return fig


@_inputs(panels=_mapping(_mapping(_sample(1))), alpha=check_fraction, ylabel=_text, title=_text, floor=_below_one)
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


@_inputs(table=_frame("series", numeric=("naive_se", "truncated_se", "bartlett_se", "batch_means_se")))
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


@_inputs(
    cases=_mapping(
        _tuple(_samples(2, spread=True), _having("sample", "band", what="a PT4CloudResult"), _sample(2, spread=True))
    ),
    columns=_count(1, 12),
)
def plot_pt4cloud_distributions(cases: Mapping[str, tuple], *, columns: int = 2):
    """Figures 4 and 5 of He et al.: the distribution after each interval, the ground truth, the band.

    ``cases`` maps a panel title to ``(intervals, result, ground_truth)``: the list of per-interval
    arrays, the :class:`perfstudy.pt4cloud.PT4CloudResult` (with its band), and the ground-truth
    runs (or None). Cumulative KDEs after intervals 1, 2, ... are drawn in darkening greys; the
    reported one is the last, with its point-wise band shaded.

    Parameters
    ----------
    cases : mapping of str to tuple
        As described above.
    columns : int
        Panels per row.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from perfstudy.kde import binned_density, scott_bandwidth, strip_grid

    fig, axes = _panel_grid(len(cases), columns, (5.2, 3.3))
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
        ax.set(title=title, xlabel="performance", ylabel="density")
        ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


@_inputs(frame=_frame("config"), methods=_strings, labels=_optional(_mapping(_text, minimum=0)))
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


@_inputs(
    cases=_mapping(_having("sizes", "mean_low", "mean_high", "median", "error", what="a Repetitions result")),
    columns=_count(1, 12),
)
def plot_confirm_convergence(cases: Mapping[str, object], *, columns: int = 3):
    """Figure 5 of Maricq et al.: mean CI bounds of the median against the number of runs.

    ``cases`` maps a panel title to a :class:`perfstudy.confirm.Repetitions`. The band is the mean
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
    fig, axes = _panel_grid(len(cases), columns, (4.6, 3.3))
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


@_inputs(frame=_frame("family", numeric=("cov", "estimate")), max_size=_count(1, 10**12), title=_text)
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


@_inputs(
    ranking=_frame(numeric=("statistic", "p_value")),
    by=_text,
    curve=_optional(_frame(numeric=("round", "statistic", "max_statistic_after"))),
    top=_count(1),
)
def plot_server_ranking(ranking, *, by: str = "host", highlight=None, curve=None, top: int = 30):
    """Figure 7 of Maricq et al.: servers by MMD against the rest (b), and the elimination curve (c).

    ``ranking`` comes from :func:`perfstudy.servers.rank_servers`; ``highlight`` names servers to
    mark (e.g. a deliberately degraded copy); ``curve`` is an elimination curve to draw beside it.

    Parameters
    ----------
    ranking : DataFrame
        The ranking.
    by : str
        Server column of ``ranking``.
    highlight : sequence, optional
        Servers to mark.
    curve : DataFrame, optional
        Elimination curve (:func:`perfstudy.servers.eliminate_unrepresentative`).
    top : int
        Most dissimilar servers to show.

    Returns
    -------
    matplotlib.figure.Figure
    """
    panels = 2 if curve is not None and len(curve) else 1
    fig, axes = plt.subplots(1, panels, figsize=(5.5 * panels, 3.8), squeeze=False)
    ax = axes[0, 0]
    check_column("by", by, ranking, "ranking")
    shown = ranking.head(top)
    marked = set([] if highlight is None else ([highlight] if isinstance(highlight, str) else highlight))
    colors = [
        "#d62728" if s in marked else ("#1f77b4" if p < 0.05 else "0.6") for s, p in zip(shown[by], shown["p_value"])
    ]
    ax.bar(np.arange(len(shown)), shown["statistic"], color=colors)
    ax.set(
        xlabel=f"{by}, most dissimilar first (blue: p < 0.05; red: marked)",
        ylabel="MMD^2 against the rest",
        title=f"{len(ranking)} servers ranked (top {len(shown)})",
    )
    ax.set_xticks([])
    if panels == 2:
        ax = axes[0, 1]
        ax.plot(curve["round"], curve["statistic"], "o-", label="MMD^2 of the server removed")
        ax.plot(curve["round"], curve["max_statistic_after"], "s--", label="largest MMD^2 left")
        ax.set(xlabel="servers removed", ylabel="MMD^2", title="iterative elimination")
        ax.legend(fontsize="x-small")
    fig.tight_layout()
    return fig


@_inputs(traces=_mapping(_tuple(_having("trials", "cost", "converged", what="a PeakSearch"), _real(positive=True))))
def plot_search_traces(traces: Mapping[str, tuple]):
    """Figures 3 and 7 of Shivam et al.: each trial's load factor against cumulative benchmarking time.

    ``traces`` maps a label to ``(search, true_peak_rate)``, a :class:`perfstudy.workbench.PeakSearch`
    and the server's true peak rate (load factor = load / true peak rate).

    Parameters
    ----------
    traces : mapping of str to (PeakSearch, float)
        As described above.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = plt.subplots(figsize=(8, 4))
    for label, (search, peak) in traces.items():
        trials = search.trials
        ax.plot(
            trials["elapsed"] / 3600,
            trials["load"] / peak,
            "o-",
            ms=3,
            lw=0.8,
            label=f"{label}: {search.cost / 3600:.1f} h" + ("" if search.converged else " (not converged)"),
        )
    ax.axhline(1.0, color="k", lw=0.8, ls="--")
    ax.set(xlabel="cumulative benchmarking time (hours)", ylabel="load factor (load / true peak rate)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


@_inputs(frame=_frame(), x=_text, y=_text, hue=_text, xlabel=_text, ylabel=_text, title=_text, logx=check_bool)
def plot_lines(frame, *, x: str, y: str, hue: str, xlabel: str, ylabel: str, title: str = "", logx: bool = False):
    """One line per value of ``hue``: ``y`` against ``x`` (Figures 6, 9 and 10 of Shivam et al.).

    Parameters
    ----------
    frame : DataFrame
        Long format, one row per point.
    x, y, hue : str
        Columns for the axes and for the lines.
    xlabel, ylabel : str
        Axis labels.
    title : str
    logx : bool
        Logarithmic x axis.

    Returns
    -------
    matplotlib.figure.Figure
    """
    for name, column in (("x", x), ("y", y), ("hue", hue)):
        check_column(name, column, frame, "frame")
    check_frame("frame", frame, numeric=(y,))
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for value, group in frame.groupby(hue, sort=True):
        group = group.sort_values(x)
        ax.plot(group[x], group[y], "o-", label=f"{hue} = {value}")
    if logx:
        ax.set_xscale("log")
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


@_inputs(frame=_frame("endpoint", "parameter", numeric=("truth", "estimate", "low", "high")))
def plot_recovery(frame: pd.DataFrame):
    """Fitted sigmas with their intervals beside the truth, one panel per parameter.

    Parameters
    ----------
    frame : DataFrame
        Columns ``endpoint``, ``parameter``, ``truth``, ``estimate``, ``low``, ``high`` (as from
        :func:`perfstudy.studies.bakshy2015.table1_recovery`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    parameters = list(dict.fromkeys(frame["parameter"]))
    fig, axes = _panel_grid(len(parameters), len(parameters), (2.6, 2.8))
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


@_inputs(
    frame=_frame("term", numeric=("estimate", "profile_low", "profile_high", "bootstrap_low", "bootstrap_high")),
    title=_optional(_text),
)
def plot_interval_methods(frame: pd.DataFrame, *, title: str | None = None):
    """Profile-likelihood and bootstrap intervals side by side, one panel per standard deviation
    (each on its own scale: a host sigma and an iteration sigma differ by orders of magnitude).

    Parameters
    ----------
    frame : DataFrame
        Columns ``term``, ``estimate``, ``profile_low``, ``profile_high``, ``bootstrap_low`` and
        ``bootstrap_high`` (as from :func:`perfstudy.studies.bakshy2015.interval_methods`); a
        ``levels`` column, if present, labels each panel.
    title : str, optional
        Above the panels.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = _panel_grid(len(frame), len(frame), (2.4, 2.4))
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
VARIANCE_COLORS = {
    "region": "#9467bd",
    "host": "#d62728",
    "batch": "#ff7f0e",
    "host_batch": "#bcbd22",
    "noise": "#1f77b4",
}


@_inputs(
    frame=_frame(
        "family",
        "benchmark",
        numeric=("share_region", "share_host", "share_batch", "share_host_batch", "share_noise", "total_sd"),
    )
)
def plot_variance_split(frame: pd.DataFrame):
    """How each benchmark's variance splits between regions, hosts, batches and noise: one stacked
    bar per benchmark, a panel per family, benchmarks sorted by their host share.

    Parameters
    ----------
    frame : DataFrame
        Columns ``family``, ``benchmark``, ``total_sd`` and ``share_<role>`` for the roles of
        :data:`VARIANCE_COLORS` (as from :func:`perfstudy.studies.bakshy2015.variance_split`);
        benchmarks with no fit (NaN shares) are drawn as empty bars labelled "not fitted".

    Returns
    -------
    matplotlib.figure.Figure
    """
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


@_inputs(
    summary=_frame(
        numeric=("pilot_hosts", "pilot_batches", "se_ratio_median", "se_ratio_low", "se_ratio_high", "within_10pct")
    ),
    target_se=_real(positive=True),
)
def plot_pilot_budget(summary: pd.DataFrame, *, target_se: float):
    """What pilots of each size recommend: the SE their design really delivers over the target
    (median with a 10-90% band), and the share of pilots landing within 10% of it.

    Parameters
    ----------
    summary : DataFrame
        ``PilotBudget.summary`` (:func:`perfstudy.studies.bakshy2015.pilot_budget`).
    target_se : float
        The target, for the axis label.

    Returns
    -------
    matplotlib.figure.Figure
    """
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


@_inputs(
    frame=_frame("benchmark", "version", numeric=("value",)),
    table=_frame("benchmark", "version", numeric=("warmup_iterations",)),
    cluster=_text,
    columns=_count(1, 12),
)
def plot_runs(frame: pd.DataFrame, table: pd.DataFrame, *, cluster: str = "batch", columns: int = 2):
    """Each benchmark's values in run order, one colour per version, with the batch boundaries and
    the warm-up iterations that :func:`perfstudy.analyze.analyze` says to drop shaded.

    Parameters
    ----------
    frame : DataFrame
        ``benchmark``, ``version``, ``cluster``, ``value`` and, if known, ``iteration``; in run
        order within each version.
    table : DataFrame
        ``Analysis.table`` (``version``, ``benchmark``, ``warmup_iterations``).
    cluster : str
        The batch column.
    columns : int
        Panels per row.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from perfstudy._format import display_unit

    check_column("cluster", cluster, frame, "frame")
    benchmarks = list(dict.fromkeys(table["benchmark"]))
    fig, axes = _panel_grid(len(benchmarks), min(columns, len(benchmarks)), (5.5, 2.8))
    for ax, benchmark in zip(axes, benchmarks):
        rows = frame[frame["benchmark"] == benchmark]
        units = rows["unit"].dropna().unique() if "unit" in rows.columns else []
        factor, shown, _ = display_unit(units[0]) if len(units) == 1 else (1.0, "", False)
        if shown:  # 70 µs, not 7e-05 "value"
            ax.yaxis.set_major_formatter(matplotlib.ticker.EngFormatter(unit=shown))
        for version, series in rows.groupby("version", sort=True):
            series = series.assign(value=series["value"] * factor)
            x = np.arange(len(series))
            position = series["iteration"].to_numpy() if "iteration" in series else np.zeros(len(series))
            drop = table.loc[(table["benchmark"] == benchmark) & (table["version"] == version), "warmup_iterations"]
            drop = int(drop.iloc[0]) if len(drop) else 0
            warm = position < drop
            name = f"version {version}" if isinstance(version, (int, np.integer)) else str(version)
            (line,) = ax.plot(x, series["value"], ".", ms=2, alpha=0.6, label=name)
            ax.plot(x[warm], series["value"].to_numpy()[warm], "x", ms=3, color="black", alpha=0.6)
            starts = np.flatnonzero(np.r_[True, series[cluster].to_numpy()[1:] != series[cluster].to_numpy()[:-1]])
            for start in starts[1:]:
                ax.axvline(start, color=line.get_color(), lw=0.3, alpha=0.3)
        ax.set_title(str(benchmark), fontsize="small")
        ax.set_xlabel(f"run order ({cluster} boundaries as lines; x: warm-up to drop)", fontsize="x-small")
        ax.set_ylabel(shown or "value")
    axes[0].legend(fontsize="x-small", markerscale=3)
    fig.tight_layout()
    return fig


@_inputs(
    table=_frame(
        "version",
        "benchmark",
        numeric=("mean", "naive_low", "naive_high", "corrected_low", "corrected_high", "median_low", "median_high"),
    )
)
def plot_mean_intervals(table: pd.DataFrame):
    """Per series: the naive interval of the mean (values as if independent), the interval from the
    autocorrelation-corrected SE, and the median's distribution-free interval, relative to the mean.

    Parameters
    ----------
    table : DataFrame
        ``Analysis.table``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    labels = [f"{r.benchmark} ({r.version})" for r in table.itertuples()]
    y = np.arange(len(table))
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(table) + 1.2))
    mean = table["mean"].to_numpy(dtype=float)
    for offset, (low, high, label, color) in zip(
        (-0.2, 0.0, 0.2),
        [
            ("naive_low", "naive_high", "mean, naive SE", "tab:red"),
            ("corrected_low", "corrected_high", "mean, corrected SE", "tab:blue"),
            ("median_low", "median_high", "median (order statistics)", "tab:green"),
        ],
    ):
        lo = 100 * (table[low].to_numpy(dtype=float) / mean - 1)
        hi = 100 * (table[high].to_numpy(dtype=float) / mean - 1)
        ax.hlines(y + offset, lo, hi, color=color, lw=3, label=label)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, labels, fontsize="small")
    ax.set_xlabel("interval relative to the mean (%)")
    ax.legend(fontsize="x-small", loc="lower right")
    fig.tight_layout()
    return fig


@_inputs(table=_frame("benchmark", "verdict", numeric=("change", "low", "high")), threshold=_real(nonnegative=True))
def plot_comparison(table: pd.DataFrame, *, threshold: float = 0.0):
    """The change B/A - 1 per benchmark with its interval, coloured by verdict, and the threshold.

    Parameters
    ----------
    table : DataFrame
        ``Comparison.table`` (:func:`perfstudy.compare.compare`).
    threshold : float
        Drawn as a band around 0.

    Returns
    -------
    matplotlib.figure.Figure
    """
    colors = {"faster": "tab:green", "slower": "tab:red", "no change": "tab:gray", "inconclusive": "tab:orange"}
    y = np.arange(len(table))
    fig, ax = plt.subplots(figsize=(7, 0.4 * len(table) + 1.2))
    if threshold > 0:
        ax.axvspan(-100 * threshold, 100 * threshold, color="0.9")
    for verdict, color in colors.items():
        rows = table["verdict"] == verdict
        if rows.any():
            change = 100 * table.loc[rows, "change"].to_numpy(dtype=float)
            low = 100 * table.loc[rows, "low"].to_numpy(dtype=float)
            high = 100 * table.loc[rows, "high"].to_numpy(dtype=float)
            ax.errorbar(
                change, y[rows], xerr=[change - low, high - change], fmt="o", color=color, capsize=3, label=verdict
            )
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, table["benchmark"].astype(str), fontsize="small")
    ax.set_xlabel("change B/A - 1 (%)")
    ax.legend(fontsize="x-small")
    fig.tight_layout()
    return fig


@_inputs(frame=_frame("source", "method", numeric=("slowdown", "pairs", "rate", "mc_se")), title=_text)
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
    sources = list(dict.fromkeys(frame["source"]))
    fig, axes = _panel_grid(len(sources), len(sources), (3.6, 3.2))
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
