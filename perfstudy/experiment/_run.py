"""``perfstudy run``: run two versions interleaved and randomised, and stop when the answer is known.

Rounds are blocks (Abedi & Brecht, ICPE 2017, "randomised multiple interleaved trials"): every round
runs one batch of each version, in an order drawn afresh for the round from ``seed``, so that A and B of
a round meet the same platform state and a drift of the platform cancels in the round's ratio B/A.

After every round each benchmark is judged on the rounds so far by Lai's anytime-valid confidence
sequence for the mean log-ratio (:mod:`perfstudy.comparison.sequential`; Wang & Ramdas 2023): ``"no change"`` when
it lies inside ``+-threshold``, ``"faster"``/``"slower"`` when it lies beyond it and the anytime p-value
(Holm over the benchmarks) is below ``1 - confidence``, as :func:`perfstudy.comparison._compare.compare` decides.
Because the interval covers the truth at every round at once, looking after every round does not inflate
the error: the share of A/A runs that ever reach a verdict of change stays below ``1 - confidence``
(``perfstudy.studies.running.calibration``), where a fixed 95% t interval recomputed every round is wrong
in a third of them. The run stops when every benchmark is decided, else at ``max_rounds`` or
``max_time`` ("inconclusive").

Every batch is appended to ``out`` as soon as it ends (one ``write`` and a flush: a ``kill -9`` loses at
most the batch in flight), with its version, round, position in the round, host, start and end (Unix
seconds), exit status, the load average and a platform probe (:func:`perfstudy.experiment.environment.probe`);
``out + ".json"`` records the experiment (commands, settings, seed, machine) so that ``resume=True``
continues it, and refuses a file from another experiment.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import signal
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from perfstudy._lib.checks import check_bool, check_choice, check_fraction, check_int, check_real
from perfstudy._lib.result import Result

if TYPE_CHECKING:
    import pandas as pd

    from perfstudy.comparison._compare import Comparison
from perfstudy.experiment.batches import MEASURES, Batch, command_argv, command_text, run_batch

__all__ = ["run", "RunResult", "RunFile", "STOPS", "COLUMNS", "read_experiment", "read_run", "is_run_file"]

#: why a run stopped
STOPS = ("decided", "max-rounds", "max-time", "interrupted", "failed")
#: the columns of a run's file, in order
COLUMNS = (
    "benchmark", "version", "command", "round", "position", "batch", "host", "iteration", "warmup", "value", "unit",
    "start", "end", "exit_status", "load", "probe",
)  # fmt: skip
#: the version names a run gives its two commands
NAMES = ("A", "B")


@dataclass(frozen=True)
class RunResult(Result):
    """A finished run: its rows, the paired comparison and why it stopped.

    Attributes
    ----------
    frame : DataFrame
        Every row of the run's file (:data:`COLUMNS`), failed batches included.
    comparison : Comparison or None
        :func:`perfstudy.comparison._compare.compare` paired over the rounds with the anytime-valid interval
        (``block="round", sequential=True``), on the batches that ran; None when no round completed.
    rounds : int
        Rounds in which both versions ran.
    stopped : str
        One of :data:`STOPS`.
    path : str or None
        The run's file.
    failure : str
        A failed batch's version, exit status and standard error's tail ("" if none failed).
    environment : mapping
        :func:`perfstudy.experiment.environment.machine` at the start, and ``warnings`` (on resume: this machine's now).
    new_rounds : int
        Rounds this call ran (0 for a resumed run that was already decided).
    signal : int or None
        The signal that interrupted the run (SIGINT, SIGTERM), if one did.
    settings : mapping
        The experiment's settings as run (:data:`SETTINGS` and :data:`BUDGETS`, durations in seconds).
    """

    frame: pd.DataFrame
    comparison: Comparison | None
    rounds: int
    stopped: str
    path: str | None = None
    failure: str = ""
    environment: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    new_rounds: int = 0
    signal: int | None = None
    settings: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))

    def to_frame(self):
        """The run's rows (a copy)."""
        return self.frame.copy()

    @property
    def exit_status(self) -> int:
        """What the command line exits with before any regression gate: ``128 + signal`` for an
        interrupted run (130 after SIGINT, 143 after SIGTERM), the failed command's exit status, else 0."""
        if self.stopped == "interrupted":
            return 128 + int(self.signal if self.signal is not None else signal.SIGINT)
        if not self.failure or self.frame is None:
            return 0
        statuses = np.asarray(self.frame["exit_status"], dtype=float)
        failed = statuses[statuses != 0]
        return int(failed[-1]) if failed.size else 1


def read_experiment(path) -> dict:
    """The experiment record beside a run's file (``path + ".json"``).

    Parameters
    ----------
    path : str or path
        The run's file (``--out``).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a file path, got {type(path).__name__}")
    with open(f"{path}.json", encoding="utf-8") as handle:
        return json.load(handle)


def is_run_file(path) -> bool:
    """Whether ``path`` is a file that ``perfstudy run`` wrote: its record ``path + ".json"`` says so.

    Parameters
    ----------
    path : str or path
    """
    if not isinstance(path, (str, os.PathLike)):
        return False
    try:
        record = read_experiment(path)
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and str(record.get("schema", "")).startswith("perfstudy.run/")


@dataclass(frozen=True)
class RunFile(Result):
    """A run's file read back with its record: what :func:`perfstudy.comparison._compare.compare` and
    :func:`perfstudy.analysis.analyze` need to report the run as it was run.

    Attributes
    ----------
    frame : DataFrame
        The batches that ran to the end (failed ones left out), with ``timestamp``, each batch's start.
    record : mapping
        The experiment record (commands, settings, seed, machine, stopped, rounds).
    failed_rows : int
        Rows of failed batches left out.
    """

    frame: pd.DataFrame
    record: MappingProxyType
    failed_rows: int

    #: the versions: A is the baseline, whatever ran first
    baseline = NAMES[0]

    @property
    def threshold(self) -> float:
        """The threshold the run was judged by."""
        return float(self.record["settings"].get("threshold", DEFAULTS["threshold"]))

    @property
    def confidence(self) -> float:
        """The confidence the run was judged by."""
        return float(self.record["settings"].get("confidence", DEFAULTS["confidence"]))

    @property
    def commands(self) -> dict:
        """``{"A": command, "B": command}``."""
        return dict(self.record["commands"])

    def to_frame(self):
        """The batches that ran (a copy)."""
        return self.frame.copy()


def read_run(path) -> RunFile:
    """A run's file and its record, for reading back: versions A and B by the record, never by row order.

    Parameters
    ----------
    path : str or path
        The run's file (``--out``); its record is ``path + ".json"``.

    Returns
    -------
    RunFile

    Raises
    ------
    FileNotFoundError, ValueError
        No such file, no record beside it, or not a run's file (naming what is wrong).
    """
    import pandas as pd

    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a file path, got {type(path).__name__}")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    record = _checked_record(path, what=str(path))
    try:
        frame = pd.read_csv(path)
    except (ValueError, pd.errors.ParserError) as error:
        raise ValueError(f"{path}: not a run's CSV file ({' '.join(str(error).split())})") from None
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{path} lacks the columns {missing}; is it a perfstudy run's file?")
    others = sorted(set(frame["version"].astype(str)) - set(NAMES))
    if others:
        raise ValueError(f"{path}: versions {others[:3]} are not a run's (A and B)")
    failed = _numbers(frame["exit_status"]) != 0
    frame = frame.loc[~failed].copy()
    values, start = _numbers(frame["value"]), _numbers(frame["start"])
    if np.isnan(values).any() or np.isnan(start).any():
        raise ValueError(f"{path}: a batch that ran has a missing or non-numeric value or start; was the file edited?")
    frame["value"] = values
    frame["timestamp"] = pd.to_datetime(pd.Series(start, index=frame.index), unit="s")
    return RunFile(frame=frame.reset_index(drop=True), record=MappingProxyType(record), failed_rows=int(failed.sum()))


def _numbers(column) -> np.ndarray:
    """A column as floats, NaN where it holds no number."""
    import pandas as pd

    return np.asarray(pd.to_numeric(column, errors="coerce"), dtype=float)


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
        from types import SimpleNamespace

        from perfstudy.comparison._compare import _verdict, adjust_p_values
        from perfstudy.comparison._paired import sequence_interval
        from perfstudy.comparison.sequential import rounds_needed, t_confidence_sequence

        names = sorted(self.d)
        if not names:
            return {}
        found = {}
        p_values = []
        for name in names:
            d = np.asarray(self.d[name])
            cs = t_confidence_sequence(d, self.confidence)
            low, high, p = sequence_interval(cs)
            found[name] = (low, high, float(cs.mean[-1]), d)
            p_values.append(p)
        adjusted = adjust_p_values(p_values, "holm")
        band = math.log1p(self.threshold) if self.threshold > 0 else 0.0
        state = {}
        for name, p in zip(names, adjusted):
            low, high, centre, d = found[name]
            # compare's own verdict, on the interval as its table shows it (relative, B/A - 1)
            shown = SimpleNamespace(low=math.expm1(low), high=math.expm1(high), scale="ratio", estimate_a=1.0,
                                    p_adjusted=p, higher_is_better=self.higher[name])  # fmt: skip
            verdict = _verdict(shown, 1 - self.confidence, self.threshold)
            to_go = 0
            sd = float(d.std(ddof=1)) if d.size > 1 else math.nan
            if verdict == "inconclusive":
                gap = band - abs(centre) if abs(centre) < band else abs(centre) - band
                known = gap > 0 and math.isfinite(sd)
                to_go = max(1, rounds_needed(sd, gap, self.confidence, limit=_FAR) - d.size) if known else _FAR
            state[name] = (shown.low, shown.high, verdict, to_go, sd)
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


def _check_threshold(threshold) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold):
        raise TypeError(f"threshold={threshold!r}: expected a relative change such as 0.05 for 5%")
    if not 0 <= threshold < 1:
        raise ValueError(f"threshold={threshold!r}: expected a relative change in [0, 1), such as 0.05 for 5%")
    return float(threshold)


def _experiment(commands: dict, settings: dict) -> dict:
    return {"schema": "perfstudy.run/1", "commands": commands, "settings": settings}


def _existing(path: Path, commands: dict) -> tuple[list[dict], dict]:
    """The rows of a run's file to resume, and its experiment record; refuses another experiment's file.

    A last line cut short by a kill is dropped (and cut from the file when the run appends)."""
    import pandas as pd

    if not path.is_file():
        raise FileNotFoundError(f"resume: {path}: no such file to resume; run without --resume to start it")
    record = _checked_record(path)
    _check_commands(path, record, commands)
    _cut_partial_line(path)
    try:
        frame = pd.read_csv(path) if path.stat().st_size else pd.DataFrame(columns=list(COLUMNS))
    except (ValueError, pd.errors.ParserError) as error:
        raise ValueError(f"resume: {path}: not a run's CSV file ({' '.join(str(error).split())})") from None
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"resume: {path} lacks the columns {missing}; is it a perfstudy run's file?")
    status, values, rounds = _numbers(frame["exit_status"]), _numbers(frame["value"]), _numbers(frame["round"])
    versions = np.asarray(frame["version"].isin(NAMES), dtype=bool)
    bad = ((status == 0) & ~np.isfinite(values)) | np.isnan(rounds) | np.isnan(status) | ~versions
    if bad.any():
        line = int(np.flatnonzero(bad)[0]) + 2
        raise ValueError(
            f"resume: {path}: {int(bad.sum())} row(s) with a missing or non-numeric value, round, exit status or "
            f"version (first on line {line}); a perfstudy run writes none, so the file was edited"
        )
    frame = frame.assign(value=values, round=rounds.astype(int), exit_status=status.astype(int))
    rows = frame.astype(object).where(frame.notna(), None).to_dict("records")
    return rows, record


def _check_commands(path: Path, record: dict, commands: dict) -> None:
    theirs = record["commands"]
    different = [
        f"{name}: {theirs.get(name)!r} there, {command!r} here" for name, command in commands.items()
        if theirs.get(name) != command
    ]  # fmt: skip
    if different:
        raise ValueError(f"resume: {path} is another experiment's file (other commands: {'; '.join(different)})")


def _checked_record(path: Path, what: str = "resume") -> dict:
    """The experiment record beside ``path``, refused by name where it is not one that ``run`` wrote."""
    where = f"{what}: {path}.json" if what == "resume" else f"{path}.json"
    try:
        record = read_experiment(path)
    except OSError:
        raise FileNotFoundError(f"{where}: missing; is {path} a perfstudy run's file?") from None
    except ValueError as error:
        raise ValueError(f"{where}: not JSON ({error}); is {path} a perfstudy run's file?") from None
    if not isinstance(record, dict) or not str(record.get("schema", "")).startswith("perfstudy.run/"):
        raise ValueError(f"{where}: not a perfstudy run's record (no schema perfstudy.run/1)")
    commands, settings = record.get("commands"), record.get("settings")
    if not (isinstance(commands, dict) and set(commands) == set(NAMES) and all(isinstance(c, str) for c in
                                                                                commands.values())):  # fmt: skip
        raise ValueError(f"{where}: its commands should map A and B to command lines, found {commands!r}")
    if not isinstance(settings, dict):
        raise ValueError(f"{where}: its settings should be a mapping, found {settings!r}")
    return record


def _cut_partial_line(path: Path) -> None:
    """Drop a last line that a kill cut short (everything after the last newline)."""
    size = path.stat().st_size
    if not size:
        return
    with open(path, "rb+") as handle:
        handle.seek(max(0, size - 1))
        if handle.read(1) == b"\n":
            return
        handle.seek(0)
        data = handle.read()
        handle.truncate(data.rfind(b"\n") + 1)


class _Writer:
    """Appends each batch's rows as one write, flushed at once."""

    def __init__(self, path: Path | None, fresh: bool):
        self.handle = None
        if path is not None:
            self.handle = open(path, "w" if fresh else "a", encoding="utf-8", newline="")
            if fresh:
                self.handle.write(",".join(COLUMNS) + "\n")
                self.handle.flush()

    def write(self, rows) -> None:
        if self.handle is None:
            return
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        for row in rows:
            writer.writerow(["" if row.get(c) is None else row.get(c) for c in COLUMNS])
        self.handle.write(buffer.getvalue())
        self.handle.flush()

    def close(self):
        if self.handle is not None:
            self.handle.close()


def _write_record(path: Path | None, record: dict) -> None:
    if path is None:
        return
    temporary = Path(f"{path}.json.tmp")
    temporary.write_text(json.dumps(record, indent=1, default=str), encoding="utf-8")
    os.replace(temporary, f"{path}.json")


def _order(seed: int, round_number: int) -> list[int]:
    """The versions' order in a round: a permutation drawn from ``(seed, round)`` (the same on resume)."""
    return list(np.random.default_rng([seed, round_number]).permutation(len(NAMES)))


#: rounds beyond which the progress bar does not guess how many are still needed
_FAR = 10_000
#: the experiment's settings: a resumed run keeps the record's, and refuses a different one by name
SETTINGS = ("threshold", "confidence", "values", "warmup", "measure", "name", "shell", "timeout")
#: the budgets: a resumed run may extend them (a confidence sequence may be looked at again after any round)
BUDGETS = ("min_rounds", "max_rounds", "max_time")
#: their defaults
DEFAULTS = MappingProxyType(dict(
    threshold=0.05, confidence=0.95, values=3, warmup=1, measure="time", name="command", shell=True, timeout=None,
    min_rounds=5, max_rounds=100, max_time=None,
))  # fmt: skip
#: the spread of a round's log-ratio B/A beyond which the run suggests longer batches or a robust statistic
NOISY_ROUNDS = 0.10
#: rounds of estimates over which "rounds still needed" is smoothed (their median)
_SMOOTHING = 5


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


def run(
    a,
    b,
    *,
    name: str | None = None,
    threshold: float | None = None,
    confidence: float | None = None,
    values: int | None = None,
    warmup: int | None = None,
    min_rounds: int | None = None,
    max_rounds: int | None = None,
    max_time=None,
    out=None,
    resume: bool = False,
    seed: int | None = None,
    measure: str | None = None,
    shell: bool | None = None,
    scheduler: str | None = None,
    ignore_failures: bool = False,
    timeout=None,
    progress: bool = True,
) -> RunResult:
    """Run versions A and B in randomised interleaved rounds until every benchmark is decided.

    Parameters
    ----------
    a, b : str, sequence of str or callable
        Version A (the baseline) and B: a command line (run through ``/bin/sh -c``, as in a terminal,
        unless ``shell=False``), an argument list (run directly), or a Python callable (timed in this
        process, or on a Dask worker).
    name : str, optional
        The benchmark's name with ``measure="time"`` (default ``"command"``).
    threshold : float, optional
        The smallest relative change that matters (default 0.05 for 5%): an interval inside
        ``+-threshold`` is "no change". With 0, only a change can be decided, and an A/A run goes to the
        budget.
    confidence : float, optional
        The confidence sequence's coverage, at every round at once (default 0.95).
    values : int, optional
        Measured runs of a command per batch (default 3).
    warmup : int, optional
        Runs before them in each batch, recorded as ``warmup`` and left out of the comparison (default 1).
    min_rounds, max_rounds : int, optional
        The rounds before the first verdict may stop the run (default 5), and the budget (default 100).
    max_time : str or Timedelta, optional
        Another budget: no round starts once it is spent (``"10m"``; a bare number is refused).
    out : str or path, optional
        The run's file (CSV, :data:`COLUMNS`); ``out + ".json"`` holds the experiment record.
    resume : bool
        Continue the run in ``out``: the same commands, the record's seed and :data:`SETTINGS` (a setting
        given here that differs from the record's is refused, naming both), its budgets unless given here
        (:data:`BUDGETS` may be extended: the confidence sequence stays valid however often it is looked
        at). A run the record calls decided is returned as it is, without another round.
    seed : int, optional
        Draws each round's order (recorded; random if None).
    measure : str, optional
        ``"time"`` (the command's wall-clock time, the default) or a format of :mod:`perfstudy.io` that
        the command prints (``"go"`` for ``go test -bench``, ``"pyperf"`` for pyperf JSON on stdout, ...).
    shell : bool, optional
        Run command lines through ``/bin/sh -c`` (default True, as hyperfine does), and subtract the
        shell's start-up (:func:`perfstudy.experiment.batches.shell_startup`, measured once and recorded) from every
        time. With False a line runs directly, and a line with shell syntax in it is refused.
    scheduler : str, optional
        A Dask scheduler address, or ``"local:N"`` for a LocalCluster of ``N`` worker processes: rounds
        go to workers, each worker a host (needs ``dask[distributed]``).
    ignore_failures : bool
        Record a failing batch and go on, instead of stopping.
    timeout : str or Timedelta, optional
        How long one run of a command may take (``"30s"``): its whole process group is then killed and
        the batch fails with exit status 124.
    progress : bool
        A progress bar: rounds, the current interval per benchmark, the rounds still needed.

    Returns
    -------
    RunResult

    Raises
    ------
    ValueError, TypeError, FileNotFoundError, ConnectionError
        Before anything runs and before ``out`` is touched: an empty command or one not found, shell
        syntax with ``shell=False``, a negative threshold, ``max_rounds < min_rounds``, a ``resume`` file
        from another experiment (naming the commands) or with other settings (naming them), an unreachable
        scheduler (with its address and timeout).

    Warns
    -----
    NoisyMachineWarning
        Before the first round, when the machine is loaded or its governor scales (and again in
        :attr:`RunResult.environment`); once per benchmark when its rounds' log-ratios spread by more than
        :data:`NOISY_ROUNDS`.
    """
    given = dict(threshold=threshold, confidence=confidence, values=values, warmup=warmup, measure=measure,
                 name=name, shell=shell, timeout=timeout, min_rounds=min_rounds, max_rounds=max_rounds,
                 max_time=max_time)  # fmt: skip
    resume = check_bool("resume", resume)
    ignore_failures = check_bool("ignore_failures", ignore_failures)
    progress = check_bool("progress", progress)
    path = _checked_out(out, resume)
    record: dict = _checked_record(path) if resume and path is not None and path.is_file() else {}
    stored = dict(record.get("settings", {}))
    shell = check_bool("shell", shell) if shell is not None else stored.get("shell", DEFAULTS["shell"]) is not False
    commands = {NAMES[0]: command_argv(a, "a", shell=shell), NAMES[1]: command_argv(b, "b", shell=shell)}
    texts = {version: command_text(command) for version, command in commands.items()}
    if record:
        _check_commands(path, record, texts)  # type: ignore[arg-type]
    settings = _checked_settings(
        {key: value for key, value in given.items() if value is not None}, stored, resume=bool(record), path=path
    )
    rows, record = _existing(path, texts) if resume else ([], {})  # type: ignore[arg-type]
    if record and seed is not None and record.get("seed") is not None and seed != record["seed"]:
        raise ValueError(f"resume: seed={seed} here, {record['seed']} in {path}.json; drop seed to continue the run")
    seed = record.get("seed", seed)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**32))  # type: ignore[operator]
    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    if record.get("stopped") == "decided":  # already decided: nothing is run
        return _result(rows, "decided", int(record.get("rounds") or 0), path, "", dict(record.get("environment", {})),
                       settings, new_rounds=0)  # fmt: skip
    hosts = _Hosts.connect(scheduler) if scheduler is not None else None  # refuses an unreachable one, before the file
    environment = dict(record.get("environment", {})) or _environment()
    if record:  # the machine now, warned about before the first round of this session too
        environment["warnings"] = _machine_warnings()
    startup = record.get("shell_startup")
    if startup is None:
        shelled = settings["measure"] == "time" and any(_shelled(c) for c in commands.values())
        startup = _shell_startup() if shelled else 0.0
    record = _experiment(texts, settings) | {"seed": seed, "environment": environment, "shell_startup": startup,
                                             "stopped": None, "rounds": record.get("rounds")}  # fmt: skip
    writer = _Writer(path, fresh=not resume)
    _write_record(path, record)
    judge = _Judge(settings["threshold"], settings["confidence"])
    completed = judge.add_rows(rows)
    already = len(completed)
    budget = None if settings["max_time"] is None else float(settings["max_time"])
    bar = _bar(progress, settings["max_rounds"], len(completed))
    batches = dict(commands=commands, benchmark=settings["name"], values=settings["values"],
                   warmup=settings["warmup"], measure=settings["measure"], timeout=settings["timeout"], seed=seed,
                   startup=startup)  # fmt: skip
    try:
        stopped, failure, signum = _loop(
            hosts.rounds if hosts is not None else _local_rounds, batches, texts=texts, rows=rows, writer=writer,
            judge=judge, completed=completed, bar=bar, budget=budget, ignore_failures=ignore_failures,
            min_rounds=settings["min_rounds"], max_rounds=settings["max_rounds"],
        )  # fmt: skip
    except BaseException as error:  # the runner itself broke (a full disk...): the record says so, not null
        record.update(stopped="failed", rounds=len(completed), error=f"{type(error).__name__}: {error}")
        _write_record(path, record)
        raise
    finally:
        writer.close()
        if bar is not None:
            bar.close()
        if hosts is not None:
            hosts.close()
    record["stopped"] = stopped
    record["rounds"] = len(completed)
    if signum is not None:
        record["signal"] = signal.Signals(signum).name
    _write_record(path, record)
    return _result(rows, stopped, len(completed), path, failure, environment, settings,
                   new_rounds=len(completed) - already, signum=signum)  # fmt: skip


