"""Base classifiers (:mod:`mri_theory.classifiers`) against independent computations.

Independent references: scikit-learn's ``KNeighborsClassifier``,
``LinearDiscriminantAnalysis``, ``QuadraticDiscriminantAnalysis`` and
``GaussianNB``; Gaussian class posteriors built by hand with
:class:`scipy.stats.multivariate_normal`; the closed-form §3.2 mean classifier
(:class:`mri_theory.analytic.two_gaussians.MeanClassifier`); hand-made tie cases.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, settings, st
from scipy import stats
from sklearn.discriminant_analysis import (
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier

import mri_theory.classifiers.knn as knn_module
from mri_theory.analytic.two_gaussians import MeanClassifier
from mri_theory.classifiers import (
    KNN,
    LDA,
    QDA,
    SVM,
    Classifier,
    GaussianMeanClassifier,
    GaussianNaiveBayes,
    LogisticRegression,
    RandomForest,
    SklearnClassifier,
    get_classifier,
    list_classifiers,
)

NAMES = list_classifiers()


def blobs(rng, n, k, d=2, scale=2.5, spread=1.0):
    """Gaussian blobs with every class present (labels cycle 0..k-1)."""
    means = rng.normal(scale=scale, size=(k, d))
    y = np.arange(n) % k
    X = means[y] + spread * rng.normal(size=(n, d))
    return X, y


def assert_valid_proba(P, n, k):
    assert P.shape == (n, k)
    assert np.all(np.isfinite(P))
    assert np.all(P >= 0) and np.all(P <= 1 + 1e-12)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)


# ---------------------------------------------------------------- registry


def test_registry_lists_the_documented_classifiers():
    assert sorted(NAMES) == NAMES
    for name in ("knn5", "lda", "qda", "nb", "logreg", "svm", "rf", "mean"):
        assert name in NAMES
    for name in NAMES:
        a, b = get_classifier(name), get_classifier(name)
        assert isinstance(a, Classifier)
        assert a is not b  # a new instance every call
        assert not hasattr(a, "n_classes_")


def test_get_classifier_unknown_name_lists_known_names():
    with pytest.raises(ValueError) as info:
        get_classifier("perceptron")
    message = str(info.value)
    assert "perceptron" in message
    for name in NAMES:
        assert name in message


def test_registry_builds_the_expected_types():
    assert isinstance(get_classifier("knn5"), KNN) and get_classifier("knn5").k == 5
    assert isinstance(get_classifier("lda"), LDA)
    assert isinstance(get_classifier("qda"), QDA)
    assert isinstance(get_classifier("nb"), GaussianNaiveBayes)
    assert isinstance(get_classifier("mean"), GaussianMeanClassifier)
    assert isinstance(get_classifier("logreg"), LogisticRegression)
    assert isinstance(get_classifier("svm"), SVM)
    assert isinstance(get_classifier("rf"), RandomForest)


# ---------------------------------------------------------------- the interface, every classifier


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("k", [2, 3])
def test_predict_proba_shape_rows_and_determinism(name, k):
    rng = np.random.default_rng(k)
    X, y = blobs(rng, 40, k)
    T = rng.normal(scale=3, size=(25, 2))
    clf = get_classifier(name).fit(X, y, k)
    P = clf.predict_proba(T)
    assert_valid_proba(P, 25, k)
    np.testing.assert_array_equal(clf.predict(T), np.argmax(P, axis=1))
    # two independent fits give identical output
    again = get_classifier(name).fit(X, y, k)
    np.testing.assert_array_equal(again.predict_proba(T), P)
    # refitting the same object gives identical output too
    np.testing.assert_array_equal(clf.fit(X, y, k).predict_proba(T), P)
    # fit returns self; learned state set
    assert clf.n_classes_ == k and clf.dim_ == 2


@pytest.mark.parametrize("name", NAMES)
def test_absent_class_keeps_its_column_with_probability_zero(name):
    rng = np.random.default_rng(3)
    X, y = blobs(rng, 30, 2)
    y = np.where(y == 1, 2, 0)  # classes 0 and 2 present, class 1 absent
    T = rng.normal(scale=3, size=(20, 2))
    clf = get_classifier(name).fit(X, y, 3)
    P = clf.predict_proba(T)
    assert_valid_proba(P, 20, 3)
    np.testing.assert_array_equal(P[:, 1], 0.0)
    assert set(np.unique(clf.predict(T))) <= {0, 2}


@pytest.mark.parametrize("name", NAMES)
def test_n_classes_defaults_to_max_label_plus_one(name):
    rng = np.random.default_rng(4)
    X, y = blobs(rng, 24, 3)
    clf = get_classifier(name).fit(X, y)
    assert clf.n_classes_ == 3
    assert clf.predict_proba(X).shape == (24, 3)


@pytest.mark.parametrize("name", NAMES)
def test_clone_is_unfitted_with_the_same_params(name):
    rng = np.random.default_rng(5)
    X, y = blobs(rng, 20, 2)
    clf = get_classifier(name).fit(X, y, 2)
    twin = clf.clone()
    assert type(twin) is type(clf)
    assert twin is not clf
    assert twin.get_params() == clf.get_params()
    assert not hasattr(twin, "n_classes_")
    with pytest.raises(ValueError, match="fit"):
        twin.predict_proba(X)
    # the clone fits to the same model
    np.testing.assert_array_equal(twin.fit(X, y, 2).predict_proba(X), clf.predict_proba(X))


def test_clone_keeps_non_default_params():
    assert KNN(7).clone().k == 7
    assert LDA(reg=0.5).clone().reg == 0.5
    assert QDA(reg=0.25).clone().reg == 0.25
    assert GaussianNaiveBayes(reg=0.125).clone().reg == 0.125
    m = GaussianMeanClassifier(sigma=2.0, prior=(0.25, 0.75)).clone()
    assert (m.sigma, m.prior) == (2.0, (0.25, 0.75))
    assert LogisticRegression(C=3.0).clone().C == 3.0
    s = SVM(C=2.0, gamma=0.5).clone()
    assert (s.C, s.gamma) == (2.0, 0.5)
    r = RandomForest(n_estimators=7, random_state=3).clone()
    assert (r.n_estimators, r.random_state) == (7, 3)


def test_sklearn_wrapper_clone_and_columns():
    est = GaussianNB(var_smoothing=1e-5)
    wrapped = SklearnClassifier(est)
    twin = wrapped.clone()
    assert twin.estimator is not est
    assert twin.estimator.get_params() == est.get_params()
    rng = np.random.default_rng(6)
    X, y = blobs(rng, 30, 2)
    y = np.where(y == 1, 3, 1)  # classes 1 and 3 of 0..3
    P = wrapped.fit(X, y, 4).predict_proba(X)
    assert_valid_proba(P, 30, 4)
    np.testing.assert_array_equal(P[:, [0, 2]], 0.0)
    ref = GaussianNB(var_smoothing=1e-5).fit(X, y).predict_proba(X)
    np.testing.assert_allclose(P[:, [1, 3]], ref, rtol=0, atol=1e-15)
    assert not hasattr(est, "classes_")  # the template estimator is not fitted in place
    with pytest.raises(TypeError, match="estimator"):
        SklearnClassifier(object())


# ---------------------------------------------------------------- degenerate training sets


def degenerate_sets():
    rng = np.random.default_rng(9)
    two = rng.normal(size=(2, 2))
    three = rng.normal(size=(3, 2))
    return {
        "one point per class": (three, np.array([0, 1, 2]), 3),
        "one point per class, k=2": (two, np.array([1, 0]), 2),
        "class absent": (rng.normal(size=(6, 2)), np.array([0, 0, 2, 2, 0, 2]), 3),
        "only one class": (rng.normal(size=(5, 2)), np.full(5, 1), 3),
        "identical points, two labels": (np.ones((6, 2)), np.array([0, 1, 0, 1, 0, 1]), 2),
        "identical points, one per class": (np.ones((3, 2)), np.array([2, 0, 1]), 3),
        "collinear points": (np.column_stack([np.arange(6.0), 2 * np.arange(6.0)]), np.array([0, 1] * 3), 2),
        "single training point": (rng.normal(size=(1, 2)), np.array([1]), 2),
        "single training point, k=3": (rng.normal(size=(1, 2)), np.array([2]), 3),
        "fewer points than neighbours": (rng.normal(size=(4, 2)), np.array([0, 1, 1, 2]), 3),
    }


DEGENERATE = degenerate_sets()


@pytest.mark.parametrize("case", sorted(DEGENERATE))
@pytest.mark.parametrize("name", NAMES)
def test_degenerate_training_sets_give_valid_probabilities(name, case):
    X, y, k = DEGENERATE[case]
    T = np.vstack([X, np.random.default_rng(0).normal(scale=4, size=(15, 2)), [[1e3, -1e3]]])
    clf = get_classifier(name).fit(X, y, k)
    P = clf.predict_proba(T)
    assert_valid_proba(P, T.shape[0], k)
    absent = np.setdiff1d(np.arange(k), y)
    np.testing.assert_array_equal(P[:, absent], 0.0)
    if np.unique(y).size == 1:  # a single class present: every classifier predicts it
        np.testing.assert_array_equal(clf.predict(T), y[0])


def test_knn_with_fewer_points_than_k_votes_all_of_them():
    X = np.array([[0.0], [1.0], [5.0]])
    y = np.array([0, 1, 1])
    P = KNN(5).fit(X, y, 3).predict_proba([[0.2], [100.0]])
    np.testing.assert_array_equal(P, [[1 / 3, 2 / 3, 0.0], [1 / 3, 2 / 3, 0.0]])
    assert_valid_proba(KNN(21).fit(X, y, 2).predict_proba([[3.0]]), 1, 2)


def test_qda_one_point_per_class_is_a_ridge_gaussian():
    """With one point per class QDA is N(x_i, reg I) with equal priors (the module notes)."""
    X = np.array([[0.0, 0.0], [1.0, 0.5]])
    T = np.array([[0.3, 0.1], [0.6, 0.2], [0.5, 0.25]])
    reg = 0.3
    P = QDA(reg=reg).fit(X, [0, 1], 2).predict_proba(T)
    dens = np.column_stack([stats.multivariate_normal(x, reg * np.eye(2)).pdf(T) for x in X])
    np.testing.assert_allclose(P, dens / dens.sum(axis=1, keepdims=True), rtol=1e-12)


# ---------------------------------------------------------------- k-NN against scikit-learn


@pytest.mark.parametrize("k_nn", [1, 3, 5])
@pytest.mark.parametrize("n_classes, d", [(2, 1), (2, 2), (3, 2), (3, 4)])
def test_knn_matches_sklearn(k_nn, n_classes, d):
    rng = np.random.default_rng(100 * k_nn + 10 * n_classes + d)
    X, y = blobs(rng, 60, n_classes, d=d, scale=1.0)
    T = rng.normal(scale=2, size=(300, d))
    ours = KNN(k_nn).fit(X, y, n_classes)
    ref = KNeighborsClassifier(n_neighbors=k_nn, algorithm="brute").fit(X, y)
    np.testing.assert_array_equal(ours.predict_proba(T), ref.predict_proba(T))
    np.testing.assert_array_equal(ours.predict(T), ref.predict(T))


@settings(deadline=None, derandomize=True, max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), k_nn=st.sampled_from([1, 3, 5]), n_classes=st.integers(2, 4),
       n=st.integers(5, 40))
def test_knn_matches_sklearn_property(seed, k_nn, n_classes, n):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.arange(n) % n_classes
    rng.shuffle(y)
    T = rng.normal(scale=1.5, size=(50, 2))
    ours = KNN(k_nn).fit(X, y, n_classes)
    ref = KNeighborsClassifier(n_neighbors=k_nn, algorithm="brute").fit(X, y)
    ref_proba = np.zeros((50, n_classes))
    ref_proba[:, ref.classes_] = ref.predict_proba(T)
    np.testing.assert_array_equal(ours.predict_proba(T), ref_proba)
    np.testing.assert_array_equal(ours.predict(T), ref.predict(T))


def test_knn_equidistant_neighbours_lower_index_wins():
    X = np.array([[-1.0], [1.0]])
    # the query at 0 is equidistant: the first training point is the nearer
    np.testing.assert_array_equal(KNN(1).fit(X, [1, 0], 2).predict_proba([[0.0]]), [[0.0, 1.0]])
    np.testing.assert_array_equal(KNN(1).fit(X, [0, 1], 2).predict_proba([[0.0]]), [[1.0, 0.0]])
    # three equidistant points (corners of an axis cross), k = 2: indices 0 and 1 vote
    X3 = np.array([[0.0, 2.0], [2.0, 0.0], [0.0, -2.0], [-2.0, 0.0], [9.0, 9.0]])
    clf = KNN(2).fit(X3, [2, 1, 0, 0, 0], 3)
    np.testing.assert_array_equal(clf.predict_proba([[0.0, 0.0]]), [[0.0, 0.5, 0.5]])
    assert clf.predict([[0.0, 0.0]])[0] == 1  # equal votes: the lowest label
    # the same points in another order
    clf = KNN(2).fit(X3[[2, 3, 0, 1, 4]], [0, 0, 2, 1, 0], 3)
    np.testing.assert_array_equal(clf.predict_proba([[0.0, 0.0]]), [[1.0, 0.0, 0.0]])


def test_knn_duplicate_points_lower_index_wins():
    X = np.array([[0.0], [0.0], [0.0], [3.0]])
    clf = KNN(2).fit(X, [1, 2, 0, 0], 3)
    np.testing.assert_array_equal(clf.predict_proba([[0.1], [-5.0]]), [[0.0, 0.5, 0.5]] * 2)
    np.testing.assert_array_equal(clf.predict([[0.1]]), [1])


def test_knn_equal_votes_predict_the_lowest_label():
    X = np.array([[0.0], [0.1], [0.2], [0.3]])
    clf = KNN(4).fit(X, [2, 1, 2, 1], 3)
    np.testing.assert_array_equal(clf.predict_proba([[0.0]]), [[0.0, 0.5, 0.5]])
    assert clf.predict([[0.0]])[0] == 1
    clf = KNN(3).fit(X[:3], [2, 0, 1], 3)
    np.testing.assert_array_equal(clf.predict([[0.05]]), [0])


def test_knn_rejects_bad_k():
    with pytest.raises(ValueError, match=r"^k must"):
        KNN(0)
    with pytest.raises((ValueError, TypeError), match=r"^k must"):
        KNN(2.5)


# ---------------------------------------------------------------- Gaussian models against scikit-learn


def separated(rng, k, d=3, n=300, n_test=400):
    means = rng.normal(scale=3.0, size=(k, d))
    mix = rng.normal(size=(d, d))
    y = np.arange(n) % k
    X = means[y] + rng.normal(size=(n, d)) @ mix
    T = means[rng.integers(0, k, n_test)] + 1.5 * rng.normal(size=(n_test, d))
    return X, y, T


@pytest.mark.parametrize("k", [2, 3])
def test_lda_matches_sklearn(k):
    rng = np.random.default_rng(20 + k)
    X, y, T = separated(rng, k)
    ours = LDA(reg=1e-12).fit(X, y, k)
    # sklearn's 'lsqr' solver without shrinkage uses the same covariance as ours: the
    # prior-weighted sum of the ML class covariances, sum_j (n_j/n) S_j/n_j = sum_j S_j / n,
    # and the empirical priors.  The only differences are reg = 1e-12 and rounding in
    # the linear solves of a covariance with condition number ~1e2: 1e-9 is ample.
    lsqr = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(T), lsqr.predict_proba(T), rtol=0, atol=1e-9)
    # the default 'svd' solver: the same decisions on well-separated data
    svd = LinearDiscriminantAnalysis().fit(X, y)
    np.testing.assert_array_equal(ours.predict(T), svd.predict(T))


@pytest.mark.parametrize("k", [2, 3])
def test_qda_matches_sklearn_decisions_and_hand_posterior(k):
    rng = np.random.default_rng(30 + k)
    X, y, T = separated(rng, k)
    ours = QDA(reg=1e-12).fit(X, y, k)
    P = ours.predict_proba(T)
    # sklearn's QDA uses the unbiased covariance S_j / (n_j - 1), ours the ML S_j / n_j
    # (n_j = 100 or 150: a 1 % scale change), so compare decisions where ours is not close
    # to a tie; the probabilities are checked against an ML Gaussian posterior by hand.
    ref = QuadraticDiscriminantAnalysis().fit(X, y)
    top2 = np.sort(P, axis=1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 0.2
    assert clear.mean() > 0.8
    np.testing.assert_array_equal(ours.predict(T)[clear], ref.predict(T)[clear])
    joint = np.column_stack([
        np.mean(y == j) * stats.multivariate_normal(X[y == j].mean(0), np.cov(X[y == j].T, bias=True)).pdf(T)
        for j in range(k)])
    np.testing.assert_allclose(P, joint / joint.sum(axis=1, keepdims=True), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("k", [2, 3])
def test_naive_bayes_matches_sklearn(k):
    rng = np.random.default_rng(40 + k)
    X, y, T = separated(rng, k)
    ours = GaussianNaiveBayes(reg=1e-12).fit(X, y, k)
    # var_smoothing = 0: sklearn's variances are the ML ones, like ours (reg = 1e-12 aside)
    ref = GaussianNB(var_smoothing=0.0).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(T), ref.predict_proba(T), rtol=0, atol=1e-9)
    np.testing.assert_array_equal(ours.predict(T), ref.predict(T))


def test_lda_hand_posterior_with_regularisation():
    rng = np.random.default_rng(50)
    X, y = blobs(rng, 12, 3)
    reg = 0.2
    P = LDA(reg=reg).fit(X, y, 3).predict_proba(X)
    pooled = sum(np.cov(X[y == j].T, bias=True) * np.sum(y == j) for j in range(3)) / 12 + reg * np.eye(2)
    joint = np.column_stack([np.mean(y == j) * stats.multivariate_normal(X[y == j].mean(0), pooled).pdf(X)
                             for j in range(3)])
    np.testing.assert_allclose(P, joint / joint.sum(axis=1, keepdims=True), rtol=1e-10)


def test_naive_bayes_hand_posterior_with_regularisation():
    rng = np.random.default_rng(51)
    X, y = blobs(rng, 15, 3)
    reg = 0.1
    P = GaussianNaiveBayes(reg=reg).fit(X, y, 3).predict_proba(X)
    joint = np.column_stack([
        np.mean(y == j) * np.prod(stats.norm(X[y == j].mean(0), np.sqrt(X[y == j].var(0) + reg)).pdf(X), axis=1)
        for j in range(3)])
    np.testing.assert_allclose(P, joint / joint.sum(axis=1, keepdims=True), rtol=1e-10)


# ---------------------------------------------------------------- the mean classifier


@pytest.mark.parametrize("sigma, prior", [(1.0, (0.5, 0.5)), (0.7, (0.3, 0.7)), (2.0, (0.8, 0.2))])
def test_mean_classifier_one_dimension_equals_closed_form(sigma, prior):
    offsets = np.arange(-3, 4) * 0.5  # sums to 0 exactly: the class means are exact
    X = np.concatenate([-0.75 + offsets[:5] + 0.5, 1.25 + offsets])  # class 0: 5 points, class 1: 7
    y = np.repeat([0, 1], [5, 7])
    m0, m1 = -0.75 + 0.5 + np.mean(offsets[:5]), 1.25
    clf = GaussianMeanClassifier(sigma=sigma, prior=prior).fit(X, y, 2)
    ref = MeanClassifier((m0, m1), (5, 7), sigma=sigma, prior=prior)
    x = np.linspace(-6, 6, 241)
    np.testing.assert_allclose(clf.predict_proba(x), ref.proba(x), rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(clf.predict(x), ref.predict(x))


def test_mean_classifier_hand_posterior_in_two_dimensions():
    rng = np.random.default_rng(60)
    X, y = blobs(rng, 20, 3)
    sigma, prior = 1.3, (0.2, 0.3, 0.5)
    P = GaussianMeanClassifier(sigma=sigma, prior=prior).fit(X, y, 3).predict_proba(X)
    joint = np.column_stack([prior[j] * np.exp(-np.sum((X - X[y == j].mean(0)) ** 2, axis=1) / (2 * sigma**2))
                             for j in range(3)])
    np.testing.assert_allclose(P, joint / joint.sum(axis=1, keepdims=True), rtol=1e-12)
    # default prior: uniform
    Pu = GaussianMeanClassifier().fit(X, y, 3).predict_proba(X)
    ju = np.column_stack([np.exp(-np.sum((X - X[y == j].mean(0)) ** 2, axis=1) / 2) for j in range(3)])
    np.testing.assert_allclose(Pu, ju / ju.sum(axis=1, keepdims=True), rtol=1e-12)


def test_mean_classifier_prior_validation():
    with pytest.raises(ValueError, match="prior"):
        GaussianMeanClassifier(prior=(0.5, 0.6))
    with pytest.raises(ValueError, match="prior"):
        GaussianMeanClassifier(prior=(0.5, 0.5)).fit(np.zeros((3, 1)), [0, 1, 2], 3)
    with pytest.raises(ValueError, match="sigma"):
        GaussianMeanClassifier(sigma=0.0)


@pytest.mark.parametrize("cls", [LDA, QDA, GaussianNaiveBayes])
def test_gaussian_reg_must_be_positive(cls):
    with pytest.raises(ValueError, match="reg"):
        cls(reg=0.0)
    with pytest.raises(ValueError, match="reg"):
        cls(reg=-1.0)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("name", NAMES)
def test_bad_input_names_the_argument(name):
    rng = np.random.default_rng(70)
    X, y = blobs(rng, 12, 3)
    clf = get_classifier(name)
    with pytest.raises(ValueError, match="fit"):  # predict before fit
        clf.predict_proba(X)
    with pytest.raises(ValueError, match="fit"):
        clf.predict(X)
    with pytest.raises(ValueError, match=r"^y must"):
        get_classifier(name).fit(X, np.where(y == 2, 3, y), 3)  # label 3 outside 0..2
    with pytest.raises(ValueError, match=r"^y must"):
        get_classifier(name).fit(X, np.where(y == 2, -1, y), 3)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"^X (must|entries)"):
        get_classifier(name).fit(bad, y, 3)
    with pytest.raises(ValueError, match="same length"):
        get_classifier(name).fit(X, y[:-1], 3)
    with pytest.raises(ValueError, match="n_classes"):
        get_classifier(name).fit(X, np.zeros(12, int), 1)
    clf.fit(X, y, 3)
    with pytest.raises(ValueError, match=r"^X (must|entries)"):  # wrong dimension at predict
        clf.predict_proba(np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"^X (must|entries)"):
        clf.predict(np.zeros((4, 1)))
    with pytest.raises(ValueError, match=r"^X (must|entries)"):
        clf.predict_proba([[np.nan, 0.0]])
    with pytest.raises(TypeError, match=r"^X (must|entries)"):
        clf.predict_proba("not an array")
    with pytest.raises(TypeError, match=r"^y must"):
        get_classifier(name).fit(X, np.array(["a"] * 12), 3)


# ---------------------------------------------------------------- k-d tree shortlist (large training sets)


@pytest.mark.parametrize("grid", [False, True])
@pytest.mark.parametrize("k", [1, 5, 21])
def test_knn_tree_shortlist_equals_brute_force(monkeypatch, grid, k):
    """Above ``_TREE_MIN_TRAIN`` training points neighbours come from a k-d tree shortlist; it must equal brute
    force, ties included (the threshold lowered to 64 here)."""
    monkeypatch.setattr(knn_module, "_TREE_MIN_TRAIN", 64)
    rng = np.random.default_rng(100 + k + 7 * grid)
    if grid:  # many exact distance ties and duplicated points
        X = rng.integers(0, 6, size=(200, 2)).astype(float)
        P = rng.integers(0, 6, size=(2000, 2)) + rng.choice([0.0, 0.5], size=(2000, 2))
    else:
        X, P = rng.normal(size=(200, 2)), rng.normal(size=(2000, 2))
    y = rng.integers(0, 3, 200)
    model = KNN(k).fit(X, y, 3)
    assert model.tree_ is not None
    for fast, brute in zip(model._neighbourhoods(P), model._brute_neighbourhoods(P), strict=True):
        assert np.array_equal(fast, brute)


def test_knn_large_training_set_matches_sklearn():
    rng = np.random.default_rng(5)
    X, y, P = rng.normal(size=(300, 2)), rng.integers(0, 2, 300), rng.normal(size=(1000, 2))
    ours = KNN(5).fit(X, y, 2)
    theirs = KNeighborsClassifier(5).fit(X, y)
    assert np.array_equal(ours.predict_proba(P), theirs.predict_proba(P))
