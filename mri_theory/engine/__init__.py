"""The future-loss engine over an evaluation population (Table 1's L', Eq. eqc).

================  ========================================================================================
``population``    evaluation sets with class-probability rows (Rao-Blackwellised losses), and the exact
                  evaluation of a Gaussian-mixture truth (``Population.exact``, :class:`ExactPopulation`)
``exact``         exact error rates and log losses of quadratic-score rules on Gaussian mixtures (1-D, 2-D)
``kernel_rules``  exact error rates of RBF-kernel rules (the SVM's class regions) on Gaussian mixtures (1-D, 2-D)
``losses``        pointwise losses and predicted classes (ties broken by ``mri_theory._utils.ties``)
``contract``      the :class:`Classifier` base class: the engine's hook ``retraining_losses``, composed from the
                  fast-path hook ``_future_losses`` (``has_fast_path``), and the refit path
``retraining``    current and future losses of any classifier (exact fast paths or refits)
``targets``       the true :math:`Q^c`, :math:`Q^a`, :math:`B^c` of a known problem; sampled :math:`Q^c` with its
                  standard error (randomised QMC), raced until the best candidate is resolved (``decisive_q_c``)
================  ========================================================================================

The engine knows problems only through the interface a :class:`~mri_theory.problems.Problem` declares
(``mri_theory.engine.population.PROBLEM_INTERFACE``), so it sits below :mod:`mri_theory.problems`.  It also
exports :class:`Registry`, the one registry type of the layers above (the problems, classifiers and strategies
by name: :data:`~mri_theory.problems.PROBLEM_REGISTRY`, :data:`~mri_theory.classifiers.CLASSIFIER_REGISTRY`,
:data:`~mri_theory.strategies.STRATEGY_REGISTRY`).
"""
from __future__ import annotations

from mri_theory._utils.registry import Registry
from mri_theory.engine.contract import (
    Classifier,
    check_points,
    check_retraining_args,
    has_fast_path,
    refit_future_losses,
)
from mri_theory.engine.exact import MixtureTruth, error_rates, log_losses
from mri_theory.engine.kernel_rules import KernelLosses, kernel_losses
from mri_theory.engine.losses import (
    LOG_LOSS_FLOOR,
    LOSSES,
    TIE_LOG_ODDS,
    check_loss,
    pointwise_loss,
    pointwise_loss_from_scores,
    predicted_class,
)
from mri_theory.engine.population import (
    ExactPopulation,
    Population,
    check_population,
    qmc_uniforms,
)
from mri_theory.engine.retraining import (
    METHODS,
    check_method,
    current_and_future_losses,
    current_loss,
    fit_on,
    future_losses,
)
from mri_theory.engine.targets import (
    DOUBLINGS,
    INDIFFERENCE,
    LEVEL,
    RESOLUTION_SCRAMBLES,
    RESOLUTION_Z,
    TRUTHS,
    DecisiveQc,
    SampledQc,
    best_is_resolved,
    choice_is_resolved,
    decisive_q_c,
    exact_truth_available,
    resolve_truth,
    sampled_q_c,
    true_b_c,
    true_q_a,
    true_q_c,
    true_q_c_and_loss,
)

__all__ = [
    "DOUBLINGS",
    "INDIFFERENCE",
    "LEVEL",
    "RESOLUTION_SCRAMBLES",
    "RESOLUTION_Z",
    "TRUTHS",
    "DecisiveQc",
    "SampledQc",
    "best_is_resolved",
    "choice_is_resolved",
    "decisive_q_c",
    "exact_truth_available",
    "resolve_truth",
    "sampled_q_c",
    "ExactPopulation",
    "KernelLosses",
    "MixtureTruth",
    "error_rates",
    "kernel_losses",
    "log_losses",
    "Population",
    "check_population",
    "qmc_uniforms",
    "LOSSES",
    "LOG_LOSS_FLOOR",
    "TIE_LOG_ODDS",
    "check_loss",
    "predicted_class",
    "pointwise_loss",
    "pointwise_loss_from_scores",
    "Classifier",
    "check_points",
    "check_retraining_args",
    "has_fast_path",
    "refit_future_losses",
    "METHODS",
    "check_method",
    "current_and_future_losses",
    "current_loss",
    "fit_on",
    "future_losses",
    "true_q_c",
    "true_q_c_and_loss",
    "true_q_a",
    "true_b_c",
    "Registry",
]
