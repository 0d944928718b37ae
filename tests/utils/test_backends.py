"""Where the runners' tasks run (:mod:`mri_theory._utils.backends`): same bytes everywhere, no orphaned workers.

* Control: the machine's BLAS (found with ``threadpoolctl``) runs two threads
  and then sums a long dot product in another order, so the tests below can
  fail; skipped, with the reason, where that is not so.
* Every task runs with one BLAS/OpenMP thread whatever the parent's limit
  (in this process, in joblib workers, on Dask), and the parent's limits are
  restored afterwards.
* ``run_study``, ``run_curves`` and ``score_states`` write the same bytes with
  one or two BLAS threads in the parent, with joblib workers and on a 2-worker
  ``LocalCluster`` (processes); the sizes put populations above 10,000
  points, where OpenBLAS splits a dot product between threads.
* After a SIGKILL of ``mri-theory curves --jobs 2`` its loky workers are gone
  within 20 s (loky's own idle timeout is 5 minutes); Ctrl-C (SIGINT to the
  process group) of ``mri-theory study --dask local`` exits with 130 and no
  traceback from any worker.
* The workers of the ``LocalCluster`` the runners start do not get Dask's
  ``MALLOC_TRIM_THRESHOLD_`` (a plain ``LocalCluster``'s do: the control), nor
  does the process that starts it; and they run no profiler (a plain one's do).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from _optional import requires
from _shared import QUIET, TWO_WORKERS, snapshot
from pandas.testing import assert_frame_equal
from threadpoolctl import threadpool_info, threadpool_limits

from mri_theory._utils import backends
from mri_theory.runners import score_states
from mri_theory.runners.sandbox import run_curves
from mri_theory.runners.study import run_study

#: Populations above OpenBLAS's 10,000-element threshold for a threaded dot product.
STUDY = dict(problems=["four-gaussian"], classifiers=["lda"], strategies=["RS"], replicates=2, pool_size=5, budget=2,
             population_size=12_000, seed=0, asymptotic_train=60, asymptotic_replicates=1,
             asymptotic_population=20_000)
CURVES = dict(problem="four-gaussian", classifier="lda", strategies=["RS", "SE"], pool_size=5, budget=2, replicates=2,
              population_size=20_000, seed=1)
STATES = dict(problem="four-gaussian", classifier="lda", strategies=["RS", "SE"], replicates=2, steps=[0, 1],
              pool_size=5, population_size=20_000, seed=2)


def blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def _pools_seen(key: int) -> tuple[int, int]:
    """A task for :func:`backends.results`: the most threads any BLAS or OpenMP pool of this process may use."""
    return key, max(pool["num_threads"] for pool in threadpool_info())


def descendants_exit(pids: list, seconds: float) -> list[int]:
    """Wait up to ``seconds`` for the processes to end (a zombie counts as ended); the pids still running."""
    import psutil

    deadline = time.monotonic() + seconds
    while True:
        running = []
        for proc in pids:
            try:
                if proc.status() != psutil.STATUS_ZOMBIE:
                    running.append(proc)
            except psutil.NoSuchProcess:
                pass
        if not running or time.monotonic() > deadline:
            return [proc.pid for proc in running]
        time.sleep(0.2)


def wait_for(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds} s waiting for {what}")
        time.sleep(0.1)


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "mri_theory.cli", *args]


# ------------------------------------------------------------------ one BLAS thread per task


def test_the_blas_runs_two_threads_and_they_sum_in_another_order():
    """Control: without it, the byte-identity tests below could not fail on this machine."""
    assert blas_threads(), f"threadpoolctl finds no BLAS: {threadpool_info()}"
    with threadpool_limits(limits=2):
        if max(blas_threads()) < 2:
            pytest.skip(f"the BLAS runs a single thread here ({threadpool_info()}): nothing to compare")
    x, y = np.random.default_rng(0).standard_normal((2, 8, 100_001))
    sums = {}
    for threads in (1, 2):
        with threadpool_limits(limits=threads):
            sums[threads] = [float(a @ b) for a, b in zip(x, y, strict=True)]
    if sums[1] == sums[2]:
        pytest.skip("this BLAS sums a dot product alike with one and two threads: nothing to compare")
    assert np.allclose(sums[1], sums[2], rtol=1e-12, atol=0)  # the same sums, up to rounding


def test_one_thread_limits_every_pool_and_restores_the_limits():
    with threadpool_limits(limits=2):
        before = [pool["num_threads"] for pool in threadpool_info()]
        with backends.one_thread():
            assert {pool["num_threads"] for pool in threadpool_info()} == {1}
        assert [pool["num_threads"] for pool in threadpool_info()] == before


@pytest.mark.parametrize("backend, n_jobs", [("local", 1), ("local", 2), ("dask", 1)])
def test_every_task_runs_with_one_blas_thread(backend, n_jobs, request):
    scheduler = request.getfixturevalue("cluster").scheduler_address if backend == "dask" else None
    with threadpool_limits(limits=2):
        before = blas_threads()
        seen = dict(backends.results(_pools_seen, [(key,) for key in range(3)],
                                       backends.Execution(backend, scheduler, n_jobs)))
        assert blas_threads() == before  # the parent's limits, back after the run
    assert seen == {0: 1, 1: 1, 2: 1}


# ------------------------------------------------------------------ the same bytes


def test_a_study_writes_the_same_bytes_with_one_or_two_blas_threads_joblib_and_dask(tmp_path, cluster):
    dask = backends.Execution("dask", cluster.scheduler_address, progress=False)
    runs = {}
    for name, threads, execution in [("two_threads", 2, QUIET), ("one_thread", 1, QUIET), ("joblib", 2, TWO_WORKERS),
                                     ("dask", 2, dask)]:
        with threadpool_limits(limits=threads):
            runs[name] = run_study(**STUDY, execution=execution, out=tmp_path / name)
    files = {name: snapshot(tmp_path / name) for name in runs}
    assert len(files["one_thread"]) >= 6  # study.json, the tables, the record, config and parts
    for name in runs:
        assert_frame_equal(runs[name].asymptotic, runs["one_thread"].asymptotic, check_exact=True)
        assert_frame_equal(runs[name].curves, runs["one_thread"].curves, check_exact=True)
        assert files[name] == files["one_thread"], name


def test_curves_are_the_same_bytes_with_one_or_two_blas_threads_and_joblib(tmp_path):
    for name, threads, execution in [("two_threads", 2, QUIET), ("one_thread", 1, QUIET), ("joblib", 2, TWO_WORKERS)]:
        with threadpool_limits(limits=threads):
            run_curves(**CURVES, execution=execution, out=tmp_path / name)
    files = {name: snapshot(tmp_path / name) for name in ("two_threads", "one_thread", "joblib")}
    assert files["two_threads"] == files["one_thread"] == files["joblib"]


def test_states_are_the_same_bytes_with_one_or_two_blas_threads_joblib_and_dask(tmp_path, cluster):
    dask = backends.Execution("dask", cluster.scheduler_address, progress=False)
    for name, threads, execution in [("two_threads", 2, QUIET), ("one_thread", 1, QUIET), ("joblib", 2, TWO_WORKERS),
                                     ("dask", 2, dask)]:
        with threadpool_limits(limits=threads):
            score_states(**STATES, execution=execution, out=tmp_path / name)
    files = {name: snapshot(tmp_path / name) for name in ("two_threads", "one_thread", "joblib", "dask")}
    assert files["two_threads"] == files["one_thread"] == files["joblib"] == files["dask"]


# ------------------------------------------------------------------ workers end with their parent


@requires("psutil")
def test_loky_workers_end_promptly_when_the_parent_is_killed(tmp_path):
    import psutil

    out = tmp_path / "curves"
    proc = subprocess.Popen(cli("curves", "--problem", "four-gaussian", "--classifier", "lda", "--strategies", "RS",
                                "SE", "--replicates", "400", "--pool", "40", "--budget", "15", "--population", "2000",
                                "--jobs", "2", "--out", str(out)),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    children: list[psutil.Process] = []
    try:
        wait_for(lambda: any((out / "parts").glob("*.csv")) or proc.poll() is not None, 120, "the first part")
        assert proc.poll() is None, "the run ended before it could be killed: make it longer"
        children = psutil.Process(proc.pid).children(recursive=True)
        assert len([c for c in children if "loky" in " ".join(c.cmdline()).lower()]) >= 2, children
        proc.kill()  # SIGKILL: the parent cleans nothing up
        proc.wait()
        assert descendants_exit(children, 20) == []
    finally:
        proc.kill()
        for child in children:
            with contextlib.suppress(psutil.NoSuchProcess):
                child.kill()


def _sigint_as_in_a_terminal() -> None:
    """In the child before it starts: SIGINT's default action, as a shell gives a command it starts.

    A child inherits an ignored SIGINT from its parent, and Python then keeps ignoring it; a pytest worker process
    can be in that state (seen in full ``-n auto`` runs), and the command would then never see the Ctrl-C.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@requires("distributed")
