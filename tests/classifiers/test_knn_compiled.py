"""k-NN's compiled kernels (:mod:`mri_theory.classifiers.knn`) against independent computations.

* The squared distances (:func:`~mri_theory.classifiers.knn.squared_distances`, compiled
  :func:`~mri_theory.classifiers.knn._distance_rows`): bit for bit the numpy difference form they replaced, times
  the scale, on points of very different magnitudes; the pure-Python run agrees too.
* The neighbour sweep (:func:`~mri_theory.classifiers.knn._sweep_rows`): each query's ``K`` nearest training
  points in the order (squared distance, training index) must be those of a plain Python sort of every
  training point by that key, and those of the chunked numpy brute force (``KNN._brute_neighbourhoods``),
  bit for bit, on data full of exact distance ties and duplicated points (integer grids) as well as on
  continuous data; its pure-Python run (numba's function before compiling) must agree with the compiled one.
* The rank-weight fast path (``KNN._rank_changes`` with :func:`~mri_theory.classifiers.knn._reached` and
  :func:`~mri_theory.classifiers.knn._rank_sum_rows`) against the numpy path it replaced, kept here
  (``numpy_rank_changes``): bit for bit where the population is one tile (under 512 points that can change:
  BMRI's test sets), to ``1e-15`` on tiled populations; the search for the points some candidate enters
  against all pairs; the kernels' pure-Python runs against the compiled ones.  The fast path against refits
  is tested in ``test_kknn.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, settings, st

import mri_theory.classifiers.knn as knn_module
from mri_theory.classifiers import KNN
from mri_theory.classifiers.knn import (
    _blocks,
    _compiled_rank_sums,
    _compiled_reach,
    _compiled_sweep,
    _distance_rows,
    _inserted,
    _rank_sum_rows,
    _reach_rows,
    _reached,
    _sweep_rows,
    _weighted_votes,
    squared_distances,
)
from mri_theory.engine.losses import pointwise_loss
from mri_theory.engine.population import Population


def sorted_neighbours(X: np.ndarray, P: np.ndarray, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Training indices and squared distances of each query's ``K`` nearest points: Python's sort by (d2, index)."""
    index, dist2 = np.empty((len(P), K), dtype=np.int64), np.empty((len(P), K))
    for a, p in enumerate(P):
        d2 = [0.0] * len(X)
        for i, x in enumerate(X):
            for t in range(X.shape[1]):  # squares as products (numpy's ``square``; C's ``pow`` may round otherwise)
                d2[i] += float(p[t] - x[t]) * float(p[t] - x[t])
        order = sorted(range(len(X)), key=lambda i: (d2[i], i))[:K]
        index[a], dist2[a] = order, [d2[i] for i in order]
    return index, dist2


