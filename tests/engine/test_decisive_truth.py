"""The decisive sampled truth (:func:`decisive_q_c`): the race of common-random-number QMC populations.

Checked against independent computations: the documented race recomputed by hand from :func:`true_q_c` on
each documented scramble (a loop per round and candidate, the values and errors from per-scramble arrays);
the exact truth of LDA (:meth:`Population.exact`) for the choice, the values and the calibration of the
standard errors; constructed cases whose answer is known (a point given twice, a choice against itself, the
same Q^c everywhere); and the documented seed scheme, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, settings, st
from _reference import decisive_race_by_hand

from mri_theory.classifiers import LDA, get_classifier
from mri_theory.engine import Population, true_q_c
from mri_theory.engine.targets import (
    INDIFFERENCE,
    LEVEL,
    DecisiveQc,
    decisive_q_c,
)
from mri_theory.problems import get_problem

SIZE = 800  # round 0: 8 scrambles of 64 points (the largest power of two not above 800 // 8)
ROUND_0 = 512


def _state(seed: int, n: int = 40, m: int = 10, problem: str = "four-gaussian"):
    truth = get_problem(problem)
    rng = np.random.default_rng(seed)
    X, y = truth.sample(n, rng)
    candidates, _ = truth.sample(m, rng)
    return truth, X, y, candidates


# ------------------------------------------------------------------ the race by hand


def _scramble_q_c(problem, make, X, y, candidates, n, seed, number):
    """Q^c of ``candidates`` on the documented scramble ``number`` of ``n`` points (a fresh fit: true_q_c)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, number)))
    return true_q_c(problem, make(), X, y, candidates, Population.from_problem(problem, n, rng, method="qmc"))


def _hand_race(problem, make, X, y, candidates, seed, **kwargs):
    """The documented race by hand (``tests/_reference.py``), each scramble's Q^c by :func:`true_q_c`."""
    def q_c_on(indices, population):
        return (population.loss(make().fit(X, y, problem.n_classes)),
                true_q_c(problem, make(), X, y, candidates[indices], population))
    out = decisive_race_by_hand(q_c_on, problem, candidates, seed, kwargs.pop("size", SIZE), **kwargs)
    return out[:6] + out[7:]  # leader, resolved, points, values, errors, epsilon, readmitted, gap, gap_se, bound


@pytest.mark.parametrize("seed, indifference, largest, readmits, level", [
    (0, INDIFFERENCE, True, False, None), (3, INDIFFERENCE, True, False, None), (2, 0.0, True, True, None),
    (5, INDIFFERENCE, False, False, None), (7, 0.2, True, False, None), (16, INDIFFERENCE, True, True, None),
    (46, INDIFFERENCE, False, True, None),
    (0, INDIFFERENCE, True, False, LEVEL), (3, INDIFFERENCE, True, False, LEVEL), (2, 0.0, True, False, LEVEL),
    (5, INDIFFERENCE, False, False, LEVEL), (7, 0.2, True, False, LEVEL), (16, INDIFFERENCE, True, False, LEVEL),
    (46, INDIFFERENCE, False, False, LEVEL), (9, INDIFFERENCE, True, False, 0.01)])
