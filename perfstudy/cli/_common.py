"""What every command of ``perfstudy`` shares: an error as one line in the command line's words, and an
output file checked before any work."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from perfstudy._lib.defaults import shown

__all__ = ["benchmark_option", "check_output", "format_option", "in_help", "in_options", "metric_option", "one_line"]


def in_help(verb: str, option: str) -> str:
    """A default from the table of defaults as argparse's help text needs it (a percent sign doubled)."""
    return shown(verb, option).replace("%", "%%")


#: the library's advice as the command line says it: a message names the option, never a Python argument
_ADVICE = (
    ("pass dropna=True", "pass --dropna"),
    ("with dropna=True", "with --dropna"),
    ("(dropna=True)", "(--dropna)"),
    ("dropna=True", "--dropna"),
    ("say which with format= (--input-format on the command line)", "say which with --input-format"),
    ("say which with format=", "say which with --input-format"),
    ("; attrs['dropped'] counts them", ""),  # a frame's attribute; the command line counts under its table
)


def one_line(error: BaseException) -> str:
    """An error as one line: an OSError's own message without errno's prefix, the library's advice in options."""
    if isinstance(error, OSError) and error.strerror:
        text = f"{error.strerror}" + (f": {error.filename}" if error.filename else "")
    else:
        text = str(error)
    for library, option in _ADVICE:
        text = text.replace(library, option)
    text = re.sub(r"\bmetric='([^']*)'", r"--metric \1", text)  # a harness's metric, as read() names it
    return " ".join(text.split())


def benchmark_option(parser) -> None:
    """``--benchmark``: with ``--measure FORMAT``, the one benchmark of the harness's output that is judged."""
    parser.add_argument(
        "--benchmark",
        metavar="NAME",
        default=None,
        help="with --measure FORMAT, judge only this benchmark of the harness's output, as it names it (Go's "
        "-GOMAXPROCS suffix may be left off: Parse for Parse-8); the others are recorded, not judged (default: "
        "every benchmark both versions ran)",
    )


def layout_option(parser) -> None:
    """``--no-randomize-layout``: every batch with one memory layout (``layout=False``)."""
    parser.add_argument(
        "--no-randomize-layout",
        dest="layout",
        action="store_false",
        default=None,
        help="give every batch the same memory layout; by default each batch's environment is padded by 0-4095 "
        "bytes drawn at random (PERFSTUDY_LAYOUT), which moves its stack, so that a difference only the layout "
        "makes is carried by the interval instead of called a change",
    )


def metric_option(parser) -> None:
    """``--metric``: which of a harness's metrics is judged, its help from the harnesses' registry."""
    from perfstudy.io.harnesses import harness_metrics

    parser.add_argument(
        "--metric",
        metavar="METRIC",
        default=None,
        help=f"which of a harness's metrics is judged, where its files carry several: {harness_metrics()}",
    )


def check_output(path, option: str) -> None:
    """An output file that can be written, checked before any work: not a folder, in a folder that exists and
    that this process may write in."""
    if path is None:
        return
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"{option} {path}: a folder; give a file's path")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise ValueError(f"{option} {path}: the folder {folder} does not exist")
    if target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"{option} {path}: the file cannot be written (no permission)")
    if not target.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {path}: the folder {folder} cannot be written in (no permission)")


def format_option(parser) -> None:
    """The --format option of compare and run: a table, Markdown or JSON (into ``args.output``)."""
    parser.add_argument(
        "--format",
        choices=["table", "markdown", "json"],
        default="table",
        dest="output",
        help="the output: a table, Markdown for a pull request, or JSON (default: table)",
    )


def in_options(text: str, options: dict) -> str:
    """A library message in the command line's words: ``max_rounds=1:`` as ``--max-rounds 1:``, ``prepare:`` as
    ``--prepare:``, wherever a name of ``options`` (``{argument: option}``) starts a word and is followed by
    ``=`` or ``:``; the library's ``df`` (the frame the files became) as "the file"."""
    import re

    def option(match: re.Match) -> str:
        name, sign = match.group(2), match.group(3)
        if name not in options:
            return match.group(0)
        return f"{match.group(1)}{options[name]}{' ' if sign == '=' else sign}"

    text = re.sub(r"(^|\s|\()([a-z_]+)([=:])", option, text)
    return text.replace(": df has no such column", ": the file has no such column")


@contextlib.contextmanager
def warning_lines(verb: str):
    """Within it, a warning is written as one line of the command's standard error, above a progress bar
    (``perfstudy run: warning: ...``): no source line, no path; Python's own way is restored after. A warning is
    written once; one whose category says ``once`` (the machine's load, which a bisect reads at every step) is
    not written again in the same words but for its numbers.

    Parameters
    ----------
    verb : str
        The command, as the line names it.
    """
    import re
    import sys
    import warnings

    shown = set()

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        text = f"perfstudy {verb}: warning: {one_line(ValueError(str(message)))}"
        words = (category, re.sub(r"\d+(\.\d+)?", "#", text) if getattr(category, "once", False) else text)
        if words in shown:
            return
        shown.add(words)
        try:
            from tqdm import tqdm

            tqdm.write(text, file=sys.stderr)
        except ImportError:  # pragma: no cover - tqdm is a dependency
            print(text, file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield
