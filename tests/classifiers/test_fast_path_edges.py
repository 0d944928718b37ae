"""Edge cases of the classifiers' fast retraining paths, against brute-force refits and hand formulas.

* Logistic regression scores the population of every retrained model from its
  log-odds ``s``; for the log loss it takes a shortcut (softplus without the
  log-loss floor) while every ``|s| <= 30``.  Here the population sits at
  log-odds between 30 and 40, where the floor ``p >= 1e-15`` (a cap of
  ``-ln 1e-15 = 34.54`` on each term) changes the loss, and, separately, at
  moderate log-odds where the shortcut itself runs.  Expected values: each
  (candidate, class) refitted from scratch, its log-odds taken from the
  public ``coef_``/``intercept_`` and the floored log loss written out here.
* The SVM keeps a machine unchanged when the candidate does not violate its
  KKT conditions (to the solver tolerance ``1e-11``).  Here candidates are
  placed inside the margin by 1e-7 .. 1e-9 (found by bisection on the public
  ``decision_function``), where a looser tolerance would keep a machine that a
  refit moves; the fast path's decision values must equal the refit's to 1e-9.
* A subclass of a classifier with a fast path that overrides only
  ``retraining_losses`` (here: its future losses moved by 1e-3) gets those
  future losses from ``future_retraining_losses`` too, not the built-in's
  future-only path.
* The Gaussian classifiers' rank-one fast path with unequal class counts (the
  log priors matter), a class absent from the data (k = 3 and k = 2, where it
  works on log-odds of +-inf) and one candidate per chunk, against the class
  probabilities pi_j N(x; m_j, Sigma_j) written out with scipy.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _shared import GAUSSIAN_CLASSIFIERS
from scipy import special
from sklearn.metrics.pairwise import rbf_kernel

from mri_theory.classifiers import SVM, LogisticRegression
from mri_theory.engine.population import Population

CAP = -np.log(1e-15)  # the log-loss floor p >= 1e-15 caps each term at 34.54


def _log_odds(model: LogisticRegression, X: np.ndarray) -> np.ndarray:
    """Two-class log-odds ln(p_1 / p_0) of a fitted model from its public coefficients (data units)."""
    return X @ (model.coef_[1] - model.coef_[0]) + model.intercept_[1] - model.intercept_[0]


def _floored_log_loss(s: np.ndarray, proba: np.ndarray, weights: np.ndarray) -> float:
    """Weighted log loss with p clipped below at 1e-15: -ln p_0 = ln(1 + e^s), -ln p_1 = ln(1 + e^-s)."""
    terms = proba[:, 0] * np.minimum(np.logaddexp(0.0, s), CAP) + proba[:, 1] * np.minimum(np.logaddexp(0.0, -s), CAP)
    return float(terms @ weights)


def _refit_log_losses(model, X, y, candidates, population):
    """(m, 2) floored log losses of a refit per (candidate, class), and every refit's log-odds on the population."""
    out, all_s = np.empty((len(candidates), 2)), []
    for i, x in enumerate(candidates):
        for j in range(2):
            refit = model.clone().fit(np.vstack([X, x]), np.append(y, j), 2)
            s = _log_odds(refit, population.X)
            all_s.append(s)
            out[i, j] = _floored_log_loss(s, population.proba, population.weights)
    return out, np.array(all_s)


@pytest.fixture(scope="module")
def logistic_fit():
    """Two overlapping 1-D classes (50 points each): one added point moves the log-odds far out by a few %."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-1.0, 1.0, 50), rng.normal(1.0, 1.0, 50)][:, None]
    y = np.repeat([0, 1], 50)
    return LogisticRegression().fit(X, y, 2), X, y


def _points_at_log_odds(model, targets):
    """1-D points where the model's log-odds equal ``targets`` (it is linear in x)."""
    slope = float(model.coef_[1, 0] - model.coef_[0, 0])
    offset = float(model.intercept_[1] - model.intercept_[0])
    return ((np.asarray(targets, dtype=float) - offset) / slope)[:, None]


