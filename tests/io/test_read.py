"""Readers against files written by the real tools (pyperf, hyperfine, Google Benchmark) and the
documented JMH format, each checked against the tool's own summary of the same file."""

import gzip
import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

from perfstudy.io import COLUMNS, read, read_google_benchmark, read_hyperfine, read_jmh, read_pyperf


def _run(args, **kwargs):
    return subprocess.run(args, check=True, capture_output=True, text=True, timeout=120, **kwargs)


# --- pyperf: the real tool writes the file, pyperf's own loader is the reference ----------------


@pytest.fixture(scope="module")
def pyperf_file(tmp_path_factory):
    pyperf = pytest.importorskip("pyperf")
    path = tmp_path_factory.mktemp("pyperf") / "timeit.json"
    # 3 worker processes, 2 warm-ups and 4 values each, fixed loops (no calibration process)
    _run(
        [
            sys.executable,
            "-m",
            "pyperf",
            "timeit",
            "--quiet",
            "-p",
            "3",
            "-w",
            "2",
            "-n",
            "4",
            "-l",
            "50",
            "--name",
            "sum100",
            "-o",
            str(path),
            "sum(range(100))",
        ]
    )
    return path, pyperf


def test_pyperf_matches_pyperfs_own_loader(pyperf_file):
    path, pyperf = pyperf_file
    frame = read_pyperf(path)
    assert list(frame.columns[: len(COLUMNS)]) == COLUMNS
    bench = pyperf.BenchmarkSuite.load(str(path)).get_benchmark("sum100")
    measured = frame[~frame.warmup]
    np.testing.assert_array_equal(measured.value, bench.get_values())  # same values, same order
    runs = bench.get_runs()
    assert frame.batch.nunique() == len(runs) == 3
    warm = frame[frame.warmup]
    np.testing.assert_array_equal(warm.value, [value for run in runs for _, value in run.warmups])
    # warm-ups come first within each process, and are flagged rather than dropped
    assert (frame.groupby("batch").warmup.apply(lambda w: list(w)) == [[True] * 2 + [False] * 4] * 3).all()
    assert (frame.loops == 50).all() and (frame.unit == "second").all()
    assert frame.host.notna().all() and frame.timestamp.notna().all()


def test_pyperf_calibration_and_gzip(tmp_path):
    pytest.importorskip("pyperf")
    path = tmp_path / "cal.json.gz"
    # without -l, pyperf spends a first process calibrating the loop count: warm-ups only
    _run(
        [
            sys.executable,
            "-m",
            "pyperf",
            "timeit",
            "--quiet",
            "-p",
            "2",
            "-w",
            "1",
            "-n",
            "2",
            "--name",
            "cal",
            "-o",
            str(path),
            "pass",
        ]
    )
    frame = read_pyperf(path)
    by_batch = frame.groupby("batch").warmup.all()
    assert by_batch.iloc[0]  # the calibration process
    assert (~frame[frame.batch > 0].warmup).sum() == 2 * 2
    with gzip.open(path, "rt") as handle:
        assert read_pyperf(json.load(handle)).equals(frame)


# --- hyperfine: the real tool (Debian package), its mean/median are the reference ---------------

needs_hyperfine = pytest.mark.skipif(
    shutil.which("hyperfine") is None,
    reason="hyperfine is not installed (Debian package 'hyperfine'; .ci/run installs it)",
)