def test_the_race_equals_the_documented_race_by_hand(seed, indifference, largest, readmits, level):
    """Including races in which a candidate eliminated by an earlier leader is not beaten by a later one, and so
    races again on the rounds it missed (``readmits``); the family-wise rule (``level``) and the earlier
    per-comparison one (``level=None``); the gap over the runner-up, its error and the shortfall bound."""
    problem, X, y, candidates = _state(seed)
    got = decisive_q_c(problem, LDA(), X, y, candidates, seed=seed + 100, size=SIZE, indifference=indifference,
                       doublings=4, largest=largest, level=level)
    leader, resolved, points, q, errors, epsilon, readmitted, gap, gap_se, bound = _hand_race(
        problem, LDA, X, y, candidates, seed + 100, indifference=indifference, doublings=4, largest=largest,
        level=level)
    assert (readmitted > 0) == readmits
    assert isinstance(got, DecisiveQc)
    assert (got.chosen, got.resolved) == (leader, resolved)
    assert got.gap == pytest.approx(gap, rel=1e-9, abs=1e-15)
    assert got.gap_se == pytest.approx(gap_se, rel=1e-8, abs=1e-15)
    assert got.shortfall_bound == pytest.approx(bound, rel=1e-8, abs=1e-15)
    assert got.resolved == (got.shortfall_bound < got.epsilon)  # no exact ties among these candidates
    np.testing.assert_array_equal(got.points, points)
    np.testing.assert_allclose(got.q_c, q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.se, errors, rtol=1e-8, atol=1e-15)
    assert got.epsilon == pytest.approx(epsilon, rel=1e-9, abs=1e-15)
    assert got.loss == pytest.approx(np.mean([  # round 0's current loss, on its own scrambles
        Population.from_problem(problem, 64, np.random.default_rng(np.random.SeedSequence(
            seed + 100, spawn_key=(r,))), method="qmc").loss(LDA().fit(X, y, 2)) for r in range(8)]), abs=1e-14)
    # every candidate below the choice, an eliminated one by more than 3 standard errors of their difference
    signed = got.q_c if largest else -got.q_c
    raced = got.points == got.points.max()
    assert np.all(signed[~raced] < signed[got.chosen])


def test_cases_that_need_more_rounds_and_cases_that_reach_the_cap_are_both_checked_above():
    """The parameters above cover a race that enlarges the contenders and resolves, and one that stops at the cap."""
    problem, X, y, candidates = _state(3)
    enlarged = decisive_q_c(problem, LDA(), X, y, candidates, seed=103, size=SIZE, doublings=4, level=None)
    assert enlarged.resolved and enlarged.points.max() > 2 * ROUND_0 and enlarged.points.min() < enlarged.points.max()
    problem, X, y, candidates = _state(5)
    worst = decisive_q_c(problem, LDA(), X, y, candidates, seed=105, size=SIZE, doublings=4, largest=False,
                         level=None)
    assert worst.resolved and worst.points.max() > ROUND_0 and worst.points.min() == ROUND_0
    capped = decisive_q_c(*_state(2)[:1], LDA(), *_state(2)[1:], seed=102, size=SIZE, indifference=0.0, doublings=4,
                          level=None)
    assert not capped.resolved and capped.points.max() == ROUND_0 * 2**4


# ------------------------------------------------------------------ against the exact truth


def test_the_choice_and_the_values_agree_with_the_exact_truth():
    """LDA, 8 states: a resolved choice is within epsilon of the exact best (plus 3 of the values' errors), and
    the values' errors are calibrated: (value - exact) / se behaves like t_7 values (8 scrambles).

    Bounds: the root mean square of t_7 is 1.18, required within [0.6, 1.8]; |t_7| > 4.5 has probability 0.003,
    at most 3 of 80 allowed.
    """
    z, resolved = [], 0
    for seed in range(8):
        problem, X, y, candidates = _state(seed)
        exact = true_q_c(problem, LDA(), X, y, candidates, Population.exact(problem))
        got = decisive_q_c(problem, LDA(), X, y, candidates, seed=seed, size=1600, doublings=5)
        assert got.chosen == np.argmax(got.q_c)
        # the shortfall bound holds (each state fails it with a chance of at most LEVEL; these seeds never do)
        assert exact.max() - exact[got.chosen] <= got.shortfall_bound + 1e-12
        if got.resolved:
            resolved += 1
            assert exact.max() - exact[got.chosen] <= got.epsilon
        z.extend((got.q_c - exact) / got.se)
    z = np.asarray(z)
    assert resolved >= 2
    assert 0.6 <= np.sqrt(np.mean(z**2)) <= 1.8, z
    assert np.count_nonzero(np.abs(z) > 4.5) <= 3, z


