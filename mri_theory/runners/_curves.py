"""One (strategy, replicate) learning curve of the sandbox (§5.2) and its verified part file.

Shared by the three runners: :func:`run_pair` is the iterated AL loop of one strategy in one replicate
(seed scheme in :mod:`mri_theory.runners.sandbox`), :class:`Run` what a task carries to a worker.
"""

from __future__ import annotations

import copy
import json
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mri_theory._utils import limits
from mri_theory._utils import validation as check
from mri_theory._utils.ties import near_maximum
from mri_theory.classifiers import Classifier
from mri_theory.engine.losses import LOG_LOSS_FLOOR
from mri_theory.engine.population import Population
from mri_theory.engine.targets import (
    DOUBLINGS,
    LEVEL,
    RESOLUTION_SCRAMBLES,
    DecisiveQc,
    decisive_q_c,
    resolve_truth,
    true_q_c_and_loss,
)
from mri_theory.problems import Problem
from mri_theory.runners import _store
from mri_theory.runners._resolve import spec
from mri_theory.runners._store import (
    CURVES_SETTINGS_FILE,
    PARTS_DIR,
    DamagedPart,
    canonical_sha256,
    read_keyed_part,
    read_settings_json,
    verified_files,
    write_keyed_part,
)
from mri_theory.strategies import Context, MRIBest, Strategy, select

__all__ = ["CURVE_DOUBLINGS", "POOL_RULES", "RECORD_COLUMNS", "RESULT_COLUMNS", "SIMULATED_POOL_SIZE", "CurveConfig",
           "Run", "decided_truth", "exact_gap", "pool_size_of", "race_level", "result_columns", "run_pair"]

#: Columns of the tidy results.
RESULT_COLUMNS = ["problem", "classifier", "strategy", "replicate", "n_labelled", "loss", "loss_se",
                  "chosen", "q_c_chosen", "q_c_best", "resolved"]
#: The columns a run with ``record_q_c`` adds after :data:`RESULT_COLUMNS`: at each step, how decided the state's
#: best candidate is.  ``q_c_gap``: its :math:`Q^c` over the runner-up's; ``q_c_gap_se``: that gap's standard
#: error; ``q_c_shortfall_bound``: how far the best may fall short of the truly best candidate at the truth's
#: stated confidence (with a sampled truth, :class:`~mri_theory.engine.targets.DecisiveQc`'s ``gap``, ``gap_se``
#: and ``shortfall_bound`` of the state's race; with the exact truth the exact gap, 0 and 0).  NaN on the last row.
RECORD_COLUMNS = ["q_c_gap", "q_c_gap_se", "q_c_shortfall_bound"]


def result_columns(record_q_c: bool) -> list[str]:
    """The columns of a run's table: :data:`RESULT_COLUMNS`, and :data:`RECORD_COLUMNS` with ``record_q_c``."""
    return RESULT_COLUMNS + RECORD_COLUMNS if record_q_c else list(RESULT_COLUMNS)

#: The second spawn key of the streams of the decisive sampled truth (:func:`decided_truth`: the populations of
#: the oracles' race; the sandbox's data, strategies and sub-samples use 0, 1 and 2; the diagnostics' strategies 3).
RESOLUTION_KEY = 4

#: The most doublings of the decisive truth's race at a step of a learning curve (:func:`run_pair`): a curve races
#: at every step (250 steps of 100 candidates a curve in the study), the late ones over Q^c spreads of 1e-4, where
#: each doubling costs more than the step did before; the scored states race to the engine's
#: :data:`~mri_theory.engine.targets.DOUBLINGS` (``benchmarks/bench_decisive_truth.py``, "Curves").
CURVE_DOUBLINGS = 3

#: The pool of a simulated problem under ``pool_size="auto"``: the paper preset's study's (the paper states a rule,
#: not a size: the pool is "chosen such that when all of the pool has been labelled, the final classifier loss is
#: close to its asymptotic loss", §5.2, line 1044).
SIMULATED_POOL_SIZE = 250
#: The words ``pool_size`` takes besides a size (:func:`pool_size_of`).
POOL_RULES = ("all", "auto")

#: Pool points a run's classifier predicts, besides its initial labelled set, before any work
#: (:func:`check_probabilities`), and the tolerance of its rows' range and sums.
PROBE_POINTS = 64
PROBE_TOLERANCE = 1e-9

