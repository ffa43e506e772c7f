"""Student's t tail and quantile, and the normal quantile, without importing scipy.

``perfstudy compare`` is a command a CI runs on every push; importing :mod:`scipy.special` costs it
0.3-0.4 s here (its array-API layer imports numpy.f2py), more than reading and comparing 200
benchmarks. These are the functions it needs, to double precision: the t survival function
through the regularised incomplete beta function (its continued fraction, evaluated by the modified
Lentz method; Press et al., *Numerical Recipes*, 3rd ed., section 6.4), the t quantile by
safeguarded Newton steps on it, and the normal quantile from the standard library (Wichura's
AS 241); the F test of a paired run's hosts through the same beta function. ``tests/_lib/test_tdist.py``
checks them against scipy.
"""

from __future__ import annotations

import functools
import math

import numpy as np

__all__ = ["t_sf", "t_ppf", "norm_ppf", "f_sf", "t_sf_array", "t_ppf_array"]

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


def f_sf(f: float, d1: float, d2: float) -> float:
    """``P(F > f)`` for Fisher's F with ``d1`` and ``d2`` degrees of freedom: ``I_x(d2/2, d1/2)`` at
    ``x = d2 / (d2 + d1 f)`` (Abramowitz & Stegun 26.6.2), the p-value of a one-way analysis of variance."""
    if math.isnan(f) or math.isnan(d1) or math.isnan(d2) or d1 <= 0 or d2 <= 0:
        return math.nan
    if f <= 0:
        return 1.0
    if math.isinf(f):
        return 0.0
    return _betainc(0.5 * d2, 0.5 * d1, d2 / (d2 + d1 * f))


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


_lgamma = np.vectorize(math.lgamma, otypes=[float])


def _betainc_array(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """:func:`_betainc` over arrays (``0 < x < 1``): the same continued fraction, every element's Lentz
    steps taken together until each has converged."""
    flip = x >= (a + 1.0) / (a + b + 2.0)
    aa, bb, xx = np.where(flip, b, a), np.where(flip, a, b), np.where(flip, 1.0 - x, x)
    log_front = _lgamma(a + b) - _lgamma(a) - _lgamma(b) + a * np.log(x) + b * np.log1p(-x)
    qab, qap, qam = aa + bb, aa + 1.0, aa - 1.0

    def floor(v):
        return np.where(np.abs(v) > _TINY, v, _TINY)

    c = np.ones_like(xx)
    d = 1.0 / floor(1.0 - qab * xx / qap)
    h = d.copy()
    done = np.zeros(xx.shape, dtype=bool)
    for m in range(1, 10_000):
        m2 = 2 * m
        step_a = m * (bb - m) * xx / ((qam + m2) * (aa + m2))
        d = 1.0 / floor(1.0 + step_a * d)
        c = floor(1.0 + step_a / c)
        h = np.where(done, h, h * d * c)
        step_b = -(aa + m) * (qab + m) * xx / ((aa + m2) * (qap + m2))
        d = 1.0 / floor(1.0 + step_b * d)
        c = floor(1.0 + step_b / c)
        step = d * c
        h = np.where(done, h, h * step)
        done |= np.abs(step - 1.0) < _EPS
        if done.all():
            break
    value = np.exp(log_front) * h / aa
    return np.where(flip, 1.0 - value, value)


def t_sf_array(t, df) -> np.ndarray:
    """:func:`t_sf` of arrays (broadcast together): ``P(T > t)``, for a suite's benchmarks at once."""
    t, df = np.broadcast_arrays(np.asarray(t, dtype=float), np.asarray(df, dtype=float))
    out = np.full(t.shape, np.nan)
    ok = ~np.isnan(t) & ~np.isnan(df) & (df > 0)
    infinite_t = ok & np.isinf(t)
    out[infinite_t] = np.where(t[infinite_t] > 0, 0.0, 1.0)
    normal = ok & ~np.isinf(t) & np.isinf(df)
    out[normal] = [0.5 * math.erfc(v / math.sqrt(2.0)) for v in t[normal].tolist()]
    rest = ok & np.isfinite(t) & np.isfinite(df)
    tt, dd = t[rest], df[rest]
    x = dd / (dd + tt * tt)
    tail = np.zeros(tt.shape)
    inside = (x > 0.0) & (x < 1.0)
    tail[inside] = 0.5 * _betainc_array(0.5 * dd[inside], np.full(inside.sum(), 0.5), x[inside])
    tail[x >= 1.0] = 0.5  # t = 0
    out[rest] = np.where(tt >= 0, tail, 1.0 - tail)
    return out


def t_ppf_array(q, df) -> np.ndarray:
    """:func:`t_ppf` of arrays (broadcast together): bracketed Newton steps on :func:`t_sf_array`, all
    elements at once."""
    q, df = np.broadcast_arrays(np.asarray(q, dtype=float), np.asarray(df, dtype=float))
    out = np.full(q.shape, np.nan)
    ok = (q > 0.0) & (q < 1.0) & ~np.isnan(df) & (df > 0)
    out[ok & (q == 0.5)] = 0.0
    work = ok & (q != 0.5)
    if not work.any():
        return out
    qq, dd = q[work], df[work]
    sign = np.where(qq < 0.5, -1.0, 1.0)
    target = np.where(qq < 0.5, qq, 1.0 - qq)
    low, high = np.zeros(qq.shape), np.ones(qq.shape)
    while True:
        short = t_sf_array(high, dd) > target
        if not short.any():
            break
        low, high = np.where(short, high, low), np.where(short, 2.0 * high, high)
    z = np.array([norm_ppf(1.0 - v) for v in target.tolist()])
    x = z + (z**3 + z) / (4 * dd) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * dd**2)
    x = np.where((low < x) & (x < high), x, 0.5 * (low + high))
    log_norm = _lgamma((dd + 1) / 2) - _lgamma(dd / 2) - 0.5 * np.log(dd * math.pi)
    active = np.arange(qq.size)  # the elements still stepping
    for _ in range(200):
        xa, da = x[active], dd[active]
        f = t_sf_array(xa, da) - target[active]
        la = np.where(f > 0, xa, low[active])
        ha = np.where(f < 0, xa, high[active])
        pdf = np.exp(log_norm[active] - (da + 1) / 2 * np.log1p(xa * xa / da))
        candidate = xa + f / pdf
        candidate = np.where((la < candidate) & (candidate < ha), candidate, 0.5 * (la + ha))
        # done when the step is below 1e-14, or the tail is the target to rounding (a step then only
        # follows the tail's last-bit noise, which wandered for 40 iterations in a few of 250 elements)
        finished = (np.abs(f) <= 8 * np.finfo(float).eps * target[active]) | (
            np.abs(candidate - xa) <= 1e-14 * np.maximum(1.0, np.abs(xa))
        )
        x[active] = np.where(np.abs(f) <= 8 * np.finfo(float).eps * target[active], xa, candidate)
        low[active], high[active] = la, ha
        active = active[~finished]
        if active.size == 0:
            break
    out[work] = sign * x
    return out
