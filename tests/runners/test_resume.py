"""Resuming :func:`mri_theory.runners.sandbox.run_curves` never trusts a damaged part file.

* Every corruption of a finished part (cut mid-line, truncated to 20 lines,
  header only, another pair's file copied over it, empty, binary garbage, a
  part of the old header-less format, one digit changed, a part of another
  study) is reported by a ``DamagedPartWarning`` naming the file and the
  reason; only that pair is recomputed, its part is overwritten with a good
  one, and the table and ``curves.csv`` equal an uninterrupted run.
* Parts forged with a valid header and checksum (written here from the format
  in the module docstring, independently of the module's writer) are still
  rejected when their content is wrong: a row missing, a renamed column, rows
  of another pair, ``n_labelled`` not stepping by one from the initial size,
  a repeated pick, a non-numeric loss, another study's configuration hash.
  The same forger writing the true table is accepted, so the rejections are
  about the content, not about the forger.
* Any strict prefix of a part, and any change of one byte of its data, is
  rejected (hypothesis).
* A corrupt or unreadable ``config.json`` raises a ``ValueError`` naming the
  file before anything is computed or written.
* Only the calling process writes files (joblib workers compute), and files
  are created honouring the umask.

Sizes are small: pool 24, budget 22 (parts of 25 lines), population 300, RS and SE.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import stat
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _optional import HealthCheck, given, settings, st
from _shared import QUIET, count_pairs
from pandas.testing import assert_frame_equal

import mri_theory.runners._store as _storage
import mri_theory.runners.sandbox as sandbox
from mri_theory.classifiers import get_classifier
from mri_theory.cli import main
from mri_theory.problems import get_problem
from mri_theory.runners import Execution, _curves, _store
from mri_theory.runners.sandbox import read_curves, run_curves
from mri_theory.strategies import get_strategy

ARGS = dict(problem="four-gaussian", classifier="lda", strategies=["RS", "SE"], pool_size=24, budget=22,
            replicates=2, population_size=300, seed=7, execution=QUIET)
PAIRS = [(s, r) for s in ARGS["strategies"] for r in range(ARGS["replicates"])]
#: The part that the tests damage, and the pair it belongs to.
TARGET, TARGET_PAIR = "RS__00000.csv", ("RS", 0)
#: The strategies' specs in the part headers: the repr of the registered strategies (their parameters).
SPECS = {"RS": "RandomSelection()", "SE": "ShannonEntropy()"}


@pytest.fixture(scope="module")
def clean():
    """An uninterrupted run without an output folder."""
    return run_curves(**ARGS)


@pytest.fixture
def out(tmp_path, clean):
    """A finished output folder."""
    folder = tmp_path / "out"
    assert_frame_equal(run_curves(**ARGS, out=folder), clean, check_exact=True)
    return folder


def resume(folder: Path) -> tuple[pd.DataFrame, list[str]]:
    """Rerun into ``folder``; the table and the messages of the ``DamagedPartWarning``s."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = run_curves(**ARGS, out=folder)
    return table, [str(w.message) for w in caught if issubclass(w.category, sandbox.DamagedPartWarning)]


def split_part(data: bytes) -> tuple[dict, bytes]:
    """A part's header (the JSON after ``# mri-theory part ``) and CSV body, as the module docstring describes."""
    first, _, body = data.partition(b"\n")
    assert first.startswith(b"# mri-theory part ")
    return json.loads(first[len(b"# mri-theory part "):]), body


