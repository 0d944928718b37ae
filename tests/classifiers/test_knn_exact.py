"""The exact k-NN truth (:meth:`KNN.exact_loss`, its local retraining path, :func:`partition_losses`).

Independent references:

* the loss by brute-force line integration (``tests/_reference.py``): every pair's bisector crossed along lines of
  each component's whitened coordinates, a k-NN written out from its definition at each segment, the outer
  integral split at every pair of bisectors' intersection; in 1-D, normal CDFs between all pairwise midpoints;
* randomised quasi-Monte Carlo populations at ``|D_S| = 200``, within a stated number of standard errors;
* plain refits, each scored exactly, for the fast path of the retrained models (ties, coincident points, a
  candidate on a training point, fewer points than ``k``, three classes, 1-D, a fixed scale);
* for :func:`partition_losses` itself: products of normal CDF differences (rectangles under an axis-aligned
  Gaussian) and 2-D quadrature (a triangle under a correlated one).
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import example, given, settings, st
from _reference import knn_exact_loss_1d, knn_exact_loss_2d
from scipy import integrate, special

from mri_theory.classifiers import KNN, get_classifier
from mri_theory.engine import Population, current_and_future_losses, exact_truth_available, resolve_truth, true_q_c
from mri_theory.engine.exact import MixtureTruth, partition_losses
from mri_theory.problems import GaussianMixtureProblem, get_problem


def _reference(problem, X, y, k, kernel, loss):
    truth = MixtureTruth.from_problem(problem)
    if problem.dim == 1:
        return knn_exact_loss_1d(X, y, k, kernel, problem.n_classes, truth.weights, truth.means[:, 0],
                                 np.sqrt(truth.covariances[:, 0, 0]), truth.labels, loss)
    return knn_exact_loss_2d(X, y, k, kernel, problem.n_classes, truth.weights, truth.means, truth.covariances,
                             truth.labels, loss)


@pytest.mark.parametrize("problem_name", ["four-gaussian", "three-gaussians", "quadratic", "two-gaussians"])
@pytest.mark.parametrize("kernel", ["rectangular", "optimal"])
@pytest.mark.parametrize("loss", ["error", "log"])
def test_the_exact_loss_equals_brute_force_line_integration(problem_name, kernel, loss):
    """Seven training points (three classes on three-gaussians, unequal variances on quadratic, 1-D on
    two-gaussians), k = 3 and 5: the exact loss equals the independent line integration to 1e-13."""
    problem = get_problem(problem_name)
    X, y = problem.sample(7, np.random.default_rng(5))
    exact = Population.exact(problem)
    for k in (3, 5):
        value = exact.loss(KNN(k, kernel).fit(X, y, problem.n_classes), loss)
        assert value == pytest.approx(_reference(problem, X, y, k, kernel, loss), abs=1e-13)


def test_the_exact_loss_of_a_fixed_scale_is_the_loss_in_scaled_coordinates():
    """A fixed per-covariate scale divides the coordinates: the reference on the scaled points and the truth
    scaled the same way."""
    problem = get_problem("quadratic")
    X, y = problem.sample(7, np.random.default_rng(8))
    scale = np.array([0.5, 2.0])
    value = Population.exact(problem).loss(KNN(3, "optimal", scale=scale).fit(X, y, 2), "error")
    truth = MixtureTruth.from_problem(problem)
    reference = knn_exact_loss_2d(X / scale, y, 3, "optimal", 2, truth.weights, truth.means / scale,
                                  truth.covariances / np.outer(scale, scale), truth.labels, "error")
    assert value == pytest.approx(reference, abs=1e-13)
    assert value > 0.25


@pytest.mark.parametrize("problem_name", ["four-gaussian", "oscillating"])
def test_the_exact_loss_at_200_points_is_within_four_standard_errors_of_randomised_qmc(problem_name):
    """|D_S| = 200, kknn5: 16 independent scrambled-Sobol' populations of 2^14 points give unbiased, i.i.d.
    estimates; the exact loss lies within 4 standard errors of their mean (and the error is far below 1e-2)."""
    problem = get_problem(problem_name)
    rng = np.random.default_rng(11)
    X, y = problem.sample(200, rng)
    model = get_classifier("kknn5").fit(X, y, 2)
    exact = Population.exact(problem).loss(model, "error")
    values = [Population.from_problem(problem, 2**14, rng, method="qmc").loss(model, "error") for _ in range(16)]
    se = np.std(values, ddof=1) / 4
    assert abs(exact - np.mean(values)) <= 4 * se
    assert se < 2e-3


def _configurations():
    """(problem, X, y, candidates, classifier) covering the fast path's cases."""
    rng = np.random.default_rng(2)
    four = get_problem("four-gaussian")
    X, y = four.sample(25, rng)
    candidates, _ = four.sample(5, rng)
    yield "four-gaussian", four, X, y, candidates
    X3, y3 = get_problem("three-gaussians").sample(20, rng)
    yield "three classes", get_problem("three-gaussians"), X3, y3, get_problem("three-gaussians").sample(4, rng)[0]
    X1, y1 = get_problem("two-gaussians").sample(12, rng)
    yield "1-D", get_problem("two-gaussians"), X1, y1, get_problem("two-gaussians").sample(5, rng)[0]
    small, small_y = four.sample(3, rng)
    yield "n < k", four, small, np.array([0, 1, 1]), four.sample(3, rng)[0]
    twins = np.vstack([X[:10], X[:3]])  # coincident training points with other labels
    yield "coincident points", four, twins, np.append(y[:10], 1 - y[:3]), np.vstack([X[4], candidates[:2]])


