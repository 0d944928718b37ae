"""AL strategies (:mod:`mri_theory.strategies`): every strategy's contract, and each score against the paper.

* Every registered strategy is reproducible (same seed, same scores and
  selection), selects one of the candidates, and copes with a single candidate.
* SE, LC, QbcV and QbcA are held to direct computations written out here
  (entropy by hand, votes counted from the members' predictions, the average
  Kullback-Leibler divergence with ``scipy.stats.entropy``).
* EfeLc (Eq. ``efelc``), SMRI (Algorithm 1) and BMRI (Algorithm 2) are held
  (a) to the same strategy with ``method="refit"`` (scores to 1e-12 and the
  same selections from identically seeded generators) and (b) to independent
  implementations written straight from the paper's pseudocode: a loop over
  candidates and labels, the base classifier refitted with ``clone().fit`` on
  ``D_T + (x, c_j)``, the empirical error on ``D_E``, and the second classifier
  :math:`\\theta_2` (5-NN, or a random forest for a k-NN base) fitted with
  scikit-learn directly.  Both for a k-NN and an LDA base, with two and three
  classes.  Our CvMRI and PoolMRI are in the ``method="refit"`` comparison
  (a) too; their brute-force references are in ``test_our_strategies.py``.
* MRI-best / MRI-worst are the true :math:`Q^c` of Eq. ``eqc`` computed by hand
  from the problem's posterior, and refuse to run without the truth.

Sizes are tiny (pools of 10-25, labelled sets of 2-8, populations of 500,
``n_b`` of 3-4) so the module runs in seconds.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, installed, settings, st
from _shared import QUIET
from scipy.stats import entropy as scipy_entropy
from sklearn.ensemble import RandomForestClassifier
from sklearn.neighbors import KNeighborsClassifier

from mri_theory.classifiers import (
    KNN,
    Classifier,
    LogisticRegression,
    RandomForest,
    get_classifier,
)
from mri_theory.engine.population import Population
from mri_theory.problems import get_problem
from mri_theory.strategies import (
    BMRI_FOREST_TREES,
    COMMITTEE,
    FOREST_TREES,
    PEER_NAMES,
    STRATEGY_REGISTRY,
    TIE_TOLERANCE,
    AverageKL,
    BootstrapMRI,
    Context,
    EfeLc,
    MRIBest,
    MRIWorst,
    SimpleMRI,
    Strategy,
    VoteEntropy,
    get_strategy,
    list_strategies,
    second_classifier,
    select,
    strategy_names,
)

PAPER_ORDER = ["RS", "SE", "LC", "QbcV", "QbcA", "EfeLc", "SMRI", "BMRI", "MRI-best", "MRI-worst"]
ALL = list_strategies()
ESTIMATORS = ("EfeLc", "SMRI", "BMRI", "CvMRI", "PoolMRI")  # the retrain-and-score strategies with ``method``
#: Small options so BMRI (n_b random-forest fits per step for a k-NN base) stays cheap.
CHEAP = {"BMRI": {"n_b": 3}, "AnnealingOracle": {"steps": 40, "greedy_steps": 10}, "BossOracle": {"batches": 5}}
BASES = ("knn5", "lda")
PROBLEMS = ("four-gaussian", "three-gaussians")  # two and three classes


def make(name: str, **options) -> Strategy:
    return get_strategy(name, **{**CHEAP.get(name, {}), **options})


def labelled_data(problem, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` labelled points holding every class (the first ``k`` are one per class)."""
    k = problem.n_classes
    X, y = problem.sample(200, rng)
    first = [int(np.flatnonzero(y == j)[0]) for j in range(k)]
    rest = [i for i in range(200) if i not in first][: n - k]
    idx = np.array(first + rest)
    return X[idx], y[idx]


def make_case(seed: int, problem_name: str = "four-gaussian", n_labelled: int = 5, n_pool: int = 15,
              n_candidates: int | None = None, population_size: int = 500):
    """Labelled data, a pool, candidates (a subset of the pool) and a population, all from ``seed``."""
    problem = get_problem(problem_name)
    rng = np.random.default_rng(seed)
    X, y = labelled_data(problem, n_labelled, rng)
    pool, _ = problem.sample(n_pool, rng)
    candidates = pool if n_candidates is None else pool[np.sort(rng.choice(n_pool, n_candidates, replace=False))]
    population = Population.from_problem(problem, population_size, rng, method="qmc")
    return problem, X, y, pool, candidates, population


def drawn_labels(problem, points: np.ndarray) -> np.ndarray:
    """Labels of ``points`` drawn from the problem's posterior (a fixed stream): what the peeking oracles see."""
    u = np.random.default_rng(99).random(points.shape[0])
    return (u[:, None] > np.cumsum(problem.posterior(points), axis=1)[:, :-1]).sum(axis=1)


