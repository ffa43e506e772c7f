"""The argument checks quote a value as the user gave it: ``name=value`` (Python's repr) for a library argument,
``--name value`` for an option, as a shell would take it back."""

import numpy as np
import pytest

from perfstudy._lib.checks import (
    check_bool,
    check_choice,
    check_column,
    check_coverage,
    check_duration,
    check_fraction,
    check_int,
    check_real,
    check_threshold,
    said,
)


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("replicates", 5, "replicates=5"),
        ("statistic", "min", "statistic='min'"),
        ("--replicates", 5, "--replicates 5"),
        ("--statistic", "min", "--statistic min"),
        ("--cluster", "", "--cluster ''"),  # blank text stays visible
        ("--name", "my bench", "--name 'my bench'"),  # as a shell needs it
    ],
)
def test_a_value_is_quoted_as_it_was_given(name, value, expected):
    assert said(name, value) == expected


@pytest.mark.parametrize(
    ("check", "library", "option"),
    [
        (lambda n: check_int(n, 0, minimum=1), "values=0: expected an integer of at least 1", "--values 0: expected"),
        (lambda n: check_real(n, np.inf), "values=inf: expected a finite number", "--values inf: expected a finite"),
        (lambda n: check_fraction(n, 1.5), "values=1.5: expected a value in (0, 1)", "--values 1.5: expected a value"),
        (lambda n: check_bool(n, "yes"), "values='yes': expected True or False", "--values yes: expected True"),
        (lambda n: check_choice(n, "x", ("a", "b")), "values='x': expected one of ('a', 'b')", "--values x: expected"),
        (
            lambda n: check_threshold(2.0, n),
            "values=2.0: expected a relative change in [0, 1)",
            "--values 2.0: expected",
        ),
        (lambda n: check_coverage("150%", n), "values 150%: expected a coverage", "--values 150%: expected a coverage"),
        (lambda n: check_duration(n, "30"), "values='30': a bare number has no unit", "--values 30: a bare number"),
    ],
    ids=["int", "real", "fraction", "bool", "choice", "threshold", "coverage", "duration"],
)
def test_every_check_names_the_argument_or_the_option_as_typed(check, library, option):
    with pytest.raises((TypeError, ValueError)) as python:
        check("values")
    assert str(python.value).startswith(library), python.value
    with pytest.raises((TypeError, ValueError)) as cli:
        check("--values")
    assert str(cli.value).startswith(option) and "--values=" not in str(cli.value), cli.value


def test_a_missing_column_names_the_frame_and_lists_its_columns():
    import pandas as pd

    df = pd.DataFrame({"value": [1.0], "batch": [0]})
    with pytest.raises(
        ValueError, match=r"^--cluster nope: the file has no such column; its columns are \['value', 'batch'\]"
    ):
        check_column("--cluster", "nope", df, "the file")
    assert check_column("cluster", "batch", df) == "batch"
