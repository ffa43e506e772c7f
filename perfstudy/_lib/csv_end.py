"""The end of a CSV file as a writer cut short leaves it: a last row without its end of line."""

from __future__ import annotations

import csv
import os
import warnings

__all__ = ["check_csv_end"]


def check_csv_end(path, columns: int, error: type[Exception] = ValueError) -> None:
    """Refuse a CSV cut while it was written, or say that it may be: a last row with no end of line and fewer fields
    than the header's ``columns`` is refused by its text; one with every field is read, with a warning that its last
    value may be shortened (``x,3,1.`` for ``x,3,1.25``). A file that ends its last row says nothing.

    Parameters
    ----------
    path : str or path
        The CSV file (its last 4 KiB are read).
    columns : int
        The fields of its header.
    error : type
        The exception raised (a reader's own, such as ``MalformedFileError``).
    """
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        handle.seek(max(0, handle.tell() - 4096))
        tail = handle.read()
    if not tail or tail.endswith((b"\n", b"\r")):
        return
    last = tail.rsplit(b"\n", 1)[-1].decode("utf-8", errors="replace")
    fields = len(next(csv.reader([last]), []))
    if fields < columns:
        raise error(
            f"path: {path}: its last row, {last[:60]!r}, has {fields} of the header's {columns} fields and no end of "
            "line: the file was cut while it was written; finish it or remove that row"
        )
    warnings.warn(
        f"{path}: the last row, {last[:60]!r}, has no end of line: if the file was cut while it was written, its last "
        "value may be shortened",
        stacklevel=3,
    )
