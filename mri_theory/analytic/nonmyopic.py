r"""Beyond one step: the exact optimal (non-myopic) active learner on a small pool.

:math:`Q^c` (Eq. ``eqc``) is a one-step target: its argmax over the pool
(MRI-best, Eq. ``maximise_eqc``) is the best choice if labelling stops after
this one label.  An active learner with a budget of ``h`` more labels can plan:
the optimal ``h``-step policy picks the candidate that minimises the expected
loss after ``h`` labels, averaging over every label the oracle may return and
choosing optimally again after each (expectimax).  For a finite pool this is
computed here exactly, together with the exact expected loss of the other
policies over the same tree, and of the best non-adaptive batch of ``h``
points (:math:`B^c`, §3.1.1), so that the value of adaptivity and the cost of
greediness are separated.

**The model.**  The state after some labels is the labelled data
:math:`D_S` plus the *set* of labelled pool pairs :math:`(x_i, c_{j_i})`; the
classifier is refitted on that data set, so the state does not depend on the
order in which the labels arrived.  Each pool point's label is drawn by the
oracle from the problem's Bayes posterior :math:`\mathbf p(x)` (Table 1),
independently of the other labels (the data are i.i.d.).  With
:math:`L(s)` the true loss of the classifier in state ``s``,

.. math::
    V_0(s) = L(s), \qquad
    V_r(s) = \min_{x \in X_P \setminus s} \sum_j p_j(x)\, V_{r-1}(s \cup (x, c_j)),

and the optimal expected loss after ``h`` labels is :math:`V_h(\text{start})`.
With ``h = 1`` this is :math:`L - \max_x Q^c(x)`: MRI-best is optimal.

The paper calls :math:`Q^c` optimal "including the case of iterated AL"
(§3.1, line 459 of the source) and :math:`Q^c`, :math:`B^c` optimal "for both
single-step and iterated AL" (§3.1.1, line 513): that holds one label at a
time, for the state the learner is in.  It does not define a multi-step
optimum; the expectimax above is the standard one (a finite-horizon Markov
decision process over labelled sets), and this module measures how far
iterating the one-step optimum falls from it.

**Objectives.**  ``"final"`` (default): the expected loss after the ``h``-th
label, as above.  ``"mean"``: the expected mean of the losses after labels
``1, ..., h``, :math:`E[\frac1h \sum_{t=1}^h L(s_t)]` (the area under the
learning curve over the budget, the quantity AUA rewards; the loss before
any label is not included); its recursion adds :math:`L(s \cup (x, c_j))` to
each child's value, :math:`U_0 = 0`, and the value is :math:`U_h / h`.

**Policies** (:data:`POLICIES`), each valued exactly over the same tree:

* ``"optimal"``: the expectimax above (minimum at every node);
* ``"greedy"``: MRI-best, the argmax of the true :math:`Q^c` in every state
  (Eq. ``maximise_eqc``), i.e. the smallest expected next loss;
* ``"se"``: Shannon entropy, the pool point with the largest entropy of the
  retrained classifier's :math:`\hat{\mathbf p}` (§3.2.2);
* ``"rs"``: random selection, uniform over the remaining pool, averaged
  exactly (not sampled);
* ``"worst"``: the exact worst *adaptive* policy (maximum at every node), so
  ``optimal <= every policy <= worst``;
* ``"greedy-worst"``: MRI-worst, the argmin of the true :math:`Q^c` in every state;
* ``"batch"``: the best *non-adaptive* set of ``h`` points, exhaustive over
  all subsets: :math:`\min_R E[L(D_S \cup (x_R, Y_R))] = L - \max_R B^c(x_R)`
  (§3.1.1).  It is defined for ``objective="final"`` only (a batch is labelled
  all at once, so it has no intermediate losses); with ``"mean"`` it is refused.

The deterministic choices (greedy, SE, greedy-worst and the optimal first
choice) treat scores within :data:`~mri_theory._utils.ties.TIE_TOLERANCE` of the best
as tied (:func:`~mri_theory._utils.ties.near_maximum`) and take the lowest pool index.

**Two paths.**  On the §3.2 example (a :class:`~mri_theory.analytic.two_gaussians.TwoGaussians`
problem and a :class:`~mri_theory.analytic.two_gaussians.MeanClassifier`) the loss of a
state is the closed-form error rate (Eq. ``le_equation_1``) of the retrained
means :math:`m_j' = (n_j m_j + \sum_{i: j_i = j} x_i) / (n_j + \#\{i: j_i = j\})`,
evaluated for every state of a depth at once; a pool of 20 with ``h = 6``
(3.1 million states) takes seconds.  Any other problem and classifier take the
general path: a :class:`~mri_theory.problems.Problem`, a
:class:`~mri_theory.classifiers.Classifier`, the labelled data ``X_S, y_S`` and
a :class:`~mri_theory.engine.population.Population`; each state's classifier is
refitted on :math:`D_S` plus the state's points
(:func:`mri_theory.engine.retraining.fit_on`) and scored with
:meth:`Population.loss` (tiny pools only: at most :data:`MAX_STATES_GENERAL`
states by default).

**The computation.**  States are integer codes: bit ``m*b + i`` marks pool
point ``i`` as labelled and bits ``b*i .. b*i + b - 1`` hold its label
(``b`` bits per label, ``m`` the pool size).  Each depth is one sorted code
array, built directly in sorted order; the children of every state are found
with one :func:`numpy.searchsorted` per (point, label), and the recursion runs
bottom-up, vectorised over all the states of a depth.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Any, Protocol, cast

import numpy as np
from numpy.typing import ArrayLike

from mri_theory._utils import validation as check
from mri_theory._utils.ties import near_maximum
from mri_theory.analytic.two_gaussians import (
    MeanClassifier,
    TwoGaussians,
    error_rate_of_means,
    log_odds_of_means,
    rows_of_log_odds,
)
from mri_theory.engine.contract import Classifier
from mri_theory.engine.losses import check_loss
from mri_theory.engine.population import ExactPopulation, Population
from mri_theory.engine.retraining import fit_on
from mri_theory.engine.targets import check_truth
from mri_theory.problems import Problem
from mri_theory.strategies.builtin import entropy

__all__ = [
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
]

#: Policies :func:`policy_value` can value (see the module notes).
POLICIES: tuple[str, ...] = ("optimal", "greedy", "se", "rs", "worst", "greedy-worst", "batch")

#: Objectives: the expected loss after the last label, or the mean loss over the labels.
OBJECTIVES: tuple[str, ...] = ("final", "mean")

#: Default cap on the number of states of the tree (all depths) on the closed-form path.
MAX_STATES = 5_000_000

#: Default cap on the number of states on the general path (one refit each).
MAX_STATES_GENERAL = 20_000

#: Bits available for a state code (an int64, sign bit kept clear).
_CODE_BITS = 62

#: The largest ``max_states`` accepted: the arrays of a tree take about ``8 (m k + 3)`` bytes per state,
#: so 10^8 states of a pool of 20 already need over 30 GB.
MAX_STATES_LIMIT = 10**8

#: On the closed-form path the pool points, the classifier's means and the problem's means must be at
#: most this many sd (``problem.sigma``) in absolute value.  The retrained means are sums of these
#: values and the loss depends on their midpoint, where large terms cancel: rounding moves it by about
#: ``1e-16 * max |value|``, so far beyond this range the loss is wrong (pool points at ``+-1e17``
#: would give ``0.1587`` instead of ``0.1791``); within it the error is below ``1e-11``.
MAX_WIDTHS = 1e4

#: The parameters :func:`optimal_policy`, :func:`policy_values`, :func:`policy_value` and :func:`value_curves`
#: share, written into their docstrings where they say ``%(state)s`` and ``%(options)s``.
_PARAMETERS = {"state": """    problem : TwoGaussians or Problem
        The truth: the oracle's labels are drawn from its Bayes posterior.
        A :class:`~mri_theory.analytic.two_gaussians.TwoGaussians` selects the closed
        form (§3.2); a :class:`~mri_theory.problems.Problem` the general path.
    classifier : MeanClassifier or Classifier
        With ``TwoGaussians``: the current :class:`MeanClassifier` (its
        ``mu_hat`` and ``n`` summarise :math:`D_S`).  On the general path: a
        (template) classifier, refitted on ``X_S, y_S`` plus each state's points.
    pool : array_like
        The unlabelled pool: a 1-D sequence of points (closed form) or
        ``(m, d)`` points (general path); finite.  On the closed form the
        pool points, the classifier's means and the problem's means must be
        at most :data:`MAX_WIDTHS` times the problem's sd in absolute value
        (beyond, rounding would decide the loss).""",
               "options": """    objective : {"final", "mean"}
        Expected loss after the last label, or the expected mean loss after
        labels ``1..horizon`` (module notes).
    X_S, y_S : array_like, optional
        The labelled data (general path only).
    population : Population, optional
        Where the loss is measured (general path only; e.g. exact Bayes
        posteriors as rows, :meth:`~mri_theory.engine.Population.from_problem`).
    loss : {"error", "log", "lc"}
        The loss (``"error"`` only on the closed form).
    max_states : int, optional
        Refuse trees with more states (all depths); default
        :data:`MAX_STATES` (closed form) or :data:`MAX_STATES_GENERAL`; at
        most :data:`MAX_STATES_LIMIT`."""}


def _shared_parameters(func):
    """Write the shared parameter descriptions (:data:`_PARAMETERS`) into ``func``'s docstring."""
    for key, text in _PARAMETERS.items():
        func.__doc__ = func.__doc__.replace(f"    %({key})s", text)
    return func


