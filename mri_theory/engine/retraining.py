r"""The future-loss engine: the loss vector **L'** of Table 1 for many candidates at once.

``future_losses(classifier, X_train, y_train, candidates, population)[i, j]``
is the loss on ``population`` of the classifier retrained on the training set
plus ``(candidates[i], c_j)``.  The same engine serves every use of Eq.
``eqc``: the true :math:`Q^c` (population = the problem's exact posteriors),
SMRI (population = the labelled data, one-hot), BMRI (bootstrap samples).
Classifiers with an exact fast path (k-NN, the Gaussian family) use it; any
other classifier is refitted per (candidate, class).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from mri_theory._utils.validation import check_labels
from mri_theory.engine.contract import Classifier, check_points, refit_future_losses
from mri_theory.engine.losses import check_loss
from mri_theory.engine.population import ExactPopulation, Population, check_population

__all__ = ["METHODS", "check_method", "current_and_future_losses", "current_loss", "fit_on", "future_losses"]


#: The engine's paths: its exact fast path ("auto") or a plain refit per (candidate, class).
METHODS = ("auto", "refit")


def check_method(method: Any) -> str:
    """``method`` if it is one of :data:`METHODS`; a ValueError naming ``method`` otherwise.

    Parameters
    ----------
    method : object
        The method name to check.

    Returns
    -------
    str
        ``method``.

    See Also
    --------
    mri_theory.engine.future_losses : Whose ``method`` it checks (``"auto"``: the fast path; ``"refit"``).

    Examples
    --------
    >>> from mri_theory.engine import check_method
    >>> check_method("refit")
    'refit'
    """
    if method not in METHODS:
        raise ValueError(f"method must be 'auto' or 'refit', got {method!r}")
    return method


def _check_classifier(classifier: Any) -> Classifier:
    if not isinstance(classifier, Classifier):
        raise TypeError(
            f"classifier must be an mri_theory.classifiers.Classifier (wrap scikit-learn models in "
            f"SklearnClassifier), got {type(classifier).__name__}"
        )
    return classifier


def check_training_set(X: ArrayLike, y: ArrayLike, n_classes: int, dim: int,
                       names: tuple[str, str] = ("X_train", "y_train")) -> tuple[np.ndarray, np.ndarray]:
    """A training set validated: ``X`` finite ``(n, dim)`` with ``n >= 1``, ``y`` its ``n`` labels in
    ``[0, n_classes)``; an error names the argument as the caller spells it (``names``)."""
    x_name, y_name = names
    X = check_points(X, x_name, dim=dim, min_rows=1)
    y = check_labels(y, n_classes, y_name)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"{x_name} and {y_name} must have the same length, got {X.shape[0]} and {y.shape[0]}")
    return X, y


def fit_on(classifier: Classifier, X_train: ArrayLike, y_train: ArrayLike,
           population: Population | ExactPopulation) -> Classifier:
    """A fresh clone of ``classifier`` fitted on the training set, with the population's classes and dimension.

    Parameters
    ----------
    classifier : Classifier
        The base classifier (a template).
    X_train, y_train : array_like
        The training set.
    population : Population or ExactPopulation
        The population whose classes and dimension the fit takes.

    Returns
    -------
    Classifier
        The fitted clone.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population, fit_on
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> template = LDA()
    >>> model = fit_on(template, X, y, Population.exact(problem))
    >>> model is template, model.predict_proba(X[:1]).shape  # a fitted clone; the template stays unfitted
    (False, (1, 2))
    """
    classifier = _check_classifier(classifier)
    population = check_population(population)
    X_train, y_train = check_training_set(X_train, y_train, population.n_classes, population.dim)
    try:
        return classifier.clone().fit(X_train, y_train, population.n_classes)
    except ValueError as error:  # the classifier's own range (e.g. the data's scale): name the argument given
        raise ValueError(f"X_train, y_train: {type(classifier).__name__} refuses this training set: {error}") \
            from error


def current_loss(
    classifier: Classifier,
    X_train: ArrayLike,
    y_train: ArrayLike,
    population: Population | ExactPopulation,
    loss: str = "error",
) -> float:
    r"""Term :math:`T_c` of Eq. ``eqc``: the loss of the classifier trained on ``(X_train, y_train)``.

    Parameters
    ----------
    classifier : Classifier
        The base classifier (a template: cloned, never fitted in place).
    X_train, y_train : array_like
        The training set.
    population : Population or ExactPopulation
        Where the loss is measured.
    loss : {"error", "log", "lc"}, default "error"
        The loss.

    Returns
    -------
    float
        :math:`L(\theta(D))`.

    See Also
    --------
    mri_theory.engine.current_and_future_losses : With the future losses of candidates.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population, current_loss
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("two-gaussians"), np.random.default_rng(0)
    >>> X, y = problem.sample(200, rng)
    >>> exact = current_loss(LDA(), X, y, Population.exact(problem))
    >>> bool(exact >= problem.bayes_error), round(exact - problem.bayes_error, 3)  # never below the Bayes error
    (True, 0.001)
    """
    loss = check_loss(loss)
    model = fit_on(classifier, X_train, y_train, population)  # validates the population first
    return population.loss(model, loss)


def _fitted_for_candidates(classifier: Classifier, X_train: ArrayLike, y_train: ArrayLike, candidates: ArrayLike,
                           population: Population | ExactPopulation, loss: str,
                           method: str) -> tuple[Classifier, np.ndarray, Population | ExactPopulation, str, str]:
    """The arguments of :func:`current_and_future_losses` and :func:`future_losses` validated (loss, method,
    population, candidates, in that order) and the classifier fitted: ``(model, candidates, population, loss,
    method)``."""
    loss = check_loss(loss)
    method = check_method(method)
    population = check_population(population)
    candidates = check_points(candidates, "candidates", dim=population.dim, min_rows=1)
    return fit_on(classifier, X_train, y_train, population), candidates, population, loss, method


def current_and_future_losses(
    classifier: Classifier,
    X_train: ArrayLike,
    y_train: ArrayLike,
    candidates: ArrayLike,
    population: Population | ExactPopulation,
    loss: str = "error",
    method: str = "auto",
) -> tuple[float, np.ndarray]:
    r"""Terms of Eq. ``eqc`` in one pass: the current loss :math:`L` and the future losses **L'**.

    Parameters and the future-loss array are as in :func:`future_losses`; the
    fast paths share their work between the two (k-NN finds the population's
    neighbourhoods once).

    Parameters
    ----------
    classifier : Classifier
        The base classifier (a template: cloned, never fitted in place).
    X_train, y_train : array_like
        The training set.
    candidates : array_like of shape (m, d)
        Points to add, one at a time.
    population : Population or ExactPopulation
        Where the loss is measured.
    loss : {"error", "log", "lc"}, default "error"
        The loss.
    method : {"auto", "refit"}, default "auto"
        The fast path where the classifier has one, or plain refits.

    Returns
    -------
    current : float
    future : ndarray (m, k)

    See Also
    --------
    mri_theory.engine.true_q_c : Q^c from the two.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population, current_and_future_losses, current_loss, future_losses
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> candidates = problem.sample(4, rng)[0]
    >>> population = Population.exact(problem)
    >>> loss, future = current_and_future_losses(LDA(), X, y, candidates, population)
    >>> same_future = np.array_equal(future, future_losses(LDA(), X, y, candidates, population))
    >>> loss == current_loss(LDA(), X, y, population), bool(same_future)
    (True, True)
    """
    model, candidates, population, loss, method = _fitted_for_candidates(classifier, X_train, y_train, candidates,
                                                                         population, loss, method)
    if method == "auto":
        return model.retraining_losses(candidates, population, loss)
    return population.loss(model, loss), refit_future_losses(model, candidates, population, loss)


def future_losses(
    classifier: Classifier,
    X_train: ArrayLike,
    y_train: ArrayLike,
    candidates: ArrayLike,
    population: Population | ExactPopulation,
    loss: str = "error",
    method: str = "auto",
) -> np.ndarray:
    r"""Future losses :math:`L'_j = L(\theta(D \cup (x, c_j)))` for every candidate and class (Table 1).

    Parameters
    ----------
    classifier : Classifier
        A (template) classifier; it is cloned and fitted, never modified.
    X_train, y_train : array_like
        The labelled data :math:`D` (at least one point; labels ``0..k-1``
        with ``k = population.n_classes``).
    candidates : array_like (m, d)
        Points to add, one at a time (non-empty).
    population : Population
        Where the loss is measured.
    loss : {"error", "log", "lc"}
    method : {"auto", "refit"}
        ``"auto"`` uses the classifier's exact fast path when it has one;
        ``"refit"`` forces the plain refit per (candidate, class).

    Returns
    -------
    ndarray (m, k)

    Notes
    -----
    The current loss is not computed: ``"auto"`` calls the classifier's
    :meth:`~mri_theory.engine.contract.Classifier.future_retraining_losses`
    (the same array as :func:`current_and_future_losses`' second, bit for bit).

    See Also
    --------
    mri_theory.engine.current_and_future_losses : Both terms of Eq. eqc in one pass.
    mri_theory.engine.refit_future_losses : The plain path, for a fitted model.

    Examples
    --------
    Table 1's L': the loss after adding each (candidate, class); the fast path equals plain refits:

    >>> import numpy as np
    >>> from mri_theory.classifiers import QDA
    >>> from mri_theory.engine import Population, future_losses
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> candidates = problem.sample(4, rng)[0]
    >>> population = Population.from_problem(problem, 2000, rng)
    >>> fast = future_losses(QDA(), X, y, candidates, population)
    >>> refit = future_losses(QDA(), X, y, candidates, population, method="refit")
    >>> fast.shape, bool(np.allclose(fast, refit, rtol=0, atol=1e-12))
    ((4, 2), True)
    """
    model, candidates, population, loss, method = _fitted_for_candidates(classifier, X_train, y_train, candidates,
                                                                         population, loss, method)
    if method == "auto":
        return model.future_retraining_losses(candidates, population, loss)
    return refit_future_losses(model, candidates, population, loss)
