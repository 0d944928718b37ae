"""The learning curves of today's code equal a table stored from the code before issue 20's speed-ups.

``tests/data/curves_reference.csv.gz`` was written by the code at commit 6846dfc (before issue 20's compiled
SVM solver and fast forests) with ``run_curves(problem, classifier, [RS, SE, QbcV, QbcA, EfeLc, SMRI, BMRI,
MRI-best], pool_size=40, replicates=2, seed=0, population_size=2000, subsample=20)`` on Four-Gaussian and
Sharp for the SVM, 5-NN (kknn5), logistic regression and LDA.  The curves the changed paths drive (the
SVM's methods; the random forests of the QBC committee and of SMRI's and BMRI's theta_2; BMRI, the
costliest of every classifier) are recomputed here, on a part of that grid, and must choose the same
points with the same losses (replicate 0: a replicate's data and seeds do not depend on how many
replicates run).  The 5-NN's curves are recomputed with the sampled truth they were stored with (its
truth is exact since issue 36).  The SVM's MRI-best is no longer compared: with a sampled truth the oracle
now chooses by the decisive truth (:func:`mri_theory.engine.targets.decisive_q_c`), not on the replicate's
population, so its choices differ by design (its choices are checked against the race in
``tests/runners/test_truth.py``); and the ``q_c_chosen`` and ``q_c_best`` that ``record_q_c`` records where
the truth is sampled are the state's decisive truth, so only their choices, losses and flags are compared.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mri_theory.runners import Execution, run_curves

REFERENCE = Path(__file__).parent.parent / "data" / "curves_reference.csv.gz"
SETTINGS = dict(pool_size=40, replicates=1, seed=0, population_size=2000, subsample=20,
                execution=Execution(n_jobs=1, progress=False))


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    return pd.read_csv(REFERENCE)


def _same(new: pd.DataFrame, stored: pd.DataFrame, sampled: bool) -> None:
    stored = stored.reset_index(drop=True)
    new = new.reset_index(drop=True)
    assert len(new) == len(stored) > 0
    for column in ("problem", "classifier", "strategy", "replicate", "n_labelled", "chosen"):
        assert (new[column].to_numpy() == stored[column].to_numpy()).all(), column
    # with a sampled truth the recorded Q^c is now the state's decisive truth (not the replicate's population)
    recorded = () if sampled else ("q_c_chosen", "q_c_best")
    for column in ("loss", "loss_se", *recorded, "resolved"):
        np.testing.assert_allclose(new[column].to_numpy(dtype=float), stored[column].to_numpy(dtype=float),
                                   rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=column)


@pytest.mark.parametrize(("problem", "classifier", "strategies"), [
    ("four-gaussian", "svm", ["SE", "EfeLc", "SMRI", "BMRI"]),
    ("sharp", "svm", ["BMRI"]),
    ("four-gaussian", "kknn5", ["BMRI"]),
    ("sharp", "logreg", ["BMRI"]),
    ("sharp", "lda", ["QbcV", "QbcA", "BMRI"]),
    ("sharp", "kknn5", ["SMRI"]),
])
def test_curves_equal_the_stored_reference(reference, problem, classifier, strategies):
    # the table was written with the truth sampled for every pairing but LDA and logistic regression (then the
    # only exact ones): the same truth here, so that the losses are those of the same population
    truth = "auto" if classifier in ("lda", "logreg") else "sampled"
    new = run_curves(problem, classifier, strategies, truth=truth, **SETTINGS)
    stored = reference[(reference.problem == problem) & (reference.classifier == classifier)
                       & reference.strategy.isin(strategies) & (reference.replicate == 0)]
    order = {s: i for i, s in enumerate(strategies)}
    stored = stored.sort_values(["strategy", "replicate", "n_labelled"], key=lambda c: c.map(order)
                                if c.name == "strategy" else c, kind="stable")
    new = new.sort_values(["strategy", "replicate", "n_labelled"], key=lambda c: c.map(order)
                          if c.name == "strategy" else c, kind="stable")
    _same(new, stored, sampled=classifier in ("svm", "kknn5"))


def test_the_reference_covers_the_grid(reference):
    """The stored table is the whole grid of the docstring: nothing was dropped from it."""
    grid = reference.groupby(["problem", "classifier", "strategy"]).replicate.nunique()
    assert len(grid) == 2 * 4 * 8 and (grid == 2).all()
    rows = reference.groupby(["problem", "classifier", "strategy", "replicate"]).size()
    assert (rows == 41).all()  # n_labelled 2, ..., 42
