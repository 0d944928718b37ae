"""The study's own cost: ``timings.csv`` (one row per task computed), ``read_timings`` and the report's ``cost.csv``.

Timings are measurements: they are checked for their keys, their sign and their sums, never for values.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from _shared import QUIET

from mri_theory.cli import main
from mri_theory.runners.study import TIMING_COLUMNS, read_study, read_timings, report, run_study

SMALL = dict(problems=["four-gaussian"], classifiers=["lda", "knn5"], strategies=["RS", "SE"], replicates=2,
             pool_size=8, population_size=200, seed=1, asymptotic_train=100, asymptotic_replicates=1,
             asymptotic_population=200, execution=QUIET)


def tasks(replicates: int) -> set:
    curves = {("four-gaussian", c, s, r) for c in SMALL["classifiers"] for s in ("RS", "SE", "MRI-best")
              for r in range(replicates)}
    return curves | {("four-gaussian", c, "", -1) for c in SMALL["classifiers"]}


def keys(frame: pd.DataFrame) -> set:
    return set(frame[["problem", "classifier", "strategy", "replicate"]].itertuples(index=False, name=None))


@pytest.fixture
def study(tmp_path):
    run_study(**SMALL, out=tmp_path)
    return tmp_path


def test_one_row_per_task_with_non_negative_seconds(study):
    timings = read_timings(study)
    assert list(timings.columns) == TIMING_COLUMNS
    assert len(timings) == len(tasks(2)) and keys(timings) == tasks(2)
    assert (timings[["cpu_s", "wall_s"]].to_numpy() >= 0).all() and timings.cpu_s.sum() > 0


def test_a_rerun_keeps_the_timings_and_a_grown_grid_adds_rows(study):
    before = (study / "timings.csv").read_bytes()
    run_study(**SMALL, out=study)  # nothing to compute
    assert (study / "timings.csv").read_bytes() == before
    old = read_timings(study)
    run_study(**{**SMALL, "replicates": 3}, out=study)
    grown = read_timings(study)
    assert keys(grown) == tasks(3)
    pd.testing.assert_frame_equal(grown.iloc[:len(old)], old)  # the earlier tasks keep their timings


def test_an_unreadable_timings_file_is_replaced_with_a_warning(study):
    (study / "timings.csv").write_text("not, a table\n1, 2\n")
    (study / "four-gaussian__lda" / "parts" / "RS__00001.csv").unlink()
    with pytest.warns(RuntimeWarning, match="timings.csv"):
        run_study(**SMALL, out=study)
    assert keys(read_timings(study)) == {("four-gaussian", "lda", "RS", 1)}


def test_results_do_not_depend_on_the_timings(study, tmp_path_factory):
    """The tables are those of a run in memory (no folder, no timings)."""
    stored, memory = read_study(study), run_study(**SMALL)
    pd.testing.assert_frame_equal(stored.curves, memory.curves, check_exact=True)


@pytest.mark.parametrize(("content", "match"), [(None, "no timings.csv"), ("a,b\n1,2\n", "wrong columns"),
                                                ("problem,classifier,strategy,replicate,cpu_s,wall_s\n"
                                                 "p,c,s,0,-1,2\n", ">= 0"),
                                                ("problem,classifier,strategy,replicate,cpu_s,wall_s\n"
                                                 "p,c,s,0,1,2\np,c,s,0,3,4\n", "more than one row")])
def test_read_timings_names_the_path(tmp_path, content, match):
    if content is not None:
        (tmp_path / "timings.csv").write_text(content)
    with pytest.raises(ValueError, match=f"path: .*{match}"):
        read_timings(tmp_path)


def test_report_sums_the_timings_in_cost_csv(study):
    written = report(study)
    assert study / "report" / "cost.csv" in written
    cost = pd.read_csv(study / "report" / "cost.csv")
    timings = read_timings(study)
    total = cost[cost.classifier == "all"].iloc[0]
    assert total.tasks == len(timings) and np.isclose(total.cpu_s, timings.cpu_s.sum())
    rows = cost[cost.classifier != "all"]
    assert rows.tasks.sum() == len(timings) and np.isclose(rows.cpu_s.sum(), timings.cpu_s.sum())
    se = rows[(rows.classifier == "knn5") & (rows.strategy == "SE")].iloc[0]
    mine = timings[(timings.classifier == "knn5") & (timings.strategy == "SE")]
    assert se.tasks == 2 and np.isclose(se.cpu_s, mine.cpu_s.sum()) and np.isclose(se.wall_s, mine.wall_s.sum())
    assert set(rows.strategy) == {"RS", "SE", "MRI-best", "asymptotic loss"}


def test_report_without_complete_timings_warns_and_writes_no_cost(study):
    timings = read_timings(study)
    timings.iloc[1:].to_csv(study / "timings.csv", index=False)
    with pytest.warns(RuntimeWarning, match="lacks 1 of"):
        written = report(study)
    assert not (study / "report" / "cost.csv").exists() and all(p.name != "cost.csv" for p in written)


def _small_study_args(out) -> list[str]:
    """``mri-theory study`` arguments of a one-pairing, one-replicate study in ``out``."""
    return ["study", "--problems", "four-gaussian", "--classifiers", "lda", "--strategies", "RS", "--replicates", "1",
            "--pool", "6", "--population", "200", "--asymptotic-train", "100", "--asymptotic-replicates", "1",
            "--asymptotic-population", "200", "--out", str(out)]


def test_the_cli_prints_the_cost(tmp_path, capsys):
    args = _small_study_args(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(args) == 0
    out = capsys.readouterr().out
    cpu = read_timings(tmp_path).cpu_s.sum()
    assert f"timings.csv: {cpu:.0f} CPU-s" in out and "summed over 3 tasks" in out


def test_the_cli_says_when_there_are_no_timings(tmp_path, capsys):
    """A study whose every task was reused from a folder without timings still prints its summary."""
    args = _small_study_args(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(args) == 0
        (tmp_path / "timings.csv").unlink()
        capsys.readouterr()
        assert main(args) == 0  # nothing to compute: no timings.csv is written
    assert f"no cost: path: no timings.csv in {tmp_path}" in capsys.readouterr().out
