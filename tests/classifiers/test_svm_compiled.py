"""The SVM's compiled SMO loop (:func:`mri_theory.classifiers.svm._smo_rows`) against the vectorised solver it
replaced.

The reference is that solver, kept here as it was (commit 6846dfc, with the kernel rows it read): the same
working-set rule and update written with numpy over all problems at once.  The compiled loop must give the
same iterates bit for bit (alphas, gradients, which problems moved) on random problems: duplicated points,
an extra point per problem, warm starts, every tolerance the solver uses; and its pure-Python run (numba's
function before compiling) must too.  The compiled polish and Platt fit are tested in
``test_svm_platt_polish.py``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _optional import given, settings, st
from _svm_solver import matvec, smo, snap, violating_pairs

from mri_theory.classifiers.svm import (
    _BOUND_SNAP,
    _TAU,
    _Gram,
    _shifted_kernel,
    _smo_rows,
)


def kernel_rows(gram: _Gram, problems: np.ndarray, i: np.ndarray) -> np.ndarray:
    """Row ``i[a]`` of problem ``problems[a]``'s kernel matrix, shape ``(len(problems), size)`` (the old
    ``_Gram.rows``)."""
    if gram.extra is None:
        return gram.K[i]
    shared = np.minimum(i, gram.n - 1)
    is_extra = i == gram.n
    head = np.where(is_extra[:, None], gram.extra[problems], gram.K[shared])
    tail = np.where(is_extra, 0.0, gram.extra[problems, shared])
    return np.concatenate([head, tail[:, None]], axis=1)


def vectorised_smo(gram: _Gram, problems: np.ndarray, s: np.ndarray, alpha: np.ndarray, G: np.ndarray, C: float,
                   tol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The solver before it was compiled (commit 6846dfc): every problem stepped together, in numpy."""
    alpha, G = alpha.copy(), G.copy()
    moved = np.zeros(s.shape[0], dtype=bool)
    rows = np.arange(s.shape[0])
    max_iter = max(10_000, 100 * gram.size)
    for _ in range(max_iter):
        a, g, y = alpha[rows], G[rows], s[rows]
        _, low, v, i, m, M = violating_pairs(y, a, g, C)
        go = m - M > tol
        rows, a, g, y, low, v, i, m = (x[go] for x in (rows, a, g, y, low, v, i, m))
        if rows.size == 0:
            return alpha, G, moved
        moved[rows] = True
        active = problems[rows]
        r = np.arange(rows.size)
        Ki = kernel_rows(gram, active, i)
        # second-order choice of j among I_low with v_t < m - tol: minimise -(m - v_t)^2 / a_it, where
        # a_it = K_ii + K_tt - 2 K_it = -2 (K_it - 1) (RBF: K_tt = 1; Ki holds the shifted kernel K - 1).
        # libsvm takes every v_t < m; a duplicate of x_i whose gradient differs from i's by rounding then
        # wins (curvature 0 -> TAU) and SMO shuffles alpha between the duplicates for ever.  The maximal
        # violating pair (v_t = M < m - tol) always qualifies.
        gap = m[:, None] - v
        curvature = -2.0 * Ki
        curvature = np.where(curvature > 0, curvature, _TAU)
        j = np.argmin(np.where(low & (gap > tol), -gap**2 / curvature, np.inf), axis=1)
        Kj = kernel_rows(gram, active, j)
        ai, aj, gi, gj = a[r, i], a[r, j], g[r, i], g[r, j]
        yi, yj = y[r, i], y[r, j]
        quad = curvature[r, j]
        # libsvm's two-variable update, both cases computed, then chosen
        diff = ai - aj
        ni, nj = ai + (-gi - gj) / quad, aj + (-gi - gj) / quad  # s_i != s_j: alpha_i - alpha_j is kept
        pos = diff > 0
        clip = pos & (nj < 0)
        ni, nj = np.where(clip, diff, ni), np.where(clip, 0.0, nj)
        clip = ~pos & (ni < 0)
        ni, nj = np.where(clip, 0.0, ni), np.where(clip, -diff, nj)
        clip = pos & (ni > C)
        ni, nj = np.where(clip, C, ni), np.where(clip, C - diff, nj)
        clip = ~pos & (nj > C)
        ni, nj = np.where(clip, C + diff, ni), np.where(clip, C, nj)
        total = ai + aj
        delta = (gi - gj) / quad
        si, sj = ai - delta, aj + delta  # s_i == s_j: alpha_i + alpha_j is kept
        big = total > C
        clip = big & (si > C)
        si, sj = np.where(clip, C, si), np.where(clip, total - C, sj)
        clip = ~big & (sj < 0)
        si, sj = np.where(clip, total, si), np.where(clip, 0.0, sj)
        clip = big & (sj > C)
        si, sj = np.where(clip, total - C, si), np.where(clip, C, sj)
        clip = ~big & (si < 0)
        si, sj = np.where(clip, 0.0, si), np.where(clip, total, sj)
        same = yi == yj
        new_i, new_j = snap(np.where(same, si, ni), C), snap(np.where(same, sj, nj), C)
        g += y * ((yi * (new_i - ai))[:, None] * Ki + (yj * (new_j - aj))[:, None] * Kj)
        a[r, i], a[r, j] = new_i, new_j
        alpha[rows], G[rows] = a, g
    warnings.warn(f"SVM dual solver stopped after {max_iter} iterations without reaching its tolerance",
                  RuntimeWarning, stacklevel=2)
    return alpha, G, moved






