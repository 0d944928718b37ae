"""The documented input range of the Gaussian classifiers and the logistic regression (issue 40).

Inside it the models are finite and equivariant: fitted on ``s * X`` with their data-unit parameters scaled
(``reg * s**2``, ``sigma * s``) they give, on ``s * x``, the probabilities of the model fitted on ``X`` -- checked
here against that independent fit at scale 1, over 180 orders of magnitude. Outside it (a training spread beyond
``[1e-100, 1e100]``, a parameter whose frame value leaves that range, a prediction point whose quadratic features
overflow, a candidate whose retrained model has no determined optimum) they refuse with a ``ValueError`` naming
the argument, before any work and without a floating-point warning.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _optional import given, settings, st

from mri_theory.classifiers import LDA, QDA, GaussianMeanClassifier, GaussianNaiveBayes, LogisticRegression
from mri_theory.classifiers.gaussian import MAX_SPREAD
from mri_theory.engine import Population
from mri_theory.problems import get_problem

FOUR = get_problem("four-gaussian")
X, Y = FOUR.sample(30, np.random.default_rng(7))
POINTS = FOUR.sample(20, np.random.default_rng(8))[0]
REGULARISED = (LDA, QDA, GaussianNaiveBayes)


@settings(max_examples=40, deadline=None)
@given(exponent=st.integers(min_value=-90, max_value=90), cls=st.sampled_from(REGULARISED))
def test_equivariant_across_the_range(exponent: int, cls: type) -> None:
    """A power of two keeps every product exact, so the probabilities agree to rounding at any scale in range."""
    s = 2.0 ** round(exponent * 3.32)  # about 10**exponent
    reference = cls(reg=1e-3).fit(X, Y, 2).predict_proba(POINTS)
    scaled = cls(reg=1e-3 * s**2).fit(X * s, Y, 2).predict_proba(POINTS * s)
    np.testing.assert_allclose(scaled, reference, rtol=1e-12, atol=1e-14)


@settings(max_examples=20, deadline=None)
@given(exponent=st.integers(min_value=-90, max_value=90))
def test_mean_classifier_equivariant_across_the_range(exponent: int) -> None:
    s = 2.0 ** round(exponent * 3.32)
    reference = GaussianMeanClassifier(sigma=0.3).fit(X, Y, 2).predict_proba(POINTS)
    scaled = GaussianMeanClassifier(sigma=0.3 * s).fit(X * s, Y, 2).predict_proba(POINTS * s)
    np.testing.assert_allclose(scaled, reference, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("cls", [*REGULARISED, GaussianMeanClassifier])
@pytest.mark.parametrize("scale", [1e-160, 1e-200, 1e-300, 1e120, 1e200])
def test_a_spread_out_of_range_is_refused_naming_x(cls: type, scale: float) -> None:
    """The issue's cases: NaN at 1e-160, ZeroDivisionError at 1e-200, OverflowError at 1e200; now one clear error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"^X: the training points spread over .* needs a spread in "
                                             r"\[1e-100, 1e\+100\]"):
            cls().fit(X * scale, Y, 2)


def test_the_spread_limits_are_the_documented_ones() -> None:
    """The largest and smallest accepted spreads: the powers of two just inside [1e-100, 1e100]."""
    top = 2.0 ** np.floor(np.log2(MAX_SPREAD))
    LDA(reg=1e-3 * top**2).fit(X / np.max(np.abs(X - X.mean(0))) * top, Y, 2)
    with pytest.raises(ValueError, match="^X: "):
        LDA(reg=1e-3 * top**2).fit(X / np.max(np.abs(X - X.mean(0))) * top * 4, Y, 2)


@pytest.mark.parametrize("cls", REGULARISED)
def test_a_ridge_out_of_range_is_refused_naming_reg(cls: type) -> None:
    with pytest.raises(ValueError, match=r"^reg, X: reg / spread\*\*2 = "):
        cls(reg=1e250).fit(X, Y, 2)
    with pytest.raises(ValueError, match=r"^reg, X: reg / spread\*\*2 = "):
        cls(reg=1e-250).fit(X, Y, 2)


def test_mean_classifier_sigma_out_of_range_is_refused_naming_sigma() -> None:
    """The issue's ``GaussianMeanClassifier(sigma=1e-300)`` returned NaN."""
    with pytest.raises(ValueError, match=r"^sigma: sigma / spread = "):
        GaussianMeanClassifier(sigma=1e-300).fit(X, Y, 2)


@pytest.mark.parametrize("cls", [*REGULARISED, GaussianMeanClassifier])
def test_a_prediction_point_too_far_is_refused_naming_x(cls: type) -> None:
    """The issue's fitted LDA returned NaN at x = 1e300; a point far but in range still gets valid probabilities."""
    model = cls().fit(X, Y, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"^X: a point lies .* training spreads"):
            model.predict_proba(np.array([[1e300, 0.0]]))
    far = model.predict_proba(np.array([[1e100, 0.0]]))
    assert np.isfinite(far).all() and np.allclose(far.sum(axis=1), 1.0)


def test_logistic_regression_names_a_candidate_that_leaves_the_range() -> None:
    """The issue's candidate at 1e100 said "decrease C"; the retrained model's spread is the candidate's doing."""
    model = LogisticRegression().fit(X, Y, 2)
    population = Population.from_problem(FOUR, 50, np.random.default_rng(9))
    with pytest.raises(ValueError, match=r"^candidates: the data's spread s = .* too large for C=10"):
        model.retraining_losses(np.array([[1e100, 0.0]]), population, "error")
    current, future = model.retraining_losses(np.array([[3.0, 0.0]]), population, "error")
    assert np.isfinite(current) and np.isfinite(future).all()


