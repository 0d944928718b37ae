"""Ranks and the paper's aggregation (mri_theory.evaluation.ranking): hand-worked tables, independent re-computations.

The overall rank is checked against a hand-worked example whose mean-rank tie
is broken by the variance, and against an exact re-implementation with
``fractions.Fraction`` on ``scipy.stats.rankdata`` ranks.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from _optional import given, hnp, settings, st
from scipy import stats
from scipy.stats import rankdata

from mri_theory.evaluation.metrics import RANKED_METRICS, curve_metrics
from mri_theory.evaluation.ranking import (
    aggregate,
    beats_rs_counts,
    bootstrap_ranks,
    metric_ranks,
    overall_rank,
    rank_pairings,
    rank_study,
)

# Per-metric ranks of the hand-worked example (each column a permutation of 1..4):
#   metric:  aua  lc  wi_l  wi_e     ranks          mean  population variance
#   A        1    1   4     4        1, 1, 4, 4     2.5   2.25
#   B        2    3   2     3        2, 3, 2, 3     2.5   0.25
#   C        3    2   1     2        3, 2, 1, 2     2.0   0.5
#   D        4    4   3     1        4, 4, 3, 1     3.0   1.5
# Overall: C first (mean 2); A and B tie at 2.5, B has the lower variance: B 2nd, A 3rd; D 4th.
HAND = pd.DataFrame({"aua": [0.9, 0.8, 0.7, 0.6],  # higher is better
                     "label_complexity": [10, 30, 20, 40],  # lower is better
                     "wi_linear": [0.1, 0.3, 0.4, 0.2],
                     "wi_exponential": [0.1, 0.2, 0.3, 0.4]}, index=["A", "B", "C", "D"])


def test_overall_rank_hand_worked_with_variance_tie_break():
    ranks = metric_ranks(HAND, RANKED_METRICS)
    assert ranks.loc["A"].tolist() == [1, 1, 4, 4]
    assert ranks.loc["D"].tolist() == [4, 4, 3, 1]
    out = overall_rank(HAND, RANKED_METRICS)
    assert out.name == "overall_rank"
    assert out.to_dict() == {"A": 3.0, "B": 2.0, "C": 1.0, "D": 4.0}


def test_overall_rank_exact_ties_are_averaged_and_float_noise_is_a_tie():
    # A and C have the same rank vector up to order (1, 1, 3, 3) and (3, 3, 1, 1): mean and variance tie
    table = pd.DataFrame({"m1": [0.9, 0.8, 0.7], "m2": [0.9, 0.8, 0.7], "m3": [0.7, 0.8, 0.9],
                          "m4": [0.7, 0.8, 0.9]}, index=["A", "B", "C"])
    out = overall_rank(table, dict.fromkeys(table.columns, True))
    assert out.to_dict() == {"A": 2.5, "B": 1.0, "C": 2.5}
    # 0.1 + 0.2 and 0.3 differ in the last bit only: tied, not ranked apart
    noisy = pd.DataFrame({"m": [0.1 + 0.2, 0.3, 0.2]}, index=["x", "y", "z"])
    assert metric_ranks(noisy, {"m": True})["m"].tolist() == [1.5, 1.5, 3.0]


def _exact_overall(values: np.ndarray, higher: list[bool]) -> list[float]:
    """Independent overall rank: scipy ranks, Fraction means and variances, brute-force lexicographic ranks."""
    ranks = np.column_stack([rankdata(-v if h else v, method="average") for v, h in zip(values.T, higher, strict=True)])
    keys = []
    for row in ranks:
        r = [Fraction(x) for x in row]
        mean = sum(r) / len(r)
        keys.append((mean, sum((x - mean) ** 2 for x in r) / len(r)))
    out = []
    for key in keys:
        better = sum(other < key for other in keys)
        tied = sum(other == key for other in keys)
        out.append(better + (tied + 1) / 2)
    return out


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 7).flatmap(lambda m: hnp.arrays(np.int64, (m, 4), elements=st.integers(0, 3))),
       st.lists(st.booleans(), min_size=4, max_size=4))
def test_overall_rank_matches_an_exact_reimplementation(values, higher):
    table = pd.DataFrame(values.astype(float) / 7, columns=["a", "b", "c", "d"],
                         index=[f"m{i}" for i in range(len(values))])
    directions = dict(zip(table.columns, higher, strict=True))
    got = overall_rank(table, directions).to_numpy()
    np.testing.assert_array_equal(got, _exact_overall(table.to_numpy(), higher))
    ranks = metric_ranks(table, directions)
    for column, h in directions.items():
        np.testing.assert_array_equal(ranks[column], rankdata(-table[column] if h else table[column],
                                                              method="average"))


def _long(rows, columns=("problem", "method", "rank")):
    return pd.DataFrame(rows, columns=list(columns))


def test_aggregate_toy_table_with_tie_break_and_absent_method():
    # p1: A 1, B 2, C 3; p2: A 3, B 2, C 1  -> means 2, 2, 2; variances 1, 0, 1: B first, A and C share 2.5
    table = _long([("p1", "A", 1), ("p1", "B", 2), ("p1", "C", 3), ("p2", "A", 3), ("p2", "B", 2), ("p2", "C", 1)])
    out = aggregate(table, by=[]).set_index("method")
    assert out["rank"].to_dict() == {"B": 1.0, "A": 2.5, "C": 2.5}
    assert out.loc["A", "mean_rank"] == 2.0 and out.loc["A", "rank_var"] == 1.0 and out.loc["B", "rank_var"] == 0.0
    # p3 ranks only A (1) and B (2): C is absent there and counts as last, rank 3 -> C's mean (3 + 1 + 3) / 3
    more = pd.concat([table, _long([("p3", "A", 1), ("p3", "B", 2)])], ignore_index=True)
    out = aggregate(more, by=[]).set_index("method")
    assert out.loc["C", "mean_rank"] == pytest.approx(7 / 3)
    assert out.loc["A", "mean_rank"] == pytest.approx(5 / 3) and out.loc["B", "mean_rank"] == 2.0
    assert out["rank"].to_dict() == {"A": 1.0, "B": 2.0, "C": 3.0}
    assert out.loc["C", "n_units"] == 3


def test_aggregate_levels_chain_r2_r3_r4():
    rows = []
    # classifier c1: group g1 problems p1, p2; group g2 problem p3.  classifier c2: g1 only (p1).
    for classifier, group, problem, order in [("c1", "g1", "p1", "ABC"), ("c1", "g1", "p2", "BAC"),
                                              ("c1", "g2", "p3", "CBA"), ("c2", "g1", "p1", "CAB")]:
        rows += [(problem, group, classifier, m, i + 1) for i, m in enumerate(order)]
    r1 = pd.DataFrame(rows, columns=["problem", "group", "classifier", "method", "rank"])
    r2 = aggregate(r1, by=["group", "classifier"])
    # (g1, c1): A (1 + 2) / 2 = 1.5 = B, variances equal (0.25): tie 1.5; C 3
    g1c1 = r2[(r2.group == "g1") & (r2.classifier == "c1")].set_index("method")["rank"].to_dict()
    assert g1c1 == {"A": 1.5, "B": 1.5, "C": 3.0}
    r3 = aggregate(r2[["group", "classifier", "method", "rank"]], by="classifier")
    # c1: g1 ranks A 1.5, B 1.5, C 3; g2 ranks C 1, B 2, A 3 -> means A 2.25, B 1.75, C 2
    c1 = r3[r3.classifier == "c1"].set_index("method")
    assert c1["mean_rank"].to_dict() == {"B": 1.75, "C": 2.0, "A": 2.25}
    assert c1["rank"].to_dict() == {"B": 1.0, "C": 2.0, "A": 3.0}
    r4 = aggregate(r3[["classifier", "method", "rank"]], by=[]).set_index("method")
    # c1: B 1, C 2, A 3; c2: C 1, A 2, B 3 -> means B 2, C 1.5, A 2.5
    assert r4["rank"].to_dict() == {"C": 1.0, "B": 2.0, "A": 3.0}
    # the default `over` is the level columns not in `by`
    pd.testing.assert_frame_equal(aggregate(r1, by=["group", "classifier"]),
                                  aggregate(r1, by=["group", "classifier"], over="problem"))


def test_beats_rs_counts_with_absent_methods():
    table = pd.DataFrame([
        ("g1", "c1", "A", 1), ("g1", "c1", "RS", 2), ("g1", "c1", "B", 3),  # A beats RS
        ("g1", "c2", "RS", 1), ("g1", "c2", "A", 2),  # B absent: last, does not beat RS
        ("g2", "c1", "A", 1), ("g2", "c1", "B", 2),  # RS absent: last, both beat it
    ], columns=["group", "classifier", "method", "rank"])
    counts = beats_rs_counts(table)
    assert counts.to_dict() == {"A": 2, "B": 1}
    assert list(counts.index) == ["A", "B"] and counts.name == "beats_rs"
    # other units: one column, or the whole table as one unit
    units = table.assign(unit=table.group + table.classifier).drop(columns=["group", "classifier"])
    assert beats_rs_counts(units, by="unit").to_dict() == {"A": 2, "B": 1}
    one = table[(table.group == "g1") & (table.classifier == "c1")].drop(columns=["group", "classifier"])
    assert beats_rs_counts(one, by=[]).to_dict() == {"A": 1, "B": 0}
    single = aggregate(one, by=[]).set_index("method")
    assert single["rank"].to_dict() == {"A": 1.0, "RS": 2.0, "B": 3.0} and (single["n_units"] == 1).all()


# ---------------------------------------------------------------- whole studies

def _study(methods=("RS", "SE", "SMRI", "BMRI"), speeds=(1.0, 1.5, 2.0, 3.0), problems=("four-gaussian", "quadratic"),
           classifiers=("lda", "knn5"), replicates=4, points=15, noise=0.01, seed=0):
    """Paired synthetic curves: loss = base + 0.4 exp(-0.1 speed (n - 2)) + noise, same base per replicate."""
    rng = np.random.default_rng(seed)
    n = np.arange(2, 2 + points)
    rows = []
    for p in problems:
        for c in classifiers:
            for r in range(replicates):
                base = rng.uniform(0.1, 0.15)
                for m, speed in zip(methods, speeds, strict=True):
                    loss = np.clip(base + 0.4 * np.exp(-0.1 * speed * (n - 2)) + rng.normal(0, noise, points), 0, 1)
                    loss[0] = base + 0.4
                    rows += [(p, c, m, r, int(ni), float(li), -1, np.nan, np.nan)
                             for ni, li in zip(n, loss, strict=True)]
    curves = pd.DataFrame(rows, columns=["problem", "classifier", "strategy", "replicate", "n_labelled", "loss",
                                         "chosen", "q_c_chosen", "q_c_best"])
    asymptotic = curves[["problem", "classifier"]].drop_duplicates().assign(asymptotic_loss=0.125)
    return curves, asymptotic


@pytest.mark.parametrize("mode", ["curve", "replicate"])
def test_rank_study_r1_in_both_modes(mode):
    curves, asymptotic = _study()
    study = rank_study(curves, asymptotic, mode=mode)
    expected = rank_pairings(curve_metrics(curves, asymptotic, mode=mode))
    pd.testing.assert_frame_equal(study.r1.drop(columns=["group", "tied_with"]), expected)  # tied_with: R1-R4 only
    for _, pairing in study.r1.groupby(["problem", "classifier"]):
        table = pairing.set_index("method")[list(RANKED_METRICS)]
        pd.testing.assert_series_equal(pairing.set_index("method")["rank"], overall_rank(table, RANKED_METRICS),
                                       check_names=False)
    # clearly separated speeds: the same order everywhere, and everyone beats RS in both (group, classifier) pairs
    assert study.r4["method"].tolist() == ["BMRI", "SMRI", "SE", "RS"]
    assert study.r5.to_dict() == {"BMRI": 2, "SMRI": 2, "SE": 2}
    assert set(study.r1["group"]) == {"abstract"}


def test_the_two_modes_can_disagree():
    # one problem, one classifier; A is fast in replicate 0 and as slow as RS in replicate 1 at the end
    curves, asymptotic = _study(methods=("RS", "A"), speeds=(1.0, 1.0), problems=("sharp",), classifiers=("lda",),
                                replicates=2, noise=0.0)
    a = (curves.strategy == "A") & (curves.replicate == 0)
    curves.loc[a & (curves.n_labelled >= 5), "loss"] = 0.0  # A reaches any target at n = 5 in replicate 0 only
    # RS-like curves never reach 1.05 * 0.05 by n = 16: censored, counted 17; so is the averaged curve of A
    for mode, expected in (("curve", 17.0), ("replicate", (5 + 17) / 2)):
        metrics = curve_metrics(curves, asymptotic.assign(asymptotic_loss=0.05), mode=mode).set_index("method")
        assert metrics.loc["A", "label_complexity"] == expected


def test_bootstrap_documented_defaults():
    """``n_boot=1000``, ``level=0.95``, ``mode="curve"``, ``alpha=0.02``, ``epsilon=0.05``, ``loss="error"``."""
    curves, asymptotic = _study(noise=0.05, speeds=(1.0, 1.05, 2.0, 3.0))
    default = bootstrap_ranks(curves, asymptotic, rng=np.random.default_rng(5))
    explicit = bootstrap_ranks(curves, asymptotic, rng=np.random.default_rng(5), n_boot=1000, level=0.95,
                               mode="curve", alpha=0.02, epsilon=0.05, loss="error")
    pd.testing.assert_frame_equal(default, explicit)
    assert not default.equals(bootstrap_ranks(curves, asymptotic, rng=np.random.default_rng(5), n_boot=999))


def test_bootstrap_is_deterministic_and_sane():
    curves, asymptotic = _study(noise=0.05, speeds=(1.0, 1.05, 2.0, 3.0))
    first = bootstrap_ranks(curves, asymptotic, rng=np.random.default_rng(5), n_boot=60)
    again = bootstrap_ranks(curves, asymptotic, rng=np.random.default_rng(5), n_boot=60)
    pd.testing.assert_frame_equal(first, again)
    other = bootstrap_ranks(curves, asymptotic, rng=np.random.default_rng(6), n_boot=60)
    assert not first.equals(other)
    assert list(first.columns) == ["classifier", "method", "mean_rank", "ci_low", "ci_high", "p_beats_rs"]
    assert (first.ci_low <= first.ci_high).all()
    assert first.loc[first.method != "RS", "p_beats_rs"].between(0, 1).all()
    assert first.loc[first.method == "RS", "p_beats_rs"].isna().all()
    final = first[first.classifier == "all"].set_index("method")
    study = rank_study(curves, asymptotic)
    assert final["mean_rank"].to_dict() == study.r4.set_index("method")["mean_rank"].to_dict()
    assert final.loc["BMRI", "p_beats_rs"] == 1.0  # three times RS's speed: never behind in any resample


def _better_in_replicate_0(problems, replicates=2):
    """One classifier, RS and A on every problem: A's curve is below RS's in replicate 0 (better on all four
    ranked metrics, reaching the target 0.105 at n = 3 instead of n = 4) and equal to RS's in the others."""
    rows = []
    for p in problems:
        for r in range(replicates):
            rows += [(p, "c", "RS", r, n, loss) for n, loss in zip((2, 3, 4), (0.5, 0.3, 0.1), strict=True)]
            a = (0.5, 0.1, 0.05) if r == 0 else (0.5, 0.3, 0.1)
            rows += [(p, "c", "A", r, n, loss) for n, loss in zip((2, 3, 4), a, strict=True)]
    curves = pd.DataFrame(rows, columns=["problem", "classifier", "strategy", "replicate", "n_labelled", "loss"])
    asymptotic = pd.DataFrame({"problem": list(problems), "classifier": "c", "asymptotic_loss": 0.1})
    return curves, asymptotic


