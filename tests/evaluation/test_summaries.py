"""Summaries of the state table and the empirical noise family of the guarantee.

Every statistic is checked against an independent computation on hand-built
tables: scipy for the rank correlations, the KS test and the t-tests, explicit
enumeration of the tied choices for the shortfall and top-k hit rate, an
explicit double loop for lambda_hat, exact enumeration of all error
assignments (or the closed form of §3.3 and scipy quadrature) for the
predicted shortfalls.  Monte Carlo comparisons use a 5-SE band computed from
the *exact* variance of the selected Q (false alarm ~6e-7 per comparison; the
seeds are fixed, so the suite is deterministic).
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from _optional import given, settings, st
from scipy import integrate, stats

from mri_theory.analytic.guarantee import (
    EmpiricalNoise,
    selection_probability,
    simulate_selection,
)
from mri_theory.evaluation.summaries import estimator_errors, summarise_states

#: The contract of the tidy table, written out independently of the package.
COLUMNS = ["problem", "classifier", "trajectory", "replicate", "step", "n_labelled", "strategy", "candidate",
           "score", "true_q_c", "loss", "t_e", "t_e_estimate", "resolved"]
LOSS = 0.25


def make_table(states: list[dict]) -> pd.DataFrame:
    """A table satisfying the contract.

    Each state: ``q`` (true Q^c), ``scores`` {strategy: scores}, optional ``estimates``
    {strategy: T_e_hat} (the score is then -T_e_hat unless given), ``replicate``, ``step``,
    ``classifier``, ``candidates`` (pool indices, default 10, 13, 16, ...), ``resolved`` (default 1.0).
    """
    rows = []
    for s in states:
        q = np.asarray(s["q"], dtype=float)
        t_e = LOSS - q
        cand = s.get("candidates", 10 + 3 * np.arange(q.size))
        estimates = s.get("estimates", {})
        scores = dict(s.get("scores", {}))
        for name, est in estimates.items():
            scores.setdefault(name, -np.asarray(est, dtype=float))
        for strategy, score in scores.items():
            est = np.asarray(estimates.get(strategy, np.full(q.size, np.nan)), dtype=float)
            for i in range(q.size):
                rows.append(("four-gaussian", s.get("classifier", "knn5"), "RS", s.get("replicate", 0),
                             s.get("step", 0), 4 + s.get("step", 0), strategy, int(cand[i]), float(score[i]),
                             q[i], LOSS, t_e[i], est[i], float(s.get("resolved", 1.0))))
    return pd.DataFrame(rows, columns=COLUMNS)


def test_contract_columns_match_the_spec():
    from mri_theory.runners.states import STATE_COLUMNS

    assert list(STATE_COLUMNS) == COLUMNS


# ------------------------------------------------------------------ brute force (independent)


def brute(q, score, top_k):
    """Shortfall, lambda_hat, top_k_hit by explicit enumeration (exact ties only: inputs are exactly representable)."""
    m = len(q)
    chosen = [i for i in range(m) if score[i] == max(score)]
    shortfall = max(q) - sum(q[i] for i in chosen) / len(chosen)
    agree, pairs = 0.0, 0
    for i in range(m):
        for j in range(m):
            if q[i] > q[j]:
                pairs += 1
                agree += 1.0 if score[i] > score[j] else 0.5 if score[i] == score[j] else 0.0
    hits = [sum(q[j] > q[i] for j in range(m)) < top_k for i in chosen]
    spread = max(q) - sum(q) / m
    return {"shortfall": shortfall, "lambda_hat": agree / pairs if pairs else math.nan,
            "top_k_hit": sum(hits) / len(hits),
            "normalised_shortfall": shortfall / spread if pairs else math.nan}


def one_state(q, score, top_k=5):
    table = make_table([{"q": q, "scores": {"X": score}}])
    row = summarise_states(table, per_state=True, top_k=top_k)
    assert len(row) == 1
    return row.iloc[0]


def assert_close(a, b):
    if math.isnan(b):
        assert math.isnan(a)
    else:
        assert a == pytest.approx(b, abs=1e-12)


pools = st.integers(2, 8).flatmap(lambda m: st.tuples(
    st.lists(st.integers(-3, 3), min_size=m, max_size=m), st.lists(st.integers(-3, 3), min_size=m, max_size=m)))


@settings(max_examples=150, deadline=None)
@given(pools, st.integers(1, 9))
def test_per_state_statistics_match_brute_force(pool, top_k):
    q = [0.125 * v for v in pool[0]]  # dyadic: exact arithmetic, ties exact
    score = [float(v) for v in pool[1]]
    row = one_state(q, score, top_k)
    for name, value in brute(q, score, top_k).items():
        assert_close(row[name], value)
    if len(set(q)) == 1:
        assert math.isnan(row["spearman"]) and math.isnan(row["kendall"])
    elif len(set(score)) == 1:
        assert row["spearman"] == 0 and row["kendall"] == 0
    else:
        assert row["spearman"] == pytest.approx(stats.spearmanr(score, q).statistic, abs=1e-12)
        assert row["kendall"] == pytest.approx(stats.kendalltau(score, q).statistic, abs=1e-12)
    assert row["candidates"] == len(q)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=2, max_size=9).filter(lambda v: len(set(v)) > 1))
def test_oracle_scores_are_perfect(values):
    """score == Q (MRI-best): Spearman 1, Kendall 1, shortfall 0, lambda 1, top-1 hit 1 (even with ties in Q)."""
    q = [0.01 * v for v in values]
    row = one_state(q, q, top_k=1)
    assert row["spearman"] == pytest.approx(1.0) and row["kendall"] == pytest.approx(1.0)
    assert row["shortfall"] == 0 and row["normalised_shortfall"] == 0
    assert row["lambda_hat"] == 1 and row["top_k_hit"] == 1


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(-1, 1), min_size=2, max_size=9).filter(lambda v: max(v) - min(v) > 1e-6),
       st.floats(-3, 3))
def test_constant_score_is_random_selection(q, c):
    """A constant score (RS): Spearman, Kendall 0 (the tie-break's expectation), normalised shortfall 1, lambda 1/2."""
    row = one_state(q, [c] * len(q))
    assert row["spearman"] == 0 and row["kendall"] == 0
    assert row["normalised_shortfall"] == 1.0
    assert row["lambda_hat"] == 0.5
    assert row["shortfall"] == pytest.approx(max(q) - np.mean(q), abs=1e-12)


TRANSFORMS = [lambda s: 3 * s + 7, lambda s: s**3, lambda s: np.exp(s / 4), lambda s: np.arctan(s)]


@settings(max_examples=60, deadline=None)
@given(pools, st.integers(1, 5), st.sampled_from(range(len(TRANSFORMS))))
def test_invariant_under_increasing_transforms_of_the_score(pool, top_k, t):
    q = [0.125 * v for v in pool[0]]
    score = np.array(pool[1], dtype=float)
    a = one_state(q, score, top_k)
    b = one_state(q, TRANSFORMS[t](score), top_k)
    for name in ["spearman", "kendall", "shortfall", "normalised_shortfall", "lambda_hat", "top_k_hit"]:
        assert_close(b[name], a[name])


def test_near_ties_are_ties():
    """Differences of rounding size (1e-16 around an exact 0) neither rank scores nor separate Q values."""
    q = np.array([0.0, 0.0, 0.0, 0.5, 1.0])
    noisy = q + np.array([1e-16, -1e-16, 0.0, 0.0, 0.0])
    row = one_state(q, noisy)
    assert row["spearman"] == pytest.approx(1.0) and row["kendall"] == pytest.approx(1.0)
    assert row["lambda_hat"] == 1.0 and row["shortfall"] == 0
    # Q tied within rounding: the pair is excluded, as an exact tie would be (else lambda would be 2/3).
    row = one_state([0.0, 1e-17, 0.5], [1.0, 0.0, 2.0])
    assert row["lambda_hat"] == 1.0
    assert row["spearman"] == pytest.approx(stats.spearmanr([1, 0, 2], [0, 0, 1]).statistic)


def test_top_k_ties_at_the_boundary_count_inclusively():
    # Q: one best, three tied second; top-2 includes all three tied (none has 2 strictly better).
    q = [1.0, 0.5, 0.5, 0.5, 0.0]
    assert one_state(q, [0, 1, 0, 0, 0], top_k=2)["top_k_hit"] == 1.0
    assert one_state(q, [0, 0, 0, 0, 1], top_k=2)["top_k_hit"] == 0.0
    assert one_state(q, [0, 0, 0, 0, 1], top_k=5)["top_k_hit"] == 1.0
    # Constant score: RS hits with probability (#candidates no worse than the 2nd best) / m = 4/5.
    assert one_state(q, [0.0] * 5, top_k=2)["top_k_hit"] == pytest.approx(0.8)


# ------------------------------------------------------------------ aggregation


def _two_curve_table(rng, replicates=3):
    states = []
    for step in (6, 2):  # listed late step first: n_labelled must still come out ascending
        for r in range(replicates):
            q = rng.normal(size=12)
            states.append({"q": q, "replicate": r, "step": step,
                           "scores": {"SMRI": q + rng.normal(size=12), "RS": np.zeros(12),
                                      "BMRI": q + 0.3 * rng.normal(size=12)}})
    return make_table(states)


def test_aggregation_means_standard_errors_and_order():
    table = _two_curve_table(np.random.default_rng(1))
    per = summarise_states(table, per_state=True)
    agg = summarise_states(table)
    assert list(agg["strategy"]) == ["SMRI"] * 2 + ["RS"] * 2 + ["BMRI"] * 2  # order of first appearance
    assert list(agg["n_labelled"]) == [6, 10] * 3
    assert (agg["states"] == 3).all()
    for _, row in agg.iterrows():
        sel = per[(per["strategy"] == row["strategy"]) & (per["n_labelled"] == row["n_labelled"])]
        assert len(sel) == 3
        for name in ["spearman", "kendall", "shortfall", "normalised_shortfall", "lambda_hat", "top_k_hit"]:
            v = sel[name].to_numpy()
            assert row[name] == pytest.approx(v.mean(), abs=1e-12)
            assert row[f"{name}_se"] == pytest.approx(v.std(ddof=1) / math.sqrt(3), abs=1e-12)


def test_one_replicate_has_no_standard_error_and_undefined_values_are_skipped():
    q = np.array([0.1, 0.2, 0.4])
    table = make_table([{"q": q, "replicate": 0, "scores": {"X": q[::-1]}},
                        {"q": np.zeros(3), "replicate": 1, "scores": {"X": [1.0, 2.0, 3.0]}},
                        {"q": q, "replicate": 0, "step": 1, "scores": {"X": q}}])
    agg = summarise_states(table)
    first = agg.iloc[0]
    assert first["states"] == 2
    assert first["normalised_shortfall"] == pytest.approx((0.4 - 0.1) / (0.4 - q.mean()))  # the all-equal state skipped
    assert math.isnan(first["normalised_shortfall_se"])  # one defined value
    assert first["shortfall"] == pytest.approx(0.3 / 2)  # both states: 0.3 and 0
    assert math.isnan(agg.iloc[1]["spearman_se"]) and agg.iloc[1]["states"] == 1


# ------------------------------------------------------------------ estimator errors


def _error_table(rng, replicates=4, m=30, make_m=None):
    states = []
    for r in range(replicates):
        q = rng.normal(scale=0.02, size=m)
        err = make_m(q, rng) if make_m else rng.normal(0.001, 0.01, size=m)
        t_e = LOSS - q
        states.append({"q": q, "replicate": r, "scores": {"RS": np.zeros(m)},
                       "estimates": {"SMRI": t_e + err, "BMRI": t_e + 0.5 * err[::-1]}})
    return make_table(states)


def test_per_state_errors_match_numpy_and_scipy():
    table = _error_table(np.random.default_rng(3), m=31)
    per = estimator_errors(table, per_state=True, n_draws=50)
    assert list(per["strategy"].unique()) == ["SMRI", "BMRI"]  # RS has no T_e estimate
    assert len(per) == 8
    for _, row in per.iterrows():
        sel = table[(table["strategy"] == row["strategy"]) & (table["replicate"] == row["replicate"])]
        m = (sel["t_e_estimate"] - sel["t_e"]).to_numpy()
        q = sel["true_q_c"].to_numpy()
        assert row["bias"] == pytest.approx(np.mean(m), abs=1e-15)
        assert row["sd"] == pytest.approx(np.std(m, ddof=1))
        assert row["relative_bias"] == pytest.approx(np.mean(m) / np.std(q, ddof=1))
        r = stats.spearmanr(m, q)
        assert (row["corr_m_q"], row["corr_m_q_p"]) == pytest.approx((r.statistic, r.pvalue))
        r = stats.spearmanr(np.abs(m - np.median(m)), q)
        assert (row["corr_abs_q"], row["corr_abs_q_p"]) == pytest.approx((r.statistic, r.pvalue))
        order = np.argsort(q)  # q distinct here
        assert row["p_identical"] == pytest.approx(stats.ks_2samp(m[order[:15]], m[order[-15:]]).pvalue)
        score = sel["score"].to_numpy()
        assert row["measured_shortfall"] == pytest.approx(q.max() - q[np.argmax(score)])


def _exact_iid(q, errors):
    """E and Var of Q(argmax(q + e)), e_i drawn i.i.d. uniformly from ``errors``, by enumeration of all assignments."""
    first, second = [], []
    for assignment in itertools.product(errors, repeat=len(q)):
        est = [qi + ei for qi, ei in zip(q, assignment, strict=True)]
        best = [q[i] for i in range(len(q)) if est[i] == max(est)]  # exact: dyadic values
        first.append(sum(best) / len(best))  # the uniform tie-break: conditional moments
        second.append(sum(b * b for b in best) / len(best))
    mean = sum(first) / len(first)
    return mean, sum(second) / len(second) - mean**2


@pytest.mark.parametrize("m_err, centred, other", [
    ([0.0, 0.0, 0.75], [0.25, 0.25, -0.5], [-0.25, -0.25, 0.5]),  # skewed; the opposite sign differs
    ([0.0, 0.0, 0.375], [0.125, 0.125, -0.25], [0.25, 0.25, -0.5]),  # half the size; twice the scale differs
])
def test_predicted_iid_shortfall_against_exact_enumeration(m_err, centred, other):
    q = [0.0, 0.25, 0.5]
    t_e = LOSS - np.array(q)
    table = make_table([{"q": q, "estimates": {"SMRI": t_e + np.array(m_err)}}])
    n = 20_000
    row = estimator_errors(table, per_state=True, n_draws=n, seed=7).iloc[0]
    # The estimate of Q is Q - M + const, so the i.i.d. errors are -(M - mean M).
    mean, var = _exact_iid(q, centred)
    assert row["predicted_shortfall_iid"] == pytest.approx(0.5 - mean, abs=5 * math.sqrt(var / n))
    wrong, _ = _exact_iid(q, other)  # the test tells the errors from these
    assert abs(wrong - mean) > 10 * math.sqrt(var / n)
    # The score -T_e_hat = Q - M - loss picks the middle candidate.
    assert row["measured_shortfall"] == 0.25


def test_predicted_gaussian_shortfall_against_the_closed_form_for_two_candidates():
    q = np.array([0.3, 0.1])
    m_err = np.array([0.05, -0.15])  # sd (ddof=1) = 0.2 / sqrt(2)
    sigma = 0.2 / math.sqrt(2)
    table = make_table([{"q": q, "estimates": {"BMRI": LOSS - q + m_err}}])
    n = 40_000
    row = estimator_errors(table, per_state=True, n_draws=n, seed=1).iloc[0]
    lam = selection_probability(0.2, sigma)  # §3.3: lambda = Phi(Delta / (sigma sqrt 2))
    quad = integrate.quad(stats.norm(scale=sigma * math.sqrt(2)).pdf, -np.inf, 0.2)[0]
    assert lam == pytest.approx(quad, abs=1e-10)
    expected = (1 - lam) * 0.2
    assert row["predicted_shortfall_gaussian"] == pytest.approx(expected, abs=5 * 0.2 * math.sqrt(lam * (1 - lam) / n))


def test_q_tied_within_rounding_leaves_the_q_relative_statistics_undefined():
    """A state whose Q^c differ by rounding only (a knn5 state with 4 labels): no spread, no split, no correlation."""
    q = 1e-3 + np.array([0.0, 2e-17, -2e-17, 0.0])
    err = np.array([0.01, -0.02, 0.03, 0.0])
    table = make_table([{"q": q, "estimates": {"SMRI": LOSS - q + err}}])
    row = estimator_errors(table, per_state=True, n_draws=10).iloc[0]
    assert np.std(q, ddof=1) > 0  # without the tie tolerance, relative_bias would be ~1e15
    for name in ["relative_bias", "corr_m_q", "corr_m_q_p", "corr_abs_q", "corr_abs_q_p", "p_identical"]:
        assert math.isnan(row[name]), name
    assert row["bias"] == pytest.approx(err.mean())
    with warnings.catch_warnings():  # undefined on purpose: no numpy warning (a mean of no pairs) either
        warnings.simplefilter("error")
        summary = summarise_states(table, per_state=True).iloc[0]
    for name in ["spearman", "kendall", "normalised_shortfall", "lambda_hat"]:
        assert math.isnan(summary[name]), name


def test_each_state_draws_its_own_simulation():
    """Two states with the same Q and the same errors but different keys (replicates) draw independent
    simulations: with 40 draws their predicted shortfalls differ (the generator of a state is seeded by its keys)."""
    q = np.array([0.0, 0.25, 0.5, 0.375])
    estimates = {"SMRI": LOSS - q + np.array([0.0, 0.3, -0.2, 0.1])}
    table = make_table([{"q": q, "estimates": estimates, "replicate": r} for r in (0, 1)])
    rows = estimator_errors(table, per_state=True, n_draws=40, seed=0)
    assert rows["bias"].iloc[0] == rows["bias"].iloc[1]  # the same state but for its keys
    assert rows["predicted_shortfall_iid"].iloc[0] != rows["predicted_shortfall_iid"].iloc[1]
    assert rows["predicted_shortfall_gaussian"].iloc[0] != rows["predicted_shortfall_gaussian"].iloc[1]


def test_simulations_are_deterministic_and_per_state():
    table = _error_table(np.random.default_rng(5), replicates=3)
    a = estimator_errors(table, per_state=True, n_draws=300, seed=2)
    pd.testing.assert_frame_equal(a, estimator_errors(table, per_state=True, n_draws=300, seed=2))
    b = estimator_errors(table, per_state=True, n_draws=300, seed=3)
    assert not np.array_equal(a["predicted_shortfall_iid"], b["predicted_shortfall_iid"])
    sub = estimator_errors(table[table["replicate"] == 1], per_state=True, n_draws=300, seed=2)
    pd.testing.assert_frame_equal(sub, a[a["replicate"] == 1].reset_index(drop=True))


def test_aggregated_errors_and_verdict_p_values_match_scipy():
    table = _error_table(np.random.default_rng(6), replicates=5)
    per = estimator_errors(table, per_state=True, n_draws=100)
    agg = estimator_errors(table, n_draws=100)
    assert list(agg["strategy"]) == ["SMRI", "BMRI"] and (agg["states"] == 5).all()
    for _, row in agg.iterrows():
        sel = per[per["strategy"] == row["strategy"]]
        for name in ["bias", "sd", "relative_bias", "corr_m_q", "corr_abs_q", "measured_shortfall",
                     "predicted_shortfall_iid", "predicted_shortfall_gaussian"]:
            assert row[name] == pytest.approx(sel[name].mean(), abs=1e-15)
            assert row[f"{name}_se"] == pytest.approx(sel[name].std(ddof=1) / math.sqrt(5))
        tests = {"centred": stats.ttest_1samp(sel["relative_bias"], 0).pvalue,
                 "independent": stats.ttest_1samp(sel["corr_m_q"], 0).pvalue,
                 "homoscedastic": stats.ttest_1samp(sel["corr_abs_q"], 0).pvalue,
                 "identically_distributed": stats.combine_pvalues(sel["p_identical"], method="fisher").pvalue}
        for verdict, p in tests.items():
            assert row[f"{verdict}_p"] == pytest.approx(p)
            assert row[verdict] == (p >= 0.05)


def test_verdicts_detect_broken_assumptions():
    def dependent(q, rng):  # bias 0.01, mean tracks Q
        return 0.01 + 0.8 * (q - q.mean()) + rng.normal(0, 0.005, q.size)

    def heteroscedastic(q, rng):  # spread grows with Q's rank
        return rng.normal(0, 1, q.size) * 0.001 * (1 + 20 * stats.rankdata(q) / q.size)

    agg = estimator_errors(_error_table(np.random.default_rng(8), replicates=6, m=40, make_m=dependent), n_draws=50)
    smri = agg[agg["strategy"] == "SMRI"].iloc[0]
    assert not smri["centred"] and not smri["independent"]
    agg = estimator_errors(_error_table(np.random.default_rng(9), replicates=6, m=40, make_m=heteroscedastic),
                           n_draws=50)
    smri = agg[agg["strategy"] == "SMRI"].iloc[0]
    assert not smri["homoscedastic"] and not smri["identically_distributed"]


def test_verdicts_without_spread_across_replicates_take_the_t_tests_limit():
    """M = Q - mean Q in every replicate: corr_m_q = 1 each time (no spread), so independence is rejected (p = 0)."""
    agg = estimator_errors(_error_table(np.random.default_rng(4), replicates=3, make_m=lambda q, rng: q - q.mean()),
                           n_draws=20)
    smri = agg[agg["strategy"] == "SMRI"].iloc[0]
    assert smri["corr_m_q"] == pytest.approx(1.0) and smri["corr_m_q_se"] == 0
    assert smri["independent_p"] == 0 and not smri["independent"]  # bool(pd.NA) would raise


def test_one_replicate_gives_missing_verdicts():
    agg = estimator_errors(_error_table(np.random.default_rng(2), replicates=1), n_draws=20)
    assert agg["centred"].isna().all() and agg["identically_distributed"].isna().all()
    assert agg["bias_se"].isna().all() and agg["centred_p"].isna().all()


# ------------------------------------------------------------------ EmpiricalNoise


def test_empirical_noise_draws_iid_from_the_given_values():
    errors = np.array([-1.0, 0.0, 0.0, 2.5])
    noise = EmpiricalNoise(errors)
    n = 40_000
    draws = noise.draw(np.zeros(2), 2.0, n, np.random.default_rng(0))
    assert draws.shape == (n, 2) and set(np.unique(draws)) <= {-2.0, 0.0, 5.0}  # scaled by sigma
    for value, p in [(-2.0, 0.25), (0.0, 0.5), (5.0, 0.25)]:
        assert abs(np.mean(draws[:, 0] == value) - p) < 5 * math.sqrt(p * (1 - p) / n)
    joint = np.mean((draws[:, 0] == 0.0) & (draws[:, 1] == 0.0))  # independent columns
    assert abs(joint - 0.25) < 5 * math.sqrt(0.25 * 0.75 / n)
    assert noise.iid and not noise.unbiased and not noise.guarantee_holds
    centred = EmpiricalNoise(errors - errors.mean())
    assert centred.unbiased and centred.guarantee_holds


def test_empirical_noise_with_infinite_sigma_is_random_selection():
    q = np.array([0.0, 0.2, 0.9, 1.0])
    n = 40_000
    sim = simulate_selection(q, np.inf, n, np.random.default_rng(1), noise=EmpiricalNoise([-1.0, 1.0]))
    assert np.all(np.abs(sim.frequencies - 0.25) < 5 * math.sqrt(0.25 * 0.75 / n))


# ------------------------------------------------------------------ bad input


def _good():
    q = np.array([0.1, 0.3, 0.2])
    return make_table([{"q": q, "scores": {"RS": np.zeros(3)}, "estimates": {"SMRI": LOSS - q}}])


def _with(change):
    table = _good()
    change(table)
    return table


BAD = [
    (lambda: summarise_states([1, 2]), TypeError, "states must be a pandas DataFrame"),
    (lambda: summarise_states(_good().drop(columns="score")), ValueError, r"states must have the columns .*'score'"),
    (lambda: summarise_states(_good().iloc[:0]), ValueError, "states is empty"),
    (lambda: summarise_states(_with(lambda t: t.__setitem__("score", np.nan))), ValueError,
     r"states\['score'\] must be finite"),
    (lambda: summarise_states(_with(lambda t: t.__setitem__("true_q_c", "a"))), TypeError,
     r"states\['true_q_c'\] must be numeric"),
    (lambda: summarise_states(_with(lambda t: t.__setitem__("loss", np.inf))), ValueError,
     r"states\['loss'\] must be finite"),
    (lambda: summarise_states(_with(lambda t: t.__setitem__("strategy", None))), ValueError,
     r"states has missing values in the key columns \['strategy'\]"),
    (lambda: summarise_states(_good().iloc[[0, 3, 4, 5]]), ValueError, "has 1 candidate; every state needs at least 2"),
    (lambda: summarise_states(_with(lambda t: t.__setitem__("candidate", [10, 10, 16] * 2))), ValueError,
     "lists a candidate twice"),
    (lambda: summarise_states(_with(lambda t: t.loc.__setitem__((5, "candidate"), 99))), ValueError,
     "its candidates differ from those of strategy 'RS'"),
    (lambda: summarise_states(_with(lambda t: t.loc.__setitem__((5, "true_q_c"), 0.9))), ValueError,
     "its true_q_c differs from that of strategy 'RS'"),
    (lambda: summarise_states(_with(lambda t: t.loc.__setitem__((5, "n_labelled"), 9))), ValueError,
     "has more than one n_labelled"),
    (lambda: summarise_states(_good(), top_k=0), ValueError, "top_k must be >= 1"),
    (lambda: summarise_states(_good(), top_k=1.5), ValueError, "top_k must be an integer"),
    (lambda: summarise_states(_good(), top_k=True), TypeError, "top_k must be an integer"),
    (lambda: summarise_states(_good(), per_state="yes"), TypeError, "per_state must be True or False"),
    (lambda: estimator_errors(_good(), per_state=1), TypeError, "per_state must be True or False"),
    (lambda: estimator_errors(_good(), n_draws=0), ValueError, "n_draws must be >= 1"),
    (lambda: estimator_errors(_good(), seed=-1), ValueError, "seed must be >= 0"),
    (lambda: estimator_errors(_good(), seed="0"), TypeError, "seed must be an integer"),
    (lambda: estimator_errors(_good().drop(columns="t_e")), ValueError, r"states must have the columns .*'t_e'"),
    (lambda: estimator_errors(_good()[_good()["strategy"] == "RS"]), ValueError,
     "states has no strategy with a finite t_e_estimate"),
    (lambda: estimator_errors(_with(lambda t: t.loc.__setitem__((4, "t_e_estimate"), np.nan))), ValueError,
     "t_e_estimate must be finite for every candidate or NaN for all"),
    (lambda: estimator_errors(_with(lambda t: t.loc.__setitem__((slice(3, 5), "t_e_estimate"), np.inf))),
     ValueError, "t_e_estimate must be finite for every candidate or NaN for all"),
    (lambda: estimator_errors(_with(lambda t: t.loc.__setitem__((4, "t_e"), np.nan))), ValueError,
     "t_e finite wherever t_e_estimate is"),
    (lambda: estimator_errors(_with(lambda t: t.__setitem__("t_e_estimate", "x"))), TypeError,
     r"states\['t_e_estimate'\] must be numeric"),
    (lambda: EmpiricalNoise([]), ValueError, "errors must be a non-empty 1-D array"),
    (lambda: EmpiricalNoise([[0.1, 0.2]]), ValueError, "errors must be a non-empty 1-D array"),
    (lambda: EmpiricalNoise([0.1, np.nan]), ValueError, "errors must be finite"),
    (lambda: EmpiricalNoise("abc"), TypeError, "errors must be numeric"),
]


@pytest.mark.parametrize("call, error, match", BAD)
def test_bad_input_is_refused_naming_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------------- the verdicts' test helpers at their edges

def test_t_test_p_edges_against_scipy():
    from scipy import stats as sps

    from mri_theory.evaluation.summaries import _t_test_p

    assert np.isnan(_t_test_p(pd.Series([0.3, np.nan])))  # one finite value
    two = [0.1, 0.3]  # two values: the smallest size with a t-test
    assert _t_test_p(pd.Series(two)) == pytest.approx(sps.ttest_1samp(two, 0.0).pvalue, rel=1e-12)
    assert _t_test_p(pd.Series([0.0, 0.0, 0.0])) == 1.0  # no spread, all 0: the limit p = 1
    assert _t_test_p(pd.Series([0.2, 0.2, 0.2])) == 0.0  # no spread, not 0: |t| = inf, p = 0
    assert _t_test_p(pd.Series([0.0, 0.2, 0.2])) == pytest.approx(sps.ttest_1samp([0.0, 0.2, 0.2], 0.0).pvalue,
                                                                   rel=1e-12)


def test_fisher_p_edges_against_the_chi_square_formula():
    from scipy import stats as sps

    from mri_theory.evaluation.summaries import _fisher_p

    assert np.isnan(_fisher_p(pd.Series([0.2])))
    p = [0.2, 0.5]  # Fisher: -2 sum ln p ~ chi^2 with 2 m degrees of freedom
    assert _fisher_p(pd.Series(p)) == pytest.approx(sps.chi2.sf(-2 * np.log(p).sum(), 4), rel=1e-12)


def test_spearman_with_p_is_nan_when_either_side_is_constant():
    from scipy import stats as sps

    from mri_theory.evaluation.summaries import _spearman_with_p

    x, y = np.array([0.1, 0.5, 0.3, 0.9]), np.array([1.0, 3.0, 2.0, 2.5])
    assert all(np.isnan(_spearman_with_p(np.full(4, 0.2), y)))
    assert all(np.isnan(_spearman_with_p(x, np.full(4, 7.0))))
    # constant except the first value: not constant
    rho, p = _spearman_with_p(np.array([0.0, 1.0, 1.0, 1.0]), y)
    ref = sps.spearmanr([0.0, 1.0, 1.0, 1.0], y)
    assert rho == pytest.approx(ref.statistic, abs=1e-12) and p == pytest.approx(ref.pvalue, rel=1e-12)
    rho, _ = _spearman_with_p(x, np.array([5.0, 1.0, 1.0, 1.0]))
    assert rho == pytest.approx(sps.spearmanr(x, [5.0, 1.0, 1.0, 1.0]).statistic, abs=1e-12)


# ------------------------------------------------------------------ the messages name the offending values


def three_replicates() -> pd.DataFrame:
    return make_table([{"q": [0.1, 0.2, 0.3], "scores": {"SE": [1.0, 2.0, 3.0]},
                        "estimates": {"SMRI": [0.3, 0.2, 0.1]}, "replicate": r} for r in range(3)])


def test_bad_counts_are_listed_in_the_message_and_zero_is_a_count():
    table = three_replicates()
    table["n_labelled"] = table["n_labelled"].astype(float)
    table.loc[[0, 1, 2], "n_labelled"] = [-1.0, 3.5, 0.0]  # a negative, a fraction, and zero (a valid count)
    with pytest.raises(ValueError, match=r"^states\['n_labelled'\] must hold integers >= 0, got \[-1\.0, 3\.5\]$"):
        summarise_states(table)


def test_a_value_that_is_not_a_name_is_shown_in_the_message():
    table = three_replicates()
    table["strategy"] = table["strategy"].astype(object)
    table.loc[2, "strategy"] = 7
    with pytest.raises(TypeError, match=r"^states\['strategy'\] must hold names \(str\), got 7 \(int\)$"):
        summarise_states(table)


def test_a_zero_loss_is_a_loss():
    """A loss of exactly 0 (a perfect current model) is valid: both summaries accept it."""
    table = three_replicates()
    table["loss"] = 0.0
    table["t_e"] = -table["true_q_c"]
    assert len(summarise_states(table)) == 2
    assert len(estimator_errors(table)) == 1


def test_the_ranking_summary_needs_no_estimator_columns():
    """``summarise_states`` reads scores and the truth only; the T_e columns are for ``estimator_errors``."""
    table = three_replicates()
    with_t_e = summarise_states(table)
    without = summarise_states(table.drop(columns=["t_e", "t_e_estimate"]))
    pd.testing.assert_frame_equal(without, with_t_e)
