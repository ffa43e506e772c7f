"""Each notebook's quick run, once per test session: the papermill tests read its record and outputs, and the
browser tests open the same executed notebook in JupyterLab. A run is started ahead of the first test that waits on
it (``PREFETCH_JOBS`` at a time, each in a spawned process of its own), and a test run alone runs its notebook on
demand."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfstudy.notebook.records import load_records

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
#: the notebooks that read the real datasets (the mirror, the cache or a download)
REAL_DATA = {"02_bootstrap_type1_error", "03_normality_stationarity", "04_pt4cloud_convergence",
             "05_repetitions_and_servers", "07_pilot_to_design", "08_comparing_versions", "analyze"}  # fmt: skip
#: notebooks executed at once ahead of the tests that read them: the quick runs are most of the notebook tests'
#: time, and each is one process's work
PREFETCH_JOBS = 2

_RUNS: dict = {}  # (notebook, seed) -> (directory, record): one quick run each per test session
_STARTED: dict = {}  # (notebook, seed) -> (directory, future): runs started ahead in the pool


def real_data_missing():
    """Why the real datasets cannot be reached here, or None."""
    from perfstudy.io.datasets import DataUnavailableError, locate

    try:
        locate("pt4cloud-AWS-EP-L")
    except DataUnavailableError as error:
        return error
    return None


def needs_real_data(name: str) -> None:
    """Skip, saying why, when ``name`` reads real data that cannot be reached here."""
    if name in REAL_DATA and (error := real_data_missing()) is not None:
        pytest.skip(f"real datasets unavailable here: {error}")


def _arguments(tmp: Path, name: str, seed) -> dict:
    return dict(
        only=name,
        quick=True,
        out_dir=tmp / "build",
        figures_dir=tmp / "figures",
        progress=False,
        html=seed is None,
        parameters=None if seed is None else {"seed": seed},
    )


def run_quick(tmp_path_factory, name: str, seed=None) -> tuple[Path, dict]:
    """``name`` executed in quick mode into a temporary directory (at its own seed, or ``seed``): the directory
    and its record. A second request for the same run reuses the first; a run started ahead is awaited, not
    repeated."""
    from perfstudy.notebook.report import execute_notebooks

    needs_real_data(name)
    if (name, seed) not in _RUNS:
        if (name, seed) in _STARTED:
            tmp, future = _STARTED.pop((name, seed))
            runs = future.result()
        else:
            tmp = tmp_path_factory.mktemp(name[:2])
            runs = execute_notebooks(**_arguments(tmp, name, seed))
        assert [r.status for r in runs] == ["ok"], runs[0].error
        record = tmp / "build" / f"{name}.json"
        _RUNS[name, seed] = tmp, (load_records(record) if record.is_file() else {})
    return _RUNS[name, seed]


def executed_notebook(tmp_path_factory, name: str, seed=None) -> Path:
    """The path of ``name``'s executed notebook (its quick run's output)."""
    tmp, _ = run_quick(tmp_path_factory, name, seed)
    return tmp / "build" / f"{name}.ipynb"


def prefetch(wanted: list, tmp_path_factory):
    """A generator for a fixture: start every run of ``wanted`` (notebook, seed) not yet run, ``PREFETCH_JOBS``
    at a time, and cancel what is left when the fixture ends."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from perfstudy.notebook.report import execute_notebooks

    missing = real_data_missing() is not None
    wanted = [key for key in wanted if key not in _RUNS and key not in _STARTED]
    wanted = [key for key in wanted if not (missing and key[0] in REAL_DATA)]
    if len(wanted) < 2:
        yield
        return
    with ProcessPoolExecutor(PREFETCH_JOBS, mp_context=multiprocessing.get_context("spawn")) as pool:
        for name, seed in wanted:
            tmp = tmp_path_factory.mktemp(name[:2])
            _STARTED[name, seed] = tmp, pool.submit(execute_notebooks, **_arguments(tmp, name, seed))
        try:
            yield
        finally:
            for _, future in _STARTED.values():
                future.cancel()
            _STARTED.clear()


def wanted_runs(items) -> list:
    """The quick runs the selected tests read, in their order: each notebook a notebook or browser test is
    parametrized by (``path`` or ``name``), at its own seed, or at its seed + 1 for a calibration test. Fixtures
    that name a notebook themselves run it on demand."""
    names = {p.stem for p in NOTEBOOKS.glob("*.ipynb")}
    wanted = []
    for item in items:
        if item.get_closest_marker("notebook") is None and item.get_closest_marker("browser") is None:
            continue
        params = item.callspec.params if hasattr(item, "callspec") else {}
        for value in (params.get("path"), params.get("name")):
            stem = value.stem if isinstance(value, Path) else value
            if stem not in names:
                continue
            seed = None
            if item.get_closest_marker("calibration") is not None:
                import papermill

                seed = int(papermill.inspect_notebook(str(NOTEBOOKS / f"{stem}.ipynb"))["seed"]["default"]) + 1
            if (stem, seed) not in wanted:
                wanted.append((stem, seed))
    return wanted
