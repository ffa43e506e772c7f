"""Units shown to people: SI prefixes (benchstat's convention) and the unit a table prints once."""

from __future__ import annotations

import numpy as np
import pytest

from perfstudy._lib.format import display_unit, si


@pytest.mark.parametrize(
    "value, text",
    [(7.031e-05, "70.31µ"), (1234567, "1.235M"), (0, "0"), (999.96, "1k"), (0.5, "500m"), (-0.0042, "-4.2m"),
     (12.0, "12"), (4096, "4.096k"), (1e-9, "1n"), (float("nan"), "n/a")],
)  # fmt: skip
def test_si_prefixes(value, text):
    assert si(value) == text


def test_si_reads_back_to_four_significant_digits():
    prefixes = {"T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3, "m": 1e-3, "µ": 1e-6, "n": 1e-9, "p": 1e-12}
    for value in np.random.default_rng(0).lognormal(0, 12, 2000):
        text = si(value)
        scale = prefixes.get(text[-1], 1.0)
        number = float(text[:-1] if text[-1] in prefixes else text)
        assert number * scale == pytest.approx(value, rel=5e-4)  # 4 significant digits: half a unit in the 4th
        assert 1 <= number < 1000 or value < 1e-12 or value >= 1e15


def test_counts_keep_their_decimals():
    assert si(0.5, small=False) == "0.5" and si(2500, small=False) == "2.5k"


@pytest.mark.parametrize(
    "unit, factor, shown, timed",
    [("ns/op", 1e-9, "s/op", True), ("second", 1.0, "s", True), ("us", 1e-6, "s", True),
     ("ops/ms", 1e3, "ops/s", False), ("B/op", 1.0, "B/op", False), ("allocs/op", 1.0, "allocs/op", False),
     (None, 1.0, "", False), ("%", 1.0, "%", False), ("samples", 1.0, "samples", False)],
)  # fmt: skip
def test_display_unit_puts_time_in_seconds(unit, factor, shown, timed):
    # timed: the value is a time, so prefixes below one suit it; "samples" starts with an s and is not one
    assert display_unit(unit) == (pytest.approx(factor), shown, timed)


def test_never_negative_covers_times_rates_sizes_and_leaves_a_benchmarks_own_metrics_signed():
    from perfstudy._lib.units import never_negative

    assert all(map(never_negative, ["ns/op", "s", "ms", "MB/s", "ops/s", "B/op", "allocs/op", "bytes"]))
    assert not any(map(never_negative, ["score", "delta-ns", "", None, "widgets/op", "x/y"]))


def test_a_size_or_count_is_larger_or_smaller_not_slower_or_faster():
    from perfstudy._lib.units import worded

    assert worded("slower", "B/op") == "larger" and worded("faster", "allocs/op") == "smaller"
    assert worded("slower", "B") == "larger" and worded("slower", "MiB") == "larger"
    assert worded("slower", "ns/op") == "slower" and worded("no change", "B/op") == "no change"
    assert worded("faster", None) == "faster"


def test_a_rows_metric_is_its_names_suffix_as_run_and_hyperfine_write_it():
    from perfstudy._lib.units import metric_of

    assert [metric_of(n) for n in ("prog", "prog:cpu", "prog:rss", "BM_cpu", "a:b:cpu")] == [
        "wall",
        "cpu",
        "rss",
        "wall",
        "cpu",
    ]


def test_instructions_and_time_in_opposite_directions_are_a_disagreement_said_by_name():
    from perfstudy._lib.units import disagreements, disagreements_said

    rows = [
        dict(benchmark="vec", verdict="faster", change=-0.25),
        dict(benchmark="vec:cpu", verdict="no change", change=0.001),
        dict(benchmark="vec:instructions", verdict="slower", change=0.125),
        dict(benchmark="div", verdict="slower", change=0.04),
        dict(benchmark="div:instructions", verdict="faster", change=-0.5),
        dict(benchmark="same", verdict="slower", change=0.1),
        dict(benchmark="same:instructions", verdict="slower", change=0.1),  # agree: nothing said
        dict(benchmark="quiet:instructions", verdict="slower", change=0.1),  # no time beside it
    ]
    found = disagreements(rows)
    assert [(d["benchmark"], d["metric"], d["instructions"], d["time"]) for d in found] == [
        ("vec", "wall", "slower", "faster"),
        ("div", "wall", "faster", "slower"),
    ]
    assert disagreements_said(rows) == [
        "Instructions and time disagree on vec: more instructions (+12.50%) but faster (-25.00% wall-clock time); "
        "neither decides alone.",
        "Instructions and time disagree on div: fewer instructions (-50.00%) but slower (+4.00% wall-clock time); "
        "neither decides alone.",
    ]
    assert disagreements(rows[:3])[0]["time_change"] == -0.25 and disagreements([]) == []
