"""``batch_future_losses``: the losses of one classifier trained on several training sets (BMRI's resamples).

Independent references: :func:`future_losses` one training set at a time (the fast path of each
classifier, itself tested against refits), ``method="refit"`` (a clone refitted per (candidate, class)),
and, for the SVM's batched fits, each model fitted on its own.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, settings, st

from mri_theory.classifiers import KNN, LDA, SVM, LogisticRegression
from mri_theory.classifiers.svm import _fit_together
from mri_theory.engine import Population, batch_future_losses, future_losses
from mri_theory.engine.contract import Classifier

AGREE = 1e-12  # a batch against the same fast path one training set at a time: rounding only
REFIT = 1e-8  # the SVM's documented agreement of the fast path with a refit


def resamples(rng, n, k, d, count, sizes=None):
    """Training sets and test populations drawn like BMRI's (bootstrap: duplicated points)."""
    X = rng.normal(size=(n, d)) + np.arange(n)[:, None] % k
    y = np.arange(n) % k
    trainings, tests = [], []
    for b in range(count):
        size = n if sizes is None else sizes[b % len(sizes)]
        i_t, i_e = rng.integers(0, n, size=(2, size))
        trainings.append((X[i_t], y[i_t]))
        tests.append(Population.from_labels(X[i_e], y[i_e], k))
    return trainings, rng.normal(size=(7, d)) + 0.5, tests


def one_at_a_time(classifier, trainings, candidates, tests, loss="error", method="auto"):
    return np.stack([future_losses(classifier, X, y, candidates, test, loss, method)
                     for (X, y), test in zip(trainings, tests, strict=True)])


@pytest.mark.parametrize("classifier", [SVM(), SVM(C=10.0, gamma=0.3), LDA(), KNN(5), LogisticRegression()],
                         ids=repr)
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("loss", ["error", "log"])
def test_batch_equals_one_training_set_at_a_time(classifier, k, loss):
    trainings, candidates, tests = resamples(np.random.default_rng(k), 30, k, 2, 6)
    batch = batch_future_losses(classifier, trainings, candidates, tests, loss)
    assert batch.shape == (6, 7, k)
    np.testing.assert_allclose(batch, one_at_a_time(classifier, trainings, candidates, tests, loss), rtol=0,
                               atol=AGREE)


@settings(deadline=None, derandomize=True, max_examples=12)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 20), k=st.sampled_from([2, 3]), count=st.integers(1, 5),
       sizes=st.lists(st.integers(1, 20), min_size=1, max_size=3), loss=st.sampled_from(["error", "log"]))
def test_svm_batch_equals_refits(seed, n, k, count, sizes, loss):
    """Random sizes (training sets of several sizes in one batch, single points, absent classes) against
    plain refits."""
    trainings, candidates, tests = resamples(np.random.default_rng(seed), n, k, 2, count, sizes)
    svm = SVM(C=2.0)
    batch = batch_future_losses(svm, trainings, candidates, tests, loss)
    refit = batch_future_losses(svm, trainings, candidates, tests, loss, method="refit")
    np.testing.assert_allclose(batch, refit, rtol=0, atol=REFIT)
    np.testing.assert_allclose(batch, one_at_a_time(svm, trainings, candidates, tests, loss), rtol=0, atol=AGREE)


@settings(deadline=None, derandomize=True, max_examples=15)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 25), k=st.sampled_from([2, 3, 4]), count=st.integers(1, 6))
def test_svm_fitted_together_equals_fitted_alone(seed, n, k, count):
    rng = np.random.default_rng(seed)
    data = [(rng.normal(size=(n, 2)), rng.integers(0, k, size=n)) for _ in range(count)]
    together = [SVM()._set_training_data(X, y, k) for X, y in data]
    _fit_together(together)
    for model, (X, y) in zip(together, data, strict=True):
        alone = SVM().fit(X, y, k)
        np.testing.assert_array_equal(model.machine_classes_, alone.machine_classes_)
        for name in ("dual_coef_", "intercept_", "gradient_", "sigmoids_"):
            np.testing.assert_allclose(getattr(model, name), getattr(alone, name), rtol=0, atol=1e-10, err_msg=name)
        points = rng.normal(size=(5, 2))
        np.testing.assert_allclose(model.predict_proba(points), alone.predict_proba(points), rtol=0, atol=1e-10)


