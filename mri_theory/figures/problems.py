"""Figure 6 (``problems``): the five 2-D simulated problems of Appendix D.

One panel per two-class 2-D problem (Four-Gaussian, quadratic, triangles,
oscillating, sharp): contours of the weighted class densities
:math:`\\pi_j f_j(x)` (class 1 red, class 2 blue, i.e. labels 0 and 1, as in the
paper's caption), the Bayes decision boundary in green (the zero set of the
posterior difference :math:`p_1 - p_2`, contoured through the equivalent log
odds :math:`\\ln \\pi_1 f_1 - \\ln \\pi_2 f_2` for smoothness) and a small
sample from the problem; the Bayes error is in each title.
"""

from __future__ import annotations

from typing import cast

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from mri_theory.figures import register
from mri_theory.problems import GaussianMixtureProblem, get_problem

#: The panels of Figure 6, in the paper's order, with their captions.
PANELS: tuple[tuple[str, str], ...] = (
    ("four-gaussian", "(a) Four-Gaussian (Ripley 1996)"),
    ("quadratic", "(b) Gaussian, quadratic boundary"),
    ("triangles", "(c) Triangles of three Gaussians"),
    ("oscillating", "(d) Gaussian sets, oscillating boundary"),
    ("sharp", "(e) Gaussian, sharply non-linear boundary"),
)
CLASS_COLOURS = ("tab:red", "tab:blue")
BOUNDARY_COLOUR = "tab:green"
#: Contour levels as fractions of each class's largest weighted density.
LEVELS = (0.05, 0.2, 0.4, 0.6, 0.8)


def _limits(problem: GaussianMixtureProblem) -> np.ndarray:
    """A square-ish window covering every component to 2.5 sd, with a small margin."""
    box = problem.bounding_box(2.5)
    centre = box.mean(axis=1)
    half = 0.5 * np.max(box[:, 1] - box[:, 0])
    return np.stack([centre - half, centre + half], axis=1)


@register("problems", "Figure 6: the five 2-D simulated problems: class densities, Bayes boundary, Bayes error",
          seed=0)
def make(quick: bool, rng: np.random.Generator) -> Figure:
    """Contours of pi_j f_j (red: class 1, blue: class 2), the Bayes boundary (green), a sample."""
    n_grid = 121 if quick else 401
    n_sample = 60 if quick else 200
    fig = Figure(figsize=(4.0 * len(PANELS), 4.6), layout="constrained")
    axes = fig.subplots(1, len(PANELS))
    fig.suptitle("Figure 6: simulated problems, class densities $\\pi_j f_j$ "
                 "(class 1 red, class 2 blue) and the Bayes boundary (green)")
    for ax, (name, caption) in zip(axes, PANELS, strict=True):
        problem = cast(GaussianMixtureProblem, get_problem(name))  # every panel is a Gaussian mixture
        lim = _limits(problem)
        g0 = np.linspace(lim[0, 0], lim[0, 1], n_grid)
        g1 = np.linspace(lim[1, 0], lim[1, 1], n_grid)
        G0, G1 = np.meshgrid(g0, g1)
        X = np.column_stack([G0.ravel(), G1.ravel()])
        log_joint = problem.log_joint(X)
        for j, colour in enumerate(CLASS_COLOURS):
            dens = np.exp(log_joint[:, j]).reshape(G0.shape)
            ax.contour(G0, G1, dens, levels=np.asarray(LEVELS) * dens.max(), colors=colour,
                       linewidths=1.0)
        log_odds = (log_joint[:, 0] - log_joint[:, 1]).reshape(G0.shape)
        ax.contour(G0, G1, log_odds, levels=[0.0], colors=BOUNDARY_COLOUR, linewidths=2.0)
        Xs, ys = problem.sample(n_sample, rng)
        for j, colour in enumerate(CLASS_COLOURS):
            ax.scatter(Xs[ys == j, 0], Xs[ys == j, 1], s=5, color=colour, alpha=0.35, lw=0)
        ax.set_xlim(*lim[0])
        ax.set_ylim(*lim[1])
        ax.set_aspect("equal")
        ax.set_title(f"{caption}\nBayes error {problem.bayes_error:.4f}", fontsize=10)
        ax.set_xlabel("$x_1$")
        ax.set_ylabel("$x_2$")
    handles = [Line2D([], [], color=CLASS_COLOURS[0], label=r"class 1: $\pi_1 f_1$"),
               Line2D([], [], color=CLASS_COLOURS[1], label=r"class 2: $\pi_2 f_2$"),
               Line2D([], [], color=BOUNDARY_COLOUR, lw=2.0, label="Bayes boundary")]
    axes[0].legend(handles=handles, fontsize=7, loc="lower left")
    return fig
