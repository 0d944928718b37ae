r"""The leaderboard of ``mri-theory leaderboard``: every strategy scored beside the truth on a grid, ranked by phase.

:func:`run_leaderboard` scores the states of every (problem, classifier)
pairing of a grid (:func:`mri_theory.runners.states.score_states`, one
resumable folder per pairing, as ``mri-theory diagnose`` does for its
classifiers), every strategy on every remaining candidate beside the true
:math:`Q^c` (Eq. ``eqc``; exact where the pairing allows it with
``truth="auto"``), and timing each strategy's scores in each state.  It then
writes :func:`mri_theory.evaluation.leaderboard` of all the states: per phase
of the curve (:math:`|D_S| \le 12`, 13-50, :math:`> 50` by default, and all
states) and strategy, the mean Spearman and Kendall correlation with the true
:math:`Q^c`, normalised shortfall (0 optimal, 1 random selection),
:math:`\hat\lambda` (§3.3) and top-k hit, each with a percentile bootstrap
interval over replicates, sorted by normalised shortfall with MRI-best and RS
as anchors, and beside them each strategy's mean CPU seconds per state.

The default grid is the issue's: the five abstract problems, the paper's six
classifiers, every registered strategy, 10 replicates, a pool of 250 and the
steps 2, 10, 30 and 80; with the initial set of one point per class
(:func:`mri_theory.problems.initial_labelled_set`) the abstract problems'
two classes give :math:`|D_S|` = 4, 12, 32 and 82, in every phase.

Output folder (``out``):

``{problem}__{classifier}/``
    the resumable folder of :func:`~mri_theory.runners.states.score_states`
    for each pairing, with ``timings.csv`` (``timings=True``): the CPU and
    wall seconds of each strategy's scores in each state the folder's runs
    computed (:func:`~mri_theory.runners.states.read_state_timings`).
``leaderboard.csv``
    :func:`~mri_theory.evaluation.leaderboard` of the states of the grid
    (replicates ``0..replicates-1``, the ``steps``; a folder may hold more),
    without the cost: a function of the states alone, the same bytes on
    every run of the same settings (as are the two files below).
``cost.csv``
    per (phase, strategy) the mean CPU seconds of the strategy per state and
    the number of states timed (``cpu_s``, ``timed_states``): a measurement,
    different on every run, so not in ``checksums.json``.  A state reused
    from an earlier run keeps that run's timing; a state computed without
    timings (by ``mri-theory diagnose``) has none.
``leaderboard.json``
    ``{"format": 1, "settings": {...}, "versions": {...}, "time": {...}}``:
    the settings (the labels of the grid, the sizes, the seeds, the truth of
    each pairing, the leaderboard's options and its confidence level), the
    library versions, and the time of the call: ``wall_s``,
    ``process_cpu_s`` (the CPU seconds of the calling process, which include
    the work of the states only when they are computed in it, ``n_jobs=1``)
    ``scored_cpu_s`` (the strategies' CPU seconds summed over the grid's
    timed states, whichever run computed them) and ``timings`` (how many
    (state, strategy) timings that sum holds).  Not in ``checksums.json``.
``differences.csv``
    :func:`~mri_theory.evaluation.strategy_differences` of the normalised
    shortfall (the statistic the leaderboard is sorted by): per phase, every
    two strategies' paired difference with its bootstrap p-value, Holm's
    adjusted p-value over the phase's comparisons and the Holm-level interval
    (the leaderboard's draws, ``boot_seed``, ``level``).
``statistics.csv.xz``
    :func:`~mri_theory.evaluation.state_statistics` of the states (xz): one
    row per state and strategy: 0.7 and 1.1 MB for the committed runs
    (960 and 1,440 states, 25 strategies), whose states take 1.3 and 1.8
    GB.  :func:`~mri_theory.evaluation.leaderboard` and
    :func:`~mri_theory.evaluation.strategy_differences` given it return
    ``leaderboard.csv`` and ``differences.csv`` again, so any cell can be
    recomputed, or read under other phases or another statistic, from a copy.
``checksums.json``
    the SHA-256 of ``leaderboard.csv``, ``differences.csv`` and
    ``statistics.csv.xz`` (``mri_theory.runners._store``).
``.lock``
    the call holds the folder's exclusive lock from before the first state
    is scored until its last file is written: a second writer is refused
    with a ``ValueError`` naming ``out`` and the pid of the first.

:func:`read_leaderboard` reads ``leaderboard.csv`` back once it matches its
checksum, with ``leaderboard.json``, ``cost.csv`` and the two verified tables above.  :func:`copy_leaderboard`
copies the files of a finished run into another folder (e.g. the
committed ``figures/leaderboard/design``, read by the figure ``leaderboard``),
``leaderboard.csv`` byte for byte, and writes there a ``checksums.json``
that records the SHA-256 of ``leaderboard.csv`` (the run's) and of
``leaderboard.json`` (as its settings file), so an edit of either is
refused on reading.  The copy holds no states: it cannot be resumed or
re-ranked, only read.

The leaderboard's floats are computed with one BLAS thread
(``mri_theory._utils.backends.one_thread``), as the diagnostics' summaries.
"""

