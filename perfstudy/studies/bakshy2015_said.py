"""What notebook 02 says of Bakshy & Frachtenberg's section 5 (WWW 2015), and the tables a person reads there.

Every function takes results of this run (:func:`perfstudy.studies.bakshy2015.table3`,
:mod:`perfstudy.studies.table3_readings`, :func:`perfstudy.studies.bakshy2015_real.real_aa`) and returns either the
sentences about them as :class:`~perfstudy._lib.said.Said`, whose literal text states method only, or a table
formatted for display. The numbers are the results'; the words are chosen here from them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from perfstudy._lib.checks import check_frame, check_instance, check_int, check_mapping, check_real
from perfstudy._lib.said import Said
from perfstudy.studies.bakshy2015 import TABLE_3_VARIANTS, OriginCheck
from perfstudy.studies.bakshy2015_real import BOOTSTRAP_FOR_DESIGN
from perfstudy.studies.montecarlo import type1_limit
from perfstudy.studies.table3_readings import READINGS, SAME_LAW_DESIGNS, DigitEvidence

if TYPE_CHECKING:
    from pandas.io.formats.style import Styler

__all__ = [
    "table3_views",
    "favoured_reading",
    "table3_said",
    "readings_view",
    "pairs_view",
    "host_block_said",
    "leads_view",
    "rescaled_rows",
    "rescaled_view",
    "rescaled_said",
    "origin_view",
    "fig6_said",
    "trust_said",
    "summary_said",
]

STATED, FIGURE_7 = READINGS  # 10,000 (section 5.2) and 500 (Figure 7) A/A tests a printed rate
#: a rate within this many combined Monte Carlo errors of the paper's is said to agree with it
WITHIN = 3.0


def _frames(**frames) -> None:
    for name, value in frames.items():
        check_frame(name, value, minimum=0)


def _readings(readings) -> None:
    """Refuses ``readings`` unless it holds a :func:`~perfstudy.studies.table3_readings.reading_summary` per reading."""
    if not isinstance(readings, dict) or any(not isinstance(readings.get(n), dict) for n in READINGS):
        raise TypeError(f"readings: expected {{tests: reading_summary(...)}} for tests in {READINGS}")


def _name(row) -> str:
    return " / ".join(row).replace("_", " ")


def _percent(values) -> list[str]:
    return [f"{v:.1%}" for v in values]


def _indexed(table3: pd.DataFrame) -> pd.DataFrame:
    return table3.set_index(["design", "bootstrap"])


def table3_views(table3: pd.DataFrame) -> tuple[Styler, Styler]:
    """Table 3 as a person reads it: the Type I error of each implementation beside the paper's, and the SEs.

    Parameters
    ----------
    table3 : DataFrame
        :func:`perfstudy.studies.bakshy2015.table3`.
    """
    check_frame("table3", table3, minimum=0)
    rows = table3.design.str.replace("_", " ") + " / " + table3.bootstrap.str.replace("_", " ")
    type1 = pd.DataFrame(
        {
            "design / bootstrap": rows,
            "paper": _percent(table3.paper_type1_error),
            "normal": _percent(table3.type1_error),
            "t": _percent(table3.type1_error_t),
            "counts": _percent(table3.type1_error_counts),
            "counts, t": _percent(table3.type1_error_counts_t),
            "closest": table3.closest_variant.str.replace("_", ", "),
            "distance (MC errors)": table3.closest_distance_mc.map("{:.1f}".format),
            "paper range": [
                "" if low != low else f"{low:.1%} to {high:.1%}"
                for low, high in zip(table3.paper_type1_low, table3.paper_type1_high)
            ],
        }
    )
    se = pd.DataFrame(
        {
            "design / bootstrap": rows,
            "clusters per condition": table3.clusters.astype(int),
            "paper .SE": table3.paper_mean_se.map("{:.2f}".format),
            "mean SE": table3.mean_estimated_se.map("{:.4f}".format),
            "mean SE, counts": table3.mean_estimated_se_counts.map("{:.4f}".format),
            "paper SE": table3.paper_se.map("{:.2f}".format),
            "true SE": table3.true_se.map("{:.4f}".format),
            "analytic SE": table3.analytic_se.map("{:.4f}".format),
        }
    )
    return (
        type1.style.hide(axis="index").set_caption("Type I error of 95% intervals (A/A tests)"),
        se.style.hide(axis="index").set_caption("Standard errors of delta-hat (y on the model's scale)"),
    )


def favoured_reading(digits: DigitEvidence, pairs: pd.DataFrame) -> int | None:
    """The reading of the paper's tests a row that the evidence favours, or None where its checks disagree.

    Each check (the printed digits, and each pair of one law) counts for :data:`FIGURE_7` tests when what it
    observed is rare (probability under 5%) under :data:`STATED` tests and not under :data:`FIGURE_7`; the
    reading is named only when every check agrees.

    Parameters
    ----------
    digits : DigitEvidence
        :func:`perfstudy.studies.table3_readings.digit_evidence` of the paper's rates.
    pairs : DataFrame
        :func:`perfstudy.studies.table3_readings.same_law_pairs`.
    """
    check_instance("digits", digits, DigitEvidence)
    check_frame("pairs", pairs, minimum=0)
    by_pair = pairs.set_index(["design", "paper_tests"])
    checks = [digits.probability[STATED] < 0.05 <= digits.probability[FIGURE_7]] + [
        by_pair.loc[(d, STATED)].gap_probability < 0.05 <= by_pair.loc[(d, FIGURE_7)].gap_probability
        for d in SAME_LAW_DESIGNS
    ]
    return FIGURE_7 if all(checks) else STATED if not any(checks) else None


def _window(low: float, high: float) -> str:
    return f"{low:.2%} to {high:.2%}" if low <= high else f"none ({low:.2%} above {high:.2%})"


def _pairs_text(pairs: pd.DataFrame, experiments: int) -> str:
    by_pair = pairs.set_index(["design", "paper_tests"])
    return " ".join(
        f"*{design.replace('_', ' ')}*: the paper's request {p.paper_request:.1%} and iid {p.paper_iid:.1%} differ by "
        f"{100 * abs(p.paper_request - p.paper_iid):.1f} points, which two rates of one law do with probability "
        f"{p.gap_probability:.2g} from {STATED:,} tests each and "
        f"{by_pair.loc[(design, FIGURE_7)].gap_probability:.2f} from {FIGURE_7}. Our rates within 3 MC errors of both: "
        f"{_window(p.window_low, p.window_high)} under {STATED:,}, "
        f"{_window(*by_pair.loc[(design, FIGURE_7), ['window_low', 'window_high']])} under {FIGURE_7}. "
        f"The closed form gives {p.analytic_type1_error:.2%}, at most {p.analytic_distance_mc:.1f} MC errors from our "
        f"request and iid rows ({p.request:.2%}, {p.iid:.2%}); "
        + (
            f"a rate from {experiments:,} tests at it falls in the {STATED:,} window with probability "
            f"{p.chance_both_within:.2f}."
            if p.reachable
            else f"under {STATED:,} no rate can match both rows."
        )
        for (design, n), p in cast(Any, by_pair.iterrows())
        if n == STATED
    )


def _reading_text(t3: pd.DataFrame, pairs: pd.DataFrame, summary: dict, tests: int) -> str:
    """One reading's sentence: rows within, rows unreachable and why, rows farther and where their cause is."""
    by_pair = pairs.set_index(["design", "paper_tests"])
    suffix = "" if tests == STATED else f"_{tests}"

    def why(row) -> str:
        r = t3.loc[row]
        if (
            r.paper_type1_low == r.paper_type1_low
            and not r.paper_type1_low <= r.paper_type1_error <= r.paper_type1_high
        ):
            return (
                f"{_name(row)} ({r.paper_type1_error:.1%}, outside the {r.paper_type1_low:.1%} to "
                f"{r.paper_type1_high:.1%} its .SE and SE allow)"
            )
        return f"{_name(row)} (its pair's window is empty)"

    def cause(row) -> str:
        design, bootstrap = row
        if design in SAME_LAW_DESIGNS and bootstrap in ("request", "iid"):
            chance = by_pair.loc[(design, tests)].chance_both_within
            return (
                f"; one law with its {'iid' if bootstrap == 'request' else 'request'} row, whose window a rate at the "
                f"closed form reaches with probability {chance:.2f}"
            )
        return "; the readings of this row are tested below" if bootstrap == "host_block" else ""

    farther = "; ".join(
        f"{_name(r)} at {t3.loc[r, 'closest_distance_mc' + suffix]:.1f} ({t3.loc[r, 'closest_type1_error' + suffix]:.1%}"
        f", {t3.loc[r, 'closest_variant' + suffix].replace('_', ', ')}, against {t3.loc[r].paper_type1_error:.1%}"
        f"{cause(r)})"
        for r in t3.index
        if _name(r) in summary["missed"]
    )
    blocked = [why(r) for r in t3.index if _name(r) in summary["unreachable"]]
    return (
        f"{summary['within']} of {summary['rows']} rows lie within 3 combined MC errors for the closest of four "
        f"implementations; unreachable: {', '.join(blocked) or 'none'}; "
        + (f"farther: {farther}." if summary["missed"] else "no reachable row lies farther.")
    )


