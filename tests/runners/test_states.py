"""Scores and truth in the same states (:func:`mri_theory.runners.score_states`, §3.3, Eq. eqc, Algorithms 1-2).

* An independent per-candidate computation in one state (Four-Gaussian, pool
  12): the true :math:`T_e` and current loss by brute-force refits on the
  population weighted by the problem's posterior (the exact one for LDA; for
  5-NN the decisive truth's race, written out in ``tests/_reference.py``, each
  of its populations by refits); SMRI's :math:`\\hat T_e` by
  refits scored by the empirical error on :math:`D_S`, weighted by
  :math:`\\theta_2`'s probabilities; BMRI (``n_b = 3``) from the documented
  seed scheme, bootstrap by bootstrap; for 5-NN and LDA.
* The states are those of the sandbox: the candidates follow ``run_curves``'
  ``chosen`` (RS and MRI-best trajectories); with a sampled truth the current
  loss is the race's (its round-0 populations), within its errors of the
  sandbox's ``loss``.
* MRI-best's score equals the true :math:`Q^c`; the table's structure.
* Joblib and Dask runs equal a serial run; a resumed run reuses verified parts,
  reports a damaged or forged part and recomputes only it, and refuses other
  settings before writing anything; bad arguments are named before any work.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import subprocess
import sys
import warnings
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _optional import need
from _reference import decisive_race_by_hand
from _shared import QUIET, TWO_WORKERS, snapshot
from pandas.testing import assert_frame_equal

import mri_theory.runners.states as states
from mri_theory.classifiers import get_classifier
from mri_theory.engine.population import Population
from mri_theory.engine.targets import LEVEL
from mri_theory.problems import get_problem
from mri_theory.runners import STATE_COLUMNS, Execution, score_states
from mri_theory.runners.sandbox import DamagedPartWarning, run_curves
from mri_theory.strategies import (
    BMRI_FOREST_TREES,
    BootstrapMRI,
    get_strategy,
    second_classifier,
)

#: One small grid: two replicates, two states each, one strategy of each kind.
SMALL = dict(problem="four-gaussian", classifier="lda", strategies=["RS", "SE", "SMRI", "MRI-best"], replicates=2,
             steps=[3, 0], pool_size=12, population_size=1000, seed=4, execution=QUIET)
N_B = 3  # BMRI's bootstrap resamples in the per-candidate check


@pytest.fixture(scope="module")
def small():
    return score_states(**SMALL)


def count_states(monkeypatch) -> list:
    """Record the states that ``score_states`` computes in this process."""
    calls = []
    original = states._score_state

    def counting(cfg, replicate, step):
        calls.append((replicate, step))
        return original(cfg, replicate, step)

    monkeypatch.setattr(states, "_score_state", counting)
    return calls


# ------------------------------------------------------------------ one state, computed independently


def state_of(classifier: str, trajectory: str, replicate: int, step: int, seed: int, pool_size: int,
             population_size: int):
    """The state's data, built from the sandbox's replicate data and ``run_curves``' chosen picks."""
    problem = get_problem("four-gaussian")  # the sandbox's data stream of the replicate (mri_theory.runners.sandbox)
    X0, y0, pool_X, pool_y, population = problem.draw_replicate(
        pool_size, population_size, np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(replicate, 0))))
    curves = run_curves("four-gaussian", classifier, [trajectory], pool_size=pool_size, replicates=replicate + 1,
                        seed=seed, budget=max(step, 1), population_size=population_size, subsample=None,
                        record_q_c=False, execution=QUIET)
    chosen = curves[curves.replicate == replicate].chosen.to_numpy()[:step]
    X, y = np.vstack([X0, pool_X[chosen]]), np.append(y0, pool_y[chosen])
    available = np.array(sorted(set(range(pool_size)) - set(chosen.tolist())))
    if get_classifier(classifier).exact_truth:  # truth="auto": exact for these on a Gaussian mixture
        population = Population.exact(problem)
    return problem, population, X, y, pool_X[available], available


def empirical_error(model, X, y) -> float:
    """Error rate of ``model`` on labelled points (argmax, ties to the lowest label)."""
    return float(np.mean(np.argmax(model.predict_proba(X), axis=1) != y))


def refit_error(base, X_T, y_T, x, c, X_E, y_E, k) -> float:
    model = base.clone().fit(np.vstack([X_T, x[None]]), np.append(y_T, c), k)
    return empirical_error(model, X_E, y_E)


