r"""The experimental study of §5: problems × classifiers × strategies × replicates, locally or on Dask.

:func:`run_study` runs the sandbox of §5.2 (:func:`mri_theory.runners.sandbox.run_curves`)
for every (problem, classifier) pairing of a grid, as one task per
(problem, classifier, strategy, replicate), plus one task per pairing for the
asymptotic loss (the loss after training on a much larger sample, §5.2; label
complexity is a fixed ratio of it, §2.2).  :func:`read_study` reads the
finished tables back and :func:`report` writes the paper's tables and figures
(:func:`mri_theory.evaluation.tables.write_report`).

MRI-best, the greedy maximiser of the true :math:`Q^c`, is added to the
strategies of every study: the paper's AL regret (§5.5, end) is the loss
difference between "the optimal performance given by maximising :math:`Q^c`"
and a method's, so the report needs MRI-best's learning curve in every
replicate.  ``record_q_c`` is off by default (the curve is all the regret
needs; recording the true :math:`Q^c` of every step of every practical method
costs one engine call per step).

Problems, classifiers and strategies are registered names or objects, mixed,
labelled as in :mod:`mri_theory.runners.sandbox` (a name as given, an object by its
``name``); every task carries its objects to the worker that runs it.  When
a problem has no truth (``has_truth`` False, real data) MRI-best is not
added, so the study has no regret.

Seeds: pairing (problem, classifier) runs :func:`~mri_theory.runners.sandbox.run_curves`
with the study's ``seed``, so a (problem, classifier, strategy, replicate) task
gives exactly the rows of ``run_curves(problem, classifier, ..., seed=seed)`` for
that strategy and replicate (seed scheme in :mod:`mri_theory.runners.sandbox`), whichever
backend runs it and whichever other tasks run.  The asymptotic loss of a pairing
draws from ``SeedSequence(seed, spawn_key=(crc32(b"asymptotic"), crc32(problem),
crc32(classifier)))`` (``crc32`` of the UTF-8 labels; the first key is far above
any replicate index, the sandbox streams' first key).

Backends (``execution=``, an :class:`~mri_theory.runners.Execution`, as for every runner):
``Execution(backend="local")`` runs the tasks in this process (``n_jobs=1``) or
in joblib worker processes; ``Execution(backend="dask")`` submits them to a
``dask.distributed`` cluster, a running one (``scheduler="tcp://host:8786"``;
its workers need ``mri-theory`` installed, not a shared filesystem) or a
``LocalCluster`` of ``n_jobs`` single-threaded worker processes started for
the run (``scheduler=None``).  Dask is an optional extra
(``pip install "mri-theory[dask]"``), imported only by the Dask backend.
Either way the workers only compute: this process writes every file, as each
result arrives.

A run goes through five stages: resolve (the arguments checked and resolved
into labelled objects), plan (settings, grid and tasks), load/verify (with
``out``, under its locks: ``study.json`` written, every verified result
read), execute (the missing tasks computed and written as they arrive) and
assemble (the tables, written with their checksums).

Output folder (``out``):

``study.json``
    ``{"format": 1, "settings": {...}, "grid": {...}}``: the settings (pool,
    budget, population, loss, sub-sample, ``record_q_c``, seed, ``truth`` and the
    asymptotic-loss sizes, as :func:`run_study`'s arguments; the pool as
    resolved: one size when every pairing has the same, else
    ``{problem: size}``, with ``{classifier: size}`` in place of the size of
    a problem whose classifiers differ, so a rule and the sizes it gives are
    the same settings) and the grid of
    the last run (preset, problems, classifiers, strategies, replicates as
    labels, and ``specs``: ``{"problems": {label: repr}, "classifiers": ...,
    "strategies": ...}``, the objects' parameters).  A run with other
    settings in the same folder is refused; the grid may grow (more
    replicates, strategies, problems or classifiers reuse every verified
    part).
``{problem}__{classifier}/``
    a results folder of :func:`~mri_theory.runners.sandbox.run_curves` for the pairing
    (``config.json``, verified ``parts/``, ``curves.csv``; readable with
    :func:`~mri_theory.runners.sandbox.read_curves`), plus ``asymptotic.json``: the
    pairing's asymptotic loss as ``{"format": 1, "settings": {...}`` (the
    labels, the ``repr`` of the problem and the classifier, the sizes),
    ``"asymptotic_loss": x, "sha256": h}`` where ``h`` is the SHA-256 of the
    canonical JSON (sorted keys, no spaces, UTF-8) of the record without
    ``sha256``.
``curves.csv``
    every pairing's learning curves (columns :data:`~mri_theory.runners._curves.RESULT_COLUMNS`),
    rebuilt from the verified parts at the end of every run.
``asymptotic.csv``
    columns :data:`ASYMPTOTIC_COLUMNS`, rebuilt from the verified records at
    the end of every run.
``checksums.json`` (here and in each pairing's folder)
    the SHA-256 of the folder's tables and of its settings file
    (``study.json``, a pairing's ``config.json``) when they were written
    (``mri_theory.runners._store``); :func:`read_study`,
    :func:`~mri_theory.runners.sandbox.read_curves` and :func:`report` refuse a
    table that does not match, naming it: an edited, cut or replaced table,
    or one left by a run that did not finish, is never reported.  Rerunning
    the same study rebuilds the tables from the verified parts.
``.lock`` (here and in each pairing's folder)
    a run holds an exclusive OS file lock (``fcntl.flock``, released when
    the process ends) on the study's and every pairing's ``.lock`` before it
    writes ``study.json`` and until its last file, and :func:`report` holds
    the study's while it reads and writes: one process writes a study at a
    time, and a second is refused with a ``ValueError`` naming the pid of
    the first.
``timings.csv``
    the cost of every task this folder's runs computed (columns
    :data:`TIMING_COLUMNS`): the CPU seconds of the thread that ran it and
    its wall seconds, rewritten by the calling process as each result
    arrives (an asymptotic loss has an empty ``strategy`` and replicate
    ``-1``).  A task computed again (its part was damaged) keeps its last
    timing.  Timings are a measurement, not a result: they differ from run
    to run, are not in ``checksums.json``, and an unreadable file is
    replaced (with a warning) rather than refused; :func:`read_timings`
    reads them, :func:`report` sums them in ``report/cost.csv``.
``report/``
    written by :func:`report`.

On resume a part or an ``asymptotic.json`` counts only if it passes
verification (the sandbox's checks for parts; for the record: readable JSON
with exactly the keys above, format 1, this pairing's settings, the checksum,
a finite loss >= 0); any other is reported by a
:class:`~mri_theory.runners._store.DamagedPartWarning` naming the file and the reason,
and recomputed.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import warnings
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from mri_theory._utils import backends, limits
from mri_theory._utils import validation as check
from mri_theory._utils.backends import Execution
from mri_theory.classifiers import CLASSIFIER_REGISTRY, Classifier, SVMConvergenceWarning
from mri_theory.evaluation import metrics
from mri_theory.problems import PROBLEM_REGISTRY, Problem
from mri_theory.runners import _curves, _resolve, _store, sandbox
from mri_theory.runners._docstrings import fill_doc
from mri_theory.runners.asymptotic import (
    POOL_RULE,
    POOL_RULE_REPLICATES,
    POOL_RULE_TOLERANCE,
    asymptotic_loss,
    asymptotic_pool_size,
    pool_rule_generator,
)
from mri_theory.runners.schedule import Plan, expected_costs, longest_first, simulate_makespan
from mri_theory.strategies import PEER_NAMES, Strategy, get_strategy, list_strategies, strategy_names

__all__ = ["ASYMPTOTIC_COLUMNS", "CLASSIFIER_SETS", "PRESETS", "PROBLEM_GROUPS", "STRATEGY_SETS", "TIMING_COLUMNS",
           "Execution", "Plan", "SOLVER_COLUMNS", "StudyResults", "default_groups", "plan_study", "read_study",
           "read_timings", "registered_problem_spec", "report", "run_study", "solver_stops", "study_record"]

#: Problem groups accepted by ``problems``: the paper's five abstract problems and its ten smaller real data sets
#: (Appendix D; the built-in problems registered with ``group="abstract"`` and ``group="small"``,
#: :data:`~mri_theory.problems.PROBLEM_REGISTRY`).
PROBLEM_GROUPS: dict[str, tuple[str, ...]] = {group: PROBLEM_REGISTRY.tagged("group", group)
                                              for group in ("abstract", "small")}
#: Classifier sets accepted by ``classifiers``: the paper's six base classifiers (Appendix C; 5-NN as R's kknn;
#: the built-in classifiers registered with ``origin="paper"``, :data:`~mri_theory.classifiers.CLASSIFIER_REGISTRY`).
CLASSIFIER_SETS: dict[str, tuple[str, ...]] = {"paper": CLASSIFIER_REGISTRY.tagged("origin", "paper")}
#: Strategy sets accepted by ``strategies``: the paper's seven methods (§5.1) and scikit-activeml's peers
#: (:data:`~mri_theory.strategies.PEER_NAMES`; naming the set without scikit-activeml raises an ``ImportError``
#: naming the ``peers`` extra); ``"all"`` (every strategy listed when :func:`run_study` is called,
#: :func:`~mri_theory.strategies.list_strategies`: the peers only where scikit-activeml is installed) is accepted too.
STRATEGY_SETS: dict[str, tuple[str, ...]] = {
    "paper": strategy_names("paper"),  # the strategies whose class declares origin "paper"
    "peers": PEER_NAMES,
}
#: Columns of the asymptotic-loss table.
ASYMPTOTIC_COLUMNS = ["problem", "classifier", "asymptotic_loss"]
#: Columns of ``timings.csv``: one row per task computed (module docstring, "Output folder").
TIMING_COLUMNS = ["problem", "classifier", "strategy", "replicate", "cpu_s", "wall_s"]
#: Named sets of :func:`run_study` arguments: ``"paper"`` (the default) and ``"quick"`` (about 20 s on one core).
PRESETS: dict[str, dict[str, Any]] = {
    "paper": dict(problems="abstract", classifiers="paper", strategies="paper", replicates=10, pool_size="auto",
                  budget=None, population_size=10_000, loss="error", subsample=100, record_q_c=False, seed=0,
                  truth="auto", asymptotic_train=5000, asymptotic_replicates=5, asymptotic_population=20_000),
    "quick": dict(problems=["four-gaussian", "quadratic"], classifiers=["lda", "kknn5"],
                  strategies=["RS", "SE", "SMRI"], replicates=3, pool_size=60, budget=None, population_size=2000,
                  loss="error", subsample=100, record_q_c=False, seed=0, truth="auto", asymptotic_train=1000,
                  asymptotic_replicates=2, asymptotic_population=2000),
}

_STUDY_FILE = "study.json"
_CURVES_FILE = "curves.csv"
_ASYMPTOTIC_FILE = "asymptotic.csv"
_RECORD_FILE = "asymptotic.json"
_TIMINGS_FILE = _store.TIMINGS_FILE
_COST_FILE = "cost.csv"
#: Per task computed since 0.2.0, the SVM dual solves it stopped at the iteration cap (a measurement, like
#: ``timings.csv``: not in ``checksums.json``).
_SOLVER_FILE = "solver.csv"
#: Columns of ``solver.csv``.
SOLVER_COLUMNS = ["problem", "classifier", "strategy", "replicate", "solver_stops"]
_SOLVER_VALUES = ["solver_stops"]
_SOLVER_INTEGERS = ["replicate", "solver_stops"]
_REPORT_DIR = "report"
_FORMAT = 1
_RECORD_KEYS = {"format", "settings", "asymptotic_loss", "sha256"}
#: The first spawn key of the asymptotic-loss streams (module docstring).
_ASYMPTOTIC_KEY = zlib.crc32(b"asymptotic")


class StudyResults(NamedTuple):
    """The tables of a study: ``curves, asymptotic = read_study(out)``.

    Parameters
    ----------
    curves : DataFrame
        Learning curves of every pairing, columns :data:`mri_theory.runners._curves.RESULT_COLUMNS`.
    asymptotic : DataFrame
        One asymptotic loss per (problem, classifier), columns :data:`ASYMPTOTIC_COLUMNS`.

    See Also
    --------
    mri_theory.runners.run_study : Runs a study and returns its tables.
    mri_theory.runners.read_study : Reads a finished study's tables.

    Examples
    --------
    >>> from mri_theory.runners import Execution, StudyResults, run_study
    >>> tiny = dict(problems="four-gaussian", classifiers="lda", strategies="RS", replicates=1, pool_size=4,
    ...             population_size=100, asymptotic_train=50, asymptotic_replicates=1, asymptotic_population=100,
    ...             execution=Execution(progress=False))
    >>> results = run_study(**tiny)
    >>> isinstance(results, StudyResults), results._fields
    (True, ('curves', 'asymptotic'))
    >>> curves, asymptotic = results  # a named tuple: it unpacks
    >>> curves.shape, asymptotic[["problem", "classifier"]].values.tolist()
    ((10, 11), [['four-gaussian', 'lda']])
    """

    curves: pd.DataFrame
    asymptotic: pd.DataFrame


@dataclass(frozen=True)
class _AsymptoticConfig:
    """Everything that determines a pairing's asymptotic loss (its record's settings): the labels, the
    ``repr`` of the problem and the classifier, the sizes."""

    problem: str
    classifier: str
    n_train: int
    replicates: int
    population_size: int
    loss: str
    seed: int
    problem_spec: str
    classifier_spec: str


@dataclass(frozen=True)
class _AsymptoticTask:
    """A pairing's asymptotic loss with the objects its labels stand for (what travels to the workers)."""

    config: _AsymptoticConfig
    problem: Problem
    classifier: Classifier


