"""The study runner (:mod:`mri_theory.runners.study`, §5), its Dask backend, and ``mri-theory study`` / ``report``.

* Each pairing of a study equals :func:`mri_theory.runners.sandbox.run_curves` run on
  its own with the same settings and seed (MRI-best added), and each
  asymptotic loss equals :func:`mri_theory.runners.asymptotic.asymptotic_loss` called
  with the generator the module docstring documents.
* Paired design: every strategy of a (pairing, replicate) starts from the same
  loss and, the pool being exhausted, ends with the same labelled set, so the
  same final loss.
* The Dask backend on a 2-worker ``LocalCluster`` (processes, one thread each)
  gives tables equal to the local backend's and a study folder byte-identical
  to it; only this process writes; ``--dask local`` starts its own cluster.
* Resume: deleted or damaged parts and asymptotic records are named by a
  ``DamagedPartWarning`` and only they are recomputed; an interrupted run
  keeps its finished tasks; a grown grid computes only the new tasks.
* Another study, a corrupt ``study.json`` and a ``run_curves`` folder are
  refused before anything is written; bad arguments raise naming the
  argument; a missing Dask extra and an unreachable scheduler are named.
* The CLI runs a tiny study, reports it, and exits 2 / 130 on bad input /
  interrupt; the ``quick`` preset runs with its report (slow).

Sizes: 2 problems x 2 classifiers x RS, SE (+ MRI-best) x 2 replicates, pool 10, population 300.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import warnings
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _optional import requires
from _shared import QUIET, snapshot
from pandas.testing import assert_frame_equal

from mri_theory.classifiers import get_classifier, list_classifiers
from mri_theory.cli import main
from mri_theory.problems import get_problem, list_problems
from mri_theory.runners import Execution, _curves, _resolve, _store, asymptotic, sandbox, study
from mri_theory.runners.sandbox import DamagedPartWarning, run_curves
from mri_theory.runners.study import (
    CLASSIFIER_SETS,
    PRESETS,
    PROBLEM_GROUPS,
    STRATEGY_SETS,
    read_study,
    report,
    run_study,
)
from mri_theory.strategies import get_strategy, list_strategies

TINY = dict(problems=["four-gaussian", "quadratic"], classifiers=["lda", "knn5"], strategies=["RS", "SE"],
            replicates=2, pool_size=10, population_size=300, seed=4, asymptotic_train=200,
            asymptotic_replicates=2, asymptotic_population=300, execution=QUIET)
STRATEGIES = ["RS", "SE", "MRI-best"]
PAIRINGS = [(p, c) for p in TINY["problems"] for c in TINY["classifiers"]]
TASKS = [(p, c, s, r) for p, c in PAIRINGS for s in STRATEGIES for r in range(TINY["replicates"])]
CLI_TINY = ["--problems", "four-gaussian", "quadratic", "--classifiers", "lda", "knn5", "--strategies", "RS", "SE",
            "--replicates", "2", "--pool", "10", "--population", "300", "--seed", "4", "--asymptotic-train", "200",
            "--asymptotic-replicates", "2", "--asymptotic-population", "300"]


@pytest.fixture(scope="module")
def local():
    """The tiny study on the local backend, in memory."""
    return run_study(**TINY)


def count_tasks(monkeypatch) -> list:
    """Record the tasks that ``run_study`` computes in this process (curve pairs and asymptotic losses)."""
    calls = []
    run_pair, asymptotic = _curves.run_pair, study._asymptotic_loss

    def counting_pair(run, strategy, replicate):
        calls.append((run.config.problem, run.config.classifier, strategy, replicate))
        return run_pair(run, strategy, replicate)

    def counting_asymptotic(task):
        calls.append((task.config.problem, task.config.classifier, "asymptotic"))
        return asymptotic(task)

    monkeypatch.setattr(_curves, "run_pair", counting_pair)
    monkeypatch.setattr(study, "_asymptotic_loss", counting_asymptotic)
    return calls


def resume(folder: Path, **change) -> tuple:
    """Rerun the tiny study into ``folder``; the results and the DamagedPartWarning messages."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = run_study(**{**TINY, **change}, out=folder)
    return results, [str(w.message) for w in caught if issubclass(w.category, DamagedPartWarning)]


