r"""Summaries of the tidy state table: how well each strategy ranks by the true :math:`Q^c`, and its errors.

Both functions read only the table of :func:`mri_theory.runners.score_states`
(columns :data:`mri_theory.runners.STATE_COLUMNS`).  A *state* is one
(problem, classifier, trajectory, replicate, step): one labelled set
:math:`D_S` and its pool of candidates, scored by every strategy.

* :func:`summarise_states`: rank agreement of each strategy's scores with the
  true :math:`Q^c` (Eq. ``eqc``), the shortfall of its choice, and the
  empirical pairwise selection probability :math:`\hat\lambda`, comparable with
  §3.3's :math:`\lambda = \tfrac12 + \beta` (Eq. ``lambda``).
* :func:`estimator_errors`: for the strategies that estimate the future-loss
  term :math:`T_e` (SMRI, BMRI), the errors :math:`M = \hat T_e - T_e` and
  tests of §3.3's assumptions (unbiased; independent of :math:`Q^c`;
  identically distributed), with the shortfall §3.3's model predicts from the
  measured errors.

Ties.  The choice a strategy makes in a state is uniform over the candidates
whose score is :func:`mri_theory._utils.ties.near_maximum` of the state's scores,
so every quantity below is an exact expectation over that tie-break.  Rank
statistics compare values with the same tolerance: values of a state closer
than ``TIE_TOLERANCE * max(1, max |value|)`` (chained: sorted neighbours that
close) are tied, so no statistic hinges on the last bits of a floating-point
sum (for example the :math:`\pm 10^{-16}` around an exact ``0``).

Resolution.  Every statistic here is measured against the truth: the true
:math:`Q^c` and :math:`T_e` of the state table.  Where that truth is computed
on a sampled population, late in a curve the spread of :math:`Q^c` over the
candidates can be smaller than the population's noise, and the truth's own
ordering is then noise: a statistic computed from it measures the noise of
the population, not the strategy.  The optional ``resolved`` column of the
table (1.0 or 0.0, the same on every row of a state) says whether the
truth's best candidate of the state is decided: with a sampled truth,
whether the race of :func:`mri_theory.engine.targets.decisive_q_c` (recorded
by :func:`mri_theory.runners.score_states`) resolved it (every rival beaten
by more than 3 standard errors of their paired difference, tied exactly, or,
with that confidence, better by less than 5 % of the spread of :math:`Q^c`,
so that the truth's own normalised shortfall is at most 0.05); with exact
truth (:meth:`mri_theory.engine.Population.exact`) every state is resolved.  By
default (``resolved_only=True``) both summaries compute their statistics
over the resolved states only, and report the fraction of resolved states
(column ``resolved``).  A table without the column (written before it
existed, or built by hand) counts every state as resolved.  The flag judges
the top of the truth's ordering, on which the choice depends; the lower ranks
of a resolved state may still be noisy, so the exclusion removes the states
known to be noise, not all of the noise.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd
from scipy import stats

from mri_theory._utils import validation as check
from mri_theory._utils.ties import near_maximum, tie_classes
from mri_theory.analytic.guarantee import EmpiricalNoise, simulate_selection

__all__ = ["estimator_errors", "summarise_states"]

#: The columns that identify a state.
_STATE = ["problem", "classifier", "trajectory", "replicate", "step"]
#: The key columns that hold names, and those that hold counts (integers >= 0).
_NAMES = ["problem", "classifier", "trajectory", "strategy"]
_COUNTS = ["replicate", "step", "n_labelled", "candidate"]
#: The largest ``n_draws`` of :func:`estimator_errors`: its Monte Carlo standard error is then at most
#: ``(max Q - min Q) / 2000`` in every state; more draws only cost time.
MAX_DRAWS = 10**6
#: The rows of an aggregated summary: one curve position of one strategy.
_GROUP = ["problem", "classifier", "trajectory", "strategy", "n_labelled"]
_RANKING = ["spearman", "kendall", "shortfall", "normalised_shortfall", "lambda_hat", "top_k_hit"]
_ERRORS = ["bias", "sd", "relative_bias", "corr_m_q", "corr_m_q_p", "corr_abs_q", "corr_abs_q_p", "p_identical",
           "measured_shortfall", "predicted_shortfall_iid", "predicted_shortfall_gaussian"]
#: Per-state p-values are combined by the verdicts, not averaged.
_ERRORS_AVERAGED = [c for c in _ERRORS if not c.endswith("_p") and c != "p_identical"]
#: Significance level of every verdict of :func:`estimator_errors`.
ALPHA = 0.05


@dataclass(frozen=True)
class _Block:
    """One strategy's scores in one state, sorted by candidate."""

    state: tuple
    strategy: str
    n_labelled: Any
    q: np.ndarray
    score: np.ndarray
    t_e: np.ndarray
    t_e_estimate: np.ndarray
    resolved: bool


