r"""Benchmark: per-fit covariate scaling (``scale="train"``, kknn's and e1071's) against the default, for one
BMRI, SMRI and EfeLc step of the small real group's kknn5 and SVM pairings; and what rerunning those curves under
the sensitivity reading ``"per-fit scaling"`` would cost.

What is measured
----------------
The state of a step of the study on a real data set of the group ``"small"`` (``DataProblem.draw_replicate``
with the whole pool, the 30 % stratified test set held out): ``D_S`` is the initial set (one point per class)
plus the first pool points, up to ``|D_S|`` of :data:`STATES`; the candidates are a random sub-sample of 100 of
the rest (the study's sub-sample; fewer where fewer are left: 39 at ``|D_S| = 150`` on heart), the pool the
rest.  For each of the two classifiers the reading changes
(``kknn5``: ``KNN(5, kernel="optimal")``; ``svm``: ``SVM()``) and each strategy that retrains it on candidates
(BMRI with its 25 resamples, SMRI, EfeLc), the CPU seconds of one step's scores with the registered classifier
(``scale=None``: the exact fast paths) and with ``scale="train"`` (each covariate divided by its training
set's standard deviation; every retrained model a refit), in the same run, one BLAS thread, after a warm-up of
both paths; and their ratio.  QbcV and QbcA (their committee is not the base classifier), SE and RS (one fit
per step either way) are not changed by the reading.

The estimate: the committed idle re-measurement of the small group's kknn5 and SVM curves
(``figures/study-small/full-run/timings-logreg-svm-kknn5-f130345.csv``, 10 sets x 10 replicates, each pool
labelled to exhaustion) times, for BMRI, SMRI and EfeLc, the smallest, mean and largest ratio measured here for
that (classifier, strategy); the other strategies' times unchanged.  The ratio grows with ``|D_S|`` (a refit
costs more; the fast path's work grows more slowly), so the states measured should span the sizes of the
group's curves (pools of 121 to 535 points).

Run: ``python benchmarks/bench_perfit_scaling.py [--states wine:45 heart:150 ...] [--repeats 1]`` (about 40 s
on one core).
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from _setting import best_time

#: (data set, |D_S|) of the measured steps: small and large labelled sets, pools of 121 (wine), 187 (heart) and
#: 535 (pima) points.
STATES = (("wine", 45), ("heart", 45), ("heart", 150), ("pima", 45), ("pima", 400))
CLASSIFIERS = ("kknn5", "svm")
STRATEGIES = ("BMRI", "SMRI", "EfeLc")
CANDIDATES = 100  # the study's sub-sample of the pool per step
TIMINGS = (Path(__file__).resolve().parents[1] / "figures" / "study-small" / "full-run"
           / "timings-logreg-svm-kknn5-f130345.csv")


def state(name: str, size: int, seed: int = 0):
    """A step's state on data set ``name`` with ``|D_S| = size``: ``(problem, X, y, candidates, pool)``."""
    from mri_theory.problems import get_problem

    problem = get_problem(name)
    rng = np.random.default_rng(seed)
    X0, y0, pool_X, pool_y, _ = problem.draw_replicate(problem.max_pool_size, None, rng)
    labelled = size - X0.shape[0]
    X, y = np.vstack([X0, pool_X[:labelled]]), np.concatenate([y0, pool_y[:labelled]])
    rest = pool_X[labelled:]
    candidates = rest[np.sort(rng.choice(rest.shape[0], size=min(CANDIDATES, rest.shape[0]), replace=False))]
    return problem, X, y, candidates, rest


def step(problem, X, y, candidates, pool, classifier, strategy: str) -> np.ndarray:
    """One step's scores of ``strategy`` with (a clone of) ``classifier`` on the state."""
    from mri_theory.strategies import get_strategy
    from mri_theory.strategies.base import Context

    ctx = Context(X=X, y=y, candidates=candidates, pool=pool, classifier=classifier.clone(),
                  n_classes=problem.n_classes, rng=np.random.default_rng(1))
    return get_strategy(strategy).scores(ctx)


