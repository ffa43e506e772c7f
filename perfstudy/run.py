"""``perfstudy run``: run two versions interleaved and randomised, and stop when the answer is known.

Rounds are blocks (Abedi & Brecht, ICPE 2017, "randomised multiple interleaved trials"): every round
runs one batch of each version, in an order drawn afresh for the round from ``seed``, so that A and B of
a round meet the same platform state and a drift of the platform cancels in the round's ratio B/A.

After every round each benchmark is judged on the rounds so far by Lai's anytime-valid confidence
sequence for the mean log-ratio (:mod:`perfstudy.sequential`; Wang & Ramdas 2023): ``"no change"`` when
it lies inside ``+-threshold``, ``"faster"``/``"slower"`` when it lies beyond it and the anytime p-value
(Holm over the benchmarks) is below ``1 - confidence``, as :func:`perfstudy.compare.compare` decides.
Because the interval covers the truth at every round at once, looking after every round does not inflate
the error: the share of A/A runs that ever reach a verdict of change stays below ``1 - confidence``
(``perfstudy.studies.running.calibration``), where a fixed 95% t interval recomputed every round is wrong
in a third of them. The run stops when every benchmark is decided, else at ``max_rounds`` or
``max_time`` ("inconclusive").

Every batch is appended to ``out`` as soon as it ends (one ``write`` and a flush: a ``kill -9`` loses at
most the batch in flight), with its version, round, position in the round, host, start and end (Unix
seconds), exit status, the load average and a platform probe (:func:`perfstudy.environment.probe`);
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

from perfstudy._checks import check_bool, check_choice, check_fraction, check_int, check_real
from perfstudy._result import Result

if TYPE_CHECKING:
    import pandas as pd

    from perfstudy.compare import Comparison
from perfstudy.batches import MEASURES, Batch, command_argv, command_text, run_batch

__all__ = ["run", "RunResult", "STOPS", "COLUMNS", "read_experiment"]

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
        :func:`perfstudy.compare.compare` paired over the rounds with the anytime-valid interval
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
        :func:`perfstudy.environment.machine` at the start, and ``warnings``.
    """

    frame: pd.DataFrame
    comparison: Comparison | None
    rounds: int
    stopped: str
    path: str | None = None
    failure: str = ""
    environment: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))

    def to_frame(self):
        """The run's rows (a copy)."""
        return self.frame.copy()

    @property
    def exit_status(self) -> int:
        """The failed command's exit status, else 0."""
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


class _Judge:
    """The stopping rule after every round (module text), per benchmark, on the rounds in the order they ended."""

    def __init__(self, threshold: float, confidence: float):
        self.threshold, self.confidence = threshold, confidence
        self.d: dict[str, list[float]] = {}
        self.higher: dict[str, bool] = {}

    def add_round(self, rows_a: list[dict], rows_b: list[dict]) -> None:
        from perfstudy.units import higher_is_better

        for name in {r["benchmark"] for r in rows_a} & {r["benchmark"] for r in rows_b}:
            a = [r["value"] for r in rows_a if r["benchmark"] == name and not r["warmup"]]
            b = [r["value"] for r in rows_b if r["benchmark"] == name and not r["warmup"]]
            if a and b and np.mean(a) > 0 and np.mean(b) > 0:
                self.d.setdefault(name, []).append(math.log(np.mean(b) / np.mean(a)))
                unit = next((r.get("unit") for r in rows_a if r["benchmark"] == name), None)
                self.higher[name] = higher_is_better(unit)

    def state(self) -> dict:
        """``{benchmark: (low, high, verdict, rounds still needed)}`` on the relative scale."""
        from types import SimpleNamespace

        from perfstudy.compare import _verdict, adjust_p_values
        from perfstudy.sequential import rounds_needed, t_confidence_sequence

        names = sorted(self.d)
        if not names:
            return {}
        found = {}
        p_values = []
        for name in names:
            d = np.asarray(self.d[name])
            cs = t_confidence_sequence(d, self.confidence)
            found[name] = (float(cs.low[-1]), float(cs.high[-1]), float(cs.mean[-1]), d)
            p_values.append(float(cs.p_values[-1]))
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
            if verdict == "inconclusive":
                gap = band - abs(centre) if abs(centre) < band else abs(centre) - band
                sd = float(d.std(ddof=1)) if d.size > 1 else math.nan
                known = gap > 0 and math.isfinite(sd)
                to_go = max(1, rounds_needed(sd, gap, self.confidence, limit=_FAR) - d.size) if known else _FAR
            state[name] = (shown.low, shown.high, verdict, to_go)
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
    """Ctrl-C or SIGTERM: stop after the batch in flight (the handlers are installed in the main thread only)."""

    def __init__(self):
        self.requested = False
        self.previous = {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                self.previous[signum] = signal.signal(signum, self._handle)
        return self

    def _handle(self, signum, frame):
        self.requested = True

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
    try:
        record = read_experiment(path)
    except (OSError, ValueError):
        raise ValueError(f"resume: {path}.json: missing or unreadable; is {path} a perfstudy run's file?") from None
    theirs = record.get("commands", {})
    different = [
        f"{name}: {theirs.get(name)!r} there, {command!r} here" for name, command in commands.items()
        if theirs.get(name) != command
    ]  # fmt: skip
    if different:
        raise ValueError(f"resume: {path} is another experiment's file (other commands: {'; '.join(different)})")
    _cut_partial_line(path)
    frame = pd.read_csv(path) if path.stat().st_size else pd.DataFrame(columns=list(COLUMNS))
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"resume: {path} lacks the columns {missing}; is it a perfstudy run's file?")
    rows = frame.astype(object).where(frame.notna(), None).to_dict("records")
    return rows, record


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


