r"""The iterated-AL sandbox of §5.2: paired Monte Carlo replicates of learning curves.

In each replicate every strategy starts from the same initial labelled set
(one point per class), the same pool and the same evaluation population
(exact posteriors, QMC), and labels pool points one at a time until the pool
is exhausted or the budget is reached.  After each label the learning curve
records the classifier's *true* loss on the population; at each step the
chosen candidate's true :math:`Q^c` and the best true :math:`Q^c` among the
candidates it was chosen from are recorded too (for regret).

Seeds: replicate ``r`` draws its data from ``SeedSequence(seed, spawn_key=(r, 0))``;
strategy ``s`` in replicate ``r`` draws from ``SeedSequence(seed, spawn_key=(r, 1, crc32(s)))``,
and the sub-sample of step ``t`` from ``SeedSequence(seed, spawn_key=(r, 2, t))``
(the same for every strategy).  So a (strategy, replicate) pair gives the same
result whichever other pairs run, in one process or many (``n_jobs``), and an
interrupted run resumes pair by pair.
"""

from __future__ import annotations

import json
import os
import tempfile
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from mri_theory import _validation as check
from mri_theory.classifiers import get_classifier
from mri_theory.population import Population
from mri_theory.problems import get_problem
from mri_theory.strategies import Context, MRIBest, get_strategy, list_strategies, select
from mri_theory.targets import true_q_c_and_loss

__all__ = ["CurveConfig", "RESULT_COLUMNS", "run_curves", "read_curves", "initial_labelled_set"]

#: Columns of the tidy results.
RESULT_COLUMNS = ["problem", "classifier", "strategy", "replicate", "n_labelled", "loss",
                  "chosen", "q_c_chosen", "q_c_best"]

_RESULTS_FILE = "curves.csv"
_CONFIG_FILE = "config.json"


@dataclass(frozen=True)
class CurveConfig:
    """Everything that determines the results of a study (written to ``config.json``)."""

    problem: str
    classifier: str
    pool_size: int
    budget: int
    population_size: int
    loss: str
    subsample: int | None
    record_q_c: bool
    seed: int


