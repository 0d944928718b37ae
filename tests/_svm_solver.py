"""The SVM solver's numpy pieces, kept for the tests after the solve was compiled whole.

``violating_pairs`` and ``snap`` are the numpy index sets and bound snapping of the vectorised solver;
``smo`` and ``polish`` run one SMO round or one polish of the compiled kernels
(:func:`mri_theory.classifiers.svm._smo_rows`, :func:`~mri_theory.classifiers.svm._polish_rows`) on their own,
as the numpy solver did, and ``matvec`` is the old ``_Gram.matvec``; ``random_duals`` draws
problems for them.  Together they rebuild the solver the
compiled ``_solve_rows`` replaced (``tests/classifiers/test_svm_solve_compiled.py``).  ``check_against_refits``
compares every retrained model of the fast path with a refit (``test_svm.py``, ``test_svm_platt_cv.py``).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import special
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf_kernel

from mri_theory.classifiers.svm import (
    _BOUND_SNAP,
    _POLISH_SLACK,
    _TAU,
    _compiled_polish,
    _compiled_smo,
    _Gram,
    _shifted_kernel,
)


def random_duals(rng: np.random.Generator, n: int, B: int, extra: bool, duplicates: bool) -> tuple[_Gram, np.ndarray]:
    """A kernel of ``n`` normal points (``gamma = 0.5``; drawn with replacement when ``duplicates``: a singular
    free set), optionally one extra point per problem, and the labels ``s`` of ``B`` problems (both signs)."""
    X = rng.normal(size=(n, 2))
    if duplicates:
        X = X[rng.integers(0, n, size=n)]
    extra_kernel = _shifted_kernel(rng.normal(size=(B, 2)), X, 0.5) if extra else None
    gram = _Gram(_shifted_kernel(X, X, 0.5), extra_kernel)
    s = np.where(rng.random((B, gram.size)) < 0.5, 1.0, -1.0)
    s[:, 0], s[:, 1] = 1.0, -1.0  # both signs present
    return gram, s


def matvec(gram: _Gram, problems: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """``K_b @ beta[a]`` for each problem ``b = problems[a]``, shape ``(len(problems), size)``."""
    if gram.extra is None:
        return beta @ gram.K
    extra = gram.extra[problems]
    head = beta[:, :gram.n] @ gram.K + beta[:, gram.n:] * extra
    tail = np.sum(extra * beta[:, :gram.n], axis=1)  # the extra point's own value is 0
    return np.concatenate([head, tail[:, None]], axis=1)


def violating_pairs(s: np.ndarray, alpha: np.ndarray, G: np.ndarray, C: float):
    """libsvm's index sets and the maximal violating pair's ends (Fan, Chen & Lin 2005, Eq. 9)."""
    up = np.where(s > 0, alpha < C, alpha > 0)
    low = np.where(s > 0, alpha > 0, alpha < C)
    v = -s * G
    v_up = np.where(up, v, -np.inf)
    i = np.argmax(v_up, axis=1)  # ties to the lowest index
    m = v_up[np.arange(v.shape[0]), i]
    M = np.min(np.where(low, v, np.inf), axis=1)
    return up, low, v, i, m, M


def snap(alpha: np.ndarray, C: float) -> np.ndarray:
    """Alphas within ``1e-12 C`` of a bound put on it.

    libsvm's clipping computes e.g. ``C - diff``, which can miss ``C`` by an
    ulp; such a variable would count as free, and with no other free vector
    the intercept (the mean over free vectors) would hinge on that rounding.
    """
    return np.where(alpha >= C * (1 - _BOUND_SNAP), C, np.where(alpha <= C * _BOUND_SNAP, 0.0, alpha))


def smo(gram: _Gram, problems: np.ndarray, s: np.ndarray, alpha: np.ndarray, G: np.ndarray, C: float,
         tol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""SMO with WSS 2 (libsvm's ``Solver``) from a feasible ``alpha`` with gradient ``G = Q alpha - 1``.

    ``problems[r]`` is the :class:`_Gram` problem of row ``r`` of ``s``,
    ``alpha``, ``G``; each row is solved until its maximal violating pair's
    gap is at most ``tol`` (:func:`_smo_rows`, compiled).  Returns
    ``(alpha, G, moved)``, ``moved[r]`` whether row ``r`` took a step.

    The working set: ``i`` maximises :math:`-s_t G_t` over :math:`I_{up}`
    (ties to the lowest index); ``j`` minimises :math:`-(m - v_t)^2 / a_{it}`
    over the :math:`t \in I_{low}` with :math:`v_t < m - tol`, where
    :math:`a_{it} = K_{ii} + K_{tt} - 2 K_{it} = -2 (K_{it} - 1)` (RBF:
    :math:`K_{tt} = 1`; the shifted kernel holds :math:`K - 1`), floored at
    ``1e-12`` (libsvm's ``TAU``).  libsvm takes every :math:`v_t < m`; a
    duplicate of :math:`x_i` whose gradient differs from ``i``'s by rounding
    would then win (curvature 0) and SMO shuffle alpha between the duplicates
    for ever; the maximal violating pair always qualifies.  The update is
    libsvm's two-variable step with its clipping, then :func:`snap`.
    """
    alpha, G = np.array(alpha, dtype=float, order="C"), np.array(G, dtype=float, order="C")
    moved = np.zeros(s.shape[0], dtype=bool)
    if s.shape[0] == 0:
        return alpha, G, moved
    extra = gram.extra if gram.extra is not None else np.zeros((1, gram.n))
    max_iter = max(10_000, 100 * gram.size)
    converged = _compiled_smo()(np.ascontiguousarray(gram.K, dtype=float), np.ascontiguousarray(extra),
                                np.asarray(problems, dtype=np.int64), np.ascontiguousarray(s, dtype=float), alpha,
                                G, np.full(gram.size, float(C)), float(tol), _TAU,
                                np.full(gram.size, C * (1 - _BOUND_SNAP)), C * _BOUND_SNAP, max_iter, moved)
    if not converged:
        warnings.warn(f"SVM dual solver stopped after {max_iter} iterations without reaching its tolerance",
                      RuntimeWarning, stacklevel=3)
    return alpha, G, moved