@needs_hyperfine
def test_hyperfine_runs_and_parameter_scan(tmp_path):
    path = tmp_path / "h.json"
    _run(
        [
            "hyperfine",
            "--style",
            "none",
            "--warmup",
            "2",
            "--runs",
            "7",
            "-N",
            "--export-json",
            str(path),
            "-L",
            "n",
            "1,5",
            "sleep 0.0{n}",
        ]
    )
    frame = read_hyperfine(path)
    raw = json.loads(path.read_text())["results"]
    assert sorted(frame.benchmark.unique()) == ["sleep 0.01 [n=1]", "sleep 0.05 [n=5]"]
    for result in raw:
        rows = frame[frame.params == f"n={result['parameters']['n']}"]
        assert len(rows) == 7 and list(rows.batch) == list(range(7))  # warm-up runs are not in the file
        assert rows.value.mean() == pytest.approx(result["mean"], rel=1e-12)
        assert rows.value.median() == pytest.approx(result["median"], rel=1e-12)
        assert (rows.exit_code == 0).all()
    assert not frame.warmup.any()
    # the 50 ms command takes longer than the 10 ms one (a gap that a loaded machine does not close;
    # 1 ms against 2 ms flipped once under load)
    assert frame.groupby("params").value.median().diff().iloc[-1] > 0


# --- Google Benchmark: a real benchmark compiled against Debian's libbenchmark -------------------

GB_SOURCE = r"""
#include <benchmark/benchmark.h>
#include <numeric>
#include <vector>
static void BM_Sum(benchmark::State& state) {
  std::vector<double> v(state.range(0), 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(std::accumulate(v.begin(), v.end(), 0.0));
}
BENCHMARK(BM_Sum)->Arg(64)->Arg(1024);
BENCHMARK_MAIN();
"""


@pytest.fixture(scope="module")
def google_benchmark_file(tmp_path_factory):
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("g++ is not installed")
    folder = tmp_path_factory.mktemp("gbench")
    (folder / "b.cc").write_text(GB_SOURCE)
    build = subprocess.run(
        [compiler, "-O2", "b.cc", "-o", "b", "-lbenchmark", "-lpthread"], cwd=folder, capture_output=True, text=True
    )
    if build.returncode != 0:
        pytest.skip("Google Benchmark is not installed (Debian package 'libbenchmark-dev'; .ci/run installs it)")
    out = folder / "out.json"
    _run(
        [
            str(folder / "b"),
            "--benchmark_repetitions=4",
            "--benchmark_min_time=0.005",
            f"--benchmark_out={out}",
            "--benchmark_out_format=json",
        ],
        cwd=folder,
    )
    return out


def test_google_benchmark_repetitions_against_its_aggregates(google_benchmark_file):
    frame = read_google_benchmark(google_benchmark_file)
    raw = json.loads(google_benchmark_file.read_text())["benchmarks"]
    assert sorted(frame.benchmark.unique()) == ["BM_Sum/1024", "BM_Sum/64"]
    assert set(frame.groupby("benchmark").batch.apply(tuple)) == {(0, 1, 2, 3)}
    means = {r["run_name"]: r["real_time"] for r in raw if r.get("aggregate_name") == "mean"}
    assert frame.attrs["aggregates"] == sum(r["run_type"] == "aggregate" for r in raw) > 0
    for name, mean in means.items():  # the library's own mean of the repetitions
        assert frame[frame.benchmark == name].value.mean() == pytest.approx(mean, rel=1e-9)
    cpu = read_google_benchmark(google_benchmark_file, time="cpu_time")
    assert not np.array_equal(cpu.value, frame.value) and (frame.unit == "ns").all()
    # --metric cpu_time through read(): each repetition's own cpu_time, as the file has it
    iterations = [r for r in raw if r["run_type"] == "iteration"]
    chosen = read(google_benchmark_file, metric="cpu_time")
    assert chosen.value.tolist() == [r["cpu_time"] for r in iterations] and chosen.attrs["metric"] == "cpu_time"
    assert read(google_benchmark_file, metric="real_time").value.tolist() == [r["real_time"] for r in iterations]


