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

import functools
import math
import os
import signal
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from perfstudy._lib.checks import check_bool, check_int, said
from perfstudy._lib.result import Result
from perfstudy.comparison.running import RuleName

if TYPE_CHECKING:
    import pandas as pd

    from perfstudy.comparison import Comparison
from perfstudy.experiment._files import (
    COLUMNS,
    NAMES,
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
    run_pairing,
)
from perfstudy.experiment._hosts import _Hosts
from perfstudy.experiment._judge import _FAR, _describe, _Judge, _Stop
from perfstudy.experiment._rounds import _duet_rounds, _local_rounds
from perfstudy.experiment._too_short import _unmeasurable, _zero_hint
from perfstudy.experiment.batches import Batch, Measure
from perfstudy.experiment.commands import command_argv, command_text
from perfstudy.experiment.environment import NoisyMachineWarning
from perfstudy.experiment.settings import UNBOUNDED_ROUNDS, RunSettings, check_combination

__all__ = ["run", "RunResult", "RunFile", "STOPS", "COLUMNS", "read_experiment", "read_run", "is_run_file"]

#: why a run stopped
STOPS = ("decided", "max-rounds", "max-time", "interrupted", "failed")


@dataclass(frozen=True)
class RunResult(Result):
    """A finished run: its rows, the stopping rule's verdicts, the paired comparison and why it stopped.

    Attributes
    ----------
    rows : tuple of dict
        Every row of the run's file (:data:`COLUMNS`), failed batches included.
    verdicts : tuple of dict
        The stopping rule's last state, one row per benchmark: ``benchmark``, ``unit``, ``a`` and ``b`` (each
        version's statistic over all its values), ``change`` (the rule's centre: the median or mean round's
        B/A - 1), ``low``, ``high``, ``p_value`` (anytime-valid, Holm over the benchmarks), ``verdict``,
        ``rounds`` and ``sd`` (of the rounds' log-ratios); and ``n_a``, ``n_b`` (values), ``spread_a``,
        ``spread_b`` (the SD of the rounds' statistics over the version's statistic), ``p_unadjusted`` and
        ``higher_is_better``. What the command line prints, as a table or JSON; computed without pandas.
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
        The signal (SIGINT, SIGTERM) that interrupted the run, or that came as its last round ended (then
        ``stopped`` says how the run ended, and the run is whole), if one did.
    settings : mapping
        The experiment's settings as run (:data:`perfstudy.experiment.settings.SETTINGS` and :data:`~perfstudy.experiment.settings.BUDGETS`, durations in seconds).
    cleanup : str
        How ``cleanup`` failed (its version, exit status or time-out, and standard error's tail), "" if it
        did not or none was given. The verdicts stand; what cleanup should have undone may not be.
    """

    rows: tuple
    verdicts: tuple
    rounds: int
    stopped: str
    path: str | None = None
    failure: str = ""
    environment: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    new_rounds: int = 0
    signal: int | None = None
    settings: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    cleanup: str = ""

    @functools.cached_property
    def frame(self) -> pd.DataFrame:
        """Every row of the run's file as a DataFrame (:data:`COLUMNS`), failed batches included."""
        import pandas as pd

        return (
            pd.DataFrame(list(self.rows), columns=list(COLUMNS)) if self.rows else pd.DataFrame(columns=list(COLUMNS))
        )

    @functools.cached_property
    def comparison(self) -> Comparison | None:
        """:func:`perfstudy.comparison._compare.compare` paired over the rounds with the run's own statistic and
        anytime-valid rule (``block="round", sequential=rule``), on the batches that ran; None when no round
        completed or no benchmark ran in both versions. Its verdicts are the stopping rule's (:attr:`verdicts`)."""
        from perfstudy.comparison import compare

        frame = self.frame
        ok = frame[frame["exit_status"].astype(float) == 0] if len(frame) else frame
        if self.rounds < 1 or not len(ok):
            return None
        found = [set(ok.loc[ok["version"] == version, "benchmark"]) for version in NAMES]
        if not found[0] & found[1]:  # no benchmark in both: nothing to compare (the run said why it stopped)
            return None
        usable = ok.assign(value=ok["value"].astype(float))
        return compare(
            usable, by="version", cluster="batch", threshold=self.settings["threshold"], **run_pairing(self.settings)
        )

    def to_frame(self):
        """The run's rows (a copy)."""
        return self.frame.copy()

    @property
    def exit_status(self) -> int:
        """What the command line exits with before any regression gate: ``128 + signal`` for an
        interrupted run (130 after SIGINT, 143 after SIGTERM), the failed command's exit status, 2 for a run
        the runner refused to go on with (a memory at the measuring floor, a failed ``--setup``) or whose
        ``--cleanup`` failed (its verdicts stand, but what it should undo may not be undone), else 0."""
        if self.stopped == "interrupted":
            return 128 + int(self.signal if self.signal is not None else signal.SIGINT)
        if not self.failure:
            return 2 if self.cleanup else 0
        failed = [int(float(row["exit_status"])) for row in self.rows if float(row["exit_status"]) != 0]
        return failed[-1] if failed else 2


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
    statistic: Literal["mean", "median", "min"] | None = None,
    rule: RuleName | None = None,
    metric=None,
    benchmark: str | None = None,
    duet: bool | None = None,
    layout: bool | None = None,
    prepare: str | None = None,
    setup: str | None = None,
    cleanup: str | None = None,
    progress: bool = True,
    settings: RunSettings | None = None,
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
        The rounds before the first verdict may stop the run (default 5), and the budget (default 100; with
        ``max_time`` given and ``max_rounds`` not, none: time binds).
    max_time : str or Timedelta, optional
        Another budget: no round starts once it is spent (``"10m"``; a bare number is refused).
    out : str or path, optional
        The run's file (CSV, :data:`COLUMNS`); ``out + ".json"`` holds the experiment record.
    resume : bool
        Continue the run in ``out``: the same commands, the record's seed and :data:`~perfstudy.experiment.settings.SETTINGS` (a setting
        given here that differs from the record's is refused, naming both), its budgets unless given here
        (:data:`~perfstudy.experiment.settings.BUDGETS` may be extended: the confidence sequence stays valid however often it is looked
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
    statistic : {"mean", "median", "min"}, optional
        Each batch's statistic of its values, whose ratio B/A is the round's (default ``"median"``). The
        median and the minimum shrug off a run that met a burst of load (on a toggled load, 98% of rounds
        of a 2-10% slower B had the right sign by either, 93% by the mean); with one value a batch they are
        all the same.
    rule : {"sign", "t"}, optional
        The anytime-valid rule (default ``"sign"``). ``"sign"``: the sign confidence sequence for the median
        of the rounds' log-ratios (:mod:`perfstudy.comparison.sign_sequence`); it assumes only that each
        round's log-ratio has the change as its median, which a random order within each round gives (the
        noise of A against B is symmetric whatever the machine does), so heavy tails, bimodal contention and a
        load that comes and goes do not make it wrong, and do not slow it much. ``"t"``: Lai's sequence for the
        mean (:mod:`perfstudy.comparison.sequential`), exact for normal rounds, a little quicker on a quiet
        machine and much slower on a contended one (notebook 09 measures both).
    metric : str or sequence of str, optional
        What is judged, with ``measure="time"``: ``"wall"`` (default), ``"cpu"`` (user + system CPU time of
        the command and its children, ``os.wait4``), ``"rss"`` (their peak resident memory), ``"instructions"``
        (those its processes executed, counted by Valgrind in a run of its own after each timed run:
        :mod:`perfstudy.experiment.instructions`); several at once give one benchmark each (``name``,
        ``name:cpu``, ``name:rss``, ``name:instructions``). Every row records its run's ``cpu`` and ``rss``
        whichever are judged. With ``measure`` a format, one of that harness's metrics
        (:attr:`perfstudy.io.Harness.metrics`: Google Benchmark's ``cpu_time``, hyperfine's ``rss``, a JMH
        secondary metric), as :func:`perfstudy.io.read` takes it; ``"wall"`` is the harness's default.
    benchmark : str, optional
        With ``measure`` a format: judge only this benchmark of the harness's output (its name as the harness
        writes it, or without Go's ``-GOMAXPROCS`` suffix: ``"Parse"`` for ``Parse-8``); the others are recorded but
        neither judged nor waited for. A run whose first round has no such benchmark in both versions stops, naming
        those there are. Default: every benchmark both versions ran.
    duet : bool, optional
        Run A and B at the same time, each pinned to a CPU of its own (``os.sched_setaffinity``), run ``i`` of
        one starting with run ``i`` of the other (Bulej et al., "Duet Benchmarking", ICPE 2020): both meet the
        same interference at the same moment. Each round runs the pair twice with the CPUs swapped, which half
        first drawn from ``seed`` (:func:`_duet_rounds`), so that each batch holds runs on both CPUs. Refused
        with fewer than two CPUs or a callable; warned about with two (the run then has no CPU of its own).
    layout : bool, optional
        Randomise each batch's memory layout (default True; ``--no-randomize-layout`` is False): every batch's
        command gets ``PERFSTUDY_LAYOUT``, a padding of 0 to 4095 bytes drawn from ``seed``, the round and the
        version, in its environment, which moves where its stack starts (Mytkowicz et al., ASPLOS'09: the
        environment's size alone can reverse a conclusion). A layout effect then varies from batch to batch, and
        the interval carries it instead of a verdict. Each row records its batch's padding (``layout``). With
        False, every batch has the same layout, and a difference that only the layout makes can be called a
        change.
    prepare : str, optional
        A shell command run before every batch, untimed (``PERFSTUDY_VERSION`` names the version).
    setup, cleanup : str, optional
        Shell commands run once per version at the start and at the end of this call (``PERFSTUDY_VERSION``
        names it); a failing setup stops the run before its first round.
    progress : bool
        A progress bar: rounds, the current interval per benchmark, the rounds still needed.
    settings : RunSettings, optional
        All of the settings above from ``threshold`` to ``cleanup`` at once, built and checked beforehand (as
        ``perfstudy run`` does); given with any of them, refused. Those keywords are a convenience that builds the
        RunSettings.

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
        :attr:`RunResult.environment`); while the run goes on, once for each kind of interference it sees in
        the rounds (bimodal rounds, a drifting platform probe, rounds that spread beyond the threshold), with
        the remedy (:mod:`perfstudy.experiment._interference`).
    """
    keywords: dict[str, Any] = dict(
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
        statistic=statistic,
        rule=rule,
        metric=metric,
        benchmark=benchmark,
        duet=duet,
        layout=layout,
        prepare=prepare,
        setup=setup,
        cleanup=cleanup,
    )
    given = RunSettings.one_source(settings, keywords, defaults=True)
    resume = check_bool("resume", resume)
    ignore_failures = check_bool("ignore_failures", ignore_failures)
    progress = check_bool("progress", progress)
    path = _checked_out(out, resume)
    record: dict = _checked_record(path) if resume and path is not None and path.is_file() else {}
    settings = given.resumed(dict(record.get("settings", {})), path) if record else given.fresh()
    shell = settings.shell  # a resumed run's commands are split as the record's were
    made = settings.setup is not None or settings.prepare is not None  # a hook may make the program: not refused yet
    commands = {name: command_argv(c, name.lower(), shell=shell, check=not made) for name, c in zip(NAMES, (a, b))}
    texts = {version: command_text(command) for version, command in commands.items()}
    if record:
        _check_commands(path, record, texts)  # type: ignore[arg-type]
    if scheduler is not None and settings.duet:
        raise ValueError(
            "duet with a scheduler: a scheduler's workers run rounds one after the other, each on its own host, "
            "so A and B would not run at once; run the duet on this machine (drop --scheduler), or interleaved "
            "rounds on the scheduler (drop --duet)"
        )
    check_combination(settings, commands)
    # the hooks follow A's and B's command rules (the shell, or none with shell=False), checked before any file
    hooks = {
        key: None if getattr(settings, key) is None else command_argv(getattr(settings, key), key, shell=shell)
        for key in ("prepare", "setup", "cleanup")
    }
    rows, record = _existing(path, texts) if resume else ([], {})  # type: ignore[arg-type]
    if record and seed is not None and record.get("seed") is not None and seed != record["seed"]:
        raise ValueError(f"resume: seed={seed} here, {record['seed']} in {path}.json; drop seed to continue the run")
    seed = record.get("seed", seed)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**32))  # type: ignore[operator]
    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    judge = _Judge(settings.threshold, settings.confidence, settings.statistic, settings.rule, settings.benchmark)
    completed = judge.add_rows(rows)  # the complete rounds of a resumed file
    if record.get("stopped") == "decided" and _decided(judge, path):  # already decided: nothing is run
        return _result(
            rows,
            settings,
            dict(record.get("environment", {})),
            stopped="decided",
            rounds=int(record.get("rounds") or 0),
            path=path,
            new_rounds=0,
            verdicts=judge.summary(),
        )
    hosts = _Hosts.connect(scheduler) if scheduler is not None else None  # refuses an unreachable one, before the file
    environment = dict(record.get("environment", {})) or _environment()
    if record:  # the machine now, warned about before the first round of this session too
        environment["warnings"] = _machine_warnings()
    startup, cpu_startup = record.get("shell_startup"), record.get("shell_startup_cpu", 0.0)
    shelled = settings.measure == "time" and any(_shelled(c) for c in commands.values())
    if startup is None:
        startup, cpu_startup = _shell_startup() if shelled else (0.0, 0.0)
    elif shelled:  # resumed: the record's start-up is kept, so that every round subtracts the same
        _check_startup((startup, cpu_startup), _shell_startup())
    record = _experiment(texts, settings.record()) | {
        "seed": seed,
        "environment": environment,
        "shell_startup": startup,
        "shell_startup_cpu": cpu_startup,
        "rss_floor": _rss_floor() if settings.measure == "time" and "rss" in settings.metric else None,
        "instruction_counter": _counter() if settings.measure == "time" and "instructions" in settings.metric else None,
        "stopped": None,
        "rounds": record.get("rounds"),
    }
    writer = _Writer(path, fresh=not resume)
    _write_record(path, record)
    already = len(completed)
    budget = None if settings.max_time is None else float(settings.max_time)
    bar = _bar(progress, None if settings.max_rounds >= UNBOUNDED_ROUNDS else settings.max_rounds, len(completed),
               counted="instructions" in settings.metric and settings.measure == "time")  # fmt: skip
    template = Batch(
        version=NAMES[0],
        command=commands[NAMES[0]],
        round=0,
        position=0,
        values=settings.values,
        warmup=settings.warmup,
        measure=settings.measure,
        benchmark=settings.name,
        timeout=settings.timeout,
        startup=startup,
        metrics=settings.metric,
        cpu_startup=cpu_startup,
        prepare=None if hooks["prepare"] is None else tuple(hooks["prepare"]),  # type: ignore[arg-type]
        layout=0 if settings.layout else None,  # drawn for each batch (_rounds._batch)
    )
    batches = dict(commands=commands, template=template, seed=seed)
    driver = hosts.rounds if hosts is not None else (_duet_rounds if settings.duet else _local_rounds)
    failure = _per_version(hooks["setup"], "setup", settings.timeout) if hooks["setup"] else ""
    cleaned = ""
    try:
        if failure:
            stopped, signum = "failed", None
        else:
            session = _Session(
                driver=driver,
                batches=batches,
                texts=texts,
                rows=rows,
                writer=writer,
                judge=judge,
                completed=completed,
                bar=bar,
                budget=budget,
                ignore_failures=ignore_failures,
                settings=settings,
            )
            stopped, failure, signum = _loop(session)
    except BaseException as error:  # the runner itself broke (a full disk...): the record says so, not null
        record.update(stopped="failed", rounds=len(completed), error=f"{type(error).__name__}: {error}")
        record.update({"lost_hosts": hosts.lost} if hosts is not None and hosts.lost else {})
        _write_record(path, record)
        raise
    finally:
        writer.close()
        if bar is not None:
            bar.close()
        if hosts is not None:
            hosts.close()
        if hooks["cleanup"]:
            cleaned = _per_version(hooks["cleanup"], "cleanup", settings.timeout)
            if cleaned:
                record["cleanup"] = cleaned
                warnings.warn(cleaned, RuntimeWarning, stacklevel=2)
    record["stopped"] = stopped
    record["rounds"] = len(completed)
    if hosts is not None and hosts.lost:  # which host was lost, at which round, when
        record["lost_hosts"] = hosts.lost
    if signum is not None:
        record["signal"] = signal.Signals(signum).name
    _write_record(path, record)
    result = _result(
        rows,
        settings,
        environment,
        stopped=stopped,
        rounds=len(completed),
        path=path,
        failure=failure,
        new_rounds=len(completed) - already,
        signal=signum,
        verdicts=judge.summary(),
        cleanup=cleaned,
    )
    if path is not None and result.verdicts:
        from perfstudy.experiment.run_table import markdown_table

        Path(f"{path}.md").write_text(markdown_table(result), encoding="utf-8")
    return result


def _shelled(command) -> bool:
    from perfstudy.experiment.commands import SHELL

    return isinstance(command, tuple) and len(command) == 3 and command[:2] == (SHELL, "-c")


def _shell_startup(runs: int = 100) -> tuple[float, float]:
    """The shell's start-up over ``runs`` runs: its wall-clock and its CPU seconds, both subtracted from every run."""
    from perfstudy.experiment.batches import _shell_startup as measured

    return measured(runs)


