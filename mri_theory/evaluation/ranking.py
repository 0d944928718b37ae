r"""Ranks of AL methods and the paper's aggregation R1-R5 (§5.3-5.5, Appendix E).

Within one (problem, classifier) pairing every method is ranked on each of
the four metrics of §5.3 (:data:`mri_theory.evaluation.metrics.RANKED_METRICS`; 1 =
best, ties share the average rank, as ``scipy.stats.rankdata(method="average")``).
Its **overall rank** is the rank of the mean of its four ranks (Brazdil & Soares
2000; line 1079 of the source), ties in the mean rank resolved by the lower
variance of the rank vector (Appendix E, line ~1533: "ties resolved by
preferring lower variance of the rank vector"; we use the population variance,
``ddof=0``); methods still tied share the average rank.

The aggregation follows the paper's list (lines ~1195-1215):

==  ==========================================================================
R1  per pairing: average the loss curves over the replicates, compute the four
    metrics of the averaged curve, rank (:func:`rank_pairings` on
    :func:`mri_theory.evaluation.metrics.curve_metrics`, ``mode="curve"``, the default).
    Line ~1166 instead summarises "the true distribution of AL metric
    scores" by its mean; that reading is ``mode="replicate"`` (the mean of the
    per-replicate metrics).
R2  per (group, classifier): average the overall ranks over the problems of
    the group and re-rank (:func:`aggregate` ``by=["group", "classifier"]``).
R3  per classifier: average the R2 ranks over the groups and re-rank
    (``by="classifier"``).
R4  average the R3 ranks over the classifiers and re-rank (``by=[]``).
R5  count the (group, classifier) pairings in which a method's R2 rank beats
    RS's (:func:`beats_rs_counts`).
==  ==========================================================================

Every re-ranking uses the same rule as the overall rank: the rank of the mean
rank, ties by the lower variance of the ranks averaged.  Comparisons of ranks
and metric values treat values within :data:`mri_theory._utils.ties.TIE_TOLERANCE`
(relative) as tied, so no rank depends on the last bit of a floating-point sum.

The aggregation functions take plain long tables (columns ``method``, ``rank``
and the level columns), so they apply to any rank table, the paper's published
ranks included.  A method absent from some unit of such a table (the paper shows
only the best six of seven methods) is counted as **ranked last** there: the
absent methods of a unit share the ranks after the present ones, each getting
their average ``(p + 1 + m) / 2`` for ``p`` present methods out of ``m``.

Beyond the paper, :func:`bootstrap_ranks` resamples the replicates of every
pairing to give a confidence interval of each method's mean rank and the
probability that it beats RS (at most :data:`MAX_BOOT` draws); with
``resample="pairings"`` it is a two-level bootstrap, which resamples the
pairings too (:data:`RESAMPLING` says in one line what each generalises over).
:func:`bootstrap_rank_draws` gives every draw's ranks as well.

Ties are reported as ties: :func:`rank_study` marks, in every table, the
methods whose mean rank (R1: the mean of the metric ranks) equals another's
within the tolerance (``tied_with``), so a first (or any place) that only the
variance tie-break makes is visible as such (:func:`mean_rank_ties`).

:func:`rank_study` and :func:`bootstrap_ranks` rank error-rate curves (the
paper's) or, with ``loss="log"``, log-loss curves on
:func:`mri_theory.evaluation.metrics.ranked_metrics` ``("log")``: the mean log loss
along the curve replaces AUA, label complexity is relative to the asymptotic
log loss.

Tables are checked before any ranking: names (no None/NaN, no empty name) in
the level and method columns, finite numbers (not text, not booleans) in the
metric and rank columns, one row per method and unit, ranks in
``[1, m]`` for ``m`` methods ranked together, a non-empty ``higher_is_better``,
and distinct column names for ``keys``/``by``/``over`` (``keys`` must be a
sequence: a single str is refused rather than split into characters).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from mri_theory._utils import validation as check
from mri_theory._utils.ties import TIE_TOLERANCE
from mri_theory.evaluation import _checks as evc
from mri_theory.evaluation._pairings import (
    check_inputs,
    draw_weights,
    metrics_frame,
    pairing_metrics,
    two_level_weights,
)
from mri_theory.evaluation.metrics import (
    BEST,
    RANKED_METRICS,
    REFERENCE,
    curve_metrics,
    metric_columns,
    ranked_metrics,
)

__all__ = ["ABSTRACT_PROBLEMS", "DEFAULT_GROUPS", "LEVELS", "MAX_BOOT", "RESAMPLING", "RankDraws", "StudyRanks",
           "PAIRS", "aggregate", "beats_rs_counts", "bootstrap_rank_draws", "bootstrap_ranks", "mean_rank_ties",
           "metric_ranks", "overall_rank", "paired_differences", "rank_pairings",
           "rank_study"]

#: The paper's "abstract" problem group (Appendix D, Figure 6) as registered problem names.
ABSTRACT_PROBLEMS = ("four-gaussian", "quadratic", "triangles", "oscillating", "sharp")
#: Default grouping of the problems: the abstract group only.
DEFAULT_GROUPS: dict[str, list[str]] = {"abstract": list(ABSTRACT_PROBLEMS)}
#: Level columns a rank table may have; :func:`aggregate` averages over those not in ``by``.
LEVELS = ("problem", "group", "classifier")
#: Largest number of bootstrap draws of :func:`bootstrap_ranks` (its memory grows with draws x methods x
#: pairings x curve points).
MAX_BOOT = 10_000
#: The paired differences :func:`~mri_theory.evaluation.conclusions` and the report give (first − second): the
#: paper's claims about BMRI.
PAIRS: tuple[tuple[str, str], ...] = (("BMRI", "RS"), ("BMRI", "SE"))
#: The bootstraps of :func:`bootstrap_ranks` (``resample=``), each with the one line that says what its intervals
#: generalise over (the reports print it beside every interval).
RESAMPLING: dict[str, str] = {
    "replicates": "resamples the replicates within each pairing, the pairings fixed: generalises over reruns of "
                  "these same problem-classifier pairings",
    "pairings": "resamples the pairings (problem x classifier) within each group, then the replicates within each "
                "drawn pairing: generalises over other pairings like these",
}


# ---------------------------------------------------------------- the ranking core

def _tolerant_rank(frame: pd.DataFrame, keys: Sequence[str], criteria: Sequence[tuple[str, bool]]) -> np.ndarray:
    """Average ranks (1 = best) within each ``keys`` group, lexicographic over ``criteria``.

    ``criteria`` are ``(column, higher_is_better)`` pairs: the first decides,
    the next breaks its ties, and so on; remaining ties share the average
    rank.  Values within ``TIE_TOLERANCE * max(1, |value|)`` of their
    neighbour in sorted order are tied (chained).
    """
    size = len(frame)
    code = (frame.groupby(list(keys), sort=False).ngroup().to_numpy() if keys else np.zeros(size, dtype=np.int64))
    group = code
    for column, higher in criteria:
        value = frame[column].to_numpy(dtype=float)
        value = -value if higher else value
        order = np.lexsort((value, code))
        v, c = value[order], code[order]
        new = np.ones(size, dtype=bool)
        new[1:] = (c[1:] != c[:-1]) | (np.diff(v) > TIE_TOLERANCE * np.maximum(1.0, np.abs(v[1:])))
        code = np.empty(size, dtype=np.int64)
        code[order] = np.cumsum(new)
    # codes increase with the group, so a group's ranks are the global ranks minus the rows of earlier groups
    before = np.concatenate([[0], np.cumsum(np.bincount(group))[:-1]])
    return rankdata(code, method="average") - before[group]


def _rank_of_mean_rank(frame: pd.DataFrame, keys: Sequence[str]) -> np.ndarray:
    """The re-ranking rule: by ``mean_rank``, ties by the lower ``rank_var``."""
    return _tolerant_rank(frame, keys, [("mean_rank", False), ("rank_var", False)])


def _check_directions(higher_is_better: Any, metrics: Sequence[str]) -> dict[str, bool]:
    if not isinstance(higher_is_better, Mapping):
        raise TypeError(f"higher_is_better must be a dict metric -> bool, got {type(higher_is_better).__name__}")
    if not higher_is_better:
        raise ValueError("higher_is_better must name at least one metric to rank on, got an empty mapping")
    if not all(isinstance(m, str) and m.strip() for m in higher_is_better):
        raise TypeError(f"higher_is_better must map metric (column) names to bools, got the keys "
                        f"{list(higher_is_better)!r}")
    missing = [m for m in metrics if m not in higher_is_better]
    if missing:
        raise ValueError(f"higher_is_better has no direction for the metrics {missing}")
    return {m: check.flag(higher_is_better[m], f"higher_is_better[{m!r}]") for m in metrics}


def _add_ranks(table: pd.DataFrame, keys: Sequence[str], directions: dict[str, bool]) -> pd.DataFrame:
    """``table`` with ``rank_<metric>``, ``mean_rank``, ``rank_var`` and the overall ``rank`` per ``keys`` group."""
    out = table.copy()
    rank_columns = [f"rank_{m}" for m in directions]
    for metric, higher in directions.items():
        out[f"rank_{metric}"] = _tolerant_rank(out, keys, [(metric, higher)])
    ranks = out[rank_columns].to_numpy()
    out["mean_rank"] = ranks.mean(axis=1)
    out["rank_var"] = ranks.var(axis=1)
    out["rank"] = _rank_of_mean_rank(out, keys)
    return out


def metric_ranks(metric_table: pd.DataFrame, higher_is_better: Mapping[str, bool]) -> pd.DataFrame:
    """Rank the methods on each metric (1 = best, ties averaged).

    Parameters
    ----------
    metric_table : pandas.DataFrame
        Index: the methods (unique); columns: the metrics (finite numbers).
    higher_is_better : dict
        Metric name -> bool, for every column.

    Returns
    -------
    pandas.DataFrame
        The same shape: each column holds the methods' ranks on that metric.

    See Also
    --------
    mri_theory.evaluation.overall_rank : The rank of the mean of these ranks.

    Examples
    --------
    Ranks per metric, 1 best, ties averaged; label complexity is better when lower:

    >>> import pandas as pd
    >>> from mri_theory.evaluation import metric_ranks
    >>> table = pd.DataFrame({"aua": [0.8, 0.7, 0.8], "label_complexity": [20, 30, 10]}, index=["SE", "RS", "BMRI"])
    >>> metric_ranks(table, {"aua": True, "label_complexity": False}).to_dict()
    {'aua': {'SE': 1.5, 'RS': 3.0, 'BMRI': 1.5}, 'label_complexity': {'SE': 2.0, 'RS': 3.0, 'BMRI': 1.0}}
    """
    table = _check_metric_table(metric_table)
    directions = _check_directions(higher_is_better, list(table.columns))
    ranked = _add_ranks(table.reset_index(drop=True), [], directions)
    return pd.DataFrame({m: ranked[f"rank_{m}"].to_numpy() for m in directions}, index=table.index)


def _check_metric_table(metric_table: Any) -> pd.DataFrame:
    if not isinstance(metric_table, pd.DataFrame):
        raise TypeError(f"metric_table must be a pandas DataFrame (index = methods, columns = metrics), "
                        f"got {type(metric_table).__name__}")
    if metric_table.empty or metric_table.shape[1] == 0:
        raise ValueError("metric_table must have at least one method and one metric")
    evc.labels(metric_table.index, "metric_table.index (the methods)")
    if not metric_table.index.is_unique:
        raise ValueError("metric_table must have one row per method (its index has duplicates)")
    if not metric_table.columns.is_unique:
        raise ValueError(f"metric_table must have one column per metric, got {list(metric_table.columns)!r}")
    evc.number_array(metric_table.to_numpy(), "metric_table")
    return metric_table


def overall_rank(metric_table: pd.DataFrame, higher_is_better: Mapping[str, bool]) -> pd.Series:
    """The overall rank of each method: the rank of its mean metric rank (§5.3, line 1079).

    Ties in the mean rank are resolved by the lower population variance of the
    method's rank vector (Appendix E, line ~1533); methods still tied share
    the average rank.

    Parameters
    ----------
    metric_table : pandas.DataFrame
        Index: the methods (unique); columns: the metrics (finite numbers).
    higher_is_better : dict
        Metric name -> bool, for every column (e.g.
        :data:`mri_theory.evaluation.metrics.RANKED_METRICS`).

    Returns
    -------
    pandas.Series
        Named ``"overall_rank"``, indexed by method, 1 = best.

    Examples
    --------
    The rank of each method's mean metric rank (§5.3):

    >>> import pandas as pd
    >>> from mri_theory.evaluation import overall_rank
    >>> table = pd.DataFrame({"aua": [0.8, 0.7, 0.8], "label_complexity": [20, 30, 10]}, index=["SE", "RS", "BMRI"])
    >>> overall_rank(table, {"aua": True, "label_complexity": False}).to_dict()
    {'SE': 2.0, 'RS': 3.0, 'BMRI': 1.0}
    """
    table = _check_metric_table(metric_table)
    directions = _check_directions(higher_is_better, list(table.columns))
    ranked = _add_ranks(table.reset_index(drop=True), [], directions)
    return pd.Series(ranked["rank"].to_numpy(), index=table.index, name="overall_rank")


def rank_pairings(metrics: pd.DataFrame, higher_is_better: Mapping[str, bool] | None = None,
                  keys: Sequence[str] = ("problem", "classifier")) -> pd.DataFrame:
    """R1: rank the methods within each pairing (per metric and overall).

    Parameters
    ----------
    metrics : pandas.DataFrame
        Long table: the ``keys`` columns, ``method`` (names, no missing
        value) and one column per metric (finite numbers), e.g.
        :func:`mri_theory.evaluation.metrics.curve_metrics`.
    higher_is_better : dict, optional
        The metrics to rank and their directions (default
        :data:`mri_theory.evaluation.metrics.RANKED_METRICS`; for log-loss curves
        :func:`mri_theory.evaluation.metrics.ranked_metrics` ``("log")``); at least one.
    keys : sequence of str
        Distinct columns identifying a pairing (a single str is refused:
        write ``["problem"]``); ``[]``: the whole table is one pairing.

    Returns
    -------
    pandas.DataFrame
        ``metrics`` with ``rank_<metric>`` for each ranked metric, ``mean_rank``,
        ``rank_var`` (population variance of the metric ranks) and ``rank``
        (the overall rank).

    Examples
    --------
    One pairing's metrics, by hand; per metric SE ranks (1.5, 1, 1, 2) (it shares the best label complexity with
    BMRI), BMRI (1.5, 2, 2, 1) and RS 3 throughout, so their mean ranks are 1.375, 1.625 and 3:

    >>> import pandas as pd
    >>> from mri_theory.evaluation import rank_pairings
    >>> metrics = pd.DataFrame({"problem": "sharp", "classifier": "lda", "method": ["RS", "SE", "BMRI"],
    ...                         "label_complexity": [30, 20, 20], "aua": [0.70, 0.80, 0.75],
    ...                         "wi_linear": [0.0, 0.05, 0.04], "wi_exponential": [0.0, 0.03, 0.05]})
    >>> ranks = rank_pairings(metrics)
    >>> ranks[["method", "rank_label_complexity", "mean_rank", "rank"]].to_dict("list")
    {'method': ['RS', 'SE', 'BMRI'], 'rank_label_complexity': [3.0, 1.5, 1.5], 'mean_rank': [3.0, 1.375, 1.625],
    'rank': [3.0, 1.0, 2.0]}
    """
    wanted = RANKED_METRICS if higher_is_better is None else higher_is_better
    directions = _check_directions(wanted, list(wanted) if isinstance(wanted, Mapping) else [])
    keys = evc.column_names(keys, "keys", allow_str=False)
    clash = sorted(set(keys) & ({"method"} | set(directions)))
    if clash:
        raise ValueError(f"keys must not include the method column or a ranked metric, got {clash}")
    table = evc.frame(metrics, "metrics", keys + ["method"] + list(directions))
    evc.frame_labels(table, keys + ["method"], "metrics")
    if table.duplicated(keys + ["method"]).any():
        raise ValueError(f"metrics has more than one row for a method in a pairing ({keys})")
    evc.number_array(table[list(directions)].to_numpy(), "metrics")
    return _add_ranks(table.reset_index(drop=True), keys, directions)


# ---------------------------------------------------------------- aggregation of rank tables

def _as_columns(value: Any, name: str) -> list[str]:
    return evc.column_names(value, name, allow_str=True)


def _complete(table: pd.DataFrame, group: list[str], units: list[str]) -> pd.DataFrame:
    """Add the methods absent from a unit, ranked last: rank ``(p + 1 + m) / 2`` (module docstring).

    The methods of a ``group`` are all those appearing anywhere in it; its
    units are the combinations of the ``units`` columns appearing in it
    (the whole group is one unit when ``units`` is empty).
    """
    frame = table[group + units + ["method", "rank"]].assign(_unit=0)
    keys = group + units + ["_unit"]
    unit_rows = frame[keys].drop_duplicates()
    methods = frame[group + ["method", "_unit"]].drop_duplicates()
    full = unit_rows.merge(methods, on=group + ["_unit"])
    if len(full) > len(frame):
        full = full.merge(frame, on=keys + ["method"], how="left")
        by_unit = full.groupby(keys, sort=False)
        present = by_unit["rank"].transform("count")
        size = by_unit["method"].transform("size")
        full["rank"] = full["rank"].fillna((present + 1 + size) / 2)
        frame = full
    return frame.drop(columns="_unit").reset_index(drop=True)


def _check_rank_table(rank_table: Any, group: list[str], units: list[str]) -> pd.DataFrame:
    """A rank table of units (``group + units``) within rankings (``group``): names in the level and method
    columns, one rank per method and unit, ranks in [1, the number of methods of the ranking]."""
    columns = group + units
    table = evc.frame(rank_table, "rank_table", columns + ["method", "rank"])
    evc.frame_labels(table, columns + ["method"], "rank_table")
    ranks = evc.number_array(table["rank"].to_numpy(), "rank_table['rank']")
    if np.any(ranks < 1):
        raise ValueError("rank_table['rank'] must be ranks >= 1")
    if table.duplicated(columns + ["method"]).any():
        raise ValueError(f"rank_table has more than one rank for a method in a unit ({columns})")
    methods = (table.groupby(group, sort=False)["method"].transform("nunique").to_numpy() if group
               else table["method"].nunique())
    above = ranks > methods * (1 + TIE_TOLERANCE)
    if np.any(above):
        i = int(np.argmax(above))
        raise ValueError(f"rank_table['rank'] must be at most the number of methods ranked together, got rank "
                         f"{ranks[i]:g} among {int(np.broadcast_to(methods, ranks.shape)[i])} methods "
                         f"(row {i}{', ranked within ' + str(group) if group else ''})")
    return table


def aggregate(rank_table: pd.DataFrame, by: str | Sequence[str], *, over: str | Sequence[str] | None = None
              ) -> pd.DataFrame:
    """Average ranks over a level and re-rank (the paper's R2-R4, lines ~1203-1209).

    Within each combination of the ``by`` columns, each method's ranks over the
    units (the combinations of the ``over`` columns) are averaged and the
    methods re-ranked by that mean, ties by the lower population variance of
    the ranks averaged (line ~1533), remaining ties averaged.  A method absent
    from a unit counts as ranked last there (module docstring).

    Parameters
    ----------
    rank_table : pandas.DataFrame
        Long table with columns ``method``, ``rank`` and the ``by`` and
        ``over`` columns, e.g. the output of :func:`rank_pairings` (R1) or of
        this function, or a transcription of published ranks.  Names (no
        None/NaN) in the level and method columns; ranks are finite numbers
        from 1 to the number of methods in the ``by`` combination.
    by : str or sequence of str
        Columns kept: one ranking per combination; ``[]`` ranks over the
        whole table.  R2: ``["group", "classifier"]``; R3: ``"classifier"``;
        R4: ``[]``.
    over : str or sequence of str, optional
        Columns averaged over; default: the columns of :data:`LEVELS` present
        in the table and not in ``by``.

    Returns
    -------
    pandas.DataFrame
        Columns ``by`` + ``method``, ``mean_rank``, ``rank_var``, ``n_units``
        and ``rank``, sorted by ``by`` and ``rank``.

    Examples
    --------
    R2: each classifier's ranks averaged over the problems, then re-ranked:

    >>> import pandas as pd
    >>> from mri_theory.evaluation import aggregate
    >>> r1 = pd.DataFrame({"problem": ["p1", "p1", "p2", "p2"], "classifier": "lda", "method": ["SE", "RS"] * 2,
    ...                    "rank": [1.0, 2.0, 2.0, 1.0]})
    >>> aggregate(r1, "classifier")[["method", "mean_rank", "rank"]].to_dict("list")
    {'method': ['SE', 'RS'], 'mean_rank': [1.5, 1.5], 'rank': [1.5, 1.5]}
    >>> r1["rank"] = [1.0, 2.0, 1.0, 2.0]
    >>> aggregate(r1, "classifier")[["method", "mean_rank", "rank"]].to_dict("list")
    {'method': ['SE', 'RS'], 'mean_rank': [1.0, 2.0], 'rank': [1.0, 2.0]}
    """
    by = _as_columns(by, "by")
    if not isinstance(rank_table, pd.DataFrame):
        raise TypeError(f"rank_table must be a pandas DataFrame, got {type(rank_table).__name__}")
    over = ([c for c in LEVELS if c in rank_table.columns and c not in by] if over is None
            else _as_columns(over, "over"))
    if set(by) & set(over) or {"method", "rank"} & set(by + over):
        raise ValueError(f"by {by} and over {over} must be distinct level columns (not method or rank)")
    table = _complete(_check_rank_table(rank_table, by, over), by, over)
    grouped = table.groupby(by + ["method"], sort=False)["rank"]
    out = pd.DataFrame({"mean_rank": grouped.mean(), "rank_var": grouped.var(ddof=0), "n_units": grouped.size()})
    out = out.reset_index()
    out["rank"] = _rank_of_mean_rank(out, by)
    return out.sort_values(by + ["rank"], kind="stable").reset_index(drop=True)


def beats_rs_counts(rank_table: pd.DataFrame, by: str | Sequence[str] = ("group", "classifier"), *,
                    reference: str = REFERENCE) -> pd.Series:
    """R5: in how many units (by default (group, classifier) pairings) each method's rank beats RS's.

    "The frequency counts show how often each AL method outperforms RS.  These
    are calculated from the group-classifier rankings" (line ~1210).  A method
    beats RS in a unit when its rank is strictly lower; a method absent from a
    unit counts as ranked last there (so it does not beat RS, and every
    present method beats an absent RS).

    Parameters
    ----------
    rank_table : pandas.DataFrame
        Long table with columns ``by``, ``method`` and ``rank`` (e.g. R2 from
        :func:`aggregate`).
    by : str or sequence of str
        Columns identifying a unit.
    reference : str
        The benchmark method (a name of ``rank_table['method']``).

    Returns
    -------
    pandas.Series
        Named ``"beats_rs"``, indexed by method (every method but the
        reference), sorted by count (descending; ties in order of first
        appearance).

    Examples
    --------
    R5: in how many (group, classifier) units each method's rank beats random selection's:

    >>> import pandas as pd
    >>> from mri_theory.evaluation import beats_rs_counts
    >>> r3 = pd.DataFrame({"group": "abstract", "classifier": ["lda"] * 3 + ["qda"] * 3,
    ...                    "method": ["SE", "RS", "BMRI"] * 2, "rank": [1.0, 2.0, 3.0, 3.0, 2.0, 1.0]})
    >>> beats_rs_counts(r3).to_dict()
    {'SE': 1, 'BMRI': 1}
    """
    by = _as_columns(by, "by")
    evc.label(reference, "reference")
    table = _check_rank_table(rank_table, [], by)
    if reference not in set(table["method"]):
        raise ValueError(f"reference {reference!r} is not a method of rank_table")
    full = _complete(table, [], by)
    ref = full[full["method"] == reference].set_index(by)["rank"] if by else full.loc[
        full["method"] == reference, "rank"]
    others = full[full["method"] != reference]
    # one column: a plain Index (pandas before 2.3 matches no label of a one-level MultiIndex against it)
    keys = pd.MultiIndex.from_frame(others[by]) if len(by) > 1 else pd.Index(others[by[0]]) if by else None
    ref_rank = ref.reindex(keys).to_numpy() if by else ref.to_numpy()[0]
    beats = others["rank"].to_numpy() < ref_rank
    order = list(dict.fromkeys(others["method"]))
    counts = pd.Series(beats.astype(int), index=others["method"].to_numpy()).groupby(level=0).sum()
    return counts.reindex(order).sort_values(ascending=False, kind="stable").rename("beats_rs").rename_axis("method")


# ---------------------------------------------------------------- a whole study

class StudyRanks(NamedTuple):
    """The aggregate results of a study, R1-R5 (module docstring).

    Parameters
    ----------
    r1 : DataFrame
        Per (problem, classifier) pairing, with its group: the metrics, their ranks and the overall rank.
    r2 : DataFrame
        Per (group, classifier): the R1 ranks averaged over the group's problems and ranked again.
    r3 : DataFrame
        Per classifier: the R2 ranks averaged over the groups and ranked again.
    r4 : DataFrame
        The final ranking: the R3 ranks averaged over the classifiers and ranked again.
    r5 : Series
        Per method, in how many (group, classifier) pairings its R2 rank beats random selection's.

    Examples
    --------
    The five tables of :func:`~mri_theory.evaluation.ranking.rank_study`, here of one pairing by hand where SE's
    curve lies below random selection's:

    >>> import pandas as pd
    >>> from mri_theory.evaluation import CURVE_COLUMNS, rank_study
    >>> losses = {"RS": [0.5, 0.4, 0.3], "SE": [0.5, 0.3, 0.2]}
    >>> curves = pd.DataFrame([("four-gaussian", "lda", method, 0, n, loss) for method, curve in losses.items()
    ...                        for n, loss in zip([2, 4, 6], curve)], columns=CURVE_COLUMNS)
    >>> asymptotic = pd.DataFrame({"problem": ["four-gaussian"], "classifier": ["lda"], "asymptotic_loss": [0.1]})
    >>> ranks = rank_study(curves, asymptotic)
    >>> ranks._fields
    ('r1', 'r2', 'r3', 'r4', 'r5')
    >>> ranks.r4[["method", "rank"]].to_dict("list"), ranks.r5.to_dict()
    ({'method': ['SE', 'RS'], 'rank': [1.0, 2.0]}, {'SE': 1})
    """

    r1: pd.DataFrame
    r2: pd.DataFrame
    r3: pd.DataFrame
    r4: pd.DataFrame
    r5: pd.Series


def _check_groups(groups: Any, problems: Iterable[str]) -> dict[str, str]:
    """Problem -> group for the problems of the study; every problem must be in exactly one group."""
    groups = DEFAULT_GROUPS if groups is None else groups
    if not isinstance(groups, Mapping) or not all(
            isinstance(g, str) and not isinstance(ps, str) and isinstance(ps, Sequence)
            and all(isinstance(p, str) for p in ps) for g, ps in groups.items()):
        raise TypeError("groups must be a dict group name -> list of problem names")
    for name, members in groups.items():
        evc.label(name, "groups (a group name)")
        evc.labels(list(members), f"groups[{name!r}]")
    group_of: dict[str, str] = {}
    for name, members in groups.items():
        for problem in members:
            if problem in group_of:
                raise ValueError(f"groups: the problem {problem!r} is in two groups ({group_of[problem]!r}, {name!r})")
            group_of[problem] = name
    outside = sorted(set(problems) - set(group_of))
    if outside:
        raise ValueError(f"groups: the problems {outside} of the study are in no group; pass groups= covering "
                         "them or leave them out of the curves")
    return group_of


def _levels(r1: pd.DataFrame, extra: list[str]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """R2, R3 and R4 of an R1 table (with ``group``), each also per ``extra`` columns (e.g. bootstrap draws)."""
    columns = extra + ["problem", "group", "classifier", "method", "rank"]
    r2 = aggregate(r1[columns], by=extra + ["group", "classifier"], over="problem")
    r3 = aggregate(r2.drop(columns=["mean_rank", "rank_var", "n_units"]), by=extra + ["classifier"], over="group")
    r4 = aggregate(r3.drop(columns=["mean_rank", "rank_var", "n_units"]), by=extra, over="classifier")
    return r2, r3, r4


def rank_study(curves: pd.DataFrame, asymptotic: pd.DataFrame, groups: Mapping[str, Sequence[str]] | None = None,
               *, mode: str = "curve", alpha: float = 0.02, epsilon: float = 0.05, loss: str = "error"
               ) -> StudyRanks:
    """R1-R5 of a sandbox table for many pairings (§5.4, lines ~1195-1215).

    Parameters
    ----------
    curves, asymptotic
        As for :func:`mri_theory.evaluation.metrics.curve_metrics`.
    groups : dict, optional
        Group name -> problem names (default :data:`DEFAULT_GROUPS`); every
        problem of ``curves`` must be in exactly one group; problems absent
        from ``curves`` are ignored.
    mode : {"curve", "replicate"}
        R1 on the replicate-averaged curves (default) or the mean of the
        per-replicate metrics (see :func:`mri_theory.evaluation.metrics.curve_metrics`).
    alpha, epsilon : float
        Of WI (exponential) and label complexity.
    loss : {"error", "log"}
        The loss of the curves (:func:`mri_theory.evaluation.metrics.curve_metrics`):
        error rates (default, the paper's) or log losses, ranked on
        :func:`mri_theory.evaluation.metrics.ranked_metrics` of that loss (for the log
        loss the mean log loss replaces AUA and label complexity is relative
        to the asymptotic log loss).

    Returns
    -------
    StudyRanks
        Each of R1-R4 with a column ``tied_with`` (:func:`mean_rank_ties`): the other methods of the same
        ranking whose mean rank equals the method's, ``""`` for none; their order is the tie-break's (the lower
        variance of the ranks), a shared rank where that ties too.

    See Also
    --------
    mri_theory.evaluation.bootstrap_ranks : The final ranks' bootstrap intervals.
    mri_theory.runners.report : The report of a stored study, from these ranks.

    Examples
    --------
    Two pairings by hand (Four-Gaussian with LDA and with naive Bayes, one replicate each): SE is best with LDA,
    BMRI with naive Bayes, and both beat random selection with both classifiers:

    >>> import pandas as pd
    >>> from mri_theory.evaluation import CURVE_COLUMNS, rank_study
    >>> losses = {("lda", "RS"): [0.5, 0.4, 0.3], ("lda", "SE"): [0.5, 0.2, 0.1], ("lda", "BMRI"): [0.5, 0.3, 0.2],
    ...           ("nb", "RS"): [0.5, 0.4, 0.3], ("nb", "SE"): [0.5, 0.3, 0.2], ("nb", "BMRI"): [0.5, 0.2, 0.1]}
    >>> curves = pd.DataFrame([("four-gaussian", classifier, method, 0, n, loss)
    ...                        for (classifier, method), curve in losses.items()
    ...                        for n, loss in zip([2, 4, 6], curve)], columns=CURVE_COLUMNS)
    >>> asymptotic = pd.DataFrame({"problem": "four-gaussian", "classifier": ["lda", "nb"], "asymptotic_loss": 0.1})
    >>> ranks = rank_study(curves, asymptotic)
    >>> ranks.r1[["classifier", "method", "rank"]].to_dict("list")  # R1: per pairing
    {'classifier': ['lda', 'lda', 'lda', 'nb', 'nb', 'nb'], 'method': ['RS', 'SE', 'BMRI', 'RS', 'SE', 'BMRI'],
    'rank': [3.0, 1.0, 2.0, 3.0, 2.0, 1.0]}
    >>> ranks.r4[["method", "mean_rank", "rank"]].to_dict("list")  # R4: SE and BMRI tie, even in their variance
    {'method': ['SE', 'BMRI', 'RS'], 'mean_rank': [1.5, 1.5, 3.0], 'rank': [1.5, 1.5, 3.0]}
    >>> ranks.r5.to_dict()  # R5: in how many (group, classifier) units each beats RS
    {'SE': 2, 'BMRI': 2}
    """
    metrics = curve_metrics(curves, asymptotic, mode=mode, alpha=alpha, epsilon=epsilon, loss=loss)
    group_of = _check_groups(groups, metrics["problem"].unique())
    r1 = rank_pairings(metrics, ranked_metrics(loss))
    r1.insert(1, "group", r1["problem"].map(group_of))
    r2, r3, r4 = _levels(r1, [])
    r1 = r1.assign(tied_with=mean_rank_ties(r1, ["problem", "classifier"]))
    r2 = r2.assign(tied_with=mean_rank_ties(r2, ["group", "classifier"]))
    r3 = r3.assign(tied_with=mean_rank_ties(r3, ["classifier"]))
    r4 = r4.assign(tied_with=mean_rank_ties(r4, []))
    return StudyRanks(r1, r2, r3, r4, beats_rs_counts(r2))


def mean_rank_ties(table: pd.DataFrame, keys: Sequence[str]) -> pd.Series:
    """The ties in mean rank of a rank table: per row, the other methods of its ranking with the same mean rank.

    Mean ranks within :data:`~mri_theory._utils.ties.TIE_TOLERANCE` (relative, chained in sorted order: the rule
    of every ranking here) are equal, so a tie is not lost to the last bit of a sum (14/3 from two orders of
    addition).  The order of tied methods is then the tie-break's (the lower variance of the ranks averaged,
    Appendix E), and a first made by it is marked, not reported as a plain first.

    Parameters
    ----------
    table : pandas.DataFrame
        Columns ``keys``, ``method`` and ``mean_rank`` (finite numbers), one row per method of a ranking, e.g.
        :func:`aggregate`'s or :func:`rank_pairings`'s.
    keys : sequence of str
        The columns that identify a ranking (``[]``: the whole table is one).

    Returns
    -------
    pandas.Series
        Aligned with ``table``, named ``tied_with``: the tied methods joined by ``"; "`` in the table's order,
        ``""`` where the mean rank is the method's alone.

    Examples
    --------
    Three methods at mean rank 2.4, two of them summed in different orders (the last bits differ), and one
    alone:

    >>> import pandas as pd
    >>> from mri_theory.evaluation import mean_rank_ties
    >>> r4 = pd.DataFrame({"method": ["SE", "BMRI", "QbcV", "RS"],
    ...                    "mean_rank": [(0.1 + 0.2 + 0.3) * 4, (0.3 + 0.2 + 0.1) * 4, 2.4, 3.0]})
    >>> bool(r4.mean_rank[0] == r4.mean_rank[1])
    False
    >>> mean_rank_ties(r4, []).tolist()
    ['BMRI; QbcV', 'SE; QbcV', 'SE; BMRI', '']
    """
    keys = evc.column_names(keys, "keys", allow_str=False)
    frame = evc.frame(table, "table", keys + ["method", "mean_rank"])
    evc.number_array(frame["mean_rank"].to_numpy(), "table['mean_rank']")
    classes = _tolerant_rank(frame.reset_index(drop=True), keys, [("mean_rank", False)])
    code = (frame.groupby(keys, sort=False).ngroup().to_numpy() if keys else np.zeros(len(frame), dtype=np.int64))
    methods = frame["method"].astype(str).to_numpy()
    out = []
    for i in range(len(frame)):
        same = np.flatnonzero((code == code[i]) & (classes == classes[i]))
        out.append("; ".join(methods[j] for j in same if j != i))
    return pd.Series(out, index=table.index, name="tied_with", dtype=object)


class RankDraws(NamedTuple):
    """What :func:`bootstrap_rank_draws` gives: the summary of :func:`bootstrap_ranks` and every draw's ranks.

    Parameters
    ----------
    summary : DataFrame
        :func:`bootstrap_ranks`' table.
    draws : DataFrame
        Columns ``draw``, ``classifier`` (``"all"``: the final ranking, R4), ``method``, ``mean_rank``,
        ``rank_var``, ``rank``: each draw's R3 and R4 tables (a classifier that no pairing of a draw has is absent
        from it, which only the two-level bootstrap can give).

    Examples
    --------
    >>> from mri_theory.evaluation import RankDraws
    >>> RankDraws._fields
    ('summary', 'draws')
    """

    summary: pd.DataFrame
    draws: pd.DataFrame


def bootstrap_ranks(curves: pd.DataFrame, asymptotic: pd.DataFrame, groups: Mapping[str, Sequence[str]] | None = None,
                    *, rng: np.random.Generator, n_boot: int = 1000, level: float = 0.95, mode: str = "curve",
                    alpha: float = 0.02, epsilon: float = 0.05, loss: str = "error",
                    resample: str = "replicates") -> pd.DataFrame:
    """Bootstrap over replicates (or pairings and replicates): intervals of mean ranks and P(beats RS).

    The paper reports no variability of its ranks.  With ``resample="replicates"`` each draw resamples,
    in every pairing independently, its replicates with replacement (the same
    replicates for every strategy: the design is paired), recomputes R1 on the
    resampled replicates (in ``mode``) and aggregates R2-R4 as
    :func:`rank_study`: the pairings are fixed, and the intervals say how the
    ranking would move if the same pairings were run again.

    With ``resample="pairings"`` (the **two-level** bootstrap) each draw first
    resamples the (problem, classifier) pairings with replacement, within each
    group (every group keeps its number of pairings), then the replicates
    within each drawn pairing (a pairing drawn twice gets two independent
    resamples), and aggregates the drawn pairings as if they were the study's
    (each a unit of its group and classifier; a classifier no pairing of a
    draw has is left out of that draw): the intervals say how the ranking
    would move on other pairings like these (:data:`RESAMPLING`).

    Reported per classifier (the R3 mean rank: the mean of
    the R2 ranks over the groups) and overall (``classifier = "all"``: the R4
    mean rank of the final ranking):

    * ``mean_rank``: on the original data (what :func:`rank_study` gives);
    * ``ci_low``, ``ci_high``: the percentile interval of the bootstrap mean
      ranks at confidence ``level`` (per classifier, over the draws that have it);
    * ``p_beats_rs``: the fraction of draws in which the method's rank (R3 per
      classifier, R4 overall) is strictly better than RS's (NaN for RS itself).

    One replicate gives no interval: a pairing with a single replicate tells
    nothing of the variability between replicates (every draw would bring it
    back, so its ranks would add no width, as if they were certain).  The
    rows it enters, its classifier's and ``"all"``, then have ``ci_low``,
    ``ci_high`` and ``p_beats_rs`` NaN (undefined; ``mean_rank`` is still
    given); every pairing needs at least 2 replicates for them.

    Parameters
    ----------
    curves, asymptotic, groups, mode, alpha, epsilon, loss
        As for :func:`rank_study`.
    rng : numpy.random.Generator
        Draws the resamples.  ``"replicates"``: pairing by pairing (sorted by
        problem, then classifier), ``n_boot`` draws each.  ``"pairings"``: the
        drawn pairings of every draw first (group by group), then pairing by
        pairing the replicates of every slot it fills.
    n_boot : int
        Bootstrap draws, at most :data:`MAX_BOOT`.
    level : float
        Confidence level in (0, 1).
    resample : {"replicates", "pairings"}
        What each draw resamples (:data:`RESAMPLING`).

    Returns
    -------
    pandas.DataFrame
        Columns ``classifier``, ``method``, ``mean_rank``, ``ci_low``,
        ``ci_high``, ``p_beats_rs``: the classifiers in order of name, then
        ``"all"``; methods by their rank on the original data.  The last three
        are NaN in the rows a pairing with a single replicate enters (above).

    See Also
    --------
    mri_theory.evaluation.bootstrap_rank_draws : The same, with every draw's ranks.

    Examples
    --------
    One pairing by hand with two replicates: SE's curve is below random selection's in replicate 0 and equal to it in
    replicate 1.  A draw that brings back replicate 1 twice (probability 1/4) ties them (rank 1.5 each); every other
    draw ranks SE first.  So SE's interval is [1, 1.5], and it beats RS in about 3/4 of the draws:

    >>> import numpy as np
    >>> import pandas as pd
    >>> from mri_theory.evaluation import CURVE_COLUMNS, bootstrap_ranks
    >>> losses = {("RS", 0): [0.5, 0.4, 0.3], ("SE", 0): [0.5, 0.3, 0.2],
    ...           ("RS", 1): [0.5, 0.4, 0.3], ("SE", 1): [0.5, 0.4, 0.3]}
    >>> curves = pd.DataFrame([("four-gaussian", "lda", method, replicate, n, loss)
    ...                        for (method, replicate), curve in losses.items()
    ...                        for n, loss in zip([2, 4, 6], curve)], columns=CURVE_COLUMNS)
    >>> asymptotic = pd.DataFrame({"problem": ["four-gaussian"], "classifier": ["lda"], "asymptotic_loss": [0.1]})
    >>> table = bootstrap_ranks(curves, asymptotic, rng=np.random.default_rng(0), n_boot=1000)
    >>> table[["classifier", "method", "mean_rank", "ci_low", "ci_high"]].to_dict("list")
    {'classifier': ['lda', 'lda', 'all', 'all'], 'method': ['SE', 'RS', 'SE', 'RS'], 'mean_rank': [1.0, 2.0, 1.0, 2.0],
    'ci_low': [1.0, 1.5, 1.0, 1.5], 'ci_high': [1.5, 2.0, 1.5, 2.0]}
    >>> round(float(table.p_beats_rs[0]), 2)
    0.74

    A second pairing where RS is the better: resampling the pairings as well, a draw may bring back either pairing
    twice, and the final interval spans both orders:

    >>> more = curves.assign(classifier="nb", strategy=curves.strategy.map({"RS": "SE", "SE": "RS"}))
    >>> both = pd.concat([curves, more], ignore_index=True)
    >>> pairs = pd.concat([asymptotic, asymptotic.assign(classifier="nb")], ignore_index=True)
    >>> table = bootstrap_ranks(both, pairs, rng=np.random.default_rng(0), n_boot=200, resample="pairings")
    >>> table[table.classifier == "all"][["method", "mean_rank", "ci_low", "ci_high"]].to_dict("list")
    {'method': ['SE', 'RS'], 'mean_rank': [1.5, 1.5], 'ci_low': [1.0, 1.0], 'ci_high': [2.0, 2.0]}
    """
    return bootstrap_rank_draws(curves, asymptotic, groups, rng=rng, n_boot=n_boot, level=level, mode=mode,
                                alpha=alpha, epsilon=epsilon, loss=loss, resample=resample).summary


#: The generator stream of each bootstrap of a report (:func:`bootstrap_generator`).
_STREAMS = {("ranks", "replicates"): (), ("differences", "replicates"): (1,), ("ranks", "pairings"): (2,),
            ("differences", "pairings"): (3,)}


def bootstrap_generator(seed: int, kind: str, resample: str) -> np.random.Generator:
    """The generator of one bootstrap of a study's report: ``SeedSequence([seed, stream])``, one stream per
    ``kind`` (``"ranks"``, ``"differences"``) and ``resample`` (:data:`RESAMPLING`), so that the report
    (:func:`~mri_theory.evaluation.write_report`) and the sensitivity analysis
    (:func:`~mri_theory.evaluation.conclusions`) draw the same resamples, and adding a bootstrap leaves the
    others' draws as they were (the ranks' replicate-only stream is ``seed``'s own).

    Parameters
    ----------
    seed : int
        At least 0.
    kind : {"ranks", "differences"}
    resample : {"replicates", "pairings"}

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.evaluation import bootstrap_generator
    >>> bool(bootstrap_generator(0, "ranks", "replicates").random() == np.random.default_rng(0).random())
    True
    >>> bool(bootstrap_generator(0, "ranks", "pairings").random() == np.random.default_rng([0, 2]).random())
    True
    """
    seed = check.count(seed, "seed", minimum=0)
    if (kind, resample) not in _STREAMS:
        raise ValueError(f"kind and resample must be one of {sorted(_STREAMS)}, got {(kind, resample)!r}")
    return np.random.default_rng(np.random.SeedSequence([seed, *_STREAMS[kind, resample]]))


def _check_resample(resample: Any) -> str:
    if not isinstance(resample, str) or resample not in RESAMPLING:
        raise ValueError(f"resample must be one of {', '.join(map(repr, RESAMPLING))}, got {resample!r}")
    return resample


def bootstrap_rank_draws(curves: pd.DataFrame, asymptotic: pd.DataFrame,
                         groups: Mapping[str, Sequence[str]] | None = None, *, rng: np.random.Generator,
                         n_boot: int = 1000, level: float = 0.95, mode: str = "curve", alpha: float = 0.02,
                         epsilon: float = 0.05, loss: str = "error", resample: str = "replicates") -> RankDraws:
    """:func:`bootstrap_ranks` with every draw's ranks (for statistics of the ranking, e.g. Kendall's tau).

    Parameters
    ----------
    curves, asymptotic, groups, rng, n_boot, level, mode, alpha, epsilon, loss, resample
        As for :func:`bootstrap_ranks` (the same ``rng`` gives the same summary).

    Returns
    -------
    RankDraws

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from mri_theory.evaluation import CURVE_COLUMNS, bootstrap_rank_draws
    >>> losses = {("RS", 0): [0.5, 0.4, 0.3], ("SE", 0): [0.5, 0.3, 0.2],
    ...           ("RS", 1): [0.5, 0.4, 0.3], ("SE", 1): [0.5, 0.4, 0.3]}
    >>> curves = pd.DataFrame([("four-gaussian", "lda", method, replicate, n, loss)
    ...                        for (method, replicate), curve in losses.items()
    ...                        for n, loss in zip([2, 4, 6], curve)], columns=CURVE_COLUMNS)
    >>> asymptotic = pd.DataFrame({"problem": ["four-gaussian"], "classifier": ["lda"], "asymptotic_loss": [0.1]})
    >>> summary, draws = bootstrap_rank_draws(curves, asymptotic, rng=np.random.default_rng(0), n_boot=4)
    >>> final = draws[draws.classifier == "all"]
    >>> final[["draw", "method", "rank"]].to_dict("list")  # draw 0 brought back replicate 1 twice: a tie
    {'draw': [0, 0, 1, 1, 2, 2, 3, 3], 'method': ['RS', 'SE', 'SE', 'RS', 'SE', 'RS', 'SE', 'RS'],
    'rank': [1.5, 1.5, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0]}
    """
    rng = check.generator(rng)
    n_boot = check.count(n_boot, "n_boot", maximum=MAX_BOOT)
    level = check.finite_scalar(level, "level")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    resample = _check_resample(resample)
    observed = rank_study(curves, asymptotic, groups, mode=mode, alpha=alpha, epsilon=epsilon,
                          loss=loss)  # validates
    inputs = check_inputs(curves, asymptotic, mode, alpha, epsilon, loss)
    group_of = _check_groups(groups, [p.problem for p in inputs.pairings])
    columns = metric_columns(inputs.loss)
    frames = []
    if resample == "replicates":
        for p in inputs.pairings:
            weights = draw_weights(rng, n_boot, p.loss.shape[1])
            frames.append(metrics_frame(p, pairing_metrics(p, inputs, weights), columns, draws=True))
    else:
        strata = np.array([group_of[p.problem] for p in inputs.pairings])
        slots, weights_of = two_level_weights(rng, inputs.pairings, strata, n_boot)
        for j, (p, weights) in enumerate(zip(inputs.pairings, weights_of, strict=True)):
            if not len(weights):
                continue
            draw, slot = np.nonzero(slots == j)  # row-major: the order of the weights' rows
            frame = metrics_frame(p, pairing_metrics(p, inputs, weights), columns, draws=True)
            keep = len(frame) // len(draw)
            frame["draw"] = np.repeat(draw, keep)
            frame["problem"] = np.repeat(slot, keep).astype(str)  # a unit per slot (a pairing drawn twice: two)
            frame["group"] = group_of[p.problem]
            frames.append(frame)
    r1 = rank_pairings(pd.concat(frames, ignore_index=True), ranked_metrics(loss),
                       keys=("draw", "problem", "classifier"))
    if resample == "replicates":
        r1["group"] = r1["problem"].map(group_of)
    _, r3, r4 = _levels(r1, ["draw"])
    r4 = r4.assign(classifier="all")
    boot = pd.concat([r3, r4], ignore_index=True)
    reference = boot[boot["method"] == REFERENCE].set_index(["draw", "classifier"])["rank"]
    boot["beats"] = boot["rank"].to_numpy() < reference.reindex(
        pd.MultiIndex.from_frame(boot[["draw", "classifier"]])).to_numpy()
    tail = (1 - level) / 2
    summary = boot.groupby(["classifier", "method"], sort=False).agg(
        ci_low=("mean_rank", lambda s: np.quantile(s, tail)), ci_high=("mean_rank", lambda s: np.quantile(s, 1 - tail)),
        p_beats_rs=("beats", "mean"))
    point = pd.concat([observed.r3, observed.r4.assign(classifier="all")], ignore_index=True)
    out = point[["classifier", "method", "mean_rank"]].join(summary, on=["classifier", "method"])
    out.loc[out["method"] == REFERENCE, "p_beats_rs"] = np.nan
    alone = {p.classifier for p in inputs.pairings if p.loss.shape[1] < 2}  # a pairing's only replicate
    undefined = out["classifier"].isin(alone | ({"all"} if alone else set()))
    out.loc[undefined, ["ci_low", "ci_high", "p_beats_rs"]] = np.nan
    draws = boot[["draw", "classifier", "method", "mean_rank", "rank_var", "rank"]].sort_values(
        ["draw", "classifier", "rank"], kind="stable").reset_index(drop=True)
    return RankDraws(out.reset_index(drop=True), draws)


def _strata(groups: Mapping[str, Sequence[str]] | None, problems: list[str]) -> np.ndarray:
    """The two-level bootstrap's stratum (group) of each pairing's problem; one stratum without ``groups``."""
    if groups is None:
        return np.zeros(len(problems), dtype=np.int64)
    if not isinstance(groups, Mapping) or not all(
            isinstance(g, str) and isinstance(ps, Sequence) and not isinstance(ps, str) for g, ps in groups.items()):
        raise TypeError("groups must be a dict group name -> list of problem names")
    group_of = {p: g for g, ps in groups.items() for p in ps}
    outside = sorted(set(problems) - set(group_of))
    if outside:
        raise ValueError(f"groups: the problems {outside} of the curves are in no group")
    names = list(dict.fromkeys(group_of[p] for p in problems))
    return np.array([names.index(group_of[p]) for p in problems], dtype=np.int64)


def paired_differences(curves: pd.DataFrame, asymptotic: pd.DataFrame, pairs: Sequence[tuple[str, str]] = PAIRS,
                       *, rng: np.random.Generator, n_boot: int = 1000, level: float = 0.95, mode: str = "curve",
                       alpha: float = 0.02, epsilon: float = 0.05, loss: str = "error",
                       resample: str = "replicates", groups: Mapping[str, Sequence[str]] | None = None
                       ) -> pd.DataFrame:
    """Paired differences of two methods' metrics, averaged over the pairings, with bootstrap intervals.

    For each pair ``(first, second)`` and each metric, the difference ``first − second`` of the metric in every
    (problem, classifier) pairing (R1, in ``mode``), averaged over the pairings; its percentile interval from
    ``n_boot`` draws; and in how many pairings the first is better.  With ``resample="replicates"`` each draw
    resamples, in every pairing independently, its replicates with replacement, the same replicates for both
    methods (the design is paired): the pairings are fixed.  With ``resample="pairings"`` (two-level) each draw
    first resamples the pairings with replacement (within each group of ``groups``), then the replicates within
    each drawn pairing, and averages the drawn pairings' differences: the interval generalises over other
    pairings like these (:data:`~mri_theory.evaluation.ranking.RESAMPLING`).

    Parameters
    ----------
    curves, asymptotic, mode, alpha, epsilon, loss
        As for :func:`~mri_theory.evaluation.ranking.rank_study`.
    pairs : sequence of (str, str)
        Methods of the curves (a pair naming one the curves lack is left out).
    rng, n_boot, level, resample
        As for :func:`~mri_theory.evaluation.ranking.bootstrap_ranks`.
    groups : dict, optional
        Group name -> problems: the strata of the two-level bootstrap (each group keeps its number of pairings);
        default: one stratum.  Only ``resample="pairings"`` reads it.

    Returns
    -------
    pandas.DataFrame
        Columns ``first``, ``second``, ``metric`` (the area metric, ``aua`` or ``mean_loss``, and ``regret``
        where the curves have MRI-best's), ``difference``, ``ci_low``, ``ci_high``, ``first_better`` (pairings
        where the first's metric is better: higher AUA, lower mean loss or regret) and ``pairings``.
        ``ci_low`` and ``ci_high`` are NaN (undefined) where a pairing the difference averages over has a single
        replicate: as in :func:`~mri_theory.evaluation.ranking.bootstrap_ranks`, one replicate tells nothing of
        the variability between replicates, and its draws would give a zero-width interval as if it were certain.

    Examples
    --------
    One pairing by hand with two replicates: SE's curve is below random selection's in replicate 0 and equal to it in
    replicate 1.  SE's averaged curve (0.5, 0.35, 0.25) has AUA 0.6375 against RS's 0.6: a difference of 0.0375; the
    draws range from both replicates 1 (difference 0) to both replicates 0 (0.075):

    >>> import numpy as np
    >>> import pandas as pd
    >>> from mri_theory.evaluation import CURVE_COLUMNS, paired_differences
    >>> losses = {("RS", 0): [0.5, 0.4, 0.3], ("SE", 0): [0.5, 0.3, 0.2],
    ...           ("RS", 1): [0.5, 0.4, 0.3], ("SE", 1): [0.5, 0.4, 0.3]}
    >>> curves = pd.DataFrame([("four-gaussian", "lda", method, replicate, n, loss)
    ...                        for (method, replicate), curve in losses.items()
    ...                        for n, loss in zip([2, 4, 6], curve)], columns=CURVE_COLUMNS)
    >>> asymptotic = pd.DataFrame({"problem": ["four-gaussian"], "classifier": ["lda"], "asymptotic_loss": [0.1]})
    >>> table = paired_differences(curves, asymptotic, [("SE", "RS")], rng=np.random.default_rng(0), n_boot=200)
    >>> table[["first", "second", "metric", "difference", "ci_low", "ci_high"]].round(6).to_dict("list")
    {'first': ['SE'], 'second': ['RS'], 'metric': ['aua'], 'difference': [0.0375], 'ci_low': [0.0], 'ci_high': [0.075]}

    Without MRI-best's curves there is no regret row; :func:`conclusions` reports BMRI - RS and BMRI - SE.

    Resampling the pairings as well (two-level): a second pairing where RS is the better by as much, so a draw
    may bring back either pairing twice and the interval spans both signs:

    >>> other = curves.assign(classifier="nb", strategy=curves.strategy.map({"RS": "SE", "SE": "RS"}))
    >>> both = pd.concat([curves, other], ignore_index=True)
    >>> pairs = pd.concat([asymptotic, asymptotic.assign(classifier="nb")], ignore_index=True)
    >>> table = paired_differences(both, pairs, [("SE", "RS")], rng=np.random.default_rng(0), n_boot=400,
    ...                            resample="pairings")
    >>> table[["difference", "ci_low", "ci_high", "first_better", "pairings"]].round(6).to_dict("list")
    {'difference': [0.0], 'ci_low': [-0.05625], 'ci_high': [0.05625], 'first_better': [1], 'pairings': [2]}
    """
    rng = check.generator(rng)
    n_boot = check.count(n_boot, "n_boot", maximum=MAX_BOOT)
    level = check.finite_scalar(level, "level")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    if isinstance(pairs, str) or not all(isinstance(p, tuple) and len(p) == 2 for p in pairs):
        raise TypeError(f"pairs must be a sequence of (first, second) method names, got {pairs!r}")
    if not isinstance(resample, str) or resample not in RESAMPLING:
        raise ValueError(f"resample must be one of {', '.join(map(repr, RESAMPLING))}, got {resample!r}")
    inputs = check_inputs(curves, asymptotic, mode, alpha, epsilon, loss)
    strata = _strata(groups, [p.problem for p in inputs.pairings])
    area = "aua" if inputs.loss == "error" else "mean_loss"
    metrics = {area: inputs.loss == "error", "regret": False}  # metric -> higher is better

    def differences(pairing, values):  # (first, second, metric) -> the differences of each row of weights
        out = {}
        for first, second in pairs:
            if first not in pairing.strategies or second not in pairing.strategies:
                continue
            i, j = pairing.strategies.index(first), pairing.strategies.index(second)
            for metric in metrics:
                if metric == "regret" and BEST not in pairing.strategies:
                    continue
                out[first, second, metric] = values[metric][:, i] - values[metric][:, j]
        return out

    observed: dict[tuple, list[float]] = {}
    boot: dict[tuple, list[np.ndarray]] = {}
    alone: set[tuple] = set()  # the differences a pairing with a single replicate enters: no interval
    if resample == "pairings":
        slots, weights_of = two_level_weights(rng, inputs.pairings, strata, n_boot)
        sums: dict[tuple, np.ndarray] = {}
        counts: dict[tuple, np.ndarray] = {}
    for k, pairing in enumerate(inputs.pairings):
        r = pairing.loss.shape[1]
        if resample == "replicates":
            weights = np.vstack([np.full((1, r), 1.0 / r), draw_weights(rng, n_boot, r)])
        else:
            weights = np.vstack([np.full((1, r), 1.0 / r), weights_of[k]])
            draw = np.nonzero(slots == k)[0]
        for key, difference in differences(pairing, pairing_metrics(pairing, inputs, weights)).items():
            observed.setdefault(key, []).append(float(difference[0]))
            if resample == "replicates":
                boot.setdefault(key, []).append(difference[1:])
            else:
                np.add.at(sums.setdefault(key, np.zeros(n_boot)), draw, difference[1:])
                np.add.at(counts.setdefault(key, np.zeros(n_boot)), draw, 1.0)
            if r < 2:
                alone.add(key)
    tail = (1 - level) / 2
    rows = []
    for (first, second, metric), differences_ in observed.items():
        if resample == "replicates":
            means = np.mean(boot[first, second, metric], axis=0)
        else:  # a draw whose slots hold no pairing with both methods has no difference: left out
            present = counts[first, second, metric] > 0
            means = sums[first, second, metric][present] / counts[first, second, metric][present]
        higher = metrics[metric]
        better = sum(d > 0 if higher else d < 0 for d in differences_)
        low, high = ((np.nan, np.nan) if (first, second, metric) in alone
                     else (float(np.quantile(means, tail)), float(np.quantile(means, 1 - tail))))
        rows.append((first, second, metric, float(np.mean(differences_)), low, high, int(better), len(differences_)))
    return pd.DataFrame(rows, columns=["first", "second", "metric", "difference", "ci_low", "ci_high",
                                       "first_better", "pairings"])
