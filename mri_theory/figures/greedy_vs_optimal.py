"""``greedy_vs_optimal``: the exact optimal h-step AL policy against greedy MRI-best, the best batch, SE and RS."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure

from mri_theory.analytic.nonmyopic import sample_state, value_curves
from mri_theory.analytic.two_gaussians import (
    PAPER_CASES,
    MeanClassifier,
    TwoGaussians,
    error_rate,
)
from mri_theory.figures import register

#: Policies drawn, with their labels and styles.
STYLES: dict[str, tuple[str, dict[str, Any]]] = {
    "optimal": ("optimal (planned for h)", dict(color="black", lw=2.2)),
    "greedy": ("greedy MRI-best (argmax $Q^c$)", dict(color="tab:green", lw=1.6, marker="o", ms=3)),
    "batch": ("optimal batch of h ($B^c$)", dict(color="tab:blue", lw=1.4, ls="--")),
    "se": ("SE", dict(color="tab:purple", lw=1.2)),
    "rs": ("RS (exact average)", dict(color="tab:orange", lw=1.2)),
}
#: Gaps below this are rounding (greedy chose an optimal query): not drawn on the log scale.
TIE = 1e-12
#: Training counts of the paper cases here (the paper's n_s = 18 gives gaps below 2e-4).
CASE_N = (2, 2)


def _with_start(problem: TwoGaussians, clf: MeanClassifier, curve: np.ndarray) -> np.ndarray:
    """The curve with the current error (h = 0) prepended."""
    return np.concatenate([[error_rate(problem, clf)], curve])


@register("greedy_vs_optimal", "The exact optimal h-step AL policy vs greedy MRI-best, the best batch, SE and RS "
          "(two-Gaussian example)", seed=13)
def make(quick: bool, rng: np.random.Generator) -> Figure:
    """Top: the paper's four theta_hat (n = (2, 2)); bottom: random states (mean error; greedy's gap)."""
    problem = TwoGaussians()
    case_pool, case_h = (10, 4) if quick else (14, 6)
    n_random, random_pool, random_h = (8, 8, 3) if quick else (100, 12, 6)
    policies = tuple(STYLES)

    fig = Figure(figsize=(15, 8.5), layout="constrained")
    grid = fig.add_gridspec(2, 4)
    pool = problem.sample(case_pool, rng)[0]
    h_axis = np.arange(case_h + 1)
    for k, (name, case) in enumerate(PAPER_CASES.items()):
        clf = MeanClassifier(case.mu_hat, CASE_N)
        curves = value_curves(problem, clf, pool, case_h, policies)
        ax = fig.add_subplot(grid[0, k])
        for policy, (label, style) in STYLES.items():
            ax.plot(h_axis, _with_start(problem, clf, curves[policy]), label=label, **style)
        ax.axhline(problem.bayes_error, color="grey", ls=":", lw=1, label="Bayes error")
        gap = curves["greedy"] - curves["optimal"]
        ax.set_title(rf"({k + 1}) {name}: $\hat\theta$ = ({clf.mu_hat[0]:g}, {clf.mu_hat[1]:g})"
                     f"\nlargest greedy − optimal: {gap.max():.1e} (h = {int(np.argmax(gap)) + 1})", fontsize=9)
        ax.set_xlabel("labels h")
        ax.set_xticks(h_axis)
        if k == 0:
            ax.set_ylabel("expected error after h labels")

    values = {p: np.empty((n_random, random_h)) for p in policies}
    starts = np.empty(n_random)
    for s in range(n_random):
        n = tuple(int(v) for v in rng.integers(1, 6, size=2))
        clf, state_pool = sample_state(problem, n, random_pool, rng)
        curves = value_curves(problem, clf, state_pool, random_h, policies)
        starts[s] = error_rate(problem, clf)
        for p in policies:
            values[p][s] = curves[p]
    h_random = np.arange(random_h + 1)
    ax = fig.add_subplot(grid[1, :2])
    for policy, (label, style) in STYLES.items():
        ax.plot(h_random, np.concatenate([[starts.mean()], values[policy].mean(axis=0)]), label=label, **style)
    ax.axhline(problem.bayes_error, color="grey", ls=":", lw=1, label="Bayes error")
    ax.set_xlabel("labels h")
    ax.set_xticks(h_random)
    ax.set_ylabel("mean expected error after h labels")
    ax.set_title(f"{n_random} random states: $n_j$ uniform on 1..5, $D_S$ sampled, pool of {random_pool}",
                 fontsize=9)
    ax.legend(fontsize=7)

    ax = fig.add_subplot(grid[1, 2:])
    gaps = values["greedy"] - values["optimal"]
    for h in range(2, random_h + 1):  # h = 1: greedy is optimal (gap 0)
        g = gaps[:, h - 1]
        positive = g[g > TIE]
        ax.plot(np.full(positive.size, h) + rng.uniform(-0.15, 0.15, positive.size), positive, ".",
                color="tab:green", alpha=0.4, ms=4)
    ax.plot(np.arange(2, random_h + 1), np.median(gaps[:, 1:], axis=0), color="black", lw=1.5,
            label="median over states (zeros included)")
    ax.plot(np.arange(2, random_h + 1), gaps[:, 1:].max(axis=0), color="tab:red", lw=1.5, ls="--",
            label="largest")
    ax.set_yscale("log")
    ax.set_xlabel("labels h")
    ax.set_xticks(np.arange(2, random_h + 1))
    ax.set_ylabel("greedy − optimal expected error")
    ax.set_title(f"Cost of greediness: one dot per random state (gaps < {TIE:g}, greedy optimal, not drawn)",
                 fontsize=9)
    ax.legend(fontsize=7)
    fig.suptitle(f"Beyond one step: the exact optimal AL policy on the two-Gaussian example (§3.2); "
                 f"top: the paper's four $\\hat\\theta$ with n = {CASE_N}, one pool of {case_pool} points",
                 fontsize=11)
    return fig
