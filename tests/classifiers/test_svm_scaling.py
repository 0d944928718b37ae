"""``SVM(scale=...)``: the covariates divided per covariate before kernel values are taken (e1071's ``scale=TRUE``).

Independent references: the unscaled SVM fitted on points divided by hand (standard deviations summed in plain
Python, ``ddof = 1``) and scikit-learn's ``SVC`` (libsvm; its single-precision kernel cache: ``1e-6``) on them;
for the retrained models, refits on the divided points (``scale="train"``: the divisors recomputed by hand for
each enlarged training set) and ``method="refit"``; for the exact loss, the unscaled model's exact loss under the
mixture transformed by hand (means over ``s``, covariances over ``s s^T``) and randomised quasi-Monte Carlo
populations (scrambled Sobol', 4 standard errors); for the sensitivity reading ``"per-fit scaling"``, the same
classifiers on ``a X + b`` and the shipped raw real data against the registered standardised sets.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _optional import given, settings, st
from _svm_solver import AGREE
from sklearn.svm import SVC

from mri_theory.classifiers import KNN, SVM, get_classifier
from mri_theory.engine import Population, refit_future_losses
from mri_theory.engine.exact import MixtureTruth
from mri_theory.engine.retraining import current_and_future_losses, future_losses
from mri_theory.problems import get_problem


def hand_sd(X: np.ndarray) -> np.ndarray:
    """Each column's standard deviation with ``ddof = 1`` (R's ``sd``), summed in plain Python; 1 for a column
    constant on ``X`` (left unscaled)."""
    out = []
    for column in np.asarray(X, dtype=float).T:
        values = [float(v) for v in column]
        mean = math.fsum(values) / len(values)
        sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))
        out.append(1.0 if max(values) == min(values) else sd)
    return np.array(out)


def hand_truth(truth: MixtureTruth, s: np.ndarray) -> MixtureTruth:
    """The mixture of ``x / s`` written out component by component: means ``mu / s``, covariances
    ``Sigma_ab / (s_a s_b)``."""
    d = s.size
    covariances = np.array([[[cov[a, b] / (s[a] * s[b]) for b in range(d)] for a in range(d)]
                            for cov in truth.covariances])
    return MixtureTruth.from_arrays(truth.weights, truth.means / s[None, :], covariances, truth.labels,
                                    truth.n_classes)


def spread_data(seed: int, n: int, k: int, d: int = 3):
    """Points whose covariates have standard deviations 1, 10 and 0.1, labels of ``k`` classes, query points."""
    rng = np.random.default_rng(seed)
    scales = np.array([1.0, 10.0, 0.1])[:d]
    X = rng.normal(size=(n, d)) * scales
    y = np.digitize(X[:, 0] + 0.1 * X[:, 1] + 0.5 * rng.normal(size=n), np.linspace(-0.6, 0.6, k - 1))
    P = rng.normal(scale=1.3, size=(80, d)) * scales
    return X, y, P


# ---------------------------------------------------------------- the fitted model


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("platt", ["train", "cv"])
def test_train_scale_is_the_unscaled_svm_on_divided_coordinates(k, platt):
    X, y, P = spread_data(0, 30, k)
    sd = hand_sd(X)
    model = SVM(scale="train", platt=platt).fit(X, y, k)
    reference = SVM(platt=platt).fit(X / sd, y, k)
    np.testing.assert_allclose(model.scale_, sd, rtol=1e-14)
    assert model.gamma_ == 1 / 3  # 1 / d in the divided coordinates
    np.testing.assert_allclose(model.decision_function(P), reference.decision_function(P / sd), rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.predict_proba(P), reference.predict_proba(P / sd), rtol=0, atol=1e-12)


def test_train_scale_agrees_with_libsvm_on_the_divided_points():
    X, y, P = spread_data(1, 40, 2)
    sd = hand_sd(X)
    ref = SVC(kernel="rbf", C=1.0, gamma=1 / 3, tol=1e-12, shrinking=False).fit(X / sd, y)
    model = SVM(scale="train").fit(X, y, 2)
    np.testing.assert_allclose(model.decision_function(P)[:, 0], ref.decision_function(P / sd), atol=1e-6)
    unscaled = SVM().fit(X, y, 2)  # the scaling matters here: the raw covariates' spreads differ 100-fold
    assert np.abs(unscaled.decision_function(P) - model.decision_function(P)).max() > 0.1


@pytest.mark.parametrize("scale", [(0.5, 3.0, 0.2), np.array([0.5, 3.0, 0.2]), [2.0, 1.0, 1.0]])
def test_a_fixed_scale_is_the_unscaled_svm_on_divided_coordinates(scale):
    X, y, P = spread_data(2, 25, 3)
    s = np.asarray(scale, dtype=float)
    model = SVM(scale=scale).fit(X, y, 3)
    reference = SVM().fit(X / s, y, 3)
    np.testing.assert_array_equal(model.scale_, s)
    np.testing.assert_allclose(model.decision_function(P), reference.decision_function(P / s), rtol=0, atol=1e-13)
    np.testing.assert_allclose(model.predict_proba(P), reference.predict_proba(P / s), rtol=0, atol=1e-13)


def test_train_scale_leaves_a_constant_covariate_unscaled():
    """A covariate constant on the training set keeps divisor 1 (e1071 would then scale no covariate); a single
    training point has nothing to scale by."""
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.normal(size=25) * 4, np.full(25, 2.0), rng.normal(size=25) * 0.2])
    y = (X[:, 0] + 20 * X[:, 2] + rng.normal(size=25) > 0).astype(int)
    P = rng.normal(size=(60, 3)) * [4.0, 1.0, 0.2] + [0.0, 2.0, 0.0]  # queries off the constant value too
    sd = hand_sd(X)
    assert sd[1] == 1.0
    model = SVM(scale="train").fit(X, y, 2)
    np.testing.assert_array_equal(model.scale_[1], 1.0)
    np.testing.assert_allclose(model.predict_proba(P), SVM().fit(X / sd, y, 2).predict_proba(P / sd), rtol=0,
                               atol=1e-12)
    single = SVM(scale="train").fit(X[:1], y[:1], 2)
    np.testing.assert_array_equal(single.scale_, np.ones(3))
    np.testing.assert_array_equal(single.predict_proba(P), np.eye(2)[np.full(60, y[0])])


# ---------------------------------------------------------------- the retrained models


def _setting(name: str, n: int, m: int, seed: int, stretch=(1.0, 6.0)):
    problem = get_problem(name)
    rng = np.random.default_rng(seed)
    X, y = problem.sample(n, rng)
    candidates = np.vstack([problem.sample(m, rng)[0], X[:1]])  # a duplicate of a training point too
    population = Population.from_problem(problem, 600, rng)
    stretch = np.asarray(stretch)
    return (X * stretch, y, candidates * stretch, Population(population.X * stretch, population.proba),
            problem.n_classes)


@pytest.mark.parametrize("name, n, seed", [("four-gaussian", 20, 0), ("three-gaussians", 25, 1),
                                           ("three-gaussians", 4, 2)])
@pytest.mark.parametrize("platt", ["train", "cv"])
@pytest.mark.parametrize("loss", ["error", "log", "lc"])
def test_a_fixed_scale_keeps_the_fast_path_equal_to_refits(name, n, seed, platt, loss):
    """The solution path on the divided points: equal to ``method="refit"`` and to the unscaled SVM's fast path
    on points divided by hand."""
    X, y, candidates, population, k = _setting(name, n, 6, seed)
    s = np.array([0.5, 3.0])
    clf = SVM(platt=platt, scale=tuple(s))
    fast = current_and_future_losses(clf, X, y, candidates, population, loss)
    refit = current_and_future_losses(clf, X, y, candidates, population, loss, method="refit")
    assert fast[0] == refit[0]
    np.testing.assert_allclose(fast[1], refit[1], atol=AGREE, rtol=0)
    divided = Population(population.X / s, population.proba, population.weights)
    by_hand = future_losses(SVM(platt=platt), X / s, y, candidates / s, divided, loss)
    np.testing.assert_allclose(fast[1], by_hand, atol=1e-12, rtol=0)


@pytest.mark.parametrize("loss", ["error", "log", "lc"])
def test_train_scale_refits_with_the_divisors_of_each_enlarged_set(loss, monkeypatch):
    """Each retrained model divides by the standard deviations of its own training set (the candidate
    included): an independent loop of unscaled fits on points divided by hand; the fast path is never used."""
    X, y, candidates, population, k = _setting("three-gaussians", 15, 4, 3)
    expected = np.empty((candidates.shape[0], k))
    for i, x in enumerate(candidates):
        Xa = np.vstack([X, x])
        sd = hand_sd(Xa)
        divided = Population(population.X / sd, population.proba, population.weights)
        for j in range(k):
            expected[i, j] = divided.loss(SVM().fit(Xa / sd, np.append(y, j), k), loss)
    monkeypatch.setattr(SVM, "_solved_machines", lambda *a: (_ for _ in ()).throw(AssertionError("fast path")))
    now, got = current_and_future_losses(SVM(scale="train"), X, y, candidates, population, loss)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10)
    sd = hand_sd(X)
    assert now == pytest.approx(Population(population.X / sd, population.proba, population.weights).loss(
        SVM().fit(X / sd, y, k), loss), abs=1e-12)
    model = SVM(scale="train").fit(X, y, k)
    np.testing.assert_array_equal(model.future_retraining_losses(candidates, population, loss),
                                  refit_future_losses(model, candidates, population, loss))


@settings(deadline=None, derandomize=True, max_examples=15)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 15), k=st.integers(2, 3), m=st.integers(1, 3),
       s0=st.floats(0.05, 20.0), s1=st.floats(0.05, 20.0))
def test_scaled_fast_path_and_predictions_property(seed, n, k, m, s0, s1):
    """Any data, any fixed scale: the fast path equals refits; ``"train"`` is the unscaled SVM on the divided
    points."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) * [1.0, 8.0]
    y = rng.integers(0, k, size=n)
    candidates = rng.normal(size=(m, 2)) * [1.5, 12.0]
    population = Population(rng.normal(size=(40, 2)) * [2.0, 16.0], rng.dirichlet(np.ones(k), 40))
    model = SVM(scale=(s0, s1)).fit(X, y, k)
    for loss in ("error", "log"):
        np.testing.assert_allclose(model.future_retraining_losses(candidates, population, loss),
                                   refit_future_losses(model, candidates, population, loss), atol=AGREE, rtol=0)
    if n >= 2:
        sd = hand_sd(X)
        np.testing.assert_allclose(SVM(scale="train").fit(X, y, k).predict_proba(population.X),
                                   SVM().fit(X / sd, y, k).predict_proba(population.X / sd), atol=1e-12, rtol=0)


