"""What a batch costs beside how long it took (CPU time, peak memory), duet rounds, --prepare/--setup/--cleanup,
the run's own table and its Markdown, and the sign rule's A/A calibration on real commands under a load the
test toggles."""

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
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
    assert len({sides["A"]["position"] for sides in by_round.values()}) == 2, "the halves' order is drawn"
    slots = {}
    for row in result.rows:
        slots.setdefault((row["round"], row["version"]), set()).add(row["position"])
    assert all(found == {0, 1} for found in slots.values()), "a round's two halves swap the slots (the crossover)"
    assert all(sum(1 for r in result.rows if (r["round"], r["version"]) == key) == 4 for key in slots), "2 x values"


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
    with pytest.raises(ValueError, match="process are measured with measure='time'"):
        run("true", "true", metric="cpu", measure="go", progress=False)
    with pytest.raises(ValueError, match="are not metrics of a command's process"):
        run("true", "true", metric="memory", progress=False)


_GOOGLE_BENCHMARK = """
import json, random, sys
real = 1000 * random.lognormvariate(0, 0.01)
entry = dict(name="BM_Parse", run_name="BM_Parse", run_type="iteration", repetitions=1, repetition_index=0,
             threads=1, iterations=1000, real_time=real, cpu_time=real * float(sys.argv[1]), time_unit="ns")
print(json.dumps(dict(context=dict(date="2026-11-29T10:00:00+00:00", host_name="here"), benchmarks=[entry])))
"""


def test_run_measure_judges_the_harness_metric_chosen(tmp_path, capsys):
    """A Google Benchmark program whose CPU time is 30% more in B and whose real time is not: run --measure
    google_benchmark judges real time by default (never slower), and --metric cpu_time finds the 30%."""
    script = tmp_path / "bench.py"
    script.write_text(_GOOGLE_BENCHMARK)
    options = ["--measure", "google_benchmark", "--values", "2", "--warmup", "0", "--max-rounds", "12",
               "--no-progress", "--format", "json", "--seed", "1"]  # fmt: skip
    commands = ["--a", f"{PYTHON} -S {script} 1.0", "--b", f"{PYTHON} -S {script} 1.3"]
    main(["run", *commands, *options, "--out", str(tmp_path / "real.csv")])
    (real,) = json.loads(capsys.readouterr().out)["benchmarks"]
    assert real["verdict"] != "slower" and abs(real["change"]) < 0.05
    assert main(["run", *commands, *options, "--metric", "cpu_time", "--out", str(tmp_path / "cpu.csv")]) == 0
    document = json.loads(capsys.readouterr().out)
    (cpu,) = document["benchmarks"]
    assert cpu["benchmark"] == "BM_Parse" and cpu["verdict"] == "slower" and cpu["low"] < 0.30 < cpu["high"]
    assert json.loads((tmp_path / "cpu.csv.json").read_text())["settings"]["metric"] == ["cpu_time"]  # the record
    for name, metric in (("real", "real_time"), ("cpu", "cpu_time")):  # the table says which metric it judged
        assert (
            f"values from each command's google_benchmark output ({metric});"
            in (tmp_path / f"{name}.csv.md").read_text()
        )
    assert main(["run", *commands, *options, "--metric", "rss", "--out", str(tmp_path / "no.csv")]) == 2
    err = capsys.readouterr().err
    assert "--metric rss: a google_benchmark file's metrics are real_time, cpu_time" in err
    assert "are measured with --measure time" in err and not (tmp_path / "no.csv").exists()


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


@pytest.mark.slow  # 12 real runs under a toggled load: about 18 s
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


def _rows(values_a, values_b, probes=None):
    rows = []
    for r, (a, b) in enumerate(zip(values_a, values_b)):
        for version, value in (("A", a), ("B", b)):
            probe = probes[r] if probes is not None else 1e-4
            rows.append(dict(benchmark="command", version=version, batch=f"{r}-{version}", round=r, value=value,
                             warmup=False, exit_status=0, probe=probe, unit="s"))  # fmt: skip
    return rows


def _judge_of(rows, threshold=0.01):
    from perfstudy.experiment._judge import _Judge

    judge = _Judge(threshold, 0.95, "median", "sign")
    judge.add_rows(rows)
    return judge


def test_interference_is_said_once_per_kind_with_its_remedy():
    """Bimodal batches (a fifth of them 3x slower), a probe that slows by 60% over the run, rounds that spread
    by far more than 10% with no threshold (so no verdict of no change): each is warned about once, naming --duet
    and --metric cpu; a quiet run is not."""
    import numpy as np

    from perfstudy.experiment._interference import Interference

    rng = np.random.default_rng(1)
    n = 80
    slow = rng.random((2, n)) < 0.2
    values = 0.035 * np.where(slow, 3.0, 1.0) * rng.lognormal(0, 0.005, (2, n))
    probes = np.linspace(1e-4, 1.6e-4, n)
    rows = _rows(values[0], values[1], probes)
    judge = _judge_of(rows, threshold=0.0)
    check = Interference(0.0)
    with pytest.warns(NoisyMachineWarning) as caught:
        check.check(judge, rows, judge.state())
        check.check(judge, rows, judge.state())  # said once, not again
    said = [str(w.message) for w in caught]
    assert len(said) == 3, said
    assert any("batches ran 3.0 times as long" in s for s in said)
    assert any(re.search(r"probe is [3-6]\d% slower in the last quarter", s) for s in said)
    assert any(re.search(r"spreads by \d+% .*more than 10%, and no verdict yet", s) for s in said)
    assert all("--duet" in s and "--metric cpu" in s for s in said)
    quiet = _rows(0.035 * rng.lognormal(0, 0.003, n), 0.035 * rng.lognormal(0, 0.003, n))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Interference(0.01).check(_judge_of(quiet), quiet, _judge_of(quiet).state())


def test_a_run_file_of_an_earlier_perfstudy_reads_back_by_its_own_rule(tmp_path, capsys):
    """A file without the cpu and rss columns and a record without rule or statistic: compare reads it with
    Lai's t rule and the batch mean, the way it was run, and resume refuses it by name."""
    out = tmp_path / "old.csv"
    run(spins(100_000), spins(100_000), values=1, warmup=0, min_rounds=4, max_rounds=4, out=out, progress=False)
    frame = pd.read_csv(out).drop(columns=["cpu", "rss"])
    frame.to_csv(out, index=False)
    record = json.loads(Path(f"{out}.json").read_text())
    for key in ("rule", "statistic", "metric", "duet", "prepare", "setup", "cleanup"):
        record["settings"].pop(key)
    Path(f"{out}.json").write_text(json.dumps(record))
    assert main(["compare", str(out), "--format", "json"]) == 0
    back = json.loads(capsys.readouterr().out)
    assert back["benchmarks"][0]["method"] == "sequence"
    assert "each batch's mean (the run's own), rounds judged by the t rule" in back["said"]
    with pytest.raises(ValueError, match="written by an earlier perfstudy"):
        run(spins(100_000), spins(100_000), out=out, resume=True, progress=False)
