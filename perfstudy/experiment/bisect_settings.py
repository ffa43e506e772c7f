"""A bisect's settings: one frozen object, :class:`BisectSettings`, checked when it is built, that
:func:`perfstudy.experiment.bisection.bisect` and ``perfstudy bisect`` share. It holds the bisect's own settings (the
threshold, the confidence of the bisect as a whole, each step's budgets, the seed) and each step's run settings,
checked once as a :class:`perfstudy.experiment.settings.RunSettings` (:attr:`BisectSettings.run`); a step runs
with them at its own confidence (:meth:`BisectSettings.step`). Its errors name a setting as the user wrote it: the
argument in the library, the option on the command line (``spelling="cli"``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from perfstudy._lib.checks import check_coverage, check_int, check_threshold, said
from perfstudy._lib.defaults import default
from perfstudy._lib.result import Result
from perfstudy._lib.spelling import Spelled
from perfstudy.experiment.settings import (
    DEFAULTS as RUN_DEFAULTS,
    OPTIONS as RUN_OPTIONS,
    UNBOUNDED_ROUNDS,
    RunSettings,
)

__all__ = ["BisectSettings", "STEP_SETTINGS"]

#: each step's run settings that a bisect takes (the run's own names and options)
STEP_SETTINGS = (
    "statistic",
    "rule",
    "measure",
    "metric",
    "benchmark",
    "duet",
    "layout",
    "values",
    "warmup",
    "timeout",
    "shell",
    "prepare",
    "setup",
    "cleanup",
)

#: each setting's option on the command line
OPTIONS: Mapping[str, str] = {
    "threshold": "--threshold",
    "confidence": "--confidence",
    "max_rounds": "--max-rounds",
    "max_time": "--max-time",
    "seed": "--seed",
    **{key: RUN_OPTIONS[key] for key in STEP_SETTINGS},
}


@dataclass(frozen=True)
class BisectSettings(Spelled, Result):
    """What a bisect measures, how each step judges and when it stops, checked once when built.

    Parameters
    ----------
    threshold : float or str, optional
        The smallest relative change that counts (``0.05`` or ``"5%"``); above 0. Default: the table of defaults'
        ``bisect`` row.
    confidence : float or str, optional
        Of the bisect as a whole (``0.95`` or ``"95%"``).
    max_rounds : int, optional
        Each step's budget of rounds: the table's (200) by default, none when ``max_time`` is given alone (time
        binds); at least 5 (a step looks at its interval from its 5th round).
    max_time : str, optional
        Each step's budget of time (``"2m"``).
    seed : int or None
        Each step's run draws its order from ``seed + step``; None draws a new one each time.
    statistic, rule, measure, metric, benchmark, duet, layout, values, warmup, timeout, shell, prepare, setup, \
cleanup : optional
        Each step's run settings, as :func:`perfstudy.experiment.run` describes them (None: the run's default).
        ``metric`` names one metric: a bisect follows one. With ``measure`` a harness's format, ``benchmark`` names
        the one benchmark of its output that the bisect follows (required: a suite holds many). ``{commit}`` in a
        hook is each version's commit, which needs the shell.
    spelling : {"python", "cli"}
        How errors name a setting: ``max_rounds=`` (the library) or ``--max-rounds`` (the command line).

    Attributes
    ----------
    threshold, confidence : float
        As fractions.
    max_rounds : int
    max_time : float or None
        Seconds.
    seed : int or None
    statistic, rule, measure, metric, benchmark, duet, layout, values, warmup, timeout, shell, prepare, setup, \
