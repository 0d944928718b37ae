"""Mixed and invalid objects, and messages that must blame the right argument (issue 40).

* ``true_q_c`` (every target through ``check_truth``) refuses the exact population of another problem: an exact
  population records its problem by its mixture, so the same mixture rebuilt is accepted (with the same values)
  and a mixture that differs beyond rounding is refused.
* ``run_curves`` and ``run_study`` refuse, before any work or file, a classifier whose probabilities are no
  class probabilities (rows summing to 1.8, negative entries, NaN, a column missing), naming the argument.
* scikit-activeml's peers are built in, as the paper's strategies: every member of every set the runners
  expand stays registered.
* The selection words the runners and the CLI read (``all``, the sets ``paper``, ``peers``, ``abstract``,
  the strategy origins, the problem groups) cannot be registered as names.
* ``Population.loss`` and ``ExactPopulation.loss`` given a classifier's name blame ``classifier``.
* A header-only CSV says it has no data rows.
* A registered factory's own exception is wrapped, naming the kind and the name, chained to it, by
  ``get_*`` and by the runners (naming their argument), before any work or file.
"""

from __future__ import annotations

import numpy as np
import pytest
from _shared import QUIET

from mri_theory.classifiers import CLASSIFIER_REGISTRY, LDA, get_classifier, register_classifier
from mri_theory.engine import Population, true_b_c, true_q_a, true_q_c
from mri_theory.problems import (
    PROBLEM_REGISTRY,
    DataProblem,
    GaussianMixtureProblem,
    get_problem,
    register_problem,
)
from mri_theory.runners import CLASSIFIER_SETS, PROBLEM_GROUPS, STRATEGY_SETS
from mri_theory.runners.sandbox import run_curves
from mri_theory.runners.study import run_study
from mri_theory.strategies import (
    ORIGINS,
    PEER_NAMES,
    STRATEGY_REGISTRY,
    RandomSelection,
    list_strategies,
    register_strategy,
    registered_strategy,
    unregister_strategy,
)

# ---------------------------------------------------------------- an exact population of another problem


def _mixture(name: str, shift: float = 0.0) -> GaussianMixtureProblem:
    """A 2-D two-class mixture; ``shift`` moves class 1's first mean's x coordinate by that much."""
    return GaussianMixtureProblem(name, [([0.4, 0.6], [[0.0, 0.0], [1.0, -0.5]], [np.eye(2), 0.5 * np.eye(2)]),
                                         ([1.0], [[1.5 + shift, 1.0]], [np.eye(2)])], [0.45, 0.55])


def _training(problem):
    X, y = problem.sample(8, np.random.default_rng(2))
    return X, y, X[:3] + 0.1


def test_true_q_c_refuses_the_exact_population_of_another_problem():
    four, quadratic = get_problem("four-gaussian"), get_problem("quadratic")
    assert (four.dim, four.n_classes) == (quadratic.dim, quadratic.n_classes)  # only the mixture tells them apart
    X, y, candidates = _training(four)
    with pytest.raises(ValueError, match=r"^population is the exact population of another problem than "
                                         r"'four-gaussian'"):
        true_q_c(four, LDA(), X, y, candidates, Population.exact(quadratic))
    with pytest.raises(ValueError, match=r"^population is the exact population of another problem"):
        true_q_a(four, LDA(), X, y, candidates, [0, 1, 0], Population.exact(quadratic))
    with pytest.raises(ValueError, match=r"^population is the exact population of another problem"):
        true_b_c(four, LDA(), X, y, candidates[:1], Population.exact(quadratic))


def test_a_problem_without_a_mixture_has_no_exact_population():
    blind = DataProblem(*_mixture("m").sample(40, np.random.default_rng(0)), name="blind")
    X, y, candidates = _training(_mixture("m"))
    with pytest.raises((TypeError, ValueError), match=r"^(problem|population)"):
        true_q_c(blind, LDA(), X, y, candidates, Population.exact(_mixture("m")))