def _failed_said(result) -> str:
    """A failed batch in words: its version, its command's exit status and standard error's tail, or that its
    command exited 0 with output no harness reader could read."""
    from perfstudy.experiment.batches import UNREADABLE, UNREADABLE_SAID

    version, said = result.rows[0]["version"], result.stderr.strip()
    if result.status == UNREADABLE and said.startswith(UNREADABLE_SAID):
        return f"version {version}: {said}"
    return f"version {version} exited with status {result.status}: {said}"


def _decided(judge: _Judge, path) -> bool:
    """Whether the rows of a run whose record says "decided", as ``judge`` holds them, decide every benchmark; where
    they do not (the record was edited, or written over other rows), that is said and the run goes on."""
    state = judge.state()
    undecided = sorted(name for name, judgement in state.items() if judgement[2] == "inconclusive")
    if state and not undecided:
        return True
    warnings.warn(
        f"{path}.json says the run was decided, but its rows leave {undecided[:3] or 'every benchmark'} "
        "inconclusive: the run goes on",
        RuntimeWarning,
        stacklevel=3,
    )
    return False


def _check_startup(record: tuple[float, float], measured: tuple[float, float]) -> None:
    """A resumed run's start-up (wall-clock and CPU seconds), recorded when it began, against this machine's now: a
    shell that starts three times slower or faster (another machine, another shell) makes the rounds before and after
    unalike, which is said. A wall-clock start-up slower now with the CPU start-up as recorded is this machine under
    load (at a load of 4 it read 4 to 8 ms against 0.8 ms idle), which interleaving cancels: not said."""
    (recorded, recorded_cpu), (here, here_cpu) = record, measured
    loaded = here > recorded and recorded_cpu > 0 and recorded_cpu / 1.5 <= here_cpu <= 1.5 * recorded_cpu
    if abs(here - recorded) > 1e-3 and not recorded / 3 <= here <= 3 * recorded and not loaded:
        warnings.warn(
            f"the shell starts in {1e3 * here:.2f} ms here and {1e3 * recorded:.2f} ms in the run's record (another "
            "machine, or another shell), and the record's is taken from every run's time: the rounds before and after "
            "are not alike; start a new run to compare on this machine",
            RuntimeWarning,
            stacklevel=3,
        )


