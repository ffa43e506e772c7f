"""A command's instructions, counted: the metric ``instructions`` of ``perfstudy run`` and ``bisect``.

Hosted CI runners, and this project's machine, expose no hardware counters (``/sys/bus/event_source/devices`` has
no ``cpu``), so the count is Valgrind's: ``valgrind --tool=cachegrind --cache-sim=no --trace-children=yes``, each
process's ``I refs`` (the instructions it executed, simulated, so the same whatever else the machine runs), as
CodSpeed and iai-callgrind count. On this machine a C loop's count is the same in every run and grows by exactly 6
instructions an iteration (``tests/experiment/test_instructions.py``); a Python process's moves by a few tenths of a
percent to 2.5% between runs (its hash seed and the addresses it is given), which the rounds carry like any noise.

What is counted is the command's: every process the command line starts, its children's children too, but not the
shell that ``/bin/sh -c`` starts to run a line (the log of the process this one spawned, when it is still that
shell; a shell that ``exec``\\s the command leaves only the command's log). Valgrind runs a program 20 to 100 times
slower, so a counted run is a run of its own, after a batch's timed runs, and its time is never a value.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["COUNTER_OPTIONS", "instruction_counter"]

#: valgrind's options: the tool, no cache simulation (only the count), every child followed, no output file
COUNTER_OPTIONS = ("--tool=cachegrind", "--cache-sim=no", "--trace-children=yes", "--cachegrind-out-file=/dev/null")

_REFS = re.compile(r"^==\d+== I\s+refs:\s+([\d,]+)\s*$", re.M)
_COMMAND = re.compile(r"^==\d+== Command: (.*)$", re.M)
_PARENT = re.compile(r"^==\d+== Parent PID: (\d+)\s*$", re.M)


def instruction_counter() -> str:
    """What counts a command's instructions on this machine: Valgrind's version and tool, as a run's record keeps
    it (``instruction_counter``); a machine without Valgrind is refused by name.

    Returns
    -------
    str
        For example ``"valgrind-3.19.0 (cachegrind, no cache simulation)"``.

    Raises
    ------
    ValueError
        Valgrind is not installed (the Debian package to install is named), or does not run.
    """
    found = shutil.which("valgrind")
    hardware = Path("/sys/bus/event_source/devices/cpu").exists()
    if found is None:
        raise ValueError(
            "metric 'instructions' is counted with Valgrind (cachegrind), which is not installed here; install it "
            "(Debian and Ubuntu: apt-get install valgrind)"
            + (
                ""
                if hardware
                else "; this machine has no hardware counters either (/sys/bus/event_source/devices has no cpu)"
            )
        )
    try:
        done = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ValueError(f"metric 'instructions': {found} --version did not run ({error})") from None
    if done.returncode != 0 or not done.stdout.strip():
        raise ValueError(f"metric 'instructions': {found} --version exited {done.returncode}: {done.stderr.strip()}")
    return f"{done.stdout.strip()} (cachegrind, no cache simulation)"


def _counted(argv: tuple, logs: str) -> tuple:
    """``argv`` under Valgrind, each process's log to ``logs/<pid>``."""
    return ("valgrind", *COUNTER_OPTIONS, f"--log-file={os.path.join(logs, '%p')}", *argv)


def _scratch() -> str:
    """An empty folder for one counted run's logs."""
    return tempfile.mkdtemp(prefix="perfstudy-count-")


def _count(logs: str, argv: tuple, parent: int) -> tuple[int | None, str]:
    """The instructions of a counted run of ``argv`` from its logs in ``logs`` (removed): ``(count, "")``, or
    ``(None, why)`` when a process ended before Valgrind summed it (a log without ``I refs``). The process that
    ``parent`` spawned is left out while it is the shell of ``/bin/sh -c`` (module docstring)."""
    from perfstudy.experiment.commands import SHELL

    shelled = tuple(argv[:2]) == (SHELL, "-c")
    total, missing = 0, []
    try:
        for path in sorted(Path(logs).iterdir()):
            text = path.read_text(encoding="utf-8", errors="replace")
            refs = _REFS.findall(text)
            commands = _COMMAND.findall(text)
            parents = _PARENT.findall(text)
            top = bool(parents) and int(parents[-1]) == parent
            if top and shelled and commands and commands[-1].startswith(f"{SHELL} -c"):
                continue  # the shell that runs the line, not the line's work
            if not refs:
                missing.append(commands[-1] if commands else path.name)
                continue
            total += int(refs[-1].replace(",", ""))
    finally:
        shutil.rmtree(logs, ignore_errors=True)
    if missing:
        return None, f"valgrind summed no instructions of {missing[0]!r} (it ended before valgrind could count it)"
    return total, ""
