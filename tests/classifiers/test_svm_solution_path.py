"""The SVM fast path's solution path (:func:`mri_theory.classifiers.svm._path_row`, Cauwenberghs & Poggio 2001):
a warm-started problem whose only violator is the candidate is solved by following the exact path of the
solution as the candidate's alpha grows, then polished; it is kept only if it meets the solver's stopping gap.

Checked against the solver without the path (SMO from the warm start, rounds and polishes): the same solution
to rounding (bit for bit where both find the same active set, which the tests also require where the free set
is nonsingular), the same problems moved; problems that share one old solution (a "kind", as the fast path's
candidates do) and problems that do not; repeated points (a singular free set: the path cannot start and SMO
solves); several ``C``; multiplicities (bounds ``m C``).  Also that the path is taken and ends (it is not a
guess that always falls back), in the pure-Python run, which must equal the compiled one.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, settings, st
from _svm_solver import matvec, random_duals

from mri_theory.classifiers import svm
from mri_theory.classifiers.svm import (
    _BOUND_SNAP,
    _POLISH_SLACK,
    _TAU,
    _Gram,
    _path_row,
    _polish_rows,
    _shifted_kernel,
    _smo_rows,
    _solve,
    _solve_rows,
)


def warm_problems(seed: int, n: int, m: int, C: float, duplicates: bool, weighted: bool):
    """One binary dual on ``n`` points solved from 0 (bounds ``C`` times random multiplicities when
    ``weighted``), then ``m`` candidates each with both labels: ``2 m`` problems of one kind, started from
    ``(alpha, 0)`` as the fast path starts them."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    if duplicates:  # copies of points: a singular free set where two copies are free
        X = X[rng.integers(0, n, size=n)]
    s = np.where(rng.random((1, n)) < 0.5, 1.0, -1.0)
    s[0, :2] = 1.0, -1.0  # both signs present
    weights = rng.integers(1, 4, size=n).astype(float) if weighted else np.ones(n)
    K = _shifted_kernel(X, X, 0.5)
    alpha, _, _, _ = _solve(_Gram(K), s, np.zeros((1, n)), -np.ones((1, n)), C, weights=weights)
    extra = _shifted_kernel(rng.normal(size=(m, 2)) * 1.5, X, 0.5)
    gram = _Gram(K, extra)
    rows = np.repeat(np.arange(m), 2)
    signs = np.concatenate([np.repeat(s, 2 * m, axis=0), np.tile([[1.0], [-1.0]], (m, 1))], axis=1)
    start = np.concatenate([np.repeat(alpha, 2 * m, axis=0), np.zeros((2 * m, 1))], axis=1)
    G0 = signs * matvec(gram, rows, start * signs) - 1.0
    copies = np.append(np.unique(X, axis=0, return_inverse=True)[1].ravel(), n)  # the candidate: its own group
    return gram, signs, start, G0, rows, np.append(weights, 1.0), copies


def assert_same_solution(got, expected, C, s=None, copies=None):
    """The same problems moved, gradients and intercepts (unique), and alphas; with copies of points (their
    alphas are not unique: only their sum is) the sum of the signed alphas of each point's copies."""
    np.testing.assert_array_equal(got[3], expected[3])
    alpha, other = got[0], expected[0]
    if copies is not None:
        alpha, other = (np.stack([np.bincount(copies, weights=row) for row in a * s]) for a in (alpha, other))
    np.testing.assert_allclose(alpha, other, rtol=0, atol=1e-11 * max(1.0, C))
    np.testing.assert_allclose(got[1], expected[1], rtol=0, atol=1e-10 * max(1.0, C))
    np.testing.assert_allclose(got[2], expected[2], rtol=0, atol=1e-10 * max(1.0, C))


@settings(deadline=None, derandomize=True, max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 60), m=st.integers(1, 8),
       C=st.sampled_from([0.5, 1.0, 10.0, 200.0]), duplicates=st.booleans(), weighted=st.booleans())
def test_the_path_gives_the_solution_of_smo(seed, n, m, C, duplicates, weighted):
    gram, s, alpha, G, rows, weights, copies = warm_problems(seed, n, m, C, duplicates, weighted)
    with_path = _solve(gram, s, alpha, G, C, rows, weights, kinds=np.zeros(len(rows), dtype=np.int64))
    without = _solve(gram, s, alpha, G, C, rows, weights)
    if duplicates:
        assert_same_solution(with_path, without, C, s, copies)
        return
    assert_same_solution(with_path, without, C)
    bound = C * weights
    on_bound = (with_path[0] <= 0) | (with_path[0] >= bound)
    np.testing.assert_array_equal(on_bound, (without[0] <= 0) | (without[0] >= bound))  # the same active set


@settings(deadline=None, derandomize=True, max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 40), B=st.integers(1, 6), C=st.sampled_from([1.0, 10.0]))
def test_each_problem_its_own_kind(seed, n, B, C):
    """Problems with different old solutions (each its own kind) each start their own path."""
    rng = np.random.default_rng(seed)
    gram, s = random_duals(rng, n, B, True, False)
    alpha = np.zeros((B, gram.size))
    alpha[:, :n] = _solve(_Gram(gram.K), s[:, :n], np.zeros((B, n)), -np.ones((B, n)), C)[0]
    G = s * matvec(gram, np.arange(B), alpha * s) - 1.0
    assert_same_solution(_solve(gram, s, alpha, G, C, kinds=np.arange(B)), _solve(gram, s, alpha, G, C), C)


