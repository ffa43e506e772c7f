"""What notebook 08 says of ``compare`` on public A/A pairs: the Type I error table a reader is shown and the
summary, written from this run's :func:`perfstudy.studies.versions.calibration_grid` as
:class:`~perfstudy._lib.said.Said` whose literal text states method only.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from perfstudy._lib.checks import check_frame, check_real
from perfstudy._lib.format import span
from perfstudy._lib.said import Said
from perfstudy.studies.montecarlo import type1_limit

__all__ = ["MC_ERRORS", "type1_table", "summary_said"]

#: a rate is "within 5%" when it is at most 5% plus this many binomial Monte Carlo errors at the nominal rate
MC_ERRORS = 3.0

_COLUMNS = ["source", "slowdown", "method", "pairs", "rate", "clusters", "layout"]


def _results(results) -> Any:
    return check_frame("results", results, _COLUMNS, numeric=("slowdown", "pairs", "rate", "clusters"))


def type1_table(results: pd.DataFrame) -> pd.DataFrame:
    """The A/A false-positive rate per layout, clusters a side and source (rows) and method (columns).

    Parameters
    ----------
    results : DataFrame
        :func:`perfstudy.studies.versions.calibration_grid`.
    """
    every: Any = _results(results)
    aa = every[every.slowdown == 0]
    if not len(aa):
        raise ValueError("results: no A/A rows (slowdown 0); include 0.0 among the slowdowns")
    return aa.pivot_table(index=["layout", "clusters", "source"], columns="method", values="rate")


def _rates(frame) -> str:
    return "; ".join(f"{r.source} {r.rate:.1%} ({r.pairs} pairs)" for r in frame.itertuples())


def summary_said(results: pd.DataFrame, *, errors: float = MC_ERRORS) -> Said:
    """Notebook 08's summary: the interleaved A/A rates of perfstudy and of the iid methods against 5% plus
    ``errors`` Monte Carlo errors, the power at the smallest planted slowdown on the Azure pairs, and the sequential
    layout's A/A rates.

    Parameters
    ----------
    results : DataFrame
        :func:`perfstudy.studies.versions.calibration_grid`, with slowdown 0 among its slowdowns.
    errors : float
        Monte Carlo errors allowed above 5%.
    """
    table: Any = _results(results)
    errors = check_real("errors", errors, nonnegative=True)
    null: Any = table[table.slowdown == 0].copy()
    null["within"] = [r.rate <= type1_limit(int(r.pairs), errors=errors) for r in null.itertuples()]
    aa = null[null.layout == "interleaved"]
    if not len(aa):
        raise ValueError("results: no interleaved A/A rows (slowdown 0); include 0.0 among the slowdowns")
    ours, others = aa[aa.method == "perfstudy"], aa[aa.method.isin(["iid bootstrap", "pyperf"])]
    k = int(table.clusters.min())
    interleaved = table[(table.layout == "interleaved") & (table.slowdown > 0) & (table.clusters == k)]
    smallest = interleaved[interleaved.slowdown == interleaved.slowdown.min()]
    azure = smallest[smallest.source.str.startswith("azure")]
    ours_power, iid_power = azure[azure.method == "perfstudy"].rate, azure[azure.method != "perfstudy"].rate
    seq = null[(null.layout == "sequential") & (null.method == "perfstudy")]
    return Said(
        "* **Interleaved A/A, perfstudy:** {ours_within} of {ours_n} source x batch-count cells within 5% + {errors:g} "
        "MC SE ({ours_rates}, with {k} batches a side). The iid bootstrap and pyperf's t-test: {others_within} of "
        "{others_n} within ({others_rates}).\n"
        "* **Power** at a {slowdown:.0%} slowdown, {k} batches a side, Azure: perfstudy {ours_power}, the iid methods "
        "{iid_power}. {power_reading}\n"
        "* **Sequential A/A, perfstudy:** {seq_rates}. {seq_reading}",
        dict(
            ours_within=int(ours.within.sum()),
            ours_n=len(ours),
            errors=errors,
            ours_rates=_rates(ours[ours.clusters == k]),
            k=k,
            others_within=int(others.within.sum()),
            others_n=len(others),
            others_rates=_rates(others[others.clusters == k].assign(source=lambda f: f.method + ", " + f.source)),
            slowdown=float(smallest.slowdown.min()) if len(smallest) else 0.0,
            ours_power=span(ours_power.min(), ours_power.max()) if len(azure) else "n/a",
            iid_power=span(iid_power.min(), iid_power.max()) if len(azure) else "n/a",
            power_reading=(
                "Counting batches, not values, costs power that the iid methods only appear to have."
                if len(azure) and ours_power.max() < iid_power.min()
                else "Here the methods see it about equally often."
            ),
            seq_rates="; ".join(f"{r.source} {r.rate:.1%} with {r.clusters} batches" for r in seq.itertuples()),
            seq_reading=(
                "Where A's batches all come before B's the drift is read as a change: interleave A and B."
                if not seq.within.all()
                else "No source drifted enough here to be called a change."
            ),
        ),
    )