def initial_labelled_set(problem: Any, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One labelled point per class: the first of each class in draws from the problem, in class order."""
    X, y = problem.sample(64 * problem.n_classes, rng)
    while np.unique(y).size < problem.n_classes:
        X2, y2 = problem.sample(64 * problem.n_classes, rng)
        X, y = np.vstack([X, X2]), np.concatenate([y, y2])
    first = np.array([np.flatnonzero(y == j)[0] for j in range(problem.n_classes)])
    return X[first], y[first]


def _replicate_data(cfg: CurveConfig, replicate: int):
    problem = get_problem(cfg.problem)
    rng = np.random.default_rng(np.random.SeedSequence(cfg.seed, spawn_key=(replicate, 0)))
    X0, y0 = initial_labelled_set(problem, rng)
    pool_X, pool_y = problem.sample(cfg.pool_size, rng)
    population = Population.from_problem(problem, cfg.population_size, rng, method="qmc")
    return problem, X0, y0, pool_X, pool_y, population


def _run_pair(cfg: CurveConfig, strategy_name: str, replicate: int) -> pd.DataFrame:
    """One strategy's learning curve in one replicate."""
    problem, X, y, pool_X, pool_y, population = _replicate_data(cfg, replicate)
    base = get_classifier(cfg.classifier)
    strategy = get_strategy(strategy_name)
    if isinstance(strategy, MRIBest):
        strategy.loss = cfg.loss
    rng = np.random.default_rng(np.random.SeedSequence(
        cfg.seed, spawn_key=(replicate, 1, zlib.crc32(strategy_name.encode()))))
    available = np.arange(cfg.pool_size)
    rows = []
    oracle = isinstance(strategy, MRIBest)
    for step in range(cfg.budget + 1):
        done = step == cfg.budget or available.size == 0
        scored = available
        if not done and strategy.costly and cfg.subsample is not None and available.size > cfg.subsample:
            sub_rng = np.random.default_rng(np.random.SeedSequence(cfg.seed, spawn_key=(replicate, 2, step)))
            scored = np.sort(sub_rng.choice(available, cfg.subsample, replace=False))
        if not done and cfg.record_q_c and not oracle:  # the engine gives the current loss too
            loss_now, q = true_q_c_and_loss(problem, base, X, y, pool_X[scored], population, cfg.loss)
        else:
            loss_now = population.loss(base.clone().fit(X, y, problem.n_classes), cfg.loss)
        row = {"n_labelled": len(y), "loss": loss_now, "chosen": -1, "q_c_chosen": np.nan, "q_c_best": np.nan}
        rows.append(row)
        if done:
            break
        ctx = Context(X, y, pool_X[scored], pool_X[available], base, problem.n_classes, rng, problem, population)
        i, scores = select(strategy, ctx)
        if cfg.record_q_c:
            if oracle:
                q = strategy.sign * scores
            row.update(q_c_chosen=float(q[i]), q_c_best=float(q.max()))
        pick = scored[i]
        row["chosen"] = int(pick)
        X, y = np.vstack([X, pool_X[pick]]), np.append(y, pool_y[pick])
        available = available[available != pick]
    out = pd.DataFrame(rows)
    out.insert(0, "replicate", replicate)
    out.insert(0, "strategy", strategy_name)
    out.insert(0, "classifier", cfg.classifier)
    out.insert(0, "problem", cfg.problem)
    return out[RESULT_COLUMNS]


def _write_atomic(frame: pd.DataFrame | str, path: Path) -> None:
    """Write to a temporary file in the same folder, then rename: a kill never leaves a partial file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "w") as handle:
            if isinstance(frame, str):
                handle.write(frame)
            else:
                frame.to_csv(handle, index=False)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _part_path(out: Path, strategy: str, replicate: int) -> Path:
    return out / "parts" / f"{strategy}__{replicate:05d}.csv"


def _prepare_output(out: Path, cfg: CurveConfig) -> None:
    (out / "parts").mkdir(parents=True, exist_ok=True)
    config = out / _CONFIG_FILE
    text = json.dumps(asdict(cfg), indent=2, sort_keys=True)
    if config.exists():
        if json.loads(config.read_text()) != json.loads(text):
            raise ValueError(f"out: {out} holds results of a different study ({config}); use another folder")
    else:
        _write_atomic(text, config)


def _run_and_store(cfg: CurveConfig, strategy: str, replicate: int, out: Path | None) -> pd.DataFrame:
    frame = _run_pair(cfg, strategy, replicate)
    if out is not None:
        _write_atomic(frame, _part_path(out, strategy, replicate))
    return frame


def run_curves(
    problem: str = "four-gaussian",
    classifier: str = "knn5",
    strategies: Sequence[str] | str = "all",
    pool_size: int = 250,
    replicates: int = 10,
    seed: int = 0,
    n_jobs: int = 1,
    budget: int | None = None,
    population_size: int = 10_000,
    loss: str = "error",
    subsample: int | None = 100,
    record_q_c: bool = True,
    out: str | os.PathLike | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    r"""Learning curves of AL strategies on a simulated problem (§5.2), paired over replicates.

    Parameters
    ----------
    problem : str
        A name from :func:`mri_theory.problems.list_problems`.
    classifier : str
        A name from :func:`mri_theory.classifiers.list_classifiers` (``knn5``,
        ``lda``, ``qda``, ``nb``, ``logreg``, ``svm``, ``rf``, ...).
    strategies : sequence of str or "all"
        Names from :func:`mri_theory.strategies.list_strategies`.
    pool_size : int
        Unlabelled pool drawn per replicate.
    replicates : int
        Monte Carlo replicates (paired: all strategies share each replicate's data).
    seed : int
    n_jobs : int
        Parallel (strategy, replicate) jobs with joblib; results are identical
        to a serial run.
    budget : int, optional
        Labels to acquire (default: exhaust the pool).
    population_size : int
        Evaluation population (QMC, exact posteriors).
    loss : {"error", "log"}
        The learning-curve loss and the oracles' target.
    subsample : int or None, default 100
        Costly strategies (EfeLc, SMRI, BMRI, MRI-best, MRI-worst) score a
        random sub-sample of this many pool points per step, drawn with a
        seed shared by all strategies at that step of the replicate (so they
        score the same sub-sample while their remaining pools coincide, e.g.
        at the first step); ``None`` scores the whole pool.  The recorded true :math:`Q^c` of the chosen
        and of the best candidate refer to the candidates the strategy scored.
    record_q_c : bool
        Record the true :math:`Q^c` of the chosen and best candidates (costs one
        :func:`~mri_theory.targets.true_q_c` per step for non-oracle strategies).
    out : path, optional
        Folder for the results: each finished (strategy, replicate) is written
        atomically to ``parts/``, the whole table to ``curves.csv``.  Rerunning
        with the same folder and settings resumes, skipping finished pairs.
    progress : bool
        Show a tqdm progress bar.

    Returns
    -------
    pandas.DataFrame
        Tidy, columns :data:`RESULT_COLUMNS`, sorted by strategy (in the given
        order), replicate and ``n_labelled``.
    """
    problem_obj = get_problem(problem)
    get_classifier(classifier)  # validates the name
    if isinstance(strategies, str):
        names = list_strategies() if strategies == "all" else [strategies]
    else:
        names = list(strategies)
    if not names:
        raise ValueError("strategies must name at least one strategy")
    for name in names:
        get_strategy(name)  # validates the name
    if loss not in ("error", "log"):
        raise ValueError(f"loss must be 'error' or 'log', got {loss!r}")
    pool_size = check.count(pool_size, "pool_size")
    if pool_size < problem_obj.n_classes:
        raise ValueError(f"pool_size must be at least the initial set size {problem_obj.n_classes}, got {pool_size}")
    budget = pool_size if budget is None else check.count(budget, "budget")
    if budget > pool_size:
        raise ValueError(f"budget ({budget}) must not exceed pool_size ({pool_size}): the pool is smaller than requested")
    cfg = CurveConfig(problem, classifier, pool_size, budget, check.count(population_size, "population_size"),
                      loss, None if subsample is None else check.count(subsample, "subsample"),
                      bool(record_q_c), check.count(seed, "seed", minimum=0))
    replicates = check.count(replicates, "replicates")
    n_jobs = int(n_jobs)
    pairs = [(s, r) for s in names for r in range(replicates)]
    frames: dict[tuple[str, int], pd.DataFrame] = {}
    out_path = None if out is None else Path(out)
    if out_path is not None:
        _prepare_output(out_path, cfg)
        for pair in pairs:
            if _part_path(out_path, *pair).exists():
                frames[pair] = pd.read_csv(_part_path(out_path, *pair))
    todo = [pair for pair in pairs if pair not in frames]
    bar = tqdm(total=len(pairs), initial=len(frames), desc="curves", unit="run", disable=not progress)
    try:
        if n_jobs == 1:
            results: Iterable = (((s, r), _run_and_store(cfg, s, r, out_path)) for s, r in todo)
        else:
            from joblib import Parallel, delayed

            results = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
                delayed(lambda s, r: ((s, r), _run_and_store(cfg, s, r, out_path)))(s, r) for s, r in todo)
        for pair, frame in results:
            frames[pair] = frame
            bar.update()
    finally:
        bar.close()
    table = pd.concat([frames[pair] for pair in pairs], ignore_index=True)
    if out_path is not None:
        _write_atomic(table, out_path / _RESULTS_FILE)
    return table


def read_curves(path: str | os.PathLike) -> pd.DataFrame:
    """Results written by :func:`run_curves` (a ``curves.csv`` file or the ``out`` folder)."""
    path = Path(path)
    if path.is_dir():
        path = path / _RESULTS_FILE
    if not path.exists():
        raise ValueError(f"path: no results at {path}")
    return pd.read_csv(path)
