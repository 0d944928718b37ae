"""Figure ``noisy_selection_curves``: iterated AL with noisy exact Q^c on the §3.2 problem."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mri_theory.figures import register
from mri_theory.noisy_selection import noisy_selection_curves
from mri_theory.two_gaussians import TwoGaussians

SEED = 20261125


def mean_curves(df: pd.DataFrame, value: str = "error_rate") -> pd.DataFrame:
    """Mean and standard error over replicates per (strategy, n_labelled)."""
    grouped = df.groupby(["strategy", "n_labelled"])[value]
    out = grouped.agg(["mean", "std", "count"]).reset_index()
    out["se"] = out["std"] / np.sqrt(out["count"])
    return out


@register("noisy_selection_curves",
          "§3.3 demo: learning curves of argmax(Q^c + noise) from optimal to RS, and the worst",
          seed=SEED)
def make(quick: bool, rng: np.random.Generator) -> Figure:
    """Mean exact error rate after each label with +-1 SE bands; the Bayes error dashed."""
    seed = int(rng.integers(2**31))
    df = noisy_selection_curves(replicates=30 if quick else 500, pool_size=100, budget=30,
                                seed=seed, progress=False)
    curves = mean_curves(df)
    fig, ax = plt.subplots(figsize=(8, 5.5), constrained_layout=True)
    order = df.drop_duplicates("strategy")["strategy"]
    colours = plt.cm.viridis(np.linspace(0, 0.85, len(order) - 1)).tolist() + ["tab:red"]
    for name, colour in zip(order, colours):
        c = curves[curves.strategy == name]
        ax.plot(c.n_labelled, c["mean"], color=colour, lw=1.8, label=name)
        ax.fill_between(c.n_labelled, c["mean"] - c.se, c["mean"] + c.se, color=colour, alpha=0.25)
    ax.axhline(TwoGaussians().bayes_error, color="black", ls="--", lw=1, label="Bayes error")
    n_rep = df.replicate.nunique()
    ax.set_title(f"Selecting argmax of $Q^c$ + N(0, $\\sigma^2$), $\\sigma$ relative to sd of $Q^c$ "
                 f"over the pool\n(two-Gaussian problem, mean classifier, pool 100, {n_rep} replicates, "
                 "±1 SE)", fontsize=10)
    ax.set_xlabel("number of labelled examples")
    ax.set_ylabel("exact error rate")
    ax.legend(fontsize=8)
    return fig
