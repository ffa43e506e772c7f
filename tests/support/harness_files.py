"""Files as hyperfine, Google Benchmark, JMH and the other harnesses write them, and a tidy CSV, with a batch
effect under the values and a change planted in the first benchmark: for the tests of reading and comparing
two files."""

from __future__ import annotations

import json

import numpy as np

NAMES = ("alpha", "beta", "gamma")


def _batches(generator, centre: float, batches: int, values: int) -> list[list[float]]:
    """``batches`` lists of ``values`` values: a log-normal batch effect (SD 2%) and noise within (SD 1%)."""
    out = []
    for _ in range(batches):
        level = centre * np.exp(generator.normal(0, 0.02))
        out.append([float(v) for v in level * np.exp(generator.normal(0, 0.01, values))])
    return out


def hyperfine_file(path, *, slower=0.0, names=NAMES, runs=15, rng=0) -> str:
    """hyperfine's --export-json: each command a result, each run a process (one value)."""
    generator = np.random.default_rng(rng)
    results = []
    for position, name in enumerate(names):
        centre = 0.01 * (1 + position) * (1 + slower * (position == 0))
        times = [batch[0] for batch in _batches(generator, centre, runs, 1)]
        results.append(
            dict(
                command=name,
                mean=float(np.mean(times)),
                stddev=float(np.std(times, ddof=1)),
                median=float(np.median(times)),
                user=0.001,
                system=0.002,
                min=min(times),
                max=max(times),
                times=times,
                exit_codes=[0] * runs,
            )
        )
    path.write_text(json.dumps(dict(results=results)))
    return str(path)


def google_benchmark_file(path, *, slower=0.0, names=NAMES, repetitions=8, rng=0, cpu_slower=0.0) -> str:
    """--benchmark_out JSON with --benchmark_repetitions: each repetition a batch of one value (the mean over its
    iterations), followed by each benchmark's aggregates, under a context block with a dated header. The first
    benchmark's CPU time is ``cpu_slower`` slower than its real time (a change only ``--metric cpu_time`` sees)."""
    generator = np.random.default_rng(rng)
    entries = []
    for position, name in enumerate(names):
        centre = 100.0 * (1 + position) * (1 + slower * (position == 0))
        values = [batch[0] for batch in _batches(generator, centre, repetitions, 1)]
        common = dict(name=f"BM_{name}/64", run_name=f"BM_{name}/64", family_index=position, per_family_instance_index=0,
                      repetitions=repetitions, threads=1, time_unit="ns")  # fmt: skip
        for index, value in enumerate(values):
            entries.append(dict(common, run_type="iteration", repetition_index=index, iterations=100_000,
                                real_time=value, cpu_time=value * 0.99 * (1 + cpu_slower * (position == 0))))  # fmt: skip
        for aggregate, value in (("mean", np.mean(values)), ("median", np.median(values))):
            entries.append(dict(common, name=f"BM_{name}/64_{aggregate}", run_type="aggregate",
                                aggregate_name=aggregate, iterations=repetitions, real_time=float(value),
                                cpu_time=float(value)))  # fmt: skip
    context = dict(date="2026-11-28T01:10:00+00:00", host_name="here", executable="./b", num_cpus=2,
                   mhz_per_cpu=2400, library_build_type="release")  # fmt: skip
    path.write_text(json.dumps(dict(context=context, benchmarks=entries)))
    return str(path)


def jmh_file(path, *, slower=0.0, names=NAMES, forks=6, iterations=4, rng=0) -> str:
    """-rf json: each fork a batch of ``iterations`` scores (avgt, ns/op), the benchmark's @Param in its name."""
    generator = np.random.default_rng(rng)
    results = []
    for position, name in enumerate(names):
        centre = 50.0 * (1 + position) * (1 + slower * (position == 0))
        raw = _batches(generator, centre, forks, iterations)
        results.append(
            dict(
                jmhVersion="1.37",
                benchmark=f"org.example.Bench.{name}",
                mode="avgt",
                threads=1,
                forks=forks,
                vmVersion="17.0.15",
                warmupIterations=5,
                warmupTime="10 s",
                measurementIterations=iterations,
                params=dict(size="1024"),
                primaryMetric=dict(score=float(np.mean(raw)), scoreUnit="ns/op", rawData=raw),
            )
        )
    path.write_text(json.dumps(results))
    return str(path)


def pytest_benchmark_file(path, *, slower=0.0, names=NAMES, rounds=12, rng=0) -> str:
    """--benchmark-json: each benchmark's stats.data, one value a round, all rounds in one pytest process."""
    generator = np.random.default_rng(rng)
    benchmarks = []
    for position, name in enumerate(names):
        centre = 2e-4 * (1 + position) * (1 + slower * (position == 0))
        data = [batch[0] for batch in _batches(generator, centre, rounds, 1)]
        stats = dict(min=min(data), max=max(data), mean=float(np.mean(data)), stddev=float(np.std(data, ddof=1)),
                     rounds=rounds, median=float(np.median(data)), iterations=10, data=data)  # fmt: skip
        benchmarks.append(dict(group=None, name=f"test_{name}", fullname=f"tests/test_speed.py::test_{name}",
                               params=None, param=None, extra_info={}, stats=stats))  # fmt: skip
    machine = dict(node="here", processor="x86_64", python_version="3.11.7")
    path.write_text(json.dumps(dict(machine_info=machine, commit_info=dict(id="abc", dirty=False),
                                    benchmarks=benchmarks, datetime="2026-11-28T01:20:00.123456", version="4.0.0")))  # fmt: skip
    return str(path)


