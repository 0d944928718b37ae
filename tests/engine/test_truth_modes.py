"""How the runners choose the truth (:func:`resolve_truth`, :func:`exact_truth_available`) and judge a choice made
on a sampled population (:func:`choice_is_resolved`).

Independent expectations: which (problem, classifier) pairs have an exact path is stated by the documentation
(every abstract problem is a 1-D or 2-D Gaussian mixture; LDA, QDA, naive Bayes, logistic regression and the mean
classifier are integrable, k-NN, the SVM, the random forest and user classifiers are not); the resolution of a
choice is recomputed here by hand: the documented scrambles (``scrambles`` QMC populations of ``size // scrambles``
points drawn in order from the same generator, :func:`sampled_q_c`), the true :math:`Q^c` of the two points on each
by plain refits and this file's own error rate, then the paired gaps and their z by numpy.
"""

from __future__ import annotations

import numpy as np
import pytest

from mri_theory.classifiers import LDA, Classifier, get_classifier, list_classifiers
from mri_theory.engine import Population, true_q_c
from mri_theory.engine.targets import (
    RESOLUTION_SCRAMBLES,
    RESOLUTION_Z,
    TRUTHS,
    choice_is_resolved,
    exact_truth_available,
    resolve_truth,
)
from mri_theory.problems import GaussianMixtureProblem, get_problem, initial_labelled_set

ABSTRACT = ["four-gaussian", "quadratic", "triangles", "oscillating", "sharp", "two-gaussians", "three-gaussians"]
REAL = ["wine", "breast-cancer"]
EXACT = [name for name in list_classifiers() if get_classifier(name).exact_truth]
SAMPLED = [name for name in list_classifiers() if not get_classifier(name).exact_truth]
#: classifiers with an exact path that ``truth="auto"`` does not take (``auto_exact`` False: none registered)
EXACT_ON_REQUEST = [name for name in EXACT if not get_classifier(name).auto_exact]


class Centroid(Classifier):
    """A user classifier: softmax of minus the squared distance to each class mean (no ``exact_truth``)."""

    name = "centroid"

    def _fit(self, X, y):
        self.centroids_ = np.array([X[y == c].mean(axis=0) if np.any(y == c) else np.full(X.shape[1], np.inf)
                                    for c in range(self.n_classes_)])

    def _predict_proba(self, X):
        logits = -((X[:, None, :] - self.centroids_[None]) ** 2).sum(axis=2)
        logits -= logits.max(axis=1, keepdims=True)
        weights = np.exp(logits)
        return weights / weights.sum(axis=1, keepdims=True)


def test_the_registry_has_the_classifiers_these_tests_name():
    assert {"lda", "qda", "nb", "logreg", "kknn5", "knn5", "mean", "svm"} <= set(EXACT)
    assert EXACT_ON_REQUEST == []  # every paper classifier, the SVM included, takes its exact truth by default
    assert {"rf"} <= set(SAMPLED)
    assert TRUTHS == ("auto", "exact", "sampled")


# ------------------------------------------------------------------ which truth a pair gets


@pytest.mark.parametrize("classifier", EXACT)
@pytest.mark.parametrize("problem", ABSTRACT)
def test_integrable_classifiers_on_the_abstract_problems_get_the_exact_truth(problem, classifier):
    problem, classifier = get_problem(problem), get_classifier(classifier)
    assert exact_truth_available(problem, classifier) is True
    assert resolve_truth("auto", problem, classifier) == ("exact" if classifier.auto_exact else "sampled")
    assert resolve_truth("exact", problem, classifier) == "exact"
    assert resolve_truth("sampled", problem, classifier) == "sampled"


@pytest.mark.parametrize("classifier", SAMPLED)
@pytest.mark.parametrize("problem", ABSTRACT)
def test_other_classifiers_stay_sampled_and_refuse_exact(problem, classifier):
    problem, classifier = get_problem(problem), get_classifier(classifier)
    assert exact_truth_available(problem, classifier) is False
    assert resolve_truth("auto", problem, classifier) == "sampled"
    assert resolve_truth("sampled", problem, classifier) == "sampled"
    with pytest.raises(ValueError, match="truth"):
        resolve_truth("exact", problem, classifier)


@pytest.mark.parametrize("classifier", ["lda", "logreg", "kknn5"])
@pytest.mark.parametrize("problem", REAL)
def test_real_data_is_always_sampled(problem, classifier):
    problem, classifier = get_problem(problem), get_classifier(classifier)
    assert exact_truth_available(problem, classifier) is False
    assert resolve_truth("auto", problem, classifier) == "sampled"
    with pytest.raises(ValueError, match="truth"):
        resolve_truth("exact", problem, classifier)


