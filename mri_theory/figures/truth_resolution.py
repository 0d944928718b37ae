r"""Figure ``truth_resolution``: how well a sampled "true :math:`Q^c`" knows the exact one, against :math:`|D_S|`.

The true :math:`Q^c` of a candidate (Eq. ``eqc``) is a difference of two
population losses; on a sampled population both carry sampling noise, while the
spread of :math:`Q^c` over candidates shrinks as :math:`D_S` grows (a single
label moves a rule trained on many labels very little).  Late in a learning
curve the noise can therefore outweigh the differences between candidates, and
a ranking of the candidates by the sampled :math:`Q^c` (MRI-best's choice, the
reference of the estimator diagnostics) is partly noise.

The figure measures this.  For every classifier drawn (LDA, QDA, logistic
regression, the paper's 5-NN, ``kknn5``, and the RBF SVM), whose population loss
on a Gaussian-mixture problem is available exactly (:meth:`Population.exact
<mri_theory.engine.population.Population.exact>`), each panel shows the
Spearman correlation over candidates between :math:`Q^c` on a scrambled-Sobol'
population (:meth:`Population.from_problem
<mri_theory.engine.population.Population.from_problem>` with ``method="qmc"``)
and the exact :math:`Q^c`.  A classifier whose runs do not take the exact truth
by default (``Classifier.auto_exact`` False: none of these) would be shown
instead by the Spearman correlation between :math:`Q^c` on two independent
populations of the same size (:data:`SAMPLED_CLASSIFIERS`): near 1, the
population resolves the ranking; near 0, it ranks by noise.  (The runners never
rank on one sampled population: where the truth is sampled,
:func:`~mri_theory.engine.targets.decisive_q_c` races the competing candidates on
enlarged populations until the choice is resolved.)

States follow random selection: :math:`D_S` is one point per class
(:func:`~mri_theory.problems.initial_labelled_set`) followed by i.i.d. draws
from the problem (a random-selection trajectory from an unlimited pool, so the
labelled sets of one replicate are nested), and the candidates of each state are
an independent sample.  Error loss throughout.

Sizes (:data:`SETTINGS`): 4 replicates of 5 states, 40 candidates per state;
populations of :math:`10^4`, :math:`10^5` and :math:`10^6` points (:math:`10^4`
and :math:`10^5` for two independent populations).  The SVM on :math:`10^6`
points is most of the figure's cost: one :math:`Q^c` step at :math:`|D_S| = 200`
takes about 25 s (its prediction cost grows with the number of support vectors).

The correlations rank tie classes, as every rank statistic of the toolkit does
(:mod:`mri_theory.evaluation.summaries`): values of :math:`Q^c` within
``1e-12`` of each other (``TIE_TOLERANCE``, relative to ``max(1, max |Q^c|)``)
share a rank.  Many 5-NN candidates change no population point, so their
:math:`Q^c` is exactly 0 in exact arithmetic; the engine returns it as
:math:`L - \sum_j p_j L`, about :math:`\pm 10^{-17}`, whose sign follows the
rounding of the BLAS dot product behind :math:`L` (OpenBLAS's kernel for the
CPU) and of the vectorised ``exp`` behind :math:`p` (numpy's AVX-512 loop, or
the baseline one elsewhere).  Ranked as raw numbers these values moved single
5-NN correlations by up to 0.07 between an AVX-512 and an AVX2 machine; as tie
classes they are tied on every machine (``tests/test_cpu_dispatch.py``).  The
log x axis has fixed limits (:data:`X_MARGIN`) for the same reason: matplotlib
would compute them through numpy's vectorised logarithm.
"""

from __future__ import annotations

from typing import TypedDict

import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter, ScalarFormatter
from scipy.stats import spearmanr

from mri_theory._utils import validation as check
from mri_theory._utils.ties import tie_classes
from mri_theory.classifiers import get_classifier
from mri_theory.engine import Population
from mri_theory.engine.targets import true_q_c
from mri_theory.figures import register
from mri_theory.problems import Problem, get_problem, initial_labelled_set

__all__ = ["CLASSIFIERS", "CLASSIFIER_LABELS", "COLUMNS", "EXACT_CLASSIFIERS", "PROBLEMS", "PROBLEM_LABELS",
           "SAMPLED_CLASSIFIERS", "SETTINGS", "X_MARGIN", "draw_states", "plot_truth_resolution",
           "truth_resolution_data"]