def _shelled(command) -> bool:
    from perfstudy.experiment.batches import SHELL

    return isinstance(command, tuple) and len(command) == 3 and command[:2] == (SHELL, "-c")


def _shell_startup() -> float:
    from perfstudy.experiment.batches import shell_startup

    return shell_startup()


def _checked_settings(given: dict, stored: dict, *, resume: bool, path) -> dict[str, Any]:
    """The experiment's settings (the record's ``settings``), checked: the given ones over the defaults, or
    on resume the record's, with a given setting that differs from the record's refused by name."""
    checked = _check_each(given)
    if resume:
        try:
            previous = _check_each({key: value for key, value in stored.items() if key in DEFAULTS}, stored=True)
        except (TypeError, ValueError) as error:
            raise ValueError(f"resume: {path}.json: its settings are not a run's ({error})") from None
        different = [
            f"{key}={_shown(key, checked[key])} here, {_shown(key, previous.get(key, DEFAULTS[key]))} in the record"
            for key in SETTINGS if key in checked and checked[key] != previous.get(key, DEFAULTS[key])
        ]  # fmt: skip
        if different:
            raise ValueError(
                f"resume: {path} is the same commands with other settings ({'; '.join(different)}); a resumed run "
                "keeps its settings: drop these options to continue it, or start a new run in another file"
            )
        checked = {**DEFAULTS, **previous, **{k: v for k, v in checked.items() if k in BUDGETS}}
    else:
        checked = {**DEFAULTS, **checked}
    if checked["max_rounds"] < checked["min_rounds"]:
        raise ValueError(f"max_rounds={checked['max_rounds']} is below min_rounds={checked['min_rounds']}")
    return checked


