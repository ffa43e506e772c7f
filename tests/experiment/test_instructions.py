"""The metric ``instructions``: a command's instructions as Valgrind counts them, the shell's left out, judged as a
benchmark of its own beside time, a disagreement with time said, and a machine or command it cannot count refused
by name."""

import json
import shutil
import subprocess

import pytest

from perfstudy.cli import main
from perfstudy.experiment import run
from perfstudy.experiment.batches import Batch, time_batch
from perfstudy.experiment.commands import SHELL
from perfstudy.experiment.instructions import COUNTER_OPTIONS, _count, instruction_counter

pytestmark = [
    pytest.mark.filterwarnings("ignore::perfstudy.experiment.environment.NoisyMachineWarning"),
    pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("cc") is None, reason="valgrind and cc"),
]

#: a loop of a known length: each iteration is the same few instructions
LOOP = "int main(void) { volatile unsigned long x = 0; for (unsigned long i = 0; i < WORK; i++) x += i; return 0; }\n"


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("programs")
    built = {}
    for name, source, work in (("loop1", LOOP, 1_000_000), ("loop2", LOOP, 2_000_000), ("loop1b", LOOP, 1_000_000)):
        (folder / f"{name}.c").write_text(source)
        subprocess.run(["cc", "-O1", f"-DWORK={work}", f"{name}.c", "-o", name], cwd=folder, check=True)
        built[name] = str(folder / name)
    return built


def _valgrind(program: str) -> int:
    """Valgrind's own count of one run of ``program``, from its summary line."""
    done = subprocess.run(["valgrind", *COUNTER_OPTIONS, program], capture_output=True, text=True, check=True)
    (line,) = [line for line in done.stderr.splitlines() if "I   refs:" in line]
    return int(line.split(":")[1].replace(",", ""))


def test_a_loop_counts_what_valgrind_counts_and_its_length_exactly(programs):
    """Against valgrind's own output for the program alone: the shell that runs the line is left out; a loop of
    twice the length is exactly 1,000,000 iterations more of the same instructions, in every run."""
    direct = {name: _valgrind(programs[name]) for name in ("loop1", "loop2")}
    batch = Batch("A", (SHELL, "-c", programs["loop1"]), 0, 0, values=3, warmup=1, metrics=("instructions",))
    counted = [row["value"] for row in time_batch(batch).rows]
    assert len(counted) == 3 and len(set(counted)) == 1  # the warm-up is not counted; every count the same
    # the environment the command is given differs from the shell's: its start-up reads it (a few hundred)
    assert abs(counted[0] - direct["loop1"]) < 2_000
    per_iteration = (direct["loop2"] - direct["loop1"]) / 1_000_000
    assert per_iteration == int(per_iteration) and 3 <= per_iteration <= 8  # gcc -O1: load, add, store, compare
    two = Batch("A", (SHELL, "-c", f"{programs['loop1']} && {programs['loop1']}"), 0, 0, values=1, warmup=0,
                metrics=("instructions",))  # fmt: skip
    (row,) = time_batch(two).rows
    assert abs(row["value"] - 2 * counted[0]) < 2_000  # two children of the shell, and not the shell


def test_the_count_is_each_process_but_the_shell_that_runs_the_line(tmp_path):
    """From logs as valgrind writes them: a shell that forked its commands is left out; a shell that exec'd its
    command left only the command's log (the same pid), which counts; a log without a sum is said."""
    logs = tmp_path / "forked"
    logs.mkdir()
    (logs / "100").write_text(
        f"==100== Command: {SHELL} -c ./a && ./b\n==100== Parent PID: 7\n==100== I   refs:      226,378\n"
    )
    (logs / "101").write_text("==101== Command: ./a\n==101== Parent PID: 100\n==101== I   refs:      6,124,166\n")
    (logs / "102").write_text("==102== Command: ./b\n==102== Parent PID: 100\n==102== I   refs:      1,000\n")
    assert _count(str(logs), (SHELL, "-c", "./a && ./b"), parent=7) == (6_125_166, "")
    assert not logs.exists()  # removed once read
    logs.mkdir()
    (logs / "100").write_text("==100== Command: ./a\n==100== Parent PID: 7\n==100== I   refs:      6,124,166\n")
    assert _count(str(logs), (SHELL, "-c", "./a"), parent=7) == (6_124_166, "")
    logs.mkdir()
    (logs / "100").write_text("==100== Command: ./a\n==100== Parent PID: 7\n")
    assert _count(str(logs), ("./a",), parent=7) == (None, "valgrind summed no instructions of './a' (it ended "
                                                           "before valgrind could count it)")  # fmt: skip


