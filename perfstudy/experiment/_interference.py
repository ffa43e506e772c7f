"""Interference a run sees in its own rounds, said while it goes on, each kind once, with the remedy.

Three signs, each checked after every round from :data:`FIRST_LOOK` rounds on (every tenth round after
40, since a look reads every row so far):

- **bimodal batches**: a share of at least :data:`SLOW_SHARE` of a version's batches ran at least
  :data:`SLOW_RATIO` times and 5 robust SDs slower than its median batch: the machine was contended part of
  the time (another job, a noisy neighbour);
- **a drifting platform**: the platform probe (:func:`perfstudy.experiment.environment.probe`, timed before
  every batch) of the last quarter of the batches is at least :data:`DRIFT` slower or faster than that of
  the first quarter (median against median, from 15 batches a quarter);
- **noisy rounds**: the rounds' log-ratios B/A spread (SD) by more than twice the threshold (or
  :data:`NOISY_ROUNDS` with no threshold), which costs many rounds.

In duet rounds a fourth: **unequal slots**, when the runs of one slot (CPU and thread) are at least
:data:`SLOT_GAP` slower than those of the other, beside each other (on a VM whose two vCPUs share a core: a
loop of 35 ms alone took 53 ms in one slot and 36 ms in the other). The crossover of duet rounds keeps the
verdict fair, but the rounds noisy: interleaved rounds may decide sooner.

Interleaving keeps the verdicts valid through all of them; the warnings are about time, not truth.
"""

from __future__ import annotations

import math
import warnings

from perfstudy._lib.robust import MAD_SD
from perfstudy.experiment._judge import _median

__all__ = ["Interference", "SLOW_RATIO", "SLOW_SHARE", "DRIFT", "NOISY_ROUNDS", "FIRST_LOOK", "SLOT_GAP"]

#: a batch this many times its version's median batch (and 5 robust SDs beyond it) ran contended
SLOW_RATIO = 1.5
#: the share of such batches that makes the rounds bimodal
SLOW_SHARE = 0.05
#: the relative change of the platform probe, last quarter against first, that is a drift
DRIFT = 0.25
#: the spread of a round's log-ratio that is noisy when the run has no threshold
NOISY_ROUNDS = 0.10
#: rounds before the first look
FIRST_LOOK = 10
#: the relative gap between a duet's two slots (their median runs) that is worth a warning
SLOT_GAP = 0.10


