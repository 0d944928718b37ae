r"""Benchmark: the SVM's exact truth (:mod:`mri_theory.engine.kernel_rules`) against the raced sampled truth.

What is measured: the SVM's MRI-best step of the study, 100 candidates at ``|D_S|`` = 60 and 200 on each abstract
problem (``--replicates`` states each), decided two ways on the same states, in the same run:

* *raced* (today's study): :func:`~mri_theory.engine.targets.decisive_q_c` capped at the curve's
  ``CURVE_DOUBLINGS``, as a learning curve races its states;
* *exact, per rule*: every candidate's :math:`Q^c` with the current and retrained models' error rates integrated
  exactly, each retrained model on its own (the fitted model's :meth:`~mri_theory.classifiers.SVM.exact_loss`
  and the retrained machines of the solution path as kernel rules,
  :func:`~mri_theory.engine.kernel_rules.kernel_losses`), the posterior of the candidates from the problem;
* *exact, family*: the same with the retrained models integrated as one family
  (:func:`~mri_theory.engine.kernel_rules.kernel_losses_family`, what
  :meth:`~mri_theory.classifiers.SVM._exact_future_losses` does); its largest difference from the per-rule
  values is printed.

Printed per problem and size: CPU seconds of this process (``time.process_time``, one BLAS thread, as a study's
worker runs) of each, their ratios to the race (exact / raced), the race's resolved fraction, and whether the race
chose an exact best candidate (the exact values within the tie tolerance of their maximum) and the race's choice's
exact shortfall relative to the spread of :math:`Q^c` (the mean shortfall of a random choice).  The numba compilation is
done before timing (one exact step on a small state).

With ``--curves``: whole learning curves instead, one SVM MRI-best curve per problem (replicate 0 of the study's
``paper`` preset: the pool labelled to exhaustion, 100 candidates per step), run by ``bench_study_cost.py``'s
``curve_cost`` (one BLAS thread) with ``truth="sampled"`` (the race, as the study ran the SVM before its exact
truth) and ``truth="exact"``; printed: the CPU seconds of each curve and their ratio (exact / raced).
The curve's losses are part of its cost: the sampled population's against the exact ones.

Run: ``python benchmarks/bench_svm_exact.py [--replicates 2] [--sizes 60 200] [--seed 0]`` (a minute on one core);
``python benchmarks/bench_svm_exact.py --curves`` (about ten minutes).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import numpy as np
from bench_decisive_truth import PROBLEMS, labelled_state  # sibling scripts: benchmarks/ is on the path
from bench_study_cost import curve_cost
from threadpoolctl import threadpool_limits

from mri_theory._utils.ties import near_maximum
from mri_theory.classifiers import SVM
from mri_theory.classifiers.svm import _kernel_rules, _machine_classes
from mri_theory.engine import MixtureTruth, kernel_losses
from mri_theory.engine.targets import decisive_q_c
from mri_theory.problems import get_problem
from mri_theory.runners import _curves


def per_rule_future_losses(model: SVM, candidates: np.ndarray, truth: MixtureTruth) -> np.ndarray:
    """The retrained models' error rates ``(m, k)``, each integrated on its own (the path before the family)."""
    k, m = model.n_classes_, candidates.shape[0]
    machines = model._retrained_machines(candidates)
    points = np.concatenate([np.broadcast_to(model._points, (m,) + model._points.shape), candidates[:, None]],
                            axis=1)
    out = np.empty((m, k))
    for j in range(k):
        present = np.union1d(model.classes_present_, [j])
        cols = [machines.types.index((int(c), 1 if c == j else -1)) for c in _machine_classes(present)]
        S, c, mask = _kernel_rules(k, present, machines.dual_coef[:, cols], machines.intercept[:, cols],
                                   machines.sigmoids[:, cols])
        out[:, j] = kernel_losses(truth, points, S, c, model.gamma_, mask).loss
    return out


