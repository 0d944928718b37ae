"""The SVM dual solver's iteration cap: the case behind the scale-out issue's warning.

``tests/data/svm_slow_smo.npz`` holds one dual problem the study met (Four-Gaussian, paper preset, 4 replicates, a
retrained machine of 97 + 1 points in MRI-best's fast path): its shifted kernel has condition number about 2e19 and
the first SMO round (gap 1e-4) needs about 11,200 steps, past the cap of ``max(10_000, 100 * points)``; the polish
after it solves the KKT equalities to a gap of 7e-16, so the solution has converged.  It used to be reported as
not converged (any round at its cap); now only a final gap beyond the tolerance is
(:class:`~mri_theory.classifiers.SVMConvergenceWarning`), and the solution is that of a solver given 10x the cap.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from mri_theory.classifiers import SVMConvergenceWarning, svm

CASE = np.load(Path(__file__).resolve().parents[1] / "data" / "svm_slow_smo.npz")


class _Case:
    """The attributes of the solver's kernel object that ``_solve`` reads; ``size`` sets its cap (100 per point)."""

    def __init__(self, size: int) -> None:
        self.K, self.extra, self.n, self.size = CASE["K"], CASE["extra"], CASE["K"].shape[0], size


def _solve(size: int):
    return svm._solve(_Case(size), CASE["s"], CASE["alpha"], CASE["G"], float(CASE["C"]), np.zeros(1, dtype=int),
                      CASE["weights"])


def _gap(alpha, G):
    """The maximal violating pair's gap of the solution (Fan, Chen & Lin 2005, Eq. 9)."""
    y, C = CASE["s"][0], float(CASE["C"]) * CASE["weights"]
    v = -y * G[0]
    up = np.where(y > 0, alpha[0] < C, alpha[0] > 0)
    low = np.where(y > 0, alpha[0] > 0, alpha[0] < C)
    return v[up].max() - v[low].min()


def test_the_case_hits_the_cap_in_a_round_but_converges_and_is_not_reported():
    assert np.linalg.cond(CASE["K"]) > 1e15  # nearly singular: the reason SMO is slow
    with warnings.catch_warnings():
        warnings.simplefilter("error", SVMConvergenceWarning)
        capped, G, b, moved = _solve(CASE["s"].shape[1])  # the cap of 10,000 steps
        generous, G_generous, b_generous, _ = _solve(1000)  # 100,000 steps: no round stops at its cap
    tolerance = 1e-11 * max(1.0, float(CASE["C"]))
    assert moved[0] and _gap(capped, G) <= tolerance and _gap(generous, G_generous) <= tolerance
    np.testing.assert_allclose(capped, generous, rtol=0, atol=1e-9)
    assert abs(b[0] - b_generous[0]) < 1e-9


def test_a_solution_outside_the_gap_is_reported(monkeypatch):
    """Without the polish (a negative slack refuses every polished solution), SMO alone does not reach the gap on
    this kernel within its 10,000 steps: the final solution is outside it, and the warning names the cap."""
    monkeypatch.setattr(svm, "_POLISH_SLACK", -1.0)
    with pytest.warns(SVMConvergenceWarning, match="stopped after 10000 iterations"):
        alpha, G, _, _ = _solve(CASE["s"].shape[1])
    assert _gap(alpha, G) > 1e-11 * max(1.0, float(CASE["C"]))
