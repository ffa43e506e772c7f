"""The metric ``instructions`` against its targets, each run a fresh ``perfstudy run`` process.

- A/A on identical builds, instructions only, ``--threshold 5%`` (the default): a C loop (two copies of one binary)
  and a Python script (one ``python -S`` command as A and as B): "no change" in at least 19 of 20 runs each.
- A planted +1% in instructions (the C loop 1% longer), ``--threshold 0.5%``: "slower" in 20 of 20 runs, in at most
  10 batches of each version.

Every run has ``--values 1 --warmup 0 --max-rounds N`` (``--max-rounds``, 40 by default: a Python process's count
moves by a few percent from run to run, its hash seed and addresses, and 20 rounds left one A/A run in five
undecided) and its own seed. Prints each scenario's verdicts, rounds
(median and most) and minutes, the machine and its load average before and after; writes
``build/instructions.json``; exit status 1 if a target is missed, 2 if valgrind or cc is missing.

``python benchmarks/instructions.py [--runs 20] [--max-rounds 40] [--only NAME]``
"""

from __future__ import annotations

import argparse
import collections
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

LOOP = "int main(void) { volatile unsigned long x = 0; for (unsigned long i = 0; i < WORK; i++) x += i; return 0; }\n"
SCRIPT = "for _ in range(100000): pass\n"


def _build(folder: Path) -> dict[str, str]:
    (folder / "loop.c").write_text(LOOP)
    built = {}
    for name, work in (("c", 1_000_000), ("c_plus_1pct", 1_010_000)):
        subprocess.run(["cc", "-O1", f"-DWORK={work}", "loop.c", "-o", name], cwd=folder, check=True)
        built[name] = str(folder / name)
    shutil.copy(built["c"], folder / "c_copy")
    built["c_copy"] = str(folder / "c_copy")
    (folder / "script.py").write_text(SCRIPT)
    built["python"] = f"{sys.executable} -S {folder / 'script.py'}"
    return built


def _run(a: str, b: str, threshold: str, seed: int, out: Path, max_rounds: int) -> dict:
    argv = [sys.executable, "-m", "perfstudy", "run", "--a", a, "--b", b, "--metric", "instructions",
            "--threshold", threshold, "--values", "1", "--warmup", "0", "--max-rounds", str(max_rounds), "--no-progress",
            "--seed", str(seed), "--out", str(out), "--format", "json"]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"perfstudy run exited {done.returncode}: {done.stderr[-2000:]}")
    document = json.loads(done.stdout)
    (row,) = document["benchmarks"]
    return dict(verdict=row["verdict"], change=row["change"], rounds=document["rounds"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--max-rounds", type=int, default=40)
    parser.add_argument("--only", default=None, help="one scenario's name, as the report prints it")
    args = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("cc") is None:
        print("valgrind and cc are needed (apt-get install valgrind gcc)", file=sys.stderr)
        return 2
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix="perfstudy-instructions-"))
    built = _build(folder)
    scenarios = {
        "A/A, C loop": (built["c"], built["c_copy"], "5%", "no change", args.runs - args.runs // 20),
        "A/A, Python script": (built["python"], built["python"], "5%", "no change", args.runs - args.runs // 20),
        "+1% instructions, C loop": (built["c"], built["c_plus_1pct"], "0.5%", "slower", args.runs),
    }
    if args.only is not None and args.only not in scenarios:
        print(f"--only {args.only!r}: expected one of {sorted(scenarios)}", file=sys.stderr)
        return 2
    report, missed = {}, []
    for name, (a, b, threshold, wanted, at_least) in scenarios.items():
        if args.only is not None and name != args.only:
            continue
        began = time.perf_counter()
        runs = []
        for seed in range(args.runs):
            runs.append(_run(a, b, threshold, seed, folder / f"{len(report)}-{seed}.csv", args.max_rounds))
            print(f"  {name} seed {seed}: {runs[-1]}", flush=True)
        verdicts = collections.Counter(r["verdict"] for r in runs)
        rounds = [r["rounds"] for r in runs]
        hits = verdicts[wanted]
        ok = hits >= at_least and (wanted != "slower" or max(rounds) <= 10)
        report[name] = dict(verdicts=dict(verdicts), wanted=wanted, hits=hits, at_least=at_least,
                            rounds_median=statistics.median(rounds), rounds_most=max(rounds),
                            changes=[r["change"] for r in runs], minutes=(time.perf_counter() - began) / 60, met=ok)  # fmt: skip
        print(f"{name}: {hits} of {args.runs} {wanted!r} (target {at_least}); verdicts {dict(verdicts)}; rounds "
              f"median {statistics.median(rounds):g}, most {max(rounds)}; {report[name]['minutes']:.1f} min"
              f"{'' if ok else '  MISSED'}", flush=True)  # fmt: skip
        if not ok:
            missed.append(name)
    shutil.rmtree(folder, ignore_errors=True)
    machine = dict(cpus=os.cpu_count(), processor=platform.processor() or platform.machine(),
                   load_before=load_before, load_after=os.getloadavg()[0], max_rounds=args.max_rounds,
                   minutes=(time.perf_counter() - started) / 60)  # fmt: skip
    print(f"machine: {machine['cpus']} CPUs, load average {load_before:.2f} before, {machine['load_after']:.2f} after; "
          f"{machine['minutes']:.1f} min")  # fmt: skip
    Path("build").mkdir(exist_ok=True)
    Path("build/instructions.json").write_text(json.dumps(dict(machine=machine, scenarios=report), indent=1))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