def _counter() -> str:
    from perfstudy.experiment.instructions import instruction_counter

    return instruction_counter()


def _rss_floor() -> float:
    from perfstudy.experiment.batches import rss_floor

    return rss_floor()


#: a peak RSS within this share of the floor is the floor's, not the command's
FLOOR_SHARE = 0.05


def _at_the_floor(finished: dict, template: Batch) -> str:
    """With ``metric`` rss: the sentence refusing a version whose peak memory is at the floor of the process
    that measures it (:func:`perfstudy.experiment.batches.rss_floor`), where a change could not be seen; else ""."""
    if template.measure != "time" or "rss" not in template.metrics:
        return ""
    from perfstudy.experiment.batches import rss_floor

    floor = rss_floor()
    for version, side in finished.items():
        for row in side:
            if str(row["benchmark"]).endswith(":rss") and 0 < float(row["value"]) <= floor * (1 + FLOOR_SHARE):
                return (
                    f"--metric rss: version {version}'s peak memory ({float(row['value']) / 1e6:.1f} MB) is at the "
                    f"floor of the process that spawns and measures it ({floor / 1e6:.1f} MB): its own peak is "
                    "smaller, and a change below the floor would be reported as none. Measure this command's memory "
                    "another way (GNU time -v), or drop rss"
                )
    return ""


