r"""Evaluation sets: points, a row of class probabilities per point, weights.

An evaluation set is a :class:`Population`.  The loss of a classifier on it is
the weighted mean *expected* loss with each point's label distributed as its
row.  With exact Bayes posteriors as rows (:meth:`Population.from_problem`) it
estimates the classifier's true loss, Rao-Blackwellised: far less noisy than
scoring sampled labels.  With one-hot rows (:meth:`Population.from_labels`) it
is the ordinary empirical loss on labelled data.  One engine,
:func:`mri_theory.engine.retraining.future_losses`, scores classifiers on any of them.

Where the truth is a Gaussian mixture, :meth:`Population.exact` gives an
:class:`ExactPopulation` instead: no points, every loss integrated over the
mixture (:mod:`mri_theory.engine.exact`) for the classifiers that allow it.

The losses (``"error"``, ``"log"``, ``"lc"``) are defined per point in
:mod:`mri_theory.engine.losses`; :meth:`Population.loss` is their weighted mean.

This module does not import :mod:`mri_theory.problems` (which imports it to
build the populations of :meth:`~mri_theory.problems.Problem.draw_replicate`):
:meth:`Population.from_problem` uses only what
:class:`~mri_theory.problems.Problem` declares for it (``PROBLEM_INTERFACE``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from mri_theory._utils import limits
from mri_theory._utils import validation as check
from mri_theory.engine.exact import MAX_DIM, MixtureTruth
from mri_theory.engine.losses import check_loss, pointwise_loss

if TYPE_CHECKING:
    from mri_theory.problems import Problem

__all__ = ["ExactPopulation", "Population", "check_population", "qmc_uniforms"]

#: What :meth:`Population.from_problem` uses of a problem, all declared on
#: :class:`mri_theory.problems.Problem`: the methods ``sample`` and ``posterior``
#: (``method="sample"``), ``uniform_dim`` and ``sample_from_uniform`` (``method="qmc"``).
PROBLEM_INTERFACE = ("sample", "posterior", "uniform_dim", "sample_from_uniform")

_ROW_TOLERANCE = 1e-9

#: Bits of the scrambled Sobol' points of QMC populations: each coordinate is
#: an integer multiple of ``2**-_SOBOL_BITS`` before the half-cell shift.
_SOBOL_BITS = 30

#: The dimensions scipy's Sobol' direction numbers cover.
_SOBOL_MAX_DIM = 21201


class Population:
    r"""A weighted evaluation set with a class-probability row per point.

    Parameters
    ----------
    X : array_like (n, d)
        Points (a 1-D array is read as ``n`` points in one dimension).
    proba : array_like (n, k)
        Label distribution of each point: non-negative rows summing to 1
        (to ``1e-9``; they are renormalised exactly).
    weights : array_like (n,), optional
        Non-negative weights, not all zero, with a finite sum (default uniform).  Losses are the
        weighted *mean*, so the weights need not sum to 1.

    See Also
    --------
    mri_theory.engine.ExactPopulation : The exact evaluation of a Gaussian-mixture truth.

    Examples
    --------
    A weighted evaluation set with the true class probabilities of its points; its loss is the expected loss:

    >>> import numpy as np
    >>> from mri_theory.engine import Population
    >>> population = Population(np.array([[0.0], [1.0]]), np.array([[0.9, 0.1], [0.2, 0.8]]))
    >>> float(population.losses_of(np.array([[1.0, 0.0], [1.0, 0.0]]), "error"))  # class 0 at both: (0.1 + 0.8) / 2
    0.45
    >>> from mri_theory.problems import get_problem
    >>> sampled = Population.from_problem(get_problem("four-gaussian"), 1000, np.random.default_rng(0))
    >>> sampled.size, sampled.dim, sampled.n_classes
    (1000, 2, 2)
    """

    X: np.ndarray  #: (n, d) the points, read-only
    proba: np.ndarray  #: (n, k) the rows, renormalised to sum exactly 1, read-only
    weights: np.ndarray  #: (n,) the weights, normalised to sum 1, read-only

    def __init__(self, X: ArrayLike, proba: ArrayLike, weights: ArrayLike | None = None) -> None:
        points = check.finite_array(X, "X").copy()  # a copy: the caller's array is not made read-only
        if points.ndim == 1:
            points = points[:, None]
        if points.ndim != 2 or points.shape[0] < 1:
            raise ValueError(f"X must have shape (n, d) with n >= 1, got {points.shape}")
        rows = check.finite_array(proba, "proba")
        if rows.ndim != 2 or rows.shape[0] != points.shape[0] or rows.shape[1] < 2:
            raise ValueError(f"proba must have shape (n, k) = ({points.shape[0]}, k >= 2), got {rows.shape}")
        if np.any(rows < 0) or np.any(np.abs(rows.sum(axis=1) - 1) > _ROW_TOLERANCE):
            raise ValueError("proba rows must be non-negative and sum to 1")
        if weights is None:
            w = np.full(points.shape[0], 1.0 / points.shape[0])
        else:
            w = check.finite_array(weights, "weights")
            if w.shape != (points.shape[0],):
                raise ValueError(f"weights must have shape ({points.shape[0]},), got {w.shape}")
            with np.errstate(over="ignore"):
                total = w.sum()
            if np.any(w < 0) or total <= 0:
                raise ValueError("weights must be non-negative and not all zero")
            if not np.isfinite(total):  # dividing by an infinite sum would give all-zero weights
                raise ValueError(f"weights must have a finite sum (they are normalised by it), got sum {total}")
            w = w / w.sum()
        self.X = points
        self.proba = rows / rows.sum(axis=1, keepdims=True)
        self.weights = w
        for arr in (self.X, self.proba, self.weights):
            arr.setflags(write=False)

    # ------------------------------------------------------------ constructors

    @classmethod
    def from_problem(
        cls, problem: Problem, size: int, rng: np.random.Generator, method: str = "sample"
    ) -> Population:
        """A population of ``size`` points with the problem's exact Bayes posteriors as rows.

        Parameters
        ----------
        problem : Problem
            A problem object (:func:`mri_theory.problems.get_problem` turns a
            name into one).
        size : int
            Number of points, ``1 <= size <=`` ``mri_theory._utils.validation.MAX_SIZE`` (``10**8``), and
            within the memory available: the population is estimated to need
            ``32 * (2 * dim + n_classes + 2)`` bytes per point at its peak (per point of the next power of two
            for ``"qmc"``; 256 bytes in the plane with two classes, so ``10**8`` points need about 24 GiB)
            plus 64 MiB,
            and a size that does not fit in the memory available now is refused before anything is drawn.
        rng : numpy.random.Generator
        method : {"sample", "qmc"}
            ``"sample"``: i.i.d. draws from the problem.  ``"qmc"``: a scrambled
            Sobol' sequence strictly inside the unit cube (:func:`qmc_uniforms`) pushed through the
            problem's sampler, :meth:`~mri_theory.problems.Problem.sample_from_uniform` (lower
            variance for smooth losses).
        """
        problem = check_problem_interface(problem)
        size = check.count(size, "size", maximum=check.MAX_SIZE)
        rng = check.generator(rng)
        if not isinstance(method, str) or method not in ("sample", "qmc"):
            raise ValueError(f"method must be 'sample' or 'qmc', got {method!r}")
        needed = limits.population_bytes(problem, size, method)
        limits.check_memory(needed, "size", size, "a population of that many points")
        if method == "sample":
            X, _ = problem.sample(size, rng)
        else:
            X = _qmc_points(problem, size, rng)
        return cls(X, problem.posterior(X))

    @staticmethod
    def exact(problem: Any) -> ExactPopulation:
        """The exact evaluation of a Gaussian-mixture problem: losses integrated over its mixture, not sampled.

        An :class:`ExactPopulation`, accepted wherever the engine accepts a
        population (:func:`~mri_theory.engine.targets.true_q_c`,
        :func:`~mri_theory.engine.retraining.future_losses`, :meth:`ExactPopulation.loss`) for the
        classifiers whose decision regions allow exact integration (``Classifier.exact_truth``: quadratic or
        linear scores, integrated along rays by :mod:`mri_theory.engine.exact`; k-NN, whose regions are
        polygons, integrated in closed form by :func:`~mri_theory.engine.exact.partition_losses`); the others
        are refused with a ``TypeError`` naming the population.  Error and log loss, 1-D and 2-D problems.

        Parameters
        ----------
        problem : Problem
            A Gaussian-mixture problem in one or two dimensions.
        problem : GaussianMixtureProblem
            Anything else (a name, real data, a problem without mixture parameters) is refused
            with a ``TypeError``; a mixture in more than two dimensions with a ``ValueError``.

        Returns
        -------
        ExactPopulation
            The exact population of ``problem``.
        """
        if isinstance(problem, str):
            raise TypeError(f"problem must be a Problem object, got the name {problem!r}: "
                            f"use mri_theory.problems.get_problem({problem!r})")
        return ExactPopulation(MixtureTruth.from_problem(problem))

    @classmethod
    def from_labels(cls, X: ArrayLike, y: ArrayLike, n_classes: int) -> Population:
        """Labelled data as a population: one-hot rows, uniform weights (the empirical loss).

        The one-hot table has ``n * n_classes`` cells, at most ``mri_theory._utils.validation.MAX_SIZE``.

        Parameters
        ----------
        X : array_like of shape (n, d)
            The points.
        y : array_like of shape (n,)
            Their labels.
        n_classes : int
            The number of classes.
        """
        n_classes = check.count(n_classes, "n_classes", minimum=2)
        y = check.check_labels(y, n_classes, "y")
        X = check.finite_array(X, "X")
        if X.ndim == 0 or X.shape[0] != y.shape[0]:
            raise ValueError(f"X and y must have the same length, got shapes {X.shape} and {y.shape}")
        if y.size * n_classes > check.MAX_SIZE:
            raise ValueError(f"n_classes: {y.size} points x {n_classes} classes exceed the "
                             f"{check.MAX_SIZE:_} cells a one-hot population may hold")
        rows = np.zeros((y.size, n_classes))
        rows[np.arange(y.size), y] = 1.0
        return cls(X, rows)

    # ------------------------------------------------------------ properties

    @property
    def size(self) -> int:
        """Number of points."""
        return self.X.shape[0]

    @property
    def n_classes(self) -> int:
        """Number of classes ``k``."""
        return self.proba.shape[1]

    @property
    def dim(self) -> int:
        """Dimension of the points."""
        return self.X.shape[1]

    def __repr__(self) -> str:
        return f"Population(size={self.size}, dim={self.dim}, n_classes={self.n_classes})"

    # ------------------------------------------------------------ losses

    def mean(self, values: np.ndarray) -> np.ndarray:
        """Weighted mean over the first axis (the points) of ``values`` of shape ``(size, ...)``.

        Parameters
        ----------
        values : ndarray of shape (size, ...)
            One entry per point.

        Returns
        -------
        ndarray
            The weighted mean, shape ``values.shape[1:]``.
        """
        values = np.asarray(values)
        if values.ndim < 1 or values.shape[0] != self.size:
            raise ValueError(f"values must have one entry per point on the first axis ({self.size}), "
                             f"got shape {values.shape}")
        return np.tensordot(self.weights, values, axes=(0, 0))

    def losses_of(self, proba_hat: ArrayLike, loss: str = "error") -> np.ndarray:
        """Weighted mean loss of class probabilities ``proba_hat`` of shape ``(n, ..., k)``.

        Raises ``ValueError`` unless ``proba_hat`` has one row per point
        (``n = size``) and one column per class of the population (``k = n_classes``).

        Parameters
        ----------
        proba_hat : array_like of shape (n, ..., k)
            Class probabilities at the population's points.
        loss : {"error", "log", "lc"}, default "error"
            The loss.

        Returns
        -------
        ndarray
            The weighted mean loss, shape ``proba_hat.shape[1:-1]``.
        """
        loss = check_loss(loss)
        proba_hat = check.finite_array(proba_hat, "proba_hat")
        if proba_hat.ndim < 2 or proba_hat.shape[0] != self.size or proba_hat.shape[-1] != self.n_classes:
            raise ValueError(f"proba_hat must have shape ({self.size}, ..., {self.n_classes}): one row per point "
                             f"and one column per class of the population, got shape {proba_hat.shape}")
        return self.mean(pointwise_loss(self.proba, proba_hat, loss, check_input=False))

    def _predict(self, classifier: Any) -> np.ndarray:
        """``classifier.predict_proba(X)``, refusing a classifier of another class count or dimension."""
        _check_classifier_object(classifier)
        _check_fitted_like(classifier, self.n_classes, self.dim)
        proba = np.asarray(classifier.predict_proba(self.X))
        if proba.shape != (self.size, self.n_classes):
            raise ValueError(f"classifier's predict_proba gave shape {proba.shape}, but the population needs "
                             f"({self.size}, {self.n_classes}) (n_classes={self.n_classes})")
        if not np.isfinite(proba).all():  # the classifier's failure, not the population's (or a proba_hat's)
            raise ValueError(f"classifier: {type(classifier).__name__}.predict_proba gave non-finite probabilities "
                             "on the population's points")
        return proba

    def loss(self, classifier: Any, loss: str = "error") -> float:
        """The fitted ``classifier``'s expected loss on the population.

        Raises ``ValueError`` if the classifier was fitted with a number of
        classes (or a dimension) other than the population's.

        Parameters
        ----------
        classifier : Classifier
            A fitted classifier.
        loss : {"error", "log", "lc"}, default "error"
            The loss.

        Returns
        -------
        float
            The weighted mean loss.
        """
        loss = check_loss(loss)
        return float(self.losses_of(self._predict(classifier), loss))

    def loss_and_standard_error(self, classifier: Any, loss: str = "error") -> tuple[float, float]:
        """:meth:`loss` and :meth:`standard_error` of the fitted ``classifier`` from one prediction.

        Parameters
        ----------
        classifier : Classifier
            A fitted classifier.
        loss : {"error", "log", "lc"}, default "error"
            The loss.

        Returns
        -------
        loss : float
            :meth:`loss`.
        standard_error : float
            :meth:`standard_error`.
        """
        loss = check_loss(loss)
        values = pointwise_loss(self.proba, self._predict(classifier), loss, check_input=False)
        mean = self.mean(values)
        return float(mean), float(np.sqrt(np.sum(self.weights**2 * (values - mean) ** 2)))

    def error_rate(self, classifier: Any) -> float:
        """Expected error rate of a fitted classifier.

        Parameters
        ----------
        classifier : Classifier
            A fitted classifier.

        Returns
        -------
        float
            The error rate.
        """
        return self.loss(classifier, "error")

    def log_loss(self, classifier: Any) -> float:
        """Expected log loss (nats) of a fitted classifier.

        Parameters
        ----------
        classifier : Classifier
            A fitted classifier.

        Returns
        -------
        float
            The log loss.
        """
        return self.loss(classifier, "log")

    def standard_error(self, classifier: Any, loss: str = "error") -> float:
        r"""Standard error of :meth:`loss` as an estimate of the loss over the whole distribution.

        :math:`\sqrt{\sum_i w_i^2 (\ell_i - \bar\ell)^2}` for normalised
        weights, the i.i.d. formula (exact for ``"sample"`` populations;
        conservative for QMC and meaningless for deterministic quadrature).

        Parameters
        ----------
        classifier : Classifier
            A fitted classifier.
        loss : {"error", "log", "lc"}, default "error"
            The loss.

        Returns
        -------
        float
            The standard error.
        """
        return self.loss_and_standard_error(classifier, loss)[1]


def _check_classifier_object(classifier: Any) -> None:
    """A TypeError naming ``classifier`` unless it has ``predict_proba`` (a classifier object, not its name)."""
    if isinstance(classifier, str):
        raise TypeError(f"classifier must be a fitted classifier object, got the name {classifier!r}: use "
                        f"mri_theory.classifiers.get_classifier({classifier!r}) and fit it")
    if not callable(getattr(classifier, "predict_proba", None)):
        raise TypeError(f"classifier must be a fitted classifier with predict_proba, "
                        f"got {type(classifier).__name__}")


def _check_fitted_like(classifier: Any, n_classes: int, dim: int) -> None:
    """A ValueError unless a fitted classifier's class count and dimension (if it records them) are these."""
    k = getattr(classifier, "n_classes_", None)
    if k is not None and k != n_classes:
        raise ValueError(f"classifier has {k} classes (n_classes_) but the population has "
                         f"{n_classes}: fit it with n_classes={n_classes}")
    d = getattr(classifier, "dim_", None)
    if d is not None and d != dim:
        raise ValueError(f"classifier was fitted on {d}-D points but the population is {dim}-D")