def _two_unit_gaussians(scale: float):
    """Two classes N((0, 0), s^2 I) and N((2s, 0), s^2 I), equal priors: Bayes rule x < s, error Phi(-1)."""
    from mri_theory.problems import GaussianMixtureProblem

    cov = np.eye(2) * scale**2
    return GaussianMixtureProblem("scaled", [([1.0], [[0.0, 0.0]], [cov]), ([1.0], [[2 * scale, 0.0]], [cov])],
                                  [0.5, 0.5])


SYMMETRIC_X = np.array([[0.0, 0.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0]])
SYMMETRIC_Y = np.array([0, 0, 1, 1])


def test_logistic_regression_refuses_a_ridge_that_ties_every_prediction() -> None:
    """The issue: at data scale 1e-8 the exact error was 0.16 while the model's own predictions were all ties
    (error 0.5). The ridge 1 / (C s^2) = 1.8e15 there; above 1e12 ``fit`` refuses, naming X and the C that fits."""
    from scipy import stats

    with pytest.raises(ValueError, match=r"^X: the data's spread s = .* too small for C=10.0: .* above 1e\+12, .*tie.*"
                                         r"C >= "):
        LogisticRegression().fit(SYMMETRIC_X * 1e-8, SYMMETRIC_Y, 2)
    problem = _two_unit_gaussians(1e-6)  # ridge 1 / (10 * 2**-40) = 1.1e11: accepted, and exact = the model's own
    model = LogisticRegression().fit(SYMMETRIC_X * 1e-6, SYMMETRIC_Y, 2)
    exact = Population.exact(problem).loss(model)
    sampled = Population.from_problem(problem, 40_000, np.random.default_rng(3)).loss(model)
    bayes = stats.norm.cdf(-1.0)  # the symmetric data put the boundary at the midpoint x = s: the Bayes rule
    assert abs(exact - bayes) <= 1e-9
    assert abs(sampled - bayes) <= 4 * np.sqrt(bayes * (1 - bayes) / 40_000)


@settings(max_examples=40, deadline=None)
@given(exponent=st.integers(-60, 0), C=st.sampled_from([1e-3, 1.0, 10.0, 1e6]))
def test_logistic_regression_ridge_ceiling_by_hand(exponent: int, C: float) -> None:
    """Points at +-2**e: the spread is 2**e exactly, so the ridge is 1 / (C 4**e); accepted iff at most 1e12, and
    then the two points' probabilities are not tied (they differ by more than the tie tolerance 1e-12)."""
    X = np.array([[-1.0, 0.0], [1.0, 0.0]]) * 2.0**exponent
    ridge = 1.0 / (C * 4.0**exponent)
    if ridge > 1e12:
        with pytest.raises(ValueError, match=r"^X: .* too small for C="):
            LogisticRegression(C=C).fit(X, np.array([0, 1]), 2)
        return
    proba = LogisticRegression(C=C).fit(X, np.array([0, 1]), 2).predict_proba(X)
    assert proba[1, 1] - proba[0, 1] > 1e-12


@pytest.mark.parametrize("cls", [LDA, QDA])
def test_a_numerically_singular_covariance_is_refused_naming_x_or_candidates(cls: type) -> None:
    """One point at 1e20 (1, 0.7) among unit points: the covariance 1e40 v v^T + O(1) + reg I loses its ridge in
    rounding (numpy's LinAlgError "Singular matrix" at predict before); fit names X, the fast path candidates.
    Whether the rounded matrix is exactly singular depends on the last bits (these points are ones where it is)."""
    outlier = np.array([1e20, 0.7e20])
    data, labels = np.random.default_rng(0).normal(size=(12, 2)), np.repeat([0, 1], 6)
    data[0] = outlier
    with pytest.raises(ValueError, match=r"^X: the covariance of the training points is numerically singular"):
        cls().fit(data, labels, 2)
    population = Population.from_problem(FOUR, 50, np.random.default_rng(9))
    model = QDA().fit(np.random.default_rng(0).normal(size=(12, 2)), labels, 2)
    with pytest.raises(ValueError, match=r"^candidates: the covariance of the training points and a candidate"):
        model.retraining_losses(np.array([[1e20, 0.7 * 1e20]]), population, "error")


@settings(max_examples=40, deadline=None)
@given(exponent=st.integers(min_value=-30, max_value=30), seed=st.integers(0, 2**32 - 1))
def test_retrained_scales_are_the_frames_of_each_retrained_set(exponent: int, seed: int) -> None:
    """The candidates' ridge check computes every retrained frame's scale at once; it equals the scale of
    ``reference_frame`` of the training points plus that candidate, computed one candidate at a time."""
    from mri_theory.classifiers.gaussian import reference_frame, retrained_scales

    rng = np.random.default_rng(seed)
    train = X * 10.0**exponent + rng.normal()
    candidates = np.vstack([POINTS * 10.0**exponent, train[:3], train[:1] * 1e3])
    expected = [reference_frame(np.vstack([train, x]))[1] for x in candidates]
    np.testing.assert_array_equal(retrained_scales(train, candidates), expected)
