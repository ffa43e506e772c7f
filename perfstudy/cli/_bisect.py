"""``perfstudy bisect``: from a good and a bad commit to the first commit that changed the benchmark."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from perfstudy._lib.defaults import default, shown
from perfstudy.cli import _common
from perfstudy.cli._common import format_option, in_help, in_options, one_line as _one_line, warning_lines
from perfstudy.comparison.running import RULES, rules_help
from perfstudy.io.harnesses import MEASURED_FORMATS, harness_metrics

#: the library's argument names as the command line spells them: the settings' own (BisectSettings.OPTIONS) and
#: the arguments of bisect() that are no setting
_ARGUMENTS = {"command": "--command", "out": "--out", "resume": "--resume", "commits": "--commits", "a": "--command",
              "b": "--command"}  # fmt: skip
#: the bisect's own settings that the command line gives when typed (the rest: the table of defaults')
_BISECT = ("threshold", "confidence", "max_rounds", "max_time")


def add_parser(commands) -> None:
    bisect = commands.add_parser(
        "bisect",
        help="find the commit that changed a benchmark, each step an interleaved run",
        description="Bisect from a good commit to a bad one: each step runs the good commit (A) against one in "
        "between (B) in randomised interleaved rounds, as perfstudy run does, until its anytime-valid interval says "
        "'no change' (inside +-threshold) or a change beyond it in the bad commit's direction. Each step's "
        "confidence is set so that all of them together keep --confidence (Bonferroni over the steps a bisect of "
        "this many commits can take). A commit whose command fails is skipped, as git bisect skip does. Exit "
        "status: 0 when the bisect ends (a culprit, no change, or the range that holds it); 1 with "
        "--fail-on-regression and a culprit that made it slower; 2 for unusable input or a failed --cleanup (the "
        "answer stands); 130 after Ctrl-C and 143 "
        "after SIGTERM (an interrupted bisect: --resume continues it from --out).",
    )
    bisect.add_argument(
        "--command",
        dest="template",  # not "command": that is the subcommand's name
        required=True,
        metavar="TEMPLATE",
        help="the benchmark, {commit} where the commit goes",
    )
    bisect.add_argument(
        "--commits", metavar="FILE", help="one commit a line, oldest first: the first good, the last bad"
    )
    bisect.add_argument("--good", metavar="COMMIT", help="inside a git repository: the good commit (with --bad)")
    bisect.add_argument("--bad", metavar="COMMIT", help="inside a git repository: the bad commit (with --good)")
    bisect.add_argument(
        "--threshold",
        default=None,
        help=f"smallest change that counts: 5%% or 0.05 (default {in_help('bisect', 'threshold')})",
    )
    bisect.add_argument(
        "--confidence",
        default=None,
        help=f"of the bisect as a whole: 95%% or 0.95 (default {in_help('bisect', 'confidence')})",
    )
    bisect.add_argument(
        "--max-rounds",
        type=int,
        default=None,
        help=f"each step's budget in rounds (default {shown('bisect', 'max_rounds')}; none with --max-time alone)",
    )
    bisect.add_argument("--max-time", default=None, help="each step's budget in time: 2m, 90s (default: none)")
    bisect.add_argument(
        "--seed",
        type=int,
        default=default("bisect", "seed"),
        help=f"each step's order is drawn from seed + step (default {shown('bisect', 'seed')})",
    )
    bisect.add_argument("--out", default=None, help="a JSON file rewritten after every step (default: none)")
    bisect.add_argument(
        "--resume",
        action="store_true",
        help="continue the bisect in --out: commits it measured are not run again (its commits, command, "
        "threshold, confidence, seed and each step's run options must be these)",
    )
    bisect.add_argument(
        "--fail-on-regression", action="store_true", help="exit 1 when the culprit made the benchmark slower"
    )
    steps = bisect.add_argument_group("each step's run (as perfstudy run has them)")
    steps.add_argument(
        "--statistic", choices=("mean", "median", "min"), default=None, help="each batch's statistic (default median)"
    )
    steps.add_argument(
        "--rule",
        choices=tuple(RULES),
        default=None,
        help=f"the anytime-valid rule: {rules_help()} (default {shown('run', 'rule')})",
    )
    steps.add_argument(
        "--measure",
        default=None,
        choices=("time", *MEASURED_FORMATS),
        help="time (the command's wall-clock time, default) or the format the command prints; a bisect then "
        "follows the one benchmark --benchmark names",
    )
    _common.benchmark_option(steps)
    steps.add_argument(
        "--metric",
        default=None,
        help="what is judged: wall (default), cpu, rss or instructions (counted by valgrind); with --measure "
        "FORMAT, one metric of the harness's "
        f"output: {harness_metrics()}; a bisect follows one",
    )
    steps.add_argument(
        "--duet",
        action="store_true",
        default=None,
        help="run the two commits at once, each on a CPU of its own (default: interleaved rounds)",
    )
    _common.layout_option(steps)
    steps.add_argument("--values", type=int, default=None, help="measured runs per batch (default 3)")
    steps.add_argument("--warmup", type=int, default=None, help="warm-up runs per batch, left out (default 1)")
    steps.add_argument("--timeout", default=None, help="how long one run may take: 30s, 5m (default: none)")
    steps.add_argument(
        "-N",
        "--no-shell",
        dest="shell",
        action="store_false",
        default=None,
        help="run the command directly, not through /bin/sh -c",
    )
    steps.add_argument(
        "--prepare",
        metavar="CMD",
        default=None,
        help="run before every batch, untimed; {commit} is each version's commit (default: none)",
    )
    steps.add_argument(
        "--setup",
        metavar="CMD",
        default=None,
        help="run once per version before a step's first round; {commit} is each version's commit, "
        "as in 'git worktree add wt-{commit} {commit}' (default: none)",
    )
    steps.add_argument(
        "--cleanup",
        metavar="CMD",
        default=None,
        help="run once per version after a step's last round; {commit} as in --setup (default: none)",
    )
    bisect.add_argument("--no-progress", action="store_true", help="no progress bars")
    format_option(bisect)


def _commits(args) -> list[str]:
    """The commits, oldest first, from --commits or from git between --good and --bad."""
    if args.commits is not None:
        if args.good is not None or args.bad is not None:
            raise ValueError("--commits: give either --commits FILE or --good and --bad, not both")
        path = Path(args.commits)
        if not path.is_file():
            raise ValueError(f"--commits {args.commits}: no such file")
        lines = (line.strip() for line in path.read_text(encoding="utf-8-sig").splitlines())  # a BOM is no commit
        return [line for line in lines if line and not line.startswith("#")]
    if args.good is None or args.bad is None:
        raise ValueError("--commits: missing; give --commits FILE, or --good and --bad inside a git repository")
    # fixed to hashes once, before anything runs: a name such as HEAD~9, read again after a step checked a commit
    # out, would name another commit at every step
    from perfstudy.experiment.worktrees import commit_hash

    good, bad = commit_hash(args.good, "--good"), commit_hash(args.bad, "--bad")
    listed = subprocess.run(
        ["git", "rev-list", "--reverse", "--ancestry-path", f"{good}..{bad}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode != 0:
        reason = (listed.stderr.strip().splitlines() or ["git failed"])[-1]
        raise ValueError(f"--good {args.good} --bad {args.bad}: git rev-list says: {reason}")
    between = listed.stdout.split()
    if not between:
        raise ValueError(f"--good {args.good} --bad {args.bad}: {args.bad} does not descend from {args.good}")
    return [good, *between]


def bisect_command(args) -> int:
    with warning_lines("bisect"):
        return _bisect_command(args)


def _bisect_command(args) -> int:
    from perfstudy.experiment.bisect_settings import STEP_SETTINGS, BisectSettings
    from perfstudy.experiment.bisection import bisect

    try:
        if args.resume and args.out is None:
            raise ValueError("--resume: needs --out, the bisect's file")
        commits = _commits(args)
        given = {key: getattr(args, key) for key in (*_BISECT, *STEP_SETTINGS) if getattr(args, key) is not None}
        settings = BisectSettings(**given, seed=args.seed, spelling="cli")
        result = bisect(
            commits, args.template, settings=settings, out=args.out, resume=args.resume, progress=not args.no_progress
        )
    except (ValueError, TypeError, OSError, RuntimeError) as error:
        options = {**BisectSettings.OPTIONS, **_ARGUMENTS}
        said = in_options(_one_line(error).replace("shell=False", "--no-shell"), options)
        print(f"perfstudy bisect: {said}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # a second Ctrl-C between steps, with nothing of ours running to stop
        again = f"; --resume --out {args.out} continues from the last step written" if args.out else ""
        print(f"perfstudy bisect: interrupted{again}", file=sys.stderr)
        return 130
    print(result.format(args.output))
    if result.exit_status:
        return result.exit_status
    return 1 if args.fail_on_regression and result.culprit is not None and result.direction == "slower" else 0
