""":func:`read_leaderboard` and :func:`copy_leaderboard`: a finished leaderboard read back verified, and copied.

* The table read back is the run's ``leaderboard.csv`` (as pandas reads the file) and equals the run's table
  without the cost; the record is the run's ``leaderboard.json``; the cost its ``cost.csv``.
* The copy holds the run's five files byte for byte, and a ``checksums.json`` whose SHA-256 values (computed
  here with hashlib) are those of the three tables and of ``leaderboard.json``; a folder written before the
  statistics and differences is read with None for them; damaged statistics (edited, not xz, missing while
  listed, other columns) are refused.
* An edited, cut or replaced table, an edited ``leaderboard.json`` (in a copy), a missing record, a folder being
  written, a destination that is the source or a file are refused, naming the argument, and a refused copy
  writes nothing.

Sizes: one problem, LDA and naive Bayes (exact truth), RS and SE, 2 replicates, steps 1 and 11, pool 20,
population 300 (a few seconds).
"""

from __future__ import annotations

import hashlib
import json
import lzma

import pandas as pd
import pytest
from _shared import QUIET, lock_held
from pandas.testing import assert_frame_equal

from mri_theory.runners import (
    LEADERBOARD_COLUMNS,
    LEADERBOARD_FILES,
    StoredLeaderboard,
    copy_leaderboard,
    read_leaderboard,
    run_leaderboard,
)

GRID = dict(problems="four-gaussian", classifiers=["lda", "nb"], strategies=["RS", "SE"], replicates=2,
            steps=[1, 11], pool_size=20, population_size=300, seed=2, n_boot=50, execution=QUIET)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("board")
    return folder, run_leaderboard(out=folder, **GRID)


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_read_gives_the_runs_table_record_and_cost(run):
    folder, result = run
    stored = read_leaderboard(folder)
    assert isinstance(stored, StoredLeaderboard)
    assert list(stored.table.columns) == LEADERBOARD_COLUMNS
    assert_frame_equal(stored.table, pd.read_csv(folder / "leaderboard.csv"))
    assert_frame_equal(stored.table, result.table.drop(columns=["cpu_s", "timed_states"]), check_dtype=False)
    assert stored.record == json.loads((folder / "leaderboard.json").read_text(encoding="utf-8"))
    assert stored.record["settings"]["replicates"] == 2 and stored.record["settings"]["seed"] == 2
    assert_frame_equal(stored.cost, pd.read_csv(folder / "cost.csv"))
    assert_frame_equal(read_leaderboard(folder / "leaderboard.csv").table, stored.table)  # the file names it too


def test_copy_holds_the_runs_files_byte_for_byte_and_their_checksums(run, tmp_path):
    folder, _ = run
    target = tmp_path / "figures" / "design"
    written = copy_leaderboard(folder, target)
    assert written == [target / name for name in ("leaderboard.csv", "differences.csv", "statistics.csv.xz",
                                                   "cost.csv", "leaderboard.json", "checksums.json")]
    assert sorted(p.name for p in target.iterdir()) == sorted([".runner", "checksums.json", *LEADERBOARD_FILES])
    for name in LEADERBOARD_FILES:
        assert (target / name).read_bytes() == (folder / name).read_bytes(), name
    sums = json.loads((target / "checksums.json").read_text(encoding="utf-8"))
    assert sums["tables"] == {name: sha256(folder / name)
                              for name in ("leaderboard.csv", "differences.csv", "statistics.csv.xz")}
    assert sums["settings_file"] == "leaderboard.json"
    assert sums["settings_sha256"] == sha256(folder / "leaderboard.json")
    run_sums = json.loads((folder / "checksums.json").read_text(encoding="utf-8"))
    assert sums["tables"] == run_sums["tables"]  # the run's checksum of the table
    copied = read_leaderboard(target)
    original = read_leaderboard(folder)
    assert_frame_equal(copied.table, original.table)
    assert_frame_equal(copied.statistics, original.statistics)
    assert_frame_equal(copied.differences, original.differences)
    assert copied.record == original.record
    assert copy_leaderboard(target, tmp_path / "again")[0].read_bytes() == (folder / "leaderboard.csv").read_bytes()


def test_a_copy_without_cost_is_read_with_none(run, tmp_path):
    folder, _ = run
    source = tmp_path / "source"
    copy_leaderboard(folder, source)
    (source / "cost.csv").unlink()
    assert read_leaderboard(source).cost is None
    written = copy_leaderboard(source, tmp_path / "target")
    assert [p.name for p in written] == ["leaderboard.csv", "differences.csv", "statistics.csv.xz",
                                         "leaderboard.json", "checksums.json"]


