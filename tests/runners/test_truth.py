"""The truth setting of the runners (``truth="auto" | "exact" | "sampled"``): recorded, exact where it can be, judged
where it is sampled, never mixed on resume, refused when bad before any file.

Independent expectations: the data of a replicate are rebuilt from the documented streams
(:mod:`mri_theory.runners.sandbox`: ``SeedSequence(seed, spawn_key=(r, 0))`` for the data, ``(r, 2, t)`` for the
sub-sample of step ``t``, ``(r, 4, t)`` for the decisive sampled truth of a state); the exact loss of a two-class LDA
rule is written here as a sum of normal CDFs (each Gaussian component's mass on the wrong side of the fitted
hyperplane), with ``w`` and ``b`` computed from the training data by the textbook LDA formula (checked against the
fitted model's probabilities); :math:`Q^c` on a sampled population by plain refits and this file's own error rate.
"""

from __future__ import annotations

import json
import time
import zlib
from pathlib import Path

import numpy as np
import pytest
from _shared import QUIET
from scipy.special import expit, ndtr

from mri_theory.classifiers import LDA, get_classifier
from mri_theory.cli import main
from mri_theory.engine import Population
from mri_theory.engine.targets import LEVEL, decisive_q_c
from mri_theory.problems import GaussianMixtureProblem, get_problem
from mri_theory.runners import score_states
from mri_theory.runners.diagnose import run_diagnostics
from mri_theory.runners.sandbox import run_curves
from mri_theory.runners.study import run_study

SMALL = dict(problem="four-gaussian", pool_size=10, budget=4, replicates=1, population_size=400, seed=7,
             execution=QUIET)
SCRAMBLES = 8  # the documented race: 8 scrambles per round


def _config(folder: Path) -> dict:
    return json.loads((folder / "config.json").read_text())


def _snapshot(folder: Path) -> dict:
    """Every entry under ``folder``: files by their bytes, folders as None."""
    return {p.relative_to(folder): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


def _replicate(problem, pool_size, population_size, seed, replicate=0):
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(replicate, 0)))
    return problem.draw_replicate(pool_size, population_size, rng)


def _labelled(data, chosen):
    X0, y0, pool_X, pool_y, _ = data
    chosen = np.asarray(chosen, dtype=int)
    return np.vstack([X0, pool_X[chosen]]), np.append(y0, pool_y[chosen])


def _lda_hyperplane(X, y, reg=1e-3):
    """The two-class LDA rule ``w.x + b > 0 -> class 1`` by the textbook formula: pooled ML covariance plus
    ``reg I``, empirical priors."""
    means = [X[y == j].mean(axis=0) for j in (0, 1)]
    counts = [np.count_nonzero(y == j) for j in (0, 1)]
    scatter = sum((X[y == j] - means[j]).T @ (X[y == j] - means[j]) for j in (0, 1))
    sigma = scatter / len(y) + reg * np.eye(X.shape[1])
    w = np.linalg.solve(sigma, means[1] - means[0])
    b = -0.5 * (means[1] @ np.linalg.solve(sigma, means[1]) - means[0] @ np.linalg.solve(sigma, means[0]))
    return w, b + np.log(counts[1] / counts[0])


def _phi_error(problem, w, b) -> float:
    """Exact error of ``w.x + b > 0 -> class 1``: each component's mass on the wrong side, by Phi."""
    total = 0.0
    for j in (0, 1):
        for weight, mu, cov in zip(problem.weights[j], problem.means[j], problem.covariances[j], strict=True):
            offset = (w @ mu + b) / np.sqrt(w @ cov @ w)
            total += problem.prior[j] * weight * ndtr(-offset if j == 1 else offset)
    return float(total)


def _lda_exact_error(problem, X, y) -> float:
    w, b = _lda_hyperplane(X, y)
    points = np.random.default_rng(0).normal(0.0, 2.0, (5, X.shape[1]))  # the formula is the fitted model's
    np.testing.assert_allclose(LDA().fit(X, y, 2).predict_proba(points)[:, 1], expit(points @ w + b),
                               rtol=0, atol=1e-10)
    return _phi_error(problem, w, b)