def _shown(key: str, value) -> str:
    if key == "threshold":
        return f"{100 * value:g}%"
    if key in ("timeout", "max_time") and value is not None:
        return f"{value:g}s"
    return repr(value)


def _check_each(settings: dict, stored: bool = False) -> dict[str, Any]:
    """Each setting checked; durations as seconds (``stored``: a record's, already seconds)."""
    from perfstudy._lib.checks import check_duration

    checks = dict(
        threshold=_check_threshold,
        confidence=lambda v: check_fraction("confidence", v),
        values=lambda v: check_int("values", v, minimum=1, maximum=1_000_000),
        warmup=lambda v: check_int("warmup", v, minimum=0, maximum=1_000_000),
        min_rounds=lambda v: check_int("min_rounds", v, minimum=2, maximum=10_000_000),
        max_rounds=lambda v: check_int("max_rounds", v, minimum=2, maximum=10_000_000),
        measure=lambda v: check_choice("measure", v, MEASURES),
        name=lambda v: _check_name(v),
        shell=lambda v: check_bool("shell", v),
        timeout=lambda v: _seconds("timeout", v, check_duration, stored),
        max_time=lambda v: _seconds("max_time", v, check_duration, stored),
    )
    return {key: checks[key](value) for key, value in settings.items()}


