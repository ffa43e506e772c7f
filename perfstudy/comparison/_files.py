"""Two Go benchmark files compared without pandas: ``perfstudy compare base.txt new.txt``.

A CI compares its suite on every change, and importing pandas alone (0.3 s here) takes three times as
long as benchstat's whole run on 200 benchmarks. This path reads both files into columns
(:func:`perfstudy.io.go.go_columns`), lays them out as :func:`compare` would (each file a version, A the
first; each result line a batch; units converted; Go's ``Unit`` metadata), and compares them by the same
:func:`perfstudy.comparison._suite.compare_suite`; the numbers are those of ``compare(read(base) + read(new))``
(``tests/comparison/test_files.py`` holds the two equal).
"""

from __future__ import annotations

import os
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

import numpy as np

from perfstudy._lib.checks import (
    check_allocation,
    check_choice,
    check_fraction,
    check_resamples,
    check_threshold,
)
from perfstudy._lib.units import common_unit, higher_is_better
from perfstudy.comparison._intervals import CORRECTIONS, STATISTICS
from perfstudy.comparison._render import Report

if TYPE_CHECKING:
    from perfstudy._lib.types import Seed


def compare_go_files(
    base,
    new,
    *,
    labels: tuple[str, str],
    statistic: Literal["mean", "median"] = "mean",
    confidence: float = 0.95,
    threshold: float | str = 0.0,
    correction: Literal["holm", "bh", "none"] = "holm",
    replicates: int = 2000,
    rng: Seed = None,
) -> Report:
    """Compare two Go benchmark files without pandas: ``compare(df).report()`` for ``df`` the two files read
    (:func:`perfstudy.io.go.read_go`) and labelled by ``labels``, A first. What ``perfstudy compare base.txt
    new.txt`` prints; the same numbers as :func:`compare` with the same ``rng``.

    Parameters
    ----------
    base, new : str or path
        Go benchmark text of versions A and B.
    labels : tuple of str
        What A and B are called (the command line uses the paths).
    statistic, confidence, threshold, correction, replicates, rng
        As :func:`compare` takes them.

    Returns
    -------
    Report

    Raises
    ------
    FileNotFoundError
        A file that is not there, naming it.
    ValueError
        A file that is not Go benchmark text, values that are not finite or below 0 in a unit that cannot be,
        no benchmark present in both (as :func:`perfstudy.io.go.read_go` and :func:`compare` refuse them).
    """
    from perfstudy.comparison._one import _compare_one
    from perfstudy.comparison._suite import compare_suite, judged
    from perfstudy.comparison._task import _Settings
    from perfstudy.io.go import go_columns

    check_choice("statistic", statistic, STATISTICS)
    check_choice("correction", correction, CORRECTIONS)
    confidence = check_fraction("confidence", confidence)
    threshold = check_threshold(threshold)
    replicates = check_resamples("replicates", replicates, minimum=99)
    if not (isinstance(labels, tuple) and len(labels) == 2 and all(isinstance(x, str) for x in labels)):
        raise TypeError(f"labels={labels!r}: expected the names of A and B, a tuple of two texts")
    if not all(label.strip() for label in labels) or labels[0] == labels[1]:
        raise ValueError(
            f"labels={labels!r}: A and B need two different, non-empty names, or the table cannot say which is which"
        )
    for name, path in (("base", base), ("new", new)):
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"{name}={path!r}: expected the path of a Go benchmark file")
    files = [go_columns(path) for path in (base, new)]  # values checked there, as read_go checks them
    suite, units, only_a, only_b, excluded = _suite(files, labels)
    clusters = len(set(files[0].batch.tolist()) | set(files[1].batch.tolist()))  # compare()'s nunique
    del files  # the suite holds what is compared: the files' columns go before the comparison's arrays come
    check_allocation("replicates", replicates, 8.0 * replicates * (4 + 2 * clusters))
    settings = _Settings(
        statistic=statistic,
        confidence=confidence,
        threshold=float(threshold),
        replicates=replicates,
        checks=True,
        cluster="batch",
        block=None,
        sequential=False,
        check_alpha=(1 - confidence) / max(1, len(suite.names)),
    )
    rows = compare_suite(suite, settings, rng=rng, executor=None, progress=False, one=_compare_one)
    return Report(
        rows=tuple(judged(rows, correction=correction, confidence=confidence, threshold=threshold)),
        statistic=statistic,
        confidence=confidence,
        threshold=float(threshold),
        correction=correction,
        cluster="batch",
        labels=MappingProxyType({"a": labels[0], "b": labels[1]}),
        units=MappingProxyType(units),
        excluded=MappingProxyType(excluded),
        only_a=only_a,
        only_b=only_b,
    )


