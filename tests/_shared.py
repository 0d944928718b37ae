"""Constants and helpers that several test files share (importable: ``pythonpath = ["tests"]``).

Fixtures shared by several files are in ``tests/conftest.py``.
"""

from __future__ import annotations

from pathlib import Path

from mri_theory.runners import _curves

#: The Gaussian plug-in classifiers (one fitted-parameter fast path for their future losses).
GAUSSIAN_CLASSIFIERS = ("lda", "qda", "nb", "mean")


def snapshot(folder: Path) -> dict:
    """Every file under ``folder`` by relative path, as bytes; a study's ``timings.csv`` (the measured seconds
    of its tasks, different in every run) by its rows' keys only."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            if p.name == "timings.csv":
                data = b"\n".join(sorted(line.rsplit(b",", 2)[0] for line in data.splitlines()))
            out[p.relative_to(folder)] = data
    return out


def count_pairs(monkeypatch) -> list:
    """Record the (strategy, replicate) pairs that ``run_curves`` computes."""
    calls = []
    original = _curves.run_pair

    def counting(cfg, strategy, replicate):
        calls.append((strategy, replicate))
        return original(cfg, strategy, replicate)

    monkeypatch.setattr(_curves, "run_pair", counting)
    return calls
