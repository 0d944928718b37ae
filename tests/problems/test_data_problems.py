"""Real data as problems (DataProblem, the bundled datasets), the problem registry and draw_replicate.

Independent references: rows tracked by an identifier covariate (so that the
splits can be checked row by row), pandas' own CSV writer, scikit-learn's
bundled datasets and its StandardScaler / KNeighborsClassifier, exact rational
arithmetic for the stratified test quotas, the old sandbox sequence of
draw calls written out here, and Monte Carlo frequencies with stated bounds.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from _optional import given, settings, st
from _shared import QUIET
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

from mri_theory import problems
from mri_theory.classifiers import KNN
from mri_theory.engine.population import Population
from mri_theory.problems import (
    DataProblem,
    GaussianMixtureProblem,
    get_problem,
    list_problems,
    register_problem,
)
from mri_theory.runners.asymptotic import asymptotic_loss


def toy(n_per_class=(6, 9, 5), d=3, seed=0, labels=("b", "a", "c")):
    """Covariates whose column 0 is the row index (to track rows), labels from ``labels``."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.array(labels, dtype=object), n_per_class)
    rng.shuffle(y)
    X = np.column_stack([np.arange(y.size, dtype=float), rng.normal(size=(y.size, d - 1))])
    return X, y


def rows_of(X_part: np.ndarray) -> np.ndarray:
    """Row indices of rows drawn from :func:`toy` data (column 0 is the index)."""
    return X_part[:, 0].astype(int)


# ------------------------------------------------------------------ construction

def test_from_arrays_maps_labels_in_sorted_order():
    X, y = toy()
    p = DataProblem.from_arrays(X, y, test_size=0.25, name="toy")
    assert p.classes.tolist() == ["a", "b", "c"]
    assert [p.classes[j] for j in p.y] == y.tolist()
    np.testing.assert_array_equal(p.X, X)
    assert (p.n_classes, p.dim, p.name, p.has_truth) == (3, 3, "toy", False)
    np.testing.assert_allclose(p.prior, [9 / 20, 6 / 20, 5 / 20], rtol=0, atol=1e-15)
    with pytest.raises(ValueError, match="read-only"):
        p.X[0, 0] = 1.0
    # a 1-D X is one covariate; integer labels stay in numeric order
    q = DataProblem.from_arrays(np.arange(8.0), [10, 2, 10, 2, 7, 7, 2, 10])
    assert q.dim == 1 and q.classes.tolist() == [2, 7, 10] and q.y.tolist() == [2, 0, 2, 0, 1, 1, 0, 2]


def test_from_csv_round_trips_through_pandas(tmp_path):
    X, y = toy()
    frame = pd.DataFrame(X, columns=["id", "u", "v"])
    frame.insert(1, "label", y)  # the target need not be the last column
    path = tmp_path / "toy-data.csv"
    frame.to_csv(path, index=False)
    p = DataProblem.from_csv(path, target="label", test_size=0.25)
    ref = DataProblem.from_arrays(X, y, test_size=0.25, name="toy-data")
    assert p.name == "toy-data"
    np.testing.assert_array_equal(p.X, X)
    np.testing.assert_array_equal(p.y, ref.y)
    assert p.classes.tolist() == ["a", "b", "c"]
    assert p.sha256 == ref.sha256 and repr(p) == repr(ref)
    assert DataProblem.from_csv(str(path), target="label", name="other").name == "other"


def test_repr_shows_the_defining_parameters_and_tells_data_apart():
    X, y = toy()
    p = DataProblem.from_arrays(X, y, test_size=0.25, name="toy")
    text = repr(p)
    for part in ("name='toy'", "n=20", "dim=3", "n_classes=3", "test_size=0.25", "standardize=False",
                 f"sha256='{p.sha256}'"):
        assert part in text
    assert len(p.sha256) == 64 and int(p.sha256, 16) >= 0
    assert DataProblem.from_arrays(X.copy(), y.copy(), test_size=0.25, name="toy").sha256 == p.sha256
    X2 = X.copy()
    X2[3, 2] = np.nextafter(X2[3, 2], np.inf)  # one bit of one entry
    assert DataProblem.from_arrays(X2, y, test_size=0.25, name="toy").sha256 != p.sha256
    y2 = y.copy()
    i, j = 0, int(np.flatnonzero(y != y[0])[0])
    y2[[i, j]] = y[[j, i]]  # two rows swap labels: same classes and counts, other data
    assert DataProblem.from_arrays(X, y2, test_size=0.25, name="toy").sha256 != p.sha256
    assert repr(DataProblem.from_arrays(X, y, test_size=5, name="toy")) != text