@pytest.mark.slow  # about 10 s: valgrind runs a program 20 to 100 times slower
def test_more_instructions_but_faster_is_a_disagreement_in_the_table_and_the_json(programs, tmp_path, capsys):
    """A waits 30 ms and works little (``sleep``: about 0.2M instructions); B works for about 2 ms (the 1M loop: 6.1M
    instructions). Instructions do not see waiting, as they do not see a parallel speed-up: each metric keeps its
    own verdict, and the table and the JSON say they disagree. (A chain of 1M divisions against 1.5M
    multiplications, 5.0 against 2.9 ms, disagreed so too, but its wall time took 40 rounds and more under CI's
    load, each with two runs under valgrind.)"""
    out = tmp_path / "wait.csv"
    status = main(["run", "--a", "sleep 0.03", "--b", programs["loop1"], "--metric", "wall,instructions",
                   "--values", "1", "--warmup", "0", "--max-rounds", "40", "--no-progress", "--out", str(out),
                   "--format", "json"])  # fmt: skip
    document = json.loads(capsys.readouterr().out)
    verdicts = {row["benchmark"]: row["verdict"] for row in document["benchmarks"]}
    assert verdicts == {"command": "faster", "command:instructions": "slower"}, document["benchmarks"]
    (disagreement,) = document["disagreements"]
    assert (disagreement["benchmark"], disagreement["instructions"], disagreement["time"]) == (
        "command",
        "slower",
        "faster",
    )
    assert status == 0
    record = json.loads((tmp_path / "wait.csv.json").read_text())
    assert record["instruction_counter"] == instruction_counter()
    assert main(["compare", str(out)]) == 0  # the file read back says it too
    assert "Instructions and time disagree on command: more instructions" in capsys.readouterr().out


@pytest.mark.slow  # about 6 s
def test_identical_builds_count_no_change_as_soon_as_the_rule_can_say(programs):
    """A/A on two copies of one build: every round's counts are equal, and the sign rule says "no change", with an
    interval of width 0, as soon as it can say anything at 95% (9 rounds, as for any change every round shows:
    the disagreement test above finds one so)."""
    same = run(programs["loop1"], programs["loop1b"], metric="instructions", values=1, warmup=0, max_rounds=20,
               progress=False, seed=0)  # fmt: skip
    (row,) = same.verdicts
    assert (row["verdict"], same.rounds) == ("no change", 9)
    # not 0: each batch's environment is padded by 0-4095 bytes (randomised layout), which the program's start-up
    # reads, and the two paths differ in length: tens of instructions of 6.1 million
    assert max(abs(row["change"]), abs(row["low"]), abs(row["high"])) < 1e-4


def test_what_cannot_be_counted_is_refused_by_name(programs, tmp_path, monkeypatch):
    """A callable (it runs in this process); a program valgrind cannot start; a machine without valgrind, with the
    package to install."""
    with pytest.raises(ValueError, match=r"metric='instructions': version A's callable runs inside this process"):
        run(lambda: None, programs["loop1"], metric="instructions", progress=False)
    batch = Batch("A", ("/nonexistent/program",), 0, 0, values=1, warmup=0, metrics=("instructions",))
    failed = time_batch(batch)
    assert failed.status != 0 and failed.stderr.startswith("under valgrind: ")
    monkeypatch.setenv("PATH", str(tmp_path))  # no valgrind on it (the commands are given by their paths)
    with pytest.raises(
        ValueError, match=r"not installed here; install it \(Debian and Ubuntu: apt-get install valgrind\)"
    ):
        run(programs["loop1"], programs["loop2"], metric="wall,instructions", progress=False)
