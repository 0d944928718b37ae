"""The exact evaluation of a Gaussian-mixture truth in the engine (:meth:`Population.exact`, :class:`ExactPopulation`).

Independent references: the two-class LDA error rate as a sum of normal CDFs written out here from the
fitted model's *predictions* (its log-odds read off ``predict_proba`` at three points, so neither the
classifier's coefficients nor :mod:`mri_theory.engine.exact` enter); the fast path against plain refits
(each refit in its own frame); and a 10^6-point quasi-Monte Carlo population within a stated bound.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from mri_theory.classifiers import LDA, LogisticRegression, get_classifier, list_classifiers
from mri_theory.engine import ExactPopulation, Population, current_and_future_losses, future_losses, true_q_c
from mri_theory.problems import get_problem

#: Every registered classifier with an exact truth (its class's ``exact_truth``): one registered by a contributor
#: is tested here without a test edit.
EXACT_CLASSIFIERS = [name for name in list_classifiers() if get_classifier(name).exact_truth]


def _data(problem_name: str, n: int, seed: int):
    problem = get_problem(problem_name)
    rng = np.random.default_rng(seed)
    X, y = problem.sample(n, rng)
    candidates, _ = problem.sample(6, rng)
    return problem, X, y, candidates


@pytest.mark.parametrize("problem_name", ["two-gaussians", "four-gaussian", "three-gaussians", "quadratic"])
@pytest.mark.parametrize("name", EXACT_CLASSIFIERS)
@pytest.mark.parametrize("loss", ["error", "log"])
def test_the_exact_fast_path_equals_plain_refits(problem_name, name, loss):
    """The fast path scored exactly == each (candidate, class) refitted and integrated exactly (logistic
    regression: its batched Newton from the current solution against fresh fits, to the solver's tolerance)."""
    problem, X, y, candidates = _data(problem_name, 30, 3)
    exact = Population.exact(problem)
    current, fast = current_and_future_losses(get_classifier(name), X, y, candidates, exact, loss)
    refit_current, refit = current_and_future_losses(get_classifier(name), X, y, candidates, exact, loss,
                                                     method="refit")
    assert fast.shape == (candidates.shape[0], problem.n_classes)
    tolerance = 1e-9 if isinstance(get_classifier(name), LogisticRegression) else 1e-12
    np.testing.assert_allclose(fast, refit, rtol=0, atol=tolerance)
    assert current == pytest.approx(refit_current, abs=1e-15)


def _phi(t):
    return 0.5 * special.erfc(-np.asarray(t) / math.sqrt(2.0))


def test_two_class_lda_error_is_the_sum_of_normal_cdfs_of_its_boundary():
    """E = sum_c w_c P_c(wrong side of the line l(x) = 0), with l read off predict_proba."""
    problem, X, y, _ = _data("four-gaussian", 40, 5)
    model = LDA().fit(X, y, 2)
    points = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    p = model.predict_proba(points)
    log_odds = np.log(p[:, 1]) - np.log(p[:, 0])
    w0 = log_odds[0]
    w = log_odds[1:] - w0  # l(x) = w0 + w . x, linear for LDA
    expected = 0.0
    for j in range(2):
        for weight, mean, cov in zip(problem.weights[j], problem.means[j], problem.covariances[j], strict=True):
            z = (w0 + w @ mean) / math.sqrt(w @ cov @ w)  # l(x) ~ N(w0 + w.mean, w' cov w)
            p_one = _phi(z)  # P(l > 0): class 1 predicted
            expected += problem.prior[j] * weight * (p_one if j == 0 else 1.0 - p_one)
    assert Population.exact(problem).loss(model, "error") == pytest.approx(float(expected), abs=1e-12)


@pytest.mark.parametrize("name", EXACT_CLASSIFIERS)
@pytest.mark.parametrize("loss", ["error", "log"])
def test_exact_losses_lie_within_a_million_point_qmc_population_bound(name, loss):
    """|QMC - exact| below 5 times the i.i.d. standard error (conservative for QMC) plus 1e-6."""
    problem, X, y, _ = _data("three-gaussians", 25, 8)
    model = get_classifier(name).fit(X, y, 3)
    population = Population.from_problem(problem, 10**6, np.random.default_rng(1), method="qmc")
    sampled, se = population.loss(model, loss), population.standard_error(model, loss)
    assert abs(Population.exact(problem).loss(model, loss) - sampled) <= 5 * se + 1e-6


@pytest.mark.parametrize("name", EXACT_CLASSIFIERS)
@pytest.mark.parametrize("loss", ["error", "log"])
def test_exact_losses_with_an_absent_class_lie_within_a_qmc_population_bound(name, loss):
    """Class 0 absent from the training data (probability 0 everywhere, never predicted): the exact loss, of the
    model and through the fast path, within 5 i.i.d. standard errors (plus 1e-6) of a 2e5-point QMC population."""
    problem, X, y, candidates = _data("three-gaussians", 40, 9)
    keep = y > 0
    model = get_classifier(name).fit(X[keep], y[keep], 3)
    population = Population.from_problem(problem, 2 * 10**5, np.random.default_rng(2), method="qmc")
    sampled, se = population.loss(model, loss), population.standard_error(model, loss)
    exact = Population.exact(problem)
    assert abs(model.exact_loss(exact.truth, loss) - sampled) <= 5 * se + 1e-6
    current, future = model.retraining_losses(candidates[:2], exact, loss)
    assert abs(current - sampled) <= 5 * se + 1e-6
    # the retrained models with label 1 or 2 keep class 0 absent, with label 0 it has one point: against the same
    # population's refits
    for j in (0, 1, 2):
        refit = get_classifier(name).fit(np.vstack([X[keep], candidates[0]]), np.append(y[keep], j), 3)
        bound = 5 * population.standard_error(refit, loss) + 1e-6
        assert abs(future[0, j] - population.loss(refit, loss)) <= bound


def test_true_q_c_on_the_exact_population_is_current_minus_expected_future():
    """Q^c = L - sum_j p_j(x) L'_j with the problem's posteriors, all exact (Eq. eqc)."""
    problem, X, y, candidates = _data("four-gaussian", 60, 11)
    exact = Population.exact(problem)
    q = true_q_c(problem, LDA(), X, y, candidates, exact)
    current, future = current_and_future_losses(LDA(), X, y, candidates, exact, "error", method="refit")
    np.testing.assert_allclose(q, current - np.sum(problem.posterior(candidates) * future, axis=1), atol=1e-12)


def test_late_in_a_curve_the_exact_argmax_is_not_the_sampled_one():
    """|D_S| = 200 on Four-Gaussian with LDA: a 10^4-point population's Q^c misorders candidates that the
    exact truth separates (the reason for the exact truth); the exact values are deterministic."""
    problem, X, y, _ = _data("four-gaussian", 200, 200)
    candidates, _ = problem.sample(40, np.random.default_rng(7))
    exact = Population.exact(problem)
    q_exact = true_q_c(problem, LDA(), X, y, candidates, exact)
    np.testing.assert_array_equal(q_exact, true_q_c(problem, LDA(), X, y, candidates, exact))
    sampled = Population.from_problem(problem, 10**4, np.random.default_rng(0), method="qmc")
    q_sampled = true_q_c(problem, LDA(), X, y, candidates, sampled)
    assert np.max(np.abs(q_sampled - q_exact)) > np.std(q_exact)  # the sampled error exceeds the spread


@pytest.mark.parametrize("name", [name for name in list_classifiers() if not get_classifier(name).exact_truth])
def test_classifiers_without_an_exact_path_are_refused_naming_the_population(name):
    problem, X, y, candidates = _data("four-gaussian", 20, 2)
    exact = Population.exact(problem)
    with pytest.raises(TypeError, match=r"^population: \w+ has no exact path on an ExactPopulation"):
        future_losses(get_classifier(name), X, y, candidates, exact)
    with pytest.raises(TypeError, match=r"^population: \w+ has no exact path"):
        exact.loss(get_classifier(name).fit(X, y, 2))


@pytest.mark.parametrize("bad, error, message", [
    ("four-gaussian", TypeError, r"problem must be a Problem object, got the name 'four-gaussian'"),
    (get_problem("wine"), TypeError, r"problem must be a Gaussian-mixture problem"),
    (3, TypeError, r"problem must be a Gaussian-mixture problem"),
])
def test_population_exact_refuses_what_is_not_a_gaussian_mixture(bad, error, message):
    with pytest.raises(error, match=message):
        Population.exact(bad)


def test_exact_population_refuses_the_lc_loss_and_mismatched_models():
    problem, X, y, candidates = _data("four-gaussian", 20, 2)
    exact = Population.exact(problem)
    with pytest.raises(ValueError, match=r"loss 'lc' .* has no exact form"):
        future_losses(LDA(), X, y, candidates, exact, "lc")
    with pytest.raises(ValueError, match=r"classifier has 3 classes .* the population has 2"):
        exact.loss(LDA().fit(X, y, 3))
    with pytest.raises(TypeError, match=r"truth must be a MixtureTruth"):
        ExactPopulation("truth")