def rechecksum(folder: Path) -> None:
    """Forge ``folder/checksums.json`` to match the tables and ``study.json`` as they are now (hashlib here)."""
    digest = {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in ("curves.csv",
                                                                                        "asymptotic.csv")}
    (folder / "checksums.json").write_text(json.dumps({
        "format": 1, "settings_file": "study.json", "tables": digest,
        "settings_sha256": hashlib.sha256((folder / "study.json").read_bytes()).hexdigest()}))


def assert_same(results, expected) -> None:
    assert_frame_equal(results.curves, expected.curves, check_exact=True)
    assert_frame_equal(results.asymptotic, expected.asymptotic, check_exact=True)


@pytest.fixture
def finished(tmp_path, local):
    """A finished study folder."""
    folder = tmp_path / "study"
    assert_same(run_study(**TINY, out=folder), local)
    return folder


# ------------------------------------------------------------------ what a study computes


def test_each_pairing_equals_run_curves_with_mri_best_added(local):
    assert list(local.curves.columns) == sandbox.RESULT_COLUMNS
    for problem, classifier in PAIRINGS:
        alone = run_curves(problem, classifier, STRATEGIES, pool_size=TINY["pool_size"],
                           replicates=TINY["replicates"], seed=TINY["seed"], population_size=TINY["population_size"],
                           record_q_c=False, execution=QUIET)
        rows = local.curves[(local.curves.problem == problem) & (local.curves.classifier == classifier)]
        assert_frame_equal(rows.reset_index(drop=True), alone, check_exact=True)
    # problems, then classifiers, in the given order
    assert list(local.curves[["problem", "classifier"]].drop_duplicates().itertuples(index=False, name=None)) \
        == PAIRINGS


def test_asymptotic_loss_follows_the_documented_seed(local):
    assert list(local.asymptotic.columns) == ["problem", "classifier", "asymptotic_loss"]
    assert list(local.asymptotic[["problem", "classifier"]].itertuples(index=False, name=None)) == PAIRINGS
    for (problem, classifier), value in zip(PAIRINGS, local.asymptotic.asymptotic_loss, strict=True):
        rng = np.random.default_rng(np.random.SeedSequence(TINY["seed"], spawn_key=(
            zlib.crc32(b"asymptotic"), zlib.crc32(problem.encode()), zlib.crc32(classifier.encode()))))
        assert value == asymptotic.asymptotic_loss(problem, classifier, n_train=200, replicates=2, rng=rng,
                                                population_size=300)


def test_paired_start_and_common_end(local):
    """All strategies start from the same labelled set and, the pool exhausted, end with the same one."""
    for _, rows in local.curves.groupby(["problem", "classifier", "replicate"]):
        ends = rows.groupby("strategy").agg(first=("loss", "first"), last=("loss", "last"),
                                            n=("n_labelled", "last"))
        assert sorted(ends.index) == sorted(STRATEGIES)
        assert ends["first"].nunique() == 1 and (ends.n == 2 + TINY["pool_size"]).all()
        np.testing.assert_allclose(ends["last"], ends["last"].iloc[0], rtol=0, atol=1e-12)


