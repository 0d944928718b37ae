"""The conclusions of a study under the paper's open readings (mri_theory.evaluation.sensitivity).

The paired differences are recomputed here by hand from the public metrics (``aua``, the regret's mean gap) and
the same bootstrap draws; the absolute reading of epsilon against ``label_complexity`` with the target moved; the
"as reported" ranking against ``write_report``'s (another module's path to the same numbers).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mri_theory.evaluation import aua, label_complexity, write_report
from mri_theory.evaluation.sensitivity import (
    CONCLUSION_COLUMNS,
    READINGS,
    conclusions,
    conclusions_by_reading,
    degenerate_pairings,
    paired_differences,
    sensitivity_figure,
)


def _curves(seed: int = 0, replicates: int = 4) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Paired synthetic curves of RS, SE, BMRI and MRI-best on two problems and two classifiers; on ``sharp``
    with ``lda`` every curve stays high (a degenerate pairing)."""
    rng = np.random.default_rng(seed)
    speeds = {"RS": 1.0, "SE": 1.5, "BMRI": 1.8, "MRI-best": 3.0}
    n = np.arange(2, 18)
    rows, asymptotic = [], []
    for problem in ("four-gaussian", "sharp"):
        for classifier in ("lda", "qda"):
            floor = 0.35 if (problem, classifier) == ("sharp", "lda") else 0.12
            asymptotic.append((problem, classifier, floor))
            for r in range(replicates):
                for method, speed in speeds.items():
                    loss = floor + 0.35 * np.exp(-0.15 * speed * (n - 2)) + rng.normal(0, 0.01, n.size)
                    rows += [(problem, classifier, method, r, int(k), float(np.clip(v, 0, 1)))
                             for k, v in zip(n, loss, strict=True)]
    return (pd.DataFrame(rows, columns=["problem", "classifier", "strategy", "replicate", "n_labelled", "loss"]),
            pd.DataFrame(asymptotic, columns=["problem", "classifier", "asymptotic_loss"]))


def test_degenerate_pairings():
    _, asymptotic = _curves()
    assert degenerate_pairings(asymptotic) == [("sharp", "lda")]  # 0.35 > 2 x 0.12
    assert degenerate_pairings(asymptotic, ratio=3) == []
    with pytest.raises(ValueError, match="ratio must be at least 1"):
        degenerate_pairings(asymptotic, ratio=0.5)


def _by_hand(curves, first, second, rng, n_boot):
    """Mean over pairings of AUA(first) - AUA(second) and of the regret difference, on the replicate-averaged
    curves, and the same for each bootstrap draw (the draws made pairing by pairing, sorted, as documented)."""
    observed, draws = {"aua": [], "regret": []}, {"aua": [], "regret": []}
    for _, part in curves.groupby(["problem", "classifier"], sort=True):
        table = part.pivot_table(index=["strategy", "replicate"], columns="n_labelled", values="loss")
        n = table.columns.to_numpy(float)
        r = part["replicate"].nunique()
        picks = rng.integers(0, r, size=(n_boot, r))
        for weights, store in [(np.full(r, 1.0 / r), observed)] + [
                (np.bincount(p, minlength=r) / r, None) for p in picks]:
            curve = {s: weights @ table.loc[s].to_numpy() for s in (first, second, "MRI-best")}
            values = {"aua": aua(n, curve[first]) - aua(n, curve[second]),
                      "regret": np.mean(curve[first] - curve["MRI-best"]) - np.mean(curve[second] - curve["MRI-best"])}
            if store is not None:
                for key, value in values.items():
                    store[key].append(value)
            else:
                for key, value in values.items():
                    draws[key].append(value)
    n_pairings = len(observed["aua"])
    return ({k: np.mean(v) for k, v in observed.items()},
            {k: np.array(v).reshape(n_pairings, n_boot).mean(axis=0) for k, v in draws.items()}, observed)