def _describe(state: dict, limit: int = 3) -> str:
    parts = []
    for name, (low, high, verdict, to_go) in list(state.items())[:limit]:
        label = "" if len(state) == 1 else f"{name}: "
        interval = "[-inf, inf]" if not math.isfinite(high) else f"[{100 * low:+.1f}%, {100 * high:+.1f}%]"
        more = f" ~{to_go} more rounds" if 0 < to_go < _FAR else " more rounds than the spread so far can say"
        parts.append(f"{label}{interval} {verdict}{more if verdict == 'inconclusive' else ''}")
    if len(state) > limit:
        parts.append(f"{sum(v[2] != 'inconclusive' for v in state.values())}/{len(state)} decided")
    return "; ".join(parts)


def run(
    a,
    b,
    *,
    name: str | None = None,
    threshold: float = 0.05,
    confidence: float = 0.95,
    values: int = 3,
    warmup: int = 1,
    min_rounds: int = 5,
    max_rounds: int = 100,
    max_time=None,
    out=None,
    resume: bool = False,
    seed: int | None = None,
    measure: str = "time",
    scheduler: str | None = None,
    ignore_failures: bool = False,
    timeout: float | None = None,
    progress: bool = True,
) -> RunResult:
    """Run versions A and B in randomised interleaved rounds until every benchmark is decided.

    Parameters
    ----------
    a, b : str, sequence of str or callable
        Version A (the baseline) and B: a command line (split as a shell would, run without one), an
        argument list, or a Python callable (timed in this process, or on a Dask worker).
    name : str, optional
        The benchmark's name with ``measure="time"`` (default ``"command"``).
    threshold : float
        The smallest relative change that matters (0.05 for 5%): an interval inside ``+-threshold`` is
        "no change". With 0, only a change can be decided, and an A/A run goes to the budget.
    confidence : float
        The confidence sequence's coverage, at every round at once.
    values : int
        Measured runs of a command per batch.
    warmup : int
        Runs before them in each batch, recorded as ``warmup`` and left out of the comparison.
    min_rounds, max_rounds : int
        The rounds before the first verdict may stop the run, and the budget.
    max_time : str or Timedelta, optional
        Another budget: no round starts once it is spent (``"10m"``).
    out : str or path, optional
        The run's file (CSV, :data:`COLUMNS`); ``out + ".json"`` holds the experiment record.
    resume : bool
        Continue the run in ``out`` (same commands; its seed and settings).
    seed : int, optional
        Draws each round's order (recorded; random if None).
    measure : str
        ``"time"`` (the command's wall-clock time) or a format of :mod:`perfstudy.io` that the command
        prints (``"go"`` for ``go test -bench``, ``"pyperf"`` for pyperf JSON on stdout, ...).
    scheduler : str, optional
        A Dask scheduler address, or ``"local:N"`` for a LocalCluster of ``N`` worker processes: rounds
        go to workers, each worker a host (needs ``dask[distributed]``).
    ignore_failures : bool
        Record a failing batch and go on, instead of stopping.
    timeout : float, optional
        Seconds one run of a command may take (exit status 124 beyond).
    progress : bool
        A progress bar: rounds, the current interval per benchmark, the rounds still needed.

    Returns
    -------
    RunResult

    Raises
    ------
    ValueError, TypeError, FileNotFoundError, ConnectionError
        Before anything runs and before ``out`` is touched: an empty command or one not found, a negative
        threshold, ``max_rounds < min_rounds``, a ``resume`` file from another experiment (naming the
        commands), an unreachable scheduler (with its address and timeout).
    """
    commands = {NAMES[0]: command_argv(a, "a"), NAMES[1]: command_argv(b, "b")}
    texts = {version: command_text(command) for version, command in commands.items()}
    settings = _checked_settings(
        threshold=threshold, confidence=confidence, values=values, warmup=warmup, min_rounds=min_rounds,
        max_rounds=max_rounds, measure=measure, name=name,
    )  # fmt: skip
    budget = None
    if max_time is not None:
        from perfstudy._checks import check_duration

        budget = check_duration("max_time", max_time).total_seconds()
    resume = check_bool("resume", resume)
    ignore_failures = check_bool("ignore_failures", ignore_failures)
    progress = check_bool("progress", progress)
    if timeout is not None:
        timeout = check_real("timeout", timeout, positive=True)
    path = _checked_out(out, resume)
    rows, record = _existing(path, texts) if resume else ([], {})  # type: ignore[arg-type]
    seed = record.get("seed", seed)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**32))  # type: ignore[operator]
    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    hosts = _Hosts.connect(scheduler) if scheduler is not None else None  # refuses an unreachable one, before the file
    environment = dict(record.get("environment", {})) or _environment()
    record = _experiment(texts, settings) | {"seed": seed, "environment": environment, "stopped": None}
    writer = _Writer(path, fresh=not resume)
    _write_record(path, record)
    judge = _Judge(settings["threshold"], settings["confidence"])
    completed = judge.add_rows(rows)
    bar = _bar(progress, settings["max_rounds"], len(completed))
    batches = dict(commands=commands, benchmark=settings["name"], values=settings["values"],
                   warmup=settings["warmup"], measure=settings["measure"], timeout=timeout, seed=seed)  # fmt: skip
    try:
        stopped, failure = _loop(
            hosts.rounds if hosts is not None else _local_rounds, batches, texts=texts, rows=rows, writer=writer,
            judge=judge, completed=completed, bar=bar, budget=budget, ignore_failures=ignore_failures,
            min_rounds=settings["min_rounds"], max_rounds=settings["max_rounds"],
        )  # fmt: skip
    finally:
        writer.close()
        if bar is not None:
            bar.close()
        if hosts is not None:
            hosts.close()
    record["stopped"] = stopped
    record["rounds"] = len(completed)
    _write_record(path, record)
    return _result(rows, stopped, len(completed), path, failure, environment, settings["threshold"],
                   settings["confidence"])  # fmt: skip


