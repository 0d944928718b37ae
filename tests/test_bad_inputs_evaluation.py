"""Bad input to the evaluation APIs (metrics, ranking, tables) is refused, and log-loss studies are reported.

Table-driven like ``tests/test_bad_inputs.py``: every row of :data:`ROWS` is
``(id, callable, expected exception type, regex)``; the callable makes one
call with one bad argument, and the test checks that exactly that exception
type is raised with a message naming the argument (the regex), never a silent
result (NaN, a negative shortfall, every method ranked 1.5, a method named
NaN), a ``MemoryError`` or a pandas/numpy message.  :data:`REPORT_ROWS` do the
same for :func:`mri_theory.evaluation.tables.write_report` and check that nothing is
written.

The second half checks the log-loss path (``loss="log"``) of
:func:`~mri_theory.evaluation.metrics.curve_metrics`, :func:`~mri_theory.evaluation.ranking.rank_study`
and :func:`~mri_theory.evaluation.tables.write_report` against values computed by hand.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from _optional import given, hnp, settings, st

from mri_theory.evaluation.metrics import (
    RANKED_METRICS,
    alc,
    aua,
    curve_metrics,
    label_complexity,
    mean_loss,
    metric_columns,
    q_c_shortfall,
    ranked_metrics,
    regret,
    wi,
)
from mri_theory.evaluation.ranking import (
    aggregate,
    beats_rs_counts,
    bootstrap_ranks,
    metric_ranks,
    overall_rank,
    rank_pairings,
    rank_study,
)
from mri_theory.evaluation.tables import kendall_tau, write_report
from mri_theory.runners.asymptotic import asymptotic_loss

T, V = TypeError, ValueError
N = [1, 2, 3, 4]
L = [0.5, 0.4, 0.3, 0.2]
RS = [0.5, 0.45, 0.4, 0.3]


def _study(loss_values=None, replicates=2, strategies=("RS", "SE", "BMRI", "MRI-best"), n=(2, 3, 4, 5),
           problems=("four-gaussian", "quadratic")):
    """A small paired sandbox table and its asymptotic losses (error rates unless ``loss_values`` is given)."""
    rows = []
    for p in problems:
        for s_index, s in enumerate(strategies):
            for r in range(replicates):
                for i, ni in enumerate(n):
                    value = 0.5 - 0.05 * i * (s_index + 1) / len(strategies) - 0.02 * r / replicates
                    rows.append((p, "lda", s, r, ni, value if loss_values is None else loss_values * value))
    curves = pd.DataFrame(rows, columns=["problem", "classifier", "strategy", "replicate", "n_labelled", "loss"])
    asymptotic = curves[["problem", "classifier"]].drop_duplicates().assign(asymptotic_loss=0.3)
    return curves, asymptotic


CURVES, ASYM = _study()


def _cm(curves=None, asym=None, **kwargs):
    return curve_metrics(CURVES if curves is None else curves, ASYM if asym is None else asym, **kwargs)


def _with(column, values, frame=None):
    """A copy of ``frame`` (default: the study curves) with ``column`` replaced; object dtype if mixed."""
    frame = (CURVES if frame is None else frame).copy()
    frame[column] = pd.Series(values, index=frame.index, dtype=object) if isinstance(values, list) else values
    return frame


def _set(column, row, value, frame=None):
    """A copy of ``frame`` with one cell changed (the column becomes object dtype)."""
    frame = (CURVES if frame is None else frame).copy()
    frame[column] = frame[column].astype(object)
    frame.loc[row, column] = value
    return frame


HAND = pd.DataFrame({"aua": [0.8, 0.7, 0.6], "wi": [0.1, 0.2, 0.0]}, index=["A", "B", "C"])
DIRS = {"aua": True, "wi": True}
METRICS = pd.DataFrame({"problem": ["p", "p", "q", "q"], "method": ["A", "B", "A", "B"], "aua": [0.8, 0.7, 0.6, 0.9],
                        "wi": [0.1, 0.2, 0.0, 0.3]})
RANKS = pd.DataFrame({"problem": ["p", "p", "q", "q"], "method": ["RS", "A", "RS", "A"], "rank": [1.0, 2.0, 2.0, 1.0]})


def _ranks(column, values):
    frame = RANKS.copy()
    frame[column] = pd.Series(values, dtype=object)
    return frame


def _shortfall(best, chosen):
    return q_c_shortfall(pd.DataFrame({"q_c_best": best, "q_c_chosen": chosen}))


LOG_CURVES, LOG_ASYM = _study(loss_values=4.0)
RNG = np.random.default_rng

ROWS = [
    # ---- aua / alc / mean_loss: n are whole numbers of labelled examples; error rates in [0, 1]
    ("aua-n-overflowing-span", lambda: aua([-1e308, 1e308], [0.5, 0.4]), V, r"n must hold integers in \[0, 2\*\*53\]"),
    ("aua-n-beyond-2**53", lambda: aua([0, 1e300], [0.5, 0.4]), V, r"n must hold integers in \[0, 2\*\*53\]"),
    ("aua-n-fractional", lambda: aua([1, 2.5], [0.5, 0.4]), V, r"n must hold whole numbers"),
    ("aua-n-negative", lambda: aua([-2, 3], [0.5, 0.4]), V, r"n must hold integers in \[0"),
    ("aua-n-bool", lambda: aua([False, True], [0.5, 0.4]), T, r"n must be numeric"),
    ("aua-n-bool-mixed", lambda: aua([0, True], [0.5, 0.4]), T, r"n must be numeric, got the boolean"),
    ("aua-n-text-numbers", lambda: aua(["1", "2"], [0.5, 0.4]), T, r"n must be numeric"),
    ("aua-n-inf", lambda: aua([1, np.inf], [0.5, 0.4]), V, r"n must be finite"),
    ("aua-loss-negative", lambda: aua(N, [0.5, -0.1, 0.3, 0.2]), V, r"loss must be error rates in \[0, 1\]"),
    ("aua-loss-text-in-object", lambda: aua(N, pd.Series([0.5, "0.4", 0.3, 0.2], dtype=object)), T,
     r"loss must be numeric, got the text '0.4'"),
    ("aua-loss-bool-in-list", lambda: aua(N, [0.5, True, 0.3, 0.2]), T, r"loss must be numeric, got the boolean"),
    ("aua-loss-none", lambda: aua(N, [0.5, None, 0.3, 0.2]), T, r"loss must be numeric"),
    ("alc-n-fractional", lambda: alc([0.5, 1.5], [0.5, 0.4]), V, r"n must hold whole numbers"),
    ("alc-loss-above-one", lambda: alc(N, [1.5, 0.4, 0.3, 0.2]), V, r"loss must be error rates"),
    ("mean_loss-negative", lambda: mean_loss(N, [0.5, -0.4, 0.3, 0.2]), V, r"loss must be >= 0"),
    ("mean_loss-above-max", lambda: mean_loss(N, [0.5, 1e308, 0.3, 0.2]), V, r"loss must be <= 745"),
    ("mean_loss-n-fractional", lambda: mean_loss([1, 1.5], [0.5, 0.4]), V, r"n must hold whole numbers"),
    # ---- wi
    ("wi-loss-negative", lambda: wi(N, [0.5, -0.4, 0.3, 0.2], RS), V, r"loss must be >= 0"),
    ("wi-loss_rs-negative", lambda: wi(N, L, [-0.5, 0.4, 0.3, 0.2]), V, r"loss_rs must be >= 0"),
    ("wi-loss-overflowing", lambda: wi(N, [1e308] * 4, RS, alpha=0), V, r"loss must be <= 745"),
    ("wi-n-overflowing-span", lambda: wi([-1e308, 1e308], [0.5, 0.4], [0.5, 0.5], alpha=0), V,
     r"n must hold integers in"),
    ("wi-weighting-list", lambda: wi(N, L, RS, weighting=["linear"]), V, r"weighting must be one of"),
    ("wi-weighting-array", lambda: wi(N, L, RS, weighting=np.array("linear")), V, r"weighting must be one of"),
    ("wi-alpha-bool", lambda: wi(N, L, RS, alpha=True), T, r"alpha must be numeric"),
    ("wi-alpha-text", lambda: wi(N, L, RS, alpha="0.02"), T, r"alpha must be numeric"),
    ("wi-alpha-nan", lambda: wi(N, L, RS, alpha=np.nan), V, r"alpha must be finite"),
    # ---- label_complexity
    ("lc-loss-negative", lambda: label_complexity(N, [0.5, -0.4, 0.3, 0.2], 0.2), V, r"loss must be >= 0"),
    ("lc-asymptotic-huge", lambda: label_complexity(N, L, 1e308), V, r"asymptotic_loss must be <= 745"),
    ("lc-epsilon-overflow", lambda: label_complexity(N, L, 700.0, epsilon=1e307), V,
     r"epsilon = 1e\+307 is too large"),
    ("lc-asymptotic-text", lambda: label_complexity(N, L, "0.2"), T, r"asymptotic_loss must be numeric"),
    ("lc-asymptotic-vector", lambda: label_complexity(N, L, [0.2, 0.3]), T, r"asymptotic_loss must be a scalar"),
    ("lc-epsilon-bool", lambda: label_complexity(N, L, 0.2, epsilon=False), T, r"epsilon must be numeric"),
    # ---- regret
    ("regret-curve-negative", lambda: regret([-0.1, 0.2], [0.1, 0.2]), V, r"curve must be >= 0"),
    ("regret-best-negative", lambda: regret([0.1, 0.2], [0.1, -0.2]), V, r"best_curve must be >= 0"),
    ("regret-overflowing-mean", lambda: regret([1.7e308, 1.7e308], [0.0, 0.0]), V, r"curve must be <= 745"),
    ("regret-text", lambda: regret(["0.1", "0.2"], [0.1, 0.2]), T, r"curve must be numeric"),
    # ---- q_c_shortfall
    ("shortfall-chosen-above-best", lambda: _shortfall([0.5, 0.1], [0.5, 0.5]), V,
     r"curves\['q_c_chosen'\] exceeds curves\['q_c_best'\] at position 1"),
    ("shortfall-half-missing", lambda: _shortfall([0.5, np.nan], [0.4, 0.1]), V,
     r"curves: the row at position 1 has only one of q_c_best and q_c_chosen"),
    ("shortfall-inf", lambda: _shortfall([np.inf, 0.2], [0.4, 0.1]), V, r"curves\['q_c_best'\] must be finite"),
    ("shortfall-text-numbers", lambda: _shortfall(pd.Series(["0.5", 0.2], dtype=object), [0.4, 0.1]), T,
     r"curves\['q_c_best'\] must be numeric"),
    ("shortfall-bool", lambda: _shortfall([True, False], [0.4, 0.1]), T, r"curves\['q_c_best'\] must be numeric"),
    # ---- asymptotic_loss: a simulation, its sizes bounded
    ("asymptotic-n_train-unbounded", lambda: asymptotic_loss("two-gaussians", "lda", n_train=10**12, rng=RNG(0)), V,
     r"n_train must be <= 1_000_000"),
    ("asymptotic-replicates-unbounded", lambda: asymptotic_loss("two-gaussians", "lda", replicates=10**9,
                                                                rng=RNG(0)), V, r"replicates must be <= 100_000"),
    ("asymptotic-population-unbounded", lambda: asymptotic_loss("two-gaussians", "lda", population_size=10**10,
                                                                rng=RNG(0)), V,
     r"population_size must be <= 1_000_000"),
    ("asymptotic-n_train-fractional", lambda: asymptotic_loss("two-gaussians", "lda", n_train=100.5, rng=RNG(0)), V,
     r"n_train must be an integer"),
    ("asymptotic-replicates-bool", lambda: asymptotic_loss("two-gaussians", "lda", replicates=True, rng=RNG(0)), T,
     r"replicates must be an integer"),
    ("asymptotic-population-text", lambda: asymptotic_loss("two-gaussians", "lda", population_size="100",
                                                           rng=RNG(0)), T, r"population_size must be an integer"),
    # ---- curve_metrics: the tables
    ("cm-asymptotic-5-on-error-rates", lambda: _cm(asym=ASYM.assign(asymptotic_loss=5.0)), V,
     r"asymptotic\['asymptotic_loss'\] must be error rates in \[0, 1\]"),
    ("cm-asymptotic-negative-log", lambda: _cm(LOG_CURVES, LOG_ASYM.assign(asymptotic_loss=-1.0), loss="log"), V,
     r"asymptotic\['asymptotic_loss'\] must be >= 0"),
    ("cm-asymptotic-nan", lambda: _cm(asym=ASYM.assign(asymptotic_loss=np.nan)), V,
     r"asymptotic\['asymptotic_loss'\] must be finite"),
    ("cm-asymptotic-text-number", lambda: _cm(asym=_with("asymptotic_loss", ["0.3", 0.3], ASYM)), T,
     r"asymptotic\['asymptotic_loss'\] must be numeric"),
    ("cm-asymptotic-problem-none", lambda: _cm(asym=_with("problem", [None, "quadratic"], ASYM)), V,
     r"asymptotic\['problem'\] must hold names, got a missing label"),
    ("cm-asymptotic-duplicate", lambda: _cm(asym=pd.concat([ASYM, ASYM])), V,
     r"asymptotic has more than one row for a \(problem, classifier\)"),
    ("cm-n_labelled-fractional", lambda: _cm(_with("n_labelled", CURVES["n_labelled"] + 0.5)), V,
     r"curves\['n_labelled'\] must hold whole numbers"),
    ("cm-n_labelled-negative", lambda: _cm(_with("n_labelled", CURVES["n_labelled"] - 10)), V,
     r"curves\['n_labelled'\] must hold integers in \[0"),
    ("cm-n_labelled-huge", lambda: _cm(_with("n_labelled", CURVES["n_labelled"] * 1e300)), V,
     r"curves\['n_labelled'\] must hold integers in \[0, 2\*\*53\]"),
    ("cm-n_labelled-text-number", lambda: _cm(_set("n_labelled", 0, "2")), T,
     r"curves\['n_labelled'\] must be numeric, got the text '2'"),
    ("cm-replicate-fractional", lambda: _cm(_with("replicate", CURVES["replicate"] / 2)), V,
     r"curves\['replicate'\] must hold whole numbers"),
    ("cm-replicate-bool", lambda: _cm(_with("replicate", CURVES["replicate"] > 0)), T,
     r"curves\['replicate'\] must be numeric"),
    ("cm-strategy-nan", lambda: _cm(_set("strategy", 0, np.nan)), V,
     r"curves\['strategy'\] must hold names, got a missing label"),
    ("cm-strategy-none", lambda: _cm(_set("strategy", 5, None)), V,
     r"curves\['strategy'\] must hold names, got a missing label"),
    ("cm-problem-empty", lambda: _cm(_with("problem", "")), V, r"curves\['problem'\] must hold names, got an empty"),
    ("cm-classifier-int", lambda: _cm(_with("classifier", 5)), V,
     r"curves\['classifier'\] must hold names, got 5 of type int"),
    ("cm-loss-negative-log", lambda: _cm(_with("loss", -CURVES["loss"]), loss="log"), V,
     r"curves\['loss'\] must be >= 0"),
    ("cm-loss-above-max-log", lambda: _cm(_with("loss", CURVES["loss"] * 1e4), loss="log"), V,
     r"curves\['loss'\] must be <= 745"),
    ("cm-log-losses-as-error-rates", lambda: _cm(LOG_CURVES, LOG_ASYM), V,
     r"curves\['loss'\] must be error rates in \[0, 1\].*pass loss='log'"),
    ("cm-loss-text-number", lambda: _cm(_set("loss", 3, "0.4")), T, r"curves\['loss'\] must be numeric"),
    ("cm-loss-inf", lambda: _cm(_with("loss", CURVES["loss"].where(CURVES.index != 2, np.inf))), V,
     r"curves\['loss'\] must be finite"),
    ("cm-loss-kind-lc", lambda: _cm(loss="lc"), V, r"loss must be one of 'error', 'log'"),
    ("cm-loss-kind-list", lambda: _cm(loss=["log"]), V, r"loss must be one of 'error', 'log'"),
    ("cm-mode-list", lambda: _cm(mode=["curve"]), V, r"mode must be 'curve' or 'replicate'"),
    ("cm-alpha-bool", lambda: _cm(alpha=False), T, r"alpha must be numeric"),
    ("cm-epsilon-negative", lambda: _cm(epsilon=-0.1), V, r"epsilon must be >= 0"),
    ("cm-epsilon-overflow", lambda: _cm(LOG_CURVES, LOG_ASYM.assign(asymptotic_loss=700.0), loss="log",
                                        epsilon=1e307), V, r"epsilon = 1e\+307 is too large"),
    ("cm-rs-missing-log", lambda: _cm(LOG_CURVES[LOG_CURVES.strategy != "RS"], LOG_ASYM, loss="log"), V,
     r"curves: the pairing \(four-gaussian, lda\) has no RS curve"),
    ("cm-not-paired", lambda: _cm(CURVES[~((CURVES.strategy == "SE") & (CURVES.replicate == 1))]), V,
     r"curves: in the pairing \(four-gaussian, lda\) not every strategy has every replicate"),
    ("cm-one-point", lambda: _cm(CURVES[CURVES.n_labelled == 2]), V, r"curves: the pairing .* fewer than 2 points"),
    ("cm-duplicate-rows", lambda: _cm(pd.concat([CURVES, CURVES.iloc[:1]])), V, r"curves has duplicate rows"),
    ("cm-empty", lambda: _cm(CURVES.iloc[:0]), V, r"curves is empty"),
    ("cm-loss-column-twice", lambda: _cm(pd.concat([CURVES, CURVES[["loss"]]], axis=1)), V,
     r"curves has the columns \['loss'\] more than once"),
    ("cm-asymptotic-column-twice", lambda: _cm(asym=pd.concat([ASYM, ASYM[["asymptotic_loss"]]], axis=1)), V,
     r"asymptotic has the columns \['asymptotic_loss'\] more than once"),
    ("shortfall-column-twice", lambda: q_c_shortfall(pd.DataFrame([[0.5, 0.4, 0.3]],
                                                                  columns=["q_c_best", "q_c_chosen", "q_c_best"])),
     V, r"curves has a column more than once"),
    # ---- ranking: metric tables
    ("overall-method-nan", lambda: overall_rank(HAND.set_axis(["A", np.nan, "C"]), DIRS), V,
     r"metric_table.index \(the methods\) must hold names, got a missing label"),
    ("overall-method-none", lambda: overall_rank(HAND.set_axis(["A", None, "C"]), DIRS), V,
     r"metric_table.index \(the methods\) must hold names"),
    ("overall-text-numbers", lambda: overall_rank(HAND.assign(wi=["0.1", "0.2", "0.0"]), DIRS), T,
     r"metric_table must be numeric, got the text '0.1'"),
    ("overall-bool-column", lambda: overall_rank(HAND.assign(wi=[True, False, True]), DIRS), T,
     r"metric_table must be numeric, got the boolean"),
    ("overall-duplicate-columns", lambda: overall_rank(HAND.set_axis(["aua", "aua"], axis=1), {"aua": True}), V,
     r"metric_table must have one column per metric"),
    ("overall-empty-directions", lambda: overall_rank(HAND, {}), V,
     r"higher_is_better must name at least one metric"),
    ("metric_ranks-direction-key-int", lambda: metric_ranks(HAND, {1: True, "aua": True, "wi": True}), T,
     r"higher_is_better must map metric \(column\) names to bools"),
    ("rank_pairings-empty-directions", lambda: rank_pairings(METRICS, {}, keys=["problem"]), V,
     r"higher_is_better must name at least one metric"),
    ("rank_pairings-keys-str", lambda: rank_pairings(METRICS, DIRS, keys="problem"), T,
     r"keys must be a sequence of column names, got the str 'problem'"),
    ("rank_pairings-keys-twice", lambda: rank_pairings(METRICS, DIRS, keys=["problem", "problem"]), V,
     r"keys names a column twice"),
    ("rank_pairings-keys-method", lambda: rank_pairings(METRICS, DIRS, keys=["problem", "method"]), V,
     r"keys must not include the method column or a ranked metric"),
    ("rank_pairings-method-twice", lambda: rank_pairings(pd.concat([METRICS, METRICS.iloc[:1].assign(aua=0.5)]), DIRS,
                                                         keys=["problem"]), V,
     r"metrics has more than one row for a method in a pairing \(\['problem'\]\)"),
    ("rank_pairings-keys-int", lambda: rank_pairings(METRICS, DIRS, keys=[0]), T,
     r"keys must be a sequence of column names"),
    ("rank_pairings-method-nan", lambda: rank_pairings(_set("method", 1, np.nan, METRICS), DIRS, keys=["problem"]), V,
     r"metrics\['method'\] must hold names, got a missing label"),
    ("rank_pairings-key-none", lambda: rank_pairings(_set("problem", 2, None, METRICS), DIRS, keys=["problem"]), V,
     r"metrics\['problem'\] must hold names, got a missing label"),
    ("rank_pairings-text-numbers", lambda: rank_pairings(_set("aua", 0, "0.8", METRICS), DIRS, keys=["problem"]), T,
     r"metrics must be numeric, got the text"),
    ("rank_pairings-inf", lambda: rank_pairings(METRICS.assign(wi=np.inf), DIRS, keys=["problem"]), V,
     r"metrics must be finite"),
    ("rank_pairings-metric-twice", lambda: rank_pairings(pd.concat([METRICS, METRICS[["wi"]]], axis=1), DIRS,
                                                         keys=["problem"]), V,
     r"metrics has the columns \['wi'\] more than once"),
    ("rank_pairings-not-frame", lambda: rank_pairings(METRICS.to_numpy(), DIRS, keys=["problem"]), T,
     r"metrics must be a pandas DataFrame"),
    # ---- ranking: rank tables
    ("aggregate-rank-1000-of-2", lambda: aggregate(RANKS.assign(rank=[1.0, 1000.0, 2.0, 1.0]), by=[]), V,
     r"rank_table\['rank'\] must be at most the number of methods ranked together, got rank 1000 among 2"),
    ("aggregate-rank-3-of-2-in-a-ranking", lambda: aggregate(pd.DataFrame({  # c1 ranks 2 methods, c2 ranks 3
        "classifier": ["c1"] * 4 + ["c2"] * 6, "problem": ["p", "p", "q", "q", "p", "p", "p", "q", "q", "q"],
        "method": ["RS", "A", "RS", "A", "RS", "A", "B", "RS", "A", "B"],
        "rank": [1.0, 3.0, 1.0, 2.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0]}), by=["classifier"]), V,
     r"got rank 3 among 2 methods \(row 1, ranked within \['classifier'\]\)"),
    ("aggregate-method-none", lambda: aggregate(_ranks("method", ["RS", None, "RS", "A"]), by=[]), V,
     r"rank_table\['method'\] must hold names, got a missing label"),
    ("aggregate-unit-nan", lambda: aggregate(_ranks("problem", ["p", "p", np.nan, np.nan]), by=[]), V,
     r"rank_table\['problem'\] must hold names, got a missing label"),
    ("aggregate-rank-text", lambda: aggregate(_ranks("rank", ["1", "2", "2", "1"]), by=[]), T,
     r"rank_table\['rank'\] must be numeric"),
    ("aggregate-rank-bool", lambda: aggregate(RANKS.assign(rank=[True, True, True, True]), by=[]), T,
     r"rank_table\['rank'\] must be numeric"),
    ("aggregate-rank-nan", lambda: aggregate(RANKS.assign(rank=[1.0, np.nan, 2.0, 1.0]), by=[]), V,
     r"rank_table\['rank'\] must be finite"),
    ("aggregate-by-twice", lambda: aggregate(RANKS.assign(g="x"), by=["g", "g"]), V, r"by names a column twice"),
    ("aggregate-by-empty-name", lambda: aggregate(RANKS, by=[""]), V, r"by must hold non-empty column names"),
    ("aggregate-over-int", lambda: aggregate(RANKS, by=[], over=5), T, r"over must be a column name or a sequence"),
    ("aggregate-rank-twice", lambda: aggregate(pd.concat([RANKS, RANKS[["rank"]]], axis=1), by=[]), V,
     r"rank_table has the columns \['rank'\] more than once"),
    ("aggregate-not-frame", lambda: aggregate(RANKS.to_dict(), by=[]), T, r"rank_table must be a pandas DataFrame"),
    ("beats-reference-none", lambda: beats_rs_counts(RANKS, by="problem", reference=None), V,
     r"reference must be a name, got a missing label"),
    ("beats-reference-nan", lambda: beats_rs_counts(RANKS, by="problem", reference=np.nan), V,
     r"reference must be a name, got a missing label"),
    ("beats-rank-out-of-range", lambda: beats_rs_counts(RANKS.assign(rank=[1.0, 3.0, 2.0, 1.0]), by="problem"), V,
     r"rank_table\['rank'\] must be at most the number of methods ranked together, got rank 3 among 2"),
    ("beats-by-twice", lambda: beats_rs_counts(RANKS, by=["problem", "problem"]), V, r"by names a column twice"),
    # ---- ranking: whole studies
    ("rank_study-loss-kind", lambda: rank_study(CURVES, ASYM, loss="lc"), V, r"loss must be one of 'error', 'log'"),
    ("rank_study-group-a-str", lambda: rank_study(CURVES, ASYM, groups={"g": "four-gaussian"}), T,
     r"groups must be a dict group name -> list of problem names"),
    ("rank_study-group-name-int", lambda: rank_study(CURVES, ASYM, groups={1: ["four-gaussian", "quadratic"]}), T,
     r"groups must be a dict group name -> list of problem names"),
    ("rank_study-group-members-int", lambda: rank_study(CURVES, ASYM, groups={"g": [1, 2]}), T,
     r"groups must be a dict group name -> list of problem names"),
    ("rank_study-group-empty-name", lambda: rank_study(CURVES, ASYM, groups={"": ["four-gaussian", "quadratic"]}), V,
     r"groups \(a group name\) must be a name, got an empty name"),
    ("rank_study-group-member-empty", lambda: rank_study(CURVES, ASYM, groups={"g": ["four-gaussian", "quadratic",
                                                                                     " "]}), V,
     r"groups\['g'\] must hold names, got an empty name"),
    ("rank_study-log-as-error", lambda: rank_study(LOG_CURVES, LOG_ASYM, groups={"g": ["four-gaussian", "quadratic"]}),
     V, r"curves\['loss'\] must be error rates"),
    ("bootstrap-n_boot-unbounded", lambda: bootstrap_ranks(CURVES, ASYM, rng=RNG(0), n_boot=10**9), V,
     r"n_boot must be <= 10_000"),
    ("bootstrap-n_boot-fractional", lambda: bootstrap_ranks(CURVES, ASYM, rng=RNG(0), n_boot=10.5), V,
     r"n_boot must be an integer"),
    ("bootstrap-n_boot-bool", lambda: bootstrap_ranks(CURVES, ASYM, rng=RNG(0), n_boot=True), T,
     r"n_boot must be an integer"),
    ("bootstrap-level-text", lambda: bootstrap_ranks(CURVES, ASYM, rng=RNG(0), level="0.9"), T,
     r"level must be numeric"),
    ("bootstrap-loss-kind", lambda: bootstrap_ranks(CURVES, ASYM, rng=RNG(0), loss="Log"), V,
     r"loss must be one of 'error', 'log'"),
    # ---- tables.kendall_tau
    ("tau-ours-nan", lambda: kendall_tau({"RS": 1.0, "SE": np.nan}, ["RS", "SE"]), V,
     r"ours \(the values\) must be finite"),
    ("tau-ours-inf", lambda: kendall_tau({"RS": 1.0, "SE": np.inf}, ["RS", "SE"]), V,
     r"ours \(the values\) must be finite"),
    ("tau-ours-text-number", lambda: kendall_tau({"RS": "1", "SE": 2}, ["RS", "SE"]), T,
     r"ours \(the values\) must be numeric"),
    ("tau-ours-bool", lambda: kendall_tau({"RS": True, "SE": False}, ["RS", "SE"]), T,
     r"ours \(the values\) must be numeric"),
    ("tau-ours-duplicate-index", lambda: kendall_tau(pd.Series([1, 2], index=["RS", "RS"]), ["RS", "SE"]), V,
     r"ours names a method twice"),
    ("tau-ours-method-none", lambda: kendall_tau({None: 1, "SE": 2}, ["RS", "SE"]), V,
     r"ours \(the methods\) must hold names"),
    ("tau-ours-list", lambda: kendall_tau([1, 2], ["RS", "SE"]), T, r"ours must be a mapping"),
    ("tau-paper-str", lambda: kendall_tau({"RS": 1, "SE": 2}, "RS"), T, r"paper must be an ordering"),
    ("tau-paper-twice", lambda: kendall_tau({"RS": 1, "SE": 2}, ["RS", "SE", "RS"]), V,
     r"paper lists a method twice"),
    ("tau-paper-none", lambda: kendall_tau({"RS": 1, "SE": 2}, ["RS", None]), V,
     r"paper \(the ordering\) must hold names"),
    ("tau-paper-mapping-nan", lambda: kendall_tau({"RS": 1, "SE": 2}, {"RS": 1, "SE": np.nan}), V,
     r"paper \(the values\) must be finite"),
]


@pytest.mark.parametrize("call, expected, pattern", [pytest.param(c, e, p, id=i) for i, c, e, p in ROWS])
def test_bad_input_is_refused(call, expected, pattern):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # an overflow on the way is a failure too
        with pytest.raises(expected, match=pattern) as info:
            call()
    assert info.type is expected, f"expected exactly {expected.__name__}, got {info.type.__name__}: {info.value}"


#: write_report rows: (id, keyword changes, exception type, regex); nothing may be written.
REPORT_ROWS = [
    ("report-loss-kind", dict(loss="lc"), V, r"loss must be one of 'error', 'log'"),
    ("report-loss-none", dict(loss=None), V, r"loss must be one of 'error', 'log'"),
    ("report-n_boot-unbounded", dict(n_boot=10**12), V, r"n_boot must be <= 10_000"),
    ("report-asymptotic-5", dict(asymptotic=ASYM.assign(asymptotic_loss=5.0)), V,
     r"asymptotic\['asymptotic_loss'\] must be error rates"),
    ("report-log-curves-as-error", dict(curves=LOG_CURVES, asymptotic=LOG_ASYM), V, r"pass loss='log'"),
    ("report-seed-bool", dict(seed=True), T, r"seed must be an integer"),
    ("report-level-bool", dict(level=True), T, r"level must be numeric"),
    ("report-strategy-none", dict(curves=_set("strategy", 0, None)), V, r"curves\['strategy'\] must hold names"),
    ("report-epsilon-overflow", dict(curves=LOG_CURVES, asymptotic=LOG_ASYM.assign(asymptotic_loss=700.0),
                                     loss="log", epsilon=1e307), V, r"epsilon = 1e\+307 is too large"),
]


@pytest.mark.parametrize("changes, expected, pattern", [pytest.param(c, e, p, id=i) for i, c, e, p in REPORT_ROWS])
def test_bad_report_input_writes_nothing(changes, expected, pattern, tmp_path):
    args = dict(curves=CURVES, asymptotic=ASYM, out_dir=tmp_path / "out",
                groups={"abstract": ["four-gaussian", "quadratic"]}, n_boot=5)
    args.update(changes)
    with pytest.raises(expected, match=pattern) as info:
        write_report(**args)
    assert info.type is expected
    assert not (tmp_path / "out").exists()


def test_tables_are_large_with_unique_ids():
    ids = [row[0] for row in ROWS + REPORT_ROWS]
    assert len(ids) >= 70
    assert len(set(ids)) == len(ids)


def test_bootstrap_resamples_many_replicates_without_a_quadratic_array():
    """300 replicates: the replicate counts of each draw sum to 1 (weights) and the run stays small."""
    curves, asymptotic = _study(replicates=300, problems=("four-gaussian",), strategies=("RS", "SE"))
    out = bootstrap_ranks(curves, asymptotic, rng=np.random.default_rng(0), n_boot=200)
    assert set(out["method"]) == {"RS", "SE"}


# ---------------------------------------------------------------- valid edge cases stay valid

def test_shortfall_of_consistent_rows_and_empty_q_c():
    out = _shortfall([0.5, 0.2, np.nan], [0.3, 0.2, np.nan])
    np.testing.assert_allclose(out.to_numpy()[:2], [0.2, 0.0], atol=1e-15)
    assert np.isnan(out.iloc[2])


def test_wi_with_a_huge_alpha_is_the_first_gap_without_overflow_warnings():
    # alpha * (n - n0) overflows to inf for every later point: weights 1, 0, 0, 0, so WI = RS(n0) - L(n0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert wi(N, [0.5, 0.4, 0.3, 0.2], [0.75, 0.45, 0.4, 0.3], alpha=1e308) == 0.25


def test_an_empty_side_of_kendall_tau_shares_no_method():
    for ours, paper in (({}, ["RS", "SE"]), (pd.Series(dtype=float), {"RS": 1}), ({"RS": 1}, {})):
        tau = kendall_tau(ours, paper)
        assert np.isnan(tau.tau) and np.isnan(tau.pvalue) and tau.n == 0
    # an empty ordering omits every paper method: all tied last, a constant side
    tau = kendall_tau({"RS": 1, "SE": 2}, [])
    assert np.isnan(tau.tau) and tau.n == 2


def test_a_report_ranking_rs_alone_is_written(tmp_path):
    curves, asymptotic = _study(strategies=("RS", "MRI-best"))
    paths = write_report(curves, asymptotic, tmp_path / "r", groups={"abstract": ["four-gaussian", "quadratic"]},
                         n_boot=5)
    assert pd.read_csv(paths[5])["method"].tolist() == ["RS"]  # final_ranking.csv


def test_integer_method_labels_are_names():
    table = HAND.set_axis([3, 1, 2])
    assert overall_rank(table, DIRS).to_dict() == {3: 1.5, 1: 1.5, 2: 3.0}  # A: ranks 1, 2; B: 2, 1; C: 3, 3


# ---------------------------------------------------------------- the log-loss path, by hand

# One pairing (four-gaussian, lda), n = 1, 2, 3, two replicates, log losses in nats:
LOG_HAND = {
    "RS": ([1.0, 0.8, 0.6], [1.2, 1.0, 0.8]),  # mean curve 1.1, 0.9, 0.7
    "A": ([1.0, 0.5, 0.3], [1.2, 0.7, 0.5]),  # mean curve 1.1, 0.6, 0.4
    "MRI-best": ([1.0, 0.4, 0.2], [1.2, 0.6, 0.4]),  # mean curve 1.1, 0.5, 0.3
}
LOG_L_INF = 0.4  # epsilon = 0.05: the target is 0.42


def _log_hand_tables():
    rows = [("four-gaussian", "lda", s, r, n, loss) for s, reps in LOG_HAND.items() for r, curve in enumerate(reps)
            for n, loss in zip((1, 2, 3), curve, strict=True)]
    curves = pd.DataFrame(rows, columns=["problem", "classifier", "strategy", "replicate", "n_labelled", "loss"])
    return curves, pd.DataFrame({"problem": ["four-gaussian"], "classifier": ["lda"], "asymptotic_loss": [LOG_L_INF]})


def _alc_by_hand(curve):
    """(integral of (L0 - L) over log2 n) / (L0 * log2 3) by the trapezoid rule, n = 1, 2, 3."""
    gain = [curve[0] - v for v in curve]
    area = (gain[0] + gain[1]) / 2 * 1.0 + (gain[1] + gain[2]) / 2 * (math.log2(3) - 1.0)
    return area / (curve[0] * math.log2(3))


def test_log_loss_metrics_by_hand_in_curve_mode():
    curves, asymptotic = _log_hand_tables()
    out = curve_metrics(curves, asymptotic, loss="log", alpha=math.log(2)).set_index("method")
    assert list(out.columns[2:-1]) == ["label_complexity", "lc_censored", "mean_loss", "alc", "wi_linear",
                                       "wi_exponential", "regret"]
    assert list(out.index) == ["RS", "A"]  # the oracle is not ranked
    # mean loss: trapezoid over n = 1..3, divided by the width 2
    assert out.loc["RS", "mean_loss"] == pytest.approx(((1.1 + 0.9) / 2 + (0.9 + 0.7) / 2) / 2, abs=1e-12)  # 0.9
    assert out.loc["A", "mean_loss"] == pytest.approx(((1.1 + 0.6) / 2 + (0.6 + 0.4) / 2) / 2, abs=1e-12)  # 0.675
    # label complexity: A's mean curve reaches 0.42 at n = 3; RS never does (censored: n_max + 1 = 4)
    assert out.loc["A", ["label_complexity", "lc_censored"]].tolist() == [3.0, 0.0]
    assert out.loc["RS", ["label_complexity", "lc_censored"]].tolist() == [4.0, 1.0]
    # WI: gaps RS - A = 0, 0.3, 0.3; linear weights 1, 1/2, 0; exponential (alpha = ln 2) 1, 1/2, 1/4
    assert out.loc["A", "wi_linear"] == pytest.approx(0.15 / 1.5, abs=1e-12)
    assert out.loc["A", "wi_exponential"] == pytest.approx((0.15 + 0.075) / 1.75, abs=1e-12)
    assert out.loc["RS", "wi_linear"] == 0.0 and out.loc["RS", "wi_exponential"] == 0.0
    # regret: the mean gap to MRI-best, 0, 0.1, 0.1 for A and 0, 0.4, 0.4 for RS in both replicates
    assert out.loc["A", "regret"] == pytest.approx(0.2 / 3, abs=1e-12)
    assert out.loc["RS", "regret"] == pytest.approx(0.8 / 3, abs=1e-12)
    assert out.loc["A", "alc"] == pytest.approx(_alc_by_hand([1.1, 0.6, 0.4]), abs=1e-12)
    assert out.loc["RS", "alc"] == pytest.approx(_alc_by_hand([1.1, 0.9, 0.7]), abs=1e-12)


def test_log_loss_label_complexity_by_hand_in_replicate_mode():
    curves, asymptotic = _log_hand_tables()
    out = curve_metrics(curves, asymptotic, loss="log", mode="replicate").set_index("method")
    # A reaches 0.42 at n = 3 in replicate 0 (0.3) but not in replicate 1 (0.5): (3 + 4) / 2, half censored
    assert out.loc["A", ["label_complexity", "lc_censored"]].tolist() == [3.5, 0.5]
    assert out.loc["RS", ["label_complexity", "lc_censored"]].tolist() == [4.0, 1.0]
    # the mean loss is linear in the curve: the same as in curve mode
    assert out.loc["A", "mean_loss"] == pytest.approx((((1.0 + 0.5) / 2 + (0.5 + 0.3) / 2) / 2
                                                       + ((1.2 + 0.7) / 2 + (0.7 + 0.5) / 2) / 2) / 2, abs=1e-12)


def test_log_loss_study_ranks_and_report_by_hand(tmp_path):
    curves, asymptotic = _log_hand_tables()
    ranks = rank_study(curves, asymptotic, loss="log")
    r1 = ranks.r1.set_index("method")
    # A is better on all four metrics: label complexity 3 < 4, mean log loss 0.675 < 0.9, WI > 0 = RS's
    for column in ("rank_label_complexity", "rank_mean_loss", "rank_wi_linear", "rank_wi_exponential", "rank"):
        assert r1.loc["A", column] == 1.0 and r1.loc["RS", column] == 2.0
    assert ranks.r5.to_dict() == {"A": 1}

    paths = write_report(curves, asymptotic, tmp_path / "report", n_boot=20, loss="log")
    pairings = pd.read_csv(tmp_path / "report" / "pairings.csv").set_index("method")
    assert pairings.loc["A", "mean_loss"] == pytest.approx(0.675, abs=1e-12)
    assert pairings.loc["RS", "mean_loss"] == pytest.approx(0.9, abs=1e-12)
    assert "aua" not in pairings.columns
    markdown = paths[0].read_text()
    assert "- Loss: log loss (nats), not the paper's error rate." in markdown
    assert "- Metrics on the log loss: label complexity (epsilon = 0.05), mean log loss," in markdown
    assert "### Asymptotic log losses (the target of label complexity)" in markdown
    assert "| four-gaussian | lda | 0.4000 |" in markdown
    assert "| Mean Log Loss | 1 | 2 |" in markdown
    assert "| value: mean log loss | 0.675 | 0.900 |" in markdown
    assert "| value: label complexity (n) | 3.0 | 4.0* |" in markdown
    assert "| value: WI-linear | 0.100 | 0.000 |" in markdown
    assert "times the asymptotic log loss" in markdown
    assert "Our orderings rank log-loss curves" in markdown
    assert "AUA" not in markdown.split("- Loss:")[0]  # the settings do not claim AUA
    assert "Mean Log Loss" in paths[1].read_text()  # LaTeX


def test_error_report_does_not_mention_the_log_loss(tmp_path):
    paths = write_report(CURVES, ASYM, tmp_path / "r", groups={"abstract": ["four-gaussian", "quadratic"]}, n_boot=5)
    markdown = paths[0].read_text()
    assert "log loss" not in markdown.lower()
    assert "| AUA |" in markdown and "### Asymptotic losses (the target of label complexity)" in markdown


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 10).flatmap(lambda size: st.tuples(
    hnp.arrays(np.int64, size, elements=st.integers(1, 30)), hnp.arrays(np.float64, size, elements=st.floats(0, 1)))))
def test_mean_loss_is_one_minus_aua_on_error_rates(curve):
    steps, loss = curve
    n = np.cumsum(steps)
    # the mean of the piecewise-linear loss, segment by segment
    segments = zip(n[:-1], n[1:], loss[:-1], loss[1:], strict=True)
    expected = sum((b - a) * (la + lb) / 2 for a, b, la, lb in segments) / (n[-1] - n[0])
    assert mean_loss(n, loss) == pytest.approx(expected, abs=1e-12)
    assert mean_loss(n, loss) == pytest.approx(1.0 - aua(n, loss), abs=1e-12)


def test_error_rates_rank_the_same_as_error_or_as_log_losses():
    """Error rates are valid log-loss-range values: ranking them with loss='log' (mean loss instead of AUA)
    must give the error ranking, since AUA = 1 - mean loss and the other metrics do not depend on the kind."""
    curves, asymptotic = _study(replicates=3, strategies=("RS", "SE", "QbcV", "BMRI", "MRI-best"))
    as_error = rank_study(curves, asymptotic, {"g": ["four-gaussian", "quadratic"]})
    as_log = rank_study(curves, asymptotic, {"g": ["four-gaussian", "quadratic"]}, loss="log")
    np.testing.assert_array_equal(as_error.r1["rank"], as_log.r1["rank"])
    np.testing.assert_allclose(as_error.r1["aua"], 1.0 - as_log.r1["mean_loss"], atol=1e-12)
    assert as_error.r4["method"].tolist() == as_log.r4["method"].tolist()


def test_ranked_metrics_and_columns_by_loss():
    assert ranked_metrics() == RANKED_METRICS
    assert ranked_metrics("log") == {"label_complexity": False, "mean_loss": False, "wi_linear": True,
                                     "wi_exponential": True}
    assert metric_columns("log")[2] == "mean_loss" and "aua" not in metric_columns("log")
    with pytest.raises(ValueError, match="loss must be one of"):
        ranked_metrics("lc")
