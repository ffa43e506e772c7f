"""The parses of pyperf's, hyperfine's, Google Benchmark's and JMH's JSON into their measurements, without pandas.

``*_rows`` take the parsed JSON and give the reader's rows (one dict a measured value, the columns of
:data:`perfstudy.io.columns.COLUMNS` and the tool's own), the tool's extra columns and its ``attrs``; ``_*_columns``
(the harnesses' records name them) check them once (:func:`perfstudy.io.columns._measured`). The readers
(:func:`perfstudy.io.read_pyperf`, ...) are their DataFrame view.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np

from perfstudy._lib.checks import check_allocation
from perfstudy.io._json import MalformedFileError, _entries, _mapping, _read_json, _reader, _require, _sequence
from perfstudy.io.columns import FileColumns, _measured, _measured_rows
from perfstudy.io.harnesses import HARNESSES


def hyperfine_rows(data, *, metric: str = "wall") -> tuple[list[dict], list[str], dict]:
    """:func:`perfstudy.io.read_hyperfine`'s rows, extra columns and attrs: ``value`` each run's wall-clock time, or
    with ``metric="rss"`` its peak memory."""
    results = _sequence(_require(data, "results", "hyperfine file", "hyperfine"), "'results'")
    extra = ["command", "params", "exit_code", "rss"]
    rows = []
    cpu = {}
    for position, result in enumerate(results):
        command = _require(result, "command", f"result {position}", "hyperfine")
        times = _sequence(_require(result, "times", f"result {position} ({command})", "hyperfine"), "'times'")
        params = _mapping(result.get("parameters"), f"result {position}'s parameters")
        label = " ".join(f"{k}={v}" for k, v in params.items())
        benchmark = f"{command} [{label}]" if label else command
        n = len(times)
        codes = result.get("exit_codes") or [np.nan] * n
        memory = result.get("memory_usage_byte") or [np.nan] * n  # hyperfine >= 1.20: each run's peak memory
        for field, values in (("exit_codes", codes), ("memory_usage_byte", memory)):
            if len(_sequence(values, f"'{field}'")) != n:
                raise MalformedFileError(f"source: result {position} ({command}): {len(values)} {field} for {n} times")
        user, system = result.get("user"), result.get("system")
        below = [x for x in (*memory, user, system) if isinstance(x, (int, float)) and x < 0]
        if below:  # a peak memory or a CPU time is never below 0, as the times' own check refuses for them
            raise MalformedFileError(
                f"source: result {position} ({command}): a negative memory_usage_byte, user or system ({below[0]:g}), "
                "which hyperfine never writes; the file is damaged or not what it seems"
            )
        if all(isinstance(x, (int, float)) and not isinstance(x, bool) and np.isfinite(x) for x in (user, system)):
            cpu[benchmark] = float(user) + float(system)  # type: ignore[arg-type]
        if metric == "rss" and not result.get("memory_usage_byte"):
            raise ValueError(
                f"source: metric='rss': result {position} ({command}) has no memory_usage_byte, each run's peak "
                "memory, which hyperfine writes from version 1.20; measure it with that hyperfine, or with "
                "`perfstudy run --metric rss`"
            )
        for run, value in enumerate(times if metric == "wall" else memory):
            rows.append(
                dict(
                    benchmark=benchmark,
                    batch=run,
                    iteration=0,
                    warmup=False,
                    value=value,
                    unit="s" if metric == "wall" else "B",
                    command=command,
                    params=label or None,
                    exit_code=codes[run],
                    rss=memory[run],
                )
            )
    return rows, extra, {"tool": "hyperfine", "cpu": cpu, "metric": metric}


def google_benchmark_rows(data, *, time: str, errors: str) -> tuple[list[dict], list[str], dict]:
    """:func:`perfstudy.io.read_google_benchmark`'s rows, extra columns and attrs (a warning counts the runs
    ``errors="drop"`` left out)."""
    benchmarks = _sequence(_require(data, "benchmarks", "Google Benchmark file", "Google Benchmark"), "'benchmarks'")
    context = _mapping(data.get("context"), "'context'")
    extra = ["iterations", "threads"]
    rows = []
    aggregates, failed, seen = 0, [], {}
    for entry in benchmarks:
        name = _require(entry, "name", "benchmark entry", "Google Benchmark")
        if entry.get("run_type", "iteration") == "aggregate":
            aggregates += 1
            continue
        if entry.get("error_occurred"):
            failed.append(f"{name}: {entry.get('error_message', 'error')}")
            continue
        run_name = entry.get("run_name", name)
        # older versions have no repetition_index: count the repetitions of each name in file order
        repetition = entry.get("repetition_index", seen.get(run_name, 0))
        seen[run_name] = repetition + 1
        rows.append(
            dict(
                benchmark=run_name,
                host=context.get("host_name"),
                timestamp=context.get("date"),
                batch=repetition,
                iteration=0,
                warmup=False,
                value=_require(entry, time, name, "Google Benchmark"),
                unit=entry.get("time_unit", "ns"),
                iterations=entry.get("iterations"),
                threads=entry.get("threads", 1),
            )
        )
    if failed and errors == "raise":
        raise MalformedFileError(
            f"source: {len(failed)} benchmark(s) reported errors: {failed[:3]}; pass errors='drop' to leave them out"
        )
    if failed:
        warnings.warn(f"{len(failed)} benchmark run(s) reported errors and were left out: {failed[:3]}", stacklevel=4)
    attrs = {"tool": "Google Benchmark", "context": context, "aggregates": aggregates, "errors": failed, "time": time}
    return rows, extra, attrs


def _jmh_values(metric: dict, where: str) -> list[list[np.ndarray]]:
    """Per fork, per iteration: the raw values (a SampleTime histogram expanded by its counts); a field of the
    wrong shape or a value that is not a number is a :class:`MalformedFileError` naming it."""
    try:
        return _jmh_raw(metric, where)
    except ValueError as error:  # a TypeError is the reader's wrapper's: "not a well-formed JMH JSON file"
        if isinstance(error, MalformedFileError):
            raise
        raise MalformedFileError(
            f"source: {where}: its rawData or rawDataHistogram is not lists of numbers ({error})"
        ) from None


def _jmh_raw(metric: dict, where: str) -> list[list[np.ndarray]]:
    if "rawData" in metric:  # JSON's true and false are no numbers: NaN, refused with the others
        return [[np.array([_no_flag(value)], dtype=float) for value in fork] for fork in metric["rawData"]]
    if "rawDataHistogram" in metric:
        forks, declared = [], 0.0
        for fork in metric["rawDataHistogram"]:
            iterations = []
            for histogram in fork:
                pairs = np.asarray(
                    [[_no_flag(x) for x in pair] if isinstance(pair, list) else pair for pair in histogram], dtype=float
                ).reshape(-1, 2)
                if np.any(pairs[:, 1] < 0) or np.any(pairs[:, 1] != np.round(pairs[:, 1])):
                    raise MalformedFileError(f"source: {where}: histogram counts must be non-negative integers")
                declared += float(pairs[:, 1].sum())
                check_allocation("source", where, 8.0 * declared, what=f"{declared:,.0f} values its histograms declare")
                iterations.append(np.repeat(pairs[:, 0], pairs[:, 1].astype(int)))
            forks.append(iterations)
        return forks
    raise MalformedFileError(
        f"source: {where}: neither 'rawData' nor 'rawDataHistogram'; was the result written with -rf json?"
    )


def _no_flag(value):
    """A value as JMH's JSON has it, but true and false as NaN (a flag is no number; numpy would read 1 and 0)."""
    return float("nan") if isinstance(value, bool) else value


