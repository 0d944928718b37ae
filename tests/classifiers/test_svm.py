"""The RBF SVM (:mod:`mri_theory.classifiers.svm`): solver, Platt scaling, exact retraining path.

Independent references: scikit-learn's ``SVC`` (libsvm; it caches the kernel
in single precision, so it is accurate to about ``1e-7 * C`` only) and
scikit-learn's ``rbf_kernel`` for the KKT conditions and the dual objective
written out by hand; ``scipy.optimize`` for Platt's sigmoid; refits from
scratch (``method="refit"``) for the fast path, which must agree to 1e-8 in
decision values, probabilities and losses; ``mpmath`` at 50 digits for the
shifted kernel ``expm1(-gamma |x - x'|^2)``.  Shifts and scales:
``tests/test_scale_invariance.py``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _optional import given, settings, st
from _svm_solver import AGREE, check_against_refits
from scipy import optimize, special
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf_kernel
from sklearn.svm import SVC

from mri_theory.classifiers.svm import SVM, _rbf_kernel, platt_sigmoid
from mri_theory.engine.contract import refit_future_losses
from mri_theory.engine.population import Population
from mri_theory.engine.retraining import (
    current_and_future_losses,
    fit_on,
    future_losses,
)
from mri_theory.problems import get_problem


def blobs(rng, n, k, d=2, spread=1.5):
    y = np.arange(n) % k
    centres = rng.normal(scale=spread, size=(k, d))
    return centres[y] + rng.normal(size=(n, d)), y


def sklearn_svc(X, labels, C, gamma):
    return SVC(kernel="rbf", C=C, gamma=gamma, tol=1e-12, shrinking=False).fit(X, labels)


def kkt_violation(X, s, beta, b, C, gamma):
    """Largest violation of the C-SVC KKT conditions, computed with scikit-learn's kernel."""
    alpha = beta * s
    margin = s * (sk_rbf_kernel(X, X, gamma=gamma) @ beta + b)
    at_zero, at_c = alpha <= 1e-12 * C, alpha >= C * (1 - 1e-12)
    free = ~at_zero & ~at_c
    worst = [abs(np.sum(beta)), max(0.0, -alpha.min()), max(0.0, alpha.max() - C)]
    worst.append(np.max(1 - margin[at_zero], initial=0.0))  # alpha = 0: s f >= 1
    worst.append(np.max(margin[at_c] - 1, initial=0.0))  # alpha = C: s f <= 1
    worst.append(np.max(np.abs(margin[free] - 1), initial=0.0))  # free: s f = 1
    return max(worst)


def dual_objective(X, s, beta, gamma):
    return 0.5 * beta @ sk_rbf_kernel(X, X, gamma=gamma) @ beta - np.sum(beta * s)


# ---------------------------------------------------------------- the solver


def test_rbf_kernel_matches_sklearn():
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(7, 3)), rng.normal(size=(5, 3))
    np.testing.assert_allclose(_rbf_kernel(A, B, 0.7), sk_rbf_kernel(A, B, gamma=0.7), rtol=1e-14)


@pytest.mark.parametrize("C, gamma", [(1.0, 0.5), (0.2, 2.0), (10.0, 0.1), (5.0, 1.0)])
def test_binary_decision_function_matches_sklearn(C, gamma):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 2))
    y = (X[:, 0] + X[:, 1] ** 2 + 0.7 * rng.normal(size=50) > 0.5).astype(int)
    T = rng.normal(scale=2, size=(100, 2))
    model = SVM(C=C, gamma=gamma).fit(X, y, 2)
    ref = sklearn_svc(X, y, C, gamma)
    np.testing.assert_array_equal(model.machine_classes_, [1])
    np.testing.assert_allclose(model.decision_function(T)[:, 0], ref.decision_function(T), atol=1e-6 * max(1, C))
    # our solution is at least as good as libsvm's, and satisfies the KKT conditions to rounding
    s = np.where(y == 1, 1.0, -1.0)
    beta_ref = np.zeros(50)
    beta_ref[ref.support_] = ref.dual_coef_[0]
    assert dual_objective(X, s, model.dual_coef_[0], gamma) <= dual_objective(X, s, beta_ref, gamma) + 1e-12
    assert kkt_violation(X, s, model.dual_coef_[0], model.intercept_[0], C, gamma) < 1e-10



