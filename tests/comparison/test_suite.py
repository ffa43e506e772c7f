"""A suite compared in layout groups (perfstudy.comparison._suite, _grouped) against each benchmark compared on
its own (perfstudy.comparison._one), the slow obvious path: the same numbers to 1e-12 on the same bootstrap
draws, and within Monte Carlo error on independent ones."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from support.frames import clustered

from perfstudy.comparison import compare
from perfstudy.comparison._intervals import _interval, _method, _side
from perfstudy.comparison._one import _compare_one
from perfstudy.comparison._streams import _streams, benchmark_stream, layout_stream
from perfstudy.comparison._task import _Settings, _Task

SEED = 20261125


def _layouts() -> pd.DataFrame:
    """Benchmarks of every layout the comparison tests use, several per layout so that groups have more
    than one member: many values a batch (mean), one value a batch (Go lines; mean and median), few batches
    (Welch-Fieller), unequal batch counts between the versions, unequal batch sizes, zeros (the difference
    scale, compared alone), a warm-up, a drift and an odd batch that the checks must name; units that
    convert, units that do not (excluded), and harness-flagged warm-ups (left out)."""
    rng = np.random.default_rng(7)
    parts = []

    def add(name, clusters_a, clusters_b, per, *, change=0.0, sd=0.02, sizes=None):
        for version, clusters in ((0, clusters_a), (1, clusters_b)):
            counts = sizes if sizes is not None else [per] * clusters
            for c, count in enumerate(counts[:clusters]):
                effect = rng.normal(0, sd)
                values = np.exp(effect + rng.normal(0, 0.01, count)) * (1 + change * version)
                parts.append(pd.DataFrame(dict(benchmark=name, version=version, batch=c, value=values)))

    for k in range(3):
        add(f"many-{k}", 24, 24, 6, change=0.03 * k)
        add(f"go-{k}", 20, 20, 1, change=0.04 * k)
        add(f"few-{k}", 6, 6, 4, change=0.05 * k)
        add(f"uneven-{k}", 21, 26, 2)
    add("sizes", 22, 22, 0, sizes=[1, 2, 3, 4] * 6)
    frame = pd.concat(parts, ignore_index=True)
    # a warm-up in A of many-0: the first value of each batch 30% slow
    first = (frame.benchmark == "many-0") & (frame.version == 0) & (frame.groupby(["benchmark", "version", "batch"]).cumcount() == 0)  # fmt: skip
    frame.loc[first, "value"] *= 1.3
    # a drift in B of go-0, an odd batch in B of go-1
    drift = (frame.benchmark == "go-0") & (frame.version == 1)
    frame.loc[drift, "value"] *= 1 + 0.004 * frame.loc[drift, "batch"]
    odd = (frame.benchmark == "go-1") & (frame.version == 1) & (frame.batch == 7)
    frame.loc[odd, "value"] *= 1.5
    zeros = pd.DataFrame(dict(benchmark="zeros", version=np.repeat([0, 1], 20), batch=np.tile(np.arange(20), 2),
                              value=np.r_[np.zeros(20), np.arange(20.0)]))  # fmt: skip
    # a difference of temperatures (values below 0) over few batches: the difference scale, Welch's t
    below = pd.DataFrame(dict(benchmark="below-0", version=np.repeat([0, 1], 24), batch=np.tile(np.repeat(np.arange(6), 4), 2),
                              value=np.r_[rng.normal(-2.0, 0.3, 24), rng.normal(-1.5, 0.3, 24)]))  # fmt: skip
    frame = pd.concat([frame, zeros, below], ignore_index=True).assign(unit="s", warmup=False)
    # go-2 measured in ms in A (converted to A's unit, ms: B's seconds x 1000); few-2 in B/op in B (excluded)
    go2 = (frame.benchmark == "go-2") & (frame.version == 0)
    frame.loc[go2, "value"] *= 1000.0
    frame.loc[go2, "unit"] = "ms"
    frame.loc[(frame.benchmark == "few-2") & (frame.version == 1), "unit"] = "B/op"
    # harness-flagged warm-ups, left out before anything: a 10x value in each batch of uneven-0
    flagged = frame[frame.benchmark == "uneven-0"].groupby(["version", "batch"]).head(1).assign(value=10.0, warmup=True)
    return pd.concat([flagged, frame], ignore_index=True)


def _alone(frame: pd.DataFrame, comparison, statistic: str, threshold: float) -> list[dict]:
    """Each benchmark of the table compared on its own: its row on its own stream, and where a group compared
    it, the interval and p-value on the draws its layout group used."""
    names = list(comparison.table.benchmark)
    settings = _Settings(statistic=statistic, confidence=0.95, threshold=threshold, replicates=999, checks=True,
                         cluster="batch", block=None, sequential=False, check_alpha=0.05 / len(names))  # fmt: skip
    root = _streams(SEED)
    expected = []
    for i, name in enumerate(names):
        rows = frame[(frame.benchmark == name) & ~frame.warmup]
        a, b = rows[rows.version == 0], rows[rows.version == 1]
        if name == "go-2":  # to A's unit
            b = b.assign(value=b.value * 1000.0)
        task = _Task(name, a.value.to_numpy(), a.batch.to_numpy(), b.value.to_numpy(), b.batch.to_numpy(),
                     higher_is_better=False, settings=settings)  # fmt: skip
        row = _compare_one(task, np.random.default_rng(benchmark_stream(root, i)))
        side_a, side_b = _side(task.values_a, task.labels_a, statistic), _side(task.values_b, task.labels_b, statistic)
        grouped = statistic == "mean" or max(side_a.counts.max(), side_b.counts.max()) == 1
        if grouped:  # both scales: the ratio, and the difference of zeros and negative values
            draws = np.random.default_rng(layout_stream(root, side_a.clusters, side_b.clusters))
            method = _method(side_a, side_b)
            row["low"], row["high"], row["p_value"] = _interval(side_a, side_b, row["scale"], method, statistic, 0.95, 999, draws)  # fmt: skip
        expected.append(row)
    return expected


@pytest.mark.parametrize("statistic", ["mean", "median"])
@pytest.mark.parametrize("threshold", [0.0, 0.02])  # 2%: CONFIRM runs on each benchmark's own stream too
def test_groups_give_each_benchmarks_own_numbers_on_the_same_draws(statistic, threshold):
    frame = _layouts()
    comparison = compare(frame, statistic=statistic, threshold=threshold, replicates=999, rng=SEED)
    expected = _alone(frame, comparison, statistic, threshold)
    table = comparison.table
    assert len(table) == 14 and list(comparison.excluded) == ["few-2"] and comparison.warmup_dropped == 21 + 26
    assert comparison.units["go-2"] == "ms"
    for row, want in zip(table.to_dict("records"), expected):
        assert row["benchmark"] == want["benchmark"]
        for key in ("n_a", "n_b", "clusters_a", "clusters_b", "scale", "method", "notes"):
            assert row[key] == want[key], (row["benchmark"], key)
        for key in ("estimate_a", "estimate_b", "spread_a", "spread_b", "change", "low", "high", "p_value"):
            assert row[key] == pytest.approx(want[key], rel=1e-12, abs=1e-15, nan_ok=True), (row["benchmark"], key)
    notes = dict(zip(table.benchmark, table.notes))
    # the checks a reader must see, from the grouped path
    assert any(n.startswith("warm-up in A") for n in notes["many-0"])
    assert any(n.startswith("drift in B") for n in notes["go-0"])
    assert "batch 7 of B is unlike the others" in notes["go-1"]
    by_name = table.set_index("benchmark")
    assert by_name.loc["zeros", "scale"] == by_name.loc["below-0", "scale"] == "difference"
    assert by_name.loc["below-0", "method"] == "t" and by_name.loc["zeros", "method"] == "bootstrap"


def test_shared_draws_move_an_interval_only_by_monte_carlo_error():
    """A suite's benchmarks of one layout share a draw matrix where each had its own: a new Monte Carlo
    sample of the same bootstrap distribution. The 2.5% quantile of R = 2,000 replicates of a normal
    bootstrap distribution with SD s has a Monte Carlo SD of sqrt(0.025 * 0.975 / R) / phi(1.96) s = 0.060 s,
    so two independent samples differ by 0.085 s in SD; 5 SDs is 0.42 s, about 0.11 of the interval's
    width on the log scale (3.92 s times the small-sample stretch, 1.05 at 20 batches a side)."""
    frame = clustered(40, 20, 1, rng=3, sd_cluster=0.02, sd_noise=0.0)
    grouped = compare(frame, rng=SEED).table
    settings = _Settings(statistic="mean", confidence=0.95, threshold=0.0, replicates=2000, checks=False,
                         cluster="batch", block=None, sequential=False, check_alpha=0.05 / 40)  # fmt: skip
    own = np.random.default_rng(99).spawn(40)
    for i, row in enumerate(grouped.to_dict("records")):
        rows = frame[frame.benchmark == row["benchmark"]]
        a, b = rows[rows.version == 0], rows[rows.version == 1]
        alone = _compare_one(_Task(i, a.value.to_numpy(), a.batch.to_numpy(), b.value.to_numpy(), b.batch.to_numpy(),
                                   higher_is_better=False, settings=settings), own[i])  # fmt: skip
        width = math.log1p(row["high"]) - math.log1p(row["low"])
        assert abs(math.log1p(alone["low"]) - math.log1p(row["low"])) < 0.11 * width
        assert abs(math.log1p(alone["high"]) - math.log1p(row["high"])) < 0.11 * width
        assert alone["change"] == pytest.approx(row["change"], rel=1e-12)


def test_a_benchmarks_interval_does_not_depend_on_the_executor_or_the_chunk(monkeypatch):
    """Chunks of a group hold about 4 MB of replicates; a chunk of one benchmark gives the same table."""
    from perfstudy.comparison import _grouped

    frame = clustered(30, 20, 3, rng=5)
    whole = compare(frame, rng=SEED).table
    monkeypatch.setattr(_grouped, "CHUNK_FLOATS", 1)
    pd.testing.assert_frame_equal(compare(frame, rng=SEED).table, whole)


def test_the_same_generator_twice_gives_new_draws():
    """The caller's Generator advances by one child per comparison, as spawn() does: two comparisons with
    one Generator do not reuse the draws."""
    frame = clustered(3, 20, 1, rng=5, sd_cluster=0.02, sd_noise=0.0)
    generator = np.random.default_rng(1)
    first, second = compare(frame, rng=generator).table, compare(frame, rng=generator).table
    assert not np.allclose(first.low, second.low)
    pd.testing.assert_frame_equal(compare(frame, rng=np.random.default_rng(1)).table, first)
