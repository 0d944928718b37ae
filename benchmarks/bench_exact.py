r"""Benchmark: exact losses of the Gaussian family's retrained rules against today's 10^4-point population step.

What is measured
----------------
For LDA, QDA, Gaussian naive Bayes and logistic regression on Four-Gaussian (2 classes, 4
components), Quadratic (2 classes, 2 components) and Three-Gaussians
(3 classes), with ``|D_S|`` training points and 100 candidates: the
``M = 100 k`` retrained rules of one step (the rank-one statistics of the
Gaussian family's fast path, logistic regression's batched Newton solutions), scored

* on a ``10^4``-point QMC population with exact posteriors, by the
  classifier's own fast path ``retraining_losses`` (rank-one updates, one
  matrix product per chunk, the pointwise loss), and
* exactly, by the same fast path on ``Population.exact(problem)``
  (:class:`~mri_theory.engine.population.ExactPopulation`: the same rank-one
  updates and coefficients, the rules integrated by
  :func:`mri_theory.engine.exact.error_rates` / :func:`~mri_theory.engine.exact.log_losses`).

Printed: the best wall-clock time of each (``--repeats`` runs), their ratio
(exact / population; below 1 means the exact step is faster), and the
largest difference between the population's and the exact future losses,
which is the population's sampling error.

With ``--curves``: one whole learning curve of MRI-best instead (Four-Gaussian, pool 250 labelled to
exhaustion, 100 candidates per step, ``run_curves(..., truth="exact")`` against ``truth="sampled"``, the
10^4-point population), CPU seconds of each and their ratio.

Run: ``python benchmarks/bench_exact.py [--seed 0] [--repeats 3] [--n-train 60] [--curves]``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from functools import partial

import numpy as np
from _setting import best_time

from mri_theory.classifiers import LDA, QDA, GaussianNaiveBayes, LogisticRegression
from mri_theory.engine import Population
from mri_theory.problems import get_problem

PROBLEMS = ("four-gaussian", "quadratic", "three-gaussians")
CLASSIFIERS = {"lda": LDA, "qda": QDA, "nb": GaussianNaiveBayes, "logreg": LogisticRegression}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-train", type=int, default=60)
    parser.add_argument("--candidates", type=int, default=100)
    parser.add_argument("--curves", action="store_true", help="time whole MRI-best learning curves instead")
    args = parser.parse_args(argv)
    if args.curves:
        return curves(args.seed)
    print(f"|D_S| = {args.n_train}, {args.candidates} candidates, population 10^4 (QMC); times in ms")
    print(f"{'problem':16s} {'clf':4s} {'loss':5s} {'M':>4s} {'population':>10s} {'exact':>9s} "
          f"{'ratio':>7s} {'max|pop-exact|':>15s}")
    for name in PROBLEMS:
        problem = get_problem(name)
        rng = np.random.default_rng(args.seed)
        while True:
            X_S, y_S = problem.sample(args.n_train, rng)
            if np.unique(y_S).size == problem.n_classes:
                break
        candidates, _ = problem.sample(args.candidates, rng)
        population = Population.from_problem(problem, 10_000, rng, method="qmc")
        exact_population = Population.exact(problem)
        for key, cls in CLASSIFIERS.items():
            clf = cls().fit(X_S, y_S, n_classes=problem.n_classes)
            for loss in ("error", "log"):
                (_, pop), t_pop = best_time(
                    partial(clf.retraining_losses, candidates, population, loss), args.repeats)
                (_, exact), t_exact = best_time(
                    partial(clf.retraining_losses, candidates, exact_population, loss), args.repeats)
                print(f"{name:16s} {key:4s} {loss:5s} {exact.size:4d} {1e3 * t_pop:10.1f} {1e3 * t_exact:9.1f} "
                      f"{t_exact / t_pop:7.2f} {np.max(np.abs(pop - exact)):15.2e}")
    return 0


def curves(seed: int) -> int:
    """CPU seconds of one MRI-best learning curve with exact and with sampled truth, per classifier."""
    from mri_theory.runners import run_curves

    print("MRI-best on four-gaussian, pool 250 exhausted, subsample 100; CPU seconds")
    print(f"{'clf':7s} {'sampled':>8s} {'exact':>8s} {'ratio':>7s}")
    for key in CLASSIFIERS:
        cost = {}
        for truth in ("sampled", "exact"):
            start = time.process_time()
            run_curves("four-gaussian", key, ["MRI-best"], replicates=1, pool_size=250, seed=seed, progress=False,
                       record_q_c=False, truth=truth)
            cost[truth] = time.process_time() - start
        print(f"{key:7s} {cost['sampled']:8.1f} {cost['exact']:8.1f} {cost['exact'] / cost['sampled']:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
