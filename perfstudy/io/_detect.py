"""Which harness wrote a file, from its content: the shape of its JSON, Go's result lines, a CSV header.
No pandas, so that ``perfstudy compare`` can tell Go text before deciding what to import."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, cast

from perfstudy.io._json import _read_json
from perfstudy.io.harnesses import HARNESSES, Format

__all__ = ["detect_format", "is_go_text"]


def _json_shapes() -> dict:
    """The shape of each JSON harness's files (:data:`perfstudy.io.harnesses.HARNESSES`): a file must match exactly
    one."""
    return {h.name: h.shape for h in HARNESSES.values() if h.shape is not None}


_GO_LINE = re.compile(r"^Benchmark\S*\s+\d+\s+\S+\s+\S+", re.MULTILINE)
_CRITERION_CSV = {"group", "function", "sample_measured_value", "iteration_count"}


def _detect(data) -> str | None:
    """The harness that wrote parsed JSON ``data``, from its shape; None if none matches.

    Raises
    ------
    ValueError
        The shape is that of two formats (naming both).
    """
    found = [name for name, shape in _json_shapes().items() if shape(data)]
    if len(found) > 1:
        raise ValueError(
            f"the file matches more than one format ({' and '.join(found)}); say which with format= "
            "(--input-format on the command line)"
        )
    return found[0] if found else None


def _kind(path: Path) -> str | None:
    """What the file at ``path`` is, from its name and its first 64 KiB alone: ``"criterion"`` (a
    directory or criterion's raw.csv), ``"parquet"``, ``"csv"``, ``"json"`` (its shape not yet known),
    ``"go"``, or None."""
    if path.is_dir():
        return "criterion"
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return "parquet"
    opener = open
    if suffix == ".gz":
        import gzip

        opener = gzip.open
    with opener(path, "rt", encoding="utf-8-sig", errors="replace") as handle:
        head = handle.read(1 << 16)
    stripped = head.lstrip()
    first_line = head.split("\n", 1)[0]
    if suffix == ".csv" or (not stripped.startswith(("{", "[")) and "," in first_line):
        header = {c.strip() for c in first_line.split(",")}
        return "criterion" if _CRITERION_CSV <= header else "csv"
    if stripped.startswith(("{", "[")) or path.name.lower().endswith((".json", ".json.gz")):
        return "json"
    return "go" if _GO_LINE.search(head) else None


def _detect_path(path: Path) -> tuple[Format, Any]:
    """``(format, parsed JSON or None)`` of the file or directory at ``path``, from its content; the
    JSON, once parsed to tell its shape, goes to the reader rather than being read again."""
    kind = _kind(path)
    if kind == "json":
        data = _read_json(path, "benchmark")
        found = _detect(data)
        if found is None:
            raise ValueError(
                f"{path}: unknown format: JSON of no known shape ({', '.join(_json_shapes())}); say which with format= "
                "(--input-format on the command line)"
            )
        return cast(Format, found), data
    if kind is None:
        raise ValueError(
            f"{path}: unknown format: not JSON of a known harness, not Go benchmark text ('BenchmarkName N value "
            "unit'), not a tidy .csv/.parquet; say which with format= (--input-format on the command line)"
        )
    return cast(Format, kind), None


def is_go_text(path: str | os.PathLike) -> bool:
    """Whether :func:`detect_format` would say ``"go"``, from the file's first 64 KiB alone: a JSON file is
    not parsed to tell (``perfstudy compare`` asks this of every file, and a 2,000-benchmark pyperf file
    takes 0.15 s to parse).

    Parameters
    ----------
    path : str or path
        A file.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path={path!r}: expected the path of a benchmark file")
    where = Path(path)
    if not where.is_file():
        return False
    return _kind(where) == "go"


def detect_format(path: str | os.PathLike) -> Format:
    """The format of the benchmark file or directory at ``path``, from its content, as :func:`read` detects it
    (without pandas: ``perfstudy compare`` asks before it decides what to import).

    Parameters
    ----------
    path : str or path
        A file, or a directory (criterion.rs's ``target/criterion``).

    Returns
    -------
    str
        One of :data:`perfstudy.io.FORMATS` but ``"auto"``.

    Raises
    ------
    FileNotFoundError
        Nothing at ``path``.
    ValueError
        A file of no known format, or of two.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path={path!r}: expected the path of a benchmark file")
    where = Path(path)
    if not where.exists():
        raise FileNotFoundError(f"path: {where}: no such file or directory")
    return _detect_path(where)[0]
