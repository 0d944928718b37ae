"""The committed studies are what the code computes, and their committed reports are derived from their archived curves.

``figures/study/full-run/study-full.tar.xz`` holds the folder of the paper's abstract study and
``figures/study-small/full-run/study-small.tar.xz`` that of its small real group (their READMEs give the
commands); ``figures/study/`` and ``figures/study-small/`` their reports (``STUDY.md``).  Both checks run on a
copy extracted into a temporary folder:

* a few learning curves are recomputed from scratch with :func:`run_curves` and the pairing's settings
  (``config.json``; replicate 0: a replicate's data and seeds do not depend on how many replicates run): the new
  part files must carry the stored ones' configuration hash and choose the same points with the same losses, so
  the stored curves are this code's, not an older one's;
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

FIGURES = Path(__file__).resolve().parent.parent.parent / "figures"
#: Each committed study: its report's folder, and its archive's path and top folder.
STUDIES = {"abstract": (FIGURES / "study", FIGURES / "study" / "full-run" / "study-full.tar.xz", "study-full"),
           "small": (FIGURES / "study-small", FIGURES / "study-small" / "full-run" / "study-small.tar.xz",
                     "study-small")}


@pytest.fixture(scope="module")
def extract(tmp_path_factory):
    """A function that extracts a committed study's archive once per module (tarfile's ``data`` filter where this
    Python has it) and returns its folder."""
    folders: dict[str, Path] = {}

    def extracted(name: str) -> Path:
        if name not in folders:
            _, archive_path, folder = STUDIES[name]
            target = tmp_path_factory.mktemp(f"committed-{name}")
            with tarfile.open(archive_path, "r:xz") as archive:
                members = archive.getmembers()
                assert all(member.isfile() or member.isdir() for member in members)
                assert all(member.name.split("/")[0] == folder and ".." not in member.name.split("/")
                           for member in members)
                if hasattr(tarfile, "data_filter"):
                    archive.extractall(target, filter="data")
                else:  # Python < 3.10.12: the checks above stand in for the filter
                    archive.extractall(target)
            folders[name] = target / folder
        return folders[name]
    return extracted


def _settings(study: Path) -> dict:
    return json.loads((study / "study.json").read_text())["settings"]


def _part(path: Path) -> tuple[dict, pd.DataFrame]:
    """A part file's header (``# mri-theory part {json}``) and CSV body."""
    first, _, body = path.read_bytes().partition(b"\n")
    return json.loads(first.split(b" ", 3)[3]), pd.read_csv(io.BytesIO(body))


@pytest.mark.parametrize(("name", "problem", "classifier", "strategies"), [
    ("abstract", "four-gaussian", "lda", ["RS", "SE", "MRI-best"]),
    ("abstract", "four-gaussian", "kknn5", ["RS", "SE"]),
    ("abstract", "four-gaussian", "svm", ["RS"]), ("abstract", "four-gaussian", "logreg", ["SE", "MRI-best"]),
    ("abstract", "quadratic", "svm", ["MRI-best"]),  # the SVM's exact MRI-best: every choice the exact argmax
    ("abstract", "four-gaussian", "qda", ["BMRI"]), ("abstract", "four-gaussian", "nb", ["BMRI"]),
    ("small", "wine", "lda", ["RS", "SE", "QbcV"]), ("small", "heart", "kknn5", ["RS", "SMRI"]),
    ("small", "monks-2", "nb", ["EfeLc"]), ("small", "glass", "qda", ["SE"]), ("small", "sonar", "svm", ["RS"])])
def test_stored_curves_are_recomputed(extract, tmp_path, name, problem, classifier, strategies):
    study = extract(name)
    config = json.loads((study / f"{problem}__{classifier}" / "config.json").read_text())
    run_curves(problem, classifier, strategies, pool_size=config["pool_size"], replicates=1, seed=config["seed"],
               population_size=config["population_size"], subsample=config["subsample"], loss=config["loss"],
               truth=_settings(study)["truth"], budget=config["budget"], record_q_c=config["record_q_c"],
               out=tmp_path, execution=Execution(n_jobs=1, progress=False))
    for strategy in strategies:
        part = f"{strategy}__00000.csv"
        stored_header, stored = _part(study / f"{problem}__{classifier}" / "parts" / part)
        new_header, new = _part(tmp_path / "parts" / part)
        # the same settings (config hash), strategy and replicate; then the same points with the same losses
        assert {k: new_header[k] for k in ("config_sha256", "strategy", "replicate", "rows")} == \
            {k: stored_header[k] for k in ("config_sha256", "strategy", "replicate", "rows")}
        assert new_header["rows"] == config["budget"] + 1  # one row per labelled-set size, the initial set's first
        assert (new.chosen.to_numpy() == stored.chosen.to_numpy()).all(), strategy
        assert (new.n_labelled.to_numpy() == stored.n_labelled.to_numpy()).all(), strategy
        np.testing.assert_allclose(new.loss.to_numpy(float), stored.loss.to_numpy(float), rtol=1e-12, atol=0,
                                   err_msg=strategy)


