import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from perfstudy import PERFLAB_ENDPOINTS, CostModel
from perfstudy.design.standard_errors import compare_designs
from perfstudy.notebook.plots import plot_clustered_se, savefig
from perfstudy.notebook.records import Recorder, load_records
from perfstudy.notebook.widgets import design_explorer


def test_savefig_is_byte_reproducible(tmp_path):
    paths = []
    for run in ("first", "second"):
        fig = plot_clustered_se(rhos=(0.2, 0.9))
        paths.append(savefig(fig, "fig", figures_dir=tmp_path / run))
        plt.close(fig)
    for a, b in zip(*paths):
        assert a.read_bytes() == b.read_bytes(), a.name
    assert b"CreationDate" not in paths[0][1].read_bytes()
    with pytest.raises(ValueError, match="name"):
        savefig(plt.figure(), "../escape", figures_dir=tmp_path)
    with pytest.raises(ValueError, match="formats"):
        savefig(plt.figure(), "fig", figures_dir=tmp_path, formats=("bmp",))


def test_recorder_round_trip(tmp_path):
    record = Recorder("nb", tmp_path)
    assert record("x", np.float64(1.5)) == 1.5
    record("frame", pd.DataFrame({"a": [1, 2], "b": [np.nan, 0.5]}))
    record("array", np.arange(3))
    record("flag", np.bool_(True))
    values = load_records(tmp_path / "nb.json")
    assert values == {"x": 1.5, "frame": [{"a": 1, "b": None}, {"a": 2, "b": 0.5}], "array": [0, 1, 2], "flag": True}
    with pytest.raises(TypeError, match="cannot record"):
        record("bad", object())
    with pytest.raises(ValueError, match="name"):
        Recorder("a/b", tmp_path)


def test_a_sentence_is_written_from_values_and_recorded_with_them(tmp_path):
    record = Recorder("nb", tmp_path)
    shown = record.say(
        "rows", "{within} of {rows} rows ({share:.0%}) {verb}", within=9, rows=13, share=9 / 13, verb="agree"
    )
    assert shown.data == "9 of 13 rows (69%) agree"
    said = load_records(tmp_path / "nb.json")["said"]["rows"]
    assert said == {
        "text": "9 of 13 rows (69%) agree",
        "values": {"within": 9, "rows": 13, "share": 9 / 13, "verb": "agree"},
    }
    record.say("other", "{x:.2f}", x=np.float64(0.125))  # a numpy number is a number; earlier sentences stay
    assert set(load_records(tmp_path / "nb.json")["said"]) == {"rows", "other"}


@pytest.mark.parametrize(
    "template, values, error, match",
    [
        ("{} rows", {"x": 1}, ValueError, "named"),
        ("{0} rows", {"x": 1}, ValueError, "named"),
        ("{rows} rows", {}, ValueError, r"names \['rows'\] not given"),
        ("rows", {"rows": 3}, ValueError, r"given \['rows'\] it never uses"),
        ("{rows}", {"rows": [1, 2]}, TypeError, "say numbers, words or booleans"),
        ("{rows}", {"rows": float("nan")}, ValueError, "not a number a sentence can state"),
        ("", {}, TypeError, "non-empty"),
    ],
)
def test_a_sentence_that_could_quote_a_number_not_in_its_values_is_refused(tmp_path, template, values, error, match):
    record = Recorder("nb", tmp_path)
    with pytest.raises(error, match=match):
        record.say("k", template, **values)
    assert "said" not in load_records(tmp_path / "nb.json")


def test_span_prints_one_number_where_both_ends_print_alike():
    from perfstudy._lib.format import span

    assert span(0.33, 0.334) == "33%" and span(0.0, 2 / 3) == "0%-67%" and span(0.02, 0.12, ".2f") == "0.02-0.12"


def test_compare_designs_and_render():
    comparison = compare_designs(
        PERFLAB_ENDPOINTS[1], requests=256, hosts=16, costs=CostModel(600, 2, 0.5, 60), target_se=0.05
    )
    frame = comparison.to_frame()
    assert list(frame.meets_target) == [False, False, False, True]
    assert comparison.cheapest == "fully_balanced"
    html = comparison._repr_html_()
    assert '<tr style="font-weight:bold"><td>fully balanced' in html
    assert "Cheapest way to meet it with 16 hosts" in html
    none_meet = compare_designs(PERFLAB_ENDPOINTS[1], requests=256, hosts=16, target_se=0.001)
    assert none_meet.cheapest is None and "No design meets" in none_meet._repr_html_()


def test_explorer_builds_without_a_frontend():
    explorer = design_explorer()
    title, controls, status, output = explorer.children
    assert len(controls.children) == 3 and explorer.state is not None
    sliders = [w for box in controls.children for w in box.children]
    assert {s.description for s in sliders} >= {"request SD (σα)", "host SD (σβ)", "requests R", "target SE"}


def test_explorer_starts_from_a_fit():
    from perfstudy import fit_variance_components, pilot_schedule, simulate
    from perfstudy.design.estimate import SCHEDULE_TERMS

    truth = PERFLAB_ENDPOINTS[1]
    pilot = simulate(pilot_schedule(40, 6, rng=0), truth, rng=0).to_frame(0)
    fit = fit_variance_components(pilot.assign(value=pilot.value * 10), random=SCHEDULE_TERMS)
    sliders = {s.description: s for s in design_explorer(fit).controls.values()}
    assert sliders["request SD (σα)"].value == pytest.approx(fit.sd["request"], abs=sliders["request SD (σα)"].step)
    assert sliders["request SD (σα)"].max >= 2 * fit.sd["request"]  # a fitted sigma beyond 2 still fits
    with pytest.raises(TypeError, match="components"):
        design_explorer({"request": 1.0})