def _suite(files, labels: tuple[str, str]):
    """The :class:`perfstudy.comparison._suite._Suite` of two files, as :func:`perfstudy.comparison._compare._suite`
    builds it from their DataFrame: benchmarks in A's order of first appearance, each converted to one unit.
    Array operations over the rows; a Python step only per benchmark whose rows name more than one unit."""
    from perfstudy.comparison._suite import _Suite

    a, b = files
    in_a, in_b = set(a.distinct), set(b.distinct)
    only_a = tuple(sorted(map(str, in_a - in_b)))
    only_b = tuple(sorted(map(str, in_b - in_a)))
    names = [name for name in a.distinct if name in in_b]
    rank = {name: i for i, name in enumerate(names)}
    ranks = np.concatenate(
        [np.array([rank.get(name, -1) for name in found.distinct], dtype=np.int64)[found.codes] for found in files]
    )
    sides = np.repeat(np.array([0, 1], dtype=np.int8), [len(a.benchmark), len(b.benchmark)])
    factors = None  # 1 for every row, unless a benchmark's units convert
    units, excluded, dropped = {}, {}, set()
    found_units = set(a.unit) | set(b.unit)
    per_benchmark: dict = {}
    units_of_rows: list = []
    if len(found_units) == 1:  # one unit throughout (go test's ns/op alone): nothing to convert
        per_benchmark = dict.fromkeys(range(len(names)), list(found_units))
    else:  # (benchmark, unit) pairs: a benchmark with one unit throughout needs no conversion
        units_of_rows = [*a.unit, *b.unit]
        for i, unit in dict.fromkeys(zip(ranks.tolist(), units_of_rows)):
            if i >= 0:
                per_benchmark.setdefault(i, []).append(unit)
    for i, its_units in per_benchmark.items():
        name = names[i]
        if len(its_units) == 1 and isinstance(its_units[0], str):
            units[str(name)] = its_units[0]
            continue
        rows = np.flatnonzero(ranks == i)
        unit_a = [units_of_rows[r] for r in rows.tolist() if sides[r] == 0]
        unit_b = [units_of_rows[r] for r in rows.tolist() if sides[r] == 1]
        unit, factor_a, factor_b, reason = common_unit(unit_a, unit_b)
        if reason is not None:
            excluded[str(name)] = reason
            dropped.add(i)
            continue
        if unit is not None:
            units[str(name)] = unit
        if factors is None:
            factors = np.ones(ranks.size)
        factors[rows] = np.concatenate([np.broadcast_to(np.asarray(factor_a, dtype=float), len(unit_a)),
                                        np.broadcast_to(np.asarray(factor_b, dtype=float), len(unit_b))])  # fmt: skip
    kept = [i for i in range(len(names)) if i not in dropped]
    if not kept:
        reasons = "; ".join(f"{k}: {v}" for k, v in list(excluded.items())[:3])
        raise ValueError(
            f"benchmark: none can be compared between version={labels[0]!r} and version={labels[1]!r}"
            + (f" ({reasons})" if reasons else " (none is present in both)")
        )
    better, exact = _unit_metadata(files, ranks, names, [units.get(str(names[i])) for i in range(len(names))])
    position = np.full(len(names), -1, dtype=np.int64)
    position[kept] = np.arange(len(kept))
    use = ranks >= 0
    use[use] = position[ranks[use]] >= 0
    key = position[ranks[use]] * 2 + sides[use]
    rows = np.flatnonzero(use)[np.argsort(key, kind="stable")]
    bounds = np.concatenate([[0], np.cumsum(np.bincount(key, minlength=2 * len(kept)))])
    values = np.concatenate([a.value, b.value])
    batches = np.concatenate([a.batch, b.batch])
    suite = _Suite(
        names=[names[i] for i in kept],
        values=values[rows] if factors is None else values[rows] * factors[rows],
        labels=batches[rows],
        starts=bounds[0:-1:2],
        middles=bounds[1::2],
        ends=bounds[2::2],
        higher_is_better=better[kept],
        exact=exact[kept],
    )
    return suite, units, only_a, only_b, excluded


def _unit_metadata(files, ranks: np.ndarray, names: list, units: list) -> tuple[np.ndarray, np.ndarray]:
    """Per benchmark, whether higher is better (its unit's direction, or Go's ``Unit ... better=``, where all
    its rows say the same) and whether its values are exact (``assume=exact``, likewise)."""
    direction = {unit: higher_is_better(unit) for unit in set(units)}
    better = np.array([direction[unit] for unit in units], dtype=bool)
    exact = np.zeros(len(names), dtype=bool)
    if not any(found.unit_meta for found in files):
        return better, exact
    for key in ("better", "assume"):
        said: dict = {}
        for i, value in dict.fromkeys(zip(ranks.tolist(), [*files[0].metadata(key), *files[1].metadata(key)])):
            if i >= 0 and value is not None:
                said.setdefault(i, set()).add(value)
        for i, values in said.items():
            if len(values) != 1:
                continue
            value = next(iter(values))
            if key == "better" and value in ("higher", "lower"):
                better[i] = value == "higher"
            if key == "assume":
                exact[i] = value == "exact"
    return better, exact