def jmh_rows(data, *, metric: str | None) -> tuple[list[dict], list[str], dict]:
    """:func:`perfstudy.io.read_jmh`'s rows, extra columns and attrs."""
    if not isinstance(data, list):
        raise MalformedFileError("source: JMH JSON is a list of results; got an object (is this a JMH -rf json file?)")
    extra = ["mode", "threads", "params", "warmup_iterations", "warmup_time", "jvm"]
    rows = []
    for position, result in enumerate(data):
        name = _require(result, "benchmark", f"result {position}", "JMH")
        if metric is None:
            chosen = _require(result, "primaryMetric", name, "JMH")
        else:
            secondary = _mapping(result.get("secondaryMetrics"), f"{name}'s secondaryMetrics")
            if metric not in secondary:
                raise ValueError(
                    f"source: metric={metric!r}: {name} has no such secondary metric; it has {sorted(secondary)}"
                )
            chosen = secondary[metric]
        chosen = _mapping(chosen, f"{name}'s metric")
        params = _mapping(result.get("params"), f"{name}'s params")
        label = ", ".join(f"{k}={v}" for k, v in params.items())
        benchmark = f"{name} [{label}]" if label else name
        common = dict(
            benchmark=benchmark,
            warmup=False,
            unit=chosen.get("scoreUnit"),
            mode=result.get("mode"),
            threads=result.get("threads"),
            params=label or None,
            warmup_iterations=result.get("warmupIterations"),
            warmup_time=result.get("warmupTime"),
            jvm=result.get("vmVersion"),
        )
        for fork, iterations in enumerate(_jmh_values(chosen, benchmark)):
            for iteration, values in enumerate(iterations):
                rows.extend(dict(common, batch=fork, iteration=iteration, value=value) for value in values)
    return rows, extra, {"tool": "JMH", "metric": metric or "primary"}


