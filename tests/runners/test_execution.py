"""One execution channel: every runner's ``execution=``, and the public plan/execute of ``score_states``.

* :class:`~mri_theory.runners.Execution` checks its fields when made, naming
  the field, and is the same class from ``sandbox``, ``study`` and
  ``states``.
* Every runner takes ``execution=`` (keyword, default ``None``: ``Execution()``)
  and none of the old ``backend``, ``scheduler``, ``n_jobs``, ``progress``
  keywords; the files are the same whatever the execution.
* ``run_curves`` runs on Dask: a 2-worker ``LocalCluster`` writes the bytes of
  the local backend (and so does ``mri-theory curves --dask``).
* ``score_states(...) == execute_states(plan_states(...))``, and planning
  writes nothing.

The expected files are those of a serial run in this process (independent runs), never the code's output
under test.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

import numpy as np
import pytest
from _shared import QUIET, TWO_WORKERS, snapshot
from pandas.testing import assert_frame_equal

import mri_theory
from mri_theory.cli import main
from mri_theory.runners import (
    StatesPlan,
    execute_states,
    noisy_selection_curves,
    plan_states,
    read_states,
    run_diagnostics,
    run_leaderboard,
    sandbox,
    score_states,
    study,
)
from mri_theory.runners import (
    states as diagnostics,
)
from mri_theory.runners.sandbox import Execution, run_curves
from mri_theory.runners.study import run_study

CURVES = dict(problem="four-gaussian", classifier="lda", strategies=["RS", "SE"], pool_size=8, replicates=2,
              seed=3, population_size=200)
STUDY = dict(problems=["four-gaussian"], classifiers=["lda"], strategies=["RS"], replicates=1, pool_size=8,
             population_size=200, seed=3, asymptotic_train=100, asymptotic_replicates=1, asymptotic_population=200)
STATES = dict(problem="four-gaussian", classifier="lda", strategies=["RS", "SE"], replicates=1, steps=[1],
              pool_size=6, population_size=200)
CLI_CURVES = ["curves", "--problem", "four-gaussian", "--classifier", "lda", "--strategies", "RS", "SE",
              "--replicates", "2", "--pool", "8", "--population", "200", "--seed", "3"]


# ------------------------------------------------------------------ the object


def test_defaults_and_one_class_everywhere():
    assert Execution() == Execution("local", None, 1, True)
    assert sandbox.Execution is study.Execution is diagnostics.Execution
    for module in (sandbox, study, diagnostics):
        assert "Execution" in module.__all__
    with pytest.raises(dataclasses.FrozenInstanceError):
        Execution().n_jobs = 2


def test_fields_are_normalised():
    execution = Execution(n_jobs=np.int64(2), progress=np.bool_(False))
    assert type(execution.n_jobs) is int and execution.n_jobs == 2
    assert execution.progress is False
    assert Execution(n_jobs=-1).n_jobs == -1


@pytest.mark.parametrize("fields, error, match", [
    (dict(backend="spark"), ValueError, "backend must be 'local' or 'dask'"),
    (dict(backend=None), ValueError, "backend must be"),
    (dict(scheduler="tcp://host:8786"), ValueError, "scheduler applies to backend='dask' only"),
    (dict(backend="dask", scheduler=8786), TypeError, "scheduler must be a scheduler address"),
    (dict(backend="dask", scheduler="  "), ValueError, "scheduler must be an address"),
    (dict(backend="dask", scheduler="tcp://host:8786", n_jobs=2), ValueError, "n_jobs must be 1 with a scheduler"),
    (dict(n_jobs=0), ValueError, "n_jobs must be a positive number"),
    (dict(n_jobs=-2), ValueError, "n_jobs must be a positive number"),
    (dict(n_jobs=-3), ValueError, "n_jobs must be a positive number"),
    (dict(n_jobs=1.5), ValueError, "n_jobs"),
    (dict(n_jobs=True), TypeError, "n_jobs must be an integer"),
    (dict(n_jobs="two"), TypeError, "n_jobs must be an integer"),
    (dict(n_jobs=None), TypeError, "n_jobs must be an integer"),
    (dict(n_jobs=10**6), ValueError, "n_jobs must be at most 256"),
    (dict(progress="yes"), TypeError, "progress must be True or False"),
    (dict(progress=None), TypeError, "progress must be True or False"),
])
def test_bad_fields_are_named(fields, error, match):
    with pytest.raises(error, match=match):
        Execution(**fields)


# ------------------------------------------------------------------ the runners


def _curves(out, **execution):
    return run_curves(**CURVES, out=out, **execution)


def _study(out, **execution):
    return run_study("quick", **STUDY, out=out, **execution)


def _states(out, **execution):
    return score_states(**STATES, out=out, **execution)


RUNNERS = [_curves, _study, _states]


@pytest.mark.parametrize("runner", RUNNERS)
def test_two_workers_write_the_files_of_a_serial_run(runner, tmp_path):
    serial = runner(tmp_path / "serial", execution=QUIET)
    parallel = runner(tmp_path / "parallel", execution=TWO_WORKERS)
    assert snapshot(tmp_path / "parallel") == snapshot(tmp_path / "serial")
    assert snapshot(tmp_path / "serial")
    if isinstance(serial, tuple):
        for got, expected in zip(parallel, serial, strict=True):
            assert_frame_equal(got, expected)
    else:
        assert_frame_equal(parallel, serial)


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize("execution", ["local", {"n_jobs": 2}, 2])
def test_execution_must_be_an_execution(runner, execution, tmp_path):
    with pytest.raises(TypeError, match="execution must be an Execution"):
        runner(tmp_path / "out", execution=execution)
    assert not (tmp_path / "out").exists()


#: Every function that runs tasks on an :class:`Execution`.
EXECUTING = [run_curves, run_study, score_states, plan_states, run_diagnostics, run_leaderboard,
             noisy_selection_curves]


@pytest.mark.parametrize("runner", EXECUTING, ids=lambda f: f.__name__)
def test_execution_is_the_one_channel(runner):
    """``execution`` is a keyword with default None; the old keywords are gone (a TypeError, not ignored)."""
    parameters = inspect.signature(runner).parameters
    assert parameters["execution"].kind is inspect.Parameter.KEYWORD_ONLY
    assert parameters["execution"].default is None
    assert not {"backend", "scheduler", "n_jobs", "progress"} & set(parameters)
    with pytest.raises(TypeError, match="n_jobs"):
        runner(n_jobs=2)


def test_run_curves_on_a_dask_cluster_writes_the_bytes_of_the_local_backend(cluster, tmp_path):
    local = run_curves(**CURVES, out=tmp_path / "local", execution=QUIET)
    on_dask = run_curves(**CURVES, out=tmp_path / "dask",
                         execution=Execution("dask", cluster.scheduler_address, progress=False))
    assert snapshot(tmp_path / "dask") == snapshot(tmp_path / "local")
    assert_frame_equal(on_dask, local)


def test_cli_curves_dask_writes_the_bytes_of_the_local_run(cluster, tmp_path, capsys):
    assert main([*CLI_CURVES, "--out", str(tmp_path / "local")]) == 0
    assert main([*CLI_CURVES, "--dask", cluster.scheduler_address, "--out", str(tmp_path / "dask")]) == 0
    assert snapshot(tmp_path / "dask") == snapshot(tmp_path / "local")


@pytest.mark.parametrize("command", [CLI_CURVES, ["study", "--preset", "quick"], ["diagnose"]])
def test_cli_jobs_and_dask_make_one_execution(command, tmp_path, capsys):
    """``--jobs 2`` with a scheduler's address is the Execution's refusal, for every runner, before any file."""
    assert main([*command, "--dask", "tcp://localhost:1", "--jobs", "2", "--out", str(tmp_path / "out")]) == 2
    assert "n_jobs must be 1 with a scheduler" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ plan and execute


def test_score_states_is_execute_of_plan_and_planning_writes_nothing(tmp_path):
    plan = plan_states(**STATES, out=tmp_path / "planned", execution=QUIET)
    assert isinstance(plan, StatesPlan) and not (tmp_path / "planned").exists()
    assert list(plan.strategies) == ["RS", "SE"] and plan.execution == Execution(progress=False)
    table = execute_states(plan)
    expected = score_states(**STATES, out=tmp_path / "direct", execution=QUIET)
    assert_frame_equal(table, expected)
    assert snapshot(tmp_path / "planned") == snapshot(tmp_path / "direct")
    assert_frame_equal(read_states(tmp_path / "planned"), expected)


def test_plan_states_checks_as_score_states(tmp_path):
    with pytest.raises(ValueError, match="replicates"):
        plan_states(**{**STATES, "replicates": 0}, out=tmp_path / "out")
    with pytest.raises(TypeError, match="execution must be an Execution or None, got int"):
        plan_states(**STATES, execution=2, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("plan", [None, (1, 2), "plan"])
def test_execute_states_takes_a_plan(plan):
    with pytest.raises(TypeError, match="plan must be a StatesPlan"):
        execute_states(plan)


def test_the_public_api_of_diagnostics():
    for name in ("plan_states", "execute_states", "read_states", "StatesPlan", "Execution", "score_states"):
        assert name in diagnostics.__all__ and hasattr(diagnostics, name)


def test_the_cli_uses_no_private_name_of_the_runners():
    """The CLI reaches the runners through public names: no ``module._name`` of a runner module."""
    tree = ast.parse(Path(mri_theory.__file__).with_name("cli.py").read_text())
    private = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mri_theory.runners"):
            private += [alias.name for alias in node.names if alias.name.startswith("_")]
            private += [part for part in node.module.split(".") if part.startswith("_")]
        if isinstance(node, ast.Attribute) and node.attr in ("_plan", "_execute"):
            private.append(node.attr)
    assert private == []
