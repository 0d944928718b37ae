"""The classifier contract (:mod:`mri_theory.engine.contract`) and its check (:mod:`mri_theory.testing`).

Independent references: scikit-learn itself (``sklearn.base.clone``,
``get_params``/``set_params``, a ``Pipeline`` and ``KNeighborsClassifier``
fitted directly), ``eval`` of a classifier's ``repr``, and deliberately broken
classifiers written here, each breaking one rule by a known amount, which
:func:`check_classifier` must catch with a message naming the rule.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.base import clone as sk_clone
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import mri_theory.classifiers as classifiers
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
from mri_theory.testing import STATE_KINDS, ClassifierCheckError, check_classifier

FAST_PATHS = [name for name in list_classifiers() if name != "rf"]


def pipeline_classifier(C=1.0):
    return SklearnClassifier(make_pipeline(StandardScaler(), SkLogisticRegression(C=C)))


# ---------------------------------------------------------------- every built-in passes


@pytest.mark.parametrize("name", FAST_PATHS)
def test_builtin_classifiers_pass_the_check(name):
    report = check_classifier(get_classifier(name))
    assert report["fast path equals a refit"] <= 1e-12
    assert report["probabilities sum to 1"] <= 1e-12


@pytest.mark.parametrize("clf", [KNN(3, kernel="optimal", scale="train"), KNN(1), LDA(reg=0.5),
                                 GaussianMeanClassifier(sigma=0.5), LogisticRegression(C=100.0),
                                 SVM(C=10.0, gamma=0.5)], ids=repr)
def test_other_settings_pass_the_check(clf):
    check_classifier(clf, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2, 3])
@pytest.mark.parametrize("name", FAST_PATHS)
def test_builtin_classifiers_pass_on_more_states(name, seed):
    check_classifier(get_classifier(name), seed=seed, n_states=2 * len(STATE_KINDS), losses=("error", "log", "lc"))


@pytest.mark.slow
def test_random_forest_and_a_wrapped_pipeline_pass_the_check():
    report = check_classifier(RandomForest(n_estimators=10))
    assert np.isnan(report["fast path equals a refit"])  # no fast path of its own: the refit is the default
    check_classifier(pipeline_classifier())


def test_the_check_does_not_fit_or_change_the_classifier():
    clf = KNN(3)
    check_classifier(clf, n_states=2)
    assert not hasattr(clf, "n_classes_")
    assert clf.get_params() == {"k": 3, "kernel": "rectangular", "scale": None}


# ---------------------------------------------------------------- broken classifiers fail, naming the rule


class Uniform(Classifier):
    """Predicts the uniform distribution over the k classes (a valid classifier)."""

    name = "uniform"

    def __init__(self, width: float = 1.0) -> None:
        self.width = width

    def _fit(self, X, y):
        pass

    def _predict_proba(self, X):
        return np.full((X.shape[0], self.n_classes_), 1.0 / self.n_classes_)


class OffFastPath(LDA):
    """An LDA whose fast path is off by 1e-9 in one entry."""

    def retraining_losses(self, candidates, population, loss):
        current, future = super().retraining_losses(candidates, population, loss)
        future = future.copy()
        future[1, 0] += 1e-9
        return current, future


class FutureAloneDiffers(LDA):
    """An LDA whose future losses alone differ from its retraining losses' in one entry."""

    def future_retraining_losses(self, candidates, population, loss):
        future = super().future_retraining_losses(candidates, population, loss).copy()
        future[0, 1] += 1e-15
        return future


class NotSummingToOne(Uniform):
    def _predict_proba(self, X):
        return np.full((X.shape[0], self.n_classes_), 0.9 / self.n_classes_)


class PresentColumnsOnly(Uniform):
    """One column per class present in the training data, not per class 0..k-1."""

    def _fit(self, X, y):
        self.present_ = np.unique(y)

    def _predict_proba(self, X):
        return np.full((X.shape[0], self.present_.size), 1.0 / self.present_.size)


class CloneLosesWidth(Uniform):
    def clone(self):
        return type(self)()


class ConvertsWidth(Uniform):
    def __init__(self, width: float = 1.0) -> None:
        self.width = np.float64(width)  # a new object every time: sklearn's clone refuses it


