"""A harness's file as columns, the one representation of measurements: every reader's values checked once
(``_measured``), ``read()`` their DataFrame view, and no pandas until a frame is asked for."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from perfstudy.io import COLUMNS, MalformedFileError, file_columns, read
from perfstudy.io.columns import FileColumns, _measured, _measured_rows
from tests.support.harness_files import WRITERS

#: values each writer puts in its file (warm-ups included): asv 3 x 10 samples, BenchmarkDotNet 3 x 8 launches x
#: (2 warm-ups + 6), criterion 30 samples, Google Benchmark 3 x 8, hyperfine 3 x 15, JMH 3 x 6 forks x 4,
#: pytest-benchmark 3 x 12 rounds
SIZES = {"asv": 30, "benchmarkdotnet": 192, "criterion": 30, "google_benchmark": 24, "hyperfine": 45, "jmh": 72,
         "pytest_benchmark": 36}  # fmt: skip


@pytest.mark.parametrize("format", sorted(WRITERS))
def test_a_files_columns_hold_what_its_harness_wrote_and_read_is_their_frame(tmp_path, format):
    path = WRITERS[format](tmp_path / "f.json", slower=0.1)
    columns = file_columns(path)
    assert isinstance(columns, FileColumns) and columns.attrs["format"] == format
    assert columns.size == SIZES[format] and len(columns.distinct) == (1 if format == "criterion" else 3)
    assert list(columns.columns)[: len(COLUMNS)] == COLUMNS
    frame = read(path)
    assert list(frame.columns) == list(columns.columns) and frame.attrs == dict(columns.attrs)
    assert frame["value"].tolist() == columns.column("value").tolist()
    assert pd.api.types.is_datetime64_any_dtype(frame["timestamp"])


def test_one_process_files_hold_process_0_and_benchmarkdotnet_comes_in_launch_order(tmp_path):
    """pytest-benchmark's rounds and criterion's samples share one process (a process column of 0), which
    compare notes; BenchmarkDotNet's rows come by name, launch, warm-ups first, as the harness ran them."""
    for name in ("pytest_benchmark", "criterion"):
        assert set(file_columns(WRITERS[name](tmp_path / f"{name}.json")).column("process").tolist()) == {0}
    assert "process" not in file_columns(WRITERS["hyperfine"](tmp_path / "h.json")).columns
    dotnet = file_columns(WRITERS["benchmarkdotnet"](tmp_path / "d.json"))
    assert dotnet.distinct == ["Ns.Bench.alpha", "Ns.Bench.beta", "Ns.Bench.gamma"]  # the file has gamma first
    first = dotnet.codes == 0
    warm = dotnet.column("warmup")[first]
    assert warm[:2].all() and not warm[2:8].any()  # launch 1: its 2 warm-ups, then its 6 measurements
    assert dotnet.column("batch")[first][:8].tolist() == [1] * 8


def test_jmh_histograms_repeat_values_within_an_iteration(tmp_path):
    """SampleTime's histograms expand to repeated values in one iteration: ``[value, count]`` pairs."""
    sample = [{"benchmark": "b", "mode": "sample", "primaryMetric": {"scoreUnit": "us/op", "rawDataHistogram":
              [[[[1.0, 2], [3.0, 1]], [[2.0, 3]]], [[[4.0, 1]], [[2.0, 1], [5.0, 0]]]]}}]  # fmt: skip
    path = tmp_path / "sample.json"
    path.write_text(json.dumps(sample))
    columns = file_columns(path)
    assert columns.column("value").tolist() == [1.0, 1.0, 3.0, 2.0, 2.0, 2.0, 4.0, 2.0]
    assert columns.column("iteration").tolist() == [0, 0, 0, 1, 1, 1, 0, 1]


