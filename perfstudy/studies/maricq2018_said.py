"""What notebooks 03 and 05 say of Maricq et al. (OSDI 2018) on public data: the survey a reader is shown, Figure 3's
shares, the blog's standard-error trap, the CWB ranking, the short-lived fleet and each notebook's summary. Written
from this run's results of :mod:`perfstudy.studies.maricq2018` and :mod:`perfstudy.studies.kolaczkowski`, as
:class:`~perfstudy._lib.said.Said` whose literal text states method only.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from perfstudy._lib.checks import check_frame, check_instance, check_int, check_mapping
from perfstudy._lib.format import span
from perfstudy._lib.said import Said
from perfstudy.diagnostics.hosts import rank_hosts
from perfstudy.studies.maricq2018 import (
    PUBLISHED,
    DegradedCopyRanking,
    NormalityTests,
    cov_summary,
    whole_series_reject_share,
)

if TYPE_CHECKING:
    from pandas.io.formats.style import Styler

__all__ = [
    "survey_view",
    "figure3_said",
    "trap_said",
    "diagnostics_said",
    "ranking_said",
    "short_lived_said",
    "repetitions_said",
]

_SURVEY = {
    "dataset": "dataset",
    "n": "n",
    "cov": "CoV",
    "shapiro_p_value": "Shapiro-Wilk p",
    "adf_p_value": "ADF p",
    "se_inflation": "SE inflation",
    "ess": "effective n",
}


def survey_view(survey: pd.DataFrame, rows: int = 5) -> Styler:
    """The survey's first ``rows`` series in the columns a reader compares (every column stays in ``survey``).

    Parameters
    ----------
    survey : DataFrame
        :func:`perfstudy.studies.public_data.survey_datasets`.
    rows : int
        Series shown.
    """
    check_frame("survey", survey, list(_SURVEY) + ["notes"], minimum=0)
    shown: Any = survey.head(check_int("rows", rows))[[*_SURVEY, "notes"]]
    shown = shown.rename(columns=_SURVEY)
    formats = {"CoV": "{:.2%}", "Shapiro-Wilk p": "{:.3g}", "ADF p": "{:.3g}", "SE inflation": "{:.2f}"}
    view: Any = shown.style.hide(axis="index").format(formats | {"effective n": "{:,.0f}"})
    return cast("Styler", view)


def _normality(tests, window) -> tuple[dict, dict]:
    """Figure 3's shares, and the fields both its sentence and the summary state: the across-host share and tests
    beside the paper's counts, and the within-host share of windows."""
    shares = check_instance("tests", tests, NormalityTests).shares()
    return shares, dict(
        across=shares["across_reject_share"],
        across_tests=shares["across_tests"],
        paper_rejected=PUBLISHED["across_rejected"],
        paper_tested=PUBLISHED["across_configurations"],
        within=shares["within_normal_share"],
        windows=shares["within_windows"],
        window=check_int("window", window),
    )


def _trap(trap) -> tuple[pd.DataFrame, dict]:
    """The trap's table, checked, and the medians both its sentence and the summary state."""
    trap = check_frame("trap", trap, ["too_narrow", "naive_95_coverage", "corrected_vs_blocks"])
    return trap, dict(
        factor=float(trap.too_narrow.median()),
        coverage=float(trap.naive_95_coverage.median()),
        recovered=float(trap.corrected_vs_blocks.median()),
    )


def figure3_said(tests: NormalityTests, *, window: int) -> Said:
    """Figure 3 in a sentence: normality rejected across hosts, normal windows within one host, against the paper.

    Parameters
    ----------
    tests : NormalityTests
        :func:`perfstudy.studies.maricq2018.figure3_normality`.
    window : int
        The runs per within-host window it was run with.
    """
    shares, normality = _normality(tests, window)
    return Said(
        "Across VMs normality is rejected for {across:.1%} of {across_tests} configurations (OSDI: {paper_rejected} of "
        "{paper_tested}); {constant} constant groups have no test. Within one VM {within:.1%} of {windows:,} windows "
        "of {window} runs look normal (OSDI: roughly half); {constant_windows} constant windows have no test.",
        normality | dict(constant=shares["across_constant_groups"], constant_windows=shares["within_constant_windows"]),
    )


