"""lme4's model formulas for random-intercept models: ``"y ~ 1 + version + (1|s) + (1|batch/cask)"``.

The subset :func:`perfstudy.design.estimate.fit_variance_components` fits (Bates, Maechler, Bolker &
Walker 2015, J. Stat. Softw. 67(1), section 2.1, Table 2):

- the response, a column, left of ``~``;
- fixed effects, columns joined by ``+``; ``1`` is the intercept, always fitted;
- random intercepts ``(1 | g)``, where ``g`` is a column, an interaction ``a:b``, or lme4's nesting
  shorthand ``a/b``, which is ``a + a:b`` (and ``a/b/c`` is ``a + a:b + a:b:c``).

Anything else (random slopes ``(x | g)``, uncorrelated ``||``, no intercept ``0`` or ``-1``, fixed
interactions ``a*b``, functions ``log(y)``) is refused by name. Column names may be back-quoted
(```my column```).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Formula", "parse_formula", "parse_random"]

_NAME = r"(?:`[^`]+`|[A-Za-z_.][A-Za-z0-9_.]*)"
_GROUP = re.compile(rf"^{_NAME}(?:\s*[:/]\s*{_NAME})*$")


@dataclass(frozen=True)
class Formula:
    """A parsed formula: ``value``, the ``fixed`` columns (besides the intercept) and the ``random`` terms."""

    value: str
    fixed: tuple[str, ...]
    random: tuple[str, ...]


def _name(text: str) -> str:
    text = text.strip()
    return text[1:-1] if text.startswith("`") else text


def _split(text: str, where: str) -> list[str]:
    """Split at top-level ``+`` (outside parentheses and back-quotes)."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, char in enumerate(text):
        if char == "`":
            quoted = not quoted
        elif quoted:
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"{where}: {text!r} closes a parenthesis it did not open")
        elif char == "+" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth or quoted:
        raise ValueError(f"{where}: {text!r} leaves a {'back-quote' if quoted else 'parenthesis'} open")
    parts.append(text[start:])
    return [p.strip() for p in parts]


def _group_terms(group: str, where: str) -> list[str]:
    """``a``, ``a:b`` or the nesting ``a/b/c`` as perfstudy's terms (``a``, ``a:b``, ``a:b:c``)."""
    group = group.strip()
    if not _GROUP.match(group) or (":" in group and "/" in group):
        raise ValueError(f"{where}: the grouping {group!r} is not a column, an interaction 'a:b' or a nesting 'a/b'")
    if "/" not in group:
        return [":".join(_name(part) for part in group.split(":"))]
    levels = [_name(part) for part in group.split("/")]
    return [":".join(levels[: i + 1]) for i in range(len(levels))]


def _random_term(term: str, where: str) -> list[str]:
    inner = term[1:-1]
    if "||" in inner:
        raise ValueError(f"{where}: {term!r}: uncorrelated terms '||' are not supported; use (1 | group)")
    if inner.count("|") != 1:
        raise ValueError(f"{where}: {term!r} is not a random intercept (1 | group)")
    effect, group = (part.strip() for part in inner.split("|"))
    if effect != "1":
        raise ValueError(f"{where}: {term!r}: random slopes are not supported; only random intercepts (1 | group)")
    return _group_terms(group, where)


def _rhs(text: str, where: str) -> tuple[list[str], list[str]]:
    fixed, random = [], []
    for term in _split(text, where):
        if not term:
            raise ValueError(f"{where}: {text!r} has an empty term (a stray '+')")
        if term.startswith("(") and term.endswith(")") and "|" in term:
            random.extend(_random_term(term, where))
        elif term == "1":
            continue
        elif term in ("0", "-1") or term.startswith("-"):
            raise ValueError(f"{where}: {term!r}: the intercept cannot be removed; perfstudy always fits one")
        elif re.fullmatch(_NAME, term):
            fixed.append(_name(term))
        else:
            raise ValueError(
                f"{where}: {term!r} is not a column, 1, or a random intercept (1 | group); "
                "fixed interactions and functions are not supported (make a column)"
            )
    return fixed, random


def _unique(terms: list[str], where: str) -> tuple[str, ...]:
    seen = []
    for term in terms:
        if term in seen:
            raise ValueError(f"{where}: the term {term!r} is given twice")
        seen.append(term)
    return tuple(seen)


def parse_formula(text: str) -> Formula:
    """Parse ``"response ~ fixed + (1 | group) + ..."`` (see the module docstring).

    Raises
    ------
    ValueError
        Naming what is not understood: no ``~``, a response that is not a column, an unclosed
        parenthesis, a random slope, a removed intercept, a fixed interaction, no random term.
    """
    if not isinstance(text, str):
        raise TypeError(f"formula={text!r}: expected a string such as 'y ~ 1 + (1|host)'")
    where = "formula"
    if text.count("~") != 1:
        raise ValueError(f"{where}: {text!r} needs exactly one '~' between the response and the terms")
    lhs, rhs = (part.strip() for part in text.split("~"))
    if not re.fullmatch(_NAME, lhs):
        raise ValueError(f"{where}: the response {lhs!r} is not a column name (transform= takes logs)")
    fixed, random = _rhs(rhs, where)
    if not random:
        raise ValueError(f"{where}: {text!r} has no random intercept (1 | group)")
    return Formula(_name(lhs), _unique(fixed, where), _unique(random, where))


def parse_random(text: str) -> tuple[str, ...]:
    """A ``random=`` string: a term (``"host"``, ``"host:batch"``), a nesting (``"batch/cask"``), or
    lme4's bars (``"(1|s) + (1|d)"``)."""
    where = "random"
    if "|" in text or "(" in text:
        fixed, random = _rhs(text, where)
        if fixed:
            raise ValueError(f"random: {text!r} holds fixed effects {fixed}; give them as fixed=")
        return _unique(random, where)
    return tuple(_group_terms(text, where)) if "/" in text else (text,)
