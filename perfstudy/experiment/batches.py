"""One batch: a version's command (or Python callable) run ``warmup + values`` times, as tidy rows.

A batch is what :mod:`perfstudy.experiment._run` schedules: in every round, each version runs one batch.

A command line runs through ``/bin/sh -c`` by default, as hyperfine does, so that pipes, ``&&``, redirections
and ``VAR=value cmd`` mean what they mean in a terminal (:mod:`perfstudy.experiment.commands` turns what the user
gives into what runs); :func:`shell_startup` measures the shell's own start-up, which
:mod:`perfstudy.experiment._run` subtracts from every time (hyperfine's correction). Every command runs in a session (and process group) of its own: Ctrl-C in the
terminal reaches the runner alone, and a timeout or a second Ctrl-C ends the whole group, the command's
children too.

Its value is the wall-clock time of the process (``unit="s"``); with ``measure`` naming a format of
:mod:`perfstudy.io` (``"go"``, ``"pyperf"``, ...), the command's standard output is read as that file
instead, and one run yields as many benchmarks as the file holds.

This module is what a Dask worker imports: it needs neither pandas nor scipy for ``measure="time"``.
"""

from __future__ import annotations

import math
import os
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, cast, get_args

from perfstudy._lib.result import Result
from perfstudy._lib.units import METRIC_SUFFIXES
from perfstudy.experiment.commands import SHELL

#: how a batch's values are measured: the process's wall-clock time, or its output read in a format of
#: :data:`perfstudy.io.MEASURED_FORMATS` (the harnesses' registry; a test holds the two equal)
Measure = Literal[
    "time", "pyperf", "hyperfine", "google_benchmark", "jmh", "go", "criterion", "pytest_benchmark", "asv"
]
MEASURES: tuple[str, ...] = get_args(Measure)
#: what a batch of a command measures with ``measure="time"``: its wall-clock time, its CPU time (user plus
#: system, from ``os.wait4``), its peak resident memory, and the instructions it executed (counted by Valgrind in a
#: run of its own, :mod:`perfstudy.experiment.instructions`)
METRICS = ("wall", "cpu", "rss", "instructions")
#: the unit of each metric's rows (the suffix of its benchmark's name: METRIC_SUFFIXES)
METRIC_UNITS = {"wall": "s", "cpu": "s", "rss": "B", "instructions": "instructions"}
#: the metrics a timed run gives; ``instructions`` comes from a counted run
TIMED = ("wall", "cpu", "rss")
#: characters of a failing command's standard error kept for the report
STDERR_TAIL = 2000
#: exit status of a run that its timeout ended (as GNU timeout), and of one a second Ctrl-C ended
TIMED_OUT, INTERRUPTED = 124, 130
#: a batch whose command exited 0 with output that is not its harness's (sysexits' EX_DATAERR)
UNREADABLE = 65
#: how such a batch's failure begins (the command's own status was 0)
UNREADABLE_SAID = "its command exited 0, but its output is not"

__all__ = [
    "harness_metric",
    "Batch",
    "BatchResult",
    "time_batch",
    "time_duet",
    "shell_startup",
    "rss_floor",
    "stop_running",
    "MEASURES",
    "METRICS",
]

#: the processes of the runs in flight in this process (a second Ctrl-C ends their groups)
_RUNNING: set = set()