@pytest.mark.parametrize("C, gamma, seed", [(1.0, 0.5, 0), (0.3, 2.0, 1), (10.0, 0.2, 2)])
def test_repeated_points_are_one_point_with_bound_m_c(C, gamma, seed):
    """A bootstrap resample: the fit (repeats merged, bound ``m C``) against libsvm on the distinct points
    with ``sample_weight = m`` (libsvm's bound ``m C``), and against the KKT conditions of the expanded data
    (every copy with bound ``C``, the merged coefficient shared equally)."""
    rng = np.random.default_rng(seed)
    X0 = rng.normal(size=(40, 2))
    y0 = (X0[:, 0] + X0[:, 1] ** 2 + 0.7 * rng.normal(size=40) > 0.5).astype(int)
    draw = rng.integers(0, 40, size=40)
    X, y = X0[draw], y0[draw]
    model = SVM(C=C, gamma=gamma).fit(X, y, 2)
    distinct, counts = np.unique(draw, return_counts=True)
    assert counts.max() > 1 and model._points.shape[0] == distinct.size
    np.testing.assert_array_equal(np.sort(model._weights), np.sort(counts.astype(float)))
    ref = SVC(kernel="rbf", C=C, gamma=gamma, tol=1e-12, shrinking=False).fit(X0[distinct], y0[distinct],
                                                                              sample_weight=counts)
    T = rng.normal(scale=2, size=(100, 2))
    # libsvm caches the kernel in single precision (the bounds up to m C widen its error a little)
    np.testing.assert_allclose(model.decision_function(T)[:, 0], ref.decision_function(T), atol=1e-5 * max(1, C))
    s = np.where(y == 1, 1.0, -1.0)
    beta_ref = np.zeros(distinct.size)
    beta_ref[ref.support_] = ref.dual_coef_[0]
    beta_ref = (beta_ref / counts)[np.searchsorted(distinct, draw)]  # libsvm's coefficients shared by the copies
    assert dual_objective(X, s, model.dual_coef_[0], gamma) <= dual_objective(X, s, beta_ref, gamma) + 1e-12
    assert kkt_violation(X, s, model.dual_coef_[0], model.intercept_[0], C, gamma) < 1e-10


def test_fast_path_equals_refit_on_a_bootstrap_resample():
    """BMRI's training sets repeat points: the warm-started solves keep each merged point's bound ``m C``."""
    problem = get_problem("three-gaussians")
    rng = np.random.default_rng(11)
    X0, y0 = problem.sample(50, rng)
    draw = rng.integers(0, 50, size=50)
    candidates, _ = problem.sample(10, rng)
    candidates = np.vstack([candidates, X0[draw[:2]]])  # two candidates repeat training points
    unique = np.arange(12) < 10
    model = SVM().fit(X0[draw], y0[draw], 3)
    assert model._weights.max() > 1
    machines = check_against_refits(model, candidates, problem.sample(200, rng)[0], unique)
    assert 0.1 < machines.solved.mean() < 0.95


def test_one_vs_rest_machines_match_sklearn_per_class():
    rng = np.random.default_rng(2)
    X, y = blobs(rng, 60, 4)
    T = rng.normal(scale=2, size=(80, 2))
    model = SVM().fit(X, y, 4)
    assert model.gamma_ == 0.5  # 1/d
    np.testing.assert_array_equal(model.machine_classes_, [0, 1, 2, 3])
    D = model.decision_function(T)
    for col, c in enumerate(model.machine_classes_):
        ref = sklearn_svc(X, (y == c).astype(int), 1.0, 0.5)
        np.testing.assert_allclose(D[:, col], ref.decision_function(T), atol=2e-7)
        s = np.where(y == c, 1.0, -1.0)
        assert kkt_violation(X, s, model.dual_coef_[col], model.intercept_[col], 1.0, 0.5) < 1e-10


@settings(deadline=None, derandomize=True, max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 30), d=st.integers(1, 3),
       C=st.sampled_from([0.1, 1.0, 10.0]), gamma=st.sampled_from([0.2, 1.0, 5.0]))
