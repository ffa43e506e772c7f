"""What notebook 06 says of Shivam et al. (USENIX ATC 2008) on the simulated workbench: the tables a reader is
shown (the surface's cost per policy, Table 4's D-optimal subsets) and the summary, written from this run's results
of :mod:`perfstudy.studies.shivam2008` as :class:`~perfstudy._lib.said.Said` whose literal text states method only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from perfstudy._lib.checks import check_fraction, check_frame, check_mapping
from perfstudy._lib.said import Said
from perfstudy.capacity.server_model import SimulatedServer

if TYPE_CHECKING:
    from pandas.io.formats.style import Styler

__all__ = ["true_peaks", "costs_view", "table4_view", "summary_said"]


def true_peaks(grid: pd.DataFrame) -> pd.DataFrame:
    """The simulated server's true peak rate at every sample of ``grid``, disks by daemons.

    Parameters
    ----------
    grid : DataFrame
        One row per sample: ``disks``, ``daemons``.
    """
    grid = check_frame("grid", grid, ["disks", "daemons"])
    rows: Any = grid[["disks", "daemons"]].to_numpy()
    rates = [SimulatedServer(disks=int(d), daemons=int(n)).true_peak_rate for d, n in rows]
    return grid.assign(true_peak_rate=rates).pivot(index="disks", columns="daemons", values="true_peak_rate")


def costs_view(costs: pd.DataFrame) -> Styler:
    """The cost of mapping the surface per policy, seeded or not, for display.

    Parameters
    ----------
    costs : DataFrame
        :func:`perfstudy.studies.shivam2008.surface_costs`.
    """
    costs = check_frame("costs", costs, ["policy", "seeding", "hours", "max_error", "converged"])
    named = {"hours": "hours (mean)", "max_error": "worst error", "converged": "share converged"}
    shown = costs.assign(seeding=costs.seeding.map({True: "seeded", False: "from 10 req/s"})).rename(columns=named)
    formats = {"hours (mean)": "{:.1f}", "worst error": "{:.1%}", "share converged": "{:.0%}"}
    view: Any = shown.style.hide(axis="index").format(formats)
    return cast("Styler", view)


def table4_view(table4: pd.DataFrame) -> Styler:
    """Table 4 for display, every sample of each D-optimal subset shown whole (the subset is the result).

    Parameters
    ----------
    table4 : DataFrame
        :func:`perfstudy.studies.shivam2008.table4`.
    """
    table4 = check_frame("table4", table4, ["chosen", "mape_measured", "mape_true", "hours"])
    subset = "D-optimal subset (disks × daemons)"
    chosen = [", ".join(f"{int(d)}×{int(m)}" for d, m in samples) for samples in table4.chosen]
    named = {"chosen": subset, "mape_measured": "MAPE, measured peaks", "mape_true": "MAPE, true peaks"}
    shown = table4.assign(chosen=chosen).rename(columns=named)
    formats = {"hours": "{:.1f}", "MAPE, measured peaks": "{:.1%}", "MAPE, true peaks": "{:.1%}"}
    view: Any = shown.style.hide(axis="index").format(formats)
    return cast("Styler", view.set_properties(subset=[subset], **{"white-space": "normal", "min-width": "24em"}))


def summary_said(calibration, costs, growth, table4, *, search) -> Said:
    """Notebook 06's summary: the calibration against the promised confidence, the worst error and convergence over
    the surface, test loads against the peak's size, what seeding changes, and Table 4's MAPE.

    Parameters
    ----------
    calibration : dict
        :func:`perfstudy.studies.shivam2008.calibration`.
    costs : DataFrame
        :func:`perfstudy.studies.shivam2008.surface_costs`.
    growth : DataFrame
        :func:`perfstudy.studies.shivam2008.growth`.
    table4 : DataFrame
        :func:`perfstudy.studies.shivam2008.table4`.
    search : dict
        The keyword arguments the searches were run with: their ``target_accuracy`` and ``confidence`` are the
        promise the calibration is read against.
    """
    calibration = check_mapping("calibration", calibration)
    search = check_mapping("search", search)
    missing = sorted({"target_accuracy", "confidence"} - set(search))
    if missing:
        raise ValueError(f"search: name the searches' promise; {missing} missing")
    by: Any = check_frame("costs", costs, ["policy", "seeding", "hours"]).set_index(["policy", "seeding"])
    saving = {p: 1 - by.loc[(p, True), "hours"] / by.loc[(p, False), "hours"] for p in costs.policy.unique()}
    loads: Any = check_frame("growth", growth).pivot(index="scale", columns="policy", values="test_loads")
    scales = loads.index.to_numpy()
    table4 = check_frame("table4", table4, ["mape_measured", "samples"])
    return Said(
        "* **Calibration.** On the example server {within:.0%} of {searches} searches report a peak within "
        "{accuracy:.0%} of the true one (promised: {confidence:.0%}); the worst error is {calibration_worst:.1%}. "
        "Over the whole surface the worst error per policy is {worst_surface} (`worst error` above), and the share of "
        "seeded searches that converged is {converged}.\n"
        "* **Cost against the peak's size.** From a {low}x to a {high}x server, Binsearch's test loads go from "
        "{bin_low} to {bin_high} and Linear's from {lin_low} to {lin_high}.\n"
        "* **Seeding** from the nearest sample changes the cost of mapping the surface by {seeding}.\n"
        "* **Table 4.** A quadratic fitted to a D-optimal subset misses the measured peaks by a MAPE of {mape} "
        "({sizes} samples).",
        dict(
            within=calibration["within_target"],
            searches=calibration["searches"],
            accuracy=check_fraction("search['target_accuracy']", search["target_accuracy"]),
            confidence=check_fraction("search['confidence']", search["confidence"]),
            calibration_worst=calibration["max_error"],
            worst_surface=", ".join(
                f"{p} {by.loc[(p, s), 'max_error']:.1%} ({'seeded' if s else 'unseeded'})" for p, s in by.index
            ),
            converged=", ".join(f"{p} {by.loc[(p, s), 'converged']:.0%}" for p, s in by.index if s),
            low=int(scales[0]),
            high=int(scales[-1]),
            bin_low=int(loads["binsearch"].iloc[0]),
            bin_high=int(loads["binsearch"].iloc[-1]),
            lin_low=int(loads["linear"].iloc[0]),
            lin_high=int(loads["linear"].iloc[-1]),
            seeding=", ".join(f"{0.0 - s:+.0%} for {p}" for p, s in saving.items()),  # 0.0 - 0.0 is +0, not -0
            mape=", ".join(f"{m:.1%}" for m in table4.mape_measured),
            sizes=", ".join(str(int(k)) for k in table4.samples),
        ),
    )
