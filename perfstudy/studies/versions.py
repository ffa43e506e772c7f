"""Is :func:`perfstudy.comparison._compare.compare` honest on real data? A/A pairs cut from long public series,
and planted slowdowns, against the peers' methods (notebook 08).

An A/A pair is a window of ``2 k`` consecutive clusters of one series (days of an Azure VM, trials
of a Go benchmark, blocks of consecutive PT4Cloud runs), split into A and B either *interleaved*
(clusters alternate, as a well-run experiment would) or *sequential* (the first ``k`` are A, the
next ``k`` B: "run A today, B tomorrow"). No pair holds a real change, so every "faster" or
"slower" verdict at threshold 0 is a false positive. The same pairs with B multiplied by
``1 + slowdown`` measure power.

The methods, on the same pairs:

- ``perfstudy``: :func:`~perfstudy.comparison._compare.compare`, clusters as batches;
- ``iid bootstrap``: the same with every value its own cluster;
- ``Mann-Whitney``: :func:`scipy.stats.mannwhitneyu` on the pooled values (benchstat's test);
- ``pyperf``: pyperf's own ``compare_to`` significance test (``pyperf._compare.is_significant_benchs``)
  on pyperf benchmarks built with one run per cluster, both sides cut to the same number of values
  (with unequal counts pyperf's test raises internally and it reports "significant").
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from perfstudy._lib.checks import (
    check_bool,
    check_choice,
    check_each,
    check_frame,
    check_int,
    check_names,
    check_real,
    check_resamples,
)
from perfstudy._lib.types import Seed
from perfstudy.comparison import compare
from perfstudy.io import datasets

__all__ = ["METHODS", "LAYOUTS", "aa_pairs", "aa_calibration", "calibration_grid"]

METHODS = ("perfstudy", "iid bootstrap", "Mann-Whitney", "pyperf")
LAYOUTS = ("interleaved", "sequential")


def _series(azure, laaber, pt4cloud, block: int):
    """(source, series label, values in time order, cluster label of each value)."""
    for name in azure:
        frame = datasets.load(name)
        for host, rows in frame.sort_values("timestamp", kind="stable").groupby("host", sort=True):
            yield (
                "azure (days)",
                f"{name.removeprefix('azure-')} host{host}",
                rows["value"].to_numpy(),
                (rows["timestamp"].dt.strftime("%Y-%m-%d").to_numpy()),
            )
    for name in laaber:
        frame = datasets.load(name)
        for benchmark, rows in frame.groupby("benchmark", sort=True):
            rows = rows.sort_values("batch", kind="stable")
            yield (
                "go (trials)",
                f"{name.removeprefix('laaber-')} {benchmark}",
                rows["value"].to_numpy(),
                (rows["batch"].to_numpy()),
            )
    for name in pt4cloud:
        frame = datasets.load(name).sort_values("index", kind="stable")
        values = frame["value"].to_numpy()
        yield "pt4cloud (run blocks)", name.removeprefix("pt4cloud-"), values, np.arange(values.size) // block


def aa_pairs(
    *,
    clusters: int = 10,
    layout: str = "interleaved",
    azure=(),
    laaber=(),
    pt4cloud=(),
    block: int = 10,
    max_pairs_per_series: int = 20,
) -> pd.DataFrame:
    """A/A pairs cut from long public series (see the module docstring).

    Parameters
    ----------
    clusters : int
        ``k``, clusters per side.
    layout : {"interleaved", "sequential"}
        How a window's clusters are split between A and B.
    azure, laaber, pt4cloud : sequence of str
        Datasets to cut: Azure VM series (cluster: the UTC day), Laaber's Go benchmarks (cluster:
        the trial, one value each), PT4Cloud configurations (cluster: ``block`` consecutive runs).
    block : int
        Runs per PT4Cloud cluster.
    max_pairs_per_series : int
        Windows taken from one series at most (the first ones), so no series dominates.

    Returns
    -------
    DataFrame
        ``source``, ``series``, ``benchmark`` (one id per pair), ``version``, ``batch``, ``value``.
    """
    check_int("clusters", clusters, minimum=2)
    check_choice("layout", layout, LAYOUTS)
    check_names("azure", azure, empty=True)
    check_names("laaber", laaber, empty=True)
    check_names("pt4cloud", pt4cloud, empty=True)
    check_int("block", block)
    check_int("max_pairs_per_series", max_pairs_per_series)
    parts = []
    pair = 0
    for source, label, values, labels in _series(azure, laaber, pt4cloud, block):
        order = list(dict.fromkeys(labels.tolist()))
        windows = min(len(order) // (2 * clusters), max_pairs_per_series)
        position = pd.Series(np.arange(len(order)), index=order)[labels].to_numpy()
        for w in range(windows):
            inside = (position >= 2 * clusters * w) & (position < 2 * clusters * (w + 1))
            local = position[inside] - 2 * clusters * w
            version = local % 2 if layout == "interleaved" else (local >= clusters).astype(int)
            parts.append(
                pd.DataFrame(
                    dict(
                        source=source,
                        series=label,
                        benchmark=pair,
                        version=version,
                        batch=labels[inside],
                        value=values[inside],
                    )
                )
            )
            pair += 1
    if not parts:
        raise ValueError("no series is long enough for one pair; give longer series or fewer clusters")
    return pd.concat(parts, ignore_index=True)


def _pyperf_significant(rows: pd.DataFrame) -> bool:
    import pyperf
    from pyperf._compare import is_significant_benchs

    sides = [rows[rows["version"] == v] for v in (0, 1)]
    n = min(len(s) for s in sides)
    benches = []
    for side in sides:
        side = side.iloc[:n]
        runs = [
            pyperf.Run(group["value"].tolist(), metadata={"name": "aa", "unit": "second"}, collect_metadata=False)
            for _, group in side.groupby("batch", sort=False)
        ]
        benches.append(pyperf.Benchmark(runs))
    return bool(is_significant_benchs(*benches)[0])


def aa_calibration(
    pairs: pd.DataFrame,
    *,
    slowdowns=(0.0, 0.01, 0.02, 0.05),
    methods=METHODS,
    replicates: int = 999,
    rng: Seed = None,
) -> pd.DataFrame:
    """The share of pairs each method calls different, per source and planted slowdown.

    At slowdown 0 that share is the Type I error (nominal 5%); above, the power. A "detection"
    is a verdict of ``faster`` or ``slower`` (perfstudy and the iid bootstrap, threshold 0, no
    correction: one pair per test) or a p-value below 0.05 (Mann-Whitney) or pyperf's
    "significant".

    Parameters
    ----------
    pairs : DataFrame
        From :func:`aa_pairs`.
    slowdowns : sequence of float
        Multiplied into B's values (0 is the A/A test).
    methods : sequence of str
        Among :data:`METHODS`.
    replicates : int
        Of the bootstraps.
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    DataFrame
        ``source``, ``slowdown``, ``method``, ``pairs``, ``rate``, ``mc_se`` (its binomial Monte
        Carlo standard error, ``sqrt(rate (1 - rate) / pairs)`` at the nominal 5% for slowdown 0).
    """
    check_frame("pairs", pairs, minimum=0)
    check_each("slowdowns", slowdowns, check_real, nonnegative=True)
    check_names("methods", methods, METHODS)
    check_int("replicates", replicates)
    streams = np.random.default_rng(rng).spawn(len(slowdowns))
    source_of = pairs.groupby("benchmark")["source"].first()
    rows = []
    for slowdown, stream in zip(slowdowns, streams):
        planted = pairs.assign(value=np.where(pairs["version"] == 1, pairs["value"] * (1 + slowdown), pairs["value"]))
        detected = {}
        if "perfstudy" in methods:
            table = compare(planted, correction="none", checks=False, replicates=replicates, rng=stream).table
            detected["perfstudy"] = pd.Series(
                table["verdict"].isin(["faster", "slower"]).to_numpy(), index=table["benchmark"]
            )
        if "iid bootstrap" in methods:
            iid = planted.assign(batch=np.arange(len(planted)))
            table = compare(iid, correction="none", checks=False, replicates=replicates, rng=stream).table
            detected["iid bootstrap"] = pd.Series(
                table["verdict"].isin(["faster", "slower"]).to_numpy(), index=table["benchmark"]
            )
        groups = list(planted.groupby("benchmark", sort=True))
        if "Mann-Whitney" in methods:
            detected["Mann-Whitney"] = pd.Series(
                {
                    b: stats.mannwhitneyu(g.loc[g.version == 0, "value"], g.loc[g.version == 1, "value"]).pvalue < 0.05
                    for b, g in groups
                }
            )
        if "pyperf" in methods:
            detected["pyperf"] = pd.Series({b: _pyperf_significant(g) for b, g in groups})
        for method, flags in detected.items():
            for source, members in source_of.groupby(source_of):
                hits = flags.loc[members.index].astype(bool)
                rate = float(hits.mean())
                nominal = 0.05 if slowdown == 0 else rate
                rows.append(
                    dict(
                        source=source,
                        slowdown=slowdown,
                        method=method,
                        pairs=int(hits.size),
                        rate=rate,
                        mc_se=math.sqrt(nominal * (1 - nominal) / hits.size),
                    )
                )
    return pd.DataFrame(rows)


def calibration_grid(
    *,
    clusters=(10, 25),
    azure=(),
    laaber=(),
    pt4cloud=(),
    slowdowns=(0.0, 0.01, 0.02, 0.05),
    replicates: int = 999,
    rng: Seed = None,
    progress: bool = False,
) -> pd.DataFrame:
    """:func:`aa_calibration` of the pairs cut at every number of clusters a side and in both :data:`LAYOUTS`.

    Parameters
    ----------
    clusters : sequence of int
        Clusters a side (below 20 ``compare`` uses Welch's t over them, from 20 the cluster bootstrap).
    azure, laaber, pt4cloud : sequence of str
        As in :func:`aa_pairs`.
    slowdowns : sequence of float
        Planted in B (0 is the A/A test).
    replicates : int
        Of the bootstraps.
    rng : None, int, SeedSequence or Generator
        One stream per cell, clusters outer and layout inner.
    progress : bool
        Show a progress bar.

    Returns
    -------
    DataFrame
        :func:`aa_calibration`'s columns, with ``clusters`` and ``layout``.
    """
    clusters = check_each("clusters", clusters, check_int, minimum=2)
    clusters = clusters if isinstance(clusters, tuple) else (clusters,)
    for name, names in dict(azure=azure, laaber=laaber, pt4cloud=pt4cloud).items():
        check_names(name, names, empty=True)
    check_each("slowdowns", slowdowns, check_real, nonnegative=True)
    check_resamples("replicates", replicates, minimum=99)
    check_bool("progress", progress)
    from tqdm.auto import tqdm

    cells = [(k, layout) for k in clusters for layout in LAYOUTS]
    streams = np.random.default_rng(rng).spawn(len(cells))
    results = []
    for (k, layout), stream in zip(tqdm(cells, desc="A/A calibration", disable=not progress), streams):
        pairs = aa_pairs(clusters=k, layout=layout, azure=azure, laaber=laaber, pt4cloud=pt4cloud)
        rates = aa_calibration(pairs, slowdowns=slowdowns, replicates=replicates, rng=stream)
        results.append(rates.assign(clusters=k, layout=layout))
    return pd.concat(results, ignore_index=True)