@dataclass(frozen=True)
class Batch(Result):
    """What one batch runs (picklable, for a Dask worker).

    Parameters
    ----------
    version : str
        The version's name (``"A"``, ``"B"``).
    command : tuple of str or callable
        As :func:`command_argv` returns it.
    round, position : int
        The round, and the batch's place in it (0 first).
    values, warmup : int
        Measured and warm-up runs.
    measure : str
        One of :data:`MEASURES`.
    benchmark : str
        The benchmark's name with ``measure="time"``.
    timeout : float, optional
        Seconds one run may take; past them the command's whole process group is killed.
    startup : float
        Seconds subtracted from each measured time (the shell's start-up, :func:`shell_startup`); a time
        below it is recorded as 0.
    metrics : tuple of str
        With ``measure="time"``, what each run yields a row of (:data:`METRICS`): ``"wall"`` (the
        wall-clock time, benchmark ``benchmark``), ``"cpu"`` (user plus system CPU time of the process and
        its children, ``benchmark + ":cpu"``), ``"rss"`` (their peak resident memory in bytes,
        ``benchmark + ":rss"``), ``"instructions"`` (those its processes executed, but the shell's, counted by
        Valgrind in a run of its own after each timed one, warm-ups not counted; ``benchmark + ":instructions"``).
        With ``measure`` a format, the one harness metric its output is read by (``("wall",)``: the harness's
        default).
    cpu_startup : float
        CPU seconds subtracted from each CPU time (the shell's, as ``startup``).
    prepare : tuple of str, optional
        A command run before the batch, untimed (``--prepare``); its failure fails the batch. ``{layout}`` in it is
        the batch's :attr:`layout` (a seed for a link order that varies from batch to batch).
    layout : int, optional
        The padding of the command's environment, in bytes: ``PERFSTUDY_LAYOUT`` is that many characters in every
        run's (timed and counted) environment, which moves where its stack starts; recorded in each row's ``layout``.
        None: no padding, the layout is not randomised.
    """

    version: str
    command: tuple | Callable
    round: int
    position: int
    values: int
    warmup: int
    measure: str = "time"
    benchmark: str = "command"
    timeout: float | None = None
    startup: float = 0.0
    metrics: tuple = ("wall",)
    cpu_startup: float = 0.0
    prepare: tuple | None = None
    layout: int | None = None


#: the environment variable whose length is a batch's padding (:attr:`Batch.layout`)
LAYOUT_VARIABLE = "PERFSTUDY_LAYOUT"

#: in ``--prepare``, the batch's layout (its padding, 0-4095): a seed for a link order drawn per batch
LAYOUT_PLACEHOLDER = "{layout}"


def _padded(batch: Batch) -> dict | None:
    """The environment a batch's command gets beyond this process's: its padding, or nothing."""
    return None if batch.layout is None else {LAYOUT_VARIABLE: "x" * batch.layout}


@dataclass(frozen=True)
class BatchResult(Result):
    """What a batch gave.

    Parameters
    ----------
    rows : tuple of dict
        The batch's rows, in the columns of :data:`perfstudy.experiment._run.COLUMNS` (without ``command``).
    status : int
        The first non-zero exit status, else 0.
    stderr : str
        The failing run's standard error, its last :data:`STDERR_TAIL` characters.
    start, end : float
        Unix seconds.
    host : str
        The Dask worker's name, or this machine's host name.
    """

    rows: tuple
    status: int
    stderr: str
    start: float
    end: float
    host: str

    def to_frame(self):
        """The batch's rows."""
        import pandas as pd

        return pd.DataFrame(list(self.rows))


def _host() -> str:
    """The Dask worker's name on a worker (whose process has imported distributed), else this machine's."""
    if "distributed" in sys.modules:
        try:
            from distributed import get_worker

            return str(get_worker().name)
        except (ImportError, ValueError):
            pass
    import socket

    return socket.gethostname()


@dataclass(frozen=True)
class _Ran:
    """One run of a command: exit status, wall and CPU seconds, peak RSS (bytes), standard output (when
    captured) and the tail of standard error."""

    status: int
    seconds: float
    cpu: float
    rss: float
    output: bytes
    stderr: str


def _run_once(batch: Batch, command=None, env: dict | None = None) -> _Ran:
    """One run of the batch's command (or of ``command``, the batch's ``prepare``, with ``env`` added)."""
    command = batch.command if command is None else command
    if callable(command):
        return _call_once(command)
    capture = batch.measure != "time" and command is batch.command
    memory = "rss" in batch.metrics and command is batch.command
    if command is batch.command:
        env = _padded(batch)
    return _spawn_once(command, capture=capture, timeout=batch.timeout, env=env, memory=memory)


