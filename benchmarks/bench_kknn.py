r"""Benchmark: the kknn-style 5-NN (optimal rank weights) against the plain-vote 5-NN and against refits.

What is measured
----------------
Setting: Four-Gaussian, ``|D_S| = 60``, 100 candidates, a
population of ``10^4`` points with exact posteriors
(:func:`_setting.four_gaussian_setting`).  For the error and the log loss:

1. **Engine, plain vote against rank weights**: the wall-clock time of
   :func:`mri_theory.engine.retraining.current_and_future_losses` (the engine: the
   current loss and the future-loss matrix **L'**) for ``KNN(5)`` (``knn5``)
   and ``KNN(5, kernel="optimal")`` (``kknn5``), in the same run; the ratio
   kknn5 / knn5 (goal: at most 2).
2. **kknn5 engine against refits**: the same call with ``method="refit"``
   (a clone refitted per (candidate, label)); the ratio refit / engine and the
   largest difference (must be below ``1e-13``, exit 1 otherwise).
3. **Scaling** (skip with ``--no-scaling``): both engines for 250 candidates
   and populations of ``10^5`` and ``10^6``: time and peak memory
   (``tracemalloc``).

Timing: best of ``--repeats`` calls (default 5; the refit once).

Run: ``python benchmarks/bench_kknn.py [--seed 0] [--repeats 5] [--no-scaling]``
(about 10 s, 40 s with the scaling rows, on one core).
"""

from __future__ import annotations

import argparse
import sys
import tracemalloc
from collections.abc import Sequence
from functools import partial

import numpy as np
from _setting import best_time, four_gaussian_setting

from mri_theory.classifiers import KNN
from mri_theory.engine import current_and_future_losses

TOLERANCE = 1e-13
N_TRAIN, N_CANDIDATES, POPULATION_SIZE = 60, 100, 10_000



def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-scaling", action="store_true")
    args = parser.parse_args(argv)

    _, X_S, y_S, candidates, population = four_gaussian_setting(args.seed, N_TRAIN, N_CANDIDATES, POPULATION_SIZE)
    plain, ranked = KNN(5), KNN(5, kernel="optimal")
    print(f"Four-Gaussian, |D_S| = {N_TRAIN}, {N_CANDIDATES} candidates, population {POPULATION_SIZE:,d} "
          "(exact posteriors)\n")
    print(f"{'loss':6s} {'knn5 engine':>12s} {'kknn5 engine':>13s} {'kknn5/knn5':>11s} {'kknn5 refit':>12s} "
          f"{'refit/engine':>13s} {'max |diff|':>11s}")
    worst = 0.0
    for loss in ("error", "log"):
        engine = partial(current_and_future_losses, X_train=X_S, y_train=y_S, candidates=candidates,
                         population=population, loss=loss)
        _, t_plain = best_time(partial(engine, plain), args.repeats)
        (base, fast), t_ranked = best_time(partial(engine, ranked), args.repeats)
        (base_r, refit), t_refit = best_time(partial(engine, ranked, method="refit"), 1)
        diff = max(abs(base - base_r), float(np.max(np.abs(fast - refit))))
        worst = max(worst, diff)
        print(f"{loss:6s} {t_plain * 1e3:9.1f} ms {t_ranked * 1e3:10.1f} ms {t_ranked / t_plain:10.2f}x "
              f"{t_refit:10.2f} s {t_refit / t_ranked:12.0f}x {diff:11.1e}")

    if not args.no_scaling:
        print("\nScaling (error loss), |D_S| = 60, 250 candidates:")
        print(f"{'population':>11s} {'knn5 (s)':>9s} {'MiB':>6s} {'kknn5 (s)':>10s} {'MiB':>6s} {'ratio':>6s}")
        for pop_size in (100_000, 1_000_000):
            _, X_S, y_S, candidates, population = four_gaussian_setting(args.seed, N_TRAIN, 250, pop_size)
            row = []
            for model in (plain, ranked):
                tracemalloc.start()
                _, elapsed = best_time(partial(current_and_future_losses, model, X_S, y_S, candidates, population,
                                               "error"), 1)
                peak = tracemalloc.get_traced_memory()[1] / 2**20
                tracemalloc.stop()
                row += [elapsed, peak]
            print(f"{pop_size:11,d} {row[0]:9.2f} {row[1]:6.0f} {row[2]:10.2f} {row[3]:6.0f} {row[2] / row[0]:5.2f}x")

    if worst > TOLERANCE:
        print(f"FAIL: engine and refit differ by {worst:.1e} > {TOLERANCE}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
