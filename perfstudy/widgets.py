"""ipywidgets explorers: thin wrappers over library functions.

Each explorer computes and renders its first state when it is built, so a headless run (papermill,
nbconvert) shows a static result and never waits for a frontend.
"""

from __future__ import annotations

import html

import ipywidgets as w
import matplotlib.pyplot as plt
from IPython.display import HTML, display

from perfstudy._checks import check_int, check_real
from perfstudy.designs import CostModel, DesignComparison, compare_designs
from perfstudy.estimate import VarianceFit
from perfstudy.model import PERFLAB_ENDPOINTS, VarianceComponents, check_components
from perfstudy.plots import DESIGN_COLORS, DESIGN_LABELS

__all__ = ["design_explorer", "render_comparison"]


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
    if not 1e-4 <= target_se <= 10:
        raise ValueError(f"target_se={target_se!r}: expected a value from 0.0001 to 10")
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
        "setup": w.FloatText(value=costs.setup, description="setup S_f"),
        "request_cost": w.FloatText(value=costs.request, description="request C_f"),
        "repetition_cost": w.FloatText(value=costs.repetition, description="repetition C_m"),
        "host_cost": w.FloatText(value=costs.host, description="host cost"),
        "target_se": w.BoundedFloatText(value=target_se, min=1e-4, max=10.0, step=0.005, description="target SE"),
    }
    out = w.Output()

    def update(**values):
        out.clear_output(wait=True)
        with out:
            try:
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
            except (TypeError, ValueError) as error:
                display(HTML(f"<p style='color:#b00'>{html.escape(str(error))}</p>"))
                return
            display(HTML(render_comparison(comparison)))
            fig, ax = plt.subplots(figsize=(5.5, 2.2))
            names = list(comparison.standard_errors)
            ax.barh(
                [DESIGN_LABELS[d] for d in names],
                [comparison.standard_errors[d] for d in names],
                color=[DESIGN_COLORS[d] for d in names],
            )
            ax.axvline(values["target_se"], color="k", ls="--", lw=1)
            ax.set_xlabel("standard error of delta_hat")
            fig.tight_layout()
            plt.show()

    w.interactive_output(update, controls)
    left = w.VBox([controls[k] for k in ("request", "host", "request_batch", "host_batch", "noise")])
    middle = w.VBox([controls[k] for k in ("requests", "hosts", "repetitions", "target_se")])
    right = w.VBox([controls[k] for k in ("setup", "request_cost", "repetition_cost", "host_cost")])
    return w.VBox([w.HBox([left, middle, right]), out])
