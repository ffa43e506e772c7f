"""perfstudy.io.asv against the real tool, run on two benchmarks with this interpreter: its samples agree with
asv's own result."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from perfstudy.io import read


def _run(args, **kwargs):
    return subprocess.run(args, check=True, capture_output=True, text=True, timeout=600, **kwargs)


# --- asv: the real tool runs two benchmarks against this interpreter -------------------------------


@pytest.fixture(scope="module")
def asv_file(tmp_path_factory):
    pytest.importorskip("asv")
    root = tmp_path_factory.mktemp("asv")
    (root / "benchmarks").mkdir()
    (root / "benchmarks" / "__init__.py").write_text("")
    (root / "benchmarks" / "bench.py").write_text(
        "def time_sum():\n    sum(range(1000))\n\n"
        "class TimeSorted:\n    params = [10, 100]\n    param_names = ['n']\n"
        "    def setup(self, n):\n        self.data = list(range(n, 0, -1))\n"
        "    def time_sorted(self, n):\n        sorted(self.data)\n"
    )
    (root / "asv.conf.json").write_text(
        json.dumps(dict(version=1, project="demo", repo=".", environment_type="existing", benchmark_dir="benchmarks",
                        results_dir="results", html_dir="html", branches=["HEAD"]))
    )  # fmt: skip
    git = ["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci"]
    _run(["git", "init", "-q"], cwd=root)
    _run(git + ["add", "-A"], cwd=root)
    _run(git + ["commit", "-qm", "benchmarks"], cwd=root)
    commit = _run(["git", "rev-parse", "HEAD"], cwd=root).stdout.strip()
    asv = [sys.executable, "-m", "asv"]
    _run(asv + ["machine", "--yes", "--machine", "ci"], cwd=root)
    _run(
        asv + ["run", "--python=same", "--record-samples", "--set-commit-hash", commit, "--machine", "ci",
               "-a", "repeat=5", "-a", "processes=2"],
        cwd=root,
    )  # fmt: skip
    (result,) = [p for p in (root / "results" / "ci").glob("*.json") if p.name != "machine.json"]
    return result


@pytest.mark.slow  # runs asv
def test_asv_samples_agree_with_asvs_own_result(asv_file, tmp_path):
    frame = read(asv_file)
    raw = json.loads(asv_file.read_text())
    columns = raw["result_columns"]
    assert frame.attrs["format"] == "asv"
    assert set(frame.benchmark) == {
        "bench.TimeSorted.time_sorted [10]",
        "bench.TimeSorted.time_sorted [100]",
        "bench.time_sum",
    }
    for name, row in raw["results"].items():
        cell = dict(zip(columns, row))
        labels = [f" [{v}]" for v in cell["params"][0]] if cell["params"] else [""]
        for label, result, samples in zip(labels, cell["result"], cell["samples"]):
            rows = frame[frame.benchmark == name + label]
            assert rows.value.tolist() == samples and len(samples) == 10  # 2 processes x 5 repeats
            assert rows.value.median() == pytest.approx(result, rel=1e-9)  # asv's result is the median
    assert (frame.unit == "s").all() and (frame.commit == raw["commit_hash"]).all()
    for row in raw["results"].values():  # without --record-samples: refused by name
        del row[columns.index("samples") :]
    summaries = tmp_path / "summaries.json"
    summaries.write_text(json.dumps(raw))
    with pytest.raises(ValueError, match="--record-samples"):
        read(summaries)
