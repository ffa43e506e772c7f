"""Bad input, fed to every public callable.

For each public callable (each module's ``__all__`` and the public methods of public classes, the
same walk as tests/test_vocabulary.py) ``VALID`` holds one small valid call. Every argument of that
call is then replaced, one at a time, by each value of the battery for its kind (tests/badinput.py):
NaN, +-inf, a string, a fraction for a count, zero, a negative, a huge value; empty, one value,
constant, NaN/inf inside, 2-D for samples; a frame that is empty, lacks a column, has NaN or text
in a numeric column or NaT in a time column; None or a number for an object; JSON with the wrong
shapes for a parsed file. Each case runs in a forked child with a memory cap and a timeout, so a
hang or an unbounded allocation fails the case instead of the machine.

A case passes when the call refuses the value with ``ValueError``/``TypeError`` (or a documented
subclass) whose message names the argument, or returns a sound result (see tests/badinput.py for
exactly what "sound" checks). Result classes that only the library builds are not constructed with
bad fields (``RESULTS``); their methods are walked.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import json
import os
import pathlib
import signal
import tempfile

import numpy as np
import pandas as pd
import pytest
from support.badinput import ALLOWED, TIMEOUT, battery, run_forked, verdict
from support.studies import layout_programs, small_ci_trial, small_layout_trial, small_runs
from support.walk import CALLABLES

from perfstudy import PERFLAB_ENDPOINTS, CostModel, VarianceComponents
from perfstudy.changes import HistorySettings
from perfstudy.comparison import CompareSettings
from perfstudy.experiment.bisect_settings import BisectSettings
from perfstudy.experiment.settings import RunSettings

#: a command with more instructions but faster (tests/_lib/test_units.py)
DISAGREEING = [
    dict(benchmark="prog", verdict="faster", change=-0.2),
    dict(benchmark="prog:instructions", verdict="slower", change=0.1),
]

E1 = PERFLAB_ENDPOINTS[1]
COSTS = CostModel(setup=600.0, request=2.0, repetition=0.5, host=60.0)
SEARCH = dict(target_accuracy=0.1, confidence=0.95, region_width=0.1, runlength=120.0, increment=20.0, max_loads=500)


def call(*args, **kwargs):
    return args, kwargs


# ---- inputs, built once in the parent (children share them by fork) ------------------------------------------


@functools.cache
def sample(n: int = 200) -> np.ndarray:
    return np.random.default_rng(0).lognormal(2.0, 0.1, n)


@functools.cache
def hosts_frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"host": np.repeat(["a", "b", "c"], 30), "value": rng.normal(10, 1, 90), "benchmark": "x"})


@functools.cache
def timed_frame() -> pd.DataFrame:
    frame = hosts_frame().copy()
    frame["timestamp"] = pd.Timestamp("2026-01-01") + pd.to_timedelta(np.arange(len(frame)) * 600, unit="s")
    return frame


@functools.cache
def runs_frame() -> pd.DataFrame:
    rng = np.random.default_rng(1)
    return pd.DataFrame(
        {
            "benchmark": "b",
            "version": np.repeat(["a", "b"], 60),
            "batch": np.repeat(np.arange(24), 5),
            "iteration": np.tile(np.arange(5), 24),
            "value": rng.lognormal(0, 0.1, 120),
            "unit": "s",
        }
    )


@functools.cache
def pilot_frame() -> pd.DataFrame:
    from perfstudy import pilot_schedule, simulate

    return simulate(pilot_schedule(40, 6, rng=0), E1, rng=0).to_frame(0)


@functools.cache
def fit():
    from perfstudy import fit_variance_components

    frame = hosts_frame().assign(batch=np.tile([0, 1, 2], 30))
    return fit_variance_components(frame, random=("host", "batch"), fixed=())


@functools.cache
def pilot_fit():
    from perfstudy import fit_variance_components
    from perfstudy.design.estimate import SCHEDULE_TERMS

    return fit_variance_components(pilot_frame(), random=SCHEDULE_TERMS)


@functools.cache
def comparison():
    from perfstudy.comparison import compare

    return compare(runs_frame(), replicates=99, rng=0)


@functools.cache
def analysis():
    from perfstudy.analysis import analyze, demo_runs

    a, b = demo_runs(processes=4, values=12, rng=0)
    return analyze(pd.concat([a.assign(version="a"), b.assign(version="b")]), permutations=19, replicates=99, rng=0)


@functools.cache
def demo():
    from perfstudy.analysis import demo_runs

    a, b = demo_runs(processes=4, values=12, rng=0)
    return pd.concat([a.assign(version="a"), b.assign(version="b")], ignore_index=True)


@functools.cache
def grid():
    from perfstudy.stability.kde import strip_grid

    return strip_grid(sample(), strips=50)


@functools.cache
def server():
    from perfstudy.capacity.server_model import SimulatedServer

    return SimulatedServer()


@functools.cache
def _peak_search():
    from perfstudy.capacity.peak_search import find_peak_rate

    return find_peak_rate(server(), rng=0, **SEARCH)


@functools.cache
def points() -> pd.DataFrame:
    return pd.DataFrame({"disks": [1, 1, 1, 2, 2, 2, 3, 3, 3], "daemons": [2, 4, 8] * 3})


@functools.cache
def schedule():
    from perfstudy.design.standard_errors import schedule as make

    return make("fully_balanced", requests=8, hosts=2)


@functools.cache
def pt4_result():
    from perfstudy.stability.pt4cloud import pt4cloud

    x = sample(400)
    return pt4cloud([x[:200], x[200:]], replicates=5, strips=50, rng=0)


@functools.cache
def allocation():
    from perfstudy.design.standard_errors import optimal_allocation

    return optimal_allocation(E1, COSTS, target_se=0.1, hosts=8)


@functools.cache
def sweep():
    from perfstudy.design.simulated_errors import standard_error_sweep

    return standard_error_sweep(E1, designs=["unbalanced"], hosts=[2], requests=[8, 16], experiments=20, rng=0)


@functools.cache
def pyperf_json() -> dict:
    run = lambda i: {"metadata": {"date": f"2026-01-01T00:00:0{i}"}, "warmups": [[1, 0.2]], "values": [0.1, 0.11]}  # noqa: E731
    return {
        "version": "1.0",
        "metadata": {"hostname": "h", "loops": 4},
        "benchmarks": [{"metadata": {"name": "sum", "unit": "second"}, "runs": [run(0), run(1), run(2)]}],
    }


HYPERFINE_JSON = {
    "results": [{"command": "sleep 0.01", "mean": 0.0105, "times": [0.0101, 0.0104, 0.0110], "exit_codes": [0, 0, 0]}]
}
GOOGLE_JSON = {
    "context": {"date": "2026-01-01", "host_name": "h"},
    "benchmarks": [
        {"name": "BM/1", "run_name": "BM/1", "run_type": "iteration", "repetitions": 2, "repetition_index": i,
         "iterations": 10, "real_time": 5.0 + i, "cpu_time": 5.0, "time_unit": "ns"}
        for i in range(2)
    ],
}  # fmt: skip
JMH_JSON = [
    {
        "benchmark": "org.example.Bench.hash",
        "mode": "avgt",
        "forks": 2,
        "params": {"size": "1024"},
        "primaryMetric": {"score": 11.0, "scoreUnit": "ns/op", "rawData": [[9.0, 10.0, 11.0], [11.0, 12.0, 13.0]]},
    }
]


PYTEST_BENCHMARK_JSON = {
    "machine_info": {"node": "h"},
    "datetime": "2026-01-01T00:00:00",
    "benchmarks": [{"name": "test_x", "fullname": "t.py::test_x", "params": None, "group": None,
                    "stats": {"data": [1e-6, 1.1e-6, 0.9e-6], "iterations": 10, "rounds": 3}}],
}  # fmt: skip
ASV_JSON = {
    "commit_hash": "abc",
    "env_name": "existing",
    "result_columns": ["result", "params", "version", "started_at", "duration", "samples"],
    "results": {"b.time_x": [[1e-6], [], "v", 1767225600000, 0.5, [[1e-6, 1.1e-6, 0.9e-6]]]},
}
DOTNET_JSON = {
    "HostEnvironmentInfo": {"MachineName": "h"},
    "Benchmarks": [{"FullName": "N.T.M", "Measurements": [
        {"IterationMode": "Workload", "IterationStage": stage, "LaunchIndex": launch, "IterationIndex": i,
         "Operations": 16, "Nanoseconds": 1600.0 + i}
        for launch in (1, 2) for stage in ("Warmup", "Result") for i in (1, 2, 3)]}],
}  # fmt: skip


def _small_sap():
    """Two series shaped like history_validation.sap_frame: one with a step at 40 (its truth), one without."""
    rng = np.random.default_rng(0)
    parts = []
    for b, truth in (("s0", 40), ("s1", -1)):
        y = rng.standard_normal(80) * 0.01 + (np.arange(80) >= 40) * 0.2 * (truth >= 0)
        parts.append(
            pd.DataFrame(
                {"benchmark": b, "commit": np.arange(80) // 2, "value": np.exp(y), "label": "x", "truth": truth}
            )
        )
    return pd.concat(parts, ignore_index=True)


def _planted_table():
    return pd.DataFrame(
        {"detector": ["perfstudy", "perfherder"], "step_recall": [0.9, 0.5], "step_F1": [0.9, 0.6],
         "spread_recall": [0.5, 0.0], "ramp_recall": [0.9, 0.1], "spikes_flagged": [0.0, 0.0],
         "false_per_copy": [0.1, 0.0]}
    )  # fmt: skip


def _history_frame():
    import pandas as pd

    rng = np.random.default_rng(0)
    y = rng.standard_normal(40) * 0.01
    y[25:] += 0.2
    return pd.DataFrame({"benchmark": "b", "commit": np.arange(40), "value": np.exp(y)})


def _history():
    from perfstudy.changes import history

    return history(_history_frame())


def _history_csv(folder) -> str:
    path = os.path.join(folder, "history.csv")
    _history_frame().to_csv(path, index=False)
    return path


def hyperfine_path(tmp) -> str:
    """A hyperfine export of one command, 12 runs, written to a file."""
    import json

    path = tmp / "hyperfine.json"
    times = [0.010 + 0.0001 * (i % 5) for i in range(12)]
    path.write_text(json.dumps({"results": [{"command": "./x", "times": times, "exit_codes": [0] * 12}]}))
    return str(path)


def _file_columns(tmp):
    from perfstudy.io import file_columns

    return file_columns(hyperfine_path(tmp))


def go_text(tmp) -> str:
    path = tmp / "go.txt"
    path.write_text("goos: linux\n" + "".join(f"BenchmarkX-2 100 {1000 + i} ns/op 0 allocs/op\n" for i in range(3)))
    return str(path)


def criterion_sample(tmp) -> str:
    folder = tmp / "criterion" / "x" / "new"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sample.json").write_text(
        json.dumps({"sampling_mode": "Linear", "iters": [1, 2, 3], "times": [5, 9, 16]})
    )
    return str(folder / "sample.json")


@functools.cache
def _layout_rows() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame(
        [
            dict(
                version=v,
                batch=f"{r}-{v}",
                start=float(2 * r + (v == "B")),
                value=rng.lognormal(-3, 0.05),
                warmup=False,
            )
            for r in range(4)
            for v in ("A", "B")
        ]
    )


def run_file(tmp) -> str:
    """A perfstudy run's file (and its record), of 4 rounds of ``true``."""
    from perfstudy.experiment import run

    path = tmp / "experiment.csv"
    if not path.exists():
        # without the shell: `true` through it takes about the shell's start-up, which is subtracted to 0
        run("true", "true", values=1, warmup=0, min_rounds=4, max_rounds=4, out=path, progress=False, seed=0,
            shell=False)  # fmt: skip
    return str(path)


def tidy_csv(tmp) -> str:
    path = tmp / "runs.csv"
    runs_frame().to_csv(path, index=False)
    return str(path)


# ---- one valid call per public callable -----------------------------------------------------------------------


