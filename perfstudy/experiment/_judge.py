"""The judgement after every round of a run: each benchmark's anytime-valid interval and verdict
(:func:`perfstudy.comparison.verdict`), when to stop, and the progress bar's text."""

from __future__ import annotations

import math
import re
import signal
import threading

import numpy as np

from perfstudy.experiment._files import NAMES

#: rounds beyond which the progress bar does not guess how many are still needed
_FAR = 10_000


#: rounds of estimates over which "rounds still needed" is smoothed (their median)
_SMOOTHING = 5


#: a batch's statistic, by name (no numpy call per batch: a run of /bin/true does hundreds a second)
_STATISTICS = {
    "mean": lambda values: sum(values) / len(values),
    "median": lambda values: _median(values),
    "min": min,
}


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else 0.5 * (ordered[middle - 1] + ordered[middle])


def followed(benchmark: str | None, names) -> list[str]:
    """The benchmarks of ``names`` that a run following ``benchmark`` judges: all when None; else ``benchmark``
    itself where the harness wrote it so, or else those that are it with Go's ``-GOMAXPROCS`` suffix (``Parse`` is
    ``Parse-8``). More than one (``go test -cpu 2,4``: ``Parse-2`` and ``Parse-4``) is ambiguous, and the run
    stops on it (:func:`perfstudy.experiment._run._not_followed`)."""
    names = sorted(names, key=str)
    if benchmark is None:
        return names
    exact = [n for n in names if str(n) == benchmark]
    return exact or [n for n in names if re.sub(r"-\d+$", "", str(n)) == benchmark]


def _spread(statistics: list[float], centre: float) -> float:
    """The SD (ddof 1) of the rounds' statistics over ``|centre|``, as a comparison's ``spread_a`` is of its
    batches'; NaN with one round or a centre of 0."""
    if len(statistics) < 2 or centre == 0:
        return math.nan
    return float(np.std(statistics, ddof=1) / abs(centre))


