"""``mri-theory leaderboard`` and :func:`mri_theory.runners.run_leaderboard`: the grid of states, the table, the cost.

* The runner's states and table equal :func:`score_states` of each pairing and :func:`leaderboard` of them,
  called directly; ``leaderboard.csv`` is that table without the cost, ``differences.csv``
  :func:`strategy_differences` of the states, ``statistics.csv.xz`` their :func:`state_statistics`: the three
  files in ``checksums.json``, and the stored statistics give the two tables again, byte for byte.
* The timings hold one row per (state, strategy) of the grid, seconds >= 0; ``cost.csv`` is their mean per
  phase and strategy; ``leaderboard.json`` the settings, versions and times.
* A rerun computes no state and writes the same ``leaderboard.csv``; a grown grid computes only the new states.
* Bad arguments are refused before any work and any file, naming the argument.
* The command writes the bytes the function writes (``leaderboard.csv`` and the states) and prints the table.
* The default grid reaches every default phase.

Sizes: one problem, LDA and naive Bayes (exact truth), RS and SE, 2 replicates, steps 1 and 11 (|D_S| 3 and
13), pool 20, population 300.
"""

from __future__ import annotations

import inspect
import json
import shutil

import numpy as np
import pandas as pd
import pytest
from _shared import QUIET
from pandas.testing import assert_frame_equal

from mri_theory.cli import main
from mri_theory.evaluation import leaderboard, state_statistics, strategy_differences
from mri_theory.problems import get_problem
from mri_theory.runners import (
    LEADERBOARD_FILES,
    PROBLEM_GROUPS,
    STATE_TIMING_COLUMNS,
    Leaderboard,
    read_leaderboard,
    read_state_timings,
    run_leaderboard,
    score_states,
)
from mri_theory.runners import states as states_module

GRID = dict(problems="four-gaussian", classifiers=["lda", "nb"], strategies=["RS", "SE"], replicates=2,
            steps=[11, 1], pool_size=20)
OPTIONS = dict(population_size=300, seed=2, n_boot=50, boot_seed=4, execution=QUIET)
CLI = ["--problems", "four-gaussian", "--classifiers", "lda", "nb", "--strategies", "RS", "SE", "--replicates",
       "2", "--steps", "11", "1", "--pool", "20", "--population", "300", "--seed", "2", "--boot", "50",
       "--boot-seed", "4"]


def count_states(monkeypatch) -> list:
    """Record the states computed in this process."""
    calls = []
    original = states_module._score_state

    def counting(cfg, replicate, step):
        calls.append((cfg.config.classifier, replicate, step))
        return original(cfg, replicate, step)

    monkeypatch.setattr(states_module, "_score_state", counting)
    return calls


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("board") / "out"
    return out, run_leaderboard(**GRID, **OPTIONS, out=out)


@pytest.fixture(scope="module")
def direct():
    states = pd.concat([score_states("four-gaussian", c, ["RS", "SE"], 2, [11, 1], 20, population_size=300, seed=2,
                                     execution=QUIET) for c in ("lda", "nb")], ignore_index=True)
    return states, leaderboard(states, n_boot=50, seed=4)


def test_the_runner_is_score_states_and_leaderboard(run, direct):
    out, result = run
    states, table = direct
    assert isinstance(result, Leaderboard)
    assert_frame_equal(result.states, states, check_exact=True)
    assert sorted(set(result.states.n_labelled)) == [3, 13]  # two classes, one initial point each, + step
    assert_frame_equal(result.table.drop(columns=["cpu_s", "timed_states"]), table, check_exact=True)
    stored = pd.read_csv(out / "leaderboard.csv")
    assert_frame_equal(stored, table, check_dtype=False, rtol=1e-15)
    assert result.paths == [out / name for name in LEADERBOARD_FILES]
    assert json.loads((out / "checksums.json").read_text())["tables"].keys() == {
        "leaderboard.csv", "differences.csv", "statistics.csv.xz"}
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["four-gaussian__lda", "four-gaussian__nb"]


