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

import math
import os
import signal
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from perfstudy._lib.checks import check_bool, check_choice, check_fraction, check_int, check_real, check_threshold
from perfstudy._lib.result import Result

if TYPE_CHECKING:
    import pandas as pd

    from perfstudy.comparison import Comparison
from perfstudy.experiment._files import (
    BUDGETS,
    COLUMNS,
    DEFAULTS,
    NAMES,
    SETTINGS,
    RunFile,
    _check_commands,
    _checked_record,
    _existing,
    _experiment,
    _write_record,
    _Writer,
    is_run_file,
    read_experiment,
    read_run,
)
from perfstudy.experiment._hosts import _Hosts
from perfstudy.experiment._judge import _FAR, _describe, _Judge, _Stop
from perfstudy.experiment.batches import MEASURES, Batch, Measure, command_argv, command_text, time_batch

__all__ = ["run", "RunResult", "RunFile", "STOPS", "COLUMNS", "read_experiment", "read_run", "is_run_file"]

#: why a run stopped
STOPS = ("decided", "max-rounds", "max-time", "interrupted", "failed")


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


def _order(seed: int, round_number: int) -> list[int]:
    """The versions' order in a round: a permutation drawn from ``(seed, round)`` (the same on resume)."""
    return list(np.random.default_rng([seed, round_number]).permutation(len(NAMES)))


#: the spread of a round's log-ratio B/A beyond which the run suggests longer batches or a robust statistic
NOISY_ROUNDS = 0.10


def run(
    a,
    b,
    *,
    name: str | None = None,
    threshold: float | str | None = None,
    confidence: float | None = None,
    values: int | None = None,
    warmup: int | None = None,
    min_rounds: int | None = None,
    max_rounds: int | None = None,
    max_time=None,
    out=None,
    resume: bool = False,
    seed: int | None = None,
    measure: Measure | None = None,
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
    given = dict(
        threshold=threshold,
        confidence=confidence,
        values=values,
        warmup=warmup,
        measure=measure,
        name=name,
        shell=shell,
        timeout=timeout,
        min_rounds=min_rounds,
        max_rounds=max_rounds,
        max_time=max_time,
    )
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
        return _result(
            rows,
            "decided",
            int(record.get("rounds") or 0),
            path,
            "",
            dict(record.get("environment", {})),
            settings,
            new_rounds=0,
        )
    hosts = _Hosts.connect(scheduler) if scheduler is not None else None  # refuses an unreachable one, before the file
    environment = dict(record.get("environment", {})) or _environment()
    if record:  # the machine now, warned about before the first round of this session too
        environment["warnings"] = _machine_warnings()
    startup = record.get("shell_startup")
    if startup is None:
        shelled = settings["measure"] == "time" and any(_shelled(c) for c in commands.values())
        startup = _shell_startup() if shelled else 0.0
    record = _experiment(texts, settings) | {
        "seed": seed,
        "environment": environment,
        "shell_startup": startup,
        "stopped": None,
        "rounds": record.get("rounds"),
    }
    writer = _Writer(path, fresh=not resume)
    _write_record(path, record)
    judge = _Judge(settings["threshold"], settings["confidence"])
    completed = judge.add_rows(rows)
    already = len(completed)
    budget = None if settings["max_time"] is None else float(settings["max_time"])
    bar = _bar(progress, settings["max_rounds"], len(completed))
    batches = dict(
        commands=commands,
        benchmark=settings["name"],
        values=settings["values"],
        warmup=settings["warmup"],
        measure=settings["measure"],
        timeout=settings["timeout"],
        seed=seed,
        startup=startup,
    )
    try:
        stopped, failure, signum = _loop(
            hosts.rounds if hosts is not None else _local_rounds,
            batches,
            texts=texts,
            rows=rows,
            writer=writer,
            judge=judge,
            completed=completed,
            bar=bar,
            budget=budget,
            ignore_failures=ignore_failures,
            min_rounds=settings["min_rounds"],
            max_rounds=settings["max_rounds"],
        )
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
    return _result(
        rows,
        stopped,
        len(completed),
        path,
        failure,
        environment,
        settings,
        new_rounds=len(completed) - already,
        signum=signum,
    )


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
            for key in SETTINGS
            if key in checked and checked[key] != previous.get(key, DEFAULTS[key])
        ]
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
        threshold=check_threshold,
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


