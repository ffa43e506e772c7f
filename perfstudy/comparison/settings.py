"""``compare``'s settings: one frozen object, :class:`CompareSettings`, checked when it is built, that
:func:`perfstudy.comparison.compare`, :func:`perfstudy.comparison.compare_files` and ``perfstudy compare`` share.
Its errors name the setting as the user wrote it: the argument in the library, the option on the command line
(``spelling="cli"``). Settings that make sense alone but not together (``sequential`` without ``block``, the minimum
over clusters) are refused here, before any file is read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal

from perfstudy._lib.checks import (
    check_bool,
    check_choice,
    check_coverage,
    check_resamples,
    check_threshold,
    said,
)
from perfstudy._lib.defaults import default
from perfstudy._lib.result import Result
from perfstudy._lib.spelling import Spelled
from perfstudy.comparison._intervals import BLOCK_STATISTICS, CORRECTIONS, SEQUENTIAL_RULES, STATISTICS
from perfstudy.comparison.running import RuleName
from perfstudy.io.harnesses import check_metric_name

__all__ = ["CompareSettings", "OPTIONS"]

#: each setting's option on the command line (a setting without one keeps its argument's name)
OPTIONS = {
    "by": "--by",
    "value": "value",
    "cluster": "--cluster",
    "statistic": "--statistic",
    "confidence": "--confidence",
    "threshold": "--threshold",
    "correction": "--correction",
    "replicates": "--replicates",
    "baseline": "--a-version",
    "dropna": "--dropna",
    "checks": "checks",
    "block": "--block",
    "sequential": "sequential",
    "trust_one_process": "--trust-one-process",
    "metric": "--metric",
}

#: fewest bootstrap replicates: below 99 a 95% percentile interval has fewer than three replicates in a tail
MIN_REPLICATES = 99

#: the opening words of the note on a benchmark whose every value on a side came from one process (pytest-benchmark's
#: rounds, criterion's samples); the command line looks for it, so it lives here, where nothing imports pandas
ONE_PROCESS_NOTE = "one process a side"


def _one_process_note(s: CompareSettings) -> str:
    """The note on a benchmark whose side ran in one process, in the words of ``s`` (the library's or the command
    line's), and whether its interval judges it."""
    trusted, trust = s.trust_one_process, s.advice("trust_one_process")
    return f"{ONE_PROCESS_NOTE}: the interval covers only the noise within one process, not between processes" + (
        f" (judged by it: {trust})" if trusted else f"; inconclusive unless {trust}"
    )


@dataclass(frozen=True)
class CompareSettings(Spelled, Result):
    """What a comparison reads and how it judges, checked once when built.

    Parameters
    ----------
    by, value, cluster, statistic, confidence, threshold, correction, replicates, baseline, dropna, checks, block, \
sequential, trust_one_process
        As :func:`perfstudy.comparison.compare` describes them, with its defaults (the table of defaults' ``compare``
        rows). ``threshold`` and ``confidence`` may be text as the command line gives them (``"2%"``, ``"95%"``).
    metric : str, optional
        Which of a harness's metrics two files are compared by, as :func:`perfstudy.io.read` takes it (Google
        Benchmark's ``cpu_time``, hyperfine's ``rss``, a JMH secondary metric); None, each harness's default. Files
        only: a frame's values are chosen when it is read.
    spelling : {"python", "cli"}
        How errors name a setting: ``replicates=`` (the library) or ``--replicates`` (the command line).

    Attributes
    ----------
    by, value, cluster, statistic, confidence, threshold, correction, replicates, baseline, dropna, checks, block, \
sequential, trust_one_process, metric, spelling
        The parameters, checked: ``threshold`` and ``confidence`` as fractions, ``sequential`` False or the rule's name
        (True is ``"t"``, Lai's sequence).
    """

    by: str = "version"
    value: str = "value"
    cluster: str = "batch"
    statistic: Literal["mean", "median", "min"] = "mean"
    confidence: float = default("compare", "confidence")
    threshold: float = default("compare", "threshold")
    correction: Literal["holm", "bh", "none"] = "holm"
    replicates: int = default("compare", "replicates")
    baseline: Any = None
    dropna: bool = False
    checks: bool = True
    block: str | None = None
    sequential: bool | RuleName = False
    trust_one_process: bool = False
    metric: str | None = None
    spelling: Literal["python", "cli"] = field(default="python", compare=False, repr=False)

    OPTIONS: ClassVar[Mapping[str, str]] = OPTIONS
    KIND: ClassVar[str] = "comparison's setting"
    FLAGS: ClassVar[tuple[str, ...]] = ("dropna", "trust_one_process")

    def __post_init__(self) -> None:
        if self.spelling not in ("python", "cli"):
            raise ValueError(f"spelling={self.spelling!r}: expected 'python' or 'cli'")
        option, set_ = self.option, object.__setattr__
        for key in ("by", "value", "cluster", "block"):
            set_(self, key, _column(option(key), getattr(self, key), optional=key == "block"))
        set_(self, "statistic", check_choice(option("statistic"), self.statistic, BLOCK_STATISTICS))
        set_(self, "confidence", check_coverage(self.confidence, option("confidence")))
        set_(self, "threshold", check_threshold(self.threshold, option("threshold")))
        set_(self, "correction", check_choice(option("correction"), self.correction, CORRECTIONS))
        set_(self, "replicates", check_resamples(option("replicates"), self.replicates, minimum=MIN_REPLICATES))
        set_(self, "dropna", check_bool(option("dropna"), self.dropna))
        set_(self, "checks", check_bool(option("checks"), self.checks))
        set_(self, "sequential", _check_sequential(option("sequential"), self.sequential))
        set_(self, "trust_one_process", check_bool(option("trust_one_process"), self.trust_one_process))
        check_metric_name(option("metric"), self.metric)
        self._check_together()

    def _check_together(self) -> None:
        """Settings that are refused together, each message naming both."""
        option = self.option
        names = {"by": self.by, "value": self.value, "cluster": self.cluster}
        seen: dict[str, str] = {}
        for key, column in names.items():
            if column in seen:
                raise ValueError(
                    f"{option(seen[column])} and {option(key)} both name the column {column!r}; each names its own"
                )
            seen[column] = key
        if self.block is not None and self.block in (self.by, self.value):
            other = "by" if self.block == self.by else "value"
            raise ValueError(f"{option('block')} and {option(other)} both name the column {self.block!r}")
        if self.statistic not in STATISTICS and self.block is None:
            raise ValueError(
                f"{said(option('statistic'), self.statistic)}: the minimum is compared per block "
                f"({said(option('block'), 'round')}), not over clusters, whose bootstrap cannot resample a minimum "
                "soundly; use 'mean' or 'median'"
            )
        if self.sequential and self.block is None:
            raise ValueError(
                f"{said(option('sequential'), self.sequential)}: a sequential interval is over blocks; give "
                f"{option('block')} (e.g. 'round')"
            )

    def replace(self, **changes) -> CompareSettings:
        """A copy with ``changes``, checked again.

        Parameters
        ----------
        **changes
            Settings and their new values.
        """
        unknown = sorted(set(changes) - set(OPTIONS))
        if unknown:
            raise TypeError(f"replace: {unknown} are not a comparison's settings; expected some of {sorted(OPTIONS)}")
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return CompareSettings(**(values | changes))


def _column(name: str, value, *, optional: bool) -> str | None:
    """A column's name: text that is not blank (None where the setting is optional)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        what = "a column's name, or None" if optional else "a column's name"
        raise TypeError(f"{said(name, value)}: expected {what}")
    if not value.strip():
        raise ValueError(f"{said(name, value)}: expected a column's name, not blank text")
    return value


def _check_sequential(name: str, sequential) -> str | Literal[False]:
    """``False``, or the sequential rule's name: True is Lai's t sequence, as before the sign rule."""
    if sequential is False or sequential is True:
        return "t" if sequential else False
    if isinstance(sequential, str) and sequential in SEQUENTIAL_RULES:
        return sequential
    raise ValueError(f"{said(name, sequential)}: expected False, True, or one of {list(SEQUENTIAL_RULES)}")