def sweep(X: np.ndarray, P: np.ndarray, K: int, compiled: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The sweep's training indices and squared distances, compiled or run as plain Python."""
    order = np.argsort(X[:, 0], kind="stable").astype(np.int64)
    index, dist2 = np.empty((len(P), K), dtype=np.int64), np.empty((len(P), K))
    kernel = _compiled_sweep() if compiled else _sweep_rows
    kernel(np.ascontiguousarray(P, dtype=float), np.ascontiguousarray(X[order], dtype=float), order, index, dist2)
    return index, dist2


def tied_data(rng: np.random.Generator, n: int, d: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Training points on a small integer grid (duplicates) and queries on it or half-way between its nodes."""
    X = rng.integers(0, 4, size=(n, d)).astype(float)
    P = rng.integers(-1, 5, size=(m, d)) + rng.choice([0.0, 0.5], size=(m, d))
    return X, P


def numpy_squared_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """The numpy difference form :func:`squared_distances` replaced: squares of differences, summed by coordinate."""
    out = (A[:, None, 0] - B[None, :, 0]) ** 2
    for t in range(1, A.shape[1]):
        out += (A[:, None, t] - B[None, :, t]) ** 2
    return out


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 9), m=st.integers(1, 40), d=st.integers(1, 4),
       scale=st.floats(-1e3, 1e3, allow_nan=False).filter(lambda v: v != 0))
def test_squared_distances_equal_the_numpy_difference_form_bit_for_bit(seed, n, m, d, scale):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, d)) * 10.0 ** rng.integers(-4, 5, size=d)
    B = np.vstack([rng.normal(size=(m - 1, d)) * 10.0 ** rng.integers(-4, 5, size=d), A[:1]])  # a zero distance
    want = numpy_squared_distances(A, B)
    np.testing.assert_array_equal(squared_distances(A, B), want)
    np.testing.assert_array_equal(squared_distances(A, B, scale), scale * want)
    np.testing.assert_array_equal(squared_distances(B, A), want.T)  # whichever side a point is on
    pure = np.empty((n, m))
    _distance_rows(A, np.ascontiguousarray(B.T), scale, pure)
    np.testing.assert_array_equal(pure, scale * want)


def test_squared_distances_of_no_points_are_empty():
    assert squared_distances(np.zeros((3, 2)), np.zeros((0, 2))).shape == (3, 0)
    assert squared_distances(np.zeros((0, 2)), np.zeros((4, 2))).shape == (0, 4)


@pytest.mark.parametrize("grid", [False, True])
@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("K", [1, 2, 5, 9])
def test_sweep_equals_a_python_sort_and_the_numpy_brute_force(grid, d, K):
    rng = np.random.default_rng(100 * grid + 10 * d + K)
    n = 40
    X, P = tied_data(rng, n, d, 120) if grid else (rng.normal(size=(n, d)), rng.normal(size=(120, d)))
    index, dist2 = sweep(X, P, K)
    want_index, want_dist2 = sorted_neighbours(X, P, K)
    np.testing.assert_array_equal(index, want_index)
    np.testing.assert_array_equal(dist2, want_dist2)
    y = rng.integers(0, 3, n)
    model = KNN(K, kernel="optimal").fit(X, y, 3)
    assert model.tree_ is None  # the sweep's path
    labels, near = model._neighbourhoods(P)
    brute_labels, brute_near = model._brute_neighbourhoods(P)
    np.testing.assert_array_equal(labels, brute_labels)
    np.testing.assert_array_equal(near, brute_near)
    np.testing.assert_array_equal(labels, y[want_index])


@pytest.mark.parametrize("grid", [False, True])
@pytest.mark.parametrize("K", [2, 5])
def test_brute_force_on_many_training_points_equals_a_python_sort(grid, K):
    """The brute force (the path of rows a k-d tree shortlist leaves unsure) on hundreds of training points and
    queries that differ in how many points tie at their ``K``-th distance (integer grids: dozens of duplicates per
    node), against Python's sort by (squared distance, index)."""
    rng = np.random.default_rng(31 + 2 * K + grid)
    n = 600
    X, P = tied_data(rng, n, 2, 150) if grid else (rng.normal(size=(n, 2)), rng.normal(size=(150, 2)))
    y = rng.integers(0, 3, n)
    labels, dist2 = KNN(K).fit(X, y, 3)._brute_neighbourhoods(P)
    want_index, want_dist2 = sorted_neighbours(X, P, K)
    np.testing.assert_array_equal(labels, y[want_index])
    np.testing.assert_array_equal(dist2, want_dist2)


@pytest.mark.parametrize("grid", [False, True])
def test_sweep_pure_python_run_equals_the_compiled_one(grid):
    rng = np.random.default_rng(7 + grid)
    X, P = tied_data(rng, 30, 2, 50) if grid else (rng.normal(size=(30, 2)), rng.normal(size=(50, 2)))
    for K in (1, 5, 30):  # K = n: every training point
        for fast, slow in zip(sweep(X, P, K), sweep(X, P, K, compiled=False), strict=True):
            np.testing.assert_array_equal(fast, slow)


def test_sweep_with_identical_points_and_far_queries():
    """All training points equal: the order is the training index; queries far away in every direction."""
    X = np.zeros((12, 2))
    P = np.array([[0.0, 0.0], [1e6, 0.0], [-1e6, 3.0], [0.0, -1e-3]])
    index, dist2 = sweep(X, P, 5)
    np.testing.assert_array_equal(index, np.tile(np.arange(5), (4, 1)))
    np.testing.assert_array_equal(dist2, sorted_neighbours(X, P, 5)[1])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(1, 25), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_sweep_property(d, n, K, seed):
    rng = np.random.default_rng(seed)
    X, P = tied_data(rng, n, d, 30)
    K = min(K, n)
    index, dist2 = sweep(X, P, K)
    want_index, want_dist2 = sorted_neighbours(X, P, K)
    np.testing.assert_array_equal(index, want_index)
    np.testing.assert_array_equal(dist2, want_dist2)


# ---------------------------------------------------------------- the rank-weight fast path


def numpy_rank_changes(model: KNN, candidates: np.ndarray, population: Population,
                       loss: str) -> tuple[float, np.ndarray]:
    """``KNN._rank_changes`` as it was before its compiled kernels (commit 5c4a545), unscaled points only: every
    point whose loss can change is scored, and the (candidate, point) pairs are found and summed in numpy."""
    points = population.X
    labels, dist2 = model._brute_neighbourhoods(points)
    k = model.n_classes_
    n_points, K = labels.shape
    grows = model.X_train_.shape[0] < model.k
    n_new = K + grows
    weights = model._rank_weights(n_new)
    proba = model._proba(labels)
    current = pointwise_loss(population.proba, proba, loss)
    changing = np.arange(n_points)
    if loss == "error" and not grows:
        lead = np.diff(np.sort(proba, axis=1)[:, -2:], axis=1)[:, 0]
        changing = np.flatnonzero(lead <= 2 * weights[0] + 1e-9)
    residual = np.zeros((n_points, K, k))
    last = np.zeros((n_points, k))
    rows = changing
    new_labels = _inserted(labels[rows], n_new, k)
    change = (pointwise_loss(population.proba[rows], _weighted_votes(new_labels, weights, k), loss)
              - current[rows, None, None])
    if grows:
        last[rows] = change[:, K]
        residual[rows] = change[:, :K] - last[rows, None, :]
    else:
        residual[rows] = change
    base = float(population.mean(current))
    out = np.tile(base + population.mean(last), (candidates.shape[0], 1))
    relevant = np.flatnonzero(np.any(residual != 0, axis=(1, 2)))
    weighted = [np.ascontiguousarray(residual[relevant, :, j] * population.weights[relevant, None]).ravel()
                for j in range(k)]
    by_rank = np.ascontiguousarray(dist2[relevant].T)
    for rows, tile, d2 in _blocks(candidates, points[relevant], by_rank[-1]):
        hit, col = np.nonzero(d2 < by_rank[-1, tile])
        point = tile[col]
        delta = d2[hit, col]
        slot = point * K
        for s in range(K - 1):
            slot += by_rank[s, point] <= delta
        for j in range(k):
            out[rows, j] += np.bincount(hit, weighted[j][slot], minlength=rows.size)
    return base, out


def rank_state(rng: np.random.Generator, n_train: int, n_candidates: int, size: int, n_classes: int = 3,
               grid: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, Population]:
    """Training data, candidates and a population with random label rows and weights."""
    if grid:
        X, C = tied_data(rng, n_train, 2, n_candidates)
        P = tied_data(rng, 1, 2, size)[1]
    else:
        X, C, P = rng.normal(size=(n_train, 2)), rng.normal(size=(n_candidates, 2)), rng.normal(size=(size, 2))
    y = rng.integers(0, n_classes, n_train)
    return X, y, C, Population(P, rng.dirichlet(np.ones(n_classes), size), rng.uniform(0.5, 1.0, size))


@pytest.mark.parametrize("loss", ["error", "log", "lc"])
@pytest.mark.parametrize("grid", [False, True])
@pytest.mark.parametrize("n_train", [3, 12, 60])  # 3 < k: the candidate joins every neighbourhood
@pytest.mark.parametrize("n_candidates", [1, 2, 40])
def test_rank_changes_are_bit_identical_to_the_numpy_path_on_one_tile(loss, grid, n_train, n_candidates):
    """Populations under 512 points are one tile: the same additions in the same order, so the same bits."""
    rng = np.random.default_rng(1000 * grid + 10 * n_train + n_candidates)
    X, y, C, pop = rank_state(rng, n_train, n_candidates, 400, grid=grid)
    model = KNN(5, kernel="optimal").fit(X, y, 3)
    base, out = model.retraining_losses(C, pop, loss)
    want_base, want = numpy_rank_changes(model, C, pop, loss)
    assert base == want_base
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("loss", ["error", "log"])
@pytest.mark.parametrize("n_candidates", [2, 100])
def test_rank_changes_equal_the_numpy_path_on_many_tiles(monkeypatch, loss, n_candidates):
    """Larger populations are tiled by the points that some candidate enters, now fewer: the sums group
    differently, so they agree to rounding."""
    monkeypatch.setattr(knn_module, "_CHUNK_CELLS", 4096)  # the change table in small blocks
    rng = np.random.default_rng(n_candidates)
    X, y, C, pop = rank_state(rng, 80, n_candidates, 6000)
    model = KNN(5, kernel="optimal").fit(X, y, 3)
    base, out = model.retraining_losses(C, pop, loss)
    want_base, want = numpy_rank_changes(model, C, pop, loss)
    assert base == want_base
    np.testing.assert_allclose(out, want, rtol=1e-15, atol=1e-15)  # the log loss is about 7 here


@pytest.mark.parametrize("grid", [False, True])
def test_reached_equals_all_pairs(grid):
    rng = np.random.default_rng(3 + grid)
    X, y, C, pop = rank_state(rng, 20, 30, 500, grid=grid)
    reach2 = KNN(4).fit(X, y, 3)._brute_neighbourhoods(pop.X)[1][:, -1]
    want = np.any(squared_distances(C, pop.X) < reach2[None, :], axis=0)
    assert 0 < want.sum() < want.size
    np.testing.assert_array_equal(_reached(C, pop.X, reach2), want)


@pytest.mark.parametrize("grid", [False, True])
def test_pure_python_runs_of_the_rank_kernels_equal_the_compiled_ones(grid):
    rng = np.random.default_rng(11 + grid)
    X, y, C, pop = rank_state(rng, 15, 12, 300, grid=grid)
    model = KNN(5, kernel="optimal").fit(X, y, 3)
    _, dist2 = model._brute_neighbourhoods(pop.X)
    order = np.argsort(C[:, 0], kind="stable")
    reached = [np.zeros(300, dtype=np.bool_) for _ in range(2)]
    for kernel, out in zip((_compiled_reach(), _reach_rows), reached, strict=True):
        kernel(np.ascontiguousarray(C[order]), np.ascontiguousarray(pop.X), np.ascontiguousarray(dist2[:, -1]), out)
    np.testing.assert_array_equal(reached[0], reached[1])
    points = np.ascontiguousarray(pop.X[reached[0]])
    weighted = rng.normal(size=(points.shape[0], 5, 3))
    starts = np.array([0, points.shape[0] // 3, points.shape[0]], dtype=np.int64)  # two tiles
    sums = [np.ones((12, 3)) for _ in range(2)]
    for kernel, out in zip((_compiled_rank_sums(), _rank_sum_rows), sums, strict=True):
        kernel(C, points, np.ascontiguousarray(dist2[reached[0]]), weighted, starts, out)
    np.testing.assert_array_equal(sums[0], sums[1])
    assert not np.array_equal(sums[0], np.ones((12, 3)))


def brute_rank_sums(candidates, points, dist2, weighted, starts):
    """``_rank_sum_rows`` without its pruning: every (candidate, point) pair of every tile tested, each tile's
    changes summed in point order and the sum added per tile (the kernel's additions), in plain Python."""
    out = np.zeros((candidates.shape[0], weighted.shape[2]))
    K = dist2.shape[1]
    for first, end in zip(starts[:-1], starts[1:], strict=True):
        for a, candidate in enumerate(candidates):
            total, entered = np.zeros(weighted.shape[2]), False
            for p in range(first, end):
                d2 = 0.0
                for c in range(points.shape[1]):
                    d2 += (candidate[c] - points[p, c]) ** 2
                if d2 < dist2[p, K - 1]:
                    total += weighted[p, int(np.sum(dist2[p, :K - 1] <= d2))]
                    entered = True
            if entered:
                out[a] += total
    return out


@pytest.mark.parametrize("seed", range(6))
def test_rank_sums_of_many_tiles_equal_an_unpruned_sum(seed):
    """Tiles of points whose reaches differ widely (each point's neighbour distances drawn on their own, one
    point of a tile far-reaching), candidates around and between them: the box pruning skips no pair that
    counts (its reach is the tile's largest ``K``-th distance), and each tile's sum is added on its own."""
    rng = np.random.default_rng(seed)
    n_tiles, per_tile, K, k = 5, 7, 4, 3
    centres = rng.uniform(-4, 4, size=(n_tiles, 2))
    points = np.concatenate([centre + rng.normal(scale=0.3, size=(per_tile, 2)) for centre in centres])
    reach = rng.uniform(0.01, 0.5, size=points.shape[0]) ** 2
    reach[::per_tile] = rng.uniform(2.0, 4.0, size=n_tiles) ** 2  # the first point of each tile reaches far
    rng.shuffle(reach.reshape(n_tiles, per_tile).T)  # ... or another point of it
    dist2 = np.sort(rng.uniform(0, 1, size=(points.shape[0], K)), axis=1) * reach[:, None]
    dist2[:, -1] = reach
    weighted = rng.normal(size=(points.shape[0], K, k))
    candidates = rng.uniform(-6, 6, size=(60, 2))
    starts = np.arange(0, points.shape[0] + 1, per_tile, dtype=np.int64)
    want = brute_rank_sums(candidates, points, dist2, weighted, starts)
    assert np.count_nonzero(want.any(axis=1)) > 10
    for kernel in (_compiled_rank_sums(), _rank_sum_rows):
        out = np.zeros((60, k))
        kernel(candidates, points, dist2, weighted, starts, out)
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("loss", ["error", "log"])
@pytest.mark.parametrize("n_train", [8, 60])  # 8 < k: the candidate joins every neighbourhood
def test_rank_changes_of_a_wide_neighbourhood_equal_the_numpy_path(loss, n_train):
    """k = 15 over three classes: a class weight ``w_1`` is small, so a point can have a narrow lead of its top
    class over the second and a wide one of the second over the third (the error loss's shortcut must test the
    former), and with fewer than k training points every point's votes are re-weighted (no shortcut)."""
    rng = np.random.default_rng(n_train)
    X, y, C, pop = rank_state(rng, n_train, 40, 400)
    model = KNN(15, kernel="optimal").fit(X, y, 3)
    base, out = model.retraining_losses(C, pop, loss)
    want_base, want = numpy_rank_changes(model, C, pop, loss)
    assert base == want_base
    np.testing.assert_allclose(out, want, rtol=1e-14, atol=1e-15)


def numpy_changes(labels, rows, current, weights, grows, loss):
    """The numpy scoring of ``_rank_changes`` (as before :func:`_change_rows`): residual and last changes."""
    n, K = labels.shape
    k = rows.shape[1]
    change = (pointwise_loss(rows, _weighted_votes(_inserted(labels, weights.size, k), weights, k), loss)
              - current[:, None, None])
    if grows:
        return change[:, :K] - change[:, K, None, :], change[:, K]
    return change, np.zeros((n, k))


@pytest.mark.parametrize("loss", ["error", "lc"])
@pytest.mark.parametrize("K", [1, 2, 4, 5])
@pytest.mark.parametrize("grows", [False, True])
@pytest.mark.parametrize("k", [2, 3])
def test_compiled_changes_equal_numpy_bit_for_bit(loss, K, grows, k):
    """Rank weights of d = 2 are linear in the rank: class weights tie in exact arithmetic ({1, 4} and {2, 3}
    of 5), so the tie rules of the votes and of the loss are both exercised."""
    rng = np.random.default_rng(100 * K + 10 * k + grows)
    n = 400
    labels = rng.integers(0, k, size=(n, K))
    rows = rng.dirichlet(np.ones(k), n)
    rows[:50] = np.eye(k)[rng.integers(0, k, 50)]  # one-hot rows: the chosen class decides the loss
    n_new = K + grows
    weights = knn_module.optimal_weights(n_new, 2)
    weights = weights / weights.sum()
    current = rng.uniform(0, 1, n)
    changing = np.sort(rng.choice(n, 300, replace=False)).astype(np.int64)
    want_residual, want_last = numpy_changes(labels[changing], rows[changing], current[changing], weights, grows,
                                             loss)
    code = knn_module._COMPILED_LOSSES.index(loss)
    for kernel in (knn_module._compiled_changes(), knn_module._change_rows):
        residual, last = np.zeros((n, K, k)), np.zeros((n, k))
        kernel(labels.astype(np.int64), rows, current, weights, changing, grows, code, residual, last)
        np.testing.assert_array_equal(residual[changing], want_residual)
        np.testing.assert_array_equal(last[changing], want_last)
        untouched = np.setdiff1d(np.arange(n), changing)
        assert not residual[untouched].any() and not last[untouched].any()