def table3_said(
    table3: pd.DataFrame, digits: DigitEvidence, pairs: pd.DataFrame, readings: dict, *, experiments: int
) -> Said:
    """What Table 3 says against the paper under both readings of its tests a row (notebook 02, Table 3).

    Parameters
    ----------
    table3 : DataFrame
        :func:`perfstudy.studies.bakshy2015.table3`.
    digits : DigitEvidence
        :func:`perfstudy.studies.table3_readings.digit_evidence` of ``table3.paper_type1_error``.
    pairs : DataFrame
        :func:`perfstudy.studies.table3_readings.same_law_pairs`.
    readings : dict
        Per reading (:data:`STATED`, :data:`FIGURE_7`), :func:`perfstudy.studies.table3_readings.reading_summary`.
    experiments : int
        The A/A tests behind each of this run's rates.
    """
    _frames(table3=table3, pairs=pairs)
    check_instance("digits", digits, DigitEvidence)
    _readings(readings)
    experiments = check_int("experiments", experiments)
    t3 = _indexed(table3)
    favoured = favoured_reading(digits, pairs)
    exceptions = [_name(r) for r, m in zip(t3.index, digits.table.multiple) if not m]
    return Said(
        "* **Against the paper.** For {within} of {rows} rows one of the four implementations lies within 3 combined "
        "MC errors of the paper's Type I error, read as {stated:,} tests a row (`closest_distance_mc`).\n"
        "* **The digits.** {multiples} of {rows} printed rates are whole multiples of 1/{figure7} (an even last digit "
        "of 0.1%){exception_text}. At least that many has probability {p_stated:.2g} if each came from {stated:,} "
        "tests, and {p_figure7:.2g} if from {figure7}.\n"
        "* **Pairs of one law** ($T = 1$). {pair_text}\n"
        "* **Read as {stated:,} tests a row.** {stated_text}\n"
        "* **Read as {figure7} tests a row.** {figure7_text}\n"
        "* **{verdict}**",
        dict(
            within=int((t3.closest_distance_mc <= WITHIN).sum()),
            rows=len(t3),
            stated=STATED,
            figure7=FIGURE_7,
            multiples=digits.multiples,
            exception_text=f"; not {', '.join(exceptions)}" if exceptions else "",
            p_stated=digits.probability[STATED],
            p_figure7=digits.probability[FIGURE_7],
            pair_text=_pairs_text(pairs, experiments),
            stated_text=_reading_text(t3, pairs, readings[STATED], STATED),
            figure7_text=_reading_text(t3, pairs, readings[FIGURE_7], FIGURE_7),
            verdict=(
                f"The digits and both pairs favour {FIGURE_7} tests a row: each is rare under {STATED:,} and not "
                f"under {FIGURE_7}."
                if favoured == FIGURE_7
                else f"Neither the digits nor the pairs favour {FIGURE_7} tests a row over the stated {STATED:,}."
                if favoured == STATED
                else "The digits and the pairs disagree on the reading; both are given above."
            ),
        ),
    )


