"""history(): SAP's labels, calibration on series with no change, power on planted steps, verdicts, refusals."""

import math
import re

import numpy as np
import pandas as pd
import pytest

from perfstudy.changes import history


def series(values, benchmark="b", unit=None):
    frame = pd.DataFrame({"benchmark": benchmark, "commit": np.arange(len(values)), "value": values})
    if unit is not None:
        frame["unit"] = unit
    return frame


def test_sap_small_2021_every_labelled_regression_at_its_index_and_nothing_else(sap_frame):
    # metadata/dataset_details.csv: regression 0002 at 54, 0011 at 98, 0012 at 88, 0013 at 117, 0016 at 155
    # ("the last Index before the regression"; Index starts at 1, so it is the 0-based index of the first
    # regressed measurement); the 20 other series are Stable, Spike, High deviation or Build-dependent
    result = history(sap_frame, commit="build")
    found = dict(zip(result.change_points["benchmark"], result.change_points["index"], strict=True))
    assert found == {"0002": 54, "0011": 98, "0012": 88, "0013": 117, "0016": 155}
    assert set(result.change_points["verdict"]) == {"slower"}
    # the first regressed measurement is the first of its build: the change is the build's
    assert (result.change_points["change"] == "level").all()


@pytest.fixture(scope="module")
def sap_frame():
    from perfstudy.io.datasets import load

    return pd.concat([load(f"sap-hana-{i:04d}") for i in range(25)], ignore_index=True)


@pytest.mark.slow  # over 3 s on 2 cores
@pytest.mark.parametrize("noise", ["normal", "t3", "bimodal"])
def test_no_change_gives_a_false_change_point_in_at_most_the_promised_share_of_runs(noise):
    # 40 runs of 25 series x 300 commits with no change. BH at fdr = 0.05 under the global null: P(any false
    # change point in a run) <= 0.05. Runs with one: Binomial(40, 0.05) has mean 2 and P(X >= 7) = 0.0003.
    rng = np.random.default_rng(7)
    runs_with_false = 0
    for _ in range(40):
        shape = (25, 300)
        e = {"normal": rng.standard_normal(shape), "t3": rng.standard_t(3, shape)}.get(noise)
        if e is None:  # contention: one run in ten 30% slower
            e = rng.standard_normal(shape) + np.log(1.3) / 0.02 * (rng.random(shape) < 0.1)
        frame = pd.DataFrame(
            {"benchmark": np.repeat(np.arange(25), 300), "commit": np.tile(np.arange(300), 25),
             "value": np.exp(0.02 * e).ravel()}
        )  # fmt: skip
        runs_with_false += len(history(frame).change_points) > 0
    assert runs_with_false <= 6


def test_a_three_sigma_step_is_found_at_its_commit():
    rng = np.random.default_rng(11)
    hits = exact = 0
    for i in range(30):
        y = rng.standard_normal(200) * 0.02
        y[120:] += 3 * 0.02
        cp = history(series(np.exp(y), f"s{i}")).change_points
        hits += len(cp) == 1 and abs(int(cp["index"].iloc[0]) - 120) <= 2
        exact += len(cp) == 1 and int(cp["index"].iloc[0]) == 120
    # z of a 3-sigma step with 15 commits a side: AUC Phi(3 / sqrt 2) = 0.983, z about 5.3 against a
    # Bonferroni bound of 4.3 for 597 tests: found nearly always; the argmax sits on the step in most runs
    assert hits >= 28 and exact >= 20


def test_spikes_are_not_change_points():
    rng = np.random.default_rng(12)
    y = rng.standard_normal(300) * 0.02
    y[[50, 51, 140, 250]] += 0.5  # 25-sigma spikes, one a pair
    assert history(series(np.exp(y))).change_points.empty


def test_verdicts_follow_the_unit_and_the_spread():
    rng = np.random.default_rng(13)
    y = rng.standard_normal(200) * 0.02
    y[100:] += 0.2
    assert history(series(np.exp(y), unit="ns/op")).change_points["verdict"].tolist() == ["slower"]
    assert history(series(np.exp(y), unit="ops/s")).change_points["verdict"].tolist() == ["faster"]
    z = rng.standard_normal(300) * 0.01
    z[150:] *= 5
    cp = history(series(np.exp(z))).change_points
    assert cp["verdict"].tolist() == ["noisier"] and abs(int(cp["index"].iloc[0]) - 150) <= 3
    assert cp["spread_low"].iloc[0] > 1.5


