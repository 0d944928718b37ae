"""Bad input across the public API: each row must raise a clear error naming the argument.

Table-driven: every row is ``(id, callable, expected exception type,
regex)``; the callable makes one call with one bad argument, and the test
checks that exactly that exception type is raised *with a message naming the
argument* (the regex), never a silent result, a ``ComplexWarning``, a numpy
broadcast message, an ``AttributeError`` or an ``IndexError``.

:data:`ROWS` covers the numerical core (two_gaussians, symbolic, guarantee,
noisy_selection, problems, population, classifiers, retraining, targets).
:data:`SANDBOX_ROWS` and :data:`CLI_ROWS` (second table) cover the sandbox,
strategies and command line, which are fixed in separate changes; they also
check that a refused ``out`` leaves no file or folder behind.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from _optional import given, settings, st
from _shared import COMPLEX_WARNING, QUIET

from mri_theory._utils.validation import check_labels
from mri_theory.analytic import guarantee as gu
from mri_theory.analytic import symbolic
from mri_theory.analytic import two_gaussians as tg
from mri_theory.classifiers import (
    KNN,
    LDA,
    QDA,
    SVM,
    GaussianMeanClassifier,
    GaussianNaiveBayes,
    LogisticRegression,
    RandomForest,
    SklearnClassifier,
    get_classifier,
)
from mri_theory.engine.contract import refit_future_losses
from mri_theory.engine.losses import pointwise_loss
from mri_theory.engine.population import Population, qmc_uniforms
from mri_theory.engine.retraining import current_loss, future_losses
from mri_theory.engine.targets import true_b_c, true_q_a, true_q_c, true_q_c_and_loss
from mri_theory.problems import GaussianMixtureProblem, get_problem
from mri_theory.runners.noisy_selection import noisy_selection_curves

# ---------------------------------------------------------------- shared valid objects

FOUR = get_problem("four-gaussian")
THREE = get_problem("three-gaussians")
POP2 = Population.from_problem(FOUR, 40, np.random.default_rng(1))
POP3 = Population.from_problem(THREE, 40, np.random.default_rng(2))
X2, Y2 = FOUR.sample(12, np.random.default_rng(3))
X3, Y3 = THREE.sample(12, np.random.default_rng(4))
CANDS = X2[:3]
KNN2 = KNN(3).fit(X2, Y2, 2)
KNN3 = KNN(3).fit(X3, Y3, 3)
KNN1D = KNN(1).fit([[0.0], [1.0]], [0, 1], 2)
TG = tg.TwoGaussians()
CLF = tg.MeanClassifier((-0.5, 1.5), (9, 9))
ONE_CLASS = ([1.0], [[0.0, 0.0]], [np.eye(2)])


def rng() -> np.random.Generator:
    return np.random.default_rng(0)


def _gmp(classes=None, prior=(0.5, 0.5), name="p"):
    if classes is None:
        classes = [ONE_CLASS, ([1.0], [[1.0, 0.0]], [np.eye(2)])]
    return GaussianMixtureProblem(name, classes, prior)


def _small_noisy(**kwargs):
    """noisy_selection_curves with tiny sizes, so a row that is not refused still ends fast."""
    args = {"replicates": 1, "pool_size": 3, "budget": 1, "execution": QUIET}
    args.update(kwargs)
    return noisy_selection_curves(**args)


er = symbolic.lambdify_error_rate  # f(m1, m2, mu1, mu2, sigma, pi1)
qc = symbolic.lambdify_q_c  # f(x, m1, m2, n1, n2, mu1, mu2, sigma, pi1)
ER_OK = {"m1": -0.5, "m2": 1.5, "mu1": -1.0, "mu2": 1.0, "sigma": 1.0, "pi1": 0.5}
QC_OK = {"x": 0.0, "m1": -0.5, "m2": 1.5, "n1": 9, "n2": 9, "mu1": -1.0, "mu2": 1.0, "sigma": 1.0, "pi1": 0.5}


def _er(**bad):
    return er()(*{**ER_OK, **bad}.values())


def _qc(**bad):
    return qc()(*{**QC_OK, **bad}.values())


V, T = ValueError, TypeError
C1J = np.array([1 + 1j])  # a complex ndarray: numpy would drop the imaginary part with a warning

# (id, callable, expected exception type, regex naming the argument)
ROWS = [
    # ---- two_gaussians: the problem
    ("TwoGaussians-equal-mu", lambda: tg.TwoGaussians(mu=(1.0, 1.0)), V, r"mu: the two class means"),
    ("TwoGaussians-complex-mu", lambda: tg.TwoGaussians(mu=np.array([0, 1j])), T, r"mu must be real"),
    ("TwoGaussians-one-mu", lambda: tg.TwoGaussians(mu=(0.0,)), V, r"mu must have exactly two"),
    ("TwoGaussians-text-mu", lambda: tg.TwoGaussians(mu="ab"), T, r"mu must be numeric"),
    ("TwoGaussians-sigma-0", lambda: tg.TwoGaussians(sigma=0), V, r"sigma must be > 0"),
    ("TwoGaussians-sigma-neg", lambda: tg.TwoGaussians(sigma=-1.0), V, r"sigma must be > 0"),
    ("TwoGaussians-sigma-bool", lambda: tg.TwoGaussians(sigma=True), T, r"sigma must be numeric"),
    ("TwoGaussians-sigma-complex", lambda: tg.TwoGaussians(sigma=np.complex128(1)), T, r"sigma must be real"),
    ("TwoGaussians-prior-sum", lambda: tg.TwoGaussians(prior=(0.5, 0.6)), V, r"prior must sum to 1"),
    ("TwoGaussians-prior-0", lambda: tg.TwoGaussians(prior=(0.0, 1.0)), V, r"prior entries"),
    ("TwoGaussians.posterior-complex", lambda: TG.posterior(C1J), T, r"x must be real"),
    ("TwoGaussians.class_cdfs-nan", lambda: TG.class_cdfs([np.nan]), V, r"x must be finite"),
    ("TwoGaussians.class_cdfs-complex", lambda: TG.class_cdfs(C1J), T, r"x must be real"),
    ("TwoGaussians.density-text", lambda: TG.density(["a"]), T, r"x must be numeric"),
    ("TwoGaussians.sample-n0", lambda: TG.sample(0, rng()), V, r"n must be >= 1"),
    ("TwoGaussians.sample-rng", lambda: TG.sample(5, 1), T, r"rng must be a numpy.random.Generator"),
    ("TwoGaussians.sample_with_counts-one", lambda: TG.sample_with_counts((1,), rng()), V, r"counts must"),
    ("TwoGaussians.sample_with_counts-int", lambda: TG.sample_with_counts(3, rng()), V, r"counts must be a pair"),
    ("TwoGaussians.sample_with_counts-neg", lambda: TG.sample_with_counts((-1, 2), rng()), V, r"counts must be >= 0"),
    # ---- two_gaussians: the classifier
    ("MeanClassifier-n0", lambda: tg.MeanClassifier((0.0, 1.0), (0, 1)), V, r"n must be >= 1"),
    ("MeanClassifier-n-one", lambda: tg.MeanClassifier((0.0, 1.0), (1,)), V, r"n must be a pair"),
    ("MeanClassifier-mu_hat-inf", lambda: tg.MeanClassifier((0.0, np.inf), (1, 1)), V, r"mu_hat must be finite"),
    ("MeanClassifier-mu_hat-complex", lambda: tg.MeanClassifier(np.array([0, 1j]), (1, 1)), T, r"mu_hat must be real"),
    ("MeanClassifier-sigma", lambda: tg.MeanClassifier((0.0, 1.0), (1, 1), sigma=0), V, r"sigma must be > 0"),
    ("MeanClassifier-prior", lambda: tg.MeanClassifier((0.0, 1.0), (1, 1), prior=(1, 0)), V, r"prior entries"),
    ("MeanClassifier.fit-one-label", lambda: tg.MeanClassifier.fit([0.0, 1.0], [0, 0]), V, r"y must contain both"),
    ("MeanClassifier.fit-label-2", lambda: tg.MeanClassifier.fit([0.0, 1.0], [0, 2]), V, r"y must be 0"),
    ("MeanClassifier.fit-lengths", lambda: tg.MeanClassifier.fit([0.0, 1.0, 2.0], [0, 1]), V, r"x and y must have"),
    ("MeanClassifier.fit-complex-x", lambda: tg.MeanClassifier.fit(np.array([0, 1j]), [0, 1]), T, r"x must be real"),
    ("MeanClassifier.proba-complex", lambda: CLF.proba(C1J), T, r"x must be real"),
    ("MeanClassifier.retrained-label-2", lambda: CLF.retrained(0.0, 2), V, r"label must be 0"),
    ("MeanClassifier.retrained-x-vector", lambda: CLF.retrained([0.0, 1.0], 0), T, r"x must be a scalar"),
    ("MeanClassifier.retrained-label-vector", lambda: CLF.retrained(0.0, [0, 1]), V, r"label must be a single"),
    ("MeanClassifier.retrained_means-nan", lambda: CLF.retrained_means(np.nan), V, r"x must be finite"),
    ("MeanClassifier.retrained_means-complex", lambda: CLF.retrained_means(C1J), T, r"x must be real"),
    ("MeanClassifier.boundary-equal", lambda: tg.MeanClassifier((1.0, 1.0), (1, 1)).boundary, V, r"mu_hat: equal"),
    # ---- two_gaussians: losses, targets, batches, selections
    ("error_rate-problem", lambda: tg.error_rate("p", CLF), T, r"problem must be a TwoGaussians"),
    ("error_rate-clf", lambda: tg.error_rate(TG, "clf"), T, r"clf must be a MeanClassifier"),
    ("q_c-complex", lambda: tg.q_c(TG, CLF, C1J), T, r"x must be real"),
    ("q_c-inf", lambda: tg.q_c(TG, CLF, [np.inf]), V, r"x must be finite"),
    ("q_c-complex-list", lambda: tg.q_c(TG, CLF, [1 + 1j]), T, r"x must be real"),
    ("q_a-label-shape", lambda: tg.q_a(TG, CLF, [0.0, 1.0], [0, 1, 1]), V, r"label of shape"),
    ("q_a-label-2", lambda: tg.q_a(TG, CLF, 0.0, 2), V, r"label must be 0"),
    ("q_a-label-half", lambda: tg.q_a(TG, CLF, 0.0, 0.5), V, r"label must be 0"),
    ("future_losses-text", lambda: tg.future_losses(TG, CLF, "a"), T, r"x must be numeric"),
    ("b_c-empty", lambda: tg.b_c(TG, CLF, []), V, r"xs must be a non-empty"),
    ("b_c-too-many", lambda: tg.b_c(TG, CLF, np.zeros(21)), V, r"xs: at most 20"),
    ("b_c-2d", lambda: tg.b_c(TG, CLF, [[0.0, 1.0]]), V, r"xs must be a non-empty 1-D"),
    ("optimal_batch-max_subsets-0", lambda: tg.optimal_batch(TG, CLF, [0.0, 1.0, 2.0], 2, max_subsets=0), V,
     r"max_subsets must be >= 1"),
    ("optimal_batch-max_subsets-float", lambda: tg.optimal_batch(TG, CLF, [0.0, 1.0], 1, max_subsets=1.5), V,
     r"max_subsets must be an integer"),
    ("optimal_batch-r-too-big", lambda: tg.optimal_batch(TG, CLF, [0.0, 1.0, 2.0], 4), V, r"r must be at most"),
    ("optimal_batch-r-0", lambda: tg.optimal_batch(TG, CLF, [0.0, 1.0, 2.0], 0), V, r"r must be >= 1"),
    ("optimal_batch-too-large", lambda: tg.optimal_batch(TG, CLF, np.linspace(-1, 1, 30), 10), V,
     r"pool: exhaustive search over C\(30, 10\)"),
    ("greedy_batch-empty-pool", lambda: tg.greedy_batch(TG, CLF, [], 1), V, r"pool must be a non-empty"),
    ("greedy_batch-r-float", lambda: tg.greedy_batch(TG, CLF, [0.0, 1.0], 1.5), V, r"r must be an integer"),
    ("greedy_batch-complex-pool", lambda: tg.greedy_batch(TG, CLF, np.array([0, 1j]), 1), T, r"pool must be real"),
    ("optimal_selection-bounds-order", lambda: tg.optimal_selection(TG, CLF, bounds=(1.0, 0.0)), V,
     r"bounds must satisfy"),
    ("optimal_selection-bounds-inf", lambda: tg.optimal_selection(TG, CLF, bounds=(0.0, np.inf)), V,
     r"bounds must be finite"),
    ("optimal_selection-grid_size", lambda: tg.optimal_selection(TG, CLF, grid_size=2), V, r"grid_size must be >= 3"),
    ("optimal_selection-bounds-None", lambda: tg.optimal_selection(TG, CLF, bounds=None), T,
     r"bounds must be numeric, got None"),
    ("worst_selection-bounds-one", lambda: tg.worst_selection(TG, CLF, bounds=(0.0,)), V, r"bounds must have"),
    ("se_selection-clf", lambda: tg.se_selection("clf"), T, r"clf must be a MeanClassifier"),
    ("se_uncertainty-nan", lambda: tg.se_uncertainty(CLF, [np.nan]), V, r"x must be finite"),
    ("se_uncertainty-clf", lambda: tg.se_uncertainty("clf", [0.0]), T, r"clf must be a MeanClassifier"),
    ("rs_density-problem", lambda: tg.rs_density("p", [0.0]), T, r"problem must be a TwoGaussians"),
    ("rs_density-complex", lambda: tg.rs_density(TG, C1J), T, r"x must be real"),
    ("paper_cases_table-problem-0", lambda: tg.paper_cases_table(problem=0), T, r"problem must be a TwoGaussians"),
    ("paper_cases_table-bounds", lambda: tg.paper_cases_table(bounds=(1.0, 0.0)), V, r"bounds must satisfy"),
    # ---- symbolic
    ("lambdify_error_rate-sigma-neg", lambda: _er(sigma=-1.0), V, r"sigma must be > 0"),
    ("lambdify_error_rate-sigma-0", lambda: _er(sigma=0.0), V, r"sigma must be > 0"),
    ("lambdify_error_rate-pi1-1.5", lambda: _er(pi1=1.5), V, r"pi1 \(the prior of c_1\) must lie"),
    ("lambdify_error_rate-pi1-0", lambda: _er(pi1=0.0), V, r"pi1 \(the prior of c_1\) must lie"),
    ("lambdify_error_rate-m1-nan", lambda: _er(m1=np.nan), V, r"m1 must be finite"),
    ("lambdify_error_rate-mu2-inf", lambda: _er(mu2=np.inf), V, r"mu2 must be finite"),
    ("lambdify_error_rate-m1-complex", lambda: _er(m1=C1J), T, r"m1 must be real"),
    ("lambdify_error_rate-broadcast", lambda: _er(m1=[0.0, 1.0], m2=[0.0, 1.0, 2.0]), V,
     r"must broadcast together.*m1 \(2,\).*m2 \(3,\)"),
    ("lambdify_q_c-n1-0", lambda: _qc(n1=0), V, r"n1 must hold whole class counts"),
    ("lambdify_q_c-n2-frac", lambda: _qc(n2=2.5), V, r"n2 must hold whole class counts"),
    ("lambdify_q_c-x-inf", lambda: _qc(x=np.inf), V, r"x must be finite"),
    ("lambdify_q_c-sigma-0", lambda: _qc(sigma=0.0), V, r"sigma must be > 0"),
    ("lambdify_q_c-pi1-neg", lambda: _qc(pi1=-0.1), V, r"pi1 \(the prior of c_1\) must lie"),
    ("lambdify_q_c-too-few", lambda: qc()(0.0, -1.0, 1.0), T, r"n1.*n2.*mu1"),
    # ---- guarantee
    ("selection_probability-delta-nan", lambda: gu.selection_probability(np.nan, 1.0), V, r"delta must be finite"),
    ("selection_probability-sigma-neg", lambda: gu.selection_probability(1.0, -1.0), V, r"sigma must be >= 0"),
    ("selection_probability-sigma-nan", lambda: gu.selection_probability(1.0, np.nan), V, r"sigma must be >= 0"),
    ("selection_probability-sigma-complex", lambda: gu.selection_probability(1.0, C1J), T, r"sigma must be real"),
    ("selection_probability-delta-complex", lambda: gu.selection_probability(C1J, 1.0), T, r"delta must be real"),
    ("selection_probability-sigma-None", lambda: gu.selection_probability(1.0, None), T,
     r"sigma must be numeric, got None"),
    ("beta-delta-text", lambda: gu.beta("a", 1.0), T, r"delta must be numeric"),
    ("beta-sigma-text", lambda: gu.beta(1.0, "a"), T, r"sigma must be numeric"),
    ("beta-broadcast", lambda: gu.beta([1.0, 2.0], [1.0, 2.0, 3.0]), V, r"delta and sigma must broadcast"),
    ("monte_carlo-n_draws-0", lambda: gu.monte_carlo_selection_probability(1.0, 1.0, 0, rng()), V,
     r"n_draws must be >= 1"),
    ("monte_carlo-rng", lambda: gu.monte_carlo_selection_probability(1.0, 1.0, 10, 0), T, r"rng must be a numpy"),
    ("monte_carlo-delta-vector", lambda: gu.monte_carlo_selection_probability([1.0, 2.0], 1.0, 10, rng()), T,
     r"delta must be a scalar"),
    ("monte_carlo-sigma-vector", lambda: gu.monte_carlo_selection_probability(1.0, [1.0, 2.0], 10, rng()), T,
     r"sigma must be a scalar"),
    ("simulate_selection-q-empty", lambda: gu.simulate_selection([], 1.0, 10, rng()), V, r"q must be a non-empty"),
    ("simulate_selection-q-2d", lambda: gu.simulate_selection([[1.0, 2.0]], 1.0, 10, rng()), V,
     r"q must be a non-empty 1-D"),
    ("simulate_selection-q-nan", lambda: gu.simulate_selection([1.0, np.nan], 1.0, 10, rng()), V, r"q must be finite"),
    ("simulate_selection-sigma-neg", lambda: gu.simulate_selection([1.0, 2.0], -1.0, 10, rng()), V,
     r"sigma must be >= 0"),
    ("simulate_selection-sigma-vector", lambda: gu.simulate_selection([1.0, 2.0], [1.0, 2.0], 10, rng()), T,
     r"sigma must be a scalar"),
    ("simulate_selection-noise-name", lambda: gu.simulate_selection([1.0, 2.0], 1.0, 10, rng(), noise="cauchy"), V,
     r"unknown noise 'cauchy'"),
    ("simulate_selection-n_draws-float", lambda: gu.simulate_selection([1.0, 2.0], 1.0, 1.5, rng()), V,
     r"n_draws must be an integer"),
    ("StudentTNoise-df-2", lambda: gu.StudentTNoise(df=2.0), V, r"df must be > 2"),
    ("StudentTNoise-df-text", lambda: gu.StudentTNoise(df="a"), T, r"df must be numeric"),
    ("BiasedNoise-slope-nan", lambda: gu.BiasedNoise(slope=np.nan), V, r"slope must be finite"),
    ("HeteroscedasticNoise-rate-inf", lambda: gu.HeteroscedasticNoise(rate=np.inf), V, r"rate must be finite"),
    # ---- noisy_selection
    ("noisy_selection-sigma-neg", lambda: _small_noisy(relative_sigmas=[-1.0]), V, r"relative_sigmas must be >= 0"),
    ("noisy_selection-sigma-nan", lambda: _small_noisy(relative_sigmas=[np.nan]), V, r"relative_sigmas must be >= 0"),
    ("noisy_selection-sigma-text", lambda: _small_noisy(relative_sigmas=["a"]), T, r"relative_sigmas must be numeric"),
    ("noisy_selection-sigma-complex", lambda: _small_noisy(relative_sigmas=C1J), T, r"relative_sigmas must be real"),
    ("noisy_selection-replicates-0", lambda: _small_noisy(replicates=0), V, r"replicates must be >= 1"),
    ("noisy_selection-budget", lambda: _small_noisy(budget=5, pool_size=3), V, r"budget \(5\) must not exceed"),
    ("noisy_selection-seed-neg", lambda: _small_noisy(seed=-1), V, r"seed must be >= 0"),
    ("noisy_selection-population_size-0", lambda: _small_noisy(population_size=0), V, r"population_size must be >= 1"),
    ("noisy_selection-pool_size-0", lambda: _small_noisy(pool_size=0), V, r"pool_size must be >= 1"),
    # ---- problems
    ("get_problem-unknown", lambda: get_problem("nope"), V, r"unknown problem name 'nope'"),
    ("get_problem-int", lambda: get_problem(3), T, r"name must be a str"),
    ("GaussianMixtureProblem-one-class", lambda: _gmp([ONE_CLASS], prior=[1.0]), V, r"classes must hold at least two"),
    ("GaussianMixtureProblem-classes-str", lambda: _gmp("ab"), T, r"classes must be a sequence"),
    ("GaussianMixtureProblem-cov-not-pd", lambda: _gmp([ONE_CLASS, ([1.0], [[1.0, 0.0]], [-np.eye(2)])]), V,
     r"classes\[1\] covariances must be positive definite"),
    ("GaussianMixtureProblem-weights", lambda: _gmp([([0.5], [[0.0, 0.0]], [np.eye(2)]), ONE_CLASS]), V,
     r"classes\[0\] weights must be positive"),
    ("GaussianMixtureProblem-prior", lambda: _gmp(prior=[0.3, 0.3]), V, r"prior must sum to 1"),
    ("GaussianMixtureProblem-name", lambda: _gmp(name=""), T, r"name must be a non-empty str"),
    ("GaussianMixtureProblem-means-dim", lambda: _gmp([ONE_CLASS, ([1.0], [[1.0, 0.0, 0.0]], [np.eye(3)])]), V,
     r"classes\[1\] means must have dimension 2"),
    ("GaussianMixtureProblem-means-complex", lambda: _gmp([ONE_CLASS, ([1.0], np.array([[1j, 0]]), [np.eye(2)])]), T,
     r"classes\[1\] means must be real"),
    ("Problem.sample-n0", lambda: FOUR.sample(0, rng()), V, r"n must be >= 1"),
    ("Problem.sample-rng-module", lambda: FOUR.sample(5, np.random), T, r"rng must be a numpy.random.Generator"),
    ("Problem.posterior-complex", lambda: FOUR.posterior(np.array([[1 + 1j, 0]])), T, r"X must be real"),
    ("Problem.posterior-3-columns", lambda: FOUR.posterior([[0.0, 1.0, 2.0]]), V, r"X must have shape \(n, 2\)"),
    ("Problem.posterior-nan", lambda: FOUR.posterior([[np.nan, 0.0]]), V, r"X must be finite"),
    ("Problem.posterior-huge", lambda: FOUR.posterior([[1e200, 0.0]]), V, r"X entries must be at most"),
    ("Problem.log_density-text", lambda: FOUR.log_density("a"), T, r"X must be numeric"),
    ("Problem.bayes_predict-complex", lambda: FOUR.bayes_predict(np.array([[1j, 0]])), T, r"X must be real"),
    ("Problem.sample_from_uniform-shape", lambda: FOUR.sample_from_uniform([[0.5] * 3]), V, r"u must have shape"),
    ("Problem.sample_from_uniform-1", lambda: FOUR.sample_from_uniform(np.full((2, 4), 1.0)), V,
     r"u must have shape \(n, 4\) with entries in \(0, 1\)"),
    ("Problem.bounding_box-0", lambda: FOUR.bounding_box(0), V, r"n_sd must be > 0"),
    ("Problem.bayes_error_monte_carlo-n", lambda: FOUR.bayes_error_monte_carlo(1, rng()), V, r"n must be >= 2"),
    ("Problem.compute_bayes_error-resolution", lambda: FOUR.compute_bayes_error(resolution=0), V,
     r"resolution must be >= 1"),
    # ---- population
    ("Population-X-complex", lambda: Population(np.array([[1j]]), [[0.5, 0.5]]), T, r"X must be real"),
    ("Population-proba-complex", lambda: Population([[0.0]], np.array([[0.5 + 0j, 0.5]])), T, r"proba must be real"),
    ("Population-proba-sum", lambda: Population([[0.0]], [[0.6, 0.6]]), V, r"proba rows must be non-negative"),
    ("Population-proba-one-class", lambda: Population([[0.0]], [[1.0]]), V, r"proba must have shape"),
    ("Population-proba-rows", lambda: Population([[0.0], [1.0]], [[0.5, 0.5]]), V, r"proba must have shape"),
    ("Population-weights-neg", lambda: Population([[0.0]], [[0.5, 0.5]], weights=[-1.0]), V,
     r"weights must be non-negative"),
    ("Population-weights-shape", lambda: Population([[0.0]], [[0.5, 0.5]], weights=[1.0, 2.0]), V,
     r"weights must have shape"),
    ("Population-X-empty", lambda: Population(np.empty((0, 2)), np.empty((0, 2))), V, r"X must have shape \(n, d\)"),
    ("Population-X-nan", lambda: Population([[np.nan]], [[0.5, 0.5]]), V, r"X must be finite"),
    ("Population.from_problem-name", lambda: Population.from_problem("four-gaussian", 10, rng()), T,
     r"problem must be a Problem object.*get_problem\('four-gaussian'\)"),
    ("Population.from_problem-TwoGaussians", lambda: Population.from_problem(TG, 10, rng()), T,
     r"problem must be a Problem"),
    ("Population.from_problem-size-0", lambda: Population.from_problem(FOUR, 0, rng()), V, r"size must be >= 1"),
    ("Population.from_problem-rng", lambda: Population.from_problem(FOUR, 10, 0), T, r"rng must be a numpy"),
    ("Population.from_problem-method", lambda: Population.from_problem(FOUR, 10, rng(), method="sobol"), V,
     r"method must be 'sample' or 'qmc'"),
    ("Population.from_labels-y-range", lambda: Population.from_labels([[0.0]], [2], 2), V,
     r"y must hold labels in 0..1"),
    ("Population.from_labels-y-complex", lambda: Population.from_labels([[0.0]], np.array([1 + 0j]), 2), T,
     r"y must hold integer labels"),
    ("Population.from_labels-lengths", lambda: Population.from_labels([[0.0], [1.0]], [0], 2), V,
     r"X and y must have the same length"),
    ("Population.from_labels-n_classes", lambda: Population.from_labels([[0.0]], [0], 1), V, r"n_classes must be >= 2"),
    ("Population.from_labels-y-bool", lambda: Population.from_labels([[0.0]], [True], 2), T,
     r"y must hold integer labels"),
    ("Population.loss-3-class-on-2", lambda: POP2.loss(KNN3), V, r"classifier has 3 classes.*population has 2"),
    ("Population.loss-2-class-on-3-log", lambda: POP3.loss(KNN2, "log"), V,
     r"classifier has 2 classes.*population has 3"),
    ("Population.error_rate-3-class-on-2", lambda: POP2.error_rate(KNN3), V, r"classifier has 3 classes"),
    ("Population.loss-name", lambda: POP2.loss(KNN2, "hinge"), V, r"loss must be one of"),
    ("Population.loss-not-classifier", lambda: POP2.loss("knn5"), T, r"classifier must be a fitted classifier"),
    ("Population.loss-dim", lambda: POP2.loss(KNN1D), V, r"classifier was fitted on 1-D points.*population is 2-D"),
    ("Population.standard_error-3-class-on-2", lambda: POP2.standard_error(KNN3), V, r"classifier has 3 classes"),
    ("Population.losses_of-3-columns", lambda: POP2.losses_of(np.full((POP2.size, 3), 1 / 3)), V,
     r"proba_hat must have shape \(40, \.\.\., 2\)"),
    ("Population.losses_of-rows", lambda: POP2.losses_of(np.full((3, 2), 0.5)), V, r"proba_hat must have shape"),
    ("Population.mean-values", lambda: POP2.mean(np.ones(3)), V, r"values must have one entry per point"),
    ("pointwise_loss-shapes", lambda: pointwise_loss(POP2.proba, np.full((3, 2), 0.5), "error"), V,
     r"proba must have shape \(n, \.\.\., k\) = \(40, \.\.\., 2\)"),
    ("pointwise_loss-loss", lambda: pointwise_loss(POP2.proba, POP2.proba, "hinge"), V, r"loss must be one of"),
    ("check_labels-complex", lambda: check_labels(np.array([0, 1j]), 2), T, r"y must hold integer labels"),
    ("check_labels-2d", lambda: check_labels([[0, 1]], 2), V, r"y must be a 1-D array"),
    ("check_labels-half", lambda: check_labels([0.5], 2), V, r"y must hold integer labels"),
    # ---- classifiers
    ("KNN-k-0", lambda: KNN(k=0), V, r"k must be >= 1"),
    ("KNN-k-float", lambda: KNN(k=1.5), V, r"k must be an integer"),
    ("KNN-k-text", lambda: KNN(k="5"), T, r"k must be an integer"),
    ("KNN.fit-X-complex", lambda: KNN().fit(np.array([[1j], [2]]), [0, 1], 2), T, r"X must be real"),
    ("KNN.fit-lengths", lambda: KNN().fit([[0.0], [1.0]], [0, 1, 1], 2), V, r"X and y must have the same length"),
    ("KNN.fit-empty", lambda: KNN().fit([], [], 2), V, r"X must hold at least"),
    ("KNN.fit-n_classes-1", lambda: KNN().fit([[0.0]], [0], 1), V, r"n_classes must be >= 2"),
    ("KNN.fit-y-range", lambda: KNN().fit([[0.0]], [3], 2), V, r"y must hold labels in 0..1"),
    ("KNN.fit-y-text", lambda: KNN().fit([[0.0]], ["a"]), T, r"y must hold integer labels"),
    ("KNN.fit-y-complex", lambda: KNN().fit([[0.0]], np.array([1 + 0j])), T, r"y must hold integer labels"),
    ("KNN.fit-y-negative", lambda: KNN().fit([[0.0]], [-1]), V, r"y must hold labels"),
    ("KNN.predict_proba-unfitted", lambda: KNN().predict_proba([[0.0]]), V, r"KNN is not fitted"),
    ("KNN.predict_proba-dim", lambda: KNN2.predict_proba([[0.0]]), V, r"X must have 2 columns"),
    ("KNN.predict_proba-complex", lambda: KNN2.predict_proba(np.array([[1j, 0]])), T, r"X must be real"),
    ("LDA.fit-inf", lambda: LDA().fit([[0.0, np.inf]], [0], 2), V, r"X must be finite"),
    ("LDA-reg", lambda: LDA(reg=0), V, r"reg must be > 0"),
    ("QDA.fit-y-neg", lambda: QDA().fit([[0.0, 1.0]], [-1], 2), V, r"y must hold labels"),
    ("GaussianNaiveBayes.predict-unfitted", lambda: GaussianNaiveBayes().predict([[0.0]]), V,
     r"GaussianNaiveBayes is not fitted"),
    ("GaussianMeanClassifier-sigma", lambda: GaussianMeanClassifier(sigma=-1), V, r"sigma must be > 0"),
    ("LogisticRegression-C-0", lambda: LogisticRegression(C=0), V, r"C must be > 0"),
    ("LogisticRegression-C-text", lambda: LogisticRegression(C="a"), T, r"C must be numeric"),
    ("SVM-C-neg", lambda: SVM(C=-1), V, r"C must be > 0"),
    ("SVM-gamma-0", lambda: SVM(gamma=0), V, r"gamma must be > 0"),
    ("SVM-gamma-auto", lambda: SVM(gamma="auto"), T, r"gamma must be numeric"),
    ("RandomForest-n_estimators-0", lambda: RandomForest(n_estimators=0), V, r"n_estimators must be >= 1"),
    ("RandomForest-random_state-neg", lambda: RandomForest(random_state=-1), V, r"random_state must be >= 0"),
    ("SklearnClassifier-estimator", lambda: SklearnClassifier(object()), T, r"estimator must be a scikit-learn"),
    ("SklearnClassifier-mri-classifier", lambda: SklearnClassifier(KNN()), T, r"estimator must be a scikit-learn"),
    ("get_classifier-unknown", lambda: get_classifier("nope"), V, r"unknown classifier 'nope'"),
    ("refit_future_losses-3-class-on-2", lambda: refit_future_losses(KNN3, CANDS, POP2, "error"), V,
     r"population has 2 classes but the classifier was fitted with n_classes=3"),
    ("KNN.retraining_losses-3-class-on-2", lambda: KNN3.retraining_losses(CANDS, POP2, "error"), V,
     r"population has 2 classes but the classifier was fitted with n_classes=3"),
    # ---- retraining
    ("future_losses-empty-X_train", lambda: future_losses(KNN(), [], [], CANDS, POP2), V,
     r"X_train must hold at least 1 point"),
    ("future_losses-empty-candidates", lambda: future_losses(KNN(), X2, Y2, [], POP2), V,
     r"candidates must hold at least"),
    ("future_losses-population", lambda: future_losses(KNN(), X2, Y2, CANDS, "pop"), T,
     r"population must be a Population"),
    ("future_losses-classifier", lambda: future_losses("knn5", X2, Y2, CANDS, POP2), T,
     r"classifier must be an mri_theory.classifiers.Classifier"),
    ("future_losses-loss", lambda: future_losses(KNN(), X2, Y2, CANDS, POP2, loss="hinge"), V, r"loss must be one of"),
    ("future_losses-method", lambda: future_losses(KNN(), X2, Y2, CANDS, POP2, method="fast"), V,
     r"method must be 'auto' or 'refit'"),
    ("future_losses-y_train-range", lambda: future_losses(KNN(), X2[:2], [0, 5], CANDS, POP2), V,
     r"y_train must hold labels in 0..1"),
    ("future_losses-lengths", lambda: future_losses(KNN(), X2, Y2[:1], CANDS, POP2), V,
     r"X_train and y_train must have the same length"),
    ("future_losses-candidates-dim", lambda: future_losses(KNN(), X2, Y2, [[0.0, 0.0, 0.0]], POP2), V,
     r"candidates must have 2 columns"),
    ("future_losses-candidates-complex", lambda: future_losses(KNN(), X2, Y2, np.array([[1j, 0]]), POP2), T,
     r"candidates must be real"),
    ("current_loss-loss", lambda: current_loss(KNN(), X2, Y2, POP2, loss="x"), V, r"loss must be one of"),
    ("current_loss-population", lambda: current_loss(KNN(), X2, Y2, "pop"), T, r"population must be a Population"),
    # ---- targets
    ("true_q_c-problem-name", lambda: true_q_c("four-gaussian", KNN(), X2, Y2, CANDS, POP2), T,
     r"problem must be a Problem object.*get_problem\('four-gaussian'\)"),
    ("true_q_c-problem-classes", lambda: true_q_c(THREE, KNN(), X2, Y2, CANDS, POP2), V,
     r"problem has 3 classes but population has 2"),
    ("true_q_c-problem-dim", lambda: true_q_c(get_problem("two-gaussians"), KNN(), X2, Y2, CANDS, POP2), V,
     r"problem is 1-D but population points are 2-D"),
    ("true_q_c-TwoGaussians", lambda: true_q_c(TG, KNN(), X2, Y2, CANDS, POP2), T, r"problem must be a Problem"),
    ("true_q_c-loss", lambda: true_q_c(FOUR, KNN(), X2, Y2, CANDS, POP2, loss="nope"), V, r"loss must be one of"),
    ("true_q_a-problem-None", lambda: true_q_a(None, KNN(), X2, Y2, CANDS[:1], [0], POP2), T,
     r"problem must be a Problem"),
    ("true_q_a-problem-classes", lambda: true_q_a(THREE, KNN(), X2, Y2, CANDS[:1], [0], POP2), V,
     r"problem has 3 classes"),
    ("true_q_a-labels-length", lambda: true_q_a(FOUR, KNN(), X2, Y2, CANDS[:1], [0, 1], POP2), V,
     r"labels must have one entry per candidate"),
    ("true_q_a-labels-range", lambda: true_q_a(FOUR, KNN(), X2, Y2, CANDS[:1], [2], POP2), V,
     r"labels must hold labels in 0..1"),
    ("true_b_c-too-many", lambda: true_b_c(FOUR, KNN(), X2, Y2, np.zeros((4, 2)), POP2), V, r"batch: at most 3"),
    ("true_b_c-empty", lambda: true_b_c(FOUR, KNN(), X2, Y2, [], POP2), V, r"batch must hold at least 1 point"),
    ("true_b_c-problem-name", lambda: true_b_c("four-gaussian", KNN(), X2, Y2, CANDS[:1], POP2), T,
     r"use mri_theory.problems.get_problem"),
    ("true_q_c_and_loss-population", lambda: true_q_c_and_loss(FOUR, KNN(), X2, Y2, CANDS, "pop"), T,
     r"population must be a Population"),
]


@pytest.mark.parametrize("call, expected, pattern", [pytest.param(c, e, p, id=i) for i, c, e, p in ROWS])
def test_bad_input_is_refused(call, expected, pattern):
    with warnings.catch_warnings():
        warnings.simplefilter("error", COMPLEX_WARNING)  # dropping an imaginary part is a failure
        with pytest.raises(expected, match=pattern) as info:
            call()
    assert info.type is expected, f"expected exactly {expected.__name__}, got {info.type.__name__}"


def test_table_is_large_with_unique_ids():
    ids = [row[0] for row in ROWS]
    assert len(ids) >= 100
    assert len(set(ids)) == len(ids)


# ---------------------------------------------------------------- QMC uniforms (item 5)


def test_qmc_uniforms_of_seed_56_and_four_million_points():
    """Seed 56 and 2**22 points: scrambled Sobol' returns an exact 0 there (the old code crashed on it)."""
    from scipy.stats import qmc

    raw = qmc.Sobol(d=FOUR.uniform_dim, scramble=True, bits=30, seed=np.random.default_rng(56)).random_base2(22)
    assert np.any(raw == 0.0)  # the case the fix is about really occurs for this seed and size
    scaled = raw * 2.0**30
    assert np.array_equal(scaled, np.round(scaled))  # scipy's points are integers / 2**30
    u = qmc_uniforms(FOUR.uniform_dim, 2**22, np.random.default_rng(56))
    assert np.array_equal(u, raw + 2.0**-31)  # the centre of each dyadic cell, computed independently
    assert u.min() > 0.0 and u.max() < 1.0


