r"""The abstract two-Gaussian example of §3.2, in closed form.

The problem is a univariate mixture of two Gaussians with a common standard
deviation, ``(X | Y=c_j) ~ N(mu_j, sigma^2)`` with prior ``pi``; the paper's
case is ``mu = (-1, 1)``, ``sigma = 1``, ``pi = (1/2, 1/2)`` (the defaults).
The classifier (:class:`MeanClassifier`) estimates only the two class means and
knows the true sd and prior.  Everything the paper computes about this example
is computed here exactly, vectorised over candidate points:

* the error rate :func:`error_rate` (Eq. ``le_equation_1``, generalised to any
  means, sd and prior);
* the future-loss vector :func:`future_losses` (**L'** of Table 1), the actual
  improvement :func:`q_a` and the statistical target :func:`q_c` (Eq. ``eqc``);
* the batch target :func:`b_c` (§3.1.1) with an exhaustive
  :func:`optimal_batch` and the :func:`greedy_batch` alternative;
* the optimal and worst single selections :func:`optimal_selection` and
  :func:`worst_selection`;
* the comparators of §3.2.2: Shannon entropy (:func:`se_selection`,
  :func:`se_uncertainty`) and random selection (:func:`rs_density`).

Labels are ``0`` (the paper's ``c_1``) and ``1`` (``c_2``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import integrate, optimize, special

from mri_theory._utils import validation as check

__all__ = [
    "TwoGaussians",
    "MeanClassifier",
    "error_rate",
    "future_losses",
    "q_a",
    "q_c",
    "b_c",
    "BatchChoice",
    "optimal_batch",
    "greedy_batch",
    "optimal_selection",
    "worst_selection",
    "se_selection",
    "se_uncertainty",
    "rs_density",
    "PAPER_CASES",
    "paper_cases_table",
]


# --------------------------------------------------------------------------
# The linear log-odds shared by the problem (true means) and the classifier
# (estimated means): both are equal-variance two-Gaussian models.
# --------------------------------------------------------------------------


def log_odds_of_means(x: np.ndarray, m1: ArrayLike, m2: ArrayLike, sigma: float, log_prior_ratio: float):
    r"""``ln p(c_1|x) / p(c_2|x) = ln(pi_1/pi_2) + (m_1 - m_2)(x - (m_1+m_2)/2) / sigma^2``."""
    m1 = np.asarray(m1, dtype=float)
    m2 = np.asarray(m2, dtype=float)
    return log_prior_ratio + (m1 - m2) * (x - 0.5 * (m1 + m2)) / sigma**2


def rows_of_log_odds(log_odds: np.ndarray) -> np.ndarray:
    """Class-probability rows ``(..., 2)`` from log-odds, stable for any magnitude."""
    return np.stack([special.expit(log_odds), special.expit(-log_odds)], axis=-1)


def _boundary(m1: np.ndarray | np.float64, m2: np.ndarray | np.float64, sigma: float,
              log_prior_ratio: float) -> np.ndarray | np.float64:
    r"""Decision boundary ``t = (m_1+m_2)/2 + sigma^2 ln(pi_1/pi_2) / (m_2 - m_1)``.

    Only meaningful where ``m_1 != m_2``; elsewhere the value is the midpoint
    and must not be used.
    """
    mid = 0.5 * (m1 + m2)
    if log_prior_ratio == 0.0:
        return mid
    gap = m2 - m1
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        shift = np.where(gap != 0, sigma**2 * log_prior_ratio / np.where(gap != 0, gap, 1.0), 0.0)
    return mid + shift


# --------------------------------------------------------------------------
# The problem
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class TwoGaussians:
    r"""The binary univariate problem of §3.2.

    ``(X | Y=c_j) ~ N(mu_j, sigma^2)``, ``P(Y=c_j) = prior_j``.

    Parameters
    ----------
    mu : pair of float, default (-1, 1)
        True class means ``(mu_1, mu_2)``; they must differ.
    sigma : float, default 1
        True common standard deviation, ``> 0``.
    prior : pair of float, default (1/2, 1/2)
        Class prior ``pi``, entries in (0, 1) summing to 1.

    See Also
    --------
    mri_theory.analytic.MeanClassifier : The classifier that estimates the two class means.
    mri_theory.analytic.error_rate : A classifier's true error rate on this problem.

    Examples
    --------
    The paper's problem: the Bayes boundary lies halfway between the means, and the Bayes error is
    :math:`\Phi(-1)`, the mass of one class beyond it:

    >>> from scipy.stats import norm
    >>> from mri_theory.analytic import TwoGaussians
    >>> problem = TwoGaussians()
    >>> problem.bayes_boundary, round(problem.bayes_error, 6), round(float(norm.cdf(-1)), 6)
    (0.0, 0.158655, 0.158655)
    >>> problem.posterior([0.0, 1.0]).round(4).tolist()
    [[0.5, 0.5], [0.1192, 0.8808]]

    A larger prior of ``c_1`` moves the boundary towards ``c_2`` by ``sigma^2 ln(pi_1/pi_2) / (mu_2 - mu_1)``:

    >>> import math
    >>> round(TwoGaussians(prior=(0.75, 0.25)).bayes_boundary, 6), round(math.log(3) / 2, 6)
    (0.549306, 0.549306)
    """

    mu: tuple[float, float] = (-1.0, 1.0)
    sigma: float = 1.0
    prior: tuple[float, float] = (0.5, 0.5)

    def __post_init__(self) -> None:
        mu = check.pair(self.mu, "mu")
        if mu[0] == mu[1]:
            raise ValueError(f"mu: the two class means must differ, got {mu}")
        prior = tuple(float(p) for p in check.probability_vector(self.prior, "prior", size=2))
        object.__setattr__(self, "mu", mu)
        object.__setattr__(self, "sigma", check.positive_scalar(self.sigma, "sigma"))
        object.__setattr__(self, "prior", prior)

    @property
    def log_prior_ratio(self) -> float:
        """``ln(pi_1 / pi_2)``."""
        return math.log(self.prior[0] / self.prior[1])

    def _z(self, x: np.ndarray) -> np.ndarray:
        """Standardised ``(x - mu_j) / sigma`` with a trailing class axis."""
        return (x[..., None] - np.asarray(self.mu)) / self.sigma

    def class_densities(self, x: ArrayLike) -> np.ndarray:
        """Class-conditional densities ``f_j(x)``, shape ``x.shape + (2,)``.

        Parameters
        ----------
        x : array_like
            Points (finite), any shape.

        Returns
        -------
        ndarray
            ``f_j(x)``, shape ``x.shape + (2,)``.
        """
        x = check.finite_array(x, "x")
        return np.exp(-0.5 * self._z(x) ** 2) / (self.sigma * math.sqrt(2 * math.pi))

    def class_cdfs(self, x: ArrayLike) -> np.ndarray:
        """Class-conditional CDFs ``F_j(x)``, shape ``x.shape + (2,)``.

        Parameters
        ----------
        x : array_like
            Points (finite), any shape.

        Returns
        -------
        ndarray
            ``F_j(x)``, shape ``x.shape + (2,)``.
        """
        x = check.finite_array(x, "x")
        return special.ndtr(self._z(x))

    def density(self, x: ArrayLike) -> np.ndarray:
        """Marginal density ``p(x) = sum_j pi_j f_j(x)``, the shape of ``x``.

        Parameters
        ----------
        x : array_like
            Points (finite), any shape.

        Returns
        -------
        ndarray
            ``p(x)``, the shape of ``x``.
        """
        return self.class_densities(x) @ np.asarray(self.prior)

    def posterior(self, x: ArrayLike) -> np.ndarray:
        r"""Bayes class probabilities **p**\ (x), shape ``x.shape + (2,)``.

        Computed from the linear log-odds with :obj:`scipy.special.expit`, so
        it is finite for any finite ``x`` (tested to ``|x| = 1e6``).

        Parameters
        ----------
        x : array_like
            Points (finite), any shape.

        Returns
        -------
        ndarray
            ``p_j(x)``, shape ``x.shape + (2,)``.
        """
        x = check.finite_array(x, "x")
        return rows_of_log_odds(log_odds_of_means(x, *self.mu, self.sigma, self.log_prior_ratio))

    def log_posterior(self, x: ArrayLike) -> np.ndarray:
        """``ln`` of :meth:`posterior`, computed without underflow.

        Parameters
        ----------
        x : array_like
            Points (finite), any shape.

        Returns
        -------
        ndarray
            ``ln p_j(x)``, shape ``x.shape + (2,)``.
        """
        x = check.finite_array(x, "x")
        r = log_odds_of_means(x, *self.mu, self.sigma, self.log_prior_ratio)
        return np.stack([special.log_expit(r), special.log_expit(-r)], axis=-1)

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Draw ``n`` i.i.d. pairs ``(x, y)`` from the problem.

        Parameters
        ----------
        n : int
            The number of pairs.
        rng : Generator
            The random generator.

        Returns
        -------
        x : ndarray of shape (n,)
            The points.
        y : ndarray of shape (n,)
            Their labels, 0 or 1.
        """
        n = check.count(n, "n")
        rng = check.generator(rng)
        y = (rng.random(n) >= self.prior[0]).astype(int)
        x = rng.normal(np.asarray(self.mu)[y], self.sigma)
        return x, y

    def sample_with_counts(
        self, counts: Sequence[int], rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """Draw a dataset holding the prior fixed, as §3.2 assumes.

        Parameters
        ----------
        counts : pair of int
            Number of points ``(n_1, n_2)`` of each class (each ``>= 0``).
        rng : numpy.random.Generator

        Returns
        -------
        x, y : ndarray
            Class ``0`` points first, then class ``1``.
        """
        if isinstance(counts, (str, bytes)) or np.ndim(counts) != 1 or len(counts) != 2:
            raise ValueError(f"counts must be a pair of counts (n_1, n_2), got {counts!r}")
        n1, n2 = (check.count(c, "counts", minimum=0) for c in counts)
        rng = check.generator(rng)
        y = np.repeat([0, 1], [n1, n2])
        x = rng.normal(np.asarray(self.mu)[y], self.sigma)
        return x, y

    @property
    def bayes_boundary(self) -> float:
        """The true decision boundary ``t`` (``(mu_1+mu_2)/2`` for equal priors)."""
        return float(_boundary(np.float64(self.mu[0]), np.float64(self.mu[1]), self.sigma,
                               self.log_prior_ratio))

    @property
    def bayes_classifier(self) -> MeanClassifier:
        """The mean classifier that knows the true means: its error is the Bayes error."""
        return MeanClassifier(self.mu, (1, 1), sigma=self.sigma, prior=self.prior)

    @property
    def bayes_error(self) -> float:
        """The Bayes error rate (Eq. ``le_equation_1`` at the true means)."""
        return error_rate(self, self.bayes_classifier)


# --------------------------------------------------------------------------
# The classifier
# --------------------------------------------------------------------------


class MeanClassifier:
    r"""The §3.2 classifier: estimates the two class means, knows sd and prior.

    Parameters
    ----------
    mu_hat : pair of float
        Estimated class means ``(m_1, m_2)`` (the paper's
        :math:`\hat\theta = (\hat\mu_1, \hat\mu_2)`).
    n : pair of int
        Number of training points behind each mean, each ``>= 1``.
    sigma : float, default 1
        The (true) common standard deviation the classifier assumes.
    prior : pair of float, default (1/2, 1/2)
        The (true) prior the classifier assumes.

    See Also
    --------
    mri_theory.analytic.TwoGaussians : The problem whose class means it estimates.

    Notes
    -----
    The classifier predicts ``c_1`` where :math:`\hat p_1(x) > 1/2`.  For
    ``m_1 < m_2`` that is ``x < t_hat``; for the inverted case ``m_1 > m_2`` it
    is ``x > t_hat`` (the paper's rule ``r_2``), with

    .. math:: \hat t = (m_1+m_2)/2 + \sigma^2 \ln(\pi_1/\pi_2) / (m_2 - m_1).

    **Rule for m_1 = m_2.**  The estimated class densities coincide, so
    :math:`\hat{\mathbf p}(x) = \pi` for every ``x``: there is no boundary and
    the classifier predicts the class with the larger prior everywhere,
    ``c_1`` when the priors are equal (ties go to the lower label, as for
    ``x = t_hat``).  Its error rate is then the prior of the other class
    (``1/2`` in the paper's case).  Plugging ``m_1 = m_2`` into Eq.
    ``le_equation_1`` instead would give the limit ``m_1 -> m_2`` from below,
    which is discontinuous there; we use the classifier's actual rule.

    Examples
    --------
    >>> from mri_theory.analytic import MeanClassifier
    >>> clf = MeanClassifier.fit([-1.0, -3.0, 1.0, 2.0], [0, 0, 1, 1])
    >>> clf
    MeanClassifier(mu_hat=(-2.0, 1.5), n=(2, 2), sigma=1.0, prior=(0.5, 0.5))
    >>> clf.boundary  # the midpoint of the estimated means, where both classes are equally likely
    -0.25
    >>> clf.proba(-0.25).tolist(), clf.predict([-1.0, 0.0]).tolist()
    ([0.5, 0.5], [0, 1])

    Retraining on one more labelled point moves only that class's mean, to ``(n_1 m_1 + x) / (n_1 + 1)``:

    >>> clf.retrained(1.0, 0)
    MeanClassifier(mu_hat=(-1.0, 1.5), n=(3, 2), sigma=1.0, prior=(0.5, 0.5))
    """

    def __init__(
        self,
        mu_hat: Sequence[float],
        n: Sequence[int],
        sigma: float = 1.0,
        prior: Sequence[float] = (0.5, 0.5),
    ) -> None:
        self.mu_hat = check.pair(mu_hat, "mu_hat")
        if isinstance(n, (str, bytes)) or np.ndim(n) != 1 or len(n) != 2:
            raise ValueError(f"n must be a pair of counts (n_1, n_2), got {n!r}")
        self.n = (check.count(n[0], "n"), check.count(n[1], "n"))
        self.sigma = check.positive_scalar(sigma, "sigma")
        self.prior = tuple(float(p) for p in check.probability_vector(prior, "prior", size=2))

    @classmethod
    def fit(
        cls,
        x: ArrayLike,
        y: ArrayLike,
        sigma: float = 1.0,
        prior: Sequence[float] = (0.5, 0.5),
    ) -> MeanClassifier:
        """Fit the class means to labelled data; every class needs a point.

        Parameters
        ----------
        x : array_like of shape (n,)
            Training points.
        y : array_like of shape (n,)
            Their labels, 0 or 1 (both present).
        sigma : float, default 1.0
            The known class standard deviation.
        prior : sequence of float, default (0.5, 0.5)
            The known class prior.

        Returns
        -------
        MeanClassifier
            The classifier with the class means and counts of the data.
        """
        x = check.finite_array(x, "x").ravel()
        y = _labels(y, "y").ravel()
        if x.shape != y.shape:
            raise ValueError(f"x and y must have the same length, got {x.shape} and {y.shape}")
        n = (int(np.sum(y == 0)), int(np.sum(y == 1)))
        if min(n) < 1:
            raise ValueError(f"y must contain both labels 0 and 1, got counts {n}")
        mu_hat = (float(np.mean(x[y == 0])), float(np.mean(x[y == 1])))
        return cls(mu_hat, n, sigma=sigma, prior=prior)

    def __repr__(self) -> str:
        return (f"MeanClassifier(mu_hat={self.mu_hat}, n={self.n}, sigma={self.sigma}, "
                f"prior={self.prior})")

    @property
    def log_prior_ratio(self) -> float:
        """``ln(pi_1 / pi_2)`` the classifier assumes."""
        return math.log(self.prior[0] / self.prior[1])

    @property
    def boundary(self) -> float:
        """The estimated decision boundary ``t_hat``.

        Raises
        ------
        ValueError
            If ``m_1 = m_2``: the classifier then has no boundary.
        """
        m1, m2 = self.mu_hat
        if m1 == m2:
            raise ValueError("mu_hat: equal estimated means give no decision boundary")
        return float(_boundary(np.float64(m1), np.float64(m2), self.sigma, self.log_prior_ratio))

    def proba(self, x: ArrayLike) -> np.ndarray:
        r"""Estimated class probabilities :math:`\hat{\mathbf p}(x)`, shape ``x.shape + (2,)``.

        Parameters
        ----------
        x : array_like
            Points (finite), any shape.

        Returns
        -------
        ndarray
            :math:`\hat p_j(x)`, shape ``x.shape + (2,)``.
        """
        x = check.finite_array(x, "x")
        return rows_of_log_odds(log_odds_of_means(x, *self.mu_hat, self.sigma, self.log_prior_ratio))

    def predict(self, x: ArrayLike) -> np.ndarray:
        """Predicted labels (``0`` or ``1``); ``p_hat_1 = 1/2`` predicts ``0``.

        Parameters
        ----------
        x : array_like
            Points (finite), any shape.

        Returns
        -------
        ndarray
            The labels, the shape of ``x``.
        """
        x = check.finite_array(x, "x")
        r = log_odds_of_means(x, *self.mu_hat, self.sigma, self.log_prior_ratio)
        return np.where(r >= 0, 0, 1)

    def retrained_means(self, x: ArrayLike) -> np.ndarray:
        r"""Means after retraining on ``x`` with each label, shape ``x.shape + (2, 2)``.

        ``out[..., j, :]`` are the means ``(m_1', m_2')`` after adding
        ``(x, c_j)``: ``m_j' = (n_j m_j + x) / (n_j + 1)`` (the paper's
        ``(1 - z) m_j + z x`` with ``z = 2/(n+2)`` when ``n_1 = n_2 = n/2``).

        Parameters
        ----------
        x : array_like
            Points (finite), any shape.

        Returns
        -------
        ndarray
            Shape ``x.shape + (2, 2)``: ``out[..., j, :]`` the means after adding ``(x, c_j)``.
        """
        x = check.finite_array(x, "x")
        (m1, m2), (n1, n2) = self.mu_hat, self.n
        new1 = (n1 * m1 + x) / (n1 + 1)
        new2 = (n2 * m2 + x) / (n2 + 1)
        keep1 = np.full_like(x, m1)
        keep2 = np.full_like(x, m2)
        return np.stack([np.stack([new1, keep2], -1), np.stack([keep1, new2], -1)], -2)

    def retrained(self, x: float, label: int) -> MeanClassifier:
        """A new classifier trained on the old data plus ``(x, label)``.

        Parameters
        ----------
        x : float
            The added point.
        label : int
            Its label, 0 or 1.

        Returns
        -------
        MeanClassifier
            The retrained classifier (this one is unchanged).
        """
        x = check.finite_scalar(x, "x")
        if np.ndim(label) != 0:
            raise ValueError(f"label must be a single label 0 or 1, got {label!r}")
        label = int(_labels(label, "label"))
        mu_hat = self.retrained_means(x)[label]
        n = list(self.n)
        n[label] += 1
        return MeanClassifier(tuple(mu_hat), tuple(n), sigma=self.sigma, prior=self.prior)


def _labels(label: ArrayLike, name: str) -> np.ndarray:
    """Validate labels: integers in {0, 1}."""
    arr = np.asarray(label)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer)
                                 or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must be integer labels 0 or 1, got {label!r}")
    if not np.all(np.isin(arr, (0, 1))):
        raise ValueError(f"{name} must be 0 (c_1) or 1 (c_2), got {label!r}")
    return arr.astype(int)