from __future__ import annotations

import io
import json
import lzma
import operator
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from mri_theory._utils import backends
from mri_theory._utils import validation as check
from mri_theory._utils.backends import Execution
from mri_theory._utils.tables import read_csv_exact
from mri_theory._utils.versions import library_versions
from mri_theory.classifiers import Classifier
from mri_theory.evaluation.leaderboards import (
    DIFFERENCE_COLUMNS,
    LEADERBOARD_STATISTICS,
    PHASE_EDGES,
    STATE_STATISTICS_COLUMNS,
    leaderboard,
    leaderboard_options,
    state_statistics,
    strategy_differences,
)
from mri_theory.problems import Problem
from mri_theory.runners import _grid, _resolve, _store
from mri_theory.runners._docstrings import fill_doc
from mri_theory.runners.states import STATE_TIMING_COLUMNS, execute_states, read_state_timings
from mri_theory.runners.study import CLASSIFIER_SETS, PROBLEM_GROUPS, STRATEGY_SETS
from mri_theory.strategies import Strategy, list_strategies

__all__ = ["LEADERBOARD_COLUMNS", "LEADERBOARD_FILES", "Leaderboard", "StoredLeaderboard", "copy_leaderboard",
           "read_leaderboard", "run_leaderboard"]

#: The files :func:`run_leaderboard` writes into ``out`` (``cost.csv`` and ``leaderboard.json`` not in
#: ``checksums.json``).
LEADERBOARD_FILES = ("leaderboard.csv", "cost.csv", "leaderboard.json", "differences.csv", "statistics.csv.xz")
#: The columns of the leaderboard that hold the cost (``cost.csv``, not ``leaderboard.csv``).
_COST = ["cpu_s", "timed_states"]
#: The columns of ``leaderboard.csv``: :func:`~mri_theory.evaluation.leaderboard`'s table without the cost.
LEADERBOARD_COLUMNS = ["phase", "strategy", "anchor", "states", "resolved",
                       *[f"{stat}{end}" for stat in LEADERBOARD_STATISTICS for end in ("", "_ci_low", "_ci_high")]]
_FORMAT = 1
_TABLE, _COST_FILE, _RECORD, _DIFFERENCES, _STATISTICS = LEADERBOARD_FILES
#: The statistic whose paired differences ``differences.csv`` holds: the one the leaderboard is sorted by.
_COMPARED = "normalised_shortfall"


