"""perfstudy.studies.running (its name shared with perfstudy.comparison.running, whose mirror is test_running.py).
Its calibrations of the stopping rules are tested beside the rules, in tests/comparison/test_sequential.py and
test_sign_sequence.py; its figures in test_running_figures.py.

Notebook 09's real trial on a loaded machine: a run that stops before the rule's first possible verdict is
recorded as having no interval yet, and the notebook's record takes it (an infinity stopped the notebook)."""

import math

from perfstudy.notebook.records import Recorder
from perfstudy.studies import running


def test_a_trial_run_without_an_interval_yet_is_recorded_as_such(tmp_path):
    trial = running.toggled_trial(1000, changes=(0.0,), seconds=0.05, threshold=0.01, busy=1, seed=3)
    table = trial.table
    assert len(table) >= 2
    for row in table.itertuples(index=False):
        assert row.bounded == (math.isfinite(row.low) and math.isfinite(row.high))
        assert not math.isinf(row.low) and not math.isinf(row.high)
    assert not table["bounded"].all()  # 0.05 s: no run reaches the sign rule's first possible verdict
    record = Recorder("trial", tmp_path)
    record("trial", table)
    assert any(row["low"] is None for row in record.values["trial"])


def test_the_toggled_load_ends_when_the_process_that_asked_for_it_is_killed():
    """A trial killed by SIGKILL (or SIGTERM without a handler) runs no ``finally``: its load, set for hours,
    went on switching busy processes on and off. It now ends within a period of its parent's death."""
    import os
    import signal
    import subprocess
    import sys
    import time

    owner = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\nfrom perfstudy.studies.running import toggled_load\n"
         "with toggled_load(3600, busy=1, low=0.2, high=0.4) as launcher:\n"
         "    print(launcher.pid, flush=True)\n    time.sleep(3600)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    controller = int(owner.stdout.readline())
    os.kill(owner.pid, signal.SIGKILL)
    owner.wait()
    deadline = time.monotonic() + 30  # a period is at most 0.4 s; 30 s allows for a loaded machine
    while time.monotonic() < deadline:
        try:  # the orphan's new parent may not reap it at once (a container's init): a zombie has ended
            state = open(f"/proc/{controller}/stat").read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            break
        if state == "Z":
            break
        time.sleep(0.1)
    else:
        os.kill(controller, signal.SIGKILL)
        raise AssertionError("the load went on after its owner was killed")
