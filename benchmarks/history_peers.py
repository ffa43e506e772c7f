"""Validation of :func:`perfstudy.changes.history` against practitioners' labels and its peers.

- SAP HANA's small_2021 set: 25 series, 5 labelled regressions (the index of the first regressed measurement),
  20 labelled Stable, Spike, High deviation or Build-dependent, where nothing should be reported.
- Planted changes: into each of SAP's 20 series without a regression, one of each kind (a step, a change of
  spread, a ramp, a single spike) at random build boundaries, one per quarter of the series.
- The peers, run on the same rows: Perfherder's t-test (a port of Treeherder's ``perfalert.detect_changes``,
  windows 12/24/12, t > 7, and its 2% alert threshold), Apache Otava's E-divisive with a t-test merge
  (``otava.analysis.compute_change_points``, window 50, p 0.001), ruptures' PELT and binary segmentation (l2 cost,
  penalty ``2 sigma^2 log n`` with ``sigma`` the robust SD of the first differences / sqrt 2).

A detection matches a truth when it lies within ``margin`` measurements of it (a ramp: anywhere from its start
to ``margin`` past its end). Precision counts every detection that matches no truth as false, those near a
planted spike included.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from perfstudy._lib.result import Result
from perfstudy.changes import history
from perfstudy.io.datasets import load

__all__ = [
    "DETECTORS",
    "KINDS",
    "Scores",
    "detectors",
    "false_alarm_rate",
    "perfherder_changes",
    "plant",
    "sap_frame",
    "score_labels",
    "score_planted",
]

KINDS = ("step", "spread", "ramp", "spike")
DETECTORS = ("perfstudy", "perfherder", "otava", "pelt", "binseg")


def sap_frame() -> pd.DataFrame:
    """SAP small_2021 as one tidy frame: ``benchmark``, ``commit`` (the build), ``value``, ``label``, ``truth``
    (the 0-based index of the first regressed measurement, -1 for none)."""
    parts = []
    for i in range(25):
        f = load(f"sap-hana-{i:04d}")
        first = np.flatnonzero(f["after_change"].to_numpy())
        parts.append(
            pd.DataFrame(
                {
                    "benchmark": f"sap-{i:04d}",
                    "commit": f["build"].to_numpy(),
                    "value": f["value"].to_numpy(),
                    "label": f["label"].to_numpy(),
                    "truth": int(first[0]) if first.size else -1,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def _robust_sigma(x: np.ndarray) -> float:
    return 1.4826 * float(np.median(np.abs(np.diff(x)))) / math.sqrt(2)


def plant(
    values: np.ndarray,
    commits: np.ndarray,
    *,
    rng,
    size: float = 3.0,
    ratio: float = 3.0,
    ramp: int = 50,
    spike: float = 10.0,
) -> tuple[np.ndarray, list[tuple[str, int]]]:
    """One of each kind planted at build boundaries, one per quarter of the series in random order.

    The step and the ramp's rise are ``size`` robust SDs of the row series (``1.4826 MAD(diff) / sqrt 2``), on the
    log scale; a change of spread multiplies the residuals about a 9-point running median by ``ratio``; a spike
    multiplies one measurement by ``exp(spike sigma)``.

    Parameters
    ----------
    values, commits : numpy.ndarray
        One series' measurements and their builds, in order.
    rng : numpy.random.Generator
    size, ratio, ramp, spike : float
        The planted changes' sizes (``ramp`` in measurements).
    """
    y = np.log(values).astype(float)
    n = y.size
    sigma = _robust_sigma(y)
    starts = np.flatnonzero(np.r_[True, commits[1:] != commits[:-1]])
    kinds = list(rng.permutation(KINDS))
    truth = []
    quarter = n // 4
    for q, kind in enumerate(kinds):
        lo, hi = q * quarter + quarter // 4, q * quarter + (3 * quarter) // 4
        inside = starts[(starts >= lo) & (starts < hi)]
        at = int(rng.choice(inside)) if inside.size else int(rng.integers(lo, max(hi, lo + 1)))
        end = (q + 1) * quarter if q < 3 else n
        if kind == "step":
            y[at:] += size * sigma
        elif kind == "ramp":
            t = np.arange(n - at)
            y[at:] += size * sigma * np.minimum(t / min(ramp, max(end - at, 1)), 1.0)
        elif kind == "spread":
            pad = np.pad(y, 4, mode="edge")
            centre = np.median(np.lib.stride_tricks.sliding_window_view(pad, 9), axis=1)
            y[at:end] = centre[at:end] + ratio * (y[at:end] - centre[at:end])
        else:
            y[at] += spike * sigma
        truth.append((kind, at))
    return np.exp(y), sorted(truth, key=lambda t: t[1])


# --- the peers -------------------------------------------------------------------------------------------


def perfherder_changes(
    values: np.ndarray,
    commits: np.ndarray,
    *,
    min_back: int = 12,
    max_back: int = 24,
    fore: int = 12,
    t_threshold: float = 7.0,
    alert_threshold: float = 2.0,
) -> list[int]:
    """Perfherder's alerts: Treeherder's ``perfalert.detect_changes`` and ``generate_new_alerts_in_series``.

    Revisions are the builds, each holding its measurements; the back window grows from ``min_back`` towards
    ``max_back`` values while no regression is seen, the forward window holds ``fore`` values, the t statistic
    uses linearly decaying weights, a change is a local maximum of t above ``t_threshold``, and an alert needs
    a change of at least ``alert_threshold`` percent between the windows' plain averages.

    Parameters
    ----------
    values, commits : numpy.ndarray
    min_back, max_back, fore : int
    t_threshold, alert_threshold : float

    Returns
    -------
    list of int
        The index of each alert's first measurement.
    """
    starts = np.flatnonzero(np.r_[True, commits[1:] != commits[:-1]])
    revs = np.split(values, starts[1:])
    n = len(revs)

    def analyze(window, weighted):
        m = len(window)
        w = [(m - i) / m if weighted else 1.0 for i in range(m)]
        total = sum(float(v) * w[i] for i in range(m) for v in window[i])
        weight = sum(w[i] * len(window[i]) for i in range(m))
        avg = total / weight if m else 0.0
        data = [float(v) for r in window for v in r]
        var = sum((d - avg) ** 2 for d in data) / (len(data) - 1) if len(data) > 1 else 0.0
        return avg, len(data), var

    t = [0.0] * n
    prev_n = [0] * n
    next_n = [0] * n
    hist = [0.0] * n
    fwd = [0.0] * n
    last_seen = 0
    for i in range(1, n):
        jw, amount, j = [], 0, i - 1
        while amount < max_back and j >= 0 and (i - j) <= min(max(last_seen, min_back), max_back):
            jw.append(revs[j])
            amount += len(revs[j])
            j -= 1
        kw, ahead, k = [], 0, i
        while ahead < fore and k < n:
            kw.append(revs[k])
            ahead += len(revs[k])
            k += 1
        prev_n[i], next_n[i] = amount, ahead
        hist[i], fwd[i] = analyze(jw, False)[0], analyze(kw, False)[0]
        if jw and kw:
            a1, n1, v1 = analyze(jw, True)
            a2, n2, v2 = analyze(kw, True)
            delta = a2 - a1
            if delta == 0:
                t[i] = 0.0
            elif v1 == 0 and v2 == 0:
                t[i] = math.inf
            else:
                t[i] = abs(delta / math.sqrt(v1 / n1 + v2 / n2))
        last_seen = 0 if t[i] > t_threshold else last_seen + 1
    found = []
    for i in range(1, n):
        if prev_n[i] < min_back or next_n[i] < fore or t[i] <= t_threshold:
            continue
        if t[i - 1] > t[i] or (i + 1 < n and t[i + 1] > t[i]):
            continue
        if hist[i] != 0 and 100 * abs(fwd[i] - hist[i]) / hist[i] < alert_threshold:
            continue
        found.append(int(starts[i]))
    return found


def _otava(values: np.ndarray, commits: np.ndarray) -> list[int]:
    from otava.analysis import compute_change_points

    points, _ = compute_change_points(list(map(float, values)), window_len=50, max_pvalue=0.001)
    return sorted(int(p.index) for p in points)


def _ruptures(values: np.ndarray, method: str) -> list[int]:
    import ruptures

    x = np.log(values).reshape(-1, 1)
    sigma = max(_robust_sigma(x[:, 0]), 1e-12)
    algo = ruptures.Pelt(model="l2", min_size=2) if method == "pelt" else ruptures.Binseg(model="l2", min_size=2)
    bkps = algo.fit(x).predict(pen=2 * sigma**2 * math.log(x.shape[0]))
    return [int(b) for b in bkps[:-1]]


def _perfstudy(frame: pd.DataFrame) -> dict[str, list[int]]:
    result = history(frame, commit="commit", value="value")
    found = {b: [] for b in frame["benchmark"].unique()}
    for b, i in zip(result.change_points["benchmark"], result.change_points["index"], strict=True):
        found[b].append(int(i))
    return found


def detectors() -> dict[str, Callable]:
    """Each available detector: frame -> {benchmark: [indices]}; a peer that is not installed is left out."""
    out: dict[str, Callable] = {"perfstudy": _perfstudy}

    def per_series(fn):
        def run(frame):
            return {
                b: fn(g["value"].to_numpy(), g["commit"].to_numpy()) for b, g in frame.groupby("benchmark", sort=False)
            }

        return run

    out["perfherder"] = per_series(perfherder_changes)
    try:
        import otava.analysis  # noqa: F401

        out["otava"] = per_series(_otava)
    except ImportError:
        pass
    try:
        import ruptures  # noqa: F401

        out["pelt"] = per_series(lambda v, c: _ruptures(v, "pelt"))
        out["binseg"] = per_series(lambda v, c: _ruptures(v, "binseg"))
    except ImportError:
        pass
    return out


@dataclass(frozen=True)
class Scores(Result):
    """Detectors scored against known changes, one row per detector.

    Attributes
    ----------
    table : pandas.DataFrame
        Per detector: the counts, precision, recall, F1 (or per kind), and seconds.
    margin : int
        Measurements either side of a truth within which a detection matches.
    """

    table: pd.DataFrame = field(repr=False)
    margin: int

    def to_frame(self) -> pd.DataFrame:
        """The table."""
        return self.table.copy()


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def score_labels(frame: pd.DataFrame | None = None, *, margin: int = 5) -> Scores:
    """Every detector on SAP's labels: a regression found within ``margin`` of its index is a true positive;
    anything else, on any series, a false positive.

    Parameters
    ----------
    frame : pandas.DataFrame, optional
        :func:`sap_frame` (loaded when None).
    margin : int
    """
    frame = sap_frame() if frame is None else frame
    truth = frame.groupby("benchmark", sort=False)["truth"].first()
    rows = []
    for name, detect in detectors().items():
        start = time.perf_counter()
        found = detect(frame)
        seconds = time.perf_counter() - start
        tp = fp = 0
        exact = 0
        for b, idx in found.items():
            t = truth[b]
            hits = [i for i in idx if t >= 0 and abs(i - t) <= margin]
            tp += bool(hits)
            exact += t in idx
            fp += len(idx) - len(hits[:1])
        positives = int((truth >= 0).sum())
        p = tp / (tp + fp) if tp + fp else 1.0
        r = tp / positives
        rows.append(
            {
                "detector": name,
                "found": tp,
                "exact": exact,
                "regressions": positives,
                "false": fp,
                "precision": p,
                "recall": r,
                "F1": _f1(p, r),
                "seconds": seconds,
            }
        )
    return Scores(table=pd.DataFrame(rows), margin=margin)


def score_planted(frame: pd.DataFrame | None = None, *, rng=None, repeats: int = 1, margin: int = 5, **sizes) -> Scores:
    """Every detector on SAP's 20 series without a regression, each with one change of each kind planted
    (:func:`plant`), ``repeats`` times: recall per kind, spikes flagged, and the step F1 (precision over all
    detections, a detection near a spike or near nothing counting as false).

    Parameters
    ----------
    frame : pandas.DataFrame, optional
    rng : int, Generator or None
    repeats : int
    margin : int
    **sizes
        Passed to :func:`plant`.
    """
    rng = np.random.default_rng(rng)
    frame = sap_frame() if frame is None else frame
    base = frame[frame["truth"] < 0]
    planted, truths = [], {}
    for r in range(repeats):
        for b, g in base.groupby("benchmark", sort=False):
            values, truth = plant(g["value"].to_numpy(), g["commit"].to_numpy(), rng=rng, **sizes)
            name = f"{b}/{r}"
            planted.append(pd.DataFrame({"benchmark": name, "commit": g["commit"].to_numpy(), "value": values}))
            truths[name] = truth
    data = pd.concat(planted, ignore_index=True)
    ramp = sizes.get("ramp", 50)
    rows = []
    for name, detect in detectors().items():
        start = time.perf_counter()
        found = detect(data)
        seconds = time.perf_counter() - start
        hit = dict.fromkeys(KINDS, 0)
        false = 0
        for b, idx in found.items():
            matched = set()
            for kind, at in truths[b]:
                hi = at + margin + (ramp if kind == "ramp" else 0)
                near = [i for i in idx if at - margin <= i <= hi]
                hit[kind] += bool(near)
                if kind != "spike":
                    matched |= set(near)
            false += len([i for i in idx if i not in matched])
        n = len(truths)
        true = sum(hit[k] for k in ("step", "spread", "ramp"))
        precision = true / (true + false) if true + false else 1.0
        rows.append(
            {
                "detector": name,
                "series": n,
                "step_recall": hit["step"] / n,
                "step_F1": _f1(precision, hit["step"] / n),
                "spread_recall": hit["spread"] / n,
                "ramp_recall": hit["ramp"] / n,
                "spikes_flagged": hit["spike"] / n,
                "precision": precision,
                "false": false,
                "seconds": seconds,
            }
        )
    return Scores(table=pd.DataFrame(rows), margin=margin)


def false_alarm_rate(series: int = 200, points: int = 500, *, noise: str = "normal", rng=None) -> float:
    """False change points per 1,000 points of :func:`history` on series with no change.

    Parameters
    ----------
    series, points : int
        How many series, and measurements (one per commit) in each.
    noise : {"normal", "t3", "bimodal"}
        Gaussian, Student t with 3 df, or a 90/10 mixture of two levels 30% apart (contention).
    rng : int, Generator or None
    """
    rng = np.random.default_rng(rng)
    shape = (series, points)
    if noise == "normal":
        e = rng.standard_normal(shape) * 0.02
    elif noise == "t3":
        e = rng.standard_t(3, shape) * 0.02
    elif noise == "bimodal":
        e = rng.standard_normal(shape) * 0.02 + np.log(1.3) * (rng.random(shape) < 0.1)
    else:
        raise ValueError(f"noise={noise!r}: expected 'normal', 't3' or 'bimodal'")
    frame = pd.DataFrame(
        {
            "benchmark": np.repeat(np.arange(series), points).astype(str),
            "commit": np.tile(np.arange(points), series),
            "value": np.exp(e).ravel(),
        }
    )
    result = history(frame)
    return 1000 * len(result.change_points) / (series * points)


if __name__ == "__main__":
    # PYTHONPATH with apache-otava 0.8.0 and ruptures 1.1.10 installed --no-deps (otava pins numpy 2.2):
    #   pip install --no-deps --target /tmp/peers apache-otava==0.8.0 ruptures==1.1.10
    #   PYTHONPATH=/tmp/peers .venv/bin/python benchmarks/history_peers.py
    import os

    os.environ.setdefault(
        "PERFSTUDY_DATA", str(__import__("pathlib").Path(__file__).resolve().parents[2] / "shared" / "datasets")
    )
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    sap = sap_frame()
    print("SAP small_2021 labels (margin 5 measurements)")
    print(score_labels(sap).table.round(3).to_string(index=False))
    print("\nPlanted into SAP's 20 series without a regression, 3 repeats (one of each kind per series)")
    print(score_planted(sap, rng=1, repeats=3).table.round(3).to_string(index=False))
    for noise in ("normal", "t3", "bimodal"):
        print(f"false change points per 1,000 points, {noise}: {false_alarm_rate(200, 500, noise=noise, rng=2):.3f}")