class ExactPopulation:
    r"""The exact evaluation of a Gaussian-mixture truth: every loss integrated, none sampled.

    Made by :meth:`Population.exact`.  Its losses are
    :math:`\sum_c w_c E_{x \sim N(\mu_c, \Sigma_c)}[\ell(x, y_c)]` over the mixture's
    components (:class:`~mri_theory.engine.exact.MixtureTruth`), computed by each classifier's
    ``exact_loss`` rather than averaged over points: for quadratic and linear scores by
    :func:`~mri_theory.engine.exact.error_rates` and :func:`~mri_theory.engine.exact.log_losses` (to about
    1e-12), for k-NN by :func:`~mri_theory.engine.exact.partition_losses` (closed forms, to rounding: about
    1e-14).  The truth of a late learning-curve step,
    where :math:`Q^c` is smaller than a sampled population's noise, is exact.  ``"lc"`` (the
    classifier's own confidence) has no exact form here and is refused.

    Parameters
    ----------
    truth : MixtureTruth

    See Also
    --------
    mri_theory.engine.Population : A sampled (or given) evaluation set.
    mri_theory.engine.MixtureTruth : The mixture it integrates over.

    Examples
    --------
    The loss integrated over the mixture, not averaged over points: a sampled population's error approaches it:

    >>> import numpy as np
    >>> from mri_theory.classifiers import LDA
    >>> from mri_theory.engine import Population
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(20, rng)
    >>> model = LDA().fit(X, y)
    >>> exact = Population.exact(problem).loss(model, "error")
    >>> sampled = Population.from_problem(problem, 100_000, rng)
    >>> value, se = sampled.loss_and_standard_error(model, "error")
    >>> bool(abs(value - exact) < 4 * se)
    True
    """

    def __init__(self, truth: MixtureTruth) -> None:
        if not isinstance(truth, MixtureTruth):
            raise TypeError(f"truth must be a MixtureTruth (e.g. MixtureTruth.from_problem(problem)), "
                            f"got {type(truth).__name__}")
        if truth.dim > MAX_DIM:
            raise ValueError(f"truth has dimension {truth.dim}: exact losses are integrated for d = 1 and d = 2 "
                             "only; use a sampled Population")
        self.truth = truth

    def __repr__(self) -> str:
        return f"ExactPopulation({self.truth.n_components} components, n_classes={self.n_classes}, dim={self.dim})"

    @property
    def n_classes(self) -> int:
        """Number of classes ``k``."""
        return self.truth.n_classes

    @property
    def dim(self) -> int:
        """Dimension ``d`` of the inputs."""
        return self.truth.dim

    def check_loss(self, loss: Any) -> str:
        """``loss`` if it has an exact form here (``"error"`` or ``"log"``); a ValueError otherwise.

        Parameters
        ----------
        loss : str
            The loss name.

        Returns
        -------
        str
            ``loss``.
        """
        loss = check_loss(loss)
        if loss == "lc":
            raise ValueError("loss 'lc' (the classifier's own confidence) has no exact form on an ExactPopulation; "
                             "use 'error' or 'log', or a sampled Population")
        return loss

    def check_problem(self, problem: Any, name: str = "population") -> None:
        """A ValueError naming ``name`` unless this is the exact population of ``problem``.

        An exact population records its problem by its ``truth``, the mixture it integrates over: it is
        the population of every problem whose mixture (:meth:`MixtureTruth.from_problem
        <mri_theory.engine.exact.MixtureTruth.from_problem>`) is the same
        (:meth:`~mri_theory.engine.exact.MixtureTruth.same_as`: the same classes and components, equal to
        rounding), whichever object it was made from; a problem without mixture parameters has none.

        Parameters
        ----------
        problem : Problem
            The problem.
        name : str, default "population"
            The population's name in the error message.
        """
        try:
            truth = MixtureTruth.from_problem(problem)
        except (TypeError, ValueError):
            truth = None  # real data, or a problem that is no Gaussian mixture: no exact population is its own
        if truth is None or not self.truth.same_as(truth):
            raise ValueError(f"{name} is the exact population of another problem than "
                             f"{getattr(problem, 'name', type(problem).__name__)!r} (its mixture differs): make it "
                             f"with Population.exact(problem) of the problem passed")

    def check_classifier(self, classifier: Any) -> None:
        """A TypeError naming the population unless ``classifier`` has an exact path (``exact_truth``).

        Parameters
        ----------
        classifier : Classifier
            The classifier.
        """
        if not getattr(classifier, "exact_truth", False):
            raise TypeError(f"population: {type(classifier).__name__} has no exact path on an ExactPopulation "
                            "(Classifier.exact_truth is False: its decision regions are not integrated exactly); use a "
                            "sampled Population (Population.from_problem(problem, size, rng, method='qmc'))")

    def loss(self, classifier: Any, loss: str = "error") -> float:
        """The fitted ``classifier``'s exact loss under the truth (``classifier.exact_loss``).

        Raises a ``TypeError`` naming ``classifier`` when it is not a classifier object (a name, say), and
        one naming the population when the classifier has no exact path (:meth:`check_classifier`).

        Parameters
        ----------
        classifier : Classifier
            A fitted classifier.
        loss : {"error", "log"}, default "error"
            The loss.

        Returns
        -------
        float
            The exact loss.
        """
        loss = self.check_loss(loss)
        _check_classifier_object(classifier)
        self.check_classifier(classifier)
        _check_fitted_like(classifier, self.n_classes, self.dim)
        return float(classifier.exact_loss(self.truth, loss))

    def loss_and_standard_error(self, classifier: Any, loss: str = "error") -> tuple[float, float]:
        """:meth:`loss` and its standard error, 0: nothing is sampled (the interface of
        :meth:`Population.loss_and_standard_error`).

        Parameters
        ----------
        classifier : Classifier
            A fitted classifier.
        loss : {"error", "log"}, default "error"
            The loss.

        Returns
        -------
        loss : float
            The exact loss.
        standard_error : float
            0.0.
        """
        return self.loss(classifier, loss), 0.0

    def error_rate(self, classifier: Any) -> float:
        """Exact error rate of a fitted classifier.

        Parameters
        ----------
        classifier : Classifier
            A fitted classifier.

        Returns
        -------
        float
            The error rate.
        """
        return self.loss(classifier, "error")

    def log_loss(self, classifier: Any) -> float:
        """Exact log loss (nats, probabilities floored at ``LOG_LOSS_FLOOR``) of a fitted classifier.

        Parameters
        ----------
        classifier : Classifier
            A fitted classifier.

        Returns
        -------
        float
            The log loss.
        """
        return self.loss(classifier, "log")