@pytest.mark.parametrize("level", [0.95, 0.90])
def test_bootstrap_interval_has_its_level_on_a_known_distribution(level):
    # Six groups of one problem each, two replicates.  A resample (replicate mode) ties A with RS iff it
    # draws replicate 1 twice (probability 1/4), else A ranks first: A's R2 rank is 1.5 with probability 1/4,
    # else 1, independently per group, so its R3 mean rank is 1 + T / 12 with T ~ Binomial(6, 1/4).
    # Percentile interval: [1 + F^-1((1 - level) / 2) / 12, 1 + F^-1((1 + level) / 2) / 12].  Binomial(6, 1/4)
    # has F(0) = 0.178, F(2) = 0.831, F(3) = 0.962, F(4) = 0.9954: the 97.5 % quantile is 4 and the 95 % one 3,
    # and every CDF value is >= 0.012 away from 0.025, 0.05, 0.95 and 0.975 -- over 5 standard deviations of
    # an empirical CDF from 10000 draws (sd <= 0.0022), so the empirical quantiles are these exact values.
    problems = [f"p{i}" for i in range(6)]
    curves, asymptotic = _better_in_replicate_0(problems)
    groups = {f"g{i}": [p] for i, p in enumerate(problems)}
    out = bootstrap_ranks(curves, asymptotic, groups, rng=np.random.default_rng(11), n_boot=10_000, level=level,
                          mode="replicate").set_index(["classifier", "method"])
    T = stats.binom(6, 0.25)
    low, high = T.ppf((1 - level) / 2), T.ppf((1 + level) / 2)
    assert (low, high) == ((0, 4) if level == 0.95 else (0, 3))
    assert out.loc[("c", "A"), ["ci_low", "ci_high"]].tolist() == [1 + low / 12, 1 + high / 12]
    assert out.loc[("c", "RS"), ["ci_low", "ci_high"]].tolist() == [2 - high / 12, 2 - low / 12]
    # A beats RS (R3) unless every group ties: probability 1 - (1/4)^6 = 0.99976
    assert out.loc[("c", "A"), "p_beats_rs"] == pytest.approx(1 - 0.25**6, abs=0.002)


