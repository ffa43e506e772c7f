"""One batch: a version's command (or Python callable) run ``warmup + values`` times, as tidy rows.

A batch is what :mod:`perfstudy.experiment._run` schedules: in every round, each version runs one batch.

A command line runs through ``/bin/sh -c`` by default, as hyperfine does, so that pipes, ``&&``, redirections
and ``VAR=value cmd`` mean what they mean in a terminal; :func:`shell_startup` measures the shell's own
start-up, which :mod:`perfstudy.experiment._run` subtracts from every time (hyperfine's correction). With
``shell=False`` (``--no-shell``, ``-N``) the line is split as a shell would split it and run directly, and a
line with shell syntax in it is refused by name rather than measured as something else. An argument list
always runs directly. Every command runs in a session (and process group) of its own: Ctrl-C in the
terminal reaches the runner alone, and a timeout or a second Ctrl-C ends the whole group, the command's
children too.

Its value is the wall-clock time of the process (``unit="s"``); with ``measure`` naming a format of
:mod:`perfstudy.io` (``"go"``, ``"pyperf"``, ...), the command's standard output is read as that file
instead, and one run yields as many benchmarks as the file holds.

This module is what a Dask worker imports: it needs neither pandas nor scipy for ``measure="time"``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, cast, get_args

from perfstudy._lib.result import Result

#: how a batch's values are measured: the process's wall-clock time, or its output read in a format
Measure = Literal[
    "time", "pyperf", "hyperfine", "google_benchmark", "jmh", "go", "criterion", "pytest_benchmark", "asv"
]
MEASURES: tuple[str, ...] = get_args(Measure)
#: characters of a failing command's standard error kept for the report
STDERR_TAIL = 2000
#: the shell a command line runs through
SHELL = "/bin/sh"
#: exit status of a run that its timeout ended (as GNU timeout), and of one a second Ctrl-C ended
TIMED_OUT, INTERRUPTED = 124, 130
#: words a shell reads itself: a line starting with one is not a program to look up
_SHELL_WORDS = frozenset(
    "if then else elif fi case esac for while until do done in function select time ! { } [ [[ . : "
    "cd export exec eval set unset source alias read ulimit umask wait trap true false test echo printf "
    "command builtin type shift return exit local".split()
)
#: a variable assignment before the command (``FOO=1 ./bench``)
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")

__all__ = [
    "Batch",
    "BatchResult",
    "command_argv",
    "command_text",
    "time_batch",
    "shell_startup",
    "stop_running",
    "MEASURES",
    "SHELL",
]

#: the processes of the runs in flight in this process (a second Ctrl-C ends their groups)
_RUNNING: set = set()


def _split(command: str, name: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(command))
    except ValueError as error:  # "No closing quotation", "No escaped character"
        raise ValueError(f"{name}: {command!r} cannot be split into words: {error}") from None


def command_argv(command, name: str = "command", *, shell: bool = True) -> tuple[str, ...] | Callable:
    """A command as an argument vector (a callable is returned as it is).

    Parameters
    ----------
    command : str, sequence of str or callable
        A command line, an argument list (run directly), or a Python callable.
    name : str
        What the errors call it (``"a"``, ``"b"`` for :func:`perfstudy.experiment._run.run`).
    shell : bool
        Run a command line through :data:`SHELL` (``("/bin/sh", "-c", line)``). With False it is split as
        a shell would split it and run directly; shell syntax in it (``|``, ``&&``, ``;``, ``>``,
        ``VAR=value``, ``$(...)``) is refused, since without a shell it would be passed on as arguments.

    Returns
    -------
    tuple of str or callable

    Raises
    ------
    ValueError
        An empty command, a line that cannot be split (an unterminated quote), shell syntax without a shell.
    FileNotFoundError
        A program that is not on ``PATH`` (or not an executable file), naming it.
    """
    if not isinstance(shell, bool):
        raise TypeError(f"shell={shell!r}: expected True or False")
    if callable(command):
        return command
    if isinstance(command, str):
        words = _split(command, name)
        if not words or not words[0]:
            raise ValueError(f"{name}: empty; give the command line to run")
        if shell:
            _check_program(_first_program(words), name, command)
            return (SHELL, "-c", command)
        syntax = _shell_syntax(command, words)
        if syntax:
            raise ValueError(
                f"{name}: {command!r} has shell syntax ({', '.join(map(repr, syntax[:3]))}), which only a shell "
                "understands; without one it would be passed on as arguments and something else measured. Run "
                "it through the shell (drop --no-shell; shell=True), or write the command without it"
            )
        argv = words
    elif isinstance(command, (list, tuple)) and all(isinstance(part, str) for part in command):
        argv = tuple(command)
    else:
        raise TypeError(f"{name}: expected a command line, a list of arguments or a callable, got {command!r}")
    if not argv or not argv[0]:
        raise ValueError(f"{name}: empty; give the command line to run")
    _check_program(argv[0], name, " ".join(map(shlex.quote, argv)))
    return argv


def _shell_syntax(line: str, words: tuple[str, ...]) -> list[str]:
    """What only a shell would read in ``line``: ``| & ; < >`` outside quotes, ``$`` and backquotes outside
    single quotes, and an assignment before the command."""
    found = [words[0]] if _ASSIGNMENT.match(words[0]) else []
    quote, escaped = "", False
    for char in line:
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            if char == quote:
                quote = ""
            elif quote == '"' and char in "$`":
                found.append(char)
        elif char in "'\"":
            quote = char
        elif char in "|&;<>$`":
            found.append(char)
    return list(dict.fromkeys(found))


def _first_program(words: tuple[str, ...]) -> str | None:
    """The program a shell line starts, where it can be told without running the shell: None for a line
    that starts with shell grammar or an expansion."""
    for word in words:
        if _ASSIGNMENT.match(word):
            continue  # VAR=value before the command
        if word in _SHELL_WORDS or any(c in word for c in "$`(){}|&;<>*?[~"):
            return None
        return word
    return None


def _check_program(program: str | None, name: str, line: str) -> None:
    if program is not None and shutil.which(program) is None:
        raise FileNotFoundError(f"{name}: command not found: {program!r} (in {line!r})")


def command_text(command) -> str:
    """How a command is written in the run's file: its command line, or a callable's qualified name.

    A line run through the shell (``(SHELL, "-c", line)``) is written as the line itself.

    A callable's text ends with a digest of its code and constants (``#1a2b3c4d``), so that two lambdas,
    or two versions of a function of one name, are told apart when a run is resumed.

    Parameters
    ----------
    command : tuple of str or callable
        As :func:`command_argv` returns it.
    """
    if callable(command):
        module = getattr(command, "__module__", None) or "?"
        return f"python:{module}.{getattr(command, '__qualname__', type(command).__name__)}#{_digest(command)}"
    if not (isinstance(command, (tuple, list)) and command and all(isinstance(part, str) for part in command)):
        raise TypeError(f"command: expected an argument vector (tuple of str) or a callable, got {command!r}")
    if len(command) == 3 and tuple(command[:2]) == (SHELL, "-c"):
        return command[2]  # the line as written; the record's settings say it ran through the shell
    return " ".join(map(shlex.quote, command))


def _digest(function) -> str:
    """Eight hex digits of a callable's code, constants and names (its bound arguments for a partial)."""
    inner = getattr(function, "func", function)  # a functools.partial's function
    code = getattr(inner, "__code__", None) or getattr(vars(type(inner)).get("__call__"), "__code__", None)
    parts = [repr(getattr(function, "args", "")), repr(getattr(function, "keywords", ""))]
    if code is not None:
        parts += [code.co_code.hex(), repr(code.co_consts), repr(code.co_names)]
    else:
        parts.append(repr(function))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:8]


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
    try:
        from distributed import get_worker

        return str(get_worker().name)
    except (ImportError, ValueError):
        import socket

        return socket.gethostname()


