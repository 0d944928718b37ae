"""The benchmark setting shared by the Four-Gaussian benchmarks, and their timer."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from mri_theory.engine import Population
from mri_theory.problems import get_problem


def labelled_state(problem, n_train: int, n_candidates: int, seed: int):
    """``D_S`` of ``n_train`` points of ``problem`` (drawn again until every class is present), ``n_candidates``
    candidates and the generator after them: ``(X_S, y_S, candidates, rng)``."""
    rng = np.random.default_rng(seed)
    while True:
        X_S, y_S = problem.sample(n_train, rng)
        if np.unique(y_S).size == problem.n_classes:
            break
    candidates, _ = problem.sample(n_candidates, rng)
    return X_S, y_S, candidates, rng


def four_gaussian_setting(seed: int, n_train: int, n_candidates: int, pop_size: int, method: str = "sample"):
    """``D_S`` of ``n_train`` points (every class present), candidates and a population with exact posteriors."""
    problem = get_problem("four-gaussian")
    X_S, y_S, candidates, rng = labelled_state(problem, n_train, n_candidates, seed)
    population = Population.from_problem(problem, pop_size, rng, method=method)
    return problem, X_S, y_S, candidates, population


def best_time(fn: Callable[[], Any], repeats: int = 3,
              clock: Callable[[], float] = time.perf_counter) -> tuple[Any, float]:
    """Result and best time of ``repeats`` calls: wall-clock, or CPU with ``clock=time.process_time``."""
    best, out = np.inf, None
    for _ in range(repeats):
        start = clock()
        out = fn()
        best = min(best, clock() - start)
    return out, best
