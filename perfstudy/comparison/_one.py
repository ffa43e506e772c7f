"""One benchmark compared on its own: its interval (bootstrap, Welch-Fieller or exact), its paired form
over blocks, and its checks. The reference for the benchmarks a layout group compares together
(:mod:`perfstudy.comparison._grouped`), and the path of those no group takes (:mod:`perfstudy.comparison._suite`).
No pandas: ``perfstudy compare`` of two Go files runs without it."""

from __future__ import annotations

import math

import numpy as np

from perfstudy._lib.format import plural
from perfstudy.comparison._batch_checks import (
    _confirm_warning,
    _drift_warning,
    _outlier_warning,
    _warmup_warning,
)
from perfstudy.comparison._intervals import _change, _interval, _method, _scale, _Side, _side
from perfstudy.comparison._task import _Task


def _compare_one(task: _Task, rng) -> dict:
    """The row of one benchmark (see :class:`Comparison`), before the correction and verdict."""
    s = task.settings
    alpha = s.check_alpha
    a = _side(task.values_a, task.labels_a, s.statistic)
    b = _side(task.values_b, task.labels_b, s.statistic)
    interval_rng, confirm_rng = np.random.default_rng(rng).spawn(2)
    method, scale = ("exact" if task.exact else _method(a, b)), _scale(a, b)
    notes = []
    if task.exact:
        # benchstat's AssumeExact: one value is the truth, any difference is real; p is 0 or 1
        low = high = _change(a, b, scale)
        p = 0.0 if low != 0 else 1.0
        for side, label in ((a, "A"), (b, "B")):
            if np.ptp(side.values) > 0:
                notes.append(
                    f"assume=exact, but the values in {label} range from {side.values.min():.6g} to "
                    f"{side.values.max():.6g}"
                )
    elif s.block is not None:
        return _paired_row(task, a, b)
    else:
        low, high, p = _interval(a, b, scale, method, s.statistic, s.confidence, s.replicates, interval_rng)
    if scale == "difference":
        notes.append("a value or batch statistic of 0 or below: compared as the difference B - A, not a ratio")
    for side, label in ((a, "A"), (b, "B")):
        if side.clusters == 1 and not task.exact:
            notes.append(f"one {s.cluster} in {label}: no interval can be trusted; run more {plural(s.cluster)}")
    if method == "t":
        notes.append(
            f"few {plural(s.cluster)} ({min(a.clusters, b.clusters)}): Welch t interval over the {plural(s.cluster)}"
        )
    if s.checks and scale == "ratio" and not task.exact:  # the checks compare batches by their ratios
        for side, label, labels in ((a, "A", task.labels_a), (b, "B", task.labels_b)):
            notes += filter(
                None,
                (
                    _warmup_warning(side, label, alpha, s.threshold),
                    _drift_warning(side, label, alpha),
                    _outlier_warning(side, np.unique(labels), label, alpha),
                    _confirm_warning(side, label, s, confirm_rng),
                ),
            )
    found = dict(scale=scale, change=_change(a, b, scale), low=low, high=high, p_value=p, method=method)
    return _row(task, a, b, (a.clusters, b.clusters), found | {"notes": notes})


def _row(task: _Task, a: _Side, b: _Side, clusters: tuple[int, int], found: dict) -> dict:
    """One benchmark's row of :class:`Comparison`'s table, before the correction and verdict: ``found`` holds
    its interval (``scale``, ``change``, ``low``, ``high``, ``p_value``, ``method``) and ``notes``."""
    scale, change, low, high = found["scale"], found["change"], found["low"], found["high"]
    p_value, method, notes = found["p_value"], found["method"], found["notes"]
    return dict(
        benchmark=task.name,
        n_a=int(a.values.size),
        n_b=int(b.values.size),
        clusters_a=clusters[0],
        clusters_b=clusters[1],
        estimate_a=a.estimate,
        estimate_b=b.estimate,
        spread_a=_spread(a),
        spread_b=_spread(b),
        scale=scale,
        change=change,
        low=low,
        high=high,
        p_value=p_value,
        method=method,
        higher_is_better=task.higher_is_better,
        notes=tuple(notes),
    )


def _paired_row(task: _Task, a: _Side, b: _Side) -> dict:
    """The row of one benchmark paired over blocks (:mod:`perfstudy.comparison._paired`)."""
    from perfstudy.comparison._paired import block_differences, paired_interval

    s = task.settings
    blocks, stat_a, stat_b = block_differences(
        task.values_a, task.blocks_a, task.values_b, task.blocks_b, statistic=s.statistic
    )
    if blocks.size == 0:
        raise ValueError(
            f"block={s.block!r}: benchmark {task.name!r}: no {s.block} holds both versions, so nothing pairs; give "
            f"the column in which both versions ran side by side (a run's 'round'), or leave block out"
        )
    hosts = None
    if task.hosts_b is not None:
        host_of = dict(zip(task.blocks_b.tolist(), task.hosts_b.tolist()))  # type: ignore[union-attr]
        hosts = np.array([host_of[block] for block in blocks.tolist()])
    found = paired_interval(
        stat_a, stat_b, confidence=s.confidence, sequential=s.sequential, hosts=hosts, check_alpha=s.check_alpha
    )
    notes = list(found["notes"])
    unpaired = len(np.unique(task.blocks_a)) + len(np.unique(task.blocks_b)) - 2 * blocks.size  # type: ignore[arg-type]
    if unpaired:
        blocks_word = s.block if unpaired == 1 else plural(s.block)  # type: ignore[arg-type]
        notes.append(f"{unpaired} {blocks_word} with only one version left out of the pairing")
    if s.checks and found["scale"] == "ratio":
        for side, label in ((a, "A"), (b, "B")):
            notes += filter(None, (_warmup_warning(side, label, s.check_alpha, s.threshold),))
    return _row(task, a, b, (int(blocks.size), int(blocks.size)), found | {"notes": notes})


def _spread(side: _Side) -> float:
    """The side's spread relative to its centre: the SD of its batch statistics over ``|estimate|`` (of its
    values when it has one batch); NaN with a single value or a centre of 0."""
    spread = side.statistics if side.clusters > 1 else side.values
    if spread.size < 2 or side.estimate == 0:
        return math.nan
    return float(spread.std(ddof=1) / abs(side.estimate))
