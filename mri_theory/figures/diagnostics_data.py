"""The one scoring run behind the figures ``estimator_quality`` and ``estimator_errors``.

Both figures read the same tidy table of :func:`mri_theory.runners.score_states`
(Four-Gaussian; 5-NN and LDA; random-selection reference trajectories) and its
summaries.  :func:`diagnostics_tables` caches it per ``(quick, seed)``, so
``mri-theory figures`` scores the states once: both figures are registered
with the same seed and draw the same integer seed from their generator.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from mri_theory._utils.backends import Execution
from mri_theory.classifiers import get_classifier
from mri_theory.engine import resolve_truth
from mri_theory.evaluation import estimator_errors, summarise_states
from mri_theory.problems import get_problem
from mri_theory.runners import score_states

__all__ = ["CLASSIFIERS", "CLASSIFIER_LABELS", "COLOURS", "EARLY_LATE", "FIGURE_SEED", "PROBLEM", "SIZES",
           "STRATEGIES", "DiagnosticTables", "diagnostics_tables", "figure_seed", "truth_note"]

#: Registry seed of both figures (equal seeds give equal integer seeds, hence one cached run).
FIGURE_SEED = 11
#: The problem whose states are scored.
PROBLEM = "four-gaussian"
#: The classifiers scored, one panel column each.
CLASSIFIERS = ("knn5", "lda")
#: The classifiers' names in the panels' titles.
CLASSIFIER_LABELS = {"knn5": "5-NN", "lda": "LDA"}
#: Scored strategies, full and quick (the quick run, a smoke test, leaves out QbcV and EfeLc).
STRATEGIES = {False: ("RS", "SE", "QbcV", "EfeLc", "SMRI", "BMRI", "MRI-best"),
              True: ("RS", "SE", "SMRI", "BMRI", "MRI-best")}
#: Sizes of the scoring run (full: about a minute on one core; quick: a few seconds).  ``steps`` are labels
#: acquired along the RS trajectory; Four-Gaussian has two classes, so ``n_labelled = 2 + step``.
SIZES: dict[bool, dict[str, Any]] = {
    False: dict(replicates=16, steps=(4, 8, 16, 36, 96), pool_size=200, population_size=5000),
    True: dict(replicates=2, steps=(6, 26), pool_size=60, population_size=2000)}
#: Positions in ``steps`` of the "early" and "late" states of the error figure.
EARLY_LATE = {False: (1, -1), True: (0, -1)}
#: Each strategy's colour, the same in both figures.
COLOURS = {"RS": "tab:orange", "SE": "tab:purple", "QbcV": "tab:brown", "EfeLc": "tab:olive", "SMRI": "tab:cyan",
           "BMRI": "tab:blue", "MRI-best": "tab:green"}


class DiagnosticTables(NamedTuple):
    """The scored states and their summaries (shared by the two figures: do not modify them).

    Parameters
    ----------
    states : DataFrame
        The scored states (:func:`~mri_theory.runners.score_states`), both classifiers.
    summary : DataFrame
        Their summaries (:func:`~mri_theory.evaluation.summarise_states`).
    errors : DataFrame
        The estimators' errors per cell (:func:`~mri_theory.evaluation.estimator_errors`).
    errors_per_state : DataFrame
        The same per state (``per_state=True``).
    """

    states: pd.DataFrame
    summary: pd.DataFrame
    errors: pd.DataFrame
    errors_per_state: pd.DataFrame


def truth_note(quick: bool) -> str:
    """How each classifier's truth is evaluated in the scoring run (``truth="auto"``), for a figure's title.

    Parameters
    ----------
    quick : bool
        Whether the run is the quick one (its population size differs).

    Returns
    -------
    str
        "truth exact for ..." where a run's ``truth="auto"`` takes the exact truth
        (:func:`~mri_theory.engine.resolve_truth`), "sampled (N points) for ..." for the others.
    """
    problem = get_problem(PROBLEM)
    exact = [CLASSIFIER_LABELS[c] for c in CLASSIFIERS if resolve_truth("auto", problem, get_classifier(c)) == "exact"]
    sampled = [CLASSIFIER_LABELS[c] for c in CLASSIFIERS if CLASSIFIER_LABELS[c] not in exact]
    parts = ([f"truth exact for {' and '.join(exact)}"] if exact else []) + \
        ([f"sampled ({SIZES[quick]['population_size']} points) for {' and '.join(sampled)}"] if sampled else [])
    return ", ".join(parts)


def figure_seed(rng: np.random.Generator) -> int:
    """The integer seed of the scoring run, drawn from the figure's generator.

    Parameters
    ----------
    rng : Generator
        The figure's generator (one draw is taken).

    Returns
    -------
    int
        A seed in ``[0, 2**31)``.
    """
    return int(rng.integers(2**31))


@lru_cache(maxsize=2)
def diagnostics_tables(quick: bool, seed: int) -> DiagnosticTables:
    """Score the states of :data:`SIZES` ``[quick]`` for both classifiers and summarise them (cached).

    Parameters
    ----------
    quick : bool
        The quick sizes (a smoke test) or the full ones.
    seed : int
        The scoring run's seed (:func:`figure_seed`).

    Returns
    -------
    DiagnosticTables
        The states, their summaries and the estimators' errors.
    """
    states = pd.concat([score_states(problem=PROBLEM, classifier=classifier, strategies=list(STRATEGIES[quick]),
                                     seed=seed, execution=Execution(progress=False), **SIZES[quick])
                        for classifier in CLASSIFIERS], ignore_index=True)
    return DiagnosticTables(states, summarise_states(states), estimator_errors(states),
                            estimator_errors(states, per_state=True))
