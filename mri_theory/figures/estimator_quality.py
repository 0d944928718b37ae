r"""Figure ``estimator_quality``: how well each strategy's scores rank the candidates by their true :math:`Q^c`.

Along random-selection trajectories on Four-Gaussian, every strategy scores the
same candidates in the same states, and the true :math:`Q^c` (Eq. ``eqc``) of
each candidate is known (:mod:`mri_theory.runners.states`).  Per classifier (rows)
the panels show, against the number of labelled examples, the Spearman
correlation of the scores with the true :math:`Q^c`, the normalised shortfall
(0: the best candidate, 1: the expected shortfall of random selection) and the
empirical :math:`\hat\lambda`, the probability that the strategy orders two
candidates like their true :math:`Q^c` (§3.3's :math:`\lambda = \frac12 + \beta`).
The truth is exact for both LDA and 5-NN (:meth:`Population.exact
<mri_theory.engine.population.Population.exact>`), so every state counts; a
classifier with a sampled truth would count only the states whose truth is
resolved (``resolved`` of :func:`mri_theory.runners.score_states`), and the
first panel of its row would list how many states count at each :math:`|D_S|`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter, ScalarFormatter

from mri_theory.figures import register
from mri_theory.figures.diagnostics_data import (
    CLASSIFIER_LABELS,
    COLOURS,
    FIGURE_SEED,
    SIZES,
    diagnostics_tables,
    figure_seed,
    truth_note,
)

#: (summary column, axis label, the values of RS and of the oracle MRI-best) per panel column.
PANELS = (("spearman", r"Spearman correlation with true $Q^c$", (0.0, 1.0)),
          ("normalised_shortfall", "normalised shortfall\n(0 optimal, 1 = RS's expectation)", (1.0, 0.0)),
          ("lambda_hat", r"$\hat\lambda$ = P(a pair is ordered like $Q^c$)", (0.5, 1.0)))


def plot_estimator_quality(summary: pd.DataFrame, subtitle: str = "") -> Figure:
    """Draw the figure from a :func:`~mri_theory.evaluation.summarise_states` table (aggregated).

    One row of panels per classifier and one line per strategy, both in order of
    appearance in ``summary``; each point is the mean over replicates with +-1 SE
    error bars, against ``n_labelled``.  ``subtitle`` is added to the title.
    """
    classifiers, strategies = list(dict.fromkeys(summary.classifier)), list(dict.fromkeys(summary.strategy))
    fig = Figure(figsize=(14, 4 * len(classifiers) + 0.8), layout="constrained")
    axes = fig.subplots(len(classifiers), len(PANELS), sharex=True, squeeze=False)
    for row, classifier in enumerate(classifiers):
        part = summary[summary.classifier == classifier]
        for col, (column, label, references) in enumerate(PANELS):
            ax = axes[row, col]
            for value in references:
                ax.axhline(value, color="grey", ls=":", lw=1)
            for k, strategy in enumerate(strategies):
                s = part[part.strategy == strategy].sort_values("n_labelled")
                offset = 1 + 0.012 * (k - len(strategies) / 2)  # small log-x dodge so the bars do not overlap
                ax.errorbar(s.n_labelled * offset, s[column], yerr=s[f"{column}_se"],
                            color=COLOURS.get(strategy, f"C{k}"), marker="o", ms=3.5, lw=1.4, capsize=2,
                            label=strategy)
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(ScalarFormatter())
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xticks(sorted(part.n_labelled.unique()))
            ax.set_ylabel(label)
            ax.set_title(f"{CLASSIFIER_LABELS.get(classifier, classifier)}: {column.replace('_', ' ')}",
                         fontsize=10)
        if "resolved" in part and (part.resolved < 1).any():  # sampled truth: say how many states count
            shares = part[part.strategy == strategies[0]].sort_values("n_labelled")
            axes[row, 0].set_title(f"{CLASSIFIER_LABELS.get(classifier, classifier)}: spearman\nresolved states: "
                                   + ", ".join(f"{n} ({v:.0%})" for v, n in zip(shares.resolved, shares.states,
                                                                               strict=True)), fontsize=10)
            if row == len(classifiers) - 1:
                ax.set_xlabel(r"number of labelled examples $|D_S|$ (log scale)")
    fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="outside lower center", ncols=len(strategies))
    fig.suptitle("Each strategy's scores against the true $Q^c$ of the same candidates, along random-selection "
                 f"trajectories\n{subtitle}mean ± 1 SE over the replicates whose truth is resolved (all with exact "
                 "truth)\ndotted: the values of RS and of the oracle MRI-best (argmax of the true $Q^c$)", fontsize=11)
    return fig


@register("estimator_quality", "Spearman, normalised shortfall and lambda-hat of each strategy "
                               "against the true Q^c, Four-Gaussian, 5-NN and LDA", seed=FIGURE_SEED)
def make(quick: bool, rng: np.random.Generator) -> Figure:
    """The shared scoring run (:mod:`mri_theory.figures.diagnostics_data`), drawn by :func:`plot_estimator_quality`."""
    sizes = SIZES[quick]
    return plot_estimator_quality(diagnostics_tables(quick, figure_seed(rng)).summary,
                                  f"Four-Gaussian, pool {sizes['pool_size']} (every unlabelled pool point a "
                                  f"candidate), {sizes['replicates']} replicates\n{truth_note(quick)}; ")
