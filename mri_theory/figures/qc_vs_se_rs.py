"""Figure 4 (``qc_vs_se_rs``): Q^c against SE's uncertainty and RS's density p(x)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from mri_theory.analytic.two_gaussians import (
    TwoGaussians,
    q_c,
    rs_density,
    se_selection,
    se_uncertainty,
)
from mri_theory.figures import register
from mri_theory.figures.qc_cases import BOUNDS, case_grid, draw_means


def _scaled(values: np.ndarray) -> np.ndarray:
    """Divide by the largest absolute value so curves of different units share an axis."""
    return values / np.max(np.abs(values))


@register("qc_vs_se_rs", "Figure 4: Q^c vs SE's uncertainty and RS's density p(x), scaled")
def make(quick: bool, rng: np.random.Generator) -> Figure:
    """Per case: Q^c (black), SE entropy (purple), p(x) (orange), each scaled to max |.| = 1."""
    problem = TwoGaussians()
    x = np.linspace(*BOUNDS, 401 if quick else 4001)
    fig, panels = case_grid(r"$Q^c$ (black), SE (purple) and RS's $p(x)$ (orange), each scaled to max $|\cdot| = 1$")
    for k, (_, clf, ax) in enumerate(panels):
        ax.plot(x, _scaled(q_c(problem, clf, x)), color="black", lw=1.8, label="$Q^c$")
        ax.plot(x, _scaled(se_uncertainty(clf, x)), color="tab:purple", lw=1.5, label="SE entropy")
        ax.plot(x, _scaled(rs_density(problem, x)), color="tab:orange", lw=1.5, label="RS: $p(x)$")
        ax.axvline(se_selection(clf), color="tab:purple", ls="--", lw=1.0, label="SE choice $\\hat t$")
        draw_means(ax, problem, clf)
        ax.set_ylabel("scaled value")
        if k == 0:
            ax.legend(fontsize=7, loc="lower left")
    return fig
