"""k-NN as in the paper (R's kknn, Appendix C): optimal rank weights and covariate scaling.

The weights are held to sympy and to their closed form for ``d = 2``; the
probabilities to a brute-force k-NN written out here (sort by (distance,
index), weight by rank) and, for ``d = 2``, to exact rational arithmetic; the
fast retraining path to ``method="refit"`` (bit-exact decisions: one-hot
populations of 2^m equally weighted points make every future error rate an
exact binary fraction) and to an independent naive loop; the scaling options
to the unscaled classifier run on scaled data.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy
from _optional import given, settings, st
from _reference import hand_loss
from sklearn.neighbors import KNeighborsClassifier

import mri_theory.classifiers.knn as knn_module
from mri_theory.classifiers import KNN
from mri_theory.classifiers.knn import optimal_weights
from mri_theory.engine.population import Population
from mri_theory.engine.retraining import future_losses

LOSSES = ("error", "log", "lc")


def reference_weights(k, d):
    """kknn's optKernel evaluated with sympy to 30 digits, then normalised (as kknn's prob)."""
    K, D = sympy.Integer(k), sympy.Integer(d)
    e = 1 + 2 / D
    w = [(1 + D / 2 - D / (2 * K ** (2 / D)) * (sympy.Integer(i) ** e - sympy.Integer(i - 1) ** e)) / K
         for i in range(1, k + 1)]
    return [sympy.N(v, 30) for v in w]


def reference_proba(X, y, P, k, n_classes, d=None):
    """Brute-force rank-weighted k-NN: sort every training point by (squared distance, index), weight by rank.

    ``d`` (default: the number of columns) is the dimension in the weights.
    """
    X, P = np.atleast_2d(np.asarray(X, float).T).T, np.atleast_2d(np.asarray(P, float).T).T
    K = min(k, len(X))
    w = [float(v) for v in reference_weights(K, d or X.shape[1])]
    out = np.zeros((len(P), n_classes))
    for a, p in enumerate(P):
        dist = [sum((p[t] - x[t]) ** 2 for t in range(X.shape[1])) for x in X]
        order = sorted(range(len(X)), key=lambda i: (dist[i], i))
        for rank, i in enumerate(order[:K]):
            out[a, y[i]] += w[rank]
    return out / out.sum(axis=1, keepdims=True)


def exact_prediction(X, y, p, k, n_classes):
    """The predicted class for d = 2 in rational arithmetic (w_i = (2K - 2i + 1) / K^2), ties to the lowest label.

    Also returns the class weights (as floats).
    """
    K = min(k, len(X))
    dist = [sum((p[t] - x[t]) ** 2 for t in range(2)) for x in X]
    order = sorted(range(len(X)), key=lambda i: (dist[i], i))
    score = [Fraction(0)] * n_classes
    for rank, i in enumerate(order[:K]):
        score[y[i]] += Fraction(2 * K - 2 * (rank + 1) + 1, K * K)
    return score.index(max(score)), [float(s) for s in score]


def naive_future_losses(X, y, C, pop, k, loss):
    """Refit by hand (d = 2): reference_proba (the error loss: exact_prediction) on D + (x, c_j), loss written out."""
    out = np.empty((len(C), pop.n_classes))
    weights = pop.weights / np.sum(pop.weights)
    for i, x in enumerate(C):
        X_new = np.vstack([X, x])
        for j in range(pop.n_classes):
            y_new = np.append(y, j)
            if loss == "error":
                predicted = [exact_prediction(X_new, y_new, p, k, pop.n_classes)[0] for p in pop.X]
                values = 1 - pop.proba[np.arange(pop.size), predicted]
            else:
                proba = reference_proba(X_new, y_new, pop.X, k, pop.n_classes)
                values = (1 - proba.max(axis=1) if loss == "lc"
                          else -np.sum(pop.proba * np.log(np.maximum(proba, 1e-15)), axis=1))
            out[i, j] = np.sum(weights * values)
    return out


def assert_fast_equals_refit(clf, X, y, C, pop, loss, exact=False):
    fast = future_losses(clf, X, y, C, pop, loss)
    refit = future_losses(clf, X, y, C, pop, loss, method="refit")
    assert fast.shape == (len(C), pop.n_classes)
    if exact:
        np.testing.assert_array_equal(fast, refit)
    else:
        np.testing.assert_allclose(fast, refit, rtol=0, atol=1e-13)
    return fast


def grid_state(rng, n_train, n_classes, d, side, n_pop, one_hot=False):
    """Integer-grid data (many distance ties, duplicates); candidates on the grid, training and population points."""
    X = rng.integers(0, side + 1, size=(n_train, d)).astype(float)
    y = rng.integers(0, n_classes, n_train)
    P = rng.integers(-1, side + 2, size=(n_pop, d)).astype(float)
    rows = np.eye(n_classes)[rng.integers(0, n_classes, n_pop)] if one_hot else rng.dirichlet(np.ones(n_classes), n_pop)
    pop = Population(P, rows) if one_hot else Population(P, rows, rng.uniform(0.2, 1.0, n_pop))
    C = np.vstack([X[:3], P[:3], rng.integers(0, side + 1, size=(4, d)).astype(float), np.full((1, d), side / 2)])
    return X, y, C, pop


# ---------------------------------------------------------------- the weights


@pytest.mark.parametrize("d", [1, 2, 3, 5, 10])
@pytest.mark.parametrize("k", [1, 2, 3, 5, 7, 21])
def test_optimal_weights_match_sympy_and_are_decreasing_probabilities(k, d):
    w = optimal_weights(k, d)
    ref = reference_weights(k, d)
    np.testing.assert_allclose(w, [float(v) for v in ref], rtol=0, atol=1e-14)  # the formula cancels: absolute
    assert abs(sympy.N(sum(ref), 30) - 1) < 1e-25  # they sum to 1 exactly
    assert abs(w.sum() - 1) < 1e-14
    assert np.all(w > 0)
    assert np.all(np.diff(w) < 0)  # strictly decreasing (vacuous for k = 1, where w = [1])
    if k == 1:
        assert w.tolist() == [1.0]


@pytest.mark.parametrize("k", [1, 2, 5, 9])
def test_optimal_weights_are_linear_in_the_rank_for_d_2(k):
    np.testing.assert_allclose(optimal_weights(k, 2), [(2 * k - 2 * i + 1) / k**2 for i in range(1, k + 1)],
                               rtol=1e-14, atol=0)


# ---------------------------------------------------------------- predictions


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("k", [1, 3, 5, 8])
@pytest.mark.parametrize("n_train", [2, 5, 30, 100])  # n < k: all points vote with k_eff = n weights
@pytest.mark.parametrize("tree", [False, True])  # the compiled sweep, or (above 64 points here) the k-d tree
def test_predict_proba_matches_brute_force(monkeypatch, d, k, n_train, tree):
    if tree:
        monkeypatch.setattr(knn_module, "_TREE_MIN_TRAIN", 64)
    rng = np.random.default_rng(100 * d + 10 * k + n_train)
    X, y, P = rng.normal(size=(n_train, d)), rng.integers(0, 3, n_train), rng.normal(size=(40, d))
    model = KNN(k, kernel="optimal").fit(X, y, 3)
    assert (model.tree_ is not None) == (tree and n_train > 64)
    np.testing.assert_allclose(model.predict_proba(P), reference_proba(X, y, P, k, 3), rtol=0, atol=1e-15)


@pytest.mark.parametrize("k", [1, 4, 5, 6])
@pytest.mark.parametrize("n_train", [3, 12, 90])
def test_predictions_on_a_grid_match_exact_rational_arithmetic(k, n_train):
    """d = 2 integer grid: distance ties everywhere; equal class weights (exact arithmetic) predict the lowest label."""
    rng = np.random.default_rng(7 * k + n_train)
    X = rng.integers(0, 4, size=(n_train, 2)).astype(float)
    y = rng.integers(0, 3, n_train)
    P = np.array([[a, b] for a in range(-1, 5) for b in range(-1, 5)], dtype=float)
    model = KNN(k, kernel="optimal").fit(X, y, 3)
    proba, predicted = model.predict_proba(P), model.predict(P)
    for p, row, label in zip(P, proba, predicted, strict=True):
        want, scores = exact_prediction(X, y, p, k, 3)
        assert label == want
        np.testing.assert_allclose(row, scores, rtol=0, atol=1e-15)


def test_ranks_1_4_and_2_3_tie_whatever_the_rounding():
    """d = 2, k = 5: w1 + w4 = w2 + w3 = 12/25 exactly, but the floating-point sums differ; the lowest label wins."""
    w = optimal_weights(5, 2) / optimal_weights(5, 2).sum()
    assert w[0] + w[3] != w[1] + w[2]  # so a plain argmax would decide on the last bit
    X = np.array([[1.0, 0.0], [2.0, 0.0], [3.0, 0.0], [4.0, 0.0], [5.0, 0.0]])
    for y in ([0, 1, 1, 0, 2], [1, 0, 0, 1, 2]):
        model = KNN(5, kernel="optimal").fit(X, y, 3)
        assert model.predict([[0.0, 0.0]]).tolist() == [0]
        proba = model.predict_proba([[0.0, 0.0]])[0]
        assert proba[0] == proba[1] and abs(proba[0] - 12 / 25) < 1e-15 and abs(proba[2] - 1 / 25) < 1e-15


def test_rectangular_kernel_is_the_default_plain_vote():
    assert KNN(5).get_params() == {"k": 5, "kernel": "rectangular", "scale": None}
    rng = np.random.default_rng(3)
    X, y, P = rng.normal(size=(50, 2)), rng.integers(0, 2, 50), rng.normal(size=(200, 2))
    plain = KNN(5).fit(X, y, 2).predict_proba(P)
    np.testing.assert_array_equal(plain, KNN(5, kernel="rectangular").fit(X, y, 2).predict_proba(P))
    np.testing.assert_array_equal(plain, KNeighborsClassifier(5, algorithm="brute").fit(X, y).predict_proba(P))
    assert not np.array_equal(plain, KNN(5, kernel="optimal").fit(X, y, 2).predict_proba(P))


@pytest.mark.parametrize("grid", [False, True])
@pytest.mark.parametrize("k", [1, 5])
def test_tree_shortlist_gives_the_ordered_neighbours_of_brute_force(monkeypatch, grid, k):
    monkeypatch.setattr(knn_module, "_TREE_MIN_TRAIN", 64)
    rng = np.random.default_rng(11 + k + grid)
    if grid:
        X = rng.integers(0, 5, size=(150, 2)).astype(float)
        P = rng.integers(0, 5, size=(500, 2)) + rng.choice([0.0, 0.5], size=(500, 2))
    else:
        X, P = rng.normal(size=(150, 2)), rng.normal(size=(500, 2))
    model = KNN(k, kernel="optimal", scale=[1.0, 0.5]).fit(X, rng.integers(0, 3, 150), 3)
    assert model.tree_ is not None
    Ps = P / np.array([1.0, 0.5])
    for fast, brute in zip(model._neighbourhoods(Ps), model._brute_neighbourhoods(Ps), strict=True):
        np.testing.assert_array_equal(fast, brute)
    _, dist2 = model._neighbourhoods(Ps)
    assert np.all(np.diff(dist2, axis=1) >= 0)


# ---------------------------------------------------------------- the fast path against refits


@pytest.mark.parametrize("k", [1, 3, 5])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("n_train", [1, 2, 4, 20, 80])  # n < k: the candidate joins every neighbourhood
def test_fast_path_decisions_are_bit_exact(k, n_classes, n_train):
    """One-hot rows on 64 equally weighted points: every future error rate is a multiple of 1/64, exactly."""
    rng = np.random.default_rng(1000 * k + 100 * n_classes + n_train)
    X, y, C, pop = grid_state(rng, n_train, n_classes, 2, 4, 64, one_hot=True)
    fast = assert_fast_equals_refit(KNN(k, kernel="optimal"), X, y, C, pop, "error", exact=True)
    assert np.all(fast * 64 == np.round(fast * 64))


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("k", [1, 2, 5, 7])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_fast_path_equals_refit_with_ties(loss, k, n_classes, d):
    rng = np.random.default_rng(1000 * k + 100 * n_classes + 10 * d + LOSSES.index(loss))
    X, y, C, pop = grid_state(rng, 25, n_classes, d, 3, 150)
    X = np.vstack([X, X[:5]])  # exact duplicates
    y = np.append(y, rng.integers(0, n_classes, 5))
    assert_fast_equals_refit(KNN(k, kernel="optimal"), X, y, C, pop, loss)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("n_train", [1, 3, 4, 5])
def test_fast_path_with_fewer_points_than_k(loss, n_train):
    """n <= k: the candidate's rank among all n points matters, and the weights become those of n + 1 neighbours."""
    rng = np.random.default_rng(n_train)
    X, y, C, pop = grid_state(rng, n_train, 3, 2, 2, 120)
    assert_fast_equals_refit(KNN(5, kernel="optimal"), X, y, C, pop, loss)


