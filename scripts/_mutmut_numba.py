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

A kernel that calls other kernels (the SVM's ``_solve_rows`` calls ``_smo_rows`` and ``_polish_rows``) is
compiled by the package as a copy of its function whose globals name the callees' compiled dispatchers
(``types.FunctionType(function.__code__, globals_with_callees, ...)``).  Under mutmut that copy is a copy of
the caller's trampoline and the callees are this shim's dispatchers: the chosen version of the caller is
then rebuilt with the chosen versions of its callees compiled in, so a mutant of a callee is tested through
its compiled callers too; under ``stats`` a call records the callees as called with it (conservatively: the
tests that reach the caller are the callees' tests as well).

Each function is compiled once per process and choice of versions (the original with numba's disk cache, a
mutant, or an original calling a mutant, without); a mutant numba cannot compile raises, which fails the
tests that call it, as a mutant that breaks Python code does.  Any other ``numba.njit`` use is passed
through unchanged.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

import numba
from mutmut.core import MutmutCallStack
from mutmut.mutation.trampoline import get_mutant_under_test
from mutmut.stats import record_trampoline_hit
from mutmut.utils.format_utils import mangled_name_from_mutant_name

_njit = numba.njit


def _mutants_of(function: Callable[..., Any]) -> dict[str, Callable[..., Any]] | None:
    """mutmut's table of ``function``'s versions (``_mutmut_orig`` and its mutants), if it is a trampoline or
    a copy of one (same code, other globals)."""
    module = sys.modules.get(function.__module__)
    trampoline = getattr(module, function.__name__, None)
    if not hasattr(trampoline, "__wrapped__") or getattr(trampoline, "__code__", None) is not function.__code__:
        return None
    return getattr(module, f"mutants_x_{function.__name__}__mutmut", None)


class _Dispatcher:
    """What a trampoline does, with the chosen version compiled by numba (and its callees', ``callees``: the
    globals of the caller's copy that name other dispatchers of this shim)."""

    def __init__(self, trampoline: Callable[..., Any], versions: dict[str, Callable[..., Any]],
                 options: dict[str, Any], callees: dict[str, _Dispatcher] | None = None) -> None:
        self.trampoline, self.versions, self.options = trampoline, versions, options
        self.callees = callees or {}
        self.compiled: dict[tuple, Any] = {}

    def _choice(self) -> str:
        """The version to run now (recording the call under ``stats``, as the trampoline would)."""
        under_test = get_mutant_under_test()
        key = "_mutmut_orig"
        if under_test == "stats":
            original = self.versions[key]
            caller, _ = MutmutCallStack.get()
            record_trampoline_hit(f"{original.__module__}.{mangled_name_from_mutant_name(original.__name__)}",
                                  caller=caller)
        else:  # ("fail" never gets here: the call goes to the trampoline first)
            module, _, name = under_test.rpartition(".")
            if module == self.trampoline.__module__ and name in self.versions:
                key = name
        return key

    def _compiled(self, key: str) -> tuple[Any, bool]:
        """The compiled ``key`` version, calling its callees' versions chosen now, and whether it and they are
        all originals (only those use numba's disk cache: it does not see a callee change)."""
        chosen = {name: callee._compiled(callee._choice()) for name, callee in self.callees.items()}
        original = key == "_mutmut_orig" and all(flag for _, flag in chosen.values())
        full_key = (key, *(id(compiled) for compiled, _ in chosen.values()))
        if full_key not in self.compiled:
            function = self.versions[key]
            if chosen:
                callees = {name: compiled for name, (compiled, _) in chosen.items()}
                function = types.FunctionType(function.__code__, {**function.__globals__, **callees},
                                              function.__name__, function.__defaults__, function.__closure__)
            options = self.options if original else {**self.options, "cache": False}
            self.compiled[full_key] = _njit(**options)(function)
        return self.compiled[full_key], original

    def __call__(self, *args: Any) -> Any:
        if get_mutant_under_test() == "fail":
            return self.trampoline(*args)
        return self._compiled(self._choice())[0](*args)


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
        callees = {name: value for name, value in function.__globals__.items() if isinstance(value, _Dispatcher)}
        return _Dispatcher(function, versions, options, callees)

    return compile_


def install() -> None:
    """Replace ``numba.njit`` by :func:`njit` in this process (the package calls ``numba.njit`` at first use)."""
    numba.njit = njit