@dataclass(frozen=True)
class CurveConfig:
    """Everything that determines the results of a study (written to ``config.json``).

    ``problem`` and ``classifier`` are the labels (the registered name given,
    or the object's ``name``); ``problem_spec`` and ``classifier_spec`` the
    ``repr`` of the objects they stand for, so that a folder of one problem
    or classifier refuses another of the same name.  ``truth`` is how the
    truth is evaluated, ``"exact"`` or ``"sampled"``
    (:func:`~mri_theory.engine.targets.resolve_truth` of the run's ``truth``
    argument), and ``doublings`` the cap of the decisive sampled truth's race
    (``CURVE_DOUBLINGS`` with ``"sampled"``, ``None`` with ``"exact"``):
    recorded, so that a resume never mixes two truths, nor a folder of the
    sampled truth before the race (which recorded no ``doublings``) with the
    race's.  ``level`` is the race's family-wise error level
    (:data:`~mri_theory.engine.targets.LEVEL` where a race decides: the sampled
    truth of a problem with a mixture; ``None`` otherwise), recorded only when
    set, so that a folder raced by the earlier per-comparison rule (which
    recorded none) is refused rather than resumed by another rule, and the
    folders of the exact truth and of real data keep their hashes.

    Parameters
    ----------
    problem, classifier : str
        The labels of the problem and the classifier.
    pool_size : int
        The pool's size.
    budget : int
        The labels acquired per curve.
    population_size : int
        The size of the sampled population of the loss.
    loss : {"error", "log"}
        The loss of the curves.
    subsample : int or None
        The candidates a costly strategy scores per step (None: the whole pool).
    record_q_c : bool
        Whether the true :math:`Q^c` of each choice is recorded.
    seed : int
        The seed of the replicates.
    problem_spec, classifier_spec : str
        The ``repr`` of the problem and the classifier.
    truth : {"exact", "sampled"}, default "sampled"
        How the truth is evaluated.
    doublings : int or None, default None
        The cap of the decisive sampled truth's race (None with ``"exact"``).
    level : float or None, default None
        The family-wise error level of that race over its contenders and looks
        (:func:`~mri_theory.engine.targets.decisive_q_c`, "What is controlled"); None where no race decides.

    See Also
    --------
    mri_theory.runners.run_curves : Makes one from its arguments and writes it to ``out/config.json``.

    Examples
    --------
    :func:`~mri_theory.runners.run_curves` resolves its arguments into a configuration (the whole pool as the
    budget, the exact truth where the pairing has it) and records it in ``config.json``; read back, it is
    a :class:`CurveConfig` again:

    >>> import json
    >>> import tempfile
    >>> from pathlib import Path
    >>> from mri_theory.runners import CurveConfig, Execution, run_curves
    >>> tmp = tempfile.TemporaryDirectory()
    >>> _ = run_curves("four-gaussian", "lda", "RS", pool_size=4, replicates=1, population_size=100, out=tmp.name,
    ...                execution=Execution(progress=False))
    >>> config = CurveConfig(**json.loads((Path(tmp.name) / "config.json").read_text()))
    >>> config.problem, config.classifier, config.pool_size, config.budget, config.truth, config.doublings
    ('four-gaussian', 'lda', 4, 4, 'exact', None)
    >>> config.classifier_spec  # the repr of the classifier the label stood for
    'LDA(reg=0.001)'

    Another configuration in the same folder is refused:

    >>> run_curves("four-gaussian", "lda", "RS", pool_size=5, replicates=1, population_size=100, out=tmp.name,
    ...            execution=Execution(progress=False))
    Traceback (most recent call last):
    ...
    ValueError: out: ... holds results of a different study (...config.json); use another folder
    >>> tmp.cleanup()
    """

    problem: str
    classifier: str
    pool_size: int
    budget: int
    population_size: int
    loss: str
    subsample: int | None
    record_q_c: bool
    seed: int
    problem_spec: str
    classifier_spec: str
    truth: str = "sampled"
    doublings: int | None = None
    level: float | None = None

@dataclass(frozen=True)
class Run:
    """A :class:`CurveConfig` with the objects its labels stand for: what a task carries to the workers.

    ``strategies`` maps each strategy label to its object.  The workers get
    the objects pickled and never consult a registry (which lives in the
    calling process).
    """

    config: CurveConfig
    problem: Problem
    classifier: Classifier
    strategies: Mapping[str, Strategy]

    def strategy_spec(self, label: str) -> str:
        """The ``repr`` of the strategy labelled ``label`` (its parameters), recorded in its parts."""
        return repr(self.strategies[label])