class Noisy(Uniform):
    """Probabilities perturbed by unseeded noise: two fits differ."""

    def _fit(self, X, y):
        self.noise_ = np.random.default_rng().uniform(0.0, 0.01)

    def _predict_proba(self, X):
        p = np.full((X.shape[0], self.n_classes_), (1.0 - self.noise_) / self.n_classes_)
        p[:, 0] += self.noise_
        return p


class Remembers(Uniform):
    """A fit that keeps data from the previous fit: not a fit from scratch."""

    def _fit(self, X, y):
        self.seen_ = getattr(self, "seen_", 0) + X.shape[0]

    def _predict_proba(self, X):
        p = np.full((X.shape[0], self.n_classes_), 1.0 / self.n_classes_)
        shift = min(self.seen_, 10) / 100.0
        p[:, 0] += shift
        p[:, 1] -= shift
        return p


class MutatesParameter(Uniform):
    def _fit(self, X, y):
        self.width = self.width * 2


def test_a_valid_custom_classifier_passes():
    report = check_classifier(Uniform(width=2.0))
    assert np.isnan(report["fast path equals a refit"])


@pytest.mark.parametrize("clf, pattern", [
    (OffFastPath(), r"OffFastPath fails 'fast path equals a refit': L'\[1, 0\] = .* but the refit .* "
                    r"off by 1e-09 \(relative; tolerance 1e-12\) "
                    r"\(loss 'error', training set '2 classes, 2-D, continuous' \(seed=0\)\)"),
    (FutureAloneDiffers(), r"FutureAloneDiffers fails 'fast path equals a refit': future_retraining_losses must "
                           r"return retraining_losses' L' bit for bit \(loss 'error', training set"),
    (NotSummingToOne(), r"NotSummingToOne fails 'probabilities sum to 1': a row sums to 0.(9|89+): off by 0.1 "
                        r"\(tolerance 1e-12\)"),
    (PresentColumnsOnly(), r"PresentColumnsOnly fails 'probability columns': predict_proba gave shape \(\d+, 2\) "
                           r"for \d+ points, expected \(\d+, 3\): one column per class 0..k-1"),
    (CloneLosesWidth(width=2.0), r"CloneLosesWidth fails 'parameters': Classifier.clone changed or lost the "
                                 r"parameters \['width'\]: \{'width': 1.0\} instead of \{'width': 2.0\}"),
    (ConvertsWidth(width=2), r"ConvertsWidth fails 'parameters': sklearn.base.clone raised RuntimeError: .*"
                             r"modifies parameter width"),
    (Noisy(), r"Noisy fails 'determinism': a second fit of a clone gives other probabilities"),
    (Remembers(), r"Remembers fails 'determinism': a clone fitted on '.*' first gives other probabilities"),
    (MutatesParameter(), r"MutatesParameter fails 'determinism': fitting changed the hyper-parameters: "
                         r"\{'width': 2.0\} instead of \{'width': 1.0\}"),
], ids=lambda value: type(value).__name__ if isinstance(value, Classifier) else "")
def test_broken_classifiers_fail_with_a_clear_message(clf, pattern):
    with pytest.raises(ClassifierCheckError, match=pattern):
        check_classifier(clf)


def test_a_smaller_error_passes_a_looser_tolerance():
    check_classifier(OffFastPath(), tol=1e-8)
    with pytest.raises(AssertionError, match="off by 1e-09"):  # ClassifierCheckError is an AssertionError
        check_classifier(OffFastPath(), tol=1e-10)


def test_sklearn_knn_refusing_small_training_sets_fails_at_fit():
    """scikit-learn's k-NN refuses fewer than k points (a trap for adapters): reported with the training set."""
    with pytest.raises(ClassifierCheckError, match=r"SklearnClassifier fails 'fit': predict_proba or predict raised "
                                                   r"ValueError: Expected n_neighbors <= n_samples_fit.* after a fit "
                                                   r"on the training set"):
        check_classifier(SklearnClassifier(KNeighborsClassifier(n_neighbors=5)))


