"""``perfstudy compare base.txt new.txt`` of two Go files, without pandas (perfstudy.comparison._files),
against the same files read into a DataFrame and given to compare(): the same table, Markdown and JSON."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from perfstudy.cli import main
from perfstudy.comparison import Report, compare, compare_go_files, format_comparison
from perfstudy.io import read


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


def _frame_comparison(base, new, **options):
    frame = pd.concat([read(base).assign(version=base), read(new).assign(version=new)], ignore_index=True)
    return compare(frame, baseline=base, **options)


@pytest.mark.parametrize("options", [dict(), dict(statistic="median", threshold=0.02, correction="bh", confidence=0.9)])
def test_two_go_files_compare_as_their_frames_do(files, options):
    base, new = files
    lean = compare_go_files(base, new, labels=(base, new), replicates=999, rng=7, **options)
    frame = _frame_comparison(base, new, replicates=999, rng=7, **options)
    table = frame.table.to_dict("records")
    assert [row["benchmark"] for row in lean.rows] == [row["benchmark"] for row in table]
    for mine, theirs in zip(lean.rows, table):
        assert mine.keys() == theirs.keys()
        for key, value in theirs.items():
            if isinstance(value, float):
                assert mine[key] == pytest.approx(value, rel=1e-12, abs=1e-300, nan_ok=True), (mine["benchmark"], key)
            else:
                assert mine[key] == value, (mine["benchmark"], key)
    assert dict(lean.units) == dict(frame.units) and dict(lean.excluded) == dict(frame.excluded)
    assert (lean.only_a, lean.only_b) == (frame.only_a, frame.only_b)
    assert isinstance(lean, Report)
    for form in ("table", "markdown", "json"):
        assert lean.format(form) == format_comparison(frame, form) == frame.report().format(form)
    # what the files hold, seen through the lean path
    rows = {row["benchmark"]: row for row in lean.rows}
    assert rows["Group0-2"]["verdict"] == "slower" and rows["Group0-2"]["method"] == "bootstrap"
    assert rows["Few-2"]["method"] == "t" and lean.units["Few-2"] == "ns/op"  # sec/op in B, converted to A's
    assert rows["Group0-2 B/op"]["method"] == "exact" and rows["Group0-2 allocs/op"]["scale"] == "difference"
    assert rows["Group0-2 MB/s"]["higher_is_better"] is True
    assert lean.only_a == ("Gone-2",) and "Odd-2" in lean.excluded  # ns/op against B/op: no conversion


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


def test_the_command_gives_the_same_output_either_way(files, capsys, monkeypatch):
    base, new = files
    assert main(["compare", base, new, "--seed", "5", "--fail-on-regression"]) == 1
    lean = capsys.readouterr().out
    from perfstudy.cli import _compare

    monkeypatch.setattr(_compare, "_compare_lean_files", lambda *args: None)  # the DataFrame path
    assert main(["compare", base, new, "--seed", "5", "--fail-on-regression"]) == 1
    assert capsys.readouterr().out == lean


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


def _printed_both_ways(monkeypatch, capsys, base, new, options) -> dict:
    """``perfstudy compare BASE NEW`` as table and as JSON, on the lean path (asserted taken for both files) and on
    the DataFrame path: ``{(path, form): (status, output)}``, the two paths' outputs asserted equal."""
    from perfstudy.cli import _compare

    printed = {}
    lean, taken = _compare._compare_lean_files, []
    monkeypatch.setattr(_compare, "_compare_lean_files", lambda *args: taken.append(lean(*args)) or taken[-1])
    for path in ("lean", "frames"):
        if path == "frames":
            assert len(taken) == 2 and all(report is not None for report in taken)  # the lean path took both
            monkeypatch.setattr(_compare, "_compare_lean_files", lambda *args: None)
        for form in ("table", "json"):
            status = main(["compare", base, new, "--seed", "7", "--format", form, *options])
            printed[path, form] = (status, capsys.readouterr().out)
    assert printed["lean", "table"] == printed["frames", "table"]
    assert printed["lean", "json"] == printed["frames", "json"]
    return printed