def _check_problem(problem: object) -> TwoGaussians:
    if not isinstance(problem, TwoGaussians):
        raise TypeError(f"problem must be a TwoGaussians, got {type(problem).__name__}")
    return problem


def _check_clf(clf: object) -> MeanClassifier:
    if not isinstance(clf, MeanClassifier):
        raise TypeError(f"clf must be a MeanClassifier, got {type(clf).__name__}")
    return clf


def _check_pair(problem: object, clf: object) -> None:
    _check_problem(problem)
    _check_clf(clf)


# --------------------------------------------------------------------------
# Losses and targets
# --------------------------------------------------------------------------


def error_rate_of_means(problem: TwoGaussians, clf: MeanClassifier, m1, m2) -> np.ndarray:
    """Eq. ``le_equation_1`` for the classifier with means ``(m1, m2)`` (broadcast)."""
    m1 = np.asarray(m1, dtype=float)
    m2 = np.asarray(m2, dtype=float)
    lpr = clf.log_prior_ratio
    t = _boundary(m1, m2, clf.sigma, lpr)
    with np.errstate(over="ignore"):  # t = +-inf for m_1 ~ m_2: ndtr(+-inf) is exact
        z1 = (t - problem.mu[0]) / problem.sigma
        z2 = (t - problem.mu[1]) / problem.sigma
    pi1, pi2 = problem.prior
    # m1 < m2: c_1 left of t.  Error = pi_1 (1 - F_1(t)) + pi_2 F_2(t).
    normal = pi1 * special.ndtr(-z1) + pi2 * special.ndtr(z2)
    # m1 > m2: c_1 right of t.  Error = pi_1 F_1(t) + pi_2 (1 - F_2(t)).
    inverted = pi1 * special.ndtr(z1) + pi2 * special.ndtr(-z2)
    # m1 = m2: constant prediction, c_1 when lpr >= 0; error = the other prior.
    constant = pi2 if lpr >= 0 else pi1
    return np.where(m1 < m2, normal, np.where(m1 > m2, inverted, constant))


