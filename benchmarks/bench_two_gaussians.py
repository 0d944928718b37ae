r"""Benchmark: closed-form ``Q^c`` against the quadrature reference (two-Gaussian example, §3.2).

What is measured
----------------
For the problem ``TwoGaussians()`` (``mu = (-1, 1)``, ``sigma = 1``, equal
priors) and each of the paper's four classifier cases
(:data:`mri_theory.analytic.two_gaussians.PAPER_CASES`; case 1 is
``MeanClassifier((-0.5, 1.5), (9, 9))``):

1. ``n`` candidate points (default ``10^6``) are drawn once with
   ``problem.sample(n, np.random.default_rng(seed))``; the same points are used
   for every case.
2. **Closed form**: the wall-clock time of one vectorised call
   ``q_c(problem, clf, x)`` on all ``n`` points, best of ``--repeats`` runs
   (:func:`time.perf_counter`).
3. **Quadrature**: :func:`mri_theory.analytic.quadrature.q_c_quad` (retrain with each
   label, integrate the misclassified density with :func:`scipy.integrate.quad`)
   is called point by point on a random subsample of ``n_quad`` of those points
   (without replacement, drawn from the same generator).  Its total time is
   scaled to ``n`` points as ``(time / n_quad) * n``; that is an *estimate*,
   since the quadrature path was not run on all ``n`` points.
4. **Ratio** = scaled quadrature time / closed-form time.
5. **Agreement**: ``max |q_c - q_c_quad|`` over the subsample, using the
   closed-form values from the timed call.  The script exits with status 1 if
   it exceeds ``1e-10`` (or is not finite) for any case; the expected size is
   ~1e-16.

Timings depend on the machine and its load; the ratio is the headline number.

How to run
----------
::

    python benchmarks/bench_two_gaussians.py                  # n = 10^6, n_quad = 200, seed 0
    python benchmarks/bench_two_gaussians.py --n 100000 --n-quad 50 --seed 1 --repeats 5

With the defaults the whole run takes under a minute; almost all of it is the
quadrature (about 35-50 ms per point, so 7-10 s per case, on the test machine).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence

import numpy as np

from mri_theory.analytic import PAPER_CASES, MeanClassifier, TwoGaussians, q_c, q_c_quad

#: Largest acceptable ``max |q_c - q_c_quad|`` on the subsample.
TOLERANCE = 1e-10


def _positive_int(text: str) -> int:
    """argparse type: an integer ``>= 1``."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        description="Time the closed-form Q^c against the quadrature reference q_c_quad."
    )
    parser.add_argument("--n", type=_positive_int, default=1_000_000,
                        help="number of candidate points for the closed form (default 10^6)")
    parser.add_argument("--n-quad", type=_positive_int, default=200,
                        help="size of the subsample evaluated by quadrature (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="seed of np.random.default_rng (default 0)")
    parser.add_argument("--repeats", type=_positive_int, default=3,
                        help="closed-form timing is the best of this many runs (default 3)")
    args = parser.parse_args(argv)
    if args.n_quad > args.n:
        parser.error(f"--n-quad ({args.n_quad}) must not exceed --n ({args.n})")
    return args


def time_closed_form(
    problem: TwoGaussians, clf: MeanClassifier, x: np.ndarray, repeats: int
) -> tuple[float, np.ndarray]:
    """Best-of-``repeats`` time of ``q_c`` on all of ``x``, and its values."""
    best = math.inf
    values = np.empty(0)
    for _ in range(repeats):
        start = time.perf_counter()
        values = q_c(problem, clf, x)
        best = min(best, time.perf_counter() - start)
    return best, values


def time_quadrature(
    problem: TwoGaussians, clf: MeanClassifier, x_sub: np.ndarray
) -> tuple[float, np.ndarray]:
    """Total time of ``q_c_quad`` called point by point on ``x_sub``, and its values."""
    start = time.perf_counter()
    values = np.array([q_c_quad(problem, clf, float(xi)) for xi in x_sub])
    return time.perf_counter() - start, values


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the table, return the exit status (0 ok, 1 mismatch)."""
    args = parse_args(argv)
    problem = TwoGaussians()
    rng = np.random.default_rng(args.seed)
    x, _ = problem.sample(args.n, rng)
    sub = rng.choice(args.n, size=args.n_quad, replace=False)
    x_sub = x[sub]

    print(f"TwoGaussians{problem.mu, problem.sigma, problem.prior}: "
          f"n = {args.n:,}, n_quad = {args.n_quad}, seed = {args.seed}, "
          f"closed form best of {args.repeats}")
    header = (f"{'case':<32} {'mu_hat':>13} {'closed (ms)':>12} {'quad/pt (ms)':>13} "
              f"{'quad@n (s)':>11} {'ratio':>9} {'max|diff|':>10}")
    print(header)
    print("-" * len(header))

    failed: list[str] = []
    for k, (name, clf) in enumerate(PAPER_CASES.items(), start=1):
        t_closed, q_closed = time_closed_form(problem, clf, x, args.repeats)
        t_quad, q_ref = time_quadrature(problem, clf, x_sub)
        per_point = t_quad / args.n_quad
        t_quad_scaled = per_point * args.n
        diff = float(np.max(np.abs(q_closed[sub] - q_ref)))
        ok = math.isfinite(diff) and diff <= TOLERANCE
        if not ok:
            failed.append(name)
        mu_hat = f"({clf.mu_hat[0]:g}, {clf.mu_hat[1]:g})"
        print(f"{f'{k}: {name}':<32} {mu_hat:>13} {t_closed * 1e3:>12.1f} {per_point * 1e3:>13.2f} "
              f"{t_quad_scaled:>11.0f} {t_quad_scaled / t_closed:>9.0f} {diff:>10.1e}"
              f"{'' if ok else '  FAIL'}")

    print(f"ratio = quad@n / closed; quad@n = quad/pt x n (quadrature run on {args.n_quad} points "
          f"only); tolerance on max|diff| = {TOLERANCE:.0e}")
    if failed:
        print(f"FAILED: closed form and quadrature disagree for {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
