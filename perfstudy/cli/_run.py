"""``perfstudy run``: its options, a parameter list, and what it prints."""

from __future__ import annotations

import functools
import signal
import sys
from typing import Any

from perfstudy._lib.defaults import shown
from perfstudy._lib.format import counted
from perfstudy.cli import _common
from perfstudy.cli._common import format_option, in_help, in_options, one_line as _one_line, warning_lines
from perfstudy.comparison.running import RULES, rules_help
from perfstudy.io.harnesses import MEASURED_FORMATS, harness_metrics


def add_parser(commands) -> None:
    experiment = commands.add_parser(
        "run",
        help="run two commands interleaved and randomised until the change is known",
        description="Run versions A and B in rounds, each round both in a fresh random order, and stop when "
        "every benchmark is decided by an anytime-valid confidence sequence (Lai 1976; looking after every "
        "round keeps the error at 1 - confidence): 'no change' inside +-threshold, 'faster' or 'slower' beyond "
        "it; else at --max-rounds or --max-time, 'inconclusive'. Every batch is appended to --out at once. "
        "Command lines run through /bin/sh -c, as in a terminal (pipes, &&, VAR=value), and the shell's start-up "
        "is subtracted from every time; -N runs them directly. Ctrl-C or SIGTERM stops after the running batch, a "
        "second Ctrl-C ends it too. Exit status: 0; 1 with --fail-on-regression and a slower benchmark; 2 for "
        "unusable input or a failed --cleanup (the verdicts stand); 130 after Ctrl-C and 143 after SIGTERM (a partial run); a failing command's own status "
        "(124 past --timeout).",
    )
    experiment.add_argument(
        "--a", metavar="CMD", help="version A's command (the baseline), run through /bin/sh -c unless --no-shell"
    )
    experiment.add_argument("--b", metavar="CMD", help="version B's command")
    experiment.add_argument(
        "--base",
        metavar="REV",
        help="inside a git repository, instead of --a and --b: the base commit (A), checked out into a worktree of its "
        "own, built once by --setup there, and run by --command (default: none; --a and --b)",
    )
    experiment.add_argument("--head", metavar="REV", help="with --base: the head commit (B) (default: none)")
    experiment.add_argument(
        "--command",
        dest="template",  # args.command is the verb
        metavar="TEMPLATE",
        help="with --base and --head: the benchmark's command, {commit} each commit's hash and {worktree} the folder "
        "it is checked out in (cd {worktree} && go test -bench . -count 1); --setup is then the build, run once per "
        "commit in its worktree before any round and outside every measurement (default: none)",
    )
    experiment.add_argument(
        "--parameter-list",
        nargs=2,
        metavar=("NAME", "VALUES"),
        default=None,
        help="run --a with {NAME} replaced by each of VALUES (comma-separated), each value against the first in "
        "its own interleaved run, the verdicts Holm-adjusted together; --out names the runs' files "
        "(runs.NAME=VALUE.csv) (default: two versions, --a and --b)",
    )
    experiment.add_argument(
        "-N",
        "--no-shell",
        dest="shell",
        action="store_false",
        default=None,
        help="run the commands directly, split into words as a shell would, not through /bin/sh -c (a command "
        "with shell syntax such as | && ; > or VAR=value is then refused; default: through the shell, whose "
        "start-up is measured and subtracted from every time)",
    )
    experiment.add_argument("--name", default=None, help="the benchmark's name (default: command)")
    resumed = "; on --resume, the run's own"
    experiment.add_argument(
        "--threshold",
        default=None,
        help=f"smallest change that matters: 5%% or 0.05 (default {in_help('run', 'threshold')}{resumed})",
    )
    experiment.add_argument(
        "--confidence", default=None, help=f"coverage at every round at once: 0.95 or 95%% (default 0.95{resumed})"
    )
    experiment.add_argument("--values", type=int, default=None, help=f"measured runs per batch (default 3{resumed})")
    experiment.add_argument(
        "--warmup", type=int, default=None, help=f"warm-up runs per batch, left out (default 1{resumed})"
    )
    experiment.add_argument(
        "--min-rounds", type=int, default=None, help=f"rounds before a verdict may stop (default 5{resumed})"
    )
    experiment.add_argument(
        "--max-rounds",
        type=int,
        default=None,
        help=f"the budget in rounds (default 100{resumed}; none with --max-time alone)",
    )
    experiment.add_argument(
        "--max-time", default=None, help="the budget in time, with its unit: 10m, 90s, 2h (default: none)"
    )
    experiment.add_argument("--out", default="runs.csv", help="the run's file (default runs.csv; and OUT.json)")
    experiment.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --out with its commands, seed and settings (a different setting is refused; "
        "--max-rounds and --max-time may be raised); a decided run is reported without another round",
    )
    experiment.add_argument("--seed", type=int, default=None, help="seed of the rounds' orders (default: random)")
    experiment.add_argument(
        "--measure",
        default=None,
        help="time (the command's wall-clock time, default) or the format the command prints "
        f"({', '.join(MEASURED_FORMATS)}): one round then yields many benchmarks",
    )
    experiment.add_argument(
        "--timeout",
        default=None,
        help="how long one run may take, with its unit: 30s, 5m (default: none); the command's whole process "
        "group is then ended and the batch fails with status 124",
    )
    experiment.add_argument(
        "--ignore-failures", action="store_true", help="record a failing batch and go on (default: stop)"
    )
    experiment.add_argument(
        "--statistic",
        choices=("mean", "median", "min"),
        default=None,
        help=f"each batch's statistic, whose ratio B/A is the round's (default median{resumed})",
    )
    experiment.add_argument(
        "--rule",
        choices=tuple(RULES),
        default=None,
        help=f"the anytime-valid rule: {rules_help()} (default {shown('run', 'rule')}){resumed}",
    )
    experiment.add_argument(
        "--metric",
        action="append",
        default=None,
        metavar="METRIC",
        help="what is judged: wall (default), cpu (user + system CPU time, from wait4), rss (peak memory) or "
        "instructions (counted by valgrind in a run of its own); repeat or separate by commas for several "
        "(wall,instructions), each judged as its own benchmark. With --measure "
        f"FORMAT, one metric of the harness's output: {harness_metrics()}",
    )
    _common.benchmark_option(experiment)
    experiment.add_argument(
        "--duet",
        action="store_true",
        default=None,
        help="run A and B at the same time, each pinned to a CPU of its own, each round twice with the CPUs "
        "swapped (duet benchmarking): both meet the same interference; needs 2 CPUs, better more "
        "(default: interleaved rounds)",
    )
    _common.layout_option(experiment)
    experiment.add_argument(
        "--prepare", metavar="CMD", default=None, help="a command run before every batch, untimed (default: none)"
    )
    experiment.add_argument(
        "--setup",
        metavar="CMD",
        default=None,
        help="a command run once per version before the first round (default: none)",
    )
    experiment.add_argument(
        "--cleanup",
        metavar="CMD",
        default=None,
        help="a command run once per version after the last round (default: none)",
    )
    experiment.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="a Dask scheduler, or local:N worker processes (default: this process, one round at a time)",
    )
    experiment.add_argument(
        "--plan",
        metavar="PILOT",
        default=None,
        help="instead of running: propose hosts x rounds for --threshold from a pilot run's file",
    )
    format_option(experiment)
    experiment.add_argument(
        "--fail-on-regression", action="store_true", help="exit 1 if a benchmark is slower beyond the threshold"
    )
    experiment.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_command(args) -> int:

    try:
        from perfstudy.experiment.settings import RunSettings

        metric: Any = None if args.metric is None else tuple(m for item in args.metric for m in item.split(","))
        settings = RunSettings(
            name=args.name,
            threshold=args.threshold,
            confidence=args.confidence,
            values=args.values,
            warmup=args.warmup,
            min_rounds=args.min_rounds,
            max_rounds=args.max_rounds,
            max_time=args.max_time,
            measure=args.measure,
            shell=args.shell,
            timeout=args.timeout,
            statistic=args.statistic,
            rule=args.rule,
            metric=metric,
            benchmark=args.benchmark,
            duet=args.duet,
            layout=args.layout,
            prepare=args.prepare,
            setup=args.setup,
            cleanup=args.cleanup,
            spelling="cli",
        )
        from perfstudy.cli._run_commits import commits_given, run_commits_from

        if commits_given(args):  # before --plan, which it refuses
            return _print_run(run_commits_from(args, settings), args)
        if args.plan is not None:
            from perfstudy.experiment.plan import format_plan, plan_rounds

            plan = plan_rounds(args.plan, threshold=settings.threshold, confidence=settings.confidence)
            print(format_plan(plan))
            return 0
        if args.resume and args.parameter_list is None and args.a is None and args.b is None:
            args.a, args.b = _resumed_commands(args.out)  # --help: resume continues "with its commands"
        for option, command in (("--a", args.a), ("--b", args.b)):
            if args.parameter_list is not None and option == "--b":
                if command is not None:
                    raise ValueError("--parameter-list: the versions are --a's command with each value; drop --b")
            elif command is None or not command.strip():
                raise ValueError(f"{option}: missing; give the command of version {option[2:].upper()}")
        from perfstudy.experiment import run

        with warning_lines("run"):  # the machine's warnings as they are found: before round 1
            if args.parameter_list is not None:
                from perfstudy.experiment.parameters import run_parameters

                launch: Any = functools.partial(run_parameters, args.a, *args.parameter_list)
            else:
                launch = functools.partial(run, args.a, args.b)
            result = launch(
                settings=settings,
                out=args.out,
                resume=args.resume,
                seed=args.seed,
                scheduler=args.scheduler,
                ignore_failures=args.ignore_failures,
                progress=not args.no_progress,
            )
    except (ValueError, TypeError, OSError, ImportError) as error:
        from perfstudy.experiment.settings import OPTIONS

        # "shell=True" in a message is advice in both spellings ("drop --no-shell; shell=True"), not a setting's value
        options = {key: option for key, option in (OPTIONS | _CALL_OPTIONS).items() if key != "shell"}
        print(f"perfstudy run: {in_options(_one_line(error), options)}", file=sys.stderr)
        return 2
    if args.parameter_list is not None:
        return _parameter_output(result, args)
    return _print_run(result, args)


