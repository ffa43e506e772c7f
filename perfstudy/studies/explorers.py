"""The papers' explorers, and the app that gathers every explorer (``perfstudy explore``).

PT4Cloud's (He et al.) and CONFIRM's (Maricq et al.) explorers run on the papers' own data, so they
live here beside their studies; the explorers a user points at their own numbers (designs, bootstrap,
peak rate) and the generic frame are :mod:`perfstudy.notebook.widgets`.
"""

from __future__ import annotations

import functools
import html
from typing import Any

import ipywidgets as w

from perfstudy._lib.checks import check_bool, check_choice, check_fraction, check_int, check_real
from perfstudy.design.model import PERFLAB_ENDPOINTS
from perfstudy.notebook import widgets
from perfstudy.studies import he2019, maricq2018
from perfstudy.studies.he2019_figures import plot_pt4cloud_distributions
from perfstudy.studies.maricq2018_figures import plot_confirm_convergence

__all__ = ["pt4cloud_explorer", "confirm_explorer", "CONFIRM_SERIES", "APP_EXPLORERS", "explorer_app", "first_states"]


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
    from perfstudy.stability.pt4cloud import MIN_SAMPLES, accuracy, hourly_sample, pt4cloud, split_intervals

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
        "objective_probability": widgets.NumberText(
            value=check_fraction("objective_probability", objective_probability), description="objective probability"
        ),
        "interval_hours": w.Dropdown(options=lengths, value=interval_hours, description="interval (hours)"),
        "portion": w.FloatSlider(
            value=portion,
            min=0.1,
            max=1.0,
            description="portion of each hour",
            continuous_update=False,
        ),
        "replicates": widgets.NumberText(
            value=check_int("replicates", replicates, minimum=10, maximum=2000),
            description="band replicates",
            integer=True,
        ),
    }

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
        fig = widgets.explorer_figure(
            plot_pt4cloud_distributions(
                {f"{c.benchmark} on {c.config}": (parts[: result.intervals_used], result, c.ground_truth)},
                columns=1,
                xlabels={f"{c.benchmark} on {c.config}": he2019.METRICS.get(c.benchmark, "performance")},
            )
        )
        return state, text, fig

    columns = [["name", "objective_probability", "interval_hours"], ["portion", "replicates"]]
    return widgets.explorer(controls, compute, columns, title="PT4Cloud: when has the distribution stopped changing?")


@functools.lru_cache(maxsize=8)
def _configuration(name: str):
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
        With ``controls`` and ``state`` (the :class:`perfstudy.diagnostics.repetitions.Repetitions`).
    """
    from perfstudy.diagnostics.repetitions import repetitions_needed

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
        "error": widgets.NumberText(value=check_real("error", error, positive=True), description="error (+-)"),
        "confidence": w.FloatSlider(
            value=check_fraction("confidence", confidence),
            min=0.5,
            max=0.99,
            step=0.01,
            description="confidence",
            continuous_update=False,
        ),
        "trials": widgets.NumberText(
            value=check_int("trials", trials, minimum=2, maximum=1000), description="random orders", integer=True
        ),
        "max_size": widgets.NumberText(
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
        fig = widgets.explorer_figure(plot_confirm_convergence({series: result}, columns=1))
        return result, text, fig

    return widgets.explorer(
        controls, compute, [["series", "error", "confidence"], ["trials", "max_size"]], title="CONFIRM"
    )


@functools.lru_cache(maxsize=8)
def _series_values(dataset: str, selector: str):
    return maricq2018.series_values(dataset, selector)


#: The app's explorers in tab order: name, tab label, the question it answers, and the paper behind it.
APP_EXPLORERS = (
    (
        "design",
        "Designs",
        "Which experimental design reaches a target standard error most cheaply?",
        "Bakshy & Frachtenberg, section 4",
    ),
    (
        "bootstrap",
        "Bootstrap",
        "How often does a bootstrap call an A/A test a change (its Type I error)?",
        "Bakshy & Frachtenberg, Table 3 and Figure 7",
    ),
    (
        "pt4cloud",
        "PT4Cloud",
        "When has a performance distribution stopped changing, and how close is it to the truth?",
        "He et al., sections 3 and 6",
    ),
    (
        "confirm",
        "CONFIRM",
        "How many repetitions until the median is known to within a given error?",
        "Maricq et al., section 5",
    ),
    (
        "peak_rate",
        "Peak rate",
        "What is a server's peak throughput, and what does finding it cost?",
        "Shivam et al., Algorithm 2",
    ),
)


class _App(w.Tab):
    """The app's tabs, and for a page without a kernel a static copy: the landing text, then each explorer
    built so far in its first state (the others are named as live in JupyterLab)."""

    landing: w.HTML
    explorers: dict
    explorer: Any

    def _repr_mimebundle_(self, **kwargs):
        parts = [self.landing.value]
        for name, label, _, _ in APP_EXPLORERS:
            built = self.explorers.get(name)
            parts.append(
                f"<h3>{html.escape(label)}</h3>"
                + (built.static_html() if built is not None else f"<p><i>{widgets.STATIC_NOTE}</i></p>")
            )
        return widgets.with_static_html(super()._repr_mimebundle_(**kwargs), "".join(parts))


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
        Displayed with a static copy for pages without a kernel; with ``explorer(name)``, which builds (once) and returns the explorer named in
        :data:`APP_EXPLORERS`, and ``explorers``, the ones built so far.
    """
    quick = check_bool("quick", quick)
    builders = {
        "design": lambda: widgets.design_explorer(PERFLAB_ENDPOINTS[1]),
        "bootstrap": lambda: widgets.bootstrap_explorer(
            PERFLAB_ENDPOINTS[1], tests=100 if quick else 400, replicates=100 if quick else 400
        ),
        "pt4cloud": lambda: pt4cloud_explorer(replicates=50 if quick else 200),
        "confirm": lambda: confirm_explorer(trials=20 if quick else 100, max_size=300 if quick else 1000),
        "peak_rate": lambda: widgets.peak_rate_explorer(),
    }
    rows = "".join(
        f"<li><b>{html.escape(label)}</b>: {html.escape(question)} <i>({html.escape(source)})</i></li>"
        for _, label, question, source in APP_EXPLORERS
    )
    landing = w.HTML(
        f"{widgets.CSS}<h2>perfstudy explorers</h2><p>Each tab answers one question with a method from the literature on "
        "performance variability. Move a slider or type a value: the library recomputes the answer; a value it "
        f"refuses is named in red.</p><ul>{rows}</ul>"
    )
    tabs = _App(children=[landing] + [w.HTML("<p>Opening the explorer&hellip;</p>") for _ in APP_EXPLORERS])
    tabs.landing = landing
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


def first_states(app) -> dict:
    """What each explorer of ``app`` shows first, built now: name -> its result.

    Parameters
    ----------
    app : ipywidgets.Tab
        An :func:`explorer_app`.

    Returns
    -------
    dict
        Each name of :data:`APP_EXPLORERS` -> that explorer's ``state``.

    Raises
    ------
    ValueError
        Naming every explorer that shows a refusal instead of a result, with the refusal's words (a dataset
        that cannot be reached says where to put it).
    """
    if not isinstance(app, _App):
        raise TypeError(f"app: expected an explorer_app(), got {type(app).__name__}")
    built = {name: app.explorer(name) for name, *_ in APP_EXPLORERS}
    refused = [
        f"the {name} explorer shows no result: {box.error.rstrip('.')}"
        for name, box in built.items()
        if box.state is None
    ]
    if refused:
        raise ValueError("; ".join(refused))
    return {name: box.state for name, box in built.items()}
