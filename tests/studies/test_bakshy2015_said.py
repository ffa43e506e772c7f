"""What notebook 02 says of Table 3, its readings, the host-block row, the trusted bootstrap and the real series:
each sentence checked against the table it is read from, or against a hand-made result whose answer is known."""

import pandas as pd
import pytest

from perfstudy import PERFLAB_ENDPOINTS
from perfstudy.studies import bakshy2015, bakshy2015_said as said, table3_readings
from perfstudy.studies.montecarlo import type1_limit

E1 = PERFLAB_ENDPOINTS[1]


@pytest.fixture(scope="module")
def small():
    """Table 3 of 100 A/A tests a row (about 2 s), its digits, pairs and both readings."""
    table3 = bakshy2015.table3(E1, experiments=100, replicates=50, rng=1)
    pairs = table3_readings.same_law_pairs(table3, E1, experiments=100)
    readings = {n: table3_readings.reading_summary(table3, pairs, tests=n) for n in table3_readings.READINGS}
    return table3, table3_readings.digit_evidence(table3.paper_type1_error), pairs, readings


def test_the_table3_sentence_counts_what_the_reader_sees_in_the_table(small):
    table3, digits, pairs, readings = small
    text = said.table3_said(table3, digits, pairs, readings, experiments=100).text
    shown = said.readings_view(table3).data  # the strings a reader sees
    for n, column in ((10_000, "MC errors, 10,000"), (500, "MC errors, 500")):
        within = sum(float(x) <= 3 for x in shown[column])  # rounded to 0.1: no row of this seed sits on 3.0
        assert f"**Read as {n:,} tests a row.** {within} of 13 rows lie within" in text
    assert text.startswith(
        f"* **Against the paper.** For {sum(float(x) <= 3 for x in shown['MC errors, 10,000'])} of 13"
    )
    # the paper's own digits: 12 of 13 are k/500, the exception the host-block row (a property of the paper)
    assert "12 of 13 printed rates are whole multiples of 1/500" in text
    assert "; not request balanced / host block." in text
    # every row a reading names as farther is named with its distance as the view prints it
    for name in readings[500]["missed"]:
        (row,) = shown[shown["design / bootstrap"] == name].itertuples()
        assert f"{name} at {row[-1]}" in text
    favoured = said.favoured_reading(digits, pairs)
    verdict = text.rsplit("* **", 1)[1]
    assert verdict.startswith(
        {500: "The digits and both pairs favour 500", 10_000: "Neither the digits", None: "The digits and the pairs"}[
            favoured
        ]
    )


def _pairs(gaps_stated, gaps_figure7):
    return pd.DataFrame(
        {
            "design": ["unbalanced", "host_balanced"] * 2,
            "paper_tests": [10_000, 10_000, 500, 500],
            "gap_probability": [*gaps_stated, *gaps_figure7],
        }
    )


@pytest.mark.parametrize(
    ("digits", "stated", "figure7", "favoured"),
    [
        ((1e-4, 1.0), (1e-3, 1e-3), (0.4, 0.3), 500),  # every check rare under 10,000 and not under 500
        ((0.3, 1.0), (0.2, 0.5), (0.4, 0.6), 10_000),  # no check is
        ((1e-4, 1.0), (0.2, 1e-3), (0.4, 0.3), None),  # one pair is not: the checks disagree
        ((1e-4, 0.01), (1e-3, 1e-3), (0.4, 0.3), None),  # the digits rare under both: not a check for 500
    ],
)
def test_a_reading_is_favoured_only_when_every_check_agrees(digits, stated, figure7, favoured):
    evidence = table3_readings.DigitEvidence(12, 13, {10_000: digits[0], 500: digits[1]}, pd.DataFrame())
    assert said.favoured_reading(evidence, _pairs(stated, figure7)) == favoured


def _leads(explains, explains_500):
    return pd.DataFrame(
        {
            "lead": ["as written", "t on C - 1 df", "blocks of two"],
            "type1_error": [0.021, 0.057, 0.064],
            "printed_se": [0.0791, 0.0802, 0.0841],
            "type1_distance_mc": [4.2, 0.1, 1.2],
            "type1_distance_mc_500": [2.0, 0.0, 0.6],
            "explains": explains,
            "explains_500": explains_500,
        }
    )


def test_the_host_block_sentence_names_the_readings_that_reach_the_row():
    def verdict(explains, explains_500):
        leads = _leads(explains, explains_500)
        return said.host_block_said(leads, paper_rate=0.057, paper_se=0.08, experiments=1_000).text

    one = verdict([False, True, False], [False, True, True])
    assert one.startswith("The paper prints 5.7% and .SE 0.08 for the request-balanced host-block row. Tested on 1,000")
    assert "t on C - 1 df: 5.7%, .SE 0.0802, 0.1 MC errors (0.0 read as 500 tests)" in one
    assert one.endswith(
        "printed .SE: *t on C - 1 df*. The row is consistent with that reading; the paper does not say it used it."
    )
    two = verdict([False, True, True], [False, True, True])
    assert two.endswith("*t on C - 1 df*, *blocks of two*. The row is consistent with each of them; the paper does not say which it used.")  # fmt: skip
    assert verdict([False] * 3, [False, False, True]).endswith("read as 500, *blocks of two* do.")
    assert verdict([False] * 3, [False] * 3).endswith("No tested reading reaches both the rate and the .SE.")


