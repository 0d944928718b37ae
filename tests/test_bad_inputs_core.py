"""Bad input to the core APIs: nonmyopic, k-NN, the state-table summaries, strategies, problems, populations,
registries and the scikit-activeml adapter.

Table-driven like ``tests/test_bad_inputs.py``: every row of :data:`ROWS` is ``(id, callable, expected
exception type, regex)``; the callable makes one call with one bad argument (a whole *class* of bad input is
covered by a few rows: unbounded sizes, values out of the range where the arithmetic is exact, missing or
text values, malformed tables, degenerate keys, factories that cannot be called) and the test checks that
exactly that exception type is raised, with a message naming the argument, within a few seconds (an
unbounded size must be refused, not run).

Value tests follow the table: where a silent wrong result was possible, the accepted range is checked
against an independent computation (exact rational arithmetic and mpmath for the closed form of the
non-myopic policy, a brute-force neighbour search for k-NN).
"""

from __future__ import annotations

import signal
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pandas as pd
import pytest
from _optional import given, need, settings, st
from _shared import COMPLEX_WARNING

from mri_theory.analytic import nonmyopic as nm
from mri_theory.analytic import two_gaussians as tg
from mri_theory.classifiers import KNN, register_classifier
from mri_theory.classifiers.knn import optimal_weights
from mri_theory.engine.population import Population, qmc_uniforms
from mri_theory.evaluation.leaderboards import LEADERBOARD_COST_COLUMNS, leaderboard
from mri_theory.evaluation.summaries import estimator_errors, summarise_states
from mri_theory.problems import (
    DataProblem,
    GaussianMixtureProblem,
    get_problem,
    initial_labelled_set,
    register_problem,
)
from mri_theory.problems.bayes_error import compute_bayes_error
from mri_theory.strategies import (
    BootstrapMRI,
    Context,
    Strategy,
    get_strategy,
    register_strategy,
    select,
)
from mri_theory.strategies.skactiveml import SkactivemlStrategy

V, T = ValueError, TypeError

# ---------------------------------------------------------------- shared valid objects

FOUR = get_problem("four-gaussian")
X2, Y2 = FOUR.sample(12, np.random.default_rng(3))
POP2 = Population.from_problem(FOUR, 40, np.random.default_rng(1))
TG = tg.TwoGaussians()
CLF = tg.MeanClassifier((-0.5, 1.5), (5, 5))
HUGE = 10**12  # any allocation of this many floats fails at once: a row that is not refused fails fast


def rng() -> np.random.Generator:
    return np.random.default_rng(0)


def _gmp(means0=((0.0,),), cov0=(((1.0,),),), prior=(0.5, 0.5)):
    return GaussianMixtureProblem("p", [([1.0], means0, cov0), ([1.0], [[1.0]], [[[1.0]]])], prior)


class _NeverFitted(KNN):
    """A classifier whose fit fails the test: a refused call must be refused before any fit."""

    def fit(self, X, y, n_classes=None):
        raise AssertionError("fitted before the arguments were checked")


# ---------------------------------------------------------------- strategies returning bad scores


class Returns(Strategy):
    """A user's strategy that returns ``values`` whatever the candidates."""

    name = "Returns"

    def __init__(self, values) -> None:
        self.values = values

    def scores(self, ctx):
        return self.values


def _ctx(**bad) -> Context:
    args = {"X": X2, "y": Y2, "candidates": X2[:3], "pool": X2, "classifier": KNN(3), "n_classes": 2,
            "rng": rng()}
    return Context(**{**args, **bad})


def _select(values, **bad):
    return select(Returns(values), _ctx(**bad))


# ---------------------------------------------------------------- state tables

COLUMNS = ["problem", "classifier", "trajectory", "replicate", "step", "n_labelled", "strategy", "candidate",
           "score", "true_q_c", "loss", "t_e", "t_e_estimate"]


def _states(**bad) -> pd.DataFrame:
    """Two strategies (RS, SMRI) scoring 4 candidates of one state; ``bad`` replaces whole columns."""
    q = np.array([0.01, 0.03, -0.02, 0.0])
    loss = 0.25
    rows = []
    for strategy, score, estimate in (("RS", np.zeros(4), np.full(4, np.nan)),
                                      ("SMRI", -(loss - q + 0.01), loss - q + 0.01)):
        for i in range(4):
            rows.append(("four-gaussian", "knn5", "RS", 0, 0, 4, strategy, 10 + i, score[i], q[i], loss,
                         loss - q[i], estimate[i]))
    frame = pd.DataFrame(rows, columns=COLUMNS)
    for column, values in bad.items():
        frame[column] = values
    return frame