def _damaged(tmp_path, format, damage):
    path = Path(WRITERS[format](tmp_path / "f.json"))
    data = json.loads(path.read_text())
    damage(data)
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "format, damage, refused",
    [
        ("hyperfine", lambda d: d["results"][0]["times"].__setitem__(2, None), "1 of 45 values are null, NaN"),
        ("hyperfine", lambda d: d["results"][0]["times"].__setitem__(2, -0.01), "1 negative value(s) in units"),
        ("hyperfine", lambda d: d["results"][1].__setitem__("command", "alpha"), "two or more entries are named"),
        # a peak memory or CPU time below 0 was compared ("-5 B", "no change"): the damaged file is refused
        ("hyperfine", lambda d: d["results"][0].__setitem__("memory_usage_byte", [-5] * 15), "negative memory_usage"),
        ("hyperfine", lambda d: d["results"][1].__setitem__("user", -0.2), "negative memory_usage_byte, user or"),
        ("hyperfine", lambda d: d["results"][0]["exit_codes"].pop(), "14 exit_codes for 15 times"),
        ("google_benchmark", lambda d: d["benchmarks"][0].__setitem__("iterations", 0), "iterations=0)"),
        ("google_benchmark", lambda d: d["benchmarks"][0].__setitem__("repetition_index", 1.5), "batch index is not"),
        ("google_benchmark", lambda d: d["benchmarks"][0].__setitem__("error_occurred", True), "reported errors"),
        ("jmh", lambda d: d[0]["primaryMetric"]["rawData"][0].__setitem__(0, float("nan")), "1 of 72 values"),
        ("pytest_benchmark", lambda d: d["benchmarks"][0]["stats"].pop("data"), "only summaries"),
        ("pytest_benchmark", lambda d: d["benchmarks"][0]["stats"].__setitem__("iterations", 0), "12 row(s) with it"),
        ("benchmarkdotnet", lambda d: d["Benchmarks"][0]["Measurements"][4].__setitem__("Operations", 0), "1 of 192"),
        ("asv", lambda d: d["results"]["bench.Suite.time_alpha"][11][0].__setitem__(0, None), "1 of 30 values"),
        ("asv", lambda d: d["results"]["bench.Suite.time_alpha"].__setitem__(3, 1e30), "a run's date is not a date"),
        ("criterion", lambda d: d["iters"].__setitem__(0, 0.0), "1 of 30 values"),
    ],
)
def test_a_damaged_file_is_refused_in_one_set_of_words(tmp_path, format, damage, refused):
    """The reader's words, from the one check of every harness, naming the file; its columns and its frame alike."""
    path = _damaged(tmp_path, format, damage)
    for reader in (file_columns, read):
        with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: ") as error:
            reader(path)
        assert refused in str(error.value)


@pytest.mark.parametrize(
    "format, damage, check",
    [
        # pandas' to_numeric reads a number written as text
        ("hyperfine", lambda d: d["results"][0]["times"].__setitem__(2, "0.01"), lambda c: c.column("value")[2] == 0.01),
        # a benchmark in two units: compare converts them
        ("google_benchmark", lambda d: d["benchmarks"][1].__setitem__("time_unit", "us"),
         lambda c: c.column("unit")[:2].tolist() == ["ns", "us"]),
        # a launch index written as text is read as its number
        ("benchmarkdotnet", lambda d: d["Benchmarks"][0]["Measurements"][4].__setitem__("LaunchIndex", "1"),
         lambda c: c.size == 192),
        # a benchmark that is not time_*: no unit
        ("asv", lambda d: d["results"].__setitem__("bench.Suite.mem_x", d["results"]["bench.Suite.time_beta"]),
         lambda c: c.size == 40 and c.column("unit")[-1] is None),
    ],
)  # fmt: skip
def test_what_pandas_would_read_is_read(tmp_path, format, damage, check):
    assert check(file_columns(_damaged(tmp_path, format, damage)))


def _row(**changes):
    return dict(benchmark="b", batch=0, iteration=0, warmup=False, value=1.0, unit="s") | changes


def test_the_one_check_refuses_twins_and_nothing_and_reads_dates_as_pandas_does():
    assert _measured_rows([_row(), _row(batch=1)], [], {"tool": "t"}).column("batch").tolist() == [0, 1]
    with pytest.raises(MalformedFileError, match=r"two or more entries are named \['b'\]"):
        _measured_rows([_row(), _row()], [], {"tool": "t"})
    assert _measured_rows([_row(), _row()], [], {"tool": "JMH"}).size == 2  # a histogram's values repeat
    with pytest.raises(MalformedFileError, match="holds no measured values"):
        _measured_rows([], [], {"tool": "t"})
    one_shape = [_row(timestamp="2026-11-28 01:00:00"), _row(batch=1, timestamp="2026-11-28 02:30:00")]
    frame = _measured_rows(one_shape, [], {"tool": "t"}).to_frame()
    assert frame["timestamp"].tolist() == [pd.Timestamp("2026-11-28 01:00"), pd.Timestamp("2026-11-28 02:30")]
    other = [_row(timestamp="28 Nov 2026 01:00"), _row(batch=1, timestamp="28 Nov 2026 02:30")]  # pandas reads it
    assert _measured_rows(other, [], {"tool": "t"}).to_frame()["timestamp"].iloc[1] == pd.Timestamp("2026-11-28 02:30")
    two_shapes = [one_shape[0], _row(batch=1, timestamp="2026-11-28T02:30:00")]  # ISO 8601 both: pyperf writes both
    assert _measured_rows(two_shapes, [], {"tool": "t"}).to_frame()["timestamp"].iloc[1] == pd.Timestamp(
        "2026-11-28 02:30"
    )
    with pytest.raises(MalformedFileError, match="a run's date is not a date"):
        _measured_rows([_row(timestamp="soon")], [], {"tool": "t"})
    with pytest.raises(MalformedFileError, match="a iteration index is not an integer"):
        _measured(dict(_row(), iteration=[None]), {"tool": "t"})


