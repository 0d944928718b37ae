"""Wrappers checked against independent values, not against a re-call of the function they wrap.

* ``mri-theory diagnose``'s ``summary.csv``: its ``spearman`` column against
  :func:`scipy.stats.spearmanr` of the stored scores and true :math:`Q^c`,
  state by state (values within the documented tie tolerance of 1e-12 made
  equal first), averaged over the replicates here.
* ``run_study``'s asymptotic loss (and :func:`mri_theory.runners.asymptotic.asymptotic_loss`
  under it): LDA on Two-Gaussian, whose error for a threshold ``t`` is
  ``(1 - Phi(t + 1)) / 2 + Phi(t - 1) / 2`` exactly; the training samples are
  recorded by a subclass of LDA, refitted with scikit-learn, and the mean of
  the closed-form errors over the replicates is the expected value (the QMC
  population integrates each error to a few 1e-6).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _shared import QUIET
from scipy import integrate, stats
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from mri_theory.classifiers import LDA
from mri_theory.cli import main
from mri_theory.runners import asymptotic
from mri_theory.runners.study import run_study


def _tied(values: np.ndarray, tolerance: float = 1e-12) -> np.ndarray:
    """Values closer than ``tolerance * max(1, max |value|)`` to their sorted neighbour made equal (chained), the
    documented tie rule of the rank statistics (scores of about 1e-20 are 0 to it)."""
    order = np.argsort(values, kind="stable")
    gaps = np.diff(values[order]) >= tolerance * max(1.0, np.abs(values).max())
    out = np.empty(len(values))
    out[order] = np.concatenate([[0], np.cumsum(gaps)])
    return out


def test_cli_diagnose_summary_spearman_equals_scipy_on_the_stored_states(tmp_path):
    out = tmp_path / "diag"
    assert main(["diagnose", "--classifiers", "lda", "--strategies", "RS", "SE", "MRI-best", "--replicates", "2",
                 "--steps", "1", "3", "--pool", "10", "--population", "400", "--out", str(out)]) == 0
    states = pd.read_csv(out / "four-gaussian__lda" / "states.csv")
    summary = pd.read_csv(out / "summary.csv")
    keys = ["problem", "classifier", "trajectory", "strategy", "n_labelled"]
    expected = {}
    for key, rows in states.groupby(keys):
        rhos = []
        for _, state in rows.groupby(["replicate", "step"]):
            score, q = state["score"].to_numpy(), state["true_q_c"].to_numpy()
            # a constant score (RS) has no rank correlation: 0, the expectation over the uniform tie-break
            score, q = _tied(score), _tied(q)
            rhos.append(0.0 if np.ptp(score) == 0 else stats.spearmanr(score, q).statistic)
        expected[key] = np.mean(rhos)
    got = summary.set_index(keys)["spearman"]
    assert len(got) == len(expected) > 0
    for key, value in expected.items():
        assert got.loc[key] == pytest.approx(value, abs=1e-9), key
    best = summary[summary.strategy == "MRI-best"]["spearman"]
    assert (best > 0.99).all()  # the oracle scores by the true Q^c
    assert (summary[summary.strategy == "RS"]["spearman"] == 0).all()


class RecordingLDA(LDA):
    """LDA that records every training sample it is fitted on (clones share the record)."""

    fits: list[tuple[np.ndarray, np.ndarray]] = []

    def fit(self, X, y, n_classes=None):
        RecordingLDA.fits.append((np.array(X, dtype=float), np.array(y)))
        return super().fit(X, y, n_classes)


def _closed_form_error(X: np.ndarray, y: np.ndarray) -> float:
    """Error on N(-1, 1) vs N(1, 1) (equal priors) of the threshold of scikit-learn's LDA fitted on (X, y)."""
    sk = LinearDiscriminantAnalysis().fit(X, y)
    t = -sk.intercept_[0] / sk.coef_[0, 0]
    return 0.5 * (1 - stats.norm.cdf(t + 1)) + 0.5 * stats.norm.cdf(t - 1)


def _expected_from_recorded_fits(n_train: int, replicates: int) -> float:
    fits = [(X, y) for X, y in RecordingLDA.fits if len(X) == n_train]
    assert len(fits) == replicates
    errors = [_closed_form_error(X, y) for X, y in fits]
    # the replicates differ clearly, so their mean is not any one of them
    assert max(errors) - min(errors) > 2e-3
    return float(np.mean(errors))


def test_metrics_asymptotic_loss_is_the_mean_over_replicates_of_closed_form_errors():
    RecordingLDA.fits.clear()
    value = asymptotic.asymptotic_loss("two-gaussians", RecordingLDA(), n_train=60, replicates=3,
                                    rng=np.random.default_rng(5), population_size=20_000)
    assert value == pytest.approx(_expected_from_recorded_fits(60, 3), abs=1e-4)


def test_run_study_asymptotic_loss_is_the_mean_over_replicates_of_closed_form_errors(tmp_path):
    RecordingLDA.fits.clear()
    result = run_study(problems=["two-gaussians"], classifiers=[RecordingLDA()], strategies=["RS"], replicates=1,
                       pool_size=6, population_size=200, seed=3, asymptotic_train=61, asymptotic_replicates=3,
                       asymptotic_population=20_000, execution=QUIET)
    assert result.asymptotic["asymptotic_loss"].iloc[0] == pytest.approx(_expected_from_recorded_fits(61, 3),
                                                                        abs=1e-4)


def test_metrics_asymptotic_log_loss_is_the_mean_of_quadrature_log_losses():
    # the log loss of each recorded fit: E[-ln p_y(x)] over N(-1, 1) and N(1, 1) with scikit-learn's LDA
    # log-odds w x + b, by quadrature; our LDA's ridge (1e-3) moves it by ~1e-4, well inside the 2e-3 allowed
    RecordingLDA.fits.clear()
    value = asymptotic.asymptotic_loss("two-gaussians", RecordingLDA(), n_train=60, replicates=2,
                                    rng=np.random.default_rng(6), population_size=20_000, loss="log")
    expected = []
    for X, y in RecordingLDA.fits:
        sk = LinearDiscriminantAnalysis().fit(X, y)
        w, b = sk.coef_[0, 0], sk.intercept_[0]
        terms = [integrate.quad(lambda t, w=w, b=b: stats.norm.pdf(t, -1) * np.logaddexp(0, w * t + b),
                                -12, 12)[0],
                 integrate.quad(lambda t, w=w, b=b: stats.norm.pdf(t, 1) * np.logaddexp(0, -(w * t + b)),
                                -12, 12)[0]]
        expected.append(np.mean(terms))
    assert len(expected) == 2
    assert value == pytest.approx(np.mean(expected), abs=2e-3), (value, expected)
    assert value > 0.3, value  # a log loss, not the error rate (~0.16) of the same fits
