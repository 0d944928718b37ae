"""The committed study is what the code computes, and its committed report is derived from its archived curves.

``figures/study/full-run/study-full.tar.xz`` holds the folder of the paper's abstract study (its README gives
the command); ``figures/study/`` the report of the problems it has finished (``figures/study/STUDY.md``).
Both checks run on a copy extracted into a temporary folder:

* a few learning curves are recomputed from scratch with :func:`run_curves` and the study's settings
  (replicate 0: a replicate's data and seeds do not depend on how many replicates run): the new part files
  must carry the stored ones' configuration hash and choose the same points with the same losses, so the
  stored curves are this code's, not an older one's;
* the report is re-derived as ``STUDY.md`` says: the reported problems' pairing folders and timings are copied
  into a new folder, :func:`run_study` verifies them (and must compute nothing), :func:`report` writes the
  tables, which must equal the committed ones.
"""

from __future__ import annotations

import io
import json
import shutil
import tarfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mri_theory.runners import Execution, report, run_curves, run_study

STUDY = Path(__file__).resolve().parent.parent.parent / "figures" / "study"
ARCHIVE = STUDY / "full-run" / "study-full.tar.xz"
FOLDER = "study-full"


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    """The archived study folder, extracted (with tarfile's ``data`` filter where this Python has it)."""
    target = tmp_path_factory.mktemp("committed")
    with tarfile.open(ARCHIVE, "r:xz") as archive:
        members = archive.getmembers()
        assert all(member.isfile() or member.isdir() for member in members)
        assert all(member.name.split("/")[0] == FOLDER and ".." not in member.name.split("/") for member in members)
        if hasattr(tarfile, "data_filter"):
            archive.extractall(target, filter="data")
        else:  # Python < 3.10.12: the checks above stand in for the filter
            archive.extractall(target)
    return target / FOLDER


def _settings(study: Path) -> dict:
    return json.loads((study / "study.json").read_text())["settings"]


def _part(path: Path) -> tuple[dict, pd.DataFrame]:
    """A part file's header (``# mri-theory part {json}``) and CSV body."""
    first, _, body = path.read_bytes().partition(b"\n")
    return json.loads(first.split(b" ", 3)[3]), pd.read_csv(io.BytesIO(body))


@pytest.mark.parametrize(("classifier", "strategies"), [("lda", ["RS", "SE", "MRI-best"]), ("kknn5", ["RS", "SE"]),
                                                         ("svm", ["RS"]), ("logreg", ["SE", "MRI-best"]),
                                                         ("qda", ["BMRI"]), ("nb", ["BMRI"])])
def test_stored_curves_are_recomputed(study, tmp_path, classifier, strategies):
    settings = _settings(study)
    run_curves("four-gaussian", classifier, strategies, pool_size=settings["pool_size"], replicates=1,
               seed=settings["seed"], population_size=settings["population_size"], subsample=settings["subsample"],
               loss=settings["loss"], truth=settings["truth"], budget=settings["budget"],
               record_q_c=settings["record_q_c"], out=tmp_path, execution=Execution(n_jobs=1, progress=False))
    for strategy in strategies:
        name = f"{strategy}__00000.csv"
        stored_header, stored = _part(study / f"four-gaussian__{classifier}" / "parts" / name)
        new_header, new = _part(tmp_path / "parts" / name)
        # the same settings (config hash), strategy and replicate; then the same points with the same losses
        assert {k: new_header[k] for k in ("config_sha256", "strategy", "replicate", "rows")} == \
            {k: stored_header[k] for k in ("config_sha256", "strategy", "replicate", "rows")}
        assert new_header["rows"] == settings["pool_size"] + 1  # n_labelled 2 (one per class) to 252
        assert (new.chosen.to_numpy() == stored.chosen.to_numpy()).all(), strategy
        assert (new.n_labelled.to_numpy() == stored.n_labelled.to_numpy()).all(), strategy
        np.testing.assert_allclose(new.loss.to_numpy(float), stored.loss.to_numpy(float), rtol=1e-12, atol=0,
                                   err_msg=strategy)


def test_committed_report_is_derived_from_the_archived_curves(study, tmp_path):
    committed = json.loads((STUDY / "study.json").read_text())
    assert committed["settings"] == _settings(study)
    problems = committed["grid"]["problems"]
    folder = tmp_path / "reported"
    folder.mkdir()
    for pairing in sorted(study.iterdir()):
        if pairing.is_dir() and pairing.name.split("__")[0] in problems:
            shutil.copytree(pairing, folder / pairing.name)
    lines = (study / "timings.csv").read_text().splitlines()
    timings = "\n".join([lines[0]] + [line for line in lines[1:] if line.split(",")[0] in problems]) + "\n"
    (folder / "timings.csv").write_text(timings)
    run_study(committed["grid"]["preset"], problems=problems, classifiers=committed["grid"]["classifiers"],
              replicates=committed["grid"]["replicates"], out=folder, execution=Execution(n_jobs=1, progress=False))
    assert (folder / "timings.csv").read_text() == timings  # every task was stored and verified: none computed
    written = [path for path in report(folder) if path.suffix == ".csv"]
    assert {path.name for path in written} == {path.name for path in STUDY.glob("*.csv")} - {"asymptotic.csv"}
    for path in written:
        new, stored = pd.read_csv(path), pd.read_csv(STUDY / path.name)
        assert list(new.columns) == list(stored.columns) and new.shape == stored.shape, path.name
        for column in new.columns:
            if pd.api.types.is_numeric_dtype(stored[column]):
                np.testing.assert_allclose(new[column].to_numpy(float), stored[column].to_numpy(float),
                                           rtol=1e-12, atol=1e-15, equal_nan=True, err_msg=f"{path.name}: {column}")
            else:
                assert new[column].equals(stored[column]), f"{path.name}: {column}"  # missing where missing
    pd.testing.assert_frame_equal(pd.read_csv(folder / "asymptotic.csv"), pd.read_csv(STUDY / "asymptotic.csv"),
                                  rtol=1e-12)