def test_a_user_classifier_without_an_exact_path_is_sampled():
    problem = get_problem("four-gaussian")
    assert exact_truth_available(problem, Centroid()) is False
    assert resolve_truth("auto", problem, Centroid()) == "sampled"
    with pytest.raises(ValueError, match="truth"):
        resolve_truth("exact", problem, Centroid())


def test_a_three_dimensional_mixture_is_beyond_the_exact_path():
    """The exact path integrates 1-D and 2-D mixtures (docstring): a 3-D one falls back to sampling."""
    eye = np.eye(3)[None]
    problem = GaussianMixtureProblem("cube", [([1.0], [[0.0, 0.0, 0.0]], eye), ([1.0], [[1.0, 1.0, 1.0]], eye)],
                                     [0.5, 0.5])
    assert exact_truth_available(problem, LDA()) is False
    assert resolve_truth("auto", problem, LDA()) == "sampled"
    with pytest.raises(ValueError, match="truth"):
        resolve_truth("exact", problem, LDA())


@pytest.mark.parametrize("bad", [None, 3, "Exact", "", " auto", "auto ", b"auto", ["auto"], True])
def test_bad_truth_values_are_refused_naming_the_argument(bad):
    problem = get_problem("four-gaussian")
    with pytest.raises((TypeError, ValueError), match="truth"):
        resolve_truth(bad, problem, LDA())
    with pytest.raises((TypeError, ValueError), match="--truth"):
        resolve_truth(bad, problem, LDA(), name="--truth")


# ------------------------------------------------------------------ resolution of a sampled choice, by hand


def _error(population: Population, model: Classifier) -> float:
    """Expected error rate on the population's posterior rows; a tie goes to the lowest class (1e-12 relative)."""
    proba = model.predict_proba(population.X)
    top = proba.max(axis=1, keepdims=True)
    predicted = np.argmax(proba >= top - 1e-12 * np.maximum(1.0, np.abs(top)), axis=1)
    kept = population.proba[np.arange(population.size), predicted]
    return float(np.sum(population.weights * (1.0 - kept)))


def _q_c_by_refits(problem, make, X, y, x, population) -> float:
    """Eq. eqc on one population: L(theta(D)) - sum_j p_j(x) L(theta(D + (x, j))), every model refitted."""
    k = problem.n_classes
    now = _error(population, make().fit(X, y, k))
    future = [_error(population, make().fit(np.vstack([X, x]), np.append(y, j), k)) for j in range(k)]
    return now - float(problem.posterior(x[None])[0] @ np.asarray(future))


