"""Argument checks shared by the public functions: one message format, named arguments.

Every public function checks its arguments itself, at its top and before any work, by calling these
(scipy's ``_iv`` style): the checks a reader sees are the checks that run. Nothing is inferred from
an argument's name.
"""

from __future__ import annotations

import math
import operator

import numpy as np

__all__ = [
    "check_int",
    "said",
    "check_real",
    "check_fraction",
    "check_portion",
    "check_each",
    "check_text",
    "check_instance",
    "check_mapping",
    "check_tuple",
    "check_version",
    "check_sample",
    "check_labels",
    "check_bool",
    "check_counts",
    "check_numbers",
    "check_resamples",
    "MAX_RESAMPLES",
    "check_choice",
    "check_names",
    "check_frame",
    "check_duration",
    "check_threshold",
    "check_coverage",
    "parse_duration",
    "check_column",
    "check_timestamps",
    "check_directory",
    "check_allocation",
    "memory_limit",
    "MAX_BYTES_ENV",
]

#: environment variable that overrides :func:`memory_limit` (bytes; suffixes K, M, G accepted)
MAX_BYTES_ENV = "PERFSTUDY_MAX_BYTES"


def said(name: str, value) -> str:
    """How a message quotes a value as the user gave it: ``threshold=0.5`` for a library argument, ``--threshold
    0.5`` for an option of the command line (a ``name`` that starts with ``--``)."""
    if not name.startswith("--"):
        return f"{name}={value!r}"
    quoted = isinstance(value, str) and (not value or any(c.isspace() for c in value))  # as a shell needs it
    return f"{name} {value!r}" if quoted else f"{name} {value}"


