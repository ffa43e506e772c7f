"""The result protocol (perfstudy/_result.py) on every public result class.

Each frozen dataclass of the public API inherits ``Result``; ``to_frame()`` with no arguments is a
DataFrame, ``summary()`` names the class and lists its scalars, ``_repr_html_()`` is the same for
JupyterLab. Instances come from the library's own small calls (studies' results from their fields).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support.studies import SMALL_SHORT_HISTORY, small_ci_trial, small_layout_trial, small_runs
from support.walk import MODULES, home

from perfstudy import PERFLAB_ENDPOINTS
from perfstudy._lib.result import Result

E1 = PERFLAB_ENDPOINTS[1]
X = np.random.default_rng(0).lognormal(2.0, 0.1, 300)


def _classes():
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.isclass(obj) and dataclasses.is_dataclass(obj) and home(obj, module_name) == module_name:
                yield f"{module_name.removeprefix('perfstudy.')}.{name}", obj


CLASSES = dict(_classes())


def _run_file():
    import tempfile

    from perfstudy.experiment import read_run, run

    out = Path(tempfile.mkdtemp()) / "runs.csv"
    run("true", "true", values=1, warmup=0, min_rounds=2, max_rounds=2, out=out, progress=False, shell=False)
    return read_run(out)


def _batch():
    from perfstudy.experiment.batches import Batch

    return Batch(version="A", command=("true",), round=0, position=0, values=2, warmup=0)


def _run_frame():
    rng = np.random.default_rng(2)
    return pd.DataFrame(
        [
            dict(version=v, round=r, value=rng.lognormal(0, 0.05), exit_status=0, host="h", start=r, end=r + 0.5)
            for r in range(6)
            for v in ("A", "B")
        ]
    )


def _hosts():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"host": np.repeat(list("abcdef"), 40), "value": rng.normal(10, 1, 240)})
    frame.loc[frame.host == "f", "value"] += 3  # one unrepresentative server, so the elimination has a curve
    return frame


def _versions():
    rng = np.random.default_rng(2)
    return pd.DataFrame(
        {
            "benchmark": "b",
            "version": np.repeat([0, 1], 60),
            "batch": np.tile(np.repeat(np.arange(6), 10), 2),
            "value": rng.lognormal(0, 0.05, 120),
        }
    )


def _pilot():
    from perfstudy import fit_variance_components, pilot_schedule, simulate

    sim = simulate(pilot_schedule(requests=20, hosts=4, batches=2), E1, experiments=1, rng=0)
    return fit_variance_components(sim.to_frame())


def _make(name):  # noqa: C901 - one branch a class, read as a table
    from perfstudy import analysis as analyze
    from perfstudy.capacity import peak_search, response_surface, server_model as simulated_server
    from perfstudy.comparison import _compare as compare
    from perfstudy.design import (
        bootstrap,
        model,
        schedules,
        simulated_errors as sweeps,
        standard_errors as designs,
        type1_errors as type1,
    )
    from perfstudy.diagnostics import adf, hosts as servers, repetitions as confirm, variability as diagnostics
    from perfstudy.io import datasets
    from perfstudy.stability import pt4cloud, stopping_rules as baselines
    from perfstudy.studies import running

    costs = designs.CostModel(setup=600.0, request=2.0, repetition=0.5, host=60.0)
    search = dict(target_accuracy=0.1, runlength=120.0, max_trials=20)
    table = {
        "diagnostics.adf.ADFResult": lambda: adf.adf(X),
        "analysis.AnalyzeSettings": lambda: analyze.AnalyzeSettings(threshold="5%", block="round", sequential="sign"),
        "analysis.Analysis": lambda: analyze.analyze(_versions(), rng=0, replicates=99),
        "stability.stopping_rules.StoppingResult": lambda: baselines.sota1(X, period=20, span=60),
        "design.bootstrap.BootstrapResult": lambda: bootstrap.clustered_bootstrap(
            X[:40], np.tile([0, 1], 20), np.repeat(np.arange(8), 5), replicates=50, rng=0
        ),
        "comparison.Comparison": lambda: compare.compare(_versions(), rng=0, replicates=99),
        "comparison.Report": lambda: compare.compare(_versions(), rng=0, replicates=99).report(),
        "changes.History": lambda: __import__("perfstudy.changes").changes.history(
            pd.DataFrame({"commit": np.arange(30), "value": np.r_[np.ones(15), np.full(15, 2.0)]}), benchmark=None
        ),
        "comparison.settings.CompareSettings": lambda: importlib.import_module("perfstudy.comparison").CompareSettings(
            threshold="2%"
        ),
        "changes.HistorySettings": lambda: importlib.import_module("perfstudy.changes").HistorySettings(threshold="2%"),
        "experiment.bisect_settings.BisectSettings": lambda: importlib.import_module(
            "perfstudy.experiment.bisect_settings"
        ).BisectSettings(threshold="10%", max_time="1m"),
        "experiment.settings.RunSettings": lambda: importlib.import_module("perfstudy.experiment").RunSettings(
            values=5
        ),
        "io.harnesses.Harness": lambda: __import__("perfstudy.io.harnesses").io.harnesses.HARNESSES["go"],
        "io.columns.FileColumns": lambda: __import__("perfstudy.io.columns").io.columns._measured_rows(
            [dict(benchmark="b", batch=0, iteration=0, warmup=False, value=1.0, unit="s")], [], {"tool": "hyperfine"}
        ),
        "diagnostics.repetitions.MedianCI": lambda: confirm.median_ci(X),
        "diagnostics.repetitions.Repetitions": lambda: confirm.repetitions_needed(X, trials=5, rng=0),
        "io.datasets.Dataset": lambda: datasets.registry()["sap-hana-0016"],
        "design.standard_errors.DuplicationCoefficients": lambda: designs.duplication_coefficients(
            schedules.schedule("fully_balanced", requests=8, hosts=4)
        ),
        "design.standard_errors.CostModel": lambda: costs,
        "design.standard_errors.Allocation": lambda: designs.optimal_allocation(E1, costs, target_se=0.1)[
            "fully_balanced"
        ],
        "design.standard_errors.AllocationResult": lambda: designs.optimal_allocation(E1, costs, target_se=0.1),
        "design.standard_errors.DesignComparison": lambda: designs.compare_designs(E1, requests=8, hosts=4),
        "diagnostics.variability.AutocorrelationSE": lambda: diagnostics.autocorrelation_se(X),
        "diagnostics.variability.BatchMeans": lambda: diagnostics.batch_means(X),
        "diagnostics.variability.IndependenceTest": lambda: diagnostics.independence_test(X, permutations=99, rng=0),
        "diagnostics.variability.Warmup": lambda: diagnostics.warmup(X),
        "design.estimate.VarianceFit": _pilot,
        "design.estimate.FitIntervals": lambda: _pilot().confidence_interval(method="profile"),
        "design.model.VarianceComponents": lambda: E1,
        "design.model.DrawnEffects": lambda: model.simulate("fully_balanced", E1, requests=8, hosts=4, rng=0).effects,
        "design.model.Simulation": lambda: model.simulate("fully_balanced", E1, requests=8, hosts=4, rng=0),
        "stability.pt4cloud.Divergence": lambda: pt4cloud.divergence(X[:150], X[150:]),
        "stability.pt4cloud.ConfidenceBand": lambda: pt4cloud.confidence_band(X, replicates=20, rng=0),
        "stability.pt4cloud.PT4CloudResult": lambda: pt4cloud.pt4cloud(
            [X[:100], X[100:200], X[200:]], replicates=20, rng=0
        ),
        "stability.pt4cloud.ShortIntervalResult": lambda: pt4cloud.pt4cloud_short(X, interval_lengths=[50, 100]),
        "notebook.report.NotebookRun": lambda: importlib.import_module("perfstudy.notebook.report").NotebookRun(
            "01_x", "ok", 1.5, Path("build/01_x.ipynb"), None, None
        ),
        "experiment.batches.Batch": lambda: _batch(),
        "experiment.bisection.Bisection": lambda: importlib.import_module("perfstudy.experiment.bisection").Bisection(
            culprit="c5",
            range=("c5", "c5"),
            steps=(
                {
                    "commit": "c9",
                    "index": 9,
                    "verdict": "slower",
                    "change": 0.2,
                    "low": 0.1,
                    "high": 0.3,
                    "rounds": 12,
                    "seconds": 1.5,
                    "stopped": "decided",
                    "failure": "",
                    "meaning": "at or before",
                },
            ),
            skipped=(),
            confidence=0.95,
            step_confidence=0.99,
            max_steps=5,
            direction="slower",
            stopped="found",
            seconds=1.5,
        ),
        "experiment.batches.BatchResult": lambda: importlib.import_module("perfstudy.experiment.batches").time_batch(
            _batch()
        ),
        "experiment.plan.RoundPlan": lambda: importlib.import_module("perfstudy.experiment.plan").plan_rounds(
            _run_frame(), threshold=0.05
        ),
        "experiment.RunResult": lambda: importlib.import_module("perfstudy.experiment._run").run(
            "true", "true", values=1, warmup=0, min_rounds=3, max_rounds=3, progress=False
        ),
        "experiment.RunFile": lambda: _run_file(),
        "comparison.sign_sequence.SignSequence": lambda: importlib.import_module(
            "perfstudy.comparison.sign_sequence"
        ).sign_confidence_sequence(X[:20]),
        "comparison.sequential.ConfidenceSequence": lambda: importlib.import_module(
            "perfstudy.comparison.sequential"
        ).t_confidence_sequence(X[:20]),
        "studies.running.PowerAndCost": lambda: running.power_and_cost(experiments=20, max_rounds=20, rng=0),
        "studies.running.RoundModel": lambda: running.RoundModel(),
        "studies.running.ContentionModel": lambda: running.ContentionModel(),
        "studies.running.RulesUnderContention": lambda: running.rules_under_contention(
            changes=(0.0,), experiments=20, max_rounds=20, rng=0
        ),
        "studies.history_validation.Scores": lambda: __import__(
            "perfstudy.studies.history_validation"
        ).studies.history_validation.false_alarms(3, 40, noises=("normal",), rng=0),
        "studies.running.StoppingCalibration": lambda: running.calibration(experiments=20, rounds=20, rng=0),
        "experiment.parameters.ParameterRuns": lambda: importlib.import_module(
            "perfstudy.experiment.parameters"
        ).run_parameters(
            "sleep 0.00{x}", "x", ["1", "2"], values=1, warmup=0, min_rounds=2, max_rounds=2, progress=False
        ),
        "studies.bisecting.ShortHistoryTrial": lambda: importlib.import_module(
            "perfstudy.studies.bisecting"
        ).short_history_trial(**SMALL_SHORT_HISTORY),
        "studies.ci_trial.GoSuite": lambda: importlib.import_module("perfstudy.studies.ci_trial").go_suite(
            tempfile.mkdtemp(prefix="perfstudy-test-suite-"), pull_requests=1, rng=0
        ),
        "studies.ci_trial.CITrial": lambda: small_ci_trial(),
        "studies.layout.LayoutTrial": lambda: small_layout_trial(),
        "studies.layout.Runs": lambda: small_runs(),
        "studies.running.ToggledTrial": lambda: running.toggled_trial(
            1000, changes=(0.5,), seconds=0.5, threshold=0.05
        ),
        "design.schedules.Schedule": lambda: schedules.schedule("fully_balanced", requests=8, hosts=4),
        "diagnostics.hosts.MMDTest": lambda: servers.mmd_test(X[:50], X[50:100], permutations=49, rng=0),
        "diagnostics.hosts.Elimination": lambda: servers.eliminate_unrepresentative(_hosts(), permutations=99, rng=0),
        "diagnostics.diagnosis.SeriesDiagnosis": lambda: importlib.import_module(
            "perfstudy.diagnostics.diagnosis"
        ).diagnose_series(X, permutations=99, rng=0),
        "design.simulated_errors.SweepResult": lambda: sweeps.standard_error_sweep(
            E1, hosts=(4,), requests=(8,), experiments=20, rng=0
        ),
        "design.type1_errors.AATests": lambda: type1.aa_tests(
            "fully_balanced", E1, requests=8, hosts=4, experiments=3, replicates=9, rng=0
        ),
        "capacity.server_model.SimulatedServer": lambda: simulated_server.SimulatedServer(),
        "capacity.peak_search.PeakSearch": lambda: peak_search.find_peak_rate(
            simulated_server.SimulatedServer(), rng=0, **search
        ),
        "capacity.response_surface.Surface": lambda: response_surface.map_response_surface(
            pd.DataFrame({"disks": [1, 2], "daemons": [4, 4]}), rng=0, **search
        ),
        "capacity.response_surface.QuadraticSurface": lambda: response_surface.fit_quadratic_surface(
            pd.DataFrame({"disks": [1, 2, 3, 1, 2, 3, 2], "daemons": [2, 2, 2, 4, 4, 4, 6]}),
            np.array([10.0, 14, 16, 12, 17, 20, 18]),
        ),
    }
    return table[name]() if name in table else _study(name)


def _study(name):
    from perfstudy.studies import (
        bakshy2015,
        bakshy2015_real,
        he2019,
        maricq2018,
        public_data,
        shivam2008,
        table3_readings,
    )

    frame = pd.DataFrame({"design": ["a", "b"], "se": [0.1, 0.2]})
    table = {
        "studies.bakshy2015.DeltaHatDensities": lambda: bakshy2015.DeltaHatDensities({"a": X}, {"a": 0.1}, frame),
        "studies.bakshy2015.BootstrapAgainstTruth": lambda: bakshy2015.BootstrapAgainstTruth(
            X, 0.1, {"iid": X}, {"true_sd": 0.2}
        ),
        "studies.bakshy2015.RankedAATests": lambda: bakshy2015.RankedAATests({}, frame),
        "studies.bakshy2015.OriginCheck": lambda: bakshy2015.OriginCheck(frame, 0.0, 1.0, 200),
        "report_inputs.ReportInputs": lambda: importlib.import_module("perfstudy.report_inputs").report_inputs([]),
        "studies.bakshy2015_real.PilotBudget": lambda: bakshy2015_real.PilotBudget(frame, frame, None, 0.05),
        "studies.he2019.Configuration": lambda: he2019.Configuration("c", "b", "m", X, X),
        "studies.maricq2018.NormalityTests": lambda: maricq2018.NormalityTests(
            frame.assign(family="f"), frame.assign(family="g"), 1, 2
        ),
        "studies.maricq2018.DegradedCopyRanking": lambda: maricq2018.DegradedCopyRanking(frame, frame, "h", 3, 1, None),
        "studies.bakshy2015_real.RealAATests": lambda: bakshy2015_real.RealAATests(frame, frame),
        "studies.maricq2018.ConvergenceCurves": lambda: maricq2018.ConvergenceCurves({}, frame),
        "studies.maricq2018.RepetitionsAgainstCoV": lambda: maricq2018.RepetitionsAgainstCoV(frame, {"series": 2}),
        "studies.he2019.SotaComparison": lambda: he2019.SotaComparison(frame, {"pt4cloud": 0.9}),
        "studies.shivam2008.StrawmanAgainstBinsearch": lambda: shivam2008.StrawmanAgainstBinsearch({"hours": 1.0}, {}),
        "studies.shivam2008.RunlengthSweep": lambda: shivam2008.RunlengthSweep(frame, frame),
        "studies.public_data.Series": lambda: public_data.Series("f", "d", {"host": "h1"}, X),
        "studies.table3_readings.DigitEvidence": lambda: table3_readings.DigitEvidence(2, 3, {500: 1.0}, frame),
    }
    return table[name]()


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_every_result_follows_the_protocol(name):
    cls = CLASSES[name]
    assert issubclass(cls, Result), f"{name} does not inherit perfstudy._lib.result.Result"
    assert cls.__dataclass_params__.frozen, f"{name} is not frozen"
    result = _make(name)
    assert isinstance(result, cls)
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame.columns) > 0
    text = result.summary()
    assert text.startswith(cls.__name__ + ":") or text.startswith(cls.__name__ + "\n") or text == cls.__name__
    html = result._repr_html_()
    overridden = type(result)._repr_html_ is not Result._repr_html_  # a class that renders itself its own way
    assert f"<strong>{cls.__name__}" in html or (overridden and html.startswith("<"))


def test_summary_lists_scalars_and_the_table():
    from perfstudy.diagnostics.hosts import eliminate_unrepresentative

    test = importlib.import_module("perfstudy.diagnostics.repetitions").median_ci(np.arange(1.0, 102.0))
    text = test.summary()
    assert "median" in text and "51" in text and "method" in text  # scalars one per line, 4 significant digits
    assert "<table>" in test._repr_html_() and "dataframe" not in test._repr_html_()  # the row is not repeated
    elimination = eliminate_unrepresentative(_hosts(), permutations=99, rng=0)
    assert "round" in elimination.summary()  # its table (the curve) follows the scalars
    assert 'class="dataframe"' in elimination._repr_html_()


def test_to_frame_of_a_table_result_is_a_copy():
    from perfstudy.diagnostics.hosts import eliminate_unrepresentative

    elimination = eliminate_unrepresentative(_hosts(), permutations=99, rng=0)
    frame = elimination.to_frame()
    assert len(frame) > 0
    frame["statistic"] = 0.0
    assert (elimination.curve["statistic"] > 0).all()