@dataclass(frozen=True)
class PolicyResult:
    """The optimal ``horizon``-step policy from one state.

    Parameters
    ----------
    value : float
        The optimal expected objective (the expected loss after ``horizon``
        labels, or the expected mean loss over them).
    first_choice : int
        Index into the pool of the optimal first query (near-ties to the
        lowest index).
    first_values : ndarray (m,)
        The expected objective when querying ``pool[i]`` first and acting
        optimally afterwards; ``value == first_values.min()``.
    horizon : int
        The number of labels planned for.
    objective : str
        ``"final"`` or ``"mean"``.
    current_loss : float
        The loss before any new label, :math:`L(\\theta(D_S))`.
    n_states : tuple of int
        Number of states at depths ``0..horizon`` (``C(m, d) k^d``).

    Examples
    --------
    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, optimal_policy
    >>> problem, clf = TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9))
    >>> result = optimal_policy(problem, clf, [0.2, -0.3, 2.6, -2.8, 1.4], 2)
    >>> result.first_choice, result.horizon, result.n_states  # C(5, d) 2^d states at depth d
    (3, 2, (1, 10, 40))
    >>> result.value == float(result.first_values.min()), round(result.current_loss, 6)
    (True, 0.187672)
    """

    value: float
    first_choice: int
    first_values: np.ndarray
    horizon: int
    objective: str
    current_loss: float
    n_states: tuple[int, ...]


