"""A short real history under a toggled load: the sequential sweep and ``history`` against an interleaved bisect.

A git repository is built with known changes: each commit holds ``n``, the iterations of a shell loop (a CPU-bound
benchmark that starts in a millisecond), and the planted commits change it by a known share. The history is then
measured the way a CI sweep measures it, one commit after another, ``count`` runs each (as ``go test -count 5``
does), and read by :func:`perfstudy.changes.history`; each planted change's range is bisected by
:func:`perfstudy.experiment.bisect`, whose steps run the two commits interleaved; and ranges without any change are
bisected again and again, to count the culprits it names wrongly against its stated error. All of it runs while
:func:`perfstudy.studies.running.toggled_load` switches busy processes on and off, as a shared machine does.
"""

from __future__ import annotations

import math
import subprocess
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from perfstudy._lib.checks import check_bool, check_duration, check_fraction, check_int, check_real, check_threshold
from perfstudy._lib.result import Result

if TYPE_CHECKING:
    import pandas as pd

    from perfstudy.changes import History

__all__ = ["ShortHistoryTrial", "planted_repository", "short_history_trial", "LOOP"]

#: the benchmark: a shell loop of the commit's ``n`` iterations (read by the hook into a file named by the commit)
LOOP = 'read n < "{folder}/n-{commit}"; i=0; while [ "$i" -lt "$n" ]; do i=$((i+1)); done'
#: the history's size rule (``history(min_sigmas=)``): a change under this many noise SDs is not reported
_MIN_SIGMAS = 2.0


def planted_repository(path, *, commits: int = 24, iterations: int = 15_000, changes=None) -> tuple[str, ...]:
    """A git repository of ``commits`` commits whose file ``n`` holds the loop's iterations.

    Parameters
    ----------
    path : str or path
        An empty or absent folder.
    commits : int
        How many commits, at least 2.
    iterations : int
        ``n`` at the first commit.
    changes : dict of int to float, optional
        The commit (0-based) at which ``n`` changes, to the relative change there (``{8: 0.10, 15: -0.05}``, the
        default). Changes compound.

    Returns
    -------
    tuple of str
        The commits' hashes, oldest first.
    """
    commits = check_int("commits", commits, minimum=2, maximum=10_000)
    iterations = check_int("iterations", iterations, minimum=100, maximum=10**9)
    changes = _changes(changes, commits)
    path = Path(path)
    if path.exists() and any(path.iterdir()):
        raise ValueError(f"path={str(path)!r}: not empty; the repository is built in a new folder")
    path.mkdir(parents=True, exist_ok=True)

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(path), *args], check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    git("config", "user.email", "perfstudy@example.org")
    git("config", "user.name", "perfstudy")
    n = float(iterations)
    for i in range(commits):
        n *= 1 + changes.get(i, 0.0)
        (path / "n").write_text(f"{round(n)}\n")
        git("add", "n")
        git("commit", "-q", "--allow-empty", "-m", f"commit {i}" + (f": {changes[i]:+.0%}" if i in changes else ""))
    return tuple(git("rev-list", "--reverse", "HEAD").split())