@pytest.mark.parametrize("shift, same", [(0.0, True), (1e-15, True), (1e-6, False), (0.5, False)])
def test_the_exact_population_is_its_problems_by_the_mixture(shift, same):
    """The problem an exact population belongs to is any with its mixture: another object with the same
    parameters (to rounding) is accepted and gives the same Q^c (bit for bit with equal parameters); a mixture
    moved beyond rounding is refused."""
    mine, other = _mixture("mine"), _mixture("other", shift)
    X, y, candidates = _training(mine)
    reference = true_q_c(mine, LDA(), X, y, candidates, Population.exact(mine))
    if same:
        np.testing.assert_allclose(true_q_c(mine, LDA(), X, y, candidates, Population.exact(other)), reference,
                                   rtol=0, atol=0 if shift == 0 else 1e-14)
    else:
        with pytest.raises(ValueError, match=r"^population is the exact population of another problem than 'mine'"):
            true_q_c(mine, LDA(), X, y, candidates, Population.exact(other))


def test_the_accepted_exact_q_c_is_that_of_a_sampled_population():
    """Independent check of the accepted case: the exact Q^c against a large QMC population's, within its
    standard error (the sampled truth knows nothing of the exact population's record)."""
    mine = _mixture("mine")
    X, y, candidates = _training(mine)
    exact = true_q_c(mine, LDA(), X, y, candidates, Population.exact(mine))
    sampled = true_q_c(mine, LDA(), X, y, candidates,
                       Population.from_problem(mine, 2**17, np.random.default_rng(5), method="qmc"))
    np.testing.assert_allclose(sampled, exact, atol=3e-3)


# ---------------------------------------------------------------- a classifier whose probabilities are none


class _Broken(LDA):
    """LDA whose ``predict_proba`` breaks the contract in one way (``how``)."""

    name = "broken"

    def __init__(self, how: str = "sum", reg: float = 1e-3) -> None:
        super().__init__(reg=reg)
        self.how = how

    def _predict_proba(self, X):
        proba = super()._predict_proba(X)
        if self.how == "sum":
            return 1.8 * proba  # rows summing to 1.8, as in the issue
        if self.how == "negative":
            return np.column_stack([proba[:, 0] + 0.5, proba[:, 1] - 0.5])
        if self.how == "nan":
            return np.where(proba > 0.5, np.nan, proba)
        return proba[:, :1]  # a column missing


BROKEN = [("sum", r"rows summing to 1\.8, not 1"), ("negative", r"entries in \[-0\.\d+, 1\.\d+\], outside \[0, 1\]"),
          ("nan", r"entries that are not finite"), ("column", r"of shape \(\d+, 1\) for \d+ points, not \(\d+, 2\)")]


@pytest.mark.parametrize("how, pattern", BROKEN, ids=[how for how, _ in BROKEN])
def test_run_curves_refuses_a_classifier_without_class_probabilities(how, pattern, tmp_path, no_work):
    with pytest.raises(ValueError, match=r"^classifier: 'broken' \(_Broken\) fitted on the initial labelled set "
                                         r"of problem 'four-gaussian' gave predict_proba " + pattern) as info:
        run_curves("four-gaussian", _Broken(how), ["RS"], pool_size=6, replicates=1, population_size=200,
                   execution=QUIET, out=tmp_path / "out")
    assert "check_classifier" in str(info.value)
    assert not (tmp_path / "out").exists()


