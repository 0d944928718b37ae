"""The Gaussian classifiers' retrained models by rank-one updates, against the general path.

A model retrained with ``(x, c_j)`` changes class ``j``'s statistics by a rank-one update.  The fast path
(``GaussianClassifier._retrained_coefficients``):

- QDA and naive Bayes recompute only the joined class (a class's covariance, mean and normalising terms depend on
  its own statistics alone) and take the others from the current model; QDA updates the joined class's inverse
  covariance by the Sherman-Morrison formula (``QDA._joined_terms``), naive Bayes inverts its diagonal;
- LDA updates its pooled inverse covariance by the Sherman-Morrison formula (``LDA._retrained_coefficients``);
- LDA and the mean classifier score on linear features, naive Bayes on the squares and the coordinates, QDA on
  every product (``_quadratic_form``).

The general path computes every class of every retrained model from its stacked statistics, each covariance
inverted on its own, on the full quadratic features (``_updated_statistics``, ``_coefficient_matrix``), as every
Gaussian classifier did before.  The two must give the same probabilities and losses to rounding.  Their
agreement with plain refits is tested in ``test_gaussian_precision.py`` and ``test_classifiers.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import assume, example, given, settings, st

from mri_theory.classifiers import LDA, QDA, GaussianMeanClassifier, GaussianNaiveBayes
from mri_theory.classifiers.gaussian import GaussianClassifier, _features
from mri_theory.engine.losses import pointwise_loss_from_scores
from mri_theory.engine.population import Population

CLASSIFIERS = {"qda": QDA, "nb": GaussianNaiveBayes, "lda": LDA, "mean": GaussianMeanClassifier}


def _model_and_population(name, seed, d, k, absent, n_candidates):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(k, 3 * k + 20))
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10.0) + rng.normal(size=d)
    y = np.arange(n) % k
    if absent:  # the last class has no training point
        y[y == k - 1] = 0
    model = CLASSIFIERS[name]().fit(X, y, n_classes=k)
    candidates = X.mean(axis=0) + rng.normal(size=(n_candidates, d)) * X.std(axis=0) * 2.0
    points = X.mean(axis=0) + rng.normal(size=(int(rng.integers(1, 40)), d)) * X.std(axis=0) * 2.0
    return model, candidates, Population(points, rng.dirichlet(np.ones(k), size=points.shape[0]))


def _general_coefficients(model, candidates):
    """Counts and full-feature coefficients of every class of every retrained model, each from its stacked
    statistics (the general path)."""
    k = model.n_classes_
    counts, means, scatters = model._updated_statistics(candidates)
    M = candidates.shape[0] * k
    return counts.reshape(M, k), model._coefficient_matrix(counts.reshape(M, k), means.reshape(M, k, -1),
                                                           scatters.reshape((M, k) + scatters.shape[-2:]))


def _probabilities(model, z, counts, coef, form):
    """The ``M`` models' probabilities ``(M, n, k)`` at frame points ``z`` from their coefficients of ``form``."""
    scores = np.einsum("nf,mkf->mnk", _features(z, form), coef)
    scores = np.where((counts > 0)[:, None, :], scores, -np.inf)
    return model._scores_to_proba(scores)


def _general_losses(model, candidates, population, loss):
    """``L'`` of the general path: the retrained models' coefficients on the full features, scored as the fast
    path scores."""
    k = model.n_classes_
    counts, coef = _general_coefficients(model, model._to_frame(candidates))
    phi_t = _features(model._to_frame(population.X)).T
    values = pointwise_loss_from_scores(population.proba, model._model_scores(phi_t, counts, coef), loss,
                                        log_odds=k == 2)
    return (values @ population.weights).reshape(-1, k)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(CLASSIFIERS)), seed=st.integers(0, 2**32 - 1), d=st.integers(1, 12),
       k=st.integers(2, 6), absent=st.booleans(), n_candidates=st.integers(1, 40),
       loss=st.sampled_from(["error", "log", "lc"]))
