r"""Conformance checks a user runs on a classifier or strategy: :func:`check_classifier`, :func:`check_strategy`.

The classifier contract (:mod:`mri_theory.engine.contract`) is what the
engine, the strategies and the sandbox rely on.  :func:`check_classifier`
exercises it on small training sets of the kinds an active-learning curve
meets (one point, one class, an absent class, duplicated points with
different labels, points on a grid so that distances tie) and raises
:class:`ClassifierCheckError` naming the first rule broken and the worst
discrepancy found.  The project's own classifiers pass it (the tests).

The strategy contract (:class:`mri_theory.strategies.Strategy`) is what the
runners rely on; :func:`check_strategy` scores a small labelled set of a
simulated three-class problem and raises :class:`StrategyCheckError` naming
the first rule broken.  The built-in strategies and the scikit-activeml
adapter pass it (the tests).

Example
-------
>>> from mri_theory.classifiers import KNN
>>> from mri_theory.testing import check_classifier
>>> report = check_classifier(KNN(3))
>>> report["fast path equals a refit"] <= 1e-12
True
"""

from __future__ import annotations

import copy
import inspect
import pickle
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np
from sklearn import base as skbase

from mri_theory._utils import validation as check
from mri_theory._utils.registry import label
from mri_theory.classifiers.knn import KNN
from mri_theory.engine.contract import Classifier, has_fast_path, refit_future_losses
from mri_theory.engine.losses import check_loss, predicted_class
from mri_theory.engine.population import Population
from mri_theory.problems import GaussianMixtureProblem
from mri_theory.strategies import Context, Strategy

__all__ = ["ClassifierCheckError", "check_classifier", "StrategyCheckError", "check_strategy"]

#: The kinds of training set of the checks, in order (``n_states`` cycles through them).
STATE_KINDS: tuple[str, ...] = (
    "2 classes, 2-D, continuous",
    "3 classes, 1-D, integer grid: duplicated points, distance ties",
    "3 classes, 2-D, integer grid, class 1 absent",
    "2 classes, 1-D, duplicated points with both labels",
    "a single training point",
    "a single class of 3",
)

_POPULATION_SIZE = 40
_CANDIDATES = 5


class ClassifierCheckError(AssertionError):
    """A classifier breaks the contract; the message names the check, the state and the worst discrepancy."""


@dataclass(frozen=True)
class _State:
    """A training set, candidates and an evaluation population (``k`` classes, ``d`` dimensions)."""

    label: str
    X: np.ndarray
    y: np.ndarray
    k: int
    candidates: np.ndarray
    population: Population


