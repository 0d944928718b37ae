"""Where a runner's tasks run: in this process, in joblib workers, or on a Dask cluster.

One home for the backends of every runner (:func:`mri_theory.runners.sandbox.run_curves`,
:func:`mri_theory.runners.study.run_study`, :func:`mri_theory.runners.score_states`, ...):
:class:`Execution`, their one options object and their one way to say where the tasks run
(public as :class:`mri_theory.runners.Execution`; a runner's ``execution`` argument, checked by
:func:`check_execution`), and :func:`results`, which yields
``compute(*task)`` for every task as it finishes.  The workers only compute;
the caller writes every file as each result arrives.  Closing the generator
(an interrupted run) stops the remaining tasks.

Byte-identical results whatever runs them: every task runs with BLAS and
OpenMP limited to one thread (:func:`one_thread`, with ``threadpoolctl``), in
this process as in a worker, so no stored float depends on how a
multi-threaded BLAS splits a sum (a dot product over more than 10,000 points,
e.g. an asymptotic loss on a population of 20,000, differs in the last bit
between one and two OpenBLAS threads).  The parallelism is across tasks
(``n_jobs``), not inside them.

Workers do not outlive their parent: a joblib (loky) worker ends within a
second of its parent's death (SIGKILL included) instead of idling for loky's
timeout of five minutes (Dask's workers end with their nanny by themselves),
and the workers of a ``LocalCluster`` started here ignore SIGINT, so Ctrl-C
interrupts this process only, which closes the cluster, instead of printing a
``KeyboardInterrupt`` traceback from every worker.

``dask.distributed`` is an optional extra (``pip install "mri-theory[dask]"``),
imported only by the Dask backend.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mri_theory._utils import limits
from mri_theory._utils import validation as check

__all__ = ["Execution", "check_backend", "check_execution", "check_n_jobs", "one_thread", "results"]

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


@dataclass(frozen=True)
class Execution:
    """Where and how a runner runs its tasks: one options object for every runner.

    Every runner's ``execution=`` (:func:`mri_theory.runners.sandbox.run_curves`,
    :func:`mri_theory.runners.study.run_study`, :func:`mri_theory.runners.score_states`, ...;
    the command line builds one from ``--jobs`` and ``--dask``).  Every field is checked when the
    object is made.  Results and files are identical whatever the execution.

    Parameters
    ----------
    backend : {"local", "dask"}
        ``"local"``: in this process (``n_jobs=1``) or in joblib worker
        processes; ``"dask"``: on a ``dask.distributed`` cluster (the
        ``dask`` extra, ``pip install "mri-theory[dask]"``).
    scheduler : str, optional
        ``backend="dask"`` only: the address of a running scheduler
        (``"tcp://host:8786"``); ``None`` starts a ``LocalCluster`` of
        ``n_jobs`` single-threaded worker processes for the run.
    n_jobs : int
        Local worker processes (joblib, or the ``LocalCluster``): a positive
        count (at most 256) or -1 (all cores); 1 with a ``scheduler``, whose
        cluster has its own workers.
    progress : bool
        A tqdm progress bar over the tasks.

    Raises
    ------
    ValueError, TypeError
        Naming the field, for a bad value.
    ImportError
        ``backend="dask"`` without the ``dask`` extra installed.

    Examples
    --------
    The default runs every task in this process with a progress bar; an example or a test turns the bar off:

    >>> from mri_theory.runners import Execution, run_curves
    >>> Execution()
    Execution(backend='local', scheduler=None, n_jobs=1, progress=True)
    >>> quiet = Execution(progress=False)
    >>> curves = run_curves("four-gaussian", "lda", "RS", pool_size=4, replicates=1, population_size=100,
    ...                     execution=quiet)
    >>> curves.shape  # 5 steps; the result columns and record_q_c's (the truth exists)
    (5, 14)

    The fields are checked when the object is made, and it is frozen:

    >>> Execution(n_jobs=0)
    Traceback (most recent call last):
    ...
    ValueError: n_jobs must be a positive number of parallel jobs, or -1 for all cores; got 0
    >>> quiet.n_jobs = 2
    Traceback (most recent call last):
    ...
    dataclasses.FrozenInstanceError: cannot assign to field 'n_jobs'
    """

    backend: str = "local"
    scheduler: str | None = None
    n_jobs: int = 1
    progress: bool = True

    def __post_init__(self) -> None:
        _, _, n_jobs = check_backend(self.backend, self.scheduler, self.n_jobs)
        object.__setattr__(self, "n_jobs", limits.jobs(n_jobs))
        object.__setattr__(self, "progress", check.flag(self.progress, "progress"))


def check_execution(execution: Any) -> Execution:
    """A runner's ``execution``: an :class:`Execution`, or ``None`` for ``Execution()`` (local, in this process,
    with a progress bar); a TypeError naming ``execution`` otherwise."""
    if execution is None:
        return Execution()
    if not isinstance(execution, Execution):
        raise TypeError(f"execution must be an Execution or None, got {type(execution).__name__}")
    return execution


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Limit BLAS and OpenMP to one thread in this process for the ``with`` block (``threadpoolctl``).

    Every task of :func:`results` runs under it, so a stored float is summed
    in the same order in this process, in a joblib worker and on Dask,
    whatever thread count the BLAS would otherwise use.  Use it around any
    other computation whose floats reach a file.  The previous limits are
    restored on exit.
    """
    from threadpoolctl import (
        threadpool_limits,  # comes with scikit-learn; scans the loaded BLAS at each call
    )

    with threadpool_limits(limits=1):
        yield