def test_level_interval_covers_the_planted_change():
    rng = np.random.default_rng(14)
    y = rng.standard_normal(160) * 0.02
    y[80:] += np.log(1.1)
    row = history(series(np.exp(y))).change_points.iloc[0]
    assert row["level_low"] < 0.1 < row["level_high"] and row["level_high"] - row["level_low"] < 0.03


def test_a_commits_measurements_are_one_cluster():
    # 60 commits of 5 measurements; a build effect of 3% SD per commit and no change: the 300 measurements as
    # independent points would show "changes"; as clusters they do not.
    rng = np.random.default_rng(15)
    effect = np.repeat(rng.standard_normal(60) * 0.03, 5)
    frame = pd.DataFrame(
        {"commit": np.repeat(np.arange(60), 5), "value": np.exp(effect + rng.standard_normal(300) * 0.005)}
    )
    result = history(frame, benchmark=None)
    assert result.change_points.empty and result.series["commits"].iloc[0] == 60


def test_newest_commits_and_the_judged_limit():
    rng = np.random.default_rng(16)
    y = rng.standard_normal(100) * 0.01
    y[92:] += 0.2
    result = history(series(np.exp(y)))
    assert result.newest(8)["commit"].tolist() == [92]
    assert result.newest(5).empty
    # 100 commits, widths 15/40/99: the Bonferroni bound is Phi^-1(1 - 0.05 / (2 * 297)) = 3.762; n commits a side
    # all ordered give |z| = sqrt(3 n^2 / (2n + 1)): 3.576 at 9, 3.780 at 10
    assert result.series["commits_needed"].iloc[0] == 10
    # the change above was found with 8 commits after it: the left window takes every commit before (up to 99), and
    # 6 after with 94 before give |z| = sqrt(3 * 94 * 6 / 101) = 4.093, 5 after with 95 before sqrt(3 * 95 * 5 / 101)
    # = 3.756 < 3.762: 6 are needed, the newest 5 cannot be judged (the summary said 10 a side, the table showed 8)
    assert result.series["commits_after_needed"].iloc[0] == 6
    assert result.series["judged_from"].iloc[0] == 95
    assert "or as few as 6 after it when the commits before it are many, so the newest 5" in result.format("table")


def test_a_series_too_short_for_any_change_says_so(capsys, tmp_path):
    from perfstudy.cli import main

    y = np.r_[np.ones(5), np.full(5, 3.0)] * np.exp(np.random.default_rng(1).standard_normal(10) * 0.01)
    result = history(series(y))
    assert result.change_points.empty and result.series["commits_needed"].iloc[0] == 6
    text = result.format("table")
    assert "1 benchmark(s) are too short for any change to be found (b)" in text
    path = tmp_path / "short.csv"
    series(y).to_csv(path, index=False)
    assert main(["history", str(path), "--fail-on-regression"]) == 0
    assert "1 benchmark(s) are too short for any change to be found" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fdr": 1.5}, "fdr"),
        ({"widths": (3,)}, "widths"),
        ({"min_ratio": 0.5}, "min_ratio"),
        ({"threshold": "x"}, "threshold"),
        ({"commit": "nope"}, "nope"),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        history(series(np.ones(20)), **kwargs)


def test_nan_values_are_refused_naming_dropna():
    with pytest.raises(ValueError, match=r"1 measurement\(s\) without a value .* dropna=True"):
        history(series([1.0, np.nan, 1.0]))
    with pytest.raises(ValueError, match="infinite"):
        history(series([1.0, np.inf, 1.0]), dropna=True)


def test_an_executor_gives_the_same_change_points():
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(17)
    frames = []
    for i in range(150):  # three chunks of CHUNK_SERIES
        y = rng.standard_normal(80) * 0.01
        y[40:] += 0.1 * (i % 3 == 0)
        frames.append(series(np.exp(y), f"b{i:03d}"))
    frame = pd.concat(frames, ignore_index=True)
    here = history(frame)
    with ThreadPoolExecutor(2) as pool:
        there = history(frame, executor=pool)
    pd.testing.assert_frame_equal(here.change_points, there.change_points)
    cp = here.change_points
    planted = {f"b{i:03d}" for i in range(0, 150, 3)}
    assert set(cp.loc[cp["index"] == 40, "benchmark"]) >= planted
    # BH at 5% over 150 benchmarks with 50 changed: about 2.5 false discoveries expected among ~52
    assert len(cp) - len(planted) <= 6


