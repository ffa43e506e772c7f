"""pyperf suites: ``perfstudy compare`` beside ``pyperf compare_to`` on the same two files, 200 and 2,000 benchmarks.

``python benchmarks/pyperf_suite.py [--sizes 200 2000] [--repeat 5]``.

Each suite is what pyperf writes for two versions: ``N`` benchmarks, each run in 20 worker processes of one
warm-up and 3 values (pyperf's ``--processes 20 --values 3``), in seconds. A process has an effect of its own
(log-normal, SD ``PROCESS_SD``: the reason pyperf spawns processes at all), and each value noise of its own
(SD ``VALUE_SD``). +5% is planted in the first tenth of the benchmarks (20 of 200).

Both whole commands run on the same files, alternately, ``--repeat`` times each, each in a fresh process
(perfstudy installed from a wheel as a user has it, :func:`suite.installed_perfstudy`). Printed and written to
``build/pyperf_suite.json``: the medians, their ratio, and the verdicts of both tools (planted found, others
called changed), with the machine and its load average before and after.

``pyperf compare_to`` calls a benchmark changed when Student's two-sample t test over all its values is
significant at 5% (``pyperf._utils.is_significant``): the 60 values a side are treated as independent,
though 20 processes' effects sit under them. perfstudy clusters by process.

Targets (medians of the same run): 200 benchmarks at most 1.0x ``pyperf compare_to``'s wall time,
2,000 at most 0.4x; perfstudy finds every planted change with no false call at 200, and at 2,000 at least 95%
of them with at most 0.5% of the others called changed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from suite import alternated, installed_perfstudy, machine, measure_peak, medians, perfstudy_verdicts  # noqa: E402

PROCESSES = 20  # worker processes per benchmark and version (pyperf --processes 20)
VALUES = 3  # values per process (pyperf --values 3), after one warm-up
PROCESS_SD = 0.02  # SD of the log of a process's effect
VALUE_SD = 0.01  # SD of the log of a value within its process
CHANGE = 0.05
PLANTED_SHARE = 0.1
#: wall time at most this many times pyperf compare_to's, by suite size
TIME_TARGETS = {200: 1.0, 2000: 0.4}


def write_pyperf_suite(folder: Path, benchmarks: int, *, seed: int = 51) -> tuple[str, str]:
    """``base.json`` and ``new.json`` in ``folder``: pyperf's JSON of both versions (format version 1.0)."""
    rng = np.random.default_rng(seed)
    planted = int(PLANTED_SHARE * benchmarks)
    base = 1e-3 * (1 + np.arange(benchmarks) % 17)
    paths = []
    for version, name in ((0, "base.json"), (1, "new.json")):
        factor = np.where(np.arange(benchmarks) < planted, 1.0 + CHANGE * version, 1.0)
        process = np.exp(rng.normal(0.0, PROCESS_SD, (benchmarks, PROCESSES, 1)))
        values = (base * factor)[:, None, None] * process * np.exp(rng.normal(0.0, VALUE_SD, (benchmarks, PROCESSES, 1 + VALUES)))  # fmt: skip
        suite = dict(
            version="1.0",
            metadata=dict(hostname="bench", python_version="3.11.7"),
            benchmarks=[
                dict(
                    metadata=dict(name=f"case{b:05d}", loops=1, unit="second"),
                    runs=[
                        dict(
                            metadata=dict(date="2026-11-27T21:00:00", duration=0.1),
                            warmups=[[1, float(values[b, p, 0])]],
                            values=[float(v) for v in values[b, p, 1:]],
                        )
                        for p in range(PROCESSES)
                    ],
                )
                for b in range(benchmarks)
            ],
        )
        path = folder / name
        path.write_text(json.dumps(suite))
        paths.append(str(path))
    return paths[0], paths[1]


_PYPERF_ROW = re.compile(r"^(\S+): Mean \+- std dev: .*: [\d.]+x (slower|faster)$")


