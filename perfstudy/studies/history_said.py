"""What notebook 10 says of ``history`` against SAP's labels, planted changes, series without a change and the
peers, and of its short real history: sentences written from this run's results, as
:class:`~perfstudy._lib.said.Said` whose literal text states method only.
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any, cast

from scipy import stats

from perfstudy._lib.checks import check_bool, check_instance, check_int, check_real
from perfstudy._lib.said import Said
from perfstudy.studies.bisecting import ShortHistoryTrial
from perfstudy.studies.history_validation import Scores

__all__ = ["GOALS", "summary_said", "short_history_said", "short_scalars", "judged"]

#: the targets ``history`` is held to on planted changes: step F1 and the recalls at least, spikes flagged at most
GOALS = MappingProxyType({"step_F1": 0.95, "spread_recall": 0.5, "ramp_recall": 0.9, "spikes_flagged": 0.05})


def _se(rate: float, copies: int) -> float:
    """The binomial Monte Carlo SE of a rate from ``copies`` planted copies, ``sqrt(r (1 - r) / n)``, floored at
    ``0.5 / n`` so that a rate of 0 or 1 still has one."""
    return math.sqrt(max(rate * (1 - rate), 0.25 / copies) / copies)


def _rate(name: str, value) -> float:
    value = check_real(name, value, nonnegative=True)
    if value > 1:
        raise ValueError(f"{name}={value}: expected a rate from 0 to 1")
    return value


def judged(value: float, goal: float, copies: int, *, higher: bool = True) -> str:
    """Whether a rate from ``copies`` planted copies "meets", "is within 2 MC SE of" or "misses" its goal.

    Parameters
    ----------
    value, goal : float
        The rate and its goal.
    copies : int
        The planted copies the rate is over.
    higher : bool
        Whether higher is better (False for spikes flagged).
    """
    value, goal = _rate("value", value), _rate("goal", goal)
    copies, higher = check_int("copies", copies), check_bool("higher", higher)
    gap = (value - goal) if higher else (goal - value)
    if gap >= 0:
        return "meets"
    return "is within 2 MC SE of" if gap >= -2 * _se(value, copies) else "misses"


def summary_said(labels: Scores, planted: Scores, null: Scores, real: Scores, cost: Scores) -> Said:
    """Notebook 10's summary: SAP's labels, the planted changes against :data:`GOALS` and the best peer, the false
    change points on series without a change, and the cost.

    Parameters
    ----------
    labels, planted, null, real, cost : Scores
        :func:`~perfstudy.studies.history_validation.score_labels`, ``score_planted``, ``false_alarms``,
        ``real_false_alarms`` and ``cost_per_series`` of this run.
    """
    for name, value in dict(labels=labels, planted=planted, null=null, real=real, cost=cost).items():
        check_instance(name, value, Scores)
    if planted.missed is None:
        raise ValueError("planted: expected score_planted's Scores, which say what was missed (missed is None)")
    lab: Any = labels.table.set_index("detector")
    pla: Any = planted.table.set_index("detector")
    ours, row = lab.loc["perfstudy"], pla.loc["perfstudy"]
    copies = int(row["series"])
    others: Any = pla.drop(index="perfstudy")
    best = {k: float(others[k].max()) if len(others) else math.nan for k in GOALS}
    best["spikes_flagged"] = float(others["spikes_flagged"].min()) if len(others) else math.nan
    every: Any = planted.missed
    missed = every[(every["detector"] == "perfstudy") & (every["kind"] == "step")]
    missed = missed.sort_values("missed", ascending=False, kind="stable")
    seconds: Any = cost.table.set_index("detector")["seconds_per_1000_series"]
    null_table: Any = null.table
    real_table: Any = real.table
    null_points = float((null_table["series"] * null_table["points"]).sum())
    values: dict[str, Any] = {}
    for key, short in (
        ("step_F1", "step"),
        ("spread_recall", "spread"),
        ("ramp_recall", "ramp"),
        ("spikes_flagged", "spikes"),
    ):
        rate = float(row[key])
        values |= {
            short: rate,
            f"{short}_se": _se(rate, copies),
            f"{short}_goal": judged(rate, GOALS[key], copies, higher=key != "spikes_flagged"),
            f"{short}_target": GOALS[key],
            f"{short}_peer": best[key],
        }
    return Said(
        "* **SAP's labels.** perfstudy found {found} of {labelled} labelled regressions ({exact} at the exact index) "
        "with {false} false change points on the 25 series (F1 {f1:.2f}). {peer_text}.\n"
        "* **Planted, {n} copies a kind.** Step F1 {step:.2f} ± {step_se:.2f}, which {step_goal} the goal of "
        "{step_target} (best peer {step_peer:.2f}); spread recall {spread:.2f} ± {spread_se:.2f}, which {spread_goal} "
        "{spread_target} (best peer {spread_peer:.2f}); ramp recall {ramp:.2f} ± {ramp_se:.2f}, which {ramp_goal} "
        "{ramp_target} (best peer {ramp_peer:.2f}); spikes flagged {spikes:.1%} ± {spikes_se:.1%}, which "
        "{spikes_goal} at most {spikes_target:.0%} (fewest among peers {spikes_peer:.1%}). Missed steps by series "
        "copied (copies missed): {step_misses}.\n"
        "* **No change.** {null_cp} false change points in {null_points_total:,} simulated points over {null_calls} "
        "calls ({null_rate:.3f} per 1,000 points); {real_cp} in {real_points:,} real points ({real_rate:.3f} per "
        "1,000).\n"
        "* **Cost.** {ours_cost:.2f} s per 1,000 series; slower or equal: {faster_than}.{missing}",
        dict(
            found=int(ours["found"]),
            labelled=int(ours["labelled"]),
            exact=int(ours["exact"]),
            false=int(ours["false"]),
            f1=float(ours["F1"]),
            peer_text="; ".join(
                f"{d}: {int(lab.loc[d, 'found'])} found, {int(lab.loc[d, 'false'])} false (F1 {lab.loc[d, 'F1']:.2f})"
                for d in lab.index
                if d != "perfstudy"
            )
            or "No peer ran",
            n=copies,
            **values,
            step_misses=", ".join(f"{r.series} ({r.missed})" for r in cast(Any, missed.itertuples())) or "none",
            null_cp=int(null_table["change_points"].sum()),
            null_points_total=int(null_points),
            null_calls=len(null_table),
            null_rate=1000 * float(null_table["change_points"].sum()) / null_points,
            real_cp=int(real_table["change_points"].sum()),
            real_points=int(real_table["points"].sum()),
            real_rate=1000 * float(real_table["change_points"].sum()) / float(real_table["points"].sum()),
            ours_cost=float(seconds["perfstudy"]),
            faster_than=", ".join(d for d in seconds.index if d != "perfstudy" and seconds[d] >= seconds["perfstudy"])
            or "none",
            missing=f" Not installed here, so not compared: {', '.join(labels.missing)}." if labels.missing else "",
        ),
    )


def _at(value: float) -> str:
    return "none" if not math.isfinite(value) else f"commit {int(value)}"


def _missed(r, planted_at: list[int], commits: int) -> str:
    """Why the history missed a planted change: under its size rule, or fewer commits a side than it needs (up to the
    neighbouring planted changes: what the history could compare)."""
    k = planted_at.index(int(r.commit))
    before = int(r.commit) - (planted_at[k - 1] if k else 0)
    after = (planted_at[k + 1] if k + 1 < len(planted_at) else commits) - int(r.commit)
    size = f"the {r.change:+.0%}'s {r.measured:+.1%} in run time"
    if not math.isfinite(r.history_needs):
        return f"{size} is under 2 noise SDs, which no number of commits would report"
    return f"{size} needs about {r.history_needs:.0f} commits on each side, and it had {before} and {after}"


def _aa_text(short: ShortHistoryTrial) -> str:
    """The A/A bisects: culprits named against the stated bound, with a one-sided 95% Clopper-Pearson upper bound of
    the error rate and, where a culprit was named, the binomial tail at the bound."""
    culprits: Any = short.aa["culprit"]
    n, named = len(short.aa), int(culprits.notna().sum())
    if n == 0:
        return "No bisect of a range without a change started within its budget."
    upper = float(stats.beta.ppf(0.95, named + 1, n - named)) if named < n else 1.0
    tail = (
        f"; {named} or more of {n} at the bound has probability {stats.binom.sf(named - 1, n, short.aa_bound):.2f}"
        if named
        else ""
    )
    return (
        f"Over {n} bisects of a range without a change they named {named} culprit(s) ({named / n:.0%}; the stated "
        f"bound is {short.aa_bound:.0%}{tail}; the error rate is at most {upper:.0%} at 95% confidence), in "
        f"{short.aa_seconds:.0f} s."
    )


def short_history_said(short: ShortHistoryTrial, *, count: int) -> Said:
    """What the sweep's history and the bisects found in the short real history (notebook 10).

    Parameters
    ----------
    short : ShortHistoryTrial
        :func:`perfstudy.studies.bisecting.short_history_trial`.
    count : int
        Runs per commit in the sweep.
    """
    check_instance("short", short, ShortHistoryTrial)
    count = check_int("count", count)
    rows = list(cast(Any, short.found.itertuples()))
    hits = [r for r in rows if math.isfinite(r.history_commit)]
    wrong = [r for r in rows if math.isfinite(r.culprit) and int(r.culprit) != int(r.commit)]
    need = float(short.history.series["commits_for_threshold"].iat[0])
    commits = len(set(short.sweep["commit_index"].tolist()))
    planted_at = sorted(int(r.commit) for r in rows)
    return Said(
        "* **A short real history under a toggled load** ({commits} commits of a real repository, {count} runs each, "
        "measured one after another in {sweep:.0f} s). Planted in the loop's iterations: {planted}. The sweep's "
        "history found {hist} and {false} change point(s) that no planted change explains; at its noise between "
        "commits ({noise:.1%}), {need_text}{missed_text}. The interleaved bisects named {bis} of {n_planted} planted "
        "commits ({bisect_list}) with {wrong} wrong culprit(s), in {bisect_seconds:.0f} s of machine time. {aa_text}",
        dict(
            commits=commits,
            count=count,
            sweep=short.sweep_seconds,
            planted=", ".join(
                f"{r.change:+.0%} at commit {r.commit}"
                + (
                    f" ({r.measured:+.1%} in run time [{r.measured_low:+.1%}, {r.measured_high:+.1%}], measured by "
                    "its bisect's first step)"
                    if math.isfinite(r.measured)
                    else ""
                )
                for r in rows
            ),
            hist=", ".join(
                f"the {r.change:+.0%} at commit {int(r.history_commit)} (may be in {int(r.history_first)}-"
                f"{int(r.history_last)}; {r.history_change:+.1%})"
                for r in hits
            )
            or "none of them",
            false=short.false_history,
            noise=float(short.history.series["noise"].iat[0]),
            need_text=(
                f"a change of {short.threshold * 100:g}% is under 2 noise SDs and no number of commits would report it"
                if not math.isfinite(need)
                else f"a change of {short.threshold * 100:g}% needs about {need:.0f} commits on each side"
            ),
            missed_text="".join(
                f"; {_missed(r, planted_at, commits)}"
                for r in rows
                if not math.isfinite(r.history_commit) and math.isfinite(r.measured)
            ),
            bis=sum(math.isfinite(r.culprit) and int(r.culprit) == int(r.commit) for r in rows),
            n_planted=len(rows),
            bisect_list="; ".join(
                f"{r.change:+.0%}: {_at(r.culprit)}"
                + (
                    ""
                    if math.isfinite(r.culprit)
                    else f", range {int(r.bisect_first)}-{int(r.bisect_last)} ({r.stopped})"
                )
                + f", {r.steps} steps, {r.rounds} rounds, {r.seconds:.0f} s"
                for r in rows
            ),
            wrong=len(wrong),
            bisect_seconds=short.bisect_seconds,
            aa_text=_aa_text(short),
        ),
    )


def short_scalars(short: ShortHistoryTrial) -> dict:
    """The short history's scalars as notebook 10 records them: the machine times, the history's false change
    points and noise, the A/A bound, and the commits a side a change of the threshold needs (None: under the size
    rule, which no number of commits reports).

    Parameters
    ----------
    short : ShortHistoryTrial
    """
    check_instance("short", short, ShortHistoryTrial)
    need = float(short.history.series["commits_for_threshold"].iat[0])
    return dict(
        sweep_seconds=short.sweep_seconds,
        bisect_seconds=short.bisect_seconds,
        aa_seconds=short.aa_seconds,
        false_history=short.false_history,
        aa_bound=short.aa_bound,
        noise=float(short.history.series["noise"].iat[0]),
        commits_for_threshold=need if math.isfinite(need) else None,
    )
