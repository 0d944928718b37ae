r"""The estimator diagnostics of ``mri-theory diagnose``: the states of several classifiers and their summaries.

:func:`run_diagnostics` scores the states of one problem with each of several
classifiers (:func:`mri_theory.runners.states.score_states`, one folder per
classifier), then summarises them: how well each strategy's scores rank the
candidates by their true :math:`Q^c`
(:func:`mri_theory.evaluation.summaries.summarise_states`), and the errors
:math:`M = \hat T_e - T_e` of the strategies that estimate :math:`T_e` (SMRI
and BMRI, Algorithms 1-2) against the assumptions of §3.3's guarantee
(:func:`mri_theory.evaluation.summaries.estimator_errors`).

Output folder (``out``):

``{problem}__{classifier}/``
    the resumable folder of :func:`~mri_theory.runners.states.score_states`
    for each classifier (its labels: a name as given, an object by its ``name``).
``summary.csv``
    :func:`~mri_theory.evaluation.summaries.summarise_states` of all the states.
``errors.csv``
    :func:`~mri_theory.evaluation.summaries.estimator_errors` of all the
    states, when a strategy estimates :math:`T_e` (``Strategy.estimates_t_e``);
    otherwise absent (one left by an earlier run is removed).
``DIAGNOSTICS.md``
    the settings, the library versions, the wall time of the call and the
    main columns of both tables.
``checksums.json``
    the SHA-256 of the three files above (``mri_theory.runners._store``).
``.lock``
    the call holds the folder's exclusive lock from before the first state is
    scored until its last file is written: one writer at a time, a second one
    is refused with a ``ValueError`` naming ``out`` and the pid of the first.

The floats of the summaries are computed with one BLAS thread
(``mri_theory._utils.backends.one_thread``), so the files are the same
bytes whatever the machine's thread count or the execution.
"""

from __future__ import annotations

import operator
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from mri_theory._utils import backends
from mri_theory._utils.backends import Execution
from mri_theory._utils.versions import library_versions
from mri_theory.classifiers import Classifier
from mri_theory.evaluation.summaries import estimator_errors, summarise_states
from mri_theory.problems import Problem
from mri_theory.runners import _grid, _store
from mri_theory.runners._docstrings import fill_doc
from mri_theory.runners.states import execute_states
from mri_theory.strategies import Strategy

__all__ = ["SUMMARY_FILES", "Diagnostics", "run_diagnostics"]

#: The files :func:`run_diagnostics` writes into ``out`` (their checksums in ``checksums.json``).
SUMMARY_FILES = ("summary.csv", "errors.csv", "DIAGNOSTICS.md")

#: The columns of each table shown in ``DIAGNOSTICS.md``.
_SHOWN = ["classifier", "strategy", "n_labelled", "states", "resolved", "spearman", "normalised_shortfall",
          "lambda_hat"]
_ERRORS_SHOWN = ["classifier", "strategy", "n_labelled", "resolved", "relative_bias", "corr_m_q", "corr_abs_q",
                 "measured_shortfall", "predicted_shortfall_iid", "centred", "independent", "homoscedastic",
                 "identically_distributed"]


class Diagnostics(NamedTuple):
    """What :func:`run_diagnostics` computed and wrote.

    Parameters
    ----------
    states : DataFrame
        The states of every classifier, one :func:`~mri_theory.runners.states.score_states` table after another.
    summary : DataFrame
        :func:`~mri_theory.evaluation.summaries.summarise_states` of ``states`` (``summary.csv``).
    errors : DataFrame or None
        :func:`~mri_theory.evaluation.summaries.estimator_errors` of ``states`` (``errors.csv``), or None when no
        strategy estimates T_e.
    paths : list of Path
        The files written into ``out``: ``summary.csv``, ``errors.csv`` (with ``errors``) and ``DIAGNOSTICS.md``.

    See Also
    --------
    mri_theory.runners.run_diagnostics : Computes and writes it.

    Examples
    --------
    Random sampling (RS) estimates no :math:`T_e`, so a run of RS alone has no ``errors`` and writes no
    ``errors.csv``:

    >>> import tempfile
    >>> from mri_theory.runners import Diagnostics, Execution, run_diagnostics
    >>> tmp = tempfile.TemporaryDirectory()
    >>> result = run_diagnostics("four-gaussian", "lda", "RS", replicates=1, steps=[2], pool_size=6,
    ...                          population_size=200, out=tmp.name, execution=Execution(progress=False))
    >>> isinstance(result, Diagnostics), result._fields
    (True, ('states', 'summary', 'errors', 'paths'))
    >>> states, summary, errors, paths = result  # a named tuple: it unpacks
    >>> states.shape, summary.shape, errors, [path.name for path in paths]
    ((4, 14), (1, 19), None, ['summary.csv', 'DIAGNOSTICS.md'])
    >>> tmp.cleanup()
    """

    states: pd.DataFrame
    summary: pd.DataFrame
    errors: pd.DataFrame | None
    paths: list[Path]


