"""The §3.3 demonstration: the :class:`NoisyOracle` strategy and its learning curves in the sandbox.

Independent references:

* ``sigma = 0`` against :class:`~mri_theory.strategies.MRIBest` in the same state (same choice, scores and
  generator state afterwards), and in the sandbox (the same trajectory as MRI-best);
* ``sigma = inf`` against the uniform distribution (chi-square goodness of fit);
* intermediate ``sigma`` against :func:`mri_theory.analytic.guarantee.simulate_selection`'s selection frequencies for
  the same true Q^c (a vectorised argmax of ``q + N(0, s^2)``), by a chi-square test of homogeneity,
  with a check that the same test rejects the wrong noise level;
* the curves: the table of ``noisy_selection_curves`` equals ``run_curves`` with the same objects, and the
  ordering optimal < noisy < RS < MRI-worst of §3.3 holds by paired z statistics.

Every chi-square test has a stated false-failure probability of 1e-4 (fixed seeds make each run deterministic).
"""

from __future__ import annotations

import pickle
import re

import numpy as np
import pandas as pd
import pytest
from _optional import given, settings, st
from _shared import QUIET, TWO_WORKERS
from pandas.testing import assert_frame_equal
from scipy import stats

from mri_theory.analytic.guarantee import simulate_selection
from mri_theory.classifiers import get_classifier
from mri_theory.engine.population import Population
from mri_theory.engine.targets import true_q_c
from mri_theory.problems import get_problem
from mri_theory.runners.noisy_selection import NoisyOracle, noisy_selection_curves
from mri_theory.runners.sandbox import RESULT_COLUMNS, run_curves
from mri_theory.strategies import Context, MRIBest, MRIWorst, select

ALPHA = 1e-4  # false-failure probability of each chi-square test
PROBLEM = get_problem("two-gaussians")
MEAN = get_classifier("mean")


def _state(seed: int, n_labelled: int = 4, m: int = 8, population_size: int = 512, problem=PROBLEM,
           classifier=MEAN) -> tuple:
    """A random AL state: labelled data with every class, candidates and a QMC population."""
    rng = np.random.default_rng(seed)
    while True:
        X, y = problem.sample(n_labelled, rng)
        if np.unique(y).size == problem.n_classes:
            break
    candidates, _ = problem.sample(m, rng)
    population = Population.from_problem(problem, population_size, rng, method="qmc")
    return X, y, candidates, classifier, problem, population


def _context(state: tuple, rng: np.random.Generator) -> Context:
    X, y, candidates, classifier, problem, population = state
    return Context(X, y, candidates, candidates, classifier, problem.n_classes, rng, problem, population)


def _selection_counts(strategy, state: tuple, draws: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    counts = np.zeros(state[2].shape[0], dtype=np.int64)
    for _ in range(draws):
        counts[select(strategy, _context(state, rng))[0]] += 1
    return counts


# ------------------------------------------------------------------ the strategy


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), relative=st.booleans(), knn=st.booleans())
def test_sigma_zero_makes_mri_best_choice_in_the_same_state(seed, relative, knn):
    state = (_state(seed, n_labelled=6, problem=get_problem("four-gaussian"), classifier=get_classifier("knn5"))
             if knn else _state(seed))
    rng_noisy, rng_best = np.random.default_rng(seed), np.random.default_rng(seed)
    i, scores = select(NoisyOracle(0.0, relative=relative), _context(state, rng_noisy))
    j, best = select(MRIBest(), _context(state, rng_best))
    assert i == j
    np.testing.assert_array_equal(scores, best)
    assert rng_noisy.bit_generator.state == rng_best.bit_generator.state  # same draws: same trajectories


def test_sigma_zero_follows_mri_best_in_the_sandbox():
    args = {"problem": "two-gaussians", "classifier": "mean", "pool_size": 12, "replicates": 3, "seed": 4,
            "budget": 6, "population_size": 256, "subsample": None, "execution": QUIET}
    noisy = run_curves(strategies=[NoisyOracle(0.0)], **args)
    best = run_curves(strategies=["MRI-best"], **args)
    for column in ("n_labelled", "chosen", "loss", "q_c_chosen", "q_c_best"):
        np.testing.assert_array_equal(noisy[column].to_numpy(), best[column].to_numpy(), err_msg=column)


@pytest.mark.parametrize("relative", [True, False])
def test_sigma_inf_is_uniform(relative):
    state = _state(11, m=6)
    draws = 30_000
    counts = _selection_counts(NoisyOracle(np.inf, relative=relative), state, draws, seed=2)
    assert stats.chisquare(counts).pvalue > ALPHA
    # the truth's choice is not favoured: MRI-best's candidate gets its uniform share (5 sd binomial bound)
    best = int(np.argmax(true_q_c(PROBLEM, MEAN, *state[:3], state[5])))
    assert abs(counts[best] - draws / 6) < 5 * np.sqrt(draws * (1 / 6) * (5 / 6))


