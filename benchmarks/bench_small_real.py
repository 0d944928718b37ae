r"""Benchmark: one BMRI step (Algorithm 2, 25 bootstrap resamples) on the paper's smaller real data sets, at the
study's settings, in this checkout against a baseline checkout; and the group's BMRI CPU-hours they imply.

What is measured
----------------
The state of a step of the study on a real data set (``DataProblem.draw_replicate`` with the whole pool,
``max_pool_size`` rows, the 30 % stratified test set held out): ``D_S`` is the initial set (one point per
class) plus the first pool points, up to ``|D_S| = k + round(f P)`` for ``f`` in :data:`FRACTIONS` (``P`` the
pool size); the candidates are a random sub-sample of at most 100 of the rest (the study's sub-sample), the
pool the rest.  BMRI's scores and the CPU seconds of computing them (best of ``--repeats``, one BLAS thread,
after a warm-up step that compiles and loads what the first call needs).

By default the hot spots of issue 39 (logistic regression on ``sonar``, d = 60, and ``glass``, 6 classes; the
SVM on ``australian``, ``balance`` and ``pima``); ``--group`` measures every set of the group ``"small"``
with each of the paper's six classifiers (long: about an hour with a baseline), ``--cases sonar:qda glass:nb``
the pairs named.

With ``--baseline DIR`` (a checkout of an earlier commit, e.g. ``git worktree add /tmp/base b05f7a4``) the same
steps run there too, in a subprocess of the same interpreter, right after this checkout's steps of the same
(set, classifier) (so that both see about the same load on a shared machine: measured one after the other over
the whole run, unchanged code came out up to 1.3 times slower or faster), and the table gives both times, their
ratio and the largest difference between the two checkouts' scores (error rates: they must be equal, difference
0).

The estimate: a replicate labels the pool to exhaustion, ``P`` steps; the mean of the step times at the three
fractions (the midpoint rule on thirds of the pool; the candidates are at most 100 throughout) times ``P``
times the study's :data:`REPLICATES` replicates is a (set, classifier)'s BMRI CPU time; their sum over the
measured pairs is printed before and after.

Run: ``python benchmarks/bench_small_real.py [--baseline DIR] [--repeats 1] [--group | --cases SET:CLASSIFIER
...]`` (the exit status is 1 if the scores differ).
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

#: Fractions ``f`` of the pool labelled at the measured steps: the midpoints of its thirds.
FRACTIONS = (1 / 6, 1 / 2, 5 / 6)
#: The hot spots of issue 39: (data set, classifier).
HOT = (("sonar", "logreg"), ("glass", "logreg"), ("australian", "svm"), ("balance", "svm"), ("pima", "svm"))
CANDIDATES = 100  # the study's sub-sample of the pool per step
REPLICATES = 10  # the study's replicates per (set, classifier, strategy)


def state(name: str, fraction: float, seed: int = 0):
    """A step's state on data set ``name`` with a fraction of the pool labelled: ``(problem, X, y, candidates,
    pool)``."""
    from mri_theory.problems import get_problem

    problem = get_problem(name)
    rng = np.random.default_rng(seed)
    X0, y0, pool_X, pool_y, _ = problem.draw_replicate(problem.max_pool_size, None, rng)
    labelled = round(fraction * problem.max_pool_size)
    X, y = np.vstack([X0, pool_X[:labelled]]), np.concatenate([y0, pool_y[:labelled]])
    rest = pool_X[labelled:]
    candidates = rest[np.sort(rng.choice(rest.shape[0], size=min(CANDIDATES, rest.shape[0]), replace=False))]
    return problem, X, y, candidates, rest


def measure(repeats: int, cases: Sequence[tuple[str, str]]) -> dict[str, dict]:
    """CPU seconds and scores of one BMRI step for every (data set, classifier, fraction), in the imported
    mri_theory; with each set's pool size."""
    from mri_theory._utils.backends import one_thread
    from mri_theory.classifiers import get_classifier
    from mri_theory.strategies import get_strategy
    from mri_theory.strategies.base import Context

    out = {}
    with one_thread():
        for name, classifier in cases:
            for fraction in FRACTIONS:
                problem, X, y, candidates, pool = state(name, fraction)

                def step(problem=problem, X=X, y=y, candidates=candidates, pool=pool, classifier=classifier):
                    ctx = Context(X=X, y=y, candidates=candidates, pool=pool, classifier=get_classifier(classifier),
                                  n_classes=problem.n_classes, rng=np.random.default_rng(1))
                    return get_strategy("BMRI").scores(ctx)

                step()  # warm-up: compiles or loads what the first call needs
                scores, best = best_time(step, repeats, time.process_time)
                out[f"{name} {classifier} {X.shape[0]} {candidates.shape[0]}"] = {
                    "cpu": best, "scores": scores.tolist(), "pool": problem.max_pool_size}
    return out


