"""The formats :func:`perfstudy.io.read` accepts: the one list the library and the command line share.

Kept apart from the readers so that ``perfstudy --help`` imports no pandas to list them.
"""

from __future__ import annotations

__all__ = ["FORMATS"]

#: What :func:`perfstudy.io.read` accepts for ``format``; "auto" detects it from the content.
FORMATS = (
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
)