@pytest.mark.parametrize("case", list(_configurations()), ids=lambda c: c[0])
@pytest.mark.parametrize("kernel", ["rectangular", "optimal"])
@pytest.mark.parametrize("loss", ["error", "log"])
def test_the_exact_fast_path_equals_exact_refits(case, kernel, loss):
    """The local changes of every candidate and label == a refit on D ∪ (x, j) scored exactly, to 1e-12: the
    candidate on a training point (it comes after the point), coincident training points of other labels, three
    classes, 1-D, fewer points than k (every neighbourhood changes)."""
    _, problem, X, y, candidates = case
    exact = Population.exact(problem)
    current, fast = current_and_future_losses(KNN(5, kernel), X, y, candidates, exact, loss)
    refit_current, refit = current_and_future_losses(KNN(5, kernel), X, y, candidates, exact, loss, method="refit")
    assert current == pytest.approx(refit_current, abs=1e-13)
    np.testing.assert_allclose(fast, refit, rtol=0, atol=1e-12)


def test_a_fixed_scale_keeps_the_exact_fast_path_and_a_training_scale_refits():
    problem = get_problem("four-gaussian")
    rng = np.random.default_rng(4)
    X, y = problem.sample(20, rng)
    candidates, _ = problem.sample(4, rng)
    exact = Population.exact(problem)
    for scale in (np.array([0.3, 1.7]), "train"):
        fast = current_and_future_losses(KNN(4, "optimal", scale=scale), X, y, candidates, exact, "error")
        refit = current_and_future_losses(KNN(4, "optimal", scale=scale), X, y, candidates, exact, "error",
                                          method="refit")
        np.testing.assert_allclose(fast[1], refit[1], rtol=0, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 9), k=st.integers(1, 6), kernel=st.sampled_from(["rectangular", "optimal"]),
       loss=st.sampled_from(["error", "log"]), seed=st.integers(0, 2**31 - 1), grid=st.booleans())
@example(n=2, k=2, kernel="rectangular", loss="error", seed=1723, grid=True)  # two coincident sites (found)
def test_property_the_exact_fast_path_equals_refits(n, k, kernel, loss, seed, grid):
    """Random small training sets (on a coarse grid with ``grid``, so that points and distances coincide), any k:
    the fast path equals exact refits."""
    problem = get_problem("four-gaussian")
    rng = np.random.default_rng(seed)
    X, y = problem.sample(n, rng)
    candidates, _ = problem.sample(3, rng)
    if grid:
        X, candidates = np.round(X * 4) / 4, np.round(candidates * 4) / 4
    exact = Population.exact(problem)
    fast = current_and_future_losses(KNN(k, kernel), X, y, candidates, exact, loss)
    refit = current_and_future_losses(KNN(k, kernel), X, y, candidates, exact, loss, method="refit")
    assert fast[0] == pytest.approx(refit[0], abs=1e-13)
    np.testing.assert_allclose(fast[1], refit[1], rtol=0, atol=1e-12)


def test_the_true_q_c_of_kknn5_is_within_the_standard_error_of_sampled_populations():
    problem = get_problem("four-gaussian")
    rng = np.random.default_rng(9)
    X, y = problem.sample(40, rng)
    candidates, _ = problem.sample(8, rng)
    clf = get_classifier("kknn5")
    exact = true_q_c(problem, clf, X, y, candidates, Population.exact(problem))
    sampled = np.array([true_q_c(problem, clf, X, y, candidates, Population.from_problem(problem, 2**14, rng, "qmc"))
                        for _ in range(16)])
    se = sampled.std(axis=0, ddof=1) / 4
    assert np.all(np.abs(exact - sampled.mean(axis=0)) <= 4 * se + 1e-12)