def test_bootstrap_counts_a_tie_with_rs_as_not_beating_it():
    # One problem, two replicates: A ties RS in a resample with probability 1/4 and beats it otherwise, so
    # p_beats_rs = 3/4 (a tie counted as a win would give 1); 4000 draws: sd 0.007, bound 0.035 (5 sd).
    curves, asymptotic = _better_in_replicate_0(["p"])
    groups = {"g": ["p"]}
    out = bootstrap_ranks(curves, asymptotic, groups, rng=np.random.default_rng(2), n_boot=4000, mode="replicate")
    assert out.set_index(["classifier", "method"]).loc[("c", "A"), "p_beats_rs"] == pytest.approx(0.75, abs=0.035)
    # A identical to RS in both replicates: tied in every draw, never beating it
    tied = curves[curves.replicate == 1]
    same = pd.concat([tied.assign(replicate=0), tied], ignore_index=True)
    out = bootstrap_ranks(same, asymptotic, groups, rng=np.random.default_rng(2), n_boot=50).set_index("method")
    assert (out.loc["A", "p_beats_rs"] == 0.0).all()
    assert (out.loc["A", "mean_rank"] == 1.5).all()


def test_bootstrap_with_one_replicate_gives_no_interval():
    # every resample of a single replicate is that replicate: no variability is known, so the interval and the
    # probability of beating RS are undefined (NaN), not a point; the mean rank is rank_study's
    curves, asymptotic = _study(replicates=1, noise=0.02)
    out = bootstrap_ranks(curves, asymptotic, rng=np.random.default_rng(0), n_boot=20)
    assert out[["ci_low", "ci_high", "p_beats_rs"]].isna().all().all()
    study = rank_study(curves, asymptotic)
    final = out[out.classifier == "all"].set_index("method")["mean_rank"]
    assert final.to_dict() == study.r4.set_index("method")["mean_rank"].to_dict()


