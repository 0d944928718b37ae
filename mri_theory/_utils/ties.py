"""Near-ties: one definition of "as good as the best" for every choice the toolkit makes.

The engine's fast paths and a refit sum the same loss changes in different
orders, and SIMD code paths differ between CPUs, so candidates whose scores are
equal in exact arithmetic (often exactly 0: a candidate that changes no
population point) come out :math:`\\pm 10^{-16}` apart.  A choice (an argmax)
must not depend on such last bits, so every argmax in the toolkit treats scores
within :data:`TIE_TOLERANCE` (relative) of the maximum as tied and breaks the
tie with an explicit generator.
"""

from __future__ import annotations

import numpy as np

from mri_theory._utils import validation as check

__all__ = ["TIE_TOLERANCE", "near_maximum", "tie_classes"]

#: Relative tolerance of a tie: values within ``TIE_TOLERANCE * max(1, |max|)``
#: of the maximum are tied.  Rounding errors of the engine are of order 1e-16;
#: genuine differences between candidates are far larger than 1e-12.
TIE_TOLERANCE = 1e-12


def near_maximum(values: np.ndarray, tie_tol: float | None = None) -> np.ndarray:
    """Mask of the entries tied with the maximum of their row (last axis).

    Parameters
    ----------
    values : ndarray (..., m)
        Scores, ``m >= 1``: real, no NaN (``-inf`` marks an excluded entry).
    tie_tol : float, optional
        Absolute tolerance, finite and ``>= 0``; default ``TIE_TOLERANCE * max(1, |row max|)``.

    Returns
    -------
    ndarray of bool, same shape as ``values``

    Raises
    ------
    TypeError
        ``values`` not real numbers, or ``tie_tol`` not a number.
    ValueError
        ``values`` a scalar, an empty last axis or a NaN; ``tie_tol`` negative or not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.strategies import near_maximum
    >>> near_maximum(np.array([0.3, 0.5, 0.5 - 1e-15, 0.1])).tolist()  # a difference of rounding is a tie
    [False, True, True, False]
    """
    values = check.real_array(values, "values")
    if values.ndim == 0 or values.shape[-1] == 0:
        raise ValueError(f"values must have at least one entry on its last axis, got shape {values.shape}")
    if np.isnan(values).any():
        raise ValueError("values must not hold NaN (a score that cannot be compared)")
    top = np.max(values, axis=-1, keepdims=True)
    if tie_tol is None:
        tol = TIE_TOLERANCE * np.maximum(1.0, np.abs(top))
    else:
        tol = check.finite_scalar(tie_tol, "tie_tol")
        if tol < 0:
            raise ValueError(f"tie_tol must be >= 0, got {tol}")
    return values >= top - tol


def tie_classes(values: np.ndarray) -> np.ndarray:
    """Dense ranks (0, 1, ...) of 1-D ``values``, near-equal values in one class.

    Sorted values closer than ``TIE_TOLERANCE * max(1, max|values|)`` to their
    neighbour share a class (chained), so rank statistics never separate
    values that differ only by rounding.
    """
    order = np.argsort(values, kind="stable")
    tol = TIE_TOLERANCE * max(1.0, float(np.max(np.abs(values))))
    ranks = np.empty(values.size, dtype=np.int64)
    ranks[order] = np.cumsum(np.concatenate([[0], np.diff(values[order]) > tol]))
    return ranks
