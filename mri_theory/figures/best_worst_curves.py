"""Figure 2 (``best_worst_curves``): the extremes of AL, argmax and argmin of the true Q^c."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure

from mri_theory._utils.backends import Execution
from mri_theory.figures import register
from mri_theory.figures.curves import plot_mean_curves
from mri_theory.problems import get_problem
from mri_theory.runners.sandbox import run_curves

COLOURS = {"MRI-best": "tab:green", "RS": "tab:orange", "MRI-worst": "tab:red"}


@register("best_worst_curves", "Figure 2: MRI-best and MRI-worst (true Q^c) vs RS, Four-Gaussian, 5-NN", seed=2)
def make(quick: bool, rng: np.random.Generator) -> Figure:
    """Mean true error rate over replicates with +-1 SE bands; the Bayes error dashed."""
    sizes: dict[str, Any] = dict(pool_size=40, budget=15, replicates=3, population_size=2000) if quick else \
        dict(pool_size=250, budget=100, replicates=20, population_size=10_000)
    df = run_curves("four-gaussian", "knn5", list(COLOURS), seed=int(rng.integers(2**31)), subsample=None,
                    record_q_c=False, execution=Execution(progress=False), **sizes)
    fig = Figure(figsize=(8, 5.5), layout="constrained")
    ax = fig.subplots()
    plot_mean_curves(ax, df, COLOURS)
    ax.axhline(get_problem("four-gaussian").bayes_error, color="black", ls="--", lw=1, label="Bayes error")
    ax.set_xlabel("number of labelled examples")
    ax.set_ylabel("true error rate")
    ax.set_title(f"Four-Gaussian, 5-NN: optimal (argmax $Q^c$) and worst (argmin $Q^c$) selection\n"
                 f"pool {sizes['pool_size']}, {sizes['replicates']} paired replicates, mean ± 1 SE", fontsize=10)
    ax.legend()
    return fig