def replicate_data(problem: Problem, cfg: CurveConfig, replicate: int) -> tuple:
    """``problem.draw_replicate`` from replicate ``replicate``'s data stream.

    Returns ``(X0, y0, pool_X, pool_y, population)``; with ``cfg.truth == "exact"`` the population is
    :meth:`Population.exact(problem) <mri_theory.engine.population.Population.exact>` (the sampled one is
    drawn all the same, so that the pool and the initial set do not depend on the truth's evaluation).
    """
    rng = np.random.default_rng(np.random.SeedSequence(cfg.seed, spawn_key=(replicate, 0)))
    X0, y0, pool_X, pool_y, population = problem.draw_replicate(cfg.pool_size, cfg.population_size, rng)
    if cfg.truth == "exact":
        population = Population.exact(problem)
    return X0, y0, pool_X, pool_y, population

def run_pair(run: Run, label: str, replicate: int, data: tuple | None = None,
              losses: bool = True) -> pd.DataFrame:
    """The learning curve of the strategy labelled ``label`` in one replicate.

    ``data`` is the replicate's :func:`replicate_data`, if already drawn.
    ``losses=False`` replays the choices only: the ``loss`` column is NaN
    (the choices never depend on it), unless ``record_q_c`` computes it anyway (exact truth).

    With a sampled truth (``cfg.truth == "sampled"``) the oracles choose by the state's decisive truth
    (:func:`decided_truth`; MRI-worst races for the smallest :math:`Q^c`), its tied candidates broken by one
    draw of the strategy's generator (as :func:`~mri_theory.strategies.select`), and record its ``resolved``;
    with ``record_q_c`` every strategy's ``q_c_chosen`` and ``q_c_best`` are the state's decisive truth (its
    best decided), so that they mean the same for every strategy.  With exact truth the oracles' scores are
    the exact :math:`Q^c` and their choices are always resolved.
    """
    cfg, problem = run.config, run.problem
    X, y, pool_X, pool_y, population = replicate_data(problem, cfg, replicate) if data is None else data
    base = copy.deepcopy(run.classifier)  # fresh objects for every pair, as a worker gets them
    strategy = copy.deepcopy(run.strategies[label])
    rng = np.random.default_rng(np.random.SeedSequence(
        cfg.seed, spawn_key=(replicate, 1, zlib.crc32(label.encode()))))
    available = np.arange(cfg.pool_size)
    rows = []
    oracle = isinstance(strategy, MRIBest)
    for step in range(cfg.budget + 1):
        done = step == cfg.budget or available.size == 0
        scored = available
        if not done and strategy.costly and cfg.subsample is not None and available.size > cfg.subsample:
            sub_rng = np.random.default_rng(np.random.SeedSequence(cfg.seed, spawn_key=(replicate, 2, step)))
            scored = np.sort(sub_rng.choice(available, cfg.subsample, replace=False))
        loss_se = np.nan
        truth_now = None  # the state's decisive sampled truth (its best decided), where the run needs it
        if not done and cfg.truth == "sampled" and (cfg.record_q_c or (oracle and strategy.sign > 0)):
            truth_now = decided_truth(cfg, problem, base, replicate, step, X, y, pool_X[scored])
        if not done and cfg.record_q_c and truth_now is None and not oracle:  # the engine gives the current loss too
            loss_now, q = true_q_c_and_loss(problem, base, X, y, pool_X[scored], population, cfg.loss)
            if losses:
                loss_se = population.loss_and_standard_error(base.clone().fit(X, y, problem.n_classes), cfg.loss)[1]
        elif losses:
            loss_now, loss_se = population.loss_and_standard_error(base.clone().fit(X, y, problem.n_classes),
                                                                   cfg.loss)
        else:
            loss_now = np.nan
        row = {"n_labelled": len(y), "loss": loss_now, "loss_se": loss_se, "chosen": -1, "q_c_chosen": np.nan,
               "q_c_best": np.nan, "resolved": np.nan}
        if cfg.record_q_c:
            row.update(dict.fromkeys(RECORD_COLUMNS, np.nan))
        rows.append(row)
        if done:
            break
        seen = strategy.needs_truth  # practical strategies never see the truth, nor the candidates' labels
        ctx = Context(X, y, pool_X[scored], pool_X[available], base, problem.n_classes, rng,
                      problem if seen else None, population if seen else None,
                      pool_y[scored] if strategy.peeks else None)
        if oracle and cfg.truth == "sampled":  # the decisive truth chooses; its ties are broken as select's
            decided = (truth_now if strategy.sign > 0 and truth_now is not None
                       else decided_truth(cfg, problem, base, replicate, step, X, y, pool_X[scored], strategy.sign > 0))
            i, scores = int(decided.tied[rng.integers(decided.tied.size)]), strategy.sign * decided.q_c
            resolved = decided.resolved
        else:
            i, scores = select(strategy, ctx)
            resolved = True  # exact truth: its Q^c has no noise (a tie is a tie between equally good choices)
        if oracle and losses:
            row["resolved"] = float(resolved)
        if cfg.record_q_c:
            if truth_now is not None:  # every strategy's Q^c is the state's decisive truth
                q = truth_now.q_c
            elif oracle:
                q = strategy.sign * scores
            row.update(q_c_chosen=float(q[i]), q_c_best=float(q.max()))
            if truth_now is not None:  # the race's statistics of its best
                row.update(q_c_gap=float(truth_now.gap), q_c_gap_se=float(truth_now.gap_se),
                           q_c_shortfall_bound=float(truth_now.shortfall_bound))
            else:  # the exact truth: the best's exact margin, no error, no shortfall
                row.update(q_c_gap=exact_gap(q), q_c_gap_se=0.0, q_c_shortfall_bound=0.0)
        pick = scored[i]
        row["chosen"] = int(pick)
        X, y = np.vstack([X, pool_X[pick]]), np.append(y, pool_y[pick])
        available = available[available != pick]
    out = pd.DataFrame(rows)
    out.insert(0, "replicate", replicate)
    out.insert(0, "strategy", label)
    out.insert(0, "classifier", cfg.classifier)
    out.insert(0, "problem", cfg.problem)
    return out[result_columns(cfg.record_q_c)]