def _checked_settings(
    *, threshold, confidence, values, warmup, min_rounds, max_rounds, measure, name
) -> dict[str, Any]:
    """The experiment's settings, checked (the record's ``settings``)."""
    settings: dict[str, Any] = dict(
        threshold=_check_threshold(threshold),
        confidence=check_fraction("confidence", confidence),
        values=check_int("values", values, minimum=1, maximum=1_000_000),
        warmup=check_int("warmup", warmup, minimum=0, maximum=1_000_000),
        min_rounds=check_int("min_rounds", min_rounds, minimum=2, maximum=10_000_000),
        max_rounds=check_int("max_rounds", max_rounds, minimum=2, maximum=10_000_000),
        measure=check_choice("measure", measure, MEASURES),
        name="command" if name is None else str(name),
    )
    if settings["max_rounds"] < settings["min_rounds"]:
        raise ValueError(f"max_rounds={settings['max_rounds']} is below min_rounds={settings['min_rounds']}")
    return settings


def _checked_out(out, resume: bool) -> Path | None:
    """The run's file: refuses to overwrite one without ``resume``, and a directory that is not there."""
    path = None if out is None else Path(out)
    if resume and path is None:
        raise ValueError("resume=True: give out=, the file to resume")
    if path is not None and not resume and path.exists() and path.stat().st_size:
        raise FileExistsError(f"out: {path} exists; resume it (--resume) or choose another file")
    if path is not None and not path.parent.is_dir():
        raise FileNotFoundError(f"out: {path.parent}: no such directory")
    return path