class Interference:
    """The checks of the module text over a run's rows and its judge, warning once per kind."""

    def __init__(self, threshold: float, *, duet: bool = False, statistic: str = "median"):
        self.threshold = threshold
        self.duet = duet
        self.statistic = statistic
        self.said: set = set()

    def _remedy(self) -> str:
        others = " or ".join(s for s in ("median", "min") if s != self.statistic)  # the run's own is no remedy
        ways = [
            "longer batches (--values)",
            f"--statistic {others}, which a burst that hits one run of a batch does not move" if others else "",
            "--metric cpu (CPU time is far steadier than wall time on a loaded machine for a CPU-bound command)",
        ]
        ways = [way for way in ways if way]
        if not self.duet:
            ways.insert(1, "--duet (A and B side by side meet the same interference)")
        return "; ".join(ways)

    def _warn(self, kind: str, text: str) -> None:
        from perfstudy.experiment.environment import NoisyMachineWarning

        if kind in self.said:
            return
        self.said.add(kind)
        warnings.warn(f"{text}. The verdicts stay valid, but deciding takes longer: {self._remedy()}",
                      NoisyMachineWarning, stacklevel=5)  # fmt: skip

    def check(self, judge, rows: list[dict], state: dict) -> None:
        """Look at the rounds so far (after :data:`FIRST_LOOK`)."""
        rounds = max((len(d) for d in judge.d.values()), default=0)
        kinds = 4 if self.duet else 3
        # every round at first, then every tenth: each look reads every row so far
        if rounds < FIRST_LOOK or len(self.said) == kinds or (rounds > 4 * FIRST_LOOK and rounds % FIRST_LOOK):
            return
        self._bimodal(rows)
        self._drift(rows)
        if self.duet:
            self._slots(rows)
        limit = 2 * self.threshold if self.threshold > 0 else NOISY_ROUNDS
        for name, (_low, _high, verdict, _to_go, sd) in state.items():
            if verdict == "inconclusive" and math.isfinite(sd) and sd > limit:
                beyond = (
                    f"more than twice the {100 * self.threshold:g}% threshold"
                    if self.threshold > 0
                    else f"more than {100 * NOISY_ROUNDS:g}%"
                )
                self._warn(
                    "noisy",
                    f"{name}: the rounds' change B/A spreads by {100 * sd:.0f}% (SD of the log-ratio), {beyond}, "
                    "and no verdict yet",
                )
                break

    def _bimodal(self, rows: list[dict]) -> None:
        if "bimodal" in self.said:
            return
        per_batch: dict[tuple, list[float]] = {}
        for row in rows:
            if row.get("warmup") or float(row.get("exit_status") or 0) != 0:
                continue
            value = float(row["value"])
            if value > 0:
                per_batch.setdefault((row["benchmark"], row["version"], row["batch"]), []).append(value)
        by_series: dict[tuple, list[float]] = {}
        for (benchmark, version, _batch), values in per_batch.items():
            by_series.setdefault((benchmark, version), []).append(math.log(_median(values)))
        for (benchmark, version), logs in sorted(by_series.items(), key=str):
            if len(logs) < FIRST_LOOK:
                continue
            centre = _median(logs)
            spread = MAD_SD * _median([abs(x - centre) for x in logs])
            cut = centre + max(math.log(SLOW_RATIO), 5 * spread)
            slow = sum(x > cut for x in logs) / len(logs)
            if slow >= SLOW_SHARE:
                typical = [math.exp(x - centre) for x in logs if x > cut]
                self._warn(
                    "bimodal",
                    f"{benchmark}: {100 * slow:.0f}% of version {version}'s batches ran {_median(typical):.1f} times "
                    "as long as its typical batch: the machine is contended part of the time",
                )
                return

    def _slots(self, rows: list[dict]) -> None:
        if "slots" in self.said:
            return
        by_slot: dict[tuple, list[float]] = {}
        for row in rows:
            if not row.get("warmup") and float(row.get("exit_status") or 0) == 0 and float(row["value"]) > 0:
                by_slot.setdefault((row["benchmark"], row["version"], int(row["position"])), []).append(
                    float(row["value"])
                )
        for (benchmark, version, slot), values in sorted(by_slot.items(), key=str):
            other = by_slot.get((benchmark, version, 1 - slot))
            if slot != 0 or not other or len(values) < FIRST_LOOK or len(other) < FIRST_LOOK:
                continue
            gap = _median(other) / _median(values) - 1
            if abs(gap) >= SLOT_GAP:
                slower = 1 if gap > 0 else 0
                self.said.add("slots")
                from perfstudy.experiment.environment import NoisyMachineWarning

                warnings.warn(
                    f"{benchmark}: side by side, version {version}'s runs in slot {slower} took "
                    f"{100 * abs(gap):.0f}% longer than in slot {1 - slower}: this machine's two CPUs are not "
                    "independent (SMT siblings, or vCPUs that share a host core). The crossover of duet rounds "
                    "keeps the verdict fair, but the rounds are noisy: interleaved rounds (without --duet) may "
                    "decide sooner",
                    NoisyMachineWarning,
                    stacklevel=5,
                )
                return

    def _drift(self, rows: list[dict]) -> None:
        if "drift" in self.said:
            return
        probes = []
        seen = set()
        for row in rows:
            key = row["batch"]
            if key not in seen and row.get("probe") is not None:
                seen.add(key)
                probes.append(float(row["probe"]))
        quarter = len(probes) // 4
        if quarter < 15:  # the probe is a 0.1 ms loop: a median of fewer is noise
            return
        first, last = _median(probes[:quarter]), _median(probes[-quarter:])
        if first > 0 and abs(last / first - 1) >= DRIFT:
            way = "slower" if last > first else "faster"
            self._warn(
                "drift",
                f"the platform probe is {100 * abs(last / first - 1):.0f}% {way} in the last quarter of the batches "
                "than in the first: the machine's speed drifts under the run",
            )
