"""A run's settings: one frozen object, :class:`RunSettings`, checked when it is built, that :func:`run`,
:func:`perfstudy.experiment.parameters.run_parameters` and ``perfstudy run`` share. Its errors name the setting as the
user wrote it: the argument in the library, the option on the command line (``spelling="cli"``). A resumed run's
settings are the record's (:meth:`RunSettings.resumed`); settings that make sense alone but not together, or not with
the commands, are refused by :func:`check_combination`."""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, ClassVar, Literal

from perfstudy._lib.checks import (
    check_bool,
    check_choice,
    check_coverage,
    check_duration,
    check_int,
    check_threshold,
    said,
)
from perfstudy._lib.defaults import default
from perfstudy._lib.result import Result
from perfstudy._lib.spelling import Spelled
from perfstudy.comparison import BLOCK_STATISTICS, SEQUENTIAL_RULES
from perfstudy.experiment.batches import MEASURES

__all__ = ["RunSettings", "OPTIONS", "check_combination"]

#: the experiment's settings: a resumed run keeps the record's, and refuses a different one by name
SETTINGS = (
    "threshold",
    "confidence",
    "values",
    "warmup",
    "measure",
    "name",
    "shell",
    "timeout",
    "statistic",
    "rule",
    "metric",
    "benchmark",
    "duet",
    "layout",
    "prepare",
    "setup",
    "cleanup",
)


#: the budgets: a resumed run may extend them (a confidence sequence may be looked at again after any round)
BUDGETS = ("min_rounds", "max_rounds", "max_time")


#: their defaults (those of the table of defaults, :mod:`perfstudy._lib.defaults`, read from it)
DEFAULTS = MappingProxyType(
    dict(
        threshold=default("run", "threshold"),
        confidence=default("run", "confidence"),
        values=3,
        warmup=1,
        measure="time",
        name="command",
        shell=True,
        timeout=None,
        min_rounds=5,
        max_rounds=100,
        max_time=None,
        statistic=default("run", "statistic"),
        rule=default("run", "rule"),
        metric=("wall",),
        benchmark=None,
        duet=False,
        layout=True,
        prepare=None,
        setup=None,
        cleanup=None,
    )
)

#: the rounds budget when ``max_time`` is given alone: time binds (a run is not cut at 100 rounds it was not asked
#: to stop at)
UNBOUNDED_ROUNDS = 10_000_000

#: what a record written before a setting existed ran by (a run of an earlier perfstudy keeps its rule)
LEGACY = MappingProxyType(dict(rule="t", statistic="mean", layout=False))

#: each setting's option on the command line
OPTIONS = {
    "threshold": "--threshold",
    "confidence": "--confidence",
    "values": "--values",
    "warmup": "--warmup",
    "measure": "--measure",
    "name": "--name",
    "shell": "--no-shell",
    "timeout": "--timeout",
    "statistic": "--statistic",
    "rule": "--rule",
    "metric": "--metric",
    "benchmark": "--benchmark",
    "duet": "--duet",
    "layout": "--no-randomize-layout",
    "prepare": "--prepare",
    "setup": "--setup",
    "cleanup": "--cleanup",
    "min_rounds": "--min-rounds",
    "max_rounds": "--max-rounds",
    "max_time": "--max-time",
}


#: a setting not given (None): its default, or on resume the record's. The fields are annotated with their values
#: once checked; text forms (``"5%"``, ``"30s"``, ``"wall,cpu"``) are accepted too
_UNSET: Any = None