@example(name="qda", seed=1, d=60, k=2, absent=False, n_candidates=100, loss="log")  # sonar's shape
@example(name="nb", seed=2, d=60, k=2, absent=False, n_candidates=100, loss="log")
@example(name="lda", seed=4, d=60, k=2, absent=False, n_candidates=100, loss="log")
@example(name="qda", seed=3, d=9, k=6, absent=False, n_candidates=100, loss="log")  # glass's
@example(name="lda", seed=5, d=9, k=6, absent=True, n_candidates=100, loss="log")
def test_rank_one_updates_give_the_general_paths_models(name, seed, d, k, absent, n_candidates, loss):
    model, candidates, population = _model_and_population(name, seed, d, k, absent, n_candidates)
    counts, coef = model._retrained_coefficients(model._to_frame(candidates))
    general_counts, general_coef = _general_coefficients(model, model._to_frame(candidates))
    np.testing.assert_array_equal(counts, general_counts)
    z = model._to_frame(population.X)
    fast = _probabilities(model, z, counts, coef, model._quadratic_form)
    general = _probabilities(model, z, general_counts, general_coef, "full")
    # both round: to about 1e-16 times the condition number of the covariances and the scores' size (measured:
    # at most 2e-13 times the condition number over 300 random cases; the reference test below shows which is
    # nearer the truth)
    scores = np.einsum("nf,mkf->mnk", _features(z), general_coef)
    tolerance = 1e-13 * _condition(model) * (1.0 + np.max(np.abs(scores[np.isfinite(scores)]), initial=0.0))
    np.testing.assert_allclose(fast, general, rtol=0, atol=tolerance)

    losses = model._retrained_losses(candidates, population, loss)
    general_losses = _general_losses(model, candidates, population, loss)
    if loss == "error":  # a prediction flips only where its two largest probabilities are within rounding
        margin = np.sort(general, axis=-1)
        assume(np.all(margin[..., -1] - margin[..., -2] > 2 * tolerance) if k > 1 else True)
    np.testing.assert_allclose(losses, general_losses, rtol=1e-9, atol=max(tolerance, 1e-12) * 40)


def _condition(model) -> float:
    """The largest condition number of the current model's covariances with one point more (``P_j`` of the
    rank-one updates)."""
    n = model.counts_
    ridge = getattr(model, "reg", 1.0) / model.scale_**2
    d = model.means_.shape[1]
    covariances = model.scatters_ / (n + 1)[:, None, None] + ridge * np.eye(d)
    return float(max(np.max(np.linalg.cond(covariances)), np.linalg.cond(covariances.sum(axis=0))))


SEEDS = {"qda": 1, "lda": 18}  # of the first 30 seeds, LDA's with the largest difference (4e-6)