def check_population(population: Any, name: str = "population") -> Population | ExactPopulation:
    """Require a :class:`Population` (e.g. ``Population.from_problem(problem, size, rng)``) or an
    :class:`ExactPopulation` (``Population.exact(problem)``).

    Parameters
    ----------
    population : Population or ExactPopulation
        The object to check.
    name : str, default "population"
        Its name in the error message.

    Returns
    -------
    Population or ExactPopulation
        ``population``.

    See Also
    --------
    mri_theory.engine.targets.check_truth : Validates a population with the problem of a target.
    mri_theory.engine.check_retraining_args : Validates a population with the retraining arguments.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.engine import Population, check_population
    >>> from mri_theory.problems import get_problem
    >>> population = Population.exact(get_problem("sharp"))
    >>> check_population(population) is population
    True
    >>> try:
    ...     check_population(np.zeros((5, 2)))
    ... except TypeError as error:
    ...     print("TypeError:", str(error)[:40], "...")
    TypeError: population must be a Population (e.g. Po ...
    """
    if not isinstance(population, (Population, ExactPopulation)):
        raise TypeError(f"{name} must be a Population (e.g. Population.from_problem(problem, size, rng)), "
                        f"got {type(population).__name__}")
    return population


def check_problem_interface(problem: Any, name: str = "problem") -> Problem:
    """Require an object with the ``PROBLEM_INTERFACE`` of a :class:`~mri_theory.problems.Problem`.

    Looked up on the type, so that no property runs; a problem *name* gets a
    ``TypeError`` pointing to :func:`mri_theory.problems.get_problem`.
    """
    if isinstance(problem, str):
        raise TypeError(f"{name} must be a Problem object, got the name {problem!r}: "
                        f"use mri_theory.problems.get_problem({problem!r})")
    missing = [attr for attr in PROBLEM_INTERFACE if not hasattr(type(problem), attr)]
    if missing:
        raise TypeError(f"{name} must be a Problem (e.g. mri_theory.problems.get_problem(name)), "
                        f"got {type(problem).__name__}, which lacks {', '.join(missing)}")
    return problem


