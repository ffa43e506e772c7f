"""Figures: one function per figure kind, and :func:`savefig` with reproducible output.

Every function takes the library's results (never raw notebook state), draws on a new or given
figure, and returns the ``matplotlib`` figure. Colours of the four designs are fixed across figures.

Every plot checks its arguments before it draws: a missing column, text where numbers belong, an
empty mapping or a bad size is a ValueError or TypeError naming the argument. A NaN inside a numeric
column is drawn as a gap (a missing marker or a break in a line), as matplotlib does; it is not an error.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties

from perfstudy._lib.checks import (
    check_bool,
    check_column,
    check_directory,
    check_frame,
    check_instance,
    check_int,
    check_mapping,
    check_names,
    check_real,
    check_sample,
    check_text,
    check_tuple,
)
from perfstudy.capacity.peak_search import PeakSearch
from perfstudy.design.model import VarianceComponents, check_components, clustered_standard_error
from perfstudy.design.schedules import DESIGNS
from perfstudy.design.simulated_errors import SweepResult
from perfstudy.design.standard_errors import standard_error

__all__ = [
    "DESIGN_COLORS",
    "DESIGN_LABELS",
    "file_stem",
    "savefig",
    "save_and_show",
    "panel_grid",
    "plot_runs",
    "plot_run_order",
    "plot_comparison",
    "plot_clustered_se",
    "plot_design_standard_errors",
    "plot_ranked_intervals",
    "plot_host_ranking",
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


# ---- argument checks --------------------------------------------------------------------------------------------
#
# Every plot checks its arguments at its top, before it draws, with perfstudy._lib.checks. A NaN inside a
# numeric column is a gap in a line or a missing marker, not an error (the module's documented
# behaviour; samples for densities must be finite).


def _positive_values(name, value):
    x = check_sample(name, value)
    if (x <= 0).any():
        raise ValueError(f"{name}: expected positive values")
    return x


def panel_grid(count: int, columns: int, size: tuple[float, float]):
    """A figure of ``count`` panels, ``columns`` to a row, each ``size`` inches; spare panels hidden.

    Parameters
    ----------
    count : int
        Panels to draw on.
    columns : int
        Panels to a row (at most 12).
    size : (float, float)
        Width and height of one panel, in inches.

    Returns
    -------
    (matplotlib.figure.Figure, ndarray of Axes)
        The figure and the ``count`` axes in reading order.
    """
    count = check_int("count", count, maximum=10_000)
    columns = check_int("columns", columns, maximum=12)
    positive = {"positive": True}
    width, height = check_tuple("size", size, check_real, check_real, options=(positive, positive))
    rows = math.ceil(count / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(width * columns, height * rows), squeeze=False)
    for ax in axes.ravel()[count:]:
        ax.set_visible(False)
    return fig, axes.ravel()[:count]


def file_stem(name) -> str:
    """``name`` made safe as a figure's file name: every character but letters and digits becomes ``_``
    (``"regex/compile"`` -> ``"regex_compile"``).

    Parameters
    ----------
    name : object
        A benchmark's name, or anything whose text names a figure.
    """
    stem = "".join(c if c.isalnum() else "_" for c in str(name))
    if not stem:
        raise ValueError(f"name={name!r}: an empty name cannot name a file")
    return stem


def savefig(
    fig,
    name: str,
    *,
    figures_dir="figures",
    formats: Sequence[str] = ("png", "pdf"),
    dpi: int = 150,
    tight: bool = True,
):
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
    tight : bool
        Crop the file to what is drawn (``bbox_inches="tight"``), which lays the figure out twice; False keeps the
        figure's own size and margins (:func:`plot_runs` with ``size`` sets them), laid out once.

    Returns
    -------
    list of pathlib.Path
    """
    check_instance("fig", fig, Figure)
    tight = check_bool("tight", tight)
    check_text("name", name)
    formats = list(check_names("formats", formats))
    dpi = check_int("dpi", dpi, maximum=2400)
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
            fig.savefig(path, format=fmt, dpi=dpi, metadata=metadata, bbox_inches="tight" if tight else None)
        paths.append(path)
    return paths


