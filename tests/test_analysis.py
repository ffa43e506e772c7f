"""analyze(): the planted problems of a simulated run are found, each number against the function
that computes it alone, and the advice names them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from perfstudy.analysis import Analysis, analyze, demo_runs, warmup_iterations
from perfstudy.diagnostics.diagnosis import diagnose
from perfstudy.diagnostics.repetitions import median_ci, repetitions_needed


@pytest.fixture(scope="module")
def demo():
    a, b = demo_runs(rng=3)
    frame = pd.concat([a.assign(version=0), b.assign(version=1)], ignore_index=True)
    return frame, analyze(frame, permutations=99, replicates=999, rng=0)


def test_planted_problems_are_found_and_advised(demo):
    _, result = demo
    assert isinstance(result, Analysis)
    table = result.table.set_index(["version", "benchmark"])
    # regex: 4 warm-up iterations in every process, in both versions; nothing elsewhere
    assert table.warmup_iterations.to_dict() == {
        (v, b): 4 if b == "regex" else 0 for v in (0, 1) for b in ("json_dumps", "regex", "startup")
    }
    assert table.loc[(0, "startup"), "odd_batches"] == "7"
    assert (table.drop(index=[(0, "startup")]).odd_batches == "").all()
    verdicts = dict(zip(result.comparison.table.benchmark, result.comparison.table.verdict))
    assert verdicts["json_dumps"] == "slower" and verdicts["regex"] == "no change"
    advice = " ".join(result.advice)
    assert result.advice[0].startswith("json_dumps: B is slower than A by ")
    json_row = result.comparison.table.set_index("benchmark").loc["json_dumps"]
    assert json_row.low < 0.03 < json_row.high  # the planted 3%
    assert "Drop the first 4 iterations of every batch of regex (0), regex (1)." in advice
    assert "Batch 7 of startup (0) is unlike the others" in advice


def test_each_number_is_what_its_function_gives(demo):
    frame, result = demo
    row = result.table.iloc[1]  # version 0, regex
    series = frame[(frame.version == 0) & (frame.benchmark == "regex")]
    kept = series[series.iteration >= 4]
    assert row.n == len(series) and row.batches == 20
    interval = median_ci(kept.value.to_numpy(), confidence=0.95)
    assert (row["median"], row.median_low, row.median_high) == (interval.median, interval.low, interval.high)
    d = diagnose(kept.assign(position=np.arange(len(kept)), s=0), "s", order="position", permutations=99, rng=0).iloc[0]
    assert row["mean"] == pytest.approx(d["mean"]) and row.se_inflation == pytest.approx(d["se_inflation"])
    assert row.corrected_high - row.corrected_low == pytest.approx(2 * 1.959964 * d["corrected_se"], rel=1e-6)
    # CONFIRM on the 20 batch means (the batch is the independent unit)
    means = kept.groupby("batch").value.mean().to_numpy()
    needed = repetitions_needed(means, error=0.05, trials=100, rng=0)
    assert row.confirm_unit == "batch" and row.confirm_5pct == needed.estimate


def test_warmup_iterations_against_a_direct_reading():
    rng = np.random.default_rng(0)
    batch = np.repeat(np.arange(10), 40)
    iteration = np.tile(np.arange(40), 10)
    base = rng.lognormal(0, 0.01, batch.size)
    for k in (0, 1, 6):
        values = base * np.where(iteration < k, 1.1, 1.0)
        assert warmup_iterations(values, batch, iteration) == k
    # a warm-up that only some batches have is not called one for all of them
    partial = base * np.where((iteration < 3) & (batch < 2), 1.1, 1.0)
    assert warmup_iterations(partial, batch, iteration) == 0
    assert warmup_iterations(base[:6], batch[:6], iteration[:6]) == 0  # one batch: cannot tell


def test_timestamps_give_a_pt4cloud_reading():
    rng = np.random.default_rng(1)
    n = 400
    frame = pd.DataFrame(
        dict(value=rng.lognormal(0, 0.05, n), timestamp=pd.date_range("2026-01-01", periods=n, freq="h"))
    )
    row = analyze(frame, permutations=49, rng=0).table.iloc[0]
    assert row.pt4cloud_stable in (True, False) and 2 <= row.pt4cloud_quarters <= 4
    assert np.isnan(analyze(frame.drop(columns="timestamp"), permutations=49, rng=0).table.pt4cloud_quarters[0])


def test_one_version_has_no_comparison_and_bad_input_is_named():
    a, _ = demo_runs(processes=4, values=10, rng=0)
    result = analyze(a, permutations=49, rng=0)
    assert result.comparison is None and set(result.table.version) == {0}
    with pytest.raises(ValueError, match="no column 'value'"):
        analyze(a.drop(columns="value"))
    with pytest.raises(ValueError, match="missing value"):
        analyze(a.assign(value=np.where(a.index == 2, np.nan, a.value)))
    with pytest.raises(TypeError, match="DataFrame"):
        analyze(a.value.to_numpy())


def test_a_misspelt_cluster_is_refused_and_missing_batches_are_said():
    # once, cluster="run" (no such column) made every value its own cluster, and the advice then
    # reported a significant change that the clustered analysis did not find
    a, b = demo_runs(processes=6, values=10, rng=1)
    both = pd.concat([a.assign(version=0), b.assign(version=1)], ignore_index=True)
    with pytest.raises(ValueError, match="cluster='run': df has no such column"):
        analyze(both, cluster="run", permutations=49, rng=0)
    unnamed = analyze(both.drop(columns="batch"), permutations=49, replicates=199, rng=0)
    assert unnamed.advice[0].startswith("The data name no batches")
    named = analyze(both, permutations=49, replicates=199, rng=0)
    assert not any(line.startswith("The data name no batches") for line in named.advice)
    with pytest.raises(ValueError, match="1 row.* no benchmark label"):
        analyze(both.assign(benchmark=np.where(both.index == 5, None, "x")), permutations=49)


def test_the_card_says_each_finding_in_plain_words_and_units():
    a, b = demo_runs(processes=12, values=12, rng=1)
    frame = pd.concat([a.assign(version="A", unit="second"), b.assign(version="B", unit="second")])
    result = analyze(frame, permutations=49, replicates=199, rng=0)
    card = result.card("regex")
    assert list(card.columns) == ["A", "B"]
    row = result.table.set_index(["version", "benchmark"]).loc[("A", "regex")]
    # the mean in seconds with its SI prefix, digits as si() gives them
    from perfstudy._lib.format import with_unit

    assert card.loc["mean, 95% interval as if the values were independent", "A"].startswith(with_unit(row["mean"], "s"))
    assert card.loc["warm-up left at the start of each batch", "A"] == "the first 4 iterations: drop them"
    assert card.loc["values settle, no drift (ADF)", "A"] == ("yes" if row.adf_reject else "no")
    with pytest.raises(ValueError, match="benchmark='nope': not in the analysis"):
        result.card("nope")


def test_the_table_and_the_advice_agree_with_the_comparisons_warm_up_note():
    """Where the comparison's note says "warm-up ... drop them", the table counts those iterations and the
    advice says to drop them: never 0 in one place and "drop them" in another."""
    rng = np.random.default_rng(5)
    rows = []
    for version in (0, 1):
        for batch in range(30):
            values = rng.normal(1.0, 0.01, 20)
            values[:2] *= 1.04  # the first two of twenty: the comparison's first tenth
            rows += [
                dict(version=version, benchmark="b", batch=batch, iteration=i, value=v) for i, v in enumerate(values)
            ]
    result = analyze(pd.DataFrame(rows), permutations=49, replicates=199, rng=0)
    notes = " ".join(n for row in result.comparison.table.notes for n in row)
    assert "warm-up in A" in notes and "warm-up in B" in notes
    assert (result.table.warmup_iterations >= 2).all()
    assert any(sentence.startswith("Drop the first") for sentence in result.advice)


def test_few_batches_are_advised_as_batches_not_values():
    """With 6 batches of 8 values, CONFIRM cannot count batches: the advice says to run at least 10 batches,
    never "more than 48" repetitions (the values)."""
    a, _ = demo_runs(processes=6, values=8, rng=2)
    result = analyze(a, permutations=49, rng=0)
    advice = " ".join(result.advice)
    assert "Run at least 10 batches of" in advice and "with 6 there are too few" in advice
    assert "more than 48" not in advice
    assert (
        result.card("json_dumps")
        .loc["repetitions needed for the median (CONFIRM)"]
        .iloc[0]
        .startswith("too few batches (6)")
    )


def test_the_report_pluralises_the_cluster_by_its_name():
    """A card over hosts says hosts (it said "hostes"); batches and processes keep their -es."""
    from perfstudy._lib.format import plural

    assert [plural(w) for w in ("batch", "host", "process", "fork", "replica", "party", "day")] == [
        "batches", "hosts", "processes", "forks", "replicas", "parties", "days",
    ]  # fmt: skip
    a, b = demo_runs(processes=6, values=10, rng=1)
    frame = pd.concat([a.assign(version=0), b.assign(version=1)], ignore_index=True).rename(columns={"batch": "host"})
    result = analyze(frame, cluster="host", permutations=19, replicates=199, rng=0)
    card = result.card(result.table.benchmark.iloc[0])
    labels = " ".join(card.index.astype(str))
    assert "values (hosts)" in labels and "hostes" not in labels


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (dict(statistic="bogus"), r"^statistic='bogus': expected one of"),
        (dict(replicates=5), r"^replicates=5: expected an integer of at least 99"),
        (dict(sequential="sign"), r"^sequential='sign': a sequential interval is over blocks"),
    ],
)
def test_the_comparisons_settings_are_checked_though_one_version_has_nothing_to_compare(option, message):
    """With one version there is no comparison, and the comparison's settings went unread: statistic='bogus' was
    accepted silently. They are checked when the call starts, as compare() checks them."""
    a, _ = demo_runs(processes=4, values=5, rng=1)
    with pytest.raises(ValueError, match=message):
        analyze(a, permutations=19, **option)


def test_analyze_settings_are_checked_once_and_hold_the_comparisons():
    """The analysis's own settings and its comparison's, checked when built, in the user's spelling; keywords are a
    convenience that builds them, not beside settings; a keyword that is no setting is refused by name."""
    from perfstudy.analysis import AnalyzeSettings, analyze, demo_runs

    s = AnalyzeSettings(threshold="5%", confidence="90%", statistic="median")
    assert (s.threshold, s.confidence) == (0.05, 0.9)
    assert (s.comparing.threshold, s.comparing.confidence, s.comparing.statistic) == (0.05, 0.9, "median")
    assert (s.comparing.cluster, AnalyzeSettings().threshold) == ("batch", 0.02)
    with pytest.raises(ValueError, match="permutations"):
        AnalyzeSettings(permutations=5)
    with pytest.raises(ValueError, match=r"^--threshold 200%: "):  # perfstudy analyze's one option of these
        AnalyzeSettings(threshold="200%", spelling="cli")
    with pytest.raises(ValueError, match=r"^alpha=1.5: "):  # no option on the command line: its name
        AnalyzeSettings(alpha=1.5, spelling="cli")
    a, b = demo_runs(processes=3, values=4, rng=0)
    frame = pd.concat([a.assign(version="a"), b.assign(version="b")])
    with pytest.raises(TypeError, match="give the settings once"):
        analyze(frame, settings=s, threshold=0.1)
    with pytest.raises(TypeError, match="permutation: not one of AnalyzeSettings's settings"):
        analyze(frame, permutation=99)