@pytest.mark.parametrize("kwargs, error, match", [
    ({"classifier": KNeighborsClassifier()}, TypeError,
     r"classifier must be an instance of a mri_theory Classifier subclass, got KNeighborsClassifier"),
    ({"seed": -1}, ValueError, r"seed must be >= 0, got -1"),
    ({"seed": 1.5}, ValueError, r"seed must be an integer"),
    ({"n_states": 0}, ValueError, r"n_states must be >= 1, got 0"),
    ({"tol": 0.0}, ValueError, r"tol must be > 0"),
    ({"tol": "tiny"}, TypeError, r"tol must be numeric"),
    ({"losses": "error"}, TypeError, r"losses must be a non-empty sequence of loss names, got 'error'"),
    ({"losses": ()}, TypeError, r"losses must be a non-empty sequence of loss names, got \(\)"),
    ({"losses": ("hinge",)}, ValueError, r"loss must be one of error, log, lc, got 'hinge'"),
])
def test_check_classifier_bad_input_names_the_argument(kwargs, error, match):
    kwargs = {"classifier": KNN(3), **kwargs}
    with pytest.raises(error, match=match):
        check_classifier(kwargs.pop("classifier"), **kwargs)


# ---------------------------------------------------------------- scikit-learn interop of every built-in

NEW_AND_BAD = {
    KNN: ({"k": 7, "kernel": "optimal"}, {"k": 0}, r"k must be >= 1, got 0"),
    LDA: ({"reg": 0.5}, {"reg": -1.0}, r"reg must be > 0"),
    QDA: ({"reg": 0.25}, {"reg": 0.0}, r"reg must be > 0"),
    GaussianNaiveBayes: ({"reg": 0.125}, {"reg": np.nan}, r"reg must be finite"),
    GaussianMeanClassifier: ({"sigma": 2.0, "prior": (0.25, 0.75)}, {"prior": (0.5, 0.6)}, r"prior must sum to 1"),
    LogisticRegression: ({"C": 3.0, "max_iter": 50}, {"max_iter": 2.5}, r"max_iter must be an integer"),
    SVM: ({"C": 2.0, "gamma": 0.5}, {"gamma": "scale"}, r"gamma must be numeric"),
    RandomForest: ({"n_estimators": 7, "random_state": 3}, {"random_state": -1}, r"random_state must be >= 0"),
}


@pytest.mark.parametrize("name", list_classifiers())
def test_sklearn_clone_get_params_and_repr(name):
    clf = get_classifier(name)
    twin = sk_clone(clf)
    assert type(twin) is type(clf) and twin is not clf
    assert twin.get_params(deep=False) == clf.get_params(deep=False) == clf.get_params(deep=True)
    assert clf.clone().get_params() == twin.get_params()
    assert repr(twin) == repr(clf)
    rebuilt = eval(repr(clf), vars(classifiers))  # the repr shows every parameter
    assert type(rebuilt) is type(clf) and rebuilt.get_params() == clf.get_params()
    # fitting the template through a clone does not fit the template
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(12, 2)), np.arange(12) % 3
    P = twin.fit(X, y, 3).predict_proba(X)
    assert not hasattr(clf, "n_classes_")
    np.testing.assert_array_equal(sk_clone(clf).fit(X, y, 3).predict_proba(X), P)


@pytest.mark.parametrize("cls", list(NEW_AND_BAD))
def test_set_params_sets_and_validates(cls):
    new, bad, match = NEW_AND_BAD[cls]
    clf = cls()
    assert clf.set_params(**new) is clf
    assert {key: clf.get_params()[key] for key in new} == new
    assert sk_clone(clf).get_params() == cls(**new).get_params()
    before = clf.get_params()
    with pytest.raises((ValueError, TypeError), match=match):
        clf.set_params(**bad)
    assert clf.get_params() == before  # a refused value leaves the classifier unchanged
    with pytest.raises(ValueError, match=r"Invalid parameter 'nope'"):
        clf.set_params(nope=1)


