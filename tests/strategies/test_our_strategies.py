"""Our strategies, not the paper's (CvMRI, PoolMRI, Margin), against independent computations.

* CvMRI and PoolMRI are held to brute-force loops written here from their
  formulas: for every candidate and class the base classifier is cloned and
  fitted with plain ``fit`` on the fold's training part (CvMRI) or on
  :math:`D_S` (PoolMRI) plus ``(x, c)``, its predictions are scored by hand
  with numpy (the error loss's tie rule written out), and :math:`\\theta_2`
  is scikit-learn's own 5-NN or random forest.  Scores to 1e-12, for the LDA,
  kknn5, logistic-regression and SVM bases (and naive Bayes), with
  ``method="auto"`` (the classifiers' fast paths) and ``method="refit"``.
* CvMRI's folds (:func:`cross_validation_folds`) are held to the rule
  written out here (a permutation from the generator, sorted by class,
  dealt round robin) and to its properties: a partition, sizes within one,
  leave-one-out when ``n < folds``, determinism given the generator, every
  class of two or more points in every training part when stratified.
* Tiny examples computed by hand: PoolMRI's pool weighting (the mean over the
  pool of the expected error under :math:`\\theta_2`'s rows, not the sum) and
  CvMRI's leave-one-out against SMRI's in-sample loss.
* Margin against :math:`-(\\hat p_{(1)} - \\hat p_{(2)})` by hand.
* Bad input is refused naming the argument.

Sizes are tiny (labelled sets of 2-9, pools of 8-12, 3-5 candidates).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.neighbors import KNeighborsClassifier

from mri_theory.classifiers import KNN, LDA, Classifier, get_classifier
from mri_theory.problems import get_problem
from mri_theory.runners.study import STRATEGY_SETS
from mri_theory.strategies import (
    CV_FOLDS,
    FOREST_TREES,
    TIE_TOLERANCE,
    Context,
    CrossValidatedMRI,
    MarginSampling,
    PoolMRI,
    get_strategy,
    list_strategies,
    select,
    strategy_names,
)
from mri_theory.strategies.builtin import MAX_FOLDS, cross_validation_folds

OURS = ("CvMRI", "PoolMRI", "Margin")
BASES = ("lda", "kknn5", "logreg", "svm", "nb")
METHODS = ("auto", "refit")


# ------------------------------------------------------------------ data


def make_case(seed: int, problem_name: str = "four-gaussian", n_labelled: int = 6, n_pool: int = 10,
              n_candidates: int = 4):
    """Labelled data holding every class (the first ``k`` points one per class), a pool, candidates from it."""
    problem = get_problem(problem_name)
    rng = np.random.default_rng(seed)
    k = problem.n_classes
    X, y = problem.sample(200, rng)
    first = [int(np.flatnonzero(y == j)[0]) for j in range(k)]
    rest = [i for i in range(200) if i not in first][: n_labelled - k]
    idx = np.array(first + rest)
    pool, _ = problem.sample(n_pool, rng)
    candidates = pool[np.sort(rng.choice(n_pool, n_candidates, replace=False))]
    return X[idx], y[idx], pool, candidates, k


def context(case, base: str | Classifier, rng_seed: int) -> Context:
    X, y, pool, candidates, k = case
    classifier = get_classifier(base) if isinstance(base, str) else base
    return Context(X, y, candidates, pool, classifier, k, np.random.default_rng(rng_seed))


# ------------------------------------------------------------------ independent references


def predicted_by_hand(proba: np.ndarray) -> np.ndarray:
    """The error loss's prediction: the lowest class within TIE_TOLERANCE * max(1, max) of the largest."""
    top = proba.max(axis=1, keepdims=True)
    tied = proba >= top - TIE_TOLERANCE * np.maximum(1.0, top)
    return np.argmax(tied, axis=1)  # the first True


def theta2_by_hand(base_name: str, X: np.ndarray, y: np.ndarray, k: int, at: np.ndarray) -> np.ndarray:
    """:math:`\\theta_2` with scikit-learn: a 25-tree forest (seed 0) for a k-NN base, else 5-NN (all points
    when fewer); columns mapped onto classes ``0..k-1``."""
    if base_name.startswith("kknn") or base_name.startswith("knn"):
        model = RandomForestClassifier(n_estimators=FOREST_TREES, random_state=0).fit(X, y)
    else:
        model = KNeighborsClassifier(n_neighbors=min(5, len(y))).fit(X, y)
    out = np.zeros((len(at), k))
    out[:, model.classes_] = model.predict_proba(at)
    return out