def context(case, classifier: str | Classifier, rng_seed: int = 123) -> Context:
    problem, X, y, pool, candidates, population = case
    base = get_classifier(classifier) if isinstance(classifier, str) else classifier
    return Context(X, y, candidates, pool, base, problem.n_classes, np.random.default_rng(rng_seed), problem,
                   population, drawn_labels(problem, candidates))


# ------------------------------------------------------------------ registry


def test_the_registry_lists_the_paper_then_ours_then_the_peers_each_as_its_class_declares():
    """The built-in strategies first, in the paper's order (§3-§5; LC, which the paper defines but does not
    compare, after SE), then ours, then scikit-activeml's peers where it is installed (tests/strategies/test_peers.py,
    also without it), then the literature's peeking oracles; the lines-ups are what each class declares
    (``origin``), not positions."""
    assert ALL[:len(PAPER_ORDER)] == PAPER_ORDER
    assert strategy_names("paper") == ("RS", "SE", "QbcV", "QbcA", "EfeLc", "SMRI", "BMRI")  # the paper's seven (§5.1)
    oracles = strategy_names("oracle")
    peeking = [name for name in oracles if get_strategy(name).peeks]  # the literature's, registered after the peers
    assert oracles[:2] == ("MRI-best", "MRI-worst") and list(oracles[2:]) == peeking and peeking
    assert strategy_names("other")[:1] == ("LC",)
    assert ALL[-len(peeking):] == peeking
    origins = [STRATEGY_REGISTRY.tag(name, "origin", "other") for name in ALL]
    built_in = len(PAPER_ORDER)
    assert "ours" not in origins[:built_in] and "peer" not in origins[:built_in]
    ours = [i for i, origin in enumerate(origins) if origin == "ours"]
    peers = [i for i, origin in enumerate(origins) if origin == "peer"]
    assert ours and ours == list(range(built_in, built_in + len(ours)))  # ours right after the built-in ones
    assert all(i > max(ours) for i in peers) and (bool(peers) == installed("skactiveml"))
    assert [ALL[i] for i in peers] == (list(PEER_NAMES) if installed("skactiveml") else [])


def test_unknown_strategy_raises_and_lists_the_known_names():
    with pytest.raises(ValueError, match="unknown strategy") as info:
        get_strategy("Nope")
    for name in ALL:
        assert name in str(info.value)


def test_options_reach_the_constructor():
    assert get_strategy("BMRI").n_b == 25  # the paper's n_b (§4)
    assert get_strategy("BMRI", n_b=7, method="refit").n_b == 7
    assert get_strategy("SMRI", method="refit").method == "refit"
    assert get_strategy("MRI-best", loss="log").loss == "log"
    with pytest.raises(TypeError):
        get_strategy("SE", n_b=3)


def test_second_classifier_follows_section_4():
    for base in (KNN(5), KNN(1), KNN(21)):
        theta2 = second_classifier(base)
        assert isinstance(theta2, RandomForest) and theta2.n_estimators == FOREST_TREES
    for name in ("lda", "qda", "nb", "logreg", "svm", "rf"):
        theta2 = second_classifier(get_classifier(name))
        assert isinstance(theta2, KNN) and theta2.k == 5


def test_committee_is_the_papers():
    """§5.1: logistic regression, 5-NN, 21-NN and a random forest; each factory gives a fresh model."""
    members = [make() for make in COMMITTEE]
    assert isinstance(members[0], LogisticRegression)
    assert isinstance(members[1], KNN) and members[1].k == 5
    assert isinstance(members[2], KNN) and members[2].k == 21
    assert isinstance(members[3], RandomForest) and members[3].n_estimators == FOREST_TREES
    assert all(a is not b for a, b in zip(members, [make() for make in COMMITTEE], strict=True))


# ------------------------------------------------------------------ every strategy


@pytest.mark.parametrize("classifier", BASES)
@pytest.mark.parametrize("name", ALL)
def test_reproducible(name, classifier):
    """Same data and seed -> bit-identical scores and selection, also when the strategy object is reused."""
    case = make_case(7, n_candidates=8)
    strategy = make(name)
    i1, s1 = select(strategy, context(case, classifier, rng_seed=99))
    i2, s2 = select(strategy, context(case, classifier, rng_seed=99))
    i3, s3 = select(make(name), context(case, classifier, rng_seed=99))
    assert i1 == i2 == i3
    np.testing.assert_array_equal(s1, s2)
    np.testing.assert_array_equal(s1, s3)


