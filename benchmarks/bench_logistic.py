r"""Benchmark: logistic regression's batched-Newton retraining path against refitting the same model.

What is measured
----------------
Setting: Four-Gaussian, ``|D_S| = 60``, 100 candidates, a
population of ``10^4`` points with exact posteriors.  For each loss,
:func:`mri_theory.engine.retraining.future_losses` with ``method="auto"`` (the fast
path: the 200 retrained models solved together by batched Newton, warm-started
from the current solution, scored in one population pass) against
``method="refit"`` (a fresh fit of the same model per (candidate, class),
scored one by one): best wall-clock time of each, the ratio, and the largest
difference (it must be below 1e-9).  For context, the refit time of the
scikit-learn wrapper that served as ``LogisticRegression`` before
(``SklearnClassifier(sklearn LogisticRegression(C_sk, max_iter=1000))``, lbfgs,
the matching binary penalty ``C_sk = 2 C``) and its largest difference from ours
(scikit-learn stops at its default tolerance 1e-4).

``--default-c`` prints the evidence behind the default ``C = 10`` instead:
for ``C`` from 1 to 2.5e7 (Weka's ridge 1e-8 is ``C = 2.5e7``; see the class
docstring) on the first step of an AL curve (two points, one per class), the
weight norm, the training-point probability, the Newton steps and the
condition number of the Hessian at the optimum; then, over 20 random training
sets of each size on Four-Gaussian and Three-Gaussians, the mean population
log loss and error rate, the most Newton steps, and the largest fast-vs-refit
difference of the future log losses.

Run: ``python benchmarks/bench_logistic.py [--seed 0] [--repeats 5] [--default-c]``
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np
from _setting import best_time, four_gaussian_setting
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from mri_theory.classifiers import LogisticRegression, SklearnClassifier
from mri_theory.engine import Population, future_losses
from mri_theory.problems import get_problem

TOLERANCE = 1e-9



def speed(seed: int, repeats: int) -> bool:
    """The fast path against the refit of the same model; returns whether all differences are within tolerance."""
    _, X_S, y_S, candidates, population = four_gaussian_setting(seed, 60, 100, 10_000)
    model = LogisticRegression()
    print(f"Four-Gaussian, |D_S| = 60, 100 candidates, population 10^4 (exact posteriors); {model!r}\n")
    print(f"{'loss':6s} {'fast (s)':>9s} {'refit (s)':>10s} {'ratio':>7s} {'max|diff|':>10s}")
    ok = True
    for loss in ("error", "log", "lc"):
        fast, t_fast = best_time(
            lambda loss=loss: future_losses(model, X_S, y_S, candidates, population, loss), repeats)
        slow, t_slow = best_time(
            lambda loss=loss: future_losses(model, X_S, y_S, candidates, population, loss, method="refit"), 2)
        diff = float(np.max(np.abs(fast - slow)))
        ok &= diff <= TOLERANCE
        print(f"{loss:6s} {t_fast:9.4f} {t_slow:10.3f} {t_slow / t_fast:6.0f}x {diff:10.1e}")
    C_sk = 2 * model.C  # binary: C_sk = 2 C (class docstring)
    wrapper = SklearnClassifier(SkLogisticRegression(C=C_sk, max_iter=1000))  # the former LogisticRegression
    ours = future_losses(model, X_S, y_S, candidates, population, "log")
    theirs, t_sk = best_time(
        lambda: future_losses(wrapper, X_S, y_S, candidates, population, "log", method="refit"), 1)
    print(f"\nscikit-learn wrapper refit (log loss, C_sk = {C_sk:g}): {t_sk:.3f} s; "
          f"max|diff| from ours {np.max(np.abs(theirs - ours)):.1e} (scikit-learn's tolerance)")
    return ok


def hessian_condition(model: LogisticRegression, X: np.ndarray) -> float:
    """Condition number of the Hessian of ``n F`` at the fitted model, first intercept pinned (data units)."""
    P = model.predict_proba(X)[:, model.present_]
    q, d = P.shape[1], X.shape[1]
    Xt = np.hstack([X, np.ones((X.shape[0], 1))])
    H = sum(np.kron(np.diag(p) - np.outer(p, p), np.outer(x, x)) for p, x in zip(P, Xt, strict=True))
    weights = np.ones((q, d + 1), dtype=bool)
    weights[:, -1] = False
    H[weights.ravel(), weights.ravel()] += 1.0 / model.C
    keep = np.arange(q * (d + 1)) != d  # drop the pinned intercept
    return float(np.linalg.cond(H[np.ix_(keep, keep)]))


def default_c(seed: int) -> None:
    """The evidence for the default ``C`` (module docstring)."""
    grid = (1.0, 10.0, 100.0, 1e4, 2.5e7)
    X2, y2 = np.array([[-0.5, 0.3], [0.3, 0.7]]), np.array([0, 1])
    print("Two training points, one per class (the first step of an AL curve):")
    print(f"{'C':>8s} {'max|w|':>8s} {'p(y_i|x_i)':>12s} {'Newton':>7s} {'cond(H)':>9s}")
    for C in grid:
        model = LogisticRegression(C=C).fit(X2, y2, 2)
        p = model.predict_proba(X2)[0, 0]
        print(f"{C:8.1e} {np.max(np.abs(model.coef_)):8.2f} {p:12.9f} {model.n_iter_:7d} "
              f"{hessian_condition(model, X2):9.1e}")
    for name in ("four-gaussian", "three-gaussians"):
        problem = get_problem(name)
        population = Population.from_problem(problem, 5000, np.random.default_rng(seed + 99))
        print(f"\n{name}: mean over 20 training sets of population log loss / error rate, most Newton steps, "
              f"max fast-vs-refit |diff| (log loss, 10 candidates)")
        sizes = (2, 5, 20, 60)
        print(f"{'C':>8s} " + " ".join(f"{'|D|=' + str(n):>20s}" for n in sizes)
              + f" {'Newton':>7s} {'fast-refit':>10s}")
        for C in grid:
            cells, steps, worst = [], 0, 0.0
            for n in sizes:
                log, err = [], []
                for rep in range(20):
                    rng = np.random.default_rng([seed, n, rep])
                    X, y = problem.sample(n, rng)
                    model = LogisticRegression(C=C).fit(X, y, problem.n_classes)
                    steps = max(steps, model.n_iter_)
                    log.append(population.log_loss(model))
                    err.append(population.error_rate(model))
                    if rep < 2:
                        cand, _ = problem.sample(10, rng)
                        fast = future_losses(model, X, y, cand, population, "log")
                        slow = future_losses(model, X, y, cand, population, "log", method="refit")
                        worst = max(worst, float(np.max(np.abs(fast - slow))))
                cells.append(f"{np.mean(log):10.3f} / {np.mean(err):.3f}")
            print(f"{C:8.1e} " + " ".join(f"{c:>20s}" for c in cells) + f" {steps:7d} {worst:10.1e}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark (or the default-C evidence); exit 1 if a difference exceeds the tolerance."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--default-c", action="store_true")
    args = parser.parse_args(argv)
    if args.default_c:
        default_c(args.seed)
        return 0
    if not speed(args.seed, args.repeats):
        print(f"FAIL: a difference exceeds {TOLERANCE}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
