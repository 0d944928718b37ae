r"""The leaderboard: every strategy ranked by how well it chooses, per phase of the learning curve, with intervals.

:func:`leaderboard` reads the state table of :func:`mri_theory.runners.score_states`
(columns :data:`mri_theory.runners.STATE_COLUMNS`; one or many (problem,
classifier) pairings concatenated) and summarises each strategy's per-state
statistics of :func:`mri_theory.evaluation.summarise_states` (``per_state=True``:
Spearman's :math:`\rho` and Kendall's :math:`\tau_b` of its scores against the
true :math:`Q^c` of Eq. ``eqc``, the shortfall of its choice and its normalised
shortfall, 0 for the optimal choice and 1 for random selection, the pairwise
selection probability :math:`\hat\lambda` of §3.3, and the top-k hit) over the
states of each *phase* of the curve, the phases cut by the size
:math:`|D_S|` of the labelled set (``n_labelled``): by default
:math:`|D_S| \le 12`, :math:`13 \le |D_S| \le 50`, :math:`|D_S| > 50`, and
all states together.

Anchors.  Every phase holds two reference rows, flagged ``anchor``: MRI-best,
the greedy optimum, which scores each candidate by its true :math:`Q^c`
(normalised shortfall 0, correlations 1, :math:`\hat\lambda = 1`), and RS,
whose scores are all equal, so that its choice is the uniform tie-break and
every statistic is random selection's exact expectation (normalised shortfall
exactly 1, correlations 0, :math:`\hat\lambda = 1/2`).  Where the table holds
their scores, those are used.  In a state where either was not scored, its
rows are made from the truth, as the strategy would score there: the true
:math:`Q^c` of the state's candidates for MRI-best (which scores by the same
population as the truth), a constant for RS.

Bootstrap.  The unit of resampling is the replicate: replicate ``r`` of a
(problem, classifier) pairing holds its states (its steps, every trajectory
and every strategy), whose data all come from that replicate's draw, so the
states of one replicate are not independent of each other, while replicates
are.  Each bootstrap draw resamples, in every pairing independently, its
replicates with replacement (as many as it has); a drawn replicate brings all
its states, and each state its statistics for every strategy (the design is
paired: every strategy is scored in the same states).  The statistic of a
row in a draw is the mean over the drawn states of the phase (a replicate
drawn twice counts twice), leaving out NaN values as the point estimate does;
the interval is the percentile interval of the draws at confidence ``level``
(``numpy.nanquantile``, linear interpolation), over the draws in which the
row has a value.  The draws are deterministic: ``numpy.random.default_rng(seed)``
draws ``integers(0, R, size=(n_boot, R))`` for each pairing in turn, pairings
sorted by (problem, classifier), ``R`` the pairing's number of replicates,
column ``j`` of a draw indexing the pairing's replicates in ascending order.
The weighted sums are numpy's own loops (``numpy.einsum``, no BLAS), so
their bits do not depend on the number of BLAS threads.

One replicate gives no interval.  A pairing with a single replicate tells
nothing of the variability between replicates: every draw would bring back
that replicate, and its states would add no width, as if they were certain.
So a row's interval is NaN (undefined) wherever any of its values comes from
a pairing with a single replicate (its mean is still given); with two
replicates or more in each pairing the interval is the percentile interval
above.

Cost.  The statistics above are functions of the state table, deterministic.
The cost of a strategy (CPU seconds per state) is a measurement that differs
from run to run; it is joined only when a table of timings is given
(``cost``, e.g. :func:`mri_theory.runners.read_state_timings` of each
pairing's folder), as two extra columns, and :func:`mri_theory.runners.run_leaderboard`
keeps them out of its checksummed ``leaderboard.csv``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from mri_theory._utils import validation as check
from mri_theory._utils.ties import tie_classes
from mri_theory.evaluation.metrics import BEST, REFERENCE
from mri_theory.evaluation.ranking import MAX_BOOT
from mri_theory.evaluation.summaries import summarise_states

__all__ = ["ANCHORS", "DIFFERENCE_COLUMNS", "LEADERBOARD_COST_COLUMNS", "LEADERBOARD_STATISTICS", "PHASE_EDGES",
           "STATE_STATISTICS_COLUMNS", "holm", "leaderboard", "leaderboard_options", "state_statistics",
           "strategy_differences"]

#: The default phase edges: ``|D_S| <= 12``, ``13 <= |D_S| <= 50``, ``|D_S| > 50``.
PHASE_EDGES = (12, 50)
#: The anchor rows of every phase: the greedy optimum (the truth's own choice) and random selection.
ANCHORS = (BEST, REFERENCE)
#: The per-state statistics of :func:`~mri_theory.evaluation.summarise_states` the leaderboard averages.
LEADERBOARD_STATISTICS = ("spearman", "kendall", "shortfall", "normalised_shortfall", "lambda_hat", "top_k_hit")
#: The columns a ``cost`` table must hold: a state, a strategy and its CPU seconds there.
LEADERBOARD_COST_COLUMNS = ["problem", "classifier", "trajectory", "replicate", "step", "strategy", "cpu_s"]
#: The phase of every state.
_ALL = "all"

#: The columns that identify a state, and the resampling unit's cell.
_STATE = ["problem", "classifier", "trajectory", "replicate", "step"]
_CELL = ["problem", "classifier"]


# ------------------------------------------------------------------ arguments


def _check_phases(phases: Any) -> tuple[int, ...]:
    """Strictly increasing edges, integers >= 0 (possibly none)."""
    if isinstance(phases, (str, bytes)) or not isinstance(phases, Iterable):
        raise TypeError(f"phases must be a sequence of phase edges (int), got {type(phases).__name__}")
    edges = tuple(check.count(edge, "phases", minimum=0) for edge in phases)
    if any(b <= a for a, b in zip(edges[:-1], edges[1:], strict=True)):
        raise ValueError(f"phases must be strictly increasing edges, got {list(edges)}")
    return edges


def _phase_labels(edges: Sequence[int]) -> list[str]:
    """``["≤12", "13–50", ">50"]`` for the edges ``(12, 50)``; none without edges."""
    if not edges:
        return []
    labels = [f"\u2264{edges[0]}"]
    for low, high in zip(edges[:-1], edges[1:], strict=True):
        labels.append(f"{low + 1}\u2013{high}" if high > low + 1 else f"{high}")
    return [*labels, f">{edges[-1]}"]


def leaderboard_options(
    phases: Sequence[int] = PHASE_EDGES,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    top_k: int = 5,
    resolved_only: bool = True,
) -> dict[str, Any]:
    """The options of :func:`leaderboard` checked, as keywords for it (so a runner can refuse them before work).

    Parameters
    ----------
    phases, n_boot, seed, level, top_k, resolved_only
        As in :func:`leaderboard`.

    Returns
    -------
    dict
        ``{"phases": tuple of int, "n_boot": int, "seed": int, "level": float, "top_k": int,
        "resolved_only": bool}``.

    Raises
    ------
    TypeError, ValueError
        Naming the argument.

    Examples
    --------
    >>> from mri_theory.evaluation import leaderboard_options
    >>> leaderboard_options(phases=[10, 40], n_boot=200)
    {'phases': (10, 40), 'n_boot': 200, 'seed': 0, 'level': 0.95, 'top_k': 5, 'resolved_only': True}
    """
    edges = _check_phases(phases)
    n_boot = check.count(n_boot, "n_boot", maximum=MAX_BOOT)
    seed = check.count(seed, "seed", minimum=0)
    level = check.finite_scalar(level, "level")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    top_k = check.count(top_k, "top_k")
    resolved_only = check.flag(resolved_only, "resolved_only")
    return {"phases": edges, "n_boot": n_boot, "seed": seed, "level": level, "top_k": top_k,
            "resolved_only": resolved_only}


def _checked_cost(cost: Any) -> pd.DataFrame:
    """The key columns and ``cpu_s`` of a table of timings, checked; a TypeError or ValueError naming ``cost``."""
    check.data_frame(cost, "cost", LEADERBOARD_COST_COLUMNS)
    frame = cost[LEADERBOARD_COST_COLUMNS]
    if isinstance(frame, pd.Series) or frame.shape[1] != len(LEADERBOARD_COST_COLUMNS):
        raise ValueError(f"cost has one of the columns {LEADERBOARD_COST_COLUMNS} more than once")
    for c in ("problem", "classifier", "trajectory", "strategy"):
        bad = [v for v in frame[c] if not isinstance(v, str)]
        if bad:
            raise TypeError(f"cost[{c!r}] must hold names (str), got {bad[0]!r} ({type(bad[0]).__name__})")
    keys = {}
    for c in ("replicate", "step"):
        values = check.finite_array(frame[c].to_numpy(), f"cost[{c!r}]")
        if np.any(values < 0) or np.any(values != np.round(values)):
            raise ValueError(f"cost[{c!r}] must hold integers >= 0")
        keys[c] = values.astype(np.int64)
    cpu = check.finite_array(frame["cpu_s"].to_numpy(), "cost['cpu_s']")
    if np.any(cpu < 0):
        raise ValueError("cost['cpu_s'] must hold seconds >= 0")
    out = frame.assign(cpu_s=cpu, **keys)
    if out.duplicated(LEADERBOARD_COST_COLUMNS[:-1]).any():
        raise ValueError("cost has more than one row for a (state, strategy)")
    return out


# ------------------------------------------------------------------ the table


def _anchor_states(states: pd.DataFrame) -> pd.DataFrame | None:
    """The anchors' rows of a valid state table, in the states where they were not scored: each candidate once,
    scored by its true :math:`Q^c` (MRI-best) or by a constant (RS); None when every state has both."""
    base = states.drop_duplicates(_STATE + ["candidate"])
    keys = pd.MultiIndex.from_frame(base[_STATE])
    made = []
    for name, score in ((BEST, base["true_q_c"].to_numpy(dtype=float)), (REFERENCE, np.zeros(len(base)))):
        missing = ~keys.isin(pd.MultiIndex.from_frame(states.loc[states["strategy"] == name, _STATE]))
        if missing.any():
            made.append(base[missing].assign(strategy=name, score=score[missing]))
    return pd.concat(made, ignore_index=True) if made else None


#: The columns of :func:`state_statistics`: a state's keys, its size, the strategy, the candidates, the statistics,
#: the state's resolved flag and the two options the statistics were computed with.
STATE_STATISTICS_COLUMNS = [*_STATE, "n_labelled", "strategy", "candidates", *LEADERBOARD_STATISTICS, "resolved",
                            "top_k", "resolved_only"]


def state_statistics(states: pd.DataFrame, top_k: int = 5, resolved_only: bool = True) -> pd.DataFrame:
    r"""Every strategy's statistics in every state, the anchors' made from the truth where they were not scored.

    The per-state table that :func:`leaderboard` and :func:`strategy_differences` average: the rows of
    :func:`~mri_theory.evaluation.summarise_states` (``per_state=True``) of ``states``, then those of the anchors
    MRI-best and RS in the states where the table holds no scores of theirs (module docstring, "Anchors").  It is
    small (one row per state and strategy, where the state table has one per candidate too), so
    :func:`mri_theory.runners.run_leaderboard` stores it (``statistics.csv.xz``), and either function given it in
    place of the state table returns the same bytes: every cell of a leaderboard can be recomputed from it.

    Parameters
    ----------
    states : pandas.DataFrame
        The table of :func:`mri_theory.runners.score_states` (as in :func:`leaderboard`).
    top_k : int, default 5
        ``k`` of ``top_k_hit``.
    resolved_only : bool, default True
        As in :func:`~mri_theory.evaluation.summarise_states`: NaN statistics in the unresolved states.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`STATE_STATISTICS_COLUMNS`: one row per (state, strategy), ``top_k`` and ``resolved_only``
        constant (the options, so that a reader cannot average it under others).

    Raises
    ------
    TypeError, ValueError
        Naming ``states``, ``top_k`` or ``resolved_only``.

    Examples
    --------
    >>> from mri_theory.evaluation import state_statistics
    >>> from mri_theory.runners import Execution, score_states
    >>> states = score_states("four-gaussian", "lda", ["SE"], replicates=2, steps=(2, 5), pool_size=10,
    ...                       population_size=500, execution=Execution(progress=False))
    >>> statistics = state_statistics(states)
    >>> sorted(set(statistics.strategy)), len(statistics)  # SE, and the anchors made from the truth: 4 states each
    (['MRI-best', 'RS', 'SE'], 12)
    """
    top_k = check.count(top_k, "top_k")
    resolved_only = check.flag(resolved_only, "resolved_only")
    per = summarise_states(states, per_state=True, top_k=top_k, resolved_only=resolved_only)
    made = _anchor_states(states)  # the table is valid: summarise_states checked it
    if made is not None:
        per = pd.concat([per, summarise_states(made, per_state=True, top_k=top_k, resolved_only=resolved_only)],
                        ignore_index=True)
    return per.assign(top_k=top_k, resolved_only=resolved_only)[STATE_STATISTICS_COLUMNS]


def _per_state(states: pd.DataFrame, top_k: int, resolved_only: bool) -> pd.DataFrame:
    """``states`` as its :func:`state_statistics`: computed from a state table, or checked when it is one
    (a table holding the column ``resolved_only``), its options equal to ``top_k`` and ``resolved_only``."""
    if not (isinstance(states, pd.DataFrame) and "resolved_only" in states.columns):
        return state_statistics(states, top_k, resolved_only)
    check.data_frame(states, "states", STATE_STATISTICS_COLUMNS)
    per = states[STATE_STATISTICS_COLUMNS]
    for column, value in (("top_k", top_k), ("resolved_only", resolved_only)):
        found = pd.unique(per[column])
        if len(found) != 1 or found[0] != value:
            raise ValueError(f"{column}: states (a table of state_statistics) was computed with {column} "
                             f"{', '.join(map(repr, found.tolist()))}, not {value!r}: pass {column} as the table "
                             "has it")
    for column in ("problem", "classifier", "trajectory", "strategy"):
        bad = [v for v in per[column] if not isinstance(v, str)]
        if bad:
            raise TypeError(f"states[{column!r}] must hold names (str), got {bad[0]!r}")
    numbers = ["replicate", "step", "n_labelled", "candidates", *LEADERBOARD_STATISTICS, "resolved"]
    values = per[numbers].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    counts = values[:, :4]
    if not (np.all(np.isfinite(counts)) and np.all(counts >= 0) and np.all(counts == np.round(counts))):
        raise ValueError("states (a table of state_statistics): replicate, step, n_labelled and candidates must "
                         "hold integers >= 0")
    if np.any(np.isinf(values[:, 4:])) or not np.all(np.isin(values[:, -1], (0.0, 1.0))):
        raise ValueError("states (a table of state_statistics): the statistics must be finite or NaN and resolved "
                         "0 or 1")
    if per.duplicated([*_STATE, "strategy"]).any():
        raise ValueError("states (a table of state_statistics) has more than one row for a (state, strategy)")
    return per


def _draw_weights(per: pd.DataFrame, n_boot: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(unit of each row, weights, alone)``: ``weights[b, u]`` how often draw ``b`` drew unit (pairing,
    replicate) ``u`` (module docstring: the generator's rule); ``alone[u]``: the unit is its pairing's only
    replicate."""
    rng = np.random.default_rng(seed)
    replicates = per["replicate"].to_numpy(dtype=np.int64)
    unit = np.empty(len(per), dtype=np.int64)
    blocks, alone, offset = [], [], 0
    for _, rows in sorted(per.groupby(_CELL).indices.items()):  # by (problem, classifier)
        ids = np.unique(replicates[rows])  # ascending
        r = ids.size
        unit[rows] = offset + np.searchsorted(ids, replicates[rows])
        draws = rng.integers(0, r, size=(n_boot, r))
        counts = np.bincount((draws + r * np.arange(n_boot)[:, None]).ravel(), minlength=n_boot * r)
        blocks.append(counts.reshape(n_boot, r).astype(float))
        alone.append(np.full(r, r == 1))
        offset += r
    return unit, np.concatenate(blocks, axis=1), np.concatenate(alone)


