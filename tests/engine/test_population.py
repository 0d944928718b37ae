"""Evaluation sets (:mod:`mri_theory.engine.population`) and loss kernels (:mod:`mri_theory.engine.losses`) against
independent computations.

Independent references: losses typed in from their definitions (error
``1 - p[argmax p_hat]`` with ties to the lowest label, log loss
``-sum_j p_j ln max(p_hat_j, 1e-15)``), :func:`sklearn.metrics.accuracy_score`,
Bayes' rule applied by hand to the problems' Gaussian densities
(:mod:`scipy.stats`), the closed-form error rate of the §3.2 mean classifier
(:func:`mri_theory.analytic.two_gaussians.error_rate`), softmax by
:func:`scipy.special.softmax` / :func:`scipy.special.expit`, and the spread of
estimates over independent seeds.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, settings, st
from scipy import special, stats
from sklearn.metrics import accuracy_score

from mri_theory._utils.validation import check_labels
from mri_theory.analytic.two_gaussians import MeanClassifier, TwoGaussians, error_rate
from mri_theory.classifiers import KNN, GaussianMeanClassifier
from mri_theory.engine.losses import pointwise_loss, pointwise_loss_from_scores
from mri_theory.engine.population import Population
from mri_theory.problems import get_problem

FLOOR = 1e-15


class FixedProba:
    """A stand-in 'classifier' returning fixed probabilities (Population.loss only calls predict_proba)."""

    def __init__(self, proba):
        self.proba = np.asarray(proba, dtype=float)

    def predict_proba(self, X):
        assert np.asarray(X).shape[0] == self.proba.shape[0]
        return self.proba


def hand_error(rows, proba_hat, weights):
    total, wsum = 0.0, 0.0
    for r, ph, w in zip(rows, proba_hat, weights, strict=True):
        best = 0
        for j in range(1, len(ph)):  # first maximum: ties to the lowest label
            if ph[j] > ph[best]:
                best = j
        total += w * (1.0 - r[best])
        wsum += w
    return total / wsum


def hand_log_loss(rows, proba_hat, weights):
    total, wsum = 0.0, 0.0
    for r, ph, w in zip(rows, proba_hat, weights, strict=True):
        total += w * -sum(r[j] * np.log(max(ph[j], FLOOR)) for j in range(len(r)))
        wsum += w
    return total / wsum


def exact_dataset(means=(-0.5, 1.5), per_class=9):
    """1-D two-class data whose class means are exactly ``means`` (dyadic offsets, exact sums)."""
    offsets = np.arange(-4, 5) * 0.25  # 9 points, sum 0 exactly
    assert per_class == 9
    X = np.concatenate([means[0] + offsets, means[1] + offsets])[:, None]
    y = np.repeat([0, 1], per_class)
    return X, y


# ---------------------------------------------------------------- validation


def test_shape_mismatch_names_proba():
    with pytest.raises(ValueError, match="proba"):
        Population(np.zeros((5, 2)), np.full((4, 2), 0.5))


def test_single_column_proba_rejected():
    with pytest.raises(ValueError, match="proba"):
        Population(np.zeros((3, 2)), np.ones((3, 1)))


def test_rows_not_summing_to_one_name_proba():
    rows = np.array([[0.5, 0.5], [0.6, 0.6]])
    with pytest.raises(ValueError, match="proba"):
        Population(np.zeros((2, 1)), rows)


def test_negative_row_entry_names_proba():
    rows = np.array([[1.2, -0.2], [0.5, 0.5]])
    with pytest.raises(ValueError, match="proba"):
        Population(np.zeros((2, 1)), rows)


def test_negative_weights_named():
    with pytest.raises(ValueError, match="weights"):
        Population(np.zeros((2, 1)), np.full((2, 2), 0.5), weights=[1.0, -0.5])


def test_all_zero_weights_named():
    with pytest.raises(ValueError, match="weights"):
        Population(np.zeros((2, 1)), np.full((2, 2), 0.5), weights=[0.0, 0.0])


def test_weights_wrong_shape_named():
    with pytest.raises(ValueError, match="weights"):
        Population(np.zeros((3, 1)), np.full((3, 2), 0.5), weights=[1.0, 1.0])


@pytest.mark.parametrize("argument", ["X", "proba", "weights"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_input_named(argument, bad):
    X = np.zeros((3, 2))
    rows = np.full((3, 2), 0.5)
    w = np.ones(3)
    {"X": X, "proba": rows, "weights": w}[argument][0, ...] = bad
    with pytest.raises(ValueError, match=argument):
        Population(X, rows, w)


def test_one_dimensional_X_is_n_points():
    pop = Population(np.array([0.0, 1.0, 2.0]), np.full((3, 2), 0.5))
    assert pop.X.shape == (3, 1)
    assert (pop.size, pop.dim, pop.n_classes) == (3, 1, 2)


def test_weights_are_normalised_and_default_uniform():
    rng = np.random.default_rng(1)
    w = rng.uniform(0.1, 5.0, size=7)
    pop = Population(rng.normal(size=(7, 2)), rng.dirichlet([1, 1, 1], size=7), weights=w)
    np.testing.assert_allclose(pop.weights, w / w.sum(), rtol=1e-15, atol=0)
    assert abs(pop.weights.sum() - 1.0) < 1e-15
    uniform = Population(rng.normal(size=(4, 2)), np.full((4, 2), 0.5))
    np.testing.assert_array_equal(uniform.weights, np.full(4, 0.25))


def test_population_arrays_are_read_only():
    pop = Population(np.zeros((2, 1)), np.full((2, 2), 0.5))
    with pytest.raises(ValueError):
        pop.X[0, 0] = 1.0
    with pytest.raises(ValueError):
        pop.proba[0, 0] = 1.0


def test_check_labels():
    np.testing.assert_array_equal(check_labels([0, 2, 1.0], 3), [0, 2, 1])
    with pytest.raises(ValueError, match="labels_name"):
        check_labels([0, 3], 3, "labels_name")
    with pytest.raises(ValueError, match=r"^y must"):
        check_labels([-1, 0], 2)
    with pytest.raises(ValueError, match=r"^y must"):
        check_labels([0.5, 1], 2)
    with pytest.raises(ValueError, match=r"^y must"):
        check_labels([[0, 1]], 2)
    with pytest.raises(TypeError, match=r"^y must"):
        check_labels(np.array([True, False]), 2)


# ---------------------------------------------------------------- losses by hand


@pytest.mark.parametrize("k", [2, 3, 4])
def test_loss_of_fixed_probabilities_matches_hand_computation(k):
    rng = np.random.default_rng(10 + k)
    n = 40
    rows = rng.dirichlet(np.ones(k), size=n)
    proba_hat = rng.dirichlet(np.ones(k), size=n)
    proba_hat[:5] = np.eye(k)[rng.integers(0, k, 5)]  # exact zeros: the log-loss floor
    proba_hat[5:10] = 1.0 / k  # complete ties: lowest label
    proba_hat[10, :2] = 0.5  # a two-way tie between labels 0 and 1
    proba_hat[10, 2:] = 0.0
    w = rng.uniform(0.0, 3.0, size=n)
    pop = Population(rng.normal(size=(n, 2)), rows, w)
    clf = FixedProba(proba_hat)
    assert pop.error_rate(clf) == pytest.approx(hand_error(rows, proba_hat, w), abs=1e-14)
    assert pop.loss(clf, "error") == pytest.approx(hand_error(rows, proba_hat, w), abs=1e-14)
    assert pop.log_loss(clf) == pytest.approx(hand_log_loss(rows, proba_hat, w), rel=1e-13)
    assert pop.loss(clf, "log") == pytest.approx(hand_log_loss(rows, proba_hat, w), rel=1e-13)


def test_log_loss_floor_value():
    # p_hat = 0 for the true class costs -ln(1e-15) = 34.538776... nats
    pop = Population(np.zeros((1, 1)), [[0.0, 1.0]])
    assert pop.log_loss(FixedProba([[1.0, 0.0]])) == pytest.approx(15 * np.log(10), rel=1e-14)
    assert pop.error_rate(FixedProba([[1.0, 0.0]])) == 1.0
    # a tie predicts class 0, which is wrong here
    assert pop.error_rate(FixedProba([[0.5, 0.5]])) == 1.0


def test_unknown_loss_named():
    pop = Population(np.zeros((1, 1)), [[0.5, 0.5]])
    with pytest.raises(ValueError, match="loss"):
        pop.loss(FixedProba([[0.5, 0.5]]), "hinge")


@pytest.mark.parametrize("loss", ["error", "log"])
def test_loss_of_real_classifiers_matches_hand_computation(loss):
    problem = get_problem("three-gaussians")
    rng = np.random.default_rng(3)
    X, y = problem.sample(30, rng)
    P = rng.normal(size=(200, 2))
    rows = rng.dirichlet([1, 1, 1], size=200)
    w = rng.uniform(0, 1, size=200)
    pop = Population(P, rows, w)
    hand = hand_error if loss == "error" else hand_log_loss
    for clf in (KNN(4).fit(X, y, 3), GaussianMeanClassifier().fit(X[y != 2], y[y != 2], 3)):
        assert pop.loss(clf, loss) == pytest.approx(hand(rows, clf.predict_proba(P), w), rel=1e-13, abs=1e-14)


@settings(deadline=None, derandomize=True, max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), k=st.integers(2, 4))
def test_loss_hand_computation_property(seed, n, k):
    rng = np.random.default_rng(seed)
    rows = rng.dirichlet(np.ones(k), size=n)
    # coarse probabilities so that ties and zeros are common
    counts = rng.integers(0, 3, size=(n, k)).astype(float)
    counts[counts.sum(axis=1) == 0, 0] = 1.0
    proba_hat = counts / counts.sum(axis=1, keepdims=True)
    w = rng.uniform(0.01, 2.0, size=n)
    pop = Population(rng.normal(size=(n, 1)), rows, w)
    clf = FixedProba(proba_hat)
    assert pop.error_rate(clf) == pytest.approx(hand_error(rows, proba_hat, w), abs=1e-13)
    assert pop.log_loss(clf) == pytest.approx(hand_log_loss(rows, proba_hat, w), rel=1e-12)


# ---------------------------------------------------------------- constructors


def test_from_labels_is_the_empirical_error_rate():
    problem = get_problem("three-gaussians")
    rng = np.random.default_rng(5)
    X, y = problem.sample(25, rng)
    X_eval, y_eval = problem.sample(400, rng)
    clf = KNN(3).fit(X, y, 3)
    pop = Population.from_labels(X_eval, y_eval, 3)
    np.testing.assert_array_equal(pop.proba, np.eye(3)[y_eval])
    expected = 1.0 - accuracy_score(y_eval, clf.predict(X_eval))
    assert pop.error_rate(clf) == pytest.approx(expected, abs=1e-14)
    # the one-hot log loss is the mean of -ln p_hat[y] (floored)
    p = clf.predict_proba(X_eval)[np.arange(400), y_eval]
    assert pop.log_loss(clf) == pytest.approx(np.mean(-np.log(np.maximum(p, FLOOR))), rel=1e-13)


def test_from_labels_validation():
    with pytest.raises(ValueError, match=r"^y must"):
        Population.from_labels(np.zeros((3, 1)), [0, 1, 2], 2)
    with pytest.raises(ValueError, match="same length"):
        Population.from_labels(np.zeros((3, 1)), [0, 1], 2)
    with pytest.raises(ValueError, match="n_classes"):
        Population.from_labels(np.zeros((2, 1)), [0, 0], 1)


def hand_posterior_two_gaussians(x):
    # N(-1, 1) vs N(1, 1), equal priors: ln p_1/p_0 = 2x
    x = np.asarray(x).ravel()
    p1 = special.expit(2.0 * x)
    return np.column_stack([1.0 - p1, p1])


def hand_posterior_three_gaussians(X):
    ang = np.deg2rad(90.0 + 120.0 * np.arange(3))
    mu = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    dens = np.column_stack([stats.multivariate_normal(m, 0.65**2 * np.eye(2)).pdf(X) for m in mu])
    return dens / dens.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("name, posterior", [("two-gaussians", hand_posterior_two_gaussians),
                                             ("three-gaussians", hand_posterior_three_gaussians)])
def test_from_problem_sample_uses_the_bayes_posterior(name, posterior):
    problem = get_problem(name)
    pop = Population.from_problem(problem, 500, np.random.default_rng(11))
    X_ref, _ = problem.sample(500, np.random.default_rng(11))  # same stream: the same points
    np.testing.assert_array_equal(pop.X, np.reshape(X_ref, pop.X.shape))
    np.testing.assert_allclose(pop.proba, posterior(pop.X), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(pop.weights, np.full(500, 1 / 500))
    # deterministic
    again = Population.from_problem(problem, 500, np.random.default_rng(11))
    np.testing.assert_array_equal(again.X, pop.X)
    np.testing.assert_array_equal(again.proba, pop.proba)


def test_from_problem_validation():
    problem = get_problem("two-gaussians")
    with pytest.raises(TypeError, match="rng"):
        Population.from_problem(problem, 10, 0)
    with pytest.raises(ValueError, match="size"):
        Population.from_problem(problem, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="method"):
        Population.from_problem(problem, 10, np.random.default_rng(0), method="grid")


class _Forwarding:
    """Not a Problem: forwards exactly the interface Population.from_problem declares it uses."""

    def __init__(self, problem):
        self._problem = problem

    def sample(self, n, rng):
        return self._problem.sample(n, rng)

    def posterior(self, X):
        return self._problem.posterior(X)

    @property
    def uniform_dim(self):
        return self._problem.uniform_dim

    def sample_from_uniform(self, u):
        return self._problem.sample_from_uniform(u)


@pytest.mark.parametrize("method", ["sample", "qmc"])
def test_from_problem_uses_only_the_declared_interface(method):
    """Any object with sample, posterior, uniform_dim and sample_from_uniform gives the problem's population."""
    from mri_theory.engine.population import qmc_uniforms

    problem = get_problem("four-gaussian")
    want = Population.from_problem(problem, 33, np.random.default_rng(8), method=method)
    got = Population.from_problem(_Forwarding(problem), 33, np.random.default_rng(8), method=method)
    np.testing.assert_array_equal(got.X, want.X)
    np.testing.assert_array_equal(got.proba, want.proba)
    if method == "qmc":  # the problem's sampler applied to the scrambled Sobol' uniforms
        u = qmc_uniforms(problem.uniform_dim, 33, np.random.default_rng(8))
        np.testing.assert_array_equal(got.X, problem.sample_from_uniform(u))
    joint = problem.class_densities(got.X) * problem.prior  # Bayes' rule by hand
    np.testing.assert_allclose(got.proba, joint / joint.sum(axis=1, keepdims=True), rtol=1e-12)


