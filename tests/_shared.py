"""Constants and helpers that several test files share (importable: ``pythonpath = ["tests"]``).

Fixtures shared by several files are in ``tests/conftest.py``.
"""

from __future__ import annotations

from pathlib import Path

from mri_theory.runners import _curves

#: The Gaussian plug-in classifiers (one fitted-parameter fast path for their future losses).
GAUSSIAN_CLASSIFIERS = ("lda", "qda", "nb", "mean")


def snapshot(folder: Path) -> dict:
    """Every file under ``folder`` by relative path, as bytes."""
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def count_pairs(monkeypatch) -> list:
    """Record the (strategy, replicate) pairs that ``run_curves`` computes."""
    calls = []
    original = _curves.run_pair

    def counting(cfg, strategy, replicate):
        calls.append((strategy, replicate))
        return original(cfg, strategy, replicate)

    monkeypatch.setattr(_curves, "run_pair", counting)
    return calls
