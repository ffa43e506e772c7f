"""perfstudy bisect: from a good and a bad commit to the first that changed the benchmark, each step an interleaved
run, the error of the whole bisect bounded by Bonferroni over its steps."""

from __future__ import annotations

import json
import math
import shutil
import subprocess

import pytest
from scipy import stats

from perfstudy.cli import main
from perfstudy.experiment.bisection import bisect, step_confidence
from perfstudy.experiment.settings import UNBOUNDED_ROUNDS

#: c0-c4 sleep 10 ms, c5 and after 13 ms (+30%), and c6 does not build
BENCH = """#!/bin/sh
case "$1" in
  c0|c1|c2|c3|c4) sleep 0.010 ;;
  c6) exit 3 ;;
  *) sleep 0.013 ;;
esac
"""


def _holds(span, commit: str) -> bool:
    """Whether the range (first, last) of c<i> commits holds ``commit``."""
    return int(span[0][1:]) <= int(commit[1:]) <= int(span[-1][1:])


@pytest.fixture
def bench(tmp_path):
    path = tmp_path / "bench.sh"
    path.write_text(BENCH)
    return f"sh {path} {{commit}}"


@pytest.mark.parametrize(("commits", "steps"), [(2, 1), (3, 2), (9, 4), (10, 5), (17, 5), (1025, 11)])
def test_each_step_gets_the_bisects_error_split_over_the_steps_it_can_take(commits, steps):
    """K = 1 + ceil(log2(commits - 1)): the bad commit, then halving; each step at 1 - alpha / K (Bonferroni)."""
    level, k = step_confidence(0.95, commits)
    assert k == steps == 1 + math.ceil(math.log2(commits - 1))
    assert level == pytest.approx(1 - 0.05 / steps)


@pytest.mark.slow  # real commands: four steps of about 12 rounds
def test_a_planted_slowdown_is_found_at_its_commit_and_a_broken_commit_is_skipped(bench, tmp_path):
    # a 10% threshold against the planted 30%: at a load of 6 an A/A step's interval was still +-7% after 200
    # rounds, so a 5% threshold left it undecided (which the bisect then says, with the range)
    result = bisect([f"c{i}" for i in range(10)], bench, threshold=0.1, progress=False, out=tmp_path / "b.json")
    assert [s["commit"] for s in result.steps][0] == "c9"  # the bad commit first: is there a change at all
    assert result.confidence == pytest.approx(0.95) and result.step_confidence == pytest.approx(0.99)
    # never a wrong culprit: on a quiet machine c5 in about 4 steps; on a loaded one (a load of 4-6 beside it) a step
    # can reach its budget undecided, and the bisect then gives the range that still holds c5
    assert result.culprit in ("c5", None), result.steps
    assert all(s["meaning"] != "at or before" for s in result.steps if s["commit"] in ("c1", "c2", "c3", "c4"))
    if result.culprit is None:
        assert result.stopped == "undecided" and _holds(result.range, "c5"), result
        return
    assert result.range == ("c5", "c5") and result.direction == "slower" and result.stopped == "found"
    assert "c6" in result.skipped or "c6" not in [s["commit"] for s in result.steps]
    saved = json.loads((tmp_path / "b.json").read_text())
    assert saved["culprit"] == "c5" and len(saved["steps"]) == len(result.steps)
    text = result.format()
    assert text.startswith("culprit: c5, slower beyond the threshold")


@pytest.mark.slow  # 20 bisects of real commands, about 1.5 s each
def test_repeated_bisects_of_a_range_without_a_change_name_no_more_culprits_than_the_bound(tmp_path):
    """20 A/A ranges: a wrong culprit needs a step to err, at most 5% of bisects. With 20 bisects at that bound,
    4 or more culprits has binomial probability 0.016; the test allows 3."""
    runs = 20
    culprits = sum(
        bisect([f"c{i}" for i in range(8)], "sleep 0.01 # {commit}", seed=seed, progress=False).culprit is not None
        for seed in range(runs)
    )
    assert stats.binom.sf(3, runs, 0.05) < 0.02
    assert culprits <= 3


