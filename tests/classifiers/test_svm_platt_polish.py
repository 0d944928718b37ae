"""The SVM's compiled Platt fit (:func:`mri_theory.classifiers.svm._platt`, warm-startable) and compiled polish
(``polish`` (``tests/_svm_solver.py``)) against the numpy code they replaced.

The references are that code, kept here as it was (commit ac96b4b): Platt's Newton method with Lin, Lin &
Weng's line search batched over problems in numpy, always from Platt's starting point; and the polish's
stacked solves with its stacked least-norm fallback.  The numpy Newton method stops at a gradient of
``1e-12`` per point (its iterate is within about ``1e-11`` of the minimiser); the compiled one takes one more
Newton step from there and lands on the minimiser to rounding, from any start: warm and cold starts agree
to rounding, and both agree with the numpy reference to its own tolerance, with scipy's trust-region Newton
and with a gradient summed exactly (``math.fsum``) at the returned point.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pytest
from _optional import given, settings, st
from _svm_solver import polish, random_duals, smo, snap
from scipy import optimize, special

from mri_theory.classifiers.svm import (
    _BOUND_SNAP,
    _PLATT_FLAT,
    _PLATT_GRADIENT,
    _PLATT_MAX_ITER,
    _PLATT_NEWTON_FLOOR,
    _PLATT_RIDGE,
    _PLATT_WELL_CONDITIONED,
    _POLISH_SLACK,
    _Gram,
    _platt,
    _platt_rows,
    _polish_rows,
    platt_sigmoid,
)

# ---------------------------------------------------------------- the numpy references (commit ac96b4b)


def numpy_platt_objective(decision, target, a, c):
    z = a[:, None] * decision + c[:, None]
    return np.sum(target * np.logaddexp(0.0, z) + (1 - target) * np.logaddexp(0.0, -z), axis=1)


def numpy_platt(decision: np.ndarray, positive: np.ndarray) -> np.ndarray:
    """Platt's sigmoid by the batched numpy Newton method, from Platt's starting point (commit ac96b4b)."""
    B, n = decision.shape
    n_pos = positive.sum(axis=1)
    n_neg = n - n_pos
    target = np.where(positive, ((n_pos + 1) / (n_pos + 2))[:, None], (1 / (n_neg + 2))[:, None])
    a = np.zeros(B)
    c = np.log((n_neg + 1) / (n_pos + 1))
    spread = decision.max(axis=1) - decision.min(axis=1)
    flat = spread <= _PLATT_FLAT * np.maximum(1.0, np.abs(decision).max(axis=1))
    mean_target = target[flat].mean(axis=1)
    c[flat] = np.log((1 - mean_target) / mean_target)
    active = np.flatnonzero(~flat)
    objective = np.zeros(B)
    objective[active] = numpy_platt_objective(decision[active], target[active], a[active], c[active])
    for _ in range(100):
        f, t = decision[active], target[active]
        z = a[active, None] * f + c[active, None]
        q = special.expit(-z)
        g = t - q
        ga, gc = np.sum(g * f, axis=1), np.sum(g, axis=1)
        go = np.maximum(np.abs(ga), np.abs(gc)) > _PLATT_GRADIENT * n
        active, f, t, z, q, ga, gc = (x[go] for x in (active, f, t, z, q, ga, gc))
        if active.size == 0:
            break
        h = special.expit(z) * q
        hf = h * f
        haa = np.sum(hf * f, axis=1) + _PLATT_RIDGE
        hcc = np.sum(h, axis=1) + _PLATT_RIDGE
        hac = np.sum(hf, axis=1)
        det = haa * hcc - hac**2
        da, dc = -(hcc * ga - hac * gc) / det, -(haa * gc - hac * ga) / det
        slope = ga * da + gc * dc
        old = objective[active]
        new = np.empty(active.size)
        step = np.ones(active.size)
        pending = np.ones(active.size, dtype=bool)
        while pending.any() and step.min() >= 1e-10:
            index = np.flatnonzero(pending)
            new[index] = numpy_platt_objective(f[index], t[index], a[active[index]] + step[index] * da[index],
                                               c[active[index]] + step[index] * dc[index])
            accepted = new[index] <= (old[index] + 1e-4 * step[index] * slope[index]
                                      + 4 * np.finfo(float).eps * np.abs(old[index]))
            pending[index[accepted]] = False
            step = np.where(pending, step / 2, step)
        ok = ~pending
        a[active[ok]] += step[ok] * da[ok]
        c[active[ok]] += step[ok] * dc[ok]
        objective[active[ok]] = new[ok]
        active = active[ok]
    return np.column_stack([a, c])


def numpy_least_norm(system, rhs):
    U, sv, Vt = np.linalg.svd(system)
    cutoff = np.finfo(float).eps * system.shape[-1] * sv[:, :1]
    inverse = np.divide(1.0, sv, out=np.zeros_like(sv), where=sv > cutoff)
    return np.einsum("bji,bj->bi", Vt, inverse * np.einsum("bji,bj->bi", U, rhs))


def within_box(alpha, C, slack):
    return np.all(np.isfinite(alpha) & (alpha >= -slack) & (alpha <= C + slack), axis=1)


def numpy_polish(gram: _Gram, problems: np.ndarray, s: np.ndarray, alpha: np.ndarray, C: float) -> np.ndarray:
    """The polish as stacked numpy solves, free sets of equal size together (commit ac96b4b)."""
    out = alpha.copy()
    free = (alpha > 0) & (alpha < C)
    counts = free.sum(axis=1)
    beta_upper = np.where(alpha >= C, C * s, 0.0)
    slack = _POLISH_SLACK * C
    every = np.arange(gram.size)
    for f in np.unique(counts[counts > 0]):
        rows = np.flatnonzero(counts == f)
        b = problems[rows]
        idx = np.nonzero(free[rows])[1].reshape(rows.size, f)
        K_free = gram.entries(b, idx[:, :, None], idx[:, None, :])
        system = np.ones((rows.size, f + 1, f + 1))
        system[:, :f, :f] = K_free
        system[:, f, f] = 0.0
        s_free = np.take_along_axis(s[rows], idx, axis=1)
        rhs = np.empty((rows.size, f + 1))
        rhs[:, :f] = s_free - np.einsum("bij,bj->bi", gram.entries(b, idx[:, :, None], every), beta_upper[rows])
        rhs[:, f] = -beta_upper[rows].sum(axis=1)
        solution = np.full((rows.size, f + 1), np.nan)
        plain = np.flatnonzero(~np.any((K_free == 0.0) & ~np.eye(f, dtype=bool), axis=(1, 2)))
        if plain.size:
            try:
                solution[plain] = np.linalg.solve(system[plain], rhs[plain, :, None])[..., 0]
            except np.linalg.LinAlgError:
                for r in plain:
                    with contextlib.suppress(np.linalg.LinAlgError):
                        solution[r] = np.linalg.solve(system[r], rhs[r])
        ok = within_box(s_free * solution[:, :f], C, slack)
        redo = np.flatnonzero(~ok)
        if redo.size:
            current = s_free[redo] * np.take_along_axis(alpha[rows[redo]], idx[redo], axis=1)
            intercept = np.mean(rhs[redo, :f] - np.einsum("bij,bj->bi", K_free[redo], current), axis=1)
            start = np.column_stack([current, intercept])
            correction = numpy_least_norm(system[redo], rhs[redo] - np.einsum("bij,bj->bi", system[redo], start))
            solution[redo] = start + correction
            ok[redo] = within_box(s_free[redo] * solution[redo, :f], C, slack)
        keep = np.flatnonzero(ok)
        polished = snap(np.clip(s_free[keep] * solution[keep, :f], 0.0, C), C)
        block = out[rows[keep]]
        np.put_along_axis(block, idx[keep], polished, axis=1)
        out[rows[keep]] = block
    return out


# ---------------------------------------------------------------- Platt


def platt_problems(seed: int, B: int, n: int, scale: float, shift: float, separable: bool):
    rng = np.random.default_rng(seed)
    f = rng.normal(size=(B, n))
    positive = (f + (0.0 if separable else rng.normal(size=(B, n)))) > 0
    return shift + scale * f, positive


def targets(positive: np.ndarray) -> np.ndarray:
    n_pos = positive.sum(axis=-1, keepdims=True)
    n = positive.shape[-1]
    return np.where(positive, (n_pos + 1) / (n_pos + 2), 1 / (n - n_pos + 2))


def exact_gradient(f: np.ndarray, t: np.ndarray, a: float, c: float) -> tuple[float, float]:
    """The objective's gradient at ``(a, c)``, each sum exactly rounded (``math.fsum``)."""
    g = t - special.expit(-(a * f + c))
    return math.fsum(g * f), math.fsum(g)