@pytest.mark.parametrize("problem_name", PROBLEMS)
@pytest.mark.parametrize("name", ALL)
def test_selects_one_of_the_candidates(name, problem_name):
    case = make_case(11, problem_name, n_labelled=6, n_pool=14, n_candidates=9)
    ctx = context(case, "lda")
    i, scores = select(make(name), ctx)
    assert isinstance(i, int) and 0 <= i < 9
    assert scores.shape == (9,) and np.all(np.isfinite(scores))
    assert scores[i] >= scores.max() - TIE_TOLERANCE * max(1.0, abs(scores.max()))


@pytest.mark.parametrize("classifier", BASES)
@pytest.mark.parametrize("name", ALL)
def test_single_candidate(name, classifier):
    """A pool of one point (the last step of an exhausted pool), and one candidate out of a bigger pool."""
    problem, X, y, pool, _, population = make_case(5, n_labelled=4, n_pool=6)
    for one_pool in (pool[:1], pool):
        ctx = Context(X, y, pool[:1], one_pool, get_classifier(classifier), problem.n_classes,
                      np.random.default_rng(0), problem, population, drawn_labels(problem, pool[:1]))
        i, scores = select(make(name), ctx)
        assert i == 0
        assert scores.shape == (1,) and np.isfinite(scores[0])


@pytest.mark.parametrize("name", ["MRI-best", "MRI-worst"])
def test_oracles_need_the_truth(name):
    problem, X, y, pool, candidates, population = make_case(3)
    for truth in ({"problem": problem}, {"population": population}, {}):
        ctx = Context(X, y, candidates, pool, KNN(5), problem.n_classes, np.random.default_rng(0), **truth)
        with pytest.raises(ValueError, match="problem and population"):
            select(get_strategy(name), ctx)


def test_rs_is_uniform_over_the_candidates():
    """RS: all scores tie, so the generator picks uniformly (5 candidates, 5000 picks, each within 5 sd)."""
    case = make_case(2, n_candidates=5)
    ctx = context(case, "lda", rng_seed=0)
    strategy = get_strategy("RS")
    picks = np.array([select(strategy, ctx)[0] for _ in range(5000)])
    counts = np.bincount(picks, minlength=5)
    sd = np.sqrt(5000 * 0.2 * 0.8)
    assert np.all(np.abs(counts - 1000) < 5 * sd), counts


def test_select_rejects_invalid_scores():
    class Broken(Strategy):
        name = "broken"

        def __init__(self, values):
            self.values = values

        def scores(self, ctx):
            return self.values

    ctx = context(make_case(1, n_candidates=3), "lda")
    cases = [(np.array([0.0, np.nan, 1.0]), ValueError, r"strategy 'broken'.*non-finite.*candidates \[1\]"),
             (np.zeros(2), ValueError, r"strategy 'broken'.*shape \(2,\).*shape \(3,\)"),
             (np.array([0.0, np.inf, 0.0]), ValueError, r"strategy 'broken'.*non-finite"),
             (None, TypeError, r"scores of strategy 'broken'.*None"),
             (["1", "2", "3"], TypeError, r"scores of strategy 'broken'.*text"),
             (np.array([1j, 0, 0]), TypeError, r"scores of strategy 'broken'.*real")]
    for bad, error, pattern in cases:
        with pytest.raises(error, match=pattern):
            select(Broken(bad), ctx)


# ------------------------------------------------------------------ heuristics against direct computations


def entropy_by_hand(p: np.ndarray) -> np.ndarray:
    """:math:`-\\sum_j p_j \\ln p_j` with :math:`0 \\ln 0 = 0`, one row at a time."""
    out = np.zeros(p.shape[0])
    for i, row in enumerate(p):
        for value in row:
            if value > 0:
                out[i] -= value * np.log(value)
    return out


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), classifier=st.sampled_from(BASES + ("qda", "nb")),
       problem_name=st.sampled_from(PROBLEMS))
def test_se_and_lc_by_hand(seed, classifier, problem_name):
    case = make_case(seed, problem_name, n_labelled=6, n_pool=12, population_size=16)
    problem, X, y, pool, candidates, _ = case
    p = get_classifier(classifier).fit(X, y, problem.n_classes).predict_proba(candidates)
    se = get_strategy("SE").scores(context(case, classifier))
    lc = get_strategy("LC").scores(context(case, classifier))
    np.testing.assert_allclose(se, entropy_by_hand(p), rtol=0, atol=1e-12)
    np.testing.assert_allclose(lc, [1.0 - max(row) for row in p], rtol=0, atol=1e-15)


