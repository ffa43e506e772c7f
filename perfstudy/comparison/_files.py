"""Two files compared without pandas: ``perfstudy compare base.txt new.txt``.

A CI compares its suite on every change, and importing pandas alone (0.3 s here) takes three times as
long as benchstat's whole run on 200 benchmarks. This path reads both files into columns
(:func:`perfstudy.io.go.go_columns`), lays them out as :func:`compare` would (each file a version, A the
first; each result line a batch; units converted; Go's ``Unit`` metadata), and compares them by the same
:func:`perfstudy.comparison._suite.compare_suite`; the numbers are those of ``compare(read(base) + read(new))``
(``tests/comparison/test_files.py`` holds the two equal). Two files of any JSON harness or tidy CSV go the same
way (:func:`compare_columns`, from :func:`perfstudy.io.columns.file_columns`): warm-ups left out and counted, the
values in the order :func:`compare` sorts them (by batch, then position in the batch).
"""

from __future__ import annotations

import os
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

import numpy as np

from perfstudy._lib.checks import check_allocation
from perfstudy.comparison._intervals import STATISTICS
from perfstudy.comparison._render import Report
from perfstudy.comparison.settings import CompareSettings, _one_process_note, _one_source

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
    settings: CompareSettings | None = None,
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
    settings : CompareSettings, optional
        Those settings as one object (then the keywords keep their defaults). The files decide the rest: each file is
        a version, each result line a batch, the values unpaired; settings of columns, pairing or ``dropna`` are
        refused, naming them, for :func:`compare` on the files read.

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
    from perfstudy.io import file_columns

    keywords = dict(
        statistic=statistic, confidence=confidence, threshold=threshold, correction=correction, replicates=replicates
    )
    s = _one_source(settings, keywords)
    for name, path in (("base", base), ("new", new)):
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"{name}={path!r}: expected the path of a Go benchmark file")
    files = [file_columns(path, "go") for path in (base, new)]  # values checked there, as read_go checks them
    return compare_columns(files[0], files[1], labels=labels, rng=rng, settings=s)


def compare_columns(
    base,
    new,
    *,
    labels: tuple[str, str],
    rng: Seed = None,
    settings: CompareSettings | None = None,
) -> Report:
    """Compare two files read as columns, without pandas: ``compare(df).report()`` for ``df`` the two files read by
    :func:`perfstudy.io.read` and labelled by ``labels``, A first; the same numbers with the same ``rng``.

    The columns are laid out as :func:`compare` lays out the frames: warm-ups left out and counted (a benchmark
    left with no value in a version excluded, saying so), the rest sorted stably by batch and then position in
    the batch, A's rows before B's.

    Parameters
    ----------
    base, new : perfstudy.io.columns.FileColumns
        Versions A and B (:func:`perfstudy.io.columns.file_columns`).
    labels : tuple of str
        What A and B are called (the command line uses the paths).
    rng : None, int, SeedSequence or Generator
    settings : CompareSettings, optional
        As :func:`compare_go_files` takes them (default: compare's defaults).

    Returns
    -------
    Report
    """
    from perfstudy.io.columns import FileColumns

    s = settings if settings is not None else CompareSettings()
    _check_for_files(s)
    _check_labels(labels)
    for name, columns in (("base", base), ("new", new)):
        if not isinstance(columns, FileColumns):
            raise TypeError(f"{name}: expected a file's columns (perfstudy.io.columns.file_columns), got {columns!r}")
    files = [base, new]
    clusters = len(set(base.batch.tolist()) | set(new.batch.tolist()))  # compare()'s nunique
    suite, units, only_a, only_b, excluded, warmups = _columns_suite(files, labels)
    found = (units, only_a, only_b, excluded)
    report = _report(suite, found, s, labels, clusters=clusters, rng=rng, warmup_dropped=warmups)
    return _noted_one_process(report, s) if base.one_process or new.one_process else report


def _noted_one_process(report: Report, s: CompareSettings) -> Report:
    """compare()'s note on every benchmark of files whose values came from one process (a side's ``process``
    column with one value, or none), and its verdict "inconclusive" unless ``trust_one_process``."""
    from dataclasses import replace

    note = _one_process_note(s)
    rows = tuple(
        dict(row, notes=(*row["notes"], note), verdict=row["verdict"] if s.trust_one_process else "inconclusive")
        for row in report.rows
    )
    return replace(report, rows=rows)


def _check_labels(labels) -> None:
    if not (isinstance(labels, tuple) and len(labels) == 2 and all(isinstance(x, str) for x in labels)):
        raise TypeError(f"labels={labels!r}: expected the names of A and B, a tuple of two texts")
    if not all(label.strip() for label in labels) or labels[0] == labels[1]:
        raise ValueError(
            f"labels={labels!r}: A and B need two different, non-empty names, or the table cannot say which is which"
        )


