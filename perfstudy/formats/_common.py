"""What the readers of this package share: a path or a file object as parsed JSON."""

from __future__ import annotations

import os
from pathlib import Path

from perfstudy.io import _read_json

__all__ = ["json_source", "text_source"]


def json_source(source, tool: str):
    """Parsed JSON from a path, a file object or an already parsed object (as :mod:`perfstudy.io`)."""
    return _read_json(source, tool)


def text_source(source) -> tuple[list[str], str]:
    """``(lines, where)`` of a text file given by path or file object."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
        return path.read_text(encoding="utf-8", errors="replace").splitlines(), str(path)
    if hasattr(source, "read"):
        text = source.read()
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        return text.splitlines(), getattr(source, "name", "<stream>")
    raise TypeError(f"source: expected a path or a file object, got {type(source).__name__}")