def assert_same_sigmoid(got: np.ndarray, expected: np.ndarray, f: np.ndarray, tol: float) -> None:
    """The Platt arguments ``A f + B`` at the points agree to ``tol``, relative to the size of their terms
    (``|A f| + |B|``, which the rounding of ``A`` and ``B`` scales): scale-free, unlike ``A`` and ``B``."""
    size = 1 + np.abs(expected[:, :1] * f) + np.abs(expected[:, 1:])
    difference = np.abs(got[:, :1] - expected[:, :1]) * np.abs(f) + np.abs(got[:, 1:] - expected[:, 1:])
    np.testing.assert_array_less(difference, tol * size)


def converged(f: np.ndarray, positive: np.ndarray, ab: np.ndarray) -> bool:
    """Whether the numpy reference converged: its gradient in the values standardised to ``[-1, 1]`` is below
    ``1e-8`` per point, and Newton's Hessian is not dominated by Lin, Lin & Weng's ridge of ``1e-12``.
    It does not on values spread over less than about ``1e-6`` (the ridge makes it creep; there the compiled
    fit ignores a warm start and takes the reference's path from Platt's point), nor on values far from 0
    relative to their spread (its Hessian cancels)."""
    z = ab[0] * f + ab[1]
    q = special.expit(-z)
    curvature = q * (1 - q)
    centred = f - np.sum(curvature * f) / np.sum(curvature)
    g = targets(positive) - q
    u = (f - (f.max() + f.min()) / 2) / ((f.max() - f.min()) / 2)
    small = max(abs(math.fsum(g * u)), abs(math.fsum(g))) <= 1e-8 * f.size
    return bool(small and np.sum(curvature * centred**2) > 1e-6)


