r"""Benchmark: a peeking oracle's step on the future-loss engine against the naive refit loop (issue 55, part 5).

What is measured
----------------
One step of :class:`~mri_theory.strategies.GreedyOracle` on Four-Gaussian with the exact truth
(:meth:`Population.exact <mri_theory.engine.Population.exact>`), for every paper classifier whose truth is exact
there (LDA, QDA, naive Bayes, logistic regression, the paper's 5-NN ``kknn5``, the SVM): ``|D_S|`` of
:data:`SIZES`, ``tau`` candidates with their drawn labels (CDALBench's 20, and the whole pool of 100).

- **engine**: ``GreedyOracle(tau).scores(ctx)``: the current loss and the future-loss matrix of the ``tau``
  candidates from the classifier's fast path (:func:`~mri_theory.strategies.oracles.peeked_gains`; both
  classes of every candidate, the column of the drawn label kept);
- **naive**: what CDALBench's loop does, with the same exact loss: for each of the ``tau`` candidates, fit the
  classifier on ``D_S`` plus the candidate with its drawn label, and integrate its loss on the exact population
  (one refit per candidate, the drawn label only), plus the current model's loss.

And one step of :class:`~mri_theory.strategies.LookaheadOracle` (its defaults: sets of up to 2, 200 of each
size) on the whole pool of 100: the engine (:func:`~mri_theory.strategies.oracles.set_losses`: one fit per
shared prefix, the last candidate by the fast path) against one refit per set.

Both on one BLAS thread, after a warm-up of both, the best of ``--repeats`` CPU times, in the same run; the ratio
naive / engine, and the largest difference of the scores (the same numbers: to rounding, 1e-12; logistic
regression's Newton steps and the SVM's solver to their tolerances).

Run: ``python benchmarks/bench_peeking_oracles.py [--repeats 3] [--seed 0]`` (about a minute).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from functools import partial

import numpy as np
from _setting import best_time, labelled_state

#: The labelled-set sizes of the measured states (early and mid-curve of the study's pools of 250).
SIZES = (20, 60)
#: CDALBench's candidates per step and the whole pool.
TAUS = (20, 100)
CLASSIFIERS = ("lda", "qda", "nb", "logreg", "kknn5", "svm")
#: Largest difference allowed between the engine's and the naive scores.
TOLERANCE = {"logreg": 1e-9, "svm": 1e-8}


def naive_gains(classifier, X, y, candidates, labels, population) -> np.ndarray:
    """CDALBench's loop on the exact loss: one refit per candidate with its drawn label."""
    now = population.loss(classifier.clone().fit(X, y, 2))
    return np.array([now - population.loss(classifier.clone().fit(np.vstack([X, x]), np.append(y, c), 2))
                     for x, c in zip(candidates, labels, strict=True)])


def engine_set_losses(ctx, groups, labels, population) -> np.ndarray:
    """The oracle's set losses on the engine (:func:`~mri_theory.strategies.oracles.set_losses`), group by group."""
    from mri_theory.strategies.oracles import set_losses

    return np.concatenate([set_losses(ctx, sets, labels, population) for sets in groups])


def naive_set_losses(classifier, X, y, candidates, labels, groups, population) -> np.ndarray:
    """The non-myopic oracle's loop on the exact loss: one refit per set."""
    return np.array([population.loss(classifier.clone().fit(np.vstack([X, candidates[s]]), np.append(y, labels[s]),
                                                             2)) for sets in groups for s in sets])


def timed(oracle: str, name: str, size: int, tau: int, engine_step, naive_step, repeats: int) -> dict:
    """Both steps after a warm-up, the best of ``repeats`` CPU times each, their ratio and largest difference."""
    engine_step(), naive_step()
    engine, t_engine = best_time(engine_step, repeats, time.process_time)
    naive, t_naive = best_time(naive_step, repeats, time.process_time)
    diff = float(np.max(np.abs(engine - naive)))
    return dict(oracle=oracle, classifier=name, size=size, tau=tau, engine_s=t_engine, naive_s=t_naive,
                ratio=t_naive / t_engine, max_diff=diff, ok=diff <= TOLERANCE.get(name, 1e-12))


def measure(seed: int, repeats: int) -> list[dict]:
    from mri_theory._utils.backends import one_thread
    from mri_theory.classifiers import get_classifier
    from mri_theory.engine import Population
    from mri_theory.problems import get_problem
    from mri_theory.strategies import Context, GreedyOracle
    from mri_theory.strategies.oracles import LOOKAHEAD_SETS, candidate_sets

    problem = get_problem("four-gaussian")
    exact = Population.exact(problem)
    rows = []
    with one_thread():
        for size in SIZES:
            X, y, pool, rng = labelled_state(problem, size, max(TAUS), seed)
            labels = (rng.random(pool.shape[0]) > problem.posterior(pool)[:, 0]).astype(int)
            singles = np.arange(pool.shape[0])[:, None]
            pairs = candidate_sets(np.arange(pool.shape[0]), 2, LOOKAHEAD_SETS, np.random.default_rng(1))
            for name in CLASSIFIERS:
                classifier = get_classifier(name)
                for tau in TAUS:
                    ctx = Context(X, y, pool[:tau], pool, classifier, 2, np.random.default_rng(0), problem, exact,
                                  labels[:tau])
                    oracle = GreedyOracle(tau=None, fallback=None)  # every candidate offered is scored
                    rows.append(timed("greedy", name, size, tau, partial(oracle.scores, ctx),
                                      partial(naive_gains, classifier, X, y, pool[:tau], labels[:tau], exact),
                                      repeats))
                ctx = Context(X, y, pool, pool, classifier, 2, np.random.default_rng(0), problem, exact, labels)
                rows.append(timed("lookahead", name, size, pool.shape[0],
                                  partial(engine_set_losses, ctx, (singles, pairs), labels, exact),
                                  partial(naive_set_losses, classifier, X, y, pool, labels, (singles, pairs), exact),
                                  repeats))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows = measure(args.seed, args.repeats)
    print(f"{'oracle':<9} {'classifier':<10} {'|D_S|':>5} {'tau':>4} {'engine s':>9} {'naive s':>9} {'ratio':>7} "
          f"{'max diff':>9}")
    for r in rows:
        print(f"{r['oracle']:<9} {r['classifier']:<10} {r['size']:>5} {r['tau']:>4} {r['engine_s']:>9.4f} "
              f"{r['naive_s']:>9.4f} {r['ratio']:>6.1f}x {r['max_diff']:>9.1e}"
              f"{'' if r['ok'] else '  EXCEEDS TOLERANCE'}")
    for oracle in ("greedy", "lookahead"):
        ratios = np.array([r["ratio"] for r in rows if r["oracle"] == oracle])
        print(f"{oracle}: ratio naive / engine min {ratios.min():.1f}x, median {np.median(ratios):.1f}x, "
              f"max {ratios.max():.1f}x")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
