"""The prose checker of tests/quoted.py: what it counts as a quoted number and when a record holds one."""

import pytest
from support.quoted import prose, quoted_numbers, record_numbers, unheld


@pytest.mark.parametrize(
    "text, printed",
    [
        ("77-90% land within 10%", ["77%", "90%", "10%"]),  # a range of percentages is two percentages
        ("sigma 0.007-0.010 beside 0.0108", ["0.007", "0.010", "0.0108"]),
        ("-9.3% faster, gap 1.4e-16, 1,234.5 runs", ["-9.3%", "1.4e-16", "1,234.5"]),
        ("16 hosts, Table 3, Eq. 5, section 3.2.2, sections 3.1.2 and 4.2, Figures 6 and 7", []),
        ("$z = 1.96$ and `x = 0.5` and $$p = 0.05$$", []),  # equations and code state method
    ],
)
def test_quoted_numbers(text, printed):
    assert [p for p, *_ in quoted_numbers(text)] == printed


def test_a_number_is_held_at_the_precision_it_is_printed_with():
    record = {"share": 0.634, "sd": 0.1049, "said": {"s": {"text": "99.9%", "values": {"x": 0.25}}}}
    numbers = record_numbers(record)
    assert unheld("63% and 0.10 and 25%", numbers) == []
    assert unheld("64% and 0.11", numbers) == ["64%", "0.11"]
    assert unheld("99.9%", numbers) == ["99.9%"]  # a sentence's own text does not vouch for itself


def test_a_library_note_in_the_record_holds_its_numbers_and_tables_are_left_to_their_formatter():
    numbers = record_numbers({"comparison": [{"notes": "warm-up: the first 3 values differ by +23.9%"}]})
    assert unheld("differ by +23.9%", numbers) == []
    assert prose("| a | 11.98 ms |\n|---|---|\nsays 5.5%") == "says 5.5%"