def _in_one_thread(compute: Callable[..., Any], *task: Any) -> Any:
    """``compute(*task)`` under :func:`one_thread`: what this process and a joblib worker run for a task."""
    with one_thread():
        return compute(*task)


def _on_dask_worker(compute: Callable[..., Any], *task: Any) -> Any:
    """``compute(*task)`` with BLAS and OpenMP limited to one thread for the rest of this worker's life.

    Not restored after the task as :func:`one_thread` would: the threads of a
    multi-threaded Dask worker run tasks side by side, and one task's exit
    would lift the limit under another still running.  (Dask's nannies start
    their workers with one BLAS thread anyway.)
    """
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
    return compute(*task)


#: Seconds between a joblib worker's checks that its parent is alive.
_PARENT_CHECK = 0.5
_watching: set[int] = set()  # the parents this process watches (at most one: its own)
_watch_lock = threading.Lock()


def _exit_with_parent(parent: int) -> None:
    """End this process as soon as ``parent``, the process that gave it the task, is gone (a daemon thread).

    The parent's death shows as a change of ``getppid`` (the orphan is
    adopted), SIGKILL included, when the parent can stop nothing itself.
    Started once per worker process, by its first task; a no-op in the
    parent itself and on Windows (where ``getppid`` never changes: the
    workers keep loky's idle timeout there).
    """
    if os.name != "posix" or os.getpid() == parent:
        return
    with _watch_lock:
        if parent in _watching:
            return
        _watching.add(parent)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_CHECK)
        os._exit(1)  # no result of this worker can be delivered any more

    threading.Thread(target=watch, name="mri-theory-parent-watch", daemon=True).start()


def _in_worker(parent: int, compute: Callable[..., Any], *task: Any) -> Any:
    """What a joblib worker runs for a task: watch its parent (:func:`_exit_with_parent`), compute in one thread."""
    _exit_with_parent(parent)
    return _in_one_thread(compute, *task)


def _local_results(compute: Callable[..., Any], tasks: Sequence[tuple], n_jobs: int) -> Generator:
    """``compute(*task)`` for each task as it finishes: in this process (``n_jobs=1``) or in joblib workers.

    No more workers than tasks, so every worker gets a task, and with it the
    watch that ends it with this process.
    """
    if n_jobs == 1 or len(tasks) <= 1:
        return (_in_one_thread(compute, *task) for task in tasks)
    from joblib import Parallel, cpu_count, delayed

    workers = min(len(tasks), cpu_count() if n_jobs == -1 else n_jobs)
    parent = os.getpid()
    return Parallel(n_jobs=workers, return_as="generator_unordered")(
        delayed(_in_worker)(parent, compute, *task) for task in tasks)


@contextlib.contextmanager
def _ignoring_sigint() -> Iterator[None]:
    """SIGINT ignored in this process while the block starts worker processes, which inherit it.

    A Ctrl-C in the block (the seconds a ``LocalCluster`` takes to start) is
    lost.  Only in the main thread (the only one that may set a handler) and
    when the handler was set from Python (so it can be restored); elsewhere a
    no-op.
    """
    previous = signal.getsignal(signal.SIGINT)
    if previous is None or threading.current_thread() is not threading.main_thread():
        yield  # a handler not set from Python could not be restored
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


#: The Dask setting that exports ``MALLOC_TRIM_THRESHOLD_`` to every worker process a nanny spawns.
DASK_MALLOC_TRIM_SETTING = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"

#: The Dask setting that runs the workers' statistical profiler (a stack sample of the task thread every 10 ms).
DASK_PROFILE_SETTING = "distributed.worker.profile.enabled"

