"""What every reader of a harness's file shares: parsing its JSON, refusing a field of the wrong shape by
name, and :class:`MalformedFileError`, which says a file is not what its reader expects.

A reader is wrapped by :func:`_reader`: its arguments are checked before the file is parsed (the source's
type, ``dropna``, the reader's own choices), so that any AttributeError, TypeError, KeyError or
IndexError raised while parsing comes from the file, and is refused as a MalformedFileError naming the
tool, never as an error from deep inside the parse.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
from pathlib import Path
from typing import Any

from perfstudy._lib.checks import check_bool, check_choice

__all__ = ["MalformedFileError"]


class MalformedFileError(ValueError):
    """A file that is not what its reader expects: not JSON, a field missing, or a field of the wrong
    type where an object, a list or a number belongs. Its message names the source and the tool."""


def _read_json(source, tool: str) -> Any:
    """Parsed JSON from a path (``.gz`` decompressed), a file object, or an already parsed object."""
    if isinstance(source, (dict, list)):
        return source
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such file")
        opener = open
        if path.suffix == ".gz":
            import gzip  # with shutil, bz2 and lzma, 6 ms that a Go file need not pay

            opener = gzip.open
        with opener(path, "rt", encoding="utf-8") as handle:
            text = handle.read()
        where = str(path)
    elif hasattr(source, "read"):
        text = source.read()
        where = getattr(source, "name", "<stream>")
    else:
        raise TypeError(f"source: expected a path, a file object or parsed JSON, got {type(source).__name__}")
    if isinstance(text, str):  # a byte-order mark is no JSON, from a path or a file object
        text = text.removeprefix("\ufeff")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise MalformedFileError(f"{where}: not a {tool} JSON file ({error})") from error


def _require(mapping, key: str, where: str, tool: str):
    if not isinstance(mapping, dict) or key not in mapping:
        raise MalformedFileError(f"source: {where}: no {key!r} field; is this a {tool} JSON file?")
    return mapping[key]


def _sequence(value, where: str):
    """A JSON array (a list), refused by name otherwise."""
    if not isinstance(value, list):
        raise MalformedFileError(f"source: {where} is {type(value).__name__}, expected a list")
    return value


def _mapping(value, where: str) -> dict:
    """A JSON object, or {} for a missing (null) one; refused by name otherwise."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MalformedFileError(f"source: {where} is {type(value).__name__}, expected an object")
    return value


def _entries(data, key: str, tool: str):
    """``(position, entry)`` for each entry of the list under ``key`` of ``tool``'s parsed JSON, each
    refused by name unless it is an object."""
    for position, entry in enumerate(_sequence(_require(data, key, f"{tool} file", tool), f"'{key}'")):
        yield position, _mapping(entry, f"benchmark {position}")


#: what a reader's ``source`` may be: parsed JSON or a file (``"json"``), a path or a file object
#: (``"text"``), or a path (``"path"``: a folder or a file)
SOURCES = ("json", "text", "path")


def _check_source(source, accepts: str) -> None:
    path = isinstance(source, (str, os.PathLike))
    stream = hasattr(source, "read") and not path
    if accepts == "json" and (path or stream or isinstance(source, (dict, list))):
        return
    if accepts == "text" and (path or stream):
        return
    if accepts == "path" and path:
        return
    expected = {
        "json": "a path, a file object or parsed JSON",
        "text": "a path or a file object",
        "path": "a folder or file path",
    }[accepts]
    raise TypeError(f"source: expected {expected}, got {type(source).__name__}")


def _reader(tool: str, *, accepts: str = "json", **choices):
    """A reader of ``tool``'s files, its arguments checked before the parse: ``source`` as ``accepts``
    says (:data:`SOURCES`), ``dropna`` a bool, and each keyword of ``choices`` one of its values (``str``
    for any name; None only where it is the reader's default). A file whose structure is not the tool's
    is then refused with a :class:`MalformedFileError` naming ``source``."""

    def wrap(function):
        defaults = {
            name: parameter.default
            for name, parameter in inspect.signature(function).parameters.items()
            if parameter.default is not inspect.Parameter.empty
        }

        @functools.wraps(function)
        def reader(source, *args, **kwargs):
            _check_source(source, accepts)
            check_bool("dropna", kwargs.get("dropna", False))
            for name, allowed in choices.items():
                value = kwargs.get(name, defaults[name])
                if value is None and defaults[name] is None:
                    continue
                if allowed is str:
                    if not isinstance(value, str):
                        raise TypeError(f"{name}={value!r}: expected a name")
                else:
                    check_choice(name, value, allowed)
            try:
                return function(source, *args, **kwargs)
            except (AttributeError, TypeError, KeyError, IndexError) as error:
                raise MalformedFileError(
                    f"source: not a well-formed {tool} JSON file ({type(error).__name__}: {error})"
                ) from None

        return reader

    return wrap
