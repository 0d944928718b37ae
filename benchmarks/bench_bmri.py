r"""Benchmark: one BMRI step (Algorithm 2, 25 bootstrap resamples), and the MRI-best steps of the SVM and kknn5,
in this checkout against a baseline checkout.

What is measured
----------------
BMRI: Four-Gaussian, ``|D_S| = 60`` with 100 candidates and ``|D_S| = 200`` with 50 candidates (the paper
preset's pool of 250 with its sub-sample of 100: what a step of the study sees early and late), for the
SVM, kknn5, logistic regression, LDA, QDA and naive Bayes: BMRI's scores and the CPU seconds of computing them (best of
``--repeats``, one BLAS thread, after one warm-up step that compiles and loads what the first call needs).
With ``--baseline DIR`` (a checkout of an earlier commit, e.g. ``git worktree add /tmp/base 6846dfc``,
the code before the compiled SVM solver) the same steps run there too, in a subprocess of the same
interpreter, and the table gives both times, their ratio and the largest difference between the two
checkouts' scores (they must be equal: error rates, so 0).

MRI-best (the SVM and kknn5: their most expensive steps after BMRI): ``retraining_losses`` of 100 candidates
on the Four-Gaussian truth sampled on ``10^4`` points (``Population.from_problem``, the study's MRI-best
population), error and log loss, at ``|D_S| = 60`` and ``200``; the largest difference of the retraining
losses between the two checkouts (equal to rounding: about ``1e-15``).  With them, the loss of the fitted
model on that population (``Population.loss``, error rate; loss ``curve`` in the table): what every learning
curve pays at every step.

``--classifiers`` restricts the run to some of them (e.g. ``--classifiers logreg``; the MRI-best part runs
for ``svm`` and ``kknn5`` when they are among them).

Run: ``python benchmarks/bench_bmri.py [--baseline DIR] [--repeats 3] [--classifiers svm kknn5 logreg]`` (the exit
status is 1 if the scores differ, or the MRI-best losses by more than ``1e-12``).
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
CLASSIFIERS = ("svm", "kknn5", "logreg", "lda", "qda", "nb")
MRI_BEST_CLASSIFIERS = ("svm", "kknn5")
MRI_BEST_SIZES = (60, 200)  # |D_S|, with 100 candidates and a population of 10^4
MRI_BEST_LOSSES = ("error", "log")


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


def measure_mri_best(repeats: int, classifiers: Sequence[str] = MRI_BEST_CLASSIFIERS) -> dict[str, dict]:
    """CPU seconds and retraining losses of the MRI-best step (100 candidates, population 10^4) of each of
    ``classifiers``, and of the fitted model's error rate on the population (key ``... curve``)."""
    from _setting import four_gaussian_setting

    from mri_theory._utils.backends import one_thread
    from mri_theory.classifiers import get_classifier

    out = {}
    with one_thread():
        for name in classifiers:
            for n in MRI_BEST_SIZES:
                problem, X, y, candidates, population = four_gaussian_setting(0, n, 100, 10**4)
                model = get_classifier(name).fit(X, y, problem.n_classes)
                for loss in MRI_BEST_LOSSES:
                    def step(model=model, candidates=candidates, population=population, loss=loss):
                        return model.retraining_losses(candidates, population, loss)[1]

                    step()
                    losses, best = best_time(step, repeats, time.process_time)
                    out[f"{name} {n} 100 {loss}"] = {"cpu": best, "scores": losses.tolist()}

                def curve(model=model, population=population):
                    return np.array([population.loss(model, "error")])

                curve()
                value, best = best_time(curve, repeats, time.process_time)
                out[f"{name} {n} 100 curve"] = {"cpu": best, "scores": value.tolist()}
    return out


def measure_all(repeats: int, classifiers: Sequence[str]) -> dict[str, dict]:
    """The BMRI steps of ``classifiers`` and the MRI-best steps of those in :data:`MRI_BEST_CLASSIFIERS`."""
    return {"bmri": measure(repeats, classifiers),
            "mri_best": measure_mri_best(repeats, [c for c in classifiers if c in MRI_BEST_CLASSIFIERS])}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", metavar="DIR", help="a checkout of an earlier commit to compare with")
    parser.add_argument("--classifiers", nargs="+", choices=CLASSIFIERS, default=list(CLASSIFIERS),
                        help="the classifiers to measure (default: all six)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # the baseline's subprocess
    args = parser.parse_args(argv)
    if args.json:
        print(json.dumps(measure_all(args.repeats, args.classifiers)))
        return 0
    here = measure_all(args.repeats, args.classifiers)
    base = None
    if args.baseline:
        env = {**os.environ, "PYTHONPATH": os.path.abspath(args.baseline)}
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--json", "--repeats", str(args.repeats),
                               "--classifiers", *args.classifiers],
                              capture_output=True, text=True, env=env, check=True, cwd=args.baseline)
        base = json.loads(done.stdout)
    failed = False
    for part, title, tolerance in (
            ("bmri", f"one BMRI step (25 resamples), Four-Gaussian, CPU seconds, best of {args.repeats}", 0.0),
            ("mri_best", "MRI-best steps (retraining_losses, population 10^4; curve: the model's loss on it), "
                         "CPU seconds", 1e-12)):
        print(title + (f"; baseline: {args.baseline}" if base else ""))
        header = f"{'classifier':<10} {'|D_S|':>5} {'cands':>5} {'loss':>5} {'this (s)':>9}" + (
            f" {'baseline (s)':>12} {'ratio':>6} {'max|diff|':>9}" if base else "")
        print(header)
        print("-" * len(header))
        if not here[part]:
            continue
        for key, result in here[part].items():
            name, n, m, *loss = key.split()
            line = f"{name:<10} {n:>5} {m:>5} {(loss or ['error'])[0]:>5} {result['cpu']:>9.3f}"
            if base:
                other = base[part][key]
                diff = float(np.max(np.abs(np.array(result["scores"]) - np.array(other["scores"]))))
                failed |= diff > tolerance
                line += f" {other['cpu']:>12.3f} {other['cpu'] / result['cpu']:>6.2f} {diff:>9.1e}"
            print(line)
        print()
    return int(failed)


if __name__ == "__main__":
    sys.exit(main())
