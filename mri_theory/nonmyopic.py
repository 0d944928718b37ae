"""Deprecated: moved to :mod:`mri_theory.analytic.nonmyopic`; this path warns and will be removed in 0.2.0."""

from mri_theory._utils.deprecation import forward

__getattr__, __dir__, __all__ = forward(__name__, "mri_theory.analytic.nonmyopic")
