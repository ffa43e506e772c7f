"""The formats :func:`perfstudy.io.read` accepts: the one list the library and the command line share.

Kept apart from the readers so that ``perfstudy --help`` imports no pandas to list them.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["FORMATS", "Format"]

#: What :func:`perfstudy.io.read` accepts for ``format``; "auto" detects it from the content.
Format = Literal[
    "auto",
    "pyperf",
    "hyperfine",
    "google_benchmark",
    "jmh",
    "go",
    "criterion",
    "pytest_benchmark",
    "asv",
    "benchmarkdotnet",
    "csv",
    "parquet",
]
FORMATS: tuple[str, ...] = get_args(Format)