def test_dropna_leaves_out_and_counts_what_is_not_a_number():
    rows = [_row(), _row(batch=1, value=None), _row(batch=2, value=float("inf"))]
    with pytest.warns(UserWarning, match="2 of 3 values were null, NaN, infinite"):
        columns = _measured_rows(rows, [], {"tool": "t"}, dropna=True)
    assert columns.attrs["dropped"] == 2 and columns.column("batch").tolist() == [0]
    with warnings.catch_warnings(), pytest.raises(ValueError, match="no finite values left"):
        warnings.simplefilter("ignore")
        _measured_rows(rows[1:], [], {"tool": "t"}, dropna=True)


def test_take_and_renamed_keep_every_column_together():
    columns = _measured_rows(
        [_row(value=1.0, extra="x"), _row(batch=1, value=2.0, extra="y")], ["extra"], {"tool": "t"}
    )
    swapped = columns._taken(np.array([1, 0]))
    assert swapped.column("value").tolist() == [2.0, 1.0] and swapped.columns["extra"] == ["y", "x"]
    assert columns.renamed("x -> y").distinct == ["x -> y"] and columns.distinct == ["b"]
    with pytest.raises(ValueError, match="only a file of one benchmark"):
        _measured_rows([_row(), _row(benchmark="c")], [], {"tool": "t"}).renamed("x")


def test_reading_columns_imports_no_pandas(tmp_path):
    paths = [WRITERS[f](tmp_path / f"{f}.json") for f in sorted(WRITERS)]
    code = (
        "import sys; from perfstudy.io import file_columns; "
        "sizes = [file_columns(p).size for p in sys.argv[1:]]; print(sizes, 'pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code, *paths], capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"{[SIZES[f] for f in sorted(WRITERS)]} False"


@pytest.mark.parametrize(
    "format, damage",
    [
        ("hyperfine", lambda d: d["results"][0]["times"].__setitem__(2, True)),
        ("pytest_benchmark", lambda d: d["benchmarks"][0]["stats"]["data"].__setitem__(0, True)),
        ("jmh", lambda d: d[0]["primaryMetric"]["rawData"][0].__setitem__(0, True)),
    ],
)
def test_a_json_true_is_no_number(tmp_path, format, damage):
    """JSON's true was read as 1 by every JSON reader (a "+10,956,517%" change): it is a value that is no number."""
    with pytest.raises(ValueError, match="1 of .* values are null, NaN, infinite or not numbers"):
        file_columns(_damaged(tmp_path, format, damage))


def test_runs_that_failed_are_no_times(tmp_path, capsys):
    """hyperfine -i keeps the runs whose command exited non-zero: a broken build's times read as a speed-up
    ("faster, -62.5%", exit 0). They are refused, counting them, or with dropna left out and counted."""
    from perfstudy.cli import main

    def failed(d):
        d["results"][0]["exit_codes"] = [0] * 12 + [1] * 3

    path = _damaged(tmp_path, "hyperfine", failed)
    with pytest.raises(MalformedFileError, match=r"3 of 45 runs exited with a status other than 0 \(benchmarks \['al"):
        read(path)
    with pytest.warns(UserWarning, match="3 of 45 runs exited with a status other than 0 .* were left out"):
        columns = file_columns(path, dropna=True)
    assert columns.attrs["dropped"] == 3 and columns.size == 42 and set(columns.column("exit_code").tolist()) == {0}
    base = WRITERS["hyperfine"](tmp_path / "base.json")
    assert main(["compare", base, str(path)]) == 2
    err = capsys.readouterr().err
    assert "3 of 45 runs exited with a status other than 0" in err and err.count("\n") == 1


def test_a_column_of_one_value_is_held_once_and_read_as_every_entrys(tmp_path):
    """Go's configuration set once (goos, cpu) is one value, not one a line (memory in proportion to the suite); a
    key that changes is one a line. column() and the frame give every entry its value either way."""
    path = tmp_path / "a.txt"
    path.write_text("goos: linux\nnote: x\nBenchmarkA 10 5.0 ns/op\nnote: y\nBenchmarkA 10 6.0 ns/op\n")
    columns = file_columns(path)
    assert columns.columns["goos"] == "linux" and columns.columns["note"] == ["x", "y"]
    assert columns.column("goos").tolist() == ["linux", "linux"] and columns.columns["procs"] is None
    frame = read(path)
    assert (
        frame["goos"].tolist() == ["linux", "linux"] and frame["host"].isna().all() and frame["timestamp"].isna().all()
    )
    assert columns._taken(np.array([1]))._with_attrs().columns["goos"] == "linux"
