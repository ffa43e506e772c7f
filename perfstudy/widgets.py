"""ipywidgets explorers: thin wrappers over library functions.

Each explorer computes and renders its first state when it is built, so a headless run (papermill,
nbconvert) shows a static result and never waits for a frontend.
"""

from __future__ import annotations

import base64
import functools
import html
import io
import math
import re

import ipywidgets as w
import matplotlib.pyplot as plt
import numpy as np
import traitlets
from IPython.display import HTML, display

from perfstudy._checks import check_bool, check_choice, check_fraction, check_int, check_real
from perfstudy.designs import CostModel, DesignComparison, compare_designs
from perfstudy.estimate import VarianceFit
from perfstudy.model import PERFLAB_ENDPOINTS, VarianceComponents, check_components
from perfstudy.plots import (
    DESIGN_COLORS,
    DESIGN_LABELS,
    plot_confirm_convergence,
    plot_pt4cloud_distributions,
    plot_ranked_intervals,
    plot_search_traces,
)

__all__ = [
    "design_explorer",
    "bootstrap_explorer",
    "pt4cloud_explorer",
    "confirm_explorer",
    "peak_rate_explorer",
    "render_comparison",
    "explorer_app",
    "figure_html",
]

#: every control's label is shown whole (ipywidgets cut long descriptions at about 80 px)
STYLE = {"description_width": "150px"}
LAYOUT = w.Layout(width="340px")
#: an update that takes longer than this shows "computing..." and greys the result (CSS, no timer thread)
BUSY_AFTER_S = 0.5
#: largest width of an explorer figure on screen, as a multiple of its width at 100 dpi (fonts stay legible)
MAX_ZOOM = 1.4
#: every explorer figure's size in inches: at most 1,050 px wide on screen, and short enough for a 768 px window
FIGURE_SIZE = (7.5, 3.6)
#: pixels per inch of the PNG: sharp on a screen that doubles pixels, and when the figure is widened
DPI = 160

#: The explorers' style sheet, shipped with every explorer (JupyterLab, Voila and exported HTML alike).
CSS = f"""<style>
.perfstudy-explorer .widget-readout {{ min-width: 5.5em; max-width: none; overflow: visible; }}
.perfstudy-explorer .widget-dropdown select {{ text-overflow: ellipsis; }}
.perfstudy-controls {{ flex-wrap: wrap; column-gap: 24px; }}
.perfstudy-busy {{ visibility: hidden; color: #555; animation: perfstudy-show 0s linear {BUSY_AFTER_S}s forwards; }}
.perfstudy-pending {{ animation: perfstudy-grey 0s linear {BUSY_AFTER_S}s forwards; }}
.perfstudy-stale {{ opacity: 0.4; filter: grayscale(1); }}
.perfstudy-figure {{ width: 100%; height: auto; }}
@keyframes perfstudy-show {{ to {{ visibility: visible; }} }}
@keyframes perfstudy-grey {{ to {{ opacity: 0.4; }} }}
</style>"""


class _NumberText(w.Text):
    """A number box that never reverts silently.

    ipywidgets' ``FloatText`` puts its last value back, without a word, when the box holds text that is not a
    number. This box keeps what was typed, so the explorer can refuse it by name; from Python it takes and
    gives numbers (``box.value = 0.05``), from the page the text typed.
    """

    value = traitlets.Any("").tag(sync=True)

    def __init__(self, value, *, integer: bool = False, **kwargs):
        super().__init__(value=value, continuous_update=False, **kwargs)
        self.integer = integer


def _number(label: str, value, *, integer: bool = False):
    """A number box's value as a number; text that is not one is refused with the box's label."""
    if isinstance(value, str):
        text = value.strip()
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            kind = "a whole number" if integer else "a number"
            raise ValueError(f"{label}: {value!r} is not {kind}") from None
    return value


def _red(message: str):
    """The explorers' one way to say no: the library's message, in red, above the last good result."""
    return HTML(f"<p class='perfstudy-error' style='color:#b00'>{html.escape(message)}</p>")


def _on_screen(message: str, controls: dict) -> str:
    """``message`` with each argument named as the library names it (``target_se=-1``) named as on screen
    (``target SE = -1``)."""
    for name, widget in sorted(controls.items(), key=lambda item: -len(item[0])):
        message = re.sub(rf"\b{re.escape(name)}=", f"{widget.description} = ", message)
    return message