def error_rate(problem: TwoGaussians, clf: MeanClassifier) -> float:
    r"""The classifier's true error rate :math:`L_e(\hat\theta)`, Eq. ``le_equation_1``.

    Generalised to the problem's means, sd and prior:
    ``pi_1 P(predict c_2 | c_1) + pi_2 P(predict c_1 | c_2)`` with the decision
    regions of :class:`MeanClassifier` (including the inverted case
    ``m_1 > m_2`` and the rule for ``m_1 = m_2``).

    Parameters
    ----------
    problem : TwoGaussians
    clf : MeanClassifier

    Returns
    -------
    float

    See Also
    --------
    mri_theory.analytic.error_rate_quad : The same error rate by numerical integration.
    mri_theory.analytic.symbolic.lambdify_error_rate : The same error rate derived by sympy.

    Examples
    --------
    Means shifted right by 0.5 move the boundary to ``t_hat = 0.5``, so the error is
    :math:`(\Phi(-1.5) + \Phi(-0.5)) / 2`:

    >>> from scipy.stats import norm
    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, error_rate
    >>> problem = TwoGaussians()
    >>> round(error_rate(problem, MeanClassifier((-0.5, 1.5), (9, 9))), 6)
    0.187672
    >>> round(float(norm.cdf(-1.5) + norm.cdf(-0.5)) / 2, 6)
    0.187672

    The true means give the Bayes error, inverted means its complement, and equal means (``c_1``
    predicted everywhere) one half:

    >>> [round(error_rate(problem, MeanClassifier(m, (9, 9))), 6) for m in [(-1, 1), (1, -1), (0, 0)]]
    [0.158655, 0.841345, 0.5]
    """
    _check_pair(problem, clf)
    return float(error_rate_of_means(problem, clf, *clf.mu_hat))


