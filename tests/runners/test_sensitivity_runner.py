"""run_sensitivity: a recomputed reading reruns only the curves it changes, with the base study's settings, and
resumes; bad arguments are refused before any file is written."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from _shared import QUIET

from mri_theory.cli import build_parser, main
from mri_theory.runners import RECOMPUTED, run_curves, run_sensitivity, run_study
from mri_theory.runners.sensitivity import DEFAULT_RECOMPUTED
from mri_theory.strategies import BootstrapMRI, EfeLc, MRIBest

GRID = dict(problems=["four-gaussian"], classifiers=["lda"], strategies=["RS", "SE", "EfeLc", "BMRI"], replicates=2,
            pool_size=16, execution=QUIET)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sens") / "study"
    run_study("quick", out=folder, **GRID)
    return folder


def _curves(folder, strategy):
    table = pd.read_csv(folder / "curves.csv")
    return table[table.strategy == strategy].reset_index(drop=True)


def test_a_reading_reruns_only_what_it_changes(study, tmp_path):
    out = tmp_path / "sensitivity"
    table = run_sensitivity(study, out, recompute=["BMRI mean"], n_boot=30, execution=QUIET)
    variant = out / "variants" / "BMRI-mean"
    timings = pd.read_csv(variant / "timings.csv")
    assert set(timings.strategy) == {"BMRI"}  # every other part was the base study's, verified and reused
    for strategy in ("RS", "SE", "EfeLc", "MRI-best"):
        pd.testing.assert_frame_equal(_curves(variant, strategy), _curves(study, strategy))
    settings = json.loads((study / "study.json").read_text())["settings"]
    direct = run_curves("four-gaussian", "lda", [BootstrapMRI(aggregate="mean")], settings["pool_size"],
                        replicates=2, seed=settings["seed"], population_size=settings["population_size"],
                        subsample=settings["subsample"], execution=QUIET)
    mean = _curves(variant, "BMRI")
    assert mean.chosen.tolist() == direct.chosen.tolist()
    assert mean.chosen.tolist() != _curves(study, "BMRI").chosen.tolist()  # the reading changed BMRI's choices
    assert set(table.variant) >= {"as reported", "R1 averaged metrics", "BMRI mean"}
    assert {p.name for p in out.iterdir()} >= {"sensitivity.csv", "SENSITIVITY.md", "sensitivity.png", "variants"}


def test_it_resumes_without_work(study, tmp_path, no_work):
    out = tmp_path / "sensitivity"
    with pytest.raises(AssertionError, match="work started"):
        run_sensitivity(study, out, recompute=["EfeLc whole pool"], n_boot=20, execution=QUIET)
    # the parts it did not touch were copied before the work started; a rerun without no_work would finish it


def test_a_finished_variant_is_reused(study, tmp_path, monkeypatch):
    out = tmp_path / "sensitivity"
    first = run_sensitivity(study, out, recompute=["EfeLc whole pool"], n_boot=20, execution=QUIET)
    before = (out / "sensitivity.csv").read_bytes()
    from mri_theory.runners import _curves as curves_module

    monkeypatch.setattr(curves_module, "run_pair", lambda *a, **k: (_ for _ in ()).throw(AssertionError("work")))
    again = run_sensitivity(study, out, recompute=["EfeLc whole pool"], n_boot=20, execution=QUIET)
    pd.testing.assert_frame_equal(first, again)
    assert (out / "sensitivity.csv").read_bytes() == before
    monkeypatch.undo()
    direct = run_curves("four-gaussian", "lda", [EfeLc(candidates="pool")], 16, replicates=2,
                        population_size=2000, execution=QUIET)
    assert _curves(out / "variants" / "EfeLc-whole-pool", "EfeLc").chosen.tolist() == direct.chosen.tolist()


def test_mri_best_on_the_whole_pool_changes_only_the_regrets_reference(tmp_path):
    """The reading "MRI-best whole pool" reruns MRI-best alone, over every pool point (a study whose costly methods
    score 4 of the pool's 12): its curves are MRIBest(candidates="pool")'s, and only the regret's rows move."""
    study = tmp_path / "study"
    run_study("quick", out=study, problems=["four-gaussian"], classifiers=["lda"], strategies=["RS", "SE"],
              replicates=2, pool_size=12, subsample=4, execution=QUIET)
    out = tmp_path / "sensitivity"
    table = run_sensitivity(study, out, recompute=["MRI-best whole pool"], n_boot=20, execution=QUIET)
    variant = out / "variants" / "MRI-best-whole-pool"
    assert set(pd.read_csv(variant / "timings.csv").strategy) == {"MRI-best"}
    settings = json.loads((study / "study.json").read_text())["settings"]
    direct = run_curves("four-gaussian", "lda", [MRIBest(candidates="pool")], 12, replicates=2,
                        seed=settings["seed"], population_size=settings["population_size"], subsample=4,
                        execution=QUIET)
    whole = _curves(variant, "MRI-best")
    assert whole.chosen.tolist() == direct.chosen.tolist()
    assert whole.chosen.tolist() != _curves(study, "MRI-best").chosen.tolist()
    reported, reading = (table[table.variant == name].set_index(["quantity", "item"]).value
                         for name in ("as reported", "MRI-best whole pool"))
    moved = reported.index[(reported - reading).abs() > 0].get_level_values("quantity")
    assert set(moved) == {"regret"}


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"recompute": ["BMRI median"]}, ValueError, "recompute must name distinct readings"),
    ({"recompute": "BMRI mean"}, TypeError, "recompute must be a sequence"),
    ({"seed": -1}, ValueError, "seed"),
    ({"n_boot": 0}, ValueError, "n_boot"),
    ({"level": 1.5}, ValueError, "level must lie in"),
])
def test_bad_arguments_are_refused_before_any_file(study, tmp_path, kwargs, error, match):
    out = tmp_path / "sensitivity"
    with pytest.raises(error, match=match):
        run_sensitivity(study, out, **kwargs)
    assert not out.exists()


