r"""Benchmark: the ``quick`` study preset on the local backend against a Dask LocalCluster of 1 and 2 workers.

What is measured
----------------
:func:`mri_theory.runners.study.run_study` with ``preset="quick"`` (2 problems × LDA
and kknn5 × RS, SE, SMRI and MRI-best × 3 replicates, pool 60, population
2000, and the 4 asymptotic losses: 52 tasks), each run into a fresh output
folder, so every task is computed and every file written:

* ``local``: the local backend, ``n_jobs=1`` (in this process);
* ``local, 2 jobs``: the local backend, ``n_jobs=2`` (joblib worker processes);
* ``dask, 1 worker`` and ``dask, 2 workers``: ``backend="dask"`` with
  ``scheduler=None``, so each run starts and stops its own ``LocalCluster``
  of single-threaded worker processes (the start-up is part of the time).

The wall time of each (best of ``--repeats``), its ratio to ``local``, and a
check that every run's tables equal the first's exactly.  The ratios depend on
the cores free at the time (the machine this was written on has 2, shared).

Run: ``python benchmarks/bench_study.py [--repeats 1]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from pandas.testing import assert_frame_equal

from mri_theory.runners import Execution, run_study

#: Each run's :class:`~mri_theory.runners.Execution` fields (made when the run starts: Dask is an optional extra).
RUNS = {
    "local": dict(backend="local", n_jobs=1),
    "local, 2 jobs": dict(backend="local", n_jobs=2),
    "dask, 1 worker": dict(backend="dask", n_jobs=1),
    "dask, 2 workers": dict(backend="dask", n_jobs=2),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1, help="runs of each backend; the best time is kept")
    args = parser.parse_args(argv)
    times, first = {}, None
    with tempfile.TemporaryDirectory() as tmp:
        for name, options in RUNS.items():
            best = float("inf")
            for repeat in range(args.repeats):
                out = Path(tmp) / f"{name.replace(', ', '-').replace(' ', '')}-{repeat}"  # a fresh folder each time
                start = time.perf_counter()
                results = run_study("quick", out=out, execution=Execution(progress=False, **options))
                best = min(best, time.perf_counter() - start)
                if first is None:
                    first = results
                assert_frame_equal(results.curves, first.curves, check_exact=True)
                assert_frame_equal(results.asymptotic, first.asymptotic, check_exact=True)
            times[name] = best
    print(f"quick preset: {len(first.curves)} curve rows, {len(first.asymptotic)} asymptotic losses; "
          "every backend's tables identical")
    print(f"{'backend':18s} {'wall time (s)':>14s} {'ratio to local':>15s}")
    for name, seconds in times.items():
        print(f"{name:18s} {seconds:14.2f} {seconds / times['local']:15.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
