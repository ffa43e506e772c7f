"""Numbers and units as a table prints them, against benchstat's own output and hand-written expectations."""

import math

import pytest

from perfstudy._lib.format import counted, display_unit, p_text, plural, si, span, with_unit


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (7.031e-05, "70.31µ"),  # benchstat's "70.31µ" for 70.31 µs
        (1234567, "1.235M"),
        (999.96, "1k"),  # rounded first: 1k, never "1000"
        (0, "0"),
        (-0.0025, "-2.5m"),
        (float("nan"), "n/a"),
        (float("inf"), "n/a"),
    ],
)
def test_si_gives_the_prefix_the_rounded_value_reaches(value, expected):
    assert si(value) == expected


def test_small_values_keep_no_prefix_where_they_are_not_times():
    assert si(0.5, small=False) == "0.5" and si(0.5) == "500m"


@pytest.mark.parametrize(
    ("unit", "expected"),
    [
        ("ns/op", (1e-9, "s/op", True)),
        ("ops/ms", (1e3, "ops/s", False)),
        ("B/op", (1.0, "B/op", False)),
        ("", (1.0, "", False)),
        (None, (1.0, "", False)),
    ],
)
def test_a_unit_is_shown_in_seconds_where_it_has_a_time_part(unit, expected):
    factor, shown, timed = display_unit(unit)
    assert (shown, timed) == expected[1:] and factor == pytest.approx(expected[0])


def test_with_unit_joins_the_prefix_to_the_unit():
    assert with_unit(900.6e-9, "s") == "900.6 ns"
    assert with_unit(4096, "B/op") == "4.096 kB/op"
    assert with_unit(3, "") == "3" and with_unit(math.nan, "s") == "n/a"
    # a time in another unit is shown in seconds' prefixes: go test's 28,550 ns/op read "28.55 kns/op"
    assert with_unit(28_550, "ns/op") == "28.55 µs/op" and with_unit(1500, "us") == "1.5 ms"
    assert with_unit(0.5, "B/op") == "0.5 B/op"  # no milli-bytes


@pytest.mark.parametrize(
    ("noun", "expected"),
    [("batch", "batches"), ("host", "hosts"), ("process", "processes"), ("party", "parties"), ("day", "days")],
)
def test_plural_of_a_clusters_name(noun, expected):
    assert plural(noun) == expected


def test_a_span_prints_one_number_where_both_ends_print_alike():
    assert span(0.33, 0.67) == "33%-67%" and span(0.331, 0.334) == "33%"


def test_a_p_value_is_never_printed_as_zero():
    assert p_text(0.0) == "<1e-300" and p_text(0.01234) == "0.012" and p_text(math.nan) == "n/a"


def test_a_count_of_one_is_singular():
    """A run of one round said "1 rounds"."""
    assert [counted(n, "round") for n in (0, 1, 2)] == ["0 rounds", "1 round", "2 rounds"]
    assert counted(1, "batch") == "1 batch" and counted(3, "batch") == "3 batches"