def check_classifier(classifier: Classifier, *, seed: int = 0, n_states: int = len(STATE_KINDS),
                     tol: float = 1e-12, losses: Sequence[str] = ("error", "log")) -> dict[str, float]:
    r"""Check that ``classifier`` keeps the classifier contract; raise :class:`ClassifierCheckError` if not.

    ``classifier`` itself is never fitted or changed: every check works on
    clones.  The checks, in order (the first failure raises):

    1. **parameters**: ``get_params`` lists exactly the ``__init__``
       arguments; ``sklearn.base.clone`` and :meth:`Classifier.clone` give
       unfitted objects of the same type with equal parameters and the same
       ``repr``; ``set_params(**get_params())`` round-trips.
    2. **probabilities**: on every state, ``predict_proba`` has shape
       ``(n, k)`` (columns ``0..k-1``), finite entries in ``[0, 1]`` and rows
       summing to 1 (to ``tol``), also with a class absent, a single training
       point and a single class; ``predict`` is its argmax (near-ties to the
       lowest label: :func:`mri_theory.engine.losses.predicted_class`).
    3. **determinism**: two fits of two clones give identical
       probabilities; a clone fitted first on another state and then on this
       one gives them too (a fit starts from scratch); fitting leaves the
       hyper-parameters, and ``classifier``, unchanged.
    4. **fast path equals a refit**: if the class has a fast path
       (:func:`~mri_theory.engine.contract.has_fast_path`: it overrides the
       hook ``_future_losses`` or ``retraining_losses`` itself), on every
       state and for every loss in ``losses`` ``retraining_losses`` returns
       ``(L, L')`` with ``L`` the population loss of the fitted
       model and ``L'`` (shape ``(m, k)``) equal to
       :func:`~mri_theory.engine.contract.refit_future_losses` (the refit of
       a clone per (candidate, class), Table ``Notation``'s
       :math:`L'_j = L(\theta(D_S \cup (\mathbf x, c_j)))`) to ``tol``
       (relative to ``max(1, |loss|)``),
       twice in a row identically, without changing the model; if the class
       overrides ``_future_losses`` or ``future_retraining_losses``,
       ``future_retraining_losses`` returns ``retraining_losses``' ``L'`` bit
       for bit.

    The states (``STATE_KINDS``, drawn from ``seed``) are small: 1 to 10
    training points in one or two dimensions with 2 or 3 classes, 5
    candidates (one a copy of a training point, one on the grid midway
    between points), a population of 40 points (random points and grid
    points; Dirichlet and one-hot rows; random weights).

    Parameters
    ----------
    classifier : Classifier
        An instance of a :class:`~mri_theory.engine.contract.Classifier`
        subclass (fitted or not).
    seed : int, default 0
        Seed of the states (``>= 0``); the message of a failure names it.
    n_states : int, default 6
        Number of states; they cycle through ``STATE_KINDS`` (the
        default covers each kind once).
    tol : float, default 1e-12
        Largest discrepancy accepted: absolute in probabilities and row sums,
        relative to ``max(1, |refit loss|)`` in losses (a log loss reaches
        34.5 nats).  Under the error loss the fast path must predict the
        classes the refit predicts: a tie broken differently costs a whole
        point's weight (:func:`mri_theory.engine.losses.predicted_class` makes ties
        within ``TIE_TOLERANCE`` robust to rounding).
    losses : sequence of {"error", "log", "lc"}, default ("error", "log")
        The losses of the fast-path check.

    Returns
    -------
    dict
        The worst discrepancy measured by each numerical check:
        ``"probabilities sum to 1"`` and ``"fast path equals a refit"``
        (``nan`` if the class has no fast path of its own).

    Raises
    ------
    ClassifierCheckError
        Naming the check, the state (and ``seed``) and the worst discrepancy.
    """
    if not isinstance(classifier, Classifier):
        raise TypeError(f"classifier must be an instance of a mri_theory Classifier subclass, "
                        f"got {type(classifier).__name__}")
    seed = check.count(seed, "seed", minimum=0)
    n_states = check.count(n_states, "n_states")
    tol = check.positive_scalar(tol, "tol")
    if isinstance(losses, str) or not isinstance(losses, Sequence) or len(losses) == 0:
        raise TypeError(f"losses must be a non-empty sequence of loss names, got {losses!r}")
    losses = tuple(check_loss(loss) for loss in losses)

    name = type(classifier).__name__
    snapshot = copy.deepcopy(classifier.get_params(deep=False))
    was_fitted = _learned(classifier)
    states = list(_states(np.random.default_rng(seed), n_states))
    where = f"(seed={seed})"

    _check_parameters(classifier, name)
    report = {"probabilities sum to 1": 0.0, "fast path equals a refit": float("nan")}
    fitted = []
    for state in states:
        model = _fit(classifier, state, name, where)
        report["probabilities sum to 1"] = max(report["probabilities sum to 1"],
                                               _check_probabilities(model, state, tol, name, where))
        fitted.append(model)
    for i, (state, model) in enumerate(zip(states, fitted, strict=True)):
        _check_determinism(classifier, model, states[i - 1], state, name, where)
    if not _same_params(snapshot, classifier.get_params(deep=False)) or _learned(classifier) != was_fitted:
        _fail(name, "determinism", f"checking changed the template {classifier!r}: a fit must work on its own "
                                   "object and never change hyper-parameters (learned state ends in '_')")
    if has_fast_path(classifier):
        report["fast path equals a refit"] = max(
            _check_fast_path(model, state, loss, tol, name, where) for state, model in zip(states, fitted, strict=True)
            for loss in losses)
    return report


# ---------------------------------------------------------------------------------------- the states


