r"""k-nearest neighbours with an exact incremental retraining path.

Two kernels (Appendix C: the paper's 5-NN is R's ``kknn``):

* ``"rectangular"`` (default): a plain majority vote, :math:`\hat p_j` is the
  vote share of class ``j``;
* ``"optimal"``: kknn's default kernel, Samworth's optimal rank weights
  (:func:`optimal_weights`): the ``i``-th nearest neighbour votes with weight
  :math:`w_i`, decreasing in ``i``, and :math:`\hat p_j` is the normalised sum
  of the weights of the neighbours of class ``j``.

Adding one example ``(x, c_j)`` to a k-NN training set changes the
neighbourhood of exactly those points whose k-ball contains ``x``.  With the
plain vote ``x`` replaces the current k-th neighbour, so the votes become
``votes - e[label of k-th] + e[j]`` wherever ``x`` lands in the ball.  With
rank weights ``x`` takes a rank ``r`` (1 + the number of neighbours at most as
far), the later neighbours move down one rank and the k-th drops out, so the
new vote depends on ``r``.  Either way the loss change of every population
point under every label (and rank) is computed *once*; a candidate's future
loss is the current loss plus the sum of those changes over the points it
reaches.  Points whose loss nothing can change (a clear majority, for the
error loss) are dropped before any candidate is looked at, and so are the
points no candidate enters (with rank weights: a compiled search over the
candidates sorted by first coordinate, ``_reach_rows``), so a step with
two candidates scores a handful of points, not the population.  With rank
weights the error and lc losses of the retrained models at those points
are scored in compiled code (``_change_rows``: the numpy operations of
``_inserted``, ``_weighted_votes`` and ``pointwise_loss``, tie rules
included, in the same order, so the same bits); the log loss in numpy.  Candidates
meet the points in spatial tiles pruned by bounding boxes (with rank
weights in compiled code, ``_rank_sum_rows``: per candidate and tile
the changes are summed in order from 0 and added, the additions of the
numpy loop it replaced, so where the tiles are the same the bits are too;
populations under 512 changing points, BMRI's test sets, are one tile), and
everything is chunked so memory stays bounded for 10^6-point populations.

**Exact truth.**  On a Gaussian-mixture problem in one or two dimensions
(:meth:`Population.exact <mri_theory.engine.population.Population.exact>`) the
loss is integrated, not sampled: the prediction depends only on the order of
the distances to the training points, which changes only on perpendicular
bisectors, so the decision regions are polygons and their Gaussian mass is
closed form (:func:`~mri_theory.engine.exact.partition_losses`;
``_knn_exact`` builds the partition, refining the Voronoi cells rank by rank
until the prediction is decided).  A candidate changes the partition only
where it is nearer than a region's last ranked point, so the retrained
models' losses are the current loss plus local changes, computed once per
region of the partition and clipped by the candidate's bisectors.  Exact to
rounding (about 1e-14 against an independent line integration); 1-D problems
are 2-D ones whose second coordinate no training point uses.

Neighbourhoods (every prediction, and the fast path's starting point) come
from a compiled sweep (``_sweep_rows``) up to ``_TREE_MIN_TRAIN = 2048``
training points: the training points sorted by first coordinate, each
query scanned outwards from its place until the first coordinate alone is
farther than its current ``k``-th neighbour; larger training sets use a k-d
tree shortlist.  Both give the order (squared distance, index) of a stable
sort on :func:`squared_distances`'s bits (squares as products, no fused
multiply-add), the order a refit and the fast path share.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial import cKDTree

from mri_theory._utils import validation as check
from mri_theory._utils.ties import TIE_TOLERANCE
from mri_theory.classifiers._compiled import on_first_call
from mri_theory.classifiers._scaling import check_scale, divisors
from mri_theory.engine.contract import Classifier, check_points, check_retraining_args
from mri_theory.engine.exact import MixtureTruth, partition_losses
from mri_theory.engine.losses import pointwise_loss
from mri_theory.engine.population import ExactPopulation, Population

__all__ = ["KNN", "KERNELS", "MAX_COORDINATE", "optimal_weights", "squared_distances", "squared_distances_paired"]

#: The neighbour weightings of :class:`KNN`.
KERNELS: tuple[str, ...] = ("rectangular", "optimal")

_CHUNK_CELLS = 2**21
_COMPILED_LOSSES = ("error", "lc")  # the rank-weight fast path's losses scored by _change_rows (code 0, 1)
_TREE_MIN_TRAIN = 2048  # above this many training points, neighbours are shortlisted with a k-d tree

#: Half-width, in standard deviations of each truth component along each axis, that the exact partition's
#: bounding box adds around the components' means: the mass outside is below ``4 Phi(-12) ~ 7e-33``.
EXACT_RADIUS = 12.0
_EXACT_LOSS_CODES = {"error": 0, "log": 1}
# Starting sizes of the exact partition's buffers; a full buffer doubles (here, for the calls after it too)
_EXACT_SIZES = {"vertices": 64, "stack": 512, "leaves": 4096, "table": 1 << 15, "terms": 1 << 14}

#: Scaled coordinates must be 0 or of magnitude in ``[1 / MAX_COORDINATE, MAX_COORDINATE]``: then no
#: squared difference overflows (``(2e100)^2 d`` is finite for any practical ``d``) and none of two
#: distinct values underflows (their difference is at least ``1e-100 * 2^-52``, whose square ``~1e-232``
#: is a normal float): no distance is lost to overflow or underflow, and only the ordinary rounding of
#: double precision remains (as for coordinates of magnitude 1).
MAX_COORDINATE = 1e100


def squared_distances_paired(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Squared distances from ``A[i]`` to each ``B[i, j]``, with the arithmetic of :func:`squared_distances`.

    Parameters
    ----------
    A : ndarray of shape (n, d)
        Points.
    B : ndarray of shape (n, m, d)
        For each point of ``A``, ``m`` points.

    Returns
    -------
    ndarray of shape (n, m)
        ``|A[i] - B[i, j]|^2``, the coordinates added in order.

    See Also
    --------
    mri_theory.classifiers.knn.squared_distances : Every point of one set to every point of another.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.classifiers.knn import squared_distances, squared_distances_paired
    >>> A = np.array([[0.0, 0.0], [1.0, 1.0]])
    >>> B = np.array([[[3.0, 4.0], [0.0, 1.0]], [[1.0, 1.0], [2.0, 2.0]]])
    >>> squared_distances_paired(A, B).tolist()  # row i: A[i] to each B[i, j]
    [[25.0, 1.0], [0.0, 2.0]]
    >>> bool(np.array_equal(squared_distances_paired(A, B)[0], squared_distances(A[:1], B[0])[0]))
    True
    """
    out = (A[:, None, 0] - B[:, :, 0]) ** 2
    for t in range(1, A.shape[1]):
        out += (A[:, None, t] - B[:, :, t]) ** 2
    return out