def test_bad_input_is_refused_by_name(bench):
    with pytest.raises(ValueError, match=r"commits: \['c1'\] appear more than once"):
        bisect(["c0", "c1", "c1"], bench, progress=False)
    with pytest.raises(ValueError, match="no {commit} in it"):
        bisect(["c0", "c1"], "sleep 0.01", progress=False)
    with pytest.raises(ValueError, match="threshold=0: a bisect needs a threshold above 0"):
        bisect(["c0", "c1"], bench, threshold=0, progress=False)
    with pytest.raises(ValueError, match="commits: 1 given"):
        bisect(["c0"], bench, progress=False)
    with pytest.raises(TypeError, match="scheduler: bisect sets it"):
        bisect(["c0", "c1"], bench, scheduler="local:2", progress=False)


def test_each_steps_round_budget_is_200_unless_max_time_alone_is_given(bench, monkeypatch):
    # before, --max-time 60s was cut at the default 200 rounds: a step stopped long before the time it was given
    import perfstudy.experiment._run as module

    budgets = []
    real = module.run

    def spy(a, b, *, settings, **options):
        budgets.append((settings.max_rounds, settings.max_time))
        quick = settings.replace(max_rounds=2, min_rounds=2, max_time=None, values=1, warmup=0)
        return real(a, b, settings=quick, **options)

    monkeypatch.setattr(module, "run", spy)
    for given in (dict(), dict(max_time="60s"), dict(max_time="60s", max_rounds=30)):
        budgets.clear()
        bisect(["c0", "c1"], bench, progress=False, **given)
        seconds = 60.0 if "max_time" in given else None
        assert budgets == [(given.get("max_rounds", 200 if not given else UNBOUNDED_ROUNDS), seconds)]


def test_a_step_left_undecided_says_which_budget_stopped_it(tmp_path, capsys):
    commits = tmp_path / "commits.txt"
    commits.write_text("c0\nc1\n")
    # an A/A pair against a threshold of 0.01%: no interval of a few rounds is inside it, or (at 99.9%) beyond it
    code = main(["bisect", "--commits", str(commits), "--command", "sleep 0.002 # {commit}", "--threshold", "0.01%",
                 "--confidence", "99.9%", "--max-rounds", "6", "--values", "1", "--warmup", "0", "--no-progress"])  # fmt: skip
    shown = capsys.readouterr().out
    assert code == 0, shown
    assert "inconclusive (max-rounds)" in shown
    assert "A step left undecided stopped at its budget (max-rounds): its interval" in shown
    assert "is wider than the +-0.01% band. Give more rounds (--max-rounds, --max-time" in shown  # an A/A step