def test_solution_satisfies_kkt_property(seed, n, d, C, gamma):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.integers(0, 2, size=n)
    y[:2] = [0, 1]
    model = SVM(C=C, gamma=gamma).fit(X, y, 2)
    s = np.where(y == 1, 1.0, -1.0)
    assert kkt_violation(X, s, model.dual_coef_[0], model.intercept_[0], C, gamma) < 1e-9


def test_probabilities_are_platt_sigmoids_of_the_decision_values():
    rng = np.random.default_rng(3)
    T = rng.normal(scale=2, size=(40, 2))
    X, y = blobs(rng, 30, 2)
    binary = SVM().fit(X, y, 2)
    (a, b), = binary.sigmoids_
    q = special.expit(-(a * binary.decision_function(T)[:, 0] + b))
    np.testing.assert_allclose(binary.predict_proba(T), np.column_stack([1 - q, q]), atol=1e-15)
    X, y = blobs(rng, 30, 3)
    multi = SVM().fit(X, y, 3)
    q = special.expit(-(multi.sigmoids_[:, 0] * multi.decision_function(T) + multi.sigmoids_[:, 1]))
    np.testing.assert_allclose(multi.predict_proba(T), q / q.sum(axis=1, keepdims=True), atol=1e-15)
    # each sigmoid is Platt's fit on that machine's training decision values
    for col, c in enumerate(multi.machine_classes_):
        f = multi.decision_function(X)[:, col]
        np.testing.assert_allclose(multi.sigmoids_[col], platt_sigmoid(f, y == c), rtol=1e-12)


def test_absent_classes_and_a_single_class():
    rng = np.random.default_rng(4)
    X, y = blobs(rng, 20, 2)
    T = rng.normal(scale=2, size=(30, 2))
    two = SVM().fit(X, np.where(y == 1, 2, 0), 4)  # classes 0 and 2 of 4: one machine, 2 against 0
    np.testing.assert_array_equal(two.machine_classes_, [2])
    P = two.predict_proba(T)
    np.testing.assert_array_equal(P[:, [1, 3]], 0.0)
    ref = sklearn_svc(X, y, 1.0, 0.5)
    np.testing.assert_allclose(two.decision_function(T)[:, 0], ref.decision_function(T), atol=2e-7)
    one = SVM().fit(X, np.full(20, 1), 3)
    assert one.machine_classes_.size == 0
    np.testing.assert_array_equal(one.predict_proba(T), np.tile([0.0, 1.0, 0.0], (30, 1)))


def test_gamma_default_is_one_over_d_and_clone_keeps_params():
    rng = np.random.default_rng(5)
    X, y = blobs(rng, 25, 3, d=3)
    T = rng.normal(size=(10, 3))
    np.testing.assert_array_equal(SVM().fit(X, y, 3).predict_proba(T), SVM(gamma=1 / 3).fit(X, y, 3).predict_proba(T))
    twin = SVM(C=2.0, gamma=0.25).clone()
    assert (twin.C, twin.gamma) == (2.0, 0.25) and SVM().clone().gamma is None


# ---------------------------------------------------------------- Platt's sigmoid


def test_platt_sigmoid_minimises_the_regularised_cross_entropy():
    rng = np.random.default_rng(6)
    f = rng.normal(scale=2, size=(5, 40))
    positive = f + rng.normal(size=(5, 40)) > 0
    positive[:, 0], positive[:, 1] = True, False
    ab = platt_sigmoid(f, positive)
    assert ab.shape == (5, 2)
    for row in range(5):
        n_pos = positive[row].sum()
        t = np.where(positive[row], (n_pos + 1) / (n_pos + 2), 1 / (40 - n_pos + 2))

        def nll(p, f=f[row], t=t):
            z = p[0] * f + p[1]
            return np.sum(t * np.log1p(np.exp(z)) + (1 - t) * np.log1p(np.exp(-z)))

        ref = optimize.minimize(nll, [0.0, 0.0], method="Nelder-Mead",
                                options={"xatol": 1e-12, "fatol": 1e-14, "maxiter": 20000}).x
        np.testing.assert_allclose(ab[row], ref, atol=1e-6)
        # the gradient vanishes at the returned point, written out by hand
        g = t - 1 / (1 + np.exp(ab[row, 0] * f[row] + ab[row, 1]))
        assert abs(np.sum(g * f[row])) < 1e-10 and abs(np.sum(g)) < 1e-10
        # batched and one at a time agree
        np.testing.assert_allclose(platt_sigmoid(f[row], positive[row]), ab[row], rtol=1e-13)


