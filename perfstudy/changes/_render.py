"""A history as people read it: a table, Markdown, JSON (``change_points``, each with ``benchmark`` and
``index``), and an HTML report with the regressions first and one plot per benchmark that changed (SVG drawn
here, so a report of thousands of series takes no plotting library and little time)."""

from __future__ import annotations

import html
import json
import math
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from perfstudy._lib.checks import check_choice, check_int
from perfstudy._lib.format import aligned, markdown_rows, p_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["HISTORY_FORMATS", "format_history", "history_html"]

HISTORY_FORMATS = ("table", "markdown", "json", "html")


def _check_history(result) -> None:
    """``result`` is a :class:`perfstudy.changes.History` (or of a subclass), known by its class's name and module:
    this module does not import ``_history``, which imports it to format a history."""
    if not any(c.__name__ == "History" and c.__module__ == "perfstudy.changes._history" for c in type(result).__mro__):
        raise TypeError(f"result: expected History, got {type(result).__name__}")


_HEAD = ["benchmark", "index", "commit", "may be in", "change", "verdict", "level", "spread", "q"]
_VERDICT = _HEAD.index("verdict")
_COLOURS = {"slower": "#c0392b", "faster": "#1e8449", "noisier": "#b9770e", "quieter": "#2874a6"}


def _pct(x: float) -> str:
    return "" if not math.isfinite(x) else f"{100 * x:+.1f}%"


def _ratio(x: float) -> str:
    return "" if not math.isfinite(x) else f"x{x:.2f}"


def _cells(row) -> list[str]:
    level = ""
    if row.change != "spread":
        level = f"{_pct(row.level_change)} [{_pct(row.level_low)}, {_pct(row.level_high)}]"
    spread = ""
    if row.change != "level":
        spread = f"{_ratio(row.spread_ratio)} [{_ratio(row.spread_low)}, {_ratio(row.spread_high)}]"
    return [
        str(row.benchmark),
        str(row.index),
        str(row.commit),
        _where(row),
        row.change,
        row.verdict,
        level,
        spread,
        p_text(row.q_value),
    ]


def _where(row) -> str:
    """The commits that may hold the change: one commit, or the first and last of a range and how many."""
    if row.range_first_index == row.range_last_index:
        return "this commit only"
    return f"{row.range_first}..{row.range_last} ({row.range_last_index - row.range_first_index + 1} commits)"


def _summary(result: Any) -> str:
    series = result.series
    cp = result.change_points
    counts = cp["verdict"].value_counts()
    said = ", ".join(f"{int(counts[v])} {v}" for v in ("slower", "faster", "noisier", "quieter") if v in counts)  # pyright: ignore
    return (
        f"{len(cp)} change point(s) in {int((series['change_points'] > 0).sum())} of {len(series)} benchmark(s)"  # pyright: ignore
        + (f": {said}" if said else "")
        + f". False discovery rate {result.fdr:g} across benchmarks (Benjamini-Hochberg); intervals "
        f"and the commits a change may be in {100 * result.confidence:g}%; level changes under {100 * result.threshold:g}% not reported. "
        + _needed(series, result.threshold)
        + _unseen(result)
        + "".join(f" {note[0].upper() + note[1:]}." for note in result.notes)
    )


def _unseen(result: Any) -> str:
    """:attr:`History.unseen` in one sentence."""
    spans = [f"{b}'s commits {first} to {last} ({n})" for b, first, last, n, _ in result.unseen]
    if not spans:
        return ""
    listed = "; ".join(spans[:4]) + ("; ..." if len(spans) > 4 else "")
    return (
        f" Beside the change points, too few commits for another change in them to be found: {listed}. Another "
        "change there goes unseen, and the level on that side of the change point found pools both."
    )


def _power(series, threshold: float) -> str:
    """What a change of the threshold's size needs at the benchmarks' noise between commits (the median
    benchmark's), a sentence per metric (a wall time and a CPU time are never pooled:
    :func:`perfstudy._lib.units.metric_of`); empty where no benchmark has a noise (values of both signs)."""
    from perfstudy._lib.units import metric_of

    known = series[np.isfinite(series["noise"].to_numpy(dtype=float))]
    if known.empty or not threshold > 0:
        return ""
    metrics = known["benchmark"].map(metric_of)
    said = ""
    for metric in dict.fromkeys(metrics):
        same = known[(metrics == metric).to_numpy()]
        noise = float(np.median(same["noise"]))
        need = float(np.median(same["commits_for_threshold"]))
        which = "these benchmarks'" if len(same) > 1 else "this benchmark's"
        if metrics.nunique() > 1:
            which = f"{which} {'wall-clock' if metric == 'wall' else metric.upper()}"
        spread = f"At {which} noise between commits ({100 * noise:.1f}%" + (" median)" if len(same) > 1 else ")")
        if not math.isfinite(need):
            said += (
                f" {spread}, a change of {100 * threshold:g}% is too small to be reported at any number of commits: "
                "measure each commit more times, or raise the threshold."
            )
        else:
            said += (
                f" {spread}, a change of {100 * threshold:g}% needs about {need:.0f} commits on each side to be found "
                "at least four times in five."
            )
    return said


