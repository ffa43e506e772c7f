"""A small install: ``pip install perfstudy`` (numpy, pandas, tqdm) runs ``compare``, ``run`` and ``history``, and a
command that needs an extra says which, with exit status 2. ``.ci/wheel-check`` installs the core wheel for real;
here, each command runs in a fresh interpreter and must not import what only an extra provides."""

import json
import subprocess
import sys

import pytest

from perfstudy import cli

#: what only an extra installs (pyproject.toml), with the extra
EXTRA_MODULES = sorted(cli.EXTRAS)

_CHECK = """
import sys
from perfstudy.cli import main
status = main({argv!r})
found = sorted(m for m in {modules!r} if m in sys.modules)
print("\\n" + __import__("json").dumps(dict(status=status, found=found)))
"""


def _run_alone(argv: list, cwd) -> dict:
    code = _CHECK.format(argv=[str(a) for a in argv], modules=EXTRA_MODULES)
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _go(path, level: int) -> str:
    path.write_text("goos: linux\n" + "".join(f"BenchmarkX-2 100 {level + run} ns/op\n" for run in range(6)))
    return str(path)


@pytest.mark.slow  # over 3 s on 2 cores
def test_compare_run_and_history_import_nothing_an_extra_provides(tmp_path):
    a, b = _go(tmp_path / "a.txt", 1000), _go(tmp_path / "b.txt", 1100)
    tidy = tmp_path / "tidy.csv"
    tidy.write_text(
        "version,batch,value\n" + "".join(f"{v},{i},{1 + 0.1 * (v == 'B') + i / 100}\n" for v in "AB" for i in range(6))
    )
    history = tmp_path / "history.csv"
    history.write_text("commit,value\n" + "".join(f"c{i:02d},{1.0 if i < 20 else 1.5}{i}\n" for i in range(40)))
    runs = tmp_path / "runs.csv"
    commands = [
        ["compare", a, b],
        ["compare", tidy],
        ["run", "--no-shell", "--a", "true", "--b", "true", "--min-rounds", "3", "--max-rounds", "3", "--values", "1",
         "--warmup", "0", "--out", runs, "--no-progress"],
        ["compare", runs],
        ["history", history],
    ]  # fmt: skip
    for argv in commands:
        outcome = _run_alone(argv, tmp_path)
        assert outcome == dict(status=0, found=[]), (argv, outcome)


@pytest.mark.parametrize(("module", "extra"), [("papermill", "notebooks"), ("scipy", "stats"), ("voila", "explore")])
def test_a_command_that_needs_an_extra_names_it_with_exit_2(monkeypatch, capsys, module, extra):
    def missing(args):
        raise ModuleNotFoundError(f"No module named {module!r}", name=module)

    monkeypatch.setattr(cli, "_command", missing)
    assert cli.main(["analyze", "x.json"]) == 2
    from perfstudy._lib.extras import install_hint

    assert capsys.readouterr().err == (
        f"perfstudy analyze: this needs {module}, which comes with the [{extra}] extra: {install_hint(extra)}\n"
    )


def test_a_missing_module_that_no_extra_provides_is_not_hidden(monkeypatch):
    def missing(args):
        raise ModuleNotFoundError("No module named 'perfstudy_typo'", name="perfstudy_typo")

    monkeypatch.setattr(cli, "_command", missing)
    with pytest.raises(ModuleNotFoundError, match="perfstudy_typo"):
        cli.main(["analyze", "x.json"])