def _origin(normal, t, counts_shifted=(0.05, 0.05)):
    table = pd.DataFrame(
        {
            "design / bootstrap": ["unbalanced / host", "request balanced / host block"],
            "normal": normal,
            "t": t,
            "counts": [0.05, 0.06],
            "normal, shifted": normal,
            "t, shifted": t,
            "counts, shifted": list(counts_shifted),
        }
    )
    return bakshy2015.OriginCheck(table=table, se_moved=0.0, shift=1.0, experiments=2_000)


def test_trust_goes_to_t_quantiles_only_where_they_alone_keep_the_limit():
    limit = type1_limit(2_000)  # 6.5%
    text = said.trust_said(_origin([0.05, limit + 0.001], [0.05, limit], (0.2, 0.3))).text
    assert "(limit 6.5% = 5% + 3 MC errors)" in text and "counts goes to 20.0% to 30.0%" in text
    assert text.endswith("Trust the summed-weights bootstrap with t quantiles: here it alone keeps every design within the limit and does not depend on the origin of $y$.")  # fmt: skip
    assert "mean SEs move not at all" in text
    assert said.trust_said(_origin([0.05, 0.05], [0.05, 0.05])).text.endswith(
        "both keep every design within the limit."
    )
    assert said.trust_said(_origin([0.05, 0.09], [0.05, 0.08])).text.endswith("do not keep every design within the limit; see the table.")  # fmt: skip


def test_the_summary_counts_the_real_series_over_their_limit(small):
    table3, digits, pairs, readings = small
    real = pd.DataFrame(
        {
            "series": ["a", "b", "c"] * 2,
            "bootstrap": ["iid"] * 3 + ["segment"] * 3,
            "type1_error": [0.30, 0.06, 0.50, 0.04, 0.07, 0.05],
            "type1_error_t": [0.29, 0.05, 0.49, 0.03, 0.06, 0.04],
        }
    )
    text = said.summary_said(table3, readings, 500, real, experiments=100, aa_experiments=2_000).text
    # the real limit at 2,000 tests is 6.46%: iid's 30% and 50% are over it, segment's 7% is
    assert "(3 series, 2000 A/A tests each, limit 6.5%). The iid bootstrap exceeds the limit on 2 of 3 series" in text
    assert "(median rate 30.0%, up to 50.0%)" in text and "a median 5.0% (4.0% with t quantiles), above the limit on 1 series" in text  # fmt: skip
    assert "(Figure 7, the reading the digits and the pairs favour)" in text
    t3 = table3.set_index(["design", "bootstrap"])
    limit = type1_limit(100)
    held = [d for d, b in said.BOOTSTRAP_FOR_DESIGN.items() if t3.loc[(d, b)].type1_error <= limit]
    assert f"for: {', '.join(d.replace('_', ' ') for d in held) or 'none'}; not for" in text


def test_the_rescaled_rows_keep_each_rows_distance_before(small):
    table3, *_ = small
    rows_before = table3[table3.design == "request_balanced"]
    rows = said.rescaled_rows(rows_before, table3)  # the same table as "rescaled": before equals after
    assert list(rows.bootstrap) == ["request", "iid", "host", "host_block"]
    assert rows["before (MC errors)"].tolist() == rows["distance (MC errors)"].tolist()
    assert rows.columns[2:6].tolist() == ["normal", "t", "counts", "counts_t"]
    text = said.rescaled_said(rows, table3, implied=0.08, host_scale=1.5).text
    assert "implies a true SE of 0.0800" in text and "host SDs 1.50 times Table 1's" in text
    all_within = bool((rows["distance (MC errors)"] <= 3).all())
    assert text.endswith("though the paper does not say what it ran." if all_within else "does not explain them all.")
    assert f">{rows.paper.iloc[0]:.1%}<" in said.rescaled_view(rows).to_html()  # rates as percentages


def test_the_views_show_every_row_as_the_table_holds_it(small):
    table3, _, pairs, _ = small
    type1, se = said.table3_views(table3)
    assert len(type1.data) == len(se.data) == 13
    assert type1.data["normal"].tolist() == [f"{v:.1%}" for v in table3.type1_error]
    assert se.data["true SE"].tolist() == [f"{v:.4f}" for v in table3.true_se]
    assert "Type I error of 95% intervals" in type1.to_html()
    assert len(said.pairs_view(pairs).data) == len(pairs)


def test_the_figure6_sentence_reads_the_headline():
    head = dict(host_bootstrap_se=0.0301, request_bootstrap_se=0.0102, true_sd=0.0298)
    text = said.fig6_said(head, simulations=10_000).text
    assert text.startswith(
        "One experiment's host bootstrap gives an SE of 0.0301 and its request bootstrap 0.0102, against a true "
        "spread of 0.0298 over 10,000 simulations: the request bootstrap has 34% of it."
    )
