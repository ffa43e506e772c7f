"""What notebook 11 says of the shared-runner trial: each method's scores, and perfstudy's against the targets.
Sentences written from this run's :class:`~perfstudy.studies.ci_trial.CITrial`, as
:class:`~perfstudy._lib.said.Said` whose literal text states method only.
"""

from __future__ import annotations

import math
from typing import Any

from perfstudy._lib.said import Said

__all__ = ["NAMES", "TARGETS", "trial_said"]

#: each method as the sentences name it
NAMES = {
    "interleaved": "perfstudy, interleaved rounds",
    "duet": "perfstudy, duet rounds",
    "benchstat": "-count 10 of base then head, benchstat",
    "gate": "a 2% gate on 5-run means",
}

#: perfstudy's targets, as rates: pull requests falsely red, false alarms per unchanged benchmark, planted 5% and
#: 2% changes found, and the median half-width of the intervals (1 of 8, 1%, 15 of 16, 12 of 16, 1%)
TARGETS = dict(falsely_red=1 / 8, false_alarms=0.01, found_5=15 / 16, found_2=12 / 16, half_width=0.01)


def _width(value: float) -> str:
    return f"{value:.2%}" if math.isfinite(value) else "unbounded"


def trial_said(trial) -> Said:
    """One line per method of ``trial`` (:meth:`~perfstudy.studies.ci_trial.CITrial.scores`), each perfstudy
    method's against :data:`TARGETS`, and the methods left out with why.

    Parameters
    ----------
    trial : CITrial
        :func:`perfstudy.studies.ci_trial.ci_trial`.
    """
    from perfstudy.studies.ci_trial import CITrial

    if not isinstance(trial, CITrial):
        raise TypeError(f"trial: expected ci_trial's result, got {type(trial).__name__}")
    lines, values = [], {}
    scores: Any = trial.scores().itertuples(index=False)
    for index, row in enumerate(scores):
        key = f"m{index}"
        lines.append(
            f"* **{{{key}_name}}**: {{{key}_red}} of {{{key}_prs}} pull requests falsely red; false alarms on "
            f"{{{key}_alarms:.1%}} of {{{key}_unchanged}} unchanged benchmarks; found {{{key}_found_2}} of "
            f"{{{key}_planted_2}} planted +2% and {{{key}_found_5}} of {{{key}_planted_5}} planted +5%; median "
            f"{{confidence:.0%}} interval half-width {{{key}_width}}; {{{key}_minutes:.1f}} machine minutes per pull request."
        )
        values |= {
            f"{key}_name": NAMES[row.method],
            f"{key}_red": int(row.falsely_red),
            f"{key}_prs": int(row.pull_requests),
            f"{key}_alarms": float(row.false_alarms),
            f"{key}_unchanged": int(row.unchanged),
            f"{key}_found_2": int(row.found_2),
            f"{key}_planted_2": int(row.planted_2),
            f"{key}_found_5": int(row.found_5),
            f"{key}_planted_5": int(row.planted_5),
            f"{key}_width": _width(float(row.median_half_width)),
            f"{key}_minutes": float(row.machine_minutes),
        }
        if row.method in ("interleaved", "duet"):
            met = dict(
                red=row.falsely_red <= TARGETS["falsely_red"] * row.pull_requests,
                alarms=row.false_alarms <= TARGETS["false_alarms"],
                five=row.found_5 >= TARGETS["found_5"] * row.planted_5,
                two=row.found_2 >= TARGETS["found_2"] * row.planted_2,
                width=row.median_half_width <= TARGETS["half_width"],
            )
            lines[-1] += (
                f" Targets: at most 1 in 8 pull requests falsely red, {{{key}_t_red}}; at most 1% false alarms, "
                f"{{{key}_t_alarms}}; 15 of 16 planted +5% found, {{{key}_t_five}}; 12 of 16 planted +2% found, "
                f"{{{key}_t_two}}; a median half-width of at most 1%, {{{key}_t_width}}."
            )
            values |= {f"{key}_t_{name}": "met" if ok else "not met" for name, ok in met.items()}
    for index, (method, why) in enumerate(sorted(trial.left_out.items())):
        lines.append(f"* **{{left{index}_name}}** did not run: {{left{index}_why}}.")
        values |= {f"left{index}_name": NAMES[method], f"left{index}_why": why}
    lines.append(
        "\nEach method had {seconds:g} s of machine time per pull request under the toggled load; the 1-minute "
        "load average was {load_start:.2f} at the start and {load_end:.2f} at the end."
    )
    values |= dict(seconds=trial.seconds, load_start=trial.load[0], load_end=trial.load[1], confidence=trial.confidence)
    return Said("\n".join(lines), values)
