"""perfstudy.io.pytest_benchmark against the real plugin's file: its rounds agree with its own stats."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from perfstudy.io import read


def _run(args, **kwargs):
    return subprocess.run(args, check=True, capture_output=True, text=True, timeout=600, **kwargs)


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


def test_two_real_runs_of_an_unchanged_test_are_never_faster_or_slower_unasked(pytest_benchmark_file, tmp_path, capsys):
    """Two pytest processes of the same tests: whatever the load did between them, the verdict waits for the
    user's --trust-one-process (tests/comparison/test_one_process.py plants the finding's -24%)."""
    from perfstudy.cli import main

    folder = pytest_benchmark_file.parent
    _run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--benchmark-json=again.json",
         "--benchmark-min-rounds=10", "--benchmark-max-time=0.05", "test_b.py"],
        cwd=folder,
    )  # fmt: skip
    assert main(["compare", str(pytest_benchmark_file), str(folder / "again.json"), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["benchmarks"]
    assert len(rows) == 2 and {row["verdict"] for row in rows} == {"inconclusive"}
