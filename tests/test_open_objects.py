"""Objects everywhere: run_curves, run_study and score_states take names or objects.

A strategy and a classifier defined in this module (outside the package) run
in ``run_curves`` with ``n_jobs=2``, in ``run_study`` on a Dask
``LocalCluster`` and in ``score_states`` with joblib workers, giving exactly
the serial results; their choices and losses are checked against direct
computations on the replicate's data (``Problem.draw_replicate`` from the
documented seed).  Objects equal to registered entries give the rows of the
names; labels must be distinct; resume tells two objects of one name apart
(the problem and classifier through ``config.json``: refused; a strategy
through its part header: its parts recomputed); the public registries round
trip and refuse bad registrations; problems without the truth refuse what
needs it.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from _shared import QUIET, TWO_WORKERS, count_pairs
from pandas.testing import assert_frame_equal

from mri_theory import strategies
from mri_theory.classifiers import (
    KNN,
    LDA,
    Classifier,
    RandomForest,
    get_classifier,
    list_classifiers,
    register_classifier,
)
from mri_theory.problems import get_problem
from mri_theory.runners import Execution, score_states
from mri_theory.runners.sandbox import DamagedPartWarning, run_curves
from mri_theory.runners.study import run_study
from mri_theory.strategies import (
    FOREST_TREES,
    Context,
    SimpleMRI,
    Strategy,
    get_strategy,
    list_strategies,
    register_strategy,
    second_classifier,
)

# ------------------------------------------------------------------ a user's strategy and classifier


class FarthestFromLabelled(Strategy):
    """Score: the distance to the nearest labelled point, to the power ``power`` (a parameter for repr)."""

    name = "Farthest"

    def __init__(self, power: float = 1.0) -> None:
        self.power = power

    def scores(self, ctx: Context) -> np.ndarray:
        d = np.linalg.norm(ctx.candidates[:, None, :] - ctx.X[None, :, :], axis=2).min(axis=1)
        return d ** self.power


class NearestCentroid(Classifier):
    """Class probabilities: softmax of minus the squared distance to each present class's centroid."""

    name = "centroid"

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        self.present_ = np.unique(y)
        self.centroids_ = np.array([X[y == c].mean(axis=0) for c in self.present_])

    def _predict_proba(self, X: np.ndarray) -> np.ndarray:
        logits = -((X[:, None, :] - self.centroids_[None]) ** 2).sum(axis=2) / self.scale
        logits -= logits.max(axis=1, keepdims=True)
        weights = np.exp(logits)
        proba = np.zeros((X.shape[0], self.n_classes_))
        proba[:, self.present_] = weights / weights.sum(axis=1, keepdims=True)
        return proba


def replicate_data(problem: str, pool_size: int, population_size: int, seed: int, replicate: int):
    """The replicate's data from the documented stream ``SeedSequence(seed, spawn_key=(replicate, 0))``."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(replicate, 0)))
    return get_problem(problem).draw_replicate(pool_size, population_size, rng)


SMALL = dict(problem="four-gaussian", pool_size=8, budget=4, replicates=2, population_size=400, seed=3,
             execution=QUIET)


@pytest.fixture(scope="module")
def own_serial():
    return run_curves(classifier=NearestCentroid(), strategies=[FarthestFromLabelled(), "SE"], **SMALL)


def test_own_strategy_and_classifier_in_run_curves_match_direct_computation(own_serial):
    """Each pick is the farthest pool point from the labelled set; each loss is the centroid model's true error."""
    assert set(own_serial.strategy) == {"Farthest", "SE"} and set(own_serial.classifier) == {"centroid"}
    for replicate in range(SMALL["replicates"]):
        X, y, pool_X, pool_y, population = replicate_data("four-gaussian", SMALL["pool_size"],
                                                          SMALL["population_size"], SMALL["seed"], replicate)
        rows = own_serial[(own_serial.strategy == "Farthest") & (own_serial.replicate == replicate)]
        available = list(range(SMALL["pool_size"]))
        for chosen, loss in zip(rows.chosen, rows.loss, strict=True):
            model = NearestCentroid().fit(X, y, 2)
            np.testing.assert_allclose(loss, population.loss(model, "error"), rtol=1e-12, atol=0)
            if chosen == -1:
                break
            distance = [np.min(np.linalg.norm(X - pool_X[i], axis=1)) for i in available]
            assert chosen == available[int(np.argmax(distance))]  # continuous data: no ties
            available.remove(chosen)
            X, y = np.vstack([X, pool_X[chosen]]), np.append(y, pool_y[chosen])


