"""A parameter list: one command for several values, each against the first in its own run, Holm over all."""

import json
from pathlib import Path

import pytest

from perfstudy.cli import main
from perfstudy.experiment.parameters import parameter_table, run_parameters


def _holm(p_values):
    """Holm's step-down, written out: sort, multiply the i-th smallest by (m - i), carry the maximum, cap at 1."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted, running = [0.0] * len(p_values), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def test_each_value_is_run_against_the_first_and_held_together_by_holm(tmp_path, capsys):
    out = tmp_path / "runs.csv"
    status = main(["run", "--a", "sleep {t}", "--parameter-list", "t", "0.005,0.0051,0.03", "--threshold", "20%",
                   "--values", "1", "--warmup", "0", "--max-rounds", "30", "--seed", "2", "--no-progress",
                   "--out", str(out), "--fail-on-regression"])  # fmt: skip
    printed = capsys.readouterr().out
    assert status == 1, printed  # sleep 0.03 against sleep 0.005: slower, gated
    lines = {line.split()[0]: line for line in printed.splitlines() if line.startswith("0.0")}
    assert lines["0.03"].split()[-1] == "slower" and lines["0.0051"].rstrip().endswith(("no change", "inconclusive"))
    assert "97.5% anytime interval" in printed and "Bonferroni over 2" in printed
    for value in ("0.0051", "0.03"):
        record = json.loads(Path(tmp_path / f"runs.t={value}.csv.json").read_text())
        assert record["commands"] == {"A": "sleep 0.005", "B": f"sleep {value}"}
        assert record["settings"]["confidence"] == pytest.approx(0.975)
    assert "| 0.03 | command |" in Path(f"{out}.md").read_text()


def test_the_family_p_values_are_holms_over_the_runs_own(tmp_path):
    result = run_parameters("sleep {t}", "t", ["0.004", "0.006", "0.012"], threshold=0.05, values=1, warmup=0,
                            max_rounds=12, seed=3, out=tmp_path / "r.csv", progress=False)  # fmt: skip
    own = [row["p_value"] for run in result.runs for row in run.verdicts]
    assert [row["p_value"] for row in result.rows] == pytest.approx(_holm(own))
    assert [row["value"] for row in result.rows] == ["0.006", "0.012"]
    assert "t=0.004" in parameter_table(result) and len(result.to_frame()) == 2


@pytest.mark.parametrize(
    "command, parameter, levels, said",
    [
        ("sleep 1", "t", "1,2", "has no {t} to put the values in"),
        ("sleep {t}", "t", "1", "expected two or more values"),
        ("sleep {t}", "t", "1,1", "a value given twice"),
        ("sleep {t}", "t-x", "1,2", "expected a parameter name"),
    ],
)
def test_a_parameter_list_that_cannot_run_is_refused_by_name(command, parameter, levels, said):
    with pytest.raises(ValueError, match=said):
        run_parameters(command, parameter, levels, progress=False)


def test_the_command_line_refuses_b_beside_a_parameter_list(capsys):
    assert main(["run", "--a", "sleep {t}", "--b", "true", "--parameter-list", "t", "1,2"]) == 2
    assert "--parameter-list: the versions are --a's command with each value; drop --b" in capsys.readouterr().err


def test_a_value_whose_command_fails_stays_in_the_table_as_failed(tmp_path, capsys):
    """A value whose runs fail is a row that says 'failed' and why, in the table, the Markdown and the JSON, and it
    does not count in Holm's family; the command exits with the failure's status."""
    script = tmp_path / "bench.sh"
    script.write_text('#!/bin/sh\n[ "$1" = bad ] && { echo broken >&2; exit 3; }\nsleep 0.005\n')
    script.chmod(0o755)
    out = tmp_path / "runs.csv"
    status = main(["run", "--a", f"{script} {{v}}", "--parameter-list", "v", "good,bad,also", "--threshold", "50%",
                   "--values", "1", "--warmup", "0", "--max-rounds", "6", "--seed", "1", "--no-progress",
                   "--out", str(out)])  # fmt: skip
    captured = capsys.readouterr()
    assert status == 3
    failed = [line for line in captured.out.splitlines() if line.startswith("bad ")]
    assert len(failed) == 1 and failed[0].rstrip().endswith("failed"), captured.out
    assert "v=bad FAILED: " in captured.out and "status 3" in captured.out
    assert "p adjusted (holm) over all 1 comparisons" in captured.out
    assert "| bad | command |" in Path(f"{out}.md").read_text()
    result = run_parameters(f"{script} {{v}}", "v", ["good", "bad"], values=1, warmup=0, max_rounds=6,
                            progress=False, seed=1)  # fmt: skip
    (row,) = result.rows
    assert row["verdict"] == "failed" and "status 3" in row["failure"]
    document = json.loads(parameter_table(result, "json"))
    assert document["rows"][0]["verdict"] == "failed" and document["rows"][0]["change"] is None


@pytest.mark.parametrize(
    ("command", "levels", "options", "message"),
    [
        ("sleep {t}", "1,01", {}, "'1' and '01' are the same number"),
        ("sleep {t}", "0.5,0.50,1", {}, "the same number"),
        ("sleep {t} {m}", "1,2", {}, r"has \{m\} besides \{t\}"),
        ("sleep {t}", "1,2", {"confidence": 0}, "confidence"),
        ("sleep {t}", "1,2", {"confidence": 1.5}, "confidence"),
    ],
)
def test_a_list_that_cannot_mean_what_it_says_is_refused_before_any_run(tmp_path, command, levels, options, message):
    with pytest.raises((ValueError, TypeError), match=message):
        run_parameters(command, "t", levels, out=tmp_path / "runs.csv", **options)
    assert not list(tmp_path.iterdir())


def test_a_shell_variable_in_braces_is_not_a_placeholder(tmp_path):
    result = run_parameters("sleep {t}; : ${HOME}", "t", "0.001,0.002", values=1, warmup=0, max_rounds=6,
                            threshold=0.5, progress=False, seed=1)  # fmt: skip
    assert len(result.rows) == 1
