"""The metrics of §5.3 on arrays of learning curves, unchecked (shared by metrics and _pairings).

Every function takes the numbers of labelled examples ``n`` (shape (N,),
checked by the caller: whole, strictly increasing, at least 2) and losses
whose last axis runs over those N points, and returns one value per curve
(the last axis reduced).  The one-curve functions of
:mod:`mri_theory.evaluation.metrics` check their arguments and call these;
:mod:`mri_theory.evaluation._pairings` calls them on whole stacks of curves
(strategies x replicates, or bootstrap draws x strategies).
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import trapezoid

from mri_theory._utils.ties import TIE_TOLERANCE

#: Weightings accepted by :func:`mri_theory.evaluation.metrics.wi`.
WEIGHTINGS = ("exponential", "linear")


def aua(n: np.ndarray, loss: np.ndarray) -> np.ndarray:
    """Mean accuracy ``1 - loss`` along the curve (trapezoid rule over ``n``, divided by its width)."""
    return trapezoid(1.0 - loss, n, axis=-1) / (n[-1] - n[0])


def mean_loss(n: np.ndarray, loss: np.ndarray) -> np.ndarray:
    """Mean loss along the curve (trapezoid rule over ``n``, divided by its width)."""
    return trapezoid(loss, n, axis=-1) / (n[-1] - n[0])


def area(n: np.ndarray, loss: np.ndarray, kind: str) -> dict[str, np.ndarray]:
    """The area metric of curves of the loss kind ``kind``: ``aua`` for error rates, ``mean_loss`` for log."""
    return {"aua": aua(n, loss)} if kind == "error" else {"mean_loss": mean_loss(n, loss)}


def alc(n: np.ndarray, loss: np.ndarray) -> np.ndarray:
    """ALC over ``log2 n``; NaN where the initial loss is 0 (a perfect start: the normalisation is 0/0)."""
    x = np.log2(n)
    gain = trapezoid(loss[..., :1] - loss, x, axis=-1)  # area of (accuracy - initial accuracy)
    room = loss[..., 0] * (x[-1] - x[0])  # the same area for a perfect curve
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(room > 0, gain / np.where(room > 0, room, 1.0), np.nan)


def wi_weights(n: np.ndarray, weighting: str, alpha: float) -> np.ndarray:
    """The WI weight of each curve point: ``exp(-alpha (n - n_0))`` or ``(N - 1 - i) / (N - 1)``."""
    if weighting == "exponential":
        with np.errstate(over="ignore"):  # a huge alpha: alpha * (n - n0) is inf, its weight exactly 0
            return np.exp(-alpha * (n - n[0]))
    last = n.size - 1
    return (last - np.arange(n.size)) / last


def wi(n: np.ndarray, loss: np.ndarray, loss_rs: np.ndarray, weighting: str, alpha: float) -> np.ndarray:
    """Weighted mean of ``loss_rs - loss`` with the weights :func:`wi_weights`."""
    w = wi_weights(n, weighting, alpha)
    return np.sum(w * (loss_rs - loss), axis=-1) / np.sum(w)


def label_complexity(n: np.ndarray, loss: np.ndarray,
                     target: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First ``n`` with ``loss <= target`` (within :data:`TIE_TOLERANCE`), else ``n_max + 1``; and the
    censored flags."""
    target = np.asarray(target, dtype=float)[..., None]
    reached = loss <= target + TIE_TOLERANCE * np.maximum(1.0, np.abs(target))
    censored = ~reached.any(axis=-1)
    value = np.where(censored, n[-1] + 1, n[np.argmax(reached, axis=-1)])
    return value.astype(float), censored