@pytest.mark.parametrize("classifier", ["knn5", "lda", "rf"])
def test_one_state_against_brute_force_refits(classifier):
    seed, replicate, step, pool_size, population_size = 6, 1, 4, 12, 2000
    table = score_states("four-gaussian", classifier, ["SMRI", BootstrapMRI(n_b=N_B), "MRI-best", "SE"],
                         replicates=replicate + 1,
                         steps=[step], pool_size=pool_size, population_size=population_size, seed=seed,
                         execution=QUIET)
    table = table[table.replicate == replicate]
    problem, population, X, y, candidates, available = state_of(classifier, "RS", replicate, step, seed,
                                                                pool_size, population_size)
    k, base = problem.n_classes, get_classifier(classifier)
    by = {name: rows for name, rows in table.groupby("strategy", sort=False)}
    assert list(by) == ["SMRI", "BMRI", "MRI-best", "SE"]
    for rows in by.values():
        assert rows.candidate.tolist() == available.tolist()
        assert (rows.n_labelled == len(y)).all()

    # the truth: current loss and T_e = sum_j p_j(x) L(theta(D_S + (x, c_j))) by refits on a population
    p = problem.posterior(candidates)

    def truth_on(indices, population):
        t_e = np.array([sum(p[i, c] * population.loss(base.clone().fit(np.vstack([X, candidates[i][None]]),
                                                                       np.append(y, c), k), "error")
                            for c in range(k)) for i in indices])
        loss = population.loss(base.clone().fit(X, y, k), "error")
        return loss, loss - t_e

    if get_classifier(classifier).exact_truth:  # exact truth: on the exact population, every state resolved
        loss, q = truth_on(range(len(candidates)), population)
        assert (table.resolved == 1.0).all()
    else:  # sampled truth: the documented race of the stream (r, 4, t), each scramble by refits
        _, resolved, _, q, _, _, loss, *_ = decisive_race_by_hand(
            truth_on, problem, candidates, np.random.SeedSequence(seed, spawn_key=(replicate, 4, step)),
            population_size, level=LEVEL)  # the runners' family-wise rule
        assert (table.resolved == float(resolved)).all()
    for rows in by.values():
        np.testing.assert_allclose(rows.loss, loss, rtol=0, atol=1e-12)
        np.testing.assert_allclose(rows.t_e, loss - q, rtol=0, atol=1e-12)
        np.testing.assert_allclose(rows.true_q_c, q, rtol=0, atol=1e-12)
    assert np.array_equal(by["MRI-best"].score, by["MRI-best"].true_q_c)

    # SMRI (Algorithm 1): theta_2 on D_S, refits on D_S + (x, c), empirical error on D_S
    p_hat = second_classifier(base).fit(X, y, k).predict_proba(candidates)
    smri = np.array([sum(p_hat[i, c] * refit_error(base, X, y, x, c, X, y, k) for c in range(k))
                     for i, x in enumerate(candidates)])
    np.testing.assert_allclose(by["SMRI"].t_e_estimate, smri, rtol=0, atol=1e-12)
    np.testing.assert_allclose(by["SMRI"].score, -smri, rtol=0, atol=1e-12)

    # BMRI (Algorithm 2): the stream SeedSequence(seed, spawn_key=(r, 3, t, crc32("BMRI"))), median of n_b
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(replicate, 3, step, zlib.crc32(b"BMRI"))))
    n = len(y)
    estimates = []
    for _ in range(N_B):
        i_p, i_t, i_e = rng.integers(0, n, size=(3, n))
        theta2 = second_classifier(base, BMRI_FOREST_TREES).fit(X[i_p], y[i_p], k)
        q = theta2.predict_proba(candidates)
        estimates.append([sum(q[i, c] * refit_error(base, X[i_t], y[i_t], x, c, X[i_e], y[i_e], k) for c in range(k))
                          for i, x in enumerate(candidates)])
    bmri = np.median(estimates, axis=0)
    np.testing.assert_allclose(by["BMRI"].t_e_estimate, bmri, rtol=0, atol=1e-12)
    np.testing.assert_allclose(by["BMRI"].score, -bmri, rtol=0, atol=1e-12)

    # SE does not estimate T_e; its score is the entropy of the base classifier
    assert by["SE"].t_e_estimate.isna().all()
    proba = base.clone().fit(X, y, k).predict_proba(candidates)
    np.testing.assert_allclose(by["SE"].score, -np.sum(proba * np.log(np.where(proba > 0, proba, 1)), axis=1),
                               rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------------ the states are the sandbox's


@pytest.mark.parametrize("trajectory", ["RS", "MRI-best"])
def test_states_follow_the_sandbox_curves(trajectory):
    args = dict(problem="four-gaussian", classifier="knn5", pool_size=10, population_size=800, seed=2)
    steps = [0, 1, 5, 8]
    table = score_states(**args, strategies=["RS"], replicates=2, steps=steps, trajectory=trajectory,
                         execution=QUIET)
    curves = run_curves(**args, strategies=[trajectory], replicates=2, budget=max(steps), subsample=None,
                        record_q_c=False, execution=QUIET)
    problem = get_problem("four-gaussian")
    for (replicate, step), rows in table.groupby(["replicate", "step"]):
        curve = curves[curves.replicate == replicate]
        picked = curve.chosen.to_numpy()[:step]
        assert rows.candidate.tolist() == sorted(set(range(10)) - set(picked.tolist()))
        assert (rows.n_labelled == 2 + step).all() and (rows.trajectory == trajectory).all()
        # the exact truth's current loss: the state's model integrated over the mixture, as the curve's
        X0, y0, pool_X, pool_y, _ = problem.draw_replicate(
            10, 800, np.random.default_rng(np.random.SeedSequence(2, spawn_key=(replicate, 0))))
        model = get_classifier("knn5").fit(np.vstack([X0, pool_X[picked]]), np.append(y0, pool_y[picked]), 2)
        np.testing.assert_allclose(rows.loss, Population.exact(problem).loss(model), rtol=0, atol=1e-12)
        assert rows.loss.iloc[0] == pytest.approx(curve.loss.iloc[step], abs=1e-12)
    assert sorted(set(table.step)) == steps


def test_table_layout(small):
    assert list(small.columns) == STATE_COLUMNS
    m = {0: 12, 3: 9}  # candidates left after 0 and 3 labels
    keys = list(small[["replicate", "step"]].drop_duplicates().itertuples(index=False, name=None))
    assert keys == [(0, 0), (0, 3), (1, 0), (1, 3)]  # steps sorted
    for (_, step), rows in small.groupby(["replicate", "step"], sort=False):
        assert rows.strategy.tolist() == [s for s in SMALL["strategies"] for _ in range(m[step])]
        assert rows.loss.nunique() == 1 and (rows.n_labelled == 2 + step).all()
        for _, block in rows.groupby("strategy"):
            assert block.candidate.is_monotonic_increasing and len(block) == m[step]
            np.testing.assert_array_equal(block.true_q_c, rows.true_q_c.iloc[:m[step]])
    assert np.array_equal(small.t_e, small.loss - small.true_q_c)
    assert (small[small.strategy == "RS"].score == 0).all()
    best = small[small.strategy == "MRI-best"]
    assert np.array_equal(best.score, best.true_q_c)
    assert small[small.strategy != "SMRI"].t_e_estimate.isna().all()
    smri = small[small.strategy == "SMRI"]
    assert np.array_equal(smri.t_e_estimate, -smri.score)
    assert get_strategy("SMRI").estimates_t_e and get_strategy("BMRI").estimates_t_e
    assert not any(get_strategy(s).estimates_t_e for s in ("RS", "SE", "EfeLc", "MRI-best"))


def test_a_state_does_not_depend_on_the_other_states_or_replicates(small):
    alone = score_states(**{**SMALL, "replicates": 2, "steps": [3]})
    assert_frame_equal(alone, small[small.step == 3].reset_index(drop=True), check_exact=True)


# ------------------------------------------------------------------ backends


def test_joblib_equals_serial(small):
    assert_frame_equal(score_states(**{**SMALL, "execution": TWO_WORKERS}), small, check_exact=True)


def test_dask_equals_serial(small, tmp_path):
    distributed = need("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        on_dask = score_states(**{**SMALL, "execution": Execution("dask", cluster.scheduler_address, progress=False)},
                               out=tmp_path)
    assert_frame_equal(on_dask, small, check_exact=True)
    assert_frame_equal(pd.read_csv(tmp_path / "states.csv"), small, check_exact=True)


def test_importing_the_diagnostics_does_not_import_dask():
    code = "import sys, mri_theory.runners; print(sorted({'dask', 'distributed'} & set(sys.modules)))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"


def test_a_missing_dask_extra_is_named_before_anything_is_written(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    calls = count_states(monkeypatch)
    with pytest.raises(ImportError, match=re.escape('pip install "mri-theory[dask]"')):
        score_states(**{**SMALL, "execution": Execution(backend="dask")}, out=tmp_path / "out")
    assert calls == [] and not (tmp_path / "out").exists()


# ------------------------------------------------------------------ storage


@pytest.fixture
def finished(small, tmp_path):
    out = tmp_path / "out"
    assert_frame_equal(score_states(**SMALL, out=out), small, check_exact=True)
    return out


def resume(out: Path, monkeypatch, **change):
    calls = count_states(monkeypatch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = score_states(**{**SMALL, **change}, out=out)
    return table, calls, [str(w.message) for w in caught if issubclass(w.category, DamagedPartWarning)]


def test_storage_layout_and_a_full_resume(finished, small, monkeypatch):
    assert sorted(p.name for p in (finished / "parts").iterdir()) == [
        "00000__00000.csv", "00000__00003.csv", "00001__00000.csv", "00001__00003.csv"]
    stored = json.loads((finished / "diagnostics.json").read_text())
    assert stored["grid"] == {"replicates": 2, "steps": [0, 3]}
    assert stored["settings"]["strategies"] == SMALL["strategies"]
    first_line = (finished / "parts" / "00001__00003.csv").read_bytes().split(b"\n")[0]
    header = json.loads(first_line[len(b"# mri-theory part "):])
    assert (header["replicate"], header["step"], header["rows"]) == (1, 3, 4 * 9)
    assert_frame_equal(pd.read_csv(finished / "states.csv"), small, check_exact=True)
    table, calls, messages = resume(finished, monkeypatch)
    assert calls == [] and messages == []
    assert_frame_equal(table, small, check_exact=True)


def cut(data: bytes) -> bytes:
    return data[: len(data) // 2]


def forge(data: bytes, change) -> bytes:
    """A part whose body is changed by ``change`` and whose header is recomputed to match (a valid checksum)."""
    header, _, body = data.partition(b"\n")
    fields = json.loads(header[len(b"# mri-theory part "):])
    frame = change(pd.read_csv(io.BytesIO(body)))
    new_body = frame.to_csv(index=False, lineterminator="\n").encode()
    fields.update(rows=len(frame), sha256=hashlib.sha256(new_body).hexdigest())
    return b"# mri-theory part " + json.dumps(fields, sort_keys=True).encode() + b"\n" + new_body


def without_estimate(frame):
    return frame.assign(t_e_estimate=np.nan)


def strategies_swapped(frame):
    return frame.assign(strategy=frame.strategy.replace({"RS": "SE", "SE": "RS"}))


def candidate_changed(frame):
    frame = frame.copy()
    frame.loc[frame.index[-1], "candidate"] = 11 if frame.candidate.iloc[-1] != 11 else 10
    return frame


DAMAGE = {
    "cut": (cut, "checksum"),
    "empty": (lambda data: b"", "empty"),
    "another state's part": ("00000__00003.csv", r"wrong state.*\(0, 3\)"),
    "no SMRI estimate": (lambda data: forge(data, without_estimate), "t_e_estimate"),
    "strategies swapped": (lambda data: forge(data, strategies_swapped), "strategies"),
    "a candidate changed": (lambda data: forge(data, candidate_changed), "candidate"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_part_is_named_and_only_it_recomputed(damage, finished, small, monkeypatch):
    corrupt, reason = DAMAGE[damage]
    part = finished / "parts" / "00001__00003.csv"
    good = part.read_bytes()
    part.write_bytes((finished / "parts" / corrupt).read_bytes() if isinstance(corrupt, str) else corrupt(good))
    table, calls, messages = resume(finished, monkeypatch)
    assert calls == [(1, 3)]
    assert len(messages) == 1 and str(part) in messages[0] and re.search(reason, messages[0]), messages
    assert_frame_equal(table, small, check_exact=True)
    assert part.read_bytes() == good


def test_a_grown_grid_computes_only_the_new_states(finished, small, monkeypatch):
    table, calls, messages = resume(finished, monkeypatch, replicates=3, steps=[0, 3, 5])
    assert sorted(calls) == [(0, 5), (1, 5), (2, 0), (2, 3), (2, 5)] and messages == []
    assert_frame_equal(table[(table.replicate < 2) & (table.step < 5)].reset_index(drop=True), small,
                       check_exact=True)
    assert json.loads((finished / "diagnostics.json").read_text())["grid"] == {"replicates": 3, "steps": [0, 3, 5]}


def test_an_interrupted_run_keeps_its_finished_states(small, tmp_path, monkeypatch):
    original = states._score_state
    done = []

    def killed(cfg, replicate, step):
        if len(done) == 2:
            raise KeyboardInterrupt
        done.append((replicate, step))
        return original(cfg, replicate, step)

    monkeypatch.setattr(states, "_score_state", killed)
    with pytest.raises(KeyboardInterrupt):
        score_states(**SMALL, out=tmp_path)
    assert len(list((tmp_path / "parts").iterdir())) == 2 and not (tmp_path / "states.csv").exists()
    monkeypatch.setattr(states, "_score_state", original)
    table, calls, messages = resume(tmp_path, monkeypatch)
    assert sorted(calls) == sorted({(0, 0), (0, 3), (1, 0), (1, 3)} - set(done)) and messages == []
    assert_frame_equal(table, small, check_exact=True)


@pytest.mark.parametrize("change", [{"seed": 5}, {"strategies": ["RS", "SE"]}, {"trajectory": "MRI-best"},
                                    {"pool_size": 13}, {"population_size": 999}, {"classifier": "knn5"}])
def test_other_settings_are_refused_before_anything_is_written(change, finished, monkeypatch):
    before = snapshot(finished)
    calls = count_states(monkeypatch)
    with pytest.raises(ValueError, match=re.escape(f"out: {finished} holds diagnostics with other settings")):
        score_states(**{**SMALL, **change}, out=finished)
    assert calls == [] and snapshot(finished) == before


@pytest.mark.parametrize("content", ["{", "[]", '{"format": 2, "settings": {}, "grid": {}}'])
def test_a_corrupt_settings_file_is_named_and_nothing_written(content, finished, monkeypatch):
    (finished / "diagnostics.json").write_text(content)
    before = snapshot(finished)
    calls = count_states(monkeypatch)
    with pytest.raises(ValueError, match=re.escape(str(finished / "diagnostics.json")) + ".*corrupt"):
        score_states(**SMALL, out=finished)
    assert calls == [] and snapshot(finished) == before


def test_a_folder_of_run_curves_is_refused(tmp_path, monkeypatch):
    run_curves("four-gaussian", "lda", ["RS"], pool_size=4, replicates=1, population_size=200, out=tmp_path,
               execution=QUIET)
    before = snapshot(tmp_path)
    with pytest.raises(ValueError, match="out: .*holds the results of run_curves, not of score_states"):
        score_states(**SMALL, out=tmp_path)
    assert snapshot(tmp_path) == before


# ------------------------------------------------------------------ bad arguments

BAD = [
    ({"problem": "nope"}, ValueError, "unknown problem name 'nope'"),
    ({"problem": 3}, TypeError, "problem must be a problem name"),
    ({"classifier": "nope"}, ValueError, "unknown classifier 'nope'"),
    ({"classifier": None}, TypeError, "classifier must be a classifier name"),
    ({"strategies": []}, ValueError, "strategies must name at least one strategy"),
    ({"strategies": ["RS", "RS"]}, ValueError, "strategies must not repeat a name, got RS"),
    ({"strategies": ["RS", "nope"]}, ValueError, "unknown strategy 'nope'"),
    ({"strategies": 3}, TypeError, "strategies must be 'all'"),
    ({"strategies": ["RS", 3]}, TypeError, "strategies must hold strategy names"),
    ({"replicates": 0}, ValueError, "replicates must be >= 1"),
    ({"replicates": 1.5}, ValueError, "replicates must be an integer"),
    ({"steps": []}, ValueError, "steps must hold at least one step"),
    ({"steps": [-1]}, ValueError, "steps must be >= 0"),
    ({"steps": [1.5]}, ValueError, "steps must be an integer"),
    ({"steps": ["2"]}, TypeError, "steps must be an integer"),
    ({"steps": [2, 3, 2]}, ValueError, "steps must be distinct, got 2 more than once"),
    ({"steps": [0, 11]}, ValueError, r"steps must be <= pool_size - 2 = 10 .*got 11"),
    ({"steps": 3}, TypeError, "steps must be a sequence"),
    ({"steps": "3"}, TypeError, "steps must be a sequence"),
    ({"pool_size": 0}, ValueError, "pool_size must be >= 1"),
    ({"pool_size": 1}, ValueError, "pool_size must be at least the initial set size 2"),
    ({"pool_size": 2.5}, ValueError, "pool_size must be an integer"),
    ({"trajectory": "nope"}, ValueError, "trajectory: unknown strategy 'nope'"),
    ({"trajectory": None}, TypeError, "trajectory must be a strategy name"),
    ({"population_size": 0}, ValueError, "population_size must be >= 1"),
    ({"seed": -1}, ValueError, "seed must be >= 0"),
    ({"seed": "0"}, TypeError, "seed must be an integer"),
    ({"execution": "local"}, TypeError, "execution must be an Execution or None, got str"),
    ({"out": 3}, TypeError, "out must be a folder path"),
    ({"out": ""}, ValueError, "out must name a folder"),
]


@pytest.mark.parametrize("change,error,pattern", BAD, ids=[str(c) for c, _, _ in BAD])
def test_bad_arguments_raise_naming_the_argument_before_any_work(change, error, pattern, tmp_path, monkeypatch):
    calls = count_states(monkeypatch)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error, match=pattern):
        score_states(**{**SMALL, "out": tmp_path / "out", **change})
    assert calls == [] and list(tmp_path.iterdir()) == []


def test_an_out_whose_parts_is_a_file_is_refused(tmp_path):
    (tmp_path / "parts").write_text("keep")
    with pytest.raises(ValueError, match="out: .*parts should be a folder"):
        score_states(**SMALL, out=tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["parts"]


def test_cli_diagnose_writes_the_summaries_of_the_stored_states(tmp_path, capsys):
    from mri_theory.cli import main
    from mri_theory.evaluation import estimator_errors, summarise_states

    out = tmp_path / "diag"
    args = ["diagnose", "--classifiers", "lda", "--strategies", "RS", "SMRI", "MRI-best", "--replicates", "2",
            "--steps", "1", "4", "--pool", "12", "--population", "500", "--out", str(out)]
    assert main(args) == 0
    states = pd.read_csv(out / "four-gaussian__lda" / "states.csv")
    assert sorted(states.step.unique()) == [1, 4]
    summary = pd.read_csv(out / "summary.csv")
    expected = summarise_states(states)
    assert list(summary.columns) == list(expected.columns)
    np.testing.assert_allclose(summary.spearman, expected.spearman, rtol=1e-12)
    errors = pd.read_csv(out / "errors.csv")
    np.testing.assert_allclose(errors.bias, estimator_errors(states).bias, rtol=1e-12)
    report = (out / "DIAGNOSTICS.md").read_text()
    assert "Wall time" in report and "numpy==" in report and "steps [1, 4]" in report
    # the summaries and the states table carry their checksums (computed here with hashlib)
    digest = {name: hashlib.sha256((out / name).read_bytes()).hexdigest()
              for name in ("summary.csv", "errors.csv", "DIAGNOSTICS.md")}
    assert json.loads((out / "checksums.json").read_text()) == {
        "format": 1, "settings_file": None, "settings_sha256": None, "tables": digest}
    folder = out / "four-gaussian__lda"
    assert json.loads((folder / "checksums.json").read_text()) == {
        "format": 1, "settings_file": "diagnostics.json",
        "settings_sha256": hashlib.sha256((folder / "diagnostics.json").read_bytes()).hexdigest(),
        "tables": {"states.csv": hashlib.sha256((folder / "states.csv").read_bytes()).hexdigest()}}
    assert main(args + ["--replicates", "0"]) == 2  # the last --replicates wins: refused, one line
    assert "replicates" in capsys.readouterr().err.strip().splitlines()[-1]


def test_cli_diagnose_checks_every_classifier_before_any_work(tmp_path, capsys, monkeypatch):
    from mri_theory.cli import main

    calls = count_states(monkeypatch)
    args = ["diagnose", "--classifiers", "lda", "nope", "--strategies", "RS", "--replicates", "1", "--steps", "1",
            "--pool", "6", "--population", "300", "--out", str(tmp_path / "diag")]
    assert main(args) == 2
    assert "unknown classifier 'nope'" in capsys.readouterr().err
    assert calls == [] and not (tmp_path / "diag").exists()


def test_cli_diagnose_without_a_t_e_estimator_writes_the_ranking_summary(tmp_path, capsys):
    from mri_theory.cli import main

    out = tmp_path / "diag"
    assert main(["diagnose", "--classifiers", "lda", "--strategies", "RS", "SE", "--replicates", "1", "--steps",
                 "1", "--pool", "6", "--population", "300", "--out", str(out)]) == 0
    assert (out / "summary.csv").exists() and not (out / "errors.csv").exists()
    assert "None of the strategies estimates T_e" in (out / "DIAGNOSTICS.md").read_text()


def test_run_curves_and_run_study_refuse_a_diagnostics_folder(finished):
    from mri_theory.runners.study import run_study

    before = snapshot(finished)
    with pytest.raises(ValueError, match=re.escape(f"out: {finished} holds the results of score_states, "
                                                   "not of run_curves")):
        run_curves("four-gaussian", "lda", ["RS"], pool_size=4, replicates=1, population_size=200, out=finished,
                   execution=QUIET)
    with pytest.raises(ValueError, match="holds the results of score_states, not of run_study"):
        run_study("quick", out=finished, execution=QUIET)
    assert snapshot(finished) == before


# ------------------------------------------------------------------ timings (a measurement beside the results)

TIMED = {**SMALL, "strategies": ["RS", "SE"], "replicates": 1}


def test_timings_hold_each_strategy_in_each_state_and_change_no_result(tmp_path):
    timed, plain = tmp_path / "timed", tmp_path / "plain"
    table = score_states(**TIMED, out=timed, timings=True)
    assert_frame_equal(table, score_states(**TIMED, out=plain), check_exact=True)
    assert (timed / "states.csv").read_bytes() == (plain / "states.csv").read_bytes()
    assert not (plain / "timings.csv").exists()  # only when asked
    assert "timings.csv" not in json.loads((timed / "checksums.json").read_text())["tables"]
    timings = states.read_state_timings(timed)
    assert list(timings.columns) == states.STATE_TIMING_COLUMNS
    assert sorted(timings[["replicate", "step", "strategy"]].itertuples(index=False, name=None)) == [
        (0, 0, "RS"), (0, 0, "SE"), (0, 3, "RS"), (0, 3, "SE")]
    assert set(timings.problem) == {"four-gaussian"} and set(timings.classifier) == {"lda"}
    assert set(timings.trajectory) == {"RS"} and (timings[["cpu_s", "wall_s"]].to_numpy() >= 0).all()
    before = (timed / "timings.csv").read_bytes()
    score_states(**TIMED, out=timed, timings=True)  # every state reused: their timings kept
    assert (timed / "timings.csv").read_bytes() == before


def test_an_unreadable_timings_file_is_replaced_with_a_warning(tmp_path):
    score_states(**TIMED, out=tmp_path, timings=True)
    (tmp_path / "timings.csv").write_text("not, a table\n1, 2\n")
    (tmp_path / "parts" / "00000__00003.csv").unlink()
    with pytest.warns(RuntimeWarning, match="timings.csv: wrong columns"):
        score_states(**TIMED, out=tmp_path, timings=True)
    timings = states.read_state_timings(tmp_path)
    assert sorted(timings[["step", "strategy"]].itertuples(index=False, name=None)) == [(3, "RS"), (3, "SE")]


def test_timings_need_out_and_a_folder_with_timings(tmp_path):
    with pytest.raises(ValueError, match=r"^timings: True needs out"):
        score_states(**TIMED, timings=True)
    with pytest.raises(TypeError, match=r"^timings must be True or False"):
        score_states(**TIMED, out=tmp_path, timings="yes")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match=r"^path: no timings.csv in "):
        states.read_state_timings(tmp_path)
    (tmp_path / "timings.csv").write_text("problem,classifier,trajectory,replicate,step,strategy,cpu_s,wall_s\n"
                                          "p,c,RS,0,1,SE,-1.0,0.5\n")
    with pytest.raises(ValueError, match=r"replicate, step must be integers and cpu_s, wall_s finite numbers >= 0"):
        states.read_state_timings(tmp_path)
