"""The registries' public removal and temporary registration: ``unregister_*`` and ``registered_*``.

For problems, classifiers and strategies alike: a ``registered_*`` block
leaves the registry exactly as it found it (the listing, the factory a
replaced name had, the problems' cached object, the strategies' order), also
when the block raises and when blocks nest; ``unregister_*`` removes a user's
name, refuses the built-in names and names the argument for unknown names.
Expected states are the listings and objects read before the change.
"""

from __future__ import annotations

import pytest
from _shared import QUIET

from mri_theory import classifiers, problems, strategies
from mri_theory.classifiers import (
    KNN,
    LDA,
    get_classifier,
    list_classifiers,
    register_classifier,
)
from mri_theory.problems import (
    GaussianMixtureProblem,
    get_problem,
    list_problems,
    register_problem,
)
from mri_theory.strategies import (
    LeastConfidence,
    RandomSelection,
    ShannonEntropy,
    get_strategy,
    list_strategies,
    register_strategy,
)


def _problem(name="reg-test"):
    return GaussianMixtureProblem(name, [([1.0], [[-1.0]], [[[1.0]]]), ([1.0], [[2.0]], [[[1.0]]])], [0.5, 0.5])


# kind: (register, unregister, registered, list, get, a built-in name, two factories of distinct objects)
KINDS = {
    "problem": (register_problem, problems.unregister_problem, problems.registered_problem, list_problems,
                get_problem, "two-gaussians", lambda: _problem("one"), lambda: _problem("two")),
    "classifier": (register_classifier, classifiers.unregister_classifier, classifiers.registered_classifier,
                   list_classifiers, get_classifier, "lda", lambda: KNN(3), lambda: LDA(reg=0.5)),
    "strategy": (register_strategy, strategies.unregister_strategy, strategies.registered_strategy,
                 list_strategies, get_strategy, "SE", RandomSelection, LeastConfidence),
}


def _ident(obj):
    """What tells two registered objects apart: a problem's name, else the repr."""
    return obj.name if isinstance(obj, GaussianMixtureProblem) else repr(obj)


@pytest.fixture(params=sorted(KINDS))
def kind(request, own_registrations):
    return KINDS[request.param]


def test_the_new_names_are_public():
    for module, names in ((problems, ("unregister_problem", "registered_problem")),
                          (classifiers, ("unregister_classifier", "registered_classifier")),
                          (strategies, ("unregister_strategy", "registered_strategy"))):
        for name in names:
            assert name in module.__all__ and callable(getattr(module, name))


def test_registered_adds_for_the_block_only(kind):
    _, _, registered, listing, get, _, one, _ = kind
    before = listing()
    with registered("reg-new", one):
        assert "reg-new" in listing() and _ident(get("reg-new")) == _ident(one())
    assert listing() == before
    with pytest.raises(ValueError, match="unknown"):
        get("reg-new")


def test_registered_over_a_built_in_restores_it_exactly(kind):
    _, _, registered, listing, get, builtin, one, _ = kind
    before, original = listing(), get(builtin)
    with registered(builtin, one, overwrite=True):
        assert _ident(get(builtin)) == _ident(one())
    assert listing() == before  # the strategies' order included
    again = get(builtin)
    assert _ident(again) == _ident(original)
    if isinstance(original, GaussianMixtureProblem):
        assert again.prior is original.prior  # copies of the cached instance, which is back: not a new one


def test_registered_over_a_user_name_restores_its_factory(kind):
    register, _, registered, listing, get, _, one, two = kind
    register("reg-user", one)
    first = get("reg-user")
    before = listing()
    with registered("reg-user", two, overwrite=True):
        assert _ident(get("reg-user")) == _ident(two())
    assert listing() == before and _ident(get("reg-user")) == _ident(one())
    if isinstance(first, GaussianMixtureProblem):
        assert get("reg-user").prior is first.prior  # copies of the one cached instance