def _environment() -> dict:
    """The machine's record with its warnings, which are also issued (:class:`NoisyMachineWarning`)."""
    from perfstudy.environment import NoisyMachineWarning, machine, machine_warnings

    environment = machine()
    environment["warnings"] = machine_warnings(environment)
    for text in environment["warnings"]:
        warnings.warn(text, NoisyMachineWarning, stacklevel=3)
    return environment


def _loop(driver, batches: dict, *, texts, rows, writer, judge, completed, bar, budget, ignore_failures, min_rounds,
          max_rounds) -> tuple[str, str]:  # fmt: skip
    """Run rounds until the rule decides or a budget is spent: ``(stopped, failure)``; rows go to ``writer``
    and ``rows`` as each batch ends, completed rounds to ``judge`` and ``completed``."""
    started = time.monotonic()
    next_round = 1 + max((int(row["round"]) for row in rows), default=-1)
    with _Stop() as stop:

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
                if result.status != 0 and not ignore_failures:
                    version = result.rows[0]["version"]
                    return "failed", f"version {version} exited with status {result.status}: {result.stderr.strip()}"
                continue
            # a round ended: ``finished`` is {version: rows}
            if all(r["exit_status"] == 0 for side in finished.values() for r in side):
                judge.add_round(finished[NAMES[0]], finished[NAMES[1]])
                completed.append(finished[NAMES[0]][0]["round"])
            state = judge.state()
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(_describe(state), refresh=True)
            if len(completed) >= min_rounds and state and all(v[2] != "inconclusive" for v in state.values()):
                return "decided", ""
            if len(completed) >= max_rounds:
                return "max-rounds", ""
        if stop.requested:
            return "interrupted", ""
        if budget is not None and time.monotonic() - started > budget:
            return "max-time", ""
        return "max-rounds", ""


def _result(rows, stopped, rounds, path, failure, environment, threshold, confidence) -> RunResult:
    import pandas as pd

    from perfstudy.compare import compare

    frame = pd.DataFrame(rows, columns=list(COLUMNS)) if rows else pd.DataFrame(columns=list(COLUMNS))
    ok = frame[frame["exit_status"].astype(float) == 0] if len(frame) else frame
    comparison = None
    if rounds >= 1 and len(ok):
        usable = ok.assign(value=ok["value"].astype(float))
        comparison = compare(
            usable, by="version", baseline=NAMES[0], cluster="batch", block="round", sequential=True,
            threshold=threshold, confidence=confidence, rng=0,
        )  # fmt: skip
    return RunResult(
        frame=frame, comparison=comparison, rounds=rounds, stopped=stopped, path=None if path is None else str(path),
        failure=failure, environment=MappingProxyType(environment),
    )  # fmt: skip


def _bar(progress: bool, total: int, done: int):
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=done, desc="rounds", unit="round", dynamic_ncols=True)


def _local_rounds(*, commands, benchmark, values, warmup, measure, timeout, seed, first, wanted, should_stop):
    """Rounds on this machine, one after the other: yields ``(None, BatchResult)`` after each batch and
    ``({version: rows}, None)`` after each round."""
    for round_number in range(first, first + wanted):
        if should_stop():
            return
        finished = {}
        for position, index in enumerate(_order(seed, round_number)):
            version = NAMES[index]
            result = run_batch(_batch(commands, version, round_number, position, benchmark, values, warmup,
                                      measure, timeout))  # fmt: skip
            yield None, result
            finished[version] = list(result.rows)
            if should_stop(within=True) and position < len(NAMES) - 1:
                return
        yield finished, None


def _batch(commands, version, round_number, position, benchmark, values, warmup, measure, timeout) -> Batch:
    return Batch(
        version=version, command=commands[version], round=round_number, position=position, values=values,
        warmup=warmup, measure=measure, benchmark=benchmark, timeout=timeout,
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

    def rounds(self, *, commands, benchmark, values, warmup, measure, timeout, seed, first, wanted, should_stop):
        from distributed import as_completed

        workers = sorted(self.client.scheduler_info()["workers"])
        pending = as_completed()
        next_round = first
        state = {}  # future -> (worker, round, position, order, finished rows)

        def submit(worker, round_number, position, order, finished):
            version = NAMES[order[position]]
            batch = _batch(commands, version, round_number, position, benchmark, values, warmup, measure,
                           timeout)  # fmt: skip
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