def figure_html(fig, *, alt: str = "") -> str:
    """``fig`` as an ``<img>`` that scales with its container, closed once drawn.

    The explorers draw their figures themselves instead of calling ``plt.show()``: what the inline backend
    shows depends on how the update was triggered (in JupyterLab a slider drag gave a blank or axis-less
    PNG), while a PNG written here is the whole figure whatever moved the control.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    alt : str
        Text for readers that do not show images.
    """
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise TypeError(f"fig: expected a matplotlib Figure, got {type(fig).__name__}")
    if not isinstance(alt, str):
        raise TypeError(f"alt: expected text, got {type(alt).__name__}")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    png = buffer.getvalue()
    width = int.from_bytes(png[16:20], "big") / DPI * 100 * MAX_ZOOM  # the PNG's own width (IHDR), as saved
    data = base64.b64encode(png).decode("ascii")
    return (
        f"<img class='perfstudy-figure' style='max-width:{width:.0f}px' alt='{html.escape(alt)}' "
        f"src='data:image/png;base64,{data}'>"
    )


def _sized(fig):
    """``fig`` at :data:`FIGURE_SIZE`, laid out again: the library's figures are sized for a page of panels."""
    fig.set_size_inches(*FIGURE_SIZE)
    fig.tight_layout()
    return fig


def _explorer(controls: dict, compute, columns, *, title: str = ""):
    """An explorer: ``controls`` (name -> widget) laid out in ``columns`` (lists of names) above an output.

    ``compute(**values)`` returns ``(state, html_text, figure_or_None)``; it runs once now (so a headless
    run shows a result) and again whenever a control changes. While it runs, a "computing" line appears
    (after :data:`BUSY_AFTER_S`). A ``ValueError`` or ``TypeError`` from it (bad input, refused by the
    library) shows as a red message naming the control by its label, above the last good result, greyed;
    ``state`` becomes None. The returned box has ``controls``, ``state`` (the last result) and ``text`` (the
    HTML shown above the figure, or the red message).
    """
    out = w.Output()
    out.add_class("perfstudy-result")
    status = w.HTML()
    box = w.VBox()
    box.add_class("perfstudy-explorer")

    def update(**values):
        for name, widget in controls.items():
            if isinstance(widget, _NumberText):
                try:
                    values[name] = _number(widget.description, values[name], integer=widget.integer)
                except ValueError as error:
                    return refuse(error)
        status.value = "<span class='perfstudy-busy'>&#8987; computing&hellip;</span>"
        out.add_class("perfstudy-pending")
        try:
            state, text, fig = compute(**values)
            figure = "" if fig is None else figure_html(fig, alt=title)
        except (TypeError, ValueError) as error:
            return refuse(error)
        finally:
            out.remove_class("perfstudy-pending")
        box.state, box.text = state, text
        status.value = ""
        out.remove_class("perfstudy-stale")
        out.clear_output(wait=True)
        with out:
            display(HTML(text + figure))

    def refuse(error):
        box.state, box.text = None, _red(_on_screen(str(error), controls)).data
        status.value = box.text
        out.add_class("perfstudy-stale")

    for widget in controls.values():
        widget.style = STYLE
        if widget.layout.width is None:  # a control that needs more room says so
            widget.layout = LAYOUT
    box.controls = controls
    box.state, box.text = None, ""
    w.interactive_output(update, controls)
    header = [w.HTML(f"{CSS}<b>{html.escape(title)}</b>")]
    panel = w.HBox([w.VBox([controls[k] for k in column]) for column in columns])
    panel.add_class("perfstudy-controls")
    box.children = [*header, panel, status, out]
    return box


