"""The study's task order and the makespan simulator (:mod:`mri_theory.runners.schedule`, ``plan_study``).

The simulator is checked against schedules computed by hand and, on small random instances, against the optimum
found by trying every assignment (brute force): list scheduling in any order stays within Graham's bound
``total / m + (1 - 1/m) * longest`` and longest-first within ``4/3 - 1/(3m)`` of the optimum.  The study starts
its tasks longest first by the model and its results are those of any other order.
"""

from __future__ import annotations

import itertools
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from _optional import given, settings, st
from _shared import QUIET
from pandas.testing import assert_frame_equal

from mri_theory.classifiers import SVMConvergenceWarning
from mri_theory.cli import main
from mri_theory.runners import Plan, describe_plans, plan_study, run_study, simulate_makespan
from mri_theory.runners import study as study_module
from mri_theory.runners.schedule import ASYMPTOTIC, TASK_COST, expected_costs, longest_first
from mri_theory.runners.study import SOLVER_COLUMNS, read_timings, report, solver_stops
from mri_theory.strategies import get_strategy

CLI_ARGS = ["--problems", "four-gaussian", "--classifiers", "lda", "knn5", "--strategies", "RS", "SE", "SMRI",
            "--replicates", "2", "--pool", "8", "--population", "300", "--seed", "4", "--asymptotic-train", "200",
            "--asymptotic-replicates", "2", "--asymptotic-population", "300"]
TINY = dict(problems=["four-gaussian"], classifiers=["lda", "knn5"], strategies=["RS", "SE", "SMRI"],
            replicates=2, pool_size=8, population_size=300, seed=4, asymptotic_train=200,
            asymptotic_replicates=2, asymptotic_population=300, execution=QUIET)


# ------------------------------------------------------------------ the simulator, by hand


@pytest.mark.parametrize("durations, workers, expected", [
    ([1, 1, 1, 1, 4], 2, 6.0),  # in order: 1 | 1, then 1 | 1 (2, 2), then the 4 on the first free: 6
    ([4, 1, 1, 1, 1], 2, 4.0),  # longest first: 4 | 1 + 1 + 1 + 1
    ([3, 3, 2, 2, 2], 2, 7.0),  # 3 | 3, 2 -> 5 | 2 -> 5, 2 -> 7
    ([5, 2, 2], 1, 9.0),  # one worker: the sum
    ([5, 2, 2], 8, 5.0),  # more workers than tasks: the longest
    ([], 3, 0.0),
])
def test_the_makespan_of_schedules_computed_by_hand(durations, workers, expected):
    assert simulate_makespan(durations, workers) == expected


def _optimum(durations: list[float], workers: int) -> float:
    """The shortest makespan of any assignment of the tasks to the workers (every assignment tried)."""
    best = float("inf")
    for assignment in itertools.product(range(workers), repeat=len(durations)):
        loads = np.zeros(workers)
        np.add.at(loads, list(assignment), durations)
        best = min(best, loads.max())
    return best


@settings(max_examples=60, deadline=None)
@given(durations=st.lists(st.integers(1, 30), min_size=1, max_size=7), workers=st.integers(1, 3))
def test_list_scheduling_stays_within_grahams_bounds_of_the_brute_force_optimum(durations, workers):
    total, longest = sum(durations), max(durations)
    optimum = _optimum(durations, workers)
    in_order = simulate_makespan(durations, workers)
    lpt = simulate_makespan(np.array(durations)[longest_first(durations)], workers)
    assert max(total / workers, longest) <= optimum <= min(lpt, in_order)
    assert in_order <= total / workers + (1 - 1 / workers) * longest + 1e-9  # Graham 1966, any order
    assert lpt <= (4 / 3 - 1 / (3 * workers)) * optimum + 1e-9  # Graham 1969, longest first


def test_longest_first_is_a_stable_sort_by_decreasing_cost():
    assert longest_first([1.0, 3.0, 1.0, 3.0, 2.0]).tolist() == [1, 3, 4, 0, 2]
    with pytest.raises(ValueError, match="costs"):
        longest_first([1.0, -1.0])
    with pytest.raises(ValueError, match="costs"):
        longest_first([1.0, float("nan")])


