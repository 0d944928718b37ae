"""The true targets Q^c, Q^a, B^c on the general path (:mod:`mri_theory.engine.targets`).

Independent references: Eq. ``eqc`` assembled by hand from plain refits of the
classifier and losses written out from their definitions, Bayes posteriors
built by hand from the problems' Gaussian densities (:mod:`scipy.stats`),
enumeration of all labellings for B^c, and the closed-form Q^c of the §3.2
example (:func:`mri_theory.analytic.two_gaussians.q_c`) on a deterministic quadrature
population.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _reference import hand_loss
from scipy import integrate, special, stats

from mri_theory.analytic.two_gaussians import MeanClassifier, TwoGaussians, q_c
from mri_theory.classifiers import (
    KNN,
    LDA,
    QDA,
    GaussianMeanClassifier,
    GaussianNaiveBayes,
)
from mri_theory.engine.population import Population
from mri_theory.engine.targets import true_b_c, true_q_a, true_q_c
from mri_theory.problems import get_problem


def refit_loss(factory, X, y, pop, loss):
    return hand_loss(pop, factory().fit(X, y, pop.n_classes).predict_proba(pop.X), loss)


def hand_posterior(name, X):
    """Bayes posteriors by hand from the documented class densities."""
    X = np.atleast_2d(np.asarray(X, float).T).T
    if name == "three-gaussians":
        ang = np.deg2rad(90.0 + 120.0 * np.arange(3))
        mu = np.stack([np.cos(ang), np.sin(ang)], axis=1)
        dens = np.column_stack([stats.multivariate_normal(m, 0.65**2 * np.eye(2)).pdf(X) for m in mu])
    elif name == "four-gaussian":
        cov = 0.03 * np.eye(2)
        mix = lambda ms: sum(0.5 * stats.multivariate_normal(m, cov).pdf(X) for m in ms)  # noqa: E731
        dens = np.column_stack([mix([[-0.7, 0.3], [0.3, 0.3]]), mix([[-0.3, 0.7], [0.4, 0.7]])])
    else:
        raise KeyError(name)
    return dens / dens.sum(axis=1, keepdims=True)


def hand_q_c(name, factory, X, y, candidates, pop, loss):
    """Eq. eqc: L(theta(D)) - sum_j p_j(x) L(theta(D + (x, c_j))), every term a plain refit."""
    k = pop.n_classes
    now = refit_loss(factory, X, y, pop, loss)
    p = hand_posterior(name, candidates)
    out = np.empty(len(candidates))
    for i, x in enumerate(candidates):
        future = [refit_loss(factory, np.vstack([X, x]), np.append(y, j), pop, loss) for j in range(k)]
        out[i] = now - np.dot(p[i], future)
    return out


CASES = [
    ("three-gaussians", "knn3", lambda: KNN(3)),
    ("three-gaussians", "lda", LDA),
    ("three-gaussians", "nb", GaussianNaiveBayes),
    ("four-gaussian", "knn5", lambda: KNN(5)),
    ("four-gaussian", "qda", QDA),
    ("four-gaussian", "mean", lambda: GaussianMeanClassifier(sigma=0.3)),
]


def setting(name, seed, n_train=20, n_pop=600, n_cand=5):
    problem = get_problem(name)
    rng = np.random.default_rng(seed)
    X, y = problem.sample(n_train, rng)
    pop = Population.from_problem(problem, n_pop, rng)
    C, _ = problem.sample(n_cand, rng)
    return problem, X, y, C, pop


# ---------------------------------------------------------------- Q^c, Q^a, B^c by hand


@pytest.mark.parametrize("name, label, factory", CASES, ids=[c[1] + "-" + c[0] for c in CASES])
@pytest.mark.parametrize("loss", ["error", "log"])
def test_true_q_c_equals_hand_refits(name, label, factory, loss):
    problem, X, y, C, pop = setting(name, seed=len(label) + 7 * len(name))
    got = true_q_c(problem, factory(), X, y, C, pop, loss)
    assert got.shape == (C.shape[0],)
    np.testing.assert_allclose(got, hand_q_c(name, factory, X, y, C, pop, loss), rtol=0, atol=1e-12)


def test_true_q_c_single_candidate():
    problem, X, y, C, pop = setting("four-gaussian", seed=3)
    for factory in (lambda: KNN(5), LDA, GaussianMeanClassifier):
        got = true_q_c(problem, factory(), X, y, C[:1], pop)
        np.testing.assert_allclose(got, hand_q_c("four-gaussian", factory, X, y, C[:1], pop, "error"),
                                   rtol=0, atol=1e-12)


@pytest.mark.parametrize("loss", ["error", "log"])
def test_true_q_c_with_a_weighted_one_hot_population(loss):
    """The engine serves SMRI too: a labelled evaluation set (one-hot rows), here with weights."""
    problem, X, y, C, _ = setting("three-gaussians", seed=4)
    X_eval, y_eval = problem.sample(200, np.random.default_rng(40))
    pop = Population(X_eval, np.eye(3)[y_eval], np.random.default_rng(41).uniform(0.5, 2.0, 200))
    got = true_q_c(problem, KNN(3), X, y, C, pop, loss)
    np.testing.assert_allclose(got, hand_q_c("three-gaussians", lambda: KNN(3), X, y, C, pop, loss),
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize("loss", ["error", "log"])
def test_true_q_a_for_known_labels(loss):
    problem, X, y, C, pop = setting("three-gaussians", seed=5)
    labels = np.array([2, 0, 1, 1, 0])
    for factory in (lambda: KNN(3), QDA):
        got = true_q_a(problem, factory(), X, y, C, labels, pop, loss)
        now = refit_loss(factory, X, y, pop, loss)
        expected = [now - refit_loss(factory, np.vstack([X, x]), np.append(y, c), pop, loss)
                    for x, c in zip(C, labels, strict=True)]
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
        # Q^c is the posterior-weighted mean of Q^a over the labels (Eq. eqc, first line)
        q_a_all = np.column_stack([true_q_a(problem, factory(), X, y, C, np.full(5, j), pop, loss)
                                   for j in range(3)])
        np.testing.assert_allclose(np.sum(hand_posterior("three-gaussians", C) * q_a_all, axis=1),
                                   true_q_c(problem, factory(), X, y, C, pop, loss), rtol=0, atol=1e-12)


def hand_b_c(name, factory, X, y, batch, pop, loss):
    k = pop.n_classes
    p = hand_posterior(name, batch)
    expected = 0.0
    for labels in itertools.product(range(k), repeat=len(batch)):
        weight = np.prod([p[i, c] for i, c in enumerate(labels)])
        expected += weight * refit_loss(factory, np.vstack([X, batch]), np.append(y, labels), pop, loss)
    return refit_loss(factory, X, y, pop, loss) - expected


@pytest.mark.parametrize("loss", ["error", "log"])
def test_true_b_c_with_one_point_is_q_c(loss):
    problem, X, y, C, pop = setting("three-gaussians", seed=6)
    for factory in (lambda: KNN(3), LDA):
        q = true_q_c(problem, factory(), X, y, C, pop, loss)
        for i in range(C.shape[0]):
            b = true_b_c(problem, factory(), X, y, C[i:i + 1], pop, loss)
            assert isinstance(b, float)
            assert b == pytest.approx(q[i], abs=1e-12)


@pytest.mark.parametrize("name, label, factory", CASES[:2] + CASES[3:5],
                         ids=[c[1] + "-" + c[0] for c in CASES[:2] + CASES[3:5]])
@pytest.mark.parametrize("loss", ["error", "log"])
def test_true_b_c_two_points_against_enumeration(name, label, factory, loss):
    problem, X, y, C, pop = setting(name, seed=8 + len(label), n_pop=400)
    for batch in (C[:2], C[2:4]):
        got = true_b_c(problem, factory(), X, y, batch, pop, loss)
        assert got == pytest.approx(hand_b_c(name, factory, X, y, batch, pop, loss), abs=1e-12)


def test_true_b_c_three_points_against_enumeration():
    problem, X, y, C, pop = setting("four-gaussian", seed=9, n_pop=300)
    got = true_b_c(problem, KNN(5), X, y, C[:3], pop)
    assert got == pytest.approx(hand_b_c("four-gaussian", lambda: KNN(5), X, y, C[:3], pop, "error"), abs=1e-12)


def test_targets_leave_the_template_alone():
    problem, X, y, C, pop = setting("three-gaussians", seed=10)
    template = KNN(3)
    true_q_c(problem, template, X, y, C, pop)
    true_q_a(problem, template, X, y, C, np.zeros(5, int), pop)
    true_b_c(problem, template, X, y, C[:2], pop)
    assert not hasattr(template, "n_classes_")


# ---------------------------------------------------------------- bad input


def test_bad_input():
    problem, X, y, C, pop = setting("three-gaussians", seed=11, n_pop=50)
    with pytest.raises(ValueError, match="batch"):
        true_b_c(problem, KNN(3), X, y, C[:4], pop)  # r = 4 > 3
    # problem / population class mismatch (same dimension, 2 classes against 3)
    two = get_problem("four-gaussian")
    with pytest.raises(ValueError, match="class"):
        true_q_c(two, KNN(3), X, y, C, pop)
    with pytest.raises(ValueError, match="class"):
        true_b_c(two, KNN(3), X, y, C[:2], pop)
    pop2 = Population.from_problem(two, 50, np.random.default_rng(0))
    with pytest.raises(ValueError, match="class"):
        true_q_c(problem, KNN(3), X, np.minimum(y, 1), C, pop2)
    with pytest.raises(ValueError, match="candidates"):
        true_q_c(problem, KNN(3), X, y, np.empty((0, 2)), pop)
    with pytest.raises(ValueError, match="candidates"):
        true_q_c(problem, KNN(3), X, y, np.zeros((2, 3)), pop)
    with pytest.raises(ValueError, match="labels"):
        true_q_a(problem, KNN(3), X, y, C, [0, 1], pop)
    with pytest.raises(ValueError, match="labels"):
        true_q_a(problem, KNN(3), X, y, C, [0, 1, 2, 3, 0], pop)
    with pytest.raises(ValueError, match="loss"):
        true_q_c(problem, KNN(3), X, y, C, pop, loss="hinge")
    with pytest.raises(ValueError, match="loss"):
        true_b_c(problem, KNN(3), X, y, C[:1], pop, loss="hinge")
    with pytest.raises(ValueError, match="y_S"):
        true_q_c(problem, KNN(3), X, np.full(y.shape, 5), C, pop)
    with pytest.raises(TypeError, match="classifier"):
        true_q_c(problem, object(), X, y, C, pop)


# ---------------------------------------------------------------- the closed form of §3.2


N_NODES = 2**22  # h = 18 / 2^22 ~ 4.3e-6


@pytest.fixture(scope="module")
def quadrature_population():
    """Midpoint nodes on [-9, 9], weights = the marginal density, rows = the Bayes posterior (by hand).

    The mass of N(+-1, 1) beyond +-9 is below 1e-15, so the truncation is negligible.
    """
    h = 18.0 / N_NODES
    x = -9.0 + (np.arange(N_NODES) + 0.5) * h
    p1 = special.expit(2.0 * x)  # N(-1, 1) vs N(1, 1), equal priors: ln(p_1/p_0) = 2x
    density = 0.5 * (stats.norm.pdf(x, -1.0) + stats.norm.pdf(x, 1.0))
    return Population(x, np.column_stack([1.0 - p1, p1]), density)


def exact_training_set():
    """D_S with class means exactly (-0.5, 1.5), 9 points each (dyadic offsets: the sums are exact)."""
    offsets = np.arange(-4, 5) * 0.25
    X = np.concatenate([-0.5 + offsets, 1.5 + offsets])[:, None]
    y = np.repeat([0, 1], 9)
    assert X[y == 0].mean() == -0.5 and X[y == 1].mean() == 1.5
    return X, y


CANDIDATES = np.array([-2.0, -0.3, 0.5, 1.1, 3.0])


def test_true_q_c_reproduces_the_closed_form(quadrature_population):
    """The general path on the 1-D problem reproduces two_gaussians.q_c (Eq. eqc, error loss).

    Why only O(h): the population's error rate is the midpoint rule for
    int f(x) (1 - p_pred(x)) dx, whose integrand jumps at the classifier's
    boundary t_hat (the predicted class switches there).  The cell containing
    t_hat is scored wholly on one side, an error of at most
    (h / 2) f(t_hat) |p_1(t_hat) - p_0(t_hat)|; the smooth part is O(h^2).
    Here t_hat ~ 0.5 (f ~ 0.24, |p_1 - p_0| ~ 0.46), so each loss is within
    ~0.06 h ~ 2.4e-7 and Q^c, a difference of such losses, within ~5e-7 < 1e-6.
    """
    problem = get_problem("two-gaussians")
    X, y = exact_training_set()
    got = true_q_c(problem, GaussianMeanClassifier(sigma=1.0, prior=(0.5, 0.5)), X, y, CANDIDATES[:, None],
                   quadrature_population)
    expected = q_c(TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9)), CANDIDATES)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)
    # and the targets are not trivially small: the check has teeth
    assert np.max(np.abs(expected)) > 1e-3


@pytest.mark.slow  # a long statistical or quadrature check
def test_true_q_c_log_loss_against_adaptive_quadrature(quadrature_population):
    """The log loss is smooth, so the midpoint population converges at O(h^2): 1e-9 is ample.

    The reference integrates f(x) * (-sum_j p_j(x) ln p_hat_j(x)) with scipy's
    adaptive quad for every model, its p_hat from the closed-form mean classifier.
    """
    problem = get_problem("two-gaussians")
    truth = TwoGaussians()
    X, y = exact_training_set()

    def log_loss(clf):
        def integrand(x):
            return float(truth.density(x) * -np.sum(truth.posterior(x) * np.log(clf.proba(x))))
        return integrate.quad(integrand, -9.0, 9.0, epsabs=1e-13, epsrel=1e-13, limit=200)[0]

    now = MeanClassifier((-0.5, 1.5), (9, 9))
    expected = []
    for x in CANDIDATES[[0, 2, 4]]:
        p = truth.posterior(x)
        expected.append(log_loss(now) - sum(p[j] * log_loss(now.retrained(x, j)) for j in (0, 1)))
    got = true_q_c(problem, GaussianMeanClassifier(sigma=1.0, prior=(0.5, 0.5)), X, y,
                   CANDIDATES[[0, 2, 4], None], quadrature_population, "log")
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
