"""Closed forms and exact policies (§3 and beyond).

``two_gaussians``  the §3.2 example in closed form (L_e, Q^a, Q^c, B^c, optimal selection)
``guarantee``      §3.3: lambda = 1/2 + beta, Monte Carlo, pools and noise families
``nonmyopic``      the exact optimal multi-step AL policy on small pools (expectimax over labelled sets)
``symbolic``       sympy derivations cross-checking the closed forms
``quadrature``     independent numerical integration of the closed forms
"""
from __future__ import annotations

from mri_theory.analytic.guarantee import (
    NOISE_FAMILIES,
    BiasedNoise,
    EmpiricalNoise,
    GaussianNoise,
    HeteroscedasticNoise,
    Noise,
    SelectionSimulation,
    StudentTNoise,
    UniformNoise,
    beta,
    monte_carlo_selection_probability,
    selection_probability,
    simulate_selection,
)
from mri_theory.analytic.nonmyopic import (
    MAX_STATES,
    MAX_STATES_GENERAL,
    MAX_STATES_LIMIT,
    MAX_WIDTHS,
    OBJECTIVES,
    POLICIES,
    PolicyResult,
    optimal_policy,
    policy_value,
    policy_values,
    sample_state,
    value_curves,
)
from mri_theory.analytic.quadrature import (
    error_rate_quad,
    q_c_quad,
)
from mri_theory.analytic.two_gaussians import (
    PAPER_CASES,
    BatchChoice,
    MeanClassifier,
    TwoGaussians,
    b_c,
    error_rate,
    future_losses,
    greedy_batch,
    optimal_batch,
    optimal_selection,
    paper_cases_table,
    q_a,
    q_c,
    rs_density,
    se_selection,
    se_uncertainty,
    worst_selection,
)

# symbolic (sympy) is imported on use: ``from mri_theory.analytic import symbolic``.

__all__ = [
    "TwoGaussians",
    "MeanClassifier",
    "error_rate",
    "future_losses",
    "q_a",
    "q_c",
    "b_c",
    "BatchChoice",
    "optimal_batch",
    "greedy_batch",
    "optimal_selection",
    "worst_selection",
    "se_selection",
    "se_uncertainty",
    "rs_density",
    "PAPER_CASES",
    "paper_cases_table",
    "selection_probability",
    "beta",
    "monte_carlo_selection_probability",
    "Noise",
    "GaussianNoise",
    "StudentTNoise",
    "UniformNoise",
    "BiasedNoise",
    "HeteroscedasticNoise",
    "EmpiricalNoise",
    "NOISE_FAMILIES",
    "SelectionSimulation",
    "simulate_selection",
    "POLICIES",
    "OBJECTIVES",
    "MAX_STATES",
    "MAX_STATES_GENERAL",
    "MAX_STATES_LIMIT",
    "MAX_WIDTHS",
    "PolicyResult",
    "optimal_policy",
    "policy_value",
    "policy_values",
    "value_curves",
    "sample_state",
    "error_rate_quad",
    "q_c_quad",
]