@dataclass(frozen=True)
class _CurveTask:
    """One (strategy, replicate) of a pairing's sandbox run (the run carries the objects)."""

    run: _curves.Run
    strategy: str
    replicate: int


def _asymptotic_loss(task: _AsymptoticTask) -> float:
    cfg = task.config
    rng = np.random.default_rng(np.random.SeedSequence(cfg.seed, spawn_key=(
        _ASYMPTOTIC_KEY, zlib.crc32(cfg.problem.encode()), zlib.crc32(cfg.classifier.encode()))))
    return float(asymptotic_loss(task.problem, task.classifier, n_train=cfg.n_train,
                                         replicates=cfg.replicates, rng=rng,
                                         population_size=cfg.population_size, loss=cfg.loss))


class _Timed(NamedTuple):
    """A task's result with the CPU seconds of the thread that computed it and its wall seconds."""

    value: Any
    cpu_s: float
    wall_s: float
    solver_stops: int = 0  #: SVM dual solves stopped at the iteration cap (SVMConvergenceWarning) in the task


def _computed(task: _CurveTask | _AsymptoticTask) -> tuple[tuple, _Timed]:
    """What a worker does with a task: compute it and return its key with the timed result; never write.

    The key (``(problem, classifier)`` for an asymptotic loss, ``(problem,
    classifier, strategy, replicate)`` for a curve) is all that travels back:
    the calling process holds the objects.  The CPU time is the computing
    thread's (``time.thread_time``: every task runs with one BLAS thread, so
    this is all of it, whether the worker has one thread or several).
    """
    cpu, wall = time.thread_time(), time.perf_counter()
    key: tuple[str, str] | tuple[str, str, str, int]
    value: Any  # an asymptotic loss (float) or a curve's frame
    with warnings.catch_warnings(record=True) as caught:  # each SVM solve stopped at its cap, counted
        warnings.simplefilter("always", SVMConvergenceWarning)
        if isinstance(task, _AsymptoticTask):
            key, value = (task.config.problem, task.config.classifier), _asymptotic_loss(task)
        else:
            cfg = task.run.config
            key = (cfg.problem, cfg.classifier, task.strategy, task.replicate)
            value = _curves.run_pair(task.run, task.strategy, task.replicate)
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    stops = sum(issubclass(record.category, SVMConvergenceWarning) for record in caught)
    if stops:  # said once per task, with the count, where the task ran
        warnings.warn(f"{key}: {stops} SVM dual solve(s) stopped at the iteration cap (counted in {_SOLVER_FILE})",
                      SVMConvergenceWarning, stacklevel=2)
    for record in caught:  # the other warnings, as they were
        if not issubclass(record.category, SVMConvergenceWarning):
            warnings.warn_explicit(record.message, record.category, record.filename, record.lineno)
    return key, _Timed(value, cpu, wall, stops)


def _timing_key(key: tuple) -> tuple[str, str, str, int]:
    """A task's row key in ``timings.csv``: an asymptotic loss has strategy ``""`` and replicate ``-1``."""
    return (key[0], key[1], "", -1) if len(key) == 2 else (key[0], key[1], key[2], int(key[3]))


#: The integer keys of ``timings.csv`` (the other keys are text).
_TIMING_INTEGERS = ["replicate"]


def _stored_timings(out: Path) -> dict[tuple, tuple[float, ...]]:
    """The timings already in ``out/timings.csv`` by task (none if absent; a warning and none if unreadable)."""
    return _store.stored_timings(out / _TIMINGS_FILE, TIMING_COLUMNS, _TIMING_INTEGERS, stacklevel=5)


def _stored_solver_stops(out: Path) -> dict[tuple, int]:
    """The counts already in ``out/solver.csv`` by task (:func:`_store.stored_timings`: none if absent; a warning
    and none if unreadable, the run then rewrites it with the tasks it computes)."""
    stored = _store.stored_timings(out / _SOLVER_FILE, SOLVER_COLUMNS, _SOLVER_INTEGERS, stacklevel=5,
                                   values=_SOLVER_VALUES)
    return {key: int(count) for key, (count,) in stored.items()}


def _read_solver_file(file: Path) -> pd.DataFrame:
    """The rows of ``solver.csv`` (:func:`_store.read_timings_file`); a ValueError saying why when the file is
    not such a table."""
    return _store.read_timings_file(file, SOLVER_COLUMNS, _SOLVER_INTEGERS, _SOLVER_VALUES)


