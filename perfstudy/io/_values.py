"""The one check of the values a reader returns (:func:`perfstudy.io.columns._measured`, and a tidy table's in
:mod:`perfstudy.io._read`): a value that is null, NaN, infinite or not a number is refused, counting them and naming
their benchmarks, or with ``dropna`` left out with a word that counts them. The message names ``dropna=True``; the
command line says ``--dropna``."""

from __future__ import annotations

import numpy as np

__all__ = ["not_finite", "left_out"]


def _detail(names) -> str:
    """The first benchmarks with such values, for a message: `` (benchmarks ['a', 'b', 'c'] ...)``."""
    names = sorted(set(map(str, names)))
    return f" (benchmarks {names[:3]}{' ...' if len(names) > 3 else ''})" if names else ""


def not_finite(value: np.ndarray, benchmark, *, dropna: bool, where: str) -> np.ndarray:
    """Which values are not finite numbers; refused, counting them and naming their benchmarks, unless ``dropna``.

    Parameters
    ----------
    value : ndarray of float
    benchmark : sequence or None
        Each value's benchmark (a list or an array), for the message; None where the values have none.
    dropna : bool
        Leave such values out (the caller drops them and says so with :func:`left_out`) instead of refusing them.
    where : str
        What the message starts with: ``source``, ``path: runs.csv``.
    """
    bad = ~np.isfinite(value)
    if bad.any() and not dropna:
        named = [] if benchmark is None else [benchmark[i] for i in np.flatnonzero(bad).tolist()]
        raise ValueError(
            f"{where}: {int(bad.sum())} of {value.size} values are null, NaN, infinite or not numbers{_detail(named)}; "
            "pass dropna=True to leave them out"
        )
    return bad


def left_out(bad: np.ndarray, benchmark, *, where: str) -> str:
    """The warning that says how many values :func:`not_finite` found and ``dropna`` left out.

    Parameters
    ----------
    bad : ndarray of bool
        What :func:`not_finite` returned.
    benchmark : sequence or None
        Each value's benchmark, as :func:`not_finite` takes it.
    where : str
        What the message starts with.
    """
    named = [] if benchmark is None else [benchmark[i] for i in np.flatnonzero(bad).tolist()]
    return (
        f"{where}: {int(bad.sum())} of {bad.size} values were null, NaN, infinite or not numbers{_detail(named)} and "
        "were left out (dropna=True); attrs['dropped'] counts them"
    )