def test_an_offline_notebook_has_mathml_and_a_static_copy_for_each_widget():
    import nbformat

    from perfstudy.notebook.report import offline_notebook

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(r"mean $\hat\delta$ and $$x^2$$, a price of \$5"),
        nbformat.v4.new_code_cell(""),
    ]
    widget = {"model_id": "m", "version_major": 2, "version_minor": 0}
    nb.cells[1].outputs = [
        nbformat.v4.new_output(
            "display_data", {"application/vnd.jupyter.widget-view+json": widget, "text/html": "<p>x</p>"}
        ),
        nbformat.v4.new_output(
            "display_data", {"application/vnd.jupyter.widget-view+json": widget, "text/plain": "VBox()"}
        ),
    ]
    nb.metadata["widgets"] = {"state": {}}
    offline_notebook(nb)
    source = nb.cells[0].source
    assert (
        source.count("<math") == 2
        and 'display="block"' in source
        and r"\$5" in source
        and "$" not in source.replace(r"\$", "")
    )
    assert [dict(o.data) for o in nb.cells[1].outputs] == [
        {"text/html": "<p>x</p>"},
        {"text/html": "<p><i>An interactive widget: open the notebook in JupyterLab to use it.</i></p>"},
    ]
    assert "widgets" not in nb.metadata


def test_an_explorer_carries_a_static_copy_of_its_state():
    from perfstudy.notebook.widgets import STATIC_NOTE

    explorer = design_explorer(PERFLAB_ENDPOINTS[1], requests=256)
    data = explorer._repr_mimebundle_()
    data = data[0] if isinstance(data, tuple) else data
    assert "application/vnd.jupyter.widget-view+json" in data
    page = data["text/html"]
    assert "Standard error of the four designs" in page and "<li>requests R: 256</li>" in page
    assert "data:image/png;base64" in page and STATIC_NOTE in page


def test_offline_notebook_names_the_malformed_cell():
    import nbformat

    from perfstudy.notebook.report import offline_notebook

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("$x$"), {"source": "no type"}]
    with pytest.raises(ValueError, match="cell 1 is not a notebook cell"):
        offline_notebook(nb)
    cell = nbformat.v4.new_code_cell("1")
    cell.outputs = [{"output_type": "display_data", "data": ["x"], "metadata": {}}]
    nb.cells = [cell]
    with pytest.raises(ValueError, match="cell 0 has an output whose data is not a mapping"):
        offline_notebook(nb)
    nb.cells = [nbformat.v4.new_markdown_cell(["the mean $\\mu$ ", "of $n$ runs"])]  # a list of lines is text too
    assert "<math" in offline_notebook(nb).cells[0].source
    with pytest.raises(TypeError, match="nb: expected a notebook"):
        offline_notebook(["cells"])


def test_recorder_warnings_records_user_warnings_and_passes_the_rest(tmp_path):
    import warnings

    from perfstudy.experiment.environment import NoisyMachineWarning
    from perfstudy.notebook.records import Recorder

    record = Recorder("w", tmp_path)
    with warnings.catch_warnings(record=True) as outside:
        warnings.simplefilter("always")
        with record.warnings("run"):
            warnings.warn("load average 2.31 on 2 CPUs", NoisyMachineWarning, stacklevel=1)
            warnings.warn("old name", DeprecationWarning, stacklevel=1)
    assert record.values["run"] == ["load average 2.31 on 2 CPUs"]
    # outside a notebook kernel nothing is shown, so every warning goes on as usual
    assert [w.category for w in outside] == [NoisyMachineWarning, DeprecationWarning]
    with record.warnings("quiet"):
        pass
    assert record.values["quiet"] == []
    with pytest.raises(TypeError, match="key=3"):
        record.warnings(3)


def test_design_explorer_speaks_in_words_with_units_and_room_for_small_sigmas():
    explorer = design_explorer(cost_unit="USD")
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
        design_explorer(cost_unit=" ")


def test_offline_notebook_drops_tqdm_bars_and_keeps_other_widgets():
    import nbformat

    from perfstudy.notebook.report import WIDGET_NOTE, offline_notebook

    widget = {"model_id": "x", "version_major": 2, "version_minor": 0}
    cell = nbformat.v4.new_code_cell("1")
    cell.outputs = [
        {"output_type": "display_data", "metadata": {}, "data": {
            "application/vnd.jupyter.widget-view+json": widget, "text/plain": "Table 3:   0%|          | 0/40 [00:00<?, ?it/s]"}},
        {"output_type": "display_data", "metadata": {}, "data": {
            "application/vnd.jupyter.widget-view+json": widget, "text/plain": "Output()"}},
    ]  # fmt: skip
    nb = nbformat.v4.new_notebook()
    nb.cells = [cell]
    (kept,) = offline_notebook(nb).cells[0].outputs
    assert WIDGET_NOTE in kept["data"]["text/html"]


def test_design_comparison_html_carries_the_cost_unit_or_none():
    from perfstudy import CostModel
    from perfstudy.design.standard_errors import compare_designs

    costs = CostModel(setup=600.0, request=2.0, repetition=0.5, host=60.0)
    comparison = compare_designs(PERFLAB_ENDPOINTS[1], requests=256, hosts=16, costs=costs, target_se=0.05)
    assert comparison._repr_html_() == comparison.to_html()
    assert "<th>cost</th>" in comparison.to_html()
    best = comparison.allocation[comparison.allocation.best]
    assert f"cost {best.cost:,.0f} h (SE" in comparison.to_html(cost_unit="h")
    assert "<th>cost (h)</th>" in comparison.to_html(cost_unit="h")