def read_timings(path: str | os.PathLike) -> pd.DataFrame:
    """The cost of a study's tasks: ``timings.csv`` of the study folder (columns :data:`TIMING_COLUMNS`).

    One row per task the folder's runs computed: CPU seconds of the thread
    that ran it and wall seconds (module docstring, "Output folder").  Tasks
    reused from an earlier run keep that run's timing.

    Parameters
    ----------
    path : path
        The study folder (``out`` of :func:`run_study`).

    Returns
    -------
    DataFrame
        One row per task, columns :data:`TIMING_COLUMNS`.

    Raises
    ------
    ValueError
        Naming ``path`` when it holds no ``timings.csv`` or the file is not a
        table of timings.

    See Also
    --------
    mri_theory.runners.plan_study : The wall of these tasks on more workers.

    Examples
    --------
    >>> import tempfile
    >>> from mri_theory.runners import Execution, run_study
    >>> from mri_theory.runners.study import TIMING_COLUMNS, read_timings
    >>> tiny = dict(problems="four-gaussian", classifiers="lda", strategies="RS", replicates=1, pool_size=4,
    ...             population_size=100, asymptotic_train=50, asymptotic_replicates=1, asymptotic_population=100,
    ...             execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> _ = run_study(**tiny, out=tmp.name)
    >>> timings = read_timings(tmp.name)
    >>> list(timings.columns) == TIMING_COLUMNS, len(timings)  # the asymptotic loss, RS's and MRI-best's curves
    (True, 3)

    The rows come in the order the tasks were computed (longest first by their expected cost,
    :func:`~mri_theory.runners.schedule.expected_costs`); an asymptotic loss has the strategy ``""`` and the
    replicate -1:

    >>> timings.strategy.tolist(), timings.replicate.tolist()
    (['MRI-best', 'RS', ''], [0, 0, -1])
    >>> bool((timings[["cpu_s", "wall_s"]] >= 0).all().all())
    True
    >>> tmp.cleanup()
    """
    return _store.read_folder_timings(path, TIMING_COLUMNS, _TIMING_INTEGERS)


# ------------------------------------------------------------------ arguments


def _labelled(value: Any, name: str, sets: Mapping[str, Sequence[str]], kind: str) -> dict[str, Any]:
    """``{label: object}`` of a name, a set's name, an object, or a sequence of them (sets expanded in place),
    with distinct labels (:func:`mri_theory.runners._resolve.expand`)."""
    return {label: obj for _, label, obj in _resolve.expand(value, name, sets, kind)}


# ------------------------------------------------------------------ storage


def _check_study_out(out: Any) -> Path | None:
    """``out`` as a Path, or None; raises unless it is (or can become) a writable study folder."""
    path = _store.check_out(out, ((_STUDY_FILE, False), (_CURVES_FILE, False), (_ASYMPTOTIC_FILE, False),
                                    (_REPORT_DIR, True)), own=_STUDY_FILE)
    if path is not None and (path / "parts").exists():  # a study keeps its parts in the pairings' folders
        raise ValueError(f"out: {path} holds results of run_curves (parts/), not of run_study; use another folder")
    return path


def _well_formed(stored: Any) -> bool:
    """Whether ``stored`` has the structure of ``study.json`` (module docstring)."""
    if not isinstance(stored, dict) or set(stored) != {"format", "settings", "grid"} or stored["format"] != _FORMAT:
        return False
    grid = stored["grid"]
    return (isinstance(stored["settings"], dict) and isinstance(grid, dict)
            and set(grid) == {"preset", "problems", "classifiers", "strategies", "replicates", "specs"}
            and all(isinstance(grid[key], list) and all(isinstance(name, str) for name in grid[key])
                    for key in ("problems", "classifiers", "strategies"))
            and isinstance(grid["replicates"], int))


def _read_study_file(path: Path, name: str) -> dict[str, Any] | None:
    """``study.json`` in the folder ``path`` (None if absent); a ValueError naming ``name`` and the file if corrupt."""
    return _store.read_settings_json(path / _STUDY_FILE, name, "study", _well_formed)


def _json_text(value: Any) -> bytes:
    return json.dumps(value, indent=2, sort_keys=True).encode()


def _record_sha256(record: Mapping[str, Any]) -> str:
    """The checksum of an ``asymptotic.json`` record: of its canonical JSON without the ``sha256`` key."""
    return _store.canonical_sha256({k: v for k, v in record.items() if k != "sha256"})


def _write_record(out: Path, task: _AsymptoticConfig, value: float) -> None:
    record = {"format": _FORMAT, "settings": asdict(task), "asymptotic_loss": value}
    record["sha256"] = _record_sha256(record)
    _store.write_atomic(_json_text(record), _store.pairing_folder(out, task.problem, task.classifier) / _RECORD_FILE)