def _run_once(batch: Batch) -> tuple[int, float, bytes, str]:
    """``(status, seconds, stdout, stderr tail)`` of one run of the batch's command."""
    if callable(batch.command):
        started = time.perf_counter()
        try:
            batch.command()
        except KeyboardInterrupt:  # a second Ctrl-C while a callable runs (:func:`stop_running`)
            return INTERRUPTED, time.perf_counter() - started, b"", "interrupted"
        except SystemExit as exit:  # sys.exit() in the callable ends its run, not the runner
            code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
            if code != 0:
                return code, time.perf_counter() - started, b"", f"the callable called sys.exit({exit.code!r})"
        except Exception:
            return 1, time.perf_counter() - started, b"", traceback.format_exc()[-STDERR_TAIL:]
        return 0, time.perf_counter() - started, b"", ""
    capture = batch.measure != "time"
    started = time.perf_counter()
    try:
        process = subprocess.Popen(
            batch.command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as error:
        return 127, time.perf_counter() - started, b"", str(error)
    _RUNNING.add(process)
    try:
        out, err = process.communicate(timeout=batch.timeout)
    except subprocess.TimeoutExpired:
        _end_group(process)
        return TIMED_OUT, time.perf_counter() - started, b"", f"timed out after {batch.timeout:g} s"
    finally:
        _RUNNING.discard(process)
    seconds = time.perf_counter() - started
    if getattr(process, "perfstudy_stopped", False):
        return INTERRUPTED, seconds, b"", "ended by a second interrupt"
    return process.returncode, seconds, out or b"", (err or b"")[-STDERR_TAIL:].decode("utf-8", "replace")


def _end_group(process) -> None:
    """SIGKILL the command's process group (its children too, which may hold its pipes open) and reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.communicate(timeout=1.0)
    except subprocess.TimeoutExpired:  # a descendant that left the group still holds a pipe: stop reading
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        process.wait()


def stop_running() -> bool:
    """End the process groups of the runs in flight in this process (a second Ctrl-C); False if none.

    Their batches end with exit status :data:`INTERRUPTED`."""
    found = False
    for process in list(_RUNNING):
        process.perfstudy_stopped = True
        try:
            os.killpg(process.pid, signal.SIGKILL)
            found = True
        except (ProcessLookupError, PermissionError):
            pass
    return found


def shell_startup(runs: int = 30) -> float:
    """The median wall-clock time of ``/bin/sh -c ''``: what the shell itself adds to a command's time.

    Measured as the commands are (:func:`time_batch` with ``measure="time"``), after 3 warm-up runs.

    Parameters
    ----------
    runs : int
        Measured runs.

    Returns
    -------
    float
        Seconds.
    """
    if isinstance(runs, bool) or not isinstance(runs, int):
        raise TypeError(f"runs={runs!r}: expected a whole number of runs")
    if not 1 <= runs <= 10_000:
        raise ValueError(f"runs={runs!r}: expected 1 to 10000 runs (each takes about a millisecond)")
    batch = Batch(version="shell", command=(SHELL, "-c", ""), round=0, position=0, values=runs, warmup=3)
    times = [_run_once(batch)[1] for _ in range(batch.warmup + runs)]
    measured = sorted(times[batch.warmup :])
    return float(measured[len(measured) // 2])


def _parsed(output: bytes, measure: str) -> list[dict]:
    """The benchmarks a run printed, read by :func:`perfstudy.io.read`: one dict per value."""
    from perfstudy.io import Format, read

    with tempfile.NamedTemporaryFile("wb", suffix=".out", delete=False) as handle:
        handle.write(output)
    try:
        frame = read(handle.name, cast(Format, measure))  # a measure other than time is a format
    finally:
        os.unlink(handle.name)
    keep = [c for c in ("benchmark", "value", "unit") if c in frame.columns]
    rows = [dict(zip(keep, values)) for values in frame[keep].itertuples(index=False, name=None)]
    for row in rows:
        row["benchmark"] = str(row.get("benchmark", "benchmark"))
    return rows


def time_batch(batch: Batch) -> BatchResult:
    """Run ``batch.warmup`` warm-up runs and ``batch.values`` measured runs; stop at the first failure.

    Parameters
    ----------
    batch : Batch

    Returns
    -------
    BatchResult
        Rows with ``benchmark``, ``iteration`` (0-based, warm-ups first), ``warmup``, ``value`` and
        ``unit``; ``status`` is the first non-zero exit status (0 if all ran).
    """
    from perfstudy.experiment.environment import load_average, probe

    if not isinstance(batch, Batch):
        raise TypeError(f"batch: expected a Batch, got {type(batch).__name__}")
    rows = []
    platform_speed = probe()
    load = load_average()
    start = time.time()
    status, stderr = 0, ""
    for iteration in range(batch.warmup + batch.values):
        status, seconds, output, stderr = _run_once(batch)
        if status != 0:
            break
        warmup = iteration < batch.warmup
        if batch.measure == "time":
            found = [{"benchmark": batch.benchmark, "value": max(0.0, seconds - batch.startup), "unit": "s"}]
        else:
            try:
                found = _parsed(output, batch.measure)
            except (ValueError, OSError) as error:
                status, stderr = 65, f"the output is not {batch.measure} benchmark data: {error}"
                break
        for row in found:
            row.update(iteration=iteration, warmup=warmup)
        rows += found
    end = time.time()
    host = _host()
    common = dict(
        version=batch.version,
        round=batch.round,
        position=batch.position,
        batch=f"{batch.round}-{batch.version}",
        host=host,
        start=start,
        end=end,
        exit_status=status,
        load=load,
        probe=platform_speed,
    )
    if status != 0:  # the failure is recorded: a row without a value, its status and where it stopped
        rows.append(
            {"benchmark": batch.benchmark, "value": float("nan"), "unit": None, "iteration": len(rows), "warmup": False}
        )
    return BatchResult(
        rows=tuple({**row, **common} for row in rows), status=status, stderr=stderr, start=start, end=end, host=host
    )