def test_parameters_are_stored_unchanged():
    """scikit-learn's rule: __init__ keeps the very objects it is given (conversions happen in fit)."""
    scale, prior = np.array([1.0, 2.5]), [0.25, 0.75]
    assert KNN(5, scale=scale).scale is scale
    assert GaussianMeanClassifier(prior=prior).prior is prior
    reg = np.float64(0.5)
    assert LDA(reg=reg).reg is reg
    knn = KNN(5.0, kernel="optimal", scale=scale)  # an integral float k and an array scale work in fit
    P = knn.fit(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 3.0]]), [0, 1, 1], 2).predict_proba([[0.2, 0.1]])
    assert P.shape == (1, 2) and knn.k_eff_ == 3
    assert repr(knn) == "KNN(k=5.0, kernel='optimal', scale=[1.0, 2.5])"  # arrays in full, as lists


def test_nearest_neighbour_flag_and_name_survive_clones():
    assert KNN.nearest_neighbour and KNN(21).nearest_neighbour
    for name in list_classifiers():
        assert get_classifier(name).nearest_neighbour == isinstance(get_classifier(name), KNN)
    clf = LDA(reg=0.5)
    clf.name = "lda-wide"
    assert sk_clone(clf).name == clf.clone().name == "lda-wide"
    assert LDA().name == "lda"


# ---------------------------------------------------------------- SklearnClassifier wraps scikit-learn


def test_sklearn_classifier_has_no_per_wrapper_overrides():
    for cls in (SklearnClassifier, RandomForest):
        assert "get_params" not in vars(cls) and "clone" not in vars(cls) and "set_params" not in vars(cls)


def test_wrapped_pipeline_is_cloned_by_sklearn_and_fits_like_the_pipeline():
    wrapped = pipeline_classifier(C=3.0)
    twin = sk_clone(wrapped)
    assert twin.estimator is not wrapped.estimator
    assert twin.get_params()["estimator__logisticregression__C"] == 3.0
    assert twin.set_params(estimator__logisticregression__C=0.5) is twin
    assert twin.estimator.steps[1][1].C == 0.5 and wrapped.estimator.steps[1][1].C == 3.0
    rng = np.random.default_rng(8)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] + rng.normal(scale=0.5, size=30) > 0, 3, 1)  # classes 1 and 3 of 0..3
    P = twin.fit(X, y, 4).predict_proba(X)
    direct = make_pipeline(StandardScaler(), SkLogisticRegression(C=0.5)).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(P[:, [0, 2]], 0.0)
    np.testing.assert_allclose(P[:, [1, 3]], direct, rtol=0, atol=1e-15)
    assert not hasattr(wrapped.estimator, "classes_")  # the template pipeline is never fitted
    assert "\n" not in repr(wrapped) and "..." not in repr(wrapped)


def test_wrapped_knn_is_cloned_by_sklearn():
    wrapped = SklearnClassifier(KNeighborsClassifier(n_neighbors=3))
    twin = sk_clone(wrapped)
    assert type(twin.estimator) is KNeighborsClassifier and twin.estimator is not wrapped.estimator
    assert twin.get_params()["estimator__n_neighbors"] == 3
    rng = np.random.default_rng(9)
    X, y = rng.normal(size=(20, 2)), np.arange(20) % 2
    P = twin.fit(X, y, 2).predict_proba(X)
    np.testing.assert_array_equal(P, KNeighborsClassifier(n_neighbors=3).fit(X, y).predict_proba(X))
    assert repr(twin) == "SklearnClassifier(estimator=KNeighborsClassifier(n_neighbors=3))"


def test_long_estimator_reprs_are_not_truncated():
    """scikit-learn cuts reprs beyond 700 characters; a classifier's repr is a run's record, so it is kept whole."""
    weights = {j: j + 1 / 3 for j in range(29)}
    pipeline = make_pipeline(StandardScaler(), SkLogisticRegression(C=7.0, class_weight=weights))
    assert "..." in repr(pipeline)  # scikit-learn's own repr is cut
    text = repr(SklearnClassifier(pipeline))
    assert len(text) > 700 and "..." not in text and "\n" not in text
    assert "class_weight={0: 0.3333333333333333, 1: 1.3333333333333333," in text and "28: 28.333333333333332}" in text


