"""Logistic regression (:mod:`mri_theory.classifiers.logistic`) against independent computations.

References: the objective and its gradient written out here in data units and
minimised by :func:`scipy.optimize.minimize` (BFGS); scikit-learn's
``LogisticRegression`` with the matching penalty (multinomial ``C_sk = C``;
binary, whose single vector is :math:`w_1 - w_0`, ``C_sk = 2 C``); refits per
(candidate, class) through ``future_losses(..., method="refit")``, with the
error loss allowed to differ only by the weight of population points within
1e-9 of a refitted model's decision boundary (computed here from the refits'
probabilities); :func:`mri_theory.engine.losses.pointwise_loss_from_scores` for the
fast two-class population sums; exact invariances (translation, scale with
``C / s^2``); ``mpmath`` at 50 digits for the per-point loss, residual and
Hessian block of a confident model.  Shifts and scales of the data, and the
ridge floor: ``tests/test_scale_invariance.py``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from _optional import given, settings, st
from scipy import optimize, special
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from mri_theory.classifiers import logistic as logistic_module
from mri_theory.classifiers.logistic import (
    GRADIENT_TOLERANCE,
    STEP_TOLERANCE,
    LogisticRegression,
    _compiled_newton,
    _weighted_losses,
)
from mri_theory.engine.losses import pointwise_loss_from_scores
from mri_theory.engine.population import Population
from mri_theory.engine.retraining import future_losses
from mri_theory.problems import get_problem

LOSSES = ("error", "log", "lc")
BOUNDARY = 1e-9


def blobs(rng, n, k, d=2, shift=0.8):
    """Overlapping Gaussian blobs, labels cycling 0..k-1 (every class present when n >= k)."""
    y = np.arange(n) % k
    X = rng.normal(size=(n, d)) * 1.2 + shift * y[:, None]
    return X, y


def objective_and_gradient(v, X, y, present, C):
    r"""The documented objective in data units: mean log loss + ||W||^2 / (2 C n), first intercept 0.

    ``v`` holds the ``q x d`` weights then the ``q - 1`` free intercepts.
    """
    n, d = X.shape
    q = present.size
    W = v[:q * d].reshape(q, d)
    b = np.concatenate([[0.0], v[q * d:]])
    labels = np.searchsorted(present, y)
    L = X @ W.T + b
    value = np.mean(special.logsumexp(L, axis=1) - L[np.arange(n), labels]) + np.sum(W**2) / (2 * C * n)
    R = special.softmax(L, axis=1)
    R[np.arange(n), labels] -= 1.0
    grad_W = R.T @ X / n + W / (C * n)
    return value, np.concatenate([grad_W.ravel(), R.sum(axis=0)[1:] / n])


def parameters(model):
    present = model.present_
    return np.concatenate([model.coef_[present].ravel(), model.intercept_[present][1:]])


# ---------------------------------------------------------------- the refit against scipy and scikit-learn


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("C", [0.5, 10.0])
def test_fit_minimises_the_documented_objective_like_scipy(k, C):
    rng = np.random.default_rng(100 + k)
    X, y = blobs(rng, 25, k)
    model = LogisticRegression(C=C).fit(X, y, k)
    present = np.arange(k)
    ours = parameters(model)
    value, grad = objective_and_gradient(ours, X, y, present, C)
    assert np.max(np.abs(grad)) <= 1e-12  # the hand-written gradient vanishes at our solution
    res = optimize.minimize(objective_and_gradient, np.zeros(ours.size), args=(X, y, present, C), jac=True,
                            method="BFGS", options={"gtol": 1e-13, "maxiter": 10_000})
    np.testing.assert_allclose(ours, res.x, rtol=0, atol=1e-8)
    assert value <= res.fun + 1e-15
    assert abs(value - res.fun) <= 1e-12


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_probabilities_match_scikit_learn_with_the_matching_penalty(k, C):
    rng = np.random.default_rng(200 + k)
    X, y = blobs(rng, 40, k)
    test_points = rng.normal(size=(50, 2)) * 2
    ours = LogisticRegression(C=C).fit(X, y, k).predict_proba(test_points)
    sk = SkLogisticRegression(C=2 * C if k == 2 else C, tol=1e-12, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(ours, sk.predict_proba(test_points), rtol=0, atol=1e-6)


def test_absent_classes_get_probability_zero_and_the_rest_match_scikit_learn():
    rng = np.random.default_rng(3)
    X, y01 = blobs(rng, 30, 2)
    y = np.array([1, 3])[y01]  # classes 1 and 3 of 4
    P = LogisticRegression(C=2.0).fit(X, y, 4).predict_proba(X)
    assert np.all(P[:, [0, 2]] == 0.0)
    sk = SkLogisticRegression(C=4.0, tol=1e-12, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(P[:, [1, 3]], sk.predict_proba(X), rtol=0, atol=1e-6)


def test_a_single_present_class_gets_probability_one():
    X = np.array([[0.0, 1.0], [2.0, -1.0], [5.0, 5.0]])
    model = LogisticRegression().fit(X, [2, 2, 2], 3)
    np.testing.assert_array_equal(model.predict_proba([[0.0, 0.0], [9.0, 9.0]]), [[0, 0, 1], [0, 0, 1]])
    assert model.n_iter_ == 0


def test_coef_and_intercept_give_predict_proba():
    rng = np.random.default_rng(4)
    X, y = blobs(rng, 30, 3)
    y[y == 1] = 2  # class 1 absent
    model = LogisticRegression().fit(X + 50.0, y, 4)
    Q = rng.normal(size=(20, 2)) + 50.0
    with np.errstate(invalid="ignore"):
        expected = special.softmax(Q @ model.coef_.T + model.intercept_, axis=1)
    np.testing.assert_allclose(model.predict_proba(Q), expected, rtol=0, atol=1e-12)
    assert model.intercept_[0] == 0.0 and np.isneginf(model.intercept_[[1, 3]]).all()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shift=st.floats(-1e4, 1e4), log2_scale=st.integers(-8, 8))
def test_translation_invariance_and_scale_equivariance(seed, shift, log2_scale):
    """Intercepts are free, so a shift changes nothing; scaling by s needs C / s^2 (the penalty is in data units)."""
    rng = np.random.default_rng(seed)
    X, y = blobs(rng, 12, 3)
    Q = rng.normal(size=(10, 2))
    base = LogisticRegression(C=3.0).fit(X, y, 3).predict_proba(Q)
    shifted = LogisticRegression(C=3.0).fit(X + shift, y, 3).predict_proba(Q + shift)
    s = 2.0**log2_scale * 1.3
    scaled = LogisticRegression(C=3.0 / s**2).fit(s * X, y, 3).predict_proba(s * Q)
    np.testing.assert_allclose(shifted, base, rtol=0, atol=1e-9)
    np.testing.assert_allclose(scaled, base, rtol=0, atol=1e-9)


def test_two_points_one_per_class_stay_finite_even_with_the_weka_ridge():
    """The first step of an AL curve: separable; with C = 2.5e7 (Weka's 1e-8) the weights grow like ln C."""
    X, y = np.array([[-0.5, 0.3], [0.3, 0.7]]), np.array([0, 1])
    default = LogisticRegression().fit(X, y, 2)
    weka = LogisticRegression(C=2.5e7).fit(X, y, 2)
    for model, C in ((default, 10.0), (weka, 2.5e7)):
        _, grad = objective_and_gradient(parameters(model), X, y, np.arange(2), C)
        assert np.max(np.abs(grad)) <= 1e-10
    assert default.predict_proba(X)[0, 0] < 0.95 < 1 - 1e-6 < weka.predict_proba(X)[0, 0]


def test_fits_are_deterministic():
    rng = np.random.default_rng(5)
    X, y = blobs(rng, 40, 3)
    a, b = LogisticRegression().fit(X, y, 3), LogisticRegression().fit(X.copy(), y.copy(), 3)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)
    problem = get_problem("three-gaussians")
    pop = Population.from_problem(problem, 300, np.random.default_rng(0))
    C = rng.normal(size=(8, 2))
    np.testing.assert_array_equal(future_losses(LogisticRegression(), X, y, C, pop, "log"),
                                  future_losses(LogisticRegression(), X, y, C, pop, "log"))


