"""The strategy contract (:class:`~mri_theory.strategies.Strategy`) and its check, :func:`check_strategy`.

Every built-in strategy, the noisy oracle and the scikit-activeml adapter pass
the check (as scikit-learn's ``parametrize_with_checks``); deliberately broken
strategies written here, each breaking one contract item, are caught with a
message naming that item, which proves the check can fail.  The expected
scores of the simplest strategies come from their definitions (RS all zero,
the oracles' scores of opposite sign).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from _optional import need

from mri_theory.classifiers import LDA
from mri_theory.runners.noisy_selection import NoisyOracle
from mri_theory.strategies import (
    Context,
    MRIBest,
    MRIWorst,
    Strategy,
    get_strategy,
    list_strategies,
)
from mri_theory.testing import STRATEGY_CHECKS, StrategyCheckError, check_strategy

#: Options keeping the costly strategies fast (the check scores each four times).
FAST = {"BMRI": {"n_b": 3, "theta2_trees": 3}, "AnnealingOracle": {"steps": 100, "greedy_steps": 20},
        "BossOracle": {"batches": 10}}


# ---------------------------------------------------------------- every built-in passes


@pytest.mark.parametrize("name", list_strategies())
def test_builtin_strategies_pass_the_check(name):
    scores = check_strategy(get_strategy(name, **FAST.get(name, {})))
    assert scores.shape == (6,) and np.all(np.isfinite(scores))


def test_the_default_bmri_and_other_settings_pass_the_check():
    check_strategy(get_strategy("BMRI"), classifier=LDA(), seed=1)
    check_strategy(get_strategy("SMRI", method="refit", theta2=LDA()), seed=2)
    check_strategy(NoisyOracle(0.5))
    check_strategy(NoisyOracle(float("inf"), relative=False, loss="log"))


@pytest.mark.parametrize("query, options", [("UncertaintySampling", {}), ("UncertaintySampling", {"method": "entropy"}),
                                            ("RandomSampling", {}), ("MonteCarloEER", {"method": "log_loss"})])
def test_the_skactiveml_adapter_passes_the_check(query, options):
    pool = need("skactiveml.pool")
    from mri_theory.strategies.skactiveml import SkactivemlStrategy

    check_strategy(SkactivemlStrategy(getattr(pool, query)(**options)))


def test_scores_from_the_definitions():
    assert np.array_equal(check_strategy(get_strategy("RS")), np.zeros(6))
    best, worst = check_strategy(MRIBest()), check_strategy(MRIWorst())
    assert np.array_equal(best, -worst) and np.ptp(best) > 0


def test_the_strategy_interface_is_declared_on_the_base_class():
    """Everything the runners read from a strategy besides scores, with the defaults of a practical one."""
    declared = {"name": str, "costly": bool, "needs_truth": bool, "estimates_t_e": bool, "sign": float}
    assert {key: Strategy.__annotations__[key] for key in declared} == {k: t.__name__ for k, t in declared.items()}
    assert (Strategy.costly, Strategy.needs_truth, Strategy.estimates_t_e, Strategy.sign) == (False, False, False, 1.0)
    assert (MRIBest.sign, MRIWorst.sign) == (1.0, -1.0)
    assert Strategy.scores.__doc__ and "ctx.rng" in Strategy.scores.__doc__


def test_reading_a_cached_property_of_the_truth_is_no_mutation():
    shift = check_strategy(ReadsTheBayesError()) - check_strategy(MRIBest())
    assert np.ptp(shift) <= 1e-12 and 0 < shift[0] < 2 / 3  # the Bayes error of three classes is below 2/3


def test_the_check_scores_copies_only():
    strategy = Counting()
    check_strategy(strategy)
    assert strategy.calls == 0


@pytest.mark.parametrize("bad, error, pattern", [
    ("RS", TypeError, "strategy must be an instance of a mri_theory.strategies.Strategy subclass, got str"),
    (None, TypeError, "strategy must be an instance"),
])
def test_bad_arguments_are_named(bad, error, pattern):
    with pytest.raises(error, match=pattern):
        check_strategy(bad)


def test_bad_keyword_arguments_are_named():
    with pytest.raises(TypeError, match="classifier must be a mri_theory Classifier"):
        check_strategy(Counting(), classifier="lda")
    with pytest.raises(ValueError, match="seed"):
        check_strategy(Counting(), seed=-1)
    with pytest.raises(ValueError, match="seed must be an integer, got 1.5"):
        check_strategy(Counting(), seed=1.5)
    with pytest.raises(TypeError, match="seed must be an integer, got str"):
        check_strategy(Counting(), seed="1")


# ---------------------------------------------------------------- broken strategies are caught


class Counting(Strategy):
    """Correct: least confidence; counts its calls (state kept for one learning curve is allowed)."""

    name = "counting"

    def __init__(self) -> None:
        self.calls = 0

    def scores(self, ctx):
        self.calls += 1
        return 1.0 - ctx.fitted().predict_proba(ctx.candidates).max(axis=1)


class MutatesX(Counting):
    def scores(self, ctx):
        ctx.X[0, 0] += 1.0
        return super().scores(ctx)


class SortsLabels(Counting):
    def scores(self, ctx):
        ctx.y.sort()
        return np.zeros(ctx.candidates.shape[0])


class ReplacesPool(Counting):
    def scores(self, ctx):
        ctx.pool = ctx.pool[:1]
        return np.zeros(ctx.candidates.shape[0])


class FitsTheTemplate(Counting):
    def scores(self, ctx):
        return 1.0 - ctx.classifier.fit(ctx.X, ctx.y, ctx.n_classes).predict_proba(ctx.candidates).max(axis=1)


class ReturnsNaN(Counting):
    def scores(self, ctx):
        s = super().scores(ctx)
        s[2] = np.nan
        return s


class ReturnsInf(Counting):
    def scores(self, ctx):
        return np.full(ctx.candidates.shape[0], np.inf)


class OneTooMany(Counting):
    def scores(self, ctx):
        return np.zeros(ctx.candidates.shape[0] + 1)


class ReturnsTwoDimensions(Counting):
    def scores(self, ctx):
        return np.zeros((ctx.candidates.shape[0], 1))


class ReturnsComplex(Counting):
    def scores(self, ctx):
        return np.zeros(ctx.candidates.shape[0]) + 1j


class ReturnsText(Counting):
    def scores(self, ctx):
        return ["1"] * ctx.candidates.shape[0]


class Raises(Counting):
    def scores(self, ctx):
        raise RuntimeError("boom")


class OwnRandomness(Counting):
    """Draws from a generator of its own, not from ctx.rng."""

    def scores(self, ctx):
        return np.random.default_rng().random(ctx.candidates.shape[0])


class RemembersCalls(Counting):
    """Scores depend on calls before, across pickling too: a fresh copy gives other scores after a first call."""

    def scores(self, ctx):
        self.calls += 1
        return np.full(ctx.candidates.shape[0], float(self.calls))


class LosesStateWhenPickled(Strategy):
    """A parameter that a pickle round trip loses (``__getstate__`` drops it; a deep copy keeps it)."""

    name = "loses"

    def __init__(self, shift: float = 1.0) -> None:
        self.shift = shift

    def __deepcopy__(self, memo):
        return LosesStateWhenPickled(self.shift)

    def __getstate__(self):
        return {}

    def __setstate__(self, state):
        self.shift = 0.0

    def __repr__(self):
        return "LosesStateWhenPickled(shift=?)"

    def scores(self, ctx):
        return np.full(ctx.candidates.shape[0], self.shift)


class HidesAParameter(Strategy):
    name = "hides"

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = alpha

    def __repr__(self):
        return "HidesAParameter()"

    def scores(self, ctx):
        return np.full(ctx.candidates.shape[0], self.alpha)


class DoesNotStoreItsParameter(Strategy):
    name = "unstored"

    def __init__(self, alpha: float = 1.0) -> None:
        self.scale = alpha

    def scores(self, ctx):
        return np.zeros(ctx.candidates.shape[0])


class _NoRepr:
    pass


class ShowsAnAddress(Strategy):
    name = "address"

    def __init__(self, helper: object = None) -> None:
        self.helper = _NoRepr() if helper is None else helper

    def scores(self, ctx):
        return np.zeros(ctx.candidates.shape[0])


class NotPicklable(Counting):
    def __init__(self) -> None:
        super().__init__()
        self.transform = lambda s: s  # a lambda cannot be pickled

    def scores(self, ctx):
        return self.transform(super().scores(ctx))


class PeeksAtTheTruth(Counting):
    """needs_truth=False, but uses the truth when it happens to be there."""

    def scores(self, ctx):
        if ctx.problem is not None:
            return ctx.problem.posterior(ctx.candidates).max(axis=1)
        return super().scores(ctx)


class ScoresWithoutTheTruth(MRIBest):
    """An oracle that silently returns zeros when the truth is missing."""

    name = "silent-oracle"

    def scores(self, ctx):
        if ctx.problem is None:
            return np.zeros(ctx.candidates.shape[0])
        return super().scores(ctx)


class PeeksAtTheLabels(Counting):
    """peeks=False, but uses the candidates' drawn labels when they happen to be there."""

    def scores(self, ctx):
        if ctx.candidate_labels is not None:
            return ctx.candidate_labels.astype(float)
        return super().scores(ctx)