# ------------------------------------------------------------------ the table


def _resolved_flags(states: pd.DataFrame) -> np.ndarray:
    """The ``resolved`` column as floats 1.0/0.0 (all 1.0 when the table has no such column); refuses other values."""
    if "resolved" not in states.columns:
        return np.ones(len(states))
    raw = states["resolved"].to_numpy()
    values = raw.astype(float) if raw.dtype.kind == "b" else check.real_array(raw, "states['resolved']")
    wrong = ~np.isin(values, (0.0, 1.0))  # NaN and inf included
    if np.any(wrong):
        raise ValueError("states['resolved'] must be 1.0 (resolved) or 0.0 (not resolved) on every row, got "
                         f"{pd.unique(values[wrong])[:3].tolist()}")
    return values


def _blocks(states: Any, errors: bool) -> list[_Block]:
    """Validate the tidy table (all of it, before any statistic) and split it into (state, strategy) blocks."""
    needed = _STATE + ["n_labelled", "strategy", "candidate", "score", "true_q_c", "loss"]
    needed += ["t_e", "t_e_estimate"] if errors else []
    check.data_frame(states, "states", needed)
    repeated = sorted({str(c) for c in states.columns[states.columns.duplicated()]})
    if repeated:
        raise ValueError(f"states has the columns {repeated} more than once")
    keys = _STATE + ["n_labelled", "strategy", "candidate"]
    missing = [c for c in keys if states[c].isna().any()]
    if missing:
        raise ValueError(f"states has missing values in the key columns {missing}")
    for c in _NAMES:
        if not all(isinstance(v, str) for v in states[c]):
            bad = next(v for v in states[c] if not isinstance(v, str))
            raise TypeError(f"states[{c!r}] must hold names (str), got {bad!r} ({type(bad).__name__})")
    for c in _COUNTS:
        values = check.finite_array(states[c].to_numpy(), f"states[{c!r}]")
        if np.any(values < 0) or np.any(values != np.round(values)):
            wrong = (values < 0) | (values != np.round(values))
            raise ValueError(f"states[{c!r}] must hold integers >= 0, got {values[wrong][:3].tolist()}")
    col = {c: check.finite_array(states[c].to_numpy(), f"states[{c!r}]")
           for c in ("candidate", "score", "true_q_c", "loss")}
    if np.any(col["loss"] < 0):
        raise ValueError(f"states['loss'] must be >= 0 (a loss), got {col['loss'][col['loss'] < 0][:3].tolist()}")
    if errors:
        col["t_e"] = check.real_array(states["t_e"].to_numpy(), "states['t_e']")
        col["t_e_estimate"] = check.real_array(states["t_e_estimate"].to_numpy(), "states['t_e_estimate']")
    else:
        col["t_e"] = col["t_e_estimate"] = np.full(len(states), np.nan)
    resolved = _resolved_flags(states)
    n_labelled = states["n_labelled"].to_numpy()
    blocks, first = [], {}
    for key, rows in states.groupby(_STATE + ["strategy"], sort=False).indices.items():
        state, strategy = tuple(key[:-1]), key[-1]
        rows = rows[np.argsort(col["candidate"][rows], kind="stable")]
        cand = col["candidate"][rows]
        where = f"states: state {dict(zip(_STATE, state, strict=True))}, strategy {strategy!r}"
        if rows.size < 2:
            raise ValueError(f"{where} has {rows.size} candidate; every state needs at least 2")
        if np.any(np.diff(cand) == 0):
            raise ValueError(f"{where} lists a candidate twice")
        if np.unique(n_labelled[rows]).size != 1:
            raise ValueError(f"{where} has more than one n_labelled")
        if np.unique(resolved[rows]).size != 1:
            raise ValueError(f"{where} has more than one value of resolved (a state is resolved or not, on every row)")
        block = _Block(state, strategy, n_labelled[rows[0]], col["true_q_c"][rows], col["score"][rows],
                       col["t_e"][rows], col["t_e_estimate"][rows], bool(resolved[rows[0]]))
        if state not in first:
            first[state] = (cand, block)
        else:
            cand0, block0 = first[state]
            if not np.array_equal(cand, cand0):
                raise ValueError(f"{where}: its candidates differ from those of strategy {block0.strategy!r} "
                                 "in the same state (all strategies must score the same candidates)")
            if not np.array_equal(block.q, block0.q):
                raise ValueError(f"{where}: its true_q_c differs from that of strategy {block0.strategy!r} "
                                 "in the same state")
            if block.n_labelled != block0.n_labelled:
                raise ValueError(f"{where}: its n_labelled differs from that of strategy {block0.strategy!r}")
            if block.resolved != block0.resolved:
                raise ValueError(f"{where}: its resolved differs from that of strategy {block0.strategy!r} "
                                 "in the same state")
        if errors:
            measured = np.all(np.isfinite(block.t_e_estimate)) and np.all(np.isfinite(block.t_e))
            if not (measured or np.all(np.isnan(block.t_e_estimate))):
                raise ValueError(f"{where}: t_e_estimate must be finite for every candidate or NaN for all, "
                                 "and t_e finite wherever t_e_estimate is")
        blocks.append(block)
    return blocks


