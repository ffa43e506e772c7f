"""What notebook 07 says of turning a pilot into a design: Table 1 recovered from pilots, real benchmarks' variance
split, profile against bootstrap intervals, and what a pilot's size buys. Written from this run's results of
:mod:`perfstudy.studies.bakshy2015_real`, as :class:`~perfstudy._lib.said.Said` (literal text: method only), summary
dicts the notebook records, and the tables it shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from perfstudy._lib.checks import check_fraction, check_frame, check_instance, check_int, check_real, check_text
from perfstudy._lib.format import span
from perfstudy._lib.said import Said

if TYPE_CHECKING:
    from pandas.io.formats.style import Styler

__all__ = [
    "SUMMARY_METHOD",
    "recovery_summary",
    "split_summary",
    "split_view",
    "interval_summary",
    "interval_methods_said",
    "summary_said",
    "share_mc",
    "oracle_said",
]

#: the constants the summary states: within 10% of a promise, 3 Monte Carlo errors, a region share below 0.001
SUMMARY_METHOD = {"within": 0.10, "mc_errors": 3, "region_zero_below": 0.001}
_SHARES = ["share_region", "share_host", "share_batch", "share_host_batch", "share_noise"]


def recovery_summary(recovery: pd.DataFrame) -> dict:
    """Table 1 recovered from pilots, in three numbers: the share of intervals that hold the true sigma, their count,
    and the endpoints whose fit was singular.

    Parameters
    ----------
    recovery : DataFrame
        :func:`perfstudy.studies.bakshy2015_real.table1_recovery`.
    """
    recovery = check_frame("recovery", recovery, minimum=0)
    return dict(
        covered=float(recovery.covered.mean()),
        intervals=len(recovery),
        singular=int(recovery.groupby("endpoint").singular.first().sum()),
    )


def split_summary(split: pd.DataFrame) -> dict:
    """How many real benchmarks were fitted, and on how many the host or the noise holds most of the variance.

    Parameters
    ----------
    split : DataFrame
        :func:`perfstudy.studies.bakshy2015_real.variance_split`.
    """
    split = check_frame("split", split, minimum=0)
    return dict(
        benchmarks=len(split),
        fitted=int(split.converged.sum()),
        host_dominant=int((split.share_host > 0.5).sum()),
        noise_dominant=int((split.share_noise > 0.5).sum()),
    )


def split_view(split: pd.DataFrame) -> Styler:
    """The shares a reader compares, one benchmark a row; every other column stays in the record.

    Parameters
    ----------
    split : DataFrame
        :func:`perfstudy.studies.bakshy2015_real.variance_split`.
    """
    split = check_frame("split", split, minimum=0)

    def name(column: str) -> str:
        return column.replace("share_", "").replace("_", " ") if column in _SHARES else column.replace("_", " ")

    columns = ["benchmark", "n", "hosts", "total_sd", *_SHARES]
    shown = split[columns].set_axis([name(c) for c in columns], axis=1)
    view: Any = shown.style.hide(axis="index").format(
        {"total sd": "{:.3g}", **{name(s): "{:.0%}" for s in _SHARES}}, na_rep=""
    )
    return cast(
        "Styler", view.set_caption("Share of the variance per term, per benchmark (total SD in the benchmark's unit)")
    )


def _widths(intervals: pd.DataFrame) -> pd.DataFrame:
    widths = intervals.assign(
        profile=intervals.profile_high - intervals.profile_low,
        bootstrap=intervals.bootstrap_high - intervals.bootstrap_low,
    )
    return widths.assign(ratio=widths.profile / widths.bootstrap)


def interval_summary(intervals: pd.DataFrame, metric: str) -> dict:
    """The profile and bootstrap intervals' cost in seconds and their widest ratio of widths.

    Parameters
    ----------
    intervals : DataFrame
        :func:`perfstudy.studies.bakshy2015_real.interval_methods`.
    metric : str
        The metric they are of.
    """
    intervals, metric = check_frame("intervals", intervals, minimum=0), check_text("metric", metric)
    seconds = intervals.attrs["seconds"]
    return dict(
        metric=metric,
        profile_s=seconds["profile"],
        bootstrap_s=seconds["bootstrap"],
        widest_ratio=float(_widths(intervals).ratio.max()),
    )


def interval_methods_said(intervals: pd.DataFrame) -> Said:
    """Profile width over bootstrap width per term, and whether the ratio separates terms of few levels (3 or
    fewer) from terms of many (100 or more).

    Parameters
    ----------
    intervals : DataFrame
        :func:`perfstudy.studies.bakshy2015_real.interval_methods`.
    """
    widths = _widths(check_frame("intervals", intervals, minimum=0))
    few, many = widths[widths.levels <= 3], widths[widths.levels >= 100]
    return Said(
        "Profile width over bootstrap width, per term: {per_term}. {verdict}",
        dict(
            per_term="; ".join(
                f"{t} ({n:,} levels) {r:.2f}" for t, n, r in zip(widths.term, widths.levels, widths.ratio)
            ),
            verdict=(
                "The bootstrap is the narrower of the two where a term has few levels, and close to the profile where "
                "it has many."
                if len(few) and len(many) and few.ratio.min() > many.ratio.max()
                else "Here the ratio does not separate the few-level terms from the many-level ones."
            ),
        ),
    )


def summary_said(
    recovery: pd.DataFrame,
    split: pd.DataFrame,
    intervals: pd.DataFrame,
    plan: pd.DataFrame,
    by_pilot: pd.DataFrame,
    *,
    confidence: float,
    metric: str,
    refits: int,
    pilots: int,
) -> Said:
    """Notebook 07's summary: Table 1 from pilots, the real benchmarks' variance, profile against bootstrap, the
    designs' promises kept, and what a pilot's size buys.

    Parameters
    ----------
    recovery, split, intervals : DataFrame
        :func:`~perfstudy.studies.bakshy2015_real.table1_recovery`, ``variance_split`` and ``interval_methods``.
    plan : DataFrame
        :func:`~perfstudy.studies.bakshy2015_real.design_from_pilot`.
    by_pilot : DataFrame
        :func:`~perfstudy.studies.bakshy2015_real.pilot_budget`'s ``by_pilot``.
    confidence : float
        The intervals' coverage.
    metric : str
        The metric of ``intervals``.
    refits : int
        The bootstrap's refits.
    pilots : int
        Simulated pilots per size.
    """
    for name, value in dict(recovery=recovery, split=split, intervals=intervals, plan=plan, by_pilot=by_pilot).items():
        check_frame(name, value, minimum=0)
    confidence, metric = check_fraction("confidence", confidence), check_text("metric", metric)
    refits, pilots = check_int("refits", refits), check_int("pilots", pilots)
    rec: Any = recovery.assign(width=recovery.high - recovery.low)
    small = rec[rec.parameter.isin(["host", "host_batch"])]
    cwb: Any = split[split.family == "cwb"]
    azure: Any = split[split.family != "cwb"]
    regions = cwb.share_region.dropna()
    by_levels: Any = _widths(intervals).sort_values("levels")
    few = by_levels[by_levels.role == "batch"].iloc[0] if (by_levels.role == "batch").any() else by_levels.iloc[0]
    many = by_levels[by_levels.role == "host"].iloc[0] if (by_levels.role == "host").any() else by_levels.iloc[-1]
    few_ratio, many_ratio = few.ratio, many.ratio
    feasible: Any = plan[plan.feasible.astype(bool)]
    kept = int(((feasible.achieved_se - feasible.promised_se).abs() <= 3 * feasible.achieved_se_error).sum())
    pilot: Any = by_pilot
    smallest = pilot[(pilot.pilot_hosts == pilot.pilot_hosts.min()) | (pilot.pilot_batches == 2)]
    larger = pilot[(pilot.pilot_hosts >= 8) & (pilot.pilot_batches >= 3)]
    return Said(
        "* **Table 1 from pilots.** {covered_n} of {intervals} intervals ({covered:.0%}) hold the true sigma, at "
        "{confidence:.0%} confidence; {singular} of {endpoints} fits are singular. The request sigma's intervals are "
        "{request_width:.2f} wide (median), the host and host x batch sigmas' {small_width:.2f} against truths of "
        "{small_truths}: a pilot has few hosts and batches, and the number of levels, not of "
        "observations, limits those terms.\n"
        "* **Real benchmarks.** The VM is the largest part of the variance for {vm_largest} of {cwb} CWB metrics "
        "(median share {cwb_host:.0%} on the VM, {cwb_batch:.0%} on the iteration). On Azure's long-lived VMs the day, "
        "host x day and host terms carry medians of {azure_day:.0%}, {azure_host_day:.0%} and {azure_host:.0%}. CWB's "
        "region term (2 levels) is below 0.001 in {region_zero} of {region_fits} fits: read it as not measured, not "
        "absent.\n"
        "* **Profile or bootstrap** ({metric}). For the {many_term} sigma ({many_levels} levels) the profile interval "
        "is {many_ratio:.2f} times the bootstrap's width; for the {few_term} sigma ({few_levels} levels) "
        "{few_ratio:.2f} times (profile up to {few_profile:.3f}, bootstrap up to {few_boot:.3f}). {few_verdict} The "
        "profile took {profile_s:.1f} s, the bootstrap's {refits} refits {bootstrap_s:.1f} s.\n"
        "* **Designs.** {kept} of {feasible} feasible recommendations keep their promised SE within 3 Monte Carlo "
        "errors in simulation (the `plan` table).\n"
        "* **Pilot budget** ({pilots} pilots per size; a share's MC error is at most {share_mc:.2f}). With 2 batches "
        "or {min_hosts} hosts, {small_within} of pilots land within 10% of the promise "
        "and one pilot in ten recommends a design whose true SE is {small_tail:.2f} times the promise or more; "
        "{larger_text}",
        dict(
            covered_n=int(recovery.covered.sum()),
            intervals=len(recovery),
            covered=float(recovery.covered.mean()),
            confidence=confidence,
            singular=int(recovery.groupby("endpoint").singular.first().sum()),
            endpoints=int(recovery.endpoint.nunique()),
            request_width=float(rec[rec.parameter == "request"].width.median()),
            small_width=float(small.width.median()),
            small_truths=span(small.truth.min(), small.truth.max(), ".2f"),
            vm_largest=int((cwb.share_host >= cwb.filter(like="share_").max(axis=1)).sum()),
            cwb=len(cwb),
            cwb_host=float(cwb.share_host.median()),
            cwb_batch=float(cwb.share_batch.median()),
            azure_day=float(azure.share_batch.median()),
            azure_host_day=float(azure.share_host_batch.median()),
            azure_host=float(azure.share_host.median()),
            region_zero=int((regions < SUMMARY_METHOD["region_zero_below"]).sum()),
            region_fits=len(regions),
            metric=metric,
            many_term=str(many.role),
            many_levels=int(many.levels),
            many_ratio=float(many_ratio),
            few_term=str(few.role),
            few_levels=int(few.levels),
            few_ratio=float(few_ratio),
            few_profile=float(few.profile_high),
            few_boot=float(few.bootstrap_high),
            few_verdict=(
                "With few levels the bootstrap is the narrower (refits drawn from a fit with a small sigma rarely show "
                "a large one): quote the profile."
                if few_ratio > 1.1
                else "Here the two agree even with few levels."
            ),
            profile_s=float(intervals.attrs["seconds"]["profile"]),
            bootstrap_s=float(intervals.attrs["seconds"]["bootstrap"]),
            refits=refits,
            kept=kept,
            feasible=len(feasible),
            pilots=pilots,
            share_mc=share_mc(pilots),
            min_hosts=int(pilot.pilot_hosts.min()),
            small_within=span(smallest.within_10pct.min(), smallest.within_10pct.max()),
            small_tail=float(smallest.se_ratio_high.max()),
            larger_text=(
                f"from 8 hosts and 3 batches on, {span(larger.within_10pct.min(), larger.within_10pct.max())} do."
                if len(larger)
                else "no larger pilot was run."
            ),
        ),
    )


def share_mc(pilots: int) -> float:
    """The largest binomial Monte Carlo error of a share over ``pilots`` pilots: ``0.5 / sqrt(pilots)``, at a share of
    one half.

    Parameters
    ----------
    pilots : int
    """
    return 0.5 / check_int("pilots", pilots) ** 0.5


def oracle_said(oracle, *, target_se: float) -> Said:
    """The design the true sigmas recommend, which the pilot-budget study judges every pilot's recommendation
    against.

    Parameters
    ----------
    oracle : Allocation
        ``pilot_budget(...).oracle``.
    target_se : float
        The SE it was chosen to meet.
    """
    from perfstudy.design.standard_errors import Allocation

    oracle = check_instance("oracle", oracle, Allocation)
    if not oracle.feasible:
        raise ValueError(f"oracle: the {oracle.design} allocation is not feasible, so no design meets the target")
    return Said(
        "With the true sigmas, the cheapest design meeting SE <= {target:g} on {hosts} hosts is {design}: "
        "R = {requests}, T = {repetitions}, cost {cost:,.0f} (SE {se:.4f}).",
        dict(
            target=check_real("target_se", target_se, positive=True),
            hosts=int(cast("int", oracle.hosts)),
            design=oracle.design.replace("_", " "),
            requests=int(cast("int", oracle.requests)),
            repetitions=int(cast("int", oracle.repetitions)),
            cost=float(oracle.cost),
            se=float(oracle.standard_error),
        ),
    )
