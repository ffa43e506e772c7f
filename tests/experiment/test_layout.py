"""Randomised layout: each batch's command gets a padding of its environment drawn from the seed, the round and the
version, recorded in the batch's rows; with ``--no-randomize-layout`` none, and the table says what that risks."""

import json

import numpy as np
import pandas as pd
import pytest

from perfstudy.cli import main
from perfstudy.experiment._rounds import MOST_PADDING, _padding

pytestmark = pytest.mark.filterwarnings("ignore::perfstudy.experiment.environment.NoisyMachineWarning")

#: a command that appends the length of its padding, as it sees it, to a file (and waits: a bare printf is too short
#: to time through a shell, and the run would stop saying so)
SEEN = "printf '%s\\n' ${{#PERFSTUDY_LAYOUT}} >> {}; sleep 0.005"
RUN = ["--values", "2", "--warmup", "1", "--min-rounds", "5", "--max-rounds", "5", "--no-progress", "--seed", "3"]


def test_each_batch_runs_with_the_padding_its_rows_record(tmp_path, capsys):
    seen_a, seen_b, out = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "run.csv"
    status = main(["run", "--a", SEEN.format(seen_a), "--b", SEEN.format(seen_b), "--out", str(out), *RUN])
    assert status == 0
    frame = pd.read_csv(out)
    for version, seen in (("A", seen_a), ("B", seen_b)):
        rows = frame[frame["version"] == version].sort_values(["round", "iteration"])
        assert rows["layout"].tolist() == [int(n) for n in seen.read_text().split()]  # warm-ups too: 3 runs a batch
        paddings = rows.groupby("round")["layout"].agg(["min", "max"])
        assert (paddings["min"] == paddings["max"]).all()  # one padding a batch
        assert rows.groupby("round")["layout"].first().tolist() == [_padding(3, r, version) for r in range(5)]
    assert frame.groupby(["round", "version"])["layout"].first().nunique() == 10  # 10 batches, 10 draws of 4096
    assert json.loads((tmp_path / "run.csv.json").read_text())["settings"]["layout"] is True
    assert "one memory layout" not in capsys.readouterr().out


def test_with_the_layout_fixed_no_padding_reaches_the_command_and_the_table_says_what_that_risks(tmp_path, capsys):
    seen, out = tmp_path / "seen.txt", tmp_path / "run.csv"
    status = main(
        ["run", "--a", SEEN.format(seen), "--b", "sleep 0.005", "--out", str(out), "--no-randomize-layout", *RUN]
    )
    assert status == 0
    assert set(seen.read_text().split()) == {"0"}  # no PERFSTUDY_LAYOUT at all
    assert pd.read_csv(out)["layout"].isna().all()
    assert (
        "Every batch ran with one memory layout (--no-randomize-layout): a difference that only the layout makes "
        "(the environment's size, code placement) can be called a change." in capsys.readouterr().out
    )
    # a resumed run keeps its record's layout, and refuses another by name
    assert main(["run", "--a", SEEN.format(seen), "--b", "sleep 0.005", "--out", str(out), "--resume", "--max-rounds", "6",
                 "--no-progress"]) == 0  # fmt: skip
    assert pd.read_csv(out)["layout"].isna().all() and set(seen.read_text().split()) == {"0"}
    capsys.readouterr()
    assert (
        main(
            [
                "run",
                "--a",
                SEEN.format(seen),
                "--b",
                "sleep 0.005",
                "--out",
                str(out),
                "--resume",
                "--max-rounds",
                "7",
                "--no-progress",
                "--no-randomize-layout",
            ]
        )
        == 0
    )  # fmt: skip  (the record's own: no conflict)


