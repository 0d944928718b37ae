"""Precision of the Gaussian family far from the origin and at extreme scales.

LDA, QDA, Gaussian naive Bayes and the mean classifier are affine-equivariant
when their length parameters move with the data: fitting on ``s x + t`` with
``reg -> reg s^2`` (``sigma -> sigma s``) gives the same model as fitting on
``x``, seen through the same map.  Two independent computations are compared:

* the fast path (``method="auto"``, rank-one updates) against plain refits
  (``method="refit"``) on shifted and scaled data;
* a model fitted on moved data against the same model fitted on the original
  data (whose correctness against scikit-learn and hand-written posteriors is
  tested in ``test_classifiers.py``).  These moves are exact in floating point
  (grid data, integer shifts, power-of-two scales), so any difference is the
  classifier's.

Error losses are compared exactly except on population points that lie within
``MARGIN`` of a decision boundary of some model involved (in practice none):
there the decision may legitimately hinge on rounding.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import example, given, settings, st

from mri_theory.classifiers import LDA, QDA, GaussianMeanClassifier, GaussianNaiveBayes
from mri_theory.engine.population import Population
from mri_theory.engine.retraining import future_losses
from mri_theory.problems import get_problem

#: Each model with its length parameter in data units, for data scaled by ``u``.
MODELS = {
    "lda": lambda u: LDA(reg=1e-3 * u**2),
    "qda": lambda u: QDA(reg=1e-3 * u**2),
    "nb": lambda u: GaussianNaiveBayes(reg=1e-3 * u**2),
    "mean": lambda u: GaussianMeanClassifier(sigma=0.5 * u),
}
PROBLEMS = ("four-gaussian", "three-gaussians")  # two and three classes, both in two dimensions
GRID = 2.0**-20  # data on this grid stay exact when shifted by integers up to 2**32
MARGIN = 1e-9
TOL = 1e-12


def snap(A):
    return np.round(A / GRID) * GRID


def dataset(problem_name, seed, n_train=30, n_cand=3, n_pop=120):
    """Training set, candidates and a labelled population, all on the grid ``2^-20``."""
    problem = get_problem(problem_name)
    rng = np.random.default_rng(seed)
    X, y = problem.sample(n_train, rng)
    C, _ = problem.sample(n_cand, rng)
    P, yp = problem.sample(n_pop, rng)
    return snap(X), y, snap(C), snap(P), yp, problem.n_classes


def near_boundary(factory, X, y, C, P, k):
    """Points whose top-two probabilities differ by less than MARGIN under the model or any retrained model."""
    models = [factory().fit(X, y, k)]
    models += [factory().fit(np.vstack([X, c]), np.append(y, j), k) for c in C for j in range(k)]
    mask = np.zeros(P.shape[0], dtype=bool)
    for model in models:
        top = np.sort(model.predict_proba(P), axis=1)
        mask |= top[:, -1] - top[:, -2] < MARGIN
    return mask


# ---------------------------------------------------------------- fast path against refits


@pytest.mark.parametrize("problem_name", PROBLEMS)
@pytest.mark.parametrize("name", sorted(MODELS))
@settings(max_examples=12, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), log_scale=st.floats(-6.0, 6.0),
       shift=st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=2))
@example(seed=0, log_scale=0.0, shift=[1e6, -1e6])
@example(seed=1, log_scale=0.0, shift=[1e5, 1e5])
@example(seed=2, log_scale=-6.0, shift=[0.5, -0.25])
@example(seed=3, log_scale=6.0, shift=[-1e6, 3.0])
def test_fast_path_equals_refit_when_shifted_and_scaled(problem_name, name, seed, log_scale, shift):
    X, y, C, P, yp, k = dataset(problem_name, seed)
    s, t = 10.0**log_scale, np.array(shift)
    Xm, Cm, Pm = s * X + t, s * C + t, s * P + t

    def factory():
        return MODELS[name](s)

    pop = Population.from_labels(Pm, yp, k)
    fast = future_losses(factory(), Xm, y, Cm, pop, "log")
    refit = future_losses(factory(), Xm, y, Cm, pop, "log", method="refit")
    np.testing.assert_allclose(fast, refit, rtol=0, atol=TOL)

    slack = pop.weights[near_boundary(factory, Xm, y, Cm, Pm, k)].sum()
    fast = future_losses(factory(), Xm, y, Cm, pop, "error")
    refit = future_losses(factory(), Xm, y, Cm, pop, "error", method="refit")
    assert np.all(np.abs(fast - refit) <= slack + TOL), (fast, refit, slack)


# ---------------------------------------------------------------- equivariance


@pytest.mark.parametrize("problem_name", PROBLEMS)
@pytest.mark.parametrize("name", sorted(MODELS))
@settings(max_examples=12, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), exponent=st.integers(-20, 20),
       shift=st.lists(st.integers(-10**6, 10**6), min_size=2, max_size=2))
@example(seed=0, exponent=0, shift=[10**6, -10**6])
@example(seed=1, exponent=-20, shift=[0, 0])
@example(seed=2, exponent=20, shift=[0, 0])
@example(seed=3, exponent=-20, shift=[10**6, 10**6])
def test_probabilities_and_losses_are_affine_equivariant(problem_name, name, seed, exponent, shift):
    """Data ``s (x + T)`` with ``reg s^2`` (``sigma s``) give the probabilities and losses of data ``x``."""
    X, y, C, P, yp, k = dataset(problem_name, seed)
    s, T = 2.0**exponent, np.array(shift, dtype=float)

    def move(A):
        return s * (A + T)

    for A in (X, C, P):  # the move itself is exact, so the models must agree
        assert np.array_equal(move(A) / s - T, A)

    base = MODELS[name](1.0).fit(X, y, k)
    moved = MODELS[name](s).fit(move(X), y, k)
    np.testing.assert_allclose(moved.predict_proba(move(P)), base.predict_proba(P), rtol=0, atol=TOL)

    pop, pop_moved = Population.from_labels(P, yp, k), Population.from_labels(move(P), yp, k)
    assert abs(pop_moved.loss(moved, "log") - pop.loss(base, "log")) <= TOL
    np.testing.assert_allclose(future_losses(MODELS[name](s), move(X), y, move(C), pop_moved, "log"),
                               future_losses(MODELS[name](1.0), X, y, C, pop, "log"), rtol=0, atol=TOL)

    slack = pop.weights[near_boundary(lambda: MODELS[name](1.0), X, y, C, P, k)].sum()
    assert abs(pop_moved.loss(moved, "error") - pop.loss(base, "error")) <= slack + TOL
    diff = (future_losses(MODELS[name](s), move(X), y, move(C), pop_moved, "error")
            - future_losses(MODELS[name](1.0), X, y, C, pop, "error"))
    assert np.all(np.abs(diff) <= slack + TOL), diff


# ---------------------------------------------------------------- the reported case


def test_lda_loss_at_shift_1e6_equals_the_unshifted_loss():
    """Regression: LDA's own loss moved by 2.3e-3 when the data were shifted by 1e6."""
    problem = get_problem("four-gaussian")
    rng = np.random.default_rng(8)
    X, y = problem.sample(50, rng)
    X, P = snap(X), snap(problem.sample(2000, rng)[0])
    rows = problem.posterior(P)
    shift = np.array([1e6, 1e6])
    base, shifted = LDA().fit(X, y, 2), LDA().fit(X + shift, y, 2)
    top = np.sort(base.predict_proba(P), axis=1)
    assert np.min(top[:, 1] - top[:, 0]) > MARGIN  # no decision hinges on rounding
    for loss in ("log", "error"):
        assert abs(Population(P + shift, rows).loss(shifted, loss) - Population(P, rows).loss(base, loss)) <= TOL


