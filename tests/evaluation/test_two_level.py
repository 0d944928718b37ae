"""The two-level bootstrap (pairings, then replicates) and ties reported as ties (issue 56, parts 1 and 2).

Every reference here is computed independently of the code under test: the two-level draws are re-made from the
documented order of the generator's calls, and each draw's study is written out as an ordinary table (the drawn
pairings as problems of their own, the drawn replicates as replicates) and ranked by :func:`rank_study`, or its
difference computed from the curves by hand; ties are found by exact rational arithmetic; tau by
``scipy.stats.kendalltau`` directly.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from _optional import given, settings, st
from scipy import stats

from mri_theory.evaluation import (
    CURVE_COLUMNS,
    RESAMPLING,
    bootstrap_generator,
    bootstrap_rank_draws,
    bootstrap_ranks,
    conclusions,
    mean_rank_ties,
    paired_differences,
    rank_study,
    ranking_tau,
    ranking_tau_interval,
)

PAIRINGS = [("four-gaussian", "lda"), ("four-gaussian", "qda"), ("sharp", "lda"), ("sharp", "qda")]  # sorted
GROUPS = {"abstract": ["four-gaussian", "sharp"]}


def _curves(seed: int = 0, replicates: int = 3, noise: float = 0.02) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Paired random curves of RS, SE, BMRI and MRI-best on four pairings (which method is better differs)."""
    rng = np.random.default_rng(seed)
    n = np.arange(2, 12)
    rows = []
    for k, (problem, classifier) in enumerate(PAIRINGS):
        for r in range(replicates):
            for method, speed in {"RS": 1.0, "SE": 1.2 + 0.3 * (k % 2), "BMRI": 1.6 - 0.4 * (k % 2),
                                  "MRI-best": 3.0}.items():
                loss = 0.1 + 0.4 * np.exp(-0.2 * speed * (n - 2)) + rng.normal(0, noise, n.size)
                rows += [(problem, classifier, method, r, int(m), float(np.clip(v, 0, 1)))
                         for m, v in zip(n, loss, strict=True)]
    asymptotic = pd.DataFrame([(p, c, 0.1) for p, c in PAIRINGS], columns=["problem", "classifier", "asymptotic_loss"])
    return pd.DataFrame(rows, columns=CURVE_COLUMNS), asymptotic


def _two_level_draws(rng: np.random.Generator, replicates: int, n_boot: int) -> list[list[tuple[int, np.ndarray]]]:
    """Per draw, per slot: (the pairing drawn, its drawn replicates), in the documented order of the calls: the
    slots of the one group first, then pairing by pairing the replicates of every slot it fills, row-major."""
    slots = rng.integers(0, len(PAIRINGS), size=(n_boot, len(PAIRINGS)))
    picks: dict[tuple[int, int], np.ndarray] = {}
    for j in range(len(PAIRINGS)):
        where = [(b, k) for b in range(n_boot) for k in range(len(PAIRINGS)) if slots[b, k] == j]
        drawn = rng.integers(0, replicates, size=(len(where), replicates))
        picks.update({position: row for position, row in zip(where, drawn, strict=True)})
    return [[(int(slots[b, k]), picks[b, k]) for k in range(len(PAIRINGS))] for b in range(n_boot)]


