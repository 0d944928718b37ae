r"""Benchmark: one BMRI step (Algorithm 2, 25 bootstrap resamples) with the batched engine against one resample
at a time.

What is measured
----------------
Four-Gaussian, ``|D_S| = 60`` with 100 candidates and ``|D_S| = 200`` with 50 candidates (the paper
preset's pool of 250 with its sub-sample of 100: what a step of the study sees early and late), for the
SVM, kknn5 and logistic regression.  BMRI's scores with the engine's
:func:`~mri_theory.engine.retraining.batch_future_losses` (the SVM fits the 25 resampled models as one
batch of duals and re-solves all their margin violators as one batch), against the same step with the
base class's hook (:meth:`mri_theory.engine.contract.Classifier.batch_future_losses`: one resample at a
time through the classifier's own fast path, what BMRI did before).  Printed: CPU seconds of each (best
of ``--repeats``), the ratio, and the largest score difference (they must be equal: 0 here, the scores
being error rates).

Run: ``python benchmarks/bench_bmri.py [--repeats 3]``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from unittest import mock

import numpy as np
from _setting import best_time

from mri_theory._utils.backends import one_thread
from mri_theory.classifiers import get_classifier
from mri_theory.engine.contract import Classifier
from mri_theory.problems import get_problem
from mri_theory.strategies import get_strategy
from mri_theory.strategies.base import Context


def step(classifier: str, X, y, candidates, n_classes: int) -> np.ndarray:
    ctx = Context(X=X, y=y, candidates=candidates, pool=candidates, classifier=get_classifier(classifier),
                  n_classes=n_classes, rng=np.random.default_rng(1))
    return get_strategy("BMRI").scores(ctx)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    problem = get_problem("four-gaussian")
    header = f"{'classifier':<10} {'|D_S|':>5} {'cands':>5} {'batched (s)':>12} {'one by one (s)':>15} " \
             f"{'ratio':>6} {'max|diff|':>9}"
    print("one BMRI step (25 resamples), Four-Gaussian, CPU seconds, best of", args.repeats)
    print(header)
    print("-" * len(header))
    failed = False
    with one_thread():
        for n, m in ((60, 100), (200, 50)):
            rng = np.random.default_rng(0)
            X, y = problem.sample(n, rng)
            candidates, _ = problem.sample(m, rng)
            data = (X, y, candidates, problem.n_classes)
            for classifier in ("svm", "kknn5", "logreg"):
                fast, t_fast = best_time(lambda c=classifier, d=data: step(c, *d), args.repeats, time.process_time)
                with mock.patch.object(type(get_classifier(classifier)), "batch_future_losses",
                                       Classifier.batch_future_losses):
                    slow, t_slow = best_time(lambda c=classifier, d=data: step(c, *d), args.repeats,
                                             time.process_time)
                diff = float(np.max(np.abs(fast - slow)))
                failed |= diff > 0
                print(f"{classifier:<10} {n:>5} {m:>5} {t_fast:>12.3f} {t_slow:>15.3f} {t_slow / t_fast:>6.2f} "
                      f"{diff:>9.1e}")
    return int(failed)


if __name__ == "__main__":
    sys.exit(main())
