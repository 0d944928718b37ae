"""The §3.2 closed forms (:mod:`mri_theory.analytic.two_gaussians`) at their edges, against hand values and scipy.

Cases a mutation run of the module showed untested: the fitted classifier's
counts and means, the stored problem parameters, the class CDFs, sampling,
Shannon entropy, the decision boundary at a gap of exactly 1, the labels'
types, batch sizes at their limits, and the paper-cases table (its columns,
case names, ``q_c_rs`` by quadrature, the selections within narrow bounds).
Expected values are hand formulas, :mod:`scipy.stats` and
:func:`scipy.integrate.quad`, and brute-force grids.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, special, stats

from mri_theory.analytic.two_gaussians import (
    PAPER_CASES,
    MeanClassifier,
    TwoGaussians,
    b_c,
    greedy_batch,
    optimal_batch,
    paper_cases_table,
    q_a,
    q_c,
    se_uncertainty,
)

PROBLEM = TwoGaussians()


def test_mean_classifier_fit_hand_values():
    clf = MeanClassifier.fit([-1.0, 0.0, 2.0, 4.0, 5.0], [0, 0, 1, 1, 1], sigma=2.0, prior=(0.3, 0.7))
    assert clf.mu_hat == (-0.5, 11 / 3) and clf.n == (2, 3)
    assert clf.sigma == 2.0 and clf.prior == (0.3, 0.7)
    one_each = MeanClassifier.fit([0.5, 2.0], [1, 0])  # one point per class is enough
    assert one_each.mu_hat == (2.0, 0.5) and one_each.n == (1, 1)
    assert one_each.sigma == 1.0 and MeanClassifier((0, 1), (1, 1)).sigma == 1.0  # the documented default


def test_mean_classifier_refuses_n_that_is_not_a_pair():
    with pytest.raises(ValueError, match="n must be a pair"):
        MeanClassifier((0.0, 1.0), (1, 2, 3))


def test_labels_must_be_integers_0_or_1_and_whole_floats_are_accepted():
    clf = PAPER_CASES["right-shifted by 0.5"]
    with pytest.raises(TypeError, match="label must be integer labels"):
        q_a(PROBLEM, clf, 0.3, True)
    assert q_a(PROBLEM, clf, 0.3, 1.0) == q_a(PROBLEM, clf, 0.3, 1)
    both = q_a(PROBLEM, clf, [0.3, -0.7], [1, 0])
    np.testing.assert_array_equal(both, [q_a(PROBLEM, clf, 0.3, 1), q_a(PROBLEM, clf, -0.7, 0)])


def test_problem_stores_its_parameters_as_floats():
    problem = TwoGaussians(mu=[0, 3], sigma=2, prior=np.array([0.25, 0.75]))
    assert problem.mu == (0.0, 3.0) and isinstance(problem.mu, tuple)
    assert problem.prior == (0.25, 0.75) and isinstance(problem.prior, tuple)
    x = np.array([-1.0, 0.5, 4.0])
    np.testing.assert_allclose(problem.class_cdfs(x), np.column_stack([stats.norm.cdf(x, 0, 2),
                                                                       stats.norm.cdf(x, 3, 2)]), rtol=1e-14)


def test_sampling_follows_the_prior_and_sigma():
    # 40000 draws: class-1 share 0.8 +- 0.01 (5 sd = 0.01); within-class sd 2 +- 0.05 (sd of the sd ~0.008-0.016)
    problem = TwoGaussians(mu=(-1.0, 1.0), sigma=2.0, prior=(0.2, 0.8))
    x, y = problem.sample(40_000, np.random.default_rng(1))
    assert abs(y.mean() - 0.8) < 0.01
    for j, mu in enumerate(problem.mu):
        assert abs(x[y == j].std() - 2.0) < 0.05 and abs(x[y == j].mean() - mu) < 0.1
    x, y = problem.sample_with_counts((300, 500), np.random.default_rng(2))
    assert (np.bincount(y) == [300, 500]).all() and abs(x.std() - math.sqrt(4 + 1 - 0.25)) < 0.3
    assert abs(x[y == 1].std() - 2.0) < 0.25
    with pytest.raises(ValueError, match="counts must be a pair"):
        problem.sample_with_counts((1, 2, 3), np.random.default_rng(0))


def test_shannon_entropy_hand_formula():
    clf = MeanClassifier((-0.5, 1.5), (9, 9), sigma=1.5, prior=(0.4, 0.6))
    x = np.array([-2.0, 0.5, 3.0])
    log_odds = math.log(0.4 / 0.6) + (-0.5 - 1.5) * (x - 0.5) / 1.5**2  # ln p_1 / p_2
    p1 = special.expit(log_odds)
    expected = -(p1 * np.log(p1) + (1 - p1) * np.log(1 - p1))
    np.testing.assert_allclose(se_uncertainty(clf, x), expected, rtol=1e-13)


def test_boundary_with_a_gap_of_one_and_log_prior_ratio_one():
    # t = (m_1 + m_2)/2 + sigma^2 ln(pi_1/pi_2) / (m_2 - m_1) = 0.5 + 1 * 1 / 1
    e = math.e
    clf = MeanClassifier((0.0, 1.0), (3, 3), prior=(e / (1 + e), 1 / (1 + e)))
    assert clf.boundary == pytest.approx(1.5, abs=1e-14)
    problem = TwoGaussians(mu=(0.0, 1.0), sigma=2.0, prior=(0.7, 0.3))
    assert problem.bayes_boundary == pytest.approx(0.5 + 4 * math.log(0.7 / 0.3), abs=1e-14)


def test_batches_at_their_size_limits():
    clf = PAPER_CASES["right-shifted by 0.1"]
    pool = np.array([-0.6, 0.1, 0.9])
    whole = optimal_batch(PROBLEM, clf, pool, 3, max_subsets=1)  # r = pool size: one subset, allowed
    assert whole.indices == (0, 1, 2) and whole.b_c == pytest.approx(b_c(PROBLEM, clf, pool), abs=1e-15)
    np.testing.assert_array_equal(whole.points, pool)
    single = optimal_batch(PROBLEM, clf, [0.4], 1)
    assert single.indices == (0,)
    greedy = greedy_batch(PROBLEM, clf, pool, 2)
    np.testing.assert_array_equal(greedy.points, pool[list(greedy.indices)])
    best = max(((i, j) for i in range(3) for j in range(i + 1, 3)), key=lambda s: b_c(PROBLEM, clf, pool[list(s)]))
    assert optimal_batch(PROBLEM, clf, pool, 2, max_subsets=3).indices == best  # C(3, 2) = 3 subsets allowed
    with pytest.raises(ValueError, match="pool must be a non-empty 1-D"):
        optimal_batch(PROBLEM, clf, [[0.1, 0.2]], 1)


def test_paper_cases_table_against_quadrature_and_narrow_bounds():
    table = paper_cases_table()
    assert list(table.columns) == ["case", "mu_hat_1", "mu_hat_2", "t_hat", "error_rate", "x_star", "q_c_star",
                                   "x_worst", "q_c_worst", "x_se", "q_c_se", "q_c_rs"]
    assert table["case"].tolist() == [f"{k}: {name}" for k, name in enumerate(PAPER_CASES, start=1)]
    for row, clf in zip(table.itertuples(), PAPER_CASES.values(), strict=True):
        assert (row.mu_hat_1, row.mu_hat_2) == clf.mu_hat
        assert row.t_hat == row.x_se == pytest.approx(sum(clf.mu_hat) / 2, abs=1e-15)
        # E_x[Q^c(x)] over p(x) on a finite range (the tails beyond +-12 weigh < 1e-25)
        rs = integrate.quad(lambda t, clf=clf: float(q_c(PROBLEM, clf, t))
                            * (stats.norm.pdf(t, -1) + stats.norm.pdf(t, 1)) / 2,
                            -12, 12, epsabs=1e-14, limit=400, points=[sum(clf.mu_hat) / 2])[0]
        assert row.q_c_rs == pytest.approx(rs, abs=1e-10)
    # selections restricted to [0.2, 0.6]: inside, and at least as good as a fine grid there
    narrow = paper_cases_table(bounds=(0.2, 0.6))
    grid = np.linspace(0.2, 0.6, 4001)
    for row, clf in zip(narrow.itertuples(), PAPER_CASES.values(), strict=True):
        values = q_c(PROBLEM, clf, grid)
        assert 0.2 <= row.x_star <= 0.6 and 0.2 <= row.x_worst <= 0.6
        assert row.q_c_star >= values.max() - 1e-15 and row.q_c_worst <= values.min() + 1e-15
        assert row.q_c_star == pytest.approx(float(q_c(PROBLEM, clf, row.x_star)), abs=1e-15)
