"""Table 4's differing interval lengths, re-searched: checked against the configurations' own probabilities."""

import pandas as pd
import pytest
from support.studies import needs_data

from perfstudy.studies import he2019
from perfstudy.studies.he2019_table4 import TABLE_4_LEADS, table4_diagnosis

pytestmark = needs_data


def _rows(*names):
    reduced = he2019.reduction_study(list(names))
    return he2019.table4_comparison(reduced, reduced)


def test_a_difference_is_judged_by_the_probability_that_decided_it():
    # FT on Chameleon-M stops at 24 h, the paper at 72 h; EP on AWS-2XL at 72 h against the paper's 12 h
    table4 = _rows("pt4cloud-Chameleon-FT-M", "pt4cloud-AWS-EP-2XL")
    assert table4.hours.tolist() == [24, 72] and table4.paper_hours.tolist() == [72, 12]
    found = table4_diagnosis(table4).set_index("dataset")
    for name, decisive in (("pt4cloud-Chameleon-FT-M", 24), ("pt4cloud-AWS-EP-2XL", 12)):
        # short_interval_check cuts the same two intervals and the two after them on its own
        direct = he2019.short_interval_check(name, decisive)
        row = found.loc[name]
        assert row.decisive_hours == decisive
        assert row.probability == pytest.approx(direct["probability"], abs=1e-12)
        assert row.validation_probability == pytest.approx(direct["validation_probability"], abs=1e-12)
        assert row.margin == pytest.approx(min(direct["probability"], direct["validation_probability"]) - 0.9)
    # ours shorter: FT's 24 h passed both checks; ours longer: EP's 12 h failed validation (0.773 < 0.9)
    assert found.loc["pt4cloud-Chameleon-FT-M", "direction"] == "shorter"
    assert found.loc["pt4cloud-Chameleon-FT-M", "margin"] >= 0
    assert found.loc["pt4cloud-AWS-EP-2XL", "margin"] < 0
    # a lead is named only where its own search stops at the paper's length
    for _, row in found.iterrows():
        named = [lead for lead, *_ in TABLE_4_LEADS[1:] if row[f"hours_{lead.replace(' ', '_')}"] == row.paper_hours]
        assert row.reached_by == "; ".join(named) and row.reached == bool(named)
    assert "bandwidth x 2" in found.loc["pt4cloud-AWS-EP-2XL", "reached_by"]


def test_a_table4_searched_otherwise_is_refused():
    table4 = _rows("pt4cloud-AWS-EP-2XL")
    with pytest.raises(ValueError, match=r"pt4cloud-AWS-EP-2XL was searched to 72 h, but this ladder stops at"):
        table4_diagnosis(table4, validate_below_hours=1.0)
    agreeing = pd.DataFrame(table4.assign(agrees=True))
    assert table4_diagnosis(agreeing).empty