@pytest.mark.parametrize("loss", LOSSES)
def test_fast_path_with_the_tree_tiles_and_small_chunks(monkeypatch, loss):
    monkeypatch.setattr(knn_module, "_CHUNK_CELLS", 4096)  # the change table and the candidates in small blocks
    monkeypatch.setattr(knn_module, "_TREE_MIN_TRAIN", 64)
    rng = np.random.default_rng(5)
    X, P, C = rng.normal(size=(90, 2)), rng.normal(scale=1.5, size=(1500, 2)), rng.normal(size=(15, 2))
    y = rng.integers(0, 3, 90)
    pop = Population(P, rng.dirichlet(np.ones(3), 1500))
    assert KNN(5).fit(X, y, 3).tree_ is not None
    assert_fast_equals_refit(KNN(5, kernel="optimal"), X, y, C, pop, loss)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("n_train", [2, 12])
def test_fast_path_equals_an_independent_naive_loop(loss, n_train):
    rng = np.random.default_rng(20 + n_train)
    X, y = rng.normal(size=(n_train, 2)), rng.integers(0, 3, n_train)
    P, C = rng.normal(size=(60, 2)), rng.normal(size=(5, 2))
    pop = Population(P, rng.dirichlet(np.ones(3), 60), rng.uniform(0.5, 1, 60))
    np.testing.assert_allclose(future_losses(KNN(5, kernel="optimal"), X, y, C, pop, loss),
                               naive_future_losses(X, y, C, pop, 5, loss), rtol=0, atol=1e-13)


