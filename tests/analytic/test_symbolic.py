"""The sympy derivation (:mod:`mri_theory.analytic.symbolic`) against the numeric closed forms."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from _optional import given, settings, st
from sympy.stats import Normal, cdf

from mri_theory.analytic import symbolic
from mri_theory.analytic.two_gaussians import (
    PAPER_CASES,
    MeanClassifier,
    TwoGaussians,
    error_rate,
    q_c,
)

ATOL = 1e-10
X_GRID = np.linspace(-6.0, 6.0, 241)
SETTINGS = settings(max_examples=50, deadline=None)


def _symbolic_error_rate(problem: TwoGaussians, clf: MeanClassifier) -> float:
    return float(symbolic.lambdify_error_rate()(*clf.mu_hat, *problem.mu, problem.sigma,
                                                 problem.prior[0]))


def _symbolic_q_c(problem: TwoGaussians, clf: MeanClassifier, x: np.ndarray) -> np.ndarray:
    return symbolic.lambdify_q_c()(x, *clf.mu_hat, *clf.n, *problem.mu, problem.sigma,
                                   problem.prior[0])


# ---------------------------------------------------------------- the derivation


def test_expressions_are_integrated_piecewise():
    loss = symbolic.error_rate_expr()
    assert isinstance(loss, sp.Piecewise)
    assert not loss.has(sp.Integral)
    assert loss.has(sp.erf)
    m1, m2 = symbolic.SYMBOLS["m1"], symbolic.SYMBOLS["m2"]
    assert [c for _, c in loss.args] == [m1 < m2, m1 > m2, sp.true]
    assert not symbolic.q_c_expr().has(sp.Integral)


def test_normal_branch_is_paper_le_equation_1():
    """For pi = (1/2, 1/2) and m1 < m2: L = 1/2 {1 - F_1(t_hat) + F_2(t_hat)}, t_hat = (m1+m2)/2."""
    s = symbolic.SYMBOLS
    normal = symbolic.error_rate_expr().args[0].expr.subs(s["pi1"], sp.Rational(1, 2))
    t_hat = (s["m1"] + s["m2"]) / 2
    F1 = cdf(Normal("X1", s["mu1"], s["sigma"]))(t_hat)
    F2 = cdf(Normal("X2", s["mu2"], s["sigma"]))(t_hat)
    paper = (1 - F1 + F2) / 2
    assert sp.simplify(normal - paper) == 0
    # and numerically, at a few points
    f = sp.lambdify([s[k] for k in ("m1", "m2", "mu1", "mu2", "sigma")], normal - paper)
    for point in [(-0.5, 1.5, -1, 1, 1), (-1.1, 1.1, -1, 1, 1), (0.3, 2.0, -0.5, 1.7, 0.8)]:
        assert abs(f(*point)) < 1e-15


# ---------------------------------------------------------------- the paper's cases


@pytest.mark.parametrize("name", list(PAPER_CASES))
def test_paper_cases_error_rate(name):
    problem, clf = TwoGaussians(), PAPER_CASES[name]
    assert _symbolic_error_rate(problem, clf) == pytest.approx(error_rate(problem, clf), abs=ATOL)


@pytest.mark.parametrize("name", list(PAPER_CASES))
def test_paper_cases_q_c(name):
    problem, clf = TwoGaussians(), PAPER_CASES[name]
    np.testing.assert_allclose(_symbolic_q_c(problem, clf, X_GRID), q_c(problem, clf, X_GRID),
                               rtol=0, atol=ATOL)


def test_paper_case_values():
    """Spot values: case 1 and the Bayes error of the paper's problem."""
    problem = TwoGaussians()
    f = symbolic.lambdify_error_rate()
    assert float(f(-1.0, 1.0, -1.0, 1.0, 1.0, 0.5)) == pytest.approx(0.15865525393145707, abs=1e-15)
    assert float(f(1.0, -1.0, -1.0, 1.0, 1.0, 0.5)) == pytest.approx(1 - 0.15865525393145707,
                                                                      abs=1e-15)
    assert problem.bayes_error == pytest.approx(float(f(-1.0, 1.0, -1.0, 1.0, 1.0, 0.5)), abs=ATOL)


# ---------------------------------------------------------------- equal estimated means


@pytest.mark.parametrize("prior", [(0.5, 0.5), (0.3, 0.7), (0.8, 0.2)])
def test_equal_means_rule(prior):
    """m1 = m2 (also reached by retraining: m1' = m2 at x = 2 below) uses the classifier's rule."""
    problem = TwoGaussians((-1.0, 1.0), 1.0, prior)
    clf = MeanClassifier((1.0, 1.0), (3, 3), 1.0, prior)
    assert _symbolic_error_rate(problem, clf) == pytest.approx(error_rate(problem, clf), abs=ATOL)
    clf = MeanClassifier((0.0, 1.0), (1, 4), 1.0, prior)  # (1*0 + 2)/2 == 1 exactly
    xs = np.array([2.0, 1.9, 2.1])
    np.testing.assert_allclose(_symbolic_q_c(problem, clf, xs), q_c(problem, clf, xs),
                               rtol=0, atol=ATOL)


# ---------------------------------------------------------------- random problems

moderate = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)


@st.composite
def problem_and_classifier(draw):
    mu = draw(st.tuples(moderate, moderate).filter(lambda m: m[0] != m[1]))
    mu_hat = draw(st.tuples(moderate, moderate).filter(lambda m: m[0] != m[1]))
    sd = draw(st.floats(0.3, 3.0))
    pi1 = draw(st.floats(0.05, 0.95))
    n = draw(st.tuples(st.integers(1, 50), st.integers(1, 50)))
    prior = (pi1, 1.0 - pi1)
    return TwoGaussians(mu, sd, prior), MeanClassifier(mu_hat, n, sd, prior)


@SETTINGS
@given(problem_and_classifier())
def test_random_error_rate(pair):
    problem, clf = pair
    assert _symbolic_error_rate(problem, clf) == pytest.approx(error_rate(problem, clf), abs=ATOL)


@SETTINGS
@given(problem_and_classifier(), st.lists(moderate, min_size=1, max_size=20))
def test_random_q_c(pair, xs):
    problem, clf = pair
    xs = np.concatenate([np.asarray(xs), np.linspace(-3.0, 3.0, 61)])
    np.testing.assert_allclose(_symbolic_q_c(problem, clf, xs), q_c(problem, clf, xs),
                               rtol=0, atol=ATOL)
