"""Deprecated: moved to :mod:`mri_theory.evaluation.metrics` (``asymptotic_loss`` and its bounds:
:mod:`mri_theory.runners.asymptotic`); this path warns and will be removed in 0.2.0."""

from mri_theory._utils.deprecation import forward

__getattr__, __dir__, __all__ = forward(__name__, "mri_theory.evaluation.metrics",
                                        {name: "mri_theory.runners.asymptotic" for name in
                                         ("MAX_N_TRAIN", "MAX_POPULATION", "MAX_REPLICATES", "asymptotic_loss")})