def _per_version(argv, what: str, timeout) -> str:
    """Run ``--setup`` or ``--cleanup`` (its argument vector) once per version (``PERFSTUDY_VERSION`` set); the
    first failure's sentence, or ""."""
    from perfstudy.experiment.batches import _spawn_once

    for version in NAMES:
        ran = _spawn_once(argv, capture=False, timeout=timeout, env={"PERFSTUDY_VERSION": version})  # type: ignore[arg-type]
        if ran.status != 0:
            return f"--{what} for version {version} exited with status {ran.status}: {ran.stderr.strip()}"
    return ""


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
    """The warnings of a machine record (this machine's now by default), issued as :class:`NoisyMachineWarning`
    (of the kind a command line says once: a bisect reads the machine at every step)."""
    from perfstudy.experiment.environment import machine, machine_warnings

    found = list(machine_warnings(machine() if environment is None else environment))
    for text in found:
        warnings.warn(text, _MachineState, stacklevel=4)
    return found


class _MachineState(NoisyMachineWarning):
    """The machine's state as read before a run: a command line says it once (``once``), though its numbers move
    from one read to the next (:func:`perfstudy.cli._common.warning_lines`)."""

    once = True


def _environment() -> dict:
    """The machine's record with its warnings, which are also issued (:class:`NoisyMachineWarning`)."""
    from perfstudy.experiment.environment import machine

    environment = machine()
    environment["warnings"] = _machine_warnings(environment)
    return environment