def _twice(column: str) -> pd.DataFrame:
    frame = _states()
    return pd.concat([frame, frame[[column]]], axis=1)


def _cost(**bad) -> pd.DataFrame:
    """The timings of the two strategies of :func:`_states`' state; ``bad`` replaces whole columns."""
    frame = pd.DataFrame([("four-gaussian", "knn5", "RS", 0, 0, s, 0.5) for s in ("RS", "SMRI")],
                         columns=LEADERBOARD_COST_COLUMNS)
    for column, values in bad.items():
        frame[column] = values
    return frame


# ---------------------------------------------------------------- CSV files


def _csv(tmp, text: str | bytes, name: str = "data.csv"):
    path = tmp / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def _from_csv(text, target="y"):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        return DataProblem.from_csv(_csv(Path(folder), text), target)


GOOD_ROWS = "".join(f"{i}.5,{i % 2}\n" for i in range(8))


def _labels(*extra):
    return np.array([0, 1, 0, 1, 0, 1, 0, *extra], dtype=object)


# ---------------------------------------------------------------- registries


def needs_an_argument(seed):
    return KNN(seed)


def needs_a_keyword(*, k):
    return KNN(k)


# (id, callable, expected exception type, regex naming the argument)
ROWS = [
    # ---- nonmyopic: the closed form's precision range, policies, sizes
    ("optimal_policy-pool-1e17", lambda: nm.optimal_policy(TG, CLF, [1e17, -1e17, 0.5], 2), V, r"^pool must lie"),
    ("optimal_policy-pool-2e4", lambda: nm.optimal_policy(TG, CLF, [2e4, 0.5], 1), V, r"^pool must lie"),
    ("optimal_policy-mu_hat-far", lambda: nm.optimal_policy(TG, tg.MeanClassifier((-1e17, 1e17), (5, 5)),
                                                            [0.3, 0.5], 2), V, r"^classifier.mu_hat must lie"),
    ("optimal_policy-problem-far", lambda: nm.optimal_policy(tg.TwoGaussians(mu=(1e17, 1e17 + 64)), CLF,
                                                             [0.3, 0.5], 1), V, r"^problem.mu must lie"),
    ("policy_values-pool-far", lambda: nm.policy_values(TG, CLF, [-3e4, 0.5], 1), V, r"^pool must lie"),
    ("policy_value-pool-far", lambda: nm.policy_value(TG, CLF, [0.1, 1e300], 1, "greedy"), V, r"^pool must lie"),
    ("value_curves-pool-far", lambda: nm.value_curves(TG, CLF, [0.1, -1e5], 1), V, r"^pool must lie"),
    ("policy_values-policies-repeated", lambda: nm.policy_values(TG, CLF, [0.1, 0.2], 1, ["rs", "rs"]), V,
     r"^policies must name each policy once"),
    ("policy_values-policies-mapping", lambda: nm.policy_values(TG, CLF, [0.1, 0.2], 1, {"greedy": 1}), T,
     r"^policies must be a sequence"),
    ("policy_values-policies-set", lambda: nm.policy_values(TG, CLF, [0.1, 0.2], 1, {"greedy", "rs"}), T,
     r"^policies must be a sequence"),
    ("policy_values-policies-int", lambda: nm.policy_values(TG, CLF, [0.1, 0.2], 1, [1]), V, r"^policies must be"),
    ("optimal_policy-max_states-unbounded", lambda: nm.optimal_policy(TG, CLF, np.linspace(-1, 1, 25), 12,
                                                                      max_states=10**12), V, r"^max_states must be <="),
    ("value_curves-max_horizon-0", lambda: nm.value_curves(TG, CLF, [0.1, 0.2], 0), V, r"^max_horizon must be >= 1"),
    ("value_curves-max_horizon-beyond-pool", lambda: nm.value_curves(TG, CLF, [0.1, 0.2], 3), V,
     r"^max_horizon must be at most the pool size"),
    ("optimal_policy-general-horizon-before-the-fit",
     lambda: nm.optimal_policy(FOUR, _NeverFitted(), X2[:3], 4, X_S=X2, y_S=Y2, population=POP2), V,
     r"^horizon must be at most the pool size \(3\)"),
    ("optimal_policy-loss-array", lambda: nm.optimal_policy(TG, CLF, [0.1, 0.2], 1, loss=np.array(["error", "log"])),
     V, r"^loss must be 'error'"),
    ("sample_state-n-unbounded", lambda: nm.sample_state(TG, (HUGE, 5), 3, rng()), V, r"^n must be <="),
    ("sample_state-pool_size-unbounded", lambda: nm.sample_state(TG, (5, 5), HUGE, rng()), V,
     r"^pool_size must be <="),
    ("sample_state-pool_size-10**400", lambda: nm.sample_state(TG, (5, 5), 10**400, rng()), V,
     r"^pool_size must be <="),
    # ---- k-NN: scaled coordinates whose squared distances would overflow or underflow
    ("KNN-scale-subnormal", lambda: KNN(1, scale=[1e-320, 1.0]), V, r"^scale entries must be at least"),
    ("KNN.fit-scale-tiny", lambda: KNN(1, scale=[1e-200, 1e-200]).fit(X2, Y2), V, r"^X: after dividing by scale"),
    ("KNN.fit-scale-huge", lambda: KNN(1, scale=[1e300, 1.0]).fit(X2, Y2), V, r"^X: after dividing by scale"),
    ("KNN.fit-X-huge", lambda: KNN(1).fit(X2 * 1e200, Y2), V, r"^X: after dividing by scale"),
    ("KNN.fit-X-tiny", lambda: KNN(1).fit(X2 * 1e-200, Y2), V, r"^X: after dividing by scale"),
    ("KNN.fit-train-scale-tiny", lambda: KNN(1, scale="train").fit(X2 * 1e-300, Y2), V, r"^X: after dividing"),
    ("KNN.predict_proba-X-huge", lambda: KNN(1).fit(X2, Y2).predict_proba(X2[:3] * 1e200), V, r"^X: after"),
    ("KNN.retraining_losses-candidates-huge",
     lambda: KNN(3).fit(X2, Y2).retraining_losses(X2[:2] * 1e160, POP2, "error"), V, r"^candidates: after"),
    ("KNN.retraining_losses-population-tiny",
     lambda: KNN(3).fit(X2, Y2).retraining_losses(X2[:2], Population(POP2.X * 1e-160, POP2.proba), "error"), V,
     r"^population: after"),
    ("optimal_weights-k-unbounded", lambda: optimal_weights(HUGE, 2), V, r"^k must be <="),
    ("optimal_weights-d-10**400", lambda: optimal_weights(5, 10**400), V, r"^d must be <="),
    # ---- summaries: bounded draws, malformed tables, degenerate keys
    ("estimator_errors-n_draws-unbounded", lambda: estimator_errors(_states(), n_draws=10**9), V,
     r"^n_draws must be <="),
    ("estimator_errors-n_draws-10**400", lambda: estimator_errors(_states(), n_draws=10**400), V,
     r"^n_draws must be <="),
    ("summarise_states-loss-negative", lambda: summarise_states(_states(loss=-0.25)), V, r"^states\['loss'\]"),
    ("summarise_states-candidate-fraction", lambda: summarise_states(_states(candidate=np.arange(8) + 0.5)), V,
     r"^states\['candidate'\] must hold integers"),
    ("summarise_states-candidate-negative", lambda: summarise_states(_states(candidate=-np.arange(8) - 1)), V,
     r"^states\['candidate'\] must hold integers"),
    ("summarise_states-step-fraction", lambda: summarise_states(_states(step=0.5)), V, r"^states\['step'\]"),
    ("summarise_states-replicate-text", lambda: summarise_states(_states(replicate="0")), T,
     r"^states\['replicate'\] must be numeric"),
    ("summarise_states-n_labelled-text-object", lambda: summarise_states(_states(n_labelled=np.array(["4"] * 8,
                                                                                                     dtype=object))),
     T, r"^states\['n_labelled'\] must be numeric"),
    ("summarise_states-score-text-object", lambda: summarise_states(_states(score=np.array(["1"] * 8, dtype=object))),
     T, r"^states\['score'\] must be numeric"),
    ("summarise_states-strategy-unhashable", lambda: summarise_states(_states(strategy=[["RS"]] * 8)), T,
     r"^states\['strategy'\] must hold names"),
    ("summarise_states-strategy-int", lambda: summarise_states(_states(strategy=[1] * 4 + [2] * 4)), T,
     r"^states\['strategy'\] must hold names"),
    ("summarise_states-problem-mixed", lambda: summarise_states(_states(problem=["a"] * 7 + [3])), T,
     r"^states\['problem'\] must hold names"),
    ("summarise_states-column-twice", lambda: summarise_states(_twice("score")), V,
     r"^states has the columns \['score'\] more than once"),
    ("estimator_errors-column-twice", lambda: estimator_errors(_twice("t_e"), n_draws=10), V,
     r"^states has the columns \['t_e'\]"),
    # ---- the leaderboard: its options and the cost table, refused before any statistic
    ("leaderboard-phases-decreasing", lambda: leaderboard(_states(), phases=[50, 12]), V,
     r"^phases must be strictly increasing edges, got \[50, 12\]"),
    ("leaderboard-phases-text", lambda: leaderboard(_states(), phases="12 50"), T, r"^phases must be a sequence"),
    ("leaderboard-phases-fraction", lambda: leaderboard(_states(), phases=[12.5]), V, r"^phases must be an integer"),
    ("leaderboard-phases-negative", lambda: leaderboard(_states(), phases=[-1, 12]), V, r"^phases must be >= 0"),
    ("leaderboard-n_boot-unbounded", lambda: leaderboard(_states(), n_boot=10**9), V, r"^n_boot must be <= 10_000"),
    ("leaderboard-n_boot-bool", lambda: leaderboard(_states(), n_boot=True), T, r"^n_boot must be an integer"),
    ("leaderboard-seed-negative", lambda: leaderboard(_states(), seed=-1), V, r"^seed must be >= 0"),
    ("leaderboard-seed-generator", lambda: leaderboard(_states(), seed=rng()), T, r"^seed must be an integer"),
    ("leaderboard-level-one", lambda: leaderboard(_states(), level=1.0), V, r"^level must lie in \(0, 1\)"),
    ("leaderboard-level-nan", lambda: leaderboard(_states(), level=float("nan")), V, r"^level"),
    ("leaderboard-top_k-zero", lambda: leaderboard(_states(), top_k=0), V, r"^top_k must be >= 1"),
    ("leaderboard-resolved_only-text", lambda: leaderboard(_states(), resolved_only="yes"), T,
     r"^resolved_only must be True or False"),
    ("leaderboard-states-list", lambda: leaderboard([1, 2]), T, r"^states must be a pandas DataFrame"),
    ("leaderboard-states-loss-negative", lambda: leaderboard(_states(loss=-0.25)), V, r"^states\['loss'\]"),
    ("leaderboard-cost-column-missing", lambda: leaderboard(_states(), cost=_cost().drop(columns="cpu_s")), V,
     r"^cost must have the columns"),
    ("leaderboard-cost-negative", lambda: leaderboard(_states(), cost=_cost(cpu_s=-1.0)), V,
     r"^cost\['cpu_s'\] must hold seconds >= 0"),
    ("leaderboard-cost-nan", lambda: leaderboard(_states(), cost=_cost(cpu_s=np.nan)), V, r"^cost\['cpu_s'\]"),
    ("leaderboard-cost-step-fraction", lambda: leaderboard(_states(), cost=_cost(step=0.5)), V,
     r"^cost\['step'\] must hold integers"),
    ("leaderboard-cost-strategy-int", lambda: leaderboard(_states(), cost=_cost(strategy=[1, 2])), T,
     r"^cost\['strategy'\] must hold names"),
    ("leaderboard-cost-repeated", lambda: leaderboard(_states(), cost=_cost(strategy="RS")), V,
     r"^cost has more than one row for a \(state, strategy\)"),
    ("leaderboard-cost-dict", lambda: leaderboard(_states(), cost={"cpu_s": 1.0}), T,
     r"^cost must be a pandas DataFrame"),
    # ---- strategies: a strategy returning bad scores is named; its constructors bound their sizes
    ("select-scores-nan", lambda: _select(np.array([0.0, np.nan, 1.0])), V,
     r"^strategy 'Returns' \(Returns\) returned non-finite scores .*candidates \[1\]"),
    ("select-scores-inf", lambda: _select(np.array([0.0, 1.0, -np.inf])), V, r"^strategy 'Returns'.*non-finite"),
    ("select-scores-short", lambda: _select(np.zeros(2)), V, r"^strategy 'Returns'.*shape \(2,\).*\(3,\)"),
    ("select-scores-2d", lambda: _select(np.zeros((3, 1))), V, r"^strategy 'Returns'.*shape \(3, 1\)"),
    ("select-scores-None", lambda: _select(None), T, r"^the scores of strategy 'Returns'.*None"),
    ("select-scores-text", lambda: _select(["1", "2", "3"]), T, r"^the scores of strategy 'Returns'.*text"),
    ("select-scores-complex", lambda: _select(np.array([1j, 0, 0])), T, r"^the scores of strategy 'Returns'.*real"),
    ("select-ctx.rng-int", lambda: _select(np.zeros(3), rng=0), T, r"^ctx.rng must be a numpy.random.Generator"),
    ("select-ctx.candidates-list", lambda: _select(np.zeros(3), candidates=X2[:3].tolist()), T,
     r"^ctx.candidates must be a numpy array"),
    ("BootstrapMRI-n_b-unbounded", lambda: BootstrapMRI(n_b=10**9), V, r"^n_b must be <="),
    ("BootstrapMRI-theta2_trees-unbounded", lambda: BootstrapMRI(theta2_trees=10**9), V,
     r"^theta2_trees must be <="),
    ("get_strategy-BMRI-n_b-unbounded", lambda: get_strategy("BMRI", n_b=HUGE), V, r"^n_b must be <="),
    # ---- problems: bounded sample sizes, parameters in range, labels, files
    ("GaussianMixtureProblem.sample-n-unbounded", lambda: FOUR.sample(HUGE, rng()), V, r"^n must be <="),
    ("bayes_error_monte_carlo-n-unbounded", lambda: FOUR.bayes_error_monte_carlo(HUGE, rng()), V,
     r"^n must be <="),
    ("draw_replicate-pool_size-unbounded", lambda: FOUR.draw_replicate(HUGE, 64, rng()), V,
     r"^pool_size must be <="),
    ("draw_replicate-population_size-unbounded", lambda: FOUR.draw_replicate(3, HUGE, rng()), V,
     r"^population_size must be <="),
    ("compute_bayes_error-resolution-unbounded", lambda: FOUR.compute_bayes_error(10**9), V,
     r"^resolution must be <="),
    ("GaussianMixtureProblem-means-huge", lambda: _gmp(means0=[[1e200]]), V, r"^classes\[0\] means must be at most"),
    ("GaussianMixtureProblem-covariance-tiny", lambda: _gmp(cov0=[[[1e-320]]]), V,
     r"^classes\[0\] covariances must have eigenvalues >="),
    ("initial_labelled_set-class-never-drawn", lambda: initial_labelled_set(_gmp(prior=(1 - 1e-12, 1e-12)), rng()),
     V, r"^problem 'p': no point of classes \[1\] in 1_048_576 draws"),
    ("DataProblem-y-NaN-among-ints", lambda: DataProblem(np.arange(8.0), _labels(float("nan"))), V,
     r"^y must not hold missing labels"),
    ("DataProblem-y-pd.NA-among-ints", lambda: DataProblem(np.arange(8.0), _labels(pd.NA)), V,
     r"^y must not hold missing labels"),
    ("DataProblem-X-text-numbers", lambda: DataProblem(np.array([1, "2", 3, 4, 5, 6, 7, 8], dtype=object),
                                                        [0, 1] * 4), T, r"^X must be numeric, got text"),
    ("DataProblem-standardize-sd-underflows", lambda: DataProblem(np.arange(8.0) * 1e-200, [0, 1] * 4,
                                                                   standardize=True), V,
     r"^X columns \[0\] vary by too little to standardize"),
    ("DataProblem.from_csv-empty", lambda: _from_csv(""), V, r"^path '.*data.csv' cannot be read"),
    ("DataProblem.from_csv-not-utf8", lambda: _from_csv(b"\xff\xfe\x00\x81a,y\n1,0\n"), V,
     r"^path '.*data.csv' cannot be read"),
    ("DataProblem.from_csv-ragged", lambda: _from_csv("a,y\n1,0\n2,1,5,6\n"), V, r"^path '.*data.csv' cannot be"),
    ("DataProblem.from_csv-header-repeated", lambda: _from_csv("a,a,y\n" + "1,2,0\n3,4,1\n" * 4), V,
     r"^path '.*data.csv': the header names the columns \['a'\] more than once"),
    ("DataProblem.from_csv-label-missing", lambda: _from_csv("a,y\n" + GOOD_ROWS + "9.5,\n"), V,
     r"^target column 'y' of '.*data.csv' has missing labels in data rows \[9\]"),
    # ---- registries: a factory must be callable without arguments
    ("register_classifier-factory-needs-argument", lambda: register_classifier("h3-needs", needs_an_argument), T,
     r"^factory 'needs_an_argument' registered as classifier 'h3-needs' cannot be called without arguments"),
    ("register_strategy-factory-needs-keyword", lambda: register_strategy("h3-needs", needs_a_keyword), T,
     r"^factory 'needs_a_keyword' registered as strategy 'h3-needs'.*\['k'\]"),
    ("register_problem-class-needs-arguments", lambda: register_problem("h3-needs", DataProblem), T,
     r"^factory 'DataProblem' registered as problem 'h3-needs'.*\['X', 'y'\]"),
    # ---- populations: bounded sizes, weights whose sum overflows
    ("Population.from_problem-size-unbounded", lambda: Population.from_problem(FOUR, HUGE, rng()), V,
     r"^size must be <="),
    ("Population-weights-sum-overflows", lambda: Population(X2, np.full((12, 2), 0.5), np.full(12, 1e308)), V,
     r"^weights must have a finite sum"),
    ("Population.from_labels-n_classes-too-many-cells", lambda: Population.from_labels(X2, Y2, 10**7), V,
     r"^n_classes: 12 points x 10000000 classes"),
    ("qmc_uniforms-dim-0", lambda: qmc_uniforms(0, 4, rng()), V, r"^dim must be >= 1"),
    ("qmc_uniforms-dim-unbounded", lambda: qmc_uniforms(10**6, 4, rng()), V, r"^dim must be <="),
    ("qmc_uniforms-size-0", lambda: qmc_uniforms(2, 0, rng()), V, r"^size must be >= 1"),
    ("qmc_uniforms-size-unbounded", lambda: qmc_uniforms(2, HUGE, rng()), V, r"^size must be <="),
    ("qmc_uniforms-rng-int", lambda: qmc_uniforms(2, 4, 0), T, r"^rng must be a numpy.random.Generator"),
    # ---- the scikit-activeml adapter
    ("SkactivemlStrategy-query_params-int-key", lambda: _skal(query_params={1: 2, "fit_clf": True}), T,
     r"^query_params keys must be query's argument names"),
    ("bayes_error-module-resolution-unbounded", lambda: compute_bayes_error(FOUR, 10**9), V, r"^resolution must be <="),
    ("classifier-fit-n_classes-unbounded", lambda: KNN(1).fit([[0.0], [1.0]], [0, 1], 10**9), V,
     r"^n_classes .*must be <="),
    ("classifier-fit-label-unbounded", lambda: KNN(1).fit([[0.0], [1.0]], [0, 10**9]), V,
     r"^n_classes \(max\(y\) \+ 1 when not given\) must be <="),
]


