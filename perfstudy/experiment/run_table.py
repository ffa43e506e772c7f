"""A run's own table: the stopping rule's last state per benchmark, as text, Markdown and JSON, without pandas.

``perfstudy run`` prints it (and writes the Markdown beside the run's file, ``OUT.md``, for a pull request):
each version's statistic over all its values, the change the rule estimates (the median or the mean round's
B/A - 1), its anytime-valid interval, the Holm-adjusted anytime p-value and the verdict. These are the
numbers the run stopped on; ``perfstudy compare OUT`` recomputes them from the file with the same rule, and
adds the file's checks (a warm-up left in the batches).

The JSON (:func:`json_document`) is the table's numbers in ``perfstudy compare``'s schema, so that a CI script
reads a run and a comparison alike; it needs no import beyond the table's.
"""

from __future__ import annotations

import math

from perfstudy._lib.format import aligned, counted, p_text, with_unit
from perfstudy._lib.units import disagreements, disagreements_said, metric_of, worded

__all__ = ["text_table", "markdown_table", "json_document", "cleanup_said", "one_side", "within_layout"]

#: the schema of ``perfstudy compare --format json`` (perfstudy.comparison._render), which the run's JSON keeps
_SCHEMA = "perfstudy.compare/1"


def _rule(settings: dict):
    """The run's stopping rule (a record from before the rule was a setting ran Lai's t sequence)."""
    from perfstudy.comparison.running import stopping_rule

    return stopping_rule(settings.get("rule", "t"))


def _value(value: float, unit) -> str:
    return with_unit(value, unit or "")


def _percent(value: float) -> str:
    return f"{100 * value:+.2f}%" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def _cells(result) -> tuple[list[str], list[list[str]]]:
    if not (hasattr(result, "verdicts") and hasattr(result, "settings")):
        raise TypeError(f"result: expected what perfstudy.experiment.run returns, got {type(result).__name__}")
    settings = result.settings
    confidence = settings.get("confidence", 0.95)
    header = [
        "benchmark",
        f"A ({settings.get('statistic', 'mean')})",
        "B",
        f"change ({_rule(settings).centre})",
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
                worded(row["verdict"], row["unit"]),
            ]
        )
    return header, rows


def _measured(settings: dict) -> str:
    """What a harness's output gave, said before the rule (nothing for a command's own time): its format, and the
    metric judged where the harness has several."""
    measure = settings.get("measure", "time")
    if measure == "time":
        return ""
    from perfstudy.experiment.batches import harness_metric
    from perfstudy.io.harnesses import HARNESSES

    known = HARNESSES[measure].metrics if measure in HARNESSES else ()
    named = harness_metric(settings.get("metric") or ("wall",))
    chosen = named if named is not None else (known[0] if known else "")
    return f"values from each command's {measure} output" + (f" ({chosen})" if known else "") + "; "


def one_side(result) -> dict[str, list[str]]:
    """The benchmarks that ran in one version only (a benchmark a change adds or removes from a suite), which are
    never compared: ``{"A": [...], "B": [...]}`` from the batches that ran.

    Parameters
    ----------
    result : RunResult
    """
    if not hasattr(result, "rows"):
        raise TypeError(f"result: expected what perfstudy.experiment.run returns, got {type(result).__name__}")
    seen: dict[str, set] = {"A": set(), "B": set()}
    for row in result.rows:
        if (
            str(row.get("version")) in seen
            and row.get("benchmark") is not None
            and float(row.get("exit_status", 0)) == 0
        ):
            seen[str(row["version"])].add(str(row["benchmark"]))
    return {"A": sorted(seen["A"] - seen["B"]), "B": sorted(seen["B"] - seen["A"])}


def _one_side_said(result) -> str:
    """The sentence under the table naming the benchmarks of one version only, or ""."""
    alone = one_side(result)
    said = [f"{counted(len(names), 'benchmark')} ran in {version} only ({', '.join(names[:6])}"
            f"{' ...' if len(names) > 6 else ''})" for version, names in alone.items() if names]  # fmt: skip
    return f" Not compared: {'; '.join(said)}." if said else ""


def _hosts(result) -> list[str]:
    """The hosts the run's batches ran on, in order of first batch."""
    return [str(h) for h in dict.fromkeys(row.get("host") for row in result.rows) if h is not None]


def _no_ratio(settings: dict) -> str:
    """Why a round has no ratio B/A, for the run's measure."""
    if settings.get("measure", "time") == "time":
        return "a time at or below the shell's start-up"
    return "a value of 0 or below, or the benchmark missing from one version's output"


