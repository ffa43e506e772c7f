"""A pull request's suite on a shared runner: perfstudy against benchstat and a fixed gate, same machine time.

``python benchmarks/ci_trial.py [--pull-requests 8] [--seconds 120] [--batch 2ms]`` (``make bench-ci``).

Runs :func:`perfstudy.studies.ci_trial.ci_trial`: a Go suite of 20 benchmarks, pull requests that each plant +2% in
two benchmarks and +5% in two, each judged by perfstudy interleaved, perfstudy duet, ``-count 10`` + benchstat and a
2% gate on 5-run means, every method within ``--seconds`` of machine time, while two busy processes are switched on
and off every 1-4 s. benchstat comes from ``$BENCHSTAT`` or ``PATH`` (``benchmarks/build_benchstat.sh`` builds it
offline); without it, that method is left out and the output says so.

Prints, per method: pull requests falsely red (an unchanged benchmark called slower), false alarms per unchanged
benchmark, planted 2% and 5% changes found (called slower), the median half-width of the 95% intervals and the
machine minutes per pull request; with the machine and its load. Writes the same, and every call, to
``build/ci_trial.json``.

Targets (perfstudy, 8 pull requests, at most 3 machine-minutes each): at most 1 pull request falsely red,
at most 1% false alarms, at least 15 of 16 planted 5% changes and 12 of 16 planted 2% changes found, a median
half-width of at most 1%.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from perfstudy.studies.ci_trial import METHODS, ci_trial


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pull-requests", type=int, default=8, help="pull requests (default 8)")
    parser.add_argument(
        "--seconds", type=float, default=120.0, help="each method's machine time per pull request (default 120)"
    )
    parser.add_argument("--batch", default="2ms", help="perfstudy's -test.benchtime per batch (default 2ms)")
    parser.add_argument("--threshold", type=float, default=0.01, help="perfstudy's threshold (default 0.01)")
    parser.add_argument("--methods", default=",".join(METHODS), help=f"of {', '.join(METHODS)} (default all)")
    parser.add_argument("--seed", type=int, default=0, help="the plants, the load and the round orders (default 0)")
    parser.add_argument("--out", default="build/ci_trial.json", help="the record (default build/ci_trial.json)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    trial = ci_trial(args.pull_requests, seconds=args.seconds, batch=args.batch, threshold=args.threshold,
                     methods=args.methods.split(","), seed=args.seed, progress=True)  # fmt: skip
    summary = trial.scores()
    machine = f"{platform.machine()}, {len(os.sched_getaffinity(0))} CPUs, Python {platform.python_version()}"
    print(f"{machine}; load {trial.load[0]:.2f} at the start, {trial.load[1]:.2f} at the end; "
          f"{(time.monotonic() - started) / 60:.1f} min in all")  # fmt: skip
    print(summary.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    for method, why in trial.left_out.items():
        print(f"{method} left out: {why}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    record = dict(machine=machine, load=trial.load, seconds=trial.seconds, batch=trial.batch,
                  threshold=trial.threshold, gate=trial.gate, benchtimes=trial.benchtimes, left_out=trial.left_out,
                  summary=summary.to_dict("records"), calls=trial.table.to_dict("records"))  # fmt: skip
    Path(args.out).write_text(json.dumps(record, indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