def squared_distances(A: np.ndarray, B: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """Squared Euclidean distances ``(len(A), len(B))``, summed coordinate by coordinate, times ``scale``.

    The difference form (not ``|a|^2 + |b|^2 - 2ab``) gives bit-identical values
    whichever side a point is on, so the fast path and a refit agree exactly
    on which point is nearer.  Computed by compiled code (``_distance_rows``)
    with numpy's arithmetic: each square a product, the coordinates added in
    order from the first, no fused multiply-add, then one product by ``scale``
    (the RBF kernel's :math:`-\\gamma`; ``1.0`` changes no bit).

    Parameters
    ----------
    A : ndarray of shape (n, d)
        Points.
    B : ndarray of shape (m, d)
        Points.
    scale : float, default 1.0
        The factor applied to every squared distance.

    Returns
    -------
    ndarray of shape (n, m)
        ``scale * |A[i] - B[j]|^2``.

    See Also
    --------
    mri_theory.classifiers.knn.squared_distances_paired : Each point to its own set of points.
    mri_theory.classifiers.KNN : The k-nearest-neighbour classifier that ranks by them.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.spatial.distance import cdist
    >>> from mri_theory.classifiers.knn import squared_distances
    >>> A, B = np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[3.0, 4.0]])
    >>> squared_distances(A, B).tolist(), bool(np.allclose(squared_distances(A, B), cdist(A, B, "sqeuclidean")))
    ([[25.0], [13.0]], True)
    """
    A = np.ascontiguousarray(A, dtype=float)
    B_columns = np.ascontiguousarray(np.asarray(B, dtype=float).T)
    out = np.empty((A.shape[0], B_columns.shape[1]))
    if out.size:
        _compiled_distances()(A, B_columns, float(scale), out)
    return out


def _distance_rows(A, B_columns, scale, out):  # pragma: no cover - compiled by numba (its pure-Python run is tested)
    """``out[i, j] = scale * sum_t (A[i, t] - B_columns[t, j])**2``, the sum in order of ``t``, squares as products."""
    n, d = A.shape
    m = B_columns.shape[1]
    for i in range(n):
        row = out[i]
        for j in range(m):
            diff = A[i, 0] - B_columns[0, j]
            row[j] = diff * diff
        for t in range(1, d):
            a = A[i, t]
            for j in range(m):
                diff = a - B_columns[t, j]
                row[j] += diff * diff
        if scale != 1.0:
            for j in range(m):
                row[j] = scale * row[j]


_compiled_distances = on_first_call(_distance_rows)


def optimal_weights(k: int, d: int) -> np.ndarray:
    r"""Samworth's optimal rank weights for ``k`` neighbours in ``d`` dimensions (kknn's ``optKernel``).

    .. math::

        w_i = \frac1k\Bigl(1 + \frac d2 - \frac{d}{2k^{2/d}}
              \bigl(i^{1+2/d} - (i-1)^{1+2/d}\bigr)\Bigr), \qquad i = 1, \dots, k,

    ``i`` the distance rank.  They sum to 1, are positive and strictly
    decrease in ``i`` for ``k >= 2`` (``i^{1+2/d}`` is convex); ``w = [1]``
    for ``k = 1``.  For ``d = 2`` they are linear in the rank,
    :math:`w_i = (2k - 2i + 1)/k^2`.

    Parameters
    ----------
    k : int
        Number of neighbours, ``>= 1``.
    d : int
        Dimension of the covariates, ``>= 1``.

    Returns
    -------
    ndarray (k,)

    See Also
    --------
    mri_theory.classifiers.KNN : Uses them with ``kernel="optimal"`` (the paper's kknn 5-NN).

    Examples
    --------
    Samworth's rank weights (kknn's optKernel): positive, decreasing with the rank, summing to 1:

    >>> import numpy as np
    >>> from mri_theory.classifiers.knn import optimal_weights
    >>> weights = optimal_weights(5, 2)
    >>> weights.round(4).tolist(), round(float(weights.sum()), 12), bool(np.all(np.diff(weights) < 0))
    ([0.36, 0.28, 0.2, 0.12, 0.04], 1.0, True)
    >>> bool(np.allclose(weights, (2 * 5 - 2 * np.arange(1, 6) + 1) / 5**2))  # d = 2: (2k - 2i + 1) / k^2
    True
    """
    k = check.count(k, "k", maximum=check.MAX_SIZE)
    d = check.count(d, "d", maximum=check.MAX_SIZE)
    i = np.arange(1, k + 1, dtype=float)
    e = 1 + 2 / d
    return (1 + d / 2 - d / (2 * k ** (2 / d)) * (i**e - (i - 1) ** e)) / k


def _check_coordinates(scaled: np.ndarray, name: str) -> None:
    """Refuse scaled points whose squared distances could overflow or underflow (see ``MAX_COORDINATE``)."""
    size = np.abs(scaled)
    bad = ~np.isfinite(size) | (size > MAX_COORDINATE) | ((size < 1 / MAX_COORDINATE) & (size != 0))
    if np.any(bad):
        raise ValueError(f"{name}: after dividing by scale, every coordinate must be 0 or of magnitude in "
                         f"[{1 / MAX_COORDINATE:g}, {MAX_COORDINATE:g}] so that squared distances neither "
                         f"overflow nor underflow; got {scaled[bad][:3].tolist()} (rescale the data or "
                         "choose another scale)")


class KNN(Classifier):
    r"""k-NN: a plain majority vote, or kknn's optimal rank weights (Appendix C).

    Parameters
    ----------
    k : int, default 5
        Number of neighbours.  With ``n < k`` training points all of them
        vote: ``k_eff = min(k, n)`` neighbours, and the rank weights are those
        of ``k_eff`` neighbours.  kknn refuses ``k > n``; using ``k_eff`` is
        what makes the first points of a learning curve meaningful.
    kernel : {"rectangular", "optimal"}, default "rectangular"
        ``"rectangular"``: :math:`\hat p_j` is the vote share of class ``j``.
        ``"optimal"``: the ``i``-th nearest neighbour votes with
        ``optimal_weights(k_eff, d)[i - 1]`` (``d`` the data dimension);
        :math:`\hat p_j` is the weight of class ``j`` over the total weight
        (kknn's default kernel and its ``prob``).
    scale : None, "train" or array_like (d,), default None
        Covariate scaling before distances are taken.  ``None``: none.
        ``"train"``: each covariate is divided by its training-set standard
        deviation (``ddof=1``, as R's ``sd``), as kknn's default ``scale=TRUE``; a covariate
        constant on the training set is left unscaled (kknn gives it weight 0;
        either way it adds the same amount to every distance, so the
        neighbours are the same).  The standard deviation moves whenever a
        point is added, so :meth:`retraining_losses` refits for this option
        (there is no exact fast path).  An array: fixed positive divisors,
        one per covariate, applied to training, query and candidate points
        alike; the fast path still applies.  Whatever the scaling, every
        scaled coordinate (training, query, candidate and population points)
        must be 0 or of magnitude in ``[1e-100, 1e100]``
        (``MAX_COORDINATE``), so that squared distances neither overflow
        nor underflow; other points are refused with a ``ValueError``.

    Notes
    -----
    ``nearest_neighbour`` is True: SMRI and BMRI estimate the class
    probabilities with a random forest rather than 5-NN (§4).  ``exact_truth``
    is True: on a Gaussian-mixture problem in one or two dimensions
    :meth:`exact_loss` and :meth:`retraining_losses` integrate the loss exactly
    (module notes), any ``k``, either kernel, a fixed ``scale`` included
    (``scale="train"`` refits each retrained model, each integrated exactly).

    Tie rules, chosen so that refits and the fast path agree exactly:
    neighbours are ordered by squared distance and then by training index
    (a stable sort), so among equidistant points the earlier one is nearer
    (and takes the better rank); a newly added example comes last, so it
    enters a neighbourhood only if it is *strictly* nearer than the current
    k-th neighbour and takes the rank after every neighbour at its distance.
    Equal vote shares predict the lowest label (as scikit-learn's
    ``KNeighborsClassifier``).  With rank weights, class weights equal in
    exact arithmetic can differ in the last bit (for ``d = 2`` the weights are
    linear in the rank, so ranks {1, 4} and {2, 3} tie): the classes whose
    weight is within ``TIE_TOLERANCE`` of the largest share their mean, so the
    lowest of them is predicted, whatever the rounding.

    Deviations from the paper's kknn (Appendix C, mri-paper.tex lines 1401-1402): kknn scales the
    covariates by default; here ``scale=None`` is the default (pass
    ``scale="train"`` for kknn's scaling, or the problem's covariate standard
    deviations as a fixed ``scale`` to keep the fast path), ``k > n`` uses
    ``k_eff`` instead of failing, ties are ordered by training index (kknn's
    order among equidistant points is its C code's), and the plain vote
    (``"rectangular"``) breaks equal votes by the lowest label, where kknn
    prefers the class of the nearest tied neighbour.

    See Also
    --------
    mri_theory.classifiers.knn.optimal_weights : The rank weights of kernel="optimal".
    mri_theory.classifiers.knn.squared_distances : The distances it ranks neighbours by.

    Examples
    --------
    The paper's 5-NN (kknn's optimal rank weights) on 20 points of Four-Gaussian; its retrained models' losses
    equal plain refits:

    >>> import numpy as np
    >>> from mri_theory.classifiers import KNN
    >>> from mri_theory.engine import Population, refit_future_losses
    >>> from mri_theory.problems import get_problem
    >>> problem, rng = get_problem("four-gaussian"), np.random.default_rng(0)
    >>> X, y = problem.sample(20, rng)
    >>> model = KNN(5, kernel="optimal").fit(X, y)
    >>> model.predict_proba(X[:2]).round(4).tolist()
    [[0.4, 0.6], [0.88, 0.12]]
    >>> population, candidates = Population.from_problem(problem, 2000, rng), problem.sample(4, rng)[0]
    >>> current, future = model.retraining_losses(candidates, population, "error")  # the fast path: no refit
    >>> refit = refit_future_losses(model, candidates, population, "error")  # one refit per candidate and class
    >>> future.shape, bool(np.allclose(future, refit, rtol=0, atol=1e-12))
    ((4, 2), True)
    """

    name = "knn"
    nearest_neighbour = True
    exact_truth = True

    def __init__(self, k: int = 5, kernel: str = "rectangular", scale: None | str | ArrayLike = None) -> None:
        check.count(k, "k")
        if not isinstance(kernel, str) or kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {', '.join(map(repr, KERNELS))}, got {kernel!r}")
        check_scale(scale)
        self.k = k
        self.kernel = kernel
        self.scale = scale

    def fit(self, X: ArrayLike, y: ArrayLike, n_classes: int | None = None) -> KNN:
        """Fit on labelled data (see :meth:`Classifier.fit`); a fixed ``scale`` must have one entry per column.

        Parameters
        ----------
        X : array_like of shape (n, d)
            Training points (at least one).
        y : array_like of shape (n,)
            Their class labels, integers in ``[0, n_classes)``.
        n_classes : int, optional
            The number of classes (default ``max(y) + 1``, at least 2); classes may be absent from ``y``.

        Returns
        -------
        KNN
            This classifier, fitted.
        """
        X = check_points(X, min_rows=1)
        with np.errstate(divide="ignore", over="ignore", under="ignore"):  # an sd of 0 or a tiny scale: refused
            by = divisors(check_scale(self.scale), X)  # a fixed scale: one entry per column (ValueError)
            scaled = X if by is None else X / by
        _check_coordinates(scaled, "X")  # before anything is fitted
        super().fit(X, y, n_classes)
        return self

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        self.scale_ = divisors(check_scale(self.scale), X)
        self.X_scaled_ = self._scaled(X)
        self.k_eff_ = min(check.count(self.k, "k"), X.shape[0])
        self.tree_ = cKDTree(self.X_scaled_) if X.shape[0] > _TREE_MIN_TRAIN else None
        if self.tree_ is None:  # the compiled sweep: training points in the order of their first coordinate
            self.sweep_order_ = np.argsort(self.X_scaled_[:, 0], kind="stable")
            self.sweep_points_ = np.ascontiguousarray(self.X_scaled_[self.sweep_order_], dtype=float)

    def _scaled(self, P: np.ndarray) -> np.ndarray:
        """Points in the scaled coordinates where distances are taken (out-of-range ones are refused after)."""
        if self.scale_ is None:
            return P
        with np.errstate(over="ignore", under="ignore"):
            return P / self.scale_

    def _rank_weights(self, n_neighbours: int) -> np.ndarray:
        """Optimal weights of ``n_neighbours`` neighbours in the data dimension, normalised to sum 1."""
        w = optimal_weights(n_neighbours, self.dim_)
        return w / w.sum()

    def _neighbourhoods(self, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each point's ``k_eff`` neighbours in the order (squared distance, index): labels and squared distances.

        ``P`` is in scaled coordinates; both outputs have shape ``(n, k_eff)``.
        Up to ``_TREE_MIN_TRAIN`` training points a compiled sweep finds
        them (:func:`_sweep_rows`); larger training sets use a k-d tree to
        shortlist ``k_eff + 4`` neighbours, then order them by the exact
        squared distances; a point whose shortlist cannot be proven complete
        is done by brute force (:meth:`_brute_neighbourhoods`).
        """
        if self.tree_ is None:
            return self._sweep_neighbourhoods(P)
        n_train, K = self.X_scaled_.shape[0], self.k_eff_
        m = min(n_train, K + 4)
        tree_dist, idx = self.tree_.query(P, k=m)
        d2 = squared_distances_paired(P, self.X_scaled_[idx])
        order = np.lexsort((idx, d2), axis=1)
        labels = self.y_train_[np.take_along_axis(idx, order, axis=1)[:, :K]]
        d2 = np.take_along_axis(d2, order, axis=1)[:, :K]
        # Points not shortlisted are at least tree_dist[:, -1] away: complete if strictly beyond the k-th.
        unsure = np.flatnonzero(d2[:, -1] >= (1 - 1e-9) * tree_dist[:, -1] ** 2)
        if unsure.size and m < n_train:
            labels[unsure], d2[unsure] = self._brute_neighbourhoods(P[unsure])
        return labels, d2

    def _sweep_neighbourhoods(self, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_neighbourhoods` by the compiled sweep over the training points sorted by first coordinate."""
        K = self.k_eff_
        index = np.empty((P.shape[0], K), dtype=np.int64)
        dist2 = np.empty((P.shape[0], K))
        _compiled_sweep()(np.ascontiguousarray(P, dtype=float), self.sweep_points_,
                          self.sweep_order_.astype(np.int64), index, dist2)
        return self.y_train_[index], dist2

    def _brute_neighbourhoods(self, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_neighbourhoods` by computing every distance (chunked)."""
        n_train, K = self.X_scaled_.shape[0], self.k_eff_
        labels = np.empty((P.shape[0], K), dtype=self.y_train_.dtype)
        dist2 = np.empty((P.shape[0], K))
        step = max(1, _CHUNK_CELLS // (n_train * P.shape[1]))
        for start in range(0, P.shape[0], step):
            d2 = squared_distances(P[start:start + step], self.X_scaled_)
            r2 = np.partition(d2, K - 1, axis=1)[:, K - 1]
            nearer = d2 < r2[:, None]
            at_radius = d2 == r2[:, None]
            need = K - nearer.sum(axis=1)  # >= 1 points at the radius, lowest indices first
            taken = at_radius
            tied = np.flatnonzero(at_radius.sum(axis=1) > need)
            if tied.size:
                taken = at_radius.copy()
                taken[tied] &= np.cumsum(at_radius[tied], axis=1) <= need[tied, None]
            cols = np.nonzero(nearer | taken)[1].reshape(-1, K)  # each row's K neighbours, by index
            near_d2 = np.take_along_axis(d2, cols, axis=1)
            order = np.argsort(near_d2, axis=1, kind="stable")  # by distance, equal distances by index
            chunk = slice(start, start + d2.shape[0])
            labels[chunk] = self.y_train_[np.take_along_axis(cols, order, axis=1)]
            dist2[chunk] = np.take_along_axis(near_d2, order, axis=1)
        return labels, dist2

    def _votes(self, labels: np.ndarray) -> np.ndarray:
        """Class counts of each row of neighbour labels, shape ``(n, n_classes)``."""
        votes = np.zeros((labels.shape[0], self.n_classes_))
        for j in range(self.n_classes_):
            votes[:, j] = np.count_nonzero(labels == j, axis=1)
        return votes

    def _proba(self, labels: np.ndarray) -> np.ndarray:
        """Class probabilities from the ordered neighbour labels ``(n, k_eff)``."""
        if self.kernel == "rectangular":
            return self._votes(labels) / self.k_eff_
        return _weighted_votes(labels, self._rank_weights(labels.shape[-1]), self.n_classes_)

    def _predict_proba(self, X: np.ndarray) -> np.ndarray:
        X = self._scaled(X)
        _check_coordinates(X, "X")
        return self._proba(self._neighbourhoods(X)[0])

    def retraining_losses(self, candidates: np.ndarray, population: Population | ExactPopulation,
                          loss: str) -> tuple[float, np.ndarray]:
        """Exact fast path: only points whose k-ball contains the candidate change.

        On a sampled :class:`~mri_theory.engine.population.Population`, the
        loss changes of the points the candidate enters; on an
        :class:`~mri_theory.engine.population.ExactPopulation`, the integrals
        of the loss changes over the regions where it enters (module notes,
        "Exact truth").  With ``scale="train"`` every point's scale, hence every
        distance, moves with the added example: the plain refit per (candidate,
        label) is used.

        k-NN overrides this method rather than the fast-path hook ``_future_losses``
        (:mod:`mri_theory.engine.contract`, "The fast path"): its current and
        future losses share the population's neighbourhoods, so
        :meth:`~mri_theory.engine.contract.Classifier.future_retraining_losses` is this
        method's ``L'``.

        Parameters
        ----------
        candidates : ndarray of shape (m, d)
            Points to add, one at a time.
        population : Population or ExactPopulation
            Where the loss is measured.
        loss : {"error", "log", "lc"}
            The loss.

        Returns
        -------
        current : float
            The fitted model's loss on ``population``.
        future : ndarray of shape (m, k)
            The loss after retraining with each (candidate, class).
        """
        candidates, population, loss = check_retraining_args(self, candidates, population, loss)
        if isinstance(self.scale, str):
            return super().retraining_losses(candidates, population, loss)
        if isinstance(population, ExactPopulation):
            return self._exact_retraining_losses(candidates, population.truth, loss)
        points, candidates = self._scaled(population.X), self._scaled(candidates)
        _check_coordinates(points, "population")
        _check_coordinates(candidates, "candidates")
        labels, dist2 = self._neighbourhoods(points)
        if self.kernel == "rectangular":
            return self._vote_changes(candidates, points, population, loss, labels, dist2)
        return self._rank_changes(candidates, points, population, loss, labels, dist2)

    def exact_loss(self, truth: MixtureTruth, loss: str) -> float:
        """The exact loss under a Gaussian-mixture truth: the decision regions are polygons.

        The ordered-neighbour partition of the plane (``_knn_exact``) integrated in closed form
        (:func:`~mri_theory.engine.exact.partition_losses`): exact to about 1e-13 (rounding only; the box
        beyond ``EXACT_RADIUS`` standard deviations holds less than 1e-32), 1-D problems as 2-D ones whose
        second coordinate no training point uses.

        Parameters
        ----------
        truth : MixtureTruth
            The problem's Gaussian mixture (:meth:`MixtureTruth.from_problem
            <mri_theory.engine.MixtureTruth.from_problem>`).
        loss : {"error", "log"}
            The loss integrated.

        Returns
        -------
        float
            The expected loss of the fitted model under ``truth``.
        """
        self._check_fitted()
        points, frame_truth, box = self._exact_frame(truth)
        lines, vertices, coefficients, groups, rows = _exact_terms(
            points, self.y_train_, frame_truth.n_classes, box, self._exact_weights(self.k_eff_),
            self.kernel == "optimal", _EXACT_LOSS_CODES[loss], self.k_eff_)
        return float(partition_losses(frame_truth, lines, vertices, coefficients, groups, 1, rows)[0])

    def _exact_weights(self, n_neighbours: int) -> np.ndarray:
        """The rank weights (``"optimal"``) or vote counts (ones) of ``n_neighbours`` ranks, as predictions use."""
        return self._rank_weights(n_neighbours) if self.kernel == "optimal" else np.ones(n_neighbours)

    def _exact_frame(self, truth: MixtureTruth, candidates: np.ndarray | None = None):
        """Training points (and candidates) in 2-D scaled coordinates centred on the training points, the truth in
        the same coordinates (a 1-D truth gets an independent standard normal second coordinate) and the bounding
        box ``(x0, x1, y0, y1)`` holding the points and ``EXACT_RADIUS`` standard deviations of every component."""
        if not isinstance(truth, MixtureTruth):
            raise TypeError(f"truth must be a MixtureTruth, got {type(truth).__name__}")
        if truth.dim != self.dim_ or truth.n_classes != self.n_classes_:
            raise ValueError(f"truth has dimension {truth.dim} and {truth.n_classes} classes, but the classifier was "
                             f"fitted on {self.dim_}-D points with n_classes={self.n_classes_}")
        points = self.X_scaled_
        scaled = truth.in_frame(np.zeros(self.dim_), np.ones(self.dim_) if self.scale_ is None else self.scale_)
        means, covariances = scaled.means, scaled.covariances
        if candidates is not None:
            candidates = self._scaled(candidates)
        origin = 0.5 * (points.min(axis=0) + points.max(axis=0))
        if self.dim_ == 1:
            def embed(P):
                return np.column_stack([P[:, 0] - origin[0], np.zeros(P.shape[0])])
            C = truth.n_components
            cov2 = np.zeros((C, 2, 2))
            cov2[:, 0, 0], cov2[:, 1, 1] = covariances[:, 0, 0], 1.0
            frame = MixtureTruth(truth.weights, embed(means), cov2, truth.labels, truth.n_classes)
        else:
            def embed(P):
                return P - origin
            frame = MixtureTruth(truth.weights, means - origin, covariances, truth.labels, truth.n_classes)
        spread = EXACT_RADIUS * np.sqrt(np.diagonal(frame.covariances, axis1=1, axis2=2))
        lo = (frame.means - spread).min(axis=0)
        hi = (frame.means + spread).max(axis=0)
        placed = [embed(points)] + ([] if candidates is None else [embed(candidates)])
        for P in placed:
            lo, hi = np.minimum(lo, P.min(axis=0)), np.maximum(hi, P.max(axis=0))
        margin = 1e-3 * np.max(hi - lo)
        box = np.array([lo[0] - margin, hi[0] + margin, lo[1] - margin, hi[1] + margin])
        out = (np.ascontiguousarray(placed[0]), frame, box)
        return out if candidates is None else out + (np.ascontiguousarray(placed[1]),)

    def _exact_retraining_losses(self, candidates: np.ndarray, truth: MixtureTruth,
                                 loss: str) -> tuple[float, np.ndarray]:
        """:meth:`retraining_losses` on the exact truth: the current loss plus each candidate's local change."""
        _check_coordinates(self._scaled(candidates), "candidates")
        points, frame, box, placed = self._exact_frame(truth, candidates)
        k, m, K = self.n_classes_, placed.shape[0], self.k_eff_
        ranked, code = self.kernel == "optimal", _EXACT_LOSS_CODES[loss]
        if self.X_train_.shape[0] < self.k:  # n < k: the candidate joins every neighbourhood, all weights change
            parts = [_exact_terms(points, self.y_train_, k, box, self._exact_weights(K), ranked, code, K)]
            for i in range(m):
                extended = np.vstack([points, placed[i]])
                for j in range(k):
                    terms = _exact_terms(extended, np.append(self.y_train_, j), k, box, self._exact_weights(K + 1),
                                         ranked, code, K + 1)
                    parts.append(terms[:3] + (np.full(terms[3].size, 1 + i * k + j), terms[4]))
            offsets = np.cumsum([0] + [part[0].shape[0] for part in parts[:-1]])
            lines, vertices, coefficients, groups = (np.concatenate(v) for v in list(zip(*parts, strict=True))[:4])
            rows = np.concatenate([part[4] + offset for part, offset in zip(parts, offsets, strict=True)])
            values = partition_losses(frame, lines, vertices, coefficients, groups, 1 + m * k, rows)
            return float(values[0]), values[1:].reshape(m, k)
        lines, vertices, coefficients, groups, rows = _exact_terms(points, self.y_train_, k, box,
                                                                   self._exact_weights(K), ranked, code, K, placed)
        values = partition_losses(frame, lines, vertices, coefficients, groups, 1 + m * k, rows)
        return float(values[0]), values[0] + values[1:].reshape(m, k)

    def _vote_changes(self, candidates: np.ndarray, points: np.ndarray, population: Population, loss: str,
                      labels: np.ndarray, dist2: np.ndarray) -> tuple[float, np.ndarray]:
        """The fast path of the plain vote: the candidate replaces the k-th neighbour wherever it enters."""
        k = self.n_classes_
        eye = np.eye(k)
        votes = self._votes(labels)
        current = pointwise_loss(population.proba, votes / self.k_eff_, loss, check_input=False)
        grows = self.X_train_.shape[0] < self.k  # the candidate joins every neighbourhood
        if grows:
            new_votes, denom = votes[:, None, :] + eye[None], self.k_eff_ + 1
        else:
            dropped = eye[labels[:, -1]]
            new_votes, denom = (votes - dropped)[:, None, :] + eye[None], self.k_eff_
        # change[p, j]: loss change at point p if the candidate, labelled j, enters its k-ball
        change = pointwise_loss(population.proba, new_votes / denom, loss, check_input=False) - current[:, None]
        base = float(population.mean(current))
        if grows:
            return base, np.broadcast_to(base + population.mean(change), (candidates.shape[0], k)).copy()
        relevant = np.flatnonzero(np.any(change != 0, axis=1))
        weighted = change[relevant] * population.weights[relevant, None]  # (R, k)
        reach2 = dist2[relevant, -1]
        out = np.full((candidates.shape[0], k), base)
        for rows, tile, d2 in _blocks(candidates, points[relevant], reach2):
            out[rows] += (d2 < reach2[tile]).astype(float) @ weighted[tile]
        return base, out

    def _rank_changes(self, candidates: np.ndarray, points: np.ndarray, population: Population, loss: str,
                      labels: np.ndarray, dist2: np.ndarray) -> tuple[float, np.ndarray]:
        """The fast path of rank weights: the change at a point depends on the candidate's rank there.

        ``change[p, r, j]`` is the loss change at ``p`` if the candidate,
        labelled ``j``, takes rank ``r`` (0-based) among its ``K = k_eff``
        neighbours, i.e. ``r`` of them are at most as far as the candidate.
        With ``n >= k`` training points rank ``K`` (outside the k-ball)
        changes nothing.  With ``n < k`` the candidate joins every
        neighbourhood (``K + 1`` weights): rank ``K`` (after every neighbour)
        changes ``last[p, j]``, added for every candidate, and the ranks
        before it contribute ``change - last``; so in both cases only
        candidates strictly nearer than the farthest neighbour contribute.
        """
        k = self.n_classes_
        n_points, K = labels.shape
        grows = self.X_train_.shape[0] < self.k
        n_new = K + grows  # neighbours after the candidate is added
        weights = self._rank_weights(n_new)
        proba = self._proba(labels)
        current = pointwise_loss(population.proba, proba, loss, check_input=False)
        changing = np.arange(n_points)
        if loss == "error" and not grows:
            # Each class's weight moves by at most w_1 (the candidate's weight, or the shift of later ranks,
            # which telescopes to w_r <= w_1), so a lead above 2 w_1 keeps the prediction: no change.
            lead = np.diff(np.sort(proba, axis=1)[:, -2:], axis=1)[:, 0]
            changing = np.flatnonzero(lead <= 2 * weights[0] + 1e-9)
        if not grows:  # only points that some candidate enters can change (with n < k every point does: `last`)
            changing = changing[_reached(candidates, points[changing], dist2[changing, -1])]
        residual = np.zeros((n_points, K, k))
        last = np.zeros((n_points, k))
        scored = changing  # by numpy below; the error and lc losses in compiled code, the same operations
        if loss in _COMPILED_LOSSES:
            _compiled_changes()(np.ascontiguousarray(labels, dtype=np.int64), np.ascontiguousarray(population.proba),
                                current, weights, changing.astype(np.int64), grows, _COMPILED_LOSSES.index(loss),
                                residual, last)
            scored = changing[:0]
        step = max(1, _CHUNK_CELLS // (n_new * n_new * k * k))
        for start in range(0, scored.size, step):
            rows = scored[start:start + step]
            new_labels = _inserted(labels[rows], n_new, k)  # (n, n_new, k, n_new): rank, label, neighbours
            change = (pointwise_loss(population.proba[rows], _weighted_votes(new_labels, weights, k), loss,
                                      check_input=False)
                      - current[rows, None, None])
            if grows:
                last[rows] = change[:, K]
                residual[rows] = change[:, :K] - last[rows, None, :]
            else:
                residual[rows] = change
        base = float(population.mean(current))
        out = np.tile(base + population.mean(last), (candidates.shape[0], 1))
        relevant = np.flatnonzero(np.any(residual != 0, axis=(1, 2)))
        if relevant.size == 0:
            return base, out
        # the relevant points tile by tile; weighted[p, r, j]: the weighted change at point p for rank r, label j
        tiles = _tiles(points[relevant])
        ordered = relevant[np.concatenate(tiles)]
        starts = np.cumsum([0] + [tile.size for tile in tiles]).astype(np.int64)
        weighted = np.ascontiguousarray(residual[ordered] * population.weights[ordered, None, None])
        _compiled_rank_sums()(np.ascontiguousarray(candidates, dtype=float),
                              np.ascontiguousarray(points[ordered], dtype=float),
                              np.ascontiguousarray(dist2[ordered]), weighted, starts, out)
        return base, out


def _sweep_rows(P, sorted_points, order, index,
                dist2):  # pragma: no cover - compiled by numba (its pure-Python run is tested against it)
    """The ``K = index.shape[1]`` nearest training points of each row of ``P``, ordered by (squared distance, index).

    ``sorted_points`` are the training points in the order of their first
    coordinate, ``order`` their training indices.  From the query's place
    in that order the sweep runs right, then left, until the squared
    difference of first coordinates alone exceeds the current ``K``-th
    squared distance: every point beyond is strictly farther (a squared
    distance is that term plus non-negative ones, and rounding is monotone),
    so it can take no place, not even by a tie.  Squared distances are
    summed coordinate by coordinate as :func:`squared_distances` does,
    each square a product as numpy's ``square`` (not ``pow``, which may
    round differently) and no fused multiply-add (numba's default
    ``fastmath=False``), so they are the same bits; a point replaces the ``K``-th when it is before it in the
    order (squared distance, training index), the order of a stable sort.
    Fills ``index`` (training indices) and ``dist2`` row by row.
    """
    n_points, d = P.shape
    n_train = sorted_points.shape[0]
    K = index.shape[1]
    best_d2 = np.empty(K)
    best_index = np.empty(K, dtype=np.int64)
    for i in range(n_points):
        q0 = P[i, 0]
        filled = 0
        start = np.searchsorted(sorted_points[:, 0], q0)
        for direction in (1, -1):
            t = start if direction == 1 else start - 1
            while 0 <= t < n_train:
                gap = q0 - sorted_points[t, 0]
                first = gap * gap
                if filled == K and first > best_d2[K - 1]:
                    break
                d2 = first
                for c in range(1, d):
                    gap = P[i, c] - sorted_points[t, c]
                    d2 += gap * gap
                j = order[t]
                if filled < K or d2 < best_d2[K - 1] or (d2 == best_d2[K - 1] and j < best_index[K - 1]):
                    slot = filled if filled < K else K - 1  # insert before every later entry
                    while slot > 0:
                        prev = slot - 1
                        if d2 > best_d2[prev] or (d2 == best_d2[prev] and j > best_index[prev]):
                            break
                        best_d2[slot] = best_d2[prev]
                        best_index[slot] = best_index[prev]
                        slot = prev
                    best_d2[slot] = d2
                    best_index[slot] = j
                    if filled < K:
                        filled += 1
                t += direction
        for s in range(K):
            index[i, s] = best_index[s]
            dist2[i, s] = best_d2[s]


_compiled_sweep = on_first_call(_sweep_rows)


def _reached(candidates: np.ndarray, points: np.ndarray, reach2: np.ndarray) -> np.ndarray:
    """Whether some candidate is strictly nearer ``points[p]`` than ``reach2[p]`` (squared), for each point."""
    order = np.argsort(candidates[:, 0], kind="stable")
    out = np.zeros(points.shape[0], dtype=np.bool_)
    _compiled_reach()(np.ascontiguousarray(candidates[order], dtype=float), np.ascontiguousarray(points, dtype=float),
                      np.ascontiguousarray(reach2, dtype=float), out)
    return out


def _reach_rows(sorted_candidates, points, reach2,
                out):  # pragma: no cover - compiled by numba (its pure-Python run is tested against it)
    """Sets ``out[p]`` when some candidate's squared distance to ``points[p]`` is below ``reach2[p]``.

    The candidates come in the order of their first coordinate; from the
    point's place in it the search runs right, then left, until the
    squared difference of first coordinates alone reaches ``reach2[p]``
    (every candidate beyond is at least as far: no strict entry).  Squared
    distances are :func:`squared_distances`'s bits (products, summed
    coordinate by coordinate, no fused multiply-add).
    """
    n_candidates = sorted_candidates.shape[0]
    d = points.shape[1]
    for p in range(points.shape[0]):
        q0 = points[p, 0]
        reach = reach2[p]
        start = np.searchsorted(sorted_candidates[:, 0], q0)
        for direction in (1, -1):
            t = start if direction == 1 else start - 1
            while 0 <= t < n_candidates and not out[p]:
                gap = sorted_candidates[t, 0] - q0
                d2 = gap * gap
                if d2 >= reach:
                    break
                for c in range(1, d):
                    gap = sorted_candidates[t, c] - points[p, c]
                    d2 += gap * gap
                if d2 < reach:
                    out[p] = True
                t += direction


_compiled_reach = on_first_call(_reach_rows)


def _rank_sum_rows(candidates, points, dist2, weighted, starts,
                   out):  # pragma: no cover - compiled by numba (its pure-Python run is tested against it)
    """Adds to ``out[c, j]`` the weighted loss changes of the points candidate ``c`` enters, tile by tile.

    ``points`` (``R``), their ordered neighbours' squared distances
    ``dist2`` ``(R, K)`` and ``weighted`` ``(R, K, k)`` (the weighted loss
    change at each point for each rank and label) come tile by tile, tile
    ``t`` being rows ``starts[t]:starts[t + 1]``.  Candidate ``c`` enters
    point ``p`` when its squared distance is strictly below ``dist2[p, K - 1]``
    and then takes rank ``r``, the number of the first ``K - 1`` neighbours at
    most as far.  Per tile the changes of the points entered are summed in
    order from 0 and the sum added to ``out[c]``: the additions of the
    numpy loop this replaced (a ``bincount`` per tile), so the bits are its
    own.  A tile whose bounding box is at least its largest reach away from
    the candidate (:func:`_box_distance2`'s bound) is skipped: it holds no
    point the candidate enters.
    """
    n_candidates, d = candidates.shape
    K = dist2.shape[1]
    k = weighted.shape[2]
    lo = np.empty(d)
    hi = np.empty(d)
    total = np.empty(k)
    for t in range(starts.shape[0] - 1):
        first, end = starts[t], starts[t + 1]
        reach = dist2[first, K - 1]
        for c in range(d):
            lo[c] = points[first, c]
            hi[c] = points[first, c]
        for p in range(first, end):
            reach = max(reach, dist2[p, K - 1])
            for c in range(d):
                lo[c] = min(lo[c], points[p, c])
                hi[c] = max(hi[c], points[p, c])
        for a in range(n_candidates):
            box = 0.0
            for c in range(d):
                gap = max(max(lo[c] - candidates[a, c], candidates[a, c] - hi[c]), 0.0)
                box += gap * gap
            if box >= reach:
                continue
            for j in range(k):
                total[j] = 0.0
            entered = False
            for p in range(first, end):
                gap = candidates[a, 0] - points[p, 0]
                d2 = gap * gap
                for c in range(1, d):
                    gap = candidates[a, c] - points[p, c]
                    d2 += gap * gap
                if d2 < dist2[p, K - 1]:
                    rank = 0
                    for s in range(K - 1):
                        if dist2[p, s] <= d2:
                            rank += 1
                    for j in range(k):
                        total[j] += weighted[p, rank, j]
                    entered = True
            if entered:
                for j in range(k):
                    out[a, j] += total[j]


_compiled_rank_sums = on_first_call(_rank_sum_rows)


def _change_rows(labels, rows, current, weights, changing, grows, loss_code, residual,
                 last):  # pragma: no cover - compiled by numba (its pure-Python run is tested against it)
    """The loss changes of ``_rank_changes`` at the points ``changing``, for the error (``loss_code`` 0) and
    lc (1) losses, into ``residual`` (and ``last`` when ``grows``).

    For each point, rank ``r`` and label ``j`` the neighbour labels are
    those of :func:`_inserted`, the class weights those of
    :func:`_weighted_votes` (added rank by rank; classes within
    ``TIE_TOLERANCE`` of the largest share their mean, summed in class
    order) and the loss that of
    :func:`~mri_theory.engine.losses.pointwise_loss` (its tie floor, the
    lowest near-maximal class; or ``1 - max``), each operation the numpy
    code's on the same values in the same order (a weight times 0 adds
    nothing; no fused multiply-add), so the changes are its bits.  With
    ``grows`` rank ``K`` goes to ``last`` and the other ranks store their
    change minus it.
    """
    K = labels.shape[1]
    k = rows.shape[1]
    n_new = weights.shape[0]
    tolerance = 1e-12  # mri_theory._utils.ties.TIE_TOLERANCE
    votes = np.empty(k)
    tied = np.empty(k, dtype=np.bool_)
    for i in range(changing.shape[0]):
        p = changing[i]
        for step in range(n_new):
            r = (step + n_new - 1) % n_new if grows else step  # with grows, rank K (``last``) first
            for j in range(k):
                for c in range(k):
                    votes[c] = 0.0
                for s in range(n_new):
                    label = labels[p, s] if s < r else (j if s == r else labels[p, s - 1])
                    votes[label] += weights[s]
                top = votes[0]
                for c in range(1, k):
                    top = max(top, votes[c])
                floor = top - tolerance * max(1.0, top)
                count = 0
                for c in range(k):
                    tied[c] = votes[c] >= floor
                    count += tied[c]
                if count > 1:
                    total = 0.0
                    for c in range(k):
                        if tied[c]:
                            total += votes[c]
                    mean = total / count
                    for c in range(k):
                        if tied[c]:
                            votes[c] = mean
                top = votes[0]
                for c in range(1, k):
                    top = max(top, votes[c])
                if loss_code == 1:
                    value = 1.0 - top
                else:
                    floor = top - tolerance * max(1.0, abs(top))
                    kept = rows[p, k - 1]
                    for c in range(k - 2, -1, -1):
                        if votes[c] >= floor:
                            kept = rows[p, c]
                    value = 1.0 - kept
                change = value - current[p]
                if grows and r == K:
                    last[p, j] = change
                elif grows:
                    residual[p, r, j] = change - last[p, j]
                else:
                    residual[p, r, j] = change


_compiled_changes = on_first_call(_change_rows)


def _inserted(labels: np.ndarray, n_new: int, n_classes: int) -> np.ndarray:
    """Neighbour labels ``(n, n_new)`` with a candidate of each label inserted at each rank.

    ``out[p, r, j]`` is row ``p`` of ``labels`` (``(n, K)``, ``n_new`` is ``K``
    or ``K + 1``) with label ``j`` inserted before position ``r`` and cut to
    ``n_new`` entries (the last neighbour drops out when ``n_new = K``).
    """
    n = labels.shape[0]
    out = np.empty((n, n_new, n_classes, n_new), dtype=labels.dtype)
    for r in range(n_new):
        out[:, r, :, :r] = labels[:, None, :r]
        out[:, r, :, r] = np.arange(n_classes)
        out[:, r, :, r + 1:] = labels[:, None, r:n_new - 1]
    return out


def _weighted_votes(labels: np.ndarray, weights: np.ndarray, n_classes: int) -> np.ndarray:
    """Class probabilities ``(..., n_classes)`` from ordered neighbour labels ``(..., K)`` and rank weights ``(K,)``.

    The weights are added rank by rank, so any set of neighbours gives the
    same bits wherever it is computed (a refit's prediction, the fast path).
    Classes tied with the largest weight (:func:`mri_theory._utils.ties.near_maximum`'s
    rule) then share their mean, so the lowest of them is predicted.
    """
    by_rank = np.moveaxis(labels, -1, 0)
    votes = [np.zeros(labels.shape[:-1]) for _ in range(n_classes)]
    for s in range(by_rank.shape[0]):
        for j in range(n_classes):
            votes[j] += weights[s] * (by_rank[s] == j)
    top = votes[0]
    for j in range(1, n_classes):
        top = np.maximum(top, votes[j])
    floor = top - TIE_TOLERANCE * np.maximum(1.0, top)
    tied = [v >= floor for v in votes]
    count = np.zeros(top.shape, dtype=np.intp)
    for t in tied:
        count += t
    shared = count > 1
    if np.any(shared):
        total = np.zeros(top.shape)
        for v, t in zip(votes, tied, strict=True):
            total += np.where(t, v, 0.0)
        mean = total / np.maximum(count, 1)
        votes = [np.where(t & shared, mean, v) for v, t in zip(votes, tied, strict=True)]
    return np.stack(votes, axis=-1)


def _blocks(candidates: np.ndarray, points: np.ndarray,
            reach2: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``(rows, tile, squared distances)`` for each spatial tile of ``points`` and the candidates that may reach it.

    A tile can matter only to candidates nearer its bounding box than its
    largest squared reach ``reach2``; those candidates come in blocks of
    bounded size, with their squared distances ``(len(rows), len(tile))`` to
    the tile's points.
    """
    if points.shape[0] == 0:
        return
    for tile in _tiles(points):
        inside = points[tile]
        near = np.flatnonzero(_box_distance2(candidates, inside.min(0), inside.max(0)) < reach2[tile].max())
        step = max(1, _CHUNK_CELLS // tile.size)
        for start in range(0, near.size, step):
            rows = near[start:start + step]
            yield rows, tile, squared_distances(candidates[rows], inside)


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


_Terms = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _exact_terms(points: np.ndarray, labels: np.ndarray, n_classes: int, box: np.ndarray, weights: np.ndarray,
                 ranked: bool, loss_code: int, K: int, candidates: np.ndarray | None = None) -> _Terms:
    """The boundary terms (:func:`~mri_theory.engine.exact.partition_losses`: ``lines, vertices, coefficients,
    groups, rows``) of the partition by the ordered ``K`` nearest of ``points`` (group 0: the loss itself) and,
    with ``candidates``, of each candidate's loss change under each label (group ``1 + i * n_classes + j``).
    Buffers that fill up are doubled and the call repeated."""
    from mri_theory.classifiers import _knn_exact as compiled

    n = points.shape[0]
    M = n + 1
    sites = np.zeros((M, 2))
    sites[:n] = points
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    weights = np.ascontiguousarray(weights, dtype=float)
    sizes = _EXACT_SIZES
    unique = np.zeros(1, dtype=np.int64)  # keys of non-canonical vertices, counted down from -1 by both calls
    robust = candidates is not None
    while True:
        L = sizes["leaves"]
        leaf_xy, leaf_kl = np.empty((L * 8, 2)), np.empty((L * 8, 3), dtype=np.int64)
        leaf_start, leaf_order = np.empty(L + 1, dtype=np.int64), np.empty((L, K), dtype=np.int64)
        leaf_depth, leaf_fill = np.empty(L, dtype=np.int64), np.empty(L, dtype=np.int64)
        unique[0] = 0
        status, n_leaves = compiled.partition(sites, labels, n, M, box, weights, n_classes, loss_code, K, robust,
                                              sizes["vertices"], sizes["stack"], leaf_xy, leaf_kl, leaf_start,
                                              leaf_order, leaf_depth, leaf_fill, unique)
        if status == compiled.OK:
            break
        _grow(sizes, status, compiled)
    leaves = (leaf_xy, leaf_kl, leaf_start, leaf_order, leaf_depth)
    current = _table_terms(sizes, compiled, n_classes, n_classes, compiled.current_terms, sites, labels, M, box,
                           weights, ranked, n_classes, loss_code, K, *leaves, leaf_fill, n_leaves)
    if candidates is None:
        return current
    changes = np.empty((n_leaves, K + 1, n_classes * n_classes))
    compiled.leaf_changes(labels, n, weights, ranked, n_classes, loss_code, K, leaf_order, leaf_depth, leaf_fill,
                          n_leaves, changes)
    leaf_box = compiled.leaf_boxes(sites, leaf_xy, leaf_start, leaf_order, leaf_depth, n_leaves)
    active = np.flatnonzero(np.any(changes != 0.0, axis=(1, 2)))
    changed = _table_terms(sizes, compiled, n_classes, n_classes * n_classes, compiled.candidate_terms, sites, n, M,
                           box, n_classes, np.ascontiguousarray(candidates, dtype=float), *leaves, leaf_box, active,
                           changes, extra=(unique,))
    lines, vertices = np.concatenate([current[0], changed[0]]), np.concatenate([current[1], changed[1]])
    return (lines, vertices, np.concatenate([current[2], changed[2]]), np.concatenate([current[3], changed[3] + 1]),
            np.concatenate([current[4], changed[4] + current[0].shape[0]]))


def _table_terms(sizes: dict[str, int], compiled: Any, n_classes: int, width: int, routine: Any, *args: Any,
                 extra: tuple = ()) -> _Terms:
    """Run ``routine`` (``current_terms`` or ``candidate_terms``) with a fresh hash table and term arrays of
    ``width`` coefficients per entry, doubling them until they suffice: ``(lines, vertices, coefficients, groups,
    rows)``, ``rows`` the (line, vertex) row of each term."""
    while True:
        T, E = sizes["table"], sizes["terms"]
        table = (np.empty((T, 3), dtype=np.int64), np.zeros(T, dtype=np.bool_), np.empty((T, 2)),
                 np.empty((T, width)), np.empty((T, width)), np.empty(T, dtype=np.int64))
        rows = (np.empty((2 * E, 3), dtype=np.int64), np.zeros(2 * E, dtype=np.bool_), np.empty(2 * E, dtype=np.int64),
                np.empty((E, 4)), np.empty((E, 2)), np.zeros(1, dtype=np.int64))
        terms = (np.empty(E, dtype=np.int64), np.empty((E, n_classes)), np.empty(E, dtype=np.int64))
        status, count = routine(*args, *table, rows, *terms, *extra)
        if status == compiled.OK:
            used = rows[5][0]
            return (rows[3][:used].copy(), rows[4][:used].copy(), terms[1][:count].copy(), terms[2][:count].copy(),
                    terms[0][:count].copy())
        _grow(sizes, status, compiled)


def _grow(sizes: dict[str, int], status: int, compiled: Any) -> None:
    """Double the buffer a compiled routine reported full."""
    name = {compiled.FULL_VERTICES: "vertices", compiled.FULL_STACK: "stack", compiled.FULL_LEAVES: "leaves",
            compiled.FULL_TABLE: "table", compiled.FULL_TERMS: "terms"}[status]
    if name == "vertices" and sizes["vertices"] >= 1 << 16:
        raise RuntimeError("the exact k-NN partition needs polygons of more than 65536 vertices")
    sizes[name] *= 2