def pyperf_verdicts(output: str) -> dict[str, str]:
    """Benchmark to ``"slower"``, ``"faster"`` or ``"no change"``, from ``pyperf compare_to``'s text: a line
    ``NAME: Mean +- std dev: [base] ... -> [new] ...: 1.05x slower`` for each significant benchmark, and the
    benchmarks it hides as not significant."""
    found: dict[str, str] = {}
    for line in output.splitlines():
        match = _PYPERF_ROW.match(line.strip())
        if match:
            found[match.group(1)] = match.group(2)
        elif line.startswith("Benchmark hidden because not significant"):
            for name in line.split(":", 1)[1].split(","):
                found[name.strip()] = "no change"
    return found


def score(verdicts: dict[str, str], benchmarks: int) -> dict:
    """Planted changes found (called slower) and the others called changed."""
    planted = int(PLANTED_SHARE * benchmarks)
    names = [f"case{b:05d}" for b in range(benchmarks)]
    return dict(
        planted=planted,
        found=sum(verdicts.get(n) == "slower" for n in names[:planted]),
        others=benchmarks - planted,
        false_alarms=sum(verdicts.get(n) in ("slower", "faster") for n in names[planted:]),
        read=len(verdicts),
    )


def _verdicts_met(ours: dict, size: int) -> bool:
    """perfstudy's verdicts against their targets, as for Go suites (suite.py): every planted change found and no
    false call at 200; at least 95% found and at most 0.5% of the others called changed beyond (Holm over
    thousands of benchmarks costs power)."""
    if size <= 200:
        return ours["found"] == ours["planted"] and ours["false_alarms"] == 0
    return ours["found"] >= 0.95 * ours["planted"] and ours["false_alarms"] <= 0.005 * ours["others"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 2000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default="build/pyperf_suite.json")
    parser.add_argument("--perfstudy", help="the command to measure (default: this checkout, installed from a wheel)")
    args = parser.parse_args(argv)
    try:
        import pyperf  # noqa: F401
    except ImportError:
        print("pyperf_suite: pyperf is not installed (pip install pyperf); nothing to compare with")
        return 2
    args.perfstudy = args.perfstudy or installed_perfstudy(Path(tempfile.mkdtemp(prefix="perfstudy-wheel-")))
    load_before = os.getloadavg()
    print(f"machine: {machine()}; load average {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}")
    results, missed = [], []
    for size in args.sizes:
        folder = Path(tempfile.mkdtemp(prefix=f"pyperf{size}-"))
        base, new = write_pyperf_suite(folder, size)
        tools = {
            "perfstudy": [args.perfstudy, "compare", base, new],
            "pyperf": [sys.executable, "-m", "pyperf", "compare_to", base, new],
        }
        runs = alternated(tools, args.repeat)
        if runs is None:
            return 2
        row: dict = dict(benchmarks=size, file_mib=2 * Path(base).stat().st_size / 2**20)
        for tool, measured in runs.items():
            if tool == "perfstudy":  # timed as people run it, with its table; the verdicts read from its JSON
                verdicts = perfstudy_verdicts(measure_peak([*tools[tool], "--format", "json"])["out"])
            else:
                verdicts = pyperf_verdicts(measured[0]["out"])
            row[tool] = medians(measured) | score(verdicts, size)
        shutil.rmtree(folder)
        ours, theirs = row["perfstudy"], row["pyperf"]
        row["time_ratio"] = ours["median_s"] / theirs["median_s"]
        target = TIME_TARGETS.get(size)
        row["met"] = (target is None or row["time_ratio"] <= target) and _verdicts_met(ours, size)
        if not row["met"]:
            missed.append(size)
        print(
            f"{size:6d} benchmarks  perfstudy {ours['median_s']:7.3f} s (min {ours['min_s']:.3f}, max "
            f"{ours['max_s']:.3f}) found {ours['found']}/{ours['planted']} false {ours['false_alarms']}/"
            f"{ours['others']}  | pyperf compare_to {theirs['median_s']:7.3f} s (min {theirs['min_s']:.3f}, max "
            f"{theirs['max_s']:.3f}) found {theirs['found']}/{theirs['planted']} false {theirs['false_alarms']}/"
            f"{theirs['others']}  | time {row['time_ratio']:.2f}x (target {target if target else '-'}x): "
            f"{'met' if row['met'] else 'MISSED'}",
            flush=True,
        )
        results.append(row)
    load_after = os.getloadavg()
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(dict(machine=machine(), load_before=load_before, load_after=load_after, results=results), indent=1)
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
