"""``perfstudy compare BASE NEW`` and ``compare_files``: two files of every harness on one path, without pandas
(perfstudy.comparison._files), checked against what the files hold."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from perfstudy.cli import main
from perfstudy.comparison import Report, compare_files


def _go_file(path, *, runs, slower=0.0, unit="ns/op", allocs=0, extra="", rng=0):
    """A go test output with what a comparison must handle: a group of 20-line benchmarks (the bootstrap),
    a benchmark of ``runs`` lines (Welch-Fieller with few), B/op marked exact, MB/s better higher,
    allocations that can be 0 (the difference scale), and the time unit given."""
    rng = np.random.default_rng(rng)
    factor = 1e-9 if unit == "sec/op" else 1.0
    lines = ["goos: linux\ngoarch: amd64\npkg: example.com/m\n", "Unit B/op assume=exact\nUnit MB/s better=higher\n"]
    for run in range(20):
        for b in range(6):
            ns = 1000 * (b + 1) * np.exp(rng.normal(0, 0.02)) * (1 + slower * (b == 0))
            lines.append(
                f"BenchmarkGroup{b}-2 \t1000\t{ns * factor:.6g} {unit}\t{1e9 / ns:.4g} MB/s\t512 B/op\t{allocs} allocs/op\n"
            )
        if run < runs:
            lines.append(f"BenchmarkFew-2 \t1000\t{2000 * np.exp(rng.normal(0, 0.03)) * factor:.6g} {unit}\n")
    lines.append(extra)
    path.write_text("".join(lines))
    return str(path)


@pytest.fixture
def files(tmp_path):
    base = _go_file(
        tmp_path / "base.txt", runs=6, rng=1, extra="BenchmarkGone-2 \t10\t5 ns/op\nBenchmarkOdd-2 \t10\t5 ns/op\n"
    )
    new = _go_file(tmp_path / "new.txt", runs=6, slower=0.05, unit="sec/op", allocs=3, rng=2,
                   extra="BenchmarkOdd-2 \t10\t5 B/op\n")  # fmt: skip
    return base, new


def _batch_means(path, name) -> list[float]:
    """A Go benchmark's ns/op, one value a result line (a batch), read from the text by hand."""
    values = []
    for line in open(path):
        fields = line.split()
        if fields and fields[0] == f"Benchmark{name}":
            value, unit = float(fields[2]), fields[3]
            values.append(value * (1e9 if unit == "sec/op" else 1.0))
    return values


@pytest.mark.parametrize("options", [dict(), dict(statistic="median", threshold=0.02, correction="bh", confidence=0.9)])
def test_two_go_files_compare_what_they_hold(files, options):
    from perfstudy.comparison import CompareSettings

    base, new = files
    report = compare_files(base, new, CompareSettings(replicates=999, **options), rng=7)
    assert isinstance(report, Report) and dict(report.labels) == {"a": base, "b": new}
    rows = {row["benchmark"]: row for row in report.rows}
    a, b = _batch_means(base, "Group0-2"), _batch_means(new, "Group0-2")
    centre = np.median if options.get("statistic") == "median" else np.mean
    assert rows["Group0-2"]["estimate_a"] == pytest.approx(centre(a), rel=1e-12)
    assert rows["Group0-2"]["change"] == pytest.approx(centre(b) / centre(a) - 1, rel=1e-9)
    assert (rows["Group0-2"]["n_a"], rows["Group0-2"]["clusters_b"]) == (20, 20)
    assert rows["Group0-2"]["verdict"] == "slower" and rows["Group0-2"]["method"] == "bootstrap"
    assert rows["Few-2"]["method"] == "t" and report.units["Few-2"] == "ns/op"  # sec/op in B, converted to A's
    assert rows["Few-2"]["estimate_b"] == pytest.approx(centre(_batch_means(new, "Few-2")), rel=1e-9)
    assert rows["Group0-2 B/op"]["method"] == "exact" and rows["Group0-2 allocs/op"]["scale"] == "difference"
    assert rows["Group0-2 MB/s"]["higher_is_better"] is True
    assert report.only_a == ("Gone-2",) and "Odd-2" in report.excluded  # ns/op against B/op: no conversion
    assert report.correction == options.get("correction", "holm")


