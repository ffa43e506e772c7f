"""Two files compared: ``perfstudy compare BASE NEW`` and :func:`compare_files`, one path for every harness.

Each file is read into its measurements (:func:`perfstudy.io.file_columns`, of which :func:`perfstudy.io.read`'s
DataFrame is a view), each file a version, A the first. The columns are laid out as :func:`compare` lays out a
frame: warm-ups left out and counted (a benchmark left with no value in a version excluded, saying so), the rest
sorted stably by cluster and then position in its cluster, A's rows before B's; then the one suite builder
(:func:`perfstudy.comparison._columns.build_suite`) and the one comparison of a suite
(:func:`perfstudy.comparison._suite.compare_suite`). No pandas: importing it alone takes longer than the rest of a
200-benchmark comparison (``benchmarks/pyperf_suite.py``, ``benchmarks/suite.py``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from perfstudy._lib.checks import check_allocation, check_choice, said
from perfstudy.comparison._intervals import STATISTICS
from perfstudy.comparison._render import Report
from perfstudy.comparison.settings import CompareSettings, _one_process_note

__all__ = ["compare_files"]

if TYPE_CHECKING:
    from perfstudy._lib.types import Seed
    from perfstudy.io.columns import FileColumns
    from perfstudy.io.harnesses import Format


def compare_files(
    base,
    new,
    settings: CompareSettings | None = None,
    *,
    labels: tuple[str, str] | None = None,
    format: Format = "auto",
    rng: Seed = None,
) -> Report:
    """Compare two benchmark files of any harness perfstudy reads, per benchmark: what ``perfstudy compare BASE
    NEW`` prints. The numbers are those of ``compare(df).report()`` for ``df`` the two files read and labelled.

    Parameters
    ----------
    base, new : str, path or FileColumns
        The files of versions A and B (:func:`perfstudy.io.file_columns`), or their measurements.
    settings : CompareSettings, optional
        The comparison's settings (default: compare's). The files decide the versions (each file is one, ``base``
        is A) and the values: settings of ``by``, ``value``, ``baseline`` or ``sequential`` are refused, naming
        them. ``cluster`` and ``block`` name columns of the files; ``dropna`` and ``metric`` are how they are read.
    labels : tuple of str, optional
        What A and B are called (default: the paths, told apart as ``(A)`` and ``(B)`` when they are one).
    format : str
        The files' format (:data:`perfstudy.io.FORMATS`); ``"auto"`` detects each file's.
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    Report

    Raises
    ------
    FileNotFoundError
        A file that is not there, naming it.
    ValueError
        A file its reader refuses (in the reader's words), a file that holds two versions (a perfstudy run's file), a
        column the files do not have, no benchmark present in both.
    """
    from perfstudy.io import FORMATS, file_columns
    from perfstudy.io.columns import FileColumns

    s = settings if settings is not None else CompareSettings()
    if not isinstance(s, CompareSettings):
        raise TypeError(f"settings={s!r}: expected a CompareSettings")
    check_choice("format", format, FORMATS)
    _check_for_files(s)
    files = []
    for name, source in (("base", base), ("new", new)):
        if isinstance(source, FileColumns):
            files.append(source)
        elif isinstance(source, (str, os.PathLike)):
            files.append(file_columns(source, format, dropna=s.dropna, metric=s.metric))
        else:
            raise TypeError(f"{name}={source!r}: expected the path of a benchmark file, or its FileColumns")
    if labels is None:
        labels = _labels(base, new)
    _check_labels(labels)
    for label, columns in zip(labels, files):
        _check_one_version(label, columns)
    found: list[str] = []  # what reading the files found, said under the table
    files = _one_command_each(files, found)
    dropped = sum(int(f.attrs.get("dropped", 0)) for f in files)
    if dropped:
        found.append(
            f"{dropped} value(s) left out when the files were read ({s.option('dropna')}: not numbers, or runs that failed)"
        )
    return _compare(files[0], files[1], labels=labels, s=s, rng=rng, found=found)


def _one_command_each(files: list, said: list) -> list:
    """Two hyperfine files of one command each: the commands differ, yet they are one benchmark, A's command
    against B's, named by both (each file's benchmark is its command line)."""
    if not all(f.tool == "hyperfine" and len(f.distinct) == 1 for f in files):
        return files
    commands = [str(f.distinct[0]) for f in files]
    if commands[0] == commands[1]:
        return files
    said.append(f"A runs `{commands[0]}`, B runs `{commands[1]}`: one benchmark, each file's one command")
    return [f.renamed(f"{commands[0]} -> {commands[1]}") for f in files]


def _check_one_version(label: str, columns: FileColumns) -> None:
    """A file that holds two or more versions in its ``version`` column (a perfstudy run's file, a tidy table of
    both) would pool them as one: refused, saying how to compare it."""
    if "version" not in columns.columns:
        return
    versions = sorted({str(v) for v in set(columns.column("version").tolist()) if not _missing(v)})
    if len(versions) > 1:
        raise ValueError(
            f"{label} holds {len(versions)} versions in its 'version' column ({versions[:4]}), which would be pooled "
            f"as one: compare it alone (perfstudy compare {label}), or give files of one version each"
        )


def _labels(base, new) -> tuple[str, str]:
    """Each file named by its path, so that the table and the JSON say which is which; the same path twice is told
    apart as ``(A)`` and ``(B)``."""
    names = (str(base), str(new))
    return (f"{names[0]} (A)", f"{names[1]} (B)") if names[0] == names[1] else names


def _check_labels(labels) -> None:
    if not (isinstance(labels, tuple) and len(labels) == 2 and all(isinstance(x, str) for x in labels)):
        raise TypeError(f"labels={labels!r}: expected the names of A and B, a tuple of two texts")
    if not all(label.strip() for label in labels) or labels[0] == labels[1]:
        raise ValueError(
            f"labels={labels!r}: A and B need two different, non-empty names, or the table cannot say which is which"
        )


def _check_for_files(s: CompareSettings) -> None:
    """Refuse the settings that two files decide themselves, naming them: each file is a version (``by``,
    ``baseline``), its values are the values (``value``), and a sequential interval is a run's."""
    plain = CompareSettings()
    decided = ("by", "value", "baseline", "sequential")
    differ = [s.option(key) for key in decided if getattr(s, key) != getattr(plain, key)]
    if differ:
        raise ValueError(
            f"settings: {', '.join(differ)} cannot be set for two files, each of which is a version; read them "
            "with perfstudy.io.read and call compare()"
        )
    if s.block is None and s.statistic not in STATISTICS:
        raise ValueError(f"statistic={s.statistic!r}: two files are compared unpaired; use 'mean' or 'median'")