class _Judge:
    """The stopping rule after every round (module text), per benchmark, on the rounds in the order they ended.

    Each round's batch statistic (``statistic``) of A and of B gives the round's log-ratio; ``rule`` names the
    anytime-valid sequence over them (``"sign"`` for their median, ``"t"`` (Lai) for their mean), which the
    judge builds once per benchmark and then uses only through its protocol
    (:class:`perfstudy.comparison.running.RunningRule`)."""

    def __init__(self, threshold: float, confidence: float, statistic: str, rule: str, benchmark: str | None = None):
        self.threshold, self.confidence = threshold, confidence  # the run's own, always
        self.statistic, self.rule = statistic, rule
        self.benchmark = benchmark  # the one benchmark judged (:func:`followed`); None: all
        self.d: dict[str, list[float]] = {}
        self.a: dict[str, list[float]] = {}
        self.b: dict[str, list[float]] = {}
        self.rounds_a: dict[str, list[float]] = {}  # each round's statistic of A, and of B
        self.rounds_b: dict[str, list[float]] = {}
        self.units: dict[str, str | None] = {}
        self.higher: dict[str, bool] = {}
        self.unjudged: set = set()  # benchmarks with a round whose statistic was 0: no ratio B/A to judge
        self.shortest: dict[str, list[float]] = {}  # each round's smaller statistic of A and B, judged or not
        self.running: dict = {}  # each benchmark's stopping rule, kept up round by round

    def add_round(self, rows_a: list[dict], rows_b: list[dict]) -> None:
        from perfstudy._lib.units import higher_is_better

        summary = _STATISTICS[self.statistic]
        for name in followed(self.benchmark, {r["benchmark"] for r in rows_a} & {r["benchmark"] for r in rows_b}):
            a = [float(r["value"]) for r in rows_a if r["benchmark"] == name and not r["warmup"]]
            b = [float(r["value"]) for r in rows_b if r["benchmark"] == name and not r["warmup"]]
            if not (a and b):
                continue
            stat_a, stat_b = summary(a), summary(b)
            self.shortest.setdefault(name, []).append(min(stat_a, stat_b))
            if stat_a > 0 and stat_b > 0:
                self.d.setdefault(name, []).append(math.log(stat_b / stat_a))
                if name not in self.running:
                    from perfstudy.comparison.running import running_rule

                    self.running[name] = running_rule(self.rule, self.confidence)
                self.running[name].add(self.d[name][-1])
                self.a.setdefault(name, []).extend(a)
                self.b.setdefault(name, []).extend(b)
                self.rounds_a.setdefault(name, []).append(stat_a)
                self.rounds_b.setdefault(name, []).append(stat_b)
                unit = next((r.get("unit") for r in rows_a if r["benchmark"] == name), None)
                self.units[name] = unit
                self.higher[name] = higher_is_better(unit)
            else:
                self.unjudged.add(name)

    def _sequence(self, name: str) -> tuple[float, float, float, float]:
        """``(low, high, p, centre)`` of the rule on the log scale (:class:`perfstudy.comparison.running.RunningRule`)."""
        running = self.running[name]
        low, high, p = running.current()
        return low, high, p, running.centre

    def state(self) -> dict:
        """``{benchmark: (low, high, verdict, rounds still needed, sd)}`` (:meth:`_judged`)."""
        return {name: judged[:5] for name, judged in self._judged().items()}

    def _judged(self) -> dict:
        """``{benchmark: (low, high, verdict, rounds still needed, sd, adjusted p, centre, p)}`` on the relative
        scale (the centre on the log scale); ``sd`` is the
        standard deviation of the rounds' log-ratios. The interval is the intersection of the sequence's
        intervals so far, as :func:`perfstudy.comparison._compare.compare` shows it, so that it agrees with the p-value."""
        from perfstudy.comparison import adjust_p_values, verdict

        names = sorted(self.d)
        if not names:
            return {}
        found = {}
        p_values = []
        for name in names:
            d = np.asarray(self.d[name])
            low, high, p, centre = self._sequence(name)
            found[name] = (low, high, centre, d)
            p_values.append(p)
        adjusted = adjust_p_values(p_values, "holm")
        band = math.log1p(self.threshold) if self.threshold > 0 else 0.0
        state = {}
        for name, p, raw in zip(names, adjusted, p_values):
            low, high, centre, d = found[name]
            # compare's own verdict, on the interval as its table shows it (relative, B/A - 1)
            said = verdict(
                math.expm1(low),
                math.expm1(high),
                float(p),
                alpha=1 - self.confidence,
                threshold=self.threshold,
                higher_is_better=self.higher[name],
            )
            to_go = 0
            sd = float(d.std(ddof=1)) if d.size > 1 else math.nan
            if said == "inconclusive":
                gap = band - abs(centre) if abs(centre) < band else abs(centre) - band
                if gap <= 0 or not math.isfinite(sd):
                    to_go = _FAR
                else:
                    needed = self.running[name].rounds_needed(gap, limit=_FAR)
                    to_go = max(1, needed - d.size) if needed < _FAR else _FAR
            state[name] = (math.expm1(low), math.expm1(high), said, to_go, sd, float(p), centre, float(raw))
        return state

    def summary(self) -> list[dict]:
        """One row per judged benchmark for the run's own table and JSON (no pandas): A's and B's statistic
        over all their values, the change (the rule's centre), its interval, the Holm-adjusted anytime p-value
        and the verdict; beside them what the JSON reports (:func:`perfstudy.experiment.run_table.json_document`):
        the values, each side's spread (the SD of its rounds' statistics over its statistic) and the unadjusted
        p-value."""
        summary = _STATISTICS[self.statistic]
        rows = []
        for name, (low, high, verdict, _to_go, sd, p, centre, raw) in self._judged().items():
            a, b = summary(self.a[name]), summary(self.b[name])
            rows.append(
                dict(
                    benchmark=name,
                    unit=self.units.get(name),
                    a=a,
                    b=b,
                    change=math.expm1(centre),
                    low=low,
                    high=high,
                    p_value=p,
                    verdict=verdict,
                    rounds=len(self.d[name]),
                    sd=sd,
                    n_a=len(self.a[name]),
                    n_b=len(self.b[name]),
                    spread_a=_spread(self.rounds_a[name], a),
                    spread_b=_spread(self.rounds_b[name], b),
                    p_unadjusted=raw,
                    higher_is_better=self.higher[name],
                )
            )
        return rows

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