def save_and_show(
    fig,
    name: str,
    *,
    figures_dir="figures",
    formats: Sequence[str] = ("png", "pdf"),
    dpi: int = 150,
    tight: bool = True,
):
    """Save ``fig`` as :func:`savefig` does, show the PNG it wrote, and close the figure: one drawing for the file
    and the notebook, where ``savefig`` and then ``plt.show()`` draw it twice (the inline backend draws its own
    image; 0.16 s of a 9 x 3.2 in figure on this project's machine, a second per five of ``analyze``'s figures).

    The image is shown at the inline backend's size: the PNG's pixels at 100 to the inch (matplotlib's
    ``figure.dpi``), so that a 150-dpi file is sharper on a dense screen and no larger on the page.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    name : str
        File name without extension.
    figures_dir : str or path
    formats : sequence of str
        Extensions to write; ``"png"`` among them, as it is what is shown.
    dpi : int
        Resolution of the PNG.
    tight : bool
        As :func:`savefig` takes it.

    Returns
    -------
    list of pathlib.Path
    """
    formats = list(check_names("formats", formats))
    if "png" not in formats:
        raise ValueError(f"formats={formats!r}: expected 'png' among them, the image shown")
    paths = savefig(fig, name, figures_dir=figures_dir, formats=formats, dpi=dpi, tight=tight)
    plt.close(fig)
    from IPython.display import Image, display

    data = paths[formats.index("png")].read_bytes()
    width = int.from_bytes(data[16:20], "big")  # the IHDR chunk's width, in pixels
    display(Image(data=data, format="png", width=round(width * 100 / dpi)))
    return paths


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
    sigma = check_real("sigma", sigma, positive=True)
    rhos = check_sample("rhos", rhos)
    if ((rhos < 0) | (rhos > 1)).any():
        raise ValueError("rhos: expected correlations in [0, 1]")
    requests = _positive_values("requests", requests)
    repetitions = _positive_values("repetitions", repetitions)
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


def plot_design_standard_errors(sweep, components: VarianceComponents, *, line_points: int = 60, title: str = ""):
    """Figure 4: theoretical SE lines and empirical points, one panel per host count.

    Parameters
    ----------
    sweep : perfstudy.design.simulated_errors.SweepResult
        Empirical SEs; points carry +-2 Monte Carlo standard errors.
    components : VarianceComponents
        For the theory lines (section 4.2.1).
    line_points : int
        Points per theory line.
    title : str
    """
    check_instance("sweep", sweep, SweepResult)
    check_components(components)
    line_points = check_int("line_points", line_points, minimum=2, maximum=10_000)
    check_text("title", title)
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
    intervals = check_mapping("intervals", intervals, check_tuple, check_sample, check_sample, check_sample)
    check_text("title", title)
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


