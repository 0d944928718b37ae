"""The paper's pool rule (§5.2, line 1044): :func:`mri_theory.runners.asymptotic_pool_size`.

* Every number is recomputed from :func:`asymptotic_loss` called one replicate at a time on a generator of the
  same seed (the draws the rule makes, in its order: the asymptote's replicates, then each size's), with the
  standard errors and the delta-method ratio's written out here; the pool is the first size within the tolerance.
* The rule is monotone in the tolerance: a wider tolerance never asks for a larger pool; with an unreachable
  tolerance (below the asymptote's own noise for small pools) no size may qualify and the pool is None.
* Bad arguments are refused before any work, naming the argument; real data are refused (their pool is "all").
* ``run_study`` takes the rule (``pool_size="asymptotic"``, also from the command line) and a pool per pairing
  (a nested mapping), records the sizes so that they resume the study, and refuses bad pools before any
  simulation or file.
* ``scripts/pool_rule.py`` writes each pairing's rule from its documented stream; the committed table's
  Four-Gaussian × naive Bayes rows are recomputed (20 replicates, sizes to 4,000: a few seconds).

Sizes: Four-Gaussian with LDA and naive Bayes, pools 20 to 200, 3 replicates, populations of 2,000 (fractions of
a second).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _shared import QUIET

from mri_theory.cli import main
from mri_theory.problems import get_problem
from mri_theory.runners import (
    POOL_RULE_COLUMNS,
    POOL_RULE_REPLICATES,
    POOL_RULE_SIZES,
    asymptotic_loss,
    asymptotic_pool_size,
    pool_rule_generator,
    run_study,
)

SIZES = (20, 50, 200)
SETTINGS = dict(replicates=3, n_train=2000, population_size=2000)


def by_hand(classifier: str, seed: int, tolerance: float):
    rng = np.random.default_rng(seed)
    kw = dict(population_size=SETTINGS["population_size"], rng=rng, replicates=1)
    asymptote = np.array([asymptotic_loss("four-gaussian", classifier, n_train=SETTINGS["n_train"], **kw)
                          for _ in range(3)])
    n_classes = get_problem("four-gaussian").n_classes
    finals = [np.array([asymptotic_loss("four-gaussian", classifier, n_train=size + n_classes, **kw)
                        for _ in range(3)]) for size in SIZES]
    return asymptote, finals


@pytest.mark.parametrize("classifier, seed", [("lda", 0), ("nb", 3)])
def test_every_number_is_asymptotic_loss_one_replicate_at_a_time(classifier, seed):
    found = asymptotic_pool_size("four-gaussian", classifier, rng=np.random.default_rng(seed), sizes=SIZES,
                                 tolerance=0.05, **SETTINGS)
    asymptote, finals = by_hand(classifier, seed, 0.05)
    assert found.asymptote == pytest.approx(asymptote.mean(), rel=1e-14)
    assert found.asymptote_se == pytest.approx(asymptote.std(ddof=1) / np.sqrt(3), rel=1e-12)
    assert list(found.table.columns) == POOL_RULE_COLUMNS and list(found.table.pool_size) == list(SIZES)
    for row, final in zip(found.table.itertuples(index=False), finals, strict=True):
        ratio = final.mean() / asymptote.mean()
        rel = np.sqrt((final.std(ddof=1) / np.sqrt(3) / final.mean()) ** 2
                      + (asymptote.std(ddof=1) / np.sqrt(3) / asymptote.mean()) ** 2)
        assert row.loss == pytest.approx(final.mean(), rel=1e-14)
        assert row.loss_se == pytest.approx(final.std(ddof=1) / np.sqrt(3), rel=1e-12)
        assert row.ratio == pytest.approx(ratio, rel=1e-14) and row.ratio_se == pytest.approx(ratio * rel, rel=1e-12)
        assert row.close == (final.mean() <= 1.05 * asymptote.mean())
    close = [size for size, final in zip(SIZES, finals, strict=True) if final.mean() <= 1.05 * asymptote.mean()]
    assert found.pool_size == (close[0] if close else None)


def test_a_wider_tolerance_never_asks_for_a_larger_pool():
    pools = []
    for tolerance in (0.0, 0.02, 0.1, 0.5, 10.0):
        found = asymptotic_pool_size("four-gaussian", "nb", rng=np.random.default_rng(1), sizes=SIZES,
                                     tolerance=tolerance, **SETTINGS)
        pools.append(np.inf if found.pool_size is None else found.pool_size)
    assert pools == sorted(pools, reverse=True)
    assert pools[-1] == SIZES[0]  # ten times the asymptote: the smallest pool is close enough


@pytest.mark.parametrize("change, error, pattern", [
    (dict(problem="wine"), ValueError, "^problem: a real data set's pool"),
    (dict(tolerance=-0.1), ValueError, "^tolerance must be >= 0"),
    (dict(sizes=[]), TypeError, "^sizes must be a non-empty sequence"),
    (dict(sizes="250"), TypeError, "^sizes must be a non-empty sequence"),
    (dict(sizes=[100, 50]), ValueError, "^sizes must be strictly increasing"),
    (dict(sizes=[0]), ValueError, "sizes"),
    (dict(replicates=1), ValueError, "replicates"),
    (dict(rng=0), TypeError, "rng"),
])
def test_bad_arguments_are_refused_naming_them(change, error, pattern):
    args = dict(problem="four-gaussian", classifier="lda", rng=np.random.default_rng(0), sizes=SIZES, **SETTINGS)
    args.update(change)
    with pytest.raises(error, match=pattern):
        asymptotic_pool_size(args.pop("problem"), args.pop("classifier"), **args)


# ------------------------------------------------------------------ the script and the committed table

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "figures" / "study" / "sensitivity" / "pool-rule"


def load_script():
    spec = importlib.util.spec_from_file_location("pool_rule_script", ROOT / "scripts" / "pool_rule.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pairing_stream(seed: int, problem: str, classifier: str) -> np.random.Generator:
    """The documented stream of a pairing (pool_rule_generator's docstring), written out."""
    import zlib

    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(
        zlib.crc32(b"pool rule"), zlib.crc32(problem.encode()), zlib.crc32(classifier.encode()))))