def test_qmc_population_builds_where_sobol_returns_zero():
    """Seed 14652, 2**16 points (found by search): a coordinate is exactly 0; the old code raised ValueError."""
    from scipy.stats import qmc

    raw = qmc.Sobol(d=FOUR.uniform_dim, scramble=True, bits=30, seed=np.random.default_rng(14652)).random_base2(16)
    assert np.any(raw == 0.0)
    pop = Population.from_problem(FOUR, 2**16, np.random.default_rng(14652), method="qmc")
    np.testing.assert_array_equal(pop.X, FOUR.sample_from_uniform(raw + 2.0**-31))
    np.testing.assert_allclose(pop.proba, FOUR.posterior(pop.X))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(0, 10), dim=st.integers(1, 6))
def test_qmc_uniforms_strictly_inside_unit_cube(seed, m, dim):
    size = 2**m
    u = qmc_uniforms(dim, size, np.random.default_rng(seed))
    assert u.shape == (size, dim)
    assert np.all(u > 0.0) and np.all(u < 1.0)
    # Every point is the centre of a cell of side 2**-30: (integer + 1/2) / 2**30, exactly.
    cells = u * 2.0**30 - 0.5
    assert np.array_equal(cells, np.round(cells))
    # Still a (0, m, d)-net in base 2: each of the 2**m intervals [i/2**m, (i+1)/2**m) of every coordinate
    # holds exactly one point.
    counts = np.apply_along_axis(lambda c: np.bincount((c * size).astype(int), minlength=size), 0, u)
    assert np.all(counts == 1)


