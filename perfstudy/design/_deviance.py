"""lme4's profiled deviance for random-intercept models, and its minimum (the engine of
:func:`perfstudy.design.estimate.fit_variance_components`).

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

Where the time goes, and what keeps it small (InstEval, 73,421 ratings, terms ``s`` 2,972, ``d``
1,128 and ``dept`` 14 levels): ``s`` is eliminated by division; ``d`` and ``dept`` are left, 1,142
levels with 22% of their lower triangle filled. The first elimination's fill is a precomputed sparse
map (:class:`_FirstStep`) from the eliminated levels' weights to that lower triangle, written into a
column-major array that LAPACK's ``dpotrf`` factorises in place: about 20 ms an evaluation on one core,
of which 13 ms is the factorisation. BOBYQA starts from one-way ANOVA estimates
(:func:`_moment_start`), which halves the evaluations.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
from dataclasses import dataclass

import nlopt
import numpy as np
import pandas as pd
import scipy.linalg
import scipy.linalg.lapack
import scipy.sparse as sp
from numpy.typing import ArrayLike

from perfstudy.design._formula import parse_random

#: Remaining random levels factorised densely (beyond it, a sparse LU takes the rest).
DENSE_MAX = 4000
#: Remaining levels (after the first elimination) factorised densely even where more diagonal blocks
#: could be eliminated: scipy.sparse costs ~1 ms a step in overhead alone, a dense Cholesky of 600 levels
#: ~2 ms (a 360-row pilot with 124 levels left: 2.1 ms an evaluation through the sparse steps, 0.4 ms dense).
DENSE_SMALL = 600
#: Largest m * m for which the first elimination's pattern is found with a lookup table (8 bytes an entry)
#: rather than by sorting its keys.
SLOT_TABLE_MAX = 2**25
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


_POTRF = scipy.linalg.lapack.dpotrf  # Cholesky in place (scipy.linalg.cholesky copies and checks)
_TRTRS = scipy.linalg.lapack.dtrtrs


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
    container: tuple[int, ...]  # per term, the finest term it is nested in (-1: none)

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def p(self) -> int:
        return self.X.shape[1]


def _parse_terms(random) -> tuple[str, ...]:
    if isinstance(random, str):
        random = parse_random(random)
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
    built here, so no sparse product is formed per evaluation. Only the lower triangle is kept
    (``rows >= cols``): it is all a Cholesky factorisation reads.
    """

    size: int  # levels eliminated by division
    counts: np.ndarray  # diagonal of the first block of Z'Z (observations per level)
    E0T: sp.csr_matrix  # (m, size), m = q - size
    r0: np.ndarray  # R0 on the lower pattern
    fill: sp.csc_matrix  # (pattern entries, size)
    rows: np.ndarray  # row of each pattern entry (row-major order)
    cols: np.ndarray  # its column (<= row)
    diagonal: np.ndarray  # positions of the diagonal entries in the pattern
    dense: np.ndarray | None  # where each entry goes in a flat column-major (m, m) array (dense remainder)
    full: tuple | None  # (data index, indices, indptr) of the symmetric CSR matrix (sparse steps follow)


def _first_step(ZtZ: sp.csr_matrix, size: int, dense: bool) -> _FirstStep:
    """Precompute the lower pattern and fill of the first Schur complement (see :class:`_FirstStep`).

    ``dense``: nothing but a dense factorisation follows, so the entries' places in an ``(m, m)``
    column-major array are kept; otherwise the map to the symmetric CSR matrix the later sparse
    steps take.
    """
    m = ZtZ.shape[0] - size
    E0 = ZtZ[:size, size:].tocsr()
    E0.sort_indices()
    R0 = ZtZ[size:, size:].tocoo()
    lower = R0.row >= R0.col
    r0_rows, r0_cols, r0_data = R0.row[lower], R0.col[lower], R0.data[lower]
    # every pair of entries (a >= b) in one row of E0 contributes e_a e_b to (a, b); pairs are
    # generated row by row, so they come grouped by the eliminated level (a CSC column each)
    length = np.diff(E0.indptr)
    row_of = np.repeat(np.arange(size), length)
    first = np.repeat(np.arange(E0.nnz), length[row_of])
    offset = np.arange(first.size) - np.repeat(np.cumsum(length[row_of]) - length[row_of], length[row_of])
    second = E0.indptr[row_of[first]] + offset
    keep = E0.indices[first] >= E0.indices[second]
    first, second = first[keep], second[keep]
    pair_keys = E0.indices[first].astype(np.int64) * m + E0.indices[second]
    r0_keys = r0_rows.astype(np.int64) * m + r0_cols
    if m * m <= SLOT_TABLE_MAX:  # a lookup table instead of sorting millions of keys
        slot = np.zeros(m * m, dtype=np.int64)
        slot[pair_keys] = 1
        slot[r0_keys] = 1
        keys = np.flatnonzero(slot)
        slot[keys] = np.arange(keys.size)
        pair_slot, r0_slot = slot[pair_keys], slot[r0_keys]
    else:
        keys = np.unique(np.concatenate([r0_keys, pair_keys]))
        pair_slot, r0_slot = np.searchsorted(keys, pair_keys), np.searchsorted(keys, r0_keys)
    r0 = np.zeros(keys.size)
    r0[r0_slot] = r0_data
    indptr = np.concatenate([[0], np.cumsum(np.bincount(row_of[first], minlength=size))])
    fill = sp.csc_matrix((E0.data[first] * E0.data[second], pair_slot, indptr), shape=(keys.size, size))
    rows, cols = keys // m, keys % m
    full = None
    if not dense:
        off = np.flatnonzero(rows != cols)
        r, c = np.concatenate([rows, cols[off]]), np.concatenate([cols, rows[off]])
        source = np.concatenate([np.arange(keys.size), off])
        order = np.lexsort((c, r))
        full = (source[order], c[order], np.concatenate([[0], np.cumsum(np.bincount(r, minlength=m))]))
    return _FirstStep(
        size=size,
        counts=ZtZ.diagonal()[:size],
        E0T=E0.T.tocsr(),
        r0=r0,
        fill=fill,
        rows=rows,
        cols=cols,
        diagonal=np.flatnonzero(rows == cols),
        dense=cols * m + rows if dense else None,
        full=full,
    )


