"""A grid of scored-states folders, shared by ``mri-theory diagnose`` and ``mri-theory leaderboard``.

One :func:`~mri_theory.runners.states.score_states` folder per (problem, classifier),
``{out}/{problem}__{classifier}`` (the labels: a name as given, an object by its ``name``), every call
planned (:func:`~mri_theory.runners.states.plan_states`: all its checks, nothing written) before any is
run, so a bad argument of any pairing is refused before the first state is scored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from mri_theory._utils import validation as check
from mri_theory._utils.backends import Execution
from mri_theory._utils.registry import label
from mri_theory.classifiers import Classifier
from mri_theory.problems import Problem
from mri_theory.runners import _resolve, _store
from mri_theory.runners.states import StatesPlan, plan_states
from mri_theory.strategies import Strategy

_T = TypeVar("_T")


class Pairing(NamedTuple):
    """One (problem, classifier) of the grid: its labels, its checked :func:`score_states` call and its folder."""

    problem: str
    classifier: str
    plan: StatesPlan
    folder: Path


def listed(value: _T) -> _T | list[Any]:
    """A one-pass iterable as a list (it is read once per pairing); anything else unchanged."""
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, Strategy, Classifier, Problem)):
        return list(value)
    return value


def check_folder(out: Any, out_name: str, files: Sequence[str], runner: str) -> Path:
    """``out`` as the Path of a writable folder, new or made by ``runner`` (:func:`~mri_theory.runners._store.claim`),
    in which none of ``files`` (nor the lock or the checksums) is a folder; a ValueError or TypeError naming
    ``out_name`` otherwise.  Checks only, creates nothing."""
    folder = check.output_folder(out, out_name)
    for name in (_store.LOCK_FILE, _store.CHECKSUMS_FILE, *files):
        if (folder / name).is_dir():
            raise ValueError(f"{out_name}: {folder / name} should be a file")
    _store.claim(folder, runner, out_name)
    return folder


def plan_grid(problems: Sequence[str | Problem], classifiers: Sequence[str | Classifier], strategies: Any,
              replicates: Any, steps: Any, pool_size: Any, *, trajectory: Any, population_size: Any, seed: Any,
              truth: Any, folder: Path, execution: Execution, timings: bool = False) -> list[Pairing]:
    """Every (problem, classifier)'s :func:`~mri_theory.runners.states.plan_states` call, problems outer,
    into ``folder/{problem}__{classifier}``; the classifiers' labels distinct (``classifiers``).

    The other arguments are those of :func:`~mri_theory.runners.states.score_states`, the same for every
    pairing (a one-pass iterable must be a list already: :func:`listed`).  Reads only, writes nothing.
    """
    pairings = []
    for problem in problems:
        problem_label = label(_resolve.resolve(problem, "problem", "problem")[0], "problem")
        labels = []
        for classifier in classifiers:
            labels.append(label(_resolve.resolve(classifier, "classifier", "classifier")[0], "classifier"))
            out = folder / f"{problem_label}__{labels[-1]}"
            plan = plan_states(problem, classifier, strategies, replicates, steps, pool_size, trajectory=trajectory,
                               population_size=population_size, seed=seed, truth=truth, out=out,
                               execution=execution, timings=timings)
            pairings.append(Pairing(problem_label, labels[-1], plan, out))
        _resolve.distinct(labels, "classifiers")
    return pairings
