r"""Benchmark: the exact k-NN truth against the sampled truth it replaces (the paper's 5-NN, ``kknn5``).

What is measured
----------------
One MRI-best step of the study: the true :math:`Q^c` of 100 candidates and the current loss, Four-Gaussian
(and Oscillating), ``|D_S| = 60`` and ``200``, error loss, in the same run:

1. **Exact step**: :func:`mri_theory.engine.targets.true_q_c_and_loss` on
   :meth:`Population.exact(problem) <mri_theory.engine.population.Population.exact>` (the partition of the
   plane by the ordered neighbours, the local change of every candidate, closed forms).
2. **Sampled step with its resolution check** (what ``truth="auto"`` did for kknn5 before the exact path):
   the same on a scrambled-Sobol' population of ``10^4`` points, then
   :func:`~mri_theory.engine.targets.choice_is_resolved` judging the argmax against the runner-up on 8
   independent scrambles of ``10^4`` points in all.
3. **The current loss alone** (every strategy's learning curve records it at every step): exact against the
   ``10^4``-point population.

The ratio sampled / exact is printed for each (goal: at least 1 for the step, i.e. the exact step is not
slower); so is the median over candidates of the difference between the exact :math:`Q^c` and the sampled
one, in units of the sampled one's standard error over 8 scrambles of ``10^4`` points (about 0.67 if the two
agree; candidates with the same :math:`Q^c` on every scramble, which change nothing, are left out).  Not the
largest: late in a curve a candidate's region of influence is so small that few or no sampled points fall in
it, and its sampled standard error is then meaningless (such a candidate was 745 "SE" off at ``|D_S| = 200``,
while 2 million points agreed with the exact value within 1.2 SE).

Timing: best of ``--repeats`` calls (default 5), one core.

Run: ``python benchmarks/bench_knn_exact.py [--seed 0] [--repeats 5]`` (about 30 s).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from functools import partial

import numpy as np
from _setting import best_time, labelled_state

from mri_theory.classifiers import get_classifier
from mri_theory.engine import Population, choice_is_resolved, sampled_q_c, true_q_c_and_loss
from mri_theory.problems import get_problem

N_CANDIDATES, POPULATION_SIZE = 100, 10_000


def _sampled_step(problem, clf, X, y, candidates, population):
    """The sampled truth's MRI-best step: Q^c on the population, then the argmax judged against the runner-up."""
    _, q = true_q_c_and_loss(problem, clf, X, y, candidates, population)
    order = np.argsort(-q, kind="stable")
    return choice_is_resolved(problem, clf, X, y, candidates[order[0]], candidates[order[1]], POPULATION_SIZE,
                              rng=np.random.default_rng(1))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)

    clf = get_classifier("kknn5")
    print(f"kknn5, {N_CANDIDATES} candidates, error loss; sampled: {POPULATION_SIZE:,d} QMC points + the resolution "
          f"check (8 scrambles, {POPULATION_SIZE:,d} points)\n")
    print(f"{'problem':14s} {'|D_S|':>5s} {'exact step':>11s} {'sampled step':>13s} {'ratio':>6s} "
          f"{'exact loss':>11s} {'sampled loss':>13s} {'ratio':>6s} {'med |z|':>8s}")
    for name in ("four-gaussian", "oscillating"):
        problem = get_problem(name)
        exact = Population.exact(problem)
        for n_train in (60, 200):
            X, y, candidates, rng = labelled_state(problem, n_train, N_CANDIDATES, args.seed)
            population = Population.from_problem(problem, POPULATION_SIZE, rng, method="qmc")

            (_, q_exact), t_exact = best_time(partial(true_q_c_and_loss, problem, clf, X, y, candidates, exact),
                                              args.repeats)
            _, t_sampled = best_time(partial(_sampled_step, problem, clf, X, y, candidates, population), args.repeats)
            model = clf.clone().fit(X, y, problem.n_classes)
            _, t_loss_exact = best_time(partial(exact.loss, model), args.repeats)
            _, t_loss_sampled = best_time(partial(population.loss, model), args.repeats)
            reference = sampled_q_c(problem, clf, X, y, candidates, 8 * POPULATION_SIZE, 8,
                                    rng=np.random.default_rng(2))
            noisy = reference.se > 1e-12  # candidates that change nothing have the same Q^c on every scramble
            z = np.abs(q_exact - reference.q_c)[noisy] / reference.se[noisy]
            print(f"{name:14s} {n_train:5d} {t_exact * 1e3:8.1f} ms {t_sampled * 1e3:10.1f} ms "
                  f"{t_sampled / t_exact:5.2f}x {t_loss_exact * 1e3:8.2f} ms {t_loss_sampled * 1e3:10.2f} ms "
                  f"{t_loss_sampled / t_loss_exact:5.2f}x {np.median(z):8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
