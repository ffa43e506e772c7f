"""The layout study's programs and readings: each program built as its source says (a loop of a known length, the
copy that writes where its buffer lay), B's environment found so that B's buffer lies at the slow distance, and the
shares and ratios read from the batches as counted by hand."""

import shutil
import subprocess

import pandas as pd
import pytest

from perfstudy.studies import layout

needs_cc = pytest.mark.skipif(shutil.which("cc") is None or shutil.which("setarch") is None, reason="cc, setarch")


def _trial(batches: list[dict]) -> layout.LayoutTrial:
    return layout.LayoutTrial(pd.DataFrame(), pd.DataFrame(batches), 10, {"A": 32, "B": 16}, {"A": 0.02, "B": 0.06})


def test_shares_and_ratios_are_the_batches_counted():
    rows = [dict(layout="fixed", version="A", round=0, padding=None, seconds=0.020, distance=32),
            dict(layout="fixed", version="B", round=0, padding=None, seconds=0.060, distance=16),
            dict(layout="fixed", version="A", round=1, padding=None, seconds=0.022, distance=32),
            dict(layout="fixed", version="B", round=1, padding=None, seconds=0.066, distance=16),
            dict(layout="randomised", version="A", round=0, padding=7, seconds=0.020, distance=16),
            dict(layout="randomised", version="B", round=0, padding=9, seconds=0.021, distance=48),
            dict(layout="randomised", version="A", round=1, padding=3, seconds=0.030, distance=64),
            dict(layout="randomised", version="B", round=1, padding=2, seconds=0.029, distance=80)]  # fmt: skip
    trial = _trial(rows)
    assert layout.slow_share(trial) == {"fixed": 0.5, "randomised": 0.25}
    assert layout.ratio(trial, "fixed") == pytest.approx(0.063 / 0.021)  # medians of two: their means
    assert layout.ratio(trial, "randomised") == pytest.approx(0.025 / 0.025)
    with pytest.raises(TypeError, match="trial: expected layout_trial's result, got dict"):
        layout.slow_share({})


@needs_cc
def test_programs_are_built_as_their_sources_say_and_b_is_put_at_the_slow_distance(tmp_path):
    programs = layout.build(tmp_path)
    assert set(programs) == set(layout.PROGRAMS)
    where = tmp_path / "where"
    for _ in range(2):  # the copy appends where its buffer lay, modulo 4096, on a 16-byte stack alignment
        subprocess.run(["setarch", "-R", programs["copy"], "10", str(where)], check=True)
    first, second = (int(d) for d in where.read_text().split())
    assert first == second and first % 16 == 0 and 0 <= first < 4096  # no stack randomisation: one place
    extra, distances, seconds = layout._find_extra(programs["copy"], tmp_path)
    assert distances["B"] == layout.SLOW_DISTANCE != distances["A"]
    # B's variable is as long as the distance it moved B's buffer by, give or take the 16-byte alignment
    assert abs(extra - (distances["A"] - distances["B"]) % 4096) <= 16 + len(layout.SIZE_VARIABLE)
    assert (tmp_path / "fixed-B").read_text().split()[-1] == str(layout.SLOW_DISTANCE)
    assert set(seconds) == {"A", "B"} and all(s > 0 for s in seconds.values())


def test_a_folder_or_program_that_is_not_there_is_refused_by_name(tmp_path):
    with pytest.raises(FileNotFoundError, match="folder='.*nowhere': not a folder"):
        layout.build(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="program='.*copy': not a program; build\\(\\) makes it"):
        layout.layout_trial(str(tmp_path / "copy"), tmp_path)
    with pytest.raises(TypeError, match="programs: expected build\\(\\)'s programs"):
        layout.instruction_runs({"loop": "x"})


def test_a_runs_table_is_shown_in_its_units_and_percent():
    table = pd.DataFrame([
        dict(part="A/A", benchmark="command:instructions", unit="instructions", a=6124166.0, b=6124170.0,
             change=6.5e-7, low=-1e-6, high=2e-6, verdict="no change", rounds=9, spread_a=0.0),
        dict(part="fixed", benchmark="command", unit="s", a=0.0203, b=0.0622, change=2.0852, low=1.9065,
             high=2.504, verdict="slower", rounds=9, spread_a=0.09),
    ])  # fmt: skip
    shown = layout.shown(table)
    assert shown.loc["A/A"].tolist() == ["command:instructions", "6,124,166", "6,124,170", "+0.000%",
                                         "[-0.000%, +0.000%]", "no change", 9]  # fmt: skip
    assert shown.loc["fixed"].tolist() == ["command", "20.30 ms", "62.20 ms", "+208.520%", "[+190.650%, +250.400%]",
                                           "slower", 9]  # fmt: skip
