"""PT4Cloud on the authors' own 33 configurations (He et al., ESEC/FSE 2019, sections 5 and 6).

The Metior artifact's files hold, per configuration, a thinned "sampled 3 weeks" (the rows before
the split row) and about 5 weeks of continuous runs (the ground truth), with no timestamps. So a
*week* here is a third of the sampled rows, and an hour ``1/504`` of them: the runs are taken as
evenly spaced in time, which is how the artifact's loader treats them too.

Each study returns one row per configuration; every one accepts ``executor=`` (any
``concurrent.futures.Executor``) and ``rng=`` (one spawned stream per configuration).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from perfstudy import datasets
from perfstudy.baselines import sota1, sota2
from perfstudy.parallel import map_tasks
from perfstudy.pt4cloud import MIN_SAMPLES, accuracy, hourly_sample, pt4cloud, pt4cloud_short

__all__ = ["SAMPLED_WEEKS", "PAPER_WEEKS", "Configuration", "configuration", "configurations",
           "weekly_study", "reduction_study", "baseline_study"]

SAMPLED_WEEKS = 3
#: Table 3 of the paper: weeks needed at po = 90% (None: the benchmark was not run there).
#: Columns Chameleon S, M, L and AWS m5.large, m5.xlarge, m5.2xlarge, as printed.
PAPER_WEEKS = {
    ("FT", "Chameleon-S"): None, ("FT", "Chameleon-M"): 2, ("FT", "Chameleon-L"): 2,
    ("FT", "AWS-L"): 2, ("FT", "AWS-XL"): 2, ("FT", "AWS-2XL"): 2,
    ("EP", "Chameleon-S"): None, ("EP", "Chameleon-M"): 2, ("EP", "Chameleon-L"): 2,
    ("EP", "AWS-L"): 2, ("EP", "AWS-XL"): 2, ("EP", "AWS-2XL"): 2,
    ("JPS", "Chameleon-S"): 2, ("JPS", "Chameleon-M"): 2, ("JPS", "Chameleon-L"): 3,
    ("JPS", "AWS-L"): 2, ("JPS", "AWS-XL"): 3, ("JPS", "AWS-2XL"): 2,
    ("YCSB", "Chameleon-S"): 3, ("YCSB", "Chameleon-M"): 3, ("YCSB", "Chameleon-L"): 2,
    ("YCSB", "AWS-L"): 3, ("YCSB", "AWS-XL"): 2, ("YCSB", "AWS-2XL"): 2,
    ("TPCC", "Chameleon-S"): 2, ("TPCC", "Chameleon-M"): 2, ("TPCC", "Chameleon-L"): 2,
    ("TPCC", "AWS-L"): 2, ("TPCC", "AWS-XL"): 2, ("TPCC", "AWS-2XL"): 2,
    ("IMA", "Chameleon-S"): None, ("IMA", "Chameleon-M"): 2, ("IMA", "Chameleon-L"): 2,
    ("IMA", "AWS-L"): 2, ("IMA", "AWS-XL"): 2, ("IMA", "AWS-2XL"): 2,
}


@dataclass(frozen=True, eq=False)
class Configuration:
    """One PT4Cloud configuration: its sampled weeks and its ground truth."""

    name: str
    benchmark: str
    config: str
    sampled: np.ndarray
    ground_truth: np.ndarray

    @property
    def runs_per_week(self) -> float:
        return self.sampled.size / SAMPLED_WEEKS

    @property
    def runs_per_hour(self) -> float:
        return self.runs_per_week / 168.0

    def weeks(self) -> list[np.ndarray]:
        """The sampled rows cut into ``SAMPLED_WEEKS`` consecutive, equal intervals."""
        return np.array_split(self.sampled, SAMPLED_WEEKS)

    def runs(self, hours: float) -> int:
        """Runs in ``hours`` of the sampled rate."""
        return max(MIN_SAMPLES, int(round(hours * self.runs_per_hour)))


def configuration(name: str) -> Configuration:
    frame = datasets.load(name)
    entry = datasets.registry()[name]
    sampled = frame.loc[frame.split == "sampled", "value"].to_numpy()
    truth = frame.loc[frame.split == "ground_truth", "value"].to_numpy()
    return Configuration(name, entry.benchmark, entry.config, sampled, truth)


def configurations() -> list[str]:
    """Names of the 33 registered PT4Cloud configurations."""
    return [name for name, d in datasets.registry().items() if d.family == "pt4cloud"]


def _weekly(name: str, rng, *, objective_probability, confidence, replicates, band) -> dict:
    c = configuration(name)
    result = pt4cloud(c.weeks(), objective_probability=objective_probability, confidence=confidence,
                      replicates=replicates, band=band, rng=rng)
    return dict(dataset=name, benchmark=c.benchmark, config=c.config, weeks=result.intervals_used,
                stopped=result.stopped, probabilities=result.probabilities.tolist(), runs=result.runs,
                accuracy=accuracy(result.sample, c.ground_truth),
                paper_weeks=PAPER_WEEKS.get((c.benchmark, c.config)), result=result)


def weekly_study(names=None, *, objective_probability: float = 0.9, confidence: float = 0.99,
                 replicates: int = 1000, band: bool = True, rng=None, executor=None,
                 progress: bool = False) -> pd.DataFrame:
    """Table 3: the standard workflow with weekly intervals over the sampled weeks, and its accuracy.

    Columns: ``dataset``, ``benchmark``, ``config``, ``weeks`` (intervals used), ``stopped``,
    ``probabilities`` (after weeks 2, 3), ``runs``, ``accuracy`` (against the ground truth),
    ``paper_weeks`` (Table 3), ``result`` (the :class:`PT4CloudResult`, with its band).
    """
    names = configurations() if names is None else list(names)
    work = partial(_weekly, objective_probability=objective_probability, confidence=confidence,
                   replicates=replicates, band=band)
    return pd.DataFrame(map_tasks(work, names, rng=rng, executor=executor, progress=progress, desc="configurations"))


def _reduced(name: str, rng, *, hours, validate_below_hours, objective_probability, portion) -> dict:
    c = configuration(name)
    runs = c.sampled
    per_hour = c.runs_per_hour
    if portion < 1:
        runs = hourly_sample(runs, portion, runs_per_hour=per_hour)
        per_hour *= portion
    lengths = [max(MIN_SAMPLES, int(round(h * per_hour))) for h in hours]
    result = pt4cloud_short(runs, interval_lengths=lengths, objective_probability=objective_probability,
                            validate=max(MIN_SAMPLES, int(round(validate_below_hours * per_hour))))
    chosen = hours[lengths.index(result.interval)]
    return dict(dataset=name, benchmark=c.benchmark, config=c.config, interval_hours=chosen, stopped=result.stopped,
                validated=result.validated, runs_spent=result.runs_spent, runs_reported=result.sample.size,
                accuracy=accuracy(result.sample, c.ground_truth), rounds=len(result.rounds))


def reduction_study(names=None, *, hours=(12, 24, 48, 72, 96, 120, 168), validate_below_hours: float = 84,
                    objective_probability: float = 0.9, portion: float = 1.0, executor=None,
                    progress: bool = False) -> pd.DataFrame:
    """Section 6: the short-interval variant over ``hours`` (the last is the standard week), with
    validation below ``validate_below_hours`` (3.5 days, the paper's advice), optionally after
    hourly sampling of ``portion`` of every hour. ``runs_spent`` counts every round tried.
    """
    names = configurations() if names is None else list(names)
    hours = list(hours)
    work = partial(_reduced, hours=hours, validate_below_hours=validate_below_hours,
                   objective_probability=objective_probability, portion=portion)
    return pd.DataFrame(map_tasks(work, names, executor=executor, progress=progress, desc="configurations"))


def _baselines(name: str, rng, *, periods_hours, spans_hours, threshold, margin, step_hours, confidence,
               replicates) -> dict:
    c = configuration(name)
    best = None
    for period in periods_hours:
        for span in spans_hours:
            p = max(2, int(round(period * c.runs_per_hour)))
            result = sota1(c.sampled, period=p, span=max(p, int(round(span * c.runs_per_hour))), threshold=threshold)
            score = accuracy(result.sample, c.ground_truth) if result.runs >= MIN_SAMPLES else 0.0
            if best is None or score > best[0]:
                best = (score, result.runs, period, span, result.stopped)
    two = sota2(c.sampled, step=c.runs(step_hours), margin=margin, confidence=confidence, replicates=replicates,
                rng=rng)
    return dict(dataset=name, benchmark=c.benchmark, config=c.config,
                sota1_accuracy=best[0], sota1_runs=best[1], sota1_period_hours=best[2], sota1_span_hours=best[3],
                sota1_stopped=best[4], sota2_accuracy=accuracy(two.sample, c.ground_truth), sota2_runs=two.runs,
                sota2_stopped=two.stopped, sota2_hours=two.runs / c.runs_per_hour)


def baseline_study(names=None, *, periods_hours=(0.5, 1, 2), spans_hours=(2, 4, 6, 12, 24, 48),
                   threshold: float = 0.01, margin: float = 0.1, step_hours: float = 6, confidence: float = 0.95,
                   replicates: int = 200, rng=None, executor=None, progress: bool = False) -> pd.DataFrame:
    """Section 5.4: SOTA1 (best accuracy over its ``periods x spans`` grid, as the paper reports)
    and SOTA2 (``+-margin`` percentile CIs, checked every ``step_hours``), on the sampled weeks."""
    names = configurations() if names is None else list(names)
    work = partial(_baselines, periods_hours=list(periods_hours), spans_hours=list(spans_hours), threshold=threshold,
                   margin=margin, step_hours=step_hours, confidence=confidence, replicates=replicates)
    return pd.DataFrame(map_tasks(work, names, rng=rng, executor=executor, progress=progress, desc="configurations"))
