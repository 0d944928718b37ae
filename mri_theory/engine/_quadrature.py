"""The Gauss-Kronrod 7-15 rule (QUADPACK's qk15) on ``[-1, 1]``, shared by the engine's adaptive quadratures
(:mod:`mri_theory.engine.exact`, :mod:`mri_theory.engine.kernel_rules` and their compiled modules)."""

from __future__ import annotations

import numpy as np

__all__ = ["GAUSS", "KRONROD", "NODES"]

# Kronrod nodes on [0, 1], their weights, and the 7-point Gauss weights of the nodes with odd index (the Gauss
# nodes).
_XK = np.array([0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
                0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
                0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
                0.207784955007898467600689403773245, 0.0])
_WK = np.array([0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
                0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
                0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
                0.204432940075298892414161999234649, 0.209482141084727828012999174891714])
_WG = np.array([0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
                0.381830050505118944950369775488975, 0.417959183673469387755102040816327])
#: The 15 nodes on [-1, 1].
NODES = np.concatenate([-_XK[:-1], _XK[::-1]])
#: Their Kronrod weights.
KRONROD = np.concatenate([_WK[:-1], _WK[::-1]])
#: The 7-point Gauss weights at the nodes with odd index (0 at the others).
GAUSS = np.zeros(15)
GAUSS[[1, 3, 5, 7, 9, 11, 13]] = np.concatenate([_WG, _WG[-2::-1]])
