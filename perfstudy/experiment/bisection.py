"""From a suspected change to its commit: an interleaved bisect whose error as a whole is bounded.

Each step runs the good commit (A) against a commit inside the range (B) in randomised interleaved rounds with
:func:`perfstudy.experiment.run` and its anytime-valid rule, until the step's interval says "no change" (inside
``+-threshold``: the change comes later) or a change beyond the threshold in the bad commit's direction (it came at
or before this commit). The first step runs the bad commit itself: the range must hold a change before it is cut.

Error. A bisect of ``n`` commits after the good one takes at most ``K = 1 + ceil(log2(n))`` decided steps when
every commit builds. Each step runs at confidence ``1 - (1 - confidence) / K``, so that by Bonferroni's inequality
the probability that any step errs, and with it the culprit, is at most ``1 - confidence``. A commit that does not
build moves the next step off the middle, which can cost a decided step more than planned; the result's
``confidence`` is then the union bound over the steps actually decided, lower than asked, and says so. The bound holds for a range with one change (a step function of the commits); a range whose
commits drift by less than the threshold each is still cut at the first commit beyond it only if each step's
answer is right, which the same union bound covers.

A commit whose command fails (it does not build, its benchmark crashes) is skipped, as ``git bisect skip`` does:
the step moves to the nearest untried commit inside the range, and the result names every skipped commit. When
the skipped commits sit where the change is, the result is the smallest range that holds it, not a culprit.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfstudy._lib.checks import check_bool, check_coverage, check_int, check_text
from perfstudy._lib.format import aligned, markdown_rows
from perfstudy._lib.result import Result
from perfstudy.experiment._judge import _Stop
from perfstudy.experiment.bisect_settings import BisectSettings
from perfstudy.experiment.worktrees import fill, per_version

__all__ = ["Bisection", "bisect", "step_confidence"]

#: what a step's verdict means for the search
_LATER, _AT_OR_BEFORE, _NONE = "later", "at or before", "none in the range"


@dataclass(frozen=True)
class Bisection(Result):
    """An interleaved bisect: the culprit, or the smallest range that holds the change, and every step.

    Attributes
    ----------
    culprit : str or None
        The first commit whose change against the good one exceeds the threshold; None when the range holds no
        such change, or when the steps could not narrow it to one commit (see ``range``).
    range : tuple of str
        The first and last commit that may hold the change (both the culprit when it is found; empty when the bad
        commit itself shows no change).
    steps : tuple of dict
        One per step: ``commit``, ``index`` (its position, the good commit 0), ``verdict`` (the run's),
        ``change``, ``low``, ``high``, ``rounds``, ``seconds``, ``stopped`` (the run's), ``cleanup`` (how
        the run's cleanup failed, "" if it did not) and ``meaning`` ("later", "at or before", "none in the range", "skipped",
        "undecided" or "interrupted"; a resumed bisect runs the last two again).
    skipped : tuple of str
        Commits whose command failed, stepped over.
    confidence : float
        The bisect's as a whole: the probability that any decided step erred (and so that the culprit is wrong) is
        at most ``1 - confidence``; the asked confidence unless skipped commits forced more than ``max_steps``
        decided steps (the union bound over those decided).
    step_confidence : float
        Each step's (Bonferroni over ``max_steps``).
    max_steps : int
        The decided steps the bound was set for.
    direction : str
        "slower" or "faster": the bad commit's change, which every later step looks for.
    stopped : str
        "found" (a culprit), "no change" (the bad commit's change is inside the threshold), "undecided" (a step
        reached its budget undecided: ``range`` holds the change), "skipped" (every commit left in the range
        failed) or "interrupted" (Ctrl-C or SIGTERM: ``range`` holds the change as far as the steps before got).
    seconds : float
        Wall-clock time of all the steps.
    path : str or None
        The JSON file the steps were written to.
    signal : int or None
        The signal (SIGINT, SIGTERM) that stopped the bisect (``stopped`` is then "interrupted").
    threshold : float
        The smallest relative change that counts (each step's).
    """

    culprit: str | None
    range: tuple
    steps: tuple
    skipped: tuple
    confidence: float
    step_confidence: float
    max_steps: int
    direction: str
    stopped: str
    seconds: float
    path: str | None = field(default=None)
    signal: int | None = field(default=None)
    threshold: float = field(default=math.nan)

    @property
    def exit_status(self) -> int:
        """What the command line exits with before ``--fail-on-regression``: ``128 + signal`` for an interrupted
        bisect (130 after Ctrl-C, 143 after SIGTERM), as ``perfstudy run`` does; 2 when a step's ``--cleanup``
        failed (the answer stands, but what it should undo may not be undone); else 0."""
        if self.stopped == "interrupted":
            return 128 + int(self.signal or signal.SIGINT)
        return 2 if any(s.get("cleanup") for s in self.steps) else 0

    def to_frame(self):
        """The steps, one row each."""
        import pandas as pd

        return pd.DataFrame(list(self.steps))

    def to_json(self) -> dict:
        """``culprit``, ``range``, ``steps`` and the bound, as ``perfstudy bisect --format json`` prints them.

        Returns
        -------
        dict
        """
        return {
            "culprit": self.culprit,
            "range": list(self.range),
            "steps": [dict(s) for s in self.steps],
            "skipped": list(self.skipped),
            "confidence": self.confidence,
            "step_confidence": self.step_confidence,
            "max_steps": self.max_steps,
            "direction": self.direction,
            "stopped": self.stopped,
            "seconds": self.seconds,
            "signal": None if self.signal is None else signal.Signals(self.signal).name,
        }

    def format(self, format: str = "table") -> str:
        """The result for a person (``"table"``), a pull request (``"markdown"``) or a program (``"json"``).

        Parameters
        ----------
        format : {"table", "markdown", "json"}
        """
        if format not in ("table", "markdown", "json"):
            raise ValueError(f"format={format!r}: expected 'table', 'markdown' or 'json'")
        if format == "json":
            return json.dumps(self.to_json(), indent=2)
        markdown = format == "markdown"
        if self.culprit is not None:
            head = f"culprit: {self.culprit}, {self.direction} beyond the threshold"
        elif self.stopped == "no change":
            head = "no change beyond the threshold between the good and the bad commit"
        elif self.stopped == "interrupted":
            where = f"; so far the change lies in {_span(self.range)}" if self.range else ""
            again = f"; --resume --out {self.path} continues it" if self.path else "; with --out it could be resumed"
            head = f"INTERRUPTED by {signal.Signals(self.signal or signal.SIGINT).name} at step {len(self.steps)}{where}{again}"
        else:
            head = f"the change lies in {_span(self.range)} ({self.stopped})" if self.range else ""
        bound = (
            f"bisect confidence {self.confidence:.0%} as a whole: each of at most {self.max_steps} step{'s' if self.max_steps != 1 else ''} at "
            f"{self.step_confidence:.2%}"
        )
        header = ["step", "commit", "change [interval]", "verdict", "so the change is", "rounds", "seconds"]
        rows = []
        for number, s in enumerate(self.steps, 1):
            interval = (
                f"{s['change']:+.1%} [{s['low']:+.1%}, {s['high']:+.1%}]"
                if all(isinstance(s[k], float) and math.isfinite(s[k]) for k in ("change", "low", "high"))
                else "n/a"
            )
            rows.append(
                [str(number), str(s["commit"]), interval, _verdict(s), s["meaning"], str(s["rounds"]),
                 f"{s['seconds']:.1f}"]
            )  # fmt: skip
        lines = [f"**{head}**" if markdown else head, ""]
        lines += markdown_rows(header, rows) if markdown else aligned(header, rows)
        lines += ["", bound + f"; {self.seconds:.0f} s in all."]
        if self.skipped:
            lines.append(f"Skipped (their command failed): {', '.join(self.skipped)}.")
        for number, s in enumerate(self.steps, 1):
            if s.get("cleanup"):
                lines.append(
                    f"CLEANUP FAILED at step {number} ({s['commit']}): {s['cleanup']}; what it should undo may not be undone."
                )
        undecided = [s for s in self.steps if _verdict(s) != s["verdict"]]
        if undecided:
            lines.append(_advice(undecided[-1], self.threshold))
        return "\n".join(lines)


def _span(commits: tuple) -> str:
    """A range of commits in words: both ends may hold the change (git's ``A..B`` would leave ``A`` out)."""
    return str(commits[0]) if commits[0] == commits[-1] else f"the commits {commits[0]} to {commits[-1]}, both included"


def _advice(step: dict, threshold: float) -> str:
    """What to do about a step its budget left undecided: where its interval straddles the threshold, more rounds
    narrow it slowly, and a threshold away from the change or a quieter metric decides sooner."""
    budget = f"A step left undecided stopped at its budget ({step.get('stopped')})"
    low, high = step.get("low", math.nan), step.get("high", math.nan)
    straddled = [t for t in (threshold, -threshold) if math.isfinite(t) and low < t < high]
    if len(straddled) == 2:
        return (
            f"{budget}: its interval [{low:+.1%}, {high:+.1%}] is wider than the +-{100 * threshold:g}% band. Give more rounds "
            "(--max-rounds, --max-time; max_rounds=, max_time=), a quieter metric (--metric cpu), or a wider threshold "
            "(--threshold, threshold=)."
        )
    if straddled:
        return (
            f"{budget}: its interval [{low:+.1%}, {high:+.1%}] straddles the {100 * straddled[0]:+g}% threshold, so the change "
            "is about the threshold's size. Give a threshold away from it (--threshold, threshold=), a quieter metric "
            "(--metric cpu), or more rounds (--max-rounds, --max-time; max_rounds=, max_time=)."
        )
    return f"{budget}: raise --max-rounds or give --max-time (max_rounds=, max_time=) to let it decide."


def _verdict(step: dict) -> str:
    """A step's verdict as its table shows it: an undecided one says which budget stopped it."""
    if step["verdict"] == "inconclusive" and step.get("stopped") in ("max-rounds", "max-time"):
        return f"inconclusive ({step['stopped']})"
    return str(step["verdict"])


def step_confidence(confidence: float, commits: int) -> tuple[float, int]:
    """Each step's confidence and the decided steps it is set for: ``K = 1 + ceil(log2(commits - 1))`` steps
    (the bad commit, then halving the ``commits - 1`` after the good one), each at ``1 - (1 - confidence) / K``.

    Parameters
    ----------
    confidence : float
        The bisect's, as a whole.
    commits : int
        In the range, the good and the bad one included (at least 2).

    Returns
    -------
    tuple of (float, int)
    """
    confidence = check_coverage(confidence)
    commits = check_int("commits", commits, minimum=2)
    steps = 1 + math.ceil(math.log2(commits - 1)) if commits > 2 else 1
    return 1 - (1 - confidence) / steps, steps


def _resumed(path: Path | None, defined: dict) -> dict:
    """The settled steps of the bisect in ``path`` by commit (:data:`_SETTLED`; an undecided or interrupted step
    runs again), after checking that it is this bisect and that every step is whole and says what its interval
    says (:func:`_damage`): a damaged or edited file is refused, naming the step, never resumed."""
    if path is None:
        raise ValueError("resume=True: needs out, the bisect's file")
    if not path.is_file():
        raise ValueError(f"resume=True: out={str(path)!r} does not exist; leave resume out to start it")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        recorded, steps = document["settings"], document["steps"]
        if not isinstance(recorded, dict) or not isinstance(steps, list):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"out={str(path)!r}: not a bisect's file (perfstudy bisect --out writes one)") from None
    differ = [key for key, value in defined.items() if recorded.get(key) != value]
    if differ:
        key = differ[0]
        raise ValueError(f"resume=True: {key} differs from the bisect in {str(path)!r}: {recorded.get(key)!r} there")
    settled = {}
    for number, step in enumerate(steps, 1):
        damage = _damage(step, defined["commits"], defined["threshold"])
        if damage:
            raise ValueError(
                f"out={str(path)!r}: step {number} is damaged or was edited ({damage}); it cannot be resumed: "
                "start the bisect again with another out file"
            )
        if step["meaning"] in _SETTLED:
            settled[step["commit"]] = step
    return settled


#: the meanings of a step that a resumed bisect takes as measured
_SETTLED = (_LATER, _AT_OR_BEFORE, _NONE, "skipped")
#: every meaning a step can have in a bisect's file
_MEANINGS = (*_SETTLED, "undecided", "interrupted")
#: every verdict a step can have: its run's, or "failed" where its command failed
_VERDICTS = ("slower", "faster", "no change", "inconclusive", "failed")
#: the verdicts of a decided step
_DECIDED = ("slower", "faster", "no change")


def _damage(step, commits: list, threshold: float) -> str:
    """What is wrong with one step of a bisect's file ("" if nothing): a key missing or of the wrong kind, a commit
    that is not the bisect's or not at its index, a verdict or meaning that none of its runs could give, or a
    verdict that its interval (``low``, ``high`` against ``+-threshold``) contradicts."""
    if not isinstance(step, dict):
        return f"{step!r} is not a step"
    missing = [key for key in ("commit", "index", "verdict", "low", "high", "meaning") if key not in step]
    if missing:
        return f"no {missing[0]!r}"
    commit, verdict, meaning, low, high = (step[k] for k in ("commit", "verdict", "meaning", "low", "high"))
    if commit not in commits:
        return f"commit {commit!r} is not one of the bisect's"
    if step["index"] != commits.index(commit):
        return f"commit {commit!r} at index {step['index']!r}, where the bisect has it at {commits.index(commit)}"
    if verdict not in _VERDICTS or meaning not in _MEANINGS:
        return f"verdict {verdict!r}, meaning {meaning!r}"
    if (meaning == "skipped") != (verdict == "failed"):
        return f"meaning {meaning!r} with verdict {verdict!r}"
    if meaning in (_LATER, _AT_OR_BEFORE, _NONE):
        from perfstudy.comparison import verdict as judged

        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in (low, high)):
            return f"a decided step without a finite interval ({low!r}, {high!r})"
        try:  # what the interval alone says (p 0), by the one rule a step's run judged it by
            says = judged(low, high, 0.0, threshold=threshold)
        except ValueError as error:
            return str(error)
        allowed = {_AT_OR_BEFORE: ("slower", "faster"), _NONE: ("no change",)}.get(meaning, _DECIDED)
        if verdict != says or verdict not in allowed:
            return f"verdict {verdict!r} ({meaning}) with the interval [{low:+.2%}, {high:+.2%}] at +-{threshold:.2%}"
    return ""


def _settings(settings, keywords: dict) -> BisectSettings:
    """The bisect's settings from one source: ``settings``, or the keywords built into one; a run's argument that a
    bisect sets itself, or cannot take, is refused by name."""
    refused = sorted(set(keywords) & {"name", "out", "resume", "settings", "scheduler", "a", "b", "min_rounds"})
    if refused:
        raise TypeError(f"{refused[0]}: bisect sets it for each step itself (or cannot yet: scheduler, resume)")
    return BisectSettings.one_source(settings, keywords)


def _checked(commits, command) -> tuple[list[str], str]:
    """The bisect's commits and command template, checked."""
    if isinstance(commits, (str, bytes)) or not hasattr(commits, "__iter__"):
        raise TypeError(f"commits: expected a list of commits, oldest first, got {type(commits).__name__}")
    commits = [check_text(f"commits[{i}]", c).strip() for i, c in enumerate(commits)]
    if len(commits) < 2:
        raise ValueError(f"commits: {len(commits)} given; a good and a bad commit at least are needed")
    if any(not c for c in commits):
        raise ValueError("commits: an empty commit name")
    unsafe = [c for c in commits if shlex.quote(c) != c]
    if unsafe:  # {commit} goes into a shell line as it is
        raise ValueError(
            f"commits: {unsafe[0]!r} is not a plain commit name, and {{commit}} goes into a shell line as it is; give "
            "commit hashes (git rev-parse NAME), or names of letters, digits and @%+=:,./-_"
        )
    repeated = sorted(c for c, n in Counter(commits).items() if n > 1)
    if repeated:
        raise ValueError(f"commits: {repeated[:3]} appear more than once; each commit once, oldest first")
    command = check_text("command", command)
    if "{commit}" not in command:
        raise ValueError(f"command={command!r}: no {{commit}} in it; every step would run the same thing")
    return commits, command


def bisect(
    commits,
    command: str,
    *,
    settings: BisectSettings | None = None,
    out=None,
    resume: bool = False,
    progress: bool = True,
    **keywords,
) -> Bisection:
    """Bisect ``commits`` (oldest first: the first good, the last bad) to the first whose change against the good
    one exceeds the threshold, each step an interleaved run (module docstring: the error bound).

    Parameters
    ----------
    commits : sequence of str
        At least two distinct commits, oldest first.
    command : str
        The benchmark, with ``{commit}`` where the commit goes (``./bench.sh {commit}``).
    settings : BisectSettings, optional
        The threshold, the confidence of the bisect as a whole, each step's budgets (``max_rounds``, ``max_time``),
        the seed and each step's run settings (``statistic``, ``rule``, ``measure``, ``metric``, ``benchmark``,
        ``duet``, ``layout``, ``values``, ``warmup``, ``timeout``, ``shell``, ``prepare``, ``setup``, ``cleanup``). ``{commit}`` in
        a hook is filled
        in per version: the good commit for A, the step's commit for B (``setup='git worktree add wt-{commit}
        {commit}'``).
    out : str or path, optional
        A JSON file rewritten after every step with the bisect's settings, the steps so far and, at the end, the
        result.
    resume : bool
        Continue the bisect in ``out``: its steps are taken as measured (a commit it measured is not run again),
        and the others run. Its commits, command, threshold, confidence, seed and step settings must be these; a
        difference is refused, naming it.
    progress : bool
        Each run's progress bar.
    **keywords
        A convenience: the settings as keywords (``threshold=0.1, max_time="2m"``), built into a
        :class:`BisectSettings`; not with ``settings``. With ``measure`` a harness's format (``"go"``), ``benchmark``
        names the one benchmark of its output that the bisect follows.

    Returns
    -------
    Bisection
    """
    from perfstudy.experiment._run import run

    s = _settings(settings, keywords)
    commits, command = _checked(commits, command)
    threshold, confidence, seed = s.threshold, s.confidence, s.seed
    progress = check_bool("progress", progress)
    level, steps_allowed = step_confidence(confidence, len(commits))
    good = commits[0]
    started = time.monotonic()
    steps: list[dict] = []
    skipped: list[str] = []
    path = None if out is None else Path(os.fspath(out))

    resume = check_bool("resume", resume)
    defined: dict[str, Any] = dict(
        commits=commits, command=command, threshold=threshold, confidence=confidence, seed=seed
    )
    if s.steps:  # each step's run settings define the bisect too (a file without them had none)
        defined["run_options"] = s.record()
    measured = _resumed(path, defined) if resume else {}
    if path is not None and not resume and path.exists():
        raise ValueError(f"out={str(path)!r}: exists; resume=True continues that bisect, or name another file")
    if path is not None and not path.parent.is_dir():
        raise ValueError(f"out={str(path)!r}: no folder {str(path.parent)!r} to write it in")

    def save(result: Bisection | None = None) -> None:
        if path is None:
            return
        document = {"settings": defined} | (result.to_json() if result is not None else {"steps": steps})
        written = path.with_name(path.name + ".partial")  # whole or not at all: a signal can come mid-write
        written.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        os.replace(written, path)

    def measure(index: int) -> dict:
        commit = commits[index]
        if commit in measured:
            step = dict(measured[commit])
            steps.append(step)
            return step
        began = time.monotonic()
        result = run(
            fill(command, {"commit": good}),
            fill(command, {"commit": commit}),
            seed=None if seed is None else seed + len(steps),
            progress=progress,
            settings=per_version(s.step(level), {"commit": good}, {"commit": commit}).replace(name="bisect"),
        )
        verdict = result.verdicts[0] if result.verdicts else {}
        step = dict(
            commit=commit,
            index=index,
            verdict=str(verdict.get("verdict", "failed" if result.failure else "inconclusive")),
            change=float(verdict.get("change", math.nan)),
            low=float(verdict.get("low", math.nan)),
            high=float(verdict.get("high", math.nan)),
            rounds=int(result.rounds),
            seconds=round(time.monotonic() - began, 3),
            stopped=result.stopped,
            failure=result.failure,
            cleanup=result.cleanup,
        )
        if result.signal is not None:  # the step is whole unless it was interrupted; the bisect stops after it
            asked.append(result.signal)
        steps.append(step)
        if progress:
            shown = "failed" if result.stopped == "failed" else f"{step['verdict']}, {step['change']:+.1%}"
            print(f"bisect step {len(steps)}: {commit} against {good}: {shown}", file=sys.stderr)
        return step

    def finish(culprit, span, direction, stopped) -> Bisection:
        if stopped == "interrupted" and steps and steps[-1]["stopped"] == "interrupted":
            steps[-1]["meaning"] = "interrupted"  # kept for the reader; a resumed bisect runs it again
        decided = sum(s["meaning"] in (_LATER, _AT_OR_BEFORE, _NONE) for s in steps)
        bound = min(float(confidence), 1 - decided * (1 - level))
        result = Bisection(
            culprit=culprit,
            range=tuple(span),
            steps=tuple(steps),
            skipped=tuple(skipped),
            confidence=max(0.0, bound),
            step_confidence=float(level),
            max_steps=steps_allowed,
            direction=direction,
            stopped=stopped,
            seconds=round(time.monotonic() - started, 3),
            path=None if path is None else str(path),
            signal=asked[0] if stopped == "interrupted" else None,
            threshold=float(threshold),
        )
        save(result)
        return result

    asked: list[int] = []  # the signals that came (Ctrl-C, SIGTERM) during a step's run
    with _Stop() as stop:  # the signals that come between steps (each step's run has its own handlers)

        def halted(span, direction) -> Bisection | None:
            """The bisect stopped, interrupted, where a signal came: during the last step or since."""
            if stop.requested:
                asked.append(int(stop.signal))  # type: ignore[arg-type]
            return finish(None, span, direction, "interrupted") if asked else None

        return _search(commits, measure, save, finish, halted, skipped)


def _search(commits: list, measure, save, finish, halted, skipped: list) -> Bisection:
    """:func:`bisect`'s steps: the bad commit first, then the range halved, each step's ``meaning`` set; a step
    whose run was interrupted, or a signal between steps (``halted``), ends it "interrupted"."""
    good = commits[0]
    # the bad commit first: is there a change at all, and which way
    last = len(commits) - 1
    first = measure(last)
    if first["stopped"] == "interrupted":
        return finish(None, (commits[1], commits[last]), "", "interrupted")
    if first["stopped"] == "failed":
        raise RuntimeError(
            f"the first step, the bad commit {commits[last]} against the good one {good}, failed: {first['failure']}"
        )
    if first["verdict"] == "no change":
        first["meaning"] = _NONE
        return finish(None, (), "", "no change")
    if first["verdict"] not in ("slower", "faster"):
        first["meaning"] = "undecided"
        return finish(None, (commits[1], commits[last]), "", "undecided")
    direction = first["verdict"]
    first["meaning"] = _AT_OR_BEFORE
    save()
    low, high = 0, last  # the change lies in (low, high]: low is known unchanged, high known changed
    tried = {last}
    while high - low > 1:
        if stopped := halted((commits[low + 1], commits[high]), direction):
            return stopped
        untried = [i for i in range(low + 1, high) if i not in tried]
        if not untried:  # every commit between failed: the range is what is known
            return finish(None, (commits[low + 1], commits[high]), direction, "skipped")
        middle = (low + high) // 2
        index = min(untried, key=lambda i: (abs(i - middle), i))
        tried.add(index)
        step = measure(index)
        if step["stopped"] == "interrupted":
            return finish(None, (commits[low + 1], commits[high]), direction, "interrupted")
        if step["stopped"] == "failed":
            step["meaning"] = "skipped"
            skipped.append(commits[index])
            save()
            continue
        if step["verdict"] == direction:
            step["meaning"] = _AT_OR_BEFORE
            high = index
        elif step["verdict"] in ("no change", "slower", "faster"):  # inside the threshold, or the other way
            step["meaning"] = _LATER
            low = index
        else:
            step["meaning"] = "undecided"
            save()
            return finish(None, (commits[low + 1], commits[high]), direction, "undecided")
        save()
    return finish(commits[high], (commits[high], commits[high]), direction, "found")
