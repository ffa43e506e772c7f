"""The readers of perfstudy.io against files the real tools write here (go test, criterion.rs
through Debian's cargo, pytest-benchmark, asv), each checked against the tool's own summary, and
BenchmarkDotNet on a file written to its documented schema (no .NET here); io.read's detection."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from perfstudy.cli import main
from perfstudy.io import COLUMNS, read


def _run(args, **kwargs):
    return subprocess.run(args, check=True, capture_output=True, text=True, timeout=600, **kwargs)


# --- Go: benchfmt's rules on a file written to them, then real go test output --------------------

GO_TEXT = """\
goos: linux
goarch: amd64
pkg: example.com/codec
cpu: AMD EPYC 7B13
note: before
BenchmarkEncode/size=1K-8      	  200000	      5210 ns/op	 196.5 MB/s	    1024 B/op	       0 allocs/op
BenchmarkEncode/size=1K-8      	  200000	      5190 ns/op	 197.3 MB/s	    1024 B/op	       0 allocs/op
some test output that is not a result
BenchmarkDecode-8 	 100000	 10400 ns/op
BenchmarkDecodeAlone
Unit B/op assume=exact
Unit MB/s better=higher
note: after
BenchmarkEncode/size=1K-8      	  200000	      5730 ns/op	 178.7 MB/s	    1024 B/op	       3 allocs/op
BenchmarkEncode/size=1K-8      	  200000	      5760 ns/op	 177.8 MB/s	    1024 B/op	       3 allocs/op
cpu:
BenchmarkDecode-8 	 100000	 10300 ns/op
PASS
ok  	example.com/codec	4.128s
"""


def test_go_text_follows_benchfmts_rules(tmp_path):
    path = tmp_path / "bench.txt"
    path.write_text(GO_TEXT)
    frame = read(path)
    assert frame.attrs["format"] == "go" and list(frame.columns[: len(COLUMNS)]) == COLUMNS
    # the first metric keeps the name (without "Benchmark"); each further one is a benchmark of its own
    assert sorted(frame.benchmark.unique()) == [
        "Decode-8",
        "Encode/size=1K-8",
        "Encode/size=1K-8 B/op",
        "Encode/size=1K-8 MB/s",
        "Encode/size=1K-8 allocs/op",
    ]
    encode = frame[frame.benchmark == "Encode/size=1K-8"]
    assert encode.value.tolist() == [5210, 5190, 5730, 5760] and (encode.unit == "ns/op").all()
    assert encode.batch.tolist() == [0, 1, 2, 3] and (encode.iterations == 200000).all()
    assert (encode.procs == 8).all()  # the -8 GOMAXPROCS suffix, kept in the name too
    # configuration lines hold until changed; an empty value removes the key
    assert encode.note.tolist() == ["before", "before", "after", "after"]
    decode = frame[frame.benchmark == "Decode-8"]
    assert decode.cpu.isna().tolist() == [False, True] and (frame.goos == "linux").all()
    # Unit lines apply to the unit wherever they stand in the file
    assert (frame[frame.benchmark.str.endswith("B/op")].assume == "exact").all()
    assert (frame[frame.benchmark.str.endswith("MB/s")].better == "higher").all()
    assert frame.assume[frame.benchmark == "Decode-8"].isna().all()


def test_one_go_file_splits_into_versions_by_a_configuration_key(tmp_path, capsys):
    path = tmp_path / "bench.txt"
    path.write_text(GO_TEXT)
    # "before" comes first in the file, "after" in sorted order: which is A must be said
    assert main(["compare", str(path), "--by", "note", "--seed", "1"]) == 2
    assert "which version is A" in capsys.readouterr().err
    assert main(["compare", str(path), "--by", "note", "--a-version", "before", "--format", "json", "--seed", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = {row["benchmark"]: row for row in out["benchmarks"]}
    assert out["labels"] == {"a": "before", "b": "after"}
    allocs = rows["Encode/size=1K-8 allocs/op"]  # 0 -> 3 allocations: a difference, never refused
    assert allocs["scale"] == "difference" and allocs["change"] == 3.0 and allocs["verdict"] == "slower"
    exact = rows["Encode/size=1K-8 B/op"]  # assume=exact: no statistics, the same value is no change
    assert exact["method"] == "exact" and exact["verdict"] == "no change"
    speed = rows["Encode/size=1K-8 MB/s"]  # better=higher: lower MB/s is slower
    assert speed["change"] < 0 and speed["higher_is_better"] is True
    assert rows["Encode/size=1K-8"]["change"] == pytest.approx((5730 + 5760) / (5210 + 5190) - 1)
    # with two files, --by is refused by name
    assert main(["compare", str(path), str(path), "--by", "note"]) == 2
    assert "--by and --a-version split one file" in capsys.readouterr().err


needs_go = pytest.mark.skipif(
    shutil.which("go") is None, reason="go is not installed (Debian package 'golang-go'; .ci/run installs it)"
)


@needs_go
def test_real_go_test_output(tmp_path):
    module = tmp_path / "m"
    module.mkdir()
    (module / "go.mod").write_text("module example.com/m\n\ngo 1.19\n")
    (module / "m_test.go").write_text(
        textwrap.dedent(
            """\
            package m

            import (
                "fmt"
                "testing"
            )

            var sink []byte

            func BenchmarkAlloc(b *testing.B) {
                for _, n := range []int{16, 256} {
                    b.Run(fmt.Sprintf("size=%d", n), func(b *testing.B) {
                        b.ReportAllocs()
                        for i := 0; i < b.N; i++ {
                            sink = make([]byte, n)
                        }
                    })
                }
            }

            func BenchmarkNoAlloc(b *testing.B) {
                b.ReportAllocs()
                x := 0
                for i := 0; i < b.N; i++ {
                    x += i
                }
                _ = x
            }
            """
        )
    )
    env = dict(os.environ, GOCACHE=str(tmp_path / "cache"), GOPATH=str(tmp_path / "gopath"), GOFLAGS="-mod=mod")
    env["GOPROXY"] = "off"
    out = _run(
        ["go", "test", "-run", "^$", "-bench", ".", "-count", "3", "-benchtime", "2000x", "-cpu", "1,2"],
        cwd=module,
        env=env,
    ).stdout
    path = tmp_path / "go.txt"
    path.write_text(out)
    frame = read(path)
    lines = [line.split() for line in out.splitlines() if line.startswith("Benchmark")]
    assert len(lines) == 3 * 3 * 2  # 3 benchmarks (two sub-benchmarks), -count 3, -cpu 1,2
    times = frame[frame.unit == "ns/op"]
    assert times.value.tolist() == [float(fields[2]) for fields in lines]  # every line, in order
    assert {"Alloc/size=16", "Alloc/size=16-2", "NoAlloc", "NoAlloc-2"} <= set(times.benchmark)
    assert set(frame.procs.dropna()) == {2.0}  # go test writes no suffix for GOMAXPROCS 1
    assert (frame.iterations == 2000).all() and {"goos", "goarch", "pkg"} <= set(frame.columns)
    assert (frame[frame.benchmark == "NoAlloc allocs/op"].value == 0).all()
    # a comparison of the file with itself: zero allocations compare ("no change"), never refused
    result = main(["compare", str(path), str(path), "--format", "json", "--seed", "2"])
    assert result == 0


def test_the_compare_table_of_real_go_output_reads_like_benchstats(tmp_path, capsys):
    """One table per unit with the unit once in its caption (ns/op shown as s/op with SI prefixes, B/op and
    allocs/op as they are), centre ± spread and n per side, a geomean row, notes as numbered footnotes one
    per line; the same in markdown."""
    module = tmp_path / "m"
    module.mkdir()
    (module / "go.mod").write_text("module example.com/m\n\ngo 1.19\n")
    (module / "m_test.go").write_text(
        'package m\n\nimport "testing"\n\nvar sink []byte\n\n'
        "func BenchmarkSmall(b *testing.B) { b.ReportAllocs(); for i := 0; i < b.N; i++ { sink = make([]byte, 16) } }\n"
        "func BenchmarkLarge(b *testing.B) { b.ReportAllocs(); for i := 0; i < b.N; i++ { sink = make([]byte, 4096) } }\n"
    )
    env = dict(os.environ, GOCACHE=str(tmp_path / "cache"), GOPATH=str(tmp_path / "gopath"), GOFLAGS="-mod=mod")
    env["GOPROXY"] = "off"
    paths = []
    for name in ("old.txt", "new.txt"):
        out = _run(
            ["go", "test", "-run", "^$", "-bench", ".", "-count", "6", "-benchtime", "20000x"], cwd=module, env=env
        )
        paths.append(tmp_path / name)
        paths[-1].write_text(out.stdout)
    assert main(["compare", *map(str, paths), "--seed", "1"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    captions = [line for line in lines if ": mean ± SD of the batch means" in line]
    assert [c.split(":")[0] for c in captions] == ["s/op", "B/op", "allocs/op"]
    header = lines[lines.index(captions[0]) + 1]
    assert header.split()[:5] == ["benchmark", "A:", "old.txt", "B:", "new.txt"]
    small = next(line for line in lines if line.startswith("Small"))
    # a time per operation in nanoseconds: "12.34n ± 3%", never "1.234e-08 ns/op"; n as batches x values
    assert re.search(r"\d+(\.\d+)?n ± \d+%\s+\d+(\.\d+)?n ± \d+%", small) and "6×1, 6×1" in small
    assert "ns/op" not in text and "e-0" not in text
    assert sum(line.startswith("geomean") for line in lines) == 3  # Small and Large in each unit's table
    large_bytes = [line for line in lines if line.startswith("Large")][1]
    assert re.search(r"4\.096k ± 0%\s+4\.096k ± 0%\s+\+0\.0%", large_bytes)  # 4096 B/op both sides, exactly
    notes = [line for line in lines if re.match(r"\[\d+\] ", line)]  # a footnote a line, numbered from 1
    assert [int(line[1 : line.index("]")]) for line in notes] == list(range(1, len(notes) + 1))
    marked = {int(n) for marks in re.findall(r"^\S+ \[([\d,]+)\]", text, re.M) for n in marks.split(",")}
    assert marked == set(range(1, len(notes) + 1))  # every footnote is referenced from the table
    assert main(["compare", *map(str, paths), "--seed", "1", "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out.splitlines()
    assert markdown[0] == "**s/op: mean ± SD of the batch means**" and markdown[3].startswith("|---|---:|")
    assert any(line.startswith("| Small") and "n ± " in line for line in markdown)
    assert any(line.startswith("1. ") for line in markdown)
    # analyze on the same files: 6 lines a benchmark are too few for a median interval or CONFIRM, and it says
    # so (it used to fail on the median's interval); constant B/op and allocs/op need no more repetitions
    out = tmp_path / "report"
    assert main(["analyze", *map(str, paths), "--out", str(out), "--quick", "--no-progress"]) == 0
    advice = " ".join(json.loads((out / "analyze.json").read_text())["advice"])
    assert "Run at least 10 batches of Small-2 (A), Large-2 (A), Small-2 (B), Large-2 (B)" in advice
    assert "B/op" not in advice and "more than 6" not in advice


# --- criterion.rs, built with Debian's cargo and its packaged crates (offline) -------------------

_REGISTRY = Path("/usr/share/cargo/registry")
needs_criterion = pytest.mark.skipif(
    shutil.which("cargo") is None or not any(_REGISTRY.glob("criterion-0*")),
    reason="cargo or Debian's criterion crate is missing (packages 'cargo', 'librust-criterion-dev'; .ci/run installs them)",
)


@pytest.fixture(scope="module")
def criterion_dir(tmp_path_factory):
    if shutil.which("cargo") is None or not any(_REGISTRY.glob("criterion-0*")):
        pytest.skip("cargo or Debian's criterion crate is missing")
    root = tmp_path_factory.mktemp("criterion")
    (root / "src").mkdir()
    (root / "benches").mkdir()
    (root / ".cargo").mkdir()
    (root / "Cargo.toml").write_text(
        '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2018"\n\n'
        '[dev-dependencies]\ncriterion = { version = "0.3", default-features = false }\n\n'
        '[[bench]]\nname = "demo"\nharness = false\n\n'
        # unoptimised: the files are what is tested, not the code's speed (the build takes 30 s, not 2 min)
        "[profile.bench]\nopt-level = 0\ndebug = false\nincremental = false\n"
    )
    (root / "src" / "lib.rs").write_text("\n")
    (root / "benches" / "demo.rs").write_text(
        textwrap.dedent(
            """\
            use criterion::{black_box, criterion_group, criterion_main, Criterion};
            fn sum(n: u64) -> u64 { (0..n).sum() }
            fn bench(c: &mut Criterion) {
                let mut g = c.benchmark_group("sum");
                g.sample_size(10);
                g.bench_function("n1000", |b| b.iter(|| sum(black_box(1000))));
                g.bench_function("n10", |b| b.iter(|| sum(black_box(10))));
                g.finish();
            }
            criterion_group!(benches, bench);
            criterion_main!(benches);
            """
        )
    )
    (root / ".cargo" / "config.toml").write_text(
        f'[source.crates-io]\nreplace-with = "debian"\n[source.debian]\ndirectory = "{_REGISTRY}"\n[net]\noffline = true\n'
    )
    env = dict(os.environ, CARGO_HOME=str(root / ".cargo"))
    _run(
        ["cargo", "bench", "--bench", "demo", "--", "--warm-up-time", "1", "--measurement-time", "1"], cwd=root, env=env
    )
    return root / "target" / "criterion"


@pytest.mark.slow  # builds a criterion.rs benchmark with cargo (a minute)
@needs_criterion
def test_criterion_folder_sample_and_raw_csv_agree_with_criterions_estimates(criterion_dir):
    frame = read(criterion_dir)
    assert frame.attrs["format"] == "criterion" and sorted(frame.benchmark.unique()) == ["sum/n10", "sum/n1000"]
    for name in ("n10", "n1000"):
        folder = criterion_dir / "sum" / name / "new"
        rows = frame[frame.benchmark == f"sum/{name}"]
        estimates = json.loads((folder / "estimates.json").read_text())
        assert rows.value.mean() == pytest.approx(estimates["mean"]["point_estimate"], rel=1e-9)
        assert len(rows) == 10 and rows.batch.tolist() == list(range(10))
        # raw.csv, which has a value column, is criterion's, not a tidy CSV
        raw = read(folder / "raw.csv")
        assert raw.attrs["format"] == "criterion" and np.allclose(raw.value, rows.value, rtol=1e-12)
        single = read(folder / "sample.json")
        assert single.benchmark.unique().tolist() == [f"sum/{name}"]


# --- pytest-benchmark: the real plugin writes the file --------------------------------------------


@pytest.fixture(scope="module")
def pytest_benchmark_file(tmp_path_factory):
    pytest.importorskip("pytest_benchmark")
    folder = tmp_path_factory.mktemp("pb")
    (folder / "test_b.py").write_text(
        "def test_sum(benchmark):\n    benchmark(sum, range(1000))\n\n"
        "def test_sorted(benchmark):\n"
        "    benchmark.pedantic(sorted, args=(list(range(500, 0, -1)),), rounds=7, iterations=5, warmup_rounds=2)\n"
    )
    _run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--benchmark-json=out.json",
         "--benchmark-min-rounds=10", "--benchmark-max-time=0.05", "test_b.py"],
        cwd=folder,
    )  # fmt: skip
    return folder / "out.json"


def test_pytest_benchmark_rounds_agree_with_its_stats(pytest_benchmark_file, tmp_path):
    frame = read(pytest_benchmark_file)
    raw = json.loads(pytest_benchmark_file.read_text())
    assert frame.attrs["format"] == "pytest_benchmark"
    for bench in raw["benchmarks"]:
        rows = frame[frame.benchmark == bench["fullname"]]
        assert len(rows) == bench["stats"]["rounds"]
        assert rows.value.mean() == pytest.approx(bench["stats"]["mean"], rel=1e-12)
        assert rows.value.median() == pytest.approx(bench["stats"]["median"], rel=1e-12)
        assert (rows.iterations == bench["stats"]["iterations"]).all()
    # a file saved without --benchmark-save-data has summaries only: refused by name
    for bench in raw["benchmarks"]:
        del bench["stats"]["data"]
    summaries = tmp_path / "summaries.json"
    summaries.write_text(json.dumps(raw))
    with pytest.raises(ValueError, match="no raw rounds.*--benchmark-save-data"):
        read(summaries)


# --- asv: the real tool runs two benchmarks against this interpreter -------------------------------


@pytest.fixture(scope="module")
def asv_file(tmp_path_factory):
    pytest.importorskip("asv")
    root = tmp_path_factory.mktemp("asv")
    (root / "benchmarks").mkdir()
    (root / "benchmarks" / "__init__.py").write_text("")
    (root / "benchmarks" / "bench.py").write_text(
        "def time_sum():\n    sum(range(1000))\n\n"
        "class TimeSorted:\n    params = [10, 100]\n    param_names = ['n']\n"
        "    def setup(self, n):\n        self.data = list(range(n, 0, -1))\n"
        "    def time_sorted(self, n):\n        sorted(self.data)\n"
    )
    (root / "asv.conf.json").write_text(
        json.dumps(dict(version=1, project="demo", repo=".", environment_type="existing", benchmark_dir="benchmarks",
                        results_dir="results", html_dir="html", branches=["HEAD"]))
    )  # fmt: skip
    git = ["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci"]
    _run(["git", "init", "-q"], cwd=root)
    _run(git + ["add", "-A"], cwd=root)
    _run(git + ["commit", "-qm", "benchmarks"], cwd=root)
    commit = _run(["git", "rev-parse", "HEAD"], cwd=root).stdout.strip()
    asv = [sys.executable, "-m", "asv"]
    _run(asv + ["machine", "--yes", "--machine", "ci"], cwd=root)
    _run(
        asv + ["run", "--python=same", "--record-samples", "--set-commit-hash", commit, "--machine", "ci",
               "-a", "repeat=5", "-a", "processes=2"],
        cwd=root,
    )  # fmt: skip
    (result,) = [p for p in (root / "results" / "ci").glob("*.json") if p.name != "machine.json"]
    return result


@pytest.mark.slow  # runs asv
def test_asv_samples_agree_with_asvs_own_result(asv_file, tmp_path):
    frame = read(asv_file)
    raw = json.loads(asv_file.read_text())
    columns = raw["result_columns"]
    assert frame.attrs["format"] == "asv"
    assert set(frame.benchmark) == {
        "bench.TimeSorted.time_sorted [10]",
        "bench.TimeSorted.time_sorted [100]",
        "bench.time_sum",
    }
    for name, row in raw["results"].items():
        cell = dict(zip(columns, row))
        labels = [f" [{v}]" for v in cell["params"][0]] if cell["params"] else [""]
        for label, result, samples in zip(labels, cell["result"], cell["samples"]):
            rows = frame[frame.benchmark == name + label]
            assert rows.value.tolist() == samples and len(samples) == 10  # 2 processes x 5 repeats
            assert rows.value.median() == pytest.approx(result, rel=1e-9)  # asv's result is the median
    assert (frame.unit == "s").all() and (frame.commit == raw["commit_hash"]).all()
    for row in raw["results"].values():  # without --record-samples: refused by name
        del row[columns.index("samples") :]
    summaries = tmp_path / "summaries.json"
    summaries.write_text(json.dumps(raw))
    with pytest.raises(ValueError, match="--record-samples"):
        read(summaries)


# --- BenchmarkDotNet: written to its documented full-export schema (no .NET runtime here) -------


def _dotnet_export(launches=3, rng=0):
    """A ``*-report-full.json`` to BenchmarkDotNet's schema: Measurements with IterationMode,
    IterationStage, LaunchIndex, IterationIndex, Operations and Nanoseconds."""
    rng = np.random.default_rng(rng)
    benchmarks = []
    for method, ns in (("Parse", 120.0), ("Format", 80.0)):
        measurements = []
        for launch in range(1, launches + 1):
            level = ns * np.exp(rng.normal(0, 0.02))
            for stage, count in (("Jitting", 1), ("Pilot", 3), ("Warmup", 4), ("Actual", 15)):
                for index in range(1, count + 1):
                    value = level * (1.3 if stage == "Warmup" else 1.0) * np.exp(rng.normal(0, 0.01))
                    measurements.append(
                        dict(IterationMode="Workload", IterationStage=stage, LaunchIndex=launch,
                             IterationIndex=index, Operations=4096, Nanoseconds=4096 * value)
                    )  # fmt: skip
                    if stage == "Actual":
                        measurements.append(
                            dict(IterationMode="Workload", IterationStage="Result", LaunchIndex=launch,
                                 IterationIndex=index, Operations=4096, Nanoseconds=4096 * (value - 1.0))
                        )  # fmt: skip
            measurements.append(
                dict(IterationMode="Overhead", IterationStage="Actual", LaunchIndex=launch, IterationIndex=1,
                     Operations=4096, Nanoseconds=4096.0)
            )  # fmt: skip
        benchmarks.append(
            dict(DisplayInfo=f"Bench.{method}: DefaultJob", Namespace="Demo", Type="Bench", Method=method,
                 MethodTitle=method, Parameters="", FullName=f"Demo.Bench.{method}", Statistics={},
                 Memory={}, Measurements=measurements)
        )  # fmt: skip
    return dict(Title="Demo.Bench-20261123", HostEnvironmentInfo=dict(MachineName="ci"), Benchmarks=benchmarks)


def test_benchmarkdotnet_full_export(tmp_path):
    path = tmp_path / "Demo.Bench-report-full.json"
    export = _dotnet_export()
    path.write_text(json.dumps(export))
    frame = read(path)
    assert frame.attrs["format"] == "benchmarkdotnet"
    parse = frame[frame.benchmark == "Demo.Bench.Parse"]
    assert sorted(parse.batch.unique()) == [1, 2, 3]  # a launch is a process: the batch
    assert parse.warmup.sum() == 3 * 4 and (~parse.warmup).sum() == 3 * 15
    assert set(parse[~parse.warmup].stage) == {"Result"} and (parse.host == "ci").all()
    results = [m for m in export["Benchmarks"][0]["Measurements"] if m["IterationStage"] == "Result"]
    assert np.allclose(parse[~parse.warmup].value, [m["Nanoseconds"] / m["Operations"] for m in results])
    # within a launch the warm-ups come first, as they ran
    first = parse[parse.batch == 1]
    assert first.warmup.tolist() == [True] * 4 + [False] * 15
    brief = {
        **export,
        "Benchmarks": [{k: v for k, v in b.items() if k != "Measurements"} for b in export["Benchmarks"]],
    }
    path.write_text(json.dumps(brief))
    with pytest.raises(ValueError, match="no Measurements.*full JSON"):
        read(path)


# --- detection -------------------------------------------------------------------------------------


def test_a_file_that_matches_two_formats_is_refused_naming_both(tmp_path):
    both = {"benchmarks": [{"runs": [], "stats": {"data": [1.0]}, "name": "x"}], "machine_info": {}}
    path = tmp_path / "both.json"
    path.write_text(json.dumps(both))
    with pytest.raises(ValueError, match="pyperf and pytest_benchmark"):
        read(path)
    frame = read(path, format="pytest_benchmark")  # saying which settles it
    assert frame.value.tolist() == [1.0]


def test_the_command_line_takes_the_input_format_and_an_unknown_file_says_how(tmp_path, capsys):
    from perfstudy.cli import _parser
    from perfstudy.io import FORMATS

    compare_parser = _parser()._subparsers._group_actions[0].choices["compare"]  # type: ignore[union-attr]
    (option,) = [a for a in compare_parser._actions if "--input-format" in a.option_strings]
    assert tuple(option.choices) == FORMATS
    path = tmp_path / "mystery.txt"
    path.write_text("nothing a harness wrote\n")
    assert main(["compare", str(path), str(path)]) == 2
    assert "--input-format" in capsys.readouterr().err
    go = tmp_path / "go.data"
    go.write_text(GO_TEXT)
    assert main(["compare", str(go), "--by", "note", "--a-version", "before", "--input-format", "go"]) == 0