def render_comparison(comparison) -> str:
    """HTML for a :class:`perfstudy.designs.DesignComparison` (used by the explorer).

    Parameters
    ----------
    comparison : DesignComparison
    """
    if not isinstance(comparison, DesignComparison):
        raise TypeError(f"comparison: expected a DesignComparison, got {type(comparison).__name__}")
    rows = []
    for design, se in comparison.standard_errors.items():
        meets = comparison.target_se is not None and se <= comparison.target_se
        style = ' style="font-weight:bold"' if design == comparison.cheapest else ""
        rows.append(
            f"<tr{style}><td>{html.escape(DESIGN_LABELS[design])}</td><td>{se:.4f}</td>"
            f"<td>{comparison.costs[design]:,.0f}</td><td>{'yes' if meets else 'no'}</td></tr>"
        )
    head = "<tr><th>design</th><th>SE</th><th>cost</th><th>meets target</th></tr>"
    text = [f"<table>{head}{''.join(rows)}</table>"]
    if comparison.target_se is not None:
        if comparison.cheapest:
            text.append(
                f"<p>Cheapest design meeting SE &le; {comparison.target_se:g} at these sizes: "
                f"<b>{DESIGN_LABELS[comparison.cheapest]}</b>.</p>"
            )
        else:
            text.append(f"<p>No design meets SE &le; {comparison.target_se:g} at these sizes.</p>")
        if comparison.allocation is not None and comparison.allocation.best:
            best = comparison.allocation[comparison.allocation.best]
            text.append(
                f"<p>Cheapest way to meet it with {comparison.hosts} hosts: "
                f"<b>{DESIGN_LABELS[best.design]}</b>, R = {best.requests}, T = {best.repetitions}, "
                f"cost {best.cost:,.0f} (SE {best.standard_error:.4f}).</p>"
            )
    return "".join(text)


def design_explorer(
    components: VarianceComponents = PERFLAB_ENDPOINTS[1],
    *,
    requests: int = 256,
    hosts: int = 16,
    repetitions: int = 1,
    costs: CostModel = CostModel(setup=600.0, request=2.0, repetition=0.5, host=60.0),
    target_se: float = 0.05,
):
    """Sliders for the five sigmas, R, H, T, the costs and a target SE; shows the four designs' SEs.

    Parameters
    ----------
    components : VarianceComponents or VarianceFit
        Initial sigmas (default Table 1's endpoint), or a fit of your own pilot
        (:func:`perfstudy.estimate.fit_variance_components` with the terms of Eq. 3), whose
        :meth:`~perfstudy.estimate.VarianceFit.components` it starts from.
    requests, hosts, repetitions : int
        Initial ``R``, ``H`` and ``T``.
    costs : CostModel
        Initial prices.
    target_se : float
        Initial target standard error.

    Returns
    -------
    ipywidgets.VBox
        Display it in a notebook; its output is computed once at construction.
    """
    if isinstance(components, VarianceFit):
        components = components.components()
    check_components(components)
    # the controls' ranges: an initial value outside them is refused, never moved to the nearest end
    requests = check_int("requests", requests, minimum=32, maximum=4096)
    hosts = check_int("hosts", hosts, minimum=2, maximum=32)
    if hosts % 2:
        raise ValueError(f"hosts={hosts}: expected an even number (single-batch designs split them)")
    repetitions = check_int("repetitions", repetitions, minimum=1, maximum=50)
    if not isinstance(costs, CostModel):
        raise TypeError(f"costs: expected a CostModel, got {type(costs).__name__}")
    target_se = check_real("target_se", target_se, positive=True)
    largest = max(components.sigmas.values())
    top = max(2.0, float(f"{2 * largest:.1g}"))  # room to double the largest fitted sigma
    sigma = dict(min=0.0, max=top, step=top / 200, continuous_update=False, readout_format=".3g")
    controls = {
        "request": w.FloatSlider(value=components.request, description="sigma_alpha", **sigma),
        "host": w.FloatSlider(value=components.host, description="sigma_beta", **sigma),
        "request_batch": w.FloatSlider(value=components.request_batch, description="sigma_gamma", **sigma),
        "host_batch": w.FloatSlider(value=components.host_batch, description="sigma_eta", **sigma),
        "noise": w.FloatSlider(value=components.noise, description="sigma_eps", **sigma),
        "requests": w.IntSlider(
            value=requests, min=32, max=4096, step=32, description="requests R", continuous_update=False
        ),
        "hosts": w.IntSlider(value=hosts, min=2, max=32, step=2, description="hosts H", continuous_update=False),
        "repetitions": w.IntSlider(
            value=repetitions, min=1, max=50, description="repetitions T", continuous_update=False
        ),
        "setup": _NumberText(value=costs.setup, description="setup S_f"),
        "request_cost": _NumberText(value=costs.request, description="request C_f"),
        "repetition_cost": _NumberText(value=costs.repetition, description="repetition C_m"),
        "host_cost": _NumberText(value=costs.host, description="host cost"),
        "target_se": _NumberText(value=target_se, description="target SE"),
    }

    def compute(**values):
        comps = VarianceComponents(
            **{k: values[k] for k in ("request", "host", "request_batch", "host_batch", "noise")}
        )
        cost_model = CostModel(
            setup=values["setup"],
            request=values["request_cost"],
            repetition=values["repetition_cost"],
            host=values["host_cost"],
        )
        comparison = compare_designs(
            comps,
            requests=values["requests"],
            hosts=values["hosts"],
            repetitions=values["repetitions"],
            costs=cost_model,
            target_se=values["target_se"],
        )
        fig, ax = plt.subplots(figsize=FIGURE_SIZE)
        names = list(comparison.standard_errors)
        ax.barh(
            [DESIGN_LABELS[d] for d in names],
            [comparison.standard_errors[d] for d in names],
            color=[DESIGN_COLORS[d] for d in names],
        )
        ax.axvline(values["target_se"], color="k", ls="--", lw=1)
        ax.set_xlabel("standard error of delta_hat")
        fig.tight_layout()
        return comparison, render_comparison(comparison), fig

    columns = [
        ["request", "host", "request_batch", "host_batch", "noise"],
        ["requests", "hosts", "repetitions", "target_se"],
        ["setup", "request_cost", "repetition_cost", "host_cost"],
    ]
    return _explorer(controls, compute, columns, title="Standard error of the four designs")