def _skal(**kwargs):
    return SkactivemlStrategy(need("skactiveml.pool").UncertaintySampling(), **kwargs)


def _alarm(signum, frame):
    raise TimeoutError("the call ran for more than 30 s: an unbounded size was not refused")


@pytest.mark.parametrize("call, expected, pattern", [pytest.param(c, e, p, id=i) for i, c, e, p in ROWS])
def test_bad_input_is_refused(call, expected, pattern):
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(30)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", COMPLEX_WARNING)
            with pytest.raises(expected, match=pattern) as info:
                call()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert info.type is expected, f"expected exactly {expected.__name__}, got {info.type.__name__}: {info.value}"


def test_table_is_large_with_unique_ids():
    ids = [row[0] for row in ROWS]
    assert len(ids) >= 60
    assert len(set(ids)) == len(ids)


def test_refused_registrations_leave_the_registries_unchanged():
    from mri_theory.classifiers import list_classifiers
    from mri_theory.problems import list_problems
    from mri_theory.strategies import list_strategies

    for register in (register_classifier, register_strategy, register_problem):
        with pytest.raises(TypeError, match=r"cannot be called without arguments"):
            register("h3-refused", needs_an_argument)
    assert "h3-refused" not in list_classifiers() + list_problems() + list_strategies()


