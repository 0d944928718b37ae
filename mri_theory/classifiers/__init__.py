"""Base classifiers (Appendix C) behind one interface, with fast retraining paths.

``fit(X, y, n_classes)``, ``predict_proba(X)`` (columns ``0..k-1`` always),
``predict(X)``, ``clone()``, and the engine's hook
:meth:`~mri_theory.engine.contract.Classifier.retraining_losses` (the current
loss and the losses after retraining on each (candidate, class)): exact fast
paths for :class:`KNN` (only points whose k-ball contains the candidate
change; plain vote or kknn's rank weights), the Gaussian family :class:`LDA`,
:class:`QDA`, :class:`GaussianNaiveBayes`, :class:`GaussianMeanClassifier`
(rank-one updates of class statistics), :class:`LogisticRegression` (all
retrained models solved together by batched Newton from the current solution,
to the solver's tolerance) and :class:`SVM` (the dual solution is unchanged
for points outside the margin; violators re-solved along the exact solution
path, or by warm-started SMO where it cannot go on);
refits for :class:`RandomForest` and :class:`SklearnClassifier`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from mri_theory._utils.registry import Registry
from mri_theory.classifiers.gaussian import (
    LDA,
    QDA,
    GaussianClassifier,
    GaussianMeanClassifier,
    GaussianNaiveBayes,
)
from mri_theory.classifiers.knn import KNN
from mri_theory.classifiers.logistic import LogisticRegression
from mri_theory.classifiers.sklearn_models import RandomForest, SklearnClassifier
from mri_theory.classifiers.svm import SVM, SVMConvergenceWarning
from mri_theory.engine.contract import Classifier, refit_future_losses

__all__ = [
    "CLASSIFIER_REGISTRY",
    "Classifier",
    "KNN",
    "LDA",
    "QDA",
    "GaussianNaiveBayes",
    "GaussianMeanClassifier",
    "GaussianClassifier",
    "LogisticRegression",
    "SVM",
    "SVMConvergenceWarning",
    "RandomForest",
    "SklearnClassifier",
    "get_classifier",
    "list_classifiers",
    "register_classifier",
    "registered_classifier",
    "unregister_classifier",
    "refit_future_losses",
]

#: The classifiers by name (:class:`~mri_theory.engine.Registry`): the built-in ones, the paper's six
#: base classifiers (Appendix C; 5-NN as R's kknn) tagged ``origin="paper"``, then those added by
#: :func:`register_classifier`.  Whether one has an exact truth is what its class declares (``exact_truth``).
CLASSIFIER_REGISTRY = Registry("classifier", Classifier, reserved={
    "all": "a selection's word for every registered name, and the ranking tables' label of the rows over every "
           "classifier (R4, bootstrap_ranks)",
    "paper": "it is a classifier set: the runners and the CLI read it as the paper's six classifiers "
             "(mri_theory.runners.CLASSIFIER_SETS)",
    "other": "it is a classifier origin (the origin tag of the built-in classifiers)"})
for _name, _factory, _origin in (("lda", LDA, "paper"),  # the paper's six first, in its order (Appendix C)
                                 ("qda", QDA, "paper"),
                                 ("kknn5", functools.partial(KNN, k=5, kernel="optimal"), "paper"),
                                 ("nb", GaussianNaiveBayes, "paper"),
                                 ("logreg", LogisticRegression, "paper"),
                                 ("svm", SVM, "paper"),
                                 ("knn5", functools.partial(KNN, k=5), "other"),
                                 ("knn21", functools.partial(KNN, k=21), "other"),
                                 ("rf", RandomForest, "other"),
                                 ("mean", GaussianMeanClassifier, "other")):
    CLASSIFIER_REGISTRY.register(_name, _factory, built_in=True, origin=_origin)


def list_classifiers() -> list[str]:
    """Names accepted by :func:`get_classifier`, sorted (the registered ones included).

    Returns
    -------
    list of str
        The names.

    See Also
    --------
    mri_theory.classifiers.get_classifier : A new classifier of a name.
    mri_theory.classifiers.register_classifier : Add a name.

    Examples
    --------
    The paper's six classifiers (Appendix C) are among the names, which come sorted:

    >>> from mri_theory.classifiers import list_classifiers
    >>> names = list_classifiers()
    >>> [name for name in ("kknn5", "lda", "qda", "nb", "logreg", "svm") if name in names], names == sorted(names)
    (['kknn5', 'lda', 'qda', 'nb', 'logreg', 'svm'], True)
    """
    return CLASSIFIER_REGISTRY.names()


def register_classifier(name: str, factory: Callable[[], Classifier], *, overwrite: bool = False) -> None:
    """Register a classifier under ``name`` for :func:`get_classifier` and the runners.

    Parameters
    ----------
    name : str
        Letters, digits and ``. _ + -``, without ``__`` (it labels rows and
        names study folders); not a reserved selection word
        (``CLASSIFIER_REGISTRY.reserved``: ``"all"``; the classifier origins
        ``"paper"``, the runners' set of the paper's six, which they would
        expand instead of reading the name, and ``"other"``).
    factory : callable
        Returns a new unfitted :class:`Classifier` with no arguments; a class works.
    overwrite : bool, default False
        Replace an existing registration (the built-in names included).

    Raises
    ------
    TypeError
        If ``name`` is not a str, or ``factory`` is not callable or cannot be
        called without arguments (checked with :func:`inspect.signature`).
    ValueError
        If ``name`` is not a safe name, is reserved, or is taken and ``overwrite`` is False.

    See Also
    --------
    mri_theory.classifiers.registered_classifier : The same for a ``with`` block.
    mri_theory.classifiers.unregister_classifier : Remove a registered classifier.
    mri_theory.classifiers.get_classifier : A new classifier by name.

    Notes
    -----
    The registry lives in this process: the runners resolve names here and
    send the classifier objects to their workers.

    Examples
    --------
    >>> from mri_theory.classifiers import KNN, get_classifier, register_classifier, unregister_classifier
    >>> register_classifier("knn9", lambda: KNN(9))
    >>> get_classifier("knn9")
    KNN(k=9, kernel='rectangular', scale=None)
    >>> unregister_classifier("knn9")
    """
    CLASSIFIER_REGISTRY.register(name, factory, overwrite=overwrite)


def unregister_classifier(name: str) -> None:
    """Remove the classifier registered as ``name`` from :func:`get_classifier` and the runners.

    Built-in classifiers cannot be unregistered, also after ``overwrite=True``
    replaced one: their names always stay available.  Replace one for a while
    with :func:`registered_classifier` and ``overwrite=True`` instead.

    Parameters
    ----------
    name : str
        The registered name.

    Raises
    ------
    TypeError
        If ``name`` is not a str.
    ValueError
        If ``name`` is built in, or not registered (the message lists the
        registered names).

    See Also
    --------
    mri_theory.classifiers.register_classifier : Register a classifier by name.
    mri_theory.classifiers.registered_classifier : Register one for a ``with`` block only.

    Examples
    --------
    >>> from mri_theory.classifiers import KNN, list_classifiers, register_classifier, unregister_classifier
    >>> register_classifier("knn9", lambda: KNN(9))
    >>> unregister_classifier("knn9")
    >>> "knn9" in list_classifiers()
    False
    """
    CLASSIFIER_REGISTRY.unregister(name)


def registered_classifier(name: str, factory: Callable[[], Classifier], *,
                          overwrite: bool = False) -> AbstractContextManager[None]:
    """A context manager: :func:`register_classifier` for the ``with`` block, then the previous state exactly.

    On exit (an exception included) ``name`` is registered as before: the
    factory a replaced name had (``overwrite=True``), or not at all.
    Arguments and errors as for :func:`register_classifier`, raised before
    anything changes.

    Parameters
    ----------
    name : str
        The name, as for :func:`register_classifier`.
    factory : callable
        Returns a new unfitted classifier with no arguments.
    overwrite : bool, default False
        Replace an existing registration for the block.

    Returns
    -------
    contextmanager
        The context manager; it yields None.

    See Also
    --------
    mri_theory.classifiers.register_classifier : Register a classifier for good.

    Examples
    --------
    >>> from mri_theory.classifiers import KNN, get_classifier, list_classifiers, registered_classifier
    >>> with registered_classifier("knn3", lambda: KNN(3)):
    ...     get_classifier("knn3")
    KNN(k=3, kernel='rectangular', scale=None)
    >>> "knn3" in list_classifiers()  # gone after the block
    False
    """
    return CLASSIFIER_REGISTRY.registered(name, factory, overwrite=overwrite)


def get_classifier(name: str, **options: Any) -> Classifier:
    """A new unfitted classifier by name; ``options`` go to its constructor (e.g. ``platt="cv"``, ``kernel="optimal"``).

    ``kknn5`` is the paper's 5-NN (R's kknn: rank weights, :class:`KNN` with
    ``kernel="optimal"``), ``knn5`` the plain majority vote; ``lda``, ``qda``,
    ``nb``, ``logreg``, ``svm`` are the other classifiers of Appendix C; ``knn21``
    and ``rf`` complete the QBC committee; ``mean`` is the §3.2 mean classifier.

    Parameters
    ----------
    name : str
        A name of :func:`list_classifiers`.
    **options
        Keyword arguments of the registered factory (a classifier's class: its constructor's parameters; a
        built-in name whose factory fixes some, such as ``kknn5``'s ``k=5``, takes the others and may override
        those), as :func:`~mri_theory.strategies.get_strategy` takes a strategy's.

    Returns
    -------
    Classifier
        A new, unfitted instance.

    Raises
    ------
    ValueError
        For an unknown name, or an option's invalid value (the classifier's own check, naming it).
    TypeError
        For an option that is not a parameter of the classifier, or a registered factory that returns no
        :class:`Classifier` (naming it).

    See Also
    --------
    mri_theory.classifiers.list_classifiers : The names it accepts.
    mri_theory.classifiers.register_classifier : Add a classifier of your own.

    Examples
    --------
    >>> from mri_theory.classifiers import get_classifier
    >>> get_classifier("kknn5")
    KNN(k=5, kernel='optimal', scale=None)
    >>> get_classifier("lda") is get_classifier("lda")  # a new unfitted model each call
    False
    >>> get_classifier("svm", platt="cv"), get_classifier("kknn5", k=7)
    (SVM(C=1.0, gamma=None, platt='cv'), KNN(k=7, kernel='optimal', scale=None))
    """
    return CLASSIFIER_REGISTRY.get(name, **options)
