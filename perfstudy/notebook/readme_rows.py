"""README's results table against the records of a full report: every number a row quotes must be one that the
notebook's own sentences (``Recorder.say``) wrote in that run.

The README's table "What each notebook reproduces, and where it differs" summarises a full ``make report``. Its
numbers are typed by a person; a notebook's sentences are written from its record. :func:`unquoted_numbers` lists,
per row, the numbers the row holds that none of its notebook's sentences holds: a number the run did not compute,
or one from an older run. ``perfstudy report`` runs it after a full run and writes the list beside the notebooks.

Numbers that name a part of a paper or a method (``Table 3``, ``Figure 7``, ``section 4.1``, ``Eq. 6``,
``Algorithm 2``, a commit's hash) are not results and are not looked for.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from perfstudy._lib.checks import check_each, check_mapping, check_text

__all__ = ["readme_rows", "quoted_numbers", "unquoted_numbers", "format_unquoted", "check_readme"]

#: the heading of README's table of results
HEADING = "### What each notebook reproduces, and where it differs"

#: a number as prose writes it: a sign, thousands separated, decimals, a percent sign
_NUMBER = re.compile(r"(?<![\w.])[-+−]?\d(?:[\d,]*\d)?(?:\.\d+)?%?(?![\w])")
#: words after which a number names a part of a paper, a method or a source, not a result
_NAMING = re.compile(
    r"(?:Tables?|Figures?|Figs?\.|sections?|Eqs?\.|Algorithm|OSDI|WWW|FSE|ATC|ICPE|small_|notebooks?)\s*"
    r"(?:\d[\d.]*(?:\s*(?:and|to|-|,)\s*)?)*$"
)


def readme_rows(text: str) -> dict[str, str]:
    """The rows of README's table of results: the notebook's number (``"01"``) to the row's text.

    Parameters
    ----------
    text : str
        The README.

    Returns
    -------
    dict of str to str
    """
    text = check_text("text", text)
    if HEADING not in text:
        raise ValueError(f"text: no {HEADING!r} table in it")
    rows = {}
    for line in text.split(HEADING, 1)[1].splitlines():
        if line.startswith("#"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and re.fullmatch(r"\d\d", cells[0]):
            rows[cells[0]] = " | ".join(cells[1:])
    return rows


def _canonical(token: str) -> str:
    """One number however it is written: ``+1,234.5%`` and ``1234.5`` alike (a range's "2.4-8.9%" gives its
    first end without the sign the sentence may write at both)."""
    return token.replace("−", "-").replace(",", "").lstrip("+").rstrip("%")


def quoted_numbers(text: str) -> list[str]:
    """The numbers a piece of prose quotes as results (module docstring: which are left out), as written.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of str
    """
    text = check_text("text", text).replace("\\|", "|")
    found = []
    for match in _NUMBER.finditer(text):
        before = text[: match.start()]
        if _NAMING.search(before[-40:]):
            continue
        if re.search(r"[A-Za-z]-$", before):  # part of a name (sap-0024)
            continue
        if re.search(r"[0-9a-f]{7,}$", before + match.group()):  # a commit's hash
            continue
        found.append(match.group())
    return found


def unquoted_numbers(rows: dict, said: dict) -> dict[str, list[str]]:
    """Per row, the numbers that none of its notebook's sentences holds.

    Parameters
    ----------
    rows : mapping of str to str
        :func:`readme_rows`.
    said : mapping of str to sequence of str
        The notebook's number (``"01"``) to the texts its record's ``said`` holds; a row whose notebook has no
        record is reported whole.

    Returns
    -------
    dict of str to list of str
        Only the rows with such numbers.
    """
    rows = check_mapping("rows", rows, check_text, entries=0)
    said = check_mapping("said", said, check_each, check_text, entries=0, empty=True)
    out = {}
    for row, text in rows.items():
        spoken = {_canonical(t) for sentence in said.get(row, ()) for t in _NUMBER.findall(str(sentence))}
        missing = [n for n in quoted_numbers(text) if _canonical(n) not in spoken]
        if missing:
            out[row] = missing
    return out


def format_unquoted(missing: dict, *, where: str = "README.md") -> str:
    """A short Markdown report of :func:`unquoted_numbers`.

    Parameters
    ----------
    missing : mapping of str to list of str
    where : str
        The file the rows are in.

    Returns
    -------
    str
    """
    missing = check_mapping("missing", missing, check_each, check_text, entries=0, empty=True)
    if not missing:
        return f"Every number in {where}'s table of results is in its notebook's sentences of this run.\n"
    lines = [f"Numbers in {where}'s table of results that this run's sentences do not hold (stale, or typed):", ""]
    lines += [f"- {row}: {', '.join(numbers)}" for row, numbers in sorted(missing.items())]
    return "\n".join(lines) + "\n"


def check_readme(readme, out_dir) -> dict[str, list[str]]:
    """:func:`unquoted_numbers` of a README against the records a report wrote into ``out_dir``
    (``<notebook>.json``, whose name starts with the row's number).

    Parameters
    ----------
    readme : str or path
    out_dir : str or path
        Where the report wrote its records.

    Returns
    -------
    dict of str to list of str
    """
    import os

    for name, value in (("readme", readme), ("out_dir", out_dir)):
        if not isinstance(value, (str, os.PathLike)):
            raise TypeError(f"{name}={value!r}: expected a path")
    if not Path(readme).is_file():
        raise FileNotFoundError(f"readme={str(readme)!r}: no such file")
    if not Path(out_dir).is_dir():
        raise FileNotFoundError(f"out_dir={str(out_dir)!r}: no such folder")
    rows = readme_rows(Path(readme).read_text())
    said = {}
    for path in sorted(Path(out_dir).glob("[0-9][0-9]_*.json")):
        try:
            record = json.loads(path.read_text())
        except ValueError:
            continue
        texts = [entry.get("text", "") for entry in record.get("said", {}).values() if isinstance(entry, dict)]
        said[path.name[:2]] = texts
    return unquoted_numbers(rows, said)
