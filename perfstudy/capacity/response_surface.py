"""Response surfaces of a server's peak rate over its factors (Shivam et al., section 4).

:func:`map_response_surface` is Algorithm 1's outer loop: a peak-rate search per sample of the
factors, each seeded from the nearest sample already searched (section 3.7).
:func:`d_optimal` chooses a D-optimal subset of samples for a full quadratic surface, which
:func:`fit_quadratic_surface` fits by least squares.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfstudy._lib.checks import check_bool, check_choice, check_int, check_real, check_sample
from perfstudy._lib.result import Result
from perfstudy._lib.types import Seed
from perfstudy.capacity.peak_search import POLICIES, find_peak_rate
from perfstudy.capacity.server_model import SimulatedServer

__all__ = [
    "Surface",
    "map_response_surface",
    "d_optimal",
    "quadratic_design",
    "fit_quadratic_surface",
    "QuadraticSurface",
]

#: most random starts of the D-optimal exchange
MAX_STARTS = 10_000


@dataclass(frozen=True, eq=False)
class Surface(Result):
    """A mapped response surface: one row per sample (factors, true and found peak rates, cost).

    Attributes
    ----------
    samples : DataFrame
        One row per sample.
    total_cost : float
        Benchmarking time of all searches, s.
    searches : list of PeakSearch
        One per sample, in order.
    """

    samples: pd.DataFrame
    total_cost: float
    searches: list

    def to_frame(self) -> pd.DataFrame:
        """One row per configuration searched (``samples``)."""
        return self.samples.copy()


def map_response_surface(
    samples,
    *,
    server_factory=SimulatedServer,
    policy: str = "binsearch",
    seeding: bool = True,
    default_seed: float = 10.0,
    rng: Seed = None,
    **search,
) -> Surface:
    """Algorithm 1's outer loop: the peak rate of every sample, seeding each search from the peak
    of the nearest sample measured so far (section 3.7) when ``seeding``.

    ``samples`` is a DataFrame (or list of dicts) of factor values passed to ``server_factory``;
    ``search`` goes to :func:`find_peak_rate`.

    Parameters
    ----------
    samples : DataFrame or list of dict
        Factor values, one row per sample.
    server_factory : callable
        ``server_factory(**factors) -> server``.
    policy : str
        Load picker, see :func:`find_peak_rate`.
    seeding : bool
        Seed each search from the nearest sample's peak.
    default_seed : float
        Seed load of the first search (and of all without ``seeding``).
    rng : None, int or Generator
        Seed of all trials.
    **search
        Passed to :func:`find_peak_rate`.
    """
    try:
        frame = pd.DataFrame(samples).reset_index(drop=True)
    except (ValueError, TypeError) as error:
        raise TypeError(f"samples: expected a DataFrame or a list of dicts of factor values ({error})") from None
    if frame.empty or not len(frame.columns):
        raise ValueError("samples: expected at least one sample")
    if not callable(server_factory):
        raise TypeError(f"server_factory={server_factory!r}: expected a callable returning a server")
    seeding = check_bool("seeding", seeding)
    default_seed = check_real("default_seed", default_seed, positive=True)
    check_choice("policy", policy, POLICIES)
    factors = list(frame.columns)
    streams = np.random.default_rng(rng).spawn(len(frame))
    rows, searches, found = [], [], []
    for i, stream in enumerate(streams):
        row = frame.iloc[i].to_dict()
        try:
            server = server_factory(**row)
        except TypeError as error:
            raise TypeError(f"samples: row {i} ({row}) does not fit server_factory: {error}") from None
        seed = default_seed
        if seeding and found:
            points = frame.iloc[[j for j, _ in found]][factors].to_numpy(dtype=float)
            nearest = int(np.argmin(np.sum((points - frame.iloc[i][factors].to_numpy(dtype=float)) ** 2, axis=1)))
            seed = found[nearest][1]
        result = find_peak_rate(server, policy=policy, seed_load=seed, rng=stream, **search)
        if result.converged:
            found.append((i, result.peak_rate))
        searches.append(result)
        rows.append(
            {
                **row,
                "true_peak_rate": server.true_peak_rate,
                "peak_rate": result.peak_rate,
                "converged": result.converged,
                "cost": result.cost,
                "seed_load": seed,
                "test_loads": len(result.loads),
            }
        )
    table = pd.DataFrame(rows)
    return Surface(table, float(table.cost.sum()), searches)


def quadratic_design(points) -> np.ndarray:
    """Model matrix of a full quadratic surface in the columns of ``points``: 1, x_i, x_i^2, x_i x_j.

    Parameters
    ----------
    points : array or DataFrame, shape (n, factors)
        One row per sample, one column per factor.
    """
    try:
        x = np.asarray(points, dtype=float)
    except (ValueError, TypeError):
        raise TypeError("points: expected numbers, shape (samples, factors)") from None
    if x.ndim != 2 or not x.size:
        raise ValueError(f"points: expected shape (samples, factors), got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"points: {int((~np.isfinite(x)).sum())} values are NaN or infinite")
    columns = [np.ones(len(x))] + [x[:, i] for i in range(x.shape[1])] + [x[:, i] ** 2 for i in range(x.shape[1])]
    columns += [x[:, i] * x[:, j] for i in range(x.shape[1]) for j in range(i + 1, x.shape[1])]
    return np.column_stack(columns)


def d_optimal(points, k: int, *, starts: int = 20, rng: Seed = None) -> np.ndarray:
    """Indices of ``k`` of ``points`` maximising ``det(X'X)`` for a quadratic surface (D-optimal).

    Fedorov-style exchange from ``starts`` random subsets: swap a chosen point for an unchosen one
    while the determinant grows; the best subset over all starts is returned, sorted. Subsets whose log-determinants
    agree to 1e-9 (relative) are tied, and the smallest index list wins: a symmetric grid has several optima that
    differ only in rounding, and which one rounding favoured changed Table 4 of notebook 06 from one machine to
    another.

    Parameters
    ----------
    points : array_like, shape (n, 2)
        Candidate factor settings.
    k : int
        Points to choose (at least the 6 coefficients of the quadratic).
    starts : int
        Random initial subsets.
    rng : None, int or Generator
        Seed of the initial subsets.
    """
    design = quadratic_design(points)
    n, p = design.shape
    k = check_int("k", k, minimum=p)
    if k > n:
        raise ValueError(f"k={k}: only {n} points to choose from")
    starts = check_int("starts", starts, maximum=MAX_STARTS)
    rng = np.random.default_rng(rng)

    def logdet(index):
        sign, value = np.linalg.slogdet(design[index].T @ design[index])
        return value if sign > 0 else -np.inf

    best, best_value = None, -np.inf
    for _ in range(starts):
        chosen = list(rng.choice(n, k, replace=False))
        value = logdet(chosen)
        improved = True
        while improved:
            improved = False
            for position in range(k):
                for candidate in range(n):
                    if candidate in chosen:
                        continue
                    trial = chosen.copy()
                    trial[position] = candidate
                    trial_value = logdet(trial)
                    if trial_value > value + 1e-12:
                        chosen, value, improved = trial, trial_value, True
        if not np.isfinite(value):  # a singular subset: no start to keep
            continue
        # subsets whose determinants differ in the last bits are tied: the smaller index list wins, so the choice
        # does not depend on rounding (which differs between CPUs)
        tie = 1e-9 * max(1.0, abs(best_value)) if best is not None else 0.0
        if best is None or value > best_value + tie:
            best, best_value = sorted(chosen), value
        elif value >= best_value - tie and sorted(chosen) < best:
            best, best_value = sorted(chosen), max(value, best_value)
    if best is None:  # every subset is singular: the points do not span a quadratic surface
        raise ValueError(
            f"points: no {k} of them determine a quadratic surface (det(X'X) = 0 for every subset tried); "
            "they need at least 6 distinct settings, not all on one line or conic"
        )
    return np.array(best)


@dataclass(frozen=True, eq=False)
class QuadraticSurface(Result):
    """A full quadratic response surface fitted by least squares (section 4).

    Attributes
    ----------
    coefficients : ndarray
        In the column order of :func:`quadratic_design`.
    """

    coefficients: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        """The coefficients, one row per term of the design matrix in its order (``term`` 0 is the intercept)."""
        return pd.DataFrame({"term": np.arange(self.coefficients.size), "coefficient": self.coefficients})

    def predict(self, points) -> np.ndarray:
        """The surface at ``points``.

        Parameters
        ----------
        points : array or DataFrame, shape (n, factors)
            As the points it was fitted on.
        """
        design = quadratic_design(points)
        if design.shape[1] != self.coefficients.size:
            raise ValueError(
                f"points: {design.shape[1]} quadratic terms, the surface has {self.coefficients.size}; "
                "expected the factors it was fitted on"
            )
        return design @ self.coefficients

    def mean_absolute_percentage_error(self, points, values) -> float:
        """``mean |predicted / values - 1|`` over ``points``.

        Parameters
        ----------
        points : array or DataFrame, shape (n, factors)
            Where to compare.
        values : array, shape (n,)
            The measured (or true) responses there, all non-zero.
        """
        values = check_sample("values", values)
        predicted = self.predict(points)
        if values.shape != predicted.shape:
            raise ValueError(f"values: {values.size} responses for {predicted.size} points")
        if np.any(values == 0):
            raise ValueError("values: expected non-zero responses (the error is relative to them)")
        return float(np.mean(np.abs(predicted / values - 1)))


def fit_quadratic_surface(points, values) -> QuadraticSurface:
    """Least-squares fit of a full quadratic surface to responses measured at ``points`` (section 4,
    the surface a D-optimal subset of samples is chosen for).

    Parameters
    ----------
    points : array or DataFrame, shape (n, factors)
        The samples measured (e.g. a :func:`d_optimal` subset).
    values : array, shape (n,)
        The response at each (e.g. its peak rate).
    """
    design = quadratic_design(points)
    values = check_sample("values", values)
    if values.shape != (design.shape[0],):
        raise ValueError(f"values: expected {design.shape[0]} finite responses, one per point")
    if design.shape[0] < design.shape[1]:
        raise ValueError(f"points: {design.shape[0]} samples for {design.shape[1]} coefficients")
    return QuadraticSurface(np.linalg.lstsq(design, values, rcond=None)[0])