def _changes(changes, commits: int) -> dict[int, float]:
    changes = {8: 0.10, 15: -0.05} if changes is None else changes
    if not isinstance(changes, dict):
        raise TypeError(f"changes: expected a dict of commit to relative change, got {type(changes).__name__}")
    out = {}
    for at, share in changes.items():
        at = check_int("changes' commits", at, minimum=1, maximum=commits - 1)
        out[at] = check_real(f"changes[{at}]", share)
        if not -1 < out[at] < 10:
            raise ValueError(f"changes[{at}]={share!r}: expected a relative change above -1")
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class ShortHistoryTrial(Result):
    """A short real history under a toggled load: what the sequential sweep's history and the bisects found.

    Attributes
    ----------
    found : pandas.DataFrame
        One row per planted change: ``commit`` (its index), ``change`` (planted, in the loop's iterations),
        ``measured``, ``measured_low`` and ``measured_high`` (the change in run time and its interval, from the
        bisect's first step: the range's bad commit against its good one), ``history_needs`` (the commits a side
        the history needs to find a change of ``measured`` at the sweep's noise; inf: under its size rule at any
        length), ``history_commit``, ``history_first`` and
        ``history_last`` (the history's change point nearest it in the same direction, within 2 commits, and the
        commits it may be in, as commit indices; NaN where none), ``history_change`` (its level change), ``culprit`` (the bisect's, an index or NaN), ``bisect_first``
        and ``bisect_last`` (its range), ``steps``, ``rounds``, ``seconds``, ``stopped``.
    aa : pandas.DataFrame
        One row per bisect of a range without a change: ``seed``, ``culprit`` (index or NaN), ``stopped``,
        ``steps``, ``seconds``.
    history : History
        The sweep's history.
    sweep : pandas.DataFrame
        The sequential measurements: ``commit`` (hash), ``commit_index``, ``value`` (seconds).
    sweep_seconds, bisect_seconds, aa_seconds : float
        Machine time of the sweep, of the bisects of the planted changes, and of the A/A bisects.
    false_history : int
        The history's change points that no planted change explains (none within 2 commits, or the other
        direction).
    aa_bound : float
        The stated chance that an A/A bisect names a culprit: ``1 - confidence``.
    threshold, confidence : float
    aa_threshold : float
        The A/A bisects' threshold.
    load : bool
        Whether the toggled load ran.
    """

    found: pd.DataFrame = field(repr=False)
    aa: pd.DataFrame = field(repr=False)
    history: History = field(repr=False)
    sweep: pd.DataFrame = field(repr=False)
    sweep_seconds: float
    bisect_seconds: float
    aa_seconds: float
    false_history: int
    aa_bound: float
    threshold: float
    confidence: float
    load: bool
    aa_threshold: float

    def to_frame(self) -> pd.DataFrame:
        """One row per planted change (``found``)."""
        return self.found.copy()


def _time_runs(command: str, count: int) -> list[float]:
    """``count`` wall times of ``/bin/sh -c command``, after one untimed run."""
    out = []
    for i in range(count + 1):
        began = time.perf_counter()
        subprocess.run(["/bin/sh", "-c", command], check=True)
        if i:
            out.append(time.perf_counter() - began)
    return out