def test_population_does_not_freeze_the_callers_array():
    X = np.zeros((3, 2))
    Population(X, np.full((3, 2), 0.5))
    X[0, 0] = 1.0  # raised "assignment destination is read-only" before


# ---------------------------------------------------------------- second table: sandbox, strategies, CLI
#
# These functions are fixed in separate changes (sandbox.py, strategies.py, cli.py); run these rows after
# merging them.  Every row passes tiny sizes, so a row that is *not* refused still finishes in seconds.

SMALL = {"problem": "four-gaussian", "classifier": "knn5", "strategies": ["RS"], "pool_size": 3, "replicates": 1,
         "budget": 1, "population_size": 64, "execution": QUIET}


def _run_curves(tmp_path, **bad):
    from mri_theory.runners.sandbox import run_curves

    return run_curves(**{**SMALL, **bad})


def _a_file(tmp_path):
    path = tmp_path / "a_file.txt"
    path.write_text("not a folder\n")
    return path


def _select_no_candidates(tmp_path):
    from mri_theory.strategies import Context, get_strategy, select

    ctx = Context(X=X2, y=Y2, candidates=np.empty((0, 2)), pool=np.empty((0, 2)), classifier=KNN(),
                  n_classes=2, rng=rng())
    return select(get_strategy("RS"), ctx)