class Leaderboard(NamedTuple):
    """What :func:`run_leaderboard` computed and wrote.

    Parameters
    ----------
    states : DataFrame
        The states of every pairing, one :func:`~mri_theory.runners.states.score_states` table after another.
    timings : DataFrame
        The timings of the grid's states (columns :data:`~mri_theory.runners.states.STATE_TIMING_COLUMNS`).
    table : DataFrame
        :func:`~mri_theory.evaluation.leaderboard` of ``states`` with the cost of ``timings`` joined
        (``leaderboard.csv`` without, and ``cost.csv`` with only, the columns ``cpu_s`` and ``timed_states``).
    paths : list of Path
        The files written into ``out``: :data:`LEADERBOARD_FILES`.
    statistics : DataFrame
        :func:`~mri_theory.evaluation.state_statistics` of ``states`` (``statistics.csv.xz``): every cell of
        ``table`` and ``differences`` recomputed from it.
    differences : DataFrame
        :func:`~mri_theory.evaluation.strategy_differences` of the normalised shortfall (``differences.csv``).

    See Also
    --------
    mri_theory.runners.run_leaderboard : Computes and writes it.
    mri_theory.runners.StoredLeaderboard : What is read back from the folder.

    Examples
    --------
    >>> import tempfile
    >>> from mri_theory.runners import LEADERBOARD_FILES, Execution, Leaderboard, run_leaderboard
    >>> grid = dict(problems="four-gaussian", classifiers="lda", strategies=["RS", "SE"], replicates=2, steps=[2],
    ...             pool_size=6, population_size=200, n_boot=20, execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> board = run_leaderboard(**grid, out=tmp.name)
    >>> isinstance(board, Leaderboard), board._fields
    (True, ('states', 'timings', 'table', 'paths', 'statistics', 'differences'))
    >>> [path.name for path in board.paths] == list(LEADERBOARD_FILES)
    True

    Two states (one per replicate) of 4 candidates each, scored by RS, SE and the anchor MRI-best; the timings
    are those of the strategies asked for, in each state:

    >>> board.states.shape, board.timings.groupby("strategy").size().to_dict()
    ((16, 14), {'RS': 2, 'SE': 2})
    >>> board.table.loc[board.table.phase == "all", ["strategy", "timed_states"]].values.tolist()
    [['MRI-best', 0], ['SE', 2], ['RS', 2]]
    >>> tmp.cleanup()
    """

    states: pd.DataFrame
    timings: pd.DataFrame
    table: pd.DataFrame
    paths: list[Path]
    statistics: pd.DataFrame
    differences: pd.DataFrame


