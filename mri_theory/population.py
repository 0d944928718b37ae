r"""Evaluation sets: points, a row of class probabilities per point, weights.

An evaluation set is a :class:`Population`.  The loss of a classifier on it is
the weighted mean *expected* loss with each point's label distributed as its
row.  With exact Bayes posteriors as rows (:meth:`Population.from_problem`) it
estimates the classifier's true loss, Rao-Blackwellised: far less noisy than
scoring sampled labels.  With one-hot rows (:meth:`Population.from_labels`) it
is the ordinary empirical loss on labelled data.  One engine,
:func:`mri_theory.retraining.future_losses`, scores classifiers on any of them.

Losses, for a classifier with probabilities :math:`\hat{\mathbf p}(x)` and a
row :math:`\mathbf p(x)`:

* ``"error"``: :math:`1 - p_{\hat y}(x)` with :math:`\hat y = \arg\max_j \hat p_j(x)`
  (ties to the lowest label): the expected error rate :math:`L_e`;
* ``"log"``: :math:`-\sum_j p_j(x) \ln \hat p_j(x)`, the expected log loss, with
  :math:`\hat p` clipped to ``[1e-15, 1]`` so an impossible class costs
  ``34.5`` nats rather than infinity;
* ``"lc"``: least confidence :math:`1 - \max_j \hat p_j(x)`, the classifier's
  *own* expected error (the rows are ignored): Roy & McCallum's surrogate for
  the error rate in EfeLc (Eq. ``efelc``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from mri_theory import _validation as check
from mri_theory.problems import Problem, check_problem

__all__ = ["LOSSES", "Population", "pointwise_loss", "argmax_last", "pointwise_loss_from_scores", "check_loss",
           "check_labels", "check_population", "qmc_uniforms"]

#: The supported losses.
LOSSES: tuple[str, ...] = ("error", "log", "lc")

#: Smallest probability used in the log loss.
LOG_LOSS_FLOOR = 1e-15

_ROW_TOLERANCE = 1e-9

#: Bits of the scrambled Sobol' points of QMC populations: each coordinate is
#: an integer multiple of ``2**-_SOBOL_BITS`` before the half-cell shift.
_SOBOL_BITS = 30


def check_loss(loss: Any) -> str:
    """Validate a loss name."""
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {', '.join(LOSSES)}, got {loss!r}")
    return loss


def argmax_last(values: np.ndarray) -> np.ndarray:
    """``argmax`` over the (short) last axis, ties to the lowest index, looping over classes.

    Same result as ``np.argmax(values, axis=-1)``, much faster for a handful of
    classes and many rows.
    """
    best = values[..., 0]
    index = np.zeros(best.shape, dtype=np.intp)
    for j in range(1, values.shape[-1]):
        better = values[..., j] > best
        best = np.where(better, values[..., j], best)
        index[better] = j
    return index


def pointwise_loss(rows: np.ndarray, proba: np.ndarray, loss: str) -> np.ndarray:
    """Per-point expected loss of predictions ``proba`` under label rows ``rows``.

    Parameters
    ----------
    rows : ndarray (n, k)
        Label distribution of each point.
    proba : ndarray (n, k) or (n, ..., k)
        A classifier's class probabilities; middle axes (e.g. one per
        retrained model) broadcast against ``rows``.
    loss : {"error", "log"}

    Returns
    -------
    ndarray (n,) or (n, ...)
    """
    if rows.ndim != 2 or proba.ndim < 2 or proba.shape[0] != rows.shape[0] or proba.shape[-1] != rows.shape[1]:
        raise ValueError(f"proba must have shape (n, ..., k) = ({rows.shape[0]}, ..., {rows.shape[-1]}) to match "
                         f"rows of shape (n, k) = {rows.shape}, got {proba.shape}")
    check_loss(loss)
    n, k = rows.shape
    rows = rows.reshape((n,) + (1,) * (proba.ndim - 2) + (k,))
    if loss == "lc":
        top = proba[..., 0]
        for j in range(1, k):
            top = np.maximum(top, proba[..., j])
        return 1.0 - top
    if loss == "error":
        predicted = argmax_last(proba)
        kept = np.zeros(predicted.shape)
        for j in range(k):
            kept = np.where(predicted == j, rows[..., j], kept)
        return 1.0 - kept
    out = np.zeros(proba.shape[:-1])
    for j in range(k):
        out -= rows[..., j] * np.log(np.clip(proba[..., j], LOG_LOSS_FLOOR, 1.0))
    return out


def pointwise_loss_from_scores(rows: np.ndarray, scores: np.ndarray, loss: str,
                               log_odds: bool = False) -> np.ndarray:
    r"""Per-point loss of many models from class scores (log-probabilities up to a per-point constant).

    The fast paths of generative classifiers score many retrained models at
    once with the *points on the last axis* (contiguous, so every pass is
    fast): ``scores`` has shape ``(..., k, n)``, or with ``log_odds=True``
    (two classes) it is :math:`s_1 - s_0` of shape ``(..., n)``.  ``-inf`` marks a
    class that cannot occur.  Agrees with :func:`pointwise_loss` of
    ``softmax(scores)`` up to rounding (the error loss compares scores, which
    is the same argmax, ties to the lowest label).

    Returns
    -------
    ndarray (..., n)
    """
    k = rows.shape[1]
    r = np.ascontiguousarray(rows.T)  # (k, n): contiguous, so broadcasting over models is fast
    cap = -np.log(LOG_LOSS_FLOOR)
    if log_odds:
        if loss == "lc":
            return special.expit(-np.abs(scores))
        if loss == "error":  # predicting class 1 errs with probability r_0, class 0 with r_1
            return np.where(scores > 0, r[0], r[1])
        with np.errstate(invalid="ignore"):
            return (r[0] * np.minimum(np.logaddexp(0.0, scores), cap)
                    + r[1] * np.minimum(np.logaddexp(0.0, -scores), cap))
    top = scores[..., 0, :]
    for j in range(1, k):
        top = np.maximum(top, scores[..., j, :])
    if loss == "lc":
        total = np.zeros(top.shape)
        for j in range(k):
            total += np.exp(scores[..., j, :] - top)
        return 1.0 - 1.0 / total
    if loss == "error":
        kept = np.zeros(top.shape)
        claimed = np.zeros(top.shape, dtype=bool)
        for j in range(k):
            first = (scores[..., j, :] == top) & ~claimed  # the lowest label among the maxima
            kept = np.where(first, r[j], kept)
            claimed |= first
        return 1.0 - kept
    total = np.zeros(top.shape)
    for j in range(k):
        total += np.exp(scores[..., j, :] - top)
    log_norm = top + np.log(total)
    out = np.zeros(top.shape)
    for j in range(k):
        with np.errstate(invalid="ignore"):
            out += r[j] * np.minimum(log_norm - scores[..., j, :], cap)
    return out


class Population:
    r"""A weighted evaluation set with a class-probability row per point.

    Parameters
    ----------
    X : array_like (n, d)
        Points (a 1-D array is read as ``n`` points in one dimension).
    proba : array_like (n, k)
        Label distribution of each point: non-negative rows summing to 1
        (to ``1e-9``; they are renormalised exactly).
    weights : array_like (n,), optional
        Non-negative weights, not all zero (default uniform).  Losses are the
        weighted *mean*, so the weights need not sum to 1.
    """

    def __init__(self, X: ArrayLike, proba: ArrayLike, weights: ArrayLike | None = None) -> None:
        X = check.finite_array(X, "X").copy()  # a copy: the caller's array is not made read-only
        if X.ndim == 1:
            X = X[:, None]
        if X.ndim != 2 or X.shape[0] < 1:
            raise ValueError(f"X must have shape (n, d) with n >= 1, got {X.shape}")
        rows = check.finite_array(proba, "proba")
        if rows.ndim != 2 or rows.shape[0] != X.shape[0] or rows.shape[1] < 2:
            raise ValueError(f"proba must have shape (n, k) = ({X.shape[0]}, k >= 2), got {rows.shape}")
        if np.any(rows < 0) or np.any(np.abs(rows.sum(axis=1) - 1) > _ROW_TOLERANCE):
            raise ValueError("proba rows must be non-negative and sum to 1")
        if weights is None:
            w = np.full(X.shape[0], 1.0 / X.shape[0])
        else:
            w = check.finite_array(weights, "weights")
            if w.shape != (X.shape[0],):
                raise ValueError(f"weights must have shape ({X.shape[0]},), got {w.shape}")
            if np.any(w < 0) or w.sum() <= 0:
                raise ValueError("weights must be non-negative and not all zero")
            w = w / w.sum()
        self.X = X
        self.proba = rows / rows.sum(axis=1, keepdims=True)
        self.weights = w
        for arr in (self.X, self.proba, self.weights):
            arr.setflags(write=False)

    # ------------------------------------------------------------ constructors

    @classmethod
    def from_problem(
        cls, problem: "Problem", size: int, rng: np.random.Generator, method: str = "sample"
    ) -> "Population":
        """A population of ``size`` points with the problem's exact Bayes posteriors as rows.

        Parameters
        ----------
        problem : Problem
            A problem object (:func:`mri_theory.problems.get_problem` turns a
            name into one).
        size : int
            Number of points, ``>= 1``.
        rng : numpy.random.Generator
        method : {"sample", "qmc"}
            ``"sample"``: i.i.d. draws from the problem.  ``"qmc"``: a scrambled
            Sobol' sequence strictly inside the unit cube (:func:`qmc_uniforms`) pushed through the
            problem's sampler, :meth:`Problem.sample_from_uniform` (lower
            variance for smooth losses).
        """
        problem = check_problem(problem)
        size = check.count(size, "size")
        rng = check.generator(rng)
        if method not in ("sample", "qmc"):
            raise ValueError(f"method must be 'sample' or 'qmc', got {method!r}")
        if method == "sample":
            X, _ = problem.sample(size, rng)
        else:
            X = _qmc_points(problem, size, rng)
        return cls(X, problem.posterior(X))

    @classmethod
    def from_labels(cls, X: ArrayLike, y: ArrayLike, n_classes: int) -> "Population":
        """Labelled data as a population: one-hot rows, uniform weights (the empirical loss)."""
        n_classes = check.count(n_classes, "n_classes", minimum=2)
        y = check_labels(y, n_classes, "y")
        X = check.finite_array(X, "X")
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"X and y must have the same length, got {X.shape[0]} and {y.shape[0]}")
        return cls(X, np.eye(n_classes)[y])

    # ------------------------------------------------------------ properties

    @property
    def size(self) -> int:
        """Number of points."""
        return self.X.shape[0]

    @property
    def n_classes(self) -> int:
        """Number of classes ``k``."""
        return self.proba.shape[1]

    @property
    def dim(self) -> int:
        """Dimension of the points."""
        return self.X.shape[1]

    def __repr__(self) -> str:
        return f"Population(size={self.size}, dim={self.dim}, n_classes={self.n_classes})"

    # ------------------------------------------------------------ losses

    def mean(self, values: np.ndarray) -> np.ndarray:
        """Weighted mean over the first axis (the points) of ``values`` of shape ``(size, ...)``."""
        values = np.asarray(values)
        if values.ndim < 1 or values.shape[0] != self.size:
            raise ValueError(f"values must have one entry per point on the first axis ({self.size}), "
                             f"got shape {values.shape}")
        return np.tensordot(self.weights, values, axes=(0, 0))

    def losses_of(self, proba_hat: ArrayLike, loss: str = "error") -> np.ndarray:
        """Weighted mean loss of class probabilities ``proba_hat`` of shape ``(n, ..., k)``.

        Raises ``ValueError`` unless ``proba_hat`` has one row per point
        (``n = size``) and one column per class of the population (``k = n_classes``).
        """
        loss = check_loss(loss)
        proba_hat = check.finite_array(proba_hat, "proba_hat")
        if proba_hat.ndim < 2 or proba_hat.shape[0] != self.size or proba_hat.shape[-1] != self.n_classes:
            raise ValueError(f"proba_hat must have shape ({self.size}, ..., {self.n_classes}): one row per point "
                             f"and one column per class of the population, got shape {proba_hat.shape}")
        return self.mean(pointwise_loss(self.proba, proba_hat, loss))

    def _predict(self, classifier: Any) -> np.ndarray:
        """``classifier.predict_proba(X)``, refusing a classifier of another class count or dimension."""
        if not callable(getattr(classifier, "predict_proba", None)):
            raise TypeError(f"classifier must be a fitted classifier with predict_proba, "
                            f"got {type(classifier).__name__}")
        k = getattr(classifier, "n_classes_", None)
        if k is not None and k != self.n_classes:
            raise ValueError(f"classifier has {k} classes (n_classes_) but the population has "
                             f"{self.n_classes}: fit it with n_classes={self.n_classes}")
        d = getattr(classifier, "dim_", None)
        if d is not None and d != self.dim:
            raise ValueError(f"classifier was fitted on {d}-D points but the population is {self.dim}-D")
        proba = np.asarray(classifier.predict_proba(self.X))
        if proba.shape != (self.size, self.n_classes):
            raise ValueError(f"classifier's predict_proba gave shape {proba.shape}, but the population needs "
                             f"({self.size}, {self.n_classes}) (n_classes={self.n_classes})")
        return proba

    def loss(self, classifier: Any, loss: str = "error") -> float:
        """The fitted ``classifier``'s expected loss on the population.

        Raises ``ValueError`` if the classifier was fitted with a number of
        classes (or a dimension) other than the population's.
        """
        loss = check_loss(loss)
        return float(self.losses_of(self._predict(classifier), loss))

    def error_rate(self, classifier: Any) -> float:
        """Expected error rate of a fitted classifier."""
        return self.loss(classifier, "error")

    def log_loss(self, classifier: Any) -> float:
        """Expected log loss (nats) of a fitted classifier."""
        return self.loss(classifier, "log")

    def standard_error(self, classifier: Any, loss: str = "error") -> float:
        r"""Standard error of :meth:`loss` as an estimate of the loss over the whole distribution.

        :math:`\sqrt{\sum_i w_i^2 (\ell_i - \bar\ell)^2}` for normalised
        weights, the i.i.d. formula (exact for ``"sample"`` populations;
        conservative for QMC and meaningless for deterministic quadrature).
        """
        loss = check_loss(loss)
        values = pointwise_loss(self.proba, self._predict(classifier), loss)
        centred = values - self.mean(values)
        return float(np.sqrt(np.sum(self.weights**2 * centred**2)))


def check_population(population: Any, name: str = "population") -> Population:
    """Require a :class:`Population` (e.g. ``Population.from_problem(problem, size, rng)``)."""
    if not isinstance(population, Population):
        raise TypeError(f"{name} must be a Population (e.g. Population.from_problem(problem, size, rng)), "
                        f"got {type(population).__name__}")
    return population


def check_labels(y: ArrayLike, n_classes: int | None, name: str = "y") -> np.ndarray:
    """Labels as a 1-D int array with values in ``0..n_classes-1`` (any ``>= 0`` if ``n_classes`` is None).

    Booleans, text and complex numbers are refused (``TypeError``), as are
    non-integer values (``ValueError``).
    """
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of labels, got shape {arr.shape}")
    if arr.size and (arr.dtype == bool or np.iscomplexobj(arr) or not np.issubdtype(arr.dtype, np.number)):
        raise TypeError(f"{name} must hold integer labels, got dtype {arr.dtype}")
    if arr.size and (not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr))):
        raise ValueError(f"{name} must hold integer labels, got {arr!r}")
    out = arr.astype(int)
    if out.size and out.min() < 0:
        raise ValueError(f"{name} must hold labels >= 0, got values {np.unique(out).tolist()}")
    if out.size and n_classes is not None and out.max() >= n_classes:
        raise ValueError(f"{name} must hold labels in 0..{n_classes - 1}, got values {np.unique(out).tolist()}")
    return out


def qmc_uniforms(dim: int, size: int, rng: np.random.Generator) -> np.ndarray:
    r"""The first ``size`` points of a scrambled Sobol' sequence, strictly inside :math:`(0, 1)^{dim}`.

    scipy's :class:`~scipy.stats.qmc.Sobol` with ``bits = 30`` returns integer
    multiples of :math:`2^{-30}`, so an exact ``0`` occurs (about once per
    :math:`2^{30}` coordinates).  Each point is moved to the centre of its
    dyadic cell, :math:`u + 2^{-31}`, which lies in
    :math:`[2^{-31}, 1 - 2^{-31}]` and is exact in floating point; the points
    keep their equidistribution (every elementary interval is preserved).
    """
    from scipy.stats import qmc

    sampler = qmc.Sobol(d=dim, scramble=True, bits=_SOBOL_BITS, seed=rng)
    m = int(np.ceil(np.log2(size)))
    return sampler.random_base2(m)[:size] + 2.0 ** -(_SOBOL_BITS + 1)


def _qmc_points(problem: "Problem", size: int, rng: np.random.Generator) -> np.ndarray:
    return problem.sample_from_uniform(qmc_uniforms(problem.uniform_dim, size, rng))