def measure(states: Sequence[tuple[str, int]], repeats: int) -> pd.DataFrame:
    """CPU seconds of one step per (state, classifier, strategy), with the default and with ``scale="train"``."""
    from mri_theory._utils.backends import one_thread
    from mri_theory.classifiers import get_classifier

    rows = []
    with one_thread():
        for name, size in states:
            problem, X, y, candidates, pool = state(name, size)
            for label in CLASSIFIERS:
                variants = {"default": get_classifier(label), "train": get_classifier(label, scale="train")}
                for strategy in STRATEGIES:
                    for classifier in variants.values():  # warm-up: compiles or loads what the first call needs
                        step(problem, X, y, candidates[:3], pool, classifier, strategy)
                    times, scores = {}, {}
                    for variant, classifier in variants.items():
                        scores[variant], times[variant] = best_time(
                            functools.partial(step, problem, X, y, candidates, pool, classifier, strategy), repeats,
                            time.process_time)
                    rows.append({"set": name, "n": X.shape[0], "m": candidates.shape[0], "classifier": label,
                                 "strategy": strategy,
                                 "default_s": times["default"], "train_s": times["train"],
                                 "ratio": times["train"] / times["default"],
                                 "finite": bool(np.all(np.isfinite(scores["train"])))})
    return pd.DataFrame(rows)


def estimate(table: pd.DataFrame) -> pd.DataFrame:
    """The small group's kknn5 and SVM curves' CPU-hours now and under the reading (smallest, mean, largest
    measured ratio per (classifier, strategy))."""
    timings = pd.read_csv(TIMINGS)
    now = timings[timings["classifier"].isin(CLASSIFIERS)].groupby(["classifier", "strategy"])["cpu_s"].sum()
    ratios = table.groupby(["classifier", "strategy"])["ratio"].agg(["min", "mean", "max"])
    rows = []
    for label in CLASSIFIERS:
        present = now[label]
        row = {"classifier": label, "now_h": present.sum() / 3600}
        for which in ("min", "mean", "max"):
            scaled = sum(cpu * (ratios.loc[(label, s), which] if s in STRATEGIES else 1.0)
                         for s, cpu in present.items())
            row[f"reading_{which}_h"] = scaled / 3600
        rows.append(row)
    out = pd.DataFrame(rows)
    total = out.drop(columns="classifier").sum().to_dict()
    return pd.concat([out, pd.DataFrame([{"classifier": "both", **total}])], ignore_index=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", nargs="+", metavar="SET:SIZE", help="(data set, |D_S|) pairs (default: STATES)")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)
    states = [(s.split(":")[0], int(s.split(":")[1])) for s in args.states] if args.states else list(STATES)
    start = time.perf_counter()
    table = measure(states, args.repeats)
    print(f"one step, up to {CANDIDATES} candidates, CPU seconds (best of {args.repeats}), one BLAS thread: "
          "default (fast paths) against scale='train' (refits), ratio train / default")
    header = (f"{'set':<7} {'|D_S|':>5} {'cands':>5} {'classifier':<10} {'strategy':<8} {'default':>9} "
              f"{'train':>9} {'ratio':>7}")
    print(header)
    print("-" * len(header))
    for row in table.itertuples():
        print(f"{row.set:<7} {row.n:>5} {row.m:>5} {row.classifier:<10} {row.strategy:<8} {row.default_s:>9.3f} "
              f"{row.train_s:>9.3f} {row.ratio:>7.1f}")
    print()
    print("the small group's kknn5 and SVM curves (10 sets x 10 replicates x 7 methods), CPU-hours: now (the idle "
          "re-measurement) and under the reading (BMRI, SMRI, EfeLc times the smallest / mean / largest ratio above)")
    for row in estimate(table).itertuples():
        print(f"{row.classifier:<7} now {row.now_h:>6.2f} h   reading {row.reading_min_h:>7.1f} / "
              f"{row.reading_mean_h:>7.1f} / {row.reading_max_h:>7.1f} h")
    print(f"\nwall {time.perf_counter() - start:.0f} s")
    return 0 if table["finite"].all() else 1


if __name__ == "__main__":
    sys.exit(main())