def short_history_trial(
    *,
    commits: int = 24,
    changes=None,
    iterations: int = 15_000,
    count: int = 5,
    threshold: float | str = 0.03,
    confidence: float = 0.95,
    aa_bisects: int = 20,
    aa_commits: int = 8,
    max_time: str = "60s",
    aa_budget: str | None = None,
    aa_threshold: float | str | None = None,
    load: bool = True,
    busy: int = 2,
    seed: int = 0,
    progress: bool = False,
    **run_options,
) -> ShortHistoryTrial:
    """Build a repository with planted changes, sweep it sequentially, read its history, and bisect.

    Parameters
    ----------
    commits : int
        The repository's commits.
    changes : dict of int to float, optional
        Planted changes (:func:`planted_repository`; default +10% at commit 8, -5% at 15).
    iterations : int
        The loop's iterations at the first commit (15,000: about 20-30 ms in dash).
    count : int
        Runs per commit in the sweep.
    threshold : float or str
        The history's and the bisects' smallest change that counts.
    confidence : float
        Of the history's intervals and ranges, and of each bisect as a whole.
    aa_bisects : int
        Bisects of a range without a change (the first ``aa_commits`` commits, before the first planted change;
        0 for none), each with its own seed.
    aa_commits : int
        Commits in that range.
    max_time : str
        Each bisect step's budget.
    aa_budget : str, optional
        The A/A bisects' budget in all (``"3m"``): no new one starts after it, and ``aa`` holds those that ran.
    aa_threshold : float or str, optional
        The A/A bisects' threshold (default ``threshold``). Their stated error is ``1 - confidence`` at any
        threshold; a larger one decides each in fewer rounds.
    load : bool
        Run everything under :func:`perfstudy.studies.running.toggled_load`.
    busy : int
        The load's spinning processes while it is on.
    seed : int
        The load's periods, and the bisects' orders (``seed``, ``seed + 1``...).
    progress : bool
        Each bisect step's progress bar.
    **run_options
        Passed to every bisect step's run (``metric="cpu"``, ``rule``, ``duet``...); the sweep always times wall
        clock, as a CI sweep does.

    Returns
    -------
    ShortHistoryTrial
    """
    import contextlib

    import pandas as pd

    from perfstudy.changes import history
    from perfstudy.experiment.bisection import bisect
    from perfstudy.experiment.environment import NoisyMachineWarning
    from perfstudy.studies.running import toggled_load

    commits = check_int("commits", commits, minimum=4, maximum=1000)
    changes = _changes(changes, commits)
    count = check_int("count", count, maximum=1000)
    threshold = check_threshold(threshold)
    aa_threshold = threshold if aa_threshold is None else check_threshold(aa_threshold, name="aa_threshold")
    confidence = check_fraction("confidence", confidence)
    aa_bisects = check_int("aa_bisects", aa_bisects, minimum=0, maximum=10_000)
    aa_commits = check_int("aa_commits", aa_commits, minimum=2, maximum=commits if aa_bisects else 10**6)
    if aa_bisects and changes and aa_commits > min(changes):
        raise ValueError(
            f"aa_commits={aa_commits}: the range without a change ends before the first planted change, at commit "
            f"{min(changes)}"
        )
    seed = check_int("seed", seed, minimum=0, maximum=2**31)
    load, progress = check_bool("load", load), check_bool("progress", progress)
    busy = check_int("busy", busy, maximum=64)
    check_duration("max_time", max_time)
    aa_limit = math.inf if aa_budget is None else check_duration("aa_budget", aa_budget).total_seconds()
    with tempfile.TemporaryDirectory(prefix="perfstudy-bisect-") as folder:
        repo = Path(folder) / "repo"
        hashes = planted_repository(repo, commits=commits, iterations=iterations, changes=changes)
        for h in hashes:  # what --setup does per step, done once here for the sweep
            shown = subprocess.run(["git", "-C", str(repo), "show", f"{h}:n"], check=True, capture_output=True)
            (Path(folder) / f"n-{h}").write_bytes(shown.stdout)
        template = LOOP.replace("{folder}", folder)
        setup = f'git -C "{repo}" show {{commit}}:n > "{folder}/n-{{commit}}"'
        index = {h: i for i, h in enumerate(hashes)}
        budget = 3600.0 * 6
        loaded = toggled_load(budget, busy=busy, seed=seed) if load else contextlib.nullcontext()
        with loaded, warnings.catch_warnings():
            warnings.simplefilter("ignore", NoisyMachineWarning)  # the load is the point: its warnings are expected
            began = time.monotonic()
            rows = []
            for i, h in enumerate(hashes):
                rows += [
                    {"commit": h, "commit_index": i, "value": v}
                    for v in _time_runs(template.replace("{commit}", h), count)
                ]
            sweep_seconds = time.monotonic() - began
            sweep = pd.DataFrame(rows)
            found_history = history(
                sweep, benchmark=None, threshold=threshold, confidence=confidence, min_sigmas=_MIN_SIGMAS
            )
            planted = list(changes)
            found, bisect_seconds = [], 0.0
            for j, at in enumerate(planted):
                low = planted[j - 1] if j else 0
                high = (planted[j + 1] - 1) if j + 1 < len(planted) else commits - 1
                result = bisect(
                    list(hashes[low : high + 1]),
                    template,
                    threshold=threshold,
                    confidence=confidence,
                    max_time=max_time,
                    seed=seed + j,
                    progress=progress,
                    setup=setup,
                    **run_options,
                )
                bisect_seconds += result.seconds
                found.append(_found_row(at, changes[at], found_history, result, index))
            aa, aa_seconds = [], 0.0
            for k in range(aa_bisects):
                if aa_seconds >= aa_limit:
                    break
                result = bisect(
                    list(hashes[:aa_commits]),
                    template,
                    threshold=aa_threshold,
                    confidence=confidence,
                    max_time=max_time,
                    seed=seed + 1000 + k,
                    progress=progress,
                    setup=setup,
                    **run_options,
                )
                aa_seconds += result.seconds
                aa.append(
                    {
                        "seed": seed + 1000 + k,
                        "culprit": float(index[result.culprit]) if result.culprit is not None else math.nan,
                        "stopped": result.stopped,
                        "steps": len(result.steps),
                        "seconds": result.seconds,
                    }
                )
    found_frame = pd.DataFrame(found)
    cp = found_history.change_points
    explained = 0
    for row in cp.to_dict("records"):
        up = row["level_change"] > 0
        explained += any(abs(row["commit_index"] - at) <= 2 and (changes[at] > 0) == up for at in changes)
    return ShortHistoryTrial(
        found=found_frame,
        aa=pd.DataFrame(aa, columns=["seed", "culprit", "stopped", "steps", "seconds"]),
        history=found_history,
        sweep=sweep,
        sweep_seconds=round(sweep_seconds, 3),
        bisect_seconds=round(bisect_seconds, 3),
        aa_seconds=round(aa_seconds, 3),
        false_history=int(len(cp) - explained),
        aa_bound=round(1 - confidence, 12),
        threshold=threshold,
        confidence=confidence,
        load=bool(load),
        aa_threshold=aa_threshold,
    )


