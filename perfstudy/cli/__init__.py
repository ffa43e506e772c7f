"""The ``perfstudy`` command (also ``python -m perfstudy``)."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import signal
import sys
import time
from typing import Any

from perfstudy._lib.checks import check_coverage, check_threshold, parse_duration
from perfstudy._lib.defaults import default
from perfstudy.cli import _history
from perfstudy.cli._common import in_help
from perfstudy.cli._common import one_line as _one_line
from perfstudy.io import FORMATS

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="perfstudy", description="perfstudy: benchmarking that can be trusted.")
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser(
        "report",
        help="run every notebook through papermill",
        description="Run every notebook through papermill: executed notebooks and HTML into --out, "
        "figures into --figures. Exit status 1 if any notebook failed.",
    )
    report.add_argument("--quick", action="store_true", help="small sizes: each notebook runs in seconds")
    report.add_argument("--out", default="build", help="where executed notebooks and HTML go (default: build)")
    report.add_argument("--figures", default="figures", help="where figures go (default: figures)")
    report.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="run only this notebook (name or unique prefix, e.g. 01); repeatable",
    )
    report.add_argument("--notebooks", default=None, help="notebook directory (default: ./notebooks)")
    report.add_argument(
        "--timeout", default="30m", help="how long a cell may run, with its unit: 30m, 90s, 2h (default: 30m)"
    )
    report.add_argument("--kernel", default="python3", help="Jupyter kernel name (default: python3)")
    report.add_argument("--no-html", action="store_true", help="skip the HTML rendering")
    report.add_argument("--no-progress", action="store_true", help="no progress bars")
    comparison = commands.add_parser(
        "compare",
        help="compare two versions' benchmark files: change, interval, p-value, verdict",
        description="Compare BASE (version A) with NEW (version B) per benchmark, resampling whole "
        "batches (processes, forks, repetitions, go test lines). Files: Go benchmark text, pyperf, "
        "hyperfine, Google Benchmark, JMH, pytest-benchmark, asv, BenchmarkDotNet JSON, criterion.rs "
        "(a target/criterion directory, sample.json or raw.csv) or a tidy CSV. With one file, --by names "
        "what tells its two versions apart (a Go configuration key such as note, as benchstat's -col; "
        "a tidy file's version column). Exit status 1 with --fail-on-regression when a benchmark is slower "
        "beyond the threshold, 2 for unusable input.",
    )
    comparison.add_argument("base", metavar="BASE", help="the baseline's file (version A), or the one file")
    comparison.add_argument("new", metavar="NEW", nargs="?", help="the candidate's file (version B)")
    comparison.add_argument(
        "--by",
        metavar="KEY",
        help="with one file: the column or Go configuration key whose two values are the versions "
        "(default: version). A is the first of the two in sorted order when the file also puts it first, else "
        "--a-version must say which; a perfstudy run's file is read by its record (A is its --a)",
    )
    comparison.add_argument(
        "--a-version",
        metavar="VALUE",
        default=None,
        help="with one file: the value of --by that is version A, the baseline (default: the first in sorted order, "
        "when the file puts it first too)",
    )
    comparison.add_argument(
        "--input-format",
        choices=FORMATS,
        default="auto",
        help="the files' format (default: auto, detected from the content)",
    )
    comparison.add_argument(
        "--threshold",
        default=None,
        help="smallest change that matters: 2%% or 0.02 "
        f"(default {in_help('compare', 'threshold')}; for a perfstudy run's file, the run's own)",
    )
    comparison.add_argument("--cluster", default="batch", help="the column to resample (default: batch)")
    comparison.add_argument(
        "--dropna",
        action="store_true",
        help="leave out values that are missing or not numbers (a failed benchmark), and say how many",
    )
    comparison.add_argument(
        "--block",
        metavar="COLUMN",
        default=None,
        help="pair the versions within blocks of this column (e.g. round): each block's B/A, a paired interval; "
        "a perfstudy run file is paired by round, with its anytime-valid interval, without it (default: none, "
        "unpaired)",
    )
    comparison.add_argument(
        "--statistic",
        choices=["mean", "median", "min"],
        default=None,
        help="each batch's statistic (default: mean; for a perfstudy run's file, the run's own; min only paired "
        "over rounds)",
    )
    comparison.add_argument(
        "--confidence",
        default=None,
        help="interval coverage: 0.95 or 95%% (default 0.95; for a perfstudy run's file, the run's own)",
    )
    comparison.add_argument(
        "--correction",
        choices=["holm", "bh", "none"],
        default="holm",
        help="multiple-comparison adjustment of the p-values over the benchmarks (default: holm)",
    )
    comparison.add_argument("--replicates", type=int, default=2000, help="bootstrap replicates (default 2000)")
    comparison.add_argument("--seed", type=int, default=None, help="seed of the bootstrap (default: random)")
    _format_option(comparison)
    comparison.add_argument(
        "--fail-on-regression", action="store_true", help="exit 1 if any benchmark is slower beyond the threshold"
    )
    _run_parser(commands)
    _history.add_parser(commands)
    analysis = commands.add_parser(
        "analyze",
        help="a report on benchmark files: diagnostics, comparison, advice (executed notebook + HTML)",
        description="Run the analyze notebook on FILE... and write the executed notebook, its HTML and figures "
        "into --out. Files: Go benchmark text, pyperf, hyperfine, Google Benchmark, JMH, pytest-benchmark, asv, "
        "BenchmarkDotNet JSON, criterion.rs (a target/criterion directory, sample.json or raw.csv), a tidy CSV "
        "or Parquet file, or a perfstudy run's file. With two files, the second (B) is compared against the "
        "first (A); a run's file alone is both versions, A and B as its record says, paired by round. "
        "Exit status 1 if the notebook failed, 2 for unusable input.",
    )
    analysis.add_argument("files", metavar="FILE", nargs="+", help="benchmark files, or one perfstudy run's file")
    analysis.add_argument("--out", default="build/analyze", help="output directory (default: build/analyze)")
    analysis.add_argument(
        "--threshold",
        default=None,
        help="smallest change that matters: 2%% or 0.02 "
        f"(default {in_help('analyze', 'threshold')}; for a perfstudy run's file, the run's own)",
    )
    analysis.add_argument("--quick", action="store_true", help="fewer replicates and permutations")
    analysis.add_argument("--no-html", action="store_true", help="skip the HTML rendering")
    analysis.add_argument("--no-progress", action="store_true", help="no progress bar")
    explore = commands.add_parser(
        "explore",
        help="every explorer in a web page, no code (Voila, on 127.0.0.1)",
        description="Serve the explorers (designs, bootstrap Type I error, PT4Cloud, CONFIRM, peak-rate search) "
        "as a web app with Voila on 127.0.0.1, and print its URL. Needs the 'explore' extra "
        "(pip install 'perfstudy[explore]'). Real datasets are read from $PERFSTUDY_DATA.",
    )
    explore.add_argument("--port", type=int, default=8866, help="port to listen on (default: 8866)")
    explore.add_argument("--no-browser", action="store_true", help="do not open a browser")
    return parser


def _run_parser(commands) -> None:
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
        "unusable input; 130 after Ctrl-C and 143 after SIGTERM (a partial run); a failing command's own status "
        "(124 past --timeout).",
    )
    experiment.add_argument(
        "--a", metavar="CMD", help="version A's command (the baseline), run through /bin/sh -c unless --no-shell"
    )
    experiment.add_argument("--b", metavar="CMD", help="version B's command")
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
        "--max-rounds", type=int, default=None, help=f"the budget in rounds (default 100{resumed}, or more if given)"
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
        "(go, pyperf, google_benchmark, hyperfine, jmh, criterion, pytest_benchmark, asv): one round then "
        "yields many benchmarks",
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
        choices=("sign", "t"),
        default=None,
        help="the anytime-valid rule: sign (median round; valid under heavy tails and contention, the default) "
        f"or t (Lai's sequence for the mean round; quicker on a quiet machine only){resumed}",
    )
    experiment.add_argument(
        "--metric",
        action="append",
        default=None,
        metavar="METRIC",
        help="what is judged: wall (default), cpu (user + system CPU time, from wait4) or rss (peak memory); "
        "repeat or separate by commas for several (wall,cpu,rss), each judged as its own benchmark",
    )
    experiment.add_argument(
        "--duet",
        action="store_true",
        default=None,
        help="run A and B at the same time, each pinned to a CPU of its own, each round twice with the CPUs "
        "swapped (duet benchmarking): both meet the same interference; needs 2 CPUs, better more "
        "(default: interleaved rounds)",
    )
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
    _format_option(experiment)
    experiment.add_argument(
        "--fail-on-regression", action="store_true", help="exit 1 if a benchmark is slower beyond the threshold"
    )
    experiment.add_argument("--no-progress", action="store_true", help="no progress bar")


def _format_option(parser) -> None:
    parser.add_argument(
        "--format",
        choices=["table", "markdown", "json"],
        default="table",
        dest="output",
        help="the output: a table, Markdown for a pull request, or JSON (default: table)",
    )


def _run(args) -> int:
    import warnings

    try:
        threshold = None if args.threshold is None else check_threshold(args.threshold, "--threshold")
        confidence = None if args.confidence is None else check_coverage(args.confidence, "--confidence")
        if args.plan is not None:
            from perfstudy.experiment.plan import format_plan, plan_rounds

            plan = plan_rounds(
                args.plan,
                threshold=default("run", "threshold") if threshold is None else threshold,
                confidence=0.95 if confidence is None else confidence,
            )
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
        max_time = None if args.max_time is None else f"{parse_duration(args.max_time, '--max-time')}s"
        timeout = None if args.timeout is None else f"{parse_duration(args.timeout, '--timeout')}s"
        from perfstudy.experiment import run

        with warnings.catch_warnings():
            warnings.showwarning = _show_warning  # the machine's warnings as they are found: before round 1
            if args.parameter_list is not None:
                from perfstudy.experiment.parameters import run_parameters

                launch: Any = functools.partial(run_parameters, args.a, *args.parameter_list)
            else:
                launch = functools.partial(run, args.a, args.b)
            result = launch(
                name=args.name,
                threshold=threshold,
                confidence=confidence,
                values=args.values,
                warmup=args.warmup,
                min_rounds=args.min_rounds,
                max_rounds=args.max_rounds,
                max_time=max_time,
                out=args.out,
                resume=args.resume,
                seed=args.seed,
                measure=args.measure,
                shell=args.shell,
                scheduler=args.scheduler,
                ignore_failures=args.ignore_failures,
                timeout=timeout,
                statistic=args.statistic,
                rule=args.rule,
                metric=None if args.metric is None else ",".join(args.metric),
                duet=args.duet,
                prepare=args.prepare,
                setup=args.setup,
                cleanup=args.cleanup,
                progress=not args.no_progress,
            )
    except (ValueError, TypeError, OSError, ImportError) as error:
        print(f"perfstudy run: {_one_line(error)}", file=sys.stderr)
        return 2
    if args.parameter_list is not None:
        return _parameter_output(result, args)
    if result.failure:
        print(f"perfstudy run: {result.failure}", file=sys.stderr)
    if not result.verdicts and result.comparison is None:
        print(
            f"perfstudy run: stopped ({result.stopped}) before a round completed; rows in {result.path}",
            file=sys.stderr,
        )
        return result.exit_status or 2
    stopped = _stopped_text(result, args.resume)
    if args.output == "json":
        import json

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

        print(format_comparison(result.comparison, args.output))  # pyright: ignore[reportArgumentType]
        print(stopped)
    else:
        from perfstudy.experiment.run_table import markdown_table, text_table

        print(markdown_table(result) if args.output == "markdown" else text_table(result))
        print(stopped)
    for text in result.environment.get("warnings", ()):  # again, beside the verdict
        print(f"perfstudy run: warning: {text}", file=sys.stderr)
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
        return f"{result.rounds} rounds, already decided: no round run; {where}"
    if result.stopped == "interrupted":
        name = signal.Signals(result.signal).name if result.signal is not None else "a signal"
        return (
            f"INTERRUPTED by {name} after {result.rounds} rounds (exit status {result.exit_status}): a partial run; "
            f"the intervals are anytime-valid, so the verdicts above hold, but the inconclusive ones need more "
            f"rounds (--resume); {where}"
        )
    return f"{result.rounds} rounds, stopped: {result.stopped}; {where}"


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning as one line of the command's standard error, above the progress bar."""
    text = f"perfstudy run: warning: {message}"
    try:
        from tqdm import tqdm

        tqdm.write(text, file=sys.stderr)
    except ImportError:  # pragma: no cover - tqdm is a dependency
        print(text, file=sys.stderr)