def test_an_exception_in_the_block_still_restores(kind):
    _, _, registered, listing, get, builtin, one, _ = kind
    before, original = listing(), _ident(get(builtin))
    with (pytest.raises(RuntimeError, match="inside"), registered("reg-raise", one),
          registered(builtin, one, overwrite=True)):
        raise RuntimeError("inside")
    assert listing() == before and _ident(get(builtin)) == original


def test_nested_blocks_unwind_one_by_one(kind):
    _, _, registered, listing, get, _, one, two = kind
    before = listing()
    with registered("reg-nest", one):
        with registered("reg-nest", two, overwrite=True):
            assert _ident(get("reg-nest")) == _ident(two())
        assert _ident(get("reg-nest")) == _ident(one())
        with registered("reg-other", two):
            assert {"reg-nest", "reg-other"} <= set(listing())
        assert "reg-other" not in listing()
    assert listing() == before


def test_registered_refuses_like_register_before_changing_anything(kind):
    _, _, registered, listing, get, builtin, one, _ = kind
    before, original = listing(), _ident(get(builtin))
    for name, factory, kwargs, error, pattern in [
        (builtin, one, {}, ValueError, f"name: a \\w+ '{builtin}' is already registered; pass overwrite=True"),
        ("a__b", one, {}, ValueError, "name must be a non-empty name"),
        (3, one, {}, TypeError, "name must be a str"),
        ("reg-bad", "not callable", {}, TypeError, "factory must be callable"),
        ("reg-bad", one, {"overwrite": "yes"}, TypeError, "overwrite must be True or False"),
    ]:
        with pytest.raises(error, match=pattern), registered(name, factory, **kwargs):
            pytest.fail("the block must not run")  # pragma: no cover
        assert listing() == before and _ident(get(builtin)) == original


def test_unregister_removes_a_user_name(kind):
    register, unregister, _, listing, get, _, one, two = kind
    before = listing()
    register("reg-gone", one)
    get("reg-gone")  # a problem is cached now
    unregister("reg-gone")
    assert listing() == before
    with pytest.raises(ValueError, match="unknown"):
        get("reg-gone")
    register("reg-gone", two)  # a fresh registration: no stale cached object
    assert _ident(get("reg-gone")) == _ident(two())


def test_unregister_refuses_built_ins_even_overwritten(kind):
    _, unregister, registered, listing, get, builtin, one, _ = kind
    before = listing()
    with pytest.raises(ValueError, match=f"name: '{builtin}' is a built-in \\w+ and cannot be unregistered"):
        unregister(builtin)
    with registered(builtin, one, overwrite=True), pytest.raises(ValueError, match="is a built-in"):
        unregister(builtin)
    assert listing() == before


@pytest.mark.parametrize("name, error, pattern", [
    ("reg-never", ValueError, r"name: no \w+ 'reg-never' is registered; registered \w+ names: "),
    (3, TypeError, "name must be a str, got int"),
    (None, TypeError, "name must be a str, got NoneType"),
])
def test_unregister_names_the_argument(kind, name, error, pattern):
    _, unregister, _, listing, _, builtin, _, _ = kind
    before = listing()
    with pytest.raises(error, match=pattern) as info:
        unregister(name)
    if error is ValueError:
        assert builtin in str(info.value)  # the message lists the registered names
    assert listing() == before


def test_a_replaced_strategy_keeps_its_place_in_the_paper_order(own_registrations):
    order = list_strategies()
    register_strategy("reg-late", ShannonEntropy)
    with strategies.registered_strategy("SMRI", RandomSelection, overwrite=True):
        assert list_strategies() == order + ["reg-late"]
        strategies.unregister_strategy("reg-late")  # a change inside the block is kept
        assert list_strategies() == order
    assert list_strategies() == order and repr(get_strategy("SMRI")) == "SimpleMRI(method='auto', theta2=None)"


def test_a_name_removed_and_added_again_inside_the_block_is_put_back_in_its_place(own_registrations):
    register_strategy("reg-a", ShannonEntropy)
    register_strategy("reg-b", ShannonEntropy)
    order = list_strategies()
    with strategies.registered_strategy("reg-a", RandomSelection, overwrite=True):
        strategies.unregister_strategy("reg-a")
        register_strategy("reg-a", LeastConfidence)  # now after reg-b
        assert list_strategies()[-2:] == ["reg-b", "reg-a"]
    assert list_strategies() == order and isinstance(get_strategy("reg-a"), ShannonEntropy)


