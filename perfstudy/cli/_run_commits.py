"""``perfstudy run --base REV --head REV --command TEMPLATE``: two commits of the repository here, run against each
other by :func:`perfstudy.experiment.worktrees.run_commits`."""

from __future__ import annotations

from perfstudy.cli._common import warning_lines

__all__ = ["commits_given", "run_commits_from"]

#: the options that run two commits, and where argparse keeps them
_COMMITS = {"base": "base", "head": "head", "command": "template"}


def commits_given(args) -> bool:
    """Whether two commits are run (``--base``, ``--head``, ``--command``), each needing the others and refusing what
    does not go with them."""
    given = [option for option, key in _COMMITS.items() if getattr(args, key) is not None]
    if not given:
        return False
    missing = [f"--{option}" for option in _COMMITS if option not in given]
    if missing:
        raise ValueError(f"--{given[0]}: give {' and '.join(missing)} too; two commits are run by one command template")
    clashes = {"--a": args.a, "--b": args.b, "--parameter-list": args.parameter_list, "--resume": args.resume or None}
    clashes["--scheduler"] = args.scheduler  # other hosts have not this machine's worktrees
    clashes["--plan"] = args.plan
    said = [option for option, value in clashes.items() if value is not None]
    if said:
        raise ValueError(
            f"--base and --head run two commits of this repository (A and B from --command), each in a worktree made "
            f"and removed by this run; drop {', '.join(said)}"
        )
    return True


def run_commits_from(args, settings):
    """The run of ``--base`` against ``--head`` (:func:`perfstudy.experiment.worktrees.run_commits`); its errors are
    raised, for the run's own words."""
    from perfstudy.experiment.worktrees import run_commits

    with warning_lines("run"):  # the machine's warnings as they are found: before round 1
        return run_commits(
            args.base, args.head, args.template, settings=settings, out=args.out, seed=args.seed,
            ignore_failures=args.ignore_failures, progress=not args.no_progress,
        )  # fmt: skip
