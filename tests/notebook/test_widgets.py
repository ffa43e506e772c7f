"""The explorers, without a browser: each computes its first state when built, follows its
controls to the value the library function gives for the new inputs, and shows a red message, never
a clamped value, for bad input. tests/test_browser.py drives the same explorers in Chromium."""

from __future__ import annotations

import numpy as np
import pytest

from perfstudy import PERFLAB_ENDPOINTS
from perfstudy.design.standard_errors import compare_designs
from perfstudy.notebook import widgets

E1 = PERFLAB_ENDPOINTS[1]


def _text(explorer) -> str:
    """The HTML the explorer shows above its figure (without a kernel, its Output widget stays empty)."""
    return explorer.text


def test_design_explorer_follows_its_controls_and_never_clamps():
    explorer = widgets.design_explorer(E1, requests=256, hosts=16)
    first = explorer.state
    assert first.standard_errors == compare_designs(E1, requests=256, hosts=16).standard_errors
    explorer.controls["requests"].value = 512
    assert explorer.state.requests == 512
    assert explorer.state.standard_errors == compare_designs(E1, requests=512, hosts=16).standard_errors
    explorer.controls["target_se"].value = -1.0  # used to become 0.0001 without a word
    assert explorer.state is None and "target SE = -1.0: expected a positive number" in _text(explorer)
    assert "perfstudy-error" in _text(explorer)
    # every label whole: no description is cut at ipywidgets' default width
    assert all(c.style.description_width == "150px" for c in explorer.controls.values())
    assert len({c.description for c in explorer.controls.values()}) == len(explorer.controls)


def test_bootstrap_explorer_matches_aa_tests():
    from perfstudy.design.type1_errors import aa_tests

    explorer = widgets.bootstrap_explorer(
        E1, design="unbalanced", bootstrap="iid", requests=32, hosts=8, tests=100, replicates=100
    )
    explorer.controls["bootstrap"].value = "request"
    result = aa_tests(
        "unbalanced", E1, bootstraps=("request",), requests=32, hosts=8, experiments=100, replicates=100, rng=0
    )
    boot = result.bootstraps["request"]
    rate = {
        m: float(np.mean([(lo > 0) | (hi < 0) for lo, hi in zip(*boot.confidence_interval(0.95, m))]))
        for m in ("t", "normal")
    }
    # the default is Student t on C - 1 df, and the text gives the normal quantiles' rate beside it
    assert explorer.state["quantiles"] == "t"
    assert explorer.state["type1_error"] == pytest.approx(rate["t"])
    assert explorer.state["type1_error_other"] == pytest.approx(rate["normal"])
    assert explorer.state["true_se"] == pytest.approx(float(np.std(result.delta_hat, ddof=1)))
    text = _text(explorer)
    assert f"Type I error <b>{rate['t']:.3f}</b> with Student t on 31 df" in text
    assert f"{rate['normal']:.3f} with normal quantiles" in text
    explorer.controls["quantiles"].value = "normal"
    assert explorer.state["type1_error"] == pytest.approx(rate["normal"])
    assert f"Type I error <b>{rate['normal']:.3f}</b> with normal quantiles" in _text(explorer)
    explorer.controls["tests"].value = 5
    assert explorer.state is None and "A/A tests = 5: expected an integer of at least 20" in _text(explorer)


def test_peak_rate_explorer_matches_find_peak_rate():
    from perfstudy.capacity.peak_search import find_peak_rate
    from perfstudy.capacity.server_model import SimulatedServer

    explorer = widgets.peak_rate_explorer()
    explorer.controls["daemons"].value = 8
    search = find_peak_rate(SimulatedServer(disks=4, daemons=8), runlength=120.0, increment=20.0, rng=0)
    assert explorer.state["peak_rate"] == search.peak_rate
    assert explorer.state["cost_hours"] == pytest.approx(search.cost / 3600)
    explorer.controls["target_accuracy"].value = 0.0
    assert explorer.state is None and "target accuracy = 0.0" in _text(explorer)


