"""k-NN's compiled kernels (:mod:`mri_theory.classifiers.knn`) against independent computations.

* The neighbour sweep (:func:`~mri_theory.classifiers.knn._sweep_rows`): each query's ``K`` nearest training
  points in the order (squared distance, training index) must be those of a plain Python sort of every
  training point by that key, and those of the chunked numpy brute force (``KNN._brute_neighbourhoods``),
  bit for bit, on data full of exact distance ties and duplicated points (integer grids) as well as on
  continuous data; its pure-Python run (numba's function before compiling) must agree with the compiled one.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, settings, st

from mri_theory.classifiers import KNN
from mri_theory.classifiers.knn import _compiled_sweep, _sweep_rows


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
