"""Logistic regression's compiled Newton solver (:func:`mri_theory.classifiers.logistic._newton_rows`) against
independent solvers.

References: the batched numpy solver it replaced, kept here as it was (commit ac96b4b: ``_Fit`` and
``_Problems``, the same damped Newton with the same convergence criterion, written with numpy over all
problems at once), which also sees repeated points written out (the compiled solver merges and counts
them); :func:`scipy.optimize.minimize` (``Newton-CG``, then :func:`scipy.optimize.root` on the gradient;
gradient and Hessian written out here) on the documented objective; that gradient and Hessian against the
solver's own at random parameters.  The data: random, separable, tiny (one point per
class), with repeated points (a bootstrap resample), two and three classes, warm and cold starts.  The
compiled function's pure-Python run (numba's function before compiling) against the compiled one.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, settings, st
from scipy import optimize, special

from mri_theory.classifiers.logistic import (
    _ARMIJO,
    _DECREMENT_FLOOR,
    _MAX_HALVINGS,
    GRADIENT_TOLERANCE,
    STEP_TOLERANCE,
    LogisticRegression,
    _compiled_newton,
    _newton_rows,
    _solve,
    _starting_point,
)

# ---------------------------------------------------------------- the numpy solver before (commit ac96b4b)


def _class_max(S: np.ndarray) -> np.ndarray:
    """Maximum over the first (class) axis."""
    top = S[0]
    for j in range(1, S.shape[0]):
        top = np.maximum(top, S[j])
    return top


def _class_sum(W: np.ndarray, V: np.ndarray) -> np.ndarray:
    """``sum_j W[j] * V[j]`` over the first (class) axis, broadcasting the rest."""
    out = W[0] * V[0]
    for j in range(1, V.shape[0]):
        out += W[j] * V[j]
    return out


class _Fit:
    r"""Per-point quantities of the log loss at logits ``S`` (class axis first) with one-hot labels ``Y``.

    Every quantity is formed without subtracting nearly equal numbers, so it
    keeps its *relative* accuracy when the model is confident (the training
    probabilities within 1e-13 of 0 or 1, which happens whenever the ridge is
    weak in the frame: ``C`` large or the data's scale large):
    with :math:`e_l = e^{S_l - \max S}` and :math:`o = \sum_{l \ne y} e_l`
    (the other classes' share, a masked sum), the loss is
    :math:`-\ln \hat p_y = (\max S - S_y) + \operatorname{log1p}(e_y - 1 + o)`,
    the residual :math:`\hat p - e_y` has entry :math:`-o / \sum e` for the
    label (not :math:`\hat p_y - 1`), and the Hessian block
    :math:`\operatorname{diag} \hat p - \hat p \hat p^T` has diagonal
    :math:`\hat p_j \sum_{l \ne j} \hat p_l` (not :math:`\hat p_j - \hat p_j^2`).
    """

    def __init__(self, S: np.ndarray, Y: np.ndarray, not_Y: np.ndarray) -> None:
        self.S, self.Y, self.not_Y, self.top = S, Y, not_Y, _class_max(S)
        self.E = np.exp(S - self.top)
        self.e_label, self.others = _class_sum(Y, self.E), _class_sum(not_Y, self.E)  # masks of 0 and 1: exact
        self.total = self.e_label + self.others

    def nll(self) -> np.ndarray:
        r""":math:`-\ln \hat p_y` per point."""
        return (self.top - _class_sum(self.Y, self.S)) + np.log1p((self.e_label - 1.0) + self.others)

    def residual(self) -> np.ndarray:
        r""":math:`\hat p - e_y`, class axis first."""
        return (self.E * self.not_Y - self.Y * self.others) / self.total

    def curvature(self) -> np.ndarray:
        r""":math:`\operatorname{diag} \hat p - \hat p \hat p^T` per point: ``(q, q, ...)``."""
        q = self.E.shape[0]
        P = self.E / self.total
        A = -P[:, None] * P[None, :]
        for j in range(q):
            A[j, j] = P[j] * (sum(self.E[other] for other in range(q) if other != j) / self.total)
        return A


class _Problems:
    """``B`` logistic problems: ``n`` shared points plus one extra point each.

    ``Z0 (n, p)``, ``Y0 (n, q)``: shared features (with the intercept column)
    and one-hot labels; ``z1 (B, p)``, ``Y1 (B, q)``: the extra points.
    ``ridge`` is the penalty on the weights (module notes).  Internally the
    class axis comes first and the models last, so every elementwise pass runs
    over long contiguous rows.
    """

    def __init__(self, Z0: np.ndarray, Y0: np.ndarray, z1: np.ndarray, Y1: np.ndarray, ridge: float) -> None:
        self.Z0, self.Y0, self.z1, self.Y1, self.ridge = Z0, Y0, z1, Y1, ridge
        p = Z0.shape[1]
        self.ZZ0 = (Z0[:, :, None] * Z0[:, None, :]).reshape(-1, p * p)
        self.N = Z0.shape[0] + 1
        self.Y0T = np.ascontiguousarray(self.Y0.T)[:, :, None]  # (q, n, 1): broadcasts over the models
        self.not_Y0T = 1.0 - self.Y0T

    def _fit0(self, S0: np.ndarray) -> _Fit:
        return _Fit(S0, self.Y0T, self.not_Y0T)

    def _fit1(self, S1: np.ndarray, rows: np.ndarray) -> _Fit:
        Y1 = self.Y1[rows].T
        return _Fit(S1, Y1, 1.0 - Y1)

    def starting_point(self) -> np.ndarray:
        """Zero weights, log class frequencies relative to the first class as intercepts: ``(B, q, p)``."""
        counts = self.Y0.sum(axis=0) + self.Y1  # (B, q): every class present
        theta = np.zeros(counts.shape + (self.Z0.shape[1],))
        theta[..., -1] = np.log(counts / counts[:, :1])
        return theta

    def _logits(self, theta: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits ``(q, n, b)`` on the shared points and ``(q, b)`` on the extra points of problems ``rows``."""
        return self.Z0 @ theta.transpose(1, 2, 0), np.einsum("bp,bqp->qb", self.z1[rows], theta)

    def objective(self, theta: np.ndarray, rows: np.ndarray) -> np.ndarray:
        r"""Mean-form objective :math:`F` of problems ``rows`` at ``theta (b, q, p)``: ``(b,)``."""
        S0, S1 = self._logits(theta, rows)
        nll = np.sum(self._fit0(S0).nll(), axis=0) + self._fit1(S1, rows).nll()
        weights = theta[..., :-1]
        return (nll + 0.5 * self.ridge * np.einsum("bqd,bqd->b", weights, weights)) / self.N

    def gradient_hessian(self, theta: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r"""Mean-form gradient ``(b, q p)`` and Hessian ``(b, q p, q p)`` of problems ``rows``.

        :math:`\nabla F = \frac1N [\sum_i (\hat p_i - e_{y_i}) \otimes z_i + \lambda W]`,
        :math:`H = \frac1N [\sum_i (\mathrm{diag}\,\hat p_i - \hat p_i \hat p_i^T) \otimes z_i z_i^T + \lambda I_W]`,
        with the reference intercept (entry ``p - 1``) pinned: its gradient is 0
        and its Hessian row and column those of the identity, so its Newton
        step is 0.
        """
        b, q, p = theta.shape
        S0, S1 = self._logits(theta, rows)
        fit0, fit1 = self._fit0(S0), self._fit1(S1, rows)  # (q, n, b), (q, b)
        z1 = self.z1[rows]
        grad = np.swapaxes(fit0.residual(), 1, 2) @ self.Z0  # (q, b, p)
        grad += fit1.residual()[:, :, None] * z1
        grad = grad.transpose(1, 0, 2)
        grad[..., :-1] += self.ridge * theta[..., :-1]
        grad[..., :-1] -= np.mean(grad[..., :-1], axis=1, keepdims=True)  # 0 in exact arithmetic (notes)
        A0 = fit0.curvature()  # (q, q, n, b): diag(p) - p p^T
        A1 = fit1.curvature()  # (q, q, b)
        H = np.swapaxes(A0.reshape(q * q, -1, b), 1, 2) @ self.ZZ0  # (q q, b, p p)
        H = H.reshape(q, q, b, p, p) + A1[..., None, None] * (z1[:, :, None] * z1[:, None, :])
        H = H.transpose(2, 0, 3, 1, 4).reshape(b, q * p, q * p)
        weights = np.ones((q, p), dtype=bool)
        weights[:, -1] = False
        H[:, weights.ravel(), weights.ravel()] += self.ridge
        grad = grad.reshape(b, q * p) / self.N
        H /= self.N
        grad[:, p - 1] = 0.0
        H[:, p - 1, :] = 0.0
        H[:, :, p - 1] = 0.0
        H[:, p - 1, p - 1] = 1.0
        return grad, H

    def solve(self, theta: np.ndarray, max_iter: int) -> tuple[np.ndarray, int]:
        """Minimise every problem by damped Newton from ``theta (B, q, p)`` (module notes).

        The reference intercepts ``theta[:, 0, -1]`` must be 0.  Each problem
        stops on its own once converged; returns the solutions and the number
        of Newton steps of the slowest.
        """
        theta = theta.copy()
        q, p = theta.shape[1:]
        active = np.arange(theta.shape[0])
        value = self.objective(theta, active)
        previous = np.full(theta.shape[0], np.inf)  # relative size of the last full Newton step
        iteration = 0
        while True:
            grad, H = self.gradient_hessian(theta[active], active)
            try:
                step = -np.linalg.solve(H, grad[..., None])[..., 0]
            except np.linalg.LinAlgError:
                step = np.full_like(grad, np.nan)
            if not np.all(np.isfinite(step)):
                raise RuntimeError("LogisticRegression: the Newton system is numerically singular (the ridge "
                                   "1 / (C s^2) is negligible in the frame of scale s); decrease C")
            step = step.reshape(-1, q, p)
            step[..., :-1] -= np.mean(step[..., :-1], axis=1, keepdims=True)  # weights keep summing to 0
            decrement = -np.einsum("bi,bi->b", grad, step.reshape(-1, q * p))
            size = np.maximum(1.0, np.max(np.abs(theta[active]), axis=(1, 2)))
            relative = np.max(np.abs(step), axis=(1, 2)) / size
            # small enough, or no longer shrinking after a full step: rounding noise (module notes)
            converged = ((np.max(np.abs(grad), axis=1) <= GRADIENT_TOLERANCE)
                         & ((relative <= STEP_TOLERANCE) | (relative > 0.5 * previous[active])))
            if iteration == max_iter and not np.all(converged):
                raise RuntimeError(
                    f"LogisticRegression: Newton did not converge in max_iter={max_iter} steps (largest "
                    f"|gradient| {np.max(np.abs(grad)):.3g}, tolerance {GRADIENT_TOLERANCE}; largest relative "
                    f"step {np.max(relative):.3g}, tolerance "
                    f"{STEP_TOLERANCE}); increase max_iter or decrease C")
            # converged ones take a last, polishing step; so do those where the Armijo test is rounding
            full = converged | (decrement <= _DECREMENT_FLOOR * value[active])
            previous[active] = np.where(full, relative, np.inf)
            theta[active[full]] += step[full]
            value[active[full]] = np.nan  # recomputed below for those still active
            searching = np.flatnonzero(~full)
            t = 1.0
            for _ in range(_MAX_HALVINGS):
                if searching.size == 0:
                    break
                rows = active[searching]
                trial = theta[rows] + t * step[searching]
                trial_value = self.objective(trial, rows)
                ok = trial_value <= value[rows] - _ARMIJO * t * decrement[searching]
                theta[rows[ok]], value[rows[ok]] = trial[ok], trial_value[ok]
                searching = searching[~ok]
                t *= 0.5
            if searching.size:
                raise RuntimeError("LogisticRegression: the Newton line search failed; decrease C")
            active = active[~converged]
            iteration += 1
            if active.size == 0:
                return theta, iteration
            stale = active[np.isnan(value[active])]
            if stale.size:
                value[stale] = self.objective(theta[stale], stale)


# ---------------------------------------------------------------- data and the documented objective


def dataset(kind, q, rng, d=2):
    """Shared points ``(Z0, labels0)`` (features with a trailing 1) and 4 candidates, of the given kind."""
    if kind == "tiny":  # one point per class: separable, weights held by the ridge
        X, y = rng.normal(size=(q, d)), np.arange(q)
    elif kind == "separable":
        y = np.arange(12) % q
        X = rng.normal(size=(12, d)) * 0.3 + 4.0 * np.eye(q, d)[y]
    else:
        y = np.arange(30) % q
        X = rng.normal(size=(30, d)) * 1.2 + 0.8 * y[:, None]
        if kind == "repeated":  # a bootstrap resample: about a third of the points repeated
            pick = rng.integers(0, 30, size=30)
            X, y = X[pick], y[pick]
            X[-1], y[-1] = X[0], y[0]  # at least one repeat
    Z0 = np.column_stack([X, np.ones(len(y))])
    return Z0, y, np.column_stack([rng.normal(size=(4, d)) * 2.0, np.ones(4)])


def reference_solve(Z0, labels0, z1, labels1, theta, ridge, max_iter=100):
    q = theta.shape[1]
    return _Problems(Z0, np.eye(q)[labels0], z1, np.eye(q)[labels1], ridge).solve(theta, max_iter)


def objective_gradient_hessian(v, Z, labels, q, ridge):
    r"""The documented objective :math:`\frac1N \sum_i -\ln \hat p_{y_i} + \frac{\lambda}{2N} \lVert W \rVert^2`,
    its gradient and Hessian, in the parameters ``v`` = the ``q x d`` weights then the ``q - 1`` free
    intercepts (the first class's is 0)."""
    N, p = Z.shape
    d = p - 1
    W = v[:q * d].reshape(q, d)
    b = np.concatenate([[0.0], v[q * d:]])
    L = Z[:, :d] @ W.T + b
    P = special.softmax(L, axis=1)
    value = np.mean(special.logsumexp(L, axis=1) - L[np.arange(N), labels]) + ridge * np.sum(W**2) / (2 * N)
    R = P - np.eye(q)[labels]
    grad = np.concatenate([(R.T @ Z[:, :d] + ridge * W).ravel(), R.sum(axis=0)[1:]]) / N
    # d logits / d v: weights of class j act on x, intercepts of classes 1.. on 1
    J = np.zeros((N, q, v.size))
    for j in range(q):
        J[:, j, j * d:(j + 1) * d] = Z[:, :d]
        if j > 0:
            J[:, j, q * d + j - 1] = 1.0
    A = P[:, :, None] * np.eye(q) - P[:, :, None] * P[:, None, :]  # (N, q, q)
    hess = np.einsum("nja,njk,nkb->ab", J, A, J)
    hess[:q * d, :q * d] += ridge * np.eye(q * d)
    return value, grad, hess / N


def as_vector(theta):
    """Solver parameters ``(q, p)`` as the scipy vector: weights, then the intercepts relative to the first."""
    return np.concatenate([theta[:, :-1].ravel(), (theta[1:, -1] - theta[0, -1])])


KINDS = ["random", "separable", "tiny", "repeated"]


# ---------------------------------------------------------------- the compiled solver against the numpy one


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("q", [2, 3])
@pytest.mark.parametrize("C", [0.5, 10.0, 1000.0])
def test_compiled_solver_equals_the_numpy_solver(kind, q, C):
    """Refit (cold start) and retrained models (warm start from the refit, every candidate and class)."""
    rng = np.random.default_rng([KINDS.index(kind), q, int(C)])
    Z0, labels0, candidates = dataset(kind, q, rng)
    ridge = 1.0 / C
    Y0 = np.eye(q)[labels0]
    start = _starting_point(Y0[:-1], Y0[-1:], Z0.shape[1])
    base, base_steps = _solve(Z0[:-1], labels0[:-1], Z0[-1:], labels0[-1:], start, ridge, 100)
    expected, expected_steps = reference_solve(Z0[:-1], labels0[:-1], Z0[-1:], labels0[-1:], start, ridge)
    np.testing.assert_allclose(base, expected, rtol=0, atol=1e-12 * max(1.0, np.max(np.abs(expected))))
    assert abs(int(base_steps[0]) - expected_steps) <= 1
    z1, labels1 = np.tile(candidates, (q, 1)), np.repeat(np.arange(q), len(candidates))
    warm = np.broadcast_to(base, (len(z1), q, Z0.shape[1]))
    theta, steps = _solve(Z0, labels0, z1, labels1, warm, ridge, 100)
    expected, expected_steps = reference_solve(Z0, labels0, z1, labels1, warm, ridge)
    np.testing.assert_allclose(theta, expected, rtol=0, atol=1e-12 * max(1.0, np.max(np.abs(expected))))
    assert abs(int(steps.max()) - expected_steps) <= 1


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 25), q=st.integers(2, 4), d=st.integers(1, 3),
       C=st.floats(0.01, 1000.0), repeats=st.booleans())
def test_compiled_solver_equals_the_numpy_solver_on_random_problems(seed, n, q, d, C, repeats):
    rng = np.random.default_rng(seed)
    labels0 = np.concatenate([np.arange(q), rng.integers(0, q, size=n)])  # every class present
    X = rng.normal(size=(n + q, d)) + rng.normal(size=(q, d))[labels0]
    if repeats:
        pick = np.concatenate([np.arange(q), rng.integers(0, n + q, size=n)])
        X, labels0 = X[pick], labels0[pick]
    Z0 = np.column_stack([X, np.ones(n + q)])
    z1 = np.column_stack([rng.normal(size=(3 * q, d)) * 2, np.ones(3 * q)])
    labels1 = np.arange(3 * q) % q
    start = _starting_point(np.eye(q)[labels0], np.eye(q)[labels1], d + 1)
    theta, _ = _solve(Z0, labels0, z1, labels1, start, 1.0 / C, 100)
    expected, _ = reference_solve(Z0, labels0, z1, labels1, start, 1.0 / C)
    np.testing.assert_allclose(theta, expected, rtol=0, atol=1e-11 * max(1.0, np.max(np.abs(expected))))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("q", [2, 3])
def test_compiled_solver_minimises_the_documented_objective_like_scipy(kind, q):
    """scipy's ``Newton-CG`` (then MINPACK's ``hybr`` on the gradient) with the gradient and Hessian written
    out here, to 1e-8."""
    rng = np.random.default_rng([10 + KINDS.index(kind), q])
    Z0, labels0, candidates = dataset(kind, q, rng)
    ridge = 0.1
    for z, label in [(candidates[0], 0), (candidates[1], q - 1)]:
        Z, labels = np.vstack([Z0, z]), np.append(labels0, label)
        start = _starting_point(np.eye(q)[labels0], np.eye(q)[[label]], Z.shape[1])
        theta, _ = _solve(Z0, labels0, z[None], np.array([label]), start, ridge, 100)
        def terms(v, Z=Z, labels=labels):
            return objective_gradient_hessian(v, Z, labels, q, ridge)

        found = optimize.minimize(lambda v: terms(v)[0], np.zeros(q * (Z.shape[1] - 1) + q - 1),
                                  method="Newton-CG", jac=lambda v: terms(v)[1], hess=lambda v: terms(v)[2],
                                  options={"xtol": 1e-14})
        assert found.success, found.message
        # Newton-CG stops on its step (its conjugate gradients are truncated): MINPACK's hybrj on the gradient
        polished = optimize.root(lambda v: terms(v)[1], found.x, jac=lambda v: terms(v)[2], method="hybr",
                                 options={"xtol": 1e-15}).x
        assert np.max(np.abs(terms(polished)[1])) <= 1e-15
        np.testing.assert_allclose(as_vector(theta[0]), polished, rtol=0, atol=1e-8)
        assert np.max(np.abs(objective_gradient_hessian(as_vector(theta[0]), Z, labels, q, ridge)[1])) <= 1e-12


@pytest.mark.parametrize("q", [2, 3])
def test_the_gradient_and_hessian_equal_the_written_out_ones(q):
    """``evaluate_only`` at random parameters, repeated points counted: the solver's gradient and Hessian (with the
    weights' class mean removed from the gradient, the first intercept pinned) against the formulas here."""
    rng = np.random.default_rng(q)
    Z0, labels0, candidates = dataset("repeated", q, rng)
    rows, counts = np.unique(np.column_stack([Z0, labels0]), axis=0, return_counts=True)
    assert counts.max() > 1
    theta = rng.normal(size=(1, q, 3))
    theta[0, 0, -1] = 0.0
    ridge = 0.3
    values, grads, hessians = np.empty(1), np.empty((1, 3 * q)), np.empty((1, 3 * q, 3 * q))
    status = _compiled_newton()(rows[:, :3].copy(), rows[:, 3].astype(np.int64), counts.astype(float),
                                candidates[:1].copy(), np.array([q - 1]), theta, ridge, 10, False, True,
                                np.zeros(1, dtype=np.int64), values, grads, hessians, np.zeros(2))
    assert status == 0
    Z, labels = np.vstack([Z0, candidates[0]]), np.append(labels0, q - 1)
    value, grad, hess = objective_gradient_hessian(as_vector(theta[0]), Z, labels, q, ridge)
    assert values[0] == pytest.approx(value, rel=1e-14)
    # map the solver's (q, p) layout (weights w_j then intercept b_j per class) to the vector's
    index = np.concatenate([np.arange(q * 3).reshape(q, 3)[:, :2].ravel(), np.arange(q * 3).reshape(q, 3)[1:, 2]])
    weights = grad[:2 * q].reshape(q, 2)
    np.testing.assert_allclose(grads[0][index], np.concatenate([(weights - weights.mean(axis=0)).ravel(),
                                                                grad[2 * q:]]), rtol=0, atol=1e-15)
    assert grads[0][2] == 0.0
    np.testing.assert_allclose(hessians[0][np.ix_(index, index)], hess, rtol=0, atol=1e-14)
    assert hessians[0][2, 2] == 1.0 and np.count_nonzero(hessians[0][2]) == 1


def test_the_common_start_gives_the_separate_starts_solutions():
    """With every problem starting from the same point the shared sums are formed once: same solutions."""
    rng = np.random.default_rng(3)
    Z0, labels0, candidates = dataset("repeated", 3, rng)
    rows, counts = np.unique(np.column_stack([Z0, labels0]), axis=0, return_counts=True)
    start = np.tile(_starting_point(np.eye(3)[labels0], np.eye(3)[[0]], 3), (4, 1, 1))
    out = []
    for common in (True, False):
        theta, steps = start.copy(), np.zeros(4, dtype=np.int64)
        status = _compiled_newton()(rows[:, :3].copy(), rows[:, 3].astype(np.int64), counts.astype(float),
                                    candidates, np.array([0, 1, 2, 0]), theta, 0.1, 100, common, False, steps,
                                    np.empty(4), np.empty((4, 9)), np.empty((4, 9, 9)), np.zeros(2))
        assert status == 0
        out.append((theta, steps))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=0, atol=1e-13)
    np.testing.assert_array_equal(out[0][1], out[1][1])


