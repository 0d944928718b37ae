"""Figure ``lambda_vs_noise``: the guarantee of §3.3, closed form and simulation."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from mri_theory.analytic.guarantee import (
    monte_carlo_selection_probability,
    selection_probability,
    simulate_selection,
)
from mri_theory.figures import register

POOL_SIZES = (2, 5, 20)


def _normalised_gain(q: np.ndarray, sigma: float, n_draws: int, rng, noise: str) -> tuple[float, float]:
    """(E[Q selected] - mean q) / (max q - mean q) and its standard error: 0 is RS, 1 the optimum."""
    sim = simulate_selection(q, sigma, n_draws, rng, noise=noise)
    scale = sim.optimum - sim.rs
    return (sim.expected_q - sim.rs) / scale, sim.standard_error / scale


@register("lambda_vs_noise", "§3.3: lambda = 1/2 + beta against sigma/Delta, and pools of m = 2, 5, 20")
def make(quick: bool, rng: np.random.Generator) -> Figure:
    """Left: closed-form lambda with Monte Carlo 95% intervals.  Right: pools of several sizes."""
    n_draws = 20_000 if quick else 400_000
    fig = Figure(figsize=(12, 4.8), layout="constrained")
    left, right = fig.subplots(1, 2)

    ratio = np.logspace(-2, 2, 400)
    left.semilogx(ratio, selection_probability(1.0, ratio), color="black", lw=1.8,
                  label=r"closed form $\Phi(\Delta / \sigma\sqrt{2})$")
    points = np.logspace(-1.5, 1.5, 9 if quick else 13)
    mc = np.array([monte_carlo_selection_probability(1.0, s, n_draws, rng) for s in points])
    left.errorbar(points, mc[:, 0], yerr=1.96 * mc[:, 1], fmt="o", color="tab:red", ms=4, capsize=3,
                  label=f"Monte Carlo, 95% interval ({n_draws:,} draws)")
    left.axhline(0.5, color="tab:orange", ls="--", lw=1, label="RS: 1/2")
    left.axhline(1.0, color="tab:green", ls=":", lw=1, label="optimal: 1")
    left.set_xlabel(r"$\sigma / \Delta$ (noise sd of each estimate / gap in $Q^c$)")
    left.set_ylabel(r"$\lambda$ = P(better candidate selected)")
    left.set_title(r"Two candidates: $\lambda = \frac{1}{2} + \beta$")
    left.legend(fontsize=8)

    sigmas = np.logspace(-2, 1.5, 8 if quick else 15)
    for m, colour in zip(POOL_SIZES, ("tab:blue", "tab:purple", "tab:green"), strict=True):
        q = np.sort(rng.uniform(0, 1, m))
        q = (q - q.min()) / np.ptp(q)  # spread 1, so sigma is relative to the range of Q^c
        gain = np.array([_normalised_gain(q, s, n_draws, rng, "gaussian") for s in sigmas])
        right.errorbar(sigmas, gain[:, 0], yerr=1.96 * gain[:, 1], color=colour, marker="o", ms=3,
                       capsize=2, label=f"m = {m}, Gaussian noise")
        if m == POOL_SIZES[-1]:
            for noise, ls in (("heteroscedastic", "--"), ("biased", ":")):
                bad = np.array([_normalised_gain(q, s, n_draws, rng, noise) for s in sigmas])
                right.errorbar(sigmas, bad[:, 0], yerr=1.96 * bad[:, 1], color=colour, ls=ls, marker="x",
                               ms=4, capsize=2, label=f"m = {m}, {noise} (breaks the assumption)")
    right.set_xscale("log")
    right.axhline(0, color="tab:orange", ls="--", lw=1, label="RS: mean q")
    right.axhline(1, color="tab:green", ls=":", lw=1, label="optimum: max q")
    right.set_xlabel(r"$\sigma$ / (max $Q^c$ $-$ min $Q^c$)")
    right.set_ylabel(r"(E[$Q$ selected] $-$ mean $q$) / (max $q$ $-$ mean $q$)")
    right.set_title("Pools: argmax of noisy estimates, between RS and the optimum")
    right.legend(fontsize=7, loc="lower left")
    return fig