def _compared_in_a_fresh_process(base, new) -> tuple[dict, str]:
    """``perfstudy compare BASE NEW --format json`` in a fresh interpreter: its rows by benchmark, and whether
    pandas and scipy were imported, and the exit status, as ``"False False 0"``."""
    code = (
        "import sys; from perfstudy.cli import main; status = main(['compare', sys.argv[1], sys.argv[2], "
        "'--format', 'json', '--seed', '3']); print('pandas' in sys.modules, 'scipy' in sys.modules, status)"
    )
    out = subprocess.run([sys.executable, "-c", code, base, new], capture_output=True, text=True, check=True).stdout
    *document, flags = out.strip().splitlines()
    return {row["benchmark"]: row for row in json.loads("\n".join(document))["benchmarks"]}, flags


def test_the_command_reads_two_go_files_without_pandas(files):
    rows, flags = _compared_in_a_fresh_process(*files)
    assert flags == "False False 0"
    assert rows["Group0-2"]["verdict"] == "slower"


def test_the_command_prints_the_libraries_report_and_gates_on_it(files, capsys):
    base, new = files
    assert main(["compare", base, new, "--seed", "5", "--fail-on-regression"]) == 1
    assert capsys.readouterr().out.strip() == compare_files(base, new, rng=5).format("table").strip()


def test_bad_go_files_are_refused_as_the_reader_refuses_them(tmp_path, capsys):
    base = tmp_path / "a.txt"
    base.write_text("BenchmarkA 5 10 ns/op\nBenchmarkA 5 NaN ns/op\n")
    good = tmp_path / "b.txt"
    good.write_text("BenchmarkA 5 10 ns/op\n")
    assert main(["compare", str(base), str(good)]) == 2
    assert "1 of 2 values are null, NaN, infinite or not numbers" in capsys.readouterr().err
    base.write_text("BenchmarkA 5 -10 ns/op\n")
    assert main(["compare", str(base), str(good)]) == 2
    assert "negative value(s) in units that cannot be negative" in capsys.readouterr().err
    base.write_text("BenchmarkB 5 10 ns/op\n")
    assert main(["compare", str(base), str(good)]) == 2
    assert "none can be compared" in capsys.readouterr().err


