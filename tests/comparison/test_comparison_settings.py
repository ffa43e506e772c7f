"""A comparison's settings are one checked object (``perfstudy.comparison.settings``): built once by ``compare``,
``compare_files`` and ``perfstudy compare``, refused when built with the argument's name in the library and the
option's on the command line, and the same numbers whichever way they were given."""

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

from perfstudy._lib.defaults import default
from perfstudy.cli import main
from perfstudy.comparison import CompareSettings, compare, compare_files
from perfstudy.comparison.settings import OPTIONS


def _frame(rng=0) -> pd.DataFrame:
    """Two versions of two benchmarks, six batches of five values each; B 10% slower on ``slow``."""
    rng = np.random.default_rng(rng)
    rows = []
    for version, factor in (("A", 1.0), ("B", 1.1)):
        for name in ("slow", "same"):
            for batch in range(6):
                level = (factor if name == "slow" else 1.0) * np.exp(rng.normal(0, 0.01))
                rows += [(version, name, f"{version}{batch}", level * (1 + 0.01 * rng.normal())) for _ in range(5)]
    return pd.DataFrame(rows, columns=["version", "benchmark", "batch", "value"])


def test_left_out_settings_are_the_table_of_defaults():
    settings = CompareSettings()
    for key in ("threshold", "confidence", "replicates"):
        assert getattr(settings, key) == default("compare", key), key
    assert (settings.by, settings.cluster, settings.statistic, settings.correction) == (
        "version",
        "batch",
        "mean",
        "holm",
    )


def test_text_is_read_as_the_command_line_writes_it():
    settings = CompareSettings(threshold="2%", confidence="90%", sequential=True, block="round")
    assert settings.threshold == 0.02 and settings.confidence == 0.9
    assert settings.sequential == "t"  # True is Lai's t sequence, as before the sign rule


@pytest.mark.parametrize(
    ("options", "library", "command_line"),
    [
        (dict(replicates=5), "replicates=5: expected an integer of at least 99", "--replicates 5: expected an integer"),
        (dict(threshold=1.5), "threshold=1.5: expected a relative change", "--threshold 1.5: expected a relative"),
        (dict(confidence=0.0), "confidence=0.0: expected a value in (0, 1)", "--confidence 0.0: expected a value"),
        (dict(statistic="max"), "statistic='max': expected one of", "--statistic max: expected one of"),
        (dict(correction="bonf"), "correction='bonf': expected one of", "--correction bonf: expected one of"),
        (dict(cluster=" "), "cluster=' ': expected a column's name", "--cluster ' ': expected a column's name"),
        (dict(dropna="yes"), "dropna='yes': expected True or False", "--dropna yes: expected True or False"),
        (dict(by="batch"), "by and cluster both name the column 'batch'", "--by and --cluster both name the column"),
        (dict(statistic="min"), "statistic='min': the minimum is compared per block", "--statistic min: the minimum"),
        (dict(sequential="sign"), "sequential='sign': a sequential interval is over blocks", "give --block"),
        (dict(metric=" "), "metric=' ': expected a harness's metric's name", "--metric ' ': expected a harness's"),
    ],
    ids=lambda x: str(x)[:30],
)
def test_a_bad_setting_is_refused_when_built_naming_the_argument_or_the_option(options, library, command_line):
    with pytest.raises((TypeError, ValueError)) as python:
        CompareSettings(**options)
    assert str(python.value).startswith(library) or library in str(python.value), python.value
    with pytest.raises((TypeError, ValueError)) as cli:
        CompareSettings(**options, spelling="cli")
    assert command_line in str(cli.value), cli.value


def test_every_setting_has_an_option_and_replace_checks_again():
    assert set(OPTIONS) == {f.name for f in dataclasses.fields(CompareSettings) if f.name != "spelling"}
    settings = CompareSettings(spelling="cli")
    with pytest.raises(ValueError, match=r"^--replicates 10: expected an integer of at least 99"):
        settings.replace(replicates=10)
    with pytest.raises(TypeError, match="'rng'"):
        settings.replace(rng=1)  # a call's randomness, not a setting


def test_compare_gives_the_same_numbers_from_settings_as_from_keywords():
    df = _frame()
    keywords = dict(statistic="median", threshold=0.02, correction="bh", replicates=499)
    by_keywords = compare(df, **keywords, rng=1)
    by_settings = compare(df, settings=CompareSettings(**keywords), rng=1)
    pd.testing.assert_frame_equal(by_keywords.table, by_settings.table)
    assert (by_settings.statistic, by_settings.correction, by_settings.replicates) == ("median", "bh", 499)
    row = by_settings.table.set_index("benchmark").loc["slow"]
    assert row["verdict"] == "slower" and 0.05 < row["change"] < 0.15  # the planted +10%


def test_settings_and_keywords_at_once_are_refused_naming_the_keyword():
    with pytest.raises(TypeError, match=r"^settings and threshold: give the settings once"):
        compare(_frame(), settings=CompareSettings(), threshold=0.05)
    with pytest.raises(TypeError, match=r"^settings: expected a CompareSettings, got dict"):
        compare(_frame(), settings={"threshold": 0.05})  # pyright: ignore[reportArgumentType]


def test_missing_values_are_refused_with_the_remedy_where_the_user_is(tmp_path, capsys):
    df = _frame()
    df.loc[3, "value"] = np.nan
    with pytest.raises(ValueError, match=r"drop them with dropna=True$"):
        compare(df)
    assert compare(df, settings=CompareSettings(dropna=True)).dropped == 1
    path = tmp_path / "tidy.csv"
    df.to_csv(path, index=False)
    assert main(["compare", str(path)]) == 2
    err = capsys.readouterr().err
    assert "--dropna" in err and "dropna=True" not in err and err.count("\n") == 1, err


GO = "goos: linux\n" + "".join(f"BenchmarkA-8\t100\t{v} ns/op\n" for v in (10, 11, 12, 10, 11))


def test_two_files_refuse_what_the_files_decide_and_take_the_rest(tmp_path):
    base, new = tmp_path / "a.txt", tmp_path / "b.txt"
    base.write_text(GO)
    new.write_text(GO)
    with pytest.raises(ValueError, match=r"^settings: by, baseline cannot be set for two files"):
        compare_files(base, new, CompareSettings(by="note", baseline="x"), labels=("a", "b"))
    with pytest.raises(ValueError, match=r"block='round': the file has no such column"):
        compare_files(base, new, CompareSettings(block="round"))
    report = compare_files(base, new, CompareSettings(correction="none", threshold=0.1), labels=("a", "b"))
    assert (report.correction, report.threshold, report.labels["a"]) == ("none", 0.1, "a")
    with pytest.raises(ValueError, match=rf"{base}: metric='cpu_time': a go file has one metric per benchmark"):
        compare_files(base, new, CompareSettings(metric="cpu_time"))


def test_a_frame_refuses_a_harness_metric_its_values_were_chosen_when_read():
    frame = pd.DataFrame({"version": ["a", "b"] * 4, "batch": np.repeat(range(4), 2), "value": 1.0})
    with pytest.raises(
        ValueError,
        match=r"metric='cpu_time': a harness's metric is chosen as its files are read; a frame \(its value column; read\(path",
    ):
        compare(frame, settings=CompareSettings(metric="cpu_time"))


def test_the_command_line_passes_each_option_into_the_comparison(tmp_path, capsys):
    path = tmp_path / "tidy.csv"
    _frame().to_csv(path, index=False)
    assert main(["compare", str(path), "--correction", "bh", "--statistic", "median", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert (document["correction"], document["statistic"]) == ("bh", "median")
