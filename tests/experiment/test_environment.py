"""The machine's record a run keeps, and the warnings it gives for a loaded or frequency-scaled machine."""


def test_machine_record_and_its_warnings():
    from perfstudy.experiment.environment import machine, machine_warnings

    record = machine()
    assert {"cpu_model", "cpu_count", "cpu_governor", "load_average", "os", "python"} <= set(record)
    quiet = dict(record, load_average=0.0, cpu_governor="performance")
    assert machine_warnings(quiet) == []
    loaded = machine_warnings(dict(quiet, load_average=2.0 * (record["cpu_count"] or 1)))
    assert len(loaded) == 1 and "loaded" in loaded[0]
    scaling = machine_warnings(dict(quiet, cpu_governor="powersave"))
    assert len(scaling) == 1 and "powersave" in scaling[0]
