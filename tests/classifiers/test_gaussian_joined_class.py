"""QDA's and naive Bayes' retrained models recompute only the class the candidate joins.

A class's covariance, mean and normalising terms depend on its own statistics alone, so a model retrained with
``(x, c_j)`` shares every class but ``j`` with the current model (only the log priors move).  The fast path
(``GaussianClassifier._retrained_coefficients``) computes the ``B k`` joined classes and takes the rest from the
current model; the general path computes all ``B k k`` classes of the retrained models from their stacked
statistics (``_updated_statistics``), as every Gaussian classifier did before.  The two must give the same bits:
the committed studies' QDA and naive Bayes curves rest on them.  Their agreement with plain refits is tested in
``test_gaussian_precision.py`` and ``test_classifiers.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import example, given, settings, st

from mri_theory.classifiers import LDA, QDA, GaussianNaiveBayes
from mri_theory.engine.population import Population


def _model_and_population(name, seed, d, k, absent, n_candidates):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(k, 3 * k + 20))
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10.0) + rng.normal(size=d)
    y = np.arange(n) % k
    if absent:  # the last class has no training point
        y[y == k - 1] = 0
    model = {"qda": QDA, "nb": GaussianNaiveBayes}[name]().fit(X, y, n_classes=k)
    candidates = rng.normal(size=(n_candidates, d)) * 2.0
    points = rng.normal(size=(int(rng.integers(1, 40)), d)) * 2.0
    return model, candidates, Population(points, rng.dirichlet(np.ones(k), size=points.shape[0]))


def _all_classes(model, method, *args):
    """``method`` of ``model`` with every class of every retrained model computed (the general path)."""
    model._per_class_terms = False
    try:
        return method(*args)
    finally:
        del model._per_class_terms


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(["qda", "nb"]), seed=st.integers(0, 2**32 - 1), d=st.integers(1, 12),
       k=st.integers(2, 6), absent=st.booleans(), n_candidates=st.integers(1, 40),
       loss=st.sampled_from(["error", "log", "lc"]))
@example(name="qda", seed=1, d=60, k=2, absent=False, n_candidates=100, loss="error")  # sonar's shape
@example(name="nb", seed=2, d=60, k=2, absent=False, n_candidates=100, loss="error")
@example(name="qda", seed=3, d=9, k=6, absent=False, n_candidates=100, loss="error")  # glass's
def test_joined_class_path_gives_the_bits_of_all_classes(name, seed, d, k, absent, n_candidates, loss):
    model, candidates, population = _model_and_population(name, seed, d, k, absent, n_candidates)
    fast = model._retrained_losses(candidates, population, loss)
    general = _all_classes(model, model._retrained_losses, candidates, population, loss)
    np.testing.assert_array_equal(fast, general)

    counts, coef = model._retrained_coefficients(candidates)
    stacked_counts, means, scatters = model._updated_statistics(candidates)
    M = counts.shape[0]
    expected = model._coefficient_matrix(stacked_counts.reshape(M, k), means.reshape(M, k, d),
                                         scatters.reshape(M, k, d, d))
    np.testing.assert_array_equal(counts, stacked_counts.reshape(M, k))
    np.testing.assert_array_equal(coef, expected)


@pytest.mark.parametrize("classifier", [QDA(), GaussianNaiveBayes()])
def test_the_joined_class_carries_the_rank_one_update(classifier):
    """Model ``(b, j)``'s class ``j`` has the statistics of the training points and candidate ``b``; its other
    classes are the current model's, with the retrained priors."""
    rng = np.random.default_rng(7)
    X, y = rng.normal(size=(12, 3)), np.arange(12) % 3
    model = classifier.fit(X, y, n_classes=3)
    candidates = rng.normal(size=(2, 3))
    counts, coef = model._retrained_coefficients(model._to_frame(candidates))
    for b in range(2):
        for j in range(3):
            refit = type(classifier)().fit(np.vstack([X, candidates[b]]), np.append(y, j), n_classes=3)
            np.testing.assert_array_equal(counts[3 * b + j], np.bincount(np.append(y, j), minlength=3))
            # the refit has its own frame: compare the probabilities both give on fresh points
            points = rng.normal(size=(5, 3))
            z = model._to_frame(points)
            phi = np.column_stack([np.einsum("ni,nj->nij", z, z).reshape(5, -1), z, np.ones(5)])
            scores = phi @ coef[3 * b + j].T
            proba = np.exp(scores - scores.max(axis=1, keepdims=True))
            proba /= proba.sum(axis=1, keepdims=True)
            np.testing.assert_allclose(proba, refit.predict_proba(points), rtol=1e-10, atol=1e-13)


def test_lda_keeps_the_general_path():
    """LDA's pooled covariance changes every class: no class is shared, so it computes them all."""
    assert not LDA()._per_class_terms
    assert QDA()._per_class_terms and GaussianNaiveBayes()._per_class_terms