# ---------------------------------------------------------------- the exact loss


@pytest.mark.parametrize("scale", [(0.5, 2.0), "train"])
@pytest.mark.parametrize("loss", ["error", "log"])
def test_the_exact_loss_with_a_scale_is_the_divided_models_under_the_divided_mixture(scale, loss):
    problem = get_problem("four-gaussian")
    X, y = problem.sample(20, np.random.default_rng(4))
    model = SVM(scale=scale).fit(X, y, 2)
    s = np.asarray(scale, dtype=float) if scale != "train" else hand_sd(X)
    reference = SVM().fit(X / s, y, 2).exact_loss(hand_truth(MixtureTruth.from_problem(problem), s), loss)
    assert Population.exact(problem).loss(model, loss) == pytest.approx(reference, abs=1e-12)
    assert model.exact_loss(MixtureTruth.from_problem(problem), loss) == pytest.approx(reference, abs=1e-12)


def test_the_exact_loss_with_train_scale_is_within_four_standard_errors_of_randomised_qmc():
    """|D_S| = 60 on Four-Gaussian (covariate spreads unequal, so the scaling changes the model): 16 independent
    scrambled-Sobol' populations of 2^14 points give unbiased, i.i.d. estimates of the error rate from the
    model's own predictions at raw points; the exact loss lies within 4 standard errors of their mean."""
    problem = get_problem("four-gaussian")
    rng = np.random.default_rng(5)
    X, y = problem.sample(60, rng)
    model = SVM(scale="train").fit(X, y, 2)
    exact = Population.exact(problem).loss(model, "error")
    assert abs(exact - Population.exact(problem).loss(SVM().fit(X, y, 2), "error")) > 1e-3  # scaling matters
    values = [Population.from_problem(problem, 2**14, rng, method="qmc").loss(model, "error") for _ in range(16)]
    se = np.std(values, ddof=1) / 4
    assert abs(exact - np.mean(values)) <= 4 * se
    assert se < 2e-3


