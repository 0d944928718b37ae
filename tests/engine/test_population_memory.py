"""A population's size is refused, naming ``size``, when it cannot fit in memory (issue 40).

``sampled_q_c``/``Population.from_problem`` at ``size = 10**8`` (within ``MAX_SIZE``) ended in a ``MemoryError``.
The estimate (:func:`mri_theory._utils.limits.population_bytes`) is checked against a hand count and against the
peak that :mod:`tracemalloc` measures on the built-in problems; the refusal against a memory made small by hand.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from mri_theory._utils import limits
from mri_theory.classifiers import LDA
from mri_theory.engine import Population
from mri_theory.engine.targets import sampled_q_c
from mri_theory.problems import get_problem

GiB = 2**30


def test_the_estimate_is_the_documented_count() -> None:
    four = get_problem("four-gaussian")  # d = 2, k = 2: 32 * (2 * 2 + 2 + 2) = 256 bytes per point, plus 64 MiB
    assert limits.population_bytes(four, 10**8, "sample") == 256 * 10**8 + 2**26
    assert limits.population_bytes(four, 10**8, "qmc") == 256 * 2**27 + 2**26  # Sobol': the next power of two
    assert limits.population_bytes(four, 2**20, "qmc") == 256 * 2**20 + 2**26
    two = get_problem("two-gaussians")  # d = 1, k = 2: 32 * 6
    assert limits.population_bytes(two, 1000, "sample") == 192_000 + 2**26


@pytest.mark.parametrize("name", ["two-gaussians", "four-gaussian", "three-gaussians", "oscillating", "triangles"])
@pytest.mark.parametrize("method", ["sample", "qmc"])
def test_the_estimate_covers_the_measured_peak(name: str, method: str) -> None:
    problem, size = get_problem(name), 2**18
    tracemalloc.start()
    try:
        Population.from_problem(problem, size, np.random.default_rng(0), method=method)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= limits.population_bytes(problem, size, method) - limits.POPULATION_OVERHEAD_BYTES  # per point
    small = 1000  # a small population: its buffers, within the fixed allowance
    tracemalloc.start()
    try:
        Population.from_problem(problem, small, np.random.default_rng(0), method=method)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= limits.population_bytes(problem, small, method)


def test_a_size_beyond_the_memory_is_refused_naming_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "available_memory", lambda: 16 * GiB)
    four = get_problem("four-gaussian")
    for method in ("sample", "qmc"):  # 10**8 points need 23.8 GiB (sample) or 32 GiB (qmc) by the count above
        with pytest.raises(ValueError, match=r"^size=100_000_000 needs about \d.* GiB .* only 16 GiB .* smaller size"):
            Population.from_problem(four, 10**8, np.random.default_rng(0), method=method)
    small = Population.from_problem(four, 1000, np.random.default_rng(0))  # 256 kB: fits
    assert small.size == 1000


def test_sampled_q_c_refuses_before_fitting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "available_memory", lambda: 8 * GiB)
    four = get_problem("four-gaussian")
    X, y = four.sample(10, np.random.default_rng(1))

    class Spy(LDA):
        fitted = 0

        def fit(self, *args, **kwargs):
            Spy.fitted += 1
            return super().fit(*args, **kwargs)

    with pytest.raises(ValueError, match=r"^size=100_000_000 needs about .* GiB for each scramble's population"):
        sampled_q_c(four, Spy(), X, y, X[:2], size=10**8, scrambles=2, rng=np.random.default_rng(2))
    assert Spy.fitted == 0


def test_an_unknown_memory_checks_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "available_memory", lambda: None)
    limits.check_memory(10**30, "size", 10**8, "anything")  # no limit known: nothing refused
    assert limits.available_memory() is None
