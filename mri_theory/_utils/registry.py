"""One home for the registries: safe labels and the :class:`Registry` type.

The runners label table rows, part files and study folders with the names of
problems, classifiers and strategies (``{strategy}__{replicate:05d}.csv``,
``{problem}__{classifier}/``), so a name that may become part of a file name
must be safe: a non-empty str of ``[A-Za-z0-9._+-]`` without ``"__"`` (the
separator, :func:`label`).  :class:`Registry` is the one registry type behind
:mod:`mri_theory.problems`, :mod:`mri_theory.classifiers` and
:mod:`mri_theory.strategies`: their ``register_*``, ``unregister_*``,
``registered_*``, ``get_*`` and ``list_*`` functions are its methods, and the
lists derived from what the registered objects declare (:meth:`Registry.tagged`)
replace the lists kept by hand.
"""

from __future__ import annotations

import copy
import inspect
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from mri_theory._utils import validation as check

__all__ = ["Registry", "label"]

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


class Registry:
    """Named factories of one kind of object: the one registry type behind problems, classifiers and strategies.

    A registry maps a safe name (``label``) to a *factory*, called without arguments (or with a getter's
    options) to make a new object of type ``cls``.  Entries added with ``built_in=True`` cannot be removed (their
    names always stay available; :meth:`~mri_theory.engine.Registry.registered` replaces one for a while).  An
    entry carries *tags*: what the registered object declares (a strategy's ``origin``, a problem's ``group``),
    read from the factory's attribute of the same name when the entry does not give it, so that lists which used
    to be kept by hand (the paper's strategies, the abstract problems) are derived from the registry
    (:meth:`~mri_theory.engine.Registry.tagged`).

    Parameters
    ----------
    kind : str
        What the entries are, for messages: ``"problem"``, ``"classifier"``, ``"strategy"``.
    cls : type
        The type every factory must return (:meth:`~mri_theory.engine.Registry.get` checks it).
    reserved : dict of str to str, optional
        Names that cannot be registered, each with the reason (e.g. the runners' ``"all"``).
    cache : bool, default False
        Make each object once (problems: a data set is read once); without options only.  Every
        :meth:`~mri_theory.engine.Registry.get` returns a shallow copy of it, so what a caller assigns to its
        object (a ``name``) never reaches the cache or another caller.
    sort : bool, default True
        :meth:`~mri_theory.engine.Registry.names` sorted; ``False``: in registration order (a replaced name keeps
        its place).
    noun : str, optional
        How an unknown name is called in :meth:`~mri_theory.engine.Registry.get`'s message (default ``kind``).

    Examples
    --------
    >>> from mri_theory.engine import Registry
    >>> shapes = Registry("shape", tuple)
    >>> shapes.register("square", lambda: (2, 2))
    >>> shapes.get("square"), shapes.names()
    ((2, 2), ['square'])
    """

    def __init__(self, kind: str, cls: type, *, reserved: dict[str, str] | None = None, cache: bool = False,
                 sort: bool = True, noun: str | None = None) -> None:
        self.kind, self.cls, self.sort, self.noun = kind, cls, sort, noun or kind
        self.reserved = dict(reserved or {})
        self._entries: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {}
        self._built_in: set[str] = set()
        self._instances: dict[str, Any] | None = {} if cache else None

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self._entries)} entries)"

    def names(self) -> list[str]:
        """The registered names: sorted, or in registration order (``sort=False``).

        Returns
        -------
        list of str
            The names.
        """
        return sorted(self._entries) if self.sort else list(self._entries)

    def factory(self, name: str) -> Callable[..., Any]:
        """The factory registered as ``name`` (an unknown name as in :meth:`~mri_theory.engine.Registry.get`).

        Parameters
        ----------
        name : str
            A registered name.

        Returns
        -------
        callable
            Its factory.
        """
        return self._entry(name)[0]

    def tag(self, name: str, key: str, default: Any = None) -> Any:
        """What the entry ``name`` declares as ``key``: its tag, else its factory's attribute ``key``, else
        ``default`` (an unknown name as in :meth:`~mri_theory.engine.Registry.get`).

        Parameters
        ----------
        name : str
            A registered name.
        key : str
            The tag's name.
        default : object, optional
            What is returned where nothing declares ``key``.

        Returns
        -------
        object
            The declared value, or ``default``.
        """
        factory, tags = self._entry(name)
        return tags[key] if key in tags else getattr(factory, key, default)

    def _entry(self, name: Any) -> tuple[Callable[..., Any], dict[str, Any]]:
        """The entry of ``name``: a TypeError (not a str) or a ValueError listing the known names (unknown)."""
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        if name not in self._entries:
            raise ValueError(f"unknown {self.noun} {name!r}; known {_PLURAL.get(self.kind, self.kind + 's')}: "
                             f"{', '.join(self.names())}")
        return self._entries[name]

    def tagged(self, key: str, value: Any, default: Any = None) -> tuple[str, ...]:
        """The names whose ``key`` (:meth:`~mri_theory.engine.Registry.tag`, ``default`` where nothing declares it)
        is ``value``, in
        registration order.

        Parameters
        ----------
        key : str
            The tag's name.
        value : object
            The value sought.
        default : object, optional
            The value of entries that declare nothing.

        Returns
        -------
        tuple of str
            The names, in registration order.
        """
        return tuple(name for name in self._entries if self.tag(name, key, default) == value)

    def register(self, name: Any, factory: Any, *, overwrite: Any = False, built_in: bool = False,
                 **tags: Any) -> None:
        """Add ``factory`` under ``name``, after the checks every ``register_*`` function shares.

        ``name`` must be a safe label (``label``) and not reserved, ``factory`` callable without arguments
        (the getters call it so), and a name already registered is replaced only with ``overwrite=True`` (in
        its place in the order; its cached object is dropped).

        Parameters
        ----------
        name : str
            A safe label, not reserved.
        factory : callable
            Returns the object with no arguments (a class works).
        overwrite : bool, default False
            Replace a registered name.
        built_in : bool, default False
            Whether the entry is built in (it cannot be unregistered).
        **tags : dict
            What the entry declares (e.g. ``origin``, ``group``), read by :meth:`tag`.
        """
        label(name, "name")
        if name in self.reserved:
            raise ValueError(f"name {name!r} is reserved: {self.reserved[name]}")
        if not callable(factory):
            raise TypeError(f"factory must be callable (a class or a function returning a {self.kind}), "
                            f"got {type(factory).__name__}")
        _check_callable_without_arguments(factory, name, self.kind)
        if check.flag(overwrite, "overwrite") is False and name in self._entries:
            raise ValueError(f"name: a {self.kind} {name!r} is already registered; pass overwrite=True to "
                             f"replace it")
        self._entries[name] = (factory, tags)
        if built_in:
            self._built_in.add(name)
        if self._instances is not None:
            self._instances.pop(name, None)

    def unregister(self, name: Any) -> None:
        """Remove ``name`` (and its cached object); built-in names are refused.

        Raises a ``TypeError`` (``name`` not a str) or a ``ValueError`` naming ``name``: a built-in name
        (refused even when overwritten, so the paper's names always stay available; replace one for a while with
        :meth:`~mri_theory.engine.Registry.registered` instead), or a name not registered (the message lists the
        registered names).

        Parameters
        ----------
        name : str
            A registered name that is not built in.
        """
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        if name in self._built_in:
            raise ValueError(f"name: {name!r} is a built-in {self.kind} and cannot be unregistered; to replace it "
                             f"for a while, use the registered_{self.kind}(name, factory, overwrite=True) context "
                             f"manager")
        if name not in self._entries:
            raise ValueError(f"name: no {self.kind} {name!r} is registered; registered {self.kind} names: "
                             f"{', '.join(sorted(self._entries))}")
        del self._entries[name]
        if self._instances is not None:
            self._instances.pop(name, None)

    @contextmanager
    def registered(self, name: Any, factory: Any, *, overwrite: Any = False) -> Iterator[None]:
        """:meth:`~mri_theory.engine.Registry.register` for the ``with`` block, then the previous state exactly.

        All of :meth:`~mri_theory.engine.Registry.register`'s checks apply, before anything changes.  On exit,
        however the block ends, the
        entry of ``name`` is put back as it was before: the factory it replaced (``overwrite=True``), its tags
        and its cached object, in its place in the order, or no entry.  Other names registered or removed
        inside the block are left as they are, so nested uses unwind one by one.

        Parameters
        ----------
        name : str
            The name, as for :meth:`register`.
        factory : callable
            Returns the object with no arguments.
        overwrite : bool, default False
            Replace a registered name for the block.
        """
        before = [(mapping, mapping.get(name, _ABSENT)) for mapping in self._mappings()] \
            if isinstance(name, str) else []
        order = list(self._entries)
        self.register(name, factory, overwrite=overwrite)
        try:
            yield
        finally:
            for mapping, value in before:
                if value is _ABSENT:
                    mapping.pop(name, None)
                else:
                    mapping[name] = value
            rank = _ranks(order)
            if name in order and list(self._entries) != sorted(self._entries, key=rank):
                items = sorted(self._entries.items(), key=lambda item: rank(item[0]))
                self._entries.clear()
                self._entries.update(items)

    def get(self, name: Any, **options: Any) -> Any:
        """A ``cls`` made by the factory of ``name`` (with ``options``; the cached one without them).

        Parameters
        ----------
        name : str
            A registered name.
        **options : dict
            Keyword arguments of the factory (without them, the cached object is returned).

        Returns
        -------
        object
            The object (of the registry's ``cls``); of a caching registry, a shallow copy of the cached one.

        Raises
        ------
        TypeError
            ``name`` not a str, an option that is not a parameter of the factory, or a factory returning no
            ``cls`` (naming the factory, so that a bad registration fails where the object is asked for).
        ValueError
            An unknown name (the message lists the known names).
        TypeError, ValueError
            The factory's own exception, naming the kind and ``name`` and chained to it (``from``): a
            ``TypeError`` or ``ValueError`` keeps its type, any other (an ``ImportError`` excepted, which
            passes as it is) becomes a ``ValueError``.  With ``options``, a ``TypeError`` or ``ValueError`` is the
            object's own refusal of an option, which names it, and passes as it is.
        """
        self._entry(name)
        if self._instances is not None and not options:
            if name not in self._instances:
                self._instances[name] = self._make(name, {})
            return copy.copy(self._instances[name])  # defensive: a caller's assignment stays its own
        return self._make(name, options)

    def _make(self, name: str, options: dict[str, Any]) -> Any:
        factory = self._entries[name][0]
        if options:
            parameters = inspect.signature(factory).parameters.values()
            if not any(p.kind is p.VAR_KEYWORD for p in parameters):  # a factory taking **kwargs checks its own
                accepted = [p.name for p in parameters]
                unknown = sorted(set(options) - set(accepted))
                if unknown:
                    raise TypeError(f"options {unknown} are not parameters of {self.kind} {name!r}; it accepts "
                                    f"{accepted or 'no options'}")
        try:
            obj = factory(**options)
        except ImportError:
            raise  # a missing optional dependency (a peer without its extra): the message names what to install
        except (TypeError, ValueError) as exc:
            if options:
                raise  # an option refused by the object's own checks, which name it
            kind = TypeError if isinstance(exc, TypeError) else ValueError  # the plain type: any subclass's init
            raise kind(f"the factory registered as {self.kind} {name!r} failed: {exc}") from exc
        except Exception as exc:
            raise ValueError(f"the factory registered as {self.kind} {name!r} failed: "
                             f"{type(exc).__name__}: {exc}") from exc
        if not isinstance(obj, self.cls):
            raise TypeError(f"the factory registered as {self.kind} {name!r} returned {type(obj).__name__}, "
                            f"not a {self.cls.__name__}")
        return obj

    def _mappings(self) -> tuple[dict[str, Any], ...]:
        return (self._entries,) if self._instances is None else (self._entries, self._instances)


_PLURAL = {"strategy": "strategies"}

_ABSENT = object()


def _check_callable_without_arguments(factory: Callable[..., Any], name: str, kind: str) -> None:
    """A TypeError naming ``factory`` when it cannot be called without arguments (by :func:`inspect.signature`;
    a factory without a signature to read, as some builtins, is accepted as it is)."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return
    try:
        signature.bind()
    except TypeError:
        required = [p.name for p in signature.parameters.values()
                    if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        raise TypeError(f"factory {getattr(factory, '__qualname__', factory)!r} registered as {kind} "
                        f"{name!r} cannot be called without arguments (it requires {required}); "
                        f"register e.g. lambda: factory(...) with the arguments filled in") from None


def _ranks(order: list[str]) -> Callable[[str], int]:
    """Sort key: a name's place in ``order``; names not in it after, in their current order (a stable sort)."""
    rank = {key: i for i, key in enumerate(order)}
    return lambda key: rank.get(key, len(rank))
