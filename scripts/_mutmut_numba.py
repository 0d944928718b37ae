"""numba under mutmut: compile the function mutmut would run, not its trampoline.

``scripts/mutation.py`` copies this file into a mutation workdir's ``tests/``, and the copy's
``tests/conftest.py`` first calls :func:`install`; it is never part of the package or of a normal test run
(``tests/test_mutation_numba.py`` tests :func:`njit` without installing it).

mutmut 3 replaces each function of the mutated file by a Python trampoline that calls, at each call, the
original or the mutant under test.  The compiled kernels of k-NN, logistic regression and the SVM are
plain functions compiled by ``numba.njit(...)(function)`` on first use; numba cannot compile a
trampoline.  For the run, ``numba.njit`` is replaced by :func:`njit`: given a trampoline it returns a
dispatcher that, at each call, does what the trampoline would do, with the chosen function compiled:

* under ``stats`` (mutmut mapping tests to functions) it records the call as the trampoline would and runs
  the original;
* under ``fail`` (mutmut checking that a broken function fails the tests) it calls the trampoline, which
  raises;
* otherwise it runs the mutant under test if it is one of this function's, else the original.

Each function is compiled once per process (the original with numba's disk cache, a mutant without);
a mutant numba cannot compile raises, which fails the tests that call it, as a mutant that breaks
Python code does.  Any other ``numba.njit`` use is passed through unchanged.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numba
from mutmut.core import MutmutCallStack
from mutmut.mutation.trampoline import get_mutant_under_test
from mutmut.stats import record_trampoline_hit
from mutmut.utils.format_utils import mangled_name_from_mutant_name

_njit = numba.njit


def _mutants_of(function: Callable[..., Any]) -> dict[str, Callable[..., Any]] | None:
    """mutmut's table of ``function``'s versions (``_mutmut_orig`` and its mutants), if it is a trampoline."""
    if not hasattr(function, "__wrapped__"):
        return None
    module = sys.modules.get(function.__module__)
    return getattr(module, f"mutants_x_{function.__name__}__mutmut", None)


class _Dispatcher:
    """What a trampoline does, with the chosen version compiled by numba."""

    def __init__(self, trampoline: Callable[..., Any], versions: dict[str, Callable[..., Any]],
                 options: dict[str, Any]) -> None:
        self.trampoline, self.versions, self.options = trampoline, versions, options
        self.compiled: dict[str, Any] = {}

    def _version(self, key: str) -> Any:
        if key not in self.compiled:
            options = self.options if key == "_mutmut_orig" else {**self.options, "cache": False}
            self.compiled[key] = _njit(**options)(self.versions[key])
        return self.compiled[key]

    def __call__(self, *args: Any) -> Any:
        under_test = get_mutant_under_test()
        if under_test == "fail":
            return self.trampoline(*args)
        key = "_mutmut_orig"
        if under_test == "stats":
            original = self.versions[key]
            caller, _ = MutmutCallStack.get()
            record_trampoline_hit(f"{original.__module__}.{mangled_name_from_mutant_name(original.__name__)}",
                                  caller=caller)
        else:
            module, _, name = under_test.rpartition(".")
            if module == self.trampoline.__module__ and name in self.versions:
                key = name
        return self._version(key)(*args)


def njit(*args: Any, **options: Any) -> Any:
    """``numba.njit`` that compiles the version of a mutmut trampoline under test (module notes)."""
    if args and callable(args[0]):  # njit(function) or njit(function, **options)
        return njit(**options)(args[0])
    if args:
        return _njit(*args, **options)  # a signature: not used by the package

    def compile_(function: Callable[..., Any]) -> Any:
        versions = _mutants_of(function)
        if versions is None:
            return _njit(**options)(function)
        return _Dispatcher(function, versions, options)

    return compile_


def install() -> None:
    """Replace ``numba.njit`` by :func:`njit` in this process (the package calls ``numba.njit`` at first use)."""
    numba.njit = njit