def _by_hand(problem, make, X, y, chosen, runner_up, size, seed, largest):
    """The documented judgement, recomputed: (resolved, paired mean gap, its standard error)."""
    rng = np.random.default_rng(seed)
    values = np.empty((RESOLUTION_SCRAMBLES, 2))
    for r in range(RESOLUTION_SCRAMBLES):  # the scrambles, drawn in order from the one generator
        population = Population.from_problem(problem, size // RESOLUTION_SCRAMBLES, rng, method="qmc")
        values[r] = [_q_c_by_refits(problem, make, X, y, point, population) for point in (chosen, runner_up)]
    gaps = values[:, 0] - values[:, 1]
    if np.all(np.abs(gaps) <= 1e-12 * max(1.0, np.max(np.abs(values)))):
        return True, 0.0, 0.0  # the same Q^c on every population: an exact tie
    mean = gaps.mean() if largest else -gaps.mean()
    se = gaps.std(ddof=1) / np.sqrt(gaps.size)
    return bool(mean > RESOLUTION_Z * se), float(mean), float(se)


def _state(seed: int, n: int, m: int):
    problem = get_problem("four-gaussian")
    rng = np.random.default_rng(seed)
    X0, y0 = initial_labelled_set(problem, rng)
    X, y = problem.sample(n, rng)
    candidates, _ = problem.sample(m, rng)
    return problem, np.vstack([X0, X]), np.append(y0, y), candidates


def _judge(problem, make, X, y, chosen, runner_up, size, seed, largest):
    """choice_is_resolved and the hand computation, for the same seed; the hand margin must not be a knife edge."""
    got = choice_is_resolved(problem, make(), X, y, chosen, runner_up, size, rng=np.random.default_rng(seed),
                             largest=largest)
    expected, mean, se = _by_hand(problem, make, X, y, chosen, runner_up, size, seed, largest)
    assert abs(mean - RESOLUTION_Z * se) > 1e-9 or se == 0.0, "a knife-edge case: choose another"
    assert isinstance(got, bool)
    assert got is expected
    return got


def test_a_clear_early_lda_choice_is_resolved_and_the_reverse_choice_is_not():
    """LDA on 2 + 3 points: the candidates of largest and smallest exact Q^c differ by far more than the noise."""
    problem, X, y, candidates = _state(1, 3, 30)
    exact = true_q_c(problem, LDA(), X, y, candidates, Population.exact(problem))
    high, low = candidates[np.argmax(exact)], candidates[np.argmin(exact)]
    assert exact.max() - exact.min() > 0.02  # a clear case (the noise of 500-point scrambles is ~1e-3)
    assert _judge(problem, LDA, X, y, high, low, 4000, 5, largest=True) is True
    assert _judge(problem, LDA, X, y, low, high, 4000, 5, largest=True) is False  # the worse choice
    # largest=False (MRI-worst) mirrors it
    assert _judge(problem, LDA, X, y, low, high, 4000, 5, largest=False) is True
    assert _judge(problem, LDA, X, y, high, low, 4000, 5, largest=False) is False


def test_the_same_point_twice_is_an_exact_tie_hence_resolved():
    problem, X, y, candidates = _state(2, 6, 1)
    for largest in (True, False):
        assert choice_is_resolved(problem, LDA(), X, y, candidates[0], candidates[0].copy(), 800,
                                  rng=np.random.default_rng(0), largest=largest) is True
        assert _by_hand(problem, LDA, X, y, candidates[0], candidates[0], 800, 0, largest)[0] is True


def test_k_nn_candidates_that_change_no_neighbourhood_tie_exactly():
    """Two far points join no population point's 5 nearest neighbours: Q^c is 0 for both on every population."""
    problem, X, y, _ = _state(3, 28, 1)
    make = lambda: get_classifier("kknn5")  # noqa: E731
    far, other = np.array([40.0, 40.0]), np.array([-40.0, 40.0])
    assert _judge(problem, make, X, y, far, other, 800, 4, largest=True) is True
    assert _judge(problem, make, X, y, other, far, 800, 4, largest=False) is True


@pytest.mark.parametrize("seed", range(4))
def test_choice_is_resolved_agrees_with_the_hand_computation(seed):
    """Random pairs of candidates (close and far apart in Q^c), both orders, both directions."""
    problem, X, y, candidates = _state(10 + seed, 6 + 8 * seed, 4)
    for a, b in ((0, 1), (2, 3), (1, 3)):
        for largest in (True, False):
            forward = _judge(problem, LDA, X, y, candidates[a], candidates[b], 1600, 100 + seed, largest)
            backward = _judge(problem, LDA, X, y, candidates[b], candidates[a], 1600, 100 + seed, largest)
            assert not (forward and backward)  # distinct Q^c: a choice and its reverse are never both resolved


@pytest.mark.parametrize("seed", range(2))
def test_a_sampled_classifier_agrees_with_the_hand_computation(seed):
    problem, X, y, candidates = _state(20 + seed, 12, 3)
    make = lambda: get_classifier("kknn5")  # noqa: E731
    for a, b in ((0, 1), (1, 2)):
        for largest in (True, False):
            _judge(problem, make, X, y, candidates[a], candidates[b], 1600, 7 + seed, largest)


@pytest.mark.parametrize("kwargs, error, pattern", [
    ({"z": 0.0}, ValueError, "z"), ({"z": "3"}, TypeError, "z"), ({"largest": "yes"}, TypeError, "largest"),
    ({"chosen": [np.nan, 0.0]}, ValueError, "chosen"), ({"runner_up": [0.0, 0.0, 0.0]}, ValueError, "runner_up"),
])
def test_choice_is_resolved_refuses_bad_input_before_drawing_a_population(kwargs, error, pattern, monkeypatch):
    from mri_theory.engine import targets

    drawn = []
    monkeypatch.setattr(targets.Population, "from_problem", lambda *a, **k: drawn.append(1))
    problem = get_problem("four-gaussian")
    X, y = problem.sample(6, np.random.default_rng(0))
    args = dict(chosen=[0.0, 0.0], runner_up=[1.0, 1.0], z=3.0, largest=True)
    args.update(kwargs)
    with pytest.raises(error, match=pattern):
        choice_is_resolved(problem, get_classifier("lda"), X, y, args["chosen"], args["runner_up"], 100,
                           rng=np.random.default_rng(1), z=args["z"], largest=args["largest"])
    assert drawn == []