def _states(rng: np.random.Generator, n_states: int) -> Iterator[_State]:
    """``n_states`` states cycling through ``STATE_KINDS``."""
    for i in range(n_states):
        kind = i % len(STATE_KINDS)
        n = int(rng.integers(4, 11))
        if kind == 0:
            k, X = 2, rng.normal(size=(n, 2))
            y = rng.permutation(np.arange(n) % k)
        elif kind == 1:
            k, X = 3, rng.integers(0, 4, size=(n, 1)).astype(float)
            y = rng.integers(0, 3, n)
        elif kind == 2:
            k, X = 3, rng.integers(0, 3, size=(n, 2)).astype(float)
            y = rng.choice([0, 2], n)
        elif kind == 3:
            k, X = 2, np.repeat(rng.normal(size=(n // 2, 1)), 2, axis=0)
            y = np.tile([0, 1], n // 2)
        elif kind == 4:
            k, X = 2, rng.normal(size=(1, 2))
            y = np.array([1])
        else:
            k, X = 3, rng.normal(size=(n, 2))
            y = np.full(n, 1)
        d = X.shape[1]
        grid = X.min(axis=0) + rng.integers(0, 7, size=(_POPULATION_SIZE // 2, d)) * 0.5
        points = np.vstack([grid, X.mean(axis=0) + rng.normal(size=(_POPULATION_SIZE - grid.shape[0], d))])
        rows = rng.dirichlet(np.ones(k), points.shape[0])
        rows[::4] = np.eye(k)[rng.integers(0, k, rows[::4].shape[0])]  # some one-hot rows, as labelled data
        population = Population(points, rows, rng.uniform(0.5, 1.5, points.shape[0]))
        candidates = np.vstack([X[rng.integers(0, X.shape[0])],  # a copy of a training point
                                X.min(axis=0) + 0.5,  # on the half-integer grid: equidistant from grid points
                                X.mean(axis=0) + rng.normal(size=(_CANDIDATES - 2, d))])
        yield _State(STATE_KINDS[kind], X, y, k, candidates, population)


# ---------------------------------------------------------------------------------------- the checks


def _fail(name: str, check_name: str, message: str) -> NoReturn:
    raise ClassifierCheckError(f"check_classifier: {name} fails '{check_name}': {message}")


def _learned(model: Any) -> bool:
    """Whether ``model`` holds learned state (an attribute ending in ``_``)."""
    return any(key.endswith("_") and not key.startswith("__") for key in vars(model))


def _same_value(a: Any, b: Any) -> bool:
    """Parameter equality: estimators by type and parameters, arrays element-wise, containers item by item."""
    if hasattr(a, "get_params") and not isinstance(a, type):
        return type(a) is type(b) and _same_params(a.get_params(deep=False), b.get_params(deep=False))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.shape(a) == np.shape(b) and bool(np.array_equal(a, b))
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same_value(x, z) for x, z in zip(a, b, strict=True))
    if isinstance(a, dict):
        return isinstance(b, dict) and _same_params(a, b)
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return repr(a) == repr(b)


def _same_params(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(_same_value(a[key], b[key]) for key in a)


def _check_parameters(classifier: Classifier, name: str) -> None:
    """get_params lists the ``__init__`` arguments; both clones are unfitted and equal; set_params round-trips."""
    init = inspect.signature(type(classifier).__init__).parameters
    expected = sorted(p for p in init if p != "self")
    try:
        params = classifier.get_params(deep=False)
    except Exception as exc:  # noqa: BLE001 - any failure is reported as a broken contract
        _fail(name, "parameters", f"get_params raised {type(exc).__name__}: {exc} (store every __init__ "
                                  "argument unchanged under its own name)")
    if sorted(params) != expected:
        _fail(name, "parameters", f"get_params gives {sorted(params)} but __init__ takes {expected}")
    for how, make in (("sklearn.base.clone", lambda: skbase.clone(classifier)),
                      ("Classifier.clone", classifier.clone)):
        try:
            twin = make()
        except Exception as exc:  # noqa: BLE001
            _fail(name, "parameters", f"{how} raised {type(exc).__name__}: {exc}")
        if type(twin) is not type(classifier) or twin is classifier:
            _fail(name, "parameters", f"{how} gave {type(twin).__name__} object {twin!r}, not a new "
                                      f"{type(classifier).__name__}")
        if _learned(twin):
            learned = sorted(key for key in vars(twin) if key.endswith("_"))
            _fail(name, "parameters", f"{how} gave a fitted object (it has {learned})")
        got = twin.get_params(deep=False)
        lost = [key for key in params if key not in got or not _same_value(params[key], got[key])]
        if lost:
            _fail(name, "parameters", f"{how} changed or lost the parameters {lost}: "
                                      f"{ {key: got.get(key, '<missing>') for key in lost} } instead of "
                                      f"{ {key: params[key] for key in lost} }")
        if repr(twin) != repr(classifier):
            _fail(name, "parameters", f"{how} has repr {twin!r}, the original {classifier!r} (repr must show every "
                                      "parameter: runs record it to tell configurations apart)")
    twin = skbase.clone(classifier)
    if twin.set_params(**params) is not twin or not _same_params(twin.get_params(deep=False), params):
        _fail(name, "parameters", f"set_params(**get_params()) does not round-trip: got {twin.get_params(deep=False)}")


def _fit(classifier: Classifier, state: _State, name: str, where: str) -> Classifier:
    """A clone of ``classifier`` fitted on ``state`` (failures reported as a broken contract)."""
    try:
        return skbase.clone(classifier).fit(state.X, state.y, state.k)
    except Exception as exc:  # noqa: BLE001
        _fail(name, "fit", f"fit raised {type(exc).__name__}: {exc} on the training set '{state.label}' "
                           f"{where}: X = {state.X.tolist()}, y = {state.y.tolist()}, n_classes = {state.k}")


def _queries(state: _State) -> np.ndarray:
    return np.vstack([state.population.X, state.candidates, state.X])


def _check_probabilities(model: Classifier, state: _State, tol: float, name: str, where: str) -> float:
    """Shape ``(n, k)``, finite, in [0, 1], rows summing to 1; ``predict`` is the argmax.  Returns the worst row sum."""
    Q = _queries(state)
    on = f"on the training set '{state.label}' {where}"
    try:
        P = np.asarray(model.predict_proba(Q))
        predicted = np.asarray(model.predict(Q))
    except Exception as exc:  # noqa: BLE001
        _fail(name, "fit", f"predict_proba or predict raised {type(exc).__name__}: {exc} after a fit {on}: "
                           f"X = {state.X.tolist()}, y = {state.y.tolist()}, n_classes = {state.k}")
    if P.shape != (Q.shape[0], state.k):
        _fail(name, "probability columns", f"predict_proba gave shape {P.shape} for {Q.shape[0]} points, "
                                           f"expected ({Q.shape[0]}, {state.k}): one column per class 0..k-1, "
                                           f"absent classes included, {on}")
    if not np.all(np.isfinite(P)):
        _fail(name, "probabilities are finite", f"predict_proba gave {np.count_nonzero(~np.isfinite(P))} "
                                                f"non-finite entries {on}")
    outside = float(max(0.0, -P.min(), P.max() - 1.0))
    if outside > tol:
        _fail(name, "probabilities lie in [0, 1]", f"an entry lies {outside:.3g} outside [0, 1] (tolerance "
                                                   f"{tol:g}) {on}")
    worst = float(np.max(np.abs(P.sum(axis=1) - 1.0)))
    if worst > tol:
        row = int(np.argmax(np.abs(P.sum(axis=1) - 1.0)))
        _fail(name, "probabilities sum to 1", f"a row sums to {float(P[row].sum())!r}: off by {worst:.3g} (tolerance "
                                              f"{tol:g}) at the point {Q[row].tolist()} {on}")
    expected = predicted_class(P)
    if not np.array_equal(predicted, expected):
        _fail(name, "predict is the argmax", f"predict differs from the most probable class (near-ties to the "
                                             f"lowest label, mri_theory.engine.losses.predicted_class) at "
                                             f"{np.count_nonzero(predicted != expected)} points {on}")
    return worst


def _check_determinism(classifier: Classifier, model: Classifier, other: _State, state: _State, name: str,
                       where: str) -> None:
    """A second fit, and a fit after a fit on ``other``, give identical probabilities; params unchanged."""
    Q = _queries(state)
    expected = model.predict_proba(Q)
    again = _fit(classifier, state, name, where).predict_proba(Q)
    reused = skbase.clone(classifier)
    try:
        reused.fit(other.X, other.y, other.k)
        after = reused.fit(state.X, state.y, state.k).predict_proba(Q)
    except Exception as exc:  # noqa: BLE001
        _fail(name, "determinism", f"refitting an object raised {type(exc).__name__}: {exc} (training set "
                                   f"'{other.label}' then '{state.label}' {where})")
    for what, P in (("a second fit of a clone", again), (f"a clone fitted on '{other.label}' first", after)):
        if not np.array_equal(P, expected):
            _fail(name, "determinism", f"{what} gives other probabilities (largest difference "
                                       f"{np.max(np.abs(P - expected)):.3g}) on the training set '{state.label}' "
                                       f"{where}: a fit must depend only on the parameters and the data")
    if not _same_params(model.get_params(deep=False), classifier.get_params(deep=False)):
        _fail(name, "determinism", f"fitting changed the hyper-parameters: {model.get_params(deep=False)} instead "
                                   f"of {classifier.get_params(deep=False)} (learned state must end in '_')")


def _check_fast_path(model: Classifier, state: _State, loss: str, tol: float, name: str, where: str) -> float:
    """``retraining_losses`` (and a future-only path of its own) against the refit of a clone per (candidate,
    class); returns the worst difference."""
    on = f"loss '{loss}', training set '{state.label}' {where}"
    Q = _queries(state)
    before = model.predict_proba(Q)
    outputs = []
    for _ in range(2):
        try:
            current, future = model.retraining_losses(state.candidates, state.population, loss)
        except Exception as exc:  # noqa: BLE001
            _fail(name, "fast path equals a refit", f"retraining_losses raised {type(exc).__name__}: {exc} ({on})")
        future = np.asarray(future)
        if np.shape(current) != () or future.shape != (state.candidates.shape[0], state.k):
            _fail(name, "fast path equals a refit", f"retraining_losses must return (L, L') with L a number and "
                                                    f"L' of shape (m, k) = {(state.candidates.shape[0], state.k)}, "
                                                    f"got L of shape {np.shape(current)} and L' of shape "
                                                    f"{future.shape} ({on})")
        outputs.append((float(current), future))
    if outputs[0][0] != outputs[1][0] or not np.array_equal(outputs[0][1], outputs[1][1]):
        _fail(name, "determinism", f"two calls of retraining_losses give different losses ({on})")
    if not np.array_equal(model.predict_proba(Q), before):
        _fail(name, "fast path equals a refit", f"retraining_losses changed the model ({on})")
    current, future = outputs[0]
    if (type(model).future_retraining_losses is not Classifier.future_retraining_losses
            or type(model)._future_losses is not Classifier._future_losses):  # a future-only path of its own
        try:
            alone = np.asarray(model.future_retraining_losses(state.candidates, state.population, loss))
        except Exception as exc:  # noqa: BLE001
            _fail(name, "fast path equals a refit",
                  f"future_retraining_losses raised {type(exc).__name__}: {exc} ({on})")
        if alone.shape != future.shape or not np.array_equal(alone, future):
            _fail(name, "fast path equals a refit", f"future_retraining_losses must return retraining_losses' L' "
                                                    f"bit for bit ({on})")
    refit_current = state.population.loss(model, loss)
    refit = refit_future_losses(model, state.candidates, state.population, loss)
    gap = abs(current - refit_current) / max(1.0, abs(refit_current))
    if not gap <= tol:
        _fail(name, "fast path equals a refit", f"L = {current!r} but the model's population loss is "
                                                f"{float(refit_current)!r}: off by {gap:.3g} (relative; "
                                                f"tolerance {tol:g}) ({on})")
    gaps = np.abs(future - refit) / np.maximum(1.0, np.abs(refit))
    gaps[np.isnan(gaps)] = np.inf
    worst = float(np.max(gaps))
    if worst > tol:
        i, j = np.unravel_index(int(np.argmax(gaps)), gaps.shape)
        _fail(name, "fast path equals a refit", f"L'[{i}, {j}] = {float(future[i, j])!r} but the refit on the "
                                                f"training data plus (candidate {state.candidates[i].tolist()}, "
                                                f"class {j}) gives {float(refit[i, j])!r}: off by {worst:.3g} "
                                                f"(relative; tolerance {tol:g}) ({on})")
    return max(worst, gap)


# ---------------------------------------------------------------------------------------- strategies


class StrategyCheckError(AssertionError):
    """A strategy breaks the contract; the message names the rule broken and what was found."""


#: The contract items of :func:`check_strategy`, in the order they are checked.
STRATEGY_CHECKS: tuple[str, ...] = (
    "attributes",
    "repr shows parameters",
    "picklable",
    "one finite score per candidate",
    "ctx not mutated",
    "deterministic given the generator",
    "needs_truth respected",
    "peeks respected",
)

#: Labelled points beyond the initial one per class, and candidates, of :func:`check_strategy`'s state.
_EXTRA_LABELLED = 6
_STRATEGY_CANDIDATES = 6
_STRATEGY_POPULATION = 64


def _strategy_problem() -> GaussianMixtureProblem:
    """Three isotropic Gaussian classes in 2-D, overlapping (no class separable from the others)."""
    means = [[0.0, 1.0], [-0.87, -0.5], [0.87, -0.5]]
    return GaussianMixtureProblem("strategy-check", [([1.0], [m], [0.5 * np.eye(2)]) for m in means],
                                  [0.3, 0.3, 0.4])


def check_strategy(strategy: Strategy, *, classifier: Classifier | None = None, seed: int = 0) -> np.ndarray:
    r"""Check that ``strategy`` keeps the strategy contract; raise :class:`StrategyCheckError` if not.

    ``strategy`` itself is never scored or changed: every check scores a
    copy (``copy.deepcopy``, as the runners do, or a pickled copy).  The
    contract items (``STRATEGY_CHECKS``), in order (the first failure
    raises, naming the item):

    1. **attributes**: ``name`` is a safe label (letters, digits and
       ``. _ + -``, no ``__``: it names part files); ``costly``,
       ``needs_truth`` and ``estimates_t_e`` are bools; ``sign`` is a finite
       real.
    2. **repr shows parameters**: ``repr`` works, every keyword parameter of
       ``__init__`` appears as ``name=`` in it, no part is a default
       ``<... at 0x...>`` repr (which changes from run to run), and a deep
       copy has the same repr (the runners record it to tell configurations
       apart on resume).
    3. **picklable**: a pickle round trip gives an object of the same type
       and repr (the runners send strategies to workers pickled).
    4. **one finite score per candidate**: :meth:`~Strategy.scores` returns
       real numbers, shape ``(m,)``, all finite.
    5. **ctx not mutated**: after scoring, the fields of the context
       (``X``, ``y``, ``candidates``, ``pool``, ``classifier``,
       ``n_classes``, ``problem``, ``population``) are the same objects
       with the same contents; the classifier template is still unfitted.
       Drawing from ``ctx.rng``, caching ``ctx.fitted()`` and cached
       properties of the problem (``bayes_error``) are allowed.
    6. **deterministic given the generator**: a second copy, and the
       pickled copy, scored on a fresh context whose ``rng`` has the same
       seed, give identical scores.
    7. **needs_truth respected**: a strategy with ``needs_truth=False`` is
       scored with ``problem=None, population=None`` (as the runners do) and
       gives identical scores when the truth is there (it never reads it); an
       oracle (``needs_truth=True``) is scored with the truth and raises a
       ``ValueError`` or ``TypeError`` without it (never scores silently).
    8. **peeks respected**: likewise for the candidates' drawn labels
       (``ctx.candidate_labels``): a strategy with ``peeks=False`` scores
       alike with and without them; one with ``peeks=True`` is scored with
       them and raises a ``ValueError`` or ``TypeError`` without them.

    The state: a three-class 2-D Gaussian problem, the initial labelled set
    of one point per class plus 6 more points, 6 candidates, a pool of the
    candidates, a quasi-Monte Carlo population of 64 points (drawn from
    ``seed``).  Each strategy is scored four times.

    Parameters
    ----------
    strategy : Strategy
        An instance of a :class:`~mri_theory.strategies.Strategy` subclass.
    classifier : Classifier, optional
        The base classifier template of the context; default the paper's
        5-NN (``KNN(5, kernel="optimal")``).
    seed : int, default 0
        Seed of the data and of ``ctx.rng`` (``>= 0``); a failure names it.

    Returns
    -------
    ndarray (6,)
        The scores of the first scoring.

    Raises
    ------
    TypeError
        If ``strategy`` is not a Strategy or ``classifier`` not a
        Classifier; if ``seed`` is not an int.
    StrategyCheckError
        Naming the contract item broken and what was found.
    """
    if not isinstance(strategy, Strategy):
        raise TypeError(f"strategy must be an instance of a mri_theory.strategies.Strategy subclass, "
                        f"got {type(strategy).__name__}")
    if classifier is None:
        classifier = KNN(5, kernel="optimal")
    if not isinstance(classifier, Classifier):
        raise TypeError(f"classifier must be a mri_theory Classifier (an unfitted template) or None, "
                        f"got {type(classifier).__name__}")
    seed = check.count(seed, "seed", minimum=0)
    who = type(strategy).__name__
    where = f"(seed={seed})"

    _check_strategy_attributes(strategy, who)
    shown = _check_strategy_repr(strategy, who)
    try:
        pickled = pickle.loads(pickle.dumps(strategy))
    except Exception as exc:  # noqa: BLE001 - any failure is reported as a broken contract
        _strategy_fail(who, "picklable", f"pickling raised {type(exc).__name__}: {exc} (define the class at "
                                         "module level and keep no lambdas, open files or locks)")
    if type(pickled) is not type(strategy) or repr(pickled) != shown:
        _strategy_fail(who, "picklable", f"the pickle round trip gave {type(pickled).__name__} {pickled!r}, "
                                         f"not {shown}")

    data = _strategy_data(seed, classifier)
    oracle, peeks = bool(strategy.needs_truth), bool(strategy.peeks)
    ctx = _strategy_context(data, seed, oracle, peeks)
    before = _context_snapshot(ctx)
    scores = _strategy_scores(copy.deepcopy(strategy), ctx, who, where)
    _check_context_unchanged(ctx, before, who, where)
    runs = [("deterministic given the generator", "a second copy", copy.deepcopy(strategy), oracle, peeks,
             "all randomness must come from ctx.rng"),
            ("deterministic given the generator", "the pickled copy", pickled, oracle, peeks,
             "all randomness must come from ctx.rng, and all state must survive pickling")]
    if not oracle:
        runs.append(("needs_truth respected", "a copy given the truth (problem and population)",
                     copy.deepcopy(strategy), True, peeks,
                     "with needs_truth=False it must not read ctx.problem or ctx.population"))
    if not peeks:
        runs.append(("peeks respected", "a copy given the candidates' labels", copy.deepcopy(strategy), oracle,
                     True, "with peeks=False it must not read ctx.candidate_labels"))
    for item, what, twin, truth, labels, rule in runs:
        again = _strategy_scores(twin, _strategy_context(data, seed, truth, labels), who, where)
        if not np.array_equal(again, scores):
            _strategy_fail(who, item, f"{what}, scored on a context whose rng has the same seed, gives the scores "
                                      f"{again.tolist()} instead of {scores.tolist()} {where}: {rule}")
    withheld = [("needs_truth respected", "the truth (problem=None, population=None)", False, peeks)] * oracle
    withheld += [("peeks respected", "the candidates' labels (candidate_labels=None)", oracle, False)] * peeks
    for item, what, truth, labels in withheld:
        try:
            copy.deepcopy(strategy).scores(_strategy_context(data, seed, truth, labels))
        except (ValueError, TypeError):
            pass
        except Exception as exc:  # noqa: BLE001
            _strategy_fail(who, item, f"without {what} scores raised {type(exc).__name__}: {exc}; it must raise a "
                                      "clear ValueError or TypeError")
        else:
            _strategy_fail(who, item, f"{item.split()[0]}=True, but scores returned scores without {what}; it must "
                                      "raise a ValueError or TypeError")
    return scores


def _strategy_fail(name: str, item: str, message: str) -> None:
    raise StrategyCheckError(f"check_strategy: {name} fails '{item}': {message}")


def _check_strategy_attributes(strategy: Strategy, who: str) -> None:
    """``name`` a safe label, the flags bools, ``sign`` a finite real."""
    try:
        label(strategy.name, "name")
    except (TypeError, ValueError) as exc:
        _strategy_fail(who, "attributes", f"{exc} (the runners label rows and part files with it)")
    for flag in ("costly", "needs_truth", "peeks", "estimates_t_e"):
        value = getattr(strategy, flag, None)
        if not isinstance(value, (bool, np.bool_)):
            _strategy_fail(who, "attributes", f"{flag} must be a bool, got {value!r}")
    sign = getattr(strategy, "sign", None)
    if isinstance(sign, (bool, np.bool_)) or not isinstance(sign, (int, float, np.integer, np.floating)) \
            or not np.isfinite(sign):
        _strategy_fail(who, "attributes", f"sign must be a finite real number, got {sign!r}")


def _check_strategy_repr(strategy: Strategy, who: str) -> str:
    """The repr, after checking that it shows the keyword parameters, has no address and survives a deep copy."""
    item = "repr shows parameters"
    try:
        shown = repr(strategy)
        twin = repr(copy.deepcopy(strategy))
    except Exception as exc:  # noqa: BLE001
        _strategy_fail(who, item, f"repr raised {type(exc).__name__}: {exc}")
    if " at 0x" in shown:
        _strategy_fail(who, item, f"{shown} shows an object by its address, which changes from run to run; give "
                                  "every parameter (and the objects it holds) a repr of its value")
    init = list(inspect.signature(type(strategy).__init__).parameters.values())[1:]
    quiet = getattr(strategy, "repr_if_changed", ())  # shown only away from their default
    hidden = [p.name for p in init if (p.default is not p.empty or p.kind is p.KEYWORD_ONLY)
              and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and f"{p.name}=" not in shown
              and not (p.name in quiet and getattr(strategy, p.name, p.empty) == p.default)]
    if hidden:
        _strategy_fail(who, item, f"the repr {shown} does not show the __init__ parameters {hidden} (as name=value): "
                                  "two differently parameterised strategies would look alike")
    if twin != shown:
        _strategy_fail(who, item, f"a deep copy has the repr {twin}, the original {shown}")
    return shown


@dataclass(frozen=True)
class _StrategyData:
    """The labelled set, candidates, evaluation population, problem and classifier of :func:`check_strategy`."""

    X: np.ndarray
    y: np.ndarray
    candidates: np.ndarray
    labels: np.ndarray
    problem: GaussianMixtureProblem
    population: Population
    classifier: Classifier


def _strategy_data(seed: int, classifier: Classifier) -> _StrategyData:
    problem = _strategy_problem()
    X0, y0, pool_X, pool_y, population = problem.draw_replicate(
        _EXTRA_LABELLED + _STRATEGY_CANDIDATES, _STRATEGY_POPULATION, np.random.default_rng(seed))
    X = np.vstack([X0, pool_X[:_EXTRA_LABELLED]])
    y = np.concatenate([y0, pool_y[:_EXTRA_LABELLED]])
    return _StrategyData(X, y, pool_X[_EXTRA_LABELLED:], pool_y[_EXTRA_LABELLED:], problem, population,
                         copy.deepcopy(classifier))


def _strategy_context(data: _StrategyData, seed: int, truth: bool, labels: bool = False) -> Context:
    """A fresh context (its own copies of everything) with ``rng`` seeded from ``seed``; the truth if ``truth``,
    the candidates' drawn labels if ``labels``."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
    candidates = data.candidates.copy()
    return Context(data.X.copy(), data.y.copy(), candidates, candidates.copy(), copy.deepcopy(data.classifier),
                   data.problem.n_classes, rng, data.problem if truth else None,
                   copy.deepcopy(data.population) if truth else None, data.labels.copy() if labels else None)


_CONTEXT_FIELDS = ("X", "y", "candidates", "pool", "classifier", "n_classes", "problem", "population",
                   "candidate_labels")


def _context_snapshot(ctx: Context) -> dict[str, tuple[Any, Any]]:
    """Each field of ``ctx``: the object itself and a deep copy of its contents."""
    return {key: (getattr(ctx, key), copy.deepcopy(getattr(ctx, key))) for key in _CONTEXT_FIELDS}


def _same_contents(a: Any, b: Any) -> bool:
    """``a`` (now) holds what ``b`` (a deep copy taken before) held.

    Arrays element-wise (and dtype); a classifier unfitted with the same
    parameters; other objects attribute by attribute, where attributes added
    since (caches such as ``Problem.bayes_error``) are allowed; else ``==``.
    """
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")))
    if a is None or b is None or isinstance(a, (int, float, str)):
        return type(a) is type(b) and a == b
    if isinstance(a, Classifier):
        return type(a) is type(b) and not _learned(a) and _same_params(a.get_params(deep=False),
                                                                       b.get_params(deep=False))
    if hasattr(a, "__dict__"):
        return type(a) is type(b) and all(key in vars(a) and _same_contents(vars(a)[key], vars(b)[key])
                                          for key in vars(b))
    return _same_value(a, b)


def _check_context_unchanged(ctx: Context, before: dict[str, tuple[Any, Any]], who: str, where: str) -> None:
    for key, (obj, contents) in before.items():
        now = getattr(ctx, key)
        if now is not obj:
            _strategy_fail(who, "ctx not mutated", f"scores replaced ctx.{key} {where}")
        if not _same_contents(now, contents):
            what = "fitted or changed the classifier template (use ctx.fitted() or a clone)" \
                if key == "classifier" else f"changed the contents of ctx.{key}"
            _strategy_fail(who, "ctx not mutated", f"scores {what} {where}")


def _strategy_scores(strategy: Strategy, ctx: Context, who: str, where: str) -> np.ndarray:
    """``strategy.scores(ctx)``, checked: real, shape ``(m,)``, finite."""
    item = "one finite score per candidate"
    m = ctx.candidates.shape[0]
    truth = "with the truth" if ctx.problem is not None else "without the truth (problem=None, population=None)"
    try:
        raw = strategy.scores(ctx)
    except Exception as exc:  # noqa: BLE001
        _strategy_fail(who, item, f"scores raised {type(exc).__name__}: {exc} on {m} candidates {truth} {where}")
    try:
        values = check.real_array(raw, "scores")
    except (TypeError, ValueError) as exc:
        _strategy_fail(who, item, f"{exc} {where}")
    if values.shape != (m,):
        _strategy_fail(who, item, f"scores returned shape {values.shape}, expected ({m},) {where}")
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        _strategy_fail(who, item, f"scores returned non-finite values {values[bad].tolist()} for candidates "
                                  f"{bad.tolist()} of {m} {where}")
    return np.array(values, dtype=float)
