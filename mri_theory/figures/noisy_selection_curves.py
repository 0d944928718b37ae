"""Figure ``noisy_selection_curves``: iterated AL with noisy true Q^c on the §3.2 problem (the §3.3 demo)."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

from mri_theory._utils.backends import Execution
from mri_theory.analytic.two_gaussians import TwoGaussians
from mri_theory.figures import register
from mri_theory.figures.curves import plot_mean_curves
from mri_theory.runners.noisy_selection import (
    DEFAULT_RELATIVE_SIGMAS,
    POPULATION_SIZE,
    NoisyOracle,
    noisy_selection_curves,
)

SEED = 20261125


def _label(sigma: float) -> str:
    """Legend entry of the NoisyOracle at relative noise level ``sigma``."""
    if sigma == 0:
        return r"$\sigma$ = 0 (MRI-best's choice)"
    if np.isinf(sigma):
        return r"$\sigma$ = $\infty$ (RS)"
    return rf"$\sigma$ = {sigma:g} sd"


@register("noisy_selection_curves",
          "§3.3 demo: learning curves of argmax(Q^c + noise) from optimal to RS, and MRI-worst",
          seed=SEED)
def make(quick: bool, rng: np.random.Generator) -> Figure:
    """Mean error rate after each label with +-1 SE bands (``run_curves`` results); the Bayes error dashed."""
    seed = int(rng.integers(2**31))
    df = noisy_selection_curves(DEFAULT_RELATIVE_SIGMAS, replicates=30 if quick else 400, pool_size=100, budget=30,
                                seed=seed, execution=Execution(progress=False))
    labels = {NoisyOracle(s).name: _label(s) for s in DEFAULT_RELATIVE_SIGMAS}
    df = df.assign(strategy=df.strategy.map(lambda name: labels.get(name, name)))
    fig = Figure(figsize=(8, 5.5), layout="constrained")
    ax = fig.subplots()
    colours = colormaps["viridis"](np.linspace(0, 0.85, len(DEFAULT_RELATIVE_SIGMAS))).tolist() + ["tab:red"]
    plot_mean_curves(ax, df, colours)
    ax.axhline(TwoGaussians().bayes_error, color="black", ls="--", lw=1, label="Bayes error")
    ax.set_title(f"Selecting argmax of $Q^c$ + N(0, $\\sigma^2$), $\\sigma$ relative to sd of $Q^c$ over the pool\n"
                 f"(two-Gaussian problem, mean classifier, pool 100, {df.replicate.nunique()} replicates, ±1 SE;"
                 f" error on {POPULATION_SIZE} QMC points)", fontsize=10)
    ax.set_xlabel("number of labelled examples")
    ax.set_ylabel("error rate")
    ax.legend(fontsize=8)
    return fig