@fill_doc
def run_leaderboard(
    problems: str | Problem | Sequence[str | Problem] = "abstract",
    classifiers: str | Classifier | Sequence[str | Classifier] = "paper",
    strategies: str | Strategy | Sequence[str | Strategy] = "all",
    replicates: int = 10,
    steps: Sequence[int] = (2, 10, 30, 80),
    pool_size: int | str = 250,
    out: str | os.PathLike | None = None,
    *,
    trajectory: str | Strategy = "RS",
    population_size: int = 10_000,
    seed: int = 0,
    truth: str = "auto",
    phases: Sequence[int] = PHASE_EDGES,
    n_boot: int = 1000,
    boot_seed: int = 0,
    level: float = 0.95,
    top_k: int = 5,
    resolved_only: bool = True,
    out_name: str = "out",
    execution: Execution | None = None,
) -> Leaderboard:
    r"""Score every strategy beside the truth on a grid of problems and classifiers, and write the leaderboard.

    For each (problem, classifier) pairing,
    :func:`~mri_theory.runners.states.score_states` scores every remaining
    candidate with every strategy and with the true :math:`Q^c` along the
    reference trajectories, in ``out/{problem}__{classifier}`` (resumable:
    every verified state is reused), timing each strategy's scores.  All the
    states are then summarised by :func:`~mri_theory.evaluation.leaderboard`
    (per phase and strategy, means with percentile bootstrap intervals over
    replicates, sorted by normalised shortfall, MRI-best and RS as anchors),
    joined with the strategies' mean CPU seconds per state.  The module
    docstring lists the files.

    Parameters
    ----------
    problems : str, Problem, or a sequence of them, default "abstract"
        %(grid_problems)s
        Every problem must have the truth (``has_truth``).
    classifiers : str, Classifier, or a sequence of them, default "paper"
        %(grid_classifiers)s
    strategies : str, Strategy, or a sequence of them, default "all"
        %(grid_strategies)s
        The table lists them in this order.
    replicates, steps, pool_size, trajectory, population_size, seed, truth
        As in :func:`~mri_theory.runners.states.score_states`, the same for
        every pairing (with ``truth="auto"`` each pairing's truth is exact
        where it can be; ``leaderboard.json`` lists which).  The defaults
        reach every default phase (module docstring).
    out : path
        The output folder (module docstring); created if needed.  Required.
    phases, n_boot, level, top_k, resolved_only
        As in :func:`~mri_theory.evaluation.leaderboard`.
    boot_seed : int, default 0
        ``>= 0``: the ``seed`` of :func:`~mri_theory.evaluation.leaderboard`'s
        bootstrap draws.
    %(out_name)s
    %(execution)s

    Returns
    -------
    Leaderboard
        The states, their timings, the table (with the cost) and the paths of
        the files written.

    Raises
    ------
    %(raises_grid)s
    %(raises_io)s

    Warns
    -----
    %(warns_damaged)s

    See Also
    --------
    mri_theory.runners.read_leaderboard : The leaderboard of a finished folder, verified.
    mri_theory.evaluation.leaderboard : The table, from the states.
    mri_theory.runners.run_diagnostics : The states of one problem's classifiers, summarised per step.

    Examples
    --------
    Random sampling (RS) and Shannon entropy (SE) with LDA, in the states after 2 random labels of two
    replicates of a pool of 6:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from mri_theory.runners import Execution, run_leaderboard
    >>> grid = dict(problems="four-gaussian", classifiers="lda", strategies=["RS", "SE"], replicates=2, steps=[2],
    ...             pool_size=6, population_size=200, n_boot=20, execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> board = run_leaderboard(**grid, out=tmp.name)
    >>> sorted(path.name for path in Path(tmp.name).iterdir() if not path.name.startswith("."))
    ['checksums.json', 'cost.csv', 'differences.csv', 'four-gaussian__lda', 'leaderboard.csv', 'leaderboard.json',
     'statistics.csv.xz']

    The states have 4 labelled points: the first phase, and all states.  MRI-best (the optimum, normalised
    shortfall 0) and RS (random selection, 1) are the anchors, and SE is ranked between them:

    >>> table = board.table
    >>> table.phase.unique().tolist()
    ['≤12', 'all']
    >>> every = table[table.phase == "all"]
    >>> every[["strategy", "anchor", "states"]].values.tolist()
    [['MRI-best', True, 2], ['SE', False, 2], ['RS', True, 2]]
    >>> every.normalised_shortfall.round(4).tolist()
    [0.0, 0.0047, 1.0]

    Rerunning the finished folder computes nothing: the verified states are reused with the timings of the
    first run.

    >>> again = run_leaderboard(**grid, out=tmp.name)
    >>> again.states.equals(board.states), again.timings.equals(board.timings)
    (True, True)
    >>> tmp.cleanup()
    """
    wall, cpu = time.perf_counter(), time.process_time()
    options = leaderboard_options(phases, n_boot, 0, level, top_k, resolved_only)
    options["seed"] = check.count(boot_seed, "boot_seed", minimum=0)
    problem_items = _resolve.expand(problems, "problems", PROBLEM_GROUPS, "problem")
    classifier_items = _resolve.expand(classifiers, "classifiers", CLASSIFIER_SETS, "classifier")
    strategy_items = _resolve.expand(strategies, "strategies", {**STRATEGY_SETS, "all": tuple(list_strategies())},
                                     "strategy")
    steps = _grid.listed(steps)
    if out is None:
        raise TypeError(f"{out_name} must be a folder path (str or os.PathLike), got None")
    folder = _grid.check_folder(out, out_name, LEADERBOARD_FILES, "run_leaderboard")
    execution = backends.check_execution(execution)
    pairings = _grid.plan_grid([item for item, _, _ in problem_items], [item for item, _, _ in classifier_items],
                               [item for item, _, _ in strategy_items], replicates, steps, pool_size,
                               trajectory=trajectory, population_size=population_size, seed=seed, truth=truth,
                               folder=folder, execution=execution, timings=True)  # every pairing checked first
    plan = pairings[0].plan
    config = plan.states.config
    settings = {"problems": [label for _, label, _ in problem_items],
                "classifiers": [label for _, label, _ in classifier_items],
                "strategies": list(config.strategies), "replicates": plan.replicates,
                "steps": [operator.index(step) for step in steps], "pool_size": config.pool_size,
                "trajectory": config.trajectory, "population_size": config.population_size, "seed": config.seed,
                "truth": truth, "pairing_truth": {f"{p.problem}__{p.classifier}": p.plan.states.config.truth
                                                  for p in pairings},
                "phases": list(options["phases"]), "n_boot": options["n_boot"], "boot_seed": options["seed"],
                "level": options["level"], "top_k": options["top_k"], "resolved_only": options["resolved_only"]}
    with _store.locked(folder, out_name, owner="run_leaderboard"):  # one writer of out (the leaderboard, checksums)
        frames, timed = [], []
        for pairing in pairings:
            frames.append(execute_states(pairing.plan))
            spent = read_state_timings(pairing.folder)  # written by execute_states (timings=True)
            timed.append(spent[(spent.replicate < pairing.plan.replicates) & spent.step.isin(pairing.plan.steps)
                               & spent.strategy.isin(list(pairing.plan.strategies))])
        states = pd.concat(frames, ignore_index=True)
        timings = pd.concat(timed, ignore_index=True)[STATE_TIMING_COLUMNS]
        with backends.one_thread():  # floats written to leaderboard.csv: summed as with one BLAS thread
            statistics = state_statistics(states, options["top_k"], options["resolved_only"])
            table = leaderboard(statistics, **options, cost=timings)
            differences = strategy_differences(statistics, **options, statistic=_COMPARED)
        board = table.drop(columns=_COST)
        cost = table[["phase", "strategy", *_COST]]
        record = {"format": _FORMAT, "settings": settings, "versions": library_versions(),
                  "time": {"wall_s": time.perf_counter() - wall, "process_cpu_s": time.process_time() - cpu,
                           "scored_cpu_s": float(timings.cpu_s.sum()), "timings": len(timings)}}
        _store.write_atomic(_store.csv_bytes(cost), folder / _COST_FILE)
        _store.write_atomic(json.dumps(record, indent=2, sort_keys=True).encode(), folder / _RECORD)
        # the record's checksum beside the table's: an edited leaderboard.json is refused as the table is
        _store.write_tables(folder, {_TABLE: _store.csv_bytes(board), _DIFFERENCES: _store.csv_bytes(differences),
                                     _STATISTICS: lzma.compress(_store.csv_bytes(statistics))}, _RECORD)
    return Leaderboard(states, timings, table, [folder / name for name in LEADERBOARD_FILES], statistics,
                       differences)


