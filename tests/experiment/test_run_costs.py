"""What a batch costs beside how long it took (CPU time, peak memory), duet rounds, --prepare/--setup/--cleanup,
the run's own table and its Markdown, and the sign rule's A/A calibration on real commands under a load the
test toggles."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from perfstudy.cli import main
from perfstudy.experiment._run import run
from perfstudy.experiment.environment import NoisyMachineWarning

PYTHON = sys.executable


def allocates(megabytes: int) -> str:
    """A command whose peak RSS is about ``megabytes`` MB above the interpreter's own (about 10 MB)."""
    return f"{PYTHON} -S -c 'x = bytearray({megabytes} * 1000**2); x[::4096] = b\"1\" * len(x[::4096])'"


def spins(loops: int) -> str:
    return f"{PYTHON} -S -c 'for _ in range({loops}): pass'"


def test_a_b_that_allocates_three_times_the_memory_is_called_larger_on_rss(tmp_path, capsys):
    out = tmp_path / "rss.csv"
    status = main(["run", "--a", allocates(30), "--b", allocates(90), "--metric", "rss", "--values", "1",
                   "--warmup", "0", "--threshold", "10%", "--max-rounds", "20", "--seed", "1", "--no-progress",
                   "--out", str(out), "--fail-on-regression"])  # fmt: skip
    printed = capsys.readouterr().out
    assert status == 1, f"a memory regression is gated like a time regression: {printed}"
    line = next(line for line in printed.splitlines() if line.startswith("command:rss"))
    assert line.split()[-1] == "larger" and " MB" in line
    markdown = Path(f"{out}.md").read_text()
    assert "| command:rss |" in markdown and "larger" in markdown and f"`{allocates(30)}`" in markdown
    # the file records every run's CPU time and peak RSS; compare reads the judged metric back alike
    assert main(["compare", str(out), "--format", "json"]) == 0
    back = json.loads(capsys.readouterr().out)["benchmarks"][0]
    assert back["benchmark"] == "command:rss" and back["verdict"] == "slower" and 1.5 < 1 + back["change"] < 4


def test_cpu_time_is_judged_beside_wall_time(tmp_path):
    result = run(spins(200_000), spins(600_000), metric=["wall", "cpu"], values=1, warmup=0, threshold=0.05,
                 max_rounds=20, seed=2, out=tmp_path / "cpu.csv", progress=False)  # fmt: skip
    verdicts = {row["benchmark"]: row for row in result.verdicts}
    assert set(verdicts) == {"command", "command:cpu"}
    assert verdicts["command:cpu"]["verdict"] == "slower" and verdicts["command:cpu"]["unit"] == "s"
    rows = [row for row in result.rows if row["benchmark"] == "command:cpu"]
    assert all(0 < row["value"] < row["cpu"] + 1e-9 for row in rows), "the shell's CPU start-up is subtracted"


def test_a_duet_runs_both_versions_at_once_on_their_own_cpus(tmp_path):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("a duet needs two CPUs")
    with pytest.warns(NoisyMachineWarning) if len(os.sched_getaffinity(0)) == 2 else _nothing():
        result = run(spins(300_000), spins(300_000), duet=True, values=2, warmup=0, threshold=0.10, max_rounds=12,
                     seed=3, out=tmp_path / "duet.csv", progress=False)  # fmt: skip
    assert result.verdicts[0]["verdict"] in ("no change", "inconclusive")
    by_round = {}
    for row in result.rows:
        by_round.setdefault(row["round"], {})[row["version"]] = row
    for sides in by_round.values():
        a, b = sides["A"], sides["B"]
        assert {a["position"], b["position"]} == {0, 1}, "each version on a CPU slot of its own"
        assert a["start"] < b["end"] and b["start"] < a["end"], "the two batches overlap in time"
    assert len({sides["A"]["position"] for sides in by_round.values()}) == 2, "the CPUs swap between rounds"


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_a_duet_is_refused_for_a_callable():
    with pytest.raises(ValueError, match="duet: version A is a Python callable"):
        run(lambda: None, "true", duet=True, progress=False)


