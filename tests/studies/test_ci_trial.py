"""The shared-runner trial's parts: the Go suite's repository and its plants, the peers' parsing and intervals, and
each method's scores against a count by hand. The trial itself runs once per test run, in notebook 11's test."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from perfstudy.studies.ci_trial import BENCHMARKS, PLANTS, SIZES, CITrial, _ns_per_op, _welch, ci_trial, go_suite

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _work(path: str, commit: str) -> list[int]:
    text = subprocess.run(["git", "-C", path, "show", f"{commit}:suite_test.go"], capture_output=True, text=True,
                          check=True).stdout  # fmt: skip
    return [int(w) for w in re.search(r"var work = \[\d+\]int\{([^}]*)\}", text).group(1).split(", ")]


@needs_git
def test_each_pull_request_plants_exactly_its_changes_in_the_work_table_and_nothing_else(tmp_path):
    suite = go_suite(tmp_path / "repo", pull_requests=3, rng=5)
    base = _work(suite.path, suite.base)
    assert base == [SIZES[i % len(SIZES)] for i in range(len(BENCHMARKS))]
    for request, head in enumerate(suite.heads, start=1):
        planted = suite.planted[suite.planted.pull_request == request].set_index("benchmark").planted
        assert sorted(planted[planted > 0]) == sorted(PLANTS) and (planted == 0).sum() == len(BENCHMARKS) - 4
        work = _work(suite.path, head)
        for name, before, after in zip(BENCHMARKS, base, work):
            assert after == round(before * (1 + planted[name]))  # 100 to 400 repetitions: +2% and +5% exact
        diff = subprocess.run(["git", "-C", suite.path, "diff", "--numstat", suite.base, head], capture_output=True,
                              text=True, check=True).stdout  # fmt: skip
        assert diff.split()[:3] == ["1", "1", "suite_test.go"]  # one line: the same code, other data


def test_go_output_is_read_per_benchmark_without_the_procs_suffix():
    text = (
        "goos: linux\nBenchmarkHash100-2   \t  3805\t      3404 ns/op\nBenchmarkSum100 \t 662\t 21026.5 ns/op\nPASS\n"
    )
    assert _ns_per_op(text) == {"BenchmarkHash100": [3404.0], "BenchmarkSum100": [21026.5]}


def test_the_peers_interval_is_welchs_on_the_log_values():
    rng = np.random.default_rng(1)
    a, b = rng.lognormal(0, 0.05, 10), rng.lognormal(0.03, 0.08, 7)
    low, high = _welch(list(a), list(b))
    ci = stats.ttest_ind(np.log(b), np.log(a), equal_var=False).confidence_interval(0.95)
    assert np.expm1([ci.low, ci.high]) == pytest.approx([low, high], rel=1e-10)


def test_scores_count_what_a_reader_would_count_by_hand():
    rows = []
    # pull request 1: an unchanged benchmark called slower (falsely red), the 5% found, the 2% missed
    # pull request 2: an unchanged benchmark called faster (a false alarm, not red), both found
    calls = {1: [(0.0, "slower", 0.04), (0.0, "", 0.02), (0.02, "", 0.03), (0.05, "slower", 0.01)],
             2: [(0.0, "faster", 0.05), (0.0, "", 0.06), (0.02, "slower", 0.02), (0.05, "slower", 0.02)]}  # fmt: skip
    for request, found in calls.items():
        for index, (planted, call, half) in enumerate(found):
            rows.append(dict(pull_request=request, method="m", benchmark=f"B{index}", planted=planted, call=call,
                             verdict=call, change=planted, low=planted - half, high=planted + half,
                             machine_seconds=30.0 * request, rounds=5))  # fmt: skip
    trial = CITrial(table=pd.DataFrame(rows), methods=("m",), seconds=60, threshold=0.01, gate=0.02, batch="2ms",
                    benchtimes={}, load=(1.0, 1.0), left_out={})  # fmt: skip
    (score,) = trial.scores().to_dict("records")
    assert score["falsely_red"] == 1 and score["pull_requests"] == 2
    assert score["false_alarms"] == pytest.approx(2 / 4) and score["unchanged"] == 4
    assert (score["found_2"], score["planted_2"], score["found_5"], score["planted_5"]) == (1, 2, 2, 2)
    assert score["median_half_width"] == pytest.approx(np.median([0.04, 0.02, 0.03, 0.01, 0.05, 0.06, 0.02, 0.02]))
    assert score["machine_minutes"] == pytest.approx((30 + 60) / 2 / 60)


def test_bad_input_is_refused_by_name(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="methods"):
        ci_trial(1, methods=("interleaved", "hyperfine"))
    with pytest.raises(ValueError, match="seconds"):
        ci_trial(1, seconds=0)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(ValueError, match="not empty"):
        go_suite(tmp_path / "full")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match="go is not on PATH: .*apt-get install golang-go"):
        ci_trial(1)
