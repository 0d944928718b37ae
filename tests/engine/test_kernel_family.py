"""The family path of the SVM's exact truth (:func:`mri_theory.engine.kernel_rules.kernel_losses_family`) against
the per-rule path (:func:`mri_theory.engine.kernel_rules.kernel_losses`), which integrates each retrained model
on its own.

The family's events come from one quadtree whose cells carry the rules still open in them, each rule's tests
being the per-rule quadtree's: the values must agree to the quadrature's tolerance (1e-10 is asked; they agree
to rounding) on every abstract problem, at learning-curve sizes, with both Platt fits; a model that gains a
boundary component of its own (a far candidate labelled against its region) must be caught."""

from __future__ import annotations

import numpy as np
import pytest

from mri_theory.classifiers import SVM
from mri_theory.classifiers.svm import _kernel_rules, _machine_classes
from mri_theory.engine import MixtureTruth
from mri_theory.engine.kernel_rules import _family_losses, kernel_losses, kernel_losses_family
from mri_theory.problems import get_problem

PROBLEMS = ["four-gaussian", "quadratic", "triangles", "oscillating", "sharp"]


def _retrained_rules(model: SVM, candidates: np.ndarray):
    """Every retrained model (each candidate with each label) as a kernel rule: ``(S, c, mask)`` over the
    distinct training points then the candidate, label by label."""
    machines = model._retrained_machines(candidates)
    parts = []
    for j in range(model.n_classes_):
        present = np.union1d(model.classes_present_, [j])
        cols = [machines.types.index((int(c), 1 if c == j else -1)) for c in _machine_classes(present)]
        parts.append(_kernel_rules(model.n_classes_, present, machines.dual_coef[:, cols],
                                   machines.intercept[:, cols], machines.sigmoids[:, cols]))
    return tuple(np.concatenate(p) for p in zip(*parts, strict=True))


def _compare(problem, model: SVM, candidates: np.ndarray) -> int:
    """The family's error rates against the per-rule path's; returns how many rules fell back."""
    truth = MixtureTruth.from_problem(problem)
    S, c, mask = _retrained_rules(model, candidates)
    extra = np.tile(candidates, (model.n_classes_, 1))
    family, fell_back, _ = _family_losses(truth, model._points, extra, S, c, model.gamma_, mask, 1e-12)
    points = np.concatenate([np.broadcast_to(model._points, (len(extra),) + model._points.shape),
                             extra[:, None]], axis=1)
    single = kernel_losses(truth, points, S, c, model.gamma_, mask)
    assert np.max(np.abs(family.loss - single.loss)) <= 1e-10
    assert np.all(family.unresolved <= single.unresolved + 1e-15)
    return int(fell_back.sum())


@pytest.mark.parametrize("platt", ["train", "cv"])
@pytest.mark.parametrize("name", PROBLEMS)
@pytest.mark.parametrize("n", [10, 60, pytest.param(200, marks=pytest.mark.slow)])
def test_the_family_equals_the_per_rule_path(name, n, platt):
    """100 candidates, both labels: 200 retrained models per state, every one within 1e-10 of the per-rule
    value (the fallback, rules with one present class, is the per-rule path itself)."""
    problem = get_problem(name)
    rng = np.random.default_rng(np.random.SeedSequence(53, spawn_key=(n, PROBLEMS.index(name))))
    while True:
        X, y = problem.sample(n, rng)
        if np.unique(y).size == 2:
            break
    candidates = problem.sample(100, rng)[0]
    _compare(problem, SVM(platt=platt).fit(X, y, 2), candidates)