def _found_row(at: int, change: float, found: History, result, index: dict) -> dict:
    """What the history and the bisect said about the change planted at commit ``at``, with the change in run time
    that the bisect's first step measured (the range's bad commit against its good one) and the commits a side the
    history would need to find a change of that size at the sweep's noise (:func:`commits_for_change`)."""
    from perfstudy.changes import commits_for_change

    first = result.steps[0] if result.steps else {}
    measured = float(first.get("change", math.nan))
    noise = float(found.series["noise"].iat[0]) if len(found.series) else math.nan
    needs = (
        commits_for_change(
            measured,
            noise,
            len(index),
            widths=found.widths,
            fdr=found.fdr,
            min_side=found.min_side,
            min_sigmas=_MIN_SIGMAS,
        )  # fmt: skip
        if math.isfinite(measured) and measured > -1 and math.isfinite(noise)
        else math.nan
    )
    cp = found.change_points
    where = cp["commit_index"].to_numpy(dtype=float)
    near = (np.sign(cp["level_change"].to_numpy(dtype=float)) == np.sign(change)) & (np.abs(where - at) <= 2)
    row = {
        "commit": at,
        "change": change,
        "measured": measured,
        "measured_low": float(first.get("low", math.nan)),
        "measured_high": float(first.get("high", math.nan)),
        "history_needs": needs,
    }
    if near.any():
        hit = cp.iloc[int(np.flatnonzero(near)[np.argmin(np.abs(where[near] - at))])]
        row |= {
            "history_commit": float(hit["commit_index"]),
            "history_first": float(hit["range_first_index"]),
            "history_last": float(hit["range_last_index"]),
            "history_change": float(hit["level_change"]),
        }
    else:
        row |= {"history_commit": math.nan, "history_first": math.nan, "history_last": math.nan}
        row["history_change"] = math.nan
    span = [index[c] for c in result.range] if result.range else [math.nan, math.nan]
    row |= {
        "culprit": float(index[result.culprit]) if result.culprit is not None else math.nan,
        "bisect_first": float(span[0]),
        "bisect_last": float(span[-1]),
        "steps": len(result.steps),
        "rounds": int(sum(s["rounds"] for s in result.steps)),
        "seconds": result.seconds,
        "stopped": result.stopped,
    }
    return row