def future_losses(problem: TwoGaussians, clf: MeanClassifier, x: ArrayLike) -> np.ndarray:
    r"""The future-loss vector **L'** of Table 1, shape ``x.shape + (2,)``.

    ``out[..., j] = L_e(theta(D_S ∪ (x, c_j)))``: the error rate after
    retraining on ``x`` with label ``j``.

    Parameters
    ----------
    problem : TwoGaussians
        The truth: supplies the Bayes posterior and the loss.
    clf : MeanClassifier
        The classifier trained on ``D_S``.
    x : array_like
        Candidate points (any shape, finite).

    Returns
    -------
    ndarray
        The error rates after retraining, shape ``x.shape + (2,)``.

    See Also
    --------
    mri_theory.analytic.q_c : The expected improvement these losses give.

    Examples
    --------
    Column ``j`` is the error rate after retraining with ``(x, c_j)``, here at ``x = 0`` and ``x = 2``:

    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, error_rate, future_losses
    >>> problem, clf = TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9))
    >>> future_losses(problem, clf, [0.0, 2.0]).round(6).tolist()
    [[0.190512, 0.179862], [0.202956, 0.190512]]
    >>> round(error_rate(problem, clf.retrained(2.0, 1)), 6)
    0.190512
    """
    _check_pair(problem, clf)
    x = check.finite_array(x, "x")
    means = clf.retrained_means(x)
    return error_rate_of_means(problem, clf, means[..., 0], means[..., 1])


