"""Verified means validated (issue 40): a stored table whose checksum was re-recorded by hand is still checked for
content, and every record a reader trusts is covered by a checksum.

Each case edits a finished folder's table, then writes the edited bytes' SHA-256 into ``checksums.json`` (so the
checksum passes) and checks that the reader refuses the content with a message naming the file and what is wrong.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from _shared import QUIET

from mri_theory.runners import copy_leaderboard, read_curves, read_leaderboard, read_study, run_leaderboard, run_study

TINY = dict(pool_size=8, population_size=100)


def rerecord(file: Path) -> None:
    """Record ``file``'s current bytes in its folder's ``checksums.json`` (a checksum re-recorded by hand)."""
    sidecar = file.parent / "checksums.json"
    record = json.loads(sidecar.read_text())
    record["tables"][file.name] = hashlib.sha256(file.read_bytes()).hexdigest()
    sidecar.write_text(json.dumps(record, indent=2, sort_keys=True))


def rewrite(file: Path, edit) -> None:
    """Apply ``edit`` to the CSV table ``file`` and re-record its checksum."""
    table = pd.read_csv(file)
    edit(table)
    file.write_text(table.to_csv(index=False, lineterminator="\n"))
    rerecord(file)


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("validated")
    run_study(problems=["four-gaussian"], classifiers=["lda"], strategies=["RS", "SE"], replicates=2, budget=3,
              asymptotic_train=20, asymptotic_replicates=1, asymptotic_population=100, out=root / "study",
              execution=QUIET, **TINY)
    run_leaderboard(["four-gaussian"], ["lda"], ["RS"], replicates=2, steps=(2,), out=root / "board", n_boot=20,
                    execution=QUIET, **TINY)
    return {"study": root / "study", "board": root / "board"}


@pytest.fixture
def study(finished, tmp_path) -> Path:
    folder = tmp_path / "study"
    shutil.copytree(finished["study"], folder)
    read_study(folder)  # the untouched copy reads
    return folder


@pytest.fixture
def board(finished, tmp_path) -> Path:
    folder = tmp_path / "board"
    shutil.copytree(finished["board"], folder)
    read_leaderboard(folder)
    return folder


def test_an_error_rate_of_seven_is_refused(study):
    rewrite(study / "curves.csv", lambda t: t.__setitem__("loss", t["loss"].where(t.index != 3, 7.0)))
    with pytest.raises(ValueError, match=r"^path: .*curves\.csv holds a loss of 7\.0, outside \[0, 1\]"):
        read_study(study)



def test_without_its_settings_a_table_is_bounded_by_the_log_loss(study):
    """read_curves of a study's table (no config.json beside it: the loss is not known) takes the log loss's
    bound, -ln(1e-15) = 34.5."""
    rewrite(study / "curves.csv", lambda t: t.__setitem__("loss", t["loss"].where(t.index != 3, 40.0)))
    with pytest.raises(ValueError, match=r"holds a loss of 40\.0, outside \[0, 34\.5"):
        read_curves(study / "curves.csv")


def test_a_missing_step_is_refused(study):
    table = pd.read_csv(study / "curves.csv")
    table.drop(index=2).to_csv(study / "curves.csv", index=False, lineterminator="\n")
    rerecord(study / "curves.csv")
    with pytest.raises(ValueError, match=r"^path: .*curves\.csv has a gap or a repeat in the steps of the run"):
        read_study(study)


def test_a_missing_run_tail_is_refused(study):
    """The last step of one run gone: the run is consecutive, but shorter than the others of its pairing."""
    table = pd.read_csv(study / "curves.csv")
    table.drop(index=table.index[-1]).to_csv(study / "curves.csv", index=False, lineterminator="\n")
    rerecord(study / "curves.csv")
    with pytest.raises(ValueError, match=r"has runs of different lengths in the pairing"):
        read_study(study)


@pytest.mark.parametrize("value", [-1.0, 1.5, float("nan")])
def test_an_impossible_asymptotic_loss_is_refused(study, value):
    rewrite(study / "asymptotic.csv", lambda t: t.__setitem__("asymptotic_loss", value))
    with pytest.raises(ValueError, match=r"^path: .*asymptotic\.csv holds an asymptotic loss outside \[0, 1\]"):
        read_study(study)


def test_a_negative_standard_error_is_refused(study):
    rewrite(study / "curves.csv", lambda t: t.__setitem__("loss_se", -t["loss_se"] - 1))
    with pytest.raises(ValueError, match=r"holds a loss_se that is not a number >= 0"):
        read_study(study)


def test_an_edited_leaderboard_record_is_refused_and_not_certified(board, tmp_path):
    record = json.loads((board / "leaderboard.json").read_text())
    record["settings"]["replicates"] = 20
    (board / "leaderboard.json").write_text(json.dumps(record, indent=2, sort_keys=True))
    with pytest.raises(ValueError, match=r"was written under other settings than .*leaderboard\.json holds now"):
        read_leaderboard(board)
    with pytest.raises(ValueError, match=r"^source: .*leaderboard\.json holds now"):
        copy_leaderboard(board, tmp_path / "copy")
    assert not (tmp_path / "copy").exists()


@pytest.mark.parametrize("edit", [
    lambda t: t.insert(4, "foreign", 1.0),
    lambda t: t.__setitem__("cpu_s", -t["cpu_s"].fillna(1.0)),
    lambda t: t.__setitem__("timed_states", -1),
], ids=["foreign column", "negative CPU seconds", "negative counts"])
def test_a_cost_table_out_of_shape_is_refused(board, edit):
    table = pd.read_csv(board / "cost.csv")
    edit(table)
    table.to_csv(board / "cost.csv", index=False, lineterminator="\n")
    with pytest.raises(ValueError, match=r"^path: .*cost\.csv is not the cost table of run_leaderboard"):
        read_leaderboard(board)