@pytest.mark.parametrize("drop", ["sample", "posterior", "uniform_dim", "sample_from_uniform"])
def test_from_problem_names_the_missing_part_of_the_interface(drop):
    attrs = {k: v for k, v in vars(_Forwarding).items() if k not in (drop, "__dict__", "__weakref__")}
    lacking = type("Lacking", (), attrs)(get_problem("four-gaussian"))
    with pytest.raises(TypeError, match=rf"^problem must be a Problem .*got Lacking, which lacks {drop}$"):
        Population.from_problem(lacking, 10, np.random.default_rng(0))


# ---------------------------------------------------------------- statistics


def fixed_mean_classifier():
    X, y = exact_dataset()
    clf = GaussianMeanClassifier(sigma=1.0, prior=(0.5, 0.5)).fit(X, y, 2)
    true_loss = error_rate(TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9)))
    return clf, true_loss


def test_rao_blackwellised_error_is_less_noisy_than_sampled_labels():
    """The posterior-row estimate is E[label estimate | X]: same mean, smaller spread."""
    problem = get_problem("two-gaussians")
    clf, true_loss = fixed_mean_classifier()
    posterior_est, label_est = [], []
    for seq in np.random.SeedSequence(2024).spawn(60):
        X, y = problem.sample(1000, np.random.default_rng(seq))
        posterior_est.append(Population(X, hand_posterior_two_gaussians(X)).error_rate(clf))
        label_est.append(Population.from_labels(X, y, 2).error_rate(clf))
    posterior_est, label_est = np.array(posterior_est), np.array(label_est)
    # per point: sd(1 - p_pred(X)) ~ 0.20 against sqrt(L(1 - L)) ~ 0.39, a spread ratio of about 1.95;
    # with 60 replicates each sample sd is within ~9 % (1 sd) of its value, so 1.3 is a > 3 sd margin.
    assert label_est.std(ddof=1) > 1.3 * posterior_est.std(ddof=1)
    # both are unbiased for the closed-form error rate
    for est in (posterior_est, label_est):
        se = est.std(ddof=1) / np.sqrt(est.size)
        assert abs(est.mean() - true_loss) < 4.5 * se


