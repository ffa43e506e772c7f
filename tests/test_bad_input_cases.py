"""Representative bad-input cases, one test per kind, as a reader would try them.

tests/test_bad_input.py walks every public callable with batteries of bad values; this file keeps the
cases found by hand, each with the behaviour that replaced the hang, the allocation, the garbage,
the lost row or the internal exception.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from perfstudy import PERFLAB_ENDPOINTS
from perfstudy._lib.checks import check_allocation, memory_limit

E1 = PERFLAB_ENDPOINTS[1]


@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setenv("PERFSTUDY_MAX_BYTES", "1G")


# ---- hangs: every loop has a bound, checked before it starts ---------------------------------------------------


def test_searches_refuse_unbounded_loops():
    from perfstudy.capacity.peak_search import find_peak_rate, trials_needed
    from perfstudy.capacity.response_surface import d_optimal
    from perfstudy.capacity.server_model import MAX_TRIALS, SimulatedServer

    server = SimulatedServer()
    with pytest.raises(ValueError, match=f"max_trials=1000000000: expected an integer of at most {MAX_TRIALS:,}"):
        find_peak_rate(server, target_accuracy=1e-9, max_trials=10**9)
    with pytest.raises(ValueError, match="max_trials"):
        trials_needed(server, load=100.0, runlength=60.0, max_trials=10**9)
    with pytest.raises(ValueError, match="increment=0: expected a positive number"):
        find_peak_rate(server, policy="strawman", increment=0, max_loads=100)
    with pytest.raises(ValueError, match="max_loads"):
        find_peak_rate(server, policy="strawman", max_loads=10**12)
    points = pd.DataFrame({"disks": [1, 1, 1, 2, 2, 2, 3, 3, 3], "daemons": [2, 4, 8] * 3})
    with pytest.raises(ValueError, match="starts"):
        d_optimal(points, 8, starts=10**12)


def test_a_search_stops_at_its_bound():
    """At an accuracy it cannot reach, the search stops at max_trials (its speed there, since the sample
    stopped growing by np.append, a copy per trial: benchmarks/run.py trials_needed_20k)."""
    from perfstudy.capacity.peak_search import trials_needed
    from perfstudy.capacity.server_model import SimulatedServer

    assert (
        trials_needed(SimulatedServer(), load=100.0, runlength=60.0, target_accuracy=1e-6, max_trials=2_000, rng=0)
        == 2_000
    )


# ---- unbounded sizes: an estimate of the bytes, refused past the limit ------------------------------------------


def test_huge_sizes_are_refused_with_the_memory_they_ask_for(small_limit):
    from perfstudy import simulate
    from perfstudy.design.bootstrap import clustered_bootstrap
    from perfstudy.design.type1_errors import type1_error_table
    from perfstudy.stability.pt4cloud import confidence_band

    with pytest.raises(ValueError, match=r"requests=1000000000000 needs about .* GiB .* limit of 1\.0 GiB"):
        simulate("unbalanced", E1, requests=10**12, hosts=2)
    with pytest.raises(ValueError, match=r"experiments=1000000000000 needs about"):
        type1_error_table(experiments=10**12)
    with pytest.raises(ValueError, match=r"replicates=10000000 needs about .*PERFSTUDY_MAX_BYTES"):
        clustered_bootstrap(np.arange(20.0), np.repeat([0, 1], 10), replicates=10**7)
    with pytest.raises(ValueError, match="strips=1000000000: expected an integer of at most"):
        confidence_band(np.random.default_rng(0).normal(size=50), strips=10**9)


def test_the_memory_limit_is_documented_and_overridable(monkeypatch):
    monkeypatch.delenv("PERFSTUDY_MAX_BYTES", raising=False)
    import os

    assert memory_limit() == os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    monkeypatch.setenv("PERFSTUDY_MAX_BYTES", "512M")
    assert memory_limit() == 512 << 20
    check_allocation("n", 1, 500 << 20)  # below: nothing
    with pytest.raises(ValueError, match=r"n=2 needs about 0\.6 GiB for x, more than the limit of 0\.5 GiB"):
        check_allocation("n", 2, 600 << 20, what="x")
    monkeypatch.setenv("PERFSTUDY_MAX_BYTES", "lots")
    with pytest.raises(ValueError, match="PERFSTUDY_MAX_BYTES"):
        memory_limit()


# ---- a duration misread ----------------------------------------------------------------------------------------


def test_durations_are_durations():
    from perfstudy.stability.pt4cloud import pt4cloud, split_intervals

    frame = pd.DataFrame(
        {"timestamp": pd.date_range("2026-01-01", periods=200, freq="10min"), "value": np.arange(200.0) % 7 + 1}
    )
    with pytest.raises(TypeError, match="intervals=3600.0: a bare number has no unit"):
        pt4cloud(frame, intervals=3600.0)
    with pytest.raises(ValueError, match="intervals='1ns': cuts .* into 119,400,000,000,001 intervals"):
        split_intervals(frame, "1ns")
    parts, unused = split_intervals(frame, "6h")  # as before: 36 runs per 6 hours
    assert [p.size for p in parts] == [36] * 5 and unused == 20


# ---- silent garbage --------------------------------------------------------------------------------------------


def test_values_that_were_garbage_are_refused_by_name():
    from perfstudy.capacity.peak_search import find_peak_rate
    from perfstudy.capacity.server_model import SimulatedServer
    from perfstudy.design.schedules import Schedule
    from perfstudy.diagnostics.hosts import mmd_test
    from perfstudy.diagnostics.repetitions import median_ci_indices, repetitions_needed
    from perfstudy.diagnostics.variability import normality, stationarity, warmup
    from perfstudy.stability.kde import bootstrap_densities, strip_grid

    x = np.random.default_rng(0).normal(10, 1, 200)
    with pytest.raises(ValueError, match="chunk=-1"):
        bootstrap_densities(x, strip_grid(x, strips=20), 0.5, replicates=5, chunk=-1)
    for n in (-5, math.nan):
        with pytest.raises((ValueError, TypeError), match="^n="):
            median_ci_indices(n)
    ids = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="repetition"):
        Schedule(ids, ids, np.zeros(4, int), np.array([0, 0, 1, 1]), repetition=[math.nan, 0, 0, 0])
    with pytest.raises(ValueError, match="bandwidth=inf"):
        mmd_test(x[:20], x[20:40] + 5, bandwidth=math.inf)
    frame = pd.DataFrame({"host": np.repeat(["a", "b"], 100), "value": x})
    for check in (lambda: normality(frame, alpha=2), lambda: warmup(x, alpha=2), lambda: stationarity(frame, alpha=2)):
        with pytest.raises(ValueError, match="alpha=2"):
            check()
    with pytest.raises(ValueError, match="error=inf"):
        repetitions_needed(x, error=math.inf)
    with pytest.raises(ValueError, match="strawman_trials=1"):
        find_peak_rate(SimulatedServer(), policy="strawman", strawman_trials=1)
    with pytest.raises(ValueError, match="disk_rate=0"):
        SimulatedServer(disk_rate=0)


def test_widgets_refuse_instead_of_clamping():
    from perfstudy.notebook.widgets import design_explorer

    with pytest.raises(ValueError, match="target_se=-1"):
        design_explorer(target_se=-1)
    with pytest.raises(ValueError, match="requests=1000000: expected an integer of at most 4,096"):
        design_explorer(requests=10**6)


# ---- rows lost without a word ----------------------------------------------------------------------------------


def test_rows_are_never_lost_silently():
    from perfstudy.diagnostics.hosts import rank_hosts
    from perfstudy.diagnostics.variability import stationarity
    from perfstudy.stability.pt4cloud import hourly_sample

    rng = np.random.default_rng(0)
    fleet = pd.DataFrame({"host": np.repeat(["a", "b", "c"], 20).astype(object), "value": rng.normal(10, 1, 60)})
    fleet.loc[5, "host"] = np.nan
    with pytest.raises(ValueError, match="1 of 60 rows have no server label"):
        rank_hosts(fleet, permutations=9, rng=0)
    timed = pd.DataFrame(
        {"timestamp": pd.date_range("2026-01-01", periods=60, freq="10min"), "value": rng.normal(size=60)}
    )
    timed.loc[3, "timestamp"] = pd.NaT
    with pytest.raises(ValueError, match="1 of 60 timestamps are NaT"):
        hourly_sample(timed)
    with pytest.raises(ValueError, match="1 of 60 timestamps are NaT"):
        stationarity(timed)
    as_text = timed.dropna().assign(timestamp=lambda d: d.timestamp.dt.strftime("%d/%m %H:%M"))
    with pytest.raises(ValueError, match="holds .* values, not times"):
        stationarity(as_text)


# ---- internal exceptions ---------------------------------------------------------------------------------------


def test_what_used_to_escape_as_an_internal_exception():
    from perfstudy.capacity.peak_search import find_peak_rate
    from perfstudy.capacity.response_surface import quadratic_design
    from perfstudy.diagnostics.adf import adf
    from perfstudy.diagnostics.diagnosis import diagnose
    from perfstudy.diagnostics.variability import autocorrelation_se, warmup
    from perfstudy.io.datasets import load
    from perfstudy.stability.kde import strip_grid

    with pytest.raises(ValueError, match="x: the ADF regression .* singular"):
        warmup(np.arange(200.0))
    with pytest.raises(ValueError, match="x: the ADF regression .* singular"):
        adf(np.tile([1.0, 2.0], 25))
    assert math.isnan(autocorrelation_se(np.full(10, 3.0)).inflation)
    with pytest.raises(ValueError, match="strips=0"):
        strip_grid(np.arange(5.0), strips=0)
    with pytest.raises(TypeError, match="name=None"):
        load(None)
    with pytest.raises(TypeError, match="df: expected a pandas DataFrame"):
        diagnose(np.arange(5.0), "host")
    with pytest.raises(TypeError, match="server=None"):
        find_peak_rate(None)
    with pytest.raises(ValueError, match="points: expected shape"):
        quadratic_design(np.arange(5.0))


# ---- the short cases of the battery's second pass, each refused by name or fixed ---------------------------------


def test_a_jmh_histogram_that_declares_billions_of_values_is_refused(small_limit):
    from perfstudy.io import read_jmh

    huge = {
        "benchmark": "org.example.Bench.sample",
        "mode": "sample",
        "primaryMetric": {"score": 1.0, "scoreUnit": "us/op", "rawDataHistogram": [[[[1.0, 1e12]]]]},
    }
    with pytest.raises(ValueError, match="1,000,000,000,000 values its histograms declare"):
        read_jmh([huge])


def test_a_dataset_that_is_not_a_pt4cloud_configuration_is_named():
    from perfstudy.studies import he2019

    with pytest.raises(ValueError, match="'azure-redis-get-long': a azure-vm-noise dataset, not a PT4Cloud"):
        he2019.configuration("azure-redis-get-long")
    with pytest.raises(ValueError, match="'nope': not a registered dataset"):
        he2019.configuration("nope")


def test_dates_are_not_tested_for_normality():
    from perfstudy.diagnostics.variability import normality

    frame = pd.DataFrame({"timestamp": pd.date_range("2026-01-01", periods=20, freq="h"), "value": np.arange(20.0)})
    with pytest.raises(TypeError, match="value='timestamp': expected a column of measurements, got dtype datetime64"):
        normality(frame, value="timestamp")


def test_a_bootstrap_of_one_value_per_version_is_refused():
    from perfstudy.design.bootstrap import clustered_bootstrap

    with pytest.raises(ValueError, match="condition 0 has a single observation"):
        clustered_bootstrap(np.array([1.0, 2.0]), np.array([0, 1]), None, replicates=10, rng=0)


def test_a_header_only_csv_is_no_measurements(tmp_path):
    from perfstudy import io

    path = tmp_path / "runs.csv"
    path.write_text("benchmark,value\n")
    with pytest.raises(ValueError, match="has a header .* and no rows"):
        io.read(path)


def test_the_relative_error_of_a_zero_median():
    from perfstudy.diagnostics.repetitions import median_ci

    assert median_ci(np.arange(-10.0, 11.0)).relative_half_width == math.inf
    assert math.isnan(median_ci(np.zeros(21)).relative_half_width)
    assert median_ci(np.arange(1.0, 22.0)).relative_half_width == pytest.approx(5 / 11)  # ranks 6 and 16


def test_points_on_a_line_have_no_d_optimal_design():
    from perfstudy.capacity.response_surface import d_optimal

    with pytest.raises(ValueError, match="no 8 of them determine a quadratic surface"):
        d_optimal(np.ones((16, 2)), 8, starts=2, rng=0)


def test_experiment_indices_are_integers():
    from perfstudy import simulate

    sim = simulate("fully_balanced", E1, requests=8, hosts=2, experiments=2, rng=0)
    with pytest.raises(TypeError, match="experiments=\\[0.5\\]: expected an index"):
        sim.to_frame(experiments=[0.5])


def test_the_short_interval_ladder_must_increase():
    from perfstudy.studies import he2019

    with pytest.raises(ValueError, match="hours=\\(168, 12\\): expected increasing lengths"):
        he2019.reduction_study(hours=(168, 12))


def test_scales_of_a_server_may_be_fractions():
    from perfstudy.studies import shivam2008

    table = shivam2008.growth(scales=(1.5,), policies=("binsearch",), search=dict(max_trials=3), rng=0)
    assert list(table.scale) == [1.5]
