"""The one suite builder: every benchmark present in both versions, its rows in one unit, from columns.

:func:`perfstudy.comparison._files.laid_out` gives it two versions' columns, whether they came from two files
(:func:`perfstudy.comparison.compare_files`) or a frame (:func:`perfstudy.comparison.compare`). Array operations
over the rows; a Python step only per benchmark whose rows name more than one unit. No pandas.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from perfstudy._lib.units import common_unit, higher_is_better

__all__ = ["SuiteColumns", "build_suite"]


@dataclass(frozen=True, eq=False)
class SuiteColumns:
    """The rows of two versions as columns: what :func:`build_suite` needs, whatever file they came from.

    ``side`` is 0 for A's rows, 1 for B's and -1 for rows of neither; ``code`` is each row's benchmark as a
    position in ``distinct``. ``unit``, ``better`` and ``assume`` are per row (None where a row has none, or
    None for a column no row has; ``unit`` may be one text, every row's unit); ``block`` and ``host`` per row where the comparison pairs by block."""

    side: np.ndarray
    code: np.ndarray
    distinct: list
    value: np.ndarray
    label: np.ndarray
    unit: list | str | None = None
    better: list | None = None
    assume: list | None = None
    block: np.ndarray | None = None
    host: np.ndarray | None = None


def build_suite(columns: SuiteColumns, *, by: str, labels: tuple, excluded: dict):
    """The benchmarks present in both versions as one :class:`perfstudy.comparison._suite._Suite`: in A's
    order of first appearance, each side's rows in input order, each benchmark's values in one unit
    (:func:`perfstudy._lib.units.common_unit`).

    Parameters
    ----------
    columns : SuiteColumns
    by : str
        What names the versions (``version``, a column), for the message when nothing can be compared.
    labels : tuple
        A's and B's names, likewise.
    excluded : dict
        ``{benchmark: reason}`` already left out (emptied by warm-ups); it gains the benchmarks whose units
        do not convert.

    Returns
    -------
    tuple
        The suite, each benchmark's unit (``{name: unit}``), and the benchmarks only in A and only in B.
    """
    from perfstudy.comparison._suite import _Suite

    c = columns
    count = len(c.distinct)
    side, code = np.asarray(c.side), np.asarray(c.code, dtype=np.int64)
    present = np.zeros((2, count), dtype=bool)
    for s in (0, 1):
        present[s, code[side == s]] = True
    left_out = np.array([str(name) in excluded for name in c.distinct], dtype=bool)
    only_a = tuple(sorted(str(c.distinct[i]) for i in np.flatnonzero(present[0] & ~present[1] & ~left_out)))
    only_b = tuple(sorted(str(c.distinct[i]) for i in np.flatnonzero(present[1] & ~present[0] & ~left_out)))
    a_rows = np.flatnonzero(side == 0)
    seen, at = np.unique(code[a_rows], return_index=True)
    first = np.full(count, np.iinfo(np.int64).max)
    first[seen] = a_rows[at]
    both = np.flatnonzero(present[0] & present[1] & ~left_out)
    order = both[np.argsort(first[both], kind="stable")]
    names = [c.distinct[i] for i in order.tolist()]
    rank = np.full(count, -1, dtype=np.int64)
    rank[order] = np.arange(order.size)
    ranks = rank[code]
    ranks[side < 0] = -1  # rows of neither version
    units, factors, dropped = _units(c, ranks, side, names, excluded)
    kept = [i for i in range(len(names)) if i not in dropped]
    if not kept:
        reasons = "; ".join(f"{k}: {v}" for k, v in list(excluded.items())[:3])
        raise ValueError(
            f"benchmark: none can be compared between {by}={labels[0]!r} and {by}={labels[1]!r}"
            + (f" ({reasons})" if reasons else " (none is present in both)")
        )
    better, exact = _directions(c, ranks, [units.get(str(names[i])) for i in range(len(names))])
    position = np.full(len(names), -1, dtype=np.int64)
    position[kept] = np.arange(len(kept))
    use = ranks >= 0
    use[use] = position[ranks[use]] >= 0
    key = position[ranks[use]] * 2 + side[use]
    rows = np.flatnonzero(use)[np.argsort(key, kind="stable")]
    bounds = np.concatenate([[0], np.cumsum(np.bincount(key, minlength=2 * len(kept)))])
    from perfstudy.comparison._suite import scaled

    values = np.asarray(c.value, dtype=float)
    values = values[rows] if factors is None else values[rows] * factors[rows]
    values, scales = scaled(values, bounds[0:-1:2], bounds[2::2])
    suite = _Suite(
        names=[names[i] for i in kept],
        values=values,
        labels=np.asarray(c.label)[rows],
        starts=bounds[0:-1:2],
        middles=bounds[1::2],
        ends=bounds[2::2],
        higher_is_better=better[kept],
        exact=exact[kept],
        blocks=None if c.block is None else np.asarray(c.block)[rows],
        hosts=None if c.host is None else np.asarray(c.host)[rows],
        scales=scales,
    )
    return suite, {str(names[i]): units[str(names[i])] for i in kept if str(names[i]) in units}, only_a, only_b


def _units(c: SuiteColumns, ranks: np.ndarray, side: np.ndarray, names: list, excluded: dict):
    """Each compared benchmark's unit, the factor of each row into it (None: 1 for every row), and the
    benchmarks whose units do not convert (their reasons added to ``excluded``)."""
    units: dict = {}
    dropped: set = set()
    if c.unit is None:
        return units, None, dropped
    if isinstance(c.unit, str):  # one unit throughout (go test's ns/op alone): nothing to convert
        return {str(name): c.unit for name in names}, None, dropped
    every = bool((ranks >= 0).all())
    used_units = c.unit if every else [c.unit[r] for r in np.flatnonzero(ranks >= 0).tolist()]
    found_units = set(used_units)
    per_benchmark: dict = {}
    if len(found_units) == 1:  # one unit throughout (go test's ns/op alone): nothing to convert
        per_benchmark = dict.fromkeys(range(len(names)), list(found_units))
    else:  # (benchmark, unit) pairs: a benchmark with one unit throughout needs no conversion
        used_ranks = ranks.tolist() if every else ranks[ranks >= 0].tolist()
        for i, unit in dict.fromkeys(zip(used_ranks, used_units)):
            per_benchmark.setdefault(i, []).append(unit)
    factors = None
    for i, its_units in per_benchmark.items():
        name = names[i]
        if len(its_units) == 1 and isinstance(its_units[0], str):
            units[str(name)] = its_units[0]
            continue
        rows = np.flatnonzero(ranks == i)
        unit_a = [c.unit[r] for r in rows.tolist() if side[r] == 0]
        unit_b = [c.unit[r] for r in rows.tolist() if side[r] == 1]
        unit, factor_a, factor_b, reason = common_unit(unit_a, unit_b)
        if reason is not None:
            excluded[str(name)] = reason
            dropped.add(i)
            continue
        if unit is not None:
            units[str(name)] = unit
        if factors is None:
            factors = np.ones(ranks.size)
        in_a = side[rows] == 0
        factors[rows[in_a]] = factor_a
        factors[rows[~in_a]] = factor_b
    return units, factors, dropped


def _directions(c: SuiteColumns, ranks: np.ndarray, units: list) -> tuple[np.ndarray, np.ndarray]:
    """Per benchmark, whether higher is better (its unit's direction, or Go's ``Unit ... better=``, where all
    its rows that say it say the same) and whether its values are exact (``assume=exact``, likewise)."""
    direction = {unit: higher_is_better(unit) for unit in set(units)}
    better = np.array([direction[unit] for unit in units], dtype=bool)
    exact = np.zeros(len(units), dtype=bool)
    for key, column in (("better", c.better), ("assume", c.assume)):
        if column is None:
            continue
        said: dict = {}
        for i, value in dict.fromkeys(zip(ranks.tolist(), column)):
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