class ScoresWithoutTheLabels(Counting):
    """A peeking strategy that silently scores without the labels."""

    peeks = True

    def scores(self, ctx):
        if ctx.candidate_labels is None:
            return np.zeros(ctx.candidates.shape[0])
        return ctx.candidate_labels.astype(float)


class ChangesTheProblem(ScoresWithoutTheTruth):
    """An oracle that renames the problem."""

    def scores(self, ctx):
        if ctx.problem is not None:
            ctx.problem.name += "-seen"
        return super().scores(ctx)


class ReadsTheBayesError(MRIBest):
    """Correct: an oracle whose score shifts by the Bayes error (a cached property of the problem)."""

    name = "bayes-shift"

    def scores(self, ctx):
        return super().scores(ctx) + ctx.problem.bayes_error


class UnsafeName(Counting):
    name = "bad__name"


class IntegerFlag(Counting):
    needs_truth = 1


class NaNSign(Counting):
    sign = float("nan")


BROKEN = [
    (MutatesX(), "ctx not mutated", "changed the contents of ctx.X"),
    (SortsLabels(), "ctx not mutated", "changed the contents of ctx.y"),
    (ReplacesPool(), "ctx not mutated", "replaced ctx.pool"),
    (ChangesTheProblem(), "ctx not mutated", "changed the contents of ctx.problem"),
    (FitsTheTemplate(), "ctx not mutated", "fitted or changed the classifier template"),
    (ReturnsNaN(), "one finite score per candidate", r"non-finite values \[nan\] for candidates \[2\]"),
    (ReturnsInf(), "one finite score per candidate", "non-finite values"),
    (OneTooMany(), "one finite score per candidate", r"shape \(7,\), expected \(6,\)"),
    (ReturnsTwoDimensions(), "one finite score per candidate", r"shape \(6, 1\), expected \(6,\)"),
    (ReturnsComplex(), "one finite score per candidate", "must be real"),
    (ReturnsText(), "one finite score per candidate", "must be numeric"),
    (Raises(), "one finite score per candidate", "scores raised RuntimeError: boom"),
    (OwnRandomness(), "deterministic given the generator", "a second copy"),
    (LosesStateWhenPickled(), "deterministic given the generator", "the pickled copy"),
    (HidesAParameter(), "repr shows parameters", r"does not show the __init__ parameters \['alpha'\]"),
    (DoesNotStoreItsParameter(), "repr shows parameters", "repr raised AttributeError"),
    (ShowsAnAddress(), "repr shows parameters", "by its address"),
    (NotPicklable(), "picklable", "pickling raised"),
    (PeeksAtTheTruth(), "needs_truth respected", "must not read ctx.problem or ctx.population"),
    (ScoresWithoutTheTruth(), "needs_truth respected", "returned scores without the truth"),
    (PeeksAtTheLabels(), "peeks respected", "must not read ctx.candidate_labels"),
    (ScoresWithoutTheLabels(), "peeks respected", "returned scores without the candidates' labels"),
    (UnsafeName(), "attributes", "name must be a non-empty name"),
    (IntegerFlag(), "attributes", "needs_truth must be a bool, got 1"),
    (NaNSign(), "attributes", "sign must be a finite real number, got nan"),
]