def test_candidate_at_a_neighbour_distance_comes_after_it():
    """The candidate at distance 2 of the point 0 (neighbours at 1, 2, 3) takes rank 3, not 2."""
    X, y = np.array([[1.0], [2.0], [3.0], [9.0]]), np.array([0, 0, 1, 1])
    pop = Population(np.array([[0.0]]), [[0.5, 0.5]])
    C = np.array([[2.0], [-2.0], [1.5]])  # at the 2nd neighbour's distance, on both sides, strictly between
    w = optimal_weights(3, 1) / optimal_weights(3, 1).sum()
    got = future_losses(KNN(3, kernel="optimal"), X, y, C, pop, "log")

    def log_loss(p1):
        return -0.5 * np.log(1 - p1) - 0.5 * np.log(p1)
    # labels by rank after adding (x, j): at distance 2 -> [0, 0, j] (x = 3 drops out); at 1.5 -> [0, j, 0]
    np.testing.assert_allclose(got, [[log_loss(1e-15), log_loss(w[2])]] * 2 + [[log_loss(1e-15), log_loss(w[1])]],
                               rtol=0, atol=1e-13)
    np.testing.assert_allclose(got, future_losses(KNN(3, kernel="optimal"), X, y, C, pop, "log", method="refit"),
                               rtol=0, atol=1e-13)


