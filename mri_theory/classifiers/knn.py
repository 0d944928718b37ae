r"""k-nearest neighbours with an exact incremental retraining path.

Adding one example ``(x, c_j)`` to a k-NN training set changes the
neighbourhood of exactly those points whose k-ball contains ``x``: for them
``x`` replaces the current k-th neighbour, so their votes become
``votes - e[label of k-th] + e[j]``, whatever ``x`` is.  The loss change of
every population point under every label is therefore computed *once*; a
candidate's future loss is the current loss plus the sum of those changes over
the points it reaches.  Points whose loss no label can change (a clear
majority, for the error loss) are dropped before any candidate is looked at,
and everything is chunked so memory stays bounded for 10^6-point populations.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from mri_theory import _validation as check
from mri_theory.classifiers.base import Classifier, check_retraining_args
from mri_theory.population import Population, pointwise_loss

__all__ = ["KNN", "squared_distances", "squared_distances_paired"]

_CHUNK_CELLS = 2**21
_TREE_MIN_TRAIN = 64  # above this many training points, neighbours are shortlisted with a k-d tree


def squared_distances_paired(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Squared distances from ``A[i]`` to each ``B[i, j]`` (``B`` of shape ``(n, m, d)``), same arithmetic as below."""
    out = (A[:, None, 0] - B[:, :, 0]) ** 2
    for t in range(1, A.shape[1]):
        out += (A[:, None, t] - B[:, :, t]) ** 2
    return out


