"""A command too short to time through a shell: the run that stops saying so (:func:`_unmeasurable`) and the warning
about a round at or below the shell's start-up (:func:`_zero_hint`). Kept out of :mod:`perfstudy.experiment._run`,
whose loop calls them once a round."""

from __future__ import annotations

import statistics
import warnings

__all__ = ["UNMEASURABLE", "_unmeasurable", "_zero_hint"]

#: a command whose CPU time beyond the shell's start-up is at most this share of the shell's own is too short to
#: time through a shell (200 runs of ``sh -c ''`` on an idle 2-core VM: 0.81 ms wall, robust SD 4.5%, and 0.75 ms
#: CPU; the builtin ``true`` took 0.79 ms and 0.71 ms, ``/bin/true`` 1.59 ms and 1.48 ms). CPU time, not wall time:
#: under a load toggled every 0.3 s ``/bin/true``'s wall time reached 10.7 ms at the 90th percentile and its CPU time
#: 1.65 ms, and at a load of 4 the shell's start-up read 4 to 8 ms of wall time. ``true``'s median round read -52 to
#: +47 µs of CPU beyond the shell's 0.81-1.06 ms in 13 runs idle and at a load of 4; a dash loop of 200 iterations
#: read 182 µs beyond 0.79 ms idle but 67-104 µs beyond 1.03-1.07 ms at a load of 4 (the shell's CPU start-up grows
#: under load), so it is judged idle and refused loaded: its work is within the shell's own noise. A loop of 2,000
#: iterations (2 ms) is judged at either
UNMEASURABLE = 0.1


def _unmeasurable(judge, ran: int, min_rounds: int, session, measure) -> str:
    """At every ``min_rounds``-th round, the sentence stopping a run whose command takes no time that can be measured
    (else ""), judged on the last ``min_rounds`` rounds. Without a shell: no round could be judged (every one's
    statistic 0). Through a shell, for every benchmark: the median over those rounds of the smaller of A's and B's
    CPU time, beyond the shell's start-up taken again now beside them (it drifts with the load), is at most
    :data:`UNMEASURABLE` of the shell's; a command whose quietest round took more than twice the start-up of
    wall-clock time beyond it (one that waits) is judged. Judged again every ``min_rounds`` rounds, so that a load
    that changed during the first ones does not decide. More rounds would judge the start-up's drift: a bisect spent
    200 rounds a step on the builtin ``true``, then advised more rounds. A command a little longer is judged, and its
    rounds at the floor are warned about (:func:`_zero_hint`). ``measure(runs=30)`` takes the shell's start-up again
    (wall and CPU seconds, :func:`perfstudy.experiment.batches._shell_startup`): only its CPU median is used."""
    from perfstudy._lib.units import metric_of

    times = {name: values for name, values in judge.shortest.items() if metric_of(name) in ("wall", "cpu")}
    if ran % min_rounds or not times:
        return ""
    template = session.batches["template"]
    startup = template.startup
    if startup <= 0:
        if ran != min_rounds or any(max(values) > 0 for values in times.values()):
            return ""
        return (
            f"no round of {min_rounds} could be judged: every one's time was 0, so the command takes no time that "
            "can be measured this way; loop it inside the command so that a run takes milliseconds"
        )
    else:
        quietest = max(min(values[-min_rounds:]) for values in times.values())
        if quietest > 2 * startup:  # a command that waits, working little, takes wall-clock time: it is judged
            return ""
        _, cpu_now = measure(runs=30)  # the CPU's median alone: 30 runs, not the wall minimum's 100
        cpu = _cpu_beyond(session.rows, cpu_now, min_rounds)
        if not cpu or any(c > UNMEASURABLE * cpu_now for c in cpu.values()):
            return ""
        name = "the command took" if len(cpu) == 1 else f"each of the {len(cpu)} benchmarks' commands took at most"
        said = (
            f"{name} {1e6 * max(0.0, *cpu.values()):.0f} µs of CPU time beyond the shell's start-up "
            f"({1e3 * cpu_now:.2f} ms, measured again now) in the median of its last {min_rounds} rounds: under a "
            "tenth of the shell's own"
        )
    return (
        f"{said}. The command is too short to time through a shell; run it without one (--no-shell), or loop it "
        "inside the command so that a run takes milliseconds"
    )


def _cpu_beyond(rows: list, cpu_startup: float, last: int) -> dict:
    """Per benchmark, the median over its ``last`` rounds of the smaller of A's and B's median CPU time beyond the
    shell's start-up (the rows' ``cpu``, each run's user + system seconds)."""
    each: dict = {}
    for row in rows:
        if not row.get("warmup") and row.get("cpu") is not None:
            key = (row["benchmark"], row["round"], row["version"])
            each.setdefault(key, []).append(float(row["cpu"]) - cpu_startup)
    rounds: dict = {}
    for (benchmark, number, _), values in each.items():
        rounds.setdefault(benchmark, {}).setdefault(number, []).append(statistics.median(values))
    return {
        b: statistics.median(min(sides) for _, sides in sorted(by_round.items())[-last:])
        for b, by_round in rounds.items()
    }


def _zero_hint(name: str, startup: float) -> None:
    from perfstudy.experiment.environment import NoisyMachineWarning

    why = (
        f"at or below the shell's start-up ({1e3 * startup:.2f} ms), which is subtracted: the command is too short to "
        "time through a shell; run it with --no-shell (-N, shell=False) or loop it inside the command"
        if startup > 0
        else "0: there is no ratio B/A to judge"
    )
    warnings.warn(
        f"{name}: a round's time was {why}; such rounds are left out of the stopping rule",
        NoisyMachineWarning,
        stacklevel=4,
    )