def test_a_reader_that_leaves_is_not_unusable_input(files):
    """`perfstudy compare a b | head -1`: the closed pipe ends the command as SIGPIPE would (128 + 13),
    without a traceback and without the exit status 2 of unusable input."""
    base, new = files
    code = "import sys; from perfstudy.cli import main; sys.exit(main(['compare', sys.argv[1], sys.argv[2], '--seed', '1']))"
    process = subprocess.Popen([sys.executable, "-c", code, base, new], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # the reader is gone before the table is written
    _, err = process.communicate()
    assert process.returncode == 141 and err == b""


def _pyperf_file(path, *, slower=0.0, names=("alpha", "beta", "gamma"), processes=12, values=3, calibration=(),
                 empty=(), unit="second", rng=0):  # fmt: skip
    """A pyperf file as pyperf writes it: each benchmark in ``processes`` runs of one warm-up and ``values``
    values, a process effect under them; ``calibration`` benchmarks begin with a run of warm-ups only (pyperf's
    loop calibration), ``empty`` ones hold warm-ups only."""
    generator = np.random.default_rng(rng)
    benchmarks = []
    for position, name in enumerate(names):
        centre = 1e-3 * (1 + position) * (1 + slower * (position == 0))
        runs = []
        if name in calibration or name in empty:
            runs.append(dict(metadata=dict(date="2026-11-27 21:00:00.5", calibrate_loops=1), warmups=[[1, centre], [2, centre]]))  # fmt: skip
        for _ in range(0 if name in empty else processes):
            process = centre * np.exp(generator.normal(0, 0.02))
            drawn = process * np.exp(generator.normal(0, 0.01, 1 + values))
            runs.append(
                dict(
                    metadata=dict(date="2026-11-27 21:00:01.25", duration=0.1),
                    warmups=[[1, float(drawn[0])]],
                    values=[float(v) for v in drawn[1:]],
                )
            )
        benchmarks.append(dict(metadata=dict(name=name, loops=1, unit=unit), runs=runs))
    path.write_text(json.dumps(dict(version="1.0", metadata=dict(hostname="here"), benchmarks=benchmarks)))
    return str(path)


def _printed(capsys, base, new, options) -> dict:
    """``perfstudy compare BASE NEW --format json``'s document (its status asserted 0 or 1)."""
    assert main(["compare", base, new, "--seed", "7", "--format", "json", *options]) in (0, 1)
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "case",
    [
        dict(),
        dict(calibration=("beta",)),  # a benchmark's first run is warm-ups only: it comes after the others
        dict(empty=("gamma",), b_names=("gamma", "beta", "alpha", "delta")),  # emptied by warm-ups; B's order, B-only
        dict(unit="byte", options=("--statistic", "median", "--threshold", "2%", "--correction", "bh")),
    ],
)
def test_two_pyperf_files_leave_out_warm_ups_and_say_what_they_emptied(tmp_path, capsys, case):
    """Files with calibration runs, benchmarks emptied by warm-ups, benchmarks in one file only and another unit:
    every warm-up left out and counted, each run a batch."""

    kind = {k: v for k, v in case.items() if k in ("calibration", "empty", "unit")}
    base = _pyperf_file(tmp_path / "base.json", **kind)
    new = _pyperf_file(tmp_path / "new.json", slower=0.05, names=case.get("b_names", ("alpha", "beta", "gamma")), rng=1, **kind)  # fmt: skip
    document = _printed(capsys, base, new, case.get("options", ()))
    files = [json.loads(open(path).read()) for path in (base, new)]
    runs = [run for f in files for bench in f["benchmarks"] for run in bench["runs"]]
    assert document["warmup_dropped"] == sum(len(run["warmups"]) for run in runs)
    rows = {row["benchmark"]: row for row in document["benchmarks"]}
    assert rows["alpha"]["clusters_a"] == 12 and rows["alpha"]["n_b"] == 36  # 12 runs of 3 values a side
    if "empty" in kind:
        assert document["excluded"] == [
            dict(benchmark="gamma", reason=f"no values left in version={new!r} once warm-ups are left out")
        ] and document["only_b"] == ["delta"]


def test_two_pyperf_files_are_read_without_pandas(tmp_path):
    base = _pyperf_file(tmp_path / "base.json")
    new = _pyperf_file(tmp_path / "new.json", slower=0.2, rng=1)
    rows, flags = _compared_in_a_fresh_process(base, new)
    assert flags == "False False 0"
    assert rows["alpha"]["verdict"] == "slower" and rows["beta"]["verdict"] != "slower"


