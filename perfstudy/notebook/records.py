"""Numbers a notebook reports, recorded as a JSON sidecar so tests and reports can read them.

A notebook creates ``record = Recorder("01_design_standard_errors", out_dir)`` and calls
``record("key", value)`` for every number it reports; the file ``out_dir/<name>.json`` is rewritten
on each call, so a notebook that fails half-way still leaves what it had recorded.

A sentence about a result is written by :meth:`Recorder.say` from recorded values, never typed: the
rendered text and the values it was made from are recorded under ``said``, so a test can check every
number a notebook's text quotes against the record.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from perfstudy._lib.checks import check_directory

__all__ = ["Recorder", "load_records", "to_jsonable"]


def to_jsonable(value):
    """Convert numpy, pandas and dataclass-free containers to plain JSON types (NaN -> None).

    Parameters
    ----------
    value : object
        Scalars, arrays, Series, DataFrames, mappings and sequences of them.
    """
    if isinstance(value, pd.DataFrame):
        return [to_jsonable(row) for row in value.to_dict(orient="records")]
    if isinstance(value, pd.Series):
        return to_jsonable(value.to_dict())
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return None if math.isnan(value) else value
    if value is None or isinstance(value, (int, str)):
        return value
    raise TypeError(f"value: cannot record an object of type {type(value).__name__}")


class Recorder:
    """Append-as-you-go JSON record of a notebook's reported numbers.

    Parameters
    ----------
    name : str
        The notebook's name; the file is ``out_dir/<name>.json``.
    out_dir : str or Path
        Created if missing.
    """

    def __init__(self, name: str, out_dir="build"):
        if not isinstance(name, str) or not name or Path(name).name != name:
            raise ValueError(f"name={name!r}: expected a bare name without directories")
        self.path = check_directory("out_dir", out_dir) / f"{name}.json"
        self.values: dict = {}
        self._write()

    def __call__(self, key: str, value):
        """Record ``value`` under ``key`` (replacing an earlier one) and return ``value``.

        A value that cannot be recorded (an infinity, an object JSON cannot hold) raises ValueError
        or TypeError naming ``key``, and leaves the record as it was: later values are still recorded.
        """
        try:
            converted = to_jsonable(value)
            json.dumps(converted, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{key}: cannot record this value ({error})") from None
        self.values[str(key)] = converted
        self._write()
        return value

    def warnings(self, key: str) -> _Warnings:
        """A ``with`` block whose warnings (``UserWarning`` and its kinds, e.g. ``NoisyMachineWarning``) are
        recorded under ``key`` as text and, in a notebook, shown as sentences under the cell, not as a
        stderr box with a kernel's file path. Other warnings (and all of them outside IPython) pass through
        as usual.

        Parameters
        ----------
        key : str
            Where the messages are recorded (a list, empty when nothing was said).

        Examples
        --------
        >>> import warnings, tempfile
        >>> record = Recorder("demo", tempfile.mkdtemp())
        >>> with warnings.catch_warnings(record=True), record.warnings("run_warnings"):
        ...     warnings.warn("the machine is loaded")
        >>> record.values["run_warnings"]
        ['the machine is loaded']
        """
        if not isinstance(key, str) or not key:
            raise TypeError(f"key={key!r}: expected a non-empty name")
        return _Warnings(self, key)

    def say(self, key: str, template, **values):
        """Markdown about a result, written from ``values`` (each also recorded under ``said``).

        ``template`` is a :meth:`str.format` string whose every measured number is a field,
        e.g. ``"{within} of {rows} rows lie within 3 MC errors ({share:.0%})"``; its literal text
        states method only (true for any seed). Say what the numbers say: choose the words in code
        from the values (``"agrees" if ... else "differs"``) and pass them in as values too. A study's
        function that writes the sentences returns them as :class:`~perfstudy._lib.said.Said`, given here
        whole (``record.say("table3", bakshy2015_said.table3_said(...))``).

        Parameters
        ----------
        key : str
            Where the text is recorded: ``said[key]`` holds ``text`` and ``values``.
        template : str or Said
            The sentence(s), Markdown, with ``{name:spec}`` fields; or sentences with their values.
        **values
            Numbers, text or booleans the fields name; every one is used (none with a ``Said``).

        Returns
        -------
        IPython.display.Markdown
            The rendered text (a notebook shows it as the cell's result).
        """
        from IPython.display import Markdown

        from perfstudy._lib.said import Said

        if isinstance(template, Said) and values:
            raise TypeError(f"{key}: a Said carries its values; give none beside it ({sorted(values)})")
        try:
            said = template if isinstance(template, Said) else Said(template, values)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{key}: {error}") from None
        recorded = dict(self.values.get("said", {}))
        recorded[str(key)] = {"text": said.text, "values": to_jsonable(dict(said.values))}
        self("said", recorded)
        return Markdown(said.text)

    def _write(self) -> None:
        _write_atomically(self.path, json.dumps(self.values, indent=1, sort_keys=True, allow_nan=False))


def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file of this process's own beside ``path``, then rename it over
    ``path``: an interrupted write (SIGINT, a full disk) leaves the old file or none, never half of one.

    Parameters
    ----------
    path : Path
        The file to write.
    text : str
        Its new content.
    """
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def load_records(path) -> dict:
    """Read a record written by :class:`Recorder`.

    Parameters
    ----------
    path : str or path
        A ``.json`` record.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path={path!r}: expected a file path")
    return json.loads(Path(path).read_text())


class _Warnings:
    """:meth:`Recorder.warnings`' block."""

    def __init__(self, record: Recorder, key: str):
        self._record, self._key = record, key

    def __enter__(self):
        import warnings

        self._catcher = warnings.catch_warnings(record=True)
        self._seen = self._catcher.__enter__()
        warnings.simplefilter("always")
        return self._seen

    def __exit__(self, *exc):
        import warnings

        from IPython import get_ipython

        self._catcher.__exit__(*exc)
        in_kernel = getattr(get_ipython(), "kernel", None) is not None  # a notebook, not a terminal or a script
        ours = [w for w in self._seen if issubclass(w.category, UserWarning)]
        for w in self._seen:  # what is not shown here goes back to the usual machinery
            if not (in_kernel and w in ours):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        messages = list(dict.fromkeys(str(w.message) for w in ours))
        self._record(self._key, messages)
        if in_kernel and messages:
            from IPython.display import Markdown, display

            display(Markdown("\n".join(f"> **Warning.** {m}" for m in messages)))
        return False