def _needed(series, threshold: float = 0.0) -> str:
    """What the benchmarks' lengths allow: the commits a change needs on each side, and those too short."""
    if series.empty:
        return ""
    need, after = series["commits_needed"], series["commits_after_needed"]
    low, high = int(need.min()), int(need.max())
    span = f"{low}" if low == high else f"{low} to {high}"
    first, last = int(after.min()), int(after.max())
    newest = f"{first}" if first == last else f"{first} to {last}"
    short = series[series["commits"] < 2 * need]
    fewer = f", or as few as {newest} after it when the commits before it are many" if last < low else ""
    text = (
        f"A change needs {span} commits on each side to be found{fewer}, so the newest {first - 1}"
        + (f" to {last - 1}" if first != last else "")
        + " commit(s) of a benchmark cannot be judged yet."
    )
    text += _power(series, threshold)
    if len(short):
        names = ", ".join(map(str, short["benchmark"].head(3))) + (", ..." if len(short) > 3 else "")
        text += (
            f" {len(short)} benchmark(s) are too short for any change to be found ({names}): "
            "run more commits before reading their silence as no change."
        )
    return text


def _table(result: Any, markdown: bool) -> str:
    rows = [_cells(r) for r in result.change_points.itertuples(index=False)]
    lines = [_summary(result), ""]
    if not rows:
        return "\n".join(lines[:1])
    lines += markdown_rows(_HEAD, rows) if markdown else aligned(_HEAD, rows)
    return "\n".join(lines)


