"""What notebook 12 says of instructions and layout: the A/A pair and the planted +1% on instructions, divisions
against multiplications, and the copy whose time depends on where its stack starts. Sentences written from this
run's :class:`~perfstudy.studies.layout.Runs` and :class:`~perfstudy.studies.layout.LayoutTrial`, as
:class:`~perfstudy._lib.said.Said` whose literal text states method only.
"""

from __future__ import annotations

from typing import Any

from perfstudy._lib.said import Said

__all__ = ["instructions_said", "layout_said"]


def _interval(prefix: str, row) -> dict:
    """A row's verdict, change, interval and rounds as a template's fields ``{prefix}_...``."""
    return {
        f"{prefix}_verdict": str(row["verdict"]),
        f"{prefix}_change": float(row["change"]),
        f"{prefix}_low": float(row["low"]),
        f"{prefix}_high": float(row["high"]),
        f"{prefix}_rounds": int(row["rounds"]),
    }


def _shown(prefix: str, digits: int = 2) -> str:
    """The template of :func:`_interval`'s fields: verdict, change and interval, rounds."""
    return (
        f"**{{{prefix}_verdict}}** ({{{prefix}_change:+.{digits}%}}, interval [{{{prefix}_low:+.{digits}%}}, "
        f"{{{prefix}_high:+.{digits}%}}]) after {{{prefix}_rounds}} rounds"
    )


def instructions_said(runs) -> Said:
    """The instruction runs in words: the counter, the A/A pair's and the planted +1%'s verdicts, and the divisions
    against the multiplications on instructions and on wall time, with the run's own disagreement sentence.

    Parameters
    ----------
    runs : Runs
        :func:`perfstudy.studies.layout.instruction_runs`.
    """
    from perfstudy.studies.layout import Runs

    if not isinstance(runs, Runs):
        raise TypeError(f"runs: expected instruction_runs' result, got {type(runs).__name__}")
    table = runs.table
    aa = table[table["part"] == "A/A"].iloc[0]
    plus = table[table["part"] == "+1%"].iloc[0]
    both: Any = table[table["part"] == "disagreement"]
    counted = both[both["unit"] == "instructions"].iloc[0]
    timed = both[both["unit"] != "instructions"].iloc[0]
    values: dict[str, Any] = dict(counter=runs.counter, count=float(aa["a"]), plus_count=float(plus["b"]))
    values |= _interval("aa", aa) | _interval("plus", plus) | _interval("counted", counted) | _interval("timed", timed)
    template = (
        "* Instructions counted by {counter}. Two identical builds of a loop ({count:,.0f} instructions a run), A/A: "
        + _shown("aa", 4)
        + ".\n* The loop 1% longer ({plus_count:,.0f} instructions): "
        + _shown("plus", 3)
        + ", each round one batch of each version.\n* Divisions against multiplications: instructions "
        + _shown("counted")
        + "; wall-clock time "
        + _shown("timed")
        + "."
    )
    if runs.disagreements:
        template += " The run's table said: {disagreement}"
        values["disagreement"] = " ".join(runs.disagreements)
    else:
        template += " The run's table named no disagreement."
    return Said(template, values)


def layout_said(trial) -> Said:
    """The layout trial in words: the sizes that made B slow, each run's verdict, the share of its batches at the
    slow distance, and whether this run showed the fixed layout's false call beside the randomised "no change".

    Parameters
    ----------
    trial : LayoutTrial
        :func:`perfstudy.studies.layout.layout_trial`.
    """
    from perfstudy.studies.layout import SLOW_DISTANCE, LayoutTrial, ratio, slow_share

    if not isinstance(trial, LayoutTrial):
        raise TypeError(f"trial: expected layout_trial's result, got {type(trial).__name__}")
    table = trial.table.set_index("layout")
    fixed, randomised = table.loc["fixed"], table.loc["randomised"]
    share = slow_share(trial)
    values: dict[str, Any] = dict(
        extra=int(trial.extra),
        slow=SLOW_DISTANCE,
        distance_a=int(trial.distances["A"]),
        probe_a=1e3 * float(trial.probe_seconds["A"]),
        probe_b=1e3 * float(trial.probe_seconds["B"]),
        ratio_fixed=ratio(trial, "fixed"),
        ratio_randomised=ratio(trial, "randomised"),
        share_fixed=share.get("fixed", 0.0),
        share_randomised=share.get("randomised", 0.0),
        batches_randomised=sum(1 for shown in trial.batches["layout"] if shown == "randomised"),
    )
    values |= _interval("fixed", fixed) | _interval("randomised", randomised)
    false_call = fixed["verdict"] in ("slower", "faster")
    told = randomised["verdict"] == "no change"
    within = str(randomised["within_layout"])
    template = (
        "* B is A's build run with {extra} more bytes in its environment, which put its stack buffer {slow} bytes "
        "past the static source (A's lay {distance_a} past); one probe run each took {probe_a:.1f} ms (A) and "
        "{probe_b:.1f} ms (B).\n* Layout fixed: {share_fixed:.0%} of the batches at the slow distance; B's median batch "
        "took {ratio_fixed:.2f} times A's; "
        + _shown("fixed", 1)
        + (" — a false call, since A and B are one build." if false_call else ".")
        + "\n* Layout randomised: {share_randomised:.1%} of {batches_randomised} batches landed at the slow "
        "distance; B's median batch took {ratio_randomised:.3f} times A's; " + _shown("randomised", 1) + "."
    )
    if within:
        template += " {within}"
        values["within"] = within
    template += (
        "\n* This run "
        + ("shows" if false_call and told else "does not show")
        + " the fixed layout's false call beside the randomised layout's \"no change\"."
    )
    return Said(template, values)