@pytest.mark.parametrize("name", ["lda", "qda", "nb", "logreg", "svm", "kknn5"])
@pytest.mark.parametrize("loss", ["error", "log"])
def test_the_future_losses_alone_are_retraining_losses_future_bit_for_bit(name, loss):
    """``future_retraining_losses`` (what SMRI, BMRI and EfeLc call) skips the current loss, nothing else: on a
    bootstrap resample (repeated points) with a sampled population, and on the exact truth where there is one."""
    from mri_theory.engine.population import Population
    from mri_theory.problems import get_problem

    problem = get_problem("three-gaussians")
    rng = np.random.default_rng(3)
    X, y = problem.sample(30, rng)
    draw = rng.integers(0, 30, size=30)
    candidates = problem.sample(8, rng)[0]
    model = get_classifier(name).fit(X[draw], y[draw], problem.n_classes)
    populations = [Population.from_problem(problem, 500, rng)]
    if model.exact_truth:
        populations.append(Population.exact(problem))
    for population in populations:
        _, future = model.retraining_losses(candidates, population, loss)
        np.testing.assert_array_equal(model.future_retraining_losses(candidates, population, loss), future)


# ---------------------------------------------------------------- the fast-path hook (issue 37, part 5)


def _small_problem(seed: int = 4):
    """A fitted-model setting: three Gaussians, 20 training points, 3 candidates, 150 population points."""
    from mri_theory.engine.population import Population
    from mri_theory.problems import get_problem

    problem = get_problem("three-gaussians")
    rng = np.random.default_rng(seed)
    X, y = problem.sample(20, rng)
    candidates = problem.sample(3, rng)[0]
    return problem, X, y, candidates, Population.from_problem(problem, 150, rng)


class HookedUniform(Uniform):
    """Overrides only the fast-path hook, with a recognisable (wrong) value: 0.25 + 0.125 i + j / 64."""

    calls: list[tuple[int, str]] = []

    def _future_losses(self, candidates, population, loss):
        HookedUniform.calls.append((candidates.shape[0], loss))
        m, k = candidates.shape[0], self.n_classes_
        return 0.25 + 0.125 * np.arange(m)[:, None] + np.arange(k)[None, :] / 64


class RefitHook(Uniform):
    """A correct fast path through the hook: the refit written out here."""

    def _future_losses(self, candidates, population, loss):
        out = np.empty((candidates.shape[0], self.n_classes_))
        for i, x in enumerate(candidates):
            for j in range(self.n_classes_):
                refit = self.clone().fit(np.vstack([self.X_train_, x]), np.append(self.y_train_, j), self.n_classes_)
                out[i, j] = population.loss(refit, loss)
        return out


class OffHook(RefitHook):
    """The hook off by 1e-9 in one entry."""

    def _future_losses(self, candidates, population, loss):
        future = super()._future_losses(candidates, population, loss)
        future[1, 0] += 1e-9
        return future


class OwnRetraining(Uniform):
    """Overrides only ``retraining_losses`` (the contract of 0.1), with a recognisable L'."""

    def retraining_losses(self, candidates, population, loss):
        from mri_theory.engine import check_retraining_args

        candidates, population, loss = check_retraining_args(self, candidates, population, loss)
        return population.loss(self, loss), np.full((candidates.shape[0], self.n_classes_), 0.5)


def test_a_subclass_overriding_only_the_hook_gets_both_retraining_methods_from_it():
    """``retraining_losses`` is the population loss and the hook's L'; ``future_retraining_losses`` the hook's L'
    alone; both validate their arguments first, with the base class's messages."""
    problem, X, y, candidates, population = _small_problem()
    model = HookedUniform().fit(X, y, problem.n_classes)
    expected = 0.25 + 0.125 * np.arange(3)[:, None] + np.arange(3)[None, :] / 64
    HookedUniform.calls.clear()
    current, future = model.retraining_losses(candidates.tolist(), population, "log")  # array_like validated
    assert current == population.loss(model, "log")
    np.testing.assert_array_equal(future, expected)
    np.testing.assert_array_equal(model.future_retraining_losses(candidates, population, "error"), expected)
    assert HookedUniform.calls == [(3, "log"), (3, "error")]
    for method in (model.retraining_losses, model.future_retraining_losses):
        with pytest.raises(ValueError, match=r"candidates must have 2 columns \(the training dimension\), got 1"):
            method(candidates[:, :1], population, "error")
        with pytest.raises(ValueError, match=r"loss must be one of error, log, lc, got 'hinge'"):
            method(candidates, population, "hinge")
    assert HookedUniform.calls == [(3, "log"), (3, "error")]  # never reached with bad arguments