def _valid(tmp):  # noqa: PLR0915 - one table
    from perfstudy.capacity import response_surface
    from perfstudy.comparison.running import RunningT, SignRule, TRule
    from perfstudy.comparison.sign_sequence import RunningSign
    from perfstudy.design import bootstrap, standard_errors as designs
    from perfstudy.diagnostics import hosts as servers, repetitions as confirm, variability as diagnostics
    from perfstudy.experiment import batches
    from perfstudy.io.harnesses import HARNESSES
    from perfstudy.notebook import plots, records, report
    from perfstudy.stability import pt4cloud

    x = sample()
    boot = lambda: bootstrap.clustered_bootstrap(x[:20], np.repeat([0, 1], 10), replicates=10, rng=0)  # noqa: E731

    def result_of(name):
        """What ``name`` returns on its own valid call below: the object its result's methods are walked on."""
        args, kwargs = calls[name]()
        return _resolve(name)(*args, **kwargs)

    calls = {
        "diagnostics.adf.adf": lambda: call(x),
        "diagnostics.adf.ADFResult.to_frame": lambda: call(result_of("diagnostics.adf.adf")),
        "diagnostics.adf.adf_suffixes": lambda: call(x, np.array([0, 50]), lags=2),
        "diagnostics.adf.default_maxlag": lambda: call(100),
        "diagnostics.adf.min_suffix": lambda: call(2),
        "analysis.Analysis.to_frame": lambda: call(analysis()),
        "analysis.Analysis.card": lambda: call(analysis(), analysis().table.benchmark.iloc[0]),
        "analysis.analyze": lambda: call(demo(), permutations=19, replicates=99, rng=0),
        "analysis.warmup_iterations": lambda: call(x[:60], np.repeat(np.arange(3), 20), np.tile(np.arange(20), 3)),
        "analysis.demo_runs": lambda: call(processes=3, values=4, rng=0),
        "stability.stopping_rules.sota1": lambda: call(x, period=10, span=40),
        "stability.stopping_rules.StoppingResult.to_frame": lambda: call(result_of("stability.stopping_rules.sota1")),
        "stability.stopping_rules.sota2": lambda: call(x, step=100, replicates=10, rng=0),
        "stability.stopping_rules.repetitiveness": lambda: call(x, 20),
        "design.bootstrap.BootstrapResult.critical_value": lambda: call(boot()),
        "design.bootstrap.BootstrapResult.confidence_interval": lambda: call(boot()),
        "design.bootstrap.BootstrapResult.to_frame": lambda: call(boot()),
        "design.bootstrap.check_weights": lambda: call("poisson"),
        "design.bootstrap.check_denominator": lambda: call("counts"),
        "design.bootstrap.clustered_bootstrap": lambda: call(x[:20], np.repeat([0, 1], 10), replicates=10, rng=0),
        "design.bootstrap.clustered_bootstraps": lambda: call(x[:20], np.repeat([0, 1], 10), replicates=10, rng=0),
        "design.bootstrap.check_denominators": lambda: call(("weights", "counts")),
        "design.bootstrap.host_blocks": lambda: call(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])),
        "cli.main": lambda: call(["compare", tidy_csv(tmp), tidy_csv(tmp), "--replicates", "99"]),
        "comparison.Comparison.to_frame": lambda: call(comparison()),
        "comparison.Comparison.report": lambda: call(comparison()),
        "comparison.Report.format": lambda: call(comparison().report(), "markdown"),
        "comparison.Report.to_frame": lambda: call(comparison().report()),
        "comparison.compare_files": lambda: call(go_text(tmp), go_text(tmp), labels=("a", "b"), rng=0),
        "comparison.benchmarks_as_versions": lambda: call(
            pd.DataFrame(dict(benchmark=["x", "x", "y", "y"], batch=[0, 1, 0, 1], value=[1.0, 2.0, 3.0, 4.0])),
            baseline="y",
        ),
        "changes.history": lambda: call(_history_frame()),
        "changes.commits_for_change": lambda: call(0.05, 0.02, 24),
        "changes.History.format": lambda: call(_history(), "markdown"),
        "changes.History.newest": lambda: call(_history(), 3),
        "changes.History.to_frame": lambda: call(_history()),
        "changes.format_history": lambda: call(_history(), "json"),
        "changes.history_html": lambda: call(_history(), unchanged=1),
        "changes.read_history": lambda: call(_history_csv(tmp)),
        "changes.HistorySettings.option": lambda: call(HistorySettings(spelling="cli"), "fdr"),
        "changes.HistorySettings.advice": lambda: call(HistorySettings(), "dropna"),
        "changes.HistorySettings.replace": lambda: call(HistorySettings(), fdr=0.1),
        "changes.HistorySettings.standard": lambda: call(HistorySettings(), ordered=True),
        "comparison.settings.CompareSettings.option": lambda: call(CompareSettings(spelling="cli"), "replicates"),
        "comparison.settings.CompareSettings.advice": lambda: call(CompareSettings(), "dropna"),
        "comparison.settings.CompareSettings.replace": lambda: call(CompareSettings(), threshold=0.1),
        "experiment.settings.RunSettings.option": lambda: call(RunSettings(spelling="cli"), "max_rounds"),
        "experiment.settings.RunSettings.record": lambda: call(RunSettings()),
        "experiment.bisect_settings.BisectSettings.step": lambda: call(BisectSettings(), 0.99),
        "experiment.bisect_settings.BisectSettings.record": lambda: call(BisectSettings(statistic="min")),
        "experiment.settings.RunSettings.fresh": lambda: call(RunSettings()),
        "experiment.settings.RunSettings.replace": lambda: call(RunSettings(), values=5),
        "experiment.settings.RunSettings.resumed": lambda: call(RunSettings(), {"threshold": 0.05}, "runs.csv"),
        "experiment.settings.check_combination": lambda: call(RunSettings(), {"A": ["true"], "B": ["true"]}),
        "io.detect_format": lambda: call(go_text(tmp)),
        "io.is_go_text": lambda: call(go_text(tmp)),
        "io.harnesses.harness": lambda: call("go"),
        "io.harnesses.Harness.measure": lambda: call(HARNESSES["go"], go_text(tmp)),
        "io.harnesses.Harness.check_metric": lambda: call(HARNESSES["google_benchmark"], "cpu_time"),
        "io.harnesses.harness_metrics": lambda: call(),
        "io.harnesses.check_metric_name": lambda: call("metric", "cpu_time"),
        "io.harnesses.refuse_chosen_metric": lambda: call("metric", None, "a frame"),
        "comparison.compare": lambda: call(runs_frame(), replicates=99, rng=0),
        "experiment.commands.command_argv": lambda: call("true --x"),
        "experiment.commands.command_text": lambda: call(("true", "a b")),
        "experiment.batches.time_batch": lambda: call(batches.Batch("A", ("true",), 0, 0, values=1, warmup=0)),
        "notebook.readme_rows.readme_rows": lambda: call(_readme_table()),
        "notebook.readme_rows.quoted_numbers": lambda: call("9 of 13 rows (Table 3), +1.5%"),
        "notebook.readme_rows.unquoted_numbers": lambda: call({"01": "9 of 13"}, {"01": ["9 of 12"]}),
        "notebook.readme_rows.format_unquoted": lambda: call({"01": ["13"]}),
        "notebook.readme_rows.check_readme": lambda: call(_readme_file(tmp), str(tmp)),
        "experiment.bisection.bisect": lambda: call(
            ["c0", "c1"], "sleep 0.005 # {commit}", threshold=0.5, max_rounds=6, progress=False
        ),
        "experiment.bisection.step_confidence": lambda: call(0.95, 10),
        "experiment.worktrees.commit_hash": lambda: call("HEAD", "head", _git_repo(tmp)),
        "experiment.worktrees.fill": lambda: call("cd {worktree} && ./b {commit}", {"commit": "c", "worktree": "/w"}),
        "experiment.worktrees.per_version": lambda: call(
            RunSettings(prepare="echo {commit}"), {"commit": "a"}, {"commit": "b"}
        ),  # fmt: skip
        "experiment.worktrees.run_commits": lambda: call(
            "HEAD",
            "HEAD",
            "sh {worktree}/b.sh",
            repository=_git_repo(tmp),
            min_rounds=2,
            max_rounds=2,
            values=1,
            warmup=0,
            progress=False,
        ),
        "experiment.bisection.Bisection.format": lambda: call(_bisection(), "markdown"),
        "experiment.bisection.Bisection.to_frame": lambda: call(_bisection()),
        "experiment.bisection.Bisection.to_json": lambda: call(_bisection()),
        "experiment.batches.Batch.to_frame": lambda: call(batches.Batch("A", ("true",), 0, 0, values=1, warmup=0)),
        "experiment.batches.BatchResult.to_frame": lambda: call(result_of("experiment.batches.time_batch")),
        "experiment.environment.load_average": lambda: call(),
        "experiment.environment.machine": lambda: call(),
        "experiment.environment.machine_warnings": lambda: call(result_of("experiment.environment.machine")),
        "experiment.environment.probe": lambda: call(work=100),
        "experiment.plan.plan_rounds": lambda: call(run_file(tmp), threshold=0.05),
        "experiment.plan.format_plan": lambda: call(result_of("experiment.plan.plan_rounds")),
        "experiment.plan.RoundPlan.to_frame": lambda: call(result_of("experiment.plan.plan_rounds")),
        "experiment.run": lambda: call("true", "true", values=1, warmup=0, min_rounds=2, max_rounds=2, progress=False),
        "experiment.RunResult.to_frame": lambda: call(result_of("experiment.run")),
        "experiment.read_run": lambda: call(run_file(tmp)),
        "experiment.is_run_file": lambda: call(run_file(tmp)),
        "experiment.RunFile.to_frame": lambda: call(result_of("experiment.read_run")),
        "experiment.batches.shell_startup": lambda: call(runs=3),
        "experiment.batches.stop_running": lambda: call(),
        "notebook.plots.plot_run_order": lambda: call(result_of("experiment.read_run").frame),
        "experiment.read_experiment": lambda: call(run_file(tmp)),
        "comparison.sequential.t_confidence_sequence": lambda: call(x[:30]),
        "comparison.sequential.ConfidenceSequence.current": lambda: call(
            result_of("comparison.sequential.t_confidence_sequence")
        ),
        "comparison.verdict": lambda: call(0.01, 0.03, 0.01, alpha=0.05, threshold=0.02),
        "comparison.warmup_check": lambda: call(x[:60], np.repeat(np.arange(6), 10), threshold=0.02),
        "comparison.sequential.rounds_needed": lambda: call(0.02, 0.01),
        "comparison.sign_sequence.sign_confidence_sequence": lambda: call(x[:30]),
        "comparison.sign_sequence.SignSequence.current": lambda: call(
            result_of("comparison.sign_sequence.sign_confidence_sequence")
        ),
        "comparison.sign_sequence.SignSequence.to_frame": lambda: call(
            result_of("comparison.sign_sequence.sign_confidence_sequence")
        ),
        "comparison.sign_sequence.RunningSign.add": lambda: call(RunningSign(), 0.1),
        "experiment.run_table.text_table": lambda: call(result_of("experiment.run")),
        "experiment.run_table.markdown_table": lambda: call(result_of("experiment.run")),
        "experiment.run_table.json_document": lambda: call(result_of("experiment.run")),
        "experiment.run_table.cleanup_said": lambda: call(result_of("experiment.run")),
        "experiment.run_table.one_side": lambda: call(result_of("experiment.run")),
        "experiment.run_table.within_layout": lambda: call(result_of("experiment.run")),
        "experiment.batches.harness_metric": lambda: call(("cpu_time",)),
        "comparison.sign_sequence.RunningSign.current": lambda: call(RunningSign()),
        "comparison.sign_sequence.RunningSign.rounds_needed": lambda: call(RunningSign(), 0.01, limit=500),
        "comparison.sign_sequence.sign_rounds_needed": lambda: call(-0.1, 0.1, 20, 0.02, limit=1000, confidence=0.9),
        "comparison.running.RunningT.add": lambda: call(RunningT(), 0.1),
        "comparison.running.RunningT.current": lambda: call(RunningT()),
        "comparison.running.RunningT.rounds_needed": lambda: call(RunningT(), 0.01, limit=500),
        "comparison.running.running_rule": lambda: call("sign", 0.9),
        "comparison.running.stopping_rule": lambda: call("sign"),
        "comparison.running.rules_help": lambda: call(),
        "comparison.running.StoppingRule.sequence": lambda: call(SignRule(), sample(20) / 10, 0.9),
        "comparison.running.StoppingRule.estimate": lambda: call(TRule(), sample(20) / 10),
        "comparison.running.StoppingRule.running": lambda: call(SignRule(), 0.9),
        "experiment.batches.rss_floor": lambda: call(),
        "experiment.parameters.run_parameters": lambda: call(
            "sleep 0.00{x}", "x", ["1", "2"], values=1, warmup=0, min_rounds=2, max_rounds=2, progress=False
        ),
        "experiment.parameters.ParameterRuns.to_frame": lambda: call(result_of("experiment.parameters.run_parameters")),
        "experiment.parameters.parameter_table": lambda: call(result_of("experiment.parameters.run_parameters")),
        "experiment.batches.time_duet": lambda: call(
            batches.Batch("A", ("true",), 0, 0, values=1, warmup=0),
            batches.Batch("B", ("true",), 0, 1, values=1, warmup=0),
        ),
        "comparison.sequential.ConfidenceSequence.to_frame": lambda: call(
            result_of("comparison.sequential.t_confidence_sequence")
        ),
        "comparison.adjust_p_values": lambda: call(np.array([0.01, 0.04, 0.3])),
        "comparison.higher_is_better": lambda: call("ops/s"),
        "comparison.format_comparison": lambda: call(comparison()),
        "comparison.odd_batches": lambda: call(x[:20]),
        "diagnostics.repetitions.median_ci": lambda: call(x),
        "diagnostics.repetitions.median_ci_indices": lambda: call(50),
        "diagnostics.repetitions.Repetitions.to_frame": lambda: call(confirm.repetitions_needed(x, trials=5, rng=0)),
        "diagnostics.repetitions.repetitions_needed": lambda: call(x, trials=5, rng=0),
        "io.datasets.registry": lambda: call(),
        "io.datasets.list_datasets": lambda: call(),
        "io.datasets.locate": lambda: call("pt4cloud-AWS-EP-L", download=False),
        "io.datasets.load": lambda: call("pt4cloud-AWS-EP-L", download=False),
        "io.datasets.load_family": lambda: call("sap-hana-details", download=False),
        "design.standard_errors.schedule": lambda: call("fully_balanced", requests=8, hosts=2),
        "design.standard_errors.DuplicationCoefficients.to_frame": lambda: call(
            designs.duplication_coefficients(schedule())
        ),
        "design.standard_errors.duplication_coefficients": lambda: call(schedule()),
        "design.standard_errors.variance_from_schedule": lambda: call(schedule(), E1),
        "design.standard_errors.standard_error": lambda: call("fully_balanced", E1, requests=100, hosts=8),
        "design.standard_errors.CostModel": lambda: call(setup=600.0, request=2.0, repetition=0.5, host=60.0),
        "design.standard_errors.CostModel.cost": lambda: call(COSTS, "fully_balanced", requests=100, hosts=8),
        "design.standard_errors.AllocationResult.to_frame": lambda: call(allocation()),
        "design.standard_errors.optimal_allocation": lambda: call(E1, COSTS, target_se=0.1, hosts=8),
        "design.standard_errors.DesignComparison.to_frame": lambda: call(
            designs.compare_designs(E1, requests=100, hosts=8)
        ),
        "design.standard_errors.DesignComparison.to_html": lambda: call(
            designs.compare_designs(E1, requests=100, hosts=8), "s"
        ),
        "design.standard_errors.compare_designs": lambda: call(E1, requests=100, hosts=8, costs=COSTS, target_se=0.1),
        "diagnostics.variability.coefficient_of_variation": lambda: call(x),
        "diagnostics.variability.autocorrelation_se": lambda: call(x),
        "diagnostics.variability.batch_means": lambda: call(x),
        "diagnostics.variability.effective_sample_size": lambda: call(x),
        "diagnostics.variability.normality": lambda: call(hosts_frame(), by="host", rng=0),
        "diagnostics.variability.stationarity": lambda: call(timed_frame(), by="host"),
        "diagnostics.variability.independence_test": lambda: call(x, permutations=9, rng=0),
        "diagnostics.variability.Warmup.to_frame": lambda: call(diagnostics.warmup(x)),
        "diagnostics.variability.warmup": lambda: call(x),
        "design.estimate.VarianceFit.to_frame": lambda: call(fit()),
        "design.estimate.VarianceFit.components": lambda: call(pilot_fit()),
        "design.estimate.VarianceFit.confidence_interval": lambda: call(fit(), replicates=4, rng=0),
        "design.estimate.FitIntervals.to_frame": lambda: call(fit().confidence_interval(replicates=4, rng=0)),
        "design.estimate.fit_variance_components": lambda: call(
            hosts_frame().assign(batch=np.tile([0, 1, 2], 30)), random=("host", "batch"), fixed=()
        ),
        "comparison.block_differences": lambda: call(
            [1.0, 2.0, 3.0, 4.0], [0, 0, 1, 1], [1.5, 2.5, 3.5, 4.5], [0, 0, 1, 1]
        ),
        "comparison.host_and_round_variance": lambda: call([0.1, 0.2, 0.05, 0.15], ["h1", "h1", "h2", "h2"]),
        "io.read": lambda: call(tidy_csv(tmp)),
        "io.read_pyperf": lambda: call(pyperf_json()),
        "io.read_hyperfine": lambda: call(HYPERFINE_JSON),
        "io.read_google_benchmark": lambda: call(GOOGLE_JSON),
        "io.read_jmh": lambda: call(JMH_JSON),
        "io.go.read_go": lambda: call(go_text(tmp)),
        "io.file_columns": lambda: call(hyperfine_path(tmp)),
        "io.columns.FileColumns.column": lambda: call(_file_columns(tmp), "value"),
        "io.columns.FileColumns.to_frame": lambda: call(_file_columns(tmp)),
        "io.columns.FileColumns.renamed": lambda: call(_file_columns(tmp), "x -> y"),
        "io.criterion.read_criterion": lambda: call(criterion_sample(tmp)),
        "io.pytest_benchmark.read_pytest_benchmark": lambda: call(PYTEST_BENCHMARK_JSON),
        "io.asv.read_asv": lambda: call(ASV_JSON),
        "io.benchmarkdotnet.read_benchmarkdotnet": lambda: call(DOTNET_JSON),
        "_lib.units.conversion_factor": lambda: call("s", "ns"),
        "_lib.units.higher_is_better": lambda: call("ops/s"),
        "_lib.units.never_negative": lambda: call("ns/op"),
        "_lib.units.common_unit": lambda: call(["ns/op", "ns/op"], ["s/op"]),
        "_lib.units.worded": lambda: call("slower", "B/op"),
        "_lib.units.metric_of": lambda: call("prog:cpu"),
        "_lib.units.disagreements": lambda: call(DISAGREEING),
        "_lib.units.disagreements_said": lambda: call(DISAGREEING),
        "experiment.instructions.instruction_counter": lambda: call(),
        "_lib.csv_end.check_csv_end": lambda: call(_csv_file(), 1),
        "stability.kde.scott_bandwidth": lambda: call(x),
        "stability.kde.Grid": lambda: call(0.0, 0.1, 50),
        "stability.kde.strip_grid": lambda: call(x, strips=50),
        "stability.kde.exact_density": lambda: call(x, grid(), 0.5),
        "stability.kde.binned_density": lambda: call(x, grid(), 0.5),
        "stability.kde.bootstrap_densities": lambda: call(x, grid(), 0.5, replicates=3, rng=0),
        "design.model.VarianceComponents": lambda: call(1.0, 0.1, 0.1, 0.1, 0.1),
        "design.model.VarianceComponents.to_frame": lambda: call(E1),
        "design.model.intraclass_correlation": lambda: call(1.0, 2.0),
        "design.model.design_effect": lambda: call(0.3, 4.0),
        # R and T are real in the closed forms (Figure 2 draws them over a continuous R)
        "design.model.clustered_standard_error": lambda: call(1.0, rho=0.3, requests=100.0, repetitions=4.0),
        "design.model.Simulation.to_frame": lambda: call(result_of("design.model.simulate")),
        "design.model.simulate": lambda: call("fully_balanced", E1, requests=8, hosts=2, rng=0),
        "design.model.DrawnEffects.to_frame": lambda: call(result_of("design.model.simulate").effects),
        "design.model.sample_delta_hat": lambda: call("unbalanced", E1, requests=8, hosts=2, rng=0),
        "design.model.check_components": lambda: call(E1),
        "_lib.parallel.spawn": lambda: call(2, rng=0),
        "_lib.parallel.twin_streams": lambda: call(2, rng=0),
        "_lib.parallel.map_tasks": lambda: call(_task, [1, 2], rng=0),
        "_lib.parallel.local_executor": lambda: call(1),
        "notebook.plots.savefig": lambda: call(plots.plot_clustered_se(), "fig", figures_dir=str(tmp / "figures")),
        "notebook.plots.save_and_show": lambda: call(
            plots.plot_clustered_se(), "shown", figures_dir=str(tmp / "figures"), formats=("png",)
        ),
        "notebook.plots.file_stem": lambda: call("regex/compile"),
        "report_inputs.report_inputs": lambda: call([], threshold=0.03, rng=1),
        "report_inputs.check_paths": lambda: call([]),
        "report_inputs.ReportInputs.described": lambda: call(_report_inputs()),
        "report_inputs.ReportInputs.markdown": lambda: call(_report_inputs()),
        "report_inputs.ReportInputs.to_frame": lambda: call(_report_inputs()),
        "report_inputs.ReportInputs.verdict_markdown": lambda: call(_report_inputs(), comparison()),
        "studies.maricq2018_figures.plot_figure3": lambda: call(_maricq_tables()["tests"], window=30),
        "studies.maricq2018_figures.plot_figure4": lambda: call(
            pd.DataFrame({"family": ["sap-hana", "pt4cloud"], "adf_p_value": [0.0, 0.2]})
        ),
        "studies.he2019_figures.plot_weekly": lambda: call(_weekly_one(), ["pt4cloud-AWS-EP-L"]),
        "studies.he2019_figures.plot_sota": lambda: call(
            pd.DataFrame({"label": ["a"], "accuracy": [0.9], "sota1_accuracy": [0.8], "sota2_accuracy": [0.7]}),
            margin=0.1,
        ),
        "studies.shivam2008_figures.plot_figure6": lambda: call(_shivam_tables()["figure6"], y="hours"),
        "studies.shivam2008_figures.plot_figure9": lambda: call(_shivam_tables()["figure9"]),
        "studies.shivam2008_figures.plot_figure10": lambda: call(_shivam_tables()["figure10"]),
        "studies.history_figures.plot_sap_series": lambda: call(_small_sap(), {"perfstudy": {"s0": [20]}}),
        "studies.history_figures.plot_planted_recall": lambda: call(_planted_table()),
        "studies.history_figures.plot_short_history": lambda: call(_short_history()),
        "studies.bakshy2015_figures.plot_recovery": lambda: call(_recovery()),
        "studies.bakshy2015_figures.plot_variance_split": lambda: call(_split()),
        "studies.bakshy2015_figures.plot_interval_methods": lambda: call(_interval_methods()),
        "studies.bakshy2015_figures.plot_pilot_budget": lambda: call(_budget().by_pilot, target_se=0.1),
        "notebook.plots.panel_grid": lambda: call(3, 2, (2.0, 1.5)),
        "notebook.plots.plot_runs": lambda: call(demo(), analysis().table),
        "notebook.plots.plot_comparison": lambda: call(comparison().table, threshold=0.02),
        "studies.versions_figures.plot_detection": lambda: call(_detection()),
        "studies.running_figures.plot_layouts": lambda: call({"sequential": _layout_rows()}, {"sequential": "A/A"}),
        "studies.ci_trial_figures.plot_trial": lambda: call(small_ci_trial()),
        "studies.layout_figures.plot_batches": lambda: call(small_layout_trial()),
        "studies.running_figures.plot_rules": lambda: call(
            importlib.import_module("perfstudy.studies.running")
            .rules_under_contention(changes=(0.0, 0.1), experiments=20, max_rounds=20, rng=0)
            .table,
            limit=0.08,
            max_rounds=20,
        ),
        "studies.running_figures.plot_stopping_calibration": lambda: call(
            importlib.import_module("perfstudy.studies.running").calibration(experiments=20, rounds=10, rng=0).table
        ),
        "notebook.plots.plot_clustered_se": lambda: call(sigma=1.0, rhos=(0.1, 0.5), requests=np.array([10.0, 100.0])),
        "notebook.plots.plot_design_standard_errors": lambda: call(sweep(), E1),
        "studies.bakshy2015_figures.plot_delta_hat_densities": lambda: call(
            {"unbalanced": x - x.mean()}, {"unbalanced": 1.0}
        ),
        "studies.bakshy2015_figures.plot_bootstrap_vs_truth": lambda: call(
            x - x.mean(), {"iid": x[:50] - x.mean()}, estimate=0.1
        ),
        "notebook.plots.plot_ranked_intervals": lambda: call(_intervals()),
        "studies.bakshy2015_figures.plot_type1_by_series": lambda: call(_type1_series(), experiments=100),
        "studies.maricq2018_figures.plot_cov_overview": lambda: call(_cov()),
        "studies.maricq2018_figures.plot_sorted_p_values": lambda: call({"panel": {"a": np.array([0.01, 0.2, 0.5])}}),
        "studies.kolaczkowski_figures.plot_standard_error_trap": lambda: call(_trap()),
        "studies.he2019_figures.plot_pt4cloud_distributions": lambda: call(
            {"case": ([sample(400)[:200], sample(400)[200:]], pt4_result(), sample(400))}
        ),
        "studies.he2019_figures.plot_method_accuracy": lambda: call(
            pd.DataFrame({"config": ["a", "b"], "m": [0.9, 0.8]}), methods=["m"]
        ),
        "studies.maricq2018_figures.plot_confirm_convergence": lambda: call(
            {"a": confirm.repetitions_needed(x, trials=5, rng=0)}
        ),
        "studies.maricq2018_figures.plot_cov_vs_repetitions": lambda: call(
            pd.DataFrame({"family": ["f", "f"], "cov": [0.01, 0.05], "estimate": [20.0, np.nan]}), max_size=100
        ),
        "notebook.plots.plot_host_ranking": lambda: call(servers.rank_hosts(hosts_frame(), permutations=9, rng=0)),
        "notebook.plots.plot_search_traces": lambda: call({"binsearch": (_peak_search(), server().true_peak_rate)}),
        "notebook.plots.plot_lines": lambda: call(
            pd.DataFrame({"a": [1, 2, 1, 2], "b": [1.0, 2.0, 3.0, 4.0], "h": [0, 0, 1, 1]}),
            x="a",
            y="b",
            hue="h",
            xlabel="a",
            ylabel="b",
        ),
        "stability.pt4cloud.divergence": lambda: call(x[:100], x[100:], strips=50),
        "stability.pt4cloud.stability_probability": lambda: call(x[:100], x[100:], strips=50),
        "stability.pt4cloud.accuracy": lambda: call(x[:100], x, strips=50),
        "stability.pt4cloud.ConfidenceBand.to_frame": lambda: call(
            pt4cloud.confidence_band(x, replicates=5, strips=50, rng=0)
        ),
        "stability.pt4cloud.confidence_band": lambda: call(x, replicates=5, strips=50, rng=0),
        "stability.pt4cloud.split_intervals": lambda: call(timed_frame(), "1h"),
        "stability.pt4cloud.PT4CloudResult.to_frame": lambda: call(pt4_result()),
        "stability.pt4cloud.pt4cloud": lambda: call([x[:100], x[100:]], replicates=5, strips=50, rng=0),
        "stability.pt4cloud.pt4cloud_short": lambda: call(timed_frame(), interval_lengths=["2h", "4h"], strips=50),
        "stability.pt4cloud.hourly_sample": lambda: call(timed_frame()),
        "notebook.records.Recorder": lambda: call("rec", out_dir=str(tmp / "records")),
        "notebook.records.load_records": lambda: call(str(_records_file(tmp))),
        "notebook.records.to_jsonable": lambda: call({"a": np.arange(3.0)}),
        "notebook.report.default_notebooks_dir": lambda: call(),
        "notebook.report.find_notebooks": lambda: call(report.default_notebooks_dir(), only=["01"]),
        "notebook.report.execute_notebooks": lambda: call(
            notebooks_dir=_notebooks(tmp),
            out_dir=str(tmp / "build"),
            figures_dir=str(tmp / "fig"),
            html=False,
            progress=False,
            timeout=60.0,
        ),
        "notebook.report.execute_analysis": lambda: call(
            [tidy_csv(tmp)], out_dir=str(tmp / "analyze"), quick=True, html=False, progress=False, timeout=120.0
        ),
        "notebook.report.format_table": lambda: call(
            [report.NotebookRun("01", "ok", 1.0, tmp / "01.ipynb", None)],
        ),
        "design.schedules.Schedule": lambda: call(
            *(np.array([0, 1, 0, 1]),) * 2, np.zeros(4, int), np.array([0, 0, 1, 1])
        ),
        "design.schedules.Schedule.to_frame": lambda: call(schedule()),
        "design.schedules.schedule": lambda: call("fully_balanced", requests=8, hosts=2),
        "design.schedules.pilot_schedule": lambda: call(8, 3, rng=0),
        "design.schedules.check_design": lambda: call("unbalanced"),
        "design.schedules.check_hosts": lambda: call("fully_balanced", 4, 8),
        "design.schedules.check_size": lambda: call(1000.0, requests=500, repetitions=1),
        "diagnostics.hosts.mmd_test": lambda: call(x[:20], x[20:40], permutations=9, rng=0),
        "diagnostics.hosts.rank_hosts": lambda: call(hosts_frame(), permutations=9, rng=0),
        "diagnostics.hosts.eliminate_unrepresentative": lambda: call(
            hosts_frame(), permutations=9, max_remove=1, rng=0
        ),
        "diagnostics.hosts.Elimination.to_frame": lambda: call(
            result_of("diagnostics.hosts.eliminate_unrepresentative")
        ),
        "diagnostics.diagnosis.diagnose_series": lambda: call(x, permutations=9, rng=0),
        "capacity.server_model.check_runlength": lambda: call("runlength", 60.0),
        "capacity.server_model.check_server": lambda: call(server()),
        "diagnostics.diagnosis.diagnose": lambda: call(hosts_frame(), "host", permutations=9, rng=0),
        "design.simulated_errors.SweepResult.to_frame": lambda: call(sweep()),
        "design.simulated_errors.standard_error_sweep": lambda: call(
            E1, designs=["unbalanced"], hosts=[2], requests=[8], experiments=4, rng=0
        ),
        "design.type1_errors.bootstrap_clusters": lambda: call("host", schedule()),
        "design.type1_errors.aa_tests": lambda: call(
            "fully_balanced", E1, requests=8, hosts=2, experiments=3, replicates=4, rng=0
        ),
        "design.type1_errors.AATests.to_frame": lambda: call(result_of("design.type1_errors.aa_tests")),
        "design.type1_errors.type1_error_table": lambda: call(
            requests=8, hosts=2, experiments=4, replicates=4, rows=[("unbalanced", "iid")], rng=0
        ),
        "design.type1_errors.type1_error_tables": lambda: call(
            requests=8, hosts=2, experiments=4, replicates=4, rows=[("unbalanced", "iid")], rng=0
        ),
        "design.type1_errors.segment_aa_study": lambda: call(
            x, segments=2, segment_length=10, experiments=4, replicates=4, rng=0
        ),
        "notebook.widgets.design_explorer": lambda: call(E1),
        "notebook.widgets.bootstrap_explorer": lambda: call(E1, requests=32, hosts=8, tests=50, replicates=50),
        "notebook.widgets.peak_rate_explorer": lambda: call(disks=2, daemons=8),
        "notebook.widgets.explorer": lambda: call(
            {"n": __import__("ipywidgets").IntSlider(value=1, description="n")},
            lambda n: ({}, "<p></p>", None),
            [["n"]],
            title="t",
        ),
        "notebook.widgets.explorer_figure": lambda: call(__import__("matplotlib.pyplot").pyplot.figure(figsize=(2, 1))),
        "notebook.widgets.figure_html": lambda: call(
            __import__("matplotlib.pyplot").pyplot.figure(figsize=(2, 1)), alt="x"
        ),
        "capacity.server_model.SimulatedServer": lambda: call(),
        "capacity.server_model.SimulatedServer.mean_response": lambda: call(server(), 50.0),
        "capacity.server_model.SimulatedServer.noise_cv": lambda: call(server(), 50.0, 60.0),
        "capacity.server_model.SimulatedServer.run": lambda: call(server(), 50.0, 60.0, trials=2, rng=0),
        "capacity.peak_search.find_peak_rate": lambda: call(server(), rng=0, **SEARCH),
        "capacity.peak_search.trials_needed": lambda: call(server(), load=100.0, runlength=60.0, rng=0),
        "capacity.response_surface.map_response_surface": lambda: call(points().head(2), rng=0, **SEARCH),
        "capacity.response_surface.Surface.to_frame": lambda: call(
            result_of("capacity.response_surface.map_response_surface")
        ),
        "capacity.response_surface.QuadraticSurface.to_frame": lambda: call(
            result_of("capacity.response_surface.fit_quadratic_surface")
        ),
        "capacity.peak_search.PeakSearch.to_frame": lambda: call(_peak_search()),
        "stability.pt4cloud.ShortIntervalResult.to_frame": lambda: call(result_of("stability.pt4cloud.pt4cloud_short")),
        "capacity.response_surface.d_optimal": lambda: call(points(), 6, starts=2, rng=0),
        "capacity.response_surface.quadratic_design": lambda: call(points()),
        "capacity.response_surface.fit_quadratic_surface": lambda: call(points(), _surface_values()),
        "capacity.response_surface.QuadraticSurface.predict": lambda: call(
            response_surface.fit_quadratic_surface(points(), _surface_values()), points()
        ),
        "capacity.response_surface.QuadraticSurface.mean_absolute_percentage_error": lambda: call(
            response_surface.fit_quadratic_surface(points(), _surface_values()), points(), _surface_values()
        ),
        # not in CALLABLES (a dunder), but a Recorder case found by hand: a refused value must not poison it
        "notebook.records.Recorder.__call__": lambda: call(
            records.Recorder("rec2", out_dir=str(tmp / "records")), "k", 1.0
        ),
        "notebook.report.offline_notebook": lambda: call(__import__("nbformat").v4.new_notebook()),
        "notebook.widgets.with_static_html": lambda: call({"text/plain": "x"}, "<p>x</p>"),
        "notebook.widgets.Explorer.static_html": lambda: call(
            importlib.import_module("perfstudy.notebook.widgets").peak_rate_explorer()
        ),
        "notebook.records.Recorder.warnings": lambda: call(records.Recorder("rec4", out_dir=str(tmp / "records")), "k"),
        "notebook.records.Recorder.say": lambda: call(
            records.Recorder("rec3", out_dir=str(tmp / "records")), "k", "{rows} rows ({share:.0%})", rows=3, share=0.5
        ),
    }
    return calls


