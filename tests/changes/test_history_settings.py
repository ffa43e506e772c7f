"""``history``'s inputs as real histories are: any column names, units that change, gaps, dates as text, and every
unusable input or output refused in one line, through the library and ``perfstudy history``."""

import json
import os

import numpy as np
import pandas as pd
import pytest

from perfstudy.changes import HistorySettings, history, read_history
from perfstudy.cli import main


def steps(n=60, at=40, step=0.2, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.standard_normal(n) * 0.01
    y[at:] += step
    return np.exp(y)


def write(tmp_path, frame, name="h.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def test_column_options_name_the_files_columns(tmp_path, capsys):
    frame = pd.DataFrame({"sha": [f"c{i:03d}" for i in range(60)], "ns": steps(), "test": "parse"})
    path = write(tmp_path, frame)
    code = main(["history", str(path), "--commit", "sha", "--value", "ns", "--benchmark", "test", "--format", "json"])
    assert code == 0, capsys.readouterr().err
    points = json.loads(capsys.readouterr().out)["change_points"]
    assert [(p["benchmark"], p["commit"], p["verdict"]) for p in points] == [("parse", "c040", "slower")]
    result = history(read_history(path, commit="sha", value="ns", benchmark="test"))
    assert result.change_points["commit"].tolist() == ["c040"]


def test_a_column_option_that_names_no_column_is_refused(tmp_path, capsys):
    path = write(tmp_path, pd.DataFrame({"commit": ["a", "b"], "value": [1.0, 2.0]}))
    assert main(["history", str(path), "--value", "ns"]) == 2
    assert "no column for --value 'ns'" in capsys.readouterr().err
    assert main(["history", str(path), "--timestamp", "when"]) == 2
    assert "--timestamp 'when': no such column" in capsys.readouterr().err


def test_a_unit_that_changes_from_s_to_ms_is_converted_not_a_change(tmp_path, capsys):
    values = steps(step=0.0)
    unit = np.where(np.arange(60) < 30, "s", "ms")
    shown = np.where(unit == "ms", values * 1000, values)  # the same time, written in ms from commit 30 on
    path = write(tmp_path, pd.DataFrame({"commit": [f"c{i}" for i in range(60)], "value": shown, "unit": unit}))
    assert main(["history", str(path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["change_points"] == []
    assert any("converted to" in note for note in doc["notes"])
    result = history(read_history(path))
    assert result.change_points.empty and result.series["unit"].tolist() == ["ms"] or ["s"]


def test_units_that_do_not_convert_are_refused_by_benchmark(tmp_path, capsys):
    unit = np.where(np.arange(60) < 30, "s", "B")
    path = write(tmp_path, pd.DataFrame({"commit": [f"c{i}" for i in range(60)], "value": steps(), "unit": unit}))
    assert main(["history", str(path)]) == 2
    err = capsys.readouterr().err
    assert "mix units that do not convert: series (B, s do not convert)" in err and err.count("\n") == 1
    with pytest.raises(ValueError, match="do not convert"):
        history(read_history(path))


def test_timestamps_as_text_are_parsed_or_refused_by_name(tmp_path, capsys):
    frame = pd.DataFrame({"commit": [f"c{i}" for i in range(60)], "value": steps()})
    # the rows are shuffled; their dates put them back in order, in two time zones
    days = pd.date_range("2026-01-01", periods=60, freq="D")
    frame["when"] = [d.strftime("%Y-%m-%dT%H:%M:%S") + ("+00:00" if i % 2 else "+02:00") for i, d in enumerate(days)]
    shuffled = frame.sample(frac=1, random_state=1)
    path = write(tmp_path, shuffled)
    assert main(["history", str(path), "--timestamp", "when", "--format", "json"]) == 0
    points = json.loads(capsys.readouterr().out)["change_points"]
    assert [p["commit"] for p in points] == ["c40"]
    bad = shuffled.assign(when=["yesterday"] + list(shuffled["when"].iloc[1:]))
    assert main(["history", str(write(tmp_path, bad, "bad.csv")), "--timestamp", "when"]) == 2
    assert "--timestamp: column 'when' has 'yesterday', which is not a date" in capsys.readouterr().err
    empty = shuffled.assign(when=np.nan).astype({"when": object})
    with pytest.raises(ValueError, match="timestamp: column 'when' holds numbers|60 of 60 timestamps"):
        history(empty, timestamp="when")
    missing = shuffled.assign(when=[None] + list(shuffled["when"].iloc[1:]))
    with pytest.raises(ValueError, match="1 of 60 timestamps in column 'when' are missing"):
        history(missing, timestamp="when")


def test_complex_and_text_values_are_refused(tmp_path):
    frame = pd.DataFrame({"commit": ["a", "b", "c"], "value": np.array([1, 2, 3], dtype=complex)})
    with pytest.raises(TypeError, match="complex"):
        history(frame)
    path = tmp_path / "c.csv"
    path.write_text("commit,value\na,1+2j\nb,3\n")
    assert main(["history", str(path)]) == 2


def test_gaps_are_left_out_with_dropna_and_counted(tmp_path, capsys):
    values = steps()
    values[[5, 17, 50]] = np.nan
    path = write(tmp_path, pd.DataFrame({"commit": [f"c{i:03d}" for i in range(60)], "value": values}))
    assert main(["history", str(path)]) == 2
    err = capsys.readouterr().err
    assert "3 measurement(s) without a value" in err and "--dropna" in err and "dropna=True" not in err
    assert main(["history", str(path), "--dropna"]) == 0
    out = capsys.readouterr().out
    assert "3 measurement(s) without a value left out" in out and "c040" in out
    result = history(read_history(path), dropna=True)
    assert result.notes == ("3 measurement(s) without a value left out",)


def test_a_tidy_file_with_a_manifest_is_refused(tmp_path, capsys):
    path = write(tmp_path, pd.DataFrame({"commit": ["a", "b"], "value": [1.0, 2.0]}))
    manifest = write(tmp_path, pd.DataFrame({"commit": ["a"], "path": ["x.txt"]}), "m.csv")
    assert main(["history", str(path), "--manifest", str(manifest)]) == 2
    assert "is a file and a manifest is given" in capsys.readouterr().err
    with pytest.raises(ValueError, match="leave the manifest out"):
        read_history(path, manifest)


@pytest.mark.parametrize("where", ["folder", "missing", "readonly"])
def test_an_out_that_cannot_be_written_exits_2_before_any_work(tmp_path, capsys, where):
    path = write(tmp_path, pd.DataFrame({"commit": [f"c{i}" for i in range(30)], "value": steps(30, 20)}))
    out = {"folder": tmp_path, "missing": tmp_path / "no" / "such.html", "readonly": "/proc/version"}[where]
    if where == "readonly" and os.access("/proc/version", os.W_OK):
        out = "/proc/perfstudy-cannot-create"
    assert main(["history", str(path), "--out", str(out), "--format", "html"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("perfstudy history: --out") and err.count("\n") == 1 and "Traceback" not in err


def test_unusable_files_exit_2_in_one_line(tmp_path, capsys):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert main(["history", str(empty)]) == 2
    assert "an empty file (0 bytes)" in capsys.readouterr().err
    (tmp_path / "r0.txt").write_text("goos: linux\nBenchmarkX-8\t1000\t10 ns/op\n")
    header = tmp_path / "manifest.csv"
    header.write_text("commit,path\n")
    assert main(["history", str(tmp_path), "--manifest", str(header)]) == 2
    assert "a header and no rows" in capsys.readouterr().err
    asv = tmp_path / "asv" / "machine"
    asv.mkdir(parents=True)
    (asv / "machine.json").write_text("{}")
    good = {
        "commit_hash": "abc",
        "date": 1_700_000_000_000,
        "env_name": "existing",
        "result_columns": ["result", "params", "version", "started_at", "duration", "samples"],
        "results": {"b.time_x": [[1.0], [], "v", 1_767_225_600_000, 0.5, [[1e-3, 1.001e-3]]]},
    }
    (asv / "abc.json").write_text(json.dumps(good))
    (asv / "broken.json").write_text("{not json")
    assert main(["history", str(tmp_path / "asv")]) == 2
    err = capsys.readouterr().err
    assert "machine/broken.json is not an asv result file" in err and err.count("\n") == 1


def test_column_options_on_a_folder_are_refused_not_ignored(tmp_path, capsys):
    (tmp_path / "r0.txt").write_text("goos: linux\nBenchmarkX-8\t1000\t10 ns/op\n")
    manifest = tmp_path / "manifest.csv"
    manifest.write_text("commit,path\nc0,r0.txt\n")
    assert main(["history", str(tmp_path), "--manifest", str(manifest), "--value", "ns"]) == 2
    assert "--value: name(s) the columns of a tidy CSV" in capsys.readouterr().err


def test_settings_are_checked_once_and_name_the_option():
    with pytest.raises(ValueError, match=r"^--fdr 1.5: expected a rate"):
        HistorySettings(fdr=1.5, spelling="cli")
    with pytest.raises(ValueError, match=r"^fdr=1.5: expected a rate"):
        HistorySettings(fdr=1.5)
    with pytest.raises(ValueError, match="commit and value both name the column 'x'"):
        HistorySettings(commit="x", value="x")
    with pytest.raises(TypeError, match="give the settings once"):
        history(pd.DataFrame({"commit": ["a"], "value": [1.0]}), settings=HistorySettings(), fdr=0.1)
    assert HistorySettings(threshold="2%").threshold == 0.02


def test_a_row_without_a_benchmark_name_is_refused_not_made_a_benchmark_called_nan(tmp_path, capsys):
    path = tmp_path / "h.csv"
    path.write_text("commit,value,benchmark\na,1,x\nb,2,\n")
    assert main(["history", str(path)]) == 2
    assert "1 row(s) without a benchmark name" in capsys.readouterr().err
