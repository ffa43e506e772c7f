"""Suite scale: ``perfstudy compare`` beside benchstat on Go suites of 200, 2,000 and 10,000 benchmarks.

``python benchmarks/suite.py [--sizes 200 2000 10000] [--repeat 5]`` (``make bench-suite``).

Each suite is what ``go test -bench . -count 20`` writes for both versions: ``N`` benchmarks, 20
result lines a side, log-normal noise with an SD of 2%, and +5% planted in the first tenth of the
benchmarks (20 of 200). Both whole commands run on the same files, alternately, ``--repeat`` times
each, each in a fresh process: its wall time, and its peak resident memory from GNU time
(:func:`measure_peak`). perfstudy runs as a user who installed it has it: built as a wheel and installed,
byte-compiled, into a fresh environment (:func:`installed_perfstudy`).
Printed and written to ``build/suite.json``: the medians, their ratios against the suite-scale targets,
and the verdicts (planted regressions found, other benchmarks called changed) of both
tools, with the machine and its load average before and after. Beside them, in the same turns, the
*floor*: the same interpreter doing nothing but ``import numpy, numpy.random``, which every compare
needs; its ratio to benchstat says how much of a ratio target is left for the work itself.

benchstat comes from ``$BENCHSTAT`` or ``PATH``; ``benchmarks/build_benchstat.sh`` builds it from
source offline. Without it, only perfstudy is measured.

Targets (medians of the same run):

- 200 benchmarks: perfstudy's wall time at most 1.5x benchstat's;
- 10,000 benchmarks: at most 0.5x benchstat's wall time and 2x its peak memory;
- verdicts: every planted regression found and no false alarm at 200; at 10,000, at least 95% of the
  planted found and at most 0.5% of the others called changed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

RUNS = 20  # result lines per benchmark and version (go test -count 20)
NOISE = 0.02  # SD of the log of a line's ns/op
CHANGE = 0.05  # planted in the first PLANTED_SHARE of the benchmarks
PLANTED_SHARE = 0.1


def write_suite(folder: Path, benchmarks: int, *, seed: int = 37) -> tuple[str, str]:
    """``base.txt`` and ``new.txt`` in ``folder``: the go test output of both versions."""
    rng = np.random.default_rng(seed)
    planted = int(PLANTED_SHARE * benchmarks)
    base = 1000.0 * (1 + np.arange(benchmarks) % 17)
    iterations = 100_000 // (1 + np.arange(benchmarks) % 17)
    names = [f"BenchmarkCase{b:05d}-2" for b in range(benchmarks)]
    header = "goos: linux\ngoarch: amd64\npkg: example.com/suite\ncpu: AMD EPYC\n"
    paths = []
    for version, name in ((0, "base.txt"), (1, "new.txt")):
        factor = np.where(np.arange(benchmarks) < planted, 1.0 + CHANGE * version, 1.0)
        lines = [header]
        for _ in range(RUNS):  # go test -count=N writes the whole suite, N times over
            ns = base * factor * np.exp(rng.normal(0.0, NOISE, benchmarks))
            lines += [f"{n} \t{i:8d}\t{v:12.1f} ns/op\n" for n, i, v in zip(names, iterations, ns)]
        lines.append("PASS\nok  \texample.com/suite\t12.345s\n")
        path = folder / name
        path.write_text("".join(lines))
        paths.append(str(path))
    return paths[0], paths[1]


def measure_peak(argv: list[str]) -> dict:
    """Wall time and peak resident memory (MiB) of ``argv``, its stdout kept.

    The peak comes from GNU time (``/usr/bin/time``, Debian's ``time``), which forks the command from its
    own small process. A command started from this Python process, by ``subprocess`` or ``os.posix_spawn``
    alike, shares or copies the parent's resident pages until it execs, and the kernel keeps that
    high-water mark in ``ru_maxrss``: 36 MiB for a benchstat run whose own peak is 10 MiB. Without GNU time
    the peak is ``os.wait4``'s, so marked."""
    timer = "/usr/bin/time" if Path("/usr/bin/time").exists() else None
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile() as report:
        command = [timer, "-f", "%M", "-o", report.name, *argv] if timer else argv
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        peak_kib = float(Path(report.name).read_text().split()[-1]) if timer else usage.ru_maxrss
        return dict(
            seconds=seconds,
            peak_mib=peak_kib / 1024,
            peak_from="GNU time" if timer else "wait4 (includes this process's pages)",
            returncode=os.waitstatus_to_exitcode(status),
            out=out.read().decode(),
            err=err.read().decode(),
        )


def installed_perfstudy(folder: Path) -> str:
    """``perfstudy`` as a user who installs the package has it: this checkout built as a wheel and installed
    (byte-compiled) into a fresh virtual environment that finds the rest of this one's packages through a
    ``.pth`` line. The checkout's own ``.venv`` holds an editable install, whose import hook costs every
    command 14 ms here, and ``PYTHONDONTWRITEBYTECODE`` may leave it compiling its modules on every run."""
    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    wheels = folder / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(root)], check=True)  # fmt: skip
    site = next(folder.glob("lib/python*/site-packages"))
    python = str(folder / "bin" / "python")
    subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps", *map(str, wheels.glob("*.whl"))], check=True)  # fmt: skip
    here = next(Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())
    (site / "_perfstudy_bench_deps.pth").write_text(f"{here}\n")
    subprocess.run([python, "-m", "compileall", "-q", str(site / "perfstudy")], check=True)
    return str(folder / "bin" / "perfstudy")