def qmc_uniforms(dim: int, size: int, rng: np.random.Generator) -> np.ndarray:
    r"""The first ``size`` points of a scrambled Sobol' sequence, strictly inside :math:`(0, 1)^{dim}`.

    scipy's :class:`~scipy.stats.qmc.Sobol` with ``bits = 30`` returns integer
    multiples of :math:`2^{-30}`, so an exact ``0`` occurs (about once per
    :math:`2^{30}` coordinates).  Each point is moved to the centre of its
    dyadic cell, :math:`u + 2^{-31}`, which lies in
    :math:`[2^{-31}, 1 - 2^{-31}]` and is exact in floating point; the points
    keep their equidistribution (every elementary interval is preserved).

    ``dim`` is at most 21201 (the dimensions of scipy's direction numbers)
    and ``size`` at most ``mri_theory._utils.validation.MAX_SIZE``.

    Parameters
    ----------
    dim : int
        The dimension.
    size : int
        The number of points.
    rng : Generator
        The generator of the scramble.

    Returns
    -------
    ndarray
        The points, shape ``(size, dim)``.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.engine import qmc_uniforms
    >>> u = qmc_uniforms(2, 1024, np.random.default_rng(0))
    >>> u.shape, bool(((u > 0) & (u < 1)).all()), np.round(u.mean(axis=0), 2).tolist()
    ((1024, 2), True, [0.5, 0.5])
    """
    from scipy.stats import qmc

    dim = check.count(dim, "dim", maximum=_SOBOL_MAX_DIM)
    size = check.count(size, "size", maximum=check.MAX_SIZE)
    rng = check.generator(rng)
    sampler = qmc.Sobol(d=dim, scramble=True, bits=_SOBOL_BITS, seed=rng)
    m = int(np.ceil(np.log2(size)))
    return sampler.random_base2(m)[:size] + 2.0 ** -(_SOBOL_BITS + 1)


def _qmc_points(problem: Problem, size: int, rng: np.random.Generator) -> np.ndarray:
    return problem.sample_from_uniform(qmc_uniforms(problem.uniform_dim, size, rng))
