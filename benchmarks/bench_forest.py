r"""Benchmark: ``RandomForest`` (scikit-learn's trees grown without the estimator's per-fit overhead) against
``RandomForestClassifier`` itself.

What is measured
----------------
Fit on ``n`` Four-Gaussian points and ``predict_proba`` on 100 candidates, for the forests the strategies fit
at every step: 25 trees (the QBC committee's, SMRI's :math:`\theta_2` for a nearest-neighbour base) and 10
trees (each of BMRI's 25 :math:`\theta_2` forests), at ``n = 60`` and ``200``.  CPU seconds per fit and
predict (best of ``--repeats`` runs of 20), the ratio, and whether the probabilities are identical (they
must be).

Run: ``python benchmarks/bench_forest.py [--repeats 3]``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import numpy as np
from _setting import best_time
from sklearn.ensemble import RandomForestClassifier

from mri_theory._utils.backends import one_thread
from mri_theory.classifiers import RandomForest
from mri_theory.problems import get_problem


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    problem = get_problem("four-gaussian")
    print("fit + predict_proba on 100 candidates, Four-Gaussian, CPU milliseconds per call (best of "
          f"{args.repeats} x 20)")
    header = f"{'n':>4} {'trees':>5} {'RandomForest':>13} {'sklearn':>8} {'ratio':>6} {'identical':>9}"
    print(header)
    print("-" * len(header))
    failed = False
    with one_thread():
        for n in (60, 200):
            rng = np.random.default_rng(0)
            X, y = problem.sample(n, rng)
            candidates, _ = problem.sample(100, rng)
            for trees in (25, 10):
                def ours(trees=trees, X=X, y=y, candidates=candidates):
                    return [RandomForest(trees).fit(X, y, 2).predict_proba(candidates) for _ in range(20)][-1]

                def theirs(trees=trees, X=X, y=y, candidates=candidates):
                    return [RandomForestClassifier(n_estimators=trees, random_state=0).fit(X, y)
                            .predict_proba(candidates) for _ in range(20)][-1]

                fast, t_fast = best_time(ours, args.repeats, time.process_time)
                slow, t_slow = best_time(theirs, args.repeats, time.process_time)
                same = np.array_equal(fast, slow)
                failed |= not same
                print(f"{n:>4} {trees:>5} {1000 * t_fast / 20:>13.2f} {1000 * t_slow / 20:>8.2f} "
                      f"{t_slow / t_fast:>6.1f} {str(same):>9}")
    return int(failed)


if __name__ == "__main__":
    sys.exit(main())
