"""The harnesses' registry: every list of formats, detection, read, file_columns, run --measure and the README's
table come from it, and a new format is one record."""

import json
import re
import typing
from pathlib import Path

import pandas as pd
import pytest

from perfstudy.experiment.batches import MEASURES, Measure
from perfstudy.io import COLUMN_FORMATS, FORMATS, HARNESSES, MEASURED_FORMATS, Format, Harness, harness
from perfstudy.io.columns import FileColumns

ROOT = Path(__file__).resolve().parents[2]


def test_every_list_of_formats_is_the_registry():
    assert FORMATS == typing.get_args(Format) == ("auto", *HARNESSES)
    assert COLUMN_FORMATS == tuple(name for name, h in HARNESSES.items() if h.columns)
    assert MEASURES == typing.get_args(Measure) == ("time", *MEASURED_FORMATS)
    assert all(h.name == name for name, h in HARNESSES.items())
    assert harness("go").kind == "text"
    with pytest.raises(ValueError, match=r"name='bogus': expected one of"):
        harness("bogus")


def test_each_record_names_a_reader_and_a_columns_function_that_exist():
    import importlib

    for h in HARNESSES.values():
        for where in filter(None, (h.reader, h.columns)):
            module, name = where.split(":")
            assert callable(getattr(importlib.import_module(module), name)), where
        assert (h.shape is not None) == (h.kind == "json" or h.name == "criterion"), h.name


def test_the_readme_table_is_the_registrys():
    """README's table of formats: each row is a record's (or two records' alike) file and batch, word for word."""
    text = (ROOT / "README.md").read_text()
    rows = re.findall(r"^\| `([a-z_]+)`(?:, `([a-z_]+)`)? \| (.*) \| (.*) \|$", text, flags=re.M)
    seen = []
    for first, second, writes, batch in rows:
        for name in filter(None, (first, second)):
            assert (HARNESSES[name].writes, HARNESSES[name].batch) == (writes, batch), name
            seen.append(name)
    assert sorted(seen) == sorted(HARNESSES)


def test_run_measure_offers_the_registrys_formats():
    from perfstudy.cli import _parser

    run = _parser()._subparsers._group_actions[0].choices["run"]
    (action,) = [a for a in run._actions if "--measure" in a.option_strings]
    assert ", ".join(MEASURED_FORMATS) in " ".join(action.help.split())


def _read_toy(source, *, dropna=False):
    rows = [dict(benchmark=name, batch=i, iteration=0, value=float(v), unit="s") for name, values in source["toy"].items()
            for i, v in enumerate(values)]  # fmt: skip
    return pd.DataFrame(rows)


def _toy_columns(data, path):
    import numpy as np

    names = list(data["toy"])
    values = [data["toy"][n] for n in names]
    return FileColumns(
        codes=np.repeat(np.arange(len(names)), [len(v) for v in values]),
        distinct=names,
        batch=np.concatenate([np.arange(len(v)) for v in values]),
        iteration=np.zeros(sum(map(len, values)), dtype=np.int64),
        warmup=np.zeros(sum(map(len, values)), dtype=bool),
        value=np.concatenate([np.asarray(v, dtype=float) for v in values]),
        unit=["s"] * len(names),
        tool="toy",
    )


def test_a_new_format_is_one_record(tmp_path, monkeypatch):
    """A record added to the registry, and nothing else: detection tells its files, read gives its reader's frame and
    file_columns its columns."""
    from perfstudy.io import detect_format, file_columns, read

    toy = Harness("toy", "toy --json", "a run", f"{__name__}:_read_toy", shape=lambda d: isinstance(d, dict) and "toy" in d,
                  columns=f"{__name__}:_toy_columns")  # fmt: skip
    monkeypatch.setitem(HARNESSES, "toy", toy)
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"toy": {"x": [1.0, 2.0, 3.0]}}))
    assert detect_format(path) == "toy"
    frame = read(path)
    assert frame.attrs["format"] == "toy" and frame["value"].tolist() == [1.0, 2.0, 3.0]
    columns = file_columns(path)
    assert columns.tool == "toy" and columns.value.tolist() == [1.0, 2.0, 3.0]
