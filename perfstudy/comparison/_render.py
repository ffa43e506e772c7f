"""A comparison as people read it: benchstat's aligned table, Markdown, the notebook's HTML, and JSON."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, SimpleNamespace
from typing import Literal

import numpy as np

from perfstudy._lib.checks import check_choice
from perfstudy._lib.format import display_unit, p_text, si
from perfstudy._lib.result import Result
from perfstudy._lib.units import METRIC_SUFFIXES, disagreements, disagreements_said, metric_of, worded


@dataclass(frozen=True, eq=False)
class Report(Result):
    """What a comparison shows, without pandas: its rows and what applies to all of them.

    :meth:`Comparison.report` gives one; :func:`perfstudy.comparison.compare_files` builds one from two files
    without importing pandas (what ``perfstudy compare BASE NEW`` prints).

    Attributes
    ----------
    rows : tuple of dict
        One per benchmark, the columns of :attr:`Comparison.table` in its order.
    statistic, confidence, threshold, correction, cluster, labels, units, excluded, only_a, only_b, dropped, warmup_dropped
        As :class:`Comparison` has them.
    said : tuple of str
        What the comparison says of how its values were measured, under the table and in the JSON's ``said``
        (two files: measured one after the other, when, and how their machines differ).
    """

    rows: tuple
    statistic: str
    confidence: float
    threshold: float
    correction: str
    cluster: str
    labels: Mapping = field(default_factory=lambda: MappingProxyType({}))
    units: Mapping = field(default_factory=lambda: MappingProxyType({}))
    excluded: Mapping = field(default_factory=lambda: MappingProxyType({}))
    only_a: tuple = ()
    only_b: tuple = ()
    dropped: int = 0
    warmup_dropped: int = 0
    said: tuple = ()

    @property
    def regressions(self) -> int:
        """How many rows are ``"slower"``."""
        return sum(row["verdict"] == "slower" for row in self.rows)

    def format(self, format: Literal["table", "markdown", "json"] = "table") -> str:
        """The report as :func:`format_comparison` gives it.

        Parameters
        ----------
        format : {"table", "markdown", "json"}
            An aligned table, Markdown for a pull request, or JSON (README, "The JSON output").
        """
        check_choice("format", format, FORMATS)
        return render(self, format)

    def to_frame(self):
        """The rows as a DataFrame (:attr:`Comparison.table`'s columns)."""
        import pandas as pd

        return pd.DataFrame(list(self.rows))

    def _repr_html_(self) -> str:
        return _html(self)


#: what :func:`format_comparison` writes
FORMATS = ("table", "markdown", "json")


#: the version of the JSON that ``perfstudy compare --format json`` writes (README, "The JSON output");
#: fields are only ever added within a version
JSON_SCHEMA = "perfstudy.compare/1"


def _percent(x: float) -> str:
    return "n/a" if not math.isfinite(x) else f"{100 * x:+.1f}%"


def _count_text(values: int, clusters: int) -> str:
    """``batches×values`` per batch, as benchstat's ``n``: ``6×10``; ``58 in 6`` when batches differ in size."""
    return f"{clusters}×{values // clusters}" if values % clusters == 0 else f"{values} in {clusters}"


def _unit_groups(result: Report) -> dict:
    """The table's rows grouped by the unit shown in the header: ``{shown unit: (factor, timed, rows)}``
    (:func:`perfstudy._lib.format.display_unit`)."""
    groups: dict = {}
    for row in map(lambda r: SimpleNamespace(**r), result.rows):
        factor, shown, timed = display_unit(result.units.get(str(row.benchmark)))
        groups.setdefault(shown, (factor, timed, []))[2].append(row)
    return groups


def _geomeans(rows) -> list[tuple[str, float, float, float]]:
    """Per metric with two rows or more on the ratio scale (a wall time and a CPU time are never averaged
    together: :func:`perfstudy._lib.units.metric_of`): the metric, and the geometric means of A and B and of B/A
    (benchstat's geomean row)."""
    by_metric: dict = {}
    for r in rows:
        if r.scale == "ratio" and r.estimate_a > 0 and r.estimate_b > 0:
            by_metric.setdefault(metric_of(r.benchmark), []).append(r)
    means = []
    for metric, same in by_metric.items():
        if len(same) >= 2:
            a, b = np.log([r.estimate_a for r in same]), np.log([r.estimate_b for r in same])
            means.append(
                (metric, float(np.exp(a.mean())), float(np.exp(b.mean())), float(np.exp((b - a).mean()) - 1.0))
            )
    return means


def _side_names(result: Report) -> tuple[str, str]:
    """A and B as the table's header names them: ``A: base.json`` (the file's base name when that still tells
    the two apart, else the label whole), or plain ``A`` when the label is the letter itself."""
    import os

    labels = [str(result.labels.get(k, k.upper())) for k in ("a", "b")]
    short = [os.path.basename(label.rstrip("/")) or label for label in labels]
    names = short if short[0] != short[1] else labels
    return tuple(side if name == side else f"{side}: {name}" for side, name in zip("AB", names))


def render(result: Report, format: str = "table") -> str:
    """:func:`format_comparison` of a :class:`Report`."""
    if format == "json":
        return _json(result)
    markdown = format == "markdown"
    footnotes: list[str] = []
    out: list[str] = []
    for shown, (factor, small, rows) in _unit_groups(result).items():
        out += _unit_table(result, shown, factor, small, rows, footnotes, markdown) + [""]
    if result.excluded:
        out += [
            f"{'- ' if markdown else ''}{name}: not comparable: {reason}" for name, reason in result.excluded.items()
        ]
        out.append("")
    if footnotes:
        if markdown:
            out += [f"{i}. {text}" for i, text in enumerate(footnotes, 1)] + [""]
        else:
            out += [f"[{i}] {text}" for i, text in enumerate(footnotes, 1)] + [""]
    out += _general_lines(result)
    return "\n".join(out)


def _unit_rows(result: Report, factor: float, small: bool, rows, footnotes: list) -> tuple[list, list]:
    """One unit's header and rows of cells; each benchmark's notes are added to ``footnotes`` (once each) and
    marked. ``small``: prefixes below one (a time: 70.31µ; a count or a percentage keeps its decimals)."""
    from perfstudy.comparison._suite import identical

    def value(x: float, *, signed: bool = False) -> str:
        text = si(x * factor, small=small)
        return ("+" + text) if signed and math.isfinite(x) and x >= 0 else text

    def side(centre: float, spread: float) -> str:
        return value(centre) + ("" if not math.isfinite(spread) else f" ± {100 * spread:.0f}%")

    name_a, name_b = _side_names(result)
    level = f"{100 * result.confidence:g}%"
    header = [
        "benchmark",
        name_a,
        name_b,
        f"change [{level} interval]",
        f"p ({result.correction})",
        "verdict",
        "n A, B",
    ]
    lines = []
    for row in rows:
        marks = []
        for note in row.notes:  # a note that several benchmarks share is one footnote
            if note not in footnotes:
                footnotes.append(note)
            marks.append(str(footnotes.index(note) + 1))
        untrusted = _untrusted(row.notes)  # its interval and p say nothing of the versions: not shown as if they did
        if untrusted:
            change = f"{_percent(row.change) if row.scale == 'ratio' else 'B - A ' + value(row.change, signed=True)} (one process)"
        elif row.scale == "ratio":
            change = f"{_percent(row.change)} [{_percent(row.low)}, {_percent(row.high)}]"
        else:
            low, high = value(row.low, signed=True), value(row.high, signed=True)
            change = f"B - A {value(row.change, signed=True)} [{low}, {high}]"
        name, unit = str(row.benchmark), result.units.get(str(row.benchmark))
        if unit and name.endswith(f" {unit}"):  # Go's "Alloc B/op": the unit is in the caption already
            name = name[: -len(unit) - 1]
        lines.append(
            [
                name + (f" [{','.join(sorted(marks, key=int))}]" if marks else ""),
                side(row.estimate_a, row.spread_a),
                side(row.estimate_b, row.spread_b),
                change,
                "untested" if identical(vars(row)) else "n/a" if untrusted else p_text(row.p_adjusted),
                worded(row.verdict, unit) + (" (drift)" if any(n.startswith("drift in ") for n in row.notes) else ""),
                f"{_count_text(row.n_a, row.clusters_a)}, {_count_text(row.n_b, row.clusters_b)}",
            ]
        )
    for metric, a, b, change in _geomeans(rows):
        name = "geomean" + METRIC_SUFFIXES[metric]
        lines.append([name, value(a), value(b), _percent(change), "", "", ""])
    return header, lines


def _untrusted(notes) -> bool:
    """Whether a row's interval is one it is not judged by: one process a side, not trusted (its verdict
    "inconclusive"); the interval covers only the noise within that process."""
    from perfstudy.comparison.settings import ONE_PROCESS_NOTE

    return any(note.startswith(ONE_PROCESS_NOTE) and "inconclusive unless" in note for note in notes)


def _caption(result: Report, shown: str) -> str:
    return f"{shown or 'no unit'}: {result.statistic} ± SD of the {result.cluster} {result.statistic}s"


def _unit_table(result: Report, shown: str, factor: float, small: bool, rows, footnotes: list, markdown: bool) -> list:
    """The lines of one unit's table (:func:`_unit_rows`), aligned text or Markdown."""
    header, lines = _unit_rows(result, factor, small, rows, footnotes)
    caption = _caption(result, shown)
    if markdown:

        def escape(text: str) -> str:
            return text.replace("|", "\\|")

        table = [f"**{escape(caption)}**", "", "| " + " | ".join(header) + " |"]
        table.append("|" + "|".join(["---", "---:", "---:", "---:", "---:", "---", "---:"]) + "|")
        return table + ["| " + " | ".join(escape(c) for c in cells) + " |" for cells in lines]
    widths = [max(len(r[i]) for r in [header, *lines]) for i in range(len(header))]
    right = (False, True, True, True, True, False, True)

    def join(cells):
        return "  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)).rstrip()

    return [caption, join(header), *map(join, lines)]


#: the notebook view's column order over :func:`_unit_rows`' cells: what a reader looks for first
_HTML_ORDER = (0, 3, 5, 4, 1, 2, 6)


def _tested(row: dict) -> bool:
    """Whether a row has a p-value, and so is one of the family its correction runs over."""
    from perfstudy.comparison._suite import identical

    p = row.get("p_value")
    return isinstance(p, (int, float)) and p == p and not identical(row)


def _general_lines(result: Report) -> list[str]:
    """What applies to the whole comparison: which is A and B, the correction, the threshold, what was left out."""
    from perfstudy.comparison._suite import identical

    same = sum(identical(row) for row in result.rows)
    count = sum(_tested(row) for row in result.rows)  # the family Holm ran over: the rows with a p-value
    untested = len(result.rows) - same - count
    threshold = (
        f"a change within ±{100 * result.threshold:g}% is no change"
        if result.threshold > 0
        else "no threshold (--threshold): the smallest real change is a change"
    )
    labels = [str(result.labels.get(k)) for k in ("a", "b")]
    sides = "" if labels == ["A", "B"] else f"A is {labels[0]}, B is {labels[1]}; "
    general = [
        f"{sides}p adjusted ({result.correction}) over {count} benchmark{'s' if count != 1 else ''}"
        + (f" ({same} with one and the same value on both sides: no change, untested, not counted)" if same else "")
        + (f" ({untested} without a p-value, not counted)" if untested else "")
        + f"; {threshold}."
    ]
    if result.only_a:
        general.append(f"Only in A (not compared): {', '.join(map(str, result.only_a))}.")
    if result.only_b:
        general.append(f"Only in B (not compared): {', '.join(map(str, result.only_b))}.")
    if result.warmup_dropped:
        general.append(f"{result.warmup_dropped} values flagged as warm-up by the harness were left out.")
    if result.dropped:
        general.append(f"{result.dropped} rows with a missing value were dropped.")
    return general + disagreements_said(result.rows) + list(result.said)


def _html(result: Report) -> str:
    """The notebook view: per unit a table led by benchmark, change [interval] and verdict, then p, A, B and
    n; the notes as numbered footnotes under it; then what applies to the whole comparison."""
    import html as h

    footnotes: list[str] = []
    name_a, name_b = _side_names(result)
    parts = [f"<p><strong>Comparison of {h.escape(name_a)} and {h.escape(name_b)}</strong></p>"]
    for shown, (factor, small, rows) in _unit_groups(result).items():
        header, lines = _unit_rows(result, factor, small, rows, footnotes)
        head = "".join(f"<th>{h.escape(header[i])}</th>" for i in _HTML_ORDER)
        body = "".join(
            "<tr>"
            + "".join(
                f"<td style='text-align:{'left' if i in (0, 5) else 'right'};white-space:nowrap'>"
                + (f"<b>{h.escape(cells[i])}</b>" if i == 5 else h.escape(cells[i]))
                + "</td>"
                for i in _HTML_ORDER
            )
            + "</tr>"
            for cells in lines
        )
        parts.append(
            f"<table><caption style='text-align:left'>{h.escape(_caption(result, shown))}</caption>"
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        )
    for name, reason in result.excluded.items():
        parts.append(f"<p>{h.escape(str(name))}: not comparable: {h.escape(str(reason))}</p>")
    if footnotes:
        parts.append("<ol style='font-size:smaller'>" + "".join(f"<li>{h.escape(n)}</li>" for n in footnotes) + "</ol>")
    parts += [f"<p>{h.escape(line)}</p>" for line in _general_lines(result)]
    return "\n".join(parts)


def _plain(value):
    """A cell as JSON has it: numpy scalars as Python's, a number that is not finite as null."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _json(result: Report) -> str:
    """The comparison in the schema :data:`JSON_SCHEMA` (see the README)."""
    import json

    benchmarks = []
    for row in result.rows:
        record = {key: _plain(value) for key, value in row.items() if key != "notes"}
        record["unit"] = result.units.get(str(record["benchmark"]))
        record["verdict_said"] = worded(row["verdict"], record["unit"])  # "larger" for a memory's "slower"
        record["warnings"] = "; ".join(row["notes"])  # the schema's text field, kept within its version
        record["notes"] = list(row["notes"])
        benchmarks.append(record)
    geomeans = []
    for shown, (factor, _, rows) in _unit_groups(result).items():
        for metric, a, b, change in _geomeans(rows):
            geomeans.append(dict(unit=shown or None, metric=metric, a=a * factor, b=b * factor, change=change))
    payload = dict(
        schema=JSON_SCHEMA,
        statistic=result.statistic,
        confidence=result.confidence,
        threshold=result.threshold,
        correction=result.correction,
        cluster=result.cluster,
        labels={k: str(v) for k, v in result.labels.items()},
        only_a=[str(v) for v in result.only_a],
        only_b=[str(v) for v in result.only_b],
        dropped=result.dropped,
        warmup_dropped=result.warmup_dropped,
        benchmarks=benchmarks,
        geomean=geomeans,
        excluded=[dict(benchmark=k, reason=v) for k, v in result.excluded.items()],
        said=list(result.said),
        disagreements=disagreements(result.rows),
    )
    return json.dumps(payload, indent=2)
