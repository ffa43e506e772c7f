"""Reading what benchmark harnesses write, into perfstudy's tidy schema: :func:`read` detects the format;
one module per harness (``pyperf``, ``hyperfine``, ``google_benchmark``, ``jmh``, ``go``, ``criterion``,
``pytest_benchmark``, ``asv``, ``benchmarkdotnet``); ``datasets``, the published measurements the
notebooks reproduce.
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.io._detect import detect_format as detect_format, is_go_text as is_go_text
    from perfstudy.io._file_columns import file_columns as file_columns
    from perfstudy.io._json import MalformedFileError as MalformedFileError
    from perfstudy.io._read import (
        read as read,
        read_google_benchmark as read_google_benchmark,
        read_hyperfine as read_hyperfine,
        read_jmh as read_jmh,
        read_pyperf as read_pyperf,
    )
    from perfstudy.io.asv import read_asv as read_asv
    from perfstudy.io.benchmarkdotnet import read_benchmarkdotnet as read_benchmarkdotnet
    from perfstudy.io.columns import COLUMNS as COLUMNS, FileColumns as FileColumns
    from perfstudy.io.criterion import read_criterion as read_criterion
    from perfstudy.io.go import read_go as read_go
    from perfstudy.io.harnesses import (
        FORMATS as FORMATS,
        HARNESSES as HARNESSES,
        MEASURED_FORMATS as MEASURED_FORMATS,
        Format as Format,
        Harness as Harness,
        harness as harness,
    )
    from perfstudy.io.pytest_benchmark import read_pytest_benchmark as read_pytest_benchmark

__getattr__, __dir__, __all__ = lazy_exports(__name__)
