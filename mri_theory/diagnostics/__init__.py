r"""How good are the estimators of optimal AL?  Practical strategies measured against the true :math:`Q^c`.

The paper (*Estimating Optimal Active Learning*) proposes SMRI and BMRI as
estimators of :math:`Q^c` (Eq. ``eqc``) and argues in §3.3 that an unbiased
estimator with independent, identically distributed errors beats random
selection.  With the truth at hand we can measure both: how well each
strategy's scores rank the candidates by their true :math:`Q^c`, and what the
errors :math:`M = \hat T_e - T_e` of the :math:`T_e` estimators look like.

:func:`score_states` follows reference trajectories (random selection by
default, so that every state is a typical state) and, at chosen steps, scores
every remaining pool point with every strategy *and* computes its true
:math:`Q^c`; :func:`summarise_states` and :func:`estimator_errors` turn that
tidy table into per-state and per-curve-position statistics.
:func:`read_states` reads a stored table back, verified.
``score_states(...)`` is ``execute_states(plan_states(...))``: the plan holds
every checked argument, so several calls can be checked before any runs.
:class:`Execution` (also :class:`mri_theory.sandbox.Execution`) says where
the states are scored.
"""

from mri_theory.diagnostics.states import (
    STATE_COLUMNS,
    Execution,
    StatesPlan,
    execute_states,
    plan_states,
    read_states,
    score_states,
)
from mri_theory.diagnostics.summaries import estimator_errors, summarise_states

__all__ = ["STATE_COLUMNS", "Execution", "StatesPlan", "estimator_errors", "execute_states", "plan_states",
           "read_states", "score_states", "summarise_states"]
