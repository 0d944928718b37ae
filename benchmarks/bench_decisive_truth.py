r"""Benchmark: the decisive sampled truth (:func:`mri_theory.engine.targets.decisive_q_c`) of the RBF SVM.

What is measured
----------------
1. **Cost** (``--part cost``): the SVM's MRI-best step of the study, 100 candidates at ``|D_S| = 60`` on each
   abstract problem (Four-Gaussian, quadratic, triangles, oscillating, sharp; ``--replicates`` states each):
   *today's* sampled step, :func:`~mri_theory.engine.targets.true_q_c_and_loss` on the replicate's population of
   ``10^4`` QMC points plus its resolution check (:func:`~mri_theory.engine.targets.choice_is_resolved` of the
   choice against the runner-up, 8 scrambles of ``10^4`` points in all), against the *decisive* step,
   ``decisive_q_c`` at its defaults (round 0 of ``10^4`` points per candidate), in the same run, on the same
   states.  CPU seconds of this process (``time.process_time``) with one BLAS thread, as a study's worker runs;
   the population of today's step is drawn beforehand (a run draws it once per replicate, for the losses).
   Printed: both times, their ratio, each step's resolved fraction and the decisive step's points per contender.
2. **Accuracy** (``--part accuracy``): in 20 states (the five problems, ``|D_S|`` = 10, 30, 60 and 150, 100
   candidates each), ``decisive_q_c``'s values against an *independent* reference: every candidate on
   ``2^20`` points (128 scrambles of 8192, from another seed), with its own standard error.  Printed per state:
   the spread of :math:`Q^c` over the candidates (mean shortfall of a random choice) and the indifference
   zone; the largest and median error of the values :math:`|Q - Q_{ref}|` and of their differences from the
   choice :math:`|(Q_i - Q_c) - (Q_{ref,i} - Q_{ref,c})|`, both relative to the spread; the root mean square of
   the standardised errors :math:`(Q - Q_{ref}) / \sqrt{se^2 + se_{ref}^2}` (1 for honest errors); and the
   choice's shortfall by the reference, relative to the spread (a resolved choice's is below the zone, 5 %,
   up to the reference's own error).
3. **States** (``--part states``): the leaderboard's SVM states (:func:`mri_theory.runners.run_leaderboard`'s
   grid: RS trajectories, steps 2, 10, 30, 80, pool 250, 10 replicates; Four-Gaussian and quadratic with seed 0,
   triangles, oscillating and sharp with seed 1), their truth computed as ``score_states`` does (the race of
   ``mri_theory.runners._curves.decided_truth``: its seed, size, loss and the engine's ``DOUBLINGS``, under the
   rule of ``--level``) and as it did before (the state's population and the check): the resolved fractions and
   the CPU time of each, per problem and in all.

4. **Curves** (``--part curves``): the study's SVM MRI-best curve (pool 250 labelled to exhaustion, 100 candidates
   sub-sampled per step, populations of ``10^4``; one replicate per problem): the curve is run
   (:func:`mri_theory.runners.run_curves` with ``truth="sampled"``, its race capped at ``CURVE_DOUBLINGS``, under
   the runners' own rule), then each of its 250 states is decided again, timed, by today's step and by the race
   (``decided_truth``'s seed, size and loss, under the rule of ``--level``) capped at ``CURVE_DOUBLINGS`` (and
   every fifth state by the race capped at the engine's ``DOUBLINGS``): the resolved fractions and the CPU time
   of each over the curve, the ratio to today's (on the same states).

The rule of the race (``--level``, for parts 3 and 4 only): ``family`` (the default) is the family-wise level
:data:`~mri_theory.engine.targets.LEVEL` (0.05, Bonferroni over the ``m - 1`` rivals and the ``doublings + 1``
looks: a confident difference exceeds ``q`` standard errors,
``q = scipy.stats.t.isf(level / ((m - 1) * (doublings + 1)), scrambles - 1)``); ``per-comparison`` is
``level=None``, the earlier rule (3 standard errors per comparison and per look,
:data:`~mri_theory.engine.targets.RESOLUTION_Z`), which the committed SVM states were decided by.  Parts 1 and 2
call ``decisive_q_c`` at its default, the family-wise level.  Each part's header prints its rule and threshold
(computed here with ``scipy.stats.t``, as the engine does).

Run: ``python benchmarks/bench_decisive_truth.py [--part cost accuracy states curves] [--level family|per-comparison]
[--replicates 5] [--seed 0]``
(cost about a minute, accuracy a few minutes, states and curves ten minutes each, on one core).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import numpy as np
from scipy.stats import t as student_t
from threadpoolctl import threadpool_limits

from mri_theory._utils.ties import near_maximum
from mri_theory.classifiers import SVM, get_classifier
from mri_theory.engine import Population
from mri_theory.engine.targets import (
    DOUBLINGS,
    INDIFFERENCE,
    LEVEL,
    RESOLUTION_SCRAMBLES,
    RESOLUTION_Z,
    DecisiveQc,
    choice_is_resolved,
    decisive_q_c,
    true_q_c_and_loss,
)
from mri_theory.problems import get_problem
from mri_theory.runners import Execution, _curves, run_curves
from mri_theory.strategies import get_strategy

PROBLEMS = ("four-gaussian", "quadratic", "triangles", "oscillating", "sharp")

#: The rules of the race that ``--level`` selects (parts 3 and 4).
LEVELS: dict[str, float | None] = {"family": LEVEL, "per-comparison": None}


def threshold(level: float | None, m: int, doublings: int, scrambles: int = RESOLUTION_SCRAMBLES) -> float:
    """The multiple of a standard error of a confident difference in ``decisive_q_c``: ``RESOLUTION_Z`` per
    comparison (``level=None``), else Student's t quantile (``scrambles - 1`` degrees of freedom) of the one-sided
    level ``level / ((m - 1) (doublings + 1))``, as the engine computes it."""
    if level is None:
        return RESOLUTION_Z
    return float(student_t.isf(level / (max(m - 1, 1) * (doublings + 1)), scrambles - 1))


def rule(level: float | None, m: Sequence[int], doublings: int) -> str:
    """The race's rule and its threshold for ``m`` candidates (the smallest and largest of them), for a header."""
    if level is None:
        return f"per-comparison: {RESOLUTION_Z:g} standard errors"
    low, high = threshold(level, min(m), doublings), threshold(level, max(m), doublings)
    span = f"{low:.2f}" if min(m) == max(m) else f"{low:.2f}-{high:.2f}"
    count = f"{min(m)}" if min(m) == max(m) else f"{min(m)}-{max(m)}"
    return f"family-wise level {level:g}: {span} standard errors ({count} candidates, 2^{doublings})"