# ---------------------------------------------------------------- bad input names the argument

@pytest.mark.parametrize("call, error, match", [
    (lambda: overall_rank(HAND.to_numpy(), RANKED_METRICS), TypeError, "metric_table must be a pandas DataFrame"),
    (lambda: overall_rank(HAND, {"aua": True}), ValueError, "higher_is_better has no direction for the metrics"),
    (lambda: overall_rank(HAND, dict.fromkeys(HAND.columns, "yes")), TypeError, r"higher_is_better\['aua'\] must be"),
    (lambda: overall_rank(HAND.assign(aua=np.nan), RANKED_METRICS), ValueError, "metric_table must be finite"),
    (lambda: overall_rank(pd.concat([HAND, HAND]), RANKED_METRICS), ValueError, "one row per method"),
    (lambda: aggregate(_long([("p", "A", 1)]), by="group"), ValueError, r"rank_table must have the columns"),
    (lambda: aggregate(_long([("p", "A", 0)]), by=[]), ValueError, r"rank_table\['rank'\] must be ranks >= 1"),
    (lambda: aggregate(_long([("p", "A", 1), ("p", "A", 2)]), by=[]), ValueError, "more than one rank for a method"),
    (lambda: aggregate(_long([("p", "A", 1)]), by=5), TypeError, "by must be a column name"),
    (lambda: aggregate(_long([("p", "A", 1)]), by="problem", over="problem"), ValueError, "must be distinct level"),
    (lambda: beats_rs_counts(_long([("p", "A", 1)]), by="problem"), ValueError, "reference 'RS' is not a method"),
    (lambda: rank_study(*_study(), groups={"g": ["quadratic"]}), ValueError,
     r"groups: the problems \['four-gaussian'\]"),
    (lambda: rank_study(*_study(), groups={"g": ["quadratic"], "h": ["quadratic", "four-gaussian"]}), ValueError,
     "is in two groups"),
    (lambda: rank_study(*_study(), groups=["quadratic"]), TypeError, "groups must be a dict"),
    (lambda: bootstrap_ranks(*_study(), rng=1), TypeError, "rng must be a numpy.random.Generator"),
    (lambda: bootstrap_ranks(*_study(), rng=np.random.default_rng(0), level=1.0), ValueError, r"level must lie in"),
    (lambda: bootstrap_ranks(*_study(), rng=np.random.default_rng(0), level=0.0), ValueError, r"level must lie in"),
    (lambda: overall_rank(pd.DataFrame(columns=list(RANKED_METRICS), dtype=float), RANKED_METRICS), ValueError,
     "at least one method and one metric"),
    (lambda: bootstrap_ranks(*_study(), rng=np.random.default_rng(0), n_boot=0), ValueError, "n_boot must be >= 1"),
])
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------------- aggregate and R5: details a reader relies on


