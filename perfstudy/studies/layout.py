"""Instructions where a machine has no counters, and a verdict that a layout effect cannot fake (notebook 12).

Small C programs, built here with ``cc -O1`` (:func:`build`), each run by :func:`perfstudy.experiment.run`:

- ``loop`` twice (two identical builds) and ``loop_plus`` (the same loop 1% longer), judged on
  ``--metric instructions`` (:func:`instruction_runs`): an A/A pair, and a planted +1%;
- ``divide`` against ``multiply`` on instructions and wall time at once: the multiplications are more instructions
  but run faster (a division's latency is many cycles), a disagreement the run's table names;
- ``copy`` (:func:`layout_trial`), Mytkowicz et al.'s effect (ASPLOS'09) built to show on this machine: it copies
  8 KiB from a static buffer into a stack buffer, and when the stack buffer starts 16 bytes past the static one
  (modulo 4096) every load looks dependent on the store just made (4K aliasing) and the copy runs several times
  slower. Where the stack starts depends on the size of the environment, once Linux's own stack randomisation is off
  (``setarch -R``). A and B are one build; B's environment holds one more variable, as long as it takes to put B's
  buffer at that distance. With the layout fixed (``layout=False``), the rounds call B slower; with the layout
  randomised, the padding moves both versions' stacks from batch to batch.

Each program appends the distance of its buffer from the source (``copy``) to a file named on its command line, so
that the batches' layouts can be read back and the layout part checked against what the programs saw.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfstudy._lib.result import Result

__all__ = [
    "SOURCES",
    "PROGRAMS",
    "TOOLS",
    "missing",
    "build",
    "instruction_runs",
    "layout_trial",
    "slow_share",
    "ratio",
    "shown",
    "Runs",
    "LayoutTrial",
]

#: the loop's iterations; ``loop_plus`` has 1% more
LOOP_WORK = 1_000_000

#: each program's C source: ``WORK`` is the loop's length
SOURCES = {
    "loop": "int main(void) { volatile unsigned long x = 0; for (unsigned long i = 0; i < WORK; i++) x += i; "
    "return 0; }\n",
    "divide": "static volatile unsigned long seed = 3;\nint main(void) { unsigned long k = seed, y = seed + 1000000007UL;"
    " for (unsigned long i = 0; i < WORK; i++) y = y / k + 1000000007UL; seed = y; return 0; }\n",
    "multiply": "static volatile unsigned long seed = 3;\nint main(void) { unsigned long k = seed, y = seed + 1000000007UL;"
    " for (unsigned long i = 0; i < WORK; i++) y = y * k + 7; seed = y; return 0; }\n",
    "copy": """#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define SIZE 8192
static _Alignas(4096) char source[SIZE];
/* copies ``source`` into a stack buffer argv[1] times; appends the buffer's distance past ``source`` (modulo 4096)
   to the file argv[2] */
int main(int argc, char **argv) {
    char local[SIZE];
    long rounds = argc > 1 ? atol(argv[1]) : 100000;
    for (long r = 0; r < rounds; r++) { memcpy(local, source, SIZE); __asm__ volatile("" ::"r"(local) : "memory"); }
    if (argc > 2) {
        FILE *out = fopen(argv[2], "a");
        if (!out) return 2;
        fprintf(out, "%ld\\n", (long)(((uintptr_t)local - (uintptr_t)source) % 4096));
        fclose(out);
    }
    return local[SIZE - 1];
}
""",
}

#: each program's ``WORK``: (source, WORK)
PROGRAMS = {
    "loop": ("loop", LOOP_WORK),
    "loop_copy": ("loop", LOOP_WORK),
    "loop_plus": ("loop", LOOP_WORK + LOOP_WORK // 100),
    "divide": ("divide", 3_000_000),
    "multiply": ("multiply", 4_500_000),
    "copy": ("copy", 0),
}

#: the programs the study needs, and what each is for
TOOLS = {
    "cc": "to build the programs",
    "valgrind": "to count instructions (no hardware counters here)",
    "setarch": "to turn Linux's stack randomisation off for the layout part",
}

#: the distance (bytes past the source, modulo 4096) at which the copy is slow on the machine this was built on
SLOW_DISTANCE = 16

#: the copy's repetitions a run: about 16 ms at the fast distances on this project's VM
COPIES = 100_000

#: runs a batch of the layout runs (their median is the batch's statistic): one layout, three runs
VALUES = 3

#: the variable whose length makes B's environment larger than A's
SIZE_VARIABLE = "PERFSTUDY_STUDY_SIZE"


def missing() -> tuple[str, ...]:
    """The tools of :data:`TOOLS` this machine lacks."""
    return tuple(tool for tool in TOOLS if shutil.which(tool) is None)


def build(folder) -> dict[str, str]:
    """Each program of :data:`PROGRAMS` built in ``folder`` with ``cc -O1``: ``{name: path}``.

    Parameters
    ----------
    folder : str or Path
        An existing folder; the sources and programs are written into it.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"folder={str(folder)!r}: not a folder")
    if shutil.which("cc") is None:
        raise FileNotFoundError("cc: not installed; the study builds its programs (Debian: apt-get install gcc)")
    built = {}
    for name, (source, work) in PROGRAMS.items():
        (folder / f"{name}.c").write_text(SOURCES[source])
        subprocess.run(["cc", "-O1", f"-DWORK={work}", f"{name}.c", "-o", name], cwd=folder, check=True)
        built[name] = str(folder / name)
    return built