def readings_view(table3: pd.DataFrame) -> Styler:
    """Each row's closest implementation and its distance to the paper under both readings, for display.

    Parameters
    ----------
    table3 : DataFrame
        :func:`perfstudy.studies.bakshy2015.table3`.
    """
    check_frame("table3", table3, minimum=0)
    view = pd.DataFrame(
        {
            "design / bootstrap": [_name(r) for r in _indexed(table3).index],
            "paper": _percent(table3.paper_type1_error),
            f"closest, {STATED:,}": table3.closest_variant.str.replace("_", ", "),
            f"MC errors, {STATED:,}": table3.closest_distance_mc.map("{:.1f}".format),
            f"closest, {FIGURE_7}": table3.closest_variant_500.str.replace("_", ", "),
            f"MC errors, {FIGURE_7}": table3.closest_distance_mc_500.map("{:.1f}".format),
        }
    )
    return view.style.hide(axis="index").set_caption("Distance to the paper under each reading")


def pairs_view(pairs: pd.DataFrame) -> Styler:
    """The pairs of one law under each reading, for display.

    Parameters
    ----------
    pairs : DataFrame
        :func:`perfstudy.studies.table3_readings.same_law_pairs`.
    """
    check_frame("pairs", pairs, minimum=0)
    columns = ["design", "paper_tests", "gap_probability", "window_low", "window_high", "analytic_type1_error"]
    view = (
        pairs[columns]
        .style.hide(axis="index")
        .format(
            {
                "gap_probability": "{:.2g}",
                "window_low": "{:.2%}",
                "window_high": "{:.2%}",
                "analytic_type1_error": "{:.2%}",
            }
        )
    )
    return cast("Styler", view)