@settings(deadline=None, derandomize=True, max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), B=st.integers(1, 6), n=st.integers(1, 80),
       scale=st.sampled_from([1e-6, 1e-3, 1.0, 30.0, 1e3]), shift=st.sampled_from([0.0, 2.0, -1e3]),
       separable=st.booleans(), start=st.sampled_from(["cold", "near", "far", "mirror"]))
def test_compiled_platt_meets_the_numpy_newton_scipy_and_an_exact_gradient(seed, B, n, scale, shift, separable,
                                                                          start):
    f, positive = platt_problems(seed, B, n, scale, shift, separable)
    reference = numpy_platt(f, positive)
    rng = np.random.default_rng(seed + 1)
    starts = {"cold": None, "near": reference * (1 + 0.05 * rng.normal(size=reference.shape)),
              "far": rng.normal(scale=50, size=reference.shape) / scale,
              "mirror": reference * [1.0, -1.0]}[start]
    got = _platt(f, positive, starts)
    cold = _platt(f, positive)
    assert_same_sigmoid(got, cold, f, 1e-12)  # the same minimiser to rounding, whatever the start
    t = targets(positive)
    for row in range(B):
        if reference[row, 0] == 0.0:  # all-equal decision values: the flat rule, in both
            assert got[row, 0] == 0.0
            np.testing.assert_allclose(got[row, 1], reference[row, 1], rtol=1e-14)
            continue
        if not converged(f[row], positive[row], reference[row]):
            continue
        assert_same_sigmoid(got[row:row + 1], reference[row:row + 1], f[row:row + 1], 1e-8)  # its tolerance
        # the gradient at the returned point is rounding, summed exactly (the rounding of A and B scaled by
        # the cancellation in z = A f + B)
        ga, gc = exact_gradient(f[row], t[row], *got[row])
        z = got[row, 0] * f[row] + got[row, 1]
        cancellation = np.max(np.abs(got[row, 0] * f[row]) + abs(got[row, 1])) / max(1.0, np.abs(z).max())
        floor = 1e-13 * n * cancellation
        assert abs(ga) <= floor * np.abs(f[row]).max() and abs(gc) <= floor

        def objective(p, f=f[row], t=t[row]):
            z = p[0] * f + p[1]
            q = special.expit(-z)
            h = q * (1 - q)
            gradient = np.array([np.sum((t - q) * f), np.sum(t - q)])
            hessian = np.array([[np.sum(h * f * f), np.sum(h * f)], [np.sum(h * f), np.sum(h)]])
            return np.sum(t * np.logaddexp(0.0, z) + (1 - t) * np.logaddexp(0.0, -z)), gradient, hessian

        scipy = optimize.minimize(lambda p: objective(p)[:2], reference[row], jac=True,
                                  hess=lambda p: objective(p)[2], method="trust-exact", options={"gtol": 1e-13})
        assert_same_sigmoid(got[row:row + 1], scipy.x[None], f[row:row + 1], 1e-8)