cleanup
        As given (None: the run's default, which :attr:`run` holds).
    spelling : str
    run : RunSettings
        Each step's run settings, at the bisect's confidence (:meth:`step` gives a step's).
    steps : dict
        The step settings given (not None), as the bisect's file records them (``run_options``).
    """

    threshold: Any = None
    confidence: Any = None
    max_rounds: Any = None
    max_time: Any = None
    seed: int | None = field(default_factory=lambda: default("bisect", "seed"))
    statistic: Any = None
    rule: Any = None
    measure: Any = None
    metric: Any = None
    benchmark: Any = None
    duet: Any = None
    layout: Any = None
    values: Any = None
    warmup: Any = None
    timeout: Any = None
    shell: Any = None
    prepare: Any = None
    setup: Any = None
    cleanup: Any = None
    spelling: Literal["python", "cli"] = field(default="python", compare=False, repr=False)
    run: RunSettings = field(init=False, compare=False, repr=False)
    steps: dict = field(init=False, compare=False, repr=False)

    OPTIONS: ClassVar[Mapping[str, str]] = OPTIONS
    KIND: ClassVar[str] = "bisect's setting"

    def __post_init__(self) -> None:
        if self.spelling not in ("python", "cli"):
            raise ValueError(f"spelling={self.spelling!r}: expected 'python' or 'cli'")
        name = self.option
        threshold = check_threshold(
            default("bisect", "threshold") if self.threshold is None else self.threshold, name("threshold")
        )
        if threshold == 0:
            raise ValueError(
                f"{said(name('threshold'), self.threshold)}: a bisect needs a threshold above 0, or no commit could "
                "be called unchanged"
            )
        confidence = check_coverage(
            default("bisect", "confidence") if self.confidence is None else self.confidence, name("confidence")
        )
        if self.seed is not None:
            object.__setattr__(self, "seed", check_int(name("seed"), self.seed, minimum=0, maximum=2**32 - 2**16))
        max_rounds = self.max_rounds
        if max_rounds is not None:  # each step's run looks at its interval from its min_rounds-th round on
            check_int(name("max_rounds"), max_rounds, minimum=RUN_DEFAULTS["min_rounds"], maximum=UNBOUNDED_ROUNDS)
        elif self.max_time is None:
            max_rounds = default("bisect", "max_rounds")  # with max_time alone, the run's own rule: time binds
        steps = {key: getattr(self, key) for key in STEP_SETTINGS if getattr(self, key) is not None}
        metric = steps.get("metric")
        if metric is not None and len(metric.split(",") if isinstance(metric, str) else list(metric)) != 1:
            raise ValueError(f"{said(name('metric'), metric)}: a bisect follows one metric; name one")
        if steps.get("measure", "time") != "time" and steps.get("benchmark") is None:
            raise ValueError(
                f"{said(name('measure'), steps['measure'])}: a harness's output holds many benchmarks, and a bisect "
                f"follows one; name it with {name('benchmark')}"
            )
        for hook in ("prepare", "setup", "cleanup"):
            text = steps.get(hook)
            if isinstance(text, str) and "{commit}" in text and steps.get("shell") is False:
                raise ValueError(
                    f"{said(name(hook), text)}: a hook with {{commit}} runs each version's commit through the shell; "
                    f"drop {name('shell') if self.spelling == 'cli' else 'shell=False'}"
                )
        budgets = {"max_rounds": max_rounds, "max_time": self.max_time}  # None: not given, the run's rule decides
        run = RunSettings(
            threshold=threshold,
            confidence=confidence,
            spelling=self.spelling,
            **{key: value for key, value in budgets.items() if value is not None},
            **steps,
        ).fresh()
        object.__setattr__(self, "threshold", threshold)
        object.__setattr__(self, "confidence", confidence)
        object.__setattr__(self, "max_rounds", run.max_rounds)
        object.__setattr__(self, "max_time", run.max_time)
        object.__setattr__(self, "run", run)
        object.__setattr__(self, "steps", steps)

    def step(self, confidence: float) -> RunSettings:
        """A step's run settings: :attr:`run` at the step's ``confidence``.

        Parameters
        ----------
        confidence : float
            The step's (:func:`perfstudy.experiment.bisection.step_confidence`).
        """
        return self.run.replace(confidence=confidence)

    def record(self) -> dict[str, Any]:
        """The settings as the bisect's file keeps them (its ``run_options``: the step settings given)."""
        import json

        return json.loads(json.dumps(self.steps, sort_keys=True, default=str))
