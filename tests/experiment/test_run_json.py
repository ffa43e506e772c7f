"""``perfstudy run --format json``: the numbers the run's table printed, in ``perfstudy compare``'s schema, with
no second analysis and no pandas."""

import json
import subprocess
import sys

import pytest

from perfstudy.cli import main

#: a command that spins: CPU time well above 0 in every round, so that the rule judges every round
SPIN = f"{sys.executable} -S -c 'for _ in range({{}}): pass'"

RUN = ["--values", "2", "--warmup", "1", "--min-rounds", "6", "--max-rounds", "6", "--seed", "4", "--no-progress"]

#: fields both documents hold, which mean the same thing in both
SAME = ("benchmark", "n_a", "n_b", "clusters_a", "clusters_b", "scale", "method", "higher_is_better", "verdict", "unit")
NUMBERS = ("estimate_a", "estimate_b", "spread_a", "spread_b", "change", "low", "high", "p_value", "p_adjusted")


def test_a_runs_json_is_what_compare_says_of_its_file(tmp_path, capsys):
    """Each benchmark's row is the one ``perfstudy compare`` recomputes from the run's file with pandas: the
    same keys, counts and words, and the same numbers to 1e-9 (the two sum in different orders)."""
    out = tmp_path / "runs.csv"
    status = main(["run", "--a", SPIN.format(100_000), "--b", SPIN.format(150_000), "--metric", "wall,cpu",
                   "--out", str(out), "--format", "json", *RUN])  # fmt: skip
    assert status == 0
    ran = json.loads(capsys.readouterr().out)
    assert [r["rounds"] for r in ran["benchmarks"]] == [6, 6]  # the table's rows: the judge's own document
    assert main(["compare", str(out), "--format", "json"]) == 0
    back = json.loads(capsys.readouterr().out)
    for key in ("schema", "statistic", "confidence", "threshold", "correction", "cluster", "labels", "warmup_dropped"):
        assert ran[key] == back[key], key
    assert ran["warmup_dropped"] == 2 * 2 * 6  # one warm-up run a batch, a row for each metric, two batches a round
    assert [r["benchmark"] for r in ran["benchmarks"]] == [r["benchmark"] for r in back["benchmarks"]]
    assert len(ran["benchmarks"]) == 2  # wall and cpu
    for mine, theirs in zip(ran["benchmarks"], back["benchmarks"]):
        assert set(theirs) <= set(mine)
        for key in SAME:
            assert mine[key] == theirs[key], (mine["benchmark"], key)
        for key in NUMBERS:
            if theirs[key] is None:
                assert mine[key] is None, (mine["benchmark"], key)
            else:
                assert mine[key] == pytest.approx(theirs[key], rel=1e-9, abs=1e-12), (mine["benchmark"], key)
        assert mine["notes"][0] == theirs["notes"][0]  # how it was judged, in the same words
    # a wall time and a CPU time, both in s, are two metrics: neither document averages them into a geomean
    assert ran["geomean"] == back["geomean"] == []


def test_a_runs_json_needs_no_pandas(tmp_path):
    """The table's numbers are the JSON's: printing it imports neither pandas nor scipy (0.9 s of a 1.3 s run
    of 200 /bin/true batches, when the JSON was a second, pandas comparison of the file)."""
    code = (
        "import sys\n"
        "from perfstudy.cli import main\n"
        f"status = main(['run', '--a', 'true', '--b', 'true', '-N', '--out', {str(tmp_path / 'r.csv')!r}, "
        f"'--format', 'json', *{RUN!r}])\n"
        "print(status, sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'scipy', 'matplotlib'}), "
        "file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stderr.strip().splitlines()[-1] == "0 []", done.stderr
    document = json.loads(done.stdout)
    assert document["benchmarks"][0]["clusters_a"] == 6 and document["stopped"] == "max-rounds"


def test_the_comparisons_json_where_the_table_would_leave_something_out(tmp_path, capsys, monkeypatch):
    """A benchmark or a round the rule could not judge (a statistic of 0 or below: no ratio; the comparison
    compares it as a difference), or rounds on several hosts (the comparison tests a host effect): the JSON is then the
    comparison of the file, so that no benchmark and no warning goes missing."""
    from types import SimpleNamespace

    from perfstudy.cli import _run

    def result(rows, judged, rounds=(6, 6)):
        return SimpleNamespace(
            rows=rows, rounds=rounds[0], verdicts=[{"benchmark": name, "rounds": rounds[1]} for name in judged]
        )

    ok = {"exit_status": 0, "host": "here"}
    assert _run._table_says_it_all(result([{"benchmark": "x", **ok}], ["x"]))
    assert not _run._table_says_it_all(result([{"benchmark": "x", **ok}, {"benchmark": "zero", **ok}], ["x"]))
    assert not _run._table_says_it_all(
        result([{"benchmark": "x", **ok}, {"benchmark": "x", **ok, "host": "w2"}], ["x"])
    )
    assert _run._table_says_it_all(
        result([{"benchmark": "x", **ok}, {"benchmark": "y", "exit_status": 3, "host": "here"}], ["x"])
    )
    # a round left out of the rule (a time of 0 or below after the shell's start-up) is in the comparison
    assert not _run._table_says_it_all(result([{"benchmark": "x", **ok}], ["x"], rounds=(6, 5)))
    # and the command line then prints the comparison's document, with the run's fields
    monkeypatch.setattr(_run, "_table_says_it_all", lambda result: False)
    out = tmp_path / "runs.csv"
    assert main(["run", "--a", "true", "--b", "true", "-N", "--out", str(out), "--format", "json", *RUN]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["benchmarks"][0]["clusters_a"] == 6 and document["stopped"] == "max-rounds"
    assert "rounds" not in document["benchmarks"][0]  # the comparison's row, not the table's