@fill_doc
def run_diagnostics(
    problem: str | Problem,
    classifiers: Sequence[str | Classifier] | str | Classifier,
    strategies: Sequence[str | Strategy] | str | Strategy,
    replicates: int = 10,
    steps: Sequence[int] = (2, 10, 30),
    pool_size: int | str = 100,
    *,
    trajectory: str | Strategy = "RS",
    population_size: int = 10_000,
    seed: int = 0,
    truth: str = "auto",
    out: str | os.PathLike,
    out_name: str = "out",
    execution: Execution | None = None,
) -> Diagnostics:
    r"""Score the states of ``problem`` with each classifier, and write the summaries of ranking and estimators.

    For each classifier, :func:`~mri_theory.runners.states.score_states`
    scores every remaining candidate with every strategy and with the true
    :math:`Q^c` along the reference trajectories, in ``out/{problem}__{classifier}``
    (resumable).  The states of all classifiers are then summarised: the
    ranking quality of every strategy (Spearman correlation with the true
    :math:`Q^c`, normalised shortfall, :math:`\hat\lambda`), and for the
    strategies that estimate :math:`T_e` (SMRI, BMRI) the errors
    :math:`M = \hat T_e - T_e` measured against the assumptions of §3.3's
    guarantee (:math:`\lambda = \tfrac12 + \beta` for unbiased i.i.d. errors).
    The module docstring lists the files.

    Parameters
    ----------
    %(problem)s
        It must have the truth (``has_truth``).
    classifiers : str, Classifier, or a sequence of names and Classifier objects
        Names from :func:`mri_theory.classifiers.list_classifiers` and
        unfitted :class:`~mri_theory.classifiers.Classifier` templates, with
        distinct labels (a name as given, an object's ``name``).
    strategies, replicates, steps, pool_size, trajectory, population_size, seed, truth
        As in :func:`~mri_theory.runners.states.score_states`, the same for
        every classifier (with ``truth="auto"`` each classifier's truth is
        exact where it can be; the report lists which).
    out : path
        The output folder (module docstring); created if needed.
    %(out_name)s
    %(execution)s

    Returns
    -------
    Diagnostics
        The states, ``summary``, ``errors`` (None when no strategy estimates
        :math:`T_e`) and the paths of the files written.

    Raises
    ------
    %(raises_grid)s
    %(raises_io)s

    Warns
    -----
    %(warns_damaged)s

    See Also
    --------
    mri_theory.runners.score_states : The states of one classifier.
    mri_theory.evaluation.summarise_states : The ranking summaries (``summary.csv``).
    mri_theory.evaluation.estimator_errors : The errors of the estimators of :math:`T_e` (``errors.csv``).

    Examples
    --------
    Random sampling (RS) and SMRI, which estimates :math:`T_e`, in the states after 2 random labels of one
    replicate of a pool of 6, with LDA and naive Bayes:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from mri_theory.runners import Execution, run_diagnostics
    >>> settings = dict(replicates=1, steps=[2], pool_size=6, population_size=200, execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> result = run_diagnostics("four-gaussian", ["lda", "nb"], ["RS", "SMRI"], **settings, out=tmp.name)
    >>> sorted(path.name for path in Path(tmp.name).iterdir() if not path.name.startswith("."))
    ['DIAGNOSTICS.md', 'checksums.json', 'errors.csv', 'four-gaussian__lda', 'four-gaussian__nb', 'summary.csv']
    >>> result.states.groupby("classifier").size().to_dict()  # 2 strategies x the 4 candidates left
    {'lda': 8, 'nb': 8}

    RS is the reference of the summaries: its normalised shortfall is 1 and its :math:`\hat\lambda` one half.
    Only SMRI has errors, and their measured shortfall is SMRI's shortfall in the summary:

    >>> summary, errors = result.summary, result.errors
    >>> summary.loc[summary.strategy == "RS", ["normalised_shortfall", "lambda_hat"]].values.tolist()
    [[1.0, 0.5], [1.0, 0.5]]
    >>> errors.strategy.tolist()
    ['SMRI', 'SMRI']
    >>> errors.measured_shortfall.tolist() == summary.loc[summary.strategy == "SMRI", "shortfall"].tolist()
    True

    Rerunning the finished folder computes nothing: each classifier's verified states are reused as they are.

    >>> parts = sorted((Path(tmp.name) / "four-gaussian__lda" / "parts").iterdir())
    >>> written = [part.stat().st_mtime_ns for part in parts]
    >>> again = run_diagnostics("four-gaussian", ["lda", "nb"], ["RS", "SMRI"], **settings, out=tmp.name)
    >>> again.summary.equals(summary), [part.stat().st_mtime_ns for part in parts] == written
    (True, True)
    >>> tmp.cleanup()
    """
    start = time.perf_counter()
    classifiers, strategies, steps = _grid.listed(classifiers), _grid.listed(strategies), _grid.listed(steps)
    if isinstance(classifiers, (str, Classifier)):
        classifiers = [classifiers]
    elif not isinstance(classifiers, list):
        raise TypeError(f"classifiers must be a classifier name or Classifier object, or a sequence of them; "
                        f"got {type(classifiers).__name__}")
    if not classifiers:
        raise ValueError("classifiers must name at least one classifier")
    folder = _grid.check_folder(out, out_name, SUMMARY_FILES, "run_diagnostics")
    execution = backends.check_execution(execution)
    pairings = _grid.plan_grid([problem], classifiers, strategies, replicates, steps, pool_size,
                               trajectory=trajectory, population_size=population_size, seed=seed, truth=truth,
                               folder=folder, execution=execution)  # every classifier's call checked before any work
    problem_label, labels, plans = pairings[0].problem, [p.classifier for p in pairings], [p.plan for p in pairings]
    config = plans[0].states.config
    settings = {"strategies": list(config.strategies), "replicates": plans[0].replicates,
                "steps": [operator.index(step) for step in steps], "pool_size": config.pool_size,
                "trajectory": config.trajectory, "population_size": config.population_size, "seed": config.seed,
                "truth": truth + " (" + ", ".join(f"{name}: {plan.states.config.truth}"
                                                 for name, plan in zip(labels, plans, strict=True)) + ")"}
    with _store.locked(folder, out_name, owner="run_diagnostics"):  # one writer of out (summaries, checksums)
        states = pd.concat([execute_states(plan) for plan in plans], ignore_index=True)
        estimators = any(strategy.estimates_t_e for strategy in plans[0].strategies.values())
        with backends.one_thread():  # floats written to summary.csv / errors.csv: summed as with one BLAS thread
            summary = summarise_states(states)
            errors = estimator_errors(states) if estimators else None
        minutes = (time.perf_counter() - start) / 60
        lines = [f"# Estimator diagnostics on {problem_label}", "",
                 f"Classifiers: {', '.join(labels)}. Settings: "
                 + "; ".join(f"{key} {value}" for key, value in settings.items()) + ".", "",
                 f"Wall time of this invocation: {minutes:.1f} min (states already in the folder are reused).", "",
                 "Library versions: " + ", ".join(f"{k}=={v}" for k, v in library_versions().items()) + ".", "",
                 "## Ranking quality (mean over replicates; all columns in summary.csv)", "",
                 "Statistics over the resolved states only (`resolved`: the fraction of states whose truth's best "
                 "candidate is decided by the sampled truth's race, decisive_q_c; 1 with exact truth).", "", "```",
                 summary[_SHOWN].round(3).to_string(index=False), "```", "",
                 "## Errors M of the T_e estimators (all columns in errors.csv)", ""]
        lines += (["```", errors[_ERRORS_SHOWN].round(3).to_string(index=False), "```", ""] if errors is not None
                  else ["None of the strategies estimates T_e (SMRI and BMRI do): no errors.csv.", ""])
        written = {"summary.csv": _store.csv_bytes(summary)}
        if errors is not None:
            written["errors.csv"] = _store.csv_bytes(errors)
        written["DIAGNOSTICS.md"] = "\n".join(lines).encode()
        stale = folder / "errors.csv"
        if errors is None and stale.is_file():  # left by an earlier run with other strategies
            stale.unlink()
        _store.write_tables(folder, written, None)
    return Diagnostics(states, summary, errors, [folder / name for name in written])