def test_logistic_log_loss_at_log_odds_between_30_and_40_applies_the_floor_like_a_refit(logistic_fit):
    model, X, y = logistic_fit
    candidates = np.array([[-0.5], [0.0], [1.0]])
    # population points at log-odds +-37 and +-35 for the current model, each class probable
    population = Population(_points_at_log_odds(model, [-37.0, -35.0, 35.0, 37.0]),
                            np.array([[0.7, 0.3], [0.4, 0.6], [0.5, 0.5], [0.2, 0.8]]), np.array([1.0, 2.0, 1.0, 3.0]))
    expected, s = _refit_log_losses(model, X, y, candidates, population)
    # the case this test is about: every retrained model in (30, 40) in |s|, some term beyond the cap
    assert np.all((np.abs(s) > 30) & (np.abs(s) < 40)), np.abs(s).min()
    assert np.any(np.abs(s) > CAP + 1)
    current, future = model.retraining_losses(candidates, population, "log")
    assert current == pytest.approx(_floored_log_loss(_log_odds(model, population.X), population.proba,
                                                      population.weights), rel=1e-12)
    np.testing.assert_allclose(future, expected, rtol=1e-9, atol=0)


def test_logistic_log_loss_shortcut_at_moderate_log_odds_equals_a_refit(logistic_fit):
    """Every |s| <= 30: the shortcut sum ln(1 + e^s) - r_1 s runs; checked against the hand log loss of refits."""
    model, X, y = logistic_fit
    candidates = np.array([[0.3], [-1.5], [4.0]])
    rng = np.random.default_rng(3)
    population = Population(_points_at_log_odds(model, np.linspace(-20.0, 20.0, 9)),
                            rng.dirichlet(np.ones(2), size=9), rng.random(9) + 0.5)
    expected, s = _refit_log_losses(model, X, y, candidates, population)
    assert np.abs(s).max() < 29 and np.abs(s).max() > 5
    _, future = model.retraining_losses(candidates, population, "log")
    np.testing.assert_allclose(future, expected, rtol=1e-9, atol=0)


# ---------------------------------------------------------------- SVM: candidates just inside the margin

def _near_margin_candidates(model: SVM, sign: float, depths) -> np.ndarray:
    """Points on the segment between two training points where sign * f(x) = 1 - depth (bisection on f)."""
    X = model.X_train_
    f = lambda x: sign * model.decision_function(x[None, :])[0, 0]  # noqa: E731
    inside, outside = X.mean(axis=0), X[np.argmax([f(x) for x in X])]
    assert f(inside) < 1 - 1e-3 < 1 + 1e-3 < f(outside)
    out = []
    for depth in depths:
        lo, hi = 0.0, 1.0  # f(inside + t (outside - inside)) - (1 - depth): < 0 at t = 0, > 0 at t = 1
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if f(inside + mid * (outside - inside)) < 1 - depth:
                lo = mid
            else:
                hi = mid
        x = inside + lo * (outside - inside)
        assert abs(f(x) - (1 - depth)) < depth / 20
        out.append(x)
    return np.array(out)


@pytest.mark.parametrize("C", [1.0, 10.0])
def test_svm_candidate_just_inside_the_margin_is_resolved_like_a_refit(C):
    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal(-1.0, 0.7, size=(15, 2)), rng.normal(1.0, 0.7, size=(15, 2))])
    y = np.repeat([0, 1], 15)
    model = SVM(C=C).fit(X, y, 2)
    assert model.machine_classes_.size == 1  # one binary machine
    machine_class = int(model.machine_classes_[0])
    points = rng.normal(0.0, 1.5, size=(50, 2))
    for label in (0, 1):
        sign = 1.0 if label == machine_class else -1.0
        candidates = _near_margin_candidates(model, sign, [1e-7 * max(1.0, C), 1e-8, 1e-9])
        machines = model._retrained_machines(candidates)
        t = machines.types.index((machine_class, 1 if machine_class == label else -1))
        assert machines.solved[:, t].all()  # inside the margin by more than the tolerance: re-solved
        for i, x in enumerate(candidates):
            refit = model.clone().fit(np.vstack([X, x]), np.append(y, label), 2)
            K = rbf_kernel(points, refit.X_train_, gamma=model.gamma_)
            fast = K @ machines.dual_coef[i, t] + machines.intercept[i, t]
            np.testing.assert_allclose(fast, refit.decision_function(points)[:, 0], atol=1e-9, rtol=0)