def test_the_script_writes_each_pairings_rule_from_its_own_stream(tmp_path):
    script = load_script()
    assert script.main(["--problems", "four-gaussian", "quadratic", "--classifiers", "nb", "--replicates", "2",
                        "--sizes", "20", "250", "--n-train", "1000", "--population", "1000",
                        "--out", str(tmp_path)]) == 0
    table = pd.read_csv(tmp_path / "pool-rule.csv")
    for problem in ("four-gaussian", "quadratic"):
        found = asymptotic_pool_size(problem, "nb", rng=pairing_stream(0, problem, "nb"), sizes=(20, 250),
                                     replicates=2, n_train=1000, population_size=1000)
        rows = table[table.problem == problem]
        np.testing.assert_allclose(rows[POOL_RULE_COLUMNS[1:5]].to_numpy(dtype=float),
                                   found.table[POOL_RULE_COLUMNS[1:5]].to_numpy(dtype=float), rtol=1e-15)
        assert (rows.asymptote == found.asymptote).all()
    report = (tmp_path / "POOL-RULE.md").read_text(encoding="utf-8")
    assert "| four-gaussian / nb |" in report and "## Versions" in report and "- CPU: " in report
    assert script.main(["--problems", "wine", "--out", str(tmp_path / "bad")]) == 2  # refused, nothing written
    assert not (tmp_path / "bad").exists()


def test_the_committed_table_is_recomputed_for_one_pairing():
    table = pd.read_csv(COMMITTED / "pool-rule.csv")
    assert len(table) == 30 * len(POOL_RULE_SIZES)  # the abstract group, the paper's six classifiers
    found = asymptotic_pool_size("four-gaussian", "nb", rng=pairing_stream(0, "four-gaussian", "nb"),
                                 replicates=20)  # the script's defaults but --replicates 20, as committed
    rows = table[(table.problem == "four-gaussian") & (table.classifier == "nb")]
    np.testing.assert_allclose(rows[["loss", "loss_se", "ratio", "ratio_se"]].to_numpy(dtype=float),
                               found.table[["loss", "loss_se", "ratio", "ratio_se"]].to_numpy(dtype=float),
                               rtol=1e-12)
    assert list(rows.close) == list(found.table.close)


# ------------------------------------------------------------------ the rule in run_study

TINY = dict(classifiers=["lda", "nb"], strategies=["RS"], replicates=1, budget=2, execution=QUIET)