def test_standard_error_matches_spread_over_independent_populations():
    problem = get_problem("two-gaussians")
    clf, true_loss = fixed_mean_classifier()
    for loss in ("error", "log"):
        estimates, ses = [], []
        for seq in np.random.SeedSequence(77).spawn(80):
            pop = Population.from_problem(problem, 500, np.random.default_rng(seq))
            estimates.append(pop.loss(clf, loss))
            ses.append(pop.standard_error(clf, loss))
        spread = np.std(estimates, ddof=1)
        # 80 replicates: the sample sd has a relative sd of about 1/sqrt(2 * 79) = 8 %,
        # so [0.75, 1.3] is more than 3 of those either side.
        assert 0.75 < np.mean(ses) / spread < 1.3, (loss, np.mean(ses), spread)
        if loss == "error":
            assert abs(np.mean(estimates) - true_loss) < 4.5 * spread / np.sqrt(80)


def test_standard_error_hand_formula_with_weights():
    rng = np.random.default_rng(8)
    n = 30
    rows = rng.dirichlet([1, 1], size=n)
    proba_hat = rng.dirichlet([1, 1], size=n)
    w = rng.uniform(0.1, 1.0, size=n)
    pop = Population(np.zeros((n, 1)), rows, w)
    values = np.array([1 - r[np.argmax(p)] for r, p in zip(rows, proba_hat, strict=True)])
    wn = w / w.sum()
    expected = np.sqrt(np.sum(wn**2 * (values - np.sum(wn * values)) ** 2))
    assert pop.standard_error(FixedProba(proba_hat)) == pytest.approx(expected, rel=1e-12)
    # uniform weights: the usual sd / sqrt(n) with ddof = 0
    upop = Population(np.zeros((n, 1)), rows)
    assert upop.standard_error(FixedProba(proba_hat)) == pytest.approx(values.std() / np.sqrt(n), rel=1e-12)