def test_google_benchmark_errors_are_not_silent():
    data = {
        "context": {"host_name": "h", "date": "2024-01-01T00:00:00+00:00"},
        "benchmarks": [
            {
                "name": "ok",
                "run_name": "ok",
                "run_type": "iteration",
                "repetition_index": 0,
                "iterations": 10,
                "real_time": 5.0,
                "cpu_time": 5.0,
                "time_unit": "us",
            },
            {
                "name": "bad",
                "run_name": "bad",
                "run_type": "iteration",
                "error_occurred": True,
                "error_message": "out of memory",
                "iterations": 0,
                "real_time": 0.0,
                "cpu_time": 0.0,
                "time_unit": "us",
            },
        ],
    }
    with pytest.raises(ValueError, match="bad: out of memory"):
        read_google_benchmark(data)
    with pytest.warns(UserWarning, match="1 benchmark run"):
        frame = read_google_benchmark(data, errors="drop")
    assert list(frame.benchmark) == ["ok"] and frame.attrs["errors"] == ["bad: out of memory"]
    with pytest.raises(ValueError, match="time="):
        read_google_benchmark(data, time="wall")


# --- JMH: the documented -rf json format (no JVM harness can be built offline here) --------------


def _jmh_result(mode, metric, **extra):
    return {
        "jmhVersion": "1.37",
        "benchmark": "org.example.Bench.hash",
        "mode": mode,
        "threads": 1,
        "forks": 2,
        "jvm": "/usr/bin/java",
        "vmVersion": "17.0.15",
        "warmupIterations": 5,
        "warmupTime": "10 s",
        "measurementIterations": 3,
        "measurementTime": "10 s",
        "params": {"size": "1024"},
        "primaryMetric": metric,
        **extra,
    }


JMH_AVGT = _jmh_result(
    "avgt",
    {
        "score": 11.0,
        "scoreError": 3.2,
        "scoreConfidence": [7.8, 14.2],
        "scoreUnit": "ns/op",
        "scorePercentiles": {"0.0": 9.0, "50.0": 11.0, "100.0": 13.0},
        "rawData": [[9.0, 10.0, 11.0], [11.0, 12.0, 13.0]],
    },
    secondaryMetrics={
        "gc.alloc.rate.norm": {"score": 16.0, "scoreUnit": "B/op", "rawData": [[16.0, 16.0, 16.0], [16.0, 16.0, 16.0]]}
    },
)
JMH_SAMPLE = _jmh_result(
    "sample",
    {
        "score": 2.125,
        "scoreUnit": "us/op",
        "scorePercentiles": {"50.0": 2.0},
        "rawDataHistogram": [[[[1.0, 2], [3.0, 1]], [[2.0, 3]]], [[[4.0, 1]], [[2.0, 1], [5.0, 0]]]],
    },
)


def test_jmh_forks_iterations_and_params():
    frame = read_jmh([JMH_AVGT])
    assert list(frame.benchmark.unique()) == ["org.example.Bench.hash [size=1024]"]
    assert list(frame.batch) == [0, 0, 0, 1, 1, 1] and list(frame.iteration) == [0, 1, 2] * 2
    assert frame.value.mean() == JMH_AVGT["primaryMetric"]["score"]  # JMH's avgt score: mean of all iterations
    assert not frame.warmup.any() and (frame.warmup_iterations == 5).all()
    gc = read_jmh([JMH_AVGT], metric="gc.alloc.rate.norm")
    assert (gc.value == 16.0).all() and (gc.unit == "B/op").all()
    with pytest.raises(ValueError, match="metric='gc.count': .* has no such secondary metric"):
        read_jmh([JMH_AVGT], metric="gc.count")


def test_read_chooses_a_harness_metric_and_refuses_one_the_file_lacks(tmp_path):
    jmh = tmp_path / "jmh.json"
    jmh.write_text(json.dumps([JMH_AVGT]))
    assert (read(jmh, metric="gc.alloc.rate.norm").value == 16.0).all()
    assert read(jmh, metric="primary").value.tolist() == read_jmh([JMH_AVGT]).value.tolist()
    with pytest.raises(ValueError, match=f"{jmh}: metric='gc.count': .* has no such secondary metric"):
        read(jmh, metric="gc.count")
    # hyperfine 1.20's per-run peak memory; an older file has none, and is refused saying which writes it
    result = dict(command="sleep 0", mean=0.01, user=0.001, system=0.002, times=[0.01, 0.02, 0.03],
                  exit_codes=[0, 0, 0], memory_usage_byte=[1_000_000, 2_000_000, 1_500_000])  # fmt: skip
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    new.write_text(json.dumps({"results": [result]}))
    old.write_text(json.dumps({"results": [{k: v for k, v in result.items() if k != "memory_usage_byte"}]}))
    rss = read(new, metric="rss")
    assert rss.value.tolist() == [1e6, 2e6, 1.5e6] and (rss.unit == "B").all()
    assert read(new).value.tolist() == [0.01, 0.02, 0.03]
    with pytest.raises(ValueError, match="has no memory_usage_byte, each run's peak memory, which hyperfine writes"):
        read(old, metric="rss")
    with pytest.raises(ValueError, match="only as each command's mean, not per run"):
        read(new, metric="cpu")