# ---------------------------------------------------------------- coincident training points (bootstrap resamples)


@pytest.mark.parametrize("point", [(0.1 + 0.2, 0.7 - 0.4), (-0.535669, 0.361595), (1e5 + 0.1, -3.3)])
def test_coincident_training_points_get_a_sane_frame(point):
    """A bootstrap resample of a tiny labelled set can repeat one point; the mean then differs from the points only
    by rounding, which must not be read as the data's spread (a scale of 1e-16 made the ridge 1e32 and logistic
    regression's Newton fail).  The frame then only shifts (scale 1), and the fast path equals a refit."""
    from mri_theory.classifiers import LogisticRegression
    from mri_theory.classifiers.gaussian import reference_frame

    X = np.tile(np.asarray(point, dtype=float), (3, 1))
    origin, scale = reference_frame(X)
    assert scale == 1.0 and np.all(np.abs(X[0] - origin) <= 0.5)
    rng = np.random.default_rng(5)
    candidates = X[0] + rng.normal(0.0, 0.5, size=(12, 2))
    y = np.zeros(3, dtype=int)
    population = Population(X[0] + rng.normal(0.0, 0.5, size=(200, 2)), np.full((200, 2), 0.5))
    for model in (LDA(), QDA(), GaussianNaiveBayes(), GaussianMeanClassifier(), LogisticRegression()):
        fast = future_losses(model, X, y, candidates, population, "log")
        slow = future_losses(model, X, y, candidates, population, "log", method="refit")
        np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-9, err_msg=repr(model))
