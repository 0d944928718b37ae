"""Exact error rates of RBF-kernel rules (:mod:`mri_theory.engine.kernel_rules`) and the SVM's exact path,
against independent computations.

Independent references:

* closed forms: two kernels with opposite coefficients predict the nearer point, so the boundary is the
  perpendicular bisector and each component's wrong mass is a normal CDF of its standardised signed distance;
  with one kernel per class and three classes the regions are the Voronoi cells of the points, whose Gaussian
  masses the exact 1-NN path integrates in closed form (Owen's T, :func:`mri_theory.engine.exact.partition_losses`);
* nested adaptive quadrature by SciPy: :func:`scipy.integrate.quad` over :math:`x_1` of the line mass, the
  line's class changes bracketed on a dense grid of the fitted SVM's own ``predict_proba`` and solved by
  :func:`scipy.optimize.brentq`, the masses from :mod:`scipy.stats`;
* quasi-Monte Carlo: ``2**18`` scrambled Sobol points of the problem with exact posteriors (a sampled
  :class:`~mri_theory.engine.Population`), within 4.5 of its standard errors;
* plain refits: the retrained models' exact error rates (the solution path's machines) against SVMs refitted
  on the data with the candidate and integrated the same way.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from mri_theory.classifiers import KNN, SVM
from mri_theory.engine import MixtureTruth, Population
from mri_theory.engine.kernel_rules import kernel_losses
from mri_theory.problems import get_problem


def _anisotropic_truth(d: int) -> MixtureTruth:
    """Three components of two classes with correlated, unequal covariances."""
    if d == 1:
        return MixtureTruth.from_arrays([0.3, 0.3, 0.4], [[-1.2], [0.4], [1.5]], [[[0.8]], [[1.3]], [[0.5]]],
                                        [0, 1, 0], 2)
    cov = [[[1.0, 0.3], [0.3, 0.6]], [[0.7, -0.2], [-0.2, 1.4]], [[0.5, 0.1], [0.1, 0.5]]]
    return MixtureTruth.from_arrays([0.3, 0.3, 0.4], [[-1.0, 0.2], [0.8, -0.5], [1.4, 1.1]], cov, [0, 1, 0], 2)


@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("gamma", [0.3, 1.7])
def test_two_opposite_kernels_have_the_bisector_as_boundary(d, gamma):
    truth = _anisotropic_truth(d)
    p0, p1 = (np.array([-0.7]), np.array([0.9])) if d == 1 else (np.array([-0.7, 0.4]), np.array([0.9, -0.3]))
    scale = 2.5
    rates = kernel_losses(truth, [p0, p1], [[[0.0, 0.0], [-scale, scale]]], [[0.0, 0.0]], gamma)
    u, theta = p1 - p0, 0.5 * (p1 @ p1 - p0 @ p0)  # class 1 where u.x > theta (nearer p1)
    expected = 0.0
    for w, mean, cov, label in zip(truth.weights, truth.means, truth.covariances, truth.labels, strict=True):
        z = (u @ mean - theta) / np.sqrt(u @ cov @ u)
        expected += w * (stats.norm.cdf(-z) if label == 1 else stats.norm.sf(-z))
    assert abs(rates.loss[0] - expected) < 1e-12
    assert rates.unresolved[0] < 1e-14 and rates.estimate[0] < 1e-11


def test_one_kernel_per_class_gives_the_voronoi_regions_of_exact_1nn():
    truth = MixtureTruth.from_problem(get_problem("three-gaussians"))
    points = np.array([[-0.6, 0.3], [0.8, 0.5], [0.1, -0.9]])
    rates = kernel_losses(truth, points, [np.eye(3)], [np.zeros(3)], 0.8)
    nearest = KNN(1).fit(points, np.arange(3), n_classes=3)  # its exact path: the Voronoi polygons' masses
    expected = Population.exact(get_problem("three-gaussians")).loss(nearest, "error")
    assert abs(rates.loss[0] - expected) < 1e-11


def _line_law(truth: MixtureTruth, x1: float, weight: float, mean: np.ndarray, cov: np.ndarray):
    """A component's weight on the line :math:`x_1` (its marginal density there; in 1-D its weight) and the
    mean and deviation of its conditional law of the last coordinate."""
    if truth.dim == 2:
        s11 = cov[0, 0]
        return (weight * stats.norm.pdf(x1, mean[0], np.sqrt(s11)), mean[1] + cov[0, 1] / s11 * (x1 - mean[0]),
                np.sqrt(cov[1, 1] - cov[0, 1] ** 2 / s11))
    return weight, mean[0], np.sqrt(cov[0, 0])


def _binary_rule(model: SVM) -> tuple[np.ndarray, np.ndarray]:
    """A two-class SVM as a kernel rule, from its public attributes: the larger class scores
    :math:`-(A f + B)` against 0, over the training points."""
    (slope, offset), = model.sigmoids_
    S = np.zeros((1, 2, model.dual_coef_.shape[1]))
    S[0, 1] = -slope * model.dual_coef_[0]
    return S, np.array([[0.0, -(slope * model.intercept_[0] + offset)]])


def _line_mass_reference(model: SVM, truth: MixtureTruth, x1: float, grid: int = 3000) -> float:
    """The wrong mass on the line (1-D: the axis) from the model's own probabilities: class changes bracketed
    on a dense grid and solved by brentq, masses from scipy.stats (independent of the module)."""
    d = truth.dim
    total = 0.0
    for w, mean, cov, label in zip(truth.weights, truth.means, truth.covariances, truth.labels, strict=True):
        weight, mu, sd = _line_law(truth, x1, w, mean, cov)
        if weight < 1e-18:
            continue

        def margin(t):
            x = np.array([[x1, t]]) if d == 2 else np.array([[t]])
            p = model.predict_proba(x)[0]
            return p[1] - p[0]

        ts = np.linspace(mu - 9.5 * sd, mu + 9.5 * sd, grid)
        xs = np.column_stack([np.full(grid, x1), ts]) if d == 2 else ts[:, None]
        proba = model.predict_proba(xs)
        m = proba[:, 1] - proba[:, 0]
        edges = [-np.inf]
        for i in np.flatnonzero(np.sign(m[:-1]) != np.sign(m[1:])):
            edges.append(optimize.brentq(margin, ts[i], ts[i + 1], xtol=1e-15, rtol=1e-15))
        edges.append(np.inf)
        for a, b in zip(edges[:-1], edges[1:], strict=True):
            mid = 0.5 * (a + b) if np.isfinite(a) and np.isfinite(b) else (b - 1.0 if np.isfinite(b) else a + 1.0)
            if not np.isfinite(mid):
                mid = mu
            predicted = 1 if margin(mid) > 0 else 0
            if predicted != label:
                total += weight * (stats.norm.cdf(b, mu, sd) - stats.norm.cdf(a, mu, sd))
    return total


def test_the_svm_error_rate_agrees_with_nested_scipy_quadrature_in_1d():
    truth = _anisotropic_truth(1)
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 2, 14)
    X = rng.normal(0.0, 1.0, (14, 1)) + (labels[:, None] - 0.5)
    model = SVM(C=2.0, gamma=1.3).fit(X, labels)
    assert abs(model.exact_loss(truth, "error") - _line_mass_reference(model, truth, 0.0)) < 1e-12


def test_the_svm_error_rate_agrees_with_nested_scipy_quadrature_in_2d():
    problem = get_problem("four-gaussian")
    truth = MixtureTruth.from_problem(problem)
    X, y = problem.sample(12, np.random.default_rng(5))
    model = SVM().fit(X, y)
    lo = (truth.means[:, 0] - 9.5 * np.sqrt(truth.covariances[:, 0, 0])).min()
    hi = (truth.means[:, 0] + 9.5 * np.sqrt(truth.covariances[:, 0, 0])).max()
    cuts = np.linspace(lo, hi, 41)
    reference = sum(integrate.quad(lambda x1: _line_mass_reference(model, truth, x1, grid=600), a, b,
                                   epsabs=1e-12, epsrel=1e-12, limit=200)[0]
                    for a, b in zip(cuts[:-1], cuts[1:], strict=True))
    assert abs(model.exact_loss(truth, "error") - reference) < 1e-9


@pytest.mark.parametrize("name,n,platt", [("four-gaussian", 40, "train"), ("oscillating", 60, "train"),
                                          ("three-gaussians", 30, "train"), ("sharp", 30, "cv"),
                                          ("triangles", 50, "train")])
def test_the_svm_error_rate_agrees_with_quasi_monte_carlo(name, n, platt):
    problem = get_problem(name)
    rng = np.random.default_rng(11)
    X, y = problem.sample(n, rng)
    model = SVM(platt=platt).fit(X, y)
    exact = model.exact_loss(MixtureTruth.from_problem(problem), "error")
    value, se = Population.from_problem(problem, 2**18, rng, method="qmc").loss_and_standard_error(model, "error")
    assert abs(exact - value) < 4.5 * se


def test_retrained_models_equal_refits_and_the_sampled_fast_path():
    problem = get_problem("four-gaussian")
    truth = MixtureTruth.from_problem(problem)
    rng = np.random.default_rng(2)
    X, y = problem.sample(25, rng)
    model = SVM().fit(X, y)
    candidates = problem.sample(4, rng)[0]
    future = model._exact_future_losses(candidates, truth, "error")
    for a, x in enumerate(candidates):
        for j in range(2):
            refit = SVM().fit(np.vstack([X, x]), np.append(y, j), n_classes=2)
            assert abs(future[a, j] - refit.exact_loss(truth, "error")) < 1e-9
    future_log = model._exact_future_losses(candidates[:2], truth, "log")
    for a, x in enumerate(candidates[:2]):
        for j in range(2):
            refit = SVM().fit(np.vstack([X, x]), np.append(y, j), n_classes=2)
            assert abs(future_log[a, j] - refit.exact_loss(truth, "log")) < 1e-9
    population = Population.from_problem(problem, 2**18, rng, method="qmc")
    _, sampled = model.retraining_losses(candidates, population, "error")
    se = max(population.standard_error(model, "error"), 1e-4)
    assert np.all(np.abs(future - sampled) < 5 * se)


def test_a_class_absent_from_the_training_data_is_never_predicted():
    truth = MixtureTruth.from_problem(get_problem("three-gaussians"))
    X = np.array([[-1.0, 0.0], [1.0, 0.2], [0.0, 1.0], [0.3, -1.0]])
    model = SVM().fit(X, np.array([0, 2, 0, 2]), n_classes=3)
    exact = model.exact_loss(truth, "error")
    # class 1 is absent: its components are all wrong, and the two others split as the binary machine says
    assert exact >= truth.weights[truth.labels == 1].sum()
    value, se = Population.from_problem(get_problem("three-gaussians"), 2**18, np.random.default_rng(0),
                                        method="qmc").loss_and_standard_error(model, "error")
    assert abs(exact - value) < 4.5 * se


def test_bad_arguments_are_refused_with_their_names():
    truth = _anisotropic_truth(2)
    good = dict(truth=truth, points=[[0.0, 0.0], [1.0, 0.0]], scores=[[[0.0, 0.0], [-1.0, 1.0]]],
                constants=[[0.0, 0.0]], gamma=0.5)
    with pytest.raises(TypeError, match="truth"):
        kernel_losses(**{**good, "truth": "four-gaussian"})
    with pytest.raises(ValueError, match="scores"):
        kernel_losses(**{**good, "scores": [[0.0, 1.0]]})
    with pytest.raises(ValueError, match="points"):
        kernel_losses(**{**good, "points": [[0.0], [1.0]]})
    with pytest.raises(ValueError, match="constants"):
        kernel_losses(**{**good, "constants": [0.0, 0.0]})
    with pytest.raises(ValueError, match="gamma"):
        kernel_losses(**{**good, "gamma": -1.0})
    with pytest.raises(ValueError, match="present"):
        kernel_losses(**good, present=np.zeros((1, 2), dtype=bool))
    with pytest.raises(ValueError, match="loss"):
        SVM().fit(np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([0, 1])).exact_loss(truth, "lc")
    with pytest.raises(ValueError, match="loss"):
        kernel_losses(**good, loss="lc")
    with pytest.raises(ValueError, match="floor"):
        kernel_losses(**good, loss="log", floor=1.5)


@pytest.mark.parametrize("name", ["four-gaussian", "quadratic", "triangles", "oscillating", "sharp"])
def test_continued_roots_equal_roots_isolated_on_every_line(name):
    """The continuation (a panel's roots followed from line to line) against the certified subdivision on every
    line: the same error rates to the quadrature's tolerance, over learning-curve sizes and both Platt fits."""
    problem = get_problem(name)
    truth = MixtureTruth.from_problem(problem)
    rng = np.random.default_rng(7)
    for n, platt in ((4, "train"), (15, "cv"), (50, "train"), (150, "train")):
        X, y = problem.sample(n, rng)
        model = SVM(platt=platt).fit(X, y)
        args = (truth, X) + _binary_rule(model) + (model.gamma_,)
        continued, isolated = kernel_losses(*args), kernel_losses(*args, isolate_every_line=True)
        assert abs(continued.loss[0] - isolated.loss[0]) < 1e-11
        assert continued.unresolved[0] < 1e-14 and continued.estimate[0] < 1e-11


def test_a_pair_of_roots_born_far_from_the_components_is_counted():
    """A Triangles state of the abstract study (the SVM's BMRI curve, replicate 4, 181 labels; issue 53) whose
    boundary has a vertical tangency where every component is beyond ``REACH`` deviations: the pair of roots born
    there travels into the components' mass within one panel.  While the quadtree skipped such cells the
    continued lines carried the panel's far end's count (no roots) back to its start, and the error rate came out
    0.1497 instead of 0.1123.  Now: the continuation equals every line isolated, and both agree with quasi-Monte
    Carlo (2^20 points, within 4.5 standard errors, about 1.5e-4: the wrong value is 250 of them away)."""
    data = np.load(Path(__file__).parent.parent / "data" / "svm_triangles_far_event.npz")
    problem = get_problem("triangles")
    truth = MixtureTruth.from_problem(problem)
    model = SVM().fit(data["X"], data["y"], problem.n_classes)
    args = (truth, data["X"]) + _binary_rule(model) + (model.gamma_,)
    continued, isolated = kernel_losses(*args), kernel_losses(*args, isolate_every_line=True)
    assert abs(continued.loss[0] - isolated.loss[0]) < 1e-11
    assert abs(model.exact_loss(truth, "error") - continued.loss[0]) < 1e-11
    rng = np.random.default_rng(53)
    value, se = Population.from_problem(problem, 2**20, rng, method="qmc").loss_and_standard_error(model, "error")
    assert abs(continued.loss[0] - value) < 4.5 * se


def _log_line_reference(proba_of, truth: MixtureTruth, x1: float, cap: float, panels: int = 400) -> float:
    """The floored log loss's line integrand from a model's own probabilities (independent of the module):
    composite 20-point Gauss-Legendre over each component's +-9.5 deviations, its panels also cut where the
    loss reaches the cap (bracketed on the panels' edges, solved by brentq), vectorised."""
    nodes, weights = np.polynomial.legendre.leggauss(20)
    total = 0.0
    for w, mean, cov, label in zip(truth.weights, truth.means, truth.covariances, truth.labels, strict=True):
        weight, mu, sd = _line_law(truth, x1, w, mean, cov)
        if weight < 1e-18:
            continue

        def at(t, label=label):
            t = np.atleast_1d(t)
            xs = np.column_stack([np.full(t.size, x1), t]) if truth.dim == 2 else t.reshape(-1, 1)
            return -np.log(proba_of(xs)[:, label])

        edges = np.linspace(mu - 9.5 * sd, mu + 9.5 * sd, panels + 1)
        excess = at(edges) - cap
        kinks = [optimize.brentq(lambda t: at(t)[0] - cap, edges[i], edges[i + 1], xtol=1e-15, rtol=1e-15)
                 for i in np.flatnonzero(np.sign(excess[:-1]) * np.sign(excess[1:]) < 0)]
        edges = np.sort(np.concatenate([edges, kinks]))
        half = 0.5 * np.diff(edges)
        ts = (edges[:-1] + half)[:, None] + half[:, None] * nodes
        values = np.minimum(at(ts.ravel()), cap) * stats.norm.pdf(ts.ravel(), mu, sd)
        total += weight * np.sum(values.reshape(ts.shape) @ weights * half)
    return total


def test_the_svm_log_loss_agrees_with_gauss_legendre_over_its_own_probabilities_in_1d():
    truth = _anisotropic_truth(1)
    rng = np.random.default_rng(4)
    labels = rng.integers(0, 2, 14)
    X = rng.normal(0.0, 1.0, (14, 1)) + (labels[:, None] - 0.5)
    model = SVM(C=2.0, gamma=1.3).fit(X, labels)
    cap = -np.log(1e-15)
    reference = _log_line_reference(model.predict_proba, truth, 0.0, cap)
    assert abs(model.exact_loss(truth, "log") - reference) < 1e-10


def test_the_svm_log_loss_agrees_with_nested_quadrature_in_2d():
    problem = get_problem("four-gaussian")
    truth = MixtureTruth.from_problem(problem)
    X, y = problem.sample(12, np.random.default_rng(6))
    model = SVM().fit(X, y)
    lo = (truth.means[:, 0] - 9.5 * np.sqrt(truth.covariances[:, 0, 0])).min()
    hi = (truth.means[:, 0] + 9.5 * np.sqrt(truth.covariances[:, 0, 0])).max()
    cuts = np.linspace(lo, hi, 41)
    cap = -np.log(1e-15)
    reference = sum(integrate.quad(lambda x1: _log_line_reference(model.predict_proba, truth, x1, cap, panels=60),
                                   a, b, epsabs=1e-12, epsrel=1e-12, limit=100)[0]
                    for a, b in zip(cuts[:-1], cuts[1:], strict=True))
    assert abs(model.exact_loss(truth, "log") - reference) < 1e-9


def test_a_floor_that_binds_is_integrated_with_its_kinks():
    """Scores steep enough that the probability falls below the floor on both sides of the boundary: the cap's
    level points cut the line; against the Gauss-Legendre reference of the same floored integrand (1-D), and
    against 2^20-point QMC of the same rule (2-D)."""
    scores, constants, gamma, floor = np.array([[[0.0, 0.0], [-60.0, 60.0]]]), np.array([[0.0, 0.5]]), 0.5, 1e-6
    for d in (1, 2):
        truth = _anisotropic_truth(d)
        points = np.array([[-0.7], [0.9]]) if d == 1 else np.array([[-0.7, 0.4], [0.9, -0.3]])

        def proba_of(xs, points=points):
            kernel = np.exp(-gamma * ((xs[:, None, :] - points[None]) ** 2).sum(axis=2)) - 1.0
            s = kernel @ scores[0].T + constants[0]
            return np.exp(s - np.logaddexp(s[:, :1], s[:, 1:]))

        got = kernel_losses(truth, points, scores, constants, gamma, loss="log", floor=floor).loss[0]
        if d == 1:
            assert abs(got - _log_line_reference(proba_of, truth, 0.0, -np.log(floor), panels=2000)) < 1e-11
        else:
            rng = np.random.default_rng(5)
            component = rng.choice(3, size=2**20, p=truth.weights)
            xs = truth.means[component] + np.einsum("nij,nj->ni", truth.cholesky[component],
                                                    rng.standard_normal((2**20, 2)))
            values = np.minimum(-np.log(proba_of(xs)[np.arange(xs.shape[0]), truth.labels[component]]),
                                -np.log(floor))
            assert abs(got - values.mean()) < 4.5 * values.std() / np.sqrt(values.size)


@pytest.mark.parametrize("name,n", [("four-gaussian", 40), ("oscillating", 60), ("two-gaussians", 20)])
def test_the_svm_log_loss_agrees_with_quasi_monte_carlo(name, n):
    problem = get_problem(name)
    rng = np.random.default_rng(12)
    X, y = problem.sample(n, rng)
    model = SVM().fit(X, y)
    exact = model.exact_loss(MixtureTruth.from_problem(problem), "log")
    value, se = Population.from_problem(problem, 2**18, rng, method="qmc").loss_and_standard_error(model, "log")
    assert abs(exact - value) < 4.5 * se


def test_the_three_class_svm_log_loss_agrees_with_gauss_legendre_over_its_own_probabilities_in_1d():
    """One-vs-rest's normalised sigmoids (three classes, 1-D): against the composite Gauss-Legendre reference of
    the model's own ``predict_proba`` (independent of the module)."""
    truth = MixtureTruth.from_arrays([0.3, 0.3, 0.4], [[-2.0], [0.0], [1.5]], [[[1.0]], [[0.5]], [[0.8]]], [0, 1, 2],
                                     3)
    rng = np.random.default_rng(8)
    y = np.repeat([0, 1, 2], 8)
    X = np.array([-2.0, 0.0, 1.5])[y, None] + rng.normal(0.0, 0.7, (24, 1))
    model = SVM().fit(X, y, n_classes=3)
    reference = _log_line_reference(model.predict_proba, truth, 0.0, -np.log(1e-15))
    assert abs(model.exact_loss(truth, "log") - reference) < 1e-10


def test_the_three_class_svm_log_loss_agrees_with_nested_quadrature_in_2d():
    problem = get_problem("three-gaussians")
    truth = MixtureTruth.from_problem(problem)
    X, y = problem.sample(15, np.random.default_rng(2))
    model = SVM().fit(X, y, n_classes=3)
    lo = (truth.means[:, 0] - 9.5 * np.sqrt(truth.covariances[:, 0, 0])).min()
    hi = (truth.means[:, 0] + 9.5 * np.sqrt(truth.covariances[:, 0, 0])).max()
    cuts = np.linspace(lo, hi, 41)
    cap = -np.log(1e-15)
    reference = sum(integrate.quad(lambda x1: _log_line_reference(model.predict_proba, truth, x1, cap, panels=60),
                                   a, b, epsabs=1e-12, epsrel=1e-12, limit=100)[0]
                    for a, b in zip(cuts[:-1], cuts[1:], strict=True))
    assert abs(model.exact_loss(truth, "log") - reference) < 1e-9


def test_a_three_class_log_loss_that_may_reach_the_floor_is_refused_with_its_reason():
    """With three present classes the floor's kinks are not integrated: a rule whose class-2 probability falls to
    e^-100 (a constant score of -100) is refused, naming the rule and the class."""
    truth = MixtureTruth.from_problem(get_problem("three-gaussians"))
    X = get_problem("three-gaussians").sample(4, np.random.default_rng(0))[0]
    scores = np.zeros((1, 3, 4))
    scores[0, 0, 0] = 1.0
    with pytest.raises(ValueError, match="class 2 may reach the floor"):
        kernel_losses(truth, X, scores, np.array([[0.0, 0.0, -100.0]]), 0.5, loss="log")
    # with no floor there are no kinks, and the same rule is integrated
    assert np.isfinite(kernel_losses(truth, X, scores, np.array([[0.0, 0.0, -100.0]]), 0.5, loss="log",
                                     floor=None).loss[0])