@requires("psutil")
def test_ctrl_c_of_a_dask_run_exits_130_without_worker_tracebacks(tmp_path):
    import psutil

    out = tmp_path / "study"
    proc = subprocess.Popen(cli("study", "--problems", "four-gaussian", "--classifiers", "lda", "--strategies", "RS",
                                "SE", "--replicates", "400", "--pool", "40", "--budget", "15", "--population", "2000",
                                "--asymptotic-train", "100", "--asymptotic-replicates", "1",
                                "--asymptotic-population", "500", "--dask", "local", "--jobs", "2", "--out", str(out)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_sigint_as_in_a_terminal)
    children: list[psutil.Process] = []
    try:
        wait_for(lambda: any(out.glob("*/parts/*.csv")) or proc.poll() is not None, 120, "the first part")
        assert proc.poll() is None, "the run ended before it could be interrupted: make it longer"
        children = psutil.Process(proc.pid).children(recursive=True)
        assert len([c for c in children if "dask" in " ".join(c.cmdline()).lower()
                    or "dask" in c.name().lower()]) >= 2, children
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole process group
        _, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 130, stderr
        assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
        assert descendants_exit(children, 20) == []
    finally:
        proc.kill()
        for child in children:
            with contextlib.suppress(psutil.NoSuchProcess):
                child.kill()


# ------------------------------------------------------------ glibc's malloc left alone, no profiler on Dask workers

#: In a fresh interpreter (a cluster started by an earlier test exports the variable into this process): the
#: variable as a worker of a plain ``LocalCluster`` sees it (the control), then as a worker of ours, then this
#: process after both.
_MALLOC_SCRIPT = """
import json, logging, os
import distributed
from mri_theory._utils import backends

def seen(key):
    worker = distributed.get_worker()
    profiled = "profile" in worker.periodic_callbacks  # the worker's stack sampler
    polls = [worker._tick_interval, worker.periodic_callbacks["memory_monitor"].callback_time / 1000]  # seconds
    return key, [os.environ.get("MALLOC_TRIM_THRESHOLD_"), profiled, polls]

with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                              silence_logs=logging.CRITICAL) as cluster, distributed.Client(cluster) as client:
    plain = client.submit(seen, 0).result()[1]
os.environ.pop("MALLOC_TRIM_THRESHOLD_", None)  # what the plain cluster's nanny exported into this process
ours = dict(backends.results(seen, [(0,), (1,)], backends.Execution("dask", None, 2)))
print(json.dumps({"plain": plain, "ours": ours, "parent": os.environ.get("MALLOC_TRIM_THRESHOLD_")}))
"""


@requires("distributed")
def test_workers_of_our_local_cluster_keep_glibcs_default_malloc_thresholds_and_run_no_profiler():
    """Dask exports ``MALLOC_TRIM_THRESHOLD_=65536`` to workers; it fixes glibc's mmap threshold (BMRI 2.3x slower).

    And a Dask worker samples its task thread's stack every 10 ms by default (its profiler); ours do not.  Its event
    loop's health check and memory monitor run every 20 and 100 ms by default; ours every second.
    """
    import json

    env = {key: value for key, value in os.environ.items() if key != "MALLOC_TRIM_THRESHOLD_"}
    done = subprocess.run([sys.executable, "-c", _MALLOC_SCRIPT], capture_output=True, text=True, env=env,
                          timeout=120, check=True)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    if seen["plain"] != ["65536", True, [0.02, 0.1]]:
        pytest.skip(f"this version of distributed has other defaults (trim threshold, profiler, polls): "
                    f"{seen['plain']}")
    assert seen["ours"] == {"0": [None, False, [1.0, 1.0]], "1": [None, False, [1.0, 1.0]]}
    assert seen["parent"] is None  # nor exported into the process that started the cluster