def test_the_default_hook_is_the_loop_for_any_classifier():
    """A classifier without its own batch path (here LDA through the base class) gives the same as the loop."""
    trainings, candidates, tests = resamples(np.random.default_rng(5), 25, 2, 2, 3)
    hook = Classifier.batch_future_losses(LDA(), trainings, candidates, tests, "error")
    np.testing.assert_array_equal(hook, one_at_a_time(LDA(), trainings, candidates, tests))


def test_the_template_is_not_fitted():
    svm = SVM()
    trainings, candidates, tests = resamples(np.random.default_rng(1), 20, 2, 2, 2)
    batch_future_losses(svm, trainings, candidates, tests)
    assert not hasattr(svm, "n_classes_")


@pytest.fixture
def setting():
    return resamples(np.random.default_rng(0), 12, 2, 2, 2)


@pytest.mark.parametrize(("change", "error", "match"), [
    (lambda t, c, p: ("svm", t, c, p), TypeError, "classifier"),
    (lambda t, c, p: (SVM(), [], c, p), TypeError, "trainings"),
    (lambda t, c, p: (SVM(), t[0], c, p), TypeError, "trainings"),
    (lambda t, c, p: (SVM(), [t[0][0]], c, p[:1]), TypeError, "trainings"),
    (lambda t, c, p: (SVM(), t, c, p[:1]), ValueError, "populations"),
    (lambda t, c, p: (SVM(), t, c, "pop"), TypeError, "populations"),
    (lambda t, c, p: (SVM(), t, c, [p[0], "pop"]), TypeError, "population"),
    (lambda t, c, p: (SVM(), t, c, [p[0], Population.from_labels(np.zeros((2, 2)), [0, 2], 3)]), ValueError,
     "populations"),
    (lambda t, c, p: (SVM(), t, c[:, :1], p), ValueError, "candidates"),
    (lambda t, c, p: (SVM(), t, c[:0], p), ValueError, "candidates"),
    (lambda t, c, p: (SVM(), [(t[0][0][:, :1], t[0][1]), t[1]], c, p), ValueError, "X_train"),
    (lambda t, c, p: (SVM(), [(t[0][0], t[0][1][:-1]), t[1]], c, p), ValueError, "same length"),
    (lambda t, c, p: (SVM(), [(t[0][0], t[0][1] + 5), t[1]], c, p), ValueError, "y_train"),
])
def test_bad_inputs(setting, change, error, match):
    trainings, candidates, tests = setting
    with pytest.raises(error, match=match):
        batch_future_losses(*change(trainings, candidates, tests))


@pytest.mark.parametrize(("option", "value", "match"), [("loss", "hinge", "loss"), ("method", "fast", "method")])
def test_bad_options(setting, option, value, match):
    trainings, candidates, tests = setting
    with pytest.raises(ValueError, match=match):
        batch_future_losses(SVM(), trainings, candidates, tests, **{option: value})


@settings(deadline=None, derandomize=True, max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(1, 8), rank=st.integers(0, 8), stack=st.integers(1, 4))
def test_least_norm_equals_lstsq(seed, size, rank, stack):
    """The polish's stacked least-norm solve against ``numpy.linalg.lstsq`` one system at a time, singular
    systems (rank below the size) included."""
    from mri_theory.classifiers.svm import _least_norm

    rng = np.random.default_rng(seed)
    rank = min(rank, size)
    systems = np.stack([rng.normal(size=(size, rank)) @ rng.normal(size=(rank, size)) for _ in range(stack)])
    rhs = rng.normal(size=(stack, size))
    expected = np.stack([np.linalg.lstsq(a, b, rcond=None)[0] for a, b in zip(systems, rhs, strict=True)])
    np.testing.assert_allclose(_least_norm(systems, rhs), expected, rtol=1e-9, atol=1e-9)
