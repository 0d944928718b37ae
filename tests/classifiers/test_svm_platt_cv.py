"""``SVM(platt="cv")``: Platt's sigmoids on out-of-fold decision values, as e1071 (libsvm) fits them.

The reference rebuilds the out-of-fold values from plain fits of the default SVM on each fold's complement (its
decision function, tested against scikit-learn's SVC elsewhere) and fits :func:`platt_sigmoid` to them; the
retraining path is checked against the plain refit: the fast path (every fold machine but the candidate's re-solved
from its own solution, the sigmoids refitted on the new out-of-fold values) where every class is present and every
fold machine two-sided, the refit itself elsewhere.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, settings, st
from _svm_solver import AGREE, check_against_refits

from mri_theory.classifiers import SVM
from mri_theory.classifiers.svm import PLATT_FOLDS, platt_sigmoid
from mri_theory.engine.contract import refit_future_losses
from mri_theory.engine.population import Population


def _data(seed: int, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.digitize(X[:, 0] + 0.6 * rng.normal(size=n), np.linspace(-0.5, 0.5, k - 1))
    return X, y


def _out_of_fold(X: np.ndarray, y: np.ndarray, machine: int) -> np.ndarray:
    """Decision values of the machine "class ``machine`` vs the rest" at each row, from a fit without its fold."""
    folds = np.arange(len(y)) % PLATT_FOLDS
    out = np.empty(len(y))
    for fold in range(PLATT_FOLDS):
        held, kept = folds == fold, folds != fold
        labels = (y[kept] == machine).astype(int)  # the machine's two sides as a two-class problem
        if labels.min() == labels.max():
            out[held] = 1.0 if labels[0] == 1 else -1.0
            continue
        model = SVM().fit(X[kept], labels, 2)  # one machine: class 1 (the machine's class) against class 0
        out[held] = model.decision_function(X[held])[:, 0] * (1 if model.machine_classes_[0] == 1 else -1)
    return out


@pytest.mark.parametrize(("seed", "n", "k"), [(0, 23, 2), (1, 40, 2), (2, 31, 3), (3, 12, 4)])
def test_the_sigmoids_are_platts_on_out_of_fold_values(seed, n, k):
    X, y = _data(seed, n, k)
    model = SVM(platt="cv").fit(X, y, k)
    for row, machine in enumerate(model.machine_classes_):
        expected = platt_sigmoid(_out_of_fold(X, y, int(machine)), y == machine)
        np.testing.assert_allclose(model.sigmoids_[row], expected, rtol=1e-8, atol=1e-10)
    trained = SVM().fit(X, y, k)  # the same machines; only the sigmoids differ
    np.testing.assert_allclose(model.decision_function(X), trained.decision_function(X), rtol=0, atol=1e-12)
    assert not np.allclose(model.sigmoids_, trained.sigmoids_)


def test_a_fold_with_one_side_scores_plus_or_minus_one():
    """Three rows of one class and two of the other: each fold's complement may hold one side only."""
    X = np.array([[0.0, 0.0], [1.0, 0.2], [0.1, 1.0], [2.0, 2.0], [2.2, 1.7]])
    y = np.array([0, 0, 0, 1, 1])
    model = SVM(platt="cv").fit(X, y, 2)
    expected = platt_sigmoid(_out_of_fold(X, y, int(model.machine_classes_[0])), y == model.machine_classes_[0])
    np.testing.assert_allclose(model.sigmoids_[0], expected, rtol=1e-8, atol=1e-10)
    assert np.all(np.isfinite(model.predict_proba(X)))


def test_retraining_equals_the_plain_refit():
    X, y = _data(4, 25, 3)
    population = Population.from_labels(*_data(5, 60, 3), 3)
    model = SVM(platt="cv").fit(X, y, 3)
    assert model._cv_fast_path()
    candidates = _data(6, 4, 3)[0]
    current, future = model.retraining_losses(candidates, population, "log")
    np.testing.assert_allclose(future, refit_future_losses(model, candidates, population, "log"), rtol=0, atol=AGREE)
    assert current == pytest.approx(population.loss(model, "log"), abs=0)


@settings(deadline=None, derandomize=True, max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(5, 40), k=st.integers(2, 4), m=st.integers(1, 4),
       C=st.sampled_from([0.3, 1.0, 20.0]), gamma=st.sampled_from([0.3, 1.0, 4.0]), repeats=st.booleans())
def test_fast_path_equals_refit_property(seed, n, k, m, C, gamma, repeats):
    """Every retrained model (decision values, coefficients, probabilities with the out-of-fold sigmoids) against
    a refit, where the fast path applies; candidates that repeat a training point included."""
    X, y = _data(seed, n, k)
    if repeats:  # a bootstrap-like resample: repeated rows, merged by the solver
        rows = np.random.default_rng(seed).integers(0, n, size=n)
        X, y = X[rows], y[rows]
    model = SVM(C=C, gamma=gamma, platt="cv").fit(X, y, k)
    candidates = np.vstack([_data(seed + 1, m, k)[0] * 1.5, X[:1]])
    unique = np.arange(m + 1) < m
    if model._cv_fast_path():
        check_against_refits(model, candidates, _data(seed + 2, 40, k)[0] * 2, unique)
    else:
        assert (np.unique(y).size < k or any(fold.coef is None for fold in model._folds))


def test_the_fast_path_is_taken_and_a_one_sided_fold_refits(monkeypatch):
    """With every fold two-sided the retrained machines come from the fast path (no refit); where a fold's kept
    rows hold one class only (the class's points all in that fold) the retraining is the refit, exactly."""
    X, y = _data(7, 30, 2)
    population = Population.from_labels(*_data(8, 80, 2), 2)
    candidates = _data(9, 5, 2)[0]
    model = SVM(platt="cv").fit(X, y, 2)
    monkeypatch.setattr("mri_theory.classifiers.svm.refit_future_losses", None)  # a refit would fail
    model.retraining_losses(candidates, population, "error")
    monkeypatch.undo()
    y_one = np.where(np.arange(30) % PLATT_FOLDS == 0, 1, 0)  # class 1 only in fold 0: its kept rows are all 0
    one_sided = SVM(platt="cv").fit(X, y_one, 2)
    assert not one_sided._cv_fast_path()
    np.testing.assert_array_equal(one_sided.retraining_losses(candidates, population, "error")[1],
                                  refit_future_losses(one_sided, candidates, population, "error"))


def test_platt_is_a_named_option():
    assert repr(SVM()) == "SVM(C=1.0, gamma=None)"  # the stored studies' spec, unchanged at the default
    assert repr(SVM(platt="cv")) == "SVM(C=1.0, gamma=None, platt='cv')"
    assert SVM(platt="cv").clone().platt == "cv"
    with pytest.raises(ValueError, match="platt must be one of 'train', 'cv'"):
        SVM(platt="libsvm")