@pytest.mark.parametrize("sigma, relative", [(0.5, True), (2.0, True), (None, False)])
def test_intermediate_sigma_matches_simulate_selection(sigma, relative):
    """Selection frequencies of NoisyOracle = those of argmax(q + N(0, s^2)) for the same true q."""
    state = _state(7, n_labelled=5, m=8)
    q = true_q_c(PROBLEM, MEAN, *state[:3], state[5])
    assert q.std() > 0
    noise_sd = sigma * q.std() if relative else 0.7 * q.std()  # absolute: a level of the order of Q^c's spread
    level = sigma if relative else noise_sd
    draws = 2000
    counts = _selection_counts(NoisyOracle(level, relative=relative), state, draws, seed=3)
    ref_draws = 400_000
    reference = simulate_selection(q, noise_sd, ref_draws, np.random.default_rng(4)).frequencies
    ref_counts = np.rint(reference * ref_draws)
    keep = (counts + ref_counts) > 0
    assert stats.chi2_contingency(np.vstack([counts, ref_counts])[:, keep]).pvalue > ALPHA
    # the test has power: a noise level three times off is rejected
    for wrong in (noise_sd / 3, noise_sd * 3):
        other = np.rint(simulate_selection(q, wrong, ref_draws, np.random.default_rng(5)).frequencies * ref_draws)
        keep = (counts + other) > 0
        assert stats.chi2_contingency(np.vstack([counts, other])[:, keep]).pvalue < ALPHA


def test_relative_noise_scales_with_the_candidates_sd():
    """The noise added is N(0, (sigma sd(q))^2): its sample sd over many scorings, within a 5 sd chi bound."""
    state = _state(9, m=8)
    q = true_q_c(PROBLEM, MEAN, *state[:3], state[5])
    rng = np.random.default_rng(0)
    noise = np.concatenate([NoisyOracle(1.5).scores(_context(state, rng)) - q for _ in range(500)])
    n = noise.size
    expected = 1.5 * q.std()
    assert abs(noise.std() / expected - 1) < 5 / np.sqrt(2 * n)  # sd of a sample sd is about sd / sqrt(2n)
    assert abs(noise.mean()) < 5 * expected / np.sqrt(n)


def test_needs_the_truth():
    X, y, candidates, classifier, _problem, _ = _state(0)
    ctx = Context(X, y, candidates, candidates, classifier, 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"noisy-0\.5sd needs the truth"):
        NoisyOracle(0.5).scores(ctx)


def test_names_and_repr_tell_the_parameters_apart():
    oracles = [NoisyOracle(s, relative=r, loss=loss) for s in (0.0, 1e-5, 0.5, 0.1234567891, 2.0, np.inf)
               for r in (True, False) for loss in ("error", "log")]
    names = [o.name for o in oracles]
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[A-Za-z0-9._+-]+", name) and "__" not in name for name in names)
    assert NoisyOracle(0.5).name == "noisy-0.5sd" and NoisyOracle(np.inf, relative=False).name == "noisy-inf"
    for oracle in oracles:
        again = eval(repr(oracle), {"NoisyOracle": NoisyOracle, "inf": np.inf})
        assert (again.sigma, again.relative, again.loss) == (oracle.sigma, oracle.relative, oracle.loss)
        assert repr(pickle.loads(pickle.dumps(oracle))) == repr(oracle)
    assert NoisyOracle.needs_truth and NoisyOracle.costly


# ------------------------------------------------------------------ the curves


def test_curves_are_run_curves_with_the_same_objects():
    levels = (0.0, 1.0, np.inf)
    args = {"replicates": 2, "pool_size": 8, "budget": 3, "seed": 5, "population_size": 256}
    table = noisy_selection_curves(levels, execution=QUIET, **args)
    direct = run_curves("two-gaussians", "mean", [NoisyOracle(s) for s in levels] + [MRIWorst()],
                        subsample=None, record_q_c=False, loss="error", execution=QUIET, **args)
    assert list(table.columns) == RESULT_COLUMNS
    assert list(dict.fromkeys(table.strategy)) == ["noisy-0sd", "noisy-1sd", "noisy-infsd", "MRI-worst"]
    assert_frame_equal(table, direct, check_exact=True)


