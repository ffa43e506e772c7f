""":func:`file_columns`: any file perfstudy reads, as its measurements (:class:`perfstudy.io.columns.FileColumns`),
by the harness that :data:`perfstudy.io.harnesses.HARNESSES` names. :func:`perfstudy.io.read` is its DataFrame view,
and ``perfstudy compare`` of two files compares the columns. No pandas, except for the tidy tables that pandas
parses."""

from __future__ import annotations

import os
from pathlib import Path

from perfstudy._lib.checks import check_bool, check_choice
from perfstudy.io.columns import FileColumns
from perfstudy.io.harnesses import FORMATS, HARNESSES, Format

__all__ = ["file_columns"]


def file_columns(
    path: str | os.PathLike, format: Format = "auto", *, dropna: bool = False, metric: str | None = None
) -> FileColumns:
    """Read any benchmark file perfstudy knows into its measurements, detecting its format as
    :func:`perfstudy.io.read` does (whose docstring lists the formats and how each is told apart).

    Parameters
    ----------
    path, format, dropna, metric
        As :func:`perfstudy.io.read` takes them.

    Returns
    -------
    FileColumns
        ``attrs["format"]`` names the format, ``attrs["dropped"]`` counts what ``dropna`` left out, and
        ``attrs["metric"]`` names the metric where one was chosen.

    Raises
    ------
    FileNotFoundError, ValueError
        As :func:`perfstudy.io.read` raises them.
    """
    from perfstudy.io._detect import _detect_path
    from perfstudy.io._json import MalformedFileError

    check_choice("format", format, FORMATS)
    dropna = check_bool("dropna", dropna)
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a file path, got {type(path).__name__}")
    path = Path(path)
    if not (path.is_file() or (path.is_dir() and format in ("auto", "criterion"))):
        raise FileNotFoundError(f"{path}: no such file")
    if path.is_file() and path.stat().st_size == 0:
        raise ValueError(f"{path}: the file is empty (0 bytes): nothing was written to it")
    data = None
    if format == "auto":
        format, data = _detect_path(path)
    found = HARNESSES[format]
    try:
        chosen = found.check_metric(metric)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    try:
        columns = found.measure(path if data is None or found.by_path else data, dropna=dropna, metric=chosen)
    except ValueError as error:  # the reader's "source" is this file: name it (two files are compared)
        said = str(error)
        if not said.startswith("source: "):
            raise
        kind = MalformedFileError if isinstance(error, MalformedFileError) else ValueError
        said = said.removeprefix("source: ")
        raise kind(said if said.startswith(f"{path}:") else f"{path}: {said}") from None
    return columns._with_attrs(format=format) if chosen is None else columns._with_attrs(format=format, metric=chosen)
