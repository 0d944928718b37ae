"""Each run folder belongs to the runner that made it (issue 40): no runner writes into another's folder.

Before, 11 combinations succeeded and replaced the folder's ``checksums.json``, after which the original tables
were refused as unverifiable. Now each runner records itself in the folder (``.runner``) when it takes the lock,
and every other runner, ``copy_leaderboard`` included, refuses the folder before writing anything, naming the
argument, the owner and itself. A folder written before the record existed is told by the files only its runner
writes. Orphaned temporary files of a killed write are removed when a runner takes its folder again.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from _shared import QUIET, snapshot

from mri_theory.cli import main
from mri_theory.runners import copy_leaderboard, read_curves, run_curves, run_diagnostics, run_leaderboard, run_study
from mri_theory.runners._store import OWNER_FILE, folder_owner

TINY = dict(pool_size=8, population_size=100)


def curves(out: Path) -> object:
    return run_curves("four-gaussian", "lda", "RS", replicates=1, budget=2, subsample=4, out=out, execution=QUIET,
                      **TINY)


def study(out: Path) -> object:
    return run_study(problems=["four-gaussian"], classifiers=["lda"], strategies=["RS"], replicates=1, budget=2,
                     asymptotic_train=20, asymptotic_replicates=1, asymptotic_population=100, out=out,
                     execution=QUIET, **TINY)


def leaderboard(out: Path) -> object:
    return run_leaderboard(["four-gaussian"], ["lda"], ["RS"], replicates=2, steps=(2,), out=out, n_boot=20,
                           execution=QUIET, **TINY)


def diagnose(out: Path) -> object:
    return run_diagnostics("four-gaussian", ["lda"], ["RS"], replicates=1, steps=(2,), out=out, execution=QUIET,
                           **TINY)


RUNNERS = {"run_curves": curves, "run_study": study, "run_leaderboard": leaderboard,
           "run_diagnostics": diagnose}


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    """One finished folder of each runner."""
    root = tmp_path_factory.mktemp("owned")
    out = {}
    for runner, make in RUNNERS.items():
        out[runner] = root / runner
        make(out[runner])
    return out


def test_each_runner_records_itself(folders):
    for runner, folder in folders.items():
        assert (folder / OWNER_FILE).read_text() == runner
        assert folder_owner(folder) == runner


CASES = [  # (the runner asked, the owner of the folder given): the combinations, and their mirror images
    ("run_leaderboard", "run_curves"),
    ("run_curves", "run_leaderboard"),
    ("run_curves", "run_diagnostics"),
    ("run_diagnostics", "run_study"),
    ("run_leaderboard", "run_study"),
    ("run_study", "run_leaderboard"),
    ("run_study", "run_diagnostics"),
    ("run_leaderboard", "run_diagnostics"),
    ("run_diagnostics", "run_leaderboard"),
    ("run_curves", "run_study"),
    ("run_study", "run_curves"),
]


@pytest.mark.parametrize("legacy", [False, True], ids=["recorded", "inferred"])
@pytest.mark.parametrize(("runner", "owner"), CASES)
def test_a_runner_refuses_another_runners_folder(runner, owner, legacy, folders, tmp_path):
    """Refused before anything is written, whether the owner is recorded or (a folder of an older version) told
    by its files."""
    folder = tmp_path / owner
    shutil.copytree(folders[owner], folder)
    if legacy:
        (folder / OWNER_FILE).unlink()
    before = snapshot(folder)
    with pytest.raises(ValueError, match=rf"^out: {folder} holds the results of {owner}, not of {runner}; "):
        RUNNERS[runner](folder)
    assert snapshot(folder) == before


@pytest.mark.parametrize("owner", ["run_study", "run_curves", "run_diagnostics"])
def test_copy_leaderboard_refuses_another_runners_folder(owner, folders, tmp_path):
    folder = tmp_path / owner
    shutil.copytree(folders[owner], folder)
    before = snapshot(folder)
    with pytest.raises(ValueError, match=rf"^destination: {folder} holds the results of {owner}, not of "
                                         r"run_leaderboard; "):
        copy_leaderboard(folders["run_leaderboard"], folder)
    assert snapshot(folder) == before


def test_copy_leaderboard_marks_its_copy_and_a_runner_may_resume_its_own(folders, tmp_path):
    copy = tmp_path / "copy"
    copy_leaderboard(folders["run_leaderboard"], copy)
    assert folder_owner(copy) == "run_leaderboard"
    again = tmp_path / "again"
    shutil.copytree(folders["run_curves"], again)
    before = read_curves(again)
    curves(again)  # the same runner, the same settings: resumed, nothing recomputed or refused
    assert read_curves(again).equals(before)


def test_the_command_line_refuses_with_one_line_naming_out(folders, tmp_path, capsys):
    folder = tmp_path / "curves"
    shutil.copytree(folders["run_curves"], folder)
    code = main(["leaderboard", "--problems", "four-gaussian", "--classifiers", "lda", "--strategies", "RS",
                 "--steps", "2", "--out", str(folder)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "out" in err[0] and "holds the results of run_curves, not of run_leaderboard" in err[0]


def test_orphaned_temporary_files_are_removed_on_resume(folders, tmp_path):
    """A killed write leaves ``.tmp-<uuid>`` beside its file; the next run that takes the folder removes it."""
    folder = tmp_path / "curves"
    shutil.copytree(folders["run_curves"], folder)
    before = snapshot(folder)
    orphans = [folder / ".tmp-0123456789abcdef.csv", folder / "parts" / ".tmp-fedcba9876543210.csv"]
    for orphan in orphans:
        orphan.write_bytes(b"a,b\n1,")
    curves(folder)
    assert not any(orphan.exists() for orphan in orphans)
    assert snapshot(folder) == before