def alternated(tools: dict[str, list[str]], repeat: int) -> dict[str, list[dict]] | None:
    """Each tool's :func:`measure_peak` runs, ``repeat`` each, the tools taking turns (in reverse order every other
    time), so that a change of load meets all of them; None, its error printed, if a command failed."""
    runs: dict[str, list[dict]] = {tool: [] for tool in tools}
    for index in range(repeat):
        for tool in list(tools) if index % 2 == 0 else list(reversed(tools)):
            done = measure_peak(tools[tool])
            if done["returncode"] not in (0, 1):
                print(done["err"], file=sys.stderr)
                return None
            runs[tool].append(done)
    return runs


def medians(measured: list[dict]) -> dict:
    """The median, min and max wall time and the median peak memory of one tool's runs."""
    return dict(
        median_s=statistics.median(r["seconds"] for r in measured),
        min_s=min(r["seconds"] for r in measured),
        max_s=max(r["seconds"] for r in measured),
        median_peak_mib=statistics.median(r["peak_mib"] for r in measured),
    )


def perfstudy_verdicts(output: str) -> dict[str, str]:
    """Benchmark to verdict, from ``perfstudy compare --format json``."""
    rows = json.loads(output)["benchmarks"]
    return {row["benchmark"]: row["verdict"] for row in rows}


_BENCHSTAT_ROW = re.compile(r"^(Case\d+-2)\s.*?(~|[+-]\d+\.\d+%)\s+\(p=")


def benchstat_verdicts(output: str) -> dict[str, str]:
    """Benchmark to ``"changed"`` or ``"no change"``, from benchstat's text (``~`` is no change)."""
    found = {}
    for line in output.splitlines():
        match = _BENCHSTAT_ROW.match(line)
        if match:
            found[match.group(1)] = "no change" if match.group(2) == "~" else "changed"
    return found