def test_factories_callable_without_arguments_are_still_accepted(own_registrations):
    """Defaults, ``*args``/``**kwargs`` and classes with optional parameters: accepted as before."""
    from mri_theory.classifiers import get_classifier
    from mri_theory.strategies import RandomSelection

    # Registrations of this test stay in it: own_registrations unregisters them afterwards.
    register_classifier("h3-knn7", lambda k=7: KNN(k), overwrite=True)
    assert get_classifier("h3-knn7").k == 7
    register_strategy("h3-rs", lambda *args, **kwargs: RandomSelection(), overwrite=True)
    assert isinstance(get_strategy("h3-rs"), RandomSelection)
    register_strategy("h3-bmri", BootstrapMRI, overwrite=True)
    assert get_strategy("h3-bmri", n_b=3).n_b == 3


# ---------------------------------------------------------------- the closed form near its range's edge


def _exact_error(problem, clf, m1: Fraction, m2: Fraction):
    """Eq. le_equation_1 with the means exact (rationals) and the boundary and CDFs in 50-digit mpmath."""
    mpmath.mp.dps = 50
    pi1, pi2 = (mpmath.mpf(p) for p in problem.prior)
    lpr = mpmath.log(mpmath.mpf(clf.prior[0]) / mpmath.mpf(clf.prior[1]))
    if m1 == m2:
        return pi2 if lpr >= 0 else pi1
    mp = lambda f: mpmath.mpf(f.numerator) / f.denominator  # noqa: E731
    t = (mp(m1) + mp(m2)) / 2 + mpmath.mpf(clf.sigma) ** 2 * lpr / mp(m2 - m1)
    F1 = mpmath.ncdf((t - problem.mu[0]) / problem.sigma)
    F2 = mpmath.ncdf((t - problem.mu[1]) / problem.sigma)
    return pi1 * (1 - F1) + pi2 * F2 if m1 < m2 else pi1 * F1 + pi2 * (1 - F2)


