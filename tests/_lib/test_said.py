"""Sentences kept with their values: the text is the template filled, and a value that could not be quoted from
the record is refused (the refusals are also tested through the notebook's Recorder, which names its key)."""

import numpy as np
import pytest

from perfstudy._lib.said import Said


def test_the_text_is_the_template_filled_and_the_values_are_plain_and_read_only():
    said = Said(
        "{within} of {rows} rows ({share:.0%}) {verb}", dict(within=np.int64(9), rows=13, share=9 / 13, verb="agree")
    )
    assert said.text == "9 of 13 rows (69%) agree" == said._repr_markdown_()
    assert type(said.values["within"]) is int  # numpy scalars become Python's, so JSON records them
    with pytest.raises(TypeError):
        said.values["rows"] = 14  # type: ignore[index]


@pytest.mark.parametrize(
    ("template", "values", "error", "match"),
    [
        ("{rows} and {} rows", {"rows": 1}, ValueError, "must be named"),
        ("{rows} rows", {"rows": 1, "share": 0.5}, ValueError, r"given \['share'\] it never uses"),
        ("{rows}", {"rows": (1, 2)}, TypeError, "rows is a tuple"),
        ("{rows}", {"rows": float("inf")}, ValueError, "rows=inf is not a number"),
        ("{rows}", [("rows", 1)], TypeError, "values: expected a mapping"),
        (None, {}, TypeError, "non-empty text"),
    ],
)
def test_a_value_that_could_not_be_quoted_is_refused_by_name(template, values, error, match):
    with pytest.raises(error, match=match):
        Said(template, values)  # type: ignore[arg-type]
