"""A fuzzed API boundary: every public entry point, one argument replaced by a bad value (issue 40).

For each subpackage a set of public functions and classes is called with valid arguments in which hypothesis
replaces one argument by a value from a pool of bad ones: arrays with NaN, ``inf``, huge or tiny entries, the wrong
shape or dtype; scalars that are NaN, infinite, negative, zero, huge, tiny, of the wrong type. The property
(:func:`check_outcome`):

* either the call returns, and then every number it returns is finite (no NaN out of finite input: a non-finite
  input must be refused, never passed through), and the entry's own validity check holds (probability rows in
  [0, 1] summing to 1, a loss in [0, 1], ...);
* or it raises :class:`ValueError` or :class:`TypeError` whose message names the argument replaced.

Nothing else: no ``ZeroDivisionError``, ``IndexError``, ``AttributeError``, numpy's own messages, no
``MemoryError`` and no hang (every size is bounded, and the deadline of each example is the test's).

The pools are small and fixed (``sampled_from``), so the search is exhaustive over (argument, bad value) pairs
within ``max_examples``, and a failure names its case.

The newer surfaces (issue 54) are reached the same way, their cases derived rather than written by hand: every
scalar option of every registered classifier and strategy (read from the registries: ``get_classifier(name,
option=bad)``, ``get_strategy(name, option=bad)``), ``run_sensitivity``, ``plan_study``, ``describe_plans``, the
schedule's ``expected_costs`` and ``longest_first``, ``DataProblem.from_csv`` and each small problem's replicate;
and every option that takes a value of ``mri-theory study --plan``, ``mri-theory sensitivity`` and ``mri-theory
study --data`` (read from the argument parser, :func:`test_bad_cli_option`): exit 0 (or the work starts: every check
passed), or exit 2 with a message naming the option, and no file written.  A new option is fuzzed by itself.
"""

from __future__ import annotations

import argparse
import atexit
import dataclasses
import functools
import inspect
import math
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from _optional import given, settings, st
from _shared import QUIET

from mri_theory import analytic, engine, evaluation, problems, runners, strategies
from mri_theory.classifiers import CLASSIFIER_REGISTRY, get_classifier, list_classifiers
from mri_theory.evaluation import sensitivity  # noqa: F401  (evaluation.sensitivity below)
from mri_theory.runners import schedule


