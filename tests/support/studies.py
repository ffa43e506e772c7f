"""One small call per study function, and what the study tests share (real-data skips, grids).

``STUDY_CALLS`` holds one small call per study function that takes ``rng``; the vocabulary test calls
each with ``rng=None`` and twice with ``rng=0``.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

from perfstudy import PERFLAB_ENDPOINTS, CostModel
from perfstudy.capacity.server_model import SimulatedServer
from perfstudy.design.type1_errors import aa_tests
from perfstudy.io.datasets import DataUnavailableError, locate
from perfstudy.studies import (
    bakshy2015,
    bakshy2015_real,
    design_said,
    he2019,
    maricq2018,
    shivam2008,
    table3_readings,
    versions,
)
from perfstudy.studies.public_data import survey_datasets

E1 = PERFLAB_ENDPOINTS[1]


SEARCH = dict(target_accuracy=0.1, confidence=0.95, region_width=0.1, runlength=120.0, increment=20.0, max_loads=500)


GRID = pd.DataFrame([dict(disks=d, daemons=n) for d in (1, 2, 4) for n in (4, 8, 16)])


AZURE = ("azure-redis-get-long",)


CWB_METRICS = ("sysbench/cpu-single-thread-duration", "md-sim-duration")


def _have_data() -> bool:
    try:
        locate("pt4cloud-AWS-EP-L", download=False)
    except DataUnavailableError:
        return False
    return True


needs_data = pytest.mark.skipif(not _have_data(), reason="real datasets unavailable ($PERFSTUDY_DATA, cache)")


def _history_validation():
    from perfstudy.studies import history_validation

    return history_validation


def _history_frame():
    """Two series shaped like history_validation.sap_frame, neither with a labelled regression."""
    rng = np.random.default_rng(0)
    parts = [
        pd.DataFrame({"benchmark": b, "commit": np.arange(80) // 2, "value": np.exp(rng.standard_normal(80) * 0.01),
                      "label": "x", "truth": -1})
        for b in ("s0", "s1")
    ]  # fmt: skip
    return pd.concat(parts, ignore_index=True)


STUDY_CALLS = {
    "perfstudy.studies.history_validation.score_planted": lambda r: (
        _history_validation()
        .score_planted(_history_frame(), rng=r, detectors=("perfstudy",))
        .table.drop(columns="seconds")
    ),
    "perfstudy.studies.history_validation.false_alarms": lambda r: (
        _history_validation().false_alarms(3, 40, noises=("t3",), rng=r).table.drop(columns="seconds")
    ),
    "perfstudy.studies.history_validation.cost_per_series": lambda r: (
        _history_validation()
        .cost_per_series(3, 40, rng=r, detectors=("perfstudy",))
        .table.drop(columns=["seconds", "seconds_per_1000_series"])
    ),
    "perfstudy.design.type1_errors.aa_tests": lambda r: aa_tests(
        "fully_balanced", E1, requests=8, hosts=2, experiments=3, replicates=4, rng=r
    ),
    "perfstudy.studies.bakshy2015.figure4": lambda r: bakshy2015.figure4(
        E1, hosts=[2], requests=[8], experiments=4, rng=r
    ),
    "perfstudy.studies.bakshy2015.figure5": lambda r: bakshy2015.figure5(E1, requests=8, hosts=2, experiments=4, rng=r),
    "perfstudy.studies.bakshy2015.origin_check": lambda r: bakshy2015.origin_check(
        E1, [("unbalanced", "host")], requests=8, hosts=4, experiments=3, replicates=3, rng=r
    ),
    "perfstudy.studies.design_said.recheck_largest": lambda r: design_said.recheck_largest(
        pd.DataFrame({"design": ["unbalanced"], "hosts": [4], "requests": [8], "z": [1.0]}),
        E1,
        repeats=2,
        experiments=4,
        rng=r,
    ),
    "perfstudy.studies.bakshy2015.figure6": lambda r: bakshy2015.figure6(
        E1, requests=8, hosts=2, simulations=5, replicates=5, rng=r
    ),
    "perfstudy.studies.bakshy2015.figure7": lambda r: bakshy2015.figure7(
        E1, requests=8, hosts=4, tests=3, replicates=4, rng=r
    ),
    "perfstudy.studies.bakshy2015_real.table1_recovery": lambda r: bakshy2015_real.table1_recovery(
        requests=12, hosts=3, batches=2, replicates=3, rng=r
    ),
    "perfstudy.studies.bakshy2015_real.interval_methods": lambda r: bakshy2015_real.interval_methods(
        "md-sim-duration", replicates=4, rng=r
    ),
    "perfstudy.studies.bakshy2015_real.design_from_pilot": lambda r: bakshy2015_real.design_from_pilot(
        _pilot_fit(),
        CostModel(setup=600.0, request=2.0, repetition=0.5, host=60.0),
        target_se=0.1,
        experiments=50,
        rng=r,
    ),
    "perfstudy.studies.versions.calibration_grid": lambda r: versions.calibration_grid(
        clusters=(3,), laaber=("laaber-golang-snappy",), slowdowns=(0.0,), replicates=99, rng=r
    ),
    "perfstudy.studies.versions.aa_calibration": lambda r: versions.aa_calibration(
        _synthetic_pairs(), slowdowns=(0.0, 0.05), methods=("perfstudy", "iid bootstrap"), replicates=199, rng=r
    ),
    "perfstudy.studies.bakshy2015_real.pilot_budget": lambda r: bakshy2015_real.pilot_budget(
        CostModel(setup=600.0, request=2.0, repetition=0.5, host=60.0),
        target_se=0.1,
        requests=30,
        hosts=(4, 8),
        batches=(2, 3),
        pilots=3,
        design_hosts=(4, 8, 16),
        rng=r,
    ),
    "perfstudy.studies.bakshy2015.table3": lambda r: bakshy2015.table3(
        E1, requests=8, hosts=4, experiments=3, replicates=3, rng=r
    ),
    "perfstudy.studies.table3_readings.host_block_leads": lambda r: table3_readings.host_block_leads(
        E1, requests=8, hosts=8, experiments=3, replicates=3, rng=r
    ),
    "perfstudy.studies.bakshy2015_real.real_aa": lambda r: (
        bakshy2015_real.real_aa(
            [("a", np.arange(100.0) % 7), ("short", np.ones(3))],
            segments=2,
            segment_length=5,
            experiments=3,
            replicates=3,
            rng=r,
        ).per_series
    ),
    "perfstudy.studies.shivam2008.figure3": lambda r: (
        shivam2008.figure3(SimulatedServer(), search=SEARCH, rng=r).headline
    ),
    "perfstudy.studies.shivam2008.figure6": lambda r: (
        shivam2008.figure6(
            SimulatedServer(),
            load_factors=[0.5],
            runlengths=[60],
            repeats=2,
            target_accuracy=0.1,
            confidence=0.95,
            rng=r,
        ).table
    ),
    "perfstudy.studies.shivam2008.calibration": lambda r: shivam2008.calibration(
        SimulatedServer(), searches=2, search=SEARCH, rng=r
    ),
    "perfstudy.studies.shivam2008.growth": lambda r: shivam2008.growth(
        scales=[1], policies=["binsearch"], search=SEARCH, rng=r
    ),
    "perfstudy.studies.shivam2008.policy_traces": lambda r: {
        k: v[0].cost
        for k, v in shivam2008.policy_traces(
            SimulatedServer(), SimulatedServer(daemons=12), policies=["binsearch"], search=SEARCH, rng=r
        ).items()
    },
    "perfstudy.studies.shivam2008.surface_costs": lambda r: shivam2008.surface_costs(
        GRID.head(2), policies=["binsearch"], repeats=1, search=SEARCH, rng=r
    ),
    "perfstudy.studies.shivam2008.figure9": lambda r: shivam2008.figure9(
        GRID.head(2), confidences=[0.9], accuracies=[0.1], search=SEARCH, rng=r
    ),
    "perfstudy.studies.shivam2008.figure10": lambda r: shivam2008.figure10(
        GRID.head(2), widths=[0.1], policies=["binsearch"], search=SEARCH, rng=r
    ),
    "perfstudy.studies.shivam2008.table4": lambda r: shivam2008.table4(GRID, sizes=[6], search=SEARCH, rng=r),
    # real data: small calls, each reads one or two registered files
    "perfstudy.studies.public_data.survey_datasets": lambda r: survey_datasets(
        ["sap-hana-0016"], permutations=9, rng=r
    ),
    "perfstudy.studies.he2019.weekly_study": lambda r: he2019.weekly_study(
        ["pt4cloud-AWS-EP-L"], replicates=5, rng=r
    ).drop(columns="result"),
    "perfstudy.studies.he2019.accuracy_diagnosis": lambda r: he2019.accuracy_diagnosis(
        he2019.weekly_study(["pt4cloud-AWS-EP-L"], band=False, rng=0), draws=2, rng=r
    ),
    "perfstudy.studies.he2019.baseline_study": lambda r: he2019.baseline_study(
        ["pt4cloud-AWS-EP-L"], periods_hours=[1], spans_hours=[6], replicates=10, rng=r
    ),
    "perfstudy.studies.maricq2018.figure3_normality": lambda r: maricq2018.figure3_normality(
        window=500, rng=r
    ).shares(),
    "perfstudy.studies.maricq2018.figure5_convergence": lambda r: (
        maricq2018.figure5_convergence([("pt4cloud-AWS-EP-L", "ground_truth")], trials=5, max_size=50, rng=r).table
    ),
    "perfstudy.studies.maricq2018.figure6_cov_vs_repetitions": lambda r: (
        maricq2018.figure6_cov_vs_repetitions(min_runs=3000, trials=3, max_size=30, rng=r).headline
    ),
    "perfstudy.studies.maricq2018.table4_degraded_server": lambda r: maricq2018.table4_degraded_server(
        AZURE, runs_per_host=40, trials=5, rng=r
    ),
    "perfstudy.studies.maricq2018.figure7_cwb": lambda r: (
        maricq2018.figure7_cwb(metrics=CWB_METRICS, permutations=9, max_remove=1, rng=r).rank_after
    ),
    "perfstudy.studies.maricq2018.degraded_copy_ranking": lambda r: maricq2018.degraded_copy_ranking(
        AZURE, permutations=19, rng=r
    ),
}


REAL_DATA = {name for name in STUDY_CALLS if any(k in name for k in ("public_data", "he2019", "maricq2018"))}


def study_call(name):
    """The small call for ``name``; skips the real-data ones when no data are reachable."""
    if name in REAL_DATA and not _have_data():
        pytest.skip("real datasets unavailable ($PERFSTUDY_DATA, cache)")
    return STUDY_CALLS[name]


def _synthetic_pairs(pairs=6, clusters=5, per_cluster=4, seed=0):
    """A/A pairs in the layout of versions.aa_pairs: log-normal values with a batch effect."""
    rng = np.random.default_rng(seed)
    rows = []
    for pair in range(pairs):
        effect = rng.normal(0, 0.02, 2 * clusters)
        for batch in range(2 * clusters):
            for value in np.exp(effect[batch] + rng.normal(0, 0.01, per_cluster)):
                rows.append(
                    dict(source="synthetic", series="s", benchmark=pair, version=batch % 2, batch=batch, value=value)
                )
    return pd.DataFrame(rows)


def _pilot_fit():
    from perfstudy import fit_variance_components, pilot_schedule, simulate
    from perfstudy.design.estimate import SCHEDULE_TERMS

    pilot = simulate(pilot_schedule(40, 6, rng=0), E1, rng=0).to_frame(0)
    return fit_variance_components(pilot, random=SCHEDULE_TERMS)


#: the smallest short real history: 4 commits, one +50% change, one run a commit, no load, no A/A bisects
SMALL_SHORT_HISTORY = dict(
    commits=4, changes={2: 0.5}, iterations=2000, count=1, threshold=0.3, aa_bisects=0, load=False, max_time="5s"
)


def small_ci_trial():
    """A CITrial of two methods on one pull request, built from its calls (a real trial takes minutes: notebook 11
    runs one)."""
    from perfstudy.studies.ci_trial import CITrial

    calls = pd.DataFrame(
        [
            dict(
                pull_request=1,
                method=m,
                benchmark=f"Benchmark{b}",
                planted=p,
                call=c,
                verdict=c or "no change",
                change=p,
                low=p - 0.01,
                high=p + 0.01,
                machine_seconds=60.0,
                rounds=10,
            )
            for m in ("interleaved", "gate")
            for b, p, c in (("A", 0.0, ""), ("B", 0.05, "slower"))
        ]  # fmt: skip
    )
    return CITrial(table=calls, methods=("interleaved", "gate"), seconds=60.0, threshold=0.01, gate=0.02,
                   batch="2ms", benchtimes={"gate": "10ms"}, load=(1.0, 1.0), left_out={})  # fmt: skip


def small_layout_trial():
    """A LayoutTrial of one round a run, built from its rows (notebook 12 runs a real one)."""
    from perfstudy.studies.layout import LayoutTrial

    table = pd.DataFrame(
        [
            dict(part=name, benchmark="command", unit="s", a=0.02, b=b, change=b / 0.02 - 1, low=low, high=high,
                 verdict=verdict, rounds=9, spread_a=0.05, layout=name, within_layout="")
            for name, b, low, high, verdict in (("fixed", 0.06, 1.5, 2.5, "slower"),
                                                ("randomised", 0.02, -0.03, 0.03, "no change"))
        ]
    )  # fmt: skip
    batches = pd.DataFrame(
        [
            dict(layout="fixed", version="A", round=0, padding=None, seconds=0.02, distance=1392),
            dict(layout="fixed", version="B", round=0, padding=None, seconds=0.06, distance=16),
            dict(layout="randomised", version="A", round=0, padding=3, seconds=0.02, distance=1344),
            dict(layout="randomised", version="B", round=0, padding=70, seconds=0.02, distance=1296),
        ]
    )
    return LayoutTrial(table, batches, 1364, {"A": 1392, "B": 16}, {"A": 0.02, "B": 0.06})


def small_runs():
    """The instruction runs' Runs, built from their rows."""
    from perfstudy.studies.layout import Runs

    rows = [
        ("A/A", "instructions", 6.1e6, 6.1e6, 0.0, -1e-6, 1e-6, "no change"),
        ("+1%", "instructions", 6.1e6, 6.16e6, 0.0098, 0.0097, 0.0099, "slower"),
        ("disagreement", "s", 0.015, 0.008, -0.47, -0.5, -0.44, "faster"),
        ("disagreement", "instructions", 1.5e7, 1.8e7, 0.2, 0.19, 0.21, "slower"),
    ]
    table = pd.DataFrame(
        [dict(part=p, benchmark="command", unit=u, a=a, b=b, change=c, low=lo, high=hi, verdict=v, rounds=9,
              spread_a=0.0) for p, u, a, b, c, lo, hi, v in rows]
    )  # fmt: skip
    return Runs(
        table, ("Instructions and time disagree on command: more instructions (+20.00%) but faster",), "valgrind"
    )


@functools.cache
def layout_programs() -> dict:
    """The layout study's programs, built once in a folder of their own."""
    import tempfile

    from perfstudy.studies.layout import build

    return build(tempfile.mkdtemp(prefix="perfstudy-layout-"))