@pytest.mark.parametrize("problem_name", PROBLEMS)
@pytest.mark.parametrize("seed", [0, 1])
def test_qbc_by_hand(seed, problem_name):
    """QbcV from the members' predicted labels; QbcA as the mean of ``scipy.stats.entropy(p_m, p_mean)``."""
    case = make_case(seed, problem_name, n_labelled=8, n_pool=12)
    problem, X, y, pool, candidates, _ = case
    k = problem.n_classes
    members = [make().fit(X, y, k) for make in COMMITTEE]
    labels = np.array([m.predict(candidates) for m in members])  # (members, m)
    proba = np.array([m.predict_proba(candidates) for m in members])
    vote_entropy = np.empty(len(candidates))
    average_kl = np.empty(len(candidates))
    for i in range(len(candidates)):
        shares = np.array([np.sum(labels[:, i] == j) for j in range(k)]) / len(members)
        vote_entropy[i] = -sum(s * np.log(s) for s in shares if s > 0)
        mean = proba[:, i].mean(axis=0)
        average_kl[i] = np.mean([scipy_entropy(proba[m, i], mean) for m in range(len(members))])
    np.testing.assert_allclose(get_strategy("QbcV").scores(context(case, "lda")), vote_entropy, rtol=0, atol=1e-12)
    np.testing.assert_allclose(get_strategy("QbcA").scores(context(case, "lda")), average_kl, rtol=0, atol=1e-12)


def test_qbc_disagreement_is_zero_when_the_committee_agrees():
    """One class in the labelled data: every member predicts it with certainty, nothing to disagree on."""
    case = list(make_case(4, n_labelled=4))
    case[2] = np.zeros(4, dtype=int)
    for name in ("QbcV", "QbcA"):
        np.testing.assert_array_equal(get_strategy(name).scores(context(tuple(case), "lda")), 0.0)


# ------------------------------------------------------------------ EfeLc, SMRI, BMRI: refit path


@pytest.mark.parametrize("problem_name", PROBLEMS)
@pytest.mark.parametrize("classifier", BASES)
@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("seed,n_labelled", [(0, 2), (1, 4), (2, 7)])
def test_fast_path_equals_refit(name, classifier, problem_name, seed, n_labelled):
    """``method="auto"`` and ``method="refit"``: scores to 1e-12, and the same pick from the same generator.

    Covers labelled sets smaller and larger than k-NN's k (the two branches of its fast path).
    """
    n_labelled = max(n_labelled, get_problem(problem_name).n_classes)
    case = make_case(seed, problem_name, n_labelled=n_labelled, n_pool=14, n_candidates=10)
    options = {"n_b": 4} if name == "BMRI" else {}
    i_fast, s_fast = select(get_strategy(name, **options), context(case, classifier, rng_seed=seed))
    i_refit, s_refit = select(get_strategy(name, method="refit", **options), context(case, classifier, rng_seed=seed))
    np.testing.assert_allclose(s_fast, s_refit, rtol=0, atol=1e-12)
    assert i_fast == i_refit


# ------------------------------------------------------------------ EfeLc, SMRI, BMRI: the paper's pseudocode


def theta2_proba(base: Classifier, X: np.ndarray, y: np.ndarray, k: int, at: np.ndarray,
                 trees: int = FOREST_TREES, kernel: str = "rectangular") -> np.ndarray:
    """:math:`\\hat{\\mathbf p}` from :math:`\\theta_2` (§4), with scikit-learn directly.

    A random forest of ``trees`` trees for a k-NN base (seeded 0, the
    package's documented forest seed), 5-NN (all points when fewer) otherwise;
    columns mapped onto classes ``0..k-1``.
    """
    if isinstance(base, KNN):
        model = RandomForestClassifier(n_estimators=trees, random_state=0).fit(X, y)
    elif kernel == "optimal":  # kknn's weights: our KNN, tested against kknn's formula in tests/classifiers
        return KNN(5, "optimal").fit(X, y, k).predict_proba(at)
    else:
        model = KNeighborsClassifier(n_neighbors=min(5, len(y))).fit(X, y)
    out = np.zeros((len(at), k))
    out[:, model.classes_] = model.predict_proba(at)
    return out


def t_e_hat(base: Classifier, x: np.ndarray, p_hat: np.ndarray, D_T, D_E, k: int) -> float:
    """:math:`\\hat T_e = \\hat{\\mathbf p} \\cdot \\hat{\\mathbf{L'}}`: Algorithm 1/2's inner loop over the labels."""
    X_T, y_T = D_T
    X_E, y_E = D_E
    L = np.empty(k)
    for j in range(k):
        model = base.clone().fit(np.vstack([X_T, x[None, :]]), np.append(y_T, j), k)
        L[j] = np.mean(model.predict(X_E) != y_E)  # M_e: misclassification, averaged over D_E
    return float(p_hat @ L)