def _seconds(name: str, value, check_duration, stored: bool) -> float | None:
    """A duration in seconds: a string or Timedelta as :func:`check_duration` reads it (a bare number is
    refused), or the seconds a record stores."""
    if value is None:
        return None
    if stored:
        return check_real(f"the record's {name}", value, positive=True)
    return float(check_duration(name, value).total_seconds())


def _check_name(name) -> str:
    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"name={name!r}: expected the benchmark's name, a non-empty string")
    return name


def _checked_out(out, resume: bool) -> Path | None:
    """The run's file: refuses to overwrite one without ``resume``, and a directory that is not there."""
    if out is not None and not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"out={out!r}: expected a file path")
    path = None if out is None else Path(out)
    if resume and path is None:
        raise ValueError("resume=True: give out=, the file to resume")
    if path is not None and path.is_dir():
        raise IsADirectoryError(f"out: {path} is a directory; give the run's file, e.g. {path / 'runs.csv'}")
    if path is not None and not resume and path.exists() and path.stat().st_size:
        raise FileExistsError(f"out: {path} exists; resume it (--resume) or choose another file")
    if path is not None and not path.parent.is_dir():
        raise FileNotFoundError(f"out: {path.parent}: no such directory")
    if resume and path is not None and not path.is_file():
        raise FileNotFoundError(f"resume: {path}: no such file to resume; run without --resume to start it")
    return path