@pytest.mark.parametrize("name", ["qda", "lda"])
def test_the_rank_one_update_is_as_accurate_as_inverting(name):
    """Against a 40-digit reference (mpmath) on sonar's shape (d = 60, two classes, fewer points than
    dimensions: covariances conditioned ~1e4), where the two paths differ most: the rank-one update's
    probabilities are, over the pairs where the two differ most, no further from the truth than inverting each
    retrained covariance (the largest error of each; pair by pair either may be the nearer)."""
    import mpmath

    model, candidates, population = _model_and_population(name, SEEDS[name], 60, 2, False, 100)
    zc, z = model._to_frame(candidates), model._to_frame(population.X)
    counts, coef = model._retrained_coefficients(zc)
    general_counts, general_coef = _general_coefficients(model, zc)
    fast = _probabilities(model, z, counts, coef, model._quadratic_form)[..., 0]
    general = _probabilities(model, z, general_counts, general_coef, "full")[..., 0]
    worst = np.argsort(np.abs(fast - general), axis=None)[-3:]  # the (model, point) pairs furthest apart
    assert np.max(np.abs(fast - general)) > 1e-12  # the case is ill-conditioned: rounding shows
    ridge = model.reg / model.scale_**2
    errors = []
    with mpmath.workdps(40):
        for index in worst:
            m, i = np.unravel_index(index, fast.shape)
            b, j = divmod(int(m), 2)
            counts_j = model.counts_ + (np.arange(2) == j)
            means, scatters = model.means_.copy(), model.scatters_.copy()
            dev = zc[b] - means[j]
            means[j] = means[j] + dev / counts_j[j]
            scatters[j] = scatters[j] + model.counts_[j] / counts_j[j] * np.outer(dev, dev)
            if name == "lda":
                pooled = mpmath.matrix(scatters.sum(axis=0).tolist()) / mpmath.mpf(counts_j.sum())
                covariances = [pooled, pooled]
            else:
                covariances = [mpmath.matrix(scatters[c].tolist()) / mpmath.mpf(counts_j[c]) for c in range(2)]
            scores = []
            for c in range(2):
                cov = covariances[c] + mpmath.mpf(ridge) * mpmath.eye(60)
                x = mpmath.matrix((z[i] - means[c]).tolist())
                quadratic = sum(x[r] * value for r, value in enumerate(mpmath.lu_solve(cov, x)))
                scores.append(-quadratic / 2 - mpmath.log(mpmath.det(cov)) / 2
                              + mpmath.log(mpmath.mpf(counts_j[c]) / counts_j.sum()))
            truth = float(1 / (1 + mpmath.exp(scores[1] - scores[0])))
            errors.append((abs(fast[m, i] - truth), abs(general[m, i] - truth)))
    fast_error, general_error = np.max(errors, axis=0)
    assert fast_error <= general_error


@pytest.mark.parametrize("name", ["qda", "lda"])
def test_the_rank_one_inverse_equals_inverting_each_covariance(name):
    """The coefficients themselves (QDA: the joined class's quadratic, linear and constant terms; LDA: the
    linear terms and the constants' differences, its log-determinant being left out) to 1e-12 of their size."""
    rng = np.random.default_rng(11)
    X, y = rng.normal(size=(30, 7)) * rng.uniform(0.5, 3.0, size=7), np.arange(30) % 3
    model = CLASSIFIERS[name]().fit(X, y, n_classes=3)
    candidates = model._to_frame(rng.normal(size=(20, 7)) * 2.0)
    _, coef = model._retrained_coefficients(candidates)
    _, general = _general_coefficients(model, candidates)
    if name == "lda":  # linear: b, then c up to the common log-determinant
        general = np.concatenate([general[..., -8:-1], general[..., -1:] - general[..., :1, -1:]], axis=-1)
        coef = np.concatenate([coef[..., :-1], coef[..., -1:] - coef[..., :1, -1:]], axis=-1)
    scale = np.max(np.abs(general), axis=-1, keepdims=True)
    np.testing.assert_allclose(coef / scale, general / scale, rtol=0, atol=1e-12)


@pytest.mark.parametrize("classifier", [QDA(), GaussianNaiveBayes(), LDA()])
def test_the_joined_class_carries_the_rank_one_update(classifier):
    """Model ``(b, j)``'s class ``j`` has the statistics of the training points and candidate ``b``; its other
    classes are the current model's (LDA: the pooled covariance with the candidate), with the retrained priors:
    its probabilities are those of a plain refit."""
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
            proba = _probabilities(model, model._to_frame(points), counts[3 * b + j][None], coef[3 * b + j][None],
                                   model._quadratic_form)[0]
            np.testing.assert_allclose(proba, refit.predict_proba(points), rtol=1e-10, atol=1e-13)


def test_which_path_each_classifier_takes():
    """LDA's pooled covariance changes every class (its own rank-one path); QDA and naive Bayes share the classes
    the candidate does not join; the mean classifier takes the general path."""
    assert not LDA()._per_class_terms and LDA._retrained_coefficients is not GaussianClassifier._retrained_coefficients
    assert QDA()._per_class_terms and GaussianNaiveBayes()._per_class_terms
    assert GaussianMeanClassifier._retrained_coefficients is GaussianClassifier._retrained_coefficients
    assert {cls._quadratic_form for cls in CLASSIFIERS.values()} == {"full", "diagonal", "none"}
