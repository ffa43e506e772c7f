"""Names a package exports, imported when first used (PEP 562), from one list.

``perfstudy --help`` and ``perfstudy compare`` should not pay for scipy and the simulators before reading a byte, so a
package's ``__init__`` imports its exports only for a static checker, in its ``if TYPE_CHECKING:`` block, each in
the re-exporting form ``from perfstudy.x._y import name as name``. That block is the one list of the package's
exports: :func:`lazy_exports` reads it from the package's source, imports each name from its home on first access,
and gives ``__all__``.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["lazy_exports", "exported"]

#: an import of the ``if TYPE_CHECKING:`` block: its module, and its names (parenthesised over lines, or not)
_IMPORT = re.compile(r"^    from ([\w.]+) import (\([^)]*\)|[^\n]*)", re.MULTILINE)


def exported(source: str) -> dict[str, str]:
    """``{name: module}`` of the ``if TYPE_CHECKING:`` block of a package's ``__init__`` source, in its order.

    Parameters
    ----------
    source : str
        The text of the package's ``__init__.py``.
    """
    _, found, rest = source.partition("\nif TYPE_CHECKING:\n")
    if not found:
        return {}
    block = re.split(r"\n(?=\S)", rest, maxsplit=1)[0]  # up to the first line that is not indented
    homes: dict[str, str] = {}
    for module, names in _IMPORT.findall(block):
        for item in names.strip("()").split(","):
            if item.strip():
                homes[item.split(" as ")[-1].strip()] = module
    return homes


def lazy_exports(package: str) -> tuple[Callable[[str], object], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package``, which exports each name its ``if TYPE_CHECKING:``
    block imports (:func:`exported`), each from its module, on first access.

    An export's name is never the name of one of the package's modules: importing that module would
    replace the export on the package (``import perfstudy.x.y`` sets ``perfstudy.x.y``), and which
    one a reader got would depend on the order of imports.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    """
    homes = exported(Path(str(sys.modules[package].__file__)).read_text(encoding="utf-8"))

    def __getattr__(name: str) -> object:
        if name in homes:
            value = getattr(importlib.import_module(homes[name]), name)
            setattr(sys.modules[package], name, value)
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(homes))

    return __getattr__, __dir__, list(homes)