#: The problems drawn, one row each.
PROBLEMS = ("four-gaussian", "quadratic")
#: The classifiers drawn, one column each: LDA, QDA, logistic regression, the paper's 5-NN, the SVM.
CLASSIFIERS = ("lda", "qda", "logreg", "kknn5", "svm")
#: Those whose runs take the exact truth (``truth="auto"``: ``Classifier.exact_truth`` and ``auto_exact``), compared
#: with it (``reference = "exact"``): every classifier drawn.
EXACT_CLASSIFIERS = tuple(name for name in CLASSIFIERS
                          if get_classifier(name).exact_truth and get_classifier(name).auto_exact)
#: The others, compared between two independent populations (``reference = "independent"``).
SAMPLED_CLASSIFIERS = tuple(name for name in CLASSIFIERS if name not in EXACT_CLASSIFIERS)
#: The problems' names in the panels' titles.
PROBLEM_LABELS = {"four-gaussian": "Four-Gaussian", "quadratic": "Quadratic"}
#: The classifiers' names in the panels' titles.
CLASSIFIER_LABELS = {"lda": "LDA", "qda": "QDA", "logreg": "logistic regression", "kknn5": "5-NN (kknn)",
                     "svm": "SVM"}


class _Settings(TypedDict):
    """The sizes of one run of :func:`truth_resolution_data` (an entry of :data:`SETTINGS`)."""

    steps: tuple[int, ...]  #: the sizes :math:`|D_S|` of the labelled sets
    replicates: int
    n_candidates: int  #: candidates per state
    sizes: tuple[int, ...]  #: population sizes compared with the exact truth
    sampled_sizes: tuple[int, ...]  #: population sizes compared between two independent populations


#: Sizes, full and quick: ``steps`` are the sizes :math:`|D_S|` of the labelled sets, ``sizes`` the population
#: sizes compared with the exact truth, ``sampled_sizes`` those compared between two independent populations.
SETTINGS: dict[bool, _Settings] = {False: dict(steps=(10, 25, 50, 100, 200), replicates=4, n_candidates=40,
                        sizes=(10**4, 10**5, 10**6), sampled_sizes=(10**4, 10**5)),
            True: dict(steps=(10, 40), replicates=2, n_candidates=20,
                       sizes=(10**3, 10**4), sampled_sizes=(10**3, 10**4))}
#: The x axis (log scale) reaches this factor beyond the smallest and the largest :math:`|D_S|` (fixed limits: no
#: autoscaling through a vectorised logarithm, whose last bits depend on the CPU).
X_MARGIN = 1.2
#: Columns of :func:`truth_resolution_data`'s table, one row per (state, classifier, population size).
COLUMNS = ("problem", "classifier", "reference", "population_size", "n_labelled", "replicate", "spearman")


