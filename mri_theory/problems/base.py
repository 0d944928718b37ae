r"""The abstract :class:`Problem`: what populations, the engine and the runners use of a problem.
"""

from __future__ import annotations

import abc
import functools
import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from mri_theory._utils import validation as check
from mri_theory.engine.population import Population
from mri_theory.problems._mixture import MAX_ABS_X

__all__ = ["DENSITY_CHUNK", "MAX_INITIAL_DRAWS", "Problem", "initial_labelled_set"]

#: Draws :func:`initial_labelled_set` makes before it gives up finding a point of every class.
MAX_INITIAL_DRAWS = 2**20

#: Rows per block when evaluating densities, to bound memory (n x m x d).
DENSITY_CHUNK = 1 << 15




# --------------------------------------------------------------------------
# The abstract problem
# --------------------------------------------------------------------------


class Problem(abc.ABC):
    r"""A classification problem with known class densities (Appendix D).

    Subclasses provide :meth:`sample`, ``_class_log_densities`` (on
    validated input) and ``_compute_bayes_error``; everything else (the
    marginal density, the Bayes posterior **p**, the Bayes decision, the data
    of a sandbox replicate) follows, Bayes' rule computed in log space.  A
    subclass whose points are a transform of uniforms also provides
    :attr:`uniform_dim` and :meth:`sample_from_uniform` (the base class raises
    ``NotImplementedError``); quasi-Monte Carlo populations
    (:meth:`mri_theory.engine.population.Population.from_problem` with
    ``method="qmc"``, hence :meth:`draw_replicate`) need them.
    :class:`DataProblem` (real data) refuses the methods that need the truth
    and overrides :meth:`draw_replicate`.

    What populations and runners use of a problem, and nothing else, is
    declared here: :attr:`name`, :attr:`n_classes`, :attr:`dim`,
    :attr:`prior`, :attr:`has_truth`, :meth:`sample`, :meth:`posterior`,
    :attr:`uniform_dim`, :meth:`sample_from_uniform` and :meth:`draw_replicate`.

    Parameters
    ----------
    name : str
        Registry name, non-empty.
    n_classes : int
        Number of classes ``k >= 2``.
    dim : int
        Covariate dimension ``d >= 1``.
    prior : array_like, shape (k,)
        Class prior: ``k`` entries in (0, 1) summing to 1; stored divided
        by its sum, read-only.

    Attributes
    ----------
    name : str
        Registry name.
    n_classes : int
        Number of classes ``k`` (labels ``0..k-1``).
    dim : int
        Covariate dimension ``d``.
    prior : ndarray, shape (k,)
        Class prior :math:`\pi`.

    See Also
    --------
    mri_theory.problems.get_problem : A registered problem by name.
    mri_theory.problems.GaussianMixtureProblem : The problems of Appendix D.

    Examples
    --------
    Every problem knows its class densities, so the Bayes posterior of any point is exact:

    >>> import numpy as np
    >>> from mri_theory.problems import get_problem
    >>> problem = get_problem("two-gaussians")
    >>> problem.n_classes, problem.dim, problem.prior.tolist()
    (2, 1, [0.5, 0.5])
    >>> posterior = problem.posterior(np.array([[-1.0], [0.0], [1.0]]))
    >>> posterior.sum(axis=1).round(12).tolist(), posterior[1].round(6).tolist()  # x = 0 is the boundary
    ([1.0, 1.0, 1.0], [0.5, 0.5])
    """

    name: str
    n_classes: int
    dim: int
    prior: np.ndarray
    #: Whether the truth (densities, Bayes posterior) is known: True for the
    #: simulated problems; :class:`DataProblem` sets it False, and the sandbox
    #: then refuses strategies that need the truth and ``record_q_c=True``.
    has_truth: bool = True

    def __init__(self, name: str, n_classes: int, dim: int, prior: ArrayLike) -> None:
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty str, got {name!r}")
        self.name = name
        self.n_classes = check.count(n_classes, "n_classes", minimum=2)
        self.dim = check.count(dim, "dim", minimum=1)
        p = check.probability_vector(prior, "prior", size=self.n_classes)
        p = p / p.sum()
        p.setflags(write=False)
        self.prior = p
        self._log_prior = np.log(p)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(name={self.name!r}, n_classes={self.n_classes}, "
                f"dim={self.dim}, prior={self.prior.tolist()})")

    # -- input ------------------------------------------------------------

    def _check_X(self, X: ArrayLike, name: str = "X") -> np.ndarray:
        """``X`` as a finite float array of shape ``(n, dim)``."""
        arr = check.finite_array(X, name)
        if arr.ndim == 1 and self.dim == 1:
            arr = arr.reshape(-1, 1)
        if arr.ndim != 2 or arr.shape[1] != self.dim:
            raise ValueError(
                f"{name} must have shape (n, {self.dim}) for the {self.dim}-D problem "
                f"{self.name!r}" + (" (or (n,))" if self.dim == 1 else "") + f", got shape {arr.shape}"
            )
        if arr.size and np.max(np.abs(arr)) > MAX_ABS_X:
            raise ValueError(f"{name} entries must be at most {MAX_ABS_X:g} in absolute value")
        return arr

    # -- one sandbox replicate --------------------------------------------

    def draw_replicate(
        self, pool_size: int, population_size: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Any]:
        r"""The data of one sandbox replicate (§5.2): initial set, pool and evaluation population.

        In this order from ``rng``: the initial labelled set of one point per
        class (:func:`initial_labelled_set`), ``pool_size`` i.i.d. pool points
        (:meth:`sample`), and a quasi-Monte Carlo population of
        ``population_size`` points carrying the exact Bayes posteriors
        (:meth:`mri_theory.engine.population.Population.from_problem` with
        ``method="qmc"``), on which the losses (and the true :math:`Q^c`) are
        computed.

        Parameters
        ----------
        pool_size : int
            Number of unlabelled pool points, ``>= 1``.
        population_size : int
            Number of population points, ``>= 1``.
        rng : numpy.random.Generator

        Returns
        -------
        X0 : ndarray, shape (k, d)
        y0 : ndarray, shape (k,)
        pool_X : ndarray, shape (pool_size, d)
        pool_y : ndarray, shape (pool_size,)
        population : Population
        """
        pool_size = check.count(pool_size, "pool_size", maximum=check.MAX_SIZE)
        population_size = check.count(population_size, "population_size", maximum=check.MAX_SIZE)
        rng = check.generator(rng)
        X0, y0 = initial_labelled_set(self, rng)
        pool_X, pool_y = self.sample(pool_size, rng)
        population = Population.from_problem(self, population_size, rng, method="qmc")
        return X0, y0, pool_X, pool_y, population

    # -- what a subclass provides ----------------------------------------

    @abc.abstractmethod
    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Draw ``n`` i.i.d. pairs: ``X`` of shape ``(n, d)`` (float), ``y`` of shape ``(n,)`` (int).

        Parameters
        ----------
        n : int
            Sample size, ``>= 1``.
        rng : numpy.random.Generator
            The source of randomness.

        Returns
        -------
        X : ndarray, shape (n, d)
            The points (float).
        y : ndarray, shape (n,)
            Their labels in ``0..k-1`` (int).
        """

    @abc.abstractmethod
    def _class_log_densities(self, X: np.ndarray) -> np.ndarray:
        """``ln f_j(x)`` for validated ``X`` of shape ``(n, d)``; returns ``(n, k)``."""

    @abc.abstractmethod
    def _compute_bayes_error(self) -> float:
        """The Bayes error rate, computed accurately (called once, then cached)."""

    # -- points from uniforms (quasi-Monte Carlo populations) -------------

    def _no_uniform_sampler(self) -> NotImplementedError:
        return NotImplementedError(
            f"{type(self).__name__} {self.name!r} does not map uniforms to points: override uniform_dim and "
            "sample_from_uniform for quasi-Monte Carlo populations (method='qmc', draw_replicate), "
            "or use method='sample'")

    @property
    def uniform_dim(self) -> int:
        """Number of uniform coordinates :meth:`sample_from_uniform` consumes per point.

        Raises
        ------
        NotImplementedError
            Unless a subclass overrides it (as :class:`GaussianMixtureProblem` does: ``2 + d``).
        """
        raise self._no_uniform_sampler()

    def sample_from_uniform(self, u: ArrayLike) -> np.ndarray:
        """Points ``X`` of shape ``(n, d)`` from uniforms ``u`` of shape ``(n, uniform_dim)`` in ``(0, 1)``.

        Distributed as :meth:`sample`'s points when ``u`` is uniform; a
        low-discrepancy ``u`` gives a quasi-Monte Carlo population.

        Parameters
        ----------
        u : array_like, shape (n, uniform_dim)

        Returns
        -------
        ndarray, shape (n, d)

        Raises
        ------
        NotImplementedError
            Unless a subclass overrides it (as :class:`GaussianMixtureProblem` does).
        """
        raise self._no_uniform_sampler()

    # -- densities and Bayes' rule ----------------------------------------

    def class_log_densities(self, X: ArrayLike) -> np.ndarray:
        r"""Class-conditional log densities :math:`\ln f_j(x)`, shape ``(n, k)``.

        Parameters
        ----------
        X : array_like, shape (n, d)
            Finite points, entries at most :data:`MAX_ABS_X` in absolute
            value (for a 1-D problem, shape ``(n,)`` as well).

        Returns
        -------
        ndarray, shape (n, k)
            Entry ``[i, j]`` is :math:`\ln f_j(x_i)`.
        """
        return self._class_log_densities(self._check_X(X))

    def class_densities(self, X: ArrayLike) -> np.ndarray:
        r"""Class-conditional densities :math:`f_j(x)`, shape ``(n, k)`` (may underflow to 0).

        Parameters
        ----------
        X : array_like, shape (n, d)
            Finite points, entries at most :data:`MAX_ABS_X` in absolute
            value (for a 1-D problem, shape ``(n,)`` as well).

        Returns
        -------
        ndarray, shape (n, k)
            Entry ``[i, j]`` is :math:`f_j(x_i)`, the exponential of :meth:`class_log_densities`.
        """
        return np.exp(self.class_log_densities(X))

    def log_joint(self, X: ArrayLike) -> np.ndarray:
        r""":math:`\ln \pi_j + \ln f_j(x)`, shape ``(n, k)``.

        Parameters
        ----------
        X : array_like, shape (n, d)
            Finite points, entries at most :data:`MAX_ABS_X` in absolute
            value (for a 1-D problem, shape ``(n,)`` as well).

        Returns
        -------
        ndarray, shape (n, k)
            Entry ``[i, j]`` is :math:`\ln \pi_j + \ln f_j(x_i)`.
        """
        return self.class_log_densities(X) + self._log_prior

    def log_density(self, X: ArrayLike) -> np.ndarray:
        r"""Log marginal density :math:`\ln p(x) = \ln \sum_j \pi_j f_j(x)`, shape ``(n,)``.

        Parameters
        ----------
        X : array_like, shape (n, d)
            Finite points, entries at most :data:`MAX_ABS_X` in absolute
            value (for a 1-D problem, shape ``(n,)`` as well).

        Returns
        -------
        ndarray, shape (n,)
            :math:`\ln p(x_i)`, the ``logsumexp`` of :meth:`log_joint` over the classes.
        """
        return special.logsumexp(self.log_joint(X), axis=1)

    def density(self, X: ArrayLike) -> np.ndarray:
        r"""Marginal density :math:`p(x) = \sum_j \pi_j f_j(x)`, shape ``(n,)``.

        Parameters
        ----------
        X : array_like, shape (n, d)
            Finite points, entries at most :data:`MAX_ABS_X` in absolute
            value (for a 1-D problem, shape ``(n,)`` as well).

        Returns
        -------
        ndarray, shape (n,)
            :math:`p(x_i)`, the exponential of :meth:`log_density` (may underflow to 0).
        """
        return np.exp(self.log_density(X))

    def log_posterior(self, X: ArrayLike) -> np.ndarray:
        r"""``ln`` of the Bayes posterior, :math:`\ln p_j(x)`, shape ``(n, k)``, without underflow.

        Parameters
        ----------
        X : array_like, shape (n, d)
            Finite points, entries at most :data:`MAX_ABS_X` in absolute
            value (for a 1-D problem, shape ``(n,)`` as well).

        Returns
        -------
        ndarray, shape (n, k)
            Entry ``[i, j]`` is :math:`\ln p_j(x_i)`, the log-softmax of :meth:`log_joint` over the classes.
        """
        return special.log_softmax(self.log_joint(X), axis=1)

    def posterior(self, X: ArrayLike) -> np.ndarray:
        r"""The Bayes class probabilities **p**\ (x) (the paper's **p**), shape ``(n, k)``.

        :math:`p_j(x) = \pi_j f_j(x) / \sum_i \pi_i f_i(x)`, computed with
        :func:`scipy.special.softmax` of the log joint densities, so the rows
        are finite and sum to 1 even far from every component (e.g. at
        ``|x| = 1e3``, where every density underflows to 0).

        Parameters
        ----------
        X : array_like, shape (n, d)
            Finite points, entries at most :data:`MAX_ABS_X` in absolute
            value (for a 1-D problem, shape ``(n,)`` as well).

        Returns
        -------
        ndarray, shape (n, k)
            Entry ``[i, j]`` is :math:`p_j(x_i)`; each row sums to 1.
        """
        return special.softmax(self.log_joint(X), axis=1)

    def bayes_predict(self, X: ArrayLike) -> np.ndarray:
        """The Bayes decision :math:`\\arg\\max_j p_j(x)`, shape ``(n,)``; ties go to the lower label.

        Parameters
        ----------
        X : array_like, shape (n, d)
            Finite points, entries at most :data:`MAX_ABS_X` in absolute
            value (for a 1-D problem, shape ``(n,)`` as well).

        Returns
        -------
        ndarray, shape (n,)
            The label in ``0..k-1`` of the largest :math:`\\pi_j f_j(x_i)` (int).
        """
        return np.argmax(self.log_joint(X), axis=1)

    # -- the Bayes error --------------------------------------------------

    @functools.cached_property
    def bayes_error(self) -> float:
        r"""The Bayes error rate :math:`L^* = E[1 - \max_j p_j(X)]` (cached).

        How it is computed depends on the subclass; for
        :class:`GaussianMixtureProblem` see
        :meth:`GaussianMixtureProblem.compute_bayes_error`.
        """
        return float(self._compute_bayes_error())

    def bayes_error_monte_carlo(self, n: int, rng: np.random.Generator) -> tuple[float, float]:
        r"""Monte Carlo estimate of the Bayes error and its standard error.

        Averages :math:`1 - \max_j p_j(X)` over ``n`` draws of ``X`` (the
        Rao-Blackwellised form: less noisy than counting misclassified labels).

        Parameters
        ----------
        n : int
            Number of draws, at least 2 and at most ``mri_theory._utils.validation.MAX_SIZE`` (``10**8``).
        rng : numpy.random.Generator
            The source of the draws (:meth:`sample`).

        Returns
        -------
        estimate, standard_error : float
            The mean of :math:`1 - \max_j p_j(X)` over the draws, and its standard error (sample standard
            deviation over :math:`\sqrt n`).
        """
        n = check.count(n, "n", minimum=2, maximum=check.MAX_SIZE)
        rng = check.generator(rng)
        X, _ = self.sample(n, rng)
        loss = np.empty(n)
        for start in range(0, n, DENSITY_CHUNK):
            block = X[start:start + DENSITY_CHUNK]
            loss[start:start + DENSITY_CHUNK] = -np.expm1(np.max(self.log_posterior(block), axis=1))
        return float(loss.mean()), float(loss.std(ddof=1) / math.sqrt(n))


def initial_labelled_set(problem: Problem, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One labelled point per class: the first of each class in draws from the problem, in class order.

    Draws come in batches of ``64 k``; after :data:`MAX_INITIAL_DRAWS` draws without a point of every
    class (a class prior below about ``1e-5``) a ``ValueError`` names the missing classes.

    Parameters
    ----------
    problem : Problem
        Drawn from with :meth:`Problem.sample`, ``64 k`` points at a time.
    rng : numpy.random.Generator
        The source of the draws.

    Returns
    -------
    X0 : ndarray, shape (k, d)
        Row ``j`` is the first point of class ``j`` drawn.
    y0 : ndarray, shape (k,)
        The labels ``0, 1, ..., k-1``.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.problems import get_problem, initial_labelled_set
    >>> X, y = initial_labelled_set(get_problem("triangles"), np.random.default_rng(0))
    >>> X.shape, y.tolist()  # one point per class, in class order
    ((2, 2), [0, 1])
    """
    k = problem.n_classes
    found: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # class -> its first point and label, as (1, d), (1,)
    draws = 0
    while len(found) < k:
        if draws >= MAX_INITIAL_DRAWS:
            absent = sorted(set(range(k)) - set(found))
            raise ValueError(f"problem {problem.name!r}: no point of classes {absent} in {draws:_} draws "
                             f"(prior {problem.prior.tolist()}); the initial labelled set needs one per class")
        X, y = problem.sample(64 * k, rng)
        draws += y.size
        for j in range(k):
            where = np.flatnonzero(y == j)
            if j not in found and where.size:
                found[j] = X[where[:1]], y[where[:1]]
    return (np.concatenate([found[j][0] for j in range(k)]), np.concatenate([found[j][1] for j in range(k)]))


# --------------------------------------------------------------------------
# Gaussian mixtures
# --------------------------------------------------------------------------