def test_standardize_matches_sklearn_standard_scaler():
    X, y = toy()
    X[:, 2] = 4.0  # a constant column is only centred
    p = DataProblem.from_arrays(X, y, standardize=True)
    expected = StandardScaler().fit_transform(X)
    np.testing.assert_allclose(p.X, expected, rtol=1e-12, atol=1e-12)
    assert np.all(p.X[:, 2] == 0.0)


# ------------------------------------------------------------------ the stratified test quotas

@settings(max_examples=60, deadline=None)
@given(counts=st.lists(st.integers(2, 40), min_size=2, max_size=5),
       fraction=st.floats(0.05, 0.6))
def test_test_quota_is_the_largest_remainder_share_clipped(counts, fraction):
    n = sum(counts)
    y = np.repeat(np.arange(len(counts)), counts)
    X = np.arange(n, dtype=float)[:, None]
    n_test = math.ceil(fraction * n)
    if n_test >= n or n - n_test - len(counts) < 1:
        return
    # Independent: exact rational shares, largest remainders (ties to the lower class), then clipped.
    shares = [Fraction(n_test * c, n) for c in counts]
    quota = [math.floor(s) for s in shares]
    order = sorted(range(len(counts)), key=lambda j: (-(shares[j] - quota[j]), j))
    for j in order[: n_test - sum(quota)]:
        quota[j] += 1
    quota = [min(max(q, 1), c - 1) for q, c in zip(quota, counts, strict=True)]
    if n - sum(quota) - len(counts) < 1:
        with pytest.raises(ValueError, match="test_size .* leaves no row for the pool"):
            DataProblem(X, y, test_size=fraction)
        return
    p = DataProblem(X, y, test_size=fraction)
    assert p.n_test == sum(quota) and p.max_pool_size == n - sum(quota) - len(counts)
    *_, population = p.draw_replicate(1, None, np.random.default_rng(0))
    np.testing.assert_array_equal(population.proba.sum(axis=0), quota)


# ------------------------------------------------------------------ replicates

def test_replicate_splits_are_disjoint_sized_and_one_per_class():
    X, y = toy()
    p = DataProblem.from_arrays(X, y, test_size=0.25)
    assert p.n_test == 5 and p.max_pool_size == 20 - 5 - 3
    X0, y0, pool_X, pool_y, population = p.draw_replicate(10, 123, np.random.default_rng(4))
    init, pool, test = rows_of(X0), rows_of(pool_X), rows_of(population.X)
    assert (init.size, pool.size, test.size) == (3, 10, 5)
    assert len(set(init) | set(pool) | set(test)) == 18  # disjoint
    np.testing.assert_array_equal(y0, [0, 1, 2])  # one per class, in class order
    np.testing.assert_array_equal(X0, X[init])
    np.testing.assert_array_equal(pool_X, X[pool])
    np.testing.assert_array_equal(pool_y, p.y[pool])
    # the test population is one-hot on the held-out labels, with equal weights
    assert isinstance(population, Population)
    np.testing.assert_array_equal(population.proba, np.eye(3)[p.y[test]])
    np.testing.assert_allclose(population.weights, np.full(5, 1 / 5), rtol=0, atol=1e-15)
    assert set(p.y[test]) == {0, 1, 2}  # stratified: every class is tested
    # the whole remainder can be the pool
    _, _, pool_X, _, _ = p.draw_replicate(p.max_pool_size, None, np.random.default_rng(4))
    assert pool_X.shape == (12, 3)