def check_int(name: str, value, minimum: int = 1, maximum: int | None = None) -> int:
    """``value`` as an int; TypeError if it is not an integer (bools refused), ValueError below
    ``minimum`` or above ``maximum`` (the bound of a loop or a size, stated up front).

    Integral floats (``4.0``) are accepted.
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{said(name, value)}: expected an integer, not a bool")
    try:
        as_int = operator.index(value)
    except TypeError:
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            as_int = int(value)
        else:
            raise TypeError(f"{said(name, value)}: expected an integer of at least {minimum}") from None
    if as_int < minimum:
        raise ValueError(f"{said(name, value)}: expected an integer of at least {minimum}")
    if maximum is not None and as_int > maximum:
        raise ValueError(f"{said(name, value)}: expected an integer of at most {maximum:,}")
    return as_int


def check_real(name: str, value, *, nonnegative: bool = False, positive: bool = False, what: str = "number") -> float:
    """``value`` as a finite float; TypeError if not a real number, ValueError if NaN, inf, negative
    (with ``nonnegative``) or not above 0 (with ``positive``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{said(name, value)}: expected a real number")
    given, value = value, float(value)
    if not math.isfinite(value):
        raise ValueError(f"{said(name, given)}: expected a finite {what}")
    if nonnegative and value < 0:
        raise ValueError(f"{said(name, given)}: expected a non-negative {what}")
    if positive and value <= 0:
        raise ValueError(f"{said(name, given)}: expected a positive {what}")
    return value


def check_fraction(name: str, value) -> float:
    """A probability or fraction strictly between 0 and 1 (a ``confidence``, an ``alpha``, a portion),
    as a float; TypeError if not a real number, ValueError naming ``name`` otherwise (NaN included)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{said(name, value)}: expected a real number in (0, 1)")
    value = float(value)
    if not 0 < value < 1:
        raise ValueError(f"{said(name, value)}: expected a value in (0, 1)")
    return value


def check_portion(name: str, value) -> float:
    """A share of something in (0, 1], as a float: unlike :func:`check_fraction`, the whole is allowed."""
    value = check_real(name, value)
    if not 0 < value <= 1:
        raise ValueError(f"{name}={value!r}: expected a fraction in (0, 1]")
    return value


def check_each(name: str, values, check, /, *, empty: bool = False, **options):
    """``check(name, item, **options)`` on a scalar, or on every item of a list, tuple, array or Series
    (arguments such as ``hosts=16`` or ``hosts=(4, 8, 16)``), which must not be empty unless ``empty``;
    the checked scalar or a tuple."""
    import pandas as pd

    if isinstance(values, (list, tuple, np.ndarray, pd.Series)):
        if len(values) == 0 and not empty:
            raise ValueError(f"{name}: expected at least one value")
        return tuple(check(name, value, **options) for value in values)
    return check(name, values, **options)


def check_text(name: str, value) -> str:
    """``value`` if it is a string; TypeError otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{name}={value!r}: expected a name (a string)")
    return value


def check_instance(name: str, value, kind: type | tuple[type, ...]):
    """``value`` if it is an instance of ``kind``; TypeError naming what was expected otherwise."""
    if not isinstance(value, kind):
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise TypeError(f"{name}: expected {names}, got {type(value).__name__}")
    return value


def check_mapping(name: str, value, check=None, /, *args, entries: int = 1, **options) -> dict:
    """A mapping of at least ``entries`` entries, as a dict; each value, when ``check`` is given, checked
    by ``check(f"{name}[{key!r}]", item, *args, **options)`` and replaced by what it returns."""
    from collections.abc import Mapping

    if not isinstance(value, Mapping):
        raise TypeError(f"{name}: expected a mapping, got {type(value).__name__}")
    if len(value) < entries:
        raise ValueError(f"{name}: expected at least {entries} entr{'y' if entries == 1 else 'ies'}")
    if check is None:
        return dict(value)
    return {key: check(f"{name}[{key!r}]", item, *args, **options) for key, item in value.items()}


def check_tuple(name: str, value, /, *checks, options=None) -> tuple:
    """A tuple (or list) of ``len(checks)`` items, the i-th checked by ``checks[i](f"{name}[{i}]", item,
    **options[i])`` and replaced by what it returns."""
    if not isinstance(value, (tuple, list)) or len(value) != len(checks):
        raise TypeError(f"{name}: expected a tuple of {len(checks)} items, got {type(value).__name__}")
    options = options or ({},) * len(checks)
    return tuple(
        check(f"{name}[{i}]", item, **extra) for i, (check, item, extra) in enumerate(zip(checks, value, options))
    )


def check_version(version) -> np.ndarray:
    """Condition labels as an int array: every entry 0 (control) or 1 (treatment), both present."""
    version = np.asarray(version)
    if not np.isin(version, (0, 1)).all():
        raise ValueError("version: expected 0 (control) or 1 (treatment) for every observation")
    if np.unique(version).size != 2:
        raise ValueError("version: both conditions (0 and 1) must have observations")
    return version.astype(np.intp)


def check_sample(name: str, x, *, minimum: int = 1, method: str | None = None) -> np.ndarray:
    """A one-dimensional sample as a float array: at least ``minimum`` values, all finite; with
    ``method``, also not constant (``method`` names what a constant sample makes undefined).

    Every message starts with ``name``: "``n`` values; at least ``minimum`` are needed",
    "``k`` of ``n`` values are NaN or infinite", "every value is ``v``; ``method`` is undefined for a
    constant sample".
    """
    if x is None or isinstance(x, (str, bytes, dict)):
        raise TypeError(f"{name}: expected a one-dimensional sample of numbers, got {type(x).__name__}")
    try:
        x = np.asarray(x, dtype=float)
    except (ValueError, TypeError):
        raise TypeError(f"{name}: expected a one-dimensional sample of numbers") from None
    if x.ndim != 1:
        raise ValueError(f"{name}: expected a one-dimensional sample, got shape {x.shape}")
    if x.size < minimum:
        raise ValueError(f"{name}: {x.size} values; at least {minimum} are needed")
    bad = ~np.isfinite(x)
    if bad.any():
        raise ValueError(f"{name}: {int(bad.sum())} of {x.size} values are NaN or infinite")
    if method is not None and x.size and np.ptp(x) == 0:
        raise ValueError(f"{name}: every value is {x[0].item()!r}; {method} is undefined for a constant sample")
    return x


#: most permutations or bootstrap replicates one call may ask for (each loop's bound, checked up front)
MAX_RESAMPLES = 10_000_000


def check_resamples(name: str, value, minimum: int = 1) -> int:
    """A number of permutations or bootstrap replicates: an int from ``minimum`` to
    :data:`MAX_RESAMPLES`."""
    return check_int(name, value, minimum=minimum, maximum=MAX_RESAMPLES)


def check_labels(name: str, labels, size: int, *, of: str | None = None) -> np.ndarray:
    """One label per value (a batch, a round, a host), none missing, as an array: TypeError for None, text
    or a mapping, ValueError for another count or a missing label. ``of`` names the values, so that a
    mismatch names both arguments."""
    if labels is None or isinstance(labels, (str, bytes, dict)):
        raise TypeError(f"{name}: expected one label per value, got {type(labels).__name__}")
    labels = np.asarray(labels)
    if labels.shape != (size,):
        where = name if of is None else f"{name}, {of}"
        raise ValueError(f"{where}: {labels.size} labels for {size} values; give one label per value")
    import pandas as pd

    missing = int(pd.isna(labels).sum())
    if missing:
        raise ValueError(f"{name}: {missing} labels are missing")
    if labels.dtype.kind == "f" and np.isinf(labels).any():  # a number that overflowed, not a label
        raise ValueError(f"{name}: {int(np.isinf(labels).sum())} labels are infinite")
    return labels


def check_numbers(name: str, values, what: str = "numbers") -> np.ndarray:
    """A number or an array of numbers as a float array; TypeError naming ``name`` for text, None, a
    bool or anything numpy cannot read as numbers (``what`` says what was expected)."""
    if isinstance(values, (str, bytes, bool, np.bool_)) or values is None:
        raise TypeError(f"{name}={values!r}: expected {what}")
    try:
        return np.asarray(values, dtype=float)
    except (ValueError, TypeError):
        raise TypeError(f"{name}: expected {what}") from None


def check_counts(name: str, values) -> np.ndarray:
    """Positive integers, a scalar or an array of them (integral floats accepted), as an int64 array;
    TypeError for text or fractions, ValueError below 1."""
    array = check_numbers(name, values, "positive integers")
    if not (np.isfinite(array).all() and (array == np.floor(array)).all()):
        raise TypeError(f"{name}={values!r}: expected positive integers")
    if np.any(array < 1):
        raise ValueError(f"{name}={values!r}: expected positive integers")
    return array.astype(np.int64)


def check_bool(name: str, value) -> bool:
    """``value`` as a bool: ``True``/``False`` (numpy's too); TypeError for anything else, so that a
    string such as ``"no"`` is not read as true."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{said(name, value)}: expected True or False")


def check_choice(name: str, value, choices) -> str:
    """``value`` if it is one of ``choices`` (strings); TypeError for a non-string, ValueError naming the
    choices otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{said(name, value)}: expected one of {tuple(choices)}")
    if value not in choices:
        raise ValueError(f"{said(name, value)}: expected one of {tuple(choices)}")
    return value


def check_names(name: str, values, choices=None, *, empty: bool = False) -> tuple:
    """A non-empty (or, with ``empty``, a possibly empty) sequence of names (strings), each one of
    ``choices`` when given; a single name is refused too, so that ``"abc"`` is not read as three names."""
    if isinstance(values, str) or not isinstance(values, (list, tuple)) or not (values or empty):
        raise TypeError(f"{name}={values!r}: expected a {'' if empty else 'non-empty '}list of names")
    for value in values:
        if choices is None:
            if not isinstance(value, str):
                raise TypeError(f"{name}: {value!r} is not a name")
        else:
            check_choice(name, value, choices)
    return tuple(values)


def check_frame(name: str, df, columns=(), *, numeric=(), minimum: int = 1):
    """A DataFrame with ``columns`` (and ``numeric`` columns that hold numbers) and at least ``minimum``
    rows; TypeError if ``df`` is not a frame, ValueError naming the missing or non-numeric column."""
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{name}: expected a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in dict.fromkeys([*columns, *numeric]) if c not in df.columns]
    if missing:
        raise ValueError(f"{name}: no column {', '.join(map(repr, missing))}; it has {list(df.columns)}")
    for column in numeric:
        if not pd.api.types.is_numeric_dtype(df[column]) or pd.api.types.is_bool_dtype(df[column]):
            raise ValueError(f"{name}: column {column!r} holds {df[column].dtype} values; expected numbers")
    if len(df) < minimum:
        raise ValueError(f"{name}: {len(df)} rows; at least {minimum} are needed")
    return df


