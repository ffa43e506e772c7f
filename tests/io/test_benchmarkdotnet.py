"""perfstudy.io.benchmarkdotnet on a file written to BenchmarkDotNet's documented full-export schema (no .NET
runtime here)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfstudy.io import read

# --- BenchmarkDotNet: written to its documented full-export schema (no .NET runtime here) -------


def _dotnet_export(launches=3, rng=0):
    """A ``*-report-full.json`` to BenchmarkDotNet's schema: Measurements with IterationMode,
    IterationStage, LaunchIndex, IterationIndex, Operations and Nanoseconds."""
    rng = np.random.default_rng(rng)
    benchmarks = []
    for method, ns in (("Parse", 120.0), ("Format", 80.0)):
        measurements = []
        for launch in range(1, launches + 1):
            level = ns * np.exp(rng.normal(0, 0.02))
            for stage, count in (("Jitting", 1), ("Pilot", 3), ("Warmup", 4), ("Actual", 15)):
                for index in range(1, count + 1):
                    value = level * (1.3 if stage == "Warmup" else 1.0) * np.exp(rng.normal(0, 0.01))
                    measurements.append(
                        dict(IterationMode="Workload", IterationStage=stage, LaunchIndex=launch,
                             IterationIndex=index, Operations=4096, Nanoseconds=4096 * value)
                    )  # fmt: skip
                    if stage == "Actual":
                        measurements.append(
                            dict(IterationMode="Workload", IterationStage="Result", LaunchIndex=launch,
                                 IterationIndex=index, Operations=4096, Nanoseconds=4096 * (value - 1.0))
                        )  # fmt: skip
            measurements.append(
                dict(IterationMode="Overhead", IterationStage="Actual", LaunchIndex=launch, IterationIndex=1,
                     Operations=4096, Nanoseconds=4096.0)
            )  # fmt: skip
        benchmarks.append(
            dict(DisplayInfo=f"Bench.{method}: DefaultJob", Namespace="Demo", Type="Bench", Method=method,
                 MethodTitle=method, Parameters="", FullName=f"Demo.Bench.{method}", Statistics={},
                 Memory={}, Measurements=measurements)
        )  # fmt: skip
    return dict(Title="Demo.Bench-20261123", HostEnvironmentInfo=dict(MachineName="ci"), Benchmarks=benchmarks)


def test_benchmarkdotnet_full_export(tmp_path):
    path = tmp_path / "Demo.Bench-report-full.json"
    export = _dotnet_export()
    path.write_text(json.dumps(export))
    frame = read(path)
    assert frame.attrs["format"] == "benchmarkdotnet"
    parse = frame[frame.benchmark == "Demo.Bench.Parse"]
    assert sorted(parse.batch.unique()) == [1, 2, 3]  # a launch is a process: the batch
    assert parse.warmup.sum() == 3 * 4 and (~parse.warmup).sum() == 3 * 15
    assert set(parse[~parse.warmup].stage) == {"Result"} and (parse.host == "ci").all()
    results = [m for m in export["Benchmarks"][0]["Measurements"] if m["IterationStage"] == "Result"]
    assert np.allclose(parse[~parse.warmup].value, [m["Nanoseconds"] / m["Operations"] for m in results])
    # within a launch the warm-ups come first, as they ran
    first = parse[parse.batch == 1]
    assert first.warmup.tolist() == [True] * 4 + [False] * 15
    brief = {
        **export,
        "Benchmarks": [{k: v for k, v in b.items() if k != "Measurements"} for b in export["Benchmarks"]],
    }
    path.write_text(json.dumps(brief))
    with pytest.raises(ValueError, match="no Measurements.*full JSON"):
        read(path)