def _compare(a: FileColumns, b: FileColumns, *, labels: tuple, s: CompareSettings, rng, found: list) -> Report:
    """The two files' measurements compared, as a report; ``found``, what reading them found, under its table."""
    laid = laid_out(a, b, labels, s)
    check_allocation(s.option("replicates"), s.replicates, 8.0 * s.replicates * (4 + 2 * laid.clusters))
    return Report(
        rows=tuple(compared(laid, s, rng=rng)),
        statistic=s.statistic,
        confidence=s.confidence,
        threshold=s.threshold,
        correction=s.correction,
        cluster=s.block or s.cluster,
        labels=MappingProxyType({"a": labels[0], "b": labels[1]}),
        units=MappingProxyType(laid.units),
        excluded=MappingProxyType(laid.excluded),
        only_a=laid.only_a,
        only_b=laid.only_b,
        warmup_dropped=laid.warmups,
        said=(*found, *_measured_apart(a, b)),
    )


#: what says which machine a file was measured on: its reader's ``attrs`` (Google Benchmark's ``context``, pyperf's
#: ``metadata``, pytest-benchmark's ``machine_info``, BenchmarkDotNet's ``host``) and their keys for the machine
_MACHINES = ("context", "metadata", "machine_info", "host")
_MACHINE_KEYS = frozenset(
    ("host_name", "hostname", "node", "MachineName", "processor", "cpu_model_name", "ProcessorName", "num_cpus",
     "cpu_count", "mhz_per_cpu", "cpu_freq", "load_avg", "load_avg_1min", "cpu_scaling_enabled", "platform", "OsVersion")
)  # fmt: skip