def test_platt_edge_cases_against_the_numpy_newton():
    """All-equal values (the flat rule), one and two points, one-sided labels, separable data, a slope of
    1e7 (values spread over 1e-7 around 1e3), huge decision values."""
    rng = np.random.default_rng(3)
    cases = [
        (np.full((1, 6), 0.8), np.array([[True, False, True, False, False, True]])),
        (np.array([[0.3]]), np.array([[True]])),
        (np.array([[-3.0, 2.0]]), np.array([[False, True]])),
        (np.array([[1.0, 1.5, 3.0]]), np.array([[True, True, True]])),
        (np.arange(40.0)[None] - 20, (np.arange(40) >= 20)[None]),
        (1e3 + 1e-7 * rng.normal(size=(1, 30)), rng.random((1, 30)) < 0.5),
        (1e-9 * rng.normal(size=(1, 30)), rng.random((1, 30)) < 0.5),
        (1e6 * rng.normal(size=(1, 30)), rng.random((1, 30)) < 0.5),
    ]
    for f, positive in cases:
        reference = numpy_platt(f, positive)
        for start in (None, reference, reference * [1.0, -1.0] + 1.0):
            got = _platt(f, positive, start)
            assert np.all(np.isfinite(got))
            assert_same_sigmoid(got, _platt(f, positive), f, 1e-12)
            if reference[0, 0] == 0.0 or converged(f[0], positive[0], reference[0]):
                assert_same_sigmoid(got, reference, f, 1e-8)
        np.testing.assert_array_equal(platt_sigmoid(f, positive), _platt(f, positive))


def test_a_nan_start_is_a_cold_start_and_a_worse_start_is_not_taken():
    f, positive = platt_problems(5, 4, 50, 2.0, 0.0, False)
    cold = _platt(f, positive)
    np.testing.assert_array_equal(_platt(f, positive, np.full((4, 2), np.nan)), cold)
    # a start whose objective exceeds that of Platt's point is ignored: the iterates, hence the bits, are cold's
    np.testing.assert_array_equal(_platt(f, positive, np.tile([1e3, -1e3], (4, 1))), cold)



@settings(deadline=None, derandomize=True, max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 40), separable=st.booleans(), warm=st.booleans())
def test_a_weighted_point_is_the_point_repeated(seed, n, separable, warm):
    """Weights (a bootstrap resample's multiplicities) give the sigmoid of the points repeated that often:
    the same minimiser, to rounding."""
    f, positive = platt_problems(seed, 3, n, 2.0, 0.3, separable)
    weights = np.random.default_rng(seed).integers(1, 4, size=n)
    starts = _platt(f, positive) * 1.05 if warm else None
    got = _platt(f, positive, starts, weights.astype(float))
    expected = _platt(np.repeat(f, weights, axis=1), np.repeat(positive, weights, axis=1), starts)
    assert_same_sigmoid(got, expected, f, 1e-10)
    np.testing.assert_array_equal(_platt(f, positive, starts, np.ones(n)), _platt(f, positive, starts))