def group_cases() -> list[tuple[str, str]]:
    """Every (data set of the group ``"small"``, paper classifier)."""
    from mri_theory.classifiers import CLASSIFIER_REGISTRY
    from mri_theory.problems import PROBLEM_REGISTRY

    return [(name, classifier) for name in PROBLEM_REGISTRY.tagged("group", "small")
            for classifier in CLASSIFIER_REGISTRY.tagged("origin", "paper")]


def hours(results: dict[str, dict]) -> dict[tuple[str, str], float]:
    """Estimated BMRI CPU-hours of the study (:data:`REPLICATES` replicates) per (set, classifier) measured."""
    steps: dict[tuple[str, str], list[float]] = {}
    pools = {}
    for key, result in results.items():
        name, classifier, *_ = key.split()
        steps.setdefault((name, classifier), []).append(result["cpu"])
        pools[name] = result["pool"]
    return {pair: float(np.mean(times)) * pools[pair[0]] * REPLICATES / 3600 for pair, times in steps.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--baseline", metavar="DIR", help="a checkout of an earlier commit to compare with")
    parser.add_argument("--group", action="store_true", help="every set of the group 'small' x the paper's six")
    parser.add_argument("--cases", nargs="+", metavar="SET:CLASSIFIER", help="these (data set, classifier) pairs")
    parser.add_argument("--json", metavar="SET:CLASSIFIER", help=argparse.SUPPRESS)  # the baseline's subprocess
    args = parser.parse_args(argv)
    if args.json:
        print(json.dumps(measure(args.repeats, [tuple(args.json.split(":"))])))
        return 0
    cases = (group_cases() if args.group else [tuple(case.split(":")) for case in args.cases] if args.cases
             else list(HOT))
    here, base = {}, ({} if args.baseline else None)
    for name, classifier in cases:  # the two checkouts in turn, case by case: under the same load
        here.update(measure(args.repeats, [(name, classifier)]))
        if args.baseline:
            env = {**os.environ, "PYTHONPATH": os.path.abspath(args.baseline)}
            done = subprocess.run([sys.executable, os.path.abspath(__file__), "--json", f"{name}:{classifier}",
                                   "--repeats", str(args.repeats)],
                                  capture_output=True, text=True, env=env, check=True, cwd=args.baseline)
            base.update(json.loads(done.stdout))
    print(f"one BMRI step (25 resamples), real data, CPU seconds, best of {args.repeats}"
          + (f"; baseline: {args.baseline}" if base else ""))
    header = f"{'set':<11} {'classifier':<10} {'|D_S|':>5} {'cands':>5} {'this (s)':>9}" + (
        f" {'baseline (s)':>12} {'ratio':>6} {'max|diff|':>9}" if base else "")
    print(header)
    print("-" * len(header))
    failed = False
    for key, result in here.items():
        name, classifier, n, m = key.split()
        line = f"{name:<11} {classifier:<10} {n:>5} {m:>5} {result['cpu']:>9.3f}"
        if base:
            other = base[key]
            diff = float(np.max(np.abs(np.array(result["scores"]) - np.array(other["scores"]))))
            failed |= diff > 0.0
            line += f" {other['cpu']:>12.3f} {other['cpu'] / result['cpu']:>6.2f} {diff:>9.1e}"
        print(line)
    print()
    after = hours(here)
    before = hours(base) if base else None
    print(f"estimated BMRI CPU-hours of the study ({REPLICATES} replicates, pool labelled to exhaustion)")
    for pair, value in after.items():
        print(f"{pair[0]:<11} {pair[1]:<10} {value:>8.2f} h" + (
            f"   baseline {before[pair]:>8.2f} h   ratio {before[pair] / value:>6.2f}" if before else ""))
    total = sum(after.values())
    print(f"{'total':<22} {total:>8.2f} h" + (
        f"   baseline {sum(before.values()):>8.2f} h   ratio {sum(before.values()) / total:>6.2f}" if before else ""))
    return int(failed)


if __name__ == "__main__":
    sys.exit(main())