def simple_mri_naive(base, X, y, candidates, k, kernel="rectangular"):
    """Algorithm 1: :math:`D_P = D_T = D_E = D_S`; score :math:`-\\hat Q^c = -\\hat T_e`."""
    p = theta2_proba(base, X, y, k, candidates, kernel=kernel)
    return np.array([-t_e_hat(base, x, p[i], (X, y), (X, y), k) for i, x in enumerate(candidates)])


def bootstrap_mri_naive(base, X, y, candidates, k, n_b, rng, aggregate=np.median, kernel="rectangular"):
    """Algorithm 2: ``n_b`` bootstrap triples ``(I_P, I_T, I_E)`` drawn once per call, median (or ``aggregate``)
    of the scores."""
    n = len(y)
    q = np.empty((n_b, len(candidates)))
    for b in range(n_b):
        i_p, i_t, i_e = rng.integers(0, n, size=(3, n))
        p = theta2_proba(base, X[i_p], y[i_p], k, candidates, BMRI_FOREST_TREES, kernel)
        for i, x in enumerate(candidates):
            q[b, i] = -t_e_hat(base, x, p[i], (X[i_t], y[i_t]), (X[i_e], y[i_e]), k)
    return aggregate(q, axis=0)


def efelc_naive(base, X, y, candidates, pool, k):
    """Eq. ``efelc``: :math:`-\\sum_j \\hat p_j(x) \\sum_{x_i \\in X_P} (1 - \\max \\hat p'(x_i))`.

    :math:`\\hat p` is the current model; :math:`\\hat p'` the model retrained on ``D + (x, c_j)``.
    """
    p = base.clone().fit(X, y, k).predict_proba(candidates)
    out = np.empty(len(candidates))
    for i, x in enumerate(candidates):
        total = 0.0
        for j in range(k):
            retrained = base.clone().fit(np.vstack([X, x[None, :]]), np.append(y, j), k)
            total += p[i, j] * np.sum(1.0 - retrained.predict_proba(pool).max(axis=1))
        out[i] = -total
    return out


NAIVE_CASES = [("four-gaussian", 0, 3), ("four-gaussian", 1, 6), ("four-gaussian", 2, 8), ("three-gaussians", 3, 7)]


@pytest.mark.parametrize("classifier", BASES)
@pytest.mark.parametrize("problem_name,seed,n_labelled", NAIVE_CASES)
def test_smri_matches_algorithm_1(classifier, problem_name, seed, n_labelled):
    case = make_case(seed, problem_name, n_labelled=n_labelled, n_pool=12)
    problem, X, y, pool, candidates, _ = case
    naive = simple_mri_naive(get_classifier(classifier), X, y, candidates, problem.n_classes)
    for method in ("auto", "refit"):
        scores = get_strategy("SMRI", method=method).scores(context(case, classifier))
        np.testing.assert_allclose(scores, naive, rtol=0, atol=1e-12)


@pytest.mark.parametrize("classifier", BASES)
@pytest.mark.parametrize("problem_name,seed,n_labelled", NAIVE_CASES)
def test_bmri_matches_algorithm_2(classifier, problem_name, seed, n_labelled):
    case = make_case(seed, problem_name, n_labelled=n_labelled, n_pool=10)
    problem, X, y, pool, candidates, _ = case
    n_b = 3
    naive = bootstrap_mri_naive(get_classifier(classifier), X, y, candidates, problem.n_classes, n_b,
                                np.random.default_rng(seed + 500))
    for method in ("auto", "refit"):
        scores = get_strategy("BMRI", n_b=n_b, method=method).scores(context(case, classifier, rng_seed=seed + 500))
        np.testing.assert_allclose(scores, naive, rtol=0, atol=1e-12)


@pytest.mark.parametrize("classifier", BASES)
@pytest.mark.parametrize("problem_name,seed,n_labelled", NAIVE_CASES)
def test_efelc_matches_roy_and_mccallum(classifier, problem_name, seed, n_labelled):
    case = make_case(seed, problem_name, n_labelled=n_labelled, n_pool=15, n_candidates=8)
    problem, X, y, pool, candidates, _ = case
    naive = efelc_naive(get_classifier(classifier), X, y, candidates, pool, problem.n_classes)
    for method in ("auto", "refit"):
        scores = get_strategy("EfeLc", method=method).scores(context(case, classifier))
        np.testing.assert_allclose(scores, naive, rtol=0, atol=1e-12)