def _explore(args) -> int:
    import importlib.resources
    import importlib.util
    import subprocess
    from pathlib import Path

    if importlib.util.find_spec("voila") is None:
        print("perfstudy explore: needs Voila; install it with pip install 'perfstudy[explore]'", file=sys.stderr)
        return 2
    if not 0 < args.port < 65536:
        print(f"perfstudy explore: --port {args.port}: expected a port from 1 to 65535", file=sys.stderr)
        return 2
    notebook = Path(str(importlib.resources.files("perfstudy") / "notebooks" / "explore.ipynb"))
    command = [
        sys.executable,
        "-m",
        "voila",
        str(notebook),
        "--Voila.ip=127.0.0.1",
        f"--port={args.port}",
        "--ServerApp.port_retries=0",
        "--show_tracebacks=False",
        # a kernel that has already run the notebook waits for the first visitor: the landing tab shows at once
        "--preheat_kernel=True",
        "--pool_size=1",
    ]
    if args.no_browser:
        command.append("--no-browser")
    print(f"perfstudy explore: http://127.0.0.1:{args.port}/ (Ctrl-C to stop)", flush=True)
    # Voila runs in a session of its own, so that Ctrl-C reaches this process alone (Jupyter's server would
    # ask "Shutdown this server?" and keep running); this process then stops it and every kernel it started.
    voila = subprocess.Popen(command, cwd=notebook.parent, start_new_session=True)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        return voila.wait()
    except KeyboardInterrupt:
        _stop_tree(voila)
        print("perfstudy explore: stopped", file=sys.stderr)
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