def check_column(name: str, column, df, frame: str = "df") -> str:
    """``column`` if it names a column of ``df``; ValueError naming the argument ``name`` and the
    columns there are otherwise."""
    if not isinstance(column, str) or column not in df.columns:
        raise ValueError(f"{said(name, column)}: {frame} has no such column; its columns are {list(df.columns)}")
    return column


def check_duration(name: str, value):
    """A positive duration as a ``pandas.Timedelta``: the one duration rule of the library and the command
    line. A Timedelta, a ``datetime.timedelta``, or text with its unit (``"500ms"``, ``"90s"``, ``"10m"``,
    ``"2h"``, or anything else pandas reads, ``"7D"``). Numbers are refused: a bare number has no unit,
    and pandas would read ``3600.0`` as 3,600 nanoseconds. A command line's ``name`` is its option
    (``"--timeout"``), and the messages then quote the option as it was typed."""
    import datetime

    import pandas as pd

    quoted = said(name, value)
    if isinstance(value, (bool, np.bool_, int, float, np.integer, np.floating)):
        raise TypeError(
            f"{quoted}: a bare number has no unit; give a duration such as '1h', '30min' or pd.Timedelta(hours=1)"
        )
    if isinstance(value, str):
        import re

        if re.fullmatch(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*", value):
            raise ValueError(
                f"{quoted}: a bare number has no unit; write {value.strip()}s for seconds (a duration with its "
                "unit: 500ms, 90s, 10m, 2h)"
            )
        found = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m|min|h)\s*", value)
        if found:
            value = pd.Timedelta(seconds=float(found.group(1)) * DURATION_UNITS[found.group(2)])
        else:
            try:
                value = pd.Timedelta(value)
            except ValueError:
                try:
                    value = pd.Timedelta(pd.tseries.frequencies.to_offset(value))
                except (ValueError, TypeError):
                    raise ValueError(
                        f"{quoted}: not a duration (a duration with its unit: 500ms, 90s, 10m, 2h, 7D)"
                    ) from None
    elif isinstance(value, (pd.Timedelta, datetime.timedelta, np.timedelta64)):
        value = pd.Timedelta(value)
    elif isinstance(value, pd.DateOffset):
        try:
            value = pd.Timedelta(value)
        except (ValueError, TypeError):
            raise ValueError(f"{quoted}: a calendar offset has no fixed length; give e.g. '7D'") from None
    else:
        raise TypeError(f"{quoted}: expected a duration such as '1h' or pd.Timedelta(hours=1)")
    if value is pd.NaT or not value > pd.Timedelta(0):
        raise ValueError(f"{quoted}: expected a positive duration")
    return value