@pytest.mark.slow  # 400 histories
@pytest.mark.parametrize(("noise", "change"), [(0.04, 0.10), (0.01, 0.025)])
def test_the_commits_a_change_needs_find_it_four_times_in_five(noise, change):
    # commits_for_change says about how many commits on each side find a change with power 0.8; 200 simulated
    # histories of that length, the step in the middle: found (within 2 commits) in at least 0.8 - 3 MC SE
    # (sqrt(.8 .2 / 200) = 0.028) of them; with half as many commits, fewer than 0.8 (4 fewer gave 0.62-0.76
    # when written).
    from perfstudy.changes import commits_for_change

    def power(n, seed):
        rng = np.random.default_rng(seed)
        hits = 0
        for _ in range(200):
            level = np.where(np.arange(2 * n) >= n, 1 + change, 1.0)
            frame = pd.DataFrame({"commit": np.arange(2 * n), "value": level * np.exp(rng.normal(0, noise, 2 * n))})
            cp = history(frame, benchmark=None, threshold=change / 2).change_points
            hits += bool((np.abs(cp["commit_index"] - n) <= 2).any())
        return hits / 200

    # the simulation's noise is an SD of logs; commits_for_change takes it relative, as a history's series say it
    n = int(commits_for_change(change, math.expm1(noise), 40, min_side=3))
    assert power(n, 1) >= 0.8 - 3 * math.sqrt(0.8 * 0.2 / 200)
    assert power(n // 2, 2) < 0.8


def test_the_commits_a_change_needs_grow_as_it_nears_the_noise_and_are_none_under_the_size_rule():
    from perfstudy.changes import commits_for_change

    needs = [commits_for_change(change, 0.03, 40) for change in (0.30, 0.12, 0.08, 0.065)]
    assert needs == sorted(needs) and needs[0] >= 5 and needs[-1] > needs[0]  # min_side (5) at least
    assert commits_for_change(0.05, 0.03, 40) == math.inf  # 1.6 noise SDs: under min_sigmas = 2
    assert commits_for_change(0.10, 0.03, 40) == commits_for_change(1 / 1.1 - 1, 0.03, 40)  # a change and its undoing
    with pytest.raises(ValueError, match="noise=-0.01: expected"):
        commits_for_change(0.1, -0.01, 40)
    with pytest.raises(ValueError, match="change=-1.5: expected a relative change above -1"):
        commits_for_change(-1.5, 0.03, 40)


def test_a_change_under_the_size_rule_is_said_to_need_more_than_commits():
    # 4% noise between commits and a 5% threshold: a 5% change is 1.25 noise SDs, under min_sigmas = 2, so the
    # summary says no number of commits will report it (why a 24-commit history of a real repository never found its -5%)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"commit": np.arange(200), "value": np.exp(rng.normal(0, 0.04, 200))})
    found = history(frame, benchmark=None, threshold=0.05)
    assert math.isinf(found.series["commits_for_threshold"].iat[0])
    assert "a change of 5% is too small to be reported at any number of commits" in found.format()
    quiet = pd.DataFrame({"commit": np.arange(200), "value": np.exp(rng.normal(0, 0.01, 200))})
    said = history(quiet, benchmark=None, threshold=0.05).format()
    assert re.search(
        r"a change of 5% needs about \d+ commits on each side to be found at least four times in five", said
    )


def test_a_unit_column_that_is_not_there_is_refused_not_ignored():
    """history(frame, unit='nope') ignored the missing column: values in s and ms read as a x1000 change point."""
    frame = pd.DataFrame(
        dict(
            benchmark="b",
            commit=[f"c{i:02d}" for i in range(40)],
            value=[1.0] * 20 + [1000.0] * 20,
            u=["s"] * 20 + ["ms"] * 20,
        )
    )
    with pytest.raises(
        ValueError, match=r"data: unit='nope': no such column \(it has \['benchmark', 'commit', 'value', 'u'\]\)"
    ):
        history(frame, unit="nope")
    assert history(frame, unit="u").change_points.empty  # read by its units, 1 s and 1000 ms are one level


def test_a_negative_time_is_refused_through_the_command_line(tmp_path, capsys):
    """A negative time in a tidy history was judged (0 change points, exit 0), where every reader refuses one."""
    from perfstudy.cli import main

    values = [1.0 + 0.01 * ((7 * i) % 5) for i in range(60)]
    values[25] = -1.0
    frame = pd.DataFrame(dict(commit=[f"c{i // 5:02d}" for i in range(60)], benchmark="x", value=values, unit="s"))
    frame.to_csv(tmp_path / "h.csv", index=False)
    assert main(["history", str(tmp_path / "h.csv")]) == 2
    assert "1 negative value(s) in units that cannot be negative (first: x at c05, -1 s)" in capsys.readouterr().err
    frame.assign(unit="score").to_csv(tmp_path / "signed.csv", index=False)  # a unit that may be negative
    assert main(["history", str(tmp_path / "signed.csv")]) == 0


def test_a_stretch_beside_a_change_too_short_for_another_is_named():
    """The C project's +6% at c7 and -4% at c14 of 20 commits: the second, 25 noise SDs, was missed, and the summary
    said only that the newest 4 commits could not be judged, so c14 read as judged. With twice the commits after
    the first change, both are found."""

    def frame(commits: int, second: int) -> pd.DataFrame:
        rng = np.random.default_rng(1)
        level = [(1.06 if c >= 7 else 1.0) * (0.96 if c >= second else 1.0) for c in range(commits)]
        return pd.DataFrame(
            [
                dict(commit=f"c{c:02d}", benchmark="prog", value=level[c] * (1 + rng.normal(0, 0.0016)))
                for c in range(commits)
                for _ in range(5)
            ]
        )

    short = history(frame(20, 14))
    assert short.change_points["commit"].tolist() == ["c07"]  # the second is too close to the end to be found
    need = int(short.series["commits_needed"].iloc[0])
    assert 13 < 2 * need  # the 13 commits from c07 hold fewer than that on each side of any boundary
    said = short.format()
    assert "too few commits for another change in them to be found: prog's commits c00 to c06 (7); prog's commits " \
        "c07 to c19 (13). Another change there goes unseen" in said  # fmt: skip
    assert history(frame(40, 24)).change_points["commit"].tolist() == ["c07", "c24"]


def test_the_gate_says_the_newest_commits_after_a_change_cannot_be_judged(tmp_path, capsys):
    from perfstudy.cli import main

    rng = np.random.default_rng(1)
    level = [(1.06 if c >= 7 else 1.0) * (0.96 if c >= 14 else 1.0) for c in range(20)]
    rows = [dict(commit=f"c{c:02d}", value=level[c] * (1 + rng.normal(0, 0.0016))) for c in range(20) for _ in range(5)]
    pd.DataFrame(rows).to_csv(tmp_path / "h.csv", index=False)
    assert main(["history", str(tmp_path / "h.csv"), "--fail-on-regression"]) == 0
    err = capsys.readouterr().err
    assert "after a change point, too few commits for another to be found: series's newest 13 (from c07)" in err


def test_the_summarys_noise_never_pools_wall_time_with_cpu_time():
    """The summary took one median noise over wall and CPU series and called 1% too small at any number of commits,
    while the JSON gave the CPU series 8 commits."""
    rng = np.random.default_rng(2)
    rows = [
        dict(commit=f"c{c:02d}", benchmark=name, value=1 + rng.normal(0, sd), unit="s")
        for c in range(30)
        for _ in range(5)
        for name, sd in (("prog", 0.03), ("prog:cpu", 0.002), ("other", 0.03))
    ]
    result = history(pd.DataFrame(rows))
    need = result.series.set_index("benchmark")["commits_for_threshold"]
    assert math.isinf(need["prog"]) and math.isfinite(need["prog:cpu"])
    said = result.format()
    assert "At these benchmarks' wall-clock noise between commits (" in said
    assert "a change of 1% is too small to be reported at any number of commits" in said
    assert "At this benchmark's CPU noise between commits (" in said
    assert f"a change of 1% needs about {need['prog:cpu']:.0f} commits on each side" in said