def _small_study() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Paired curves of RS, SE and BMRI (and MRI-best) in two pairings, three replicates: what the study's
    analyses take."""
    rows = []
    for problem in ("four-gaussian", "sharp"):
        for r in range(3):
            for s, speed in (("RS", 1.0), ("SE", 1.4), ("BMRI", 1.7), ("MRI-best", 2.5)):
                rows += [(problem, "lda", s, r, n, 0.1 + 0.3 * math.exp(-0.2 * speed * (n - 2)) + 0.01 * r)
                         for n in range(2, 10)]
    curves = pd.DataFrame(rows, columns=["problem", "classifier", "strategy", "replicate", "n_labelled", "loss"])
    return curves, pd.DataFrame({"problem": ["four-gaussian", "sharp"], "classifier": ["lda", "lda"],
                                 "asymptotic_loss": [0.1, 0.3]})


SMALL_STUDY = _small_study()

# ---------------------------------------------------------------------------------------------- the bad values

NAN, INF = float("nan"), float("inf")

#: Scalars that no numeric argument accepts silently: each must be refused or give a finite, valid result.
BAD_SCALARS: tuple[Any, ...] = (NAN, INF, -INF, -1, 0, -1e300, 1e300, 1e-300, 2**70, "1", None, [1, 2], 1 + 1j)


def bad_arrays(valid: np.ndarray) -> list[tuple[str, Any]]:
    """Bad versions of the valid array ``valid``, each with a label naming what is wrong."""
    arr = np.asarray(valid)
    out: list[tuple[str, Any]] = []
    if arr.dtype.kind == "f" and arr.size:
        for label, value in (("nan", NAN), ("inf", INF), ("-inf", -INF)):
            bad = arr.copy()
            bad.flat[0] = value
            out.append((label, bad))
        out.append(("huge", arr * 1e300))
        out.append(("tiny", arr * 1e-300))
    out.append(("empty", arr[:0]))
    out.append(("extra axis", arr[..., None]))
    out.append(("scalar", arr.flat[0] if arr.size else 0.0))
    if arr.ndim == 2:
        out.append(("one axis", arr[:, 0]))
        out.append(("one column too many", np.hstack([arr, arr[:, :1]])))
    out.append(("strings", arr.astype(str)))
    out.append(("complex", arr.astype(complex) + 1j))
    out.append(("objects", np.array([None] * max(arr.size, 1), dtype=object)))
    out.append(("None", None))
    return out


# ---------------------------------------------------------------------------------------------- the property


def finite_numbers(value: Any) -> bool:
    """Whether every number in ``value`` (arrays, frames, dataclasses, mappings, sequences) is finite."""
    if isinstance(value, (bool, np.bool_, str)) or value is None:
        return True
    if isinstance(value, (int, float, np.integer, np.floating)):
        return math.isfinite(float(value))
    if isinstance(value, np.ndarray):
        return value.dtype.kind not in "fc" or bool(np.isfinite(value).all())
    if isinstance(value, pd.DataFrame):
        numeric = value.select_dtypes("number")
        return bool(np.isfinite(numeric.to_numpy(dtype=float)).all()) if numeric.size else True
    if isinstance(value, pd.Series):
        return finite_numbers(value.to_numpy()) if value.dtype.kind in "fiu" else True
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return all(finite_numbers(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, Mapping):
        return all(finite_numbers(v) for v in value.values())
    if isinstance(value, (tuple, list)):
        return all(finite_numbers(v) for v in value)
    return True  # an object (a fitted classifier, a problem): checked by the entry's own validity check


def check_outcome(
    call: Callable[[], Any],
    argument: str,
    valid: Callable[[Any], bool] | None,
    names: tuple[str, ...] = (),
    undefined: Callable[[Any], bool] | None = None,
) -> None:
    """The property: a finite, valid result, or a ValueError/TypeError naming ``argument`` (or one of ``names``)."""
    try:
        result = call()
    except (ValueError, TypeError) as error:
        message = str(error)
        wanted = (argument, *names)
        assert any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message) for name in wanted), (
            f"{type(error).__name__} does not name {argument!r}: {message}"
        )
        return
    if undefined is not None and undefined(result):
        return
    assert finite_numbers(result), f"a non-finite result after a bad {argument!r}: {result!r}"
    if valid is not None:
        assert valid(result), f"an invalid result after a bad {argument!r}: {result!r}"


@dataclasses.dataclass(frozen=True)
class Entry:
    """A public entry point: ``call(**kwargs)``, its valid ``kwargs``, and which of them are arrays."""

    name: str
    call: Callable[..., Any]
    kwargs: Callable[[], dict[str, Any]]
    valid: Callable[[Any], bool] | None = None
    #: Other words a message may use for an argument (e.g. the CLI's spelling), by argument.
    aliases: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    #: When a result is a documented undefined value (NaN by definition, e.g. a correlation of one pair).
    undefined: Callable[[Any], bool] | None = None
    #: Arguments not to fuzz (objects, whose own checks are tested elsewhere).
    fixed: tuple[str, ...] = ()

    def cases(self) -> list[tuple[str, str, Any]]:
        """Every (argument, label, bad value) of this entry."""
        out = []
        for key, value in self.kwargs().items():
            if key in self.fixed:
                continue
            if isinstance(value, np.ndarray):
                out += [(key, label, bad) for label, bad in bad_arrays(value)]
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                out += [(key, repr(bad), bad) for bad in BAD_SCALARS]
            elif isinstance(value, str):
                out += [(key, repr(bad), bad) for bad in ("no-such-name", "", 3, None)]
        return out


# ---------------------------------------------------------------------------------------------- valid objects


def proba_rows(result: Any) -> bool:
    """Probability rows: in [0, 1], each summing to 1 (to rounding: 1e-12)."""
    proba = np.asarray(result, dtype=float)
    return bool(((proba >= -1e-12) & (proba <= 1 + 1e-12)).all() and np.allclose(proba.sum(axis=-1), 1.0))


def unit_interval(result: Any) -> bool:
    """Numbers in [0, 1] (a loss, an error rate, a probability)."""
    values = np.asarray(result, dtype=float)
    return bool(((values >= 0) & (values <= 1)).all())


FOUR = problems.get_problem("four-gaussian")
X_TRAIN, Y_TRAIN = FOUR.sample(12, np.random.default_rng(1))
CANDIDATES = FOUR.sample(3, np.random.default_rng(2))[0]
POPULATION = engine.Population.from_problem(FOUR, 200, np.random.default_rng(3))
TWO = analytic.TwoGaussians()
MEANS = analytic.MeanClassifier([-0.8, 1.1], [3, 4])


def fitted(name: str) -> Any:
    """A classifier of the registry, fitted on the shared training set."""
    return get_classifier(name).fit(X_TRAIN, Y_TRAIN, 2)


def curve_kwargs() -> dict[str, Any]:
    """A tiny study curve: 2 labels bought from a pool of 8, on a population of 100."""
    return dict(
        problem="four-gaussian",
        classifier="lda",
        strategies="RS",
        pool_size=8,
        replicates=1,
        seed=0,
        budget=2,
        population_size=100,
        subsample=4,
        execution=QUIET,
    )


ENTRIES: list[Entry] = [
    # analytic: the closed forms of the two-Gaussians problem
    Entry("analytic.q_c", lambda x: analytic.q_c(TWO, MEANS, x), lambda: {"x": np.array([-0.5, 0.2, 2.0])}),
    Entry("analytic.b_c", lambda xs: analytic.b_c(TWO, MEANS, xs), lambda: {"xs": np.array([-0.5, 0.2])}),
    Entry(
        "analytic.q_a",
        lambda x, label: analytic.q_a(TWO, MEANS, x, label),
        lambda: {"x": np.array([-0.5, 0.2]), "label": np.array([0, 1])},
    ),
    Entry(
        "analytic.beta",
        analytic.beta,
        lambda: {"delta": np.array([0.1, 1.0]), "sigma": np.array([1.0, 2.0])},
        unit_interval,
    ),
    Entry(
        "analytic.TwoGaussians",
        lambda sigma, prior: analytic.error_rate(analytic.TwoGaussians(sigma=sigma, prior=prior), MEANS),
        lambda: {"sigma": 1.5, "prior": np.array([0.3, 0.7])},
        unit_interval,
    ),
    Entry(
        "analytic.MeanClassifier",
        lambda mu_hat, sigma: analytic.error_rate(TWO, analytic.MeanClassifier(mu_hat, [2, 3], sigma=sigma)),
        lambda: {"mu_hat": np.array([-0.3, 0.9]), "sigma": 1.0},
        unit_interval,
    ),
    Entry("analytic.rs_density", lambda x: analytic.rs_density(TWO, x), lambda: {"x": np.array([0.0, 1.0])}),
    Entry(
        "analytic.optimal_policy",
        lambda pool, horizon: analytic.optimal_policy(TWO, MEANS, pool, horizon),
        lambda: {"pool": np.array([-1.0, 0.0, 0.5, 2.0]), "horizon": 2},
    ),
    # problems
    Entry(
        "problems.DataProblem",
        lambda X, y, test_size: problems.DataProblem(X, y, test_size=test_size).split(np.random.default_rng(0))[:2],
        lambda: {"X": X_TRAIN.copy(), "y": Y_TRAIN.copy(), "test_size": 0.25},
    ),
    Entry(
        "problems.mixture_bayes_error",
        lambda prior, covariance: problems.mixture_bayes_error(
            prior, [[1.0], [1.0]], [[[0.0, 0.0]], [[1.0, 0.0]]], [[covariance], [np.eye(2)]]
        ),
        lambda: {"prior": np.array([0.4, 0.6]), "covariance": np.array([[0.5, 0.1], [0.1, 0.5]])},
        unit_interval,
        aliases={"covariance": ("covariances", "covariances[0]")},
    ),
    Entry(
        "problems.compute_bayes_error",
        lambda resolution: problems.compute_bayes_error(problems.get_problem("three-gaussians"), resolution),
        lambda: {"resolution": 1},
        unit_interval,
    ),
    # engine: the truth
    Entry(
        "engine.Population",
        lambda X, proba, weights: engine.Population(X, proba, weights).losses_of(proba, "log"),
        lambda: {
            "X": POPULATION.X[:20].copy(),
            "proba": POPULATION.proba[:20].copy(),
            "weights": np.full(20, 1 / 20),
        },
    ),
    Entry(
        "engine.true_q_c",
        lambda X_S, y_S, candidates, loss: engine.true_q_c(
            FOUR, get_classifier("lda"), X_S, y_S, candidates, POPULATION, loss=loss
        ),
        lambda: {"X_S": X_TRAIN.copy(), "y_S": Y_TRAIN.copy(), "candidates": CANDIDATES.copy(), "loss": "error"},
        aliases={"X_S": ("X_train",), "y_S": ("y_train",)},  # a classifier's refusal, reported by the engine's fit
    ),
    Entry(
        "engine.future_losses",
        lambda X_train, y_train, candidates, method: engine.future_losses(
            get_classifier("knn5"), X_train, y_train, candidates, POPULATION, method=method
        ),
        lambda: {
            "X_train": X_TRAIN.copy(),
            "y_train": Y_TRAIN.copy(),
            "candidates": CANDIDATES.copy(),
            "method": "auto",
        },
        unit_interval,
    ),
    Entry(
        "engine.sampled_q_c",
        lambda candidates, size, scrambles: engine.sampled_q_c(
            FOUR,
            get_classifier("nb"),
            X_TRAIN,
            Y_TRAIN,
            candidates,
            size=size,
            scrambles=scrambles,
            rng=np.random.default_rng(0),
        ),
        lambda: {"candidates": CANDIDATES.copy(), "size": 64, "scrambles": 2},
    ),
    Entry(
        "engine.pointwise_loss",
        lambda rows, proba, loss: engine.pointwise_loss(rows, proba, loss),
        lambda: {"rows": POPULATION.proba[:5].copy(), "proba": POPULATION.proba[5:10].copy(), "loss": "log"},
    ),
    Entry(
        "engine.true_b_c",
        lambda batch: engine.true_b_c(FOUR, get_classifier("nb"), X_TRAIN, Y_TRAIN, batch, POPULATION),
        lambda: {"batch": CANDIDATES[:2].copy()},
    ),
    Entry(
        "engine.true_q_a",
        lambda labels: engine.true_q_a(FOUR, get_classifier("qda"), X_TRAIN, Y_TRAIN, CANDIDATES, labels, POPULATION),
        lambda: {"labels": np.array([0, 1, 1])},
    ),
    Entry(
        "engine.decisive_q_c",
        lambda size, scrambles, z, indifference, doublings: engine.decisive_q_c(
            FOUR,
            get_classifier("knn5"),
            X_TRAIN,
            Y_TRAIN,
            CANDIDATES,
            seed=0,
            size=size,
            scrambles=scrambles,
            z=z,
            indifference=indifference,
            doublings=doublings,
        ),
        lambda: {"size": 64, "scrambles": 2, "z": 3.0, "indifference": 0.05, "doublings": 1},
    ),
    Entry(
        "engine.qmc_uniforms",
        lambda dim, size: engine.qmc_uniforms(dim, size, np.random.default_rng(0)),
        lambda: {"dim": 2, "size": 16},
        unit_interval,
    ),
    # evaluation: the curve metrics
    Entry(
        "evaluation.aua",
        evaluation.aua,
        lambda: {"n": np.array([4.0, 5.0, 6.0]), "loss": np.array([0.4, 0.3, 0.25])},
    ),
    Entry(
        "evaluation.wi",
        evaluation.wi,
        lambda: {
            "n": np.array([4.0, 5.0, 6.0]),
            "loss": np.array([0.4, 0.3, 0.25]),
            "loss_rs": np.array([0.4, 0.35, 0.3]),
            "alpha": 0.02,
        },
    ),
    Entry(
        "evaluation.label_complexity",
        evaluation.label_complexity,
        lambda: {"n": np.array([4.0, 5.0, 6.0]), "loss": np.array([0.4, 0.3, 0.25]), "asymptotic_loss": 0.2},
    ),
    Entry(
        "evaluation.regret",
        evaluation.regret,
        lambda: {"curve": np.array([0.4, 0.3, 0.25]), "best_curve": np.array([0.35, 0.3, 0.2])},
    ),
    Entry(
        "evaluation.alc", evaluation.alc, lambda: {"n": np.array([4.0, 5.0, 6.0]), "loss": np.array([0.4, 0.3, 0.2])}
    ),
    Entry(
        "evaluation.kendall_tau",
        lambda ours: evaluation.kendall_tau(
            dict(zip("abcd", ours, strict=False)) if isinstance(ours, np.ndarray) and ours.ndim == 1 else ours,
            list("dcba"),
        ),
        lambda: {"ours": np.array([1.0, 2.5, 2.0, 4.0])},
        undefined=lambda tau: tau.n < 2,  # documented: tau and p are NaN with fewer than two shared methods
    ),
    Entry(
        "evaluation.paired_differences",
        lambda n_boot, level, alpha, epsilon: evaluation.ranking.paired_differences(
            *SMALL_STUDY, rng=np.random.default_rng(0), n_boot=n_boot, level=level, alpha=alpha, epsilon=epsilon
        )[["difference", "ci_low", "ci_high"]],
        lambda: {"n_boot": 20, "level": 0.9, "alpha": 0.02, "epsilon": 0.05},
    ),
    Entry(
        "evaluation.degenerate_pairings",
        lambda ratio: np.array([len(evaluation.sensitivity.degenerate_pairings(SMALL_STUDY[1], ratio))], float),
        lambda: {"ratio": 2.0},
    ),
    # strategies
    Entry("strategies.near_maximum", strategies.near_maximum, lambda: {"values": np.array([0.1, 0.3, 0.3 - 1e-17])}),
    # runners
    Entry(
        "runners.simulate_makespan",
        runners.simulate_makespan,
        lambda: {"durations": np.array([3.0, 1.0, 2.0]), "workers": 2},
    ),
    Entry("runners.Execution", lambda n_jobs: runners.Execution(n_jobs=n_jobs, progress=False), lambda: {"n_jobs": 1}),
    Entry(
        "runners.asymptotic_loss",
        lambda n_train, replicates, population_size: runners.asymptotic_loss(
            FOUR, "lda", n_train, replicates, rng=np.random.default_rng(0), population_size=population_size
        ),
        lambda: {"n_train": 50, "replicates": 2, "population_size": 100},
        unit_interval,
    ),
    Entry(
        "runners.run_curves",
        lambda **kwargs: runners.run_curves(**kwargs)[["n_labelled", "loss", "loss_se"]],  # q_c, resolved: NaN
        curve_kwargs,  # where not recorded (documented); the loss and its SE are always numbers
        lambda curves: unit_interval(curves["loss"]),
        fixed=("execution", "problem", "classifier", "strategies"),
    ),
]

ENTRIES += [
    Entry(
        f"classifiers.{name}.fit",
        lambda X, y, name=name: get_classifier(name).fit(X, y, 2).predict_proba(CANDIDATES),
        lambda: {"X": X_TRAIN.copy(), "y": Y_TRAIN.copy()},
        proba_rows,
    )
    for name in list_classifiers()
] + [
    Entry(
        f"classifiers.{name}.predict_proba",
        lambda X, name=name: fitted(name).predict_proba(X),
        lambda: {"X": CANDIDATES.copy()},
        proba_rows,
    )
    for name in list_classifiers()
]

# ---------------------------------------------------------------------------------------------- the newer surfaces
# (issue 54): sensitivity, --data, --plan, the schedule functions, the small problems, registry options.  The
# options are read from the registries and the argument parser, so a new one is fuzzed without a hand-written case.


def registry_options(registry: Any, name: str) -> dict[str, Any]:
    """The scalar options of the registered ``name``: its factory's keyword parameters with a number or str default
    (those taking objects, ``None`` by default, are the objects' own checks)."""
    out = {}
    for parameter in inspect.signature(registry.factory(name)).parameters.values():
        default = parameter.default
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD) or default is parameter.empty:
            continue
        if isinstance(default, (int, float, str)) and not isinstance(default, bool):
            out[parameter.name] = default
    return out