@dataclass(eq=False)
class _Session:
    """What the loop of one run's rounds works with: the driver of its rounds and the batches it runs, where
    each batch's rows go (``writer``, ``rows``), the rule that judges them (``judge``, ``completed``), the
    progress bar, the budgets and the settings the loop reads. Built once by :func:`run`."""

    driver: object
    batches: dict
    texts: dict
    rows: list
    writer: _Writer
    judge: _Judge
    completed: list
    bar: object
    budget: float | None
    ignore_failures: bool
    settings: RunSettings

    @property
    def min_rounds(self) -> int:
        return self.settings.min_rounds

    @property
    def max_rounds(self) -> int:
        return self.settings.max_rounds


def _loop(session: _Session) -> tuple[str, str, int | None]:
    """Run rounds until the rule decides or a budget is spent: ``(stopped, failure, signal)``; rows go to
    the session's ``writer`` and ``rows`` as each batch ends, completed rounds to its ``judge`` and ``completed``."""
    started = time.monotonic()
    next_round = 1 + max((int(row["round"]) for row in session.rows), default=-1)
    with _Stop() as stop:
        try:
            stopped, failure, _ = _rounds(session, stop, started=started, next_round=next_round)
        except KeyboardInterrupt:  # a second Ctrl-C with nothing of ours to kill (a callable, Dask workers)
            return "interrupted", "", stop.signal if stop.signal is not None else int(signal.SIGINT)
    # a signal that came as the last round decided is still said: the run is whole, but whoever runs it (a
    # bisect's next step) was asked to stop
    return stopped, failure, stop.signal


