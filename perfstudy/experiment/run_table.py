"""A run's own table: the stopping rule's last state per benchmark, as text and as Markdown, without pandas.

``perfstudy run`` prints it (and writes the Markdown beside the run's file, ``OUT.md``, for a pull request):
each version's statistic over all its values, the change the rule estimates (the median or the mean round's
B/A - 1), its anytime-valid interval, the Holm-adjusted anytime p-value and the verdict. These are the
numbers the run stopped on; ``perfstudy compare OUT`` recomputes them from the file with the same rule.
"""

from __future__ import annotations

import math

from perfstudy._lib.format import aligned, p_text, with_unit

__all__ = ["text_table", "markdown_table"]

#: each rule's centre and interval, as the table's header says them
_RULES = {
    "sign": "median round",
    "t": "mean round",
}


def _value(value: float, unit) -> str:
    return with_unit(value, unit or "")


def _percent(value: float) -> str:
    return f"{100 * value:+.2f}%" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


#: a memory's verdicts in words about memory
_MEMORY = {"slower": "larger", "faster": "smaller"}


def _said(verdict: str, unit) -> str:
    """The verdict as the table says it: a memory (bytes) is larger or smaller, not slower or faster."""
    return _MEMORY.get(verdict, verdict) if unit == "B" else verdict


def _cells(result) -> tuple[list[str], list[list[str]]]:
    if not (hasattr(result, "verdicts") and hasattr(result, "settings")):
        raise TypeError(f"result: expected what perfstudy.experiment.run returns, got {type(result).__name__}")
    settings = result.settings
    confidence = settings.get("confidence", 0.95)
    header = [
        "benchmark",
        f"A ({settings.get('statistic', 'mean')})",
        "B",
        f"change ({_RULES.get(settings.get('rule', 't'), 'round')})",
        f"{100 * confidence:g}% anytime interval",
        "p",
        "verdict",
    ]
    rows = []
    for row in result.verdicts:
        interval = f"[{_percent(row['low'])}, {_percent(row['high'])}]"
        rows.append(
            [
                str(row["benchmark"]),
                _value(row["a"], row["unit"]),
                _value(row["b"], row["unit"]),
                _percent(row["change"]),
                interval,
                p_text(row["p_value"]),
                _said(row["verdict"], row["unit"]),
            ]
        )
    return header, rows


def _footer(result) -> str:
    settings = result.settings
    rule = settings.get("rule", "t")
    how = (
        "the sign confidence sequence for the median round's B/A"
        if rule == "sign"
        else "Lai's confidence sequence for the mean round's B/A"
    )
    threshold = settings.get("threshold", 0.0)
    return (
        f"{result.rounds} round{'s' if result.rounds != 1 else ''} of A and B{' run side by side (duet)' if settings.get('duet') else ', interleaved'}; "
        f"{how}, valid at every round; p adjusted (holm) over {len(result.verdicts)} benchmark"
        f"{'s' if len(result.verdicts) != 1 else ''}; a change within ±{100 * threshold:g}% is no change."
    )


def _cleanup(result) -> str:
    """A failed cleanup, said under the table: the verdicts stand, what it should have undone may not."""
    failed = getattr(result, "cleanup", "")
    return (
        f"\nCLEANUP FAILED: {failed}; the verdicts stand, but what it should undo may not be undone." if failed else ""
    )


def text_table(result) -> str:
    """The table in aligned columns, and a line saying how it was judged.

    Parameters
    ----------
    result : RunResult
    """
    header, rows = _cells(result)
    return "\n".join(aligned(header, rows)) + "\n\n" + _footer(result) + _cleanup(result)


def markdown_table(result) -> str:
    """The table as Markdown, with the commands and the line saying how it was judged.

    Parameters
    ----------
    result : RunResult
    """
    header, rows = _cells(result)
    right = {1, 2, 3, 5}
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|",
    ]
    for row in rows:
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
    commands = ""
    if result.rows:
        seen = {}
        for row in result.rows:
            seen.setdefault(row["version"], row.get("command"))
        commands = "\n".join(f"- **{version}**: `{command}`" for version, command in sorted(seen.items())) + "\n\n"
    return (
        commands
        + "\n".join(lines)
        + "\n\n"
        + _footer(result)
        + f" Stopped: {result.stopped}."
        + _cleanup(result)
        + "\n"
    )
