"""What one benchmark's comparison takes: the comparison's settings (:class:`_Settings`) and the benchmark's
values and labels (:class:`_Task`, picklable for an executor). Its own module, so that the checks
(:mod:`perfstudy.comparison._batch_checks`), one benchmark's comparison (:mod:`perfstudy.comparison._one`) and the
suite (:mod:`perfstudy.comparison._suite`) import it one way."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["_Settings", "_Task", "task_settings"]


@dataclass(frozen=True)
class _Settings:
    statistic: str
    confidence: float
    threshold: float
    replicates: int
    checks: bool
    cluster: str
    block: str | None
    sequential: str | bool  # False, or the rule: "t" or "sign"
    check_alpha: float  # size of each diagnostic behind the warnings: Bonferroni over the benchmarks


def task_settings(settings, *, benchmarks: int) -> _Settings:
    """What each benchmark's comparison needs of a :class:`perfstudy.comparison.CompareSettings`, with the size of
    each diagnostic: ``1 - confidence`` shared by the ``benchmarks`` (Bonferroni), so that a clean report of many
    benchmarks is not littered with false warnings."""
    return _Settings(
        statistic=settings.statistic,
        confidence=settings.confidence,
        threshold=float(settings.threshold),
        replicates=settings.replicates,
        checks=settings.checks,
        cluster=settings.cluster,
        block=settings.block,
        sequential=settings.sequential,
        check_alpha=(1 - settings.confidence) / max(1, benchmarks),
    )


@dataclass(frozen=True, eq=False)
class _Task:
    """One benchmark's values and cluster labels in both versions (picklable, for an executor)."""

    name: object
    values_a: np.ndarray
    labels_a: np.ndarray
    values_b: np.ndarray
    labels_b: np.ndarray
    higher_is_better: bool
    settings: _Settings
    exact: bool = False  # Go's "Unit ... assume=exact": the values have no distribution
    blocks_a: np.ndarray | None = None  # with compare(block=...): each value's block (round)
    blocks_b: np.ndarray | None = None
    hosts_b: np.ndarray | None = None  # each of B's values' host, where a host column says