def test_registered_strategy_keeps_the_reserved_name():
    with (pytest.raises(ValueError, match="name 'all' is reserved"),
          strategies.registered_strategy("all", RandomSelection)):
        pytest.fail("the block must not run")  # pragma: no cover
    assert "all" not in list_strategies()


def test_a_registered_name_works_in_the_runners(tmp_path):
    from mri_theory.runners.sandbox import run_curves

    with classifiers.registered_classifier("reg-knn3", lambda: KNN(3)), \
            strategies.registered_strategy("reg-lc", LeastConfidence), \
            problems.registered_problem("reg-problem", lambda: _problem("reg-problem")):
        table = run_curves(problem="reg-problem", classifier="reg-knn3", strategies=["reg-lc"], pool_size=6,
                           budget=2, replicates=1, population_size=64, execution=QUIET)
    assert set(table.problem) == {"reg-problem"} and set(table.classifier) == {"reg-knn3"}
    assert set(table.strategy) == {"reg-lc"}
    assert "reg-knn3" not in list_classifiers() and "reg-lc" not in list_strategies()
    assert "reg-problem" not in list_problems()


# ------------------------------------------------------------------ declarations: tag, tagged


def test_a_declaration_is_the_registrations_tag_else_the_factorys_attribute_else_the_default():
    from mri_theory.engine import Registry
    from mri_theory.strategies import Strategy

    class Declared(Strategy):
        origin = "ours"

    registry = Registry("strategy", Strategy, sort=False)
    registry.register("a", Declared)
    registry.register("b", lambda: Declared(), origin="paper")  # the registration's tag wins
    registry.register("c", lambda: Declared())  # a lambda declares nothing: the default
    assert [registry.tag(name, "origin", "other") for name in "abc"] == ["ours", "paper", "other"]
    assert registry.tagged("origin", "ours", default="other") == ("a",)
    assert registry.tagged("origin", "other", default="other") == ("c",)
    with registry.registered("a", lambda: Declared(), overwrite=True):  # replaced for a while: its declaration too
        assert registry.tagged("origin", "ours", default="other") == ()
    assert registry.tagged("origin", "ours", default="other") == ("a",) and registry.names() == ["a", "b", "c"]
    with pytest.raises(ValueError, match="unknown strategy 'd'; known strategies: a, b, c"):
        registry.tag("d", "origin")
    with pytest.raises(TypeError, match="name must be a str"):
        registry.factory(1)


def test_the_built_in_declarations_give_the_papers_groups():
    """Appendix C/D and §5.1, by what the registered objects declare."""
    from mri_theory.classifiers import CLASSIFIER_REGISTRY
    from mri_theory.problems import PROBLEM_REGISTRY

    assert PROBLEM_REGISTRY.tagged("group", "abstract") == ("four-gaussian", "quadratic", "triangles",
                                                            "oscillating", "sharp")
    assert CLASSIFIER_REGISTRY.tagged("origin", "paper") == ("lda", "qda", "kknn5", "nb", "logreg", "svm")
    assert strategies.strategy_names("paper") == ("RS", "SE", "QbcV", "QbcA", "EfeLc", "SMRI", "BMRI")
    with pytest.raises(ValueError, match="origin must be one of"):
        strategies.strategy_names("mine")


def test_a_cached_problem_cannot_be_renamed_for_later_callers():
    """Issue 54: ``get_problem`` hands each caller its own copy of the cached problem: a name assigned to it (or
    any attribute) never reaches a later call, while the data (read once, read-only) are shared."""
    from mri_theory.problems import get_problem

    mine = get_problem("four-gaussian")
    mine.name = "mine"
    again = get_problem("four-gaussian")
    assert again.name == "four-gaussian" and mine.name == "mine"
    assert again.prior is mine.prior and not again.prior.flags.writeable
