"""scikit-learn classifiers behind the common interface (the refit path).

Every wrapper maps scikit-learn's ``classes_`` onto columns ``0..k-1`` (an
absent class gets probability 0) and, when the training data hold a single
class, predicts that class with probability 1 (scikit-learn refuses to fit).
Random forests are seeded, so a refit is deterministic.
"""

from __future__ import annotations

import functools
import threading
import warnings
from typing import Any

import numpy as np
from sklearn import base as skbase
from sklearn.ensemble import RandomForestClassifier

from mri_theory._utils import validation as check
from mri_theory.engine.contract import Classifier

__all__ = ["SklearnClassifier", "RandomForest"]


class SklearnClassifier(Classifier):
    """Any scikit-learn classifier with ``fit`` and ``predict_proba`` (a ``Pipeline`` too), refitted from a clone.

    Parameters
    ----------
    estimator : scikit-learn classifier
        Cloned (``sklearn.base.clone``) at every fit, so the template is never
        fitted; give it a ``random_state`` if it is random.  Its parameters
        are nested parameters of the wrapper: ``get_params(deep=True)`` lists
        them as ``estimator__<name>`` and ``set_params`` sets them so.

    See Also
    --------
    mri_theory.testing.check_classifier : Checks a classifier of your own against the contract.

    Examples
    --------
    Any scikit-learn classifier, here a pipeline, refitted from scratch for each retrained model:

    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from mri_theory.classifiers import SklearnClassifier
    >>> from mri_theory.problems import get_problem
    >>> X, y = get_problem("four-gaussian").sample(30, np.random.default_rng(0))
    >>> model = SklearnClassifier(make_pipeline(StandardScaler(), LogisticRegression())).fit(X, y)
    >>> model.predict_proba(X[:2]).shape, model.predict(X[:2]).tolist()
    ((2, 2), [1, 0])
    """

    name = "sklearn"

    def __init__(self, estimator: Any) -> None:
        if isinstance(estimator, Classifier) or not (hasattr(estimator, "fit") and hasattr(estimator, "predict_proba")):
            raise TypeError(f"estimator must be a scikit-learn classifier with predict_proba, got {estimator!r}")
        self.estimator = estimator

    def _make_estimator(self) -> Any:
        """A new unfitted scikit-learn estimator for one fit."""
        return skbase.clone(self.estimator)

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        self.classes_present_ = np.unique(y)
        self.model_ = None
        if self.classes_present_.size > 1:
            self.model_ = self._make_estimator().fit(X, y)

    def _predict_proba(self, X: np.ndarray) -> np.ndarray:
        out = np.zeros((X.shape[0], self.n_classes_))
        if self.model_ is None:
            out[:, self.classes_present_[0]] = 1.0
        else:
            out[:, self.classes_present_] = self.model_.predict_proba(X)
        return out


class RandomForest(SklearnClassifier):
    r"""Random forest: scikit-learn's ``RandomForestClassifier(n_estimators, random_state)``, grown without its
    per-fit overhead.

    The trees are the ones ``RandomForestClassifier(n_estimators=n_estimators,
    random_state=random_state).fit(X, y)`` grows, bit for bit, and the probabilities the ones its
    ``predict_proba`` gives (tests: exact equality on random data, ties and duplicates included).
    ``_grow_forest`` builds them with scikit-learn's own tree builder and the estimator's seeds and
    bootstrap draws, skipping only the estimator's Python work per fit (validation, a clone per tree,
    joblib): about 13 times faster on 100 points and 25 trees (``benchmarks/bench_forest.py``), which
    matters because the QBC committee and SMRI/BMRI's :math:`\theta_2` fit forests at every step.
    ``_grow_forest`` uses scikit-learn's private tree modules; where they are missing or changed, the
    estimator itself is fitted (the same results, slower) with a warning.

    Parameters
    ----------
    n_estimators : int, default 100
        Number of trees, at most ``RandomForest.MAX_TREES`` (10,000: a forest is refitted at every step of a curve, so
        a larger one would run for hours; before, ``10**9`` was accepted and fitted for ever).
    random_state : int, default 0
        The forest's seed, in ``[0, 2**32 - 1]`` (numpy's legacy seeds, which scikit-learn takes).

    Raises
    ------
    TypeError, ValueError
        ``n_estimators`` or ``random_state`` not an integer or out of its range, naming it.

    Examples
    --------
    No fast path: its retrained models are plain refits (the QBC committee's forest, and a base classifier too):

    >>> import numpy as np
    >>> from mri_theory.classifiers import RandomForest
    >>> from mri_theory.engine import has_fast_path
    >>> from mri_theory.problems import get_problem
    >>> X, y = get_problem("four-gaussian").sample(30, np.random.default_rng(0))
    >>> model = RandomForest(n_estimators=10).fit(X, y)
    >>> model.predict_proba(X[:2]).sum(axis=1).round(12).tolist(), has_fast_path(model)
    ([1.0, 1.0], False)
    """

    name = "rf"

    #: The most trees a forest may grow (``n_estimators``).
    MAX_TREES = 10_000

    def __init__(self, n_estimators: int = 100, random_state: int = 0) -> None:
        self._checked(n_estimators, random_state)
        self.n_estimators = n_estimators
        self.random_state = random_state

    @classmethod
    def _checked(cls, n_estimators: int, random_state: int) -> tuple[int, int]:
        seed = check.count(random_state, "random_state", minimum=0)
        if seed > 2**32 - 1:
            raise ValueError(f"random_state must be <= 2**32 - 1 = {2**32 - 1} (numpy's legacy seeds, which "
                             f"scikit-learn takes), got {seed}")
        return check.count(n_estimators, "n_estimators", maximum=cls.MAX_TREES), seed

    def _make_estimator(self) -> RandomForestClassifier:
        n_estimators, random_state = self._checked(self.n_estimators, self.random_state)
        return RandomForestClassifier(n_estimators=n_estimators, random_state=random_state)

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        self.classes_present_ = np.unique(y)
        self.model_ = self.trees_ = None
        if self.classes_present_.size > 1:
            self.trees_ = _grow_forest(X, y, *self._checked(self.n_estimators, self.random_state))
            if self.trees_ is None:
                self.model_ = self._make_estimator().fit(X, y)

    def _predict_proba(self, X: np.ndarray) -> np.ndarray:
        if self.trees_ is None:
            return super()._predict_proba(X)
        out = np.zeros((X.shape[0], self.n_classes_))
        out[:, self.classes_present_] = _forest_proba(self.trees_, self.classes_present_.size, X)
        return out