def _dense_after_first(m: int, steps: tuple[int, ...]) -> bool:
    """Whether the ``m`` levels left after the first elimination are factorised as one dense block:
    when no diagonal block follows (and ``m <= DENSE_MAX``), or when ``m <= DENSE_SMALL``, where a
    dense factorisation costs less than the sparse steps' overhead."""
    return 0 < m and (m <= DENSE_SMALL or (len(steps) == 1 and m <= DENSE_MAX))


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
    container = [-1] * len(terms)  # i is nested in j when each level of i lies in one level of j
    for i in range(len(terms)):
        for j in range(i + 1, len(terms)):
            pairs = len(np.unique(codes[i].astype(np.int64) * levels[j] + codes[j]))
            if pairs == levels[i] == levels[j]:
                raise ValueError(
                    f"random: terms {terms[i]!r} and {terms[j]!r} split the rows the same way; "
                    "their variances cannot be told apart"
                )
            for inner, outer in ((i, j), (j, i)):
                if pairs == levels[inner] and levels[outer] < levels[inner]:
                    if container[inner] < 0 or levels[outer] > levels[container[inner]]:
                        container[inner] = outer
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
        first=_first_step(ZtZ, steps[0], dense=_dense_after_first(ZtZ.shape[0] - steps[0], steps)),
        container=tuple(container),
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


def _dense_elimination(A: np.ndarray, C: np.ndarray, G: np.ndarray) -> float:
    """Eliminate the last, dense block: ``A = L L'`` (LAPACK, in place in the Fortran-ordered ``A``, of
    which only the lower triangle is read), ``G -= (L^-1 C)'(L^-1 C)``; returns ``log|A|``."""
    L, info = _POTRF(A, lower=1, overwrite_a=1, clean=0)
    if info:
        raise np.linalg.LinAlgError(f"the random-effects block is not positive definite (LAPACK info {info})")
    W, _ = _TRTRS(L, C, lower=1)
    G -= W.T @ W
    return 2.0 * float(np.log(L.diagonal()).sum())


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
    Cd = C[:size] * inv[:, None]
    G -= C[:size].T @ Cd
    C = C[size:] - outer[:, None] * (first.E0T @ (inner[:, None] * Cd))
    m = outer.size
    if first.dense is not None:  # the rest is one dense block: LAPACK on its lower triangle, in place
        buffer = np.zeros(m * m)
        buffer[first.dense] = data
        logdet += _dense_elimination(buffer.reshape((m, m), order="F"), C, G)
    elif m:
        source, indices, indptr = first.full
        A = sp.csr_matrix((data[source], indices, indptr), shape=(m, m))
        for size in problem.steps[1:]:
            d = A[:size, :size].diagonal()
            E = A[:size, size:]
            inv = 1.0 / d
            logdet += float(np.log(d).sum())
            Cd = C[:size] * inv[:, None]
            A = (A[size:, size:] - (E.T @ (sp.diags(inv) @ E))).tocsr()
            G -= C[:size].T @ Cd
            C = C[size:] - E.T @ Cd
        if 0 < A.shape[0] <= DENSE_MAX:
            logdet += _dense_elimination(A.toarray(order="F"), C, G)
        elif A.shape[0]:  # pragma: no cover - a large remainder with no diagonal block (wide crossed designs)
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