def problems_of(seed: int, n: int, B: int, extra: bool, warm: bool, C: float):
    """``B`` duals on ``n`` points drawn with replacement (bootstrap-like: duplicates), optionally one extra
    point per problem, started at 0 or from a feasible warm start."""
    rng = np.random.default_rng(seed)
    gamma = 0.5
    X = rng.normal(size=(n, 2))[rng.integers(0, n, size=n)]
    extra_kernel = _shifted_kernel(rng.normal(size=(B, 2)), X, gamma) if extra else None
    gram = _Gram(_shifted_kernel(X, X, gamma), extra_kernel)
    s = np.where(rng.random((B, gram.size)) < 0.5, 1.0, -1.0)
    s[:, 0], s[:, 1] = 1.0, -1.0  # both signs present
    alpha = np.zeros((B, gram.size))
    if warm:  # a feasible start: equal mass on a positive and a negative point of each problem
        for b in range(B):
            value = rng.uniform(0, C)
            alpha[b, rng.choice(np.flatnonzero(s[b] > 0))] += value
            alpha[b, rng.choice(np.flatnonzero(s[b] < 0))] += value
    problems = np.arange(B)
    G = s * matvec(gram, problems, alpha * s) - 1.0
    return gram, problems, s, alpha, G


@settings(deadline=None, derandomize=True, max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 40), B=st.integers(1, 12), extra=st.booleans(),
       warm=st.booleans(), C=st.sampled_from([0.5, 1.0, 10.0, 200.0]), tol=st.sampled_from([1e-4, 1e-7, 1e-11]))
def test_compiled_smo_equals_the_vectorised_solver_bit_for_bit(seed, n, B, extra, warm, C, tol):
    gram, problems, s, alpha, G = problems_of(seed, n, B, extra, warm, C)
    tol *= max(1.0, C)
    expected = vectorised_smo(gram, problems, s, alpha, G, C, tol)
    got = smo(gram, problems, s, alpha, G, C, tol)
    for name, a, b in zip(("alpha", "G", "moved"), got, expected, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=name)


def test_the_pure_python_loop_is_the_compiled_one():
    """numba compiles the function it is given: run uncompiled, it gives the same bits."""
    gram, problems, s, alpha, G = problems_of(3, 12, 6, True, True, 1.0)
    compiled = smo(gram, problems, s, alpha, G, 1.0, 1e-11)
    a, g, moved = alpha.copy(), G.copy(), np.zeros(len(problems), dtype=bool)
    size = s.shape[1]
    assert _smo_rows(gram.K, gram.extra, problems, s, a, g, np.ones(size), 1e-11, _TAU, np.full(size, 1 - _BOUND_SNAP),
                     _BOUND_SNAP, 10_000, moved)
    for x, y in zip((a, g, moved), compiled, strict=True):
        np.testing.assert_array_equal(x, y)


def test_a_stalled_solver_warns():
    """A tolerance no gap meets (negative) runs every problem to the iteration limit, and says so."""
    gram, problems, s, alpha, G = problems_of(1, 20, 2, False, False, 1.0)
    with pytest.warns(RuntimeWarning, match="stopped after 10000 iterations"):
        smo(gram, problems, s, alpha, G, 1.0, -1.0)


def test_no_problem_is_no_work():
    gram, problems, s, alpha, G = problems_of(0, 5, 1, False, False, 1.0)
    out = smo(gram, problems[:0], s[:0], alpha[:0], G[:0], 1.0, 1e-11)
    assert [x.shape for x in out] == [(0, 5), (0, 5), (0,)]