def folds_by_hand(y: np.ndarray, folds: int, seed: int, stratified: bool = True) -> list[np.ndarray]:
    """The documented rule: ``default_rng(seed).permutation(n)``, sorted by class (stably) if stratified, the
    i-th point to fold ``i mod min(folds, n)``."""
    n = len(y)
    order = list(np.random.default_rng(seed).permutation(n))
    if stratified:
        order = sorted(order, key=lambda i: y[i])  # Python's sort is stable
    k = min(folds, n)
    return [np.array(sorted(order[f::k])) for f in range(k)]


def cv_mri_by_hand(base_name: str, X, y, candidates, k: int, folds: list[np.ndarray]) -> np.ndarray:
    """:math:`-\\sum_c \\hat p_c(x) \\sum_f (|F_f|/n)\\, \\mathrm{err}_{F_f}(\\theta(D_S \\setminus F_f \\cup (x,c)))`,
    with :math:`\\hat p` from :func:`theta2_by_hand` on all of :math:`D_S`."""
    n = len(y)
    base = get_classifier(base_name)
    p_hat = theta2_by_hand(base_name, X, y, k, candidates)
    out = np.empty(len(candidates))
    for i, x in enumerate(candidates):
        t_e = 0.0
        for c in range(k):
            loss = 0.0
            for test in folds:
                train = np.setdiff1d(np.arange(n), test)
                model = base.clone().fit(np.vstack([X[train], x[None, :]]), np.append(y[train], c), k)
                wrong = predicted_by_hand(model.predict_proba(X[test])) != y[test]
                loss += len(test) / n * np.mean(wrong)
            t_e += p_hat[i, c] * loss
        out[i] = -t_e
    return out


def pool_mri_by_hand(base_name: str, X, y, pool, candidates, k: int) -> np.ndarray:
    """:math:`-\\sum_c \\hat p_2(c|x)\\, \\frac{1}{|X_P|} \\sum_u \\sum_j \\hat p_2(j|u)\\, 1[\\theta'(u) \\ne j]`."""
    base = get_classifier(base_name)
    rows = theta2_by_hand(base_name, X, y, k, pool)
    p_hat = theta2_by_hand(base_name, X, y, k, candidates)
    out = np.empty(len(candidates))
    for i, x in enumerate(candidates):
        t_e = 0.0
        for c in range(k):
            model = base.clone().fit(np.vstack([X, x[None, :]]), np.append(y, c), k)
            predicted = predicted_by_hand(model.predict_proba(pool))
            expected_error = sum(rows[u, j] * (predicted[u] != j) for u in range(len(pool)) for j in range(k))
            t_e += p_hat[i, c] * expected_error / len(pool)
        out[i] = -t_e
    return out


# ------------------------------------------------------------------ registry and flags


def test_ours_declare_their_origin_and_stay_outside_the_paper_set():
    """Their classes declare ``origin = "ours"``: the registry's ``"ours"`` line-up and the leaderboard's group come
    from it (their place in the order: tests/strategies/test_strategies.py)."""
    assert strategy_names("ours") == tuple(OURS) and set(OURS) <= set(list_strategies())
    assert not set(OURS) & set(STRATEGY_SETS["paper"])
    assert [type(get_strategy(name)) for name in OURS] == [CrossValidatedMRI, PoolMRI, MarginSampling]


def test_flags_and_repr():
    cv, pool, margin = CrossValidatedMRI(), PoolMRI(), MarginSampling()
    assert (cv.costly, cv.estimates_t_e, cv.needs_truth) == (True, True, False)
    assert (pool.costly, pool.estimates_t_e, pool.needs_truth) == (True, True, False)
    assert (margin.costly, margin.estimates_t_e, margin.needs_truth) == (False, False, False)
    assert repr(cv) == "CrossValidatedMRI(folds=5, method='auto', theta2=None, stratified=True)" and CV_FOLDS == 5
    assert repr(get_strategy("CvMRI", folds=3, method="refit", theta2=LDA(), stratified=False)) \
        == f"CrossValidatedMRI(folds=3, method='refit', theta2={LDA()!r}, stratified=False)"
    assert repr(PoolMRI(theta2=KNN(3))) == f"PoolMRI(method='auto', theta2={KNN(3)!r})"
    assert repr(margin) == "MarginSampling()"


# ------------------------------------------------------------------ the folds