def decide(cfg: _curves.CurveConfig, problem, classifier, replicate: int, step: int, X, y, candidates, *,
           doublings: int, level: float | None) -> DecisiveQc:
    """The decisive truth of a state as ``_curves.decided_truth`` computes it (its seed, size, loss, the largest
    Q^c), with the cap ``doublings`` and the rule ``level`` given explicitly (not read from ``cfg``)."""
    return decisive_q_c(problem, classifier, X, y, candidates,
                        seed=np.random.SeedSequence(cfg.seed, spawn_key=(replicate, _curves.RESOLUTION_KEY, step)),
                        size=max(cfg.population_size, RESOLUTION_SCRAMBLES), loss=cfg.loss, largest=True,
                        doublings=doublings, level=level)


def labelled_state(problem, n: int, m: int, rng: np.random.Generator):
    """``D_S`` of ``n`` i.i.d. points (every class present) and ``m`` candidates."""
    while True:
        X, y = problem.sample(n, rng)
        if np.unique(y).size == problem.n_classes:
            break
    return X, y, problem.sample(m, rng)[0]


def today_step(problem, X, y, candidates, population, rng) -> tuple[int, bool]:
    """The sampled step before the decisive truth: the choice on one population, then judged against the runner-up."""
    _, q = true_q_c_and_loss(problem, SVM(), X, y, candidates, population, "error")
    if q.size < 2:
        return 0, True  # one candidate: nothing to judge
    best = int(np.flatnonzero(near_maximum(q))[0])
    others = np.delete(np.arange(q.size), best)
    runner_up = others[np.flatnonzero(near_maximum(q[others]))[0]]
    return best, choice_is_resolved(problem, SVM(), X, y, candidates[best], candidates[runner_up], 10_000, rng=rng)