def test_a_clear_best_is_chosen_and_resolved_in_round_0():
    """An early state (|D_S| = 6) whose exact best beats the runner-up by a wide margin: decided at once."""
    problem, X, y, candidates = _state(8, n=6, m=6)
    exact = true_q_c(problem, LDA(), X, y, candidates, Population.exact(problem))
    order = np.sort(exact)[::-1]
    assert order[0] - order[1] > 0.05 and order[1] - order[2] > 0.05  # the construction: a clear best and worst
    got = decisive_q_c(problem, LDA(), X, y, candidates, seed=1, size=8000, indifference=0.0)
    assert got.resolved and got.chosen == np.argmax(exact)
    assert got.points.max() == 8 * 512  # round 0 only: 8 scrambles of 512 points
    worst = decisive_q_c(problem, LDA(), X, y, candidates, seed=1, size=8000, indifference=0.0, largest=False)
    assert worst.resolved and worst.chosen == np.argmin(exact) == np.argmin(worst.q_c)


# ------------------------------------------------------------------ ties


def test_a_point_given_twice_is_an_exact_tie_and_the_choice_is_resolved():
    problem, X, y, candidates = _state(3, n=6, m=6)
    exact = true_q_c(problem, LDA(), X, y, candidates, Population.exact(problem))
    best = int(np.argmax(exact))
    twice = np.vstack([candidates, candidates[best]])  # the best again, last
    got = decisive_q_c(problem, LDA(), X, y, twice, seed=3, size=8000, indifference=0.0)
    assert got.resolved and got.chosen == best
    np.testing.assert_array_equal(got.tied, [best, 6])
    assert got.q_c[best] == got.q_c[6] and got.se[best] == got.se[6]


def test_candidates_that_all_have_the_same_q_c_everywhere_are_tied_and_resolved():
    """Every candidate the same point: the race stops at round 0, every candidate tied with the first."""
    problem, X, y, candidates = _state(5, m=1)
    got = decisive_q_c(problem, LDA(), X, y, np.repeat(candidates, 4, axis=0), seed=0, size=SIZE, indifference=0.0)
    assert got.resolved and got.chosen == 0 and got.epsilon == 0.0
    np.testing.assert_array_equal(got.tied, np.arange(4))
    assert np.unique(got.q_c).size == 1 and np.all(got.points == ROUND_0)


def test_one_candidate_is_resolved_at_once():
    problem, X, y, candidates = _state(5, m=1)
    got = decisive_q_c(problem, LDA(), X, y, candidates, seed=0, size=SIZE)
    assert got.resolved and got.chosen == 0 and got.tied.tolist() == [0] and got.points.tolist() == [ROUND_0]
    values = [_scramble_q_c(problem, LDA, X, y, candidates, 64, np.random.SeedSequence(0), r)[0] for r in range(8)]
    assert got.q_c[0] == pytest.approx(np.mean(values), abs=1e-14)
    assert got.se[0] == pytest.approx(np.std(values, ddof=1) / np.sqrt(8), rel=1e-9)


def test_a_near_tie_is_left_to_the_cap_without_indifference_and_resolved_by_the_zone():
    """Two nearly equal candidates at the top, far above the others (the clear best of the test above, and a
    point 0.03 from it: exact Q^c 9e-4 apart, under 1 % of the spread): three doublings do not separate them, so
    with indifference 0 the race stops at the cap unresolved, the two racing to the end; the zone (5 % of the
    spread, 5e-3) resolves it after one doubling (at the family-wise level: 4.2 standard errors for 7 candidates
    and 4 looks)."""
    problem, X, y, candidates = _state(8, n=6, m=6)
    exact = true_q_c(problem, LDA(), X, y, candidates, Population.exact(problem))
    best = int(np.argmax(exact))
    close = np.vstack([candidates, candidates[best] + 0.03])
    gap = abs(np.diff(true_q_c(problem, LDA(), X, y, close[[best, 6]], Population.exact(problem)))[0])
    assert 5e-4 < gap < 2e-3
    strict = decisive_q_c(problem, LDA(), X, y, close, seed=3, size=SIZE, indifference=0.0, doublings=3)
    assert not strict.resolved and strict.points[best] == strict.points[6] == ROUND_0 * 2**3
    assert strict.chosen in (best, 6) and strict.points.min() == ROUND_0
    zone = decisive_q_c(problem, LDA(), X, y, close, seed=3, size=SIZE, doublings=3)
    assert zone.resolved and zone.chosen in (best, 6) and zone.points.max() == 2 * ROUND_0
    assert zone.epsilon == pytest.approx(0.05 * np.mean(zone.q_c.max() - zone.q_c), rel=0.2)


