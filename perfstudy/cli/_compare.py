"""``perfstudy compare``: its options; two files by :func:`perfstudy.comparison.compare_files`, one file split into
its versions by :func:`perfstudy.comparison.compare`."""

from __future__ import annotations

import sys
from typing import Any

from perfstudy._lib.checks import check_int
from perfstudy.cli._common import format_option, in_help, metric_option, one_line as _one_line, warning_lines
from perfstudy.io import FORMATS


def add_parser(commands) -> None:
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
    metric_option(comparison)
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
        default=None,
        help="multiple-comparison adjustment of the p-values over the benchmarks (default: holm)",
    )
    comparison.add_argument(
        "--replicates",
        type=int,
        default=None,
        help=f"bootstrap replicates (default {in_help('compare', 'replicates')})",
    )
    comparison.add_argument(
        "--trust-one-process",
        action="store_true",
        help="judge a benchmark whose every value on a side came from one process (pytest-benchmark's and criterion's "
        "rounds) by its interval, which covers only the noise within that process (default: its verdict is "
        "inconclusive)",
    )
    comparison.add_argument("--seed", type=int, default=None, help="seed of the bootstrap (default: random)")
    format_option(comparison)
    comparison.add_argument(
        "--fail-on-regression", action="store_true", help="exit 1 if any benchmark is slower beyond the threshold"
    )


def _compare_two_files(args, settings, said: list):
    """Two files, each a version (BASE is A), by :func:`perfstudy.comparison.compare_files`: the one path of every
    harness. Two hyperfine files of one command each, the commands different, are one benchmark named by both."""
    from perfstudy.comparison import compare_files

    if args.by is not None or args.a_version is not None:
        raise ValueError(
            "--by and --a-version split one file into two versions; with two files, each file is a version (BASE is A)"
        )
    return compare_files(args.base, args.new, settings, format=args.input_format, rng=args.seed)


def _said_dropped(count: int, said: list) -> None:
    """Said under the table: how many values --dropna left out when the files were read."""
    if count:
        said.append(f"{count} value(s) left out when the files were read (--dropna: not numbers, or runs that failed)")


def _print_report(report, args, said: list) -> int:
    """Print a comparison in the format asked; the exit status (1 for a regression with --fail-on-regression)."""
    from perfstudy.comparison.settings import ONE_PROCESS_NOTE

    notes = (note for row in report.rows for note in row["notes"])
    if args.trust_one_process and not any(note.startswith(ONE_PROCESS_NOTE) for note in notes):
        said.append(f"--trust-one-process changed nothing: no benchmark ran in {ONE_PROCESS_NOTE}")
    if args.output == "json":
        import json

        document = json.loads(report.format("json"))
        document["said"] = [*document.get("said", []), *said]  # the comparison's own, then the command line's
        print(json.dumps(document, indent=2))
    else:
        print(report.format(args.output))
        for line in said:
            print(line)
    return 1 if args.fail_on_regression and report.regressions else 0


def compare_command(args) -> int:
    with warning_lines("compare"):
        return _compare_command(args)


def _compare_command(args) -> int:
    said = []  # where the threshold and confidence came from, said under the table
    try:
        run_file = _is_run_file(args)
        settings = _settings(args, run_file)
        if args.seed is not None:
            check_int("--seed", args.seed, minimum=0, maximum=2**63 - 1)
        if args.new is None:
            report = _compare_one_file(args, settings, said, run_file)
        else:
            report = _compare_two_files(args, settings, said)
    except (ValueError, TypeError, OSError) as error:
        print(f"perfstudy compare: {_one_line(error)}", file=sys.stderr)
        return 2
    return _print_report(report, args, said)  # outside the try: a closed pipe is not unusable input


def _is_run_file(args) -> bool:
    """Whether the one file given is a perfstudy run's (its record says so), read once; two files never are (and
    the two-Go-file path imports nothing of the experiment)."""
    if args.new is not None or args.input_format not in ("auto", "csv"):
        return False
    from perfstudy.experiment import is_run_file

    return is_run_file(args.base)


def _settings(args, run_file: bool):
    """The options as one :class:`perfstudy.comparison.CompareSettings`, checked once, its errors naming the options;
    what was not given takes the table's default (a run's file replaces those with the run's own)."""
    from perfstudy.comparison.settings import CompareSettings

    block = args.block
    if block is None and run_file:
        block = "round"  # a run's file is paired by its rounds
    given: dict[str, Any] = dict(
        cluster=args.cluster,
        statistic=args.statistic,
        confidence=args.confidence,
        threshold=args.threshold,
        correction=args.correction,
        replicates=args.replicates,
        dropna=args.dropna,
        block=block,
        trust_one_process=args.trust_one_process,
        metric=args.metric,
    )
    return CompareSettings(**{key: value for key, value in given.items() if value is not None}, spelling="cli")


