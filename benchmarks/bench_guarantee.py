r"""Benchmark: vectorised selection simulation (§3.3) against a plain Python loop.

What is measured
----------------
* ``monte_carlo_selection_probability(delta=0.5, sigma=1, n_draws=10^6)``
  against the loop a user would write: for each draw, two scalar normal draws
  and a comparison (run on ``--n-naive`` draws, scaled to ``10^6``).
* ``simulate_selection(q, sigma=0.3, n_draws=10^6)`` for a pool of ``m = 20``
  against a loop that draws ``m`` errors and takes ``argmax`` per draw.

Both paths estimate the same quantities; the script prints the two estimates
and fails (exit 1) if they differ by more than 5 combined standard errors.

Run: ``python benchmarks/bench_guarantee.py [--n 1000000] [--n-naive 50000] [--seed 0]``
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence

import numpy as np

from mri_theory.analytic import (
    monte_carlo_selection_probability,
    simulate_selection,
)


def _naive_lambda(delta: float, sigma: float, n: int, rng: np.random.Generator) -> float:
    hits = 0
    for _ in range(n):
        hits += delta + rng.normal(0, sigma) > rng.normal(0, sigma)
    return hits / n


def _naive_pool(q: np.ndarray, sigma: float, n: int, rng: np.random.Generator) -> tuple[float, float]:
    chosen = np.empty(n)
    for i in range(n):
        chosen[i] = q[int(np.argmax(q + rng.normal(0, sigma, q.size)))]
    return float(chosen.mean()), float(chosen.std(ddof=1) / math.sqrt(n))


def _timed(fn, *args, repeats: int = 1):
    """Result of ``fn(*args)`` and the best wall-clock time of ``repeats`` calls."""
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - start)
    return out, best


def main(argv: Sequence[str] | None = None) -> int:
    """Run both comparisons and print a table; exit 1 on disagreement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--n-naive", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    q = np.sort(rng.uniform(0, 1, 20))

    (lam, lam_se), t_fast = _timed(monte_carlo_selection_probability, 0.5, 1.0, args.n, rng, repeats=3)
    lam_naive, t_naive = _timed(_naive_lambda, 0.5, 1.0, args.n_naive, rng)
    lam_naive_se = math.sqrt(lam_naive * (1 - lam_naive) / args.n_naive)
    sim, t_pool = _timed(simulate_selection, q, 0.3, args.n, rng, repeats=3)
    (pool_naive, pool_naive_se), t_pool_naive = _timed(_naive_pool, q, 0.3, args.n_naive, rng)

    scale = args.n / args.n_naive
    rows = [
        ("lambda, m = 2", t_fast, t_naive * scale, lam, lam_se, lam_naive, lam_naive_se),
        ("E[Q selected], m = 20", t_pool, t_pool_naive * scale, sim.expected_q, sim.standard_error,
         pool_naive, pool_naive_se),
    ]
    print(f"n = {args.n:,} draws (naive loop run on {args.n_naive:,} and scaled), seed {args.seed}")
    print(f"{'quantity':24s} {'vectorised (s)':>14s} {'naive (s)':>10s} {'ratio':>8s} "
          f"{'vectorised':>12s} {'naive':>12s}")
    ok = True
    for name, fast, slow, est, se, est_naive, se_naive in rows:
        agree = abs(est - est_naive) <= 5 * math.hypot(se, se_naive)
        ok &= agree
        print(f"{name:24s} {fast:14.3f} {slow:10.1f} {slow / fast:8.0f} "
              f"{est:12.5f} {est_naive:12.5f}{'' if agree else '  DISAGREE'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