def _machine_warnings(environment: dict | None = None) -> list:
    """The warnings of a machine record (this machine's now by default), issued as :class:`NoisyMachineWarning`."""
    from perfstudy.experiment.environment import NoisyMachineWarning, machine, machine_warnings

    found = list(machine_warnings(machine() if environment is None else environment))
    for text in found:
        warnings.warn(text, NoisyMachineWarning, stacklevel=4)
    return found


def _environment() -> dict:
    """The machine's record with its warnings, which are also issued (:class:`NoisyMachineWarning`)."""
    from perfstudy.experiment.environment import machine

    environment = machine()
    environment["warnings"] = _machine_warnings(environment)
    return environment


def _loop(driver, batches: dict, *, texts, rows, writer, judge, completed, bar, budget, ignore_failures, min_rounds,
          max_rounds) -> tuple[str, str, int | None]:  # fmt: skip
    """Run rounds until the rule decides or a budget is spent: ``(stopped, failure, signal)``; rows go to
    ``writer`` and ``rows`` as each batch ends, completed rounds to ``judge`` and ``completed``."""
    started = time.monotonic()
    next_round = 1 + max((int(row["round"]) for row in rows), default=-1)
    with _Stop() as stop:
        try:
            return _rounds(driver, batches, stop, texts=texts, rows=rows, writer=writer, judge=judge,
                           completed=completed, bar=bar, budget=budget, ignore_failures=ignore_failures,
                           min_rounds=min_rounds, max_rounds=max_rounds, started=started,
                           next_round=next_round)  # fmt: skip
        except KeyboardInterrupt:  # a second Ctrl-C with nothing of ours to kill (a callable, Dask workers)
            return "interrupted", "", stop.signal if stop.signal is not None else int(signal.SIGINT)


