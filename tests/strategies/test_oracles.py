"""The literature's label-peeking oracles (:mod:`mri_theory.strategies.oracles`, issue 55).

* :func:`peeked_gains` equals plain refits: the model fitted on D plus (x, y_x), its loss integrated on the exact
  population (or counted on a labelled test set), for every classifier with an exact truth.
* Its mean over the label's law is the true Q^c of every candidate (the identity that makes MRI-best the mean of
  the peeking oracle), for random states (hypothesis).
* ``GreedyOracle``: scores exactly ``tau`` candidates drawn by ``ctx.rng``, the others never chosen; over the whole
  pool it chooses the largest realised reduction; its margin fallback fires exactly when no drawn candidate
  lowers the loss; a test set is drawn once per curve.
* The sandbox hands the candidates' labels only to a strategy that declares ``peeks`` (those of the candidates
  scored, nothing else), and a peeking strategy's parts say so.
* ``LookaheadOracle``: a set's loss equals the plain refit on D plus the set; a candidate's risk at each size is
  the lowest loss of a set containing it (every pair, against refits); "ascending" breaks the ties of the lowest
  risk by the risk alone; the sets are distinct, sorted, all of them when there are few.
* ``AnnealingOracle``: with fewer orders than steps, its plan is the best order (brute force, plain refits);
  annealed, its plan is no worse than its random start and its curve is the order's own (refits); the plan is
  labelled in turn; Zhou et al.'s swaps.
* ``BossOracle``: its proposers see neither the truth nor the labels, only random subsets of the candidates;
  only the proposals score, with their realised reductions; with every candidate proposed it is the greedy
  oracle over the pool.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, settings, st
from _shared import QUIET

from mri_theory.classifiers import LDA, QDA, get_classifier
from mri_theory.engine import Population, current_loss, true_q_c
from mri_theory.problems import get_problem
from mri_theory.runners.sandbox import run_curves
from mri_theory.strategies import (
    AnnealingOracle,
    BossOracle,
    Context,
    GreedyOracle,
    LookaheadOracle,
    MarginSampling,
    Strategy,
    select,
)
from mri_theory.strategies.oracles import (
    CDALBENCH_TAU,
    GAIN_TOLERANCE,
    candidate_sets,
    curve_losses,
    peeked_gains,
    set_losses,
)

EXACT = ["lda", "qda", "nb", "logreg", "knn5", "svm"]


def state(seed: int, n: int = 12, m: int = 8, problem: str = "four-gaussian"):
    problem_ = get_problem(problem)
    rng = np.random.default_rng(seed)
    X, y = problem_.sample(n, rng)
    while np.unique(y).size < 2:
        X, y = problem_.sample(n, rng)
    pool, labels = problem_.sample(m, rng)
    return problem_, X, y, pool, labels


@pytest.mark.parametrize("name", EXACT)
def test_gains_equal_plain_refits_on_the_exact_loss(name):
    problem, X, y, pool, labels = state(1)
    classifier = get_classifier(name)
    exact = Population.exact(problem)
    ctx = Context(X, y, pool, pool, classifier, 2, np.random.default_rng(0), problem, exact, labels)
    rows = np.arange(pool.shape[0])
    now, gains = peeked_gains(ctx, rows, labels, exact)
    before = exact.loss(classifier.clone().fit(X, y, 2))
    after = np.array([exact.loss(classifier.clone().fit(np.vstack([X, pool[i]]), np.append(y, labels[i]), 2))
                      for i in rows])
    assert now == pytest.approx(before, abs=1e-12)
    np.testing.assert_allclose(gains, before - after, rtol=0, atol=1e-10)


def test_gains_on_a_test_set_count_its_errors():
    problem, X, y, pool, labels = state(2)
    rng = np.random.default_rng(5)
    X_test, y_test = problem.sample(300, rng)
    test = Population.from_labels(X_test, y_test, 2)
    ctx = Context(X, y, pool, pool, QDA(), 2, rng, problem, Population.exact(problem), labels)
    rows = np.array([1, 4, 6])
    _, gains = peeked_gains(ctx, rows, labels, test)
    errors = [np.mean(QDA().fit(Xs, ys, 2).predict_proba(X_test).argmax(1) != y_test)
              for Xs, ys in [(X, y)] + [(np.vstack([X, pool[i]]), np.append(y, labels[i])) for i in rows]]
    np.testing.assert_allclose(gains, errors[0] - np.array(errors[1:]), rtol=0, atol=1e-12)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), name=st.sampled_from(["lda", "qda", "nb", "logreg", "knn5"]))
def test_the_mean_gain_over_the_label_is_the_true_q_c(seed, name):
    problem, X, y, pool, _ = state(seed, m=5)
    classifier, exact = get_classifier(name), Population.exact(problem)
    ctx = Context(X, y, pool, pool, classifier, 2, np.random.default_rng(0), problem, exact)
    rows = np.arange(pool.shape[0])
    posterior = problem.posterior(pool)
    mean = sum(posterior[:, c] * peeked_gains(ctx, rows, np.full(rows.size, c), exact)[1] for c in (0, 1))
    np.testing.assert_allclose(mean, true_q_c(problem, classifier, X, y, pool, exact), rtol=0, atol=1e-12)


def oracle_context(seed: int, m: int = 40, labels=None, classifier=None):
    problem, X, y, pool, drawn = state(seed, m=m)
    return Context(X, y, pool, pool, classifier or LDA(), 2, np.random.default_rng(seed), problem,
                   Population.exact(problem), drawn if labels is None else labels)


def test_tau_candidates_are_drawn_by_the_generator_and_only_they_can_be_chosen():
    ctx = oracle_context(3)
    scores = GreedyOracle().scores(ctx)
    assert CDALBENCH_TAU == 20
    drawn = np.sort(np.random.default_rng(3).choice(40, 20, replace=False))  # ctx.rng's first draw
    _, gains = peeked_gains(ctx, drawn, ctx.candidate_labels, ctx.population)
    assert gains.max() > GAIN_TOLERANCE  # the premise: no fallback
    np.testing.assert_array_equal(scores[drawn], gains)
    others = np.setdiff1d(np.arange(40), drawn)
    assert np.all(scores[others] == gains.min() - 1.0)
    index, _ = select(GreedyOracle(), oracle_context(3))
    assert index in drawn and scores[index] == pytest.approx(gains.max(), abs=1e-12)


def test_over_the_whole_pool_the_largest_realised_reduction_is_chosen():
    ctx = oracle_context(4, m=25)
    index, scores = select(GreedyOracle(tau=None), ctx)
    exact, X, y = ctx.population, ctx.X, ctx.y
    reductions = [current_loss(LDA(), X, y, exact)
                  - current_loss(LDA(), np.vstack([X, p]), np.append(y, c), exact)
                  for p, c in zip(ctx.candidates, ctx.candidate_labels, strict=True)]
    assert reductions[index] == pytest.approx(max(reductions), abs=1e-12)
    np.testing.assert_allclose(scores, reductions, rtol=0, atol=1e-12)


def test_the_margin_fallback_fires_exactly_when_no_candidate_lowers_the_loss():
    problem, X, y, pool, labels = state(1, n=100, m=10)
    exact = Population.exact(problem)
    ctx = Context(X, y, pool, pool, LDA(), 2, np.random.default_rng(0), problem, exact, labels)
    by_class = np.column_stack([peeked_gains(ctx, np.arange(10), np.full(10, c), exact)[1] for c in (0, 1)])
    wrong = by_class.argmin(axis=1)  # every candidate given the label that helps less
    ctx.candidate_labels = wrong
    _, gains = peeked_gains(ctx, np.arange(10), wrong, exact)
    assert gains.max() <= GAIN_TOLERANCE  # the premise: no candidate lowers the loss
    scores = GreedyOracle(tau=None).scores(ctx)
    np.testing.assert_array_equal(scores, MarginSampling().scores(ctx))
    np.testing.assert_array_equal(GreedyOracle(tau=None, fallback=None).scores(ctx), gains)
    ctx.candidate_labels = labels  # the drawn labels: some candidate lowers the loss, no fallback
    _, gains = peeked_gains(ctx, np.arange(10), labels, ctx.population)
    assert gains.max() > GAIN_TOLERANCE
    np.testing.assert_array_equal(GreedyOracle(tau=None).scores(ctx), gains)


def test_a_test_set_is_drawn_once_per_curve():
    ctx = oracle_context(7)
    oracle = GreedyOracle(tau=None, test_size=200)
    first = oracle.scores(ctx)
    test = oracle.test_set_
    assert test is not None and test.size == 200
    oracle.scores(ctx)
    assert oracle.test_set_ is test  # kept for the curve
    rng = np.random.default_rng(7)
    X_test, y_test = ctx.problem.sample(200, rng)  # the first draw from a generator in ctx.rng's state
    np.testing.assert_array_equal(test.X, X_test)
    _, gains = peeked_gains(ctx, np.arange(40), ctx.candidate_labels, Population.from_labels(X_test, y_test, 2))
    expected = gains if gains.max() > GAIN_TOLERANCE else MarginSampling().scores(ctx)
    np.testing.assert_array_equal(first, expected)


@pytest.mark.parametrize(("options", "error", "words"), [
    ({"tau": 0}, ValueError, "tau"), ({"tau": 2.5}, ValueError, "tau"), ({"tau": "20"}, TypeError, "tau"),
    ({"test_size": 0}, ValueError, "test_size"), ({"fallback": "entropy"}, ValueError, "fallback"),
    ({"loss": "lc"}, ValueError, "loss")])
def test_bad_options(options, error, words):
    with pytest.raises(error, match=words):
        GreedyOracle(**options)


def test_without_the_labels_or_the_truth_it_refuses():
    ctx = oracle_context(8)
    ctx.candidate_labels = None
    with pytest.raises(ValueError, match="candidate_labels"):
        GreedyOracle().scores(ctx)
    ctx = oracle_context(8)
    ctx.population = None
    with pytest.raises(ValueError, match="truth"):
        GreedyOracle().scores(ctx)


class LabelSpy(Strategy):
    """Records the candidates and the labels it is handed (a peeking strategy when ``peeks``)."""

    name = "spy"
    seen: list = []  # noqa: RUF012 - shared by the copies the sandbox makes, in this process

    def __init__(self, peeks: bool = False) -> None:
        self.peeks = peeks

    def scores(self, ctx):
        LabelSpy.seen.append((ctx.candidates.copy(), ctx.candidate_labels))
        return np.zeros(len(ctx.candidates))


@pytest.mark.parametrize("peeks", [True, False])
def test_the_sandbox_hands_labels_only_to_a_peeking_strategy(tmp_path, peeks):
    from mri_theory.runners import _curves

    problem = get_problem("four-gaussian")
    cfg = _curves.curve_config(("four-gaussian", problem), ("lda", LDA()), 8, 4, 500, "error", 100, None, 1, "auto")
    _, _, pool_X, pool_y, _ = _curves.replicate_data(problem, cfg, 0)
    LabelSpy.seen = []
    run_curves("four-gaussian", "lda", [LabelSpy(peeks)], 8, 1, 1, budget=4, population_size=500,
               out=tmp_path, execution=QUIET)
    assert len(LabelSpy.seen) == 4
    for candidates, labels in LabelSpy.seen:
        if not peeks:
            assert labels is None
            continue
        rows = [int(np.flatnonzero((pool_X == c).all(axis=1))[0]) for c in candidates]
        np.testing.assert_array_equal(labels, pool_y[rows])  # the labels of exactly the candidates offered
    header = next((tmp_path / "parts").glob("*.csv")).read_text().splitlines()[0]
    assert ('"peeks": true' in header) == peeks


def test_the_greedy_oracle_runs_in_the_sandbox(tmp_path):
    curves = run_curves("four-gaussian", "lda", ["GreedyOracle", "MRI-best"], 30, 2, 0, budget=5,
                        population_size=500, out=tmp_path, execution=QUIET)
    assert set(curves.strategy) == {"GreedyOracle", "MRI-best"}
    assert curves.groupby(["strategy", "replicate"]).chosen.apply(lambda c: c.iloc[:-1].ge(0).all()).all()
    header = next((tmp_path / "parts").glob("GreedyOracle__*.csv")).read_text().splitlines()[0]
    assert '"peeks": true' in header


# ------------------------------------------------------------------ the non-myopic oracle policy


def test_set_losses_equal_plain_refits():
    problem, X, y, pool, labels = state(9, m=7)
    exact = Population.exact(problem)
    for name in ("lda", "knn5", "logreg"):
        classifier = get_classifier(name)
        ctx = Context(X, y, pool, pool, classifier, 2, np.random.default_rng(0), problem, exact, labels)
        for sets in (np.array([[0, 1], [0, 3], [2, 5], [4, 6], [1, 6], [0, 6]]),  # shared parts {0}, {6}; one alone
                     np.array([[0, 1, 2], [0, 1, 3], [1, 2, 3], [2, 4, 5]]), np.arange(7)[:, None]):
            losses = set_losses(ctx, sets, labels, exact)
            refits = [exact.loss(classifier.clone().fit(np.vstack([X, pool[s]]), np.append(y, labels[s]), 2))
                      for s in sets]
            np.testing.assert_allclose(losses, refits, rtol=0, atol=1e-10)


def test_candidate_sets_are_distinct_sorted_and_all_when_few():
    rng = np.random.default_rng(0)
    members = np.array([3, 7, 1, 9])
    every = candidate_sets(members, 2, 6, rng)
    assert every.tolist() == [[1, 3], [1, 7], [1, 9], [3, 7], [3, 9], [7, 9]]  # C(4, 2) = 6 <= 6: all
    drawn = candidate_sets(np.arange(30), 3, 50, np.random.default_rng(1))
    assert drawn.shape == (50, 3) and len({tuple(r) for r in drawn}) == 50
    assert np.all(np.diff(drawn, axis=1) > 0)
    again = candidate_sets(np.arange(30), 3, 50, np.random.default_rng(1))
    np.testing.assert_array_equal(drawn, again)


def test_the_risks_are_the_best_set_containing_each_candidate():
    """Every pair (sets=None): risk at size 2 of candidate c is the lowest refit loss over the pairs with c."""
    problem, X, y, pool, labels = state(10, m=6)
    exact = Population.exact(problem)
    ctx = Context(X, y, pool, pool, LDA(), 2, np.random.default_rng(0), problem, exact, labels)
    risk = LookaheadOracle(depth=2, sets=None).risks(ctx)

    def loss(members):
        members = list(members)
        return exact.loss(LDA().fit(np.vstack([X, pool[members]]), np.append(y, labels[members]), 2))

    singles = [loss([c]) for c in range(6)]
    pairs = {(a, b): loss([a, b]) for a in range(6) for b in range(a + 1, 6)}
    pair_risk = [min(v for k, v in pairs.items() if c in k) for c in range(6)]
    np.testing.assert_allclose(risk[:, 0], singles, rtol=0, atol=1e-12)
    np.testing.assert_allclose(risk[:, 1], pair_risk, rtol=0, atol=1e-12)


def test_ascending_breaks_ties_by_the_single_risk():
    """The two members of the best pair tie at their lowest risk; "ascending" keeps the one better alone."""
    problem, X, y, pool, labels = state(10, m=6)
    ctx = Context(X, y, pool, pool, LDA(), 2, np.random.default_rng(0), problem, Population.exact(problem), labels)
    oracle = LookaheadOracle(depth=2, sets=None)
    risk = oracle.risks(ctx)
    lowest = risk.min(axis=1)
    tied = np.flatnonzero(np.isclose(lowest, lowest.min(), rtol=0, atol=1e-12))
    index, scores = select(oracle, ctx)
    assert index in tied
    assert risk[index, 0] == pytest.approx(risk[tied, 0].min(), abs=1e-12)
    rand = LookaheadOracle(depth=2, sets=None, mode="rand").scores(ctx)
    np.testing.assert_array_equal(rand, -lowest)
    assert np.array_equal(scores[tied] < scores.max() - 0.5, risk[tied, 0] > risk[tied, 0].min() + 1e-12)


def test_sizes_beyond_the_candidates_are_skipped():
    ctx = oracle_context(11, m=1)
    risk = LookaheadOracle(depth=3).risks(ctx)
    assert risk.shape == (1, 1) and np.isfinite(risk[0, 0])
    assert select(LookaheadOracle(depth=3), ctx)[0] == 0


@pytest.mark.parametrize(("options", "error", "words"), [
    ({"depth": 0}, ValueError, "depth"), ({"sets": 0}, ValueError, "sets"), ({"mode": "mean"}, ValueError, "mode"),
    ({"test_size": -1}, ValueError, "test_size"), ({"loss": "lc"}, ValueError, "loss")])
def test_lookahead_bad_options(options, error, words):
    with pytest.raises(error, match=words):
        LookaheadOracle(**options)


def test_the_state_scorer_hands_the_labels_to_the_peeking_oracles():
    """In score_states' first state (the initial set, the whole pool left) the oracle's scores are the reductions
    of the loss by each pool point with its drawn label, against refits."""
    from mri_theory.runners import _curves, score_states

    table = score_states("four-gaussian", "lda", [GreedyOracle(tau=None, fallback=None)], replicates=1, steps=[0],
                         pool_size=12, seed=4, execution=QUIET)
    problem = get_problem("four-gaussian")
    cfg = _curves.curve_config(("four-gaussian", problem), ("lda", LDA()), 12, 12, 10_000, "error", 100, None, 4,
                               "auto")
    X0, y0, pool_X, pool_y, population = _curves.replicate_data(problem, cfg, 0)
    now = population.loss(LDA().fit(X0, y0, 2))
    refits = [now - population.loss(LDA().fit(np.vstack([X0, x]), np.append(y0, c), 2))
              for x, c in zip(pool_X, pool_y, strict=True)]
    np.testing.assert_array_equal(table.candidate, np.arange(12))
    np.testing.assert_allclose(table.score, refits, rtol=0, atol=1e-12)


# ------------------------------------------------------------------ Zhou et al.'s annealing over orders


def refit_curve(problem, X, y, points, labels, population):
    """The learning curve of an order by plain refits: the loss after 0, 1, ..., len(points) of its points."""
    return np.array([population.loss(LDA().fit(np.vstack([X, points[:k]]), np.append(y, labels[:k]), 2))
                     for k in range(points.shape[0] + 1)])


def test_with_few_orders_every_one_is_scored_and_the_best_kept():
    """5 candidates, a budget of 3: 60 orders, fewer than the steps, so the plan is the exact best order (brute
    force over every order with plain refits)."""
    problem, X, y, pool, labels = state(12, n=6, m=5)
    exact = Population.exact(problem)
    ctx = Context(X, y, pool, pool, LDA(), 2, np.random.default_rng(0), problem, exact, labels)
    oracle = AnnealingOracle(budget=3, steps=60, greedy_steps=0)
    order, losses = oracle.search(ctx)
    import itertools

    means = {o: refit_curve(problem, X, y, pool[list(o)], labels[list(o)], exact).mean()
             for o in itertools.permutations(range(5), 3)}
    assert losses.mean() == pytest.approx(min(means.values()), abs=1e-12)
    np.testing.assert_allclose(losses, refit_curve(problem, X, y, pool[order], labels[order], exact), rtol=0,
                               atol=1e-12)


def test_the_annealed_order_is_no_worse_than_its_start_and_its_curve_is_its_own():
    problem, X, y, pool, labels = state(13, n=6, m=9)
    exact = Population.exact(problem)
    ctx = Context(X, y, pool, pool, LDA(), 2, np.random.default_rng(5), problem, exact, labels)
    oracle = AnnealingOracle(budget=4, steps=150, greedy_steps=30, anneal_factor=40.0)  # 3,024 orders: annealed
    order, losses = oracle.search(ctx)
    start = np.random.default_rng(5).permutation(9)[:4]  # the search's first draw: its initial order
    np.testing.assert_allclose(losses, refit_curve(problem, X, y, pool[order], labels[order], exact), rtol=0,
                               atol=1e-12)
    assert losses.mean() <= refit_curve(problem, X, y, pool[start], labels[start], exact).mean() + 1e-12
    assert np.unique(order).size == 4


def test_the_plan_is_labelled_in_turn():
    problem, X, y, pool, labels = state(14, n=6, m=7)
    ctx = Context(X, y, pool, pool, LDA(), 2, np.random.default_rng(1), problem, Population.exact(problem), labels)
    oracle = AnnealingOracle(steps=40, greedy_steps=10)
    chosen = []
    while ctx.candidates.shape[0]:
        index, scores = select(oracle, ctx)
        assert scores[index] == 1.0 and scores.sum() == 1.0
        chosen.append(ctx.candidates[index])
        keep = np.arange(ctx.candidates.shape[0]) != index
        ctx = Context(np.vstack([ctx.X, ctx.candidates[index]]), np.append(ctx.y, ctx.candidate_labels[index]),
                      ctx.candidates[keep], ctx.candidates[keep], LDA(), 2, ctx.rng, problem, ctx.population,
                      ctx.candidate_labels[keep])
    np.testing.assert_array_equal(np.array(chosen), oracle.plan_)


def test_zhous_swaps():
    rng = np.random.default_rng(0)
    order = np.arange(6)
    for _ in range(50):
        new, first = AnnealingOracle._propose(order, 6, rng)  # budget = pool: two acquired positions
        moved = np.flatnonzero(new != order)
        assert moved.size == 2 and moved.max() < 6 and first == moved.min()
        new, first = AnnealingOracle._propose(order, 1, rng)  # one acquired: always with a not-acquired one
        moved = np.flatnonzero(new != order)
        assert moved.tolist()[0] == 0 and moved.size == 2 and first == 0
    assert AnnealingOracle._propose(np.arange(1), 1, rng) is None


def test_the_annealing_oracle_runs_in_the_sandbox(tmp_path):
    curves = run_curves("four-gaussian", "lda", [AnnealingOracle(steps=30, greedy_steps=5)], 6, 1, 2,
                        population_size=500, out=tmp_path, execution=QUIET)
    assert sorted(curves.chosen.iloc[:-1].tolist()) == list(range(6))


@pytest.mark.parametrize(("options", "error", "words"), [
    ({"budget": 0}, ValueError, "budget"), ({"steps": -1}, ValueError, "steps"),
    ({"greedy_steps": 1.5}, ValueError, "greedy_steps"), ({"anneal_factor": 0.0}, ValueError, "anneal_factor"),
    ({"anneal_factor": float("nan")}, ValueError, "anneal_factor"), ({"loss": "lc"}, ValueError, "loss")])
def test_annealing_bad_options(options, error, words):
    with pytest.raises(error, match=words):
        AnnealingOracle(**options)


# ------------------------------------------------------------------ BoSS


class ProposalSpy(Strategy):
    """A proposer that records what it is shown (it must see neither the truth nor the labels) and proposes its
    first candidate."""

    name = "proposal-spy"
    shown: list = []  # noqa: RUF012 - shared by the copies, in this process

    def scores(self, ctx):
        ProposalSpy.shown.append((ctx.candidates.copy(), ctx.problem, ctx.population, ctx.candidate_labels))
        return -np.arange(ctx.candidates.shape[0], dtype=float)


def test_with_every_candidate_proposed_boss_is_the_greedy_oracle_over_the_pool():
    ctx = oracle_context(15, m=8)
    scores = BossOracle(proposers=("RS",), batches=300).scores(ctx)
    proposed = BossOracle(proposers=("RS",), batches=300).proposals(oracle_context(15, m=8))
    assert proposed.tolist() == list(range(8))  # the premise: 300 random proposals reach all 8
    np.testing.assert_array_equal(scores, GreedyOracle(tau=None, fallback=None).scores(oracle_context(15, m=8)))


def test_the_proposers_see_neither_the_truth_nor_the_labels_and_only_the_candidates_score():
    ProposalSpy.shown = []
    ctx = oracle_context(16, m=12)
    oracle = BossOracle(proposers=(ProposalSpy(),), batches=7)
    scores = oracle.scores(ctx)
    assert len(ProposalSpy.shown) == 7
    firsts = set()
    for candidates, problem, population, labels in ProposalSpy.shown:
        assert problem is None and population is None and labels is None
        assert 4 <= candidates.shape[0] <= 12
        rows = [int(np.flatnonzero((ctx.candidates == c).all(axis=1))[0]) for c in candidates]
        assert rows == sorted(rows)  # a subset of the candidates, in their order
        firsts.add(rows[0])  # the spy proposes its first candidate
    proposed = np.flatnonzero(scores > scores.min())
    _, gains = peeked_gains(ctx, np.array(sorted(firsts)), ctx.candidate_labels, ctx.population)
    np.testing.assert_array_equal(scores[sorted(firsts)], gains)
    assert set(proposed) <= firsts


@pytest.mark.parametrize(("options", "error", "words"), [
    ({"proposers": "RS"}, TypeError, "proposers"), ({"proposers": ()}, TypeError, "proposers"),
    ({"proposers": ("MRI-best",)}, ValueError, "proposers"),
    ({"proposers": ("GreedyOracle",)}, ValueError, "proposers"),
    ({"proposers": ("no-such",)}, ValueError, "no-such"), ({"proposers": (3,)}, TypeError, "proposers"),
    ({"batches": 0}, ValueError, "batches"), ({"loss": "lc"}, ValueError, "loss")])
def test_boss_bad_options(options, error, words):
    with pytest.raises(error, match=words):
        BossOracle(**options)


def test_the_helpers_refuse_bad_input_naming_the_argument():
    ctx = oracle_context(17, m=5)
    labels, exact = ctx.candidate_labels, ctx.population
    bad = [
        (lambda: peeked_gains(ctx, np.array([0, 5]), labels, exact), ValueError, "rows"),
        (lambda: peeked_gains(ctx, np.array([0.5]), labels, exact), TypeError, "rows"),
        (lambda: peeked_gains(ctx, np.arange(2), labels[:3], exact), ValueError, "labels"),
        (lambda: peeked_gains(ctx, np.arange(2), labels, "exact"), TypeError, "evaluation"),
        (lambda: peeked_gains("ctx", np.arange(2), labels, exact), TypeError, "ctx"),
        (lambda: peeked_gains(ctx, np.arange(2), labels, exact, "lc"), ValueError, "loss"),
        (lambda: set_losses(ctx, np.array([[0, 0]]), labels, exact), ValueError, "sets"),
        (lambda: set_losses(ctx, np.array([0, 1]), labels, exact), ValueError, "sets"),
        (lambda: candidate_sets(np.arange(3), 4, None, np.random.default_rng(0)), ValueError, "size"),
        (lambda: candidate_sets(np.arange(3), 2, 0, np.random.default_rng(0)), ValueError, "count"),
        (lambda: candidate_sets(np.arange(3), 2, 1, 0), TypeError, "rng"),
        (lambda: candidate_sets(np.array([-1, 2]), 1, None, np.random.default_rng(0)), ValueError, "members"),
        (lambda: curve_losses(ctx, ctx.candidates[:, :1], labels, exact), ValueError, "points"),
        (lambda: curve_losses(ctx, ctx.candidates, labels, exact, start=6), ValueError, "start"),
        (lambda: curve_losses(ctx, ctx.candidates, labels, exact, losses=np.zeros(3)), ValueError, "losses"),
    ]
    for call, error, word in bad:
        with pytest.raises(error, match=word):
            call()
