"""One process a side: pytest-benchmark's and criterion's rounds all run in one process, so their interval covers
only the noise within it. The finding: an unchanged test was called "faster", -24.2% [-31.0%, -16.9%], p 7.7e-9, at
load 4.5, because 80 and 158 rounds of one process each were read as independent batches. Such a benchmark's
verdict is "inconclusive", with a note beside the row, unless the user trusts one process."""

import json

import numpy as np
import pandas as pd
import pytest

from perfstudy.cli import main
from perfstudy.comparison import compare


def _pytest_benchmark(path, level: float, rounds: int, rng: int) -> str:
    """A pytest-benchmark file of one test whose rounds sit around ``level`` seconds (the process's own level)."""
    rng = np.random.default_rng(rng)
    data = (level * np.exp(rng.normal(0, 0.05, rounds))).tolist()
    bench = dict(name="test_sum", fullname="test_b.py::test_sum", params=None, group=None,
                 stats=dict(data=data, iterations=1, rounds=rounds, mean=float(np.mean(data))))  # fmt: skip
    path.write_text(json.dumps(dict(machine_info={"node": "ci"}, datetime="2026-11-26T10:00:00", benchmarks=[bench])))
    return str(path)


@pytest.fixture
def loaded_pair(tmp_path):
    """The same test, its second process 24% faster than its first: what load moved, not what the code did."""
    return _pytest_benchmark(tmp_path / "a.json", 1e-3, 80, 1), _pytest_benchmark(tmp_path / "b.json", 0.76e-3, 158, 2)


def test_two_pytest_benchmark_files_are_inconclusive_without_the_users_opt_in(loaded_pair, capsys):
    assert main(["compare", *loaded_pair, "--format", "json", "--seed", "1"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["benchmarks"]
    assert row["verdict"] == "inconclusive" and row["high"] < 0  # the interval alone would say "faster"
    assert any(n.startswith("one process a side") and "--trust-one-process" in n for n in row["notes"])
    assert main(["compare", *loaded_pair, "--seed", "1"]) == 0
    table = capsys.readouterr().out
    assert (
        "inconclusive" in table and "one process a side: the interval covers only the noise within one process" in table
    )


def test_trust_one_process_judges_by_the_interval_and_says_so(loaded_pair, capsys):
    assert main(["compare", *loaded_pair, "--trust-one-process", "--format", "json", "--seed", "1"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["benchmarks"]
    assert row["verdict"] == "faster"
    assert any("(judged by it: --trust-one-process)" in n for n in row["notes"])


def test_trust_one_process_where_nothing_ran_in_one_process_is_said_to_change_nothing(tmp_path, capsys):
    text = "goos: linux\n" + "".join(f"BenchmarkA-8\t100\t{v} ns/op\n" for v in (10, 11, 12, 10, 11))
    (tmp_path / "a.txt").write_text(text)
    (tmp_path / "b.txt").write_text(text)
    assert main(["compare", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--trust-one-process"]) == 0
    assert "--trust-one-process changed nothing: no benchmark ran in one process a side" in capsys.readouterr().out


def test_a_process_column_with_many_processes_a_side_is_judged_as_usual():
    rng = np.random.default_rng(4)
    rows = [
        dict(version=v, batch=f"{v}{b}", process=f"{v}{b}", value=level * np.exp(rng.normal(0, 0.01)))
        for v, level in (("A", 1.0), ("B", 1.2))
        for b in range(12)
    ]
    many = compare(pd.DataFrame(rows), rng=0).table.iloc[0]
    assert many["verdict"] == "slower" and not any("one process" in n for n in many["notes"])
    one = compare(pd.DataFrame(rows).assign(process=0), rng=0).table.iloc[0]
    assert one["verdict"] == "inconclusive" and one["notes"][-1].endswith("inconclusive unless trust_one_process=True")
    assert (
        compare(pd.DataFrame(rows).assign(process=0), trust_one_process=True, rng=0).table.iloc[0]["verdict"]
        == "slower"
    )
