"""Figure 5 (``single_realisation``): one replicate, the early part of every strategy's curve."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

from mri_theory._utils.backends import Execution
from mri_theory.figures import register
from mri_theory.problems import get_problem
from mri_theory.runners.sandbox import run_curves

#: The paper's strategies, LC and the two oracles, in the registry's order: a fixed list, so the figure does not
#: change when strategies are registered (ours, scikit-activeml's peers, a user's).
STRATEGIES = ("RS", "SE", "LC", "QbcV", "QbcA", "EfeLc", "SMRI", "BMRI", "MRI-best", "MRI-worst")


@register("single_realisation", "Figure 5: one realisation, early learning curves of every strategy", seed=5)
def make(quick: bool, rng: np.random.Generator) -> Figure:
    """Four-Gaussian, 5-NN, one replicate: true error rate after each label for the strategies in :data:`STRATEGIES`."""
    sizes: dict[str, Any] = dict(pool_size=40, budget=6, population_size=2000) if quick else \
        dict(pool_size=250, budget=40, population_size=10_000)
    names = list(STRATEGIES)
    df = run_curves("four-gaussian", "knn5", names, replicates=1, seed=int(rng.integers(2**31)),
                    record_q_c=False, execution=Execution(progress=False), **sizes)
    fig = Figure(figsize=(9, 5.5), layout="constrained")
    ax = fig.subplots()
    colours = colormaps["tab10"](np.arange(len(names)))
    styles: dict[str, dict[str, Any]] = {"MRI-best": dict(lw=2.6, ls="-"), "MRI-worst": dict(lw=2.6, ls="--"),
                                         "RS": dict(lw=2.2, ls=":")}
    for name, colour in zip(names, colours, strict=True):
        c = df[df.strategy == name]
        ax.plot(c.n_labelled, c.loss, color=colour, label=name, **styles.get(name, dict(lw=1.4)))
    ax.axhline(get_problem("four-gaussian").bayes_error, color="black", ls="--", lw=1, label="Bayes error")
    ax.set_xlabel("number of labelled examples")
    ax.set_ylabel("true error rate")
    ax.set_title(f"One realisation: Four-Gaussian, 5-NN, pool {sizes['pool_size']} "
                 "(costly methods score 100 random candidates per step)", fontsize=10)
    ax.legend(ncol=2, fontsize=8)
    return fig