def _loop(
    driver,
    batches: dict,
    *,
    texts,
    rows,
    writer,
    judge,
    completed,
    bar,
    budget,
    ignore_failures,
    min_rounds,
    max_rounds,
) -> tuple[str, str, int | None]:
    """Run rounds until the rule decides or a budget is spent: ``(stopped, failure, signal)``; rows go to
    ``writer`` and ``rows`` as each batch ends, completed rounds to ``judge`` and ``completed``."""
    started = time.monotonic()
    next_round = 1 + max((int(row["round"]) for row in rows), default=-1)
    with _Stop() as stop:
        try:
            return _rounds(
                driver,
                batches,
                stop,
                texts=texts,
                rows=rows,
                writer=writer,
                judge=judge,
                completed=completed,
                bar=bar,
                budget=budget,
                ignore_failures=ignore_failures,
                min_rounds=min_rounds,
                max_rounds=max_rounds,
                started=started,
                next_round=next_round,
            )
        except KeyboardInterrupt:  # a second Ctrl-C with nothing of ours to kill (a callable, Dask workers)
            return "interrupted", "", stop.signal if stop.signal is not None else int(signal.SIGINT)


def _rounds(
    driver,
    batches: dict,
    stop,
    *,
    texts,
    rows,
    writer,
    judge,
    completed,
    bar,
    budget,
    ignore_failures,
    min_rounds,
    max_rounds,
    started,
    next_round,
) -> tuple[str, str, int | None]:
    """The rounds of :func:`_loop`, under its signal handlers."""
    history: dict[str, list[int]] = {}
    hinted: set = set()
    ran = 0

    def should_stop(within: bool = False) -> bool:
        spent = budget is not None and time.monotonic() - started > budget
        return stop.requested or (not within and spent)

    for finished, result in driver(
        **batches, first=next_round, wanted=max_rounds - len(completed), should_stop=should_stop
    ):
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
            bar.set_postfix_str(
                _describe(state, history, rounds=len(completed), min_rounds=min_rounds, left=left), refresh=True
            )
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

    from perfstudy.comparison import compare

    frame = pd.DataFrame(rows, columns=list(COLUMNS)) if rows else pd.DataFrame(columns=list(COLUMNS))
    ok = frame[frame["exit_status"].astype(float) == 0] if len(frame) else frame
    comparison = None
    if rounds >= 1 and len(ok):
        usable = ok.assign(value=ok["value"].astype(float))
        comparison = compare(
            usable,
            by="version",
            baseline=NAMES[0],
            cluster="batch",
            block="round",
            sequential=True,
            threshold=settings["threshold"],
            confidence=settings["confidence"],
            rng=0,
        )
    return RunResult(
        frame=frame,
        comparison=comparison,
        rounds=rounds,
        stopped=stopped,
        path=None if path is None else str(path),
        failure=failure,
        environment=MappingProxyType(environment),
        new_rounds=new_rounds,
        signal=signum,
        settings=MappingProxyType(dict(settings)),
    )


def _bar(progress: bool, total: int, done: int):
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=done, desc="rounds", unit="round", dynamic_ncols=True)


def _local_rounds(*, commands, benchmark, values, warmup, measure, timeout, seed, startup, first, wanted, should_stop):
    """Rounds on this machine, one after the other: yields ``(None, BatchResult)`` after each batch and
    ``({version: rows}, None)`` after each round."""
    for round_number in range(first, first + wanted):
        if should_stop():
            return
        finished = {}
        for position, index in enumerate(_order(seed, round_number)):
            version = NAMES[index]
            result = time_batch(
                _batch(commands, version, round_number, position, benchmark, values, warmup, measure, timeout, startup)
            )
            yield None, result
            finished[version] = list(result.rows)
            if should_stop(within=True) and position < len(NAMES) - 1:
                return
        yield finished, None


def _batch(commands, version, round_number, position, benchmark, values, warmup, measure, timeout, startup) -> Batch:
    return Batch(
        version=version,
        command=commands[version],
        round=round_number,
        position=position,
        values=values,
        warmup=warmup,
        measure=measure,
        benchmark=benchmark,
        timeout=timeout,
        startup=startup if not callable(commands[version]) else 0.0,
    )