# ------------------------------------------------------------------ randomness


def test_the_same_seed_gives_the_same_bytes_and_an_int_seed_is_its_seed_sequence():
    problem, X, y, candidates = _state(1)
    runs = [decisive_q_c(problem, LDA(), X, y, candidates, seed=seed, size=SIZE, doublings=3)
            for seed in (7, 7, np.random.SeedSequence(7))]
    for other in runs[1:]:
        for a, b in zip(runs[0], other, strict=True):
            np.testing.assert_array_equal(a, b)
    other_seed = decisive_q_c(problem, LDA(), X, y, candidates, seed=8, size=SIZE, doublings=3)
    assert not np.array_equal(other_seed.q_c, runs[0].q_c)


def test_a_larger_cap_only_adds_rounds_after_the_same_ones():
    """The scrambles are numbered, not drawn in sequence: with the per-comparison rule (``level=None``) a race
    resolved under a cap is the same under a larger one.  With a family-wise ``level`` the threshold depends on the
    cap (its looks share the level), so only the scrambles stay the same."""
    problem, X, y, candidates = _state(0)
    small = decisive_q_c(problem, LDA(), X, y, candidates, seed=np.random.SeedSequence(5, spawn_key=(2, 4)),
                         size=SIZE, doublings=3, level=None)
    large = decisive_q_c(problem, LDA(), X, y, candidates, seed=np.random.SeedSequence(5, spawn_key=(2, 4)),
                         size=SIZE, doublings=6, level=None)
    assert small.resolved
    for a, b in zip(small, large, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", ["svm", "kknn5"])
def test_classifiers_without_an_exact_truth_race_like_the_hand_computation(name):
    problem, X, y, candidates = _state(2, n=30, m=6)
    got = decisive_q_c(problem, get_classifier(name), X, y, candidates, seed=11, size=SIZE, doublings=2)
    leader, resolved, points, q, errors, *_ = _hand_race(problem, lambda: get_classifier(name), X, y, candidates,
                                                         11, doublings=2)
    assert (got.chosen, got.resolved) == (leader, resolved)
    np.testing.assert_array_equal(got.points, points)
    np.testing.assert_allclose(got.q_c, q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.se, errors, rtol=1e-8, atol=1e-15)


@settings(deadline=None, derandomize=True, max_examples=15)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 6), indifference=st.sampled_from([0.0, 0.05, 0.5]),
       largest=st.booleans(), doublings=st.integers(0, 3))
def test_the_choice_has_the_best_value_and_the_points_are_round_sums(seed, m, indifference, largest, doublings):
    """Whatever the state: the choice is the best value and in its ties; every value is finite with an error
    >= 0; a candidate's points are round 0's (8 scrambles of 32 points for size 400: a power of two) doubled some
    number of times, the choice's the most; unresolved only at the cap."""
    problem, X, y, candidates = _state(seed % 1000, n=12, m=m)
    got = decisive_q_c(problem, LDA(), X, y, candidates, seed=seed, size=400, indifference=indifference,
                       doublings=doublings, largest=largest)
    signed = got.q_c if largest else -got.q_c
    assert signed[got.chosen] >= signed.max() - 1e-12 * max(1.0, abs(signed.max()))
    assert got.chosen in got.tied and np.all(np.diff(got.tied) > 0)
    assert np.all(np.isfinite(got.q_c)) and np.all(got.se >= 0)
    rounds = np.log2(got.points / 256)  # round 0: 8 scrambles of 32 points
    assert np.all(rounds == np.round(rounds)) and np.all((rounds >= 0) & (rounds <= doublings))
    assert got.points[got.chosen] == got.points.max()
    assert got.resolved or got.points.max() == 256 * 2**doublings
    assert got.epsilon >= 0


