"""Names or objects -> labelled objects, and the specs recorded for resume (shared by the three runners).

A problem, classifier or strategy is given as a registered name (its own label; the object comes from
the registry in the calling process) or as an object (labelled by its ``name``); see
:mod:`mri_theory.runners.sandbox`, "Labels".
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from mri_theory.classifiers import Classifier, get_classifier
from mri_theory.problems import Problem, get_problem
from mri_theory.strategies import PEER_NAMES, MRIBest, Strategy, get_strategy, list_strategies

#: What :func:`resolve` accepts per kind: the object class and the registry's getter.
KINDS: dict[str, tuple[type[Problem] | type[Classifier] | type[Strategy], Callable[[str], Any]]] = {
    "problem": (Problem, get_problem),
    "classifier": (Classifier, get_classifier),
    "strategy": (Strategy, get_strategy),
}

def resolve(value: Any, argument: str, kind: str) -> tuple[str, Any]:
    """``(label, object)`` of a registered name or an object of ``kind`` (:mod:`mri_theory.runners.sandbox`, "Labels").

    A name is its own label and its object comes from the registry, here in
    the calling process; an object is labelled by its ``name``.
    """
    cls, get = KINDS[kind]
    if isinstance(value, str):
        try:
            return value, get(value)
        except ValueError as exc:  # an unknown name, or its factory's failure (chained: kept)
            raise ValueError(f"{argument}: {exc}") from exc.__cause__
    if not isinstance(value, cls):
        raise TypeError(f"{argument} must be a {kind} name (str) or a {cls.__name__} object, "
                        f"got {type(value).__name__}")
    if not isinstance(value.name, str) or not value.name:
        raise TypeError(f"{argument}: a {cls.__name__} object needs a name (a non-empty str), got {value.name!r}")
    return value.name, value

def expand(value: Any, name: str, sets: Mapping[str, Sequence[str]], kind: str) -> list[tuple[Any, str, Any]]:
    """``(item, label, object)`` of a name, a set's name, an object, or a sequence of them (sets expanded in
    place: each member name is an item), with distinct labels (:func:`resolve`); raises naming ``name``."""
    cls = KINDS[kind][0]
    kinds = f"a name, one of the sets {', '.join(map(repr, sets))}, a {cls.__name__}, or a sequence of them"
    if isinstance(value, (str, cls)):
        value = [value]
    elif not isinstance(value, Iterable):
        raise TypeError(f"{name} must be {kinds}; got {type(value).__name__}")
    resolved: list[tuple[Any, str, Any]] = []
    for item in value:
        if not isinstance(item, (str, cls)):
            raise TypeError(f"{name} must hold names (str) or {cls.__name__} objects, got {item!r}")
        if isinstance(item, str) and item in sets:
            resolved.extend((member, *resolve(member, name, kind)) for member in sets[item])
            continue
        try:
            resolved.append((item, *resolve(item, name, kind)))
        except ValueError as exc:
            if exc.__cause__ is not None:
                raise  # a registered name whose factory failed: no set is meant
            raise ValueError(f"{exc} (or the sets {', '.join(map(repr, sets))})") from None
    if not resolved:
        raise ValueError(f"{name} must name at least one")
    distinct([label for _, label, _ in resolved], name)  # a set's names count too
    return resolved

def spec(obj: Any, argument: str) -> str:
    """The ``repr`` of ``obj`` (its parameters: the spec recorded for resume); a TypeError naming ``argument``
    when the repr cannot show them."""
    try:
        return repr(obj)
    except AttributeError as exc:
        raise TypeError(f"{argument}: {exc}") from None

def distinct(labels: Sequence[str], argument: str) -> None:
    """A ValueError naming ``argument`` unless the labels are distinct."""
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ValueError(f"{argument} must not repeat a name, got {', '.join(repeated)} more than once "
                         "(objects are labelled by their name: give each its own)")

def for_loss(strategy: Strategy, loss: str) -> Strategy:
    """``strategy``, or for an oracle of another loss a copy maximising the run's ``loss`` (§5.2)."""
    if isinstance(strategy, MRIBest) and strategy.loss != loss:
        strategy = copy.copy(strategy)
        strategy.loss = loss
    return strategy

def strategy_objects(strategies: Any, loss: str, argument: str = "strategies") -> dict[str, Strategy]:
    """``{label: strategy}`` of ``strategies``: "all", "peers", a name, a :class:`Strategy`, or a sequence of names
    and strategies, with distinct labels (the oracles set to the run's ``loss``, :func:`for_loss`).

    "all" is :func:`~mri_theory.strategies.list_strategies` (scikit-activeml's peers only where it is installed);
    "peers" is :data:`~mri_theory.strategies.PEER_NAMES` (an ``ImportError`` naming the extra without it)."""
    items: list[Any]  # checked one by one below
    if isinstance(strategies, str) and strategies == "all":
        items = list_strategies()
    elif isinstance(strategies, str) and strategies == "peers":
        items = list(PEER_NAMES)
    elif isinstance(strategies, (str, Strategy)):
        items = [strategies]
    elif isinstance(strategies, Iterable):
        items = list(strategies)
    else:
        raise TypeError(f"{argument} must be 'all', 'peers', a strategy name or Strategy object, or a sequence of "
                        f"them; got {type(strategies).__name__}")
    if not items:
        raise ValueError(f"{argument} must name at least one strategy")
    resolved = []
    for item in items:
        if not isinstance(item, (str, Strategy)):
            raise TypeError(f"{argument} must hold strategy names (str) or Strategy objects, got {item!r}")
        resolved.append(resolve(item, argument, "strategy"))
    distinct([label for label, _ in resolved], argument)
    objects = {label: for_loss(obj, loss) for label, obj in resolved}
    for obj in objects.values():
        spec(obj, argument)
    return objects