def _read_record(path: Path, task: _AsymptoticConfig) -> float:
    """A verified record's asymptotic loss; raises :class:`_store.DamagedPart` with the reason otherwise."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _store.DamagedPart(f"unreadable ({exc.strerror or exc})") from None
    if not data:
        raise _store.DamagedPart("empty file")
    try:
        record = json.loads(data)
    except ValueError:
        raise _store.DamagedPart("unreadable JSON") from None
    if not isinstance(record, dict) or set(record) != _RECORD_KEYS:
        raise _store.DamagedPart(f"expected a JSON object with the keys {sorted(_RECORD_KEYS)}")
    if record["format"] != _FORMAT:
        raise _store.DamagedPart(f"unknown format {record['format']!r}")
    if record["settings"] != asdict(task):
        raise _store.DamagedPart("written for different settings")
    if record["sha256"] != _record_sha256(record):
        raise _store.DamagedPart("checksum mismatch: the data were changed")
    value = record["asymptotic_loss"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value) or value < 0:
        raise _store.DamagedPart(f"the asymptotic loss {value!r} is not a finite number >= 0")
    return float(value)


# ------------------------------------------------------------------ the study


@fill_doc
def run_study(
    preset: str = "paper",
    *,
    problems: str | Problem | Sequence[str | Problem] | None = None,
    classifiers: str | Classifier | Sequence[str | Classifier] | None = None,
    strategies: str | Strategy | Sequence[str | Strategy] | None = None,
    replicates: int | None = None,
    pool_size: int | None = None,
    budget: int | None = None,
    population_size: int | None = None,
    loss: str | None = None,
    subsample: int | None = None,
    record_q_c: bool | None = None,
    seed: int | None = None,
    truth: str | None = None,
    asymptotic_train: int | None = None,
    asymptotic_replicates: int | None = None,
    asymptotic_population: int | None = None,
    out: str | os.PathLike | None = None,
    execution: Execution | None = None,
) -> StudyResults:
    r"""Run the experimental study of §5 on a grid of problems and classifiers (resumable).

    Every argument left ``None`` takes the value of ``preset`` (:data:`PRESETS`).

    Parameters
    ----------
    preset : {"paper", "quick"}
        ``"paper"`` (default): the paper's study (§5): the abstract problems,
        the six classifiers, the seven methods, 10 replicates, each pool
        labelled to exhaustion: ``pool_size="auto"``, 250 points for a
        simulated problem, a real data set's whole pool (every row outside
        its stratified 30 % test set and its initial set: the paper's
        real-data protocol, §5.2, with ``problems="small"``).  ``"quick"``: 2 problems × LDA and kknn5 ×
        RS, SE, SMRI × 3 replicates, pool 60, population 2000 (about 20 s on
        one core).
    problems : str, Problem, or a sequence of them
        %(grid_problems)s
    classifiers : str, Classifier, or a sequence of them
        %(grid_classifiers)s
    strategies : str, Strategy, or a sequence of them
        %(grid_strategies)s
        LC and the oracles are opt-in; MRI-best is added (last) for the
        regret (module docstring) when every problem has the truth.  The
        labels name the study's folders and part files, so with
        ``out`` they must be letters, digits and ``. _ + -`` without ``__``;
        seeds follow the labels, so an object equal to a registered entry and
        labelled like it gives the same rows (:mod:`mri_theory.runners.sandbox`).
    replicates, pool_size, budget, population_size, loss, subsample, record_q_c, seed, truth
        As in :func:`~mri_theory.runners.sandbox.run_curves` (``budget=None``
        exhausts the pool), except ``subsample=0`` scores the whole pool and
        ``pool_size`` may also be a mapping problem label -> size or rule,
        naming every problem of the study (each problem its own pool), a
        problem's value itself a mapping classifier label -> size or rule
        naming every classifier (each pairing its own pool), and it takes the
        paper's pool rule for simulated problems, ``"asymptotic"``
        (:data:`~mri_theory.runners.asymptotic.POOL_RULE`, §5.2, line 1044:
        "the final classifier loss is close to its asymptotic loss"): each
        pairing's pool is its :func:`~mri_theory.runners.asymptotic.asymptotic_pool_size`
        (within 5 % of :math:`L_\infty`, sizes 250 to 4,000,
        :data:`~mri_theory.runners.asymptotic.POOL_RULE_REPLICATES` replicates,
        ``asymptotic_train`` and ``asymptotic_population``, the pairing's
        :func:`~mri_theory.runners.asymptotic.pool_rule_generator`; the largest
        size, with a warning, where none is close), simulated after every
        argument is checked and before any curve (for the abstract group,
        about 3 CPU-minutes; again on a resume, with the same result).
        ``truth`` (both presets: ``"auto"``) is resolved per pairing: with
        ``"auto"`` the learning curves and MRI-best of LDA, QDA, naive Bayes,
        logistic regression and k-NN use the exact truth on the Gaussian-mixture
        problems (every classifier whose class declares ``exact_truth``), those
        of the SVM a sampled population; each pairing's ``config.json``
        records which.  The asymptotic loss is
        always sampled (``asymptotic_population``).
    asymptotic_train, asymptotic_replicates, asymptotic_population : int
        The asymptotic loss of a pairing: the mean over
        ``asymptotic_replicates`` training samples of ``asymptotic_train``
        points of the classifier's true loss on a population of
        ``asymptotic_population`` (:func:`mri_theory.runners.asymptotic.asymptotic_loss`).
    %(out)s
        A pairing whose problem or classifier object differs (``repr``) from
        the one of the same label stored there is refused (``out``); the
        parts of a strategy whose ``repr`` changed under the same label are
        recomputed, with a :class:`~mri_theory.runners._store.DamagedPartWarning`.
    %(execution)s

    Returns
    -------
    StudyResults
        ``curves``: every pairing's :func:`~mri_theory.runners.sandbox.run_curves`
        table, concatenated in the order problems, classifiers, strategies,
        replicates; ``asymptotic``: columns :data:`ASYMPTOTIC_COLUMNS`.

    Raises
    ------
    ValueError, TypeError
        For bad arguments, naming the argument, before any work is done or
        any file is written (unknown names, repeated labels, oracles or
        ``record_q_c=True`` on a problem without the truth, labels unfit for
        file names with ``out``, sizes beyond the bounds of
        :func:`~mri_theory.runners.sandbox.run_curves`, ``asymptotic_train`` or
        ``asymptotic_population`` above 1 000 000, ``asymptotic_replicates``
        above 100 000, a pool larger than a real-data
        problem's ``max_pool_size``, a classifier whose probabilities, fitted
        once on a problem's initial labelled set, are not rows of its classes
        in [0, 1] summing to 1, a registered name whose factory fails: its
        exception chained); ``ValueError`` naming ``out`` when the folder
        holds another study, a corrupt ``study.json`` or ``config.json``
        (another problem or classifier of the same label included), or
        results of ``run_curves``, or when another process is writing it
        (its pid named).
    %(raises_io)s

    Warns
    -----
    %(warns_damaged)s

    See Also
    --------
    mri_theory.runners.read_study : The tables of a finished study folder.
    mri_theory.runners.report : The paper's tables and figures of a finished study.
    mri_theory.runners.run_curves : One pairing's learning curves.

    Examples
    --------
    A tiny study: one problem, one classifier, random sampling (MRI-best is added for the regret), one
    replicate of a pool of 4 labelled to exhaustion, written to a folder:

    >>> import tempfile
    >>> from mri_theory.runners import Execution, run_study
    >>> from mri_theory.runners.study import read_timings
    >>> tiny = dict(problems="four-gaussian", classifiers="lda", strategies="RS", replicates=1, pool_size=4,
    ...             population_size=100, asymptotic_train=50, asymptotic_replicates=1, asymptotic_population=100,
    ...             execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> curves, asymptotic = run_study(**tiny, out=tmp.name)
    >>> curves.groupby("strategy", sort=False).size().to_dict()  # 2 labelled, then 4 more: 5 rows each
    {'RS': 5, 'MRI-best': 5}
    >>> curves.n_labelled.unique().tolist()
    [2, 3, 4, 5, 6]
    >>> asymptotic.shape, list(asymptotic.columns)
    ((1, 3), ['problem', 'classifier', 'asymptotic_loss'])

    Rerunning the finished folder computes nothing: the verified results are read back, and the tasks' timings
    are still those of the first run.

    >>> timings = read_timings(tmp.name)
    >>> again = run_study(**tiny, out=tmp.name)
    >>> again.curves.equals(curves), again.asymptotic.equals(asymptotic), read_timings(tmp.name).equals(timings)
    (True, True, True)
    >>> tmp.cleanup()
    """
    given = dict(problems=problems, classifiers=classifiers, strategies=strategies, replicates=replicates,
                 pool_size=pool_size, budget=budget, population_size=population_size, loss=loss,
                 subsample=subsample, record_q_c=record_q_c, seed=seed, truth=truth,
                 asymptotic_train=asymptotic_train,
                 asymptotic_replicates=asymptotic_replicates, asymptotic_population=asymptotic_population)
    study = _plan(preset, _resolve_arguments(preset, given))
    execution = backends.check_execution(execution)
    out_path = _check_study_out(out)
    if out_path is None:
        found = _execute(study, {}, execution, None)
        return _assemble(study, found, None)
    _store.check_file_labels({"problems": study.problems, "classifiers": study.classifiers,
                                "strategies": study.strategies})
    _check_stored(out_path, study.settings, study.cfgs)  # every check before the first file (the lock included)
    with contextlib.ExitStack() as held:  # one writer: this process holds the study's lock and every pairing's
        held.enter_context(_store.locked(out_path, "out", owner="run_study"))
        for (p, c) in study.cfgs:
            held.enter_context(_store.locked(_store.pairing_folder(out_path, p, c), "out", owner="run_curves"))
        found = _execute(study, _load_verified(study, out_path), execution, out_path)
        return _assemble(study, found, out_path)


@dataclass(frozen=True)
class _Resolved:
    """The arguments of :func:`run_study` checked and resolved into labelled objects and sizes."""

    problems: dict[str, Problem]
    classifiers: dict[str, Classifier]
    strategies: dict[str, Strategy]  # MRI-best included, each adapted to the loss
    cfgs: dict[tuple[str, str], _curves.CurveConfig]  # by pairing
    subsample: int
    truth: str  # as given ("auto", "exact" or "sampled"); each pairing's config holds its resolved value
    replicates: int
    asymptotic_train: int
    asymptotic_replicates: int
    asymptotic_population: int


def _resolve_arguments(preset: Any, given: Mapping[str, Any]) -> _Resolved:
    """Stage 1: ``given`` (None: the preset's value) checked and resolved; raises naming the argument."""
    if not isinstance(preset, str):
        raise TypeError(f"preset must be a preset name (str), got {type(preset).__name__}")
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; known presets: {', '.join(PRESETS)}")
    args = {key: PRESETS[preset][key] if value is None else value for key, value in given.items()}
    problem_objs = _labelled(args["problems"], "problems", PROBLEM_GROUPS, "problem")
    classifier_objs = _labelled(args["classifiers"], "classifiers", CLASSIFIER_SETS, "classifier")
    strategy_objs = _labelled(args["strategies"], "strategies", {**STRATEGY_SETS, "all": tuple(list_strategies())},
                              "strategy")
    if metrics.BEST not in strategy_objs and all(problem.has_truth for problem in problem_objs.values()):
        strategy_objs[metrics.BEST] = get_strategy(metrics.BEST)  # the oracle the regret is measured against
    subsample = check.count(args["subsample"], "subsample", minimum=0)
    pools = _pool_sizes(args["pool_size"], problem_objs, classifier_objs)
    ruled = [pairing for pairing, value in pools.items() if isinstance(value, str) and value == POOL_RULE]
    real = sorted({p for p, _ in ruled if not problem_objs[p].has_truth})
    if real:
        raise ValueError(f"pool_size: the rule {POOL_RULE!r} is for simulated problems; {', '.join(real)}: real "
                         "data (the pool: 'all')")

    def configs(placeholders: Sequence[tuple[str, str]]) -> dict[tuple[str, str], _curves.CurveConfig]:
        return {(p, c): _curves.curve_config((p, problem), (c, classifier),
                                             _curves.SIMULATED_POOL_SIZE if (p, c) in placeholders else pools[(p, c)],
                                             args["budget"], args["population_size"], args["loss"], subsample or None,
                                             args["record_q_c"], args["seed"], args["truth"])
                for p, problem in problem_objs.items() for c, classifier in classifier_objs.items()}

    cfgs = configs(ruled)  # the rule's pairings checked with a placeholder pool (the rule runs after every check)
    loss = next(iter(cfgs.values())).loss  # the settings they share
    strategy_objs = {label: _resolve.for_loss(strategy, loss) for label, strategy in strategy_objs.items()}
    for (p, c), cfg in cfgs.items():
        _curves.check_truth(_curves.Run(cfg, problem_objs[p], classifier_objs[c], strategy_objs))
    for (p, c), cfg in cfgs.items():  # after every other check of the arguments: each fits a classifier once
        _curves.check_probabilities(_curves.Run(cfg, problem_objs[p], classifier_objs[c], strategy_objs),
                                    "classifiers")
    asymptotic_settings = (limits.size(args["asymptotic_train"], "asymptotic_train", limits.MAX_POPULATION_SIZE),
                           limits.size(args["asymptotic_replicates"], "asymptotic_replicates", limits.MAX_REPLICATES),
                           limits.size(args["asymptotic_population"], "asymptotic_population",
                                       limits.MAX_POPULATION_SIZE))
    if ruled:  # after every check: the rule's simulations (run_study's docstring, pool_size)
        pools.update(_rule_pools(ruled, problem_objs, classifier_objs, cfgs, asymptotic_settings))
        cfgs = configs(())
    return _Resolved(
        problem_objs, classifier_objs, strategy_objs, cfgs, subsample, args["truth"],
        limits.size(args["replicates"], "replicates", limits.MAX_REPLICATES), *asymptotic_settings)


def _pool_sizes(value: Any, problems: Mapping[str, Problem],
                classifiers: Mapping[str, Classifier]) -> dict[tuple[str, str], Any]:
    """Each pairing's ``pool_size`` (a size, a rule of :func:`~mri_theory.runners._curves.pool_size_of`, or
    :data:`~mri_theory.runners.asymptotic.POOL_RULE`): the one given, or a mapping's value for its problem's label,
    itself a size or rule or a mapping classifier label -> one of them; a mapping must name every problem (and
    classifier) of the study and no other."""
    words = (*_curves.POOL_RULES, POOL_RULE)
    kinds = f"a size, {', '.join(map(repr, words))}"

    def entry(item: Any, where: str) -> Any:
        if isinstance(item, bool) or not isinstance(item, (int, np.integer, str)):
            raise TypeError(f"pool_size{where} must be {kinds}, got {type(item).__name__}")
        if isinstance(item, str) and item not in words:
            raise ValueError(f"pool_size{where} must be {kinds}, got {item!r}")
        return item

    def named(mapping: Mapping, labels: Mapping[str, Any], what: str, where: str) -> None:
        unknown = sorted(map(repr, set(mapping) - set(labels)))
        missing = [label for label in labels if label not in mapping]
        if unknown or missing:
            raise ValueError(f"pool_size{where}: a mapping must give every {what} of the study its pool and name no "
                             f"other; {'unknown: ' + ', '.join(unknown) if unknown else ''}"
                             f"{'; ' if unknown and missing else ''}"
                             f"{'missing: ' + ', '.join(missing) if missing else ''}")

    if not isinstance(value, Mapping):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer, str)):
            raise TypeError(f"pool_size must be {kinds}, or a mapping problem label -> one of them or -> a mapping "
                            f"classifier label -> one of them, got {type(value).__name__}")
        return {(p, c): entry(value, "") for p in problems for c in classifiers}
    named(value, problems, "problem", "")
    pools = {}
    for p in problems:
        inner = value[p]
        if isinstance(inner, Mapping):
            named(inner, classifiers, "classifier", f"[{p!r}]")
            pools.update({(p, c): entry(inner[c], f"[{p!r}][{c!r}]") for c in classifiers})
        else:
            pools.update({(p, c): entry(inner, f"[{p!r}]") for c in classifiers})
    return pools