def _error(population: Population, model) -> float:
    """Expected error on the population's posterior rows (a tie, to 1e-12 relative, goes to the lowest class)."""
    proba = model.predict_proba(population.X)
    top = proba.max(axis=1, keepdims=True)
    predicted = np.argmax(proba >= top - 1e-12 * np.maximum(1.0, np.abs(top)), axis=1)
    return float(np.sum(population.weights * (1.0 - population.proba[np.arange(population.size), predicted])))


def _q_c(problem, make, X, y, points, population) -> np.ndarray:
    """Eq. eqc for each point on ``population``, every model refitted."""
    k = problem.n_classes
    now = _error(population, make().fit(X, y, k))
    future = np.array([[_error(population, make().fit(np.vstack([X, x]), np.append(y, j), k)) for j in range(k)]
                       for x in points])
    return now - np.sum(problem.posterior(points) * future, axis=1)


# ------------------------------------------------------------------ what config.json records


@pytest.mark.parametrize("classifier, truth, recorded", [
    ("lda", "auto", "exact"), ("svm", "auto", "exact"), ("rf", "auto", "sampled"), ("lda", "sampled", "sampled"),
    ("lda", "exact", "exact"), ("svm", "sampled", "sampled")])
def test_config_records_the_resolved_truth(tmp_path, classifier, truth, recorded):
    run_curves(classifier=classifier, strategies=["RS"], truth=truth, out=tmp_path / "run",
               **{**SMALL, "budget": 2})
    assert _config(tmp_path / "run")["truth"] == recorded


def test_config_records_the_race_level_only_where_a_race_decides(tmp_path):
    """The family-wise level (0.05) is recorded where a race decides (the sampled truth of a mixture), absent with
    the exact truth and on real data (whose test set is the truth), so those folders keep their hashes; a folder
    raced by the earlier per-comparison rule (no ``level``) is refused, not resumed by another rule."""
    run_curves(classifier="svm", strategies=["RS"], truth="sampled", out=tmp_path / "raced", **{**SMALL, "budget": 2})
    assert _config(tmp_path / "raced")["level"] == 0.05
    run_curves(classifier="svm", strategies=["RS"], out=tmp_path / "exact", **{**SMALL, "budget": 2})
    assert "level" not in _config(tmp_path / "exact")
    run_curves(problem="wine", classifier="lda", strategies=["RS"], pool_size=6, budget=2, replicates=1,
               population_size=50, seed=0, execution=QUIET, out=tmp_path / "real")
    assert "level" not in _config(tmp_path / "real")
    config = tmp_path / "raced" / "config.json"
    earlier = {key: value for key, value in json.loads(config.read_text()).items() if key != "level"}
    config.write_text(json.dumps(earlier, indent=2, sort_keys=True))
    with pytest.raises(ValueError, match="holds results of a different study"):
        run_curves(classifier="svm", strategies=["RS"], truth="sampled", out=tmp_path / "raced",
                   **{**SMALL, "budget": 2})
    states = score_states("four-gaussian", "svm", ["RS"], replicates=1, steps=[0], pool_size=6, population_size=400,
                          truth="sampled", out=tmp_path / "states", execution=QUIET)
    assert json.loads((tmp_path / "states" / "diagnostics.json").read_text())["settings"]["level"] == 0.05
    assert states.resolved.isin([0.0, 1.0]).all()


def test_real_data_under_auto_is_sampled(tmp_path):
    run_curves(problem="wine", classifier="lda", strategies=["RS"], pool_size=6, budget=2, replicates=1,
               population_size=50, seed=0, execution=QUIET, out=tmp_path / "run")
    assert _config(tmp_path / "run")["truth"] == "sampled"


