"""The public series the studies read, as their definitions say."""

from __future__ import annotations

from support.studies import (
    needs_data,
)

from perfstudy.studies.public_data import SERIES, iter_series


@needs_data
def test_public_data_series_definitions():
    assert SERIES["azure-vm-noise"] == (["benchmark", "host"], "timestamp")
    series = list(iter_series(["azure-redis-get-short"]))
    assert len(series) == 1 and series[0].key == {"benchmark": "redis-get-short"}  # the fleet, in time order


@needs_data
def test_the_family_table_says_what_a_series_is_in_each_family():
    from perfstudy.io.datasets import list_datasets
    from perfstudy.studies.public_data import family_table

    table = family_table()
    catalogue = list_datasets()
    assert table.datasets.sum() == len(catalogue) and table.rows.sum() == catalogue.rows.sum()
    assert table.loc["azure-vm-noise", "series"] == "benchmark, host"
    assert table.loc["azure-vm-noise", "time order"] == "timestamp" and table.loc["cwb", "time order"] == "none"
    assert (table.loc[~table.index.isin(list(SERIES)), "series"] == "-").all()  # metadata families: no series
