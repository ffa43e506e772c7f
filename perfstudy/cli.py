"""The ``perfstudy`` command (also ``python -m perfstudy``)."""

from __future__ import annotations

import argparse
import sys

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
    return parser


def main(argv=None) -> int:
    """The ``perfstudy`` command line (``python -m perfstudy``).

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 when every notebook ran, 1 when one failed, 2 on a usage error.
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
        except ValueError as error:
            print(f"perfstudy report: {error}", file=sys.stderr)
            return 2
        print(format_table(runs))
        failed = [r for r in runs if r.status != "ok"]
        print(f"{len(runs) - len(failed)} of {len(runs)} notebooks ran; outputs in {args.out}/")
        return 1 if failed else 0
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