@pytest.mark.parametrize("scale", [(0.5, 2.0), "train"])
def test_exact_future_losses_with_a_scale_equal_exact_refits(scale):
    """A fixed scale: the retrained models integrated together (the family) against each refit integrated alone;
    ``"train"``: per-model exact losses, against the unscaled models on points divided by hand under the mixture
    divided by hand."""
    problem = get_problem("four-gaussian")
    rng = np.random.default_rng(6)
    X, y = problem.sample(15, rng)
    candidates = problem.sample(3, rng)[0]
    truth, population = MixtureTruth.from_problem(problem), Population.exact(problem)
    model = SVM(scale=scale).fit(X, y, 2)
    got = model.future_retraining_losses(candidates, population, "error")
    np.testing.assert_allclose(got, refit_future_losses(model, candidates, population, "error"), rtol=0, atol=1e-10)
    for i, x in enumerate(candidates):
        Xa = np.vstack([X, x])
        s = np.asarray(scale) if scale != "train" else hand_sd(Xa)
        for j in range(2):
            expected = SVM().fit(Xa / s, np.append(y, j), 2).exact_loss(hand_truth(truth, s), "error")
            assert got[i, j] == pytest.approx(expected, abs=1e-10)


# ---------------------------------------------------------------- parameters and bad input


