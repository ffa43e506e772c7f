"""He et al., "A Statistics-Based Performance Testing Methodology for Cloud Applications" (PT4Cloud),
ESEC/FSE 2019: its published numbers, and its studies on the authors' own 33 configurations
(sections 5 and 6; notebook 04).

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
from typing import cast

import numpy as np
import pandas as pd

from perfstudy._lib.checks import (
    check_bool,
    check_duration,
    check_each,
    check_fraction,
    check_frame,
    check_int,
    check_names,
    check_portion,
    check_real,
    check_text,
)
from perfstudy._lib.parallel import map_tasks
from perfstudy._lib.result import Result
from perfstudy._lib.types import Executor, Seed
from perfstudy.io import datasets
from perfstudy.stability.pt4cloud import (
    MIN_SAMPLES,
    PT4CloudResult,
    accuracy,
    hourly_sample,
    pt4cloud,
    pt4cloud_short,
    split_intervals,
    stability_probability,
)
from perfstudy.stability.stopping_rules import sota1, sota2

__all__ = [
    "SotaComparison",
    "SAMPLED_WEEKS",
    "METRICS",
    "TABLE_3_WEEKS",
    "TABLE_4_HOURS",
    "PUBLISHED",
    "Configuration",
    "configuration",
    "configurations",
    "weekly_study",
    "reduction_study",
    "reduction_summary",
    "table4_comparison",
    "short_interval_check",
    "baseline_study",
    "sota_comparison",
    "azure_weeks",
    "accuracy_diagnosis",
]

SAMPLED_WEEKS = 3

#: What each benchmark's values are, with their unit (shared/datasets/README.md, "PT4Cloud / Metior").
METRICS = {
    "FT": "execution time (s)",
    "EP": "execution time (s)",
    "IMA": "execution time (s)",
    "JPS": "successful requests per run",
    "YCSB": "throughput (operations/s)",
    "TPCC": "throughput (transactions/s)",
}
#: Table 3 of the paper: weeks needed at po = 90% (None: the benchmark was not run there).
#: Columns Chameleon S, M, L and AWS m5.large, m5.xlarge, m5.2xlarge, as printed.
TABLE_3_WEEKS = {
    ("FT", "Chameleon-S"): None,
    ("FT", "Chameleon-M"): 2,
    ("FT", "Chameleon-L"): 2,
    ("FT", "AWS-L"): 2,
    ("FT", "AWS-XL"): 2,
    ("FT", "AWS-2XL"): 2,
    ("EP", "Chameleon-S"): None,
    ("EP", "Chameleon-M"): 2,
    ("EP", "Chameleon-L"): 2,
    ("EP", "AWS-L"): 2,
    ("EP", "AWS-XL"): 2,
    ("EP", "AWS-2XL"): 2,
    ("JPS", "Chameleon-S"): 2,
    ("JPS", "Chameleon-M"): 2,
    ("JPS", "Chameleon-L"): 3,
    ("JPS", "AWS-L"): 2,
    ("JPS", "AWS-XL"): 3,
    ("JPS", "AWS-2XL"): 2,
    ("YCSB", "Chameleon-S"): 3,
    ("YCSB", "Chameleon-M"): 3,
    ("YCSB", "Chameleon-L"): 2,
    ("YCSB", "AWS-L"): 3,
    ("YCSB", "AWS-XL"): 2,
    ("YCSB", "AWS-2XL"): 2,
    ("TPCC", "Chameleon-S"): 2,
    ("TPCC", "Chameleon-M"): 2,
    ("TPCC", "Chameleon-L"): 2,
    ("TPCC", "AWS-L"): 2,
    ("TPCC", "AWS-XL"): 2,
    ("TPCC", "AWS-2XL"): 2,
    ("IMA", "Chameleon-S"): None,
    ("IMA", "Chameleon-M"): 2,
    ("IMA", "Chameleon-L"): 2,
    ("IMA", "AWS-L"): 2,
    ("IMA", "AWS-XL"): 2,
    ("IMA", "AWS-2XL"): 2,
}

_H, _D, _W = 12, 24, 168  # Table 4's units in hours: "12hrs", "d", "1w"
#: Table 4 of the paper: the reduced interval length (hours) that stabilised, without and with hourly
#: sampling of half of every hour, per benchmark and configuration (None: not run there). Columns as
#: Table 3.
TABLE_4_HOURS = {
    (benchmark, config): (without, with_sampling)
    for benchmark, row_without, row_with in [
        ("FT", [None, 3 * _D, 3 * _D, _H, _H, _H], [None, 3 * _D, 3 * _D, _H, _H, _H]),
        ("EP", [None, 4 * _D, 4 * _D, 4 * _D, _D, _H], [None, 4 * _D, 4 * _D, 4 * _D, _H, _H]),
        ("JPS", [_H, _H, _W, _D, _W, 3 * _D], [_H, _H, _W, _D, _W, 4 * _D]),
        ("YCSB", [4 * _D, _W, 5 * _D, _W, 2 * _D, 4 * _D], [4 * _D, _W, 5 * _D, _W, 2 * _D, 3 * _D]),
        ("TPCC", [3 * _D, _D, 4 * _D, _H, _H, _H], [3 * _D, _D, 4 * _D, _H, _H, _H]),
        ("IMA", [None, 3 * _D, 4 * _D, _H, _H, _D], [None, 3 * _D, 4 * _D, 2 * _D, 2 * _D, 4 * _D]),
    ]
    for config, without, with_sampling in zip(
        ["Chameleon-S", "Chameleon-M", "Chameleon-L", "AWS-L", "AWS-XL", "AWS-2XL"], row_without, row_with
    )
}

#: Numbers printed in the text: Table 3's mean accuracy (section 5.2); the runs saved against the
#: six-week ground truth by the weekly workflow and by both reductions, and the latter's mean
#: accuracy (section 6.3, Figures 8 and 9).
PUBLISHED = {
    "weekly_mean_accuracy": 0.954,
    "weekly_runs_saved": 0.62,
    "reduced_sampled_runs_saved": 0.901,
    "reduced_sampled_mean_accuracy": 0.91,
}


@dataclass(frozen=True, eq=False)
class Configuration(Result):
    """One PT4Cloud configuration: its sampled weeks and its ground truth.

    Attributes
    ----------
    name, benchmark, config : str
        The registered dataset, its benchmark (FT, EP, JPS, YCSB, TPCC, IMA) and VM configuration.
    sampled : ndarray
        The thinned "sampled 3 weeks", in run order.
    ground_truth : ndarray
        The continuous runs that followed.
    """

    name: str
    benchmark: str
    config: str
    sampled: np.ndarray
    ground_truth: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        """One row: the configuration and how many sampled and ground-truth runs it holds."""
        return pd.DataFrame([self._scalars() | {"sampled": self.sampled.size, "ground_truth": self.ground_truth.size}])

    @property
    def runs_per_week(self) -> float:
        """Sampled runs per week (a week is a third of the sampled rows)."""
        return self.sampled.size / SAMPLED_WEEKS

    @property
    def runs_per_hour(self) -> float:
        """Sampled runs per hour, ``runs_per_week / 168``."""
        return self.runs_per_week / 168.0

    def weeks(self) -> list[np.ndarray]:
        """The sampled rows cut into ``SAMPLED_WEEKS`` consecutive, equal intervals."""
        return np.array_split(self.sampled, SAMPLED_WEEKS)

    def runs(self, hours: float) -> int:
        """Runs in ``hours`` of the sampled rate (at least ``MIN_SAMPLES``).

        Parameters
        ----------
        hours : float
            A duration in hours.
        """
        check_real("hours", hours, positive=True)
        return max(MIN_SAMPLES, int(round(hours * self.runs_per_hour)))


def configuration(name: str) -> Configuration:
    """Load one registered PT4Cloud configuration.

    Parameters
    ----------
    name : str
        A dataset of family ``pt4cloud`` (see :func:`configurations`).
    """
    check_text("name", name)
    if not isinstance(name, str):
        raise TypeError(f"name={name!r}: expected a PT4Cloud configuration's name (see configurations())")
    entry = datasets.registry().get(name)
    if entry is None or entry.family != "pt4cloud":
        what = (
            "not a registered dataset" if entry is None else f"a {entry.family} dataset, not a PT4Cloud configuration"
        )
        raise ValueError(f"name={name!r}: {what}; see configurations()")
    frame = datasets.load(name)
    sampled = frame.loc[frame.split == "sampled", "value"].to_numpy()
    truth = frame.loc[frame.split == "ground_truth", "value"].to_numpy()
    return Configuration(name, entry.benchmark, entry.config, sampled, truth)


def configurations() -> list[str]:
    """Names of the 33 registered PT4Cloud configurations."""
    return [name for name, d in datasets.registry().items() if d.family == "pt4cloud"]


def _weekly(name: str, rng, *, objective_probability, confidence, replicates, band) -> dict:
    c = configuration(name)
    result = pt4cloud(
        c.weeks(),
        objective_probability=objective_probability,
        confidence=confidence,
        replicates=replicates,
        band=band,
        rng=rng,
    )
    return dict(
        dataset=name,
        benchmark=c.benchmark,
        config=c.config,
        weeks=result.intervals_used,
        stopped=result.stopped,
        probabilities=result.probabilities.tolist(),
        runs=result.runs,
        accuracy=accuracy(result.sample, c.ground_truth),
        paper_weeks=TABLE_3_WEEKS.get((c.benchmark, c.config)),
        result=result,
    )


def weekly_study(
    names=None,
    *,
    objective_probability: float = 0.9,
    confidence: float = 0.99,
    replicates: int = 1000,
    band: bool = True,
    rng: Seed = None,
    executor: Executor = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Table 3: the standard workflow with weekly intervals over the sampled weeks, and its accuracy.

    Parameters
    ----------
    names : sequence of str, optional
        Configurations (default all 33).
    objective_probability : float
        ``po``.
    confidence, replicates : float, int
        Of each result's band.
    band : bool
        Compute the bands.
    rng : None, int, SeedSequence or Generator
        One stream per configuration.
    executor : concurrent.futures.Executor, optional
        Where the configurations run.
    progress : bool
        Show a progress bar.

    Returns
    -------
    DataFrame
        Columns: ``dataset``, ``benchmark``, ``config``, ``weeks`` (intervals used), ``stopped``,
    ``probabilities`` (after weeks 2, 3), ``runs``, ``accuracy`` (against the ground truth),
    ``paper_weeks`` (Table 3), ``result`` (the :class:`PT4CloudResult`, with its band).
    """
    if names is not None:
        check_names("names", names)
    check_fraction("objective_probability", objective_probability)
    check_fraction("confidence", confidence)
    check_int("replicates", replicates)
    check_bool("band", band)
    check_bool("progress", progress)
    names = configurations() if names is None else list(names)
    work = partial(
        _weekly, objective_probability=objective_probability, confidence=confidence, replicates=replicates, band=band
    )
    return pd.DataFrame(map_tasks(work, names, rng=rng, executor=executor, progress=progress, desc="configurations"))