def _measured_apart(a: FileColumns, b: FileColumns) -> tuple[str, ...]:
    """What a comparison of two files says once: they were measured one after the other, so the machine's changes
    between them read as changes, and how their machines differ where the files record them."""
    said = [
        "A and B were measured one after the other, each in its own file: what changed on the machine between "
        "them (its load, its clock, its other work) reads as a change of the code; perfstudy run interleaves them "
        "in rounds so that it cancels."
    ]
    when = [_when(f) for f in (a, b)]
    if any(when):
        said.append(
            "The files record when they were measured: "
            + "; ".join(f"{side} {span}" if span else f"{side} not" for side, span in zip(("A", "B"), when))
            + "."
        )
    differ = []
    for key in _MACHINES:
        first, second = (f.attrs.get(key) for f in (a, b))
        if isinstance(first, dict) and isinstance(second, dict):
            shared = sorted(_MACHINE_KEYS & set(first) & set(second))
            differ += [f"{k} {first[k]!r} and {second[k]!r}" for k in shared if _differ(k, first[k], second[k])]
    if not differ and "host" in a.columns and "host" in b.columns:
        hosts = [sorted({str(h) for h in f.column("host").tolist() if not _missing(h)}) for f in (a, b)]
        if all(hosts) and hosts[0] != hosts[1]:
            differ.append(f"host {', '.join(hosts[0])} and {', '.join(hosts[1])}")
    if differ:
        said.append(f"Their machines differ, as the files record them (A's, then B's): {'; '.join(differ[:4])}.")
    return tuple(said)


def _when(f: FileColumns) -> str:
    """When a file was measured, as its ``timestamp`` column records it: ``"at T"`` or ``"from T to T"``, to the
    minute (``""`` when it records no date). Google Benchmark's context, pyperf's runs and pytest-benchmark's file
    carry one; an ISO text keeps its own time zone."""
    if "timestamp" not in f.columns:
        return ""
    dates = f.column("timestamp")
    if dates.dtype.kind == "M":
        present = np.datetime_as_string(dates[~np.isnat(dates)], unit="m").tolist()
    else:
        present = [str(d) for d in set(dates.tolist()) if not _missing(d)]
    minutes = sorted({re.sub(r"^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d)(:[\d.]+)?", r"\1 \2", d) for d in present})
    if not minutes:
        return ""
    return f"at {minutes[0]}" if len(minutes) == 1 else f"from {minutes[0]} to {minutes[-1]}"


#: a load average that moved by less than this (half a CPU's work) is not said to differ
_LOAD_DIFFERS = 0.5


def _differ(key: str, first, second) -> bool:
    """Whether two files' records of ``key`` differ: a load average by :data:`_LOAD_DIFFERS` or more, else at all."""
    numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (first, second))
    if key.startswith("load_avg") and numbers:
        return abs(first - second) >= _LOAD_DIFFERS
    return first != second


def compared(laid: _Laid, s: CompareSettings, *, rng, executor=None, progress: bool = False) -> list[dict]:
    """Each benchmark of a laid-out suite compared (:func:`perfstudy.comparison._suite.compare_suite`) and judged
    over the suite, a benchmark of one process on a side noted, and its verdict "inconclusive" unless
    ``trust_one_process``: its interval covers the noise within one process, which cannot tell a version from that
    process's state.

    Parameters
    ----------
    laid : _Laid
        What :func:`laid_out` gives.
    s : CompareSettings
    rng : None, int, SeedSequence or Generator
    executor : Executor, optional
    progress : bool
    """
    from perfstudy.comparison._one import _compare_one
    from perfstudy.comparison._suite import compare_suite, judged
    from perfstudy.comparison._task import task_settings

    task = task_settings(s, benchmarks=len(laid.suite.names))
    rows = compare_suite(laid.suite, task, rng=rng, executor=executor, progress=progress, one=_compare_one)
    rows = judged(rows, correction=s.correction, confidence=s.confidence, threshold=s.threshold)
    note, trusted = _one_process_note(s), s.trust_one_process
    return [
        dict(row, notes=(*row["notes"], note), verdict=row["verdict"] if trusted else "inconclusive")
        if str(row["benchmark"]) in laid.one_process
        else row
        for row in rows
    ]


@dataclass(frozen=True)
class _Laid:
    """Two versions laid out for the suite builder: the suite, what it found, and the benchmarks of one process."""

    suite: Any
    units: dict
    only_a: tuple
    only_b: tuple
    excluded: dict
    warmups: int
    clusters: int
    one_process: set


