"""Sampled truth with its standard error (:func:`sampled_q_c`) and resolved choices (:func:`best_is_resolved`).

The standard error is checked against the exact truth (:meth:`Population.exact`, LDA): the errors divided by
their standard errors behave as Student-t values with R - 1 degrees of freedom; the resolution rule is
checked on constructed replicates whose answer is known.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mri_theory.classifiers import LDA, QDA, get_classifier
from mri_theory.engine import Population, true_q_c
from mri_theory.engine.targets import SampledQc, best_is_resolved, sampled_q_c
from mri_theory.problems import get_problem


def _state(seed: int, n: int = 80, m: int = 12):
    problem = get_problem("four-gaussian")
    rng = np.random.default_rng(seed)
    X, y = problem.sample(n, rng)
    candidates, _ = problem.sample(m, rng)
    return problem, X, y, candidates


@pytest.mark.parametrize("make", [LDA, QDA], ids=["LDA", "QDA"])
def test_the_standard_error_is_calibrated_against_the_exact_truth(make):
    """(mean - exact) / se over 5 states x 12 candidates, R = 8 scrambles: t_7 values.

    Bounds: P(|t_7| > 3.5) = 0.010, so more than 6 of 60 exceedances has probability below 1e-3 even for
    independent values; the root mean square of t_7 is sqrt(7/5) = 1.18, required within [0.6, 1.8].
    """
    z = []
    for seed in range(5):
        problem, X, y, candidates = _state(seed)
        exact = true_q_c(problem, make(), X, y, candidates, Population.exact(problem))
        sampled = sampled_q_c(problem, make(), X, y, candidates, 8_000, 8, rng=np.random.default_rng(100 + seed))
        z.extend((sampled.q_c - exact) / sampled.se)
    z = np.asarray(z)
    assert 2 * stats.t.sf(3.5, 7) == pytest.approx(0.010, abs=0.002)
    assert np.count_nonzero(np.abs(z) > 3.5) <= 6, z
    assert 0.6 <= np.sqrt(np.mean(z**2)) <= 1.8, z


@pytest.mark.parametrize("name", ["lda", "svm", "kknn5"])
def test_each_replicate_is_true_q_c_on_its_own_scramble_and_the_summary_their_mean(name):
    """Bit for bit :func:`true_q_c` (a fit per population) on each scramble, though the model is fitted once."""
    problem, X, y, candidates = _state(3, m=5)
    result = sampled_q_c(problem, get_classifier(name), X, y, candidates, 600, 3, rng=np.random.default_rng(9))
    assert isinstance(result, SampledQc) and result.replicates.shape == (3, 5)
    rng = np.random.default_rng(9)
    for r in range(3):  # the same generator draws the scrambles in order
        population = Population.from_problem(problem, 200, rng, method="qmc")
        np.testing.assert_array_equal(result.replicates[r],
                                      true_q_c(problem, get_classifier(name), X, y, candidates, population))
    np.testing.assert_allclose(result.q_c, result.replicates.mean(axis=0), rtol=0, atol=1e-15)
    np.testing.assert_allclose(result.se, result.replicates.std(axis=0, ddof=1) / np.sqrt(3), rtol=1e-12)
    again = sampled_q_c(problem, get_classifier(name), X, y, candidates, 600, 3, rng=np.random.default_rng(9))
    assert again.replicates.tobytes() == result.replicates.tobytes()


def test_a_clear_gap_is_resolved_and_noise_is_not():
    rng = np.random.default_rng(0)
    noise = rng.normal(0.0, 1.0, (8, 4))
    clear = noise.copy()
    clear[:, 2] += 10.0
    assert best_is_resolved(clear) == (2, True)
    assert best_is_resolved(clear, largest=False)[1] is False  # the smallest is not separated from the rest
    equal = np.repeat(noise[:, :1], 4, axis=1)  # identical candidates: tied, the lowest index, unresolved
    assert best_is_resolved(equal) == (0, False)
    paired = noise[:, [0, 0]] + np.array([0.0, 1e-3])  # a tiny but constant paired gap: resolved
    assert best_is_resolved(paired) == (1, True)
    assert best_is_resolved(noise[:, :1]) == (0, True)  # one candidate


def test_only_the_runner_up_matters_and_z_sets_the_bar():
    """Gap 1 over the runner-up with SE 0.25 (t = 4): resolved at z = 3, not at z = 5."""
    base = np.zeros((4, 3))
    base[:, 0] = [1.5, 0.5, 1.5, 0.5]  # mean 1, sd 0.577, se 0.289: t = 3.46 against candidate 1
    base[:, 2] = -5.0
    assert best_is_resolved(base, z=3.0) == (0, True)
    assert best_is_resolved(base, z=4.0) == (0, False)


@pytest.mark.parametrize("replicates, z, error, message", [
    (np.zeros((1, 3)), 3.0, ValueError, r"replicates must have shape \(R >= 2, m >= 1\)"),
    (np.zeros(3), 3.0, ValueError, r"replicates must have shape"),
    (np.array([[0.0, np.nan], [1.0, 2.0]]), 3.0, ValueError, "replicates"),
    (np.zeros((2, 3)), 0.0, ValueError, "z"),
    (np.zeros((2, 3)), "3", TypeError, "z"),
])
def test_best_is_resolved_refuses_bad_input(replicates, z, error, message):
    with pytest.raises(error, match=message):
        best_is_resolved(replicates, z)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(scrambles=1), ValueError, "scrambles"),
    (dict(scrambles=2.5), (TypeError, ValueError), "scrambles"),
    (dict(size=3, scrambles=4), ValueError, "size"),
    (dict(rng=0), TypeError, "rng"),
    (dict(classifier="lda"), TypeError, "classifier must be an mri_theory.classifiers.Classifier"),
    (dict(X_S=np.zeros((3, 1))), ValueError, "X_S"),
    (dict(y_S=[0, 1]), ValueError, "X_S and y_S must have the same length"),
    (dict(candidates=np.zeros((0, 2))), ValueError, "candidates"),
    (dict(loss="hinge"), ValueError, "loss"),
])
def test_sampled_q_c_refuses_bad_input(kwargs, error, message):
    """Refused before the first population is drawn (``Population.from_problem`` is never called)."""
    problem, X, y, candidates = _state(0, m=2)
    arguments = dict(classifier=LDA(), X_S=X, y_S=y, candidates=candidates, size=100, scrambles=2,
                     rng=np.random.default_rng(0)) | kwargs

    def no_population(*args, **kw):
        raise AssertionError("a population was drawn before the arguments were checked")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Population, "from_problem", no_population)
        with pytest.raises(error, match=message):
            sampled_q_c(problem, **arguments)