def _left_out(result) -> tuple[dict[str, int], list[str]]:
    """What the stopping rule could not judge: ``({benchmark: completed rounds left out}, [benchmarks never
    judged])``. A round is left out of a benchmark when it gives no ratio B/A (:func:`_no_ratio`); a benchmark
    that ran in both versions with every round so is never judged."""
    judged = {str(row["benchmark"]): int(row["rounds"]) for row in result.verdicts}
    rounds = {name: result.rounds - n for name, n in judged.items() if n < result.rounds}
    seen: dict[str, set] = {}
    for row in result.rows:
        if row.get("benchmark") is not None and float(row.get("exit_status", 0)) == 0:
            seen.setdefault(str(row["benchmark"]), set()).add(str(row.get("version")))
    never = sorted(name for name, versions in seen.items() if {"A", "B"} <= versions and name not in judged)
    return rounds, never


def within_layout(result) -> dict[str, str]:
    """The benchmarks whose difference is no larger than what the layout moves A by: ``{benchmark: sentence}``.

    With the layout randomised (each batch its own, ``settings["layout"]``), an undecided benchmark whose interval
    holds 0 and lies within ``+-spread_a`` (the SD of A's rounds' statistics over its statistic: how much A differs
    from itself from one batch's layout to another's) is "no change beyond layout": B differs from A by less than A
    differs from itself across layouts. The spread holds the machine's noise as well as the layout's effect, so the
    sentence bounds the difference; it does not say the layout caused it. The verdict stays "inconclusive".

    Parameters
    ----------
    result : RunResult
    """
    if not hasattr(result, "verdicts") or not hasattr(result, "settings"):
        raise TypeError(f"result: expected what perfstudy.experiment.run returns, got {type(result).__name__}")
    if not result.settings.get("layout", False):
        return {}
    found = {}
    for row in result.verdicts:
        low, high, spread = float(row["low"]), float(row["high"]), float(row.get("spread_a", math.nan))
        if row["verdict"] == "inconclusive" and math.isfinite(spread) and -spread < low <= 0 <= high < spread:
            found[str(row["benchmark"])] = (
                f"{row['benchmark']}: no change beyond layout: B differs from A by {low:+.1%} to {high:+.1%}, less "
                f"than A differs from itself across its batches' layouts (±{spread:.1%}, the SD of A's rounds, the "
                "machine's noise in it too); these rounds cannot tell a change this small from a layout effect."
            )
    return found


def _run_said(result) -> list[str]:
    """The sentences under the table and in the JSON's ``said``: a run with one layout for every batch and what that
    risks, or the benchmarks whose difference is within what the layout moves A by (:func:`within_layout`), what
    the rule could not judge, and the hosts of a run on several."""
    said = []
    if not result.settings.get("layout", False):  # a record from before the setting ran with one layout, too
        said.append(
            "Every batch ran with one memory layout (--no-randomize-layout): a difference that only the layout makes "
            "(the environment's size, code placement) can be called a change."
        )
    said.extend(within_layout(result).values())
    rounds, never = _left_out(result)
    why = _no_ratio(result.settings)
    if rounds:
        each = ", ".join(f"{name} {counted(n, 'round')}" for name, n in list(rounds.items())[:6])
        said.append(f"Left out of the rule ({why}: no ratio B/A): {each} of {result.rounds}.")
    if never:
        said.append(f"Not judged ({why} in every round): {', '.join(never[:6])}{' ...' if len(never) > 6 else ''}.")
    hosts = _hosts(result)
    if len(hosts) > 1:
        said.append(
            f"Ran on {len(hosts)} hosts ({', '.join(hosts[:4])}); each round pairs A and B on one; "
            "`perfstudy compare` of the file tests a host effect."
        )
    return said


def _footer(result) -> str:
    settings = result.settings
    how = _rule(settings).how
    threshold = settings.get("threshold", 0.0)
    return (
        _measured(settings)
        + (
            f"{result.rounds} round{'s' if result.rounds != 1 else ''} of A and B{' run side by side (duet)' if settings.get('duet') else ', interleaved'}; "
            f"{how}, valid at every round; p adjusted (holm) over {len(result.verdicts)} benchmark"
            f"{'s' if len(result.verdicts) != 1 else ''}; a change within ±{100 * threshold:g}% is no change."
        )
        + _one_side_said(result)
        + "".join(f" {text}" for text in _run_said(result))
        + "".join(f" {text}" for text in disagreements_said(result.verdicts))
    )


def cleanup_said(result) -> str:
    """A failed cleanup, said under the table (a line of its own, or ""): the verdicts stand, what it should have
    undone may not.

    Parameters
    ----------
    result : RunResult
    """
    if not hasattr(result, "cleanup"):
        raise TypeError(f"result: expected what perfstudy.experiment.run returns, got {type(result).__name__}")
    failed = result.cleanup
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
    return "\n".join(aligned(header, rows)) + "\n\n" + _footer(result) + cleanup_said(result)


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
        + cleanup_said(result)
        + "\n"
    )


