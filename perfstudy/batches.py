"""One batch: a version's command (or Python callable) run ``warmup + values`` times, as tidy rows.

A batch is what :mod:`perfstudy.run` schedules: in every round, each version runs one batch. A command
runs without a shell (``shlex`` splits a string; use ``sh -c '...'`` for pipes), in a session of its own so
that Ctrl-C in the terminal reaches the runner alone and the batch in flight can finish. Its value is the
wall-clock time of the process (``unit="s"``); with ``measure`` naming a format of :mod:`perfstudy.io`
(``"go"``, ``"pyperf"``, ...), the command's standard output is read as that file instead, and one run
yields as many benchmarks as the file holds.

This module is what a Dask worker imports: it needs neither pandas nor scipy for ``measure="time"``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from perfstudy._result import Result

#: how a batch's values are measured: the process's wall-clock time, or its output read in a format
MEASURES = ("time", "pyperf", "hyperfine", "google_benchmark", "jmh", "go", "criterion", "pytest_benchmark", "asv")
#: characters of a failing command's standard error kept for the report
STDERR_TAIL = 2000

__all__ = ["Batch", "BatchResult", "command_argv", "command_text", "run_batch", "MEASURES"]


def command_argv(command, name: str = "command") -> tuple[str, ...] | Callable:
    """A command as an argument vector (a callable is returned as it is).

    Parameters
    ----------
    command : str, sequence of str or callable
        A command line (split as a shell would), an argument list, or a Python callable.
    name : str
        What the errors call it (``"a"``, ``"b"`` for :func:`perfstudy.run.run`).

    Returns
    -------
    tuple of str or callable

    Raises
    ------
    ValueError
        An empty command.
    FileNotFoundError
        A program that is not on ``PATH`` (or not an executable file), naming it.
    """
    if callable(command):
        return command
    if isinstance(command, str):
        argv = tuple(shlex.split(command))
    elif isinstance(command, (list, tuple)) and all(isinstance(part, str) for part in command):
        argv = tuple(command)
    else:
        raise TypeError(f"{name}: expected a command line, a list of arguments or a callable, got {command!r}")
    if not argv or not argv[0]:
        raise ValueError(f"{name}: empty; give the command line to run")
    if shutil.which(argv[0]) is None:
        raise FileNotFoundError(f"{name}: command not found: {argv[0]!r} (in {' '.join(map(shlex.quote, argv))!r})")
    return argv


def command_text(command) -> str:
    """How a command is written in the run's file: its command line, or a callable's qualified name.

    Parameters
    ----------
    command : tuple of str or callable
        As :func:`command_argv` returns it.
    """
    if callable(command):
        return f"python:{getattr(command, '__module__', '?')}.{getattr(command, '__qualname__', repr(command))}"
    if not (isinstance(command, (tuple, list)) and command and all(isinstance(part, str) for part in command)):
        raise TypeError(f"command: expected an argument vector (tuple of str) or a callable, got {command!r}")
    return " ".join(map(shlex.quote, command))


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
        Seconds one run may take.
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


@dataclass(frozen=True)
class BatchResult(Result):
    """What a batch gave.

    Parameters
    ----------
    rows : tuple of dict
        The batch's rows, in the columns of :data:`perfstudy.run.COLUMNS` (without ``command``).
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
        out, err = process.communicate(timeout=batch.timeout)
    except subprocess.TimeoutExpired:
        process.kill()  # type: ignore[possibly-unbound]
        process.communicate()  # type: ignore[possibly-unbound]
        return 124, time.perf_counter() - started, b"", f"timed out after {batch.timeout} s"
    except OSError as error:
        return 127, time.perf_counter() - started, b"", str(error)
    seconds = time.perf_counter() - started
    return process.returncode, seconds, out or b"", (err or b"")[-STDERR_TAIL:].decode("utf-8", "replace")


def _parsed(output: bytes, measure: str) -> list[dict]:
    """The benchmarks a run printed, read by :func:`perfstudy.io.read`: one dict per value."""
    from perfstudy.io import read

    with tempfile.NamedTemporaryFile("wb", suffix=".out", delete=False) as handle:
        handle.write(output)
    try:
        frame = read(handle.name, measure)
    finally:
        os.unlink(handle.name)
    keep = [c for c in ("benchmark", "value", "unit") if c in frame.columns]
    rows = [dict(zip(keep, values)) for values in frame[keep].itertuples(index=False, name=None)]
    for row in rows:
        row["benchmark"] = str(row.get("benchmark", "benchmark"))
    return rows


def run_batch(batch: Batch) -> BatchResult:
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
    from perfstudy.environment import load_average, probe

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
            found = [{"benchmark": batch.benchmark, "value": seconds, "unit": "s"}]
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
        version=batch.version, round=batch.round, position=batch.position,
        batch=f"{batch.round}-{batch.version}", host=host, start=start, end=end, exit_status=status,
        load=load, probe=platform_speed,
    )  # fmt: skip
    if status != 0:  # the failure is recorded: a row without a value, its status and where it stopped
        rows.append({"benchmark": batch.benchmark, "value": float("nan"), "unit": None,
                     "iteration": len(rows), "warmup": False})  # fmt: skip
    return BatchResult(
        rows=tuple({**row, **common} for row in rows), status=status, stderr=stderr, start=start, end=end, host=host
    )
