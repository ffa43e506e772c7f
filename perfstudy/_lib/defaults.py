"""The defaults of every verb, in one table, each with the reason it differs where it does.

The library functions, their settings objects and the command line's ``--help`` read their defaults from
:data:`DEFAULTS`; DESIGN.md's table of defaults is held to it by a test. A default is chosen on purpose: where
two verbs differ (the threshold most of all), the ``why`` says what each verb is for.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["DEFAULTS", "Default", "default", "shown"]


@dataclass(frozen=True)
class Default:
    """One verb's default for one option: the value, and why it is that."""

    value: object
    why: str


_TABLE = {
    ("compare", "threshold"): Default(
        0.0,
        "compare reports every change its interval resolves, as benchstat does; a CI gate sets the change "
        "that matters to it (--threshold 2%)",
    ),
    ("compare", "confidence"): Default(0.95, "the usual 95% interval, per benchmark; Holm's correction over the suite"),
    ("compare", "replicates"): Default(
        2000, "the usual count for a 95% percentile interval (Efron & Tibshirani 1993, ch. 19)"
    ),
    ("analyze", "threshold"): Default(
        0.02,
        "analyze gives advice, such as how many repetitions reach a change of interest; 2% is the smallest "
        "change most performance work acts on",
    ),
    ("analyze", "confidence"): Default(0.95, "as compare"),
    ("run", "threshold"): Default(
        0.05,
        "run stops when the interval is inside or beyond the threshold, so the threshold sets its length: at 5% "
        "an A/A pair stops in tens of rounds on a quiet machine; an interval narrows with the square root of the "
        "rounds, so 1% takes about (5/1)^2 = 25 times as many",
    ),
    ("run", "confidence"): Default(0.95, "anytime-valid: the error holds over every round looked at"),
    ("run", "statistic"): Default(
        "median",
        "each batch's median: in a real contended trial the right sign in 0.98 of rounds, the mean in 0.93",
    ),
    ("run", "rule"): Default("sign", "the sign sequence needs only a median change per round, whatever the load does"),
    ("bisect", "threshold"): Default(
        0.05,
        "as run, whose runs are its steps: a step must tell a change beyond 5% from none, and at 5% an A/A step "
        "decides in tens of rounds on a quiet machine",
    ),
    ("bisect", "confidence"): Default(0.95, "of the bisect as a whole: Bonferroni over the steps it can take"),
    ("bisect", "max_rounds"): Default(200, "each step's budget, so that an undecided step ends and says so"),
    ("bisect", "seed"): Default(0, "a bisect repeats its steps' orders (seed + step) unless asked not to"),
    ("history", "threshold"): Default(
        0.01,
        "history looks for any change of level a commit made, including small ones a series can resolve over "
        "many commits; the size rule in noise SDs (min_sigmas) keeps a drift from being reported",
    ),
    ("history", "confidence"): Default(0.95, "Moses' interval of the shift, per change point"),
    ("history", "fdr"): Default(0.05, "Benjamini-Hochberg over the benchmarks"),
    ("history", "min_side"): Default(5, "fewest commits on either side of a change point"),
}

#: ``{(verb, option): Default}`` for every verb's defaults
DEFAULTS = MappingProxyType(_TABLE)


def default(verb: str, option: str) -> Any:
    """The default value of ``option`` for ``verb``."""
    return DEFAULTS[(verb, option)].value


def shown(verb: str, option: str) -> str:
    """The default as ``--help`` and DESIGN.md write it: a threshold as a percentage, else the value."""
    value = default(verb, option)
    if option == "threshold":
        return f"{100 * float(value):g}%"
    return str(value)