def _strategy(name, **options):
    from mri_theory.strategies import get_strategy

    return get_strategy(name, **options)


def _classifier(name, **options):
    from mri_theory.classifiers import get_classifier

    return get_classifier(name, **options)


def _schedule(name, *args, **kwargs):
    """A call of :mod:`mri_theory.runners.schedule`'s ``name`` (issue 54: timings and plans that are not such)."""
    from mri_theory.runners import schedule

    return getattr(schedule, name)(*args, **kwargs)


RS_TASK = [("four-gaussian", "lda", "RS")]
ZERO_PLAN = (2, 0.0, 0.0, 0.0, 0.0, 0.0, 3)


def _plan(**change):
    from mri_theory.runners import Plan

    return Plan(*ZERO_PLAN)._replace(**change)


def _read_curves_non_csv(tmp_path):
    from mri_theory.runners.sandbox import read_curves

    path = tmp_path / "results.bin"
    path.write_bytes(b"\x00\x01\x02 not a csv")
    return read_curves(path)


# (id, callable of tmp_path, expected exception type, regex naming the argument)
SANDBOX_ROWS = [
    ("run_curves-strategies-duplicate", lambda t: _run_curves(t, strategies=["RS", "RS"]), V, r"strategies"),
    ("run_curves-record_q_c-text", lambda t: _run_curves(t, record_q_c="no"), T, r"record_q_c"),
    ("run_curves-execution-text", lambda t: _run_curves(t, execution="local"), T, r"^execution must be an Execution"),
    ("run_curves-out-file", lambda t: _run_curves(t, out=_a_file(t)), V, r"\bout\b"),
    ("run_curves-out-inside-file", lambda t: _run_curves(t, out=_a_file(t) / "results"), V, r"\bout\b"),
    ("read_curves-non-csv", _read_curves_non_csv, V, r"\bpath\b"),
    ("get_strategy-BMRI-n_b-0", lambda t: _strategy("BMRI", n_b=0), V, r"n_b"),
    ("get_strategy-SE-unknown-option", lambda t: _strategy("SE", foo=1), T, r"foo"),
    ("get_strategy-MRI-best-loss-lc", lambda t: _strategy("MRI-best", loss="lc"), V, r"loss"),
    ("select-no-candidates", _select_no_candidates, V, r"candidates"),
    # issue 54, part 3: registry options, the schedule's functions
    ("get_classifier-kknn5-unknown-option", lambda t: _classifier("kknn5", foo=1), T, r"foo"),
    ("get_classifier-svm-platt-bad", lambda t: _classifier("svm", platt="always"), V, r"^platt must be one of"),
    ("get_classifier-knn5-k-0", lambda t: _classifier("knn5", k=0), V, r"^k must be >= 1"),
    ("expected_costs-timed-nan", lambda t: _schedule("expected_costs", RS_TASK, timed={("lda", "RS"): [np.nan]}),
     V, r"^timed\["),
    ("expected_costs-timed-negative", lambda t: _schedule("expected_costs", RS_TASK, timed={("lda", "RS"): [-1.0]}),
     V, r"^timed\["),
    ("expected_costs-timed-text", lambda t: _schedule("expected_costs", RS_TASK, timed={("lda", "RS"): "fast"}),
     T, r"^timed\["),
    ("expected_costs-timed-key", lambda t: _schedule("expected_costs", RS_TASK, timed={"lda": [1.0]}), T,
     r"^timed must be keyed"),
    ("expected_costs-tasks-int", lambda t: _schedule("expected_costs", 3), T, r"^tasks must be a sequence"),
    ("expected_costs-costly-list", lambda t: _schedule("expected_costs", RS_TASK, costly=["RS"]), T, r"^costly"),
    ("describe_plans-int", lambda t: _schedule("describe_plans", 3), T, r"^plans must be a sequence"),
    ("describe_plans-nan", lambda t: _schedule("describe_plans", [_plan(table_order=np.nan)]), V, r"^plans"),
    ("describe_plans-negative", lambda t: _schedule("describe_plans", [_plan(total=-1.0)]), V, r"^plans"),
    ("describe_plans-workers-text", lambda t: _schedule("describe_plans", [_plan(workers="2")]), T, r"^plans"),
    ("simulate_makespan-overflow", lambda t: _schedule("simulate_makespan", [1e308, 1e308], 1), V,
     r"^durations"),
]


