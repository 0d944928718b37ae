"""What the runners store can be trusted: verified tables, one writer per folder, named storage faults.

* Top-level tables (``curves.csv`` of a sandbox or study folder and of each
  pairing, ``asymptotic.csv``, ``states.csv``, the diagnose summaries) are
  listed with their SHA-256 in ``checksums.json``; ``read_curves``,
  ``read_study``, ``report`` and ``mri-theory report`` refuse a table that
  was edited (a dropped row, a changed loss, a NaN, an asymptotic loss set to
  0.4 or -1), naming it, and a rerun rebuilds it from the verified parts.
  The expected checksums are computed here with :mod:`hashlib`.
* One writer per output folder: while another process holds the folder's
  ``.lock`` (an ``fcntl.flock`` taken here by a plain child process), every
  runner and ``report`` is refused with the holder's pid, before writing
  anything; two real processes started together with different settings
  never leave an inconsistent folder.
* A folder (or a FIFO) in place of a part or record is refused before any
  work, naming it; a full disk names the file that could not be written.

Sizes: one or two problems x LDA x RS (+ MRI-best), pool 6-8, population 200-300.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from _shared import LOCK_HOLDER, QUIET
from pandas.testing import assert_frame_equal

from mri_theory.cli import main
from mri_theory.runners import _curves, study
from mri_theory.runners.sandbox import read_curves, run_curves
from mri_theory.runners.states import score_states
from mri_theory.runners.study import read_study, report, run_study

CURVES = dict(problem="four-gaussian", classifier="lda", strategies=["RS", "SE"], pool_size=6, replicates=2,
              population_size=200, seed=3, execution=QUIET)
STUDY = dict(problems=["four-gaussian", "quadratic"], classifiers=["lda"], strategies=["RS", "SE"], replicates=2,
             pool_size=6, population_size=200, seed=3, asymptotic_train=100, asymptotic_replicates=1,
             asymptotic_population=200, execution=QUIET)
CLI_STUDY = ["--problems", "four-gaussian", "quadratic", "--classifiers", "lda", "--strategies", "RS", "SE",
             "--replicates", "2", "--pool", "6", "--population", "200", "--seed", "3", "--asymptotic-train", "100",
             "--asymptotic-replicates", "1", "--asymptotic-population", "200"]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def no_work(monkeypatch) -> list:
    """Record every task computed in this process (curve pairs, asymptotic losses)."""
    calls: list = []
    run_pair, asymptotic_loss = _curves.run_pair, study.asymptotic_loss
    monkeypatch.setattr(_curves, "run_pair", lambda *a, **k: calls.append("pair") or run_pair(*a, **k))
    monkeypatch.setattr(study, "asymptotic_loss", lambda *a, **k: calls.append("asym") or asymptotic_loss(*a, **k))
    return calls


@pytest.fixture(scope="module")
def curves_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("curves") / "out"
    return folder, run_curves(**CURVES, out=folder)


@pytest.fixture
def curves_folder(curves_run, tmp_path):
    folder, table = curves_run
    copy = tmp_path / "out"
    shutil.copytree(folder, copy)
    return copy, table


@pytest.fixture(scope="module")
def study_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("study") / "study"
    return folder, run_study(**STUDY, out=folder)


@pytest.fixture
def study_folder(study_run, tmp_path):
    folder, results = study_run
    copy = tmp_path / "study"
    shutil.copytree(folder, copy)
    return copy, results


# ------------------------------------------------------------------ the checksums written


def test_the_tables_are_listed_with_their_checksums(curves_folder, study_folder):
    folder, _ = curves_folder
    record = json.loads((folder / "checksums.json").read_text())
    assert record == {"format": 1, "settings_file": "config.json", "settings_sha256": sha256(folder / "config.json"),
                      "tables": {"curves.csv": sha256(folder / "curves.csv")}}
    folder, _ = study_folder
    record = json.loads((folder / "checksums.json").read_text())
    assert record == {"format": 1, "settings_file": "study.json", "settings_sha256": sha256(folder / "study.json"),
                      "tables": {"curves.csv": sha256(folder / "curves.csv"),
                                 "asymptotic.csv": sha256(folder / "asymptotic.csv")}}
    for pairing in ("four-gaussian__lda", "quadratic__lda"):
        record = json.loads((folder / pairing / "checksums.json").read_text())
        assert record["tables"] == {"curves.csv": sha256(folder / pairing / "curves.csv")}
        assert record["settings_sha256"] == sha256(folder / pairing / "config.json")


def test_states_table_is_listed_with_its_checksum(tmp_path):
    out = tmp_path / "states"
    table = score_states("four-gaussian", "lda", ["RS", "SE"], replicates=1, steps=[1], pool_size=5,
                         population_size=200, out=out, execution=QUIET)
    record = json.loads((out / "checksums.json").read_text())
    assert record == {"format": 1, "settings_file": "diagnostics.json",
                      "settings_sha256": sha256(out / "diagnostics.json"),
                      "tables": {"states.csv": sha256(out / "states.csv")}}
    from mri_theory.runners.states import read_states

    assert_frame_equal(read_states(out), table, check_exact=True)
    assert_frame_equal(read_states(out / "states.csv"), table, check_exact=True)
    for edit in EDITS.values():
        path = out / "states.csv"
        original = path.read_text()
        path.write_text(edit(original))
        for given in (out, path):
            with pytest.raises(ValueError, match=rf"path: {re.escape(str(path))} does not match its checksum"):
                read_states(given)
        path.write_text(original)
    score_states("four-gaussian", "lda", ["RS", "SE"], replicates=1, steps=[1], pool_size=5, population_size=200,
                 out=out, execution=QUIET)  # a rerun rebuilds it
    assert_frame_equal(read_states(out), table, check_exact=True)
    with pytest.raises(ValueError, match="path: no states table"):
        read_states(out / "nowhere")
    with pytest.raises(TypeError, match="path must be a file or folder path"):
        read_states(3)


# ------------------------------------------------------------------ edited tables are never read


def _drop_last_row(text: str) -> str:
    return "".join(text.splitlines(keepends=True)[:-1])


def _edit_first_loss(text: str, value: str) -> str:
    frame = pd.read_csv(pd.io.common.StringIO(text), dtype=str, keep_default_na=False)
    column = "asymptotic_loss" if "asymptotic_loss" in frame.columns else "loss"
    frame.loc[0, column] = value
    return frame.to_csv(index=False, lineterminator="\n")


EDITS = {
    "last row dropped": _drop_last_row,
    "loss edited": lambda text: _edit_first_loss(text, "0.4"),
    "loss negative": lambda text: _edit_first_loss(text, "-1"),
    "loss NaN": lambda text: _edit_first_loss(text, "nan"),
    "a row added": lambda text: text + text.splitlines(keepends=True)[-1],
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edited_curves_table_is_refused_and_rebuilt_by_a_rerun(edit, curves_folder):
    folder, table = curves_folder
    path = folder / "curves.csv"
    path.write_text(EDITS[edit](path.read_text()))
    for given in (folder, path):
        with pytest.raises(ValueError, match=rf"path: {re.escape(str(path))} does not match its checksum"):
            read_curves(given)
    assert_frame_equal(run_curves(**CURVES, out=folder), table, check_exact=True)  # rebuilt from the parts
    assert_frame_equal(read_curves(folder), table, check_exact=True)


@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("name", ["asymptotic.csv", "curves.csv"])
def test_an_edited_study_table_is_never_reported(name, edit, study_folder, capsys):
    folder, results = study_folder
    path = folder / name
    path.write_text(EDITS[edit](path.read_text()))
    pattern = rf"path: {re.escape(str(path))} does not match its checksum"
    with pytest.raises(ValueError, match=pattern):
        read_study(folder)
    with pytest.raises(ValueError, match=pattern):
        report(folder)
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and "Traceback" not in err
    assert not (folder / "report").exists()
    run_study(**STUDY, out=folder)  # a rerun rebuilds the tables
    rebuilt = read_study(folder)
    assert_frame_equal(rebuilt.curves, results.curves, check_exact=True)
    assert_frame_equal(rebuilt.asymptotic, results.asymptotic, check_exact=True)


def test_an_edited_pairing_table_is_refused(study_folder):
    folder, _ = study_folder
    path = folder / "quadratic__lda" / "curves.csv"
    path.write_text(_edit_first_loss(path.read_text(), "0.4"))
    with pytest.raises(ValueError, match=rf"path: {re.escape(str(path))} does not match its checksum"):
        read_curves(folder / "quadratic__lda")


def test_missing_or_corrupt_checksums_are_refused(curves_folder, study_folder):
    folder, table = curves_folder
    (folder / "checksums.json").write_text('{"format": 1, "tables": ')
    with pytest.raises(ValueError, match=r"path: .*curves.csv cannot be verified: .*checksums.json is unreadable"):
        read_curves(folder)
    (folder / "checksums.json").unlink()  # an unfinished run, or a folder of an older version
    with pytest.raises(ValueError, match=r"path: .*curves.csv cannot be verified: .*checksums.json is missing"):
        read_curves(folder)
    assert_frame_equal(run_curves(**CURVES, out=folder), table, check_exact=True)  # resumes, writes them
    assert_frame_equal(read_curves(folder), table, check_exact=True)
    folder, _ = study_folder
    (folder / "checksums.json").unlink()
    with pytest.raises(ValueError, match=r"path: .*curves.csv cannot be verified"):
        read_study(folder)


def test_tables_of_an_unfinished_run_under_new_settings_are_refused(study_folder, monkeypatch):
    """A grown grid interrupted before its tables: study.json changed since the tables were written."""
    folder, results = study_folder

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_curves, "run_pair", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_study(**{**STUDY, "replicates": 3}, out=folder)
    with pytest.raises(ValueError, match=r"path: .*curves.csv was written under other settings than .*study.json"):
        read_study(folder)


# ------------------------------------------------------------------ one writer per folder


@pytest.fixture
def held(tmp_path):
    """A folder whose lock another process holds: ``(folder, pid)``."""
    folder = tmp_path / "held"
    folder.mkdir()
    child = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(folder)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "locked"
        yield folder, child
    finally:
        child.stdin.close()
        child.wait(timeout=30)


def test_every_writer_is_refused_while_another_process_holds_the_lock(held, monkeypatch, capsys):
    folder, child = held
    calls = no_work(monkeypatch)
    busy = rf"out: {re.escape(str(folder))} is being written by another process \(pid {child.pid}\b"
    with pytest.raises(ValueError, match=busy):
        run_curves(**CURVES, out=folder)
    with pytest.raises(ValueError, match=busy):
        run_study(**STUDY, out=folder)
    with pytest.raises(ValueError, match=busy):
        score_states("four-gaussian", "lda", ["RS"], replicates=1, steps=[1], pool_size=5, population_size=200,
                     out=folder, execution=QUIET)
    assert main(["curves", "--problem", "four-gaussian", "--classifier", "lda", "--strategies", "RS",
                 "--replicates", "1", "--pool", "6", "--population", "200", "--out", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"pid {child.pid}" in err
    assert calls == [] and sorted(p.name for p in folder.iterdir()) == [".lock"]  # nothing else written
    child.kill()  # the OS releases the lock of a killed holder
    child.wait(timeout=30)
    assert_frame_equal(run_curves(**CURVES, out=folder), run_curves(**CURVES), check_exact=True)


def test_report_and_readers_are_refused_while_a_writer_holds_the_study(study_folder, tmp_path):
    folder, _ = study_folder
    child = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(folder)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "locked"
        busy = rf"path: {re.escape(str(folder))} is being written by another process \(pid {child.pid}\b"
        with pytest.raises(ValueError, match=busy):
            read_study(folder)
        with pytest.raises(ValueError, match=busy):
            report(folder)
        assert not (folder / "report").exists()
    finally:
        child.stdin.close()
        child.wait(timeout=30)


def test_the_lock_is_held_in_this_process_too(tmp_path):
    from mri_theory.runners import _store

    folder = tmp_path / "out"
    with (_store.locked(folder, "out"),
          pytest.raises(ValueError, match=rf"is being written by another process \(pid {os.getpid()}\b")):
        run_curves(**CURVES, out=folder)
    assert sorted(p.name for p in folder.iterdir()) == [".lock"]
    run_curves(**CURVES, out=folder)  # released on exit


RACER = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    import mri_theory.runners._curves as _curves
    from mri_theory.runners import Execution
    from mri_theory.runners.study import run_study

    folder, pool, barrier = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    run_pair = _curves.run_pair
    def slow(*args, **kwargs):  # the tasks take long enough for the two runs to overlap
        time.sleep(0.3)
        return run_pair(*args, **kwargs)
    _curves.run_pair = slow
    (barrier / f"ready-{pool}").touch()
    while len(list(barrier.glob("ready-*"))) < 2:  # start together
        time.sleep(0.01)
    print(os.getpid(), flush=True)
    try:
        run_study(problems=["four-gaussian"], classifiers=["lda"], strategies=["RS"], replicates=2, pool_size=pool,
                  population_size=200, seed=1, asymptotic_train=50, asymptotic_replicates=1,
                  asymptotic_population=200, out=folder, execution=Execution(progress=False))
    except ValueError as exc:
        print("refused:", exc, flush=True)
        sys.exit(3)
""")