def _row(part: str, result, benchmark: str | None = None) -> dict:
    """One judged benchmark of a run, as the study's tables hold it."""
    verdicts = {str(v["benchmark"]): v for v in result.verdicts}
    v = verdicts[benchmark] if benchmark is not None else next(iter(verdicts.values()))
    return dict(
        part=part,
        benchmark=str(v["benchmark"]),
        unit=v["unit"],
        a=float(v["a"]),
        b=float(v["b"]),
        change=float(v["change"]),
        low=float(v["low"]),
        high=float(v["high"]),
        verdict=v["verdict"],
        rounds=int(v["rounds"]),
        spread_a=float(v["spread_a"]),
    )


@dataclass(frozen=True)
class Runs(Result):
    """The instruction runs: one row per judged benchmark (``part``: ``"A/A"``, ``"+1%"``, ``"disagreement"``),
    and what the disagreement run's table said of instructions against time.

    Attributes
    ----------
    table : pandas.DataFrame
        ``part, benchmark, unit, a, b, change, low, high, verdict, rounds, spread_a``.
    disagreements : tuple of str
        :func:`perfstudy._lib.units.disagreements_said` of the disagreement run.
    counter : str
        The instruction counter the runs' record names.
    """

    table: pd.DataFrame
    disagreements: tuple
    counter: str

    def to_frame(self) -> pd.DataFrame:
        return self.table


def instruction_runs(programs: dict, *, max_rounds: int = 20, seed: int = 0) -> Runs:
    """The A/A pair and the planted +1% on instructions (``threshold`` 0.5%, one counted run a batch), and divisions
    against multiplications on instructions and wall time (``threshold`` 5%).

    Parameters
    ----------
    programs : dict
        :func:`build`'s result.
    max_rounds : int
        Each run's budget in rounds.
    seed : int
        The runs' seeds are ``seed``, ``seed + 1``, ``seed + 2``.
    """
    from perfstudy._lib.checks import check_int
    from perfstudy._lib.units import disagreements_said
    from perfstudy.experiment import run
    from perfstudy.experiment.instructions import instruction_counter

    if not isinstance(programs, dict) or not {"loop", "loop_copy", "loop_plus", "divide", "multiply"} <= set(programs):
        raise TypeError("programs: expected build()'s programs")
    max_rounds = check_int("max_rounds", max_rounds, minimum=5)
    seed = check_int("seed", seed, minimum=0)
    counted: dict[str, Any] = dict(metric="instructions", values=1, warmup=0, max_rounds=max_rounds, progress=False)
    aa = run(programs["loop"], programs["loop_copy"], threshold=0.005, seed=seed, **counted)
    plus = run(programs["loop"], programs["loop_plus"], threshold=0.005, seed=seed + 1, **counted)
    both = run(
        programs["divide"], programs["multiply"], metric=("wall", "instructions"), values=1, warmup=0,
        threshold=0.05, max_rounds=max(max_rounds, 30), seed=seed + 2, progress=False,
    )  # fmt: skip
    rows = [_row("A/A", aa), _row("+1%", plus)]
    rows += [_row("disagreement", both, str(v["benchmark"])) for v in both.verdicts]
    return Runs(pd.DataFrame(rows), tuple(disagreements_said(both.verdicts)), instruction_counter())


