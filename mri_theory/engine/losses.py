r"""Pointwise loss kernels: the losses of §2 (Eq. ``L_e`` and the log loss) per evaluation point.

A classifier's loss on an evaluation set (:class:`mri_theory.engine.population.Population`)
is the weighted mean of these per-point *expected* losses, each point's label
distributed as its row :math:`\mathbf p(x)`.  For predicted probabilities
:math:`\hat{\mathbf p}(x)`:

* ``"error"``: :math:`1 - p_{\hat y}(x)` with :math:`\hat y = \arg\max_j \hat p_j(x)`
  (:func:`predicted_class`: classes within :data:`~mri_theory._utils.ties.TIE_TOLERANCE`
  of the largest probability are tied, and the lowest of them is predicted):
  the expected error rate :math:`L_e`;
* ``"log"``: :math:`-\sum_j p_j(x) \ln \hat p_j(x)`, the expected log loss, with
  :math:`\hat p` clipped to ``[1e-15, 1]`` (:data:`LOG_LOSS_FLOOR`) so an
  impossible class costs ``34.5`` nats rather than infinity;
* ``"lc"``: least confidence :math:`1 - \max_j \hat p_j(x)`, the classifier's
  *own* expected error (the rows are ignored): Roy & McCallum's surrogate for
  the error rate in EfeLc (Eq. ``efelc``).

:func:`pointwise_loss` scores class probabilities; the fast retraining paths
of the generative and kernel classifiers score many retrained models at once
from class scores with :func:`pointwise_loss_from_scores`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from mri_theory._utils.ties import TIE_TOLERANCE
from mri_theory._utils.validation import finite_array, finite_scalar

__all__ = ["LOSSES", "LOG_LOSS_FLOOR", "TIE_LOG_ODDS", "check_floor", "check_loss", "predicted_class",
           "pointwise_loss", "pointwise_loss_from_scores"]

#: The supported losses.
LOSSES: tuple[str, ...] = ("error", "log", "lc")

#: Smallest probability used in the log loss.
LOG_LOSS_FLOOR = 1e-15

#: Two classes are tied when their probabilities differ by at most ``TIE_TOLERANCE``; with log-odds
#: :math:`s = \ln(p_1 / p_0)`, :math:`p_1 - p_0 = \tanh(s / 2)`, so class 1 is predicted iff ``s > TIE_LOG_ODDS``.
TIE_LOG_ODDS = 2.0 * float(np.arctanh(TIE_TOLERANCE))


def check_floor(floor: Any) -> float:
    r"""The cap :math:`-\ln` ``floor`` of a floored log loss (``inf`` for ``None``: no floor).

    Parameters
    ----------
    floor : float or None
        The probability floor, in ``(0, 1)``.

    Returns
    -------
    float
        :math:`-\ln` ``floor``.

    Examples
    --------
    >>> from mri_theory.engine.losses import LOG_LOSS_FLOOR, check_floor
    >>> round(check_floor(LOG_LOSS_FLOOR), 4)
    34.5388
    """
    if floor is None:
        return math.inf
    value = finite_scalar(floor, "floor")
    if not 0.0 < value < 1.0:
        raise ValueError(f"floor must lie in (0, 1), got {floor!r}")
    return -math.log(value)


def check_loss(loss: Any) -> str:
    """Validate a loss name.

    Parameters
    ----------
    loss : object
        The loss name to check.

    Returns
    -------
    str
        ``loss``, one of :data:`LOSSES`.

    See Also
    --------
    mri_theory.engine.pointwise_loss : The losses it names.

    Examples
    --------
    >>> from mri_theory.engine import check_loss
    >>> check_loss("log")
    'log'
    >>> try:
    ...     check_loss("hinge")
    ... except ValueError as error:
    ...     print("ValueError:", error)
    ValueError: loss must be one of error, log, lc, got 'hinge'
    """
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {', '.join(LOSSES)}, got {loss!r}")
    return loss


def predicted_class(proba: np.ndarray) -> np.ndarray:
    """The predicted class of each row of class probabilities ``(..., k)``: the lowest of the near-maxima.

    Probabilities within :data:`~mri_theory._utils.ties.TIE_TOLERANCE` (times
    ``max(1, max p)``) of the largest are tied
    (:func:`mri_theory._utils.ties.near_maximum`'s rule) and the lowest label among
    them is predicted.  A refit and a fast path compute the same model's
    probabilities with different roundings; classes tied in exact arithmetic
    (symmetric data: two classes with one point each at the same place) must
    not be told apart by the last bit, or the error loss of the two would
    differ by a whole point's weight.  Loops over the (short) class axis: much
    faster than ``np.argmax`` for a handful of classes and many rows.

    Parameters
    ----------
    proba : ndarray of shape (..., k)
        Class probabilities.

    Returns
    -------
    ndarray of shape (...)
        The predicted class of each row.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.engine import predicted_class
    >>> predicted_class(np.array([[0.2, 0.8], [0.5, 0.5], [0.5 + 1e-17, 0.5]])).tolist()  # ties: the lowest class
    [1, 0, 0]
    """
    k = proba.shape[-1]
    floor = _tie_floor(proba)
    index = np.full(floor.shape, k - 1, dtype=np.intp)
    for j in range(k - 2, -1, -1):
        index = np.where(proba[..., j] >= floor, j, index)
    return index


def _class_max(values: np.ndarray) -> np.ndarray:
    """The maximum over the (short) last axis, looping over classes: faster than ``np.max`` for a few classes."""
    top = values[..., 0]
    for j in range(1, values.shape[-1]):
        top = np.maximum(top, values[..., j])
    return top


def _tie_floor(proba: np.ndarray) -> np.ndarray:
    """The value at or above which a class ties with the most probable one (:func:`predicted_class`)."""
    top = _class_max(proba)
    return top - TIE_TOLERANCE * np.maximum(1.0, np.abs(top))


def pointwise_loss(rows: ArrayLike, proba: ArrayLike, loss: str, *, check_input: bool = True) -> np.ndarray:
    """Per-point expected loss of predictions ``proba`` under label rows ``rows``.

    Parameters
    ----------
    rows : array-like (n, k)
        Label distribution of each point: entries in [0, 1], each row summing to 1.
    proba : array-like (n, k) or (n, ..., k)
        A classifier's class probabilities, entries in [0, 1]; middle axes (e.g. one per
        retrained model) broadcast against ``rows``.
    loss : {"error", "log", "lc"}
    check_input : bool, default True
        Validate ``rows`` and ``proba`` (real, finite, in [0, 1] to rounding (1e-12), matching shapes).
        The engine's own callers, whose arrays are valid by construction, pass False in their inner
        loops (as scikit-learn's ``check_input``).

    Returns
    -------
    ndarray (n,) or (n, ...)

    Raises
    ------
    TypeError
        ``rows`` or ``proba`` not real numbers.
    ValueError
        Non-finite entries, entries outside [0, 1], label rows not summing to 1, or shapes that do not match.

    See Also
    --------
    mri_theory.engine.pointwise_loss_from_scores : The same from log-probability scores.
    mri_theory.engine.predicted_class : The class the error loss counts as predicted.

    Examples
    --------
    The expected loss at each point when its label has the probabilities of its row:

    >>> import numpy as np
    >>> from mri_theory.engine import pointwise_loss
    >>> rows, proba = np.array([[0.9, 0.1], [0.2, 0.8]]), np.array([[0.6, 0.4], [0.6, 0.4]])
    >>> pointwise_loss(rows, proba, "error").round(12).tolist()  # predicts class 0 at both
    [0.1, 0.8]
    >>> bool(np.allclose(pointwise_loss(rows, proba, "log"), -(rows * np.log(proba)).sum(axis=1)))
    True
    """
    if check_input:
        return _pointwise_loss(*_checked_probabilities(rows, proba), loss)
    return _pointwise_loss(np.asarray(rows), np.asarray(proba), loss)


def _pointwise_loss(rows: np.ndarray, proba: np.ndarray, loss: str) -> np.ndarray:
    """:func:`pointwise_loss` of arrays already checked (or trusted)."""
    if rows.ndim != 2 or proba.ndim < 2 or proba.shape[0] != rows.shape[0] or proba.shape[-1] != rows.shape[1]:
        raise ValueError(f"proba must have shape (n, ..., k) = ({rows.shape[0]}, ..., {rows.shape[-1]}) to match "
                         f"rows of shape (n, k) = {rows.shape}, got {proba.shape}")
    check_loss(loss)
    n, k = rows.shape
    rows = rows.reshape((n,) + (1,) * (proba.ndim - 2) + (k,))
    if loss == "lc":
        return 1.0 - _class_max(proba)
    if loss == "error":  # the label weight of predicted_class's choice, without building the index
        floor = _tie_floor(proba)
        kept = rows[..., k - 1]
        for j in range(k - 2, -1, -1):
            kept = np.where(proba[..., j] >= floor, rows[..., j], kept)
        return 1.0 - kept
    out = np.zeros(proba.shape[:-1])
    for j in range(k):
        out -= rows[..., j] * np.log(np.clip(proba[..., j], LOG_LOSS_FLOOR, 1.0))
    return out


def _checked_probabilities(rows: Any, proba: Any) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` and ``proba`` as finite float arrays of probabilities (the checks of :func:`pointwise_loss`)."""
    rows = finite_array(rows, "rows")
    proba = finite_array(proba, "proba")
    if rows.ndim != 2 or rows.shape[1] < 1:
        raise ValueError(f"rows must have shape (n, k), got {rows.shape}")
    for name, values in (("rows", rows), ("proba", proba)):
        if values.size and (values.min() < -1e-12 or values.max() > 1 + 1e-12):  # rounding of sums allowed
            raise ValueError(f"{name} must hold probabilities in [0, 1], got entries in "
                             f"[{values.min():g}, {values.max():g}]")
    if rows.size and np.abs(rows.sum(axis=1) - 1.0).max() > 1e-9:
        raise ValueError("rows must each sum to 1 (a label distribution per point), got sums in "
                         f"[{rows.sum(axis=1).min():g}, {rows.sum(axis=1).max():g}]")
    return rows, proba


def pointwise_loss_from_scores(rows: np.ndarray, scores: np.ndarray, loss: str,
                               log_odds: bool = False) -> np.ndarray:
    r"""Per-point loss of many models from class scores (log-probabilities up to a per-point constant).

    The fast paths of generative classifiers score many retrained models at
    once with the *points on the last axis* (contiguous, so every pass is
    fast): ``scores`` has shape ``(..., k, n)``, or with ``log_odds=True``
    (two classes) it is :math:`s_1 - s_0` of shape ``(..., n)``.  ``-inf`` marks a
    class that cannot occur.  Agrees with :func:`pointwise_loss` of
    ``softmax(scores)`` up to rounding (the error loss applies
    :func:`predicted_class`'s tie rule to the probabilities the scores define:
    with log-odds, class 1 is predicted iff ``s > TIE_LOG_ODDS``).

    Parameters
    ----------
    rows : ndarray of shape (n, k)
        The true class probabilities at the population's points.
    scores : ndarray of shape (..., k, n), or (..., n) with ``log_odds``
        Class scores (log-probabilities up to a per-point constant), points last.
    loss : {"error", "log", "lc"}
        The loss.
    log_odds : bool, default False
        Whether ``scores`` are the two-class log-odds :math:`s_1 - s_0`.

    Returns
    -------
    ndarray (..., n)

    See Also
    --------
    mri_theory.engine.pointwise_loss : The same from probabilities.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.engine import pointwise_loss, pointwise_loss_from_scores
    >>> rows = np.array([[0.9, 0.1], [0.2, 0.8]])
    >>> scores = np.log(np.array([[0.6, 0.3], [0.4, 0.7]]))  # classes x points (points last)
    >>> by_scores = pointwise_loss_from_scores(rows, scores, "log")
    >>> bool(np.allclose(by_scores, pointwise_loss(rows, np.exp(scores).T, "log")))
    True
    """
    check_loss(loss)
    k = rows.shape[1]
    r = np.ascontiguousarray(rows.T)  # (k, n): contiguous, so broadcasting over models is fast
    cap = -np.log(LOG_LOSS_FLOOR)
    if log_odds:
        if loss == "lc":
            return special.expit(-np.abs(scores))
        if loss == "error":  # predicting class 1 errs with probability r_0, class 0 with r_1
            return np.where(scores > TIE_LOG_ODDS, r[0], r[1])
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
        # Class j ties with the top iff p_j >= p_top - tol, i.e. s_j - top >= ln(1 - tol * total) with
        # total = sum_l e^(s_l - top) in [1, k]: surely if s_j >= top - tol, surely not if s_j < top - 2 k tol
        # (ln(1 - x) > -2x); the exponentials are needed only if some score lies in between.
        tied = [scores[..., j, :] >= top - TIE_TOLERANCE for j in range(k)]
        unsure = np.zeros(top.shape, dtype=bool)
        for j in range(k):
            unsure |= (scores[..., j, :] >= top - 2 * k * TIE_TOLERANCE) & ~tied[j]
        if np.any(unsure):
            shifted = [np.exp(scores[..., j, :] - top) for j in range(k)]
            floor = 1.0 - TIE_TOLERANCE * sum(shifted)
            tied = [e >= floor for e in shifted]
        kept = r[k - 1] * np.ones(top.shape)
        for j in range(k - 2, -1, -1):  # the lowest label among the near-maxima
            kept = np.where(tied[j], r[j], kept)
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