def _task(task, rng):
    return float(task) + rng.random()


def _surface_values():
    p = points()
    return (100 + 10 * p.disks + 3 * p.daemons - 0.1 * p.daemons**2).to_numpy(dtype=float)


def _notebooks(tmp):
    import nbformat

    folder = tmp / "notebooks"
    folder.mkdir(exist_ok=True)
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    parameters = nbformat.v4.new_code_cell("quick = False\nout_dir = 'build'\nfigures_dir = 'figures'")
    parameters.metadata["tags"] = ["parameters"]
    notebook.cells = [parameters, nbformat.v4.new_code_cell("x = 1")]
    nbformat.write(notebook, folder / "01_tiny.ipynb")
    return str(folder)


def _records_file(tmp):
    path = tmp / "records" / "r.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"a": 1.0}))
    return path


def _readme_table() -> str:
    from perfstudy.notebook.readme_rows import HEADING

    return f"{HEADING}\n\n| notebook | reproduced | differs |\n|---|---|---|\n| 01 | 9 of 13 | 4.5% |\n"


def _readme_file(tmp) -> str:
    path = tmp / "README.md"
    path.write_text(_readme_table())
    return str(path)


def _git_repo(tmp) -> str:
    """A repository of one commit whose benchmark is a shell script, for run_commits (an A/A of that commit)."""
    import subprocess

    folder = tmp / "repo"
    if (folder / ".git").is_dir():
        return str(folder)
    folder.mkdir()
    (folder / "b.sh").write_text("sleep 0.005\n")
    for step in (["init", "-q"], ["add", "."], ["-c", "user.email=a@b", "-c", "user.name=t", "commit", "-qm", "b"]):
        subprocess.run(["git", "-C", str(folder), *step], check=True, capture_output=True)
    return str(folder)


