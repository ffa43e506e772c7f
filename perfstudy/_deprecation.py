"""Old names kept importable for one release, each with a DeprecationWarning that says where it went."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Mapping

__all__ = ["moved_names"]


def moved_names(module: str, targets: Mapping[str, str]):
    """A module ``__getattr__`` (PEP 562) serving each old name of ``targets`` from its new home, with a
    DeprecationWarning; any other name is an AttributeError, as without it.

    Parameters
    ----------
    module : str
        The module's ``__name__``.
    targets : mapping of str to str
        Old name -> its new home: ``"package.module.name"`` in another module, or a bare ``"name"`` in this
        one (a renamed class).
    """

    def __getattr__(name: str):
        if name not in targets:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        where, _, new = targets[name].rpartition(".")
        said = f"moved to {where}.{new}" if where else f"is now {new}"
        warnings.warn(
            f"{module}.{name} {said}; the old name goes in the next release", DeprecationWarning, stacklevel=2
        )
        return getattr(importlib.import_module(where or module), new)

    return __getattr__