def _resampled_study(curves: pd.DataFrame, draw: list[tuple[int, np.ndarray]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One draw as an ordinary study: slot k is the problem ``slot k`` (of its drawn pairing's classifier), its
    replicates the drawn ones."""
    frames, asymptotic = [], []
    for k, (j, replicates) in enumerate(draw):
        problem, classifier = PAIRINGS[j]
        part = curves[(curves.problem == problem) & (curves.classifier == classifier)]
        for new, old in enumerate(replicates):
            frames.append(part[part.replicate == old].assign(problem=f"slot {k}", replicate=new))
        asymptotic.append((f"slot {k}", classifier, 0.1))
    return (pd.concat(frames, ignore_index=True),
            pd.DataFrame(asymptotic, columns=["problem", "classifier", "asymptotic_loss"]))


def test_each_two_level_draw_ranks_as_the_resampled_study_does():
    curves, asymptotic = _curves()
    n_boot = 6
    _, draws = bootstrap_rank_draws(curves, asymptotic, GROUPS, rng=np.random.default_rng(5), n_boot=n_boot,
                                    resample="pairings")
    for b, draw in enumerate(_two_level_draws(np.random.default_rng(5), 3, n_boot)):
        study, targets = _resampled_study(curves, draw)
        expected = rank_study(study, targets, {"abstract": sorted(set(study.problem))}).r4.set_index("method")
        got = draws[(draws.draw == b) & (draws.classifier == "all")].set_index("method")
        assert set(got.index) == set(expected.index)
        np.testing.assert_allclose(got["mean_rank"], expected.loc[got.index, "mean_rank"], rtol=1e-12)
        np.testing.assert_array_equal(got["rank"], expected.loc[got.index, "rank"])


def test_two_level_differences_are_the_means_of_the_resampled_pairings():
    curves, asymptotic = _curves()
    n_boot = 300
    table = paired_differences(curves, asymptotic, [("BMRI", "RS")], rng=np.random.default_rng(9), n_boot=n_boot,
                               resample="pairings", groups=GROUPS).set_index("metric")
    gaps = {}  # per pairing and replicate: mean over the curve of BMRI's loss minus RS's (the regret difference)
    for j, (problem, classifier) in enumerate(PAIRINGS):
        part = curves[(curves.problem == problem) & (curves.classifier == classifier)]
        wide = part.pivot_table(index=["strategy", "replicate"], columns="n_labelled", values="loss")
        gaps[j] = (wide.loc["BMRI"] - wide.loc["RS"]).mean(axis=1).to_numpy()
    means = [np.mean([gaps[j][replicates].mean() for j, replicates in draw])
             for draw in _two_level_draws(np.random.default_rng(9), 3, n_boot)]
    assert table.loc["regret", "difference"] == pytest.approx(np.mean([g.mean() for g in gaps.values()]), abs=1e-14)
    assert table.loc["regret", "ci_low"] == pytest.approx(np.quantile(means, 0.025), abs=1e-14)
    assert table.loc["regret", "ci_high"] == pytest.approx(np.quantile(means, 0.975), abs=1e-14)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), noise=st.floats(0.0, 0.1), replicates=st.integers(2, 4))
def test_the_intervals_of_a_linear_difference_lie_within_its_per_replicate_range(seed, noise, replicates):
    """The regret difference is linear in the curves: any resample of pairings and replicates averages
    per-replicate differences, so both intervals lie within their smallest and largest."""
    curves, asymptotic = _curves(seed % 1000, replicates, noise)
    wide = curves.pivot_table(index=["problem", "classifier", "replicate"], columns="strategy", values="loss",
                              aggfunc="mean")
    per_replicate = wide["BMRI"] - wide["RS"]
    low, high = per_replicate.min() - 1e-12, per_replicate.max() + 1e-12
    for resample in RESAMPLING:
        row = paired_differences(curves, asymptotic, [("BMRI", "RS")], rng=np.random.default_rng(seed), n_boot=50,
                                 resample=resample, groups=GROUPS).set_index("metric").loc["regret"]
        assert low <= row.ci_low <= row.ci_high <= high


def test_the_same_seed_gives_the_same_bytes_and_the_streams_are_distinct():
    curves, asymptotic = _curves()
    one, two = (bootstrap_ranks(curves, asymptotic, GROUPS, rng=bootstrap_generator(3, "ranks", "pairings"),
                                n_boot=30, resample="pairings") for _ in range(2))
    assert one.to_csv().encode() == two.to_csv().encode()
    first = [bootstrap_generator(3, kind, resample).random()
             for kind in ("ranks", "differences") for resample in RESAMPLING]
    assert len(set(first)) == 4
    assert bootstrap_generator(3, "ranks", "replicates").random() == np.random.default_rng(3).random()


def test_conclusions_give_both_intervals_and_the_replicate_only_ones_as_before():
    curves, asymptotic = _curves()
    table = conclusions(curves, asymptotic, GROUPS, n_boot=60)
    final = table[table.quantity == "final_rank"].set_index("item")
    plain = bootstrap_ranks(curves, asymptotic, GROUPS, rng=np.random.default_rng(0), n_boot=60)
    plain = plain[plain.classifier == "all"].set_index("method")
    np.testing.assert_array_equal(final.loc[plain.index, "ci_low"], plain["ci_low"])
    two = bootstrap_ranks(curves, asymptotic, GROUPS, rng=np.random.default_rng([0, 2]), n_boot=60,
                          resample="pairings")
    two = two[two.classifier == "all"].set_index("method")
    np.testing.assert_array_equal(final.loc[two.index, "two_level_high"], two["ci_high"])
    taus = table[table.quantity == "tau"]
    assert taus["item"].tolist() == ["Table 5", "Table 5, ties kept", "paper rows", "paper rows, ties kept"]
    assert taus[["ci_low", "ci_high", "two_level_low", "two_level_high"]].notna().all().all()


def test_mean_rank_ties_match_exact_arithmetic():
    rng = np.random.default_rng(1)
    for _ in range(20):
        ranks = rng.integers(1, 5, size=(6, 3))  # six methods, three units: mean ranks as exact fractions
        exact = [sum(Fraction(int(v)) for v in row) / 3 for row in ranks]
        floating = [float(np.mean(row[::-1] / 7.0 * 7.0)) for row in ranks]  # rounding differs from the exact
        table = pd.DataFrame({"method": list("ABCDEF"), "mean_rank": floating})
        expected = ["; ".join(m for m, e in zip("ABCDEF", exact, strict=True) if e == exact[i] and m != "ABCDEF"[i])
                    for i in range(6)]
        assert mean_rank_ties(table, []).tolist() == expected


def test_rank_study_marks_a_first_made_by_the_tie_break():
    # SE and BMRI each first on two of four pairings' ranks and second on the others: tied in mean rank at R4
    curves, asymptotic = _curves(noise=0.0)
    ranks = rank_study(curves, asymptotic, GROUPS)
    r4 = ranks.r4.set_index("method")
    for method, partners in r4["tied_with"].items():
        exact = r4.index[np.isclose(r4["mean_rank"], r4.loc[method, "mean_rank"], rtol=0, atol=1e-12)]
        assert set(filter(None, partners.split("; "))) == set(exact) - {method}


def test_tau_with_ties_kept_is_scipys_tau_b_of_the_exact_mean_ranks():
    ours = pd.DataFrame({"method": ["QbcV", "SE", "BMRI", "RS", "QbcA", "EfeLc", "SMRI"],
                         "mean_rank": [2.1666666666666665, 2.6666666666666665, 2.833333333333333,
                                       (4 + 5 + 5) / 3, sum([5.0, 4.5, 4.5]) / 3 + 1e-15, 5.1666666666666667,
                                       5.833333333333333],
                         "rank": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]})
    paper = ["QbcV", "SE", "BMRI", "QbcA", "RS", "SMRI", "EfeLc"]
    exact = [Fraction(13, 6), Fraction(8, 3), Fraction(17, 6), Fraction(14, 3), Fraction(14, 3), Fraction(31, 6),
             Fraction(35, 6)]
    kept = stats.kendalltau([float(v) for v in exact], [paper.index(m) for m in ours["method"]])
    broken = stats.kendalltau(ours["rank"], [paper.index(m) for m in ours["method"]])
    assert ranking_tau(ours, paper, ties="kept").tau == pytest.approx(kept.statistic, abs=1e-15)
    assert ranking_tau(ours, paper).tau == pytest.approx(broken.statistic, abs=1e-15)
    assert ranking_tau(ours, paper, ties="kept").tau != pytest.approx(ranking_tau(ours, paper).tau)
    draws = pd.concat([ours.assign(draw=0, classifier="all"), ours.assign(draw=1, classifier="all")])
    low, high = ranking_tau_interval(draws, paper, ties="kept")
    assert low == high == pytest.approx(kept.statistic, abs=1e-15)


@pytest.mark.parametrize("call, match", [
    (lambda c, a: bootstrap_ranks(c, a, rng=np.random.default_rng(0), n_boot=5, resample="problems"), "resample"),
    (lambda c, a: paired_differences(c, a, rng=np.random.default_rng(0), n_boot=5, resample=None), "resample"),
    (lambda c, a: paired_differences(c, a, rng=np.random.default_rng(0), n_boot=5, resample="pairings",
                                     groups={"g": ["sharp"]}), "groups"),
    (lambda c, a: ranking_tau(rank_study(c, a, GROUPS).r4, ["RS", "SE"], ties="both"), "ties"),
    (lambda c, a: bootstrap_generator(0, "taus", "pairings"), "kind and resample"),
    (lambda c, a: mean_rank_ties(pd.DataFrame({"method": ["A"]}), []), "mean_rank"),
])
def test_bad_arguments_are_refused_naming_them(call, match):
    curves, asymptotic = _curves()
    with pytest.raises((ValueError, TypeError), match=match):
        call(curves, asymptotic)
