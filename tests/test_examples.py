"""examples/ci: the GitHub Actions workflow and the one script it calls, run as written on a local git repository of a
small Go benchmark suite whose pull request slows one benchmark down."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "ci" / "perfstudy-gate.sh"
WORKFLOW = ROOT / "examples" / "ci" / "perfstudy.yml"

SUITE = """package bench

import "testing"

var sink int

func work(n int) {
	for i := 0; i < n; i++ {
		sink += i ^ (i >> 3)
	}
}

func BenchmarkParse(b *testing.B) {
	for i := 0; i < b.N; i++ {
		work(PARSE)
	}
}

func BenchmarkRender(b *testing.B) {
	for i := 0; i < b.N; i++ {
		work(20000)
	}
}
"""


def _step():
    """The workflow's step that calls the script: its environment and its command line."""
    import yaml

    workflow = yaml.safe_load(WORKFLOW.read_text())
    (job,) = workflow["jobs"].values()
    (step,) = [s for s in job["steps"] if "perfstudy-gate.sh" in str(s.get("run", ""))]
    return step


def test_the_workflow_calls_the_script_with_base_and_head_and_sets_what_it_reads():
    step = _step()
    assert re.fullmatch(r"ci/perfstudy-gate\.sh \"\$\{\{ github\.event\.pull_request\.base\.sha \}\}\" "
                        r"\"\$\{\{ github\.event\.pull_request\.head\.sha \}\}\"", step["run"])  # fmt: skip
    read = set(re.findall(r"\$\{?(PERFSTUDY_[A-Z_]+)", SCRIPT.read_text()))
    assert set(step["env"]) <= read and "PERFSTUDY_COMMAND" in step["env"]


@pytest.mark.slow  # about 40 s on 2 cores: the suite's rounds until both benchmarks are decided
@pytest.mark.skipif(shutil.which("go") is None or shutil.which("git") is None, reason="go and git are needed")
def test_the_script_runs_as_written_and_turns_red_on_the_slowed_benchmark(tmp_path):
    """A Go package of two benchmarks; the pull request triples Parse's work. The script, with the workflow's own
    command and build and a one-minute budget, exits 1, and its Markdown calls Parse slower and Render not."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.email=a@b", "-c", "user.name=t"]
    (repo / "go.mod").write_text("module example.com/bench\n\ngo 1.19\n")
    subprocess.run([*git, "init", "-q"], check=True)
    for parse in ("20000", "60000"):
        (repo / "bench_test.go").write_text(SUITE.replace("PARSE", parse))
        subprocess.run([*git, "add", "."], check=True)
        subprocess.run([*git, "commit", "-qm", parse], check=True)
    env = dict(os.environ, GOCACHE=str(tmp_path / "cache"), GOPATH=str(tmp_path / "gopath"), GOFLAGS="-mod=mod")
    env |= {key: str(value) for key, value in _step()["env"].items()}
    env |= dict(PERFSTUDY_MAX_TIME="60s", PERFSTUDY_OUT=str(tmp_path / "out"))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"  # perfstudy, as pip installs it
    env.pop("GITHUB_STEP_SUMMARY", None)
    ran = subprocess.run([str(SCRIPT), "HEAD~1", "HEAD"], cwd=repo, env=env, capture_output=True, text=True)
    assert ran.returncode == 1, ran.stderr
    table = [line for line in ran.stdout.splitlines() if line.startswith("| ")]
    (parse,) = [line for line in table if line.startswith("| Parse")]
    (render,) = [line for line in table if line.startswith("| Render")]
    assert parse.endswith("| slower |") and not render.endswith("| slower |"), ran.stdout
    assert (tmp_path / "out" / "perfstudy.json").stat().st_size > 0
    assert subprocess.run([*git, "worktree", "list"], capture_output=True, text=True).stdout.count("\n") == 1
    # unusable input: exit 2, in the command line's words
    bad = subprocess.run([str(SCRIPT), "nosuch", "HEAD"], cwd=repo, env=env, capture_output=True, text=True)
    assert bad.returncode == 2 and "--base nosuch: not a commit of the git repository" in bad.stderr
