"""The paper's real-data protocol (§5.2) in the runners: each problem's own pool, the small group and user data
through the study and its command, and the report's default groups.

The pool of ``pool_size="all"`` is checked against the data's own counts (a replicate's test set, initial set and
pool partition the rows), not against ``max_pool_size``'s formula.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from _shared import QUIET

from mri_theory.cli import main
from mri_theory.problems import DataProblem, get_problem
from mri_theory.runners import SIMULATED_POOL_SIZE, default_groups, report, run_curves, run_study
from mri_theory.runners._curves import pool_size_of
from mri_theory.runners.study import PROBLEM_GROUPS

#: Small settings: two labels a curve, one replicate, the quick preset's populations.
TINY = dict(classifiers=["lda"], strategies=["RS"], replicates=1, budget=2, execution=QUIET)


@pytest.mark.parametrize("name", PROBLEM_GROUPS["small"])
def test_all_is_every_row_outside_the_test_and_initial_sets(name):
    problem = get_problem(name)
    size = pool_size_of("all", name, problem)
    assert pool_size_of("auto", name, problem) == size
    X0, _, pool_X, _, population = problem.draw_replicate(size, 1, np.random.default_rng(0))
    rows = problem.X.shape[0]
    assert population.size == math.ceil(0.3 * rows)  # the stated test fraction, rounded up
    assert len(X0) == problem.n_classes
    assert len(X0) + len(pool_X) + population.size == rows  # the whole data set is used
    with pytest.raises(ValueError, match=f"pool_size must be at most {size} for problem '{name}'"):
        pool_size_of(size + 1, name, problem)


def test_a_simulated_problem_has_no_whole_pool():
    problem = get_problem("four-gaussian")
    assert pool_size_of("auto", "four-gaussian", problem) == SIMULATED_POOL_SIZE == 250
    assert pool_size_of(17, "four-gaussian", problem) == 17
    with pytest.raises(ValueError, match="pool_size 'all' .* simulated problem 'four-gaussian'"):
        pool_size_of("all", "four-gaussian", problem)
    with pytest.raises(ValueError, match="pool_size must be a size or one of 'all', 'auto', got 'most'"):
        pool_size_of("most", "four-gaussian", problem)
    with pytest.raises(ValueError, match="pool_size must be an integer, got 2.5"):
        pool_size_of(2.5, "four-gaussian", problem)


def test_run_curves_exhausts_a_real_data_set_by_default():
    table = run_curves("heart", "lda", ["RS"], replicates=1, execution=QUIET)
    heart = get_problem("heart")
    assert table.n_labelled.tolist() == list(range(2, heart.X.shape[0] - math.ceil(0.3 * 270) + 1))


def test_each_problem_its_own_pool_in_one_study(tmp_path):
    out = tmp_path / "study"
    pools = {"four-gaussian": 30, "heart": "all", "balance": 100}
    curves, _ = run_study("quick", problems=list(pools), pool_size=pools, out=out, **TINY)
    stored = json.loads((out / "study.json").read_text())["settings"]["pool_size"]
    heart = get_problem("heart").max_pool_size
    assert stored == {"four-gaussian": 30, "heart": heart, "balance": 100}  # as resolved
    for problem, size in stored.items():
        config = json.loads((out / f"{problem}__lda" / "config.json").read_text())
        assert config["pool_size"] == size
    # the sizes the rule gave, written out, are the same settings: the study resumes and computes nothing
    again, _ = run_study("quick", problems=list(pools), pool_size=stored, out=out, **TINY)
    pd.testing.assert_frame_equal(curves, again)


def test_one_size_is_recorded_as_one_number(tmp_path):
    run_study("quick", problems=["four-gaussian"], pool_size="auto", out=tmp_path / "s", **TINY)
    assert json.loads((tmp_path / "s" / "study.json").read_text())["settings"]["pool_size"] == 250


@pytest.mark.parametrize(("pool_size", "error", "match"), [
    ({"four-gaussian": 30}, ValueError, "pool_size: a mapping must give every problem .* missing: heart"),
    ({"four-gaussian": 30, "heart": 9, "wine": 9}, ValueError, "unknown: 'wine'"),
    ({"four-gaussian": "all", "heart": 9}, ValueError, "pool_size 'all'"),
    ([30, 40], TypeError, "pool_size must be a size"),
    (True, TypeError, "pool_size must be a size"),
])
def test_bad_pools_are_refused_before_any_file(tmp_path, pool_size, error, match):
    out = tmp_path / "study"
    with pytest.raises(error, match=match):
        run_study("quick", problems=["four-gaussian", "heart"], pool_size=pool_size, out=out, **TINY)
    assert not out.exists()


def test_the_paper_preset_runs_the_small_group(tmp_path, monkeypatch):
    """``problems="small"`` under the paper preset: every set its whole pool (here only its first two labels)."""
    out = tmp_path / "small"
    run_study(problems="small", classifiers=["lda"], strategies=["RS"], replicates=1, budget=2,
              asymptotic_replicates=1, out=out, execution=QUIET)
    pools = json.loads((out / "study.json").read_text())["settings"]["pool_size"]
    assert pools == {name: get_problem(name).max_pool_size for name in PROBLEM_GROUPS["small"]}
    report(out)
    markdown = (out / "report" / "report.md").read_text()
    assert "- Groups: small: " + ", ".join(sorted(PROBLEM_GROUPS["small"])) in markdown
    assert "| small | lda | " in markdown and "| Table 4, line 1186 |" in markdown  # the paper's Small row beside


def test_default_groups():
    assert default_groups(["sonar", "four-gaussian", "mine", "heart", "sonar"]) == {
        "abstract": ["four-gaussian"], "small": ["heart", "sonar"], "other": ["mine"]}  # the registry's order
    assert default_groups(["triangles"]) == {"abstract": ["triangles"]}


@pytest.fixture
def iris_csv(tmp_path):
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(label=y)
    path = tmp_path / "iris.csv"
    frame.to_csv(path, index=False)
    return path


def _cli_study(out, *extra):
    return main(["study", "--preset", "quick", "--classifiers", "lda", "--strategies", "RS", "--replicates", "1",
                 "--budget", "2", "--out", str(out), *extra])


def test_the_cli_runs_user_data_beside_named_problems(tmp_path, iris_csv, capsys):
    out = tmp_path / "study"
    assert _cli_study(out, "--problems", "heart", "--data", str(iris_csv), "--target", "label",
                      "--test-size", "0.5") == 0
    grid = json.loads((out / "study.json").read_text())["grid"]
    assert grid["problems"] == ["heart", "iris"]
    spec = grid["specs"]["problems"]["iris"]
    assert spec == repr(DataProblem.from_csv(iris_csv, "label", test_size=0.5))
    assert main(["report", str(out)]) == 0
    assert "- Groups: other: iris; small: heart" in (out / "report" / "report.md").read_text()


@pytest.mark.parametrize(("extra", "message"), [
    (["--data", "{csv}"], "--data needs --target"),
    (["--data", "{csv}", "--target", "nope"], "target 'nope' is not a column"),
    (["--problems", "four-gaussian", "--pool", "all"], "pool_size 'all'"),
    (["--problems", "heart", "--pool", "many"], "pool_size must be a size, 'all', 'auto', 'asymptotic'"),
])
def test_the_cli_refuses_bad_data_and_pools_in_one_line(tmp_path, iris_csv, capsys, extra, message):
    out = tmp_path / "study"
    assert _cli_study(out, *[e.format(csv=iris_csv) for e in extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()


def test_the_cli_pool_takes_a_rule(tmp_path):
    out = tmp_path / "study"
    assert _cli_study(out, "--problems", "heart", "--pool", "all") == 0
    assert json.loads((out / "study.json").read_text())["settings"]["pool_size"] == get_problem("heart").max_pool_size
