"""Running an experiment: :func:`run` measures A and B in randomised interleaved rounds and stops when the
answer is known, by the checked :class:`RunSettings`; :func:`bisect` runs such runs from a good commit to a bad
one to find the commit that changed it; one version's batch (``batches``), the machine's record (``environment``), planning
hosts and rounds from a pilot (``plan``), and reading a run's file back (:func:`read_experiment`).
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.experiment._files import RunFile, is_run_file, read_experiment, read_run
    from perfstudy.experiment._run import STOPS, RunResult, run
    from perfstudy.experiment.batches import (
        MEASURES,
        Batch,
        BatchResult,
        shell_startup,
        stop_running,
        time_batch,
    )
    from perfstudy.experiment.bisect_settings import BisectSettings
    from perfstudy.experiment.bisection import Bisection, bisect
    from perfstudy.experiment.commands import SHELL, command_argv, command_text
    from perfstudy.experiment.environment import NoisyMachineWarning, load_average, machine, machine_warnings, probe
    from perfstudy.experiment.plan import HOSTS, RoundPlan, format_plan, plan_rounds
    from perfstudy.experiment.settings import RunSettings

_HOMES = {
    "run": "._run",
    "RunResult": "._run",
    "bisect": ".bisection",
    "BisectSettings": ".bisect_settings",
    "Bisection": ".bisection",
    "RunFile": "._files",
    "RunSettings": ".settings",
    "STOPS": "._run",
    "read_experiment": "._files",
    "read_run": "._files",
    "is_run_file": "._files",
    "RoundPlan": ".plan",
    "plan_rounds": ".plan",
    "format_plan": ".plan",
    "HOSTS": ".plan",
    "Batch": ".batches",
    "BatchResult": ".batches",
    "command_argv": ".commands",
    "command_text": ".commands",
    "time_batch": ".batches",
    "shell_startup": ".batches",
    "stop_running": ".batches",
    "MEASURES": ".batches",
    "SHELL": ".commands",
    "machine": ".environment",
    "machine_warnings": ".environment",
    "probe": ".environment",
    "load_average": ".environment",
    "NoisyMachineWarning": ".environment",
}
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
__all__ = [
    "run",
    "RunResult",
    "bisect",
    "BisectSettings",
    "Bisection",
    "RunFile",
    "RunSettings",
    "STOPS",
    "read_experiment",
    "read_run",
    "is_run_file",
    "RoundPlan",
    "plan_rounds",
    "format_plan",
    "HOSTS",
    "Batch",
    "BatchResult",
    "command_argv",
    "command_text",
    "time_batch",
    "shell_startup",
    "stop_running",
    "MEASURES",
    "SHELL",
    "machine",
    "machine_warnings",
    "probe",
    "load_average",
    "NoisyMachineWarning",
]