def strategy_context() -> strategies.Context:
    """A tiny state (12 labelled points, 3 candidates) with the truth and the candidates' labels, for any
    strategy."""
    return strategies.Context(X=X_TRAIN, y=Y_TRAIN, candidates=CANDIDATES, pool=CANDIDATES,
                              classifier=get_classifier("lda"), n_classes=2, rng=np.random.default_rng(0),
                              problem=FOUR, population=POPULATION,
                              candidate_labels=np.arange(len(CANDIDATES)) % 2)


def finite_scores(scores: Any) -> bool:
    """One finite score per candidate."""
    values = np.asarray(scores, dtype=float)
    return values.shape == (len(CANDIDATES),) and bool(np.isfinite(values).all())


ENTRIES += [
    Entry(
        f"classifiers.get_classifier.{name}.{option}",
        lambda name=name, **options: get_classifier(name, **options).fit(X_TRAIN, Y_TRAIN, 2).predict_proba(CANDIDATES),
        lambda name=name, option=option: {option: registry_options(CLASSIFIER_REGISTRY, name)[option]},
        proba_rows,
    )
    for name in list_classifiers()
    for option in registry_options(CLASSIFIER_REGISTRY, name)
] + [
    Entry(
        f"strategies.get_strategy.{name}.{option}",
        lambda name=name, **options: strategies.get_strategy(name, **options).scores(strategy_context()),
        lambda name=name, option=option: {option: registry_options(strategies.STRATEGY_REGISTRY, name)[option]},
        finite_scores,
    )
    for name in strategies.list_strategies()
    for option in registry_options(strategies.STRATEGY_REGISTRY, name)
]