@_reader("pyperf")
def _pyperf_columns(source, *, dropna: bool = False) -> FileColumns:
    """:func:`read_pyperf`'s measurements as columns."""
    data = _read_json(source, "pyperf")
    suite_meta = _mapping(data.get("metadata"), "'metadata'")
    keys = {"name": None, "hostname": None, "date": None, "unit": "second", "inner_loops": 1, "loops": np.nan}
    per_run: dict = {key: [] for key in (*keys, "batch", "warmups", "count")}  # each run's, spread over its values
    values, loops, loads = [], [], []
    for b_index, bench in _entries(data, "benchmarks", "pyperf"):
        bench_meta = {**suite_meta, **_mapping(bench.get("metadata"), f"benchmark {b_index}'s metadata")}
        above = {key: bench_meta.get(key, default) for key, default in keys.items()}  # merged suite -> benchmark
        runs = _sequence(_require(bench, "runs", f"benchmark {b_index}", "pyperf"), f"benchmark {b_index}'s runs")
        for batch, run in enumerate(runs):
            run = _mapping(run, f"benchmark {b_index}, run {batch}")
            own = _mapping(run.get("metadata"), f"benchmark {b_index}, run {batch}'s metadata")
            meta = {**above, **{key: own[key] for key in keys if key in own}} if own else above  # -> run
            load = own.get("load_avg_1min", bench_meta.get("load_avg_1min"))
            if isinstance(load, (int, float)) and not isinstance(load, bool):
                loads.append(float(load))
            if meta["name"] is None:
                raise MalformedFileError(f"source: benchmark {b_index}: no 'name' in its metadata")
            warmups = _sequence(run.get("warmups", []), "'warmups'")
            measured = _sequence(run.get("values", []), "'values'")
            for w_loops, value in warmups:
                loops.append(w_loops)
                values.append(value)
            values += measured
            loops += [meta["loops"]] * len(measured)
            for key in keys:
                per_run[key].append(meta[key])
            per_run["batch"].append(batch)
            per_run["warmups"].append(len(warmups))
            per_run["count"].append(len(warmups) + len(measured))
    count = np.asarray(per_run["count"], dtype=np.int64)
    start = np.repeat(np.cumsum(count) - count, count)
    iteration = np.arange(int(count.sum()), dtype=np.int64) - start

    def spread(key: str) -> list:  # each run's value once per value of the run (any value: a list too)
        return list(itertools.chain.from_iterable(map(itertools.repeat, per_run[key], per_run["count"])))

    columns = dict(
        benchmark=spread("name"),
        host=spread("hostname"),
        timestamp=spread("date"),
        batch=np.repeat(np.asarray(per_run["batch"], dtype=np.int64), count),
        iteration=iteration,
        warmup=iteration < np.repeat(np.asarray(per_run["warmups"], dtype=np.int64), count),
        value=values,
        unit=spread("unit"),
        loops=loops,
        inner_loops=spread("inner_loops"),
    )
    if loads and "load_avg_1min" not in suite_meta:  # recorded run by run when it varied: their median, said once
        suite_meta = {**suite_meta, "load_avg_1min": round(float(np.median(loads)), 2)}
    return _measured(columns, {"tool": "pyperf", "metadata": suite_meta}, dropna)


@_reader("hyperfine", metric=HARNESSES["hyperfine"].metrics)
def _hyperfine_columns(source, *, metric: str = "wall", dropna: bool = False) -> FileColumns:
    """:func:`read_hyperfine`'s measurements as columns."""
    return _measured_rows(*hyperfine_rows(_read_json(source, "hyperfine"), metric=metric), dropna)


@_reader("Google Benchmark", metric=HARNESSES["google_benchmark"].metrics, errors=("raise", "drop"))
def _google_benchmark_columns(
    source, *, metric: str = "real_time", errors: str = "raise", dropna: bool = False
) -> FileColumns:
    """:func:`read_google_benchmark`'s measurements as columns."""
    rows = google_benchmark_rows(_read_json(source, "Google Benchmark"), time=metric, errors=errors)
    return _measured_rows(*rows, dropna)


@_reader("JMH", metric=str)
def _jmh_columns(source, *, metric: str | None = None, dropna: bool = False) -> FileColumns:
    """:func:`read_jmh`'s measurements as columns."""
    return _measured_rows(*jmh_rows(_read_json(source, "JMH"), metric=metric), dropna)