def _phase_rows(per: pd.DataFrame, rows: np.ndarray, strategies: list[str], unit: np.ndarray,
                weights: np.ndarray, alone: np.ndarray, level: float, resolved_only: bool) -> list[dict[str, Any]]:
    """One row per strategy present in ``rows`` of ``per``: means and percentile intervals of the statistics
    (NaN where a value comes from a pairing's only replicate: ``alone``)."""
    sub = per.iloc[rows]
    index = {name: i for i, name in enumerate(strategies)}
    s = sub["strategy"].map(index).to_numpy()
    u = unit[rows]
    values = sub[list(LEADERBOARD_STATISTICS)].to_numpy(dtype=float)
    finite = np.isfinite(values)
    shape = (len(strategies), weights.shape[1], len(LEADERBOARD_STATISTICS))
    total, count = np.zeros(shape), np.zeros(shape)
    np.add.at(total, (s, u), np.where(finite, values, 0.0))
    np.add.at(count, (s, u), finite.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        point = total.sum(axis=1) / count.sum(axis=1)
        boot = np.einsum("bu,suc->bsc", weights, total) / np.einsum("bu,suc->bsc", weights, count)
    tail = (1 - level) / 2
    with warnings.catch_warnings():  # a statistic without a value in any draw: NaN, not a warning
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(boot, [tail, 1 - tail], axis=0)
    undefined = np.any((count > 0) & alone[None, :, None], axis=1)  # (strategy, statistic): no variability known
    low[undefined], high[undefined] = np.nan, np.nan
    present = np.bincount(s, minlength=len(strategies))
    resolved = np.bincount(s, weights=sub["resolved"].to_numpy(dtype=float), minlength=len(strategies))
    averaged = np.rint(resolved).astype(np.int64) if resolved_only else present  # the states the means are over
    out = []
    for i, name in enumerate(strategies):
        if present[i] == 0:
            continue
        row: dict[str, Any] = {"strategy": name, "anchor": name in ANCHORS, "states": int(averaged[i]),
                               "resolved": resolved[i] / present[i]}
        for j, stat in enumerate(LEADERBOARD_STATISTICS):
            row[stat], row[f"{stat}_ci_low"], row[f"{stat}_ci_high"] = point[i, j], low[i, j], high[i, j]
        out.append(row)
    return out


def _sorted(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """By mean normalised shortfall ascending (values within the tie tolerance tied; NaN last), anchors first
    among ties, then in the given order."""
    shortfall = np.array([row["normalised_shortfall"] for row in rows], dtype=float)
    finite = np.isfinite(shortfall)
    classes = np.full(len(rows), len(rows), dtype=np.int64)
    if finite.any():
        classes[finite] = tie_classes(shortfall[finite])
    anchor = np.array([not row["anchor"] for row in rows], dtype=np.int64)
    order = np.lexsort((np.arange(len(rows)), anchor, classes))
    return [rows[i] for i in order]


def _cost_columns(per: pd.DataFrame, cost: pd.DataFrame, phase_of: np.ndarray, labels: list[str]) -> pd.DataFrame:
    """Mean ``cpu_s`` per state and ``timed_states`` per (phase, strategy), over the states of ``per`` timed."""
    keys = LEADERBOARD_COST_COLUMNS[:-1]
    timed = per[keys].astype({"replicate": np.int64, "step": np.int64}).assign(phase=phase_of).merge(
        cost, on=keys, how="inner", sort=False)
    phased = [timed.assign(phase=[labels[p] for p in timed["phase"]])] if labels else []
    both = pd.concat([*phased, timed.assign(phase=_ALL)], ignore_index=True)
    return both.groupby(["phase", "strategy"], sort=False).agg(cpu_s=("cpu_s", "mean"),
                                                               timed_states=("cpu_s", "size")).reset_index()


def leaderboard(
    states: pd.DataFrame,
    phases: Sequence[int] = PHASE_EDGES,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    top_k: int = 5,
    resolved_only: bool = True,
    cost: pd.DataFrame | None = None,
) -> pd.DataFrame:
    r"""Every strategy's mean ranking statistics per phase of the curve, with bootstrap intervals over replicates.

    For each phase (``n_labelled`` = :math:`|D_S|` cut at the ``phases``
    edges, then ``"all"``) and each strategy of ``states`` and the two
    anchors MRI-best and RS (made from the truth in the states where they
    were not scored: module docstring), the mean over the phase's states of each
    per-state statistic of :func:`~mri_theory.evaluation.summarise_states`
    (``per_state=True``; its NaN values, an unresolved state with
    ``resolved_only`` or a state whose :math:`Q^c` are all tied, left out), and
    its percentile bootstrap interval at confidence ``level`` with the
    replicate as the resampling unit (module docstring: resampled within each
    (problem, classifier) pairing; the draws are fixed by ``seed``).  Rows are
    sorted within each phase by mean normalised shortfall, best first (values
    within ``TIE_TOLERANCE`` (relative, ``1e-12``) tied, anchors first
    among ties, then the order of first appearance; NaN last).

    Parameters
    ----------
    states : pandas.DataFrame
        The table of :func:`mri_theory.runners.score_states` (columns
        :data:`mri_theory.runners.STATE_COLUMNS`; checked as by
        :func:`~mri_theory.evaluation.summarise_states`), one or several
        pairings concatenated.  Rows of MRI-best and RS, where present, are
        the anchors' (module docstring).  Or that table's
        :func:`state_statistics` (e.g. a leaderboard folder's
        ``statistics.csv.xz``): the same result, ``top_k`` and
        ``resolved_only`` then the table's own (refused otherwise).
    phases : sequence of int, default (12, 50)
        Strictly increasing edges ``e_1 < ... < e_k`` (integers ``>= 0``):
        phase ``"≤e_1"`` holds the states with ``n_labelled <= e_1``, phase
        ``"e_i+1–e_{i+1}"`` those with ``e_i < n_labelled <= e_{i+1}``, phase
        ``">e_k"`` those above; empty: the ``"all"`` rows only.
    n_boot : int, default 1000
        Bootstrap draws, ``1 <= n_boot <=`` :data:`~mri_theory.evaluation.MAX_BOOT`.
    seed : int, default 0
        ``>= 0``: the seed of the draws' generator.
    level : float, default 0.95
        Confidence level of the intervals, in (0, 1).
    top_k : int, default 5
        ``k`` of ``top_k_hit``.
    resolved_only : bool, default True
        As in :func:`~mri_theory.evaluation.summarise_states`: statistics over
        the resolved states only.
    cost : pandas.DataFrame, optional
        Timings to join: the columns :data:`LEADERBOARD_COST_COLUMNS` (a
        state, a strategy, its CPU seconds there ``>= 0``; one row per state
        and strategy), e.g. :func:`mri_theory.runners.read_state_timings` of
        each pairing's folder, concatenated.  Rows of states or strategies
        not in the leaderboard are ignored.

    Returns
    -------
    pandas.DataFrame
        One row per (phase, strategy): ``phase`` (phases in edge order, then
        ``"all"``; a phase without states has no rows), ``strategy``,
        ``anchor`` (True for :data:`ANCHORS`), ``states`` (the phase's
        states the means are over, i.e. (pairing, replicate, step,
        trajectory): the resolved ones with ``resolved_only``, every one
        otherwise), ``resolved`` (the fraction of the phase's states that are
        resolved), then for each statistic of
        :data:`LEADERBOARD_STATISTICS` its mean and ``<statistic>_ci_low``,
        ``<statistic>_ci_high`` (NaN where no state, or no draw, has a
        value, and where a value comes from a pairing with a single
        replicate: an interval needs at least 2 replicates, module
        docstring).  With ``cost``: ``cpu_s``, the mean CPU seconds of the
        strategy per timed state of the phase, and ``timed_states``, how many
        states had a timing (NaN and 0 where none had: an anchor made from the
        truth, a strategy without timings).

    Raises
    ------
    TypeError, ValueError
        Naming ``states``, ``phases``, ``n_boot``, ``seed``, ``level``,
        ``top_k``, ``resolved_only`` or ``cost``, before any statistic is
        computed.

    See Also
    --------
    mri_theory.runners.run_leaderboard : Scores every strategy in stored, resumable runs and writes this table.
    mri_theory.evaluation.strategy_differences : Paired differences between the strategies, Holm-corrected.

    Examples
    --------
    The mean normalised shortfall per phase: 0 for the anchor MRI-best, 1 for random selection by construction:

    >>> from mri_theory.evaluation import leaderboard
    >>> from mri_theory.runners import Execution, score_states
    >>> states = score_states("four-gaussian", "lda", ["SE", "SMRI"], replicates=2, steps=(2, 5), pool_size=10,
    ...                       population_size=500, execution=Execution(progress=False))
    >>> table = leaderboard(states, n_boot=50)
    >>> every = table[table.phase == "all"].set_index("strategy").normalised_shortfall.round(6)
    >>> float(every["MRI-best"]), float(every["RS"]), sorted(every.index)
    (0.0, 1.0, ['MRI-best', 'RS', 'SE', 'SMRI'])
    """
    options = leaderboard_options(phases, n_boot, seed, level, top_k, resolved_only)
    checked_cost = None if cost is None else _checked_cost(cost)
    per = _per_state(states, options["top_k"], options["resolved_only"])
    strategies = list(pd.unique(per["strategy"]))  # the table's order, then anchors it lacks
    edges, labels = options["phases"], _phase_labels(options["phases"])
    phase_of = np.searchsorted(np.asarray(edges, dtype=np.int64), per["n_labelled"].to_numpy(dtype=np.int64),
                               side="left")
    unit, weights, alone = _draw_weights(per, options["n_boot"], options["seed"])
    rows = []
    for p, name in [*enumerate(labels), (-1, _ALL)]:
        members = np.flatnonzero(phase_of == p) if p >= 0 else np.arange(len(per))
        if members.size:
            rows += [{"phase": name, **row} for row in _sorted(_phase_rows(per, members, strategies, unit, weights,
                                                                           alone, options["level"], resolved_only))]
    table = pd.DataFrame(rows)
    if checked_cost is not None:
        spent = _cost_columns(per, checked_cost, phase_of, labels)
        table = table.merge(spent, on=["phase", "strategy"], how="left", sort=False)
        table["timed_states"] = table["timed_states"].fillna(0).astype(np.int64)
    return table


# ------------------------------------------------------------------ paired differences between strategies

#: Columns of :func:`strategy_differences`.
DIFFERENCE_COLUMNS = ["phase", "first", "second", "statistic", "difference", "ci_low", "ci_high", "level",
                      "p_value", "p_holm", "states"]


def holm(p_values: Any) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values: the ``i``-th smallest of ``m`` is multiplied by ``m - i + 1``,
    made non-decreasing in that order and capped at 1 (NaN values are left out of ``m`` and stay NaN).

    Parameters
    ----------
    p_values : array_like (m,)
        p-values in [0, 1] or NaN.

    Returns
    -------
    numpy.ndarray (m,)
        The adjusted p-values, in the input's order.

    Examples
    --------
    Holm's step-down adjustment: the smallest of m p-values times m, the next times m - 1, kept monotone:

    >>> from mri_theory.evaluation import holm
    >>> holm([0.01, 0.04, 0.03]).round(6).tolist()  # 0.01 x 3, 0.03 x 2, then 0.04 x 1 raised to 0.06
    [0.03, 0.06, 0.06]
    >>> holm([0.6, float("nan"), 0.7]).tolist()  # m = 2: 0.6 x 2 capped at 1, then 0.7 raised to 1
    [1.0, nan, 1.0]
    """
    p = check.real_array(p_values, "p_values")
    if p.ndim != 1:
        raise ValueError(f"p_values must be one-dimensional, got shape {p.shape}")
    known = np.flatnonzero(np.isfinite(p))
    if np.any((p[known] < 0) | (p[known] > 1)) or np.any(np.isinf(p)):
        raise ValueError("p_values must lie in [0, 1] (or be NaN)")
    out = np.full(p.shape, np.nan)
    order = known[np.argsort(p[known], kind="stable")]
    m = order.size
    out[order] = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    return out


def strategy_differences(
    states: pd.DataFrame,
    phases: Sequence[int] = PHASE_EDGES,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    top_k: int = 5,
    resolved_only: bool = True,
    statistic: str = "normalised_shortfall",
) -> pd.DataFrame:
    r"""Paired differences of a statistic between every two strategies, per phase, with Holm-corrected intervals.

    For each phase (as :func:`leaderboard`'s) and each pair of strategies (``first`` before ``second`` in the
    order of the state table, then the anchors it lacks), the mean over the states where both have a value of
    ``statistic(first) - statistic(second)`` (paired: the same states), and its standard error :math:`s`, the
    standard deviation of the difference over the bootstrap draws of :func:`leaderboard` (replicates resampled
    within each pairing, the same draws).  Its two-sided p-value is the normal one, :math:`2 \Phi(-|d| / s)`
    (1 where every draw gives 0, 0 where every draw gives the same other value), and within each phase the
    ``m`` comparisons are corrected by Holm's step-down (:func:`holm`): ``p_holm``.  The interval of the
    comparison whose p-value is the ``i``-th smallest is :math:`d \pm z s`, :math:`z` the normal quantile of the
    level ``1 - (1 - level) / (m - i + 1)`` Holm gives it (``level`` column): the intervals widen with the number
    of comparisons, and a comparison is significant at ``1 - level`` overall where ``p_holm < 1 - level`` (then
    its interval excludes 0).

    The normal form, not the percentiles of the draws: with 25 strategies and the anchors a phase has about 300
    comparisons, and Holm's smallest level asks for tail probabilities of ``(1 - level) / 300``, about
    :math:`1.7 \cdot 10^{-4}`, which 1,000 draws cannot resolve (a bootstrap p-value is at least
    ``2 / (n_boot + 1)``, so no comparison could be significant); each difference is a mean over hundreds of
    replicates of pairings, whose sampling distribution the normal approximates.

    Parameters
    ----------
    states, phases, n_boot, seed, level, top_k, resolved_only
        As in :func:`leaderboard` (``states``: a state table or its :func:`state_statistics`).
    statistic : str, default "normalised_shortfall"
        One of :data:`LEADERBOARD_STATISTICS` (lower is better for the shortfalls, higher for the others).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`DIFFERENCE_COLUMNS`; ``states``: the states both strategies have a value in.  Intervals
        and p-values are NaN where a value comes from a pairing with a single replicate (as :func:`leaderboard`).

    Examples
    --------
    >>> from mri_theory.evaluation import strategy_differences
    >>> from mri_theory.runners import Execution, score_states
    >>> states = score_states("four-gaussian", "lda", ["SE", "SMRI"], replicates=2, steps=(2, 5), pool_size=10,
    ...                       population_size=500, execution=Execution(progress=False))
    >>> differences = strategy_differences(states, n_boot=50)
    >>> pairs = differences[differences.phase == "all"]
    >>> list(zip(pairs["first"], pairs["second"]))  # every pair, the anchors last
    [('SE', 'SMRI'), ('SE', 'MRI-best'), ('SE', 'RS'), ('SMRI', 'MRI-best'), ('SMRI', 'RS'), ('MRI-best', 'RS')]
    >>> bool((pairs.p_holm >= pairs.p_value).all())  # Holm's adjustment never lowers a p-value
    True
    """
    options = leaderboard_options(phases, n_boot, seed, level, top_k, resolved_only)
    if statistic not in LEADERBOARD_STATISTICS:
        raise ValueError(f"statistic must be one of {', '.join(LEADERBOARD_STATISTICS)}, got {statistic!r}")
    per = _per_state(states, options["top_k"], options["resolved_only"])
    strategies = list(pd.unique(per["strategy"]))
    wide = per.set_index([*_STATE, "n_labelled", "strategy"])[statistic].unstack("strategy").reindex(
        columns=strategies)  # one row per state that some strategy was scored in
    keys = wide.index.to_frame(index=False)
    unit, weights, alone = _draw_weights(keys.assign(strategy=""), options["n_boot"], options["seed"])
    edges, labels = options["phases"], _phase_labels(options["phases"])
    phase_of = np.searchsorted(np.asarray(edges, dtype=np.int64), keys["n_labelled"].to_numpy(dtype=np.int64),
                               side="left")
    values = wide.to_numpy(dtype=float)
    rows = []
    alpha = 1 - options["level"]
    for p, name in [*enumerate(labels), (-1, _ALL)]:
        members = np.flatnonzero(phase_of == p) if p >= 0 else np.arange(len(keys))
        if not members.size:
            continue
        found = []
        for i, first in enumerate(strategies):
            for j in range(i + 1, len(strategies)):
                d = values[members, i] - values[members, j]
                both = np.isfinite(d)
                if not both.any():
                    continue
                u = unit[members][both]
                total = np.bincount(u, weights=d[both], minlength=weights.shape[1])
                count = np.bincount(u, minlength=weights.shape[1]).astype(float)
                with np.errstate(invalid="ignore", divide="ignore"):
                    boot = np.einsum("bu,u->b", weights, total) / np.einsum("bu,u->b", weights, count)
                boot = boot[np.isfinite(boot)]
                mean = float(total.sum() / count.sum())
                se = float(np.std(boot, ddof=1)) if boot.size > 1 else np.nan
                if bool(np.any((count > 0) & alone)) or not np.isfinite(se):
                    p_value = np.nan  # a pairing's only replicate: no interval (module docstring)
                elif se == 0:  # every draw the same difference: equal values (0), or one constant difference
                    p_value = 1.0 if mean == 0 else 0.0
                else:
                    p_value = float(2 * special.ndtr(-abs(mean) / se))
                found.append((first, strategies[j], mean, se, p_value, int(both.sum())))
        adjusted = holm(np.array([f[4] for f in found]))
        ranks = np.argsort(np.argsort(np.where(np.isnan(adjusted), np.inf, [f[4] for f in found]), kind="stable"),
                           kind="stable")
        m = int(np.sum(np.isfinite(adjusted)))
        for (first, second, mean, se, p_value, n_states), p_holm, rank in zip(found, adjusted, ranks, strict=True):
            interval_level = 1 - alpha / max(1, m - rank) if np.isfinite(p_value) else np.nan
            low = high = np.nan
            if np.isfinite(p_value):
                half = float(special.ndtri(1 - (1 - interval_level) / 2)) * se
                low, high = mean - half, mean + half
            rows.append((name, first, second, statistic, mean, low, high, interval_level, p_value, p_holm,
                         n_states))
    return pd.DataFrame(rows, columns=DIFFERENCE_COLUMNS)
