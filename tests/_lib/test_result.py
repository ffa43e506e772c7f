"""The result protocol on a small result: one row of its scalar fields, a summary a person reads, and the same in
HTML, escaped; a result with a table shows it under the scalars."""

from dataclasses import dataclass, field

import pandas as pd

from perfstudy._lib.result import Result


@dataclass(frozen=True)
class _Estimate(Result):
    """A made-up estimate with its ``interval``.

    More text that the title leaves out."""

    mean: float
    label: str
    samples: tuple = field(default=(1, 2, 3))  # not a scalar: not in the row
    secret: str = field(default="x", repr=False)  # not shown


@dataclass(frozen=True)
class _Tabled(Result):
    """A result whose substance is its table."""

    rows: int

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"a": range(self.rows)})


def test_the_row_holds_the_shown_scalar_fields_only():
    assert _Estimate(0.25, "x").to_frame().to_dict("records") == [{"mean": 0.25, "label": "x"}]


def test_the_summary_is_the_first_paragraph_then_one_scalar_a_line():
    lines = _Estimate(0.25, "x").summary().split("\n")
    assert lines[0] == "_Estimate: A made-up estimate with its interval."
    assert [line.split() for line in lines[1:]] == [["mean", "0.25"], ["label", "x"]]


def test_html_is_escaped_and_a_table_follows_the_scalars():
    page = _Estimate(0.25, "<b>")._repr_html_()
    assert "&lt;b&gt;" in page and "<b>" not in page.replace("<p><strong>", "")
    tabled = _Tabled(3)
    assert "<table" in tabled._repr_html_() and tabled.summary().count("\n") == 5  # title, rows, header, 3 rows
