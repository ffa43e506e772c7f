"""The harnesses' registry: every list of formats, detection, read, file_columns, run --measure and the README's
table come from it, and a new format is one record."""

import json
import re
import typing
from pathlib import Path

import pytest

from perfstudy.experiment.batches import MEASURES, Measure
from perfstudy.io import FORMATS, HARNESSES, MEASURED_FORMATS, Format, Harness, harness

ROOT = Path(__file__).resolve().parents[2]


def test_every_list_of_formats_is_the_registry():
    assert FORMATS == typing.get_args(Format) == ("auto", *HARNESSES)
    assert MEASURES == typing.get_args(Measure) == ("time", *MEASURED_FORMATS)
    assert all(h.name == name for name, h in HARNESSES.items())
    assert harness("go").kind == "text"
    with pytest.raises(ValueError, match=r"name='bogus': expected one of"):
        harness("bogus")


def test_each_record_names_a_reader_that_exists():
    import importlib

    for h in HARNESSES.values():
        module, name = h.reader.split(":")
        assert callable(getattr(importlib.import_module(module), name)), h.reader
        assert (h.shape is not None) == (h.kind == "json" or h.name == "criterion"), h.name


def test_the_readme_table_is_the_registrys():
    """README's table of formats: each row is a record's (or two records' alike) file and batch, word for word."""
    text = (ROOT / "README.md").read_text()
    rows = re.findall(r"^\| `([a-z_]+)`(?:, `([a-z_]+)`)? \| (.*) \| (.*) \| (.*) \|$", text, flags=re.M)
    seen = []
    for first, second, writes, batch, metrics in rows:
        for name in filter(None, (first, second)):
            h = HARNESSES[name]
            said = (
                ", ".join([f"`{h.metrics[0]}` (default)", *(f"`{m}`" for m in h.metrics[1:])]) if h.metrics else "one"
            )
            said += f", {h.other_metrics}" if h.other_metrics else ""
            assert (h.writes, h.batch, said) == (writes, batch, metrics), name
            seen.append(name)
    assert sorted(seen) == sorted(HARNESSES)


@pytest.mark.parametrize("verb", ["compare", "run", "history"])
def test_every_verb_that_reads_a_harness_offers_the_registrys_metrics(verb):
    from perfstudy.cli import _parser

    parser = _parser()._subparsers._group_actions[0].choices[verb]
    (action,) = [a for a in parser._actions if "--metric" in a.option_strings]
    helped = " ".join(action.help.split())
    for h in HARNESSES.values():
        if h.metrics:
            assert f"{h.name}: {' or '.join(h.metrics)}" in helped, (verb, h.name)


@pytest.mark.parametrize(
    "name, metric, said",
    [
        ("google_benchmark", "rss", "metric='rss': a google_benchmark file's metrics are real_time, cpu_time"),
        ("hyperfine", "cpu", "user and system CPU time only as each command's mean"),
        ("pyperf", "cpu_time", "a pyperf file has one metric per benchmark, so there is none to choose"),
        ("go", "B/op", "already a benchmark of its own"),
    ],
)
def test_a_metric_a_harness_does_not_carry_is_refused_naming_those_it_does(name, metric, said):
    with pytest.raises(ValueError, match=re.escape(said)):
        HARNESSES[name].check_metric(metric)
    assert HARNESSES[name].check_metric(None) is None
    assert HARNESSES["google_benchmark"].check_metric("real_time") is None  # the default is no choice
    assert HARNESSES["jmh"].check_metric("·gc.alloc.rate.norm") == "·gc.alloc.rate.norm"  # its reader checks it


def test_run_measure_offers_the_registrys_formats():
    from perfstudy.cli import _parser

    run = _parser()._subparsers._group_actions[0].choices["run"]
    (action,) = [a for a in run._actions if "--measure" in a.option_strings]
    assert ", ".join(MEASURED_FORMATS) in " ".join(action.help.split())


def _toy_columns(source, *, dropna=False):
    from perfstudy.io.columns import _measured_rows

    rows = [dict(benchmark=name, batch=i, iteration=0, warmup=False, value=v, unit="s")
            for name, values in source["toy"].items() for i, v in enumerate(values)]  # fmt: skip
    return _measured_rows(rows, [], {"tool": "toy"}, dropna)


def test_a_new_format_is_one_record(tmp_path, monkeypatch):
    """A record added to the registry, and nothing else: detection tells its files, file_columns gives its reader's
    columns, read their frame, and compare_files compares two of them; the readers' checks hold for it."""
    from perfstudy.comparison import compare_files
    from perfstudy.io import detect_format, file_columns, read

    toy = Harness(
        "toy", "toy --json", "a run", f"{__name__}:_toy_columns", shape=lambda d: isinstance(d, dict) and "toy" in d
    )
    monkeypatch.setitem(HARNESSES, "toy", toy)
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"toy": {"x": [1.0, 2.0, 3.0]}}))
    assert detect_format(path) == "toy"
    frame = read(path)
    assert frame.attrs["format"] == "toy" and frame["value"].tolist() == [1.0, 2.0, 3.0]
    columns = file_columns(path)
    assert columns.tool == "toy" and columns.column("value").tolist() == [1.0, 2.0, 3.0]
    other = tmp_path / "u.json"
    other.write_text(json.dumps({"toy": {"x": [2.0, 4.0, 6.0]}}))
    (row,) = compare_files(path, other, rng=0).rows
    assert row["benchmark"] == "x" and row["change"] == pytest.approx(1.0)  # B/A - 1: every value doubled
    path.write_text(json.dumps({"toy": {"x": [1.0, -2.0, 3.0]}}))
    with pytest.raises(ValueError, match="1 negative value"):
        read(path)


def test_a_metric_given_where_values_are_chosen_is_refused_in_the_users_words():
    from perfstudy.io.harnesses import check_metric_name, refuse_chosen_metric

    refuse_chosen_metric("metric", None, "a frame")  # nothing given, nothing said
    with pytest.raises(ValueError, match=r"^--metric rss: a harness's metric is chosen as its files are read; a run's"):
        refuse_chosen_metric("--metric", "rss", "a run's file")
    assert check_metric_name("metric", None) is None and check_metric_name("metric", "rss") == "rss"
    with pytest.raises(TypeError, match=r"^--metric ' ': expected a harness's metric's name"):
        check_metric_name("--metric", " ")