def test_own_objects_with_two_workers_equal_serial(own_serial):
    parallel = run_curves(classifier=NearestCentroid(), strategies=[FarthestFromLabelled(), "SE"],
                          **{**SMALL, "execution": TWO_WORKERS})
    assert_frame_equal(parallel, own_serial, check_exact=True)


def test_a_registered_strategy_works_with_two_workers(own_registrations):
    """The issue's bug: a registration in this process only; the workers get the object."""
    register_strategy("farthest2", lambda: FarthestFromLabelled(power=2.0))
    args = dict(classifier="lda", strategies=["farthest2", "RS"], **SMALL)
    serial = run_curves(**args)
    assert_frame_equal(run_curves(**{**args, "execution": TWO_WORKERS}), serial, check_exact=True)
    # squaring the distance keeps its argmax: the same picks as the object, under this label and its seed
    labelled = FarthestFromLabelled()
    labelled.name = "farthest2"
    same = run_curves(**{**args, "strategies": [labelled, "RS"]})
    assert_frame_equal(same, serial, check_exact=True)


def test_own_objects_in_run_study_on_dask_equal_serial(cluster):
    args = dict(problems=["four-gaussian"], classifiers=[NearestCentroid(), "lda"],
                strategies=[FarthestFromLabelled(), "RS"], replicates=2, pool_size=6, population_size=300,
                asymptotic_train=50, asymptotic_replicates=1, asymptotic_population=300, seed=2, execution=QUIET)
    local = run_study(**args)
    remote = run_study(**{**args, "execution": Execution("dask", cluster.scheduler_address, progress=False)})
    assert_frame_equal(remote.curves, local.curves, check_exact=True)
    assert_frame_equal(remote.asymptotic, local.asymptotic, check_exact=True)
    assert list(local.curves.strategy.unique()) == ["Farthest", "RS", "MRI-best"]
    assert list(local.asymptotic.classifier) == ["centroid", "lda"]
    # the pairing's curves are run_curves' with the same objects
    alone = run_curves("four-gaussian", NearestCentroid(), [FarthestFromLabelled()], pool_size=6, replicates=2,
                       population_size=300, seed=2, record_q_c=False, execution=QUIET)
    rows = local.curves[(local.curves.classifier == "centroid") & (local.curves.strategy == "Farthest")]
    assert_frame_equal(rows.reset_index(drop=True), alone, check_exact=True)


def test_own_objects_in_score_states_with_two_workers_equal_serial():
    args = dict(problem="four-gaussian", classifier=NearestCentroid(), strategies=[FarthestFromLabelled(), "SE"],
                replicates=2, steps=[0, 3], pool_size=8, population_size=300, trajectory=FarthestFromLabelled(),
                execution=QUIET)
    serial = score_states(**args)
    assert_frame_equal(score_states(**{**args, "execution": TWO_WORKERS}), serial, check_exact=True)
    assert set(serial.trajectory) == {"Farthest"} and set(serial.classifier) == {"centroid"}
    # the states follow the trajectory object's curve; its scores are the distances to the labelled set
    curve = run_curves("four-gaussian", NearestCentroid(), [FarthestFromLabelled()], pool_size=8, budget=3,
                       replicates=2, population_size=300, subsample=None, record_q_c=False, execution=QUIET)
    X0, _, pool_X, _, _ = replicate_data("four-gaussian", 8, 300, 0, 1)
    picks = curve[curve.replicate == 1].chosen.to_numpy()[:3]
    rows = serial[(serial.replicate == 1) & (serial.step == 3) & (serial.strategy == "Farthest")]
    labelled = np.vstack([X0, pool_X[picks]])
    expected = [np.min(np.linalg.norm(labelled - pool_X[i], axis=1)) for i in rows.candidate]
    assert sorted(set(range(8)) - set(picks)) == rows.candidate.tolist()
    np.testing.assert_allclose(rows.score, expected, rtol=1e-12)


