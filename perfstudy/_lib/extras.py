"""How to install an optional extra, in words that work: perfstudy is installed from a clone or a wheel, not from
PyPI, so ``pip install 'perfstudy[stats]'`` would look for a package no registry serves. The extra's own packages
are read from the installed metadata (``pyproject.toml``'s ``[project.optional-dependencies]``)."""

from __future__ import annotations

import shlex

__all__ = ["install_hint"]


def install_hint(extra: str) -> str:
    """The command that installs ``extra``'s packages, and the clone's form of it.

    Parameters
    ----------
    extra : str
        An extra of ``pyproject.toml`` (``"stats"``, ``"dask"``).

    Returns
    -------
    str
        ``pip install 'scipy>=1.11' ... (the [stats] extra; from a clone: pip install '/path/to/perfstudy[stats]')``.
    """
    clone = f"pip install '/path/to/perfstudy[{extra}]'"
    packages = _packages(extra)
    if not packages:
        return f"{clone} from a clone of perfstudy"
    return f"pip install {' '.join(map(shlex.quote, packages))} (the [{extra}] extra; from a clone: {clone})"


def _packages(extra: str, seen: frozenset = frozenset()) -> list[str]:
    """The requirements of ``extra``, the extras it names expanded; empty where perfstudy's metadata is not there."""
    from importlib import metadata

    try:
        requirements = metadata.requires("perfstudy") or []
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a checkout without installing it
        return []
    found: list[str] = []
    for requirement in requirements:
        spec, _, marker = (part.strip() for part in requirement.partition(";"))
        if marker.replace("'", '"') != f'extra == "{extra}"':
            continue
        if spec.startswith("perfstudy["):
            for inner in spec.removeprefix("perfstudy[").removesuffix("]").split(","):
                if inner not in seen:
                    found += _packages(inner.strip(), seen | {extra})
        else:
            found.append(spec)
    return list(dict.fromkeys(found))
