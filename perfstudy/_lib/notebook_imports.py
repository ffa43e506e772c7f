"""papermill and nbconvert imported without jsonschema's IRI grammars: 3.8 s of each notebook command's start.

nbformat validates notebooks with jsonschema. When rfc3987-syntax is installed (JupyterLab's jupyter-events asks
for ``jsonschema[format-nongpl]``), ``import jsonschema`` imports it, and it compiles 38 Lark grammars to check
the ``iri`` and ``iri-reference`` formats: 3.5 of papermill's 4.4 s of import on this project's 2-core machine,
in every process that runs a notebook. No notebook schema uses a format (nbformat's v4 schemas have none, and
nbformat validates without a format checker), so a process that is perfstudy's own (``perfstudy analyze``,
``perfstudy report`` and the report's workers) imports jsonschema with rfc3987-syntax hidden for that one import
(:func:`without_iri_grammars`). A library caller's process is left as it is: its jsonschema keeps every format.
"""

from __future__ import annotations

import sys

__all__ = ["without_iri_grammars"]

_GRAMMARS = "rfc3987_syntax"


def without_iri_grammars() -> bool:
    """Import jsonschema with rfc3987-syntax hidden (``sys.modules[name] = None`` makes its import an ImportError,
    which jsonschema takes as the package being absent), then unhide it. Whether it was hidden: False when
    jsonschema or rfc3987-syntax was imported already, or jsonschema is not installed (the small install, without
    the notebooks extra), and then nothing changes."""
    if "jsonschema" in sys.modules or _GRAMMARS in sys.modules:
        return False
    sys.modules[_GRAMMARS] = None  # type: ignore[assignment]
    try:
        import jsonschema  # noqa: F401
    except ImportError:  # no notebooks extra: the command that needs it says so, naming the extra
        return False
    finally:
        if sys.modules.get(_GRAMMARS, 0) is None:
            del sys.modules[_GRAMMARS]
    return True