def test_prepare_setup_and_cleanup_run_where_they_say(tmp_path):
    log = tmp_path / "log"
    result = run("true", "true", values=1, warmup=0, min_rounds=3, max_rounds=3, threshold=0.5, seed=4,
                 prepare=f"echo prepare $PERFSTUDY_VERSION >> {log}", setup=f"echo setup $PERFSTUDY_VERSION >> {log}",
                 cleanup=f"echo cleanup $PERFSTUDY_VERSION >> {log}", out=tmp_path / "p.csv",
                 progress=False)  # fmt: skip
    lines = log.read_text().split("\n")[:-1]
    assert lines[:2] == ["setup A", "setup B"] and lines[-2:] == ["cleanup A", "cleanup B"]
    prepared = sorted(line for line in lines if line.startswith("prepare"))
    assert prepared == ["prepare A"] * result.rounds + ["prepare B"] * result.rounds


def test_a_failing_setup_stops_the_run_before_its_first_round(tmp_path, capsys):
    status = main(["run", "--a", "true", "--b", "true", "--setup", "echo nope >&2; exit 3", "--no-progress",
                   "--out", str(tmp_path / "s.csv")])  # fmt: skip
    assert status == 2
    assert "--setup for version A exited with status 3: nope" in capsys.readouterr().err


def test_a_peak_memory_at_the_measuring_floor_is_refused_not_called_no_change(tmp_path, capsys):
    """`true` peaks far below the ~10 MB of the process that spawns it: wait4 would report that process's
    floor for both versions, and "no change" whatever they did. The run refuses after its first round."""
    status = main(["run", "--a", "true", "--b", "true", "--metric", "rss", "--no-progress", "--out",
                   str(tmp_path / "f.csv")])  # fmt: skip
    assert status == 2
    said = capsys.readouterr().err
    assert "is at the floor of the process that spawns and measures it" in said and "GNU time -v" in said


def test_peak_memory_is_the_commands_own_not_the_runners(tmp_path):
    """The runner holds ~100 MB more than the command: the command's recorded peak stays near its own
    (a 50 MB buffer in a bare interpreter: 55-70 MB), as GNU time would report it."""
    ballast = bytearray(100 * 1000**2)
    ballast[::4096] = b"1" * len(ballast[::4096])
    result = run(allocates(50), allocates(50), metric="rss", values=1, warmup=0, min_rounds=2, max_rounds=2,
                 out=tmp_path / "m.csv", progress=False)  # fmt: skip
    peaks = [row["value"] for row in result.rows if row["benchmark"] == "command:rss"]
    assert all(50e6 < peak < 75e6 for peak in peaks), peaks
    del ballast


def test_metric_rss_is_refused_for_a_callable_and_a_format():
    with pytest.raises(ValueError, match="runs inside this process"):
        run(lambda: None, lambda: None, metric="rss", progress=False)
    with pytest.raises(ValueError, match="with measure='go' the values are what the command prints"):
        run("true", "true", metric="cpu", measure="go", progress=False)
    with pytest.raises(ValueError, match="are not metrics"):
        run("true", "true", metric="memory", progress=False)


_TOGGLE = """
import subprocess, sys, time, random
rng = random.Random(int(sys.argv[2]))
deadline = time.monotonic() + float(sys.argv[1])
spin = "import time\\nwhile time.monotonic() < %r: pass" % (deadline,)
on = []
while time.monotonic() < deadline:
    time.sleep(rng.uniform(0.3, 1.0))
    if on:
        for p in on: p.kill()
        on = []
    else:
        on = [subprocess.Popen([sys.executable, "-S", "-c", spin], start_new_session=True) for _ in range(3)]
for p in on: p.kill()
"""


def test_real_aa_runs_under_a_toggled_load_make_no_more_false_calls_than_the_rule_allows(tmp_path):
    """12 A/A runs of a real 4 ms command while three busy processes are switched on and off every 0.3-1 s.
    With the sign rule each run calls a change with probability at most 5%; more than 2 of 12 would happen
    with probability 1.96% (Binomial(12, 0.05)). Measured: 0 of 12."""
    command = spins(60_000)
    load = subprocess.Popen([PYTHON, "-S", "-c", _TOGGLE, "60", "7"])
    try:
        false_calls = []
        started = time.monotonic()
        for seed in range(12):
            result = run(command, command, values=1, warmup=0, threshold=0.02, max_rounds=40, seed=seed,
                         out=tmp_path / f"aa{seed}.csv", progress=False)  # fmt: skip
            verdict = result.verdicts[0]["verdict"]
            false_calls += [verdict] if verdict in ("slower", "faster") else []
            if time.monotonic() - started > 55:
                break
    finally:
        load.kill()
        load.wait()
    assert len(false_calls) <= 2, false_calls
