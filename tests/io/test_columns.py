"""A harness's file as columns without pandas: the values, batches, positions and units that read() gives, or a
refusal that sends the file to read()."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from perfstudy.io import file_columns, read
from perfstudy.io.columns import ColumnsError, FileColumns, rows_columns
from tests.support.harness_files import WRITERS, assert_left_to_read

KEYS = ["benchmark", "batch", "iteration", "warmup", "value", "unit"]


@pytest.mark.parametrize("format", sorted(WRITERS))
def test_a_files_columns_are_its_frames_rows(tmp_path, format):
    path = WRITERS[format](tmp_path / "f.json", slower=0.1)
    columns = file_columns(path)
    assert isinstance(columns, FileColumns) and columns.tool == read(path).attrs["tool"]
    frame = read(path)[KEYS].reset_index(drop=True)
    pd.testing.assert_frame_equal(columns.to_frame(), frame, check_dtype=False, rtol=0, atol=0)
    assert file_columns(path, format).tool == columns.tool


def test_one_process_files_say_so_and_benchmarkdotnet_comes_in_its_readers_order(tmp_path):
    one = {f: file_columns(WRITERS[f](tmp_path / f"{f}.json")).one_process for f in sorted(WRITERS)}
    assert one == {f: f in ("pytest_benchmark", "criterion") for f in sorted(WRITERS)}
    dotnet = file_columns(WRITERS["benchmarkdotnet"](tmp_path / "d.json"))
    assert dotnet.distinct == ["Ns.Bench.alpha", "Ns.Bench.beta", "Ns.Bench.gamma"]  # the file has gamma first
    first = dotnet.codes == 0
    assert dotnet.warmup[first][:2].all() and not dotnet.warmup[first][2:8].any()  # launch 1: warm-ups first


def test_jmh_histograms_repeat_values_within_an_iteration(tmp_path):
    """SampleTime's histograms expand to repeated values in one iteration: read as read_jmh reads them."""
    sample = [{"benchmark": "b", "mode": "sample", "primaryMetric": {"scoreUnit": "us/op", "rawDataHistogram":
              [[[[1.0, 2], [3.0, 1]], [[2.0, 3]]], [[[4.0, 1]], [[2.0, 1], [5.0, 0]]]]}}]  # fmt: skip
    path = tmp_path / "sample.json"
    path.write_text(json.dumps(sample))
    columns = file_columns(path)
    pd.testing.assert_frame_equal(columns.to_frame(), read(path)[KEYS], check_dtype=False)
    assert columns.value.tolist() == [1.0, 1.0, 3.0, 2.0, 2.0, 2.0, 4.0, 2.0]


def _damaged(tmp_path, format, damage):
    path = Path(WRITERS[format](tmp_path / "f.json"))
    data = json.loads(path.read_text())
    damage(data)
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "format, damage",
    [
        ("hyperfine", lambda d: d["results"][0]["times"].__setitem__(2, None)),
        ("hyperfine", lambda d: d["results"][0]["times"].__setitem__(2, "0.01")),
        ("hyperfine", lambda d: d["results"][0]["times"].__setitem__(2, -0.01)),
        ("hyperfine", lambda d: d["results"][1].__setitem__("command", "alpha")),  # two entries of one name
        ("hyperfine", lambda d: d["results"][0]["exit_codes"].pop()),  # the reader refuses it
        ("google_benchmark", lambda d: d["context"].__setitem__("date", "yesterday")),
        ("google_benchmark", lambda d: d["benchmarks"][0].__setitem__("iterations", 0)),
        ("google_benchmark", lambda d: d["benchmarks"][0].__setitem__("repetition_index", 1.5)),
        ("google_benchmark", lambda d: d["benchmarks"][1].__setitem__("time_unit", "us")),  # one benchmark, 2 units
        ("google_benchmark", lambda d: d["benchmarks"][0].__setitem__("error_occurred", True)),
        ("jmh", lambda d: d[0]["primaryMetric"]["rawData"][0].__setitem__(0, float("nan"))),
        ("jmh", lambda d: d[0]["primaryMetric"].pop("rawData")),
        ("pytest_benchmark", lambda d: d["benchmarks"][0]["stats"].pop("data")),  # summaries only
        ("pytest_benchmark", lambda d: d.__setitem__("datetime", "28/11/2026 01:20")),
        ("pytest_benchmark", lambda d: d["benchmarks"][0]["stats"].__setitem__("iterations", 0)),
        ("benchmarkdotnet", lambda d: d["Benchmarks"][0]["Measurements"][4].__setitem__("Operations", 0)),
        ("benchmarkdotnet", lambda d: d["Benchmarks"][0]["Measurements"][4].__setitem__("LaunchIndex", "1")),
        ("asv", lambda d: d["results"]["bench.Suite.time_alpha"][11][0].__setitem__(0, None)),  # a failed sample
        ("asv", lambda d: d["results"]["bench.Suite.time_alpha"].__setitem__(3, 1e30)),  # a start time out of range
        ("asv", lambda d: d["results"].__setitem__("bench.Suite.mem_x", d["results"]["bench.Suite.time_beta"])),
        ("criterion", lambda d: d["iters"].__setitem__(0, 0.0)),
        (
            "jmh",
            lambda d: d.__setitem__(
                1, dict(d[0], mode="thrpt", primaryMetric=dict(d[0]["primaryMetric"], scoreUnit="ops/ns"))
            ),
        ),  # fmt: skip
    ],
)
def test_what_might_read_otherwise_is_left_to_read(tmp_path, format, damage):
    """Each file here raises ColumnsError: read() refuses it in its own words, or reads it (the command then
    compares what read() gives)."""
    path = _damaged(tmp_path, format, damage)
    assert_left_to_read(path)


