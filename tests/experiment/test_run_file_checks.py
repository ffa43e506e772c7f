"""A run's file read back: a record or rows that no run writes (an unknown rule, an infinite or negative
measurement, a negative peak memory) are refused by name, by read_run, read_experiment's users and --resume."""

import json
from pathlib import Path

import pandas as pd
import pytest

from perfstudy.cli import main
from perfstudy.experiment import read_run, run


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "runs.csv"
    run("sleep 0.002", "sleep 0.002", values=1, warmup=0, min_rounds=2, max_rounds=3, threshold=0.5, seed=1,
        metric="wall,cpu,rss", out=out, progress=False)  # fmt: skip
    return out


def _copy(finished, tmp_path, *, settings=None, column=None, value=None):
    out = tmp_path / "runs.csv"
    frame = pd.read_csv(finished)
    if column is not None:
        frame.loc[frame.index[0], column] = value
    frame.to_csv(out, index=False)
    record = json.loads(Path(f"{finished}.json").read_text())
    record["settings"].update(settings or {})
    Path(f"{out}.json").write_text(json.dumps(record))
    return out


@pytest.mark.parametrize(
    ("settings", "message"),
    [({"rule": "bogus"}, "rule"), ({"statistic": "mode"}, "statistic"), ({"confidence": 2}, "confidence")],
)
def test_a_record_with_settings_no_run_writes_is_refused(finished, tmp_path, capsys, settings, message):
    out = _copy(finished, tmp_path, settings=settings)
    with pytest.raises(ValueError, match=f"settings are not a run's.*{message}"):
        read_run(out)
    assert main(["compare", str(out)]) == 2
    assert "was the record edited?" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("column", "value", "what"),
    [("value", -0.5, "value"), ("value", float("inf"), "value"), ("rss", -100, "peak memory"), ("cpu", -1, "CPU")],
)
def test_rows_with_measurements_no_run_writes_are_refused_read_back_and_on_resume(
    finished, tmp_path, capsys, column, value, what
):
    out = _copy(finished, tmp_path, column=column, value=value)
    with pytest.raises(ValueError, match=f"have a {what}.*infinite or below 0"):
        read_run(out)
    status = main(["run", "--a", "sleep 0.002", "--b", "sleep 0.002", "--resume", "--out", str(out), "--no-progress"])
    assert status == 2
    err = capsys.readouterr().err
    assert f"resume: {out}: 1 " in err and "so the file was edited" in err and err.count("\n") == 1