def test_jmh_sample_histograms_are_expanded_by_count():
    frame = read_jmh([JMH_SAMPLE])
    # fork 0: iteration 0 -> 1,1,3; iteration 1 -> 2,2,2; fork 1: iteration 0 -> 4; iteration 1 -> 2
    assert list(frame.value) == [1, 1, 3, 2, 2, 2, 4, 2]
    assert list(frame.batch) == [0] * 6 + [1] * 2 and list(frame.iteration) == [0, 0, 0, 1, 1, 1, 0, 1]
    assert frame.value.mean() == JMH_SAMPLE["primaryMetric"]["score"]
    assert frame.value.median() == JMH_SAMPLE["primaryMetric"]["scorePercentiles"]["50.0"]


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reader, data, message",
    [
        (read_pyperf, {"results": []}, "no 'benchmarks' field; is this a pyperf"),
        (read_hyperfine, {"benchmarks": []}, "no 'results' field; is this a hyperfine"),
        (read_google_benchmark, [], "no 'benchmarks' field"),
        (read_jmh, {"benchmarks": []}, "JMH JSON is a list"),
        (read_jmh, [{"benchmark": "b", "primaryMetric": {"score": 1}}], "neither 'rawData' nor 'rawDataHistogram'"),
        (read_hyperfine, {"results": []}, "no measured values"),
        (
            read_hyperfine,
            {"results": [{"command": "x", "times": [1.0, 2.0], "exit_codes": [0]}]},
            "1 exit_codes for 2 times",
        ),
    ],
)
def test_malformed_files_say_what_is_wrong(reader, data, message):
    with pytest.raises(ValueError, match=message):
        reader(data)