def test_another_format_or_none_is_left_to_read(tmp_path):
    hyperfine = WRITERS["hyperfine"](tmp_path / "h.json")
    with pytest.raises(ColumnsError, match="hyperfine, not one read here as jmh"):
        file_columns(hyperfine, "jmh")
    (tmp_path / "x.json").write_text('{"something": []}')
    with pytest.raises(ColumnsError, match="no known shape"):
        file_columns(tmp_path / "x.json")
    (tmp_path / "t.json").write_text("not json")
    with pytest.raises(ColumnsError):
        file_columns(tmp_path / "t.json")
    with pytest.raises(FileNotFoundError):
        file_columns(tmp_path / "absent.json")
    with pytest.raises(ColumnsError, match="format='parquet'"):
        file_columns(hyperfine, "parquet")
    with pytest.raises(ColumnsError, match="quotes"):  # a JSON file read as a tidy CSV
        file_columns(hyperfine, "csv")


def test_rows_of_dates_of_two_shapes_or_two_units_are_refused():
    row = dict(benchmark="b", batch=0, iteration=0, warmup=False, value=1.0, unit="s", timestamp="2026-11-28 01:00:00")
    assert rows_columns([row], tool="t").value.tolist() == [1.0]
    assert rows_columns([row, dict(row, batch=1, timestamp="2026-11-28 02:30:00")], tool="t").batch.tolist() == [0, 1]
    with pytest.raises(ColumnsError, match="two shapes"):
        rows_columns([row, dict(row, batch=1, timestamp="2026-11-28T02:30:00")], tool="t")
    with pytest.raises(ColumnsError, match="two units"):
        rows_columns([row, dict(row, batch=1, unit="ms")], tool="t")
    with pytest.raises(ColumnsError, match="one benchmark, batch and iteration"):
        rows_columns([row, dict(row)], tool="t")
    assert rows_columns([row, dict(row)], tool="t", repeats=True).value.size == 2
    with pytest.raises(ColumnsError, match="no measured values"):
        rows_columns([], tool="t")


def test_renamed_names_a_file_of_one_benchmark():
    row = dict(benchmark="b", batch=0, iteration=0, warmup=False, value=1.0, unit="s")
    one = rows_columns([row], tool="hyperfine")
    assert one.renamed("x -> y").distinct == ["x -> y"] and one.distinct == ["b"]
    with pytest.raises(ValueError, match="only a file of one benchmark"):
        rows_columns([row, dict(row, benchmark="c")], tool="hyperfine").renamed("x")


def test_reading_columns_imports_no_pandas(tmp_path):
    paths = [WRITERS[f](tmp_path / f"{f}.json") for f in sorted(WRITERS)]
    code = (
        "import sys; from perfstudy.io import file_columns; "
        "sizes = [file_columns(p).value.size for p in sys.argv[1:]]; print(sizes, 'pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code, *paths], capture_output=True, text=True, check=True).stdout
    # asv 3 x 10 samples, BenchmarkDotNet 3 x 8 launches x (2 warm-ups + 6), criterion 30 samples, Google
    # Benchmark 3 x 8, hyperfine 3 x 15, JMH 3 x 6 forks x 4, pytest-benchmark 3 x 12 rounds
    assert out.strip() == "[30, 192, 30, 24, 45, 72, 36] False"


def test_a_criterion_sample_is_parsed_once(tmp_path, monkeypatch):
    """file_columns parses the JSON to tell its shape; criterion's rows take that parse, not a second read."""
    import perfstudy.io._json as json_module
    import perfstudy.io.criterion as criterion_module

    path = WRITERS["criterion"](tmp_path / "c.json")
    parsed = []
    for module in (json_module, criterion_module):
        original = module._read_json
        monkeypatch.setattr(
            module, "_read_json", lambda p, *a, _o=original, **k: parsed.append(Path(p).name) or _o(p, *a, **k)
        )
    assert file_columns(path).value.size == 30
    assert parsed.count("sample.json") == 1 and parsed.count("benchmark.json") == 1
