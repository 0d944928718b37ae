"""The Gauss-Kronrod rules of ``mri_theory.engine._quadrature`` against independent computations: their Gauss
nodes and weights are numpy's Gauss-Legendre rules, and each Kronrod rule integrates every polynomial up to its
degree 3n + 1 exactly (n the Gauss points), as the Kronrod extension must."""

from __future__ import annotations

import numpy as np
import pytest

from mri_theory.engine import _quadrature as q

RULES = {"7-15": (q.NODES, q.KRONROD, q.GAUSS, 7), "15-31": (q.NODES_31, q.KRONROD_31, q.GAUSS_31, 15)}


@pytest.mark.parametrize("name", list(RULES))
def test_the_gauss_points_are_numpys_gauss_legendre_rule(name):
    nodes, _, gauss, n = RULES[name]
    x, w = np.polynomial.legendre.leggauss(n)
    assert nodes.size == 2 * n + 1 and np.all(np.diff(nodes) > 0)
    np.testing.assert_allclose(nodes[1::2], x, rtol=0, atol=2e-16)
    np.testing.assert_allclose(gauss[1::2], w, rtol=0, atol=2e-15)
    assert np.all(gauss[::2] == 0)


@pytest.mark.parametrize("name", list(RULES))
def test_the_kronrod_rule_is_exact_to_degree_3n_plus_1(name):
    nodes, kronrod, _, n = RULES[name]
    for degree in range(3 * n + 2):
        exact = (1 - (-1) ** (degree + 1)) / (degree + 1)  # the integral of x**degree over [-1, 1]
        assert abs(kronrod @ nodes**degree - exact) < 1e-14, degree
    assert abs(kronrod.sum() - 2) < 1e-15 and np.allclose(nodes, -nodes[::-1], rtol=0, atol=0)