#: seconds Voila has to shut its kernels down after SIGTERM before what is left is killed
STOP_GRACE_S = 10.0


def _stop_tree(process) -> None:
    """Stop ``process`` and all its descendants: SIGTERM (Jupyter's server then shuts its kernels down),
    and SIGKILL for whatever is still alive after :data:`STOP_GRACE_S`. Kernels run in sessions of their
    own, so they are found by parentage (psutil, which Voila's kernels depend on), not by process group."""
    import subprocess

    try:
        import psutil

        tree = psutil.Process(process.pid).children(recursive=True)
    except Exception:  # psutil missing, or the process already gone: its group is all we can reach
        tree = []
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        process.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    for child in tree:
        try:
            child.wait(timeout=STOP_GRACE_S)
        except Exception:
            try:
                child.kill()
            except Exception:
                pass


def _analyze(args) -> int:
    from perfstudy.experiment import is_run_file, read_run
    from perfstudy.io import read
    from perfstudy.notebook.report import execute_analysis

    started = time.perf_counter()
    try:
        threshold = None if args.threshold is None else check_threshold(args.threshold, "--threshold")
        if any(is_run_file(path) for path in args.files):
            if len(args.files) != 1:
                raise ValueError("a perfstudy run's file holds both versions: analyze it alone")
            read_run(args.files[0])
        else:
            for path in args.files:  # refuse unreadable input before starting a kernel
                read(path)
        run = execute_analysis(
            args.files,
            out_dir=args.out,
            threshold=threshold,
            quick=args.quick,
            html=not args.no_html,
            progress=not args.no_progress,
        )
    except (ValueError, TypeError, OSError) as error:
        print(f"perfstudy analyze: {_one_line(error)}", file=sys.stderr)
        return 2
    if run.status != "ok":
        print(f"perfstudy analyze: the notebook failed: {run.error}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - started  # the whole command: reading the files, the kernel, the HTML
    print(f"analysis of {len(args.files)} file(s) in {elapsed:.1f} s: {run.html or run.output}")
    return 0


def _compare_go_files(args, threshold, confidence):
    """The comparison of two Go text files without pandas (:mod:`perfstudy.comparison._files`), as a report;
    None when the files are not both Go text (or carry a perfstudy run's record), for the general path."""
    from pathlib import Path

    from perfstudy.io import is_go_text

    if args.input_format not in ("auto", "go") or args.block is not None or args.dropna:
        return None
    paths = [Path(args.base), Path(args.new)]
    for path in paths:
        if not path.is_file() or Path(f"{path}.json").exists():
            return None
        if args.input_format == "auto" and not is_go_text(path):  # a JSON file is not parsed to tell
            return None
    from perfstudy.comparison import compare_go_files

    names = _file_labels(args)
    return compare_go_files(
        args.base,
        args.new,
        labels=(names[0], names[1]),
        statistic=args.statistic or "mean",
        confidence=0.95 if confidence is None else confidence,
        threshold=default("compare", "threshold") if threshold is None else threshold,
        correction=args.correction,
        replicates=args.replicates,
        rng=args.seed,
    )


def _file_labels(args) -> list[str]:
    """Each file is a version named by its path, so that the table and the JSON say which is which; the same
    path twice is told apart as ``(A)`` and ``(B)``."""
    names = [str(args.base), str(args.new)]
    if names[0] == names[1]:
        names = [f"{names[0]} (A)", f"{names[1]} (B)"]
    return names


def _print_report(report, args, said: list) -> int:
    """Print a comparison in the format asked; the exit status (1 for a regression with --fail-on-regression)."""
    if args.output == "json":
        import json

        document = json.loads(report.format("json"))
        document["said"] = said
        print(json.dumps(document, indent=2))
    else:
        print(report.format(args.output))
        for line in said:
            print(line)
    return 1 if args.fail_on_regression and report.regressions else 0


def _compare_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning of compare's (values left out with --dropna) as one line in the command line's words."""
    text = str(message).replace("; attrs['dropped'] counts them", "")
    print(f"perfstudy compare: warning: {_one_line(ValueError(text))}", file=sys.stderr)


def _compare(args) -> int:
    import warnings

    warnings.showwarning = _compare_warning
    said = []  # where the threshold and confidence came from, said under the table
    try:
        threshold = None if args.threshold is None else check_threshold(args.threshold, "--threshold")
        confidence = None if args.confidence is None else check_coverage(args.confidence, "--confidence")
        report = None
        if args.new is not None and args.by is None and args.a_version is None:
            report = _compare_go_files(args, threshold, confidence)  # two Go files: no pandas
    except (ValueError, TypeError, OSError) as error:
        print(f"perfstudy compare: {_one_line(error)}", file=sys.stderr)
        return 2
    if report is not None:  # printed outside the try: a closed pipe is not unusable input
        return _print_report(report, args, said)
    return _compare_frames(args, threshold, confidence, said)


def _compare_frames(args, threshold, confidence, said: list) -> int:
    """``perfstudy compare`` through :func:`perfstudy.comparison.compare` on the files' DataFrames."""
    from perfstudy.comparison import compare
    from perfstudy.experiment import is_run_file, read_run
    from perfstudy.io import read

    try:
        block, sequential = args.block, False
        statistic = args.statistic or "mean"
        read_dropped = 0
        if args.new is not None:
            if args.by is not None or args.a_version is not None:
                raise ValueError(
                    "--by and --a-version split one file into two versions; with two files, each file "
                    "is a version (BASE is A)"
                )
            for path in (args.base, args.new):
                if is_run_file(path):  # as one side, its A and B would be pooled into one version
                    raise ValueError(
                        f"{path} is a perfstudy run's file, which holds both versions: compare it alone "
                        f"(perfstudy compare {path})"
                    )
            import pandas as pd

            names = _file_labels(args)
            frames = [
                read(path, args.input_format, dropna=args.dropna).assign(version=v)
                for v, path in zip(names, (args.base, args.new))
            ]
            frame, by, baseline = pd.concat(frames, ignore_index=True), "version", names[0]
            read_dropped = sum(int(f.attrs.get("dropped", 0)) for f in frames)
        elif is_run_file(args.base) and args.input_format in ("auto", "csv"):
            # perfstudy run's file: A and B as its record says, its failed batches left out, paired by round
            # with the anytime interval (it looked after every round), judged by its own threshold
            if args.by not in (None, "version") or args.a_version not in (None, "A"):
                raise ValueError(
                    f"{args.base} is a perfstudy run's file: its versions are A and B as its record "
                    "says; drop --by and --a-version"
                )
            run_file = read_run(args.base)
            if run_file.failed_rows:
                print(f"perfstudy compare: {run_file.failed_rows} rows of failed batches left out", file=sys.stderr)
            frame, by, baseline = run_file.frame, "version", run_file.baseline
            block, sequential = block or "round", run_file.rule if block in (None, "round") else False
            if args.statistic is None:
                statistic = run_file.statistic
                said.append(f"each batch's {statistic} (the run's own), rounds judged by the {run_file.rule} rule")
            if threshold is None:
                threshold = run_file.threshold
                said.append(f"threshold {100 * threshold:g}% (the run's own; --threshold overrides)")
            else:
                said.append(
                    f"threshold {100 * threshold:g}% (--threshold; the run was judged by {100 * run_file.threshold:g}%)"
                )
            if confidence is None:
                confidence = run_file.confidence
                said.append(f"confidence {100 * confidence:g}% (the run's own)")
            commands = run_file.commands
            said.append(f"A: {commands['A']}; B: {commands['B']}")
        else:
            frame, by = read(args.base, args.input_format, dropna=args.dropna), args.by or "version"
            read_dropped = int(frame.attrs.get("dropped", 0))
            if by not in frame.columns:
                keys = [c for c in frame.columns if c not in ("value", "iteration", "warmup")]
                raise ValueError(
                    f"--by {by}: {args.base} has no such column or configuration key; it has {keys}. "
                    "Give two files (BASE NEW), or --by naming what tells the versions apart"
                )
            baseline = _baseline(frame[by], args.a_version, by)
        result = compare(
            frame,
            by=by,
            baseline=baseline,
            cluster=args.cluster,
            statistic=statistic,  # pyright: ignore[reportArgumentType]
            confidence=0.95 if confidence is None else confidence,
            threshold=default("compare", "threshold") if threshold is None else threshold,
            correction=args.correction,
            replicates=args.replicates,
            block=block,
            sequential=sequential,  # pyright: ignore[reportArgumentType]
            dropna=args.dropna,
            rng=args.seed,
        )
        if read_dropped:
            said.append(f"{read_dropped} value(s) without a number left out when the files were read (--dropna)")
    except (ValueError, TypeError, OSError) as error:
        print(f"perfstudy compare: {_one_line(error)}", file=sys.stderr)
        return 2
    return _print_report(result.report(), args, said)


def _baseline(column, chosen, by: str):
    """Version A of one file: ``--a-version`` (matched as text against the column's values), else the first of
    the two values in sorted order, never whichever row comes first."""
    values = list(dict.fromkeys(column.dropna().tolist()))
    if chosen is None:
        return None  # compare's rule: the first in sorted order, refused where the rows put the other first
    matches = [v for v in values if str(v) == str(chosen)]
    if not matches:
        raise ValueError(f"--a-version {chosen}: not a value of {by} (it has {[str(v) for v in values][:5]})")
    return matches[0]


def main(argv=None) -> int:
    """The ``perfstudy`` command line (``python -m perfstudy``).

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status. ``report``: 0 when every notebook ran, 1 when one failed. ``compare``: 0,
        or 1 with ``--fail-on-regression`` when a benchmark is slower beyond the threshold.
        ``analyze``: 0, or 1 when its notebook failed. ``history``: 0, or 1 with ``--fail-on-regression``
        when a benchmark became slower in its newest commits. ``explore``: Voila's status when it stops. 2 on a
        usage error or unusable input.
    """
    args = _parser().parse_args(argv)
    try:
        return _command(args)
    except BrokenPipeError:  # `perfstudy compare a b | head`: the reader left; exit as a shell's SIGPIPE would
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 128 + signal.SIGPIPE


def _command(args) -> int:
    if args.command == "report":
        from perfstudy.notebook.report import execute_notebooks, format_table

        try:
            runs = execute_notebooks(
                notebooks_dir=args.notebooks,
                out_dir=args.out,
                figures_dir=args.figures,
                quick=args.quick,
                only=args.only,
                timeout=parse_duration(args.timeout, "--timeout"),
                kernel_name=args.kernel,
                html=not args.no_html,
                progress=not args.no_progress,
            )
        except (ValueError, TypeError, OSError) as error:  # bad arguments, an --out that cannot be written
            print(f"perfstudy report: {_one_line(error)}", file=sys.stderr)
            return 2
        print(format_table(runs))
        failed = [r for r in runs if r.status != "ok"]
        print(f"{len(runs) - len(failed)} of {len(runs)} notebooks ran; outputs in {args.out}/")
        return 1 if failed else 0
    if args.command == "compare":
        return _compare(args)
    if args.command == "analyze":
        return _analyze(args)
    if args.command == "run":
        return _run(args)
    if args.command == "explore":
        return _explore(args)
    if args.command == "history":
        return _history.history_command(args)
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
