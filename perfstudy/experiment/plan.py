"""``perfstudy run --plan PILOT``: how many hosts and rounds a run needs, from a pilot run.

A pilot run's per-round log-ratios ``d`` are split into a host and a round variance by the one-way
random-effects ANOVA (:func:`perfstudy.comparison.host_and_round_variance`). With ``H`` hosts running ``R``
rounds each, the interval a run reaches is taken, conservatively, as the anytime-valid half-width of
``N = H R`` rounds of spread ``s_round`` (:mod:`perfstudy.comparison.sequential`, what :func:`perfstudy.experiment._run.run`
uses) plus ``z s_host / sqrt(H)`` for the hosts, which no number of rounds removes. For each host count
the plan gives the fewest rounds whose half-width is below the target (the threshold: an A/A pair is
then called "no change"), the host-rounds that costs and the wall time at the pilot's pace (hosts run in
parallel).

This is Section 3.1.2 of Bakshy & Frachtenberg (minimise the cost of a target standard error) on the
run's own two-level design; :func:`perfstudy.design.standard_errors.optimal_allocation` does the same for the
requests x hosts x batches designs of the paper, whose cost model has no rounds.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from perfstudy._lib.checks import check_each, check_fraction, check_int, check_real
from perfstudy._lib.format import counted
from perfstudy._lib.frames import float_values
from perfstudy._lib.result import Result
from perfstudy._lib.tdist import norm_ppf

__all__ = ["RoundPlan", "plan_rounds", "format_plan", "HOSTS"]

#: the host counts a plan considers
HOSTS = (1, 2, 4, 8, 16, 32)


@dataclass(frozen=True)
class RoundPlan(Result):
    """Hosts x rounds for a target interval half-width (module text).

    Attributes
    ----------
    table : DataFrame
        One row per host count: ``hosts``, ``rounds_per_host``, ``host_rounds``, ``half_width`` (relative)
        and ``wall_time_s``.
    host_sd, round_sd : float
        The pilot's host and round standard deviations of the per-round log-ratio.
    round_time_s : float
        The pilot's median seconds per round.
    target : float
        The relative half-width to reach.
    pilot_rounds, pilot_hosts : int
    """

    table: pd.DataFrame
    host_sd: float
    round_sd: float
    round_time_s: float
    target: float
    pilot_rounds: int
    pilot_hosts: int

    def to_frame(self) -> pd.DataFrame:
        """The plan's table (a copy)."""
        return self.table.copy()


def _checked_pilot(frame: pd.DataFrame) -> pd.DataFrame:
    """The pilot's columns as numbers, refused by name where a run would never write what is there: a
    value that is not a positive number in a batch that ran, a round, start or end that is not a number, a
    round in which one version ran twice."""
    frame = frame.copy()
    for column in ("round", "exit_status", "start", "end"):
        numbers = float_values(frame[column])
        if np.isnan(numbers).any():
            raise ValueError(f"pilot: {int(np.isnan(numbers).sum())} row(s) whose {column} is missing or not a number")
        frame[column] = numbers
    values = float_values(frame["value"])
    ran = np.asarray(frame["exit_status"] == 0, dtype=bool)
    bad = ran & ~(values >= 0)
    if bad.any():
        raise ValueError(
            f"pilot: {int(bad.sum())} value(s) of batches that ran are not numbers of 0 or more (first: "
            f"{frame['value'].iloc[int(np.flatnonzero(bad)[0])]!r}); a run records times, which are"
        )
    frame["value"] = values
    batch = frame["batch"] if "batch" in frame.columns else frame["round"].astype(str) + "-" + frame["version"]
    sides = frame[ran].assign(_batch=batch[ran]).groupby(["round", "version"])["_batch"].nunique()
    for key, count in zip(sides.index, np.asarray(sides, dtype=int)):
        if count > 1:
            round_, version = key  # type: ignore[misc]
            raise ValueError(
                f"pilot: round {round_!r} holds {count} batches of version {version}; a run gives each version "
                "one batch a round (were two files joined?)"
            )
    return frame