def test_paired_differences_by_hand():
    curves, asymptotic = _curves()
    table = paired_differences(curves, asymptotic, [("BMRI", "RS"), ("BMRI", "SE")], rng=np.random.default_rng(3),
                               n_boot=60)
    assert table[["first", "second", "metric"]].values.tolist() == [
        ["BMRI", "RS", "aua"], ["BMRI", "RS", "regret"], ["BMRI", "SE", "aua"], ["BMRI", "SE", "regret"]]
    rng = np.random.default_rng(3)  # the draws of both pairs come from the same per-pairing resamples
    mean, boot, per_pairing = _by_hand(curves, "BMRI", "RS", rng, 60)
    for metric in ("aua", "regret"):
        row = table[(table.second == "RS") & (table.metric == metric)].iloc[0]
        assert row.difference == pytest.approx(mean[metric], abs=1e-12)
        assert row.ci_low == pytest.approx(np.quantile(boot[metric], 0.025), abs=1e-12)
        assert row.ci_high == pytest.approx(np.quantile(boot[metric], 0.975), abs=1e-12)
        better = sum(d > 0 for d in per_pairing[metric]) if metric == "aua" else sum(
            d < 0 for d in per_pairing[metric])
        assert row.first_better == better and row.pairings == 4
    assert table.loc[0, "difference"] > 0 and table.loc[0, "ci_low"] > 0  # BMRI's curves fall faster than RS's


def test_the_absolute_epsilon_reading_moves_the_target():
    curves, asymptotic = _curves()
    table = conclusions_by_reading(curves, asymptotic, {"abstract": ["four-gaussian", "sharp"]}, n_boot=20,
                                   leave_out=False)
    assert list(dict.fromkeys(table["variant"])) == list(READINGS)
    from mri_theory.evaluation.sensitivity import _absolute_epsilon

    moved = _absolute_epsilon(asymptotic, 0.05)
    part = curves[(curves.problem == "sharp") & (curves.classifier == "qda") & (curves.strategy == "SE")]
    mean = part.groupby("n_labelled")["loss"].mean()
    target = float(moved[(moved.problem == "sharp") & (moved.classifier == "qda")].asymptotic_loss.iloc[0])
    assert label_complexity(mean.index, mean.to_numpy(), target, 0.05) == label_complexity(
        mean.index, mean.to_numpy(), 0.12 + 0.05, 0.0)


def test_as_reported_is_the_reports_final_ranking(tmp_path):
    curves, asymptotic = _curves(1)
    groups = {"abstract": ["four-gaussian", "sharp"]}
    table = conclusions(curves, asymptotic, groups, seed=5, n_boot=40)
    assert list(table.columns) == CONCLUSION_COLUMNS
    write_report(curves, asymptotic, tmp_path, groups, n_boot=40, seed=5)
    final = pd.read_csv(tmp_path / "final_ranking.csv").set_index("method")
    ours = table[table.quantity == "final_rank"].set_index("item")
    for method in final.index:
        assert ours.loc[method, "value"] == pytest.approx(final.loc[method, "mean_rank"], abs=1e-12)
        assert ours.loc[method, "ci_low"] == pytest.approx(final.loc[method, "ci_low"], abs=1e-12)
    beats = pd.read_csv(tmp_path / "beats_rs.csv").set_index("method")["beats_rs"]
    assert table[table.quantity == "beats_rs"].set_index("item")["value"].to_dict() == beats.astype(float).to_dict()


def test_leaving_out_and_the_degenerate_variant():
    curves, asymptotic = _curves(2)
    table = conclusions_by_reading(curves, asymptotic, {"abstract": ["four-gaussian", "sharp"]}, n_boot=20)
    variants = list(dict.fromkeys(table["variant"]))
    assert variants == [*READINGS, "without four-gaussian", "without sharp", "without lda", "without qda"]
    units = table[(table.variant == "without degenerate pairings") & (table.quantity == "difference")]
    assert set(units["detail"].str.extract(r"of (\d+)")[0]) == {"3"}  # 4 pairings less sharp/lda
    alone = conclusions(curves[curves.problem != "sharp"].reset_index(drop=True), asymptotic,
                        {"abstract": ["four-gaussian"]}, n_boot=20)
    left = table[table.variant == "without sharp"].drop(columns="variant").reset_index(drop=True)
    pd.testing.assert_frame_equal(left, alone)
    fig = sensitivity_figure(table)
    assert len(fig.axes) == 4 and [t.get_text() for t in fig.axes[0].get_yticklabels()][0] == variants[0]
