"""Numbers a notebook's text quotes, and whether its record holds them (tests' helper, not the package's).

A quoted number is a decimal (``0.10``) or a percentage (``63%``, ``6.5-8.8%``) in prose; bare integers
(``Table 3``, ``16 hosts``, ``Eq. 5``) and anything inside ``$...$`` (equations state method) and
references into a paper (``section 3.2.2``, ``Eq. 5``) are not quoted numbers. A quoted number is held by the record when some number in it, at the precision the
text prints, is the same: ``63%`` by 0.63 or 63.0 (to +-0.5 points), ``0.10`` by 0.1 (to +-0.005).
"""

from __future__ import annotations

import re

_MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$", re.S)
_CODE = re.compile(r"`[^`]*`")
_REFERENCE = re.compile(  # "section 3.2.2", "Eq. 5", "Figures 6 and 7": where in a paper, not a number
    r"\b(?:sections?|sec\.|§|eqs?\.|equations?|tables?|figs?\.|figures?|algorithms?|versions?|v)\s*"
    r"\d+(?:\.\d+)*(?:\s*(?:-|–|and|or)\s*\d+(?:\.\d+)*)*",
    re.I,
)
_NUMBER = r"\d+(?:,\d{3})*(?:\.\d+)?(?:e[-+]?\d+)?"
_RANGE = re.compile(rf"(?<![\w.])([-+−]?{_NUMBER})\s*(%?)\s*[-–]\s*({_NUMBER})\s*%")
_ONE = re.compile(rf"(?<![\w.])([-+−]?{_NUMBER})(\s*%)?", re.I)


def _parse(text: str) -> tuple[float, int]:
    text = text.replace(",", "").replace("−", "-").lower()
    mantissa, _, exponent = text.partition("e")
    decimals = (len(mantissa.split(".")[1]) if "." in mantissa else 0) - int(exponent or 0)
    return float(text), decimals


def quoted_numbers(text: str) -> list[tuple[str, float, int, bool]]:
    """``(as printed, value, decimals, percent)`` for each quoted number of ``text``."""
    text = _REFERENCE.sub(" ", _CODE.sub(" ", _MATH.sub(" ", text)))
    found = []
    for match in _RANGE.finditer(text):
        for part in (match.group(1), match.group(3)):
            found.append((part + "%", *_parse(part), True))
    text = _RANGE.sub(" ", text)
    for match in _ONE.finditer(text):
        printed, percent = match.group(1), bool(match.group(2))
        value, decimals = _parse(printed)
        if percent or decimals:
            found.append((printed + ("%" if percent else ""), value, decimals, percent))
    return found


def record_numbers(record) -> list[float]:
    """Every number in a record (a JSON value), however deep, and every number quoted in its text values
    (a note the library wrote, such as a comparison's) except the notebook's own sentences (``said``)."""
    out: list[float] = []

    def walk(value):
        if isinstance(value, bool) or value is None:
            return
        if isinstance(value, str):
            out.extend(number for _, number, _, _ in quoted_numbers(value))
        elif isinstance(value, (int, float)):
            out.append(float(value))
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk({k: v for k, v in record.items() if k != "said"} if isinstance(record, dict) else record)
    if isinstance(record, dict):
        walk([entry.get("values") for entry in record.get("said", {}).values()])
    return out


def prose(text: str) -> str:
    """``text`` without its Markdown table rows: a table a notebook prints is rendered from a result by a
    formatter tested on its own (e.g. ``format_comparison``), in display units the record need not hold."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("|"))


def unheld(text: str, numbers: list[float]) -> list[str]:
    """The quoted numbers of ``text`` that no number of the record prints as."""
    missing = []
    for printed, value, decimals, percent in quoted_numbers(text):
        half = 0.5 * 10.0**-decimals * (1 + 1e-9)
        scales = (1.0, 100.0) if percent else (1.0,)  # 63% is 0.63 or 63 in a record
        if not any(abs(abs(n) * scale - abs(value)) <= half for n in numbers for scale in scales):
            missing.append(printed)
    return missing
