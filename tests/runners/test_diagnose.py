"""``mri-theory diagnose`` as a function: :func:`mri_theory.runners.diagnose.run_diagnostics` (§3.3).

* The function writes the bytes the command writes (the wall-time line of
  ``DIAGNOSTICS.md`` aside), and returns the tables of its files: the
  summaries of the stored states, read back through their checksums.
* Names or objects, one-pass iterables; the settings line lists the labels
  and the steps as given.
* Bad arguments, a folder in place of a summary file and a folder another
  process writes are refused before any file is written, naming the argument
  (``out`` as ``out_name`` gives it).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from _shared import QUIET, lock_held
from pandas.testing import assert_frame_equal

from mri_theory.classifiers import get_classifier
from mri_theory.cli import main
from mri_theory.evaluation import estimator_errors, summarise_states
from mri_theory.runners import read_states
from mri_theory.runners.diagnose import SUMMARY_FILES, Diagnostics, run_diagnostics

SMALL = {"replicates": 2, "steps": [4, 1], "pool_size": 10, "population_size": 400, "execution": QUIET}
CLI_SMALL = ["--replicates", "2", "--steps", "4", "1", "--pool", "10", "--population", "400"]
STRATEGIES = ["RS", "SMRI", "MRI-best"]


def files(folder: Path) -> dict:
    """Every file's bytes, without the wall-time line of ``DIAGNOSTICS.md`` and so without the top-level
    ``checksums.json`` (which holds its checksum)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path == folder / "checksums.json":
            continue
        data = path.read_bytes()
        if path.name == "DIAGNOSTICS.md":
            data = b"\n".join(line for line in data.split(b"\n") if not line.startswith(b"Wall time"))
        found[path.relative_to(folder)] = data
    return found


def test_the_function_writes_the_bytes_of_the_command(tmp_path, capsys):
    cli, fn = tmp_path / "cli", tmp_path / "fn"
    assert main(["diagnose", "--classifiers", "lda", "kknn5", "--strategies", *STRATEGIES, *CLI_SMALL,
                 "--out", str(cli)]) == 0
    result = run_diagnostics("four-gaussian", ["lda", "kknn5"], STRATEGIES, **SMALL, out=fn)
    assert isinstance(result, Diagnostics)
    assert files(fn) == files(cli) and len(files(fn)) > 6
    assert result.paths == [fn / name for name in SUMMARY_FILES]
    # the tables returned are those of the files, the summaries of the states stored per classifier
    stored = pd.concat([read_states(fn / f"four-gaussian__{c}") for c in ("lda", "kknn5")], ignore_index=True)
    assert_frame_equal(result.states, stored, check_dtype=False)
    assert_frame_equal(result.summary, pd.read_csv(fn / "summary.csv"), check_dtype=False)
    assert_frame_equal(result.errors, pd.read_csv(fn / "errors.csv"), check_dtype=False)
    assert_frame_equal(result.summary, summarise_states(stored), check_dtype=False)
    assert_frame_equal(result.errors, estimator_errors(stored), check_dtype=False)


def test_names_objects_and_one_pass_iterables(tmp_path):
    out = tmp_path / "out"
    result = run_diagnostics("four-gaussian", (c for c in [get_classifier("lda"), "qda"]), iter(["RS", "SE"]),
                             replicates=1, steps=iter([3, 1]), pool_size=8, population_size=300, out=out,
                             execution=QUIET)
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["four-gaussian__lda", "four-gaussian__qda"]
    assert list(result.states.classifier.unique()) == ["lda", "qda"]
    assert sorted(result.states.step.unique()) == [1, 3]
    assert result.errors is None and not (out / "errors.csv").exists()  # neither RS nor SE estimates T_e
    assert result.paths == [out / "summary.csv", out / "DIAGNOSTICS.md"]
    text = (out / "DIAGNOSTICS.md").read_text()
    assert "Classifiers: lda, qda. Settings: strategies ['RS', 'SE']; replicates 1; steps [3, 1]; pool_size 8;" in text
    assert "None of the strategies estimates T_e" in text


@pytest.mark.parametrize("change,error,pattern", [
    ({"classifiers": ["lda", get_classifier("lda")]}, ValueError, "classifiers must not repeat a name, got lda"),
    ({"classifiers": []}, ValueError, "classifiers must name at least one classifier"),
    ({"classifiers": 3}, TypeError, "classifiers must be a classifier name"),
    ({"classifiers": ["lda", "nope"]}, ValueError, "classifier: unknown classifier 'nope'"),
    ({"steps": [1, 9]}, ValueError, "steps must be <= pool_size - 2"),
    ({"out": "", "out_name": "--dir"}, ValueError, "--dir must name a folder"),
    ({"execution": "local"}, TypeError, "execution must be an Execution or None, got str"),
])
def test_bad_arguments_are_refused_before_any_file(change, error, pattern, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    arguments = {"classifiers": ["lda"], "strategies": "RS", "replicates": 1, "steps": [1], "pool_size": 6,
                 "population_size": 200, "execution": QUIET, "out": tmp_path / "out", **change}
    with pytest.raises(error, match=pattern):
        run_diagnostics("four-gaussian", **arguments)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", [".lock", "checksums.json", *SUMMARY_FILES])
def test_a_folder_where_a_file_belongs_is_refused_naming_out(name, tmp_path):
    (tmp_path / name).mkdir()
    with pytest.raises(ValueError, match=f"^--dir: {tmp_path / name} should be a file$"):
        run_diagnostics("four-gaussian", ["lda"], "RS", replicates=1, steps=[1], pool_size=6, population_size=200,
                        out=tmp_path, out_name="--dir", execution=QUIET)
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_a_folder_another_process_writes_is_refused_with_its_pid(tmp_path):
    with lock_held(tmp_path) as pid, pytest.raises(
            ValueError, match=f"^out: {tmp_path} is being written by another process \\(pid {pid}, "):
        run_diagnostics("four-gaussian", ["lda"], "RS", replicates=1, steps=[1], pool_size=6,
                        population_size=200, out=tmp_path, execution=QUIET)
    assert [p.name for p in tmp_path.iterdir()] == [".lock"]  # no classifier's folder, no summary