def bootstrap_explorer(
    components: VarianceComponents = PERFLAB_ENDPOINTS[1],
    *,
    design: str = "fully_balanced",
    bootstrap: str = "host",
    requests: int = 64,
    hosts: int = 16,
    tests: int = 400,
    replicates: int = 400,
    confidence: float = 0.95,
    seed: int = 0,
):
    """Type I error of a clustered bootstrap under one design (Table 3, Figure 7 of Bakshy & Frachtenberg).

    ``tests`` A/A experiments are simulated (:func:`perfstudy.type1.aa_tests`); each gets a
    ``confidence`` interval from the chosen bootstrap. Shown: the share that exclude 0 (the Type I
    error) with its Monte Carlo interval, the true SE (spread of ``delta_hat``) against the mean
    estimated one, and the tests ranked by estimate with their intervals (false positives in red).

    Parameters
    ----------
    components : VarianceComponents or VarianceFit
        Sigmas of Eq. 3 (default Table 1's endpoint 1).
    design : str
        One of :data:`perfstudy.schedules.DESIGNS`.
    bootstrap : {"iid", "request", "host", "host_block"}
        The unit resampled.
    requests, hosts : int
        ``R`` and ``H`` of each simulated experiment.
    tests : int
        Simulated A/A tests (at most 2,000: each redraw runs in about a second).
    replicates : int
        Bootstrap replicates per test.
    confidence : float
        Of each interval.
    seed : int
        Seed of the simulation.

    Returns
    -------
    ipywidgets.VBox
        With ``controls`` and ``state`` (a dict: ``type1_error``, ``mc_interval``, ``true_se``,
        ``mean_estimated_se``).
    """
    from perfstudy.schedules import DESIGNS
    from perfstudy.type1 import BOOTSTRAPS, aa_tests

    if isinstance(components, VarianceFit):
        components = components.components()
    check_components(components)
    controls = {
        "design": w.Dropdown(options=list(DESIGNS), value=check_choice("design", design, DESIGNS), description="design"),
        "bootstrap": w.Dropdown(
            options=list(BOOTSTRAPS), value=check_choice("bootstrap", bootstrap, BOOTSTRAPS), description="bootstrap"
        ),
        "requests": w.IntSlider(
            value=check_int("requests", requests, minimum=8, maximum=1024), min=8, max=1024, step=8,
            description="requests R", continuous_update=False,
        ),
        "hosts": w.IntSlider(
            value=_even("hosts", check_int("hosts", hosts, minimum=2, maximum=64)), min=2, max=64, step=2,
            description="hosts H", continuous_update=False,
        ),
        "tests": _NumberText(value=check_int("tests", tests, minimum=20, maximum=2000), description="A/A tests", integer=True),
        "replicates": _NumberText(
            value=check_int("replicates", replicates, minimum=50, maximum=2000), description="bootstrap replicates", integer=True),
        "confidence": _NumberText(value=check_fraction("confidence", confidence), description="confidence"),
        "seed": _NumberText(value=check_int("seed", seed, minimum=0), description="seed", integer=True),
    }  # fmt: skip

    def compute(design, bootstrap, requests, hosts, tests, replicates, confidence, seed):
        tests = check_int("tests", tests, minimum=20, maximum=2000)
        replicates = check_int("replicates", replicates, minimum=50, maximum=2000)
        confidence = check_fraction("confidence", confidence)
        result = aa_tests(
            design, components, bootstraps=(bootstrap,), requests=requests, hosts=hosts, experiments=tests,
            replicates=replicates, rng=seed,
        )  # fmt: skip
        boot = result.bootstraps[bootstrap]
        low, high = boot.confidence_interval(confidence)
        rejected = (low > 0) | (high < 0)
        rate = float(rejected.mean())
        mc = 1.96 * math.sqrt(max(rate * (1 - rate), 1e-12) / tests)
        state = dict(
            type1_error=rate,
            mc_interval=(max(0.0, rate - mc), min(1.0, rate + mc)),
            true_se=float(np.std(result.delta_hat, ddof=1)),
            mean_estimated_se=float(np.mean(boot.standard_error)),
        )
        nominal = 1 - confidence
        text = (
            f"<p>Type I error <b>{rate:.3f}</b> (95% MC interval {state['mc_interval'][0]:.3f} to "
            f"{state['mc_interval'][1]:.3f}; nominal {nominal:.3f}) over {tests} A/A tests.<br>"
            f"True SE of delta_hat {state['true_se']:.4f}; mean {bootstrap} bootstrap SE "
            f"{state['mean_estimated_se']:.4f} (ratio {state['mean_estimated_se'] / state['true_se']:.2f}).</p>"
        )
        fig = _sized(plot_ranked_intervals({(design, bootstrap): (boot.estimate, low, high)}))
        return state, text, fig

    columns = [["design", "bootstrap", "requests", "hosts"], ["tests", "replicates", "confidence", "seed"]]
    return _explorer(controls, compute, columns, title="Bootstrap Type I error")