def exact_gap(q: np.ndarray) -> float:
    """The largest of the exact values ``q`` over the largest of the others (0 when the best is tied, within
    ``TIE_TOLERANCE``, or alone): the exact margin of the best candidate."""
    if q.size < 2:
        return np.nan
    best = near_maximum(q)
    return 0.0 if best.sum() > 1 else float(q.max() - q[~best].max())

def decided_truth(cfg: CurveConfig, problem: Problem, classifier: Classifier, replicate: int, step: int,
                  X: np.ndarray, y: np.ndarray, candidates: np.ndarray, largest: bool = True) -> DecisiveQc:
    """The decisive sampled truth of a state: :func:`~mri_theory.engine.targets.decisive_q_c` of ``candidates``.

    Round 0 has about ``population_size`` points per candidate (``size=population_size``, at least one per
    scramble) in :data:`~mri_theory.engine.targets.RESOLUTION_SCRAMBLES` scrambles, the other settings the engine's
    (:data:`~mri_theory.engine.targets.INDIFFERENCE`), the family-wise level ``cfg.level``
    (:data:`~mri_theory.engine.targets.LEVEL` over the contenders and looks; a configuration without one, which
    no runner makes any more, takes the per-comparison rule, :data:`~mri_theory.engine.targets.RESOLUTION_Z`),
    the cap ``cfg.doublings`` (:data:`~mri_theory.engine.targets.DOUBLINGS` for the scored states,
    :data:`CURVE_DOUBLINGS` at a step of a curve); the race's populations come from
    ``SeedSequence(seed, spawn_key=(replicate, RESOLUTION_KEY, step))``.  ``largest=False`` decides the smallest
    :math:`Q^c` (MRI-worst).  Used where the truth is sampled (``cfg.truth == "sampled"``) by the oracles of
    :func:`run_pair` and by the states of :func:`mri_theory.runners.score_states`.

    Every race's gap, its error and the shortfall bound at its threshold are in the returned
    :class:`~mri_theory.engine.targets.DecisiveQc`.  No committed result is decided by a race: every paper
    classifier's truth is exact on the abstract problems.
    """
    return decisive_q_c(problem, classifier, X, y, candidates,
                        seed=np.random.SeedSequence(cfg.seed, spawn_key=(replicate, RESOLUTION_KEY, step)),
                        size=max(cfg.population_size, RESOLUTION_SCRAMBLES), loss=cfg.loss, largest=largest,
                        doublings=DOUBLINGS if cfg.doublings is None else cfg.doublings, level=cfg.level)


