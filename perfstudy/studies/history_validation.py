"""Notebook 10: :func:`perfstudy.changes.history` against practitioners' labels, planted changes and its peers.

- SAP HANA's small_2021 set: 25 series, 5 labelled regressions (the index of the first regressed measurement),
  20 labelled Stable, Spike, High deviation or Build-dependent, where nothing should be reported.
- Planted changes: each of SAP's 20 series without a regression is copied once per kind (a step, a change of
  spread, a ramp, a single spike), the change planted at a random build boundary in the series' middle half.
- The peers, run on the same rows: Perfherder's alerts (a port of Treeherder's ``perfalert.detect_changes`` and
  ``generate_new_alerts_in_series``: windows 12/24/12, t > 7, the 2% alert threshold), Apache Otava's E-divisive
  with a t-test merge (``otava.analysis.compute_change_points``, window 50, p 0.001), ruptures' PELT and binary
  segmentation (l2 cost, penalty ``2 sigma^2 log n``, ``sigma`` the robust SD of the first differences / sqrt 2).
- Calibration: false change points per 1,000 points on simulated series with no change (Gaussian, Student t3,
  a 90/10 mixture of levels 30% apart) and on real series with no change (SAP's 20, and the Go benchmarks'
  repetitions of one commit from Laaber et al.).

A detection matches a truth when it lies within ``margin`` measurements of it (a ramp: from its start to
``margin`` past its end).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from perfstudy._lib.checks import check_frame, check_int, check_names, check_real
from perfstudy._lib.result import Result
from perfstudy._lib.robust import neighbour_noise
from perfstudy._lib.types import Seed
from perfstudy.changes import history
from perfstudy.io.datasets import load

__all__ = [
    "DETECTORS",
    "KINDS",
    "NOISES",
    "Scores",
    "cost_per_series",
    "method",
    "false_alarms",
    "real_false_alarms",
    "sap_frame",
    "score_labels",
    "score_planted",
]

KINDS = ("step", "spread", "ramp", "spike")
DETECTORS = ("perfstudy", "perfherder", "otava", "pelt", "binseg")
NOISES = ("normal", "t3", "bimodal")


def method() -> dict:
    """The constants notebook 10 states, read from where they are used: ``history``'s settings at their defaults
    (:class:`perfstudy.changes.HistorySettings`), the sizes of the changes :func:`score_planted` plants, and
    Perfherder's windows, t threshold and alert percentage."""
    import inspect

    from perfstudy.changes import HistorySettings

    def defaults(function) -> dict:
        parameters = inspect.signature(function).parameters.items()
        return {k: p.default for k, p in parameters if p.default is not inspect.Parameter.empty}

    settings, plant, herder = HistorySettings(), defaults(_plant), defaults(_perfherder)
    return dict(
        fdr=settings.fdr,
        threshold=settings.threshold,
        min_sigmas=settings.min_sigmas,
        min_ratio=settings.min_ratio,
        widths=list(settings.widths),
        min_side=settings.min_side,
        step_sds=plant["size"],
        ramp_points=plant["ramp"],
        spread_factor=plant["ratio"],
        spike_sds=plant["spike"],
        perfherder=dict(
            min_back=herder["min_back"],
            max_back=herder["max_back"],
            fore=herder["fore"],
            t=herder["t_threshold"],
            alert_percent=herder["alert_threshold"],
        ),
    )


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