@pytest.mark.parametrize("classifier", ["lda", "logreg", "kknn5"])
def test_the_open_choices_match_their_reading_of_the_paper(classifier):
    """BMRI's ``aggregate="mean"`` (the text's "averaged", lines 915 and 942) and the kknn kernel of the default
    5-NN theta2 (``theta2_kernel="optimal"``), SMRI's and BMRI's, against Algorithms 1 and 2 by hand."""
    case = make_case(5, "three-gaussians", n_labelled=7, n_pool=10)
    problem, X, y, pool, candidates, _ = case
    base, k = get_classifier(classifier), problem.n_classes
    for kernel in ("rectangular", "optimal"):
        for aggregate in ("median", "mean"):
            naive = bootstrap_mri_naive(base, X, y, candidates, k, 3, np.random.default_rng(9), getattr(np, aggregate),
                                        kernel)
            strategy = BootstrapMRI(n_b=3, aggregate=aggregate, theta2_kernel=kernel)
            np.testing.assert_allclose(strategy.scores(context(case, classifier, rng_seed=9)), naive, rtol=0,
                                       atol=1e-12)
        naive = simple_mri_naive(base, X, y, candidates, k, kernel)
        np.testing.assert_allclose(SimpleMRI(theta2_kernel=kernel).scores(context(case, classifier)), naive,
                                   rtol=0, atol=1e-12)


def test_the_mean_and_the_median_differ():
    """Not the same statistic under another name: on the same resamples the two aggregates differ."""
    case = make_case(2, n_labelled=10, n_pool=14)
    median = BootstrapMRI(n_b=5).scores(context(case, "lda", rng_seed=4))
    mean = BootstrapMRI(n_b=5, aggregate="mean").scores(context(case, "lda", rng_seed=4))
    assert not np.allclose(median, mean)


def test_qbc_with_kknn_members_by_hand():
    """``knn_kernel="optimal"``: the committee's 5-NN and 21-NN with kknn's weights, scored as in test_qbc_by_hand."""
    case = make_case(3, "three-gaussians", n_labelled=9, n_pool=12)
    problem, X, y, pool, candidates, _ = case
    k = problem.n_classes
    members = [LogisticRegression().fit(X, y, k), KNN(5, "optimal").fit(X, y, k), KNN(21, "optimal").fit(X, y, k),
               RandomForest(FOREST_TREES).fit(X, y, k)]
    proba = np.array([m.predict_proba(candidates) for m in members])
    votes = np.array([[np.mean(np.argmax(proba[:, i], axis=1) == j) for j in range(k)] for i in range(len(candidates))])
    vote_entropy = [-sum(v * np.log(v) for v in row if v > 0) for row in votes]
    mean = proba.mean(axis=0)
    average_kl = [np.mean([scipy_entropy(proba[m, i], mean[i]) for m in range(4)]) for i in range(len(candidates))]
    np.testing.assert_allclose(VoteEntropy("optimal").scores(context(case, "lda")), vote_entropy, rtol=0, atol=1e-12)
    np.testing.assert_allclose(AverageKL(knn_kernel="optimal").scores(context(case, "lda")), average_kl, rtol=0,
                               atol=1e-12)
    assert not np.allclose(AverageKL().scores(context(case, "lda")), average_kl)  # the kernel matters here


