"""One table of defaults: DESIGN.md's copy, the library's signatures, the settings objects and ``--help`` all
say what ``perfstudy._lib.defaults.DEFAULTS`` says."""

import contextlib
import inspect
import io
import re
from pathlib import Path

import pytest

from perfstudy._lib.defaults import DEFAULTS, default, shown
from perfstudy.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_design_md_shows_the_table_of_defaults_row_by_row():
    text = (ROOT / "DESIGN.md").read_text()
    rows = re.findall(r"^\| (compare|analyze|run|bisect|history) \| (\w+) \| ([^|]+) \| ([^|]+) \|$", text, re.M)
    found = {(verb, option): (value.strip(), why.strip()) for verb, option, value, why in rows}
    expected = {key: (shown(*key), d.why) for key, d in DEFAULTS.items()}
    assert found == expected


def _signature_default(function, option):
    return inspect.signature(function).parameters[option].default


@pytest.mark.parametrize(
    ("verb", "option"), [key for key in DEFAULTS if key[0] in ("compare", "analyze", "history")], ids=str
)
def test_each_library_signature_has_the_tables_default(verb, option):
    from perfstudy import compare
    from perfstudy.analysis import AnalyzeSettings
    from perfstudy.changes import HistorySettings, history

    if verb == "analyze":
        assert getattr(AnalyzeSettings(), option) == default(verb, option)
        return
    function = {"compare": compare, "history": history}[verb]
    assert _signature_default(function, option) == default(verb, option)
    if verb == "history":
        assert getattr(HistorySettings(), option) == default(verb, option)


@pytest.mark.parametrize("option", [key[1] for key in DEFAULTS if key[0] == "run"])
def test_run_has_the_tables_defaults(option):
    from perfstudy.experiment.settings import RunSettings

    assert getattr(RunSettings(), option) == default("run", option)


@pytest.mark.parametrize("option", [key[1] for key in DEFAULTS if key[0] == "bisect"])
def test_bisect_has_the_tables_defaults(option):
    from perfstudy.experiment.bisect_settings import BisectSettings

    assert getattr(BisectSettings(), option) == default("bisect", option)


@pytest.mark.parametrize("verb", ["compare", "analyze", "run", "bisect", "history"])
def test_help_quotes_the_tables_threshold(verb):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main([verb, "--help"])
    text = " ".join(out.getvalue().split())
    assert f"(default {shown(verb, 'threshold')}" in text