def _plant(
    values: np.ndarray,
    commits: np.ndarray,
    kind: str,
    rng,
    *,
    size: float = 3.0,
    ratio: float = 3.0,
    ramp: int = 50,
    spike: float = 10.0,
) -> tuple[np.ndarray, int]:
    """One change of ``kind`` planted at a random build boundary in the middle half of the series.

    The step and the ramp's rise are ``size`` robust SDs of the row series (``1.4826 MAD(diff) / sqrt 2``), on the
    log scale; a change of spread multiplies the residuals about a 9-point running median by ``ratio`` from there
    on; a spike multiplies one measurement by ``exp(spike sigma)``.
    """
    y = np.log(values).astype(float)
    n = y.size
    sigma = neighbour_noise(y)
    starts = np.flatnonzero(np.r_[True, commits[1:] != commits[:-1]])
    inside = starts[(starts >= n // 4) & (starts < (3 * n) // 4)]
    at = int(rng.choice(inside)) if inside.size else n // 2
    if kind == "step":
        y[at:] += size * sigma
    elif kind == "ramp":
        t = np.arange(n - at)
        y[at:] += size * sigma * np.minimum(t / ramp, 1.0)
    elif kind == "spread":
        pad = np.pad(y, 4, mode="edge")
        centre = np.median(np.lib.stride_tricks.sliding_window_view(pad, 9), axis=1)
        y[at:] = centre[at:] + ratio * (y[at:] - centre[at:])
    else:
        y[at] += spike * sigma
    return np.exp(y), at


# --- the peers -------------------------------------------------------------------------------------------


def _perfherder(
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
        # get_alert_properties: the percentage change is 0 when the previous value is 0
        pct = 100 * abs(fwd[i] - hist[i]) / hist[i] if hist[i] != 0 else 0.0
        if pct < alert_threshold:
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
    sigma = max(neighbour_noise(x[:, 0]), 1e-12)
    algo = ruptures.Pelt(model="l2", min_size=2) if method == "pelt" else ruptures.Binseg(model="l2", min_size=2)
    bkps = algo.fit(x).predict(pen=2 * sigma**2 * math.log(x.shape[0]))
    return [int(b) for b in bkps[:-1]]


def _perfstudy(frame: pd.DataFrame) -> dict[str, list[int]]:
    result = history(frame, commit="commit", value="value")
    found = {b: [] for b in frame["benchmark"].unique()}
    for b, i in zip(result.change_points["benchmark"], result.change_points["index"], strict=True):
        found[b].append(int(i))
    return found


def _detectors(names) -> dict[str, Callable]:
    """Each detector of ``names`` that can run here: frame -> {benchmark: [indices]}; a peer that is not
    installed is left out (the tables say which)."""
    out: dict[str, Callable] = {}

    def per_series(fn):
        def run(frame):
            groups = frame.groupby("benchmark", sort=False)
            return {b: fn(g["value"].to_numpy(), g["commit"].to_numpy()) for b, g in groups}

        return run

    for name in names:
        if name == "perfstudy":
            out[name] = _perfstudy
        elif name == "perfherder":
            out[name] = per_series(_perfherder)
        elif name == "otava":
            try:
                import otava.analysis  # noqa: F401
            except ImportError:
                continue
            out[name] = per_series(_otava)
        else:
            try:
                import ruptures  # noqa: F401
            except ImportError:
                continue
            out[name] = per_series(lambda v, c, method=name: _ruptures(v, method))
    return out


@dataclass(frozen=True)
class Scores(Result):
    """Detectors scored on one question, one row per detector (or per series kind).

    Attributes
    ----------
    table : pandas.DataFrame
        The counts, rates and seconds; ``detector`` names the row.
    margin : int
        Measurements either side of a truth within which a detection matches.
    missing : tuple of str
        Detectors asked for that are not installed here.
    found : mapping
        Detector to ``{benchmark: [index, ...]}``, what each reported (:func:`score_labels` only).
    missed : pandas.DataFrame or None
        :func:`score_planted` only: ``detector``, ``kind``, ``series`` (the SAP series copied) and ``missed``,
        how many of its copies of that kind the detector missed.
    """

    table: pd.DataFrame = field(repr=False)
    margin: int
    missing: tuple[str, ...] = ()
    found: dict = field(default_factory=dict, repr=False)
    missed: pd.DataFrame | None = field(default=None, repr=False)

    def to_frame(self) -> pd.DataFrame:
        """The table."""
        return self.table.copy()


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def _checked(frame, detectors, margin):
    if frame is None:
        frame = sap_frame()
    check_frame("frame", frame, ["benchmark", "commit", "value", "truth"], numeric=["value", "truth"])
    detectors = check_names("detectors", detectors, DETECTORS)
    margin = check_int("margin", margin, minimum=0)
    return frame, detectors, margin


def score_labels(frame: pd.DataFrame | None = None, *, margin: int = 5, detectors=DETECTORS) -> Scores:
    """Every detector on SAP's labels: a labelled regression found within ``margin`` of its index is a true
    positive (``exact`` counts those at the index itself); any other detection, on any series, is false.

    Parameters
    ----------
    frame : pandas.DataFrame, optional
        :func:`sap_frame` (loaded when None).
    margin : int
        Measurements either side of a label within which a detection matches.
    detectors : sequence of str
        Among :data:`DETECTORS`.
    """
    frame, names, margin = _checked(frame, detectors, margin)
    truth = frame.groupby("benchmark", sort=False)["truth"].first()
    rows = []
    found_by = _detectors(names)
    reported = {}
    for name, detect in found_by.items():
        start = time.perf_counter()
        found = reported[name] = detect(frame)
        seconds = time.perf_counter() - start
        tp = fp = exact = 0
        for b, idx in found.items():
            t = truth[b]
            hits = [i for i in idx if t >= 0 and abs(i - t) <= margin]  # pyright: ignore
            tp += bool(hits)
            exact += int(t >= 0 and t in idx)  # pyright: ignore
            fp += len(idx) - len(hits[:1])
        positives = int((truth >= 0).sum())  # pyright: ignore
        p = tp / (tp + fp) if tp + fp else 1.0
        r = tp / positives if positives else 1.0
        rows.append(
            {"detector": name, "found": tp, "exact": exact, "labelled": positives, "false": fp, "precision": p,
             "recall": r, "F1": _f1(p, r), "seconds": seconds}
        )  # fmt: skip
    missing = tuple(n for n in names if n not in found_by)
    return Scores(table=pd.DataFrame(rows), margin=margin, missing=missing, found=reported)


def score_planted(
    frame: pd.DataFrame | None = None,
    *,
    rng: Seed = None,
    repeats: int = 1,
    margin: int = 5,
    size: float = 3.0,
    ratio: float = 3.0,
    ramp: int = 50,
    spike: float = 10.0,
    detectors=DETECTORS,
) -> Scores:
    """Every detector on SAP's 20 series without a regression, each copied once per kind with one change of that
    kind planted (module text), ``repeats`` times: the recall of each kind, the share of spikes flagged, false
    detections per copy, and the step F1 (precision over the step copies: a detection away from the step is
    false).

    Parameters
    ----------
    frame : pandas.DataFrame, optional
        :func:`sap_frame` (loaded when None); the series with ``truth < 0`` are used.
    rng : int, Generator or None
        Where the changes go.
    repeats : int
        Copies of each series and kind.
    margin : int
        Measurements either side of a change within which a detection matches.
    size : float
        The step and the ramp's rise, in robust SDs of the row series (log scale).
    ratio : float
        The change of spread, a factor on the residuals about a 9-point running median.
    ramp : int
        The ramp's length in measurements.
    spike : float
        The spike, in robust SDs.
    detectors : sequence of str
    """
    frame, names, margin = _checked(frame, detectors, margin)
    rng = np.random.default_rng(rng)
    repeats = check_int("repeats", repeats)
    size = check_real("size", size, positive=True)
    ratio = check_real("ratio", ratio, positive=True)
    ramp = check_int("ramp", ramp)
    spike = check_real("spike", spike, positive=True)
    base = frame[frame["truth"] < 0]
    if base.empty:
        raise ValueError("frame: no series without a labelled regression (truth < 0) to plant changes into")
    planted, truths = [], {}
    for r in range(repeats):
        for b, g in base.groupby("benchmark", sort=False):
            for kind in KINDS:
                values, at = _plant(
                    g["value"].to_numpy(), g["commit"].to_numpy(), kind, rng, size=size, ratio=ratio, ramp=ramp,  # pyright: ignore
                    spike=spike,
                )  # fmt: skip
                name = f"{b}/{kind}/{r}"
                planted.append(pd.DataFrame({"benchmark": name, "commit": g["commit"].to_numpy(), "value": values}))  # pyright: ignore
                truths[name] = (kind, at)
    data = pd.concat(planted, ignore_index=True)
    rows, misses = [], []
    found_by = _detectors(names)
    for name, detect in found_by.items():
        start = time.perf_counter()
        found = detect(data)
        seconds = time.perf_counter() - start
        hit = dict.fromkeys(KINDS, 0)
        false = dict.fromkeys(KINDS, 0)
        for b, idx in found.items():
            kind, at = truths[b]
            hi = at + margin + (ramp if kind == "ramp" else 0)
            near = [i for i in idx if at - margin <= i <= hi]
            hit[kind] += bool(near)
            if not near and kind != "spike":
                misses.append({"detector": name, "kind": kind, "series": b.split("/")[0]})
            false[kind] += len(idx) - (len(near[:1]) if kind != "spike" else 0)
        n = len(truths) // len(KINDS)
        p_step = hit["step"] / (hit["step"] + false["step"]) if hit["step"] + false["step"] else 1.0
        rows.append(
            {"detector": name, "series": n, "step_recall": hit["step"] / n, "step_F1": _f1(p_step, hit["step"] / n),
             "spread_recall": hit["spread"] / n, "ramp_recall": hit["ramp"] / n, "spikes_flagged": hit["spike"] / n,
             "false_per_copy": sum(false.values()) / len(truths), "seconds": seconds}
        )  # fmt: skip
    missing = tuple(n for n in names if n not in found_by)
    missed = pd.DataFrame(misses, columns=["detector", "kind", "series"])
    missed = missed.groupby(["detector", "kind", "series"], sort=False).size().reset_index(name="missed")  # pyright: ignore
    return Scores(table=pd.DataFrame(rows), margin=margin, missing=missing, missed=missed)


def _null_frame(series: int, points: int, noise: str, rng: np.random.Generator) -> pd.DataFrame:
    shape = (series, points)
    if noise == "normal":
        e = rng.standard_normal(shape) * 0.02
    elif noise == "t3":
        e = rng.standard_t(3, shape) * 0.02
    else:  # contention: one run in ten 30% slower
        e = rng.standard_normal(shape) * 0.02 + np.log(1.3) * (rng.random(shape) < 0.1)
    return pd.DataFrame(
        {
            "benchmark": np.repeat(np.arange(series), points).astype(str),
            "commit": np.tile(np.arange(points), series),
            "value": np.exp(e).ravel(),
        }
    )


def false_alarms(series: int = 200, points: int = 500, *, noises=NOISES, rng: Seed = None) -> Scores:
    """False change points of :func:`history` on simulated series with no change, one row per noise.

    Parameters
    ----------
    series, points : int
        How many series per noise, and measurements (one per commit) in each.
    noises : sequence of str
        Among :data:`NOISES`: Gaussian (SD 2%), Student t with 3 df (scale 2%), or a 90/10 mixture of two levels
        30% apart (contention).
    rng : int, Generator or None

    Returns
    -------
    Scores
        Per noise: ``change_points``, ``series_with_any`` and ``per_1000_points``.
    """
    series = check_int("series", series)
    points = check_int("points", points, minimum=10)
    noises = check_names("noises", noises, NOISES)
    rng = np.random.default_rng(rng)
    rows = []
    for noise in noises:
        start = time.perf_counter()
        result = history(_null_frame(series, points, noise, rng))
        cp = result.change_points
        rows.append(
            {"detector": "perfstudy", "noise": noise, "series": series, "points": points, "change_points": len(cp),
             "series_with_any": int(cp["benchmark"].nunique()), "per_1000_points": 1000 * len(cp) / (series * points),  # pyright: ignore
             "seconds": time.perf_counter() - start}
        )  # fmt: skip
    return Scores(table=pd.DataFrame(rows), margin=0)


def real_false_alarms() -> Scores:
    """False change points of :func:`history` on real series with no change: SAP's 20 series without a labelled
    regression (by build), and the 20 Go benchmarks of Laaber et al., each the repetitions of one commit in trial
    order (one measurement a point).

    Returns
    -------
    Scores
        Per source: ``series``, ``points``, ``change_points``, ``per_1000_points``.
    """
    sap = sap_frame()
    sap = sap[sap["truth"] < 0]
    go = pd.concat([load("laaber-golang-snappy"), load("laaber-hashicorp-golang-lru")], ignore_index=True)
    go = pd.DataFrame({"benchmark": go["benchmark"], "commit": go["batch"], "value": go["value"]})
    rows = []
    for source, frame in (("SAP without a regression", sap), ("Go repetitions of one commit", go)):
        cp = history(frame[["benchmark", "commit", "value"]]).change_points  # pyright: ignore
        rows.append(
            {"detector": "perfstudy", "source": source, "series": int(frame["benchmark"].nunique()),  # pyright: ignore
             "points": len(frame), "change_points": len(cp), "per_1000_points": 1000 * len(cp) / len(frame)}
        )  # fmt: skip
    return Scores(table=pd.DataFrame(rows), margin=0)


def cost_per_series(series: int = 1000, points: int = 200, *, rng: Seed = None, detectors=DETECTORS) -> Scores:
    """Seconds each detector takes per 1,000 series of ``points`` measurements (Gaussian, one planted step in
    half of them), all detectors on the same frame in this process.

    Parameters
    ----------
    series, points : int
    rng : int, Generator or None
    detectors : sequence of str
    """
    series = check_int("series", series)
    points = check_int("points", points, minimum=10)
    names = check_names("detectors", detectors, DETECTORS)
    rng = np.random.default_rng(rng)
    frame = _null_frame(series, points, "normal", rng)
    steps = (np.arange(series) % 2 == 0).repeat(points) & (np.tile(np.arange(points), series) >= points // 2)
    frame["value"] = frame["value"] * np.where(steps, 1.1, 1.0)
    rows = []
    found_by = _detectors(names)
    for name, detect in found_by.items():
        start = time.perf_counter()
        detect(frame)
        seconds = time.perf_counter() - start
        rows.append({"detector": name, "series": series, "points": points, "seconds": seconds,
                     "seconds_per_1000_series": 1000 * seconds / series})  # fmt: skip
    missing = tuple(n for n in names if n not in found_by)
    return Scores(table=pd.DataFrame(rows), margin=0, missing=missing)