def trap_said(trap: pd.DataFrame) -> Said:
    """The blog's trap in a sentence: how many times too narrow the naive interval is, and what Eq. 6 recovers.

    Parameters
    ----------
    trap : DataFrame
        :func:`perfstudy.studies.kolaczkowski.standard_error_trap`.
    """
    trap, medians = _trap(trap)
    return Said(
        "The naive interval is too narrow by a median factor of {factor:.1f} (range {low:.1f} to {high:.1f}) on "
        "{series} long-lived VM series; a naive 95% interval covers the mean about {coverage:.0%} of the time. "
        "Eq. 6 recovers a median {recovered:.2f} of the batch-means SE.",
        medians | dict(low=float(trap.too_narrow.min()), high=float(trap.too_narrow.max()), series=len(trap)),
    )


def diagnostics_said(survey: pd.DataFrame, tests: NormalityTests, stationarity, trap: pd.DataFrame, *, window) -> Said:
    """Notebook 03's summary: variability against the hardware CoV, normality, stationarity (SAP's labels as the
    check) and the trap, with what to do about each.

    Parameters
    ----------
    survey : DataFrame
        :func:`perfstudy.studies.public_data.survey_datasets`.
    tests : NormalityTests
        :func:`perfstudy.studies.maricq2018.figure3_normality`.
    stationarity : dict
        :func:`perfstudy.studies.maricq2018.figure4_stationarity` of ``survey``.
    trap : DataFrame
        :func:`perfstudy.studies.kolaczkowski.standard_error_trap`.
    window : int
        The runs per within-host window.
    """
    check_frame("survey", survey, ["family", "benchmark", "cov", "shapiro_reject"])
    _, normality = _normality(tests, window)
    stationarity = check_mapping("stationarity", stationarity)
    series, sap = check_frame("stationarity['series']", stationarity["series"]), stationarity["sap"]["non-stationary"]
    _, medians = _trap(trap)
    failing = series[~series.adf_reject.astype(bool)]
    return Said(
        "* **Variability.** {below:.0%} of the series sit below the {hardware:.0%} CoV that Maricq et al. attribute "
        "to hardware; the PT4Cloud CoVs are recorded per file (`pt4cloud_cov`).\n"
        "* **Normality.** Across VMs normality is rejected for {across:.0%} of {across_tests} configurations "
        "(CloudLab: {paper_rejected} of {paper_tested}): use nonparametric intervals. Within one VM, {within:.0%} of "
        "{windows:,} windows of {window} runs look normal (CloudLab: roughly half); whole long series are rejected "
        "{whole:.0%} of the time, because with thousands of points Shapiro-Wilk rejects departures too small to matter.\n"
        "* **Stationarity.** {stationary:.0%} of the series in time order pass ADF. Of SAP's series, {sap_regression} "
        "labelled *Regression* fail it and {sap_other} with other labels; {azure_failing} long-lived Azure series fail "
        "it too.\n"
        "* **Independence and the trap.** On the long-lived Azure VMs $s/\\sqrt{{N}}$ is too small by a median factor "
        "of {factor:.1f}, so a naive 95% interval covers the mean about {coverage:.0%} of the time; the blog's Eq. 6 "
        "recovers a median {recovered:.2f} of the batch-means width. Report it, or batch means, instead of "
        "$s/\\sqrt{{N}}$.",
        normality
        | medians
        | dict(
            below=cov_summary(survey)["share_below_hardware"],
            hardware=PUBLISHED["hardware_cov"],
            whole=whole_series_reject_share(survey),
            stationary=stationarity["stationary_share"],
            sap_regression=int(sap.get("Regression", 0)),
            sap_other=int(sap.drop("Regression", errors="ignore").sum()),
            azure_failing=int((failing.family == "azure-vm-noise").sum()),
        ),
    )