@pytest.mark.parametrize(
    "damage, said",
    [
        (lambda d: d["benchmarks"][0]["runs"][1]["values"].__setitem__(0, None), "null, NaN, infinite or not numbers"),
        (lambda d: d["benchmarks"][0]["runs"][1]["values"].__setitem__(0, -1.0), "negative value(s)"),
        (lambda d: d["benchmarks"][1]["metadata"].__setitem__("name", "alpha"), "two or more entries are named"),
        (lambda d: d["benchmarks"][0]["runs"][1]["metadata"].__setitem__("loops", 0), "loops below 1"),
        (lambda d: d["benchmarks"][0]["runs"][1]["metadata"].__setitem__("date", "yesterday"), "is not a date"),
    ],
)
def test_a_damaged_pyperf_file_is_refused_as_the_reader_refuses_it(tmp_path, capsys, damage, said):
    """The reader's words, exit 2."""
    base = _pyperf_file(tmp_path / "base.json")
    data = json.loads((tmp_path / "base.json").read_text())
    damage(data)
    (tmp_path / "base.json").write_text(json.dumps(data))
    new = _pyperf_file(tmp_path / "new.json", rng=1)
    assert main(["compare", base, new]) == 2
    assert said in capsys.readouterr().err


_HARNESSES = ["hyperfine", "google_benchmark", "jmh", "pytest_benchmark", "benchmarkdotnet", "asv", "criterion"]


@pytest.mark.parametrize("format", _HARNESSES)
@pytest.mark.parametrize(
    "options", [(), ("--statistic", "median", "--threshold", "3%", "--correction", "bh", "--trust-one-process")]
)
def test_two_files_of_a_harness_are_compared_and_one_process_is_said(tmp_path, capsys, format, options):
    """Each harness's files: the planted 8% found; B holds a benchmark A lacks (criterion's sample.json holds one);
    pytest-benchmark's and criterion's one process a side is noted, and inconclusive unless trusted."""
    from tests.support.harness_files import WRITERS

    write = WRITERS[format]
    base = write(tmp_path / "base.json")
    names = ("alpha",) if format == "criterion" else ("alpha", "beta", "gamma", "delta")
    new = write(tmp_path / "new.json", slower=0.08, names=names, rng=1)
    document = _printed(capsys, base, new, options)
    (alpha,) = [row for row in document["benchmarks"] if "alpha" in row["benchmark"]]
    one_process = format in ("pytest_benchmark", "criterion")
    trusted = "--trust-one-process" in options
    assert alpha["verdict"] == ("inconclusive" if one_process and not trusted else "slower")
    assert any("one process a side" in note for note in alpha["notes"]) == one_process
    assert len(document["only_b"]) == (0 if format == "criterion" else 1)


