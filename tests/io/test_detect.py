"""perfstudy.io's detection: is_go_text answers from a file's head, without parsing JSON."""

from __future__ import annotations

import pytest

from perfstudy.io import _detect, detect_format, is_go_text


def test_go_text_is_told_from_its_head_and_json_is_not_parsed(tmp_path, monkeypatch):
    go, pyperf, csv = tmp_path / "a.txt", tmp_path / "b.json", tmp_path / "c.csv"
    go.write_text("goos: linux\nBenchmarkX-2 100 1000 ns/op\n")
    pyperf.write_text('{"version": "1.0", "benchmarks": [{"runs": []}]}')
    csv.write_text("benchmark,value\nx,1\n")
    assert detect_format(go) == "go" and detect_format(pyperf) == "pyperf" and detect_format(csv) == "csv"

    def refuse(*args, **kwargs):
        raise AssertionError("is_go_text parsed a JSON file")

    monkeypatch.setattr(_detect, "_read_json", refuse)
    assert is_go_text(go) and not is_go_text(pyperf) and not is_go_text(csv)
    assert not is_go_text(tmp_path / "missing.txt") and not is_go_text(tmp_path)
    with pytest.raises(TypeError, match="path"):
        is_go_text(3)