def _exact_optimal(problem, clf, pool, horizon):
    """The expectimax of the module notes by plain recursion over labelled sets, means summed exactly."""
    pool = [Fraction(x) for x in pool]
    post = [[mpmath.mpf(p) for p in row] for row in problem.posterior(np.array([float(x) for x in pool]))]

    def loss(state):
        means = []
        for j in range(2):
            total = clf.n[j] * Fraction(clf.mu_hat[j]) + sum(pool[i] for i, label in state if label == j)
            means.append(total / (clf.n[j] + sum(1 for _, label in state if label == j)))
        return _exact_error(problem, clf, *means)

    def value(state, left):
        if left == 0:
            return loss(state)
        used = {i for i, _ in state}
        return min(sum(post[i][j] * value(state | {(i, j)}, left - 1) for j in range(2))
                   for i in range(len(pool)) if i not in used)

    return float(value(frozenset(), horizon))


@pytest.mark.parametrize("clf, pool, horizon", [
    (CLF, [9e3, -9e3, 0.5], 2),          # labelled at opposite ends, the means' midpoint is a small difference
    (CLF, [9.99e3, -9.99e3, 0.5, 0.25], 3),
    (tg.MeanClassifier((-9e3, 9e3), (3, 4)), [9e3, -9e3, 0.5, 0.25], 3),
    (tg.MeanClassifier((-0.2, 0.9), (2, 7)), [-1.3, 0.1, 0.4, 2.2], 3),
])
def test_optimal_policy_matches_exact_arithmetic_inside_the_range(clf, pool, horizon):
    """Within MAX_WIDTHS sd the closed form agrees with exact means and 50-digit CDFs to 1e-11."""
    assert max(abs(v) for v in [*pool, *clf.mu_hat]) <= 1e4 * TG.sigma  # inside nonmyopic.MAX_WIDTHS
    exact = _exact_optimal(TG, clf, pool, horizon)
    assert nm.optimal_policy(TG, clf, pool, horizon).value == pytest.approx(exact, abs=1e-11)