@pytest.mark.parametrize("durations, workers, error, match", [
    ([1, 2], 0, ValueError, "workers"), ([1, 2], 1.5, ValueError, "workers"), ([1, 2], "2", TypeError, "workers"),
    ([1, -2], 2, ValueError, "durations"),
    ([1, np.inf], 2, ValueError, "durations"),
])
def test_the_simulator_names_a_bad_argument(durations, workers, error, match):
    with pytest.raises(error, match=match):
        simulate_makespan(durations, workers)


# ------------------------------------------------------------------ the cost model


def test_expected_costs_prefer_the_timings_then_the_table_then_the_strategys_flags():
    tasks = [("p", "svm", "BMRI"), ("p", "lda", "BMRI"), ("p", "mine", "SE"), ("p", "lda", "Mine"),
             ("p", "lda", "Cheap"), ("p", "svm", ASYMPTOTIC)]
    costs = expected_costs(tasks, costly={"Mine": True, "Cheap": False}, timed={("lda", "BMRI"): [1.0, 3.0]})
    assert costs[0] == TASK_COST["svm"]["BMRI"]
    assert costs[1] == 2.0  # the mean of the tasks already timed
    assert costs[2] == pytest.approx(np.mean([row["SE"] for row in TASK_COST.values()]))
    costly = [name for name in TASK_COST["lda"] if name not in ("RS", "SE", ASYMPTOTIC)]
    assert costs[3] == pytest.approx(np.mean([TASK_COST["lda"][name] for name in costly]))
    assert costs[4] == pytest.approx(np.mean([TASK_COST["lda"]["RS"], TASK_COST["lda"]["SE"]]))
    assert costs[5] == TASK_COST["svm"][ASYMPTOTIC]
    assert costs[0] > costs[3] > costs[4]  # the SVM's BMRI curves start first, RS-type curves last


# ------------------------------------------------------------------ the study: order, results, plan


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("study")
    return out, run_study(**TINY, out=out)


def test_the_study_starts_its_tasks_longest_first_and_its_results_do_not_depend_on_the_order(finished,
                                                                                              monkeypatch, tmp_path):
    out, results = finished
    started = []
    results_of = study_module.backends.results

    def spy(compute, tasks, execution):
        started.extend(task for (task,) in tasks)
        return results_of(compute, list(reversed(tasks)), execution)  # and run them in the opposite order

    monkeypatch.setattr(study_module.backends, "results", spy)
    again = run_study(**TINY, out=tmp_path)
    keys = [("" if isinstance(task, study_module._AsymptoticTask) else task.strategy,
             (task.config if isinstance(task, study_module._AsymptoticTask) else task.run.config).classifier)
            for task in started]
    costly = {name: get_strategy(name).costly for name in set(results.curves.strategy)}
    costs = expected_costs([("four-gaussian", c, s) for s, c in keys], costly=costly)
    curves = results.curves.groupby(["problem", "classifier", "strategy", "replicate"]).ngroups
    assert np.all(np.diff(costs) <= 0) and len(started) == curves + 2  # every task, the dearest first
    assert_frame_equal(again.curves, results.curves, check_exact=True)
    assert_frame_equal(again.asymptotic, results.asymptotic, check_exact=True)