def test_presets_and_groups_are_the_papers():
    paper = PRESETS["paper"]
    # the paper's groups (Appendix C, D, §5.1), derived from what the registered objects declare
    assert PROBLEM_GROUPS["abstract"] == ("four-gaussian", "quadratic", "triangles", "oscillating", "sharp")
    assert set(PROBLEM_GROUPS["abstract"]) <= set(list_problems())
    # the ten smaller real data sets of Appendix D's table, in its order (its parsing: tests/problems/test_small_real)
    assert PROBLEM_GROUPS["small"] == ("australian", "balance", "glass", "heart", "monks-1", "monks-2", "monks-3",
                                       "pima", "sonar", "wine")
    assert set(PROBLEM_GROUPS) == {"abstract", "small"}
    expanded = _resolve.expand(["small", "four-gaussian"], "problems", PROBLEM_GROUPS, "problem")
    assert [label for _, label, _ in expanded] == [*PROBLEM_GROUPS["small"], "four-gaussian"]
    assert (paper["problems"], paper["classifiers"], paper["strategies"], paper["replicates"]) \
        == ("abstract", "paper", "paper", 10)
    assert paper["budget"] is None and paper["record_q_c"] is False  # the pool exhausted; MRI-best's curve only
    assert CLASSIFIER_SETS["paper"] == ("lda", "qda", "kknn5", "nb", "logreg", "svm")
    assert set(CLASSIFIER_SETS["paper"]) <= set(list_classifiers())
    assert STRATEGY_SETS["paper"] == ("RS", "SE", "QbcV", "QbcA", "EfeLc", "SMRI", "BMRI")
    assert set(STRATEGY_SETS["paper"]) <= set(list_strategies())


# ------------------------------------------------------------------ Dask


def test_dask_local_cluster_equals_local_byte_for_byte(local, cluster, tmp_path, monkeypatch):
    written = []
    original = _store.write_atomic

    def recording(data, path):
        written.append((os.getpid(), Path(path)))
        return original(data, path)

    monkeypatch.setattr(_store, "write_atomic", recording)
    calls = count_tasks(monkeypatch)
    on_dask = run_study(**{**TINY, "execution": Execution("dask", cluster.scheduler_address, progress=False)},
                        out=tmp_path / "dask")
    assert calls == []  # every task ran on the workers
    assert_same(on_dask, local)
    assert_same(read_study(tmp_path / "dask"), local)
    # every file was written by this process (the workers only compute)
    files = {p for p in (tmp_path / "dask").rglob("*") if p.is_file() and p.name != ".lock"}
    assert {path for _, path in written} == files and {pid for pid, _ in written} == {os.getpid()}
    locks = [p for p in (tmp_path / "dask").rglob(".lock")]  # the study's and every pairing's, released (emptied)
    assert len(locks) == 1 + len(PAIRINGS) and {p.read_text() for p in locks} == {""}
    assert len([p for p in files if p.parent.name == "parts"]) == len(TASKS)
    # the same folder as the local backend writes, byte for byte
    run_study(**TINY, out=tmp_path / "local")
    assert snapshot(tmp_path / "dask") == snapshot(tmp_path / "local")


def test_dask_resumes_a_local_study(cluster, finished, local, monkeypatch):
    (finished / "quadratic__knn5" / "parts" / "SE__00001.csv").unlink()
    (finished / "four-gaussian__lda" / "asymptotic.json").unlink()
    results = run_study(**{**TINY, "execution": Execution("dask", cluster.scheduler_address, progress=False)},
                        out=finished)
    assert_same(results, local)
    assert_same(read_study(finished), local)


@requires("distributed")
def test_cli_dask_local_starts_its_own_cluster(local, tmp_path, capsys):
    assert main(["study", *CLI_TINY, "--dask", "local", "--jobs", "2", "--out", str(tmp_path)]) == 0
    assert_same(read_study(tmp_path), local)


def test_importing_the_study_does_not_import_dask():
    code = "import sys, mri_theory.runners.study; print(sorted({'dask', 'distributed'} & set(sys.modules)))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"


