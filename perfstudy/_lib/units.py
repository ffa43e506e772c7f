"""Units as benchmark harnesses write them: which way is better, and how to convert between them.

A unit is a time (``ns``, ``us``, ``ms``, ``s``, ``second``, ...), a time per something (``ns/op``,
``s/iter``), a rate (``ops/s``, ``MB/s``, ``ops/ms``) or anything else (``allocs/op``, ``B/op``,
``%``), which is kept as it is. Two units convert when they differ only in their time part: ``ns``
and ``s``, ``ns/op`` and ``us/op``, ``ops/s`` and ``ops/ms``. ``allocs/op`` converts to nothing but
itself.
"""

from __future__ import annotations

import re

__all__ = [
    "TIME_UNITS",
    "METRIC_SUFFIXES",
    "disagreements",
    "disagreements_said",
    "higher_is_better",
    "conversion_factor",
    "never_negative",
    "common_unit",
    "worded",
    "metric_of",
]

#: Seconds in each time unit a harness writes (pyperf's ``second``, Go's ``ns``, JMH's ``us``, ...).
TIME_UNITS = {
    "ps": 1e-12,
    "ns": 1e-9,
    "nsec": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "usec": 1e-6,
    "ms": 1e-3,
    "msec": 1e-3,
    "s": 1.0,
    "sec": 1.0,
    "second": 1.0,
    "seconds": 1.0,
    "min": 60.0,
    "h": 3600.0,
}
_RATE = re.compile(r"^\s*\S+\s*/\s*(s|sec|second|ms|us|µs|μs|ns|min|h)\s*$", re.IGNORECASE)


def never_negative(unit) -> bool:
    """Whether a value in ``unit`` cannot be below 0: a time, a time per operation, a rate, bytes or
    allocations (per operation). Units perfstudy does not know (a benchmark's own metric) may be signed.

    Parameters
    ----------
    unit : str or None
    """
    if not isinstance(unit, str) or not unit.strip():
        return False
    text = unit.strip()
    if text in TIME_UNITS or _RATE.match(text) or text in ("B", "bytes", "allocs"):
        return True
    numerator, slash, denominator = text.partition("/")
    return (
        bool(slash)
        and denominator.strip() == "op"
        and (numerator.strip() in TIME_UNITS or numerator.strip() in ("B", "bytes", "allocs"))
    )


def higher_is_better(unit) -> bool:
    """Whether a larger value is better for ``unit``: a rate (something per unit of time, e.g.
    ``ops/s``, ``ops/ms``, ``MB/s``) is; a time, a time per operation (``s``, ``ns/op``) or a count
    per operation (``allocs/op``, ``B/op``) is not.

    Parameters
    ----------
    unit : str or None
        The unit as the tool wrote it; None or unknown units are taken as costs (lower is better).
    """
    return bool(isinstance(unit, str) and _RATE.match(unit))


def _parts(unit: str):
    """``(seconds, rest)`` with ``value * seconds`` in the unit's time part expressed in seconds, or
    None for a unit with no time part. ``rest`` is what must agree for two units to convert."""
    text = unit.strip()
    if text in TIME_UNITS:
        return TIME_UNITS[text], ""
    if text.count("/") == 1:
        top, bottom = (part.strip() for part in text.split("/"))
        if top in TIME_UNITS:
            return TIME_UNITS[top], "/" + bottom  # a time per something: ns/op
        if bottom in TIME_UNITS:
            return 1.0 / TIME_UNITS[bottom], top + "/"  # a rate: ops/s
    return None


def conversion_factor(source, target) -> float | None:
    """The factor ``f`` with ``value_in_target = f * value_in_source``, or None if the units do not
    convert (they differ in more than their time part, or one is unknown).

    Parameters
    ----------
    source, target : str or None
        Units as the tool wrote them. Equal units (None included) convert with factor 1.

    Examples
    --------
    >>> conversion_factor("s", "ns")
    1000000000.0
    >>> conversion_factor("ops/ms", "ops/s")
    1000.0
    >>> conversion_factor("allocs/op", "ns/op") is None
    True
    """
    if source == target:
        return 1.0
    if not (isinstance(source, str) and isinstance(target, str)):
        return None
    a, b = _parts(source), _parts(target)
    if a is None or b is None or a[1] != b[1]:
        return None
    return float(f"{a[0] / b[0]:.15g}")  # 1 / 1e-9 is 999999999.9999999 in binary; the factor is 1e9