@settings(deadline=None, derandomize=True, max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), k=st.sampled_from([1, 2, 3, 5, 6]), n_classes=st.sampled_from([2, 3]),
       n_train=st.integers(1, 30), side=st.integers(1, 4), d=st.sampled_from([1, 2]),
       loss=st.sampled_from(LOSSES))
def test_fast_path_equals_refit_property(seed, k, n_classes, n_train, side, d, loss):
    rng = np.random.default_rng(seed)
    X, y, C, pop = grid_state(rng, n_train, n_classes, d, side, 50)
    assert_fast_equals_refit(KNN(k, kernel="optimal"), X, y, C, pop, loss)


# ---------------------------------------------------------------- covariate scaling


@pytest.mark.parametrize("kernel", ["rectangular", "optimal"])
def test_fixed_scale_is_the_unscaled_classifier_on_divided_coordinates(kernel):
    rng = np.random.default_rng(8)
    s = np.array([0.5, 3.0])
    X, y, P = rng.normal(size=(40, 2)) * s, rng.integers(0, 3, 40), rng.normal(size=(300, 2)) * s
    C = rng.normal(size=(6, 2)) * s
    pop = Population(P, rng.dirichlet(np.ones(3), 300))
    pop_scaled = Population(P / s, pop.proba, pop.weights)
    scaled = KNN(5, kernel=kernel, scale=s)
    np.testing.assert_array_equal(scaled.fit(X, y, 3).predict_proba(P),
                                  KNN(5, kernel=kernel).fit(X / s, y, 3).predict_proba(P / s))
    for loss in ("error", "log"):
        fast = assert_fast_equals_refit(scaled, X, y, C, pop, loss)
        np.testing.assert_allclose(fast, future_losses(KNN(5, kernel=kernel), X / s, y, C / s, pop_scaled, loss),
                                   rtol=0, atol=1e-14)  # pop_scaled renormalises its rows and weights
    if kernel == "rectangular":
        sk = KNeighborsClassifier(5, algorithm="brute").fit(X / s, y)
        np.testing.assert_array_equal(scaled.predict_proba(P), sk.predict_proba(P / s))


