r"""Figure ``estimator_errors``: the errors :math:`M = \hat T_e - T_e` of SMRI and BMRI against the true :math:`Q^c`.

§3.3's guarantee models an estimate as :math:`\hat Q_i = Q_i + M_i` with errors
that are centred, independent of :math:`Q_i` and identically distributed
(Gaussian).  SMRI and BMRI estimate the future-loss term
:math:`T_e(x) = \sum_j p_j(x)\,L(\theta(D_S \cup (x, c_j)))` of :math:`Q^c`
(Eq. ``eqc``), so their estimate of :math:`Q^c` carries the error :math:`-M`
up to a constant of the state (the current loss).

The scatter panels (a row per classifier and estimator; two columns, early and
late in the curve) pool the candidates of all replicates, each *centred within its
state*: :math:`M - \bar M` against :math:`Q^c - \bar Q^c`.  A bias common to
a state's candidates never changes the choice, so this is the part of the
error that matters for selection.  Marked: the zero line, the binned mean of
the centred error (flat if the error is independent of :math:`Q^c`) with its
±1 sd band (of constant width if homoscedastic), and the slope-1 line on which
a constant estimate, one without information about the candidate, would lie.
The last row (a panel per classifier) shows the per-state bias in units of the spread of
:math:`Q^c` (the literal "centred" assumption).  Verdicts, p-values and the
measured and predicted shortfalls are those of
:func:`mri_theory.evaluation.estimator_errors`.

The truth is exact for both LDA and 5-NN (every state resolved).  A classifier
with a sampled truth would have its scatter panels and verdicts on the resolved
states only (the ``resolved`` column of :func:`mri_theory.runners.score_states`:
an unresolved state's truth ordering is population noise), and a panel's title
would say how many states that is.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, NullFormatter, ScalarFormatter

from mri_theory.figures import register
from mri_theory.figures.diagnostics_data import (
    CLASSIFIER_LABELS,
    COLOURS,
    EARLY_LATE,
    FIGURE_SEED,
    SIZES,
    diagnostics_tables,
    figure_seed,
)

ESTIMATORS = ("SMRI", "BMRI")
BINS = 8  # quantile bins of the centred true Q^c for the binned mean and spread of M
_STATE = ["problem", "classifier", "trajectory", "replicate", "step", "strategy"]


def _verdict_text(row: pd.Series) -> str:
    """The guarantee's assumptions at one (classifier, estimator, n_labelled), one line each."""
    def word(verdict: str) -> str:
        flag = row[verdict]
        text = "n/a" if pd.isna(flag) else ("holds" if flag else "FAILS")
        return f"{text} (p = {row[f'{verdict}_p']:.2g})"

    return "\n".join([
        f"centred: {word('centred')}, bias/sd($Q^c$) = {row.relative_bias:+.2g}",
        f"independent: {word('independent')}, $\\rho(M, Q^c)$ = {row.corr_m_q:+.2f}",
        f"homoscedastic: {word('homoscedastic')}, $\\rho(|M - \\tilde M|, Q^c)$ = {row.corr_abs_q:+.2f}",
        f"identically distributed: {word('identically_distributed')}",
        f"shortfall: measured {row.measured_shortfall:.2g}, i.i.d. model {row.predicted_shortfall_iid:.2g}",
    ])


