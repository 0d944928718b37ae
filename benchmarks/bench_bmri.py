r"""Benchmark: one BMRI step (Algorithm 2, 25 bootstrap resamples) in this checkout against a baseline checkout.

What is measured
----------------
Four-Gaussian, ``|D_S| = 60`` with 100 candidates and ``|D_S| = 200`` with 50 candidates (the paper
preset's pool of 250 with its sub-sample of 100: what a step of the study sees early and late), for the
SVM, kknn5 and logistic regression: BMRI's scores and the CPU seconds of computing them (best of
``--repeats``, one BLAS thread, after one warm-up step that compiles and loads what the first call needs).
With ``--baseline DIR`` (a checkout of an earlier commit, e.g. ``git worktree add /tmp/base 6846dfc``,
the code before the compiled SVM solver) the same steps run there too, in a subprocess of the same
interpreter, and the table gives both times, their ratio and the largest difference between the two
checkouts' scores (they must be equal: error rates, so 0).

``--classifiers`` restricts the run to some of them (e.g. ``--classifiers logreg``).

Run: ``python benchmarks/bench_bmri.py [--baseline DIR] [--repeats 3] [--classifiers svm kknn5 logreg]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence

import numpy as np
from _setting import best_time

SIZES = ((60, 100), (200, 50))
CLASSIFIERS = ("svm", "kknn5", "logreg")


def measure(repeats: int, classifiers: Sequence[str] = CLASSIFIERS) -> dict[str, dict]:
    """CPU seconds and scores of one BMRI step for every (classifier, size), in the imported mri_theory."""
    from mri_theory._utils.backends import one_thread
    from mri_theory.classifiers import get_classifier
    from mri_theory.problems import get_problem
    from mri_theory.strategies import get_strategy
    from mri_theory.strategies.base import Context

    problem = get_problem("four-gaussian")
    out = {}
    with one_thread():
        for n, m in SIZES:
            rng = np.random.default_rng(0)
            X, y = problem.sample(n, rng)
            candidates, _ = problem.sample(m, rng)
            for name in classifiers:
                def step(name=name, X=X, y=y, candidates=candidates):
                    ctx = Context(X=X, y=y, candidates=candidates, pool=candidates, classifier=get_classifier(name),
                                  n_classes=problem.n_classes, rng=np.random.default_rng(1))
                    return get_strategy("BMRI").scores(ctx)

                step()  # warm-up: compiles or loads what the first call needs
                scores, best = best_time(step, repeats, time.process_time)
                out[f"{name} {n} {m}"] = {"cpu": best, "scores": scores.tolist()}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", metavar="DIR", help="a checkout of an earlier commit to compare with")
    parser.add_argument("--classifiers", nargs="+", choices=CLASSIFIERS, default=list(CLASSIFIERS),
                        help="the classifiers to measure (default: all three)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # the baseline's subprocess
    args = parser.parse_args(argv)
    if args.json:
        print(json.dumps(measure(args.repeats, args.classifiers)))
        return 0
    here = measure(args.repeats, args.classifiers)
    base = None
    if args.baseline:
        env = {**os.environ, "PYTHONPATH": os.path.abspath(args.baseline)}
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--json", "--repeats", str(args.repeats),
                               "--classifiers", *args.classifiers],
                              capture_output=True, text=True, env=env, check=True, cwd=args.baseline)
        base = json.loads(done.stdout)
    print(f"one BMRI step (25 resamples), Four-Gaussian, CPU seconds, best of {args.repeats}"
          + (f"; baseline: {args.baseline}" if base else ""))
    header = f"{'classifier':<10} {'|D_S|':>5} {'cands':>5} {'this (s)':>9}" + (
        f" {'baseline (s)':>12} {'ratio':>6} {'max|diff|':>9}" if base else "")
    print(header)
    print("-" * len(header))
    failed = False
    for key, result in here.items():
        name, n, m = key.split()
        line = f"{name:<10} {n:>5} {m:>5} {result['cpu']:>9.3f}"
        if base:
            diff = float(np.max(np.abs(np.array(result["scores"]) - np.array(base[key]["scores"]))))
            failed |= diff > 0
            line += f" {base[key]['cpu']:>12.3f} {base[key]['cpu'] / result['cpu']:>6.2f} {diff:>9.1e}"
        print(line)
    return int(failed)


if __name__ == "__main__":
    sys.exit(main())
