r"""Conformance checks a user runs on their own classifier: :func:`check_classifier`.

The classifier contract (:mod:`mri_theory.classifiers.base`) is what the
engine, the strategies and the sandbox rely on.  :func:`check_classifier`
exercises it on small training sets of the kinds an active-learning curve
meets (one point, one class, an absent class, duplicated points with
different labels, points on a grid so that distances tie) and raises
:class:`ClassifierCheckError` naming the first rule broken and the worst
discrepancy found.  The project's own classifiers pass it (the tests).

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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn import base as skbase

from mri_theory import _validation as check
from mri_theory.classifiers.base import Classifier, refit_future_losses
from mri_theory.losses import check_loss, predicted_class
from mri_theory.population import Population

__all__ = ["ClassifierCheckError", "check_classifier"]

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
       lowest label: :func:`mri_theory.losses.predicted_class`).
    3. **determinism**: two fits of two clones give identical
       probabilities; a clone fitted first on another state and then on this
       one gives them too (a fit starts from scratch); fitting leaves the
       hyper-parameters, and ``classifier``, unchanged.
    4. **fast path equals a refit**: if the class overrides
       ``retraining_losses``, on every state and for every loss in ``losses``
       it returns ``(L, L')`` with ``L`` the population loss of the fitted
       model and ``L'`` (shape ``(m, k)``) equal to
       :func:`~mri_theory.classifiers.base.refit_future_losses` (the refit of
       a clone per (candidate, class), Table ``Notation``'s
       :math:`L'_j = L(\theta(D_S \cup (\mathbf x, c_j)))`) to ``tol``
       (relative to ``max(1, |loss|)``),
       twice in a row identically, without changing the model.

    The states (:data:`STATE_KINDS`, drawn from ``seed``) are small: 1 to 10
    training points in one or two dimensions with 2 or 3 classes, 5
    candidates (one a copy of a training point, one on the grid midway
    between points), a population of 40 points (random points and grid
    points; Dirichlet and one-hot rows; random weights).

    Parameters
    ----------
    classifier : Classifier
        An instance of a :class:`~mri_theory.classifiers.base.Classifier`
        subclass (fitted or not).
    seed : int, default 0
        Seed of the states (``>= 0``); the message of a failure names it.
    n_states : int, default 6
        Number of states; they cycle through :data:`STATE_KINDS` (the
        default covers each kind once).
    tol : float, default 1e-12
        Largest discrepancy accepted: absolute in probabilities and row sums,
        relative to ``max(1, |refit loss|)`` in losses (a log loss reaches
        34.5 nats).  Under the error loss the fast path must predict the
        classes the refit predicts: a tie broken differently costs a whole
        point's weight (:func:`mri_theory.losses.predicted_class` makes ties
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
    for i, (state, model) in enumerate(zip(states, fitted)):
        _check_determinism(classifier, model, states[i - 1], state, name, where)
    if not _same_params(snapshot, classifier.get_params(deep=False)) or _learned(classifier) != was_fitted:
        _fail(name, "determinism", f"checking changed the template {classifier!r}: a fit must work on its own "
                                   "object and never change hyper-parameters (learned state ends in '_')")
    if type(classifier).retraining_losses is not Classifier.retraining_losses:
        report["fast path equals a refit"] = max(
            _check_fast_path(model, state, loss, tol, name, where) for state, model in zip(states, fitted)
            for loss in losses)
    return report


# ---------------------------------------------------------------------------------------- the states


def _states(rng: np.random.Generator, n_states: int) -> Iterator[_State]:
    """``n_states`` states cycling through :data:`STATE_KINDS`."""
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


def _fail(name: str, check_name: str, message: str) -> None:
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
        return type(a) is type(b) and len(a) == len(b) and all(_same_value(x, z) for x, z in zip(a, b))
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
                                             f"lowest label, mri_theory.losses.predicted_class) at "
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
    """``retraining_losses`` against the refit of a clone per (candidate, class); returns the worst difference."""
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