def q_a(problem: TwoGaussians, clf: MeanClassifier, x: ArrayLike, label: ArrayLike) -> np.ndarray:
    r"""Actual improvement :math:`Q^a(x, y) = L(\theta(D_S)) - L(\theta(D_S ∪ (x, y)))` (§3.1).

    Parameters
    ----------
    problem : TwoGaussians
        The truth: supplies the Bayes posterior and the loss.
    clf : MeanClassifier
        The classifier trained on ``D_S``.
    x : array_like
        Candidate points.
    label : int or array_like of int
        Labels ``0`` (``c_1``) or ``1`` (``c_2``), broadcast against ``x``.

    Returns
    -------
    ndarray
        The broadcast shape of ``x`` and ``label``.

    See Also
    --------
    mri_theory.analytic.q_c : Its expectation over the oracle's label, the statistical target.

    Examples
    --------
    The actual improvement depends on the label the oracle returns; averaged over the Bayes posterior
    it is :math:`Q^c`:

    >>> import numpy as np
    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, q_a, q_c
    >>> problem, clf = TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9))
    >>> x = np.array([-1.0, 2.0])
    >>> q_a(problem, clf, x, 0).round(6).tolist(), q_a(problem, clf, x, 1).round(6).tolist()
    ([0.002723, -0.015283], [0.012397, -0.002839])
    >>> both = q_a(problem, clf, x[:, None], [0, 1])  # each point with each label, shape (2, 2)
    >>> bool(np.allclose(np.sum(problem.posterior(x) * both, axis=1), q_c(problem, clf, x), rtol=0, atol=1e-15))
    True
    """
    losses = future_losses(problem, clf, x)
    label = _labels(label, "label")
    try:
        label, losses = np.broadcast_arrays(label[..., None], losses)
    except ValueError as exc:
        raise ValueError(f"label of shape {label.shape} does not broadcast against x") from exc
    chosen = np.take_along_axis(losses, label[..., :1], axis=-1)[..., 0]
    return error_rate(problem, clf) - chosen


def q_c(problem: TwoGaussians, clf: MeanClassifier, x: ArrayLike) -> np.ndarray:
    r"""The statistical target :math:`Q^c(x) = L(\theta(D_S)) - \mathbf p(x)\cdot\mathbf{L'}(x)`, Eq. ``eqc``.

    Parameters
    ----------
    problem : TwoGaussians
        The truth: supplies the Bayes posterior **p** and the loss.
    clf : MeanClassifier
        The classifier trained on ``D_S``.
    x : array_like
        Candidate points (any shape, finite).

    Returns
    -------
    ndarray
        Expected reduction of the error rate from labelling ``x``; the shape
        of ``x``.

    See Also
    --------
    mri_theory.analytic.q_c_quad : The same target by explicit retraining and numerical integration.
    mri_theory.analytic.symbolic.lambdify_q_c : The same target derived by sympy.
    mri_theory.analytic.optimal_selection : The maximiser of :math:`Q^c` on an interval.
    mri_theory.engine.true_q_c : The true :math:`Q^c` of any problem and classifier.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, q_c, q_c_quad
    >>> problem, clf = TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9))
    >>> q_c(problem, clf, [-1.0, 0.5, 2.0]).round(6).tolist()
    [0.003877, 0.002338, -0.003063]
    >>> abs(float(q_c(problem, clf, 0.3)) - q_c_quad(problem, clf, 0.3)) < 1e-10
    True

    No label can improve on the Bayes classifier, and for estimated means symmetric about the Bayes
    boundary :math:`Q^c` is symmetric too:

    >>> bool(np.all(q_c(problem, problem.bayes_classifier, np.linspace(-3, 3, 13)) <= 0))
    True
    >>> wider = MeanClassifier((-1.1, 1.1), (9, 9))
    >>> x = np.array([0.5, 1.3, 2.7])
    >>> bool(np.allclose(q_c(problem, wider, x), q_c(problem, wider, -x), rtol=0, atol=1e-15))
    True
    """
    losses = future_losses(problem, clf, x)
    expected = np.sum(problem.posterior(x) * losses, axis=-1)
    return error_rate(problem, clf) - expected


# --------------------------------------------------------------------------
# Batches (§3.1.1)
# --------------------------------------------------------------------------

_MAX_BATCH = 20


def _labellings(r: int) -> np.ndarray:
    """All ``2^r`` labellings of ``r`` points, shape ``(2^r, r)`` of 0/1."""
    return (np.arange(2**r)[:, None] >> np.arange(r)) & 1


def _expected_batch_loss(problem: TwoGaussians, clf: MeanClassifier, batches: np.ndarray) -> np.ndarray:
    r"""``E_{Y_R|x_R}[L(theta(D_S ∪ (x_R, Y_R)))]`` for batches of shape ``(B, r)``."""
    r = batches.shape[1]
    labels = _labellings(r)  # (2^r, r)
    is_c1 = 1 - labels
    (m1, m2), (n1, n2) = clf.mu_hat, clf.n
    new1 = (n1 * m1 + batches @ is_c1.T) / (n1 + is_c1.sum(1))  # (B, 2^r)
    new2 = (n2 * m2 + batches @ labels.T) / (n2 + labels.sum(1))
    losses = error_rate_of_means(problem, clf, new1, new2)
    log_p = problem.log_posterior(batches)  # (B, r, 2)
    weights = np.exp(log_p[..., 0] @ is_c1.T + log_p[..., 1] @ labels.T)
    return np.sum(weights * losses, axis=1)


def _batch_points(xs: ArrayLike, name: str) -> np.ndarray:
    xs = check.finite_array(xs, name)
    if xs.ndim != 1 or xs.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of points, got shape {xs.shape}")
    if xs.size > _MAX_BATCH:
        raise ValueError(f"{name}: at most {_MAX_BATCH} points (2^r labellings), got {xs.size}")
    return xs


def b_c(problem: TwoGaussians, clf: MeanClassifier, xs: ArrayLike) -> float:
    r"""The exact batch target :math:`B^c(x_R)` of §3.1.1.

    :math:`B^c = L(\theta(D_S)) - \sum_{j_1..j_r} p_{j_1}(x_1)\cdots p_{j_r}(x_r)
    L(\theta(D_S ∪ (x_1, c_{j_1}) ∪ \dots ∪ (x_r, c_{j_r})))`, summed over all
    ``2^r`` labellings at once (vectorised; ``r <= 20``).

    Parameters
    ----------
    problem : TwoGaussians
        The truth: supplies the Bayes posterior and the loss.
    clf : MeanClassifier
        The classifier trained on ``D_S``.
    xs : 1-D sequence of float
        The batch of ``r`` points.

    Returns
    -------
    float

    See Also
    --------
    mri_theory.analytic.optimal_batch : The batch of a pool with the largest :math:`B^c`.
    mri_theory.analytic.q_c : :math:`B^c` of a batch of one point.

    Examples
    --------
    A batch of one point is worth its :math:`Q^c`:

    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, b_c, error_rate, q_c
    >>> problem, clf = TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9))
    >>> round(b_c(problem, clf, [0.3]), 6), round(float(q_c(problem, clf, 0.3)), 6)
    (0.002462, 0.002462)

    For two points, the same as retraining on each of the four labellings by hand:

    >>> x1, x2 = 0.3, 0.8
    >>> p1, p2 = problem.posterior(x1), problem.posterior(x2)
    >>> expected = sum(p1[j1] * p2[j2] * error_rate(problem, clf.retrained(x1, j1).retrained(x2, j2))
    ...                for j1 in (0, 1) for j2 in (0, 1))
    >>> round(error_rate(problem, clf) - float(expected), 6), round(b_c(problem, clf, [x1, x2]), 6)
    (0.003874, 0.003874)
    """
    _check_pair(problem, clf)
    xs = _batch_points(xs, "xs")
    return error_rate(problem, clf) - float(_expected_batch_loss(problem, clf, xs[None, :])[0])