@pytest.mark.parametrize("stratified", [True, False])
@pytest.mark.parametrize("n,folds", [(2, 5), (3, 5), (5, 5), (7, 5), (12, 5), (9, 2), (10, 3)])
def test_folds_follow_the_rule_and_partition_the_data(n, folds, stratified):
    y = np.random.default_rng(n).integers(0, 3, size=n)
    got = cross_validation_folds(y, folds, np.random.default_rng(40 + n), stratified)
    expected = folds_by_hand(y, folds, 40 + n, stratified)
    assert len(got) == len(expected) == min(folds, n)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.sort(np.concatenate(got)), np.arange(n))  # every point in exactly one fold
    sizes = [len(f) for f in got]
    assert max(sizes) - min(sizes) <= 1
    if n < folds:  # leave-one-out
        assert sizes == [1] * n
    if stratified:
        for c in np.unique(y):
            counts = [int(np.sum(y[f] == c)) for f in got]
            assert max(counts) - min(counts) <= 1
            if np.sum(y == c) >= 2:  # in every training part
                assert all(np.sum(y == c) - count >= 1 for count in counts)


def test_folds_are_deterministic_given_the_generator_and_draw_one_permutation():
    y = np.array([0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1])
    a = cross_validation_folds(y, 4, np.random.default_rng(3))
    b = cross_validation_folds(y, 4, np.random.default_rng(3))
    c = cross_validation_folds(y, 4, np.random.default_rng(4))
    assert all(np.array_equal(u, v) for u, v in zip(a, b, strict=True))
    assert not all(np.array_equal(u, v) for u, v in zip(a, c, strict=True))
    rng, twin = np.random.default_rng(9), np.random.default_rng(9)
    cross_validation_folds(y, 4, rng)
    twin.permutation(len(y))
    assert rng.random() == twin.random()  # exactly one draw: the permutation


def test_stratified_folds_keep_a_two_point_class_in_every_training_part():
    """Two points of class 1 among ten: a plain split puts both in one fold for some seeds, a stratified one
    never does."""
    y = np.array([0] * 8 + [1] * 2)
    together = 0
    for seed in range(40):
        plain = cross_validation_folds(y, 5, np.random.default_rng(seed), stratified=False)
        together += any(np.sum(y[f] == 1) == 2 for f in plain)
        stratified = cross_validation_folds(y, 5, np.random.default_rng(seed))
        assert all(np.sum(y[f] == 1) <= 1 for f in stratified)
    assert together > 0


# ------------------------------------------------------------------ CvMRI and PoolMRI against brute force


# (seed, problem, labelled, folds): leave-one-out from two points, 5 folds of 7 and 9 points, three classes
CV_CASES = [(0, "four-gaussian", 2, 5), (1, "four-gaussian", 7, 5), (2, "four-gaussian", 9, 3),
            (3, "three-gaussians", 6, 4)]


@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("seed,problem_name,n_labelled,folds", CV_CASES)
def test_cv_mri_matches_a_brute_force_loop(base, seed, problem_name, n_labelled, folds):
    case = make_case(seed, problem_name, n_labelled=n_labelled, n_pool=8, n_candidates=3)
    X, y, pool, candidates, k = case
    naive = cv_mri_by_hand(base, X, y, candidates, k, folds_by_hand(y, folds, 100 + seed))
    for method in METHODS:
        scores = CrossValidatedMRI(folds, method).scores(context(case, base, rng_seed=100 + seed))
        np.testing.assert_allclose(scores, naive, rtol=0, atol=1e-12, err_msg=f"{base} {method}")


def test_cv_mri_unstratified_folds():
    case = make_case(5, n_labelled=8, n_candidates=4)
    X, y, pool, candidates, k = case
    naive = cv_mri_by_hand("lda", X, y, candidates, k, folds_by_hand(y, 3, 7, stratified=False))
    for method in METHODS:
        scores = CrossValidatedMRI(3, method, stratified=False).scores(context(case, "lda", 7))
        np.testing.assert_allclose(scores, naive, rtol=0, atol=1e-12)


