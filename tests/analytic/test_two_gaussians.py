"""The closed-form layer of §3.2 against independent computations.

Independent references: adaptive quadrature of the misclassified density
(:mod:`mri_theory.analytic.quadrature`, which only uses ``predict``), Monte Carlo
sampling of the population, brute-force enumeration of labellings with
sequential retraining, and the standard normal CDF for the Bayes error.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from _optional import given, settings, st
from scipy import stats

from mri_theory.analytic.quadrature import error_rate_quad, q_c_quad
from mri_theory.analytic.two_gaussians import (
    PAPER_CASES,
    MeanClassifier,
    TwoGaussians,
    b_c,
    error_rate,
    future_losses,
    greedy_batch,
    optimal_batch,
    optimal_selection,
    paper_cases_table,
    q_a,
    q_c,
    rs_density,
    se_selection,
    se_uncertainty,
    worst_selection,
)

PROBLEM = TwoGaussians()
CASES = list(PAPER_CASES.values())

means = st.floats(-3, 3, allow_nan=False)
sds = st.floats(0.3, 3)
priors = st.floats(0.05, 0.95)
counts = st.integers(1, 40)


@st.composite
def problem_and_classifier(draw):
    """A random problem and a mean classifier that knows its sd and prior."""
    mu1 = draw(means)
    mu2 = draw(means.filter(lambda m: abs(m - mu1) > 0.05))
    sigma, pi1 = draw(sds), draw(priors)
    prior = (pi1, 1 - pi1)
    problem = TwoGaussians((mu1, mu2), sigma, prior)
    clf = MeanClassifier((draw(means), draw(means)), (draw(counts), draw(counts)), sigma, prior)
    return problem, clf


# ---------------------------------------------------------------- error rate


@settings(max_examples=60, deadline=None)
@given(problem_and_classifier())
def test_error_rate_matches_quadrature(pc):
    problem, clf = pc
    assert abs(error_rate(problem, clf) - error_rate_quad(problem, clf)) < 1e-10


def test_error_rate_paper_form_and_bayes_error():
    # Eq. le_equation_1 with the paper's values written out by hand.
    F = stats.norm.cdf
    for clf in CASES:
        m1, m2 = clf.mu_hat
        t = (m1 + m2) / 2
        paper = 0.5 * (1 - F(t, -1) + F(t, 1) + (m1 > m2) * (2 * F(t, -1) - 2 * F(t, 1)))
        assert error_rate(PROBLEM, clf) == pytest.approx(paper, abs=1e-14)
    assert PROBLEM.bayes_error == pytest.approx(stats.norm.cdf(-1.0), abs=1e-15)
    assert PROBLEM.bayes_boundary == 0.0


def test_error_rate_matches_monte_carlo():
    rng = np.random.default_rng(20261125)
    x, y = PROBLEM.sample(400_000, rng)
    for clf in CASES:
        wrong = clf.predict(x) != y
        se = wrong.std(ddof=1) / math.sqrt(wrong.size)
        assert abs(wrong.mean() - error_rate(PROBLEM, clf)) < 5 * se


def test_equal_means_rule():
    """m_1 = m_2: p_hat is the prior, predict the larger prior (c_1 on ties), error = other prior."""
    clf = MeanClassifier((0.3, 0.3), (4, 4))
    assert np.allclose(clf.proba([-5.0, 0.3, 7.0]), 0.5)
    assert np.all(clf.predict([-5.0, 0.3, 7.0]) == 0)
    assert error_rate(PROBLEM, clf) == 0.5 == pytest.approx(error_rate_quad(PROBLEM, clf))
    skewed = TwoGaussians(prior=(0.3, 0.7))
    clf2 = MeanClassifier((0.3, 0.3), (4, 4), prior=(0.3, 0.7))
    assert np.all(clf2.predict([-5.0, 7.0]) == 1)
    assert error_rate(skewed, clf2) == pytest.approx(0.3) == pytest.approx(error_rate_quad(skewed, clf2))
    with pytest.raises(ValueError, match="mu_hat"):
        se_selection(clf)


def test_inverted_case_predicts_c1_right_of_boundary():
    clf = PAPER_CASES["inverted"]
    assert clf.predict(1.0) == 0 and clf.predict(-1.0) == 1
    assert error_rate(PROBLEM, clf) == pytest.approx(1 - PROBLEM.bayes_error, abs=1e-15)


# ---------------------------------------------------------------- classifier


def test_boundary_general_prior_and_retraining_rule():
    clf = MeanClassifier((-0.4, 1.2), (3, 7), sigma=1.5, prior=(0.2, 0.8))
    t = clf.boundary
    assert t == pytest.approx(0.4 + 1.5**2 * math.log(0.25) / 1.6)
    assert clf.proba(t)[0] == pytest.approx(0.5, abs=1e-12)
    new = clf.retrained(2.0, 1)
    assert new.mu_hat == (pytest.approx(-0.4), pytest.approx((7 * 1.2 + 2.0) / 8))
    assert new.n == (3, 8)
    # The paper's z = 2/(n+2) form for n_1 = n_2 = n/2.
    n = 18
    paper = MeanClassifier((-0.5, 1.5), (9, 9)).retrained(-3.0, 0)
    z = 2 / (n + 2)
    assert paper.mu_hat[0] == pytest.approx((1 - z) * -0.5 + z * -3.0, abs=1e-15)


def test_fit_and_sampling():
    rng = np.random.default_rng(1)
    x, y = PROBLEM.sample_with_counts((9, 9), rng)
    assert np.bincount(y).tolist() == [9, 9]
    clf = MeanClassifier.fit(x, y)
    assert clf.n == (9, 9)
    assert clf.mu_hat[0] == pytest.approx(x[y == 0].mean())
    a = PROBLEM.sample(50, np.random.default_rng(7))
    b = PROBLEM.sample(50, np.random.default_rng(7))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    with pytest.raises(ValueError, match=r"^y must contain both labels"):
        MeanClassifier.fit([0.0, 1.0], [0, 0])


def test_densities_and_posterior():
    x = np.linspace(-5, 5, 11)
    dens = PROBLEM.class_densities(x)
    assert np.allclose(dens[:, 0], stats.norm.pdf(x, -1, 1), atol=1e-15)
    assert np.allclose(PROBLEM.density(x), 0.5 * stats.norm.pdf(x, -1) + 0.5 * stats.norm.pdf(x, 1))
    post = PROBLEM.posterior(x)
    assert np.allclose(post[:, 0], 0.5 * dens[:, 0] / PROBLEM.density(x), atol=1e-14)
    assert np.array_equal(rs_density(PROBLEM, x), PROBLEM.density(x))


def test_stability_for_huge_x():
    x = np.concatenate([np.linspace(-1e6, 1e6, 2001), [-1e6, -1e5, 1e5, 1e6]])
    post = PROBLEM.posterior(x)
    assert np.all(np.isfinite(post))
    assert np.all(np.abs(post.sum(-1) - 1) <= 2 * np.finfo(float).eps)
    for clf in CASES:
        for values in (q_c(PROBLEM, clf, x), future_losses(PROBLEM, clf, x), se_uncertainty(clf, x),
                       q_a(PROBLEM, clf, x, 0), clf.proba(x)):
            assert np.all(np.isfinite(values))


# ---------------------------------------------------------------- Q^a, Q^c


@settings(max_examples=40, deadline=None)
@given(problem_and_classifier(), st.floats(-6, 6))
def test_q_c_matches_explicit_retraining_and_quadrature(pc, x):
    problem, clf = pc
    assert abs(float(q_c(problem, clf, x)) - q_c_quad(problem, clf, x)) < 1e-10


def test_q_c_matches_monte_carlo_over_labels():
    rng = np.random.default_rng(3)
    for clf in CASES:
        for x in (-2.5, -0.3, 0.8, 3.0):
            p = PROBLEM.posterior(x)
            labels = (rng.random(200_000) >= p[0]).astype(int)
            draws = q_a(PROBLEM, clf, x, labels)
            se = draws.std(ddof=1) / math.sqrt(draws.size)
            assert abs(draws.mean() - float(q_c(PROBLEM, clf, x))) < 5 * se + 1e-15


def test_q_a_and_future_losses_shapes_and_consistency():
    clf = CASES[0]
    x = np.linspace(-3, 3, 12).reshape(3, 4)
    losses = future_losses(PROBLEM, clf, x)
    assert losses.shape == (3, 4, 2)
    for j in (0, 1):
        assert np.array_equal(q_a(PROBLEM, clf, x, j), error_rate(PROBLEM, clf) - losses[..., j])
    assert q_c(PROBLEM, clf, x).shape == (3, 4)
    assert q_a(PROBLEM, clf, x[0], np.array([0, 1, 1, 0])).shape == (4,)
    for xi in x.ravel():
        for j in (0, 1):
            assert losses.reshape(-1, 2)[list(x.ravel()).index(xi), j] == pytest.approx(
                error_rate(PROBLEM, clf.retrained(xi, j)), abs=1e-15)


# ---------------------------------------------------------------- B^c


def _b_c_brute_force(problem, clf, xs):
    """Enumerate labellings, retrain point by point, weight by the product of posteriors."""
    expected = 0.0
    for labels in itertools.product((0, 1), repeat=len(xs)):
        weight, model = 1.0, clf
        for x, y in zip(xs, labels, strict=True):
            weight *= problem.posterior(x)[y]
            model = model.retrained(x, y)
        expected += weight * error_rate(problem, model)
    return error_rate(problem, clf) - expected


@settings(max_examples=30, deadline=None)
@given(problem_and_classifier(), st.lists(st.floats(-5, 5), min_size=1, max_size=3))
def test_b_c_matches_brute_force(pc, xs):
    problem, clf = pc
    assert abs(b_c(problem, clf, xs) - _b_c_brute_force(problem, clf, xs)) < 1e-12


def test_b_c_of_one_point_is_q_c():
    for clf in CASES:
        for x in np.linspace(-4, 4, 9):
            assert b_c(PROBLEM, clf, [x]) == pytest.approx(float(q_c(PROBLEM, clf, x)), abs=1e-15)


def test_optimal_batch_is_exhaustive_and_beats_greedy():
    pool = np.random.default_rng(5).normal(0, 2, 9)
    for clf in CASES:
        for r in (2, 3):
            best = optimal_batch(PROBLEM, clf, pool, r)
            brute = max(b_c(PROBLEM, clf, pool[list(c)]) for c in itertools.combinations(range(9), r))
            assert best.b_c == pytest.approx(brute, abs=1e-14)
            assert best.b_c == pytest.approx(b_c(PROBLEM, clf, best.points), abs=1e-15)
            greedy = greedy_batch(PROBLEM, clf, pool, r)
            assert greedy.b_c <= best.b_c + 1e-15
            q = q_c(PROBLEM, clf, pool)
            assert sorted(q[list(greedy.indices)]) == pytest.approx(sorted(q)[-r:])


# ---------------------------------------------------------------- optimal selection


def test_optimal_selection_beats_a_dense_grid():
    grid = np.linspace(-4, 4, 400_001)
    for clf in CASES:
        x_star, q_star = optimal_selection(PROBLEM, clf)
        x_min, q_min = worst_selection(PROBLEM, clf)
        values = q_c(PROBLEM, clf, grid)
        assert q_star >= values.max() - 1e-15 and q_star == pytest.approx(float(q_c(PROBLEM, clf, x_star)))
        assert q_min <= values.min() + 1e-15
        assert -4 <= x_star <= 4 and -4 <= x_min <= 4


def test_case_1_unconstrained_optimum_near_minus_10_5():
    clf = PAPER_CASES["right-shifted by 0.5"]
    assert optimal_selection(PROBLEM, clf)[0] == -4.0  # the peak is outside (-4, 4)
    x_star, _ = optimal_selection(PROBLEM, clf, bounds=(-30, 30))
    assert x_star == pytest.approx(-10.5, abs=0.05)


# ---------------------------------------------------------------- the paper's claims (§3.2)


def test_paper_claims_for_the_four_cases():
    c1, c2, c3, c4 = CASES
    wide = np.linspace(-50, 50, 200_001)
    # Case 3: t_hat = t, so no retraining can reduce the loss.
    assert np.all(q_c(PROBLEM, c3, wide) <= 1e-15)
    # Cases 1, 2: x_* < t_hat and retraining on it moves t_hat toward t = 0.
    for clf in (c1, c2):
        x_star, _ = optimal_selection(PROBLEM, clf)
        assert x_star < clf.boundary
        moved = clf.retrained(x_star, int(np.argmax(PROBLEM.posterior(x_star))))
        assert abs(moved.boundary) < abs(clf.boundary)
    # Case 2: SE does not improve the classifier, the optimum does.
    assert float(q_c(PROBLEM, c2, se_selection(c2))) < 0 < optimal_selection(PROBLEM, c2)[1]
    # Case 4: SE's choice is the global minimiser of Q^c.
    x_min, q_min = worst_selection(PROBLEM, c4, bounds=(-50, 50))
    assert se_selection(c4) == 0.0 and x_min == pytest.approx(0.0, abs=1e-6)
    assert float(q_c(PROBLEM, c4, 0.0)) <= q_c(PROBLEM, c4, wide).min() + 1e-15
    # Symmetry about 0 in cases 3, 4; asymmetry in cases 1, 2.
    x = np.linspace(0, 6, 601)
    for clf in (c3, c4):
        assert np.allclose(q_c(PROBLEM, clf, x), q_c(PROBLEM, clf, -x), atol=1e-15, rtol=0)
    for clf in (c1, c2):
        assert np.max(np.abs(q_c(PROBLEM, clf, x) - q_c(PROBLEM, clf, -x))) > 1e-4
    # SE is never optimal.
    for clf in CASES:
        x_star, q_star = optimal_selection(PROBLEM, clf)
        assert q_star - float(q_c(PROBLEM, clf, se_selection(clf))) > 1e-5


def test_paper_cases_table():
    table = paper_cases_table()
    assert list(table["mu_hat_1"]) == [-0.5, -0.9, -1.1, 1.0]
    assert np.all(table["q_c_star"] > table["q_c_se"])
    assert table.loc[2, "q_c_star"] < 0
    for row, clf in zip(table.itertuples(), CASES, strict=True):
        assert row.error_rate == error_rate(PROBLEM, clf)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda: TwoGaussians(sigma=0.0), "sigma"),
        (lambda: TwoGaussians(sigma=-1.0), "sigma"),
        (lambda: TwoGaussians(prior=(0.0, 1.0)), "prior"),
        (lambda: TwoGaussians(prior=(0.4, 0.4)), "prior"),
        (lambda: TwoGaussians(prior=(1.2, -0.2)), "prior"),
        (lambda: TwoGaussians(mu=(np.nan, 1.0)), "mu"),
        (lambda: TwoGaussians(mu=(1.0, 1.0)), "mu"),
        (lambda: MeanClassifier((np.inf, 1.0), (9, 9)), "mu_hat"),
        (lambda: MeanClassifier((0.0, 1.0), (0, 9)), "n"),
        (lambda: MeanClassifier((0.0, 1.0), (2.5, 9)), "n"),
        (lambda: MeanClassifier((0.0, 1.0), (9, 9), sigma=0), "sigma"),
        (lambda: q_c(PROBLEM, CASES[0], [0.0, np.nan]), "x"),
        (lambda: q_c(PROBLEM, CASES[0], np.inf), "x"),
        (lambda: q_a(PROBLEM, CASES[0], 0.0, 2), "label"),
        (lambda: q_a(PROBLEM, CASES[0], 0.0, -1), "label"),
        (lambda: optimal_selection(PROBLEM, CASES[0], bounds=(4, -4)), "bounds"),
        (lambda: b_c(PROBLEM, CASES[0], []), "xs"),
        (lambda: optimal_batch(PROBLEM, CASES[0], [0.0, 1.0], 3), "r"),
        (lambda: PROBLEM.sample(0, np.random.default_rng(0)), "n"),
    ],
)
def test_bad_input_raises_value_error_naming_argument(make, name):
    with pytest.raises(ValueError, match=name):
        make()


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda: MeanClassifier((0.0, 1.0), (True, 9)), "n"),
        (lambda: q_c(PROBLEM, CASES[0], "0.5"), "x"),
        (lambda: q_c(PROBLEM, (0.0, 1.0), 0.5), "clf"),
        (lambda: q_a(PROBLEM, CASES[0], 0.0, 0.5 > 0), "label"),
        (lambda: PROBLEM.sample(5, 0), "rng"),
    ],
)
def test_bad_types_raise_type_error_naming_argument(make, name):
    with pytest.raises(TypeError, match=name):
        make()