def rescaled_rows(rescaled: pd.DataFrame, table3: pd.DataFrame) -> pd.DataFrame:
    """The request-balanced rows simulated with host SDs scaled to the paper's implied true SE, beside their distance
    to the paper before the scaling.

    Parameters
    ----------
    rescaled : DataFrame
        :func:`perfstudy.studies.bakshy2015.table3` of the rescaled components, request-balanced rows only.
    table3 : DataFrame
        The table at the stated components.
    """
    _frames(rescaled=rescaled, table3=table3)
    t3 = _indexed(table3)
    rows = pd.DataFrame({"bootstrap": rescaled.bootstrap, "paper": rescaled.paper_type1_error})
    for variant in TABLE_3_VARIANTS:
        rows[variant.lstrip("_") or "normal"] = rescaled[f"type1_error{variant}"]
    rows["closest"] = rescaled.closest_variant
    rows["distance (MC errors)"] = rescaled.closest_distance_mc
    rows["before (MC errors)"] = [
        t3.loc[(d, b), "closest_distance_mc"] for d, b in zip(rescaled.design, rescaled.bootstrap)
    ]
    rows["mean SE"] = rescaled.mean_estimated_se
    rows["true SE"] = rescaled.true_se
    return rows.reset_index(drop=True)


def rescaled_view(rows: pd.DataFrame) -> Styler:
    """:func:`rescaled_rows` for display.

    Parameters
    ----------
    rows : DataFrame
        :func:`rescaled_rows`.
    """
    check_frame("rows", rows, minimum=0)
    rates = [c for c in rows.columns if c == "paper" or c in ("normal", "t", "counts", "counts_t")]
    view = rows.style.hide(axis="index").format(
        {
            **dict.fromkeys(rates, "{:.1%}"),
            "distance (MC errors)": "{:.1f}",
            "before (MC errors)": "{:.1f}",
            "mean SE": "{:.4f}",
            "true SE": "{:.4f}",
        }
    )
    return cast("Styler", view)


