r"""Benchmark: exact losses of the Gaussian family's retrained rules against today's 10^4-point population step.

What is measured
----------------
For LDA, QDA, Gaussian naive Bayes and logistic regression on Four-Gaussian (2 classes, 4
components), Quadratic (2 classes, 2 components) and Three-Gaussians
(3 classes), with ``|D_S|`` training points and 100 candidates: the
``M = 100 k`` retrained rules of one step (the rank-one statistics of the
Gaussian family's fast path, logistic regression's batched Newton solutions), scored

* on a ``10^4``-point QMC population with exact posteriors, by the
  classifier's own fast path ``retraining_losses`` (rank-one updates, one
  matrix product per chunk, the pointwise loss), and
* exactly, by the same fast path on ``Population.exact(problem)``
  (:class:`~mri_theory.engine.population.ExactPopulation`: the same rank-one
  updates and coefficients, the rules integrated by
  :func:`mri_theory.engine.exact.error_rates` / :func:`~mri_theory.engine.exact.log_losses`).

Printed: the best wall-clock time of each (``--repeats`` runs), their ratio
(exact / population; below 1 means the exact step is faster), and the
largest difference between the population's and the exact future losses,
which is the population's sampling error.

With ``--curves``: one whole learning curve of MRI-best instead (Four-Gaussian, pool 250 labelled to
exhaustion, 100 candidates per step, ``run_curves(..., truth="exact")`` against ``truth="sampled"``, the
10^4-point population), CPU seconds of each and their ratio.

With ``--baseline DIR`` (a checkout of an earlier commit, e.g. ``git worktree add /tmp/base ac96b4b``, the
exact error rates before their 2-D integral was compiled): the exact error rates of one study step in this
checkout and in that one (a subprocess of the same interpreter with ``PYTHONPATH=DIR``), for QDA and naive
Bayes on Four-Gaussian with ``|D_S|`` = 60 and 200 and 100 candidates: ``retraining_losses(candidates,
Population.exact(problem), "error")``, i.e. the current model's error rate and the ``100 k`` retrained
rules' (``k = 2`` classes, 4 components each).  CPU seconds (``time.process_time``, best of ``--repeats``,
one BLAS thread, after a warm-up call that compiles or loads the compiled code), their ratio and the
largest difference of the error rates.  With ``--baseline DIR --curves``: also one whole MRI-best learning
curve of QDA and of naive Bayes on Four-Gaussian with the paper preset (pool 250 labelled to exhaustion,
100 candidates per step, population 10^4, exact truth; as ``bench_study_cost.py``'s ``curve_cost``) in
both checkouts: CPU seconds, their ratio, whether the same points were chosen and the largest difference
of the losses.

With ``--step``: one MRI-best step as the study takes it, ``true_q_c(problem, clf, D_S, candidates,
population, loss)`` (the current loss, the ``100 k`` retrained rules' losses and the candidates' posteriors)
for QDA and Gaussian naive Bayes with ``|D_S|`` = ``--n-train`` (60) and 100 candidates on every abstract
problem (Four-Gaussian, Quadratic, Triangles, Oscillating, Sharp) and Three-Gaussians: on
``Population.exact(problem)`` against a ``10^4``-point QMC population
(``Population.from_problem(problem, 10_000, rng, method="qmc")``), CPU seconds (``time.process_time``, best of
``--repeats``, the two measured in turn, one BLAS thread, after a warm-up call), their ratio (exact / sampled;
below 1 the exact step is faster) and the largest difference of the two ``Q^c`` (the sampled truth's error).
``--loss log`` for the log loss (slow: seconds per exact step).  With ``--step --baseline DIR``: also the exact
step in that checkout (a subprocess, as below), its CPU seconds, the ratio (baseline / this) and the largest
difference of ``Q^c``.

Run: ``python benchmarks/bench_exact.py [--seed 0] [--repeats 3] [--n-train 60] [--curves | --step [--loss L]]
[--baseline DIR]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from functools import partial

import numpy as np
from _setting import best_time, labelled_state

from mri_theory.classifiers import LDA, QDA, GaussianNaiveBayes, LogisticRegression
from mri_theory.engine import Population
from mri_theory.problems import get_problem
from mri_theory.runners import Execution

PROBLEMS = ("four-gaussian", "quadratic", "three-gaussians")
CLASSIFIERS = {"lda": LDA, "qda": QDA, "nb": GaussianNaiveBayes, "logreg": LogisticRegression}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-train", type=int, default=60)
    parser.add_argument("--candidates", type=int, default=100)
    parser.add_argument("--curves", action="store_true", help="time whole MRI-best learning curves instead")
    parser.add_argument("--step", action="store_true", help="time one MRI-best step (true_q_c) instead")
    parser.add_argument("--loss", choices=("error", "log"), default="error", help="the loss of --step")
    parser.add_argument("--baseline", metavar="DIR", help="a checkout of an earlier commit to compare with")
    parser.add_argument("--json", choices=("steps", "curves", "qc"), help=argparse.SUPPRESS)  # the baseline's run
    args = parser.parse_args(argv)
    if args.json:
        if args.json == "qc":
            print(json.dumps(measure_qc(args.seed, args.repeats, args.n_train, args.candidates, args.loss,
                                        sampled=False)))
        else:
            print(json.dumps(measure_steps(args.seed, args.repeats) if args.json == "steps"
                             else measure_curves(args.seed)))
        return 0
    if args.step:
        return step(args.seed, args.repeats, args.n_train, args.candidates, args.loss, args.baseline)
    if args.baseline:
        return against_baseline(args.baseline, args.seed, args.repeats, args.curves)
    if args.curves:
        return curves(args.seed)
    print(f"|D_S| = {args.n_train}, {args.candidates} candidates, population 10^4 (QMC); times in ms")
    print(f"{'problem':16s} {'clf':4s} {'loss':5s} {'M':>4s} {'population':>10s} {'exact':>9s} "
          f"{'ratio':>7s} {'max|pop-exact|':>15s}")
    for name in PROBLEMS:
        problem = get_problem(name)
        rng = np.random.default_rng(args.seed)
        while True:
            X_S, y_S = problem.sample(args.n_train, rng)
            if np.unique(y_S).size == problem.n_classes:
                break
        candidates, _ = problem.sample(args.candidates, rng)
        population = Population.from_problem(problem, 10_000, rng, method="qmc")
        exact_population = Population.exact(problem)
        for key, cls in CLASSIFIERS.items():
            clf = cls().fit(X_S, y_S, n_classes=problem.n_classes)
            for loss in ("error", "log"):
                (_, pop), t_pop = best_time(
                    partial(clf.retraining_losses, candidates, population, loss), args.repeats)
                (_, exact), t_exact = best_time(
                    partial(clf.retraining_losses, candidates, exact_population, loss), args.repeats)
                print(f"{name:16s} {key:4s} {loss:5s} {exact.size:4d} {1e3 * t_pop:10.1f} {1e3 * t_exact:9.1f} "
                      f"{t_exact / t_pop:7.2f} {np.max(np.abs(pop - exact)):15.2e}")
    return 0


def curves(seed: int) -> int:
    """CPU seconds of one MRI-best learning curve with exact and with sampled truth, per classifier."""
    from mri_theory.runners import run_curves

    print("MRI-best on four-gaussian, pool 250 exhausted, subsample 100; CPU seconds")
    print(f"{'clf':7s} {'sampled':>8s} {'exact':>8s} {'ratio':>7s}")
    for key in CLASSIFIERS:
        cost = {}
        for truth in ("sampled", "exact"):
            start = time.process_time()
            run_curves("four-gaussian", key, ["MRI-best"], replicates=1, pool_size=250, seed=seed,
                       execution=Execution(progress=False), record_q_c=False, truth=truth)
            cost[truth] = time.process_time() - start
        print(f"{key:7s} {cost['sampled']:8.1f} {cost['exact']:8.1f} {cost['exact'] / cost['sampled']:7.2f}")
    return 0


QC_PROBLEMS = ("four-gaussian", "quadratic", "triangles", "oscillating", "sharp", "three-gaussians")


def measure_qc(seed: int, repeats: int, n_train: int, n_candidates: int, loss: str,
               sampled: bool = True) -> dict[str, dict]:
    """CPU seconds and Q^c of one MRI-best step (QDA, NB) on each problem: exact, and sampled if ``sampled``."""
    from mri_theory._utils.backends import one_thread
    from mri_theory.engine import true_q_c

    out = {}
    with one_thread():
        for name in QC_PROBLEMS:
            problem = get_problem(name)
            X_S, y_S, candidates, rng = labelled_state(problem, n_train, n_candidates, seed)
            populations = {"exact": Population.exact(problem)}
            if sampled:
                populations["sampled"] = Population.from_problem(problem, 10_000, rng, method="qmc")
            for key in STEP_CLASSIFIERS:
                steps = {kind: partial(true_q_c, problem, CLASSIFIERS[key](), X_S, y_S, candidates, population, loss)
                         for kind, population in populations.items()}
                result = {kind: {"cpu": np.inf, "q_c": qc().tolist()} for kind, qc in steps.items()}  # + warm-up
                for _ in range(repeats):  # the kinds in turn: a change of the machine's load meets both alike
                    for kind, qc in steps.items():
                        result[kind]["cpu"] = min(result[kind]["cpu"], best_time(qc, 1, time.process_time)[1])
                out[f"{name} {key}"] = result
    return out


def step(seed: int, repeats: int, n_train: int, n_candidates: int, loss: str, baseline: str | None) -> int:
    """One MRI-best step, exact against a 10^4-point population (and against a baseline checkout's exact step)."""
    here = measure_qc(seed, repeats, n_train, n_candidates, loss)
    base = _in_baseline(baseline, "qc", seed, repeats, n_train, n_candidates, loss) if baseline else None
    print(f"one MRI-best step (true_q_c): |D_S| = {n_train}, {n_candidates} candidates, {loss} loss; CPU ms, best "
          f"of {repeats}, one thread; sampled = 10^4-point QMC population"
          + (f"; baseline: {baseline}" if baseline else ""))
    header = (f"{'problem':16s} {'clf':4s} {'sampled':>9s} {'exact':>9s} {'exact/sampled':>13s} "
              f"{'max|Qc diff|':>12s}")
    if base is not None:
        header += f" {'baseline':>9s} {'baseline/exact':>14s} {'max|vs base|':>12s}"
    print(header)
    print("-" * len(header))
    worst = 0.0
    for key, result in here.items():
        name, clf = key.split()
        exact, sampled = result["exact"], result["sampled"]
        line = (f"{name:16s} {clf:4s} {1e3 * sampled['cpu']:9.1f} {1e3 * exact['cpu']:9.1f} "
                f"{exact['cpu'] / sampled['cpu']:13.2f} "
                f"{np.max(np.abs(np.array(exact['q_c']) - np.array(sampled['q_c']))):12.1e}")
        if base is not None:
            other = base[key]["exact"]
            diff = float(np.max(np.abs(np.array(exact["q_c"]) - np.array(other["q_c"]))))
            worst = max(worst, diff)
            line += f" {1e3 * other['cpu']:9.1f} {other['cpu'] / exact['cpu']:14.2f} {diff:12.1e}"
        print(line)
    return int(worst > 1e-10)


STEP_SIZES = (60, 200)
STEP_CLASSIFIERS = ("qda", "nb")


def measure_steps(seed: int, repeats: int) -> dict[str, dict]:
    """CPU seconds and exact error rates of one step's rules (QDA, NB; |D_S| 60 and 200) in the imported mri_theory."""
    from mri_theory._utils.backends import one_thread

    out = {}
    problem = get_problem("four-gaussian")
    exact_population = Population.exact(problem)
    with one_thread():
        for n in STEP_SIZES:
            rng = np.random.default_rng(seed)
            while True:
                X_S, y_S = problem.sample(n, rng)
                if np.unique(y_S).size == problem.n_classes:
                    break
            candidates, _ = problem.sample(100, rng)
            for key in STEP_CLASSIFIERS:
                clf = CLASSIFIERS[key]().fit(X_S, y_S, n_classes=problem.n_classes)
                step = partial(clf.retraining_losses, candidates, exact_population, "error")
                step()  # warm-up: compiles or loads what the first call needs
                (now, future), best = best_time(step, repeats, time.process_time)
                out[f"{key} {n}"] = {"cpu": best, "losses": [now, *future.ravel().tolist()]}
    return out


def measure_curves(seed: int) -> dict[str, dict]:
    """CPU seconds, chosen points and losses of QDA's and NB's MRI-best curves (paper preset, exact truth)."""
    from mri_theory._utils.backends import one_thread
    from mri_theory.runners import run_curves
    from mri_theory.runners.study import PRESETS

    preset = PRESETS["paper"]
    out = {}
    with one_thread():
        for key in STEP_CLASSIFIERS:
            start = time.process_time()
            curve = run_curves("four-gaussian", key, ["MRI-best"], pool_size=preset["pool_size"], replicates=1,
                               seed=seed, population_size=preset["population_size"], loss=preset["loss"],
                               subsample=preset["subsample"], record_q_c=preset["record_q_c"],
                               execution=Execution(progress=False), truth="exact")
            out[key] = {"cpu": time.process_time() - start, "chosen": curve["chosen"].tolist(),
                        "losses": curve["loss"].tolist()}
    return out


def _in_baseline(directory: str, mode: str, seed: int, repeats: int, n_train: int = 60, n_candidates: int = 100,
                 loss: str = "error") -> dict[str, dict]:
    """This script's ``--json mode`` run on the ``mri_theory`` of ``directory`` (first on the path)."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(directory)}
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--json", mode, "--seed", str(seed),
                           "--repeats", str(repeats), "--n-train", str(n_train), "--candidates", str(n_candidates),
                           "--loss", loss], capture_output=True, text=True, env=env, check=True, cwd=directory)
    return json.loads(done.stdout)


def against_baseline(directory: str, seed: int, repeats: int, with_curves: bool) -> int:
    """This checkout's exact error rates against a baseline checkout's: CPU seconds, ratio, largest difference."""
    here, base = measure_steps(seed, repeats), _in_baseline(directory, "steps", seed, repeats)
    print(f"exact error rates of one step (current model + 100 candidates x 2 classes, 4 components), Four-Gaussian; "
          f"CPU seconds, best of {repeats}; baseline: {directory}")
    header = f"{'clf':4s} {'|D_S|':>5s} {'rules':>5s} {'this':>8s} {'baseline':>8s} {'ratio':>6s} {'max|diff|':>9s}"
    print(header)
    print("-" * len(header))
    worst = 0.0
    for key, result in here.items():
        clf, n = key.split()
        diff = float(np.max(np.abs(np.array(result["losses"]) - np.array(base[key]["losses"]))))
        worst = max(worst, diff)
        print(f"{clf:4s} {n:>5s} {len(result['losses']):5d} {result['cpu']:8.4f} {base[key]['cpu']:8.4f} "
              f"{base[key]['cpu'] / result['cpu']:6.2f} {diff:9.1e}")
    if with_curves:
        here, base = measure_curves(seed), _in_baseline(directory, "curves", seed, repeats)
        print("\nMRI-best on four-gaussian, paper preset (pool 250 exhausted, subsample 100), exact truth; CPU seconds")
        header = f"{'clf':4s} {'this':>8s} {'baseline':>8s} {'ratio':>6s} {'same points':>11s} {'max|dloss|':>10s}"
        print(header)
        print("-" * len(header))
        for key, result in here.items():
            same = result["chosen"] == base[key]["chosen"]
            diff = float(np.nanmax(np.abs(np.array(result["losses"]) - np.array(base[key]["losses"]))))
            worst = max(worst, diff if same else np.inf)
            print(f"{key:4s} {result['cpu']:8.1f} {base[key]['cpu']:8.1f} {base[key]['cpu'] / result['cpu']:6.2f} "
                  f"{str(same):>11s} {diff:10.1e}")
    return int(worst > 1e-12)


if __name__ == "__main__":
    sys.exit(main())
