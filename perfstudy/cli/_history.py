"""``perfstudy history``: its options and what it prints."""

from __future__ import annotations

import sys
from typing import Any

from perfstudy._lib.checks import check_int
from perfstudy._lib.defaults import default, shown
from perfstudy.cli._common import check_output, in_help, metric_option, one_line
from perfstudy.io.harnesses import MEASURED_FORMATS

__all__ = ["add_parser", "history_command"]


def add_parser(commands) -> None:
    history = commands.add_parser(
        "history",
        help="change points over a project's commits: which commit changed a benchmark, by how much",
        description="Find where each benchmark's level (slower, faster) or spread (noisier, quieter) changed "
        "over a project's commits. PATH is a tidy CSV/Parquet file (commit, value; benchmark, timestamp "
        "optional), a perfstudy run's file, an asv results directory, or a folder of any harness's files "
        "ordered by --manifest (a CSV of commit,path, oldest first) or by the dates they record. The "
        "measurements of one commit are a cluster. False discoveries are held at --fdr across benchmarks "
        "(Benjamini-Hochberg). Exit status 1 with --fail-on-regression when a benchmark became slower in its "
        "newest --recent commits, 2 for unusable input.",
    )
    history.add_argument("path", metavar="PATH", help="a tidy file, a run's file, an asv results directory or a folder")
    history.add_argument("--manifest", default=None, help="CSV of commit,path naming each file's commit, oldest first")
    history.add_argument("--format", choices=("table", "markdown", "json", "html"), default="table")
    history.add_argument("--out", default=None, help="write the report here instead of standard output")
    history.add_argument("--commit", default="commit", help="the commit column of a tidy file (default: commit)")
    history.add_argument("--value", default="value", help="the measured column of a tidy file (default: value)")
    history.add_argument(
        "--benchmark",
        default="benchmark",
        help="the benchmark column of a tidy file (default: benchmark; none: one series)",
    )
    history.add_argument(
        "--timestamp",
        default=None,
        help="a column of dates that orders a tidy file's commits (default: 'timestamp' where present, else the rows' order)",
    )
    history.add_argument(
        "--unit",
        default="unit",
        help="the unit column of a tidy file (default: unit); units that convert are converted",
    )
    history.add_argument(
        "--dropna",
        action="store_true",
        help="leave out measurements without a value (gaps, failed runs), and count them",
    )
    metric_option(history)
    history.add_argument(
        "--fdr", type=float, default=default("history", "fdr"), help="false discovery rate across benchmarks (0.05)"
    )
    history.add_argument(
        "--threshold",
        default=shown("history", "threshold"),
        help=f"smallest level change reported: 1%% or 0.01 (default {in_help('history', 'threshold')})",
    )
    history.add_argument(
        "--confidence", default=shown("history", "confidence"), help="coverage of the intervals (default 0.95)"
    )
    history.add_argument(
        "--min-side",
        type=int,
        default=default("history", "min_side"),
        help="fewest commits on either side of a change (5)",
    )
    history.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 if a benchmark became slower in its newest --recent commits",
    )
    history.add_argument(
        "--recent",
        type=int,
        default=None,
        help="how many newest commits --fail-on-regression looks at (default: --min-side)",
    )
    history.add_argument(
        "--confirm",
        metavar="TEMPLATE",
        default=None,
        help="bisect each change point that became slower in the newest --recent commits, from the commit before "
        "its range to its range's last, running TEMPLATE ({commit} where the commit goes, {benchmark} where its "
        "name goes) in interleaved rounds as perfstudy bisect does; with --fail-on-regression the exit status is 1 "
        "only for a regression a bisect confirms (its bad commit slower beyond the threshold, whether the bisect "
        "then names the commit or leaves a range)",
    )
    history.add_argument(
        "--confirm-max-time", default=None, help="each confirming bisect step's budget in time: 2m (default: none)"
    )
    history.add_argument(
        "--confirm-threshold",
        default=None,
        help="the confirming bisects' threshold: 5%% or 0.05 (default: --threshold). A step must tell a change "
        "beyond it from none, which at 1%% on wall time can take thousands of rounds",
    )
    history.add_argument(
        "--confirm-setup",
        metavar="CMD",
        default=None,
        help="run once per version before each confirming bisect step, {commit} each version's commit, as "
        "perfstudy bisect --setup (default: none)",
    )
    history.add_argument(
        "--confirm-measure",
        metavar="FORMAT",
        default=None,
        choices=MEASURED_FORMATS,
        help="the format TEMPLATE prints (go, pyperf, google_benchmark, ...): each confirming bisect then follows "
        "the regressed benchmark in it by name, judging --metric (default: TEMPLATE is timed, one benchmark)",
    )
    history.add_argument("--no-progress", action="store_true", help="no progress bar")