def stored_settings(record: dict[str, Any]) -> dict[str, Any]:
    """Settings as a folder stores them: ``record`` without ``level`` where it is None (no race decides), so
    that the folders written before the race's level was recorded keep their hashes (:class:`CurveConfig`)."""
    return {key: value for key, value in record.items() if not (key == "level" and value is None)}

def config_record(cfg: CurveConfig) -> dict[str, Any]:
    """The configuration as stored in ``config.json`` (:func:`stored_settings` of its fields)."""
    return stored_settings(asdict(cfg))

def config_text(cfg: CurveConfig) -> str:
    return json.dumps(config_record(cfg), indent=2, sort_keys=True)

def config_sha256(cfg: CurveConfig) -> str:
    """SHA-256 of the canonical configuration JSON (sorted keys, no spaces, UTF-8)."""
    return canonical_sha256(config_record(cfg))

def part_path(out: Path, strategy: str, replicate: int) -> Path:
    return out / PARTS_DIR / f"{strategy}__{replicate:05d}.csv"

def part_key(run: Run, strategy: str, replicate: int) -> dict[str, Any]:
    """The header key of a pair's part: its strategy's label, the replicate and the strategy's spec, and
    ``"peeks": true`` for a strategy that saw the candidates' drawn labels (written only then, so that the parts
    of every other strategy keep their keys)."""
    key = {"strategy": strategy, "replicate": int(replicate), "strategy_spec": run.strategy_spec(strategy)}
    return {**key, "peeks": True} if run.strategies[strategy].peeks else key

def write_part(frame: pd.DataFrame, out: Path, run: Run, strategy: str, replicate: int) -> None:
    """One pair's table as a verifiable part (:mod:`mri_theory.runners.sandbox`, "Output folder")."""
    write_keyed_part(frame, part_path(out, strategy, replicate), part_key(run, strategy, replicate),
                      config_sha256(run.config))

def read_part(path: Path, run: Run, strategy: str, replicate: int) -> pd.DataFrame:
    """A verified part's table; raises :class:`DamagedPart` with the reason when any check fails."""
    cfg = run.config
    rows = cfg.budget + 1
    frame = read_keyed_part(path, part_key(run, strategy, replicate), config_sha256(cfg), rows, "pair")
    columns = result_columns(cfg.record_q_c)
    if list(frame.columns) != columns:
        raise DamagedPart(f"wrong columns {list(frame.columns)}, expected {columns}")
    integer = ["replicate", "n_labelled", "chosen"]
    numeric = ["loss", "loss_se", "q_c_chosen", "q_c_best", "resolved"] + columns[len(RESULT_COLUMNS):]
    if not (all(pd.api.types.is_integer_dtype(frame[c]) for c in integer)
            and all(pd.api.types.is_float_dtype(frame[c]) for c in numeric)):
        raise DamagedPart(f"wrong column types: {integer} must be integers and {numeric} numbers")
    if not ((frame.problem == cfg.problem) & (frame.classifier == cfg.classifier) & (frame.strategy == strategy)
            & (frame.replicate == replicate)).all():
        raise DamagedPart(f"rows not matching the pair: not every row names {cfg.problem}, {cfg.classifier}, "
                           f"{strategy}, replicate {replicate}")
    start = run.problem.n_classes
    if not np.array_equal(frame.n_labelled.to_numpy(), start + np.arange(rows)):
        raise DamagedPart(f"n_labelled does not run {start}, {start + 1}, ..., {start + rows - 1}")
    picks, last = frame.chosen.to_numpy()[:-1], frame.chosen.iloc[-1]
    if last != -1 or np.unique(picks).size != picks.size or np.any((picks < 0) | (picks >= cfg.pool_size)):
        raise DamagedPart("chosen is not distinct pool indices followed by -1")
    if not np.all((frame.loss.to_numpy() >= 0) & (frame.loss.to_numpy() <= largest_loss(cfg.loss))):
        raise DamagedPart(f"a loss outside [0, {largest_loss(cfg.loss):g}] (or not a number)")
    if not np.all(frame.loss_se.to_numpy() >= 0):  # NaN fails too
        raise DamagedPart("loss_se is not a number >= 0 on every row")
    oracle = isinstance(run.strategies[strategy], MRIBest)
    resolved = frame.resolved.to_numpy()
    expected = np.append(np.isin(resolved[:-1], (0.0, 1.0)), np.isnan(resolved[-1])) if oracle else np.isnan(resolved)
    if not np.all(expected):
        raise DamagedPart("resolved is not 0 or 1 at every step of an oracle (NaN on its last row), "
                          "and NaN for the other strategies")
    return frame

