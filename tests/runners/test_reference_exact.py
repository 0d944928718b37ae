"""The exact-truth learning curves of today's code equal a table stored from the code before the compiled 2-D
error rate.

``tests/data/curves_reference_exact.csv.gz`` was written by the code at commit ac96b4b (the numpy 2-D error
integral of :mod:`mri_theory.engine.exact`, before :mod:`mri_theory.engine._exact_compiled`), run with
``PYTHONPATH`` at that checkout::

    frames = []
    for problem in ("four-gaussian", "three-gaussians"):
        for clf in ("qda", "nb", "lda"):
            frames.append(run_curves(problem, clf, ["MRI-best"], pool_size=30, replicates=1, seed=0,
                                     population_size=2000, subsample=20, truth="auto",
                                     execution=Execution(progress=False)))
    pd.concat(frames, ignore_index=True).to_csv("curves_reference_exact.csv.gz", index=False, float_format="%.17g")

``truth="auto"`` is the exact truth on these Gaussian-mixture problems: MRI-best's :math:`Q^c` and the curve's
losses are exact error rates (QDA and naive Bayes: quadratic boundaries, the 2-D integral; LDA: linear
boundaries, two classes in closed form, three by Owen's T or the 2-D integral).  Three-Gaussians has three
classes; its first steps have classes of one or two points (extreme rules).  Today's curves must choose the
same points with the same losses and :math:`Q^c` (to ``rtol = 1e-9``, as the study's curves).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mri_theory.runners import Execution, run_curves

REFERENCE = Path(__file__).parent.parent / "data" / "curves_reference_exact.csv.gz"
SETTINGS = dict(pool_size=30, replicates=1, seed=0, population_size=2000, subsample=20, truth="auto",
                execution=Execution(n_jobs=1, progress=False))
GRID = [(problem, classifier) for problem in ("four-gaussian", "three-gaussians")
        for classifier in ("qda", "nb", "lda")]


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    return pd.read_csv(REFERENCE)


@pytest.mark.parametrize(("problem", "classifier"), GRID)
def test_exact_truth_curves_equal_the_stored_reference(reference, problem, classifier):
    new = run_curves(problem, classifier, ["MRI-best"], **SETTINGS).reset_index(drop=True)
    stored = reference[(reference.problem == problem) & (reference.classifier == classifier)].reset_index(drop=True)
    assert len(new) == len(stored) == 31  # n_labelled 2 (three-gaussians: 3), ..., the pool of 30 exhausted
    for column in ("strategy", "replicate", "n_labelled", "chosen"):
        assert (new[column].to_numpy() == stored[column].to_numpy()).all(), column
    for column in ("loss", "loss_se", "q_c_chosen", "q_c_best", "resolved"):
        np.testing.assert_allclose(new[column].to_numpy(dtype=float), stored[column].to_numpy(dtype=float),
                                   rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=column)


def test_the_reference_covers_the_grid(reference):
    """The stored table is the whole grid of the docstring, with MRI-best's Q^c recorded (the exact truth)."""
    assert sorted(reference.groupby(["problem", "classifier"]).groups) == sorted(GRID)
    assert (reference.strategy == "MRI-best").all() and (reference.loss_se == 0).all()
    assert reference.q_c_best.notna().sum() == 6 * 30