def _rounds(session: _Session, stop, *, started: float, next_round: int) -> tuple[str, str, int | None]:
    """The rounds of :func:`_loop`, under its signal handlers."""
    from perfstudy.experiment._interference import Interference

    s = session
    min_rounds, max_rounds, budget, judge, completed = s.min_rounds, s.max_rounds, s.budget, s.judge, s.completed
    history: dict[str, list[int]] = {}
    hinted: set = set()
    interference = Interference(s.settings.threshold, duet=bool(s.settings.duet), statistic=s.settings.statistic)
    ran = 0

    def should_stop(within: bool = False) -> bool:
        spent = budget is not None and time.monotonic() - started > budget
        return stop.requested or (not within and spent)

    driver: Any = s.driver
    for finished, result in driver(
        **s.batches, first=next_round, wanted=max_rounds - len(completed), should_stop=should_stop
    ):
        if result is not None:  # a batch ended
            for row in result.rows:
                row["command"] = s.texts[row["version"]]
            s.writer.write(result.rows)
            s.rows.extend(result.rows)
            if stop.requested and result.status != 0:  # ended by a second interrupt
                return "interrupted", "", stop.signal
            if result.status != 0 and not s.ignore_failures:
                return "failed", _failed_said(result), None
            continue
        # a round ended: ``finished`` is {version: rows}
        ran += 1
        if all(r["exit_status"] == 0 for side in finished.values() for r in side):
            judge.add_round(finished[NAMES[0]], finished[NAMES[1]])
            completed.append(finished[NAMES[0]][0]["round"])
        state = judge.state()
        for key in sorted(judge.unjudged - hinted):
            hinted.add(key)
            _zero_hint(key, s.batches["template"].startup)
        for key, (_low, _high, verdict, to_go, _sd) in state.items():
            if verdict == "inconclusive" and 0 < to_go < _FAR:
                history.setdefault(key, []).append(len(completed) + to_go)
        floored = (
            _none_in_both(finished)
            or _not_followed(finished, s.settings)
            or _at_the_floor(finished, s.batches["template"])
            or _unmeasurable(judge, ran, min_rounds, s, _shell_startup)
        )
        if floored:
            return "failed", floored, None
        if len(completed) >= min_rounds:
            interference.check(judge, s.rows, state)
        bar: Any = s.bar
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