def _count_once(batch: Batch) -> tuple[float, _Ran | None]:
    """One counted run of the batch's command (:mod:`perfstudy.experiment.instructions`): its instructions, and None;
    or NaN and the failed run (the command's own status, or :data:`UNREADABLE` when Valgrind summed nothing)."""
    from perfstudy.experiment.instructions import _count, _counted, _scratch

    logs = _scratch()
    argv = tuple(batch.command)  # type: ignore[arg-type]  # a callable is refused with this metric
    ran = _spawn_once(_counted(argv, logs), capture=False, timeout=batch.timeout, env=_padded(batch))
    count, why = _count(logs, argv, os.getpid())
    if ran.status != 0:
        return math.nan, _Ran(ran.status, ran.seconds, ran.cpu, ran.rss, b"", f"under valgrind: {ran.stderr}")
    if count is None:
        return math.nan, _Ran(UNREADABLE, ran.seconds, ran.cpu, ran.rss, b"", why)
    return float(count), None


def _call_once(function) -> _Ran:
    """A Python callable timed in this process: its CPU time is this process's; no RSS of its own."""
    started, cpu = time.perf_counter(), time.process_time()
    status, stderr = 0, ""
    try:
        function()
    except KeyboardInterrupt:  # a second Ctrl-C while a callable runs (:func:`stop_running`)
        status, stderr = INTERRUPTED, "interrupted"
    except SystemExit as exit:  # sys.exit() in the callable ends its run, not the runner
        code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
        if code != 0:
            status, stderr = code, f"the callable called sys.exit({exit.code!r})"
    except Exception:
        status, stderr = 1, traceback.format_exc()[-STDERR_TAIL:]
    return _Ran(status, time.perf_counter() - started, time.process_time() - cpu, float("nan"), b"", stderr)


class _Spawned:
    """A command's process in flight: its pid (its process group's too), for :func:`stop_running`."""

    def __init__(self, pid: int):
        self.pid = pid
        self.stopped = False


class _ScratchFiles:
    """Each thread's file for a command's standard error (and output), reused run after run, and removed
    when the interpreter exits."""

    def __init__(self):
        import atexit
        import threading

        self.local = threading.local()
        self.paths: list[str] = []
        atexit.register(self.remove)

    def path(self) -> str:
        path = getattr(self.local, "path", None)
        if path is None:
            handle, path = tempfile.mkstemp(prefix="perfstudy-", suffix=".err")
            os.close(handle)
            self.local.path = path
            self.paths.append(path)
        return path

    def release(self):
        """Remove this thread's file now (a duet's threads live for one round half each)."""
        path = getattr(self.local, "path", None)
        if path is not None:
            self.local.path = None
            self.paths.remove(path)
            for name in (path, path + ".out"):
                try:
                    os.unlink(name)
                except OSError:
                    pass

    def remove(self):
        for path in self.paths:
            for name in (path, path + ".out"):
                try:
                    os.unlink(name)
                except OSError:
                    pass


_SCRATCH = _ScratchFiles()


