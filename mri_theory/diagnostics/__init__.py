"""Deprecated: the states runner moved to :mod:`mri_theory.runners` (``score_states`` ...) and the summaries to
:mod:`mri_theory.evaluation` (``summarise_states``, ``estimator_errors``); this path warns and will be removed in
0.2.0."""

from mri_theory._utils.deprecation import forward

__getattr__, __dir__, __all__ = forward(__name__, "mri_theory.runners.states",
                                        {"estimator_errors": "mri_theory.evaluation.summaries",
                                         "summarise_states": "mri_theory.evaluation.summaries"})