def pt4cloud_explorer(
    name: str = "pt4cloud-AWS-EP-L",
    *,
    objective_probability: float = 0.9,
    interval_hours: float = 168.0,
    portion: float = 1.0,
    replicates: int = 200,
):
    """PT4Cloud on one of the 33 configurations (He et al., sections 3 and 6).

    The sampled runs are cut into intervals of ``interval_hours`` (optionally keeping only the first
    ``portion`` of every hour, section 6.2) and PT4Cloud adds intervals until the distribution is stable
    at ``objective_probability``. Shown: the intervals and runs used, whether it stopped, the accuracy
    of the reported distribution against the ground truth, and the distribution after each interval
    with the band of the reported one.

    Parameters
    ----------
    name : str
        A PT4Cloud configuration (:func:`perfstudy.studies.he2019.configurations`).
    objective_probability : float
        ``po``.
    interval_hours : float
        Length of one interval (the paper: a week, 168 h; section 6.1 tries 12 h to 120 h).
    portion : float
        Share of every hour that is run, in (0, 1].
    replicates : int
        Bootstrap resamples of the band.

    Returns
    -------
    ipywidgets.VBox
        With ``controls`` and ``state`` (a dict: ``intervals_used``, ``stopped``, ``runs``, ``accuracy``).
    """
    from perfstudy.pt4cloud import MIN_SAMPLES, accuracy, hourly_sample, pt4cloud, split_intervals
    from perfstudy.studies import he2019

    names = he2019.configurations()
    lengths = [12.0, 24.0, 48.0, 72.0, 96.0, 120.0, 168.0]
    interval_hours = check_real("interval_hours", interval_hours, positive=True)
    if interval_hours not in lengths:
        raise ValueError(f"interval_hours={interval_hours!r}: expected one of {lengths}")
    portion = check_real("portion", portion, positive=True)
    if not 0.1 <= portion <= 1:
        raise ValueError(f"portion={portion!r}: expected a share of the hour from 0.1 to 1")
    controls = {
        "name": w.Dropdown(options=names, value=check_choice("name", name, names), description="configuration"),
        "objective_probability": _NumberText(
            value=check_fraction("objective_probability", objective_probability), description="objective probability"
        ),
        "interval_hours": w.Dropdown(options=lengths, value=interval_hours, description="interval (hours)"),
        "portion": w.FloatSlider(
            value=portion, min=0.1, max=1.0,
            description="portion of each hour", continuous_update=False,
        ),
        "replicates": _NumberText(value=check_int("replicates", replicates, minimum=10, maximum=2000), description="band replicates", integer=True),
    }  # fmt: skip

    def compute(name, objective_probability, interval_hours, portion, replicates):
        objective_probability = check_fraction("objective_probability", objective_probability)
        replicates = check_int("replicates", replicates, minimum=10, maximum=2000)
        c = _configuration(name)
        runs, per_hour = c.sampled, c.runs_per_hour
        if portion < 1:
            runs = hourly_sample(runs, portion, runs_per_hour=per_hour)
            per_hour *= portion
        length = max(MIN_SAMPLES, int(round(interval_hours * per_hour)))
        parts, _ = split_intervals(runs, length)
        if len(parts) < 2:
            raise ValueError(
                f"interval_hours={interval_hours:g}: {name} holds {len(parts)} such interval(s); 2 are needed"
            )
        result = pt4cloud(parts, objective_probability=objective_probability, replicates=replicates, rng=0)
        state = dict(
            intervals_used=result.intervals_used,
            stopped=result.stopped,
            runs=result.runs,
            accuracy=accuracy(result.sample, c.ground_truth),
        )
        verdict = "stable" if result.stopped else "not stable in the data there is"
        text = (
            f"<p>{c.benchmark} on {c.config}: <b>{verdict}</b> after {result.intervals_used} interval(s) of "
            f"{interval_hours:g} h ({result.runs} runs; {result.intervals_used * interval_hours:g} h of measuring). "
            f"Accuracy against the ground truth: <b>{state['accuracy']:.1%}</b> (objective {objective_probability:.0%}).</p>"
        )
        fig = _sized(
            plot_pt4cloud_distributions(
                {f"{c.benchmark} on {c.config}": (parts[: result.intervals_used], result, c.ground_truth)}, columns=1
            )
        )
        return state, text, fig

    columns = [["name", "objective_probability", "interval_hours"], ["portion", "replicates"]]
    return _explorer(controls, compute, columns, title="PT4Cloud: when has the distribution stopped changing?")