def test_check_classifier_detects_a_fast_path_through_the_hook():
    from mri_theory.engine import has_fast_path

    assert has_fast_path(RefitHook) and has_fast_path(RefitHook()) and has_fast_path(OffHook)
    report = check_classifier(RefitHook(), n_states=2)
    assert report["fast path equals a refit"] == 0.0  # checked (not nan): the same refits
    with pytest.raises(ClassifierCheckError, match=r"OffHook fails 'fast path equals a refit': L'\[1, 0\] = .* "
                                                   r"off by 1e-09 \(relative; tolerance 1e-12\)"):
        check_classifier(OffHook())


def test_a_subclass_overriding_only_retraining_losses_gets_its_future_losses_from_it():
    """The contract of 0.1 still works: ``future_retraining_losses`` is the override's L', and it is a fast path."""
    from mri_theory.engine import has_fast_path

    problem, X, y, candidates, population = _small_problem()
    model = OwnRetraining().fit(X, y, problem.n_classes)
    for loss in ("error", "log"):
        np.testing.assert_array_equal(model.future_retraining_losses(candidates, population, loss),
                                      np.full((3, 3), 0.5))
    assert has_fast_path(OwnRetraining)
    with pytest.raises(ClassifierCheckError, match=r"OwnRetraining fails 'fast path equals a refit': L'\[0, 0\] = "
                                                   r"0.5 but the refit"):
        check_classifier(OwnRetraining())


def test_has_fast_path_of_the_built_ins_and_the_plain_refit():
    from mri_theory.engine import has_fast_path

    for name in FAST_PATHS:
        assert has_fast_path(get_classifier(name)), name
    for clf in (RandomForest(), pipeline_classifier(), Uniform()):
        assert not has_fast_path(clf) and not has_fast_path(type(clf))
    assert has_fast_path(OffFastPath) and has_fast_path(FutureAloneDiffers)  # LDA's hook, inherited
    for bad, shown in [(KNeighborsClassifier(), r"KNeighborsClassifier"), (KNeighborsClassifier,
                                                                             r"KNeighborsClassifier \(a class\)")]:
        with pytest.raises(TypeError, match=rf"classifier must be a mri_theory Classifier or a subclass of it, "
                                            rf"got {shown}"):
            has_fast_path(bad)


@pytest.mark.parametrize("name", list_classifiers())
def test_every_registered_classifier_gives_the_same_future_losses_both_ways(name):
    """For every registered classifier (found in the registry), ``future_retraining_losses`` is
    ``retraining_losses(...)[1]`` bit for bit, on a sampled population and on the exact truth where there is one;
    bad arguments raise the same error from both."""
    from mri_theory.engine.population import Population

    problem, X, y, candidates, population = _small_problem(seed=7)
    model = get_classifier(name).fit(X, y, problem.n_classes)
    populations = [population] + ([Population.exact(problem)] if model.exact_truth else [])
    losses = ("error",) if isinstance(model, RandomForest) else ("error", "log")  # the forest's refits are slow
    for pop in populations:
        for loss in losses:
            _, future = model.retraining_losses(candidates, pop, loss)
            alone = model.future_retraining_losses(candidates, pop, loss)
            assert alone.shape == (3, problem.n_classes)
            np.testing.assert_array_equal(alone, future)
    bad = [(candidates[:, :1], population, "error"), (candidates, population, "hinge"),
           (candidates, Population(population.X, np.full((population.size, 2), 0.5)), "error")]
    if type(model)._retraining_args is not Classifier._retraining_args:  # checks of its own (coordinates' size)
        bad += [(candidates * 1e200, population, "error"), (candidates, Population(population.X * 1e200,
                                                                                    population.proba), "error")]
    for args in bad:
        with pytest.raises((ValueError, TypeError)) as both:
            model.retraining_losses(*args)
        with pytest.raises(type(both.value), match=f"^{re.escape(str(both.value))}$"):
            model.future_retraining_losses(*args)
