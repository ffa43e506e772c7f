"""A run's settings are one checked object: built once by ``run``, ``run_parameters`` and ``perfstudy run``, its
errors name the argument in the library and the option on the command line, and a resumed run keeps the record's."""

import json

import pytest

from perfstudy._lib.defaults import default
from perfstudy.cli import main
from perfstudy.experiment import RunSettings, run
from perfstudy.experiment.parameters import run_parameters
from perfstudy.experiment.settings import OPTIONS, UNBOUNDED_ROUNDS

FAST = dict(values=1, warmup=0, min_rounds=2, max_rounds=2, threshold=0.9)


def test_settings_left_out_take_the_table_of_defaults_and_none_is_given():
    settings = RunSettings()
    assert settings.given == frozenset()
    for key in ("threshold", "confidence", "statistic", "rule"):
        assert getattr(settings, key) == default("run", key), key
    assert (settings.values, settings.warmup, settings.min_rounds, settings.max_rounds) == (3, 1, 5, 100)  # --help
    assert settings.metric == ("wall",) and settings.duet is False and settings.timeout is None


def test_given_settings_are_checked_converted_and_named_as_given():
    settings = RunSettings(threshold="5%", confidence="90%", timeout="1m", max_time="2h", metric="rss,wall")
    assert settings.threshold == 0.05 and settings.confidence == 0.9
    assert settings.timeout == 60.0 and settings.max_time == 7200.0  # seconds, as the record keeps them
    assert settings.metric == ("wall", "rss")  # the metrics' own order, whatever order they were given in
    assert settings.given == {"threshold", "confidence", "timeout", "max_time", "metric"}
    assert settings.replace(values=7).given == settings.given | {"values"}
    assert settings.replace(values=7).timeout == 60.0


@pytest.mark.parametrize(
    ("options", "library", "command_line"),
    [
        (
            dict(values=0),
            "values=0: expected an integer of at least 1",
            "--values 0: expected an integer of at least 1",
        ),
        (dict(max_rounds=1), "max_rounds=1: expected", "--max-rounds 1: expected"),
        (dict(timeout="30"), "timeout='30': a bare number has no unit", "--timeout 30: a bare number has no unit"),
        (dict(rule="bogus"), "rule='bogus': expected one of", "--rule bogus: expected one of"),
        (dict(confidence=1.0), "confidence=1.0: expected a value in (0, 1)", "--confidence 1.0: expected a value"),
        (
            dict(min_rounds=9, max_rounds=4),
            "max_rounds=4 is below min_rounds=9",
            "--max-rounds 4 is below --min-rounds 9",
        ),
        (dict(metric="wall,heat"), "metric: ['heat'] are not metrics", "--metric: ['heat'] are not metrics"),
    ],
)
def test_a_bad_setting_is_refused_when_built_naming_the_argument_or_the_option(options, library, command_line):
    with pytest.raises((TypeError, ValueError)) as python:
        RunSettings(**options)
    assert library in str(python.value)
    with pytest.raises((TypeError, ValueError)) as cli:
        RunSettings(**options, spelling="cli")
    assert command_line in str(cli.value)


def test_a_budget_given_alone_meets_the_others_default_only_in_a_new_run():
    settings = RunSettings(max_rounds=4)  # min_rounds defaults to 5: refused for a new run ...
    with pytest.raises(ValueError, match="max_rounds=4 is below min_rounds=5"):
        settings.fresh()
    # ... but a resumed run's min_rounds is its record's
    assert settings.resumed({"min_rounds": 2, "max_rounds": 3}, "runs.csv").max_rounds == 4
    with pytest.raises(ValueError, match="max_rounds=4 is below min_rounds=6"):
        settings.resumed({"min_rounds": 6, "max_rounds": 8}, "runs.csv")


def test_a_time_budget_given_alone_is_not_cut_at_the_default_rounds():
    # before, --max-time 10m alone still stopped at the default 100 rounds: the time asked for was not what bound
    assert RunSettings(max_time="10m").max_rounds == UNBOUNDED_ROUNDS > 10**6
    assert RunSettings(max_time="10m", max_rounds=50).max_rounds == 50  # both given: whichever is spent first
    assert RunSettings().max_rounds == 100
    assert "max_rounds" not in RunSettings(max_time="10m").given  # the record says what the user gave


def test_resumed_settings_are_the_records_and_a_different_one_is_refused_naming_both():
    record = RunSettings(threshold=0.1, timeout="30s", max_rounds=50).record()
    resumed = RunSettings().resumed(json.loads(json.dumps(record)), "runs.csv")
    assert resumed.record() == record
    assert RunSettings(max_rounds=80).resumed(record, "runs.csv").max_rounds == 80  # a budget may be extended
    with pytest.raises(ValueError, match=r"--threshold 5% here, 10% in the record"):
        RunSettings(threshold=0.05, spelling="cli").resumed(record, "runs.csv")
    with pytest.raises(ValueError, match="the record's settings are not a run's"):
        RunSettings().resumed({"rule": "bogus"}, "runs.csv")


def test_run_given_settings_records_what_the_same_keywords_record(tmp_path):
    by_keywords = run("true", "true", seed=1, out=tmp_path / "k.csv", progress=False, timeout="5s", **FAST)
    settings = RunSettings(timeout="5s", **FAST)
    by_settings = run("true", "true", seed=1, out=tmp_path / "s.csv", progress=False, settings=settings)
    assert dict(by_settings.settings) == dict(by_keywords.settings)
    assert by_settings.settings["timeout"] == 5.0
    stored = json.loads((tmp_path / "s.csv.json").read_text())["settings"]
    assert stored == json.loads(json.dumps(dict(by_keywords.settings)))


def test_settings_and_keywords_together_are_refused():
    with pytest.raises(TypeError, match="settings and threshold: give the settings once"):
        run("true", "true", settings=RunSettings(), threshold=0.1, progress=False)
    with pytest.raises(TypeError, match="settings and rule: give the settings once"):
        run_parameters("sleep {x}", "x", "0,0.001", settings=RunSettings(), rule="t")
    with pytest.raises(TypeError, match="expected a RunSettings"):
        run("true", "true", settings={"threshold": 0.1}, progress=False)


def test_every_setting_has_an_option_that_run_accepts():
    from perfstudy.cli import _parser

    parser = _parser()
    command_line = parser._subparsers._group_actions[0].choices["run"]  # noqa: SLF001 - argparse keeps it there
    flags = {flag for action in command_line._actions for flag in action.option_strings}
    assert set(OPTIONS.values()) <= flags


def test_the_command_line_names_its_options(tmp_path, capsys):
    out = str(tmp_path / "runs.csv")
    assert main(["run", "--a", "true", "--b", "true", "--values", "0", "--out", out, "--no-progress"]) == 2
    assert "perfstudy run: --values 0: expected an integer of at least 1" in capsys.readouterr().err
    assert main(["run", "--a", "true", "--b", "true", "--max-rounds", "4", "--out", out, "--no-progress"]) == 2
    assert "--max-rounds 4 is below --min-rounds 5" in capsys.readouterr().err
    assert not (tmp_path / "runs.csv").exists()
