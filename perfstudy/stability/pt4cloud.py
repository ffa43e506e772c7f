"""PT4Cloud: run in intervals, stop when another interval no longer changes the distribution.

He, Manns, Saunders, Wang, Pollock, Soffa, "A Statistics-Based Performance Testing Methodology for
Cloud Applications", ESEC/FSE 2019.

- Section 3.1: the distributions ``D1`` (intervals so far) and ``D2`` (with one more) are Gaussian
  KDEs evaluated on 1,000 strips; their symmetric Kullback-Leibler divergence
  ``J = KL(p||q) + KL(q||p)`` in bits gives the stability probability ``P = 2^-J``
  (the product of the multinomial likelihoods ``2^-KL`` both ways).
- Figure 2: stop as soon as ``P >= po`` (the objective probability, 0.9 in the paper); report the
  final distribution with a point-wise bootstrap confidence band (section 3.2; 99%, 1,000 resamples).
- Section 6 and Figure 7: the short-interval variant (grow the interval until two intervals agree,
  optionally validate on two more) and hourly sampling (run only a portion of each hour).
- Section 5: accuracy is the same probability between the result and the ground truth.

Choices the paper leaves open, made here and documented:

- *Strips* cover the range of both samples together, ``[min, max]`` of their union, cut into
  ``strips`` equal strips; a strip's density is the KDE's average over it (its probability mass
  over its width), so no mass falls between strips (:mod:`perfstudy.stability.kde`).
- *Bandwidth*: Scott's rule for each sample separately (scipy's default).
- *Zero or underflowing densities*: both densities are raised to ``FLOOR`` (1e-12) times the larger
  of their two peaks and renormalised to integrate to 1 over the strips. So ``J`` is finite and
  ``P`` is in ``[0, 1]`` (Gibbs' inequality on the renormalised densities); ``P`` is never NaN and
  identical samples give exactly 1. Regions where both densities are below the floor contribute
  nothing; the binned KDE's FFT round-off (~1e-16 of the peak) lies far below it.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from perfstudy._lib.checks import (
    check_allocation,
    check_bool,
    check_choice,
    check_duration,
    check_fraction,
    check_frame,
    check_int,
    check_real,
    check_resamples,
    check_sample,
    check_timestamps,
)
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed
from perfstudy.stability.kde import (
    MAX_STRIPS,
    RESOLUTION,
    Grid,
    GridTooFine,
    binned_density,
    bootstrap_densities,
    exact_density,
    scott_bandwidth,
    strip_grid,
)

__all__ = [
    "FLOOR",
    "MIN_SAMPLES",
    "Divergence",
    "divergence",
    "stability_probability",
    "accuracy",
    "ConfidenceBand",
    "confidence_band",
    "split_intervals",
    "PT4CloudResult",
    "pt4cloud",
    "ShortIntervalResult",
    "pt4cloud_short",
    "hourly_sample",
]

#: densities are floored at this fraction of the larger peak before the divergence is taken
FLOOR = 1e-12
#: fewest points in a sample (an interval) for a kernel density estimate
MIN_SAMPLES = 5
#: most intervals a series may be cut into
MAX_INTERVALS = 1_000_000


def _sample(name: str, x) -> np.ndarray:
    return check_sample(name, x, minimum=MIN_SAMPLES, method="a kernel density estimate (bandwidth 0)")


def _density(x: np.ndarray, grid: Grid, method: str, bandwidth_factor: float = 1.0) -> np.ndarray:
    bandwidth = bandwidth_factor * scott_bandwidth(x)
    if method == "binned":
        try:
            return binned_density(x, grid, bandwidth)
        except GridTooFine:  # a bandwidth tiny against the range (far outliers): sum directly
            return exact_density(x, grid, bandwidth)
    if method == "exact":
        return exact_density(x, grid, bandwidth)
    raise ValueError(f"method={method!r}: expected 'binned' or 'exact'")


@dataclass(frozen=True, eq=False)
class Divergence(Result):
    """Symmetric Kullback-Leibler divergence of two samples' KDEs on common strips (section 3.1).

    Attributes
    ----------
    probability : float
        ``2 ** -bits``: the stability probability (or accuracy, against a ground truth).
    bits : float
        ``J = KL(p||q) + KL(q||p)`` in bits.
    kl_pq, kl_qp : float
    midpoints, p, q : ndarray
        Strip midpoints and the floored, renormalised densities.
    """

    probability: float
    bits: float
    kl_pq: float
    kl_qp: float
    midpoints: np.ndarray
    p: np.ndarray
    q: np.ndarray


def _kl_bits(p: np.ndarray, q: np.ndarray, step: float) -> float:
    return float(np.sum(p * np.log2(p / q)) * step)


def _floored(p: np.ndarray, q: np.ndarray, step: float):
    floor = FLOOR * max(float(p.max()), float(q.max()))
    p = np.maximum(p, floor)
    q = np.maximum(q, floor)
    return p / (p.sum() * step), q / (q.sum() * step)


def divergence(d1, d2, *, strips: int = 1000, method: str = "binned", bandwidth_factor: float = 1.0) -> Divergence:
    """``J`` and ``P = 2^-J`` between two samples (He et al., section 3.1, Eq. 1-2).

    Parameters
    ----------
    d1, d2 : array
        The two samples (e.g. the runs of the intervals so far, and the same plus one more interval).
    strips : int
        Strips of the numerical integration over the union of the samples' ranges (paper: 1,000).
    method : {"binned", "exact"}
        ``"binned"``: linear binning + FFT (:mod:`perfstudy.stability.kde`; ~2 ms for 60,000 points); when
        the bandwidth is too small against the range for a fine grid of 4 million nodes (outliers
        10^5 bandwidths away), the exact sum is used instead;
        ``"exact"``: ``scipy.stats.gaussian_kde`` at every midpoint (~1 s for 60,000 points).
    bandwidth_factor : float
        Multiplies each sample's Scott bandwidth (the paper does not state its bandwidth; 1 is
        Scott's rule, larger smooths more).

    Raises
    ------
    ValueError
        A sample with NaN or infinite values, fewer than ``MIN_SAMPLES`` values, or no spread.
    """
    x = _sample("d1", d1)
    y = _sample("d2", d2)
    strips = check_int("strips", strips, minimum=2, maximum=MAX_STRIPS)
    check_choice("method", method, ("binned", "exact"))
    bandwidth_factor = check_real("bandwidth_factor", bandwidth_factor, positive=True)
    grid = strip_grid(x, y, strips=strips)
    p, q = _floored(_density(x, grid, method, bandwidth_factor), _density(y, grid, method, bandwidth_factor), grid.step)
    kl_pq = max(_kl_bits(p, q, grid.step), 0.0)  # >= 0 up to round-off
    kl_qp = max(_kl_bits(q, p, grid.step), 0.0)
    bits = kl_pq + kl_qp
    return Divergence(float(2.0**-bits), bits, kl_pq, kl_qp, grid.midpoints, p, q)


def stability_probability(
    d1, d2, *, strips: int = 1000, method: str = "binned", bandwidth_factor: float = 1.0
) -> float:
    """PT4Cloud's probability that ``d1`` and ``d2`` come from the same distribution, ``2^-J`` (section 3.1).

    Never NaN for valid input; identical samples give exactly 1. See :func:`divergence`.

    Parameters
    ----------
    d1, d2 : array_like, 1-D
        The two samples.
    strips : int
        Strips of the common grid.
    method : {"binned", "exact"}
        KDE evaluation, see :mod:`perfstudy.stability.kde`.
    bandwidth_factor : float
        Multiplies Scott's bandwidth (see :func:`divergence`).
    """
    return divergence(d1, d2, strips=strips, method=method, bandwidth_factor=bandwidth_factor).probability


def accuracy(
    samples, ground_truth, *, strips: int = 1000, method: str = "binned", bandwidth_factor: float = 1.0
) -> float:
    """The paper's accuracy (section 5.1): the stability probability of a result against the ground truth.

    Parameters
    ----------
    samples : array_like, 1-D
        The reported runs.
    ground_truth : array_like, 1-D
        Runs of the ground truth.
    strips, method, bandwidth_factor
        As in :func:`divergence`.
    """
    samples = _sample("samples", samples)
    ground_truth = _sample("ground_truth", ground_truth)
    return stability_probability(samples, ground_truth, strips=strips, method=method, bandwidth_factor=bandwidth_factor)


@dataclass(frozen=True, eq=False)
class ConfidenceBand(Result):
    """A KDE with its point-wise bootstrap confidence band (section 3.2).

    Attributes
    ----------
    midpoints, density : ndarray
        The KDE of the sample at the strip midpoints.
    low, high : ndarray
        Point-wise percentile band at ``confidence`` of the KDEs of ``replicates`` resamples (same
        bandwidth).
    confidence : float
    replicates : int
    bandwidth : float
    """

    midpoints: np.ndarray
    density: np.ndarray
    low: np.ndarray
    high: np.ndarray
    confidence: float
    replicates: int
    bandwidth: float

    def to_frame(self) -> pd.DataFrame:
        """One row per strip: ``value`` (its midpoint), ``density``, ``low``, ``high``."""
        return pd.DataFrame({"value": self.midpoints, "density": self.density, "low": self.low, "high": self.high})


def confidence_band(
    samples,
    *,
    confidence: float = 0.99,
    replicates: int = 1000,
    strips: int = 1000,
    grid: Grid | None = None,
    rng: Seed = None,
    bandwidth_factor: float = 1.0,
) -> ConfidenceBand:
    """Point-wise bootstrap confidence band of the density (He et al., section 3.2).

    Each of ``replicates`` resamples (with replacement, same size) gets a KDE with the bandwidth of
    the original sample; at each strip midpoint the band runs from the ``(1 - confidence)/2`` to the
    ``(1 + confidence)/2`` quantile of those KDEs. Keeping the bandwidth fixed makes the band one for the
    smoothed density ``E[f_h]`` that the KDE estimates. Resampled KDEs are binned (see
    :mod:`perfstudy.stability.kde`); if outliers make the fine grid too large, it is coarsened with a warning.

    Parameters
    ----------
    samples : array_like, 1-D
        The runs whose density is estimated.
    confidence : float
        Point-wise coverage (paper: 0.99).
    replicates : int
        Bootstrap resamples (paper: 1,000).
    strips : int
        Strips of the grid, when ``grid`` is None.
    grid : Grid, optional
        Evaluate on this grid instead.
    rng : None, int or Generator
        Seed of the resamples.
    bandwidth_factor : float
        Times Scott's bandwidth (as in :func:`divergence`).
    """
    x = _sample("samples", samples)
    confidence = check_fraction("confidence", confidence)
    bandwidth_factor = check_real("bandwidth_factor", bandwidth_factor, positive=True)
    replicates = check_resamples("replicates", replicates, minimum=2)
    strips = check_int("strips", strips, minimum=2, maximum=MAX_STRIPS)
    if grid is not None and not isinstance(grid, Grid):
        raise TypeError(f"grid={grid!r}: expected a Grid (perfstudy.stability.kde.strip_grid) or None")
    check_allocation("replicates", replicates, 8.0 * replicates * (strips if grid is None else grid.n) * 2)
    rng = np.random.default_rng(rng)
    grid = strip_grid(x, strips=strips) if grid is None else grid
    bandwidth = bandwidth_factor * scott_bandwidth(x)
    density = _density(x, grid, "binned", bandwidth_factor)
    resolution = RESOLUTION
    while True:  # far outliers: coarsen the fine grid rather than fail (documented above)
        try:
            resampled = bootstrap_densities(x, grid, bandwidth, replicates=replicates, rng=rng, resolution=resolution)
            break
        except GridTooFine:
            if resolution <= 1:
                raise
            resolution /= 4
            warnings.warn(
                f"confidence_band: the bandwidth is tiny against the range; resampled KDEs binned at "
                f"bandwidth/{resolution:g}",
                stacklevel=2,
            )
    low, high = np.quantile(resampled, [(1 - confidence) / 2, (1 + confidence) / 2], axis=0)
    return ConfidenceBand(grid.midpoints, density, low, high, confidence, replicates, bandwidth)


def split_intervals(samples, intervals=None, *, empty: str = "error") -> tuple[list[np.ndarray], int]:
    """Cut measurements into consecutive intervals.

    - ``samples`` a sequence of arrays, ``intervals`` None: one array per interval, as given.
    - ``samples`` a DataFrame with ``timestamp`` and ``value``, ``intervals`` a duration (``"7D"``,
      ``pd.Timedelta``): interval ``k`` holds the runs that started in
      ``[t0 + k d, t0 + (k + 1) d)``, ``t0`` the first timestamp. The last interval counts as
      complete if its last run started in its final 1%. An interval with no runs (a gap in the
      measurements) is an error, or with ``empty="skip"`` is left out (the intervals then are the
      periods that have runs).
    - ``samples`` a 1-D array in run order, ``intervals`` an int: consecutive intervals of that many
      runs.

    A trailing incomplete interval is not used; its run count is returned, never silently dropped.

    Parameters
    ----------
    samples : sequence of arrays, DataFrame or array_like
        As described above.
    intervals : None, duration or int
        As described above.
    empty : {"error", "skip"}
        What to do with an interval without runs.

    Returns
    -------
    intervals : list of ndarray
    unused : int
        Runs after the last complete interval.
    """
    check_choice("empty", empty, ("error", "skip"))
    if isinstance(samples, pd.DataFrame):
        check_frame("samples", samples, ("timestamp",), numeric=("value",))
        if intervals is None or isinstance(intervals, (int, np.integer)):
            raise ValueError("intervals: a frame is cut by a duration, e.g. intervals='7D'")
        duration = check_duration("intervals", intervals)
        stamps = check_timestamps("samples", samples["timestamp"])
        order = np.argsort(stamps.to_numpy(), kind="stable")
        stamps = stamps.iloc[order]
        values = check_sample("samples", samples["value"].to_numpy(dtype=float)[order])
        elapsed = stamps - stamps.iloc[0]
        last = int(elapsed.iloc[-1] // duration)
        # the last interval counts as complete if its last run started in its final 1%
        complete = last + int(elapsed.iloc[-1] >= duration * (last + 0.99))
        if complete > MAX_INTERVALS:
            raise ValueError(
                f"intervals={intervals!r}: cuts {elapsed.iloc[-1]} of measurements into {complete:,} intervals "
                f"(at most {MAX_INTERVALS:,}); expected a longer duration"
            )
        index = (elapsed // duration).to_numpy().astype(np.int64)
        counts = np.bincount(index, minlength=complete + 1)
        gaps = np.flatnonzero(counts[:complete] == 0)
        if gaps.size and empty == "error":
            raise ValueError(
                f"intervals: interval(s) {gaps.tolist()[:10]} of {duration} hold no runs; "
                "pass empty='skip' to leave them out"
            )
        bounds = np.r_[0, np.cumsum(counts)]  # index is sorted: interval k is values[bounds[k]:bounds[k + 1]]
        parts = [values[bounds[k] : bounds[k + 1]] for k in range(complete) if counts[k] > 0]
        return parts, int(counts[complete])
    if intervals is None:
        if isinstance(samples, np.ndarray) or not isinstance(samples, (list, tuple)):
            raise TypeError("samples: without intervals, expected a list of arrays, one per interval")
        parts = []
        for k, part in enumerate(samples):
            try:
                parts.append(np.asarray(part, dtype=float))
            except (ValueError, TypeError):
                raise TypeError(f"samples: interval {k} is not an array of numbers") from None
        return parts, 0
    if isinstance(intervals, (str, pd.Timedelta, pd.DateOffset)):
        raise TypeError(
            f"samples: a duration (intervals={intervals!r}) cuts a DataFrame with timestamps, not a {type(samples).__name__}"
        )
    runs = check_int("intervals", intervals, minimum=MIN_SAMPLES)
    x = check_sample("samples", samples)
    complete = x.size // runs
    return [x[k * runs : (k + 1) * runs] for k in range(complete)], int(x.size - complete * runs)


@dataclass(frozen=True, eq=False)
class PT4CloudResult(Result):
    """Outcome of the PT4Cloud workflow (Figure 2).

    Attributes
    ----------
    intervals_used : int
        Intervals in the reported distribution.
    stopped : bool
        True if ``P >= objective_probability`` was reached; False if the intervals ran out first.
    probabilities : ndarray
        ``P(D_{k-1}, D_k)`` after interval ``k`` = 2, 3, ...
    runs_per_interval : ndarray
    sample : ndarray
        The runs of the reported distribution.
    band : ConfidenceBand or None
        Its KDE and point-wise confidence band.
    objective_probability, confidence : float
    unused_runs : int
        Runs of a trailing incomplete interval (not used).
    """

    intervals_used: int
    stopped: bool
    probabilities: np.ndarray
    runs_per_interval: np.ndarray
    sample: np.ndarray
    band: ConfidenceBand | None
    objective_probability: float
    confidence: float
    unused_runs: int = 0

    @property
    def runs(self) -> int:
        """Runs in the reported distribution."""
        return int(self.sample.size)

    def to_frame(self) -> pd.DataFrame:
        """One row per comparison: the interval added, runs so far, P, and whether it met the objective."""
        k = np.arange(2, 2 + self.probabilities.size)
        return pd.DataFrame(
            {
                "interval": k,
                "runs": np.cumsum(self.runs_per_interval)[k - 1],
                "probability": self.probabilities,
                "stable": self.probabilities >= self.objective_probability,
            }
        )


def pt4cloud(
    samples,
    *,
    intervals=None,
    objective_probability: float = 0.9,
    confidence: float = 0.99,
    replicates: int = 1000,
    strips: int = 1000,
    band: bool = True,
    method: str = "binned",
    empty: str = "error",
    rng: Seed = None,
    bandwidth_factor: float = 1.0,
) -> PT4CloudResult:
    """The PT4Cloud workflow of Figure 2 on recorded measurements.

    Step 1: ``S`` = interval 1, ``D1`` = KDE(S). Step 2-3: add the next interval to ``S``, ``D2`` =
    KDE(S), ``P`` = :func:`stability_probability` of ``D1`` and ``D2``. Stop and report ``D2`` if
    ``P >= objective_probability``; otherwise ``D1`` = ``D2`` and go on. If the intervals run out
    first, ``stopped`` is False and all of them are reported.

    Parameters
    ----------
    samples, intervals
        See :func:`split_intervals`: a sequence of per-interval arrays; a frame with ``timestamp``
        and a duration such as ``"7D"`` (the paper's week); or an array in run order and a run count.
        ``empty`` says what to do with intervals without runs.
    objective_probability : float
        ``po``; 0.9 in the paper.
    confidence, replicates : float, int
        Of the band on the reported distribution (paper: 99%, 1,000). ``band=False`` skips it.
    strips, method
        As in :func:`stability_probability`.
    band : bool
        Compute the confidence band of the reported distribution.
    rng : None, int or Generator
        Seed of the band's resamples.
    empty : {"error", "skip"}
        As in :func:`split_intervals`.
    bandwidth_factor : float
        Times Scott's bandwidth, in every KDE of the workflow and its band (the paper gives no bandwidth).

    Raises
    ------
    ValueError
        Fewer than two intervals; an interval with fewer than ``MIN_SAMPLES`` runs, with NaN, or
        (the first one) constant.

    Examples
    --------
    Four intervals of 400 runs from one distribution: the second already agrees with the first.

    >>> import numpy as np
    >>> from perfstudy.stability.pt4cloud import pt4cloud
    >>> rng = np.random.default_rng(0)
    >>> result = pt4cloud([rng.gamma(9, 1, 400) for _ in range(4)], band=False)
    >>> result.stopped, result.intervals_used
    (True, 2)
    """
    objective_probability = check_fraction("objective_probability", objective_probability)
    confidence = check_fraction("confidence", confidence)
    band = check_bool("band", band)
    bandwidth_factor = check_real("bandwidth_factor", bandwidth_factor, positive=True)
    parts, unused = split_intervals(samples, intervals, empty=empty)
    if len(parts) < 2:
        raise ValueError(f"samples: {len(parts)} complete interval(s); PT4Cloud compares at least two")
    for k, part in enumerate(parts):
        if part.size < MIN_SAMPLES:
            raise ValueError(f"samples: interval {k}: {part.size} runs; each needs at least {MIN_SAMPLES} for a KDE")
        if not np.all(np.isfinite(part)):
            raise ValueError(f"samples: interval {k}: {int(np.sum(~np.isfinite(part)))} NaN or infinite values")
    current = _sample("samples: interval 0", parts[0])
    probabilities = []
    used = len(parts)
    stopped = False
    for k in range(1, len(parts)):
        combined = np.concatenate([current, parts[k]])
        probabilities.append(
            stability_probability(current, combined, strips=strips, method=method, bandwidth_factor=bandwidth_factor)
        )
        current = combined
        if probabilities[-1] >= objective_probability:
            used, stopped = k + 1, True
            break
    result_band = (
        confidence_band(
            current,
            confidence=confidence,
            replicates=replicates,
            strips=strips,
            rng=rng,
            bandwidth_factor=bandwidth_factor,
        )
        if band
        else None
    )
    return PT4CloudResult(
        used,
        stopped,
        np.array(probabilities),
        np.array([p.size for p in parts]),
        current,
        result_band,
        objective_probability,
        confidence,
        unused,
    )


@dataclass(frozen=True, eq=False)
class ShortIntervalResult(Result):
    """Outcome of the short-interval variant (Figure 7).

    Attributes
    ----------
    interval : object
        The interval length that stabilised (a duration or a run count), or the last one tried.
    stopped : bool
    validated : bool or None
        None without validation.
    sample : ndarray
        The reported runs (the first two intervals of the final length, or the standard workflow's).
    runs_spent : int
        Runs of every round tried, validation included: what the test would have cost live,
        where each new round takes new runs.
    rounds : DataFrame
        One row per interval length tried: ``interval``, ``probability``, ``validation_probability``,
        ``runs``, ``outcome``.
    standard : PT4CloudResult or None
        The standard workflow's result if the ladder reached its last (longest) length.
    """

    interval: object
    stopped: bool
    validated: bool | None
    sample: np.ndarray
    runs_spent: int
    rounds: pd.DataFrame
    standard: PT4CloudResult | None = field(default=None)

    def to_frame(self) -> pd.DataFrame:
        """One row per round of the short-interval procedure (``rounds``)."""
        return self.rounds.copy()


def pt4cloud_short(
    samples,
    *,
    interval_lengths,
    validate: bool | int | str | pd.Timedelta | None = False,
    objective_probability: float = 0.9,
    strips: int = 1000,
    method: str = "binned",
    bandwidth_factor: float = 1.0,
) -> ShortIntervalResult:
    """The short-interval variant of Figure 7 (He et al., section 6.1).

    For each length in ``interval_lengths`` (ascending; the last is the standard interval, a week
    in the paper): run two intervals; if the distribution after both agrees with the first
    (``P >= po``) the result is reported, after, with ``validate``, two more intervals whose
    distribution must agree with it too. Otherwise the next longer length starts again from the
    beginning (the paper's offline evaluation re-cuts the recorded runs the same way). At the last
    length the standard workflow (:func:`pt4cloud`) takes over, with as many intervals as the data hold.

    ``samples`` and each length are as in :func:`split_intervals` (a frame and durations, or an
    array in run order and run counts). ``validate`` is True, False, or a length: validate the
    lengths shorter than it (the paper recommends validation below 3.5 days).

    Parameters
    ----------
    samples : DataFrame or array_like
        As in :func:`split_intervals`.
    interval_lengths : sequence
        Durations (with a frame) or run counts (with an array), ascending.
    validate : bool or duration or int
        As described above.
    objective_probability : float
        ``po``.
    strips, method, bandwidth_factor
        As in :func:`stability_probability` (and :func:`pt4cloud` at the last length).
    """
    objective_probability = check_fraction("objective_probability", objective_probability)
    bandwidth_factor = check_real("bandwidth_factor", bandwidth_factor, positive=True)
    if isinstance(interval_lengths, (str, bytes)) or not isinstance(interval_lengths, (list, tuple)):
        raise TypeError(f"interval_lengths={interval_lengths!r}: expected a list of durations, e.g. ['1D', '3D', '7D']")
    lengths = list(interval_lengths)
    if not lengths:
        raise ValueError("interval_lengths: expected at least one length")
    if not (isinstance(validate, (bool, np.bool_)) or validate is None):
        if isinstance(samples, pd.DataFrame):
            check_duration("validate", validate)
        else:
            check_int("validate", validate, minimum=MIN_SAMPLES)
    for length in lengths:
        if isinstance(length, (str, pd.Timedelta, pd.DateOffset)) and not isinstance(samples, pd.DataFrame):
            raise TypeError(
                f"samples: durations in interval_lengths cut a DataFrame with timestamps, not a {type(samples).__name__}"
            )
        if isinstance(samples, pd.DataFrame):
            check_duration("interval_lengths", length)
        else:
            check_int("interval_lengths", length, minimum=MIN_SAMPLES)
    rows, spent = [], 0
    for position, length in enumerate(lengths):
        parts, _ = split_intervals(samples, length)
        if position == len(lengths) - 1:
            standard = pt4cloud(
                parts,
                objective_probability=objective_probability,
                strips=strips,
                band=False,
                method=method,
                bandwidth_factor=bandwidth_factor,
            )
            spent += standard.runs
            rows.append(
                dict(
                    interval=length,
                    probability=standard.probabilities[-1],
                    validation_probability=np.nan,
                    runs=standard.runs,
                    outcome="standard workflow",
                )
            )
            return ShortIntervalResult(
                length, standard.stopped, None, standard.sample, spent, pd.DataFrame(rows), standard
            )
        if len(parts) < 2:
            rows.append(
                dict(
                    interval=length,
                    probability=np.nan,
                    validation_probability=np.nan,
                    runs=0,
                    outcome="too few runs for two intervals",
                )
            )
            continue
        first, both = _sample("samples: interval 0", parts[0]), np.concatenate(parts[:2])
        probability = stability_probability(
            first, both, strips=strips, method=method, bandwidth_factor=bandwidth_factor
        )
        runs = both.size
        row = dict(interval=length, probability=probability, validation_probability=np.nan, runs=runs)
        if probability < objective_probability:
            spent += runs
            rows.append(dict(row, outcome="unstable: longer interval"))
            continue
        wants_check = validate if isinstance(validate, bool) else _shorter(length, validate)
        if not wants_check:
            spent += runs
            rows.append(dict(row, outcome="stable"))
            return ShortIntervalResult(length, True, None, both, spent, pd.DataFrame(rows))
        if len(parts) < 4:
            spent += runs
            rows.append(dict(row, outcome="stable, too few runs to validate: longer interval"))
            continue
        extra = np.concatenate(parts[2:4])
        check = stability_probability(both, extra, strips=strips, method=method, bandwidth_factor=bandwidth_factor)
        spent += runs + extra.size
        row.update(validation_probability=check, runs=runs + extra.size)
        if check >= objective_probability:
            rows.append(dict(row, outcome="stable and validated"))
            return ShortIntervalResult(length, True, True, both, spent, pd.DataFrame(rows))
        rows.append(dict(row, outcome="validation failed: longer interval"))
    raise AssertionError("unreachable: the last length runs the standard workflow")


def _shorter(length, threshold) -> bool:
    if isinstance(length, (int, np.integer)) and isinstance(threshold, (int, np.integer)):
        return length < threshold
    return pd.Timedelta(length) < pd.Timedelta(threshold)


def hourly_sample(samples, portion: float = 0.5, *, runs_per_hour: float | None = None):
    """Hourly sampling (section 6.2): keep only the runs in the first ``portion`` of every hour.

    - A frame with ``timestamp``: rows whose minute within the hour is below ``60 * portion``.
    - An array in run order: ``runs_per_hour`` (may be fractional) places run ``i`` at hour
      ``i / runs_per_hour``; runs in the first ``portion`` of their hour are kept.

    Returns the same kind of object as given.

    Parameters
    ----------
    samples : DataFrame or array_like
        As described above.
    portion : float
        Share of each hour that is kept, in (0, 1].
    runs_per_hour : float, optional
        Required for an array.
    """
    portion = check_real("portion", portion)
    if not 0 < portion <= 1:
        raise ValueError(f"portion={portion!r}: expected a fraction in (0, 1]")
    if isinstance(samples, pd.DataFrame):
        check_frame("samples", samples, ("timestamp",), minimum=0)
        if runs_per_hour is not None:
            raise ValueError("runs_per_hour: only for an array in run order; a frame's timestamps place its runs")
        t = check_timestamps("samples", samples["timestamp"])
        minutes = t.dt.minute + t.dt.second / 60 + t.dt.microsecond / 6e7
        return samples[minutes < 60 * portion]
    if runs_per_hour is None:
        raise ValueError(
            "samples: not a DataFrame with timestamps; an array in run order needs runs_per_hour, its number of "
            "runs per hour"
        )
    runs_per_hour = check_real("runs_per_hour", runs_per_hour, positive=True)
    x = check_sample("samples", samples, minimum=0)
    phase = np.mod(np.arange(x.size) / float(runs_per_hour), 1.0)
    return x[phase < portion - 1e-12]