@dataclass(frozen=True)
class RunSettings(Spelled, Result):
    """What a run measures and how it judges and stops (its record's ``settings``), checked once when built.

    A setting left as None takes its default (:data:`DEFAULTS`, the table of defaults'
    ``run`` rows), or on resume the record's.

    Parameters
    ----------
    threshold, confidence, values, warmup, measure, name, shell, timeout, statistic, rule, metric, benchmark, duet, \
layout, prepare, setup, cleanup, min_rounds, max_rounds, max_time
        As :func:`perfstudy.experiment.run` describes them. ``timeout`` and ``max_time`` are durations with their
        unit (``"30s"``, a Timedelta) and are held in seconds.
    spelling : {"python", "cli"}
        How errors name a setting: ``max_rounds=`` (the library) or ``--max-rounds`` (the command line).

    Attributes
    ----------
    threshold, confidence, values, warmup, measure, name, shell, timeout, statistic, rule, metric, benchmark, duet, \
layout, prepare, setup, cleanup, min_rounds, max_rounds, max_time, spelling
        The parameters, checked, with the defaults filled in: ``threshold`` and ``confidence`` as fractions,
        durations in seconds (None: no limit), ``metric`` a tuple in ``("wall", "cpu", "rss", "instructions")``
        order.
    given : frozenset of str
        The settings given (not None) when these were built: on resume, each must agree with the record's.
    """

    threshold: float = _UNSET
    confidence: float = _UNSET
    values: int = _UNSET
    warmup: int = _UNSET
    measure: str = _UNSET
    name: str = _UNSET
    shell: bool = _UNSET
    timeout: float | None = _UNSET
    statistic: str = _UNSET
    rule: str = _UNSET
    metric: tuple[str, ...] = _UNSET
    benchmark: str | None = _UNSET
    duet: bool = _UNSET
    layout: bool = _UNSET
    prepare: str | None = _UNSET
    setup: str | None = _UNSET
    cleanup: str | None = _UNSET
    min_rounds: int = _UNSET
    max_rounds: int = _UNSET
    max_time: float | None = _UNSET
    spelling: Literal["python", "cli"] = field(default="python", compare=False, repr=False)
    given: frozenset = field(default=frozenset(), init=False, compare=False, repr=False)

    OPTIONS: ClassVar[Mapping[str, str]] = OPTIONS
    KIND: ClassVar[str] = "run's setting"

    def __post_init__(self) -> None:
        if self.spelling not in ("python", "cli"):
            raise ValueError(f"spelling={self.spelling!r}: expected 'python' or 'cli'")
        given = {f.name: getattr(self, f.name) for f in fields(self) if f.name in OPTIONS}
        given = {key: value for key, value in given.items() if value is not None}
        checked = _check_each(given, self.option)
        for key in OPTIONS:
            object.__setattr__(self, key, checked.get(key, DEFAULTS[key]))
        object.__setattr__(self, "given", frozenset(given))
        if "max_time" in given and "max_rounds" not in given:
            object.__setattr__(self, "max_rounds", UNBOUNDED_ROUNDS)
        if {"min_rounds", "max_rounds"} <= self.given:
            _check_rounds(self)
        _check_metric_measured(self)
        if self.benchmark is not None and self.measure == "time":
            raise ValueError(
                f"{_said(self, 'benchmark', self.benchmark)}: names one benchmark of a harness's output, with "
                f"{_said(self, 'measure', 'FORMAT')}; a timed command is one benchmark, named by "
                f"{_said(self, 'name', 'NAME')}"
            )

    def record(self) -> dict[str, Any]:
        """The settings as a run's record keeps them (durations in seconds)."""
        return {key: getattr(self, key) for key in OPTIONS}

    def replace(self, **changes) -> RunSettings:
        """A copy with ``changes`` given, checked again (the settings given before stay given).

        Parameters
        ----------
        **changes
            Settings and their new values.
        """
        unknown = sorted(set(changes) - set(OPTIONS))
        if unknown:
            raise TypeError(f"replace: {unknown} are not a run's settings; expected some of {sorted(OPTIONS)}")
        kept = {key: _as_given(key, getattr(self, key)) for key in self.given}
        return RunSettings(**(kept | changes), spelling=self.spelling)

    def fresh(self) -> RunSettings:
        """These settings for a new run (not resumed): a budget given alone is checked against the other's default
        (``max_rounds=4`` is below the default ``min_rounds``; on resume it is checked against the record's)."""
        _check_rounds(self)
        return self

    def resumed(self, record: dict, path) -> RunSettings:
        """The settings a resumed run continues with: the record's, with the budgets given here; a setting given
        here that differs from the record's is refused, naming both.

        Parameters
        ----------
        record : dict
            The record's ``settings``.
        path : str or path
            The run's file, for the messages.
        """
        if not isinstance(record, dict):
            raise TypeError(f"resume: {path}.json: the record's settings should be a mapping, found {record!r}")
        try:
            previous = {key: _as_given(key, value) for key, value in record.items() if key in OPTIONS}
            before = RunSettings(**{**LEGACY, **previous})  # a record from before a setting existed ran the old way
        except (TypeError, ValueError) as error:
            raise ValueError(f"resume: {path}.json: the record's settings are not a run's ({error})") from None
        different = [
            f"{self.option(key)}{' ' if self.spelling == 'cli' else '='}{_shown(key, getattr(self, key))} here, "
            f"{_shown(key, getattr(before, key))} in the record"
            for key in SETTINGS
            if key in self.given and getattr(self, key) != getattr(before, key)
        ]
        if different:
            raise ValueError(
                f"resume: {path} is the same commands with other settings ({'; '.join(different)}); a resumed run "
                "keeps its settings: drop these options to continue it, or start a new run in another file"
            )
        budgets = {key: _as_given(key, getattr(self, key)) for key in BUDGETS if key in self.given}
        kept = {key: _as_given(key, getattr(before, key)) for key in OPTIONS if key not in budgets}
        resumed = RunSettings(**(kept | budgets), spelling=self.spelling)
        object.__setattr__(resumed, "given", self.given)
        return resumed.fresh()