def plot_host_ranking(ranking, *, by: str = "host", highlight=None, curve=None, top: int = 30):
    """Figure 7 of Maricq et al.: servers by MMD against the rest (b), and the elimination curve (c).

    ``ranking`` comes from :func:`perfstudy.diagnostics.hosts.rank_hosts`; ``highlight`` names servers to
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
        Elimination curve (:func:`perfstudy.diagnostics.hosts.eliminate_unrepresentative`).
    top : int
        Most dissimilar servers to show.

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame("ranking", ranking, numeric=("statistic", "p_value"))
    check_text("by", by)
    if curve is not None:
        check_frame("curve", curve, numeric=("round", "statistic", "max_statistic_after"))
    top = check_int("top", top, maximum=10_000)
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


def plot_search_traces(traces: Mapping[str, tuple]):
    """Figures 3 and 7 of Shivam et al.: each trial's load factor against cumulative benchmarking time.

    ``traces`` maps a label to ``(search, true_peak_rate)``, a :class:`perfstudy.capacity.peak_search.PeakSearch`
    and the server's true peak rate (load factor = load / true peak rate).

    Parameters
    ----------
    traces : mapping of str to (PeakSearch, float)
        As described above.

    Returns
    -------
    matplotlib.figure.Figure
    """
    traces = check_mapping(
        "traces", traces, check_tuple, check_instance, check_real, options=({"kind": PeakSearch}, {"positive": True})
    )
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
    ax.set(xlabel="cumulative benchmarking time (hours)", ylabel="load / true peak rate")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


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
    check_frame("frame", frame)
    for argument, text in dict(x=x, y=y, hue=hue, xlabel=xlabel, ylabel=ylabel, title=title).items():
        check_text(argument, text)
    check_bool("logx", logx)
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


def plot_run_order(frame: pd.DataFrame, benchmark=None):
    """A perfstudy run's batches on the clock: each batch's mean at its start time, one colour per version,
    above the load average and the platform probe recorded before each batch, so that a drift of the
    machine, and whether both versions met it, can be seen.

    Parameters
    ----------
    frame : DataFrame
        A run's rows (:attr:`perfstudy.experiment._run.RunFile.frame`): ``benchmark``, ``version``, ``batch``, ``start``
        (Unix seconds), ``value``, ``warmup``, ``load``, ``probe``.
    benchmark : optional
        The benchmark to show (default: the only one; required when there are several).

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame(
        "frame", frame, ("benchmark", "version", "batch", "warmup"), numeric=("value", "start", "load", "probe")
    )
    names = list(dict.fromkeys(frame["benchmark"]))
    if benchmark is None:
        if len(names) != 1:
            raise ValueError(f"benchmark: the run has {len(names)} benchmarks ({names[:3]}...); name one")
        benchmark = names[0]
    if benchmark not in names:
        raise ValueError(f"benchmark={benchmark!r}: not in the run ({names[:5]})")
    from perfstudy._lib.format import display_unit

    rows = frame[(frame["benchmark"] == benchmark) & ~frame["warmup"].astype(bool)]
    batches = rows.groupby("batch", sort=False).agg(
        version=("version", "first"),
        start=("start", "first"),
        value=("value", "mean"),
        load=("load", "first"),
        probe=("probe", "first"),
    )
    origin = float(np.min(np.asarray(frame["start"], dtype=float)))
    batches["seconds"] = np.asarray(batches["start"], dtype=float) - origin
    fig, (top, middle, bottom) = plt.subplots(
        3, 1, figsize=(9, 5.2), sharex=True, gridspec_kw=dict(height_ratios=[3, 1, 1]), layout="constrained"
    )
    units = sorted({str(u) for u in rows["unit"].tolist() if isinstance(u, str)}) if "unit" in rows.columns else []
    factor, shown, _ = display_unit(units[0]) if len(units) == 1 else (1.0, "", False)
    if shown:
        top.yaxis.set_major_formatter(matplotlib.ticker.EngFormatter(unit=shown))
    colours = {"A": "#1f77b4", "B": "#d62728"}
    for version, group in batches.groupby("version", sort=True):
        top.plot(
            group["seconds"],
            group["value"] * factor,
            "o",
            ms=4,
            color=colours.get(str(version)),
            label=f"{version}: batch mean",
        )
    top.set_ylabel(str(benchmark))
    top.legend(loc="best", fontsize=8)
    top.set_title("the run on the clock: each batch at its start", fontsize=10)
    ordered = batches.iloc[np.argsort(np.asarray(batches["seconds"], dtype=float), kind="stable")]
    middle.step(ordered["seconds"], ordered["load"], where="post", color="0.3")
    middle.set_ylabel("load (1 min)")
    bottom.plot(ordered["seconds"], ordered["probe"] * 1e3, ".", color="0.3", ms=3)
    bottom.set_ylabel("probe (ms)")
    bottom.set_xlabel("seconds since the run's first batch")
    return fig