def test_plan_replays_the_timings_of_a_finished_study(finished):
    out, _ = finished
    timings = read_timings(out)
    grid = json.loads((out / "study.json").read_text())["grid"]
    table = [(p, c, "", -1) for p in grid["problems"] for c in grid["classifiers"]]
    table += [(p, c, s, r) for p in grid["problems"] for c in grid["classifiers"] for s in grid["strategies"]
              for r in range(grid["replicates"])]
    seconds = {(p, c, "" if s != s else s, int(r)): w for p, c, s, r, w in
               zip(timings.problem, timings.classifier, timings.strategy, timings.replicate, timings.wall_s,
                   strict=True)}
    durations = [seconds[key] for key in table]
    for workers in (1, 2, 3):
        plan = plan_study(out, workers)
        assert plan.tasks == len(table) and plan.workers == workers
        assert plan.table_order == simulate_makespan(durations, workers)
        assert plan.total == pytest.approx(sum(durations)) and plan.longest == max(durations)
        assert plan.lower_bound == max(sum(durations) / workers, max(durations))
        assert plan.lower_bound <= plan.longest_first and plan.lower_bound <= plan.table_order
    assert plan_study(out, 1).longest_first == pytest.approx(sum(durations))
    text = describe_plans([plan_study(out, 2), plan_study(out, 16)])
    assert "longest first: 16 workers" in text and text.count("\n") >= 4


def test_plan_refuses_what_it_cannot_replay(finished, tmp_path):
    out, _ = finished
    with pytest.raises(ValueError, match="no study.json"):
        plan_study(tmp_path, 2)
    with pytest.raises(ValueError, match="column"):
        plan_study(out, 2, column="cpu")
    with pytest.raises(ValueError, match="workers"):
        plan_study(out, 0)
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / "study.json").write_bytes((out / "study.json").read_bytes())
    lines = (out / "timings.csv").read_text().splitlines()
    (partial / "timings.csv").write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(ValueError, match="lacks 1 of the grid's"):
        plan_study(partial, 2)