def polish(gram: _Gram, problems: np.ndarray, s: np.ndarray, alpha: np.ndarray, C: float) -> np.ndarray:
    r"""Solve each problem's KKT equalities on its free set exactly; keep ``alpha`` if no feasible solution is found.

    Unknowns :math:`\beta_F = s_F \alpha_F` and ``b``:
    :math:`K_{FF} \beta_F + b = s_F - K_{FU} \beta_U` and
    :math:`\mathbf 1^T \beta_F = -\mathbf 1^T \beta_U` (``U``: alphas at ``C``).
    Solved directly (LAPACK ``gesv``); if that fails or leaves ``[0, C]`` (a
    numerically singular :math:`K_{FF}`: duplicate points, or a small
    ``gamma``, when the alphas are not unique but the decision function is),
    the least-norm correction of the current iterate solves it instead (by
    an SVD, singular values below ``eps * size`` times the largest treated as
    0: ``numpy.linalg.lstsq``'s rule).  A free set holding two copies of a
    point (shifted kernel exactly 0 off the diagonal) is singular and goes to
    the least-norm correction at once.  The polished alphas are clipped to
    ``[0, C]`` and snapped (:func:`snap`).  One problem at a time, compiled
    (:func:`_polish_rows`).
    """
    out = np.array(alpha, dtype=float, order="C")
    if s.shape[0] == 0:
        return out
    extra = gram.extra if gram.extra is not None else np.zeros((1, gram.n))
    _compiled_polish()(np.ascontiguousarray(gram.K, dtype=float), np.ascontiguousarray(extra),
                       np.asarray(problems, dtype=np.int64), np.ascontiguousarray(s, dtype=float),
                       np.ascontiguousarray(alpha, dtype=float), np.full(gram.size, float(C)), _POLISH_SLACK * C,
                       np.full(gram.size, C * (1 - _BOUND_SNAP)), C * _BOUND_SNAP, out)
    return out


AGREE = 1e-8  # fast path against refit


def refit_model(model, x, j):
    return model.clone().fit(np.vstack([model.X_train_, x]), np.append(model.y_train_, j), model.n_classes_)


def check_against_refits(model, candidates, points, unique):
    """Every retrained model of the fast path against a refit: decision values, probabilities, dual coefficients.

    ``unique[i]``: candidate ``i`` duplicates no training point, so the dual
    solution is unique and the coefficients themselves must agree.
    Returns the fraction of (candidate, machine) pairs that were re-solved.
    """
    k = model.n_classes_
    machines = model._retrained_machines(candidates)
    z = model._platt_arguments(machines, candidates, points)
    for j in range(k):
        proba = special.softmax(model._retrained_scores(machines, z, j), axis=1)  # (m, k, N)
        for i, x in enumerate(candidates):
            refit = refit_model(model, x, j)
            np.testing.assert_allclose(proba[i].T, refit.predict_proba(points), atol=AGREE, rtol=0)
            # the fast path's coefficients are over the distinct training points (repeats merged), then x
            K = sk_rbf_kernel(points, np.vstack([model._points, x]), gamma=model.gamma_)
            for col, c in enumerate(refit.machine_classes_):
                t = machines.types.index((int(c), 1 if c == j else -1))
                fast = K @ machines.dual_coef[i, t] + machines.intercept[i, t]
                np.testing.assert_allclose(fast, refit.decision_function(points)[:, col], atol=AGREE, rtol=0)
                if unique[i] and model._points.shape[0] == model.X_train_.shape[0]:
                    np.testing.assert_allclose(machines.dual_coef[i, t], refit.dual_coef_[col], atol=AGREE, rtol=0)
    return machines
