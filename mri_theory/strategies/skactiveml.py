r"""Peer strategies: scikit-activeml's pool query strategies inside the sandbox.

:class:`SkactivemlStrategy` runs any scikit-activeml pool query strategy
(``skactiveml.pool.UncertaintySampling``, ``MonteCarloEER``,
``ValueOfInformationEER``, ...) as an :class:`~mri_theory.strategies.Strategy`,
so that it is scored in the same states, with the same seeds and metrics, as
the paper's strategies and the truth (MRI-best, the argmax of :math:`Q^c`,
Eq. ``eqc``).  scikit-activeml's expected-error-reduction strategies are
implementations of Roy & McCallum's error reduction (§2.3, Eq. ``efelc``),
the closest relative of MRI.

It needs the optional extra ``peers`` (``pip install "mri-theory[peers]"``):
scikit-activeml is imported when an adapter is constructed, never when
:mod:`mri_theory` or this module is imported.

How the sandbox's state becomes scikit-activeml's input
-------------------------------------------------------
``X`` is the labelled data :math:`D_S` followed by the whole unlabelled pool
:math:`X_P` (``ctx.pool``), ``y`` the labels followed by ``MISSING_LABEL``
(NaN), and the candidates are passed as indices into ``X`` (the rows of
``ctx.pool`` they equal; a candidate that is not in the pool is appended as
one more unlabelled row).  So the strategies that evaluate on the unlabelled
data (the EER family) see the same pool as EfeLc.  ``query(...,
return_utilities=True)`` returns utilities (larger is better), which are the
scores.

Choices (documented deviations from using scikit-activeml directly)
-------------------------------------------------------------------
- **Seeds**: each call draws one integer from ``ctx.rng`` and gives it to the
  query strategy (and to a scikit-activeml classifier) as ``random_state``, so a
  run is reproducible from the sandbox's seeds.  The adapter's own
  ``query_strategy`` is never modified: each call uses a
  ``sklearn.base.clone`` with ``random_state`` and ``missing_label`` (NaN) set.
- **The classifier** (``clf`` of ``query``): by default the sandbox's base
  classifier ``ctx.classifier``, so the peer sees the same model as the
  paper's strategies (and ``UncertaintySampling(method="entropy")`` gives SE's
  scores).  A scikit-learn classifier (a pipeline too) is fitted through
  :class:`mri_theory.classifiers.SklearnClassifier` (columns ``0..k-1``, a
  single present class predicted with probability 1).  A scikit-activeml
  ``SklearnClassifier`` is unwrapped to its scikit-learn estimator, which
  avoids its two traps:

  * scikit-activeml's EER strategies call ``clf.fit(X, y, sample_weight)``
    with ``sample_weight`` positionally, but scikit-activeml's
    ``SklearnClassifier`` copies the signature of the estimator's ``fit``,
    which for ``KNeighborsClassifier`` has no ``sample_weight`` (TypeError).
    The adapter's classifier accepts ``sample_weight`` and refuses weights
    other than ``None`` or all ones (the package's classifiers are unweighted).
  * scikit-learn's k-NN refuses to predict with fewer than ``n_neighbors``
    training points (the sandbox starts with one point per class), and
    scikit-activeml's wrapper would then silently predict the class
    frequencies.  The adapter lowers every ``n_neighbors`` parameter (at any
    depth of a pipeline) to the number of labelled points at each fit: all
    points vote, as in :class:`mri_theory.classifiers.KNN` (``k_eff = min(k, n)``).

  A scikit-learn model's ``random_state`` parameters left at ``None`` (at any
  depth) are set to the drawn seed, so that a random model is reproducible too.
  Any other scikit-activeml classifier (e.g. ``ParzenWindowClassifier``) is
  used as it is, cloned with ``classes=0..k-1``, ``missing_label=NaN`` and the
  drawn ``random_state``.
- **Density weights** (``density_weight=True``, for a ``query`` taking
  ``utility_weight``): the utilities are multiplied by each row's kernel
  density, ``predict_freq(X)[:, 0]`` of a ``ParzenWindowClassifier`` with
  scikit-activeml's defaults (an RBF kernel with scikit-learn's default
  ``gamma = 1 / n_features``: :math:`\sum_i \exp(-\lVert x - x_i\rVert^2 / d)`
  over the rows :math:`x_i` of ``X``) fitted on all of ``X`` (labelled rows
  and pool) with one label, as in scikit-activeml's McPAL example
  (``utility_weight=dens``).  ``parzen_gamma="scott"`` (or a number) sets
  this window's ``gamma``, and a ``ParzenWindowClassifier`` classifier's, to
  Scott's bandwidth on ``X`` (:func:`scott_gamma`) instead: the default
  ignores the data's scale (the registered ``SkDWUS-scott`` and
  ``SkMcPAL-scott``).
- **Committees** (``ensemble_size=m``, for ``QueryByCommittee``): the
  ``ensemble`` is a bagging committee of ``m`` copies of the classifier (as
  for ``clf`` above: by default the sandbox's base classifier), each fitted on
  one bootstrap resample of the labelled points (drawn with
  ``numpy.random.default_rng`` of the drawn seed; a resample may miss a
  class), in the manner of scikit-activeml's example
  ``SklearnClassifier(BaggingClassifier(...))``.  scikit-learn's
  ``BaggingClassifier`` itself is not used: it passes a resample as
  ``sample_weight`` to a member whose ``fit`` takes one, which the package's
  unweighted classifiers refuse.

Named peers
-----------
:func:`peer` builds the registered peers by name (``"SkUS-margin"``,
``"SkMC-EER"``, ...: :data:`mri_theory.strategies.PEER_NAMES`; their table
with classes, parameters, classifiers and cost is in
``docs/user-guide/strategies.md``).  The registry
(:func:`mri_theory.strategies.get_strategy`) calls it on use, so naming a peer
without scikit-activeml raises the ``ImportError`` above.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import sys
from collections.abc import Mapping
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, clone, is_classifier
from sklearn.utils.validation import check_array, check_is_fitted

from mri_theory._utils import validation as check
from mri_theory._utils.registry import label
from mri_theory.classifiers import Classifier, SklearnClassifier
from mri_theory.strategies._peers import PEERS
from mri_theory.strategies.base import Context, Strategy

__all__ = ["PARZEN_GAMMAS", "SkactivemlStrategy", "peer", "scott_gamma"]

_INSTALL_HINT = 'SkactivemlStrategy needs scikit-activeml: pip install "mri-theory[peers]"'

#: Arguments of ``query`` that the adapter sets itself (``utility_weight`` with ``density_weight=True``,
#: ``ensemble`` with ``ensemble_size``).
_SET_BY_ADAPTER = ("X", "y", "clf", "candidates", "batch_size", "return_utilities")

#: The keyword arguments of :class:`SkactivemlStrategy` that :func:`peer` lets ``options`` change.
_PEER_OPTIONS = ("classifier", "costly", "query_params", "density_weight", "ensemble_size", "parzen_gamma")

#: The largest committee of ``ensemble_size`` (every member is a fit at every call).
_MAX_ENSEMBLE = 1000

#: Seeds drawn from ``ctx.rng`` lie in ``0..2**31 - 2`` (any int scikit-learn's ``check_random_state`` accepts).
_SEED_BOUND = 2**31 - 1


def _skactiveml() -> Any:
    """Import scikit-activeml on first use, with an install hint if it is missing."""
    try:
        import skactiveml.base
        import skactiveml.classifier
        import skactiveml.pool
        import skactiveml.utils
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    return skactiveml


def _spec(obj: Any) -> str:
    """A repr showing every parameter (scikit-learn's own repr shows only the changed ones, abbreviated)."""
    if isinstance(obj, Classifier):
        return repr(obj)
    if isinstance(obj, BaseEstimator):
        params = ", ".join(f"{k}={_spec(v)}" for k, v in sorted(obj.get_params(deep=False).items()))
        return f"{type(obj).__name__}({params})"
    if isinstance(obj, (list, tuple)):
        inner = ", ".join(_spec(v) for v in obj)
        return f"[{inner}]" if isinstance(obj, list) else f"({inner}{',' if len(obj) == 1 else ''})"
    if isinstance(obj, dict):
        return "{" + ", ".join(f"{k!r}: {_spec(v)}" for k, v in sorted(obj.items())) + "}"
    if isinstance(obj, np.ndarray):
        with np.printoptions(threshold=sys.maxsize):
            return repr(obj)
    return repr(obj)


def _ready_estimator(estimator: Any, n_labelled: int, seed: int) -> Any:
    """A clone of a scikit-learn ``estimator`` ready to fit on ``n_labelled`` points.

    Every ``n_neighbors`` parameter (at any depth of a pipeline) is lowered to at
    most ``n_labelled``, and every ``random_state`` left at ``None`` is set to ``seed``.
    """
    est = clone(estimator)
    changes: dict[str, Any] = {}
    for key, value in est.get_params(deep=True).items():
        leaf = key.rsplit("__", 1)[-1]
        if leaf == "n_neighbors" and isinstance(value, numbers.Integral) and int(value) > n_labelled:
            changes[key] = n_labelled
        elif leaf == "random_state" and value is None:
            changes[key] = seed
    return est.set_params(**changes) if changes else est


@functools.cache
def _peer_classifier_class() -> type:
    """``_PeerClassifier``: a scikit-activeml classifier around a package classifier or a scikit-learn model.

    Defined on first use because it subclasses ``skactiveml.base.SkactivemlClassifier``
    (the package must not import scikit-activeml at import time).  Its instances
    live inside one :meth:`SkactivemlStrategy.scores` call and are never pickled.
    """
    skal = _skactiveml()
    base: Any = skal.base.SkactivemlClassifier  # a class known only at run time (a name, for the type checker)

    class _PeerClassifier(base):
        """``model``: a :class:`Classifier` template, or a scikit-learn classifier (:func:`_ready_estimator`)."""

        def __init__(self, model=None, classes=None, missing_label=skal.utils.MISSING_LABEL, cost_matrix=None,
                     random_state=None):
            super().__init__(classes=classes, missing_label=missing_label, cost_matrix=cost_matrix,
                             random_state=random_state)
            self.model = model

        def fit(self, X, y, sample_weight=None):
            X, y, sample_weight = self._validate_data(X, y, sample_weight)
            if sample_weight is not None and not np.all(np.asarray(sample_weight, dtype=float) == 1.0):
                raise ValueError("sample_weight: mri-theory classifiers are unweighted; only None or all-ones "
                                 "weights are accepted")
            labelled = np.asarray(y) != -1  # the label encoder maps missing labels to -1
            if not labelled.any():
                raise ValueError("y holds no labelled point: the classifier needs at least one")
            X_l, y_l = X[labelled], np.asarray(y)[labelled].astype(int)
            if isinstance(self.model, Classifier):
                template = self.model.clone()
            else:
                template = SklearnClassifier(_ready_estimator(self.model, X_l.shape[0], self.random_state))
            self.model_ = template.fit(X_l, y_l, len(self.classes_))
            return self

        def predict_proba(self, X):
            check_is_fitted(self, "model_")
            return self.model_.predict_proba(check_array(X))

    return _PeerClassifier


@functools.cache
def _peer_committee_class() -> type:
    """``_PeerCommittee``: a bagging committee of a scikit-activeml classifier (QBC's ``ensemble``).

    Defined on first use, as :func:`_peer_classifier_class`.  ``fit`` draws
    ``n_estimators`` bootstrap resamples of the labelled points with
    ``numpy.random.default_rng(random_state)`` and fits one clone of ``member``
    (seeded from the same generator) on each; ``estimators_`` holds them, which
    is what ``QueryByCommittee`` reads.
    """
    skal = _skactiveml()
    base: Any = skal.base.SkactivemlClassifier

    class _PeerCommittee(base):
        def __init__(self, member=None, n_estimators=10, classes=None, missing_label=skal.utils.MISSING_LABEL,
                     cost_matrix=None, random_state=None):
            super().__init__(classes=classes, missing_label=missing_label, cost_matrix=cost_matrix,
                             random_state=random_state)
            self.member = member
            self.n_estimators = n_estimators

        def fit(self, X, y, sample_weight=None):
            X, y, sample_weight = self._validate_data(X, y, sample_weight)
            if sample_weight is not None and not np.all(np.asarray(sample_weight, dtype=float) == 1.0):
                raise ValueError("sample_weight: the committee's members are unweighted; only None or all-ones "
                                 "weights are accepted")
            labelled = np.flatnonzero(np.asarray(y) != -1)  # the label encoder maps missing labels to -1
            if labelled.size == 0:
                raise ValueError("y holds no labelled point: the committee needs at least one")
            rng = np.random.default_rng(self.random_state)
            X_l, y_l = X[labelled], self.classes_[np.asarray(y)[labelled]]
            self.estimators_ = []
            for _ in range(self.n_estimators):
                rows = rng.integers(labelled.size, size=labelled.size)
                member = clone(self.member).set_params(classes=self.classes_, missing_label=self.missing_label,
                                                       random_state=int(rng.integers(_SEED_BOUND)))
                self.estimators_.append(member.fit(X_l[rows], y_l[rows]))
            return self

        def predict_proba(self, X):
            check_is_fitted(self, "estimators_")
            X = check_array(X)
            return np.mean([member.predict_proba(X) for member in self.estimators_], axis=0)

    return _PeerCommittee


def _density(X: np.ndarray, n_classes: int, seed: int, gamma: float | None) -> np.ndarray:
    """Each row's kernel density: ``predict_freq(X)[:, 0]`` of a ``ParzenWindowClassifier`` fitted on all of
    ``X`` with one label (scikit-activeml's McPAL example); its RBF kernel's ``gamma`` (None: the default)."""
    skal = _skactiveml()
    metric_dict = None if gamma is None else {"gamma": gamma}
    density = skal.classifier.ParzenWindowClassifier(classes=np.arange(n_classes), metric_dict=metric_dict,
                                                     random_state=seed)
    return density.fit(X, np.zeros(X.shape[0])).predict_freq(X)[:, 0]


#: The rules of :class:`SkactivemlStrategy`'s ``parzen_gamma`` (besides a number).
PARZEN_GAMMAS = ("default", "scott")


def scott_gamma(X: np.ndarray) -> float:
    r"""The RBF ``gamma`` of an isotropic Gaussian kernel with Scott's bandwidth on the rows of ``X``.

    Scott's rule (Scott 1992, as ``scipy.stats.gaussian_kde``'s default) scales the data's covariance by
    :math:`n^{-2/(d+4)}`; with one bandwidth for every feature, :math:`h^2 = n^{-2/(d+4)} \bar s^2`, the
    mean over the features of their variances (``ddof=1``), and the kernel
    :math:`\exp(-\lVert x - x'\rVert^2 / (2h^2))` is scikit-learn's RBF with :math:`\gamma = 1 / (2 h^2)`.

    Parameters
    ----------
    X : array_like (n, d)
        The rows, ``n >= 2``, finite, not all equal.

    Returns
    -------
    float
        :math:`\gamma > 0`.

    Raises
    ------
    TypeError, ValueError
        Naming ``X``: not a finite 2-d array of at least two rows, or rows that do not vary.

    Examples
    --------
    Scott's bandwidth h (h^2 = n^(-2/(d+4)) times the mean variance), as the RBF gamma 1 / (2 h^2):

    >>> import numpy as np
    >>> from mri_theory.strategies.skactiveml import scott_gamma
    >>> X = np.random.default_rng(0).normal(size=(100, 2))
    >>> h2 = 100 ** (-2 / 6) * X.var(axis=0, ddof=1).mean()
    >>> bool(np.isclose(scott_gamma(X), 1 / (2 * h2)))
    True
    """
    X = check.finite_array(X, "X")
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 1:
        raise ValueError(f"X must be a 2-d array of at least two rows and one column, got shape {X.shape}")
    n, d = X.shape
    spread = float(np.mean(np.var(X, axis=0, ddof=1)))
    if not spread > 0:
        raise ValueError("X: its rows do not vary, so they have no scale for a bandwidth")
    return 1.0 / (2.0 * n ** (-2.0 / (d + 4)) * spread)


class SkactivemlStrategy(Strategy):
    r"""A scikit-activeml pool query strategy as a sandbox :class:`~mri_theory.strategies.Strategy`.

    The scores of the candidates are the query strategy's utilities (larger is
    better); see the module docstring for how the sandbox's state is passed
    and for the choices made (seeds, classifier, scikit-activeml's traps).

    Parameters
    ----------
    query_strategy : skactiveml.base.SingleAnnotatorPoolQueryStrategy
        E.g. ``UncertaintySampling(method="entropy")``, ``MonteCarloEER()``,
        ``ValueOfInformationEER()``.  Its ``random_state`` and
        ``missing_label`` are replaced at every call (seeds from ``ctx.rng``).
    name : str, optional
        The label of the strategy in result tables (must be distinct within a
        run); default ``"skal-" + type(query_strategy).__name__``.
    classifier : optional
        The ``clf`` given to ``query``: ``None`` (default) for the sandbox's
        base classifier; a :class:`~mri_theory.classifiers.Classifier`; a
        scikit-learn classifier or pipeline with ``predict_proba`` (k-NN
        clamped to the labelled size, unset ``random_state`` seeded); a
        scikit-activeml ``SklearnClassifier`` (unwrapped to its estimator; it
        must not set ``cost_matrix`` or ``include_unlabeled_samples``); or
        another scikit-activeml classifier (used as it is).  A strategy whose
        ``query`` takes no ``clf`` (e.g. ``RandomSampling``) accepts only
        ``None``, unless ``ensemble_size`` is given: then it is the committee's member.
    query_params : mapping, optional
        Further keyword arguments of ``query`` (e.g. ``ensemble`` for
        ``QueryByCommittee``); not those the adapter sets (``X``, ``y``,
        ``clf``, ``candidates``, ``batch_size``, ``return_utilities``).
    costly : bool, optional
        Whether the sandbox may score a random sub-sample of the pool
        (``CurveConfig.subsample``).  Default: ``True`` for scikit-activeml's
        expected-error-reduction family (it retrains per candidate and
        class), else ``False``.
    density_weight : bool, optional
        Multiply the utilities by each row's kernel density (module docstring,
        "Density weights"; scikit-activeml's ``utility_weight``).  Default
        ``False``.  Only for a ``query`` that takes ``utility_weight``.
    ensemble_size : int, optional
        Give ``query`` as ``ensemble`` a bagging committee of this many copies
        of the classifier (module docstring, "Committees"), 1 to 1000.
        Default ``None``: ``query_params`` gives any ``ensemble``.  Only for
        a ``query`` that takes ``ensemble`` (``QueryByCommittee``).
    parzen_gamma : {"default", "scott"} or float, default "default"
        The RBF kernel's :math:`\gamma` (:math:`\exp(-\gamma \lVert x - x'\rVert^2)`) of the Parzen windows:
        the density weights' and a ``ParzenWindowClassifier`` classifier's (McPAL's).  ``"default"``:
        scikit-activeml's, scikit-learn's :math:`1/d`, whatever the data's scale; ``"scott"``: Scott's
        bandwidth on the rows given to ``query`` (labelled and pool), at every call (:func:`scott_gamma`); a
        number ``> 0``: that :math:`\gamma`.  Other than ``"default"`` only where a Parzen window is used (and
        a classifier's ``metric`` is ``"rbf"``).

    Raises
    ------
    ImportError
        If scikit-activeml is not installed (the ``peers`` extra).
    TypeError, ValueError
        Naming the argument, for a query strategy that is not a scikit-activeml
        pool query strategy, an unusable classifier, a bad name, or query
        parameters that are unknown, set by the adapter, or missing (a
        required argument of ``query``), or a ``density_weight`` or
        ``ensemble_size`` that the query strategy cannot take.

    Examples
    --------
    Wrap a scikit-activeml query strategy (here its uncertainty sampling by entropy) and score candidates with it
    beside the toolkit's own; with an uncertainty measure of the same classifier it chooses what SE chooses:

    >>> import numpy as np
    >>> from skactiveml.pool import UncertaintySampling
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context, ShannonEntropy, select
    >>> from mri_theory.strategies.skactiveml import SkactivemlStrategy
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(10, rng)
    >>> pool = problem.sample(30, rng)[0]
    >>> ctx = Context(X, y, candidates=pool, pool=pool, classifier=LDA(), n_classes=2, rng=rng)
    >>> entropy_peer = SkactivemlStrategy(UncertaintySampling(method="entropy"), name="my-US-entropy")
    >>> select(entropy_peer, ctx)[0] == select(ShannonEntropy(), ctx)[0]
    True

    A peer is a strategy like any other: ``run_curves("four-gaussian", "lda", ["SE", entropy_peer])``.
    """

    needs_truth = False
    estimates_t_e = False

    origin = "peer"  #: scikit-activeml's (:attr:`Strategy.origin <mri_theory.strategies.Strategy.origin>`)
    repr_if_changed = ("parzen_gamma",)  #: the repr shows ``parzen_gamma`` only away from ``"default"``

    def __init__(self, query_strategy: Any, *, name: str | None = None, classifier: Any = None,
                 query_params: Mapping[str, Any] | None = None, costly: bool | None = None,
                 density_weight: bool = False, ensemble_size: int | None = None,
                 parzen_gamma: str | float = "default") -> None:
        skal = _skactiveml()
        if not isinstance(query_strategy, skal.base.SingleAnnotatorPoolQueryStrategy):
            raise TypeError("query_strategy must be a scikit-activeml pool query strategy "
                            "(skactiveml.base.SingleAnnotatorPoolQueryStrategy, e.g. "
                            f"skactiveml.pool.UncertaintySampling()), got {type(query_strategy).__name__}")
        query = inspect.signature(query_strategy.query).parameters
        self.query_strategy = query_strategy
        self.name = self._check_name(name, query_strategy)
        self.density_weight = check.flag(density_weight, "density_weight")
        if self.density_weight and "utility_weight" not in query:
            raise ValueError(f"density_weight: {type(query_strategy).__name__}.query takes no utility_weight")
        if ensemble_size is not None:
            ensemble_size = check.count(ensemble_size, "ensemble_size", maximum=_MAX_ENSEMBLE)
            if "ensemble" not in query:
                raise ValueError(f"ensemble_size: {type(query_strategy).__name__}.query takes no ensemble")
        self.ensemble_size = ensemble_size
        self.classifier = self._check_classifier(classifier, "clf" in query or ensemble_size is not None, skal)
        self.query_params = self._check_query_params(query_params, query, self._set_here())
        expensive = isinstance(query_strategy, skal.pool.ExpectedErrorReduction)
        self.costly = expensive if costly is None else check.flag(costly, "costly")
        self.parzen_gamma = self._check_parzen_gamma(parzen_gamma, skal)

    def _check_parzen_gamma(self, parzen_gamma: Any, skal: Any) -> str | float:
        if isinstance(parzen_gamma, str):
            if parzen_gamma not in PARZEN_GAMMAS:
                raise ValueError(f"parzen_gamma must be one of {', '.join(map(repr, PARZEN_GAMMAS))} or a number "
                                 f"> 0, got {parzen_gamma!r}")
        else:
            parzen_gamma = check.finite_scalar(parzen_gamma, "parzen_gamma")
            if not parzen_gamma > 0:
                raise ValueError(f"parzen_gamma must be > 0, got {parzen_gamma}")
        parzen = isinstance(self.classifier, skal.classifier.ParzenWindowClassifier)
        if parzen_gamma != "default":
            if not (self.density_weight or parzen):
                raise ValueError("parzen_gamma: this strategy uses no Parzen window (neither density_weight nor a "
                                 "ParzenWindowClassifier classifier); leave it 'default'")
            if parzen and self.classifier.metric != "rbf":
                raise ValueError(f"parzen_gamma: the classifier's metric is {self.classifier.metric!r}, not 'rbf'")
        return parzen_gamma

    def _gamma(self, X: np.ndarray) -> float | None:
        """The Parzen windows' ``gamma`` on the rows ``X`` (None: scikit-activeml's default)."""
        if self.parzen_gamma == "default":
            return None
        return scott_gamma(X) if self.parzen_gamma == "scott" else float(self.parzen_gamma)

    @staticmethod
    def _check_name(name: Any, query_strategy: Any) -> str:
        if name is None:
            return f"skal-{type(query_strategy).__name__}"
        return label(name, "name")  # it labels rows and part files

    @staticmethod
    def _check_classifier(classifier: Any, takes_clf: bool, skal: Any) -> Any:
        if classifier is None:
            return None
        if not takes_clf:
            raise ValueError("classifier: this query strategy's query takes no clf; leave classifier=None")
        if isinstance(classifier, skal.classifier.SklearnClassifier):
            if classifier.cost_matrix is not None or classifier.include_unlabeled_samples:
                raise ValueError("classifier: a scikit-activeml SklearnClassifier is unwrapped to its estimator, "
                                 "so it must not set cost_matrix or include_unlabeled_samples")
            classifier = classifier.estimator
        if isinstance(classifier, (Classifier, skal.base.SkactivemlClassifier)):
            return classifier
        if not (isinstance(classifier, BaseEstimator) and is_classifier(classifier)
                and hasattr(classifier, "predict_proba")):
            raise TypeError("classifier must be None, an mri_theory Classifier, a scikit-learn classifier with "
                            f"predict_proba, or a scikit-activeml classifier; got {classifier!r}")
        return classifier

    def _set_here(self) -> tuple[str, ...]:
        """The arguments of ``query`` this adapter sets."""
        return (_SET_BY_ADAPTER + ("utility_weight",) * self.density_weight
                + ("ensemble",) * (self.ensemble_size is not None))

    @staticmethod
    def _check_query_params(query_params: Any, query: Mapping[str, inspect.Parameter],
                            set_here: tuple[str, ...] = _SET_BY_ADAPTER) -> dict[str, Any]:
        if query_params is None:
            query_params = {}
        if not isinstance(query_params, Mapping):
            raise TypeError(f"query_params must be a mapping of query's keyword arguments, got "
                            f"{type(query_params).__name__}")
        query_params = dict(query_params)
        not_names = [k for k in query_params if not isinstance(k, str)]
        if not_names:
            raise TypeError(f"query_params keys must be query's argument names (str), got {not_names!r}")
        reserved = sorted(set(query_params) & set(set_here))
        if reserved:
            raise ValueError(f"query_params must not set {reserved}: the adapter sets {list(set_here)}")
        unknown = sorted(set(query_params) - set(query))
        if unknown:
            raise TypeError(f"query_params {unknown} are not arguments of query; it accepts {list(query)}")
        missing = [p for p, par in query.items() if p not in set_here and p not in query_params
                   and par.default is inspect.Parameter.empty
                   and par.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
        if missing:
            raise ValueError(f"query_params must give query's required arguments {missing}")
        return query_params

    def __repr__(self) -> str:
        return (f"SkactivemlStrategy({_spec(self.query_strategy)}, name={self.name!r}, "
                f"classifier={_spec(self.classifier)}, query_params={_spec(self.query_params)}, "
                f"costly={self.costly!r}, density_weight={self.density_weight!r}, "
                f"ensemble_size={self.ensemble_size!r}"
                + (f", parzen_gamma={self.parzen_gamma!r}" if self.parzen_gamma != "default" else "") + ")")

    def _clf(self, ctx: Context, seed: int, gamma: float | None) -> Any:
        """The ``clf`` for ``query`` (see the module docstring); a Parzen window's kernel ``gamma`` (None: its own)."""
        skal = _skactiveml()
        classes = np.arange(ctx.n_classes)
        if isinstance(self.classifier, skal.base.SkactivemlClassifier):
            clf = clone(self.classifier).set_params(classes=classes, missing_label=skal.utils.MISSING_LABEL,
                                                    random_state=seed)
            if gamma is not None and isinstance(clf, skal.classifier.ParzenWindowClassifier):
                clf.set_params(metric_dict={**(clf.metric_dict or {}), "gamma": gamma})
            return clf
        model = ctx.classifier if self.classifier is None else self.classifier
        return _peer_classifier_class()(model, classes=classes, random_state=seed)

    def scores(self, ctx: Context) -> np.ndarray:
        """The query strategy's utilities of ``ctx.candidates`` (larger is better).

        One integer drawn from ``ctx.rng`` seeds the query strategy (and a
        scikit-activeml classifier), so equal generators give equal scores.

        Parameters
        ----------
        ctx : Context
            The query strategy sees ``ctx.X``, ``ctx.y`` as its labelled rows and ``ctx.pool`` (plus any
            candidate not in it) as its unlabelled rows, and scores the rows of ``ctx.candidates``.

        Returns
        -------
        ndarray (m,)
            The utilities ``query`` returns for the candidates (``return_utilities=True``, batch size 1),
            as floats.
        """
        skal = _skactiveml()
        seed = int(ctx.rng.integers(_SEED_BOUND))
        labelled = np.asarray(ctx.X, dtype=float)
        pool = np.ascontiguousarray(ctx.pool, dtype=float)
        candidates = np.ascontiguousarray(ctx.candidates, dtype=float)
        row_of = {row.tobytes(): i for i, row in enumerate(pool)}
        extra: list[np.ndarray] = []
        index = np.empty(candidates.shape[0], dtype=int)
        for i, x in enumerate(candidates):
            j = row_of.get(x.tobytes())
            if j is None:
                j = pool.shape[0] + len(extra)
                extra.append(x)
            index[i] = labelled.shape[0] + j
        X = np.vstack([labelled, pool, *[x[None, :] for x in extra]])
        y = np.concatenate([np.asarray(ctx.y, dtype=float),
                            np.full(X.shape[0] - labelled.shape[0], skal.utils.MISSING_LABEL)])
        qs = clone(self.query_strategy).set_params(random_state=seed, missing_label=skal.utils.MISSING_LABEL)
        kwargs = dict(self.query_params)
        gamma = self._gamma(X)
        if "clf" in inspect.signature(qs.query).parameters:
            kwargs["clf"] = self._clf(ctx, seed, gamma)
        if self.ensemble_size is not None:
            kwargs["ensemble"] = _peer_committee_class()(self._clf(ctx, seed, gamma), self.ensemble_size,
                                                         classes=np.arange(ctx.n_classes), random_state=seed)
        if self.density_weight:
            kwargs["utility_weight"] = _density(X, ctx.n_classes, seed, gamma)
        _, utilities = qs.query(X, y, candidates=index, batch_size=1, return_utilities=True, **kwargs)
        return np.asarray(utilities, dtype=float)[0, index]


def peer(name: str, **options: Any) -> SkactivemlStrategy:
    """The registered peer ``name`` (:data:`mri_theory.strategies.PEER_NAMES`), its options changed by ``options``.

    Parameters
    ----------
    name : str
        A peer's name, e.g. ``"SkUS-margin"`` or ``"SkMC-EER"``.
    **options
        Keyword arguments of :class:`SkactivemlStrategy` replacing the peer's
        (``classifier``, ``costly``, ``query_params``, ``density_weight``,
        ``ensemble_size``, ``parzen_gamma``); not ``query_strategy`` or ``name``.

    Returns
    -------
    SkactivemlStrategy
        Named ``name``: its query strategy from ``skactiveml.pool`` with the
        catalogue's parameters, and the classifier ``None`` (the sandbox's base
        classifier) or a ``ParzenWindowClassifier()`` (McPAL).

    Raises
    ------
    ImportError
        Without scikit-activeml (the ``peers`` extra).
    TypeError, ValueError
        For an unknown ``name`` or option, or a bad option's value.

    See Also
    --------
    mri_theory.strategies.skactiveml.SkactivemlStrategy : The adapter it builds.
    mri_theory.strategies.get_strategy : The registry, which calls it for a peer's name.

    Examples
    --------
    A scikit-activeml strategy by its registered name (the ``peers`` extra), as the catalogue builds it: the QBC
    peers get a bagging committee of 10 copies of the base classifier:

    >>> from mri_theory.strategies.skactiveml import peer
    >>> peer("SkUS-entropy").name
    'SkUS-entropy'
    >>> qbc = peer("SkQBC-VE")
    >>> type(qbc.query_strategy).__name__, qbc.query_strategy.method, qbc.ensemble_size
    ('QueryByCommittee', 'vote_entropy', 10)
    >>> peer("SkQBC-VE", ensemble_size=4).ensemble_size  # an option of the adapter changed
    4
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    if name not in PEERS:
        raise ValueError(f"name: unknown peer {name!r}; the peers are {', '.join(PEERS)}")
    unknown = sorted(set(options) - set(_PEER_OPTIONS))
    if unknown:
        raise TypeError(f"options {unknown} are not options of the peer {name!r}; it accepts {list(_PEER_OPTIONS)}")
    skal = _skactiveml()
    spec = PEERS[name]
    classifier = skal.classifier.ParzenWindowClassifier() if spec.classifier == "parzen" else None
    settings: dict[str, Any] = {"classifier": classifier, "density_weight": spec.density_weight,
                                "ensemble_size": spec.ensemble_size, "parzen_gamma": spec.parzen_gamma, **options}
    return SkactivemlStrategy(getattr(skal.pool, spec.query_class)(**spec.params), name=name, **settings)