def test_too_few_newton_steps_raise_a_clear_error():
    rng = np.random.default_rng(6)
    X, y = blobs(rng, 30, 2)
    with pytest.raises(RuntimeError, match=r"did not converge in max_iter=1 steps"):
        LogisticRegression(max_iter=1).fit(X, y, 2)


# ---------------------------------------------------------------- the fast path against refits


def boundary_mass(template, X, y, candidates, pop):
    """Weight of population points within BOUNDARY of a refitted model's decision boundary, per (candidate, class)."""
    k = pop.n_classes
    out = np.zeros((candidates.shape[0], k))
    for i, x in enumerate(candidates):
        for j in range(k):
            P = template.clone().fit(np.vstack([X, x]), np.append(y, j), k).predict_proba(pop.X)
            top2 = np.sort(P, axis=1)[:, -2:]
            out[i, j] = pop.weights[top2[:, 1] - top2[:, 0] <= BOUNDARY].sum()
    return out


def assert_fast_equals_refit(template, X, y, candidates, pop, losses=LOSSES, rtol=0.0):
    for loss in losses:
        fast = future_losses(template, X, y, candidates, pop, loss)
        refit = future_losses(template, X, y, candidates, pop, loss, method="refit")
        allowed = BOUNDARY + (boundary_mass(template, X, y, candidates, pop) if loss == "error" else 0.0)
        allowed = allowed + rtol * np.abs(refit)
        assert np.all(np.abs(fast - refit) <= allowed), (loss, np.max(np.abs(fast - refit)))