def benchmarkdotnet_file(path, *, slower=0.0, names=NAMES, launches=8, iterations=6, rng=0) -> str:
    """The full JSON export: per launch (a process), two warm-up iterations, then the actual ones and their
    results (actual less overhead), and overhead iterations the reader leaves out; the benchmarks in the file in
    reverse order of their names, as a class's methods may come."""
    generator = np.random.default_rng(rng)
    benchmarks = []
    for position, name in reversed(list(enumerate(names))):
        centre = 40.0 * (1 + position) * (1 + slower * (position == 0))
        measurements = []
        for launch, values in enumerate(_batches(generator, centre, launches, 2 + iterations), start=1):
            for index in range(2):
                measurements.append(dict(IterationMode="Workload", IterationStage="Warmup", LaunchIndex=launch,
                                         IterationIndex=index + 1, Operations=1024, Nanoseconds=values[index] * 1100))  # fmt: skip
            measurements.append(dict(IterationMode="Overhead", IterationStage="Actual", LaunchIndex=launch,
                                     IterationIndex=1, Operations=1024, Nanoseconds=2048.0))  # fmt: skip
            for index, value in enumerate(values[2:], start=1):
                for stage, extra in (("Actual", 2.0), ("Result", 0.0)):
                    measurements.append(dict(IterationMode="Workload", IterationStage=stage, LaunchIndex=launch,
                                             IterationIndex=index, Operations=1024,
                                             Nanoseconds=(value + extra) * 1024))  # fmt: skip
        benchmarks.append(dict(DisplayInfo=f"Bench.{name}: DefaultJob", Namespace="Ns", Type="Bench", Method=name,
                               FullName=f"Ns.Bench.{name}", Measurements=measurements))  # fmt: skip
    path.write_text(json.dumps(dict(Title="Ns.Bench-20261128", HostEnvironmentInfo=dict(MachineName="here"),
                                    Benchmarks=benchmarks)))  # fmt: skip
    return str(path)


def asv_file(path, *, slower=0.0, names=NAMES, samples=10, rng=0) -> str:
    """``asv run --record-samples``: each time_* benchmark's samples (one a batch), a start time in ms."""
    generator = np.random.default_rng(rng)
    columns = ["result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b",
               "stats_q_25", "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"]  # fmt: skip
    results = {}
    for position, name in enumerate(names):
        centre = 3e-5 * (1 + position) * (1 + slower * (position == 0))
        values = [batch[0] for batch in _batches(generator, centre, samples, 1)]
        results[f"bench.Suite.time_{name}"] = [[float(np.median(values))], [], "0" * 64, 1764292800000 + position,
                                               0.5, [None], [None], [None], [None], [1], [samples], [values], None]  # fmt: skip
    path.write_text(json.dumps(dict(commit_hash="ab" * 20, env_name="virtualenv-py3.11", date=1764292800000,
                                    params={}, python="3.11", requirements={}, result_columns=columns,
                                    results=results, durations={}, version=2)))  # fmt: skip
    return str(path)


def criterion_file(path, *, slower=0.0, names=NAMES, samples=30, rng=0) -> str:
    """One benchmark's ``new/sample.json`` (Linear sampling: iteration counts d, 2d, 3d, ...), with the
    ``benchmark.json`` beside it that names it; in a folder named after ``path``."""
    generator = np.random.default_rng(rng)
    folder = path.with_suffix("") / "new"
    folder.mkdir(parents=True)
    per_iteration = [batch[0] for batch in _batches(generator, 500.0 * (1 + slower), samples, 1)]
    iters = [float(10 * (i + 1)) for i in range(samples)]
    (folder / "sample.json").write_text(json.dumps(dict(sampling_mode="Linear", iters=iters,
                                                        times=[n * v for n, v in zip(iters, per_iteration)])))  # fmt: skip
    (folder / "benchmark.json").write_text(json.dumps(dict(group_id=names[0], full_id=f"{names[0]}/64",
                                                           directory_name=names[0])))  # fmt: skip
    return str(folder / "sample.json")


def tidy_csv_file(
    path, *, slower=0.0, names=NAMES, batches=12, values=4, columns=("benchmark", "batch", "iteration", "warmup",
    "value", "unit"), scale=1e-3, rng=0,
) -> str:  # fmt: skip
    """A tidy CSV table as a user's script writes one: a row per value, ``values`` a batch with the first a warm-up,
    the columns given (in that order), the values as Python prints them; at ``path`` with the suffix ``.csv``."""
    generator = np.random.default_rng(rng)
    fields = {"warmup": lambda it: "True" if it == 0 else "False", "unit": lambda it: "s"}
    lines = [",".join(columns)]
    for position, name in enumerate(names):
        centre = scale * (1 + position) * (1 + slower * (position == 0))
        for batch, measured in enumerate(_batches(generator, centre, batches, values)):
            for it, value in enumerate(measured):
                row = dict(benchmark=name, batch=str(batch), iteration=str(it), value=repr(value))
                lines.append(",".join(row[c] if c in row else fields[c](it) for c in columns))
    path = path.with_suffix(".csv")
    path.write_text("\n".join(lines) + "\n")
    return str(path)


WRITERS = {
    "hyperfine": hyperfine_file,
    "google_benchmark": google_benchmark_file,
    "jmh": jmh_file,
    "pytest_benchmark": pytest_benchmark_file,
    "benchmarkdotnet": benchmarkdotnet_file,
    "asv": asv_file,
    "criterion": criterion_file,
}
