r"""Slow, independent reference computations for the two-Gaussian example.

These integrate the class densities over the classifier's *predicted* regions
with :func:`scipy.integrate.quad`, using only :meth:`MeanClassifier.predict`
(the decision rule) and :meth:`TwoGaussians.class_densities` (the truth).  They
share no formula with the closed forms of :mod:`mri_theory.analytic.two_gaussians`, so
the tests and the benchmark use them as the independent check:
``L = sum_j pi_j \int f_j(x) 1[predict(x) != j] dx``.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
from scipy import integrate

from mri_theory.analytic.two_gaussians import MeanClassifier, TwoGaussians

__all__ = ["error_rate_quad", "q_c_quad"]

_TAIL_SDS = 40.0  # Gaussian mass beyond 40 sd is below 1e-300


def error_rate_quad(problem: TwoGaussians, clf: MeanClassifier) -> float:
    """Error rate by adaptive quadrature of the misclassified density.

    The integration range is the problem's means ``± 40 sd``, split at the
    classifier's boundary (when it has one) so each piece has a smooth
    integrand.

    Parameters
    ----------
    problem : TwoGaussians
        The truth.
    clf : MeanClassifier
        The classifier.

    Returns
    -------
    float
        The error rate :math:`L_e` (Eq. ``le_equation_1``), to about 1e-13.

    See Also
    --------
    mri_theory.analytic.error_rate : The closed form it checks.

    Examples
    --------
    Agrees with the closed form for a shifted, an inverted and a constant classifier:

    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, error_rate, error_rate_quad
    >>> problem = TwoGaussians()
    >>> classifiers = [MeanClassifier(m, (9, 9)) for m in [(-0.5, 1.5), (1.0, -1.0), (0.0, 0.0)]]
    >>> [round(error_rate_quad(problem, clf), 6) for clf in classifiers]
    [0.187672, 0.841345, 0.5]
    >>> max(abs(error_rate_quad(problem, clf) - error_rate(problem, clf)) for clf in classifiers) < 1e-12
    True
    """
    lo = min(problem.mu) - _TAIL_SDS * problem.sigma
    hi = max(problem.mu) + _TAIL_SDS * problem.sigma
    cuts = [lo, hi]
    if clf.mu_hat[0] != clf.mu_hat[1]:
        cuts.insert(1, float(np.clip(clf.boundary, lo, hi)))
    prior = np.asarray(problem.prior)

    def misclassified(x: float) -> float:
        dens = problem.class_densities(x) * prior
        return float(dens[1 - int(clf.predict(x))])

    total = 0.0
    for a, b in pairwise(cuts):
        if b > a:
            total += integrate.quad(misclassified, a, b, epsabs=1e-15, epsrel=1e-13, limit=400)[0]
    return total


def q_c_quad(problem: TwoGaussians, clf: MeanClassifier, x: float) -> float:
    """``Q^c(x)`` by explicit retraining both ways and quadrature losses (Eq. ``eqc``).

    Parameters
    ----------
    problem : TwoGaussians
        The truth.
    clf : MeanClassifier
        The classifier.
    x : float
        The candidate.

    Returns
    -------
    float
        :math:`Q^c(x)`.

    See Also
    --------
    mri_theory.analytic.q_c : The closed form it checks.

    Examples
    --------
    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, q_c, q_c_quad
    >>> problem, clf = TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9))
    >>> round(q_c_quad(problem, clf, 0.3), 6)
    0.002462
    >>> abs(q_c_quad(problem, clf, 0.3) - float(q_c(problem, clf, 0.3))) < 1e-10
    True
    """
    p = problem.posterior(x)
    expected = sum(p[j] * error_rate_quad(problem, clf.retrained(x, j)) for j in (0, 1))
    return error_rate_quad(problem, clf) - float(expected)
