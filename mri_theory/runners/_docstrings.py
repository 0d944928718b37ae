"""The text the runners' docstrings share, written once, and :func:`fill_doc`, which puts it in place.

Several runners take an argument of the same meaning (``problem``, ``truth``, ``execution``, ...) or raise
the same errors; the numpydoc text of each such entry is an item of :data:`DOCS`, and a runner's docstring
names it by a line that holds only ``%(name)s``.  :func:`fill_doc` replaces that line, when the module is
imported, by the entry with each of its lines indented as the placeholder was: an entry is written without
indentation and fits any section of any docstring.  Lines after a placeholder, indented as the entry's
description, go on with what is particular to the runner::

    @fill_doc
    def score_states(problem, ...):
        '''...

        Parameters
        ----------
        %(problem)s
            It must have the truth (``has_truth``): ...
        '''

Most entries are a whole parameter (its ``name : type`` line and description) or whole Raises or Warns
entries; ``grid_*`` are a description only, under the runner's own ``name : type`` line (its default).
The idea is SciPy's ``doccer`` (a mapping of snippets and a decorator filling them in at import time),
with two differences: only a placeholder alone on its line is replaced, so the rest of a docstring needs
no escaping (``%``, braces), and the indentation is the placeholder's own.  A placeholder that names no
entry, or one left anywhere else in the docstring, raises when the module is imported.  Without
docstrings (``python -OO``) the decorator does nothing.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = ["DOCS", "fill", "fill_doc"]

_F = TypeVar("_F", bound=Callable[..., Any])

#: A placeholder alone on its line, with its indentation.
_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)%\((?P<name>\w+)\)s[ \t]*$", re.MULTILINE)
#: A placeholder anywhere.
_ANY_PLACEHOLDER = re.compile(r"%\(\w+\)s")

_ENTRIES = {
    # ------------------------------------------------------------------ parameters
    "problem": """
        problem : str or Problem
            A name from :func:`mri_theory.problems.list_problems` (labelled by the
            name) or a :class:`~mri_theory.problems.Problem` (labelled by its
            ``name``).
        """,
    "classifier": """
        classifier : str or Classifier
            A name from :func:`mri_theory.classifiers.list_classifiers` (``knn5``,
            ``lda``, ``qda``, ``nb``, ``logreg``, ``svm``, ``rf``, ...) or an
            unfitted :class:`~mri_theory.classifiers.Classifier` template (cloned
            for every fit; labelled by its ``name``).
        """,
    "strategies": """
        strategies : "all", a name, a Strategy, or a sequence of names and Strategy objects
            Names from :func:`mri_theory.strategies.list_strategies` (``"all"``:
            every registered one) and :class:`~mri_theory.strategies.Strategy`
            instances, mixed, with distinct labels (a name as given, an object's
            ``name``), in the table's order.  The seeds follow the labels, so
            ``SimpleMRI()`` gives exactly the rows of ``"SMRI"``.  Only the
            oracles (``needs_truth``) are given the problem and the evaluation
            population; the practical strategies never see them.
        """,
    "pool_size": """
        pool_size : int or {"all", "auto"}
            The unlabelled pool drawn in each replicate: a size (at most
            100 000; for real data at most the problem's ``max_pool_size``),
            ``"all"`` (a real data set's whole pool: every row outside its
            test set and initial set, as in the paper's real-data study) or
            ``"auto"`` (``"all"`` for real data, for a simulated problem
            :data:`~mri_theory.runners.sandbox.SIMULATED_POOL_SIZE`, 250).
        """,
    "replicates": """
        replicates : int
            Monte Carlo replicates (paired: all strategies share each replicate's
            data; at most 100 000).
        """,
    "seed": """
        seed : int
            ``>= 0``: seeds every random stream (module docstring, "Seeds").
        """,
    "population_size": """
        population_size : int
            The evaluation population (QMC, exact posteriors) of the sampled
            truth, at most 1 000 000.
        """,
    "truth": """
        truth : {"auto", "exact", "sampled"}, default "auto"
            How the truth (the true loss and :math:`Q^c`) is evaluated:
            ``"exact"`` integrates it over the problem's Gaussian mixture
            (:meth:`Population.exact
            <mri_theory.engine.population.Population.exact>`; LDA, QDA, naive
            Bayes, the mean classifier and logistic regression on the
            Gaussian-mixture problems), ``"sampled"`` averages it over each
            replicate's QMC population of ``population_size`` points (real data:
            its test set), ``"auto"`` is exact where it is available
            (:func:`~mri_theory.engine.targets.exact_truth_available`) and
            sampled otherwise.  The pool and the initial set are the same either
            way.
        """,
    "out": """
        out : path, optional
            A folder for verified, resumable storage (module docstring, "Output
            folder"), created if needed (it must not be a file and must be
            writable): every finished task is written to it atomically as it
            arrives, and a rerun with the same folder and settings resumes,
            computing only the tasks without a verified file.  One process
            writes a folder at a time: a second run is refused, naming the pid
            of the first.
        """,
    "out_name": """
        out_name : str, default "out"
            How the messages name ``out`` (the command line passes ``"--out"``).
        """,
    "execution": """
        execution : Execution, optional
            Where and how the tasks run (:class:`~mri_theory.runners.Execution`:
            local or Dask, worker processes, a progress bar); default
            ``Execution()``, in this process with a progress bar.  Results and
            files are identical whatever runs them.
        """,
    # ------------------------------------------------------------------ descriptions of a grid's parameters
    "grid_problems": """
        Problem names (:func:`~mri_theory.problems.list_problems`), groups
        (:data:`~mri_theory.runners.study.PROBLEM_GROUPS`: ``"abstract"``, the
        paper's five; ``"small"``, its ten smaller real data sets, which have
        no truth: a study only) and
        :class:`~mri_theory.problems.Problem` objects, mixed,
        with distinct labels (a name as given, an object's ``name``) after
        expansion.
        """,
    "grid_classifiers": """
        Classifier names (:func:`~mri_theory.classifiers.list_classifiers`),
        sets (:data:`~mri_theory.runners.study.CLASSIFIER_SETS`: ``"paper"``,
        the paper's six) and unfitted :class:`~mri_theory.classifiers.Classifier`
        templates, mixed, with distinct labels.
        """,
    "grid_strategies": """
        Strategy names, sets (:data:`~mri_theory.runners.study.STRATEGY_SETS`:
        ``"paper"``, ``"peers"``: scikit-activeml's named peers, an
        ``ImportError`` without the ``peers`` extra; ``"all"``: every
        strategy listed when the call is made,
        :func:`~mri_theory.strategies.list_strategies`, the peers only where
        scikit-activeml is installed) and
        :class:`~mri_theory.strategies.Strategy` objects (a scikit-activeml
        peer as :class:`~mri_theory.strategies.skactiveml.SkactivemlStrategy`),
        mixed, with distinct labels.
        """,
    # ------------------------------------------------------------------ Raises and Warns
    "raises_io": """
        OSError
            When a file cannot be written (a full disk, ...), naming the file, or
            when the Dask scheduler of ``execution`` cannot be reached.
        ImportError
            ``Execution(backend="dask")`` without the ``dask`` extra installed.
        """,
    "raises_grid": """
        ValueError, TypeError
            For bad arguments, naming the argument, before any work is done or
            any file is written: every (problem, classifier) pairing's call is
            checked first (:func:`~mri_theory.runners.states.plan_states`);
            ``out`` (named by ``out_name``) when it is missing or not a writable
            folder, when a folder stands where one of its files belongs, or when
            another process is writing it (its pid named).
        """,
    "warns_damaged": """
        DamagedPartWarning
            For each stored result that fails verification, naming the file and
            the reason; it is recomputed and its file overwritten.
        """,
}

#: The shared entries by name, each without indentation (module docstring).
DOCS: dict[str, str] = {name: textwrap.dedent(text).strip("\n") for name, text in _ENTRIES.items()}


def fill(doc: str, entries: Mapping[str, str] = DOCS) -> str:
    """``doc`` with every line that holds only ``%(name)s`` replaced by ``entries[name]``, each of its lines
    indented as the placeholder (module docstring).

    Raises
    ------
    KeyError
        A placeholder names no entry.
    ValueError
        A placeholder is left that is not alone on its line.
    """
    def entry(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in entries:
            raise KeyError(f"%({name})s names no shared docstring entry (mri_theory.runners._docstrings.DOCS)")
        return textwrap.indent(entries[name], match["indent"])

    filled = _PLACEHOLDER.sub(entry, doc)
    left = _ANY_PLACEHOLDER.search(filled)
    if left is not None:
        raise ValueError(f"{left.group()} is not alone on its line: only such a placeholder is filled")
    return filled


def fill_doc(func: _F) -> _F:
    """Decorator: ``func`` itself, its docstring filled with the shared entries (:func:`fill`)."""
    if func.__doc__ is not None:
        func.__doc__ = fill(func.__doc__)
    return func