@pytest.mark.parametrize("name", list(STUDIES))
def test_committed_report_is_derived_from_the_archived_curves(extract, tmp_path, name):
    study = extract(name)
    reported = STUDIES[name][0]
    committed = json.loads((reported / "study.json").read_text())
    assert committed["settings"] == _settings(study)
    problems = committed["grid"]["problems"]
    folder = tmp_path / "reported"
    folder.mkdir()
    for pairing in sorted(study.iterdir()):
        if pairing.is_dir() and pairing.name.split("__")[0] in problems:
            shutil.copytree(pairing, folder / pairing.name)
    for name in ("timings.csv", "solver.csv"):  # the tasks' times, and the SVM's solver stops where recorded
        if (study / name).exists():
            lines = (study / name).read_text().splitlines()
            kept = [lines[0]] + [line for line in lines[1:] if line.split(",")[0] in problems]
            (folder / name).write_text("\n".join(kept) + "\n")
    timings = (folder / "timings.csv").read_text()
    run_study(committed["grid"]["preset"], problems=problems, classifiers=committed["grid"]["classifiers"],
              replicates=committed["grid"]["replicates"], out=folder, execution=Execution(n_jobs=1, progress=False))
    assert (folder / "timings.csv").read_text() == timings  # every task was stored and verified: none computed
    written = [path for path in report(folder) if path.suffix == ".csv"]
    assert {path.name for path in written} == {path.name for path in reported.glob("*.csv")} - {"asymptotic.csv"}
    for path in written:
        new, stored = pd.read_csv(path), pd.read_csv(reported / path.name)
        assert list(new.columns) == list(stored.columns) and new.shape == stored.shape, path.name
        for column in new.columns:
            if pd.api.types.is_numeric_dtype(stored[column]):
                np.testing.assert_allclose(new[column].to_numpy(float), stored[column].to_numpy(float),
                                           rtol=1e-12, atol=1e-15, equal_nan=True, err_msg=f"{path.name}: {column}")
            else:
                assert new[column].equals(stored[column]), f"{path.name}: {column}"  # missing where missing
    pd.testing.assert_frame_equal(pd.read_csv(folder / "asymptotic.csv"), pd.read_csv(reported / "asymptotic.csv"),
                                  rtol=1e-12)


#: The small group re-measured on the idle machine after the run, in two disjoint parts (``STUDY.md``, "Since the
#: run"): each file's per-task times and the classifiers whose tasks it recomputed.
REMEASUREMENTS = {"timings-gaussian-2734d25.csv": ("lda", "nb", "qda"),
                  "timings-logreg-svm-kknn5-f130345.csv": ("kknn5", "logreg", "svm")}


def test_the_remeasurements_time_every_archived_task_once(extract):
    """The re-measurements (``full-run/timings-*.csv``, :data:`REMEASUREMENTS`) time exactly the archive's tasks of
    their classifiers, together every task of the group once, and the costs ``STUDY.md`` states follow from them:
    each part's CPU-hours against the run's for the same tasks, and the whole group's."""
    archived = pd.read_csv(extract("small") / "timings.csv")
    keys = ["problem", "classifier", "strategy", "replicate"]

    def tasks(frame):
        return sorted(map(tuple, frame[keys].fillna("-").astype(str).to_numpy()))

    text = " ".join((FIGURES / "study-small" / "STUDY.md").read_text().split())  # lines joined
    parts = []
    for name, classifiers in REMEASUREMENTS.items():
        remeasured = pd.read_csv(FIGURES / "study-small" / "full-run" / name)
        same = archived[archived.classifier.isin(classifiers)]
        assert list(remeasured.columns) == list(archived.columns)
        assert tuple(sorted(remeasured.classifier.unique())) == classifiers
        assert tasks(remeasured) == tasks(same) and len(remeasured) == len(same)
        assert (remeasured.cpu_s > 0).all()
        assert f"**{remeasured.cpu_s.sum() / 3600:.2f} CPU-hours instead of {same.cpu_s.sum() / 3600:.2f}**" in text
        parts.append(remeasured)
    every = pd.concat(parts)
    assert tasks(every) == tasks(archived) and len(every) == 4260
    assert f"**{every.cpu_s.sum() / 3600:.2f} CPU-hours** in the tasks" in text