def largest_loss(loss: str) -> float:
    """The largest value a stored loss may take: 1 for the error rate (and least confidence), the floored
    log loss's ``-ln(LOG_LOSS_FLOOR)`` for the log loss."""
    return float(-np.log(LOG_LOSS_FLOOR)) if loss == "log" else 1.0


def check_curves_content(table: pd.DataFrame, file: Path, name: str, loss: str | None) -> pd.DataFrame:
    """A verified curves table checked for content (issue 40: a checksum re-recorded by hand must not pass a
    loss of 7, a missing step or a negative SE): integer and float columns, every loss finite in
    ``[0, largest_loss(loss)]`` (the log loss's bound when ``loss`` is unknown), every SE ``>= 0``, ``resolved``
    0, 1 or NaN, ``chosen >= -1``, and each run's ``n_labelled`` consecutive from its first step, as long as the
    other runs of its pairing. A ``ValueError`` names ``name``, the file and what is wrong."""
    def refuse(what: str) -> ValueError:
        return ValueError(f"{name}: {file} {what}: the table is not what the runner writes (its checksum was "
                          "re-recorded, or it was written by hand); run the same command again to rebuild it")

    integer = ["replicate", "n_labelled", "chosen"]
    numeric = ["loss", "loss_se", "q_c_chosen", "q_c_best", "resolved"] + [c for c in RECORD_COLUMNS if c in table]
    if not (all(pd.api.types.is_integer_dtype(table[c]) for c in integer)
            and all(pd.api.types.is_numeric_dtype(table[c]) for c in numeric)):
        raise refuse(f"has columns of the wrong type ({integer} must be integers, {numeric} numbers)")
    values, top = table["loss"].to_numpy(dtype=float), largest_loss(loss or "log")
    if not np.all((values >= 0) & (values <= top)):  # NaN fails too
        bad = values[~((values >= 0) & (values <= top))][0]
        raise refuse(f"holds a loss of {float(bad)!r}, outside [0, {top:g}]")
    if not np.all(table["loss_se"].to_numpy(dtype=float) >= 0):
        raise refuse("holds a loss_se that is not a number >= 0")
    resolved = table["resolved"].to_numpy(dtype=float)
    if not np.all(np.isnan(resolved) | np.isin(resolved, (0.0, 1.0))):
        raise refuse("holds a resolved flag other than 0, 1 or NaN")
    if (table["chosen"] < -1).any() or (table["replicate"] < 0).any():
        raise refuse("holds a negative pool index or replicate")
    lengths: dict[tuple, int] = {}
    for key, run in table.groupby(["problem", "classifier", "strategy", "replicate"], sort=False):
        steps = run["n_labelled"].to_numpy()
        if not np.array_equal(steps, steps[0] + np.arange(steps.size)):
            raise refuse(f"has a gap or a repeat in the steps of the run {key} (n_labelled {steps.tolist()})")
        if lengths.setdefault(key[:2], steps.size) != steps.size:
            raise refuse(f"has runs of different lengths in the pairing {key[:2]} (a missing step)")
    return table


def check_config(out: Path, cfg: CurveConfig) -> None:
    """Raise unless ``out/config.json`` is absent or holds ``cfg`` (reads only, writes nothing)."""
    config = out / CURVES_SETTINGS_FILE
    stored = read_settings_json(config, "out", "configuration", lambda value: isinstance(value, dict))
    if stored is not None and stored != json.loads(config_text(cfg)):
        raise ValueError(f"out: {out} holds results of a different study ({config}); use another folder")

def prepare_output(out: Path, cfg: CurveConfig) -> None:
    """Check ``out/config.json`` against ``cfg`` (or write it) and create ``out/parts``; nothing is
    created when the folder holds another study or an unreadable configuration.  Called by the holder of
    the folder's lock (:func:`mri_theory.runners.locked`) only."""
    check_config(out, cfg)
    config = out / CURVES_SETTINGS_FILE
    text = config_text(cfg)
    try:
        (out / PARTS_DIR).mkdir(parents=True, exist_ok=True)
        if not config.exists():
            _store.write_atomic(text.encode(), config)
    except OSError as exc:
        raise ValueError(f"out: cannot write to {out} ({exc})") from None

