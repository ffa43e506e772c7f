"""``perfstudy analyze``: its options and the analyze notebook run on the files."""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

from perfstudy._lib.checks import check_threshold
from perfstudy.cli._common import in_help, one_line as _one_line


def add_parser(commands) -> None:
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
    analysis.add_argument(
        "--dropna",
        action="store_true",
        help="leave out values that are missing or not numbers (a failed benchmark), and say how many",
    )
    analysis.add_argument("--quick", action="store_true", help="fewer replicates and permutations")
    analysis.add_argument("--no-html", action="store_true", help="skip the HTML rendering")
    analysis.add_argument("--no-progress", action="store_true", help="no progress bar")


def analyze_command(args) -> int:
    from perfstudy._lib.notebook_imports import without_iri_grammars
    from perfstudy.notebook.report import execute_analysis
    from perfstudy.report_inputs import report_inputs

    without_iri_grammars()  # this process is the command's own: 3.8 s less of papermill's import

    started = time.perf_counter()
    try:
        threshold = None if args.threshold is None else check_threshold(args.threshold, "--threshold")
        out = Path(args.out)
        if out.suffix.lower() in {".html", ".htm", ".ipynb"} and not out.is_dir():
            raise ValueError(
                f"--out is the directory the report goes into (it writes analyze.html and analyze.ipynb there), "
                f"not a file: pass --out {out.with_suffix('')}"
            )
        with warnings.catch_warnings():  # refuse unusable input by the notebook's own rules before a kernel starts
            warnings.simplefilter("ignore")  # the notebook says what --dropna left out
            report_inputs(args.files, threshold=threshold, dropna=args.dropna)
        run = execute_analysis(
            args.files,
            out_dir=args.out,
            threshold=threshold,
            quick=args.quick,
            html=not args.no_html,
            progress=not args.no_progress,
            dropna=args.dropna,
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