def _print_run(result, args) -> int:
    """A run as the options ask (table, Markdown or JSON), its warnings again beside the verdict; the exit status."""
    if result.failure:
        print(f"perfstudy run: {result.failure}", file=sys.stderr)
    if not result.verdicts and result.comparison is None:
        print(
            f"perfstudy run: stopped ({result.stopped}) "
            f"{'before a round completed' if result.rounds < 1 else 'with no benchmark judged'}; rows in {result.path}",
            file=sys.stderr,
        )
        return result.exit_status or 2
    stopped = _stopped_text(result, args.resume)
    if args.output == "json":
        import json

        if result.verdicts:  # the table's numbers and verdicts, which the exit status follows: no second analysis
            from perfstudy.experiment.run_table import json_document

            document = json_document(result)
        else:  # no round had a ratio to judge: compare's, on the difference scale, as the table is then
            from perfstudy.comparison import format_comparison

            document = json.loads(format_comparison(result.comparison, "json"))  # pyright: ignore[reportArgumentType]
        document.update(
            rounds=result.rounds,
            stopped=result.stopped,
            file=result.path,
            new_rounds=result.new_rounds,
            exit_status=result.exit_status,
            warnings=list(result.environment.get("warnings", ())),
            signal=None if result.signal is None else signal.Signals(result.signal).name,
            rule=result.settings["rule"],
            statistic=result.settings["statistic"],
            cleanup=result.cleanup or None,
        )
        print(json.dumps(document, indent=2))
    elif not result.verdicts:  # no round had a ratio to judge (a time of 0): compare's table, on the difference scale
        from perfstudy.comparison import format_comparison
        from perfstudy.experiment.run_table import cleanup_said

        print(format_comparison(result.comparison, args.output) + cleanup_said(result))  # pyright: ignore[reportArgumentType]
        print(stopped)
    else:
        from perfstudy.experiment.run_table import markdown_table, text_table

        print(markdown_table(result) if args.output == "markdown" else text_table(result))
        print(stopped)
    for text in result.environment.get("warnings", ()):  # again beside the verdict, saying it is the same warning
        print(f"perfstudy run: as warned before round 1: {text}", file=sys.stderr)
    if result.exit_status:
        return result.exit_status
    regressed = (
        any(row["verdict"] == "slower" for row in result.verdicts)
        if result.verdicts
        else bool(len(result.comparison.regressions))  # pyright: ignore[reportOptionalMemberAccess]
    )
    return 1 if args.fail_on_regression and regressed else 0