def test_two_hyperfine_files_of_one_command_each_are_one_benchmark(tmp_path, capsys):
    from tests.support.harness_files import hyperfine_file

    base = hyperfine_file(tmp_path / "base.json", names=("./old --run",))
    new = hyperfine_file(tmp_path / "new.json", names=("./new --run",), slower=0.1, rng=1)
    assert main(["compare", base, new, "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "./old --run -> ./new --run" in out and "A runs `./old --run`, B runs `./new --run`" in out
    report = compare_files(base, new, rng=3)  # the library says the same, by the one path
    assert [row["benchmark"] for row in report.rows] == ["./old --run -> ./new --run"]
    assert report.said[0] == "A runs `./old --run`, B runs `./new --run`: one benchmark, each file's one command"


def test_two_harness_files_are_compared_without_pandas(tmp_path):
    from tests.support.harness_files import jmh_file

    base, new = jmh_file(tmp_path / "base.json"), jmh_file(tmp_path / "new.json", slower=0.2, rng=1)
    rows, flags = _compared_in_a_fresh_process(base, new)
    assert flags == "False False 0"
    assert rows["org.example.Bench.alpha [size=1024]"]["verdict"] == "slower"


def test_files_of_two_formats_are_compared_by_their_benchmarks(tmp_path, capsys):
    from tests.support.harness_files import google_benchmark_file, hyperfine_file

    base = hyperfine_file(tmp_path / "base.json")
    new = google_benchmark_file(tmp_path / "new.json")
    assert main(["compare", base, new]) == 2  # no benchmark in both
    assert "none is present in both" in capsys.readouterr().err
    other = hyperfine_file(tmp_path / "other.json", names=("alpha",), slower=0.2)
    document = _printed(capsys, base, other, ())
    assert [row["benchmark"] for row in document["benchmarks"]] == ["alpha"] and document["benchmarks"][0][
        "verdict"
    ] == "slower"


@pytest.mark.parametrize(
    "columns",
    [
        ("benchmark", "batch", "iteration", "warmup", "value", "unit"),
        ("benchmark", "batch", "value"),  # the file's order within each batch, no unit: compare's own
        ("value", "warmup", "batch", "benchmark", "iteration"),
    ],
)
@pytest.mark.parametrize("options", [(), ("--statistic", "median", "--threshold", "3%", "--correction", "bh")])
def test_two_tidy_tables_are_compared(tmp_path, capsys, columns, options):
    """Two tidy CSV tables of any order of columns, with or without warm-ups, iterations and units; B holds a
    benchmark A lacks."""
    from tests.support.harness_files import tidy_csv_file

    base = tidy_csv_file(tmp_path / "base", columns=columns)
    new = tidy_csv_file(
        tmp_path / "new", columns=columns, slower=0.08, names=("alpha", "beta", "gamma", "delta"), rng=1
    )
    document = _printed(capsys, base, new, options)
    verdicts = {row["benchmark"]: row["verdict"] for row in document["benchmarks"]}
    assert verdicts["alpha"] == "slower" and document["only_b"] == ["delta"]


def test_two_tables_of_values_around_zero_compare_their_differences(tmp_path, capsys):
    """Zero and below: the difference B - A."""
    generator = np.random.default_rng(4)
    paths = []
    for name, shift in (("base.csv", 0.0), ("new.csv", 0.5)):
        rows = [f"b,{batch},{float(v)!r}" for batch in range(30) for v in generator.normal(shift, 1.0, 3)]
        (tmp_path / name).write_text("benchmark,batch,value\n" + "\n".join(rows) + "\n")
        paths.append(str(tmp_path / name))
    (row,) = _printed(capsys, *paths, ())["benchmarks"]
    assert row["scale"] == "difference" and row["change"] == pytest.approx(row["estimate_b"] - row["estimate_a"])


def test_an_interval_the_verdict_does_not_trust_is_not_printed_as_if_it_were(tmp_path, capsys):
    """pytest-benchmark's withheld verdict sat beside printed A/A changes of -55.7% [..] (p 4e-35): one process a
    side, its interval covers only the noise within the process."""
    from tests.support.harness_files import pytest_benchmark_file

    base = pytest_benchmark_file(tmp_path / "base.json")
    new = pytest_benchmark_file(tmp_path / "new.json", slower=0.08, rng=1)
    assert main(["compare", base, new]) == 0
    (alpha,) = [line for line in capsys.readouterr().out.splitlines() if "test_alpha" in line]
    assert "(one process)" in alpha and "[" not in alpha.split("(one process)")[0].split("±")[-1]
    assert " n/a " in alpha and "inconclusive" in alpha
    assert main(["compare", base, new, "--trust-one-process"]) == 0  # judged by its interval: shown
    (trusted,) = [line for line in capsys.readouterr().out.splitlines() if "test_alpha" in line]
    assert "(one process)" not in trusted and "%, +" in trusted


def test_two_files_say_once_they_were_measured_one_after_the_other_and_how_their_machines_differ(tmp_path, capsys):
    """A Go +10% measured while the load changed read +80.6% with no word; the machines' records were not read."""
    from tests.support.harness_files import google_benchmark_file

    base = google_benchmark_file(tmp_path / "base.json")
    new = google_benchmark_file(tmp_path / "new.json", slower=0.05, rng=1)
    document = json.loads(open(new).read())
    document["context"].update(host_name="other", num_cpus=64)
    (tmp_path / "new.json").write_text(json.dumps(document))
    assert main(["compare", base, new]) == 0
    out = capsys.readouterr().out
    assert out.count("A and B were measured one after the other") == 1 and "perfstudy run interleaves" in out
    assert "Their machines differ, as the files record them (A's, then B's): host_name 'here' and 'other'" in out
    assert main(["compare", base, new, "--format", "json"]) == 0
    said = json.loads(capsys.readouterr().out)["said"]
    assert said[0].startswith("A and B were measured one after the other") and "num_cpus" in said[2]


def test_two_files_say_when_each_was_measured_where_they_record_it(tmp_path):
    """Two files of different days were compared with no date said; a file without dates is named as such."""
    from tests.support.harness_files import google_benchmark_file

    base = google_benchmark_file(tmp_path / "base.json")
    new = google_benchmark_file(tmp_path / "new.json", slower=0.05, rng=1)
    document = json.loads(open(new).read())
    document["context"]["date"] = "2026-12-03T17:42:09+01:00"
    (tmp_path / "new.json").write_text(json.dumps(document))
    said = compare_files(base, new, rng=1).said
    assert said[1] == (
        "The files record when they were measured: A at 2026-11-28 01:10+00:00; B at 2026-12-03 17:42+01:00."
    )
    document = json.loads(open(_pyperf_file(tmp_path / "runs.json")).read())
    document["benchmarks"][-1]["runs"][-1]["metadata"]["date"] = "2026-11-28T02:13:59.9"  # pyperf writes T or a space
    (tmp_path / "runs.json").write_text(json.dumps(document))
    for run in (run for b in document["benchmarks"] for run in b["runs"]):
        del run["metadata"]["date"]
    (tmp_path / "undated.json").write_text(json.dumps(document))
    (line,) = [x for x in compare_files(tmp_path / "runs.json", tmp_path / "undated.json", rng=1).said if "when" in x]
    assert line == "The files record when they were measured: A from 2026-11-27 21:00 to 2026-11-28 02:13; B not."


def test_pyperfs_load_recorded_run_by_run_is_read_and_a_small_move_is_not_said(tmp_path, capsys):
    """pyperf records load_avg_1min in each run's metadata when it varied, and those went unread."""

    def with_loads(path, load):
        document = json.loads(open(path).read())
        document["metadata"].pop("load_avg_1min", None)
        for bench in document["benchmarks"]:
            for i, run in enumerate(bench["runs"]):
                run.setdefault("metadata", {})["load_avg_1min"] = load + 0.01 * i
        open(path, "w").write(json.dumps(document))
        return path

    base = with_loads(_pyperf_file(tmp_path / "base.json"), 0.3)
    loaded = with_loads(_pyperf_file(tmp_path / "loaded.json", rng=1), 3.1)
    calm = with_loads(_pyperf_file(tmp_path / "calm.json", rng=2), 0.5)
    said = compare_files(base, loaded, rng=1).said
    assert said[-1].startswith("Their machines differ, as the files record them (A's, then B's): load_avg_1min 0.")
    assert " and 3." in said[-1]  # each file's median over its runs
    assert not any("differ" in line for line in compare_files(base, calm, rng=1).said)  # 0.2 apart: not said


def test_a_memory_rows_verdict_is_worded_in_the_json_too(tmp_path, capsys):
    """A Go file's B/op row read "larger" in the table but only "verdict": "slower" in the JSON."""
    (tmp_path / "a.txt").write_text("".join(f"BenchmarkX-2 100 10{i} ns/op 1000 B/op\n" for i in range(6)))
    (tmp_path / "b.txt").write_text("".join(f"BenchmarkX-2 100 10{i} ns/op 2000 B/op\n" for i in range(6)))
    assert main(["compare", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--format", "json"]) == 0
    rows = {row["unit"]: row for row in json.loads(capsys.readouterr().out)["benchmarks"]}
    assert rows["B/op"]["verdict"] == "slower" and rows["B/op"]["verdict_said"] == "larger"
    assert rows["ns/op"]["verdict_said"] == rows["ns/op"]["verdict"]