def test_a_missing_dask_extra_is_named_before_anything_is_written(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(ImportError, match=re.escape('pip install "mri-theory[dask]"')):
        run_study(**{**TINY, "execution": Execution(backend="dask")}, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert main(["study", *CLI_TINY, "--dask", "local", "--out", str(tmp_path / "out")]) == 2


@requires("distributed")
def test_an_unreachable_scheduler_is_named(tmp_path):
    import dask

    with (dask.config.set({"distributed.comm.timeouts.connect": "1s"}),
          pytest.raises(OSError, match="scheduler: cannot connect to the Dask scheduler at 'tcp://127.0.0.1:9'")):
        run_study(**{**TINY, "execution": Execution("dask", "tcp://127.0.0.1:9", progress=False)})


# ------------------------------------------------------------------ the study folder and resume


def test_folder_layout_and_read_back(finished, local):
    assert sorted(p.name for p in finished.iterdir()) == sorted(
        [".lock", ".runner", "checksums.json", "study.json", "curves.csv", "asymptotic.csv", "timings.csv",
         "solver.csv", *(f"{p}__{c}" for p, c in PAIRINGS)])
    stored = json.loads((finished / "study.json").read_text())
    specs = {"problems": {p: repr(get_problem(p)) for p in TINY["problems"]},
             "classifiers": {c: repr(get_classifier(c)) for c in TINY["classifiers"]},
             "strategies": {s: repr(get_strategy(s)) for s in STRATEGIES}}
    assert stored["grid"] == {"preset": "paper", "problems": TINY["problems"], "classifiers": TINY["classifiers"],
                              "strategies": STRATEGIES, "replicates": 2, "specs": specs}
    assert stored["settings"]["budget"] == stored["settings"]["pool_size"] == 10
    for p, c in PAIRINGS:  # each pairing is a run_curves folder
        rows = local.curves[(local.curves.problem == p) & (local.curves.classifier == c)].reset_index(drop=True)
        assert_frame_equal(sandbox.read_curves(finished / f"{p}__{c}"), rows, check_exact=True)
    assert_same(read_study(finished), local)


def test_damaged_parts_and_records_are_named_and_only_they_recomputed(finished, local, monkeypatch):
    deleted = finished / "four-gaussian__knn5" / "parts" / "RS__00001.csv"
    deleted.unlink()
    cut = finished / "quadratic__lda" / "parts" / "MRI-best__00000.csv"
    cut.write_bytes(cut.read_bytes()[:-7])
    record = finished / "quadratic__knn5" / "asymptotic.json"
    content = json.loads(record.read_text())
    content["asymptotic_loss"] += 0.01
    record.write_text(json.dumps(content))
    other = finished / "four-gaussian__lda" / "asymptotic.json"
    other.write_text("{")
    (finished / "curves.csv").unlink()
    calls = count_tasks(monkeypatch)
    results, messages = resume(finished)
    assert sorted(calls, key=str) == sorted([("four-gaussian", "knn5", "RS", 1), ("quadratic", "lda", "MRI-best", 0),
                                             ("quadratic", "knn5", "asymptotic"),
                                             ("four-gaussian", "lda", "asymptotic")], key=str)
    assert len(messages) == 3
    assert any(str(cut) in m and "checksum" in m for m in messages)
    assert any(str(record) in m and "checksum" in m for m in messages)
    assert any(str(other) in m and "unreadable JSON" in m for m in messages)
    assert_same(results, local)
    assert_same(read_study(finished), local)
    calls.clear()  # now everything is trusted
    results, messages = resume(finished)
    assert calls == [] and messages == []
    assert_same(results, local)


@pytest.mark.parametrize("change,reason", [
    ({"settings": {"problem": "sharp"}}, "different settings"),
    ({"asymptotic_loss": float("nan")}, "checksum"),
    ({"asymptotic_loss": -0.5, "rehash": True}, "not a finite number >= 0"),
    ({"format": 2, "rehash": True}, "unknown format"),
    ({"extra": 1}, "keys"),
])
def test_a_forged_asymptotic_record_is_rejected(change, reason, finished, local, monkeypatch):
    """Records written from the documented format (checksum: SHA-256 of the canonical JSON without it)."""
    path = finished / "quadratic__lda" / "asymptotic.json"
    record = json.loads(path.read_text())
    rehash = change.pop("rehash", False)
    for key, value in change.items():
        record[key] = {**record[key], **value} if isinstance(value, dict) else value
    if rehash or "settings" in change:
        body = {k: v for k, v in record.items() if k != "sha256"}
        record["sha256"] = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    path.write_text(json.dumps(record))
    calls = count_tasks(monkeypatch)
    results, messages = resume(finished)
    assert len(messages) == 1 and str(path) in messages[0] and reason in messages[0], messages
    assert calls == [("quadratic", "lda", "asymptotic")]
    assert_same(results, local)


def test_a_record_forged_correctly_is_trusted(finished, local, monkeypatch):
    """The forger above, writing the true record, is accepted: the rejections are about content."""
    path = finished / "quadratic__lda" / "asymptotic.json"
    record = json.loads(path.read_text())
    body = {k: v for k, v in record.items() if k != "sha256"}
    assert record["sha256"] == hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"))
                                              .encode()).hexdigest()
    path.write_text(json.dumps(record))
    calls = count_tasks(monkeypatch)
    results, messages = resume(finished)
    assert calls == [] and messages == []
    assert_same(results, local)


def test_an_interrupted_run_keeps_its_finished_tasks(tmp_path, local, monkeypatch):
    original = _curves.run_pair
    done = []

    def killed(cfg, strategy, replicate):
        if len(done) == 5:
            raise KeyboardInterrupt
        done.append((cfg.problem, cfg.classifier, strategy, replicate))
        return original(cfg, strategy, replicate)

    losses = []
    asymptotic_loss = study._asymptotic_loss

    def counted(task):
        losses.append(task.config.classifier)
        return asymptotic_loss(task)

    monkeypatch.setattr(_curves, "run_pair", killed)
    monkeypatch.setattr(study, "_asymptotic_loss", counted)
    with pytest.raises(KeyboardInterrupt):
        run_study(**TINY, out=tmp_path)
    assert len(list(tmp_path.rglob("parts/*.csv"))) == 5
    assert len(list(tmp_path.rglob("asymptotic.json"))) == len(losses)  # those computed before, longest first
    monkeypatch.setattr(study, "_asymptotic_loss", asymptotic_loss)
    with pytest.raises(ValueError, match="path: .*curves.csv is missing.*run the same study again"):
        read_study(tmp_path)
    monkeypatch.setattr(_curves, "run_pair", original)
    calls = count_tasks(monkeypatch)
    assert_same(run_study(**TINY, out=tmp_path), local)
    assert len(calls) == len(TASKS) - 5 + len(PAIRINGS) - len(losses) and not set(calls) & set(done)


def test_a_grown_grid_computes_only_the_new_tasks(tmp_path, local, monkeypatch):
    small = dict(problems=["four-gaussian"], classifiers=["lda"], replicates=1)
    run_study(**{**TINY, **small}, out=tmp_path)
    calls = count_tasks(monkeypatch)
    assert_same(run_study(**TINY, out=tmp_path), local)
    assert len(calls) == len(TASKS) + len(PAIRINGS) - len(STRATEGIES) - 1
    assert ("four-gaussian", "lda", "RS", 0) not in calls and ("four-gaussian", "lda", "asymptotic") not in calls
    # read_study follows the last grid; going back to the small grid reads the small tables
    small_again = run_study(**{**TINY, **small}, out=tmp_path)
    assert_same(read_study(tmp_path), small_again)
    assert len(small_again.curves) == len(STRATEGIES) * (TINY["pool_size"] + 1)


@pytest.mark.parametrize("change", [{"seed": 5}, {"pool_size": 9}, {"population_size": 301}, {"loss": "log"},
                                    {"asymptotic_train": 201}, {"asymptotic_population": 299}, {"subsample": 3},
                                    {"record_q_c": True}, {"budget": 9}])
def test_a_study_with_other_settings_is_refused(change, finished, monkeypatch):
    before = snapshot(finished)
    calls = count_tasks(monkeypatch)
    with pytest.raises(ValueError, match="out: .*other settings.*" + re.escape(str(finished / "study.json"))):
        run_study(**{**TINY, **change}, out=finished)
    assert calls == [] and snapshot(finished) == before


@pytest.mark.parametrize("content", [b"", b'{"format": 1, "settings": {', bytes(range(256)), b'{"format": 1}',
                                     b"[1, 2]", b'{"format": 1, "settings": {}, "grid": {"problems": 3}}'])
def test_a_corrupt_study_file_is_named_and_nothing_written(content, finished, capsys, monkeypatch):
    (finished / "study.json").write_bytes(content)
    before = snapshot(finished)
    calls = count_tasks(monkeypatch)
    pattern = re.escape(str(finished / "study.json")) + " is unreadable or corrupt"
    with pytest.raises(ValueError, match="out: the study file " + pattern):
        run_study(**TINY, out=finished)
    with pytest.raises(ValueError, match="path: the study file " + pattern):
        read_study(finished)
    assert main(["study", *CLI_TINY, "--out", str(finished)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(finished / "study.json") in err
    assert calls == [] and snapshot(finished) == before


def test_a_corrupt_pairing_config_is_named_before_anything_is_written(finished, monkeypatch):
    config = finished / "quadratic__knn5" / "config.json"
    config.write_text("not json")
    before = snapshot(finished)
    with pytest.raises(ValueError, match=re.escape(str(config)) + ".*corrupt"):
        run_study(**TINY, out=finished)
    assert snapshot(finished) == before


def test_a_run_curves_folder_is_refused(tmp_path):
    run_curves("four-gaussian", "lda", ["RS"], pool_size=4, replicates=1, population_size=300, out=tmp_path,
               execution=QUIET)
    before = snapshot(tmp_path)
    with pytest.raises(ValueError, match="out: .*results of run_curves"):
        run_study(**TINY, out=tmp_path)
    assert snapshot(tmp_path) == before


# ------------------------------------------------------------------ bad input


BAD_VALUES = [
    ({"problems": "nope"}, ValueError, r"problems: unknown problem name 'nope'.*four-gaussian.*'abstract'"),
    ({"problems": ["abstract", "sharp"]}, ValueError, "problems must not repeat a name, got sharp"),
    ({"problems": []}, ValueError, "problems must name at least one"),
    ({"problems": 3}, TypeError, "problems must be a name"),
    ({"problems": ["sharp", 3]}, TypeError, "problems must hold names"),
    ({"classifiers": "nope"}, ValueError, r"classifiers: unknown classifier 'nope'.*lda.*'paper'"),
    ({"classifiers": ["paper", "lda"]}, ValueError, "classifiers must not repeat a name, got lda"),
    ({"strategies": ["RS", "nope"]}, ValueError, r"strategies: unknown strategy 'nope'.*QbcV.*'paper', 'peers', 'all'"),
    ({"strategies": ["RS", "RS"]}, ValueError, "strategies must not repeat a name, got RS"),
    ({"replicates": 0}, ValueError, "replicates must be >= 1"),
    ({"replicates": 1.5}, ValueError, "replicates must be an integer"),
    ({"pool_size": 1}, ValueError, "pool_size must be at least the initial set size 2"),
    ({"budget": 11}, ValueError, r"budget \(11\) must not exceed pool_size \(10\)"),
    ({"population_size": 0}, ValueError, "population_size must be >= 1"),
    ({"loss": "lc"}, ValueError, "loss must be 'error' or 'log'"),
    ({"subsample": -1}, ValueError, "subsample must be >= 0"),
    ({"record_q_c": "no"}, TypeError, "record_q_c must be True or False"),
    ({"seed": -1}, ValueError, "seed must be >= 0"),
    ({"asymptotic_train": 0}, ValueError, "asymptotic_train must be >= 1"),
    ({"asymptotic_replicates": 0}, ValueError, "asymptotic_replicates must be >= 1"),
    ({"asymptotic_population": "many"}, TypeError, "asymptotic_population must be an integer"),
    ({"preset": "huge"}, ValueError, "unknown preset 'huge'; known presets: paper, quick"),
    ({"preset": 3}, TypeError, "preset must be a preset name"),
    ({"execution": "local"}, TypeError, "execution must be an Execution or None, got str"),
    ({"out": 3}, TypeError, "out must be a folder path"),
]


@pytest.mark.parametrize("change,error,pattern", BAD_VALUES, ids=[str(c) for c, _, _ in BAD_VALUES])
def test_bad_arguments_raise_naming_the_argument_before_any_work(change, error, pattern, tmp_path, monkeypatch):
    calls = count_tasks(monkeypatch)
    monkeypatch.chdir(tmp_path)
    args = {**TINY, "out": tmp_path / "out", **change}
    preset = args.pop("preset", "paper")
    with pytest.raises(error, match=pattern):
        run_study(preset, **args)
    assert calls == [] and list(tmp_path.iterdir()) == []


def test_an_out_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("keep")
    with pytest.raises(ValueError, match="out: .*exists and is not a folder"):
        run_study(**TINY, out=tmp_path / "f")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "study.json").mkdir()
    with pytest.raises(ValueError, match="out: .*study.json should be a file"):
        run_study(**TINY, out=tmp_path / "d")


def test_read_study_refuses_what_is_not_a_finished_study(finished, tmp_path):
    with pytest.raises(ValueError, match="path: no study at"):
        read_study(tmp_path / "nowhere")
    with pytest.raises(TypeError, match="path must be a folder path"):
        read_study(3)
    with pytest.raises(ValueError, match="path must name a folder"):
        read_study("")
    (finished / "asymptotic.csv").write_text("problem,classifier,loss\nsharp,lda,0.1\n")
    with pytest.raises(ValueError, match=r"path: .*asymptotic.csv does not match its checksum"):
        read_study(finished)
    rechecksum(finished)  # checksums forged to match: the content checks still refuse
    with pytest.raises(ValueError, match=r"path: .*asymptotic.csv is not a table of asymptotic losses: columns"):
        read_study(finished)
    curves = pd.read_csv(finished / "curves.csv")
    curves[curves.replicate == 0].to_csv(finished / "curves.csv", index=False)
    (finished / "asymptotic.csv").unlink()
    with pytest.raises(ValueError, match=r"path: .*asymptotic.csv is missing"):
        read_study(finished)
    run_study(**TINY, out=finished)  # restores the tables from the verified parts
    curves[curves.replicate == 0].to_csv(finished / "curves.csv", index=False)
    rechecksum(finished)
    with pytest.raises(ValueError, match=r"path: .*curves.csv does not hold the grid of .*study.json"):
        read_study(finished)


# ------------------------------------------------------------------ command line


def test_cli_study_and_report(tmp_path, local, capsys):
    assert main(["study", *CLI_TINY, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "final loss" in out and "asymptotic loss" in out and f"mri-theory report {tmp_path}" in out
    assert "SVM dual solves" not in out  # a study without the SVM does not report its solver
    assert_same(read_study(tmp_path), local)
    # the metrics table: each method's mean over the pairings of the R1 metrics (curve_metrics, tested in
    # tests/evaluation), label complexity, AUA, WI and regret
    from mri_theory.evaluation import curve_metrics

    expected = curve_metrics(*read_study(tmp_path)).groupby("method", sort=False)[
        ["label_complexity", "aua", "wi_exponential", "regret"]].mean()
    table = out.split("regret: mean loss gap to MRI-best):")[1].splitlines()
    for method, row in expected.iterrows():
        line = next(line for line in table if line.split() and line.split()[0] == method)
        assert [float(v) for v in line.split()[1:]] == pytest.approx(row.to_list(), abs=6e-5)
    assert main(["report", str(tmp_path)]) == 0
    printed = [Path(line) for line in capsys.readouterr().out.splitlines()]
    assert printed and all(p.parent == tmp_path / "report" and p.is_file() for p in printed)
    assert {p.suffix for p in printed} >= {".md", ".tex", ".csv", ".png"}
    assert printed == report(tmp_path)  # the API writes the same files


def test_cli_study_subsample_zero_scores_the_whole_pool(tmp_path, capsys):
    assert main(["study", *CLI_TINY, "--subsample", "0", "--strategies", "SMRI", "--replicates", "1",
                 "--classifiers", "lda", "--problems", "sharp", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "no metrics: they are measured against RS's curve, and the study has no RS" in out
    assert "SVM dual solves" not in out  # no SVM in the study: no solver line
    assert json.loads((tmp_path / "study.json").read_text())["settings"]["subsample"] == 0
    assert json.loads((tmp_path / "sharp__lda" / "config.json").read_text())["subsample"] is None


def test_cli_study_with_the_svm_reports_its_solver_stops(tmp_path, capsys):
    assert main(["study", *CLI_TINY[:2], "--classifiers", "svm", "--strategies", "RS", "--replicates", "1",
                 *CLI_TINY[11:], "--out", str(tmp_path)]) == 0
    assert "SVM dual solves stopped at the iteration cap: 0 in 0 of the 3 tasks recorded" in capsys.readouterr().out


@pytest.mark.parametrize("args,pattern", [
    (["--problems", "nope"], "problems: unknown problem name 'nope'"),
    (["--jobs", "0"], "n_jobs must be a positive number"),
    (["--dask", "tcp://x:8786", "--jobs", "2"], "n_jobs must be 1 with a scheduler"),
    (["--replicates", "0"], "replicates must be >= 1"),
])
def test_cli_study_bad_values_exit_2_with_one_line(args, pattern, tmp_path, capsys):
    assert main(["study", *CLI_TINY, *args, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"mri-theory study: {pattern}")
    assert not (tmp_path / "out").exists()


def test_cli_report_of_no_study_exits_2(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mri-theory report: path: no study at")


def test_cli_interrupt_exits_130_and_resumes(tmp_path, local, capsys, monkeypatch):
    original = _curves.run_pair
    done = []

    def killed(cfg, strategy, replicate):
        if done:
            raise KeyboardInterrupt
        done.append(1)
        return original(cfg, strategy, replicate)

    monkeypatch.setattr(_curves, "run_pair", killed)
    assert main(["study", *CLI_TINY, "--out", str(tmp_path)]) == 130
    assert "resume" in capsys.readouterr().err
    assert len(list(tmp_path.rglob("parts/*.csv"))) == 1
    monkeypatch.setattr(_curves, "run_pair", original)
    assert main(["study", *CLI_TINY, "--out", str(tmp_path)]) == 0
    assert_same(read_study(tmp_path), local)


@pytest.mark.slow  # the quick preset: about 20 s on one core, then its report
def test_cli_quick_preset_and_report(tmp_path, capsys):
    assert main(["study", "--preset", "quick", "--out", str(tmp_path)]) == 0
    quick = PRESETS["quick"]
    curves, asymptotic = read_study(tmp_path)
    strategies = [*quick["strategies"], "MRI-best"]
    assert list(curves.strategy.unique()) == strategies
    assert len(curves) == (len(quick["problems"]) * len(quick["classifiers"]) * len(strategies)
                           * quick["replicates"] * (quick["pool_size"] + 1))
    assert asymptotic.asymptotic_loss.between(0, 0.5).all()  # error rates of two-class problems
    assert main(["report", str(tmp_path)]) == 0
    assert (tmp_path / "report" / "report.md").is_file()