def test_the_stored_statistics_recompute_the_table_and_the_differences(run, direct):
    out, result = run
    states, table = direct
    differences = strategy_differences(states, n_boot=50, seed=4)  # from the states, not from the statistics
    assert_frame_equal(result.differences, differences, check_exact=True)
    assert set(differences[["first", "second"]].itertuples(index=False, name=None)) == {
        ("RS", "SE"), ("RS", "MRI-best"), ("SE", "MRI-best")}  # RS scored; MRI-best made from the truth
    assert_frame_equal(result.statistics, state_statistics(states), check_exact=True)
    stored = read_leaderboard(out)
    assert_frame_equal(stored.statistics, result.statistics, check_exact=True, check_dtype=False)
    assert_frame_equal(stored.differences, differences, check_exact=True, check_dtype=False)
    # every cell again from the stored statistics alone: the same bytes as the files
    again = leaderboard(stored.statistics, n_boot=50, seed=4)
    assert again.to_csv(index=False, lineterminator="\n").encode() == (out / "leaderboard.csv").read_bytes()
    pairs = strategy_differences(stored.statistics, n_boot=50, seed=4)
    assert pairs.to_csv(index=False, lineterminator="\n").encode() == (out / "differences.csv").read_bytes()
    with pytest.raises(ValueError, match="^top_k: .*computed with top_k 5"):
        leaderboard(stored.statistics, top_k=3)
    with pytest.raises(ValueError, match="^resolved_only: "):
        strategy_differences(stored.statistics, resolved_only=False)


def test_the_timings_and_the_cost(run):
    out, result = run
    timings = result.timings
    assert list(timings.columns) == STATE_TIMING_COLUMNS
    keys = set(timings[["classifier", "replicate", "step", "strategy"]].itertuples(index=False, name=None))
    assert keys == {(c, r, t, s) for c in ("lda", "nb") for r in (0, 1) for t in (1, 11) for s in ("RS", "SE")}
    assert (timings[["cpu_s", "wall_s"]].to_numpy() >= 0).all() and timings.cpu_s.sum() > 0
    assert_frame_equal(pd.concat([read_state_timings(out / f"four-gaussian__{c}") for c in ("lda", "nb")],
                                 ignore_index=True), timings)
    cost = pd.read_csv(out / "cost.csv")
    assert list(cost.columns) == ["phase", "strategy", "cpu_s", "timed_states"]
    se = cost.set_index(["phase", "strategy"]).loc[("≤12", "SE")]
    expected = timings[(timings.strategy == "SE") & (timings.step == 1)].cpu_s
    assert se.cpu_s == pytest.approx(expected.mean()) and se.timed_states == 4
    assert cost.set_index(["phase", "strategy"]).loc[("all", "MRI-best"), "timed_states"] == 0  # made from the truth
    record = json.loads((out / "leaderboard.json").read_text())
    assert record["format"] == 1 and set(record) == {"format", "settings", "versions", "time"}
    settings = record["settings"]
    assert settings["problems"] == ["four-gaussian"] and settings["classifiers"] == ["lda", "nb"]
    assert settings["strategies"] == ["RS", "SE"] and settings["steps"] == [11, 1] and settings["level"] == 0.95
    assert settings["pairing_truth"] == {"four-gaussian__lda": "exact", "four-gaussian__nb": "exact"}
    assert (settings["n_boot"], settings["boot_seed"], settings["phases"]) == (50, 4, [12, 50])
    assert {"numpy", "pandas", "python"} <= set(record["versions"])
    assert set(record["time"]) == {"wall_s", "process_cpu_s", "scored_cpu_s", "timings"}
    assert record["time"]["scored_cpu_s"] == pytest.approx(timings.cpu_s.sum()) and record["time"]["timings"] == 16


def test_a_rerun_reuses_every_state_and_a_grown_grid_only_adds(run, monkeypatch, tmp_path):
    out, result = tmp_path / "out", run[1]
    shutil.copytree(run[0], out)  # the module's folder stays as the first run left it
    board = (out / "leaderboard.csv").read_bytes()
    timings = {c: (out / f"four-gaussian__{c}" / "timings.csv").read_bytes() for c in ("lda", "nb")}
    calls = count_states(monkeypatch)
    again = run_leaderboard(**GRID, **OPTIONS, out=out)
    assert calls == [] and (out / "leaderboard.csv").read_bytes() == board
    assert {c: (out / f"four-gaussian__{c}" / "timings.csv").read_bytes() for c in ("lda", "nb")} == timings
    assert_frame_equal(again.table, result.table)  # the reused states keep their timings
    grown = run_leaderboard(**{**GRID, "replicates": 3}, **OPTIONS, out=out)
    assert sorted(calls) == [(c, 2, t) for c in ("lda", "nb") for t in (1, 11)]
    assert len(grown.timings) == 24 and len(grown.states) == len(result.states) * 3 // 2


