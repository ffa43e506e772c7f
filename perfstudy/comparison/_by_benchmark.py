"""One file whose benchmarks are the versions, laid out for :func:`perfstudy.comparison.compare`.

hyperfine's commonest use is one export of two commands (``hyperfine 'gzip -1 f' 'gzip -9 f'``): its benchmarks
are the commands, so a comparison of its "versions" finds no benchmark in both. Here the first benchmark (or the
one ``baseline`` names) is version A and each other benchmark is a version B in a row of its own name, beside A's
values repeated for it; Holm's correction then runs over the candidates. Beside each wall-time row:

- ``NAME:rss``, each run's peak memory where the file has it (hyperfine 1.20's ``memory_usage_byte``), compared as
  the wall time is, and said as larger or smaller;
- ``NAME:cpu``, user + system CPU seconds, where the reader holds them in ``attrs["cpu"]``. hyperfine writes only
  each command's mean over its runs, one number a side: the row shows the change of the means, and its interval
  and p-value are NaN ("inconclusive"), never a narrow interval made from one value.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfstudy._lib.checks import check_bool
from perfstudy._lib.frames import column as as_column, float_values, table as as_table

__all__ = ["benchmarks_as_versions"]


def benchmarks_as_versions(df: pd.DataFrame, *, baseline=None, cpu: bool = True) -> pd.DataFrame:
    """A file whose benchmarks are the versions (hyperfine's commands) as A against each other benchmark.

    Parameters
    ----------
    df : DataFrame
        One file as a reader of :mod:`perfstudy.io` returns it: ``benchmark``, ``batch``, ``value`` and
        ``unit``; an ``rss`` column and ``attrs["cpu"]`` (``{benchmark: seconds}``) where the tool wrote them.
    baseline : optional
        The benchmark that is version A (matched as text). By default the first in the file's order, which for
        hyperfine is the first command given.
    cpu : bool
        Add the ``NAME:cpu`` rows from ``attrs["cpu"]``.

    Returns
    -------
    DataFrame
        The rows of ``df`` with a ``version`` column, ``"A"`` or ``"B"``, and ``benchmark`` naming the candidate
        (B's benchmark, or ``NAME:rss`` and ``NAME:cpu``); ``attrs["baseline"]`` is A's benchmark and
        ``attrs["candidates"]`` the others, in order.

    Raises
    ------
    ValueError
        Fewer than two benchmarks, values that are missing or not finite, a ``version`` column already there, or a
        ``baseline`` that is not a benchmark.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df: expected a DataFrame, got {type(df).__name__}")
    cpu = check_bool("cpu", cpu)
    for column in ("benchmark", "batch", "value"):
        if column not in df.columns:
            raise ValueError(f"df: no {column!r} column; give a file as perfstudy.io.read returns it")
    values = float_values(df["value"])
    if not np.isfinite(values).all():
        raise ValueError(
            f"df: {int((~np.isfinite(values)).sum())} values are missing or not finite; read the file with "
            "dropna=True to leave them out"
        )
    if "version" in df.columns:
        raise ValueError("df: it already has a 'version' column; compare its versions with by='version'")
    names = [str(name) for name in dict.fromkeys(df["benchmark"].dropna())]
    if len(names) < 2:
        raise ValueError(
            f"df: {len(names)} benchmark ({names}); one file compares its benchmarks when it holds two or more, "
            "such as a hyperfine export of two commands"
        )
    if baseline is None:
        baseline = names[0]
    elif str(baseline) not in names:
        raise ValueError(f"baseline={baseline!r}: not a benchmark of the file; it has {names[:8]}")
    baseline = str(baseline)
    text = df["benchmark"].astype(str)
    base = as_table(df[text == baseline])
    means = dict(df.attrs.get("cpu") or {}) if cpu else {}
    parts = []
    for name in (n for n in names if n != baseline):
        rows = as_table(df[text == name])
        parts += [base.assign(version="A", benchmark=name), rows.assign(version="B", benchmark=name)]
        if "rss" in df.columns and _measured(base, "rss") and _measured(rows, "rss"):
            parts += [
                _metric(base, "rss", f"{name}:rss", version="A", unit="B"),
                _metric(rows, "rss", f"{name}:rss", version="B", unit="B"),
            ]
        if baseline in means and name in means:
            parts.append(_means(means, baseline, name))
    frame = pd.concat(parts, ignore_index=True)
    frame = frame.drop(columns=[c for c in ("rss",) if c in frame.columns])
    frame.attrs = {
        "baseline": baseline,
        "candidates": [n for n in names if n != baseline],
        "tool": df.attrs.get("tool"),
        "cpu_means": bool(means),
    }
    return frame


def _measured(rows: pd.DataFrame, column: str) -> bool:
    """Whether every row has a value of ``column`` (hyperfine before 1.20 wrote no peak memory)."""
    return len(rows) > 0 and bool(as_column(rows[column]).notna().all())


def _metric(rows: pd.DataFrame, column: str, benchmark: str, *, version: str, unit: str) -> pd.DataFrame:
    """``rows``' ``column`` as the values of ``benchmark`` in ``version``, in ``unit``."""
    return rows.assign(value=rows[column].astype(float), benchmark=benchmark, version=version, unit=unit)


def _means(means: dict, baseline: str, name: str) -> pd.DataFrame:
    """The two commands' mean CPU seconds as one value a side: a change with no interval."""
    return pd.DataFrame(
        dict(
            benchmark=f"{name}:cpu",
            version=["A", "B"],
            batch=[0, 0],
            iteration=0,
            warmup=False,
            value=[means[baseline], means[name]],
            unit="s",
        )
    )