def laid_out(a: FileColumns, b: FileColumns, labels: tuple, s: CompareSettings) -> _Laid:
    """Two versions' columns laid out for the one suite builder, whether they came from two files or from a frame
    (:func:`compare`): warm-ups left out (a benchmark left with no value in a version excluded, saying so), the rest
    sorted by cluster and then position in it (stable: A's rows before B's), paired by ``block`` where the settings
    say so (a block must hold both versions).

    Parameters
    ----------
    a, b : FileColumns
        Versions A's and B's values (``settings.value`` names their column).
    labels : tuple
        A's and B's names.
    s : CompareSettings
    """
    from perfstudy.comparison._columns import build_suite

    columns, excluded, warmups, clusters = _in_order(a, b, labels, s)  # its working arrays freed before the build
    suite, units, only_a, only_b = build_suite(columns, by=s.by, labels=labels, excluded=excluded)
    return _Laid(suite, units, only_a, only_b, excluded, warmups, clusters, _one_process(a, b))


def _in_order(a: FileColumns, b: FileColumns, labels: tuple, s: CompareSettings):
    """:func:`laid_out`'s columns for the suite builder, in order, with the benchmarks excluded, the warm-ups left
    out and the number of clusters."""
    from perfstudy.comparison._columns import SuiteColumns

    cluster = _joint(a, b, s.cluster, s.option("cluster"))
    block = _joint(a, b, s.block, s.option("block")) if s.block else None
    joint, code = _joint_codes(a, b)
    side = np.repeat(np.array([0, 1], dtype=np.int8), [a.size, b.size])
    warmup = _joint(a, b, "warmup", "warmup", default=False).astype(bool)
    excluded = _emptied(joint, code, side, warmup, labels, s.by, (a.distinct, b.distinct)) if warmup.any() else {}
    if block is not None:
        _check_blocks(block, side, s)
    iteration = _joint(a, b, "iteration", "iteration", default=0)
    if warmup.any():  # compare()'s sort by [cluster, iteration], of the values left
        keep = np.flatnonzero(~warmup)
        order = keep[np.lexsort((iteration[keep], _sortable(cluster[keep])))]
    else:
        order = np.lexsort((iteration, _sortable(cluster)))
    del iteration
    described = {key: _texts(a, b, key) for key in ("unit", "better", "assume")}
    columns = SuiteColumns(
        side=side[order],
        code=code[order],
        distinct=list(joint),
        value=np.concatenate([a.column(s.value), b.column(s.value)]).astype(float, copy=False)[order],
        label=cluster[order],
        unit=_ordered_unit(described["unit"], order),
        better=_ordered(described["better"], order),
        assume=_ordered(described["assume"], order),
        block=None if block is None else block[order],
        host=_host(a, b, s.block, order),
    )
    return columns, excluded, int(warmup.sum()), _count_distinct(cluster)


def _ordered(values: list | str | None, order: np.ndarray) -> list | None:
    """Per-entry texts in the suite's order; None where no entry has one."""
    if values is None:
        return None
    if isinstance(values, str):
        return [values] * order.size
    return np.asarray(values, dtype=object)[order].tolist()


def _ordered_unit(values: list | str | None, order: np.ndarray) -> list | str | None:
    """:func:`_ordered` of units, with the suite builder's shortcut: one text where every entry has that one."""
    if isinstance(values, list) and len(found := set(values)) == 1:
        return next(iter(found))
    return values if isinstance(values, str) else _ordered(values, order)


def _joint(a: FileColumns, b: FileColumns, name: str, option: str, default=None) -> np.ndarray:
    """Column ``name`` of both files, A's entries first; refused, naming the option, where a file has no such column
    (or ``default`` for every entry)."""
    parts = []
    for f in (a, b):
        if name in f.columns:
            parts.append(f.column(name))
        elif default is not None:
            parts.append(np.full(f.size, default))
        else:
            raise ValueError(f"{said(option, name)}: the file has no such column; its columns are {list(f.columns)}")
    joint = np.concatenate(parts)
    missing = np.array([_missing(x) for x in joint.tolist()], dtype=bool) if joint.dtype == object else None
    if missing is not None and missing.any():
        raise ValueError(f"{said(option, name)}: {int(missing.sum())} rows have no {name!r}; every value needs one")
    return joint


def _missing(value) -> bool:
    """None, NaN, or pandas' NA and NaT: what ``pd.isna`` calls missing in a column of objects."""
    return value is None or (isinstance(value, float) and value != value) or type(value).__name__ in _NA


#: the types of pandas' missing values, named without importing pandas
_NA = frozenset(("NAType", "NaTType"))


