"""pyperf's JSON as columns: the rows read_pyperf gives, or a refusal that sends the file to read_pyperf."""

import json

import numpy as np
import pandas as pd
import pytest

from perfstudy.io import read_pyperf
from perfstudy.io.pyperf import PyperfColumnsError, pyperf_columns


def _suite(runs_of, **meta):
    return {
        "version": "1.0",
        "metadata": {"hostname": "h", **meta},
        "benchmarks": [{"metadata": {"name": name}, "runs": runs} for name, runs in runs_of.items()],
    }


RUNS = {
    "calibrated": [
        {"metadata": {"date": "2026-01-01 00:00:00.5", "loops": 8}, "warmups": [[1, 0.5], [2, 0.4], [4, 0.3]]},
        {"metadata": {"date": "2026-01-01 00:00:01.5"}, "warmups": [[8, 0.21]], "values": [0.2, 0.19, 0.2]},
        {"metadata": {"date": "2026-01-01 00:00:02.5"}, "warmups": [[8, 0.22]], "values": [0.2, 0.18]},
    ],
    "plain": [{"values": [3, 4.5]}, {"values": [4.0]}],
}


def test_the_columns_are_read_pyperfs_rows():
    """Every value, warm-ups included, in the file's order, with the batch (run), position in the run, warm-up flag
    and unit that read_pyperf gives it (a checked slow path: pandas and a row per dict)."""
    data = _suite(RUNS, loops=8)
    columns = pyperf_columns(data)
    frame = read_pyperf(data)
    mine = columns.to_frame()
    for column in ("benchmark", "batch", "iteration", "warmup", "value", "unit"):
        np.testing.assert_array_equal(mine[column].to_numpy(), frame[column].to_numpy(), err_msg=column)
    assert columns.distinct == ["calibrated", "plain"] and columns.unit == ["second", "second"]
    assert columns.warmup.sum() == 5 and len(columns.value) == 5 + 5 + 3


@pytest.mark.parametrize(
    "damage, why",
    [
        (lambda d: d["benchmarks"][1]["runs"][0]["values"].append(None), "not a finite number"),
        (lambda d: d["benchmarks"][1]["runs"][0]["values"].append(float("nan")), "not a finite number"),
        (lambda d: d["benchmarks"][1]["runs"][0]["values"].append(True), "not a finite number"),
        (lambda d: d["benchmarks"][1]["runs"][0]["values"].append(-1.0), "below 0"),
        (lambda d: d["benchmarks"][1]["metadata"].update(name="calibrated"), "two benchmarks of one name"),
        (lambda d: d["benchmarks"][1]["runs"][0].update(metadata={"name": "other"}), "renames its benchmark"),
        (lambda d: d["benchmarks"][1]["runs"][0].update(metadata={"loops": 0}), "loop count below 1"),
        (lambda d: d["benchmarks"][0]["runs"][1]["metadata"].update(date="2026-01-01T00:00:01"), "dates of two shapes"),
        (lambda d: d["benchmarks"][0]["runs"][1]["metadata"].update(date="soon"), "date of an unusual shape"),
        (lambda d: d.pop("benchmarks"), "not pyperf JSON"),
    ],
)
def test_what_read_pyperf_would_refuse_or_read_otherwise_is_left_to_it(damage, why):
    """Each damage is refused with PyperfColumnsError naming the source, and read_pyperf then refuses the file or
    reads it (a run's own name, or a bool, which it keeps and this reader does not)."""
    data = json.loads(json.dumps(_suite(RUNS)))
    damage(data)
    with pytest.raises(PyperfColumnsError, match=f"source: .*{why}"):
        pyperf_columns(data)


def test_a_file_that_is_not_json_is_left_to_read_pyperf(tmp_path):
    path = tmp_path / "bench.json"
    path.write_text("BenchmarkA 5 10 ns/op\n")
    with pytest.raises(PyperfColumnsError, match="source: not JSON"):
        pyperf_columns(path)
    with pytest.raises(FileNotFoundError):
        pyperf_columns(tmp_path / "absent.json")
    path.write_text(json.dumps(_suite(RUNS)))
    assert isinstance(pyperf_columns(path).to_frame(), pd.DataFrame)