def config_sha256(folder: Path) -> str:
    """SHA-256 of the canonical JSON of ``folder/config.json`` (sorted keys, no spaces)."""
    config = json.loads((folder / "config.json").read_text())
    return hashlib.sha256(json.dumps(config, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def forge(path: Path, frame: pd.DataFrame, strategy: str, replicate: int, config_hash: str) -> None:
    """Write ``frame`` as a part with a valid header and checksum (the format of the module docstring)."""
    body = frame.to_csv(index=False).encode()
    header = {"format": 1, "strategy": strategy, "replicate": replicate, "strategy_spec": SPECS[strategy],
              "config_sha256": config_hash, "rows": len(frame), "sha256": hashlib.sha256(body).hexdigest()}
    path.write_bytes(b"# mri-theory part " + json.dumps(header).encode() + b"\n" + body)


def assert_recovered(folder: Path, table: pd.DataFrame, messages: list[str], calls: list, clean: pd.DataFrame,
                     reason: str) -> None:
    """One warning naming the damaged part and ``reason``; only its pair recomputed; the clean table; then trusted."""
    assert len(messages) == 1, messages
    assert str(folder / "parts" / TARGET) in messages[0]
    assert re.search(reason, messages[0]), messages[0]
    assert calls == [TARGET_PAIR]
    assert_frame_equal(table, clean, check_exact=True)
    assert_frame_equal(read_curves(folder), clean, check_exact=True)
    # the part was overwritten with a verifiable one: the next run trusts every part
    calls.clear()
    again, messages = resume(folder)
    assert messages == [] and calls == []
    assert_frame_equal(again, clean, check_exact=True)


# ------------------------------------------------------------------ damaged parts


def cut_mid_line(data: bytes, folder: Path) -> bytes:
    lines = data.split(b"\n")
    row = lines[12]  # the 11th data row
    assert len(row) > 10
    return b"\n".join(lines[:12]) + b"\n" + row[: len(row) // 2]


def change_one_digit(data: bytes, folder: Path) -> bytes:
    body = split_part(data)[1]
    lines = body.split(b"\n")
    row = lines[6]
    i = max(row.rfind(bytes([d])) for d in b"123456789")  # the last nonzero digit of the row
    lines[6] = row[:i] + (b"1" if row[i:i + 1] != b"1" else b"2") + row[i + 1:]
    return data.partition(b"\n")[0] + b"\n" + b"\n".join(lines)


def part_of_another_study(data: bytes, folder: Path) -> bytes:
    other = folder.parent / "other"
    run_curves(**{**ARGS, "seed": ARGS["seed"] + 1, "strategies": ["RS"], "replicates": 1}, out=other)
    return (other / "parts" / TARGET).read_bytes()


DAMAGE = {
    "cut mid-line": (cut_mid_line, "checksum"),
    "truncated to 20 lines": (lambda data, folder: b"".join(data.splitlines(keepends=True)[:20]), "checksum"),
    "header line only": (lambda data, folder: data.splitlines(keepends=True)[0], "checksum"),
    "header and column names only": (lambda data, folder: b"".join(data.splitlines(keepends=True)[:2]), "checksum"),
    "another pair's file": (lambda data, folder: (folder / "parts" / "SE__00001.csv").read_bytes(),
                            r"wrong pair.*'SE', 1"),
    "empty": (lambda data, folder: b"", "empty"),
    "binary garbage": (lambda data, folder: bytes(range(256)) * 8, "bad header"),
    "old format without a header": (lambda data, folder: split_part(data)[1], "bad header"),
    "one digit changed": (change_one_digit, "checksum"),
    "part of another study": (part_of_another_study, "different configuration"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_part_is_reported_and_recomputed(damage, out, clean, monkeypatch):
    corrupt, reason = DAMAGE[damage]
    part = out / "parts" / TARGET
    data = part.read_bytes()
    damaged = corrupt(data, out)
    assert damaged != data
    part.write_bytes(damaged)
    (out / "curves.csv").unlink()
    calls = count_pairs(monkeypatch)
    table, messages = resume(out)
    assert_recovered(out, table, messages, calls, clean, reason)


def test_several_damaged_parts_are_each_named(out, clean, monkeypatch):
    (out / "parts" / "RS__00001.csv").write_bytes(b"")
    se = out / "parts" / "SE__00000.csv"
    se.write_bytes(b"".join(se.read_bytes().splitlines(keepends=True)[:20]))
    calls = count_pairs(monkeypatch)
    table, messages = resume(out)
    assert sorted(calls) == [("RS", 1), ("SE", 0)]
    assert len(messages) == 2
    assert str(out / "parts" / "RS__00001.csv") in messages[0] and "empty" in messages[0]
    assert str(se) in messages[1] and "checksum" in messages[1]
    assert_frame_equal(table, clean, check_exact=True)
    assert_frame_equal(read_curves(out), clean, check_exact=True)


# ------------------------------------------------------------------ forged parts: valid checksum, wrong content


def drop_last_row(frame):
    return frame.iloc[:-1]


def rename_loss(frame):
    return frame.rename(columns={"loss": "true_loss"})


def swap_n_labelled(frame):
    frame = frame.copy()
    frame.loc[[3, 4], "n_labelled"] = frame.loc[[4, 3], "n_labelled"].to_numpy()
    return frame


def shift_n_labelled(frame):
    return frame.assign(n_labelled=frame.n_labelled + 1)


def repeat_a_pick(frame):
    frame = frame.copy()
    frame.loc[1, "chosen"] = frame.loc[0, "chosen"]
    return frame


def text_loss(frame):
    frame = frame.copy().astype({"loss": object})
    frame.loc[2, "loss"] = "oops"
    return frame


FORGED = {
    "a row missing": (drop_last_row, None, "row count"),
    "a renamed column": (rename_loss, None, "wrong columns"),
    "rows of another pair": (lambda frame: frame, ("SE", 1), "rows not matching the pair"),
    "n_labelled not stepping by one": (swap_n_labelled, None, "n_labelled"),
    "n_labelled from another initial size": (shift_n_labelled, None, "n_labelled"),
    "a repeated pick": (repeat_a_pick, None, "chosen"),
    "a non-numeric loss": (text_loss, None, "column types"),
}


@pytest.mark.parametrize("forgery", list(FORGED))
def test_a_forged_part_with_wrong_content_is_rejected(forgery, out, clean, monkeypatch):
    change, source, reason = FORGED[forgery]
    source_file = TARGET if source is None else f"{source[0]}__{source[1]:05d}.csv"
    frame = pd.read_csv(io.BytesIO(split_part((out / "parts" / source_file).read_bytes())[1]))
    forge(out / "parts" / TARGET, change(frame), *TARGET_PAIR, config_sha256(out))
    calls = count_pairs(monkeypatch)
    table, messages = resume(out)
    assert_recovered(out, table, messages, calls, clean, reason)


def test_a_forged_part_of_another_configuration_is_rejected(out, clean, monkeypatch):
    config = json.loads((out / "config.json").read_text())
    other_hash = hashlib.sha256(json.dumps({**config, "seed": config["seed"] + 1}, sort_keys=True,
                                           separators=(",", ":")).encode()).hexdigest()
    assert other_hash != config_sha256(out)
    frame = pd.read_csv(io.BytesIO(split_part((out / "parts" / TARGET).read_bytes())[1]))
    forge(out / "parts" / TARGET, frame, *TARGET_PAIR, other_hash)
    calls = count_pairs(monkeypatch)
    table, messages = resume(out)
    assert_recovered(out, table, messages, calls, clean, "different configuration")


def test_a_part_in_the_documented_format_is_trusted(out, clean, monkeypatch):
    """The forger above writes the true table: accepted, nothing recomputed (so the rejections are about content)."""
    frame = pd.read_csv(io.BytesIO(split_part((out / "parts" / TARGET).read_bytes())[1]))
    forge(out / "parts" / TARGET, frame, *TARGET_PAIR, config_sha256(out))
    (out / "curves.csv").unlink()
    calls = count_pairs(monkeypatch)
    table, messages = resume(out)
    assert messages == [] and calls == []
    assert_frame_equal(table, clean, check_exact=True)
    assert_frame_equal(read_curves(out), clean, check_exact=True)


# ------------------------------------------------------------------ any cut, any changed byte


@pytest.fixture(scope="module")
def written_part(tmp_path_factory):
    folder = tmp_path_factory.mktemp("part")
    run_curves(**ARGS, out=folder)
    cfg = sandbox.CurveConfig(**json.loads((folder / "config.json").read_text()))
    run = _curves.Run(cfg, get_problem(cfg.problem), get_classifier(cfg.classifier),
                       {s: get_strategy(s) for s in ARGS["strategies"]})
    return run, (folder / "parts" / TARGET).read_bytes(), folder / "probe.csv"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_prefix_or_changed_data_byte_is_rejected(written_part, data):
    run, good, probe = written_part
    probe.write_bytes(good)
    assert_frame_equal(_curves.read_part(probe, run, *TARGET_PAIR), pd.read_csv(io.BytesIO(split_part(good)[1])))
    if data.draw(st.booleans(), label="cut"):
        damaged = good[:data.draw(st.integers(0, len(good) - 1), label="length")]
    else:
        start = len(good.partition(b"\n")[0]) + 1  # the data: the CSV body after the header line
        i = data.draw(st.integers(start, len(good) - 1), label="byte")
        byte = data.draw(st.integers(0, 255).filter(lambda b: b != good[i]), label="value")
        damaged = good[:i] + bytes([byte]) + good[i + 1:]
    probe.write_bytes(damaged)
    with pytest.raises(_store.DamagedPart):
        _curves.read_part(probe, run, *TARGET_PAIR)


# ------------------------------------------------------------------ config.json


CORRUPT_CONFIGS = {
    "empty": b"",
    "cut": b'{\n  "budget": 22,\n  "classifier": "l',
    "binary": bytes(range(256)),
}


@pytest.mark.parametrize("content", list(CORRUPT_CONFIGS))
def test_a_corrupt_config_raises_naming_the_file(content, out, monkeypatch):
    config = out / "config.json"
    config.write_bytes(CORRUPT_CONFIGS[content])
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    calls = count_pairs(monkeypatch)
    with pytest.raises(ValueError, match=re.escape(str(config)) + ".*corrupt"):
        run_curves(**ARGS, out=out)
    assert calls == []
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_a_corrupt_config_in_a_new_folder_creates_nothing(tmp_path, capsys):
    folder = tmp_path / "new"
    folder.mkdir()
    (folder / "config.json").write_text("not json")
    with pytest.raises(ValueError, match=re.escape(str(folder / "config.json"))):
        run_curves(**ARGS, out=folder)
    assert sorted(p.name for p in folder.iterdir()) == ["config.json"]
    # the command line: one line, exit code 2
    assert main(["curves", "--classifier", "lda", "--strategies", "RS", "--replicates", "1", "--pool", "6",
                 "--budget", "2", "--population", "300", "--out", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(folder / "config.json") in err and "Traceback" not in err
    assert sorted(p.name for p in folder.iterdir()) == ["config.json"]


# ------------------------------------------------------------------ who writes, and with which mode


def test_only_the_calling_process_writes(tmp_path, clean, monkeypatch):
    """With n_jobs=2 every file, each part included, is written by this process (workers only compute)."""
    written = []
    original = _storage.write_atomic

    def recording(data, path):
        written.append((os.getpid(), Path(path).name))
        return original(data, path)

    monkeypatch.setattr(_storage, "write_atomic", recording)
    table = run_curves(**{**ARGS, "execution": Execution(n_jobs=2)}, out=tmp_path)
    assert_frame_equal(table, clean, check_exact=True)
    parts = sorted(p.name for p in (tmp_path / "parts").iterdir())
    assert parts == sorted(f"{s}__{r:05d}.csv" for s, r in PAIRS)
    assert sorted(name for _, name in written) == sorted([*parts, ".runner", "config.json", "curves.csv",
                                                          "checksums.json"])
    assert (tmp_path / ".lock").read_text() == ""  # the lock file: this process's pid while it ran, then emptied
    assert {pid for pid, _ in written} == {os.getpid()}
    assert_frame_equal(read_curves(tmp_path), clean, check_exact=True)


@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_files_are_created_honouring_the_umask(umask, mode, tmp_path):
    previous = os.umask(umask)
    try:
        run_curves(**{**ARGS, "strategies": ["RS"], "replicates": 2, "budget": 3}, out=tmp_path / "out")
    finally:
        os.umask(previous)
    files = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert sorted(p.name for p in files) == [".lock", ".runner", "RS__00000.csv", "RS__00001.csv", "checksums.json",
                                             "config.json", "curves.csv"]
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == mode, path
    assert np.all([not p.name.startswith(".tmp-") for p in (tmp_path / "out").rglob("*")])


def test_a_sampled_truth_folder_from_before_the_race_is_refused(tmp_path, monkeypatch):
    """A folder of the sampled truth written before the decisive race recorded no ``doublings``: its MRI-best chose
    on one population, so a resume must not mix it with the race's choices."""
    args = dict(ARGS, classifier="svm", strategies=["RS"], replicates=1, pool_size=6, budget=2, truth="sampled")
    folder = tmp_path / "sampled"
    run_curves(**args, out=folder)
    config = folder / "config.json"
    stored = json.loads(config.read_text())
    assert stored["truth"] == "sampled" and stored["doublings"] == _curves.CURVE_DOUBLINGS
    del stored["doublings"]
    config.write_text(json.dumps(stored, indent=2, sort_keys=True))
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    calls = count_pairs(monkeypatch)
    with pytest.raises(ValueError, match="different study"):
        run_curves(**args, out=folder)
    assert calls == []
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
