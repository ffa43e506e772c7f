"""Typed views of pandas objects: what a table's rows and a column's numbers are, for the type checker
as for the reader.

pandas' own annotations leave ``pd.to_numeric`` a union with scalars and ``itertuples`` a plain tuple;
these helpers say what the library relies on, so that a type error in the package is a real one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import numpy as np
import pandas as pd

__all__ = ["numeric_column", "float_values", "each_row", "table", "column", "one_value_each"]


def numeric_column(column) -> pd.Series:
    """A column's values as numbers, text and missing values as NaN (``pd.to_numeric(errors="coerce")``)."""
    return cast(pd.Series, pd.to_numeric(column, errors="coerce"))


def float_values(column) -> np.ndarray:
    """A column's values as a float array, text and missing values as NaN."""
    return np.asarray(numeric_column(column), dtype=float)


def each_row(frame: pd.DataFrame) -> Iterator[Any]:
    """The rows of ``frame`` as named tuples (``itertuples()``), each field an attribute."""
    return cast(Iterator[Any], frame.itertuples())


def table(frame) -> pd.DataFrame:
    """A selection that is a table (``frame[mask]``, ``frame[[a, b]]``): a DataFrame, said so."""
    return cast(pd.DataFrame, frame)


def column(series) -> pd.Series:
    """A selection that is one column (``frame[name]``): a Series, said so."""
    return cast(pd.Series, series)


def one_value_each(frame: pd.DataFrame, column: str) -> dict:
    """``{benchmark: value}`` for the benchmarks whose rows hold exactly one value of ``column``
    (a unit, Go's ``better`` or ``assume``); others, and a frame without the column, are left out."""
    if column not in frame.columns:
        return {}
    pairs = cast(pd.DataFrame, frame[["benchmark", column]]).dropna().drop_duplicates()
    benchmarks = cast(pd.Series, pairs["benchmark"])
    once = benchmarks.map(benchmarks.value_counts()) == 1
    return dict(zip(pairs.loc[once, "benchmark"], pairs.loc[once, column].astype(str)))