def _rounds(driver, batches: dict, stop, *, texts, rows, writer, judge, completed, bar, budget, ignore_failures,
            min_rounds, max_rounds, started, next_round) -> tuple[str, str, int | None]:  # fmt: skip
    """The rounds of :func:`_loop`, under its signal handlers."""
    history: dict[str, list[int]] = {}
    hinted: set = set()
    ran = 0

    def should_stop(within: bool = False) -> bool:
        spent = budget is not None and time.monotonic() - started > budget
        return stop.requested or (not within and spent)

    for finished, result in driver(**batches, first=next_round, wanted=max_rounds - len(completed),
                                   should_stop=should_stop):  # fmt: skip
        if result is not None:  # a batch ended
            for row in result.rows:
                row["command"] = texts[row["version"]]
            writer.write(result.rows)
            rows.extend(result.rows)
            if stop.requested and result.status != 0:  # ended by a second interrupt
                return "interrupted", "", stop.signal
            if result.status != 0 and not ignore_failures:
                version = result.rows[0]["version"]
                return (
                    "failed",
                    f"version {version} exited with status {result.status}: {result.stderr.strip()}",
                    None,
                )
            continue
        # a round ended: ``finished`` is {version: rows}
        ran += 1
        if all(r["exit_status"] == 0 for side in finished.values() for r in side):
            judge.add_round(finished[NAMES[0]], finished[NAMES[1]])
            completed.append(finished[NAMES[0]][0]["round"])
        state = judge.state()
        for key in sorted(judge.unjudged - hinted):
            hinted.add(key)
            _zero_hint(key, batches.get("startup", 0.0))
        for key, (_low, _high, verdict, to_go, sd) in state.items():
            if verdict == "inconclusive" and 0 < to_go < _FAR:
                history.setdefault(key, []).append(len(completed) + to_go)
            if len(completed) >= min_rounds and key not in hinted and sd > NOISY_ROUNDS:
                hinted.add(key)
                _hint(key, sd)
        if bar is not None:
            left = _rounds_left(max_rounds - len(completed), budget, started, ran)
            bar.total = len(completed) + left
            bar.update(1)
            bar.set_postfix_str(_describe(state, history, rounds=len(completed), min_rounds=min_rounds,
                                          left=left), refresh=True)  # fmt: skip
        if len(completed) >= min_rounds and state and all(v[2] != "inconclusive" for v in state.values()):
            return "decided", "", None
        if len(completed) >= max_rounds:
            return "max-rounds", "", None
    if stop.requested:
        return "interrupted", "", stop.signal
    if budget is not None and time.monotonic() - started > budget:
        return "max-time", "", None
    return "max-rounds", "", None


