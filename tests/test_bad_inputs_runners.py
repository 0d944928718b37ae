"""Bad input to the runners is refused up front: before any work, any file, with a message naming it.

* Sizes beyond the stated bounds (``mri_theory._utils.limits``: pool 100 000,
  populations and asymptotic training samples 1 000 000, replicates
  100 000, 256 jobs) raise a ``ValueError`` naming the argument in
  ``run_curves``, ``run_study``, ``score_states`` and the CLI, instead of a
  ``MemoryError`` after the work started.
* A pool larger than a real-data problem holds (``max_pool_size``) is refused
  before ``study.json``/``config.json`` are written.
* Repeated names (``--classifiers lda lda``, strategies, problems) are refused
  by the functions and the CLI before any work.
* ``record_q_c`` defaults to "where the truth exists": ``run_curves`` on real
  data runs without it (an explicit ``True`` is still refused), and on a
  problem with the truth it records the true Q^c as before.
* ``mri-theory report --groups`` reports any grouping of the study's problems;
  a ``--loss log`` study is reported, ranked on the log loss.
* Issue 54, part 3: a group member that is not a problem of the study is
  refused; user data named like a built-in problem form their own group and
  are never replaced by the built-in problem in ``sensitivity`` (refused
  before any file without the data); a ``--loss log`` study's sensitivity; a
  reading that cannot apply is refused when named, noted when defaulted; one
  replicate gives undefined intervals; ``--standardize``; a closed pipe.

Sizes: pool 5-30, population 200-300, one or two replicates.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _shared import QUIET

from mri_theory.classifiers import get_classifier
from mri_theory.cli import main
from mri_theory.problems import DataProblem, get_problem
from mri_theory.runners import _curves as curves_module
from mri_theory.runners import default_groups, run_sensitivity
from mri_theory.runners.leaderboard import run_leaderboard
from mri_theory.runners.sandbox import run_curves
from mri_theory.runners.states import score_states
from mri_theory.runners.study import read_study, report, run_study

HUGE = 10**12


def _curves(out, **change):
    return run_curves(**{**dict(problem="four-gaussian", classifier="lda", strategies=["RS"], pool_size=6,
                                replicates=1, population_size=200, execution=QUIET), **change}, out=out)


def _study(out, **change):
    return run_study(**{**dict(problems=["four-gaussian"], classifiers=["lda"], strategies=["RS"], replicates=1,
                               pool_size=6, population_size=200, asymptotic_train=50, asymptotic_replicates=1,
                               asymptotic_population=200, execution=QUIET), **change}, out=out)


def _states(out, **change):
    return score_states(**{**dict(problem="four-gaussian", classifier="lda", strategies=["RS"], replicates=1,
                                  steps=[1], pool_size=6, population_size=200, execution=QUIET), **change}, out=out)


def _board(out, **change):
    return run_leaderboard(**{**dict(problems="four-gaussian", classifiers="lda", strategies=["RS"], replicates=1,
                                     steps=[1], pool_size=6, population_size=200, execution=QUIET), **change}, out=out)


SIZES = [
    (_curves, "pool_size", HUGE, "pool_size must be <= 100_000"),
    (_curves, "population_size", HUGE, "population_size must be <= 1_000_000"),
    (_curves, "replicates", HUGE, "replicates must be <= 100_000"),
    (_curves, "budget", HUGE, "budget .* must not exceed pool_size"),
    (_study, "pool_size", HUGE, "pool_size must be <= 100_000"),
    (_study, "population_size", HUGE, "population_size must be <= 1_000_000"),
    (_study, "replicates", HUGE, "replicates must be <= 100_000"),
    (_study, "asymptotic_train", HUGE, "asymptotic_train must be <= 1_000_000"),
    (_study, "asymptotic_population", HUGE, "asymptotic_population must be <= 1_000_000"),
    (_study, "asymptotic_replicates", HUGE, "asymptotic_replicates must be <= 100_000"),
    (_states, "pool_size", HUGE, "pool_size must be <= 100_000"),
    (_states, "population_size", HUGE, "population_size must be <= 1_000_000"),
    (_states, "replicates", HUGE, "replicates must be <= 100_000"),
    (_board, "pool_size", HUGE, "pool_size must be <= 100_000"),
    (_board, "population_size", HUGE, "population_size must be <= 1_000_000"),
    (_board, "replicates", HUGE, "replicates must be <= 100_000"),
    (_board, "n_boot", HUGE, "n_boot must be <= 10_000"),
]


@pytest.mark.parametrize("runner,argument,value,pattern", SIZES,
                         ids=[f"{r.__name__[1:]}-{a}" for r, a, _, _ in SIZES])
def test_unbounded_sizes_are_refused_before_any_work_or_file(runner, argument, value, pattern, tmp_path, no_work):
    with pytest.raises(ValueError, match=pattern):
        runner(tmp_path / "out", **{argument: value})
    assert not (tmp_path / "out").exists()


def test_the_largest_sizes_pass_the_checks():
    """The bounds themselves are accepted (checked without running: the configuration only)."""
    problem, classifier = ("four-gaussian", get_problem("four-gaussian")), ("lda", get_classifier("lda"))
    cfg = curves_module.curve_config(problem, classifier, 100_000, None, 1_000_000, "error", None, None, 0)
    assert (cfg.pool_size, cfg.budget, cfg.population_size, cfg.record_q_c) == (100_000, 100_000, 1_000_000, True)


CLI_SIZES = [
    ["curves", "--problem", "four-gaussian", "--classifier", "lda", "--strategies", "RS", "--pool", str(HUGE)],
    ["curves", "--problem", "four-gaussian", "--classifier", "lda", "--strategies", "RS", "--replicates", str(HUGE)],
    ["curves", "--problem", "four-gaussian", "--classifier", "lda", "--strategies", "RS", "--jobs", "100000"],
    ["study", "--preset", "quick", "--population", str(HUGE)],
    ["study", "--preset", "quick", "--asymptotic-train", str(HUGE)],
    ["diagnose", "--classifiers", "lda", "--strategies", "RS", "--pool", str(HUGE)],
    ["diagnose", "--classifiers", "lda", "--strategies", "RS", "--replicates", str(HUGE)],
    ["leaderboard", "--problems", "four-gaussian", "--classifiers", "lda", "--strategies", "RS", "--pool", str(HUGE)],
    ["leaderboard", "--problems", "four-gaussian", "--classifiers", "lda", "--strategies", "RS", "--boot", str(HUGE)],
]


@pytest.mark.parametrize("args", CLI_SIZES, ids=[" ".join(a[:1] + a[-2:-1]) for a in CLI_SIZES])
def test_cli_refuses_unbounded_sizes_with_one_line(args, tmp_path, capsys, no_work):
    assert main([*args, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"mri-theory {args[0]}: ") and "must be" in err
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ data-dependent checks, before any file


def test_a_pool_larger_than_the_data_is_refused_before_any_file(tmp_path, no_work):
    wine = get_problem("wine")
    too_large = wine.max_pool_size + 1
    pattern = f"pool_size must be at most {wine.max_pool_size} for problem 'wine'"
    with pytest.raises(ValueError, match=pattern):
        _study(tmp_path / "study", problems=["wine"], pool_size=too_large)
    with pytest.raises(ValueError, match=pattern):
        _curves(tmp_path / "curves", problem="wine", pool_size=too_large)
    assert list(tmp_path.iterdir()) == []


def test_record_q_c_defaults_to_where_the_truth_exists(tmp_path):
    table = run_curves("wine", "lda", ["RS"], pool_size=30, budget=2, replicates=1, execution=QUIET)
    assert table.q_c_chosen.isna().all() and np.isfinite(table.loss).all()  # nothing recorded on real data
    with pytest.raises(ValueError, match="record_q_c must be False"):
        run_curves("wine", "lda", ["RS"], pool_size=30, budget=2, replicates=1, record_q_c=True, execution=QUIET)
    truth = run_curves("four-gaussian", "lda", ["RS"], pool_size=5, budget=2, replicates=1, population_size=200,
                       execution=QUIET)
    assert np.isfinite(truth.q_c_chosen.iloc[:-1]).all()  # recorded where the truth exists, as before
    explicit = run_curves("four-gaussian", "lda", ["RS"], pool_size=5, budget=2, replicates=1, population_size=200,
                          record_q_c=True, execution=QUIET)
    pd.testing.assert_frame_equal(truth, explicit, check_exact=True)
    assert main(["curves", "--problem", "wine", "--classifier", "lda", "--strategies", "RS", "--replicates", "1",
                 "--pool", "30", "--budget", "2", "--out", str(tmp_path / "wine")]) == 0
    assert json.loads((tmp_path / "wine" / "config.json").read_text())["record_q_c"] is False


# ------------------------------------------------------------------ repeated names


def test_repeated_names_are_refused_by_the_functions(tmp_path, no_work):
    with pytest.raises(ValueError, match="strategies must not repeat a name, got RS"):
        _curves(tmp_path / "out", strategies=["RS", "RS"])
    with pytest.raises(ValueError, match="problems must not repeat a name, got four-gaussian"):
        _study(tmp_path / "out", problems=["four-gaussian", "abstract"])
    with pytest.raises(ValueError, match="classifiers must not repeat a name, got lda"):
        _study(tmp_path / "out", classifiers=["lda", "lda"])
    with pytest.raises(ValueError, match="strategies must not repeat a name, got SE"):
        _states(tmp_path / "out", strategies=["SE", "RS", "SE"])
    with pytest.raises(ValueError, match="classifiers must not repeat a name, got lda"):
        _board(tmp_path / "out", classifiers=["paper", "lda"])
    with pytest.raises(ValueError, match="strategies must not repeat a name, got RS"):
        _board(tmp_path / "out", strategies=["all", "RS"])
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("args,pattern", [
    (["diagnose", "--classifiers", "lda", "lda", "--strategies", "RS", "--replicates", "1", "--steps", "1",
      "--pool", "6", "--population", "200"], "--classifiers must not repeat a name, got lda"),
    (["diagnose", "--classifiers", "lda", "--strategies", "RS", "RS", "--replicates", "1", "--steps", "1",
      "--pool", "6", "--population", "200"], "strategies must not repeat a name, got RS"),
    (["curves", "--problem", "four-gaussian", "--classifier", "lda", "--strategies", "SE", "SE"],
     "strategies must not repeat a name, got SE"),
    (["study", "--preset", "quick", "--classifiers", "lda", "kknn5", "lda"], "classifiers must not repeat a name"),
    (["leaderboard", "--problems", "four-gaussian", "abstract", "--classifiers", "lda", "--strategies", "RS"],
     "problems must not repeat a name, got four-gaussian"),
], ids=["diagnose-classifiers", "diagnose-strategies", "curves-strategies", "study-classifiers",
        "leaderboard-problems"])
def test_cli_refuses_repeated_names_before_any_work(args, pattern, tmp_path, capsys, no_work):
    assert main([*args, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and pattern in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ reports: groups and the log loss


STUDY = ["--problems", "four-gaussian", "two-gaussians", "--classifiers", "lda", "--strategies", "RS", "SE",
         "--replicates", "2", "--pool", "6", "--population", "200", "--seed", "2", "--asymptotic-train", "100",
         "--asymptotic-replicates", "1", "--asymptotic-population", "200"]


@pytest.fixture(scope="module")
def log_study(tmp_path_factory):
    """A finished --loss log study of an abstract and a non-abstract problem."""
    folder = tmp_path_factory.mktemp("log") / "study"
    assert main(["study", *STUDY, "--loss", "log", "--out", str(folder)]) == 0
    return folder


def test_report_groups_from_the_command_line(log_study, capsys):
    capsys.readouterr()
    assert main(["report", str(log_study)]) == 0  # by default: two-gaussians, in no registered group, is "other"
    assert set(pd.read_csv(log_study / "report" / "group_ranks.csv").group) == {"abstract", "other"}
    assert main(["report", str(log_study), "--groups", "mine=four-gaussian,two-gaussians"]) == 0
    ranks = pd.read_csv(log_study / "report" / "group_ranks.csv")
    assert set(ranks.group) == {"mine"}
    assert main(["report", str(log_study), "--groups", "abstract", "other=two-gaussians"]) == 0
    assert set(pd.read_csv(log_study / "report" / "group_ranks.csv").group) == {"abstract", "other"}
    capsys.readouterr()
    for bad in (["=four-gaussian"], ["mine="], ["nonesuch"], ["a=four-gaussian", "a=two-gaussians"]):
        assert main(["report", str(log_study), "--groups", *bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--groups" in err


def test_a_log_loss_study_is_reported_on_the_log_loss(log_study, monkeypatch):
    assert json.loads((log_study / "study.json").read_text())["settings"]["loss"] == "log"
    read_study(log_study)  # finished and verified
    from mri_theory.evaluation import tables

    seen = []
    write_report = tables.write_report
    monkeypatch.setattr(tables, "write_report", lambda *a, **k: seen.append(k["loss"]) or write_report(*a, **k))
    written = report(log_study, groups={"g": ["four-gaussian", "two-gaussians"]})
    assert seen == ["log"] and Path(log_study / "report" / "report.md") in written
    assert "log loss" in (log_study / "report" / "report.md").read_text()


# ------------------------------------------------------------------ issue 54, part 3: the newer surfaces


def test_sensitivity_accepts_a_log_loss_study(log_study, tmp_path):
    """run_study set MRI-best to the study's loss (MRIBest(loss='log')): that MRI-best is the registered one."""
    table = run_sensitivity(log_study, tmp_path / "sens", recompute=[], n_boot=20, execution=QUIET)
    assert "as reported" in set(table.variant) and (tmp_path / "sens" / "sensitivity.csv").is_file()