@dataclass(frozen=True)
class LayoutTrial(Result):
    """The layout part: each run's verdict, each batch's time and stack distance, and the sizes that made B slow.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per run (``layout``: ``"fixed"`` or ``"randomised"``): ``part, benchmark, unit, a, b, change, low,
        high, verdict, rounds, spread_a``, and ``within_layout`` (the run's "no change beyond layout" sentence, or
        "").
    batches : pandas.DataFrame
        One row per batch: ``layout, version, round, padding`` (the run's ``layout`` column), ``seconds`` (the
        batch's median time) and ``distance`` (where the program's buffer lay past the source, as it wrote it).
    extra : int
        How many characters longer B's environment variable is than A's.
    distances : dict
        ``{"A": ..., "B": ...}``: each version's distance with the layout fixed, as probed before the runs.
    probe_seconds : dict
        Each version's time in the probe that found ``extra``.
    """

    table: pd.DataFrame
    batches: pd.DataFrame
    extra: int
    distances: dict
    probe_seconds: dict

    def to_frame(self) -> pd.DataFrame:
        return self.table


def _command(program: str, size: int, where: Path) -> str:
    """The copy program under ``setarch -R`` with ``size`` characters in :data:`SIZE_VARIABLE` (A and B differ only in
    it: their file names have the same length)."""
    return f"env {SIZE_VARIABLE}={'x' * size} setarch -R {program} {COPIES} {where}"


def _probe(command: str, where: Path) -> tuple[int, float]:
    """One run of ``command`` through the runner's own spawner (the environment a run's batch gets with the layout
    fixed): the distance it wrote, and its seconds."""
    from perfstudy.experiment.batches import Batch, time_batch
    from perfstudy.experiment.commands import SHELL

    where.unlink(missing_ok=True)
    done = time_batch(Batch("probe", (SHELL, "-c", command), 0, 0, values=1, warmup=0))
    if done.status != 0:
        raise RuntimeError(f"{command!r} exited {done.status}: {done.stderr}")
    return int(where.read_text().split()[-1]), float(done.rows[0]["value"])


def _find_extra(program: str, folder: Path) -> tuple[int, dict, dict]:
    """The extra characters in B's variable that put B's buffer :data:`SLOW_DISTANCE` bytes past the source, A's
    staying where it is with the variable empty; probed, since the environment's size and the spawner decide it."""
    where_a, where_b = folder / "fixed-A", folder / "fixed-B"  # the fixed run's own files: the same command lines
    distance_a, seconds_a = _probe(_command(program, 0, where_a), where_a)
    if distance_a == SLOW_DISTANCE:  # A would be the slow one: move A off it first
        raise RuntimeError(f"A's buffer already lies {SLOW_DISTANCE} bytes past the source; rerun in another folder")
    guess = (distance_a - SLOW_DISTANCE) % 4096  # the stack grows down: a larger environment, a smaller distance
    for extra in range(max(1, guess - 16), guess + 32):
        distance_b, seconds_b = _probe(_command(program, extra, where_b), where_b)
        if distance_b == SLOW_DISTANCE:
            return extra, {"A": distance_a, "B": distance_b}, {"A": seconds_a, "B": seconds_b}
    raise RuntimeError(f"no size of {SIZE_VARIABLE} near {guess} put B's buffer {SLOW_DISTANCE} bytes past the source")