@pytest.mark.parametrize("damage", ["edit", "cut", "replace", "no checksums", "unlisted"])
def test_a_damaged_table_is_refused_and_nothing_is_copied(run, tmp_path, damage):
    folder, _ = run
    source = tmp_path / "source"
    copy_leaderboard(folder, source)
    table = source / "leaderboard.csv"
    data = table.read_bytes()
    if damage == "edit":
        table.write_bytes(data.replace(b"0.", b"1.", 1))
    elif damage == "cut":
        table.write_bytes(data[: len(data) // 2])
    elif damage == "replace":
        table.write_bytes(pd.read_csv(table).iloc[::-1].to_csv(index=False).encode())
    elif damage == "no checksums":
        (source / "checksums.json").unlink()
    else:
        sums = json.loads((source / "checksums.json").read_text(encoding="utf-8"))
        sums["tables"] = {"other.csv": sums["tables"]["leaderboard.csv"]}
        (source / "checksums.json").write_text(json.dumps(sums), encoding="utf-8")
    with pytest.raises(ValueError, match=f"^path: .*{table.name}.*(checksum|cannot be verified)"):
        read_leaderboard(source)
    with pytest.raises(ValueError, match=f"^source: .*{table.name}.*(checksum|cannot be verified)"):
        copy_leaderboard(source, tmp_path / "target")
    assert not (tmp_path / "target").exists()


def test_a_copy_written_before_the_statistics_is_read_with_none(run, tmp_path):
    folder, _ = run
    source = tmp_path / "source"
    copy_leaderboard(folder, source)
    for name in ("differences.csv", "statistics.csv.xz"):
        (source / name).unlink()
    sums = json.loads((source / "checksums.json").read_text(encoding="utf-8"))
    sums["tables"] = {"leaderboard.csv": sums["tables"]["leaderboard.csv"]}  # as an older run wrote it
    (source / "checksums.json").write_text(json.dumps(sums), encoding="utf-8")
    stored = read_leaderboard(source)
    assert stored.statistics is None and stored.differences is None
    assert [p.name for p in copy_leaderboard(source, tmp_path / "target")] == [
        "leaderboard.csv", "cost.csv", "leaderboard.json", "checksums.json"]


@pytest.mark.parametrize("damage", ["edit", "not xz", "missing", "columns"])
def test_damaged_statistics_are_refused(run, tmp_path, damage):
    folder, _ = run
    source = tmp_path / "source"
    copy_leaderboard(folder, source)
    file = source / "statistics.csv.xz"
    if damage == "edit":
        file.write_bytes(file.read_bytes()[:-1] + b"\x00")
    elif damage == "not xz":
        file.write_bytes(b"problem,classifier\n")
    elif damage == "columns":
        file.write_bytes(lzma.compress(b"problem,classifier\nx,y\n"))
    else:
        file.unlink()
    if damage in ("not xz", "columns"):  # checksums matching the damaged bytes: the content is refused
        sums = json.loads((source / "checksums.json").read_text(encoding="utf-8"))
        sums["tables"]["statistics.csv.xz"] = sha256(file)
        (source / "checksums.json").write_text(json.dumps(sums), encoding="utf-8")
    reason = {"edit": "checksum", "not xz": "not an xz file", "missing": "unreadable",
              "columns": "not the state statistics"}[damage]
    with pytest.raises(ValueError, match=f"^path: .*statistics.csv.xz.*{reason}"):
        read_leaderboard(source)


def test_an_edited_record_of_a_copy_is_refused(run, tmp_path):
    folder, _ = run
    copy = tmp_path / "copy"
    copy_leaderboard(folder, copy)
    record = json.loads((copy / "leaderboard.json").read_text(encoding="utf-8"))
    record["settings"]["replicates"] = 10
    (copy / "leaderboard.json").write_text(json.dumps(record, indent=2, sort_keys=True), encoding="utf-8")
    with pytest.raises(ValueError, match="^path: .*leaderboard.csv was written under other settings"):
        read_leaderboard(copy)


@pytest.mark.parametrize("record", [None, "not json", {"format": 1}, {"format": 2, "settings": {}, "versions": {},
                                                                         "time": {}}])
def test_a_missing_or_corrupt_record_is_refused(run, tmp_path, record):
    folder, _ = run
    source = tmp_path / "source"
    source.mkdir()
    for name in ("leaderboard.csv", "checksums.json"):  # the run's: no settings file recorded
        (source / name).write_bytes((folder / name).read_bytes())
    if record is not None:
        (source / "leaderboard.json").write_text(record if isinstance(record, str) else json.dumps(record),
                                                 encoding="utf-8")
    # the run's checksums cover leaderboard.json (issue 40): a missing, corrupt or other record fails that first
    with pytest.raises(ValueError, match=r"^path: .*leaderboard\.(json (is missing|is unreadable or corrupt)|csv "
                                         r"was written under other settings)"):
        read_leaderboard(source)


def test_bad_paths_are_refused_naming_the_argument(run, tmp_path):
    folder, _ = run
    with pytest.raises(TypeError, match="^path must be a leaderboard folder path"):
        read_leaderboard(3)
    with pytest.raises(ValueError, match="^path must name a leaderboard folder"):
        read_leaderboard("")
    with pytest.raises(ValueError, match=f"^path: no leaderboard at {tmp_path}"):
        read_leaderboard(tmp_path)
    with pytest.raises(ValueError, match="^source: no leaderboard at"):
        copy_leaderboard(tmp_path / "missing", tmp_path / "target")
    with pytest.raises(TypeError, match="^source must be a leaderboard folder path"):
        copy_leaderboard(None, tmp_path / "target")
    with pytest.raises(ValueError, match="^destination: .* is the source folder"):
        copy_leaderboard(folder, folder)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="^destination: .*file exists and is not a folder"):
        copy_leaderboard(folder, tmp_path / "file")
    with pytest.raises(TypeError, match="^destination must be a folder path"):
        copy_leaderboard(folder, None)
    (tmp_path / "blocked" / "leaderboard.csv").mkdir(parents=True)
    with pytest.raises(ValueError, match="^destination: .*leaderboard.csv should be a file"):
        copy_leaderboard(folder, tmp_path / "blocked")


def test_a_folder_being_written_is_refused_with_the_writers_pid(run, tmp_path):
    folder, _ = run
    source = tmp_path / "source"
    copy_leaderboard(folder, source)
    with lock_held(source) as pid, pytest.raises(
            ValueError, match=rf"^source: {source} is being written by another process \(pid {pid}, "):
        copy_leaderboard(source, tmp_path / "target")
    assert not (tmp_path / "target").exists()
