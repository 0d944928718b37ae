r"""The classifier contract: what the engine, the strategies and the sandbox need from a classifier.

A classifier is :math:`\theta` of the paper (§3.1, Table ``Notation``): a
training function, fitted on labelled data :math:`D_S`, and a prediction
function giving the class probability vector :math:`\hat{\mathbf p}`.  Any
subclass of :class:`Classifier` that keeps the rules below can be given to
the engine (:mod:`mri_theory.engine.retraining`), the strategies and the sandbox in
place of the built-in ones; :func:`mri_theory.testing.check_classifier`
checks them on a user's classifier.

**Hyper-parameters** are the arguments of ``__init__`` (keywords with
defaults; no ``*args`` or ``**kwargs``), each stored *unchanged* under its own
name (scikit-learn's rule: ``sklearn.base.clone`` rebuilds the object from
them and checks that every one is the object it passed).  ``__init__`` may
*validate* them (the built-ins do, so that a bad value is refused at once,
naming the argument) but must not convert them: conversions belong in
``fit``.  :class:`Classifier` inherits :class:`sklearn.base.BaseEstimator`, so
``get_params(deep=True)``, ``set_params(**params)`` (validated here by
``__init__`` before anything is set), ``sklearn.base.clone(clf)`` and
:meth:`Classifier.clone` (the same thing: an unfitted copy with equal
parameters) work on every subclass, and ``repr`` shows every parameter (the
sandbox and the study record it to tell two configurations apart).

**Learned state** is set by ``fit`` in attributes ending in ``_``:
:meth:`Classifier.fit` sets ``n_classes_``, ``dim_``, ``X_train_`` and
``y_train_`` (the validated training data, which the default retraining
path refits on), then calls the subclass's ``_fit(X, y)``.

**fit(X, y, n_classes)** returns the classifier.  ``X`` has shape
``(n, d)`` (1-D is ``(n, 1)``), ``y`` holds labels in ``0..k-1`` with
``k = n_classes`` known in advance.  It must work for every training set
an active-learning curve starts from: a single point, a single class, classes
absent, duplicated points with different labels.  A fit starts from scratch
and is deterministic: the same parameters and data give the same model, bit
for bit (randomness comes from a seed among the hyper-parameters), and fitting
never changes the hyper-parameters.

**predict_proba(X)** returns shape ``(n, k)``: finite entries in ``[0, 1]``,
rows summing to 1, column ``j`` the probability of class ``j`` (a class absent
from the training data included; the built-ins give it 0).  **predict(X)** is
the most probable class, classes within ``TIE_TOLERANCE`` of the largest
probability tied and the lowest of them predicted
(:func:`mri_theory.engine.losses.predicted_class`, the error loss's rule).

**retraining_losses(candidates, population, loss)** is the engine's hook
(:func:`mri_theory.engine.retraining.current_and_future_losses`), called on a fitted
classifier with ``candidates`` of shape ``(m, d)``, a
:class:`~mri_theory.engine.population.Population` with ``k`` classes in dimension
``d``, and ``loss`` one of ``"error"``, ``"log"``, ``"lc"``
(:mod:`mri_theory.engine.losses`).  It returns ``(L, L')``: ``L`` (a float) the loss
of this classifier on the population, :math:`L(\theta(D_S))`, and ``L'`` of
shape ``(m, k)`` with ``L'[i, j]`` the loss after retraining on the
training data plus ``(candidates[i], j)``,
:math:`L'_j = L(\theta(D_S \cup (\mathbf x_i, c_j)))` (Table ``Notation``),
``n_classes`` unchanged.  :class:`Classifier` composes it from two hooks:
``_retraining_args(candidates, population, loss)`` validates the arguments
(:func:`check_retraining_args`; a subclass extends it with checks of its own,
such as the coordinates' magnitude) and ``_future_losses(candidates,
population, loss)`` computes ``L'`` from the validated arguments; ``L`` is
``population.loss(self, loss)``.

**The fast path.**  ``_future_losses`` is *the* hook for a fast path: its
default refits a clone for every (candidate, class) pair
(:func:`refit_future_losses`); a classifier that can compute ``L'`` faster
overrides it (the Gaussian family, the logistic regression and the SVM) and
gets both :meth:`Classifier.retraining_losses` and
:meth:`Classifier.future_retraining_losses` from it.  A fast path must
**equal the refit**: exactly in exact arithmetic, so that the two differ only
by rounding (the built-ins agree to ``1e-12`` or better; logistic regression
and the SVM to their solvers' documented accuracy), ties and duplicated
points included (a tie broken differently changes the error loss by a whole
point's weight).  It must not change the classifier.  Overriding
``retraining_losses`` itself, as classifiers written against 0.1's contract
do, is still supported (k-NN does, because its current and future losses
share the population's neighbourhoods): validate the arguments with
:func:`check_retraining_args`, and the same rules hold.
:func:`has_fast_path` tells whether a classifier has either override.

**future_retraining_losses(candidates, population, loss)** returns ``L'``
alone (:func:`mri_theory.engine.retraining.future_losses`, which SMRI, BMRI
and EfeLc call: they estimate only term :math:`T_e`): ``_future_losses`` of
the validated arguments, skipping the current loss (about a tenth of a BMRI
resample of LDA).  When a subclass overrides ``retraining_losses``, it is
``retraining_losses(...)[1]`` instead, so that the override's ``L'`` is the one
used everywhere.  Either way it is the same array as
``retraining_losses(...)[1]``, bit for bit.

**Class attributes.**  ``name`` labels the classifier in tables and file
names (a plain string of ``[A-Za-z0-9._+-]``); set it on an instance to tell
two configurations apart (a clone keeps it).  ``nearest_neighbour`` is True
for classifiers that predict from the labels of the nearest training points
(:class:`~mri_theory.classifiers.KNN`): SMRI and BMRI then estimate the
class probabilities :math:`\hat{\mathbf p}` with a random forest as
:math:`\theta_2` instead of 5-NN (§4, ``mri-paper.tex`` line 863: "5-nn, or
random forest when the base classifier is k-nn").
"""