def draw_states(problem: Problem, steps: tuple[int, ...], n_candidates: int,
                rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    r"""The random-selection states of one replicate: ``(X_S, y_S, candidates)`` per entry of ``steps``.

    The labelled stream is :func:`~mri_theory.problems.initial_labelled_set`
    (one point per class) followed by ``max(steps) - k`` i.i.d. draws, all from
    ``rng``; state ``i`` labels its first ``steps[i]`` points.  Then, in the
    order of ``steps``, each state's ``n_candidates`` candidates are drawn from
    ``rng``.

    Parameters
    ----------
    problem : Problem
    steps : tuple of int
        Sizes :math:`|D_S|`, each at least the number of classes ``k``.
    n_candidates : int
    rng : numpy.random.Generator

    Returns
    -------
    list of (ndarray (n, d), ndarray (n,), ndarray (n_candidates, d))
    """
    k = problem.n_classes
    if not isinstance(steps, tuple) or not steps:
        raise TypeError(f"steps must be a non-empty tuple of ints, got {steps!r}")
    steps = tuple(check.count(s, "steps", minimum=k) for s in steps)
    n_candidates = check.count(n_candidates, "n_candidates")
    rng = check.generator(rng)
    X, y = initial_labelled_set(problem, rng)
    if max(steps) > k:
        X1, y1 = problem.sample(max(steps) - k, rng)
        X, y = np.concatenate([X, X1]), np.concatenate([y, y1])
    return [(X[:n], y[:n], problem.sample(n_candidates, rng)[0]) for n in steps]


def _spearman(a: np.ndarray, b: np.ndarray, where: str) -> float:
    r"""Spearman's correlation of the tie classes of ``a`` and ``b`` (``mri_theory._utils.ties.tie_classes``).

    Values within ``TIE_TOLERANCE * max(1, max |values|)`` of each other share a rank.  A candidate that changes
    no population point has :math:`Q^c = 0` in exact arithmetic, but the engine returns ``L - sum_j p_j L`` with
    the rounding of the BLAS dot product behind ``L`` and of the vectorised ``exp`` behind ``p``: about
    :math:`\pm 10^{-17}`, with a sign that depends on the CPU's instruction set.  Ranked as they are, such
    values moved the 5-NN panels between machines; as tie classes they are tied everywhere.  On the integer
    classes every sum inside ``spearmanr`` is exact, so the correlation has the same bits on any machine.
    """
    a_classes, b_classes = tie_classes(a), tie_classes(b)
    if np.all(a_classes == 0) or np.all(b_classes == 0):
        raise RuntimeError(f"{where}: Q^c is constant over the candidates (within the tie tolerance), so its "
                           "Spearman correlation is undefined")
    return float(spearmanr(a_classes, b_classes).statistic)


def truth_resolution_data(quick: bool, rng: np.random.Generator) -> pd.DataFrame:
    r"""Spearman correlations between sampled and exact (or two independent sampled) :math:`Q^c`, per state.

    For each problem of :data:`PROBLEMS` (in order) ``rng`` spawns one
    generator, which spawns one per replicate; replicate ``r`` spawns three:
    the states (:func:`draw_states`), the first populations (one per entry of
    ``sizes``, ascending, drawn in turn) and the second, independent
    populations (one per entry of ``sampled_sizes``), all
    ``Population.from_problem(problem, size, ·, method="qmc")``.  In every
    state, :math:`Q^c` (error loss, :func:`~mri_theory.engine.targets.true_q_c`)
    of each classifier of :data:`EXACT_CLASSIFIERS` on each first population is
    correlated with its exact value, and that of each classifier of
    :data:`SAMPLED_CLASSIFIERS` on a first population with its value on the
    second population of the same size.

    Parameters
    ----------
    quick : bool
        The small sizes of :data:`SETTINGS` (a smoke test of a few seconds).
    rng : numpy.random.Generator
        The only source of randomness; the same generator state gives the same table.

    Returns
    -------
    pandas.DataFrame
        The columns :data:`COLUMNS`: ``reference`` is ``"exact"`` or
        ``"independent"``, ``spearman`` the correlation over the state's
        candidates of the tie classes of the two (Notes).  Rows come in the
        order problem, replicate, state, classifier, size.

    Raises
    ------
    RuntimeError
        If a state's :math:`Q^c` is constant over its candidates (Spearman undefined).

    Notes
    -----
    The correlation ranks tie classes: values within ``TIE_TOLERANCE`` (relative, module notes) of each other
    share a rank, so no correlation depends on the last bits of a sum or of a vectorised ``exp``.
    """
    quick, rng = check.flag(quick, "quick"), check.generator(rng)
    s = SETTINGS[quick]
    rows = []
    for name, problem_rng in zip(PROBLEMS, rng.spawn(len(PROBLEMS)), strict=True):
        problem = get_problem(name)
        exact = Population.exact(problem)
        for replicate, replicate_rng in enumerate(problem_rng.spawn(s["replicates"])):
            state_rng, first_rng, second_rng = replicate_rng.spawn(3)
            states = draw_states(problem, s["steps"], s["n_candidates"], state_rng)
            first = {n: Population.from_problem(problem, n, first_rng, method="qmc") for n in s["sizes"]}
            second = {n: Population.from_problem(problem, n, second_rng, method="qmc") for n in s["sampled_sizes"]}
            for X, y, candidates in states:
                for classifier in CLASSIFIERS:
                    clf = get_classifier(classifier)
                    if classifier in EXACT_CLASSIFIERS:
                        reference, q_exact = "exact", true_q_c(problem, clf, X, y, candidates, exact)
                        references = {n: q_exact for n in s["sizes"]}
                    else:
                        reference, references = "independent", {
                            n: true_q_c(problem, clf, X, y, candidates, second[n]) for n in s["sampled_sizes"]}
                    for size, q_reference in references.items():
                        q = true_q_c(problem, clf, X, y, candidates, first[size])
                        where = f"{name}, {classifier}, |D_S| = {len(y)}, replicate {replicate}, size {size}"
                        rows.append((name, classifier, reference, size, len(y), replicate,
                                     _spearman(q, q_reference, where)))
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _count(n: int) -> str:
    """``n`` as :math:`10^k` when it is a power of ten, else with thousands separators."""
    k = len(str(n)) - 1
    return f"$10^{{{k}}}$" if n == 10**k else f"{n:,}"


def plot_truth_resolution(data: pd.DataFrame, note: str = "") -> Figure:
    """Draw the figure from a :func:`truth_resolution_data` table.

    One row of panels per problem and one column per classifier, both in order
    of appearance in ``data``; one line per population size, the mean of
    ``spearman`` over replicates with +-1 SE error bars (``ddof=1``; none with
    one replicate), against ``n_labelled`` on a log axis (from the smallest ``n_labelled`` / :data:`X_MARGIN` to the
    largest times it), and a dotted line at 1.

    Parameters
    ----------
    data : DataFrame
        A :func:`truth_resolution_data` table (columns :data:`COLUMNS`).
    note : str, default ""
        Added to the title as a last line.

    Returns
    -------
    Figure
        The figure.
    """
    data = check.data_frame(data, "data", COLUMNS)
    keys = ["problem", "classifier", "reference", "population_size", "n_labelled"]
    grouped = data.groupby(keys, sort=False)["spearman"]
    summary = grouped.mean().to_frame("mean").assign(se=grouped.std(ddof=1) / np.sqrt(grouped.count())).reset_index()
    problems, classifiers = list(dict.fromkeys(data.problem)), list(dict.fromkeys(data.classifier))
    sizes, steps = sorted(data.population_size.unique()), sorted(data.n_labelled.unique())
    colours = {n: f"C{i}" for i, n in enumerate(sizes)}
    fig = Figure(figsize=(3.4 * len(classifiers) + 0.6, 3.3 * len(problems) + 1.6), layout="constrained")
    axes = fig.subplots(len(problems), len(classifiers), sharex=True, sharey=True, squeeze=False)
    for row, problem in enumerate(problems):
        for col, classifier in enumerate(classifiers):
            ax, part = axes[row, col], summary[(summary.problem == problem) & (summary.classifier == classifier)]
            ax.axhline(1.0, color="black", ls=":", lw=1)
            ax.axhline(0.0, color="grey", ls="-", lw=0.5)
            for k, size in enumerate(sorted(part.population_size.unique())):
                line = part[part.population_size == size].sort_values("n_labelled")
                offset = 1 + 0.02 * (k - 1)  # small log-x dodge so the bars do not overlap
                ax.errorbar(line.n_labelled.to_numpy() * offset, line["mean"].to_numpy(), yerr=line.se.to_numpy(),
                            color=colours[size], marker="o", ms=3.5, lw=1.4, capsize=2,
                            label=f"{_count(size)} points")
            against = r"vs exact $Q^c$" if part.reference.iloc[0] == "exact" else "two independent populations"
            ax.set_title(f"{PROBLEM_LABELS.get(problem, problem)}, {CLASSIFIER_LABELS.get(classifier, classifier)}"
                         f"\n{against}", fontsize=9)
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(ScalarFormatter())
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xticks(steps)
            # Fixed limits, a factor of X_MARGIN beyond the outer steps: matplotlib's autoscaling of a log axis
            # goes through numpy's vectorised log10 and power, whose last bits differ between CPUs (issue 54).
            ax.set_xlim(steps[0] / X_MARGIN, steps[-1] * X_MARGIN)
            if col == 0:
                ax.set_ylabel("Spearman over candidates")
            if row == len(problems) - 1:
                ax.set_xlabel(r"$|D_S|$ (log scale)")
    handles: dict[str, Artist] = {}
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=len(handles),
               title="population size (scrambled Sobol')")
    independent = list(dict.fromkeys(data.classifier[data.reference == "independent"]))
    against = (" (or between two independent populations of the same size: "
               + ", ".join(CLASSIFIER_LABELS.get(name, name) for name in independent) + ")") if independent else ""
    fig.suptitle(r"How well a sampled true $Q^c$ ranks the candidates: Spearman correlation with the exact $Q^c$"
                 f"{against}\nerror loss, random-selection states, mean ± 1 SE over replicates"
                 + (f"\n{note}" if note else ""), fontsize=10)
    return fig


@register("truth_resolution", "Spearman between the sampled and the exact true Q^c against |D_S|, "
                              "Four-Gaussian and Quadratic", seed=19)
def make(quick: bool, rng: np.random.Generator) -> Figure:
    """:func:`truth_resolution_data` at the sizes of :data:`SETTINGS` ``[quick]``, drawn by
    :func:`plot_truth_resolution` with the sizes as the title's last line."""
    s = SETTINGS[quick]
    note = f"{s['replicates']} replicates, {s['n_candidates']} candidates per state."
    return plot_truth_resolution(truth_resolution_data(quick, rng), note)