def test_the_default_repr_is_unchanged_and_scale_is_shown_away_from_it():
    assert repr(SVM()) == "SVM(C=1.0, gamma=None)"  # the stored studies' spec (their configuration hash)
    assert repr(SVM(scale="train")) == "SVM(C=1.0, gamma=None, scale='train')"
    assert repr(SVM(platt="cv", scale=(1.0, 2.5))) == "SVM(C=1.0, gamma=None, platt='cv', scale=(1.0, 2.5))"
    model = SVM(C=2.0, scale=np.array([1, 2.5]))
    assert repr(model) == repr(model.clone()) == "SVM(C=2.0, gamma=None, scale=[1.0, 2.5])"
    assert SVM(scale="train").clone().scale == "train" and SVM().get_params()["scale"] is None


X2, Y2 = np.array([[0.0, 0.0], [1.0, 2.0], [2.0, 1.0]]), np.array([0, 1, 0])


@pytest.mark.parametrize("make, exc, pattern", [
    (lambda: SVM(scale="sd"), ValueError, r"^scale must be None, 'train' or an array"),
    (lambda: SVM(scale="Train"), ValueError, r"^scale must be None, 'train' or an array"),
    (lambda: SVM(scale=[0.0, 1.0]), ValueError, r"^scale entries must be > 0"),
    (lambda: SVM(scale=[-1.0, 2.0]), ValueError, r"^scale entries must be > 0"),
    (lambda: SVM(scale=[[1.0, 2.0]]), ValueError, r"^scale must be a 1-D array"),
    (lambda: SVM(scale=[]), ValueError, r"^scale must be a 1-D array"),
    (lambda: SVM(scale=2.0), ValueError, r"^scale must be a 1-D array"),
    (lambda: SVM(scale=[np.nan, 1.0]), ValueError, r"^scale must be finite"),
    (lambda: SVM(scale=[1e-320, 1.0]), ValueError, r"^scale entries must be at least"),
    (lambda: SVM(scale=["a", "b"]), TypeError, r"^scale must be numeric"),
    (lambda: SVM(scale=True), TypeError, r"^scale"),
    (lambda: SVM().set_params(scale="bad"), ValueError, r"^scale must be None, 'train'"),
    (lambda: SVM(scale=(1.0, 2.0, 3.0)).fit(X2, Y2), ValueError,
     r"^scale has 3 entries but the training points have 2 columns"),
    (lambda: SVM(scale=[1e-140, 1.0]).fit(X2 * 1e20, Y2), ValueError, r"^X: after dividing by scale"),
    (lambda: SVM(scale=[1e-140, 1.0]).fit(X2, Y2).predict_proba([[1e20, 0.0]]), ValueError,
     r"^X: after dividing by scale"),
    (lambda: SVM(scale=[1e-140, 1.0]).fit(X2, Y2).future_retraining_losses(
        np.array([[1e20, 0.0]]), Population(X2, np.eye(2)[Y2]), "error"), ValueError,
     r"^candidates: after dividing by scale"),
    (lambda: SVM(scale=[1e-140, 1.0]).fit(X2, Y2).future_retraining_losses(
        X2, Population(X2 * 1e20, np.eye(2)[Y2]), "error"), ValueError, r"^population: after dividing by scale"),
    (lambda: SVM(scale="train").fit(X2 * 1e-100, Y2).decision_function([[1e60, 0.0]]), ValueError,
     r"^X: after dividing by scale"),
    (lambda: SVM(scale=(1.0, 2.0)).fit(X2, Y2).exact_loss(MixtureTruth.from_problem(get_problem("two-gaussians")),
                                                          "error"), ValueError, r"^truth has dimension 1"),
])
def test_bad_inputs(make, exc, pattern):
    with warnings.catch_warnings():  # refused before any work: no numpy warning of work on bad data first
        warnings.simplefilter("error")
        with pytest.raises(exc, match=pattern):
            make()


# ---------------------------------------------------------------- the sensitivity reading "per-fit scaling"


PER_FIT = {"kknn5": lambda: KNN(5, kernel="optimal", scale="train"), "svm": lambda: SVM(scale="train")}


