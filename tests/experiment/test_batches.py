"""One batch of a run: a command timed as its values, the warm-ups flagged, each value's start and end."""

from perfstudy.experiment.batches import Batch, time_batch


def test_run_batch_records_timing_columns():
    result = time_batch(Batch(version="A", command=("true",), round=0, position=0, values=2, warmup=1))
    assert result.status == 0 and len(result.rows) == 3
    assert [row["warmup"] for row in result.rows] == [True, False, False]
    assert all(row["end"] >= row["start"] for row in result.rows)


def test_the_runs_default_metric_is_the_harnesss_own():
    from perfstudy.experiment.batches import harness_metric

    assert harness_metric(("wall",)) is None and harness_metric(["wall"]) is None  # a record's list too
    assert harness_metric(("cpu_time",)) == "cpu_time"