class StoredLeaderboard(NamedTuple):
    """A leaderboard read back from its folder by :func:`read_leaderboard`.

    Parameters
    ----------
    table : DataFrame
        ``leaderboard.csv``, verified against its checksum (columns :data:`LEADERBOARD_COLUMNS`).
    record : dict
        ``leaderboard.json``: ``{"format", "settings", "versions", "time"}`` (module docstring).
    cost : DataFrame or None
        ``cost.csv`` (columns ``phase``, ``strategy``, ``cpu_s``, ``timed_states``), None where the folder has none.
    differences : DataFrame or None, default None
        ``differences.csv`` (columns :data:`~mri_theory.evaluation.DIFFERENCE_COLUMNS`), verified; None where the
        folder has none (written before the file was added).
    statistics : DataFrame or None, default None
        ``statistics.csv.xz`` (columns :data:`~mri_theory.evaluation.STATE_STATISTICS_COLUMNS`), verified; None
        where the folder has none (written before the file was added).

    See Also
    --------
    mri_theory.runners.read_leaderboard : Reads it.
    mri_theory.runners.Leaderboard : What the run returned.

    Examples
    --------
    >>> import tempfile
    >>> from mri_theory.runners import Execution, StoredLeaderboard, read_leaderboard, run_leaderboard
    >>> grid = dict(problems="four-gaussian", classifiers="lda", strategies=["RS", "SE"], replicates=2, steps=[2],
    ...             pool_size=6, population_size=200, n_boot=20, execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> board = run_leaderboard(**grid, out=tmp.name)
    >>> stored = read_leaderboard(tmp.name)
    >>> isinstance(stored, StoredLeaderboard), stored._fields
    (True, ('table', 'record', 'cost', 'differences', 'statistics'))

    The table is the run's without the cost, which ``cost`` holds; the record holds the settings:

    >>> stored.table.equals(board.table.drop(columns=["cpu_s", "timed_states"]))
    True
    >>> list(stored.cost.columns), stored.cost.timed_states.tolist() == board.table.timed_states.tolist()
    (['phase', 'strategy', 'cpu_s', 'timed_states'], True)
    >>> sorted(stored.record), stored.record["settings"]["strategies"], stored.record["settings"]["replicates"]
    (['format', 'settings', 'time', 'versions'], ['RS', 'SE'], 2)
    >>> stored.differences.shape, stored.statistics.shape
    ((6, 11), (6, 17))
    >>> tmp.cleanup()
    """

    table: pd.DataFrame
    record: dict
    cost: pd.DataFrame | None
    differences: pd.DataFrame | None = None
    statistics: pd.DataFrame | None = None