def test_train_scale_divides_by_the_training_standard_deviations():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(30, 3)) * [1.0, 10.0, 0.1]
    y, P = rng.integers(0, 2, 30), rng.normal(size=(100, 3)) * [1.0, 10.0, 0.1]
    sd = np.array([np.sqrt(sum((v - sum(col) / len(col)) ** 2 for v in col) / (len(col) - 1)) for col in X.T])
    for kernel in ("rectangular", "optimal"):
        np.testing.assert_allclose(KNN(5, kernel=kernel, scale="train").fit(X, y, 2).predict_proba(P),
                                   KNN(5, kernel=kernel).fit(X / sd, y, 2).predict_proba(P / sd), rtol=0, atol=1e-15)


def test_train_scale_ignores_a_constant_covariate_like_kknn():
    """kknn gives a covariate constant on the training set weight 0 (d still counts it); here it is left unscaled,
    which adds the same amount to every distance: the same neighbours."""
    rng = np.random.default_rng(10)
    X = np.column_stack([rng.normal(size=25) * 4, np.full(25, 2.0)])
    y, P = rng.integers(0, 3, 25), rng.normal(size=(80, 2)) * 3
    sd = np.std(X[:, 0], ddof=1)
    np.testing.assert_allclose(KNN(5, kernel="optimal", scale="train").fit(X, y, 3).predict_proba(P),
                               reference_proba(X[:, :1] / sd, y, P[:, :1] / sd, 5, 3, d=2), rtol=0, atol=1e-15)
    single = KNN(5, kernel="optimal", scale="train").fit(X[:1], y[:1], 3)  # one point: nothing to scale by
    np.testing.assert_array_equal(single.predict_proba(P), np.eye(3)[np.full(80, y[0])])