# ---------------------------------------------------------------- pointwise losses from scores


def reference_from_full_scores(rows, scores, loss):
    """pointwise_loss of softmax(scores): scores (M, k, n) -> (M, n)."""
    proba = special.softmax(scores, axis=1)  # -inf -> 0
    proba = np.moveaxis(proba, -1, 0)  # (n, M, k)
    return pointwise_loss(rows, proba, loss).T


def reference_from_log_odds(rows, log_odds, loss):
    """pointwise_loss of (1 - expit(s), expit(s)): log-odds (M, n) -> (M, n)."""
    p1 = special.expit(log_odds)
    proba = np.stack([1.0 - p1, p1], axis=-1)  # (M, n, 2)
    proba = np.moveaxis(proba, 1, 0)  # (n, M, 2)
    return pointwise_loss(rows, proba, loss).T


TIE = 1e-12  # the documented tie tolerance of the predicted class (mri_theory._utils.ties.TIE_TOLERANCE)


def hand_predicted(p):
    """The lowest label whose probability is within TIE (times max(1, max p)) of the largest."""
    top = max(p)
    return min(j for j, value in enumerate(p) if value >= top - TIE * max(1.0, abs(top)))


def hand_pointwise(rows, proba, loss):
    """pointwise_loss itself against the definition (rows (n, k), proba (n, k))."""
    out = np.empty(rows.shape[0])
    for i in range(rows.shape[0]):
        if loss == "error":
            out[i] = 1.0 - rows[i, hand_predicted(list(proba[i]))]
        else:
            out[i] = -np.sum(rows[i] * np.log(np.maximum(proba[i], FLOOR)))
    return out


