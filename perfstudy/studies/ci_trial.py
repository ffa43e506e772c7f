"""A pull request's benchmark suite on a shared runner: ``perfstudy run`` against what CI users do today.

A git repository holds a Go package of :data:`BENCHMARKS` benchmarks (:func:`go_suite`): five kernels (a xorshift
hash, a slice sum, map lookups, an insertion sort, FNV over bytes) at four sizes, each benchmark's work a count of
kernel repetitions read from a table, so that base and head compile to the same code and differ only in that table.
Each pull request is a commit on the base that plants +2% in two benchmarks and +5% in two (their repetitions, 100 to
400, grown by exactly that share) and leaves the others unchanged.

Every method gets the same machine time per pull request (:func:`ci_trial`), all while
:func:`perfstudy.studies.running.toggled_load` switches busy processes on and off:

- ``interleaved``: ``perfstudy run --base --head --measure go``, randomised interleaved rounds of one suite run a
  side, the sign rule, Holm across the benchmarks, ``threshold`` the smallest change that counts;
- ``duet``: the same with A and B at once, each pinned to a CPU (``--duet``);
- ``benchstat``: the common practice, ``-count 10`` of base, then of head, judged by benchstat (its Mann-Whitney
  U test at its default alpha 0.05, a change called where it prints one);
- ``gate``: CodSpeed's walltime threshold, a change called where the mean of 5 runs of head differs from the mean of
  5 runs of base by more than ``gate`` (2%).

The sequential methods' run length (``-test.benchtime``) is set from a suite run timed at the start, so that their
runs fill the budget; ``machine_seconds`` records what each really used.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfstudy._lib.checks import (
    check_bool,
    check_choice,
    check_coverage,
    check_each,
    check_int,
    check_real,
    check_text,
)
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed

__all__ = ["BENCHMARKS", "METHODS", "CITrial", "GoSuite", "ci_trial", "go_suite"]

#: the suite's kernels (Go function names) and sizes (kernel repetitions per operation, before any plant)
KERNELS = ("hash", "sum", "lookup", "sorting", "fnv")
SIZES = (100, 200, 300, 400)
#: the suite's benchmarks, as ``go test`` names them (without the ``-GOMAXPROCS`` suffix)
BENCHMARKS = tuple(f"Benchmark{k.capitalize()}{s}" for k in KERNELS for s in SIZES)
#: the methods of the trial, in the order the tables show them
METHODS = ("interleaved", "duet", "benchstat", "gate")
#: planted changes per pull request: two benchmarks at each
PLANTS = (0.02, 0.02, 0.05, 0.05)

_KERNELS_GO = """package suite

import "testing"

var work = [%(n)d]int{%(work)s}

var sink uint64

var data = func() []uint32 {
	d := make([]uint32, 256)
	for i := range d {
		d[i] = uint32(i) * 2654435761
	}
	return d
}()

var table = func() map[uint64]uint64 {
	m := make(map[uint64]uint64, 1024)
	for i := uint64(0); i < 1024; i++ {
		m[i*7] = i
	}
	return m
}()

func hash(reps int, x uint64) uint64 {
	for r := 0; r < reps; r++ {
		for i := 0; i < 16; i++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
	}
	return x
}

func sum(reps int, x uint64) uint64 {
	for r := 0; r < reps; r++ {
		for _, v := range data {
			x += uint64(v)
		}
	}
	return x
}

func lookup(reps int, x uint64) uint64 {
	for r := 0; r < reps; r++ {
		for i := uint64(0); i < 8; i++ {
			x += table[((x+i)%%1024)*7]
		}
	}
	return x
}

func sorting(reps int, x uint64) uint64 {
	var a [16]uint32
	for r := 0; r < reps; r++ {
		for i := range a {
			a[i] = data[(int(x)+r*31+i*37)&255]
		}
		for i := 1; i < len(a); i++ {
			v := a[i]
			j := i - 1
			for j >= 0 && a[j] > v {
				a[j+1] = a[j]
				j--
			}
			a[j+1] = v
		}
		x += uint64(a[0])
	}
	return x
}