def test_paths_and_non_json(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_pyperf(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("Benchmark 1: sleep\n  Time (mean ± σ): ...")
    with pytest.raises(ValueError, match="not a hyperfine JSON file"):
        read_hyperfine(bad)
    with pytest.raises(TypeError, match="source"):
        read_jmh(42)


# --- read(): the format detected from the content ------------------------------------------------


def test_read_detects_each_format(tmp_path, pyperf_file):
    from perfstudy.io import read

    jmh = tmp_path / "jmh.json"
    jmh.write_text(json.dumps([JMH_AVGT]))
    hyperfine = tmp_path / "h.json"
    hyperfine.write_text(json.dumps({"results": [{"command": "x", "times": [1.0, 2.0]}]}))
    google = tmp_path / "g.json"
    google.write_text(
        json.dumps(
            {
                "context": {"date": "2026-01-01"},
                "benchmarks": [
                    {"name": "BM", "run_name": "BM", "run_type": "iteration", "repetitions": 1,
                     "repetition_index": 0, "iterations": 10, "real_time": 5.0, "cpu_time": 5.0, "time_unit": "ns"}
                ],
            }
        )
    )  # fmt: skip
    tidy = tmp_path / "t.csv"
    tidy.write_text("benchmark,version,batch,value\nb,0,0,1.5\nb,1,0,1.6\n")
    expected = {pyperf_file[0]: "pyperf", jmh: "jmh", hyperfine: "hyperfine", google: "google_benchmark", tidy: "csv"}
    for path, format in expected.items():
        frame = read(path)
        assert frame.attrs["format"] == format, path
        if format != "csv":
            assert list(frame.columns[: len(COLUMNS)]) == COLUMNS
    gz = tmp_path / "p.json.gz"
    with gzip.open(gz, "wt") as handle:
        handle.write(pyperf_file[0].read_text())
    assert read(gz).equals(read_pyperf(pyperf_file[0]))
    assert read(hyperfine, format="hyperfine").equals(read_hyperfine(hyperfine))


@pytest.mark.parametrize(
    "name, content, kwargs, error, match",
    [
        ("x.json", '{"something": 1}', {}, ValueError, "unknown format"),
        ("x.json", "not json", {}, ValueError, "not a benchmark JSON file"),
        ("x.csv", "a,b\n1,2\n", {}, ValueError, "tidy table without a 'value' column"),
        ("x.json", "{}", {"format": "excel"}, ValueError, "format='excel'"),
        ("x.json", '{"results": []}', {"format": "pyperf"}, ValueError, "is this a pyperf"),
    ],
)
def test_read_refuses_what_it_cannot_read(tmp_path, name, content, kwargs, error, match):
    from perfstudy.io import read

    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(error, match=match):
        read(path, **kwargs)
    with pytest.raises(FileNotFoundError, match="no such file"):
        read(tmp_path / "missing.json")


@pytest.mark.parametrize("bad", [None, float("nan"), float("inf"), "12 ms"])
def test_null_nan_and_infinite_values_are_refused_or_dropped_with_a_count(bad):
    """A null, NaN or Infinity measurement used to become a NaN row without a word."""
    data = {"results": [{"command": "x", "times": [0.010, bad, 0.012, 0.011]}]}
    with pytest.raises(ValueError, match=r"source: 1 of 4 values are null, NaN, infinite or not numbers"):
        read_hyperfine(data)
    with pytest.warns(UserWarning, match="1 of 4 values .* left out"):
        frame = read_hyperfine(data, dropna=True)
    assert list(frame.value) == [0.010, 0.012, 0.011] and frame.attrs["dropped"] == 1
    assert read_hyperfine({"results": [{"command": "x", "times": [0.01, 0.02]}]}).attrs["dropped"] == 0


def test_json_in_the_wrong_shape_is_refused_by_name():
    """Well-formed JSON with the wrong shapes raised AttributeError from inside the parse."""
    for reader, data in [
        (read_pyperf, {"benchmarks": "x"}),
        (read_pyperf, {"benchmarks": [{"runs": [5]}]}),
        (read_google_benchmark, {"context": [], "benchmarks": []}),
        (read_hyperfine, {"results": [{"command": "x", "times": 5}]}),
        (read_jmh, [{"benchmark": "b", "primaryMetric": {"rawData": 7}}]),
    ]:
        with pytest.raises(ValueError, match="^source: "):
            reader(data)


def test_a_malformed_file_is_a_malformed_file_error_and_a_bad_argument_is_not():
    """The reader's arguments are checked before the parse, so an error of the wrong type inside the
    parse comes from the file: MalformedFileError (a ValueError), named by its class, not its message."""
    from perfstudy.io import MalformedFileError, read_google_benchmark, read_jmh, read_pyperf

    with pytest.raises(MalformedFileError, match="source"):
        read_pyperf({"benchmarks": [{"runs": 3}]})  # runs: a number where a list belongs
    with pytest.raises(MalformedFileError, match="not a well-formed JMH"):
        read_jmh([{"benchmark": "b", "primaryMetric": {"rawData": 5}}])  # forks: a number, not a list
    for call, name in [
        (lambda: read_pyperf({"benchmarks": []}, dropna="yes"), "dropna"),
        (lambda: read_google_benchmark({"benchmarks": [], "context": {}}, time=3), "time"),
        (lambda: read_jmh([], metric=3), "metric"),
        (lambda: read_pyperf(3.5), "source"),
    ]:
        with pytest.raises(TypeError, match=name) as caught:
            call()
        assert not isinstance(caught.value, MalformedFileError), name


@pytest.mark.parametrize(
    ("name", "text", "format"),
    [
        ("jmh.json", '[{"benchmark": "x", "primaryMetric": {"rawData": "no"}}]', "jmh"),
        ("asv.json", '{"commit_hash": "x", "results": {"a": "bad"}}', "asv"),
        ("sample.json", '{"iters": [1, 2], "times": [1]}', "criterion"),
        (
            "raw.csv",
            "group,function,value,throughput_num,throughput_type,sample_measured_value,unit,iteration_count\n"
            "x,y,,,,abc,ns,1\n",
            "criterion",
        ),
        ("go.txt", "BenchmarkA-8\t100\t10 ns/op\nBenchmarkA-8\tmany\t10 ns/op\n", "go"),
        ("go2.txt", "Unit ns/op better\nBenchmarkA-8\t100\t10 ns/op\n", "go"),
        ("tidy.csv", "benchmark,seconds\nx,1\n", "csv"),
    ],
)
def test_a_file_that_is_not_what_its_reader_expects_is_a_malformed_file_error(tmp_path, name, text, format):
    """The CHANGELOG's promise, for every reader: a file of the wrong shape raises MalformedFileError (a
    ValueError), naming what is wrong, never a raw parse error."""
    from perfstudy.io import MalformedFileError, read

    path = tmp_path / name
    path.write_text(text)
    for given in (format, "auto"):
        with pytest.raises(MalformedFileError, match=f"{name}|path"):  # the file, by name
            read(path, given)


@pytest.mark.parametrize("harness", ["hyperfine", "google_benchmark", "jmh", "pytest_benchmark", "benchmarkdotnet"])
def test_a_json_file_with_a_byte_order_mark_reads_as_its_harness(tmp_path, harness):
    """A UTF-8 byte-order mark made a JSON file of any harness read as a CSV, refused with the whole file quoted."""
    from perfstudy.io import read
    from tests.support.harness_files import WRITERS

    plain = tmp_path / f"{harness}.json"
    WRITERS[harness](plain)
    marked = tmp_path / f"marked-{harness}.json"
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    expected, found = read(plain), read(marked)
    assert found.attrs["format"] == harness
    assert found["value"].tolist() == expected["value"].tolist()


def test_an_empty_file_is_called_empty_and_a_reader_names_the_file(tmp_path):
    """An empty file was called "unknown format"; with two files compared, "source:" did not say which."""
    from perfstudy.io import read

    (tmp_path / "empty.json").write_bytes(b"")
    with pytest.raises(ValueError, match=r"empty.json: the file is empty \(0 bytes\)"):
        read(tmp_path / "empty.json")
    (tmp_path / "neg.txt").write_text("BenchmarkX-2 100 -5 ns/op\n")
    with pytest.raises(ValueError, match=r"neg.txt: 1 negative value\(s\) in units that cannot be negative"):
        read(tmp_path / "neg.txt")


def test_an_index_too_large_to_hold_is_refused_by_name(tmp_path):
    """A 20-digit repetition index was cast to int64 with a RuntimeWarning and read as another number."""
    from perfstudy.io import read
    from tests.support.harness_files import WRITERS

    path = tmp_path / "gb.json"
    WRITERS["google_benchmark"](path)
    document = json.loads(path.read_text())
    document["benchmarks"][0]["repetition_index"] = 12345678901234567890
    path.write_text(json.dumps(document))
    with pytest.raises(
        ValueError, match=r"gb.json: a batch index is not an integer below 2\*\*53: \[12345678901234567890\]"
    ):
        read(path)


def test_a_tidy_table_with_an_iteration_given_twice_is_refused(tmp_path):
    """Two rows of one benchmark, version, batch and iteration were read as two measurements."""
    from perfstudy.io import read

    path = tmp_path / "t.csv"
    path.write_text("benchmark,version,value,unit,batch,iteration\nx,A,1,s,0,0\nx,A,2,s,0,0\nx,B,1,s,0,0\n")
    with pytest.raises(ValueError, match="2 rows are alike in every column but 'value'"):
        read(path)
    path.write_text("benchmark,version,value,unit,batch,iteration\nx,A,1,s,0,0\nx,A,2,s,0,1\nx,B,1,s,0,0\n")
    assert len(read(path)) == 3


def test_a_value_with_no_benchmark_name_is_refused(tmp_path):
    """A criterion raw.csv row with empty group, function and value was a benchmark named ''."""
    from perfstudy.io import read

    path = tmp_path / "raw.csv"
    path.write_text(
        "group,function,value,throughput_num,throughput_type,sample_measured_value,unit,iteration_count\n"
        ",,,,,100,ns,10\n,,,,,110,ns,10\ng,f,,,,100,ns,10\n"
    )
    with pytest.raises(ValueError, match=r"raw.csv: 2 value\(s\) have no benchmark name \(''\)"):
        read(path)


def test_pyperf_dates_of_both_shapes_are_read(tmp_path):
    """pyperf writes a run's date with a 'T' or with a space; a file holding both was refused as "not a date"."""
    from perfstudy.io import read

    document = {"version": "1.0", "metadata": {"hostname": "h"}, "benchmarks": [{"metadata": {"name": "b"}, "runs": [
        {"metadata": {"date": "2026-11-27T21:00:00"}, "warmups": [[1, 0.1]], "values": [0.1, 0.11]},
        {"metadata": {"date": "2026-11-27 21:00:05.5"}, "warmups": [[1, 0.1]], "values": [0.12, 0.1]},
    ]}]}  # fmt: skip
    (tmp_path / "p.json").write_text(json.dumps(document))
    frame = read(tmp_path / "p.json", "pyperf")
    import pandas as pd

    stamps = sorted(set(frame["timestamp"]))
    assert stamps == [pd.Timestamp("2026-11-27 21:00:00"), pd.Timestamp("2026-11-27 21:00:05.5")]


def test_a_tidy_tables_negative_time_is_refused_as_every_readers_is(tmp_path):
    """Negative values where the unit forbids them were accepted in a tidy CSV in s, and judged."""
    from perfstudy.io import read

    path = tmp_path / "t.csv"
    path.write_text("benchmark,version,value,unit,batch\nx,A,1,s,0\nx,A,-2,s,1\nx,B,1,s,0\nx,B,1.1,s,1\n")
    with pytest.raises(ValueError, match=r"1 negative value\(s\) in units that cannot be negative \(first: x, -2 s\)"):
        read(path)
    path.write_text("benchmark,version,value,unit,batch\nx,A,1,%,0\nx,A,-2,%,1\nx,B,1,%,0\nx,B,1.1,%,1\n")
    assert read(path)["value"].min() == -2  # a unit that may be negative


def test_a_tidy_csv_cut_while_written_is_refused_or_said(tmp_path, capsys):
    """A tidy CSV cut mid-row was read with its last value shortened ('x,3,1.' as 1.0), saying nothing."""
    import warnings

    from perfstudy.cli import main
    from perfstudy.io import read

    rows = "benchmark,batch,value,unit\nx,0,1.0,s\nx,1,1.1,s\nx,2,1.2,s\n"
    cut = tmp_path / "cut.csv"
    cut.write_text(rows + "x,3,1.")
    assert main(["compare", str(cut), str(cut)]) == 2
    assert "its last row, 'x,3,1.', has 3 of the header's 4 fields and no end of line: the file was cut" in (
        capsys.readouterr().err
    )
    whole = tmp_path / "whole.csv"  # every field, no end of line: read, and said
    whole.write_text(rows.replace(",s\n", "\n").replace(",unit", "") + "x,3,1.")
    with pytest.warns(UserWarning, match=r"the last row, 'x,3,1.', has no end of line: if the file was cut"):
        assert read(whole)["value"].tolist() == [1.0, 1.1, 1.2, 1.0]
    (tmp_path / "ended.csv").write_text(rows)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read(tmp_path / "ended.csv")  # a file that ends its last row: nothing said
