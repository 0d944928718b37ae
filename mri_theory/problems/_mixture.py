"""Checks of Gaussian-mixture parameters, shared by :mod:`mri_theory.problems` and
:mod:`mri_theory.problems.bayes_error`.

One class's components are ``(weights, means, covariances)`` of shapes ``(m,)``, ``(m, d)`` and
``(m, d, d)``; :func:`class_components` validates them the same way wherever they come in, so
:class:`mri_theory.problems.GaussianMixtureProblem` and
:func:`mri_theory.problems.bayes_error.mixture_bayes_error` accept and refuse the same mixtures.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mri_theory._utils import validation as check

#: Inputs larger than this in absolute value are refused: squared Mahalanobis
#: distances of larger inputs could overflow to ``inf`` and the posterior would
#: become ``nan``.
MAX_ABS_X = 1e100

#: The smallest eigenvalue of a component's covariance: with inputs and means up to :data:`MAX_ABS_X`
#: the whitened differences stay below ``2e100 / 1e-50 = 2e150``, whose squares (summed over ``d``)
#: are finite, so every log density is finite.
MIN_VARIANCE = 1e-100


def class_components(weights: Any, means: Any, covariances: Any, dim: int | None,
                     names: tuple[str, str, str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One class's checked ``(weights / weights.sum(), means, covariances)``, fresh arrays.

    Parameters
    ----------
    weights, means, covariances : array_like
        Shapes ``(m,)`` (positive, summing to 1 within ``1e-9``), ``(m, d)`` (entries at most
        :data:`MAX_ABS_X` in absolute value) and ``(m, d, d)`` (symmetric positive definite,
        eigenvalues at least :data:`MIN_VARIANCE`).
    dim : int or None
        The dimension ``d`` the means must have (the other classes'), or None to take it from them.
    names : (str, str, str)
        How the messages name the weights, means and covariances.

    Raises
    ------
    ValueError
        Naming the argument that breaks a condition above (or is not finite).
    """
    w_name, m_name, c_name = names
    weights = check.finite_array(weights, w_name)
    means = check.finite_array(means, m_name)
    covs = check.finite_array(covariances, c_name)
    if weights.ndim != 1 or weights.size == 0:
        raise ValueError(f"{w_name} must be a non-empty 1-D vector, got shape {weights.shape}")
    m = weights.size
    if np.any(weights <= 0) or abs(weights.sum() - 1.0) > 1e-9:
        raise ValueError(f"{w_name} must be positive and sum to 1, got {weights.tolist()}")
    if means.ndim != 2 or means.shape[0] != m:
        raise ValueError(f"{m_name} must have shape ({m}, d), got {means.shape}")
    d = means.shape[1] if dim is None else dim
    if means.shape[1] != d:
        raise ValueError(f"{m_name} must have dimension {d} like the other classes, got {means.shape[1]}")
    if covs.shape != (m, d, d):
        raise ValueError(f"{c_name} must have shape ({m}, {d}, {d}), got {covs.shape}")
    if not np.allclose(covs, np.swapaxes(covs, 1, 2), rtol=1e-12, atol=1e-14):
        raise ValueError(f"{c_name} must be symmetric")
    if np.any(np.abs(means) > MAX_ABS_X):
        raise ValueError(f"{m_name} must be at most {MAX_ABS_X:g} in absolute value, like the inputs")
    eigenvalues = np.linalg.eigvalsh(covs)
    if np.any(eigenvalues <= 0):
        raise ValueError(f"{c_name} must be positive definite")
    if np.any(eigenvalues < MIN_VARIANCE):
        raise ValueError(f"{c_name} must have eigenvalues >= {MIN_VARIANCE:g} (below, the Mahalanobis "
                         f"distances of inputs up to {MAX_ABS_X:g} overflow and the posterior is wrong), got "
                         f"{eigenvalues.min():g}")
    return weights / weights.sum(), means.copy(), covs.copy()