def rescaled_said(rows: pd.DataFrame, table3: pd.DataFrame, *, implied: float, host_scale: float) -> Said:
    """Whether one larger true SE explains the paper's request-balanced rows (notebook 02).

    Parameters
    ----------
    rows : DataFrame
        :func:`rescaled_rows`.
    table3 : DataFrame
        The table at the stated components.
    implied : float
        The true SE the paper's iid rate implies (:func:`perfstudy.studies.bakshy2015.implied_true_se`).
    host_scale : float
        The factor on the host SDs that gives it.
    """
    _frames(rows=rows, table3=table3)
    implied = check_real("implied", implied, positive=True)
    host_scale = check_real("host_scale", host_scale, positive=True)
    iid = _indexed(table3).loc[("request_balanced", "iid")]
    others = rows[rows.bootstrap != "iid"]
    return Said(
        "The paper's {paper_iid:.1%} with our iid SE of {iid_se:.4f} implies a true SE of {implied:.4f}, against the "
        "formula's {formula:.4f}: host SDs {scale:.2f} times Table 1's. Simulated so (true SE {true_se:.4f}), the "
        "three rows that did not set the scale lie {after} MC errors from the paper (closest implementation), against "
        "{before} under the stated model. {verdict}",
        dict(
            paper_iid=float(iid.paper_type1_error),
            iid_se=float(iid.mean_estimated_se),
            implied=implied,
            formula=float(iid.analytic_se),
            scale=host_scale,
            true_se=float(rows["true SE"].iloc[0]),
            after=", ".join(
                f"{d:.1f} ({b.replace('_', ' ')}, {v.replace('_', ', ')})"
                for b, d, v in zip(others.bootstrap, others["distance (MC errors)"], others.closest)
            ),
            before=", ".join(f"{d:.1f}" for d in others["before (MC errors)"]),
            verdict=(
                "All four request-balanced rows then lie within 3 MC errors: a simulation whose request-balanced true "
                "SE exceeded the formula would explain them, though the paper does not say what it ran."
                if bool((rows["distance (MC errors)"] <= WITHIN).all())
                else "Not every row is then within 3 MC errors, so this one number does not explain them all."
            ),
        ),
    )


def host_block_said(leads: pd.DataFrame, *, paper_rate: float, paper_se: float, experiments: int) -> Said:
    """Which reading of the request-balanced host-block row reaches the paper's rate and .SE (notebook 02).

    Parameters
    ----------
    leads : DataFrame
        :func:`perfstudy.studies.table3_readings.host_block_leads`.
    paper_rate, paper_se : float
        The paper's printed Type I error and .SE for the row.
    experiments : int
        The A/A tests behind each lead's rate.
    """
    check_frame("leads", leads, minimum=0)
    paper_rate = check_real("paper_rate", paper_rate, nonnegative=True)
    paper_se = check_real("paper_se", paper_se, positive=True)
    experiments = check_int("experiments", experiments)

    def names(rows) -> str:
        return ", ".join(f"*{lead}*" for lead in rows.lead)

    return Said(
        "The paper prints {paper_rate:.1%} and .SE {paper_se:.2f} for the request-balanced host-block row. Tested on "
        "{experiments:,} simulated A/A tests: {each}. {verdict}",
        dict(
            paper_rate=paper_rate,
            paper_se=paper_se,
            experiments=experiments,
            each="; ".join(
                f"{r.lead}: {r.type1_error:.1%}, .SE {r.printed_se:.4f}, {r.type1_distance_mc:.1f} MC errors "
                f"({r.type1_distance_mc_500:.1f} read as {FIGURE_7} tests)"
                for r in cast(Any, leads.itertuples())
            ),
            verdict=(
                f"Within 3 MC errors of the rate, read as {STATED:,} tests, with the printed .SE: "
                f"{names(leads[leads.explains])}"
                + (
                    ". The row is consistent with that reading; the paper does not say it used it."
                    if leads.explains.sum() == 1
                    else ". The row is consistent with each of them; the paper does not say which it used."
                )
                if leads.explains.any()
                else f"No reading reaches both the rate and the .SE read as {STATED:,} tests; read as {FIGURE_7}, "
                f"{names(leads[leads.explains_500])} do."
                if leads.explains_500.any()
                else "No tested reading reaches both the rate and the .SE."
            ),
        ),
    )


def leads_view(leads: pd.DataFrame) -> Styler:
    """The host-block row's readings, for display.

    Parameters
    ----------
    leads : DataFrame
        :func:`perfstudy.studies.table3_readings.host_block_leads`.
    """
    check_frame("leads", leads, minimum=0)
    view = leads.style.hide(axis="index").format(
        {
            "critical_value": "{:.3f}",
            "type1_error": "{:.1%}",
            "printed_se": "{:.4f}",
            "type1_distance_mc": "{:.1f}",
            "type1_distance_mc_500": "{:.1f}",
        }
    )
    return cast("Styler", view)