# ------------------------------------------------------------------ objects equal to registered ones


def test_objects_equal_to_registered_ones_give_the_rows_of_the_names():
    args = dict(pool_size=8, budget=3, replicates=2, population_size=300, seed=5, execution=QUIET)
    names = run_curves("four-gaussian", "knn5", ["SMRI", "RS", "MRI-best"], **args)
    objects = run_curves(get_problem("four-gaussian"), KNN(5), [SimpleMRI(), get_strategy("RS"),
                                                                 strategies.MRIBest()], **args)
    assert set(objects.classifier) == {"knn"}  # an object is labelled by its name
    assert_frame_equal(objects.assign(classifier="knn5"), names, check_exact=True)


def test_two_objects_with_one_name_are_refused(tmp_path):
    other = SimpleMRI(method="refit")
    with pytest.raises(ValueError, match="strategies must not repeat a name, got SMRI.*give each its own"):
        run_curves(strategies=[other, "SMRI"], **SMALL)
    renamed = LDA()
    renamed.name = "knn5"
    with pytest.raises(ValueError, match="classifiers must not repeat a name, got knn5"):
        run_study(problems=["four-gaussian"], classifiers=["knn5", renamed], strategies=["RS"], out=tmp_path / "s")
    assert not (tmp_path / "s").exists()


def test_unsafe_labels_are_refused_only_where_they_name_files(tmp_path):
    spaced = FarthestFromLabelled()
    spaced.name = "far away"
    table = run_curves(classifier="lda", strategies=[spaced], **SMALL)
    assert set(table.strategy) == {"far away"}
    with pytest.raises(ValueError, match="strategies must be a non-empty name of letters.*'far away'"):
        run_curves(classifier="lda", strategies=[spaced], **SMALL, out=tmp_path / "out")
    problem = copy.copy(get_problem("four-gaussian"))
    problem.name = "four__gaussian"
    with pytest.raises(ValueError, match="problems must be a non-empty name.*'four__gaussian'"):
        run_study(problems=[problem], classifiers=["lda"], strategies=["RS"], out=tmp_path / "study")
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ resume tells objects of one name apart


def test_resume_refuses_another_classifier_and_recomputes_another_strategy(tmp_path, monkeypatch):
    """Chosen behaviour: the problem and classifier are part of config.json (another object of the same name:
    the folder is refused); a strategy's spec is part of its parts' header key (its parts are recomputed)."""
    out = tmp_path / "out"
    args = dict(classifier=NearestCentroid(), **SMALL)
    run_curves(strategies=[FarthestFromLabelled(), "RS"], out=out, **args)
    with pytest.raises(ValueError, match="out: .*holds results of a different study"):
        run_curves(strategies=["RS"], out=out, **{**args, "classifier": NearestCentroid(scale=2.0)})
    calls = count_pairs(monkeypatch)
    squared = FarthestFromLabelled(power=2.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        resumed = run_curves(strategies=[squared, "RS"], out=out, **args)
    messages = [str(w.message) for w in caught if issubclass(w.category, DamagedPartWarning)]
    assert sorted(calls) == [("Farthest", 0), ("Farthest", 1)]
    assert len(messages) == 2 and all("FarthestFromLabelled(power=1.0)" in m and "wrong pair" in m for m in messages)
    assert_frame_equal(resumed, run_curves(strategies=[squared, "RS"], **args), check_exact=True)


# ------------------------------------------------------------------ repr, theta2


def test_strategy_repr_shows_the_constructor_parameters():
    assert repr(FarthestFromLabelled(power=2.5)) == "FarthestFromLabelled(power=2.5)"
    assert repr(get_strategy("RS")) == "RandomSelection()"
    assert repr(get_strategy("BMRI", n_b=7)) == "BootstrapMRI(n_b=7, method='auto', theta2_trees=10, theta2=None)"
    assert repr(SimpleMRI(theta2=LDA())) == f"SimpleMRI(method='auto', theta2={LDA()!r})"

    class Forgetful(Strategy):
        def __init__(self, alpha: float = 1.0) -> None:
            pass

    with pytest.raises(AttributeError, match="store its __init__ parameter 'alpha'"):
        repr(Forgetful())
    with pytest.raises(TypeError, match="strategies: Forgetful must store its __init__ parameter 'alpha'"):
        run_curves(classifier="lda", strategies=[Forgetful()], **SMALL)


def test_theta2_follows_the_nearest_neighbour_attribute_or_the_parameter():
    assert isinstance(second_classifier(KNN(5)), RandomForest)
    assert isinstance(second_classifier(LDA()), KNN)
    centroid = NearestCentroid()
    centroid.nearest_neighbour = True
    assert isinstance(second_classifier(centroid), RandomForest)
    # an explicit theta2 equal to the default gives the same scores; another one differs
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(12, 2)), np.repeat([0, 1], 6)
    candidates = rng.normal(size=(5, 2))

    def scores(strategy, base):
        return strategy.scores(Context(X, y, candidates, candidates, base, 2, np.random.default_rng(1)))

    np.testing.assert_array_equal(scores(SimpleMRI(theta2=KNN(5)), LDA()), scores(SimpleMRI(), LDA()))
    np.testing.assert_array_equal(scores(SimpleMRI(theta2=RandomForest(FOREST_TREES)), KNN(5)),
                                  scores(SimpleMRI(), KNN(5)))
    assert not np.array_equal(scores(SimpleMRI(theta2=LDA()), LDA()), scores(SimpleMRI(), LDA()))
    with pytest.raises(TypeError, match="theta2 must be a Classifier"):
        SimpleMRI(theta2="knn5")


