"""One file whose benchmarks are the versions: a hyperfine export of two or more commands is compared command
against command (A the first, or --a-version), with wall-time, peak-memory and CPU rows; two hyperfine files of one
command each are one benchmark; ``--by benchmark`` does the same for any file."""

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from perfstudy.cli import main
from perfstudy.comparison import benchmarks_as_versions
from perfstudy.io import read


def _hyperfine(path, commands: dict, runs: int = 12, rng: int = 0):
    """A hyperfine 1.20 export: ``{command: (mean seconds, user, system, peak bytes)}``, runs drawn around the mean."""
    rng = np.random.default_rng(rng)
    results = []
    for command, (mean, user, system, peak) in commands.items():
        times = (mean * np.exp(rng.normal(0, 0.02, runs))).tolist()
        results.append(
            dict(
                command=command,
                mean=float(np.mean(times)),
                stddev=float(np.std(times, ddof=1)),
                median=float(np.median(times)),
                user=user,
                system=system,
                min=min(times),
                max=max(times),
                times=times,
                memory_usage_byte=[int(peak * (1 + 0.001 * i)) for i in range(runs)],
                exit_codes=[0] * runs,
            )
        )
    path.write_text(json.dumps({"results": results}))
    return str(path)


def test_hyperfine_cpu_means_are_attributes_never_columns_of_runs(tmp_path):
    path = _hyperfine(tmp_path / "hf.json", {"old": (0.1, 0.06, 0.02, 1e6), "new": (0.1, 0.09, 0.02, 1e6)})
    frame = read(path)
    assert frame.attrs["cpu"] == pytest.approx({"old": 0.08, "new": 0.11})
    assert "user" not in frame.columns and "system" not in frame.columns  # one mean is not a value per run
    assert frame["rss"].notna().all() and frame["rss"].iloc[0] == 1_000_000


def test_the_first_benchmark_is_a_and_each_other_is_a_b_in_its_own_row(tmp_path):
    commands = {"old": (0.1, 0.06, 0.02, 1e6), "new": (0.12, 0.09, 0.02, 2e6), "newer": (0.1, 0.06, 0.02, 1e6)}
    laid = benchmarks_as_versions(read(_hyperfine(tmp_path / "hf.json", commands)))
    assert laid.attrs["baseline"] == "old" and laid.attrs["candidates"] == ["new", "newer"]
    sizes = laid.groupby(["benchmark", "version"]).size().to_dict()
    assert sizes[("new", "A")] == sizes[("new", "B")] == 12 and sizes[("newer:cpu", "A")] == 1
    assert set(laid["benchmark"]) == {"new", "new:rss", "new:cpu", "newer", "newer:rss", "newer:cpu"}
    with pytest.raises(ValueError, match=r"^baseline='nope': not a benchmark of the file"):
        benchmarks_as_versions(read(_hyperfine(tmp_path / "hf2.json", commands)), baseline="nope")


def test_perfstudy_compare_of_one_hyperfine_export_gives_wall_memory_and_cpu_rows(tmp_path, capsys):
    """The finding: 'perfstudy compare hf.json' said "none is present in both", and the +41% user CPU was lost."""
    path = _hyperfine(
        tmp_path / "hf.json", {"gzip -1": (0.6776, 0.40, 0.05, 5e6), "gzip -4": (0.6779, 0.58, 0.055, 8e6)}
    )
    assert main(["compare", path, "--threshold", "5%", "--format", "json", "--seed", "1"]) == 0
    document = json.loads(capsys.readouterr().out)
    rows = {row["benchmark"]: row for row in document["benchmarks"]}
    assert set(rows) == {"gzip -4", "gzip -4:rss", "gzip -4:cpu"}
    assert rows["gzip -4"]["verdict"] == "no change"  # equal wall times, within --threshold 5%
    assert rows["gzip -4:rss"]["verdict"] == "slower" and rows["gzip -4:rss"]["change"] == pytest.approx(0.6, abs=0.01)
    cpu = rows["gzip -4:cpu"]
    assert cpu["change"] == pytest.approx(0.635 / 0.45 - 1) and cpu["verdict"] == "inconclusive"
    assert cpu["low"] is None and cpu["p_value"] is None  # one mean a side: no interval
    assert "A: `gzip -1` (the first; --a-version names another); B: `gzip -4`" in document["said"]
    assert main(["compare", path, "--threshold", "5%", "--seed", "1"]) == 0
    table = capsys.readouterr().out
    memory = next(line for line in table.splitlines() if line.startswith("gzip -4:rss"))
    assert " larger " in memory and "slower" not in memory  # a memory is larger, in the table people read
    # the finding: a geomean over the time row and its CPU row (both s) read +11.8% where only +25% was measured
    assert document["geomean"] == [] and "geomean" not in table