def _compare_one_file(args, settings, said: list, run_file: bool):
    """One file split into its two versions (``--by``, a run's record, or a hyperfine file's commands) and compared
    by :func:`perfstudy.comparison.compare` on its DataFrame."""
    from perfstudy.comparison import compare
    from perfstudy.io import read

    if run_file:
        frame, settings = _run_file(args, settings, said)
    else:
        frame = read(args.base, args.input_format, dropna=args.dropna, metric=settings.metric)
        settings = settings.replace(metric=None)  # chosen as the file was read
        read_dropped = int(frame.attrs.get("dropped", 0))
        by = args.by or "version"
        if _benchmarks_are_versions(frame, args.by):
            frame = _by_benchmark(frame, args, said)
            by = "version"
        elif by not in frame.columns:
            keys = [c for c in frame.columns if c not in ("value", "iteration", "warmup")]
            raise ValueError(
                f"--by {by}: {args.base} has no such column or configuration key; it has {keys}. "
                "Give two files (BASE NEW), or --by naming what tells the versions apart"
            )
        baseline = "A" if frame.attrs.get("baseline") is not None else _baseline(frame[by], args.a_version, by)
        settings = settings.replace(by=by, baseline=baseline)
        _said_dropped(read_dropped, said)
    return compare(frame, settings=settings, rng=args.seed).report()


def _benchmarks_are_versions(frame, by) -> bool:
    """Whether one file's benchmarks are what is compared: ``--by benchmark``, or a hyperfine export of two or more
    commands (its benchmarks are the commands) with neither ``--by`` nor a version column."""
    if by == "benchmark":
        return True
    hyperfine = frame.attrs.get("tool") == "hyperfine" and frame["benchmark"].nunique() >= 2
    return hyperfine and by in (None, "command") and "version" not in frame.columns


def _by_benchmark(frame, args, said: list):
    """One file's benchmarks as the versions (:func:`perfstudy.comparison.benchmarks_as_versions`): A is the first,
    or the one --a-version names; each other is a B in a row of its own; said under the table."""
    from perfstudy.comparison import benchmarks_as_versions

    if "version" in frame.columns:
        raise ValueError(
            f"--by benchmark: {args.base} has a version column; leave --by out to compare its versions, or drop the "
            "column to compare its benchmarks"
        )
    names = [str(name) for name in dict.fromkeys(frame["benchmark"].dropna())]
    if args.a_version is not None and str(args.a_version) not in names:
        raise ValueError(f"--a-version {args.a_version}: not a benchmark of {args.base}; it has {names[:8]}")
    laid = benchmarks_as_versions(frame, baseline=args.a_version)
    candidates = laid.attrs["candidates"]
    others = f"`{candidates[0]}`" if len(candidates) == 1 else f"each of the other {len(candidates)}, in its row"
    how = "--a-version" if args.a_version is not None else "the first; --a-version names another"
    said.append(f"A: `{laid.attrs['baseline']}` ({how}); B: {others}")
    if laid.attrs.get("cpu_means"):
        said.append(
            "NAME:cpu is user + system CPU time, of which hyperfine writes only each command's mean: a change with "
            "no interval (perfstudy run --metric cpu measures each run's)"
        )
    return laid


def _run_file(args, settings, said: list):
    """A perfstudy run's file: A and B as its record says, its failed batches left out, paired by round with the
    anytime interval (it looked after every round), judged by its own statistic, threshold and confidence where the
    options do not say otherwise (``said`` says which)."""
    from perfstudy.experiment import read_run

    if args.by not in (None, "version") or args.a_version not in (None, "A"):
        raise ValueError(
            f"{args.base} is a perfstudy run's file: its versions are A and B as its record says; drop --by and "
            "--a-version"
        )
    from perfstudy.io.harnesses import refuse_chosen_metric

    refuse_chosen_metric(
        "--metric", args.metric, f"{args.base}, a perfstudy run's file (NAME:cpu, NAME:rss are its metrics)"
    )
    run_file = read_run(args.base)
    if run_file.failed_rows:
        print(f"perfstudy compare: {run_file.failed_rows} rows of failed batches left out", file=sys.stderr)
    pairing = run_file.pairing
    changes: dict[str, Any] = dict(by="version", baseline=pairing["baseline"])
    changes["sequential"] = pairing["sequential"] if settings.block == "round" else False
    if args.statistic is None:
        changes["statistic"] = pairing["statistic"]
        said.append(f"each batch's {run_file.statistic} (the run's own), rounds judged by the {run_file.rule} rule")
    if args.threshold is None:
        changes["threshold"] = run_file.threshold
        said.append(f"threshold {100 * run_file.threshold:g}% (the run's own; --threshold overrides)")
    else:
        said.append(
            f"threshold {100 * settings.threshold:g}% (--threshold; the run was judged by "
            f"{100 * run_file.threshold:g}%)"
        )
    if args.confidence is None:
        changes["confidence"] = pairing["confidence"]
        said.append(f"confidence {100 * run_file.confidence:g}% (the run's own)")
    commands = run_file.commands
    said.append(f"A: {commands['A']}; B: {commands['B']}")
    return run_file.frame, settings.replace(**changes)


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
