"""Figure ``noisy_selection_curves``: iterated AL with noisy exact Q^c on the §3.2 problem."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

from mri_theory.figures import register
from mri_theory.figures._curves import plot_mean_curves
from mri_theory.noisy_selection import noisy_selection_curves
from mri_theory.two_gaussians import TwoGaussians

SEED = 20261125


@register("noisy_selection_curves",
          "§3.3 demo: learning curves of argmax(Q^c + noise) from optimal to RS, and the worst",
          seed=SEED)
def make(quick: bool, rng: np.random.Generator) -> Figure:
    """Mean exact error rate after each label with +-1 SE bands; the Bayes error dashed."""
    seed = int(rng.integers(2**31))
    df = noisy_selection_curves(replicates=30 if quick else 500, pool_size=100, budget=30,
                                seed=seed, progress=False)
    fig = Figure(figsize=(8, 5.5), layout="constrained")
    ax = fig.subplots()
    n_strategies = df["strategy"].nunique()
    colours = colormaps["viridis"](np.linspace(0, 0.85, n_strategies - 1)).tolist() + ["tab:red"]
    plot_mean_curves(ax, df, colours, value="error_rate")
    ax.axhline(TwoGaussians().bayes_error, color="black", ls="--", lw=1, label="Bayes error")
    n_rep = df.replicate.nunique()
    ax.set_title(f"Selecting argmax of $Q^c$ + N(0, $\\sigma^2$), $\\sigma$ relative to sd of $Q^c$ "
                 f"over the pool\n(two-Gaussian problem, mean classifier, pool 100, {n_rep} replicates, "
                 "±1 SE)", fontsize=10)
    ax.set_xlabel("number of labelled examples")
    ax.set_ylabel("exact error rate")
    ax.legend(fontsize=8)
    return fig