@pytest.mark.parametrize("by, over", [(["method"], None), (["rank"], None), ([], ["method"]), ([], ["rank"])])
def test_aggregate_refuses_method_or_rank_as_a_level(by, over):
    table = _long([("p1", "A", 1), ("p1", "B", 2)])
    with pytest.raises(ValueError, match=r"must be distinct level columns \(not method or rank\)"):
        aggregate(table, by=by, over=over)


def test_aggregate_returns_a_fresh_range_index_and_only_its_columns():
    table = _long([("p1", "A", 2), ("p1", "B", 1), ("p2", "A", 1), ("p2", "B", 2), ("p3", "A", 1), ("p3", "B", 2)],
                  columns=("problem", "method", "rank"))
    out = aggregate(table, by=[])
    assert isinstance(out.index, pd.RangeIndex) and out.index.tolist() == [0, 1]
    assert "index" not in out.columns and out["method"].tolist() == ["A", "B"]  # A: mean 4/3, B: 5/3


def test_beats_rs_counts_a_tie_is_not_a_win_and_the_counts_are_integers_by_method():
    # unit u1: A ties RS (1.5 each), B last; u2: B beats RS, A ties RS again -> A 0 wins, B 1 win
    table = pd.DataFrame([("u1", "A", 1.5), ("u1", "RS", 1.5), ("u1", "B", 3.0),
                          ("u2", "B", 1.0), ("u2", "A", 2.5), ("u2", "RS", 2.5)], columns=["unit", "method", "rank"])
    counts = beats_rs_counts(table, by="unit")
    assert counts.to_dict() == {"B": 1, "A": 0}
    assert counts.index.name == "method" and counts.dtype.kind == "i"