def history_command(args) -> int:
    from perfstudy.changes import HistorySettings, history, read_history

    try:
        check_output(args.out, "--out")
        settings = HistorySettings(
            commit=args.commit,
            value=args.value,
            benchmark=None if args.benchmark in ("", "none") else args.benchmark,
            timestamp=args.timestamp,
            unit=args.unit,
            dropna=args.dropna,
            metric=args.metric,
            fdr=args.fdr,
            threshold=args.threshold,
            confidence=args.confidence,
            min_side=args.min_side,
            progress=not args.no_progress and sys.stderr.isatty(),
            spelling="cli",
        )
        frame = read_history(args.path, manifest=args.manifest, settings=settings)
        ordered = "timestamp" in frame.columns and frame.attrs.get("order") == "timestamp"
        result = history(frame, settings=settings.standard(ordered=ordered))
        recent = args.min_side if args.recent is None else check_int("--recent", args.recent, maximum=2**31)
        newest = result.newest(recent) if args.fail_on_regression or args.confirm is not None else None
        if args.confirm_max_time is not None:
            from perfstudy._lib.checks import check_duration

            if args.confirm is None:
                raise ValueError("--confirm-max-time: only with --confirm TEMPLATE")
            check_duration("--confirm-max-time", args.confirm_max_time)
        for option, value in (("--confirm-threshold", args.confirm_threshold), ("--confirm-setup", args.confirm_setup),
                              ("--confirm-measure", args.confirm_measure)):  # fmt: skip
            if value is not None and args.confirm is None:
                raise ValueError(f"{option}: only with --confirm TEMPLATE")
        if args.confirm_threshold is not None:
            from perfstudy._lib.checks import check_threshold

            args.confirm_threshold = check_threshold(args.confirm_threshold, "--confirm-threshold")
            if args.confirm_threshold == 0:
                raise ValueError("--confirm-threshold 0: a bisect needs a threshold above 0")
        confirmed = None
        if args.confirm is not None:
            if "{commit}" not in args.confirm:
                raise ValueError(f"--confirm {args.confirm!r}: put {{commit}} where the commit goes")
            confirmed = _confirm(result, newest[newest["verdict"] == "slower"], args)  # pyright: ignore
    except (ValueError, TypeError, OSError, KeyError, RuntimeError) as error:
        print(f"perfstudy history: {one_line(error)}", file=sys.stderr)
        return 2
    text = result.format(args.format)
    if confirmed is not None:
        text = _with_confirmations(text, confirmed, args.format)
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8") as handle:
                handle.write(text + "\n")
        except OSError as error:
            print(f"perfstudy history: --out: {one_line(error)}", file=sys.stderr)
            return 2
        print(f"perfstudy history: wrote {args.out}", file=sys.stderr)
    else:
        print(text)
    if newest is None or not args.fail_on_regression:
        return 0
    slower = newest[newest["verdict"] == "slower"]
    if confirmed is not None:
        return _gate(confirmed, len(slower), recent)
    need = result.series["commits_needed"]
    after = int(result.series["commits_after_needed"].to_numpy().min())
    judged = f"the newest {after - 1} commit(s) of each benchmark cannot be judged yet"
    short = result.series[result.series["commits"] < 2 * need]
    if len(short):
        judged += f"; {len(short)} benchmark(s) are too short for any change to be found"
    unseen = [f"{b}'s newest {n} (from {first})" for b, first, _, n, newest in result.unseen if newest]
    if unseen:  # after a change point near the newest commit, a second change goes unseen
        judged += f"; after a change point, too few commits for another to be found: {', '.join(unseen[:4])}"
    if len(slower):
        names = ", ".join(f"{b} (commit {c})" for b, c in zip(slower["benchmark"], slower["commit"], strict=True))
        print(f"perfstudy history: slower in the newest {recent} commit(s): {names}; {judged}", file=sys.stderr)
        return 1
    print(f"perfstudy history: no benchmark slower in its newest {recent} commit(s); {judged}", file=sys.stderr)
    return 0


