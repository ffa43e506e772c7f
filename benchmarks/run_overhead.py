"""What ``perfstudy run`` costs beside hyperfine, whole command against whole command, in the same run.

Two workloads, as the overhead targets state them:

- 200 one-value batches of ``/bin/true`` (100 rounds of A and B, ``--values 1 --warmup 0 -N``) against
  ``hyperfine -N --runs 200 /bin/true``: target, perfstudy's median within 4 times hyperfine's;
- 200 measurements of a 5 ms command (``sleep 0.005``) the same way: target, within 1.3 times;

and what ``--format json`` adds to the first: the same run printed as JSON against the same run printed as
a table, alternating: target, the JSON's median within 0.1 s of the table's.

Each pair runs ``--repeat`` times, the two tools alternating, each a fresh process timed from outside
(``time.perf_counter`` around ``subprocess.run``: imports, the environment record and the final table
included). Prints the medians, min and max, the ratio, the machine and its load average before and after;
writes ``build/run_overhead.json``; exit status 1 if a target is missed, 2 if hyperfine is not installed.

``python benchmarks/run_overhead.py [--repeat 7]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: (name, command, perfstudy's median / hyperfine's at most)
WORKLOADS = (
    ("200 runs of /bin/true", "/bin/true", 4.0),
    ("200 runs of a 5 ms command", "sleep 0.005", 1.3),
)


def _timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


#: the JSON's median at most this much over the table's (seconds)
JSON_TARGET = 0.1


def _perfstudy(command: str, folder: str, index: int, *, json: bool = False) -> list[str]:
    out = os.path.join(folder, f"run{index}.csv")
    return [sys.executable, "-m", "perfstudy", "run", "--a", command, "--b", command, "-N", "--values", "1",
            "--warmup", "0", "--min-rounds", "100", "--max-rounds", "100", "--no-progress", "--seed", str(index),
            "--out", out, *(["--format", "json"] if json else [])]  # fmt: skip


def _json_cost(folder: str, repeat: int) -> dict:
    """``perfstudy run --format json`` against the same run printed as a table, alternating."""
    times: dict[str, list[float]] = {"table": [], "json": []}
    for index in range(repeat):
        order = ("table", "json") if index % 2 == 0 else ("json", "table")
        for form in order:
            argv = _perfstudy("/bin/true", folder, 1000 + 2 * index + (form == "json"), json=form == "json")
            times[form].append(_timed(argv))
    medians = {form: statistics.median(values) for form, values in times.items()}
    extra = medians["json"] - medians["table"]
    return dict(
        workload="--format json over the table, 200 runs of /bin/true",
        target_s=JSON_TARGET,
        extra_s=extra,
        met=extra <= JSON_TARGET,
        **{f"{form}_median_s": medians[form] for form in times},
        **{f"{form}_min_s": min(values) for form, values in times.items()},
        **{f"{form}_max_s": max(values) for form, values in times.items()},
    )


def _hyperfine(command: str) -> list[str]:
    return ["hyperfine", "-N", "--runs", "200", "--warmup", "0", "--style", "none", command]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs of each tool per workload (default 7)")
    args = parser.parse_args()
    if shutil.which("hyperfine") is None:
        print("run_overhead: hyperfine is not installed (apt-get install hyperfine); nothing to compare with")
        return 2
    load_before = os.getloadavg()[0]
    results = []
    with tempfile.TemporaryDirectory() as folder:
        index = 0
        for name, command, target in WORKLOADS:
            times: dict[str, list[float]] = {"hyperfine": [], "perfstudy": []}
            for repeat in range(args.repeat):
                order = ("hyperfine", "perfstudy") if repeat % 2 == 0 else ("perfstudy", "hyperfine")
                for tool in order:
                    index += 1
                    argv = _hyperfine(command) if tool == "hyperfine" else _perfstudy(command, folder, index)
                    times[tool].append(_timed(argv))
            medians = {tool: statistics.median(values) for tool, values in times.items()}
            ratio = medians["perfstudy"] / medians["hyperfine"]
            results.append(
                dict(
                    workload=name,
                    command=command,
                    target=target,
                    ratio=ratio,
                    met=ratio <= target,
                    **{f"{tool}_median_s": medians[tool] for tool in times},
                    **{f"{tool}_min_s": min(values) for tool, values in times.items()},
                    **{f"{tool}_max_s": max(values) for tool, values in times.items()},
                )
            )
        json_cost = _json_cost(folder, args.repeat)
    load_after = os.getloadavg()[0]
    version = subprocess.run(["hyperfine", "--version"], capture_output=True, text=True).stdout.strip()
    machine = dict(
        cpus=os.cpu_count(),
        machine=platform.machine(),
        python=platform.python_version(),
        hyperfine=version,
        load_before=load_before,
        load_after=load_after,
        repeat=args.repeat,
    )
    print(f"machine: {machine}")
    for row in results:
        print(
            f"{row['workload']}: perfstudy {row['perfstudy_median_s']:.3f} s (min {row['perfstudy_min_s']:.3f}, max "
            f"{row['perfstudy_max_s']:.3f}), hyperfine {row['hyperfine_median_s']:.3f} s (min "
            f"{row['hyperfine_min_s']:.3f}, max {row['hyperfine_max_s']:.3f}): {row['ratio']:.2f}x, target <= "
            f"{row['target']:g}x: {'met' if row['met'] else 'MISSED'}"
        )
    print(
        f"{json_cost['workload']}: json {json_cost['json_median_s']:.3f} s (min {json_cost['json_min_s']:.3f}, max "
        f"{json_cost['json_max_s']:.3f}), table {json_cost['table_median_s']:.3f} s (min {json_cost['table_min_s']:.3f}, "
        f"max {json_cost['table_max_s']:.3f}): {json_cost['extra_s']:+.3f} s, target <= +{JSON_TARGET:g} s: "
        f"{'met' if json_cost['met'] else 'MISSED'}"
    )
    build = Path(__file__).resolve().parents[1] / "build"
    build.mkdir(exist_ok=True)
    (build / "run_overhead.json").write_text(
        json.dumps(dict(machine=machine, results=results, json=json_cost), indent=1)
    )
    return 0 if all(row["met"] for row in results) and json_cost["met"] else 1


if __name__ == "__main__":
    sys.exit(main())