def _bisection():
    from perfstudy.experiment.bisection import Bisection

    step = dict(commit="c1", index=1, verdict="slower", change=0.2, low=0.1, high=0.3, rounds=12, seconds=1.5,
                stopped="decided", failure="", meaning="at or before")  # fmt: skip
    return Bisection("c1", ("c1", "c1"), (step,), (), 0.95, 0.95, 1, "slower", "found", 1.5)


@functools.cache
def _recovery():
    from perfstudy.studies import bakshy2015_real

    return bakshy2015_real.table1_recovery(requests=12, hosts=3, batches=2, replicates=3, rng=0)


@functools.cache
def _interval_methods():
    from perfstudy.studies import bakshy2015_real

    return bakshy2015_real.interval_methods("md-sim-duration", replicates=4, rng=0)


@functools.cache
def _split():
    from perfstudy.studies import bakshy2015_real

    return bakshy2015_real.variance_split(cwb=("md-sim-duration",), azure=("azure-redis-get-long",))


@functools.cache
def _budget():
    from perfstudy.studies import bakshy2015_real

    return bakshy2015_real.pilot_budget(
        COSTS, target_se=0.1, requests=30, hosts=(4,), batches=(2,), pilots=2, design_hosts=(4, 8), rng=0
    )


@functools.cache
def _detection():
    from perfstudy.studies import versions

    pairs = versions.aa_pairs(clusters=4, azure=("azure-redis-get-long",), max_pairs_per_series=2)
    return versions.aa_calibration(pairs, slowdowns=(0.0, 0.05), methods=("perfstudy",), replicates=99, rng=0)