def test_a_loaded_machine_is_warned_of_once_not_at_every_step(tmp_path, capsys, monkeypatch):
    """Each step read the machine again and printed its load warning again, its load average a little different."""
    from perfstudy.experiment import environment

    loads = iter(range(100))
    monkeypatch.setattr(environment, "machine_warnings", lambda record: [f"the machine is loaded: {next(loads)}.5"])
    commits = tmp_path / "commits.txt"
    commits.write_text("c0\nc4\nc5\n")
    # c5 takes twice c4's time: two steps, each decided at a load of 9 (BENCH's 30% at 10% read +18% [+8%, +26%] after
    # 200 rounds there: undecided, and the bisect stopped at its first step)
    script = tmp_path / "twice.sh"
    script.write_text('case "$1" in c5) sleep 0.020 ;; *) sleep 0.010 ;; esac\n')
    code = main(["bisect", "--commits", str(commits), "--command", f"sh {script} {{commit}}", "--threshold", "10%",
                 "--no-progress"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 0, err
    assert next(loads) == 2  # read at each of the two steps
    # the planted warning's own words: on a really loaded machine the run's batches may also be said to vary
    # ("... on a loaded machine ..."), which is another warning, rightly given
    assert [line for line in err.splitlines() if "the machine is loaded: " in line] == [
        "perfstudy bisect: warning: the machine is loaded: 0.5"
    ]


def test_a_command_that_takes_no_time_through_the_shell_fails_the_first_step_by_name(tmp_path, capsys):
    """The shell's builtin true spent 200 rounds a step, then advised more rounds: its time less the shell's
    start-up is the start-up's own noise. A real run through /bin/sh: the first step stops within its first rounds (judged every 5)."""
    commits = tmp_path / "commits.txt"
    commits.write_text("c0\nc1\nc2\n")
    code = main(["bisect", "--commits", str(commits), "--command", "true {commit}", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "the first step, the bad commit c2 against the good one c0, failed: the command took" in err
    assert (
        "of CPU time beyond the shell's start-up (" in err
        and "in the median of its last 5 rounds: under a tenth" in err
    )
    assert "too short to time through a shell; run it without one (--no-shell)" in err and "--max-rounds" not in err


def test_the_command_line_refuses_unusable_input_with_one_line(tmp_path, capsys):
    commits = tmp_path / "commits.txt"
    commits.write_text("c0\nc1\n")
    assert main(["bisect", "--commits", str(commits), "--command", "sleep 0.01"]) == 2
    assert "--command 'sleep 0.01': no {commit} in it" in capsys.readouterr().err
    assert main(["bisect", "--command", "x {commit}"]) == 2
    assert "give --commits FILE, or --good and --bad" in capsys.readouterr().err
    assert main(["bisect", "--commits", str(tmp_path / "none"), "--command", "x {commit}"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["bisect", "--commits", str(commits), "--command", "x {commit}", "--max-time", "30"]) == 2
    assert "--max-time 30: a bare number has no unit; write 30s" in capsys.readouterr().err
    assert main(["bisect", "--commits", str(commits), "--command", "nosuchprogram {commit}"]) == 2
    assert "--command: command not found: 'nosuchprogram'" in capsys.readouterr().err


def test_each_steps_run_takes_the_command_lines_options_and_hooks_get_each_versions_commit(tmp_path, capsys):
    # before, bisect had no --statistic, --rule, --setup...: the library passed them, the command line could not
    commits = tmp_path / "commits.txt"
    commits.write_text("c0\nc1\n")
    log = tmp_path / "setup.log"
    out = tmp_path / "b.json"
    code = main(["bisect", "--commits", str(commits), "--command", "sleep 0.03 # {commit}", "--threshold", "50%",
                 "--statistic", "min", "--rule", "t", "--values", "2", "--warmup", "0",
                 "--setup", f"echo $PERFSTUDY_VERSION {{commit}} >> {log}", "--out", str(out), "--format", "json",
                 "--no-progress"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    assert sorted(log.read_text().split("\n")[:2]) == ["A c0", "B c1"]  # the good commit for A, the step's for B
    recorded = json.loads(out.read_text())["settings"]["run_options"]
    assert recorded == {"rule": "t", "setup": f"echo $PERFSTUDY_VERSION {{commit}} >> {log}", "statistic": "min",
                        "values": 2, "warmup": 0}  # fmt: skip
    # a resumed bisect with another step option is another bisect
    assert main(["bisect", "--commits", str(commits), "--command", "sleep 0.03 # {commit}", "--threshold", "50%",
                 "--statistic", "median", "--out", str(out), "--resume"]) == 2  # fmt: skip
    assert "run_options differs from the bisect in" in capsys.readouterr().err
    assert main(["bisect", "--commits", str(commits), "--command", "x {commit}", "-N", "--setup", "y {commit}"]) == 2
    assert (
        "--setup 'y {commit}': a hook with {commit} runs each version's commit through the shell; drop --no-shell"
        in (capsys.readouterr().err)
    )
    with pytest.raises(ValueError, match="measure='go': a harness's output holds many benchmarks, and a bisect"):
        bisect(["c0", "c1"], "x {commit}", measure="go", progress=False)


def _git_repository(tmp_path, delays: list[str]):
    """A git repository of one commit per delay, each writing it to the file ``delay``; its path and the commits'
    hashes, oldest first."""
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args):
        return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    git("config", "user.email", "t@example.org")
    git("config", "user.name", "t")
    for i, delay in enumerate(delays):
        (repo / "delay").write_text(delay)
        git("add", "delay")
        git("commit", "-q", "--allow-empty", "-m", f"commit {i}")
    return repo, git("rev-list", "--reverse", "HEAD").split()


@pytest.mark.slow  # a real git repository and real commands
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_good_and_bad_inside_a_git_repository_find_the_commit_that_slowed_it(tmp_path, capsys, monkeypatch):
    repo, hashes = _git_repository(tmp_path, ["0.010"] * 3 + ["0.014"] * 3)
    monkeypatch.chdir(repo)
    template = f"sleep $(git -C {repo} show {{commit}}:delay)"
    code = main(
        [
            "bisect",
            "--good",
            hashes[0],
            "--bad",
            hashes[-1],
            "--command",
            template,
            "--no-progress",
            "--format",
            "json",
            "--max-time",
            "2m",
            "--threshold",
            "15%",
        ]
    )  # fmt: skip  (+40% planted)
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    # never a wrong commit: the 4th, or under a heavy load the range that still holds it
    assert doc["culprit"] in (hashes[3], None), doc["steps"]
    if doc["culprit"] is None:
        first, last = hashes.index(doc["range"][0]), hashes.index(doc["range"][-1])
        assert doc["stopped"] == "undecided" and first <= 3 <= last, doc
    else:
        assert doc["range"] == [hashes[3], hashes[3]] and doc["direction"] == "slower"
    assert main(["bisect", "--good", hashes[-1], "--bad", hashes[0], "--command", template]) == 2
    assert "does not descend from" in capsys.readouterr().err


@pytest.mark.slow  # real commands
def test_a_resumed_bisect_runs_only_the_commits_it_had_not_measured(bench, tmp_path, capsys):
    out = tmp_path / "b.json"
    commits = [f"c{i}" for i in range(10)]
    first = bisect(commits, bench, threshold=0.1, progress=False, out=out)
    again = bisect(commits, bench, threshold=0.1, progress=True, out=out, resume=True)
    assert again.culprit == first.culprit or first.culprit is None  # c5, or the range a loaded machine left
    settled = [
        s["commit"] for s in first.steps if s["meaning"] in ("later", "at or before", "none in the range", "skipped")
    ]
    ran = capsys.readouterr().err
    assert not any(f": {commit} against" in ran for commit in settled)  # a settled step in the file: not run again
    if first.culprit is not None:
        assert [(s["commit"], s["meaning"]) for s in again.steps] == [(s["commit"], s["meaning"]) for s in first.steps]
        assert "bisect step" not in ran
    with pytest.raises(ValueError, match="threshold differs from the bisect in"):
        bisect(commits, bench, threshold=0.2, progress=False, out=out, resume=True)
    with pytest.raises(ValueError, match="exists; resume=True continues that bisect"):
        bisect(commits, bench, threshold=0.1, progress=False, out=out)
    (tmp_path / "commits.txt").write_text("\n".join(commits))
    assert main(["bisect", "--commits", str(tmp_path / "commits.txt"), "--command", bench, "--resume"]) == 2
    assert "--resume: needs --out" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_good_and_bad_are_fixed_to_hashes_before_anything_runs(tmp_path, monkeypatch):
    """--good HEAD~3 was passed on as text: each step's checkout moved HEAD, and HEAD~3 named another commit at every
    step (a wrong culprit, exit 0). The commits are the hashes the names had when the bisect began."""
    import argparse

    from perfstudy.cli._bisect import _commits

    repo, hashes = _git_repository(tmp_path, ["0.010"] * 4)
    monkeypatch.chdir(repo)
    assert _commits(argparse.Namespace(commits=None, good="HEAD~3", bad="HEAD")) == hashes
    with pytest.raises(ValueError, match="--good nosuch: not a commit of the git repository at "):
        _commits(argparse.Namespace(commits=None, good="nosuch", bad="HEAD"))


@pytest.fixture
def steps(monkeypatch):
    """Each step's run stood in for: c5 and after +30% (interval [+25%, +35%]), the rest [-1%, +1%]. ``steps(c2=
    dict(stopped="interrupted", signal=15))`` ends c2's run otherwise; ``.ran`` lists the commits run."""
    from types import SimpleNamespace

    import perfstudy.experiment._run as module

    def make(**events):
        ran: list[str] = []

        def run(a, b, *, settings, **options):
            commit = b.split()[-1]
            ran.append(commit)
            event = events.pop(commit, {})
            low, high = (0.25, 0.35) if int(commit[1:]) >= 5 else (-0.01, 0.01)
            verdict = dict(verdict="slower" if low > 0 else "no change", change=(low + high) / 2, low=low, high=high)
            if event.get("stopped") in ("interrupted", "max-rounds"):
                verdict = dict(verdict="inconclusive", change=0.1, low=-0.5, high=0.9)
            found = dict(verdicts=[verdict], failure="", rounds=12, cleanup="", signal=None, stopped="decided")
            return SimpleNamespace(**(found | event))

        monkeypatch.setattr(module, "run", run)
        return SimpleNamespace(ran=ran)

    return make


COMMITS = [f"c{i}" for i in range(10)]


def test_an_interrupted_step_stops_the_bisect_as_interrupted_and_resume_runs_it_again(steps, tmp_path):
    """SIGTERM (a CI job's time-out) during a step: the bisect was written as finished "undecided" and exited 0, and
    --resume took the interrupted step as measured."""
    out = tmp_path / "b.json"
    first = steps(c6=dict(stopped="interrupted", signal=15))
    stopped = bisect(COMMITS, "x {commit}", threshold=0.1, progress=False, out=out)
    assert first.ran == ["c9", "c4", "c6"]
    assert stopped.stopped == "interrupted" and stopped.culprit is None and stopped.exit_status == 143
    assert stopped.range == ("c5", "c9")  # what the steps before it had found: c4 unchanged, c9 slower
    assert [s["meaning"] for s in stopped.steps] == ["at or before", "later", "interrupted"]
    assert stopped.format().startswith(
        "INTERRUPTED by SIGTERM at step 3; so far the change lies in the commits c5 to c9, both included"
    )
    assert json.loads(out.read_text())["stopped"] == "interrupted"
    again = steps()
    resumed = bisect(COMMITS, "x {commit}", threshold=0.1, progress=False, out=out, resume=True)
    assert again.ran == ["c6", "c5"]  # c9 and c4 were settled; c6's interrupted step is not taken as measured
    assert resumed.culprit == "c5" and resumed.exit_status == 0


def test_a_signal_as_a_step_decides_stops_the_bisect_after_that_step(steps, tmp_path):
    """Ctrl-C that came as a step's last round decided was swallowed: the bisect went on to the next step."""
    out = tmp_path / "b.json"
    first = steps(c4=dict(signal=2))
    stopped = bisect(COMMITS, "x {commit}", threshold=0.1, progress=False, out=out)
    assert first.ran == ["c9", "c4"] and stopped.stopped == "interrupted" and stopped.exit_status == 130
    assert stopped.steps[-1]["meaning"] == "later"  # the step is whole, and kept
    again = steps()
    assert bisect(COMMITS, "x {commit}", threshold=0.1, progress=False, out=out, resume=True).culprit == "c5"
    assert "c4" not in again.ran


def test_an_undecided_step_runs_again_on_resume_with_the_budget_given_now(steps, tmp_path):
    """The advice "raise --max-rounds" looped: resume took the step its budget stopped as measured, ran 0 rounds."""
    out = tmp_path / "b.json"
    steps(c4=dict(stopped="max-rounds"))
    assert bisect(COMMITS, "x {commit}", threshold=0.1, progress=False, out=out).stopped == "undecided"
    again = steps()
    resumed = bisect(COMMITS, "x {commit}", threshold=0.1, max_rounds=400, progress=False, out=out, resume=True)
    assert again.ran[0] == "c4" and resumed.culprit == "c5"


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda step: step.update(verdict="faster"), r"step 2 is damaged or was edited \(verdict 'faster' \(later\)"),
        (lambda step: step.update(verdict="maybe"), r"step 2 is damaged or was edited \(verdict 'maybe'"),
        (lambda step: step.pop("low"), r"step 2 is damaged or was edited \(no 'low'\)"),
        (lambda step: step.update(commit="c8"), r"commit 'c8' at index 4, where the bisect has it at 8"),
        (lambda step: step.update(commit="zz"), r"commit 'zz' is not one of the bisect's"),
    ],
)
def test_a_damaged_or_edited_bisect_file_is_refused_naming_the_step(steps, tmp_path, edit, said):
    """A step edited to "faster" made a wrong culprit; a bogus verdict ended the bisect "undecided"; a missing key
    gave a traceback."""
    out = tmp_path / "b.json"
    steps()
    bisect(COMMITS, "x {commit}", threshold=0.1, progress=False, out=out)
    document = json.loads(out.read_text())
    edit(document["steps"][1])
    out.write_text(json.dumps(document))
    again = steps()
    with pytest.raises(ValueError, match=said):
        bisect(COMMITS, "x {commit}", threshold=0.1, progress=False, out=out, resume=True)
    assert again.ran == []
    out.write_text(out.read_text()[:100])  # cut short
    with pytest.raises(ValueError, match="not a bisect's file"):
        bisect(COMMITS, "x {commit}", threshold=0.1, progress=False, out=out, resume=True)


def test_a_failed_cleanup_is_said_under_the_table(steps):
    steps(c4=dict(cleanup="version B exited with status 1: rm: cannot remove 'wt-c4'"))
    result = bisect(COMMITS, "x {commit}", threshold=0.1, progress=False)
    assert "CLEANUP FAILED at step 2 (c4): version B exited with status 1: rm: cannot remove 'wt-c4'" in result.format()
    assert result.exit_status == 2  # the answer stands, but a failed hook is never exit 0


def test_a_commit_name_the_shell_would_read_is_refused_before_anything_runs(steps, tmp_path):
    """{commit} went into the shell line as it was: a commit named 'c1;touch FILE' ran touch."""
    ran = steps()
    with pytest.raises(ValueError, match=r"commits: 'c1;touch FILE' is not a plain commit name.*git rev-parse"):
        bisect(["c0", "c1;touch FILE", "c2"], "x {commit}", progress=False)
    with pytest.raises(ValueError, match=r"'HEAD~3' is not a plain commit name"):
        bisect(["HEAD~3", "HEAD"], "x {commit}", progress=False)
    assert ran.ran == []


def test_a_commits_file_with_a_byte_order_mark_and_indented_notes(steps, tmp_path, capsys):
    """An indented '# note' line became the good commit; a UTF-8 byte-order mark broke the first commit."""
    ran = steps()
    commits = tmp_path / "commits.txt"
    commits.write_text("\ufeffc0\n  # the release\n" + "\n".join(COMMITS[1:]) + "\n", encoding="utf-8")
    assert main(["bisect", "--commits", str(commits), "--command", "x {commit}", "--threshold", "10%",
                 "--no-progress"]) == 0  # fmt: skip
    assert capsys.readouterr().out.startswith("culprit: c5, slower beyond the threshold")
    assert ran.ran[0] == "c9"


@pytest.mark.slow  # a real bisect, stopped by SIGTERM in its first step
def test_sigterm_during_a_real_bisect_exits_143_and_says_so(tmp_path):
    import signal
    import sys
    import time

    marker = tmp_path / "started"
    (tmp_path / "commits.txt").write_text("c0\nc1\nc2\n")
    command = [sys.executable, "-m", "perfstudy", "bisect", "--commits", "commits.txt", "--out", "b.json",
               "--command", f"touch {marker}; sleep 0.005 # {{commit}}", "--threshold", "0.01%", "--no-progress"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    deadline = time.monotonic() + 120
    while not marker.exists() and time.monotonic() < deadline:  # the first step's run is measuring
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 143, stderr.decode()
    assert stdout.decode().startswith("INTERRUPTED by SIGTERM at step 1"), stdout.decode()
    assert "--resume --out b.json continues it" in stdout.decode()
    saved = json.loads((tmp_path / "b.json").read_text())
    assert saved["stopped"] == "interrupted" and saved["steps"][0]["meaning"] == "interrupted"


def test_a_warning_during_a_bisect_is_one_line_of_the_commands_words(steps, tmp_path, capsys, monkeypatch):
    """Raw Python warnings leaked with their source line and an absolute path, where run prints one line."""
    import warnings

    import perfstudy.experiment._run as module

    steps()
    measured = module.run

    def warned(*args, **kwargs):
        warnings.warn(
            "the machine's load changed by 3.1 during the run\n  (load 1.2 -> 4.3)", RuntimeWarning, stacklevel=2
        )
        return measured(*args, **kwargs)

    monkeypatch.setattr(module, "run", warned)
    (tmp_path / "commits.txt").write_text("c0\nc9\n")
    with warnings.catch_warnings():
        assert main(["bisect", "--commits", str(tmp_path / "commits.txt"), "--command", "x {commit}",
                     "--no-progress"]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert "perfstudy bisect: warning: the machine's load changed by 3.1 during the run (load 1.2 -> 4.3)" in err
    assert "RuntimeWarning" not in err and ".py:" not in err


def test_the_words_of_a_range_an_undecided_step_and_a_bad_commit_without_change(steps):
    """Ranges printed as 'c6..c7' included c6, where git's A..B leaves A out; the advice for an undecided step named
    only the budgets when its interval straddled the threshold; a bad commit without a change said 'so the change is:
    later'."""
    steps(c4=dict(stopped="max-rounds", verdicts=[dict(verdict="inconclusive", change=0.055, low=0.041, high=0.07)]))
    shown = bisect(COMMITS, "x {commit}", threshold=0.05, progress=False).format()
    assert shown.startswith("the change lies in the commits c1 to c9, both included (undecided)")
    assert "its interval [+4.1%, +7.0%] straddles the +5% threshold" in shown and "(--metric cpu)" in shown
    steps(c9=dict(verdicts=[dict(verdict="no change", change=0.0, low=-0.01, high=0.01)]))
    quiet = bisect(COMMITS, "x {commit}", threshold=0.05, progress=False)
    assert quiet.steps[0]["meaning"] == "none in the range" and "later" not in quiet.format()


@pytest.mark.slow  # three real bisects, each stopped by a signal at a random moment and resumed (about 15 s)
@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGTERM", "SIGINT"])
def test_a_bisect_stopped_by_any_signal_at_a_random_moment_resumes_to_the_same_culprit(signal_name, tmp_path):
    """bisect survives kill -9, SIGTERM and Ctrl-C at any moment: the signal's exit status, the settled steps kept,
    none measured twice, and --resume ends at the culprit a whole bisect names (c5: +30% of a 10 ms sleep)."""
    import signal
    import sys
    import time

    import numpy as np

    (tmp_path / "bench.sh").write_text('case "$1" in c5|c6|c7) sleep 0.013 ;; *) sleep 0.010 ;; esac\n')
    (tmp_path / "commits.txt").write_text("".join(f"c{i}\n" for i in range(8)))
    command = [sys.executable, "-m", "perfstudy", "bisect", "--commits", "commits.txt", "--out", "b.json",
               "--command", "sh bench.sh {commit}", "--threshold", "10%", "--no-progress"]  # fmt: skip
    moment = np.random.default_rng(["SIGKILL", "SIGTERM", "SIGINT"].index(signal_name)).uniform(0.5, 4.0)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    time.sleep(moment)
    process.send_signal(getattr(signal, signal_name))
    stdout, stderr = process.communicate(timeout=120)
    expected = {"SIGKILL": -9, "SIGTERM": 143, "SIGINT": 130}[signal_name]
    assert process.returncode in (expected, 0), (moment, stderr.decode())  # 0: it had finished before the signal
    written = (tmp_path / "b.json").exists()  # under load the signal may come before the first step is written
    saved = json.loads((tmp_path / "b.json").read_text()) if written else {"steps": []}
    settled = [s for s in saved["steps"] if s["meaning"] not in ("interrupted", "undecided")]
    again = command + ["--resume"] if written else command  # --resume of no file is refused, naming it
    resumed = subprocess.run(again, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.startswith("culprit: c5, slower beyond the threshold"), (moment, resumed.stdout)
    final = json.loads((tmp_path / "b.json").read_text())
    assert final["steps"][: len(settled)] == settled  # what was settled before the signal is kept as it was
    measured = [s["commit"] for s in final["steps"] if s["meaning"] not in ("interrupted", "undecided")]
    assert len(measured) == len(set(measured))  # no commit measured twice