def test_the_path_is_taken_and_the_pure_python_run_is_the_compiled_one(monkeypatch):
    """Run uncompiled (numba's functions before compiling), the path ends for most moved problems (counted),
    and the solution is the compiled run's (to rounding: numpy's and numba's LAPACK calls may differ in it)."""
    gram, s, alpha, G, rows, weights, _ = warm_problems(7, 50, 12, 10.0, False, False)
    kinds = np.zeros(len(rows), dtype=np.int64)
    compiled = _solve(gram, s, alpha, G, 10.0, rows, weights, kinds=kinds)
    for kernel in (_smo_rows, _polish_rows, _path_row):  # what _solve_rows calls run uncompiled
        assert getattr(svm, kernel.__name__) is kernel and not hasattr(kernel, "signatures")
    ended, guesses = [], []

    def counted(*args):
        ended.append(_path_row(*args))
        guesses.append((args[2], args[3][-1], args[4].copy()))  # problem, the candidate's sign, the path's end
        return ended[-1]

    monkeypatch.setattr(svm, "_path_row", counted)
    a, g = alpha.copy(), G.copy()
    b, moved = np.empty(len(rows)), np.zeros(len(rows), dtype=bool)
    upper = 10.0 * weights
    _solve_rows(gram.K, gram.extra, rows, s, a, g, upper, np.array([1e-3, 1e-6, 1e-10]), _TAU,
                upper * (1 - _BOUND_SNAP), 10.0 * _BOUND_SNAP, _POLISH_SLACK * 10.0, 10_000, b, moved, kinds)
    assert len(ended) == moved.sum() > 6 and sum(ended) >= 0.8 * len(ended)
    # the path's end is the solution before the polish (to the rounding of its updates), not a mere guess
    for (problem, sign, guess), done in zip(guesses, ended, strict=True):
        if done:
            row = 2 * problem + (sign < 0)
            np.testing.assert_allclose(guess, compiled[0][row], rtol=0, atol=1e-9)
    assert_same_solution((a, g, b, moved), compiled, 10.0)


def test_a_singular_free_set_falls_back_to_smo(monkeypatch):
    """Copies of a point among the free vectors make the bordered KKT matrix singular: the path does not
    start (no call), SMO solves, and the solution is the one without the path."""
    gram, s, alpha, G, rows, weights, _ = warm_problems(3, 30, 6, 1.0, False, False)
    K = gram.K.copy()
    free = np.flatnonzero((alpha[0, :-1] > 0) & (alpha[0, :-1] < 1.0))
    assert free.size >= 2
    calls = []
    monkeypatch.setattr(svm, "_path_start", lambda *args: (calls.append(1), (0, 0.0))[1])
    a, g = alpha.copy(), G.copy()
    b, moved = np.empty(len(rows)), np.zeros(len(rows), dtype=bool)
    upper = weights.copy()
    monkeypatch.setattr(svm, "_smo_rows", svm._compiled_smo())
    monkeypatch.setattr(svm, "_polish_rows", svm._compiled_polish())
    _solve_rows(K, gram.extra, rows, s, a, g, upper, np.array([1e-4, 1e-7, 1e-11]), _TAU, upper * (1 - _BOUND_SNAP),
                _BOUND_SNAP, _POLISH_SLACK, 10_000, b, moved, np.zeros(len(rows), dtype=np.int64))
    assert calls == [1] and moved.any()
    assert_same_solution((a, g, b, moved), _solve(gram, s, alpha, G, 1.0, rows, weights), 1.0)


def test_the_path_does_not_start_on_a_singular_free_set():
    """Two copies of a point among the free vectors: the bordered KKT matrix has two equal rows, and the path's
    start (compiled and pure-Python) reports an empty start, so that SMO solves."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 2))
    X[5] = X[4]  # a copy
    K = _shifted_kernel(X, X, 0.5)
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    a = np.array([0.0, 1.0, 0.3, 0.0, 0.4, 0.7])  # both copies free
    g = y * (K @ (a * y)) - 1.0
    for start in (svm._path_start, svm._compiled_path_start()):
        inverse, free = np.zeros((7, 7)), np.zeros(6, dtype=np.int64)
        assert start(K, y, a, g, np.ones(6), inverse, free) == (0, 0.0)
    a[5] = 0.0  # one copy free: the start is the inverse of the bordered matrix
    inverse, free = np.zeros((7, 7)), np.zeros(6, dtype=np.int64)
    f, intercept = svm._compiled_path_start()(K, y, a, g, np.ones(6), inverse, free)
    assert f == 2 and list(free[:2]) == [2, 4]
    M = np.array([[0.0, 1.0, 1.0], [1.0, K[2, 2], K[2, 4]], [1.0, K[4, 2], K[4, 4]]])
    np.testing.assert_allclose(inverse[:3, :3] @ M, np.eye(3), atol=1e-12)
    assert intercept == pytest.approx(-(y[2] * g[2] + y[4] * g[4]) / 2, abs=1e-15)
