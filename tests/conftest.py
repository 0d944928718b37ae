"""Fixtures shared by the test modules.

``own_registrations``: names a test registers are unregistered afterwards, by
the public API.  Request it in a test that registers problems, classifiers or
strategies, so that the other tests see only the names registered before.

``cluster``: a 2-worker Dask LocalCluster for the tests of the Dask backend, one per test module (skipped,
naming the extra, without dask.distributed).

Optional test dependencies are skipped through ``tests/_optional.py`` (which also fixes the property tests'
examples); constants and helpers that several files share (``snapshot``, ``count_pairs``, ...) are in
``tests/_shared.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _optional import need

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
    for (listing, unregister), names in zip(_KINDS, before, strict=True):
        for name in set(listing()) - names:
            unregister(name)


@pytest.fixture(scope="module")
def cluster():
    """A 2-worker Dask LocalCluster (worker processes, one thread each), shared by the tests of a module."""
    distributed = need("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        yield cluster


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if any task (a curve's pair, an asymptotic loss, a scored state) is computed in this process."""
    from mri_theory.runners import _curves, states, study

    def refuse(*args, **kwargs):
        raise AssertionError("work started")

    monkeypatch.setattr(_curves, "run_pair", refuse)
    monkeypatch.setattr(study, "asymptotic_loss", refuse)
    monkeypatch.setattr(states, "_score_state", refuse)