def _short_search(runs, per_hour, *, hours, validate_below_hours, objective_probability, bandwidth_factor=1.0):
    """The short-interval search over a ladder of ``hours`` at ``per_hour`` runs an hour: the length it stops at,
    the ladder in runs, and :func:`pt4cloud_short`'s result."""
    lengths = [max(MIN_SAMPLES, int(round(h * per_hour))) for h in hours]
    result = pt4cloud_short(
        runs,
        interval_lengths=lengths,
        objective_probability=objective_probability,
        validate=max(MIN_SAMPLES, int(round(validate_below_hours * per_hour))),
        bandwidth_factor=bandwidth_factor,
    )
    return hours[lengths.index(cast(int, result.interval))], lengths, result


def _reduced(name: str, rng, *, hours, validate_below_hours, objective_probability, portion) -> dict:
    c = configuration(name)
    runs = c.sampled
    per_hour = c.runs_per_hour
    if portion < 1:
        runs = hourly_sample(runs, portion, runs_per_hour=per_hour)
        per_hour *= portion
    chosen, _, result = _short_search(
        runs,
        per_hour,
        hours=hours,
        validate_below_hours=validate_below_hours,
        objective_probability=objective_probability,
    )
    return dict(
        dataset=name,
        benchmark=c.benchmark,
        config=c.config,
        interval_hours=chosen,
        stopped=result.stopped,
        validated=result.validated,
        runs_spent=result.runs_spent,
        runs_reported=result.sample.size,
        accuracy=accuracy(result.sample, c.ground_truth),
        rounds=len(result.rounds),
    )