@functools.lru_cache(maxsize=8)
def _configuration(name: str):
    from perfstudy.studies import he2019

    return he2019.configuration(name)


#: the series the CONFIRM explorer offers: notebook 05's Figure 5, as (dataset, series)
CONFIRM_SERIES = (
    ("laaber-hashicorp-golang-lru", "arc_test.go/BenchmarkARC_Rand"),
    ("azure-redis-get-short", "redis-get-short"),
    ("pt4cloud-AWS-EP-L", "ground_truth"),
)


def confirm_explorer(
    series=CONFIRM_SERIES[0],
    *,
    error: float = 0.01,
    confidence: float = 0.95,
    trials: int = 100,
    max_size: int = 1000,
):
    """CONFIRM on a real series (Maricq et al., section 5): how many repetitions until the median's
    confidence interval is within ``+-error`` of it.

    Shown: the estimate, and the curve of the mean CI bounds against the number of runs.

    Parameters
    ----------
    series : (dataset, series)
        One of :data:`CONFIRM_SERIES`, or any pair :func:`perfstudy.studies.maricq2018.series_values` reads.
    error : float
        Target half-width, relative to the median.
    confidence : float
        Of the interval.
    trials : int
        Random orders of the runs.
    max_size : int
        Largest number of runs tried.

    Returns
    -------
    ipywidgets.VBox
        With ``controls`` and ``state`` (the :class:`perfstudy.confirm.Repetitions`).
    """
    from perfstudy.confirm import repetitions_needed

    if not (isinstance(series, (tuple, list)) and len(series) == 2 and all(isinstance(v, str) for v in series)):
        raise TypeError(f"series={series!r}: expected a (dataset, series) pair of names")
    options = {f"{d}: {s}": (d, s) for d, s in dict.fromkeys((*CONFIRM_SERIES, tuple(series)))}
    controls = {
        "series": w.Dropdown(
            options=list(options),
            value=f"{series[0]}: {series[1]}",
            description="series",
            # a name is a dataset and a benchmark: wide enough for the longest offered, never cut
            layout=w.Layout(width=f"{160 + 8 * max(map(len, options))}px", max_width="100%"),
        ),
        "error": _NumberText(value=check_real("error", error, positive=True), description="error (+-)"),
        "confidence": w.FloatSlider(
            value=check_fraction("confidence", confidence),
            min=0.5,
            max=0.99,
            step=0.01,
            description="confidence",
            continuous_update=False,
        ),
        "trials": _NumberText(
            value=check_int("trials", trials, minimum=2, maximum=1000), description="random orders", integer=True
        ),
        "max_size": _NumberText(
            value=check_int("max_size", max_size, minimum=10), description="largest size tried", integer=True
        ),
    }

    def compute(series, error, confidence, trials, max_size):
        trials = check_int("trials", trials, minimum=2, maximum=1000)
        x = _series_values(*options[series])
        result = repetitions_needed(x, error=error, confidence=confidence, trials=trials, max_size=max_size, rng=0)
        found = (
            f"<b>{result.estimate}</b> repetitions" if result.estimate else f"more than {result.sizes[-1]} repetitions"
        )
        text = (
            f"<p>{series} ({x.size} runs, median {result.median:.4g}): a {confidence:.0%} CI of the median within "
            f"+-{error:.1%} needs {found}.</p>"
        )
        fig = _sized(plot_confirm_convergence({series: result}, columns=1))
        return result, text, fig

    return _explorer(controls, compute, [["series", "error", "confidence"], ["trials", "max_size"]], title="CONFIRM")