# ---------------------------------------------------------------- Gaussian classifiers: priors, absent classes

def _hand_proba(name, X, y, k, points, reg=1e-3):
    """Class probabilities written out: pi_j N(x; m_j, Sigma_j) normalised, pi_j = n_j / n (the model's
    fixed uniform prior for "mean", with Sigma = I), Sigma_j = S_j / n_j + reg I (QDA), its diagonal (NB),
    sum_j S_j / n + reg I (LDA); a class without training points gets probability 0."""
    from scipy.stats import multivariate_normal

    d, n = X.shape[1], len(y)
    pooled = sum(np.cov(X[y == j].T, bias=True).reshape(d, d) * np.sum(y == j) for j in range(k) if np.any(y == j))
    dens = np.zeros((len(points), k))
    for j in range(k):
        members = X[y == j]
        if len(members) == 0:
            continue
        own = np.cov(members.T, bias=True).reshape(d, d) if len(members) > 1 else np.zeros((d, d))
        cov, prior = {"lda": (pooled / n + reg * np.eye(d), len(members) / n),
                      "qda": (own + reg * np.eye(d), len(members) / n),
                      "nb": (np.diag(np.diag(own)) + reg * np.eye(d), len(members) / n),
                      "mean": (np.eye(d), 1 / k)}[name]
        dens[:, j] = prior * multivariate_normal(members.mean(axis=0), cov).pdf(points)
    return dens / dens.sum(axis=1, keepdims=True)


def _hand_losses(name, X, y, k, candidates, population, loss):
    """(L, L'): the current loss and the loss after adding each (candidate, class), from :func:`_hand_proba`
    (error: 1 - r at the most probable class; log: -sum r ln p, p floored at 1e-15), population-weighted."""
    def score(X_fit, y_fit):
        p = _hand_proba(name, X_fit, y_fit, k, population.X)
        r, w = population.proba, population.weights / population.weights.sum()
        if loss == "error":
            return float(w @ (1.0 - r[np.arange(len(r)), np.argmax(p, axis=1)]))
        return float(w @ -np.sum(r * np.log(np.maximum(p, 1e-15)), axis=1))

    future = np.array([[score(np.vstack([X, x]), np.append(y, j)) for j in range(k)] for x in candidates])
    return score(X, y), future


@pytest.mark.parametrize("name", GAUSSIAN_CLASSIFIERS)
@pytest.mark.parametrize("loss", ["error", "log"])
def test_gaussian_fast_path_with_unequal_priors_and_absent_classes(name, loss, monkeypatch):
    """Unbalanced classes (the log priors matter), a class absent from the data (k = 3 with classes 0 and 2
    present, then class 2 alone; k = 2 with one class), scored in chunks of one candidate (``_CHUNK_CELLS``
    lowered), against the probabilities written out by hand."""
    from mri_theory.classifiers import gaussian, get_classifier
    from mri_theory.problems import get_problem

    monkeypatch.setattr(gaussian, "_CHUNK_CELLS", 1)
    problem = get_problem("three-gaussians")
    rng = np.random.default_rng(5)
    X, y = problem.sample(60, rng)
    keep = np.flatnonzero(y != 1)[:13]  # classes 0 and 2 only, unequal counts
    X, y = X[keep], y[keep]
    assert 0 < np.sum(y == 0) != np.sum(y == 2) > 0
    population = Population.from_problem(problem, 300, rng)
    candidates = rng.normal(0.0, 1.5, size=(3, 2))
    two = get_problem("four-gaussian")  # two classes: the fast path works on log-odds (+-inf for an absent class)
    X2, y2 = two.sample(30, rng)
    population2 = Population.from_problem(two, 300, rng)
    cases = [(X, y, 3, population), (X[y == 2], y[y == 2], 3, population),
             (X2[y2 == 0][:7], y2[y2 == 0][:7], 2, population2), (X2[y2 == 1][:5], y2[y2 == 1][:5], 2, population2)]
    for X_fit, y_fit, k, pop in cases:
        with warnings.catch_warnings():  # an absent class's log prior -inf and 0 / 0 raise no warning
            warnings.simplefilter("error")
            model = get_classifier(name).fit(X_fit, y_fit, k)
            current, future = model.retraining_losses(candidates, pop, loss)
            np.testing.assert_array_equal(model.future_retraining_losses(candidates, pop, loss), future)
            exact = Population.exact(problem if k == 3 else two)  # and on the exact truth: the rules integrated
            np.testing.assert_array_equal(model.future_retraining_losses(candidates, exact, loss),
                                          model.retraining_losses(candidates, exact, loss)[1])
        hand_current, hand_future = _hand_losses(name, X_fit, y_fit, k, candidates, pop, loss)
        assert current == pytest.approx(hand_current, abs=1e-10)
        np.testing.assert_allclose(future, hand_future, atol=1e-9, rtol=0)