def reduction_study(
    names=None,
    *,
    hours=(12, 24, 48, 72, 96, 120, 168),
    validate_below_hours: float = 84.0,
    objective_probability: float = 0.9,
    portion: float = 1.0,
    executor: Executor = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Section 6: the short-interval variant over ``hours`` (the last is the standard week), with
    validation below ``validate_below_hours`` (3.5 days, the paper's advice), optionally after
    hourly sampling of ``portion`` of every hour. ``runs_spent`` counts every round tried.

    Parameters
    ----------
    names : sequence of str, optional
        Configurations (default all 33).
    hours : sequence of float
        The ladder of interval lengths (section 6.1: 12 hours to a week).
    validate_below_hours : float
        Validate the lengths shorter than this.
    objective_probability : float
        ``po``.
    portion : float
        Hourly sampling: the share of every hour kept (1: no sampling).
    executor, progress
        As in :func:`weekly_study`.

    Returns
    -------
    DataFrame
        ``dataset``, ``benchmark``, ``config``, ``interval_hours``, ``stopped``, ``validated``,
        ``runs_spent``, ``runs_reported``, ``accuracy``, ``rounds``.
    """
    if names is not None:
        check_names("names", names)
    check_each("hours", hours, check_real, positive=True)
    check_real("validate_below_hours", validate_below_hours, positive=True)
    check_fraction("objective_probability", objective_probability)
    check_portion("portion", portion)
    check_bool("progress", progress)
    if not 0 < portion <= 1:
        raise ValueError(f"portion={portion!r}: expected a share of the hour in (0, 1]")
    names = configurations() if names is None else list(names)
    hours = list(hours)
    if any(b <= a for a, b in zip(hours, hours[1:])):
        raise ValueError(
            f"hours={tuple(hours)}: expected increasing lengths; the ladder is tried from the shortest up, "
            "and the last is the fallback"
        )
    work = partial(
        _reduced,
        hours=hours,
        validate_below_hours=validate_below_hours,
        objective_probability=objective_probability,
        portion=portion,
    )
    return pd.DataFrame(map_tasks(work, names, executor=executor, progress=progress, desc="configurations"))


def _baselines(name: str, rng, *, sota1_grid: tuple, threshold, sota2_options: dict) -> dict:
    """SOTA1 at its best period and span of ``sota1_grid`` (periods, spans in hours), and SOTA2 with ``sota2_options``'
    ``margin``, ``step_hours``, ``confidence`` and ``replicates``, on configuration ``name``."""
    periods_hours, spans_hours = sota1_grid
    margin, step_hours = sota2_options["margin"], sota2_options["step_hours"]
    confidence, replicates = sota2_options["confidence"], sota2_options["replicates"]
    c = configuration(name)
    best = None
    for period in periods_hours:
        for span in spans_hours:
            p = max(2, int(round(period * c.runs_per_hour)))
            result = sota1(c.sampled, period=p, span=max(p, int(round(span * c.runs_per_hour))), threshold=threshold)
            score = accuracy(result.sample, c.ground_truth) if result.runs >= MIN_SAMPLES else 0.0
            if best is None or score > best[0]:
                best = (score, result.runs, period, span, result.stopped)
    two = sota2(
        c.sampled, step=c.runs(step_hours), margin=margin, confidence=confidence, replicates=replicates, rng=rng
    )
    return dict(
        dataset=name,
        benchmark=c.benchmark,
        config=c.config,
        sota1_accuracy=best[0],
        sota1_runs=best[1],
        sota1_period_hours=best[2],
        sota1_span_hours=best[3],
        sota1_stopped=best[4],
        sota2_accuracy=accuracy(two.sample, c.ground_truth),
        sota2_runs=two.runs,
        sota2_stopped=two.stopped,
        sota2_hours=two.runs / c.runs_per_hour,
    )


def baseline_study(
    names=None,
    *,
    periods_hours=(0.5, 1, 2),
    spans_hours=(2, 4, 6, 12, 24, 48),
    threshold: float = 0.01,
    margin: float = 0.1,
    step_hours: float = 6.0,
    confidence: float = 0.95,
    replicates: int = 200,
    rng: Seed = None,
    executor: Executor = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Section 5.4: SOTA1 (best accuracy over its ``periods x spans`` grid, as the paper reports)
    and SOTA2 (``+-margin`` percentile CIs, checked every ``step_hours``), on the sampled weeks.

    The paper prints neither SOTA1's 18 parameter sets nor SOTA2's margin; these are our reading.

    Parameters
    ----------
    names : sequence of str, optional
        Configurations (default all 33).
    periods_hours, spans_hours : sequences of float
        SOTA1's grid: window length and look-back span, in hours.
    threshold : float
        SOTA1's largest change of repetitiveness over a span.
    margin : float
        SOTA2's relative half-width.
    step_hours : float
        SOTA2 checks every this many hours.
    confidence : float
        Of SOTA2's percentile intervals.
    replicates : int
        SOTA2's bootstrap resamples.
    rng : None, int, SeedSequence or Generator
        One stream per configuration.
    executor : concurrent.futures.Executor, optional
        Where the configurations run.
    progress : bool
        Show a progress bar.
    """
    if names is not None:
        check_names("names", names)
    check_each("periods_hours", periods_hours, check_real, positive=True)
    check_each("spans_hours", spans_hours, check_real, positive=True)
    check_real("threshold", threshold, nonnegative=True)
    check_real("margin", margin, nonnegative=True)
    check_real("step_hours", step_hours, positive=True)
    check_fraction("confidence", confidence)
    check_int("replicates", replicates)
    check_bool("progress", progress)
    if not step_hours > 0:
        raise ValueError(f"step_hours={step_hours!r}: expected a positive number of hours")
    names = configurations() if names is None else list(names)
    work = partial(
        _baselines,
        sota1_grid=(list(periods_hours), list(spans_hours)),
        threshold=threshold,
        sota2_options=dict(margin=margin, step_hours=step_hours, confidence=confidence, replicates=replicates),
    )
    return pd.DataFrame(map_tasks(work, names, rng=rng, executor=executor, progress=progress, desc="configurations"))


@dataclass(frozen=True)
class SotaComparison(Result):
    """Figure 9: PT4Cloud's accuracy and cost against the two baselines', per configuration.

    Attributes
    ----------
    per_config : DataFrame
        ``label`` (benchmark and configuration), PT4Cloud's ``accuracy`` and ``runs``, and the baselines' columns.
    headline : dict
        Mean accuracies (``pt4cloud``, ``sota1``, ``sota2``), ``sota2_min``, ``sota1_median_hours``,
        ``sota2_hours_range``.
    """

    per_config: pd.DataFrame
    headline: dict

    def to_frame(self) -> pd.DataFrame:
        """One row per configuration (``per_config``)."""
        return self.per_config.copy()


def sota_comparison(weekly: pd.DataFrame, baselines: pd.DataFrame) -> SotaComparison:
    """Figure 6: PT4Cloud's accuracy and runs beside SOTA1's and SOTA2's, per configuration.

    Parameters
    ----------
    weekly : DataFrame
        :func:`weekly_study`.
    baselines : DataFrame
        :func:`baseline_study` on the same configurations.

    Returns
    -------
    SotaComparison
    """
    check_frame("weekly", weekly, minimum=0)
    check_frame("baselines", baselines, minimum=0)
    keys = ["dataset", "config", "benchmark"]
    frame = weekly[keys + ["accuracy", "runs"]].merge(baselines, on=keys)
    frame["label"] = frame.benchmark + " " + frame.config
    per_hour = np.array([configuration(n).runs_per_hour for n in frame.dataset])
    summary = dict(
        pt4cloud=float(frame.accuracy.mean()),
        sota1=float(frame.sota1_accuracy.mean()),
        sota2=float(frame.sota2_accuracy.mean()),
        sota2_min=float(frame.sota2_accuracy.min()),
        sota1_median_hours=float(np.median(frame.sota1_runs / per_hour)),
        sota2_hours_range=[float(frame.sota2_hours.min()), float(frame.sota2_hours.max())],
    )
    return SotaComparison(per_config=frame, headline=summary)


def reduction_summary(
    weekly: pd.DataFrame, reduced: pd.DataFrame, sampled: pd.DataFrame, *, portion: float
) -> pd.DataFrame:
    """Runs saved and mean accuracy of each method against the six-week ground truth (section 6.3,
    Figures 8 and 9), beside the paper's numbers.

    The paper's effort is six weeks of runs; here at the sampled rate. ``runs_saved`` counts the
    runs of the reported round, as the paper does; ``runs_saved_all_rounds`` counts every round
    tried, as a live test would pay.

    Parameters
    ----------
    weekly : DataFrame
        :func:`weekly_study`.
    reduced, sampled : DataFrame
        :func:`reduction_study` without and with hourly sampling.
    portion : float
        The hourly sampling portion of ``sampled``, for the label.
    """
    check_frame("weekly", weekly, minimum=0)
    check_frame("reduced", reduced, minimum=0)
    check_frame("sampled", sampled, minimum=0)
    check_portion("portion", portion)
    six_weeks = sum(6 * configuration(name).runs_per_week for name in weekly.dataset)

    def saved(frame, column):
        return 1 - float(frame[column].sum()) / six_weeks

    return pd.DataFrame(
        [
            dict(
                method="standard, weekly",
                mean_accuracy=weekly.accuracy.mean(),
                runs_saved=saved(weekly, "runs"),
                runs_saved_all_rounds=saved(weekly, "runs"),
                paper_runs_saved=PUBLISHED["weekly_runs_saved"],
                paper_accuracy=PUBLISHED["weekly_mean_accuracy"],
            ),
            dict(
                method="reduced interval",
                mean_accuracy=reduced.accuracy.mean(),
                runs_saved=saved(reduced, "runs_reported"),
                runs_saved_all_rounds=saved(reduced, "runs_spent"),
                paper_runs_saved=np.nan,
                paper_accuracy=np.nan,
            ),
            dict(
                method=f"reduced interval + hourly sampling ({portion:.0%})",
                mean_accuracy=sampled.accuracy.mean(),
                runs_saved=saved(sampled, "runs_reported"),
                runs_saved_all_rounds=saved(sampled, "runs_spent"),
                paper_runs_saved=PUBLISHED["reduced_sampled_runs_saved"],
                paper_accuracy=PUBLISHED["reduced_sampled_mean_accuracy"],
            ),
        ]
    )


def table4_comparison(reduced: pd.DataFrame, sampled: pd.DataFrame) -> pd.DataFrame:
    """Table 4: our reduced interval lengths beside the paper's, without and with hourly sampling.

    Parameters
    ----------
    reduced, sampled : DataFrame
        :func:`reduction_study` without and with hourly sampling.

    Returns
    -------
    DataFrame
        ``dataset``, ``benchmark``, ``config``; ``hours``, ``paper_hours``, ``agrees``, ``accuracy``;
        the same with ``_sampled``.
    """
    check_frame("reduced", reduced, minimum=0)
    check_frame("sampled", sampled, minimum=0)
    frame = reduced[["dataset", "benchmark", "config", "interval_hours", "accuracy"]].merge(
        sampled[["dataset", "interval_hours", "accuracy"]], on="dataset", suffixes=("", "_sampled")
    )
    frame = frame.rename(columns={"interval_hours": "hours", "interval_hours_sampled": "hours_sampled"})
    paper = [TABLE_4_HOURS.get((b, c), (None, None)) for b, c in zip(frame.benchmark, frame.config)]
    frame["paper_hours"] = [p[0] for p in paper]
    frame["paper_hours_sampled"] = [p[1] for p in paper]
    frame["agrees"] = frame.hours == frame.paper_hours
    frame["agrees_sampled"] = frame.hours_sampled == frame.paper_hours_sampled
    return frame[
        [
            "dataset",
            "benchmark",
            "config",
            "hours",
            "paper_hours",
            "agrees",
            "accuracy",
            "hours_sampled",
            "paper_hours_sampled",
            "agrees_sampled",
            "accuracy_sampled",
        ]
    ]


def short_interval_check(name: str, hours: float, *, objective_probability: float = 0.9) -> dict:
    """Why a short interval can pass and still be wrong: one configuration at one interval length.

    Returns the median of each sampled week, the stability probability of two intervals of
    ``hours``, the probability the validation step (two more intervals) would give, and the
    reported sample's accuracy against the ground truth.

    Parameters
    ----------
    name : str
        A PT4Cloud configuration.
    hours : float
        The interval length.
    objective_probability : float
        ``po``, for ``stable`` and ``validates``.
    """
    check_text("name", name)
    check_real("hours", hours, positive=True)
    check_fraction("objective_probability", objective_probability)
    c = configuration(name)
    parts, _ = split_intervals(c.sampled, c.runs(hours))
    if len(parts) < 4:
        raise ValueError(f"hours={hours!r}: {name} holds {len(parts)} intervals of that length; 4 are needed")
    both = np.concatenate(parts[:2])
    probability = stability_probability(parts[0], both)
    validation = stability_probability(both, np.concatenate(parts[2:4]))
    return dict(
        dataset=name,
        hours=hours,
        week_medians=[float(np.median(w)) for w in c.weeks()],
        probability=probability,
        stable=probability >= objective_probability,
        validation_probability=validation,
        validates=validation >= objective_probability,
        accuracy=accuracy(both, c.ground_truth),
    )


def azure_weeks(names, *, interval: str = "7D", objective_probability: float = 0.9) -> pd.DataFrame:
    """The standard workflow on the Azure long-lived hosts, by calendar interval; the runs after the
    reported intervals (the rest of the year) play the ground truth.

    Parameters
    ----------
    names : sequence of str
        Registered Azure datasets with long-lived hosts.
    interval : str
        A pandas duration; intervals without runs are skipped.
    objective_probability : float
        ``po``.

    Returns
    -------
    DataFrame
        ``series``, ``weeks_with_runs``, ``weeks_used``, ``stopped``, ``runs``, ``later_runs``,
        ``accuracy_later`` (NaN with fewer than ``MIN_SAMPLES`` later runs).
    """
    check_names("names", names)
    check_duration("interval", interval)
    check_fraction("objective_probability", objective_probability)
    rows = []
    for name in names:
        for host, runs in datasets.load(name).groupby("host"):
            parts, _ = split_intervals(runs[["timestamp", "value"]], interval, empty="skip")
            result = pt4cloud(parts, objective_probability=objective_probability, band=False)
            rest = (
                np.concatenate(parts[result.intervals_used :]) if result.intervals_used < len(parts) else np.array([])
            )
            rows.append(
                dict(
                    series=f"{name.removeprefix('azure-')} host{host}",
                    weeks_with_runs=len(parts),
                    weeks_used=result.intervals_used,
                    stopped=result.stopped,
                    runs=result.runs,
                    later_runs=rest.size,
                    accuracy_later=accuracy(result.sample, rest) if rest.size >= MIN_SAMPLES else np.nan,
                )
            )
    return pd.DataFrame(rows)


def _diagnose(task, rng) -> dict:
    name, reported, draws = task
    c = configuration(name)
    truth = c.ground_truth
    n = reported.size
    floor = []
    for _ in range(draws):
        order = rng.permutation(truth.size)
        floor.append(accuracy(truth[order[:n]], truth[order[n:]]))
    half = truth.size // 2
    q_reported, q_truth = np.percentile(reported, [25, 50, 75]), np.percentile(truth, [25, 50, 75])
    return dict(
        dataset=name,
        benchmark=c.benchmark,
        config=c.config,
        runs=int(n),
        accuracy=accuracy(reported, truth),
        accuracy_exact=accuracy(reported, truth, method="exact"),
        accuracy_fine=accuracy(reported, truth, strips=10_000),
        accuracy_wide=accuracy(reported, truth, bandwidth_factor=2.0),
        noise_floor=float(np.median(floor)),
        noise_floor_low=float(np.min(floor)),
        all_sampled=accuracy(c.sampled, truth),
        ground_truth_halves=accuracy(truth[:half], truth[half:]),
        spread_ratio=float((q_reported[2] - q_reported[0]) / (q_truth[2] - q_truth[0])),
        median_shift=float(q_reported[1] / q_truth[1] - 1),
    )


def accuracy_diagnosis(
    weekly: pd.DataFrame, *, draws: int = 10, rng: Seed = None, progress: bool = False
) -> pd.DataFrame:
    """Why a configuration's accuracy is what it is: the estimator, sampling noise, stopping, or the data.

    For each configuration of a :func:`weekly_study`, the accuracy of its reported distribution
    against the ground truth (section 5.1), recomputed

    - with the exact KDE (``method="exact"``), with 10,000 strips, and with twice Scott's bandwidth:
      how much the KDE's choices move it;
    - for ``draws`` random subsamples of the ground truth of the reported size, each against the rest
      of the ground truth: what a sample from the ground truth's own distribution scores
      (``noise_floor``, median; ``noise_floor_low``, lowest);
    - for all three sampled weeks instead of the reported ones (``all_sampled``): whether more
      intervals would have helped;
    - for the ground truth's first half against its second, in run order (``ground_truth_halves``):
      whether the ground truth itself holds still;

    and the reported sample's interquartile range over the ground truth's (``spread_ratio``) and its
    median's relative shift (``median_shift``).

    Parameters
    ----------
    weekly : DataFrame
        :func:`weekly_study`'s result (``dataset`` and ``result`` columns).
    draws : int
        Subsamples behind the noise floor.
    rng : None, int, SeedSequence or Generator
        One stream per configuration.
    progress : bool
        Show a progress bar.

    Returns
    -------
    DataFrame
        One row per configuration with the columns named above (and ``dataset``, ``benchmark``,
        ``config``, ``runs`` reported).
    """
    check_frame("weekly", weekly, ["dataset", "result"])
    draws = check_int("draws", draws, maximum=1000)
    check_bool("progress", progress)
    for result in weekly.result:
        if not isinstance(result, PT4CloudResult):
            raise TypeError(f"weekly.result: expected PT4CloudResult values, got {type(result).__name__}")
    tasks = [(name, result.sample, draws) for name, result in zip(weekly.dataset, weekly.result)]
    rows = map_tasks(_diagnose, tasks, rng=rng, progress=progress, desc="accuracy diagnosis")
    return pd.DataFrame(rows)
