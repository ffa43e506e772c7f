"""Kolaczkowski, "Estimating Benchmark Results Uncertainty" (blog): the trap of ``s / sqrt(N)`` for
autocorrelated runs, measured on the Azure long-lived hosts (notebook 03).
"""

from __future__ import annotations

import pandas as pd
from scipy import stats

from perfstudy._lib.checks import check_int, check_names
from perfstudy.diagnostics.variability import autocorrelation_se, batch_means
from perfstudy.io import datasets

__all__ = ["standard_error_trap"]


def standard_error_trap(names, *, batches: int = 20) -> pd.DataFrame:
    """The naive SE of the mean against Eq. 6, Newey-West and batch means, per Azure host.

    ``too_narrow`` = batch-means SE / naive SE: how many times too narrow the naive interval is;
    a naive 95% interval then covers the true mean with probability ``2 Phi(1.96 / too_narrow) - 1``
    (``naive_95_coverage``).

    Parameters
    ----------
    names : sequence of str
        Registered Azure datasets with long-lived hosts.
    batches : int
        Disjoint blocks of consecutive runs for the batch-means SE.

    Returns
    -------
    DataFrame
        ``series``, ``n``, ``naive_se``, ``truncated_se`` (Eq. 6, lags up to sqrt N),
        ``bartlett_se``, ``batch_means_se``, ``block_length``, ``too_narrow``,
        ``corrected_vs_blocks`` (Eq. 6 / batch means), ``naive_95_coverage``.
    """
    check_names("names", names)
    check_int("batches", batches)
    rows = []
    for name in names:
        for host, group in datasets.load(name).groupby("host"):
            x = group.sort_values("timestamp").value.to_numpy()
            truncated = autocorrelation_se(x)
            blocks = batch_means(x, batches=batches)
            rows.append(
                dict(
                    series=f"{name.removeprefix('azure-')} host{host}",
                    n=x.size,
                    naive_se=truncated.naive_standard_error,
                    truncated_se=truncated.standard_error,
                    bartlett_se=autocorrelation_se(x, kernel="bartlett").standard_error,
                    batch_means_se=blocks.standard_error,
                    block_length=blocks.batch_length,
                )
            )
    trap = pd.DataFrame(rows)
    trap["too_narrow"] = trap.batch_means_se / trap.naive_se
    trap["corrected_vs_blocks"] = trap.truncated_se / trap.batch_means_se
    trap["naive_95_coverage"] = 2 * stats.norm.cdf(stats.norm.ppf(0.975) / trap.too_narrow) - 1
    return trap
