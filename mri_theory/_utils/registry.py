"""One home for the registries' rules: safe labels and registration.

The runners label table rows, part files and study folders with the names of
problems, classifiers and strategies (``{strategy}__{replicate:05d}.csv``,
``{problem}__{classifier}/``), so a name that may become part of a file name
must be safe: a non-empty str of ``[A-Za-z0-9._+-]`` without ``"__"`` (the
separator).  :func:`register` holds the checks that
:func:`~mri_theory.problems.register_problem`,
:func:`~mri_theory.classifiers.register_classifier` and
:func:`~mri_theory.strategies.register_strategy` share; :func:`unregister`
and :func:`registered` are the removal and the temporary registration behind
their ``unregister_*`` and ``registered_*`` functions.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Collection, Iterator, MutableMapping
from contextlib import contextmanager
from typing import Any

from mri_theory._utils import validation as check

__all__ = ["label", "made", "register", "registered", "unregister"]

#: The characters of a name that may become part of a file or folder name.
_LABEL = re.compile(r"[A-Za-z0-9._+-]+")


def label(value: Any, name: str) -> str:
    """``value`` if it is a safe name: a non-empty str of ``[A-Za-z0-9._+-]`` without ``"__"``.

    Raises a ``TypeError`` (not a str) or ``ValueError`` naming ``name``.
    """
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if not _LABEL.fullmatch(value) or "__" in value:
        raise ValueError(f"{name} must be a non-empty name of letters, digits and . _ + - without '__' "
                         f"(it becomes part of file names), got {value!r}")
    return value


def register(registry: dict[str, Callable[[], Any]], name: Any, factory: Any, overwrite: Any, kind: str) -> None:
    """Add ``factory`` to ``registry`` under ``name``, after the checks every ``register_*`` function shares.

    ``name`` must be a safe label (:func:`label`), ``factory`` callable
    without arguments (the registries call it so), and a name already in
    ``registry`` is replaced only with ``overwrite=True``.
    """
    label(name, "name")
    if not callable(factory):
        raise TypeError(f"factory must be callable (a class or a function returning a {kind}), "
                        f"got {type(factory).__name__}")
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # no signature to read (some builtins): accepted as it is
        signature = None
    if signature is not None:
        try:
            signature.bind()
        except TypeError:
            required = [p.name for p in signature.parameters.values()
                        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
            raise TypeError(f"factory {getattr(factory, '__qualname__', factory)!r} registered as {kind} "
                            f"{name!r} cannot be called without arguments (it requires {required}); "
                            f"register e.g. lambda: factory(...) with the arguments filled in") from None
    if check.flag(overwrite, "overwrite") is False and name in registry:
        raise ValueError(f"name: a {kind} {name!r} is already registered; pass overwrite=True to replace it")
    registry[name] = factory


def made(obj: Any, cls: type, name: str, kind: str) -> Any:
    """``obj`` if the factory registered as ``name`` made a ``cls``; a TypeError naming the factory otherwise.

    The getters check what a factory returns, so that a bad registration
    fails where the object is asked for, before any runner does work or
    writes a file.
    """
    if not isinstance(obj, cls):
        raise TypeError(f"the factory registered as {kind} {name!r} returned {type(obj).__name__}, "
                        f"not a {cls.__name__}")
    return obj


def unregister(registry: dict[str, Callable[[], Any]], name: Any, built_in: Collection[str], kind: str,
               caches: tuple[MutableMapping[str, Any], ...] = ()) -> None:
    """Remove ``name`` from ``registry`` (and from each of ``caches``); built-in names are refused.

    Raises a ``TypeError`` (``name`` not a str) or a ``ValueError`` naming
    ``name``: a built-in name (in ``built_in``: refused even when overwritten,
    so the paper's names always stay available; replace one for a while with
    :func:`registered` instead), or a name not registered (the message lists
    the known names).
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    if name in built_in:
        raise ValueError(f"name: {name!r} is a built-in {kind} and cannot be unregistered; to replace it "
                         f"for a while, use the registered_{kind}(name, factory, overwrite=True) context manager")
    if name not in registry:
        raise ValueError(f"name: no {kind} {name!r} is registered; registered {kind} names: "
                         f"{', '.join(sorted(registry))}")
    del registry[name]
    for cache in caches:
        cache.pop(name, None)


_ABSENT = object()


@contextmanager
def registered(registry: dict[str, Callable[[], Any]], add: Callable[..., None], name: Any, factory: Any,
               overwrite: Any, caches: tuple[MutableMapping[str, Any], ...] = ()) -> Iterator[None]:
    """Register ``factory`` as ``name`` with ``add`` for the ``with`` block, then restore the previous state.

    ``add`` is the public ``register_*`` function (all its checks apply,
    before anything changes).  On exit, however the block ends, the entry of
    ``name`` in ``registry`` and in each of ``caches`` is put back as it was
    before: the factory it replaced (``overwrite=True``) and its cached
    object, or no entry; a replaced name keeps its place in the registry's
    order.  Other names registered or removed inside the block are left as
    they are, so nested uses unwind one by one.
    """
    before = [(mapping, mapping.get(name, _ABSENT)) for mapping in (registry, *caches)] \
        if isinstance(name, str) else []
    order = list(registry)
    add(name, factory, overwrite=overwrite)
    try:
        yield
    finally:
        for mapping, value in before:
            if value is _ABSENT:
                mapping.pop(name, None)
            else:
                mapping[name] = value
        rank = _ranks(order)
        if name in order and list(registry) != sorted(registry, key=rank):
            items = sorted(registry.items(), key=lambda item: rank(item[0]))
            registry.clear()
            registry.update(items)


def _ranks(order: list[str]) -> Callable[[str], int]:
    """Sort key: a name's place in ``order``; names not in it after, in their current order (a stable sort)."""
    rank = {key: i for i, key in enumerate(order)}
    return lambda key: rank.get(key, len(rank))
