"""The base-classifier interface shared by every classifier and the engine.

A classifier is fitted on ``(X, y)`` with ``n_classes`` known, so
:meth:`Classifier.predict_proba` always returns ``k`` columns (classes
``0..k-1``), even when a class is absent from the training data.  Classifiers
that can be retrained fast override :meth:`Classifier.retraining_losses`; the
default refits a clone for every (candidate, class) pair, which is the plain
path every fast path is tested against.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from mri_theory import _validation as check
from mri_theory.population import Population, check_labels, check_loss, check_population

__all__ = ["Classifier", "check_points", "check_retraining_args", "refit_future_losses"]


def check_points(X: ArrayLike, name: str = "X", dim: int | None = None, min_rows: int = 0) -> np.ndarray:
    """Points as a finite float array of shape ``(n, d)`` (1-D input is ``(n, 1)``).

    Raises ``ValueError`` naming ``name`` if there are fewer than ``min_rows``
    points (checked first, so an empty input is reported as empty) or, when
    ``dim`` is given, if the points do not have ``dim`` columns.
    """
    X = check.finite_array(X, name)
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2:
        raise ValueError(f"{name} must have shape (n, d), got {X.shape}")
    if X.shape[0] < min_rows:
        raise ValueError(f"{name} must hold at least {min_rows} point{'s' if min_rows > 1 else ''}, "
                         f"got {X.shape[0]}")
    if dim is not None and X.shape[1] != dim:
        raise ValueError(f"{name} must have {dim} columns (the training dimension), got {X.shape[1]}")
    return X


class Classifier:
    """Base class: ``fit(X, y, n_classes)``, ``predict_proba``, ``predict``, ``clone``.

    Subclasses implement ``_fit(X, y)`` and ``_predict_proba(X)``; hyper-parameters
    are set in ``__init__`` (and copied by :meth:`clone`), learned state ends in ``_``.
    """

    name: str = "classifier"

    def fit(self, X: ArrayLike, y: ArrayLike, n_classes: int | None = None) -> "Classifier":
        """Fit on labelled data; ``n_classes`` defaults to ``max(y) + 1`` (at least 2).

        At least one training point is required; classes may be absent.
        """
        X = check_points(X, min_rows=1)
        if n_classes is None:
            y = check_labels(y, None)
            n_classes = max(2, int(np.max(y)) + 1) if y.size else 2
        n_classes = check.count(n_classes, "n_classes", minimum=2)
        y = check_labels(y, n_classes)
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"X and y must have the same length, got {X.shape[0]} and {y.shape[0]}")
        self.n_classes_ = n_classes
        self.dim_ = X.shape[1]
        self.X_train_, self.y_train_ = X, y
        self._fit(X, y)
        return self

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _predict_proba(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_fitted(self) -> None:
        if not hasattr(self, "n_classes_"):
            raise ValueError(f"this {type(self).__name__} is not fitted: call fit(X, y, n_classes) first")

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities, shape ``(n, n_classes)``, columns ``0..k-1``."""
        self._check_fitted()
        return self._predict_proba(check_points(X, dim=self.dim_))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Most probable class; ties go to the lowest label."""
        return np.argmax(self.predict_proba(X), axis=1)

    def get_params(self) -> dict[str, Any]:
        """Hyper-parameters (the public attributes set in ``__init__``)."""
        return {k: v for k, v in vars(self).items() if not k.endswith("_") and not k.startswith("_")}

    def clone(self) -> "Classifier":
        """An unfitted copy with the same hyper-parameters."""
        return type(self)(**copy.deepcopy(self.get_params()))

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({params})"

    def retraining_losses(self, candidates: np.ndarray, population: Population,
                          loss: str) -> tuple[float, np.ndarray]:
        """The current loss and the losses after retraining on the data plus each (candidate, class).

        Returns ``(L, L')`` with ``L'`` of shape ``(m, k)``.  The default
        refits a clone per pair (:func:`refit_future_losses`); classifiers with
        an exact fast path override it.  Called on a fitted classifier by
        :func:`mri_theory.retraining.current_and_future_losses`.
        """
        candidates, population, loss = check_retraining_args(self, candidates, population, loss)
        return population.loss(self, loss), refit_future_losses(self, candidates, population, loss)


def check_retraining_args(model: Classifier, candidates: ArrayLike, population: Any,
                          loss: Any) -> tuple[np.ndarray, Population, str]:
    """Validate the arguments of :meth:`Classifier.retraining_losses` for a fitted ``model``.

    The population must have the model's number of classes and dimension,
    the candidates the model's dimension (at least one of them).
    """
    model._check_fitted()
    population = check_population(population)
    loss = check_loss(loss)
    if population.n_classes != model.n_classes_:
        raise ValueError(f"population has {population.n_classes} classes but the classifier was fitted with "
                         f"n_classes={model.n_classes_}")
    if population.dim != model.dim_:
        raise ValueError(f"population is {population.dim}-D but the classifier was fitted on {model.dim_}-D points")
    return check_points(candidates, "candidates", dim=model.dim_, min_rows=1), population, loss


def refit_future_losses(model: Classifier, candidates: np.ndarray, population: Population,
                        loss: str) -> np.ndarray:
    """The plain path: refit on ``D ∪ (x, c_j)`` for every candidate and class, score on the population."""
    candidates, population, loss = check_retraining_args(model, candidates, population, loss)
    k = model.n_classes_
    out = np.empty((candidates.shape[0], k))
    for i, x in enumerate(candidates):
        X_new = np.vstack([model.X_train_, x[None, :]])
        for j in range(k):
            refit = model.clone().fit(X_new, np.append(model.y_train_, j), k)
            out[i, j] = population.loss(refit, loss)
    return out