def _tree(path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.mark.parametrize("make, expected, pattern", [pytest.param(c, e, p, id=i) for i, c, e, p in SANDBOX_ROWS])
def test_bad_sandbox_input_is_refused(make, expected, pattern, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a row that wrongly writes to the working folder is caught below
    before = set(_tree(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("error", COMPLEX_WARNING)
        with pytest.raises(expected, match=pattern) as info:
            make(tmp_path)
    assert info.type is expected, f"expected exactly {expected.__name__}, got {info.type.__name__}"
    created = set(_tree(tmp_path)) - before - {"a_file.txt", "results.bin"}
    assert not created, f"a refused call created {sorted(created)}"


SMALL_ARGV = ["--strategies", "RS", "--replicates", "1", "--pool", "3", "--budget", "1", "--population", "64"]

# (id, argv of tmp_path, regex the one-line stderr must match)
CLI_ROWS = [
    ("cli-curves-out-empty", lambda t: ["curves", *SMALL_ARGV, "--out", ""], r"\bout\b"),
    ("cli-curves-out-file", lambda t: ["curves", *SMALL_ARGV, "--out", str(_a_file(t))], r"\bout\b"),
    ("cli-figures-only-unknown", lambda t: ["figures", "--only", "nope", "--out", str(t / "figs")], r"nope"),
    # issue 54, part 3: options that would be ignored are refused, naming them
    ("cli-study-standardize-without-data", lambda t: ["study", "--standardize", "--out", str(t / "s")],
     r"^mri-theory study: --standardize applies only to --data"),
    ("cli-study-test-size-with-problems", lambda t: ["study", "--problems", "four-gaussian", "--test-size", "0.5",
                                                      "--out", str(t / "s")], r"--test-size"),
    ("cli-study-target-without-data", lambda t: ["study", "--target", "y", "--out", str(t / "s")], r"--target"),
    ("cli-study-plan-with-grid-options", lambda t: ["study", "--plan", "4", "--replicates", "3", "--jobs", "2",
                                                     "--out", str(t / "s")],
     r"^mri-theory study: --plan .*--replicates, --jobs would be ignored"),
    ("cli-sensitivity-target-without-data", lambda t: ["sensitivity", str(t / "s"), "--target", "y", "--out",
                                                        str(t / "sens")], r"--target"),
    ("cli-sensitivity-data-without-target", lambda t: ["sensitivity", str(t / "s"), "--data", str(_a_file(t)),
                                                        "--out", str(t / "sens")], r"--data needs --target"),
]


@pytest.mark.parametrize("make_argv, pattern", [pytest.param(a, p, id=i) for i, a, p in CLI_ROWS])
def test_bad_cli_input_exits_2_with_one_line(make_argv, pattern, tmp_path, monkeypatch, capsys):
    from mri_theory.cli import main

    monkeypatch.chdir(tmp_path)
    argv = make_argv(tmp_path)
    before = set(_tree(tmp_path))
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse reports its own errors by exiting
        code = exc.code
    captured = capsys.readouterr()
    assert code == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert re.search(pattern, lines[0]), lines[0]
    created = set(_tree(tmp_path)) - before
    assert not created, f"a refused command created {sorted(created)}"


def test_second_table_size():
    assert len(SANDBOX_ROWS) + len(CLI_ROWS) >= 13


# ---------------------------------------------------------------- figures: bad output folder, nothing written


@pytest.mark.parametrize("make_out", [lambda tmp: tmp / "a-file", lambda tmp: tmp / "a-file" / "below", lambda tmp: ""],
                         ids=["out-is-a-file", "out-below-a-file", "out-empty"])
def test_figures_refuse_a_bad_out_folder(tmp_path, capsys, make_out):
    from mri_theory.cli import main

    (tmp_path / "a-file").write_text("not a folder")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    assert main(["figures", "--only", "qc_cases", "--quick", "--out", str(make_out(tmp_path))]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "out_dir" in err
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_make_figures_refuses_a_single_name_and_non_bool_flags(tmp_path):
    from mri_theory.figures import make_figures

    with pytest.raises(TypeError, match="names must be a sequence"):
        make_figures("qc_cases", tmp_path)
    with pytest.raises(TypeError, match="quick must be True or False"):
        make_figures(["qc_cases"], tmp_path, quick="yes")
    assert not any(tmp_path.iterdir())