def test_a_new_boundary_component_of_one_model_is_caught():
    """Candidates away from the training points (0.6 at least) within the components' reach, labelled against
    the current model's prediction there: where the retrained model predicts the candidate's label at the
    candidate, it has an island of its own that the current model does not have, and the family finds that
    model's own two tangencies and integrates the island (the value of a plain refit)."""
    problem = get_problem("four-gaussian")
    truth = MixtureTruth.from_problem(problem)
    rng = np.random.default_rng(5)
    X, y = problem.sample(40, rng)
    model = SVM().fit(X, y, 2)
    far = np.array([[-1.6, 0.3], [1.3, 0.7], [0.3, -0.6], [-0.3, 1.6], [-1.4, -0.4]])
    region = model.predict(far)
    S, c, mask = _retrained_rules(model, far)
    extra = np.tile(far, (2, 1))
    family, fell_back, events = _family_losses(truth, model._points, extra, S, c, model.gamma_, mask, 1e-12)
    assert not fell_back.any()
    points = np.concatenate([np.broadcast_to(model._points, (len(extra),) + model._points.shape),
                             extra[:, None]], axis=1)
    single = kernel_losses(truth, points, S, c, model.gamma_, mask)
    assert np.max(np.abs(family.loss - single.loss)) <= 1e-10
    islands = 0
    for a in range(len(far)):
        against = (1 - region[a]) * len(far) + a
        retrained = SVM().fit(np.vstack([X, far[a]]), np.append(y, 1 - region[a]), 2)
        assert abs(family.loss[against] - retrained.exact_loss(truth, "error")) < 1e-9
        if retrained.predict(far[a:a + 1])[0] == 1 - region[a]:  # an island around the candidate
            islands += 1
            assert events[against] >= 2  # the island's two tangencies (the others: wherever the boundary turns)
    assert islands >= 1


def test_the_svm_uses_the_family_and_agrees_with_refits():
    problem = get_problem("triangles")
    truth = MixtureTruth.from_problem(problem)
    rng = np.random.default_rng(11)
    X, y = problem.sample(30, rng)
    model = SVM().fit(X, y, 2)
    candidates = problem.sample(3, rng)[0]
    future = model._exact_future_losses(candidates, truth, "error")
    for a, x in enumerate(candidates):
        for j in range(2):
            refit = SVM().fit(np.vstack([X, x]), np.append(y, j), n_classes=2)
            assert abs(future[a, j] - refit.exact_loss(truth, "error")) < 1e-9


def test_bad_arguments_are_refused_with_their_names():
    truth = MixtureTruth.from_problem(get_problem("four-gaussian"))
    good = dict(truth=truth, points=np.zeros((2, 2)), extra=np.zeros((1, 2)), scores=np.zeros((1, 2, 3)),
                constants=np.zeros((1, 2)), gamma=0.5)
    for key, bad in (("points", np.zeros((2, 3))), ("extra", np.zeros((2, 2))), ("scores", np.zeros((1, 2, 2))),
                     ("constants", np.zeros((1, 3))), ("present", np.ones((1, 3), dtype=bool))):
        with pytest.raises(ValueError, match=key):
            kernel_losses_family(**{**good, key: bad})


def test_rules_outside_the_family_fall_back_to_the_per_rule_path():
    """Training data of one class: the retrained models labelled with it predict one class everywhere (the
    per-rule path), those labelled with the other are two-class rules (the family); a 1-D truth is all per rule."""
    problem = get_problem("four-gaussian")
    rng = np.random.default_rng(3)
    X, y = problem.sample(12, rng)
    model = SVM().fit(X, np.zeros_like(y), 2)
    candidates = problem.sample(10, rng)[0]
    truth = MixtureTruth.from_problem(problem)
    S, c, mask = _retrained_rules(model, candidates)
    extra = np.tile(candidates, (2, 1))
    family, fell_back, _ = _family_losses(truth, model._points, extra, S, c, model.gamma_, mask, 1e-12)
    assert fell_back.tolist() == [True] * 10 + [False] * 10
    points = np.concatenate([np.broadcast_to(model._points, (20,) + model._points.shape), extra[:, None]], axis=1)
    assert np.max(np.abs(family.loss - kernel_losses(truth, points, S, c, model.gamma_, mask).loss)) <= 1e-10
    line = MixtureTruth.from_arrays([0.5, 0.5], [[-1.0], [1.0]], [[[1.0]], [[1.0]]], [0, 1], 2)
    scores = [[[0.0, 0.0, 0.0], [-1.0, 1.0, 0.5]]]
    one_d, fell_back, _ = _family_losses(line, [[-1.0], [1.0]], [[0.3]], scores, [[0.0, 0.1]], 0.5, None, 1e-12)
    assert fell_back.all()
    assert one_d.loss[0] == kernel_losses(line, [[-1.0], [1.0], [0.3]], scores, [[0.0, 0.1]], 0.5).loss[0]