def _parse_bytes(text: str) -> int:
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(text[-1:], 1)
    number = text[:-1] if text[-1:] in "KMGT" else text
    return int(float(number) * scale)


def memory_limit() -> int:
    """Bytes one allocation of perfstudy may ask for: ``$PERFSTUDY_MAX_BYTES`` if set (``"8G"``, or a
    number of bytes), else half of the machine's physical memory."""
    import os

    configured = os.environ.get(MAX_BYTES_ENV, "").strip()
    if configured:
        try:
            limit = _parse_bytes(configured)
        except ValueError:
            raise ValueError(f"${MAX_BYTES_ENV}={configured!r}: expected a number of bytes such as 8G") from None
        if limit > 0:
            return limit
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 4 << 30


def check_allocation(name: str, value, nbytes: float, *, what: str = "", hint: str = "") -> None:
    """Refuse, before allocating, work that needs more than :func:`memory_limit` bytes.

    The ValueError names the argument and its value, the memory asked for and the limit, and how to
    go on: a smaller value, ``hint`` (such as chunking or ``executor=``), or ``$PERFSTUDY_MAX_BYTES``.
    """
    limit = memory_limit()
    if nbytes > limit:
        gib = nbytes / (1 << 30)
        asked = f"{gib:,.1f} GiB" if gib < 1e6 else f"{gib:.1e} GiB"
        detail = f" for {what}" if what else ""
        more = f"; {hint}" if hint else ""
        raise ValueError(
            f"{name}={value!r} needs about {asked}{detail}, more than the limit of {limit / (1 << 30):.1f} GiB: "
            f"use a smaller {name}{more}, or raise ${MAX_BYTES_ENV}"
        )