def test_a_file_from_before_the_layout_column_is_not_resumed(tmp_path, capsys):
    out = tmp_path / "run.csv"
    assert main(["run", "--a", "true", "--b", "true", "-N", "--out", str(out), *RUN]) == 0
    pd.read_csv(out).drop(columns="layout").to_csv(out, index=False)
    record = json.loads((tmp_path / "run.csv.json").read_text())
    del record["settings"]["layout"]
    (tmp_path / "run.csv.json").write_text(json.dumps(record))
    capsys.readouterr()
    assert main(["run", "--a", "true", "--b", "true", "-N", "--out", str(out), "--resume", "--max-rounds", "6"]) == 2
    assert "was written by an earlier perfstudy (no layout column); start a new run" in capsys.readouterr().err


def test_the_paddings_cover_a_page_evenly_and_independently_of_the_version():
    """Over 4096 rounds: each version's paddings have the mean and spread of the uniform on 0..4095 (within 4
    Monte Carlo standard errors), and A's are uncorrelated with B's."""
    rounds = 4096
    a = np.array([_padding(11, r, "A") for r in range(rounds)])
    b = np.array([_padding(11, r, "B") for r in range(rounds)])
    mean, sd = MOST_PADDING / 2, np.sqrt(((MOST_PADDING + 1) ** 2 - 1) / 12)
    for drawn in (a, b):
        assert drawn.min() >= 0 and drawn.max() <= MOST_PADDING
        assert abs(drawn.mean() - mean) < 4 * sd / np.sqrt(rounds)  # SE of a mean of 4096 draws: 18.5 bytes
        # the SD's SE: sd * sqrt((kurtosis - 1) / 4n), a uniform's kurtosis 1.8: 5.3 bytes
        assert abs(drawn.std() - sd) < 4 * sd * np.sqrt(0.8 / (4 * rounds))
    assert abs(np.corrcoef(a, b)[0, 1]) < 4 / np.sqrt(rounds)  # SE of a correlation of 0: 1/sqrt(n)
    assert [_padding(11, r, "A") for r in range(5)] == a[:5].tolist()  # the same on resume and on any host


def test_prepare_gets_each_batchs_layout_and_layout_is_refused_where_it_cannot_be_used(tmp_path, capsys):
    """``{layout}`` in ``--prepare`` (run before every batch, where a link order would be drawn) is the batch's
    padding as its rows record it; anywhere else, or with the layout fixed, it is refused before anything runs."""
    seen, out = tmp_path / "prepared.txt", tmp_path / "run.csv"
    prepare = f"printf '%s %s\\n' $PERFSTUDY_VERSION {{layout}} >> {seen}"
    status = main(["run", "--a", "sleep 0.005", "--b", "sleep 0.005", "--prepare", prepare, "--out", str(out), *RUN])
    assert status == 0
    prepared = [line.split() for line in seen.read_text().splitlines()]
    frame = pd.read_csv(out).sort_values("start")
    batches = frame.groupby(["round", "version"], sort=False)["layout"].first().reset_index()
    assert [[v, str(n)] for v, n in zip(batches["version"], batches["layout"])] == prepared  # in the order they ran
    capsys.readouterr()
    refused = {
        ("--a", "sleep 0.005 # {layout}"): "--a: {layout} is filled in only in --prepare",
        ("--setup", "echo {layout}"): "--setup: {layout} is filled in only in --prepare: --setup runs once per version",
        ("--cleanup", "echo {layout}"): "--cleanup: {layout} is filled in only in --prepare",
    }
    for (option, text), message in refused.items():
        given = {"--a": "sleep 0.005", "--b": "sleep 0.005", option: text}
        arguments = [word for pair in given.items() for word in pair]
        assert main(["run", *arguments, "--out", str(tmp_path / "refused.csv"), *RUN]) == 2
        assert message in capsys.readouterr().err
    assert main(["run", "--a", "sleep 0.005", "--b", "sleep 0.005", "--prepare", "echo {layout}", "--no-randomize-layout",
                 "--out", str(tmp_path / "refused.csv"), *RUN]) == 2  # fmt: skip
    assert (
        "--prepare: {layout} with --no-randomize-layout: no batch draws a layout to fill it with; drop "
        "--no-randomize-layout, or take {layout} out" in capsys.readouterr().err
    )
    assert not (tmp_path / "refused.csv").exists()