def _fitted_state(problem, n, m, seed):
    """An SVM fitted on ``n`` points of ``problem`` with both classes (drawn again until both are present) and
    ``m`` candidates, from ``seed``."""
    rng = np.random.default_rng(seed)
    while True:
        X, y = problem.sample(n, rng)
        if np.unique(y).size == 2:
            break
    return SVM().fit(X, y, 2), problem.sample(m, rng)[0]


def test_events_closer_than_the_event_cell_are_both_panel_edges():
    """Two retrained models of a triangles state (|D_S| = 200) have two tangencies 1.3e-3 and 1e-3 apart (less
    than the quadtree's finest cell, 1e-3 kernel widths): both must be panel edges, or the panel between them
    continues the wrong number of roots past the second (5e-7 of error).  Family, per-rule and every-line-isolated
    values agree."""
    problem = get_problem("triangles")
    truth = MixtureTruth.from_problem(problem)
    model, candidates = _fitted_state(problem, 200, 100, np.random.SeedSequence(0, spawn_key=(200, 0)))
    S, c, mask = _retrained_rules(model, candidates)
    chosen = [131, 150]
    extra = np.tile(candidates, (2, 1))[chosen]
    family, _, events = _family_losses(truth, model._points, extra, S[chosen], c[chosen], model.gamma_, mask[chosen],
                                       1e-12)
    assert np.all(events == 8)
    points = np.concatenate([np.broadcast_to(model._points, (2,) + model._points.shape), extra[:, None]], axis=1)
    isolated = kernel_losses(truth, points, S[chosen], c[chosen], model.gamma_, mask[chosen], isolate_every_line=True)
    single = kernel_losses(truth, points, S[chosen], c[chosen], model.gamma_, mask[chosen])
    assert np.max(np.abs(single.loss - isolated.loss)) <= 1e-12
    assert np.max(np.abs(family.loss - isolated.loss)) <= 1e-12


@pytest.mark.parametrize("name", PROBLEMS)
def test_the_family_equals_every_line_isolated(name):
    """The family's continued lines (roots predicted from the panel's known lines, Newton's method stopped by its
    certificate) against every line isolated by subdivision, on a |D_S| = 60 state: 12 retrained models of both
    labels, within 1e-10 (measured: 5e-12 on four-gaussian, as the per-rule continued path; below 1e-15 on the
    others)."""
    problem = get_problem(name)
    truth = MixtureTruth.from_problem(problem)
    model, candidates = _fitted_state(problem, 60, 6, np.random.SeedSequence(53, spawn_key=(60, 99,
                                                                                       PROBLEMS.index(name))))
    S, c, mask = _retrained_rules(model, candidates)
    extra = np.tile(candidates, (2, 1))
    family, fell_back, _ = _family_losses(truth, model._points, extra, S, c, model.gamma_, mask, 1e-12)
    assert not fell_back.any()
    points = np.concatenate([np.broadcast_to(model._points, (12,) + model._points.shape), extra[:, None]], axis=1)
    isolated = kernel_losses(truth, points, S, c, model.gamma_, mask, isolate_every_line=True)
    assert np.max(np.abs(family.loss - isolated.loss)) <= 1e-10
