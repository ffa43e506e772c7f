"""The blog's trap, recomputed by hand."""

from __future__ import annotations

import math

import pytest
from support.studies import (
    AZURE,
    needs_data,
)

from perfstudy.io.datasets import load
from perfstudy.studies import kolaczkowski


@needs_data
def test_blog_trap_recomputed_by_hand():
    trap = kolaczkowski.standard_error_trap(AZURE, batches=20).set_index("series")

    x = load("azure-redis-get-long").query("host == 0").sort_values("timestamp").value.to_numpy()
    blocks = x[: 20 * (x.size // 20)].reshape(20, -1).mean(axis=1)
    assert trap.loc["redis-get-long host0", "batch_means_se"] == pytest.approx(blocks.std(ddof=1) / math.sqrt(20))
    assert trap.loc["redis-get-long host0", "naive_se"] == pytest.approx(x.std(ddof=1) / math.sqrt(x.size))