@pytest.mark.parametrize("name", ["kknn5", "knn5", "knn21"])
def test_the_runners_take_the_exact_truth_for_k_nn(name):
    problem = get_problem("four-gaussian")
    assert exact_truth_available(problem, get_classifier(name))
    assert resolve_truth("auto", problem, get_classifier(name)) == "exact"


# -- partition_losses ----------------------------------------------------------------------------------------------


def _polygon_terms(vertices, coefficient):
    """The boundary terms of one counter-clockwise polygon: per edge, +coef at its end and -coef at its start."""
    lines, points, coefs = [], [], []
    m = len(vertices)
    for i in range(m):
        p, q = np.asarray(vertices[i], float), np.asarray(vertices[(i + 1) % m], float)
        for point, sign in ((q, 1.0), (p, -1.0)):
            lines.append([*p, *(q - p)])
            points.append(point)
            coefs.append(sign * np.asarray(coefficient, float))
    return np.array(lines), np.array(points), np.array(coefs)


def test_partition_losses_of_rectangles_are_products_of_normal_cdf_differences():
    truth = MixtureTruth.from_arrays([0.3, 0.7], [[0.2, -0.1], [1.0, 0.5]],
                                     [np.diag([0.5, 2.0]), np.diag([1.5, 0.2])], [0, 1], 2)
    rectangle = [(-0.4, -1.0), (1.3, -1.0), (1.3, 0.8), (-0.4, 0.8)]
    lines, points, coefs = _polygon_terms(rectangle, [1.0, 2.0])  # the function 1 for class 0, 2 for class 1
    value = partition_losses(truth, lines, points, coefs, np.zeros(len(lines), dtype=int), 1)[0]
    expected = 0.0
    for w, mu, cov, c in zip(truth.weights, truth.means, truth.covariances, (1.0, 2.0), strict=True):
        sd = np.sqrt(np.diag(cov))
        px = special.ndtr((1.3 - mu[0]) / sd[0]) - special.ndtr((-0.4 - mu[0]) / sd[0])
        py = special.ndtr((0.8 - mu[1]) / sd[1]) - special.ndtr((-1.0 - mu[1]) / sd[1])
        expected += w * c * px * py
    assert value == pytest.approx(expected, abs=1e-15)


def test_partition_losses_of_a_triangle_under_a_correlated_gaussian_equals_quadrature():
    cov = np.array([[1.0, 0.6], [0.6, 0.5]])
    truth = MixtureTruth.from_arrays([1.0], [[0.3, -0.2]], [cov], [0], 2)
    triangle = [(-1.0, -1.5), (2.0, 0.0), (0.0, 1.0)]
    lines, points, coefs = _polygon_terms(triangle, [1.0, 0.0])
    value = partition_losses(truth, lines, points, coefs, np.zeros(len(lines), dtype=int), 1)[0]
    inv, det = np.linalg.inv(cov), np.linalg.det(cov)

    def density(y, x):
        d = np.array([x - 0.3, y + 0.2])
        return np.exp(-0.5 * d @ inv @ d) / (2 * np.pi * np.sqrt(det))

    def edge(x, a, b):  # the line through vertices a and b at abscissa x
        (x0, y0), (x1, y1) = a, b
        return y0 + (y1 - y0) * (x - x0) / (x1 - x0)

    left, _ = integrate.dblquad(density, -1.0, 0.0, lambda x: edge(x, triangle[0], triangle[1]),
                                lambda x: edge(x, triangle[0], triangle[2]), epsabs=1e-13, epsrel=1e-13)
    right, _ = integrate.dblquad(density, 0.0, 2.0, lambda x: edge(x, triangle[0], triangle[1]),
                                 lambda x: edge(x, triangle[2], triangle[1]), epsabs=1e-13, epsrel=1e-13)
    assert value == pytest.approx(left + right, abs=1e-11)


def test_partition_losses_cancels_a_shared_edge_and_groups_terms():
    """Two squares sharing an edge with equal values sum to their union; groups keep terms apart."""
    truth = MixtureTruth.from_problem(get_problem("four-gaussian"))
    a = _polygon_terms([(-1, 0), (0, 0), (0, 1), (-1, 1)], [1.0, 1.0])
    b = _polygon_terms([(0, 0), (1, 0), (1, 1), (0, 1)], [1.0, 1.0])
    union = _polygon_terms([(-1, 0), (1, 0), (1, 1), (-1, 1)], [1.0, 1.0])
    both = [np.concatenate(v) for v in zip(a, b, strict=True)]
    groups = np.repeat([0, 1], [len(a[0]), len(b[0])])
    split = partition_losses(truth, *both, groups, 2)
    whole = partition_losses(truth, *union, np.zeros(len(union[0]), dtype=int), 1)[0]
    assert split.sum() == pytest.approx(whole, abs=1e-15)
    assert split[0] == pytest.approx(partition_losses(truth, *a, np.zeros(len(a[0]), dtype=int), 1)[0], abs=1e-16)


