"""Profile-likelihood intervals for the standard deviations of a random-intercept fit.

lme4's ``confint(fit, method = "profile")`` (Bates, Maechler, Bolker & Walker 2015, J. Stat. Softw.
67(1), section 5.1): for a standard deviation ``s`` (of a random term, or the residual ``sigma``)
the profiled deviance ``D*(s)`` is the least deviance over every other parameter with ``s`` held,
and the signed root

    zeta(s) = sign(s - s_hat) sqrt(D*(s) - D(s_hat))

is compared with the normal quantile: the interval is ``{s: |zeta(s)| <= z_(1 - alpha/2)}``, and a
lower end that the profile never reaches before 0 is 0. The deviance is the fit's own criterion
(REML or ML), with ``sigma`` no longer profiled out:

    D(theta, sigma) = log|A| + [log|R_X|^2] + dof log(2 pi sigma^2) + r^2(theta) / sigma^2,

``dof = n - p`` for REML and ``n`` for ML, ``theta_k = sigma_k / sigma`` (:mod:`perfstudy.design._deviance`).
Holding a random term's ``sigma_k = s``, the free parameters are the other ``theta`` and
``log sigma`` (with ``theta_k = s / sigma``); holding ``sigma = s``, they are all of ``theta``.
lme4 interpolates ``zeta`` by splines between profile points; this module finds each end as a root
of ``zeta`` (Brent's method), so the two agree to the splines' error.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.optimize

from perfstudy._lib.tdist import norm_ppf
from perfstudy.design._deviance import _blas_threads, _bobyqa, _cross_products, _evaluate, _Problem

__all__ = ["profile_intervals"]

#: BOBYQA's tolerance for each profile point (theta and log sigma); the deviance errs by its square.
PROFILE_TOLERANCE = 1e-8
#: relative precision of each interval end (Brent's method on s)
END_TOLERANCE = 1e-7
#: most doublings of the distance from the estimate while looking for where |zeta| passes z
MAX_BRACKET = 60


def _full_deviance(problem: _Problem, theta, sigma, cross, reml) -> float:
    ev = _evaluate(problem, theta, *cross, reml)
    dof = problem.n - problem.p if reml else problem.n
    value = ev.logdet_a + (ev.logdet_rx if reml else 0.0) + dof * math.log(2.0 * math.pi * sigma**2)
    return value + ev.r2 / sigma**2


class _Profile:
    """``D*(s)`` for one standard deviation (``term`` index, or ``None`` for the residual), with
    each minimisation started from the solution at the nearest ``s`` already profiled."""

    def __init__(self, problem, cross, reml, theta_hat, sigma_hat, term):
        self.problem, self.cross, self.reml, self.term = problem, cross, reml, term
        self.solutions = {}  # s -> free parameters at the minimum
        k = theta_hat.size
        others = [j for j in range(k) if j != term]
        self.others = others
        if term is None:
            self.start = theta_hat.copy()
        else:
            self.start = np.concatenate([theta_hat[others], [math.log(sigma_hat)]])

    def _objective(self, s):
        problem, cross, reml, term = self.problem, self.cross, self.reml, self.term
        if term is None:
            return lambda free: _full_deviance(problem, free, s, cross, reml)

        def objective(free):
            sigma = math.exp(free[-1])
            theta = np.empty(len(self.others) + 1)
            theta[self.others] = free[:-1]
            theta[term] = s / sigma
            return _full_deviance(problem, theta, sigma, cross, reml)

        return objective

    def __call__(self, s: float) -> float:
        start = self.start
        if self.solutions:
            nearest = min(self.solutions, key=lambda known: abs(known - s))
            start = self.solutions[nearest]
        lower = np.zeros(start.size)
        if self.term is not None:
            lower[-1] = -np.inf  # log sigma
        objective = self._objective(s)
        run = _bobyqa(objective, start, PROFILE_TOLERANCE, lower=lower)
        self.solutions[s] = run.theta
        return float(objective(run.theta))


def _upper(zeta, estimate: float, target: float, step: float, xtol: float) -> float:
    """Where ``zeta`` rises through ``target`` above ``estimate``: steps that double until it has."""
    inside = estimate
    for _ in range(MAX_BRACKET):
        outside = inside + step
        if zeta(outside) >= target:
            return scipy.optimize.brentq(lambda s: zeta(s) - target, inside, outside, xtol=xtol)
        inside, step = outside, 2.0 * step
    return math.inf


def _lower(zeta, estimate: float, target: float, xtol: float, can_be_zero: bool) -> float:
    """Where ``zeta`` falls through ``target`` below ``estimate``: halvings until it has; 0 when a
    standard deviation's profile never gets there (``zeta(0) > target``)."""
    if can_be_zero and zeta(0.0) > target:
        return 0.0
    inside, outside = estimate, estimate / 2.0
    for _ in range(MAX_BRACKET):
        if zeta(outside) <= target:
            return scipy.optimize.brentq(lambda s: zeta(s) - target, outside, inside, xtol=xtol)
        inside, outside = outside, outside / 2.0
    return 0.0


def profile_intervals(
    problem: _Problem, y: np.ndarray, theta_hat: np.ndarray, sigma_hat: float, reml: bool, confidence: float
) -> tuple[np.ndarray, np.ndarray]:
    """Profile intervals for every random term's standard deviation, then the residual's.

    Returns ``(low, high)``, arrays of ``k + 1``. See the module docstring for the method.
    """
    with _blas_threads(problem):
        cross = _cross_products(problem, y)[:2]
        d_hat = _full_deviance(problem, theta_hat, sigma_hat, cross, reml)
        z = norm_ppf(0.5 + confidence / 2.0)
        estimates = np.concatenate([theta_hat * sigma_hat, [sigma_hat]])
        low, high = np.empty(estimates.size), np.empty(estimates.size)
        for index, estimate in enumerate(estimates):
            profile = _Profile(problem, cross, reml, theta_hat, sigma_hat, None if index == theta_hat.size else index)

            def zeta(s, profile=profile, estimate=estimate):
                if s == estimate:
                    return 0.0
                change = max(profile(s) - d_hat, 0.0)
                return math.copysign(math.sqrt(change), s - estimate)

            scale = estimate if estimate > 0 else sigma_hat
            xtol = END_TOLERANCE * scale
            random_term = index < theta_hat.size
            high[index] = _upper(zeta, estimate, z, 0.1 * scale, xtol)
            low[index] = _lower(zeta, estimate, -z, xtol, random_term) if estimate > 0 else 0.0
    return low, high