def check_executor(executor, name: str = "executor"):
    """A ``concurrent.futures.Executor`` or None, refused by name whether or not any work would reach it."""
    import concurrent.futures

    if executor is not None and not isinstance(executor, concurrent.futures.Executor):
        raise TypeError(f"{name}: expected a concurrent.futures.Executor or None, got {type(executor).__name__}")
    return executor


def check_directory(name: str, directory, *, probe: bool = False):
    """``directory`` as a resolved Path, created if need be; with ``probe``, also written to once. A
    folder that cannot be made or written is an OSError whose message names the argument."""
    import os
    import tempfile
    from pathlib import Path

    if not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f"{name}={directory!r}: expected a directory path")
    path = Path(directory).resolve()
    try:
        path.mkdir(parents=True, exist_ok=True)
        if probe:
            with tempfile.TemporaryFile(dir=path):
                pass
    except OSError as error:
        raise OSError(error.errno, f"{name}={str(directory)!r}: cannot write there ({error.strerror})") from None
    return path


def check_timestamps(name: str, column):
    """A column of timestamps (a Series; its ``name`` is the column's), refused by name when it holds
    text (sorted as text it would be out of order) or NaT (a run with no time cannot be placed in an
    interval)."""
    import pandas as pd

    if not (pd.api.types.is_datetime64_any_dtype(column) or pd.api.types.is_timedelta64_dtype(column)):
        raise ValueError(
            f"{name}: column {column.name!r} holds {column.dtype} values, not times; convert it with pd.to_datetime"
        )
    missing = int(column.isna().sum())
    if missing:
        raise ValueError(f"{name}: {missing} of {len(column)} timestamps are NaT; drop or fill those runs first")
    return column


def _relative(text, name: str, what: str, example: str) -> float:
    """A relative quantity written as text: ``5%`` or ``0.05``, from 0 to below 1."""
    stripped = str(text).strip()
    try:
        value = float(stripped[:-1]) / 100 if stripped.endswith("%") else float(stripped)
    except ValueError:
        raise ValueError(f"{name} {text}: expected a {what} such as {example}") from None
    if not (0 <= value < 1) or value != value:
        raise ValueError(f"{name} {text}: expected a {what} from 0 to below 100%, such as {example}")
    return value


def check_threshold(value, name: str = "threshold") -> float:
    """The smallest relative change that matters, ``0 <= threshold < 1``: the one rule of
    :func:`perfstudy.compare`, :func:`perfstudy.run`, :func:`perfstudy.analyze`,
    :func:`perfstudy.comparison.verdict` and the command line.

    A number (``0.05``), or text as the command line gives it (``"5%"`` or ``"0.05"``; a command line's
    ``name`` is the option, ``"--threshold"``). TypeError for anything else, ValueError outside [0, 1).
    """
    if isinstance(value, str):
        return _relative(value, name, "relative change", "5% or 0.05")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{said(name, value)}: expected a relative change such as 0.05 for 5%")
    if not (math.isfinite(value) and 0 <= value < 1):
        raise ValueError(f"{said(name, value)}: expected a relative change in [0, 1), such as 0.05 for 5%")
    return float(value)


def check_coverage(value, name: str = "confidence") -> float:
    """A confidence (coverage) strictly between 0 and 1: a number, or text ``"95%"``/``"0.95"`` as the
    command line gives it."""
    if isinstance(value, str):
        found = _relative(value, name, "coverage", "0.95 or 95%")
        if found <= 0:
            raise ValueError(f"{name} {value}: expected a coverage above 0, such as 0.95 or 95%")
        return found
    return check_fraction(name, value)


#: what a duration's unit may be on the command line, in seconds
DURATION_UNITS = {"ms": 1e-3, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0}


def parse_duration(text, name: str) -> float:
    """Seconds of a duration as :func:`check_duration` reads it (``500ms``, ``90s``, ``10m``, ``2h``): the
    grammar of every duration on the command line (``run --timeout``, ``--max-time``, ``report
    --timeout``) and of the library's ``timeout=`` and ``max_time=``."""
    return float(check_duration(name, text).total_seconds())
