"""lme4's formula syntax for random intercepts (perfstudy.design._formula), against what lme4 itself makes
of the same formulas (Bates et al. 2015, J. Stat. Softw. 67(1), Table 2: ``(1 | g1/g2)`` is
``(1 | g1) + (1 | g1:g2)``)."""

import pytest

from perfstudy.design._formula import Formula, parse_formula, parse_random


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Yield ~ 1 + (1|Batch)", Formula("Yield", (), ("Batch",))),
        ("y ~ 1 + (1|s) + (1|d) + (1|dept)", Formula("y", (), ("s", "d", "dept"))),
        ("strength ~ 1 + (1 | batch/cask)", Formula("strength", (), ("batch", "batch:cask"))),
        ("strength ~ (1|batch) + (1|batch:cask)", Formula("strength", (), ("batch", "batch:cask"))),
        ("value ~ version + (1|request) + (1|a/b/c)", Formula("value", ("version",), ("request", "a", "a:b", "a:b:c"))),
        ("`wall time` ~ `build id` + (1|`host name`)", Formula("wall time", ("build id",), ("host name",))),
        ("y~x+(1|g)", Formula("y", ("x",), ("g",))),
    ],
)
def test_formulas_parse_as_lme4_reads_them(text, expected):
    assert parse_formula(text) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("y (1|g)", "exactly one '~'"),
        ("y ~ x ~ (1|g)", "exactly one '~'"),
        ("log(y) ~ (1|g)", "the response 'log\\(y\\)' is not a column"),
        ("y ~ (1|g", "parenthesis open"),
        ("y ~ (1|g))", "closes a parenthesis"),
        ("y ~ (x|g)", "random slopes are not supported"),
        ("y ~ (1||g)", "uncorrelated terms"),
        ("y ~ 0 + (1|g)", "intercept cannot be removed"),
        ("y ~ -1 + (1|g)", "intercept cannot be removed"),
        ("y ~ a*b + (1|g)", "'a\\*b' is not a column"),
        ("y ~ x", "no random intercept"),
        ("y ~ x + + (1|g)", "empty term"),
        ("y ~ (1|a/b:c)", "not a column, an interaction 'a:b' or a nesting 'a/b'"),
        ("y ~ (1|g) + (1|g)", "'g' is given twice"),
        ("y ~ (1|a/b) + (1|a)", "'a' is given twice"),
    ],
)
def test_malformed_formulas_are_refused_by_name(text, message):
    with pytest.raises(ValueError, match=message):
        parse_formula(text)


def test_a_formula_must_be_a_string():
    with pytest.raises(TypeError, match="expected a string"):
        parse_formula(("y", "g"))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("host", ("host",)),
        ("host:batch", ("host:batch",)),
        ("region/host", ("region", "region:host")),
        ("(1|s) + (1|d)", ("s", "d")),
    ],
)
def test_random_strings(text, expected):
    assert parse_random(text) == expected


def test_random_strings_hold_no_fixed_effects():
    with pytest.raises(ValueError, match="holds fixed effects \\['x'\\]"):
        parse_random("x + (1|g)")