def _spawn_once(
    argv: tuple, *, capture: bool, timeout: float | None, env: dict | None = None, memory: bool = False
) -> _Ran:
    """Fork and exec ``argv`` (``posix_spawn``, as hyperfine pays), in a session of its own, and reap it with
    ``os.wait4``: the wall-clock time around both, and the child's CPU time (its waited-for descendants
    included).

    The peak RSS that ``wait4`` reports of a child is at least the RSS of the process that spawned it (Linux
    records the spawning address space's high-water mark when the child execs), which for this process,
    numpy loaded, is tens of MB. So with ``memory`` the command is spawned by :class:`_Spawner`, a small
    process of its own (about 8 MB, :data:`RSS_FLOOR` recorded), and without it the RSS is not recorded (NaN)
    rather than recorded wrong."""
    err_path = _SCRATCH.path()
    out_path = err_path + ".out" if capture else os.devnull
    if memory:
        ran = _SPAWNERS.get().run(argv, out_path, err_path, timeout, env)
        if isinstance(ran, _Ran):  # it could not be started
            return ran
        seconds, cpu, rss, wait_status, process = ran
    else:
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
            (os.POSIX_SPAWN_OPEN, 2, err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
        ]
        started = time.perf_counter()
        try:
            environment = os.environ if env is None else {**os.environ, **env}
            pid = os.posix_spawnp(argv[0], list(argv), environment, file_actions=actions, setsid=True)
        except OSError as error:
            return _Ran(127, time.perf_counter() - started, float("nan"), float("nan"), b"", str(error))
        process = _Spawned(pid)
        _RUNNING.add(process)
        timer = None
        if timeout is not None:
            import threading

            timer = threading.Timer(timeout, _time_out, (process,))
            timer.daemon = True
            timer.start()
        try:
            _, wait_status, usage = os.wait4(pid, 0)
        finally:
            _RUNNING.discard(process)
            if timer is not None:
                timer.cancel()
        seconds = time.perf_counter() - started
        cpu, rss = usage.ru_utime + usage.ru_stime, float("nan")
    output = b""
    if capture:
        with open(out_path, "rb") as handle:
            output = handle.read()
    if getattr(process, "timed_out", False):
        return _Ran(TIMED_OUT, seconds, cpu, rss, b"", f"timed out after {timeout:g} s")
    if process.stopped:
        return _Ran(INTERRUPTED, seconds, cpu, rss, b"", "ended by a second interrupt")
    status = os.waitstatus_to_exitcode(wait_status)
    status = 128 - status if status < 0 else status  # killed by a signal: as a shell reports it
    stderr = ""
    if status != 0:
        with open(err_path, "rb") as handle:
            stderr = handle.read()[-STDERR_TAIL:].decode("utf-8", "replace")
    return _Ran(status, seconds, cpu, rss, output, stderr)


#: the spawner's program: reads one request a line (JSON), spawns it as :func:`_spawn_once` does, answers its
#: pid at once (so that a second Ctrl-C can end its group) and then its wait status, times and resource use
_SPAWNER = r"""
import json, os, resource, signal, sys, threading, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
def say(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()
def high_water():  # this address space's peak: what a child spawned from it starts from (getrusage would
    try:            # also count the process that started this one)
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
say(floor=high_water())
for line in sys.stdin:
    r = json.loads(line)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, r["out"], flags, 0o600), (os.POSIX_SPAWN_OPEN, 2, r["err"], flags, 0o600)]
    environment = os.environ if r["env"] is None else {**os.environ, **r["env"]}
    started = time.perf_counter()
    try:
        pid = os.posix_spawnp(r["argv"][0], r["argv"], environment, file_actions=actions, setsid=True)
    except OSError as error:
        say(error=str(error), seconds=time.perf_counter() - started)
        continue
    say(pid=pid)
    ended = []
    def end():
        ended.append(True)
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
    timer = threading.Timer(r["timeout"], end) if r["timeout"] is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - started
    if timer is not None:
        timer.cancel()
    say(status=status, seconds=seconds, cpu=usage.ru_utime + usage.ru_stime, rss=usage.ru_maxrss, ended=bool(ended))
"""