@functools.lru_cache(maxsize=8)
def _series_values(dataset: str, selector: str):
    from perfstudy.studies.maricq2018 import series_values

    return series_values(dataset, selector)


def peak_rate_explorer(
    *,
    disks: int = 4,
    daemons: int = 16,
    policy: str = "binsearch",
    target_accuracy: float = 0.10,
    confidence: float = 0.95,
    seeding: bool = False,
    seed: int = 0,
):
    """Automated peak-rate search on the simulated workbench (Shivam et al., Algorithm 2).

    Shown: the search's trace (each trial's load against benchmarking time), its cost, and its error
    against the server's true peak rate. With ``seeding``, the search starts at the peak of the
    neighbouring server (one disk fewer), as section 3.7 seeds from the nearest sample measured.

    Parameters
    ----------
    disks, daemons : int
        The server (:class:`perfstudy.workbench.SimulatedServer`).
    policy : {"binsearch", "linear", "model", "strawman"}
        The load picker.
    target_accuracy, confidence : float
        Of the interval at the peak.
    seeding : bool
        Seed from the neighbouring server's peak rather than at 10 requests/s.
    seed : int
        Seed of the trials.

    Returns
    -------
    ipywidgets.VBox
        With ``controls`` and ``state`` (a dict: ``peak_rate``, ``true_peak_rate``, ``error``, ``cost_hours``).
    """
    from perfstudy.workbench import POLICIES, SimulatedServer, find_peak_rate

    controls = {
        "disks": w.IntSlider(value=check_int("disks", disks, maximum=16), min=1, max=16, description="disks", continuous_update=False),
        "daemons": w.IntSlider(
            value=check_int("daemons", daemons, maximum=64), min=1, max=64, description="daemons", continuous_update=False
        ),
        "policy": w.Dropdown(options=list(POLICIES), value=check_choice("policy", policy, POLICIES), description="policy"),
        "target_accuracy": _NumberText(
            value=check_fraction("target_accuracy", target_accuracy), description="target accuracy"
        ),
        "confidence": _NumberText(value=check_fraction("confidence", confidence), description="confidence"),
        "seeding": w.Checkbox(value=check_bool("seeding", seeding), description="seed from a neighbour"),
        "seed": _NumberText(value=check_int("seed", seed, minimum=0), description="seed", integer=True),
    }  # fmt: skip

    def compute(disks, daemons, policy, target_accuracy, confidence, seeding, seed):
        server = SimulatedServer(disks=disks, daemons=daemons)
        seed_load = None
        if seeding and disks > 1:
            seed_load = find_peak_rate(SimulatedServer(disks=disks - 1, daemons=daemons), rng=seed + 1).peak_rate
        search = find_peak_rate(
            server, policy=policy, seed_load=seed_load, target_accuracy=target_accuracy, confidence=confidence,
            runlength=120.0, increment=20.0, rng=seed,
        )  # fmt: skip
        truth = server.true_peak_rate
        error = None if search.peak_rate is None else search.peak_rate / truth - 1
        state = dict(peak_rate=search.peak_rate, true_peak_rate=truth, error=error, cost_hours=search.cost / 3600)
        found = "no peak found" if search.peak_rate is None else f"peak {search.peak_rate:.1f} requests/s"
        miss = "" if error is None else f" ({error:+.1%} against the true {truth:.1f})"
        text = (
            f"<p>{policy}: <b>{found}</b>{miss} after {len(search.loads)} test loads, {len(search.trials)} trials, "
            f"<b>{state['cost_hours']:.1f} h</b> of benchmarking ({search.reason}).</p>"
        )
        fig = _sized(plot_search_traces({policy: (search, truth)}))
        return state, text, fig

    columns = [["disks", "daemons", "policy", "seeding"], ["target_accuracy", "confidence", "seed"]]
    return _explorer(controls, compute, columns, title="Peak-rate search")