def plot_runs(frame: pd.DataFrame, table: pd.DataFrame, *, cluster: str = "batch", columns: int = 2, size=None):
    """Each benchmark's values in run order, one colour per version, with the batch boundaries and
    the warm-up iterations that :func:`perfstudy.analysis.analyze` says to drop shaded.

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
    size : (float, float), optional
        For one benchmark: the figure's width and height in inches, with margins made for its labels, so that it
        can be saved without cropping (:func:`savefig` with ``tight=False``), laid out once rather than twice
        (``analyze`` draws a figure a benchmark).

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame("frame", frame, ("benchmark", "version"), numeric=("value",))
    check_frame("table", table, ("benchmark", "version"), numeric=("warmup_iterations",))
    check_text("cluster", cluster)
    columns = check_int("columns", columns, maximum=12)
    if size is not None:
        positive = {"positive": True}
        size = check_tuple("size", size, check_real, check_real, options=(positive, positive))
        count = len(set(table["benchmark"].tolist()))
        if count != 1:
            raise ValueError(f"size={size!r}: a figure of one benchmark only; this table has {count}")
    from perfstudy._lib.format import display_unit

    check_column("cluster", cluster, frame, "frame")
    benchmarks = list(dict.fromkeys(table["benchmark"]))
    fig, axes = panel_grid(len(benchmarks), min(columns, len(benchmarks)), (5.5, 2.8))
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
            if len(starts) > 1:  # one collection of lines, not an artist a batch (analyze draws a figure a benchmark)
                ax.vlines(
                    starts[1:], 0, 1, transform=ax.get_xaxis_transform(), colors=line.get_color(), lw=0.3, alpha=0.3
                )
        # at the top of the panel, as matplotlib would place it with no tick labels above, without its search
        # of the panel's extent for them (a quarter of the drawing of a runs figure)
        ax.set_title(str(benchmark), fontsize="small", y=1.0)
        ax.set_xlabel(f"run order ({cluster} boundaries as lines; x: warm-up to drop)", fontsize="x-small")
        ax.set_ylabel(shown or "value")
    axes[0].legend(fontsize="x-small", markerscale=3)
    if size is not None:
        _one_panel_margins(fig, axes[0], size)
    elif len(benchmarks) > 1:  # panels kept apart; one panel's margins are savefig's bbox_inches="tight", and a
        fig.tight_layout()  # layout here would be for the size before a caller's set_size_inches
    return fig


def _one_panel_margins(fig, ax, size) -> None:
    """Size ``fig`` and give its one panel margins, in inches, for what surrounds it: the y tick labels as their
    formatter writes them (at most 0.62 em a character: digits, a point and an SI prefix), the y label, the
    x tick labels and label and the title. Without a drawing: the labels' text is known before it is laid out."""
    width, height = size
    fig.set_size_inches(width, height)
    low, high = ax.get_ylim()
    ticks = [t for t in ax.yaxis.get_major_locator().tick_values(low, high) if low <= t <= high]
    labels = ax.yaxis.get_major_formatter().format_ticks(ticks) if ticks else [""]
    em = FontProperties(size=matplotlib.rcParams["ytick.labelsize"]).get_size_in_points() / 72
    left = 0.38 + 0.62 * em * max(map(len, labels))  # y label and the ticks' pads, then the widest tick label
    fig.subplots_adjust(left=left / width, right=1 - 0.15 / width, bottom=0.45 / height, top=1 - 0.3 / height)


def plot_comparison(table: pd.DataFrame, *, threshold: float = 0.0):
    """The change B/A - 1 per benchmark with its interval, coloured by verdict, and the threshold.

    Parameters
    ----------
    table : DataFrame
        ``Comparison.table`` (:func:`perfstudy.comparison._compare.compare`).
    threshold : float
        Drawn as a band around 0.

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_frame("table", table, ("benchmark", "verdict"), numeric=("change", "low", "high"))
    threshold = check_real("threshold", threshold, nonnegative=True)
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
