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


def test_what_the_rule_left_out_is_said_beside_its_own_verdicts(tmp_path, capsys, monkeypatch):
    """A round the rule could not judge (a time at or below the shell's start-up: no ratio), a benchmark it never
    judged, rounds on several hosts: the JSON and the table still carry the rule's own verdicts, which the exit
    status follows, and say what was left out. The JSON used to be the comparison of the file there, whose verdict
    could differ: a CI run printed "inconclusive" for a run whose exit status said it regressed."""
    import dataclasses

    from perfstudy.experiment import RunResult, run
    from perfstudy.experiment.run_table import json_document, text_table

    def no_second_analysis(self):
        raise AssertionError("the run's JSON analysed the file a second time")

    monkeypatch.setattr(RunResult, "comparison", property(no_second_analysis))
    out = tmp_path / "runs.csv"
    assert main(["run", "--a", "true", "--b", "true", "-N", "--out", str(out), "--format", "json", *RUN]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["benchmarks"][0]["rounds"] == 6 and document["said"] == [] and document["not_judged"] == []

    result = run("true", "true", shell=False, values=1, warmup=0, min_rounds=6, max_rounds=6, progress=False, seed=1)
    (row,) = result.verdicts
    zero = [{**r, "benchmark": "zero"} for r in result.rows[:2]]  # ran in A and B, never judged
    wider = dataclasses.replace(result, rounds=7, rows=result.rows + tuple(zero))
    said = json_document(wider)
    assert said["benchmarks"][0]["verdict"] == row["verdict"] and said["not_judged"] == ["zero"]
    assert (
        said["benchmarks"][0]["notes"][1]
        == "1 round of 7 left out: a time at or below the shell's start-up, no ratio B/A"
    )
    assert "Left out of the rule (a time at or below the shell's start-up: no ratio B/A): command 1 round of 7." in (
        text_table(wider)
    )
    assert "Not judged (a time at or below the shell's start-up in every round): zero." in text_table(wider)
    hosts = dataclasses.replace(result, rows=result.rows + ({**result.rows[0], "host": "w2"},))
    assert json_document(hosts)["hosts"][-1] == "w2"
    assert "Ran on 2 hosts" in text_table(hosts) and "tests a host effect" in json_document(hosts)["said"][-1]
