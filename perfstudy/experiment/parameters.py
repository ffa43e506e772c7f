"""A parameter list (hyperfine's ``--parameter-list``): one command with ``{NAME}`` in it, run for several
values, each value compared with the first by its own interleaved run, the verdicts held together by Holm.

Each comparison is a :func:`perfstudy.experiment.run` of the first value (A) against one other (B), so each has
the interleaving, the stopping rule and the file of any run (``OUT`` becomes ``OUT`` with ``.NAME=VALUE``
before its suffix). With ``k`` values each run stops at the confidence ``1 - (1 - confidence) / (k - 1)``
(Bonferroni over the comparisons), so that its decision survives the family's correction. Its anytime-valid
p-values are valid at whatever round it stopped, so Holm's step-down over every benchmark of every comparison
holds the family-wise error at ``1 - confidence``; the verdicts are recomputed from the adjusted p-values
(:func:`perfstudy.comparison.verdict`). A run's p-values are already Holm-adjusted over its own benchmarks, so
with several benchmarks a run the second adjustment is conservative.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from perfstudy._lib.format import aligned, markdown_rows, p_text
from perfstudy._lib.result import Result

__all__ = ["ParameterRuns", "run_parameters", "parameter_table"]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: a placeholder in a command: {name}, not a shell variable's ${name}
_PLACEHOLDER = re.compile(r"(?<!\$)\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class ParameterRuns(Result):
    """Every value of a parameter compared with the first (module text).

    Attributes
    ----------
    parameter : str
        Its name.
    levels : tuple of str
        Its values; the first is the baseline.
    runs : tuple of RunResult
        One per value after the first, in order.
    rows : tuple of dict
        One per value and benchmark: ``value`` and the run's verdict row (:attr:`RunResult.verdicts`), with
        ``p_value`` Holm-adjusted over all rows and ``verdict`` recomputed from it, and ``failure`` (the run's
        failed batch, "" if none). A value whose run failed before a round was judged has one row, its verdict
        ``"failed"``, its numbers NaN, and it does not count in Holm's family.
    confidence : float
        The family's: every run stopped at ``1 - (1 - confidence) / (k - 1)``.
    threshold : float
    """

    parameter: str
    levels: tuple
    runs: tuple
    rows: tuple
    confidence: float
    threshold: float

    def to_frame(self):
        """The rows (with their columns when no round could be judged)."""
        import pandas as pd

        columns = [
            "value",
            "benchmark",
            "unit",
            "a",
            "b",
            "change",
            "low",
            "high",
            "p_value",
            "verdict",
            "rounds",
            "sd",
            "failure",
        ]
        return pd.DataFrame(list(self.rows), columns=columns if not self.rows else None)


def _checked(command, parameter, levels) -> tuple[str, str, tuple[str, ...]]:
    name, values = parameter, levels
    if not isinstance(command, str) or not command.strip():
        raise TypeError(f"command={command!r}: expected a command line with {{NAME}} in it")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"parameter={name!r}: expected a parameter name (letters, digits, _), as in {{threads}}")
    if f"{{{name}}}" not in command:
        raise ValueError(f"command: {command!r} has no {{{name}}} to put the values in")
    others = sorted({m for m in _PLACEHOLDER.findall(command) if m != name})
    if others:
        raise ValueError(
            f"command: {command!r} has {', '.join('{' + m + '}' for m in others)} besides {{{name}}}, which no "
            "value fills (one parameter a list); write it out, or use a shell variable such as ${" + others[0] + "}"
        )
    if isinstance(values, str):
        values = values.split(",")
    if not isinstance(values, (list, tuple)) or not all(isinstance(v, (str, int, float)) for v in values):
        raise TypeError(f"levels={values!r}: expected a list of values, or one text of them separated by commas")
    values = tuple(str(v).strip() for v in values)
    if len(values) < 2 or any(not v for v in values):
        raise ValueError(f"levels={values!r}: expected two or more values, none empty (the first is the baseline)")
    if len(set(values)) != len(values):
        raise ValueError(f"levels={values!r}: a value given twice would be compared with itself")
    numbers: dict[float, str] = {}
    for value in values:
        number = _number(value)
        if number is not None and number in numbers:
            raise ValueError(
                f"levels={values!r}: {numbers[number]!r} and {value!r} are the same number, so the value would be "
                "compared with itself; give each value once"
            )
        if number is not None:
            numbers[number] = value
    return command, name, values


def _number(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _plain(row: dict) -> dict:
    """A row for JSON: NaN (a failed value's numbers) as null, which JSON has."""
    return {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in row.items()}


def _path(out, name: str, value: str) -> Path | None:
    if out is None:
        return None
    out = Path(out)
    safe = re.sub(r"[^A-Za-z0-9_.=-]", "_", f"{name}={value}")
    return out.with_name(f"{out.stem}.{safe}{out.suffix or '.csv'}")


def run_parameters(command: str, parameter: str, levels, *, out=None, **options) -> ParameterRuns:
    """Run ``command`` for each of ``levels`` (``{parameter}`` replaced), each compared with the first (module
    text).

    Parameters
    ----------
    command : str
        A command line with ``{parameter}`` in it (``"./server --threads {threads}"``).
    parameter : str
        The parameter's name.
    levels : sequence or str
        Two or more values (or one text, separated by commas); the first is version A of every comparison.
    out : str or path, optional
        The stem of the runs' files: ``runs.csv`` gives ``runs.threads=2.csv`` and so on.
    **options
        Passed to :func:`perfstudy.experiment.run` (``settings``, or ``threshold``, ``confidence``, ``max_time``, ``rule``,
        ``metric``, ``duet``, ...).

    Returns
    -------
    ParameterRuns

    Raises
    ------
    ValueError, TypeError
        A command without ``{name}``, fewer than two values, a value given twice, and whatever
        :func:`perfstudy.experiment.run` refuses (before the first run).
    """
    from perfstudy.comparison import adjust_p_values, verdict
    from perfstudy.experiment._run import run
    from perfstudy.experiment.settings import OPTIONS, RunSettings

    command, name, values = _checked(command, parameter, levels)
    if "a" in options or "b" in options:
        raise TypeError("run_parameters: the commands come from command and values; give neither a nor b")
    keywords = {key: options.pop(key) for key in OPTIONS if key in options}
    settings = RunSettings.one_source(options.pop("settings", None), keywords, defaults=True)
    # each comparison at 1 - (1 - confidence) / comparisons: together they cover at the confidence asked for
    confidence = settings.confidence
    each = 1 - (1 - confidence) / (len(values) - 1)
    runs = []
    for value in values[1:]:
        a = command.replace(f"{{{name}}}", values[0])
        b = command.replace(f"{{{name}}}", value)
        runs.append(run(a, b, out=_path(out, name, value), settings=settings.replace(confidence=each), **options))
    rows: list[dict[str, Any]] = []
    for value, result in zip(values[1:], runs):
        if result.verdicts:
            rows += [dict(value=value, **row, failure=result.failure) for row in result.verdicts]
        else:  # it failed (or stopped) before a round was judged: a row that says so, not a gap in the table
            nan = math.nan
            rows.append(
                dict(
                    value=value,
                    benchmark=result.settings.get("name", "command"),
                    unit=None,
                    a=nan,
                    b=nan,
                    change=nan,
                    low=nan,
                    high=nan,
                    p_value=nan,
                    verdict="failed",
                    rounds=result.rounds,
                    sd=nan,
                    failure=result.failure or f"stopped ({result.stopped}) before a round was judged",
                )
            )
    threshold = float(runs[0].settings["threshold"])
    judged = [row for row in rows if row["verdict"] != "failed"]
    adjusted = adjust_p_values([row["p_value"] for row in judged], "holm") if judged else []
    from perfstudy._lib.units import higher_is_better

    for row, p in zip(judged, adjusted):
        row["p_value"] = float(p)
        if math.isfinite(row["low"]) and math.isfinite(row["high"]):
            row["verdict"] = verdict(
                row["low"],
                row["high"],
                float(p),
                alpha=1 - confidence,
                threshold=threshold,
                higher_is_better=higher_is_better(row["unit"]),
            )
    return ParameterRuns(
        parameter=name,
        levels=values,
        runs=tuple(runs),
        rows=tuple(rows),
        confidence=confidence,
        threshold=threshold,
    )


def parameter_table(result: ParameterRuns, output: Literal["table", "markdown", "json"] = "table") -> str:
    """The comparisons as a table, Markdown or JSON: each value against the first, per benchmark.

    Parameters
    ----------
    result : ParameterRuns
    output : {"table", "markdown", "json"}
    """
    from perfstudy._lib.checks import check_choice
    from perfstudy._lib.units import worded
    from perfstudy.experiment.run_table import _percent, _value

    check_choice("output", output, ("table", "markdown", "json"))
    if not isinstance(result, ParameterRuns):
        raise TypeError(f"result: expected what run_parameters returns, got {type(result).__name__}")
    if output == "json":
        import json

        document = dict(parameter=result.parameter, levels=list(result.levels), confidence=result.confidence,
                        threshold=result.threshold, rows=[_plain(row) for row in result.rows])  # fmt: skip
        return json.dumps(document, indent=2, default=str)
    markdown = output == "markdown"
    header = [
        f"{result.parameter}",
        "benchmark",
        f"A ({result.parameter}={result.levels[0]})",
        "B",
        "change",
        f"{100 * (1 - (1 - result.confidence) / max(1, len(result.levels) - 1)):.4g}% anytime interval",
        "p (holm, all)",
        "verdict",
    ]
    lines = [
        [
            str(row["value"]),
            str(row["benchmark"]),
            _value(row["a"], row["unit"]),
            _value(row["b"], row["unit"]),
            _percent(row["change"]) if not math.isnan(row["change"]) else "-",
            f"[{_percent(row['low'])}, {_percent(row['high'])}]" if not math.isnan(row["low"]) else "-",
            p_text(row["p_value"]) if not math.isnan(row["p_value"]) else "-",
            worded(row["verdict"], row["unit"]),
        ]
        for row in result.rows
    ]
    failed = [row for row in result.rows if row["verdict"] == "failed"]
    each = 1 - (1 - result.confidence) / max(1, len(result.levels) - 1)
    footer = (
        f"each value against {result.parameter}={result.levels[0]} in its own interleaved run, each stopped at "
        f"{100 * each:.4g}% confidence (Bonferroni over {len(result.levels) - 1}); p adjusted (holm) over all "
        f"{len(result.rows) - len(failed)} comparisons; a change within ±{100 * result.threshold:g}% is no change."
        + "".join(f"\n{result.parameter}={row['value']} FAILED: {row['failure']}" for row in failed)
    )
    if markdown:
        return "\n".join(markdown_rows(header, lines)) + "\n\n" + footer + "\n"
    return "\n".join(aligned(header, lines)) + "\n\n" + footer