@pytest.mark.parametrize("name", ["four-gaussian", "three-gaussians"])
@pytest.mark.parametrize("n", [2, 5, 20])
@pytest.mark.parametrize("rows", ["posterior", "one-hot"])
def test_fast_path_equals_refits(name, n, rows):
    problem = get_problem(name)
    rng = np.random.default_rng([n, len(name), len(rows)])
    X, y = problem.sample(n, rng)
    candidates, _ = problem.sample(12, rng)
    if rows == "posterior":
        pop = Population.from_problem(problem, 800, rng)
    else:
        Xp, yp = problem.sample(600, rng)
        pop = Population.from_labels(Xp, yp, problem.n_classes)
    assert_fast_equals_refit(LogisticRegression(), X, y, candidates, pop)


def test_fast_path_equals_refits_when_the_models_are_scored_in_chunks():
    """A population of 4000 points with 3 classes: the 36 retrained models are scored 10 at a time (the chunk
    of ``2**17`` cells), the last chunk shorter."""
    problem = get_problem("three-gaussians")
    rng = np.random.default_rng(41)
    X, y = problem.sample(15, rng)
    candidates, _ = problem.sample(12, rng)
    pop = Population.from_problem(problem, 4000, rng)
    assert_fast_equals_refit(LogisticRegression(), X, y, candidates, pop)


@pytest.mark.parametrize("k, labels", [(2, [1, 1]), (3, [0, 0, 0]), (3, [2, 0, 2, 0]), (4, [3, 1, 3, 1, 1])])
def test_fast_path_when_the_added_class_is_absent(k, labels):
    """Adding an absent class changes the set of present classes (solved as a separate batch)."""
    rng = np.random.default_rng(k + len(labels))
    y = np.array(labels)
    X = rng.normal(size=(y.size, 2)) + y[:, None]
    pop = Population(rng.normal(size=(400, 2)) * 2, rng.dirichlet(np.ones(k), size=400))
    assert_fast_equals_refit(LogisticRegression(C=3.0), X, y, rng.normal(size=(10, 2)) * 2, pop)


def test_fast_path_far_from_the_origin_and_with_a_weak_ridge():
    rng = np.random.default_rng(8)
    X, y = blobs(rng, 15, 3)
    pop = Population(rng.normal(size=(500, 2)) * 2 + 1e5, rng.dirichlet(np.ones(3), size=500))
    assert_fast_equals_refit(LogisticRegression(C=1000.0), X + 1e5, y, rng.normal(size=(10, 2)) + 1e5, pop)