def _resumed_commands(out) -> tuple[str, str]:
    """A and B of the run in ``out``, from its record, for ``--resume`` without ``--a`` and ``--b``."""
    from perfstudy.experiment import read_experiment

    try:
        record = read_experiment(out)
    except (OSError, ValueError):
        raise ValueError(
            f"--resume: {out}.json, the run's record, is missing or unreadable; give --a and --b, or the --out of a "
            "run to continue"
        ) from None
    commands = record.get("commands") if isinstance(record, dict) else None
    if not (isinstance(commands, dict) and all(isinstance(commands.get(v), str) for v in ("A", "B"))):
        raise ValueError(f"--resume: {out}.json names no commands A and B; is {out} a perfstudy run's file?")
    return commands["A"], commands["B"]


def _parameter_output(result, args) -> int:
    """The table of a parameter list, its Markdown beside the runs' files, and the exit status."""
    from pathlib import Path

    from perfstudy.experiment.parameters import parameter_table

    statuses = [run.exit_status for run in result.runs if run.exit_status]
    for failure in filter(None, (run.failure for run in result.runs)):
        print(f"perfstudy run: {failure}", file=sys.stderr)
    print(parameter_table(result, args.output))
    files = [run.path for run in result.runs if run.path]
    if files:
        Path(f"{args.out}.md").write_text(parameter_table(result, "markdown"), encoding="utf-8")
        print(f"{len(result.runs)} runs, every batch in {', '.join(files)} (this table in {args.out}.md)")
    if statuses:
        return statuses[-1]
    return 1 if args.fail_on_regression and any(row["verdict"] == "slower" for row in result.rows) else 0


