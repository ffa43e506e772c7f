"""One name per concept (DESIGN.md, "Vocabulary"), checked on every public callable.

Walks every module of the package (``__all__``, and the public methods of public classes) and fails
on: a public name missing from its module's ``__all__``; a parameter named ``level`` (coverage is
``confidence``); a result field named for a synonym of the vocabulary; an ``rng`` that is positional,
required, or not defaulting to None; a public function without a numpydoc Parameters section that
names each parameter. Each callable with an ``rng`` is also called with ``rng=None`` and ``rng=0``
(see ``RNG_CALLS``), so a function that rejects either fails here.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
import tempfile

import numpy as np
import pandas as pd
import pytest
from support.studies import STUDY_CALLS, study_call
from support.walk import CALLABLES, MODULES

#: names a parameter or result field must not have, with the vocabulary's name
SYNONYMS = {
    "level": "confidence",
    "ci_low": "low",
    "ci_high": "high",
    "lower": "low",
    "upper": "high",
    "mmd2": "statistic",
    "vm": "host",
    "alpha_level": "alpha",
    "n_boot": "replicates",
    "n_permutations": "permutations",
}


def _signature(obj):
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return None


@pytest.mark.parametrize("module_name", MODULES)
def test_every_public_name_is_in_all(module_name):
    module = importlib.import_module(module_name)
    assert hasattr(module, "__all__"), f"{module_name} has no __all__"
    defined = {
        name
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and getattr(obj, "__module__", None) == module_name
    }
    missing = sorted(defined - set(module.__all__))
    assert not missing, f"{module_name}: public but not in __all__: {missing}"
    absent = sorted(n for n in module.__all__ if not hasattr(module, n))
    assert not absent, f"{module_name}: __all__ names what the module lacks: {absent}"


def test_the_walk_sees_the_package():
    # a walk that found nothing would pass every test below
    assert len(MODULES) >= 25 and len(CALLABLES) >= 150
    assert "perfstudy.design.type1_errors.segment_aa_study" in CALLABLES
    assert "perfstudy.design.bootstrap.BootstrapResult.confidence_interval" in CALLABLES


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_parameter_names(name):
    signature = _signature(CALLABLES[name])
    if signature is None:
        return
    wrong = {p: SYNONYMS[p] for p in signature.parameters if p in SYNONYMS}
    assert not wrong, f"{name}: parameter(s) {wrong} (name: vocabulary name)"
    rng = signature.parameters.get("rng")
    if rng is not None:
        assert rng.kind is inspect.Parameter.KEYWORD_ONLY, f"{name}: rng must be keyword-only"
        assert rng.default is None, f"{name}: rng must default to None"


@pytest.mark.parametrize("name", sorted(n for n, obj in CALLABLES.items() if dataclasses.is_dataclass(obj)))
def test_result_field_names(name):
    fields = {f.name for f in dataclasses.fields(CALLABLES[name])}
    wrong = {f: SYNONYMS[f] for f in fields if f in SYNONYMS}
    assert not wrong, f"{name}: field(s) {wrong} (name: vocabulary name)"
    # a result with a p-value is a test result: statistic, p_value, reject together
    if "p_value" in fields and "p_values" not in fields:
        assert {"statistic", "reject"} <= fields, f"{name}: a test result carries statistic, p_value and reject"


def _documented_parameters(obj, section: str = "Parameters") -> set[str] | None:
    doc = inspect.getdoc(obj) or ""
    match = re.search(rf"^{section}\n-{{3,}}\n(.*?)(?:^\w[\w ]*\n-{{3,}}\n|\Z)", doc, flags=re.S | re.M)
    if not match:
        return None
    names = set()
    for line in match.group(1).splitlines():
        head = re.match(r"^([*\w][\w, *]*?)(?:\s*:.*)?$", line)
        if head and not line.startswith(" "):
            names.update(part.strip().lstrip("*") for part in head.group(1).split(","))
    return names


def _parameters(obj) -> list[str]:
    signature = _signature(obj)
    if signature is None:
        return []
    return [p for p in signature.parameters if p not in ("self", "cls")]


@pytest.mark.parametrize("name", sorted(n for n, obj in CALLABLES.items() if _parameters(obj)))
def test_numpydoc_parameters_section(name):
    obj = CALLABLES[name]
    if inspect.isclass(obj) and dataclasses.is_dataclass(obj):
        # a result documents its fields under Attributes (or Parameters, when users build it)
        documented = _documented_parameters(obj, "Attributes") or _documented_parameters(obj) or set()
        missing = [f.name for f in dataclasses.fields(obj) if f.name not in documented]
        assert not missing, f"{name}: no Attributes entry for {missing}"
        return
    documented = _documented_parameters(obj)
    assert documented is not None, f"{name}: no numpydoc Parameters section"
    missing = [p for p in _parameters(obj) if p not in documented]
    assert not missing, f"{name}: Parameters section does not name {missing}"


def test_the_docstring_parser_reads_sections():
    # the parser above must see names and stop at the next section, or the test above proves nothing
    def f(a, b, *c, d=1):
        """Summary.

        Parameters
        ----------
        a, b : int
        *c
            More.

        Returns
        -------
        d : int
        """

    assert _documented_parameters(f) == {"a", "b", "c"}
    assert _documented_parameters(f, "Attributes") is None


def _sample(rng=0, n=200):
    return np.random.default_rng(rng).normal(10, 1, n)


def _frame():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"host": np.repeat(["a", "b", "c"], 30), "value": rng.normal(10, 1, 90), "benchmark": "x"})


def _files_report(rng):
    """compare_files on two small Go files (20 lines a side): its rows as a frame."""
    import tempfile
    from pathlib import Path

    from perfstudy.comparison import compare_files

    folder = Path(tempfile.mkdtemp())
    values = np.random.default_rng(0).lognormal(7, 0.02, 40)
    for side, name in enumerate(("a.txt", "b.txt")):
        (folder / name).write_text(
            "".join(f"BenchmarkX 100 {v:.3f} ns/op\n" for v in values[20 * side : 20 * side + 20])
        )
    return compare_files(folder / "a.txt", folder / "b.txt", labels=("a", "b"), rng=rng).to_frame()


def _rng_calls():
    """One small valid call per public callable that takes ``rng``, as ``fn(rng) -> result``."""
    from perfstudy import analysis as analyze
    from perfstudy._lib import parallel
    from perfstudy.capacity import peak_search, response_surface, server_model as simulated_server
    from perfstudy.comparison import _compare as compare
    from perfstudy.design import (
        bootstrap,
        estimate,
        model,
        schedules,
        simulated_errors as sweeps,
        type1_errors as type1,
    )
    from perfstudy.diagnostics import (
        diagnosis as survey,
        hosts as servers,
        repetitions as confirm,
        variability as diagnostics,
    )
    from perfstudy.stability import kde, pt4cloud, stopping_rules as baselines
    from perfstudy.studies import running

    components = model.PERFLAB_ENDPOINTS[1]
    x = _sample()
    grid = kde.strip_grid(x, strips=50)
    server = simulated_server.SimulatedServer()
    points = pd.DataFrame({"disks": [1, 1, 1, 2, 2, 2, 3, 3, 3], "daemons": [2, 4, 8] * 3})
    return {
        "perfstudy.design.model.simulate": lambda r: model.simulate(
            "fully_balanced", components, requests=8, hosts=2, rng=r
        ),
        "perfstudy.design.model.sample_delta_hat": lambda r: model.sample_delta_hat(
            "unbalanced", components, requests=8, hosts=2, rng=r
        ),
        "perfstudy.design.bootstrap.clustered_bootstrap": lambda r: bootstrap.clustered_bootstrap(
            x[:20], np.repeat([0, 1], 10), replicates=10, rng=r
        ),
        "perfstudy.design.bootstrap.clustered_bootstraps": lambda r: bootstrap.clustered_bootstraps(
            x[:20], np.repeat([0, 1], 10), replicates=10, rng=r
        ),
        "perfstudy.design.type1_errors.type1_error_table": lambda r: type1.type1_error_table(
            requests=8, hosts=2, experiments=4, replicates=4, rows=[("unbalanced", "iid")], rng=r
        ),
        "perfstudy.design.type1_errors.type1_error_tables": lambda r: type1.type1_error_tables(
            requests=8, hosts=2, experiments=4, replicates=4, rows=[("unbalanced", "iid")], rng=r
        ),
        "perfstudy.design.type1_errors.segment_aa_study": lambda r: type1.segment_aa_study(
            x, segments=2, segment_length=10, experiments=4, replicates=4, rng=r
        ),
        "perfstudy.design.simulated_errors.standard_error_sweep": lambda r: sweeps.standard_error_sweep(
            components, designs=["unbalanced"], hosts=[2], requests=[8], experiments=4, rng=r
        ),
        "perfstudy._lib.parallel.spawn": lambda r: parallel.spawn(2, rng=r),
        "perfstudy._lib.parallel.twin_streams": lambda r: [
            np.random.default_rng(s).random(2) for s in parallel.twin_streams(2, rng=r)
        ],
        "perfstudy._lib.parallel.map_tasks": lambda r: parallel.map_tasks(lambda t, g: g.random(), [1, 2], rng=r),
        "perfstudy.diagnostics.variability.normality": lambda r: diagnostics.normality(_frame(), by="host", rng=r),
        "perfstudy.diagnostics.variability.independence_test": lambda r: diagnostics.independence_test(
            x, permutations=9, rng=r
        ),
        "perfstudy.diagnostics.diagnosis.diagnose": lambda r: survey.diagnose(_frame(), "host", permutations=9, rng=r),
        "perfstudy.diagnostics.diagnosis.diagnose_series": lambda r: survey.diagnose_series(x, permutations=9, rng=r),
        "perfstudy.stability.kde.bootstrap_densities": lambda r: kde.bootstrap_densities(
            x, grid, kde.scott_bandwidth(x), replicates=3, rng=r
        ),
        "perfstudy.stability.pt4cloud.confidence_band": lambda r: pt4cloud.confidence_band(
            x, replicates=5, strips=50, rng=r
        ),
        "perfstudy.stability.pt4cloud.pt4cloud": lambda r: pt4cloud.pt4cloud(
            [x[:100], x[100:]], replicates=5, strips=50, rng=r
        ),
        "perfstudy.stability.stopping_rules.sota2": lambda r: baselines.sota2(x, step=100, replicates=10, rng=r),
        "perfstudy.diagnostics.repetitions.repetitions_needed": lambda r: confirm.repetitions_needed(
            x, trials=5, rng=r
        ),
        "perfstudy.diagnostics.hosts.mmd_test": lambda r: servers.mmd_test(x[:20], x[20:40], permutations=9, rng=r),
        "perfstudy.diagnostics.hosts.rank_hosts": lambda r: servers.rank_hosts(_frame(), permutations=9, rng=r),
        "perfstudy.diagnostics.hosts.eliminate_unrepresentative": lambda r: servers.eliminate_unrepresentative(
            _frame(), permutations=9, max_remove=1, rng=r
        ),
        "perfstudy.capacity.server_model.SimulatedServer.run": lambda r: server.run(50.0, 60.0, trials=2, rng=r),
        "perfstudy.capacity.peak_search.find_peak_rate": lambda r: peak_search.find_peak_rate(server, rng=r),
        "perfstudy.capacity.peak_search.trials_needed": lambda r: peak_search.trials_needed(
            server, load=100.0, runlength=60.0, rng=r
        ),
        "perfstudy.capacity.response_surface.map_response_surface": lambda r: response_surface.map_response_surface(
            points.head(2), rng=r
        ),
        "perfstudy.capacity.response_surface.d_optimal": lambda r: response_surface.d_optimal(
            points, 6, starts=2, rng=r
        ),
        "perfstudy.design.schedules.pilot_schedule": lambda r: schedules.pilot_schedule(8, 3, rng=r).host,
        "perfstudy.analysis.demo_runs": lambda r: analyze.demo_runs(processes=3, values=4, rng=r)[1].value,
        "perfstudy.report_inputs.report_inputs": lambda r: (
            importlib.import_module("perfstudy.report_inputs").report_inputs([], rng=r).frame.value
        ),
        "perfstudy.analysis.analyze": lambda r: analyze.analyze(
            pd.concat([f.assign(version=i) for i, f in enumerate(analyze.demo_runs(processes=4, values=12, rng=0))]),
            permutations=19,
            replicates=99,
            rng=r,
        ).table.drop(columns="notes"),
        "perfstudy.studies.ci_trial.go_suite": lambda r: (
            __import__("perfstudy.studies.ci_trial")
            .studies.ci_trial.go_suite(tempfile.mkdtemp(prefix="perfstudy-test-suite-"), pull_requests=2, rng=r)
            .planted
        ),
        "perfstudy.studies.running.calibration": lambda r: running.calibration(experiments=20, rounds=10, rng=r).table,
        "perfstudy.studies.running.rules_under_contention": lambda r: (
            running.rules_under_contention(changes=(0.0, 0.05), experiments=20, max_rounds=20, rng=r).table
        ),
        "perfstudy.studies.running.simulate_contended_rounds": lambda r: running.simulate_contended_rounds(
            running.ContentionModel(), 4, 10, rng=r
        ),
        "perfstudy.studies.running.power_and_cost": lambda r: (
            running.power_and_cost(changes=(0.1,), experiments=20, max_rounds=10, rng=r).table
        ),
        "perfstudy.studies.running.simulate_round_ratios": lambda r: running.simulate_round_ratios(
            running.RoundModel(), 3, 5, rng=r
        ),
        "perfstudy.comparison.compare_files": lambda r: _files_report(r),
        "perfstudy.comparison.compare": lambda r: (
            compare.compare(
                pd.DataFrame(
                    {
                        "version": np.repeat([0, 1], 60),
                        "batch": np.repeat(np.arange(24), 5),
                        "value": np.random.default_rng(0).lognormal(0, 0.1, 120),
                    }
                ),
                replicates=99,
                rng=r,
            ).table
        ),
        "perfstudy.design.estimate.VarianceFit.confidence_interval": lambda r: estimate.fit_variance_components(
            _frame().assign(batch=np.tile([0, 1, 2], 30)), random=("host", "batch"), fixed=()
        ).confidence_interval(replicates=4, rng=r),
    }


def test_every_rng_callable_has_a_call():
    with_rng = sorted(n for n, obj in CALLABLES.items() if "rng" in _parameters(obj))
    missing = [n for n in with_rng if n not in _rng_calls() and n not in STUDY_CALLS]
    assert not missing, f"add a small call to _rng_calls (or STUDY_CALLS in tests/support/studies.py) for {missing}"


#: over 3 s on 2 cores: run by make test, left out of make test-fast
SLOW_RNG = ("perfstudy.studies.he2019.accuracy_diagnosis", "perfstudy.studies.maricq2018.figure3_normality")


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.slow) if n in SLOW_RNG else n
        for n in sorted(n for n, obj in CALLABLES.items() if "rng" in _parameters(obj))
    ],
)
def test_rng_accepts_none_and_int(name):
    call = _rng_calls().get(name) or (study_call(name) if name in STUDY_CALLS else None)
    if call is None:
        pytest.fail(f"{name}: no entry in _rng_calls")
    call(None)
    first, again = call(0), call(0)
    assert _same(first, again), f"{name}: rng=0 twice gave different results"


def _same(a, b) -> bool:
    if dataclasses.is_dataclass(a):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, pd.DataFrame):
        return a.equals(b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.random.Generator):
        return a.bit_generator.state == b.bit_generator.state
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    try:
        return bool(a == b) or (a != a and b != b)
    except (TypeError, ValueError):
        return True  # an object without equality (a Schedule): compared through its parent's other fields
