"""The ``perfstudy`` command (also ``python -m perfstudy``)."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys

from perfstudy._lib.checks import parse_duration
from perfstudy.cli import _analyze, _bisect, _compare, _explore, _history, _run
from perfstudy.cli._common import in_options, one_line as _one_line

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="perfstudy", description="perfstudy: benchmarking that can be trusted.")
    parser.add_argument("--version", action=_VersionAction)
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
    report.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="notebooks run at once; a notebook that times this machine under its own load (09) still runs alone "
        "(default: the CPUs, at most 4)",
    )
    report.add_argument("--kernel", default="python3", help="Jupyter kernel name (default: python3)")
    report.add_argument("--no-html", action="store_true", help="skip the HTML rendering")
    report.add_argument("--no-progress", action="store_true", help="no progress bars")
    _compare.add_parser(commands)
    _run.add_parser(commands)
    _history.add_parser(commands)
    _bisect.add_parser(commands)
    _analyze.add_parser(commands)
    _explore.add_parser(commands)
    return parser


class _VersionAction(argparse.Action):
    """``--version``: the installed version, looked up only when asked (importlib.metadata is 30 ms of every
    command's start on 2 cores, a tenth of a 200-benchmark compare)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help or "show the version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(f"perfstudy {_version()}\n")  # where argparse's own version action writes it
        parser.exit()


def _version() -> str:
    """The installed distribution's version (an uninstalled checkout says so)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("perfstudy")
    except PackageNotFoundError:  # pragma: no cover - run from a checkout that was never installed
        return "(not installed)"


#: the modules of each optional extra (pyproject.toml): a command that needs one names the extra
EXTRAS = {
    **dict.fromkeys(("scipy", "statsmodels", "nlopt", "threadpoolctl"), "stats"),
    **dict.fromkeys(
        (
            "matplotlib",
            "ipywidgets",
            "papermill",
            "jupyterlab",
            "ipykernel",
            "jupyter_client",
            "nbconvert",
            "nbformat",
            "latex2mathml",
            "IPython",
        ),
        "notebooks",
    ),
    "voila": "explore",
    "dask": "dask",
    "distributed": "dask",
}


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
        when a benchmark became slower in its newest commits. ``bisect``: 0 when it ends. ``explore``: Voila's status when it stops. 2 on a
        usage error or unusable input.
    """
    args = _parser().parse_args(argv)
    try:
        return _command(args)
    except ModuleNotFoundError as error:  # a command that needs an extra the install left out
        extra = EXTRAS.get(str(error.name or "").split(".")[0])
        if extra is None:
            raise
        from perfstudy._lib.extras import install_hint

        print(
            f"perfstudy {args.command}: this needs {error.name}, which comes with the [{extra}] extra: "
            f"{install_hint(extra)}",
            file=sys.stderr,
        )
        return 2
    except BrokenPipeError:  # `perfstudy compare a b | head`: the reader left; exit as a shell's SIGPIPE would
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 128 + signal.SIGPIPE


def _check_readme(args, runs) -> None:
    """After a full report of every notebook: README's table of results against this run's sentences, into
    ``OUT/readme_check.md``, and one line that says what it found."""
    from pathlib import Path

    from perfstudy.notebook.readme_rows import check_readme, format_unquoted
    from perfstudy.notebook.report import default_notebooks_dir

    readme = Path(args.notebooks or default_notebooks_dir()).resolve().parent / "README.md"
    if args.quick or args.only or not readme.is_file() or any(r.status != "ok" for r in runs):
        return
    missing = check_readme(readme, args.out)
    (Path(args.out) / "readme_check.md").write_text(format_unquoted(missing))
    count = sum(map(len, missing.values()))
    print(
        f"README's table of results: {count} number(s) in {len(missing)} row(s) not in this run's sentences; "
        f"see {args.out}/readme_check.md"
        if count
        else "README's table of results: every number is in this run's sentences"
    )


def _report_jobs(jobs: int | None) -> int:
    """``--jobs`` as given, else the CPUs this process may use, at most 4."""
    if jobs is not None:
        return jobs
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(4, cpus))


def _command(args) -> int:
    if args.command == "report":
        from perfstudy._lib.notebook_imports import without_iri_grammars
        from perfstudy.notebook.report import execute_notebooks, format_table

        without_iri_grammars()  # this process is the command's own

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
                jobs=_report_jobs(args.jobs),
            )
        except (ValueError, TypeError, OSError) as error:  # bad arguments, an --out that cannot be written
            print(f"perfstudy report: {in_options(_one_line(error), {'jobs': '--jobs'})}", file=sys.stderr)
            return 2
        print(format_table(runs))
        failed = [r for r in runs if r.status != "ok"]
        print(f"{len(runs) - len(failed)} of {len(runs)} notebooks ran; outputs in {args.out}/")
        _check_readme(args, runs)
        return 1 if failed else 0
    if args.command == "compare":
        return _compare.compare_command(args)
    if args.command == "analyze":
        return _analyze.analyze_command(args)
    if args.command == "run":
        return _run.run_command(args)
    if args.command == "explore":
        return _explore.explore_command(args)
    if args.command == "history":
        return _history.history_command(args)
    if args.command == "bisect":
        return _bisect.bisect_command(args)
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
