"""BMRI on the paper's smaller real data sets (issue 39's hot spots): the classifiers' fast paths against plain refits.

BMRI's scores with ``method="auto"`` (logistic regression's batched Newton on the reduced Newton system, the SVM's
warm-started dual) equal those of ``method="refit"`` (a plain ``fit`` on every augmented bootstrap resample): they
are error rates, so the retrained models' decisions on every test point are the same (the scores differ only by
the order of the sums, 1e-17), and the same candidate is picked from the same generator.  The cases are subsets
of the real data, with their dimensions and classes: ``sonar`` (d = 60, two classes), ``glass`` (d = 9, six
classes, some absent from a bootstrap resample, so the fast path's second batch, of problems with a class more,
is run), ``australian``, ``pima`` and ``balance`` (three classes) for the SVM.  For logistic regression the log
loss of the retrained models is held to 1e-9 of the refits' too (a continuous check of the solutions, which error
rates see only through decisions), also on random problems.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, settings, st

from mri_theory.classifiers import SVM, LogisticRegression
from mri_theory.engine.contract import refit_future_losses
from mri_theory.engine.population import Population
from mri_theory.problems import get_problem
from mri_theory.strategies import get_strategy, select
from mri_theory.strategies.base import Context


def real_case(name: str, n: int, m: int, seed: int):
    """A step of the study on real data set ``name``: ``n`` labelled points (the initial set, one per class, then
    the pool's first), ``m`` candidates from the rest: ``(n_classes, X, y, candidates, rest)``."""
    problem = get_problem(name)
    rng = np.random.default_rng(seed)
    X0, y0, pool_X, pool_y, _ = problem.draw_replicate(problem.max_pool_size, None, rng)
    extra = n - y0.size
    X, y = np.vstack([X0, pool_X[:extra]]), np.concatenate([y0, pool_y[:extra]])
    rest = pool_X[extra:]
    return problem.n_classes, X, y, rest[rng.choice(rest.shape[0], size=m, replace=False)], rest


CASES = [("sonar", LogisticRegression, 20, 0), ("sonar", LogisticRegression, 60, 1),
         ("glass", LogisticRegression, 12, 2), ("glass", LogisticRegression, 40, 3),
         ("australian", SVM, 40, 4), ("balance", SVM, 30, 5), ("pima", SVM, 40, 6)]


@pytest.mark.parametrize("name,make,n,seed", CASES)
def test_bmri_fast_path_equals_plain_refits(name, make, n, seed):
    """BMRI (4 resamples here) through the fast path and through a plain refit per (candidate, class): equal
    scores (error rates of the same decisions, summed in another order: to 1e-12) and the same pick."""
    k, X, y, candidates, pool = real_case(name, n, 6, seed)
    picks = []
    for method in ("auto", "refit"):
        ctx = Context(X=X, y=y, candidates=candidates, pool=pool, classifier=make(), n_classes=k,
                      rng=np.random.default_rng(seed))
        picks.append(select(get_strategy("BMRI", n_b=4, method=method), ctx))
    np.testing.assert_allclose(picks[0][1], picks[1][1], rtol=0, atol=1e-12)
    assert picks[0][0] == picks[1][0]


@pytest.mark.parametrize("name,n,seed", [("sonar", 20, 7), ("sonar", 90, 8), ("glass", 12, 9), ("glass", 60, 10)])
def test_logistic_retrained_models_equal_refits_on_a_bootstrap_resample(name, n, seed):
    """A bootstrap resample (repeated points merged by the solver) of real data: every retrained model's log loss
    and error rate on another resample against the refit's, and the fitted parameters against a refit from the
    same data in another order (the solver's start is the same; only the sums' order differs)."""
    k, X, y, candidates, _ = real_case(name, n, 5, seed)
    rng = np.random.default_rng(seed)
    i_t, i_e = rng.integers(0, n, size=(2, n))
    model = LogisticRegression().fit(X[i_t], y[i_t], k)
    population = Population.from_labels(X[i_e], y[i_e], k)
    for loss, tolerance in (("log", 1e-9), ("error", 1e-15)):
        fast = model.future_retraining_losses(candidates, population, loss)
        refit = refit_future_losses(model, candidates, population, loss)
        np.testing.assert_allclose(fast, refit, rtol=0, atol=tolerance)
    order = rng.permutation(n)
    other = LogisticRegression().fit(X[i_t][order], y[i_t][order], k)
    np.testing.assert_allclose(other.coef_, model.coef_, rtol=0, atol=1e-9 * max(1.0, np.max(np.abs(model.coef_))))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 30), q=st.integers(2, 6), d=st.integers(1, 12),
       C=st.sampled_from([0.1, 10.0, 1000.0]), repeats=st.booleans())
def test_logistic_fast_path_equals_refits_on_random_problems(seed, n, q, d, C, repeats):
    """Random problems up to six classes and twelve dimensions, repeated points or not, a class absent or not:
    the retrained models' log losses to 1e-9 of the refits'."""
    rng = np.random.default_rng(seed)
    k = q + 1  # class q is never in the training data: its candidates take the second batch
    y = np.concatenate([np.arange(q), rng.integers(0, q, size=n)])
    X = rng.normal(size=(y.size, d)) + rng.normal(size=(q, d))[y]
    if repeats:
        pick = rng.integers(0, y.size, size=y.size)
        X, y = X[pick], y[pick]
    model = LogisticRegression(C=C).fit(X, y, k)
    candidates = rng.normal(size=(3, d)) * 1.5
    population = Population.from_labels(rng.normal(size=(20, d)), rng.integers(0, k, size=20), k)
    fast = model.future_retraining_losses(candidates, population, "log")
    refit = refit_future_losses(model, candidates, population, "log")
    np.testing.assert_allclose(fast, refit, rtol=0, atol=1e-9)