# ------------------------------------------------------------------ registries


def test_register_round_trips(own_registrations):
    register_strategy("far", FarthestFromLabelled)
    register_classifier("centroid2", lambda: NearestCentroid(scale=2.0))
    assert list_strategies()[-1] == "far" and "centroid2" in list_classifiers()
    assert repr(get_strategy("far", power=3.0)) == "FarthestFromLabelled(power=3.0)"
    assert repr(get_classifier("centroid2")) == repr(NearestCentroid(scale=2.0))
    register_strategy("far", lambda: FarthestFromLabelled(power=0.5), overwrite=True)
    assert get_strategy("far").power == 0.5
    table = run_curves(classifier="centroid2", strategies=["far"], **SMALL)
    assert set(table.classifier) == {"centroid2"} and set(table.strategy) == {"far"}


@pytest.mark.parametrize("register", [register_strategy, register_classifier])
@pytest.mark.parametrize("name, factory, error, pattern", [
    ("a b", Strategy, ValueError, r"name must be a non-empty name .* got 'a b'"),
    ("a__b", Strategy, ValueError, r"name must be a non-empty name .*without '__'"),
    ("", Strategy, ValueError, r"name must be a non-empty name"),
    ("a/b", Strategy, ValueError, r"name must be a non-empty name"),
    (3, Strategy, TypeError, r"name must be a str, got int"),
    ("fine", "not callable", TypeError, r"factory must be callable"),
])
def test_bad_registrations_are_refused(own_registrations, register, name, factory, error, pattern):
    before = (list_strategies(), list_classifiers())
    with pytest.raises(error, match=pattern):
        register(name, factory)
    assert (list_strategies(), list_classifiers()) == before


def test_duplicates_need_overwrite_and_all_is_reserved(own_registrations):
    with pytest.raises(ValueError, match="name: a strategy 'SMRI' is already registered; pass overwrite=True"):
        register_strategy("SMRI", SimpleMRI)
    with pytest.raises(ValueError, match="name: a classifier 'lda' is already registered"):
        register_classifier("lda", LDA)
    with pytest.raises(ValueError, match="name 'all' is reserved"):
        register_strategy("all", SimpleMRI)
    with pytest.raises(TypeError, match="overwrite must be True or False"):
        register_classifier("lda", LDA, overwrite="yes")


# ------------------------------------------------------------------ problems without the truth


@pytest.fixture
def blind():
    """four-gaussian, declared without truth (as a real-data problem): the sandbox must not use it."""
    problem = copy.copy(get_problem("four-gaussian"))
    problem.name, problem.has_truth = "blind", False
    return problem


