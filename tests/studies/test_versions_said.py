"""What notebook 08 shows and says: the Type I table and the summary against hand-made rates whose answers are
known."""

import itertools

import pandas as pd
import pytest

from perfstudy.studies import versions_said as said
from perfstudy.studies.montecarlo import type1_limit


def _results(sequential_rate=0.04, azure_power=(0.3, 0.6)):
    rows = []
    for (layout, k), (method, rate) in itertools.product(
        [("interleaved", 10), ("interleaved", 25), ("sequential", 10)],
        [("perfstudy", 0.04), ("iid bootstrap", 0.20), ("pyperf", 0.05)],
    ):
        rate = sequential_rate if layout == "sequential" and method == "perfstudy" else rate
        rows.append(dict(source="azure (days)", slowdown=0.0, method=method, pairs=100, rate=rate, clusters=k,
                         layout=layout))  # fmt: skip
    for method, power in zip(["perfstudy", "iid bootstrap"], azure_power):
        rows.append(dict(source="azure (days)", slowdown=0.02, method=method, pairs=100, rate=power, clusters=10,
                         layout="interleaved"))  # fmt: skip
    return pd.DataFrame(rows)


def test_the_type1_table_has_a_row_per_cell_and_a_column_per_method():
    table = said.type1_table(_results())
    assert list(table.columns) == ["iid bootstrap", "perfstudy", "pyperf"] and len(table) == 3
    assert table.loc[("sequential", 10, "azure (days)"), "perfstudy"] == 0.04
    with pytest.raises(ValueError, match="no A/A rows"):
        said.type1_table(_results().query("slowdown > 0"))


def test_the_summary_holds_each_rate_to_five_percent_plus_three_mc_errors():
    # 100 pairs: the limit is 5% + 3 sqrt(.0475 / 100) = 11.5%; the iid bootstrap's 20% is beyond it
    assert type1_limit(100) == pytest.approx(0.1154, abs=1e-4)
    text = said.summary_said(_results()).text
    assert text.startswith(
        "* **Interleaved A/A, perfstudy:** 2 of 2 source x batch-count cells within 5% + 3 MC SE (azure (days) 4.0% "
        "(100 pairs), with 10 batches a side). The iid bootstrap and pyperf's t-test: 2 of 4 within"
    )
    assert (
        "* **Power** at a 2% slowdown, 10 batches a side, Azure: perfstudy 30%, the iid methods 60%. Counting" in text
    )
    assert text.endswith("azure (days) 4.0% with 10 batches. No source drifted enough here to be called a change.")
    drifted = said.summary_said(_results(sequential_rate=0.30, azure_power=(0.6, 0.6))).text
    assert "Here the methods see it about equally often." in drifted
    assert drifted.endswith("the drift is read as a change: interleave A and B.")
    assert "within 5% + 2 MC SE" in said.summary_said(_results(), errors=2).text
