"""Old import paths kept working for one version: modules that forward to the new place and warn.

An old module (``mri_theory.sandbox``) becomes a module whose attributes come, on first use, from
its new home (``mri_theory.runners.sandbox``); every access warns with a :class:`DeprecationWarning`
naming the new path (PEP 562 module ``__getattr__``).  Nothing is copied, so ``old.f is new.f``.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any

#: The version in which the old paths are removed.
REMOVED_IN = "0.2.0"


def forward(old: str, new: str, moved: Mapping[str, str] | None = None
            ) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for the deprecated module ``old``, now at ``new``.

    Parameters
    ----------
    old : str
        The deprecated module's dotted name (its ``__name__``).
    new : str
        The module that now holds its public names.
    moved : mapping of str to str, optional
        Names that went elsewhere than ``new``: name -> the module that holds it now.

    Returns
    -------
    getattr, dir : callable
        The module-level ``__getattr__`` (warns, naming the public subpackage that exports the name
        and its module, then returns the object from its new module;
        private names and unknown names raise ``AttributeError``) and ``__dir__``.
    all : list of str
        The old module's public names: the new module's ``__all__`` plus ``moved``.
    """
    moved = dict(moved or {})
    names = [name for name in importlib.import_module(new).__all__ if name not in moved] + sorted(moved)

    def __getattr__(name: str) -> Any:
        if name.startswith("_") or name not in names:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        home = moved.get(name, new)
        package = home.rpartition(".")[0]
        where = (f"{package} ({home})" if name in getattr(importlib.import_module(package), "__all__", ())
                 else home)
        warnings.warn(f"{old} is deprecated and will be removed in mri-theory {REMOVED_IN}: "
                      f"import {name} from {where} instead", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(home), name)

    def __dir__() -> list[str]:
        return sorted(names)

    return __getattr__, __dir__, names