@pytest.mark.parametrize("label", list(PER_FIT))
def test_per_fit_scaling_models_ignore_a_prior_shift_and_scale_of_each_covariate(label):
    """The reading's claim: both classifiers take differences of covariates (translation invariant) and divide
    them by each fit's own standard deviations, which absorb any positive per-covariate factor: the models on
    ``X`` and on ``a X + b`` predict the same, so standardising the data over all rows first changes nothing."""
    X, y, P = spread_data(7, 50, 3)
    a, b = np.array([0.01, 3.0, 700.0]), np.array([5.0, -40.0, 1e4])
    for n in (6, 50):
        here = PER_FIT[label]().fit(X[:n], y[:n], 3).predict_proba(P)
        there = PER_FIT[label]().fit(a * X[:n] + b, y[:n], 3).predict_proba(a * P + b)
        np.testing.assert_allclose(here, there, rtol=0, atol=1e-9)
        np.testing.assert_array_equal(here.argmax(axis=1), there.argmax(axis=1))


@pytest.mark.parametrize("name", ["heart", "pima", "glass"])
def test_per_fit_scaling_on_the_standardised_real_data_is_per_fit_scaling_on_the_raw_data(name):
    """The registered real sets are standardised over all rows; the shipped raw files are not: on training sets
    without a constant covariate both classifiers give the same probabilities from either (to rounding)."""
    from mri_theory.problems.small_real import read_shipped

    problem = get_problem(name)
    raw, labels = read_shipped(name)
    np.testing.assert_allclose(problem.X, (raw - raw.mean(axis=0)) / raw.std(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(problem.y, np.unique(labels, return_inverse=True)[1])
    rng = np.random.default_rng(8)
    checked = 0
    for n in (8, 25, 80):
        rows = rng.permutation(raw.shape[0])
        train, test = rows[:n], rows[n:]
        if np.any(np.ptp(raw[train], axis=0) == 0):
            continue  # a covariate constant on the training set: the next test
        checked += 1
        for make in PER_FIT.values():
            k = problem.n_classes
            on_raw = make().fit(raw[train], problem.y[train], k).predict_proba(raw[test])
            on_standardised = make().fit(problem.X[train], problem.y[train], k).predict_proba(problem.X[test])
            np.testing.assert_allclose(on_raw, on_standardised, rtol=0, atol=1e-9)
    assert checked >= 2


def test_a_covariate_constant_on_the_training_set_keeps_its_prior_scale():
    """The exception the reading states: a covariate constant on a training set is not divided, so a prior
    scale of it stays.  k-NN: it adds the same amount to every distance from a query, so no neighbourhood
    changes; the SVM: it multiplies every kernel value at a query by the same factor, which the intercept does
    not share, so the probabilities change away from the constant's value."""
    rng = np.random.default_rng(9)
    X = np.column_stack([rng.normal(size=20), np.full(20, 1.0), rng.normal(size=20) * 5])
    y = (X[:, 0] + 0.2 * X[:, 2] > 0).astype(int)
    P = rng.normal(size=(50, 3)) * [1.0, 2.0, 5.0]
    a = np.array([1.0, 10.0, 1.0])
    knn = [PER_FIT["kknn5"]().fit(X * f, y, 2).predict_proba(P * f) for f in (1.0, a)]
    np.testing.assert_allclose(knn[0], knn[1], rtol=0, atol=1e-12)
    svm = [PER_FIT["svm"]().fit(X * f, y, 2).predict_proba(P * f) for f in (1.0, a)]
    assert np.abs(svm[0] - svm[1]).max() > 1e-3
    on_value = P.copy()
    on_value[:, 1] = 1.0  # at the training set's value the factor is 1 for both: the same probabilities
    np.testing.assert_allclose(PER_FIT["svm"]().fit(X, y, 2).predict_proba(on_value),
                               PER_FIT["svm"]().fit(X * a, y, 2).predict_proba(on_value * a), rtol=0, atol=1e-12)


def test_the_reading_changes_only_the_scale_of_the_registered_classifiers():
    from mri_theory.runners import RECOMPUTED
    from mri_theory.runners.sensitivity import DEFAULT_RECOMPUTED

    reading = RECOMPUTED["per-fit scaling"]
    classifiers = reading.classifiers()
    assert set(classifiers) == {"kknn5", "svm"} and reading.strategies() == {}
    for label, classifier in classifiers.items():
        registered = get_classifier(label)
        assert classifier.name == label and type(classifier) is type(registered)
        assert classifier.get_params() == {**registered.get_params(), "scale": "train"}
    assert "per-fit scaling" not in DEFAULT_RECOMPUTED  # each retrained model a refit: run only when named
    assert "Appendix C, lines 1401-1402" in reading.description and "1407-1409" in reading.description