def test_fast_path_with_extreme_log_odds_uses_the_log_loss_floor():
    """Far-out population points have |log-odds| > 30: the floor 1e-15 applies as in the refit."""
    rng = np.random.default_rng(9)
    X, y = blobs(rng, 20, 2, shift=3.0)
    pop = Population(np.vstack([rng.normal(size=(200, 2)), [[60.0, 60.0], [-60.0, -60.0]]]),
                     np.tile([0.5, 0.5], (202, 1)))
    assert_fast_equals_refit(LogisticRegression(C=100.0), X, y, rng.normal(size=(6, 2)), pop, ("log", "lc"))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 8), k=st.integers(2, 3), d=st.integers(1, 3),
       C=st.floats(0.01, 1000.0))
def test_fast_path_equals_refits_on_random_problems(seed, n, k, d, C):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.integers(0, k, size=n)
    pop = Population(rng.normal(size=(150, d)) * 1.5, rng.dirichlet(np.ones(k), size=150))
    assert_fast_equals_refit(LogisticRegression(C=C), X, y, rng.normal(size=(4, d)), pop)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), spread=st.sampled_from([1.0, 20.0, 40.0]), one_hot=st.booleans())
def test_two_class_population_sums_equal_the_pointwise_losses(seed, spread, one_hot):
    """The fast two-class sums against pointwise_loss_from_scores, including +-inf and |s| > 30."""
    rng = np.random.default_rng(seed)
    n = 300
    r = np.eye(2)[rng.integers(0, 2, n)] if one_hot else rng.dirichlet(np.ones(2), size=n)
    pop = Population(np.zeros((n, 1)), r, rng.random(n) + 0.1)
    scores = rng.normal(size=(7, n)) * spread
    scores[4, :20] = 0.0  # an exact tie predicts class 0
    scores[5] = np.inf
    scores[6] = -np.inf
    for loss in LOSSES:
        with np.errstate(over="ignore"):
            expected = pointwise_loss_from_scores(pop.proba, scores, loss, log_odds=True) @ pop.weights
        np.testing.assert_allclose(_weighted_losses(scores, pop, loss), expected, rtol=1e-13, atol=1e-13)