def _even(name: str, value: int) -> int:
    if value % 2:
        raise ValueError(f"{name}={value}: expected an even number (single-batch designs split them)")
    return value


#: The app's explorers in tab order: name, tab label, the question it answers, and the paper behind it.
APP_EXPLORERS = (
    ("design", "Designs", "Which experimental design reaches a target standard error most cheaply?",
     "Bakshy & Frachtenberg, section 4"),
    ("bootstrap", "Bootstrap", "How often does a bootstrap call an A/A test a change (its Type I error)?",
     "Bakshy & Frachtenberg, Table 3 and Figure 7"),
    ("pt4cloud", "PT4Cloud", "When has a performance distribution stopped changing, and how close is it to the truth?",
     "He et al., sections 3 and 6"),
    ("confirm", "CONFIRM", "How many repetitions until the median is known to within a given error?",
     "Maricq et al., section 5"),
    ("peak_rate", "Peak rate", "What is a server's peak throughput, and what does finding it cost?",
     "Shivam et al., Algorithm 2"),
)  # fmt: skip


def explorer_app(*, quick: bool = False):
    """Every explorer in one app: a landing tab that says what each answers, then one tab per explorer.

    An explorer is built the first time its tab is opened, so the landing view shows at once (``perfstudy
    explore`` serves this with Voila).

    Parameters
    ----------
    quick : bool
        The smallest sizes (tests): fewer simulated tests, replicates and trials.

    Returns
    -------
    ipywidgets.Tab
        With ``explorer(name)``, which builds (once) and returns the explorer named in
        :data:`APP_EXPLORERS`, and ``explorers``, the ones built so far.
    """
    quick = check_bool("quick", quick)
    builders = {
        "design": lambda: design_explorer(PERFLAB_ENDPOINTS[1]),
        "bootstrap": lambda: bootstrap_explorer(PERFLAB_ENDPOINTS[1], **({"tests": 100, "replicates": 100} if quick else {})),
        "pt4cloud": lambda: pt4cloud_explorer(replicates=50 if quick else 200),
        "confirm": lambda: confirm_explorer(trials=20 if quick else 100, max_size=300 if quick else 1000),
        "peak_rate": lambda: peak_rate_explorer(),
    }  # fmt: skip
    rows = "".join(
        f"<li><b>{html.escape(label)}</b>: {html.escape(question)} <i>({html.escape(source)})</i></li>"
        for _, label, question, source in APP_EXPLORERS
    )
    landing = w.HTML(
        f"{CSS}<h2>perfstudy explorers</h2><p>Each tab answers one question with a method from the literature on "
        "performance variability. Move a slider or type a value: the library recomputes the answer; a value it "
        f"refuses is named in red.</p><ul>{rows}</ul>"
    )
    tabs = w.Tab(children=[landing] + [w.HTML("<p>Opening the explorer&hellip;</p>") for _ in APP_EXPLORERS])
    tabs.titles = ("About", *(label for _, label, _, _ in APP_EXPLORERS))
    tabs.explorers = {}

    def explorer(name: str):
        names = [n for n, *_ in APP_EXPLORERS]
        check_choice("name", name, names)
        if name not in tabs.explorers:
            tabs.explorers[name] = builders[name]()
            children = list(tabs.children)
            children[1 + names.index(name)] = tabs.explorers[name]
            tabs.children = children
        return tabs.explorers[name]

    def opened(change):
        if change["new"]:
            explorer(APP_EXPLORERS[change["new"] - 1][0])

    tabs.explorer = explorer
    tabs.observe(opened, "selected_index")
    return tabs