def test_beats_rs_counts_keeps_first_appearance_order_among_equal_counts():
    # Z appears before A and both beat RS once: equal counts keep the table's order, not the alphabet's
    table = pd.DataFrame([("u1", "Z", 1.0), ("u1", "A", 2.0), ("u1", "RS", 3.0)], columns=["unit", "method", "rank"])
    assert list(beats_rs_counts(table, by="unit").index) == ["Z", "A"]


def _point_ranks(curves, asymptotic, **options) -> pd.Series:
    """R3 and R4 mean ranks of ``rank_study`` (whose metrics and ranks are tested above) in bootstrap's layout."""
    study = rank_study(curves, asymptotic, **options)
    both = pd.concat([study.r3, study.r4.assign(classifier="all")], ignore_index=True)
    return both.set_index(["classifier", "method"])["mean_rank"].sort_index()


@pytest.mark.parametrize("seed, options", [(2, {"mode": "replicate"}), (2, {"epsilon": 0.5}), (5, {"alpha": 0.5}),
                                           (5, {})])
def test_bootstrap_point_ranks_use_the_given_mode_alpha_and_epsilon(seed, options):
    """The observed mean ranks are those of the study ranked with the same settings (defaults: the paper's).

    Each setting is chosen where it changes the ranks, so an option that is not passed on is seen.
    """
    curves, asymptotic = _study(methods=("RS", "A", "B", "C"), speeds=(1.0, 1.05, 1.1, 0.95), replicates=3,
                                noise=0.03, seed=seed)
    asymptotic = asymptotic.assign(asymptotic_loss=0.2)
    boot = bootstrap_ranks(curves, asymptotic, rng=np.random.default_rng(0), n_boot=10, **options)
    point = boot.set_index(["classifier", "method"])["mean_rank"].sort_index()
    expected = _point_ranks(curves, asymptotic, **{"mode": "curve", "alpha": 0.02, "epsilon": 0.05, **options})
    pd.testing.assert_series_equal(point, expected, check_names=False)
    other = {"alpha": 0.5} if not options else {}
    assert not _point_ranks(curves, asymptotic, **other).equals(expected)  # the setting matters on these data