def _rounds_left(by_rounds: int, budget, started: float, ran: int) -> int:
    """The rounds the budgets still allow: ``max_rounds`` or, where it binds, what ``max_time`` leaves at
    the pace so far."""
    if budget is None or ran == 0:
        return by_rounds
    pace = (time.monotonic() - started) / ran
    by_time = max(0, math.ceil((budget - (time.monotonic() - started)) / pace)) if pace > 0 else by_rounds
    return min(by_rounds, by_time)


def _zero_hint(name: str, startup: float) -> None:
    from perfstudy.experiment.environment import NoisyMachineWarning

    why = (
        f"at or below the shell's start-up ({1e3 * startup:.2f} ms), which is subtracted: the command is too short to "
        "time through a shell; run it with --no-shell (-N, shell=False) or loop it inside the command"
        if startup > 0
        else "0: there is no ratio B/A to judge"
    )
    warnings.warn(
        f"{name}: a round's mean time was {why}; such rounds are left out of the stopping rule",
        NoisyMachineWarning,
        stacklevel=4,
    )


def _hint(name: str, sd: float) -> None:
    from perfstudy.experiment.environment import NoisyMachineWarning

    warnings.warn(
        f"{name}: the rounds' change B/A spreads by {100 * sd:.0f}% (SD of the log-ratio), which costs many rounds: "
        "longer batches (more values) or a quieter machine would decide sooner",
        NoisyMachineWarning,
        stacklevel=4,
    )