def _rule_pools(ruled: Sequence[tuple[str, str]], problems: Mapping[str, Problem],
                classifiers: Mapping[str, Classifier], cfgs: Mapping[tuple[str, str], _curves.CurveConfig],
                asymptotic: tuple[int, int, int]) -> dict[tuple[str, str], int]:
    """The pools of the pairings under the paper's rule (``pool_size="asymptotic"``): :func:`asymptotic_pool_size`
    with :data:`~mri_theory.runners.asymptotic.POOL_RULE_REPLICATES` replicates, the study's asymptotic training
    size and population, from the pairing's :func:`pool_rule_generator`; where no size meets the tolerance, the
    largest tried, with a warning."""
    n_train, _, population = asymptotic
    pools = {}
    for p, c in ruled:
        found = asymptotic_pool_size(problems[p], classifiers[c], rng=pool_rule_generator(cfgs[(p, c)].seed, p, c),
                                     replicates=POOL_RULE_REPLICATES, n_train=n_train, population_size=population,
                                     loss=cfgs[(p, c)].loss)
        if found.pool_size is None:
            largest = int(found.table.pool_size.iloc[-1])
            ratio = found.table.ratio.iloc[-1]
            warnings.warn(f"pool_size {POOL_RULE!r}: no pool up to {largest} brings {p} x {c}'s final loss within "
                          f"{100 * POOL_RULE_TOLERANCE:g} % of its asymptote (ratio {ratio:.3f}); its pool is "
                          f"{largest}", UserWarning, stacklevel=4)
        pools[(p, c)] = largest if found.pool_size is None else found.pool_size
    return pools


def _recorded_pools(pools: Mapping[tuple[str, str], int]) -> int | dict[str, Any]:
    """``study.json``'s ``pool_size``: one number where every pairing has it, else per problem a number where
    its classifiers agree or a mapping classifier -> number (a form ``run_study`` takes back)."""
    if len(set(pools.values())) == 1:
        return next(iter(pools.values()))
    by_problem: dict[str, dict[str, int]] = {}
    for (p, c), size in pools.items():
        by_problem.setdefault(p, {})[c] = size
    return {p: next(iter(sizes.values())) if len(set(sizes.values())) == 1 else sizes
            for p, sizes in by_problem.items()}


@dataclass(frozen=True)
class _Study:
    """A checked study: its objects, settings, grid and tasks (nothing computed or written yet)."""

    problems: dict[str, Problem]
    classifiers: dict[str, Classifier]
    strategies: dict[str, Strategy]
    cfgs: dict[tuple[str, str], _curves.CurveConfig]  # by pairing
    runs: dict[tuple[str, str], _curves.Run]  # by pairing
    settings: dict[str, Any]  # of study.json
    grid: dict[str, Any]  # of study.json
    asymptotic: dict[tuple[str, str], _AsymptoticTask]  # by pairing
    keys: list[tuple[str, str, str, int]]  # the curve tasks, in the table's order


def _plan(preset: str, resolved: _Resolved) -> _Study:
    """Stage 2: the settings, the grid and every task of a resolved study."""
    problems, classifiers, strategies = resolved.problems, resolved.classifiers, resolved.strategies
    cfgs = resolved.cfgs
    any_cfg = next(iter(cfgs.values()))  # the settings they share
    runs = {(p, c): _curves.Run(cfg, problems[p], classifiers[c], strategies) for (p, c), cfg in cfgs.items()}
    specs = {"problems": {p: cfg.problem_spec for (p, _), cfg in cfgs.items()},
             "classifiers": {c: cfg.classifier_spec for (_, c), cfg in cfgs.items()},
             "strategies": {s: _resolve.spec(strategy, "strategies") for s, strategy in strategies.items()}}
    pool_size = _recorded_pools({pairing: cfg.pool_size for pairing, cfg in cfgs.items()})
    settings = dict(pool_size=pool_size, budget=any_cfg.budget, population_size=any_cfg.population_size,
                    loss=any_cfg.loss, subsample=resolved.subsample, record_q_c=any_cfg.record_q_c,
                    seed=any_cfg.seed, truth=resolved.truth, asymptotic_train=resolved.asymptotic_train,
                    asymptotic_replicates=resolved.asymptotic_replicates,
                    asymptotic_population=resolved.asymptotic_population)
    grid = {"preset": preset, "problems": list(problems), "classifiers": list(classifiers),
            "strategies": list(strategies), "replicates": resolved.replicates, "specs": specs}
    asymptotic = {
        (p, c): _AsymptoticTask(_AsymptoticConfig(p, c, resolved.asymptotic_train, resolved.asymptotic_replicates,
                                                  resolved.asymptotic_population, cfg.loss, cfg.seed,
                                                  cfg.problem_spec, cfg.classifier_spec),
                                problems[p], classifiers[c])
        for (p, c), cfg in cfgs.items()}
    keys = [(p, c, s, r) for (p, c) in cfgs for s in strategies for r in range(resolved.replicates)]
    return _Study(problems, classifiers, strategies, cfgs, runs, settings, grid, asymptotic, keys)


def _load_verified(study: _Study, out: Path) -> dict[tuple, Any]:
    """Stage 3, holding the locks of ``out`` and its pairings: the stored settings checked again (another run may
    have finished in between) and written, then every verified result: asymptotic losses by pairing, curves by
    task."""
    _check_stored(out, study.settings, study.cfgs)
    _store.write_atomic(_json_text({"format": _FORMAT, "settings": study.settings, "grid": study.grid}),
                          out / _STUDY_FILE)
    found: dict[tuple, Any] = {}
    pairs = [(s, r) for s in study.strategies for r in range(study.grid["replicates"])]
    for (p, c), run in study.runs.items():
        folder = _store.pairing_folder(out, p, c)
        _curves.prepare_output(folder, run.config)
        for (s, r), frame in _curves.verified_parts(folder, run, pairs, stacklevel=4).items():
            found[p, c, s, r] = frame
    losses = _store.verified_files(
        (((p, c), _store.pairing_folder(out, p, c) / _RECORD_FILE) for (p, c) in study.cfgs),
        lambda path, pairing: _read_record(path, study.asymptotic[pairing].config), stacklevel=4)
    return {**losses, **found}