def _plain(value):
    if value is None:
        return None
    if isinstance(value, (np.floating, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if hasattr(value, "isoformat"):
        return None if str(value) == "NaT" else value.isoformat()
    return value if isinstance(value, (int, str, bool)) else str(value)


def _json(result: Any) -> str:
    points = [{k: _plain(v) for k, v in row.items()} for row in result.change_points.to_dict("records")]
    for point in points:  # the range as one field: the first and the last commit that may hold the change
        point["commit_range"] = [point["range_first"], point["range_last"]]
    series = [{k: _plain(v) for k, v in row.items()} for row in result.series.to_dict("records")]
    out = {
        "summary": _summary(result),
        "fdr": result.fdr,
        "confidence": result.confidence,
        "threshold": result.threshold,
        "min_side": result.min_side,
        "widths": list(result.widths),
        "notes": list(result.notes),
        "change_points": points,
        "series": series,
    }
    return json.dumps(out, indent=2)


def format_history(result, format: Literal["table", "markdown", "json", "html"] = "table") -> str:
    """A :class:`History` as text: a table, Markdown, JSON or a whole HTML page.

    Parameters
    ----------
    result : History
    format : {"table", "markdown", "json", "html"}
    """
    _check_history(result)
    check_choice("format", format, HISTORY_FORMATS)
    if format == "json":
        return _json(result)
    if format == "html":
        return history_html(result)
    return _table(result, format == "markdown")


def _tick(v: float) -> str:
    """An axis label of four significant digits, in plain digits with thousands separated where that is short
    (``140,700``, ``0.01234``), otherwise in exponent form."""
    if v == 0 or not 1e-3 <= abs(v) < 1e7:
        return f"{v:.4g}"
    digits = max(0, 3 - math.floor(math.log10(abs(v))))
    return f"{v:,.{digits}f}"


def _svg(commits: pd.DataFrame, cps: pd.DataFrame, unit: str | None = None, width: int = 640, height: int = 170) -> str:
    y = commits["median"].to_numpy(dtype=float)
    n = y.size
    lo, hi = np.percentile(y, [0.5, 99.5]) if n > 1 else (y[0] * 0.9, y[0] * 1.1)
    for r in cps.itertuples(index=False):
        if r.change != "spread" and math.isfinite(r.before):  # pyright: ignore
            lo = min(lo, r.before * (1 + r.level_low), r.before)  # pyright: ignore
            hi = max(hi, r.before * (1 + r.level_high), r.after)  # pyright: ignore
    pad = (hi - lo) * 0.08 or abs(hi) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad
    ticks = [_tick(v) for v in (lo + pad, hi - pad)]
    # room for the longest label at 10 px (about 6 px a character) and the rotated axis title
    left, right, top, bottom = max(56, 6 * max(map(len, ticks)) + 26), 8, 8, 22

    def px(i):
        return left + (width - left - right) * (i / max(n - 1, 1))

    def py(v):
        v = min(max(v, lo), hi)
        return top + (height - top - bottom) * (1 - (v - lo) / (hi - lo))

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" '
        f'style="max-width:{width}px" role="img">',
        f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{height - top - bottom}" '
        'fill="#fff" stroke="#ccc"/>',
    ]
    for r in cps.itertuples(index=False):
        colour = _COLOURS.get(r.verdict, "#555")  # pyright: ignore
        k = r.commit_index  # pyright: ignore
        x0 = max(px(k - 0.5), left)
        x1 = min(px(min(k + r.commits_after, n) - 0.5), width - right)  # pyright: ignore
        if r.change != "spread" and math.isfinite(r.level_low):  # pyright: ignore
            ya, yb = py(r.before * (1 + r.level_high)), py(r.before * (1 + r.level_low))  # pyright: ignore
            parts.append(
                f'<rect x="{x0:.1f}" y="{ya:.1f}" width="{max(x1 - x0, 1):.1f}" height="{max(yb - ya, 1):.1f}" '
                f'fill="{colour}" opacity="0.18"><title>{html.escape(r.verdict)}: '  # pyright: ignore
                f"{_pct(r.level_change)} [{_pct(r.level_low)}, {_pct(r.level_high)}]</title></rect>"  # pyright: ignore
            )
        parts.append(
            f'<line x1="{x0:.1f}" x2="{x0:.1f}" y1="{top}" y2="{height - bottom}" stroke="{colour}" '
            f'stroke-dasharray="4 3"><title>index {r.index}, commit {html.escape(str(r.commit))}</title></line>'  # pyright: ignore
        )
    dots = "".join(f'<circle cx="{px(i):.1f}" cy="{py(v):.1f}" r="1.6"/>' for i, v in enumerate(y))
    parts.append(f'<g fill="#333">{dots}</g>')
    for v, label in zip((lo + pad, hi - pad), ticks):
        parts.append(f'<text x="{left - 4}" y="{py(v) + 4:.1f}" text-anchor="end" font-size="10">{label}</text>')
    title = "median" + (f" ({html.escape(unit)})" if unit else "")
    middle = top + (height - top - bottom) / 2
    parts.append(
        f'<text x="12" y="{middle:.1f}" font-size="10" text-anchor="middle" '
        f'transform="rotate(-90 12 {middle:.1f})">{title}</text>'
    )
    parts.append(
        f'<text x="{left}" y="{height - 6}" font-size="10">commit 0</text>'
        f'<text x="{width - right}" y="{height - 6}" font-size="10" text-anchor="end">commit {n - 1}</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def history_html(result, *, unchanged: int = 0) -> str:
    """A :class:`History` as one HTML page: the summary, the regressions first, then a plot per benchmark that
    changed (each commit's median, the change points dashed, each new level's interval shaded).

    Parameters
    ----------
    result : History
    unchanged : int
        How many benchmarks without a change point to plot as well (the first ones), for context.
    """
    _check_history(result)
    unchanged = check_int("unchanged", unchanged, minimum=0)
    cp = result.change_points
    esc = html.escape
    out = [
        "<!doctype html><html><head><meta charset='utf-8'><title>perfstudy history</title>",
        "<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:1em auto;padding:0 1em}"
        "table{border-collapse:collapse;font-size:13px}td,th{border-bottom:1px solid #ddd;padding:2px 8px;"
        "text-align:left}h2{font-size:16px;margin-top:1.4em}.slower{color:#c0392b}.faster{color:#1e8449}"
        ".noisier{color:#b9770e}.quieter{color:#2874a6}</style></head><body>",
        "<h1>History: change points over commits</h1>",
        f"<p>{esc(_summary(result))}</p>",
    ]
    bad = result.regressions

    def table(rows, title):
        out.append(f"<h2>{esc(title)}</h2>")
        if rows.empty:
            out.append("<p>None.</p>")
            return
        out.append("<table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in _HEAD) + "</tr>")
        for r in rows.itertuples(index=False):
            cells = [esc(c) for c in _cells(r)]
            cells[_VERDICT] = f"<span class='{esc(r.verdict)}'>{esc(r.verdict)}</span>"
            out.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        out.append("</table>")

    table(bad, f"Regressions ({len(bad)}): slower or noisier")
    table(cp[~cp.index.isin(bad.index)], "Other change points")
    names = list(dict.fromkeys(cp["benchmark"]))
    quiet = [b for b in result.series["benchmark"] if b not in set(names)][:unchanged]
    commits = result.commits
    by_name = {name: frame for name, frame in commits.groupby("benchmark", sort=False)}
    units = {}
    if "unit" in result.series:
        units = {
            b: str(u) for b, u in zip(result.series["benchmark"], result.series["unit"]) if isinstance(u, str) and u
        }
    for name in names + quiet:
        mine = cp[cp["benchmark"] == name]
        out.append(f"<h2>{esc(str(name))}</h2>")
        said = [
            f"<span class='{esc(r.verdict)}'>{esc(r.verdict)}</span> at commit {esc(str(r.commit))} (index {r.index}"
            + (f"; may be in {esc(_where(r))}" if r.range_first_index != r.range_last_index else "")
            + "): "
            + esc(" ".join(c for c in _cells(r)[_VERDICT + 1 : _VERDICT + 3] if c))
            for r in mine.itertuples(index=False)
        ]
        out.append("<p>" + ("<br>".join(said) or "No change point.") + "</p>")
        out.append(_svg(by_name[name], mine, units.get(name)))
    out.append("</body></html>")
    return "\n".join(out)