def _centred(part: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """:math:`Q^c` and :math:`M` of each candidate minus their mean over the candidate's state."""
    q, m = part.true_q_c, part.t_e_estimate - part.t_e
    keys = [part[k] for k in _STATE]
    return ((q - q.groupby(keys).transform("mean")).to_numpy(),
            (m - m.groupby(keys).transform("mean")).to_numpy())


def _count_states(part: pd.DataFrame) -> int:
    return len(part.groupby(list(_STATE)).size())


def _scatter_panel(ax, part: pd.DataFrame, verdict: pd.Series) -> None:
    q, m = _centred(part)
    ax.scatter(q, m, s=4, c=[f"C{r % 10}" for r in part.replicate], alpha=0.35, lw=0, rasterized=True)
    edges = np.unique(np.quantile(q, np.linspace(0, 1, BINS + 1)))
    which = np.clip(np.searchsorted(edges, q, side="right") - 1, 0, edges.size - 2)
    binned = pd.DataFrame({"bin": which, "q": q, "m": m}).groupby("bin").agg(
        q=("q", "mean"), mean=("m", "mean"), sd=("m", "std"))
    ax.fill_between(binned.q, binned["mean"] - binned.sd, binned["mean"] + binned.sd, color="black", alpha=0.12,
                    lw=0, label="binned mean ± 1 sd")
    ax.plot(binned.q, binned["mean"], color="black", marker="o", ms=3, lw=1.5)
    ax.axhline(0, color="tab:red", lw=1.2, label="0: independent of $Q^c$")
    ax.axline((0, 0), slope=1, color="grey", ls=":", lw=1.2, label="slope 1: constant estimate")
    ax.text(0.02, 0.98, _verdict_text(verdict), transform=ax.transAxes, fontsize=7.5, va="top", ha="left",
            bbox=dict(boxstyle="round", fc="white", alpha=0.85, lw=0.5))
    ax.ticklabel_format(style="sci", scilimits=(-2, 2))
    ax.xaxis.set_major_locator(MaxNLocator(5))
    ax.set_xlabel(r"true $Q^c$ minus its state mean")


def _bias_panel(ax, per_state: pd.DataFrame) -> None:
    """Per-state bias / sd(Q^c) of each estimator against n_labelled (log-log-like symlog y)."""
    for k, estimator in enumerate(ESTIMATORS):
        mine = per_state[per_state.strategy == estimator]
        offset = 1 + 0.04 * (k - 0.5)
        ax.scatter(mine.n_labelled * offset, mine.relative_bias, s=10, color=COLOURS[estimator], alpha=0.6,
                   lw=0, label=f"{estimator}, one state")
        mean = mine.groupby("n_labelled").relative_bias.median()
        ax.plot(mean.index * offset, mean, color=COLOURS[estimator], lw=1.5, marker="_", ms=10,
                label=f"{estimator}, median")
    ax.axhline(0, color="tab:red", lw=1.2)
    ax.set_yscale("symlog", linthresh=1)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(sorted(per_state.n_labelled.unique()))
    ax.set_xlabel(r"$|D_S|$ (log scale)")
    ax.set_ylabel(r"bias of $\hat T_e$ / sd of $Q^c$ (symlog)")


def plot_estimator_errors(states: pd.DataFrame, errors: pd.DataFrame, errors_per_state: pd.DataFrame,
                          early_late: tuple[int, int] = (0, -1), subtitle: str = "") -> Figure:
    """Draw the figure from a :func:`~mri_theory.runners.score_states` table and its error summaries.

    Parameters
    ----------
    states : pandas.DataFrame
        The tidy table (SMRI and BMRI rows are used).
    errors, errors_per_state : pandas.DataFrame
        :func:`~mri_theory.evaluation.estimator_errors` of ``states``, aggregated and per state.
    early_late : (int, int)
        Positions, among the sorted ``n_labelled`` values of each classifier, of the early and late panels.
    subtitle : str
        Added to the title.
    """
    classifiers = list(dict.fromkeys(states.classifier))
    # Two columns (early, late), 10 inches wide so that every text reads at a page's width: a row per classifier
    # and estimator, then a row of the bias panels, one per classifier.
    n_rows = len(classifiers) * len(ESTIMATORS) + 1
    fig = Figure(figsize=(10, 3.9 * n_rows + 1.2), layout="constrained")
    half = max(len(classifiers), 1)  # grid columns per scatter panel (the bias row splits the width by classifier)
    grid = fig.add_gridspec(n_rows, 2 * half)
    scatter_axes = [[fig.add_subplot(grid[r, j * half:(j + 1) * half]) for j in range(2)]
                    for r in range(n_rows - 1)]
    bias_axes = [fig.add_subplot(grid[-1, 2 * c:2 * c + 2]) for c in range(len(classifiers))]
    for c, classifier in enumerate(classifiers):
        mine = states[(states.classifier == classifier) & states.strategy.isin(ESTIMATORS)]
        counts = sorted(mine.n_labelled.unique())
        label = CLASSIFIER_LABELS.get(classifier, classifier)
        for k, estimator in enumerate(ESTIMATORS):
            row = scatter_axes[c * len(ESTIMATORS) + k]
            for j, (when, n) in enumerate(zip(("early", "late"), (counts[i] for i in early_late), strict=True)):
                ax = row[j]
                part = mine[(mine.strategy == estimator) & (mine.n_labelled == n)]
                verdict = errors[(errors.classifier == classifier) & (errors.strategy == estimator)
                                 & (errors.n_labelled == n)].iloc[0]
                resolved = part[part.resolved == 1] if "resolved" in part else part
                if resolved.empty:
                    ax.text(0.5, 0.5, "no state resolved\n(the sampled truth cannot decide)", ha="center",
                            va="center", transform=ax.transAxes)
                else:
                    _scatter_panel(ax, resolved, verdict)
                share = (f", {_count_states(resolved)} of {_count_states(part)} states resolved"
                         if len(resolved) < len(part) else "")
                ax.set_title(f"{label}, {estimator}, {when}: $|D_S|$ = {n}{share}", fontsize=10)
            row[0].set_ylabel(r"$M = \hat T_e - T_e$ minus its state mean")
        _bias_panel(bias_axes[c], errors_per_state[errors_per_state.classifier == classifier])
        bias_axes[c].set_title(f"{label}: is $M$ centred? (0 = unbiased)", fontsize=10)
    scatter_axes[0][0].legend(fontsize=8, loc="lower right")
    bias_axes[0].legend(fontsize=8, loc="lower left")
    fig.suptitle(r"Errors $M$ of SMRI's and BMRI's estimates of $T_e$ against the true $Q^c$, along "
                 f"random-selection trajectories;\n{subtitle}points coloured by replicate.\n§3.3's guarantee "
                 "assumes M centred, independent of $Q^c$ and identically distributed;\nthe verdicts test each at "
                 "the 5% level", fontsize=11)
    return fig


@register("estimator_errors", "Errors M = T_e-hat - T_e of SMRI and BMRI against the true Q^c, with the "
                              "guarantee's assumptions (centred, independent, identically distributed)",
          seed=FIGURE_SEED)
def make(quick: bool, rng: np.random.Generator) -> Figure:
    """The shared scoring run (:mod:`mri_theory.figures.diagnostics_data`), drawn by :func:`plot_estimator_errors`."""
    tables = diagnostics_tables(quick, figure_seed(rng))
    sizes = SIZES[quick]
    return plot_estimator_errors(tables.states, tables.errors, tables.errors_per_state, EARLY_LATE[quick],
                                 f"Four-Gaussian, pool {sizes['pool_size']}, {sizes['replicates']} replicates; ")