@pytest.mark.parametrize("trial", range(2))
def test_two_processes_with_other_settings_never_leave_an_inconsistent_folder(trial, tmp_path):
    folder, barrier = tmp_path / "study", tmp_path / "barrier"
    barrier.mkdir()
    racers = {pool: subprocess.Popen([sys.executable, "-c", RACER, str(folder), str(pool), str(barrier)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for pool in (5, 6)}
    outcomes = {}
    for pool, racer in racers.items():
        out, err = racer.communicate(timeout=300)
        pid, _, message = out.partition("\n")
        outcomes[pool] = (racer.returncode, int(pid), message.strip(), err)
    winners = [pool for pool, (code, *_) in outcomes.items() if code == 0]
    assert len(winners) == 1, outcomes  # exactly one run wrote the folder
    (winner,) = winners
    (loser,) = set(outcomes) - {winner}
    code, _, message, _ = outcomes[loser]
    winner_pid = outcomes[winner][1]
    assert code == 3 and (f"is being written by another process (pid {winner_pid}," in message
                          or "holds a study with other settings" in message), outcomes
    stored = json.loads((folder / "study.json").read_text())
    curves, asymptotic = read_study(folder)
    assert stored["settings"]["pool_size"] == winner
    assert curves.groupby(["strategy", "replicate"]).n_labelled.agg(lambda n: n.max() - n.min()).eq(winner).all()
    config = json.loads((folder / "four-gaussian__lda" / "config.json").read_text())
    assert config["pool_size"] == winner


# ------------------------------------------------------------------ faults of the file system


def test_a_folder_in_place_of_a_part_is_refused_before_any_work(curves_folder, monkeypatch):
    folder, _ = curves_folder
    part = folder / "parts" / "SE__00001.csv"
    part.unlink()
    part.mkdir()
    calls = no_work(monkeypatch)
    with pytest.raises(ValueError, match=rf"out: {re.escape(str(part))} is a folder or another non-regular file"):
        run_curves(**CURVES, out=folder)
    assert calls == [] and part.is_dir()


def test_a_folder_in_place_of_an_asymptotic_record_is_refused_before_any_work(study_folder, monkeypatch):
    folder, _ = study_folder
    record = folder / "quadratic__lda" / "asymptotic.json"
    record.unlink()
    record.mkdir()
    calls = no_work(monkeypatch)
    with pytest.raises(ValueError, match=rf"out: {re.escape(str(record))} is a folder"):
        run_study(**STUDY, out=folder)
    assert calls == []


def test_a_fifo_in_place_of_a_part_is_refused_not_read(curves_folder, monkeypatch):
    folder, _ = curves_folder
    part = folder / "parts" / "RS__00000.csv"
    part.unlink()
    os.mkfifo(part)  # reading it would block forever
    calls = no_work(monkeypatch)
    with pytest.raises(ValueError, match=rf"out: {re.escape(str(part))} is a folder or another non-regular file"):
        run_curves(**CURVES, out=folder)
    assert calls == []


@pytest.fixture
def full_disk(monkeypatch):
    """Every file written after the first two (the owner record ``.runner``, ``config.json``) finds the disk full."""
    synced = []
    fsync = os.fsync

    def full(fd):
        synced.append(fd)
        if len(synced) > 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return fsync(fd)

    monkeypatch.setattr(os, "fsync", full)
    return synced


def test_a_full_disk_names_the_file(tmp_path, full_disk, capsys):
    folder = tmp_path / "out"
    part = folder / "parts" / "RS__00000.csv"
    with pytest.raises(OSError, match=re.escape(str(part))) as caught:
        run_curves(**CURVES, out=folder)
    assert caught.value.errno == errno.ENOSPC and "No space left on device" in str(caught.value)
    assert not [p for p in folder.rglob(".tmp-*")]  # no temporary file left behind
    full_disk.clear()
    assert main(["curves", "--problem", "four-gaussian", "--classifier", "lda", "--strategies", "RS",
                 "--replicates", "1", "--pool", "6", "--population", "200", "--out", str(tmp_path / "cli")]) == 2
    err = capsys.readouterr().err.splitlines()[-1]  # after the progress bar: one line
    assert err.startswith("mri-theory curves: ") and "No space left" in err
    assert str(tmp_path / "cli" / "parts" / "RS__00000.csv") in err
