"""The SVM's compiled solve (:func:`mri_theory.classifiers.svm._solve_rows`: SMO rounds, polishes, gap tests,
fresh gradients and the intercept in one compiled routine per problem) against the numpy solver it replaced.

The reference is that solver, kept here as it was (commit 5c4a545): the compiled SMO and polish called on
every problem of a round together, the gaps, gradients and intercepts in numpy.  The compiled routine does
the same operations one problem at a time; only the order of the sums in the fresh gradients and the
intercept differs, so the results agree to rounding (alphas, gradients, intercepts; which problems moved
exactly) on random problems: bootstrap-like duplicates (the least-norm polish), an extra point per problem,
warm starts, several ``C``.  Its pure-Python run (numba's function before compiling) must agree too.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, settings, st
from _svm_solver import matvec, polish, random_duals, smo, violating_pairs

from mri_theory.classifiers import svm
from mri_theory.classifiers.svm import (
    _BOUND_SNAP,
    _POLISH_SLACK,
    _SMO_TOLERANCE,
    _TAU,
    SVM,
    _Gram,
    _polish_rows,
    _shifted_kernel,
    _smo_rows,
    _solve,
    _solve_rows,
)


def numpy_intercept(s, alpha, G, C):
    """libsvm's ``b = -rho``: mean of ``-s G`` over free vectors, else the midpoint of the feasible interval."""
    v = s * G
    upper, lower = alpha >= C, alpha <= 0
    free = ~upper & ~lower
    n_free = free.sum(axis=1)
    to_ub = (upper & (s < 0)) | (lower & (s > 0))
    to_lb = (upper & (s > 0)) | (lower & (s < 0))
    ub = np.min(np.where(to_ub, v, np.inf), axis=1)
    lb = np.max(np.where(to_lb, v, -np.inf), axis=1)
    with np.errstate(invalid="ignore"):
        rho = np.where(n_free > 0, np.sum(np.where(free, v, 0.0), axis=1) / np.maximum(n_free, 1), (ub + lb) / 2)
    return -rho


def numpy_gap(s, alpha, G, C):
    _, _, _, _, m, M = violating_pairs(s, alpha, G, C)
    return m - M


def numpy_polished(gram, problems, s, alpha, G, C):
    polished = polish(gram, problems, s, alpha, C)
    fresh = s * matvec(gram, problems, polished * s) - 1.0
    worse = numpy_gap(s, polished, fresh, C) > numpy_gap(s, alpha, G, C)
    if worse.any():
        polished[worse] = alpha[worse]
        fresh[worse] = s[worse] * matvec(gram, problems[worse], alpha[worse] * s[worse]) - 1.0
    return polished, fresh


def numpy_solve(gram, s, alpha, G, C):
    """The solver of commit 5c4a545: SMO rounds and polishes over all moved problems at once, in numpy."""
    scale = max(1.0, C)
    moved = numpy_gap(s, alpha, G, C) > _SMO_TOLERANCE * scale
    problems = np.flatnonzero(moved)
    alpha, G = alpha.copy(), G.copy()
    sp, a, g = s[problems], alpha[problems], G[problems]
    for tol in (1e-4 * scale, 1e-7 * scale, _SMO_TOLERANCE * scale):
        a, g, stepped = smo(gram, problems, sp, a, g, C, tol)
        rows = np.flatnonzero(stepped)
        if rows.size:
            a[rows], g[rows] = numpy_polished(gram, problems[rows], sp[rows], a[rows], g[rows], C)
    alpha[problems], G[problems] = a, g
    return alpha, G, numpy_intercept(s, alpha, G, C), moved


def problems_of(seed: int, n: int, B: int, extra: bool, warm: bool, C: float, duplicates: bool):
    """``B`` duals on ``n`` points (drawn with replacement when ``duplicates``), optionally one extra point per
    problem, started at 0 or from a feasible warm start (SMO's solution without the extra point, as the fast
    path starts)."""
    rng = np.random.default_rng(seed)
    gram, s = random_duals(rng, n, B, extra, duplicates)
    alpha = np.zeros((B, gram.size))
    if warm:
        base, _, _, _ = numpy_solve(_Gram(gram.K), s[:, :n], np.zeros((B, n)), -np.ones((B, n)), C)
        alpha[:, :n] = base
    G = s * matvec(gram, np.arange(B), alpha * s) - 1.0
    return gram, s, alpha, G


def assert_same_solution(got, expected, C):
    alpha, G, b, moved = got
    np.testing.assert_array_equal(moved, expected[3])
    np.testing.assert_allclose(alpha, expected[0], rtol=0, atol=1e-11 * max(1.0, C))
    np.testing.assert_allclose(G, expected[1], rtol=0, atol=1e-10 * max(1.0, C))
    np.testing.assert_allclose(b, expected[2], rtol=0, atol=1e-10 * max(1.0, C))
    # the same active set: which alphas are on a bound
    np.testing.assert_array_equal((alpha == 0) | (alpha == C), (expected[0] == 0) | (expected[0] == C))


