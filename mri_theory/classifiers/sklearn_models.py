"""scikit-learn classifiers behind the common interface (the refit path).

Every wrapper maps scikit-learn's ``classes_`` onto columns ``0..k-1`` (an
absent class gets probability 0) and, when the training data hold a single
class, predicts that class with probability 1 (scikit-learn refuses to fit).
Random forests are seeded, so a refit is deterministic.
"""

from __future__ import annotations

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
    """Random forest (scikit-learn's ``RandomForestClassifier``), seeded so refits are deterministic.

    Parameters
    ----------
    n_estimators : int, default 100
        Number of trees.
    random_state : int, default 0
        The forest's seed (``>= 0``).
    """

    name = "rf"

    def __init__(self, n_estimators: int = 100, random_state: int = 0) -> None:
        check.count(n_estimators, "n_estimators")
        check.count(random_state, "random_state", minimum=0)
        self.n_estimators = n_estimators
        self.random_state = random_state

    def _make_estimator(self) -> RandomForestClassifier:
        return RandomForestClassifier(n_estimators=check.count(self.n_estimators, "n_estimators"),
                                      random_state=check.count(self.random_state, "random_state", minimum=0))
