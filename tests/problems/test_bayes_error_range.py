"""The Bayes-error quadrature at the edges of its range (issue 40), against closed forms.

Two isotropic Gaussian classes of equal prior and sd ``sigma`` whose means are ``delta`` apart have
:math:`L^* = \\Phi(-\\delta / (2\\sigma))`, wherever they sit; identical classes have :math:`L^* = 1/2`. Before,
narrow classes far from the origin lost their integration box to rounding (1.0 or 0.0 for two identical classes
of variance 1e-34 at (3, 3)), and a mixture spanning 10^50 standard deviations ended in numpy's "Maximum allowed
size exceeded".
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, settings, st
from scipy import stats

from mri_theory.problems import mixture_bayes_error


def two_classes(centre: float, delta: float, variance: float, dim: int) -> float:
    """:func:`mixture_bayes_error` of N(c, v I) against N(c + delta e_1, v I), equal priors."""
    first = np.full(dim, centre)
    second = first.copy()
    second[0] += delta
    cov = np.eye(dim) * variance
    return mixture_bayes_error([0.5, 0.5], [[1.0], [1.0]], [[first], [second]], [[cov], [cov]])


@pytest.mark.parametrize("dim", [1, 2])
@pytest.mark.parametrize("centre", [0.0, 1.0, 3.0, -100.0, 1e6])
@pytest.mark.parametrize("variance", [1e-34, 1e-100, 1e-2, 1e10])
def test_identical_classes_have_bayes_error_one_half(dim: int, centre: float, variance: float) -> None:
    assert two_classes(centre, 0.0, variance, dim) == pytest.approx(0.5, abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(
    log_sd=st.floats(min_value=-45, max_value=10),
    centre=st.floats(min_value=-1e3, max_value=1e3),
    separation=st.floats(min_value=0.0, max_value=6.0),
    dim=st.sampled_from([1, 2]),
)
def test_two_classes_match_the_closed_form(log_sd: float, centre: float, separation: float, dim: int) -> None:
    """Separation in sds; the means' difference is ``separation * sd`` (exactly representable up to rounding)."""
    sd = 10.0**log_sd
    first = centre
    second = centre + separation * sd
    delta = second - first  # the difference the floats actually hold
    if delta == 0.0 and separation > 0.0:
        return  # below the centre's ulp: the classes are identical as given
    expected = stats.norm.cdf(-delta / (2 * sd))
    assert two_classes(centre, delta, sd**2, dim) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("dim", [1, 2])
def test_a_span_beyond_the_grid_is_refused_naming_covariances(dim: int) -> None:
    cov_wide, cov_narrow = np.eye(dim) * 1e300, np.eye(dim)
    with pytest.raises(ValueError, match=r"^covariances: the mixture spans .* standard deviations"):
        mixture_bayes_error([0.4, 0.6], [[1.0], [1.0]], [[np.zeros(dim)], [np.ones(dim)]],
                            [[cov_wide], [cov_narrow]])
    # at the documented minimum variance against a unit one: refused the same way, not a numpy size error
    with pytest.raises(ValueError, match=r"^covariances: "):
        mixture_bayes_error([0.4, 0.6], [[1.0], [1.0]], [[np.zeros(dim)], [np.ones(dim)]],
                            [[np.eye(dim) * 1e-100], [cov_narrow]])