def cost(replicates: int, seed: int) -> None:
    print("1. Cost: the SVM's MRI-best step, 100 candidates, |D_S| = 60; CPU seconds, one BLAS thread; the race "
          f"capped at 2^{DOUBLINGS} (the engine's, the scored states') and at 2^{_curves.CURVE_DOUBLINGS} (a curve's); "
          f"{rule(LEVEL, [100], DOUBLINGS)}, {threshold(LEVEL, 100, _curves.CURVE_DOUBLINGS):.2f} at "
          f"2^{_curves.CURVE_DOUBLINGS}")
    print(f"{'problem':14s} {'today (s)':>10s} {'2^' + str(DOUBLINGS) + ' (s)':>9s} {'ratio':>6s} "
          f"{'2^' + str(_curves.CURVE_DOUBLINGS) + ' (s)':>9s} {'ratio':>6s} {'resolved today':>15s} "
          f"{'2^' + str(DOUBLINGS):>5s} {'2^' + str(_curves.CURVE_DOUBLINGS):>5s} {'points (median, max)':>21s}")
    totals = np.zeros(3)
    for name in PROBLEMS:
        problem = get_problem(name)
        clock = np.zeros(3)
        flags, points = [[], [], []], []
        for r in range(replicates):
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(r,)))
            X, y, candidates = labelled_state(problem, 60, 100, rng)
            population = Population.from_problem(problem, 10_000, rng, method="qmc")
            start = time.process_time()
            flags[0].append(today_step(problem, X, y, candidates, population, np.random.default_rng(r))[1])
            clock[0] += time.process_time() - start
            for i, cap in ((1, DOUBLINGS), (2, _curves.CURVE_DOUBLINGS)):
                start = time.process_time()
                decided = decisive_q_c(problem, SVM(), X, y, candidates, doublings=cap,
                                       seed=np.random.SeedSequence(seed, spawn_key=(r, 4)))
                clock[i] += time.process_time() - start
                flags[i].append(decided.resolved)
                if i == 1:
                    points.append(decided.points.max())
        totals += clock
        print(f"{name:14s} {clock[0]:10.2f} {clock[1]:9.2f} {clock[1] / clock[0]:6.2f} {clock[2]:9.2f} "
              f"{clock[2] / clock[0]:6.2f} {np.mean(flags[0]):15.2f} {np.mean(flags[1]):5.2f} {np.mean(flags[2]):5.2f} "
              f"{int(np.median(points)):>10,d} {int(np.max(points)):>10,d}")
    print(f"{'all':14s} {totals[0]:10.2f} {totals[1]:9.2f} {totals[1] / totals[0]:6.2f} {totals[2]:9.2f} "
          f"{totals[2] / totals[0]:6.2f}")


def reference_q_c(problem, X, y, candidates, seed) -> tuple[np.ndarray, np.ndarray]:
    """Every candidate's Q^c on 2^20 points: 128 independent scrambles of 8192, mean and standard error."""
    rng = np.random.default_rng(seed)
    model = SVM().fit(X, y, problem.n_classes)
    posterior = problem.posterior(candidates)
    values = np.empty((128, candidates.shape[0]))
    for r in range(128):
        population = Population.from_problem(problem, 8192, rng, method="qmc")
        now, future = model.retraining_losses(candidates, population, "error")
        values[r] = now - np.sum(posterior * future, axis=1)
    return values.mean(axis=0), values.std(axis=0, ddof=1) / np.sqrt(128)


def accuracy(seed: int) -> None:
    print("\n2. Accuracy against an independent reference of 2^20 points per candidate (100 candidates a state);")
    print("   errors relative to the spread of Q^c (the mean shortfall of a random choice); "
          f"{rule(LEVEL, [100], DOUBLINGS)}")
    print(f"{'problem':14s} {'|D_S|':>5s} {'spread':>9s} {'zone':>8s} {'resolved':>8s} {'points':>9s} "
          f"{'value err max/med':>18s} {'diff err max/med':>17s} {'rms z':>6s} {'shortfall':>9s}")
    worst = []
    for name in PROBLEMS:
        problem = get_problem(name)
        for n in (10, 30, 60, 150):
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(n, 1)))
            X, y, candidates = labelled_state(problem, n, 100, rng)
            got = decisive_q_c(problem, SVM(), X, y, candidates, seed=np.random.SeedSequence(seed, spawn_key=(n, 4)))
            ref, ref_se = reference_q_c(problem, X, y, candidates, np.random.SeedSequence(seed + 1, spawn_key=(n,)))
            spread = float(np.mean(ref.max() - ref))
            value = np.abs(got.q_c - ref) / spread
            diff = np.abs((got.q_c - got.q_c[got.chosen]) - (ref - ref[got.chosen])) / spread
            z = (got.q_c - ref) / np.hypot(got.se, ref_se)
            shortfall = (ref.max() - ref[got.chosen]) / spread
            worst.append((value.max(), diff.max(), shortfall))
            print(f"{name:14s} {n:5d} {spread:9.2e} {got.epsilon:8.1e} {str(got.resolved):>8s} "
                  f"{got.points.max():9,d} {value.max():8.3f} {np.median(value):8.3f} {diff.max():8.3f} "
                  f"{np.median(diff):8.3f} {np.sqrt(np.mean(z**2)):6.2f} {shortfall:9.4f}")
    worst_values = np.array(worst)
    print(f"largest over the states: value error {worst_values[:, 0].max():.3f}, difference error "
          f"{worst_values[:, 1].max():.3f}, choice's shortfall {worst_values[:, 2].max():.4f} of the spread "
          f"(the zone: {INDIFFERENCE})")