@pytest.mark.parametrize(("make", "match"), [
    (lambda: BootstrapMRI(aggregate="max"), "aggregate must be one of 'median', 'mean'"),
    (lambda: BootstrapMRI(theta2_kernel="gaussian"), "theta2_kernel must be one of"),
    (lambda: SimpleMRI(theta2=KNN(5), theta2_kernel="optimal"), "theta2_kernel is the kernel of the default"),
    (lambda: VoteEntropy(knn_kernel="triangular"), "knn_kernel must be one of"),
    (lambda: EfeLc(candidates="all"), "candidates must be one of 'subsample', 'pool'"),
])
def test_bad_options_are_refused(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_the_options_keep_the_stored_reprs():
    """At their defaults the options added for the paper's open choices are not in the repr, so the committed
    study's parts (keyed by the strategies' reprs in study.json) still match; away from them they are."""
    import json
    from pathlib import Path

    stored = json.loads((Path(__file__).resolve().parents[2] / "figures" / "study" / "study.json").read_text())
    for name, spec in stored["grid"]["specs"]["strategies"].items():
        assert repr(get_strategy(name)) == spec
    assert "aggregate='mean'" in repr(BootstrapMRI(aggregate="mean"))
    assert repr(EfeLc(candidates="pool")) == "EfeLc(method='auto', candidates='pool')"
    assert EfeLc(candidates="pool").costly is False and EfeLc().costly is True
    assert repr(MRIBest(candidates="pool")) == "MRIBest(loss='error', candidates='pool')"
    assert MRIBest(candidates="pool").costly is False and MRIBest().costly is True
    assert MRIWorst(candidates="pool").costly is False
    for bad in ("all", ["pool"], None):
        with pytest.raises(ValueError, match="candidates must be one of 'subsample', 'pool'"):
            MRIBest(candidates=bad)


def test_bmri_draws_its_resamples_from_the_context_generator():
    """Different generators give different BMRI scores; the same generator the same (common random numbers)."""
    case = make_case(8, n_labelled=8, n_pool=12)
    strategy = get_strategy("BMRI", n_b=3)
    a = strategy.scores(context(case, "lda", rng_seed=1))
    b = strategy.scores(context(case, "lda", rng_seed=1))
    c = strategy.scores(context(case, "lda", rng_seed=2))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


# ------------------------------------------------------------------ oracles against Eq. eqc by hand


def true_q_c_naive(problem, base, X, y, candidates, population, loss):
    """Eq. ``eqc``: :math:`L(\\theta(D_S)) - \\sum_j p_j(x) L(\\theta(D_S \\cup (x, c_j)))` on the population."""
    k = problem.n_classes
    rows = problem.posterior(population.X)
    w = population.weights

    def L(model):
        proba = model.predict_proba(population.X)
        if loss == "error":
            return float(np.sum(w * (1.0 - rows[np.arange(len(w)), np.argmax(proba, axis=1)])))
        return float(np.sum(w * -np.sum(rows * np.log(np.clip(proba, 1e-15, 1.0)), axis=1)))

    now = L(base.clone().fit(X, y, k))
    p = problem.posterior(candidates)
    out = np.empty(len(candidates))
    for i, x in enumerate(candidates):
        out[i] = now - sum(p[i, j] * L(base.clone().fit(np.vstack([X, x[None, :]]), np.append(y, j), k))
                           for j in range(k))
    return out


@pytest.mark.parametrize("loss", ["error", "log"])
@pytest.mark.parametrize("classifier", BASES)
@pytest.mark.parametrize("problem_name", PROBLEMS)
def test_oracles_are_the_true_q_c(problem_name, classifier, loss):
    case = make_case(6, problem_name, n_labelled=6, n_pool=10)
    problem, X, y, pool, candidates, population = case
    q = true_q_c_naive(problem, get_classifier(classifier), X, y, candidates, population, loss)
    best = get_strategy("MRI-best", loss=loss).scores(context(case, classifier))
    worst = get_strategy("MRI-worst", loss=loss).scores(context(case, classifier))
    np.testing.assert_allclose(best, q, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(worst, -best)
    i_best = select(get_strategy("MRI-best", loss=loss), context(case, classifier))[0]
    i_worst = select(get_strategy("MRI-worst", loss=loss), context(case, classifier))[0]
    assert q[i_best] >= q.max() - 1e-12
    assert q[i_worst] <= q.min() + 1e-12


# ------------------------------------------------------------------ near-ties (choices must not hinge on rounding)


class Fixed(Strategy):
    """Scores given in advance."""

    name = "fixed"

    def __init__(self, values):
        self.values = np.asarray(values, dtype=float)

    def scores(self, ctx):
        return self.values


def fixed_context(m: int, seed: int) -> Context:
    problem, X, y, pool, _, population = make_case(1, n_pool=max(m, 3))
    return Context(X, y, pool[:m], pool, get_classifier("lda"), problem.n_classes, np.random.default_rng(seed))


def test_near_ties_are_ties():
    """0.1 + 0.2, 0.3 and 0.7 - 0.4 differ only in the last bit: the choice is the one exact ties would give."""
    rounded = [0.1 + 0.2, 0.3, 0.7 - 0.4]
    assert len(set(rounded)) == 3  # three different doubles
    picks_rounded = [select(Fixed(rounded), fixed_context(3, seed))[0] for seed in range(60)]
    picks_exact = [select(Fixed([0.3, 0.3, 0.3]), fixed_context(3, seed))[0] for seed in range(60)]
    assert picks_rounded == picks_exact
    assert set(picks_rounded) == {0, 1, 2}
    # tie_tol=0 restores exact comparison: the largest double always wins
    assert {select(Fixed(rounded), fixed_context(3, seed), tie_tol=0.0)[0] for seed in range(20)} == {0}


@pytest.mark.parametrize("scale", [1.0, 1e-9, 1e6])
def test_tie_tolerance_is_relative_to_the_maximum_but_at_least_absolute(scale):
    """Within TIE_TOLERANCE * max(1, |max|): tied; a gap 100 times larger: decided."""
    tol = TIE_TOLERANCE * max(1.0, scale)
    tied = [scale, scale - 0.5 * tol]
    assert {select(Fixed(tied), fixed_context(2, seed))[0] for seed in range(40)} == {0, 1}
    apart = [scale - 100 * tol, scale]
    assert {select(Fixed(apart), fixed_context(2, seed))[0] for seed in range(40)} == {1}


def test_generator_state_after_a_near_tie_is_that_of_an_exact_tie():
    """Later draws (the next steps of a curve) cannot depend on rounding either."""
    after = []
    for values in ([0.1 + 0.2, 0.3, 0.7 - 0.4], [0.3, 0.3, 0.3]):
        ctx = fixed_context(3, 5)
        select(Fixed(values), ctx)
        after.append(ctx.rng.random(4))
    np.testing.assert_array_equal(*after)


def test_select_refuses_bad_input():
    ctx = fixed_context(3, 0)
    for bad in (-1e-3, np.nan, "tiny"):
        with pytest.raises((ValueError, TypeError), match="tie_tol"):
            select(Fixed([1.0, 2.0, 3.0]), ctx, tie_tol=bad)
    empty = fixed_context(3, 0)
    empty.candidates = empty.candidates[:0]
    with pytest.raises(ValueError, match="candidates"):
        select(Fixed([]), empty)
    with pytest.raises(TypeError, match="strategy"):
        select("RS", ctx)
    with pytest.raises(TypeError, match="ctx"):
        select(get_strategy("RS"), {"candidates": ctx.candidates})


@pytest.mark.parametrize("name, options, error, pattern", [
    ("BMRI", {"n_b": 0}, ValueError, "n_b"),
    ("BMRI", {"n_b": 2.5}, ValueError, "n_b"),
    ("BMRI", {"theta2_trees": 0}, ValueError, "theta2_trees"),
    ("SE", {"foo": 1}, TypeError, "foo"),
    ("RS", {"method": "refit"}, TypeError, "method"),
    ("MRI-best", {"loss": "lc"}, ValueError, "loss"),
    ("MRI-worst", {"loss": "hinge"}, ValueError, "loss"),
    ("SMRI", {"method": "fast"}, ValueError, "method"),
    ("EfeLc", {"method": None}, ValueError, "method"),
])
def test_get_strategy_refuses_bad_options(name, options, error, pattern):
    with pytest.raises(error, match=pattern):
        get_strategy(name, **options)
    with pytest.raises(TypeError, match="name must be a str"):
        get_strategy(None)


def test_mri_best_and_worst_choices_do_not_depend_on_summation_order(monkeypatch):
    """Permuting the population's rows changes the order in which the engine sums loss changes (and so the
    last bits of the true Q^c); the chosen candidates of MRI-best and MRI-worst must not change, step by step."""
    from mri_theory.runners.sandbox import run_curves

    settings_ = dict(problem="four-gaussian", classifier="knn5", strategies=["MRI-best", "MRI-worst"],
                     pool_size=40, budget=20, replicates=3, population_size=1500, subsample=None,
                     record_q_c=False, execution=QUIET, seed=4)
    reference = run_curves(**settings_)
    original = Population.from_problem.__func__

    def permuted(cls, problem, size, rng, method="sample"):
        pop = original(cls, problem, size, rng, method)
        order = np.random.default_rng(size).permutation(pop.size)
        return cls(pop.X[order], pop.proba[order])

    monkeypatch.setattr(Population, "from_problem", classmethod(permuted))
    shuffled = run_curves(**settings_)
    np.testing.assert_array_equal(reference["chosen"].to_numpy(), shuffled["chosen"].to_numpy())
    np.testing.assert_allclose(reference["loss"].to_numpy(), shuffled["loss"].to_numpy(), rtol=0, atol=1e-12)


def test_efelc_on_the_whole_pool_is_efelc_without_the_sub_sample():
    """``candidates="pool"``: the sandbox scores every pool point although it sub-samples the costly strategies,
    so the curve is the default EfeLc's with no sub-sample (same label, same generators)."""
    from mri_theory.runners import run_curves

    common = dict(pool_size=14, replicates=1, budget=6, execution=QUIET)
    whole = run_curves("four-gaussian", "lda", [EfeLc(candidates="pool")], subsample=4, **common)
    reference = run_curves("four-gaussian", "lda", ["EfeLc"], subsample=None, **common)
    sampled = run_curves("four-gaussian", "lda", ["EfeLc"], subsample=4, **common)
    np.testing.assert_array_equal(whole.chosen.to_numpy(), reference.chosen.to_numpy())
    assert not np.array_equal(whole.chosen.to_numpy(), sampled.chosen.to_numpy())