def _execute(study: _Study, found: dict[tuple, Any], execution: Execution,
             out: Path | None) -> dict[tuple, Any]:
    """Stage 4: ``found`` completed with every task it lacks, computed on ``execution`` and (with ``out``)
    written here, in this process, as each result arrives."""
    todo: list[_CurveTask | _AsymptoticTask] = [task for pairing, task in study.asymptotic.items()
                                                if pairing not in found]
    todo += [_CurveTask(study.runs[p, c], s, r) for (p, c, s, r) in study.keys if (p, c, s, r) not in found]
    timings = {} if out is None else _stored_timings(out)
    stops = {} if out is None else _stored_solver_stops(out)
    todo = [todo[i] for i in longest_first(_expected_costs(study, todo, timings))]  # the tail first (schedule)
    results = backends.results(_computed, [(task,) for task in todo], execution)

    def write(key: tuple, timed: _Timed) -> None:
        assert out is not None  # gather is given write only with out
        if len(key) == 2:
            _write_record(out, study.asymptotic[key].config, timed.value)
        else:
            p, c, s, r = key
            _curves.write_part(timed.value, _store.pairing_folder(out, p, c), study.runs[p, c], s, r)
        timings[_timing_key(key)] = (timed.cpu_s, timed.wall_s)
        _store.write_atomic(_store.timings_bytes(timings, TIMING_COLUMNS), out / _TIMINGS_FILE)
        stops[_timing_key(key)] = timed.solver_stops
        rows = [(*k, n) for k, n in sorted(stops.items())]  # sorted: the same bytes whatever order tasks end in
        _store.write_atomic(_store.csv_bytes(pd.DataFrame(rows, columns=SOLVER_COLUMNS)), out / _SOLVER_FILE)

    computed: dict[tuple, Any] = dict(found)
    _store.gather(results, computed, len(study.keys) + len(study.asymptotic), "study", "task", execution.progress,
                  None if out is None else write)
    return {key: value.value if isinstance(value, _Timed) else value for key, value in computed.items()}


def _expected_costs(study: _Study, todo: Sequence[_CurveTask | _AsymptoticTask],
                    timings: Mapping[tuple, tuple[float, ...]]) -> np.ndarray:
    """The cost :func:`~mri_theory.runners.schedule.expected_costs` expects of each task of ``todo``, the CPU
    seconds of the folder's tasks already timed (an interrupted run's) taking precedence over the static model."""
    timed: dict[tuple[str, str], list[float]] = {}
    for (_, c, s, _), (cpu, *_) in timings.items():
        timed.setdefault((c, s), []).append(cpu)
    keys = [(task.config.problem, task.config.classifier, "") if isinstance(task, _AsymptoticTask)
            else (task.run.config.problem, task.run.config.classifier, task.strategy) for task in todo]
    return expected_costs(keys, costly={name: strategy.costly for name, strategy in study.strategies.items()},
                          timed=timed)


def _assemble(study: _Study, found: Mapping[tuple, Any], out: Path | None) -> StudyResults:
    """Stage 5: the study's tables from every result; with ``out``, each pairing's and the study's tables written
    with their checksums."""
    curves = pd.concat([found[key] for key in study.keys], ignore_index=True)
    asymptotic = pd.DataFrame([(p, c, found[p, c]) for (p, c) in study.cfgs], columns=ASYMPTOTIC_COLUMNS)
    if out is not None:
        for (p, c) in study.cfgs:
            pairing = curves[(curves.problem == p) & (curves.classifier == c)]
            _store.write_tables(_store.pairing_folder(out, p, c), {_CURVES_FILE: _store.csv_bytes(pairing)},
                                  _store.CURVES_SETTINGS_FILE)
        _store.write_tables(out, {_CURVES_FILE: _store.csv_bytes(curves),
                                    _ASYMPTOTIC_FILE: _store.csv_bytes(asymptotic)}, _STUDY_FILE)
    return StudyResults(curves, asymptotic)


def _check_stored(out: Path, settings: Mapping[str, Any], cfgs: Mapping[tuple[str, str], _curves.CurveConfig]) -> None:
    """Raise unless the study folder ``out`` holds nothing, or a study of these ``settings`` whose pairings'
    configurations are ``cfgs`` (reads only, writes nothing)."""
    stored = _read_study_file(out, "out")
    if stored is not None and stored["settings"] != settings:
        raise ValueError(f"out: {out} holds a study with other settings ({out / _STUDY_FILE}); "
                         "use another folder")
    for (p, c), cfg in cfgs.items():
        folder = _store.check_out(_store.pairing_folder(out, p, c))
        _curves.check_config(folder, cfg)


def plan_study(path: str | os.PathLike, workers: int, *, column: str = "wall_s") -> Plan:
    """The wall a finished study's tasks would take on ``workers`` workers, in the table order and longest first.

    Reads the folder's ``study.json`` (the grid, hence the table order: the asymptotic losses, then the curves by
    problem, classifier, strategy and replicate) and ``timings.csv`` (each task's seconds, the ``column``
    ``"wall_s"`` or ``"cpu_s"``), orders the tasks as :func:`run_study` does (longest first by
    :func:`~mri_theory.runners.schedule.expected_costs` from
    :data:`~mri_theory.runners.schedule.TASK_COST`, not from the timings replayed) and replays both orders with
    :func:`~mri_theory.runners.schedule.simulate_makespan` (each task taking the time it took in the run).

    Parameters
    ----------
    path : path
        A finished study folder (``out`` of :func:`run_study`).
    workers : int
        The workers to simulate, ``>= 1``.
    column : {"wall_s", "cpu_s"}
        Which time of ``timings.csv`` a task takes.

    Returns
    -------
    Plan

    Raises
    ------
    TypeError, ValueError
        Naming ``workers`` (not a positive integer) or ``column``; naming ``path`` when it holds no study or no
        ``timings.csv``, or timings that do not cover its grid.

    See Also
    --------
    mri_theory.runners.describe_plans : Plans as a Markdown table.
    mri_theory.runners.simulate_makespan : The replay of one order.

    Examples
    --------
    >>> import math
    >>> import tempfile
    >>> from mri_theory.runners import Execution, plan_study, run_study
    >>> tiny = dict(problems="four-gaussian", classifiers="lda", strategies="RS", replicates=1, pool_size=4,
    ...             population_size=100, asymptotic_train=50, asymptotic_replicates=1, asymptotic_population=100,
    ...             execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> _ = run_study(**tiny, out=tmp.name)
    >>> one, three = plan_study(tmp.name, 1), plan_study(tmp.name, 3)
    >>> one.tasks  # the asymptotic loss, RS's and MRI-best's curves
    3
    >>> math.isclose(one.table_order, one.total), math.isclose(one.longest_first, one.total)  # one worker: the sum
    (True, True)
    >>> three.longest_first == three.longest == three.lower_bound  # a worker each: the longest task
    True
    >>> tmp.cleanup()
    """
    if column not in ("wall_s", "cpu_s"):
        raise ValueError(f"column must be 'wall_s' or 'cpu_s', got {column!r}")
    workers = check.count(workers, "workers", minimum=1, maximum=100_000)
    folder = _store.check_path(path, "a folder")
    stored = study_record(folder)
    timings = read_timings(folder)
    seconds = {(p, c, s, int(r)): float(t) for p, c, s, r, t in
               zip(timings.problem, timings.classifier, timings.strategy.fillna(""), timings.replicate,
                   timings[column], strict=True)}
    pairings, _ = _grid_tasks(stored["grid"])
    order = [_timing_key(pairing) for pairing in pairings] + [
        (p, c, s, r) for p, c in pairings for s in stored["grid"]["strategies"]
        for r in range(stored["grid"]["replicates"])]
    missing = [task for task in order if task not in seconds]
    if missing:
        raise ValueError(f"path: {folder / _TIMINGS_FILE} lacks {len(missing)} of the grid's {len(order)} tasks "
                         f"(e.g. {missing[0]}): plan a finished run")
    durations = np.array([seconds[task] for task in order])
    with np.errstate(over="ignore"):
        total = float(durations.sum())
    if not np.isfinite(total):
        raise ValueError(f"path: the times of {folder / _TIMINGS_FILE} sum beyond the float range (times near "
                         "1e308): they are not a run's measurements")
    longest = longest_first(expected_costs([task[:3] for task in order]))
    return Plan(workers, simulate_makespan(durations, workers), simulate_makespan(durations[longest], workers),
                max(total / workers, float(durations.max())), total, float(durations.max()), len(order))


def _grid_tasks(grid: Mapping[str, Any]) -> tuple[list[tuple[str, str]], set[tuple[str, str, str, int]]]:
    """The pairings of a stored grid (``study.json``), in order, and its curves' ``(problem, classifier, strategy,
    replicate)`` keys."""
    pairings = [(p, c) for p in grid["problems"] for c in grid["classifiers"]]
    return pairings, {(p, c, s, r) for p, c in pairings for s in grid["strategies"] for r in range(grid["replicates"])}