def layout_trial(program: str, folder, *, max_rounds: int = 30, threshold: float = 0.05, seed: int = 0) -> LayoutTrial:
    """The copy program as A, and as B with a larger environment, run with the layout fixed and randomised.

    Parameters
    ----------
    program : str
        :func:`build`'s ``copy``.
    folder : str or Path
        A folder for the distance files.
    max_rounds : int
        Each run's budget in rounds.
    threshold : float
        The change that matters.
    seed : int
        Both runs' seed.
    """
    from perfstudy._lib.checks import check_int, check_threshold
    from perfstudy.experiment import run
    from perfstudy.experiment.run_table import within_layout

    folder = Path(folder)
    if not isinstance(program, str) or not Path(program).is_file():
        raise FileNotFoundError(f"program={program!r}: not a program; build() makes it")
    max_rounds = check_int("max_rounds", max_rounds, minimum=5)
    threshold = check_threshold(threshold)
    seed = check_int("seed", seed, minimum=0)
    extra, distances, probe_seconds = _find_extra(program, folder)
    rows, batches = [], []
    for layout in (False, True):
        name = "randomised" if layout else "fixed"
        where = {v: folder / f"{name}-{v}" for v in "AB"}
        for path in where.values():
            path.unlink(missing_ok=True)
        result = run(
            _command(program, 0, where["A"]), _command(program, extra, where["B"]), layout=layout, values=VALUES,
            warmup=0, threshold=threshold, max_rounds=max_rounds, seed=seed, progress=False,
        )  # fmt: skip
        said = within_layout(result)
        rows.append(dict(_row(name, result), layout=name, within_layout=next(iter(said.values()), "")))
        frame = result.frame.sort_values("start")
        for version in "AB":
            ran = frame[frame["version"] == version]
            seen = [int(d) for d in where[version].read_text().split()]
            if len(seen) != len(ran):
                raise RuntimeError(f"{name}: {len(ran)} runs of {version} ran, {len(seen)} distances written")
            by_round: dict[int, list[tuple[float, int, Any]]] = {}
            for value, round_number, padding, distance in zip(ran["value"], ran["round"], ran["layout"], seen):
                by_round.setdefault(int(round_number), []).append((float(value), distance, padding))
            for round_number, runs in by_round.items():
                if len({distance for _, distance, _ in runs}) != 1:  # one layout a batch: its runs at one distance
                    raise RuntimeError(f"{name}: round {round_number} of {version} ran at several distances")
                padding = runs[0][2]
                batches.append(
                    dict(
                        layout=name,
                        version=version,
                        round=round_number,
                        padding=None if padding is None or padding != padding else int(padding),  # NaN: no padding
                        seconds=float(np.median([value for value, _, _ in runs])),
                        distance=runs[0][1],
                    )
                )
    return LayoutTrial(pd.DataFrame(rows), pd.DataFrame(batches), extra, distances, probe_seconds)


def slow_share(trial: LayoutTrial) -> dict[str, float]:
    """The share of each run's batches whose buffer lay :data:`SLOW_DISTANCE` bytes past the source.

    Parameters
    ----------
    trial : LayoutTrial
        :func:`layout_trial`.
    """
    if not isinstance(trial, LayoutTrial):
        raise TypeError(f"trial: expected layout_trial's result, got {type(trial).__name__}")
    found: dict[str, list[bool]] = {}
    for layout, distance in zip(trial.batches["layout"], trial.batches["distance"]):
        found.setdefault(str(layout), []).append(int(distance) == SLOW_DISTANCE)
    return {layout: sum(slow) / len(slow) for layout, slow in found.items()}


def ratio(trial: LayoutTrial, layout: str) -> float:
    """B's median batch over A's in one of the trial's runs; NaN where a side has none.

    Parameters
    ----------
    trial : LayoutTrial
        :func:`layout_trial`.
    layout : {"fixed", "randomised"}
        The run.
    """
    if not isinstance(trial, LayoutTrial):
        raise TypeError(f"trial: expected layout_trial's result, got {type(trial).__name__}")
    if layout not in ("fixed", "randomised"):
        raise ValueError(f"layout={layout!r}: expected 'fixed' or 'randomised'")
    seconds: dict[str, list[float]] = {"A": [], "B": []}
    for shown, version, value in zip(trial.batches["layout"], trial.batches["version"], trial.batches["seconds"]):
        if shown == layout and version in seconds:
            seconds[str(version)].append(float(value))
    if not (seconds["A"] and seconds["B"]):
        return math.nan
    a, b = float(np.median(seconds["A"])), float(np.median(seconds["B"]))
    return b / a if a > 0 else math.nan


def shown(table: pd.DataFrame) -> pd.DataFrame:
    """A runs' table as a reader reads it: each version's statistic in its unit (instructions whole, seconds in ms),
    the change and its interval in percent, the verdict and the rounds.

    Parameters
    ----------
    table : pandas.DataFrame
        :attr:`Runs.table` or :attr:`LayoutTrial.table`.
    """
    from perfstudy._lib.checks import check_frame

    table = check_frame("table", table, ("part", "benchmark", "unit", "verdict"),
                        numeric=("a", "b", "change", "low", "high", "rounds"))  # fmt: skip

    def value(number: float, unit: str) -> str:
        return f"{number:,.0f}" if unit == "instructions" else f"{1e3 * number:.2f} ms"

    rows = [
        {
            "": row["part"],
            "benchmark": row["benchmark"],
            "A": value(float(row["a"]), str(row["unit"])),
            "B": value(float(row["b"]), str(row["unit"])),
            "change": f"{float(row['change']):+.3%}",
            "interval": f"[{float(row['low']):+.3%}, {float(row['high']):+.3%}]",
            "verdict": row["verdict"],
            "rounds": int(row["rounds"]),
        }
        for row in table.to_dict("records")
    ]
    return pd.DataFrame(rows).set_index("")
