"""The future-loss engine (:mod:`mri_theory.engine.retraining`): fast paths against refits.

Every exact fast path (k-NN, LDA, QDA, Gaussian naive Bayes, the mean
classifier) is held to ``method="refit"`` (KNN to 1e-13: the per-point
decisions are identical and only the summation order differs; the Gaussian
family to 1e-12: rank-one updates against statistics from scratch).  The k-NN
fast path is also held to an independent naive loop that refits scikit-learn's
``KNeighborsClassifier`` and scores it with the loss written out by hand.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, settings, st
from _reference import hand_loss
from _shared import GAUSSIAN_CLASSIFIERS
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.neighbors import KNeighborsClassifier

import mri_theory.classifiers.gaussian as gaussian_module
import mri_theory.classifiers.knn as knn_module
from mri_theory.classifiers import (
    KNN,
    LDA,
    QDA,
    GaussianMeanClassifier,
    GaussianNaiveBayes,
    LogisticRegression,
    SklearnClassifier,
)
from mri_theory.engine.population import Population
from mri_theory.engine.retraining import (
    current_and_future_losses,
    current_loss,
    fit_on,
    future_losses,
)

FAST = {
    "knn1": lambda: KNN(1),
    "knn3": lambda: KNN(3),
    "knn5": lambda: KNN(5),
    "knn7": lambda: KNN(7),
    "lda": LDA,
    "qda": QDA,
    "nb": GaussianNaiveBayes,
    "mean": GaussianMeanClassifier,
}
GAUSSIAN = GAUSSIAN_CLASSIFIERS


EPS = np.finfo(float).eps


def tolerance(name):
    return 1e-13 if name.startswith("knn") else 1e-12


def gaussian_tolerance(template, X, y, C, pop):
    r"""1e-12, unless the retrained covariances are ridge-dominated.

    A Gaussian model's class scores are quadratic forms of size
    :math:`S = R^2 \|\Sigma^{-1}\| / 2` (``R`` the largest distance between any
    two points involved, means included).  The fast path's rank-one statistics
    and a refit's from-scratch statistics differ by an ulp, which moves every
    score by a few :math:`\epsilon S`, and the log loss inherits that directly.
    With well-conditioned covariances :math:`8 \epsilon S < 10^{-12}`; a class of
    one point or of identical points has covariance ``reg * I`` (default 1e-3),
    so ``S`` is 1000 times larger and so is the attainable agreement.
    ``\|\Sigma^{-1}\|`` is computed here by hand for every retrained model.
    """
    X, C = np.atleast_2d(X.T).T, np.atleast_2d(C.T).T
    d = X.shape[1]
    pts = np.vstack([X, C, pop.X])
    R2 = np.max(np.sum((pts[:, None, :] - pts[None, :, :]) ** 2, axis=-1))
    if isinstance(template, GaussianMeanClassifier):
        return max(1e-12, 8 * EPS * R2 / (2 * template.sigma**2))
    lam = np.inf
    k = pop.n_classes
    for x in C:
        for j in range(k):
            X2, y2 = np.vstack([X, x]), np.append(y, j)
            scatters = []
            for c in range(k):
                members = X2[y2 == c]
                if members.shape[0]:
                    dev = members - members.mean(axis=0)
                    scatters.append((dev.T @ dev, members.shape[0]))
            if isinstance(template, LDA):
                covs = [sum(S for S, _ in scatters) / X2.shape[0] + template.reg * np.eye(d)]
            elif isinstance(template, QDA):
                covs = [S / n + template.reg * np.eye(d) for S, n in scatters]
            else:  # naive Bayes
                covs = [np.diag(np.diag(S) / n + template.reg) for S, n in scatters]
            lam = min(lam, min(np.linalg.eigvalsh(cov)[0] for cov in covs))
    return max(1e-12, 8 * EPS * R2 / (2 * lam))


def random_problem(rng, n_train, k, n_pop, n_cand, d=2, one_hot=False):
    means = rng.normal(scale=1.5, size=(k, d))
    y = rng.integers(0, k, n_train)
    X = means[y] + rng.normal(size=(n_train, d))
    P = rng.normal(scale=2.0, size=(n_pop, d))
    rows = np.eye(k)[rng.integers(0, k, n_pop)] if one_hot else rng.dirichlet(np.ones(k), size=n_pop)
    pop = Population(P, rows, rng.uniform(0.1, 1.0, n_pop))
    C = rng.normal(scale=2.0, size=(n_cand, d))
    return X, y, C, pop


def assert_fast_equals_refit(clf_factory, X, y, C, pop, loss, tol):
    if not isinstance(clf_factory(), KNN):
        tol = max(tol, gaussian_tolerance(clf_factory(), np.asarray(X, float), np.asarray(y), np.asarray(C, float),
                                          pop))
    fast = future_losses(clf_factory(), X, y, C, pop, loss)
    refit = future_losses(clf_factory(), X, y, C, pop, loss, method="refit")
    assert fast.shape == refit.shape == (C.shape[0], pop.n_classes)
    assert np.all(np.isfinite(fast))
    np.testing.assert_allclose(fast, refit, rtol=0, atol=tol)
    return fast


# ---------------------------------------------------------------- fast paths against refits


@pytest.mark.parametrize("name", sorted(FAST))
@settings(deadline=None, derandomize=True, max_examples=15)
@given(seed=st.integers(0, 2**32 - 1), n_train=st.integers(1, 25), k=st.sampled_from([2, 3]),
       n_pop=st.integers(1, 150), n_cand=st.integers(2, 5), loss=st.sampled_from(["error", "log"]),
       one_hot=st.booleans())
def test_fast_path_equals_refit_random_data(name, seed, n_train, k, n_pop, n_cand, loss, one_hot):
    rng = np.random.default_rng(seed)
    X, y, C, pop = random_problem(rng, n_train, k, n_pop, n_cand, one_hot=one_hot)
    assert_fast_equals_refit(FAST[name], X, y, C, pop, loss, tolerance(name))


@pytest.mark.parametrize("name", sorted(FAST))
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("loss", ["error", "log"])
def test_fast_path_equals_refit_fixed_seeds(name, k, loss):
    rng = np.random.default_rng([sum(map(ord, name)), k, len(loss)])
    X, y, C, pop = random_problem(rng, 30, k, 400, 6)
    assert_fast_equals_refit(FAST[name], X, y, C, pop, loss, tolerance(name))


@pytest.mark.parametrize("name", sorted(FAST))
@pytest.mark.parametrize("loss", ["error", "log"])
def test_fast_path_equals_refit_one_dimension(name, loss):
    rng = np.random.default_rng(7)
    X, y, C, pop = random_problem(rng, 15, 2, 300, 5, d=1)
    assert_fast_equals_refit(FAST[name], X[:, 0], y, C[:, 0], pop, loss, tolerance(name))


@pytest.mark.parametrize("name", sorted(FAST))
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("loss", ["error", "log"])
def test_fast_path_single_candidate(name, k, loss):
    """One candidate (the commonest call in iterated AL) must work like several."""
    rng = np.random.default_rng(31 + k)
    X, y, C, pop = random_problem(rng, 20, k, 200, 3)
    fast_one = assert_fast_equals_refit(FAST[name], X, y, C[:1], pop, loss, tolerance(name))
    fast_all = future_losses(FAST[name](), X, y, C, pop, loss)
    np.testing.assert_allclose(fast_one, fast_all[:1], rtol=0, atol=tolerance(name))


@pytest.mark.parametrize("name", GAUSSIAN)
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("cells", [1, 2 * 150 * 2, 3 * 150 * 6])
def test_gaussian_fast_path_chunking(monkeypatch, name, k, cells):
    """Candidates scored in blocks (1, 2 or 3 at a time, leaving a remainder of 1 for 7 candidates)."""
    monkeypatch.setattr(gaussian_module, "_CHUNK_CELLS", cells)
    rng = np.random.default_rng(55 + k)
    X, y, C, pop = random_problem(rng, 20, k, 150, 7)
    for loss in ("error", "log"):
        assert_fast_equals_refit(FAST[name], X, y, C, pop, loss, 1e-12)


def test_knn_fast_path_chunking_and_tiles(monkeypatch):
    """A population large enough for several spatial tiles, with tiny memory chunks."""
    monkeypatch.setattr(knn_module, "_CHUNK_CELLS", 4096)  # ~50 population rows, ~20 candidates per block
    rng = np.random.default_rng(9)
    X, y, C, pop = random_problem(rng, 40, 3, 2000, 12)  # 2000 points: a 3 x 3 grid of tiles
    for k_nn in (1, 5):
        for loss in ("error", "log"):
            assert_fast_equals_refit(lambda k_nn=k_nn: KNN(k_nn), X, y, C, pop, loss, 1e-13)


# ---------------------------------------------------------------- k-NN with ties


@pytest.mark.parametrize("k_nn", [1, 3, 5, 7])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("loss", ["error", "log"])
def test_knn_fast_path_with_ties_on_an_integer_grid(k_nn, k, loss):
    rng = np.random.default_rng(100 * k_nn + k)
    X = rng.integers(0, 5, size=(30, 2)).astype(float)
    X = np.vstack([X, X[:6]])  # exact duplicates
    y = rng.integers(0, k, X.shape[0])
    P = rng.integers(-1, 6, size=(150, 2)).astype(float)
    pop = Population(P, rng.dirichlet(np.ones(k), size=150), rng.uniform(0.2, 1, 150))
    grid = np.array([[a, b] for a in range(-1, 6) for b in range(-1, 6)], dtype=float)
    C = np.vstack([X[:8], P[:8], grid[::3], [[2.5, 2.5]]])  # training points, population points, grid
    assert_fast_equals_refit(lambda: KNN(k_nn), X, y, C, pop, loss, 1e-13)


@settings(deadline=None, derandomize=True, max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), k_nn=st.sampled_from([1, 2, 3, 4, 5, 7]), k=st.sampled_from([2, 3]),
       n_train=st.integers(1, 20), side=st.integers(1, 4), loss=st.sampled_from(["error", "log"]))
def test_knn_fast_path_with_ties_property(seed, k_nn, k, n_train, side, loss):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, side + 1, size=(n_train, 2)).astype(float)
    y = rng.integers(0, k, n_train)
    P = rng.integers(0, side + 1, size=(60, 2)).astype(float)
    pop = Population(P, rng.dirichlet(np.ones(k), size=60))
    C = np.vstack([X[:3], P[:3], rng.integers(0, side + 1, size=(3, 2)).astype(float)])
    assert_fast_equals_refit(lambda: KNN(k_nn), X, y, C, pop, loss, 1e-13)


def test_knn_candidate_at_the_kth_distance_does_not_enter():
    """A new example comes last: equidistant with the k-th neighbour, it stays out."""
    X = np.array([[-1.0], [3.0]])
    y = np.array([0, 0])
    pop = Population(np.array([[0.0]]), [[0.0, 1.0]])  # the truth is class 1 at 0
    C = np.array([[1.0], [0.5]])  # at the 1-NN distance (1.0), strictly nearer (0.5)
    fl = future_losses(KNN(1), X, y, C, pop, "error")
    # at distance 1 the old neighbour (index 0, label 0) keeps its place: error 1 either way;
    # strictly nearer, the candidate decides: label 1 is right (0), label 0 wrong (1)
    np.testing.assert_array_equal(fl, [[1.0, 1.0], [1.0, 0.0]])
    np.testing.assert_array_equal(fl, future_losses(KNN(1), X, y, C, pop, "error", method="refit"))


# ---------------------------------------------------------------- degenerate training sets


def degenerate_cases(k):
    rng = np.random.default_rng(k)
    return {
        "one point per class": (rng.normal(size=(k, 2)), np.arange(k)),
        "class absent": (rng.normal(size=(6, 2)), np.array([0, 0, 1, 1, 0, 1])),
        "only one class": (rng.normal(size=(4, 2)), np.full(4, k - 1)),
        "single point": (rng.normal(size=(1, 2)), np.array([k - 1])),
        "identical points": (np.ones((4, 2)), np.array([0, 1, 1, 0])),
        "smaller than k": (rng.normal(size=(3, 2)), np.array([0, 1, 0])),
    }


@pytest.mark.parametrize("name", sorted(FAST))
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("case", sorted(degenerate_cases(2)))
def test_fast_path_equals_refit_degenerate_sets(name, k, case):
    X, y = degenerate_cases(k)[case]
    rng = np.random.default_rng(17)
    P = rng.normal(scale=2.0, size=(120, 2))
    pop = Population(P, rng.dirichlet(np.ones(k), size=120))
    C = np.vstack([rng.normal(scale=2.0, size=(3, 2)), X[:1]])
    for loss in ("error", "log"):
        assert_fast_equals_refit(FAST[name], X, y, C, pop, loss, tolerance(name))


# ---------------------------------------------------------------- k-NN against a naive scikit-learn loop


@pytest.mark.parametrize("k_nn", [1, 3, 5])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("loss", ["error", "log"])
def test_knn_fast_path_equals_naive_sklearn_refits(k_nn, k, loss):
    rng = np.random.default_rng(10 * k_nn + k)
    X, y, C, pop = random_problem(rng, 25, k, 300, 6)
    y[:k] = np.arange(k)  # every class in D, so scikit-learn's classes_ are 0..k-1
    expected = np.empty((C.shape[0], k))
    for i, x in enumerate(C):
        for j in range(k):
            ref = KNeighborsClassifier(n_neighbors=k_nn, algorithm="brute")
            ref.fit(np.vstack([X, x]), np.append(y, j))
            expected[i, j] = hand_loss(pop, ref.predict_proba(pop.X), loss)
    got = future_losses(KNN(k_nn), X, y, C, pop, loss)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-13)


# ---------------------------------------------------------------- the refit path and current loss


@pytest.mark.parametrize("loss", ["error", "log"])
def test_refit_path_equals_hand_refits_for_a_sklearn_model(loss):
    """The plain path for a model without a fast path: refit scikit-learn by hand."""
    rng = np.random.default_rng(12)
    X, y, C, pop = random_problem(rng, 20, 3, 100, 2)
    y[:3] = [0, 1, 2]
    got = future_losses(SklearnClassifier(SkLogisticRegression(C=1.0, max_iter=1000)), X, y, C, pop, loss)
    expected = np.empty((2, 3))
    for i, x in enumerate(C):
        for j in range(3):
            ref = SkLogisticRegression(C=1.0, max_iter=1000).fit(np.vstack([X, x]), np.append(y, j))
            expected[i, j] = hand_loss(pop, ref.predict_proba(pop.X), loss)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(FAST) + ["logreg"])
@pytest.mark.parametrize("loss", ["error", "log"])
def test_current_loss_is_the_population_loss_of_a_fitted_clone(name, loss):
    rng = np.random.default_rng(13)
    X, y, _, pop = random_problem(rng, 20, 3, 200, 1)
    template = LogisticRegression() if name == "logreg" else FAST[name]()
    fitted = template.clone().fit(X, y, 3)
    assert current_loss(template, X, y, pop, loss) == pop.loss(fitted, loss)
    assert current_loss(template, X, y, pop, loss) == pytest.approx(
        hand_loss(pop, fitted.predict_proba(pop.X), loss), rel=1e-13, abs=1e-15)
    model = fit_on(template, X, y, pop)
    assert model is not template
    assert model.n_classes_ == 3
    np.testing.assert_array_equal(model.predict_proba(pop.X), fitted.predict_proba(pop.X))


@pytest.mark.parametrize("name", sorted(FAST) + ["logreg"])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("loss", ["error", "log"])
def test_current_and_future_losses_in_one_pass(name, k, loss):
    """Both terms of Eq. eqc at once: the same numbers as current_loss and future_losses, both methods."""
    rng = np.random.default_rng(22 + k)
    X, y, C, pop = random_problem(rng, 20, k, 200, 4)
    template = (lambda: LogisticRegression()) if name == "logreg" else FAST[name]
    expected_now = current_loss(template(), X, y, pop, loss)
    for method in ("auto", "refit"):
        now, future = current_and_future_losses(template(), X, y, C, pop, loss, method=method)
        assert now == pytest.approx(expected_now, rel=1e-13, abs=1e-15)
        np.testing.assert_array_equal(future, future_losses(template(), X, y, C, pop, loss, method=method))
    # the same fitted model, scored by hand
    fitted = template().fit(X, y, k)
    assert now == pytest.approx(hand_loss(pop, fitted.predict_proba(pop.X), loss), rel=1e-13, abs=1e-15)


@pytest.mark.parametrize("name", sorted(FAST) + ["logreg"])
@pytest.mark.parametrize("method", ["auto", "refit"])
def test_current_loss_is_a_python_float(name, method):
    """The documented return type ``(current: float, future: ndarray (m, k))``."""
    rng = np.random.default_rng(24)
    X, y, C, pop = random_problem(rng, 12, 2, 50, 2)
    template = LogisticRegression() if name == "logreg" else FAST[name]()
    now, future = current_and_future_losses(template, X, y, C, pop, method=method)
    assert type(now) is float, type(now)
    assert type(current_loss(template, X, y, pop)) is float
    assert isinstance(future, np.ndarray) and future.shape == (2, 2)


@pytest.mark.parametrize("name", sorted(FAST))
def test_current_and_future_losses_degenerate_and_small(name):
    """Training sets smaller than k (k-NN's growing branch) and a single point."""
    rng = np.random.default_rng(23)
    P = rng.normal(size=(80, 2))
    pop = Population(P, rng.dirichlet([1, 1, 1], size=80))
    C = rng.normal(size=(3, 2))
    for X, y in ((rng.normal(size=(1, 2)), [2]), (rng.normal(size=(2, 2)), [0, 1])):
        for loss in ("error", "log"):
            now_fast, fut_fast = current_and_future_losses(FAST[name](), X, y, C, pop, loss)
            now_ref, fut_ref = current_and_future_losses(FAST[name](), X, y, C, pop, loss, method="refit")
            assert now_fast == pytest.approx(now_ref, rel=1e-13, abs=1e-15)
            np.testing.assert_allclose(fut_fast, fut_ref, rtol=0,
                                       atol=max(tolerance(name), 0 if name.startswith("knn") else
                                                gaussian_tolerance(FAST[name](), X, np.asarray(y), C, pop)))


def test_fit_on_uses_the_population_classes():
    rng = np.random.default_rng(14)
    X, y, _, pop = random_problem(rng, 10, 3, 20, 1)
    model = fit_on(KNN(3), X, np.minimum(y, 1), pop)  # only classes 0, 1 present
    assert model.n_classes_ == 3
    assert model.predict_proba(pop.X).shape == (20, 3)


@pytest.mark.parametrize("name", sorted(FAST))
def test_template_is_not_modified(name):
    rng = np.random.default_rng(15)
    X, y, C, pop = random_problem(rng, 15, 2, 80, 3)
    template = FAST[name]()
    params = template.get_params()
    for method in ("auto", "refit"):
        future_losses(template, X, y, C, pop, method=method)
        current_loss(template, X, y, pop)
        assert not hasattr(template, "n_classes_")
        assert template.get_params() == params
    # a fitted template keeps its own fit
    X0, y0, _, _ = random_problem(np.random.default_rng(16), 12, 2, 1, 1)
    template.fit(X0, y0, 2)
    before = template.predict_proba(pop.X).copy()
    future_losses(template, X, y, C, pop)
    future_losses(template, X, y, C, pop, method="refit")
    np.testing.assert_array_equal(template.predict_proba(pop.X), before)
    np.testing.assert_array_equal(template.X_train_, X0)
    np.testing.assert_array_equal(template.y_train_, y0)


def test_inputs_are_not_modified():
    rng = np.random.default_rng(18)
    X, y, C, pop = random_problem(rng, 15, 3, 60, 3)
    copies = (X.copy(), y.copy(), C.copy())
    for name in ("knn3", "lda"):
        future_losses(FAST[name](), X, y, C, pop, "log")
    for a, b in zip((X, y, C), copies, strict=True):
        np.testing.assert_array_equal(a, b)


def test_loss_values_are_sensible():
    """L' is a loss on the population: within [0, 1] for the error, >= 0 for log loss."""
    rng = np.random.default_rng(19)
    X, y, C, pop = random_problem(rng, 20, 3, 200, 5)
    for name in FAST:
        err = future_losses(FAST[name](), X, y, C, pop, "error")
        assert np.all((err >= 0) & (err <= 1))
        assert np.all(future_losses(FAST[name](), X, y, C, pop, "log") >= 0)


# ---------------------------------------------------------------- bad input


def test_bad_input_names_the_argument():
    rng = np.random.default_rng(20)
    X, y, C, pop = random_problem(rng, 10, 3, 30, 3)
    clf = KNN(3)
    with pytest.raises(ValueError, match="candidates"):
        future_losses(clf, X, y, np.empty((0, 2)), pop)
    with pytest.raises(ValueError, match="candidates"):
        future_losses(clf, X, y, np.zeros((2, 3)), pop)
    with pytest.raises(ValueError, match="candidates"):
        future_losses(clf, X, y, [[np.nan, 0.0]], pop)
    with pytest.raises(ValueError, match="y_train"):
        future_losses(clf, X, np.where(y == 2, 3, y), C, pop)
    with pytest.raises(ValueError, match="y_train"):
        future_losses(clf, X, np.where(y == 2, -1, y), C, pop)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="X_train"):
        future_losses(clf, bad, y, C, pop)
    with pytest.raises(ValueError, match="X_train"):
        future_losses(clf, np.zeros((10, 3)), y, C, pop)
    with pytest.raises(ValueError, match="X_train"):
        future_losses(clf, X[:5], y, C, pop)
    with pytest.raises(ValueError, match="X_train"):
        future_losses(clf, np.empty((0, 2)), np.empty(0, int), C, pop)
    with pytest.raises(ValueError, match="loss"):
        future_losses(clf, X, y, C, pop, loss="hinge")
    with pytest.raises(ValueError, match="method"):
        future_losses(clf, X, y, C, pop, method="fast")
    with pytest.raises(ValueError, match="loss"):
        current_loss(clf, X, y, pop, loss="zero-one")
    with pytest.raises(TypeError, match="classifier"):
        future_losses(KNeighborsClassifier(3), X, y, C, pop)
    with pytest.raises(TypeError, match="classifier"):
        current_loss(KNeighborsClassifier(3), X, y, pop)
    with pytest.raises(TypeError, match="population"):
        future_losses(clf, X, y, C, (pop.X, pop.proba))
    with pytest.raises(ValueError, match="candidates"):
        current_and_future_losses(clf, X, y, np.empty((0, 2)), pop)
    with pytest.raises(ValueError, match="method"):
        current_and_future_losses(clf, X, y, C, pop, method="fast")
    with pytest.raises(ValueError, match="loss"):
        current_and_future_losses(clf, X, y, C, pop, loss="hinge")
    with pytest.raises(TypeError, match="classifier"):
        current_and_future_losses(KNeighborsClassifier(3), X, y, C, pop)