def _none_in_both(finished: dict) -> str:
    """The sentence stopping a run whose round gave no benchmark in both versions (a harness's suite whose names all
    differ between A and B), else "": no round could ever be judged."""
    names = {version: {str(row["benchmark"]) for row in side} for version, side in finished.items()}
    if len(names) < 2 or not all(names.values()) or set.intersection(*names.values()):
        return ""
    listed = "; ".join(f"{version} ran {', '.join(sorted(found)[:4])}" for version, found in sorted(names.items()))
    return (
        f"no benchmark ran in both versions ({listed}), so none can be compared: check that both commands run "
        "the same suite (a benchmark's name includes its parameters and, for Go, the -cpu suffix)"
    )


def _not_followed(finished: dict, settings: RunSettings) -> str:
    """The sentence stopping a run that follows one benchmark (``settings.benchmark``) when a round whose versions both
    ran gave no benchmark of that name in both, or several (:func:`perfstudy.experiment._judge.followed`), else "":
    it would never be judged, or a bisect would take whichever sorts first."""
    from perfstudy.experiment._judge import followed

    benchmark = settings.benchmark
    if benchmark is None or len(finished) < 2:
        return ""
    names = [{str(row["benchmark"]) for row in side if row["exit_status"] == 0} for side in finished.values()]
    if not all(names):
        return ""
    both = set.intersection(*names)
    matched = followed(benchmark, both)
    if len(matched) > 1:
        return (
            f"{said(settings.option('benchmark'), benchmark)}: names {len(matched)} benchmarks both versions ran "
            f"({', '.join(map(str, matched))}); name one of them as the harness writes it"
        )
    if matched:
        return ""
    shown = ", ".join(sorted(both)[:8]) + (f" and {len(both) - 8} more" if len(both) > 8 else "")
    return (
        f"{said(settings.option('benchmark'), benchmark)}: no benchmark of that name ran in both versions; they ran "
        f"{shown}: name one of them"
    )


def _result(rows, settings, environment, **fields) -> RunResult:
    """The :class:`RunResult` of a run's ``rows``: ``fields`` are its other fields (``stopped``, ``rounds``,
    ``path``, ``failure``, ``new_rounds``, ``signal``, ``verdicts``, ``cleanup``)."""
    path = fields.pop("path", None)
    return RunResult(
        rows=tuple(rows),
        verdicts=tuple(fields.pop("verdicts", ())),
        path=None if path is None else str(path),
        environment=MappingProxyType(environment),
        settings=MappingProxyType(settings.record()),
        **fields,
    )


def _bar(progress: bool, total: int | None, done: int, counted: bool = False):
    """The bar over rounds; with the metric instructions it says that each round's runs are counted under
    Valgrind, which runs them 20 to 100 times slower."""
    if not progress:
        return None
    from tqdm.auto import tqdm

    desc = "rounds (instructions counted under valgrind, 20-100x slower)" if counted else "rounds"
    return tqdm(total=total, initial=done, desc=desc, unit="round", dynamic_ncols=True)
