r"""The range of data the logistic regression and the SVM accept (shared by both).

Both work on coordinate *differences* (the SVM's squared distances, the
logistic regression's frame :math:`z = (x - o)/s` of
``mri_theory.classifiers.gaussian.reference_frame``), so a shift of the
data changes nothing and a change of scale is exact in the frame.  What double
precision cannot hold is a square of a difference beyond ``1.8e308``: with
coordinates of magnitude up to :data:`MAX_MAGNITUDE` (``1e150``) every
difference is at most ``2e150`` and its square ``4e300``, so squared distances
stay finite for any dimension below ``4e7``, and the logistic regression's
weights in data units (frame weights divided by ``s <= 2e150``) stay normal
numbers.  Larger coordinates are refused with a ``ValueError`` naming the
argument, before any work.
"""

from __future__ import annotations

import numpy as np

#: Largest accepted magnitude of a coordinate (training points, candidates, population, prediction points).
MAX_MAGNITUDE = 1e150


def check_magnitude(X: np.ndarray, name: str) -> np.ndarray:
    """Refuse a validated (finite, float) array with an entry beyond :data:`MAX_MAGNITUDE` in magnitude."""
    if X.size and np.max(np.abs(X)) > MAX_MAGNITUDE:
        raise ValueError(f"{name} has coordinates of magnitude up to {np.max(np.abs(X)):.3g}, beyond "
                         f"{MAX_MAGNITUDE:.0e} (squared distances would overflow double precision); rescale the data")
    return X
