"""A run's settings, checked before anything runs: each one alone (:func:`_check_each`), against a resumed
run's record (:func:`_checked_settings`), and together (:func:`_check_combination`)."""

from __future__ import annotations

import os
import warnings
from typing import Any

from perfstudy._lib.checks import check_bool, check_choice, check_fraction, check_int, check_real, check_threshold
from perfstudy.comparison import BLOCK_STATISTICS, SEQUENTIAL_RULES
from perfstudy.experiment._files import BUDGETS, DEFAULTS, LEGACY, SETTINGS
from perfstudy.experiment.batches import MEASURES


def _check_combination(settings: dict, commands: dict) -> None:
    """Settings that each make sense but not together, refused by name before anything runs."""
    callables = [v for v, c in commands.items() if callable(c)]
    if settings["metric"] != ("wall",) and settings["measure"] != "time":
        raise ValueError(
            f"metric={list(settings['metric'])}: CPU time and memory are measured of a command's process, with "
            f"measure='time'; with measure={settings['measure']!r} the values are what the command prints"
        )
    if "rss" in settings["metric"] and callables:
        raise ValueError(
            f"metric='rss': version {callables[0]}'s callable runs inside this process, whose memory is not its "
            "own; give a command, or leave rss out"
        )
    if settings["duet"]:
        if callables:
            raise ValueError(
                f"duet: version {callables[0]} is a Python callable, which runs in this process (one GIL): two "
                "at once would measure each other; give commands, or drop duet"
            )
        available = _cpus()
        if len(available) < 2:
            raise ValueError(
                f"duet: this process may use {len(available)} CPU, and a duet pins A and B to one CPU each; "
                "run without --duet (interleaved rounds), or on a machine with two or more CPUs"
            )
        if len(available) == 2:
            from perfstudy.experiment.environment import NoisyMachineWarning

            warnings.warn(
                "duet: this machine has 2 CPUs, and A and B take both: the runner, the shell and any other work share "
                "them with the commands. A duet cancels interference that reaches both CPUs alike; commands that "
                "contend for the same cache, memory bandwidth or disk slow each other down (the ratio stays fair, "
                "but each version is measured beside the other)",
                NoisyMachineWarning,
                stacklevel=3,
            )


def _cpus() -> list[int]:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


def _checked_settings(given: dict, stored: dict, *, resume: bool, path) -> dict[str, Any]:
    """The experiment's settings (the record's ``settings``), checked: the given ones over the defaults, or
    on resume the record's, with a given setting that differs from the record's refused by name."""
    checked = _check_each(given)
    if resume:
        try:
            previous = _check_each({key: value for key, value in stored.items() if key in DEFAULTS}, stored=True)
            previous = {**LEGACY, **previous}  # a record from before a setting existed ran by the old way
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
        statistic=lambda v: check_choice("statistic", v, BLOCK_STATISTICS),
        rule=lambda v: check_choice("rule", v, SEQUENTIAL_RULES),
        metric=_check_metric,
        duet=lambda v: check_bool("duet", v),
        prepare=lambda v: _check_line("prepare", v),
        setup=lambda v: _check_line("setup", v),
        cleanup=lambda v: _check_line("cleanup", v),
    )
    return {key: checks[key](value) for key, value in settings.items()}


def _check_metric(value) -> tuple[str, ...]:
    """One metric or several (``"wall,cpu"``, ``["cpu", "rss"]``) as a tuple in :data:`METRICS` order."""
    from perfstudy.experiment.batches import METRICS

    names = value.split(",") if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not names or not all(isinstance(n, str) for n in names):
        raise TypeError(f"metric={value!r}: expected one of {list(METRICS)} or several of them")
    names = [n.strip() for n in names]
    unknown = [n for n in names if n not in METRICS]
    if unknown:
        raise ValueError(f"metric: {unknown} are not metrics; expected some of {list(METRICS)}")
    return tuple(m for m in METRICS if m in names)


def _check_line(name: str, value) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f"{name}={value!r}: expected a shell command line")
    return value


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