def test_another_runners_folder_and_a_study_of_objects_are_refused(study, tmp_path):
    with pytest.raises(ValueError, match="out: .* holds the results of run_study"):
        run_sensitivity(study, study, recompute=[])
    own = tmp_path / "own"
    run_study("quick", problems=["four-gaussian"], classifiers=["lda"], strategies=["RS", BootstrapMRI(n_b=3)],
              replicates=2, pool_size=10, out=own, execution=QUIET)
    with pytest.raises(ValueError, match="path: the study's strategy 'BMRI' is not the registered one"):
        run_sensitivity(own, tmp_path / "s", recompute=[])
    assert not (tmp_path / "s").exists()


def test_the_cli(study, tmp_path, capsys):
    out = tmp_path / "cli"
    assert main(["sensitivity", str(study), "--out", str(out), "--recompute", "--boot", "20"]) == 0
    printed = capsys.readouterr().out
    assert "as reported" in printed and "without degenerate pairings" not in printed  # lda alone: none
    assert main(["sensitivity", str(study), "--out", str(tmp_path / "x"), "--recompute", "nonesuch"]) == 2
    assert "recompute must name distinct readings" in capsys.readouterr().err


def test_a_variant_resumes_from_its_own_parts_alone(study, tmp_path, monkeypatch):
    """An archive of a variant's own parts (the strategies it replaces) and its study.json is enough: the shared
    parts are copied again from the base study, and nothing is computed."""
    out = tmp_path / "sensitivity"
    first = run_sensitivity(study, out, recompute=["BMRI mean"], n_boot=20, execution=QUIET)
    variant = out / "variants" / "BMRI-mean"
    for pairing in variant.glob("*__*"):
        for part in (pairing / "parts").iterdir():
            if not part.name.startswith("BMRI__"):
                part.unlink()
    from mri_theory.runners import _curves as curves_module

    monkeypatch.setattr(curves_module, "run_pair", lambda *a, **k: (_ for _ in ()).throw(AssertionError("work")))
    again = run_sensitivity(study, out, recompute=["BMRI mean"], n_boot=20, execution=QUIET)
    pd.testing.assert_frame_equal(first, again)


def test_the_command_names_every_recomputed_reading_and_its_default():
    """The CLI's help cannot import the runners (its start-up would take seconds), so it lists the readings in
    words: each of RECOMPUTED quoted, and the ones outside DEFAULT_RECOMPUTED named as left out by default."""
    sensitivity = build_parser()._subparsers._group_actions[0].choices["sensitivity"]
    (recompute,) = [action for action in sensitivity._actions if "--recompute" in action.option_strings]
    listed, default = recompute.help.split("(default: all but ")
    assert all(f"'{name}'" in listed for name in RECOMPUTED)
    assert {name for name in RECOMPUTED if f"'{name}'" in default.split(";")[0]} == set(RECOMPUTED) - set(
        DEFAULT_RECOMPUTED)
