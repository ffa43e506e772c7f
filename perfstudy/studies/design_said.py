"""What notebook 01 says of Bakshy & Frachtenberg's design standard errors (WWW 2015, section 4): whether the
closed forms reproduce Table 3's SE column, and whether Figure 4's simulated points agree with them within their
Monte Carlo errors. The checks are computed here from this run's sweep; the sentences are
:class:`~perfstudy._lib.said.Said` whose literal text states method only.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from scipy import stats

from perfstudy._lib.checks import check_instance, check_int
from perfstudy._lib.said import Said
from perfstudy._lib.types import Seed
from perfstudy.design.model import VarianceComponents
from perfstudy.design.simulated_errors import standard_error_sweep

__all__ = ["z_checks", "recheck_largest", "summary_said"]


def z_checks(sweep: pd.DataFrame) -> dict:
    """Figure 4's z's, ``(simulated - closed form) / MC error``, tested as N(0, 1): the Bonferroni p of the largest
    ``|z|`` among the points (``bonferroni``), and the sum of ``z^2`` (``statistic``) against chi-square on as many
    degrees of freedom (``df``, ``p``).

    Parameters
    ----------
    sweep : DataFrame
        :func:`perfstudy.studies.bakshy2015.figure4`'s frame (its ``z``).
    """
    sweep = check_instance("sweep", sweep, pd.DataFrame)
    z = sweep.z.abs()
    points = len(sweep)
    chi2 = float((sweep.z**2).sum())
    return dict(
        bonferroni=float(min(1.0, points * 2 * stats.norm.sf(z.max()))),
        statistic=chi2,
        df=points,
        p=float(stats.chi2.sf(chi2, points)),
    )


def recheck_largest(
    sweep: pd.DataFrame, components: VarianceComponents, *, repeats: int, experiments: int, rng: Seed = None
) -> dict:
    """The point of largest ``|z|`` simulated again ``repeats`` times on fresh streams: its z's should be N(0, 1)
    if the Monte Carlo error is right. Calibrated when their mean is within 3 SE of 0 (``3 / sqrt(n)``) and their
    SD within 3 SE of 1 (``3 / sqrt(2 (n - 1))``, the SD of a normal sample's SD).

    Parameters
    ----------
    sweep : DataFrame
        :func:`perfstudy.studies.bakshy2015.figure4`'s frame.
    components : VarianceComponents
    repeats : int
        Fresh simulations of the point.
    experiments : int
        Simulated experiments per simulation.
    rng : None, int, SeedSequence or Generator
    """
    sweep = check_instance("sweep", sweep, pd.DataFrame)
    check_instance("components", components, VarianceComponents)
    repeats, experiments = check_int("repeats", repeats, minimum=2), check_int("experiments", experiments)
    worst: Any = sweep.loc[sweep.z.abs().idxmax()]
    again = standard_error_sweep(
        components,
        designs=(worst.design,),
        hosts=[int(worst.hosts)],
        requests=[int(worst.requests)] * repeats,
        experiments=experiments,
        rng=rng,
    ).to_frame()
    mean, sd = float(again.z.mean()), float(again.z.std(ddof=1))
    return dict(
        design=worst.design,
        hosts=int(worst.hosts),
        requests=int(worst.requests),
        z=float(worst.z),
        repeats=repeats,
        mean_z=mean,
        sd_z=sd,
        calibrated=bool(abs(mean) <= 3 / repeats**0.5 and abs(sd - 1) <= 3 / (2 * (repeats - 1)) ** 0.5),
    )


def summary_said(table3: pd.DataFrame, sweep: pd.DataFrame, checks: dict, recheck: dict) -> Said:
    """Notebook 01's summary: Table 3's SE column from the closed forms, Figure 4 against them, and what balance
    buys at the paper's 16 hosts and 512 requests.

    Parameters
    ----------
    table3 : DataFrame
        :func:`perfstudy.studies.bakshy2015.table3_standard_errors`.
    sweep : DataFrame
        :func:`perfstudy.studies.bakshy2015.figure4`'s frame.
    checks : dict
        :func:`z_checks`.
    recheck : dict
        :func:`recheck_largest`.
    """
    table: Any = check_instance("table3", table3, pd.DataFrame)
    sweep = check_instance("sweep", sweep, pd.DataFrame)
    check_instance("checks", checks, dict)
    check_instance("recheck", recheck, dict)
    z = sweep.z.abs()
    closed = bool(table.closed_form.round(2).eq(table.paper).all())
    by_design = table.set_index("design").closed_form
    calibrated, bonferroni, chi2_p = recheck["calibrated"], checks["bonferroni"], checks["p"]
    return Said(
        "- The closed forms of section 4.2.1 {table3_verdict} Table 3's SE column and agree with Eq. 5 on explicit "
        "schedules (largest relative gap {eq5_gap:.1e}).\n"
        "- Simulated experiments against the closed forms over {points} points of Figure 4, each point on its own "
        "spawned stream: median |z| {median:.2f}, largest {largest:.2f} at {worst_point} (Bonferroni p = {p:.3f}); "
        "the sum of $z^2$ is {chi2:.1f} on {points} degrees of freedom (p = {chi2_p:.2f}). The largest point, "
        "simulated again {repeats} times on fresh streams, gives z with mean {recheck_mean:.2f} and SD "
        "{recheck_sd:.2f} (0 and 1 expected). {fig4_verdict}\n"
        "- Balance is worth more than size: at {hosts} hosts and {requests} requests the fully balanced design's SE is "
        "{ratio:.2f} of the unbalanced design's.",
        dict(
            table3_verdict="reproduce" if closed else "do not reproduce",
            eq5_gap=float(((table.eq5_from_schedule - table.closed_form).abs() / table.closed_form).max()),
            points=len(sweep),
            median=float(z.median()),
            largest=float(z.max()),
            worst_point=(
                f"{recheck['design'].replace('_', ' ')}, {recheck['hosts']} hosts, {recheck['requests']} requests"
            ),
            p=bonferroni,
            chi2=checks["statistic"],
            chi2_p=chi2_p,
            repeats=recheck["repeats"],
            recheck_mean=recheck["mean_z"],
            recheck_sd=recheck["sd_z"],
            fig4_verdict=(
                "The Monte Carlo error is right for this estimator ($\\hat\\delta$ is normal, so the SD's error is "
                "$\\sigma / \\sqrt{2(n-1)}$) and the points agree with the closed forms."
                if calibrated and bonferroni >= 0.05 and chi2_p >= 0.05
                else "The Monte Carlo error is right for this estimator, so the largest |z| is a chance extreme of the "
                "first draw, not a bias of the closed form."
                if calibrated and chi2_p >= 0.05
                else "The z's are not N(0, 1): the closed forms or the Monte Carlo error do not hold here."
            ),
            hosts=16,
            requests=512,
            ratio=float(by_design["fully_balanced"] / by_design["unbalanced"]),
        ),
    )
