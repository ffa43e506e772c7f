"""The ``perfstudy`` command (also ``python -m perfstudy``)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time

# The formats, spelt here so that `perfstudy --help` imports nothing heavy (perfstudy.io imports
# pandas); tests/test_compare_cli.py checks that they equal perfstudy.io.FORMATS.
FORMATS = (
    "auto", "pyperf", "hyperfine", "google_benchmark", "jmh", "go", "criterion", "pytest_benchmark", "asv",
    "benchmarkdotnet", "csv", "parquet",
)  # fmt: skip

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
    report.add_argument("--timeout", type=float, default=1800.0, help="seconds a cell may run (default: 1800)")
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
        "(the first to appear is A; default: version)",
    )
    comparison.add_argument(
        "--input-format",
        choices=FORMATS,
        default="auto",
        help="the files' format (default: auto, detected from the content)",
    )
    comparison.add_argument(
        "--threshold", default="0", help="smallest change that matters, e.g. 2%% or 0.02 (default 0)"
    )
    comparison.add_argument("--cluster", default="batch", help="the column to resample (default: batch)")
    comparison.add_argument(
        "--block",
        metavar="COLUMN",
        default=None,
        help="pair the versions within blocks of this column (e.g. round): each block's B/A, a paired interval; "
        "a perfstudy run file is paired by round, with its anytime-valid interval, without it",
    )
    comparison.add_argument("--statistic", choices=["mean", "median"], default="mean")
    comparison.add_argument("--confidence", type=float, default=0.95, help="interval coverage (default 0.95)")
    comparison.add_argument("--correction", choices=["holm", "bh", "none"], default="holm")
    comparison.add_argument("--replicates", type=int, default=2000, help="bootstrap replicates (default 2000)")
    comparison.add_argument("--seed", type=int, default=None, help="seed of the bootstrap")
    comparison.add_argument("--format", choices=["table", "markdown", "json"], default="table", dest="output")
    comparison.add_argument(
        "--fail-on-regression", action="store_true", help="exit 1 if any benchmark is slower beyond the threshold"
    )
    _run_parser(commands)
    analysis = commands.add_parser(
        "analyze",
        help="a report on benchmark files: diagnostics, comparison, advice (executed notebook + HTML)",
        description="Run the analyze notebook on FILE... (pyperf, hyperfine, Google Benchmark, JMH JSON or "
        "tidy CSV; with two files, the second is compared against the first) and write the executed notebook, "
        "its HTML and figures into --out. Exit status 1 if the notebook failed, 2 for unusable input.",
    )
    analysis.add_argument("files", metavar="FILE", nargs="+", help="benchmark files")
    analysis.add_argument("--out", default="build/analyze", help="output directory (default: build/analyze)")
    analysis.add_argument("--threshold", default="2%", help="smallest change that matters (default 2%%)")
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
        "Ctrl-C or SIGTERM stops after the running batch. Exit status as perfstudy compare (1 with "
        "--fail-on-regression and a slower benchmark, 2 for unusable input); a failing command's own status.",
    )
    experiment.add_argument("--a", metavar="CMD", help="version A's command (the baseline)")
    experiment.add_argument("--b", metavar="CMD", help="version B's command")
    experiment.add_argument("--name", default=None, help="the benchmark's name (default: command)")
    experiment.add_argument(
        "--threshold", default="5%", help="smallest change that matters, with its unit: 5%% (default)"
    )
    experiment.add_argument("--confidence", type=float, default=0.95, help="coverage at every round at once (0.95)")
    experiment.add_argument("--values", type=int, default=3, help="measured runs per batch (default 3)")
    experiment.add_argument("--warmup", type=int, default=1, help="warm-up runs per batch, left out (default 1)")
    experiment.add_argument("--min-rounds", type=int, default=5, help="rounds before a verdict may stop (default 5)")
    experiment.add_argument("--max-rounds", type=int, default=100, help="the budget in rounds (default 100)")
    experiment.add_argument("--max-time", default=None, help="the budget in time, with its unit: 10m, 90s, 2h")
    experiment.add_argument("--out", default="runs.csv", help="the run's file (default runs.csv; and OUT.json)")
    experiment.add_argument("--resume", action="store_true", help="continue the run in --out")
    experiment.add_argument("--seed", type=int, default=None, help="seed of the rounds' orders (default: random)")
    experiment.add_argument(
        "--measure",
        default="time",
        help="time (the command's wall-clock time, default) or the format the command prints "
        "(go, pyperf, google_benchmark, hyperfine, jmh, ...): one round then yields many benchmarks",
    )
    experiment.add_argument("--timeout", type=float, default=None, help="seconds one run may take")
    experiment.add_argument("--ignore-failures", action="store_true", help="record a failing batch and go on")
    experiment.add_argument(
        "--scheduler", metavar="ADDRESS", default=None, help="a Dask scheduler, or local:N worker processes"
    )
    experiment.add_argument(
        "--plan",
        metavar="PILOT",
        default=None,
        help="instead of running: propose hosts x rounds for --threshold from a pilot run's file",
    )
    experiment.add_argument("--format", choices=["table", "markdown", "json"], default="table", dest="output")
    experiment.add_argument(
        "--fail-on-regression", action="store_true", help="exit 1 if a benchmark is slower beyond the threshold"
    )
    experiment.add_argument("--no-progress", action="store_true", help="no progress bar")


def _unit_threshold(text: str) -> float:
    """``--threshold`` of ``perfstudy run``: a percentage with its sign, e.g. ``5%``."""
    stripped = text.strip()
    if not stripped.endswith("%"):
        raise ValueError(f"--threshold {text}: missing its unit; write it as a percentage, e.g. 5%")
    try:
        value = float(stripped[:-1]) / 100
    except ValueError:
        raise ValueError(f"--threshold {text}: expected a percentage such as 5%") from None
    if not 0 <= value < 1:
        raise ValueError(f"--threshold {text}: expected a percentage from 0% to below 100%")
    return value


def _duration(text: str) -> float:
    """``--max-time``: a duration with its unit (``10m``, ``90s``, ``2h``), in seconds."""
    import re

    found = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*(s|m|min|h)\s*", text)
    if not found:
        raise ValueError(f"--max-time {text}: expected a duration with its unit, e.g. 90s, 10m or 2h")
    seconds = float(found.group(1)) * {"s": 1, "m": 60, "min": 60, "h": 3600}[found.group(2)]
    if seconds <= 0:
        raise ValueError(f"--max-time {text}: expected a positive duration")
    return seconds


def _run(args) -> int:
    import warnings

    from perfstudy.compare import format_comparison

    try:
        threshold = _unit_threshold(args.threshold)
        if args.plan is not None:
            from perfstudy.plan import format_plan, plan_rounds

            print(format_plan(plan_rounds(args.plan, threshold=threshold, confidence=args.confidence)))
            return 0
        for option, command in (("--a", args.a), ("--b", args.b)):
            if command is None or not command.strip():
                raise ValueError(f"{option}: missing; give the command of version {option[2:].upper()}")
        max_time = None if args.max_time is None else f"{_duration(args.max_time)}s"
        from perfstudy.environment import NoisyMachineWarning
        from perfstudy.run import run

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NoisyMachineWarning)  # the machine's warnings are printed below
            result = run(
                args.a, args.b, name=args.name, threshold=threshold, confidence=args.confidence, values=args.values,
                warmup=args.warmup, min_rounds=args.min_rounds, max_rounds=args.max_rounds, max_time=max_time,
                out=args.out, resume=args.resume, seed=args.seed, measure=args.measure, scheduler=args.scheduler,
                ignore_failures=args.ignore_failures, timeout=args.timeout, progress=not args.no_progress,
            )  # fmt: skip
    except (ValueError, TypeError, OSError, ImportError) as error:
        print(f"perfstudy run: {_one_line(error)}", file=sys.stderr)
        return 2
    for text in result.environment.get("warnings", ()):
        print(f"perfstudy run: warning: {text}", file=sys.stderr)
    if result.failure:
        print(f"perfstudy run: {result.failure}", file=sys.stderr)
    if result.comparison is None:
        print(f"perfstudy run: stopped ({result.stopped}) before a round completed; rows in {result.path}",
              file=sys.stderr)  # fmt: skip
        return result.exit_status or 2
    if args.output == "json":
        import json

        document = json.loads(format_comparison(result.comparison, "json"))
        document.update(rounds=result.rounds, stopped=result.stopped, file=result.path)
        print(json.dumps(document, indent=2))
    else:
        print(format_comparison(result.comparison, args.output))
        print(f"{result.rounds} rounds, stopped: {result.stopped}; every batch in {result.path}")
    if result.failure:
        return result.exit_status
    return 1 if args.fail_on_regression and len(result.comparison.regressions) else 0


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
        sys.executable, "-m", "voila", str(notebook), "--Voila.ip=127.0.0.1", f"--port={args.port}",
        "--ServerApp.port_retries=0", "--show_tracebacks=False",
        # a kernel that has already run the notebook waits for the first visitor: the landing tab shows at once
        "--preheat_kernel=True", "--pool_size=1",
    ]  # fmt: skip
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
    from perfstudy.io import read
    from perfstudy.report import run_analysis

    started = time.perf_counter()
    try:
        threshold = _threshold(args.threshold)
        for path in args.files:  # refuse unreadable input before starting a kernel
            read(path)
        run = run_analysis(
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


def _threshold(text: str) -> float:
    """``"2%"`` or ``"0.02"`` as 0.02."""
    try:
        stripped = text.strip()
        return float(stripped[:-1]) / 100 if stripped.endswith("%") else float(stripped)
    except ValueError:
        raise ValueError(f"--threshold {text}: expected a relative change such as 2% or 0.02") from None


def _compare(args) -> int:
    from perfstudy.compare import compare, format_comparison
    from perfstudy.io import read

    try:
        threshold = _threshold(args.threshold)
        if args.new is not None:
            if args.by is not None:
                raise ValueError("--by splits one file into two versions; with two files, each file is a version")
            import pandas as pd

            # each file is a version named by its path, so that the table and the JSON say which is which
            names = [str(args.base), str(args.new)]
            if names[0] == names[1]:
                names = [f"{names[0]} (A)", f"{names[1]} (B)"]
            frames = [read(path, args.input_format).assign(version=v) for v, path in zip(names, (args.base, args.new))]
            frame, by, baseline = pd.concat(frames, ignore_index=True), "version", names[0]
        else:
            frame, by = read(args.base, args.input_format), args.by or "version"
            if by not in frame.columns:
                keys = [c for c in frame.columns if c not in ("value", "iteration", "warmup")]
                raise ValueError(
                    f"--by {by}: {args.base} has no such column or configuration key; it has {keys}. "
                    "Give two files (BASE NEW), or --by naming what tells the versions apart"
                )
            present = frame[by].dropna()
            baseline = present.iloc[0] if len(present) else None
        block, sequential = args.block, False
        if args.new is None and _is_run_file(args.base):
            # perfstudy run's file: its failed batches are left out, and it looked after every round
            import numpy as np

            failed = np.asarray(frame["exit_status"] != 0)
            if failed.any():
                print(f"perfstudy compare: {int(failed.sum())} rows of failed batches left out", file=sys.stderr)
            frame = frame.loc[~failed]
            block, sequential = block or "round", block in (None, "round")
        result = compare(
            frame,
            by=by,
            baseline=baseline,
            cluster=args.cluster,
            statistic=args.statistic,
            confidence=args.confidence,
            threshold=threshold,
            correction=args.correction,
            replicates=args.replicates,
            block=block,
            sequential=sequential,
            rng=args.seed,
        )
    except (ValueError, TypeError, OSError) as error:
        print(f"perfstudy compare: {_one_line(error)}", file=sys.stderr)
        return 2
    print(format_comparison(result, args.output))
    return 1 if args.fail_on_regression and len(result.regressions) else 0


def _is_run_file(path) -> bool:
    """Whether ``path`` is a file that ``perfstudy run`` wrote (its experiment record beside it)."""
    from perfstudy.run import read_experiment

    try:
        return str(read_experiment(path).get("schema", "")).startswith("perfstudy.run/")
    except (OSError, ValueError, AttributeError):
        return False


def _one_line(error: BaseException) -> str:
    """An error as one line: an OSError's own message without errno's prefix."""
    if isinstance(error, OSError) and error.strerror:
        text = f"{error.strerror}" + (f": {error.filename}" if error.filename else "")
    else:
        text = str(error)
    return " ".join(text.split())


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
        ``analyze``: 0, or 1 when its notebook failed. ``explore``: Voila's status when it stops. 2 on a
        usage error or unusable input.
    """
    args = _parser().parse_args(argv)
    if args.command == "report":
        from perfstudy.report import format_table, run_notebooks

        try:
            runs = run_notebooks(
                notebooks_dir=args.notebooks,
                out_dir=args.out,
                figures_dir=args.figures,
                quick=args.quick,
                only=args.only,
                timeout=args.timeout,
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
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