def pool_size_of(pool_size: Any, problem_label: str, problem: Problem) -> int:
    """The pool of each replicate of ``problem`` (§5.2) for ``pool_size``: a size, ``"all"`` or ``"auto"``.

    ``"all"`` is a real data set's whole pool: every row outside its test set
    and initial set (its ``max_pool_size``), so that the curve labels the
    whole data set but the test rows, as the paper's real-data study does;
    a simulated problem has no finite pool and refuses it.  ``"auto"`` is
    ``"all"`` for real data and :data:`SIMULATED_POOL_SIZE` for a simulated
    problem.  A size must be at least the initial set (``n_classes`` points),
    at most :data:`~mri_theory._utils.limits.MAX_POOL_SIZE` and, for real
    data, at most ``max_pool_size``; a ``ValueError`` or ``TypeError`` naming
    ``pool_size`` (and the problem) otherwise.
    """
    largest = getattr(problem, "max_pool_size", None)  # real data: the rows outside the test and initial sets
    if isinstance(pool_size, str):
        if pool_size not in POOL_RULES:
            raise ValueError(f"pool_size must be a size or one of {', '.join(map(repr, POOL_RULES))}, "
                             f"got {pool_size!r}")
        if largest is not None:
            pool_size = largest
        elif pool_size == "auto":
            return SIMULATED_POOL_SIZE
        else:
            raise ValueError(f"pool_size 'all' (a real data set's whole pool) does not apply to the simulated "
                             f"problem {problem_label!r}, whose pool is a sample of any size: give a size, or "
                             f"'auto' ({SIMULATED_POOL_SIZE} for a simulated problem)")
    pool_size = limits.size(pool_size, "pool_size", limits.MAX_POOL_SIZE)
    if pool_size < problem.n_classes:
        raise ValueError(f"pool_size must be at least the initial set size {problem.n_classes} for problem "
                         f"{problem_label!r}, got {pool_size}")
    if largest is not None and pool_size > largest:
        raise ValueError(f"pool_size must be at most {largest} for problem {problem_label!r} (max_pool_size: the "
                         f"rows outside its test set and initial set), got {pool_size}")
    return pool_size


def curve_config(problem: tuple[str, Problem], classifier: tuple[str, Classifier], pool_size: Any, budget: Any,
                  population_size: Any, loss: Any, subsample: Any, record_q_c: Any, seed: Any,
                  truth: Any = "auto") -> CurveConfig:
    """The validated :class:`CurveConfig` of :func:`run_curves`' arguments (``budget=None``: the whole pool;
    ``record_q_c=None``: where the problem has the truth; ``truth`` resolved to ``"exact"`` or ``"sampled"``
    by :func:`~mri_theory.engine.targets.resolve_truth`, sampled on a problem without the truth);
    ``problem`` and ``classifier`` as :func:`resolve` gives them.  The sizes are bounded
    (:mod:`mri_theory._utils.limits`), the pool is resolved by :func:`pool_size_of`."""
    (problem_label, problem_obj), (classifier_label, classifier_obj) = problem, classifier
    if loss not in ("error", "log"):
        raise ValueError(f"loss must be 'error' or 'log', got {loss!r}")
    pool_size = pool_size_of(pool_size, problem_label, problem_obj)
    budget = pool_size if budget is None else check.count(budget, "budget")
    if budget > pool_size:
        raise ValueError(f"budget ({budget}) must not exceed pool_size ({pool_size}): "
                         "the pool is smaller than requested")
    record_q_c = problem_obj.has_truth if record_q_c is None else check.flag(record_q_c, "record_q_c")
    truth = resolve_truth(truth, problem_obj, classifier_obj)  # real data has no mixture: sampled (its test set)
    return CurveConfig(problem_label, classifier_label, pool_size, budget,
                       limits.size(population_size, "population_size", limits.MAX_POPULATION_SIZE), loss,
                       None if subsample is None else check.count(subsample, "subsample"),
                       record_q_c, check.count(seed, "seed", minimum=0),
                       spec(problem_obj, "problem"), spec(classifier_obj, "classifier"), truth,
                       CURVE_DOUBLINGS if truth == "sampled" else None, race_level(truth, problem_obj))

