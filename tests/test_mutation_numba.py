"""``scripts/_mutmut_numba.py``: under mutation testing, numba compiles the version mutmut's trampoline would run.

A module made as mutmut 3 makes a mutated one (the original and one mutant of a kernel, their table and the
trampoline built by mutmut's own ``wrap_in_trampoline``) is compiled through the shim's ``njit``; whichever
mutant is under test, the compiled call must give what the pure-Python trampoline gives, and record in
mutmut's statistics what the trampoline records.  The shim is not installed here (``numba.njit`` is
untouched); ``scripts/mutation.py`` installs it in its copies only.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from _optional import need

mutmut_trampoline = need("mutmut.mutation.trampoline")

SHIM = Path(__file__).resolve().parent.parent / "scripts" / "_mutmut_numba.py"
MODULE = "fake_mutated_kernels"

#: A kernel as mutmut writes it into a mutated file: the original, one mutant (2.0 -> 3.0), their table.
SOURCE = """
def x_scale__mutmut_orig(a, out):
    for i in range(a.shape[0]):
        out[i] = 2.0 * a[i]


def x_scale__mutmut_1(a, out):
    for i in range(a.shape[0]):
        out[i] = 3.0 * a[i]


mutants_x_scale__mutmut = {"_mutmut_orig": x_scale__mutmut_orig, "x_scale__mutmut_1": x_scale__mutmut_1}


def x_shifted__mutmut_orig(a, out):
    scale(a, out)
    for i in range(a.shape[0]):
        out[i] += 1.0


def x_shifted__mutmut_1(a, out):
    scale(a, out)
    for i in range(a.shape[0]):
        out[i] += 5.0


mutants_x_shifted__mutmut = {"_mutmut_orig": x_shifted__mutmut_orig, "x_shifted__mutmut_1": x_shifted__mutmut_1}
"""


@pytest.fixture(scope="module")
def shim():
    spec = importlib.util.spec_from_file_location("_mutmut_numba_under_test", SHIM)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def mutated():
    """The mutated module, with ``scale`` and ``shifted`` (which calls ``scale``) the trampolines mutmut would
    have put in their place."""
    module = types.ModuleType(MODULE)
    exec(compile(SOURCE, f"<{MODULE}>", "exec"), module.__dict__)

    def scale(a, out):  # the body mutmut keeps under its trampoline (never called)
        raise AssertionError("the trampoline's own body is not run")

    def shifted(a, out):  # a kernel calling another, as the SVM's compiled solve calls SMO and the polish
        raise AssertionError("the trampoline's own body is not run")

    scale.__module__ = shifted.__module__ = MODULE
    module.scale = mutmut_trampoline.wrap_in_trampoline(module.mutants_x_scale__mutmut)(scale)
    module.shifted = mutmut_trampoline.wrap_in_trampoline(module.mutants_x_shifted__mutmut)(shifted)
    sys.modules[MODULE] = module
    yield module
    del sys.modules[MODULE]


def _run(kernel, a):
    out = np.zeros_like(a)
    kernel(a, out)
    return out


@pytest.mark.parametrize(("under_test", "factor"), [
    ("", 2.0),  # no mutant: the original
    (f"{MODULE}.x_scale__mutmut_1", 3.0),  # this kernel's mutant
    ("mri_theory.classifiers.knn.x_scale__mutmut_1", 2.0),  # a mutant of another module
    (f"{MODULE}.x_other__mutmut_4", 2.0),  # another function's mutant
])
def test_the_compiled_call_runs_what_the_trampoline_runs(shim, mutated, monkeypatch, under_test, factor):
    monkeypatch.setenv("MUTANT_UNDER_TEST", under_test)
    a = np.arange(1.0, 6.0)
    kernel = shim.njit(cache=False, nogil=True)(mutated.scale)
    np.testing.assert_array_equal(_run(kernel, a), factor * a)
    np.testing.assert_array_equal(_run(mutated.scale, a), factor * a)  # the trampoline, in Python
    assert all(version.signatures for version in kernel.compiled.values())  # numba-compiled, not Python


def _composed(shim, module):
    """``shifted`` compiled as the package compiles a kernel calling another: a copy of its function whose
    globals name the callee's compiled dispatcher (``mri_theory.classifiers.svm._compiled_solve``)."""
    callee = shim.njit(cache=False, nogil=True)(module.scale)
    caller = module.shifted
    copy = types.FunctionType(caller.__code__, dict(vars(module), scale=callee), caller.__name__,
                              caller.__defaults__, caller.__closure__)
    return shim.njit(cache=False, nogil=True)(copy)


