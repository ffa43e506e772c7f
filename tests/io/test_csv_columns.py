"""A tidy CSV as columns without pandas: the rows that read() gives, or a refusal that sends the table to read()
wherever pandas' type inference might read a field otherwise."""

from __future__ import annotations

import gzip
import subprocess
import sys

import pandas as pd
import pytest

from perfstudy.io import file_columns, read
from perfstudy.io.columns import ColumnsError
from tests.support.harness_files import assert_left_to_read, tidy_csv_file

KEYS = ["benchmark", "batch", "iteration", "warmup", "value", "unit"]


def _frame_of(columns, kept) -> pd.DataFrame:
    """The columns' frame, cut to the columns the table had (what read() gives)."""
    return columns.to_frame()[list(kept)]


@pytest.mark.parametrize(
    "kept",
    [
        KEYS,
        ["value", "batch", "benchmark"],  # no iteration, warm-up flag or unit: the file's order within each batch
        ["batch", "value"],  # one benchmark, unnamed
        ["unit", "warmup", "value", "iteration", "batch", "benchmark"],
    ],
)
def test_a_tables_columns_are_its_frames_rows(tmp_path, kept):
    names = ("alpha", "beta", "gamma") if "benchmark" in kept else ("alpha",)
    path = tidy_csv_file(tmp_path / "t", columns=tuple(kept), names=names, slower=0.1)
    columns = file_columns(path)
    frame = read(path)
    assert columns.tool == "csv" and list(frame.columns) == list(kept)
    pd.testing.assert_frame_equal(_frame_of(columns, kept), frame, check_dtype=False, rtol=0, atol=0)
    if "iteration" not in kept:
        assert columns.iteration.tolist() == list(range(len(frame)))  # the file's order
    if "unit" not in kept:
        assert set(columns.unit) == {None}
    if "benchmark" not in kept:
        assert columns.distinct == ["benchmark"]  # compare()'s name for a table without the column


def test_integers_zero_and_below_and_flags_as_zero_or_one_read_alike(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("benchmark,batch,warmup,value\r\nb,0,1,5\r\nb,0,0,-2.5e-1\r\nb,1,0,0\r\nb,1,0,.5\r\n")
    columns = file_columns(path)
    assert columns.value.tolist() == [5.0, -0.25, 0.0, 0.5] and columns.warmup.tolist() == [True, False, False, False]
    frame = read(path)
    assert frame["value"].tolist() == columns.value.tolist()
    assert frame["warmup"].astype(bool).tolist() == columns.warmup.tolist()


_HEADER = "benchmark,batch,iteration,warmup,value,unit\n"


@pytest.mark.parametrize(
    "text",
    [
        _HEADER + 'b,0,0,False,"1.5",s\n',  # quoted
        _HEADER + "NA,0,0,False,1.5,s\n",  # a benchmark pandas reads as missing
        _HEADER + "1,0,0,False,1.5,s\n2,0,0,False,1.5,s\n",  # benchmarks pandas reads as numbers
        _HEADER + "True,0,0,False,1.5,s\n",  # a benchmark pandas reads as a flag
        _HEADER + "b,0,0,False,1.5,s\nb,1,0,False,1.5,ms\n",  # one benchmark in two units: read() converts
        _HEADER + "b,0,0,False,nan,s\n",  # read() refuses it by name, or leaves it out with dropna
        _HEADER + "b,0,0,False,,s\n",
        _HEADER + "b,0,0,False,1.5,s\n\nb,1,0,False,1.5,s\n",  # a blank line
        _HEADER + "b,0,0,False,1.5\n",  # a row of another length
        _HEADER + "b,0,0,no,1.5,s\n",
        _HEADER + "b,0,0,True,1.5,s\nb,0,1,0,1.5,s\n",  # two spellings of the flag
        _HEADER + "b,0.5,0,False,1.5,s\n",  # a batch that is not an integer
        "\ufeff" + _HEADER + "b,0,0,False,1.5,s\n",
        "benchmark,batch,value,host\nb,0,1.5,h1\n",  # a column compare reads otherwise
        "benchmark,value\nb,1.5\n",  # no batch: read() and compare() say what is missing
        "benchmark,batch,value\nb,1,1.5\nb,0,1.5\n",  # batches out of order, no iteration to order them
        "benchmark,batch,value\nb,1,1.5\nc,0,1.5\nb,2,1.5\n",  # sorting by batch would put c first
        "benchmark,batch,value,value\nb,0,1.5,1.5\n",
        "benchmark,batch,value\n",  # no rows
        "benchmark,batch,value\nb,0,12345678901234567890\n",
    ],
)
def test_what_might_read_otherwise_is_left_to_read(tmp_path, text):
    """Each table here raises ColumnsError: read() refuses it in its own words, or reads it (the command then
    compares what read() gives)."""
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    assert_left_to_read(path)


def test_a_compressed_table_or_another_format_is_left_to_read(tmp_path):
    plain = tidy_csv_file(tmp_path / "t")
    packed = tmp_path / "t.csv.gz"
    packed.write_bytes(gzip.compress(open(plain, "rb").read()))
    with pytest.raises(ColumnsError, match="compressed"):
        file_columns(packed, "csv")
    (tmp_path / "h.json").write_text('{"results": []}')
    with pytest.raises(ColumnsError):
        file_columns(tmp_path / "h.json", "csv")


def test_reading_a_table_imports_no_pandas(tmp_path):
    path = tidy_csv_file(tmp_path / "t")
    code = "import sys; from perfstudy.io import file_columns; c = file_columns(sys.argv[1]); "
    code += "print(c.value.size, c.warmup.sum(), 'pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["144", "36", "False"]  # 3 benchmarks x 12 batches x 4 values, the first of each a warm-up
