"""The leaderboard of the state table: means per phase, anchors, sort order, bootstrap intervals over replicates.

Expected values come from independent computations on hand-built tables in which every state has the true
Q^c ``[0, 1, 2, 3]`` (so max Q - mean Q = 1.5) and a strategy ``pick`` scores one candidate ``i`` 1 and the
others 0: its choice is ``i``, so its shortfall is ``3 - i``, its normalised shortfall ``(3 - i) / 1.5``, its
lambda_hat ``(i + 1.5) / 6`` (``i`` pairs ordered right, ``3 - i`` wrong, three pairs tied: 1/2 each), its
top-2 hit ``i >= 2``, and its rank correlations scipy's on the raw vectors.  A strategy scoring ``Q`` itself
is optimal (0, 1, 1, 1, 1) and a constant score is random selection's exact expectation (1, 0, 0, 1/2, 2/4).

* The bootstrap is re-implemented plainly: for each draw, the replicates drawn (with the generator rule of the
  module docstring) bring their states; the phase's mean over them; percentiles of the draws.
* The interval's level is checked against the exact bootstrap distribution of the mean of four replicates,
  enumerated (4**4 equally likely resamples): with 10 000 draws the percentile interval at level 0.8 is the
  exact 10 % and 90 % quantile of that distribution unless the empirical CDF there is off by more than 12
  binomial standard errors (the margin is checked in the test; probability below 1e-30).

Sizes: at most 12 states per table (each (state, strategy) costs a rank correlation).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mri_theory.evaluation import (
    ANCHORS,
    LEADERBOARD_COST_COLUMNS,
    LEADERBOARD_STATISTICS,
    PHASE_EDGES,
    leaderboard,
    leaderboard_options,
)

#: The contract of the tidy table, written out independently of the package.
COLUMNS = ["problem", "classifier", "trajectory", "replicate", "step", "n_labelled", "strategy", "candidate",
           "score", "true_q_c", "loss", "t_e", "t_e_estimate", "resolved"]
Q = np.array([0.0, 1.0, 2.0, 3.0])
STATS = ["spearman", "kendall", "shortfall", "normalised_shortfall", "lambda_hat", "top_k_hit"]
TOP_K = 2

#: (problem, replicate, n_labelled, pick's choice, resolved); two pairings ("pa", "pb"; classifier "c"), the
#: second with replicate ids 3 and 7, each replicate holding two states; n_labelled at the edges 12/13, 50/51.
STATES = [("pa", 0, 12, 3, 1.0), ("pa", 0, 51, 0, 1.0),
          ("pa", 1, 13, 1, 1.0), ("pa", 1, 50, 2, 1.0),
          ("pa", 2, 12, 0, 1.0), ("pa", 2, 50, 3, 0.0),
          ("pb", 3, 13, 2, 1.0), ("pb", 3, 51, 1, 1.0),
          ("pb", 7, 12, 1, 1.0), ("pb", 7, 13, 3, 1.0)]


def onehot(i: int) -> np.ndarray:
    score = np.zeros(4)
    score[i] = 1.0
    return score


def table(states, scores) -> pd.DataFrame:
    """``scores(state) -> {strategy: scores}`` for every state ``(problem, replicate, n_labelled, i, resolved)``."""
    rows = []
    for state in states:
        problem, replicate, n_labelled, _, resolved = state
        for strategy, score in scores(state).items():
            for c in range(4):
                rows.append((problem, "c", "RS", replicate, n_labelled - 2, n_labelled, strategy, 20 + c,
                             float(score[c]), Q[c], 0.3, 0.3 - Q[c], np.nan, resolved))
    return pd.DataFrame(rows, columns=COLUMNS)


def measured(state) -> dict:
    return {"Q": Q.copy(), "pick": onehot(state[3])}  # Q first: appearance alone would put it before MRI-best


def hand(strategy: str, i: int) -> dict:
    """Every statistic of a strategy in a state where pick chooses ``i`` (module docstring)."""
    if strategy in ("Q", "MRI-best"):
        return dict(spearman=1.0, kendall=1.0, shortfall=0.0, normalised_shortfall=0.0, lambda_hat=1.0,
                    top_k_hit=1.0)
    if strategy == "RS":
        return dict(spearman=0.0, kendall=0.0, shortfall=1.5, normalised_shortfall=1.0, lambda_hat=0.5,
                    top_k_hit=0.5)
    return dict(spearman=stats.spearmanr(onehot(i), Q).statistic, kendall=stats.kendalltau(onehot(i), Q).statistic,
                shortfall=3.0 - i, normalised_shortfall=(3.0 - i) / 1.5, lambda_hat=(i + 1.5) / 6,
                top_k_hit=float(i >= TOP_K))


def phase_of(n: int) -> str:
    return "≤12" if n <= 12 else ("13–50" if n <= 50 else ">50")


COST = pd.DataFrame(
    [("pa", "c", "RS", 0, 10, "pick", 1.0), ("pa", "c", "RS", 0, 10, "Q", 0.5), ("pa", "c", "RS", 2, 10, "pick", 3.0),
     ("pa", "c", "RS", 1, 11, "pick", 2.0), ("pb", "c", "RS", 3, 49, "pick", 4.0),
     ("pa", "c", "RS", 9, 10, "pick", 100.0),  # a state not in the table
     ("pa", "c", "RS", 0, 10, "LC", 100.0)],  # a strategy not in the table
    columns=LEADERBOARD_COST_COLUMNS)


@pytest.fixture(scope="module")
def board():
    return leaderboard(table(STATES, measured), top_k=TOP_K, n_boot=60, seed=7, cost=COST)


# ------------------------------------------------------------------ means, phases, anchors, order


def test_the_means_per_phase_are_the_hand_values(board):
    expected = {}
    for _, _, n, i, resolved in STATES:
        for phase in (phase_of(n), "all"):
            for strategy in ("Q", "pick", "MRI-best", "RS"):
                entry = expected.setdefault((phase, strategy), {"states": 0, "resolved": [], "values": []})
                entry["states"] += int(resolved)  # the states the means are over (resolved_only=True)
                entry["resolved"].append(resolved)
                if resolved:  # an unresolved state's statistics are left out (resolved_only=True)
                    entry["values"].append(hand(strategy, i))
    got = board.set_index(["phase", "strategy"])
    assert set(got.index) == set(expected)
    for key, entry in expected.items():
        row = got.loc[key]
        assert row["states"] == entry["states"] and row["resolved"] == pytest.approx(np.mean(entry["resolved"]))
        for stat in STATS:
            assert row[stat] == pytest.approx(np.mean([v[stat] for v in entry["values"]]), abs=1e-12), (key, stat)


def test_the_phases_cut_at_12_13_and_50_51(board):
    assert list(pd.unique(board.phase)) == ["≤12", "13–50", ">50", "all"]
    counts = board[board.strategy == "pick"].set_index("phase")["states"].to_dict()
    # n = 12 | 13, 13, 50, 50, 13 | 51, 51; the state ("pa", 2, 50) is not resolved: not averaged
    assert counts == {"≤12": 3, "13–50": 4, ">50": 2, "all": 9}


def test_other_edges_and_no_edges():
    states = [("pa", 0, 12, 3, 1.0), ("pa", 0, 13, 0, 1.0), ("pa", 1, 14, 1, 1.0)]
    # one strategy and the two anchors made from the truth: 9 (state, strategy) blocks
    out = leaderboard(table(states, lambda s: {"pick": onehot(s[3])}), phases=[12, 13], n_boot=5)
    pick = out[out.strategy == "pick"].set_index("phase")
    assert list(pick.index) == ["≤12", "13", ">13", "all"]
    assert pick.normalised_shortfall.tolist() == pytest.approx([0.0, 2.0, 4 / 3, 10 / 9])
    only_all = leaderboard(table(states, lambda s: {"pick": onehot(s[3])}), phases=[], n_boot=5)
    assert set(only_all.phase) == {"all"}
    assert only_all.drop(columns="phase").reset_index(drop=True).equals(
        out[out.phase == "all"].drop(columns="phase").reset_index(drop=True))
    # an empty phase has no rows
    assert set(leaderboard(table(states, lambda s: {"pick": onehot(s[3])}), phases=[5, 12], n_boot=5).phase) == {
        "6–12", ">12", "all"}


def test_sorted_by_normalised_shortfall_with_the_anchors(board):
    order = {phase: rows.strategy.tolist() for phase, rows in board.groupby("phase", sort=False)}
    # pick's means: ≤12: (0 + 2 + 4/3) / 3 = 10/9; 13–50: (4/3 + 2/3 + 2/3 + 0) / 4 = 2/3; >50: (2 + 4/3) / 2;
    # all: 28/27.  Q ties MRI-best at 0: the anchor first, although Q comes first in the table
    assert order == {"≤12": ["MRI-best", "Q", "RS", "pick"], "13–50": ["MRI-best", "Q", "pick", "RS"],
                     ">50": ["MRI-best", "Q", "RS", "pick"], "all": ["MRI-best", "Q", "RS", "pick"]}
    assert board.anchor.tolist() == [s in ("MRI-best", "RS") for s in board.strategy]
    assert ANCHORS == ("MRI-best", "RS") and PHASE_EDGES == (12, 50)
    for _, rows in board.groupby("phase", sort=False):
        assert np.all(np.diff(rows.normalised_shortfall.to_numpy()) >= 0)


def test_the_columns():
    assert tuple(STATS) == LEADERBOARD_STATISTICS
    out = leaderboard(table(STATES[:2], measured), n_boot=3)
    ci = [c for stat in STATS for c in (stat, f"{stat}_ci_low", f"{stat}_ci_high")]
    assert list(out.columns) == ["phase", "strategy", "anchor", "states", "resolved", *ci]


def test_scored_anchors_are_used_and_made_only_where_missing():
    """Pairing "pa" scores MRI-best (here by -Q, to tell it from the truth's) and RS (by -Q too); "pb" neither:
    there both are made from the truth.  One row each per phase."""
    states = [("pa", 0, 20, 3, 1.0), ("pb", 0, 20, 3, 1.0)]

    def scores(state):
        out = {"pick": onehot(state[3])}
        if state[0] == "pa":
            out |= {"MRI-best": -Q, "RS": -Q}
        return out

    board = leaderboard(table(states, scores), n_boot=5)
    assert board.phase.tolist() == ["13–50"] * 3 + ["all"] * 3
    out = board[board.phase == "13–50"].set_index("strategy")
    assert out.anchor.to_dict() == {"pick": False, "MRI-best": True, "RS": True}
    # -Q chooses candidate 0: normalised shortfall 2 in "pa"; the made ones give 0 and 1 in "pb"
    assert out.loc["MRI-best", "normalised_shortfall"] == pytest.approx((2 + 0) / 2)
    assert out.loc["RS", "normalised_shortfall"] == pytest.approx((2 + 1) / 2)
    assert out.loc["MRI-best", "states"] == 2


# ------------------------------------------------------------------ the bootstrap


def plain_bootstrap(states, n_boot: int, seed: int, level: float) -> dict:
    """The percentile intervals, plainly: per draw, concatenate the states of the drawn replicates, take the mean
    of each (phase, strategy) over them (unresolved states left out), then the percentiles over the draws."""
    rng = np.random.default_rng(seed)
    cells = sorted({s[0] for s in states})  # (problem, "c"), sorted
    replicates = {cell: sorted({s[1] for s in states if s[0] == cell}) for cell in cells}
    draws = {cell: rng.integers(0, len(replicates[cell]), size=(n_boot, len(replicates[cell]))) for cell in cells}
    values: dict = {}
    for b in range(n_boot):
        drawn = [s for cell in cells for j in draws[cell][b] for s in states
                 if s[0] == cell and s[1] == replicates[cell][j]]
        for strategy in ("Q", "pick", "MRI-best", "RS"):
            for phase in ("≤12", "13–50", ">50", "all"):
                chosen = [hand(strategy, s[3]) for s in drawn
                          if s[4] == 1.0 and phase in (phase_of(s[2]), "all")]
                for stat in STATS:
                    mean = np.mean([v[stat] for v in chosen]) if chosen else np.nan
                    values.setdefault((phase, strategy, stat), []).append(mean)
    tail = (1 - level) / 2
    out = {}
    for key, v in values.items():
        v = np.array(v)
        v = v[np.isfinite(v)]
        out[key] = (np.quantile(v, tail), np.quantile(v, 1 - tail)) if v.size else (np.nan, np.nan)
    return out


def test_the_intervals_are_the_plain_bootstrap_over_replicates(board):
    expected = plain_bootstrap(STATES, 60, 7, 0.95)
    got = board.set_index(["phase", "strategy"])
    for (phase, strategy, stat), (low, high) in expected.items():
        row = got.loc[(phase, strategy)]
        assert row[f"{stat}_ci_low"] == pytest.approx(low, abs=1e-12), (phase, strategy, stat)
        assert row[f"{stat}_ci_high"] == pytest.approx(high, abs=1e-12), (phase, strategy, stat)
    pick = got.loc[("all", "pick")]
    assert pick["normalised_shortfall_ci_low"] < pick["normalised_shortfall"] < pick["normalised_shortfall_ci_high"]


def test_the_resampling_unit_is_the_replicate_of_a_pairing():
    """Two states of one replicate always travel together: the same four states (normalised shortfalls 0, 2, 0,
    2), each replicate holding one of each, give every draw the mean 1, so the interval is a point; grouped
    into a replicate of 0s and one of 2s, the draws range from 0 to 2."""
    together = [("pa", 0, 12, 3, 1.0), ("pa", 0, 13, 0, 1.0), ("pa", 1, 12, 3, 1.0), ("pa", 1, 13, 0, 1.0)]
    apart = [("pa", 0, 12, 3, 1.0), ("pa", 0, 13, 3, 1.0), ("pa", 1, 12, 0, 1.0), ("pa", 1, 13, 0, 1.0)]
    rows = {}
    for name, states in (("together", together), ("apart", apart)):
        out = leaderboard(table(states, lambda s: {"pick": onehot(s[3])}), n_boot=200, phases=[])
        rows[name] = out.set_index("strategy").loc["pick"]
    assert rows["together"].normalised_shortfall_ci_low == rows["together"].normalised_shortfall_ci_high == 1.0
    assert rows["apart"].normalised_shortfall_ci_low == 0.0 and rows["apart"].normalised_shortfall_ci_high == 2.0


FOUR = [("pa", r, 20, r, 1.0) for r in range(4)]  # pick's normalised shortfall 2, 4/3, 2/3, 0


@pytest.fixture(scope="module")
def four():
    return table(FOUR, lambda s: {"pick": onehot(s[3])})


def test_the_level_is_that_of_the_exact_bootstrap_distribution(four):
    level, n_boot = 0.8, 10_000
    values = [(3 - i) / 1.5 for i in range(4)]
    means = np.array([np.mean(d) for d in itertools.product(values, repeat=4)])  # 256 equally likely resamples
    atoms = np.unique(np.round(means, 12))
    cdf = np.array([np.mean(means <= a + 1e-9) for a in atoms])
    se = np.sqrt(0.1 * 0.9 / n_boot)
    bounds = []
    for p in ((1 - level) / 2, (1 + level) / 2):
        k = int(np.argmax(cdf >= p))  # the exact p-quantile: the first atom whose CDF reaches p
        below = cdf[k - 1] if k else 0.0
        assert min(cdf[k] - p, p - below) > 12 * se  # the empirical quantile is this atom but with p < 1e-30
        bounds.append(atoms[k])
    out = leaderboard(four, phases=[], n_boot=n_boot, seed=3, level=level).set_index("strategy").loc["pick"]
    assert out.normalised_shortfall == pytest.approx(np.mean(values))
    assert [out.normalised_shortfall_ci_low, out.normalised_shortfall_ci_high] == pytest.approx(bounds, abs=1e-12)
    assert bounds == pytest.approx([0.5, 1.5])  # the mean is S / 6, S the sum of four uniform {0..3}: S = 3 | 9


def test_the_draws_are_fixed_by_the_seed(four):
    first = leaderboard(four, n_boot=50, seed=11)
    assert first.equals(leaderboard(four, n_boot=50, seed=11))
    other = leaderboard(four, n_boot=50, seed=12)
    assert not first.equals(other)
    assert first.drop(columns=[c for c in first if "_ci_" in c]).equals(
        other.drop(columns=[c for c in other if "_ci_" in c]))  # the means do not depend on the draws


# ------------------------------------------------------------------ the cost


def test_the_cost_is_the_mean_cpu_seconds_of_the_timed_states(board):
    cost = board.set_index(["phase", "strategy"])[["cpu_s", "timed_states"]]
    # pick timed in (pa, 0, n 12), (pa, 2, n 12), (pa, 1, n 13), (pb, 3, n 51); Q in (pa, 0, n 12)
    assert cost.loc[("≤12", "pick")].tolist() == [pytest.approx(2.0), 2]
    assert cost.loc[("13–50", "pick")].tolist() == [pytest.approx(2.0), 1]
    assert cost.loc[(">50", "pick")].tolist() == [pytest.approx(4.0), 1]
    assert cost.loc[("all", "pick")].tolist() == [pytest.approx(2.5), 4]
    assert cost.loc[("all", "Q")].tolist() == [pytest.approx(0.5), 1]
    assert np.isnan(cost.loc[("all", "RS"), "cpu_s"]) and cost.loc[("all", "RS"), "timed_states"] == 0
    assert cost.loc[(">50", "Q"), "timed_states"] == 0


def test_the_cost_changes_no_other_column(board):
    without = leaderboard(table(STATES, measured), top_k=TOP_K, n_boot=60, seed=7)
    assert without.equals(board.drop(columns=["cpu_s", "timed_states"]))


def test_the_options_are_checked_and_returned():
    assert leaderboard_options() == {"phases": (12, 50), "n_boot": 1000, "seed": 0, "level": 0.95, "top_k": 5,
                                     "resolved_only": True}
    assert leaderboard_options(phases=np.array([3, 7]), n_boot=np.int64(5))["phases"] == (3, 7)
    with pytest.raises(ValueError, match="^phases must be strictly increasing edges, got \\[7, 7\\]"):
        leaderboard_options(phases=[7, 7])


# ------------------------------------------------------------------ paired differences, Holm-corrected


def test_holm_against_statsmodels_rule_by_hand():
    """Holm's step-down: sorted p 0.01, 0.02, 0.03, 0.5 of m = 4 give 0.04, max(0.06, 0.04), max(0.06, 0.06), 0.5;
    NaN stays NaN and is not counted."""
    from mri_theory.evaluation import holm

    np.testing.assert_allclose(holm([0.03, 0.5, np.nan, 0.01, 0.02]), [0.06, 0.5, np.nan, 0.04, 0.06])
    np.testing.assert_allclose(holm([0.4, 0.3]), [0.6, 0.6])
    with pytest.raises(ValueError, match="p_values must lie in"):
        holm([0.2, 1.5])


def plain_differences(states, first, second, n_boot, seed):
    """The paired difference of normalised shortfall, plainly: per draw, the drawn replicates' states (resolved),
    the mean of first's value minus second's; its observed value and the draws."""
    rng = np.random.default_rng(seed)
    cells = sorted({s[0] for s in states})
    replicates = {cell: sorted({s[1] for s in states if s[0] == cell}) for cell in cells}
    draws = {cell: rng.integers(0, len(replicates[cell]), size=(n_boot, len(replicates[cell]))) for cell in cells}

    def d(state):
        return hand(first, state[3])["normalised_shortfall"] - hand(second, state[3])["normalised_shortfall"]

    observed = np.mean([d(s) for s in states if s[4] == 1.0])
    boot = []
    for b in range(n_boot):
        drawn = [s for cell in cells for j in draws[cell][b] for s in states
                 if s[0] == cell and s[1] == replicates[cell][j] and s[4] == 1.0]
        boot.append(np.mean([d(s) for s in drawn]) if drawn else np.nan)
    return observed, np.array(boot)


def test_strategy_differences_are_paired_bootstraps_with_holm_levels():
    from mri_theory.evaluation import DIFFERENCE_COLUMNS, holm, strategy_differences

    out = strategy_differences(table(STATES, measured), phases=[], n_boot=80, seed=3, level=0.9, top_k=TOP_K)
    assert list(out.columns) == DIFFERENCE_COLUMNS and set(out.phase) == {"all"}
    # the strategies in the table's order, then the anchors: Q, pick, MRI-best, RS -> 6 pairs
    assert list(zip(out["first"], out["second"], strict=True)) == [
        ("Q", "pick"), ("Q", "MRI-best"), ("Q", "RS"), ("pick", "MRI-best"), ("pick", "RS"), ("MRI-best", "RS")]
    row = out.set_index(["first", "second"]).loc[("pick", "RS")]
    observed, boot = plain_differences(STATES, "pick", "RS", 80, 3)
    se = np.std(boot, ddof=1)
    assert row.difference == pytest.approx(observed, abs=1e-12)
    assert row.p_value == pytest.approx(2 * stats.norm.sf(abs(observed) / se), rel=1e-9)
    np.testing.assert_allclose(out.p_holm, holm(out.p_value.to_numpy()))
    finite = out[np.isfinite(out.p_value)].sort_values("p_value", kind="stable")
    m = len(finite)  # Q and MRI-best have equal values in every state: difference 0, p = 1
    expected_levels = [1 - 0.1 / (m - i) for i in range(m)]
    np.testing.assert_allclose(finite["level"], expected_levels)
    z = stats.norm.ppf(1 - (1 - row.level) / 2)
    assert (row.ci_low, row.ci_high) == pytest.approx((observed - z * se, observed + z * se), abs=1e-12)
    same = out.set_index(["first", "second"]).loc[("Q", "MRI-best")]
    assert same.difference == 0 and same.p_value == 1.0


def test_strategy_differences_resolve_holm_levels_beyond_the_draws():
    """With many strategies Holm's smallest level lies beyond what the draws' percentiles resolve; the normal form
    still separates a clear difference: 24 strategies, one of them always optimal."""
    from mri_theory.evaluation import strategy_differences

    states = [("p" + str(r % 4), r, 20, r % 4, 1.0) for r in range(40)]

    def scores(state):
        out = {f"s{k}": onehot((state[3] + k) % 4) for k in range(22)}
        return {**out, "Q": Q.copy(), "pick": onehot(state[3])}

    out = strategy_differences(table(states, scores), phases=[], n_boot=200, seed=0, top_k=TOP_K)
    m = int(out.p_value.notna().sum())
    assert m > 300  # Holm's smallest level: 1 - 0.05 / m, tails of 8e-5, below 1 / 200
    row = out.set_index(["first", "second"]).loc[("Q", "RS")]  # 0 against 1 in every state: no spread at all
    assert row.difference == -1.0 and row.p_value == 0.0 and row.p_holm == 0.0
    assert out.p_holm.lt(0.05).sum() > 1 and (out.ci_high[out.p_holm < 0.05] < 0).any()


def test_strategy_differences_refuse_an_unknown_statistic():
    from mri_theory.evaluation import strategy_differences

    with pytest.raises(ValueError, match="statistic must be one of"):
        strategy_differences(table(STATES, measured), statistic="regret")


# ------------------------------------------------------------------ the per-state statistics


def test_state_statistics_are_the_hand_values_with_the_anchors_made():
    from mri_theory.evaluation import STATE_STATISTICS_COLUMNS, state_statistics

    per = state_statistics(table(STATES, measured), top_k=TOP_K)
    assert list(per.columns) == STATE_STATISTICS_COLUMNS
    assert len(per) == 4 * len(STATES)  # Q and pick scored, MRI-best and RS made from the truth in every state
    assert (per.top_k == TOP_K).all() and per.resolved_only.all()
    for problem, replicate, n_labelled, i, resolved in STATES:
        rows = per[(per.problem == problem) & (per.replicate == replicate) & (per.n_labelled == n_labelled)]
        assert list(rows.strategy) == ["Q", "pick", "MRI-best", "RS"]
        for strategy in ("Q", "pick", "MRI-best", "RS"):
            row = rows[rows.strategy == strategy].iloc[0]
            assert row.resolved == resolved and row.candidates == 4
            for stat, value in hand(strategy, i).items():
                if resolved:
                    assert row[stat] == pytest.approx(value, abs=1e-12), (strategy, stat)
                else:  # resolved_only: no statistic in an unresolved state
                    assert np.isnan(row[stat])
    every = state_statistics(table(STATES, measured), top_k=TOP_K, resolved_only=False)
    assert not every.resolved_only.any() and every[list(STATS)].notna().all().all()


def test_the_statistics_table_gives_the_same_leaderboard_and_differences(board):
    from mri_theory.evaluation import state_statistics, strategy_differences

    states = table(STATES, measured)
    per = state_statistics(states, top_k=TOP_K)
    pd.testing.assert_frame_equal(leaderboard(per, top_k=TOP_K, n_boot=60, seed=7, cost=COST), board,
                                  check_exact=True)
    pd.testing.assert_frame_equal(strategy_differences(per, top_k=TOP_K, n_boot=40, seed=1),
                                  strategy_differences(states, top_k=TOP_K, n_boot=40, seed=1), check_exact=True)


@pytest.mark.parametrize("damage, error, pattern", [
    ("duplicate", ValueError, "more than one row"),
    ("name", TypeError, r"states\['strategy'\] must hold names"),
    ("count", ValueError, "integers >= 0"),
    ("infinite", ValueError, "finite or NaN"),
    ("resolved", ValueError, "resolved 0 or 1"),
    ("column", ValueError, "must have the columns"),
    ("mixed options", ValueError, "^top_k: "),
])
def test_a_bad_statistics_table_is_refused_naming_states(damage, error, pattern):
    from mri_theory.evaluation import state_statistics

    per = state_statistics(table(STATES, measured), top_k=TOP_K)
    if damage == "duplicate":
        per = pd.concat([per, per.iloc[:1]], ignore_index=True)
    elif damage == "name":
        per = per.astype({"strategy": object})
        per.loc[0, "strategy"] = 3
    elif damage == "count":
        per.loc[0, "replicate"] = -1
    elif damage == "infinite":
        per.loc[0, "spearman"] = np.inf
    elif damage == "resolved":
        per.loc[0, "resolved"] = 0.5
    elif damage == "column":
        per = per.drop(columns="kendall")
    else:
        per.loc[0, "top_k"] = TOP_K + 1
    with pytest.raises(error, match=pattern):
        leaderboard(per, top_k=TOP_K)