_INT32_MAX = np.iinfo(np.int32).max


@functools.cache
def _tree_builder() -> tuple[Any, Any, Any, Any] | None:
    """scikit-learn's private tree classes ``(Gini, BestSplitter, Tree, DepthFirstTreeBuilder)``, or None."""
    try:
        from sklearn.tree._criterion import Gini
        from sklearn.tree._splitter import BestSplitter
        from sklearn.tree._tree import DepthFirstTreeBuilder, Tree
    except ImportError:
        return None
    return Gini, BestSplitter, Tree, DepthFirstTreeBuilder


def _grow_forest(X: np.ndarray, y: np.ndarray, n_estimators: int, random_state: int) -> list | None:
    """The trees ``RandomForestClassifier(n_estimators, random_state).fit(X, y)`` grows (scikit-learn's defaults).

    As the estimator does: the tree seeds are successive ``randint(2**31 - 1)`` draws of
    ``RandomState(random_state)``; each tree's bootstrap is ``RandomState(seed).randint(0, n, n)``, passed
    as sample weights (the counts); the tree is grown by scikit-learn's ``DepthFirstTreeBuilder`` with its
    ``BestSplitter`` (``max_features = max(1, int(sqrt(d)))``, one sample per leaf, unlimited depth) and the
    Gini criterion, its splitter seeded by ``RandomState(seed)``, on ``X`` as float32 and the labels
    encoded ``0..c-1``.  The two ``RandomState`` objects (the seeds' and the trees') are this thread's,
    reseeded rather than built (:func:`_random_states`).  ``y`` must hold at least two classes.  Returns
    None (after a warning) when scikit-learn's private tree modules are missing or their signatures
    changed: the caller then fits the estimator.
    """
    builder = _tree_builder()
    if builder is None:
        _no_fast_forest("its private tree modules are missing")
        return None
    Gini, BestSplitter, Tree, DepthFirstTreeBuilder = builder
    X32 = np.asarray(X, dtype=np.float32)
    classes, encoded = np.unique(y, return_inverse=True)
    labels = np.ascontiguousarray(encoded.reshape(-1, 1), dtype=np.float64)
    n: int
    d: int
    n, d = X32.shape
    n_classes = np.array([classes.size], dtype=np.intp)
    max_features = max(1, int(np.sqrt(d)))
    seeds, stream = _random_states()
    seeds.seed(random_state)  # RandomState(random_state), without building one (about 0.1 ms each)
    trees = []
    try:
        for _ in range(n_estimators):
            seed = seeds.randint(_INT32_MAX)
            stream.seed(seed)
            weights = np.bincount(stream.randint(0, n, n).astype(np.int32), minlength=n).astype(np.float64)
            stream.seed(seed)
            splitter = BestSplitter(Gini(1, n_classes), max_features, 1, 0.0, stream, None)
            tree = Tree(d, n_classes, 1)
            DepthFirstTreeBuilder(splitter, 2, 1, 0.0, _INT32_MAX, 0.0).build(tree, X32, labels, weights, None)
            trees.append(tree)
    except TypeError as exc:
        _no_fast_forest(f"its private tree classes changed ({exc})")
        return None
    return trees


_THREAD_STATE = threading.local()


def _random_states() -> tuple[np.random.RandomState, np.random.RandomState]:
    """This thread's two ``RandomState`` objects for :func:`_grow_forest`, built once and reseeded at every use.

    ``RandomState(seed)`` and ``RandomState.seed(seed)`` set the same state (the legacy seeding, which also
    clears the cached Gaussian), but building one first draws entropy from the system: about 0.1 ms, two
    per forest.  One pair per thread, so forests grown in parallel threads never share a stream.
    """
    states = getattr(_THREAD_STATE, "random_states", None)
    if states is None:
        states = _THREAD_STATE.random_states = (np.random.RandomState(0), np.random.RandomState(0))
    return states


def _forest_proba(trees: list, n_classes: int, X: np.ndarray) -> np.ndarray:
    """``RandomForestClassifier.predict_proba`` of ``_grow_forest``'s trees: their class fractions at ``X`` (as
    float32) summed in tree order, divided by their number; ``n_classes`` columns."""
    X32 = np.asarray(X, dtype=np.float32)
    out = np.zeros((X32.shape[0], n_classes))
    for tree in trees:
        out += tree.predict(X32)[:, :n_classes]
    out /= len(trees)
    return out


def _no_fast_forest(reason: str) -> None:
    warnings.warn(f"RandomForest fits scikit-learn's RandomForestClassifier (same results, slower): {reason}",
                  RuntimeWarning, stacklevel=4)
