"""How to install an extra: the packages pyproject.toml gives it, since no registry serves perfstudy itself."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from perfstudy._lib.extras import install_hint

PYPROJECT = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]


def _expanded(extra: str) -> list[str]:
    """The extra's packages read from pyproject.toml itself, its ``perfstudy[...]`` entries expanded."""
    found = []
    for spec in PYPROJECT["optional-dependencies"][extra]:
        if spec.startswith("perfstudy["):
            for inner in spec[len("perfstudy[") : -1].split(","):
                found += _expanded(inner)
        else:
            found.append(spec)
    return list(dict.fromkeys(found))


@pytest.mark.parametrize("extra", ["stats", "notebooks", "dask", "explore"])
def test_the_hint_installs_what_pyproject_gives_the_extra_never_perfstudy_from_a_registry(extra):
    hint = install_hint(extra)
    packages = " ".join(f"'{spec}'" for spec in _expanded(extra))
    assert (
        hint == f"pip install {packages} (the [{extra}] extra; from a clone: pip install '/path/to/perfstudy[{extra}]')"
    )
    assert not hint.startswith("pip install 'perfstudy")