def test_fast_path_newton_reaches_the_tolerance_from_the_warm_start():
    """Every retrained model is a stationary point of its own objective (checked with the hand gradient)."""
    rng = np.random.default_rng(10)
    X, y = blobs(rng, 20, 3)
    model = LogisticRegression().fit(X, y, 3)
    candidates = rng.normal(size=(5, 2))
    theta = model._retrained(np.tile(candidates, (3, 1)), np.repeat(np.arange(3), 5), model.present_, warm=True)
    for b in range(15):
        Xb, yb = np.vstack([X, candidates[b % 5]]), np.append(y, b // 5)
        coef = theta[b, :, :-1] / model.scale_
        intercept = theta[b, :, -1] - coef @ model.origin_
        v = np.concatenate([coef.ravel(), (intercept - intercept[0])[1:]])
        _, grad = objective_and_gradient(v, Xb, yb, np.arange(3), model.C)
        assert np.max(np.abs(grad)) <= GRADIENT_TOLERANCE


# ---------------------------------------------------------------- parameters and bad input


def test_params_clone_and_repr():
    model = LogisticRegression(C=3.0, max_iter=50)
    assert model.get_params() == {"C": 3.0, "max_iter": 50}
    assert repr(model) == "LogisticRegression(C=3.0, max_iter=50)"
    copy = model.fit(np.array([[0.0], [1.0]]), [0, 1], 2).clone()
    assert copy.get_params() == model.get_params() and not hasattr(copy, "coef_")
    assert LogisticRegression().get_params() == {"C": 10.0, "max_iter": 100}


@pytest.mark.parametrize("make, error, match", [
    (lambda: LogisticRegression(C=0), ValueError, r"C must be > 0"),
    (lambda: LogisticRegression(C=-1.0), ValueError, r"C must be > 0"),
    (lambda: LogisticRegression(C=np.nan), ValueError, r"C must be finite"),
    (lambda: LogisticRegression(C=np.inf), ValueError, r"C must be finite"),
    (lambda: LogisticRegression(C="a"), TypeError, r"C must be numeric"),
    (lambda: LogisticRegression(C=None), TypeError, r"C must be numeric, got None"),
    (lambda: LogisticRegression(C=[1.0, 2.0]), TypeError, r"C must be a scalar"),
    (lambda: LogisticRegression(max_iter=0), ValueError, r"max_iter must be >= 1"),
    (lambda: LogisticRegression(max_iter=2.5), ValueError, r"max_iter must be an integer"),
    (lambda: LogisticRegression().fit(np.empty((0, 2)), np.empty(0, dtype=int), 2), ValueError,
     r"^X must hold at least 1 point, got 0$"),
    (lambda: LogisticRegression(max_iter="10"), TypeError, r"max_iter must be an integer"),
    (lambda: LogisticRegression().fit([[0.0], [np.nan]], [0, 1], 2), ValueError, r"X must be finite"),
    (lambda: LogisticRegression().fit([["a"], ["b"]], [0, 1], 2), TypeError, r"X must be numeric"),
    (lambda: LogisticRegression().fit([[0.0], [1.0]], ["a", "b"], 2), TypeError, r"y must hold integer labels"),
    (lambda: LogisticRegression().fit([[0.0], [1.0]], [0, 2], 2), ValueError, r"y must hold labels in 0\.\.1"),
    (lambda: LogisticRegression().predict_proba([[0.0]]), ValueError, r"LogisticRegression is not fitted"),
    (lambda: LogisticRegression().fit([[0.0], [1.0]], [0, 1], 2).retraining_losses(
        [[0.0, 1.0]], Population([[0.0], [1.0]], [[1, 0], [0, 1]]), "log"), ValueError,
     r"candidates must have 1 columns"),
    (lambda: LogisticRegression().fit([[0.0], [1.0]], [0, 1], 2).retraining_losses(
        [[0.0]], Population([[0.0], [1.0]], [[1, 0], [0, 1]]), "hinge"), ValueError, r"loss must be one of"),
])
def test_bad_input_is_refused_naming_the_argument(make, error, match):
    with pytest.raises(error, match=match):
        make()


# ---------------------------------------------------------------- accuracy when the model is confident


def point_terms(logits, label):
    """Loss, residual and curvature block of one point from the compiled solver (``evaluate_only``).

    A problem with no shared point, one feature and the intercept, ``z = [1, 1]``, the logits as the
    weights and no ridge: its objective is the point's loss, the weights' block of its Hessian the
    curvature block, and the intercepts' gradient the residual, except for the pinned first class (the
    classes are rotated through that position).
    """
    q = logits.size
    residual, curvature = np.full(q, np.nan), np.full((q, q), np.nan)
    for shift in range(q):
        order = np.roll(np.arange(q), shift)  # position t holds class order[t]
        theta = np.stack([logits[order], np.zeros(q)], axis=1)[None]
        values, grads, hessians = np.empty(1), np.empty((1, 2 * q)), np.empty((1, 2 * q, 2 * q))
        status = _compiled_newton()(np.empty((0, 2)), np.empty(0, dtype=np.int64), np.empty(0), np.ones((1, 2)),
                                    np.array([np.flatnonzero(order == label)[0]]), theta, 0.0, 10, True, True,
                                    np.zeros(1, dtype=np.int64), values, grads, hessians, np.zeros(2))
        assert status == 0
        residual[order[1:]] = grads[0, 3::2]
        curvature[np.ix_(order, order)] = hessians[0, ::2, ::2]
    return values[0], residual, curvature


@pytest.mark.parametrize("logits, label", [
    ([0.0, 40.0, -30.0], 1), ([40.0, 0.0, 2.0], 0), ([-3.0, 31.5, 0.0], 1), ([5.0, 5.0, -60.0], 2),
    ([0.0, 45.0], 1), ([0.0, 45.0], 0), ([38.0, -1.0], 0), ([-600.0, 20.0], 1)])
def test_loss_residual_and_curvature_keep_their_relative_accuracy_against_mpmath(logits, label):
    """Logits 30-620 apart (probabilities within 1e-13 of 1), checked at 400 digits with mpmath; two classes
    (the solver's log-odds path) and three."""
    import mpmath

    logits = np.array(logits)
    nll, R, A = point_terms(logits, label)
    with mpmath.workdps(400):
        e = [mpmath.e ** mpmath.mpf(float(v)) for v in logits]
        p = [v / sum(e) for v in e]
        exact_nll = float(-mpmath.log(p[label]))
        exact_r = [float(p[j] - (1 if j == label else 0)) for j in range(logits.size)]
        exact_a = [[float((p[j] if j == m else 0) - p[j] * p[m]) for m in range(logits.size)]
                   for j in range(logits.size)]
    assert abs(exact_nll - nll) <= 1e-14 * exact_nll
    np.testing.assert_allclose(R, exact_r, rtol=1e-14, atol=0)
    np.testing.assert_allclose(A, exact_a, rtol=1e-14, atol=0)


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_a_weak_ridge_in_the_frame_still_gives_fast_path_equal_to_refit(seed):
    """``C s^2 = 8e8``: separable classes, weights held only by the ridge; the step test, not the gradient, stops.

    The optimum is determined in double precision only to about ``1e-18 C s^2`` relative (module notes,
    "Scale"): the log losses (10 to 25 here) agree to 1e-9 relative, more than ``1e-18 C s^2 = 8e-10``.
    """
    rng = np.random.default_rng(seed)
    X, y = blobs(rng, 12, 3, shift=4.0)
    pop = Population(rng.normal(size=(300, 2)) * 2 + 4, rng.dirichlet(np.ones(3), size=300))
    model = LogisticRegression(C=5e7)
    fitted = model.clone().fit(X, y, 3)
    assert fitted.scale_ ** 2 * 5e7 <= 1e9 and fitted.predict_proba(X)[np.arange(12), y].min() > 1 - 1e-6
    assert_fast_equals_refit(model, X, y, rng.normal(size=(5, 2)) * 2 + 4, pop, ("error", "log"), rtol=1e-9)


def test_the_newton_steps_of_a_fit_are_counted():
    """``n_iter_``: the Newton steps the fit took (at least one with two classes present), 0 with one class."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 2))
    model = LogisticRegression().fit(X, (X[:, 0] + rng.normal(size=30) > 0).astype(int), 2)
    assert isinstance(model.n_iter_, int) and 1 <= model.n_iter_ <= model.max_iter
    assert LogisticRegression().fit(X, np.zeros(30, dtype=int), 2).n_iter_ == 0


@pytest.mark.parametrize(("status", "message"), [
    (1, "LogisticRegression: Newton did not converge in max_iter=7 steps (largest |gradient| 0.25, tolerance "
        f"{GRADIENT_TOLERANCE}; largest relative step 0.125, tolerance {STEP_TOLERANCE}); increase max_iter or "
        "decrease C"),
    (2, "LogisticRegression: the Newton system is numerically singular (the ridge 1 / (C s^2) is negligible in "
        "the frame of scale s); decrease C"),
    (3, "LogisticRegression: the Newton line search failed; decrease C"),
])
def test_each_failure_of_the_newton_solver_has_its_message(monkeypatch, status, message):
    """The compiled solver's status (1 not converged, 2 singular, 3 line search failed; its report: the largest
    gradient and relative step) becomes a RuntimeError saying which and what to change."""
    def solver(*args):
        args[-1][:] = (0.25, 0.125)  # the report
        return status

    monkeypatch.setattr(logistic_module, "_compiled_newton", lambda: solver)
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(RuntimeError, match=f"^{re.escape(message)}$"):
        LogisticRegression(max_iter=7).fit(X, np.arange(10) % 2, 2)