def score(verdicts: dict[str, str], benchmarks: int, *, changed=("slower", "faster", "changed")) -> dict:
    """Planted regressions found and the others called changed."""
    planted = int(PLANTED_SHARE * benchmarks)
    names = [f"Case{b:05d}-2" for b in range(benchmarks)]
    found = sum(verdicts.get(n) in ("slower", "changed") for n in names[:planted])
    false = sum(verdicts.get(n) in changed for n in names[planted:])
    return dict(
        planted=planted,
        found=found,
        others=benchmarks - planted,
        false_alarms=false,
        read=len(verdicts),
    )


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 2000, 10000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default="build/suite.json")
    parser.add_argument("--perfstudy", help="the command to measure (default: this checkout, installed from a wheel)")
    args = parser.parse_args(argv)
    benchstat = os.environ.get("BENCHSTAT") or shutil.which("benchstat")
    install = Path(tempfile.mkdtemp(prefix="perfstudy-wheel-"))
    args.perfstudy = args.perfstudy or installed_perfstudy(install)
    # the floor: the same interpreter starting and importing what any compare needs (numpy and its
    # generator), timed in turn with the two tools, so that a ratio target can be set against it
    beside = Path(args.perfstudy).with_name("python")
    floor_python = str(beside) if beside.exists() else sys.executable
    load_before = os.getloadavg()
    print(f"machine: {machine()}; load average {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}")
    if benchstat is None:
        print("benchstat: not found ($BENCHSTAT or PATH; benchmarks/build_benchstat.sh builds it): perfstudy alone")
    results, missed = [], []
    for size in args.sizes:
        folder = Path(tempfile.mkdtemp(prefix=f"suite{size}-"))
        base, new = write_suite(folder, size)
        tools = {"perfstudy": [args.perfstudy, "compare", base, new]}
        if benchstat:
            tools["benchstat"] = [benchstat, base, new]
        tools["floor"] = [floor_python, "-c", "import numpy, numpy.random"]
        runs = alternated(tools, args.repeat)
        if runs is None:
            return 2
        row: dict = dict(benchmarks=size, lines=2 * RUNS * size, file_mib=2 * Path(base).stat().st_size / 2**20)
        floor = medians(runs.pop("floor"))
        for tool, measured in runs.items():
            if tool == "perfstudy":  # timed as people run it, with its table; the verdicts read from its JSON
                verdicts = perfstudy_verdicts(measure_peak([*tools[tool], "--format", "json"])["out"])
            else:
                verdicts = benchstat_verdicts(measured[0]["out"])
            row[tool] = medians(measured) | score(verdicts, size)
        shutil.rmtree(folder)
        ours = row["perfstudy"]
        line = (
            f"{size:6d} benchmarks  perfstudy {ours['median_s']:7.3f} s {ours['median_peak_mib']:6.0f} MiB "
            f"found {ours['found']}/{ours['planted']} false {ours['false_alarms']}/{ours['others']}"
        )
        row["floor"] = floor
        line += f"  | floor {floor['median_s']:6.3f} s"
        if "benchstat" in row:
            theirs = row["benchstat"]
            row["time_ratio"] = ours["median_s"] / theirs["median_s"]
            row["floor_ratio"] = floor["median_s"] / theirs["median_s"]
            row["memory_ratio"] = ours["median_peak_mib"] / theirs["median_peak_mib"]
            line += (
                f"  | benchstat {theirs['median_s']:7.3f} s {theirs['median_peak_mib']:6.0f} MiB "
                f"found {theirs['found']}/{theirs['planted']} false {theirs['false_alarms']}/{theirs['others']}"
                f"  | time {row['time_ratio']:.2f}x memory {row['memory_ratio']:.2f}x floor {row['floor_ratio']:.2f}x"
            )
            row["targets"] = targets(row)
            if not all(row["targets"].values()):
                missed.append(size)
        print(line, flush=True)
        results.append(row)
    load_after = os.getloadavg()
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    for row in results:
        for name, ok in row.get("targets", {}).items():
            print(f"{row['benchmarks']:6d}: {name}: {'OK' if ok else 'MISSED'}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(dict(machine=machine(), load_before=load_before, load_after=load_after, results=results), indent=1)
    )
    return 1 if missed else 0


def targets(row: dict) -> dict[str, bool]:
    """The suite-scale targets that apply at this size."""
    ours, size = row["perfstudy"], row["benchmarks"]
    found = {}
    if size <= 200:
        found["time at most 1.5x benchstat's"] = row["time_ratio"] <= 1.5
        found["every planted found, no false alarm"] = ours["found"] == ours["planted"] and ours["false_alarms"] == 0
    if size >= 10_000:
        found["time at most 0.5x benchstat's"] = row["time_ratio"] <= 0.5
        found["peak memory at most 2x benchstat's"] = row["memory_ratio"] <= 2.0
        found["95% of planted found, 0.5% false"] = (
            ours["found"] >= 0.95 * ours["planted"] and ours["false_alarms"] <= 0.005 * ours["others"]
        )
    return found


if __name__ == "__main__":
    sys.exit(main())