def test_gaussian_classifiers_documented_default_ridge():
    from mri_theory.classifiers import LDA, QDA, GaussianNaiveBayes

    assert LDA().reg == QDA().reg == GaussianNaiveBayes().reg == 1e-3


def test_svm_fast_path_in_chunks_of_one_candidate_equals_refits(monkeypatch):
    """More candidates (5) than dimensions (2), one candidate per chunk: every row is a refit's loss."""
    from mri_theory.classifiers import svm
    from mri_theory.engine.retraining import current_and_future_losses
    from mri_theory.problems import get_problem

    monkeypatch.setattr(svm, "_CHUNK_CELLS", 1)
    problem = get_problem("three-gaussians")
    rng = np.random.default_rng(9)
    X, y = problem.sample(15, rng)
    candidates, _ = problem.sample(5, rng)
    population = Population.from_problem(problem, 200, rng)
    fast = current_and_future_losses(SVM(), X, y, candidates, population, "log")
    refit = current_and_future_losses(SVM(), X, y, candidates, population, "log", method="refit")
    np.testing.assert_allclose(fast[1], refit[1], atol=1e-8, rtol=0)


def test_platt_sigmoid_of_a_single_decision_value():
    """One training decision value is enough for the regularised fit (Platt's targets keep it finite)."""
    from mri_theory.classifiers.svm import platt_sigmoid

    a, b = platt_sigmoid(np.array([0.7]), np.array([True]))
    assert np.isfinite(a) and np.isfinite(b)
    # the target of a single positive is (1 + 1) / (1 + 2) = 2/3: the fitted sigmoid reproduces it there
    assert special.expit(-(a * 0.7 + b)) == pytest.approx(2 / 3, abs=1e-6)


@pytest.mark.parametrize("name", ["lda", "qda", "nb", "logreg", "svm"])
def test_a_subclass_overriding_retraining_losses_gets_its_own_future_losses(name):
    """The built-ins' future-only path (``future_retraining_losses``) is bypassed for a subclass that overrides
    ``retraining_losses``: its future losses are the subclass's, bit for bit, and not the built-in's."""
    from mri_theory.classifiers import get_classifier
    from mri_theory.problems import get_problem

    builtin = type(get_classifier(name))

    class Shifted(builtin):
        def retraining_losses(self, candidates, population, loss):
            current, future = super().retraining_losses(candidates, population, loss)
            future = future.copy()
            future[0, 1] += 1e-3
            return current, future

    problem = get_problem("three-gaussians")
    rng = np.random.default_rng(5)
    X, y = problem.sample(20, rng)
    candidates = problem.sample(3, rng)[0]
    population = Population.from_problem(problem, 200, rng)
    model = Shifted().fit(X, y, problem.n_classes)
    for loss in ("error", "log"):
        own = model.future_retraining_losses(candidates, population, loss)
        np.testing.assert_array_equal(own, model.retraining_losses(candidates, population, loss)[1])
        plain = builtin.future_retraining_losses(builtin().fit(X, y, problem.n_classes), candidates, population, loss)
        assert own[0, 1] == pytest.approx(plain[0, 1] + 1e-3, abs=1e-12)
