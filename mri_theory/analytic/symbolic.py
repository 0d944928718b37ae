r"""Symbolic derivation of the two-Gaussian error rate and ``Q^c`` (sympy).

This module exists to cross-check the numeric closed forms of
:mod:`mri_theory.analytic.two_gaussians`.  Apart from the classifier's decision
boundary it shares no formula with them: the error rate :math:`L_e` (Eq. ``le_equation_1``) is obtained by letting sympy
*integrate* the class-conditional Gaussian densities over the classifier's
decision regions, and the statistical target :math:`Q^c` (Eq. ``eqc``) is
assembled from that expression, the Bayes posterior written from the densities
and the retrained means.  The derivations are slow (seconds), so each is
computed once and cached.

Symbols (all real; ``sigma``, ``pi1``, ``n1``, ``n2`` positive):

* ``mu1, mu2, sigma, pi1`` -- the true class means, common sd and prior of
  ``c_1`` (``pi2 = 1 - pi1``);
* ``m1, m2`` -- the classifier's estimated means, ``n1, n2`` its class counts;
* ``x`` -- the candidate point.

The classifier's assumed sd and prior are taken *equal to the true ones*, as in
§3.2 (and as :class:`~mri_theory.analytic.two_gaussians.MeanClassifier` is used there).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
import sympy as sp

from mri_theory._utils import validation as check

__all__ = [
    "SYMBOLS",
    "error_rate_expr",
    "q_c_expr",
    "lambdify_error_rate",
    "lambdify_q_c",
]

x, mu1, mu2, m1, m2 = sp.symbols("x mu1 mu2 m1 m2", real=True)
sigma, pi1, n1, n2 = sp.symbols("sigma pi1 n1 n2", positive=True)
pi2 = 1 - pi1
_mu, _t = sp.symbols("mu t", real=True)  # generic mean and cut of the integrals

#: The symbols used in the expressions, by name.
SYMBOLS: dict[str, sp.Symbol] = {
    str(s): s for s in (x, m1, m2, n1, n2, mu1, mu2, sigma, pi1)
}

_MODULES = ["scipy", "numpy"]  # erf -> scipy.special.erf, Piecewise -> numpy.select


def _density(mu: sp.Expr) -> sp.Expr:
    """Class-conditional density ``N(x; mu, sigma^2)``."""
    return sp.exp(-(x - mu) ** 2 / (2 * sigma**2)) / (sigma * sp.sqrt(2 * sp.pi))


def _boundary(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    r"""``t_hat = (a+b)/2 + sigma^2 ln(pi1/pi2) / (b - a)`` for estimated means ``(a, b)``."""
    return (a + b) / 2 + sigma**2 * sp.log(pi1 / pi2) / (b - a)


@cache
def _region_masses() -> tuple[sp.Expr, sp.Expr]:
    r"""``(\int_{-oo}^{t} f, \int_{t}^{oo} f)`` of ``N(mu, sigma^2)``, in the symbols ``mu, t``."""
    below = sp.simplify(sp.integrate(_density(_mu), (x, -sp.oo, _t)))
    above = sp.simplify(sp.integrate(_density(_mu), (x, _t, sp.oo)))
    return below, above


def _error_rate_of(a: sp.Expr, b: sp.Expr) -> sp.Piecewise:
    """Error rate of the classifier with estimated means ``(a, b)``; see :func:`error_rate_expr`."""
    below, above = _region_masses()
    cut = _boundary(a, b)

    def mass(region: sp.Expr, mean: sp.Expr) -> sp.Expr:
        return region.subs({_mu: mean, _t: cut}, simultaneous=True)

    # a < b: c_1 predicted on (-oo, t_hat), c_2 on (t_hat, oo); the regions swap when a > b.
    normal = pi1 * mass(above, mu1) + pi2 * mass(below, mu2)
    inverted = pi1 * mass(below, mu1) + pi2 * mass(above, mu2)
    # a = b: no boundary, the larger-prior class (c_1 on ties) is predicted everywhere.
    constant = sp.Min(pi1, pi2)
    return sp.Piecewise((normal, a < b), (inverted, a > b), (constant, True))


@cache
def error_rate_expr() -> sp.Piecewise:
    r"""The error rate :math:`L_e(m_1, m_2)` derived by integration, Eq. ``le_equation_1``.

    With the estimated boundary
    :math:`\hat t = (m_1+m_2)/2 + \sigma^2 \ln(\pi_1/\pi_2)/(m_2-m_1)` and
    :math:`f_j = N(\mu_j, \sigma^2)`, sympy integrates

    * :math:`m_1 < m_2`: :math:`\pi_1\int_{\hat t}^{\infty} f_1\,dx + \pi_2\int_{-\infty}^{\hat t} f_2\,dx`;
    * :math:`m_1 > m_2` (inverted, rule ``r_2``):
      :math:`\pi_1\int_{-\infty}^{\hat t} f_1\,dx + \pi_2\int_{\hat t}^{\infty} f_2\,dx`;
    * :math:`m_1 = m_2`: no boundary; the class with the larger prior is
      predicted everywhere (``c_1`` on ties), so :math:`L = \min(\pi_1, \pi_2)`.

    For :math:`\pi = (1/2, 1/2)` the first branch is the paper's
    :math:`\tfrac12\{1 - F_1(\hat t) + F_2(\hat t)\}`.  The classifier's sd
    and prior are the true ``sigma`` and ``pi1``.

    Returns
    -------
    sympy.Piecewise
        In the symbols ``m1, m2, mu1, mu2, sigma, pi1`` (see :data:`SYMBOLS`).

    See Also
    --------
    mri_theory.analytic.symbolic.lambdify_error_rate : This expression as a vectorised numeric function.
    mri_theory.analytic.error_rate : The numeric closed form it cross-checks.

    Examples
    --------
    At the true means of the paper's problem the expression is the Bayes error :math:`\Phi(-1)`; at equal
    means it is one half:

    >>> import sympy
    >>> from mri_theory.analytic import symbolic
    >>> expr = symbolic.error_rate_expr()
    >>> sorted(str(s) for s in expr.free_symbols)
    ['m1', 'm2', 'mu1', 'mu2', 'pi1', 'sigma']
    >>> s = symbolic.SYMBOLS
    >>> paper = expr.subs({s["mu1"]: -1, s["mu2"]: 1, s["sigma"]: 1, s["pi1"]: sympy.Rational(1, 2)})
    >>> round(float(paper.subs({s["m1"]: -1, s["m2"]: 1})), 6), float(paper.subs({s["m1"]: 0, s["m2"]: 0}))
    (0.158655, 0.5)
    """
    return _error_rate_of(m1, m2)


@cache
def _posterior1() -> sp.Expr:
    r"""Bayes posterior :math:`p_1(x) = \pi_1 f_1 / (\pi_1 f_1 + \pi_2 f_2)`.

    Written as :math:`1 / (1 + (\pi_2/\pi_1) f_2/f_1)` with the density ratio
    combined into one exponential (linear in ``x``), so it is never ``0/0``.
    """
    log_ratio = sp.factor(sp.expand_log(sp.log(_density(mu2) / _density(mu1)), force=True))
    return 1 / (1 + pi2 / pi1 * sp.exp(log_ratio))


@cache
def q_c_expr() -> sp.Expr:
    r"""The statistical target :math:`Q^c(x)` built from :func:`error_rate_expr`, Eq. ``eqc``.

    .. math::

        Q^c(x) = L(m_1, m_2) - p_1(x)\, L(m_1', m_2) - p_2(x)\, L(m_1, m_2'),
        \qquad m_j' = \frac{n_j m_j + x}{n_j + 1},

    where :math:`p(x)` is the true Bayes posterior and each ``L`` is the
    Piecewise of :func:`error_rate_expr` (so the ordering of the *retrained*
    means selects the branch).  Classifier sd and prior equal the true ones.

    Returns
    -------
    sympy.Expr
        In the symbols ``x, m1, m2, n1, n2, mu1, mu2, sigma, pi1``.

    See Also
    --------
    mri_theory.analytic.symbolic.lambdify_q_c : This expression as a vectorised numeric function.
    mri_theory.analytic.q_c : The numeric closed form it cross-checks.

    Examples
    --------
    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, q_c, symbolic
    >>> expr = symbolic.q_c_expr()
    >>> sorted(str(s) for s in expr.free_symbols)
    ['m1', 'm2', 'mu1', 'mu2', 'n1', 'n2', 'pi1', 'sigma', 'x']
    >>> s = symbolic.SYMBOLS
    >>> at = {"x": 0.3, "m1": -0.5, "m2": 1.5, "n1": 9, "n2": 9, "mu1": -1, "mu2": 1, "sigma": 1, "pi1": 0.5}
    >>> value = float(expr.subs({s[name]: v for name, v in at.items()}))
    >>> exact = float(q_c(TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9)), 0.3))
    >>> round(value, 6), abs(value - exact) < 1e-12
    (0.002462, True)
    """
    loss = error_rate_expr()
    p1 = _posterior1()
    retrained1 = loss.subs(m1, (n1 * m1 + x) / (n1 + 1))
    retrained2 = loss.subs(m2, (n2 * m2 + x) / (n2 + 1))
    return loss - p1 * retrained1 - (1 - p1) * retrained2


#: The domain of each argument of the numeric functions: what :func:`_check_argument` enforces.
_DOMAINS: dict[str, str] = {
    "x": "real", "m1": "real", "m2": "real", "mu1": "real", "mu2": "real",
    "sigma": "positive", "pi1": "probability", "n1": "count", "n2": "count",
}


def _check_argument(value: object, name: str) -> np.ndarray:
    """One argument as a finite float array inside its domain (:data:`_DOMAINS`), else an error naming it."""
    arr = check.finite_array(value, name)
    domain = _DOMAINS[name]
    if domain == "positive" and np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0, got {value!r}")
    if domain == "probability" and np.any((arr <= 0) | (arr >= 1)):
        raise ValueError(f"{name} (the prior of c_1) must lie strictly inside (0, 1), got {value!r}")
    if domain == "count" and np.any((arr < 1) | (arr != np.round(arr))):
        raise ValueError(f"{name} must hold whole class counts >= 1, got {value!r}")
    return arr


def _numeric(expr: sp.Expr, args: tuple[sp.Symbol, ...]) -> Callable[..., np.ndarray]:
    """Lambdify with scipy/numpy, behind argument checks (:func:`_check_argument`, broadcasting).

    ``1/0``, ``0/0`` and overflow in unselected or saturated branches are silent.
    """
    raw = sp.lambdify(args, expr, modules=_MODULES)
    names = tuple(map(str, args))

    def evaluate(*values: float | np.ndarray) -> np.ndarray:
        if len(values) != len(names):
            raise TypeError(f"expected {len(names)} arguments ({', '.join(names)}), got {len(values)}")
        arrays = [_check_argument(v, name) for v, name in zip(values, names, strict=True)]
        try:
            np.broadcast_shapes(*(a.shape for a in arrays))
        except ValueError as exc:
            shapes = ", ".join(f"{name} {a.shape}" for name, a in zip(names, arrays, strict=True))
            raise ValueError(f"the arguments must broadcast together, got shapes {shapes}") from exc
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.asarray(raw(*arrays), dtype=float)

    evaluate.__doc__ = (f"Evaluate the expression at ({', '.join(names)}); arguments broadcast, must be finite, "
                        "with sigma > 0, pi1 in (0, 1) and counts n1, n2 >= 1 (ValueError otherwise).")
    return evaluate


@cache
def lambdify_error_rate() -> Callable[..., np.ndarray]:
    r"""Numeric :func:`error_rate_expr` (Eq. ``le_equation_1``), vectorised over numpy arrays.

    Returns
    -------
    callable
        ``f(m1, m2, mu1, mu2, sigma, pi1) -> ndarray`` (arguments broadcast).
        Every argument must be finite, ``sigma > 0`` and ``0 < pi1 < 1``;
        otherwise ``ValueError`` (``TypeError`` for non-real input) naming
        the argument.

    See Also
    --------
    mri_theory.analytic.error_rate : The numeric closed form it cross-checks.

    Examples
    --------
    Vectorised over the estimated means, in agreement with the closed form:

    >>> import numpy as np
    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, error_rate, symbolic
    >>> f = symbolic.lambdify_error_rate()
    >>> m1, m2 = np.array([-1.0, -0.5, 1.0, 0.0]), np.array([1.0, 1.5, -1.0, 0.0])
    >>> f(m1, m2, -1.0, 1.0, 1.0, 0.5).round(6).tolist()  # mu1, mu2, sigma, pi1 of the paper
    [0.158655, 0.187672, 0.841345, 0.5]
    >>> closed = [error_rate(TwoGaussians(), MeanClassifier((a, b), (9, 9))) for a, b in zip(m1, m2)]
    >>> bool(np.allclose(f(m1, m2, -1.0, 1.0, 1.0, 0.5), closed, rtol=0, atol=1e-12))
    True
    """
    return _numeric(error_rate_expr(), (m1, m2, mu1, mu2, sigma, pi1))


@cache
def lambdify_q_c() -> Callable[..., np.ndarray]:
    r"""Numeric :func:`q_c_expr` (Eq. ``eqc``), vectorised over numpy arrays.

    Returns
    -------
    callable
        ``f(x, m1, m2, n1, n2, mu1, mu2, sigma, pi1) -> ndarray`` (arguments
        broadcast).  Every argument must be finite, ``sigma > 0``,
        ``0 < pi1 < 1`` and the class counts ``n1, n2`` whole numbers
        ``>= 1`` (as for :class:`~mri_theory.analytic.two_gaussians.MeanClassifier`);
        otherwise ``ValueError`` (``TypeError`` for non-real input) naming
        the argument.

    See Also
    --------
    mri_theory.analytic.q_c : The numeric closed form it cross-checks.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, q_c, symbolic
    >>> f = symbolic.lambdify_q_c()
    >>> x = np.linspace(-3.0, 3.0, 7)
    >>> derived = f(x, -0.5, 1.5, 9, 9, -1.0, 1.0, 1.0, 0.5)  # x, m1, m2, n1, n2, mu1, mu2, sigma, pi1
    >>> derived.round(5).tolist()
    [...]
    >>> closed = q_c(TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9)), x)
    >>> bool(np.allclose(derived, closed, rtol=0, atol=1e-12))
    True
    """
    return _numeric(q_c_expr(), (x, m1, m2, n1, n2, mu1, mu2, sigma, pi1))