def test_platt_sigmoid_with_equal_decision_values_has_slope_zero():
    """Only A f + B is identified: A = 0 and the sigmoid matches the mean regularised target."""
    f = np.full(7, 0.8)
    positive = np.array([True, True, False, True, False, False, False])
    a, b = platt_sigmoid(f + np.array([0, 1, -1, 0, 2, 0, 0]) * 1e-16, positive)
    t = np.where(positive, 4 / 5, 1 / 6)
    assert a == 0.0
    np.testing.assert_allclose(special.expit(-b), t.mean(), rtol=1e-14)


def test_platt_sigmoid_is_finite_on_separable_and_tiny_data():
    ab = platt_sigmoid(np.array([-3.0, 2.0]), np.array([False, True]))
    assert np.all(np.isfinite(ab)) and ab[0] < 0  # larger decision value, more probably positive
    one_sided = platt_sigmoid(np.array([1.0, 1.0, 1.0]), np.array([True, True, True]))
    assert np.all(np.isfinite(one_sided))


# ---------------------------------------------------------------- the fast path against refits


def setting(name, n_train, n_candidates, pop_size, seed):
    problem = get_problem(name)
    rng = np.random.default_rng(seed)
    X, y = problem.sample(n_train, rng)
    candidates, _ = problem.sample(n_candidates, rng)
    candidates = np.vstack([candidates, X[: min(2, n_train)]])  # duplicates of training points too
    unique = np.arange(candidates.shape[0]) < n_candidates
    population = Population.from_problem(problem, pop_size, rng)
    return X, y, candidates, unique, population


@pytest.mark.parametrize("name", ["four-gaussian", "three-gaussians"])
@pytest.mark.parametrize("n_train", [2, 5, 20, 60])
def test_fast_path_equals_refit(name, n_train):
    X, y, candidates, unique, population = setting(name, n_train, 10, 500, seed=n_train)
    model = fit_on(SVM(), X, y, population)
    check_against_refits(model, candidates, population.X[:200], unique)


@pytest.mark.parametrize("name, n_train, seed", [("four-gaussian", 20, 0), ("three-gaussians", 20, 1),
                                                 ("three-gaussians", 5, 2), ("four-gaussian", 60, 3)])
@pytest.mark.parametrize("loss", ["error", "log", "lc"])
def test_future_losses_fast_path_equals_refit(name, n_train, seed, loss):
    X, y, candidates, _, population = setting(name, n_train, 12, 2000, seed)
    fast = current_and_future_losses(SVM(), X, y, candidates, population, loss)
    refit = current_and_future_losses(SVM(), X, y, candidates, population, loss, method="refit")
    assert fast[0] == refit[0]
    np.testing.assert_allclose(fast[1], refit[1], atol=AGREE, rtol=0)



def test_the_retrained_machines_of_a_block_are_solved_once_and_give_the_same_bytes(monkeypatch):
    """The same candidates on several populations (the scrambles of the sampled truths): the machines are solved
    once per fitted model, the losses are those of a fresh model's bit for bit; at most four blocks are kept,
    and a fit empties the store."""
    X, y, candidates, _, population = setting("four-gaussian", 20, 12, 600, 4)
    other = Population(population.X[::-1][:300], population.proba[::-1][:300])
    model = fit_on(SVM(), X, y, population)
    solves = []
    solve = SVM._solved_machines
    monkeypatch.setattr(SVM, "_solved_machines", lambda self, c: solves.append(c.shape[0]) or solve(self, c))
    first = model.retraining_losses(candidates, population, "error")
    second = model.retraining_losses(candidates, other, "log")
    m = candidates.shape[0]
    assert solves == [m]  # one block, solved once
    for got, pop, loss in ((first, population, "error"), (second, other, "log")):
        fresh = fit_on(SVM(), X, y, population).retraining_losses(candidates, pop, loss)
        assert got[0] == fresh[0]
        np.testing.assert_array_equal(got[1], fresh[1])
    solves.clear()
    for i in range(5):  # five other blocks: the oldest ones are dropped
        model.future_retraining_losses(candidates[i:i + 3], population, "error")
    assert len(model._machine_store) == 4
    model.retraining_losses(candidates, population, "error")
    assert solves == [3] * 5 + [m]  # the first block was dropped: solved again
    model.fit(X, y, 2)
    assert model._machine_store == {}

