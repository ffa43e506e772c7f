"""Sentences about a result, kept with what they were made from.

A study's function that writes what a notebook says of its result returns :class:`Said`: a :meth:`str.format`
template whose literal text states method only (true for any seed), and the numbers, words and booleans its fields
name. :meth:`perfstudy.notebook.records.Recorder.say` records both, so that a test can check every number a
sentence quotes against the record, and a test of the study can call the function directly.
"""

from __future__ import annotations

import math
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from perfstudy._lib.result import Result

__all__ = ["Said"]


@dataclass(frozen=True)
class Said(Result):
    """Markdown about a result: a template whose every measured number is a named field, and the fields' values.

    Attributes
    ----------
    template : str
        A :meth:`str.format` string, e.g. ``"{within} of {rows} rows lie within 3 MC errors ({share:.0%})"``.
    values : Mapping
        Every field's value: a number, a word or a boolean (numpy scalars become Python's). Every one is used.

    Raises
    ------
    TypeError
        The template is empty, or a value is not a number, text or a boolean.
    ValueError
        A field is unnamed (``{}``, ``{0}``), named but not given, given but never used, or a value is not finite.
    """

    template: str
    values: Mapping = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.template, str) or not self.template:
            raise TypeError("template must be non-empty text")
        if not isinstance(self.values, Mapping):
            raise TypeError(f"values: expected a mapping of field names to values, got {type(self.values).__name__}")
        names = [name for _, name, _, _ in string.Formatter().parse(self.template) if name is not None]
        fields = {name.split(".")[0].split("[")[0] for name in names}
        if "" in fields or any(name.isdigit() for name in fields):
            raise ValueError("every field of the template must be named ({name}, not {} or {0})")
        missing, unused = sorted(fields - set(self.values)), sorted(set(self.values) - fields)
        if missing or unused:
            raise ValueError(f"the template names {missing} not given and is given {unused} it never uses")
        plain = {}
        for name, value in self.values.items():
            if isinstance(value, np.generic):
                value = value.item()
            if not isinstance(value, (int, float, str, bool)):
                raise TypeError(f"{name} is a {type(value).__name__}; say numbers, words or booleans")
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"{name}={value} is not a number a sentence can state")
            plain[name] = value
        object.__setattr__(self, "values", MappingProxyType(plain))

    @property
    def text(self) -> str:
        """The sentences, the template's fields filled in."""
        return self.template.format(**self.values)

    def _repr_markdown_(self) -> str:
        return self.text
