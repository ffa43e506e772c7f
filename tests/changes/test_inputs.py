"""perfstudy history through the command line: a tidy file, Go files by a manifest, an asv results directory,
a run's file; its formats and its CI gate."""

import json
import os
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from perfstudy.changes import HistorySettings, history, read_history
from perfstudy.cli import main


def levels(n=60, at=40, step=0.2, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.standard_normal(n) * 0.01
    y[at:] += step
    return np.exp(y)


@pytest.fixture
def tidy(tmp_path):
    rows = [{"benchmark": "flat", "commit": f"c{i:03d}", "value": v} for i, v in enumerate(levels(step=0.0))]
    rows += [{"benchmark": "step", "commit": f"c{i:03d}", "value": v} for i, v in enumerate(levels())]
    path = tmp_path / "history.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_json_lists_each_change_point_with_benchmark_and_index(tidy, capsys):
    assert main(["history", str(tidy), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(c["benchmark"], c["index"], c["commit"], c["verdict"]) for c in doc["change_points"]] == [
        ("step", 40, "c040", "slower")
    ]
    assert doc["change_points"][0]["level_low"] > 0.15


def test_table_markdown_and_html_say_the_same(tidy, capsys, tmp_path):
    assert main(["history", str(tidy)]) == 0
    table = capsys.readouterr().out
    assert "1 change point(s) in 1 of 2 benchmark(s): 1 slower" in table and "c040" in table
    assert main(["history", str(tidy), "--format", "markdown"]) == 0
    assert "| step | 40 | c040 | this commit only | level | slower |" in capsys.readouterr().out
    out = tmp_path / "report.html"
    assert main(["history", str(tidy), "--format", "html", "--out", str(out)]) == 0
    page = out.read_text()
    assert page.index("Regressions (1)") < page.index("<svg") and page.count("<svg") == 1


def test_fail_on_regression_looks_at_the_newest_commits(tidy, capsys):
    assert main(["history", str(tidy), "--fail-on-regression"]) == 0  # the change is 20 commits old
    err = capsys.readouterr().err
    assert "no benchmark slower in its newest 5" in err
    # the same count of unjudged commits as the summary: the fewest after a change, with the commits before it
    after = history(pd.read_csv(tidy)).series["commits_after_needed"].min()
    assert f"the newest {after - 1} commit(s) of each benchmark cannot be judged yet" in err
    assert main(["history", str(tidy), "--fail-on-regression", "--recent", "25"]) == 1
    assert "step (commit c040)" in capsys.readouterr().err


def test_unusable_input_exits_2_with_the_reason(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"value": [1.0, 2.0]}).to_csv(bad, index=False)
    assert main(["history", str(bad)]) == 2
    assert "no column for --commit 'commit'" in capsys.readouterr().err
    assert main(["history", str(tmp_path / "missing.csv")]) == 2


def go_text(name, values):
    return "goos: linux\n" + "".join(f"{name}-8\t1000\t{v * 100:.3f} ns/op\n" for v in values)


def test_go_files_ordered_by_a_manifest(tmp_path, capsys):
    values = levels(n=30, at=20, step=0.3, seed=1)
    rows = []
    for i, v in enumerate(values):
        rng = np.random.default_rng(i)
        (tmp_path / f"r{i}.txt").write_text(go_text("BenchmarkX", v * np.exp(rng.standard_normal(3) * 0.002)))
        rows.append({"commit": f"sha{i}", "path": f"r{i}.txt"})
    manifest = tmp_path / "manifest.csv"
    pd.DataFrame(rows[::-1]).iloc[::-1].to_csv(manifest, index=False)  # the manifest's order, not the names'
    frame = read_history(tmp_path, manifest=manifest)
    assert frame.attrs["order"] == "manifest" and frame["commit"].iloc[0] == "sha0" and len(frame) == 90
    assert main(["history", str(tmp_path), "--manifest", str(manifest), "--format", "json"]) == 0
    (cp,) = json.loads(capsys.readouterr().out)["change_points"]
    # three measurements a commit: commit 20's first measurement is the 60th; the Go reader names it X-8
    assert (cp["benchmark"], cp["commit"], cp["commit_index"], cp["index"]) == ("X-8", "sha20", 20, 60)


def test_a_folder_of_hyperfine_files_gives_each_commands_cpu_series_too(tmp_path, capsys):
    """hyperfine's user and system means went unused: a history of a folder of its files was wall time only. Here
    the CPU time steps up 20% at commit 10 while the wall time holds."""
    rows = []
    for i in range(20):
        rng = np.random.default_rng(i)
        times = (0.05 * np.exp(rng.normal(0, 0.002, 5))).tolist()
        cpu = 0.04 * (1.2 if i >= 10 else 1.0) * np.exp(rng.normal(0, 0.002))
        result = dict(command="./prog", mean=float(np.mean(times)), times=times, user=cpu * 0.9, system=cpu * 0.1)
        (tmp_path / f"h{i}.json").write_text(json.dumps({"results": [result]}))
        rows.append({"commit": f"c{i:02d}", "path": f"h{i}.json"})
    pd.DataFrame(rows).to_csv(tmp_path / "manifest.csv", index=False)
    assert main(["history", str(tmp_path), "--manifest", str(tmp_path / "manifest.csv"), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [s["benchmark"] for s in document["series"]] == ["./prog", "./prog:cpu"]
    (cp,) = document["change_points"]
    assert (cp["benchmark"], cp["commit"], cp["unit"]) == ("./prog:cpu", "c10", "s")
    assert cp["level_change"] == pytest.approx(0.2, abs=0.01)


def test_metric_reads_each_files_chosen_metric_and_is_refused_where_values_are_chosen(tmp_path, capsys):
    """Google Benchmark files whose CPU time steps up 10% at commit 10 while the real time holds: the default
    history (real time) finds nothing, --metric cpu_time finds the step in the one benchmark that took it."""
    from tests.support.harness_files import google_benchmark_file

    rows = []
    for i in range(20):
        google_benchmark_file(tmp_path / f"g{i}.json", rng=i, cpu_slower=0.10 if i >= 10 else 0.0)
        rows.append({"commit": f"c{i:02d}", "path": f"g{i}.json"})
    manifest = tmp_path / "manifest.csv"
    pd.DataFrame(rows).to_csv(manifest, index=False)
    assert main(["history", str(tmp_path), "--manifest", str(manifest), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["change_points"] == []
    assert (
        main(["history", str(tmp_path), "--manifest", str(manifest), "--format", "json", "--metric", "cpu_time"]) == 0
    )
    (cp,) = json.loads(capsys.readouterr().out)["change_points"]
    assert (cp["benchmark"], cp["commit"]) == ("BM_alpha/64", "c10")
    # each commit's median of 8 repetitions with a 2% batch effect: SD about 0.9% a commit, so the shift of 10 commits
    # against 10 has an SE of about 0.4%; 0.02 is five of them
    assert cp["level_change"] == pytest.approx(0.10, abs=0.02)
    assert main(["history", str(tmp_path), "--manifest", str(manifest), "--metric", "rss"]) == 2
    assert "--metric rss: a google_benchmark file's metrics are real_time, cpu_time" in capsys.readouterr().err
    tidy = tmp_path / "tidy.csv"
    pd.DataFrame({"commit": ["a", "b"], "value": [1.0, 2.0]}).to_csv(tidy, index=False)
    assert main(["history", str(tidy), "--metric", "cpu_time"]) == 2
    assert (
        "--metric cpu_time: a harness's metric is chosen as its files are read; a tidy file (its --value column)"
        in (capsys.readouterr().err)
    )
    with pytest.raises(
        ValueError,
        match=r"metric='cpu_time': a harness's metric is chosen as its files are read; a frame \(its value column; read_history",
    ):
        history(pd.read_csv(tidy), settings=HistorySettings(metric="cpu_time"))


def test_a_folder_without_manifest_or_dates_is_refused(tmp_path, capsys):
    (tmp_path / "a.txt").write_text(go_text("BenchmarkX", [1.0]))
    assert main(["history", str(tmp_path)]) == 2
    assert "give a manifest" in capsys.readouterr().err


def test_asv_results_directory_in_commit_date_order(tmp_path, capsys):
    machine = tmp_path / "results" / "ci"
    machine.mkdir(parents=True)
    (machine / "machine.json").write_text("{}")
    values = levels(n=24, at=12, step=-0.3, seed=2)
    for i, v in enumerate(values):
        doc = {
            "commit_hash": f"h{i:02d}",
            "date": 1_700_000_000_000 + 86_400_000 * i,
            "env_name": "existing",
            "result_columns": ["result", "params", "version", "started_at", "duration", "samples"],
            "results": {"b.time_x": [[v], [], "v", 1_767_225_600_000, 0.5, [[v * 1e-3, v * 1.001e-3]]]},
        }
        # names sort against the dates: the order must come from the dates
        (machine / f"{23 - i:02d}-existing.json").write_text(json.dumps(doc))
    assert main(["history", str(tmp_path / "results"), "--format", "json"]) == 0
    (cp,) = json.loads(capsys.readouterr().out)["change_points"]
    assert (cp["benchmark"], cp["commit"], cp["verdict"]) == ("b.time_x", "h12", "faster")


def test_a_run_file_is_two_commits_a_then_b(tmp_path):
    from perfstudy.experiment import run

    out = tmp_path / "run.csv"
    run(["true"], ["true"], max_rounds=3, min_rounds=3, values=2, warmup=0, out=out, progress=False)
    frame = read_history(out)
    assert list(dict.fromkeys(frame["commit"])) == ["A: true", "B: true"]


@pytest.mark.slow  # builds and runs go test 16 times
@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed (Debian package 'golang-go')")
def test_real_go_test_files_by_manifest_find_the_commit_that_slowed_down(tmp_path, capsys):
    # sixteen "commits" of one module; from the ninth on, the benchmark's loop does three times the work
    module = tmp_path / "m"
    module.mkdir()
    (module / "go.mod").write_text("module example.com/m\n\ngo 1.19\n")
    env = dict(os.environ, GOCACHE=str(tmp_path / "cache"), GOPATH=str(tmp_path / "gopath"), GOFLAGS="-mod=mod")
    env["GOPROXY"] = "off"
    rows = []
    for i in range(16):
        loops = 20_000 if i < 8 else 60_000
        (module / "m_test.go").write_text(
            'package m\n\nimport "testing"\n\nvar sink float64\n\n'
            "func BenchmarkWork(b *testing.B) {\n\tfor n := 0; n < b.N; n++ {\n\t\tx := 1.0\n"
            f"\t\tfor i := 0; i < {loops}; i++ {{\n\t\t\tx = x*1.0000001 + 1e-9\n\t\t}}\n\t\tsink = x\n\t}}\n}}\n"
        )
        out = subprocess.run(
            ["go", "test", "-run", "^$", "-bench", ".", "-count", "3", "-benchtime", "200x"],
            cwd=module, env=env, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        (tmp_path / f"run{i}.txt").write_text(out)
        rows.append({"commit": f"c{i}", "path": f"run{i}.txt"})
    manifest = tmp_path / "manifest.csv"
    pd.DataFrame(rows).to_csv(manifest, index=False)
    assert main(["history", str(tmp_path), "--manifest", str(manifest), "--format", "json"]) == 0
    points = json.loads(capsys.readouterr().out)["change_points"]
    # the ns/op series changes at c8 (its 25th measurement: three a commit); nothing else changes
    assert [(p["commit"], p["index"], p["verdict"]) for p in points] == [("c8", 24, "slower")]
    assert 1.5 < 1 + points[0]["level_change"] < 4.5


def test_the_html_plot_labels_its_axis_in_full_and_names_the_unit(tmp_path):
    """`--format html` cut its y labels to '.407e+05' and showed no unit."""
    values = 140_700 * levels()
    path = tmp_path / "ns.csv"
    pd.DataFrame({"benchmark": "parse", "commit": range(60), "value": values, "unit": "ns"}).to_csv(path, index=False)
    out = tmp_path / "report.html"
    assert main(["history", str(path), "--format", "html", "--out", str(out)]) == 0
    svg = out.read_text().split("<svg", 1)[1]
    labels = re.findall(r'text-anchor="end" font-size="10">([^<]*)</text>', svg)
    assert len(labels) == 2 and all(re.fullmatch(r"1\d\d,\d{3}", label) for label in labels), labels
    assert ">median (ns)</text>" in svg
    left = int(svg.split('<rect x="', 1)[1].split('"', 1)[0])
    assert left >= 6 * len(labels[0]) + 4  # the longest label fits left of the plot at 10 px
