"""scikit-learn classifiers behind the common interface (the refit path).

Every wrapper maps scikit-learn's ``classes_`` onto columns ``0..k-1`` (an
absent class gets probability 0) and, when the training data hold a single
class, predicts that class with probability 1 (scikit-learn refuses to fit).
Random forests are seeded, so a refit is deterministic.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import optimize, special
from sklearn import base as skbase
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression as _SkLogisticRegression
from sklearn.svm import SVC

from mri_theory import _validation as check
from mri_theory.classifiers.base import Classifier

__all__ = ["SklearnClassifier", "LogisticRegression", "SVM", "RandomForest", "platt_sigmoid"]


class SklearnClassifier(Classifier):
    """Any scikit-learn classifier with ``fit`` and ``predict_proba``, refitted from a clone.

    Parameters
    ----------
    estimator : scikit-learn classifier
        Cloned (``sklearn.base.clone``) at every fit; give it a
        ``random_state`` if it is random.
    """

    name = "sklearn"

    def __init__(self, estimator: Any) -> None:
        if isinstance(estimator, Classifier) or not (hasattr(estimator, "fit") and hasattr(estimator, "predict_proba")):
            raise TypeError(f"estimator must be a scikit-learn classifier with predict_proba, got {estimator!r}")
        self.estimator = estimator

    def clone(self) -> "SklearnClassifier":
        return type(self)(skbase.clone(self.estimator))

    def _make_estimator(self) -> Any:
        return skbase.clone(self.estimator)

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        self.classes_present_ = np.unique(y)
        self.model_ = None
        if self.classes_present_.size > 1:
            self.model_ = self._make_estimator().fit(X, y)

    def _raw_proba(self, X: np.ndarray) -> np.ndarray:
        return self.model_.predict_proba(X)

    def _predict_proba(self, X: np.ndarray) -> np.ndarray:
        out = np.zeros((X.shape[0], self.n_classes_))
        if self.model_ is None:
            out[:, self.classes_present_[0]] = 1.0
        else:
            out[:, self.classes_present_] = self._raw_proba(X)
        return out


class LogisticRegression(SklearnClassifier):
    """Multinomial logistic regression (scikit-learn, L2, ``C = 1``)."""

    name = "logreg"

    def __init__(self, C: float = 1.0) -> None:
        self.C = check.positive_scalar(C, "C")
        self.estimator = _SkLogisticRegression(C=self.C, max_iter=1000)

    def get_params(self) -> dict[str, Any]:
        return {"C": self.C}

    def clone(self) -> "LogisticRegression":
        return LogisticRegression(self.C)


class RandomForest(SklearnClassifier):
    """Random forest (scikit-learn), seeded so refits are deterministic."""

    name = "rf"

    def __init__(self, n_estimators: int = 100, random_state: int = 0) -> None:
        self.n_estimators = check.count(n_estimators, "n_estimators")
        self.random_state = check.count(random_state, "random_state", minimum=0)
        self.estimator = RandomForestClassifier(n_estimators=self.n_estimators, random_state=self.random_state)

    def get_params(self) -> dict[str, Any]:
        return {"n_estimators": self.n_estimators, "random_state": self.random_state}

    def clone(self) -> "RandomForest":
        return RandomForest(**self.get_params())


def platt_sigmoid(decision: np.ndarray, positive: np.ndarray) -> tuple[float, float]:
    r"""Platt's (1999) sigmoid :math:`P(y=1|f) = 1 / (1 + e^{A f + B})` fitted to decision values.

    Uses Platt's regularised targets :math:`(N_+ + 1)/(N_+ + 2)` and
    :math:`1/(N_- + 2)`, which keep the fit finite on tiny or separable data.
    Returns ``(A, B)``.
    """
    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    target = np.where(positive, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

    def nll(ab: np.ndarray) -> tuple[float, np.ndarray]:
        z = ab[0] * decision + ab[1]
        # -log P(y=1) = log(1 + e^z); -log P(y=0) = log(1 + e^-z)
        value = np.sum(target * np.logaddexp(0, z) + (1 - target) * np.logaddexp(0, -z))
        g = target - special.expit(-z)  # d value / dz
        return float(value), np.array([np.sum(g * decision), np.sum(g)])

    start = np.array([0.0, np.log((n_neg + 1) / (n_pos + 1))])  # Platt's starting point
    res = optimize.minimize(nll, start, jac=True, method="BFGS")
    return float(res.x[0]), float(res.x[1])


class SVM(SklearnClassifier):
    r"""Support vector machine, RBF kernel (scikit-learn ``SVC``), Platt-calibrated probabilities.

    One sigmoid per class (one-vs-rest decision values) is fitted with
    :func:`platt_sigmoid` on the training data; the ``k`` calibrated
    probabilities are normalised to sum to 1.  This works on tiny training
    sets (no internal cross-validation) and is deterministic.

    Parameters
    ----------
    C : float, default 1
    gamma : float or "scale", default "scale"
    """

    name = "svm"

    def __init__(self, C: float = 1.0, gamma: float | str = "scale") -> None:
        self.C = check.positive_scalar(C, "C")
        self.gamma = gamma if gamma == "scale" else check.positive_scalar(gamma, "gamma")
        self.estimator = SVC(C=self.C, gamma=self.gamma, kernel="rbf", decision_function_shape="ovr")

    def get_params(self) -> dict[str, Any]:
        return {"C": self.C, "gamma": self.gamma}

    def clone(self) -> "SVM":
        return SVM(**self.get_params())

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        super()._fit(X, y)
        if self.model_ is not None:
            decision = self._decision(X)
            self.sigmoids_ = [platt_sigmoid(decision[:, i], y == c) for i, c in enumerate(self.classes_present_)]

    def _decision(self, X: np.ndarray) -> np.ndarray:
        d = self.model_.decision_function(X)
        return np.column_stack([-d, d]) if d.ndim == 1 else d

    def _raw_proba(self, X: np.ndarray) -> np.ndarray:
        decision = self._decision(X)
        p = np.column_stack([special.expit(-(a * decision[:, i] + b)) for i, (a, b) in enumerate(self.sigmoids_)])
        return p / p.sum(axis=1, keepdims=True)
