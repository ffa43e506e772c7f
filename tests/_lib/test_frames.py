"""The frame helpers the readers and reports share: numbers from text columns, one value per benchmark."""

import numpy as np
import pandas as pd

from perfstudy._lib.frames import float_values, numeric_column, one_value_each


def test_text_and_missing_values_become_nan_and_numbers_stay():
    column = pd.Series(["1.5", "abc", None, 2])
    assert numeric_column(column).tolist()[0] == 1.5
    values = float_values(column)
    assert values.dtype == float and np.isnan(values[1:3]).all() and values[3] == 2.0


def test_one_value_each_keeps_only_benchmarks_with_exactly_one_value():
    frame = pd.DataFrame({"benchmark": ["a", "a", "b", "b", "c"], "unit": ["s", "s", "s", "ms", None]})
    assert one_value_each(frame, "unit") == {"a": "s"}  # b has two units, c none
    assert one_value_each(frame, "better") == {}  # no such column