def test_explorers_refuse_bad_initial_values_instead_of_clamping():
    with pytest.raises(ValueError, match="hosts=7: expected an even number"):
        widgets.bootstrap_explorer(hosts=7)
    with pytest.raises(ValueError, match="policy='fast'"):
        widgets.peak_rate_explorer(policy="fast")
    with pytest.raises(ValueError, match="requests=1000000"):
        widgets.design_explorer(requests=10**6)


def test_a_number_box_refuses_text_by_its_label_and_keeps_the_last_result_greyed():
    explorer = widgets.design_explorer(E1)
    good = explorer.text
    box = explorer.controls["target_se"]
    box.value = "abc"  # what the page sends; ipywidgets' FloatText would put 0.05 back without a word
    assert explorer.state is None and "target SE: &#x27;abc&#x27; is not a number" in explorer.text
    assert box.value == "abc"
    status, result = explorer.children[-2:]
    assert status.value == explorer.text and "perfstudy-stale" in result._dom_classes
    box.value = " 0.07 "
    assert explorer.state.target_se == 0.07 and explorer.text != good and status.value == ""
    assert "perfstudy-stale" not in result._dom_classes
    boot = widgets.bootstrap_explorer(E1, tests=20, replicates=50)
    boot.controls["tests"].value = "25.5"
    assert boot.state is None and "A/A tests: &#x27;25.5&#x27; is not a whole number" in boot.text


def test_a_dataset_it_cannot_reach_is_said_in_red_with_where_to_put_it():
    import ipywidgets as w

    from perfstudy.io.datasets import DataUnavailableError

    slider = w.IntSlider(value=1, min=1, max=5, description="n")

    def compute(n):
        if n == 2:
            raise DataUnavailableError("cwb: not found; set $PERFSTUDY_DATA to a directory holding cwb.csv")
        return n, f"<p>{n}</p>", None

    explorer = widgets.explorer({"n": slider}, compute, [["n"]], title="t")
    assert explorer.state == 1 and explorer.error == ""
    slider.value = 2
    assert explorer.state is None and explorer.error.startswith("cwb: not found; set $PERFSTUDY_DATA")
    assert "perfstudy-error" in explorer.text and "$PERFSTUDY_DATA" in explorer.text


def test_an_update_says_it_is_busy_while_it_computes():
    import ipywidgets as w

    seen = []
    slider = w.IntSlider(value=1, min=1, max=5, description="n")

    built = {}

    def compute(n):
        if built:  # the first update runs while the explorer is built
            status, result = built["explorer"].children[-2:]
            seen.append(("perfstudy-busy" in status.value, "perfstudy-pending" in result._dom_classes))
        return n, f"<p>{n}</p>", None

    explorer = built["explorer"] = widgets.explorer({"n": slider}, compute, [["n"]], title="t")
    slider.value = 3
    assert seen == [(True, True)] and explorer.state == 3
    status, result = explorer.children[-2:]
    assert status.value == "" and "perfstudy-pending" not in result._dom_classes


def test_an_explorer_figure_is_the_whole_figure_as_a_scalable_png():
    import base64
    import io
    import re

    import matplotlib.image
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 2))
    ax.plot([0, 1], [0, 1])
    ax.set_xlabel("x")
    tag = widgets.figure_html(fig, alt="a line")
    assert not plt.fignum_exists(fig.number)  # closed once drawn: no second copy from the inline backend
    assert "class='perfstudy-figure'" in tag and "width: 100%" in widgets.CSS
    data = base64.b64decode(re.search(r"base64,([^']+)'", tag).group(1))
    pixels = matplotlib.image.imread(io.BytesIO(data), format="png")
    # shown at most MAX_ZOOM times its width at 100 dpi, the width of the PNG as saved (tight box)
    assert f"max-width:{pixels.shape[1] / widgets.DPI * 100 * widgets.MAX_ZOOM:.0f}px" in tag
    assert pixels.shape[1] >= 4 * widgets.DPI * 0.9  # drawn at DPI, sharp when widened
    assert (pixels[..., :3].max(axis=2) < 0.35).mean() > 0.001  # axes and text are drawn