def _ordered(frame: pd.DataFrame, by: list[str], states: pd.DataFrame) -> pd.DataFrame:
    """Sort ``frame`` by ``by``: text keys in order of first appearance in ``states``, numbers ascending."""
    position = {c: {v: i for i, v in enumerate(pd.unique(states[c]))}
                for c in by if not pd.api.types.is_numeric_dtype(states[c])}
    out = frame.sort_values(by, kind="stable", key=lambda s: s.map(position[s.name]) if s.name in position else s)
    return out.reset_index(drop=True)


# ------------------------------------------------------------------ per-state statistics


def _shortfall(q: np.ndarray, score: np.ndarray) -> float:
    """:math:`E[\\max Q - Q(\\text{choice})]`, the choice uniform over the near-maxima of ``score``.

    Differences first, so an optimal choice (exactly tied with the best ``Q``) gives exactly ``0``.
    """
    return float(np.mean(q.max() - q[near_maximum(score)]))


def _rank_correlations(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Spearman and Kendall tau-b of tie classes ``a`` (scores) against ``b`` (Q); see :func:`summarise_states`."""
    if np.all(b == b[0]):
        return np.nan, np.nan
    if np.all(a == a[0]):
        return 0.0, 0.0
    return float(stats.spearmanr(a, b).statistic), float(stats.kendalltau(a, b).statistic)


def _ranking_row(block: _Block, top_k: int) -> dict[str, float]:
    q, score = block.q, block.score
    qc, sc = tie_classes(q), tie_classes(score)
    spearman, kendall = _rank_correlations(sc, qc)
    shortfall = _shortfall(q, score)
    spread = float(np.mean(q.max() - q))  # RS's shortfall, computed alike: a constant score gives exactly 1
    q_tied = np.all(qc == qc[0])
    better = qc[:, None] > qc[None, :]  # pairs (i, j) with Q_i > Q_j
    order = np.sign(sc[:, None] - sc[None, :])[better]  # +1 the score agrees, 0 tied, -1 reversed
    lambda_hat = np.nan if q_tied else float(np.mean((order + 1) / 2))
    strictly_better = np.sum(better, axis=0)  # for each candidate, how many have a larger Q
    top_k_hit = float(np.mean(strictly_better[near_maximum(score)] < top_k))
    return {"candidates": q.size, "spearman": spearman, "kendall": kendall, "shortfall": shortfall,
            "normalised_shortfall": np.nan if q_tied else shortfall / spread,
            "lambda_hat": lambda_hat, "top_k_hit": top_k_hit}


def _block_generators(seed: int, block: _Block, n: int) -> list[np.random.Generator]:
    """Generators for one block, derived from ``seed`` and the block's own keys (not its position in the table)."""
    words = [seed] + [zlib.crc32(str(v).encode()) for v in (*block.state, block.strategy)]
    return [np.random.default_rng(s) for s in np.random.SeedSequence(words).spawn(n)]


def _spearman_with_p(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    xc, yc = tie_classes(x), tie_classes(y)
    if np.all(xc == xc[0]) or np.all(yc == yc[0]):
        return np.nan, np.nan
    res = stats.spearmanr(xc, yc)
    return float(res.statistic), float(res.pvalue)


def _errors_row(block: _Block, n_draws: int, seed: int) -> dict[str, float]:
    q = block.q
    m = block.t_e_estimate - block.t_e
    qc = tie_classes(q)
    q_tied = np.all(qc == qc[0])
    bias, sd = float(m.mean()), float(np.std(m, ddof=1))
    corr_m_q, corr_m_q_p = _spearman_with_p(m, q)
    corr_abs_q, corr_abs_q_p = _spearman_with_p(np.abs(m - np.median(m)), q)
    if q_tied:
        p_identical = np.nan
    else:
        by_q = np.lexsort((np.arange(q.size), qc))  # ascending Q; ties by candidate
        half = q.size // 2
        p_identical = float(stats.ks_2samp(m[by_q[:half]], m[by_q[-half:]]).pvalue)
    # The strategies score -T_e_hat = Q - loss - M: their estimate of Q carries the error -M (a constant
    # shift, such as the bias, never changes the choice).
    rng_iid, rng_gauss = _block_generators(seed, block, 2)
    iid = simulate_selection(q, 1.0, n_draws, rng_iid, noise=EmpiricalNoise(-(m - m.mean())))
    gauss = simulate_selection(q, sd, n_draws, rng_gauss, noise="gaussian")
    return {"candidates": q.size, "bias": bias, "sd": sd,
            "relative_bias": np.nan if q_tied else bias / float(np.std(q, ddof=1)),
            "corr_m_q": corr_m_q, "corr_m_q_p": corr_m_q_p, "corr_abs_q": corr_abs_q,
            "corr_abs_q_p": corr_abs_q_p, "p_identical": p_identical,
            "measured_shortfall": _shortfall(q, block.score),
            "predicted_shortfall_iid": float(q.max() - iid.expected_q),
            "predicted_shortfall_gaussian": float(q.max() - gauss.expected_q)}


def _per_state_frame(blocks: list[_Block], row: Callable[[_Block], dict], columns: list[str], resolved_only: bool,
                     states: pd.DataFrame) -> pd.DataFrame:
    """One row per block: its keys, ``row(block)`` (``columns`` NaN for an excluded block), then ``resolved``."""
    rows = []
    for b in blocks:
        keys = dict(zip(_STATE, b.state, strict=True), n_labelled=b.n_labelled, strategy=b.strategy)
        if b.resolved or not resolved_only:
            values = row(b)
        else:  # an unresolved state: its truth's ordering is population noise, so no statistic
            values = {"candidates": b.q.size, **dict.fromkeys(columns, np.nan)}
        rows.append({**keys, **values, "resolved": float(b.resolved)})
    return _ordered(pd.DataFrame(rows), _STATE + ["strategy"], states)


# ------------------------------------------------------------------ aggregation


def _aggregate(per: pd.DataFrame, columns: list[str], states: pd.DataFrame, resolved_only: bool) -> pd.DataFrame:
    """Mean and standard error over replicates of ``columns`` per :data:`_GROUP`; NaN values are skipped.

    ``states`` counts the states the means are over (the resolved ones with ``resolved_only``, else every one);
    ``resolved`` is the fraction of the group's states that are resolved.
    """
    grouped = per.groupby(_GROUP, sort=False)
    mean = grouped[columns].mean()
    # np.sqrt of a DataFrame is a DataFrame (pandas-stubs type the ufunc's result as an ndarray).
    se = cast(pd.DataFrame, grouped[columns].std(ddof=1) / np.sqrt(grouped[columns].count()))
    counted = grouped["resolved"].sum().round().astype(np.int64) if resolved_only else grouped.size()
    out = pd.DataFrame({"states": counted})
    for c in columns:
        out[c], out[f"{c}_se"] = mean[c], se[c]
    out["resolved"] = grouped["resolved"].mean()
    return _ordered(out.reset_index(), _GROUP, states)


def _t_test_p(values: pd.Series) -> float:
    """Two-sided one-sample t-test of mean 0; NaN with fewer than 2 finite values.

    Values without spread are the test's limit: ``p = 0`` (``|t| = inf``) unless all are 0 (``p = 1``).
    """
    v = values.to_numpy(dtype=float)
    v = v[np.isfinite(v)]
    if v.size < 2:
        return np.nan
    if np.all(v == v[0]):
        return 1.0 if v[0] == 0 else 0.0
    return float(stats.ttest_1samp(v, 0.0).pvalue)


def _fisher_p(values: pd.Series) -> float:
    """Fisher's combination of independent p-values; NaN with fewer than 2."""
    v = values.to_numpy(dtype=float)
    v = v[np.isfinite(v)]
    return float(stats.combine_pvalues(v, method="fisher").pvalue) if v.size >= 2 else np.nan


_VERDICTS = {  # verdict: (per-state column, test)
    "centred": ("relative_bias", _t_test_p),
    "independent": ("corr_m_q", _t_test_p),
    "homoscedastic": ("corr_abs_q", _t_test_p),
    "identically_distributed": ("p_identical", _fisher_p),
}


def _verdicts(per: pd.DataFrame, states: pd.DataFrame) -> pd.DataFrame:
    grouped = per.groupby(_GROUP, sort=False)
    out = pd.DataFrame(index=grouped.size().index)
    for verdict, (column, test) in _VERDICTS.items():
        p = grouped[column].agg(test)
        out[verdict] = pd.array([pd.NA if np.isnan(v) else bool(v >= ALPHA) for v in p], dtype="boolean")
        out[f"{verdict}_p"] = p
    return _ordered(out.reset_index(), _GROUP, states)


# ------------------------------------------------------------------ public


def summarise_states(
    states: pd.DataFrame, per_state: bool = False, top_k: int = 5, resolved_only: bool = True
) -> pd.DataFrame:
    r"""How well each strategy's scores rank the candidates by their true :math:`Q^c`.

    For every state and strategy, with :math:`Q` the true :math:`Q^c`
    (Eq. ``eqc``) of the state's candidates and the *choice* uniform over the
    candidates whose score is near-maximal
    (:func:`mri_theory._utils.ties.near_maximum`, the tie-break of the sandbox),
    the statistics are exact expectations over that tie-break:

    ``spearman``, ``kendall``
        Spearman's :math:`\rho` and Kendall's :math:`\tau_b` of score against
        :math:`Q` (:func:`scipy.stats.spearmanr`, :func:`scipy.stats.kendalltau`).
        A constant score vector (RS) gives ``0``, the expectation over the
        uniform tie-break (scipy would return NaN); a constant :math:`Q` gives NaN.
    ``shortfall``
        :math:`\max Q - E[Q(\text{choice})]`: ``0`` for an optimal choice.
    ``normalised_shortfall``
        ``shortfall / (max Q - mean Q)``: ``0`` optimal, ``1`` the expected
        shortfall of random selection (a constant score gives exactly ``1``),
        above ``1`` worse than RS; NaN when all :math:`Q` are tied.
    ``lambda_hat``
        Over all candidate pairs with different :math:`Q`, the probability
        that the score orders the pair like :math:`Q`, a score tie counting
        ``1/2`` (the tie-break's coin): the empirical
        :math:`\lambda = \tfrac12 + \beta` of §3.3 (Eq. ``lambda``), ``1/2``
        for RS, ``1`` for the oracle.  Pairs tied in :math:`Q` (within the tie
        tolerance, the same notion as the choice's) are excluded: either order
        is right.  NaN when all :math:`Q` are tied.
    ``top_k_hit``
        Probability that the choice is at least as good as the ``top_k``-th
        best candidate, i.e. fewer than ``top_k`` candidates have a strictly
        larger :math:`Q`.  Ties in :math:`Q` at the boundary count
        *inclusively*, so the oracle always scores ``1``, and random selection
        scores ``top_k / m`` only without ties at the boundary (more with them:
        a point tied with the ``top_k``-th best is as good a choice).

    Values of a state closer than ``TIE_TOLERANCE * max(1, max |value|)`` are
    tied for the rank statistics (chained along the sorted values), so none
    of them depends on floating-point rounding; all of them are invariant
    under strictly increasing transformations of the score that keep distinct
    scores apart.

    ``resolved_only=True`` (default): the statistics are computed over the
    *resolved* states only (column ``resolved`` of ``states``, see the module
    notes), and are NaN for an unresolved state.  An unresolved state's true
    :math:`Q^c` comes from a sampled population whose noise decides which
    candidate is the truth's best, so its ordering is population noise and any
    statistic computed from it measures that noise, not the strategy; averaging
    it in pulls the estimators toward random selection (and flatters a strategy
    that scores by that same population, MRI-best).  With exact truth every
    state is resolved, so nothing is excluded.  ``resolved_only=False`` keeps
    every state (the behaviour before the flag existed).

    Parameters
    ----------
    states : pandas.DataFrame
        The table of :func:`mri_theory.runners.score_states` (the columns
        :data:`mri_theory.runners.STATE_COLUMNS`; ``t_e`` and
        ``t_e_estimate`` are not read), each column once.  ``problem``,
        ``classifier``, ``trajectory`` and ``strategy`` hold names (str);
        ``replicate``, ``step``, ``n_labelled`` and ``candidate`` integers
        ``>= 0``; ``score``, ``true_q_c`` and ``loss`` must be finite and
        ``loss >= 0``; every (state, strategy) needs at least 2 candidates,
        each listed once, and every strategy of a state the same candidates
        with the same ``true_q_c`` and ``n_labelled``.  Optional column
        ``resolved``: 1.0 (or ``True``) for a resolved state, 0.0 (``False``)
        for an unresolved one, the same on every row of a state (every
        strategy and candidate); NaN or any other value is refused.  Without
        the column every state counts as resolved (so the output equals that of
        the same table with ``resolved`` all 1).
    per_state : bool
        ``True``: one row per state and strategy.  ``False`` (default):
        aggregated over replicates.
    top_k : int
        ``k`` of ``top_k_hit``, ``>= 1``.
    resolved_only : bool
        ``True`` (default): statistics over the resolved states only (see
        above).  ``False``: over every state.

    Returns
    -------
    pandas.DataFrame
        ``per_state=True``: the state keys (problem, classifier, trajectory,
        replicate, step), ``n_labelled``, ``strategy``, ``candidates`` (``m``),
        the statistics above (NaN for an unresolved state with
        ``resolved_only=True``) and ``resolved`` (the state's flag, 1.0 or
        0.0).  ``per_state=False``: one row per
        (problem, classifier, trajectory, strategy, n_labelled), strategies
        (and problems, classifiers, trajectories) in order of first appearance,
        ``n_labelled`` ascending; ``states`` (how many states, i.e.
        replicates, the means are over: the resolved ones with
        ``resolved_only``, every one otherwise), then for each statistic its
        mean over replicates and ``<statistic>_se``, the standard error of
        that mean (sd with ``ddof=1`` over :math:`\sqrt n`; NaN with one
        replicate), and last ``resolved``, the fraction of the group's states
        that are resolved.  NaN values (all :math:`Q` tied, or an excluded
        unresolved state) are left out of the mean and SE; a group without a
        resolved state keeps its row, with ``states`` 0, NaN statistics and
        ``resolved`` 0.

    Raises
    ------
    TypeError, ValueError
        Naming ``states``, ``per_state``, ``top_k`` or ``resolved_only``.

    See Also
    --------
    mri_theory.runners.score_states : The state table this summarises.
    mri_theory.evaluation.leaderboard : The same statistics per phase, with bootstrap intervals.

    Examples
    --------
    Score two strategies and the truth in the same states (2 replicates, after 2 and 5 selections), then summarise;
    the oracle MRI-best ranks candidates exactly as the truth does, random selection not at all:

    >>> from mri_theory.evaluation import summarise_states
    >>> from mri_theory.runners import Execution, score_states
    >>> states = score_states("four-gaussian", "lda", ["RS", "SE", "MRI-best"], replicates=2, steps=(2, 5),
    ...                       pool_size=10, population_size=500, execution=Execution(progress=False))
    >>> summary = summarise_states(states)
    >>> summary.groupby("strategy").normalised_shortfall.mean().round(6).to_dict()["MRI-best"]
    0.0
    >>> summary.groupby("strategy").spearman.mean().round(6).to_dict()["MRI-best"]
    1.0
    >>> summary.groupby("strategy").normalised_shortfall.mean().round(6).to_dict()["RS"]
    1.0
    """
    per_state = check.flag(per_state, "per_state")
    top_k = check.count(top_k, "top_k")
    resolved_only = check.flag(resolved_only, "resolved_only")
    blocks = _blocks(states, errors=False)
    per = _per_state_frame(blocks, lambda b: _ranking_row(b, top_k), _RANKING, resolved_only, states)
    return per if per_state else _aggregate(per, _RANKING, states, resolved_only)


def estimator_errors(
    states: pd.DataFrame, per_state: bool = False, n_draws: int = 2000, seed: int = 0, resolved_only: bool = True
) -> pd.DataFrame:
    r"""The errors :math:`M = \hat T_e - T_e` of the :math:`T_e` estimators, tested against §3.3's assumptions.

    Only strategies whose ``t_e_estimate`` is finite are measured (SMRI and
    BMRI, which score :math:`-\hat T_e`).  Since
    :math:`Q^c = L(\theta(D_S)) - T_e` (Eq. ``eqc``), their score is
    :math:`-\hat T_e = Q^c - M - L(\theta(D_S))`: an estimate of :math:`Q^c`
    with error :math:`-M` plus a constant.  §3.3 assumes that error unbiased
    and i.i.d. (independent of :math:`Q^c`, one distribution for every
    candidate).  Per state and strategy, over the state's ``m`` candidates:

    ``bias``, ``sd``
        Mean and sd (``ddof=1``) of :math:`M`.
    ``relative_bias``
        ``bias / sd(true_q_c)`` (``ddof=1``): the bias in units of the spread
        of :math:`Q^c` over the candidates (NaN when all :math:`Q^c` are
        tied, within the tie tolerance: a spread of rounding size would
        inflate it to :math:`10^{15}`).  Note that a bias common to all candidates of a state shifts
        every estimate alike and never changes the choice; the paper's
        unbiasedness is tested literally, but the selection is harmed only by
        errors that depend on :math:`Q^c` (the next three).
    ``corr_m_q``, ``corr_m_q_p``
        Spearman correlation of :math:`M` with :math:`Q^c` and its p-value
        (independence).
    ``corr_abs_q``, ``corr_abs_q_p``
        Spearman correlation of :math:`|M - \mathrm{median}(M)|` with
        :math:`Q^c` and its p-value (heteroscedasticity: does the spread of the
        errors depend on :math:`Q^c`?).  Both NaN when either vector is
        constant.
    ``p_identical``
        Two-sample Kolmogorov-Smirnov p-value (:func:`scipy.stats.ks_2samp`)
        of :math:`M` on the ``m // 2`` candidates with the lowest
        :math:`Q^c` against the ``m // 2`` with the highest (the middle one
        left out for odd ``m``; ties in :math:`Q^c` split by candidate index);
        NaN when all :math:`Q^c` are tied.
    ``measured_shortfall``
        The strategy's shortfall :math:`\max Q - E[Q(\text{choice})]`, as in
        :func:`summarise_states`.
    ``predicted_shortfall_iid``
        The shortfall §3.3's model predicts from the measured errors:
        :func:`mri_theory.analytic.guarantee.simulate_selection` on the state's true
        :math:`Q^c` with i.i.d. errors drawn (with replacement) from the
        centred measured errors :math:`-(M - \bar M)`
        (:class:`mri_theory.analytic.guarantee.EmpiricalNoise`), ``n_draws`` draws.
        Its gap to ``measured_shortfall`` is what the dependence of the errors
        on :math:`Q^c` costs (or gains).
    ``predicted_shortfall_gaussian``
        The same with the paper's Gaussian errors of sd ``sd``.

    The simulations are deterministic: each (state, strategy) uses generators
    derived from ``seed`` and its own keys (so subsetting the table does not
    change them); their Monte Carlo standard error is at most
    ``(max Q - min Q) / (2 sqrt(n_draws))``.

    Aggregated (``per_state=False``), per (problem, classifier, trajectory,
    strategy, n_labelled): ``states`` (replicates), the mean and
    ``<column>_se`` (standard error over replicates, NaN with one) of
    ``bias``, ``sd``, ``relative_bias``, ``corr_m_q``, ``corr_abs_q`` and the
    three shortfalls, and four verdicts at level ``ALPHA = 0.05``, each with
    the p-value it used (``<verdict>_p``), missing (``pd.NA``) with fewer than
    2 replicates where the statistic is defined:

    ``centred``
        One-sample t-test across replicates that the mean per-state
        ``relative_bias`` is 0; ``True`` when ``p >= 0.05``.  Replicates that
        all give the same value are the test's limit: ``p = 0`` (for example
        ``corr_m_q = 1`` in every replicate), or ``p = 1`` if that value is 0.
    ``independent``
        The same t-test for the per-state ``corr_m_q``.
    ``homoscedastic``
        The same t-test for the per-state ``corr_abs_q``.
    ``identically_distributed``
        Fisher's combination (:func:`scipy.stats.combine_pvalues`) of the
        per-state ``p_identical`` of the replicates (independent states);
        ``True`` when the combined ``p >= 0.05``.

    A ``True`` verdict means only that the test found no evidence against
    the assumption with this many replicates.

    ``resolved_only=True`` (default): as in :func:`summarise_states`, only
    the resolved states are measured (every column above and every verdict;
    an unresolved state's row has NaN statistics and is left out of the
    means, SEs and tests).  All of them are measured against the truth:
    :math:`M` is the distance to the sampled :math:`T_e`, and the tests
    correlate it with the sampled :math:`Q^c`, so in a state whose truth
    ordering is population noise they measure that noise (a sampled
    :math:`T_e` carries the population's error into :math:`M`, which then
    looks dependent on :math:`Q^c`).  With exact truth nothing is excluded.
    ``resolved_only=False``: every state (the behaviour before the flag
    existed).

    Parameters
    ----------
    states : pandas.DataFrame
        The table of :func:`mri_theory.runners.score_states`, as for
        :func:`summarise_states`; in addition ``t_e_estimate`` must, for each
        (state, strategy), be finite for every candidate or NaN for all, with
        ``t_e`` finite where it is finite, and at least one strategy must have
        it finite.  The optional column ``resolved`` as in
        :func:`summarise_states`.
    per_state : bool
        ``True``: one row per state and measured strategy.
    n_draws : int
        Monte Carlo draws of each predicted shortfall, ``1 <= n_draws <=``
        ``MAX_DRAWS`` (``10**6``).
    seed : int
        ``>= 0``; the root of every simulation's generator.
    resolved_only : bool
        ``True`` (default): only the resolved states are measured (see
        above).  ``False``: every state.

    Returns
    -------
    pandas.DataFrame
        Keys as in :func:`summarise_states`, then the columns above;
        per state: ``candidates``, the per-state columns, ``resolved`` (the
        state's flag); aggregated: ``states`` (the states the means are over, as in
        :func:`summarise_states`), the
        means and SEs, the verdicts and their p-values, and last ``resolved``
        (the fraction of the group's states that are resolved).

    Raises
    ------
    TypeError, ValueError
        Naming ``states``, ``per_state``, ``n_draws``, ``seed`` or
        ``resolved_only``.

    See Also
    --------
    mri_theory.analytic.simulate_selection : The guarantee's selection with i.i.d. errors, which this feeds.

    Examples
    --------
    The errors M of SMRI's estimates of T_e, per position of the curve (one row per :math:`|D_S|`):

    >>> from mri_theory.evaluation import estimator_errors
    >>> from mri_theory.runners import Execution, score_states
    >>> states = score_states("four-gaussian", "lda", ["SMRI"], replicates=2, steps=(2, 5), pool_size=10,
    ...                       population_size=500, execution=Execution(progress=False))
    >>> errors = estimator_errors(states, n_draws=200)
    >>> errors[["strategy", "n_labelled", "states"]].to_dict("list")
    {'strategy': ['SMRI', 'SMRI'], 'n_labelled': [4, 7], 'states': [2, 2]}
    >>> verdicts = ("centred", "independent", "homoscedastic", "identically_distributed")
    >>> [column for column in verdicts if column in errors]
    ['centred', 'independent', 'homoscedastic', 'identically_distributed']
    """
    per_state = check.flag(per_state, "per_state")
    n_draws = check.count(n_draws, "n_draws", maximum=MAX_DRAWS)
    seed = check.count(seed, "seed", minimum=0)
    resolved_only = check.flag(resolved_only, "resolved_only")
    blocks = [b for b in _blocks(states, errors=True) if np.isfinite(b.t_e_estimate[0])]
    if not blocks:
        raise ValueError("states has no strategy with a finite t_e_estimate (SMRI or BMRI)")
    per = _per_state_frame(blocks, lambda b: _errors_row(b, n_draws, seed), _ERRORS, resolved_only, states)
    if per_state:
        return per
    out = _aggregate(per, _ERRORS_AVERAGED, states, resolved_only).merge(_verdicts(per, states), on=_GROUP,
                                                                         sort=False)
    return out[[c for c in out.columns if c != "resolved"] + ["resolved"]]