def _emptied(joint: dict, code: np.ndarray, side: np.ndarray, warmup: np.ndarray, labels, by: str, distinct) -> dict:
    """The benchmarks that leaving warm-ups out leaves with no value in a version, with the reason, in
    :func:`compare`'s order and words."""
    excluded: dict = {}
    for k in (0, 1):
        mine = side == k
        warm = np.bincount(code[mine & warmup], minlength=len(joint))
        rest = np.bincount(code[mine & ~warmup], minlength=len(joint))
        for name in (n for n in distinct[k] if warm[joint[n]] and not rest[joint[n]]):
            excluded[str(name)] = f"no values left in {by}={labels[k]!r} once warm-ups are left out"
    return excluded


def _sortable(labels: np.ndarray) -> np.ndarray:
    """Cluster labels in an order that sorts as pandas sorts the column, for a stable sort: numbers as they are,
    texts and objects as integers in their sorted order."""
    if labels.dtype.kind in "biuf":
        return labels
    return np.unique(labels, return_inverse=True)[1] if labels.dtype != object else _ranks(labels.tolist())


def _count_distinct(labels: np.ndarray) -> int:
    """How many distinct labels (the clusters), without a list of them all."""
    if labels.size == 0:
        return 0
    ordered = np.sort(_sortable(labels))
    return int(np.count_nonzero(ordered[1:] != ordered[:-1])) + 1


def _ranks(values: list) -> np.ndarray:
    ranked = {value: rank for rank, value in enumerate(sorted(set(values), key=lambda v: (str(type(v)), v)))}
    return np.fromiter(map(ranked.__getitem__, values), dtype=np.int64, count=len(values))


def _check_blocks(block: np.ndarray, side: np.ndarray, s: CompareSettings) -> None:
    if not set(block[side == 0].tolist()) & set(block[side == 1].tolist()):
        raise ValueError(
            f"{said(s.option('block'), s.block)}: no {s.block} holds both versions, so nothing pairs; give the column "
            "in which both versions ran side by side (a run's 'round'), or leave it out for an unpaired comparison"
        )


def _texts(a: FileColumns, b: FileColumns, name: str) -> list | str | None:
    """Each entry's ``unit``, ``better`` or ``assume`` as text (None where missing); one text where both files give
    the column once and alike, None where neither has it."""
    given = [f.columns.get(name) for f in (a, b)]
    if not any(isinstance(column, (list, np.ndarray)) for column in given):  # each once throughout, or absent
        texts = {None if _missing(column) else str(column) for column in given}
        return None if texts == {None} else next(iter(texts)) if len(texts) == 1 else _spelled(a, b, given)
    return _spelled(a, b, given)


def _spelled(a: FileColumns, b: FileColumns, given: list) -> list | None:
    values = []
    for f, column in zip((a, b), given):
        if not isinstance(column, (list, np.ndarray)):
            values += [None if _missing(column) else str(column)] * f.size
        elif isinstance(column, list) and _TEXTS.issuperset(map(type, column)):
            values += column
        else:
            values += [None if _missing(v) else str(v) for v in list(column)]
    return values if any(v is not None for v in set(values)) else None


#: the types of a column of texts kept as it is (None: missing)
_TEXTS = frozenset((str, type(None)))


def _host(a: FileColumns, b: FileColumns, block: str | None, order: np.ndarray) -> np.ndarray | None:
    """Each entry's host, where the comparison pairs by a block other than the host and both files say it."""
    if not block or block == "host" or "host" not in a.columns or "host" not in b.columns:
        return None
    return np.concatenate([a.column("host"), b.column("host")])[order]


def _one_process(a: FileColumns, b: FileColumns) -> set:
    """The benchmarks whose values on a side all came from one process (its ``process`` column has one value
    there), which :func:`compare` notes and judges inconclusive."""
    single = set()
    for f in (a, b):
        if "process" not in f.columns:
            continue
        seen: dict = {}
        for code, process in zip(f.codes.tolist(), f.column("process").tolist()):
            seen.setdefault(code, set()).add(process)
        single |= {str(f.distinct[code]) for code, found in seen.items() if len(found) <= 1}
    return single


def _joint_codes(a: FileColumns, b: FileColumns) -> tuple[dict, np.ndarray]:
    """Both files' benchmarks as one list, A's in its order and then B's new ones (``{name: code}``), and every
    entry's code in it, A's entries first: the ``distinct`` and ``code`` of the suite builder's columns."""
    joint = {name: i for i, name in enumerate(a.distinct)}
    for name in b.distinct:
        joint.setdefault(name, len(joint))
    b_codes = np.fromiter(map(joint.__getitem__, b.distinct), dtype=np.int64, count=len(b.distinct))
    return joint, np.concatenate([a.codes, b_codes[b.codes]])
