"""The §3.3 demonstration: iterated AL with noisy exact Q^c on the two-Gaussian problem."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mri_theory.noisy_selection import noisy_selection_curves, strategy_label
from mri_theory.two_gaussians import TwoGaussians

OPTIMAL, RS, WORST = strategy_label(0.0), strategy_label(np.inf), "worst"


@pytest.fixture(scope="module")
def small_study() -> pd.DataFrame:
    return noisy_selection_curves((0.0, 0.5, 2.0, np.inf), replicates=60, pool_size=40, budget=10,
                                  seed=1, progress=False)


def _paired_z(df: pd.DataFrame, a: str, b: str) -> float:
    """z statistic of the paired difference in mean error over the curve (a - b) across replicates."""
    per_replicate = df.groupby(["strategy", "replicate"]).error_rate.mean().unstack(0)
    diff = per_replicate[a] - per_replicate[b]
    return float(diff.mean() / (diff.std(ddof=1) / np.sqrt(diff.size)))


def test_ordering_optimal_noisy_rs_worst(small_study):
    """Lower error is better; each gap must exceed 3 paired standard errors (one-sided p < 0.0014)."""
    assert _paired_z(small_study, OPTIMAL, RS) < -3
    assert _paired_z(small_study, strategy_label(0.5), RS) < -3
    assert _paired_z(small_study, strategy_label(2.0), RS) < -3
    assert _paired_z(small_study, RS, WORST) < -3
    # The noisier estimator is not significantly better than the exact one.
    assert _paired_z(small_study, OPTIMAL, strategy_label(2.0)) < 3


def test_tidy_paired_and_exact(small_study):
    assert list(small_study.columns) == ["strategy", "relative_sigma", "replicate", "n_labelled", "error_rate"]
    assert set(small_study.strategy) == {OPTIMAL, strategy_label(0.5), strategy_label(2.0), RS, WORST}
    assert small_study.n_labelled.min() == 2 and small_study.n_labelled.max() == 12
    start = small_study[small_study.n_labelled == 2].groupby("replicate").error_rate.nunique()
    assert np.all(start == 1)  # every strategy starts from the same labelled data
    assert np.all(small_study.error_rate >= TwoGaussians().bayes_error - 1e-15)


def test_replicates_are_reproducible_and_independent_of_their_number():
    a = noisy_selection_curves(replicates=3, pool_size=15, budget=4, seed=7, progress=False)
    b = noisy_selection_curves(replicates=5, pool_size=15, budget=4, seed=7, progress=False)
    pd.testing.assert_frame_equal(a, b[b.replicate < 3].reset_index(drop=True))
    c = noisy_selection_curves(replicates=3, pool_size=15, budget=4, seed=8, progress=False)
    assert not a.error_rate.equals(c.error_rate)


def test_budget_can_exhaust_the_pool():
    df = noisy_selection_curves((0.0,), replicates=2, pool_size=5, budget=5, seed=0, progress=False)
    assert df.n_labelled.max() == 7


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"relative_sigmas": (-1.0,)}, "relative_sigmas"),
        ({"replicates": 0}, "replicates"),
        ({"pool_size": 3, "budget": 4}, "budget"),
        ({"budget": 0}, "budget"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        noisy_selection_curves(progress=False, **kwargs)