@settings(deadline=None, derandomize=True, max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 40), B=st.integers(1, 10), extra=st.booleans(),
       warm=st.booleans(), C=st.sampled_from([0.5, 1.0, 10.0, 200.0]), duplicates=st.booleans())
def test_compiled_solve_equals_the_numpy_solver(seed, n, B, extra, warm, C, duplicates):
    gram, s, alpha, G = problems_of(seed, n, B, extra, warm, C, duplicates)
    assert_same_solution(_solve(gram, s, alpha, G, C), numpy_solve(gram, s, alpha, G, C), C)


def test_problems_index_the_extra_points():
    """``problems[r]`` picks row ``r``'s extra point: the same as repeating the extra kernel rows."""
    gram, s, alpha, G = problems_of(5, 30, 4, True, True, 1.0, True)
    problems = np.repeat(np.arange(4), 3)
    repeated = _Gram(gram.K, gram.extra[problems])
    s, alpha = s[problems], alpha[problems]
    s[:, -1] = np.tile([1.0, -1.0, 1.0], 4)  # the candidate's label differs between a problem's rows
    G = s * matvec(repeated, np.arange(12), alpha * s) - 1.0
    got = _solve(gram, s, alpha, G, 1.0, problems)
    assert got[3].any()
    assert_same_solution(got, numpy_solve(repeated, s, alpha, G, 1.0), 1.0)


def test_the_pure_python_solve_is_the_compiled_one():
    """numba compiles the function it is given: run uncompiled (with the uncompiled SMO and polish), it gives
    the same solution."""
    gram, s, alpha, G = problems_of(3, 25, 6, True, True, 1.0, True)
    compiled = _solve(gram, s, alpha, G, 1.0)
    a, g = alpha.copy(), G.copy()
    b, moved = np.empty(6), np.zeros(6, dtype=bool)
    for kernel in (_smo_rows, _polish_rows):  # what _solve_rows calls run uncompiled: the module's functions
        assert getattr(svm, kernel.__name__) is kernel and not hasattr(kernel, "signatures")
    size = s.shape[1]
    assert _solve_rows(gram.K, gram.extra, np.arange(6), s, a, g, np.ones(size), np.array([1e-4, 1e-7, 1e-11]), _TAU,
                       np.full(size, 1 - _BOUND_SNAP), _BOUND_SNAP, _POLISH_SLACK, 10_000, b, moved,
                       np.full(6, -1))
    assert moved.any()
    assert_same_solution((a, g, b, moved), compiled, 1.0)


def test_a_stalled_solve_warns(monkeypatch):
    gram, s, alpha, G = problems_of(1, 20, 2, False, False, 1.0, False)
    monkeypatch.setattr("mri_theory.classifiers.svm._SMO_TOLERANCE", -1.0)  # no gap meets it
    with pytest.warns(RuntimeWarning, match="stopped after 10000 iterations"):
        _solve(gram, s, alpha, G, 1.0)


def test_no_problem_is_no_work():
    gram, s, alpha, G = problems_of(0, 5, 1, False, False, 1.0, False)
    out = _solve(gram, s[:0], alpha[:0], G[:0], 1.0)
    assert [x.shape for x in out] == [(0, 5), (0, 5), (0,), (0,)]


def test_a_fitted_machine_is_the_numpy_solvers():
    """End to end: a fit (4 classes, bootstrap duplicates) has the reference solver's solution.

    The fit merges a repeated (point, label) into one point with bound ``m C``; the reference solves the
    duplicates as they are, where only the total coefficient of the copies of a point on one side of a machine
    is determined: those totals, the intercepts and the decision values agree."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(40, 2))[rng.integers(0, 40, size=40)]
    y = rng.integers(0, 4, size=40)
    model = SVM(C=2.0).fit(X, y, 4)
    assert model._points.shape[0] < 40  # repeats were merged
    s = np.where(y[None, :] == model.machine_classes_[:, None], 1.0, -1.0)
    alpha, G, b, _ = numpy_solve(_Gram(_shifted_kernel(X, X, model.gamma_)), s, np.zeros_like(s),
                                 -np.ones_like(s), 2.0)
    for c in range(s.shape[0]):  # copies of a point with labels of one side are one variable of machine c
        _, group = np.unique(np.column_stack([X, s[c]]), axis=0, return_inverse=True)
        np.testing.assert_allclose(np.bincount(group.ravel(), weights=model.dual_coef_[c]),
                                   np.bincount(group.ravel(), weights=alpha[c] * s[c]), rtol=0, atol=1e-11)
    np.testing.assert_allclose(model.intercept_, b, rtol=0, atol=1e-10)
    points = rng.normal(size=(30, 2))
    reference = _shifted_kernel(points, X, model.gamma_) @ (alpha * s).T + b
    np.testing.assert_allclose(model.decision_function(points), reference, rtol=0, atol=1e-10)
