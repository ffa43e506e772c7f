"""Bakshy & Frachtenberg's methods on real series: recovery of Table 1, a design from a pilot, the variance split, the pilot budget, real A/A pairs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.studies import (
    AZURE,
    E1,
    STUDY_CALLS,
    _pilot_fit,
    needs_data,
)

from perfstudy import DESIGNS, CostModel
from perfstudy.design.standard_errors import optimal_allocation, standard_error
from perfstudy.io.datasets import load
from perfstudy.studies import bakshy2015_real


def test_table1_recovery_covers_and_names():
    table = STUDY_CALLS["perfstudy.studies.bakshy2015_real.table1_recovery"](1)
    assert len(table) == 25 and list(table.parameter[:5]) == ["request", "host", "request_batch", "host_batch", "noise"]
    assert np.allclose(table.truth[:5], [E1.request, E1.host, E1.request_batch, E1.host_batch, E1.noise])
    assert (table.low <= table.high).all()
    assert (table.covered == ((table.low <= table.truth) & (table.truth <= table.high))).all()


def test_design_from_pilot_keeps_its_promise():
    fit = _pilot_fit()
    costs = CostModel(setup=600.0, request=2.0, repetition=0.5, host=60.0)
    plan = bakshy2015_real.design_from_pilot(fit, costs, target_se=0.1, experiments=2000, rng=3)
    assert list(plan.design) == list(DESIGNS) and plan.best.sum() == 1
    assert dict(zip(plan.design, plan.bootstrap)) == bakshy2015_real.BOOTSTRAP_FOR_DESIGN
    feasible = plan[plan.feasible]
    assert (feasible.promised_se <= 0.1).all()
    # achieved SE from 2,000 simulated experiments within 4 of its Monte Carlo standard errors
    assert (abs(feasible.achieved_se - feasible.promised_se) <= 4 * feasible.achieved_se_error).all()


@needs_data
def test_variance_split_equals_the_anova_where_only_hosts_and_noise_vary():
    # Two CWB metrics whose fits put region and batch at 0: what is left is a one-way layout of VMs
    # within instance types, 3 iterations each, balanced within a VM, so REML equals the ANOVA
    # estimates: noise^2 = pooled within-VM variance, host^2 = pooled between-VM variance - noise^2/3.
    metrics = ("sysbench/threads-1-duration", "md-sim-duration")
    cwb = load("cwb-aws-microbench")
    split = bakshy2015_real.variance_split(cwb=metrics, azure=()).set_index("benchmark")
    for metric in metrics:
        rows = cwb[cwb.benchmark == metric].assign(y=lambda f: np.log(f.value))
        within = rows.groupby("host").y.var(ddof=1).mean()
        means = rows.groupby(["config", "host"]).y.mean()
        between = ((means - means.groupby("config").transform("mean")) ** 2).sum() / (
            means.groupby("config").size() - 1
        ).sum()
        row = split.loc[metric]
        assert row.sd_batch < 1e-4 and row.sd_region < 1e-4, metric
        assert row.sd_noise == pytest.approx(math.sqrt(within), rel=1e-4), metric
        assert row.sd_host == pytest.approx(math.sqrt(between - within / 3), rel=1e-4), metric
        shares = row[[f"share_{r}" for r in bakshy2015_real.VARIANCE_ROLES]].dropna()
        assert shares.sum() == pytest.approx(1.0) and row.total_sd**2 == pytest.approx(
            sum(row[f"sd_{r}"] ** 2 for r in ("region", "host", "batch", "noise"))
        )
        assert (row.n, row.dropped, row.hosts, row.batches) == (732, 0, 244, 3)


@needs_data
def test_variance_split_names_what_it_did_not_fit():
    # the 4k random-write latency is 0.01 or 0.02 ms, decided by the instance type, and 0 on 3 rows
    split = bakshy2015_real.variance_split(cwb=["sysbench/fileio-4k-rand-write-latency"], azure=AZURE)
    cwb_row, azure_row = split.iloc[0], split.iloc[1]
    assert (cwb_row.n, cwb_row.dropped) == (729, 3) and "constant within every config" in cwb_row.note
    assert np.isnan(cwb_row.sd_host) and not cwb_row.converged
    # Azure: batch = the calendar day (UTC), shared by the 3 hosts
    redis = load(AZURE[0])
    assert (azure_row.hosts, azure_row.batches, azure_row.n) == (3, redis.timestamp.dt.date.nunique(), len(redis))
    assert azure_row.converged and np.isnan(azure_row.sd_region) and np.isfinite(azure_row.sd_host_batch)
    with pytest.raises(ValueError, match="not CWB metrics"):
        bakshy2015_real.variance_split(cwb=["nope"], azure=())


def test_pilot_budget_judges_each_recommendation_under_the_truth():
    costs = CostModel(setup=600.0, request=2.0, repetition=0.5, host=60.0)
    budget = STUDY_CALLS["perfstudy.studies.bakshy2015_real.pilot_budget"](4)
    per_pilot = budget.pilots
    assert len(per_pilot) == 2 * 2 * 3 and len(budget.by_pilot) == 4
    oracle = optimal_allocation(E1, costs, target_se=0.1, hosts=[4, 8, 16])
    assert budget.oracle == oracle[oracle.best]
    for row in per_pilot.itertuples():
        # the promise is made under the fitted sigmas, and judged under the true ones
        assert row.promised_se <= 0.1 + 1e-12
        truth = standard_error(row.design, E1, requests=row.requests, hosts=row.hosts, repetitions=row.repetitions)
        assert row.true_se == pytest.approx(truth, rel=1e-12)
    first = per_pilot[(per_pilot.pilot_hosts == 4) & (per_pilot.pilot_batches == 2)]
    ratio = first.true_se / 0.1
    summary = budget.by_pilot.iloc[0]
    assert summary.within_10pct == pytest.approx(np.mean(abs(ratio - 1) <= 0.1))
    assert summary.se_ratio_median == pytest.approx(ratio.median())
    assert summary.oracle_design_share == pytest.approx(np.mean(first.design == budget.oracle.design))


def test_real_aa_leaves_out_short_series_and_says_so():
    per_series = STUDY_CALLS["perfstudy.studies.bakshy2015_real.real_aa"](0)
    summary = bakshy2015_real.real_aa(
        [("a", np.arange(100.0) % 7)], segments=2, segment_length=5, experiments=3, replicates=3, rng=0
    )
    assert set(per_series.series) == {"a"} and set(summary.by_bootstrap.bootstrap) == {"iid", "segment"}
    with pytest.raises(ValueError, match="none holds"):
        bakshy2015_real.real_aa([("short", np.ones(3))])
