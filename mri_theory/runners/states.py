r"""Every strategy's scores and the true :math:`Q^c` of every candidate, in the same states.

A *state* is a labelled set :math:`D_S` and the unlabelled candidates left in
the pool: (problem, classifier, trajectory, replicate, step).  The states are
those of the sandbox's learning curves (:func:`mri_theory.runners.sandbox.run_curves`
with ``subsample=None``): replicate ``r`` has the sandbox's initial set, pool
and evaluation population for the same ``seed``, ``pool_size`` and
``population_size``, and the state at step ``t`` is the initial set plus the
first ``t`` pool points that the reference ``trajectory`` strategy labelled in
that replicate (its ``chosen`` column); the candidates are all the other pool
points, in ascending pool index.  The default trajectory, random selection,
makes every state a typical state of an AL run; ``"MRI-best"`` follows the
optimal greedy curve, and any registered strategy name or
:class:`~mri_theory.strategies.Strategy` object is accepted.  The problem,
the classifier and the strategies are registered names or objects, labelled
as in :mod:`mri_theory.runners.sandbox` (a name as given, an object by its
``name``); every task carries the objects to its worker.  The problem must
have the truth (``has_truth``): the table compares with the true :math:`Q^c`.

In each state :func:`score_states` computes once the true current loss
:math:`L(\theta(D_S))` (term :math:`T_c` of Eq. ``eqc``) and the true
:math:`Q^c` of the error loss of every candidate
(:func:`mri_theory.engine.targets.true_q_c_and_loss`), hence the true future-loss
term :math:`T_e(x) = \sum_j p_j(x) L(\theta(D_S \cup (x, c_j))) = L - Q^c(x)`,
and every strategy's :meth:`~mri_theory.strategies.Strategy.scores` on
exactly these candidates (no selection is made).  Only the oracles
(``needs_truth``; MRI-best and MRI-worst, with the error loss) see the problem
and the population, as in the sandbox.  For the strategies whose score is
:math:`-\hat T_e` (``Strategy.estimates_t_e``: SMRI and BMRI, Algorithms 1-2)
the table holds :math:`\hat T_e = -` score, so the error
:math:`M = \hat T_e - T_e` that §3.3's guarantee (:math:`\lambda = \tfrac12 +
\beta`) assumes unbiased and i.i.d. can be measured.

The truth is exact or sampled (``truth``, recorded in the settings; as in
:func:`mri_theory.runners.sandbox.run_curves`: ``"auto"`` is exact where the
(problem, classifier) pair allows it).  A sampled truth is the *decisive* one
(:func:`mri_theory.engine.targets.decisive_q_c`, drawn from
``SeedSequence(seed, spawn_key=(r, 4, t))``): every candidate on 8 scrambles of
about ``population_size`` points in all, the contenders for the best on doubling
populations (up to ``2**7`` times) until the best is resolved; the state's
``true_q_c``, ``loss`` and ``t_e`` are the race's (the current loss on its
first round's populations, so that ``t_e = loss - true_q_c`` rests on the same
points), and the oracles (MRI-best, MRI-worst) score by it; with the exact truth the oracles of the error
loss score by the state's exact :math:`Q^c` too (the values :func:`~mri_theory.engine.targets.true_q_c` would
give them, computed once: their cost is the truth's).  Each state says
whether its truth can decide (``resolved``): always with exact truth; with
sampled truth when the race resolved its best: every rival beaten, tied
exactly, or, with that confidence, better by less than 5 % of the spread of
:math:`Q^c` over the candidates, at the family-wise level
:data:`~mri_theory.engine.targets.LEVEL` over the contenders and looks (a
confident difference is Student's t quantile of ``LEVEL / ((m - 1) (doublings
+ 1))`` times its standard error: 8.3 to 8.8 for a state of 170 to 248
candidates and 8 looks; recorded as the
settings' ``level``; a folder raced by the earlier per-comparison rule, 3
standard errors per comparison, which recorded none, is refused).
With every paper classifier's truth exact, no committed state is raced.  The summaries
(:func:`mri_theory.evaluation.summarise_states`) use it.

Seeds: the data of replicate ``r`` and the reference trajectory come from the
sandbox's streams (``SeedSequence(seed, spawn_key=(r, 0))`` and ``(r, 1,
crc32(trajectory))`` with the trajectory's label, :mod:`mri_theory.runners.sandbox`); strategy ``s`` scoring the
state at step ``t`` of replicate ``r`` draws from
``numpy.random.default_rng(SeedSequence(seed, spawn_key=(r, 3, t, crc32(s))))``
(``crc32`` of the UTF-8 label; the second key 3 is unused by the sandbox).  So a
state's rows are the same whichever other states, strategies or backends run.

Output folder (``out``):

``diagnostics.json``
    ``{"format": 1, "settings": {...}, "grid": {"replicates": n, "steps": [...]}}``.
    The settings (problem, classifier, trajectory, strategies as labels and,
    as ``problem_spec``, ``classifier_spec``, ``trajectory_spec`` and
    ``strategy_specs``, the ``repr`` of the objects they stand for; pool
    size, population size, seed) determine every state's rows; a run with
    other settings in the same folder is refused (another object of the same
    name included).  The strategies are settings (a
    part holds exactly the strategies requested): scoring other strategies
    needs another folder.  The grid may grow: more replicates or steps reuse
    every verified part.
``parts/{replicate:05d}__{step:05d}.csv``
    one finished state: the part format of :mod:`mri_theory.runners.sandbox` (first
    line ``# mri-theory part {json}`` with the keys ``replicate``, ``step``,
    ``format``, ``config_sha256`` (of the canonical settings JSON), ``rows``,
    ``sha256`` of the body), then the CSV body with the columns
    :data:`STATE_COLUMNS`.
``states.csv``
    the whole table, rebuilt from the verified parts at the end of every run.
``checksums.json``
    the SHA-256 of ``states.csv`` and of ``diagnostics.json`` when it was
    written (``mri_theory.runners._store``): :func:`read_states` refuses a
    table that does not match (edited, cut, left by an unfinished run).
``.lock``
    a run holds an exclusive OS file lock on it (``fcntl.flock``, released
    when the process ends) before it writes ``diagnostics.json`` and until its
    last file: one process writes a folder at a time, and a second is
    refused with a ``ValueError`` naming the pid of the first.
``timings.csv`` (only with ``timings=True``)
    the cost of every strategy in every state the folder's runs computed
    (columns :data:`STATE_TIMING_COLUMNS`): the CPU seconds of the thread that
    ran the strategy's :func:`~mri_theory.strategies.base.checked_scores`
    call in the worker (``time.thread_time``: every task runs with one BLAS
    thread, so this is all of it) and its wall seconds.  Only the strategy's
    own scores are timed: not the truth, not the replay of the trajectory.
    Rewritten by the calling process as each state arrives; a state reused
    from an earlier run keeps that run's timing, one computed again (its part
    was damaged) gets the new one.  Timings are a measurement, not a result:
    they differ from run to run, are not part of the table or of
    ``checksums.json``, and an unreadable file is replaced (with a
    ``RuntimeWarning``) rather than refused.  :func:`read_state_timings` reads them.

A part counts on resume only if it passes the shared checks (header, this
state and these settings, checksum, row count: strategies × remaining
candidates) and these: the columns :data:`STATE_COLUMNS` with integer
``replicate``, ``step``, ``n_labelled``, ``candidate``; every row naming this
state; the strategies in the given order, each over the same ascending pool
indices; finite ``score``, ``true_q_c``, ``loss`` (one value) and ``t_e``;
``t_e_estimate`` finite exactly for the strategies that estimate :math:`T_e`;
``resolved`` one value, 0 or 1, for the whole state.
Any other part is reported by a :class:`~mri_theory.runners._store.DamagedPartWarning`
naming the file and the reason, and recomputed.  As in the sandbox, every
file is written atomically by the calling process only.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import os
import time
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from mri_theory._utils import backends, limits
from mri_theory._utils import validation as check
from mri_theory._utils.backends import Execution
from mri_theory.classifiers import Classifier
from mri_theory.engine.targets import DOUBLINGS, true_q_c_and_loss
from mri_theory.problems import Problem
from mri_theory.runners import _curves, _resolve, _store
from mri_theory.runners._docstrings import fill_doc
from mri_theory.strategies import Context, MRIBest, Strategy
from mri_theory.strategies.base import checked_scores

__all__ = ["STATE_COLUMNS", "STATE_TIMING_COLUMNS", "Execution", "StatesPlan", "execute_states", "plan_states",
           "read_state_timings", "read_states", "score_states"]

#: Columns of the tidy table of :func:`score_states`, in this order.
STATE_COLUMNS = ["problem", "classifier", "trajectory", "replicate", "step", "n_labelled", "strategy",
                 "candidate", "score", "true_q_c", "loss", "t_e", "t_e_estimate", "resolved"]
#: Columns of ``timings.csv`` (``timings=True``): one row per state and strategy scored (module docstring).
STATE_TIMING_COLUMNS = ["problem", "classifier", "trajectory", "replicate", "step", "strategy", "cpu_s", "wall_s"]

_SETTINGS_FILE = "diagnostics.json"
_RESULTS_FILE = "states.csv"
_PARTS_DIR = "parts"
_FORMAT = 1
#: The second spawn key of the strategies' streams (the sandbox uses 0, 1 and 2).
_SCORE_KEY = 3
_INTEGER = ["replicate", "step", "n_labelled", "candidate"]
#: The integer keys of ``timings.csv`` (the other keys are text).
_TIMING_INTEGERS = ["replicate", "step"]
_NUMERIC = ["score", "true_q_c", "loss", "t_e", "t_e_estimate", "resolved"]


@dataclass(frozen=True)
class _StatesConfig:
    """Everything that determines a state's rows (the ``settings`` of ``diagnostics.json``): the labels,
    the ``repr`` of the objects they stand for, the sizes and the seed."""

    problem: str
    classifier: str
    trajectory: str
    strategies: tuple[str, ...]
    pool_size: int
    population_size: int
    seed: int
    problem_spec: str
    classifier_spec: str
    trajectory_spec: str
    strategy_specs: tuple[str, ...]
    truth: str
    #: The cap of the decisive sampled truth's race in a state (:data:`~mri_theory.engine.targets.DOUBLINGS`; None
    #: with the exact truth): recorded, so that a folder of the sampled truth before the race is not resumed.
    doublings: int | None
    #: The race's family-wise error level (:func:`mri_theory.runners._curves.race_level`): recorded only when set,
    #: so that a folder raced by the earlier per-comparison rule is refused rather than resumed by another rule.
    level: float | None = None

    def settings(self) -> dict[str, Any]:
        """The settings as stored in ``diagnostics.json`` (JSON types; ``level`` only when set)."""
        return _curves.stored_settings({**asdict(self), "strategies": list(self.strategies),
                                        "strategy_specs": list(self.strategy_specs)})

    def curves(self, budget: int) -> _curves.CurveConfig:
        """The sandbox configuration whose curves (to ``budget`` labels) give the states."""
        return _curves.CurveConfig(self.problem, self.classifier, self.pool_size, budget, self.population_size,
                                   "error", None, False, self.seed, self.problem_spec, self.classifier_spec,
                                   self.truth, _curves.CURVE_DOUBLINGS if self.truth == "sampled" else None,
                                   self.level)


@dataclass(frozen=True)
class _States:
    """A :class:`_StatesConfig` with the objects its labels stand for: what a task carries to the workers."""

    config: _StatesConfig
    problem: Problem
    classifier: Classifier
    trajectory: Strategy
    strategies: Mapping[str, Strategy]


class _Scored(NamedTuple):
    """One state's rows and what each strategy's scores cost: ``{label: (cpu_s, wall_s)}``."""

    frame: pd.DataFrame
    cost: dict[str, tuple[float, float]]


def _score_state(states: _States, replicate: int, step: int) -> _Scored:
    """The rows of one state (every strategy's scores and the truth on every remaining candidate), and the CPU
    and wall seconds of each strategy's :func:`~mri_theory.strategies.base.checked_scores` call."""
    cfg, problem = states.config, states.problem
    curve = _curves.Run(cfg.curves(step), problem, states.classifier,  # the trajectory's first `step` picks
                         {cfg.trajectory: states.trajectory})        # do not depend on the budget
    data = _curves.replicate_data(problem, curve.config, replicate)
    X0, y0, pool_X, pool_y, population = data
    chosen = _curves.run_pair(curve, cfg.trajectory, replicate, data, losses=False).chosen.to_numpy()[:step]
    X, y = np.vstack([X0, pool_X[chosen]]), np.append(y0, pool_y[chosen])
    available = np.setdiff1d(np.arange(cfg.pool_size), chosen)  # ascending
    candidates = pool_X[available]
    base = copy.deepcopy(states.classifier)
    cpu, wall = time.thread_time(), time.perf_counter()
    if cfg.truth == "sampled":  # the decisive truth: raced until its best candidate is resolved
        decided = _curves.decided_truth(dataclasses.replace(curve.config, doublings=cfg.doublings), problem, base,
                                        replicate, step, X, y, candidates)
        loss, true_q, resolved = decided.loss, decided.q_c, decided.resolved
    else:  # exact: no noise, every state resolved
        loss, true_q = true_q_c_and_loss(problem, base, X, y, candidates, population, "error")
        resolved = True
    truth_cost = (time.thread_time() - cpu, time.perf_counter() - wall)
    blocks, cost = [], {}
    for name, strategy in states.strategies.items():
        strategy = copy.deepcopy(strategy)  # fresh for every state, as a worker gets it
        rng = np.random.default_rng(np.random.SeedSequence(
            cfg.seed, spawn_key=(replicate, _SCORE_KEY, step, zlib.crc32(name.encode()))))
        if isinstance(strategy, MRIBest) and (cfg.truth == "sampled" or strategy.loss == "error"):
            # the oracles score by the state's truth (exact: the same values true_q_c gives them, computed once)
            scores, cost[name] = strategy.sign * true_q, truth_cost
        else:
            seen = strategy.needs_truth  # practical strategies never see the truth, nor the candidates' labels
            ctx = Context(X, y, candidates, candidates, base, problem.n_classes, rng, problem if seen else None,
                          population if seen else None, pool_y[available] if strategy.peeks else None)
            cpu, wall = time.thread_time(), time.perf_counter()
            scores = checked_scores(strategy, ctx)
            cost[name] = (time.thread_time() - cpu, time.perf_counter() - wall)
        blocks.append(pd.DataFrame({
            "strategy": name, "candidate": available, "score": scores, "true_q_c": true_q, "loss": loss,
            "t_e": loss - true_q, "t_e_estimate": -scores if strategy.estimates_t_e else np.nan,
            "resolved": float(resolved)}))
    frame = pd.concat(blocks, ignore_index=True)
    frame.insert(0, "n_labelled", len(y))
    frame.insert(0, "step", step)
    frame.insert(0, "replicate", replicate)
    frame.insert(0, "trajectory", cfg.trajectory)
    frame.insert(0, "classifier", cfg.classifier)
    frame.insert(0, "problem", cfg.problem)
    return _Scored(frame[STATE_COLUMNS], cost)


def _computed_state(states: _States, replicate: int, step: int) -> tuple[tuple[int, int], _Scored]:
    """What a (possibly remote) worker does: compute one state and return it with its key; never write."""
    return (replicate, step), _score_state(states, replicate, step)


# ------------------------------------------------------------------ storage


def _part_path(out: Path, replicate: int, step: int) -> Path:
    return out / _PARTS_DIR / f"{replicate:05d}__{step:05d}.csv"


def _read_state_part(path: Path, states: _States, replicate: int, step: int) -> pd.DataFrame:
    """A verified part's rows (module docstring); raises ``_store.DamagedPart`` with the reason otherwise."""
    cfg = states.config
    m = cfg.pool_size - step
    frame = _store.read_keyed_part(path, {"replicate": replicate, "step": step},
                                     _store.canonical_sha256(cfg.settings()), len(cfg.strategies) * m, "state")
    damaged = _store.DamagedPart
    if list(frame.columns) != STATE_COLUMNS:
        raise damaged(f"wrong columns {list(frame.columns)}, expected {STATE_COLUMNS}")
    if not (all(pd.api.types.is_integer_dtype(frame[c]) for c in _INTEGER)
            and all(pd.api.types.is_float_dtype(frame[c]) for c in _NUMERIC)):
        raise damaged(f"wrong column types: {_INTEGER} must be integers and {_NUMERIC} numbers")
    n_labelled = states.problem.n_classes + step
    if not ((frame.problem == cfg.problem) & (frame.classifier == cfg.classifier)
            & (frame.trajectory == cfg.trajectory) & (frame.replicate == replicate) & (frame.step == step)
            & (frame.n_labelled == n_labelled)).all():
        raise damaged(f"rows not matching the state: not every row names {cfg.problem}, {cfg.classifier}, "
                      f"{cfg.trajectory}, replicate {replicate}, step {step}, n_labelled {n_labelled}")
    if not np.array_equal(frame.strategy.to_numpy(dtype=object), np.repeat(np.array(cfg.strategies, object), m)):
        raise damaged(f"the strategies are not {list(cfg.strategies)}, in this order, {m} rows each")
    candidates = frame.candidate.to_numpy().reshape(len(cfg.strategies), m)
    if (np.any(candidates != candidates[0]) or np.any(np.diff(candidates[0]) <= 0)
            or candidates[0, 0] < 0 or candidates[0, -1] >= cfg.pool_size):
        raise damaged("candidate is not the same ascending pool indices for every strategy")
    if not np.all(np.isfinite(frame[["score", "true_q_c", "loss", "t_e"]].to_numpy())):
        raise damaged("non-finite score, true_q_c, loss or t_e")
    if not (frame.resolved.iloc[0] in (0.0, 1.0) and np.all(frame.resolved.to_numpy() == frame.resolved.iloc[0])):
        raise damaged("resolved is not one value, 0 or 1, for the whole state")
    if np.any(frame.loss.to_numpy() != frame.loss.iloc[0]):
        raise damaged("the loss differs between rows of one state")
    estimating = np.repeat([strategy.estimates_t_e for strategy in states.strategies.values()], m)
    if not np.array_equal(np.isfinite(frame.t_e_estimate.to_numpy()), estimating):
        raise damaged("t_e_estimate is not finite exactly for the strategies that estimate T_e")
    return frame


def _well_formed(stored: Any) -> bool:
    """Whether ``stored`` has the structure of ``diagnostics.json`` (module docstring)."""
    return (isinstance(stored, dict) and set(stored) == {"format", "settings", "grid"}
            and stored["format"] == _FORMAT and isinstance(stored["settings"], dict))


def _check_storage(out: Any, cfg: _StatesConfig) -> Path | None:
    """``out`` as a Path (or None) once every check passed; reads only, writes nothing."""
    path = _store.check_out(out, ((_PARTS_DIR, True), (_SETTINGS_FILE, False), (_RESULTS_FILE, False),
                                  (_store.TIMINGS_FILE, False)), own=_SETTINGS_FILE)
    if path is None:
        return None
    stored = _store.read_settings_json(path / _SETTINGS_FILE, "out", "diagnostics", _well_formed)
    if stored is not None and stored["settings"] != cfg.settings():
        raise ValueError(f"out: {path} holds diagnostics with other settings ({path / _SETTINGS_FILE}); "
                         "use another folder")
    return path


# ------------------------------------------------------------------ arguments


def _check_steps(steps: Any, pool_size: int) -> list[int]:
    """Distinct step counts >= 0, sorted, each leaving at least two candidates in the pool."""
    if isinstance(steps, (str, bytes)) or not isinstance(steps, Iterable):
        raise TypeError(f"steps must be a sequence of step counts (int), got {type(steps).__name__}")
    values = [check.count(step, "steps", minimum=0) for step in steps]
    if not values:
        raise ValueError("steps must hold at least one step")
    repeated = sorted({step for step in values if values.count(step) > 1})
    if repeated:
        raise ValueError(f"steps must be distinct, got {', '.join(map(str, repeated))} more than once")
    if max(values) > pool_size - 2:
        raise ValueError(f"steps must be <= pool_size - 2 = {pool_size - 2} (at least two candidates left), "
                         f"got {max(values)}")
    return sorted(values)


# ------------------------------------------------------------------ the runner


@fill_doc
def score_states(
    problem: str | Problem,
    classifier: str | Classifier,
    strategies: Sequence[str | Strategy] | str | Strategy,
    replicates: int = 10,
    steps: Sequence[int] = (2, 10, 30),
    pool_size: int | str = 100,
    *,
    trajectory: str | Strategy = "RS",
    population_size: int = 10_000,
    seed: int = 0,
    truth: str = "auto",
    out: str | os.PathLike | None = None,
    execution: Execution | None = None,
    timings: bool = False,
) -> pd.DataFrame:
    r"""Score every remaining candidate with every strategy and with the truth, along reference trajectories.

    In each state (module docstring) the true :math:`Q^c` of the error loss
    (Eq. ``eqc``), the true current loss and :math:`T_e = L - Q^c` are
    computed once, and every strategy scores the same candidates (all
    unlabelled pool points).  For SMRI and BMRI (Algorithms 1-2) the table
    also holds their estimate :math:`\hat T_e = -` score, whose error
    :math:`M = \hat T_e - T_e` is what §3.3's guarantee assumes unbiased and
    i.i.d.  One task per (replicate, step).

    Parameters
    ----------
    %(problem)s
        It must have the truth (``has_truth``).
    %(classifier)s
    %(strategies)s
    %(replicates)s
        Replicate ``r`` has the data of replicate ``r`` of
        :func:`~mri_theory.runners.sandbox.run_curves` with the same
        ``seed``, ``pool_size`` and ``population_size``.
    steps : sequence of int
        Distinct labels acquired from the pool (``t >= 0``, at most
        ``pool_size - 2`` so that at least two candidates remain); the table
        is sorted by step.
    %(pool_size)s
    trajectory : str or Strategy, default "RS"
        The strategy whose sandbox curve (``subsample=None``) gives the
        states: ``"RS"`` (typical states), ``"MRI-best"`` (the optimal greedy
        path), any registered strategy name or a Strategy object (its label
        seeds its curve, as in :func:`~mri_theory.runners.sandbox.run_curves`).
    %(population_size)s
    %(seed)s
    %(truth)s
        The resolved value is recorded in the settings (``truth``:
        ``"exact"`` or ``"sampled"``); a sampled truth is the decisive one
        (module docstring).
    %(out)s
        Its settings record the ``repr`` of every object: rerunning with
        another object of the same name (other parameters) is refused
        (``out``).
    %(execution)s
    timings : bool, default False
        With ``out``: record the CPU and wall seconds of every strategy's
        scores in every state computed, in ``out/timings.csv`` (module
        docstring; :func:`read_state_timings`).  A measurement beside the
        results, never in the table or its checksums.  ``True`` without
        ``out`` is refused (``timings``).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`STATE_COLUMNS`, sorted by replicate, step, strategy
        (in the given order) and candidate.  ``t_e = loss - true_q_c``;
        ``t_e_estimate = -score`` for the strategies with ``estimates_t_e``
        (SMRI, BMRI), NaN otherwise; ``resolved`` (1 or 0, the same on every
        row of a state) whether the truth's best candidate is decided (the
        decisive truth's race with a sampled truth, always with exact truth:
        module docstring).

    Raises
    ------
    ValueError, TypeError
        For bad arguments, naming the argument, before any work is done or
        any file is written (a ``problem`` without the truth, sizes beyond
        the bounds above included); ``ValueError`` naming ``out`` when the
        folder holds diagnostics with other settings, a corrupt
        ``diagnostics.json``, or results of ``run_curves``/``run_study``, or
        when another process is writing it (its pid named).
    %(raises_io)s

    Warns
    -----
    %(warns_damaged)s

    See Also
    --------
    mri_theory.runners.read_states : The table written to ``out``, verified.
    mri_theory.evaluation.summarise_states : The summaries of the table.

    Examples
    --------
    One replicate of a pool of 6, in the states after 0 and 2 labels picked by random sampling (RS), scored by RS
    and SMRI (which estimates :math:`T_e`):

    >>> from mri_theory.runners import Execution, score_states
    >>> table = score_states("four-gaussian", "lda", ["RS", "SMRI"], replicates=1, steps=[0, 2], pool_size=6,
    ...                      population_size=200, execution=Execution(progress=False))
    >>> table.groupby("step").size().to_dict()  # 2 strategies x (6, then 4) candidates
    {0: 12, 2: 8}
    >>> table.loc[table.step == 2, "candidate"].unique().tolist()  # RS labelled pool points 1 and 4 first
    [0, 2, 3, 5]
    >>> bool((table.t_e == table.loss - table.true_q_c).all())
    True
    >>> table.groupby("strategy", sort=False).t_e_estimate.count().to_dict()  # only SMRI estimates T_e
    {'RS': 0, 'SMRI': 10}
    """
    return execute_states(plan_states(
        problem, classifier, strategies, replicates, steps, pool_size, trajectory=trajectory,
        population_size=population_size, seed=seed, truth=truth, out=out, execution=execution, timings=timings))


class StatesPlan(NamedTuple):
    """A :func:`score_states` call whose arguments passed every check; nothing computed or written yet.

    Made by :func:`plan_states`, run by :func:`execute_states`.

    Parameters
    ----------
    states : object
        The checked settings with the objects they stand for.
    out : Path or None
        The checked output folder, or None.
    replicates : int
        The number of replicates.
    steps : list of int
        The scored steps, sorted.
    execution : Execution
        Where and how the states are scored.
    timings : bool, default False
        Whether the cost of each strategy in each state computed is written to ``out/timings.csv``.

    See Also
    --------
    mri_theory.runners.plan_states : Makes it.
    mri_theory.runners.execute_states : Runs it.

    Examples
    --------
    >>> from mri_theory.runners import Execution, StatesPlan, execute_states, plan_states
    >>> plan = plan_states("four-gaussian", "lda", ["RS", "SMRI"], replicates=1, steps=[2, 0], pool_size=6,
    ...                    population_size=200, execution=Execution(progress=False))
    >>> isinstance(plan, StatesPlan), plan._fields
    (True, ('states', 'out', 'replicates', 'steps', 'execution', 'timings'))
    >>> plan.out, plan.replicates, plan.steps, plan.timings  # the steps sorted
    (None, 1, [0, 2], False)
    >>> plan.strategies
    {'RS': RandomSelection(), 'SMRI': SimpleMRI(method='auto', theta2=None)}
    >>> execute_states(plan).groupby("step").size().to_dict()  # 2 strategies x (6, then 4) candidates
    {0: 12, 2: 8}
    """

    states: _States
    out: Path | None
    replicates: int
    steps: list[int]
    execution: Execution
    timings: bool = False

    @property
    def strategies(self) -> dict[str, Strategy]:
        """The scoring strategies by label, in the table's order."""
        return dict(self.states.strategies)


def plan_states(
    problem: str | Problem,
    classifier: str | Classifier,
    strategies: Sequence[str | Strategy] | str | Strategy,
    replicates: int = 10,
    steps: Sequence[int] = (2, 10, 30),
    pool_size: int | str = 100,
    *,
    trajectory: str | Strategy = "RS",
    population_size: int = 10_000,
    seed: int = 0,
    truth: str = "auto",
    out: str | os.PathLike | None = None,
    execution: Execution | None = None,
    timings: bool = False,
) -> StatesPlan:
    """Every check of a :func:`score_states` call, and nothing else: the plan :func:`execute_states` runs.

    ``score_states(...)`` is ``execute_states(plan_states(...))``; planning
    several calls first (as ``mri-theory diagnose`` does for its
    classifiers) refuses a bad one before any work.

    Parameters
    ----------
    problem, classifier, strategies, replicates, steps, pool_size, trajectory, population_size, seed, truth, out
        As in :func:`score_states`.
    execution, timings
        As in :func:`score_states`.

    Returns
    -------
    StatesPlan
        The checked call.

    Raises
    ------
    ValueError, TypeError, ImportError
        As :func:`score_states`, for its arguments and ``out``.  Reads only,
        writes nothing (``out`` is not created).

    See Also
    --------
    mri_theory.runners.execute_states : Runs the plan.
    mri_theory.runners.score_states : Plans and runs in one call.

    Examples
    --------
    A plan checks every argument and writes nothing; its folder is created when it is executed:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from mri_theory.runners import Execution, execute_states, plan_states, read_states
    >>> settings = dict(replicates=1, steps=[0, 2], pool_size=6, population_size=200,
    ...                 execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> out = Path(tmp.name) / "states"
    >>> plan = plan_states("four-gaussian", "lda", ["RS", "SMRI"], **settings, out=out)
    >>> plan.out == out, out.exists()
    (True, False)
    >>> table = execute_states(plan)
    >>> table.shape, read_states(out).equals(table)
    ((20, 14), True)

    A bad call is refused before any work, naming the argument:

    >>> plan_states("four-gaussian", "lda", ["RS", "SMRI"], **{**settings, "steps": [0, 5]})
    Traceback (most recent call last):
    ...
    ValueError: steps must be <= pool_size - 2 = 4 (at least two candidates left), got 5
    >>> tmp.cleanup()
    """
    problem_item = _resolve.resolve(problem, "problem", "problem")
    classifier_item = _resolve.resolve(classifier, "classifier", "classifier")
    if not problem_item[1].has_truth:
        raise ValueError(f"problem: {problem_item[0]!r} has no truth (has_truth is False: real data); score_states "
                         "compares the strategies with the true Q^c, so it needs a problem with the truth")
    curve = _curves.curve_config(problem_item, classifier_item, pool_size, None, population_size, "error", None,
                                 False, seed, truth)
    objects = _resolve.strategy_objects(strategies, "error")
    replicates = limits.size(replicates, "replicates", limits.MAX_REPLICATES)
    steps = _check_steps(steps, curve.pool_size)
    trajectory_label, trajectory_obj = _resolve.resolve(trajectory, "trajectory", "strategy")
    trajectory_obj = _resolve.for_loss(trajectory_obj, "error")
    execution = backends.check_execution(execution)
    timings = check.flag(timings, "timings")
    if timings and out is None:
        raise ValueError("timings: True needs out (the timings are written to out/timings.csv)")
    cfg = _StatesConfig(curve.problem, curve.classifier, trajectory_label, tuple(objects), curve.pool_size,
                        curve.population_size, curve.seed, curve.problem_spec, curve.classifier_spec,
                        _resolve.spec(trajectory_obj, "trajectory"), tuple(map(repr, objects.values())),
                        curve.truth, DOUBLINGS if curve.truth == "sampled" else None, curve.level)
    states = _States(cfg, problem_item[1], classifier_item[1], trajectory_obj, objects)
    out_path = _check_storage(out, cfg)
    return StatesPlan(states, out_path, replicates, steps, execution, timings)


def execute_states(plan: StatesPlan) -> pd.DataFrame:
    """Run a checked :func:`score_states` call (:func:`plan_states`).

    The verified parts in the plan's ``out`` are reused, the rest computed
    and written as they arrive (with the plan's ``timings``, their cost in
    ``timings.csv``), holding the folder's lock, under which the stored
    settings are checked again before they are written.

    Parameters
    ----------
    plan : StatesPlan
        From :func:`plan_states`.

    Returns
    -------
    pandas.DataFrame
        The table of :func:`score_states`.

    Raises
    ------
    TypeError
        ``plan`` is not a :class:`StatesPlan`.
    ValueError
        Naming ``out`` when another process writes it, or it was filled with
        other settings after the plan was made.
    OSError
        When a file cannot be written, naming the file.

    See Also
    --------
    mri_theory.runners.plan_states : Makes the plan, checking every argument.

    Examples
    --------
    >>> from mri_theory.runners import Execution, execute_states, plan_states, score_states
    >>> settings = dict(replicates=1, steps=[0, 2], pool_size=6, population_size=200,
    ...                 execution=Execution(progress=False))
    >>> plan = plan_states("four-gaussian", "lda", ["RS", "SMRI"], **settings)  # checked; nothing computed
    >>> plan.replicates, plan.steps, list(plan.strategies)
    (1, [0, 2], ['RS', 'SMRI'])
    >>> table = execute_states(plan)
    >>> table.shape
    (20, 14)
    >>> table.equals(score_states("four-gaussian", "lda", ["RS", "SMRI"], **settings))
    True
    """
    if not isinstance(plan, StatesPlan):
        raise TypeError(f"plan must be a StatesPlan (from plan_states), got {type(plan).__name__}")
    states, out_path, cfg = plan.states, plan.out, plan.states.config
    keys = [(r, t) for r in range(plan.replicates) for t in plan.steps]
    frames: dict[tuple[int, int], pd.DataFrame] = {}
    with contextlib.ExitStack() as held:
        if out_path is not None:
            held.enter_context(_store.locked(out_path, "out", owner="score_states"))
            _check_storage(out_path, cfg)  # again: another run may have written the folder in between
            (out_path / _PARTS_DIR).mkdir(exist_ok=True)
            _store.write_atomic(json.dumps({"format": _FORMAT, "settings": cfg.settings(),
                                              "grid": {"replicates": plan.replicates, "steps": plan.steps}},
                                             indent=2, sort_keys=True).encode(), out_path / _SETTINGS_FILE)
            frames = _store.verified_files(((key, _part_path(out_path, *key)) for key in keys),
                                             lambda path, key: _read_state_part(path, states, *key), stacklevel=4)
        todo = [(states, r, t) for r, t in keys if (r, t) not in frames]
        results = backends.results(_computed_state, todo, plan.execution)
        settings_sha256 = _store.canonical_sha256(cfg.settings())
        cost = {} if out_path is None or not plan.timings else _store.stored_timings(
            out_path / _store.TIMINGS_FILE, STATE_TIMING_COLUMNS, _TIMING_INTEGERS, stacklevel=4)

        def write_cost() -> None:
            assert out_path is not None
            _store.write_atomic(_store.timings_bytes(cost, STATE_TIMING_COLUMNS), out_path / _store.TIMINGS_FILE)

        def write(key: tuple[int, int], scored: _Scored) -> None:  # here, in this process, as each result arrives
            assert out_path is not None  # gather is given write only with out
            _store.write_keyed_part(scored.frame, _part_path(out_path, *key), {"replicate": key[0], "step": key[1]},
                                    settings_sha256)
            if plan.timings:
                for name, seconds in scored.cost.items():
                    cost[(cfg.problem, cfg.classifier, cfg.trajectory, key[0], key[1], name)] = seconds
                write_cost()

        gathered: dict[tuple[int, int], pd.DataFrame | _Scored] = dict(frames)
        _store.gather(results, gathered, len(keys), "states", "state", plan.execution.progress,
                      None if out_path is None else write)
        table = pd.concat([value.frame if isinstance(value, _Scored) else value
                           for value in (gathered[key] for key in keys)], ignore_index=True)
        if out_path is not None:
            if plan.timings:  # also when every state was reused (an unreadable file is replaced)
                write_cost()
            _store.write_tables(out_path, {_RESULTS_FILE: _store.csv_bytes(table)}, _SETTINGS_FILE)
    return table


def read_states(path: str | os.PathLike) -> pd.DataFrame:
    """The table written by :func:`score_states` into ``out``, verified against its checksum.

    Parameters
    ----------
    path : path
        The ``out`` folder of :func:`score_states` or its ``states.csv``.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`STATE_COLUMNS`, as :func:`score_states` returned it.

    Raises
    ------
    TypeError
        Naming ``path`` unless it is a str or path-like.
    ValueError
        Naming ``path`` when there is no such table, when it does not match
        the checksum recorded beside it in ``checksums.json`` (edited, cut or
        replaced, or no checksum: rerunning the same call rebuilds it from the
        verified parts), when another process is writing the folder (its pid
        named), or when it is not a CSV with the columns :data:`STATE_COLUMNS`.

    See Also
    --------
    mri_theory.runners.score_states : Writes the table.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from mri_theory.runners import Execution, read_states, score_states
    >>> settings = dict(replicates=1, steps=[0, 2], pool_size=6, population_size=200,
    ...                 execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> table = score_states("four-gaussian", "lda", ["RS", "SMRI"], **settings, out=tmp.name)
    >>> read_states(tmp.name).equals(table), read_states(Path(tmp.name) / "states.csv").shape
    (True, (20, 14))
    >>> tmp.cleanup()
    """
    if not isinstance(path, (str, os.PathLike)) or not isinstance(os.fspath(path), str):
        raise TypeError(f"path must be a file or folder path (str or os.PathLike), got {type(path).__name__}")
    path = Path(path)
    if path.is_dir():
        path = path / _RESULTS_FILE
    if not path.is_file():
        raise ValueError(f"path: no states table at {path}")
    return _store.verified_csv(path, "path", STATE_COLUMNS, "a table of score_states")


def read_state_timings(path: str | os.PathLike) -> pd.DataFrame:
    """What each strategy's scores cost in each state: ``timings.csv`` of a :func:`score_states` folder.

    Written with ``timings=True`` (module docstring): one row per state and
    strategy that a run of the folder computed, the CPU seconds of the thread
    that ran the strategy's :func:`~mri_theory.strategies.base.checked_scores`
    call (``time.thread_time``; every task runs with one BLAS thread) and its
    wall seconds.  A state reused from an earlier run keeps that run's timing;
    a state computed without ``timings`` has no row.  Timings are
    measurements: they differ from run to run and are not in
    ``checksums.json``.

    Parameters
    ----------
    path : path
        The ``out`` folder of :func:`score_states`.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`STATE_TIMING_COLUMNS`.

    Raises
    ------
    TypeError
        Naming ``path`` unless it is a str or path-like.
    ValueError
        Naming ``path`` when the folder holds no ``timings.csv`` or the file
        is not a table of timings (its columns, integer ``replicate`` and
        ``step``, finite seconds ``>= 0``, one row per state and strategy).

    See Also
    --------
    mri_theory.runners.score_states : Writes the timings with ``timings=True``.

    Examples
    --------
    >>> import tempfile
    >>> from mri_theory.runners import STATE_TIMING_COLUMNS, Execution, read_state_timings, score_states
    >>> settings = dict(replicates=1, steps=[0, 2], pool_size=6, population_size=200,
    ...                 execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> _ = score_states("four-gaussian", "lda", ["RS", "SMRI"], **settings, out=tmp.name, timings=True)
    >>> timings = read_state_timings(tmp.name)
    >>> list(timings.columns) == STATE_TIMING_COLUMNS
    True
    >>> timings.step.tolist(), timings.strategy.tolist()  # one row per state and strategy
    ([0, 0, 2, 2], ['RS', 'SMRI', 'RS', 'SMRI'])
    >>> bool((timings[["cpu_s", "wall_s"]] >= 0).all().all())
    True
    >>> tmp.cleanup()
    """
    return _store.read_folder_timings(path, STATE_TIMING_COLUMNS, _TIMING_INTEGERS)
