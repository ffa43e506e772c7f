"""Speed benchmarks against the issues' targets. Run with ``make bench`` (or ``python benchmarks/run.py``).

Prints, per benchmark, the median, min and max wall time of ``--repeat`` runs, the target and
whether the median meets it, with the machine it ran on; writes the same to
``build/benchmarks.json``. Exit status 1 if a median misses its target. Timing lives here, never
in the tests.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from perfstudy import PERFLAB_ENDPOINTS, simulate
from perfstudy.sweeps import standard_error_sweep

FIGURE_4 = dict(hosts=(4, 8, 16, 32), requests=(100, 150, 200, 300, 500, 700, 1000, 1400), experiments=10_000)


def simulate_10k_by_1024():
    # 16 hosts, 512 requests per condition, T = 1: 1,024 observations per experiment
    simulate("fully_balanced", PERFLAB_ENDPOINTS[1], requests=512, hosts=16, experiments=10_000, rng=1)


def figure_4_two_processes():
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        standard_error_sweep(PERFLAB_ENDPOINTS[1], executor=pool, rng=1, **FIGURE_4)


def figure_4_in_process():
    standard_error_sweep(PERFLAB_ENDPOINTS[1], rng=1, **FIGURE_4)


BENCHMARKS = {
    # name: (function, target seconds, what it measures)
    "simulate_10k_x_1024": (simulate_10k_by_1024, 2.0,
                            "simulate(): 10,000 experiments x 1,024 observations, y materialised"),
    "figure4_2_processes": (figure_4_two_processes, 60.0,
                            "Figure 4 full size: 4 designs x 4 hosts x 8 request counts x 10,000 experiments, "
                            "ProcessPoolExecutor(2), pool start-up included"),
    "figure4_in_process": (figure_4_in_process, 60.0, "the same in one process"),
}


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=sorted(BENCHMARKS))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default="build/benchmarks.json")
    args = parser.parse_args(argv)
    names = args.only or list(BENCHMARKS)
    print(f"machine: {machine()}")
    results, missed = [], []
    for name in names:
        fn, target, what = BENCHMARKS[name]
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        ok = median <= target
        if not ok:
            missed.append(name)
        results.append(dict(name=name, what=what, median_s=median, min_s=min(times), max_s=max(times),
                            repeats=len(times), target_s=target, meets_target=ok))
        print(f"{name:24s} median {median:7.2f} s  (min {min(times):.2f}, max {max(times):.2f}, n={len(times)})"
              f"  target {target:g} s  {'OK' if ok else 'MISSED'}", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(machine=machine(), results=results), indent=1))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