def _gate(confirmed: list, suspected: int, recent: int) -> int:
    """The exit status of ``--fail-on-regression --confirm``: 1 for a regression a bisect confirms, which is a bad
    commit measured slower than the good one beyond the threshold, whether the bisect then named its commit or left
    it in a range; an interrupted bisect's own status (130, 143), as no gate can pass on it."""
    interrupted = [b for _, b in confirmed if b.stopped == "interrupted"]
    if interrupted:
        print("perfstudy history: a confirming bisect was interrupted; no regression gate is given", file=sys.stderr)
        return interrupted[0].exit_status
    slower = [
        f"{name} (commit {b.culprit})"
        if b.culprit is not None
        else f"{name} (in {b.range[0]} to {b.range[-1]}, both included, {b.stopped})"
        for name, b in confirmed
        if b.direction == "slower"
    ]
    unsure = [name for name, b in confirmed if not b.direction and b.stopped == "undecided"]
    said = f"{suspected} suspected, {len(slower)} confirmed by an interleaved bisect"
    if unsure:
        said += (
            f"; {len(unsure)} neither confirmed nor ruled out (the bad commit's step undecided): {', '.join(unsure)}"
        )
    if slower:
        print(f"perfstudy history: slower, confirmed: {', '.join(slower)}; {said}", file=sys.stderr)
        return 1
    print(f"perfstudy history: no regression confirmed in the newest {recent} commit(s); {said}", file=sys.stderr)
    return 0


def _metric(benchmark: str) -> tuple[str, str]:
    """A series' benchmark and the metric its values measure, by the suffix ``perfstudy run`` gives a metric
    (``prog:cpu`` is prog's CPU time; ``:rss``, its peak memory); no suffix: its wall time."""
    from perfstudy._lib.units import METRIC_SUFFIXES, metric_of

    metric = metric_of(benchmark)
    return benchmark.removesuffix(METRIC_SUFFIXES[metric]), metric


def _confirm(result, suspects, args) -> list:
    """One interleaved bisect per suspected regression: from the commit before its range to the range's last."""
    from perfstudy.experiment.bisection import bisect

    out = []
    commits = result.commits
    for row in suspects.itertuples(index=False):
        order = commits.loc[commits["benchmark"] == row.benchmark, "commit"].tolist()
        first = max(int(row.range_first_index) - 1, 0)
        chosen = [str(c) for c in order[first : int(row.range_last_index) + 1]]
        name, metric = _metric(str(row.benchmark))
        how, followed = f"its {metric} time", {"metric": metric}
        if args.confirm_measure is not None:  # the harness's output is read; the bisect follows this benchmark in it
            name = str(row.benchmark)
            how = f"its {args.metric or 'value'} in TEMPLATE's {args.confirm_measure} output"
            followed: dict[str, Any] = dict(measure=args.confirm_measure, benchmark=name, metric=args.metric)
        template = args.confirm.replace("{benchmark}", name)
        threshold = result.threshold if args.confirm_threshold is None else args.confirm_threshold
        print(
            f"perfstudy history: confirming {row.benchmark}: bisect of the commits {chosen[0]} to {chosen[-1]} "
            f"({len(chosen) - 1} after the good one) by {how}",
            file=sys.stderr,
        )
        found = bisect(
            chosen,
            template,
            threshold=threshold,
            confidence=result.confidence,
            **followed,
            setup=args.confirm_setup,
            max_time=args.confirm_max_time,
            progress=not args.no_progress,
        )
        out.append((str(row.benchmark), found))
    return out


def _with_confirmations(text: str, confirmed: list, format: str) -> str:
    """The history's report followed by each confirming bisect's, in the same format (JSON: one object)."""
    if format == "json":
        import json

        return json.dumps(
            {
                "history": json.loads(text),
                "confirmations": [{"benchmark": name, **json.loads(b.format("json"))} for name, b in confirmed],
            },
            indent=2,
        )
    if format == "html":
        import html

        parts = "".join(
            f"<h2>Bisect of the suspected regression {html.escape(name)}</h2><pre>{html.escape(b.format('table'))}</pre>"
            for name, b in confirmed
        )
        return text.replace("</body></html>", parts + "</body></html>")
    head = "### " if format == "markdown" else ""
    if not confirmed:
        return text + f"\n\n{head}No suspected regression in the newest commits to confirm."
    return text + "".join(
        f"\n\n{head}Bisect of the suspected regression {name}\n\n{b.format(format)}" for name, b in confirmed
    )
