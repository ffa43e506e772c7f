"""Two commits of a git repository run against each other: :func:`run_commits`, what ``perfstudy run --base REV
--head REV --command TEMPLATE`` does.

Each commit is checked out into a worktree of its own (``git worktree add --detach``) in a scratch folder, and
built there once by ``setup`` (the build), before any round and outside every measurement; a build that fails stops
everything, naming the commit. Then :func:`perfstudy.experiment.run` runs the two commands in randomised interleaved
rounds, base as A and head as B, and judges every benchmark the command's harness reports (``measure``). In every
template, ``{commit}`` is the commit's full hash and ``{worktree}`` the folder it is checked out in; the hooks
``prepare`` and ``cleanup`` are filled per version too, as :func:`per_version` fills them for ``bisect``. The
worktrees and the scratch folder are removed when the run ends, whatever ends it (a failure, Ctrl-C, SIGTERM).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from perfstudy._lib.checks import said
from perfstudy.experiment.settings import RunSettings

__all__ = ["PLACEHOLDERS", "commit_hash", "fill", "per_version", "run_commits"]

#: what a template's placeholders stand for
PLACEHOLDERS = ("{commit}", "{worktree}")
#: characters of a failed build's output kept for its message
BUILD_TAIL = 1500


def commit_hash(name: str, option: str, repository: str | os.PathLike = ".") -> str:
    """The full hash of the commit ``name`` names now in ``repository``, fixed once before anything runs (a name
    such as ``HEAD~9``, read again after a checkout, would name another commit).

    Parameters
    ----------
    name : str
        A commit, as git names it (a hash, a branch, ``HEAD~2``).
    option : str
        The setting as the user wrote it (``--base``, ``base``), for the message.
    repository : str or path
        A folder inside the repository.
    """
    if not isinstance(repository, (str, os.PathLike)):
        raise TypeError(f"repository={repository!r}: expected a folder's path")
    if not isinstance(name, str):
        raise TypeError(f"name={name!r} ({option}): expected a commit of the git repository, as git names it")
    if not name.strip() or name.startswith("-"):
        raise ValueError(f"{said(option, name)}: expected a commit of the git repository")
    if shutil.which("git") is None:
        raise OSError(f"{said(option, name)}: git is not installed (Debian package 'git')")
    found = subprocess.run(
        ["git", "-C", str(repository), "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode != 0 or not found.stdout.strip():
        inside = subprocess.run(
            ["git", "-C", str(repository), "rev-parse", "--git-dir"], capture_output=True, text=True, check=False
        )
        where = Path(repository).resolve()
        if inside.returncode != 0:
            raise ValueError(f"{said(option, name)}: {where} is not inside a git repository")
        raise ValueError(f"{said(option, name)}: not a commit of the git repository at {where}")
    return found.stdout.strip()


def fill(template: str, values: dict[str, str]) -> str:
    """``template`` with each ``{name}`` of ``values`` replaced (a worktree's path quoted for the shell).

    Parameters
    ----------
    template : str
    values : dict
        ``{"commit": hash, "worktree": path}``, or fewer.
    """
    if not isinstance(template, str):
        raise TypeError(f"template={template!r}: expected a command's text")
    _check_values("values", values)
    for name, value in values.items():
        template = template.replace("{" + name + "}", shlex.quote(value) if name == "worktree" else value)
    return template


def per_version(settings: RunSettings, a: dict[str, str], b: dict[str, str]) -> RunSettings:
    """The run's settings with each hook's placeholders filled per version: ``a``'s for A, ``b``'s for B (the run
    sets ``PERFSTUDY_VERSION`` for its hooks, and the shell chooses by it).

    Parameters
    ----------
    settings : RunSettings
    a, b : dict
        Each version's placeholders (:func:`fill`).
    """
    if not isinstance(settings, RunSettings):
        raise TypeError(f"settings: expected a RunSettings, got {type(settings).__name__}")
    _check_values("a", a)
    _check_values("b", b)
    filled = {}
    for hook in ("prepare", "setup", "cleanup"):
        text = getattr(settings, hook)
        if isinstance(text, str) and any("{" + name + "}" in text for name in (*a, *b)):
            filled[hook] = f'if [ "$PERFSTUDY_VERSION" = A ]; then ({fill(text, a)}\n); else ({fill(text, b)}\n); fi'
    return settings.replace(**filled) if filled else settings


def _check_values(name: str, values) -> None:
    if not isinstance(values, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in values.items()):
        raise TypeError(f"{name}={values!r}: expected each placeholder's text, such as {{'commit': 'abc123'}}")


def _git(repository, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repository), *arguments], capture_output=True, text=True, check=False)


def _build(template: str, label: str, commit: str, worktree: Path, progress: bool) -> None:
    """``template`` run once in ``worktree`` through the shell; its failure refused, naming the commit."""
    began = time.monotonic()
    if progress:
        print(f"perfstudy run: building {label} {commit[:12]} in {worktree}", file=sys.stderr)
    built = subprocess.run(
        fill(template, {"commit": commit, "worktree": str(worktree)}),
        shell=True,
        cwd=worktree,
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
    )
    if built.returncode != 0:
        tail = (built.stderr.strip() or built.stdout.strip())[-BUILD_TAIL:]
        raise ValueError(
            f"the build of {label} {commit[:12]} (--setup, in its worktree) exited with status {built.returncode}"
            f"{': ' + tail if tail else ''}; nothing was measured"
        )
    if progress:
        print(f"perfstudy run: built {label} {commit[:12]} in {time.monotonic() - began:.1f} s", file=sys.stderr)


def run_commits(
    base: str,
    head: str,
    command: str,
    *,
    repository: str | os.PathLike = ".",
    out=None,
    seed: int | None = None,
    ignore_failures: bool = False,
    progress: bool = True,
    settings: RunSettings | None = None,
    **keywords,
):
    """Run a repository's ``base`` commit (A) against its ``head`` (B): each checked out into a worktree of its own,
    built once by ``setup`` outside every measurement, then run in randomised interleaved rounds until every
    benchmark is decided (:func:`perfstudy.experiment.run`). The worktrees are removed at the end, whatever ends it.

    Parameters
    ----------
    base, head : str
        The two commits, as git names them (fixed to their hashes before anything runs). The same commit twice is an
        A/A run.
    command : str
        The benchmark's command template: ``{commit}`` is each commit's full hash and ``{worktree}`` the folder it
        is checked out in (``cd {worktree} && go test -bench . -count 1``); one of them must appear, or both sides
        would run the same thing.
    repository : str or path
        A folder inside the git repository (default: this one).
    out, seed, ignore_failures, progress
        As :func:`perfstudy.experiment.run` takes them. A run of two commits is not resumed: its worktrees are gone.
    settings : RunSettings, optional
        The run's settings; its ``setup`` is the build, run once per commit through the shell in its worktree before
        the first round (its output is shown only when it fails). ``prepare`` and ``cleanup`` take the placeholders
        too, per version.
    **keywords
        Or the settings as keywords (``measure="go"``, ``setup="go build ./..."``), a convenience that builds them.

    Returns
    -------
    RunResult
        As :func:`perfstudy.experiment.run` returns it; its commands name each commit's worktree.

    Raises
    ------
    ValueError
        A commit that is not in the repository, a template with neither placeholder, a build that fails (naming the
        commit and the tail of its output).
    """
    from perfstudy.experiment._run import run

    s = RunSettings.one_source(settings, keywords)
    cli = s.spelling == "cli"  # the options' names in messages: --base, or base=
    if not isinstance(command, str) or not command.strip():
        raise TypeError(
            f"{said('--command' if cli else 'command', command)}: expected the benchmark's command template"
        )
    if not any(p in command for p in PLACEHOLDERS):
        raise ValueError(
            f"{said('--command' if cli else 'command', command)}: neither {{commit}} nor {{worktree}} in it, so base "
            "and head would run the same thing; write where each commit's checkout goes (cd {worktree} && ...)"
        )
    commits = {
        label: commit_hash(name, f"--{label}" if cli else label, repository)
        for label, name in (("base", base), ("head", head))
    }
    root = Path(_git(repository, "rev-parse", "--show-toplevel").stdout.strip() or repository)
    scratch = Path(tempfile.mkdtemp(prefix="perfstudy-worktrees-"))
    trees: dict[str, Path] = {}
    try:
        for label, commit in commits.items():
            tree = scratch / f"{label}-{commit[:12]}"
            added = _git(root, "worktree", "add", "--detach", str(tree), commit)
            if added.returncode != 0:
                raise ValueError(
                    f"{label} {commit[:12]}: git worktree add failed: {added.stderr.strip()[-BUILD_TAIL:]}"
                )
            trees[label] = tree
        if s.setup is not None:
            for label, commit in commits.items():
                _build(s.setup, label, commit, trees[label], progress)
        values = {label: {"commit": commits[label], "worktree": str(trees[label])} for label in commits}
        steps = per_version(s.replace(setup=None), values["base"], values["head"])
        return run(
            fill(command, values["base"]),
            fill(command, values["head"]),
            out=out,
            seed=seed,
            ignore_failures=ignore_failures,
            progress=progress,
            settings=steps,
        )
    finally:
        for tree in trees.values():
            _git(root, "worktree", "remove", "--force", str(tree))
        _git(root, "worktree", "prune")
        shutil.rmtree(scratch, ignore_errors=True)