@functools.cache
def _intervals():
    from perfstudy.studies import bakshy2015

    return bakshy2015.figure7(E1, requests=8, hosts=4, tests=3, replicates=4, rng=0).intervals


@functools.cache
def _type1_series():
    from perfstudy.studies import bakshy2015_real

    return bakshy2015_real.real_aa(
        [("a", np.arange(100.0) % 7)], segments=2, segment_length=5, experiments=3, replicates=3, rng=0
    ).per_series


@functools.cache
def _csv_file() -> str:
    """A CSV file of one column whose rows end."""
    import tempfile

    handle, path = tempfile.mkstemp(suffix=".csv")
    os.write(handle, b"value\n1\n")
    os.close(handle)
    return path


@functools.cache
def _cov():
    from perfstudy.studies import maricq2018
    from perfstudy.studies.public_data import survey_datasets

    return maricq2018.cov_summary(survey_datasets(["pt4cloud-AWS-EP-L"], permutations=9, rng=0))["performance"]


@functools.cache
def _trap():
    from perfstudy.studies import kolaczkowski

    return kolaczkowski.standard_error_trap(["azure-redis-get-long"], batches=10)


#: classes that only the library builds (results, registry entries): their constructors are not fed bad
#: fields; their public methods are walked
INPUT_CLASSES = {
    "perfstudy.design.model.VarianceComponents",
    "perfstudy.design.standard_errors.CostModel",
    "perfstudy.design.schedules.Schedule",
    "perfstudy.capacity.server_model.SimulatedServer",
    "perfstudy.notebook.records.Recorder",
    "perfstudy.stability.kde.Grid",
}
#: study functions: reproductions at fixed published settings, walked through their own small calls
#: in tests/support/studies.py; their arguments go through the same _checks as the library's
STUDIES = "perfstudy.studies."


def _is_figure(name: str) -> bool:
    """A paper's figure (``perfstudy.studies.<paper>_figures.plot_*``): a plot like those of
    perfstudy.notebook.plots, walked with them, not a study."""
    return name.startswith(STUDIES) and name.removeprefix(STUDIES).split(".")[0].endswith("_figures")


def _walked():
    names = []
    for name, obj in CALLABLES.items():
        if name.startswith(STUDIES) and not _is_figure(name):
            continue
        if inspect.isclass(obj) and name not in INPUT_CLASSES:
            continue
        names.append(name.removeprefix("perfstudy."))
    return sorted(names) + ["notebook.records.Recorder.__call__"]


WALKED = _walked()


def _resolve(name):
    """The object a walked name (``"diagnostics.adf.adf"``) names: its longest prefix that is a
    module, then attributes."""
    import importlib

    parts = name.split(".")
    for depth in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module("perfstudy." + ".".join(parts[:depth]))
        except ModuleNotFoundError:
            continue
        break
    else:
        raise LookupError(name)
    for part in parts[depth:]:
        obj = getattr(obj, part)
    return obj


@pytest.fixture(scope="module")
def valid(tmp_path_factory):
    return _valid(tmp_path_factory.mktemp("bad_input"))


def test_every_walked_callable_has_a_valid_call(valid):
    missing = [name for name in WALKED if name not in valid]
    assert not missing, f"add a small valid call to VALID for {missing}"


def _cases(fn, args, kwargs):
    signature = inspect.signature(fn)
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    for param, value in bound.arguments.items():
        kind = signature.parameters[param].kind
        if kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        annotation = str(signature.parameters[param].annotation)
        optional = signature.parameters[param].default is None
        for case in battery(param, value, annotation):
            if optional and case.value is None:
                case = dataclasses.replace(case, invalid=False)  # None is this argument's default
            mutated = signature.bind(*args, **kwargs)
            mutated.apply_defaults()
            mutated.arguments[param] = case.value
            yield case, mutated.args, mutated.kwargs


#: documented exception types beyond ValueError/TypeError, by callable
EXTRA_ALLOWED = {
    "cli.main": ("SystemExit",),
    # a command or pilot file that is not there: FileNotFoundError, naming it, as io.read does
    "experiment.commands.command_argv": ("FileNotFoundError",),
    "experiment.plan.plan_rounds": ("FileNotFoundError",),
    "experiment.run": ("FileNotFoundError",),
    "experiment.read_run": ("FileNotFoundError",),
    "comparison.compare_files": ("FileNotFoundError",),
    "io.file_columns": ("FileNotFoundError",),
    "changes.read_history": ("FileNotFoundError",),
}
#: arguments the library passes through without looking inside, with the reason; no battery for them
OPAQUE = {
    (
        "comparison.verdict",
        "low",
    ): "an interval may be unbounded: -inf is a bound, and the verdict is then inconclusive",
    (
        "comparison.verdict",
        "high",
    ): "an interval may be unbounded: inf is a bound, and the verdict is then inconclusive",
    (
        "comparison.sign_sequence.sign_rounds_needed",
        "low",
    ): "an interval may be unbounded: -inf is a bound, and the rounds needed are then the limit",
    (
        "comparison.sign_sequence.sign_rounds_needed",
        "high",
    ): "an interval may be unbounded: inf is a bound, and the rounds needed are then the limit",
    ("_lib.parallel.map_tasks", "tasks"): "tasks go to the caller's fn as they are",
    (
        "notebook.records.Recorder.__call__",
        "value",
    ): "any JSON-able value (NaN becomes null); an infinity: tests/test_faults.py",
}
#: labels, not numbers: text and negative labels are as good as any
LABELS = {"batches", "blocks_a", "blocks_b", "hosts"}
#: callables whose results hold NaN by documented design, with where it is documented
DOCUMENTED_NAN = {
    "comparison.adjust_p_values": "NaN p-values (hypotheses not tested) are left out and stay NaN (docstring)",
    "io.read_pyperf": "loops is NaN when the file does not record it (docstring: extra columns)",
    "diagnostics.diagnosis.diagnose_series": "a diagnostic that does not apply (one value, a constant) is NaN; notes says why",
    "changes.commits_for_change": "inf when the change is under min_sigmas noise SDs: no length reports it (docstring)",
}
#: callables that pass NaN inside a frame through without computing on it: a plot draws it as a gap
#: (perfstudy.notebook.plots' module docstring), hourly_sample keeps or drops whole rows by their time
PASS_THROUGH = (
    "notebook.plots.",
    "studies.",
    "stability.pt4cloud.hourly_sample",
)  # studies.: only the figures are walked here


#: callables whose valid call reads a published dataset
NEEDS_DATA = ("io.datasets.locate", "io.datasets.load", "io.datasets.load_family")


#: walked callables whose every case runs a whole analysis (tens of seconds): `make test` only
#: walks over 3 s on 2 cores (make test runs them; make test-fast leaves them out): the analysis, the report, and
#: the figures, whose every bad case draws a figure
SLOW_WALKS = (
    "analysis.analyze",
    "notebook.report.execute_analysis",
    "notebook.report.execute_notebooks",
    "notebook.plots.plot_runs",
    "studies.maricq2018_figures.plot_cov_overview",
    "studies.bakshy2015_figures.plot_pilot_budget",
    "studies.bakshy2015_figures.plot_type1_by_series",
    "studies.running_figures.plot_rules",
    "studies.bakshy2015_figures.plot_recovery",
    "studies.bakshy2015_figures.plot_interval_methods",
    "studies.bakshy2015_figures.plot_variance_split",
    "experiment.bisection.bisect",
    "experiment.worktrees.run_commits",
)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_WALKS else n for n in WALKED])
def test_bad_input_is_refused_by_name_or_handled(name, valid):
    if name.startswith(NEEDS_DATA):
        from support.studies import _have_data

        if not _have_data():
            pytest.skip("the dataset mirror ($PERFSTUDY_DATA) and the cache are absent; the tests never download")
    fn = _resolve(name)
    args, kwargs = valid[name]()
    cases = [
        (dataclasses.replace(case, invalid=False) if case.param in LABELS else case, a, k)
        for case, a, k in _cases(fn, args, kwargs)
        if (name, case.param) not in OPAQUE
    ]
    if name.startswith(PASS_THROUGH):
        cases = [(dataclasses.replace(case, poisoned=False), a, k) for case, a, k in cases]
    # a whole analysis or report runs past the 30 s hang limit on a loaded machine (execute_analysis: over 30 s
    # with make report beside it, load 9 on 2 cores); a hang is still a hang at 120 s
    timeout = 120.0 if name in SLOW_WALKS else TIMEOUT
    outcomes = run_forked([(fn, args, kwargs)] + [(fn, a, k) for _, a, k in cases], timeout=timeout)
    base = outcomes[0]
    problem = verdict(None, base, 0)
    assert problem is None, f"{name}: the valid call itself fails: {problem}"
    allowed = ALLOWED + EXTRA_ALLOWED.get(name, ())
    failures = []
    for (case, _, _), outcome in zip(cases, outcomes[1:]):
        if name == "cli.main" and outcome["kind"] == "raise" and outcome.get("code") == 2:
            continue  # argparse's refusal: exit status 2 and a usage line
        baseline_nonfinite = 1 if name in DOCUMENTED_NAN else base["nonfinite"]
        problem = verdict(case, outcome, baseline_nonfinite, allowed)
        if problem:
            failures.append(f"{case.param}={case.label}: {problem}")
    if failures and os.environ.get("BAD_INPUT_REPORT"):  # a file of every failing case, for the one fixing them
        with open(os.environ["BAD_INPUT_REPORT"], "a") as handle:
            handle.writelines(f"{name} | {line}\n" for line in failures)
    assert not failures, f"{name}: {len(failures)} of {len(cases)} cases\n  " + "\n  ".join(failures)


@pytest.mark.slow  # over 3 s on 2 cores
def test_the_walker_catches_what_it_is_for():
    """Each kind of defect, planted in a toy function, is caught by the walker's judge."""
    from support.badinput import Case

    def hang(n):
        while True:
            pass

    def allocate(n):
        return np.ones(int(n) * (1 << 28))

    def silent_nan(alpha):
        return float("nan")

    def internal(x):
        return [][1]

    def vague(x):
        raise ValueError("bad")

    def die(x):
        os.kill(os.getpid(), signal.SIGKILL)

    def mutate(x):
        if x:
            raise ValueError(f"x: another case's change is seen: {x}")
        x.append(1)

    shared = []
    run = run_forked(
        [(hang, (1,), {}), (allocate, (100,), {}), (silent_nan, (0.5,), {}), (internal, (1,), {}), (vague, (1,), {})]
        + [(die, (1,), {}), (mutate, (shared,), {}), (mutate, (shared,), {}), (mutate, (shared,), {})],
        timeout=3,
        parallel=1,  # one worker: each case after a hang, a memory error or a death still runs, in a fresh one
    )
    # each case on its own copy of the arguments: the list mutate appends to is empty at every call
    assert [o["kind"] for o in run] == ["hang", "memory", "return", "raise", "raise", "died"] + 3 * ["return"]
    assert "silent NaN" in verdict(Case("alpha", "x", 0.5, False), run[2], 0)
    assert "returned a result for an invalid value" in verdict(Case("alpha", "x", 2.0, True), run[2], 0)
    assert "internal IndexError" in verdict(Case("x", "x", 1, False), run[3], 0)
    assert "does not name" in verdict(Case("x", "x", 1, False), run[4], 0)
    ok = run_forked([(vague, (1,), {})])[0]
    assert verdict(Case("x", "x", 1, False, names=("bad",)), ok, 0) is None


