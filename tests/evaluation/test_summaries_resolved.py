"""The ``resolved`` flag of the state table in the two summaries.

A state is *resolved* when the truth's best candidate beats its runner-up on
independent sampled populations by more than 3 SE (always with exact truth).
By default (``resolved_only=True``) the summaries compute their statistics over
the resolved states only, keep every group's row (NaN statistics when none of
its states is resolved) and report the fraction resolved.

Expected values are computed here, independently of the package: scipy's
``spearmanr`` / ``kendalltau`` / ``ttest_1samp`` on the resolved subset, the
shortfall, lambda-hat and top-k hit by explicit loops over the candidates
(distinct scores and distinct Q, so the choice is a plain argmax), means and
standard errors with numpy.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from _optional import given, settings, st
from scipy import stats

from mri_theory.evaluation.summaries import estimator_errors, summarise_states

#: The contract of the tidy table, written out independently of the package.
COLUMNS = ["problem", "classifier", "trajectory", "replicate", "step", "n_labelled", "strategy", "candidate",
           "score", "true_q_c", "loss", "t_e", "t_e_estimate", "resolved"]
LOSS = 0.25
RANKING = ["spearman", "kendall", "shortfall", "normalised_shortfall", "lambda_hat", "top_k_hit"]


def table(states: list[dict], with_flag: bool = True) -> pd.DataFrame:
    """Rows of the contract: each state has ``q``, ``scores`` {strategy: score}, optional ``estimates``
    {strategy: T_e_hat} (score -T_e_hat), ``replicate``, ``step``, ``resolved`` (default 1.0)."""
    rows = []
    for s in states:
        q = np.asarray(s["q"], dtype=float)
        scores = dict(s.get("scores", {}))
        estimates = s.get("estimates", {})
        for name, est in estimates.items():
            scores[name] = -np.asarray(est, dtype=float)
        for strategy, score in scores.items():
            est = np.asarray(estimates.get(strategy, np.full(q.size, np.nan)), dtype=float)
            for i in range(q.size):
                rows.append(("four-gaussian", "lda", "RS", s.get("replicate", 0), s.get("step", 0),
                             2 + s.get("step", 0), strategy, 10 + i, float(score[i]), q[i], LOSS, LOSS - q[i],
                             est[i], float(s.get("resolved", 1.0))))
    frame = pd.DataFrame(rows, columns=COLUMNS)
    return frame if with_flag else frame.drop(columns="resolved")


def expected_ranking(q: np.ndarray, score: np.ndarray, top_k: int = 5) -> dict[str, float]:
    """The statistics of one state by direct computation (distinct q and distinct scores)."""
    chosen = int(np.argmax(score))
    shortfall = q.max() - q[chosen]
    pairs = agree = 0
    for i in range(q.size):
        for j in range(q.size):
            if q[i] > q[j]:
                pairs += 1
                agree += score[i] > score[j]
    return {"spearman": stats.spearmanr(score, q).statistic, "kendall": stats.kendalltau(score, q).statistic,
            "shortfall": shortfall, "normalised_shortfall": shortfall / (q.max() - q.mean()),
            "lambda_hat": agree / pairs, "top_k_hit": float(np.sum(q > q[chosen]) < top_k)}


def curve(rng: np.random.Generator, flags: dict[int, list[float]], m: int = 9) -> tuple[pd.DataFrame, list[dict]]:
    """States at steps ``flags`` (one replicate per flag), strategies ``SMRI`` (noisy) and ``SE`` (very noisy)."""
    states = []
    for step, fl in flags.items():
        for r, flag in enumerate(fl):
            q = rng.normal(size=m)
            states.append({"q": q, "step": step, "replicate": r, "resolved": flag,
                           "scores": {"SMRI": q + 0.7 * rng.normal(size=m), "SE": q + 3 * rng.normal(size=m)}})
    return table(states), states


def test_statistics_over_the_resolved_states_against_scipy():
    flags = {0: [1.0, 0.0, 1.0, 1.0, 0.0], 4: [0.0, 1.0, 1.0, 0.0]}
    frame, states = curve(np.random.default_rng(10), flags)
    kept = summarise_states(frame)
    every = summarise_states(frame, resolved_only=False)
    for out, resolved_only in ((kept, True), (every, False)):
        assert len(out) == 4  # 2 strategies x 2 steps
        for _, row in out.iterrows():
            group = [s for s in states if s["step"] == row["n_labelled"] - 2]
            used = [s for s in group if s["resolved"] == 1.0 or not resolved_only]
            assert row["states"] == len(used)  # the states the means are over
            assert row["resolved"] == pytest.approx(np.mean([s["resolved"] for s in group]), abs=1e-15)
            for name in RANKING:
                v = np.array([expected_ranking(s["q"], s["scores"][row["strategy"]])[name] for s in used])
                assert row[name] == pytest.approx(v.mean(), abs=1e-12), name
                assert row[f"{name}_se"] == pytest.approx(v.std(ddof=1) / math.sqrt(v.size), abs=1e-12), name
    # The exclusion matters here: the two settings differ (so this test can fail on an implementation that ignores it).
    assert not np.allclose(kept["spearman"], every["spearman"])
    assert list(kept["resolved"]) == [0.6, 0.5, 0.6, 0.5]


def test_a_group_without_a_resolved_state_keeps_its_row_with_nan_statistics():
    frame, _ = curve(np.random.default_rng(11), {0: [1.0, 1.0], 3: [0.0, 0.0, 0.0]})
    out = summarise_states(frame)
    assert len(out) == 4
    late = out[out["n_labelled"] == 5]
    assert list(late["states"]) == [0, 0] and list(late["resolved"]) == [0.0, 0.0]  # none averaged
    for name in RANKING:
        assert late[name].isna().all() and late[f"{name}_se"].isna().all(), name
    early = out[out["n_labelled"] == 2]
    assert early[RANKING].notna().all().all() and list(early["resolved"]) == [1.0, 1.0]
    assert summarise_states(frame, resolved_only=False)[RANKING].notna().all().all()


def test_per_state_rows_carry_the_flag_and_nan_statistics_when_unresolved():
    frame, states = curve(np.random.default_rng(12), {2: [1.0, 0.0, 1.0]})
    for resolved_only in (True, False):
        per = summarise_states(frame, per_state=True, resolved_only=resolved_only)
        assert len(per) == 6
        for _, row in per.iterrows():
            s = states[row["replicate"]]
            assert row["resolved"] == s["resolved"] and row["candidates"] == 9
            expected = expected_ranking(s["q"], s["scores"][row["strategy"]])
            for name in RANKING:
                if resolved_only and s["resolved"] == 0:
                    assert math.isnan(row[name]), name
                else:
                    assert row[name] == pytest.approx(expected[name], abs=1e-12), name


def test_column_order_is_the_documented_one():
    frame, _ = curve(np.random.default_rng(13), {0: [1.0, 0.0]})
    keys = ["problem", "classifier", "trajectory", "replicate", "step", "n_labelled", "strategy"]
    assert list(summarise_states(frame, per_state=True).columns) == keys + ["candidates"] + RANKING + ["resolved"]
    group = ["problem", "classifier", "trajectory", "strategy", "n_labelled"]
    with_se = [c for name in RANKING for c in (name, f"{name}_se")]
    assert list(summarise_states(frame).columns) == group + ["states"] + with_se + ["resolved"]


def test_a_table_without_the_column_counts_every_state_as_resolved():
    frame, _ = curve(np.random.default_rng(14), {0: [1.0] * 3, 5: [1.0] * 3})
    bare = frame.drop(columns="resolved")
    for per_state in (False, True):
        reference = summarise_states(frame, per_state=per_state)
        for resolved_only in (True, False):
            pd.testing.assert_frame_equal(summarise_states(bare, per_state=per_state, resolved_only=resolved_only),
                                          reference)
    # and the statistics are today's: the plain mean over every state (checked against scipy above)
    assert (summarise_states(bare)["resolved"] == 1.0).all()


def test_boolean_flags_are_read_as_one_and_zero():
    frame, _ = curve(np.random.default_rng(15), {0: [1.0, 0.0, 1.0]})
    as_bool = frame.assign(resolved=frame["resolved"] == 1.0)
    pd.testing.assert_frame_equal(summarise_states(as_bool), summarise_states(frame))


# ------------------------------------------------------------------ estimator_errors


def error_states(rng: np.random.Generator, flags: list[float], m: int = 20) -> list[dict]:
    states = []
    for r, flag in enumerate(flags):
        q = rng.normal(scale=0.02, size=m)
        err = rng.normal(0.002, 0.01, size=m)
        states.append({"q": q, "replicate": r, "resolved": flag, "err": err, "scores": {"RS": np.zeros(m)},
                       "estimates": {"SMRI": LOSS - q + err}})
    return states


def test_estimator_errors_measure_the_resolved_states_only():
    flags = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    states = error_states(np.random.default_rng(16), flags)
    frame = table(states)
    row = estimator_errors(frame, n_draws=50).iloc[0]
    used = [s for s in states if s["resolved"] == 1.0]
    assert row["states"] == 4 and row["resolved"] == pytest.approx(4 / 6)
    bias = np.array([s["err"].mean() for s in used])
    assert row["bias"] == pytest.approx(bias.mean(), abs=1e-15)
    assert row["bias_se"] == pytest.approx(bias.std(ddof=1) / 2, rel=1e-10)
    corr = [stats.spearmanr(s["err"], s["q"]).statistic for s in used]
    assert row["corr_m_q"] == pytest.approx(np.mean(corr), abs=1e-12)
    assert row["independent_p"] == pytest.approx(stats.ttest_1samp(corr, 0.0).pvalue, rel=1e-10)
    relative = [s["err"].mean() / np.std(s["q"], ddof=1) for s in used]
    assert row["centred_p"] == pytest.approx(stats.ttest_1samp(relative, 0.0).pvalue, rel=1e-10)
    every = estimator_errors(frame, n_draws=50, resolved_only=False).iloc[0]
    assert every["states"] == 6
    all_corr = [stats.spearmanr(s["err"], s["q"]).statistic for s in states]
    assert every["corr_m_q"] == pytest.approx(np.mean(all_corr), abs=1e-12)
    assert every["resolved"] == row["resolved"]


def test_estimator_errors_per_state_and_the_unresolved_group():
    states = error_states(np.random.default_rng(17), [0.0, 1.0, 0.0])
    frame = table(states)
    per = estimator_errors(frame, per_state=True, n_draws=20)
    assert list(per["resolved"]) == [0.0, 1.0, 0.0] and list(per.columns)[-1] == "resolved"
    assert per.loc[[0, 2], ["bias", "sd", "corr_m_q", "predicted_shortfall_iid"]].isna().all().all()
    assert per.loc[1, "bias"] == pytest.approx(states[1]["err"].mean(), abs=1e-15)
    agg = estimator_errors(frame, n_draws=20).iloc[0]
    assert agg["states"] == 1 and agg["resolved"] == pytest.approx(1 / 3)
    assert pd.isna(agg["centred"]) and pd.isna(agg["independent"])  # one resolved state: no test
    assert list(estimator_errors(frame, n_draws=20).columns)[-1] == "resolved"
    nothing = table(error_states(np.random.default_rng(18), [0.0, 0.0]))
    agg = estimator_errors(nothing, n_draws=20).iloc[0]
    assert agg["states"] == 0 and agg["resolved"] == 0.0
    assert math.isnan(agg["bias"]) and math.isnan(agg["measured_shortfall"]) and pd.isna(agg["centred"])


def test_estimator_errors_without_the_column_are_unchanged():
    frame = table(error_states(np.random.default_rng(19), [1.0] * 4))
    for per_state in (False, True):
        pd.testing.assert_frame_equal(estimator_errors(frame.drop(columns="resolved"), per_state, n_draws=30),
                                      estimator_errors(frame, per_state, n_draws=30, resolved_only=False))


# ------------------------------------------------------------------ property


flag_lists = st.lists(st.sampled_from([0.0, 1.0]), min_size=1, max_size=5)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.dictionaries(st.integers(0, 3), flag_lists, min_size=1, max_size=3))
def test_resolved_only_equals_summarising_the_resolved_subset(seed, flags):
    """Excluding the unresolved states = summarising the table of the resolved states with the flag ignored."""
    frame, states = curve(np.random.default_rng(seed), flags, m=5)
    out = summarise_states(frame)
    subset = frame[frame["resolved"] == 1.0]
    reference = summarise_states(subset, resolved_only=False) if len(subset) else None
    for _, row in out.iterrows():
        group = [s["resolved"] for s in states if s["step"] == row["n_labelled"] - 2]
        assert row["states"] == sum(group) and row["resolved"] == pytest.approx(np.mean(group), abs=1e-15)
        match = None if reference is None else reference[(reference["strategy"] == row["strategy"])
                                                         & (reference["n_labelled"] == row["n_labelled"])]
        if not any(group):
            assert row[RANKING].isna().all()
            continue
        assert len(match) == 1
        for name in RANKING:
            for column in (name, f"{name}_se"):
                a, b = row[column], match.iloc[0][column]
                assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12), column


# ------------------------------------------------------------------ bad input


def good() -> pd.DataFrame:
    frame, _ = curve(np.random.default_rng(20), {0: [1.0, 0.0]}, m=3)
    return frame


def changed(change) -> pd.DataFrame:
    frame = good()
    frame["resolved"] = frame["resolved"].astype(object) if change == "text" else frame["resolved"]
    if change == "text":
        frame.loc[0, "resolved"] = "1"
    else:
        change(frame)
    return frame


def set_rows(rows, value):
    return lambda t: t.loc.__setitem__((rows, "resolved"), value)


WRONG_VALUE = r"states\['resolved'\] must be 1\.0 \(resolved\) or 0\.0 \(not resolved\) on every row, got"
BAD = [
    (set_rows(slice(None), 2.0), ValueError, WRONG_VALUE + r" \[2\.0\]"),
    (set_rows(slice(None), 0.5), ValueError, WRONG_VALUE + r" \[0\.5\]"),
    (set_rows(slice(None), -1.0), ValueError, WRONG_VALUE + r" \[-1\.0\]"),
    (set_rows(4, np.nan), ValueError, WRONG_VALUE + r" \[nan\]"),
    (set_rows(4, np.inf), ValueError, WRONG_VALUE + r" \[inf\]"),
    ("text", TypeError, r"states\['resolved'\] must be numeric"),
    # differing within a state: between two candidates of one strategy, and between two strategies
    (set_rows(1, 0.0), ValueError, r"states: state .* has more than one value of resolved"),
    (set_rows([3, 4, 5], 0.0), ValueError, r"states: state .*strategy 'SE'.*: its resolved differs from that of "
                                           r"strategy 'SMRI'"),
]


@pytest.mark.parametrize("function", [summarise_states, lambda t: estimator_errors(t, n_draws=5)])
@pytest.mark.parametrize("change, error, match", BAD)
def test_bad_flags_are_refused_naming_states_and_the_column(function, change, error, match):
    frame = changed(change)
    if function is not summarise_states:  # estimator_errors needs an estimating strategy
        frame["t_e_estimate"] = LOSS - frame["true_q_c"] + 0.01 * frame["candidate"]
    with pytest.raises(error, match=match):
        function(frame)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_resolved_only_must_be_a_flag(value):
    with pytest.raises(TypeError, match="resolved_only must be True or False"):
        summarise_states(good(), resolved_only=value)
    with pytest.raises(TypeError, match="resolved_only must be True or False"):
        estimator_errors(good(), resolved_only=value)


def test_the_documented_defaults():
    """``summarise_states``: ``top_k=5``, ``resolved_only=True``; ``estimator_errors``: ``n_draws=2000``,
    ``seed=0``, ``resolved_only=True`` (its Monte Carlo columns change with either)."""
    q = np.arange(9) * 0.01
    score = q.copy()
    score[3] = 1.0  # the choice has exactly five better candidates: a top-5 miss, a top-6 hit
    frame = table([{"q": q, "scores": {"SMRI": score}}, {"q": q, "scores": {"SMRI": q}, "step": 1, "resolved": 0.0}])
    out = summarise_states(frame)
    assert out["top_k_hit"].iloc[0] == expected_ranking(q, score)["top_k_hit"] == 0.0
    assert expected_ranking(q, score, top_k=6)["top_k_hit"] == 1.0
    assert np.isnan(out["top_k_hit"].iloc[1])  # the unresolved state's group: no statistics
    states = error_states(np.random.default_rng(17), [1.0, 0.0, 1.0])
    frame = table(states)
    default = estimator_errors(frame)
    pd.testing.assert_frame_equal(default, estimator_errors(frame, n_draws=2000, seed=0, resolved_only=True))
    for other in ({"n_draws": 2001}, {"seed": 1}, {"resolved_only": False}):
        assert not default.equals(estimator_errors(frame, **other))