@pytest.mark.parametrize("strategy, item, detail", BROKEN, ids=[type(b[0]).__name__ for b in BROKEN])
def test_a_broken_strategy_is_caught_naming_the_item(strategy, item, detail):
    assert item in STRATEGY_CHECKS
    with pytest.raises(StrategyCheckError, match=f"check_strategy: {type(strategy).__name__} fails '{item}': "):
        check_strategy(strategy)
    with pytest.raises(AssertionError, match=detail):  # StrategyCheckError is an AssertionError
        check_strategy(strategy)


def test_every_contract_item_has_a_broken_strategy():
    assert {item for _, item, _ in BROKEN} == set(STRATEGY_CHECKS)


def test_a_stateful_strategy_is_caught_only_if_its_state_changes_the_first_scores():
    """State kept between calls is allowed; the check scores fresh copies, so a counter starting at 0 passes."""
    assert np.array_equal(check_strategy(RemembersCalls()), np.ones(6))
    used = RemembersCalls()
    ctx = Context(np.zeros((3, 2)), np.array([0, 1, 0]), np.ones((6, 2)), np.ones((6, 2)), LDA(), 2,
                  np.random.default_rng(0))
    used.scores(ctx)  # a strategy that has scored before, given to the check: its copies start at calls=1
    assert np.array_equal(check_strategy(used), np.full(6, 2.0))
    assert used.calls == 1 and copy.deepcopy(used).calls == 1