def test_input_classes_are_dataclasses_or_documented():
    for name in INPUT_CLASSES:
        assert inspect.isclass(_resolve(name.removeprefix("perfstudy.")))
    assert dataclasses.is_dataclass(VarianceComponents)


# ---- the study functions: their arguments are refused by name too ----------------------------------------------
#
# A study runs a reproduction on real or simulated data; a valid call at small sizes takes seconds. Each
# argument gets the *invalid* values of its battery (NaN, infinity, text, a fraction for a count, a
# negative count, 0 or 1 for a probability, a string for a flag, None for an object), which must be
# refused before any work is done. Their edge values (zero, huge, empty) reach the library functions
# walked above.


def _comparison_of_one():
    from perfstudy.comparison import compare

    frame = pd.DataFrame({"version": ["A"] * 6 + ["B"] * 6, "batch": [*range(6)] * 2, "value": np.linspace(1, 1.1, 12)})
    return compare(frame, baseline="A", replicates=99, rng=0)


def _toggled_trial():
    from perfstudy.studies.running import ToggledTrial

    table = pd.DataFrame({"rule": ["sign"], "duet": [False], "wrong": [0], "verdict": ["no change"], "seconds": [2.0],
                          "rounds": [5], "round_sd": [0.02]})  # fmt: skip
    return ToggledTrial(table=table, loops=1000, threshold=0.01, seconds=2.0, cpus=2)


def _pilot_tables():
    """Notebook 07's tables, made by hand: recovery, split, intervals, plan, by_pilot."""
    intervals = pd.DataFrame({"term": ["it", "vm"], "role": ["batch", "host"], "levels": [3, 120],
                              "profile_low": [0.0, 0.1], "profile_high": [0.6, 0.3], "bootstrap_low": [0.0, 0.1],
                              "bootstrap_high": [0.2, 0.3]})  # fmt: skip
    intervals.attrs["seconds"] = {"profile": 1.0, "bootstrap": 3.0}
    return dict(
        recovery=pd.DataFrame({"endpoint": [1, 1], "parameter": ["request", "host"], "low": [0.1, 0.0],
                               "high": [0.2, 0.3], "truth": [0.15, 0.05], "covered": [True, True],
                               "singular": [False, False]}),
        split=pd.DataFrame({"benchmark": ["a", "b"], "family": ["cwb", "azure"], "n": [100, 50], "hosts": [4, 3],
                            "total_sd": [1.0, 0.3], "converged": [True, True], "share_region": [0.0, None],
                            "share_host": [0.6, 0.2], "share_batch": [0.3, 0.4], "share_host_batch": [0.0, 0.3],
                            "share_noise": [0.1, 0.1]}),
        intervals=intervals,
        plan=pd.DataFrame({"feasible": [True], "achieved_se": [0.05], "promised_se": [0.05],
                           "achieved_se_error": [0.001]}),
        by_pilot=pd.DataFrame({"pilot_hosts": [4, 16], "pilot_batches": [2, 3], "within_10pct": [0.2, 0.8],
                               "se_ratio_high": [1.9, 1.1]}),
    )  # fmt: skip


def _he2019_tables():
    """Notebook 04's results, made by hand."""
    rates = dict.fromkeys(["accuracy", "accuracy_exact", "accuracy_fine", "accuracy_wide", "noise_floor",
                           "all_sampled", "ground_truth_halves"], [0.8, 0.97])  # fmt: skip
    return dict(
        diagnosis=pd.DataFrame({"benchmark": ["a", "b"], "config": ["S", "L"], "runs": [10, 20], **rates,
                                "spread_ratio": [1.8, 1.0]}),
        table4=pd.DataFrame({"hours": [24, 48], "paper_hours": [24, 24], "agrees": [True, False],
                             "agrees_sampled": [True, True]}),
        ycsb=dict(week_medians=[1.1, 1.0, 1.0], hours=96, stable=True, probability=0.9, accuracy=0.9,
                  validation_probability=0.01, validates=False),
        lengths=pd.DataFrame({"benchmark": ["a"], "config": ["S"], "hours": [48.0], "paper_hours": [24.0],
                              "decisive_hours": [48.0], "probability": [0.95], "validation_probability": [0.5],
                              "margin": [0.001], "reached": [False], "reached_by": [""],
                              "hours_bandwidth_x_2": [24.0], "hours_bandwidth_x_0.5": [96.0]}),
        weekly=pd.DataFrame({"benchmark": ["a"], "config": ["S"], "weeks": [2], "paper_weeks": [2],
                             "agrees_with_paper": [True], "probabilities": [[0.96]], "accuracy": [0.97]}),
        reduction=pd.DataFrame({"method": ["standard, weekly"], "runs_saved": [0.55]}),
        means={"pt4cloud": 0.9, "sota1": 0.8, "sota2": 0.7},
    )  # fmt: skip


def _short_trial():
    """A short history trial made by hand: one planted change found by both, no A/A bisect."""
    from types import SimpleNamespace

    from perfstudy.studies.bisecting import ShortHistoryTrial

    found = dict(commit=5, change=0.3, measured=0.14, measured_low=0.1, measured_high=0.19, history_needs=8.0,
                 history_commit=5.0, history_first=4.0, history_last=5.0, history_change=0.13, culprit=5.0,
                 bisect_first=5.0, bisect_last=5.0, steps=4, rounds=40, seconds=20.0, stopped="decided")  # fmt: skip
    history = SimpleNamespace(series=pd.DataFrame({"noise": [0.01], "commits_for_threshold": [12.0]}))
    return ShortHistoryTrial(
        found=pd.DataFrame([found]), aa=pd.DataFrame({"culprit": []}), history=history,  # type: ignore[arg-type]
        sweep=pd.DataFrame({"commit_index": range(10)}), sweep_seconds=1.0, bisect_seconds=1.0, aa_seconds=0.0,
        false_history=0, aa_bound=0.05, threshold=0.1, confidence=0.95, load=False, aa_threshold=0.1,
    )  # fmt: skip


@functools.cache
def _weekly_one():
    from perfstudy.studies import he2019

    return he2019.weekly_study(["pt4cloud-AWS-EP-L"], replicates=50, rng=0)


def _weekly_table():
    return pd.DataFrame({"benchmark": ["EP"], "config": ["AWS-L"], "weeks": [2], "paper_weeks": [2],
                         "accuracy": [0.95], "stopped": [True]})  # fmt: skip


def _report_inputs():
    from perfstudy.report_inputs import report_inputs

    return report_inputs([], rng=1)


def _maricq_tables():
    """Notebooks 03 and 05's results, made by hand."""
    from types import SimpleNamespace

    from perfstudy.studies.maricq2018 import DegradedCopyRanking, NormalityTests

    across = pd.DataFrame({"family": ["cwb", "cwb"], "p_value": [0.01, 0.3], "reject": [True, False]})
    within = pd.DataFrame({"family": ["sap-hana"] * 3, "p_value": [0.01, 0.3, 0.5], "reject": [True, False, False]})
    ranking = pd.DataFrame({"host": ["a", "b", "c"], "reject": [True, False, False]})
    curve = SimpleNamespace(curve=pd.DataFrame({"statistic": [0.5, 0.2, 0.1]}))
    return dict(
        survey=pd.DataFrame({"family": ["azure-vm-noise", "cwb"], "dataset": ["a", "c"], "benchmark": ["r", "cpu"], "n": [100, 30],
                             "cov": [0.02, 0.2], "shapiro_p_value": [0.01, 0.5], "adf_p_value": [0.01, np.nan],
                             "se_inflation": [2.0, np.nan], "ess": [25.0, np.nan], "notes": ["", ""],
                             "shapiro_reject": [True, False]}),
        tests=NormalityTests(across, within, 0, 0),
        stationarity=dict(series=pd.DataFrame({"family": ["azure-vm-noise"], "adf_reject": [True]}),
                          stationary_share=1.0, sap=pd.DataFrame({"non-stationary": [1]}, index=["Regression"])),
        trap=pd.DataFrame({"too_narrow": [2.0], "naive_95_coverage": [0.67], "corrected_vs_blocks": [0.8]}),
        fig7=DegradedCopyRanking(ranking, ranking, "c", 2, 1, curve),
        figure6=dict(estimated=2, series=3, spearman_cov_estimate=0.5, median_estimate_cov_below_4pct=20.0),
        table4=pd.DataFrame({"inflation": [2.0, 3.0]}),
        copies=pd.DataFrame({"copy_rank": [1, 2]}),
    )  # fmt: skip


def _shivam_tables():
    """Notebook 06's results, made by hand."""
    return dict(
        figure6=pd.DataFrame({"runlength": [5, 60], "load_factor": [0.5, 0.5], "trials": [40, 4], "hours": [1.0, 0.5]}),
        figure9=pd.DataFrame({"confidence": [0.9, 0.95], "hours": [3.0, 4.0], "target_accuracy": [0.1, 0.1]}),
        figure10=pd.DataFrame({"region_width": [0.05, 0.2], "hours": [5.0, 2.0], "policy": ["linear", "linear"]}),
        calibration=dict(searches=10, within_target=0.9, converged=1.0, max_error=0.1),
        costs=pd.DataFrame({"policy": ["binsearch", "binsearch"], "seeding": [True, False], "hours": [1.0, 2.0],
                            "max_error": [0.05, 0.06], "converged": [1.0, 1.0]}),
        growth=pd.DataFrame({"scale": [1, 1], "policy": ["binsearch", "linear"], "test_loads": [6, 10]}),
        table4=pd.DataFrame({"samples": [6], "chosen": [[(1, 2)]], "mape_measured": [0.2], "mape_true": [0.2],
                             "hours": [5.0]}),
    )  # fmt: skip


def _versions_results():
    """Notebook 08's calibration grid, made by hand."""
    return pd.DataFrame({"source": ["azure (days)"] * 3, "slowdown": [0.0, 0.0, 0.05],
                         "method": ["perfstudy", "perfstudy", "perfstudy"], "pairs": [40, 40, 40],
                         "rate": [0.05, 0.1, 0.5], "clusters": [10, 10, 10],
                         "layout": ["interleaved", "sequential", "interleaved"]})  # fmt: skip


