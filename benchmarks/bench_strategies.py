r"""Benchmark: per-step time of every AL strategy, and the engine against naive refits (Four-Gaussian).

What is measured
----------------
One realistic selection step on Four-Gaussian, for each base classifier
(``knn5`` = ``KNN(5)``, ``lda`` = ``LDA()``): ``D_S`` of 20 labelled points
(both classes present), an unlabelled pool of 250 points, all 250 scored (no
sub-sampling), and a QMC population of ``10^4`` points with exact posteriors
for the oracles (MRI-best, MRI-worst).  The step is built as the sandbox
builds it (:class:`mri_theory.strategies.Context` with ``n_classes = 2``,
``rng = np.random.default_rng(seed)``, the problem and the population).

1. **Every strategy** of :func:`mri_theory.strategies.list_strategies`: the
   wall-clock time of ``select(strategy, ctx)``, one selection step, with a
   fresh context (so the base classifier's fit is included) and a freshly
   seeded ``rng`` per run.
2. **Engine against naive** for EfeLc, SMRI and BMRI: the same strategy with
   ``method="refit"``, i.e. the same algorithm with the classifier refitted
   per (candidate, label), the same ``theta_2`` and, for BMRI, the same
   bootstrap indices (an identically seeded ``rng``).  The two must select the
   same candidate and their scores must agree to ``1e-12`` (exit 1 otherwise);
   the ratio naive / engine is printed.  ``--naive-candidates N`` restricts
   this comparison to the first ``N`` pool points for *both* versions (the
   naive BMRI refits ``n_b x N x 2`` times); ``--n-b`` sets BMRI's number of
   bootstrap resamples (default 25, the paper's) everywhere.

3. **The paper's other classifiers** (``--paper``, on by default): the same
   engine-vs-naive comparison for logistic regression (``logreg``), the SVM
   (``svm``) and the paper's 5-NN (``kknn5``) at a mid-curve state,
   ``|D_S| = 60``, 100 candidates (the sandbox's sub-sample), each held to
   its fast path's tolerance (logistic regression 1e-9, SVM 1e-8, kknn5
   1e-12).

Timing: a run that takes less than ``--quick`` seconds (default 1) is repeated
``--repeats`` times (default 5) and the best time is kept; slower runs are
timed once.

Run: ``python benchmarks/bench_strategies.py [--seed 0] [--naive-candidates 250] [--n-b 25]
[--repeats 5] [--quick 1.0]``  (20-30 s with the defaults on one core; the
naive BMRI runs dominate).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np
from _setting import four_gaussian_setting

from mri_theory.classifiers import KNN, LDA, Classifier, get_classifier
from mri_theory.strategies import (
    Context,
    Strategy,
    get_strategy,
    list_strategies,
    select,
)

#: Largest acceptable ``max |score_engine - score_naive|``.
TOLERANCE = 1e-12

#: Strategies that have a naive ``method="refit"`` twin.
COMPARED = ("EfeLc", "SMRI", "BMRI")

#: The base classifiers of the issue.
CLASSIFIERS: dict[str, Callable[[], Classifier]] = {"knn5": lambda: KNN(5), "lda": LDA}

N_TRAIN, POOL_SIZE, POPULATION_SIZE = 20, 250, 10_000

#: Part 3: the paper's classifiers with their fast path's tolerance, at |D_S| = 60 with 100 candidates.
PAPER_CLASSIFIERS: dict[str, float] = {"logreg": 1e-9, "svm": 1e-8, "kknn5": 1e-12}
PAPER_TRAIN, PAPER_CANDIDATES = 60, 100


def _positive_int(text: str) -> int:
    """argparse type: an integer ``>= 1``."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    """argparse type: a finite number ``> 0``."""
    value = float(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the data and of every strategy's rng (default 0)")
    parser.add_argument("--naive-candidates", type=_positive_int, default=POOL_SIZE,
                        help=f"engine-vs-naive comparison on the first N pool points (default {POOL_SIZE}, all)")
    parser.add_argument("--n-b", type=_positive_int, default=25,
                        help="BMRI's bootstrap resamples (default 25, the paper's)")
    parser.add_argument("--repeats", type=_positive_int, default=5,
                        help="runs faster than --quick are timed best of this many (default 5)")
    parser.add_argument("--quick", type=_positive_float, default=1.0,
                        help="runs slower than this many seconds are timed once (default 1.0)")
    parser.add_argument("--no-paper", action="store_true",
                        help="skip part 3 (logreg, svm, kknn5 at |D_S| = 60, 100 candidates)")
    args = parser.parse_args(argv)
    if args.naive_candidates > POOL_SIZE:
        parser.error(f"--naive-candidates ({args.naive_candidates}) must not exceed the pool size {POOL_SIZE}")
    return args


def time_select(strategy: Strategy, make_ctx: Callable[[], Context], repeats: int,
                quick: float) -> tuple[int, np.ndarray, float, int]:
    """``select(strategy, ctx)`` on a fresh context per run: index, scores, best time and number of runs.

    The first run decides: if it is faster than ``quick`` seconds, ``repeats``
    runs are made in all and the best time kept.  Every run must select the
    same index with the same scores (the rng is freshly seeded each time).
    """
    best, runs = math.inf, 0
    index, scores = -1, np.empty(0)
    while runs == 0 or (runs < repeats and best < quick):
        ctx = make_ctx()
        start = time.perf_counter()
        i, s = select(strategy, ctx)
        best = min(best, time.perf_counter() - start)
        if runs and (i != index or not np.array_equal(s, scores)):
            raise RuntimeError(f"{strategy.name}: a rerun with the same seed gave a different result")
        index, scores, runs = i, s, runs + 1
    return index, scores, best, runs


def paper_classifiers(args: argparse.Namespace) -> list[str]:
    """Part 3: EfeLc, SMRI and BMRI engine vs naive for logreg, svm and kknn5; returns the failures."""
    problem, X_S, y_S, pool, population = four_gaussian_setting(args.seed, PAPER_TRAIN, POOL_SIZE, POPULATION_SIZE,
                                                                method="qmc")
    candidates = pool[:PAPER_CANDIDATES]
    options = {"BMRI": {"n_b": args.n_b}}
    print(f"\nPart 3: |D_S| = {PAPER_TRAIN}, {PAPER_CANDIDATES} candidates, pool {POOL_SIZE}, BMRI n_b = {args.n_b}")
    failed = []
    for clf_name, tolerance in PAPER_CLASSIFIERS.items():
        classifier = get_classifier(clf_name)

        def make_ctx(classifier: Classifier = classifier) -> Context:
            return Context(X_S, y_S, candidates, pool, classifier, problem.n_classes, np.random.default_rng(args.seed))

        for name in COMPARED:
            index, scores, t_engine, _ = time_select(get_strategy(name, **options.get(name, {})), make_ctx,
                                                     args.repeats, args.quick)
            naive = get_strategy(name, method="refit", **options.get(name, {}))
            n_index, n_scores, t_naive, _ = time_select(naive, make_ctx, args.repeats, args.quick)
            diff = float(np.max(np.abs(scores - n_scores)))
            ok = index == n_index and diff <= tolerance
            if not ok:
                failed.append(f"{clf_name}/{name}")
            print(f"{clf_name:<10} {name:<9} {t_engine:>13.3g} {t_naive:>12.3g} {t_naive / t_engine:>6.1f}x "
                  f"{'yes' if index == n_index else 'NO':>14} {diff:>9.1e} (tolerance {tolerance:.0e})"
                  f"{'' if ok else '  FAIL'}")
    return failed


def main(argv: Sequence[str] | None = None) -> int:
    """Time every strategy for both classifiers; exit 1 if an engine and its naive twin disagree."""
    args = parse_args(argv)
    problem, X_S, y_S, pool, population = four_gaussian_setting(args.seed, N_TRAIN, POOL_SIZE, POPULATION_SIZE,
                                                                method="qmc")
    m = args.naive_candidates
    options = {"BMRI": {"n_b": args.n_b}}

    print(f"Four-Gaussian, |D_S| = {N_TRAIN}, pool {POOL_SIZE} (all scored), population 10^4 (QMC, exact "
          f"posteriors), seed {args.seed}")
    print(f"BMRI n_b = {args.n_b}; engine vs naive (method='refit') on "
          f"{'all ' if m == POOL_SIZE else 'the first '}{m} pool points; tolerance {TOLERANCE:.0e}; "
          f"runs under {args.quick:g} s: best of {args.repeats}, else one run\n")
    at_m = m != POOL_SIZE
    header = (f"{'classifier':<10} {'strategy':<9} {'engine s/step':>13} "
              + (f"{f'engine@{m} s':>13} " if at_m else "")
              + f"{'naive s/step':>12} {'ratio':>7} {'same selection':>14} {'max|diff|':>9}")
    print(header)
    print("-" * len(header))

    failed: list[str] = []
    for clf_name, make_clf in CLASSIFIERS.items():
        classifier = make_clf()

        def make_ctx(candidates: np.ndarray, classifier: Classifier = classifier) -> Callable[[], Context]:
            return lambda: Context(X_S, y_S, candidates, pool, classifier, problem.n_classes,
                                   np.random.default_rng(args.seed), problem, population)

        for name in list_strategies():
            strategy = get_strategy(name, **options.get(name, {}))
            index, scores, t_engine, _ = time_select(strategy, make_ctx(pool), args.repeats, args.quick)
            row = f"{clf_name:<10} {name:<9} {t_engine:>13.3g} "
            if name not in COMPARED:
                print(row + (f"{'-':>13} " if at_m else "") + f"{'-':>12} {'-':>7} {'-':>14} {'-':>9}")
                continue
            if at_m:
                index, scores, t_engine, _ = time_select(strategy, make_ctx(pool[:m]), args.repeats, args.quick)
                row += f"{t_engine:>13.3g} "
            naive = get_strategy(name, method="refit", **options.get(name, {}))
            n_index, n_scores, t_naive, _ = time_select(naive, make_ctx(pool[:m]), args.repeats, args.quick)
            diff = float(np.max(np.abs(scores - n_scores)))
            same = index == n_index
            ok = same and diff <= TOLERANCE
            if not ok:
                failed.append(f"{clf_name}/{name}")
            print(row + f"{t_naive:>12.3g} {t_naive / t_engine:>6.1f}x {'yes' if same else 'NO':>14} "
                  f"{diff:>9.1e}{'' if ok else '  FAIL'}")

    if not args.no_paper:
        failed += paper_classifiers(args)
    print("\ns/step = wall-clock time of one select(strategy, ctx), base classifier fit included; "
          "ratio = naive / engine" + (f"@{m}" if at_m else "") + " on the same candidates")
    if failed:
        print(f"FAILED: engine and naive refit disagree for {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
