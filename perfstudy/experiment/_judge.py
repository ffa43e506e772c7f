"""The judgement after every round of a run: each benchmark's anytime-valid interval and verdict
(:func:`perfstudy.comparison.verdict`), when to stop, and the progress bar's text."""

from __future__ import annotations

import math
import signal
import threading
from typing import TYPE_CHECKING

import numpy as np

from perfstudy.experiment._files import NAMES

#: rounds beyond which the progress bar does not guess how many are still needed
_FAR = 10_000


#: rounds of estimates over which "rounds still needed" is smoothed (their median)
_SMOOTHING = 5


if TYPE_CHECKING:
    pass


class _Judge:
    """The stopping rule after every round (module text), per benchmark, on the rounds in the order they ended."""

    def __init__(self, threshold: float, confidence: float):
        self.threshold, self.confidence = threshold, confidence
        self.d: dict[str, list[float]] = {}
        self.higher: dict[str, bool] = {}
        self.unjudged: set = set()  # benchmarks with a round whose mean was 0: no ratio B/A to judge

    def add_round(self, rows_a: list[dict], rows_b: list[dict]) -> None:
        from perfstudy._lib.units import higher_is_better

        for name in {r["benchmark"] for r in rows_a} & {r["benchmark"] for r in rows_b}:
            a = [r["value"] for r in rows_a if r["benchmark"] == name and not r["warmup"]]
            b = [r["value"] for r in rows_b if r["benchmark"] == name and not r["warmup"]]
            if a and b and np.mean(a) > 0 and np.mean(b) > 0:
                self.d.setdefault(name, []).append(math.log(np.mean(b) / np.mean(a)))
                unit = next((r.get("unit") for r in rows_a if r["benchmark"] == name), None)
                self.higher[name] = higher_is_better(unit)
            elif a and b:
                self.unjudged.add(name)

    def state(self) -> dict:
        """``{benchmark: (low, high, verdict, rounds still needed, sd)}`` on the relative scale; ``sd`` is the
        standard deviation of the rounds' log-ratios. The interval is the intersection of the sequence's
        intervals so far, as :func:`perfstudy.comparison._compare.compare` shows it, so that it agrees with the p-value."""
        from perfstudy.comparison import adjust_p_values, verdict
        from perfstudy.comparison.sequential import rounds_needed, t_confidence_sequence

        names = sorted(self.d)
        if not names:
            return {}
        found = {}
        p_values = []
        for name in names:
            d = np.asarray(self.d[name])
            cs = t_confidence_sequence(d, self.confidence)
            low, high, p = cs.current()
            found[name] = (low, high, float(cs.mean[-1]), d)
            p_values.append(p)
        adjusted = adjust_p_values(p_values, "holm")
        band = math.log1p(self.threshold) if self.threshold > 0 else 0.0
        state = {}
        for name, p in zip(names, adjusted):
            low, high, centre, d = found[name]
            # compare's own verdict, on the interval as its table shows it (relative, B/A - 1)
            said = verdict(
                math.expm1(low),
                math.expm1(high),
                p,
                alpha=1 - self.confidence,
                threshold=self.threshold,
                higher_is_better=self.higher[name],
            )
            to_go = 0
            sd = float(d.std(ddof=1)) if d.size > 1 else math.nan
            if said == "inconclusive":
                gap = band - abs(centre) if abs(centre) < band else abs(centre) - band
                known = gap > 0 and math.isfinite(sd)
                to_go = max(1, rounds_needed(sd, gap, self.confidence, limit=_FAR) - d.size) if known else _FAR
            state[name] = (math.expm1(low), math.expm1(high), said, to_go, sd)
        return state

    def add_rows(self, rows: list[dict]) -> list:
        """Judge the complete rounds among a resumed file's rows; returns their round numbers."""
        by_round: dict[int, dict[str, list[dict]]] = {}
        for row in rows:
            if row.get("exit_status") in (0, 0.0):
                by_round.setdefault(int(row["round"]), {}).setdefault(str(row["version"]), []).append(row)
        completed = [r for r, sides in sorted(by_round.items()) if set(sides) == set(NAMES)]
        for r in completed:
            self.add_round(by_round[r][NAMES[0]], by_round[r][NAMES[1]])
        return completed


class _Stop:
    """Ctrl-C or SIGTERM: stop after the batch in flight; a second one ends the batch in flight too (its
    commands' process groups, :func:`perfstudy.experiment.batches.stop_running`, or a callable by KeyboardInterrupt).
    The handlers are installed in the main thread only."""

    def __init__(self):
        self.signal: int | None = None
        self.previous = {}

    @property
    def requested(self) -> bool:
        return self.signal is not None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                self.previous[signum] = signal.signal(signum, self._handle)
        return self

    def _handle(self, signum, frame):
        from perfstudy.experiment.batches import stop_running

        if self.signal is None:
            self.signal = signum
            return
        if not stop_running():  # nothing of ours in flight: a callable runs in this thread
            raise KeyboardInterrupt

    def __exit__(self, *exc):
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)


def _describe(state: dict, history: dict, *, rounds: int, min_rounds: int, left: int, limit: int = 3) -> str:
    """The progress bar's text: each benchmark's interval and verdict, and the rounds still needed, once
    ``min_rounds`` have run, as the median of the last estimates (``> N`` beyond the budget left)."""
    parts = []
    for name, (low, high, verdict, _to_go, _sd) in list(state.items())[:limit]:
        label = "" if len(state) == 1 else f"{name}: "
        interval = "[-inf, inf]" if not math.isfinite(high) else f"[{100 * low:+.1f}%, {100 * high:+.1f}%]"
        more = ""
        if verdict == "inconclusive":
            recent = history.get(name, [])[-_SMOOTHING:]
            if rounds < min_rounds or len(recent) < min(_SMOOTHING, rounds):
                more = " (estimating the rounds needed)"
            else:
                needed = int(np.median(recent)) - rounds
                more = f" > {left} more rounds than the budget" if needed > left else f" ~{max(1, needed)} more rounds"
        parts.append(f"{label}{interval} {verdict}{more}")
    if len(state) > limit:
        parts.append(f"{sum(v[2] != 'inconclusive' for v in state.values())}/{len(state)} decided")
    return "; ".join(parts)