def _study_valid():
    from support.studies import AZURE, CWB_METRICS, GRID, SMALL_SHORT_HISTORY, _synthetic_pairs

    from perfstudy.capacity.server_model import SimulatedServer
    from perfstudy.studies import explorers, he2019, public_data, running

    pt4 = ["pt4cloud-AWS-EP-L"]

    def result_of(name):
        """What the study ``name`` returns on its own valid call below."""
        args, kwargs = calls[name]()
        return _resolve(f"studies.{name}")(*args, **kwargs)

    calls = {
        "history_validation.sap_frame": lambda: call(),
        "history_validation.score_labels": lambda: call(_small_sap(), detectors=("perfstudy", "perfherder")),
        "history_validation.score_planted": lambda: call(_small_sap(), rng=0, detectors=("perfstudy",)),
        "history_validation.false_alarms": lambda: call(3, 40, noises=("normal",), rng=0),
        "history_validation.real_false_alarms": lambda: call(),
        "history_validation.cost_per_series": lambda: call(3, 40, rng=0, detectors=("perfstudy",)),
        "history_validation.method": lambda: call(),
        "design_said.z_checks": lambda: call(pd.DataFrame({"z": [0.5, -2.5]})),
        "design_said.recheck_largest": lambda: call(
            pd.DataFrame({"design": ["unbalanced"], "hosts": [4], "requests": [8], "z": [1.0]}),
            E1,
            repeats=2,
            experiments=4,
            rng=0,
        ),
        "design_said.summary_said": lambda: call(
            pd.DataFrame(
                {
                    "design": ["unbalanced", "fully_balanced"],
                    "closed_form": [0.1, 0.05],
                    "paper": [0.1, 0.05],
                    "eq5_from_schedule": [0.1, 0.05],
                }
            ),
            pd.DataFrame({"z": [0.5, -2.5]}),
            dict(bonferroni=0.04, statistic=7.5, df=2, p=0.06),
            dict(design="unbalanced", hosts=4, requests=8, z=1.0, repeats=2, mean_z=0.1, sd_z=1.0, calibrated=True),
        ),  # fmt: skip
        "maricq2018.short_lived_ranking": lambda: call("azure-redis-get-short"),
        "maricq2018.whole_series_reject_share": lambda: call(_maricq_tables()["survey"]),
        "maricq2018_said.survey_view": lambda: call(_maricq_tables()["survey"], rows=1),
        "maricq2018_said.figure3_said": lambda: call(_maricq_tables()["tests"], window=30),
        "maricq2018_said.trap_said": lambda: call(_maricq_tables()["trap"]),
        "maricq2018_said.diagnostics_said": lambda: call(
            *(_maricq_tables()[k] for k in ("survey", "tests", "stationarity", "trap")), window=30
        ),
        "maricq2018_said.ranking_said": lambda: call(_maricq_tables()["fig7"]),
        "maricq2018_said.short_lived_said": lambda: call(dict(vms=10, single_run=9, refused="fewer than 2")),
        "maricq2018_said.repetitions_said": lambda: call(
            *(_maricq_tables()[k] for k in ("figure6", "table4", "copies", "fig7"))
        ),
        "montecarlo.type1_limit": lambda: call(500, alpha=0.05, errors=3.0),
        "pilot_said.oracle_said": lambda: call(_budget().oracle, target_se=0.1),
        "public_data.family_table": lambda: call(),
        "shivam2008_said.true_peaks": lambda: call(pd.DataFrame({"disks": [1, 4], "daemons": [2, 16]})),
        "shivam2008_said.costs_view": lambda: call(_shivam_tables()["costs"]),
        "shivam2008_said.table4_view": lambda: call(_shivam_tables()["table4"]),
        "shivam2008_said.summary_said": lambda: call(
            *(_shivam_tables()[k] for k in ("calibration", "costs", "growth", "table4")),
            search=dict(target_accuracy=0.1, confidence=0.95),
        ),
        "versions.calibration_grid": lambda: call(
            clusters=(3,), laaber=("laaber-golang-snappy",), slowdowns=(0.0,), replicates=99, rng=0
        ),
        "versions_said.type1_table": lambda: call(_versions_results()),
        "versions_said.summary_said": lambda: call(_versions_results(), errors=3.0),
        "he2019_said.weekly_summary": lambda: call(_weekly_table()),
        "he2019_said.weekly_view": lambda: call(_weekly_table()),
        "he2019_said.weekly_said": lambda: call(_weekly_table()),
        "he2019_said.band_relative_width": lambda: call(_weekly_one()),
        "he2019_said.ycsb_view": lambda: call(dict(week_medians=[1.0, 1.1], probability=0.9, stable=True)),
        "bakshy2015_said.fig6_said": lambda: call(
            dict(host_bootstrap_se=0.03, request_bootstrap_se=0.01, true_sd=0.03), simulations=100
        ),
        "he2019_said.below_objective": lambda: call(_he2019_tables()["diagnosis"], 0.9),
        "he2019_said.diagnosis_view": lambda: call(_he2019_tables()["diagnosis"]),
        "he2019_said.diagnosis_said": lambda: call(_he2019_tables()["diagnosis"], 0.9),
        "he2019_said.table4_said": lambda: call(
            _he2019_tables()["table4"], _he2019_tables()["ycsb"], hours=[24, 48], validate_below_hours=168.0
        ),
        "he2019_said.lengths_said": lambda: call(_he2019_tables()["lengths"]),
        "he2019_said.lengths_view": lambda: call(_he2019_tables()["lengths"]),
        "he2019_said.differences_said": lambda: call(
            *(_he2019_tables()[k] for k in ("weekly", "diagnosis", "reduction", "means")),
            objective_probability=0.9,
            sota1_sets=12,
            sota2_margin=0.05,
            azure_median=0.4,
        ),
        "pilot_said.recovery_summary": lambda: call(_pilot_tables()["recovery"]),
        "pilot_said.split_summary": lambda: call(_pilot_tables()["split"]),
        "pilot_said.split_view": lambda: call(_pilot_tables()["split"]),
        "pilot_said.interval_summary": lambda: call(_pilot_tables()["intervals"], "fio"),
        "pilot_said.interval_methods_said": lambda: call(_pilot_tables()["intervals"]),
        "pilot_said.share_mc": lambda: call(25),
        "pilot_said.summary_said": lambda: call(
            *_pilot_tables().values(), confidence=0.95, metric="fio", refits=40, pilots=25
        ),
        "running_said.interval_record": lambda: call(_comparison_of_one()),
        "running_said.layout_title": lambda: call("sequential", _comparison_of_one(), "10 batches each"),
        "running_said.drifts": lambda: call(
            pd.DataFrame({"round": [0, 1], "probe": [1e-3, 1e-3], "warmup": [False, False], "value": [0.1, 0.1]})
        ),
        "running_said.probe_said": lambda: call(dict(first=1e-3, last=1.1e-3), 1.2),
        "running_said.summary_said": lambda: call(
            dict(verdict="no change", change=0.0, low=-0.01, high=0.01),
            dict(verdict="no change", change=0.0, low=-0.01, high=0.01, rounds=5, stopped="decided"),
            pd.DataFrame(
                {
                    "rule": ["sign sequence, every round", "t sequence, every round", "t interval, every round"],
                    "limit": [0.08] * 3,
                    "false_rate": [0.03] * 3,
                    "within": [True] * 3,
                }
            ),
            pd.DataFrame({"change": [0.02], "median_rounds": [20.0], "fixed_rounds": [10.0]}),
            threshold=0.1,
            experiments=400,
        ),  # fmt: skip
        "running_said.rules_said": lambda: call(
            pd.DataFrame(
                {
                    "rule": ["t", "sign", "t", "sign"],
                    "statistic": ["median"] * 4,
                    "change": [0.0, 0.0, 0.1, 0.1],
                    "wrong": [0.05, 0.03, 0.0, 0.0],
                    "mean_rounds": [100.0, 100.0, 12.0, 10.0],
                }
            ),
            _toggled_trial(),
            experiments=400,
            rounds=100,
            limit=0.08,
            budget=10.0,
        ),  # fmt: skip
        "history_said.judged": lambda: call(0.93, 0.95, 100),
        "history_said.summary_said": lambda: call(
            *(result_of(f"history_validation.{n}") for n in ("score_labels", "score_planted", "false_alarms")),
            result_of("history_validation.real_false_alarms"),
            result_of("history_validation.cost_per_series"),
        ),
        "history_said.short_history_said": lambda: call(_short_trial(), count=3),
        "history_said.short_scalars": lambda: call(_short_trial()),
        "history_validation.Scores.to_frame": lambda: call(result_of("history_validation.false_alarms")),
        "bakshy2015.table1": lambda: call(),
        "bakshy2015.figure2_repetition_ratio": lambda: call(E1),
        "bakshy2015.table3_standard_errors": lambda: call(E1),
        "bakshy2015.figure4": lambda: call(E1, hosts=[2], requests=[8], experiments=4, rng=0),
        "bakshy2015.figure5": lambda: call(E1, requests=8, hosts=2, experiments=4, rng=0),
        "bakshy2015.DeltaHatDensities.to_frame": lambda: call(result_of("bakshy2015.figure5")),
        "bakshy2015.BootstrapAgainstTruth.to_frame": lambda: call(result_of("bakshy2015.figure6")),
        "bakshy2015.RankedAATests.to_frame": lambda: call(result_of("bakshy2015.figure7")),
        "bakshy2015_real.PilotBudget.to_frame": lambda: call(_budget()),
        "he2019.Configuration.to_frame": lambda: call(he2019.configuration(pt4[0])),
        "maricq2018.NormalityTests.to_frame": lambda: call(result_of("maricq2018.figure3_normality")),
        "maricq2018.DegradedCopyRanking.to_frame": lambda: call(result_of("maricq2018.figure7_cwb")),
        "bakshy2015_real.RealAATests.to_frame": lambda: call(result_of("bakshy2015_real.real_aa")),
        "maricq2018.ConvergenceCurves.to_frame": lambda: call(result_of("maricq2018.figure5_convergence")),
        "maricq2018.RepetitionsAgainstCoV.to_frame": lambda: call(result_of("maricq2018.figure6_cov_vs_repetitions")),
        "he2019.SotaComparison.to_frame": lambda: call(result_of("he2019.sota_comparison")),
        "shivam2008.StrawmanAgainstBinsearch.to_frame": lambda: call(result_of("shivam2008.figure3")),
        "shivam2008.RunlengthSweep.to_frame": lambda: call(result_of("shivam2008.figure6")),
        "running.calibration": lambda: call(experiments=20, rounds=20, rng=0),
        "running.ramping_load": lambda: call(0.5, spinners=1, step=0.1),
        "running.sequential_layout": lambda: call("true", "true", batches=2, values=1, warmup=0),
        "running.power_and_cost": lambda: call(changes=(0.1,), experiments=20, max_rounds=20, rng=0),
        "running.simulate_round_ratios": lambda: call(running.RoundModel(), 5, 10, rng=0),
        "running.simulate_contended_rounds": lambda: call(running.ContentionModel(), 5, 10, rng=0),
        "running.rules_under_contention": lambda: call(changes=(0.0,), experiments=20, max_rounds=20, rng=0),
        "running.RulesUnderContention.to_frame": lambda: call(result_of("running.rules_under_contention")),
        "running.toggled_load": lambda: call(0.5, busy=1, low=0.1, high=0.2),
        "running.toggled_trial": lambda: call(1000, changes=(0.5,), seconds=0.5, threshold=0.05),
        "ci_trial.go_suite": lambda: call(_fresh_folder(), pull_requests=1, rng=0),
        "ci_trial.GoSuite.to_frame": lambda: call(result_of("ci_trial.go_suite")),
        "ci_trial.ci_trial": lambda: call(1, seconds=1.0, methods=("gate",), busy=0),
        "ci_trial.CITrial.to_frame": lambda: call(small_ci_trial()),
        "ci_trial.CITrial.scores": lambda: call(small_ci_trial()),
        "ci_trial_said.trial_said": lambda: call(small_ci_trial()),
        "layout.missing": lambda: call(),
        "layout.build": lambda: call(tempfile.mkdtemp(prefix="perfstudy-test-")),
        "layout.instruction_runs": lambda: call(layout_programs(), max_rounds=9, seed=0),
        "layout.layout_trial": lambda: call(
            layout_programs()["copy"], tempfile.mkdtemp(prefix="perfstudy-test-"), max_rounds=9, threshold=0.5, seed=0
        ),
        "layout.ratio": lambda: call(small_layout_trial(), "fixed"),
        "layout.shown": lambda: call(small_runs().table),
        "layout.slow_share": lambda: call(small_layout_trial()),
        "layout.LayoutTrial.to_frame": lambda: call(small_layout_trial()),
        "layout.Runs.to_frame": lambda: call(small_runs()),
        "layout_said.instructions_said": lambda: call(small_runs()),
        "layout_said.layout_said": lambda: call(small_layout_trial()),
        "running.ToggledTrial.to_frame": lambda: call(result_of("running.toggled_trial")),
        "bisecting.planted_repository": lambda: call(_fresh_folder(), commits=3, iterations=200),
        "bisecting.short_history_trial": lambda: call(**SMALL_SHORT_HISTORY),
        "bisecting.ShortHistoryTrial.to_frame": lambda: call(result_of("bisecting.short_history_trial")),
        "running.StoppingCalibration.to_frame": lambda: call(result_of("running.calibration")),
        "running.PowerAndCost.to_frame": lambda: call(result_of("running.power_and_cost")),
        "public_data.Series.to_frame": lambda: call(next(public_data.iter_series(["sap-hana-0016"]))),
        "bakshy2015.allocations": lambda: call(E1, COSTS, budgets=[5000.0], targets=[0.1], hosts=[4, 8]),
        "bakshy2015.table3": lambda: call(E1, requests=8, hosts=4, experiments=3, replicates=3, rng=0),
        "bakshy2015.combined_mc_error": lambda: call(0.065, 1000, 0.036),
        "bakshy2015.paper_type1_range": lambda: call(0.07, 0.07),
        "bakshy2015.implied_true_se": lambda: call(0.108, 0.0652),
        "bakshy2015.with_host_sd_scaled_to": lambda: call("request_balanced", 0.08, E1),
        "bakshy2015.figure6": lambda: call(E1, requests=8, hosts=2, simulations=5, replicates=5, rng=0),
        "table3_readings.digit_evidence": lambda: call([0.214, 0.057]),
        "table3_readings.DigitEvidence.to_frame": lambda: call(result_of("table3_readings.digit_evidence")),
        "table3_readings.pair_gap_probability": lambda: call(0.214, 0.178, 500),
        "table3_readings.joint_window": lambda: call([0.084, 0.068], experiments=1000, paper_tests=500),
        "table3_readings.iid_type1_error": lambda: call("host_balanced", E1, requests=8, hosts=4),
        "table3_readings.same_law_pairs": lambda: call(
            result_of("bakshy2015.table3"), E1, experiments=3, requests=8, hosts=4
        ),
        "table3_readings.outside_printed_range": lambda: call(0.108, 0.024, 0.089, tests=500),
        "table3_readings.host_block_leads": lambda: call(E1, requests=8, hosts=8, experiments=3, replicates=3, rng=0),
        "table3_readings.reading_summary": lambda: call(
            result_of("bakshy2015.table3"), result_of("table3_readings.same_law_pairs"), tests=500
        ),
        "bakshy2015.figure7": lambda: call(E1, requests=8, hosts=4, tests=3, replicates=4, rng=0),
        "bakshy2015.origin_check": lambda: call(
            E1, [("unbalanced", "host")], requests=8, hosts=4, experiments=3, replicates=3, rng=0
        ),
        "bakshy2015.OriginCheck.to_frame": lambda: call(result_of("bakshy2015.origin_check")),
        "bakshy2015_said.table3_views": lambda: call(result_of("bakshy2015.table3")),
        "bakshy2015_said.readings_view": lambda: call(result_of("bakshy2015.table3")),
        "bakshy2015_said.pairs_view": lambda: call(result_of("table3_readings.same_law_pairs")),
        "bakshy2015_said.favoured_reading": lambda: call(
            result_of("table3_readings.digit_evidence"), result_of("table3_readings.same_law_pairs")
        ),
        "bakshy2015_said.table3_said": lambda: call(
            result_of("bakshy2015.table3"),
            result_of("table3_readings.digit_evidence"),
            result_of("table3_readings.same_law_pairs"),
            {n: result_of("table3_readings.reading_summary") for n in (10_000, 500)},
            experiments=3,
        ),
        "bakshy2015_said.rescaled_rows": lambda: call(result_of("bakshy2015.table3"), result_of("bakshy2015.table3")),
        "bakshy2015_said.rescaled_view": lambda: call(result_of("bakshy2015_said.rescaled_rows")),
        "bakshy2015_said.rescaled_said": lambda: call(
            result_of("bakshy2015_said.rescaled_rows"), result_of("bakshy2015.table3"), implied=0.08, host_scale=1.5
        ),
        "bakshy2015_said.host_block_said": lambda: call(
            result_of("table3_readings.host_block_leads"), paper_rate=0.057, paper_se=0.08, experiments=3
        ),
        "bakshy2015_said.leads_view": lambda: call(result_of("table3_readings.host_block_leads")),
        "bakshy2015_said.origin_view": lambda: call(result_of("bakshy2015.origin_check")),
        "bakshy2015_said.trust_said": lambda: call(result_of("bakshy2015.origin_check")),
        "bakshy2015_said.summary_said": lambda: call(
            result_of("bakshy2015.table3"),
            {n: result_of("table3_readings.reading_summary") for n in (10_000, 500)},
            500,
            pd.DataFrame(
                {
                    "series": ["a"] * 2,
                    "bootstrap": ["iid", "segment"],
                    "type1_error": [0.3, 0.05],
                    "type1_error_t": [0.3, 0.04],
                }
            ),
            experiments=3,
            aa_experiments=3,
        ),
        "bakshy2015_real.real_series": lambda: call(("azure-redis-get-long",), pt4cloud=False),
        "bakshy2015_real.real_aa": lambda: call(
            [("a", np.arange(100.0) % 7)], segments=2, segment_length=5, experiments=3, replicates=3, rng=0
        ),
        "bakshy2015_real.table1_recovery": lambda: call(requests=12, hosts=3, batches=2, replicates=3, rng=0),
        "bakshy2015_real.design_from_pilot": lambda: call(pilot_fit(), COSTS, target_se=0.1, experiments=50, rng=0),
        "bakshy2015_real.variance_split": lambda: call(cwb=("md-sim-duration",), azure=("azure-redis-get-long",)),
        "bakshy2015_real.interval_methods": lambda: call("md-sim-duration", replicates=4, rng=0),
        "explorers.pt4cloud_explorer": lambda: call("pt4cloud-AWS-EP-L", replicates=20),
        "explorers.confirm_explorer": lambda: call(("pt4cloud-AWS-EP-L", "ground_truth"), trials=10, max_size=100),
        "explorers.explorer_app": lambda: call(quick=True),
        "explorers.first_states": lambda: call(explorers.explorer_app(quick=True)),
        "bakshy2015_real.pilot_budget": lambda: call(
            COSTS, target_se=0.1, requests=30, hosts=(4,), batches=(2,), pilots=2, design_hosts=(4, 8), rng=0
        ),
        "he2019.Configuration.weeks": lambda: call(he2019.configuration(pt4[0])),
        "he2019.Configuration.runs": lambda: call(he2019.configuration(pt4[0]), 24.0),
        "he2019.configuration": lambda: call(pt4[0]),
        "he2019_table4.table4_diagnosis": lambda: call(he2019.table4_comparison(*(2 * [he2019.reduction_study(pt4)]))),
        "he2019.configurations": lambda: call(),
        "he2019.weekly_study": lambda: call(pt4, replicates=5, rng=0),
        "he2019.reduction_study": lambda: call(pt4, hours=(24, 168)),
        "he2019.reduction_summary": lambda: call(*_he_tables(), portion=1.0),
        "he2019.table4_comparison": lambda: call(*_he_tables()[1:]),
        "he2019.short_interval_check": lambda: call(pt4[0], 24.0),
        "he2019.baseline_study": lambda: call(pt4, periods_hours=[1], spans_hours=[6], replicates=10, rng=0),
        "he2019.sota_comparison": lambda: call(_he_tables()[0], _he_baselines()),
        "he2019.azure_weeks": lambda: call(["azure-redis-get-long"]),
        "he2019.accuracy_diagnosis": lambda: call(_he_tables()[0], draws=2, rng=0),
        "kolaczkowski.standard_error_trap": lambda: call(["azure-redis-get-long"], batches=10),
        "maricq2018.cov_summary": lambda: call(_survey()),
        "maricq2018.NormalityTests.shares": lambda: call(result_of("maricq2018.figure3_normality")),
        "maricq2018.figure3_normality": lambda: call(window=500, rng=0),
        "maricq2018.figure4_stationarity": lambda: call(_survey()),
        "maricq2018.warmup_table": lambda: call(_survey()),
        "maricq2018.order_table": lambda: call(_survey()),
        "maricq2018.median_ci_index_table": lambda: call((7, 10, 100)),
        "maricq2018.series_values": lambda: call("pt4cloud-AWS-EP-L", "ground_truth"),
        "maricq2018.figure5_convergence": lambda: call(
            [("pt4cloud-AWS-EP-L", "ground_truth")], trials=5, max_size=50, rng=0
        ),
        "maricq2018.figure6_cov_vs_repetitions": lambda: call(min_runs=3000, trials=3, max_size=30, rng=0),
        "maricq2018.table4_degraded_server": lambda: call(AZURE, runs_per_host=40, trials=5, rng=0),
        "maricq2018.figure7_cwb": lambda: call(metrics=CWB_METRICS, permutations=9, max_remove=1, rng=0),
        "maricq2018.degraded_copy_ranking": lambda: call(AZURE, permutations=19, rng=0),
        "public_data.series_keys": lambda: call("sap-hana-0016", _sap()),
        "public_data.iter_series": lambda: call(["sap-hana-0016"]),
        "public_data.survey_datasets": lambda: call(["sap-hana-0016"], permutations=9, rng=0),
        "shivam2008.figure3": lambda: call(SimulatedServer(), search=SEARCH, rng=0),
        "shivam2008.figure6": lambda: call(
            SimulatedServer(),
            load_factors=[0.5],
            runlengths=[60],
            repeats=2,
            target_accuracy=0.1,
            confidence=0.95,
            rng=0,
        ),  # fmt: skip
        "shivam2008.calibration": lambda: call(SimulatedServer(), searches=2, search=SEARCH, rng=0),
        "shivam2008.growth": lambda: call(scales=[1], policies=["binsearch"], search=SEARCH, rng=0),
        "shivam2008.policy_traces": lambda: call(
            SimulatedServer(), SimulatedServer(daemons=12), policies=["binsearch"], search=SEARCH, rng=0
        ),
        "shivam2008.surface_costs": lambda: call(GRID.head(2), policies=["binsearch"], repeats=1, search=SEARCH, rng=0),
        "shivam2008.figure9": lambda: call(GRID.head(2), confidences=[0.9], accuracies=[0.1], search=SEARCH, rng=0),
        "shivam2008.figure10": lambda: call(GRID.head(2), widths=[0.1], policies=["binsearch"], search=SEARCH, rng=0),
        "shivam2008.table4": lambda: call(GRID, sizes=[6], search=SEARCH, rng=0),
        "versions.aa_pairs": lambda: call(clusters=4, azure=("azure-redis-get-long",), max_pairs_per_series=2),
        "versions.aa_calibration": lambda: call(
            _synthetic_pairs(), slowdowns=(0.0, 0.05), methods=("perfstudy", "iid bootstrap"), replicates=199, rng=0
        ),
    }
    return calls