def squared_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances ``(len(A), len(B))``, summed coordinate by coordinate.

    The difference form (not ``|a|^2 + |b|^2 - 2ab``) gives bit-identical values
    whichever side a point is on, so the fast path and a refit agree exactly
    on which point is nearer.
    """
    out = (A[:, None, 0] - B[None, :, 0]) ** 2
    for t in range(1, A.shape[1]):
        out += (A[:, None, t] - B[None, :, t]) ** 2
    return out


class KNN(Classifier):
    r"""k-NN with a plain majority vote; :math:`\hat p_j` is the vote share of class ``j``.

    Parameters
    ----------
    k : int, default 5
        Number of neighbours; with fewer than ``k`` training points all of
        them vote.

    Notes
    -----
    Tie rules, chosen so that refits and the fast path agree exactly:
    neighbours are ordered by squared distance and then by training index
    (a stable sort), so among equidistant points the earlier one is nearer;
    a newly added example comes last, so it enters a neighbourhood only if it
    is *strictly* nearer than the current k-th neighbour.  Equal vote shares
    predict the lowest label (as scikit-learn's ``KNeighborsClassifier``).
    """

    name = "knn"

    def __init__(self, k: int = 5) -> None:
        self.k = check.count(k, "k")

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        self.k_eff_ = min(self.k, X.shape[0])
        self.tree_ = cKDTree(X) if X.shape[0] > _TREE_MIN_TRAIN else None

    def _neighbourhoods(self, P: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each point: class votes ``(n, k)``, squared k-th distance ``(n,)``, label of the k-th neighbour.

        The neighbourhood is the first ``k_eff`` training points in the order
        (squared distance, index); the k-th neighbour is the last of them.
        Large training sets use a k-d tree to shortlist ``k + 4`` neighbours,
        then order them by the exact squared distances; a point whose
        shortlist cannot be proven complete is done by brute force.
        """
        if self.tree_ is None:
            return self._brute_neighbourhoods(P)
        m = min(self.X_train_.shape[0], self.k_eff_ + 4)
        tree_dist, idx = self.tree_.query(P, k=m)
        d2 = squared_distances_paired(P, self.X_train_[idx])
        order = np.lexsort((idx, d2), axis=1)
        idx = np.take_along_axis(idx, order, axis=1)
        d2 = np.take_along_axis(d2, order, axis=1)
        radius2 = d2[:, self.k_eff_ - 1]
        labels = self.y_train_[idx[:, :self.k_eff_]]
        votes = np.zeros((P.shape[0], self.n_classes_))
        for j in range(self.n_classes_):
            votes[:, j] = np.count_nonzero(labels == j, axis=1)
        kth_label = labels[:, -1].copy()
        # Points not shortlisted are at least tree_dist[:, -1] away: complete if strictly beyond the radius.
        unsure = np.flatnonzero(radius2 >= (1 - 1e-9) * tree_dist[:, -1] ** 2)
        if unsure.size and m < self.X_train_.shape[0]:
            votes[unsure], radius2[unsure], kth_label[unsure] = self._brute_neighbourhoods(P[unsure])
        return votes, radius2, kth_label

    def _brute_neighbourhoods(self, P: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_neighbourhoods` by computing every distance (chunked)."""
        n_train = self.X_train_.shape[0]
        onehot = np.eye(self.n_classes_)[self.y_train_]
        votes = np.empty((P.shape[0], self.n_classes_))
        radius2 = np.empty(P.shape[0])
        kth_label = np.empty(P.shape[0], dtype=np.intp)
        step = max(1, _CHUNK_CELLS // (n_train * P.shape[1]))
        for start in range(0, P.shape[0], step):
            d2 = squared_distances(P[start:start + step], self.X_train_)
            r2 = np.partition(d2, self.k_eff_ - 1, axis=1)[:, self.k_eff_ - 1]
            nearer = d2 < r2[:, None]
            at_radius = d2 == r2[:, None]
            need = self.k_eff_ - nearer.sum(axis=1)  # >= 1 points at the radius, lowest indices first
            taken = at_radius
            tied = np.flatnonzero(at_radius.sum(axis=1) > need)
            if tied.size:
                taken = at_radius.copy()
                taken[tied] &= np.cumsum(at_radius[tied], axis=1) <= need[tied, None]
            chunk = slice(start, start + d2.shape[0])
            votes[chunk] = (nearer | taken) @ onehot
            radius2[chunk] = r2
            kth_label[chunk] = self.y_train_[n_train - 1 - np.argmax(taken[:, ::-1], axis=1)]
        return votes, radius2, kth_label

    def _predict_proba(self, X: np.ndarray) -> np.ndarray:
        return self._neighbourhoods(X)[0] / self.k_eff_

    def retraining_losses(self, candidates: np.ndarray, population: Population,
                          loss: str) -> tuple[float, np.ndarray]:
        """Exact fast path: only points whose k-ball contains the candidate change."""
        candidates, population, loss = check_retraining_args(self, candidates, population, loss)
        k = self.n_classes_
        eye = np.eye(k)
        votes, radius2, kth_label = self._neighbourhoods(population.X)
        current = pointwise_loss(population.proba, votes / self.k_eff_, loss)
        grows = self.X_train_.shape[0] < self.k  # the candidate joins every neighbourhood
        if grows:
            new_votes, denom = votes[:, None, :] + eye[None], self.k_eff_ + 1
        else:
            dropped = eye[kth_label]
            new_votes, denom = (votes - dropped)[:, None, :] + eye[None], self.k_eff_
        # change[p, j]: loss change at point p if the candidate, labelled j, enters its k-ball
        change = pointwise_loss(population.proba, new_votes / denom, loss) - current[:, None]
        base = float(population.mean(current))
        if grows:
            return base, np.broadcast_to(base + population.mean(change), (candidates.shape[0], k)).copy()
        relevant = np.flatnonzero(np.any(change != 0, axis=1))
        weighted = change[relevant] * population.weights[relevant, None]  # (R, k)
        out = np.full((candidates.shape[0], k), base)
        for tile in _tiles(population.X[relevant]) if relevant.size else []:
            points, reach2 = population.X[relevant[tile]], radius2[relevant[tile]]
            # A tile can matter only to candidates nearer its bounding box than its largest k-ball.
            near = np.flatnonzero(_box_distance2(candidates, points.min(0), points.max(0)) < reach2.max())
            step = max(1, _CHUNK_CELLS // tile.size)
            for start in range(0, near.size, step):
                rows = near[start:start + step]
                inside = squared_distances(candidates[rows], points) < reach2
                out[rows] += inside.astype(float) @ weighted[tile]
        return base, out


def _tiles(points: np.ndarray, target: int = 128) -> list[np.ndarray]:
    """Split point indices into spatially compact tiles of about ``target`` points (grid on 2 coordinates)."""
    n = points.shape[0]
    g = max(1, int(np.sqrt(n / target)))
    coords = points[:, :2]
    lo, span = coords.min(axis=0), np.ptp(coords, axis=0)
    cell = np.minimum((g * (coords - lo) / np.where(span > 0, span, 1.0)).astype(int), g - 1)
    key = cell[:, 0] * g + (cell[:, 1] if cell.shape[1] > 1 else 0)
    order = np.argsort(key, kind="stable")
    cuts = np.searchsorted(key[order], np.arange(1, g * g))
    return [tile for tile in np.split(order, cuts) if tile.size]


def _box_distance2(candidates: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Squared distance from each candidate to a box; never more than to any point in the box.

    Per coordinate the gap is ``lo - c`` or ``c - hi`` (rounded no larger than
    ``p - c`` for any ``p`` in the box), so the pruning is exact.
    """
    gap = np.maximum(np.maximum(lo - candidates, candidates - hi), 0.0)
    out = gap[:, 0] ** 2
    for t in range(1, candidates.shape[1]):
        out += gap[:, t] ** 2
    return out