@pytest.mark.parametrize(
    "case",
    [
        dict(),
        dict(calibration=("beta",)),  # a benchmark's first run is warm-ups only: it comes after the others
        dict(empty=("gamma",), b_names=("gamma", "beta", "alpha", "delta")),  # emptied by warm-ups; B's order, B-only
        dict(unit="byte", options=("--statistic", "median", "--threshold", "2%", "--correction", "bh")),
    ],
)
def test_two_pyperf_files_give_the_dataframe_paths_output(tmp_path, capsys, monkeypatch, case):
    """The lean path (no pandas) prints what compare() of the two files read by read_pyperf prints, character for
    character, as table and as JSON, on files with calibration runs, benchmarks emptied by warm-ups, benchmarks in
    one file only and another unit."""

    kind = {k: v for k, v in case.items() if k in ("calibration", "empty", "unit")}
    base = _pyperf_file(tmp_path / "base.json", **kind)
    new = _pyperf_file(tmp_path / "new.json", slower=0.05, names=case.get("b_names", ("alpha", "beta", "gamma")), rng=1, **kind)  # fmt: skip
    printed = _printed_both_ways(monkeypatch, capsys, base, new, case.get("options", ()))
    document = json.loads(printed["lean", "json"][1])
    assert document["warmup_dropped"] > 0
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
    """A file the lean reader does not read goes to read_pyperf, which refuses it by name (exit 2)."""
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
def test_two_files_of_a_harness_give_the_dataframe_paths_output(tmp_path, capsys, monkeypatch, format, options):
    """Each harness's files on the lean path (no pandas) print what compare() of the two files read by read()
    prints, character for character, as table and as JSON; B holds a benchmark A lacks (criterion's sample.json
    holds one); pytest-benchmark's and criterion's one process a side is noted, and inconclusive unless trusted."""
    from tests.support.harness_files import WRITERS

    write = WRITERS[format]
    base = write(tmp_path / "base.json")
    names = ("alpha",) if format == "criterion" else ("alpha", "beta", "gamma", "delta")
    new = write(tmp_path / "new.json", slower=0.08, names=names, rng=1)
    printed = _printed_both_ways(monkeypatch, capsys, base, new, options)
    document = json.loads(printed["lean", "json"][1])
    (alpha,) = [row for row in document["benchmarks"] if "alpha" in row["benchmark"]]
    one_process = format in ("pytest_benchmark", "criterion")
    trusted = "--trust-one-process" in options
    assert alpha["verdict"] == ("inconclusive" if one_process and not trusted else "slower")
    assert any("one process a side" in note for note in alpha["notes"]) == one_process
    assert len(document["only_b"]) == (0 if format == "criterion" else 1)


def test_two_hyperfine_files_of_one_command_each_are_one_benchmark_either_way(tmp_path, capsys, monkeypatch):
    from perfstudy.cli import _compare
    from tests.support.harness_files import hyperfine_file

    base = hyperfine_file(tmp_path / "base.json", names=("./old --run",))
    new = hyperfine_file(tmp_path / "new.json", names=("./new --run",), slower=0.1, rng=1)
    assert main(["compare", base, new, "--seed", "3"]) == 0
    lean = capsys.readouterr().out
    monkeypatch.setattr(_compare, "_compare_lean_files", lambda *args: None)
    assert main(["compare", base, new, "--seed", "3"]) == 0
    assert capsys.readouterr().out == lean
    assert "./old --run -> ./new --run" in lean and "A runs `./old --run`, B runs `./new --run`" in lean


def test_two_harness_files_are_compared_without_pandas(tmp_path):
    from tests.support.harness_files import jmh_file

    base, new = jmh_file(tmp_path / "base.json"), jmh_file(tmp_path / "new.json", slower=0.2, rng=1)
    rows, flags = _compared_in_a_fresh_process(base, new)
    assert flags == "False False 0"
    assert rows["org.example.Bench.alpha [size=1024]"]["verdict"] == "slower"


def test_files_of_two_formats_take_the_general_path(tmp_path, capsys, monkeypatch):
    from perfstudy.cli import _compare
    from tests.support.harness_files import google_benchmark_file, hyperfine_file

    taken = []
    lean = _compare._compare_lean_files
    monkeypatch.setattr(_compare, "_compare_lean_files", lambda *args: taken.append(lean(*args)) or taken[-1])
    base = hyperfine_file(tmp_path / "base.json")
    new = google_benchmark_file(tmp_path / "new.json")
    assert main(["compare", base, new]) == 2  # no benchmark in both, said by the general path
    assert taken == [None] and "none is present in both" in capsys.readouterr().err


@pytest.mark.parametrize(
    "columns",
    [
        ("benchmark", "batch", "iteration", "warmup", "value", "unit"),
        ("benchmark", "batch", "value"),  # the file's order within each batch, no unit: compare's own
        ("value", "warmup", "batch", "benchmark", "iteration"),
    ],
)
@pytest.mark.parametrize("options", [(), ("--statistic", "median", "--threshold", "3%", "--correction", "bh")])
def test_two_tidy_tables_give_the_dataframe_paths_output(tmp_path, capsys, monkeypatch, columns, options):
    """Two tidy CSV tables on the lean path print what compare() of the two frames read by read() prints, character
    for character, as table and as JSON; B holds a benchmark A lacks."""
    from tests.support.harness_files import tidy_csv_file

    base = tidy_csv_file(tmp_path / "base", columns=columns)
    new = tidy_csv_file(
        tmp_path / "new", columns=columns, slower=0.08, names=("alpha", "beta", "gamma", "delta"), rng=1
    )
    printed = _printed_both_ways(monkeypatch, capsys, base, new, options)
    document = json.loads(printed["lean", "json"][1])
    verdicts = {row["benchmark"]: row["verdict"] for row in document["benchmarks"]}
    assert verdicts["alpha"] == "slower" and document["only_b"] == ["delta"]


def test_two_tables_of_values_around_zero_compare_their_differences_either_way(tmp_path, capsys, monkeypatch):
    """Zero and below: the difference B - A, on both paths alike."""
    generator = np.random.default_rng(4)
    paths = []
    for name, shift in (("base.csv", 0.0), ("new.csv", 0.5)):
        rows = [f"b,{batch},{float(v)!r}" for batch in range(30) for v in generator.normal(shift, 1.0, 3)]
        (tmp_path / name).write_text("benchmark,batch,value\n" + "\n".join(rows) + "\n")
        paths.append(str(tmp_path / name))
    printed = _printed_both_ways(monkeypatch, capsys, *paths, ())
    (row,) = json.loads(printed["lean", "json"][1])["benchmarks"]
    assert row["scale"] == "difference"