# --------------------------------------------------------------------------
# Models: the loss (and Shannon entropy over the pool) of many states at once
# --------------------------------------------------------------------------


class _StateModel(Protocol):
    """What the tree of states (:class:`_Tree`) uses of a model: :class:`_ClosedForm` or :class:`_Refit`.

    A state is a subset of the pool with a labelling of it (``subsets`` ``(C, d)`` and ``labellings``
    ``(K, d)`` of :meth:`_Tree._level`); each method gives one value per state, ``(C * K,)`` in state order.
    """

    #: Number of classes ``k``.
    n_classes: int

    def losses(self, subsets: np.ndarray, labellings: np.ndarray) -> np.ndarray:
        """The loss of the classifier retrained on the labelled data plus each state's labelled points."""
        ...

    def se_scores(self, subsets: np.ndarray, labellings: np.ndarray) -> np.ndarray:
        """The Shannon entropy, summed over the pool, of each state's retrained classifier (policy ``"se"``)."""
        ...


class _ClosedForm:
    """The §3.2 example: states scored by the closed-form error rate of the retrained means."""

    n_classes = 2

    def __init__(self, problem: TwoGaussians, clf: MeanClassifier, pool: np.ndarray) -> None:
        self.problem, self.clf, self.pool = problem, clf, pool

    def _means(self, subsets: np.ndarray, labellings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Retrained means ``(m_1', m_2')``, each ``(C * K,)`` in state order."""
        points = self.pool[subsets]  # (C, d)
        out = []
        for j, (m_j, n_j) in enumerate(zip(self.clf.mu_hat, self.clf.n, strict=True)):
            member = (labellings == j).astype(float)  # (K, d)
            out.append(((n_j * m_j + points @ member.T) / (n_j + member.sum(axis=1))).ravel())
        return out[0], out[1]

    def losses(self, subsets: np.ndarray, labellings: np.ndarray) -> np.ndarray:
        return error_rate_of_means(self.problem, self.clf, *self._means(subsets, labellings))

    def se_scores(self, subsets: np.ndarray, labellings: np.ndarray) -> np.ndarray:
        m1, m2 = self._means(subsets, labellings)
        r = log_odds_of_means(self.pool[None, :], m1[:, None], m2[:, None], self.clf.sigma, self.clf.log_prior_ratio)
        return entropy(rows_of_log_odds(r))


class _Refit:
    """The general path: one refit of the classifier per state, scored on the population."""

    def __init__(self, model: Classifier, pool: np.ndarray, population: Population | ExactPopulation,
                 loss: str) -> None:
        self.model, self.pool, self.population, self.loss = model, pool, population, loss
        self.n_classes = population.n_classes
        self._cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _evaluate(self, subsets: np.ndarray, labellings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        depth = subsets.shape[1]
        if depth not in self._cache:
            losses, entropies = [], []
            X0, y0, k = self.model.X_train_, self.model.y_train_, self.n_classes
            for subset in subsets:
                X = np.vstack([X0, self.pool[subset]])
                for labels in labellings:
                    refit = self.model.clone().fit(X, np.append(y0, labels), k)
                    losses.append(self.population.loss(refit, self.loss))
                    entropies.append(entropy(refit.predict_proba(self.pool)))
            self._cache[depth] = (np.array(losses), np.array(entropies))
        return self._cache[depth]

    def losses(self, subsets: np.ndarray, labellings: np.ndarray) -> np.ndarray:
        return self._evaluate(subsets, labellings)[0]

    def se_scores(self, subsets: np.ndarray, labellings: np.ndarray) -> np.ndarray:
        return self._evaluate(subsets, labellings)[1]


# --------------------------------------------------------------------------
# The tree of states, depth by depth
# --------------------------------------------------------------------------


def _labellings(depth: int, k: int) -> np.ndarray:
    """All ``k^depth`` labellings, shape ``(k^depth, depth)``; digit ``i`` has weight ``k^i``."""
    return (np.arange(k**depth)[:, None] // k ** np.arange(depth)) % k


def _n_states(m: int, depth: int, k: int) -> int:
    return math.comb(m, depth) * k**depth


class _Tree:
    """All states up to ``max_depth``, their losses and children, and the policies' choices."""

    def __init__(self, model: _StateModel, posterior: np.ndarray, max_depth: int) -> None:
        self.model, self.p = model, posterior
        self.m, self.k = posterior.shape
        self.bits = max(1, (self.k - 1).bit_length())
        self.subsets, self.labellings, self.codes, self.losses = [], [], [], []
        for d in range(max_depth + 1):
            subsets, labellings, codes = self._level(d)
            self.subsets.append(subsets)
            self.labellings.append(labellings)
            self.codes.append(codes)
            self.losses.append(model.losses(subsets, labellings))
        self.children = [self._children(d) for d in range(max_depth)]
        self._choices: dict[tuple[str, int], np.ndarray] = {}

    @property
    def n_states(self) -> tuple[int, ...]:
        return tuple(c.size for c in self.codes)

    def _level(self, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Subsets ``(C, d)`` sorted by mask, labellings ``(K, d)``, codes ``(C*K,)`` ascending.

        State ``c*K + l`` labels point ``subsets[c, i]`` with ``labellings[l, i]``.
        The mask (high bits) orders the subsets; within a subset, the label
        code and ``l`` both order labellings by the label of the largest
        point first, so the codes come out strictly increasing.
        """
        m, b = self.m, self.bits
        subsets = np.array(list(itertools.combinations(range(m), d)), dtype=np.int64).reshape(math.comb(m, d), d)
        masks = cast(np.ndarray, np.sum(np.int64(1) << subsets, axis=1, dtype=np.int64))  # (C,): summed over axis 1
        order = np.argsort(masks, kind="stable")
        subsets, masks = subsets[order], masks[order]
        labellings = _labellings(d, self.k)
        label_codes = np.zeros((subsets.shape[0], labellings.shape[0]), dtype=np.int64)
        for i in range(d):
            label_codes += labellings[None, :, i].astype(np.int64) << (b * subsets[:, i:i + 1])
        codes = ((masks << (m * b))[:, None] | label_codes).ravel()
        return subsets, labellings, codes

    def _children(self, d: int) -> np.ndarray:
        """Index at depth ``d+1`` of the child ``(x, c_j)`` of every depth-``d`` state, ``(m, k, n_d)``.

        Points already labelled get the sentinel ``n_{d+1}``.  Along the last
        axis the indices increase (adding a bit keeps the order), so gathers
        walk memory forwards.
        """
        lower, upper = self.codes[d], self.codes[d + 1]
        dtype = np.int32 if upper.size < 2**31 - 1 else np.int64
        out = np.full((self.m, self.k, lower.size), upper.size, dtype=dtype)
        offset = self.m * self.bits
        for x in range(self.m):
            free = ((lower >> (offset + x)) & 1) == 0
            base = lower[free] | (np.int64(1) << (offset + x))
            for j in range(self.k):
                out[x, j, free] = np.searchsorted(upper, base | (np.int64(j) << (self.bits * x)))
        return out

    def _free(self, d: int) -> np.ndarray:
        """``(m, n_d)``: is the point still unlabelled in the state?"""
        return self.children[d][:, 0, :] < self.codes[d + 1].size

    def _expect(self, d: int, values: np.ndarray) -> np.ndarray:
        r"""``(m, n_d)``: :math:`\sum_j p_j(x)` ``values[child(s, x, j)]``; NaN where ``x`` is labelled."""
        ext = np.append(values, np.nan)
        children = self.children[d]
        out = self.p[:, :1] * ext[children[:, 0]]
        for j in range(1, self.k):
            out += self.p[:, j:j + 1] * ext[children[:, j]]
        return out

    def _choice(self, policy: str, d: int) -> np.ndarray:
        """The pool index each deterministic policy queries in every depth-``d`` state (cached, with Q^c)."""
        key = (policy, d)
        if key not in self._choices:
            if policy == "se":
                scores = self.model.se_scores(self.subsets[d], self.labellings[d])
            else:  # the true Q^c of every candidate, Eq. eqc
                if ("q_c", d) not in self._choices:
                    self._choices["q_c", d] = self.losses[d][:, None] - self._expect(d, self.losses[d + 1]).T
                scores = self._choices["q_c", d] * (1.0 if policy == "greedy" else -1.0)
            self._choices[key] = _first_near_max(scores, self._free(d).T)
        return self._choices[key]

    def evaluate(self, horizon: int, policies: Iterable[str], objective: str) -> tuple[dict[str, float], np.ndarray]:
        """Exact values of ``policies`` at the root, and the optimal first-step values ``(m,)``."""
        mean = objective == "mean"
        adaptive = [p for p in policies if p != "batch"]
        values = {p: np.zeros(self.codes[horizon].size) if mean else self.losses[horizon] for p in adaptive}
        first = np.full(self.m, np.nan)
        for d in range(horizon - 1, -1, -1):
            stage = self.losses[d + 1] if mean else 0.0
            free = self._free(d)
            for policy in adaptive:
                child = values[policy] + stage
                if policy in ("optimal", "worst", "rs"):
                    expected = self._expect(d, child)
                    if policy == "optimal":
                        values[policy] = np.where(free, expected, np.inf).min(axis=0)
                        if d == 0:
                            first = expected[:, 0]
                    elif policy == "worst":
                        values[policy] = np.where(free, expected, -np.inf).max(axis=0)
                    else:
                        values[policy] = np.where(free, expected, 0.0).sum(axis=0) / free.sum(axis=0)
                else:
                    choice = self._choice(policy, d)
                    idx = self.children[d][choice, :, np.arange(choice.size)]  # (n_d, k)
                    values[policy] = np.sum(child[idx] * self.p[choice], axis=1)
        scale = horizon if mean else 1
        out = {p: float(values[p][0]) / scale for p in adaptive}
        if "batch" in policies:
            out["batch"] = float(np.min(self._batch_losses(horizon)))
        return out, first / scale

    def _batch_losses(self, horizon: int) -> np.ndarray:
        r"""Expected loss of every ``horizon``-subset labelled at once: :math:`L - B^c` (§3.1.1)."""
        subsets, labellings = self.subsets[horizon], self.labellings[horizon]
        weights = np.ones((subsets.shape[0], labellings.shape[0]))
        for i in range(horizon):
            weights *= self.p[subsets[:, i:i + 1], labellings[None, :, i]]
        return np.sum(weights * self.losses[horizon].reshape(weights.shape), axis=1)


def _first_near_max(scores: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Per row, the lowest free index whose score is within the tie tolerance of the row's best free score."""
    return np.argmax(near_maximum(np.where(free, scores, -np.inf)), axis=1)


# --------------------------------------------------------------------------
# Validation and the public functions
# --------------------------------------------------------------------------


def _check_objective(objective: Any) -> str:
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    return objective


def _check_policies(policies: Any, objective: str) -> tuple[str, ...]:
    if policies is None:
        return POLICIES if objective == "final" else tuple(p for p in POLICIES if p != "batch")
    if isinstance(policies, str):
        policies = (policies,)
    if isinstance(policies, (Mapping, Set)):  # unordered, or a mapping whose values would be ignored
        raise TypeError(f"policies must be a sequence of policy names, got {type(policies).__name__}")
    try:
        policies = tuple(policies)
    except TypeError:
        raise TypeError(f"policies must be a sequence of policy names, got {type(policies).__name__}") from None
    unknown = [p for p in policies if not isinstance(p, str) or p not in POLICIES]
    if unknown or not policies:
        raise ValueError(f"policies must be names from {', '.join(POLICIES)}, got {list(policies)!r}")
    repeated = sorted({p for p in policies if policies.count(p) > 1})
    if repeated:
        raise ValueError(f"policies must name each policy once, got {repeated} more than once")
    if "batch" in policies and objective != "final":
        raise ValueError("policy 'batch' (a non-adaptive batch, §3.1.1) has no intermediate losses: "
                         "it is defined for objective='final' only")
    return policies


def _check_range(problem: TwoGaussians, values: np.ndarray, name: str) -> None:
    """Refuse values above :data:`MAX_WIDTHS` sd in absolute value (the closed form's precision)."""
    reach = MAX_WIDTHS * problem.sigma
    far = values[np.abs(values) > reach]
    if far.size:
        raise ValueError(f"{name} must lie in [-{reach:g}, {reach:g}] ({MAX_WIDTHS:g} times the problem's sd, "
                         f"nonmyopic.MAX_WIDTHS), where the closed form keeps its precision; got {far[:3].tolist()}")


def _build(
    problem: Any,
    classifier: Any,
    pool: ArrayLike,
    horizon: Any,
    X_S: Any,
    y_S: Any,
    population: Any,
    loss: Any,
    max_states: Any,
    horizon_name: str = "horizon",
) -> tuple[_StateModel, np.ndarray, int]:
    """Validate everything, return the model, the pool's Bayes posterior ``(m, k)`` and the horizon."""
    make: Callable[[], _StateModel]
    if isinstance(problem, TwoGaussians):
        if not isinstance(classifier, MeanClassifier):
            raise TypeError(f"classifier must be a MeanClassifier with a TwoGaussians problem, "
                            f"got {type(classifier).__name__}")
        given = [name for name, v in (("X_S", X_S), ("y_S", y_S), ("population", population)) if v is not None]
        if given:
            raise ValueError(f"{', '.join(given)}: only for the general path (a Problem); with TwoGaussians the "
                             f"labelled data are summarised by the MeanClassifier's mu_hat and n")
        if not isinstance(loss, str) or loss != "error":
            raise ValueError(f"loss must be 'error' on the closed-form path (Eq. le_equation_1), got {loss!r}")
        pool = check.finite_array(pool, "pool")
        if pool.ndim != 1 or pool.size == 0:
            raise ValueError(f"pool must be a non-empty 1-D sequence of points, got shape {pool.shape}")
        for values, name in ((pool, "pool"), (classifier.mu_hat, "classifier.mu_hat"), (problem.mu, "problem.mu")):
            _check_range(problem, np.asarray(values, dtype=float), name)
        k = _ClosedForm.n_classes
        make = functools.partial(_ClosedForm, problem, classifier, pool)
        default_cap = MAX_STATES
    elif isinstance(problem, Problem):
        missing = [name for name, v in (("X_S", X_S), ("y_S", y_S), ("population", population)) if v is None]
        if missing:
            raise ValueError(f"{', '.join(missing)}: the general path (a Problem) needs the labelled data X_S, y_S "
                             f"and a Population to measure the loss on")
        problem, population, pool = check_truth(problem, population, pool, "pool")
        loss, k = check_loss(loss), population.n_classes
        make = lambda: _Refit(fit_on(classifier, X_S, y_S, population), pool, population, loss)  # noqa: E731
        default_cap = MAX_STATES_GENERAL
    else:
        raise TypeError(f"problem must be a TwoGaussians (closed form) or an mri_theory.problems.Problem "
                        f"(general path), got {type(problem).__name__}")
    m = pool.shape[0]
    horizon = check.count(horizon, horizon_name)
    if horizon > m:
        raise ValueError(f"{horizon_name} must be at most the pool size ({m}), got {horizon}")
    cap = default_cap if max_states is None else check.count(max_states, "max_states", maximum=MAX_STATES_LIMIT)
    if m * (1 + max(1, (k - 1).bit_length())) > _CODE_BITS:
        raise ValueError(f"pool: at most {_CODE_BITS // (1 + max(1, (k - 1).bit_length()))} points with "
                         f"{k} classes (state codes are 64-bit integers), got {m}")
    total = sum(_n_states(m, d, k) for d in range(horizon + 1))
    if total > cap:
        raise ValueError(f"{horizon_name}: the tree for a pool of {m} and horizon {horizon} has {total:,} states, "
                         f"more than max_states={cap:,}; use a smaller pool or horizon (or raise max_states)")
    return make(), problem.posterior(pool), horizon  # the classifier is fitted only now, after every check


@_shared_parameters
def optimal_policy(
    problem: TwoGaussians | Problem,
    classifier: MeanClassifier | Classifier,
    pool: ArrayLike,
    horizon: int,
    *,
    objective: str = "final",
    X_S: ArrayLike | None = None,
    y_S: ArrayLike | None = None,
    population: Population | None = None,
    loss: str = "error",
    max_states: int | None = None,
) -> PolicyResult:
    r"""The exact optimal ``horizon``-step active-learning policy from the current state (expectimax).

    Parameters
    ----------
    %(state)s
    horizon : int
        Number of labels to plan for, ``1 <= horizon <= m``.
    %(options)s

    Returns
    -------
    PolicyResult
        The optimal expected objective, the optimal first query and the tree's size.

    Raises
    ------
    ValueError
        For ``horizon`` outside ``1..m``, a non-finite or empty pool, pool
        points or classifier means out of the closed form's range, a tree
        larger than ``max_states``, or arguments of the other path.
    TypeError
        For a classifier that does not match the problem's path.

    See Also
    --------
    mri_theory.analytic.policy_values : The expected loss of the other policies over the same tree.
    mri_theory.analytic.optimal_selection : The one-step optimum on an interval.

    Examples
    --------
    With one label left, the optimal policy is MRI-best: it queries the argmax of :math:`Q^c` and
    expects the loss ``L - max Q^c``:

    >>> import numpy as np
    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, error_rate, optimal_policy, q_c
    >>> problem, clf = TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9))
    >>> pool = np.array([0.2, -0.3, 2.6, -2.8, 1.4])
    >>> one = optimal_policy(problem, clf, pool, 1)
    >>> one.first_choice, int(np.argmax(q_c(problem, clf, pool)))
    (3, 3)
    >>> round(one.value, 6), round(error_rate(problem, clf) - float(q_c(problem, clf, pool).max()), 6)
    (0.176123, 0.176123)

    Two labels plan over ``1 + 10 + 40`` states and expect a lower loss still:

    >>> two = optimal_policy(problem, clf, pool, 2)
    >>> round(two.value, 6), two.n_states
    (0.17452, (1, 10, 40))
    """
    objective = _check_objective(objective)
    model, posterior, horizon = _build(problem, classifier, pool, horizon, X_S, y_S, population, loss, max_states)
    tree = _Tree(model, posterior, horizon)
    values, first = tree.evaluate(horizon, ("optimal",), objective)
    choice = int(np.argmax(near_maximum(-first)))  # every point is free at the start
    return PolicyResult(value=values["optimal"], first_choice=choice, first_values=first, horizon=horizon,
                        objective=objective, current_loss=float(tree.losses[0][0]), n_states=tree.n_states)


@_shared_parameters
def policy_values(
    problem: TwoGaussians | Problem,
    classifier: MeanClassifier | Classifier,
    pool: ArrayLike,
    horizon: int,
    policies: Sequence[str] | None = None,
    *,
    objective: str = "final",
    X_S: ArrayLike | None = None,
    y_S: ArrayLike | None = None,
    population: Population | None = None,
    loss: str = "error",
    max_states: int | None = None,
) -> dict[str, float]:
    r"""The exact expected objective of several policies over one tree of states.

    Parameters
    ----------
    %(state)s
    horizon : int
        Number of labels to plan for, ``1 <= horizon <= m``.
    policies : sequence of str, optional
        Distinct names from :data:`POLICIES` (default: all of them, without
        ``"batch"`` when ``objective="mean"``).
    %(options)s

    Returns
    -------
    dict
        Policy name -> its expected loss after ``horizon`` labels (or the
        expected mean loss over them).

    See Also
    --------
    mri_theory.analytic.policy_value : One policy's value.
    mri_theory.analytic.value_curves : The values for every budget up to a horizon.

    Examples
    --------
    A state where planning pays: with two labels the optimal adaptive policy beats the best fixed batch,
    which beats greedy MRI-best; the exact worst policy bounds them all from above:

    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, policy_values
    >>> problem, clf = TwoGaussians(), MeanClassifier((-1.0, 1.5), (2, 2))
    >>> values = policy_values(problem, clf, [-0.5, 0.0, 1.5, 2.0], 2)
    >>> {name: round(value, 5) for name, value in values.items()}
    {'optimal': 0.16733, 'greedy': 0.16955, 'se': 0.16784, 'rs': 0.17169, 'worst': 0.17497, 'greedy-worst': 0.17497,
     'batch': 0.16784}
    >>> values["optimal"] < values["batch"] < values["greedy"] <= values["worst"]
    True
    """
    objective = _check_objective(objective)
    policies = _check_policies(policies, objective)
    model, posterior, horizon = _build(problem, classifier, pool, horizon, X_S, y_S, population, loss, max_states)
    return _Tree(model, posterior, horizon).evaluate(horizon, policies, objective)[0]


@_shared_parameters
def policy_value(
    problem: TwoGaussians | Problem,
    classifier: MeanClassifier | Classifier,
    pool: ArrayLike,
    horizon: int,
    policy: str = "optimal",
    *,
    objective: str = "final",
    X_S: ArrayLike | None = None,
    y_S: ArrayLike | None = None,
    population: Population | None = None,
    loss: str = "error",
    max_states: int | None = None,
) -> float:
    r"""The exact expected objective of one policy (a name from :data:`POLICIES`); see :func:`policy_values`.

    ``policy_value(..., policy="greedy")`` is the expected loss after
    ``horizon`` labels of MRI-best (argmax of the true :math:`Q^c` at every
    step); ``"optimal"`` equals :attr:`PolicyResult.value`.

    Parameters
    ----------
    %(state)s
    horizon : int
        Number of labels to plan for, ``1 <= horizon <= m``.
    policy : str, default "optimal"
        A name from :data:`POLICIES`.
    %(options)s

    Returns
    -------
    float
        The policy's expected loss after ``horizon`` labels (or expected mean loss over them).

    See Also
    --------
    mri_theory.analytic.policy_values : Several policies over one tree.

    Examples
    --------
    With one label, greedy MRI-best is optimal and random selection expects ``L - mean Q^c``; with two,
    the best batch expects ``L - max B^c``:

    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, error_rate, optimal_batch, policy_value, q_c
    >>> problem, clf = TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9))
    >>> pool = [0.2, -0.3, 2.6, -2.8, 1.4]
    >>> round(policy_value(problem, clf, pool, 1, "greedy"), 6), round(policy_value(problem, clf, pool, 1), 6)
    (0.176123, 0.176123)
    >>> loss = error_rate(problem, clf)
    >>> round(policy_value(problem, clf, pool, 1, "rs"), 6), round(loss - float(q_c(problem, clf, pool).mean()), 6)
    (0.185675, 0.185675)
    >>> best_batch = optimal_batch(problem, clf, pool, 2)
    >>> round(policy_value(problem, clf, pool, 2, "batch"), 6), round(loss - best_batch.b_c, 6)
    (0.174522, 0.174522)
    """
    if not isinstance(policy, str):
        raise TypeError(f"policy must be a policy name (str), got {type(policy).__name__}")
    return policy_values(problem, classifier, pool, horizon, (policy,), objective=objective, X_S=X_S, y_S=y_S,
                         population=population, loss=loss, max_states=max_states)[policy]


@_shared_parameters
def value_curves(
    problem: TwoGaussians | Problem,
    classifier: MeanClassifier | Classifier,
    pool: ArrayLike,
    max_horizon: int,
    policies: Sequence[str] | None = None,
    *,
    objective: str = "final",
    X_S: ArrayLike | None = None,
    y_S: ArrayLike | None = None,
    population: Population | None = None,
    loss: str = "error",
    max_states: int | None = None,
) -> dict[str, np.ndarray]:
    r""":func:`policy_values` for every horizon ``h = 1..max_horizon``, from one tree.

    ``out[policy][h - 1]`` is the policy's exact expected objective with budget
    ``h``.  ``"optimal"``, ``"worst"`` and ``"batch"`` are re-planned for each
    ``h`` (the optimal ``h``-step policy); greedy, SE and RS do not depend on
    the budget, so with ``objective="final"`` their entries are their expected
    losses after ``1, 2, ...`` labels (their learning curves).

    Parameters
    ----------
    %(state)s
    max_horizon : int
        The largest budget, ``1 <= max_horizon <= m``.
    policies : sequence of str, optional
        Distinct names from :data:`POLICIES` (default: all of them, without
        ``"batch"`` when ``objective="mean"``).
    %(options)s

    Returns
    -------
    dict
        Policy name -> ndarray of shape (max_horizon,), its expected objective for each budget.

    See Also
    --------
    mri_theory.analytic.policy_values : The values for one budget.

    Examples
    --------
    Random selection's expected loss after each of the first three labels, next to the optimal policy's
    for each budget:

    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, value_curves
    >>> problem, clf = TwoGaussians(), MeanClassifier((-0.5, 1.5), (9, 9))
    >>> curves = value_curves(problem, clf, [0.2, -0.3, 2.6, -2.8, 1.4], 3, ("optimal", "rs"))
    >>> curves["optimal"].round(5).tolist(), curves["rs"].round(5).tolist()
    ([0.17612, 0.17452, 0.17328], [0.18568, 0.18375, 0.18189])
    """
    objective = _check_objective(objective)
    policies = _check_policies(policies, objective)
    model, posterior, max_horizon = _build(problem, classifier, pool, max_horizon, X_S, y_S, population, loss,
                                           max_states, "max_horizon")
    tree = _Tree(model, posterior, max_horizon)
    rows = [tree.evaluate(h, policies, objective)[0] for h in range(1, max_horizon + 1)]
    return {p: np.array([row[p] for row in rows]) for p in policies}


def sample_state(
    problem: TwoGaussians, n: Sequence[int], pool_size: int, rng: np.random.Generator
) -> tuple[MeanClassifier, np.ndarray]:
    r"""A random state of the §3.2 example: a classifier fitted to ``D_S`` and an i.i.d. pool.

    ``D_S`` holds ``n = (n_1, n_2)`` points per class (the prior held fixed,
    :meth:`TwoGaussians.sample_with_counts`); the :class:`MeanClassifier`
    fitted to it knows the problem's sd and prior.  The pool is ``pool_size``
    i.i.d. draws from the problem.  Each count is at most
    ``mri_theory._utils.validation.MAX_SIZE`` (``10**8``).

    Parameters
    ----------
    problem : TwoGaussians
        The problem.
    n : (int, int)
        The labelled points per class.
    pool_size : int
        The pool's size.
    rng : Generator
        The random generator.

    Returns
    -------
    classifier : MeanClassifier
        The classifier fitted to the drawn ``D_S``.
    pool : ndarray of shape (pool_size,)
        The pool.

    Examples
    --------
    A random labelled set with three points per class and a pool of five, ready for the exact policies:

    >>> import numpy as np
    >>> from mri_theory.analytic import TwoGaussians, optimal_policy, sample_state
    >>> problem = TwoGaussians()
    >>> clf, pool = sample_state(problem, (3, 3), 5, np.random.default_rng(0))
    >>> clf.n, pool.shape
    ((3, 3), (5,))
    >>> optimal_policy(problem, clf, pool, 2).n_states
    (1, 10, 40)
    """
    if not isinstance(problem, TwoGaussians):
        raise TypeError(f"problem must be a TwoGaussians, got {type(problem).__name__}")
    if isinstance(n, (str, bytes)) or np.ndim(n) != 1 or len(n) != 2:
        raise ValueError(f"n must be a pair of counts (n_1, n_2), got {n!r}")
    n = (check.count(n[0], "n", maximum=check.MAX_SIZE), check.count(n[1], "n", maximum=check.MAX_SIZE))
    pool_size = check.count(pool_size, "pool_size", maximum=check.MAX_SIZE)
    rng = check.generator(rng)
    x, y = problem.sample_with_counts(n, rng)
    clf = MeanClassifier.fit(x, y, sigma=problem.sigma, prior=problem.prior)
    return clf, problem.sample(pool_size, rng)[0]