def _stopped_text(result, resumed: bool) -> str:
    """The line under the table: why the run stopped, in words a CI log reader needs."""
    where = f"every batch in {result.path} (this table in {result.path}.md)" if result.path else "no file written"
    if result.stopped == "decided" and resumed and result.new_rounds == 0:
        return f"{counted(result.rounds, 'round')}, already decided: no round run; {where}"
    if result.stopped == "interrupted":
        name = signal.Signals(result.signal).name if result.signal is not None else "a signal"
        return (
            f"INTERRUPTED by {name} after {counted(result.rounds, 'round')} (exit status {result.exit_status}): a partial run; "
            f"the intervals are anytime-valid, so the verdicts above hold, but the inconclusive ones need more "
            f"rounds (--resume); {where}"
        )
    return f"{counted(result.rounds, 'round')}, stopped: {result.stopped}; {where}"


#: what run's messages name, as its options: the settings' own (:data:`perfstudy.experiment.settings.OPTIONS`, which
#: :class:`RunSettings` names itself with ``spelling="cli"``) and the call's, which the library names as arguments
_CALL_OPTIONS = {
    "levels": "--parameter-list VALUES",
    "parameter": "--parameter-list NAME",
    "command": "--a",
    "a": "--a",
    "b": "--b",
    "seed": "--seed",
    "resume": "--resume",
    "out": "--out",
}
