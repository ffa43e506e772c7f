"""The paired comparison over blocks: each round's B/A, where A and B met the same platform state.

An interleaved run (:mod:`perfstudy.experiment._run`) measures both versions in every round, in a random order,
so a drift of the platform moves A and B of a round together. The comparison then works on the
per-round log-ratios ``d_r = log(stat(B_r) / stat(A_r))`` (or differences ``B_r - A_r`` when a statistic
is 0 or below), which the drift does not reach:

- fixed number of rounds: the paired t interval over the rounds (Student, 1908), its centre the
  rounds' geometric mean ratio;
- a run that looked after every round and stopped (``sequential=True``): Lai's confidence sequence
  (:mod:`perfstudy.comparison.sequential`), valid whenever the run stopped;
- rounds spread over several hosts (a ``host`` column): the variance of the mean log-ratio is split into
  host and round parts by the one-way random-effects ANOVA (the REML estimate when balanced and
  positive), ``Var = s_host^2 / H + s_round^2 / N`` when balanced, with Satterthwaite's degrees of freedom; with a
  confidence sequence, a host effect on the change is tested (F test) and warned about.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from perfstudy._lib.checks import check_choice, check_labels, check_sample
from perfstudy._lib.format import counted
from perfstudy._lib.tdist import f_sf, t_ppf, t_sf
from perfstudy.comparison.running import stopping_rule

__all__ = ["block_differences", "paired_interval", "host_and_round_variance"]


def block_differences(values_a, blocks_a, values_b, blocks_b, *, statistic: str = "mean"):
    """Per block present in both versions: ``(blocks, a, b)``, the blocks sorted by label (a run numbers
    its rounds in the order they ran) and each version's statistic in the block.

    Parameters
    ----------
    values_a, values_b : array_like
        One version's values.
    blocks_a, blocks_b : array_like
        The block (round) of each value.
    statistic : {"mean", "median", "min"}

    Returns
    -------
    tuple of ndarray
        ``blocks`` (sorted), ``a``, ``b``.
    """
    check_choice("statistic", statistic, ("mean", "median", "min"))
    sides = []
    for side, values, blocks in (("a", values_a, blocks_a), ("b", values_b, blocks_b)):
        values = check_sample(f"values_{side}", values)
        blocks = check_labels(f"blocks_{side}", blocks, values.size, of=f"values_{side}")
        sides.append(pd.Series(values).groupby(blocks).agg(statistic))
    a, b = sides
    shared = a.index.intersection(b.index).sort_values()
    return shared.to_numpy(), a.loc[shared].to_numpy(), b.loc[shared].to_numpy()


def paired_interval(
    a, b, *, confidence: float, sequential: bool | str = False, hosts=None, check_alpha: float = 0.05
) -> dict[str, Any]:
    """The change B/A - 1 (or B - A) from paired block statistics, its interval and p-value (module text).

    Parameters
    ----------
    a, b : ndarray
        Each block's statistic of version A and of version B, in the order the blocks ran.
    confidence : float
    sequential : bool or {"t", "sign"}
        An anytime-valid interval and p-value instead of the paired t interval: Lai's confidence sequence
        for the mean log-ratio (``"t"`` or True), or the sign sequence for their median (``"sign"``).
    hosts : array_like, optional
        The host of each block.
    check_alpha : float
        Size of the host-effect F test behind the warning.

    Returns
    -------
    dict
        ``change``, ``low``, ``high``, ``p_value``, ``scale`` (``"ratio"`` or ``"difference"``),
        ``method`` and ``notes`` (a list of strings).
    """
    ratio = bool(np.all(a > 0) and np.all(b > 0))
    d = np.log(b / a) if ratio else b - a
    n = d.size
    notes = []
    back = (lambda x: math.expm1(x)) if ratio else (lambda x: x)
    each = "each round's B/A" if ratio else "each round's B - A (a value of 0 or below: no ratio)"
    rounds = "rounds" if n != 1 else "round"
    host_labels = np.asarray([] if hosts is None else hosts)
    several = np.unique(host_labels).size > 1
    if n < 2:
        centre = float(d.mean()) if n else math.nan
        return dict(
            change=back(centre) if n else math.nan,
            low=-math.inf,
            high=math.inf,
            p_value=1.0,
            scale="ratio" if ratio else "difference",
            method="paired",
            notes=[f"{n} paired {rounds}: no interval; run more rounds"],
        )
    centre = float(d.mean())
    if sequential:
        rule = stopping_rule("t" if sequential is True else sequential)
        cs = rule.sequence(d, confidence)
        centre = rule.estimate(d)
        low, high, p = cs.current()
        method = rule.method
        notes.append(f"paired over {counted(n, 'round')}, {each}; {rule.interval}")
        if math.isnan(float(cs.running_low[-1])):
            notes.append(
                "the intervals of successive rounds share no point: the change did not stay constant over the "
                "run (the last round's interval is shown)"
            )
        if several:
            groups = [d[host_labels == h] for h in np.unique(host_labels)]
            if all(g.size > 1 for g in groups):
                f_p = _one_way_p(groups)
                if f_p < check_alpha:
                    notes.append(
                        f"the change differs between hosts (F test p={f_p:.2g}): the interval is over these "
                        "rounds, not over hosts at large"
                    )
    else:
        variance, df = _variance_of_mean(d, host_labels if several else None)
        half = t_ppf(0.5 + confidence / 2, df) * math.sqrt(variance) if variance > 0 else 0.0
        low, high = centre - half, centre + half
        t = centre / math.sqrt(variance) if variance > 0 else (0.0 if centre == 0 else math.copysign(math.inf, centre))
        p = float(2 * t_sf(abs(t), df)) if math.isfinite(t) else 0.0
        method = "paired t"
        where = f" on {np.unique(host_labels).size} hosts (host and round variance split)" if several else ""
        notes.append(f"paired over {counted(n, 'round')}{where}, {each}")
    return dict(
        change=back(centre),
        low=back(low) if math.isfinite(low) else low,
        high=back(high) if math.isfinite(high) else high,
        p_value=p,
        scale="ratio" if ratio else "difference",
        method=method,
        notes=notes,
    )


def host_and_round_variance(d, hosts) -> tuple[float, float]:
    """The one-way random-effects ANOVA split of the per-round log-ratios ``d``: ``(host, round)``
    variances (the host part truncated at 0; with one host, 0 and the sample variance).

    Parameters
    ----------
    d : array_like
        One log-ratio per round, finite.
    hosts : array_like
        The host of each round (labels, one per value of ``d``).

    Returns
    -------
    tuple of float
        ``(host variance, round variance)``.
    """
    d = check_sample("d", d)
    labels = check_labels("hosts", hosts, d.size, of="d")
    if np.unique(labels).size < 2:
        return 0.0, float(d.var(ddof=1)) if d.size > 1 else float("nan")
    host_var, ms_within, *_ = _anova(d, labels)
    return host_var, ms_within


def _anova(d: np.ndarray, hosts):
    """``(host variance, MSW, MSB, n0, sizes)`` of the one-way ANOVA."""
    n = d.size
    labels, index = np.unique(hosts, return_inverse=True)
    h = labels.size
    sizes = np.bincount(index).astype(float)
    means = np.bincount(index, weights=d) / sizes
    within = float(((d - means[index]) ** 2).sum())
    between = float((sizes * (means - d.mean()) ** 2).sum())
    ms_within = within / (n - h) if n > h else 0.0
    ms_between = between / (h - 1)
    n0 = (n - (sizes**2).sum() / n) / (h - 1)  # the average group size of the unbalanced ANOVA
    host_var = max(0.0, (ms_between - ms_within) / n0)
    return host_var, ms_within, ms_between, n0, sizes


def _variance_of_mean(d: np.ndarray, hosts) -> tuple[float, float]:
    """``(Var(mean d), degrees of freedom)``: ``s^2 / N`` with ``N - 1``; with hosts, the one-way
    random-effects split (module text)."""
    n = d.size
    if hosts is None:
        return float(d.var(ddof=1) / n), float(n - 1)
    host_var, ms_within, ms_between, n0, sizes = _anova(d, hosts)
    h = sizes.size
    if host_var == 0.0:
        return float(d.var(ddof=1) / n), float(n - 1)
    share = float((sizes**2).sum() / n**2)  # Var(grand mean) = share * s_host^2 + s_round^2 / N; 1/H if balanced
    variance = share * host_var + ms_within / n
    # Satterthwaite, the variance written in the mean squares: MSB (h - 1 df) and MSW (n - h df)
    pieces = [(ms_between * share / n0, h - 1), (ms_within * (1 / n - share / n0), n - h)]
    df = variance**2 / sum(value**2 / dof for value, dof in pieces if dof > 0 and value != 0)
    return variance, float(df)


def _one_way_p(groups: list) -> float:
    """The p-value of a one-way analysis of variance of ``groups`` (each with two or more values), as
    ``scipy.stats.f_oneway`` gives it, without importing scipy (``tests/_lib/test_tdist.py``)."""
    values = np.concatenate(groups)
    k, n, grand = len(groups), values.size, float(values.mean())
    between = sum(g.size * (float(g.mean()) - grand) ** 2 for g in groups)
    within = sum(float(((g - g.mean()) ** 2).sum()) for g in groups)
    if within == 0:
        return 0.0 if between > 0 else math.nan
    return f_sf((between / (k - 1)) / (within / (n - k)), k - 1, n - k)
