r"""Covariate scaling before distances are taken (shared by k-NN and the SVM): the ``scale`` option.

R's kknn (``scale=TRUE``, its default) and e1071's ``svm`` (``scale=TRUE``) divide each covariate by its
standard deviation on the training set (R's ``scale``, ``sd`` with ``ddof=1``) and scale query points with the
same divisors (Appendix C, ``mri-paper.tex`` lines 1401-1402 for kknn; lines 1407-1409 name e1071's SVM, whose
default ``scale=TRUE`` is e1071's documented behaviour, not the paper's text).  Both classifiers take ``scale``:
``None`` (no scaling), ``"train"`` (each fit divides by its own training set's standard deviations, a covariate
constant on the training set left unscaled) or a fixed tuple of positive per-covariate divisors.  A fixed tuple
is one linear map of the coordinates, so every fast path stays exact on the divided coordinates; ``"train"``
moves every divisor, hence every distance, whenever a point is added, so a retrained model is a refit.

e1071 centres the covariates too (R's ``scale``); the distances these classifiers take are differences, so a
shift changes nothing and only the divisors matter.  One difference: where a covariate is constant on the
training set, e1071 scales no covariate at all (with a warning); here only that covariate is left undivided.
"""

from __future__ import annotations

import numpy as np

from mri_theory._utils import validation as check

__all__ = ["check_scale", "divisors"]


def check_scale(scale: object) -> None | str | tuple[float, ...]:
    """``None``, ``"train"`` or a tuple of positive per-covariate scales (ValueError/TypeError naming ``scale``)."""
    if scale is None or (isinstance(scale, str) and scale == "train"):
        return scale
    if isinstance(scale, str):
        raise ValueError(f"scale must be None, 'train' or an array of positive per-covariate scales, got {scale!r}")
    values = check.finite_array(scale, "scale")
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"scale must be a 1-D array of per-covariate scales, got shape {values.shape}")
    if np.any(values <= 0):
        raise ValueError(f"scale entries must be > 0, got {values.tolist()}")
    if np.any(values < np.finfo(float).tiny):  # subnormal: 1 / scale overflows, the points become inf
        raise ValueError(f"scale entries must be at least {np.finfo(float).tiny:g} (not subnormal), "
                         f"got {values.tolist()}")
    return tuple(float(v) for v in values)


def divisors(scale: None | str | tuple[float, ...], X: np.ndarray) -> np.ndarray | None:
    """The per-covariate divisors of a checked ``scale`` for training points ``X`` (None: no scaling).

    ``"train"``: the columns' standard deviations (``ddof=1``, R's ``sd``), 1 for a column constant on ``X``
    (or for every column of a single point); a tuple: its entries, which must be one per column of ``X``
    (a ValueError naming ``scale`` otherwise).
    """
    if scale is None:
        return None
    if isinstance(scale, str):  # "train"
        constant = np.ptp(X, axis=0) == 0
        sd = np.std(X, axis=0, ddof=1) if X.shape[0] > 1 else np.ones(X.shape[1])
        return np.where(constant, 1.0, sd)
    if len(scale) != X.shape[1]:
        raise ValueError(f"scale has {len(scale)} entries but the training points have {X.shape[1]} "
                         "columns: give one scale per covariate")
    return np.asarray(scale)
