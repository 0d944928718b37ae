"""Figure 1 (``al_vs_rs``): an AL method against RS, with the fixed-label and fixed-loss comparisons."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure

from mri_theory._utils.backends import Execution
from mri_theory.figures import register
from mri_theory.figures.curves import plot_mean_curves
from mri_theory.runners.sandbox import run_curves

PROBLEM = "three-gaussians"  # the paper uses a 3-class problem; ours is simulated (exact losses)
COLOURS = {"SE": "tab:purple", "RS": "tab:orange"}


def _labels_to_reach(n: np.ndarray, loss: np.ndarray, level: float) -> float:
    """First number of labels at which the (mean) curve is at or below ``level`` (NaN if never)."""
    reached = np.flatnonzero(loss <= level)
    return float(n[reached[0]]) if reached.size else float("nan")


@register("al_vs_rs", "Figure 1: SE vs RS with 5-NN on a 3-class problem; fixed-label and fixed-loss comparisons",
          seed=1)
def make(quick: bool, rng: np.random.Generator) -> Figure:
    """Mean true error rate of SE and RS; vertical (fixed-label) and horizontal (fixed-loss) comparisons."""
    sizes: dict[str, Any] = dict(pool_size=60, budget=30, replicates=4, population_size=2000) if quick else \
        dict(pool_size=300, budget=120, replicates=30, population_size=10_000)
    df = run_curves(PROBLEM, "knn5", list(COLOURS), seed=int(rng.integers(2**31)), record_q_c=False,
                    execution=Execution(progress=False), **sizes)
    fig = Figure(figsize=(8, 5.5), layout="constrained")
    ax = fig.subplots()
    curves = plot_mean_curves(ax, df, COLOURS)
    se = curves[curves.strategy == "SE"]
    rs = curves[curves.strategy == "RS"]
    n = se.n_labelled.to_numpy()
    gap = rs["mean"].to_numpy() - se["mean"].to_numpy()
    n_fixed = int(n[np.argmax(gap)])  # illustrate both comparisons where SE's lead over RS is largest
    loss_rs = float(rs[rs.n_labelled == n_fixed]["mean"].iloc[0])
    loss_se = float(se[se.n_labelled == n_fixed]["mean"].iloc[0])
    ax.plot([n_fixed, n_fixed], [loss_se, loss_rs], color="black", lw=2.2,
            label=f"fixed-label comparison at n = {n_fixed} (largest gap): RS − SE = {loss_rs - loss_se:+.3f}")
    # Fixed-loss comparison from the same point: labels RS needs to first reach SE's loss there.
    n_rs = _labels_to_reach(rs.n_labelled.to_numpy(), rs["mean"].to_numpy(), loss_se)
    if np.isfinite(n_rs):
        ax.plot([n_fixed, n_rs], [loss_se, loss_se], color="tab:blue", lw=2.2,
                label=f"fixed-loss comparison at loss {loss_se:.3f}: RS needs {n_rs - n_fixed:+.0f} labels")
    ax.set_xlabel("number of labelled examples")
    ax.set_ylabel("true error rate")
    ax.set_title(f"Shannon entropy vs random selection, 5-NN, simulated 3-class problem ({PROBLEM})\n"
                 f"pool {sizes['pool_size']}, {sizes['replicates']} paired replicates, mean ± 1 SE", fontsize=10)
    ax.legend(fontsize=8)
    return fig
