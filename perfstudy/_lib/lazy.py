"""Names a package exports, imported when first used (PEP 562).

``perfstudy --help`` and ``perfstudy compare`` should not pay for scipy and the simulators before
reading a byte, so a package's ``__init__`` names where each export lives and imports it on first
access. A static checker reads the same names from the package's ``if TYPE_CHECKING:`` imports.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(package: str, homes: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, which exports each name of ``homes`` from the module
    ``homes[name]`` (relative to the package, e.g. ``"._compare"``).

    An export's name is never the name of one of the package's modules: importing that module would
    replace the export on the package (``import perfstudy.x.y`` sets ``perfstudy.x.y``), and which
    one a reader got would depend on the order of imports.
    """

    def __getattr__(name: str) -> object:
        if name in homes:
            value = getattr(importlib.import_module(homes[name], package), name)
            setattr(sys.modules[package], name, value)
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(homes))

    return __getattr__, __dir__
