"""One benchmark of a harness's output followed by name (``benchmark=``, ``--benchmark``): a run judges only it, a
bisect finds its culprit and not another benchmark's, and ``history --confirm --confirm-measure`` bisects the
benchmark that regressed inside the suite's output."""

from __future__ import annotations

import json
import sys

import pandas as pd
import pytest

from perfstudy.cli import main
from perfstudy.experiment import bisect, run

PYTHON = sys.executable

#: a Go suite's output at commit ``cNN``: Parse 30% slower from c06 (argv[2]), Render 30% slower from c03 (argv[3])
SUITE = """
import random, sys
n = int(sys.argv[1].lstrip("c"))
for name, ns, since in (("Parse", 1000.0, int(sys.argv[2])), ("Render", 2000.0, int(sys.argv[3]))):
    ns *= (1.3 if n >= since else 1.0) * random.lognormvariate(0, 0.01)
    print(f"Benchmark{name}-2   1000   {ns:.1f} ns/op")
"""


@pytest.fixture
def suite(tmp_path):
    script = tmp_path / "suite.py"
    script.write_text(SUITE)
    return f"{PYTHON} -S {script} {{commit}} 6 3"


def test_a_run_judges_only_the_benchmark_it_follows_and_records_the_rest(suite, tmp_path):
    a, b = suite.replace("{commit}", "c00"), suite.replace("{commit}", "c09")
    result = run(a, b, measure="go", benchmark="Parse", threshold=0.1, values=1, warmup=0, max_rounds=40, seed=1,
                 out=tmp_path / "runs.csv", progress=False)  # fmt: skip
    (verdict,) = result.verdicts  # Render, also 30% slower, is not judged
    assert verdict["benchmark"] == "Parse-2" and verdict["verdict"] == "slower"
    assert verdict["low"] < 0.30 < verdict["high"]
    assert {"Parse-2", "Render-2"} <= set(pd.read_csv(tmp_path / "runs.csv").benchmark)  # the file keeps both
    assert json.loads((tmp_path / "runs.csv.json").read_text())["settings"]["benchmark"] == "Parse"


def test_a_benchmark_no_version_ran_stops_the_run_after_one_round_naming_those_there_are(suite, tmp_path, capsys):
    a, b = suite.replace("{commit}", "c00"), suite.replace("{commit}", "c01")
    code = main(["run", "--a", a, "--b", b, "--measure", "go", "--benchmark", "BenchmarkParse", "--values", "1",
                 "--warmup", "0", "--no-progress", "--out", str(tmp_path / "runs.csv")])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert (
        "--benchmark BenchmarkParse: no benchmark of that name ran in both versions; they ran Parse-2, Render-2" in err
    )
    assert len(pd.read_csv(tmp_path / "runs.csv").query("round > 1")) == 0  # one round, not a budget's worth


#: a suite run at two GOMAXPROCS values (go test -cpu 2,4): Parse-2 and Parse-4, B's Parse-4 30% slower
TWO_PROCS = """
import sys
slow = 1.3 if sys.argv[1] == "b" else 1.0
print("BenchmarkParse-2   1000   1000.0 ns/op")
print(f"BenchmarkParse-4   1000   {1000.0 * slow:.1f} ns/op")
"""


def test_a_name_that_is_several_benchmarks_is_refused_and_a_written_name_is_followed_alone(tmp_path):
    script = tmp_path / "procs.py"
    script.write_text(TWO_PROCS)
    a, b = f"{PYTHON} -S {script} a", f"{PYTHON} -S {script} b"
    options = dict(measure="go", threshold=0.1, values=1, warmup=0, max_rounds=12, seed=1, progress=False)
    ambiguous = run(a, b, benchmark="Parse", out=tmp_path / "both.csv", **options)
    assert ambiguous.stopped == "failed" and ambiguous.rounds == 1
    assert ambiguous.failure == (
        "benchmark='Parse': names 2 benchmarks both versions ran (Parse-2, Parse-4); name one of them as the "
        "harness writes it"
    )
    (verdict,) = run(a, b, benchmark="Parse-4", out=tmp_path / "four.csv", **options).verdicts
    assert verdict["benchmark"] == "Parse-4" and verdict["verdict"] == "slower"


def test_a_benchmark_without_a_harness_is_refused_by_name():
    with pytest.raises(ValueError, match="benchmark='x': names one benchmark of a harness's output, with measure="):
        run("true", "true", benchmark="x", progress=False)


def test_a_bisect_follows_the_named_benchmark_to_its_own_culprit(suite):
    commits = [f"c{i:02d}" for i in range(9)]
    found = bisect(commits, suite, measure="go", benchmark="Parse", threshold=0.1, values=1, warmup=0, seed=2,
                   progress=False)  # fmt: skip
    assert found.culprit == "c06"  # Parse's; Render, 30% slower from c03, would have given c03


def test_a_bisect_of_a_harness_without_a_benchmark_named_is_refused(suite, tmp_path, capsys):
    with pytest.raises(ValueError, match="measure='go': a harness's output holds many benchmarks, and a bisect"):
        bisect(["c00", "c01"], suite, measure="go", progress=False)
    (tmp_path / "commits").write_text("c00\nc01\n")
    code = main(["bisect", "--commits", str(tmp_path / "commits"), "--command", suite, "--measure", "go"])
    assert code == 2 and "--measure go: a harness's output holds many benchmarks" in capsys.readouterr().err


@pytest.mark.slow  # a history and one confirming bisect of real commands: about 5 s
def test_history_confirms_a_suites_regression_by_following_it_in_the_output(suite, tmp_path, capsys):
    rows = [dict(commit=f"c{i:02d}", benchmark=name, value=base * (1.3 if i >= 22 and name == "Parse-2" else 1.0) * f)
            for i in range(30) for name, base in (("Parse-2", 1000.0), ("Render-2", 2000.0))
            for f in (0.99, 1.0, 1.01)]  # fmt: skip
    pd.DataFrame(rows).to_csv(tmp_path / "history.csv", index=False)
    template = suite.replace(" 6 3", " 22 99")  # Parse 30% slower from c22, Render never
    code = main(["history", str(tmp_path / "history.csv"), "--threshold", "10%", "--fail-on-regression",
                 "--recent", "10", "--confirm", template, "--confirm-measure", "go", "--format", "json",
                 "--no-progress"])  # fmt: skip
    captured = capsys.readouterr()
    (confirmation,) = json.loads(captured.out)["confirmations"]
    assert confirmation["benchmark"] == "Parse-2" and confirmation["culprit"] == "c22" and code == 1
    assert "by its value in TEMPLATE's go output" in captured.err