def plan_rounds(pilot, *, threshold: float, confidence: float = 0.95, hosts=HOSTS, limit: int = 100_000) -> RoundPlan:
    """Propose hosts x rounds for a half-width of ``threshold``, from a pilot run's file or frame.

    Parameters
    ----------
    pilot : str, path or DataFrame
        A file :func:`perfstudy.experiment._run.run` wrote (or its frame), with at least 3 complete rounds.
    threshold : float
        The target half-width, relative (0.05 for 5%).
    confidence : float
    hosts : sequence of int
        Host counts to consider.
    limit : int
        Rounds per host beyond which a host count is reported as not reaching the target.

    Returns
    -------
    RoundPlan
    """
    from perfstudy.comparison import block_differences, host_and_round_variance
    from perfstudy.comparison.sequential import rounds_needed

    confidence = check_fraction("confidence", confidence)
    threshold = check_real("threshold", threshold, positive=True)
    if threshold >= 1:
        raise ValueError(f"threshold={threshold!r}: expected a relative half-width below 1, e.g. 0.05")
    hosts = check_each("hosts", hosts, check_int, maximum=100_000)
    hosts = (hosts,) if isinstance(hosts, int) else tuple(hosts)
    limit = check_int("limit", limit, maximum=10**9)
    if isinstance(pilot, pd.DataFrame):
        frame = pilot
    elif isinstance(pilot, (str, os.PathLike)):
        if not Path(pilot).is_file():
            raise FileNotFoundError(f"pilot: {pilot}: no such file")
        try:
            frame = pd.read_csv(pilot)
        except (ValueError, pd.errors.ParserError) as error:  # EmptyDataError is a ValueError
            raise ValueError(f"pilot: {pilot}: not a run's CSV file ({' '.join(str(error).split())})") from None
    else:
        raise TypeError(f"pilot: expected a run's file or its DataFrame, got {type(pilot).__name__}")
    needed = {"version", "round", "value", "exit_status", "host", "start", "end"}
    if not needed <= set(frame.columns):
        raise ValueError(f"pilot: not a perfstudy run's file; it lacks {sorted(needed - set(frame.columns))}")
    frame = _checked_pilot(frame)
    warmup = frame["warmup"].astype(bool) if "warmup" in frame.columns else False
    frame = frame[(frame["exit_status"] == 0) & ~warmup]
    a, b = frame[frame["version"] == "A"], frame[frame["version"] == "B"]
    rounds, stat_a, stat_b = block_differences(a["value"], a["round"], b["value"], b["round"])
    if rounds.size < 3:
        raise ValueError(f"pilot: {rounds.size} complete rounds; a plan needs at least 3")
    if not (np.all(stat_a > 0) and np.all(stat_b > 0)):
        raise ValueError(
            "pilot: a round's mean time is 0 (a command faster than the shell's start-up, which the run "
            "subtracts): no ratio B/A to plan from; pilot a longer command, or run it with --no-shell"
        )
    d = np.log(stat_b / stat_a)
    host_of = frame.groupby("round")["host"].first()
    host_labels = host_of.loc[rounds].to_numpy()
    host_var, round_var = host_and_round_variance(d, host_labels)
    spans = frame.groupby("round").agg(start=("start", "min"), end=("end", "max"))
    round_time = float(np.median(np.asarray(spans["end"] - spans["start"], dtype=float)))
    z = norm_ppf(0.5 + confidence / 2)
    target = math.log1p(threshold)
    rows = []
    for count in hosts:
        host_part = z * math.sqrt(host_var / count)
        gap = target - host_part
        total = rounds_needed(math.sqrt(round_var), gap, confidence, limit=limit * count) if gap > 0 else None
        per_host = None if total is None or total >= limit * count else math.ceil(total / count)
        rows.append(
            dict(
                hosts=count,
                rounds_per_host=per_host,
                host_rounds=None if per_host is None else per_host * count,
                half_width=None if per_host is None else threshold,
                wall_time_s=None if per_host is None else per_host * round_time,
            )
        )
    return RoundPlan(
        table=pd.DataFrame(rows),
        host_sd=math.sqrt(host_var),
        round_sd=math.sqrt(round_var),
        round_time_s=round_time,
        target=float(threshold),
        pilot_rounds=int(rounds.size),
        pilot_hosts=int(np.unique(host_labels).size),
    )


def format_plan(plan: RoundPlan) -> str:
    """The plan as text for the terminal.

    Parameters
    ----------
    plan : RoundPlan
    """
    if not isinstance(plan, RoundPlan):
        raise TypeError(f"plan: expected a RoundPlan, got {type(plan).__name__}")
    lines = [
        f"pilot: {counted(plan.pilot_rounds, 'round')} on {plan.pilot_hosts} host(s), {plan.round_time_s:.2f} s per round; "
        f"SD of a round's log B/A {100 * plan.round_sd:.2f}%, between hosts {100 * plan.host_sd:.2f}%"
        + (" (one host: not measured)" if plan.pilot_hosts == 1 else ""),
        f"to reach an interval of +-{100 * plan.target:g}% (anytime-valid, as perfstudy run decides):",
        f"{'hosts':>6} {'rounds/host':>12} {'host-rounds':>12} {'wall time':>10}",
    ]
    for row in plan.table.to_dict(orient="records"):
        per_host = row["rounds_per_host"]
        if per_host is None or (isinstance(per_host, float) and math.isnan(per_host)):
            lines.append(f"{row['hosts']:>6} {'never':>12} {'-':>12} {'-':>10}  (the host spread alone is wider)")
        else:
            lines.append(
                f"{row['hosts']:>6} {int(per_host):>12} {int(row['host_rounds']):>12} {row['wall_time_s']:>9.0f}s"
            )
    return "\n".join(lines)