def test_run_study_takes_the_rule_and_a_pool_per_pairing(tmp_path):
    out = tmp_path / "study"
    pools = {"four-gaussian": {"lda": "asymptotic", "nb": 40}, "quadratic": 30}
    curves, _ = run_study("quick", problems=list(pools), pool_size=pools, out=out, **TINY)
    # the quick preset's asymptotic sizes (1,000 training points, populations of 2,000), 20 replicates, seed 0
    rule = asymptotic_pool_size("four-gaussian", "lda", rng=pool_rule_generator(0, "four-gaussian", "lda"),
                                replicates=POOL_RULE_REPLICATES, n_train=1000, population_size=2000)
    assert rule.pool_size is not None
    stored = json.loads((out / "study.json").read_text())["settings"]["pool_size"]
    assert stored == {"four-gaussian": {"lda": rule.pool_size, "nb": 40}, "quadratic": 30}
    for problem, classifier, size in (("four-gaussian", "lda", rule.pool_size), ("four-gaussian", "nb", 40),
                                      ("quadratic", "nb", 30)):
        config = json.loads((out / f"{problem}__{classifier}" / "config.json").read_text())
        assert config["pool_size"] == size
    again, _ = run_study("quick", problems=list(pools), pool_size=stored, out=out, **TINY)  # as recorded
    pd.testing.assert_frame_equal(curves, again)


@pytest.mark.parametrize(("pool_size", "error", "match"), [
    ("asymptotic", ValueError, r"^pool_size: the rule 'asymptotic' is for simulated problems; heart"),
    ({"four-gaussian": {"lda": 30}, "heart": 9}, ValueError,
     r"^pool_size\['four-gaussian'\]: a mapping must give every classifier .* missing: nb"),
    ({"four-gaussian": {"lda": 30, "nb": "some"}, "heart": 9}, ValueError,
     r"^pool_size\['four-gaussian'\]\['nb'\] must be a size, 'all', 'auto', 'asymptotic'"),
    ({"four-gaussian": {"lda": 30, "nb": 2.5}, "heart": 9}, TypeError, r"^pool_size\['four-gaussian'\]\['nb'\]"),
    ("largest", ValueError, "^pool_size must be a size"),
])
def test_bad_pools_are_refused_before_any_simulation_or_file(tmp_path, monkeypatch, pool_size, error, match):
    from mri_theory.runners import study

    monkeypatch.setattr(study, "asymptotic_pool_size", lambda *a, **k: pytest.fail("simulated before the checks"))
    out = tmp_path / "study"
    with pytest.raises(error, match=match):
        run_study("quick", problems=["four-gaussian", "heart"], pool_size=pool_size, out=out, **TINY)
    assert not out.exists()


def test_the_cli_takes_the_rule(tmp_path, capsys):
    out = tmp_path / "study"
    assert main(["study", "--preset", "quick", "--problems", "four-gaussian", "--classifiers", "nb",
                 "--strategies", "RS", "--replicates", "1", "--budget", "2", "--pool", "asymptotic",
                 "--out", str(out)]) == 0
    rule = asymptotic_pool_size("four-gaussian", "nb", rng=pool_rule_generator(0, "four-gaussian", "nb"),
                                replicates=POOL_RULE_REPLICATES, n_train=1000, population_size=2000)
    assert json.loads((out / "study.json").read_text())["settings"]["pool_size"] == rule.pool_size


def test_where_no_pool_is_close_the_largest_is_taken_with_a_warning(tmp_path, monkeypatch):
    from mri_theory.runners import AsymptoticPool, study

    table = pd.DataFrame({"pool_size": [250, 500], "loss": [0.3, 0.25], "loss_se": [0.01, 0.01],
                          "ratio": [1.5, 1.25], "ratio_se": [0.05, 0.05], "close": [False, False]})
    monkeypatch.setattr(study, "asymptotic_pool_size", lambda *a, **k: AsymptoticPool(None, 0.2, 0.001, table))
    out = tmp_path / "study"
    with pytest.warns(UserWarning, match=r"no pool up to 500 brings four-gaussian x nb's final loss within 5 % .*"
                                         r"ratio 1\.250.*its pool is 500"):
        run_study("quick", problems=["four-gaussian"], classifiers=["nb"], strategies=["RS"], replicates=1,
                  budget=2, pool_size="asymptotic", out=out, execution=QUIET)
    assert json.loads((out / "study.json").read_text())["settings"]["pool_size"] == 500
    assert json.loads((out / "four-gaussian__nb" / "config.json").read_text())["pool_size"] == 500  # used