class BatchChoice(NamedTuple):
    """A selected batch: pool ``indices`` (sorted), its ``points`` and its ``b_c``.

    Parameters
    ----------
    indices : tuple of int
        The chosen pool indices, sorted.
    points : ndarray
        The chosen points.
    b_c : float
        The batch's exact :math:`B^c`.

    See Also
    --------
    mri_theory.analytic.optimal_batch : The best batch, by exhaustive search.
    mri_theory.analytic.greedy_batch : The batch of the best single points.

    Examples
    --------
    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, b_c, greedy_batch
    >>> problem, clf = TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9))
    >>> choice = greedy_batch(problem, clf, [2.5, -1.5, 0.0], 2)
    >>> choice.indices, choice.points.tolist(), round(choice.b_c, 6)
    ((1, 2), [-1.5, 0.0], 0.007821)
    >>> round(b_c(problem, clf, choice.points), 6)
    0.007821
    """

    indices: tuple[int, ...]
    points: np.ndarray
    b_c: float


def _pool_and_size(pool: ArrayLike, r: int) -> tuple[np.ndarray, int]:
    pool = check.finite_array(pool, "pool")
    if pool.ndim != 1 or pool.size == 0:
        raise ValueError(f"pool must be a non-empty 1-D array of points, got shape {pool.shape}")
    r = check.count(r, "r")
    if r > min(pool.size, _MAX_BATCH):
        raise ValueError(f"r must be at most the pool size and {_MAX_BATCH}, got {r}")
    return pool, r


