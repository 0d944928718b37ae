"""Everything that runs and stores: the sandbox, the study, the diagnostics states.

``sandbox``          iterated AL with paired replicates, verified resumable storage (§5.2)
``study``            the §5 grid problems x classifiers x strategies x replicates, local or Dask; reports
``states``           every strategy's scores and the true Q^c in the same states
``diagnose``         the states of several classifiers and their summaries (``mri-theory diagnose``, §3.3)
``leaderboard``      every strategy beside the truth on a grid, ranked per phase (``mri-theory leaderboard``)
``asymptotic``       the asymptotic loss of a (problem, classifier) pairing (§5.3), the paper's pool rule
``noisy_selection``  learning curves of selection by noisy true Q^c (§3.3)
``schedule``         the order the study's tasks start in (longest first) and a makespan simulator

Shared by the three runners, inside this subpackage: ``_store`` (part files, checksums, settings files,
verified reads, the folder lock, timings), ``_resolve`` (names or objects -> labelled objects and their specs),
``_curves`` (one (strategy, replicate) learning curve), ``_grid`` (one scored-states folder per (problem,
classifier): the grid of ``diagnose`` and ``leaderboard``), ``_docstrings`` (the docstring text the runners
share, written once, and the decorator that fills it in).
"""
from __future__ import annotations

from mri_theory.runners.asymptotic import (
    MAX_N_TRAIN,
    MAX_POPULATION,
    MAX_REPLICATES,
    POOL_RULE,
    POOL_RULE_COLUMNS,
    POOL_RULE_REPLICATES,
    POOL_RULE_SIZES,
    POOL_RULE_TOLERANCE,
    AsymptoticPool,
    asymptotic_loss,
    asymptotic_pool_size,
    pool_rule_generator,
)
from mri_theory.runners.diagnose import SUMMARY_FILES, Diagnostics, run_diagnostics
from mri_theory.runners.leaderboard import (
    LEADERBOARD_COLUMNS,
    LEADERBOARD_FILES,
    Leaderboard,
    StoredLeaderboard,
    copy_leaderboard,
    read_leaderboard,
    run_leaderboard,
)
from mri_theory.runners.noisy_selection import (
    DEFAULT_RELATIVE_SIGMAS,
    POPULATION_SIZE,
    NoisyOracle,
    noisy_selection_curves,
)
from mri_theory.runners.sandbox import (
    RECORD_COLUMNS,
    RESULT_COLUMNS,
    SIMULATED_POOL_SIZE,
    CurveConfig,
    DamagedPartWarning,
    Execution,
    initial_labelled_set,
    read_curves,
    run_curves,
)
from mri_theory.runners.schedule import Plan, describe_plans, simulate_makespan
from mri_theory.runners.sensitivity import RECOMPUTED, SENSITIVITY_FILES, Recomputed, run_sensitivity
from mri_theory.runners.states import (
    STATE_COLUMNS,
    STATE_TIMING_COLUMNS,
    StatesPlan,
    execute_states,
    plan_states,
    read_state_timings,
    read_states,
    score_states,
)
from mri_theory.runners.study import (
    ASYMPTOTIC_COLUMNS,
    CLASSIFIER_SETS,
    PRESETS,
    PROBLEM_GROUPS,
    STRATEGY_SETS,
    StudyResults,
    default_groups,
    plan_study,
    read_study,
    registered_problem_spec,
    report,
    run_study,
    solver_stops,
    study_record,
)

__all__ = [
    "run_diagnostics",
    "Diagnostics",
    "SUMMARY_FILES",
    "run_leaderboard",
    "Leaderboard",
    "LEADERBOARD_FILES",
    "LEADERBOARD_COLUMNS",
    "StoredLeaderboard",
    "read_leaderboard",
    "copy_leaderboard",
    "asymptotic_loss",
    "asymptotic_pool_size",
    "pool_rule_generator",
    "AsymptoticPool",
    "POOL_RULE",
    "POOL_RULE_REPLICATES",
    "POOL_RULE_COLUMNS",
    "POOL_RULE_SIZES",
    "POOL_RULE_TOLERANCE",
    "MAX_N_TRAIN",
    "MAX_POPULATION",
    "MAX_REPLICATES",
    "RECORD_COLUMNS",
    "RESULT_COLUMNS",
    "SIMULATED_POOL_SIZE",
    "CurveConfig",
    "DamagedPartWarning",
    "Execution",
    "initial_labelled_set",
    "read_curves",
    "run_curves",
    "ASYMPTOTIC_COLUMNS",
    "CLASSIFIER_SETS",
    "PRESETS",
    "PROBLEM_GROUPS",
    "STRATEGY_SETS",
    "StudyResults",
    "default_groups",
    "read_study",
    "registered_problem_spec",
    "plan_study",
    "solver_stops",
    "study_record",
    "run_sensitivity",
    "Recomputed",
    "RECOMPUTED",
    "SENSITIVITY_FILES",
    "Plan",
    "describe_plans",
    "simulate_makespan",
    "report",
    "run_study",
    "STATE_COLUMNS",
    "STATE_TIMING_COLUMNS",
    "StatesPlan",
    "execute_states",
    "plan_states",
    "read_state_timings",
    "read_states",
    "score_states",
    "DEFAULT_RELATIVE_SIGMAS",
    "POPULATION_SIZE",
    "NoisyOracle",
    "noisy_selection_curves",
]