# ------------------------------------------------------------------ bad input


@pytest.fixture
def no_population(monkeypatch):
    """Fail if a population is drawn: every refusal comes before any work."""
    def refuse(*args, **kwargs):
        raise AssertionError("a population was drawn before the arguments were checked")
    monkeypatch.setattr(Population, "from_problem", refuse)


@pytest.mark.parametrize("change, error, pattern", [
    (dict(problem="four-gaussian"), TypeError, "problem must be a Problem object"),
    (dict(problem=get_problem("breast-cancer")), ValueError, "problem: .* has no truth"),
    (dict(classifier="lda"), TypeError, "classifier must be"),
    (dict(X_S=np.zeros((3, 3))), ValueError, "X_S"),
    (dict(y_S=[0, 1]), ValueError, "X_S and y_S must have the same length"),
    (dict(y_S=[0, 1, 5]), ValueError, "y_S"),
    (dict(candidates=np.full((2, 2), np.nan)), ValueError, "candidates"),
    (dict(candidates=np.zeros((0, 2))), ValueError, "candidates"),
    (dict(seed=np.random.default_rng(0)), TypeError, "seed must be an int >= 0 or a numpy.random.SeedSequence"),
    (dict(seed=-1), ValueError, "seed must be >= 0"),
    (dict(seed=1.5), TypeError, "seed must be an int"),
    (dict(seed=True), TypeError, "seed must be an int"),
    (dict(size=7), ValueError, "size must be >= 8"),
    (dict(size="800"), TypeError, "size must be an integer"),
    (dict(scrambles=1), ValueError, "scrambles must be >= 2"),
    (dict(loss="hinge"), ValueError, "loss"),
    (dict(largest="yes"), TypeError, "largest must be True or False"),
    (dict(z=0.0), ValueError, "z"),
    (dict(indifference=-0.1), ValueError, r"indifference must be in \[0, 1\]"),
    (dict(indifference=1.5), ValueError, r"indifference must be in \[0, 1\]"),
    (dict(indifference=np.nan), ValueError, "indifference"),
    (dict(doublings=-1), ValueError, "doublings must be >= 0"),
    (dict(doublings=30, size=10_000), ValueError, r"doublings: round 0's points times 2\*\*doublings"),
])
def test_bad_input_is_refused_naming_the_argument_before_any_population(no_population, change, error, pattern):
    problem, X, y, candidates = _state(0, n=3, m=2)
    args = dict(problem=problem, classifier=LDA(), X_S=X, y_S=y, candidates=candidates, seed=0, size=800)
    args.update(change)
    with pytest.raises(error, match=pattern):
        decisive_q_c(**args)


# ------------------------------------------------------------------ the family-wise level


