r"""Benchmark: the study's task order, longest first, against the table order it replaced, on N workers.

What is measured
----------------
The committed full abstract study's task times (``figures/study/full-run/study-full.tar.xz``: ``timings.csv``,
2,430 tasks, measured on the 2-core machine) are replayed by :func:`mri_theory.runners.study.plan_study` on 2 and
16 workers (and ``--workers``): the simulated wall with the tasks in the table order (the order before issue 42:
the asymptotic losses, then the curves by problem, classifier, strategy and replicate), with the tasks longest
first by the cost model (:func:`mri_theory.runners.schedule.expected_costs`, what :func:`run_study` does now),
and the lower bound of any schedule, ``max(total / N, longest task)``.  The same for the grid of the issue's
measurement, Four-Gaussian at the paper preset with 4 replicates (198 tasks), cut from the same timings.

Printed: per grid and worker count the three walls, the ratio of each order's wall to the bound, and the speed-up
from 2 to 16 workers of each order.  A replay assumes every task takes the time it took on the 2-core machine; on a
loaded many-core machine tasks slow down (the issue measured a median 1.16x on 16 busy cores), which the replay
does not model.

Run: ``python benchmarks/bench_schedule.py [--workers 2 16]`` (a second).
"""

from __future__ import annotations

import argparse
import json
import sys
import tarfile
import tempfile
from pathlib import Path

import pandas as pd

from mri_theory.runners.study import plan_study

ARCHIVE = Path(__file__).resolve().parents[1] / "figures" / "study" / "full-run" / "study-full.tar.xz"


def _extract(folder: Path) -> Path:
    """``study.json`` and ``timings.csv`` of the committed study, in ``folder / "study-full"``."""
    with tarfile.open(ARCHIVE) as archive:
        for name in ("study-full/study.json", "study-full/timings.csv"):
            archive.extract(name, folder, filter="data")
    return folder / "study-full"


def _sub_grid(full: Path, folder: Path, problem: str, replicates: int) -> Path:
    """A study folder holding the part of ``full``'s grid and timings on ``problem`` with ``replicates``."""
    stored = json.loads((full / "study.json").read_text())
    stored["grid"] = {**stored["grid"], "problems": [problem], "replicates": replicates}
    timings = pd.read_csv(full / "timings.csv", keep_default_na=False)
    keep = (timings.problem == problem) & (timings.replicate < replicates)
    folder.mkdir()
    (folder / "study.json").write_text(json.dumps(stored, indent=2, sort_keys=True))
    timings[keep].to_csv(folder / "timings.csv", index=False)
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 16])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        full = _extract(Path(tmp))
        grids = {"full abstract study": full,
                 "Four-Gaussian, 4 replicates": _sub_grid(full, Path(tmp) / "four", "four-gaussian", 4)}
        for title, folder in grids.items():
            plans = [plan_study(folder, workers) for workers in args.workers]
            print(f"\n{title}: {plans[0].tasks} tasks, {plans[0].total:,.0f} s of wall in all, the longest "
                  f"{plans[0].longest:,.1f} s")
            print("workers | table order | longest first | bound | table / bound | longest first / bound")
            for plan in plans:
                print(f"{plan.workers} | {plan.table_order:,.1f} s | {plan.longest_first:,.1f} s | "
                      f"{plan.lower_bound:,.1f} s | {plan.table_order / plan.lower_bound:.3f} | "
                      f"{plan.longest_first / plan.lower_bound:.3f}")
            first, last = plans[0], plans[-1]
            print(f"speed-up {first.workers} -> {last.workers} workers: table order "
                  f"{first.table_order / last.table_order:.2f}x, longest first "
                  f"{first.longest_first / last.longest_first:.2f}x; longest first against the table order at "
                  f"{last.workers}: {last.table_order / last.longest_first:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
