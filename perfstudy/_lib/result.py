"""The result protocol: what every public result (a frozen dataclass) offers a reader.

- ``to_frame()``, with no arguments: the result as a tidy DataFrame. By default one row of the scalar
  fields; a result whose substance is a table (a search's trials, an elimination curve) returns that.
- ``summary()``: a short text for a person: what the result is (its docstring's first line), its scalar
  fields one per line, then the frame when it is more than those scalars.
- ``_repr_html_()``: the same in HTML, which JupyterLab shows when a result is a cell's last expression.

Classes inherit :class:`Result` and override :meth:`Result.to_frame` where the default row is not the
substance. Nothing here computes: it formats what the fields hold, to four significant digits.
"""

from __future__ import annotations

import dataclasses
import datetime
import html
import math
import sys
from pathlib import PurePath
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Result"]

#: rows of a frame shown by summary() and _repr_html_ (the head and the tail beyond it)
SHOWN_ROWS = 20


def _is_scalar(value) -> bool:
    scalars: tuple = (bool, int, float, str, np.generic, PurePath, datetime.timedelta)
    if "pandas" in sys.modules:  # a value cannot be pandas' unless pandas is loaded: no import for a lean result
        pd = sys.modules["pandas"]
        scalars += (pd.Timedelta, pd.Timestamp)
    return value is None or isinstance(value, scalars)


def _plain(value):
    """A scalar as a frame cell: paths as text, numpy scalars as Python's."""
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def _text(value) -> str:
    if isinstance(value, (bool, np.bool_)) or value is None:
        return str(value)
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.4g}" if math.isfinite(value) else str(float(value))
    return str(value)


class Result:
    """Mixin of the result protocol (module docstring); adds no fields."""

    __slots__ = ()

    def _scalars(self) -> dict:
        return {
            f.name: _plain(getattr(self, f.name))
            for f in dataclasses.fields(self)  # type: ignore[arg-type]
            if f.repr and _is_scalar(getattr(self, f.name))
        }

    def to_frame(self) -> pd.DataFrame:
        """The result as a DataFrame: here one row of the scalar fields (classes with a table override it)."""
        import pandas as pd

        return pd.DataFrame([self._scalars()])

    def _title(self) -> str:
        doc = (type(self).__doc__ or "").strip().split("\n\n")[0]
        doc = " ".join(doc.replace("``", "").split())
        return f"{type(self).__name__}: {doc}" if doc else type(self).__name__

    def _table(self, scalars: dict) -> pd.DataFrame | None:
        """The frame, unless it is the row of ``scalars`` that summary() already lists."""
        frame = self.to_frame()
        if len(frame) == 1 and set(frame.columns) <= set(scalars):
            return None
        return frame

    def summary(self) -> str:
        """What the result is, its scalar fields one per line, then its table (at most 20 rows shown)."""
        lines = [self._title()]
        scalars = self._scalars()
        width = max((len(name) for name in scalars), default=0)
        lines += [f"  {name:<{width}}  {_text(value)}" for name, value in scalars.items()]
        table = self._table(scalars)
        if table is not None:
            lines.append(table.to_string(max_rows=SHOWN_ROWS, float_format=_text))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        parts = [f"<p><strong>{html.escape(self._title())}</strong></p>"]
        scalars = self._scalars()
        if scalars:
            rows = "".join(
                f"<tr><th style='text-align:left'>{html.escape(name)}</th><td>{html.escape(_text(value))}</td></tr>"
                for name, value in scalars.items()
            )
            parts.append(f"<table>{rows}</table>")
        table = self._table(scalars)
        if table is not None:
            parts.append(table.to_html(max_rows=SHOWN_ROWS, float_format=_text, border=0))
        return "\n".join(parts)
