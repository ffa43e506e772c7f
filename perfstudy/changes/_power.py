"""How many commits a change needs: the scan's Bonferroni bound, the fewest commits a side with which any change can be
found, and about how many a change of a given size needs at a given noise (:func:`commits_for_change`), with the
noise between commits it is measured against (:func:`noise_between_commits`)."""

from __future__ import annotations

import math

import numpy as np

from perfstudy._lib.checks import check_fraction, check_int, check_real
from perfstudy._lib.robust import neighbour_noise
from perfstudy._lib.tdist import norm_ppf
from perfstudy.changes._settings import DEFAULT_WIDTHS, HistorySettings

__all__ = ["commits_for_change", "noise_between_commits"]


def _scan_bound(m: int, widths: tuple[int, ...], fdr: float) -> float:
    """The Bonferroni bound a scan's ``|z|`` must reach in ``m`` commits: ``Phi^-1(1 - fdr / (2 tests))`` over its
    distinct windows' boundaries."""
    tests = len({min(w, m - 1) for w in widths}) * max(m - 1, 1)
    return norm_ppf(1 - fdr / (2 * tests))


def _commits_needed(m: int, widths: tuple[int, ...], fdr: float, min_side: int) -> int:
    """The fewest commits on each side with which a change, however large, can be found in ``m`` commits.

    With ``n`` commits a side and no ties the largest ``|z|`` is ``sqrt(3 n^2 / (2n + 1))`` (every pair
    ordered); it must reach the Bonferroni bound of the scan, ``Phi^-1(1 - fdr / (2 tests))``. More than
    ``m // 2``: no change can be found in the series at all.
    """
    bound = _scan_bound(m, widths, fdr)
    n = min_side
    while n <= m and math.sqrt(3 * n * n / (2 * n + 1)) < bound:
        n += 1
    return n


def _commits_after(m: int, widths: tuple[int, ...], fdr: float, min_side: int) -> int:
    """The fewest commits after a change with which it, however large, can be found in ``m`` commits: the left
    window holds all the commits before it up to the widest window, and with ``n_L`` and ``n_R`` commits all ordered
    ``|z| = sqrt(3 n_L n_R / (n_L + n_R + 1))`` must reach the scan's Bonferroni bound (:func:`_commits_needed`).
    Fewer than on each side when the commits before are many: a change 8 commits from the end of 100 is found
    though 10 a side are needed. More than ``m - min_side``: none can be found."""
    bound = _scan_bound(m, widths, fdr)
    widest = min(max(widths), m - 1)
    n = min_side
    while n <= m - min_side:
        left = min(widest, m - n)
        if math.sqrt(3 * left * n / (left + n + 1)) >= bound:
            return n
        n += 1
    return m


def _commits_for_change(
    change: float,
    noise: float,
    m: int,
    widths: tuple[int, ...],
    fdr: float,
    min_side: int,
    min_sigmas: float,
    power: float = 0.8,
) -> float:
    """About how many commits on each side a level change of ``change`` (log scale) needs to be found with
    probability ``power``, when commits vary by ``noise`` (log scale SD) about their level.

    The scan's Mann-Whitney ``z`` with ``n`` commits a side has mean ``(Phi(d / sqrt 2) - 1/2) sqrt(12 n^2 / (2n
    + 1))`` for a shift of ``d = change / noise`` SDs, and an SD about it taken as ``sqrt(4 p (1 - p))`` of the null's
    (``p = Phi(d / sqrt 2)``: no spread when the sides never overlap); it must exceed the scan's Bonferroni bound
    (:func:`_scan_bound`, for ``m`` commits) by ``Phi^-1(power)`` such SDs. A change under ``min_sigmas``
    noise SDs fails the size rule at any length: ``inf``. An approximation, checked by simulation in ``tests/changes/test_history.py``: at the ``n`` it gives,
    0.82-0.85 of 200 histories found a 2.5-SD change; with 4 commits fewer a side, 0.62-0.76.
    """
    if not noise > 0:
        return float(min_side)
    d = abs(change) / noise
    if d < min_sigmas:
        return math.inf
    edge = math.erf(d / 2) / 2  # Phi(d / sqrt 2) - 1/2
    # z's spread about its mean shrinks as the sides separate: sqrt(4 p (1 - p)) of the null's, p = 1/2 + edge
    need = _scan_bound(max(m, 2 * min_side), widths, fdr) + norm_ppf(power) * math.sqrt(1 - 4 * edge * edge)
    # (edge^2 12 n^2 / (2n + 1)) >= need^2: the smallest n, solved, and checked upwards
    n = max(min_side, math.ceil(need * need / (6 * edge * edge)))
    while edge * math.sqrt(12 * n * n / (2 * n + 1)) < need:
        n += 1
    return float(n)


def commits_for_change(
    change: float,
    noise: float,
    commits: int,
    *,
    widths: tuple[int, ...] = DEFAULT_WIDTHS,
    fdr: float = 0.05,
    min_side: int = HistorySettings.min_side,
    min_sigmas: float = 2.0,
    power: float = 0.8,
) -> float:
    """About how many commits on each side :func:`history` needs to find a level change of ``change`` when
    commits vary about their level by ``noise``: the approximation a history's ``commits_for_threshold`` uses
    (the scan's Mann-Whitney z against its Bonferroni bound; checked by simulation in
    ``tests/changes/test_history.py``).

    Parameters
    ----------
    change : float
        The relative change (``0.05`` is 5%; negative for faster).
    noise : float
        The relative SD of commits about their level (a history's ``series["noise"]``); 0 or more.
    commits : int
        The commits of the history the change is sought in (the scan's Bonferroni bound grows with them).
    widths, fdr, min_side, min_sigmas : optional
        As :func:`history` has them.
    power : float
        The chance of finding the change (default 0.8).

    Returns
    -------
    float
        Commits on each side, at least ``min_side``; ``inf`` when the change is under ``min_sigmas`` noise SDs,
        which the size rule never reports.
    """
    change = check_real("change", change)
    if change <= -1:
        raise ValueError(f"change={change!r}: expected a relative change above -1")
    noise = check_real("noise", noise, nonnegative=True)
    commits = check_int("commits", commits, minimum=2)
    if isinstance(widths, (str, bytes)) or not hasattr(widths, "__iter__"):
        raise TypeError(f"widths: expected a sequence of integers, got {type(widths).__name__}")
    widths = tuple(check_int("widths", w) for w in widths)
    if not widths:
        raise ValueError("widths: empty; give at least one scan width")
    fdr, power = check_fraction("fdr", fdr), check_fraction("power", power)
    min_side = check_int("min_side", min_side)
    min_sigmas = check_real("min_sigmas", min_sigmas, nonnegative=True)
    return _commits_for_change(math.log1p(change), math.log1p(noise), commits, widths, fdr, min_side, min_sigmas, power)


def noise_between_commits(y: np.ndarray) -> float:
    """The SD of commits about their level, robustly: ``1.4826 MAD`` of the differences of neighbouring commits,
    over ``sqrt 2`` (a change of level moves one difference, not the estimate). 0 for fewer than 3 commits."""
    return neighbour_noise(y)
