"""Reading what benchmark harnesses write, into perfstudy's tidy schema: :func:`read` detects the format;
one module per harness (``pyperf``, ``hyperfine``, ``google_benchmark``, ``jmh``, ``go``, ``criterion``,
``pytest_benchmark``, ``asv``, ``benchmarkdotnet``); ``datasets``, the published measurements the
notebooks reproduce.
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.io._detect import detect_format, is_go_text
    from perfstudy.io._file_columns import file_columns
    from perfstudy.io._json import MalformedFileError
    from perfstudy.io._read import read, read_google_benchmark, read_hyperfine, read_jmh, read_pyperf
    from perfstudy.io.asv import read_asv
    from perfstudy.io.benchmarkdotnet import read_benchmarkdotnet
    from perfstudy.io.columns import COLUMNS, FileColumns
    from perfstudy.io.criterion import read_criterion
    from perfstudy.io.go import read_go
    from perfstudy.io.harnesses import FORMATS, HARNESSES, MEASURED_FORMATS, Format, Harness, harness
    from perfstudy.io.pytest_benchmark import read_pytest_benchmark

_HOMES = {
    "Format": ".harnesses",
    "Harness": ".harnesses",
    "HARNESSES": ".harnesses",
    "MEASURED_FORMATS": ".harnesses",
    "harness": ".harnesses",
    "detect_format": "._detect",
    "is_go_text": "._detect",
    "MalformedFileError": "._json",
    "COLUMNS": ".columns",
    "FORMATS": ".harnesses",
    "read": "._read",
    "read_pyperf": "._read",
    "read_hyperfine": "._read",
    "read_google_benchmark": "._read",
    "read_jmh": "._read",
    "read_go": ".go",
    "FileColumns": ".columns",
    "file_columns": "._file_columns",
    "read_criterion": ".criterion",
    "read_pytest_benchmark": ".pytest_benchmark",
    "read_asv": ".asv",
    "read_benchmarkdotnet": ".benchmarkdotnet",
}
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
__all__ = [
    "Format",
    "Harness",
    "HARNESSES",
    "MEASURED_FORMATS",
    "harness",
    "detect_format",
    "is_go_text",
    "MalformedFileError",
    "COLUMNS",
    "FORMATS",
    "read",
    "read_pyperf",
    "read_hyperfine",
    "read_google_benchmark",
    "read_jmh",
    "read_go",
    "FileColumns",
    "file_columns",
    "read_criterion",
    "read_pytest_benchmark",
    "read_asv",
    "read_benchmarkdotnet",
]