#: The Dask settings of two periodic checks of every scheduler, nanny and worker event loop: its health (Dask's
#: default every 20 ms) and the process's memory (every 100 ms); ours run every second.
DASK_POLLING_SETTINGS = ("distributed.admin.tick.interval", "distributed.worker.memory.monitor-interval")

#: The interval of :data:`DASK_POLLING_SETTINGS` on a ``LocalCluster`` of ours.
DASK_POLLING_INTERVAL = "1s"


@contextlib.contextmanager
def _local_worker_settings() -> Iterator[None]:
    """Dask defaults changed for the ``LocalCluster`` started in the block: no malloc trim, no profiler, slower polls.

    * Dask's ``MALLOC_TRIM_THRESHOLD_=65536`` is left out.  Setting any of
      glibc's malloc thresholds turns off its dynamic mmap threshold, so every
      array over 128 kB is a fresh ``mmap`` and a page fault per 4 kB touched.
      Measured with ``benchmarks/bench_bmri.py`` at |D_S| = 200: the SVM's
      BMRI step 0.84 s with the setting, 0.36 s without (2.3x), logistic
      regression's 0.46 s vs 0.17 s, and most of the difference is system
      time.  The setting is Dask's (it returns memory to the OS for
      long-lived workers holding big data); ours hold a few MB.  A variable
      the user exported in this process's environment still reaches the
      workers.
    * The workers' profiler is off: every 10 ms it takes the interpreter lock
      to walk the task thread's stack (for the dashboard's profile page, which
      a study never shows).  In the full study the workers' other threads
      used 3.6 % of a core each beside the task thread.
    * The event loops' health check and the memory monitor
      (:data:`DASK_POLLING_SETTINGS`) run every second instead of every 20
      and 100 ms, in the scheduler, the nannies and the workers: an idle
      cluster of two workers used about 10 % of a core with Dask's intervals,
      2 % with these.  On a Dask study of 102 short LDA and naive-Bayes tasks
      (two runs each) the tasks' wall time exceeded their CPU time by 2.1-2.3 %
      instead of 3.7-4.8 %.  Neither check changes what a task computes; the
      first only logs an event loop blocked for 3 s, the second pauses or
      spills a worker near its memory limit (ours hold a few MB).
    """
    import dask

    # None: "do not set" (distributed.nanny); the nanny passes this process's configuration to its worker
    settings: dict[str, Any] = {DASK_MALLOC_TRIM_SETTING: None, DASK_PROFILE_SETTING: False}
    settings.update(dict.fromkeys(DASK_POLLING_SETTINGS, DASK_POLLING_INTERVAL))
    with dask.config.set(settings):
        yield


def _dask_results(compute: Callable[..., Any], tasks: Sequence[tuple], scheduler: str | None,
                  n_jobs: int) -> Generator:
    """``compute(*task)`` for each task on a Dask cluster, as they complete; closing the generator cancels the rest."""
    distributed = _dask()
    cluster = None
    if scheduler is None:
        # Ctrl-C reaches the workers too: this process alone handles it.  A task's error reaches this process
        # through its future; the workers' own logs would only add the noise of a cluster closed mid-task.
        with _ignoring_sigint(), _local_worker_settings():
            cluster = distributed.LocalCluster(n_workers=None if n_jobs == -1 else n_jobs, threads_per_worker=1,
                                               processes=True, dashboard_address=":0",
                                               silence_logs=logging.CRITICAL)
    try:
        try:
            client = distributed.Client(cluster if cluster is not None else scheduler)
        except OSError as exc:  # refused, unreachable, timed out
            raise OSError(f"scheduler: cannot connect to the Dask scheduler at {scheduler!r} ({exc})") from None
        try:
            futures = client.map(functools.partial(_on_dask_worker, compute),
                                 *(list(column) for column in zip(*tasks, strict=True)), pure=False)
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


def results(compute: Callable[..., Any], tasks: Sequence[tuple], execution: Execution) -> Generator:
    """``compute(*task)`` for each task, in the order they finish, on the :class:`Execution`'s backend.

    ``compute`` must be a module-level function (pickled by reference for the
    workers) that returns its result together with the task's key.  Closing
    the generator stops the remaining tasks (joblib) or cancels them (Dask).
    No task, or ``backend="local"``, never starts a cluster.  Every task runs
    with one BLAS and OpenMP thread, so its result has the same bits on every
    backend (module docstring).
    """
    if execution.backend == "local" or not tasks:
        return _local_results(compute, tasks, execution.n_jobs)
    return _dask_results(compute, tasks, execution.scheduler, execution.n_jobs)