def test_the_pure_python_platt_is_the_compiled_one():
    """numba compiles the function it is given: run uncompiled, it gives the same values (its exp and log1p
    are libm's, numpy's scalar ones may differ in the last bit)."""
    f, positive = platt_problems(7, 5, 30, 3.0, 0.5, False)
    starts = np.where(np.arange(5)[:, None] % 2 == 0, np.nan, numpy_platt(f, positive) * 1.1)
    out = np.empty((5, 2))
    _platt_rows(f, positive, np.ones(f.shape[1]), starts, out, _PLATT_GRADIENT, _PLATT_RIDGE, _PLATT_FLAT,
                _PLATT_NEWTON_FLOOR, _PLATT_WELL_CONDITIONED, _PLATT_MAX_ITER)
    np.testing.assert_allclose(out, _platt(f, positive, starts), rtol=1e-13, atol=1e-15)


# ---------------------------------------------------------------- the polish


def polish_problems(seed: int, n: int, B: int, extra: bool, C: float, duplicates: bool):
    """``B`` duals on ``n`` points (drawn with replacement when ``duplicates``: a singular free set), optionally
    an extra point each, solved by SMO to the solver's loosest gap (1e-4): what the first polish sees."""
    rng = np.random.default_rng(seed)
    gram, s = random_duals(rng, n, B, extra, duplicates)
    problems = np.arange(B)
    alpha, _, _ = smo(gram, problems, s, np.zeros((B, gram.size)), -np.ones((B, gram.size)), C, 1e-4 * max(1, C))
    return gram, problems, s, alpha


@settings(deadline=None, derandomize=True, max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 50), B=st.integers(1, 10), extra=st.booleans(),
       C=st.sampled_from([0.5, 1.0, 10.0, 200.0]), duplicates=st.booleans())
def test_compiled_polish_equals_the_numpy_polish(seed, n, B, extra, C, duplicates):
    gram, problems, s, alpha = polish_problems(seed, n, B, extra, C, duplicates)
    expected = numpy_polish(gram, problems, s, alpha, C)
    got = polish(gram, problems, s, alpha, C)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * C)
    # which alphas are on a bound is the same (both snap the same solutions)
    np.testing.assert_array_equal((got == 0) | (got == C), (expected == 0) | (expected == C))


def test_the_least_norm_path_is_taken_for_duplicates_and_agrees():
    """Bootstrap-like data (many duplicates): most free sets are singular and take the least-norm correction
    (the reference's stacked SVD); the compiled polish finds the same alphas."""
    gram, problems, s, alpha = polish_problems(11, 40, 12, True, 1.0, True)
    free = (alpha > 0) & (alpha < 1.0)
    K = gram.K
    singular = [np.any((K[np.ix_(np.flatnonzero(free[b, :40]), np.flatnonzero(free[b, :40]))] == 0.0)
                       & ~np.eye(free[b, :40].sum(), dtype=bool)) for b in range(12)]
    assert sum(singular) >= 3
    np.testing.assert_allclose(polish(gram, problems, s, alpha, 1.0), numpy_polish(gram, problems, s, alpha, 1.0),
                               rtol=0, atol=1e-9)


def test_the_pure_python_polish_is_the_compiled_one():
    gram, problems, s, alpha = polish_problems(2, 30, 6, True, 1.0, True)
    out = alpha.copy()
    size = s.shape[1]
    _polish_rows(gram.K, gram.extra, problems, s, alpha, np.ones(size), _POLISH_SLACK, np.full(size, 1 - _BOUND_SNAP),
                 _BOUND_SNAP, out)
    np.testing.assert_allclose(out, polish(gram, problems, s, alpha, 1.0), rtol=0, atol=1e-13)


