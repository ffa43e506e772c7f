"""Variance components from your own runs: REML for crossed and nested random intercepts.

Bakshy & Frachtenberg (WWW'15, section 3.2.2) fit Eq. 3 by restricted maximum likelihood to pilot
data; this module fits the same model to any tidy frame,

    y = X beta + sum_k Z_k b_k + epsilon,   b_k ~ N(0, sigma_k^2 I),   epsilon ~ N(0, sigma^2 I),

where each random term ``k`` is an intercept per level of a column (``"host"``) or of the
interaction of columns (``"host:batch"``), crossed or nested in any way.

The fit itself (the profiled deviance, its block elimination and BOBYQA) is in
:mod:`perfstudy.design._deviance`; profile-likelihood intervals are in :mod:`perfstudy.design._profile`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd
import scipy.linalg

from perfstudy._lib.checks import check_bool, check_fraction, check_int
from perfstudy._lib.parallel import map_tasks
from perfstudy._lib.result import Result
from perfstudy._lib.types import Executor, Seed
from perfstudy.design._deviance import (
    REFIT_TOLERANCE,
    SINGULAR_TOL,
    _optimise,
    _Optimum,
    _parse_terms,
    _Problem,
    _problem,
)
from perfstudy.design._formula import parse_formula
from perfstudy.design._profile import profile_intervals
from perfstudy.design.model import VarianceComponents

__all__ = [
    "WWW15_TERMS",
    "SCHEDULE_TERMS",
    "VarianceFit",
    "FitIntervals",
    "ConvergenceWarning",
    "SINGULAR_TOL",
    "BOOTSTRAP_BLOCK",
    "fit_variance_components",
]

#: The random terms of Eq. 3 as written in the paper, and their names in VarianceComponents.
WWW15_TERMS = {"request": "request", "host": "host", "request:batch": "request_batch", "host:batch": "host_batch"}
#: The same terms as perfstudy's schedules draw them: gamma once per request and service start,
#: that is per (request, host, batch) (see :class:`perfstudy.design.schedules.Schedule`). The two readings
#: coincide when a request runs on one host per batch; fit pilots from :func:`perfstudy.simulate`
#: with these.
SCHEDULE_TERMS = ("request", "host", "request:host:batch", "host:batch")
_GAMMA_TERMS = ("request:batch", "request:host:batch")


class ConvergenceWarning(UserWarning):
    """The optimiser stopped without meeting its convergence criterion."""


# ------------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True, eq=False)
class FitIntervals(Result):
    """Confidence intervals for the parameters of a :class:`VarianceFit`.

    Attributes
    ----------
    estimate, low, high : Mapping[str, float]
        Per parameter: the fitted value and the interval at ``confidence``. Parameters are the
        standard deviation of each random term and ``residual``, then the fixed effects.
    confidence : float
        Coverage of the intervals.
    method : str
        ``"bootstrap"``: parametric bootstrap percentile intervals, for every parameter;
        ``"profile"``: profile-likelihood intervals, for the standard deviations only.
    replicates : int
        Bootstrap refits (0 for the profile).
    draws : ndarray, shape (replicates, parameters)
        The refitted parameters, columns in the order of ``estimate``.
    failed : int
        Refits that did not converge (kept in ``draws``; a warning says how many).
    """

    estimate: Mapping[str, float]
    low: Mapping[str, float]
    high: Mapping[str, float]
    confidence: float
    method: str
    replicates: int
    draws: np.ndarray = field(repr=False)
    failed: int

    def to_frame(self) -> pd.DataFrame:
        """One row per parameter: ``parameter``, ``estimate``, ``low``, ``high``."""
        return pd.DataFrame(
            {
                "parameter": list(self.estimate),
                "estimate": list(self.estimate.values()),
                "low": list(self.low.values()),
                "high": list(self.high.values()),
            }
        )


@dataclass(frozen=True, eq=False)
class VarianceFit(Result):
    """A fitted random-intercept model: standard deviations of the random terms, fixed effects.

    Attributes
    ----------
    sd : Mapping[str, float]
        Standard deviation of each random term, in the order given, then ``residual`` (on the
        scale of the fit: of ``log value`` with ``transform="log"``).
    fixed : pandas.DataFrame
        One row per fixed effect (``(Intercept)``, numeric columns, ``column=level`` contrasts):
        ``term``, ``estimate``, ``std_error`` (from ``sigma^2 (X' V^-1 X)^-1``).
    levels : Mapping[str, int]
        Number of levels of each random term.
    loglik : float
        The maximised (restricted, with ``method="reml"``) log-likelihood, ``-d(theta)/2``.
    converged : bool
        The optimiser met its criterion. False comes with a :class:`ConvergenceWarning`.
    singular : bool
        A standard deviation is on the boundary (``sigma_k / sigma_residual < SINGULAR_TOL``).
    iterations : int
        BOBYQA iterations (one deviance evaluation each, after the ``2k + 1`` that build its
        first quadratic model, per run; a fit with a component at 0 runs it up to three times).
    evaluations : int
        Deviance evaluations (each one block elimination).
    n : int
        Observations fitted.
    dropped : int
        Rows dropped for a missing value (only with ``dropna=True``).
    method : str
        ``"reml"`` or ``"ml"``.
    transform : str or None
        ``"log"`` when the fit is of ``log value``.
    theta : ndarray
        ``sd[term] / sd["residual"]`` per random term, the optimiser's parameters.
    _data : tuple or None
        Private: the rows' structure and values the fit was made from, which
        :meth:`confidence_interval` refits (kept through :func:`dataclasses.replace`).
    """

    sd: Mapping[str, float]
    fixed: pd.DataFrame = field(repr=False)
    levels: Mapping[str, int]
    loglik: float
    converged: bool
    singular: bool
    iterations: int
    evaluations: int
    n: int
    dropped: int
    method: str
    transform: str | None
    theta: np.ndarray = field(repr=False)
    _data: tuple | None = field(default=None, repr=False)  # (problem, y): the rows' structure and values

    @property
    def terms(self) -> tuple[str, ...]:
        """The random terms, in the order given."""
        return tuple(self.levels)

    def to_frame(self) -> pd.DataFrame:
        """One row per random term and ``residual``: ``term``, ``sd``, ``variance``, ``share`` (of
        the total variance) and ``levels`` (``n`` for the residual)."""
        variance = np.array([s**2 for s in self.sd.values()])
        return pd.DataFrame(
            {
                "term": list(self.sd),
                "sd": list(self.sd.values()),
                "variance": variance,
                "share": variance / variance.sum(),
                "levels": [*self.levels.values(), self.n],
            }
        )

    def components(self) -> VarianceComponents:
        """The fit as the five sigmas of Eq. 3 (and ``mu``, the intercept).

        Needs the random terms of :data:`WWW15_TERMS` or :data:`SCHEDULE_TERMS`, in any order, and
        nothing else.
        """
        terms = set(self.levels)
        gamma = [t for t in _GAMMA_TERMS if t in terms]
        if len(gamma) != 1 or terms != {"request", "host", "host:batch", gamma[0]}:
            raise ValueError(
                f"components: the fit's terms {list(self.levels)} are not those of Eq. 3 "
                f"({list(WWW15_TERMS)} or {list(SCHEDULE_TERMS)})"
            )
        names = {"request": "request", "host": "host", gamma[0]: "request_batch", "host:batch": "host_batch"}
        sigmas = {name: self.sd[term] for term, name in names.items()}
        intercept = float(self.fixed.loc[self.fixed["term"] == "(Intercept)", "estimate"].iloc[0])
        return VarianceComponents(**sigmas, noise=self.sd["residual"], mu=intercept)

    def confidence_interval(
        self,
        confidence: float = 0.95,
        *,
        method: str = "bootstrap",
        replicates: int = 200,
        rng: Seed = None,
        executor: Executor = None,
        progress: bool = False,
    ) -> FitIntervals:
        """Confidence intervals: parametric bootstrap for every parameter, or profile likelihood for
        the standard deviations.

        ``method="bootstrap"`` draws ``replicates`` data sets from the fitted model on the fit's own
        rows (the same levels, crossings and fixed-effects matrix; new random effects and noise,
        vectorised over a block of replicates), refits each from the fitted ``theta``, and takes
        percentiles.

        ``method="profile"`` is lme4's ``confint(fit, method = "profile")`` for each random term's
        standard deviation and the residual's (see :mod:`perfstudy.design._profile`): the values whose
        profiled deviance is within ``z^2`` of the minimum. As in lme4 (whose ``devfun2`` starts
        with ``refitML``), the deviance profiled is the ML one, whatever the fit's ``method``, so
        for a REML fit the interval is around the ML estimate. It needs no random draws, and does
        not lean on the refits' distribution as the bootstrap's percentiles do (Penicillin's
        ``sample``, 6 levels: bootstrap lower end 0.73, profile 1.10). It covers the standard
        deviations only; the fixed effects are left out of the result.

        Parameters
        ----------
        confidence : float
            Coverage of the intervals.
        method : {"bootstrap", "profile"}
            See above.
        replicates : int
            Bootstrap refits (each costs about one fit); ignored by the profile.
        rng : None, int, SeedSequence or Generator
            Parent of one stream per block of replicates: the same ``rng`` gives the same
            intervals with or without an executor (bootstrap only).
        executor : concurrent.futures.Executor, optional
            Runs blocks of replicates elsewhere (see :func:`perfstudy._lib.parallel.map_tasks`).
        progress : bool
            Show a progress bar over blocks of refits.
        """
        confidence = check_fraction("confidence", confidence)
        if method not in ("bootstrap", "profile"):
            raise ValueError(f"method={method!r}: expected 'bootstrap' or 'profile'")
        replicates = check_int("replicates", replicates, minimum=2, maximum=MAX_REPLICATES)
        progress = check_bool("progress", progress)
        if self._data is None:
            raise ValueError(
                "confidence_interval: this fit does not hold its rows (it was not made by fit_variance_components)"
            )
        problem, y = self._data
        sds = np.array(list(self.sd.values()))
        if method == "profile":
            theta, sigma = np.asarray(self.theta), float(sds[-1])
            if self.method == "reml":  # lme4 profiles the ML deviance: refit by ML first
                ml = _optimise(problem, y, reml=False, start=self.theta)
                theta, sigma = ml.theta, _parameters(problem, ml, reml=False)[len(self.levels)]
            low, high = profile_intervals(problem, y, theta, sigma, False, confidence)
            return _intervals(list(self.sd), sds, low, high, confidence, method, np.empty((0, sds.size)), 0)
        beta = self.fixed["estimate"].to_numpy()
        blocks = [min(BOOTSTRAP_BLOCK, replicates - s) for s in range(0, replicates, BOOTSTRAP_BLOCK)]
        tasks = [(problem, beta, sds, self.theta, self.method == "reml", size) for size in blocks]
        results = map_tasks(_bootstrap_block, tasks, rng=rng, executor=executor, progress=progress, desc="refits")
        draws = np.concatenate([r[0] for r in results])
        failed = int(sum(r[1] for r in results))
        if failed:
            warnings.warn(
                f"{failed} of {replicates} bootstrap refits did not converge", ConvergenceWarning, stacklevel=2
            )
        names = [*self.sd, *self.fixed["term"]]
        estimate = np.concatenate([sds, beta])
        tail = (1.0 - confidence) / 2.0
        low, high = np.quantile(draws, [tail, 1.0 - tail], axis=0)
        return _intervals(names, estimate, low, high, confidence, method, draws, failed)


def _intervals(names, estimate, low, high, confidence, method, draws, failed) -> FitIntervals:
    def by_name(values):
        return MappingProxyType(dict(zip(names, np.asarray(values).tolist())))

    return FitIntervals(
        estimate=by_name(estimate),
        low=by_name(low),
        high=by_name(high),
        confidence=confidence,
        method=method,
        replicates=len(draws),
        draws=draws,
        failed=failed,
    )


#: Bootstrap replicates drawn and refitted per task (fixed, so that a seed gives the same intervals
#: whatever the executor).
BOOTSTRAP_BLOCK = 16
#: most bootstrap refits an interval may ask for (a bound on the loop, checked up front)
MAX_REPLICATES = 100_000


def _bootstrap_block(task, rng) -> tuple[np.ndarray, int]:
    """Draw ``size`` data sets from the fitted model at once and refit each (one executor task)."""
    problem, beta, sds, theta, reml, size = task
    mean = problem.X @ beta
    y = mean + sds[-1] * rng.standard_normal((size, problem.n))
    for term, codes, count in zip(range(len(problem.terms)), problem.codes, problem.levels):
        y += np.take(sds[term] * rng.standard_normal((size, count)), codes, axis=1)
    out = np.empty((size, sds.size + beta.size))
    failed = 0
    for i in range(size):
        optimum = _optimise(problem, y[i], reml, start=theta, tolerance=REFIT_TOLERANCE)
        out[i] = _parameters(problem, optimum, reml)
        failed += not optimum.converged
    return out, failed


def _parameters(problem: _Problem, optimum: _Optimum, reml: bool) -> np.ndarray:
    """``[sd per term, residual sd, beta]`` at an optimum (sigma profiled out: lme4 Eq. 39/40)."""
    ev = optimum.evaluation
    dof = problem.n - problem.p if reml else problem.n
    sigma = math.sqrt(ev.r2 / dof)
    beta = scipy.linalg.solve(ev.gxx, ev.gxy, assume_a="pos")
    beta[0] += optimum.shift  # column 0 of X is the intercept
    return np.concatenate([optimum.theta * sigma, [sigma], beta])


# ------------------------------------------------------------------------------------------------
# The entry point


def _check_frame(df, value, terms, fixed, dropna) -> tuple[pd.DataFrame, int]:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df: expected a pandas DataFrame, got {type(df).__name__}")
    if not isinstance(value, str):
        raise TypeError(f"value={value!r}: expected a column name")
    if len(df) == 0:
        raise ValueError("df: no rows")
    columns = [value, *dict.fromkeys(c for t in terms for c in t.split(":")), *fixed]
    missing = [c for c in dict.fromkeys(columns) if c not in df.columns]
    if missing:
        where = "random" if any(c in missing for t in terms for c in t.split(":")) else "fixed"
        where = "value" if value in missing else where
        raise ValueError(f"{where}: df has no column {missing} (its columns: {list(df.columns)})")
    dropna = check_bool("dropna", dropna)
    y = df[value]
    if pd.api.types.is_bool_dtype(y) or not pd.api.types.is_numeric_dtype(y):
        raise TypeError(f"{value}: expected a numeric column, got dtype {y.dtype}")
    if y.isna().all():
        raise ValueError(f"{value}: every value is missing")
    if np.isinf(y.to_numpy(dtype=float)).any():
        raise ValueError(f"{value}: {int(np.isinf(y.to_numpy(dtype=float)).sum())} infinite value(s)")
    frame = df[list(dict.fromkeys(columns))]
    incomplete = frame.isna().any(axis=1)
    dropped = int(incomplete.sum())
    if dropped:
        if not dropna:
            where = frame.columns[frame.isna().any()].tolist()
            raise ValueError(f"df: {dropped} row(s) with a missing value in {where}; drop them or pass dropna=True")
        frame = frame[~incomplete]
    return frame.reset_index(drop=True), dropped


def fit_variance_components(
    df: pd.DataFrame,
    formula: str | None = None,
    *,
    value: str = "value",
    random=None,
    fixed=None,
    method: str = "reml",
    transform: str | None = None,
    dropna: bool = False,
) -> VarianceFit:
    """Fit the random-intercept model of Eq. 3 by REML (or ML) to a tidy frame.

    Bakshy & Frachtenberg, WWW'15, section 3.2.2: the variance components of Table 1 come from
    this fit to pilot data. The deviance is lme4's profiled deviance, minimised over the relative
    standard deviations ``theta`` with BOBYQA (NLopt, as lme4) (see the module docstring for the elimination that
    makes each evaluation linear in the number of observations).

    Parameters
    ----------
    df : pandas.DataFrame
        One row per observation.
    formula : str, optional
        lme4's syntax instead of ``value``, ``random`` and ``fixed``: ``"y ~ 1 + (1|s) + (1|d)"``,
        ``"strength ~ 1 + (1|batch/cask)"`` (nesting: ``batch + batch:cask``), ``"value ~ version +
        (1|host)"``. Random intercepts only (see :mod:`perfstudy.design._formula`); anything else is
        refused by name.
    value : str
        The response column.
    random : str or sequence of str, optional
        Random intercepts: a column (``"host"``) or an interaction of columns (``"host:batch"``),
        crossed or nested in any combination; a string may also be lme4's nesting ``"batch/cask"``
        or bars ``"(1|s) + (1|d)"``. Host within region is ``("region", "region:host")``, or
        ``"region/host"``. By default the benchmark schema's terms, :data:`WWW15_TERMS`.
    fixed : str or sequence of str, optional
        Fixed effects besides the intercept: numeric columns enter as they are, others
        (strings, categories, booleans) as treatment contrasts against their first level. By
        default what the frame holds: ``("version",)`` when the frame has a ``version`` column and
        the random terms are the benchmark schema's (:data:`WWW15_TERMS` or
        :data:`SCHEDULE_TERMS`, in any order); an intercept only otherwise.
    method : {"reml", "ml"}
        Restricted (lme4's default, unbiased for balanced designs) or full maximum likelihood.
    transform : {None, "log"}
        ``"log"`` fits ``log(value)``: the paper's log link for latencies (Eq. 4).
    dropna : bool
        Drop rows with a missing value in a used column (their number is in ``dropped``); by
        default such rows are an error.

    Returns
    -------
    VarianceFit
        With ``converged=False`` and a :class:`ConvergenceWarning` if the optimiser failed.

    Raises
    ------
    ValueError
        A missing column; NaN rows without ``dropna``; an all-missing or infinite value; a term
        with one level, or a level per observation; two terms that split the rows the same way;
        a rank-deficient fixed-effects matrix; no more observations than parameters.
    TypeError
        ``df`` is not a DataFrame, or ``value`` is not numeric.

    Examples
    --------
    Request and host intercepts crossed, on a simulated pilot (sigmas 1.0 and 0.5, noise 0.3; the 40
    request and 30 host effects drawn here happen to have standard deviations 0.94 and 0.36):

    >>> import numpy as np, pandas as pd
    >>> from perfstudy.design.estimate import fit_variance_components
    >>> rng = np.random.default_rng(1)
    >>> request, host = np.meshgrid(np.arange(40), np.arange(30), indexing="ij")
    >>> y = rng.normal(0, 1.0, 40)[request] + rng.normal(0, 0.5, 30)[host] + rng.normal(0, 0.3, request.shape)
    >>> df = pd.DataFrame({"request": request.ravel(), "host": host.ravel(), "value": y.ravel()})
    >>> fit = fit_variance_components(df, random=("request", "host"), fixed=())
    >>> {term: round(sd, 2) for term, sd in fit.sd.items()}
    {'request': 0.95, 'host': 0.36, 'residual': 0.3}
    """
    if formula is not None:
        if value != "value" or random is not None or fixed is not None:
            raise ValueError("formula: give a formula or value=, random= and fixed=, not both")
        parsed = parse_formula(formula)
        value, random, fixed = parsed.value, parsed.random, parsed.fixed
    terms = _parse_terms(tuple(WWW15_TERMS) if random is None else random)
    if fixed is None:
        schema = set(terms) in ({*WWW15_TERMS}, {*SCHEDULE_TERMS})
        fixed = ("version",) if schema and isinstance(df, pd.DataFrame) and "version" in df.columns else ()
    fixed = (fixed,) if isinstance(fixed, str) else fixed
    if not isinstance(fixed, (list, tuple)) or not all(isinstance(f, str) for f in fixed):
        raise TypeError(f"fixed={fixed!r}: expected a column name or a sequence of them (() for none)")
    fixed = tuple(fixed)
    both = [c for c in fixed if c in terms]
    if both:
        raise ValueError(f"fixed: {both} also a random term; a column is one or the other")
    if method not in ("reml", "ml"):
        raise ValueError(f"method={method!r}: expected 'reml' or 'ml'")
    if transform not in (None, "log"):
        raise ValueError(f"transform={transform!r}: expected None or 'log'")
    frame, dropped = _check_frame(df, value, terms, fixed, dropna)
    reml = method == "reml"
    problem, y = _problem(frame, value, terms, fixed, transform)
    optimum = _optimise(problem, y, reml)
    estimates = _parameters(problem, optimum, reml)
    k = len(terms)
    sigma = estimates[k]
    beta = estimates[k + 1 :]
    std_error = sigma * np.sqrt(np.diag(scipy.linalg.inv(optimum.evaluation.gxx)))
    if not optimum.converged:
        warnings.warn(
            f"fit_variance_components: the optimiser did not converge ({optimum.message}); "
            "the estimates may not be the maximum",
            ConvergenceWarning,
            stacklevel=2,
        )
    fit = VarianceFit(
        sd=MappingProxyType(dict(zip([*terms, "residual"], estimates[: k + 1].tolist()))),
        fixed=pd.DataFrame({"term": list(problem.fixed_names), "estimate": beta, "std_error": std_error}),
        levels=MappingProxyType(dict(zip(terms, problem.levels))),
        loglik=-optimum.evaluation.deviance / 2.0,
        converged=optimum.converged,
        singular=bool(np.any(optimum.theta < SINGULAR_TOL)),
        iterations=optimum.iterations,
        evaluations=optimum.evaluations,
        n=problem.n,
        dropped=dropped,
        method=method,
        transform=transform,
        theta=optimum.theta,
        _data=(problem, y),
    )
    return fit