def test_rank_pairings_ranks_each_metric_within_its_pairing():
    """The metric ranks, their mean and the overall rank are per pairing (``keys``), by scipy's ``rankdata`` on
    each pairing alone: here the values of pairing q all lie above those of p, so ranks over the whole table
    would differ."""
    table = pd.DataFrame({"problem": ["p"] * 3 + ["q"] * 3, "method": ["A", "B", "C"] * 2,
                          "aua": [0.1, 0.3, 0.2, 0.9, 0.7, 0.8], "wi": [0.05, 0.01, 0.02, 0.6, 0.9, 0.5]})
    out = rank_pairings(table, {"aua": True, "wi": False}, keys=["problem"])
    for _, rows in out.groupby("problem"):
        np.testing.assert_array_equal(rows["rank_aua"], rankdata(-rows["aua"]))
        np.testing.assert_array_equal(rows["rank_wi"], rankdata(rows["wi"]))
        mean = (rankdata(-rows["aua"]) + rankdata(rows["wi"])) / 2
        np.testing.assert_array_equal(rows["mean_rank"], mean)
        np.testing.assert_array_equal(rows["rank"], rankdata(mean))


def test_rank_study_r1_has_the_group_after_the_problem():
    """R1's key columns (as the study report writes them): problem, its group, classifier, method."""
    curves, asymptotic = _study()
    r1 = rank_study(curves, asymptotic, groups={"g": sorted(curves["problem"].unique())}).r1
    assert list(r1.columns[:4]) == ["problem", "group", "classifier", "method"]
    assert (r1["group"] == "g").all()
