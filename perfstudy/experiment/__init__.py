"""Running an experiment: :func:`run` measures A and B in randomised interleaved rounds and stops when the
answer is known, by the checked :class:`RunSettings`; :func:`bisect` runs such runs from a good commit to a bad
one to find the commit that changed it; one version's batch (``batches``), the machine's record (``environment``), planning
hosts and rounds from a pilot (``plan``), and reading a run's file back (:func:`read_experiment`).
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.experiment._files import (
        RunFile as RunFile,
        is_run_file as is_run_file,
        read_experiment as read_experiment,
        read_run as read_run,
    )
    from perfstudy.experiment._run import STOPS as STOPS, RunResult as RunResult, run as run
    from perfstudy.experiment.batches import (
        MEASURES as MEASURES,
        Batch as Batch,
        BatchResult as BatchResult,
        shell_startup as shell_startup,
        stop_running as stop_running,
        time_batch as time_batch,
    )
    from perfstudy.experiment.bisect_settings import BisectSettings as BisectSettings
    from perfstudy.experiment.bisection import Bisection as Bisection, bisect as bisect
    from perfstudy.experiment.commands import SHELL as SHELL, command_argv as command_argv, command_text as command_text
    from perfstudy.experiment.environment import (
        NoisyMachineWarning as NoisyMachineWarning,
        load_average as load_average,
        machine as machine,
        machine_warnings as machine_warnings,
        probe as probe,
    )
    from perfstudy.experiment.plan import (
        HOSTS as HOSTS,
        RoundPlan as RoundPlan,
        format_plan as format_plan,
        plan_rounds as plan_rounds,
    )
    from perfstudy.experiment.settings import RunSettings as RunSettings

__getattr__, __dir__, __all__ = lazy_exports(__name__)