def exact_q_c(problem, X, y, candidates, family: bool = True) -> np.ndarray:
    """Every candidate's exact :math:`Q^c` (Eq. eqc) with the error loss: the retrained models as one family
    (:meth:`~mri_theory.classifiers.SVM._exact_future_losses`) or each on its own."""
    truth = MixtureTruth.from_problem(problem)
    model = SVM().fit(X, y, problem.n_classes)
    if family:
        future = model._exact_future_losses(candidates, truth, "error")
    else:
        future = per_rule_future_losses(model, candidates, truth)
    return model.exact_loss(truth, "error") - np.sum(problem.posterior(candidates) * future, axis=1)


def curves(problems: Sequence[str]) -> None:
    """Whole curves, raced and exact, per problem (module notes)."""
    print("The SVM's MRI-best learning curve (paper preset, replicate 0); CPU seconds, one BLAS thread")
    print(f"{'problem':14s} {'raced (s)':>10s} {'exact (s)':>10s} {'ratio':>6s}")
    totals = np.zeros(2)
    for name in problems:
        clock = np.array([curve_cost(name, "svm", "MRI-best", truth)[2] for truth in ("sampled", "exact")])
        totals += clock
        print(f"{name:14s} {clock[0]:10.1f} {clock[1]:10.1f} {clock[1] / clock[0]:6.2f}", flush=True)
    print(f"{'all':14s} {totals[0]:10.1f} {totals[1]:10.1f} {totals[1] / totals[0]:6.2f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicates", type=int, default=2)
    parser.add_argument("--sizes", type=int, nargs="+", default=[60, 200])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--curves", action="store_true", help="whole learning curves instead of steps")
    args = parser.parse_args(argv)
    warm = get_problem("four-gaussian")
    for family in (True, False):  # compile outside the timings
        exact_q_c(warm, *labelled_state(warm, 10, 3, np.random.default_rng(0)), family=family)
    if args.curves:
        curves(PROBLEMS)
        return 0
    print("The SVM's MRI-best step, 100 candidates; CPU seconds, one BLAS thread; raced = decisive_q_c capped at "
          f"2^{_curves.CURVE_DOUBLINGS} (a curve's race)")
    print(f"{'problem':14s} {'|D_S|':>5s} {'raced (s)':>10s} {'per rule (s)':>12s} {'ratio':>6s} {'family (s)':>10s} "
          f"{'ratio':>6s} {'max |diff|':>10s} {'resolved':>8s} {'race chose an exact best':>25s} "
          f"{'its shortfall / spread':>23s}")
    totals = np.zeros(3)
    with threadpool_limits(1):
        for n in args.sizes:
            for name in PROBLEMS:
                problem = get_problem(name)
                clock = np.zeros(3)
                resolved, agreed, shortfall, diff = [], [], [], 0.0
                for r in range(args.replicates):
                    rng = np.random.default_rng(np.random.SeedSequence(args.seed, spawn_key=(n, r)))
                    X, y, candidates = labelled_state(problem, n, 100, rng)
                    start = time.process_time()
                    raced = decisive_q_c(problem, SVM(), X, y, candidates, doublings=_curves.CURVE_DOUBLINGS,
                                         seed=np.random.SeedSequence(args.seed, spawn_key=(n, r, 4)))
                    clock[0] += time.process_time() - start
                    start = time.process_time()
                    single = exact_q_c(problem, X, y, candidates, family=False)
                    clock[1] += time.process_time() - start
                    start = time.process_time()
                    q = exact_q_c(problem, X, y, candidates)
                    clock[2] += time.process_time() - start
                    diff = max(diff, float(np.max(np.abs(q - single))))
                    resolved.append(raced.resolved)
                    agreed.append(bool(near_maximum(q)[raced.chosen]))
                    shortfall.append((q.max() - q[raced.chosen]) / np.mean(q.max() - q))
                totals += clock
                print(f"{name:14s} {n:5d} {clock[0]:10.2f} {clock[1]:12.2f} {clock[1] / clock[0]:6.2f} "
                      f"{clock[2]:10.2f} {clock[2] / clock[0]:6.2f} {diff:10.1e} {np.mean(resolved):8.2f} "
                      f"{np.mean(agreed):25.2f} {np.mean(shortfall):23.4f}")
    print(f"{'all':14s} {'':5s} {totals[0]:10.2f} {totals[1]:12.2f} {totals[1] / totals[0]:6.2f} {totals[2]:10.2f} "
          f"{totals[2] / totals[0]:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