@pytest.mark.parametrize("change,error,pattern", [
    ({"problems": ["four-gaussian", "nope"]}, ValueError, r"^problems: unknown problem name 'nope'"),
    ({"problems": ["abstract", "quadratic"]}, ValueError, r"^problems must not repeat a name, got quadratic"),
    ({"problems": "wine"}, ValueError, r"^problem: 'wine' has no truth"),
    ({"classifiers": ["paper", "lda"]}, ValueError, r"^classifiers must not repeat a name, got lda"),
    ({"classifiers": 3}, TypeError, r"^classifiers must be a name, one of the sets 'paper'"),
    ({"strategies": []}, ValueError, r"^strategies must name at least one"),
    ({"strategies": ["all", "SE"]}, ValueError, r"^strategies must not repeat a name, got SE"),
    ({"steps": [1, 19]}, ValueError, r"^steps must be <= pool_size - 2"),
    ({"replicates": 10**12}, ValueError, r"^replicates must be <= 100_000"),
    ({"n_boot": 0}, ValueError, r"^n_boot must be >= 1"),
    ({"n_boot": 10**6}, ValueError, r"^n_boot must be <= 10_000"),
    ({"level": 1.0}, ValueError, r"^level must lie in \(0, 1\)"),
    ({"boot_seed": -1}, ValueError, r"^boot_seed must be >= 0"),
    ({"phases": [50, 12]}, ValueError, r"^phases must be strictly increasing"),
    ({"top_k": 0}, ValueError, r"^top_k must be >= 1"),
    ({"resolved_only": "no"}, TypeError, r"^resolved_only must be True or False"),
    ({"out": None}, TypeError, r"^out must be a folder path"),
    ({"out": "", "out_name": "--dir"}, ValueError, r"^--dir must name a folder"),
    ({"execution": "local"}, TypeError, r"^execution must be an Execution or None, got str"),
])
def test_bad_arguments_are_refused_before_any_work_or_file(change, error, pattern, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    calls = count_states(monkeypatch)
    arguments = {**GRID, **OPTIONS, "out": tmp_path / "out", **change}
    with pytest.raises(error, match=pattern):
        run_leaderboard(**arguments)
    assert calls == [] and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", [".lock", "checksums.json", *LEADERBOARD_FILES])
def test_a_folder_where_a_file_belongs_is_refused_naming_out(name, tmp_path):
    (tmp_path / name).mkdir()
    with pytest.raises(ValueError, match=f"^--dir: {tmp_path / name} should be a file$"):
        run_leaderboard(**GRID, **OPTIONS, out=tmp_path, out_name="--dir")
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_the_command_writes_the_bytes_of_the_function_and_prints_the_table(run, tmp_path, capsys):
    out, _ = run
    cli = tmp_path / "cli"
    assert main(["leaderboard", *CLI, "--out", str(cli)]) == 0
    printed = capsys.readouterr().out
    assert (cli / "leaderboard.csv").read_bytes() == (out / "leaderboard.csv").read_bytes()
    for c in ("lda", "nb"):
        assert (cli / f"four-gaussian__{c}" / "states.csv").read_bytes() == (
            out / f"four-gaussian__{c}" / "states.csv").read_bytes()
    assert "95 % percentile bootstrap interval over replicates, 50 draws" in printed
    lines = printed.splitlines()
    assert lines.index("|D_S| ≤12:") < lines.index("|D_S| 13–50:") < lines.index("all states:")
    first = lines[lines.index("|D_S| ≤12:") + 2].split()
    assert first[:3] == ["MRI-best", "*", "4"]  # the oracle first, an anchor, four states (2 classifiers x 2)
    assert f"results: {cli}/leaderboard.csv, cost.csv, leaderboard.json" in printed


def test_the_command_refuses_bad_arguments_with_one_line(tmp_path, capsys, monkeypatch):
    calls = count_states(monkeypatch)
    assert main(["leaderboard", *CLI, "--level", "2", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err == "mri-theory leaderboard: level must lie in (0, 1), got 2.0\n"
    assert calls == [] and not (tmp_path / "out").exists()


def test_the_default_grid_reaches_every_default_phase():
    defaults = {name: p.default for name, p in inspect.signature(run_leaderboard).parameters.items()}
    assert (defaults["problems"], defaults["classifiers"], defaults["strategies"]) == ("abstract", "paper", "all")
    assert defaults["pool_size"] == 250 and max(defaults["steps"]) <= 250 - 2
    for problem in PROBLEM_GROUPS["abstract"]:
        n_labelled = get_problem(problem).n_classes + np.array(defaults["steps"])  # one initial point per class
        phases = {"≤12" if n <= 12 else "13–50" if n <= 50 else ">50" for n in n_labelled}
        assert phases == {"≤12", "13–50", ">50"}, (problem, n_labelled)
