"""Speed and memory benchmarks against their targets. ``make bench`` or ``python benchmarks/run.py``.

Every run of a benchmark executes in a fresh child process, so its wall time includes nothing
cached from a previous run and its peak resident memory (``ru_maxrss``) is its own. A benchmark
function that returns a callable has only that callable timed (its inputs loaded first). Prints per
benchmark the median, min and max of ``--repeat`` runs, the peak memory, the targets and whether
the median meets them, with the machine; writes the same to ``build/benchmarks.json``. Exit status
1 if a target is missed. Timing lives here, never in the tests.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from perfstudy import PERFLAB_ENDPOINTS, simulate
from perfstudy.design.simulated_errors import standard_error_sweep

FIGURE_4 = dict(hosts=(4, 8, 16, 32), requests=(100, 150, 200, 300, 500, 700, 1000, 1400), experiments=10_000)
NAIVE_EXPERIMENTS = 200  # the naive Table 3 loop runs this many experiments and is extrapolated


def simulate_10k_by_1024():
    # 16 hosts, 512 requests per condition, T = 1: 1,024 observations per experiment
    simulate("fully_balanced", PERFLAB_ENDPOINTS[1], requests=512, hosts=16, experiments=10_000, rng=1)


def figure_4_two_processes():
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        standard_error_sweep(PERFLAB_ENDPOINTS[1], executor=pool, rng=1, **FIGURE_4)


def figure_4_in_process():
    standard_error_sweep(PERFLAB_ENDPOINTS[1], rng=1, **FIGURE_4)


def table_3_full():
    from perfstudy.design.type1_errors import type1_error_table

    type1_error_table(experiments=10_000, replicates=1_000, rng=1)


def table_3_both_denominators():
    """Table 3 as notebook 02 draws it: 13 rows, both denominators (studies.bakshy2015.table3)."""
    from perfstudy.studies.bakshy2015 import table3

    table3(experiments=10_000, replicates=1_000, rng=1)


def table_3_floor():
    """What any implementation of Table 3 must compute, in plain numpy: per design, 10,000 experiments
    simulated; per row and 1,000 experiments, one draw of Poisson(1) weights per cluster and replicate, the
    experiments' sums per (cluster, version) cell, and one matrix product per condition of those sums with the
    weights (1,000 x cells by cells x 1,000 replicates). No standard errors, no tables."""
    from scipy import sparse

    from perfstudy.design.type1_errors import bootstrap_clusters
    from perfstudy.studies.bakshy2015 import TABLE_3_ROWS

    rng = np.random.default_rng(1)
    for design in dict.fromkeys(d for d, _ in TABLE_3_ROWS):
        sim = simulate(design, PERFLAB_ENDPOINTS[1], requests=512, hosts=16, experiments=10_000, rng=rng)
        version = sim.schedule.version
        for boot in (b for d, b in TABLE_3_ROWS if d == design):
            labels = bootstrap_clusters(boot, sim.schedule)
            codes = np.arange(version.size) if labels is None else np.unique(labels, return_inverse=True)[1]
            cell = codes * 2 + version
            cells, cell_of = np.unique(cell, return_inverse=True)
            indicator = sparse.csr_matrix((np.ones(version.size), (cell_of, np.arange(version.size))))
            level, side = cells // 2, cells % 2
            for start in range(0, 10_000, 1_000):
                chunk = sim.y[start : start + 1_000]
                sums = chunk if labels is None else (indicator @ chunk.T).T  # an observation is its own cell
                w = rng.poisson(1.0, size=(1_000, int(codes.max()) + 1)).astype(float)[:, level]
                for d in (0, 1):
                    sums[:, side == d] @ w[:, side == d].T


def table_3_naive_loop():
    """The same 13 rows by a straightforward loop over experiments (one simulation, one weight draw
    and one replicate computation per experiment and bootstrap), on NAIVE_EXPERIMENTS experiments."""
    from perfstudy.design.type1_errors import bootstrap_clusters
    from perfstudy.studies.bakshy2015 import TABLE_3_ROWS

    rng = np.random.default_rng(1)
    for design in dict.fromkeys(d for d, _ in TABLE_3_ROWS):
        boots = [b for d, b in TABLE_3_ROWS if d == design]
        for _ in range(NAIVE_EXPERIMENTS):
            sim = simulate(design, PERFLAB_ENDPOINTS[1], requests=512, hosts=16, experiments=1, rng=rng)
            y, version = sim.y[0], sim.schedule.version
            for boot in boots:
                labels = bootstrap_clusters(boot, sim.schedule)
                codes = np.arange(y.size) if labels is None else np.unique(labels, return_inverse=True)[1]
                w = rng.poisson(1.0, size=(1_000, codes.max() + 1)).astype(float)[:, codes]
                treated = (w * y * (version == 1)).sum(1) / (w * (version == 1)).sum(1)
                control = (w * y * (version == 0)).sum(1) / (w * (version == 0)).sum(1)
                (treated - control).std(ddof=1)


def diagnostics_all_series():
    """Every diagnostic over every series of every registered dataset, files loaded and verified."""
    from perfstudy.studies.public_data import survey_datasets

    survey_datasets(rng=1)


STABILITY_CALLS = 20


def _two_60k_samples():
    from perfstudy.io.datasets import load

    x = load("pt4cloud-AWS-EP-2XL").value.to_numpy()  # 61,257 runs
    return x[:60_000], x[-60_000:]


def stability_60k():
    """stability_probability, 60,000 vs 60,000 runs, binned KDE (per call, of STABILITY_CALLS)."""
    from perfstudy.stability.pt4cloud import stability_probability

    x, y = _two_60k_samples()
    for _ in range(STABILITY_CALLS):
        stability_probability(x, y)


def stability_60k_scipy():
    """The same computation with scipy.stats.gaussian_kde integrated over each strip (method='exact')."""
    from perfstudy.stability.pt4cloud import stability_probability

    x, y = _two_60k_samples()
    stability_probability(x, y, method="exact")


def band_60k():
    """A 99% point-wise band from 1,000 bootstrap KDEs of 60,000 runs."""
    from perfstudy.stability.pt4cloud import confidence_band

    confidence_band(_two_60k_samples()[0], confidence=0.99, replicates=1000, rng=1)


def pt4cloud_33():
    """Notebook 04's analysis of the 33 configurations at full size: weekly workflow with
    99% bands (1,000 resamples) and accuracy, interval reduction with and without hourly sampling,
    SOTA1 over 18 parameter sets and SOTA2."""
    from perfstudy.studies.he2019 import baseline_study, reduction_study, weekly_study

    weekly_study(rng=1)
    reduction_study()
    reduction_study(portion=0.5)
    baseline_study(rng=2)


def confirm_3571():
    """CONFIRM on 3,571 runs (the first of PT4Cloud AWS-EP-L's ground truth), 200 trials, every size."""
    from perfstudy.diagnostics.repetitions import repetitions_needed
    from perfstudy.io.datasets import load

    frame = load("pt4cloud-AWS-EP-L")
    x = frame.loc[frame.split == "ground_truth", "value"].to_numpy()[:3571]
    return lambda: repetitions_needed(x, trials=200, rng=1)  # timed without loading the file


def _two_normal_200():
    rng = np.random.default_rng(0)
    return rng.normal(size=200), rng.normal(size=200)


def mmd_2x200():
    """MMD two-sample test, 200 vs 200 points, 1,000 permutations."""
    from perfstudy.diagnostics.hosts import mmd_test

    x, y = _two_normal_200()
    return lambda: mmd_test(x, y, permutations=1000, rng=1)  # timed without imports


def mmd_2x200_hyppo():
    """The same test with hyppo.ksample.MMD (reps=1000, one worker), when hyppo is installed."""
    from hyppo.ksample import MMD

    x, y = _two_normal_200()
    return lambda: MMD().test(x[:, None], y[:, None], reps=1000, workers=1)  # timed without imports


def rank_60x4():
    """Rank 60 servers on 4 metrics: the first 60 CWB m3.large VMs (3 iterations each), 1,000 permutations."""
    from perfstudy.diagnostics.hosts import rank_hosts
    from perfstudy.io.datasets import load

    cwb = load("cwb-aws-microbench")
    metrics = [
        "sysbench/cpu-single-thread-duration",
        "sysbench/memory-default-block-size-throughput",
        "fio/4k-seq-write-bandwidth",
        "md-sim-duration",
    ]
    fleet = (
        cwb[(cwb.config == "m3.large") & cwb.benchmark.isin(metrics)]
        .pivot_table(index=["host", "batch"], columns="benchmark", values="value")
        .reset_index()
    )
    fleet = fleet[fleet.host.isin(fleet.host.unique()[:60])]
    rank_hosts(fleet, metrics=metrics, permutations=1000, rng=1)


def _pilot(requests: int):
    """The REML speed case: ``requests`` requests x 4 batches x 2 versions, each on one of 32 hosts
    drawn at random (40,000 observations for 5,000 requests), simulated from Table 1's endpoint."""
    from perfstudy import pilot_schedule

    sched = pilot_schedule(requests, 32, batches=4, rng=1)
    return simulate(sched, PERFLAB_ENDPOINTS[1], rng=2).to_frame(0)


def _fit(requests: int):
    from perfstudy.design.estimate import fit_variance_components

    df = _pilot(requests)
    return lambda: fit_variance_components(df)  # the four WWW'15 terms + version, REML


def fit_40k():
    """REML fit of the four WWW'15 terms + version, 40,000 observations."""
    return _fit(5_000)


def fit_10k():
    return _fit(1_250)


def fit_1m():
    return _fit(125_000)


#: the four WWW'15 terms and version, in lme4's syntax
WWW15_FORMULA = "value ~ version + (1|request) + (1|host) + (1|request:batch) + (1|host:batch)"


def fit_40k_lme4():
    """The same fit by R's lme4 (lmer, REML, its default nloptwrap BOBYQA), timed inside R around
    lmer() alone: R start-up, loading lme4 and reading the CSV are not counted."""
    return _lme4_timed([(_pilot(5_000), WWW15_FORMULA)])


#: lme4's data sets the REML issue measures against, exported by R once into build/bench-data.
LME4_EXPORT = r"""
suppressMessages(library(lme4))
out <- commandArgs(trailingOnly = TRUE)[1]
write.csv(InstEval[, c("s", "d", "dept", "y")], file.path(out, "InstEval.csv"), row.names = FALSE)
for (name in c("Dyestuff", "Penicillin", "Pastes")) write.csv(get(name), file.path(out, paste0(name, ".csv")), row.names = FALSE)
"""
INSTEVAL_FORMULA = "y ~ 1 + (1|s) + (1|d) + (1|dept)"
CLASSIC_FORMULAS = {
    "Dyestuff": "Yield ~ 1 + (1|Batch)",
    "Penicillin": "diameter ~ 1 + (1|plate) + (1|sample)",
    "Pastes": "strength ~ 1 + (1|batch/cask)",
}
BENCH_DATA = Path(__file__).resolve().parent.parent / "build" / "bench-data"


def _lme4_data(name: str):
    """One of lme4's data sets as R exports it (R and lme4 needed; exported once)."""
    import pandas as pd

    path = BENCH_DATA / f"{name}.csv"
    if not path.exists():
        BENCH_DATA.mkdir(parents=True, exist_ok=True)
        (BENCH_DATA / "export.R").write_text(LME4_EXPORT)
        subprocess.run(["Rscript", str(BENCH_DATA / "export.R"), str(BENCH_DATA)], check=True, capture_output=True)
    return pd.read_csv(path)


def _insteval():
    """InstEval from lme4 (73,421 ratings; s 2,972, d 1,128, dept 14 levels), or, without R, a
    simulation of the same shape: each student rates instructors drawn at random, the sds those
    lme4 fits to the real data (0.33, 0.52, 0.08; residual 1.18)."""
    import pandas as pd

    if shutil.which("Rscript") is not None:
        return _lme4_data("InstEval")
    rng = np.random.default_rng(2024)
    s = rng.integers(0, 2972, 73_421)
    d = rng.integers(0, 1128, 73_421)
    dept = np.arange(1128) % 14
    y = (
        3.2
        + rng.normal(0, 0.33, 2972)[s]
        + rng.normal(0, 0.52, 1128)[d]
        + rng.normal(0, 0.08, 14)[dept[d]]
        + rng.normal(0, 1.18, s.size)
    )
    return pd.DataFrame({"s": s, "d": d, "dept": dept[d], "y": y})


def fit_insteval():
    """InstEval, REML, default arguments and lme4's formula."""
    from perfstudy.design.estimate import fit_variance_components

    df = _insteval()
    return lambda: fit_variance_components(df, INSTEVAL_FORMULA)


def fit_200k():
    """200,000 crossed observations (25,000 requests, 32 hosts, 4 batches), four terms."""
    return _fit(25_000)


def fit_classics():
    """Dyestuff, Penicillin and Pastes, one fit each, lme4's formulas."""
    from perfstudy.design.estimate import fit_variance_components

    frames = {name: _lme4_data(name) for name in CLASSIC_FORMULAS}

    def run():
        for name, formula in CLASSIC_FORMULAS.items():
            fit_variance_components(frames[name], formula)

    return run


LME4_TIMED = r"""
suppressMessages(library(lme4))
args <- commandArgs(trailingOnly = TRUE)
total <- 0
for (i in seq(2, length(args), 2)) {
  d <- read.csv(args[i])
  for (c in names(d)) if (!is.numeric(d[[c]]) || c %in% c("s", "d", "dept", "request", "host", "batch")) d[[c]] <- factor(d[[c]])
  total <- total + system.time(lmer(as.formula(args[i + 1]), data = d, REML = TRUE))[["elapsed"]]
}
cat(total, "\n")
"""


def _lme4_timed(frames_and_formulas):
    """lmer() on each (frame, formula), timed inside R around lmer() alone; the sum of elapsed times."""
    import tempfile

    folder = Path(tempfile.mkdtemp())
    (folder / "fit.R").write_text(LME4_TIMED)
    argv = ["Rscript", str(folder / "fit.R"), "-"]
    for i, (frame, formula) in enumerate(frames_and_formulas):
        frame.to_csv(folder / f"{i}.csv", index=False)
        argv += [str(folder / f"{i}.csv"), formula]

    def run() -> float:
        out = subprocess.run(argv, capture_output=True, text=True, check=True)
        return float(out.stdout.split()[-1])

    return run


def fit_insteval_lme4():
    return _lme4_timed([(_insteval(), INSTEVAL_FORMULA)])


def fit_200k_lme4():
    return _lme4_timed([(_pilot(25_000), WWW15_FORMULA)])


def fit_classics_lme4():
    return _lme4_timed([(_lme4_data(name), formula) for name, formula in CLASSIC_FORMULAS.items()])


def fit_10k_statsmodels():
    """statsmodels MixedLM on the same model at 10,000 observations (variance components, lbfgs)."""
    import warnings

    import statsmodels.formula.api as smf

    df = _pilot(1_250).assign(group=1)
    df["request_batch"] = df.request.astype(str) + ":" + df.batch.astype(str)
    df["host_batch"] = df.host.astype(str) + ":" + df.batch.astype(str)
    vc = {t: f"0 + C({t})" for t in ("request", "host", "request_batch", "host_batch")}
    model = smf.mixedlm("value ~ version", df, groups="group", re_formula="0", vc_formula=vc)

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(reml=True, method="lbfgs")

    return run


def _compare_frame():
    """The comparison case: 200 benchmarks x 2 versions x 20 processes x 50 values, log-normal with a
    process effect."""
    import pandas as pd

    rng = np.random.default_rng(12)
    benchmarks, clusters, values = 200, 20, 50
    b = np.repeat(np.arange(benchmarks), 2 * clusters * values)
    version = np.tile(np.repeat([0, 1], clusters * values), benchmarks)
    batch = np.tile(np.repeat(np.arange(2 * clusters), values), benchmarks)
    effect = rng.normal(0, 0.02, benchmarks * 2 * clusters)[b * 2 * clusters + batch]
    value = np.exp(effect + rng.normal(0, 0.01, b.size))
    return pd.DataFrame(dict(benchmark=b, version=version, batch=batch, value=value, unit="s"))


def compare_200(statistic="mean"):
    """compare() with 2,000 replicates and every check (threshold 2%, so CONFIRM runs too)."""
    from perfstudy.comparison import compare

    df = _compare_frame()
    return lambda: compare(df, statistic=statistic, threshold=0.02, replicates=2000, rng=1)


def compare_200_median():
    return compare_200("median")


def compare_200_processes():
    """compare_200 spread over ProcessPoolExecutor(2), pool start-up included."""
    from concurrent.futures import ProcessPoolExecutor

    from perfstudy.comparison import compare

    df = _compare_frame()

    def run():
        with ProcessPoolExecutor(2) as pool:
            return compare(df, threshold=0.02, replicates=2000, rng=1, executor=pool)

    return run


def analyze_20():
    """analyze() on 20 benchmarks x 2 versions x 20 processes x 50 values (everything but
    the notebook's rendering)."""
    from perfstudy.analysis import analyze

    df = _compare_frame()
    df = df[df.benchmark < 20].assign(iteration=lambda d: d.groupby(["benchmark", "version", "batch"]).cumcount())
    return lambda: analyze(df, rng=1)


def analyze_cli_20():
    """``perfstudy analyze`` end to end on two CSV files of the same 20 benchmarks: kernel
    start, the notebook, figures and HTML."""
    import tempfile

    df = _compare_frame()
    df = df[df.benchmark < 20].assign(iteration=lambda d: d.groupby(["benchmark", "version", "batch"]).cumcount())
    folder = Path(tempfile.mkdtemp())
    paths = []
    for version in (0, 1):
        path = folder / f"v{version}.csv"
        df[df.version == version].drop(columns="version").to_csv(path, index=False)
        paths.append(str(path))

    def run():
        from perfstudy.cli import main

        assert main(["analyze", *paths, "--out", str(folder / "out"), "--no-progress"]) == 0

    return run


def _go_suite(folder: Path, benchmarks=200, runs=20, planted=20, change=0.05, noise=0.02, seed=22) -> list[str]:
    """A 200-benchmark suite as ``go test -bench`` writes it: ``benchmarks`` benchmarks, ``runs`` lines
    (batches) a side, log-normal ``noise``, ``change`` planted in the first ``planted`` benchmarks;
    base.txt and new.txt in ``folder``."""
    rng = np.random.default_rng(seed)
    header = "goos: linux\ngoarch: amd64\npkg: example.com/suite\ncpu: AMD EPYC\n"
    paths = []
    for version in (0, 1):
        lines = [header]
        for _ in range(runs):  # go test -count=N writes the benchmarks in order, N times over
            for b in range(benchmarks):
                ns = 1000.0 * (1 + b % 17) * np.exp(rng.normal(0, noise)) * (1 + change * (version and b < planted))
                lines.append(f"BenchmarkCase{b:03d}-2 \t {100000 // (1 + b % 17)} \t {ns:.1f} ns/op\n")
        lines.append("PASS\nok  \texample.com/suite\t12.345s\n")
        path = folder / ("base.txt" if version == 0 else "new.txt")
        path.write_text("".join(lines))
        paths.append(str(path))
    return paths


def _command(argv: list[str]) -> dict:
    """Run a command; its own wall time and peak resident memory (from wait4), its exit status."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return dict(seconds=seconds, peak_gib=usage.ru_maxrss / 2**20, returncode=process.returncode)


def compare_cli_go_suite():
    """``perfstudy compare base.txt new.txt --fail-on-regression`` on the 200-benchmark Go
    suite, the whole command (interpreter start, imports, reading, comparing, printing)."""
    import tempfile

    paths = _go_suite(Path(tempfile.mkdtemp()))
    command = str(Path(sys.executable).with_name("perfstudy"))

    def run():
        result = _command([command, "compare", *paths, "--threshold", "1%", "--fail-on-regression"])
        assert result.pop("returncode") == 1, "the gate must catch the planted regressions"
        return result

    return run


def benchstat_go_suite():
    """benchstat on the same files (``$BENCHSTAT`` or on PATH; built from golang.org/x/perf with
    Debian's Go toolchain by whoever runs the benchmarks: no recipe for it lives in this repository)."""
    import tempfile

    paths = _go_suite(Path(tempfile.mkdtemp()))
    return lambda: {k: v for k, v in _command([_benchstat(), *paths]).items() if k != "returncode"}


def _benchstat() -> str | None:
    return os.environ.get("BENCHSTAT") or shutil.which("benchstat")


def trials_needed_20k():
    """A search at an accuracy it cannot reach runs to max_trials; the sample grew by
    np.append (a copy per trial, quadratic) before."""
    from perfstudy.capacity.peak_search import trials_needed
    from perfstudy.capacity.server_model import SimulatedServer

    trials_needed(SimulatedServer(), load=100.0, runlength=60.0, target_accuracy=1e-6, max_trials=20_000, rng=0)


def _explorer_update(build, control: str, value):
    """One control change of an explorer built at its defaults (its first state not timed)."""
    import matplotlib

    matplotlib.use("Agg")
    explorer = build()

    def update():
        explorer.controls[control].value = value
        assert explorer.state is not None

    return update


def explorer_design():
    from perfstudy.notebook.widgets import design_explorer

    return _explorer_update(design_explorer, "hosts", 8)


def explorer_bootstrap():
    from perfstudy.notebook.widgets import bootstrap_explorer

    return _explorer_update(bootstrap_explorer, "requests", 128)


def explorer_pt4cloud():
    from perfstudy.studies.explorers import pt4cloud_explorer

    return _explorer_update(pt4cloud_explorer, "interval_hours", 48.0)


def explorer_confirm():
    from perfstudy.studies.explorers import confirm_explorer

    return _explorer_update(confirm_explorer, "error", 0.02)


def explorer_peak_rate():
    from perfstudy.notebook.widgets import peak_rate_explorer

    return _explorer_update(peak_rate_explorer, "daemons", 8)


RUNNER_ROUNDS = 200  # perfstudy run's overhead case: 200 rounds of two batches of one value


def _nothing():
    pass


def runner_overhead():
    """perfstudy run on two Python callables that do nothing: all of its time is the runner's own (the order
    draw, the probe and load average before each batch, the rows appended and flushed to the file, the
    stopping rule after each round, the progress bar off), the final paired comparison included."""
    import tempfile

    from perfstudy.experiment import run

    with tempfile.TemporaryDirectory() as directory:
        run(_nothing, _nothing, values=1, warmup=0, threshold=0.0, min_rounds=RUNNER_ROUNDS, max_rounds=RUNNER_ROUNDS,
            out=Path(directory) / "runs.csv", seed=1, progress=False)  # fmt: skip


BENCHMARKS = {
    # name: (function, target seconds or None, target peak GiB or None, what it measures, scale)
    "runner_overhead": (
        runner_overhead,
        0.005,
        None,
        f"perfstudy run's own time per batch beyond the command's ({RUNNER_ROUNDS} rounds x 2 batches, file "
        "appended and flushed, stopping rule every round, final comparison)",
        1 / (2 * RUNNER_ROUNDS),
    ),
    "simulate_10k_x_1024": (
        simulate_10k_by_1024,
        2.0,
        None,
        "simulate(): 10,000 experiments x 1,024 observations, y materialised",
        1,
    ),
    "figure4_2_processes": (
        figure_4_two_processes,
        60.0,
        None,
        "Figure 4 full size: 4 designs x 4 hosts x 8 request counts x 10,000 experiments, "
        "ProcessPoolExecutor(2), pool start-up included",
        1,
    ),
    "figure4_in_process": (figure_4_in_process, 60.0, None, "the same in one process", 1),
    "table3_full": (
        table_3_full,
        30.0,
        4.0,
        "Table 3 full size: 13 rows x 10,000 experiments x 1,000 Poisson replicates, in-process",
        1,
    ),
    "table3_both_denominators": (
        table_3_both_denominators,
        None,
        None,
        "Table 3 as notebook 02 draws it: 13 rows x 10,000 x 1,000, both denominators (one simulation, one draw)",
        1,
    ),
    "table3_floor": (
        table_3_floor,
        None,
        None,
        "what any Table 3 must compute: the simulations, the weight draws and the matrix products, plain numpy",
        1,
    ),
    "diagnostics_all_series": (
        diagnostics_all_series,
        60.0,
        None,
        "CoV, Shapiro-Wilk, ADF, corrected SE, 1,000-shuffle independence test and "
        "warm-up search over all 766 series of the 67 datasets with series "
        "(needs PERFSTUDY_DATA or the cache)",
        1,
    ),
    "stability_60k": (
        stability_60k,
        0.020,
        None,
        "stability_probability, 60,000 vs 60,000 runs (binned KDE, 1,000 strips), per call",
        1 / STABILITY_CALLS,
    ),
    "stability_60k_scipy": (
        stability_60k_scipy,
        None,
        None,
        "the same with scipy.stats.gaussian_kde (method='exact'), one call",
        1,
    ),
    "band_60k": (band_60k, 2.0, None, "99% point-wise band, 1,000 bootstrap KDEs of 60,000 runs", 1),
    "pt4cloud_33": (
        pt4cloud_33,
        120.0,
        None,
        "notebook 04 at full size: 33 configurations, weekly + bands + accuracy, reductions, SOTA1/2",
        1,
    ),
    "confirm_3571": (confirm_3571, 2.0, None, "repetitions_needed: 3,571 runs, 200 trials, sizes 10..3,571", 1),
    "mmd_2x200": (mmd_2x200, 0.5, None, "mmd_test: 200 vs 200 points, 1,000 permutations", 1),
    "rank_60x4": (rank_60x4, 10.0, None, "rank_hosts: 60 CWB VMs x 4 metrics, 1,000 permutations each", 1),
    "fit_40k": (
        fit_40k,
        None,
        2.0,
        "fit_variance_components: 40,000 obs (5,000 requests, 32 hosts, 4 batches, 2 versions)",
        1,
    ),
    "fit_10k": (fit_10k, None, None, "the same at 10,000 obs (1,250 requests)", 1),
    "fit_10k_statsmodels": (fit_10k_statsmodels, None, None, "statsmodels MixedLM, 10,000 obs (lbfgs)", 1),
    "fit_1m": (fit_1m, None, 2.0, "fit_variance_components: 1,000,000 obs (125,000 requests)", 1),
    "compare_200": (
        compare_200,
        5.0,
        None,
        "compare(): 200 benchmarks x 2 versions x 20 processes x 50 values, 2,000 replicates, mean, all checks",
        1,
    ),
    "compare_200_median": (compare_200_median, 5.0, None, "the same for the median", 1),
    "compare_200_processes": (
        compare_200_processes,
        None,
        None,
        "compare_200 on ProcessPoolExecutor(2), pool start-up included (same result as in-process)",
        1,
    ),
    "analyze_20": (analyze_20, 60.0, None, "analyze(): 20 benchmarks x 2 versions x 20 processes x 50 values", 1),
    "analyze_cli_20": (
        analyze_cli_20,
        60.0,
        None,
        "perfstudy analyze on two CSVs of those 20 benchmarks: kernel, notebook, figures, HTML",
        1,
    ),
    "trials_needed_20k": (
        trials_needed_20k,
        5.0,
        None,
        "trials_needed to max_trials = 20,000 (unreachable accuracy)",
        1,
    ),
    "explorer_design": (explorer_design, 1.0, None, "design_explorer: hosts 16 -> 8 (table and figure)", 1),
    "explorer_bootstrap": (
        explorer_bootstrap,
        1.0,
        None,
        "bootstrap_explorer: R 64 -> 128, 400 A/A tests x 400 replicates",
        1,
    ),
    "explorer_pt4cloud": (explorer_pt4cloud, 1.0, None, "pt4cloud_explorer: a week -> 48 h intervals, band of 200", 1),
    "explorer_confirm": (explorer_confirm, 1.0, None, "confirm_explorer: error 1% -> 2%, 100 orders", 1),
    "explorer_peak_rate": (explorer_peak_rate, 1.0, None, "peak_rate_explorer: 16 -> 8 daemons", 1),
    # its target is benchstat's median in the same run (COMPARISONS: a speed-up of at least 1)
    "compare_cli_go_suite": (
        compare_cli_go_suite,
        None,
        None,
        "perfstudy compare, the whole command, on 200 Go benchmarks x 20 lines a side (+5% planted in 20)",
        1,
    ),
    "table3_naive_loop": (
        table_3_naive_loop,
        None,
        None,
        f"Table 3 by a loop over experiments, {NAIVE_EXPERIMENTS} experiments per design, "
        f"seconds extrapolated x{10_000 // NAIVE_EXPERIMENTS} to 10,000",
        10_000 // NAIVE_EXPERIMENTS,
    ),
}


if _benchstat() is not None:  # optional: benchstat, not a dependency
    BENCHMARKS["benchstat_go_suite"] = (
        benchstat_go_suite,
        None,
        None,
        "benchstat on the same 200 x 20 Go files",
        1,
    )

BENCHMARKS["fit_insteval"] = (
    fit_insteval,
    None,
    None,
    "fit_variance_components: InstEval, y ~ 1 + (1|s) + (1|d) + (1|dept), REML (simulated to its shape without R)",
    1,
)
BENCHMARKS["fit_200k"] = (fit_200k, None, None, "fit_variance_components: 200,000 obs, four crossed terms + version", 1)

if shutil.which("Rscript") is not None:  # optional: R and lme4 (Debian r-base-core r-cran-lme4)
    BENCHMARKS["fit_40k_lme4"] = (fit_40k_lme4, None, None, "lme4 lmer() on the same 40,000 obs, timed in R", 1)
    BENCHMARKS["fit_insteval_lme4"] = (fit_insteval_lme4, None, None, "lme4 lmer() on InstEval, timed in R", 1)
    BENCHMARKS["fit_200k_lme4"] = (fit_200k_lme4, None, None, "lme4 lmer() on the 200,000 obs, timed in R", 1)
    BENCHMARKS["fit_classics"] = (
        fit_classics,
        None,
        None,
        "fit_variance_components: Dyestuff, Penicillin and Pastes, one fit each",
        1,
    )
    BENCHMARKS["fit_classics_lme4"] = (fit_classics_lme4, None, None, "lme4 lmer() on the same three, timed in R", 1)

if importlib.util.find_spec("hyppo") is not None:  # optional: not a dependency of perfstudy
    BENCHMARKS["mmd_2x200_hyppo"] = (
        mmd_2x200_hyppo,
        None,
        None,
        "the same MMD test with hyppo.ksample.MMD (reps=1000, workers=1)",
        1,
    )


#: (ours, the reference, result key, what is compared): speed-ups printed and stored as medians' ratios.
COMPARISONS = (
    (
        "stability_60k",
        "stability_60k_scipy",
        "speedup_over_scipy",
        "stability_probability, binned over scipy gaussian_kde",
    ),
    ("table3_full", "table3_naive_loop", "speedup_over_naive_loop", "Table 3 over the loop over experiments"),
    ("table3_both_denominators", "table3_floor", "share_of_floor", "Table 3, both denominators, over its floor"),
    ("fit_40k", "fit_40k_lme4", "speedup_over_lme4", "fit_variance_components over lme4 at 40,000 obs"),
    (
        "fit_10k",
        "fit_10k_statsmodels",
        "speedup_over_statsmodels",
        "fit_variance_components over statsmodels at 10,000 obs",
    ),
    ("fit_insteval", "fit_insteval_lme4", "speedup_over_lme4_insteval", "fit_variance_components over lme4, InstEval"),
    ("fit_200k", "fit_200k_lme4", "speedup_over_lme4_200k", "fit_variance_components over lme4 at 200,000 obs"),
    ("fit_classics", "fit_classics_lme4", "speedup_over_lme4_classics", "fit_variance_components over lme4, classics"),
    ("mmd_2x200", "mmd_2x200_hyppo", "speedup_over_hyppo", "mmd_test over hyppo's MMD"),
    ("compare_cli_go_suite", "benchstat_go_suite", "speedup_over_benchstat", "perfstudy compare over benchstat"),
)


#: Speed-ups with a target, in the same run: benchstat and lme4 on the small classic sets no faster than
#: perfstudy; perfstudy on InstEval in at most a tenth of lme4's time; Table 3 at most 1.3 times its floor.
SPEEDUP_TARGETS = {
    "share_of_floor": 1 / 1.3,
    "speedup_over_benchstat": 1.0,
    "speedup_over_lme4_classics": 1.0,
    "speedup_over_lme4_insteval": 10.0,
}


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}"


def _child(name: str) -> None:
    import resource

    start = time.perf_counter()
    timed = BENCHMARKS[name][0]()
    own = None
    if callable(timed):  # the function loaded its inputs and returned the work to time on its own
        start = time.perf_counter()
        own = timed()
    seconds = time.perf_counter() - start
    if isinstance(own, float):  # the work timed itself (in another program: lme4 in R)
        seconds = own
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    if isinstance(own, dict):  # a whole command, timed and measured on its own (_command)
        seconds, peak, children = own["seconds"], own["peak_gib"], 0.0
    print(json.dumps({"seconds": seconds, "peak_gib": max(peak, children)}))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=sorted(BENCHMARKS))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default="build/benchmarks.json")
    parser.add_argument("--child", choices=sorted(BENCHMARKS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child)
        return 0
    names = args.only or list(BENCHMARKS)
    print(f"machine: {machine()}")
    results, missed = [], []
    for name in names:
        _, target_s, target_gib, what, scale = BENCHMARKS[name]
        runs = []
        for _ in range(args.repeat):
            done = subprocess.run([sys.executable, __file__, "--child", name], capture_output=True, text=True)
            if done.returncode:
                print(done.stderr, file=sys.stderr)
                return 2
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        times = [r["seconds"] * scale for r in runs]
        peak = max(r["peak_gib"] for r in runs)
        median = statistics.median(times)
        ok = (target_s is None or median <= target_s) and (target_gib is None or peak <= target_gib)
        if not ok:
            missed.append(name)
        results.append(
            dict(
                name=name,
                what=what,
                median_s=median,
                min_s=min(times),
                max_s=max(times),
                repeats=len(times),
                peak_gib=peak,
                target_s=target_s,
                target_gib=target_gib,
                meets_target=ok,
            )
        )
        target = " / ".join(
            t for t in (f"{target_s:g} s" if target_s else "", f"{target_gib:g} GiB" if target_gib else "") if t
        )
        print(
            f"{name:22s} median {median:8.4g} s (min {min(times):.4g}, max {max(times):.4g}, n={len(times)})"
            f"  peak {peak:5.2f} GiB  target {target or '-':14s} {'OK' if ok else 'MISSED'}",
            flush=True,
        )
    by_name = {r["name"]: r for r in results}
    for ours, theirs, key, label in COMPARISONS:
        if {ours, theirs} <= set(by_name):
            ratio = by_name[theirs]["median_s"] / by_name[ours]["median_s"]
            print(f"{label}: {ratio:.3g}x faster (medians)")
            by_name[ours][key] = ratio
            if ratio < SPEEDUP_TARGETS.get(key, 0.0):
                print(f"MISSED: {ours} is not {SPEEDUP_TARGETS[key]:g}x as fast as {theirs}")
                missed.append(ours)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(machine=machine(), results=results), indent=1))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
