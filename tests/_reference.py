"""Independent reference computations shared by several test modules."""

from __future__ import annotations

import numpy as np


def hand_loss(pop, proba, loss):
    """Weighted mean loss of probabilities ``proba`` on a population, written out from the definitions."""
    if loss == "error":
        values = 1.0 - pop.proba[np.arange(pop.size), np.argmax(proba, axis=1)]
    else:
        values = -np.sum(pop.proba * np.log(np.maximum(proba, 1e-15)), axis=1)
    return float(np.sum(pop.weights * values) / np.sum(pop.weights))