def test_report_refuses_a_group_member_the_study_lacks(log_study, capsys):
    before = (log_study / "report" / "report.md").read_bytes() if (log_study / "report").exists() else None
    with pytest.raises(ValueError, match=r"groups: the group 'mine' names \['nope'\], which are not problems"):
        report(log_study, groups={"mine": ["four-gaussian", "two-gaussians", "nope"]})
    capsys.readouterr()
    assert main(["report", str(log_study), "--groups", "mine=four-gaussian,nope", "other=two-gaussians"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--groups: the group 'mine' names" in err and "'nope'" in err
    after = (log_study / "report" / "report.md").read_bytes() if (log_study / "report").exists() else None
    assert after == before  # nothing written


@pytest.fixture(scope="module")
def named_like_built_in(tmp_path_factory):
    """A study of the user's data in a file named ``four-gaussian.csv`` (60 rows, 4 columns), with RS, SE, BMRI."""
    folder = tmp_path_factory.mktemp("own")
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    path = folder / "four-gaussian.csv"
    pd.DataFrame(X, columns=list("abcd")).assign(label=y).to_csv(path, index=False)
    assert main(["study", "--preset", "quick", "--data", str(path), "--target", "label", "--classifiers", "lda",
                 "--strategies", "RS", "SE", "BMRI", "--replicates", "2", "--pool", "all", "--budget", "3",
                 "--out", str(folder / "study")]) == 0
    return path, folder / "study"


def test_user_data_named_like_a_built_in_problem_form_their_own_group(named_like_built_in):
    path, study = named_like_built_in
    specs = json.loads((study / "study.json").read_text())["grid"]["specs"]["problems"]
    assert specs["four-gaussian"] == repr(DataProblem.from_csv(path, "label"))
    assert default_groups(["four-gaussian"], specs=specs) == {"other": ["four-gaussian"]}
    assert default_groups(["four-gaussian"]) == {"abstract": ["four-gaussian"]}  # the labels alone: the paper's
    report(study)
    assert "- Groups: other: four-gaussian\n" in (study / "report" / "report.md").read_text()
    assert set(pd.read_csv(study / "report" / "group_ranks.csv").group) == {"other"}


def test_sensitivity_reruns_the_users_data_never_the_built_in_problem(named_like_built_in, tmp_path, capsys):
    path, study = named_like_built_in
    with pytest.raises(ValueError, match="path: the study's problem 'four-gaussian' is not the registered problem"):
        run_sensitivity(study, tmp_path / "a", recompute=["BMRI mean"], n_boot=20, execution=QUIET)
    assert main(["sensitivity", str(study), "--recompute", "BMRI mean", "--out", str(tmp_path / "b")]) == 2
    assert "--data FILE --target COLUMN" in capsys.readouterr().err
    other = DataProblem.from_csv(path, "label", standardize=True)  # not the study's data: refused
    with pytest.raises(ValueError, match="problems: the problem 'four-gaussian' given .* is not the study's"):
        run_sensitivity(study, tmp_path / "c", recompute=["BMRI mean"], problems=[other], execution=QUIET)
    with pytest.raises(ValueError, match=r"problems: \['two-gaussians'\] are not problems of the study"):
        run_sensitivity(study, tmp_path / "c", recompute=[], problems=[get_problem("two-gaussians")])
    assert not any((tmp_path / name).exists() for name in "abc")  # refused before any file
    assert main(["sensitivity", str(study), "--recompute", "BMRI mean", "--boot", "20", "--data", str(path),
                 "--target", "label", "--out", str(tmp_path / "d")]) == 0
    config = json.loads((tmp_path / "d" / "variants" / "BMRI-mean" / "four-gaussian__lda" / "config.json")
                        .read_text())
    assert config["problem_spec"] == repr(DataProblem.from_csv(path, "label"))  # the user's 60 x 4 file
    table = run_sensitivity(study, tmp_path / "e", recompute=[], n_boot=20, execution=QUIET)  # analysis: no data
    assert not (tmp_path / "e" / "variants").exists() and "as reported" in set(table.variant)


def test_readings_that_cannot_apply_are_refused_when_named(named_like_built_in, tmp_path):
    """The study has RS, SE, BMRI and LDA: 'EfeLc whole pool', 'e1071 Platt' and 'per-fit scaling' change nothing
    of it."""
    path, study = named_like_built_in
    for reading in ("EfeLc whole pool", "e1071 Platt", "per-fit scaling"):
        with pytest.raises(ValueError, match=f"recompute: '{reading}' changes .*which the study does not have"):
            run_sensitivity(study, tmp_path / "a", recompute=[reading], problems=[DataProblem.from_csv(path, "label")])
    assert not (tmp_path / "a").exists()


def test_default_readings_that_cannot_apply_are_noted(log_study, tmp_path, capsys):
    """The log study has RS, SE and MRI-best (a sub-sample of 100): of the default readings only MRI-best on the
    whole pool applies, so it alone runs, and both outputs name the others."""
    capsys.readouterr()
    assert main(["sensitivity", str(log_study), "--boot", "20", "--out", str(tmp_path / "sens")]) == 0
    printed = capsys.readouterr().out
    assert "not applicable, left out (they change nothing the study has): BMRI mean, kknn kernels, EfeLc whole " \
           "pool" in printed
    assert [p.name for p in (tmp_path / "sens" / "variants").iterdir()] == ["MRI-best-whole-pool"]
    markdown = (tmp_path / "sens" / "SENSITIVITY.md").read_text()
    assert "Not applicable, left out (they change nothing the study has): BMRI mean, kknn kernels, EfeLc whole " \
           "pool." in markdown
    assert set(pd.read_csv(tmp_path / "sens" / "sensitivity.csv").variant) <= {
        "as reported", "R1 averaged metrics", "epsilon absolute", "without degenerate pairings",
        "without four-gaussian", "without two-gaussians", "without lda", "MRI-best whole pool"}


def test_the_readings_of_the_sub_sample_cannot_apply_to_a_study_of_the_whole_pool(tmp_path):
    """A study that scores the whole pool (``subsample=0``): MRI-best and EfeLc on the whole pool change nothing,
    so named they are refused before any file is written, and by default they are left out."""
    from mri_theory.runners import run_sensitivity, run_study

    study = tmp_path / "study"
    run_study("quick", out=study, problems=["four-gaussian"], classifiers=["lda"], strategies=["RS", "EfeLc"],
              replicates=2, pool_size=6, subsample=0, execution=QUIET)
    for reading in ("MRI-best whole pool", "EfeLc whole pool"):
        with pytest.raises(ValueError, match=f"recompute: '{reading}' scores the whole pool, which the study does "
                                             "already"):
            run_sensitivity(study, tmp_path / "s", recompute=[reading], n_boot=20)
        assert not (tmp_path / "s").exists()
    run_sensitivity(study, tmp_path / "d", n_boot=20, execution=QUIET)
    assert not (tmp_path / "d" / "variants").exists()


def test_the_standardize_option_maps_to_the_data_problem(named_like_built_in, tmp_path):
    path, _ = named_like_built_in
    wide = tmp_path / "wide.csv"
    frame = pd.read_csv(path)
    frame.assign(a=frame.a * 1e12, b=frame.b * 1e-12).to_csv(wide, index=False)
    assert main(["study", "--preset", "quick", "--data", str(wide), "--target", "label", "--standardize",
                 "--test-size", "10", "--classifiers", "kknn5", "--strategies", "RS", "--replicates", "1",
                 "--budget", "2", "--pool", "all", "--out", str(tmp_path / "study")]) == 0
    spec = json.loads((tmp_path / "study" / "study.json").read_text())["grid"]["specs"]["problems"]["wide"]
    assert spec == repr(DataProblem.from_csv(wide, "label", test_size=10, standardize=True))
    assert "standardize=True" in spec
    problem = DataProblem.from_csv(wide, "label", standardize=True)
    assert np.allclose(problem.X.std(axis=0), 1.0)  # every column on one scale: kknn5 uses them all


def test_a_closed_pipe_ends_the_command_quietly():
    """``mri-theory figures --list | head``: the reader gone, the command stops without a traceback (141)."""
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-c", "import sys; from mri_theory.cli import main; "
                                "sys.exit(main(['figures', '--list']))"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # the reader leaves before the first line is written
    err = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141, err
    assert err == ""


def test_a_one_replicate_study_shows_no_interval_on_the_command_line(tmp_path, capsys):
    """One replicate: every interval is undefined, shown as such (``[n/a]``), in the CSV as NaN."""
    study = tmp_path / "study"
    _study(study, strategies=["RS", "SE", "BMRI"])  # one replicate
    capsys.readouterr()
    assert main(["sensitivity", str(study), "--recompute", "--boot", "20", "--out", str(tmp_path / "sens")]) == 0
    printed = capsys.readouterr().out
    assert "[n/a]" in printed and "nan" not in printed
    table = pd.read_csv(tmp_path / "sens" / "sensitivity.csv")
    intervals = table[table.quantity.isin(["final_rank", "difference"])]
    assert len(intervals) and intervals[["ci_low", "ci_high"]].isna().all().all()