@functools.cache
def _he_tables():
    from perfstudy.studies import he2019

    pt4 = ["pt4cloud-AWS-EP-L"]
    weekly = he2019.weekly_study(pt4, replicates=5, rng=0)
    reduced = he2019.reduction_study(pt4, hours=(24, 168))
    sampled = he2019.reduction_study(pt4, hours=(24, 168), portion=0.5)
    return weekly, reduced, sampled


@functools.cache
def _he_baselines():
    from perfstudy.studies import he2019

    return he2019.baseline_study(["pt4cloud-AWS-EP-L"], periods_hours=[1], spans_hours=[6], replicates=10, rng=0)


@functools.cache
def _survey():
    from perfstudy.studies.public_data import survey_datasets

    return survey_datasets(["sap-hana-0016", "pt4cloud-AWS-EP-L"], permutations=9, rng=0)


def _fresh_folder():
    """A folder that does not exist yet, for a repository to be built in."""
    import tempfile

    return pathlib.Path(tempfile.mkdtemp(prefix="perfstudy-test-")) / "repo"


@functools.cache
def _short_history():
    from support.studies import SMALL_SHORT_HISTORY

    from perfstudy.studies.bisecting import short_history_trial

    return short_history_trial(**SMALL_SHORT_HISTORY)


@functools.cache
def _sap():
    from perfstudy.io.datasets import load

    return load("sap-hana-0016")


STUDY_NAMES = sorted(
    name.removeprefix(STUDIES)
    for name, obj in CALLABLES.items()
    if name.startswith(STUDIES) and not inspect.isclass(obj) and not _is_figure(name)
)


def test_every_study_callable_has_a_valid_call():
    missing = [name for name in STUDY_NAMES if name not in _study_valid()]
    assert not missing, f"add a small valid call to _study_valid for {missing}"


@pytest.mark.parametrize("name", STUDY_NAMES)
def test_study_arguments_are_refused_by_name(name):
    from support.studies import _have_data

    if not _have_data():
        pytest.skip("real datasets unavailable ($PERFSTUDY_DATA, cache)")
    fn = _resolve(f"studies.{name}")
    args, kwargs = _study_valid()[name]()
    cases = [c for c in _cases(fn, args, kwargs) if c[0].invalid]
    if not cases:
        return
    outcomes = run_forked([(fn, a, k) for _, a, k in cases], timeout=60)
    failures = [
        f"{case.param}={case.label}: {problem}"
        for (case, _, _), outcome in zip(cases, outcomes)
        if (problem := verdict(case, outcome, 0))
    ]
    if failures and os.environ.get("BAD_INPUT_REPORT"):
        with open(os.environ["BAD_INPUT_REPORT"], "a") as handle:
            handle.writelines(f"studies.{name} | {line}\n" for line in failures)
    assert not failures, f"studies.{name}: {len(failures)} of {len(cases)} cases\n  " + "\n  ".join(failures)