def test_the_command_line_plans_a_finished_run(finished, capsys):
    out, _ = finished
    assert main(["study", "--plan", "16", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "2 |" in printed and "16 |" in printed and "lower bound" in printed
    assert main(["study", "--plan", "0", "--out", str(out)]) == 2
    assert "workers" in capsys.readouterr().err


# ------------------------------------------------------------------ the SVM solver's stops, counted per task


def test_the_study_counts_the_solver_stops_of_each_task(monkeypatch, tmp_path, capsys):
    """Each SVMConvergenceWarning a task raises is counted in ``solver.csv`` (one row per task computed), summed by
    :func:`solver_stops` and the report, and said once per task with its count."""
    run_pair = study_module._curves.run_pair

    def stopping(run, strategy, replicate):
        if (strategy, replicate) == ("SE", 1):
            for _ in range(3):
                warnings.warn("SVM dual solver stopped after 10000 iterations", SVMConvergenceWarning, stacklevel=1)
        return run_pair(run, strategy, replicate)

    monkeypatch.setattr(study_module._curves, "run_pair", stopping)
    with pytest.warns(SVMConvergenceWarning, match="3 SVM dual solve"):
        results = run_study(**TINY, out=tmp_path)
    counts = pd.read_csv(tmp_path / "solver.csv", keep_default_na=False)
    assert list(counts.columns) == SOLVER_COLUMNS
    assert len(counts) == results.curves.groupby(["problem", "classifier", "strategy", "replicate"]).ngroups + 2
    stopped = counts[counts.solver_stops > 0]
    assert stopped[["strategy", "replicate", "solver_stops"]].values.tolist() == [["SE", 1, 3]] * 2  # lda, knn5
    table = solver_stops(tmp_path)
    assert table.iloc[-1].tolist() == ["all", "all", len(counts), 2, 6]
    assert tmp_path / "report" / "solver.csv" in report(tmp_path)
    assert main(["study", *CLI_ARGS, "--out", str(tmp_path)]) == 0  # resumed: nothing computed, the counts kept
    assert "stopped at the iteration cap: 6 in 2 of the" in capsys.readouterr().out


def test_a_study_computed_before_the_count_has_none(finished, tmp_path):
    out, _ = finished
    assert solver_stops(out).iloc[-1].solver_stops == 0  # recorded, none stopped
    (tmp_path / "solver.csv").write_text("problem,classifier\nx,y\n")
    with pytest.raises(ValueError, match="wrong columns"):
        solver_stops(tmp_path)
    (tmp_path / "solver.csv").unlink()
    assert solver_stops(tmp_path) is None  # not recorded


def test_the_model_and_the_table_name_a_bad_argument():
    with pytest.raises(TypeError, match="tasks must hold"):
        expected_costs([("four-gaussian", "lda")])
    with pytest.raises(TypeError, match="tasks must hold"):
        expected_costs([("four-gaussian", "lda", 3)])
    with pytest.raises(TypeError, match="plans must be a sequence of Plan objects"):
        describe_plans([(2, 1.0, 1.0, 1.0, 1.0, 1.0, 1)])


# ------------------------------------------------------------------ issue 54: timings that are not measurements


def test_expected_costs_refuse_timings_that_are_not_times_and_survive_huge_ones():
    """A NaN or negative time is refused naming ``timed`` (it gave a NaN or negative cost); times near 1e308,
    whose sum overflows, still give their finite mean (here the value itself)."""
    task = [("four-gaussian", "lda", "RS")]
    for bad in ([float("nan")], [float("inf")], [-1.0], [1.0, -0.5]):
        with pytest.raises(ValueError, match=r"timed\[\('lda', 'RS'\)\]"):
            expected_costs(task, timed={("lda", "RS"): bad})
    with pytest.raises(TypeError, match="timed must be a mapping"):
        expected_costs(task, timed=[1.0])
    with pytest.raises(TypeError, match="costly must be a mapping"):
        expected_costs(task, costly={"RS": "no"})
    with pytest.raises(TypeError, match="tasks must be a sequence"):
        expected_costs(3)
    huge = expected_costs(task, timed={("lda", "RS"): [1e308, 1e308, 1e308]})
    assert huge.tolist() == [1e308]
    assert expected_costs(task, timed={("lda", "RS"): [1e308, 0.0]}).tolist() == [5e307]


def test_simulate_makespan_refuses_a_sum_beyond_the_float_range():
    assert simulate_makespan([1e308, 1e308], 2) == 1e308  # a worker each: no sum
    with pytest.raises(ValueError, match="durations: a worker's sum of durations overflows"):
        simulate_makespan([1e308, 1e308], 1)


def test_describe_plans_of_zero_times_and_of_bad_plans():
    """Every task timed at 0 s (a ZeroDivisionError before): the undefined ratios read n/a."""
    zero = [Plan(2, 0.0, 0.0, 0.0, 0.0, 0.0, 3), Plan(4, 0.0, 0.0, 0.0, 0.0, 0.0, 3)]
    text = describe_plans(zero)
    assert text.splitlines()[2] == "2 | 0 s | 0 s | 0 s | n/a"
    assert "longest first: 4 workers n/a (zero times) 2 workers (3 tasks" in text
    for bad, error, match in [(3, TypeError, "plans must be a sequence"),
                              (zero[0], TypeError, "plans must be a sequence"),
                              ([zero[0]._replace(total=float("nan"))], ValueError, "plans .a plan's total"),
                              ([zero[0]._replace(longest=-1.0)], ValueError, "plans: a plan's longest must be >= 0"),
                              ([zero[0]._replace(workers="2")], TypeError, "plans .a plan's workers"),
                              ([zero[0]._replace(workers=0)], ValueError, "plans .a plan's workers")]:
        with pytest.raises(error, match=match):
            describe_plans(bad)


def test_plan_of_zero_and_of_overflowing_timings(finished, tmp_path, capsys):
    out, _ = finished
    for name, value in (("zero", 0.0), ("huge", 1e308)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "study.json").write_bytes((out / "study.json").read_bytes())
        timings = read_timings(out).assign(cpu_s=value, wall_s=value)
        timings.to_csv(folder / "timings.csv", index=False)
    assert main(["study", "--plan", "4", "--out", str(tmp_path / "zero")]) == 0
    assert "| n/a" in capsys.readouterr().out
    with pytest.raises(ValueError, match="path: the times of .*timings.csv sum beyond the float range"):
        plan_study(tmp_path / "huge", 2)
    assert main(["study", "--plan", "4", "--out", str(tmp_path / "huge")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "float range" in err and "inf" not in err