def test_far_pool_points_were_a_silent_wrong_result():
    """The audit's case: +-1e17 gave 0.1587; exact arithmetic gives 0.1791 (so refusing is right)."""
    exact = _exact_optimal(TG, CLF, [1e17, -1e17, 0.5], 2)
    assert exact == pytest.approx(0.17906233357226, abs=1e-12)
    with pytest.raises(ValueError, match=r"^pool must lie"):
        nm.optimal_policy(TG, CLF, [1e17, -1e17, 0.5], 2)


# ---------------------------------------------------------------- k-NN inside its coordinate range


def _brute_knn_proba(X, y, query, k, scale, n_classes=2):
    """Vote shares of the k nearest by exact rational squared distances, ties to the lower training index."""
    out = np.zeros((len(query), n_classes))
    for r, q in enumerate(query):
        d2 = [sum((Fraction(q[t]) / Fraction(scale[t]) - Fraction(x[t]) / Fraction(scale[t])) ** 2
                  for t in range(len(q))) for x in X]
        nearest = sorted(range(len(X)), key=lambda i: (d2[i], i))[:k]
        for i in nearest:
            out[r, y[i]] += 1 / k
    return out


@pytest.mark.parametrize("scale", [(1e-90, 1.0), (1.0, 1e90), (1e-60, 1e-60), (3e-7, 2e5)])
def test_knn_with_extreme_accepted_scales_matches_brute_force(scale):
    X, y = FOUR.sample(40, np.random.default_rng(8))
    query = FOUR.sample(25, np.random.default_rng(9))[0]
    got = KNN(5, scale=list(scale)).fit(X, y).predict_proba(query)
    np.testing.assert_allclose(got, _brute_knn_proba(X, y, query, 5, scale), rtol=0, atol=1e-15)