def _report(suite, found: tuple, s: CompareSettings, labels: tuple, *, clusters: int, rng, warmup_dropped: int = 0):
    """The suite compared (:func:`perfstudy.comparison._suite.compare_suite`) as compare()'s report: ``found`` is
    the suite builder's units, benchmarks only in A and only in B, and benchmarks excluded."""
    from perfstudy.comparison._one import _compare_one
    from perfstudy.comparison._suite import compare_suite, judged
    from perfstudy.comparison._task import task_settings

    units, only_a, only_b, excluded = found
    check_allocation(s.option("replicates"), s.replicates, 8.0 * s.replicates * (4 + 2 * clusters))
    task = task_settings(s, benchmarks=len(suite.names))
    rows = compare_suite(suite, task, rng=rng, executor=None, progress=False, one=_compare_one)
    return Report(
        rows=tuple(judged(rows, correction=s.correction, confidence=s.confidence, threshold=s.threshold)),
        statistic=s.statistic,
        confidence=s.confidence,
        threshold=s.threshold,
        correction=s.correction,
        cluster="batch",
        labels=MappingProxyType({"a": labels[0], "b": labels[1]}),
        units=MappingProxyType(units),
        excluded=MappingProxyType(excluded),
        only_a=only_a,
        only_b=only_b,
        warmup_dropped=warmup_dropped,
    )


def _columns_suite(files, labels: tuple[str, str]):
    """Two files' columns laid out as :func:`compare` lays out their frames: warm-ups left out (a benchmark left
    with no value in a version excluded, saying so), the rest sorted by batch and then position in the batch
    (stable: A's rows before B's), and given to the one suite builder."""
    from perfstudy.comparison._columns import SuiteColumns, build_suite

    a, b = files
    joint, code = _joint_codes(a, b)
    side = np.repeat(np.array([0, 1], dtype=np.int8), [a.value.size, b.value.size])
    warmup = np.concatenate([a.warmup, b.warmup])
    excluded: dict = {}
    for s, label, names in ((0, labels[0], a.distinct), (1, labels[1], b.distinct)):  # in compare()'s order and words
        flagged = set(code[(side == s) & warmup].tolist()) - set(code[(side == s) & ~warmup].tolist())
        for name in (n for n in names if joint[n] in flagged):  # emptied by leaving warm-ups out
            excluded[str(name)] = f"no values left in version={label!r} once warm-ups are left out"
    keep = ~warmup
    batch = np.concatenate([a.batch, b.batch])[keep]
    iteration = np.concatenate([a.iteration, b.iteration])[keep]
    order = np.lexsort((iteration, batch))  # stable, as compare()'s sort by [batch, iteration]
    row_units = np.concatenate([np.asarray(a.unit, dtype=object)[a.codes], np.asarray(b.unit, dtype=object)[b.codes]])
    row_units = row_units[keep][order]
    found = set(row_units.tolist())
    described = {}
    for key in ("better", "assume"):
        if getattr(a, key) is not None or getattr(b, key) is not None:
            each = [np.asarray(getattr(f, key) or [None] * len(f.distinct), dtype=object)[f.codes] for f in (a, b)]
            described[key] = np.concatenate(each)[keep][order].tolist()
    columns = SuiteColumns(
        side=side[keep][order],
        code=code[keep][order],
        distinct=list(joint),
        value=np.concatenate([a.value, b.value])[keep][order],
        label=batch[order],
        unit=next(iter(found)) if len(found) == 1 else row_units.tolist(),
        **described,
    )
    suite, units, only_a, only_b = build_suite(columns, by="version", labels=labels, excluded=excluded)
    return suite, units, only_a, only_b, excluded, int(warmup.sum())


def _check_for_files(s: CompareSettings) -> None:
    """Refuse the settings two Go files decide themselves, naming them: the columns (each file is a version, each
    result line a batch), the baseline (``base``), pairing and ``dropna`` (the files' values are all numbers)."""
    plain = CompareSettings()
    decided = ("by", "value", "cluster", "baseline", "dropna", "block", "sequential")
    differ = [s.option(key) for key in decided if getattr(s, key) != getattr(plain, key)]
    if differ:
        raise ValueError(
            f"settings: {', '.join(differ)} cannot be set for two Go files, whose files are the versions and whose "
            "result lines are the batches; read them with perfstudy.io.read and call compare()"
        )
    if s.statistic not in STATISTICS:
        raise ValueError(f"statistic={s.statistic!r}: two Go files are compared unpaired; use 'mean' or 'median'")


def _joint_codes(a, b) -> tuple[dict, np.ndarray]:
    """Both files' benchmarks as one list, A's in its order and then B's new ones (``{name: code}``), and every
    entry's code in it, A's entries first: the ``distinct`` and ``code`` of the suite builder's columns."""
    joint = {name: i for i, name in enumerate(a.distinct)}
    for name in b.distinct:
        joint.setdefault(name, len(joint))
    b_codes = np.fromiter(map(joint.__getitem__, b.distinct), dtype=np.int64, count=len(b.distinct))
    return joint, np.concatenate([a.codes, b_codes[b.codes]])