func fnv(reps int, x uint64) uint64 {
	h := uint64(14695981039346656037)
	for r := 0; r < reps; r++ {
		for i := 0; i < 64; i++ {
			h ^= uint64(byte(x>>uint((i&7)*8)) + byte(i))
			h *= 1099511628211
		}
	}
	return h + x
}
"""

_BENCHMARK_GO = """
func %(name)s(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += %(kernel)s(work[%(index)d], uint64(i))
	}
}
"""


@dataclass(frozen=True)
class GoSuite(Result):
    """A git repository of the trial's Go suite (:func:`go_suite`).

    Attributes
    ----------
    path : str
        The repository.
    base : str
        The base commit's hash.
    heads : tuple of str
        Each pull request's commit, on the base.
    planted : DataFrame
        One row per pull request and benchmark: ``pull_request`` (1-based), ``benchmark``, ``planted`` (the relative
        change of its work: 0, 0.02 or 0.05).
    """

    path: str
    base: str
    heads: tuple
    planted: pd.DataFrame

    def to_frame(self):
        """The planted changes."""
        return self.planted.copy()


def _source(factors: np.ndarray) -> str:
    work = [round(SIZES[i % len(SIZES)] * float(factors[i])) for i in range(len(BENCHMARKS))]
    text = _KERNELS_GO % dict(n=len(BENCHMARKS), work=", ".join(map(str, work)))
    for index, name in enumerate(BENCHMARKS):
        text += _BENCHMARK_GO % dict(name=name, kernel=KERNELS[index // len(SIZES)], index=index)
    return text


def go_suite(path, *, pull_requests: int = 8, rng: Seed = None) -> GoSuite:
    """Write the trial's Go suite into a new git repository: a base commit, and one commit per pull request on it.

    Parameters
    ----------
    path : str or path
        An empty or absent folder.
    pull_requests : int
        How many pull requests; each plants :data:`PLANTS` in benchmarks drawn at random, the others unchanged.
    rng : int or Generator, optional
        Draws the planted benchmarks.

    Returns
    -------
    GoSuite
    """
    pull_requests = check_int("pull_requests", pull_requests, minimum=1, maximum=1_000)
    rng = np.random.default_rng(rng)
    path = Path(path)
    if path.exists() and any(path.iterdir()):
        raise ValueError(f"path={str(path)!r}: not empty; the repository is built in a new folder")
    path.mkdir(parents=True, exist_ok=True)

    def git(*args: str) -> str:
        return _git(str(path), *args)

    git("init", "-q")
    git("config", "user.email", "perfstudy@example.org")
    git("config", "user.name", "perfstudy")
    (path / "go.mod").write_text("module example.com/suite\n\ngo 1.19\n")
    (path / "suite_test.go").write_text(_source(np.ones(len(BENCHMARKS))))
    git("add", "go.mod", "suite_test.go")
    git("commit", "-q", "-m", "base: 20 benchmarks")
    base = git("rev-parse", "HEAD").strip()
    heads, rows = [], []
    for request in range(1, pull_requests + 1):
        chosen = rng.choice(len(BENCHMARKS), size=len(PLANTS), replace=False)
        factors = np.ones(len(BENCHMARKS))
        factors[chosen] += PLANTS
        git("checkout", "-q", "--detach", base)
        (path / "suite_test.go").write_text(_source(factors))
        said = ", ".join(f"{BENCHMARKS[i]} {p:+.0%}" for i, p in zip(chosen, PLANTS))
        git("commit", "-q", "-am", f"pull request {request}: {said}")
        heads.append(git("rev-parse", "HEAD").strip())
        rows += [
            dict(pull_request=request, benchmark=name, planted=round(float(factors[i] - 1), 6))
            for i, name in enumerate(BENCHMARKS)
        ]
    git("checkout", "-q", "--detach", base)
    return GoSuite(path=str(path), base=base, heads=tuple(heads), planted=pd.DataFrame(rows))


@dataclass(frozen=True)
class CITrial(Result):
    """The trial's calls, one row per pull request, method and benchmark (:func:`ci_trial`).

    Attributes
    ----------
    table : DataFrame
        ``pull_request``, ``method``, ``benchmark``, ``planted`` (0, 0.02 or 0.05), ``call`` (``"slower"``,
        ``"faster"`` or ``""``: the method called no change, or could not tell), ``verdict`` (the method's own word:
        perfstudy's verdict, benchstat's ``vs base`` column, the gate's), ``change``, ``low``, ``high`` (the
        interval of the change at :attr:`confidence`; for benchstat and the gate, which print none, a Welch t
        interval of the log values of their own runs), ``machine_seconds`` (the method's wall time on that pull request; perfstudy's includes its two builds, which
        its budget does not) and
        ``rounds`` (perfstudy's rounds; for the others, their runs a side).
    methods : tuple of str
    seconds : float
        Each method's budget per pull request.
    threshold : float
        perfstudy's threshold.
    gate : float
        The fixed gate's threshold.
    batch : str
        perfstudy's ``-test.benchtime`` per batch.
    benchtimes : mapping
        The sequential methods' ``-test.benchtime``, from the timed suite run.
    load : tuple of float
        The 1-minute load average at the start and at the end.
    left_out : mapping
        A method not run, and why.
    confidence : float
        Of every interval: perfstudy's, and the Welch intervals of the sequential methods.
    """

    table: pd.DataFrame
    methods: tuple
    seconds: float
    threshold: float
    gate: float
    batch: str
    benchtimes: dict
    load: tuple
    left_out: dict
    confidence: float = 0.95

    def to_frame(self):
        """The table."""
        return self.table.copy()

    def scores(self) -> pd.DataFrame:
        """One row per method: ``falsely_red`` (pull requests with an unchanged benchmark called slower, the gate
        red by mistake), ``pull_requests``, ``false_alarms`` (the share of unchanged benchmarks called slower or
        faster), ``found_2`` and ``found_5`` (planted changes called slower, of ``planted_2`` and ``planted_5``),
        ``median_half_width`` (of the intervals, relative; infinite where most are unbounded) and
        ``machine_minutes`` (per pull request, the mean)."""
        rows = []
        for method in self.methods:
            calls: Any = self.table[self.table.method == method]
            unchanged: Any = calls[calls.planted == 0]
            red = unchanged.groupby("pull_request").call.apply(lambda c: bool((c == "slower").any()))
            rows.append(
                dict(
                    method=method,
                    pull_requests=int(calls.pull_request.nunique()),
                    falsely_red=int(red.sum()),
                    false_alarms=float((unchanged.call != "").mean()) if len(unchanged) else math.nan,
                    unchanged=len(unchanged),
                    found_2=int(((calls.planted == 0.02) & (calls.call == "slower")).sum()),
                    planted_2=int((calls.planted == 0.02).sum()),
                    found_5=int(((calls.planted == 0.05) & (calls.call == "slower")).sum()),
                    planted_5=int((calls.planted == 0.05).sum()),
                    median_half_width=float(np.median((calls.high - calls.low) / 2)) if len(calls) else math.nan,
                    machine_minutes=float(calls.groupby("pull_request").machine_seconds.first().mean() / 60),
                )
            )
        return pd.DataFrame(rows)


def _git(repository: str, *args: str) -> str:
    """git's output in ``repository``; commits at a fixed date, so that the same rng gives the same commits."""
    dated = dict(os.environ, GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    return subprocess.run(["git", "-C", repository, *args], check=True, capture_output=True, text=True,
                          env=dated).stdout  # fmt: skip


def _build(repository: str, commit: str, folder: Path) -> str:
    """The commit's test binary, built in ``folder`` from the commit's files."""
    folder.mkdir(parents=True)
    for name in ("go.mod", "suite_test.go"):
        (folder / name).write_text(_git(repository, "show", f"{commit}:{name}"))
    subprocess.run(["go", "test", "-c", "-o", "suite.test"], cwd=folder, check=True, capture_output=True, text=True)
    return str(folder / "suite.test")


def _suite(binary: str, benchtime: str, count: int = 1) -> str:
    argv = [binary, "-test.run", "^$", "-test.bench", ".", "-test.benchtime", benchtime, "-test.count", str(count)]
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def _suite_name(name: str) -> str:
    """A benchmark as :data:`BENCHMARKS` names it, from its name in perfstudy's reading of ``go test`` output
    (``Hash100-2``: no ``Benchmark`` prefix, Go's ``-GOMAXPROCS`` suffix kept)."""
    return "Benchmark" + re.sub(r"-\d+$", "", name)


def _ns_per_op(text: str) -> dict[str, list[float]]:
    """``{benchmark: [ns/op, ...]}`` of ``go test -bench`` output, read by :func:`perfstudy.io.go.read_go`."""
    import io

    from perfstudy.io.go import read_go

    frame = read_go(io.StringIO(text))
    found: dict[str, list[float]] = {}
    for name, value in zip(frame["benchmark"], frame["value"]):
        found.setdefault(_suite_name(str(name)), []).append(float(value))
    return found


def _welch(a: list[float], b: list[float], confidence: float = 0.95) -> tuple[float, float]:
    """The ``confidence`` Welch t interval of ``exp(mean log b - mean log a) - 1``."""
    from scipy import stats

    la, lb = np.log(a), np.log(b)
    va, vb = la.var(ddof=1) / la.size, lb.var(ddof=1) / lb.size
    df = (va + vb) ** 2 / (va**2 / (la.size - 1) + vb**2 / (lb.size - 1)) if va + vb > 0 else np.inf
    half = stats.t.ppf(0.5 + confidence / 2, df) * math.sqrt(va + vb)
    centre = lb.mean() - la.mean()
    return math.expm1(centre - half), math.expm1(centre + half)


def _perfstudy(suite: GoSuite, head: str, folder: Path, batch: str, options: dict, seed: int) -> tuple[list[dict], int]:
    """``perfstudy run --base --head`` of one pull request, one suite run of ``batch`` a side per round; ``options``
    are the run's settings the trial chooses (threshold, confidence, max_time, duet)."""
    from perfstudy.experiment.worktrees import run_commits

    command = "{worktree}/suite.test -test.run '^$' -test.bench . -test.benchtime " + batch
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the load is the point: its warnings are the trial's subject
        result = run_commits(suite.base, head, command, repository=suite.path, setup="go test -c -o suite.test",
                             measure="go", values=1, warmup=0, max_rounds=10**7, progress=False,
                             out=folder / "run.csv", seed=seed, **options)  # fmt: skip
    rows = []
    for verdict in result.verdicts:
        said = verdict["verdict"]
        rows.append(dict(benchmark=_suite_name(verdict["benchmark"]), verdict=said,
                         call=said if said in ("slower", "faster") else "", change=verdict["change"],
                         low=verdict["low"], high=verdict["high"]))  # fmt: skip
    return rows, result.rounds


def _sequential(base: str, head: str, folder: Path, *, count: int, benchtime: str) -> tuple[dict, dict]:
    """``count`` suite runs of ``base``, then of ``head``, their output written to ``base.txt`` and ``head.txt`` in
    ``folder`` as ``go test -count`` writes it: each benchmark's ns/op, run by run."""
    runs = []
    for name, binary in (("base.txt", base), ("head.txt", head)):
        text = "".join(_suite(binary, benchtime) for _ in range(count))
        (folder / name).write_text(text)
        runs.append(_ns_per_op(text))
    return runs[0], runs[1]


def _benchstat(
    program: str, base: str, head: str, folder: Path, benchtime: str, confidence: float
) -> tuple[list[dict], int]:
    import csv
    import io

    a, b = _sequential(base, head, folder, count=10, benchtime=benchtime)
    text = subprocess.run([program, "-format", "csv", "base.txt", "head.txt"], cwd=folder, check=True,
                          capture_output=True, text=True).stdout  # fmt: skip
    rows = []
    for record in csv.reader(io.StringIO(text)):
        name = _suite_name(record[0]) if record else ""
        if len(record) < 7 or name not in BENCHMARKS:  # the header rows
            continue
        said = record[5]
        change = float(said.rstrip("%")) / 100 if said not in ("~", "?") else math.nan
        call = "" if math.isnan(change) else ("slower" if change > 0 else "faster")
        low, high = _welch(a[name], b[name], confidence)
        if math.isnan(change):
            change = float(np.median(b[name]) / np.median(a[name]) - 1)
        rows.append(dict(benchmark=name, verdict=f"{said} ({record[6]})", call=call, change=change, low=low, high=high))
    return rows, 10


def _gate(
    base: str, head: str, folder: Path, threshold: float, benchtime: str, confidence: float
) -> tuple[list[dict], int]:
    a, b = _sequential(base, head, folder, count=5, benchtime=benchtime)
    rows = []
    for name in BENCHMARKS:
        change = float(np.mean(b[name]) / np.mean(a[name]) - 1)
        call = "slower" if change > threshold else "faster" if change < -threshold else ""
        low, high = _welch(a[name], b[name], confidence)
        rows.append(dict(benchmark=name, verdict=call or "pass", call=call, change=change, low=low, high=high))
    return rows, 5


def ci_trial(
    pull_requests: int = 8,
    *,
    seconds: float = 180.0,
    threshold: float = 0.01,
    confidence: float = 0.95,
    gate: float = 0.02,
    batch: str = "2ms",
    methods=METHODS,
    busy: int = 2,
    benchstat: str | None = None,
    seed: int = 0,
    progress: bool = False,
) -> CITrial:
    """Run the trial (module text): :func:`go_suite`'s pull requests, each judged by every method in ``methods``
    within ``seconds`` of machine time, while :func:`perfstudy.studies.running.toggled_load` switches ``busy``
    spinning processes on and off every 1-4 s.

    Parameters
    ----------
    pull_requests : int
    seconds : float
        Each method's machine time per pull request (perfstudy's ``--max-time``; the sequential methods'
        run length is set to fill it).
    threshold : float
        perfstudy's ``--threshold``: the smallest change called slower or faster.
    confidence : float
        perfstudy's ``--confidence``, and the level of the Welch intervals drawn for the sequential methods.
    gate : float
        The fixed gate's threshold on the change of 5-run means (CodSpeed's walltime default is 2%... here the
        issue's).
    batch : str
        perfstudy's ``-test.benchtime`` per batch (one suite run a side per round).
    methods : sequence of str
        Of :data:`METHODS`.
    busy : int
        The load's spinning processes while it is on; 0: no load of the trial's own.
    benchstat : str, optional
        benchstat's program (default: ``$BENCHSTAT``, then ``PATH``). Without one, ``"benchstat"`` is left out and
        :attr:`CITrial.left_out` says why.
    seed : int
        Draws the planted benchmarks, the load's periods, the methods' order and the runs' round orders. The calls
        depend on the machine as well: a trial is not reproduced by its seed alone.
    progress : bool
        A line per pull request and method on stderr.

    Returns
    -------
    CITrial
    """
    pull_requests = check_int("pull_requests", pull_requests, minimum=1, maximum=100)
    seconds = check_real("seconds", seconds, positive=True)
    threshold = check_real("threshold", threshold, nonnegative=True)
    confidence = check_coverage(confidence, "confidence")
    gate = check_real("gate", gate, positive=True)
    methods = tuple(check_each("methods", methods, lambda name, value: check_choice(name, value, METHODS)))
    busy = check_int("busy", busy, minimum=0, maximum=64)
    seed = check_int("seed", seed, minimum=0, maximum=2**31 - 1_000)
    batch = check_text("batch", batch)
    if not re.fullmatch(r"\d+(\.\d+)?(ns|us|ms|s|m|h)|\d+x", batch):
        raise ValueError(
            f"batch={batch!r}: expected go test's -test.benchtime, a duration (2ms, 0.5s) or a count (100x)"
        )
    if benchstat is not None:
        benchstat = check_text("benchstat", benchstat)
    progress = check_bool("progress", progress)
    for program in ("go", "git"):
        if shutil.which(program) is None:
            raise RuntimeError(f"{program} is not on PATH: the trial builds and runs a Go suite in a git repository "
                               "(Debian: apt-get install golang-go git)")  # fmt: skip
    left_out = {}
    program = benchstat or os.environ.get("BENCHSTAT") or shutil.which("benchstat")
    if "benchstat" in methods and not (program and os.access(program, os.X_OK)):
        left_out["benchstat"] = ("benchstat was not found ($BENCHSTAT or PATH); benchmarks/build_benchstat.sh builds "
                                 "it from golang/perf without the network")  # fmt: skip
        methods = tuple(m for m in methods if m != "benchstat")
    if "duet" in methods and len(os.sched_getaffinity(0)) < 2:
        left_out["duet"] = "duet rounds need 2 CPUs; this process may use 1"
        methods = tuple(m for m in methods if m != "duet")
    from perfstudy.studies.running import toggled_load

    order = np.random.default_rng(seed)
    rows = []
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="perfstudy-ci-trial-") as scratch:
        folder = Path(scratch)
        suite = go_suite(folder / "repo", pull_requests=pull_requests, rng=seed)
        binaries = {c: _build(suite.path, c, folder / f"bin-{c[:12]}") for c in (suite.base, *suite.heads)}
        budget = seconds * pull_requests * len(methods) * 1.5 + 120
        with toggled_load(budget, busy=busy, seed=seed) if busy else contextlib.nullcontext():
            # the sequential methods' run length: one suite run at 20 ms a benchmark, timed under the load
            started = time.monotonic()
            _suite(binaries[suite.base], "20ms")
            per_ms = (time.monotonic() - started) / 20
            benchtimes = {"benchstat": f"{max(1, round(seconds / 20 / per_ms))}ms",
                          "gate": f"{max(1, round(seconds / 10 / per_ms))}ms"}  # fmt: skip
            for request, head in enumerate(suite.heads, start=1):
                planted = suite.planted[suite.planted.pull_request == request].set_index("benchmark").planted
                for method in order.permutation(methods):
                    work = folder / f"pr{request}-{method}"
                    work.mkdir()
                    started = time.monotonic()
                    if method in ("interleaved", "duet"):
                        options = dict(threshold=threshold, confidence=confidence, max_time=f"{seconds}s",
                                       duet=method == "duet")  # fmt: skip
                        found, rounds = _perfstudy(suite, head, work, batch, options, seed + request)
                    elif method == "benchstat":
                        found, rounds = _benchstat(str(program), binaries[suite.base], binaries[head], work,
                                                   benchtimes["benchstat"], confidence)  # fmt: skip
                    else:
                        found, rounds = _gate(
                            binaries[suite.base], binaries[head], work, gate, benchtimes["gate"], confidence
                        )
                    elapsed = time.monotonic() - started
                    for row in found:
                        rows.append(dict(pull_request=request, method=str(method), planted=float(planted[row["benchmark"]]),
                                         machine_seconds=elapsed, rounds=rounds, **row))  # fmt: skip
                    if progress:
                        print(f"pull request {request}/{pull_requests}, {method}: {elapsed:.0f} s", file=sys.stderr)
        load.append(os.getloadavg()[0])
    columns = ["pull_request", "method", "benchmark", "planted", "call", "verdict", "change", "low", "high",
               "machine_seconds", "rounds"]  # fmt: skip
    return CITrial(table=pd.DataFrame(rows, columns=columns), methods=methods, seconds=seconds, threshold=threshold,
                   gate=gate, batch=batch, benchtimes=benchtimes, load=tuple(load), left_out=left_out,
                   confidence=confidence)  # fmt: skip