def race_level(truth: str, problem: Problem) -> float | None:
    """The family-wise level of the decisive truth's race (:data:`~mri_theory.engine.targets.LEVEL`) where one
    decides, that is the sampled truth of a problem with a mixture; None otherwise (the exact truth, or real
    data, whose test set is the truth)."""
    return LEVEL if truth == "sampled" and getattr(problem, "has_truth", True) else None

def check_truth(run: Run) -> None:
    """Refuse what needs the truth (§5.2) on a problem without it (``has_truth`` False, e.g. real data)."""
    if run.problem.has_truth:
        return
    oracles = [label for label, strategy in run.strategies.items() if strategy.needs_truth]
    where = f"problem {run.config.problem!r} has no truth (has_truth is False: real data)"
    if oracles:
        raise ValueError(f"strategies: {', '.join(oracles)} need the truth (needs_truth), but {where}")
    if run.config.record_q_c:
        raise ValueError(f"record_q_c must be False: the true Q^c cannot be recorded, {where}")

def check_probabilities(run: Run, argument: str = "classifier") -> None:
    """Refuse, naming ``argument``, a classifier whose ``predict_proba`` gives no class probabilities.

    Before any work: a clone of the run's classifier is fitted on replicate 0's initial labelled set (the
    curves' first fit: the same draw, :func:`replicate_data`'s stream) and predicts that set and up to
    ``PROBE_POINTS`` pool points.  Its rows must have shape ``(m, k)`` (``k`` the problem's classes) and finite
    entries in ``[0, 1]`` summing to 1, both to ``PROBE_TOLERANCE``: what
    :func:`mri_theory.testing.check_classifier` requires (which checks far more, e.g. the fast path), at the cost
    of one fit on ``k`` points.  The engine reads a row as the classifier's class probabilities; a row summing
    to 1.8 would give every loss silently wrong.
    """
    cfg, problem = run.config, run.problem
    rng = np.random.default_rng(np.random.SeedSequence(cfg.seed, spawn_key=(0, 0)))
    X0, y0, pool_X, _, _ = problem.draw_replicate(min(cfg.pool_size, PROBE_POINTS), 1, rng)
    queries, k = np.vstack([X0, pool_X]), problem.n_classes
    proba = np.asarray(run.classifier.clone().fit(X0, y0, k).predict_proba(queries))
    who = (f"{argument}: {cfg.classifier!r} ({type(run.classifier).__name__}) fitted on the initial labelled set "
           f"of problem {cfg.problem!r}")
    hint = "; mri_theory.testing.check_classifier tells which rule of the classifier contract it breaks"
    if proba.shape != (queries.shape[0], k):
        raise ValueError(f"{who} gave predict_proba of shape {proba.shape} for {queries.shape[0]} points, not "
                         f"({queries.shape[0]}, {k}): one column per class of the problem{hint}")
    if proba.dtype.kind not in "fiu" or not np.all(np.isfinite(proba)):
        raise ValueError(f"{who} gave predict_proba entries that are not finite numbers{hint}")
    sums = proba.sum(axis=1)
    worst = sums[np.argmax(np.abs(sums - 1))]
    if abs(worst - 1) > PROBE_TOLERANCE:
        raise ValueError(f"{who} gave predict_proba rows summing to {worst:.6g}, not 1 (to {PROBE_TOLERANCE:g}): "
                         f"class probabilities{hint}")
    if proba.min() < -PROBE_TOLERANCE or proba.max() > 1 + PROBE_TOLERANCE:
        raise ValueError(f"{who} gave predict_proba entries in [{proba.min():.6g}, {proba.max():.6g}], outside "
                         f"[0, 1]: class probabilities{hint}")

def verified_parts(out: Path, run: Run, pairs: Iterable[tuple[str, int]],
                    stacklevel: int) -> dict[tuple[str, int], pd.DataFrame]:
    """The tables of the ``pairs`` whose part in ``out/parts`` passes verification (:func:`verified_files`)."""
    return verified_files(((pair, part_path(out, *pair)) for pair in pairs),
                           lambda path, pair: read_part(path, run, *pair), stacklevel + 1)

def computed_pair(run: Run, strategy: str, replicate: int) -> tuple[tuple[str, int], pd.DataFrame]:
    """What a (possibly parallel) job does: compute one pair and return it with its key; never write."""
    return (strategy, replicate), run_pair(run, strategy, replicate)