def optimal_batch(
    problem: TwoGaussians,
    clf: MeanClassifier,
    pool: ArrayLike,
    r: int,
    max_subsets: int = 2_000_000,
) -> BatchChoice:
    r"""The batch of ``r`` pool points maximising :math:`B^c`, by exhaustive search.

    Every one of the ``C(n_pool, r)`` subsets is scored exactly (in chunks);
    ties go to the lexicographically first subset.

    Parameters
    ----------
    problem : TwoGaussians
        The truth: supplies the Bayes posterior and the loss.
    clf : MeanClassifier
        The classifier trained on ``D_S``.
    pool : 1-D array_like
        Candidate points.
    r : int
        Batch size.
    max_subsets : int
        Refuse (``ValueError``) searches larger than this.

    Returns
    -------
    BatchChoice
        The best subset's sorted pool indices, its points and its exact :math:`B^c`.

    See Also
    --------
    mri_theory.analytic.greedy_batch : The fast alternative: the best single points.
    mri_theory.analytic.b_c : The exact batch target it maximises.

    Examples
    --------
    All ``C(5, 2) = 10`` pairs of a small pool are scored; the greedy pair (the two best single points)
    is worth less:

    >>> from itertools import combinations
    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, b_c, greedy_batch, optimal_batch
    >>> problem, clf = TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9))
    >>> pool = [0.2, -0.3, 2.6, -2.8, 1.4]
    >>> best = optimal_batch(problem, clf, pool, 2)
    >>> best.indices, best.points.tolist(), round(best.b_c, 6)
    ((0, 3), [0.2, -2.8], 0.013151)
    >>> round(max(b_c(problem, clf, [pool[i], pool[j]]) for i, j in combinations(range(5), 2)), 6)
    0.013151
    >>> greedy = greedy_batch(problem, clf, pool, 2)
    >>> greedy.indices, round(greedy.b_c, 6)
    ((1, 3), 0.012926)
    """
    _check_pair(problem, clf)
    pool, r = _pool_and_size(pool, r)
    max_subsets = check.count(max_subsets, "max_subsets")
    n_subsets = math.comb(pool.size, r)
    if n_subsets > max_subsets:
        raise ValueError(
            f"pool: exhaustive search over C({pool.size}, {r}) = {n_subsets} subsets exceeds "
            f"max_subsets={max_subsets}; use greedy_batch or a smaller pool"
        )
    combos = itertools.combinations(range(pool.size), r)
    best_value, best_subset = -np.inf, None
    chunk = max(1, 2**16 // 2**r)
    while True:
        block = np.array(list(itertools.islice(combos, chunk)), dtype=int)
        if block.size == 0:
            break
        values = -_expected_batch_loss(problem, clf, pool[block])
        i = int(np.argmax(values))
        if values[i] > best_value:
            best_value, best_subset = float(values[i]), tuple(int(k) for k in block[i])
    assert best_subset is not None  # the pool is not empty and the values are finite
    current = error_rate(problem, clf)
    return BatchChoice(best_subset, pool[list(best_subset)], current + best_value)


def greedy_batch(problem: TwoGaussians, clf: MeanClassifier, pool: ArrayLike, r: int) -> BatchChoice:
    r"""The greedy batch: the ``r`` pool points with the largest single :math:`Q^c`.

    Its exact :math:`B^c` is reported, so it can be compared with
    :func:`optimal_batch`.  Ties in ``Q^c`` go to the lower pool index.

    Parameters
    ----------
    problem : TwoGaussians
        The truth: supplies the Bayes posterior and the loss.
    clf : MeanClassifier
        The classifier trained on ``D_S``.
    pool : 1-D array_like
        Candidate points.
    r : int
        Batch size.

    Returns
    -------
    BatchChoice
        The chosen pool indices (sorted), their points and the batch's exact :math:`B^c`.

    See Also
    --------
    mri_theory.analytic.optimal_batch : The best batch, by exhaustive search.

    Examples
    --------
    The ``r`` points with the largest :math:`Q^c`, scored together by their exact :math:`B^c`, which
    can fall short of the best batch's:

    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, greedy_batch, optimal_batch, q_c
    >>> problem, clf = TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9))
    >>> pool = [0.2, -0.3, 2.6, -2.8, 1.4]
    >>> q_c(problem, clf, pool).round(6).tolist()
    [0.002482, 0.00255, -0.006465, 0.011549, -0.00013]
    >>> greedy = greedy_batch(problem, clf, pool, 2)
    >>> greedy.indices, round(greedy.b_c, 6), round(optimal_batch(problem, clf, pool, 2).b_c, 6)
    ((1, 3), 0.012926, 0.013151)
    """
    _check_pair(problem, clf)
    pool, r = _pool_and_size(pool, r)
    order = np.argsort(-q_c(problem, clf, pool), kind="stable")[:r]
    indices = tuple(sorted(int(i) for i in order))
    return BatchChoice(indices, pool[list(indices)], b_c(problem, clf, pool[list(indices)]))


# --------------------------------------------------------------------------
# Optimal single selection and the comparators (§3.2.2)
# --------------------------------------------------------------------------


def _extremum(problem, clf, bounds, sign: float, grid_size: int) -> tuple[float, float]:
    """Maximise ``sign * q_c`` on ``bounds``: dense grid, then bounded Brent refinement."""
    _check_pair(problem, clf)
    lo, hi = check.pair(bounds, "bounds")
    if not lo < hi:
        raise ValueError(f"bounds must satisfy lower < upper, got {bounds!r}")
    grid_size = check.count(grid_size, "grid_size", minimum=3)
    grid = np.linspace(lo, hi, grid_size)
    values = sign * q_c(problem, clf, grid)
    best_i = int(np.argmax(values))
    best_x, best_v = float(grid[best_i]), float(values[best_i])
    # Refine around the few best grid local maxima (the bounds included).
    padded = np.concatenate([[-np.inf], values, [-np.inf]])
    peaks = np.flatnonzero((padded[1:-1] >= padded[:-2]) & (padded[1:-1] >= padded[2:]))
    peaks = peaks[np.argsort(-values[peaks], kind="stable")][:5]
    for i in peaks.tolist():  # Python ints
        a, b = grid[max(i - 1, 0)], grid[min(i + 1, grid_size - 1)]
        res = optimize.minimize_scalar(
            lambda t: -sign * float(q_c(problem, clf, t)), bounds=(a, b), method="bounded",
            options={"xatol": 1e-12 * max(1.0, abs(a), abs(b))},
        )
        if -res.fun > best_v:
            best_x, best_v = float(res.x), float(-res.fun)
    return best_x, sign * best_v


def optimal_selection(
    problem: TwoGaussians,
    clf: MeanClassifier,
    bounds: tuple[float, float] = (-4.0, 4.0),
    grid_size: int = 20001,
) -> tuple[float, float]:
    r"""The optimal selection :math:`x_* = \arg\max_x Q^c(x)` on an interval (Eq. ``maximise_eqc``).

    A dense grid locates the global maximum (which may lie at a bound), then
    bounded Brent refinement polishes the best local maxima; the result is
    never worse than the best grid point.

    Parameters
    ----------
    problem : TwoGaussians
        The truth: supplies the Bayes posterior and the loss.
    clf : MeanClassifier
        The classifier trained on ``D_S``.
    bounds : (float, float), default (-4.0, 4.0)
        The interval searched.
    grid_size : int, default 20001
        The points of the dense grid (at least 3).

    Returns
    -------
    x_star, q_c_star : float

    See Also
    --------
    mri_theory.analytic.worst_selection : The minimiser of :math:`Q^c`.
    mri_theory.analytic.se_selection : Shannon entropy's choice, for comparison.

    Examples
    --------
    For means shifted right by 0.1 (case 2 of Figures 3-4) the best point to label lies far out on the
    left, not at the estimated boundary ``t_hat = 0.1`` that Shannon entropy would pick:

    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, optimal_selection, q_c
    >>> problem, clf = TwoGaussians(), MeanClassifier((-0.9, 1.1), (9, 9))
    >>> x_star, q_star = optimal_selection(problem, clf)
    >>> round(x_star, 4), round(q_star, 6)
    (-2.906, 0.001204)
    >>> float(q_c(problem, clf, x_star)) == q_star
    True
    >>> round(float(q_c(problem, clf, clf.boundary)), 6)
    -0.000179
    """
    return _extremum(problem, clf, bounds, 1.0, grid_size)


def worst_selection(
    problem: TwoGaussians,
    clf: MeanClassifier,
    bounds: tuple[float, float] = (-4.0, 4.0),
    grid_size: int = 20001,
) -> tuple[float, float]:
    r"""The worst selection :math:`\arg\min_x Q^c(x)` on an interval; see :func:`optimal_selection`.

    Parameters
    ----------
    problem : TwoGaussians
        The truth: supplies the Bayes posterior and the loss.
    clf : MeanClassifier
        The classifier trained on ``D_S``.
    bounds : (float, float), default (-4.0, 4.0)
        The interval searched.
    grid_size : int, default 20001
        The points of the dense grid (at least 3).

    Returns
    -------
    x_worst, q_c_worst : float
        The minimiser and its :math:`Q^c`.

    See Also
    --------
    mri_theory.analytic.optimal_selection : The maximiser of :math:`Q^c`.

    Examples
    --------
    For means 10% too wide (case 3 of Figures 3-4) labelling a point at the estimated boundary, Shannon
    entropy's choice, is the worst selection on ``[-2, 2]``:

    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, q_c, worst_selection
    >>> problem, clf = TwoGaussians(), MeanClassifier((-1.1, 1.1), (9, 9))
    >>> x_worst, q_worst = worst_selection(problem, clf, bounds=(-2.0, 2.0))
    >>> abs(round(x_worst, 4)), round(q_worst, 6), round(float(q_c(problem, clf, 0.0)), 6)
    (0.0, -0.000366, -0.000366)
    """
    return _extremum(problem, clf, bounds, -1.0, grid_size)


def se_selection(clf: MeanClassifier) -> float:
    r"""Shannon entropy's choice: the maximiser of the entropy of :math:`\hat{\mathbf p}`, i.e. ``t_hat``.

    Raises ``ValueError`` when ``m_1 = m_2`` (every ``x`` has the same entropy).

    Parameters
    ----------
    clf : MeanClassifier
        The classifier (its means must differ).

    Returns
    -------
    float
        ``t_hat``, the estimated decision boundary.

    See Also
    --------
    mri_theory.analytic.se_uncertainty : The entropy it maximises.
    mri_theory.analytic.optimal_selection : The selection that maximises :math:`Q^c` instead.

    Examples
    --------
    Shannon entropy picks the estimated boundary, which for means shifted right by 0.5 gains far less
    than the optimal selection:

    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, optimal_selection, q_c, se_selection
    >>> problem, clf = TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9))
    >>> se_selection(clf)
    0.5
    >>> round(float(q_c(problem, clf, se_selection(clf))), 4), round(optimal_selection(problem, clf)[1], 4)
    (0.0023, 0.0165)
    """
    return _check_clf(clf).boundary


def se_uncertainty(clf: MeanClassifier, x: ArrayLike) -> np.ndarray:
    r"""Shannon entropy :math:`-\sum_j \hat p_j \ln \hat p_j` of the classifier at ``x`` (nats).

    Parameters
    ----------
    clf : MeanClassifier
        The classifier.
    x : array_like
        Points (finite), any shape.

    Returns
    -------
    ndarray
        The entropy at each point, the shape of ``x``.

    See Also
    --------
    mri_theory.analytic.se_selection : The point of largest entropy.

    Examples
    --------
    The entropy is ``ln 2`` at the estimated boundary and symmetric about it:

    >>> import math
    >>> from mri_theory.analytic import MeanClassifier, se_uncertainty
    >>> clf = MeanClassifier((-0.5, 1.5), (9, 9))
    >>> se_uncertainty(clf, [0.5, -1.0, 2.0]).round(6).tolist(), round(math.log(2), 6)
    ([0.693147, 0.190865, 0.190865], 0.693147)
    """
    p = _check_clf(clf).proba(x)
    return -np.sum(special.xlogy(p, p), axis=-1)


def rs_density(problem: TwoGaussians, x: ArrayLike) -> np.ndarray:
    """Random selection's selection density: the marginal density ``p(x)`` of the pool.

    Parameters
    ----------
    problem : TwoGaussians
        The problem.
    x : array_like
        Points (finite), any shape.

    Returns
    -------
    ndarray
        ``p(x)``, the shape of ``x``.

    See Also
    --------
    mri_theory.analytic.paper_cases_table : Random selection's expected :math:`Q^c` for the paper's cases.

    Examples
    --------
    The mixture density ``(phi(x + 1) + phi(x - 1)) / 2``: ``phi(1)`` at 0, and it integrates to 1:

    >>> import numpy as np
    >>> from scipy import integrate
    >>> from scipy.stats import norm
    >>> from mri_theory.analytic import TwoGaussians, rs_density
    >>> problem = TwoGaussians()
    >>> round(float(rs_density(problem, 0.0)), 6), round(float(norm.pdf(1)), 6)
    (0.241971, 0.241971)
    >>> round(integrate.quad(lambda x: float(rs_density(problem, x)), -np.inf, np.inf)[0], 8)
    1.0
    """
    return _check_problem(problem).density(x)


# --------------------------------------------------------------------------
# The paper's four cases (Figures 3 and 4)
# --------------------------------------------------------------------------

#: The four estimated-mean cases of Figures 3-4, all with n_s = 18, n = (9, 9).
PAPER_CASES: dict[str, MeanClassifier] = {
    "right-shifted by 0.5": MeanClassifier((-0.5, 1.5), (9, 9)),
    "right-shifted by 0.1": MeanClassifier((-0.9, 1.1), (9, 9)),
    "wider by 0.1": MeanClassifier((-1.1, 1.1), (9, 9)),
    "inverted": MeanClassifier((1.0, -1.0), (9, 9)),
}


def paper_cases_table(
    problem: TwoGaussians | None = None, bounds: tuple[float, float] = (-4.0, 4.0)
) -> pd.DataFrame:
    r"""One row per case of Figures 3-4: ``t_hat``, ``L_e``, ``x_*``, the worst ``x``, SE and RS.

    Columns: ``case, mu_hat_1, mu_hat_2, t_hat, error_rate, x_star, q_c_star,
    x_worst, q_c_worst, x_se, q_c_se, q_c_rs`` where ``x_se = t_hat`` is SE's
    choice and ``q_c_rs = E_{x~p(x)}[Q^c(x)]`` is the expected improvement of
    random selection (by quadrature over the whole line).

    Parameters
    ----------
    problem : TwoGaussians, optional
        The truth (default ``TwoGaussians()``, the paper's).
    bounds : (float, float), default (-4.0, 4.0)
        The interval of the optimal and worst selections.

    Returns
    -------
    DataFrame
        One row per case, the columns above.

    See Also
    --------
    mri_theory.analytic.optimal_selection : The ``x_star`` column.
    mri_theory.analytic.worst_selection : The ``x_worst`` column.

    Examples
    --------
    >>> from mri_theory.analytic import paper_cases_table
    >>> table = paper_cases_table()
    >>> table["case"].tolist()
    ['1: right-shifted by 0.5', '2: right-shifted by 0.1', '3: wider by 0.1', '4: inverted']
    >>> table["t_hat"].round(4).tolist(), table["error_rate"].round(4).tolist()
    ([0.5, 0.1, 0.0, 0.0], [0.1877, 0.1599, 0.1587, 0.8413])

    Shannon entropy (``q_c_se``) never beats the optimal selection (``q_c_star``):

    >>> bool((table["q_c_se"] <= table["q_c_star"]).all())
    True
    """
    problem = TwoGaussians() if problem is None else _check_problem(problem)
    rows = []
    for k, (name, clf) in enumerate(PAPER_CASES.items(), start=1):
        x_star, q_star = optimal_selection(problem, clf, bounds)
        x_worst, q_worst = worst_selection(problem, clf, bounds)
        t_hat = clf.boundary
        q_rs = integrate.quad(lambda t, clf=clf: float(q_c(problem, clf, t) * problem.density(t)),
                              -np.inf, np.inf, epsabs=1e-13, limit=200)[0]
        rows.append({
            "case": f"{k}: {name}", "mu_hat_1": clf.mu_hat[0], "mu_hat_2": clf.mu_hat[1],
            "t_hat": t_hat, "error_rate": error_rate(problem, clf),
            "x_star": x_star, "q_c_star": q_star, "x_worst": x_worst, "q_c_worst": q_worst,
            "x_se": t_hat, "q_c_se": float(q_c(problem, clf, t_hat)), "q_c_rs": q_rs,
        })
    return pd.DataFrame(rows)
