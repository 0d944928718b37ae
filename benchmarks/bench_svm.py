r"""Benchmark: the SVM's exact fast path against refitting the same model (Four-Gaussian).

What is measured
----------------
Setting: Four-Gaussian, ``|D_S| = 60``, 100 candidates, a
population of ``10^4`` points with exact posteriors.  For each loss,
:func:`mri_theory.engine.retraining.future_losses` with ``method="auto"`` (the fast
path of :class:`mri_theory.classifiers.svm.SVM`: only margin violators are
re-solved, warm-started, all retrained models scored in batches) against
``method="refit"`` (the same SVM refitted from scratch per (candidate,
label)): both times, the ratio and the largest difference (tolerance 1e-8).
Also printed: the fraction of (candidate, machine) pairs that violate the
margin (re-solved) and of (candidate, label) models whose decision function
is kept exactly, and, for context, one SMRI step (population = the 60
labelled points) and the refit time of the old scikit-learn wrapper
(``sklearn_models.SVM``, ``SVC`` + Platt, same ``C`` and ``gamma``) if it is
still in the package.  ``--platt cv``: the same for ``SVM(platt="cv")`` (e1071's out-of-fold sigmoids), whose fast
path re-solves the four fold machines that gain the candidate as well.

Run: ``python benchmarks/bench_svm.py [--seed 0] [--repeats 3] [--platt train|cv]``
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np
from _setting import best_time, four_gaussian_setting

from mri_theory.classifiers import SVM
from mri_theory.classifiers.svm import PLATT_FITS, _machine_classes
from mri_theory.engine import Population, fit_on, future_losses

TOLERANCE = 1e-8



def old_wrapper():
    """The scikit-learn wrapper that preceded this SVM, if the package still has it."""
    try:
        from mri_theory.classifiers.sklearn_models import SVM as SklearnSVM
    except ImportError:
        return None
    return SklearnSVM


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the table, return the exit status (0 ok, 1 mismatch)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="fast path: best of this many runs")
    parser.add_argument("--platt", choices=PLATT_FITS, default="train", help="the SVM's Platt fit")
    args = parser.parse_args(argv)

    problem, X_S, y_S, candidates, population = four_gaussian_setting(args.seed, 60, 100, 10**4)
    svm = SVM(platt=args.platt)
    print(f"Four-Gaussian, |D_S| = 60, 100 candidates, population 10^4 (exact posteriors); {svm!r}, gamma = 1/d")
    if args.platt == "cv":
        print(f"fast path for platt='cv' at this state: {fit_on(svm, X_S, y_S, population)._cv_fast_path()}")
    print()

    model = fit_on(svm, X_S, y_S, population)
    machines = model._retrained_machines(candidates)
    print(f"(candidate, machine) pairs re-solved (margin violators): {machines.solved.mean():.1%} "
          f"of {machines.solved.size}")
    kept = np.ones((candidates.shape[0], problem.n_classes), dtype=bool)
    for j in range(problem.n_classes):
        for c in _machine_classes(np.union1d(model.classes_present_, [j])):
            kept[:, j] &= ~machines.solved[:, machines.types.index((int(c), 1 if c == j else -1))]
    print(f"(candidate, label) models whose decision function is kept exactly: {kept.mean():.1%}\n")

    header = f"{'setting':<26} {'fast (s)':>9} {'refit (s)':>10} {'ratio':>7} {'max|diff|':>10}"
    print(header)
    print("-" * len(header))
    failed = False
    smri = Population.from_labels(X_S, y_S, problem.n_classes)
    cases = [(f"population 10^4, {loss}", population, loss) for loss in ("error", "log", "lc")]
    cases.append(("SMRI step (pop = D_S), error", smri, "error"))
    for label, pop, loss in cases:
        fast, t_fast = best_time(lambda p=pop, lo=loss: future_losses(svm, X_S, y_S, candidates, p, lo),
                                 args.repeats)
        slow, t_slow = best_time(lambda p=pop, lo=loss: future_losses(svm, X_S, y_S, candidates, p, lo,
                                                                     method="refit"), 1)
        diff = float(np.max(np.abs(fast - slow)))
        ok = diff <= TOLERANCE
        failed |= not ok
        print(f"{label:<26} {t_fast:9.3f} {t_slow:10.2f} {t_slow / t_fast:7.1f} {diff:10.1e}"
              f"{'' if ok else '  FAIL'}")

    SklearnSVM = old_wrapper()
    if SklearnSVM is not None and args.platt == "train":
        old = SklearnSVM(C=svm.C, gamma=model.gamma_)
        for label, pop in (("population 10^4", population), ("SMRI step (pop = D_S)", smri)):
            _, t_old = best_time(lambda p=pop: future_losses(old, X_S, y_S, candidates, p, "error"), 1)
            print(f"old sklearn wrapper refit, {label}, error: {t_old:.2f} s (a different model: "
                  "libsvm's one-vs-one decision values, two sigmoids in the binary case)")
    print(f"\nratio = refit / fast; tolerance on max|diff| = {TOLERANCE:.0e}")
    if failed:
        print(f"FAIL: a difference exceeds {TOLERANCE}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