@pytest.mark.parametrize("q", [2, 3])
def test_pure_python_run_equals_the_compiled_run(q):
    """numba's function run as Python (numpy scalars) against its compiled code: the same Newton steps, and
    the same iterates up to the last bit of ``exp`` and ``log1p`` in the two libraries."""
    rng = np.random.default_rng(20 + q)
    Z0, labels0, candidates = dataset("repeated", q, rng)
    rows, counts = np.unique(np.column_stack([Z0, labels0]), axis=0, return_counts=True)
    args = (rows[:, :3].copy(), rows[:, 3].astype(np.int64), counts.astype(float), candidates,
            np.arange(4) % q)
    start = np.tile(_starting_point(np.eye(q)[labels0], np.eye(q)[[0]], 3), (4, 1, 1))
    out = []
    for solver in (_newton_rows, _compiled_newton()):
        theta, steps = start.copy(), np.zeros(4, dtype=np.int64)
        values, grads, hessians = np.empty(4), np.empty((4, 3 * q)), np.empty((4, 3 * q, 3 * q))
        assert solver(*args, theta, 0.1, 100, True, False, steps, values, grads, hessians, np.zeros(2)) == 0
        out.append((theta, steps, values, grads, hessians))
    for python, compiled in zip(out[0], out[1], strict=True):
        np.testing.assert_allclose(python, compiled, rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(out[0][1], out[1][1])


def test_failures_are_reported_by_status():
    """2: a singular Newton system (no ridge, every point the same); 1: ``max_iter`` steps without convergence
    (the report: the largest gradient entry and the relative step); the class turns them into errors."""
    Z0 = np.tile([1.0, 1.0], (4, 1))
    report = np.zeros(2)
    status = _compiled_newton()(Z0, np.array([0, 1, 0, 1]), np.ones(4), np.array([[1.0, 1.0]]), np.array([1]),
                                np.zeros((1, 2, 2)), 0.0, 10, True, False, np.zeros(1, dtype=np.int64),
                                np.empty(1), np.empty((1, 4)), np.empty((1, 4, 4)), report)
    assert status == 2
    rng = np.random.default_rng(4)
    Z0, labels0, candidates = dataset("random", 2, rng)
    args = (Z0, labels0, np.ones(len(labels0)), candidates[:1], np.array([0]), np.zeros((1, 2, 3)), 0.1)
    report, gradients = np.full(2, np.nan), np.empty((1, 6))
    status = _compiled_newton()(*args, 0, True, False, np.zeros(1, dtype=np.int64), np.empty(1), np.empty((1, 6)),
                                np.empty((1, 6, 6)), report)
    assert status == 1 and report[0] > GRADIENT_TOLERANCE and report[1] > 0
    # the report's gradient is the start's (max_iter = 0: no step taken), as the evaluation alone gives it
    assert _compiled_newton()(*args, 0, True, True, np.zeros(1, dtype=np.int64), np.empty(1), gradients,
                              np.empty((1, 6, 6)), np.zeros(2)) == 0
    assert report[0] == np.max(np.abs(gradients))
    with pytest.raises(RuntimeError, match="numerically singular"):
        _solve(np.tile([1.0, 1.0], (4, 1)), np.array([0, 1, 0, 1]), np.array([[1.0, 1.0]]), np.array([1]),
               np.zeros((1, 2, 2)), 0.0, 10)


def test_the_classifier_uses_the_compiled_solver_for_refit_and_fast_path():
    """The model's parameters are the reference solver's (in the model's frame), refit and retrained."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 2)) * 3 + 10
    y = rng.integers(0, 3, size=40)
    model = LogisticRegression(C=2.0).fit(X, y, 3)
    Z = model._to_frame(X)
    Y = np.eye(3)[y]
    expected, steps = reference_solve(Z[:-1], y[:-1], Z[-1:], y[-1:], _starting_point(Y[:-1], Y[-1:], 3),
                                      model._ridge())
    np.testing.assert_allclose(model.theta_, expected[0], rtol=0, atol=1e-12 * np.max(np.abs(expected)))
    candidates = rng.normal(size=(5, 2)) * 3 + 10
    labels = np.repeat(np.arange(3), 5)
    theta = model._retrained(np.tile(candidates, (3, 1)), labels, model.present_, warm=True)
    expected, _ = reference_solve(Z, y, model._to_frame(np.tile(candidates, (3, 1))), labels,
                                  np.broadcast_to(model.theta_, (15, 3, 3)), model._ridge())
    np.testing.assert_allclose(theta, expected, rtol=0, atol=1e-12 * np.max(np.abs(expected)))