def test_a_geomean_averages_one_metric_never_wall_with_cpu(tmp_path, capsys):
    commands = {"a": (0.1, 0.2, 0.0, 1e6), "b": (0.11, 0.2, 0.0, 1e6), "c": (0.121, 0.3, 0.0, 1e6)}
    path = _hyperfine(tmp_path / "hf.json", commands)
    assert main(["compare", path, "--format", "json", "--seed", "1"]) == 0
    document = json.loads(capsys.readouterr().out)
    rows = {row["benchmark"]: row for row in document["benchmarks"]}
    means = {(g["unit"], g["metric"]): g["change"] for g in document["geomean"]}
    assert set(means) == {("s", "wall"), ("s", "cpu"), ("B", "rss")}
    for (_, metric), change in means.items():  # each the geometric mean of its own rows' ratios, as benchstat's
        suffix = {"wall": "", "cpu": ":cpu", "rss": ":rss"}[metric]
        ratios = [1 + rows[name + suffix]["change"] for name in ("b", "c")]
        assert change == pytest.approx(np.sqrt(ratios[0] * ratios[1]) - 1, rel=1e-9)
    assert means["s", "cpu"] == pytest.approx(np.sqrt(1.0 * 1.5) - 1, rel=1e-9)  # CPU 0.2 -> 0.2 and 0.3
    assert main(["compare", path, "--seed", "1"]) == 0
    table = capsys.readouterr().out
    assert [line.split()[0] for line in table.splitlines() if line.startswith("geomean")] == [
        "geomean",
        "geomean:cpu",
        "geomean:rss",
    ]


def test_a_version_names_the_baseline_command_and_a_wrong_one_is_refused(tmp_path, capsys):
    path = _hyperfine(tmp_path / "hf.json", {"slow": (0.2, 0.1, 0.01, 1e6), "fast": (0.1, 0.05, 0.01, 1e6)})
    assert main(["compare", path, "--a-version", "fast", "--format", "json", "--seed", "1"]) == 0
    rows = {row["benchmark"]: row for row in json.loads(capsys.readouterr().out)["benchmarks"]}
    assert rows["slow"]["verdict"] == "slower" and rows["slow"]["change"] == pytest.approx(1.0, abs=0.05)
    assert main(["compare", path, "--a-version", "medium"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("perfstudy compare: --a-version medium: not a benchmark of") and "baseline=" not in err


def test_by_benchmark_compares_the_benchmarks_of_any_one_file(tmp_path, capsys):
    rng = np.random.default_rng(3)
    rows = [
        dict(benchmark=name, batch=b, value=level * np.exp(rng.normal(0, 0.01)))
        for name, level in (("BM_old", 1.0), ("BM_new", 0.8))
        for b in range(10)
    ]
    path = tmp_path / "tidy.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    assert main(["compare", str(path), "--by", "benchmark", "--format", "json", "--seed", "1"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["benchmarks"]
    assert row["benchmark"] == "BM_new" and row["verdict"] == "faster"
    pd.DataFrame(rows).assign(version="A").to_csv(path, index=False)
    assert main(["compare", str(path), "--by", "benchmark"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("perfstudy compare: --by benchmark: ") and "by='version'" not in err


@pytest.mark.skipif(shutil.which("hyperfine") is None, reason="hyperfine is not installed (.ci/run installs it)")
def test_a_real_hyperfine_export_of_two_commands_is_compared(tmp_path, capsys):
    path = tmp_path / "hf.json"
    subprocess.run(
        ["hyperfine", "--style", "none", "-N", "--runs", "10", "--export-json", str(path), "sleep 0.01", "sleep 0.05"],
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert main(["compare", str(path), "--format", "json", "--seed", "1"]) == 0
    rows = {row["benchmark"]: row for row in json.loads(capsys.readouterr().out)["benchmarks"]}
    assert rows["sleep 0.05"]["verdict"] == "slower" and "sleep 0.05:cpu" in rows


@pytest.mark.notebook
def test_analyze_of_one_hyperfine_export_compares_its_commands_and_reads_with_dropna(tmp_path, capsys):
    """analyze hf.json drew two separate "A" cards and no comparison; a file with a failed run (a null time) said
    "pass dropna=True", which the command line could not do."""
    path = Path(_hyperfine(tmp_path / "hf.json", {"old": (0.1, 0.05, 0.01, 1e6), "new": (0.13, 0.05, 0.01, 1e6)}))
    data = json.loads(path.read_text())
    data["results"][0]["times"][3] = None
    path.write_text(json.dumps(data))
    out = tmp_path / "report"
    assert main(["analyze", str(path), "--out", str(out), "--quick", "--no-progress", "--no-html"]) == 2
    assert "--dropna" in capsys.readouterr().err
    assert main(["analyze", str(path), "--out", str(out), "--quick", "--no-progress", "--dropna"]) == 0
    page = (out / "analyze.html").read_text().lower()
    assert "demo" not in page and "planted" not in page  # a report on a user's files says nothing of the demo
    records = json.loads((out / "analyze.json").read_text())
    assert records["dropped"] == 1
    rows = {row["benchmark"]: row for row in records["comparison"]}
    assert set(rows) == {"new", "new:rss", "new:cpu"} and rows["new"]["verdict"] == "slower"