def test_the_explorer_frame_refuses_what_it_cannot_lay_out():
    import ipywidgets as w

    slider = w.IntSlider(value=1, description="n")
    compute = lambda n: ({"n": n}, f"<p>{n}</p>", None)
    with pytest.raises(ValueError, match="columns: \\['n', 'm'\\] must name every control once"):
        widgets.explorer({"n": slider}, compute, [["n", "m"]])
    with pytest.raises(TypeError, match="compute: expected a callable"):
        widgets.explorer({"n": slider}, 3, [["n"]])
    with pytest.raises(TypeError, match="controls: expected a dict"):
        widgets.explorer({"n": 1}, compute, [["n"]])
    box = widgets.explorer({"n": slider}, compute, [["n"]], title="t")
    slider.value = 4
    assert box.state == {"n": 4} and box.text == "<p>4</p>"


def test_explorer_builds_without_a_frontend():
    explorer = widgets.design_explorer()
    title, controls, status, output = explorer.children
    assert len(controls.children) == 3 and explorer.state is not None
    sliders = [w for box in controls.children for w in box.children]
    assert {s.description for s in sliders} >= {"request SD (σα)", "host SD (σβ)", "requests R", "target SE"}


def test_explorer_starts_from_a_fit():
    from perfstudy import fit_variance_components, pilot_schedule, simulate
    from perfstudy.design.estimate import SCHEDULE_TERMS

    truth = E1
    pilot = simulate(pilot_schedule(40, 6, rng=0), truth, rng=0).to_frame(0)
    fit = fit_variance_components(pilot.assign(value=pilot.value * 10), random=SCHEDULE_TERMS)
    sliders = {s.description: s for s in widgets.design_explorer(fit).controls.values()}
    assert sliders["request SD (σα)"].value == pytest.approx(fit.sd["request"], abs=sliders["request SD (σα)"].step)
    assert sliders["request SD (σα)"].max >= 2 * fit.sd["request"]  # a fitted sigma beyond 2 still fits
    with pytest.raises(TypeError, match="components"):
        widgets.design_explorer({"request": 1.0})


def test_an_explorer_carries_a_static_copy_of_its_state():
    from perfstudy.notebook.widgets import STATIC_NOTE

    explorer = widgets.design_explorer(E1, requests=256)
    data = explorer._repr_mimebundle_()
    data = data[0] if isinstance(data, tuple) else data
    assert "application/vnd.jupyter.widget-view+json" in data
    page = data["text/html"]
    assert "Standard error of the four designs" in page and "<li>requests R: 256</li>" in page
    assert "data:image/png;base64" in page and STATIC_NOTE in page


def test_design_explorer_speaks_in_words_with_units_and_room_for_small_sigmas():
    explorer = widgets.design_explorer(cost_unit="USD")
    labels = [c.description for c in explorer.controls.values()]
    assert labels[:5] == [
        "request SD (σα)",
        "host SD (σβ)",
        "request×batch SD (σγ)",
        "host×batch SD (ση)",
        "noise SD (σε)",
    ]
    assert all("USD" in label for label in labels[8:12])  # every cost carries its unit
    assert "<th>cost (USD)</th>" in explorer.text and " USD (SE " in explorer.text
    host = explorer.controls["host"]
    assert host.layout.width == "420px" and host.step <= 0.01  # 0.12 (Table 1) is settable to a step of 0.005
    with pytest.raises(ValueError, match="cost_unit"):
        widgets.design_explorer(cost_unit=" ")