def test_a_given_theta2_changes_p_hat_only():
    """theta2 = LDA: the same cross-validated future losses, weighted by LDA's probabilities; theta2 = 5-NN
    given explicitly is the default for an LDA base."""
    case = make_case(5, n_labelled=8, n_candidates=4)
    X, y, pool, candidates, k = case
    future = np.zeros((len(candidates), k))  # L'[i, c], cross-validated by hand
    for test in folds_by_hand(y, 3, 7):
        train = np.setdiff1d(np.arange(len(y)), test)
        for i, x in enumerate(candidates):
            for c in range(k):
                model = LDA().fit(np.vstack([X[train], x[None, :]]), np.append(y[train], c), k)
                future[i, c] += np.sum(predicted_by_hand(model.predict_proba(X[test])) != y[test]) / len(y)
    p_lda = LDA().fit(X, y, k).predict_proba(candidates)
    np.testing.assert_allclose(CrossValidatedMRI(3, theta2=LDA()).scores(context(case, "lda", 7)),
                               -np.sum(p_lda * future, axis=1), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(CrossValidatedMRI(3, theta2=KNN(5)).scores(context(case, "lda", 7)),
                                  CrossValidatedMRI(3).scores(context(case, "lda", 7)))
    rows = LDA().fit(X, y, k).predict_proba(pool)
    by_hand = []
    for i, x in enumerate(candidates):
        t_e = 0.0
        for c in range(k):
            model = LDA().fit(np.vstack([X, x[None, :]]), np.append(y, c), k)
            t_e += p_lda[i, c] * np.mean(1.0 - rows[np.arange(len(pool)), predicted_by_hand(model.predict_proba(pool))])
        by_hand.append(-t_e)
    np.testing.assert_allclose(PoolMRI(theta2=LDA()).scores(context(case, "lda", 7)), by_hand, rtol=0, atol=1e-12)


POOL_CASES = [(0, "four-gaussian", 2, 8), (1, "four-gaussian", 6, 12), (3, "three-gaussians", 5, 10)]


@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("seed,problem_name,n_labelled,n_pool", POOL_CASES)
def test_pool_mri_matches_a_brute_force_loop(base, seed, problem_name, n_labelled, n_pool):
    case = make_case(seed, problem_name, n_labelled=n_labelled, n_pool=n_pool, n_candidates=4)
    X, y, pool, candidates, k = case
    naive = pool_mri_by_hand(base, X, y, pool, candidates, k)
    for method in METHODS:
        scores = PoolMRI(method).scores(context(case, base, rng_seed=seed))
        np.testing.assert_allclose(scores, naive, rtol=0, atol=1e-12, err_msg=f"{base} {method}")


# ------------------------------------------------------------------ by hand


class Ramp(Classifier):
    """A fixed class-probability model on the line: :math:`p(1 \\mid u) = (u + 2) / 4` clipped to [0, 1]."""

    name = "ramp"

    def _fit(self, X, y):
        pass

    def _predict_proba(self, X):
        p1 = np.clip((X[:, 0] + 2.0) / 4.0, 0.0, 1.0)
        return np.column_stack([1.0 - p1, p1])


ONE_NN = KNN(1)
LINE_X, LINE_Y = np.array([[-1.0], [1.0]]), np.array([0, 1])


def test_pool_mri_weighting_by_hand():
    """D_S = {(-1, 0), (1, 1)}, 1-NN, pool {-2, -0.4, 0.4, 2}, theta2 rows p(1|u) = 0, 0.4, 0.6, 1.

    Candidate 0.4: labelled 0, 1-NN predicts 0, 0, 0, 1 on the pool, expected errors 0, 0.4, 0.6, 0, mean
    0.25; labelled 1, predicts 0, 0, 1, 1, errors 0, 0.4, 0.4, 0, mean 0.2; p(.|0.4) = (0.4, 0.6), so
    T_e = 0.4 * 0.25 + 0.6 * 0.2 = 0.22.  Candidate -2: labelled 0, predicts 0, 0, 1, 1 (mean 0.2); labelled
    1, predicts 1, 0, 1, 1 (errors 1, 0.4, 0.4, 0, mean 0.45); p(.|-2) = (1, 0), so T_e = 0.2.
    """
    pool = np.array([[-2.0], [-0.4], [0.4], [2.0]])
    candidates = pool[[2, 0]]
    for method in METHODS:
        ctx = Context(LINE_X, LINE_Y, candidates, pool, ONE_NN, 2, np.random.default_rng(0))
        np.testing.assert_allclose(PoolMRI(method, theta2=Ramp()).scores(ctx), [-0.22, -0.2], rtol=0, atol=1e-15)


def test_cv_mri_leave_one_out_by_hand_against_smri_in_sample():
    """D_S = {(-1, 0), (1, 1)}, 1-NN, candidate 0.4 with p(.|0.4) = (0.4, 0.6).

    Leave-one-out: without (-1, 0) the model trained on {(1, 1), (0.4, c)} predicts c at -1 (error 1 iff
    c = 1); without (1, 1) the model on {(-1, 0), (0.4, c)} predicts c at 1 (error 1 iff c = 0).  So
    L'_0 = L'_1 = 1/2 and T_e = 1/2.  SMRI tests on the training data itself: 1-NN fits it exactly, T_e = 0.
    """
    candidates = np.array([[0.4]])
    for method in METHODS:
        ctx = Context(LINE_X, LINE_Y, candidates, candidates, ONE_NN, 2, np.random.default_rng(0))
        assert CrossValidatedMRI(method=method, theta2=Ramp()).scores(ctx).tolist() == [-0.5]
        smri = get_strategy("SMRI", method=method, theta2=Ramp()).scores(ctx)
        assert smri.tolist() == [0.0]


@pytest.mark.parametrize("problem_name", ["four-gaussian", "three-gaussians"])
@pytest.mark.parametrize("base", ["lda", "kknn5", "logreg"])
def test_margin_by_hand(base, problem_name):
    case = make_case(4, problem_name, n_labelled=7, n_candidates=6)
    X, y, pool, candidates, k = case
    proba = get_classifier(base).fit(X, y, k).predict_proba(candidates)
    expected = []
    for row in proba:
        first, second = sorted(row.tolist(), reverse=True)[:2]
        expected.append(-(first - second))
    scores = MarginSampling().scores(context(case, base, 0))
    np.testing.assert_allclose(scores, expected, rtol=0, atol=1e-15)
    if k == 2:
        np.testing.assert_allclose(scores, -np.abs(proba[:, 1] - proba[:, 0]), rtol=0, atol=1e-15)
    i, _ = select(MarginSampling(), context(case, base, 0))
    assert scores[i] >= np.max(scores) - TIE_TOLERANCE


def test_cv_mri_draws_its_folds_from_the_context_generator():
    case = make_case(8, n_labelled=9, n_candidates=4)
    a = CrossValidatedMRI(3).scores(context(case, "lda", 1))
    b = CrossValidatedMRI(3).scores(context(case, "lda", 1))
    np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, CrossValidatedMRI(3).scores(context(case, "lda", seed)))
               for seed in range(2, 6))


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("make, error, pattern", [
    (lambda: CrossValidatedMRI(folds=1), ValueError, r"^folds must be >= 2, got 1"),
    (lambda: CrossValidatedMRI(folds=2.5), ValueError, r"^folds must be an integer, got 2.5"),
    (lambda: CrossValidatedMRI(folds="5"), TypeError, r"^folds must be an integer, got str"),
    (lambda: CrossValidatedMRI(folds=True), TypeError, r"^folds must be an integer, got bool"),
    (lambda: CrossValidatedMRI(folds=MAX_FOLDS + 1), ValueError, r"^folds must be <="),
    (lambda: CrossValidatedMRI(theta2="x"), TypeError, r"^theta2 must be a Classifier"),
    (lambda: CrossValidatedMRI(method="fast"), ValueError, r"^method must be 'auto' or 'refit'"),
    (lambda: CrossValidatedMRI(stratified="yes"), TypeError, r"^stratified must be True or False"),
    (lambda: get_strategy("CvMRI", folds=0), ValueError, r"^folds must be >= 2"),
    (lambda: PoolMRI(theta2="x"), TypeError, r"^theta2 must be a Classifier"),
    (lambda: PoolMRI(method=None), ValueError, r"^method must be 'auto' or 'refit'"),
    (lambda: get_strategy("PoolMRI", theta2="knn5"), TypeError, r"^theta2 must be a Classifier"),
    (lambda: get_strategy("Margin", method="refit"), TypeError, r"method"),
    (lambda: cross_validation_folds([0, 1, 0], 1, np.random.default_rng(0)), ValueError, r"^folds must be >= 2"),
    (lambda: cross_validation_folds([0, 1, 0], 2.5, np.random.default_rng(0)), ValueError, r"^folds must be an"),
    (lambda: cross_validation_folds([0, 1, 0], 2, 0), TypeError, r"^rng must be a numpy.random.Generator"),
    (lambda: cross_validation_folds([1], 2, np.random.default_rng(0)), ValueError, r"^y must hold at least 2"),
    (lambda: cross_validation_folds([0.5, 1], 2, np.random.default_rng(0)), ValueError, r"^y must hold integer"),
])
def test_bad_input_is_named(make, error, pattern):
    with pytest.raises(error, match=pattern):
        make()


def test_cv_mri_refuses_a_single_labelled_point():
    ctx = Context(LINE_X[:1], LINE_Y[:1], np.array([[0.4]]), np.array([[0.4]]), ONE_NN, 2,
                  np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^CvMRI needs at least 2 labelled points to cross-validate, ctx.X holds 1"):
        select(CrossValidatedMRI(), ctx)