def _bobyqa(objective, start: np.ndarray, tolerance: float, lower=None) -> _Run:
    """Minimise ``objective(theta)`` over ``theta >= lower`` (0 by default) with NLopt's BOBYQA, from ``start``.

    The best point seen is kept: NLopt raises on a round-off-limited stop, which at this precision
    means the optimum is reached to within rounding, not a failure.
    """
    k = start.size
    lower = np.zeros(k) if lower is None else np.asarray(lower, dtype=float)
    best = {"f": np.inf, "x": start.copy()}
    count = 0

    def wrapped(x: ArrayLike, grad):
        nonlocal count
        count += 1
        x = np.maximum(x, lower)
        value = objective(x)
        if value < best["f"]:
            best["f"], best["x"] = value, x
        return value

    opt = nlopt.opt(nlopt.LN_BOBYQA, k)
    opt.set_lower_bounds(lower)
    opt.set_min_objective(wrapped)
    opt.set_initial_step(INITIAL_STEP)
    opt.set_xtol_abs(tolerance)
    opt.set_ftol_abs(0.0)  # stop on the step size only: changes in d(theta) near the optimum are rounding
    opt.set_maxeval(MAX_EVALUATIONS_PER_TERM * k)
    try:
        opt.optimize(np.maximum(start, lower))
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


#: A dense remainder (the levels left after the diagonal eliminations) smaller than this is factorised on
#: one BLAS thread: below it the threads cost more than they give. Measured on 2 cores, dpotrf medians:
#: 500 levels 1.3 ms on one thread, 1.6 ms on two; 1,142 (InstEval) 14.6 and 11.2; 2,000 59 and 34.
ONE_THREAD_DENSE = 1000


def _dense_size(problem: _Problem) -> int:
    if problem.first.dense is not None:
        return problem.ZtZ.shape[0] - problem.first.size
    return problem.ZtZ.shape[0] - sum(problem.steps)


def _blas_threads(problem: _Problem):
    """The BLAS threads a fit runs on: one for a small dense remainder (:data:`ONE_THREAD_DENSE`),
    otherwise as many as the cores that are idle, by the one-minute load average.

    OpenBLAS threads wait by spinning, so on a busy machine they lose badly: InstEval (a 1,142-level
    dense block) took 1.2-1.3 s on two threads and 1.5-1.8 s on one on an idle 2-core machine, but
    3.1-3.7 s on two and 1.6-1.9 s on one beside one busy process (4.1-4.3 s against 2.0-2.3 s
    beside two).
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    threads = 1
    if _dense_size(problem) >= ONE_THREAD_DENSE:
        try:
            idle = cores - os.getloadavg()[0]
        except (AttributeError, OSError):  # no load average (Windows): trust the cores
            idle = cores
        threads = max(1, min(cores, int(idle + 0.5)))
    return _controller().limit(limits=threads, user_api="blas")


@functools.cache
def _controller():
    """threadpoolctl's view of the loaded BLAS libraries, found once (finding them costs ~2 ms)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _moment_start(problem: _Problem, y: np.ndarray) -> np.ndarray:
    """Where BOBYQA starts: each term's one-way ANOVA estimate (Searle, Casella & McCulloch 1992,
    section 3.6: ``(MSB - MSW) / n0``, ``n0 = (n - sum n_l^2 / n) / (L - 1)``) on the residuals of
    the fixed effects, over the smallest within-level mean square, floored at :data:`START_FLOOR`.
    A term nested in another (``request:batch`` in ``request``: each of its levels in one level of
    the other) is estimated within the finest term it is nested in, from the residuals less that
    term's level means, so that it is not credited with its container's variance.

    The other terms inflate each estimate, but it lands near the optimum: on InstEval BOBYQA needs
    50-65 deviance evaluations from here where it needs 140 from ``theta = 1`` (lme4's start, from
    which it first wanders a flat direction).
    """
    residual = y - problem.X @ np.linalg.lstsq(problem.X, y, rcond=None)[0]
    n = residual.size

    def level_means(codes, levels, values):
        count = np.bincount(codes, minlength=levels)
        return count, np.bincount(codes, values, minlength=levels) / count

    between, within = [], []
    for codes, levels, j in zip(problem.codes, problem.levels, problem.container):
        values = residual
        if j >= 0:
            values = residual - level_means(problem.codes[j], problem.levels[j], residual)[1][problem.codes[j]]
        count, mean = level_means(codes, levels, values)
        msb = (count * (mean - values.mean()) ** 2).sum() / (levels - 1)
        msw = ((values - mean[codes]) ** 2).sum() / (n - levels)
        n0 = (n - (count**2).sum() / n) / (levels - 1)
        between.append(max(msb - msw, 0.0) / n0)
        within.append(msw)
    floor = max(min(within), 1e-300)
    return np.maximum(np.sqrt(np.array(between) / floor), START_FLOOR)


#: the least theta BOBYQA starts from (a start on the boundary would sit where the deviance is flat)
START_FLOOR = 0.05


def _optimise_here(problem: _Problem, y: np.ndarray, reml: bool, start, tolerance: float) -> _Optimum:
    XY_cross, G0, shift = _cross_products(problem, y)
    k = len(problem.terms)
    theta0 = _moment_start(problem, y) if start is None else np.maximum(np.asarray(start, dtype=float), 0.0)

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
