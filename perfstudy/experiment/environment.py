"""What the machine was doing: the record pyperf keeps (``pyperf metadata``), and a platform probe.

:func:`machine` reads the CPU model and count, the frequency governor, the load average, the OS and
Python, as pyperf's ``collect_metadata`` does; :func:`machine_warnings` says what would make the
numbers noisy (a loaded machine, a governor that scales the frequency). :func:`probe` times a fixed
piece of work, so that a run can record the platform's speed between rounds and ``analyze`` can
show the drift that interleaving cancelled.
"""

from __future__ import annotations

import os
import platform
import socket
import sys
import time
from pathlib import Path

__all__ = ["machine", "machine_warnings", "probe", "load_average", "NoisyMachineWarning"]


class NoisyMachineWarning(UserWarning):
    """The machine is loaded, or its CPU frequency scales: timings will be noisier than they need be."""


#: a 1-minute load average above this share of the CPUs is a loaded machine (pyperf's system check warns
#: about other processes in the same spirit)
LOADED_SHARE = 0.5
#: governors that hold the frequency: anything else scales it with the load
STEADY_GOVERNORS = ("performance",)


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _governor() -> str | None:
    try:
        return Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor").read_text().strip() or None
    except OSError:
        return None


def load_average() -> float:
    """The 1-minute load average (NaN where the OS has none)."""
    try:
        return float(os.getloadavg()[0])
    except (OSError, AttributeError):
        return float("nan")


def machine() -> dict:
    """The machine, as pyperf records it: ``hostname``, ``cpu_model``, ``cpu_count``, ``cpu_governor``
    (None where cpufreq is not exposed, as in most VMs), ``load_average``, ``os``, ``python``,
    ``python_executable``, ``perfstudy`` (its version) and ``date`` (UTC, ISO 8601)."""
    from perfstudy import __version__

    return {
        "hostname": socket.gethostname(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpu_governor": _governor(),
        "load_average": load_average(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "perfstudy": __version__,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def machine_warnings(record: dict) -> list[str]:
    """What in a :func:`machine` record makes timings noisy, one sentence each.

    Parameters
    ----------
    record : dict
        As :func:`machine` returns it.
    """
    if not isinstance(record, dict):
        raise TypeError(f"record: expected the dict machine() returns, got {type(record).__name__}")
    for key, kind in (("cpu_count", int), ("load_average", (int, float))):
        value = record.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
            raise TypeError(f"record: {key} is {value!r}; expected a number, as machine() records it")
    found = []
    cpus = record.get("cpu_count") or 1
    load = record.get("load_average")
    if load is not None and load == load and load > LOADED_SHARE * cpus:
        found.append(
            f"the machine is loaded: load average {load:.2f} on {cpus} CPUs; other work will move the timings "
            "(interleaving cancels what is common to both versions, not the extra noise)"
        )
    governor = record.get("cpu_governor")
    if governor is not None and governor not in STEADY_GOVERNORS:
        found.append(
            f"the CPU frequency governor is {governor!r}: the clock scales with load; 'performance' holds it "
            "(sudo cpupower frequency-set -g performance, or pyperf system tune)"
        )
    return found


def probe(work: int = 1_000) -> float:
    """Seconds a fixed piece of pure-Python work takes now: the platform's speed, for the drift record.

    Parameters
    ----------
    work : int
        Loop iterations (about 0.1 ms at the default on this project's 2-core VM: a batch of /bin/true pays it).
    """
    from perfstudy._lib.checks import check_int

    work = check_int("work", work, maximum=10**9)
    started = time.perf_counter()
    total = 0
    for i in range(work):
        total += i * i
    return time.perf_counter() - started
