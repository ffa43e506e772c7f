"""``perfstudy report`` on a passing and a deliberately failing notebook."""

import json
import subprocess
import sys

import pytest

from perfstudy.notebook.report import NotebookRun, find_notebooks, format_table


class _LazyNbformat:
    """nbformat, imported when a test first uses it: importing it (jsonschema's format grammars) costs
    seconds of every collection."""

    def __getattr__(self, name):
        import nbformat as module

        return getattr(module, name)


nbformat = _LazyNbformat()


def _notebook(path, *cells, parameters="quick = False\nout_dir = '.'"):
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell(parameters)
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params] + [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


@pytest.fixture
def notebooks(tmp_path):
    directory = tmp_path / "nbs"
    directory.mkdir()
    _notebook(
        directory / "a_passes.ipynb",
        "import json, pathlib, sys\n"
        "pathlib.Path(out_dir, 'a.json').write_text(json.dumps({'quick': quick, 'python': sys.executable}))",
    )
    _notebook(directory / "b_fails.ipynb", "x = 1", "raise ValueError('deliberate failure')", "never = True")
    _notebook(directory / "c_passes_too.ipynb", "y = 2")
    return directory


def _report(tmp_path, *args):
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "perfstudy",
            "report",
            "--no-progress",
            "--out",
            str(tmp_path / "build"),
            "--figures",
            str(tmp_path / "figs"),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.notebook
def test_failing_notebook_does_not_stop_the_others(tmp_path, notebooks):
    done = _report(tmp_path, "--notebooks", str(notebooks), "--quick")
    assert done.returncode == 1, done.stderr
    lines = {line.split()[0]: line for line in done.stdout.splitlines() if line.startswith(("a_", "b_", "c_"))}
    assert " ok " in lines["a_passes"] and " ok " in lines["c_passes_too"], done.stderr
    assert "failed" in lines["b_fails"]
    # counted as the user sees the notebook (parameters cell = 1), not papermill's executed copy
    assert "cell 3 (raise ValueError('deliberate failure')): ValueError: deliberate failure" in lines["b_fails"]
    assert "2 of 3 notebooks ran" in done.stdout
    # the passing notebook received quick=True and ran on this interpreter (the venv's kernel)
    recorded = json.loads((tmp_path / "build" / "a.json").read_text())
    assert recorded["quick"] is True
    assert recorded["python"] == sys.executable
    for name in ("a_passes", "b_fails", "c_passes_too"):
        assert (tmp_path / "build" / f"{name}.ipynb").exists() and (tmp_path / "build" / f"{name}.html").exists()
    summary = json.loads((tmp_path / "build" / "report.json").read_text())
    assert [s["status"] for s in summary] == ["ok", "failed", "ok"]


@pytest.mark.notebook
def test_only_and_exit_codes(tmp_path, notebooks):
    done = _report(tmp_path, "--notebooks", str(notebooks), "--only", "a", "--only", "c_passes_too")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 of 2 notebooks ran" in done.stdout
    unknown = _report(tmp_path, "--notebooks", str(notebooks), "--only", "zzz")
    assert unknown.returncode == 2 and "only='zzz': matches no notebook" in unknown.stderr


def test_find_notebooks_errors(tmp_path, notebooks):
    with pytest.raises(ValueError, match="not a directory"):
        find_notebooks(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no .ipynb"):
        find_notebooks(tmp_path / "empty")
    with pytest.raises(ValueError, match="several"):
        find_notebooks(notebooks, only="")


def test_format_table(tmp_path):
    runs = [
        NotebookRun("one", "ok", 1.234, tmp_path / "one.ipynb", None),
        NotebookRun("two", "failed", 0.5, tmp_path / "two.ipynb", None, "cell 2: KeyError: 'x'"),
    ]
    table = format_table(runs).splitlines()
    assert table[0].split() == ["notebook", "status", "seconds", "where", "it", "failed"]
    assert table[2].split() == ["one", "ok", "1.2"]
    assert table[3].endswith("cell 2: KeyError: 'x'")


def test_help_runs():
    done = subprocess.run([sys.executable, "-m", "perfstudy", "report", "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "--quick" in done.stdout


def test_version_names_the_installed_distribution(capsys):
    from importlib.metadata import version

    from perfstudy.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.strip() == f"perfstudy {version('perfstudy')}"


def test_a_p_value_that_underflowed_never_prints_as_zero():
    from perfstudy._lib.format import p_text

    assert [p_text(p) for p in (0.0, 9.8e-63, 0.04, 1.0, float("nan"))] == ["<1e-300", "9.8e-63", "0.04", "1", "n/a"]