class _Spawner:
    """A small process that spawns commands for this one (:func:`_spawn_once` with ``memory``), so that their
    peak RSS is theirs and not this process's; one per thread (a duet has two), ended at exit."""

    def __init__(self):
        import subprocess

        self.process = subprocess.Popen(
            [sys.executable, "-S", "-I", "-c", _SPAWNER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            start_new_session=True,
        )
        self.floor = _KIB * float(self._answer()["floor"])

    def _answer(self) -> dict:
        import json

        line = self.process.stdout.readline()  # type: ignore[union-attr]
        if not line:
            raise RuntimeError(
                f"the spawner process that measures peak memory ended (exit status {self.process.poll()}); "
                "run without --metric rss, or report this"
            )
        return json.loads(line)

    def run(self, argv, out_path, err_path, timeout, env):
        import json

        request = dict(argv=list(argv), out=out_path, err=err_path, timeout=timeout, env=env)
        self.process.stdin.write(json.dumps(request) + "\n")  # type: ignore[union-attr]
        self.process.stdin.flush()  # type: ignore[union-attr]
        first = self._answer()
        if "error" in first:
            return _Ran(127, float(first["seconds"]), float("nan"), float("nan"), b"", str(first["error"]))
        process = _Spawned(int(first["pid"]))
        _RUNNING.add(process)
        try:
            done = self._answer()
        finally:
            _RUNNING.discard(process)
        if done["ended"]:
            process.timed_out = True  # type: ignore[attr-defined]
        rss = _KIB * float(done["rss"])
        return float(done["seconds"]), float(done["cpu"]), rss, int(done["status"]), process

    def close(self):
        try:
            self.process.stdin.close()  # type: ignore[union-attr]
            self.process.wait(timeout=5)
        except Exception:
            self.process.kill()


class _Spawners:
    """This process's spawners, one per thread, started when first needed."""

    def __init__(self):
        import atexit
        import threading

        self.local = threading.local()
        self.started: list[_Spawner] = []
        atexit.register(self.close)

    def get(self) -> _Spawner:
        spawner = getattr(self.local, "spawner", None)
        if spawner is None or spawner.process.poll() is not None:
            spawner = self.local.spawner = _Spawner()
            self.started.append(spawner)
        return spawner

    def close(self):
        for spawner in self.started:
            spawner.close()


_SPAWNERS = _Spawners()
#: bytes in a unit of ``ru_maxrss``: KiB on Linux, bytes on macOS
_KIB = 1.0 if sys.platform == "darwin" else 1024.0


def rss_floor() -> float:
    """The smallest peak RSS (bytes) a run can be measured with: that of the small process that spawns the
    commands whose memory is measured (:func:`_spawn_once`); a command whose own peak is below it is
    recorded at it."""
    return _SPAWNERS.get().floor


def _time_out(process: _Spawned) -> None:
    """A run past its timeout: its whole process group is killed (its children too)."""
    process.timed_out = True  # type: ignore[attr-defined]
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def stop_running() -> bool:
    """End the process groups of the runs in flight in this process (a second Ctrl-C); False if none.

    Their batches end with exit status :data:`INTERRUPTED`."""
    found = False
    for process in list(_RUNNING):
        process.stopped = True
        try:
            os.killpg(process.pid, signal.SIGKILL)
            found = True
        except (ProcessLookupError, PermissionError):
            pass
    return found


def shell_startup(runs: int = 100) -> float:
    """The fastest wall-clock time of ``/bin/sh -c ''``: what the shell itself adds to a quiet command's time.

    Measured as the commands are (:func:`time_batch` with ``measure="time"``), after 3 warm-up runs. The fastest,
    not the median: a load can only add to a run, and what is subtracted must not be more than the shell costs.
    Under a load switched on and off every 1-4 s (:func:`perfstudy.studies.running.toggled_load`, 2 processes on
    2 cores), the median of 30 runs read above 3 ms in 27% of 60 tries and up to 8.1 ms against 1.0 ms idle; taken
    from every round, that turned a planted +50% into +209%. The fastest of 100 read 0.89 ms in the median try
    and at most 1.05 ms; the fastest of 30 still read above 3 ms in 20% (100 runs take about 0.1 s).

    Parameters
    ----------
    runs : int
        Measured runs.

    Returns
    -------
    float
        Seconds.
    """
    return _shell_startup(runs)[0]


def _shell_startup(runs: int = 100) -> tuple[float, float]:
    """The fastest wall-clock seconds of ``/bin/sh -c ''`` (:func:`shell_startup`) and its median CPU seconds (the
    share of the shell's CPU time a command must exceed, ``_too_short.UNMEASURABLE``, is calibrated on the median)."""
    if isinstance(runs, bool) or not isinstance(runs, int):
        raise TypeError(f"runs={runs!r}: expected a whole number of runs")
    if not 1 <= runs <= 10_000:
        raise ValueError(f"runs={runs!r}: expected 1 to 10000 runs (each takes about a millisecond)")
    batch = Batch(version="shell", command=(SHELL, "-c", ""), round=0, position=0, values=runs, warmup=3)
    ran = [_run_once(batch) for _ in range(batch.warmup + runs)][batch.warmup :]
    cpus = sorted(r.cpu for r in ran)
    return float(min(r.seconds for r in ran)), float(cpus[len(cpus) // 2])


def harness_metric(metrics) -> str | None:
    """With ``measure`` a format, the harness's metric that a run's ``metric`` names: None (the harness's own
    default) for the run's default ``("wall",)``, else its one name.

    Parameters
    ----------
    metrics : sequence of str
        The run's ``metric``.
    """
    names = tuple(metrics) if isinstance(metrics, (list, tuple)) else ()
    if not names or not all(isinstance(n, str) for n in names):
        raise TypeError(f"metrics={metrics!r}: expected the run's metric names")
    return None if names == ("wall",) else names[0]


def _parsed(output: bytes, measure: str, metric: str | None = None) -> list[dict]:
    """The benchmarks a run printed, read by :func:`perfstudy.io.read` (``metric``: the harness's metric, None its
    default): one dict per value."""
    from perfstudy.io import Format, read

    with tempfile.NamedTemporaryFile("wb", suffix=".out", delete=False) as handle:
        handle.write(output)
    try:
        frame = read(handle.name, cast(Format, measure), metric=metric)  # a measure other than time is a format
    except ValueError as error:  # said of the output, not of the scratch file that held it
        raise ValueError(str(error).replace(f"{handle.name}: ", "")) from None
    finally:
        os.unlink(handle.name)
    keep = [c for c in ("benchmark", "value", "unit") if c in frame.columns]
    rows = [dict(zip(keep, values)) for values in frame[keep].itertuples(index=False, name=None)]
    for row in rows:
        row["benchmark"] = str(row.get("benchmark", "benchmark"))
    return rows


def time_batch(batch: Batch) -> BatchResult:
    """Run ``batch.prepare`` (if any), ``batch.warmup`` warm-up runs and ``batch.values`` measured runs; stop at
    the first failure.

    Parameters
    ----------
    batch : Batch

    Returns
    -------
    BatchResult
        Rows with ``benchmark``, ``iteration`` (0-based, warm-ups first), ``warmup``, ``value``, ``unit``, and
        each run's ``cpu`` (seconds) and ``rss`` (bytes); ``status`` is the first non-zero exit status (0 if
        all ran).
    """
    if not isinstance(batch, Batch):
        raise TypeError(f"batch: expected a Batch, got {type(batch).__name__}")
    state = _BatchState(batch)
    if state.prepared():
        for iteration in range(batch.warmup + batch.values):
            if not state.run(iteration):
                break
    return state.result()


def time_duet(batch_a: Batch, batch_b: Batch, cpus: tuple[int, int] | None = None) -> tuple[BatchResult, BatchResult]:
    """Two batches at the same time (duet benchmarking, Bulej et al., ICPE 2020): each in a thread of its
    own pinned to one CPU, run ``i`` of one starting with run ``i`` of the other, so that both meet the same
    interference at the same moment.

    Parameters
    ----------
    batch_a, batch_b : Batch
        Of the same ``values`` and ``warmup``.
    cpus : tuple of two int, optional
        The CPUs ``batch_a`` and ``batch_b`` are pinned to (``os.sched_setaffinity``, inherited by their
        commands); None runs them unpinned.

    Returns
    -------
    tuple of BatchResult
        ``batch_a``'s and ``batch_b``'s; a failure in one ends both at that run.
    """
    import threading

    for name, batch in (("batch_a", batch_a), ("batch_b", batch_b)):
        if not isinstance(batch, Batch):
            raise TypeError(f"{name}: expected a Batch, got {type(batch).__name__}")
    if (batch_a.values, batch_a.warmup) != (batch_b.values, batch_b.warmup):
        raise ValueError("batch_b: a duet's two batches need the same values and warmup, so that their runs pair")
    if cpus is not None and not (
        isinstance(cpus, tuple) and len(cpus) == 2 and all(isinstance(c, int) and c >= 0 for c in cpus)
    ):
        raise TypeError(f"cpus={cpus!r}: expected two CPU numbers, or None")
    barrier = threading.Barrier(2)
    results: list = [None, None]

    def side(index: int, batch: Batch) -> None:
        if cpus is not None and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {cpus[index]})  # this thread; the commands it spawns inherit it
        state = _BatchState(batch)
        try:
            ok = state.prepared()
            for iteration in range(batch.warmup + batch.values):
                barrier.wait()
                if not ok or not state.run(iteration):
                    break
            if not ok or state.status != 0:
                barrier.abort()
        except threading.BrokenBarrierError:  # the other side failed: this one ends with it
            pass
        finally:
            results[index] = state.result()
            _SCRATCH.release()

    threads = [threading.Thread(target=side, args=(i, b), daemon=True) for i, b in enumerate((batch_a, batch_b))]
    for thread in threads:
        thread.start()
    for thread in threads:
        while thread.is_alive():
            thread.join(0.1)  # wakes for a signal: the main thread's handlers run between joins
    return results[0], results[1]


class _BatchState:
    """A batch as it runs: its rows so far, its status, and where it started."""

    def __init__(self, batch: Batch):
        from perfstudy.experiment.environment import load_average, probe

        self.batch = batch
        self.rows: list[dict] = []
        self.platform_speed = probe()
        self.load = load_average()
        self.start = time.time()
        self.status, self.stderr = 0, ""

    def prepared(self) -> bool:
        """Run ``prepare``; False (and the batch failed) if it fails."""
        if self.batch.prepare is None:
            return True
        prepare = tuple(word.replace(LAYOUT_PLACEHOLDER, str(self.batch.layout)) for word in self.batch.prepare)
        ran = _run_once(self.batch, prepare, env={"PERFSTUDY_VERSION": self.batch.version})
        if ran.status != 0:
            self.status, self.stderr = ran.status, f"--prepare failed: {ran.stderr}"
            return False
        return True

    def run(self, iteration: int) -> bool:
        """One run (a timed run, and a counted one with the metric ``instructions``); False at a failure."""
        batch = self.batch
        warmup = iteration < batch.warmup
        timed = batch.measure != "time" or any(m in TIMED for m in batch.metrics)
        ran = _run_once(batch) if timed else _Ran(0, math.nan, math.nan, math.nan, b"", "")
        if ran.status != 0:
            self.status, self.stderr = ran.status, ran.stderr
            return False
        if batch.measure == "time":
            values = {
                "wall": max(0.0, ran.seconds - batch.startup),
                "cpu": max(0.0, ran.cpu - batch.cpu_startup),
                "rss": ran.rss,
            }
            if "instructions" in batch.metrics and not warmup:
                values["instructions"], failed = _count_once(batch)
                if failed is not None:
                    self.status, self.stderr = failed.status, failed.stderr
                    return False
            found = [
                {"benchmark": batch.benchmark + METRIC_SUFFIXES[m], "value": values[m], "unit": METRIC_UNITS[m]}
                for m in batch.metrics
                if m in values
            ]
        else:
            try:
                found = _parsed(ran.output, batch.measure, harness_metric(batch.metrics))
            except (ValueError, OSError) as error:
                self.status, self.stderr = UNREADABLE, f"{UNREADABLE_SAID} {batch.measure} benchmark data: {error}"
                return False
        for row in found:
            row.update(iteration=iteration, warmup=warmup, cpu=ran.cpu, rss=ran.rss)
        self.rows += found
        return True

    def result(self) -> BatchResult:
        batch = self.batch
        end = time.time()
        host = _host()
        common = dict(
            version=batch.version,
            round=batch.round,
            position=batch.position,
            batch=f"{batch.round}-{batch.version}",
            host=host,
            start=self.start,
            end=end,
            exit_status=self.status,
            load=self.load,
            probe=self.platform_speed,
            layout=batch.layout,
        )
        rows = self.rows
        if self.status != 0:  # the failure is recorded: a row without a value, its status and where it stopped
            rows = rows + [
                {
                    "benchmark": batch.benchmark,
                    "value": float("nan"),
                    "unit": None,
                    "iteration": len(rows),
                    "warmup": False,
                }
            ]
        return BatchResult(
            rows=tuple({**row, **common} for row in rows),
            status=self.status,
            stderr=self.stderr,
            start=self.start,
            end=end,
            host=host,
        )
