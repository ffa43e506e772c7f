"""The papers' explorers (PT4Cloud's and CONFIRM's, on the papers' data) and the app that gathers every explorer.
Without a browser: each follows its controls to the value the library gives; tests/test_browser.py drives them in
Chromium."""

from __future__ import annotations

import html

import pytest
from support.studies import needs_data

from perfstudy.studies import explorers


@needs_data
def test_pt4cloud_explorer_matches_pt4cloud():
    from perfstudy.stability.pt4cloud import accuracy, pt4cloud, split_intervals
    from perfstudy.studies import explorers, he2019

    explorer = explorers.pt4cloud_explorer("pt4cloud-AWS-EP-L", replicates=50)
    explorer.controls["interval_hours"].value = 48.0
    c = he2019.configuration("pt4cloud-AWS-EP-L")
    parts, _ = split_intervals(c.sampled, c.runs(48.0))
    result = pt4cloud(parts, objective_probability=0.9, replicates=50, rng=0)
    assert explorer.state["intervals_used"] == result.intervals_used
    assert explorer.state["accuracy"] == pytest.approx(accuracy(result.sample, c.ground_truth))
    explorer.controls["objective_probability"].value = 1.5
    assert explorer.state is None and "objective probability = 1.5" in explorer.text


@needs_data
def test_confirm_explorer_matches_repetitions_needed():
    from perfstudy.diagnostics.repetitions import repetitions_needed
    from perfstudy.studies import explorers
    from perfstudy.studies.maricq2018 import series_values

    explorer = explorers.confirm_explorer(("pt4cloud-AWS-EP-L", "ground_truth"), trials=20, max_size=300)
    explorer.controls["error"].value = 0.02
    expected = repetitions_needed(
        series_values("pt4cloud-AWS-EP-L", "ground_truth"), error=0.02, trials=20, max_size=300, rng=0
    )
    assert explorer.state.estimate == expected.estimate
    assert f"<b>{expected.estimate}</b> repetitions" in explorer.text
    explorer.controls["error"].value = 0.0
    assert explorer.state is None and "error (+-) = 0.0" in explorer.text


def test_the_app_lands_on_what_each_explorer_answers_and_builds_each_once_when_opened():
    app = explorers.explorer_app(quick=True)
    labels = [label for _, label, _, _ in explorers.APP_EXPLORERS]
    assert app.titles == ("About", *labels)
    for _, label, question, source in explorers.APP_EXPLORERS:
        assert f"<b>{label}</b>: {question} <i>({source})</i>" in html.unescape(app.landing.value)
    assert app.explorers == {}  # the landing view shows before any explorer is built
    app.selected_index = 1 + labels.index("Designs")
    design = app.explorers["design"]
    assert app.children[1 + labels.index("Designs")] is design and app.explorer("design") is design
    static = app._repr_mimebundle_()["text/html"]
    assert "Which experimental design" in static and design.static_html() in static  # built: its first state
    with pytest.raises(ValueError, match="name='bogus'"):
        app.explorer("bogus")


def test_first_states_are_each_explorer_s_result_or_a_refusal_by_name():
    app = explorers.explorer_app(quick=True)
    states = explorers.first_states(app)
    assert list(states) == [name for name, *_ in explorers.APP_EXPLORERS]
    assert all(states[name] is app.explorers[name].state for name in states)
    app.explorers["confirm"].controls["error"].value = 0.0
    with pytest.raises(ValueError, match=r"^the confirm explorer shows no result: .*error \(\+-\) = 0\.0"):
        explorers.first_states(app)
    with pytest.raises(TypeError, match="app: expected an explorer_app"):
        explorers.first_states({})
