r"""Benchmark: the measured CPU cost of one problem-replicate of the paper's study, per classifier and method.

What is measured
----------------
One replicate of the ``paper`` preset of :func:`mri_theory.runners.study.run_study` on one problem
(default Four-Gaussian; pool 250 labelled to exhaustion, 100 candidates per costly step, population
``10^4``, ``truth="auto"``): every (classifier, method) learning curve of the six paper classifiers and
the seven methods plus MRI-best, each a whole :func:`~mri_theory.runners.sandbox.run_curves` curve
timed on its own (CPU seconds of the process that runs it, ``time.process_time``; the curves run in
``--jobs`` joblib worker processes, one BLAS thread each).  Printed: the table of CPU seconds, the
total per classifier and per method, and the total times 50 (the abstract study's 5 problems × 10
replicates), which is what the full study would cost at this problem's rate.

Run: ``python benchmarks/bench_study_cost.py [--problem four-gaussian] [--jobs 2]``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import pandas as pd
from joblib import Parallel, delayed

from mri_theory._utils.backends import one_thread
from mri_theory.runners import Execution, run_curves
from mri_theory.runners.study import CLASSIFIER_SETS, PRESETS, STRATEGY_SETS

METHODS = (*STRATEGY_SETS["paper"], "MRI-best")


def curve_cost(problem: str, classifier: str, method: str, truth: str | None = None) -> tuple[str, str, float, float]:
    """CPU and wall seconds of one whole learning curve of the paper preset (its replicate 0), with the preset's
    truth or ``truth``."""
    preset = PRESETS["paper"]
    with one_thread():
        cpu, wall = time.process_time(), time.perf_counter()
        run_curves(problem, classifier, [method], pool_size=preset["pool_size"], replicates=1,
                   seed=preset["seed"], population_size=preset["population_size"], loss=preset["loss"],
                   subsample=preset["subsample"], record_q_c=preset["record_q_c"], execution=Execution(progress=False),
                   truth=preset["truth"] if truth is None else truth)
        return classifier, method, time.process_time() - cpu, time.perf_counter() - wall


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", default="four-gaussian")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    tasks = [(c, m) for c in CLASSIFIER_SETS["paper"] for m in METHODS]
    start = time.perf_counter()
    rows = Parallel(n_jobs=args.jobs)(delayed(curve_cost)(args.problem, c, m) for c, m in tasks)
    wall = time.perf_counter() - start
    table = pd.DataFrame(rows, columns=["classifier", "method", "cpu_s", "wall_s"])
    cpu = table.pivot(index="classifier", columns="method", values="cpu_s").loc[list(CLASSIFIER_SETS["paper"]),
                                                                                list(METHODS)]
    cpu["total"] = cpu.sum(axis=1)
    cpu.loc["total"] = cpu.sum(axis=0)
    print(f"{args.problem}, replicate 0, paper preset, truth auto: CPU seconds per curve")
    print(cpu.round(1).to_string())
    total = cpu.loc["total", "total"]
    print(f"\none problem-replicate: {total:.0f} CPU-s ({wall:.0f} s wall with {args.jobs} jobs); "
          f"x 50 (5 problems x 10 replicates): {50 * total / 3600:.1f} CPU-hours")
    return 0


if __name__ == "__main__":
    sys.exit(main())