def test_run_study_refuses_a_classifier_without_class_probabilities(tmp_path, no_work):
    with pytest.raises(ValueError, match=r"^classifiers: 'broken' \(_Broken\) .* rows summing to 1\.8"):
        run_study(problems=["four-gaussian"], classifiers=["lda", _Broken()], strategies=["RS"], replicates=1,
                  pool_size=6, population_size=200, asymptotic_train=50, asymptotic_replicates=1,
                  asymptotic_population=200, execution=QUIET, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_probe_is_the_first_fit_of_the_curve():
    """The probe fits on replicate 0's initial labelled set: a classifier that records its fits sees the same
    training set first in the probe and in the curve (so a classifier the probe passes was probed where the
    curve starts)."""
    seen = []

    class Recording(LDA):
        name = "recording"

        def _fit(self, X, y):
            seen.append((X.copy(), y.copy()))
            super()._fit(X, y)

    run_curves("four-gaussian", Recording(), ["RS"], pool_size=6, replicates=1, budget=1, population_size=200,
               execution=QUIET)
    probe, curve = seen[0], seen[1]
    np.testing.assert_array_equal(probe[0], curve[0])
    np.testing.assert_array_equal(probe[1], curve[1])
    assert probe[1].tolist() == [0, 1]  # one point per class


# ---------------------------------------------------------------- the sets' members and names


def _sets():
    """(registry, set name, members) of every set the runners expand, and "all"."""
    yield PROBLEM_REGISTRY, "all", PROBLEM_REGISTRY.names()
    yield CLASSIFIER_REGISTRY, "all", CLASSIFIER_REGISTRY.names()
    yield STRATEGY_REGISTRY, "all", list_strategies()
    for registry, sets in ((PROBLEM_REGISTRY, PROBLEM_GROUPS), (CLASSIFIER_REGISTRY, CLASSIFIER_SETS),
                           (STRATEGY_REGISTRY, STRATEGY_SETS)):
        for name, members in sets.items():
            yield registry, name, members


def test_every_set_name_is_reserved_and_every_member_built_in():
    for registry, name, members in _sets():
        before = registry.names()
        with pytest.raises(ValueError, match=rf"^name {name!r} is reserved: "):
            registry.register(name, registry.factory(registry.names()[0]))
        assert registry.names() == before
        if name == "all":
            continue
        for member in members:  # a set's members cannot go: the set would name what is not there
            with pytest.raises(ValueError, match=rf"^name: {member!r} is a built-in"):
                registry.unregister(member)
            assert member in registry


def test_the_issue_s_names_are_refused_by_the_public_registration(own_registrations):
    with pytest.raises(ValueError, match=r"^name 'paper' is reserved: the runners and the CLI read it"):
        register_strategy("paper", RandomSelection)
    with pytest.raises(ValueError, match=r"^name 'paper' is reserved: it is a classifier set"):
        register_classifier("paper", LDA)
    with pytest.raises(ValueError, match=r"^name 'abstract' is reserved: it is a problem group"):
        register_problem("abstract", lambda: _mixture("abstract"))
    for origin in ORIGINS:
        with pytest.raises(ValueError, match=rf"^name {origin!r} is reserved"):
            register_strategy(origin, RandomSelection)
    for group in ("example", "real"):
        with pytest.raises(ValueError, match=rf"^name {group!r} is reserved: it is a problem group"):
            register_problem(group, lambda name=group: _mixture(name))
    with pytest.raises(ValueError, match=r"^name 'ours' is reserved"), registered_strategy("ours", RandomSelection):
        pass


def test_a_peer_cannot_be_unregistered_and_stays_in_its_set():
    for name in PEER_NAMES:
        with pytest.raises(ValueError, match=rf"^name: {name!r} is a built-in strategy and cannot be unregistered"):
            unregister_strategy(name)
    assert set(STRATEGY_SETS["peers"]) == set(PEER_NAMES) <= set(STRATEGY_REGISTRY.names())


def test_a_peer_can_still_be_replaced_for_a_while():
    name = PEER_NAMES[0]
    factory = STRATEGY_REGISTRY.factory(name)
    with registered_strategy(name, RandomSelection, overwrite=True):
        assert STRATEGY_REGISTRY.factory(name) is RandomSelection
    assert STRATEGY_REGISTRY.factory(name) is factory


# ---------------------------------------------------------------- messages that blame the right argument


@pytest.mark.parametrize("population", ["exact", "sampled"])
def test_a_classifier_name_is_blamed_on_classifier(population):
    four = get_problem("four-gaussian")
    rng = np.random.default_rng(0)
    pop = Population.exact(four) if population == "exact" else Population.from_problem(four, 20, rng)
    with pytest.raises(TypeError, match=r"^classifier must be a fitted classifier object, got the name 'lda': use "
                                        r"mri_theory\.classifiers\.get_classifier\('lda'\) and fit it"):
        pop.loss("lda")
    with pytest.raises(TypeError, match=r"^classifier must be a fitted classifier with predict_proba, got object"):
        pop.loss(object())
    X, y = four.sample(10, np.random.default_rng(1))
    fitted = get_classifier("lda").fit(X, y, 2)
    assert 0.0 <= pop.loss(fitted) <= 1.0  # the valid neighbour


@pytest.mark.parametrize("text", ["a,b,y\n", "a,b,y\n\n\n"])
def test_a_header_only_csv_has_no_rows(text, tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"^path '.*empty\.csv' has a header row but no data rows"):
        DataProblem.from_csv(path, "y")


def test_a_csv_with_one_row_per_class_is_read(tmp_path):
    path = tmp_path / "small.csv"
    path.write_text("a,b,y\n0.5,1,u\n2,3.5,v\n1,1,u\n2,2,v\n3,1,u\n")
    problem = DataProblem.from_csv(path, "y", test_size=2)
    assert (problem.n_classes, problem.dim) == (2, 2)
    np.testing.assert_array_equal(np.sort(problem.X[:, 0]), [0.5, 1, 2, 2, 3])


class _Disk(RuntimeError):
    pass


def _failing():
    raise _Disk("the disk is gone")


def test_a_factory_s_own_exception_is_wrapped_naming_the_name(own_registrations):
    register_problem("h40-failing", _failing)
    with pytest.raises(ValueError, match=r"^the factory registered as problem 'h40-failing' failed: _Disk: the disk "
                                         r"is gone$") as info:
        get_problem("h40-failing")
    assert isinstance(info.value.__cause__, _Disk)

    def value_error():
        raise ValueError("no such column")

    def type_error():
        raise TypeError("bad type")

    register_classifier("h40-value", value_error)
    register_classifier("h40-type", type_error)
    with pytest.raises(ValueError, match=r"^the factory registered as classifier 'h40-value' failed: no such column"):
        get_classifier("h40-value")
    with pytest.raises(TypeError, match=r"^the factory registered as classifier 'h40-type' failed: bad type"):
        get_classifier("h40-type")

    def missing():
        raise ImportError("install the extra")

    register_classifier("h40-import", missing)
    with pytest.raises(ImportError, match=r"^install the extra$"):  # what to install: as it is
        get_classifier("h40-import")


@pytest.mark.parametrize("runner", ["run_study", "run_curves"])
def test_the_runners_wrap_a_problem_factory_s_exception(runner, own_registrations, tmp_path, no_work):
    register_problem("h40-failing", _failing)
    argument = "problems" if runner == "run_study" else "problem"
    with pytest.raises(ValueError, match=rf"^{argument}: the factory registered as problem 'h40-failing' failed: "
                                         r"_Disk: the disk is gone$") as info:
        if runner == "run_study":
            run_study(problems=["h40-failing"], classifiers=["lda"], strategies=["RS"], replicates=1, pool_size=6,
                      population_size=200, execution=QUIET, out=tmp_path / "out")
        else:
            run_curves("h40-failing", "lda", ["RS"], pool_size=6, replicates=1, population_size=200,
                       execution=QUIET, out=tmp_path / "out")
    cause = info.value.__cause__
    while cause is not None and not isinstance(cause, _Disk):
        cause = cause.__cause__
    assert isinstance(cause, _Disk)  # chained: the traceback shows the factory's own error
    assert not (tmp_path / "out").exists()


def test_an_unknown_name_still_lists_the_sets(tmp_path, no_work):
    sets = ", ".join(repr(name) for name in PROBLEM_GROUPS)
    with pytest.raises(ValueError, match=rf"^problems: unknown problem name 'nope'.* \(or the sets {sets}\)$"):
        run_study(problems=["nope"], classifiers=["lda"], strategies=["RS"], execution=QUIET, out=tmp_path / "o")
