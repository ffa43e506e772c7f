"""Numbers and units as people read them: SI prefixes and a unit printed once (benchstat's convention).

Helpers of the package's own output (compare's table, analyze's cards, plot axes), not part of its API.
"""

from __future__ import annotations

import math

from perfstudy._lib.units import _parts

#: SI prefixes for values shown to people, from pico to tera
_PREFIXES = (
    (1e12, "T"),
    (1e9, "G"),
    (1e6, "M"),
    (1e3, "k"),
    (1.0, ""),
    (1e-3, "m"),
    (1e-6, "µ"),
    (1e-9, "n"),
    (1e-12, "p"),
)


def display_unit(unit) -> tuple[float, str, bool]:
    """``(factor, shown, timed)``: values in ``unit`` times ``factor`` are in ``shown``, the unit a table prints
    once in its header, whose time part is seconds (``ns/op`` -> ``s/op``, ``ops/ms`` -> ``ops/s``,
    ``second`` -> ``s``) so that :func:`si` can give each value its prefix. Other units are kept. ``timed``:
    the value is a time (``s``, ``s/op``), so prefixes below one suit it (``si(..., small=timed)``: ``70.31µ`` s, but
    0.5 samples, not ``500m``).

    Parameters
    ----------
    unit : str or None
    """
    if not isinstance(unit, str) or not unit.strip():
        return 1.0, "", False
    parts = _parts(unit)
    if parts is None:
        return 1.0, unit.strip(), False
    seconds, rest = parts
    if rest.endswith("/"):  # a rate: ops/ms -> ops/s; 0.5 ops/s reads better than 500m
        return seconds, rest + "s", False
    return seconds, "s" + rest, True


def si(value: float, digits: int = 4, *, small: bool = True) -> str:
    """``value`` with an SI prefix and ``digits`` significant digits, as benchstat prints them:
    ``7.031e-05`` -> ``70.31µ``, ``1234567`` -> ``1.235M``, ``0`` -> ``0``.

    Parameters
    ----------
    value : float
    digits : int
        Significant digits (trailing zeros dropped).
    small : bool
        Prefixes below one (m, µ, n, p) too: for times; a count or a percentage of 0.5 reads better as 0.5.
    """
    if value != value or value in (float("inf"), float("-inf")):
        return "n/a"
    if value == 0:
        return "0"
    magnitude = abs(value)
    if not small and magnitude < 1:
        return f"{value:.{digits}g}"
    # the largest prefix the value reaches once rounded (999.96 -> 1k, not 1000)
    reached = (p for p in _PREFIXES if magnitude >= p[0] * (1 - 0.5 * 10 ** (1 - digits)))
    scale, prefix = next(reached, _PREFIXES[-1])
    return f"{value / scale:.{digits}g}{prefix}"


def with_unit(value: float, unit: str, *, digits: int = 4, small: bool = True) -> str:
    """``value`` in ``unit`` with its prefix joined to the unit as :func:`display_unit` shows it, as people write
    it: ``900.6 ns``, ``28.55 µs/op`` for 28,550 ns/op (never ``28.55 kns/op``), ``4.096 kB/op``.

    Parameters
    ----------
    value : float
    unit : str
        The value's unit ("" for none).
    digits : int
    small : bool
        As in :func:`si`, for a time; a value of another unit never takes a prefix below one.
    """
    factor, shown, timed = display_unit(unit)
    text = si(value * factor, digits, small=small and timed)
    if text == "n/a":
        return text
    if text[-1:] in {p for _, p in _PREFIXES if p}:
        return f"{text[:-1]} {text[-1]}{shown}"
    return f"{text} {shown}".strip()


def counted(number: int, noun: str) -> str:
    """``number`` and ``noun``, plural unless one: ``1 round``, ``2 rounds``, ``0 batches``.

    Parameters
    ----------
    number : int
    noun : str
    """
    return f"{number} {noun if number == 1 else plural(noun)}"


def plural(noun: str) -> str:
    """The English plural of a cluster's name as a report prints it: ``batch`` -> ``batches``, ``host`` ->
    ``hosts``, ``process`` -> ``processes``, ``replica`` -> ``replicas``, ``party`` -> ``parties``."""
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    if len(noun) > 1 and noun.endswith("y") and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def span(low: float, high: float, spec: str = ".0%") -> str:
    """``low-high`` in ``spec`` (``"33%-67%"``), or one number where both print alike (``"33%"``).

    Parameters
    ----------
    low, high : float
        The ends, e.g. the smallest and largest share of a table's rows.
    spec : str
        A format spec for both.
    """
    a, b = format(low, spec), format(high, spec)
    return a if a == b else f"{a}-{b}"


def p_text(p: float) -> str:
    """A p-value as a table shows it: two significant digits, "n/a" for none, and never "0": a p-value that
    underflowed to 0 is below the smallest float, and says so (``<1e-300``)."""
    if not math.isfinite(p):
        return "n/a"
    return "<1e-300" if p <= 0 else f"{p:.2g}"


def aligned(header, rows) -> list[str]:
    """A table as text lines: columns two spaces apart, each as wide as its widest cell, trailing spaces cut.

    Parameters
    ----------
    header : sequence of str
    rows : sequence of sequences of str
    """
    lines = [list(header), *(list(r) for r in rows)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in lines]


def markdown_rows(header, rows) -> list[str]:
    """A table as Markdown lines, a ``|`` inside a cell escaped.

    Parameters
    ----------
    header : sequence of str
    rows : sequence of sequences of str
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