def ranking_said(fig7: DegradedCopyRanking) -> Said:
    """Figure 7 on the CWB fleet in a sentence: the share called unusual, the degraded copy's rank, and the shape of
    the elimination curve (steeper in its first third than after it, or not).

    Parameters
    ----------
    fig7 : DegradedCopyRanking
        :func:`perfstudy.studies.maricq2018.figure7_cwb`.
    """
    fig7 = check_instance("fig7", fig7, DegradedCopyRanking)
    curve = cast("Any", fig7.elimination).curve.statistic.to_numpy()
    third = max(1, len(curve) // 3)
    steep = curve[0] - curve[third] > curve[third] - curve[-1]
    return Said(
        "{significant:.0%} of the {servers} VMs differ significantly from the rest (permutation p below {alpha:g}). "
        "The degraded copy of the VM ranked {before} ranks {after} of {with_copy}. Over {removals} removals the MMD of "
        "the removed VM goes from {first:.3g} to {at_third:.3g} in the first {first_part} and to {last:.3g} by the "
        "last: {shape}",
        dict(
            significant=float(fig7.ranking.reject.mean()),
            servers=len(fig7.ranking),
            alpha=inspect.signature(rank_hosts).parameters["alpha"].default,  # figure7_cwb ranks at the default
            before=int(fig7.rank_before),
            after=int(fig7.rank_after),
            with_copy=len(fig7.with_copy),
            removals=len(curve),
            first=float(curve[0]),
            at_third=float(curve[third]),
            first_part="removal" if third == 1 else f"{third} removals",
            last=float(curve[-1]),
            shape=(
                "steeply at first, then flatter, so the first few removed are the unrepresentative ones."
                if steep
                else "no steeper at first than later, so the curve shows no clear set of unrepresentative VMs here."
            ),
        ),
    )


def short_lived_said(fleet) -> Said:
    """Whether the Azure short-lived fleet could be ranked, and why not.

    Parameters
    ----------
    fleet : dict
        :func:`perfstudy.studies.maricq2018.short_lived_ranking`.
    """
    fleet = check_mapping("fleet", fleet)
    return Said(
        "{verdict} The Azure short-lived fleet has {vms:,} VMs, {single:,} of which ran once.",
        dict(
            verdict=(
                "The short-lived fleet cannot be ranked: ranking a server needs at least two runs on it."
                if fleet["refused"]
                else "The short-lived fleet was ranked."
            ),
            vms=int(fleet["vms"]),
            single=int(fleet["single_run"]),
        ),
    )


def repetitions_said(figure6, table4: pd.DataFrame, copies: pd.DataFrame, fig7: DegradedCopyRanking) -> Said:
    """Notebook 05's summary: Figure 6's estimates against the CoV, Table 4's inflation and Figure 7's rankings.

    Parameters
    ----------
    figure6 : dict
        The ``headline`` of :func:`perfstudy.studies.maricq2018.figure6_cov_vs_repetitions`.
    table4 : DataFrame
        :func:`perfstudy.studies.maricq2018.table4_degraded_server`.
    copies : DataFrame
        :func:`perfstudy.studies.maricq2018.degraded_copy_ranking`.
    fig7 : DegradedCopyRanking
        :func:`perfstudy.studies.maricq2018.figure7_cwb`.
    """
    f6 = check_mapping("figure6", figure6)
    t4, copies = check_frame("table4", table4, ["inflation"]), check_frame("copies", copies, ["copy_rank"])
    fig7 = check_instance("fig7", fig7, DegradedCopyRanking)
    return Said(
        "* The order-statistic CI needs no distributional assumption; with CONFIRM's rounding the indices shift by "
        "one.\n"
        "* **Figure 6.** CONFIRM estimated {estimated} of {series} series; the CoV orders the estimates only roughly "
        "(Spearman {spearman:.2f}), and series below {tens_cov:.0%} CoV need a median of {below_median:.0f} runs "
        "(Maricq et al.: tens).\n"
        "* **Table 4.** One degraded server multiplies the runs needed by {inflation} on the Azure benchmarks "
        "(Maricq et al.: {paper_low:.1f} to {paper_high:.1f} times), because it widens the distribution the median is "
        "taken from.\n"
        "* **Figure 7.** The degraded copy ranks first on {copy_first} of {benchmarks} Azure benchmarks. On the CWB "
        'fleet {significant:.0%} of {servers} VMs "differ significantly": with per-VM consistency the p-value is a '
        "poor guide, and the elimination curve says how many to remove.",
        dict(
            estimated=f6["estimated"],
            series=f6["series"],
            spearman=f6["spearman_cov_estimate"],
            tens_cov=PUBLISHED["tens_of_repetitions_cov"],
            below_median=f6["median_estimate_cov_below_4pct"],
            inflation=span(t4.inflation.min(), t4.inflation.max(), ".1f") + " times",
            paper_low=PUBLISHED["table4_inflation"][0],
            paper_high=PUBLISHED["table4_inflation"][1],
            copy_first=int((copies.copy_rank == 1).sum()),
            benchmarks=len(copies),
            significant=float(fig7.ranking.reject.mean()),
            servers=len(fig7.ranking),
        ),
    )