@pytest.mark.parametrize(("under_test", "expected"), [
    ("", lambda a: 2.0 * a + 1.0),
    (f"{MODULE}.x_scale__mutmut_1", lambda a: 3.0 * a + 1.0),  # the callee's mutant, reached through the caller
    (f"{MODULE}.x_shifted__mutmut_1", lambda a: 2.0 * a + 5.0),  # the caller's own mutant
])
def test_a_kernel_calling_a_kernel_runs_the_versions_under_test(shim, mutated, monkeypatch, under_test, expected):
    monkeypatch.setenv("MUTANT_UNDER_TEST", under_test)
    a = np.arange(1.0, 6.0)
    kernel = _composed(shim, mutated)
    np.testing.assert_array_equal(_run(mutated.shifted, a), expected(a))  # the trampolines, in Python
    np.testing.assert_array_equal(_run(kernel, a), expected(a))
    assert all(version.signatures for version in kernel.compiled.values())


def test_a_composed_kernel_follows_the_mutant_under_test_within_a_process(shim, mutated, monkeypatch):
    a = np.arange(1.0, 4.0)
    kernel = _composed(shim, mutated)
    sequence = [("", 2.0 * a + 1.0), (f"{MODULE}.x_scale__mutmut_1", 3.0 * a + 1.0), ("", 2.0 * a + 1.0)]
    for under_test, expected in sequence:
        monkeypatch.setenv("MUTANT_UNDER_TEST", under_test)
        np.testing.assert_array_equal(_run(kernel, a), expected)


def test_stats_mode_records_a_composed_kernel_and_its_callees(shim, mutated, monkeypatch):
    monkeypatch.setenv("MUTANT_UNDER_TEST", "stats")
    recorded = []
    monkeypatch.setattr(shim, "record_trampoline_hit", lambda name, caller=None: recorded.append(name))
    np.testing.assert_array_equal(_run(_composed(shim, mutated), np.arange(3.0)), 2.0 * np.arange(3.0) + 1.0)
    assert sorted(recorded) == [f"{MODULE}.x_scale", f"{MODULE}.x_shifted"]


def test_fail_mode_raises_as_the_trampoline_does(shim, mutated, monkeypatch):
    monkeypatch.setenv("MUTANT_UNDER_TEST", "fail")
    kernel = shim.njit(cache=False)(mutated.scale)
    with pytest.raises(mutmut_trampoline.MutmutProgrammaticFailException):
        _run(kernel, np.ones(3))


def test_stats_mode_records_the_call_the_trampoline_records(shim, mutated, monkeypatch):
    monkeypatch.setenv("MUTANT_UNDER_TEST", "stats")
    recorded = {"trampoline": [], "shim": []}
    monkeypatch.setattr(mutmut_trampoline, "record_trampoline_hit",
                        lambda name, caller=None: recorded["trampoline"].append((name, caller)))
    monkeypatch.setattr(shim, "record_trampoline_hit",
                        lambda name, caller=None: recorded["shim"].append((name, caller)))
    a = np.arange(3.0)
    np.testing.assert_array_equal(_run(mutated.scale, a), 2.0 * a)
    np.testing.assert_array_equal(_run(shim.njit(cache=False)(mutated.scale), a), 2.0 * a)
    assert recorded["shim"] == recorded["trampoline"] == [(f"{MODULE}.x_scale", None)]


def test_other_functions_are_compiled_as_numba_would(shim):
    def double(a):
        return 2.0 * a

    for kernel in (shim.njit(double), shim.njit(cache=False)(double)):
        assert kernel(1.5) == 3.0 and kernel.py_func is double  # a numba dispatcher of the function itself
