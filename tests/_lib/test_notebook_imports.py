"""papermill imported without jsonschema's IRI grammars, in a process of its own (a fresh interpreter each)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

_PROBE = """
import json, sys
from perfstudy._lib.notebook_imports import without_iri_grammars
hidden = without_iri_grammars()
import papermill, nbformat
import jsonschema
again = without_iri_grammars()
notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
nbformat.validate(notebook)
cell = {"cell_type": "code", "id": "a", "metadata": {}, "source": ""}  # no outputs, no execution_count
broken = nbformat.from_dict({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]})
try:
    nbformat.validate(broken)
    refused = False
except nbformat.ValidationError:
    refused = True
print(json.dumps(dict(
    hidden=hidden,
    again=again,
    imported="rfc3987_syntax" in sys.modules,
    left_hidden=sys.modules.get("rfc3987_syntax", 0) is None,
    iri="iri" in jsonschema.FormatChecker.checkers,
    refused=refused,
)))
"""


def _probe(code: str = _PROBE) -> Any:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_papermill_comes_without_the_grammars_and_notebooks_are_still_validated():
    pytest.importorskip("papermill")
    seen = _probe()
    assert seen["hidden"] is True and seen["again"] is False  # once; a second call changes nothing
    assert seen["imported"] is False and seen["left_hidden"] is False  # not imported, and importable again
    assert seen["iri"] is False
    assert seen["refused"] is True  # nbformat's schema still refuses a cell without its fields


def test_a_process_that_has_jsonschema_already_is_left_as_it_is():
    pytest.importorskip("rfc3987_syntax")  # JupyterLab's install brings it
    code = _PROBE.replace("hidden = without_iri_grammars()", "import jsonschema\nhidden = without_iri_grammars()")
    seen = _probe(code)
    assert seen["hidden"] is False and seen["imported"] is True and seen["iri"] is True


def test_without_jsonschema_nothing_is_raised_and_nothing_is_left_hidden():
    """The small install has no jsonschema: the command goes on to say which extra it needs (the wheel check runs
    perfstudy report there), and rfc3987-syntax is not left hidden."""
    code = (
        "import sys, json; sys.modules['jsonschema'] = None\n"
        "from perfstudy._lib.notebook_imports import without_iri_grammars\n"
        "print(json.dumps([without_iri_grammars(), 'rfc3987_syntax' in sys.modules]))"
    )
    assert _probe(code) == [False, False]