def test_without_truth_the_practical_strategies_run_and_the_rest_is_refused(blind, tmp_path):
    args = dict(classifier="lda", pool_size=6, budget=3, replicates=1, population_size=300, execution=QUIET)
    table = run_curves(blind, strategies=["RS", "SE"], record_q_c=False, **args)
    truth = run_curves("four-gaussian", strategies=["RS", "SE"], record_q_c=False, truth="sampled", **args)
    assert_frame_equal(table.assign(problem="four-gaussian"), truth, check_exact=True)
    with pytest.raises(ValueError, match="strategies: MRI-best need the truth .*problem 'blind' has no truth"):
        run_curves(blind, strategies=["RS", "MRI-best"], record_q_c=False, **args, out=tmp_path / "a")
    with pytest.raises(ValueError, match="record_q_c must be False: .*problem 'blind' has no truth"):
        run_curves(blind, strategies=["RS"], record_q_c=True, **args, out=tmp_path / "b")
    with pytest.raises(ValueError, match="problem: 'blind' has no truth"):
        score_states(blind, "lda", ["SE"], replicates=1, steps=[0], pool_size=6, population_size=300,
                     out=tmp_path / "c")
    assert list(tmp_path.iterdir()) == []
    # a study of it has no MRI-best (no regret)
    study = run_study(problems=[blind], classifiers=["lda"], strategies=["RS"], replicates=1, pool_size=4,
                      population_size=200, asymptotic_train=40, asymptotic_replicates=1, asymptotic_population=200,
                      execution=QUIET)
    assert list(study.curves.strategy.unique()) == ["RS"]


# ------------------------------------------------------------------ bad inputs of the new arguments


@pytest.mark.parametrize("change, error, pattern", [
    ({"problem": 3}, TypeError, r"problem must be a problem name \(str\) or a Problem object, got int"),
    ({"classifier": KNN}, TypeError, r"classifier must be a classifier name \(str\) or a Classifier object"),
    ({"strategies": [SimpleMRI]}, TypeError, r"strategies must hold strategy names \(str\) or Strategy objects"),
    ({"strategies": FarthestFromLabelled()}, None, None),
    ({"classifier": "nope"}, ValueError, r"classifier: unknown classifier 'nope'"),
])
def test_bad_object_arguments_are_named(change, error, pattern, tmp_path):
    args = {**SMALL, "classifier": "lda", "strategies": ["RS"], "out": tmp_path / "out", **change}
    if error is None:  # a single object is a one-strategy list
        assert set(run_curves(**args).strategy) == {"Farthest"}
        return
    with pytest.raises(error, match=pattern):
        run_curves(**args)
    assert not (tmp_path / "out").exists()


def test_a_classifier_object_is_never_fitted_in_place():
    template = NearestCentroid()
    run_curves(classifier=template, strategies=["SE", FarthestFromLabelled()], **SMALL)
    assert not hasattr(template, "n_classes_")


@pytest.mark.parametrize("register, get, what", [
    ("strategy", "get_strategy", "Strategy"), ("classifier", "get_classifier", "Classifier"),
    ("problem", "get_problem", "Problem")])
def test_a_factory_of_the_wrong_type_is_refused_before_any_file(own_registrations, register, get, what, tmp_path):
    import mri_theory.classifiers as classifiers
    import mri_theory.problems as problems
    import mri_theory.strategies as strategies

    module = {"strategy": strategies, "classifier": classifiers, "problem": problems}[register]
    getattr(module, f"register_{register}")("wrong-type", lambda: 5)
    with pytest.raises(TypeError, match=f"the factory registered as {register} 'wrong-type' returned int, "
                                        f"not a {what}"):
        getattr(module, get)("wrong-type")
    args = {"problem": "four-gaussian", "classifier": "lda", "strategies": ["RS"]}
    if register == "strategy":
        args["strategies"] = ["wrong-type"]
    else:
        args[register] = "wrong-type"
    with pytest.raises(TypeError, match="wrong-type"):
        run_curves(**args, pool_size=4, replicates=1, population_size=200, out=tmp_path / "out", execution=QUIET)
    assert not (tmp_path / "out").exists()


def test_get_strategy_passes_options_to_a_factory_taking_keywords(own_registrations):
    import mri_theory.strategies as strategies

    register_strategy("smri-kw", lambda **options: strategies.SimpleMRI(**options))
    assert strategies.get_strategy("smri-kw", method="refit").method == "refit"
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        strategies.get_strategy("smri-kw", nope=1)