def test_a_three_dimensional_mixture_under_auto_runs_sampled(tmp_path):
    """The exact path integrates 1-D and 2-D mixtures only (engine docs): a 3-D one must fall back to sampling,
    not resolve to "exact" and fail in the middle of the run."""
    eye = np.eye(3)[None]
    cube = GaussianMixtureProblem("cube", [([1.0], [[0.0, 0.0, 0.0]], eye), ([1.0], [[1.0, 1.0, 1.0]], eye)],
                                  [0.5, 0.5])
    table = run_curves(problem=cube, classifier="lda", strategies=["RS"], pool_size=6, budget=2, replicates=1,
                       population_size=200, seed=0, execution=QUIET, out=tmp_path / "run")
    assert _config(tmp_path / "run")["truth"] == "sampled"
    assert np.all(np.isfinite(table.loss))


# ------------------------------------------------------------------ the exact losses of a run


def test_exact_losses_are_the_refits_exact_losses_and_the_phi_sum():
    """Every step's loss = Population.exact(problem).loss(refit) = the closed-form Phi sum of the refit rule."""
    problem = get_problem("four-gaussian")
    table = run_curves(classifier="lda", strategies=["RS", "MRI-best"], **SMALL)
    data = _replicate(problem, SMALL["pool_size"], SMALL["population_size"], SMALL["seed"])
    exact = Population.exact(problem)
    for _, rows in table.groupby("strategy"):
        chosen = rows.chosen.to_numpy()
        assert len(rows) == SMALL["budget"] + 1
        for t, loss in enumerate(rows.loss.to_numpy()):
            X, y = _labelled(data, chosen[:t])
            assert len(y) == rows.n_labelled.iloc[t]
            assert loss == pytest.approx(exact.loss(LDA().fit(X, y, 2)), abs=1e-13)
            assert loss == pytest.approx(_lda_exact_error(problem, X, y), abs=1e-10)


def test_exact_and_sampled_runs_share_the_pool_and_the_initial_set():
    exact = run_curves(classifier="lda", strategies=["RS"], truth="exact", **SMALL)
    sampled = run_curves(classifier="lda", strategies=["RS"], truth="sampled", **SMALL)
    np.testing.assert_array_equal(exact.chosen.to_numpy(), sampled.chosen.to_numpy())
    np.testing.assert_array_equal(exact.n_labelled.to_numpy(), sampled.n_labelled.to_numpy())
    assert np.all(exact.loss.to_numpy() != sampled.loss.to_numpy())  # a 400-point population is not exact
    # the sampled losses are the refits' error on the replicate's own population, rebuilt from its stream
    problem = get_problem("four-gaussian")
    data = _replicate(problem, SMALL["pool_size"], SMALL["population_size"], SMALL["seed"])
    for t, loss in enumerate(sampled.loss.to_numpy()):
        X, y = _labelled(data, sampled.chosen.to_numpy()[:t])
        assert loss == pytest.approx(_error(data[4], LDA().fit(X, y, 2)), abs=1e-12)


def test_loss_se_is_zero_for_exact_truth_and_the_iid_standard_error_for_sampled_truth():
    """``loss_se``: 0 with exact truth; with sampled truth sqrt(sum_i w_i^2 (l_i - L)^2) over the population's
    points, l_i the expected error of point i under its posterior row (written here from predict_proba)."""
    exact = run_curves(classifier="lda", strategies=["RS"], truth="exact", **SMALL)
    assert (exact.loss_se == 0.0).all()
    sampled = run_curves(classifier="lda", strategies=["RS"], truth="sampled", **SMALL)
    problem = get_problem("four-gaussian")
    data = _replicate(problem, SMALL["pool_size"], SMALL["population_size"], SMALL["seed"])
    population = data[4]
    for t, (loss, se) in enumerate(zip(sampled.loss.to_numpy(), sampled.loss_se.to_numpy(), strict=True)):
        X, y = _labelled(data, sampled.chosen.to_numpy()[:t])
        predicted = np.argmax(LDA().fit(X, y, 2).predict_proba(population.X), axis=1)
        per_point = 1.0 - population.proba[np.arange(population.size), predicted]
        w = np.full(population.size, 1.0 / population.size)
        assert se == pytest.approx(np.sqrt(np.sum(w**2 * (per_point - per_point.mean()) ** 2)), rel=1e-12)
        assert loss == pytest.approx(per_point.mean(), abs=1e-12)


# ------------------------------------------------------------------ the resolved column