def test_non_violators_keep_their_solution_and_violators_are_resolved():
    """Both cases occur; a candidate with margin s f(x) >= 1 leaves the machine's alphas exactly unchanged."""
    problem = get_problem("three-gaussians")
    rng = np.random.default_rng(7)
    X, y = problem.sample(40, rng)
    candidates, _ = problem.sample(30, rng)
    model = SVM().fit(X, y, 3)
    machines = model._retrained_machines(candidates)
    f = model.decision_function(candidates)  # the current machines at the candidates
    kept = 0
    for col, c in enumerate(model.machine_classes_):
        for sign in (1, -1):
            t = machines.types.index((int(c), sign))
            margin = sign * f[:, col]
            outside = margin >= 1
            kept += outside.sum()
            assert not machines.solved[outside, t].any()
            assert machines.solved[margin < 1 - 1e-9, t].all()
            np.testing.assert_array_equal(machines.dual_coef[outside, t, :-1], np.broadcast_to(
                model.dual_coef_[col], (outside.sum(), 40)))
            np.testing.assert_array_equal(machines.dual_coef[outside, t, -1], 0.0)
    assert 0 < kept < machines.solved.size  # both non-violators and violators
    assert 0.1 < machines.solved.mean() < 0.9


def test_fast_path_with_absent_classes():
    rng = np.random.default_rng(8)
    X, y = blobs(rng, 12, 2)
    candidates = rng.normal(scale=2, size=(6, 2))
    points = rng.normal(scale=2, size=(100, 2))
    unique = np.ones(6, dtype=bool)
    # classes 0 and 2 of 4 present: adding class 1 or 3 turns the binary machine into one-vs-rest
    check_against_refits(SVM().fit(X, np.where(y == 1, 2, 0), 4), candidates, points, unique)
    # a single class present: adding another class trains a machine from alpha = 0
    check_against_refits(SVM().fit(X, np.full(12, 1), 3), candidates, points, unique)
    # a single training point
    check_against_refits(SVM(C=3.0).fit(X[:1], [0], 2), candidates, points, unique)
    # the losses of a single present class of two (class 1: log-odds +inf while the label is 1) and of three
    proba = rng.dirichlet(np.ones(3), size=100)
    for label, k in ((1, 2), (0, 2), (1, 3)):
        model = SVM().fit(X, np.full(12, label), k)
        population = Population(points, proba[:, :k] / proba[:, :k].sum(axis=1, keepdims=True))
        for loss in ("error", "log", "lc"):
            np.testing.assert_allclose(model.future_retraining_losses(candidates, population, loss),
                                       refit_future_losses(model, candidates, population, loss), atol=AGREE, rtol=0)


def test_no_free_vector_intercept_is_the_midpoint_in_both_paths():
    """Every alpha at C: the intercept is libsvm's midpoint of the feasible interval, in a refit and the fast path."""
    rng = np.random.default_rng(12)
    X = rng.normal(size=(10, 2))
    y = np.array([1, 1, 0, 1, 0, 1, 0, 0, 0, 1])  # balanced: all alphas can sit at C
    candidates = rng.normal(scale=1.5, size=(6, 2))
    points = rng.normal(scale=2, size=(40, 2))
    model = SVM(C=0.01, gamma=1.0).fit(X, y, 2)
    assert np.all(np.abs(model.dual_coef_) == 0.01)
    ref = sklearn_svc(X, y, 0.01, 1.0)
    np.testing.assert_allclose(model.decision_function(points)[:, 0], ref.decision_function(points), atol=1e-8)
    machines = check_against_refits(model, candidates, points, np.ones(6, dtype=bool))
    bounded = (machines.dual_coef == 0) | (np.abs(machines.dual_coef) == 0.01)
    assert np.all(bounded, axis=-1).any()  # some retrained machines have no free vector either


