"""What notebook 09 says of running an experiment: the two layouts under a ramping load, the probe's drift, the
stopping rules' calibration and price, and the rules under contention and a toggled load. Sentences written from
this run's results, as :class:`~perfstudy._lib.said.Said` whose literal text states method only.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from perfstudy._lib.checks import check_instance, check_int, check_real, check_text
from perfstudy._lib.said import Said

__all__ = ["interval_record", "layout_title", "drifts", "probe_said", "summary_said", "rules_said"]

#: the configurations of the real trial, as the sentence names them: (rule, duet)
CONFIGURATIONS = {
    ("t", False): "t rule, interleaved",
    ("sign", False): "sign rule, interleaved",
    ("sign", True): "sign rule, duet",
}


def interval_record(comparison) -> dict:
    """The first benchmark's verdict, change and interval of a comparison, as the notebook records them.

    Parameters
    ----------
    comparison : Comparison
        :func:`perfstudy.comparison.compare`'s result, or a run's ``comparison``.
    """
    table = getattr(comparison, "table", None)
    if not isinstance(table, pd.DataFrame) or table.empty:
        raise TypeError(
            f"comparison: expected a Comparison with a table of benchmarks, got {type(comparison).__name__}"
        )
    row = table.iloc[0]
    return dict(verdict=row.verdict, change=float(row.change), low=float(row.low), high=float(row.high))


def layout_title(layout: str, comparison, count: str) -> str:
    """A panel's title: the layout, its verdict and interval, and how much it ran.

    Parameters
    ----------
    layout : str
    comparison : Comparison
    count : str
        What ran (``"10 batches each"``, ``"40 rounds (decided)"``).
    """
    check_text("layout", layout)
    check_text("count", count)
    row = interval_record(comparison)
    return (
        f"{layout}: {row['verdict']} {100 * row['change']:+.1f}% [{100 * row['low']:+.1f}%, {100 * row['high']:+.1f}%]"
        f", {count}"
    )


def _fifth(values: Any, last: bool) -> float:
    """The median of the first (or last) fifth of ``values``, at least one."""
    k = max(1, len(values) // 5)
    return float((values.iloc[-k:] if last else values.iloc[:k]).median())


def drifts(frame: pd.DataFrame) -> tuple[dict, float]:
    """How the platform probe and the commands moved over a run: the probe's median over its first and last fifth
    of rounds (``first``, ``last``), and the ratio of the commands' round means, last fifth over first.

    Parameters
    ----------
    frame : DataFrame
        A run's rows (:attr:`perfstudy.experiment.RunResult.frame`): ``round``, ``probe``, ``warmup``, ``value``.
    """
    check_instance("frame", frame, pd.DataFrame)
    probe = frame.groupby("round")["probe"].median()
    means = frame[~frame["warmup"].astype(bool)].groupby("round")["value"].mean()
    return dict(first=_fifth(probe, False), last=_fifth(probe, True)), _fifth(means, True) / _fifth(means, False)


def probe_said(drift: dict, slowdown: float) -> Said:
    """Whether the probe moved with the commands over the run (notebook 09).

    Parameters
    ----------
    drift : dict
        :func:`drifts`' probe medians, ``first`` and ``last``.
    slowdown : float
        :func:`drifts`' ratio of the commands' round means.
    """
    slowdown = check_real("slowdown", slowdown, positive=True)
    if not isinstance(drift, dict):
        raise TypeError(f"drift: expected drifts()'s dict of first and last, got {type(drift).__name__}")
    ratio = check_real("drift['last']", drift["last"], positive=True) / check_real(
        "drift['first']", drift["first"], positive=True
    )
    return Said(
        "Over the run the probe's median moved by a factor {probe_ratio:.2f} (first fifth of rounds to last) while the "
        "commands' round means moved by {command_ratio:.2f}. {reading}",
        dict(
            probe_ratio=ratio,
            command_ratio=slowdown,
            reading=(
                "The probe moved far less than the commands: Linux shares the CPUs between sessions, the load runs in "
                "sessions of its own and so does each command, so a probe in the runner's session sees its own share."
                if abs(ratio - 1) < abs(slowdown - 1) / 2
                else "The probe moved with the commands."
            ),
        ),
    )


def _within(flag) -> str:
    return "within the limit" if flag else "above the limit"


def summary_said(
    sequential: dict,
    interleaved: dict,
    calibration: pd.DataFrame,
    cost: pd.DataFrame,
    *,
    threshold: float,
    experiments: int,
) -> Said:
    """Notebook 09's summary: the two layouts' verdicts on an A/A pair, the rules' false calls when looked at after
    every round, and the price of a sequence in rounds.

    Parameters
    ----------
    sequential, interleaved : dict
        :func:`interval_record` of each layout (``interleaved`` with the run's ``rounds`` and ``stopped``).
    calibration : DataFrame
        :func:`perfstudy.studies.running.calibration`'s table.
    cost : DataFrame
        :func:`perfstudy.studies.running.power_and_cost`'s table.
    threshold : float
    experiments : int
        Simulated A/A runs behind the calibration.
    """
    check_instance("calibration", calibration, pd.DataFrame)
    check_instance("cost", cost, pd.DataFrame)
    for name, value in (("sequential", sequential), ("interleaved", interleaved)):
        if not isinstance(value, dict):
            raise TypeError(f"{name}: expected interval_record()'s dict, got {type(value).__name__}")
    threshold, experiments = check_real("threshold", threshold, positive=True), check_int("experiments", experiments)
    rules: Any = calibration.set_index("rule")
    every, lai, naive = (rules.loc[r] for r in ("sign sequence, every round", "t sequence, every round", "t interval, every round"))  # fmt: skip
    costs: Any = cost.sort_values("change")
    near, far = costs.iloc[0], costs.iloc[-1]
    seq, inter = sequential, interleaved
    return Said(
        "* **Sequential layout: {seq_verdict}**, {seq_change:+.1%} [{seq_low:+.1%}, {seq_high:+.1%}] for an A/A pair "
        "at a {threshold:.0%} threshold. {seq_reading}\n"
        "* **Interleaved run: {inter_verdict}**, {inter_change:+.1%} [{inter_low:+.1%}, {inter_high:+.1%}] after "
        "{inter_rounds} rounds ({inter_stopped}). {inter_reading}\n"
        "* **Looking after every round** ({experiments} simulated A/A runs, limit {limit:.1%} = 5% + 3 MC SE): the "
        "sign sequence (the run's rule) called a change in {cs_rate:.1%} of runs ({cs_within}), Lai's t sequence in "
        "{lai_rate:.1%} ({lai_within}); a fixed t interval recomputed every round in {t_rate:.1%} ({t_within}).\n"
        "* **The price in rounds** (Lai's t sequence, normal rounds): a {far_change:.0%} change took a median of "
        "{far_median:.0f} rounds against {far_fixed:.0f} for a one-look t test of equal power; a {near_change:.0%} "
        "change {near_reading}.",
        dict(
            seq_verdict=seq["verdict"],
            seq_change=seq["change"],
            seq_low=seq["low"],
            seq_high=seq["high"],
            threshold=threshold,
            seq_reading=(
                "A false call: B's batches ran under a different load than A's."
                if seq["verdict"] in ("faster", "slower")
                else "No call this time, but the interval excludes 0: the load's drift, not the noise, put it there."
                if seq["low"] > 0 or seq["high"] < 0
                else "No call this time, and the interval includes 0."
            ),
            inter_verdict=inter["verdict"],
            inter_change=inter["change"],
            inter_low=inter["low"],
            inter_high=inter["high"],
            inter_rounds=inter["rounds"],
            inter_stopped=inter["stopped"],
            inter_reading=(
                "A false call on an A/A pair: the error the stopping rule allows at its confidence."
                if inter["verdict"] in ("faster", "slower")
                else "Each round's B/A is taken under one load, so the drift cancels."
            ),
            experiments=experiments,
            limit=float(every["limit"]),
            cs_rate=float(every["false_rate"]),
            cs_within=_within(every["within"]),
            lai_rate=float(lai["false_rate"]),
            lai_within=_within(lai["within"]),
            t_rate=float(naive["false_rate"]),
            t_within=_within(naive["within"]),
            far_change=float(far["change"]),
            far_median=float(far["median_rounds"]),
            far_fixed=float(far["fixed_rounds"]),
            near_change=float(near["change"]),
            near_reading=(
                f"took a median of {near['median_rounds']:.0f} rounds against {near['fixed_rounds']:.0f}"
                + (
                    ": near the threshold the sequence pays for being valid at every look"
                    if near["median_rounds"] > near["fixed_rounds"]
                    else ""
                )
            ),
        ),
    )


def rules_said(contended: pd.DataFrame, trial, *, experiments: int, rounds: int, limit: float, budget: float) -> Said:
    """The t and the sign rule under simulated contention and in real runs under a toggled load (notebook 09).

    Parameters
    ----------
    contended : DataFrame
        :func:`perfstudy.studies.running.rules_under_contention`'s table.
    trial : ToggledTrial
        :func:`perfstudy.studies.running.toggled_trial`.
    experiments, rounds : int
        Simulated runs per change, and their budget of rounds.
    limit : float
        The A/A limit: 5% plus 3 Monte Carlo errors.
    budget : float
        Each real run's budget in seconds.
    """
    check_instance("contended", contended, pd.DataFrame)
    experiments, rounds = check_int("experiments", experiments), check_int("rounds", rounds)
    limit, budget = check_real("limit", limit, positive=True), check_real("budget", budget, positive=True)
    rows: Any = contended.itertuples()
    rounds_of = {(r.rule, r.statistic, r.change): r for r in rows}
    stat = "median" if ("sign", "median", 0.0) in rounds_of else str(contended["statistic"].iloc[0])
    aa = {rule: rounds_of[(rule, stat, 0.0)] for rule in ("t", "sign") if (rule, stat, 0.0) in rounds_of}
    planted = sorted(c for c in set(contended["change"].tolist()) if c > 0)
    ratios = [rounds_of[("t", stat, c)].mean_rounds / rounds_of[("sign", stat, c)].mean_rounds for c in planted]
    if not isinstance(getattr(trial, "table", None), pd.DataFrame):
        raise TypeError(f"trial: expected toggled_trial's result, got {type(trial).__name__}")
    groups: Any = trial.table.groupby(["rule", "duet"], sort=False)
    return Said(
        "* **Simulated contention** ({experiments} runs per change, batch {stat}, up to {rounds} rounds): A/A wrong "
        "verdicts {t_aa:.1%} for the t rule and {sign_aa:.1%} for the sign rule (limit {limit:.1%}). For planted "
        "changes of {planted}, the t rule needed {ratios} the sign rule's mean rounds.\n"
        "* **Real runs under a toggled load** ({budget:g} s each, {cpus} CPUs): {configs}.",
        dict(
            experiments=experiments,
            stat=stat,
            rounds=rounds,
            t_aa=float(aa["t"].wrong),
            sign_aa=float(aa["sign"].wrong),
            limit=limit,
            planted=", ".join(f"{100 * c:g}%" for c in planted),
            ratios=(
                f"{min(ratios):.1f} times"
                if len(ratios) == 1 or round(min(ratios), 1) == round(max(ratios), 1)
                else f"{min(ratios):.1f} to {max(ratios):.1f} times"
            ),
            budget=budget,
            cpus=trial.cpus,
            configs="; ".join(
                f"{CONFIGURATIONS[key]}: {int(group.wrong.sum())} wrong of {len(group)}, "
                f"{int((group.verdict != 'inconclusive').sum())} decided, median {group.seconds.median():.1f} s and "
                f"{group.rounds.median():.0f} rounds, round SD {group.round_sd.median():.1%}"
                for key, group in groups
            ),
        ),
    )