def test_replicates_are_deterministic_per_rng_and_differ_across_replicates():
    X, y = toy()
    p = DataProblem.from_arrays(X, y, test_size=0.25)
    a = p.draw_replicate(8, None, np.random.default_rng(11))
    b = p.draw_replicate(8, None, np.random.default_rng(11))
    for u, v in zip(a[:4], b[:4], strict=True):
        np.testing.assert_array_equal(u, v)
    np.testing.assert_array_equal(a[4].X, b[4].X)
    seeds = [np.random.SeedSequence(5, spawn_key=(r, 0)) for r in range(6)]
    tests = {tuple(sorted(rows_of(p.draw_replicate(8, None, np.random.default_rng(s))[4].X))) for s in seeds}
    pools = {tuple(rows_of(p.draw_replicate(8, None, np.random.default_rng(s))[2])) for s in seeds}
    assert len(tests) > 1 and len(pools) == 6


def test_every_row_is_equally_likely_in_each_role():
    """Monte Carlo, 5-sigma bounds: a row of class j is tested w.p. q_j / n_j, starts w.p. 1 / n_j and is in
    the pool w.p. (n_j - q_j - 1) / n_j * pool_size / (n - n_test - k)."""
    X, y = toy(n_per_class=(6, 9, 5))
    p = DataProblem.from_arrays(X, y, test_size=0.25)
    counts = np.bincount(p.y)
    quota = np.bincount(p.y[rows_of(p.draw_replicate(1, None, np.random.default_rng(0))[4].X)], minlength=3)
    reps = 3000
    tested, started, pooled = np.zeros(20), np.zeros(20), np.zeros(20)
    rng = np.random.default_rng(2024)
    for _ in range(reps):
        X0, _, pool_X, _, population = p.draw_replicate(4, None, rng)
        tested[rows_of(population.X)] += 1
        started[rows_of(X0)] += 1
        pooled[rows_of(pool_X)] += 1
    for freq, prob in ((tested, quota[p.y] / counts[p.y]), (started, 1 / counts[p.y]),
                       (pooled, (counts - quota - 1)[p.y] / counts[p.y] * 4 / 12)):
        sd = np.sqrt(prob * (1 - prob) / reps)
        assert np.all(np.abs(freq / reps - prob) < 5 * sd + 1e-12)


def test_split_matches_the_replicate_and_trains_on_everything_else():
    X, y = toy()
    p = DataProblem.from_arrays(X, y, test_size=0.25)
    X_train, y_train, population = p.split(np.random.default_rng(9))
    *_, replicate_population = p.draw_replicate(3, None, np.random.default_rng(9))
    np.testing.assert_array_equal(population.X, replicate_population.X)
    train = rows_of(X_train)
    assert sorted(set(train) | set(rows_of(population.X))) == list(range(20)) and train.size == 15
    np.testing.assert_array_equal(y_train, p.y[train])


def test_simulated_draw_replicate_is_the_old_sandbox_sequence():
    problem = get_problem("three-gaussians")
    got = problem.draw_replicate(40, 256, np.random.default_rng(np.random.SeedSequence(3, spawn_key=(1, 0))))
    # written out: first of each class in batches of 64 k draws, then the pool, then a QMC population
    rng = np.random.default_rng(np.random.SeedSequence(3, spawn_key=(1, 0)))
    k = problem.n_classes
    Xs, ys = problem.sample(64 * k, rng)
    while len(set(ys.tolist())) < k:
        X2, y2 = problem.sample(64 * k, rng)
        Xs, ys = np.vstack([Xs, X2]), np.concatenate([ys, y2])
    first = [int(np.argmax(ys == j)) for j in range(k)]
    pool_X, pool_y = problem.sample(40, rng)
    population = Population.from_problem(problem, 256, rng, method="qmc")
    np.testing.assert_array_equal(got[0], Xs[first])
    np.testing.assert_array_equal(got[1], np.arange(k))
    np.testing.assert_array_equal(got[2], pool_X)
    np.testing.assert_array_equal(got[3], pool_y)
    np.testing.assert_array_equal(got[4].X, population.X)
    np.testing.assert_array_equal(got[4].proba, population.proba)
    assert problems.initial_labelled_set(problem, np.random.default_rng(0))[1].tolist() == list(range(k))


# ------------------------------------------------------------------ no truth