def _finite(value):
    """A number as JSON has it: one that is not finite as null."""
    return value if isinstance(value, (int, str)) or value is None or math.isfinite(value) else None


def _true(value) -> bool:
    """A row's ``warmup``, from a run (bool) or a resumed file (text)."""
    return value is True or str(value).strip().lower() in ("true", "1", "1.0")


def json_document(result) -> dict:
    """The run as ``perfstudy run --format json`` prints it: the table's numbers, in the schema of
    ``perfstudy compare --format json``, and the run's own fields.

    Per benchmark: ``benchmark``, ``unit``, ``n_a``, ``n_b``, ``clusters_a`` and ``clusters_b`` (the rounds),
    ``estimate_a`` and ``estimate_b`` (each version's statistic over all its values), ``spread_a`` and
    ``spread_b`` (the SD of the rounds' statistics over the estimate), ``scale`` (``"ratio"``), ``change``,
    ``low``, ``high`` (the anytime interval; null where it is infinite), ``p_value`` (unadjusted),
    ``p_adjusted`` (Holm over the benchmarks), ``method``, ``higher_is_better``, ``verdict``, ``rounds``,
    ``notes`` and ``warnings`` (the notes as one text). Then ``geomean`` per unit and metric over two or more
    benchmarks, and the run's ``rounds``, ``stopped``, ``rule``, ``statistic``, ``cleanup``.

    Parameters
    ----------
    result : RunResult
        A run with at least one judged benchmark (``result.verdicts``).
    """
    _cells(result)  # the same refusal as the table's
    settings = result.settings
    rule = _rule(settings)
    left, never = _left_out(result)
    layout = within_layout(result)
    benchmarks = []
    for row in result.verdicts:
        rounds = int(row["rounds"])
        notes = (
            [f"paired over {counted(rounds, 'round')}, each round's B/A; {rule.interval}"]
            if rounds >= 2
            else [f"{rounds} paired round: no interval; run more rounds"]
        )
        if str(row["benchmark"]) in layout:
            notes.append(layout[str(row["benchmark"])])
        if str(row["benchmark"]) in left:
            notes.append(
                f"{counted(left[str(row['benchmark'])], 'round')} of {result.rounds} left out: "
                f"{_no_ratio(settings)}, no ratio B/A"
            )
        benchmarks.append(
            dict(
                benchmark=str(row["benchmark"]),
                n_a=int(row["n_a"]),
                n_b=int(row["n_b"]),
                clusters_a=rounds,
                clusters_b=rounds,
                estimate_a=row["a"],
                estimate_b=row["b"],
                spread_a=_finite(row["spread_a"]),
                spread_b=_finite(row["spread_b"]),
                scale="ratio",
                change=_finite(row["change"]),
                low=None if row["low"] <= -1.0 else _finite(row["low"]),  # B/A - 1 of a log-ratio of -inf
                high=_finite(row["high"]),
                p_value=row["p_unadjusted"],
                p_adjusted=row["p_value"],
                method=rule.method,
                higher_is_better=bool(row["higher_is_better"]),
                verdict=row["verdict"],
                verdict_said=worded(row["verdict"], row["unit"]),
                unit=row["unit"],
                rounds=rounds,
                warnings="; ".join(notes),
                notes=notes,
            )
        )
    geomean = []
    for unit, metric in dict.fromkeys((row["unit"], metric_of(row["benchmark"])) for row in result.verdicts):
        same = [
            r
            for r in result.verdicts
            if (r["unit"], metric_of(r["benchmark"])) == (unit, metric) and r["a"] > 0 and r["b"] > 0
        ]
        if len(same) >= 2:  # of one unit and one metric: a wall and a CPU time are never averaged together
            a = sum(math.log(r["a"]) for r in same) / len(same)
            b = sum(math.log(r["b"]) for r in same) / len(same)
            geomean.append(dict(unit=unit, metric=metric, a=math.exp(a), b=math.exp(b), change=math.expm1(b - a)))
    warmup = sum(  # as the comparison of the file counts them: of the batches that ran
        1 for row in result.rows if _true(row.get("warmup")) and float(row.get("exit_status", 0)) == 0
    )
    alone = one_side(result)
    return dict(
        schema=_SCHEMA,
        statistic=settings.get("statistic", "mean"),
        confidence=settings.get("confidence", 0.95),
        threshold=settings.get("threshold", 0.0),
        correction="holm",
        cluster="round",
        labels={"a": "A", "b": "B"},
        only_a=alone["A"],
        only_b=alone["B"],
        dropped=0,
        warmup_dropped=warmup,
        benchmarks=benchmarks,
        geomean=geomean,
        excluded=[],
        not_judged=never,
        hosts=_hosts(result),
        said=_run_said(result),
        disagreements=disagreements(result.verdicts),
    )