def _result(rows, stopped, rounds, path, failure, environment, settings, *, new_rounds, signum=None) -> RunResult:
    import pandas as pd

    from perfstudy.comparison._compare import compare

    frame = pd.DataFrame(rows, columns=list(COLUMNS)) if rows else pd.DataFrame(columns=list(COLUMNS))
    ok = frame[frame["exit_status"].astype(float) == 0] if len(frame) else frame
    comparison = None
    if rounds >= 1 and len(ok):
        usable = ok.assign(value=ok["value"].astype(float))
        comparison = compare(
            usable, by="version", baseline=NAMES[0], cluster="batch", block="round", sequential=True,
            threshold=settings["threshold"], confidence=settings["confidence"], rng=0,
        )  # fmt: skip
    return RunResult(
        frame=frame, comparison=comparison, rounds=rounds, stopped=stopped, path=None if path is None else str(path),
        failure=failure, environment=MappingProxyType(environment), new_rounds=new_rounds, signal=signum,
        settings=MappingProxyType(dict(settings)),
    )  # fmt: skip


def _bar(progress: bool, total: int, done: int):
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=done, desc="rounds", unit="round", dynamic_ncols=True)


def _local_rounds(*, commands, benchmark, values, warmup, measure, timeout, seed, startup, first, wanted,
                  should_stop):  # fmt: skip
    """Rounds on this machine, one after the other: yields ``(None, BatchResult)`` after each batch and
    ``({version: rows}, None)`` after each round."""
    for round_number in range(first, first + wanted):
        if should_stop():
            return
        finished = {}
        for position, index in enumerate(_order(seed, round_number)):
            version = NAMES[index]
            result = run_batch(_batch(commands, version, round_number, position, benchmark, values, warmup,
                                      measure, timeout, startup))  # fmt: skip
            yield None, result
            finished[version] = list(result.rows)
            if should_stop(within=True) and position < len(NAMES) - 1:
                return
        yield finished, None


def _batch(commands, version, round_number, position, benchmark, values, warmup, measure, timeout, startup) -> Batch:
    return Batch(
        version=version, command=commands[version], round=round_number, position=position, values=values,
        warmup=warmup, measure=measure, benchmark=benchmark, timeout=timeout,
        startup=startup if not callable(commands[version]) else 0.0,
    )  # fmt: skip


class _Hosts:
    """Rounds on Dask workers, each worker a host running one round at a time (its batches in the round's
    order, each batch a task pinned to the worker)."""

    #: seconds to wait for a scheduler to answer
    TIMEOUT = 10.0

    def __init__(self, client, cluster=None):
        self.client, self.cluster = client, cluster

    @classmethod
    def connect(cls, address: str) -> _Hosts:
        if not isinstance(address, str) or not address.strip():
            raise ValueError(f"scheduler={address!r}: expected a Dask scheduler address or 'local:N'")
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ImportError("scheduler: needs Dask (pip install 'perfstudy[dask]')") from None
        if address.startswith("local:"):
            count = address.split(":", 1)[1]
            if not count.isdigit() or int(count) < 1:
                raise ValueError(f"scheduler={address!r}: expected local:N with N workers, e.g. local:2")
            cluster = LocalCluster(n_workers=int(count), threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=40)  # fmt: skip  # pyright: ignore[reportArgumentType]
            return cls(Client(cluster), cluster)
        try:
            client = Client(address, timeout=cls.TIMEOUT)
        except (OSError, TimeoutError) as error:
            raise ConnectionError(
                f"scheduler={address!r}: no Dask scheduler answered within {cls.TIMEOUT:g} s ({error})"
            ) from None
        return cls(client)

    def close(self):
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def rounds(self, *, commands, benchmark, values, warmup, measure, timeout, seed, startup, first, wanted,
               should_stop):  # fmt: skip
        from distributed import as_completed

        workers = sorted(self.client.scheduler_info()["workers"])
        pending = as_completed()
        next_round = first
        state = {}  # future -> (worker, round, position, order, finished rows)

        def submit(worker, round_number, position, order, finished):
            version = NAMES[order[position]]
            batch = _batch(commands, version, round_number, position, benchmark, values, warmup, measure,
                           timeout, startup)  # fmt: skip
            future = self.client.submit(run_batch, batch, workers=[worker], allow_other_workers=False, pure=False)
            state[future] = (worker, round_number, position, order, finished)
            pending.add(future)

        started = 0
        for worker in workers:
            if started < wanted and not should_stop():
                submit(worker, next_round, 0, _order(seed, next_round), {})
                next_round, started = next_round + 1, started + 1
        for future in pending:
            worker, round_number, position, order, finished = state.pop(future)
            result = future.result()
            yield None, result
            finished[NAMES[order[position]]] = list(result.rows)
            if position + 1 < len(NAMES) and result.status == 0:
                submit(worker, round_number, position + 1, order, finished)
                continue
            if len(finished) == len(NAMES):
                yield finished, None
            if started < wanted and not should_stop():
                submit(worker, next_round, 0, _order(seed, next_round), {})
                next_round, started = next_round + 1, started + 1
