"""Bootstrap intervals over replicates need at least two replicates (issue 40).

A pairing with a single replicate tells nothing of the variability between replicates: every bootstrap draw
brings it back, so an interval over it would have zero width, as if certain.  ``leaderboard`` and
``bootstrap_ranks`` report such intervals (and ``bootstrap_ranks``' ``p_beats_rs``) as NaN, undefined, while
the means stay.  With two replicates the interval is finite and is checked against an independent bootstrap:
the documented generator rule re-implemented plainly (``leaderboard``), and the exact distribution of the
resampled ranks, a binomial (``bootstrap_ranks``).

Expected values are hand values: every state has the true Q^c ``[0, 1, 2, 3]``, and a strategy ``pick`` scoring
candidate ``i`` 1 and the others 0 chooses ``i``, so its normalised shortfall is ``(3 - i) / 1.5``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mri_theory.evaluation import bootstrap_ranks, leaderboard, rank_study

COLUMNS = ["problem", "classifier", "trajectory", "replicate", "step", "n_labelled", "strategy", "candidate",
           "score", "true_q_c", "loss", "t_e", "t_e_estimate", "resolved"]
Q = np.array([0.0, 1.0, 2.0, 3.0])
CI = [f"{stat}_ci_{side}" for stat in ("spearman", "kendall", "shortfall", "normalised_shortfall", "lambda_hat",
                                       "top_k_hit") for side in ("low", "high")]


def states_table(states) -> pd.DataFrame:
    """The state table of ``(problem, replicate, n_labelled, pick's choice)`` states, ``pick`` scored in each."""
    rows = []
    for problem, replicate, n_labelled, i in states:
        for c in range(4):
            rows.append((problem, "c", "RS", replicate, n_labelled - 2, n_labelled, "pick", 20 + c,
                         float(c == i), Q[c], 0.3, 0.3 - Q[c], np.nan, 1.0))
    return pd.DataFrame(rows, columns=COLUMNS)


def shortfall(i: int) -> float:
    return (3 - i) / 1.5


def test_one_replicate_gives_no_leaderboard_interval():
    states = [("pa", 0, 10, 3), ("pa", 0, 11, 0), ("pa", 0, 60, 1)]
    board = leaderboard(states_table(states), n_boot=50).set_index(["phase", "strategy"])
    assert board[CI].isna().all().all()  # every row, every statistic: undefined, not a point
    assert board.loc[("all", "pick"), "normalised_shortfall"] == pytest.approx(np.mean([2, 0, 4 / 3]))
    assert board.loc[("≤12", "pick"), "normalised_shortfall"] == pytest.approx(1.0)
    assert board.loc[("≤12", "pick"), "states"] == 2


def plain_interval(states, phase, n_boot, seed, level):
    """The percentile interval of pick's mean normalised shortfall over ``phase``'s states (a predicate on
    ``n_labelled``), by the documented rule: per pairing in sorted order, ``integers(0, R, size=(n_boot, R))``
    indexes its replicates in ascending order; each draw's drawn replicates bring their states."""
    rng = np.random.default_rng(seed)
    cells = sorted({s[0] for s in states})
    replicates = {cell: sorted({s[1] for s in states if s[0] == cell}) for cell in cells}
    draws = {cell: rng.integers(0, len(replicates[cell]), size=(n_boot, len(replicates[cell]))) for cell in cells}
    means = []
    for b in range(n_boot):
        values = [shortfall(s[3]) for cell in cells for j in draws[cell][b] for s in states
                  if s[0] == cell and s[1] == replicates[cell][j] and phase(s[2])]
        means.append(np.mean(values))
    tail = (1 - level) / 2
    return np.quantile(means, tail), np.quantile(means, 1 - tail)


def test_a_single_replicate_pairing_makes_only_its_rows_undefined():
    """Pairing pa has two replicates (phase ≤12 only); pb has one (phase >50 only).  The ≤12 rows come from pa
    alone: finite, and the plain bootstrap's; the >50 and "all" rows hold pb's values: undefined."""
    states = [("pa", 0, 10, 3), ("pa", 0, 11, 2), ("pa", 1, 10, 0), ("pa", 1, 12, 1),
              ("pb", 4, 60, 1), ("pb", 4, 70, 2)]
    board = leaderboard(states_table(states), n_boot=400, seed=9, level=0.9).set_index(["phase", "strategy"])
    low, high = plain_interval(states, lambda n: n <= 12, 400, 9, 0.9)
    pick = board.loc[("≤12", "pick")]
    assert [pick.normalised_shortfall_ci_low, pick.normalised_shortfall_ci_high] == pytest.approx([low, high],
                                                                                                  abs=1e-12)
    assert np.isfinite([low, high]).all() and low < pick.normalised_shortfall < high  # replicate means 5/3, 5/6
    assert board.loc["≤12", CI].notna().all().all()
    for phase in (">50", "all"):
        assert board.loc[phase, CI].isna().all().all(), phase
    assert board.loc[(">50", "pick"), "normalised_shortfall"] == pytest.approx((shortfall(1) + shortfall(2)) / 2)


def test_two_replicates_give_the_exact_bootstrap_interval():
    """One pairing, two replicates with mean normalised shortfalls 2 and 0: a resample's mean is 2, 1 or 0 with
    probabilities 1/4, 1/2, 1/4, so the 80 % percentile interval is [0, 2] and the 40 % one [1, 1]; with 4000
    draws the empirical 10 % and 90 % quantiles are those atoms unless the empirical CDF is off by more than
    0.15 (at 0.25 - 0.10: 22 standard errors)."""
    states = [("pa", 0, 20, 0), ("pa", 1, 20, 3)]
    for level, expected in ((0.8, [0.0, 2.0]), (0.4, [1.0, 1.0])):
        row = leaderboard(states_table(states), phases=[], n_boot=4000, level=level).set_index("strategy").loc["pick"]
        assert [row.normalised_shortfall_ci_low, row.normalised_shortfall_ci_high] == pytest.approx(expected)
        assert row.normalised_shortfall == pytest.approx(1.0)


def curves_table(pairings):
    """Curves of RS and A per ``(problem, classifier, replicates)``: A's curve is below RS's in replicate 0 (better
    on every ranked metric) and equal to it in the others; asymptotic loss 0.1 everywhere."""
    rows = []
    for problem, classifier, replicates in pairings:
        for r in range(replicates):
            rows += [(problem, classifier, "RS", r, n, loss) for n, loss in zip((2, 3, 4), (0.5, 0.3, 0.1),
                                                                              strict=True)]
            a = (0.5, 0.1, 0.05) if r == 0 else (0.5, 0.3, 0.1)
            rows += [(problem, classifier, "A", r, n, loss) for n, loss in zip((2, 3, 4), a, strict=True)]
    curves = pd.DataFrame(rows, columns=["problem", "classifier", "strategy", "replicate", "n_labelled", "loss"])
    asymptotic = curves[["problem", "classifier"]].drop_duplicates().assign(asymptotic_loss=0.1)
    return curves, asymptotic


def test_one_replicate_gives_no_rank_interval():
    curves, asymptotic = curves_table([("p", "c", 1), ("q", "c", 1)])
    groups = {"g": ["p", "q"]}
    out = bootstrap_ranks(curves, asymptotic, groups, rng=np.random.default_rng(0), n_boot=30)
    assert out[["ci_low", "ci_high", "p_beats_rs"]].isna().all().all()
    assert out.set_index(["classifier", "method"]).loc[("c", "A"), "mean_rank"] == 1.0  # A better in its replicate
    r3 = rank_study(curves, asymptotic, groups).r3.set_index("method")["mean_rank"]
    assert out[out.classifier == "c"].set_index("method")["mean_rank"].to_dict() == r3.to_dict()


def test_a_single_replicate_pairing_leaves_the_other_classifier_s_interval_exact():
    """Classifier c: six problems (one group each) of two replicates.  A resample (replicate mode) ties A with RS
    in a problem iff it draws replicate 1 twice (probability 1/4), else A ranks first, so A's R3 mean rank is
    1 + T / 12 with T ~ Binomial(6, 1/4): at level 0.95 the interval [1, 1 + 4/12] (the argument of
    tests/evaluation/test_ranking.py: every CDF value is over 5 standard errors of 10 000 draws from the
    quantiles).  Classifier d has a pairing of one replicate: its rows and the overall ones are undefined."""
    problems = [f"p{i}" for i in range(6)]
    curves, asymptotic = curves_table([(p, "c", 2) for p in problems] + [("p0", "d", 1)])
    groups = {f"g{i}": [p] for i, p in enumerate(problems)}
    out = bootstrap_ranks(curves, asymptotic, groups, rng=np.random.default_rng(11), n_boot=10_000, level=0.95,
                          mode="replicate").set_index(["classifier", "method"])
    T = stats.binom(6, 0.25)
    low, high = T.ppf(0.025), T.ppf(0.975)
    assert out.loc[("c", "A"), ["ci_low", "ci_high"]].tolist() == [1 + low / 12, 1 + high / 12]
    assert out.loc[("c", "RS"), ["ci_low", "ci_high"]].tolist() == [2 - high / 12, 2 - low / 12]
    assert out.loc[("c", "A"), "p_beats_rs"] == pytest.approx(1 - 0.25**6, abs=0.002)
    for classifier in ("d", "all"):
        assert out.loc[classifier, ["ci_low", "ci_high", "p_beats_rs"]].isna().all().all(), classifier
        assert out.loc[classifier, "mean_rank"].notna().all()


def test_the_command_line_shows_an_undefined_interval_as_such():
    from mri_theory.cli import _board_text

    one = leaderboard(states_table([("pa", 0, 10, 3), ("pa", 0, 11, 0)]), phases=[], n_boot=20)
    two = leaderboard(states_table([("pa", 0, 10, 3), ("pa", 1, 11, 0)]), phases=[], n_boot=400)  # both extremes drawn
    assert "1.000 [n/a]" in _board_text(one.assign(cpu_s=0.0)) and "nan" not in _board_text(one.assign(cpu_s=0.0))
    assert "1.000 [0.000, 2.000]" in _board_text(two.assign(cpu_s=0.0))


def test_one_replicate_gives_no_paired_difference_interval():
    """Issue 54: with a single replicate the paired differences' intervals are NaN too, as the ranks' (they were
    zero-width, ``[d, d]``); the difference itself stays.  Loss areas by the trapezoid on n = 2, 3, 4: A's
    (0.5 + 0.1)/2 + (0.1 + 0.05)/2 = 0.375, RS's (0.5 + 0.3)/2 + (0.3 + 0.1)/2 = 0.6, over a width of 2: AUA (the
    area above the curve per label) of A - RS = (0.6 - 0.375) / 2 = 0.1125."""
    from mri_theory.evaluation import conclusions, paired_differences

    curves, asymptotic = curves_table([("p", "c", 1), ("q", "c", 2)])
    out = paired_differences(curves, asymptotic, [("A", "RS")], rng=np.random.default_rng(0), n_boot=50)
    assert out[["ci_low", "ci_high"]].isna().all().all()
    p_only = curves[curves.problem == "p"]
    one = paired_differences(p_only, asymptotic[asymptotic.problem == "p"], [("A", "RS")],
                             rng=np.random.default_rng(0), n_boot=50).iloc[0]
    assert one.difference == pytest.approx((0.6 - 0.375) / 2) and np.isnan(one.ci_low) and np.isnan(one.ci_high)
    two = paired_differences(curves[curves.problem == "q"], asymptotic[asymptotic.problem == "q"], [("A", "RS")],
                             rng=np.random.default_rng(0), n_boot=200).iloc[0]
    assert two.ci_low == pytest.approx(0.0) and two.ci_high == pytest.approx(0.1125)  # both extremes drawn
    table = conclusions(curves.replace({"A": "BMRI"}), asymptotic, {"g": ["p", "q"]}, n_boot=30, paper_groups=())
    intervals = table[table.quantity.isin(["final_rank", "difference"])]
    assert len(intervals) and intervals[["ci_low", "ci_high"]].isna().all().all()  # every interval, consistently