def states(replicates: int, level: float | None) -> None:
    steps = (2, 10, 30, 80)
    print("\n3. The leaderboard's SVM states (RS trajectories, steps 2, 10, 30, 80, pool 250): resolved fraction "
          f"and CPU seconds of the truth; the race's rule: {rule(level, [250 - s for s in steps], DOUBLINGS)}")
    print(f"{'problem':14s} {'states':>6s} {'resolved today':>15s} {'decisive':>9s} {'today (s)':>10s} "
          f"{'decisive (s)':>13s} {'ratio':>6s}")
    counts, times = np.zeros(3), np.zeros(2)  # states, resolved today, resolved decisive; CPU s today, decisive
    for names, seed in ((PROBLEMS[:2], 0), (PROBLEMS[2:], 1)):
        for name in names:
            problem, svm = get_problem(name), get_classifier("svm")
            flags_old, flags_new, t_old, t_new = [], [], 0.0, 0.0
            for step in steps:
                cfg = _curves.CurveConfig(name, "svm", 250, step, 10_000, "error", None, False, seed, repr(problem),
                                          repr(svm), "sampled")
                run = _curves.Run(cfg, problem, svm, {"RS": get_strategy("RS")})
                for r in range(replicates):
                    data = _curves.replicate_data(problem, cfg, r)
                    X0, y0, pool_X, pool_y, population = data
                    chosen = _curves.run_pair(run, "RS", r, data, losses=False).chosen.to_numpy()[:step]
                    X, y = np.vstack([X0, pool_X[chosen]]), np.append(y0, pool_y[chosen])
                    candidates = pool_X[np.setdiff1d(np.arange(250), chosen)]
                    start = time.process_time()
                    flags_old.append(today_step(problem, X, y, candidates, population, np.random.default_rng(
                        np.random.SeedSequence(seed, spawn_key=(r, 4, step))))[1])
                    t_old += time.process_time() - start
                    start = time.process_time()
                    flags_new.append(decide(cfg, problem, svm, r, step, X, y, candidates, doublings=DOUBLINGS,
                                            level=level).resolved)
                    t_new += time.process_time() - start
            counts += len(flags_old), np.sum(flags_old), np.sum(flags_new)
            times += t_old, t_new
            print(f"{name:14s} {len(flags_old):6d} {np.mean(flags_old):15.3f} {np.mean(flags_new):9.3f} "
                  f"{t_old:10.1f} {t_new:13.1f} {t_new / t_old:6.2f}", flush=True)
    print(f"{'all':14s} {int(counts[0]):6d} {counts[1] / counts[0]:15.3f} {counts[2] / counts[0]:9.3f} "
          f"{times[0]:10.1f} {times[1]:13.1f} {times[1] / times[0]:6.2f}")