def test_the_default_curve_is_the_closed_form_error_rate():
    """truth="auto": the mean classifier on two-gaussians is exact, so every point of the curve is Eq.
    le_equation_1 of the refitted means (the closed form of mri_theory.analytic, written without the engine),
    the labelled set rebuilt from the sandbox's seed scheme and the curve's picks."""
    from mri_theory.analytic.two_gaussians import MeanClassifier, TwoGaussians, error_rate

    args = {"replicates": 2, "pool_size": 8, "budget": 4, "seed": 9, "population_size": 64}
    table = noisy_selection_curves((0.0, 1.0, np.inf), execution=QUIET, **args)
    for (_, replicate), rows in table.groupby(["strategy", "replicate"], sort=False):
        rng = np.random.default_rng(np.random.SeedSequence(args["seed"], spawn_key=(replicate, 0)))
        X0, y0, pool_X, pool_y, _ = PROBLEM.draw_replicate(args["pool_size"], args["population_size"], rng)
        chosen = rows.chosen.to_numpy()
        for t, loss in enumerate(rows.loss.to_numpy()):
            X = np.concatenate([X0[:, 0], pool_X[chosen[:t], 0]])
            y = np.concatenate([y0, pool_y[chosen[:t]]])
            means = (X[y == 0].mean(), X[y == 1].mean())
            clf = MeanClassifier(means, (int(np.sum(y == 0)), int(np.sum(y == 1))))
            assert loss == pytest.approx(error_rate(TwoGaussians(), clf), abs=1e-12)
            assert rows.loss_se.iloc[t] == 0.0


def test_curves_in_worker_processes_equal_serial():
    """The NoisyOracle objects are pickled to joblib's workers; the results do not change."""
    args = {"relative_sigmas": (0.5, np.inf), "replicates": 2, "pool_size": 6, "budget": 2, "seed": 2,
            "population_size": 128, "execution": QUIET}
    assert_frame_equal(noisy_selection_curves(**{**args, "execution": TWO_WORKERS}), noisy_selection_curves(**args),
                       check_exact=True)


@pytest.fixture(scope="module")
def small_study() -> pd.DataFrame:
    return noisy_selection_curves((0.0, 0.5, 2.0, np.inf), replicates=60, pool_size=40, budget=10,
                                  population_size=256, seed=1, execution=QUIET)


def _paired_z(df: pd.DataFrame, a: str, b: str) -> float:
    """z statistic of the paired difference in mean error over the curve (a - b) across replicates."""
    per_replicate = df.groupby(["strategy", "replicate"]).loss.mean().unstack(0)
    diff = per_replicate[a] - per_replicate[b]
    return float(diff.mean() / (diff.std(ddof=1) / np.sqrt(diff.size)))


def test_ordering_optimal_noisy_rs_worst(small_study):
    """Lower error is better; each gap must exceed 3 paired standard errors (one-sided p < 0.0014)."""
    optimal, rs = NoisyOracle(0.0).name, NoisyOracle(np.inf).name
    assert _paired_z(small_study, optimal, rs) < -3
    assert _paired_z(small_study, NoisyOracle(0.5).name, rs) < -3
    assert _paired_z(small_study, NoisyOracle(2.0).name, rs) < -3
    assert _paired_z(small_study, rs, "MRI-worst") < -3
    # The noisier estimator is not significantly better than the exact one.
    assert _paired_z(small_study, optimal, NoisyOracle(2.0).name) < 3
    assert np.all(small_study.groupby("replicate").loss.first().notna())


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "make, error, pattern",
    [
        (lambda: NoisyOracle(-1.0), ValueError, r"sigma must be >= 0"),
        (lambda: NoisyOracle(np.nan), ValueError, r"sigma must be >= 0"),
        (lambda: NoisyOracle("a"), TypeError, r"sigma must be numeric"),
        (lambda: NoisyOracle([0.5, 1.0]), TypeError, r"sigma must be a scalar"),
        (lambda: NoisyOracle(0.5, relative="yes"), TypeError, r"relative must be True or False"),
        (lambda: NoisyOracle(0.5, relative=1), TypeError, r"relative must be True or False"),
        (lambda: NoisyOracle(0.5, loss="hinge"), ValueError, r"loss must be 'error' or 'log'"),
    ],
)
def test_bad_strategy_input_names_the_argument(make, error, pattern):
    with pytest.raises(error, match=pattern):
        make()


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        ({"relative_sigmas": (-1.0,)}, ValueError, r"relative_sigmas must be >= 0"),
        ({"relative_sigmas": (np.nan,)}, ValueError, r"relative_sigmas must be >= 0"),
        ({"relative_sigmas": ("a",)}, TypeError, r"relative_sigmas must be numeric"),
        ({"relative_sigmas": ()}, ValueError, r"relative_sigmas must be a non-empty sequence"),
        ({"relative_sigmas": [[0.5, 1.0]]}, ValueError, r"relative_sigmas must be a non-empty sequence"),
        ({"relative_sigmas": (1.0, 1.0)}, ValueError, r"relative_sigmas must be distinct"),
        ({"replicates": 0}, ValueError, r"replicates must be >= 1"),
        ({"pool_size": 3, "budget": 4}, ValueError, r"budget \(4\) must not exceed pool_size"),
        ({"seed": -1}, ValueError, r"seed must be >= 0"),
        ({"population_size": 0}, ValueError, r"population_size must be >= 1"),
        ({"record_q_c": "no"}, TypeError, r"record_q_c must be True or False"),
    ],
)
def test_bad_curves_input_names_the_argument(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        noisy_selection_curves(**{"replicates": 1, "pool_size": 5, "budget": 2, "execution": QUIET, **kwargs})