@pytest.mark.parametrize("case", ["identical points, two labels", "identical points, one per class", "collinear"])
def test_fast_path_on_degenerate_training_sets(case):
    X, y, k = {
        "identical points, two labels": (np.ones((6, 2)), np.array([0, 1, 0, 1, 0, 1]), 2),
        "identical points, one per class": (np.ones((3, 2)), np.array([2, 0, 1]), 3),
        "collinear": (np.column_stack([np.arange(6.0), 2 * np.arange(6.0)]), np.array([0, 1] * 3), 2),
    }[case]
    rng = np.random.default_rng(9)
    candidates = np.vstack([rng.normal(size=(4, 2)), X[:1]])
    points = np.vstack([X, rng.normal(scale=3, size=(30, 2))])
    model = SVM().fit(X, y, k)
    P = model.predict_proba(points)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-15)
    check_against_refits(model, candidates, points, np.zeros(5, dtype=bool))


@settings(deadline=None, derandomize=True, max_examples=15)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 15), k=st.integers(2, 4), m=st.integers(1, 4),
       C=st.sampled_from([0.3, 1.0, 20.0]), gamma=st.sampled_from([0.1, 1.0, 4.0]))
def test_fast_path_equals_refit_property(seed, n, k, m, C, gamma):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = rng.integers(0, k, size=n)
    candidates = rng.normal(scale=1.5, size=(m, 2))
    points = rng.normal(scale=2, size=(50, 2))
    check_against_refits(SVM(C=C, gamma=gamma).fit(X, y, k), candidates, points, np.ones(m, dtype=bool))


def test_deterministic():
    X, y, candidates, _, population = setting("three-gaussians", 20, 8, 300, seed=10)
    first = current_and_future_losses(SVM(), X, y, candidates, population, "log")
    again = current_and_future_losses(SVM(), X, y, candidates, population, "log")
    assert first[0] == again[0]
    np.testing.assert_array_equal(first[1], again[1])
    a, b = SVM().fit(X, y, 3), SVM().fit(X, y, 3)
    for attr in ("dual_coef_", "intercept_", "sigmoids_"):
        np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))


def test_chunks_do_not_change_the_result(monkeypatch):
    import mri_theory.classifiers.svm as svm_module

    X, y, candidates, _, population = setting("three-gaussians", 15, 9, 200, seed=11)
    whole = future_losses(SVM(), X, y, candidates, population, "log")
    monkeypatch.setattr(svm_module, "_CHUNK_CELLS", 200 * 6 * 2)  # two candidates per chunk
    np.testing.assert_allclose(future_losses(SVM(), X, y, candidates, population, "log"), whole,
                               atol=1e-14, rtol=0)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("make, exc, pattern", [
    (lambda: SVM(C=0), ValueError, r"C must be > 0"),
    (lambda: SVM(C=-1.0), ValueError, r"C must be > 0"),
    (lambda: SVM(C="1"), TypeError, r"C must be numeric"),
    (lambda: SVM(C=True), TypeError, r"C must be numeric"),
    (lambda: SVM(C=np.nan), ValueError, r"C must be finite"),
    (lambda: SVM(C=1 + 2j), TypeError, r"C must be real"),
    (lambda: SVM(gamma=0), ValueError, r"gamma must be > 0"),
    (lambda: SVM().fit(np.empty((0, 2)), np.empty(0, dtype=int), 2), ValueError,
     r"^X must hold at least 1 point, got 0$"),
    (lambda: SVM(gamma=-0.5), ValueError, r"gamma must be > 0"),
    (lambda: SVM(gamma="scale"), TypeError, r"gamma must be numeric .*'scale'"),
    (lambda: SVM(gamma=[1.0, 2.0]), TypeError, r"gamma must be a scalar"),
    (lambda: SVM(gamma=np.inf), ValueError, r"gamma must be finite"),
    (lambda: platt_sigmoid([0.0, 1.0], [0, 1]), TypeError, r"positive must be a boolean array"),
    (lambda: platt_sigmoid([0.0, 1.0], [True]), ValueError, r"decision and positive must have the same shape"),
    (lambda: platt_sigmoid(1.0, True), ValueError, r"same shape \(\.\.\., n\) with n >= 1, got \(\) and \(\)"),
    (lambda: platt_sigmoid(np.empty((2, 0)), np.empty((2, 0), dtype=bool)), ValueError,
     r"same shape \(\.\.\., n\) with n >= 1, got \(2, 0\) and \(2, 0\)"),
    (lambda: platt_sigmoid([0.0, np.nan], [True, False]), ValueError, r"decision must be finite"),
    (lambda: platt_sigmoid("ab", [True, False]), TypeError, r"decision must be numeric"),
    (lambda: SVM().decision_function([[0.0, 0.0]]), ValueError, r"not fitted"),
    (lambda: SVM().fit([[0.0, 0.0], [1.0, 1.0]], [0, 1]).decision_function([[0.0, 0.0, 0.0]]), ValueError,
     r"X must have 2 columns"),
])
def test_bad_inputs(make, exc, pattern):
    with warnings.catch_warnings():  # refused before any work: no numpy warning of work on bad data first
        warnings.simplefilter("error")
        with pytest.raises(exc, match=pattern):
            make()