def curves(replicates: int, seed: int, level: float | None, every: int = 5) -> None:
    print(f"\n4. The study's SVM MRI-best curves (pool 250, 100 candidates a step, {replicates} replicate(s) a "
          f"problem): each state decided again, CPU seconds; the cap 2^{DOUBLINGS} on every {every}th state only, "
          f"its ratio to today's on those states; the race's rule: {rule(level, [100], _curves.CURVE_DOUBLINGS)}"
          + ("" if level is None else f", {threshold(level, 100, DOUBLINGS):.2f} at 2^{DOUBLINGS}")
          + " (fewer candidates at the last 100 steps)")
    print(f"{'problem':14s} {'steps':>5s} {'resolved today':>15s} {'cap 2^' + str(_curves.CURVE_DOUBLINGS):>9s} "
          f"{'cap 2^' + str(DOUBLINGS):>9s} {'today (s)':>10s} {'curves (s)':>11s} {'ratio':>6s} "
          f"{'2^' + str(DOUBLINGS) + ' ratio':>9s}")
    counts, times = np.zeros(5), np.zeros(4)  # states (all, every), resolved today, curves, 2^DOUBLINGS
    for name in PROBLEMS:
        problem, svm = get_problem(name), get_classifier("svm")
        table = run_curves(name, "svm", ["MRI-best"], pool_size=250, replicates=replicates, seed=seed,
                           population_size=10_000, subsample=100, record_q_c=False, truth="sampled",
                           execution=Execution(n_jobs=1, progress=False))
        cfg = _curves.CurveConfig(name, "svm", 250, 250, 10_000, "error", 100, False, seed, repr(problem), repr(svm),
                                  "sampled")
        flags, clock = [[], [], []], np.zeros(4)  # today, curves (every state); 2^DOUBLINGS and today (every)
        for r in range(replicates):
            X0, y0, pool_X, pool_y, population = _curves.replicate_data(problem, cfg, r)
            chosen = table[table.replicate == r].chosen.to_numpy()[:-1]
            available = np.arange(250)
            for t, pick in enumerate(chosen):
                X, y = np.vstack([X0, pool_X[chosen[:t]]]), np.append(y0, pool_y[chosen[:t]])
                scored = available
                if available.size > 100:
                    sub = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(r, 2, t)))
                    scored = np.sort(sub.choice(available, 100, replace=False))
                start = time.process_time()
                flags[0].append(today_step(problem, X, y, pool_X[scored], population, np.random.default_rng(
                    np.random.SeedSequence(seed, spawn_key=(r, 4, t))))[1])
                today = time.process_time() - start
                clock[0] += today
                start = time.process_time()
                flags[1].append(decide(cfg, problem, svm, r, t, X, y, pool_X[scored],
                                       doublings=_curves.CURVE_DOUBLINGS, level=level).resolved)
                clock[1] += time.process_time() - start
                if t % every == 0:
                    start = time.process_time()
                    flags[2].append(decide(cfg, problem, svm, r, t, X, y, pool_X[scored], doublings=DOUBLINGS,
                                           level=level).resolved)
                    clock[2] += time.process_time() - start
                    clock[3] += today
                available = available[available != pick]
        counts += len(flags[0]), len(flags[2]), np.sum(flags[0]), np.sum(flags[1]), np.sum(flags[2])
        times += clock
        print(f"{name:14s} {len(flags[0]):5d} {np.mean(flags[0]):15.3f} {np.mean(flags[1]):9.3f} "
              f"{np.mean(flags[2]):9.3f} {clock[0]:10.1f} {clock[1]:11.1f} {clock[1] / clock[0]:6.2f} "
              f"{clock[2] / clock[3]:9.2f}", flush=True)
    print(f"{'all':14s} {int(counts[0]):5d} {counts[2] / counts[0]:15.3f} {counts[3] / counts[0]:9.3f} "
          f"{counts[4] / counts[1]:9.3f} {times[0]:10.1f} {times[1]:11.1f} {times[1] / times[0]:6.2f} "
          f"{times[2] / times[3]:9.2f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", nargs="+", choices=["cost", "accuracy", "states", "curves"],
                        default=["cost", "accuracy"])
    parser.add_argument("--level", choices=list(LEVELS), default="family",
                        help="the race's rule in the states and curves parts: the family-wise LEVEL (0.05) or "
                             "per-comparison (level=None, 3 standard errors)")
    parser.add_argument("--replicates", type=int, default=5, help="states per problem (cost), replicates (states)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    with threadpool_limits(1):
        decisive_q_c(get_problem("four-gaussian"), SVM(), *labelled_state(get_problem("four-gaussian"), 10, 5,
                                                                          np.random.default_rng(0)), seed=0)  # warm-up
        if "cost" in args.part:
            cost(args.replicates, args.seed)
        if "accuracy" in args.part:
            accuracy(args.seed)
        if "states" in args.part:
            states(10 if args.replicates == 5 else args.replicates, LEVELS[args.level])
        if "curves" in args.part:
            curves(1 if args.replicates == 5 else args.replicates, args.seed, LEVELS[args.level])
    return 0


if __name__ == "__main__":
    sys.exit(main())
