"""What ``perfstudy analyze`` reports on: the files given, read into one frame whose ``version`` says A or B, with
the pairing and threshold the comparison is judged by and where each came from (notebooks/analyze.ipynb).

The rules, once:

- one ``perfstudy run`` file holds both versions: A and B as its record says, paired by round, judged by the run's
  own threshold unless one is given;
- otherwise the first file is A and the second B; one hyperfine export of several commands makes its first command
  A and each other command a B (:func:`perfstudy.comparison.benchmarks_as_versions`);
- no file at all is the simulated demo (:func:`perfstudy.analysis.demo_runs`), and the report says so;
- a threshold not given is 2%, or a run file's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pandas as pd

from perfstudy._lib.checks import check_bool, check_instance, check_threshold
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed

__all__ = ["DEFAULT_THRESHOLD", "ReportInputs", "check_paths", "report_inputs"]

#: the smallest relative change that matters when neither the user nor a run file says
DEFAULT_THRESHOLD = 0.02


@dataclass(frozen=True, eq=False)
class ReportInputs(Result):
    """The report's inputs, read.

    Attributes
    ----------
    frame : DataFrame
        Every value, tidy, with ``version`` ``"A"`` or ``"B"`` (a single file: ``"A"`` only).
    paths : tuple of str
        The files given (none: the demo).
    names : tuple of str
        What each side is, as the report names it.
    pairing : mapping
        Keyword arguments of :func:`perfstudy.analysis.analyze` that say how A and B pair (``baseline``; a run
        file's rounds, rule, statistic and confidence).
    threshold : float
        The smallest relative change that matters.
    threshold_from : str
        Where it came from: ``"given"``, ``"the run's own"`` or ``"the default"``.
    run : RunFile or None
        The ``perfstudy run`` file, when that is what was given.
    dropped : int
        Values left out as missing or not numbers (``dropna``).
    demo : bool
        No file was given: the frame is the simulated demo.
    """

    frame: pd.DataFrame
    paths: tuple
    names: tuple
    pairing: Mapping
    threshold: float
    threshold_from: str
    run: Any = None
    dropped: int = 0
    demo: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "pairing", MappingProxyType(dict(self.pairing)))

    def to_frame(self) -> pd.DataFrame:
        """Every value read (``frame``)."""
        return self.frame.copy()

    @property
    def sides(self) -> tuple:
        """The versions present, A first."""
        present = set(self.frame["version"])
        return tuple(side for side in ("A", "B") if side in present)

    def described(self) -> dict:
        """What the report records as its ``inputs``: the files, their names, the rows, the threshold and where
        it came from, and whether a run file was read."""
        return dict(
            paths=list(self.paths),
            names=list(self.names),
            rows=len(self.frame),
            threshold=self.threshold,
            threshold_from=self.threshold_from,
            run_file=self.run is not None,
        )

    def markdown(self) -> str:
        """A line per side: what it is, its benchmarks and values; then what was left out or simulated."""
        lines = []
        for side, name in zip(self.sides, self.names):
            rows: Any = self.frame[self.frame["version"] == side]
            shown = name if self.run is not None else f"`{name}`"
            lines.append(f"* **{side}** is {shown}: {rows['benchmark'].nunique()} benchmarks, {len(rows)} values")
        if self.dropped:
            lines.append(f"\n*{self.dropped} value(s) that were missing or not numbers were left out (dropna).*")
        if self.demo:
            lines.append(
                "\n*No files were given: this is a simulated demo, whose planted problems are "
                "`perfstudy.analysis.DEMO_PROBLEMS` (recorded as `demo_problems`): `json_dumps` slower in B, "
                "`regex` with warm-up iterations in every process, and one slow process of `startup` in A.*"
            )
        return "\n".join(lines)

    def verdict_markdown(self, comparison) -> str:
        """The verdict's heading and sentence: B against A per benchmark, counted by verdict, the threshold and where
        it came from, and how a run stopped.

        Parameters
        ----------
        comparison : Comparison
            ``analyze(...).comparison`` of this frame.
        """
        from perfstudy.comparison import Comparison

        counts = check_instance("comparison", comparison, Comparison).table["verdict"].value_counts()
        summary = ", ".join(f"{counts.get(v, 0)} {v}" for v in ("slower", "faster", "no change", "inconclusive"))
        text = (
            f"## Verdict\n\nB against A, per benchmark: **{summary}** (a change within ±{100 * self.threshold:g}% is "
            f"no change; that threshold is {self.threshold_from})."
        )
        if self.run is not None:
            record = self.run.record
            text += (
                f" The run stopped: **{record.get('stopped')}** after {record.get('rounds')} rounds; each round's B/A "
                "is one pair, and the interval is the run's anytime-valid one."
            )
        return text


def check_paths(paths) -> tuple:
    """The report's files as text, refused by name where the report could not say what each is: more than two
    (A and B), or a ``perfstudy run`` file beside another.

    Parameters
    ----------
    paths : sequence of str or path
    """
    from perfstudy.experiment import is_run_file

    if isinstance(paths, (str, Path)) or not hasattr(paths, "__iter__"):
        raise TypeError(f"paths={paths!r}: expected a list of files (A, then B), not one path")
    paths = tuple(str(path) for path in paths)
    if len(paths) > 2:
        raise ValueError(
            f"{len(paths)} files given; a report compares two at most, the first as A and the second as B: "
            "analyze them two at a time"
        )
    if len(paths) == 2 and any(is_run_file(path) for path in paths):
        raise ValueError("a perfstudy run's file holds both versions: analyze it alone")
    return paths


def _read_files(paths: tuple, dropna: bool) -> tuple[list, list, int]:
    from perfstudy import io
    from perfstudy.comparison import benchmarks_as_versions

    frames: list[Any] = [io.read(path, dropna=dropna) for path in paths]
    names = [Path(path).name for path in paths]
    dropped = sum(int(f.attrs.get("dropped", 0)) for f in frames)
    if len(frames) == 1 and frames[0].attrs.get("tool") == "hyperfine" and frames[0]["benchmark"].nunique() > 1:
        laid = benchmarks_as_versions(frames[0])
        frames = [laid[laid["version"] == side].drop(columns="version") for side in ("A", "B")]
        names = [f"{names[0]}, A: `{laid.attrs['baseline']}`", f"{names[0]}, B: each other command"]
    return frames, names, dropped


def report_inputs(paths=(), *, threshold=None, dropna: bool = False, rng: Seed = None) -> ReportInputs:
    """Read the report's files by the rules of the module docstring.

    Parameters
    ----------
    paths : sequence of str or path
        Benchmark files: the first is A, the second B; one ``perfstudy run`` file alone; none for the demo
        (:func:`check_paths`).
    threshold : float or None
        The smallest relative change that matters; None for a run file's own or :data:`DEFAULT_THRESHOLD`.
    dropna : bool
        Leave out values that are missing or not numbers, and say how many.
    rng : None, int, SeedSequence or Generator
        Draws the demo's values.
    """
    from perfstudy.analysis import demo_runs
    from perfstudy.experiment import is_run_file, read_run

    paths = check_paths(paths)
    check_bool("dropna", dropna)
    given = None if threshold is None else check_threshold(threshold)
    if len(paths) == 1 and is_run_file(paths[0]):
        run = read_run(paths[0])
        names = tuple(f"{Path(paths[0]).name}, {side}: `{run.commands[side]}`" for side in ("A", "B"))
        return ReportInputs(
            frame=run.frame,
            paths=paths,
            names=names,
            pairing=run.pairing,
            threshold=run.threshold if given is None else given,
            threshold_from="the run's own" if given is None else "given",
            run=run,
        )
    dropped, demo = 0, not paths
    if demo:
        frames, names = list(demo_runs(rng=rng)), ["demo A", "demo B"]
    else:
        frames, names, dropped = _read_files(paths, dropna)
    sides = ("A", "B")[: len(frames)]
    frame = pd.concat([f.assign(version=side) for side, f in zip(sides, frames)], ignore_index=True)
    return ReportInputs(
        frame=frame,
        paths=paths,
        names=tuple(names),
        pairing=dict(baseline="A"),
        threshold=DEFAULT_THRESHOLD if given is None else given,
        threshold_from="the default" if given is None else "given",
        dropped=dropped,
        demo=demo,
    )
