"""The records a notebook keeps: values written and read back, sentences written from the values they quote and refused where they could quote another, and the warnings of a run."""

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pandas as pd
import pytest

from perfstudy.notebook.records import Recorder, load_records


def test_recorder_round_trip(tmp_path):
    record = Recorder("nb", tmp_path)
    assert record("x", np.float64(1.5)) == 1.5
    record("frame", pd.DataFrame({"a": [1, 2], "b": [np.nan, 0.5]}))
    record("array", np.arange(3))
    record("flag", np.bool_(True))
    values = load_records(tmp_path / "nb.json")
    assert values == {"x": 1.5, "frame": [{"a": 1, "b": None}, {"a": 2, "b": 0.5}], "array": [0, 1, 2], "flag": True}
    with pytest.raises(TypeError, match="cannot record"):
        record("bad", object())
    with pytest.raises(ValueError, match="name"):
        Recorder("a/b", tmp_path)


def test_a_sentence_is_written_from_values_and_recorded_with_them(tmp_path):
    record = Recorder("nb", tmp_path)
    shown = record.say(
        "rows", "{within} of {rows} rows ({share:.0%}) {verb}", within=9, rows=13, share=9 / 13, verb="agree"
    )
    assert shown.data == "9 of 13 rows (69%) agree"
    said = load_records(tmp_path / "nb.json")["said"]["rows"]
    assert said == {
        "text": "9 of 13 rows (69%) agree",
        "values": {"within": 9, "rows": 13, "share": 9 / 13, "verb": "agree"},
    }
    record.say("other", "{x:.2f}", x=np.float64(0.125))  # a numpy number is a number; earlier sentences stay
    assert set(load_records(tmp_path / "nb.json")["said"]) == {"rows", "other"}


@pytest.mark.parametrize(
    "template, values, error, match",
    [
        ("{} rows", {"x": 1}, ValueError, "named"),
        ("{0} rows", {"x": 1}, ValueError, "named"),
        ("{rows} rows", {}, ValueError, r"names \['rows'\] not given"),
        ("rows", {"rows": 3}, ValueError, r"given \['rows'\] it never uses"),
        ("{rows}", {"rows": [1, 2]}, TypeError, "say numbers, words or booleans"),
        ("{rows}", {"rows": float("nan")}, ValueError, "not a number a sentence can state"),
        ("", {}, TypeError, "non-empty"),
    ],
)
def test_a_sentence_that_could_quote_a_number_not_in_its_values_is_refused(tmp_path, template, values, error, match):
    record = Recorder("nb", tmp_path)
    with pytest.raises(error, match=match):
        record.say("k", template, **values)
    assert "said" not in load_records(tmp_path / "nb.json")


def test_span_prints_one_number_where_both_ends_print_alike():
    from perfstudy._lib.format import span

    assert span(0.33, 0.334) == "33%" and span(0.0, 2 / 3) == "0%-67%" and span(0.02, 0.12, ".2f") == "0.02-0.12"


def test_recorder_warnings_records_user_warnings_and_passes_the_rest(tmp_path):
    import warnings

    from perfstudy.experiment.environment import NoisyMachineWarning
    from perfstudy.notebook.records import Recorder

    record = Recorder("w", tmp_path)
    with warnings.catch_warnings(record=True) as outside:
        warnings.simplefilter("always")
        with record.warnings("run"):
            warnings.warn("load average 2.31 on 2 CPUs", NoisyMachineWarning, stacklevel=1)
            warnings.warn("old name", DeprecationWarning, stacklevel=1)
    assert record.values["run"] == ["load average 2.31 on 2 CPUs"]
    # outside a notebook kernel nothing is shown, so every warning goes on as usual
    assert [w.category for w in outside] == [NoisyMachineWarning, DeprecationWarning]
    with record.warnings("quiet"):
        pass
    assert record.values["quiet"] == []
    with pytest.raises(TypeError, match="key=3"):
        record.warnings(3)