@settings(max_examples=25, deadline=None)
@given(exponent=st.integers(-300, 300), seed=st.integers(0, 2**31))
def test_knn_is_exactly_invariant_to_power_of_two_scalings_in_range(exponent, seed):
    """Multiplying every point by 2**e changes squared distances by 4**e exactly (no overflow/underflow inside
    the accepted range), so neighbours, probabilities and the fast path's future losses are unchanged."""
    X, y = FOUR.sample(30, np.random.default_rng(seed))
    cand, pop = X[:4], Population(POP2.X, POP2.proba)
    f = 2.0**exponent
    base = KNN(3, kernel="optimal").fit(X, y)
    scaled = KNN(3, kernel="optimal").fit(X * f, y)
    np.testing.assert_array_equal(scaled.predict_proba(cand * f), base.predict_proba(cand))
    np.testing.assert_array_equal(scaled.retraining_losses(cand * f, Population(pop.X * f, pop.proba), "error")[1],
                                  base.retraining_losses(cand, pop, "error")[1])


def test_knn_zero_coordinates_are_accepted():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_array_equal(KNN(1).fit(X, [0, 1, 1]).predict_proba([[0.0, 0.1]]), [[1.0, 0.0]])


# ---------------------------------------------------------------- valid inputs next to the refused ones


