"""The exact non-myopic policies of :mod:`mri_theory.analytic.nonmyopic` against independent computations.

Independent references:

* brute force over *ordered* label histories: the classifier is retrained one
  label at a time with :meth:`MeanClassifier.retrained` and scored with the
  closed form :func:`~mri_theory.analytic.two_gaussians.error_rate`; no state codes,
  no memoisation by sets;
* for the optimal and worst values, the enumeration of *every* deterministic
  policy tree of a tiny pool (6480 trees for a pool of 5 and ``h = 3``);
* greedy, SE and RS followed step by step with the public one-step functions
  :func:`~mri_theory.analytic.two_gaussians.q_c` and :func:`~mri_theory.analytic.two_gaussians.se_uncertainty`;
* the exhaustive batch search :func:`~mri_theory.analytic.two_gaussians.optimal_batch` (§3.1.1);
* the general path (refits on a :class:`Population`) against the closed form,
  on a quadrature population that makes the error rate exact for every
  classifier of the tree, and against plain refits for a 3-class problem.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from _optional import given, settings, st
from scipy import special, stats

from mri_theory._utils.ties import near_maximum
from mri_theory.analytic.nonmyopic import (
    POLICIES,
    _Tree,
    optimal_policy,
    policy_value,
    policy_values,
    sample_state,
    value_curves,
)
from mri_theory.analytic.two_gaussians import (
    PAPER_CASES,
    MeanClassifier,
    TwoGaussians,
    error_rate,
    optimal_batch,
    q_c,
    se_uncertainty,
)
from mri_theory.classifiers import LDA, GaussianMeanClassifier
from mri_theory.engine.population import Population
from mri_theory.engine.retraining import fit_on
from mri_theory.problems import get_problem

PROBLEM = TwoGaussians()
POOL5 = np.array([-1.7, -0.4, 0.3, 0.9, 2.2])


# --------------------------------------------------------------------------
# Brute force over ordered histories (closed-form losses, sequential retraining)
# --------------------------------------------------------------------------


class BruteForce:
    """Expected losses by explicit recursion over ordered label histories."""

    def __init__(self, problem, clf, pool):
        self.problem, self.clf, self.pool = problem, clf, np.asarray(pool, float)
        self.p = problem.posterior(self.pool)
        self._classifiers = {(): clf}

    def classifier(self, history):
        """The classifier retrained on the labelled set of the history, label by label in one canonical order
        (sorted), cached by that set: the model of a set, whatever order the labels came in. (Retraining along
        each ordered history summed the same points in other orders; with two copies of a point and equal class
        means, the last bits then decided the boundary's side.)"""
        key = tuple(sorted(history))
        if key not in self._classifiers:
            i, j = key[-1]
            self._classifiers[key] = self.classifier(key[:-1]).retrained(self.pool[i], j)
        return self._classifiers[key]

    def loss(self, history):
        return error_rate(self.problem, self.classifier(history))

    def free(self, history):
        used = {i for i, _ in history}
        return [i for i in range(self.pool.size) if i not in used]

    def expect(self, x, history, fn):
        return sum(self.p[x, j] * fn(history + ((x, j),)) for j in (0, 1))

    def extreme(self, history, r, pick, mean=False):
        """Optimal (pick=min) or worst (pick=max) adaptive value; mean=True sums the losses on the way."""
        if r == 0:
            return 0.0 if mean else self.loss(history)
        step = (lambda h: self.loss(h)) if mean else (lambda h: 0.0)
        return pick(self.expect(x, history, lambda h: step(h) + self.extreme(h, r - 1, pick, mean))
                    for x in self.free(history))

    def follow(self, history, r, choose, mean=False):
        """Value of a rule ``choose(clf, free) -> x`` or of RS (``choose=None``: uniform average)."""
        if r == 0:
            return 0.0 if mean else self.loss(history)
        free = self.free(history)

        def value(x):
            return self.expect(x, history, lambda h: (self.loss(h) if mean else 0.0)
                               + self.follow(h, r - 1, choose, mean))
        if choose is None:
            return sum(value(x) for x in free) / len(free)
        return value(choose(self.classifier(history), free))

    def rule(self, name):
        """The deterministic rules: near-ties to the lowest pool index."""
        def choose(clf, free):
            pts = self.pool[free]
            if name == "se":
                scores = se_uncertainty(clf, pts)
            else:
                scores = q_c(self.problem, clf, pts) * (1 if name == "greedy" else -1)
            return free[int(np.argmax(near_maximum(scores)))]
        return choose

    def value(self, policy, horizon, mean=False):
        if policy == "optimal":
            v = self.extreme((), horizon, min, mean)
        elif policy == "worst":
            v = self.extreme((), horizon, max, mean)
        elif policy == "rs":
            v = self.follow((), horizon, None, mean)
        else:
            v = self.follow((), horizon, self.rule(policy), mean)
        return v / horizon if mean else v


def all_policy_trees(free, depth):
    """Every deterministic policy tree: (query, (subtree after c_1, subtree after c_2))."""
    if depth == 0:
        return [None]
    trees = []
    for x in free:
        subtrees = all_policy_trees([i for i in free if i != x], depth - 1)
        trees += [(x, pair) for pair in itertools.product(subtrees, repeat=2)]
    return trees


def tree_value(bf, tree, history, mean):
    if tree is None:
        return 0.0 if mean else bf.loss(history)
    x, subtrees = tree
    return sum(bf.p[x, j] * ((bf.loss(history + ((x, j),)) if mean else 0.0)
                             + tree_value(bf, subtrees[j], history + ((x, j),), mean)) for j in (0, 1))


# --------------------------------------------------------------------------
# The DP against every policy tree and the brute-force rules
# --------------------------------------------------------------------------


@pytest.mark.parametrize("objective", ["final", "mean"])
@pytest.mark.parametrize("mu_hat", [(-0.5, 1.5), (1.0, -1.0)])
def test_dp_equals_the_best_and_worst_of_every_policy_tree(mu_hat, objective):
    clf = MeanClassifier(mu_hat, (2, 2))
    bf = BruteForce(PROBLEM, clf, POOL5)
    mean = objective == "mean"
    for horizon in (1, 2, 3):
        trees = all_policy_trees(list(range(POOL5.size)), horizon)
        assert len(trees) == {1: 5, 2: 5 * 16, 3: 6480}[horizon]
        values = np.array([tree_value(bf, t, (), mean) for t in trees]) / (horizon if mean else 1)
        got = policy_values(PROBLEM, clf, POOL5, horizon, ("optimal", "worst"), objective=objective)
        assert got["optimal"] == pytest.approx(values.min(), abs=1e-13)
        assert got["worst"] == pytest.approx(values.max(), abs=1e-13)
        res = optimal_policy(PROBLEM, clf, POOL5, horizon, objective=objective)
        assert res.value == got["optimal"]
        # the optimal first query: the best tree's root (the best value is attained at it)
        assert res.first_values[trees[int(np.argmin(values))][0]] == pytest.approx(values.min(), abs=1e-13)
        assert res.first_choice == int(np.argmin(res.first_values))


@pytest.mark.parametrize("objective", ["final", "mean"])
@pytest.mark.parametrize("clf", list(PAPER_CASES.values()) + [MeanClassifier((1.0, -1.0), (2, 2))],
                         ids=[*PAPER_CASES, "inverted n=(2,2)"])
def test_every_policy_equals_the_step_by_step_brute_force(clf, objective):
    bf = BruteForce(PROBLEM, clf, POOL5)
    mean = objective == "mean"
    for horizon in (1, 2, 3):
        got = policy_values(PROBLEM, clf, POOL5, horizon, objective=objective)
        for policy in ("optimal", "worst", "greedy", "greedy-worst", "se", "rs"):
            assert got[policy] == pytest.approx(bf.value(policy, horizon, mean), abs=1e-13), policy


@pytest.mark.parametrize("clf", list(PAPER_CASES.values()), ids=list(PAPER_CASES))
def test_batch_is_the_exhaustive_optimal_batch(clf):
    pool = np.random.default_rng(3).normal(0, 1.5, 9)
    L = error_rate(PROBLEM, clf)
    for horizon in (1, 2, 4):
        expected = L - optimal_batch(PROBLEM, clf, pool, horizon).b_c
        assert policy_value(PROBLEM, clf, pool, horizon, "batch") == pytest.approx(expected, abs=1e-13)


@pytest.mark.parametrize("clf", list(PAPER_CASES.values()), ids=list(PAPER_CASES))
def test_one_step_optimal_is_greedy_is_max_q_c(clf):
    """h = 1: the optimal policy is MRI-best, value L - max_x Q^c(x) (Eq. eqc, maximise_eqc)."""
    pool = np.random.default_rng(4).normal(0, 1.5, 12)
    q = q_c(PROBLEM, clf, pool)
    res = optimal_policy(PROBLEM, clf, pool, 1)
    assert res.value == pytest.approx(error_rate(PROBLEM, clf) - q.max(), abs=1e-14)
    assert res.current_loss == pytest.approx(error_rate(PROBLEM, clf), abs=1e-15)
    assert res.first_choice == int(np.argmax(q))
    assert policy_value(PROBLEM, clf, pool, 1, "greedy") == pytest.approx(res.value, abs=1e-15)
    assert policy_value(PROBLEM, clf, pool, 1, "greedy-worst") == pytest.approx(
        error_rate(PROBLEM, clf) - q.min(), abs=1e-14)
    np.testing.assert_allclose(res.first_values, error_rate(PROBLEM, clf) - q, rtol=0, atol=1e-14)


def test_result_fields_and_state_counts():
    pool = np.linspace(-2, 2, 7)
    res = optimal_policy(PROBLEM, MeanClassifier((-0.5, 1.5), (2, 2)), pool, horizon=4)
    assert isinstance(res.value, float) and isinstance(res.first_choice, int)
    assert res.horizon == 4 and res.objective == "final"
    assert res.n_states == tuple(math.comb(7, d) * 2**d for d in range(5))
    assert res.value == pytest.approx(res.first_values.min(), abs=0)


def test_value_curves_replan_every_horizon():
    """One tree built to depth 6 gives, at each h, what a tree built to depth h gives."""
    clf, pool = sample_state(PROBLEM, (2, 3), 9, np.random.default_rng(5))
    curves = value_curves(PROBLEM, clf, pool, 5)
    for h in range(1, 6):
        direct = policy_values(PROBLEM, clf, pool, h)
        for policy in POLICIES:
            assert curves[policy][h - 1] == pytest.approx(direct[policy], abs=1e-15)


def test_state_codes_are_strictly_increasing_and_decode_to_their_states():
    for k in (2, 3):
        p = np.full((6, k), 1.0 / k)

        class Zero:
            n_classes = k

            @staticmethod
            def losses(subsets, labellings):
                return np.zeros(subsets.shape[0] * labellings.shape[0])

        tree = _Tree(Zero(), p, 3)
        for d in range(4):
            codes = tree.codes[d]
            assert np.all(np.diff(codes) > 0)
            assert codes.size == math.comb(6, d) * k**d
            for s in range(0, codes.size, max(1, codes.size // 40)):
                subset = tree.subsets[d][s // k**d]
                labels = tree.labellings[d][s % k**d]
                expected = sum((1 << (6 * tree.bits + int(i))) | (int(j) << (tree.bits * int(i)))
                               for i, j in zip(subset, labels, strict=True))
                assert int(codes[s]) == expected


# --------------------------------------------------------------------------
# Properties over random states
# --------------------------------------------------------------------------

means = st.floats(-2.0, 2.0, allow_nan=False)
counts = st.integers(1, 5)
points = st.floats(-3.0, 3.0, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(m1=means, m2=means, n1=counts, n2=counts, pool=st.lists(points, min_size=3, max_size=5),
       horizon=st.integers(1, 3))
def test_optimal_is_at_most_every_policy_and_equals_brute_force(m1, m2, n1, n2, pool, horizon):
    horizon = min(horizon, len(pool))
    clf = MeanClassifier((m1, m2), (n1, n2))
    values = policy_values(PROBLEM, clf, pool, horizon)
    slack = 1e-13
    for policy, v in values.items():
        assert values["optimal"] <= v + slack, policy
        if policy != "batch":  # the worst adaptive policy bounds every adaptive policy
            assert v <= values["worst"] + slack, policy
    assert values["batch"] <= values["worst"] + slack  # a batch is one (non-adaptive) policy
    bf = BruteForce(PROBLEM, clf, pool)
    for policy in ("optimal", "greedy", "rs"):
        assert values[policy] == pytest.approx(bf.value(policy, horizon), abs=1e-12), policy


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n1=counts, n2=counts, size=st.integers(4, 8))
def test_mean_objective_bounds(seed, n1, n2, size):
    """The optimal mean-loss policy is at most every adaptive policy's mean loss."""
    clf, pool = sample_state(PROBLEM, (n1, n2), size, np.random.default_rng(seed))
    values = policy_values(PROBLEM, clf, pool, 3, objective="mean")
    assert "batch" not in values
    assert all(values["optimal"] <= v + 1e-13 <= values["worst"] + 2e-13 for v in values.values())


# --------------------------------------------------------------------------
# The general path
# --------------------------------------------------------------------------


def breakpoint_population(thresholds, nodes=8):
    """Gauss-Legendre nodes on cells whose edges include every threshold, weights = density x GL weight.

    Why exact: a mean classifier with equal priors predicts by a threshold
    t_hat; if every t_hat of the tree is a cell edge, each cell lies wholly on
    one side of it, so the population's error rate is a Gauss-Legendre rule
    for the smooth integrand pi_j f_j(x) on each cell: exact to ~1e-15 with
    8 nodes on cells of width <= 0.25 (the tails beyond +-12 weigh < 1e-32).
    A plain grid would only converge at O(spacing) (the integrand jumps at t_hat).
    """
    edges = np.unique(np.concatenate([np.linspace(-12, 12, 97), thresholds]))
    t, w = np.polynomial.legendre.leggauss(nodes)
    lo, hi = edges[:-1, None], edges[1:, None]
    x = (0.5 * (lo + hi) + 0.5 * (hi - lo) * t).ravel()
    weights = (0.5 * (hi - lo) * w).ravel() * 0.5 * (stats.norm.pdf(x, -1) + stats.norm.pdf(x, 1))
    p1 = special.expit(2.0 * x)  # N(-1, 1) vs N(1, 1), equal priors
    return Population(x, np.column_stack([1.0 - p1, p1]), weights)


def tree_thresholds(X_S, y_S, pool, horizon):
    """Every boundary (m_1' + m_2') / 2 of the classifiers the tree can reach, by enumeration."""
    out = []
    for d in range(horizon + 1):
        for subset in itertools.combinations(range(len(pool)), d):
            for labels in itertools.product((0, 1), repeat=d):
                X = np.append(X_S, pool[list(subset)])
                y = np.append(y_S, labels)
                out.append(0.5 * (X[y == 0].mean() + X[y == 1].mean()))
    return np.array(out)


def test_general_path_reproduces_the_closed_form():
    X_S = np.array([-0.8, -0.2, 1.1, 1.9])  # class means (-0.5, 1.5), n = (2, 2)
    y_S = np.array([0, 0, 1, 1])
    clf = MeanClassifier((-0.5, 1.5), (2, 2))
    assert clf.mu_hat == (X_S[:2].mean(), X_S[2:].mean())
    pool = np.array([-1.3, -0.6, 0.2, 0.7, 1.6])
    horizon = 3
    population = breakpoint_population(tree_thresholds(X_S, y_S, pool, horizon))
    general = dict(X_S=X_S[:, None], y_S=y_S, population=population)
    problem = get_problem("two-gaussians")
    model = GaussianMeanClassifier(sigma=1.0, prior=(0.5, 0.5))
    for objective in ("final", "mean"):
        for h in (1, 2, horizon):
            closed = policy_values(PROBLEM, clf, pool, h, objective=objective)
            got = policy_values(problem, model, pool[:, None], h, objective=objective, **general)
            assert set(got) == set(closed)
            for policy in closed:
                assert got[policy] == pytest.approx(closed[policy], abs=1e-10), (objective, h, policy)
    res = optimal_policy(problem, model, pool, horizon, **general)
    ref = optimal_policy(PROBLEM, clf, pool, horizon)
    assert res.first_choice == ref.first_choice and res.n_states == ref.n_states
    assert res.current_loss == pytest.approx(ref.current_loss, abs=1e-12)


def test_general_path_three_classes_against_plain_refits():
    """k = 3 (two label bits per point), 2-D points, LDA: the set DP equals an ordered recursion of refits."""
    problem = get_problem("three-gaussians")
    rng = np.random.default_rng(7)
    X_S, y_S = problem.sample(9, rng)
    y_S[:3] = [0, 1, 2]
    pool, _ = problem.sample(4, rng)
    population = Population.from_problem(problem, 500, rng)
    base = fit_on(LDA(), X_S, y_S, population)
    p = problem.posterior(pool)

    def loss(history):
        idx = [i for i, _ in history]
        refit = LDA().fit(np.vstack([X_S, pool[idx]]), np.append(y_S, [j for _, j in history]), 3)
        return population.loss(refit)

    def best(history, r, pick):
        if r == 0:
            return loss(history)
        used = {i for i, _ in history}
        return pick(sum(p[x, j] * best(history + ((x, j),), r - 1, pick) for j in range(3))
                    for x in range(4) if x not in used)

    kw = dict(X_S=X_S, y_S=y_S, population=population)
    got = policy_values(problem, LDA(), pool, 2, ("optimal", "worst", "rs"), **kw)
    assert got["optimal"] == pytest.approx(best((), 2, min), abs=1e-12)
    assert got["worst"] == pytest.approx(best((), 2, max), abs=1e-12)
    rs = np.mean([sum(p[x, j] * np.mean([sum(p[z, i] * loss(((x, j), (z, i))) for i in range(3))
                                         for z in range(4) if z != x]) for j in range(3)) for x in range(4)])
    assert got["rs"] == pytest.approx(rs, abs=1e-12)
    assert optimal_policy(problem, LDA(), pool, 2, **kw).n_states == (1, 12, 54)
    assert population.loss(base) == pytest.approx(optimal_policy(problem, LDA(), pool, 1, **kw).current_loss)


@pytest.mark.parametrize("objective, loss, absent", [("final", "error", False), ("mean", "error", False),
                                                     ("final", "log", True)])
def test_general_path_three_classes_horizon_3_against_plain_refits(objective, loss, absent):
    """k = 3 at depth 3 (three labelled points, two label bits each): the optimal and worst values and the
    optimal first query against an ordered recursion of plain refits, for both objectives, the error and
    the log loss, and with class 2 absent from the labelled data (it appears only when a query is labelled 2);
    also through :func:`policy_value` (whose default policy is "optimal") and :func:`value_curves`."""
    problem = get_problem("three-gaussians")
    rng = np.random.default_rng(21)
    X_S, y_S = problem.sample(8, rng)
    y_S[:3] = [0, 1, 2]
    if absent:
        y_S[y_S == 2] = 1
    pool, _ = problem.sample(4, rng)
    population = Population.from_problem(problem, 400, rng)
    p = problem.posterior(pool)
    cache = {}

    def loss_of(history):
        key = tuple(sorted(history))
        if key not in cache:
            idx = [i for i, _ in key]
            refit = LDA().fit(np.vstack([X_S, pool[idx]]), np.append(y_S, [j for _, j in key]), 3)
            cache[key] = population.loss(refit, loss)
        return cache[key]

    def value(history, x, r, pick):
        """Expected value of querying x then acting by ``pick`` for r - 1 more steps."""
        step = (lambda h: loss_of(h)) if objective == "mean" else (lambda h: 0.0)
        return sum(p[x, j] * (step(history + ((x, j),)) + best(history + ((x, j),), r - 1, pick))
                   for j in range(3))

    def best(history, r, pick):
        if r == 0:
            return 0.0 if objective == "mean" else loss_of(history)
        used = {i for i, _ in history}
        return pick(value(history, x, r, pick) for x in range(4) if x not in used)

    scale = 3 if objective == "mean" else 1
    kw = dict(X_S=X_S, y_S=y_S, population=population, loss=loss)
    got = policy_values(problem, LDA(), pool, 3, ("optimal", "worst"), objective=objective, **kw)
    assert got["optimal"] == pytest.approx(best((), 3, min) / scale, abs=1e-12)
    assert got["worst"] == pytest.approx(best((), 3, max) / scale, abs=1e-12)
    assert policy_value(problem, LDA(), pool, 3, objective=objective, **kw) == pytest.approx(got["optimal"],
                                                                                             abs=1e-15)
    curves = value_curves(problem, LDA(), pool, 3, ("optimal",), objective=objective, **kw)
    h2 = best((), 2, min) / (2 if objective == "mean" else 1)
    assert np.allclose(np.asarray(curves["optimal"], dtype=float)[-2:], [h2, got["optimal"]], atol=1e-12, rtol=0)
    assert got["worst"] - got["optimal"] > 1e-4  # the choice matters here
    first = [value((), x, 3, min) for x in range(4)]
    res = optimal_policy(problem, LDA(), pool, 3, objective=objective, **kw)
    assert res.first_choice == int(np.argmin(first)) and sorted(first)[1] - min(first) > 1e-9
    assert res.n_states == (1, 12, 54, 108)


# --------------------------------------------------------------------------
# Random states and bad input
# --------------------------------------------------------------------------


def test_sample_state_fits_the_sampled_data():
    clf, pool = sample_state(PROBLEM, (3, 4), 10, np.random.default_rng(11))
    rng = np.random.default_rng(11)
    x, y = PROBLEM.sample_with_counts((3, 4), rng)
    assert clf.n == (3, 4) and clf.mu_hat == pytest.approx((x[y == 0].mean(), x[y == 1].mean()))
    np.testing.assert_array_equal(pool, PROBLEM.sample(10, rng)[0])


CLF = MeanClassifier((-0.5, 1.5), (2, 2))
BAD = [
    (dict(horizon=0), ValueError, "horizon must be >= 1"),
    (dict(horizon=6), ValueError, r"horizon must be at most the pool size \(5\)"),
    (dict(horizon=2.5), ValueError, "horizon must be an integer"),
    (dict(pool=[0.0, np.nan, 1.0]), ValueError, "pool must be finite"),
    (dict(pool=[0.0, np.inf]), ValueError, "pool must be finite"),
    (dict(pool=np.zeros((3, 2))), ValueError, "pool must be a non-empty 1-D sequence"),
    (dict(pool=[]), ValueError, "pool must be a non-empty 1-D sequence"),
    (dict(pool=["a", "b"]), TypeError, "pool must be numeric"),
    (dict(objective="auc"), ValueError, "objective must be one of final, mean"),
    (dict(classifier=GaussianMeanClassifier()), TypeError, "classifier must be a MeanClassifier"),
    (dict(problem="two-gaussians"), TypeError, "problem must be a TwoGaussians"),
    (dict(population=object()), ValueError, "population: only for the general path"),
    (dict(loss="log"), ValueError, "loss must be 'error' on the closed-form path"),
    (dict(max_states=10), ValueError, r"has 51 states, more than max_states=10"),
    (dict(pool=np.linspace(-3, 3, 32)), ValueError, "pool: at most 31 points"),
]


@pytest.mark.parametrize("change, exc, match", BAD, ids=[f"{i}-{','.join(b[0])}" for i, b in enumerate(BAD)])
def test_bad_input_is_refused(change, exc, match):
    kw = dict(problem=PROBLEM, classifier=CLF, pool=POOL5, horizon=2) | change
    with pytest.raises(exc, match=match):
        optimal_policy(**kw)


@pytest.mark.parametrize("policy, objective, exc, match", [
    ("best", "final", ValueError, "policies must be names from optimal, greedy"),
    (3, "final", TypeError, "policy must be a policy name"),
    ("batch", "mean", ValueError, "'batch'.*objective='final' only"),
])
def test_bad_policy_is_refused(policy, objective, exc, match):
    with pytest.raises(exc, match=match):
        policy_value(PROBLEM, CLF, POOL5, 2, policy, objective=objective)


def test_bad_general_path_input_is_refused():
    problem = get_problem("two-gaussians")
    with pytest.raises(ValueError, match="X_S, y_S, population: the general path"):
        optimal_policy(problem, GaussianMeanClassifier(), POOL5, 2)
    pop = Population.from_problem(problem, 50, np.random.default_rng(0))
    kw = dict(X_S=[[-1.0], [1.0]], y_S=[0, 1], population=pop)
    with pytest.raises(TypeError, match="classifier must be an mri_theory.classifiers.Classifier"):
        optimal_policy(problem, CLF, POOL5, 2, **kw)
    with pytest.raises(ValueError, match="pool must have 1 columns"):
        optimal_policy(problem, GaussianMeanClassifier(), np.zeros((5, 2)), 2, **kw)
    with pytest.raises(ValueError, match=r"has 1,161 states, more than max_states=1,000"):
        optimal_policy(problem, GaussianMeanClassifier(), np.linspace(-2, 2, 10), 3, max_states=1000, **kw)


@pytest.mark.parametrize("args, exc, match", [
    (((0, 2), 5), ValueError, "n must be >= 1"),
    (((2,), 5), ValueError, "n must be a pair of counts"),
    (((2, 2), 0), ValueError, "pool_size must be >= 1"),
])
def test_sample_state_refuses_bad_input(args, exc, match):
    with pytest.raises(exc, match=match):
        sample_state(PROBLEM, *args, np.random.default_rng(0))
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        sample_state(PROBLEM, (2, 2), 5, 0)