def trust_said(origin: OriginCheck) -> Said:
    """Which bootstrap to trust: the recommended rows' Type I error by quantile and denominator, before and after
    every value is moved (notebook 02).

    Parameters
    ----------
    origin : OriginCheck
        :func:`perfstudy.studies.bakshy2015.origin_check` of the recommended rows.
    """
    check_instance("origin", origin, OriginCheck)
    trust, tests, shift, se_moved = origin.table, origin.experiments, origin.shift, origin.se_moved
    limit = type1_limit(tests, errors=WITHIN)
    return Said(
        "Type I error of the recommended bootstraps over {tests:,} A/A tests, nominal 5% (limit {limit:.1%} = 5% + 3 "
        "MC errors): normal quantiles give {normal_low:.1%} to {normal_high:.1%}, t quantiles {t_low:.1%} to "
        "{t_high:.1%}, counts {counts_low:.1%} to {counts_high:.1%}. With every value moved by {shift:g}, the "
        "summed-weights bootstrap's mean SEs move {se_moved_text}, while counts goes to {shifted_low:.1%} to "
        "{shifted_high:.1%}. {advice}",
        dict(
            tests=tests,
            limit=limit,
            normal_low=float(np.asarray(trust["normal"], dtype=float).min()),
            normal_high=float(np.asarray(trust["normal"], dtype=float).max()),
            t_low=float(np.asarray(trust["t"], dtype=float).min()),
            t_high=float(np.asarray(trust["t"], dtype=float).max()),
            counts_low=float(np.asarray(trust["counts"], dtype=float).min()),
            counts_high=float(np.asarray(trust["counts"], dtype=float).max()),
            shift=shift,
            se_moved_text="not at all" if se_moved == 0 else f"by at most {se_moved:.1e} (rounding)",
            shifted_low=float(np.asarray(trust["counts, shifted"], dtype=float).min()),
            shifted_high=float(np.asarray(trust["counts, shifted"], dtype=float).max()),
            advice=(
                "Trust the summed-weights bootstrap with t quantiles: here it alone keeps every design within the "
                "limit and does not depend on the origin of $y$."
                if bool((trust["t"] <= limit).all()) and not bool((trust["normal"] <= limit).all())
                else "Here the t quantiles do not keep every design within the limit; see the table."
                if not bool((trust["t"] <= limit).all())
                else "Here normal and t quantiles both keep every design within the limit."
            ),
        ),
    )


def origin_view(origin: OriginCheck) -> Styler:
    """:func:`perfstudy.studies.bakshy2015.origin_check`'s table for display, its rates as percentages.

    Parameters
    ----------
    origin : OriginCheck
    """
    check_instance("origin", origin, OriginCheck)
    view = origin.table.style.hide(axis="index").format("{:.1%}", subset=list(origin.table.columns[1:]))
    return cast("Styler", view)