def study_record(path: str | os.PathLike) -> dict[str, Any]:
    """The record ``study.json`` of a study: its settings and grid (module docstring, "Output folder").

    Parameters
    ----------
    path : path
        The study folder (``out`` of :func:`run_study`).

    Returns
    -------
    dict
        ``{"format": 1, "settings": {...}, "grid": {...}}``, checked for its structure.  The tables are not
        read (:func:`read_study` reads them, verified).

    Raises
    ------
    ValueError
        Naming ``path`` if the folder holds no ``study.json`` or a corrupt one.

    See Also
    --------
    mri_theory.runners.read_study : The study's tables, verified.

    Examples
    --------
    >>> import tempfile
    >>> from mri_theory.runners import Execution, run_study, study_record
    >>> tiny = dict(problems="four-gaussian", classifiers="lda", strategies="RS", replicates=1, pool_size=4,
    ...             population_size=100, asymptotic_train=50, asymptotic_replicates=1, asymptotic_population=100,
    ...             execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> _ = run_study(**tiny, out=tmp.name)
    >>> record = study_record(tmp.name)
    >>> sorted(record), record["grid"]["strategies"], record["settings"]["pool_size"]
    (['format', 'grid', 'settings'], ['RS', 'MRI-best'], 4)
    >>> tmp.cleanup()
    """
    folder = _store.check_path(path, "a folder")
    stored = _read_study_file(folder, "path")
    if stored is None:
        raise ValueError(f"path: no study at {folder} (no {_STUDY_FILE})")
    return stored


def read_study(path: str | os.PathLike) -> StudyResults:
    """The tables of a finished study written by :func:`run_study`.

    Parameters
    ----------
    path : path
        The study folder (``out`` of :func:`run_study`).

    Returns
    -------
    StudyResults
        ``(curves, asymptotic)``, as :func:`run_study` returned them.

    Raises
    ------
    ValueError
        Naming ``path`` when it holds no study, a corrupt ``study.json``, or
        tables that are unreadable, do not match their checksums in
        ``checksums.json`` (edited, cut, replaced, or written before
        ``study.json`` last changed) or do not cover the grid of
        ``study.json`` (an interrupted run: rerun it to finish), or when
        another process is writing the folder (its pid named).

    See Also
    --------
    mri_theory.runners.run_study : Writes the folder.
    mri_theory.runners.study_record : The study's settings and grid.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from mri_theory.runners import Execution, read_study, run_study
    >>> tiny = dict(problems="four-gaussian", classifiers="lda", strategies="RS", replicates=1, pool_size=4,
    ...             population_size=100, asymptotic_train=50, asymptotic_replicates=1, asymptotic_population=100,
    ...             execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> written = run_study(**tiny, out=tmp.name)
    >>> read = read_study(tmp.name)
    >>> read.curves.equals(written.curves), read.asymptotic.equals(written.asymptotic)
    (True, True)

    A table that no longer matches its checksum is refused:

    >>> with open(Path(tmp.name) / "curves.csv", "a") as table:
    ...     _ = table.write("\\n")
    >>> read_study(tmp.name)
    Traceback (most recent call last):
    ...
    ValueError: path: ...curves.csv does not match its checksum in ...checksums.json: the table was edited, ...
    >>> tmp.cleanup()
    """
    path = _store.check_path(path, "a folder")
    stored = study_record(path)
    grid = stored["grid"]
    unfinished = "; the last run did not finish: run the same study again to complete it"
    for name in (_CURVES_FILE, _ASYMPTOTIC_FILE):
        if not (path / name).is_file():
            raise ValueError(f"path: {path / name} is missing{unfinished}")
    loss = stored["settings"]["loss"]
    curves = _curves.check_curves_content(sandbox.read_curves(path / _CURVES_FILE), path / _CURVES_FILE, "path",
                                          loss)  # verified against checksums.json, and bounded by the study's loss
    asymptotic = _store.verified_csv(path / _ASYMPTOTIC_FILE, "path", ASYMPTOTIC_COLUMNS,
                                       "a table of asymptotic losses")
    values = pd.to_numeric(asymptotic["asymptotic_loss"], errors="coerce").to_numpy(dtype=float)
    if not np.all((values >= 0) & (values <= _curves.largest_loss(loss))):
        raise ValueError(f"path: {path / _ASYMPTOTIC_FILE} holds an asymptotic loss outside [0, "
                         f"{_curves.largest_loss(loss):g}] ({values.tolist()}): the table is not what run_study "
                         "writes; run the same study again to rebuild it")
    pairings, runs = _grid_tasks(grid)
    if set(curves[["problem", "classifier", "strategy", "replicate"]].itertuples(index=False, name=None)) != runs:
        raise ValueError(f"path: {path / _CURVES_FILE} does not hold the grid of {path / _STUDY_FILE}{unfinished}")
    if list(asymptotic[["problem", "classifier"]].itertuples(index=False, name=None)) != pairings:
        raise ValueError(f"path: {path / _ASYMPTOTIC_FILE} does not hold the pairings of {path / _STUDY_FILE}"
                         f"{unfinished}")
    return StudyResults(curves, asymptotic)


def _check_report_groups(groups: Any, stored: Mapping[str, Any]) -> None:
    """A ValueError naming ``groups`` when a group names a problem the study does not have (a typo would
    otherwise drop it silently); the rest of the checks are :func:`~mri_theory.evaluation.rank_study`'s."""
    if groups is None or not isinstance(groups, Mapping):
        return
    known = stored["grid"]["problems"]
    for name, members in groups.items():
        if isinstance(members, str) or not isinstance(members, Sequence):
            continue
        unknown = [p for p in members if p not in known]
        if unknown:
            raise ValueError(f"groups: the group {name!r} names {unknown}, which are not problems of the study "
                             f"(its problems: {', '.join(known)})")


def report(path: str | os.PathLike, groups: Mapping[str, Sequence[str]] | None = None) -> list[Path]:
    """Write the paper's tables (Markdown, LaTeX, CSV) and figures of a finished study into ``path/report``.

    The tables are read verified (:func:`read_study`), under the study
    folder's lock (no run may write the folder meanwhile), and ranked on the
    study's own loss (``settings.loss`` in ``study.json``): with
    ``loss="log"`` the ranks use the log loss, and the report says what
    :func:`mri_theory.evaluation.tables.write_report` does with the measures defined
    on error rates only.

    Parameters
    ----------
    path : path
        The study folder (``out`` of :func:`run_study`).
    groups : mapping, optional
        Problem groups for the aggregate tables (§5.4), passed to
        :func:`mri_theory.evaluation.tables.write_report`.  ``None``
        (default): the registered groups (:data:`PROBLEM_GROUPS`: the
        paper's abstract and small groups) of the study's problems, each
        holding those of its members the study has, and the group
        ``"other"`` of the study's problems in no registered group (user
        data, also when a data file is named like a built-in problem:
        :func:`default_groups` with the study's specs), where there are any.

    Returns
    -------
    list of Path
        The files written: :func:`~mri_theory.evaluation.tables.write_report`'s,
        and ``cost.csv`` (tasks, CPU and wall seconds per classifier and
        strategy, summed over problems and replicates, and in all) when
        ``timings.csv`` covers every task of the study, and ``solver.csv``
        (the SVM dual solves stopped at the iteration cap, :func:`solver_stops`)
        when the study recorded them (computed since 0.2.0).

    Raises
    ------
    ValueError
        As :func:`read_study`; naming ``groups`` for groups that do not fit
        the study (a problem in no group or in two, or a name that is not a
        problem of the study), before anything is written.

    See Also
    --------
    mri_theory.evaluation.write_report : The tables and figures written.

    Examples
    --------
    >>> import tempfile
    >>> from mri_theory.runners import Execution, report, run_study
    >>> tiny = dict(problems="four-gaussian", classifiers="lda", strategies="RS", replicates=1, pool_size=4,
    ...             population_size=100, asymptotic_train=50, asymptotic_replicates=1, asymptotic_population=100,
    ...             execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> _ = run_study(**tiny, out=tmp.name)
    >>> files = report(tmp.name)
    >>> sorted(path.name for path in files)  # cost.csv: the CPU and wall seconds of the tasks
    ['beats_rs.csv', 'bootstrap.csv', 'classifier_ranks.csv', 'cost.csv', 'differences.csv', 'final_ranking.csv',
     'group_ranks.csv', 'pairings.csv', 'paper_comparison.csv', 'ranks.png', 'regret.csv', 'report.md', 'report.tex',
     'solver.csv']
    >>> {path.parent.name for path in files}
    {'report'}
    >>> tmp.cleanup()
    """
    from mri_theory.evaluation.tables import (
        write_report,  # matplotlib and the report tables: only when asked
    )

    folder = _store.check_path(path, "a folder")
    _check_report_groups(groups, study_record(folder))  # refused before the lock file is created
    with _store.locked(folder, "path", create=False):
        curves, asymptotic = read_study(folder)
        stored = study_record(folder)  # again: removed or replaced since the check above
        truth = {}
        for p, c in curves[["problem", "classifier"]].drop_duplicates().itertuples(index=False):
            pairing = _store.pairing_folder(folder, p, c)
            _store.verified_table(pairing / _CURVES_FILE, "path")  # its config.json too: as its checksum records
            config = _store.read_settings_json(pairing / _store.CURVES_SETTINGS_FILE, "path", "configuration",
                                               lambda value: isinstance(value, dict) and "truth" in value)
            if config is None:
                raise ValueError(f"path: {pairing} has no {_store.CURVES_SETTINGS_FILE}")
            truth[p, c] = config["truth"]
        with backends.one_thread():  # floats written to the report: summed as with one BLAS thread
            if groups is None:
                groups = default_groups(curves["problem"].unique().tolist(),
                                        specs=stored["grid"]["specs"]["problems"])
            written = write_report(curves, asymptotic, folder / _REPORT_DIR, groups=groups,
                                   loss=stored["settings"]["loss"], truth=truth)
        cost = _cost_table(folder, stored["grid"])
        if cost is not None:
            _store.write_atomic(_store.csv_bytes(cost), folder / _REPORT_DIR / _COST_FILE)
            written.append(folder / _REPORT_DIR / _COST_FILE)
        stops = solver_stops(folder)
        if stops is not None:
            _store.write_atomic(_store.csv_bytes(stops), folder / _REPORT_DIR / _SOLVER_FILE)
            written.append(folder / _REPORT_DIR / _SOLVER_FILE)
        return written