@pytest.mark.parametrize(("change", "match"), [
    ({"truth": "four-gaussian"}, "truth must be a MixtureTruth"),
    ({"lines": np.zeros((2, 3))}, r"lines must have shape \(R, 4\)"),
    ({"vertices": np.zeros((3, 2))}, r"vertices must have shape"),
    ({"rows": np.array([0, 2])}, r"rows must lie in 0 \.\. R - 1"),
    ({"rows": np.array([0.0, 1.0])}, "rows must be an integer array"),
    ({"coefficients": np.zeros((2, 3))}, r"coefficients must have shape"),
    ({"groups": np.array([0.0, 0.0])}, "groups must be an integer array"),
    ({"groups": np.array([0, 2])}, r"groups must lie in 0 \.\. n_groups - 1"),
    ({"lines": np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]])}, "every direction must be non-zero"),
    ({"lines": np.array([[np.nan, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0]])}, "lines"),
    ({"n_groups": 0}, "n_groups"),
])
def test_partition_losses_refuses_bad_input_by_name(change, match):
    truth = MixtureTruth.from_problem(get_problem("four-gaussian"))
    args = {"truth": truth, "lines": np.array([[0.0, 0.0, 1.0, 0.0]] * 2), "vertices": np.zeros((2, 2)),
            "coefficients": np.zeros((2, 2)), "groups": np.array([0, 1]), "n_groups": 2, **change}
    with pytest.raises((TypeError, ValueError), match=match):
        partition_losses(**args)


def test_partition_losses_refuses_a_one_dimensional_truth():
    truth = MixtureTruth.from_problem(get_problem("two-gaussians"))
    with pytest.raises(ValueError, match="truth must be two-dimensional"):
        partition_losses(truth, np.zeros((0, 4)), np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, dtype=int), 1)


def test_exact_loss_refuses_a_truth_of_another_shape():
    model = KNN(3).fit(get_problem("four-gaussian").sample(6, np.random.default_rng(0))[0], [0, 1, 0, 1, 0, 1], 2)
    with pytest.raises(ValueError, match="truth has dimension 1"):
        model.exact_loss(MixtureTruth.from_problem(get_problem("two-gaussians")), "error")
    three = MixtureTruth.from_problem(get_problem("three-gaussians"))
    with pytest.raises(ValueError, match="3 classes"):
        model.exact_loss(three, "error")


def test_a_problem_with_a_distant_component_keeps_its_mass():
    """A component of class 0 far from every training point, where the nearest point is of class 1, adds its
    whole weight (1/4) to the error: the box reaches 12 standard deviations around every component."""
    problem = GaussianMixtureProblem("far", [([0.5, 0.5], [[0.0, 0.0], [40.0, 30.0]], [np.eye(2) * 0.1] * 2),
                                             ([1.0], [[1.0, 0.0]], [np.eye(2) * 0.1])], [0.5, 0.5])
    X = np.array([[0.0, 0.1], [1.0, 0.1], [0.1, -0.2], [0.9, 0.3]])
    y = np.array([0, 1, 0, 1])
    value = Population.exact(problem).loss(KNN(1).fit(X, y, 2), "error")
    truth = MixtureTruth.from_problem(problem)
    reference = knn_exact_loss_2d(X, y, 1, "rectangular", 2, truth.weights, truth.means, truth.covariances,
                                  truth.labels, "error")
    assert value == pytest.approx(reference, abs=1e-13)
    assert value > 0.25


@pytest.mark.parametrize("labels", [[0, 0], [0, 1], [1, 1, 1]])
@pytest.mark.parametrize("kernel", ["rectangular", "optimal"])
def test_coincident_sites_with_k_equal_to_n_predict_one_class_everywhere(labels, kernel):
    """Every site at one point and k = n: every point has the same ordered neighbours, so the prediction is one
    class everywhere (the vote's class; a tie goes to the lowest label) and the error rate is one minus that
    class's prior.  (Their zero extent once made the search grid's cells 1e-150 wide and lost the plane: 0.)"""
    problem = get_problem("four-gaussian")
    y = np.array(labels)
    X = np.tile([[-0.75, 0.5]], (y.size, 1))
    model = KNN(y.size, kernel).fit(X, y)
    votes = np.bincount(y, minlength=problem.n_classes)
    predicted = int(np.argmax(votes))  # with rank weights the lower index ranks first: the same class here
    assert Population.exact(problem).loss(model, "error") == pytest.approx(1 - problem.prior[predicted], abs=1e-14)
