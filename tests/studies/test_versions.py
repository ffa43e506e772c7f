"""Comparing versions on real A/A pairs: what each method calls, and compare's Type I error on interleaved pairs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from support.studies import (
    _have_data,
    _synthetic_pairs,
    needs_data,
)

from perfstudy.studies import public_data, versions


def test_aa_calibration_counts_what_each_method_says():
    from pyperf._utils import is_significant
    from scipy import stats as scipy_stats

    from perfstudy.comparison import compare

    pairs = _synthetic_pairs(pairs=8)
    rates = versions.aa_calibration(pairs, slowdowns=(0.0, 0.03), replicates=199, rng=1).set_index(
        ["slowdown", "method"]
    )
    planted = pairs.assign(value=np.where(pairs.version == 1, pairs.value * 1.03, pairs.value))
    ours = compare(
        planted, correction="none", checks=False, replicates=199, rng=np.random.default_rng(1).spawn(2)[1]
    ).table
    assert rates.loc[(0.03, "perfstudy"), "rate"] == ours.verdict.isin(["faster", "slower"]).mean()
    groups = [g for _, g in planted.groupby("benchmark")]
    mann_whitney = np.mean(
        [scipy_stats.mannwhitneyu(g.value[g.version == 0], g.value[g.version == 1]).pvalue < 0.05 for g in groups]
    )
    assert rates.loc[(0.03, "Mann-Whitney"), "rate"] == mann_whitney
    # pyperf's test is Student's t on all values at 95% (equal counts here)
    pyperf = np.mean([is_significant(list(g.value[g.version == 0]), list(g.value[g.version == 1]))[0] for g in groups])
    assert rates.loc[(0.03, "pyperf"), "rate"] == pyperf
    assert rates.loc[(0.0, "perfstudy"), "mc_se"] == pytest.approx(math.sqrt(0.05 * 0.95 / 8))


def test_aa_pairs_split_windows_of_batches():
    pairs = (
        versions.aa_pairs(clusters=3, laaber=("laaber-golang-snappy",), max_pairs_per_series=2)
        if _have_data()
        else None
    )
    if pairs is None:
        pytest.skip("real datasets unavailable ($PERFSTUDY_DATA, cache)")
    first = pairs[pairs.benchmark == 0]
    assert list(first.version) == [0, 1, 0, 1, 0, 1] and list(first.batch) == [0, 1, 2, 3, 4, 5]
    sequential = versions.aa_pairs(
        clusters=3, layout="sequential", laaber=("laaber-golang-snappy",), max_pairs_per_series=2
    )
    assert list(sequential[sequential.benchmark == 1].version) == [0, 0, 0, 1, 1, 1]
    assert pairs.groupby("series").benchmark.nunique().max() == 2
    with pytest.raises(ValueError, match="layout"):
        versions.aa_pairs(layout="random")


@needs_data
def test_compare_is_calibrated_on_interleaved_real_a_a_pairs():
    # 10 batches a side, interleaved: Azure days (184 pairs), PT4Cloud blocks of 10 runs (40 pairs).
    # Measured: 3.3% and 2.5%. Bound: 5% + 3 MC SE (at the nominal rate) per source.
    pairs = versions.aa_pairs(
        azure=public_data.AZURE_LONG, pt4cloud=("pt4cloud-AWS-EP-L", "pt4cloud-AWS-YCSB-L"), max_pairs_per_series=20
    )
    rates = versions.aa_calibration(pairs, slowdowns=(0.0,), methods=("perfstudy",), rng=0)
    for row in rates.itertuples():
        assert row.rate <= 0.05 + 3 * row.mc_se, (row.source, row.rate, row.pairs)


@needs_data
def test_the_calibration_grid_is_aa_calibration_at_each_cell_with_its_own_stream():
    grid = versions.calibration_grid(
        clusters=(3,), laaber=("laaber-golang-snappy",), slowdowns=(0.0,), replicates=99, rng=7
    )
    streams = np.random.default_rng(7).spawn(2)
    for layout, stream in zip(versions.LAYOUTS, streams):
        pairs = versions.aa_pairs(clusters=3, layout=layout, laaber=("laaber-golang-snappy",))
        alone = versions.aa_calibration(pairs, slowdowns=(0.0,), replicates=99, rng=stream)
        cell = grid[grid.layout == layout].drop(columns=["clusters", "layout"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(cell, alone)
    assert set(grid.clusters) == {3}