@functools.cache
def scratch() -> Path:
    """A folder for the files the entries below read and write, removed at exit."""
    folder = Path(tempfile.mkdtemp(prefix="mri-theory-fuzz-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


@functools.cache
def tiny_study() -> Path:
    """A finished study (Four-Gaussian x LDA; RS, SE, MRI-best; two replicates of a pool of 6) with its timings."""
    out = scratch() / "study"
    runners.run_study(problems="four-gaussian", classifiers="lda", strategies=["RS", "SE"], replicates=2,
                      pool_size=6, population_size=100, asymptotic_train=50, asymptotic_replicates=1,
                      asymptotic_population=100, out=out, execution=QUIET)
    return out


@functools.cache
def data_file() -> Path:
    """A CSV file of 40 rows: 3 covariates on scales 1e-6 to 1e6, a 0/1 ``label`` column."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 3)) * np.array([1e-6, 1.0, 1e6])
    path = scratch() / "mine.csv"
    pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=np.arange(40) % 2).to_csv(path, index=False)
    return path


def fresh(name: str) -> Path:
    """A path in :func:`scratch` that does not exist yet."""
    return Path(tempfile.mkdtemp(dir=scratch(), prefix=name)) / "out"


def final_ranks(table: pd.DataFrame) -> pd.DataFrame:
    """The final mean ranks of a sensitivity table (its tau and undefined intervals are NaN by definition)."""
    return table.loc[table.quantity == "final_rank", ["value"]]


TASKS = [("four-gaussian", "lda", "RS"), ("four-gaussian", "svm", "BMRI"), ("four-gaussian", "lda", "")]

ENTRIES += [
    Entry(
        "runners.run_sensitivity",
        lambda **kwargs: final_ranks(runners.run_sensitivity(tiny_study(), fresh("sens"), recompute=[],
                                                             execution=QUIET, **kwargs)),
        lambda: {"seed": 0, "n_boot": 20, "level": 0.9},
        lambda ranks: bool(((ranks.value >= 1) & (ranks.value <= 3)).all()),
    ),
    Entry(
        "runners.plan_study",
        lambda workers, column: runners.plan_study(tiny_study(), workers, column=column),
        lambda: {"workers": 2, "column": "wall_s"},
        lambda plan: plan.lower_bound <= plan.longest_first <= plan.total and plan.longest <= plan.lower_bound,
    ),
    Entry(
        "runners.describe_plans",
        lambda **fields: runners.describe_plans([runners.Plan(**fields)]),
        lambda: {"workers": 2, "table_order": 6.0, "longest_first": 4.0, "lower_bound": 4.0, "total": 8.0,
                 "longest": 4.0, "tasks": 5},
        lambda text: not re.search(r"\b(nan|inf)\b", text),
    ),
    Entry(
        "runners.schedule.expected_costs",
        lambda seconds: schedule.expected_costs(TASKS, timed={("lda", "RS"): seconds}),
        lambda: {"seconds": np.array([1.0, 3.0])},
        lambda costs: bool((np.asarray(costs) >= 0).all()),
        aliases={"seconds": ("timed",)},
    ),
    Entry("runners.schedule.longest_first", schedule.longest_first, lambda: {"costs": np.array([1.0, 3.0, 2.0])}),
    Entry(
        "problems.DataProblem.from_csv",
        lambda **kwargs: problems.DataProblem.from_csv(data_file(), standardize=True, **kwargs).split(
            np.random.default_rng(0))[:2],
        lambda: {"target": "label", "test_size": 0.25, "name": "mine"},
        aliases={"target": ("path",)},  # an absent column is named with the file it is absent from
    ),
] + [
    Entry(
        f"problems.{name}.draw_replicate",
        lambda pool_size, name=name: problems.get_problem(name).draw_replicate(
            pool_size, None, np.random.default_rng(0))[:4],
        lambda: {"pool_size": 10},
    )
    for name in runners.PROBLEM_GROUPS["small"]
]

CASES = [(entry, *case) for entry in ENTRIES for case in entry.cases()]


def test_every_subpackage_is_fuzzed() -> None:
    """The entries reach every subpackage of the public API (a new one must get an entry)."""
    reached = {entry.name.split(".")[0] for entry in ENTRIES}
    assert reached >= {"analytic", "classifiers", "engine", "evaluation", "problems", "runners", "strategies"}


def test_every_registered_option_and_small_problem_is_fuzzed() -> None:
    """Every scalar option of every registered classifier and strategy, and every small problem, has its entry:
    derived from the registries, so a new option or problem is fuzzed by itself (issue 54)."""
    names = {entry.name for entry in ENTRIES}
    options = {f"classifiers.get_classifier.{n}.{o}" for n in list_classifiers() for o in
               registry_options(CLASSIFIER_REGISTRY, n)}
    options |= {f"strategies.get_strategy.{n}.{o}" for n in strategies.list_strategies() for o in
                registry_options(strategies.STRATEGY_REGISTRY, n)}
    assert options <= names and {"classifiers.get_classifier.kknn5.k", "strategies.get_strategy.BMRI.n_b"} <= options
    assert {f"problems.{n}.draw_replicate" for n in runners.PROBLEM_GROUPS["small"]} <= names


@pytest.mark.parametrize(
    ("entry", "argument", "label", "bad"),
    CASES,
    ids=[f"{entry.name}-{argument}-{label}" for entry, argument, label, _ in CASES],
)
def test_bad_argument(entry: Entry, argument: str, label: str, bad: Any) -> None:
    """Each (entry, argument, bad value): a finite, valid result, or a clear error naming the argument."""
    kwargs = entry.kwargs()
    kwargs[argument] = bad
    check_outcome(lambda: entry.call(**kwargs), argument, entry.valid, entry.aliases.get(argument, ()), entry.undefined)


@settings(max_examples=60, deadline=None)
@given(
    scale=st.floats(min_value=-200, max_value=200),
    shift=st.floats(min_value=-1e3, max_value=1e3),
    name=st.sampled_from(sorted(list_classifiers())),
)
def test_classifiers_on_scaled_data(scale: float, shift: float, name: str) -> None:
    """Any classifier fitted on data scaled by 10**scale and shifted: valid probabilities, or a clear refusal of X."""
    X = X_TRAIN * 10.0**scale + shift
    check_outcome(lambda: get_classifier(name).fit(X, Y_TRAIN, 2).predict_proba(X[:4]), "X", proba_rows)


# ---------------------------------------------------------------------------------------------- the command line

#: Bad option values on the command line.
BAD_WORDS = ("nan", "inf", "-1", "0", "1e309", "1" + "0" * 22, "abc", "")
#: The API names a command-line option's refusal may use instead of the option (``--boot``: ``n_boot``).
CLI_ALIASES = {"--boot": ("n_boot",), "--boot-seed": ("seed",), "--plan": ("workers",), "--pool": ("pool_size",),
               "--population": ("population_size",), "--test-size": ("test_size",)}
#: What a command may not be given bad values of here: the execution options (they start processes or connect to a
#: scheduler; :class:`~mri_theory.runners.Execution` is fuzzed above) and the output folder.
CLI_FIXED = ("jobs", "dask", "out", "help")


def cli_base(command: str) -> list[str]:
    """A valid command line of each surface fuzzed: ``study --plan``, ``sensitivity`` (analysis readings only) and
    ``study --data``; the option under test is appended to it."""
    if command == "study --plan":
        return ["study", "--plan", "2", "--out", str(tiny_study())]
    if command == "sensitivity":
        return ["sensitivity", str(tiny_study()), "--recompute", "--boot", "20", "--out", str(fresh("cli-sens"))]
    return ["study", "--preset", "quick", "--data", str(data_file()), "--target", "label", "--classifiers", "lda",
            "--strategies", "RS", "--replicates", "1", "--budget", "2", "--pool", "all", "--out", str(fresh("cli"))]


def cli_options(command: str) -> list[str]:
    """The options of ``command`` that take a value, read from the parser (a new option is fuzzed by itself)."""
    from mri_theory.cli import build_parser

    parser = build_parser()
    sub = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return [action.option_strings[-1] for action in sub.choices[command.split()[0]]._actions
            if action.option_strings and action.nargs != 0 and action.dest not in CLI_FIXED
            and not (command == "study --plan" and action.dest == "plan")]


CLI_CASES = [(command, option, bad) for command in ("study --plan", "sensitivity", "study --data")
             for option in cli_options(command) for bad in BAD_WORDS]


@pytest.fixture(scope="module")
def cli_files() -> None:
    """The finished study and the data file the command lines read, made before ``no_work`` refuses any work."""
    tiny_study()
    data_file()


@pytest.mark.parametrize(("command", "option", "bad"), CLI_CASES,
                         ids=[f"{c}-{o}-{b!r}" for c, o, b in CLI_CASES])
def test_bad_cli_option(command: str, option: str, bad: str, cli_files: None, capsys: Any, no_work: Any) -> None:
    """Each option of the newer command lines given a bad value: accepted (the run then passes its checks: exit 0,
    or its work starts), or refused with exit 2 and a message naming the option, before any file is written."""
    from mri_theory.cli import main

    argv = cli_base(command)
    out = Path(argv[argv.index("--out") + 1])
    before = sorted(out.rglob("*")) if out.exists() else None
    capsys.readouterr()
    try:
        code = main([*argv, option, bad])
    except SystemExit as exit_:  # argparse's own refusal: usage, then "error: argument --option: ..."
        code = exit_.code
    except AssertionError as error:  # the work started: every check passed
        assert "work started" in str(error)
        return
    err = capsys.readouterr().err
    if code == 0:
        return
    assert code == 2, err
    names = (option, option.lstrip("-").replace("-", "_"), *CLI_ALIASES.get(option, ()))
    line = err.strip().splitlines()[-1]
    assert any(re.search(rf"(?<![A-Za-z0-9_-]){re.escape(name)}(?![A-Za-z0-9_])", line) for name in names), line
    assert "Traceback" not in err
    assert (sorted(out.rglob("*")) if out.exists() else None) == before, "a refused command wrote files"
