"""Fixtures shared by the test modules.

``own_registrations``: names a test registers are unregistered afterwards, by
the public API.  Request it in a test that registers problems, classifiers or
strategies, so that the other tests see only the names registered before.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mri_theory.classifiers import list_classifiers, unregister_classifier
from mri_theory.problems import list_problems, unregister_problem
from mri_theory.strategies import list_strategies, unregister_strategy

_KINDS = ((list_problems, unregister_problem), (list_classifiers, unregister_classifier),
          (list_strategies, unregister_strategy))


@pytest.fixture
def own_registrations() -> Iterator[None]:
    """Unregister, after the test, every name it added to a registry (built-in names cannot be removed)."""
    before = [set(listing()) for listing, _ in _KINDS]
    yield
    for (listing, unregister), names in zip(_KINDS, before):
        for name in set(listing()) - names:
            unregister(name)