def test_false_resolved_claims_among_equal_best_candidates_stay_within_the_level():
    """The documented guarantee, by simulation against the exact truth: the mean classifier on the two-Gaussian
    problem with a mirror-symmetric D_S gives the candidates x and -x the same exact Q^c (checked on the exact
    population), while their sampled populations differ.  Candidates +-0.3 and +-1.2 (the best pair): with
    ``indifference=0`` every resolved race claims the choice beats its equal twin, a false claim.  200 seeded
    races (2 doublings); if the rate were the level 0.05, 21 or more false claims would have a chance below 1e-3
    (``scipy.stats.binom.ppf(0.999, 200, 0.05)`` = 21), so at most 20 are allowed.  And the shortfall bound,
    checked against the exact truth, fails (the choice short of the best by more than it) in at most as many."""
    from scipy.stats import binom

    problem, mean = get_problem("two-gaussians"), get_classifier("mean")
    X, y = np.array([[-1.5], [-0.5], [0.5], [1.5]]), np.array([0, 0, 1, 1])
    candidates = np.array([[0.3], [-0.3], [1.2], [-1.2]])
    exact = true_q_c(problem, mean, X, y, candidates, Population.exact(problem))
    assert exact[0] == pytest.approx(exact[1], abs=1e-14) and exact[2] == pytest.approx(exact[3], abs=1e-14)
    assert exact[2] > exact[0] + 1e-4
    races, allowed = 200, int(binom.ppf(0.999, 200, LEVEL)) - 1
    claims = bound_failures = 0
    for seed in range(races):
        got = decisive_q_c(problem, mean, X, y, candidates, seed=seed, size=8 * 16, indifference=0.0, doublings=2)
        claims += got.resolved
        bound_failures += exact.max() - exact[got.chosen] > got.shortfall_bound + 1e-12
    assert allowed == 20
    assert claims <= allowed and bound_failures <= allowed, (claims, bound_failures)


def test_the_threshold_is_students_quantile_of_the_level_shared_by_rivals_and_looks():
    """The threshold against scipy's t quantile (an independent formula: ppf of 1 - level / (rivals x looks)), and
    ``level=None`` keeps ``z``."""
    from scipy.stats import t as student_t

    problem, X, y, candidates = _state(0, m=7)
    got = decisive_q_c(problem, LDA(), X, y, candidates, seed=1, size=SIZE, doublings=3, level=0.01, scrambles=6)
    assert got.threshold == pytest.approx(student_t.ppf(1 - 0.01 / (6 * 4), 5), rel=1e-10)
    legacy = decisive_q_c(problem, LDA(), X, y, candidates, seed=1, size=SIZE, doublings=3, level=None, z=2.5)
    assert legacy.threshold == 2.5


def test_the_zone_is_the_spread_of_the_pooled_values_not_round_0s():
    """A race that goes past round 0 (indifference 0 leaves the near-tie to the cap): the zone's epsilon (at
    indifference 0.5, the same rounds) is half the mean shortfall of every candidate's pooled value (less the
    current loss) over its rounds, recomputed here from the documented scrambles by :func:`true_q_c`."""
    problem, X, y, candidates = _state(2)
    got = decisive_q_c(problem, LDA(), X, y, candidates, seed=102, size=SIZE, indifference=0.0, doublings=3)
    assert not got.resolved and got.points.max() > ROUND_0
    seed, rounds = np.random.SeedSequence(102), int(np.log2(got.points.max() // ROUND_0)) + 1
    n = [64 * 2 ** max(k - 1, 0) for k in range(rounds)]
    pooled = np.zeros(len(candidates))
    for j in range(len(candidates)):
        k_j = int(np.log2(got.points[j] // ROUND_0)) + 1 if got.points[j] > ROUND_0 else 1
        w = np.array(n[:k_j], dtype=float) / sum(n[:k_j])
        for k in range(k_j):
            per = []
            for r in range(8):
                rng = np.random.default_rng(np.random.SeedSequence(seed.entropy, spawn_key=(k * 8 + r,)))
                population = Population.from_problem(problem, n[k], rng, method="qmc")
                per.append(true_q_c(problem, LDA(), X, y, candidates[[j]], population)[0]
                           - population.loss(LDA().fit(X, y, 2)))
            pooled[j] += w[k] * np.mean(per)
    half = decisive_q_c(problem, LDA(), X, y, candidates, seed=102, size=SIZE, indifference=0.5, doublings=3)
    assert half.points.tolist() == got.points.tolist()  # the same rounds (unresolved): the same pooled values
    assert not half.resolved
    assert half.epsilon == pytest.approx(0.5 * np.mean(pooled.max() - pooled), rel=1e-9)
    assert got.epsilon == 0.0