@pytest.mark.parametrize("call", [
    lambda p: p.sample(3, np.random.default_rng(0)),
    lambda p: p.posterior(p.X[:2]),
    lambda p: p.log_posterior(p.X[:2]),
    lambda p: p.density(p.X[:2]),
    lambda p: p.class_densities(p.X[:2]),
    lambda p: p.bayes_predict(p.X[:2]),
    lambda p: p.bayes_error,
    lambda p: p.bayes_error_monte_carlo(10, np.random.default_rng(0)),
    lambda p: Population.from_problem(p, 10, np.random.default_rng(0)),
], ids=["sample", "posterior", "log_posterior", "density", "class_densities", "bayes_predict",
        "bayes_error", "bayes_error_monte_carlo", "population_from_problem"])
def test_methods_that_need_the_truth_are_refused(call):
    X, y = toy()
    with pytest.raises(NotImplementedError, match="needs the truth, but 'toy' is a DataProblem"):
        call(DataProblem.from_arrays(X, y, name="toy"))


# ------------------------------------------------------------------ bad input

X_OK, Y_OK = toy()
BAD = [
    (lambda: DataProblem.from_arrays(np.where(np.arange(60).reshape(20, 3) == 7, np.nan, X_OK), Y_OK),
     ValueError, "X must be finite"),
    (lambda: DataProblem.from_arrays(X_OK.astype(str), Y_OK), TypeError, "X must be numeric"),
    (lambda: DataProblem.from_arrays(X_OK[None], Y_OK), ValueError, r"X must be a non-empty 2-D array"),
    (lambda: DataProblem.from_arrays(X_OK, Y_OK[:-1]), ValueError, r"y must have shape \(20,\)"),
    (lambda: DataProblem.from_arrays(X_OK, np.zeros(20)), ValueError, "y must hold at least two classes"),
    (lambda: DataProblem.from_arrays(X_OK, np.r_[np.zeros(19), 1]), ValueError,
     "every class of y needs at least two rows"),
    (lambda: DataProblem.from_arrays(X_OK, np.r_[np.nan, np.zeros(9), np.ones(10)]), ValueError,
     "y must not hold missing"),
    (lambda: DataProblem.from_arrays(X_OK, np.r_[[None], Y_OK[1:]]), ValueError,
     r"y must not hold missing labels \(None\)"),
    (lambda: DataProblem.from_arrays(X_OK, np.r_[[1], Y_OK[1:]]), TypeError,
     "y labels must be of one sortable type"),
    (lambda: DataProblem.from_arrays(X_OK, Y_OK, test_size=0.0), ValueError,
     r"test_size must be a fraction in \(0, 1\)"),
    (lambda: DataProblem.from_arrays(X_OK, Y_OK, test_size=1.0), ValueError,
     r"test_size must be a fraction in \(0, 1\)"),
    (lambda: DataProblem.from_arrays(X_OK, Y_OK, test_size=0), ValueError, "test_size must be"),
    (lambda: DataProblem.from_arrays(X_OK, Y_OK, test_size=20), ValueError, "test_size must leave rows"),
    (lambda: DataProblem.from_arrays(X_OK, Y_OK, test_size=0.9), ValueError,
     "test_size 0.9 leaves no row for the pool"),
    (lambda: DataProblem.from_arrays(X_OK, Y_OK, test_size=True), TypeError, "test_size must be a fraction"),
    (lambda: DataProblem.from_arrays(X_OK, Y_OK, test_size="0.3"), TypeError, "test_size must be a fraction"),
    (lambda: DataProblem.from_arrays(X_OK, Y_OK, name=""), TypeError, "name must be a non-empty str"),
    (lambda: DataProblem.from_arrays(X_OK, Y_OK, standardize="yes"), TypeError, "standardize"),
    (lambda: DataProblem.from_arrays(X_OK, Y_OK).draw_replicate(12, None, np.random.default_rng(0)), ValueError,
     r"pool_size must be at most 11 for 'data' \(20 rows, 6 for testing, 3 for the initial set\), got 12"),
    (lambda: DataProblem.from_arrays(X_OK, Y_OK).draw_replicate(0, None, np.random.default_rng(0)), ValueError,
     "pool_size"),
    (lambda: DataProblem.from_arrays(X_OK, Y_OK).draw_replicate(3, 0, np.random.default_rng(0)), ValueError,
     "population_size"),
    (lambda: DataProblem.from_arrays(X_OK, Y_OK).draw_replicate(3, None, 0), TypeError, "rng"),
    (lambda: DataProblem.from_arrays(X_OK, Y_OK).split(0), TypeError, "rng"),
    (lambda: get_problem("four-gaussian").draw_replicate(0, 10, np.random.default_rng(0)), ValueError, "pool_size"),
    (lambda: get_problem("four-gaussian").draw_replicate(5, 0, np.random.default_rng(0)), ValueError,
     "population_size"),
    (lambda: get_problem("four-gaussian").draw_replicate(5, 10, 3), TypeError, "rng"),
]


