"""What ``perfstudy analyze`` reports on: which file is A, which B, the threshold and where it came from, and the
inputs it refuses by name rather than leave out."""

import numpy as np
import pytest
from support.harness_files import google_benchmark_file, hyperfine_file

from perfstudy.analysis import DEMO_PROBLEMS
from perfstudy.comparison import compare
from perfstudy.report_inputs import DEFAULT_THRESHOLD, check_paths, report_inputs


@pytest.fixture(scope="module")
def run_path(tmp_path_factory):
    from perfstudy.experiment import run

    path = tmp_path_factory.mktemp("run") / "experiment.csv"
    run("true", "true", values=1, warmup=0, min_rounds=4, max_rounds=4, out=path, progress=False, seed=0,
        shell=False, threshold=0.05)  # fmt: skip
    return str(path)


def test_no_file_is_the_simulated_demo_and_says_so():
    inputs = report_inputs([], rng=3)
    assert inputs.demo and inputs.sides == ("A", "B") and inputs.names == ("demo A", "demo B")
    assert (inputs.threshold, inputs.threshold_from) == (DEFAULT_THRESHOLD, "the default")
    text = inputs.markdown()
    a_rows = int((inputs.frame["version"] == "A").sum())
    assert text.startswith(f"* **A** is `demo A`: 3 benchmarks, {a_rows} values\n* **B** is `demo B`")
    assert "this is a simulated demo" in text and "`perfstudy.analysis.DEMO_PROBLEMS`" in text
    assert {"json_dumps_slowdown", "regex_warmup", "startup_slow_process"} <= set(DEMO_PROBLEMS)  # what it names


def test_the_first_file_is_a_and_the_second_b(tmp_path):
    a = google_benchmark_file(tmp_path / "a.json", rng=1)
    b = google_benchmark_file(tmp_path / "b.json", slower=0.2, rng=2)
    inputs = report_inputs([a, b], threshold=0.03)
    assert inputs.names == ("a.json", "b.json") and dict(inputs.pairing) == {"baseline": "A"}
    assert (inputs.threshold, inputs.threshold_from, inputs.run, inputs.demo) == (0.03, "given", None, False)
    counts = inputs.frame.groupby("version").size()
    assert counts["A"] == counts["B"] == 3 * 8  # three benchmarks, eight repetitions each
    assert inputs.described() == dict(paths=[a, b], names=["a.json", "b.json"], rows=48, threshold=0.03,
                                      threshold_from="given", run_file=False)  # fmt: skip
    assert "* **B** is `b.json`: 3 benchmarks, 24 values" in inputs.markdown()


def test_one_hyperfine_export_of_several_commands_makes_its_first_command_a(tmp_path):
    path = hyperfine_file(tmp_path / "h.json", names=("old", "new", "newer"), runs=5)
    inputs = report_inputs([path])
    assert inputs.names == ("h.json, A: `old`", "h.json, B: each other command")
    # each other command is a benchmark, A's runs beside each (5 runs and one CPU-time mean per command)
    sides = inputs.frame.groupby("version")
    assert sides.size().to_dict() == {"A": 12, "B": 12}
    assert set(inputs.frame["benchmark"]) == {"new", "newer", "new:cpu", "newer:cpu"}


def test_a_run_file_holds_both_versions_and_its_own_threshold(run_path):
    inputs = report_inputs([run_path])
    assert inputs.run is not None and (inputs.threshold, inputs.threshold_from) == (0.05, "the run's own")
    assert inputs.names[0].endswith(", A: `true`") and inputs.pairing["baseline"] == "A"
    comparison = compare(inputs.frame, threshold=inputs.threshold, **inputs.pairing)
    counts = comparison.table["verdict"].value_counts()
    verdict = inputs.verdict_markdown(comparison)
    assert (
        f"**{counts.get('slower', 0)} slower, {counts.get('faster', 0)} faster, {counts.get('no change', 0)} no change, "
        f"{counts.get('inconclusive', 0)} inconclusive** (a change within ±5% is no change; that threshold is the run's "
        "own)."
    ) in verdict
    assert f"after {inputs.run.record['rounds']} rounds" in verdict
    assert report_inputs([run_path], threshold=0.1).threshold_from == "given"


def test_what_the_report_cannot_say_is_refused_by_name(tmp_path, run_path):
    files = [google_benchmark_file(tmp_path / f"{n}.json", rng=n) for n in range(3)]
    with pytest.raises(ValueError, match="3 files given; a report compares two at most"):
        report_inputs(files)
    with pytest.raises(ValueError, match="holds both versions: analyze it alone"):
        check_paths([run_path, files[0]])
    with pytest.raises(TypeError, match="not one path"):
        report_inputs(files[0])
    with pytest.raises(ValueError, match="relative change"):
        report_inputs([], threshold=np.inf)
