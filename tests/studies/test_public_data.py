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
