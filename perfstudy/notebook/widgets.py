"""ipywidgets explorers: thin wrappers over library functions.

Each explorer computes and renders its first state when it is built, so a headless run (papermill,
nbconvert) shows a static result and never waits for a frontend.
"""

from __future__ import annotations

import base64
import html
import io
import math
import re
from typing import Any

import ipywidgets as w
import matplotlib.pyplot as plt
import numpy as np
import traitlets
from IPython.display import HTML, display

from perfstudy._lib.checks import check_bool, check_choice, check_fraction, check_int, check_real, check_text
from perfstudy.design.estimate import VarianceFit
from perfstudy.design.model import PERFLAB_ENDPOINTS, VarianceComponents, check_components
from perfstudy.design.standard_errors import CostModel, compare_designs
from perfstudy.notebook.plots import (
    DESIGN_COLORS,
    DESIGN_LABELS,
    plot_ranked_intervals,
    plot_search_traces,
)

__all__ = [
    "explorer",
    "Explorer",
    "STATIC_NOTE",
    "with_static_html",
    "NumberText",
    "explorer_figure",
    "figure_html",
    "design_explorer",
    "bootstrap_explorer",
    "peak_rate_explorer",
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


class NumberText(w.Text):
    """A number box that never reverts silently.

    ipywidgets' ``FloatText`` puts its last value back, without a word, when the box holds text that is not a
    number. This box keeps what was typed, so the explorer can refuse it by name; from Python it takes and
    gives numbers (``box.value = 0.05``), from the page the text typed.

    Parameters
    ----------
    value : float or int
        The number shown first.
    integer : bool
        Whole numbers only: :func:`explorer` refuses ``"2.5"`` by the box's label.
    **kwargs
        Passed to ``ipywidgets.Text`` (``description``, the label, above all).
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


def explorer_figure(fig):
    """``fig`` at :data:`FIGURE_SIZE`, laid out again: the library's figures are sized for a page of panels.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A figure an explorer's ``compute`` drew (changed in place and returned).
    """
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise TypeError(f"fig: expected a matplotlib Figure, got {type(fig).__name__}")
    fig.set_size_inches(*FIGURE_SIZE)
    fig.tight_layout()
    return fig


#: what a report says under an explorer's first state, where no kernel can move it
STATIC_NOTE = "A live explorer in JupyterLab; here, its first state."


class Explorer(w.VBox):
    """The box :func:`explorer` returns: a live widget in a notebook, and beside it, in the same display, a
    static HTML copy of its current state (title, every control's value, the result) that a page without a
    kernel or the widget renderer shows instead (``perfstudy report``'s offline HTML).

    Built by :func:`explorer`, not by hand.

    Parameters
    ----------
    children : sequence of ipywidgets.Widget
        As for ``ipywidgets.VBox``.
    **kwargs
        As for ``ipywidgets.VBox``.
    """

    controls: dict
    state: Any
    text: str
    error: str
    explorer_title: str
    figure_html: str

    def static_html(self) -> str:
        """The explorer's state as plain HTML: title, controls and values, result, :data:`STATIC_NOTE`."""
        settings = "".join(
            f"<li>{html.escape(str(widget.description))}: {html.escape(_shown(widget))}</li>"
            for widget in self.controls.values()
        )
        return (
            f"<div class='perfstudy-static'><p><b>{html.escape(self.explorer_title)}</b></p><ul>{settings}</ul>"
            f"{self.text}{self.figure_html}<p><i>{STATIC_NOTE}</i></p></div>"
        )

    def _repr_mimebundle_(self, **kwargs):
        return with_static_html(super()._repr_mimebundle_(**kwargs), self.static_html())


def with_static_html(bundle, html_text: str):
    """A widget's display bundle with ``text/html`` set to ``html_text``: what a page without the widget
    renderer shows. ``bundle`` is what ``ipywidgets.Widget._repr_mimebundle_`` returns, a data dict or a
    ``(data, metadata)`` pair; it is returned changed in place.

    Parameters
    ----------
    bundle : dict or tuple
    html_text : str
    """
    data: Any = bundle[0] if isinstance(bundle, tuple) else bundle
    if isinstance(data, dict):
        data["text/html"] = html_text
    return bundle


def _shown(widget) -> str:
    """A control's value as its widget shows it (a dropdown's label, a range as low-high)."""
    value = widget.value
    if hasattr(widget, "options") and hasattr(widget, "label") and widget.label is not None:
        return str(widget.label)
    if isinstance(value, tuple):
        return "-".join(str(v) for v in value)
    return str(value)


def explorer(controls: dict, compute, columns, *, title: str = ""):
    """The generic explorer frame: ``controls`` laid out in ``columns`` above the result ``compute`` draws.

    ``compute(**values)`` returns ``(state, html_text, figure_or_None)``; it runs once now (so a headless
    run shows a result) and again whenever a control changes. While it runs, a "computing" line appears
    (after :data:`BUSY_AFTER_S`). A ``ValueError`` or ``TypeError`` from it (bad input, refused by the
    library) shows as a red message naming the control by its label, above the last good result, greyed;
    ``state`` becomes None. A :class:`NumberText` control's text that is not a number is refused the same
    way, before ``compute`` runs.

    Parameters
    ----------
    controls : dict
        Argument name of ``compute`` -> ipywidgets control (its ``description`` is the label on screen).
    compute : callable
        Called with every control's value by name.
    columns : sequence of sequence of str
        The controls' names, one list per column of the control panel; every control once.
    title : str
        Shown above the controls.

    Returns
    -------
    Explorer
        An ipywidgets.VBox with ``controls``, ``state`` (the last result), ``text`` (the HTML shown above the
        figure, or the red message), ``error`` (the red message as text, or "") and :meth:`Explorer.static_html`.
    """
    if not isinstance(controls, dict) or not controls or not all(isinstance(c, w.DOMWidget) for c in controls.values()):
        raise TypeError("controls: expected a dict of argument name -> ipywidgets control, at least one")
    if not callable(compute):
        raise TypeError(f"compute: expected a callable, got {type(compute).__name__}")
    if not isinstance(columns, (list, tuple)) or not all(isinstance(c, (list, tuple)) for c in columns):
        raise TypeError("columns: expected a list of lists of control names")
    placed = [name for column in columns for name in column]
    if sorted(placed) != sorted(controls):
        raise ValueError(f"columns: {placed} must name every control once ({list(controls)})")
    if not isinstance(title, str):
        raise TypeError(f"title: expected text, got {type(title).__name__}")
    out = w.Output()
    out.add_class("perfstudy-result")
    status = w.HTML()
    box = Explorer()
    box.add_class("perfstudy-explorer")
    box.explorer_title, box.figure_html = title, ""

    def update(**values):
        for name, widget in controls.items():
            if isinstance(widget, NumberText):
                try:
                    values[name] = _number(widget.description, values[name], integer=widget.integer)
                except ValueError as error:
                    return refuse(error)
        status.value = "<span class='perfstudy-busy'>&#8987; computing&hellip;</span>"
        out.add_class("perfstudy-pending")
        try:
            state, text, fig = compute(**values)
            figure = "" if fig is None else figure_html(fig, alt=title)
        except (TypeError, ValueError, OSError) as error:  # OSError: a dataset not reached says where to put it
            return refuse(error)
        finally:
            out.remove_class("perfstudy-pending")
        box.state, box.text, box.figure_html, box.error = state, text, figure, ""
        status.value = ""
        out.remove_class("perfstudy-stale")
        out.clear_output(wait=True)
        with out:
            display(HTML(text + figure))

    def refuse(error):
        box.error = _on_screen(str(error), controls)
        box.state, box.text = None, _red(box.error).data
        status.value = box.text
        out.add_class("perfstudy-stale")

    for widget in controls.values():
        widget.style = STYLE
        if widget.layout.width is None:  # a control that needs more room says so
            widget.layout = LAYOUT
    box.controls = controls
    box.state, box.text, box.error = None, "", ""
    w.interactive_output(update, controls)
    header = [w.HTML(f"{CSS}<b>{html.escape(title)}</b>")]
    panel = w.HBox([w.VBox([controls[k] for k in column]) for column in columns])
    panel.add_class("perfstudy-controls")
    box.children = [*header, panel, status, out]
    return box


def design_explorer(
    components: VarianceComponents = PERFLAB_ENDPOINTS[1],
    *,
    requests: int = 256,
    hosts: int = 16,
    repetitions: int = 1,
    costs: CostModel = CostModel(setup=600.0, request=2.0, repetition=0.5, host=60.0),
    target_se: float = 0.05,
    cost_unit: str = "s",
):
    """Sliders for the five sigmas, R, H, T, the costs and a target SE; shows the four designs' SEs.

    Parameters
    ----------
    components : VarianceComponents or VarianceFit
        Initial sigmas (default Table 1's endpoint), or a fit of your own pilot
        (:func:`perfstudy.design.estimate.fit_variance_components` with the terms of Eq. 3), whose
        :meth:`~perfstudy.design.estimate.VarianceFit.components` it starts from.
    requests, hosts, repetitions : int
        Initial ``R``, ``H`` and ``T``.
    costs : CostModel
        Initial prices.
    target_se : float
        Initial target standard error.
    cost_unit : str
        The unit of every cost (:class:`perfstudy.design.standard_errors.CostModel` takes any one; the defaults are seconds
        of machine time), shown beside each cost and the total.

    Returns
    -------
    ipywidgets.VBox
        Display it in a notebook; its output is computed once at construction.
    """
    check_text("cost_unit", cost_unit)
    if not cost_unit.strip():  # refused here, before any control is built (to_html refuses it too)
        raise ValueError("cost_unit='': expected a unit, e.g. 's' or 'USD'")
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
    # words first, the paper's symbol after; wide enough to set a small sigma (steps of top / 400)
    sigma = dict(
        min=0.0, max=top, step=top / 400, continuous_update=False, readout_format=".3g", layout=w.Layout(width="420px")
    )
    controls = {
        "request": w.FloatSlider(value=components.request, description="request SD (σα)", **sigma),
        "host": w.FloatSlider(value=components.host, description="host SD (σβ)", **sigma),
        "request_batch": w.FloatSlider(value=components.request_batch, description="request×batch SD (σγ)", **sigma),
        "host_batch": w.FloatSlider(value=components.host_batch, description="host×batch SD (ση)", **sigma),
        "noise": w.FloatSlider(value=components.noise, description="noise SD (σε)", **sigma),
        "requests": w.IntSlider(
            value=requests, min=32, max=4096, step=32, description="requests R", continuous_update=False
        ),
        "hosts": w.IntSlider(value=hosts, min=2, max=32, step=2, description="hosts H", continuous_update=False),
        "repetitions": w.IntSlider(
            value=repetitions, min=1, max=50, description="repetitions T", continuous_update=False
        ),
        "setup": NumberText(value=costs.setup, description=f"batch set-up, {cost_unit} (S_f)"),
        "request_cost": NumberText(value=costs.request, description=f"per request, {cost_unit} (C_f)"),
        "repetition_cost": NumberText(value=costs.repetition, description=f"per repetition, {cost_unit} (C_m)"),
        "host_cost": NumberText(value=costs.host, description=f"per host, {cost_unit}"),
        "target_se": NumberText(value=target_se, description="target SE"),
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
        ax.set_xlabel("standard error of the estimated effect (units of y)")
        fig.tight_layout()
        return comparison, comparison.to_html(cost_unit=cost_unit), fig

    columns = [
        ["request", "host", "request_batch", "host_batch", "noise"],
        ["requests", "hosts", "repetitions", "target_se"],
        ["setup", "request_cost", "repetition_cost", "host_cost"],
    ]
    return explorer(controls, compute, columns, title="Standard error of the four designs")


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
    quantiles: str = "t",
    seed: int = 0,
):
    """Type I error of a clustered bootstrap under one design (Table 3, Figure 7 of Bakshy & Frachtenberg).

    ``tests`` A/A experiments are simulated (:func:`perfstudy.design.type1_errors.aa_tests`); each gets a
    ``confidence`` interval from the chosen bootstrap. Shown: the share that exclude 0 (the Type I
    error) with its Monte Carlo interval, the true SE (spread of ``delta_hat``) against the mean
    estimated one, and the tests ranked by estimate with their intervals (false positives in red).

    Parameters
    ----------
    components : VarianceComponents or VarianceFit
        Sigmas of Eq. 3 (default Table 1's endpoint 1).
    design : str
        One of :data:`perfstudy.design.schedules.DESIGNS`.
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
    quantiles : {"t", "normal"}
        The interval's multiplier of the bootstrap SE: Student t on ``C - 1`` degrees of freedom
        (``C`` clusters per condition), which keeps the Type I error near nominal with few hosts
        (notebook 02, "Which bootstrap to trust"), or the normal quantile (the paper's CLT interval).
        The text gives the Type I error under both.
    seed : int
        Seed of the simulation.

    Returns
    -------
    ipywidgets.VBox
        With ``controls`` and ``state`` (a dict: ``type1_error``, ``mc_interval``, ``true_se``,
        ``mean_estimated_se``, ``quantiles``, ``type1_error_other`` (under the other quantiles),
        ``clusters_per_condition``).
    """
    from perfstudy.design.schedules import DESIGNS
    from perfstudy.design.type1_errors import BOOTSTRAPS, aa_tests

    if isinstance(components, VarianceFit):
        components = components.components()
    check_components(components)
    controls = {
        "design": w.Dropdown(
            options=list(DESIGNS), value=check_choice("design", design, DESIGNS), description="design"
        ),
        "bootstrap": w.Dropdown(
            options=list(BOOTSTRAPS), value=check_choice("bootstrap", bootstrap, BOOTSTRAPS), description="bootstrap"
        ),
        "requests": w.IntSlider(
            value=check_int("requests", requests, minimum=8, maximum=1024),
            min=8,
            max=1024,
            step=8,
            description="requests R",
            continuous_update=False,
        ),
        "hosts": w.IntSlider(
            value=_even("hosts", check_int("hosts", hosts, minimum=2, maximum=64)),
            min=2,
            max=64,
            step=2,
            description="hosts H",
            continuous_update=False,
        ),
        "tests": NumberText(
            value=check_int("tests", tests, minimum=20, maximum=2000), description="A/A tests", integer=True
        ),
        "replicates": NumberText(
            value=check_int("replicates", replicates, minimum=50, maximum=2000),
            description="bootstrap replicates",
            integer=True,
        ),
        "confidence": NumberText(value=check_fraction("confidence", confidence), description="confidence"),
        "quantiles": w.Dropdown(
            options=[("Student t, C-1 df", "t"), ("normal (the paper's)", "normal")],
            value=check_choice("quantiles", quantiles, ("t", "normal")),
            description="quantiles",
        ),
        "seed": NumberText(value=check_int("seed", seed, minimum=0), description="seed", integer=True),
    }

    def compute(design, bootstrap, requests, hosts, tests, replicates, confidence, quantiles, seed):
        tests = check_int("tests", tests, minimum=20, maximum=2000)
        replicates = check_int("replicates", replicates, minimum=50, maximum=2000)
        confidence = check_fraction("confidence", confidence)
        result = aa_tests(
            design,
            components,
            bootstraps=(bootstrap,),
            requests=requests,
            hosts=hosts,
            experiments=tests,
            replicates=replicates,
            rng=seed,
        )
        boot = result.bootstraps[bootstrap]
        intervals = {method: boot.confidence_interval(confidence, method) for method in ("t", "normal")}
        rates = {method: float(((lo > 0) | (hi < 0)).mean()) for method, (lo, hi) in intervals.items()}
        low, high = intervals[quantiles]
        rate = rates[quantiles]
        other = "normal" if quantiles == "t" else "t"
        mc = 1.96 * math.sqrt(max(rate * (1 - rate), 1e-12) / tests)
        mc_low, mc_high = max(0.0, rate - mc), min(1.0, rate + mc)
        true_se = float(np.std(result.delta_hat, ddof=1))
        mean_se = float(np.mean(boot.standard_error))
        clusters = min(boot.clusters_per_condition)
        state = dict(
            type1_error=rate,
            mc_interval=(mc_low, mc_high),
            true_se=true_se,
            mean_estimated_se=mean_se,
            quantiles=quantiles,
            type1_error_other=rates[other],
            clusters_per_condition=clusters,
        )
        names = {"t": f"Student t on {clusters - 1} df", "normal": "normal quantiles"}
        nominal = 1 - confidence
        text = (
            f"<p>Type I error <b>{rate:.3f}</b> with {names[quantiles]} (95% MC interval "
            f"{mc_low:.3f} to {mc_high:.3f}; nominal {nominal:.3f}) over {tests} "
            f"A/A tests; {rates[other]:.3f} with {names[other]}.<br>"
            f"True SE of delta_hat {true_se:.4f}; mean {bootstrap} bootstrap SE "
            f"{mean_se:.4f} (ratio {mean_se / true_se:.2f}).</p>"
        )
        fig = explorer_figure(plot_ranked_intervals({(design, bootstrap): (boot.estimate, low, high)}))
        return state, text, fig

    columns = [["design", "bootstrap", "requests", "hosts"], ["tests", "replicates", "confidence", "quantiles", "seed"]]
    return explorer(controls, compute, columns, title="Bootstrap Type I error")


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
        The server (:class:`perfstudy.capacity.server_model.SimulatedServer`).
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
    from perfstudy.capacity.peak_search import POLICIES, find_peak_rate
    from perfstudy.capacity.server_model import SimulatedServer

    controls = {
        "disks": w.IntSlider(
            value=check_int("disks", disks, maximum=16), min=1, max=16, description="disks", continuous_update=False
        ),
        "daemons": w.IntSlider(
            value=check_int("daemons", daemons, maximum=64),
            min=1,
            max=64,
            description="daemons",
            continuous_update=False,
        ),
        "policy": w.Dropdown(
            options=list(POLICIES), value=check_choice("policy", policy, POLICIES), description="policy"
        ),
        "target_accuracy": NumberText(
            value=check_fraction("target_accuracy", target_accuracy), description="target accuracy"
        ),
        "confidence": NumberText(value=check_fraction("confidence", confidence), description="confidence"),
        "seeding": w.Checkbox(value=check_bool("seeding", seeding), description="seed from a neighbour"),
        "seed": NumberText(value=check_int("seed", seed, minimum=0), description="seed", integer=True),
    }

    def compute(disks, daemons, policy, target_accuracy, confidence, seeding, seed):
        server = SimulatedServer(disks=disks, daemons=daemons)
        seed_load = None
        if seeding and disks > 1:
            seed_load = find_peak_rate(SimulatedServer(disks=disks - 1, daemons=daemons), rng=seed + 1).peak_rate
        search = find_peak_rate(
            server,
            policy=policy,
            seed_load=seed_load,
            target_accuracy=target_accuracy,
            confidence=confidence,
            runlength=120.0,
            increment=20.0,
            rng=seed,
        )
        truth = server.true_peak_rate
        error = None if search.peak_rate is None else search.peak_rate / truth - 1
        state = dict(peak_rate=search.peak_rate, true_peak_rate=truth, error=error, cost_hours=search.cost / 3600)
        found = "no peak found" if search.peak_rate is None else f"peak {search.peak_rate:.1f} requests/s"
        miss = "" if error is None else f" ({error:+.1%} against the true {truth:.1f})"
        text = (
            f"<p>{policy}: <b>{found}</b>{miss} after {len(search.loads)} test loads, {len(search.trials)} trials, "
            f"<b>{state['cost_hours']:.1f} h</b> of benchmarking ({search.reason}); target ±{100 * target_accuracy:g}% "
            f"at {100 * confidence:g}% confidence.</p>"
        )
        fig = explorer_figure(plot_search_traces({policy: (search, truth)}))
        return state, text, fig

    columns = [["disks", "daemons", "policy", "seeding"], ["target_accuracy", "confidence", "seed"]]
    return explorer(controls, compute, columns, title="Peak-rate search")


def _even(name: str, value: int) -> int:
    if value % 2:
        raise ValueError(f"{name}={value}: expected an even number (single-batch designs split them)")
    return value
