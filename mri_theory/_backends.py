"""Where a runner's tasks run: in this process, in joblib workers, or on a Dask cluster.

One home for the backends of :func:`mri_theory.sandbox.run_curves`,
:func:`mri_theory.study.run_study` and
:func:`mri_theory.diagnostics.score_states`: the checks of their ``backend``,
``scheduler`` and ``n_jobs`` arguments, and :func:`results`, which yields
``compute(*task)`` for every task as it finishes.  The workers only compute;
the caller writes every file as each result arrives.  Closing the generator
(an interrupted run) stops the remaining tasks.

``dask.distributed`` is an optional extra (``pip install "mri-theory[dask]"``),
imported only by the Dask backend.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator, Sequence
from typing import Any

import numpy as np

from mri_theory import _validation as check

__all__ = ["check_backend", "check_n_jobs", "results"]

BACKENDS = ("local", "dask")


def check_n_jobs(n_jobs: Any) -> int:
    """``n_jobs`` as joblib reads it, restricted to a positive count or -1 (all cores)."""
    if isinstance(n_jobs, (int, np.integer)) and not isinstance(n_jobs, (bool, np.bool_)) and n_jobs == -1:
        return -1
    try:
        return check.count(n_jobs, "n_jobs")
    except ValueError:
        raise ValueError(f"n_jobs must be a positive number of parallel jobs, or -1 for all cores; "
                         f"got {n_jobs!r}") from None


def _dask() -> Any:
    """The ``distributed`` module, or an ImportError naming the extra that installs it."""
    try:
        import distributed
    except ImportError:
        raise ImportError('backend="dask" needs dask.distributed: pip install "mri-theory[dask]"') from None
    return distributed


def check_backend(backend: Any, scheduler: Any, n_jobs: Any) -> tuple[str, str | None, int]:
    """The validated ``(backend, scheduler, n_jobs)`` of a runner.

    ``backend`` is ``"local"`` or ``"dask"``; ``scheduler`` (Dask only) is a
    scheduler address or None (start a ``LocalCluster`` of ``n_jobs``
    workers); ``n_jobs`` is a positive count or -1, and 1 with a scheduler.
    With ``backend="dask"`` the ``distributed`` module must be importable
    (an ImportError naming the extra otherwise), so a run without the extra
    fails before it writes anything.
    """
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"backend must be 'local' or 'dask', got {backend!r}")
    if scheduler is not None:
        if backend != "dask":
            raise ValueError(f"scheduler applies to backend='dask' only, got backend={backend!r}")
        if not isinstance(scheduler, str):
            raise TypeError(f"scheduler must be a scheduler address (str) or None, got {type(scheduler).__name__}")
        if not scheduler.strip():
            raise ValueError("scheduler must be an address such as 'tcp://host:8786', got an empty string")
    n_jobs = check_n_jobs(n_jobs)
    if scheduler is not None and n_jobs != 1:
        raise ValueError(f"n_jobs must be 1 with a scheduler (its cluster has its own workers), got {n_jobs}")
    if backend == "dask":
        _dask()
    return backend, scheduler, n_jobs


def _local_results(compute: Callable[..., Any], tasks: Sequence[tuple], n_jobs: int) -> Generator:
    """``compute(*task)`` for each task as it finishes: in this process (``n_jobs=1``) or in joblib workers."""
    if n_jobs == 1 or len(tasks) <= 1:
        return (compute(*task) for task in tasks)
    from joblib import Parallel, delayed

    return Parallel(n_jobs=n_jobs, return_as="generator_unordered")(delayed(compute)(*task) for task in tasks)


def _dask_results(compute: Callable[..., Any], tasks: Sequence[tuple], scheduler: str | None,
                  n_jobs: int) -> Generator:
    """``compute(*task)`` for each task on a Dask cluster, as they complete; closing the generator cancels the rest."""
    distributed = _dask()
    cluster = None
    if scheduler is None:
        cluster = distributed.LocalCluster(n_workers=None if n_jobs == -1 else n_jobs, threads_per_worker=1,
                                           processes=True, dashboard_address=":0", silence_logs=logging.ERROR)
    try:
        try:
            client = distributed.Client(cluster if cluster is not None else scheduler)
        except OSError as exc:  # refused, unreachable, timed out
            raise OSError(f"scheduler: cannot connect to the Dask scheduler at {scheduler!r} ({exc})") from None
        try:
            futures = client.map(compute, *(list(column) for column in zip(*tasks)), pure=False)
            try:
                for _, result in distributed.as_completed(futures, with_results=True):
                    yield result
            finally:
                client.cancel(futures)
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


def results(compute: Callable[..., Any], tasks: Sequence[tuple], backend: str = "local",
            scheduler: str | None = None, n_jobs: int = 1) -> Generator:
    """``compute(*task)`` for each task, in the order they finish, on the checked backend (:func:`check_backend`).

    ``compute`` must be a module-level function (pickled by reference for the
    workers) that returns its result together with the task's key.  Closing
    the generator stops the remaining tasks (joblib) or cancels them (Dask).
    No task, or ``backend="local"``, never starts a cluster.
    """
    if backend == "local" or not tasks:
        return _local_results(compute, tasks, n_jobs)
    return _dask_results(compute, tasks, scheduler, n_jobs)
