"""``RandomForest`` grows exactly scikit-learn's ``RandomForestClassifier`` (``_grow_forest``, ``_forest_proba``).

Independent reference: ``RandomForestClassifier(n_estimators, random_state)`` itself, fitted on the same
data: the same trees (thresholds, features, values) and the same probabilities, bit for bit; and the
fallback to it when scikit-learn's private tree classes are missing or changed.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from _optional import given, settings, st
from sklearn.ensemble import RandomForestClassifier

from mri_theory.classifiers import RandomForest, sklearn_models
from mri_theory.classifiers.sklearn_models import _forest_proba, _grow_forest


def data(seed: int, n: int, d: int, k: int, rounded: bool):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if rounded:  # ties in every coordinate, duplicated points
        X = np.round(X, 1)
    y = rng.integers(0, k, n)
    y[:2] = [0, k - 1]  # two classes at least
    return X, y, rng.normal(size=(30, d))


@settings(deadline=None, derandomize=True, max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 60), d=st.integers(1, 3), k=st.integers(2, 4),
       rounded=st.booleans(), trees=st.integers(1, 30), random_state=st.integers(0, 2**31 - 1))
def test_probabilities_equal_the_estimators_bit_for_bit(seed, n, d, k, rounded, trees, random_state):
    X, y, Q = data(seed, n, d, k, rounded)
    ours = RandomForest(n_estimators=trees, random_state=random_state).fit(X, y, k + 1).predict_proba(Q)
    theirs = RandomForestClassifier(n_estimators=trees, random_state=random_state).fit(X, y)
    expected = np.zeros((Q.shape[0], k + 1))  # class k never present: probability 0
    expected[:, theirs.classes_] = theirs.predict_proba(Q)
    np.testing.assert_array_equal(ours, expected)


@pytest.mark.parametrize("seed", range(5))
def test_the_trees_are_the_estimators(seed):
    X, y, Q = data(seed, 40, 2, 3, seed % 2 == 0)
    trees = _grow_forest(X, y, 12, seed)
    estimator = RandomForestClassifier(n_estimators=12, random_state=seed).fit(X, y)
    assert len(trees) == len(estimator.estimators_) == 12
    for ours, theirs in zip(trees, estimator.estimators_, strict=True):
        for field in ("feature", "threshold", "children_left", "children_right", "value", "n_node_samples",
                      "weighted_n_node_samples"):
            np.testing.assert_array_equal(getattr(ours, field), getattr(theirs.tree_, field), err_msg=field)
    np.testing.assert_array_equal(_forest_proba(trees, 3, Q), estimator.predict_proba(Q))


def test_missing_private_modules_fall_back_to_the_estimator(monkeypatch):
    X, y, Q = data(0, 30, 2, 2, False)
    fast = RandomForest(n_estimators=5).fit(X, y).predict_proba(Q)
    monkeypatch.setattr(sklearn_models, "_tree_builder", lambda: None)
    with pytest.warns(RuntimeWarning, match="private tree modules are missing"):
        slow = RandomForest(n_estimators=5).fit(X, y)
    assert slow.trees_ is None and isinstance(slow.model_, RandomForestClassifier)
    np.testing.assert_array_equal(slow.predict_proba(Q), fast)


def test_changed_private_classes_fall_back_to_the_estimator(monkeypatch):
    X, y, Q = data(1, 30, 2, 2, False)
    fast = RandomForest(n_estimators=5).fit(X, y).predict_proba(Q)
    Gini, BestSplitter, Tree, Builder = sklearn_models._tree_builder()

    def changed(*args):  # a constructor that takes other arguments now
        raise TypeError("__init__() takes 5 positional arguments but 7 were given")

    monkeypatch.setattr(sklearn_models, "_tree_builder", lambda: (Gini, changed, Tree, Builder))
    with pytest.warns(RuntimeWarning, match="private tree classes changed"):
        slow = RandomForest(n_estimators=5).fit(X, y)
    np.testing.assert_array_equal(slow.predict_proba(Q), fast)


def test_a_single_class_predicts_it():
    model = RandomForest(n_estimators=3).fit(np.zeros((4, 2)), np.full(4, 1), 3)
    np.testing.assert_array_equal(model.predict_proba(np.ones((2, 2))), [[0, 1, 0], [0, 1, 0]])


def test_forests_grown_in_parallel_threads_are_the_estimators():
    """The reseeded ``RandomState`` pair is per thread: forests grown at once in threads (and one after another
    in each thread, whatever was drawn before) are each the estimator's."""
    X, y, Q = data(3, 50, 2, 3, True)
    expected = {seed: RandomForestClassifier(n_estimators=8, random_state=seed).fit(X, y).predict_proba(Q)
                for seed in range(6)}

    def grow(seed: int) -> np.ndarray:
        return _forest_proba(_grow_forest(X, y, 8, seed), 3, Q)

    seeds = list(range(6)) * 3
    with ThreadPoolExecutor(3) as pool:
        for seed, proba in zip(seeds, pool.map(grow, seeds), strict=True):
            np.testing.assert_array_equal(proba, expected[seed])
    states = [None, None]

    def remember(slot: int) -> None:
        states[slot] = sklearn_models._random_states()

    for slot in range(2):
        thread = threading.Thread(target=remember, args=(slot,))
        thread.start()
        thread.join()
    assert states[0][0] is not states[1][0]


@pytest.mark.parametrize("kwargs, pattern", [
    ({"n_estimators": 10**9}, r"^n_estimators must be <= 10_000"),  # was accepted, then fitted for ever
    ({"n_estimators": RandomForest.MAX_TREES + 1}, r"^n_estimators must be <= 10_000"),
    ({"random_state": 2**40}, r"^random_state must be <= 2\*\*32 - 1"),  # was accepted, then failed in numpy
    ({"random_state": 2**32}, r"^random_state must be <= 2\*\*32 - 1"),
    ({"random_state": -1}, r"^random_state must be >= 0"),
])
def test_limits_are_refused_at_construction_naming_the_argument(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        RandomForest(**kwargs)


def test_the_largest_seed_fits_as_scikit_learns_forest():
    """random_state = 2**32 - 1, the largest numpy seed, is accepted and gives scikit-learn's forest."""
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(30, 2)), rng.integers(0, 2, 30)
    ours = RandomForest(n_estimators=5, random_state=2**32 - 1).fit(X, y, 2).predict_proba(X)
    theirs = RandomForestClassifier(n_estimators=5, random_state=2**32 - 1).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(ours, theirs)