def test_exact_oracles_are_resolved_at_every_step_and_other_strategies_have_no_flag():
    table = run_curves(classifier="lda", strategies=["MRI-best", "MRI-worst", "RS"], **SMALL)
    for name in ("MRI-best", "MRI-worst"):
        flags = table[table.strategy == name].resolved.to_numpy()
        assert np.all(flags[:-1] == 1.0) and np.isnan(flags[-1])
    assert table[table.strategy == "RS"].resolved.isna().all()


def _decided(problem, make, X, y, candidates, seed, replicate, step, size, largest=True, doublings=7):
    """The documented decisive truth of a state: decisive_q_c with the stream (r, 4, t), round 0 of ``size``, up
    to 7 doublings (a scored state) or 3 (a step of a curve), the runners' family-wise rule (``LEVEL``)."""
    return decisive_q_c(problem, make(), X, y, candidates, size=size, largest=largest, doublings=doublings,
                        seed=np.random.SeedSequence(seed, spawn_key=(replicate, 4, step)), level=LEVEL)


def _round_0_value(problem, make, X, y, point, seed, replicate, step, size) -> float:
    """A candidate's Q^c by refits, averaged over the documented round-0 scrambles of the stream (r, 4, t): 8 of the
    largest power of two of points not above ``size // 8``."""
    def scramble(r):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(replicate, 4, step, r)))
        return Population.from_problem(problem, 2 ** int(np.log2(size // SCRAMBLES)), rng, method="qmc")
    return float(np.mean([_q_c(problem, make, X, y, point[None], scramble(r))[0] for r in range(SCRAMBLES)]))


@pytest.mark.parametrize("record_q_c", [True, False])
def test_sampled_oracles_choose_by_the_decisive_truth_and_record_its_flag(record_q_c):
    """the SVM with ``truth="sampled"``: at every step each oracle's choice is a candidate tied with the decisive
    truth's choice (decisive_q_c of the stream (r, 4, t), up to 3 doublings, the family-wise level), the tie broken
    by one draw of the strategy's stream (r, 1, crc32(label)) as select's; its flag is the race's; its q_c columns
    the race's values; the winner's value is its Q^c by refits on the documented round-0 scrambles."""
    args = dict(SMALL, pool_size=12, budget=5)
    table = run_curves(classifier="svm", strategies=["MRI-best", "MRI-worst", "RS"], record_q_c=record_q_c,
                       truth="sampled", **args)
    problem = get_problem("four-gaussian")
    make = lambda: get_classifier("svm")  # noqa: E731
    data = _replicate(problem, args["pool_size"], args["population_size"], args["seed"])
    assert table[table.strategy == "RS"].resolved.isna().all()
    for name, largest in (("MRI-best", True), ("MRI-worst", False)):
        rows = table[table.strategy == name]
        flags, chosen = rows.resolved.to_numpy(), rows.chosen.to_numpy()
        assert np.isnan(flags[-1])
        draws = np.random.default_rng(np.random.SeedSequence(args["seed"], spawn_key=(0, 1, zlib.crc32(name.encode()))))
        for t in range(args["budget"]):
            X, y = _labelled(data, chosen[:t])
            available = np.setdiff1d(np.arange(args["pool_size"]), chosen[:t])  # fewer than subsample: all scored
            decided = _decided(problem, make, X, y, data[2][available], args["seed"], 0, t,
                               args["population_size"], largest, doublings=3)
            assert chosen[t] == available[decided.tied[draws.integers(decided.tied.size)]]
            assert flags[t] == float(decided.resolved)
            if record_q_c:
                assert rows.q_c_best.iloc[t] == decided.q_c.max()
                assert rows.q_c_chosen.iloc[t] == decided.q_c[np.flatnonzero(available == chosen[t])[0]]
            else:
                assert np.isnan(rows.q_c_best.iloc[t])
            if t == 0:
                assert decided.q_c[decided.chosen] == pytest.approx(_round_0_value(
                    problem, make, X, y, data[2][available[decided.chosen]], args["seed"], 0, t,
                    args["population_size"]), abs=1e-12)


# ------------------------------------------------------------------ resume never mixes the truths


def test_a_folder_of_exact_truth_refuses_sampled_truth_and_is_left_unchanged(tmp_path):
    folder = tmp_path / "run"
    first = run_curves(classifier="lda", strategies=["RS"], out=folder, **SMALL)  # auto -> exact
    assert _config(folder)["truth"] == "exact"
    before = _snapshot(folder)
    with pytest.raises(ValueError, match="out"):
        run_curves(classifier="lda", strategies=["RS"], truth="sampled", out=folder, **SMALL)
    assert _snapshot(folder) == before
    # the same resolved truth, asked for explicitly, resumes the folder
    again = run_curves(classifier="lda", strategies=["RS"], truth="exact", out=folder, **SMALL)
    np.testing.assert_array_equal(again.loss.to_numpy(), first.loss.to_numpy())


def test_a_folder_of_sampled_truth_refuses_exact_truth(tmp_path):
    folder = tmp_path / "run"
    run_curves(classifier="lda", strategies=["RS"], truth="sampled", out=folder, **SMALL)
    before = _snapshot(folder)
    for truth in ("auto", "exact"):
        with pytest.raises(ValueError, match="out"):
            run_curves(classifier="lda", strategies=["RS"], truth=truth, out=folder, **SMALL)
        assert _snapshot(folder) == before


# ------------------------------------------------------------------ bad truth: refused before any file


BAD = ["bogus", "Exact", "", None, 3]


@pytest.mark.parametrize("bad", BAD)
def test_run_curves_refuses_a_bad_truth_before_any_file(tmp_path, bad):
    with pytest.raises((TypeError, ValueError), match="truth"):
        run_curves(classifier="lda", strategies=["RS"], truth=bad, out=tmp_path / "run", **SMALL)
    assert list(tmp_path.iterdir()) == []


def test_exact_truth_without_an_exact_path_is_refused_before_any_file(tmp_path):
    with pytest.raises(ValueError, match="truth"):
        run_curves(classifier="rf", strategies=["RS"], truth="exact", out=tmp_path / "run", **SMALL)
    with pytest.raises(ValueError, match="truth"):
        run_curves(**{**SMALL, "problem": "wine"}, classifier="lda", strategies=["RS"], truth="exact",
                   out=tmp_path / "real")
    with pytest.raises(ValueError, match="truth"):
        score_states("four-gaussian", "rf", ["RS"], replicates=1, steps=[0], pool_size=6, population_size=200,
                     truth="exact", out=tmp_path / "states", execution=QUIET)
    with pytest.raises(ValueError, match="truth"):
        run_study("quick", problems=["four-gaussian"], classifiers=["lda", "rf"], strategies=["RS"],
                  truth="exact", out=tmp_path / "study", execution=QUIET)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("bad", BAD)
def test_score_states_refuses_a_bad_truth_before_any_file(tmp_path, bad):
    with pytest.raises((TypeError, ValueError), match="truth"):
        score_states("four-gaussian", "lda", ["RS"], replicates=1, steps=[0], pool_size=6, population_size=200,
                     truth=bad, out=tmp_path / "states", execution=QUIET)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("bad", [b for b in BAD if b is not None])  # None: the preset's value
def test_run_study_refuses_a_bad_truth_before_any_file(tmp_path, bad):
    with pytest.raises((TypeError, ValueError), match="truth"):
        run_study("quick", problems=["four-gaussian"], classifiers=["lda"], strategies=["RS"], truth=bad,
                  out=tmp_path / "study", execution=QUIET)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("bad", BAD)
def test_run_diagnostics_refuses_a_bad_truth_before_any_file(tmp_path, bad):
    with pytest.raises((TypeError, ValueError), match="truth"):
        run_diagnostics("four-gaussian", ["lda"], ["RS"], replicates=1, steps=[0], pool_size=6, population_size=200,
                        truth=bad, out=tmp_path / "diagnostics", execution=QUIET)
    assert list(tmp_path.iterdir()) == []


def _runs_or_refuses_population_size_before_any_file(tmp_path, call):
    """A population too small to split into the judgement's 8 scrambles: either the run works, or it is refused
    naming ``population_size`` before any file (never a failure in the middle of the run)."""
    try:
        table = call(tmp_path / "out")
    except ValueError as exc:
        assert "population_size" in str(exc), exc
        assert list(tmp_path.iterdir()) == []
        return
    assert table.resolved.dropna().isin([0.0, 1.0]).all()


def test_run_curves_with_a_tiny_sampled_population_runs_or_is_refused_up_front(tmp_path):
    _runs_or_refuses_population_size_before_any_file(tmp_path, lambda out: run_curves(
        classifier="svm", strategies=["MRI-best"], **{**SMALL, "population_size": 4, "budget": 2}, truth="sampled",
        out=out))


def test_score_states_with_a_tiny_sampled_population_runs_or_is_refused_up_front(tmp_path):
    _runs_or_refuses_population_size_before_any_file(tmp_path, lambda out: score_states(
        "four-gaussian", "svm", ["RS"], replicates=1, steps=[0], pool_size=6, population_size=4, truth="sampled",
        out=out, execution=QUIET))


@pytest.mark.parametrize("command", ["curves", "study", "diagnose"])
def test_the_cli_refuses_a_bad_truth_with_a_usage_error(tmp_path, capsys, command):
    with pytest.raises(SystemExit) as stop:
        main([command, "--truth", "bogus", "--out", str(tmp_path / "out")])
    assert stop.value.code == 2
    assert "--truth" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ the study and the diagnostics


def test_run_study_records_auto_and_each_pairing_its_resolved_truth(tmp_path):
    out = tmp_path / "study"
    run_study("quick", problems=["four-gaussian"], classifiers=["lda", "rf"], strategies=["RS"], replicates=1,
              pool_size=6, population_size=300, asymptotic_train=50, asymptotic_replicates=1,
              asymptotic_population=300, out=out, execution=QUIET)
    assert json.loads((out / "study.json").read_text())["settings"]["truth"] == "auto"
    assert _config(out / "four-gaussian__lda")["truth"] == "exact"
    assert _config(out / "four-gaussian__rf")["truth"] == "sampled"  # a random forest has no exact loss
    # the report says which truth each pairing's curves, MRI-best and regret were measured with
    from mri_theory.runners.study import report

    report(out)
    text = (out / "report" / "report.md").read_text()
    assert "- Truth (the curves' losses, MRI-best and the regret): exact for four-gaussian/lda; sampled for " \
           "four-gaussian/rf" in text
    # the truth the report names is verified: a pairing's config.json edited afterwards is refused, naming path
    config = out / "four-gaussian__lda" / "config.json"
    config.write_text(config.read_text().replace('"truth": "exact"', '"truth": "sampled"'))
    with pytest.raises(ValueError, match="path: .*curves.csv was written under other settings"):
        report(out)


@pytest.mark.parametrize("truth", [{"four-gaussian": "exact"}, {("four-gaussian", "lda"): "Exact"}, ["exact"]])
def test_write_report_refuses_a_bad_truth_before_writing(tmp_path, truth):
    from mri_theory.evaluation.tables import write_report

    curves = run_study("quick", problems=["four-gaussian"], classifiers=["lda"], strategies=["RS"], replicates=1,
                       pool_size=6, population_size=300, asymptotic_train=50, asymptotic_replicates=1,
                       asymptotic_population=300, execution=QUIET)
    with pytest.raises(ValueError, match="truth must map"):
        write_report(curves.curves, curves.asymptotic, tmp_path / "report", truth=truth)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("classifier, truth, recorded", [("lda", "auto", "exact"), ("svm", "auto", "exact"),
                                                         ("svm", "sampled", "sampled")])
def test_score_states_records_the_truth_and_flags_every_state(tmp_path, classifier, truth, recorded):
    out = tmp_path / "states"
    table = score_states("four-gaussian", classifier, ["RS", "SE", "MRI-best"], replicates=2, steps=[0, 3],
                         pool_size=10, population_size=400, seed=5, truth=truth, out=out, execution=QUIET)
    assert json.loads((out / "diagnostics.json").read_text())["settings"]["truth"] == recorded
    per_state = table.groupby(["replicate", "step"]).resolved
    assert (per_state.nunique() == 1).all()  # one flag per state
    if recorded == "exact":
        assert (table.resolved == 1.0).all()
        return
    assert table.resolved.isin([0.0, 1.0]).all()
    # each state's truth: the decisive truth of the stream (r, 4, t), its values, loss and flag; the labelled set
    # is the initial set plus the pool points not left; MRI-best scores by it; its winner's value by refits
    problem, make = get_problem("four-gaussian"), (lambda: get_classifier("svm"))
    for (r, t), rows in table[table.strategy == "RS"].groupby(["replicate", "step"]):
        data = _replicate(problem, 10, 400, 5, r)
        available = rows.candidate.to_numpy()
        X, y = _labelled(data, np.setdiff1d(np.arange(10), available))
        decided = _decided(problem, make, X, y, data[2][available], 5, int(r), int(t), 400)
        np.testing.assert_array_equal(rows.true_q_c.to_numpy(), decided.q_c)
        assert (rows.loss == decided.loss).all() and rows.resolved.iloc[0] == float(decided.resolved)
        np.testing.assert_array_equal(rows.t_e.to_numpy(), decided.loss - decided.q_c)
        oracle = table[(table.strategy == "MRI-best") & (table.replicate == r) & (table.step == t)]
        np.testing.assert_array_equal(oracle.score.to_numpy(), decided.q_c)
        assert decided.q_c[decided.chosen] == pytest.approx(_round_0_value(
            problem, make, X, y, data[2][available[decided.chosen]], 5, int(r), int(t), 400), abs=1e-12)


# ------------------------------------------------------------------ acceptance: the exact argmax at |D_S| = 200


@pytest.mark.slow
@pytest.mark.parametrize("pool_size", [250, 300])
def test_mri_best_on_four_gaussian_lda_picks_the_exact_argmax_at_200_labels(pool_size):
    """Four-Gaussian, LDA, truth="auto", MRI-best, 199 labels: at |D_S| = 200 the pick is the exact argmax of
    Q^c over the scored candidates, by brute-force refits and the Phi sum.

    With pool 250, 52 candidates remain at that step (fewer than ``subsample``: all are scored); with pool 300,
    102 remain and 100 are sub-sampled from the stream ``(r, 2, t)``."""
    problem, seed, subsample, budget = get_problem("four-gaussian"), 0, 100, 199
    start = time.perf_counter()
    table = run_curves(problem="four-gaussian", classifier="lda", strategies=["MRI-best"], pool_size=pool_size,
                       budget=budget, replicates=1, population_size=10_000, subsample=subsample, seed=seed,
                       truth="auto", execution=QUIET)
    elapsed = time.perf_counter() - start
    print(f"acceptance run (pool {pool_size}): {elapsed:.1f} s")
    row = table.index[table.n_labelled == 200][0]
    t = int(row)  # rows run step 0, 1, ...: n_labelled = 2 + t
    assert t == 198 and table.n_labelled.iloc[t] == 200
    chosen = table.chosen.to_numpy()
    data = _replicate(problem, pool_size, 10_000, seed)
    X, y = _labelled(data, chosen[:t])
    available = np.setdiff1d(np.arange(pool_size), chosen[:t])
    if available.size > subsample:
        sub_rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0, 2, t)))
        scored = np.sort(sub_rng.choice(available, subsample, replace=False))
    else:
        scored = available
    assert scored.size == (52 if pool_size == 250 else 100)
    assert chosen[t] in scored
    now = _lda_exact_error(problem, X, y)
    q = np.empty(scored.size)
    for i, index in enumerate(scored):
        x = data[2][index]
        future = [_phi_error(problem, *_lda_hyperplane(np.vstack([X, x]), np.append(y, c))) for c in (0, 1)]
        q[i] = now - problem.posterior(x[None])[0] @ np.asarray(future)
    order = np.argsort(-q)
    assert scored[order[0]] == chosen[t], (scored[order[:3]], q[order[:3]], chosen[t])
    assert q[order[0]] - q[order[1]] > 1e-12, "a tie between the two best candidates"
