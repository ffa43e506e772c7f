"""A run's own table, as text and Markdown: each cell from the verdict rows it shows, a memory said as larger or
smaller, the footer from the run's settings, and a failed cleanup said under the table."""

from dataclasses import dataclass, field

import pytest

from perfstudy.experiment.run_table import markdown_table, text_table, within_layout


@dataclass
class _Run:
    """What the table reads of a RunResult, with numbers chosen so that each cell can be checked by eye."""

    verdicts: list
    settings: dict = field(
        default_factory=lambda: dict(confidence=0.9, statistic="median", rule="sign", threshold=0.05, layout=True)
    )
    rounds: int = 12
    rows: list = field(default_factory=list)
    stopped: str = "decided"
    cleanup: str = ""


TIME = dict(benchmark="encode|fast", a=0.0021, b=0.0025, change=0.19, low=0.12, high=0.26, p_value=0.003, unit="s",
            rounds=12)  # fmt: skip
MEMORY = dict(benchmark="rss", a=2e6, b=1.5e6, change=-0.25, low=-0.3, high=-0.2, p_value=0.01, unit="B",
              rounds=12)  # fmt: skip


def test_each_cell_is_the_verdict_rows_and_the_footer_the_runs_settings():
    run = _Run(verdicts=[dict(TIME, verdict="slower"), dict(MEMORY, verdict="faster")])
    header, time_row, memory_row, _, footer = text_table(run).split("\n")
    assert header.split() == "benchmark A (median) B change (median round) 90% anytime interval p verdict".split()
    assert time_row.split()[0] == "encode|fast" and "+19.00%" in time_row and "[+12.00%, +26.00%]" in time_row
    assert time_row.split()[-1] == "slower"
    assert memory_row.split()[-1] == "smaller"  # a memory is smaller, not faster
    assert footer.startswith("12 rounds of A and B, interleaved; the sign confidence sequence for the median round's")
    assert footer.endswith("over 2 benchmarks; a change within ±5% is no change.")


def test_markdown_names_the_commands_escapes_pipes_and_says_why_it_stopped():
    rows = [dict(version="B", command="./new"), dict(version="A", command="./old")]
    run = _Run(verdicts=[dict(TIME, verdict="no change")], rows=rows, settings=dict(rule="t", duet=True, layout=True))
    text = markdown_table(run)
    assert text.startswith("- **A**: `./old`\n- **B**: `./new`\n\n| benchmark | A (mean) |")
    assert "| encode\\|fast |" in text
    assert "run side by side (duet); Lai's confidence sequence for the mean round's B/A" in text
    assert text.rstrip().endswith("Stopped: decided.")


def test_a_failed_cleanup_is_said_under_both_tables():
    run = _Run(verdicts=[dict(TIME, verdict="slower")], cleanup="'rm -rf scratch' exited 1")
    for table in (text_table(run), markdown_table(run)):
        assert "CLEANUP FAILED: 'rm -rf scratch' exited 1; the verdicts stand" in table


def test_anything_but_a_runs_result_is_refused_by_name():
    with pytest.raises(TypeError, match=r"^result: expected what perfstudy.experiment.run returns, got dict"):
        text_table({"verdicts": []})


def test_no_change_beyond_layout_only_where_b_differs_from_a_by_less_than_a_from_itself():
    """An undecided interval that holds 0 and lies inside +-A's spread over its batches (each its own layout) is
    "no change beyond layout"; a decided one, one excluding 0, one reaching beyond the spread, or a run whose
    batches shared one layout, is not."""
    within = dict(TIME, benchmark="within", low=-0.24, high=0.22, spread_a=0.256, verdict="inconclusive")
    cases = [
        within,
        dict(within, benchmark="beyond", high=0.26),  # reaches past +25.6%
        dict(within, benchmark="excludes 0", low=0.01),  # a change, however small: not the layout's to explain
        dict(within, benchmark="decided", low=-0.004, high=0.004, verdict="no change"),
        dict(within, benchmark="no spread", spread_a=float("nan")),
    ]
    run = _Run(verdicts=cases)
    assert within_layout(run) == {
        "within": "within: no change beyond layout: B differs from A by -24.0% to +22.0%, less than A differs from "
        "itself across its batches' layouts (±25.6%, the SD of A's rounds, the machine's noise in it too); these "
        "rounds cannot tell a change this small from a layout effect."
    }
    assert within_layout(run)["within"] in text_table(run).replace("\n", " ")
    fixed = _Run(verdicts=cases, settings=dict(run.settings, layout=False))
    assert within_layout(fixed) == {} and "no change beyond layout" not in text_table(fixed)