def common_unit(units_a: list, units_b: list):
    """``(unit, factors_a, factors_b, reason)`` for one benchmark's values in two versions: the unit both sides
    are converted to (the one most of A's values are in; of equally many, the first in sorted order), the
    factor to multiply each value by (a list, or 1.0 for all), and None; or a reason, and no unit, for units
    that do not convert (:func:`conversion_factor`) or values of which some have a unit and some none.

    Parameters
    ----------
    units_a, units_b : list of str or None
        Each value's unit in version A and in version B (None or NaN where it has none).
    """

    def missing(unit) -> bool:
        return unit is None or (isinstance(unit, float) and unit != unit)

    for name, units in (("units_a", units_a), ("units_b", units_b)):
        if not isinstance(units, (list, tuple)):
            raise TypeError(f"{name}: expected a list of each value's unit, got {type(units).__name__}")
        wrong = [u for u in units if not (isinstance(u, str) or missing(u))]
        if wrong:
            raise TypeError(f"{name}: expected units as text (None where there is none), got {wrong[0]!r}")

    present = [u for u in (*units_a, *units_b) if not missing(u)]
    if not present:
        return None, 1.0, 1.0, None
    if len(present) < len(units_a) + len(units_b):
        return None, 1.0, 1.0, f"unit: some values have a unit ({present[0]!r}) and some have none"
    found = sorted(set(map(str, present)))
    if len(found) == 1:
        return found[0], 1.0, 1.0, None
    counts: dict = {}
    for unit in map(str, units_a):
        counts[unit] = counts.get(unit, 0) + 1
    target = min(counts, key=lambda unit: (-counts[unit], unit))
    factors = {unit: conversion_factor(unit, target) for unit in found}
    wrong = sorted(unit for unit, factor in factors.items() if factor is None)
    if wrong:
        return None, 1.0, 1.0, f"unit: measured in {found}, and {wrong} do not convert to {target!r}"
    return target, [factors[str(u)] for u in units_a], [factors[str(u)] for u in units_b], None


#: units of a size or a count, whose change is larger or smaller, not slower or faster (memory, allocations)
_SIZES = frozenset(("B", "bytes", "kB", "MB", "GB", "KiB", "MiB", "GiB", "allocs"))


def worded(verdict: str, unit) -> str:
    """A verdict in the words of its unit: a memory (``B``, ``B/op``) or an allocation count is larger or smaller,
    not slower or faster. A JSON's ``verdict`` keeps the vocabulary (its "slower" is a CI gate's regression whatever
    the unit), and says this beside it (``verdict_said``).

    Parameters
    ----------
    verdict : str
    unit : str or None
    """
    base = str(unit or "").split("/")[0].strip()
    return {"slower": "larger", "faster": "smaller"}.get(verdict, verdict) if base in _SIZES else verdict


#: the suffix of a benchmark's name that says what of a command is measured: wall-clock time keeps the name, user
#: plus system CPU time is ``NAME:cpu``, peak memory ``NAME:rss`` and the instructions counted ``NAME:instructions``
#: (a run's rows, hyperfine's CPU rows)
METRIC_SUFFIXES = {"wall": "", "cpu": ":cpu", "rss": ":rss", "instructions": ":instructions"}


def metric_of(benchmark) -> str:
    """What a row measures, by its name's suffix (:data:`METRIC_SUFFIXES`): ``"cpu"``, ``"rss"``, ``"instructions"``
    or ``"wall"``.
    Rows of two metrics in one unit (a wall and a CPU time) are never averaged together.

    Parameters
    ----------
    benchmark : str
    """
    name = str(benchmark)
    return next((metric for metric, suffix in METRIC_SUFFIXES.items() if suffix and name.endswith(suffix)), "wall")


def disagreements(rows) -> list[dict]:
    """Where a command's instructions and its time moved in opposite directions: more instructions but faster, or
    fewer but slower (rustc's instructions and cycles did so on one change, rust-lang/rust#78781). Each is said;
    neither metric's verdict stands for the other.

    Parameters
    ----------
    rows : sequence of mapping
        Verdict rows with ``benchmark``, ``verdict`` and ``change``: ``NAME:instructions`` beside ``NAME`` (wall)
        or ``NAME:cpu``.

    Returns
    -------
    list of dict
        ``benchmark``, ``metric`` (the time's: ``"wall"`` or ``"cpu"``), ``instructions`` and ``time`` (the two
        verdicts), ``instructions_change`` and ``time_change``.
    """
    from collections.abc import Mapping

    if isinstance(rows, (str, bytes, Mapping)) or not hasattr(rows, "__iter__"):
        raise TypeError(f"rows: expected verdict rows (mappings), got {type(rows).__name__}")
    rows = list(rows)
    if not all(isinstance(row, Mapping) and {"benchmark", "verdict", "change"} <= set(row) for row in rows):
        raise TypeError("rows: expected verdict rows, each a mapping with benchmark, verdict and change")
    by_name = {str(row["benchmark"]): row for row in rows}
    found = []
    suffix = METRIC_SUFFIXES["instructions"]
    for name, counted in by_name.items():
        if not name.endswith(suffix):
            continue
        base = name[: -len(suffix)]
        for metric in ("wall", "cpu"):
            timed = by_name.get(base + METRIC_SUFFIXES[metric])
            if timed is None or {counted["verdict"], timed["verdict"]} != {"slower", "faster"}:
                continue
            found.append(
                dict(
                    benchmark=base,
                    metric=metric,
                    instructions=counted["verdict"],
                    time=timed["verdict"],
                    instructions_change=counted["change"],
                    time_change=timed["change"],
                )
            )
    return found


def disagreements_said(rows) -> list[str]:
    """A sentence naming each of :func:`disagreements`.

    Parameters
    ----------
    rows : sequence of mapping
    """
    said = []
    for d in disagreements(rows):
        more = "more" if d["instructions"] == "slower" else "fewer"
        time = "wall-clock" if d["metric"] == "wall" else "CPU"
        said.append(
            f"Instructions and time disagree on {d['benchmark']}: {more} instructions "
            f"({100 * d['instructions_change']:+.2f}%) but {d['time']} ({100 * d['time_change']:+.2f}% {time} time); "
            "neither decides alone."
        )
    return said