from __future__ import annotations

import inspect
import re
import sys
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn import base as skbase

from mri_theory._utils import validation as check
from mri_theory.engine.losses import check_loss, predicted_class
from mri_theory.engine.population import ExactPopulation, Population, check_population

__all__ = ["Classifier", "check_points", "check_retraining_args", "has_fast_path", "refit_future_losses"]


def check_points(X: ArrayLike, name: str = "X", dim: int | None = None, min_rows: int = 0) -> np.ndarray:
    """Points as a finite float array of shape ``(n, d)`` (1-D input is ``(n, 1)``).

    Raises ``ValueError`` naming ``name`` if there are fewer than ``min_rows``
    points (checked first, so an empty input is reported as empty) or, when
    ``dim`` is given, if the points do not have ``dim`` columns.

    Parameters
    ----------
    X : array_like
        The points.
    name : str, default "X"
        Their name in error messages.
    dim : int, optional
        The number of columns required.
    min_rows : int, default 0
        The fewest points accepted.

    Returns
    -------
    ndarray of shape (n, d)
        The points, as floats.

    See Also
    --------
    mri_theory.engine.check_retraining_args : Validates the candidates with it.

    Examples
    --------
    >>> from mri_theory.engine import check_points
    >>> check_points([1.0, 2.0, 3.0]).shape  # 1-D input is one feature
    (3, 1)
    >>> try:
    ...     check_points([[0.0, float("nan")]], name="candidates")
    ... except ValueError as error:
    ...     print("ValueError:", str(error)[:30], "...")
    ValueError: candidates must be finite (no  ...
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


#: Most classes a classifier is fitted with (models and populations hold one column per class).
MAX_CLASSES = 10_000


class Classifier(skbase.BaseEstimator):
    r"""Base class of every classifier: the contract of the module notes.

    Subclasses implement ``_fit(X, y)`` (validated arrays; ``n_classes_`` and
    ``dim_`` already set) and ``_predict_proba(X)`` (validated points of the
    training dimension), and may add an exact fast path by overriding
    ``_future_losses`` (module notes, "The fast path"), extending
    ``_retraining_args`` if it needs checks of its own.  ``get_params``,
    ``set_params`` and ``sklearn.base.clone`` come from
    :class:`sklearn.base.BaseEstimator`.

    Attributes
    ----------
    name : str
        Label in tables and file names (class attribute; may be set on an instance).
    nearest_neighbour : bool
        True for nearest-neighbour classifiers: SMRI/BMRI's :math:`\theta_2`
        is then a random forest rather than 5-NN (§4).
    exact_truth : bool
        True when :meth:`exact_loss` integrates the loss exactly over a
        Gaussian-mixture truth, so the engine accepts an
        :class:`~mri_theory.engine.population.ExactPopulation` for this
        classifier (the Gaussian family and logistic regression: quadratic or linear scores; k-NN: polygons;
        the SVM: RBF score rules integrated by lines).
    auto_exact : bool
        Whether ``truth="auto"`` takes the exact truth where it is available
        (:func:`~mri_theory.engine.resolve_truth`); True by default (every
        paper classifier).  A subclass sets it False where its exact path is
        too costly for the runners' default, so that ``truth="auto"`` stays
        sampled and ``truth="exact"`` asks for it.

    See Also
    --------
    mri_theory.testing.check_classifier : Checks a classifier of your own against this contract.
    mri_theory.engine.has_fast_path : Whether a subclass has a fast path of its own.

    Examples
    --------
    The contract every classifier follows; a subclass without a fast path of its own refits for each retrained model:

    >>> from mri_theory.classifiers import LDA, RandomForest
    >>> from mri_theory.engine import Classifier, has_fast_path
    >>> issubclass(LDA, Classifier), has_fast_path(LDA), has_fast_path(RandomForest)
    (True, True, False)
    """

    name: str = "classifier"
    nearest_neighbour: bool = False
    exact_truth: bool = False
    auto_exact: bool = True

    def fit(self, X: ArrayLike, y: ArrayLike, n_classes: int | None = None) -> Classifier:
        """Fit on labelled data; ``n_classes`` defaults to ``max(y) + 1`` (at least 2).

        At least one training point is required; classes may be absent.

        Parameters
        ----------
        X : array_like of shape (n, d)
            Training points (at least one).
        y : array_like of shape (n,)
            Their class labels, integers in ``[0, n_classes)``.
        n_classes : int, optional
            The number of classes (default ``max(y) + 1``, at least 2).

        Returns
        -------
        Classifier
            This classifier, fitted.
        """
        X = check_points(X, min_rows=1)
        name = "n_classes"
        if n_classes is None:
            y = check.check_labels(y, None)
            n_classes, name = (max(2, int(np.max(y)) + 1) if y.size else 2), "n_classes (max(y) + 1 when not given)"
        n_classes = check.count(n_classes, name, minimum=2, maximum=MAX_CLASSES)
        y = check.check_labels(y, n_classes)
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"X and y must have the same length, got {X.shape[0]} and {y.shape[0]}")
        self.n_classes_ = n_classes
        self.dim_ = X.shape[1]
        self.X_train_, self.y_train_ = X, y
        self._fit(X, y)
        return self

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def exact_loss(self, truth: Any, loss: str) -> float:
        """The fitted model's exact loss under a Gaussian-mixture truth
        (:class:`~mri_theory.engine.exact.MixtureTruth`).

        Classifiers whose decision regions allow exact integration set
        :attr:`exact_truth` and override this; here it raises ``TypeError``.

        Parameters
        ----------
        truth : MixtureTruth
            The problem's Gaussian mixture.
        loss : {"error", "log"}
            The loss.

        Returns
        -------
        float
            The exact loss (a classifier with an exact path).
        """
        raise TypeError(f"{type(self).__name__} has no exact loss (exact_truth is False); use a sampled Population")

    def _predict_proba(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_fitted(self) -> None:
        if not hasattr(self, "n_classes_"):
            raise ValueError(f"this {type(self).__name__} is not fitted: call fit(X, y, n_classes) first")

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities, shape ``(n, n_classes)``, columns ``0..k-1``.

        Parameters
        ----------
        X : array_like of shape (n, d)
            Points.

        Returns
        -------
        ndarray
            The probabilities, shape ``(n, n_classes)``; an absent class has 0.
        """
        self._check_fitted()
        return self._predict_proba(check_points(X, dim=self.dim_))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Most probable class; near-ties go to the lowest label (:func:`~mri_theory.engine.losses.predicted_class`).

        Parameters
        ----------
        X : array_like of shape (n, d)
            Points.

        Returns
        -------
        ndarray of shape (n,)
            The predicted labels.
        """
        return predicted_class(self.predict_proba(X))

    def set_params(self, **params: Any) -> Classifier:
        """Set hyper-parameters (scikit-learn's ``set_params``), refusing values ``__init__`` refuses.

        The new top-level values are checked by building a fresh object from
        them before any is set, so a bad value raises naming the parameter and
        leaves the classifier unchanged; nested ``<component>__<parameter>``
        values are left to the component.

        Parameters
        ----------
        **params : dict
            Hyper-parameter names and values (``<component>__<parameter>`` for nested ones).

        Returns
        -------
        Classifier
            This classifier.
        """
        current = self.get_params(deep=False)
        top = {key: value for key, value in params.items() if key in current}
        if top:
            type(self)(**{**current, **top})
        return super().set_params(**params)

    def clone(self) -> Classifier:
        """An unfitted copy with equal hyper-parameters: ``sklearn.base.clone(self)``.

        Returns
        -------
        Classifier
            The copy.
        """
        return skbase.clone(self)

    def __sklearn_clone__(self) -> Classifier:
        twin = super().__sklearn_clone__()
        if "name" in vars(self):  # a label set on the instance travels with its clones
            twin.name = self.name
        return twin

    #: Parameters the ``repr`` shows only away from their default: options added after results were stored under
    #: the older ``repr`` (a study's ``config.json`` records the classifier's), which still match at the default.
    repr_if_changed: tuple[str, ...] = ()

    def __repr__(self) -> str:
        defaults = {name: p.default for name, p in inspect.signature(type(self).__init__).parameters.items()}
        params = ", ".join(f"{k}={_param_repr(v)}" for k, v in self.get_params(deep=False).items()
                           if not (k in self.repr_if_changed and _at_default(v, defaults.get(k))))
        return f"{type(self).__name__}({params})"

    def retraining_losses(self, candidates: np.ndarray, population: Population | ExactPopulation,
                          loss: str) -> tuple[float, np.ndarray]:
        """The current loss and the losses after retraining on the data plus each (candidate, class).

        Called on a fitted classifier by
        :func:`mri_theory.engine.retraining.current_and_future_losses`.

        Parameters
        ----------
        candidates : array_like (m, d)
            Points to add, one at a time (at least one).
        population : Population or ExactPopulation
            Where the loss is measured (the classifier's classes and dimension).
        loss : {"error", "log", "lc"}

        Returns
        -------
        current : float
            ``population.loss(self, loss)``.
        future : ndarray (m, k)
            ``_future_losses`` of the arguments validated by ``_retraining_args``.

        Notes
        -----
        A fast path overrides ``_future_losses``, not this (module notes,
        "The fast path"); an override of this method is still honoured, by
        :meth:`future_retraining_losses` and :func:`has_fast_path` too.
        """
        candidates, population, loss = self._retraining_args(candidates, population, loss)
        return population.loss(self, loss), self._future_losses(candidates, population, loss)

    def future_retraining_losses(self, candidates: np.ndarray, population: Population | ExactPopulation,
                                 loss: str) -> np.ndarray:
        """The losses after retraining on the data plus each (candidate, class) alone: ``L'`` of
        :meth:`retraining_losses`, shape ``(m, k)``, bit for bit, without the current loss.

        Called on a fitted classifier by :func:`mri_theory.engine.retraining.future_losses`.

        Parameters
        ----------
        candidates : array_like (m, d)
        population : Population or ExactPopulation
        loss : {"error", "log", "lc"}
            As in :meth:`retraining_losses`.

        Returns
        -------
        ndarray (m, k)
            ``_future_losses`` of the arguments validated by ``_retraining_args``; when the
            classifier's class overrides :meth:`retraining_losses` (the contract of 0.1, still supported),
            ``retraining_losses(...)[1]``.
        """
        if _overrides(type(self), "retraining_losses"):
            return self.retraining_losses(candidates, population, loss)[1]
        return self._future_losses(*self._retraining_args(candidates, population, loss))

    def _retraining_args(self, candidates: np.ndarray, population: Population | ExactPopulation,
                         loss: str) -> tuple[np.ndarray, Population | ExactPopulation, str]:
        """The arguments of :meth:`retraining_losses` validated: :func:`check_retraining_args`.

        A subclass whose fast path needs more (the logistic regression and the
        SVM refuse coordinates beyond ``1e150``) extends this, calling
        ``super()._retraining_args`` first so that the common checks and their
        messages come first.

        Returns
        -------
        candidates : ndarray (m, d)
        population : Population or ExactPopulation
        loss : str
        """
        return check_retraining_args(self, candidates, population, loss)

    def _future_losses(self, candidates: np.ndarray, population: Population | ExactPopulation,
                       loss: str) -> np.ndarray:
        """The fast-path hook: ``L'`` of shape ``(m, k)`` from arguments validated by ``_retraining_args``.

        The default refits a clone per (candidate, class)
        (:func:`refit_future_losses`).  A classifier with an exact fast path
        overrides this, and only this: :meth:`retraining_losses` and
        :meth:`future_retraining_losses` both call it.  The override must
        equal the refit up to rounding and leave the classifier unchanged
        (module notes, "The fast path").

        Parameters
        ----------
        candidates : ndarray (m, d)
            Validated candidates (at least one, the training dimension).
        population : Population or ExactPopulation
            Validated population (the classifier's classes and dimension).
        loss : str
            A validated loss name.

        Returns
        -------
        ndarray (m, k)
            ``L'[i, j]``, the loss after retraining on the data plus ``(candidates[i], j)``.
        """
        return refit_future_losses(self, candidates, population, loss)


def _overrides(cls: type, method: str) -> bool:
    """Whether ``cls`` defines ``method`` other than :class:`Classifier`'s."""
    return getattr(cls, method) is not getattr(Classifier, method)


def has_fast_path(classifier: Classifier | type[Classifier]) -> bool:
    """Whether a classifier (an instance or a class) computes the future losses other than by the plain refit.

    True when its class overrides ``Classifier._future_losses`` (the
    fast-path hook) or :meth:`Classifier.retraining_losses` (the contract of
    0.1, still supported); :func:`mri_theory.testing.check_classifier` then
    checks the fast path against the refit.

    Parameters
    ----------
    classifier : Classifier or type
        A :class:`Classifier` instance (fitted or not) or a subclass of :class:`Classifier`.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``classifier`` is neither.

    See Also
    --------
    mri_theory.engine.refit_future_losses : The plain refit, which a fast path must equal.

    Examples
    --------
    >>> from mri_theory.classifiers import LDA, RandomForest
    >>> from mri_theory.engine import has_fast_path
    >>> has_fast_path(LDA), has_fast_path(RandomForest())
    (True, False)
    """
    cls = classifier if isinstance(classifier, type) else type(classifier)
    if not issubclass(cls, Classifier):
        raise TypeError(f"classifier must be a mri_theory Classifier or a subclass of it, got {cls.__name__}"
                        f"{' (a class)' if cls is classifier else ''}")
    return _overrides(cls, "_future_losses") or _overrides(cls, "retraining_losses")


def _at_default(value: Any, default: Any) -> bool:
    """Whether a parameter's value is its default: ``==`` where that gives one truth value (an array, which
    compares element by element, is not a scalar default)."""
    if value is default:
        return True
    same = value == default
    return isinstance(same, (bool, np.bool_)) and bool(same)


def _param_repr(value: Any) -> str:
    """A parameter in full: arrays as lists (no rounding), estimators untruncated on one line."""
    if isinstance(value, np.ndarray):
        return repr(value.tolist())
    if isinstance(value, skbase.BaseEstimator) and not isinstance(value, Classifier):
        return re.sub(r"\s*\n\s*", " ", value.__repr__(N_CHAR_MAX=sys.maxsize))
    return repr(value)


def check_retraining_args(model: Classifier, candidates: ArrayLike, population: Any,
                          loss: Any) -> tuple[np.ndarray, Population | ExactPopulation, str]:
    """Validate the arguments of :meth:`Classifier.retraining_losses` for a fitted ``model``.

    The population must have the model's number of classes and dimension,
    the candidates the model's dimension (at least one of them).

    Parameters
    ----------
    model : Classifier
        A fitted classifier.
    candidates : array_like of shape (m, d)
        Points to add.
    population : Population or ExactPopulation
        Where the loss is measured.
    loss : {"error", "log", "lc"}
        The loss.

    Returns
    -------
    candidates : ndarray of shape (m, d)
        The candidates, as floats.
    population : Population or ExactPopulation
        The population.
    loss : str
        The loss.

    See Also
    --------
    mri_theory.engine.refit_future_losses : Which validates its arguments with it.
    mri_theory.engine.check_points : Validates the candidates.
    mri_theory.engine.check_population : Validates the population.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population, check_retraining_args
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> candidates, population, loss = check_retraining_args(LDA().fit(X, y), X[:3], Population.exact(problem), "error")
    >>> candidates.shape, loss
    ((3, 2), 'error')
    """
    model._check_fitted()
    population = check_population(population)
    if isinstance(population, ExactPopulation):
        population.check_classifier(model)
        loss = population.check_loss(loss)
    else:
        loss = check_loss(loss)
    if population.n_classes != model.n_classes_:
        raise ValueError(f"population has {population.n_classes} classes but the classifier was fitted with "
                         f"n_classes={model.n_classes_}")
    if population.dim != model.dim_:
        raise ValueError(f"population is {population.dim}-D but the classifier was fitted on {model.dim_}-D points")
    return check_points(candidates, "candidates", dim=model.dim_, min_rows=1), population, loss


def refit_future_losses(model: Classifier, candidates: np.ndarray, population: Population | ExactPopulation,
                        loss: str) -> np.ndarray:
    """The plain path: refit on ``D ∪ (x, c_j)`` for every candidate and class, score on the population.

    Parameters
    ----------
    model : Classifier
        A fitted classifier.
    candidates : ndarray of shape (m, d)
        Points to add.
    population : Population or ExactPopulation
        Where the loss is measured.
    loss : {"error", "log", "lc"}
        The loss.

    Returns
    -------
    ndarray of shape (m, k)
        The loss after refitting with each (candidate, class).

    See Also
    --------
    mri_theory.engine.future_losses : The future losses by the fast path where there is one.
    mri_theory.engine.has_fast_path : Whether a classifier has one.

    Examples
    --------
    Entry ``[i, j]`` is the loss of a model refitted with ``(candidates[i], j)`` added; LDA's fast path gives the
    same array without refitting:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population, refit_future_losses
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> candidates, population = problem.sample(3, rng)[0], Population.exact(problem)
    >>> model = LDA().fit(X, y)
    >>> refit = refit_future_losses(model, candidates, population, "error")
    >>> by_hand = population.loss(LDA().fit(np.vstack([X, candidates[:1]]), np.append(y, 1)), "error")
    >>> refit.shape, bool(refit[0, 1] == by_hand)
    ((3, 2), True)
    >>> fast = model.retraining_losses(candidates, population, "error")[1]
    >>> bool(np.allclose(refit, fast, rtol=0, atol=1e-12))
    True
    """
    candidates, population, loss = check_retraining_args(model, candidates, population, loss)
    k = model.n_classes_
    out = np.empty((candidates.shape[0], k))
    for i, x in enumerate(candidates):
        X_new = np.vstack([model.X_train_, x[None, :]])
        for j in range(k):
            refit = model.clone().fit(X_new, np.append(model.y_train_, j), k)
            out[i, j] = population.loss(refit, loss)
    return out