def registered_problem_spec(label: str) -> str | None:
    """The spec (``repr``) of the problem registered as ``label``, as a study records it; None if none is.

    A study's problem is the registered one of its label when the spec it recorded (``study.json``'s
    ``grid["specs"]["problems"]``) equals this; otherwise it is the user's own (a data file named like a built-in
    problem, ``four-gaussian.csv``), whatever its label.

    Parameters
    ----------
    label : str
        A problem label.

    Returns
    -------
    str or None
        ``repr(get_problem(label))``; None where no problem is registered as ``label`` (or its factory fails).

    See Also
    --------
    mri_theory.runners.default_groups : The report's groups, which use it.

    Examples
    --------
    >>> from mri_theory.problems import DataProblem
    >>> from mri_theory.runners import registered_problem_spec
    >>> registered_problem_spec("four-gaussian")
    "GaussianMixtureProblem(name='four-gaussian', ...)"
    >>> registered_problem_spec("my-data") is None
    True
    >>> mine = DataProblem([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]], [0, 1, 0, 1, 0, 1], test_size=2,
    ...                    name="four-gaussian")
    >>> registered_problem_spec("four-gaussian") == repr(mine)  # a file named like the built-in problem
    False
    """
    if not isinstance(label, str):
        raise TypeError(f"label must be a str, got {type(label).__name__}")
    if label not in PROBLEM_REGISTRY:
        return None
    try:
        return repr(PROBLEM_REGISTRY.get(label))
    except (ValueError, TypeError, ImportError):
        return None


def default_groups(problems: Sequence[str], *, specs: Mapping[str, str] | None = None) -> dict[str, list[str]]:
    """The problem groups of a report on ``problems``: each registered group holding some of them, then the rest.

    Parameters
    ----------
    problems : sequence of str
        Problem labels (repeats ignored).
    specs : mapping, optional
        The study's problem specs, label -> ``repr`` (``study.json``'s ``grid["specs"]["problems"]``): a label
        whose spec is not the registered problem's (:func:`registered_problem_spec`) is the user's own problem
        (a data file named like a built-in problem) and goes to ``"other"``, never to a registered group.  Without
        it, the labels alone decide.

    Returns
    -------
    dict
        Each group of :data:`PROBLEM_GROUPS` holding some of ``problems``, with those members (in the group's
        order), then ``"other"``: the rest, in their order (absent if none).

    Examples
    --------
    >>> from mri_theory.runners import default_groups, registered_problem_spec
    >>> default_groups(["sonar", "four-gaussian", "my-data"])
    {'abstract': ['four-gaussian'], 'small': ['sonar'], 'other': ['my-data']}

    A study's own data in a file named ``four-gaussian.csv`` is not the paper's Four-Gaussian:

    >>> default_groups(["sonar", "four-gaussian"], specs={"sonar": registered_problem_spec("sonar"),
    ...                                                   "four-gaussian": "DataProblem(name='four-gaussian', ...)"})
    {'small': ['sonar'], 'other': ['four-gaussian']}
    """
    if isinstance(problems, str) or not isinstance(problems, Sequence) or not all(
            isinstance(p, str) for p in problems):
        raise TypeError(f"problems must be a sequence of problem labels (str), got {problems!r}")
    if specs is not None and (not isinstance(specs, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in specs.items())):
        raise TypeError(f"specs must be a mapping problem label -> spec (str), got {specs!r}")
    present = list(dict.fromkeys(problems))
    own = set() if specs is None else {p for p in present if p not in specs or specs[p] != registered_problem_spec(p)}
    groups = {name: [p for p in members if p in present and p not in own] for name, members in PROBLEM_GROUPS.items()}
    groups = {name: members for name, members in groups.items() if members}
    grouped = {p for members in groups.values() for p in members}
    rest = [p for p in present if p not in grouped]
    return {**groups, "other": rest} if rest else groups


def solver_stops(path: str | os.PathLike) -> pd.DataFrame | None:
    """The SVM dual solves a study's tasks stopped at the iteration cap
    (:class:`~mri_theory.classifiers.SVMConvergenceWarning`), per classifier and strategy and in all.

    Read from the folder's ``solver.csv``, which :func:`run_study` writes since 0.2.0 with one row per task it
    computes.

    Parameters
    ----------
    path : path
        The study folder (``out`` of :func:`run_study`).

    Returns
    -------
    pandas.DataFrame or None
        Columns ``classifier``, ``strategy`` (``"asymptotic loss"`` for the asymptotic losses), ``tasks`` (the
        tasks recorded), ``tasks_stopped`` (those with a stop) and ``solver_stops``, and a last row ``all``; None
        when the folder has no ``solver.csv`` (a study computed before 0.2.0: not recorded).

    Raises
    ------
    ValueError
        Naming ``path`` when ``solver.csv`` is not a table of counts.

    Examples
    --------
    >>> import tempfile
    >>> from mri_theory.runners import Execution, run_study, solver_stops
    >>> tiny = dict(problems="four-gaussian", classifiers="lda", strategies="RS", replicates=1, pool_size=4,
    ...             population_size=100, asymptotic_train=50, asymptotic_replicates=1, asymptotic_population=100,
    ...             execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> _ = run_study(**tiny, out=tmp.name)
    >>> stops = solver_stops(tmp.name)
    >>> stops.strategy.tolist(), stops.tasks.tolist()
    (['asymptotic loss', 'MRI-best', 'RS', 'all'], [1, 1, 1, 3])
    >>> stops.solver_stops.tolist()  # LDA has no iterative solver
    [0, 0, 0, 0]
    >>> empty = tempfile.TemporaryDirectory()
    >>> solver_stops(empty.name) is None  # no solver.csv: not recorded
    True
    >>> tmp.cleanup()
    >>> empty.cleanup()
    """
    folder = _store.check_path(path, "a folder")
    file = folder / _SOLVER_FILE
    if not file.exists():
        return None
    try:
        frame = _read_solver_file(file)
    except ValueError as exc:
        raise ValueError(f"path: {file}: {exc}") from None
    return _by_classifier_and_strategy(frame.assign(stopped=frame.solver_stops > 0), tasks=("solver_stops", "size"),
                                       tasks_stopped=("stopped", "sum"), solver_stops=("solver_stops", "sum"))


def _cost_table(folder: Path, grid: Mapping[str, Any]) -> pd.DataFrame | None:
    """CPU and wall seconds per (classifier, strategy) over the grid's tasks, from ``timings.csv``; None (with a
    warning) when the timings do not cover every task (a folder written before timings were kept)."""
    try:
        timings = read_timings(folder)
    except ValueError as exc:
        warnings.warn(f"no {_COST_FILE} in the report: {exc}", RuntimeWarning, stacklevel=3)
        return None
    pairings, tasks = _grid_tasks(grid)
    tasks |= {_timing_key(pairing) for pairing in pairings}
    keys = list(timings[["problem", "classifier", "strategy", "replicate"]].itertuples(index=False, name=None))
    missing = len(tasks - set(keys))
    if missing:
        warnings.warn(f"no {_COST_FILE} in the report: {folder / _TIMINGS_FILE} lacks {missing} of the study's "
                      f"{len(tasks)} tasks (computed before timings were kept)", RuntimeWarning, stacklevel=3)
        return None
    return _by_classifier_and_strategy(timings[[key in tasks for key in keys]], tasks=("cpu_s", "size"),
                                       cpu_s=("cpu_s", "sum"), wall_s=("wall_s", "sum"))


def _by_classifier_and_strategy(frame: pd.DataFrame, **aggregations: tuple[str, str]) -> pd.DataFrame:
    """``frame``'s tasks aggregated (``name=(column, "size" or "sum")``) per (classifier, strategy), the asymptotic
    losses' empty strategy named ``"asymptotic loss"``, and a last row ``all`` over every task (the report's
    ``cost.csv`` and ``solver.csv``)."""
    frame = frame.replace({"strategy": {"": "asymptotic loss"}})
    table = frame.groupby(["classifier", "strategy"], sort=False).agg(**aggregations).reset_index()
    total = [len(frame) if how == "size" else frame[column].agg(how) for column, how in aggregations.values()]
    return pd.concat([table, pd.DataFrame([("all", "all", *total)], columns=table.columns)], ignore_index=True)