def _said(settings: RunSettings, setting: str, value) -> str:
    """A setting and its value as the user writes them: ``max_rounds=5``, or ``--max-rounds 5``."""
    return said(settings.option(setting), value)


def _as_given(key: str, value) -> Any:
    """A checked value as it may be given again: a duration in seconds as text with its unit."""
    if key in ("timeout", "max_time") and value is not None:
        import pandas as pd

        return pd.Timedelta(seconds=float(value))
    return value


def _check_rounds(settings: RunSettings) -> None:
    if settings.max_rounds < settings.min_rounds:
        raise ValueError(
            f"{_said(settings, 'max_rounds', settings.max_rounds)} is below "
            f"{_said(settings, 'min_rounds', settings.min_rounds)}"
        )


def check_combination(settings: RunSettings, commands: dict) -> None:
    """Settings that each make sense but not together, or not with these commands (a Python callable), refused by
    name before anything runs.

    Parameters
    ----------
    settings : RunSettings
    commands : dict
        Each version's command: an argument list, or a callable.
    """
    if not isinstance(settings, RunSettings):
        raise TypeError(f"settings: expected a RunSettings, got {type(settings).__name__}")
    if not isinstance(commands, dict):
        raise TypeError(f"commands: expected a mapping of each version to its command, got {type(commands).__name__}")
    for version, command in commands.items():
        if not callable(command) and not isinstance(command, (list, tuple)):
            raise TypeError(
                f"commands: version {version}'s command: expected an argument list or a callable, got "
                f"{type(command).__name__}"
            )
    name = settings.option
    callables = [v for v, c in commands.items() if callable(c)]
    _check_layout_placeholder(settings, commands, callables)
    if "rss" in settings.metric and callables:
        raise ValueError(
            f"{_said(settings, 'metric', 'rss')}: version {callables[0]}'s callable runs inside this process, whose memory is not "
            "its own; give a command, or leave rss out"
        )
    if "instructions" in settings.metric:
        if callables:
            raise ValueError(
                f"{_said(settings, 'metric', 'instructions')}: version {callables[0]}'s callable runs inside this "
                "process, and Valgrind counts a command's processes; give a command, or leave instructions out"
            )
        from perfstudy.experiment.instructions import instruction_counter

        instruction_counter()  # a machine without Valgrind is refused by name, before anything runs
    if settings.duet:
        if callables:
            raise ValueError(
                f"{name('duet')}: version {callables[0]} is a Python callable, which runs in this process (one GIL): "
                f"two at once would measure each other; give commands, or drop {name('duet')}"
            )
        available = _cpus()
        if len(available) < 2:
            raise ValueError(
                f"{name('duet')}: this process may use {len(available)} CPU, and a duet pins A and B to one CPU each; "
                f"run without {name('duet')} (interleaved rounds), or on a machine with two or more CPUs"
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


def _check_layout_placeholder(settings: RunSettings, commands: dict, callables: list) -> None:
    """``{layout}`` only where a batch's layout can be used: in ``prepare``, which runs before every batch, with the
    layout randomised and commands to pad (:data:`perfstudy.experiment.batches.LAYOUT_PLACEHOLDER`)."""
    from perfstudy.experiment.batches import LAYOUT_PLACEHOLDER as HERE

    name, cli = settings.option, settings.spelling == "cli"
    for version, command in commands.items():
        if not callable(command) and any(HERE in word for word in command):
            raise ValueError(
                f"{'--' if cli else ''}{version.lower()}: {HERE} is filled in only in {name('prepare')}, the command run before each "
                f"batch (to relink with a link order drawn per batch); the command itself gets the batch's padding "
                f"in its environment already; take {HERE} out of it, or move it to {name('prepare')}"
            )
    for hook in ("setup", "cleanup"):
        if HERE in (getattr(settings, hook) or ""):
            raise ValueError(
                f"{name(hook)}: {HERE} is filled in only in {name('prepare')}: {name(hook)} runs once per version, so "
                f"every batch would share one layout; relink in {name('prepare')}, which runs before each batch"
            )
    if HERE in (settings.prepare or ""):
        if not settings.layout:
            off = name("layout") if cli else "layout=False"
            raise ValueError(
                f"{name('prepare')}: {HERE} with {off}: no batch draws a layout to fill it with; drop {off}, or take "
                f"{HERE} out"
            )
        if callables:
            raise ValueError(
                f"{name('prepare')}: {HERE} with version {callables[0]}'s Python callable, which runs in this "
                "process and has no layout of its own; give commands, or take it out"
            )


def _cpus() -> list[int]:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


def _shown(key: str, value: Any) -> str:
    if key == "threshold":
        return f"{100 * value:g}%"
    if key in ("timeout", "max_time") and value is not None:
        return f"{value:g}s"
    if key == "metric":
        return ",".join(value or ())
    return repr(value)


def _check_each(settings: dict, option) -> dict[str, Any]:
    """Each given setting checked, its errors naming ``option(key)``; durations as seconds."""
    checks = dict(
        threshold=lambda n, v: check_threshold(v, n),
        confidence=lambda n, v: check_coverage(v, n),
        values=lambda n, v: check_int(n, v, minimum=1, maximum=1_000_000),
        warmup=lambda n, v: check_int(n, v, minimum=0, maximum=1_000_000),
        min_rounds=lambda n, v: check_int(n, v, minimum=2, maximum=10_000_000),
        max_rounds=lambda n, v: check_int(n, v, minimum=2, maximum=10_000_000),
        measure=lambda n, v: check_choice(n, v, MEASURES),
        name=_check_name,
        shell=check_bool,
        timeout=_seconds,
        max_time=_seconds,
        statistic=lambda n, v: check_choice(n, v, BLOCK_STATISTICS),
        rule=lambda n, v: check_choice(n, v, SEQUENTIAL_RULES),
        metric=_check_metric,
        benchmark=_check_name,
        duet=check_bool,
        layout=check_bool,
        prepare=_check_line,
        setup=_check_line,
        cleanup=_check_line,
    )
    return {key: checks[key](option(key), value) for key, value in settings.items()}


def _check_metric(name: str, value) -> tuple[str, ...]:
    """One metric or several (``"wall,cpu"``, ``["cpu", "rss"]``): those of a command's process in :data:`METRICS`
    order, else as given (a harness's, checked against ``measure`` by :func:`_check_metric_measured`)."""
    from perfstudy.experiment.batches import METRICS

    names = value.split(",") if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not names or not all(isinstance(n, str) for n in names):
        raise TypeError(f"{said(name, value)}: expected one of {list(METRICS)} or several of them")
    names = [n.strip() for n in names]
    if not all(names):
        raise ValueError(f"{said(name, value)}: a metric's name is blank")
    if all(n in METRICS for n in names):
        return tuple(m for m in METRICS if m in names)
    return tuple(dict.fromkeys(names))


def _check_metric_measured(settings: RunSettings) -> None:
    """The metrics for what is measured: of a command's process (:data:`METRICS`) with ``measure="time"``; one of
    the harness's own (:meth:`perfstudy.io.Harness.check_metric`) with ``measure`` a format."""
    from perfstudy.experiment.batches import METRICS, harness_metric

    metric, name = settings.metric, settings.option("metric")
    if settings.measure == "time":
        unknown = [n for n in metric if n not in METRICS]
        if unknown:
            raise ValueError(
                f"{name}: {unknown} are not metrics of a command's process; expected some of {list(METRICS)} "
                f"(a harness's metric is read from its output, with {settings.option('measure')} FORMAT)"
            )
        return
    if harness_metric(metric) is None:
        return  # the default: the harness's own
    if len(metric) > 1:
        raise ValueError(
            f"{_said(settings, 'metric', ','.join(metric))}: one metric of a harness's output at a time, with "
            f"{_said(settings, 'measure', settings.measure)}"
        )
    from perfstudy.io.harnesses import harness

    chosen = str(list(metric)[0])
    try:
        harness(settings.measure).check_metric(chosen, name)
    except ValueError as error:
        if chosen not in METRICS:
            raise
        process = f"CPU time and memory of the command's process are measured with {_said(settings, 'measure', 'time')}"
        raise ValueError(f"{error}; {process}") from None


def _check_line(name: str, value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f"{said(name, value)}: expected a shell command line")
    return value


def _seconds(name: str, value) -> float:
    """A duration in seconds, as :func:`check_duration` reads it (a bare number is refused)."""
    return float(check_duration(name, value).total_seconds())


def _check_name(name: str, value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f"{said(name, value)}: expected the benchmark's name, a non-empty string")
    return value
