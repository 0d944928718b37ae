r"""Benchmark: the cost of one AL step for each of the paper's six classifiers, and of a whole curve.

What is measured
----------------
Four-Gaussian, one state per labelled-set size ``|D_S|`` in ``--sizes``
(default 10, 60, 130, 250), 100 candidates (the sandbox's sub-sample of the
costly methods), a QMC population of ``10^4`` points with exact posteriors.
For each paper classifier (``lda``, ``qda``, ``kknn5``, ``nb``, ``logreg``,
``svm``; Appendix C) and each of the paper's seven methods (RS, SE, QbcV,
QbcA, EfeLc, SMRI, BMRI with ``n_b = 25``), the wall-clock time of one
``select`` on a fresh context (base fit included), and the time of the true
:math:`Q^c` the sandbox records at every step (``true_q_c_and_loss`` on the
same 100 candidates).

Projection
----------
A pool-exhausting curve with pool 250 starts from 2 labelled points and takes
250 steps; at step ``t`` there are ``2 + t`` labelled points and ``250 - t``
pool points, of which the costly methods (EfeLc, SMRI, BMRI) score
``min(100, 250 - t)`` and the others all.  The per-step times are
interpolated linearly in ``|D_S|`` between the measured sizes and scaled
linearly with the number of candidates (the engines are linear in it); the
projected curve time is their sum over the steps, with and without recording
the true :math:`Q^c` at every step (the sandbox's ``record_q_c``).  This is an
estimate (stated as such); the study runner's own wall time is the measurement.

Run: ``python benchmarks/bench_paper_classifiers.py [--seed 0] [--sizes 10 60 130 250] [--n-b 25]``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from functools import partial

import numpy as np
from _setting import four_gaussian_setting

from mri_theory.classifiers import get_classifier
from mri_theory.engine import true_q_c_and_loss
from mri_theory.strategies import Context, get_strategy, select

CLASSIFIERS = ("lda", "qda", "kknn5", "nb", "logreg", "svm")
METHODS = ("RS", "SE", "QbcV", "QbcA", "EfeLc", "SMRI", "BMRI")
POOL, CANDIDATES, POPULATION = 250, 100, 10_000


def step_time(fn) -> float:
    """Wall-clock seconds of one call."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def projected_curve(sizes: np.ndarray, per_step: np.ndarray, costly: bool) -> float:
    """Sum over the 250 steps of the interpolated per-step time, scaled by the number of candidates."""
    total = 0.0
    for t in range(POOL):
        scored = min(CANDIDATES, POOL - t) if costly else POOL - t
        total += np.interp(2 + t, sizes, per_step) * scored / CANDIDATES
    return total


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 60, 130, 250])
    parser.add_argument("--n-b", type=int, default=25)
    args = parser.parse_args(argv)
    sizes = np.array(sorted(args.sizes))
    states = {n: four_gaussian_setting(args.seed, int(n), POOL, POPULATION, method="qmc") for n in sizes}
    print(f"Four-Gaussian, 100 candidates, population 10^4, |D_S| in {sizes.tolist()}, BMRI n_b = {args.n_b}")
    print("seconds per step at each |D_S| (base fit included), then the projected pool-250 curve\n")
    rows = []
    for clf_name in CLASSIFIERS:
        clf = get_classifier(clf_name)
        times: dict[str, list[float]] = {m: [] for m in METHODS + ("true Q^c",)}
        for n in sizes:
            problem, X_S, y_S, pool, population = states[n]
            candidates = pool[:CANDIDATES]
            for method in METHODS:
                strategy = get_strategy(method, **({"n_b": args.n_b} if method == "BMRI" else {}))
                ctx = Context(X_S, y_S, candidates, pool, clf, problem.n_classes, np.random.default_rng(args.seed))
                times[method].append(step_time(partial(select, strategy, ctx)))
            times["true Q^c"].append(step_time(
                partial(true_q_c_and_loss, problem, clf, X_S, y_S, candidates, population)))
        record = projected_curve(sizes, np.array(times["true Q^c"]), costly=False)
        curves = {m: projected_curve(sizes, np.array(times[m]), get_strategy(m).costly) for m in METHODS}
        for label, values in times.items():
            print(f"{clf_name:7s} {label:9s} " + " ".join(f"{v:9.4f}" for v in values))
        all_methods = sum(curves.values())
        print(f"{clf_name:7s} projected curve (pool 250): SMRI {curves['SMRI']:.0f} s, BMRI {curves['BMRI']:.0f} s, "
              f"7 methods {all_methods:.0f} s; recording true Q^c adds {record:.0f} s per curve\n")
        rows.append((clf_name, times["SMRI"][1 if len(sizes) > 1 else 0], times["BMRI"][1 if len(sizes) > 1 else 0],
                     times["true Q^c"][1 if len(sizes) > 1 else 0], curves["SMRI"], curves["BMRI"], all_methods,
                     record))
    mid = sizes[1] if len(sizes) > 1 else sizes[0]
    print(f"| classifier | SMRI step | BMRI step | true Q^c step | curve: SMRI | curve: BMRI | curve: 7 methods | "
          f"+ true Q^c per curve |   (steps at |D_S| = {mid})")
    print("|---|---|---|---|---|---|---|---|")
    for name, smri, bmri, tq, c_smri, c_bmri, c_all, rec in rows:
        print(f"| {name} | {smri:.3f} s | {bmri:.2f} s | {tq:.3f} s | {c_smri / 60:.1f} min | {c_bmri / 60:.1f} min | "
              f"{c_all / 60:.1f} min | {rec / 60:.1f} min |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
