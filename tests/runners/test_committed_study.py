"""The committed study's curves are what the code computes.

``figures/study/full-run/study-full.tar.xz`` holds the folder of the paper's abstract study (its README gives
the command). A few of its learning curves are recomputed from scratch with :func:`run_curves` and the
study's settings (replicate 0: a replicate's data and seeds do not depend on how many replicates run), on a
copy extracted into a temporary folder: the new part files must carry the stored ones' configuration hash and
choose the same points with the same losses, so the stored curves are this code's, not an older one's.
"""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mri_theory.runners import run_curves

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
                                                         ("svm", ["RS"])])
def test_stored_curves_are_recomputed(study, tmp_path, classifier, strategies):
    settings = _settings(study)
    run_curves("four-gaussian", classifier, strategies, pool_size=settings["pool_size"], replicates=1,
               seed=settings["seed"], population_size=settings["population_size"], subsample=settings["subsample"],
               loss=settings["loss"], truth=settings["truth"], budget=settings["budget"],
               record_q_c=settings["record_q_c"], out=tmp_path, n_jobs=1, progress=False)
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