def test_no_free_vector_is_no_polish():
    gram, problems, s, alpha = polish_problems(4, 10, 3, False, 1.0, False)
    bounded = np.where(alpha > 0.5, 1.0, 0.0)
    np.testing.assert_array_equal(polish(gram, problems, s, bounded, 1.0), bounded)
    assert polish(gram, problems[:0], s[:0], alpha[:0], 1.0).shape == (0, gram.size)


@pytest.mark.parametrize("C", [1.0, 50.0])
def test_numpy_least_norm_reference_is_lstsq(C):
    """The reference's stacked least-norm solve is ``numpy.linalg.lstsq`` (singular systems included)."""
    rng = np.random.default_rng(int(C))
    systems = np.stack([rng.normal(size=(6, r)) @ rng.normal(size=(r, 6)) for r in (2, 5, 6)]) * C
    rhs = rng.normal(size=(3, 6))
    expected = np.stack([np.linalg.lstsq(a, b, rcond=None)[0] for a, b in zip(systems, rhs, strict=True)])
    np.testing.assert_allclose(numpy_least_norm(systems, rhs), expected, rtol=1e-9, atol=1e-9)


def _platt_steps(decision, positive, start, weights, max_iter):
    """The compiled Platt fit of one problem from ``start`` with at most ``max_iter`` Newton steps."""
    from mri_theory.classifiers.svm import _compiled_platt

    out = np.full((1, 2), np.nan)
    _compiled_platt()(decision[None], positive[None], weights, np.asarray(start, dtype=float)[None], out,
                      _PLATT_GRADIENT, _PLATT_RIDGE, _PLATT_FLAT, _PLATT_NEWTON_FLOOR, _PLATT_WELL_CONDITIONED,
                      max_iter)
    return out[0]


@pytest.mark.parametrize("weighted", [False, True])
def test_platt_starts_warm_only_from_a_start_below_platts_point(weighted):
    """Where each fit starts, seen with no Newton step taken (``max_iter = 0``): from Platt's point
    ``(A, B) = (0, ln((N_- + 1) / (N_+ + 1)))`` (counts weighted) without a start or from a start whose objective
    is above that point's, and from the start itself when it is below (here: the minimiser, which a full fit then
    keeps)."""
    rng = np.random.default_rng(21)
    positive = rng.random(40) < 0.4
    decision = np.where(positive, 1.0, -1.0) + rng.normal(scale=1.2, size=40)
    weights = rng.integers(1, 4, size=40).astype(float) if weighted else np.ones(40)
    n_pos, n_neg = weights[positive].sum(), weights[~positive].sum()
    platt_point = np.array([0.0, math.log((n_neg + 1) / (n_pos + 1))])
    fitted = _platt(decision[None], positive[None], weights=weights)[0]
    assert fitted[0] < -0.5  # a real slope: far from Platt's point
    np.testing.assert_array_equal(_platt_steps(decision, positive, [np.nan, np.nan], weights, 0), platt_point)
    np.testing.assert_array_equal(_platt_steps(decision, positive, [np.nan, 0.3], weights, 0), platt_point)
    for worse in ([5.0, 5.0], [0.3, 1.0], [-3.0, 3.0]):  # objectives above Platt's point's, by 5-15 %; well-posed
        np.testing.assert_array_equal(_platt_steps(decision, positive, worse, weights, 0), platt_point)
    np.testing.assert_array_equal(_platt_steps(decision, positive, fitted, weights, 0), fitted)
    # just below and just above Platt's point's objective, on the line through it and the minimiser (convex)
    below, above = platt_point + 0.01 * (fitted - platt_point), platt_point - 0.01 * (fitted - platt_point)
    np.testing.assert_array_equal(_platt_steps(decision, positive, below, weights, 0), below)
    np.testing.assert_array_equal(_platt_steps(decision, positive, above, weights, 0), platt_point)
    np.testing.assert_allclose(_platt_steps(decision, positive, fitted, weights, _PLATT_MAX_ITER), fitted,
                               rtol=1e-10, atol=1e-12)
