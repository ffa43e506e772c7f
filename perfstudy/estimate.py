"""Variance components from your own runs: REML for crossed and nested random intercepts.

Bakshy & Frachtenberg (WWW'15, section 3.2.2) fit Eq. 3 by restricted maximum likelihood to pilot
data; this module fits the same model to any tidy frame,

    y = X beta + sum_k Z_k b_k + epsilon,   b_k ~ N(0, sigma_k^2 I),   epsilon ~ N(0, sigma^2 I),

where each random term ``k`` is an intercept per level of a column (``"host"``) or of the
interaction of columns (``"host:batch"``), crossed or nested in any way.

The estimator is lme4's profiled deviance (Bates, Maechler, Bolker & Walker 2015, J. Stat. Softw.
67(1), section 3): with ``theta_k = sigma_k / sigma`` and ``Lambda = diag(theta_k I)``, the matrix
``A = Lambda Z'Z Lambda + I`` and the penalised residual sum of squares ``r^2`` profile out
``beta`` and ``sigma``, leaving a deviance in ``theta`` alone (their Eqs. 34 and 41):

    ML:    d(theta)   = log|A| + n (1 + log(2 pi r^2 / n))
    REML:  d_R(theta) = log|A| + log|R_X|^2 + (n - p) (1 + log(2 pi r^2 / (n - p)))

``log|A|``, ``R_X`` and ``r^2`` come from one block elimination of the symmetric matrix
``[[A, Lambda Z'[X y]], [[X y]'Z Lambda, [X y]'[X y]]]``. The structure of a random-intercept model
makes that elimination cheap without a general sparse Cholesky: every term's own block of ``Z'Z``
is diagonal (an observation has one level per term), so a term whose block is still diagonal after
the terms eliminated before it (a term nested in nothing left, such as ``request:batch`` before
``request``) is eliminated by a division, and its Schur complement is one sparse product. What is
left when no diagonal block remains (the host terms, typically a few hundred levels) is factorised
densely. The elimination order is fixed once from the pattern of ``Z'Z``; each deviance evaluation
is then a handful of sparse products, linear in the number of observations.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import nlopt
import numpy as np
import pandas as pd
import scipy.linalg
import scipy.optimize
import scipy.sparse as sp

from perfstudy._checks import check_bool, check_fraction, check_int
from perfstudy.model import VarianceComponents
from perfstudy.parallel import map_tasks

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
#: that is per (request, host, batch) (see :class:`perfstudy.schedules.Schedule`). The two readings
#: coincide when a request runs on one host per batch; fit pilots from :func:`perfstudy.simulate`
#: with these.
SCHEDULE_TERMS = ("request", "host", "request:host:batch", "host:batch")
_GAMMA_TERMS = ("request:batch", "request:host:batch")
#: Remaining random levels factorised densely (beyond it, a sparse LU takes the rest).
DENSE_MAX = 4000
#: A component whose theta = sigma_k / sigma is below this is reported as on the boundary (lme4: 1e-4).
SINGULAR_TOL = 1e-4
#: Where a zero theta is moved to see whether the deviance falls off the boundary.
ESCAPE_STEPS = (1e-3, 1e-2, 0.03, 0.1, 0.3)
#: BOBYQA's absolute tolerance on theta (sigma_k / sigma), and its square on the deviance.
TOLERANCE = 1e-9
#: The same for bootstrap refits, whose spread is many orders larger.
REFIT_TOLERANCE = 1e-4
#: BOBYQA's first step in theta, and its evaluation budget per random term.
INITIAL_STEP = 0.25
MAX_EVALUATIONS_PER_TERM = 500


class ConvergenceWarning(UserWarning):
    """The optimiser stopped without meeting its convergence criterion."""


# ------------------------------------------------------------------------------------------------
# The problem: level codes, fixed-effects matrix, and the elimination plan (all independent of theta)


@dataclass(frozen=True, eq=False)
class _Problem:
    terms: tuple[str, ...]
    codes: tuple[np.ndarray, ...]  # per term, the level of each observation (0..levels-1)
    levels: tuple[int, ...]
    X: np.ndarray  # (n, p)
    fixed_names: tuple[str, ...]
    order: np.ndarray  # permutation of the q random levels into elimination order
    steps: tuple[int, ...]  # sizes of the diagonal blocks eliminated by division, in order
    ZtZ: sp.csr_matrix  # permuted, (q, q)
    Zt: sp.csr_matrix  # permuted, (q, n)
    term_of_level: np.ndarray  # permuted, (q,)
    first: _FirstStep  # the first elimination, precomputed (steps[0] levels; 0 if none)

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def p(self) -> int:
        return self.X.shape[1]


def _parse_terms(random) -> tuple[str, ...]:
    if isinstance(random, str):
        random = (random,)
    if not isinstance(random, (list, tuple)):
        raise TypeError(f"random={random!r}: expected a term or a sequence of terms such as ('host', 'host:batch')")
    terms = tuple(random)
    if not terms:
        raise ValueError("random: expected at least one random term")
    for term in terms:
        if not isinstance(term, str) or not term or any(not part for part in term.split(":")):
            raise ValueError(f"random: {term!r} is not a column or an interaction 'a:b'")
    if len(set(terms)) != len(terms):
        raise ValueError(f"random: a term is given twice in {terms}")
    return terms


def _term_codes(df: pd.DataFrame, term: str) -> np.ndarray:
    columns = term.split(":")
    if len(columns) == 1:
        codes, _ = pd.factorize(df[columns[0]], sort=True)
        return codes
    return df.groupby(columns, sort=True, observed=True).ngroup().to_numpy()


def _fixed_matrix(df: pd.DataFrame, fixed) -> tuple[np.ndarray, tuple[str, ...]]:
    """An intercept, numeric columns as they are, categorical ones as treatment contrasts."""
    blocks, names = [np.ones((len(df), 1))], ["(Intercept)"]
    for column in fixed:
        values = df[column]
        if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
            dummies = pd.get_dummies(values.astype("category"), prefix=column, prefix_sep="=", drop_first=True)
            blocks.append(dummies.to_numpy(dtype=float))
            names.extend(dummies.columns)
        else:
            blocks.append(values.to_numpy(dtype=float)[:, None])
            names.append(column)
    X = np.hstack(blocks)
    if np.linalg.matrix_rank(X) < X.shape[1]:
        raise ValueError(
            f"fixed: the fixed-effects matrix {names} is rank deficient (a column is constant or redundant)"
        )
    return X, tuple(names)


def _elimination_plan(ZtZ: sp.csr_matrix, term_of_level: np.ndarray, levels) -> tuple[np.ndarray, tuple[int, ...]]:
    """Order the levels so that terms whose block is diagonal are eliminated first, largest first,
    for as long as there is one; what is left is factorised as a whole.

    Works on the pattern only: after eliminating a block, the pattern of the rest gains ``E'E``.
    """
    remaining = list(range(len(levels)))
    pattern = (ZtZ != 0).astype(np.int8).tocsr()
    index = np.arange(ZtZ.shape[0])
    order, steps = [], []
    while remaining:
        candidates = []
        for k in remaining:
            rows = np.flatnonzero(term_of_level == k)
            local = np.searchsorted(index, rows)
            block = pattern[local][:, local]
            if block.nnz == np.count_nonzero(block.diagonal()):
                candidates.append((levels[k], k))
        if not candidates:
            break
        _, k = max(candidates)
        rows = np.flatnonzero(term_of_level == k)
        local = np.searchsorted(index, rows)
        keep = np.setdiff1d(np.arange(index.size), local)
        E = pattern[local][:, keep]
        pattern = (pattern[keep][:, keep] + (E.T @ E)).astype(bool).astype(np.int8).tocsr()
        index = index[keep]
        order.append(rows)
        steps.append(rows.size)
        remaining.remove(k)
    order.append(index)
    return np.concatenate(order), tuple(steps)


@dataclass(frozen=True, eq=False)
class _FirstStep:
    """The first elimination, done symbolically once so that each evaluation is vector arithmetic.

    With ``A = Lambda Z'Z Lambda + I`` split as ``[[D, E], [E', R]]`` after the first block (one
    term, so ``D`` is diagonal: ``d_l = theta^2 n_l + 1``), the Schur complement is
    ``Lambda_r (R0 - E0' W E0) Lambda_r + I`` with ``W = diag(theta^2 / d_l)`` and ``E0``, ``R0`` the
    blocks of ``Z'Z``. Its pattern is fixed, and ``vec(E0' W E0) = fill @ w`` for a sparse ``fill``
    built here, so no sparse product is formed per evaluation.
    """

    size: int  # levels eliminated by division (0: none)
    counts: np.ndarray  # diagonal of the first block of Z'Z (observations per level)
    E0T: sp.csr_matrix  # (q - size, size)
    r0: np.ndarray  # R0 on the Schur complement's pattern
    fill: sp.csr_matrix  # (pattern entries, size)
    rows: np.ndarray  # row of each pattern entry
    cols: np.ndarray  # column of each pattern entry (CSR order)
    indptr: np.ndarray
    diagonal: np.ndarray  # positions of the diagonal entries


def _first_step(ZtZ: sp.csr_matrix, size: int) -> _FirstStep:
    """Precompute the pattern and fill of the first Schur complement (see :class:`_FirstStep`)."""
    m = ZtZ.shape[0] - size
    E0 = ZtZ[:size, size:].tocsr()
    E0.sort_indices()
    R0 = ZtZ[size:, size:].tocoo()
    # every pair of entries in one row of E0 contributes e_a e_b to (col_a, col_b)
    length = np.diff(E0.indptr)
    row_of = np.repeat(np.arange(size), length)
    first = np.repeat(np.arange(E0.nnz), length[row_of])
    offset = np.arange(first.size) - np.repeat(np.cumsum(length[row_of]) - length[row_of], length[row_of])
    second = E0.indptr[row_of[first]] + offset
    pair_keys = E0.indices[first].astype(np.int64) * m + E0.indices[second]
    r0_keys = R0.row.astype(np.int64) * m + R0.col
    keys = np.unique(np.concatenate([r0_keys, pair_keys]))
    r0 = np.zeros(keys.size)
    r0[np.searchsorted(keys, r0_keys)] = R0.data
    fill = sp.csr_matrix(
        (E0.data[first] * E0.data[second], (np.searchsorted(keys, pair_keys), row_of[first])),
        shape=(keys.size, size),
    )
    rows, cols = keys // m, keys % m
    return _FirstStep(
        size=size,
        counts=ZtZ.diagonal()[:size],
        E0T=E0.T.tocsr(),
        r0=r0,
        fill=fill,
        rows=rows,
        cols=cols,
        indptr=np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=m))]),
        diagonal=np.flatnonzero(rows == cols),
    )


def _problem(df, value, terms, fixed, transform) -> tuple[_Problem, np.ndarray]:
    n = len(df)
    X, names = _fixed_matrix(df, fixed)
    if n <= X.shape[1] + len(terms) + 1:
        raise ValueError(f"df: {n} observations for {X.shape[1] + len(terms) + 1} parameters; expected more")
    codes = tuple(_term_codes(df, t) for t in terms)
    levels = tuple(int(c.max()) + 1 for c in codes)
    for term, count in zip(terms, levels):
        if count < 2:
            raise ValueError(f"random: term {term!r} has one level; a variance needs at least two")
        if count >= n:
            raise ValueError(f"random: term {term!r} has a level per observation; it is the residual")
    for i in range(len(terms)):
        for j in range(i + 1, len(terms)):
            pairs = len(np.unique(codes[i].astype(np.int64) * levels[j] + codes[j]))
            if pairs == levels[i] == levels[j]:
                raise ValueError(
                    f"random: terms {terms[i]!r} and {terms[j]!r} split the rows the same way; "
                    "their variances cannot be told apart"
                )
    y = df[value].to_numpy(dtype=float)
    if transform == "log":
        if np.any(y <= 0):
            raise ValueError(f"{value}: transform='log' needs positive values")
        y = np.log(y)
    tiny = 1e-12 * max(1.0, np.abs(y).max())
    if np.ptp(y) <= tiny:
        raise ValueError(f"{value}: the same in every row ({y[0]:g}); there is no variance to split")
    if np.abs(y - X @ np.linalg.lstsq(X, y, rcond=None)[0]).max() <= tiny:
        raise ValueError(
            f"{value}: the fixed effects {list(fixed)} fit every row exactly; there is no variance to split"
        )
    offsets = np.cumsum((0,) + levels)
    columns = np.stack([c + o for c, o in zip(codes, offsets)], axis=1).reshape(-1)
    Z = sp.csr_matrix(
        (np.ones(columns.size), columns, np.arange(0, columns.size + 1, len(terms))), shape=(n, offsets[-1])
    )
    term_of_level = np.repeat(np.arange(len(terms)), levels)
    ZtZ = (Z.T @ Z).tocsr()
    order, steps = _elimination_plan(ZtZ, term_of_level, levels)
    Zt = Z.T.tocsr()[order]
    ZtZ = ZtZ[order][:, order].tocsr()
    ZtZ.sort_indices()
    problem = _Problem(
        terms=terms,
        codes=codes,
        levels=levels,
        X=X,
        fixed_names=names,
        order=order,
        steps=steps,
        ZtZ=ZtZ,
        Zt=Zt,
        term_of_level=term_of_level[order],
        first=_first_step(ZtZ, steps[0] if steps else 0),
    )
    return problem, y


# ------------------------------------------------------------------------------------------------
# The profiled deviance


@dataclass(frozen=True)
class _Evaluation:
    deviance: float
    logdet_a: float
    logdet_rx: float
    r2: float
    gxx: np.ndarray  # X' V^-1 X (in units of sigma^2)
    gxy: np.ndarray


def _evaluate(problem: _Problem, theta: np.ndarray, XY_cross: np.ndarray, G0: np.ndarray, reml: bool) -> _Evaluation:
    """One block elimination of ``[[A, C], [C', G0]]`` at ``theta`` (see the module docstring)."""
    scale = theta[problem.term_of_level]
    C = XY_cross * scale[:, None]
    G = G0.copy()
    first = problem.first
    size = first.size
    inner, outer = scale[:size], scale[size:]
    d = inner**2 * first.counts + 1.0
    inv = 1.0 / d
    logdet = float(np.log(d).sum())
    data = (first.r0 - first.fill @ (inner**2 * inv)) * outer[first.rows] * outer[first.cols]
    data[first.diagonal] += 1.0
    A = sp.csr_matrix((data, first.cols, first.indptr), shape=(outer.size, outer.size))
    Cd = C[:size] * inv[:, None]
    G -= C[:size].T @ Cd
    C = C[size:] - outer[:, None] * (first.E0T @ (inner[:, None] * Cd))
    for size in problem.steps[1:]:
        d = A[:size, :size].diagonal()
        E = A[:size, size:]
        inv = 1.0 / d
        logdet += float(np.log(d).sum())
        Cd = C[:size] * inv[:, None]
        A = (A[size:, size:] - (E.T @ (sp.diags(inv) @ E))).tocsr()
        G -= C[:size].T @ Cd
        C = C[size:] - E.T @ Cd
    if A.shape[0]:
        if A.shape[0] <= DENSE_MAX:
            L = scipy.linalg.cholesky(A.toarray(), lower=True, check_finite=False)
            logdet += 2.0 * float(np.log(np.diag(L)).sum())
            W = scipy.linalg.solve_triangular(L, C, lower=True, check_finite=False)
            G -= W.T @ W
        else:  # pragma: no cover - a large remainder with no diagonal block (wide crossed designs)
            lu = sp.linalg.splu(A.tocsc(), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0)
            logdet += float(np.log(np.abs(lu.U.diagonal())).sum())
            G -= C.T @ lu.solve(C)
    p = problem.p
    gxx, gxy = G[:p, :p], G[:p, p]
    R = scipy.linalg.cholesky(gxx, lower=False, check_finite=False)
    z = scipy.linalg.solve_triangular(R, gxy, trans="T", check_finite=False)
    r2 = float(G[p, p] - z @ z)
    logdet_rx = 2.0 * float(np.log(np.diag(R)).sum())
    n = problem.n
    dof = n - p if reml else n
    deviance = logdet + (logdet_rx if reml else 0.0) + dof * (1.0 + math.log(2.0 * math.pi * r2 / dof))
    return _Evaluation(deviance, logdet, logdet_rx, r2, gxx, gxy)


def _cross_products(problem: _Problem, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``Z'[X y]`` (permuted) and ``[X y]'[X y]``, the only places ``y`` enters the deviance, for
    ``y`` minus its mean (returned; the intercept takes it back).

    Centring matters: ``r^2`` is ``y'y`` minus what the effects explain, and the deviance multiplies
    its relative error by ``n``; with ``y ~ 5 +- 1`` the uncentred difference cost ~1e-10 in the
    deviance, enough to move a flat optimum by 1e-6."""
    shift = float(y.mean())
    XY = np.column_stack([problem.X, y - shift])
    return np.asarray(problem.Zt @ XY), XY.T @ XY, shift


@dataclass(frozen=True)
class _Optimum:
    theta: np.ndarray
    evaluation: _Evaluation
    converged: bool
    iterations: int
    evaluations: int
    message: str
    shift: float  # the mean taken out of y (see _cross_products)


@dataclass(frozen=True)
class _Run:
    theta: np.ndarray
    success: bool
    evaluations: int
    message: str


def _bobyqa(objective, start: np.ndarray, tolerance: float) -> _Run:
    """Minimise ``objective(theta)`` over ``theta >= 0`` with NLopt's BOBYQA, from ``start``.

    The best point seen is kept: NLopt raises on a round-off-limited stop, which at this precision
    means the optimum is reached to within rounding, not a failure.
    """
    k = start.size
    best = {"f": np.inf, "x": start.copy()}
    count = 0

    def wrapped(x, grad):
        nonlocal count
        count += 1
        value = objective(np.maximum(x, 0.0))
        if value < best["f"]:
            best["f"], best["x"] = value, np.maximum(x, 0.0)
        return value

    opt = nlopt.opt(nlopt.LN_BOBYQA, k)
    opt.set_lower_bounds(np.zeros(k))
    opt.set_min_objective(wrapped)
    opt.set_initial_step(INITIAL_STEP)
    opt.set_xtol_abs(tolerance)
    opt.set_ftol_abs(0.0)  # stop on the step size only: changes in d(theta) near the optimum are rounding
    opt.set_maxeval(MAX_EVALUATIONS_PER_TERM * k)
    try:
        opt.optimize(np.maximum(start, 0.0))
        code = opt.last_optimize_result()
        success = code in (nlopt.SUCCESS, nlopt.FTOL_REACHED, nlopt.XTOL_REACHED)
        message = {nlopt.MAXEVAL_REACHED: "the evaluation limit was reached"}.get(code, f"NLopt code {code}")
    except nlopt.RoundoffLimited:
        success, message = True, "round-off limited"
    return _Run(best["x"], success and np.isfinite(best["f"]), count, message)


def _optimise(problem: _Problem, y: np.ndarray, reml: bool, start=None, tolerance: float = TOLERANCE) -> _Optimum:
    """Minimise the profiled deviance over ``theta >= 0``.

    BOBYQA (Powell's bound-constrained derivative-free method, through NLopt), as lme4's default
    ``nloptwrap``: no finite-difference gradients, which are noisy for a deviance of order ``n``,
    and no false stop at ``theta_k = 0``, where the deviance (even in ``theta_k``) has zero slope.
    """
    with _blas_threads(problem):
        return _optimise_here(problem, y, reml, start, tolerance)


#: a fit whose random effects have at most this many levels in all runs its dense algebra on one BLAS thread:
#: on such small blocks the threads cost more than they give (Penicillin, 144 rows: 1.6-2.6 s with numpy's
#: default threads on a loaded 2-core machine, 0.07-0.12 s with one; issue 24 measures the large fits)
ONE_THREAD_LEVELS = 2000


def _blas_threads(problem: _Problem):
    """One BLAS thread for a small problem (:data:`ONE_THREAD_LEVELS`), the default otherwise."""
    import contextlib

    if sum(problem.levels) > ONE_THREAD_LEVELS:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def _optimise_here(problem: _Problem, y: np.ndarray, reml: bool, start, tolerance: float) -> _Optimum:
    XY_cross, G0, shift = _cross_products(problem, y)
    k = len(problem.terms)
    theta0 = np.ones(k) if start is None else np.maximum(np.asarray(start, dtype=float), 0.0)

    def objective(theta):
        return _evaluate(problem, theta, XY_cross, G0, reml).deviance

    run = _bobyqa(objective, theta0, tolerance)
    runs = [run]
    best = _evaluate(problem, run.theta, XY_cross, G0, reml)
    # The deviance can have a second minimum inside, across a ridge from a boundary one, so a
    # component at 0 is tested twice: along a geometric grid off the boundary (an interior minimum
    # next to it lies below d(0) on (0, ~theta*)), then by a restart with every zero at 0.5. The
    # lower deviance wins.
    zeros = np.flatnonzero(run.theta < SINGULAR_TOL)
    if zeros.size:
        starts = []
        for j, step in itertools.product(zeros, ESCAPE_STEPS):
            trial = run.theta.copy()
            trial[j] = step
            if objective(trial) < best.deviance:
                starts.append(trial)
                break
        trial = run.theta.copy()
        trial[zeros] = 0.5
        starts.append(trial)
        for trial in starts:
            candidate = _bobyqa(objective, trial, tolerance)
            runs.append(candidate)
            evaluation = _evaluate(problem, candidate.theta, XY_cross, G0, reml)
            if evaluation.deviance < best.deviance:
                run, best = candidate, evaluation
    evaluations = sum(r.evaluations for r in runs)
    iterations = evaluations - (2 * k + 1) * len(runs)  # BOBYQA: one evaluation per iteration after its first model
    return _Optimum(run.theta, best, run.success, iterations, evaluations, run.message, shift)


# ------------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True, eq=False)
class FitIntervals:
    """Confidence intervals for the parameters of a :class:`VarianceFit`.

    Attributes
    ----------
    estimate, low, high : Mapping[str, float]
        Per parameter: the fitted value and the interval at ``confidence``. Parameters are the
        standard deviation of each random term and ``residual``, then the fixed effects.
    confidence : float
        Coverage of the intervals.
    method : str
        ``"bootstrap"``: parametric bootstrap percentile intervals.
    replicates : int
        Bootstrap refits.
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
class VarianceFit:
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
        rng=None,
        executor=None,
        progress: bool = False,
    ) -> FitIntervals:
        """Parametric bootstrap intervals for every standard deviation and fixed effect.

        Draws ``replicates`` data sets from the fitted model on the fit's own rows (the same
        levels, crossings and fixed-effects matrix; new random effects and noise, vectorised over
        a block of replicates), refits each from the fitted ``theta``, and takes percentiles.

        Parameters
        ----------
        confidence : float
            Coverage of the intervals.
        method : {"bootstrap"}
            Only the parametric bootstrap; profile intervals are not implemented.
        replicates : int
            Refits (each costs about one fit).
        rng : None, int, SeedSequence or Generator
            Parent of one stream per block of replicates: the same ``rng`` gives the same
            intervals with or without an executor.
        executor : concurrent.futures.Executor, optional
            Runs blocks of replicates elsewhere (see :func:`perfstudy.parallel.map_tasks`).
        progress : bool
            Show a progress bar over blocks.
        """
        confidence = check_fraction("confidence", confidence)
        if method != "bootstrap":
            raise ValueError(f"method={method!r}: expected 'bootstrap'")
        replicates = check_int("replicates", replicates, minimum=2, maximum=MAX_REPLICATES)
        progress = check_bool("progress", progress)
        problem = self._problem  # type: ignore[attr-defined]
        beta = self.fixed["estimate"].to_numpy()
        sds = np.array(list(self.sd.values()))
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
        return FitIntervals(
            estimate=MappingProxyType(dict(zip(names, estimate.tolist()))),
            low=MappingProxyType(dict(zip(names, low.tolist()))),
            high=MappingProxyType(dict(zip(names, high.tolist()))),
            confidence=confidence,
            method=method,
            replicates=replicates,
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
    *,
    value: str = "value",
    random=("request", "host", "request:batch", "host:batch"),
    fixed=("version",),
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
    value : str
        The response column.
    random : str or sequence of str
        Random intercepts: a column (``"host"``) or an interaction of columns (``"host:batch"``),
        crossed or nested in any combination. Host within region is ``("region", "region:host")``
        (or ``("region", "host")`` when host ids are unique across regions).
    fixed : sequence of str
        Fixed effects besides the intercept: numeric columns enter as they are, others
        (strings, categories, booleans) as treatment contrasts against their first level.
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
    >>> from perfstudy.estimate import fit_variance_components
    >>> rng = np.random.default_rng(1)
    >>> request, host = np.meshgrid(np.arange(40), np.arange(30), indexing="ij")
    >>> y = rng.normal(0, 1.0, 40)[request] + rng.normal(0, 0.5, 30)[host] + rng.normal(0, 0.3, request.shape)
    >>> df = pd.DataFrame({"request": request.ravel(), "host": host.ravel(), "value": y.ravel()})
    >>> fit = fit_variance_components(df, random=("request", "host"), fixed=())
    >>> {term: round(sd, 2) for term, sd in fit.sd.items()}
    {'request': 0.95, 'host': 0.36, 'residual': 0.3}
    """
    terms = _parse_terms(random)
    fixed = (fixed,) if isinstance(fixed, str) else fixed
    if not isinstance(fixed, (list, tuple)) or not all(isinstance(f, str) for f in fixed):
        raise TypeError(f"fixed={fixed!r}: expected a column name or a sequence of them (() for none)")
    fixed = tuple(fixed)
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
    )
    object.__setattr__(fit, "_problem", problem)  # the rows' structure, for the bootstrap (not a field)
    return fit