def test_shifted_kernel_keeps_its_relative_accuracy_where_the_kernel_is_near_one():
    """K - 1 by expm1 against 50-digit mpmath, at gamma |x - x'|^2 from 1e-14 to 10 (1 - K would lose it)."""
    import mpmath

    from mri_theory.classifiers.svm import _shifted_kernel

    mpmath.mp.dps = 50
    A = np.array([[0.0, 0.0]])
    B = np.array([[1e-7, 0.0], [1e-4, 2e-4], [0.3, -0.1], [2.0, 1.0]])
    got = _shifted_kernel(A, B, 0.7)[0]
    for b, value in zip(B, got, strict=True):
        d2 = mpmath.mpf(float(b[0])) ** 2 + mpmath.mpf(float(b[1])) ** 2
        exact = mpmath.expm1(-mpmath.mpf(0.7) * d2)
        assert abs(float(exact) - value) <= 1e-15 * abs(float(exact))


def test_decision_values_do_not_depend_on_lowering_the_kernel_by_one():
    """The dual coefficients sum to 0, so K and K - 1 give the same decision values (module notes)."""
    rng = np.random.default_rng(12)
    X, y = rng.normal(size=(25, 2)), rng.integers(0, 3, 25)
    model = SVM(C=3.0, gamma=0.8).fit(X, y, 3)
    assert np.max(np.abs(model.dual_coef_.sum(axis=1))) <= 1e-13
    Q = rng.normal(size=(40, 2))
    via_k = sk_rbf_kernel(Q, X, gamma=0.8) @ model.dual_coef_.T + model.intercept_
    np.testing.assert_allclose(model.decision_function(Q), via_k, rtol=0, atol=1e-13)


def test_retrained_platt_fits_start_from_the_models_sigmoids(monkeypatch):
    """Platt's fit of every retrained machine starts from this model's sigmoid of the same class, the binary
    machine's mirror image ``(A, -B)`` for the smaller class: with no Newton step allowed (``_PLATT_MAX_ITER = 0``)
    a retrained machine of a present class keeps exactly that start (its objective is below Platt's point's),
    and a machine of a class absent from the data starts at Platt's point ``A = 0``."""
    from mri_theory.classifiers import svm

    rng = np.random.default_rng(31)
    X, y = blobs(rng, 24, 2)
    model = SVM().fit(X, np.where(y == 1, 2, 0), 4)  # classes 0 and 2 of 4: one binary machine, for class 2
    candidates = rng.normal(scale=2, size=(5, 2))
    monkeypatch.setattr(svm, "_PLATT_MAX_ITER", 0)
    machines = model._retrained_machines(candidates)
    A, B = model.sigmoids_[0]
    start = {2: (A, B), 0: (A, -B)}
    assert {c for c, _ in machines.types} == {0, 1, 2, 3}
    for t, (c, _) in enumerate(machines.types):
        if c in start:
            np.testing.assert_array_equal(machines.sigmoids[:, t], np.broadcast_to(start[c], (5, 2)))
        else:
            np.testing.assert_array_equal(machines.sigmoids[:, t, 0], 0.0)