@pytest.mark.parametrize("loss", ["error", "log"])
def test_train_scale_future_losses_rescale_with_each_added_point(loss):
    rng = np.random.default_rng(12)
    X, y = rng.normal(size=(10, 2)) * [1.0, 5.0], rng.integers(0, 2, 10)
    P, C = rng.normal(size=(50, 2)) * [1.0, 5.0], np.array([[0.0, 0.0], [8.0, 40.0], [-3.0, 1.0]])
    pop = Population(P, rng.dirichlet(np.ones(2), 50))
    expected = np.empty((3, 2))
    for i, x in enumerate(C):
        Xa = np.vstack([X, x])
        sd = np.std(Xa, axis=0, ddof=1)
        for j in range(2):
            model = KNN(5, kernel="optimal").fit(Xa / sd, np.append(y, j), 2)
            expected[i, j] = hand_loss(pop, model.predict_proba(P / sd), loss)
    got = future_losses(KNN(5, kernel="optimal", scale="train"), X, y, C, pop, loss)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-13)


# ---------------------------------------------------------------- parameters and bad input


def test_clone_and_repr_keep_kernel_and_scale():
    model = KNN(7, kernel="optimal", scale=np.array([1, 2.5]))
    twin = model.clone()
    assert (twin.k, twin.kernel) == (7, "optimal") and np.array_equal(twin.scale, [1.0, 2.5])
    assert repr(model) == repr(twin) == "KNN(k=7, kernel='optimal', scale=[1.0, 2.5])"
    assert KNN(5, scale="train").clone().scale == "train"


@pytest.mark.parametrize("kwargs, error, match", [
    ({"kernel": "gaussian"}, ValueError, r"kernel must be one of 'rectangular', 'optimal', got 'gaussian'"),
    ({"kernel": None}, ValueError, r"kernel must be one of 'rectangular', 'optimal', got None"),
    ({"kernel": "Optimal"}, ValueError, r"kernel must be one of .*got 'Optimal'"),
    ({"scale": "fixed"}, ValueError, (r"scale must be None, 'train' or an array of positive per-covariate scales, "
                                      r"got 'fixed'")),
    ({"scale": [1.0, 0.0]}, ValueError, r"scale entries must be > 0, got \[1.0, 0.0\]"),
    ({"scale": [1.0, -2.0]}, ValueError, r"scale entries must be > 0"),
    ({"scale": [[1.0, 2.0]]}, ValueError, r"scale must be a 1-D array of per-covariate scales, got shape \(1, 2\)"),
    ({"scale": []}, ValueError, r"scale must be a 1-D array of per-covariate scales, got shape \(0,\)"),
    ({"scale": 2.0}, ValueError, r"scale must be a 1-D array of per-covariate scales, got shape \(\)"),
    ({"scale": [1.0, np.nan]}, ValueError, r"scale must be finite"),
    ({"scale": True}, TypeError, r"scale must be numeric"),
    ({"scale": [1 + 2j, 1.0]}, TypeError, r"scale must be real"),
    ({"k": 0}, ValueError, r"k must be >= 1"),
])
def test_bad_parameters_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        KNN(**kwargs)


def test_fixed_scale_of_the_wrong_length_is_refused_at_fit():
    with pytest.raises(ValueError, match=r"scale has 3 entries but the training points have 2 columns"):
        KNN(5, kernel="optimal", scale=[1.0, 1.0, 1.0]).fit(np.zeros((4, 2)), [0, 1, 0, 1], 2)


@pytest.mark.parametrize("args, error, match", [
    ((0, 2), ValueError, r"k must be >= 1"),
    ((2.5, 2), ValueError, r"k must be an integer"),
    ((3, 0), ValueError, r"d must be >= 1"),
    ((3, "2"), TypeError, r"d must be an integer"),
])
def test_optimal_weights_refuse_bad_input(args, error, match):
    with pytest.raises(error, match=match):
        optimal_weights(*args)