def _well_formed_record(record: object) -> bool:
    return (isinstance(record, dict) and set(record) == {"format", "settings", "versions", "time"}
            and record["format"] == _FORMAT
            and all(isinstance(record[key], dict) for key in ("settings", "versions", "time")))


def _leaderboard_folder(path: object, name: str) -> Path:
    """``path`` (a leaderboard folder or its ``leaderboard.csv``) as the folder; errors naming ``name``."""
    folder = _store.check_path(path, "a leaderboard folder", name)
    if folder.name == _TABLE and not folder.is_dir():
        folder = folder.parent
    if not (folder / _TABLE).is_file():
        raise ValueError(f"{name}: no leaderboard at {folder} ({_TABLE} is missing: a run that did not finish, or "
                         "not a folder of run_leaderboard)")
    return folder


def _read(folder: Path, name: str) -> StoredLeaderboard:
    """:func:`read_leaderboard` of the checked ``folder``, its errors naming ``name``."""
    table = _store.verified_csv(folder / _TABLE, name, LEADERBOARD_COLUMNS, "a leaderboard of run_leaderboard")
    record_file = folder / _RECORD
    if not record_file.is_file():
        raise ValueError(f"{name}: {record_file} is missing (the settings, versions and time of the run)")
    try:
        record = json.loads(record_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        record = exc
    if not _well_formed_record(record):
        reason = f" ({record})" if isinstance(record, Exception) else ""
        raise ValueError(f"{name}: {record_file} is unreadable or corrupt, not the record of run_leaderboard{reason}")
    cost_file, cost = folder / _COST_FILE, None
    if cost_file.is_file():
        try:
            cost = read_csv_exact(cost_file)
        except ValueError as exc:  # pandas' parser and empty-data errors
            raise ValueError(f"{name}: {cost_file} is not a readable CSV ({exc})") from None
        columns = ["phase", "strategy", *_COST]
        measured = cost[_COST].apply(pd.to_numeric, errors="coerce") if list(cost.columns) == columns else None
        seconds, counts = (None, None) if measured is None else measured.to_numpy(dtype=float).T
        if seconds is None or counts is None or not (  # NaN seconds only where no state was timed
                np.all(counts >= 0) and np.all((seconds >= 0) | (np.isnan(seconds) & (counts == 0)))):
            raise ValueError(f"{name}: {cost_file} is not the cost table of run_leaderboard: it must have the "
                             f"columns {columns}, with timed states >= 0 and CPU seconds >= 0 (NaN where none was "
                             "timed)")
    optional: dict[str, pd.DataFrame | None] = {}
    for file, columns, what in ((_DIFFERENCES, DIFFERENCE_COLUMNS, "the paired differences of run_leaderboard"),
                                (_STATISTICS, STATE_STATISTICS_COLUMNS, "the state statistics of run_leaderboard")):
        optional[file] = None
        if (folder / file).is_file() or file in _store.recorded_tables(folder):  # a listed file must be there
            optional[file] = _optional_table(folder / file, name, columns, what)
    return StoredLeaderboard(table, record, cost, optional[_DIFFERENCES], optional[_STATISTICS])


def _optional_table(file: Path, name: str, columns: list[str], what: str) -> pd.DataFrame:
    """A checksummed table of a leaderboard folder, read (``.xz``: decompressed) once verified."""
    data = _store.verified_table(file, name)
    if file.suffix == ".xz":
        try:
            data = lzma.decompress(data)
        except lzma.LZMAError as exc:
            raise ValueError(f"{name}: {file} is not an xz file ({exc})") from None
    try:
        table = read_csv_exact(io.BytesIO(data))
    except ValueError as exc:
        raise ValueError(f"{name}: {file} is not a readable CSV ({exc})") from None
    if list(table.columns) != columns:
        raise ValueError(f"{name}: {file} is not {what}: columns {list(table.columns)}, expected {columns}")
    return table


def read_leaderboard(path: str | os.PathLike) -> StoredLeaderboard:
    """The leaderboard of a :func:`run_leaderboard` folder (or of a copy by :func:`copy_leaderboard`), verified.

    Parameters
    ----------
    path : str or path-like
        The folder, or its ``leaderboard.csv``.

    Returns
    -------
    StoredLeaderboard
        ``leaderboard.csv`` once it matches its SHA-256 in the folder's
        ``checksums.json`` (and, in a copy, ``leaderboard.json`` its own),
        ``leaderboard.json`` and ``cost.csv`` (None if absent).

    Raises
    ------
    TypeError
        Naming ``path`` unless it is a str or path-like.
    ValueError
        Naming ``path`` when there is no ``leaderboard.csv``, when it does
        not match its checksum (edited, cut or replaced; no checksum file),
        when the ``leaderboard.json`` recorded beside it changed, when another
        process is writing the folder (its pid named), when the table lacks
        the columns :data:`LEADERBOARD_COLUMNS`, or when ``leaderboard.json``
        is missing or not a record of :func:`run_leaderboard`, or ``cost.csv``
        is not a CSV.  (``cost.csv`` is a measurement, not checksummed.)

    See Also
    --------
    mri_theory.runners.run_leaderboard : Writes the folder.
    mri_theory.runners.copy_leaderboard : Copies it without the states.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from mri_theory.runners import LEADERBOARD_COLUMNS, Execution, read_leaderboard, run_leaderboard
    >>> grid = dict(problems="four-gaussian", classifiers="lda", strategies=["RS", "SE"], replicates=2, steps=[2],
    ...             pool_size=6, population_size=200, n_boot=20, execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> board = run_leaderboard(**grid, out=tmp.name)
    >>> stored = read_leaderboard(tmp.name)  # the folder, or its leaderboard.csv
    >>> list(stored.table.columns) == LEADERBOARD_COLUMNS
    True
    >>> stored.table.equals(read_leaderboard(Path(tmp.name) / "leaderboard.csv").table)
    True
    >>> stored.differences.equals(board.differences), stored.statistics.equals(board.statistics)
    (True, True)

    A table that no longer matches its checksum is refused:

    >>> with open(Path(tmp.name) / "leaderboard.csv", "a") as file:
    ...     _ = file.write("\\n")
    >>> read_leaderboard(tmp.name)
    Traceback (most recent call last):
    ...
    ValueError: path: ...leaderboard.csv does not match its checksum in ...checksums.json: ...
    >>> tmp.cleanup()
    """
    return _read(_leaderboard_folder(path, "path"), "path")


def copy_leaderboard(source: str | os.PathLike, destination: str | os.PathLike) -> list[Path]:
    """Copy a finished leaderboard (its files but the states: :data:`LEADERBOARD_FILES`) into ``destination``.

    ``source`` is read by :func:`read_leaderboard` (so a table that does not
    match its checksum, or a folder still being written, is refused before
    anything is written); the files are copied byte for byte, and
    ``destination/checksums.json`` records the SHA-256 of ``leaderboard.csv``,
    ``differences.csv`` and ``statistics.csv.xz`` (the same as the run's)
    and of ``leaderboard.json`` as their settings file (module docstring).
    The states are not copied: ``statistics.csv.xz`` recomputes every cell.

    Parameters
    ----------
    source : str or path-like
        A :func:`run_leaderboard` folder (or a copy).
    destination : str or path-like
        The folder to write, created if needed; its files of these names are
        replaced.

    Returns
    -------
    list of Path
        The files written: ``leaderboard.csv``, ``differences.csv`` and
        ``statistics.csv.xz`` (if the source has them), ``cost.csv`` (if the
        source has one), ``leaderboard.json``, ``checksums.json``.

    Raises
    ------
    TypeError, ValueError
        As :func:`read_leaderboard`, naming ``source``; naming ``destination``
        when it is not a writable folder or is the source itself.
    OSError
        When a file cannot be written, naming the file.

    See Also
    --------
    mri_theory.runners.read_leaderboard : Reads the copy, verified.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from mri_theory.runners import Execution, copy_leaderboard, read_leaderboard, run_leaderboard
    >>> grid = dict(problems="four-gaussian", classifiers="lda", strategies=["RS", "SE"], replicates=2, steps=[2],
    ...             pool_size=6, population_size=200, n_boot=20, execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> run, copy = Path(tmp.name) / "run", Path(tmp.name) / "copy"
    >>> _ = run_leaderboard(**grid, out=run)
    >>> [path.name for path in copy_leaderboard(run, copy)]
    ['leaderboard.csv', 'differences.csv', 'statistics.csv.xz', 'cost.csv', 'leaderboard.json', 'checksums.json']
    >>> (copy / "leaderboard.csv").read_bytes() == (run / "leaderboard.csv").read_bytes()
    True
    >>> (run / "four-gaussian__lda").is_dir(), (copy / "four-gaussian__lda").exists()  # no states in the copy
    (True, False)
    >>> read_leaderboard(copy).table.equals(read_leaderboard(run).table)
    True
    >>> tmp.cleanup()
    """
    folder = _leaderboard_folder(source, "source")
    _read(folder, "source")  # verified, complete, not being written
    target = _grid.check_folder(destination, "destination", LEADERBOARD_FILES, "run_leaderboard")
    if target.exists() and target.resolve() == folder.resolve():
        raise ValueError(f"destination: {target} is the source folder")
    check.create_folder(target, "destination")
    _store.mark_owner(target, "run_leaderboard")
    names = [name for name in (_COST_FILE, _RECORD) if (folder / name).is_file()]
    for name in names:
        _store.write_atomic((folder / name).read_bytes(), target / name)
    tables = {name: _store.verified_table(folder / name, "source") for name in (_TABLE, _DIFFERENCES, _STATISTICS)
              if name == _TABLE or (folder / name).is_file()}
    _store.write_tables(target, tables, _RECORD)
    return [*(target / name for name in (*tables, *names)), target / _store.CHECKSUMS_FILE]
