r"""Benchmark and survey: the exact optimal AL policy on the two-Gaussian example (§3.2).

What is measured (``python benchmarks/bench_nonmyopic.py``)
-----------------------------------------------------------
For ``TwoGaussians()`` and ``MeanClassifier((-0.5, 1.5), (2, 2))`` (case 1 of
the paper's θ̂ with ``n = (2, 2)``), a pool of ``m`` i.i.d. points drawn with
``np.random.default_rng(seed)``:

1. **Vectorised**: wall-clock time of
   :func:`mri_theory.analytic.nonmyopic.optimal_policy` (building every state of the
   tree, closed-form losses, the bottom-up expectimax), best of ``--repeats``.
2. **Naive**: a plain-Python expectimax, recursive and memoised by the *set*
   of labelled ``(index, label)`` pairs (a ``frozenset`` key in an
   ``lru_cache``), each loss the scalar closed form (Eq. ``le_equation_1``,
   with :func:`math.erfc`), timed once.
3. The ratio naive / vectorised and ``|difference|`` of the two optimal
   values (the script exits with status 1 above ``1e-12``).

Sizes: ``(m, h)`` = (14, 4), (16, 5) and (20, 6) by default; the naive
recursion is skipped above ``--naive-max-states`` states (default 4 million,
so it runs everywhere by default: about a minute at (20, 6)).

The survey (``python benchmarks/bench_nonmyopic.py --survey``)
--------------------------------------------------------------
The largest gap between greedy MRI-best and the optimal policy, ``V_greedy -
V_optimal`` (expected error after ``h`` labels), for ``h = 1..--max-horizon``
(default 6):

* the paper's four θ̂ (:data:`~mri_theory.analytic.two_gaussians.PAPER_CASES`) with
  ``n = (2, 2)`` and with the paper's ``n = (9, 9)``, each on one pool of
  ``--pool`` (default 14) i.i.d. points drawn from ``default_rng(seed)``;
* ``--states`` (default 200) random states from
  :func:`~mri_theory.analytic.nonmyopic.sample_state`: ``n_1, n_2`` uniform on
  ``1..5``, ``D_S`` sampled with those counts, the fitted θ̂, and a pool of
  ``--pool`` i.i.d. points, all from ``default_rng(seed + 1)``; ``h = 1..6``
  for these (``--random-horizon``);
* the inverted case θ̂ = (1, -1) with ``n = (2, 2)`` at ``h = 4`` on
  ``--pools`` (default 100) pools of ``--pool`` points from
  ``default_rng(seed + 2)`` (the gap depends on the pool).

How to run
----------
::

    python benchmarks/bench_nonmyopic.py                # timing table, seed 0
    python benchmarks/bench_nonmyopic.py --survey       # gap survey, seed 0
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
import time
from collections.abc import Sequence

import numpy as np

from mri_theory.analytic import (
    PAPER_CASES,
    MeanClassifier,
    TwoGaussians,
    optimal_policy,
    sample_state,
    value_curves,
)

#: Largest acceptable difference between the vectorised and the naive optimal value.
TOLERANCE = 1e-12
SIZES = ((14, 4), (16, 5), (20, 6))


def naive_optimal(problem: TwoGaussians, clf: MeanClassifier, pool: np.ndarray, horizon: int) -> float:
    """Plain-Python expectimax memoised by the set of labelled (index, label) pairs."""
    xs = [float(x) for x in pool]
    post = [tuple(float(v) for v in row) for row in problem.posterior(pool)]
    (m1, m2), (n1, n2) = clf.mu_hat, clf.n
    mu1, mu2 = problem.mu
    sd, (pi1, pi2), lpr, var = problem.sigma, problem.prior, clf.log_prior_ratio, clf.sigma**2

    def phi(z: float) -> float:
        return 0.5 * math.erfc(-z / math.sqrt(2.0))

    def loss(state: frozenset) -> float:
        s1, c1, s2, c2 = n1 * m1, n1, n2 * m2, n2
        for i, j in state:
            if j == 0:
                s1, c1 = s1 + xs[i], c1 + 1
            else:
                s2, c2 = s2 + xs[i], c2 + 1
        a, b = s1 / c1, s2 / c2
        if a == b:
            return pi2 if lpr >= 0 else pi1
        t = 0.5 * (a + b) + var * lpr / (b - a)
        z1, z2 = (t - mu1) / sd, (t - mu2) / sd
        return pi1 * phi(-z1) + pi2 * phi(z2) if a < b else pi1 * phi(z1) + pi2 * phi(-z2)

    @functools.cache
    def value(state: frozenset, r: int) -> float:
        if r == 0:
            return loss(state)
        used = {i for i, _ in state}
        return min(post[x][0] * value(state | {(x, 0)}, r - 1) + post[x][1] * value(state | {(x, 1)}, r - 1)
                   for x in range(len(xs)) if x not in used)

    return value(frozenset(), horizon)


def timing(args: argparse.Namespace) -> int:
    problem = TwoGaussians()
    clf = MeanClassifier((-0.5, 1.5), (2, 2))
    print(f"TwoGaussians(), MeanClassifier((-0.5, 1.5), (2, 2)); pool ~ problem, seed {args.seed}; "
          f"vectorised best of {args.repeats}")
    header = f"{'pool':>4} {'h':>2} {'states':>10} {'vectorised (s)':>15} {'naive (s)':>10} {'ratio':>7} {'|diff|':>8}"
    print(header)
    print("-" * len(header))
    failed = False
    for m, h in SIZES:
        pool = problem.sample(m, np.random.default_rng(args.seed))[0]
        best, res = math.inf, None
        for _ in range(args.repeats):
            start = time.perf_counter()
            res = optimal_policy(problem, clf, pool, h)
            best = min(best, time.perf_counter() - start)
        states = sum(res.n_states)
        if states > args.naive_max_states:
            print(f"{m:>4} {h:>2} {states:>10,} {best:>15.3f} {'skipped':>10}")
            continue
        start = time.perf_counter()
        naive = naive_optimal(problem, clf, pool, h)
        t_naive = time.perf_counter() - start
        diff = abs(naive - res.value)
        failed |= not diff <= TOLERANCE
        print(f"{m:>4} {h:>2} {states:>10,} {best:>15.3f} {t_naive:>10.2f} {t_naive / best:>7.0f} {diff:>8.1e}"
              f"{'' if diff <= TOLERANCE else '  FAIL'}")
    print(f"states = all depths 0..h (C(m, d) 2^d each); tolerance on |diff| = {TOLERANCE:.0e}")
    return 1 if failed else 0


def survey(args: argparse.Namespace) -> int:
    problem = TwoGaussians()
    policies = ("optimal", "greedy")
    start = time.perf_counter()
    pool = problem.sample(args.pool, np.random.default_rng(args.seed))[0]
    print(f"Paper cases, one pool of {args.pool} (seed {args.seed}), h = 1..{args.max_horizon}: "
          f"greedy - optimal expected error")
    for n in ((2, 2), (9, 9)):
        for name, case in PAPER_CASES.items():
            clf = MeanClassifier(case.mu_hat, n)
            curves = value_curves(problem, clf, pool, args.max_horizon, policies)
            gap = curves["greedy"] - curves["optimal"]
            h = int(np.argmax(gap)) + 1
            print(f"  n={n} {name:<22} max gap {gap.max():.3e} at h={h} "
                  f"(optimal {curves['optimal'][h - 1]:.4f}, greedy {curves['greedy'][h - 1]:.4f}); "
                  f"by h: {' '.join(f'{g:.1e}' for g in gap)}")
    t_cases = time.perf_counter() - start

    start = time.perf_counter()
    rng = np.random.default_rng(args.seed + 2)
    inverted = MeanClassifier(PAPER_CASES["inverted"].mu_hat, (2, 2))
    rows = []
    for _ in range(args.pools):
        curves = value_curves(problem, inverted, problem.sample(args.pool, rng)[0], 4, policies)
        rows.append((curves["greedy"][-1] - curves["optimal"][-1], curves["optimal"][-1], curves["greedy"][-1]))
    gap4, opt4, greedy4 = np.array(rows).T
    t_pools = time.perf_counter() - start
    i = int(np.argmax(gap4))
    print(f"\nInverted case, n=(2, 2), h=4, over {args.pools} pools of {args.pool} (seed {args.seed + 2}): gap "
          f"max {gap4[i]:.4f} (optimal {opt4[i]:.4f}, greedy {greedy4[i]:.4f}), "
          f"quartiles {' '.join(f'{q:.4f}' for q in np.quantile(gap4, [0.25, 0.5, 0.75]))}, "
          f"share >= 0.02: {np.mean(gap4 >= 0.02):.2f}")

    start = time.perf_counter()
    rng = np.random.default_rng(args.seed + 1)
    H = args.random_horizon
    gaps = np.empty((args.states, H))
    labels = []
    for s in range(args.states):
        n = tuple(int(v) for v in rng.integers(1, 6, size=2))
        clf, pool_s = sample_state(problem, n, args.pool, rng)
        curves = value_curves(problem, clf, pool_s, H, policies)
        gaps[s] = curves["greedy"] - curves["optimal"]
        labels.append((n, clf.mu_hat, curves["optimal"], curves["greedy"]))
    t_random = time.perf_counter() - start
    print(f"\n{args.states} random states (seed {args.seed + 1}; n_j uniform on 1..5, pool {args.pool}), "
          f"h = 1..{H}:")
    for h in range(H):
        g = gaps[:, h]
        print(f"  h={h + 1}: max {g.max():.3e}  median {np.median(g):.1e}  "
              f"share > 1e-4: {np.mean(g > 1e-4):.2f}  share > 1e-12: {np.mean(g > 1e-12):.2f}")
    s, h = np.unravel_index(np.argmax(gaps), gaps.shape)
    n, mu_hat, opt, gr = labels[s]
    print(f"  largest: state {s}, n={n}, theta_hat=({mu_hat[0]:.3f}, {mu_hat[1]:.3f}), h={h + 1}: "
          f"optimal {opt[h]:.4f} vs greedy {gr[h]:.4f}")
    print(f"\ntime: paper cases {t_cases:.1f} s, inverted-case pools {t_pools:.1f} s, "
          f"random states {t_random:.1f} s")
    return 0


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Exact optimal AL policy: timing against a naive DP, or the "
                                                 "greedy-vs-optimal survey.")
    parser.add_argument("--survey", action="store_true", help="run the greedy-vs-optimal gap survey")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument("--repeats", type=int, default=3, help="vectorised timing: best of (default 3)")
    parser.add_argument("--naive-max-states", type=int, default=4_000_000,
                        help="skip the naive DP above this many states (default 4e6)")
    parser.add_argument("--pool", type=int, default=14, help="survey: pool size (default 14)")
    parser.add_argument("--max-horizon", type=int, default=6, help="survey, paper cases: h = 1..this (default 6)")
    parser.add_argument("--states", type=int, default=200, help="survey: number of random states (default 200)")
    parser.add_argument("--random-horizon", type=int, default=6,
                        help="survey, random states: h = 1..this (default 6)")
    parser.add_argument("--pools", type=int, default=100,
                        help="survey: pools for the inverted case with n = (2, 2) at h = 4 (default 100)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    return survey(args) if args.survey else timing(args)


if __name__ == "__main__":
    sys.exit(main())