def test_population_from_labels_is_one_hot():
    pop = Population.from_labels(X2[:3], [2, 0, 1], 4)
    np.testing.assert_array_equal(pop.proba, [[0, 0, 1, 0], [1, 0, 0, 0], [0, 1, 0, 0]])


def test_large_finite_weights_still_normalise():
    w = np.full(12, 1e306)
    w[0] = 3e306
    pop = Population(X2, np.full((12, 2), 0.5), w)
    assert pop.weights[0] == pytest.approx(3 / 14, rel=1e-15)


def test_data_problem_text_labels_still_work(tmp_path):
    text = "a,y\n" + "".join(f"{i}.5,{'yes' if i % 2 else 'no'}\n" for i in range(8))
    problem = DataProblem.from_csv(_csv(tmp_path, text), "y")
    assert problem.classes.tolist() == ["no", "yes"]
    assert problem.y.tolist() == [0, 1] * 4


def test_sizes_at_the_bound_are_accepted_by_the_check():
    from mri_theory._utils import validation as check

    assert check.count(check.MAX_SIZE, "n", maximum=check.MAX_SIZE) == check.MAX_SIZE
    with pytest.raises(ValueError, match=r"^n must be <= 100_000_000"):
        check.count(check.MAX_SIZE + 1, "n", maximum=check.MAX_SIZE)


def test_summaries_accept_the_valid_table():
    frame = _states()
    assert len(summarise_states(frame, per_state=True)) == 2
    assert len(estimator_errors(frame, per_state=True, n_draws=10)) == 1
    board = leaderboard(frame, n_boot=5, cost=_cost())  # the valid neighbours of the leaderboard's rows
    assert set(board.strategy) == {"RS", "SMRI", "MRI-best"} and set(board.phase) == {"≤12", "all"}
    assert board.set_index("strategy").timed_states.to_dict() == {"RS": 1, "SMRI": 1, "MRI-best": 0}



def test_initial_labelled_set_is_the_first_point_of_each_class_in_the_draws():
    """Against the definition: concatenate batches of 64 k draws until every class has appeared, take the
    first point of each class; the generator must end in the same state (the pool is drawn from it next)."""
    problem = GaussianMixtureProblem("rare", [([1.0], [[0.0]], [[[1.0]]]), ([1.0], [[1.0]], [[[1.0]]]),
                                              ([1.0], [[2.0]], [[[1.0]]])], [0.996, 0.002, 0.002])
    for seed in range(5):
        mine, reference = np.random.default_rng(seed), np.random.default_rng(seed)
        X0, y0 = initial_labelled_set(problem, mine)
        batches = [problem.sample(192, reference)]
        while len(set(np.concatenate([b[1] for b in batches]).tolist())) < 3:
            batches.append(problem.sample(192, reference))
        X = np.concatenate([b[0] for b in batches])
        y = np.concatenate([b[1] for b in batches])
        first = [int(np.flatnonzero(y == j)[0]) for j in range(3)]
        np.testing.assert_array_equal(X0, X[first])
        np.testing.assert_array_equal(y0, [0, 1, 2])
        assert mine.random() == reference.random()


@settings(max_examples=60, deadline=None)
@given(x=st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300),
       sigma=st.sampled_from([0.5, 1.0, 3.0]))
def test_closed_form_refuses_exactly_beyond_its_range(x, sigma):
    problem = tg.TwoGaussians(sigma=sigma)
    clf = tg.MeanClassifier((-0.5, 1.5), (5, 5), sigma=sigma)
    if abs(x) <= 1e4 * sigma:
        value = nm.policy_value(problem, clf, [0.0, x], 1, "greedy")
        assert 0.0 <= value <= 1.0
    else:
        with pytest.raises(ValueError, match=r"^pool must lie"):
            nm.policy_value(problem, clf, [0.0, x], 1, "greedy")


@settings(max_examples=40, deadline=None)
@given(missing=st.sampled_from([None, float("nan"), pd.NA, pd.NaT, np.nan]), where=st.integers(0, 8),
       text=st.booleans())
def test_a_missing_label_anywhere_is_refused(missing, where, text):
    labels = [("a" if text else 0), ("b" if text else 1)] * 4
    labels.insert(where, missing)
    X = np.arange(9.0)
    with pytest.raises(ValueError, match=r"^y must not hold missing"):
        DataProblem(X, np.array(labels, dtype=object))