@pytest.mark.parametrize("loss", ["error", "log"])
def test_pointwise_loss_against_definition(loss):
    rng = np.random.default_rng(0)
    rows = rng.dirichlet([1, 1, 1], size=50)
    proba = rng.dirichlet([0.3, 0.3, 0.3], size=50)
    proba[:5] = [0.5, 0.5, 0.0]
    np.testing.assert_allclose(pointwise_loss(rows, proba, loss), hand_pointwise(rows, proba, loss),
                               rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("gap, predicted", [(0.0, 1), (1e-16, 1), (5e-13, 1), (3e-12, 2), (1e-9, 2)])
def test_error_loss_near_ties_go_to_the_lowest_label(gap, predicted):
    """Classes within 1e-12 of the largest probability are tied: the lowest is predicted, whatever the rounding."""
    rows = np.array([[0.2, 0.3, 0.5]])
    p = 0.4
    proba = np.array([[1.0 - 2 * p - gap, p, p + gap]])
    assert pointwise_loss(rows, proba, "error")[0] == pytest.approx(1.0 - rows[0, predicted], abs=1e-15)
    scores = np.log(proba)[0][None, :, None]  # (M = 1, k, n = 1): the same probabilities as scores
    assert pointwise_loss_from_scores(rows, scores, "error")[0, 0] == pytest.approx(1.0 - rows[0, predicted],
                                                                                    abs=1e-15)


@pytest.mark.parametrize("gap, predicted", [(0.0, 0), (-1e-16, 0), (1e-16, 0), (5e-13, 0), (3e-12, 1),
                                            (-3e-12, 0)])
def test_error_loss_near_ties_from_log_odds(gap, predicted):
    """Two classes: p_1 - p_0 = gap; class 1 is predicted only if it leads by more than 1e-12."""
    rows = np.array([[0.25, 0.75]])
    s = np.log((0.5 + gap / 2) / (0.5 - gap / 2))
    expected = 1.0 - rows[0, predicted]
    assert pointwise_loss_from_scores(rows, np.array([s]), "error", log_odds=True)[0] == expected
    assert pointwise_loss(rows, np.array([[0.5 - gap / 2, 0.5 + gap / 2]]), "error")[0] == expected


def test_predict_breaks_rounding_ties_by_the_lowest_label():
    """Two classes with one point each at the same place are tied everywhere: predict the lower label.

    The probabilities are equal in exact arithmetic; which one rounds higher must not matter.
    """
    X = np.array([[0.3], [0.3], [2.0]])
    model = GaussianMeanClassifier().fit(X, [2, 1, 0], 3)
    P = model.predict_proba(np.array([[0.1], [0.7]]))
    assert np.all(np.abs(P[:, 1] - P[:, 2]) <= 1e-15)
    np.testing.assert_array_equal(model.predict(np.array([[0.1], [0.7]])), [1, 1])


def _draw_scores(rng, shape, with_inf):
    scores = rng.normal(scale=4.0, size=shape)
    # exact ties and values far beyond the floor
    scores.flat[:: 7] = 0.0
    scores.flat[1:: 11] = rng.choice([-60.0, 60.0, -40.0], size=scores.flat[1::11].shape)
    if with_inf:
        scores.flat[2:: 5] = -np.inf
    return scores


@pytest.mark.parametrize("loss", ["error", "log"])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("M", [1, 2, 3, 5])
def test_scores_agree_with_softmax_full_scores(loss, k, M):
    rng = np.random.default_rng(100 * k + M)
    n = 40
    rows = rng.dirichlet(np.ones(k), size=n)
    rows[:4] = np.eye(k)[rng.integers(0, k, 4)]  # one-hot rows (zero entries)
    scores = _draw_scores(rng, (M, k, n), with_inf=True)
    top_inf = np.all(np.isneginf(scores), axis=1)  # every class -inf: not a valid model, make one finite
    scores[:, 0, :][top_inf] = 0.0
    got = pointwise_loss_from_scores(rows, scores, loss)
    assert got.shape == (M, n)
    np.testing.assert_allclose(got, reference_from_full_scores(rows, scores, loss), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("loss", ["error", "log"])
@pytest.mark.parametrize("M", [1, 2, 3, 5])
def test_scores_agree_with_softmax_two_class_log_odds(loss, M):
    """Two classes may pass log-odds ``s_1 - s_0`` of shape ``(M, n)`` (``log_odds=True``), including ``±inf``.

    ``M = 2`` (e.g. one candidate times two labels) is a log-odds array whose
    shape ``(2, n)`` also looks like one model's ``(k, n)`` scores.
    """
    rng = np.random.default_rng(7 + M)
    n = 30
    rows = rng.dirichlet([1, 1], size=n)
    rows[:3] = np.eye(2)[[0, 1, 1]]
    s = _draw_scores(rng, (M, n), with_inf=False)
    s[:, 3] = np.inf
    s[:, 4] = -np.inf
    got = pointwise_loss_from_scores(rows, s, loss, log_odds=True)
    assert got.shape == (M, n)
    np.testing.assert_allclose(got, reference_from_log_odds(rows, s, loss), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("loss", ["error", "log"])
def test_two_class_scores_of_shape_2_n_are_class_scores_by_default(loss):
    """Without ``log_odds`` a ``(2, n)`` array is one model's scores for classes 0 and 1."""
    rng = np.random.default_rng(21)
    rows = rng.dirichlet([1, 1], size=12)
    scores = rng.normal(scale=3, size=(2, 12))
    got = pointwise_loss_from_scores(rows, scores, loss)
    assert got.shape == (12,)
    np.testing.assert_allclose(got, reference_from_full_scores(rows, scores[None], loss)[0], rtol=1e-12, atol=1e-12)
    as_log_odds = pointwise_loss_from_scores(rows, scores[1] - scores[0], loss, log_odds=True)
    np.testing.assert_allclose(as_log_odds, got, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("loss", ["error", "log"])
def test_scores_one_dimensional_log_odds(loss):
    rng = np.random.default_rng(4)
    rows = rng.dirichlet([1, 1], size=9)
    s = rng.normal(scale=3, size=9)
    s[0] = 0.0  # a tie: class 0
    got = pointwise_loss_from_scores(rows, s, loss, log_odds=True)
    np.testing.assert_allclose(got, reference_from_log_odds(rows, s[None], loss)[0], rtol=1e-12, atol=1e-12)


@settings(deadline=None, derandomize=True, max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 4), n=st.integers(1, 25), M=st.integers(1, 4),
       loss=st.sampled_from(["error", "log"]), with_inf=st.booleans())
def test_scores_agree_with_softmax_property(seed, k, n, M, loss, with_inf):
    rng = np.random.default_rng(seed)
    rows = rng.dirichlet(np.ones(k), size=n)
    scores = _draw_scores(rng, (M, k, n), with_inf=with_inf)
    scores[:, 0, :][np.all(np.isneginf(scores), axis=1)] = 1.0
    got = pointwise_loss_from_scores(rows, scores, loss)
    np.testing.assert_allclose(got, reference_from_full_scores(rows, scores, loss), rtol=1e-12, atol=1e-12)
