"""Student's t tail and quantile, and the normal quantile, without importing scipy.

``perfstudy compare`` is a command a CI runs on every push; importing :mod:`scipy.special` costs it
0.3-0.4 s here (its array-API layer imports numpy.f2py), more than reading and comparing 200
benchmarks. These are the three functions it needs, to double precision: the t survival function
through the regularised incomplete beta function (its continued fraction, evaluated by the modified
Lentz method; Press et al., *Numerical Recipes*, 3rd ed., section 6.4), the t quantile by
safeguarded Newton steps on it, and the normal quantile from the standard library (Wichura's
AS 241). ``tests/_lib/test_tdist.py`` checks them against scipy.
"""

from __future__ import annotations

import functools
import math

__all__ = ["t_sf", "t_ppf", "norm_ppf"]

_TINY = 1e-300
_EPS = 1e-16


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        step = d * c
        h *= step
        if abs(step - 1.0) < _EPS:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def t_sf(t: float, df: float) -> float:
    """``P(T > t)`` for Student's t with ``df`` (> 0, not necessarily whole) degrees of freedom."""
    if math.isnan(t) or math.isnan(df) or df <= 0:
        return math.nan
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    if math.isinf(df):
        return 0.5 * math.erfc(t / math.sqrt(2.0))
    tail = 0.5 * _betainc(0.5 * df, 0.5, df / (df + t * t))  # P(T > |t|)
    return tail if t >= 0 else 1.0 - tail


def _t_pdf(t: float, df: float) -> float:
    log = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(log - (df + 1) / 2 * math.log1p(t * t / df))


@functools.lru_cache(maxsize=1024)
def t_ppf(q: float, df: float) -> float:
    """The ``q`` quantile of Student's t with ``df`` degrees of freedom (``0 < q < 1``)."""
    if not 0.0 < q < 1.0 or math.isnan(df) or df <= 0:
        return math.nan
    if q == 0.5:
        return 0.0
    # the upper tail beyond |t|, taken from q where q is the small side (no cancellation in 1 - q)
    sign, target = (-1.0, q) if q < 0.5 else (1.0, 1.0 - q)
    low, high = 0.0, 1.0
    while t_sf(high, df) > target:
        low, high = high, 2.0 * high
    # start from the Cornish-Fisher expansion in 1/df (Abramowitz & Stegun 26.7.5), then Newton
    # steps on the tail (its derivative is -pdf), kept inside the bracket by bisection
    z = norm_ppf(1.0 - target)
    x = z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
    x = x if low < x < high else 0.5 * (low + high)
    for _ in range(200):
        f = t_sf(x, df) - target
        if f == 0.0:
            break
        if f > 0:
            low = x
        else:
            high = x
        candidate = x + f / _t_pdf(x, df)
        if not low < candidate < high:
            candidate = 0.5 * (low + high)
        done = abs(candidate - x) <= 1e-14 * max(1.0, abs(x))
        x = candidate
        if done:
            break
    return sign * x


@functools.lru_cache(maxsize=256)
def norm_ppf(q: float) -> float:
    """The ``q`` quantile of the standard normal distribution: Abramowitz & Stegun 26.2.23 (error below
    4.5e-4) refined by Halley steps on ``erfc``, which carries the tail to full relative precision. Not
    :class:`statistics.NormalDist`: importing :mod:`statistics` costs ``perfstudy compare`` 4 ms."""
    if not 0.0 < q < 1.0:
        return math.nan
    if q > 0.5:
        return -norm_ppf(1.0 - q) if q != 0.5 else 0.0
    if q == 0.5:
        return 0.0
    t = math.sqrt(-2.0 * math.log(q))
    x = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t**3))
    for _ in range(8):
        error = 0.5 * math.erfc(-x / math.sqrt(2.0)) - q
        u = error * math.sqrt(2.0 * math.pi) * math.exp(0.5 * x * x)
        step = u / (1.0 + 0.5 * x * u)
        x -= step
        if abs(step) <= 1e-15 * max(1.0, abs(x)):
            break
    return x
