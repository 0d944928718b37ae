"""Figure 3 (``qc_cases``): Q^c(x) for the paper's four estimated-mean cases."""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from mri_theory.analytic.two_gaussians import (
    PAPER_CASES,
    MeanClassifier,
    TwoGaussians,
    optimal_selection,
    q_c,
)
from mri_theory.figures import register

BOUNDS = (-4.0, 4.0)
CLASS_COLOURS = ("tab:blue", "tab:red")


def draw_means(ax: Axes, problem: TwoGaussians, clf: MeanClassifier) -> None:
    """True class means as solid lines, estimated means dotted (class 1 blue, class 2 red)."""
    for j, colour in enumerate(CLASS_COLOURS):
        ax.axvline(problem.mu[j], color=colour, lw=1.2, label=rf"$\mu_{j + 1}$")
        ax.axvline(clf.mu_hat[j], color=colour, lw=1.2, ls=":", label=rf"$\hat\mu_{j + 1}$")
    ax.axhline(0.0, color="tab:green", lw=1.0, label="$Q^c=0$")


def case_grid(title: str) -> tuple[Figure, list[tuple[str, MeanClassifier, Axes]]]:
    """A 2x2 figure with one panel per paper case."""
    fig = Figure(figsize=(10, 7.5), layout="constrained")
    axes = fig.subplots(2, 2)
    fig.suptitle(title)
    panels = []
    for k, ((name, clf), ax) in enumerate(zip(PAPER_CASES.items(), axes.ravel(), strict=True), start=1):
        ax.set_title(rf"({k}) {name}: $\hat\theta$ = ({clf.mu_hat[0]:g}, {clf.mu_hat[1]:g})", fontsize=10)
        ax.set_xlabel("$x$")
        ax.set_xlim(*BOUNDS)
        panels.append((name, clf, ax))
    return fig, panels


@register("qc_cases", "Figure 3: Q^c(x) for the four estimated-mean cases (n_s = 18)")
def make(quick: bool, rng: np.random.Generator) -> Figure:
    """Q^c(x) on [-4, 4] per case, with the means, the zero line and x_* marked."""
    problem = TwoGaussians()
    x = np.linspace(*BOUNDS, 401 if quick else 4001)
    fig, panels = case_grid(r"$Q^c(x)$ for the two-Gaussian problem, $n_s = 18$")
    for _, clf, ax in panels:
        ax.plot(x, q_c(problem, clf, x), color="black", lw=1.8, label="$Q^c(x)$")
        draw_means(ax, problem, clf)
        x_star, q_star = optimal_selection(problem, clf, BOUNDS)
        edge = " (the interval's edge)" if x_star in BOUNDS else ""  # Q^c still rises beyond it
        ax.plot([x_star], [q_star], marker="*", ms=14, color="gold", mec="black", ls="none", clip_on=False,
                zorder=5, label=rf"$x_* = {x_star:.2f}${edge}")
        ax.set_ylabel("$Q^c(x)$")
        ax.legend(fontsize=7, loc="best")
    return fig
