"""Synthetic benchmark frames the comparison tests share: clustered log-normal values, a suite with
planted changes."""

from __future__ import annotations

import numpy as np
import pandas as pd


def clustered(benchmarks, clusters, per_cluster, *, rng, sd_cluster=0.02, sd_noise=0.01, change=0.0, unit="s"):
    """Log-normal values with a random cluster (process) effect; version 1 multiplied by 1 + change."""
    rng = np.random.default_rng(rng)
    b = np.repeat(np.arange(benchmarks), 2 * clusters * per_cluster)
    version = np.tile(np.repeat([0, 1], clusters * per_cluster), benchmarks)
    batch = np.tile(np.repeat(np.arange(2 * clusters), per_cluster), benchmarks)
    effect = rng.normal(0, sd_cluster, benchmarks * 2 * clusters)[b * 2 * clusters + batch]
    value = np.exp(effect + rng.normal(0, sd_noise, b.size)) * (1 + change * version)
    return pd.DataFrame(dict(benchmark=b, version=version, batch=batch, value=value, unit=unit))


def suite(benchmarks=200, runs=20, planted=20, change=0.05, noise=0.02, rng=0):
    """A 200-benchmark suite: ``runs`` runs a side (one value each, as Go writes them),
    ``noise`` log-normal spread, ``change`` planted in the first ``planted`` benchmarks."""
    df = clustered(benchmarks, runs, 1, rng=rng, sd_cluster=noise, sd_noise=0.0)
    planted_rows = (df.benchmark < planted) & (df.version == 1)
    return df.assign(value=np.where(planted_rows, df.value * (1 + change), df.value))