def summary_said(
    table3: pd.DataFrame,
    readings: dict,
    favoured: int | None,
    real_aa: pd.DataFrame,
    *,
    experiments: int,
    aa_experiments: int,
) -> Said:
    """Notebook 02's summary: Table 3 against the paper, the recommended bootstraps simulated, and the real series.

    Parameters
    ----------
    table3 : DataFrame
        :func:`perfstudy.studies.bakshy2015.table3`.
    readings : dict
        Per reading, :func:`perfstudy.studies.table3_readings.reading_summary`.
    favoured : int or None
        :func:`favoured_reading`.
    real_aa : DataFrame
        :func:`perfstudy.studies.bakshy2015_real.real_aa`'s ``per_series``.
    experiments, aa_experiments : int
        The A/A tests behind each simulated rate, and each real series' rate.
    """
    _frames(table3=table3, real_aa=real_aa)
    _readings(readings)
    if favoured is not None and favoured not in READINGS:
        raise ValueError(f"favoured={favoured!r}: expected one of {READINGS} or None")
    experiments, aa_experiments = check_int("experiments", experiments), check_int("aa_experiments", aa_experiments)
    t3 = _indexed(table3)
    limit, real_limit = type1_limit(experiments, errors=WITHIN), type1_limit(aa_experiments, errors=WITHIN)
    honest = {d: t3.loc[(d, b)].type1_error <= limit for d, b in BOOTSTRAP_FOR_DESIGN.items()}
    honest_t = {d: t3.loc[(d, b)].type1_error_t <= limit for d, b in BOOTSTRAP_FOR_DESIGN.items()}
    iid = real_aa[real_aa.bootstrap == "iid"]
    segment = real_aa[real_aa.bootstrap == "segment"]

    def designs(flags: dict, value: bool) -> str:
        return ", ".join(d.replace("_", " ") for d, ok in flags.items() if ok == value) or "none"

    return Said(
        "* **Table 3 against the paper.** Read as {stated:,} tests a row (section 5.2), {t3_within} of {t3_rows} rows "
        "lie within 3 combined MC errors of the paper for the closest of four implementations, and {t3_unreachable} "
        "the model as stated cannot produce (above). Read as {figure7} (Figure 7{favoured_text}), {t3_within_500} of "
        "{t3_rows} lie within, and {t3_unreachable_500} cannot be produced.\n"
        "* **Simulated (Table 3).** The recommended bootstrap (host; host-block for the request-balanced design) keeps "
        "the Type I error within {limit:.1%} (5% + 3 MC errors) for: {honest}; not for: {dishonest}. With t "
        "quantiles on $C-1$ degrees of freedom, within for: {honest_t}; not for: {dishonest_t}.\n"
        "* **Real series** ({series} series, {aa} A/A tests each, limit {real_limit:.1%}). The iid bootstrap exceeds "
        "the limit on {iid_over} of {series} series (median rate {iid_median:.1%}, up to {iid_max:.1%}): runs close "
        "in time share the machine's state. Reweighting whole segments gives a median {segment_median:.1%} "
        "({segment_t:.1%} with t quantiles), above the limit on {segment_over} series. The binomial MC errors "
        "understate the uncertainty somewhat, because the A/A tests of one series reuse its runs.",
        dict(
            stated=STATED,
            figure7=FIGURE_7,
            favoured_text=", the reading the digits and the pairs favour" if favoured == FIGURE_7 else "",
            t3_within=readings[STATED]["within"],
            t3_rows=len(t3),
            t3_unreachable=len(readings[STATED]["unreachable"]),
            t3_within_500=readings[FIGURE_7]["within"],
            t3_unreachable_500=len(readings[FIGURE_7]["unreachable"]),
            limit=limit,
            honest=designs(honest, True),
            dishonest=designs(honest, False),
            honest_t=designs(honest_t, True),
            dishonest_t=designs(honest_t, False),
            series=int(iid.series.nunique()),
            aa=aa_experiments,
            real_limit=real_limit,
            iid_over=int((iid.type1_error > real_limit).sum()),
            iid_median=float(iid.type1_error.median()),
            iid_max=float(iid.type1_error.max()),
            segment_median=float(segment.type1_error.median()),
            segment_t=float(segment.type1_error_t.median()),
            segment_over=int((segment.type1_error > real_limit).sum()),
        ),
    )


def fig6_said(headline, *, simulations: int) -> Said:
    """Figure 6 in a sentence: one experiment's host and request bootstrap SEs against the true spread of
    :math:`\\hat\\delta` in the fully balanced design, and why the request bootstrap misses it.

    Parameters
    ----------
    headline : dict
        ``figure6(...).headline``.
    simulations : int
        The simulations the true spread is over.
    """
    head = check_mapping("headline", headline)
    return Said(
        "One experiment's host bootstrap gives an SE of {host:.4f} and its request bootstrap {request:.4f}, against a "
        "true spread of {truth:.4f} over {simulations:,} simulations: the request bootstrap has {request_share:.0%} of "
        "it. In the fully balanced design every request appears in both conditions with the same weight, so "
        "reweighting requests never moves the host effects that remain in the error.",
        dict(
            host=float(head["host_bootstrap_se"]),
            request=float(head["request_bootstrap_se"]),
            truth=float(head["true_sd"]),
            simulations=check_int("simulations", simulations),
            request_share=float(head["request_bootstrap_se"]) / float(head["true_sd"]),
        ),
    )