@pytest.mark.parametrize("call, error, pattern", BAD, ids=range(len(BAD)))
def test_bad_input_names_the_argument(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_from_csv_refusals_name_the_argument(tmp_path):
    X, y = toy()
    frame = pd.DataFrame(X, columns=["id", "u", "v"]).assign(label=y)
    good = tmp_path / "good.csv"
    frame.to_csv(good, index=False)
    with pytest.raises(ValueError, match="target 'class' is not a column"):
        DataProblem.from_csv(good, target="class")
    with pytest.raises(TypeError, match="target must be a column name"):
        DataProblem.from_csv(good, target=3)
    with pytest.raises(ValueError, match="path .*missing.csv' is not a file"):
        DataProblem.from_csv(tmp_path / "missing.csv", target="label")
    with pytest.raises(TypeError, match="path must be a str or path-like"):
        DataProblem.from_csv(3, target="label")
    text = frame.assign(colour=np.where(np.arange(20) % 2, "red", "blue"))
    text.to_csv(tmp_path / "text.csv", index=False)
    with pytest.raises(TypeError, match=r"must be numeric; not numeric: \['colour'\]"):
        DataProblem.from_csv(tmp_path / "text.csv", target="label")
    holes = frame.copy()
    holes.loc[4, "u"] = np.nan
    holes.to_csv(tmp_path / "holes.csv", index=False)
    with pytest.raises(ValueError, match=r"must be finite \(no missing values\); not finite: \['u'\]"):
        DataProblem.from_csv(tmp_path / "holes.csv", target="label")
    frame[["label"]].to_csv(tmp_path / "only.csv", index=False)
    with pytest.raises(ValueError, match="no covariate column besides target 'label'"):
        DataProblem.from_csv(tmp_path / "only.csv", target="label")


# ------------------------------------------------------------------ bundled datasets

@pytest.mark.parametrize("name, loader, shape, counts", [
    ("wine", load_wine, (178, 13), [59, 71, 48]),  # UCI Wine, as in the paper's Table 'Smaller'
    ("breast-cancer", load_breast_cancer, (569, 30), [212, 357]),  # UCI WDBC: 212 malignant, 357 benign
])
def test_bundled_datasets_load_offline_standardised(name, loader, shape, counts):
    p = get_problem(name)
    assert isinstance(p, DataProblem) and p.name == name and not p.has_truth
    assert p.X.shape == shape and p.n_classes == len(counts)
    np.testing.assert_array_equal(np.bincount(p.y), counts)
    data = loader()
    np.testing.assert_array_equal(p.y, data.target)
    np.testing.assert_allclose(p.X, StandardScaler().fit_transform(data.data), rtol=1e-10, atol=1e-10)
    assert p.test_size == 0.3 and p.n_test == math.ceil(0.3 * shape[0])
    X0, y0, pool_X, _, population = p.draw_replicate(30, None, np.random.default_rng(0))
    assert X0.shape == (len(counts), shape[1]) and pool_X.shape == (30, shape[1])
    assert population.size == p.n_test


def test_asymptotic_loss_of_data_trains_on_all_non_test_rows():
    """Against scikit-learn's 1-NN trained and scored on the same splits (error rate), averaged."""
    p = get_problem("wine")
    value = asymptotic_loss(p, KNN(1), replicates=3, rng=np.random.default_rng(8))
    rng, errors = np.random.default_rng(8), []
    for _ in range(3):
        X_train, y_train, population = p.split(rng)
        truth = np.argmax(population.proba, axis=1)
        model = KNeighborsClassifier(1).fit(X_train, y_train)
        errors.append(np.mean(model.predict(population.X) != truth))
        assert X_train.shape[0] == 178 - 54
    assert value == pytest.approx(np.mean(errors), abs=1e-12)
    assert 0 <= value < 0.15  # 1-NN on standardised Wine makes few mistakes


# ------------------------------------------------------------------ the registry

def _small_problem(name="small"):
    return GaussianMixtureProblem(name, [([1.0], [[-1.0]], [[[1.0]]]), ([1.0], [[2.0]], [[[1.0]]])], [0.5, 0.5])


def test_register_problem_round_trip(own_registrations):
    calls = []

    def factory():
        calls.append(1)
        return _small_problem()

    register_problem("my-problem.v1", factory)
    assert "my-problem.v1" in list_problems() and list_problems() == sorted(list_problems())
    p = get_problem("my-problem.v1")
    assert isinstance(p, GaussianMixtureProblem) and p.name == "small"
    assert get_problem("my-problem.v1") is not p and len(calls) == 1  # called once, then cached (a copy each call)
    with pytest.raises(ValueError, match="a problem 'my-problem.v1' is already registered; pass overwrite=True"):
        register_problem("my-problem.v1", factory)
    with pytest.raises(ValueError, match="a problem 'two-gaussians' is already registered"):
        register_problem("two-gaussians", factory)
    register_problem("my-problem.v1", lambda: _small_problem("other"), overwrite=True)
    assert get_problem("my-problem.v1").name == "other"  # the cache is dropped
    data = DataProblem.from_arrays(X_OK, Y_OK, name="toy")
    register_problem("toy", lambda: data)
    assert get_problem("toy") is not data and get_problem("toy").X is data.X  # a copy sharing the read-only data


@pytest.mark.parametrize("name, factory, error, pattern", [
    (3, _small_problem, TypeError, "name must be a str"),
    ("", _small_problem, ValueError, "name must be a non-empty name"),
    ("a/b", _small_problem, ValueError, "without '__'"),
    ("a b", _small_problem, ValueError, "of letters, digits and . _ \\+ -"),
    ("a__b", _small_problem, ValueError, "without '__'"),
    ("ok", _small_problem(), TypeError, "factory must be callable"),
    ("ok", _small_problem, TypeError, "overwrite"),
])
def test_register_problem_refusals(own_registrations, name, factory, error, pattern):
    kwargs = {"overwrite": "no"} if pattern == "overwrite" else {}
    with pytest.raises(error, match=pattern):
        register_problem(name, factory, **kwargs)
    assert "ok" not in list_problems()


def test_a_factory_returning_no_problem_is_refused_at_get(own_registrations):
    register_problem("broken", lambda: "not a problem")
    with pytest.raises(TypeError, match="the factory registered as problem 'broken' returned str, not a Problem"):
        get_problem("broken")


# ------------------------------------------------------------------ through the sandbox (needs H1)

def test_wine_runs_through_run_curves_and_oracles_are_refused():
    from mri_theory.runners import sandbox

    table = sandbox.run_curves(problem="wine", classifier="lda", strategies=["RS", "SE", "SMRI"], pool_size=30,
                               budget=10, replicates=2, record_q_c=False, execution=QUIET)
    assert set(table.strategy) == {"RS", "SE", "SMRI"} and set(table.problem) == {"wine"}
    assert table.n_labelled.min() == 3 and table.n_labelled.max() == 13
    assert table.groupby(["strategy", "replicate"]).size().eq(11).all()
    # the loss is the empirical test error: a multiple of 1/54
    np.testing.assert_allclose(table.loss * 54, np.round(table.loss * 54), rtol=0, atol=1e-9)
    with pytest.raises(ValueError, match="strategies"):
        sandbox.run_curves(problem="wine", classifier="lda", strategies=["MRI-best"], pool_size=30, budget=2,
                           replicates=1, record_q_c=False, execution=QUIET)
    with pytest.raises(ValueError, match="record_q_c"):
        sandbox.run_curves(problem="wine", classifier="lda", strategies=["RS"], pool_size=30, budget=2,
                           replicates=1, record_q_c=True, execution=QUIET)
