"""Optional test dependencies, skipped one way everywhere: with a reason naming the extra that brings them.

With only ``pip install -e .`` and pytest, the suite still collects; what needs a missing module is
skipped with ``"<module> is not installed: pip install -e \".[test]\""``.

* :func:`requires` -- a skip mark for a test (or ``pytestmark``) that needs a module;
* :func:`need` -- import a module inside a test or fixture, skipping if it is missing (at module level
  only where the whole file needs it);
* ``given``, ``settings``, ``example``, ``assume``, ``HealthCheck``, ``st``, ``hnp`` -- hypothesis's own when it
  is installed; otherwise stand-ins with which the test module still imports and each ``@given`` test is
  collected as skipped (the other tests of the module run).  Its examples are fixed (the profile "deterministic",
  hypothesis's ``derandomize``), so the suite passes or fails the same way on every run: several property tests
  compare Monte Carlo estimates with 4-SE bands, whose false alarms fresh draws would meet now and then (one did:
  ``test_monte_carlo_agrees_on_drawn_values``); ``MRI_THEORY_HYPOTHESIS=explore`` draws fresh examples, to search
  further by hand.  (``tests/conftest.py`` imports this module, so the profile is loaded before any test module.)
"""

from __future__ import annotations

import importlib.util
import inspect
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

#: The extra that brings every optional test dependency (pyproject.toml, [project.optional-dependencies]).
TEST_EXTRA = "test"


def reason(module: str, extra: str = TEST_EXTRA) -> str:
    """The skip reason for a missing ``module``: it names the extra to install."""
    return f'{module} is not installed: pip install -e ".[{extra}]"'


def installed(module: str) -> bool:
    """Whether ``module`` can be found (without importing it; a parent package is imported)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # a missing parent package, or an import blocked by a finder
        return False


def requires(module: str, extra: str = TEST_EXTRA) -> pytest.MarkDecorator:
    """A mark skipping the test when ``module`` is not installed."""
    return pytest.mark.skipif(not installed(module), reason=reason(module, extra))


def need(module: str, extra: str = TEST_EXTRA) -> ModuleType:
    """Import and return ``module``, or skip the calling test (or the whole file, at module level)."""
    return pytest.importorskip(module, reason=reason(module, extra))


try:
    from hypothesis import HealthCheck, assume, example, given, settings
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    settings.register_profile("deterministic", derandomize=True)
    settings.register_profile("explore")
    settings.load_profile(os.environ.get("MRI_THEORY_HYPOTHESIS", "deterministic"))
except ImportError:
    class _Absent:
        """Stands in for a hypothesis strategy, module or setting: any attribute, call or ``|`` gives itself."""

        def __getattr__(self, name: str) -> _Absent:
            if name.startswith("__"):
                raise AttributeError(name)
            return self

        def __call__(self, *args: Any, **kwargs: Any) -> _Absent:
            return self

        def __or__(self, other: Any) -> _Absent:
            return self

        __ror__ = __or__

    st = hnp = HealthCheck = _Absent()

    def given(*args: Any, **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Replace the test by a skipped one with the same name, marks and non-hypothesis arguments."""
        def skipped(test: Callable[..., Any]) -> Callable[..., Any]:
            params = [p for p in inspect.signature(test).parameters.values() if p.name not in kwargs]
            params = params[:len(params) - len(args)]  # positional strategies fill the rightmost arguments

            def stand_in(*_args: Any, **_kwargs: Any) -> None:
                pytest.skip(reason("hypothesis"))

            stand_in.__name__, stand_in.__qualname__ = test.__name__, test.__qualname__
            stand_in.__module__, stand_in.__doc__ = test.__module__, test.__doc__
            stand_in.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
            stand_in.pytestmark = list(getattr(test, "pytestmark", []))  # type: ignore[attr-defined]
            return pytest.mark.skip(reason=reason("hypothesis"))(stand_in)
        return skipped

    def settings(*args: Any, **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Leave the test as it is."""
        return lambda test: test

    example = settings

    def assume(condition: object) -> bool:
        """Not reached: the tests that call it are skipped."""
        return True
