"""The figure ``truth_resolution``: its states, its table (checked against Spearman correlations recomputed with
scipy from the engine's public pieces, and against rounding noise in Q^c), its drawing (checked against means and
standard errors computed here) and its determinism.

The tests that build the quick table (a few seconds each) are marked ``slow``, like the other quick-figure tests.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _optional import given, settings, st
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure
from scipy.stats import spearmanr

from mri_theory.classifiers import get_classifier
from mri_theory.engine import Population
from mri_theory.engine.targets import true_q_c
from mri_theory.figures import get_figure
from mri_theory.figures.truth_resolution import (
    CLASSIFIERS,
    COLUMNS,
    EXACT_CLASSIFIERS,
    PROBLEMS,
    SAMPLED_CLASSIFIERS,
    SETTINGS,
    draw_states,
    plot_truth_resolution,
    truth_resolution_data,
)
from mri_theory.problems import get_problem

SEED = 19


@pytest.fixture(scope="module")
def quick_table() -> pd.DataFrame:
    return truth_resolution_data(True, np.random.default_rng(SEED))


# ------------------------------------------------------------------------------------------------- states

@settings(max_examples=15, deadline=None)
@given(steps=st.lists(st.integers(2, 30), min_size=1, max_size=4).map(tuple), m=st.integers(1, 7),
       seed=st.integers(0, 2**32 - 1))
def test_states_are_nested_random_selection_sets_with_one_point_per_class_first(steps, m, seed):
    problem = get_problem("four-gaussian")
    states = draw_states(problem, steps, m, np.random.default_rng(seed))
    assert len(states) == len(steps)
    longest = max(states, key=lambda state: len(state[1]))
    for (X, y, candidates), n in zip(states, steps, strict=True):
        assert X.shape == (n, problem.dim) and y.shape == (n,) and candidates.shape == (m, problem.dim)
        assert y[:2].tolist() == [0, 1]  # the initial labelled set: one point per class, in class order
        np.testing.assert_array_equal(X, longest[0][:n])  # a prefix of one labelled stream
        np.testing.assert_array_equal(y, longest[1][:n])
        assert not np.isin(candidates, longest[0]).all(axis=1).any()  # candidates are fresh draws


def test_bad_inputs_are_refused_naming_the_argument():
    rng, problem = np.random.default_rng(0), get_problem("four-gaussian")
    with pytest.raises(TypeError, match="quick"):
        truth_resolution_data("no", rng)
    with pytest.raises(TypeError, match="rng"):
        truth_resolution_data(True, 19)
    with pytest.raises(ValueError, match="steps"):
        draw_states(problem, (1, 10), 5, rng)  # fewer labels than classes
    with pytest.raises(TypeError, match="steps"):
        draw_states(problem, [10], 5, rng)
    with pytest.raises(ValueError, match="n_candidates"):
        draw_states(problem, (10,), 0, rng)
    with pytest.raises(TypeError, match="data"):
        plot_truth_resolution([1, 2])
    with pytest.raises(ValueError, match="data.*spearman"):
        plot_truth_resolution(pd.DataFrame({c: [1] for c in COLUMNS if c != "spearman"}))


# ------------------------------------------------------------------------------------------------ drawing

def test_panels_show_the_mean_and_standard_error_over_replicates():
    """A hand-made table: each panel's points are the replicate means, the bars +-1 SE (ddof=1), x log."""
    values = {(c, n, s): np.array([0.1, 0.5, 0.6]) * (1 + (c == "svm")) / (n / 10) + s / 1e5
              for c in ("lda", "svm") for n in (10, 40) for s in (10**3, 10**4)}
    data = pd.DataFrame([("quadratic", c, "exact" if c == "lda" else "independent", s, n, r, v[r])
                         for (c, n, s), v in values.items() for r in range(3)], columns=list(COLUMNS))
    fig = plot_truth_resolution(data, note="a note")
    assert isinstance(fig, Figure)
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert len(axes) == 2
    for ax, classifier in zip(axes, ("lda", "svm"), strict=True):
        assert classifier.upper() in ax.get_title().upper()
        assert ax.get_xscale() == "log"
        assert ax.get_xlim() == (10 / 1.2, 40 * 1.2)  # fixed, not autoscaled through a vectorised log10
        assert any(list(line.get_ydata()) == [1.0, 1.0] for line in ax.lines)  # the horizontal line at 1
        bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
        assert len(bars) == 2
        for container, size in zip(bars, (10**3, 10**4), strict=True):
            line, _, (segments,) = container.lines
            x, y = line.get_xdata(), line.get_ydata()
            np.testing.assert_allclose(x, [10, 40], rtol=0.05)  # up to the small dodge
            for point, n in enumerate((10, 40)):
                v = values[(classifier, n, size)]
                mean, se = v.sum() / 3, np.sqrt(((v - v.sum() / 3) ** 2).sum() / 2 / 3)
                assert y[point] == pytest.approx(mean, abs=1e-12)
                (_, low), (_, high) = segments.get_segments()[point]
                assert (low, high) == pytest.approx((mean - se, mean + se), abs=1e-12)
    assert "a note" in fig.get_suptitle()


# ------------------------------------------------------------------------------------------------ the table

@pytest.mark.slow
def test_quick_figure_is_a_figure():
    assert isinstance(get_figure("truth_resolution").make(True, np.random.default_rng(SEED)), Figure)


@pytest.mark.slow
def test_table_has_one_row_per_state_classifier_and_size(quick_table):
    s = SETTINGS[True]
    assert list(quick_table.columns) == list(COLUMNS)
    per_state = len(EXACT_CLASSIFIERS) * len(s["sizes"]) + len(SAMPLED_CLASSIFIERS) * len(s["sampled_sizes"])
    assert len(quick_table) == len(PROBLEMS) * s["replicates"] * len(s["steps"]) * per_state
    assert set(quick_table.problem) == set(PROBLEMS)
    assert set(quick_table.n_labelled) == set(s["steps"])
    exact = quick_table.classifier.isin(EXACT_CLASSIFIERS)
    assert (quick_table.reference[exact] == "exact").all() and (quick_table.reference[~exact] == "independent").all()
    assert set(quick_table.population_size[exact]) == set(s["sizes"])
    assert set(quick_table.population_size[~exact]) == (set(s["sampled_sizes"]) if SAMPLED_CLASSIFIERS else set())
    assert set(quick_table.classifier) == set(CLASSIFIERS)  # the SVM compared with its exact Q^c like the others
    assert quick_table.spearman.between(-1, 1).all()


def _tie_groups(values: np.ndarray) -> list[int]:
    """Group numbers of ``values`` by a loop over the sorted values: a value within 1e-12 * max(1, max |values|)
    of the one before it joins that one's group (the toolkit's near-tie rule, written independently)."""
    tol = 1e-12 * max(1.0, max(abs(float(v)) for v in values))
    order = sorted(range(len(values)), key=lambda i: float(values[i]))
    groups = [0] * len(values)
    for before, here in zip(order[:-1], order[1:], strict=True):
        groups[here] = groups[before] + (float(values[here]) - float(values[before]) > tol)
    return groups


@pytest.mark.slow
@pytest.mark.parametrize("classifier", ["lda", "qda", "kknn5"])
def test_table_matches_spearman_recomputed_with_scipy(quick_table, classifier):
    """Replicate 0 of the first problem, rebuilt by the documented protocol; Q^c from true_q_c, rho from scipy on
    the near-tie groups (values within 1e-12 share their average rank)."""
    s, problem = SETTINGS[True], get_problem(PROBLEMS[0])
    problem_rng = np.random.default_rng(SEED).spawn(len(PROBLEMS))[0]
    state_rng, first_rng, second_rng = problem_rng.spawn(s["replicates"])[0].spawn(3)
    X, y, candidates = draw_states(problem, s["steps"], s["n_candidates"], state_rng)[-1]  # the largest |D_S|
    size = s["sizes"][0]
    first = Population.from_problem(problem, size, first_rng, method="qmc")
    if classifier in EXACT_CLASSIFIERS:
        other = Population.exact(problem)
    else:
        other = Population.from_problem(problem, size, second_rng, method="qmc")
    clf = get_classifier(classifier)
    rho = spearmanr(_tie_groups(true_q_c(problem, clf, X, y, candidates, first)),
                    _tie_groups(true_q_c(problem, clf, X, y, candidates, other))).statistic
    row = quick_table[(quick_table.problem == PROBLEMS[0]) & (quick_table.classifier == classifier)
                      & (quick_table.replicate == 0) & (quick_table.n_labelled == s["steps"][-1])
                      & (quick_table.population_size == size)]
    assert len(row) == 1
    assert row.spearman.iloc[0] == pytest.approx(rho, abs=1e-12)


@pytest.mark.slow
def test_early_states_are_resolved_and_small_populations_lose_the_ranking_later(quick_table):
    """At |D_S| = 10 Q^c spreads over candidates by ~1e-2 (the exact values on Four-Gaussian, LDA) while a
    10^4-point QMC population errs by ~1e-3, so the ranks agree closely: every state >= 0.9.  By the largest
    |D_S| the spread has shrunk several-fold, so the 10^3-point populations rank worse on average than at 10."""
    s, t = SETTINGS[True], quick_table
    exact = t[t.reference == "exact"]
    early = exact[(exact.n_labelled == s["steps"][0]) & (exact.population_size == max(s["sizes"]))]
    assert len(early) == len(PROBLEMS) * s["replicates"] * len(EXACT_CLASSIFIERS)
    assert early.spearman.min() >= 0.9
    small = t[t.population_size == min(s["sizes"])]
    assert small[small.n_labelled == s["steps"][-1]].spearman.mean() < small[small.n_labelled == s["steps"][0]
                                                                             ].spearman.mean() - 0.05


@pytest.mark.slow
def test_rounding_noise_in_q_c_moves_no_correlation(quick_table, monkeypatch):
    """Q^c perturbed by a few units in the last place (random signs), as another CPU's BLAS kernel or vectorised
    exp rounds it (issue 54): the table is the same bits.  Candidates that change nothing have Q^c = 0 in exact
    arithmetic (many 5-NN candidates do), so ranking the raw values would order them by the noise."""
    import mri_theory.figures.truth_resolution as module

    noise = np.random.default_rng(0)

    def rounded_elsewhere(*args, **kwargs):
        q = true_q_c(*args, **kwargs)
        return q + noise.choice([-4.0, 0.0, 4.0], size=q.shape) * np.spacing(np.maximum(np.abs(q), 0.5))

    monkeypatch.setattr(module, "true_q_c", rounded_elsewhere)
    perturbed = truth_resolution_data(True, np.random.default_rng(SEED))
    pd.testing.assert_frame_equal(perturbed, quick_table, check_exact=True)


@pytest.mark.slow
def test_same_generator_state_gives_the_same_table(quick_table):
    """(No global random state: ruff's NPY002 refuses the legacy np.random calls in the package.)"""
    again = truth_resolution_data(True, np.random.default_rng(SEED))
    pd.testing.assert_frame_equal(again, quick_table, check_exact=True)
    other = truth_resolution_data(True, np.random.default_rng(SEED + 1))
    assert not np.array_equal(other.spearman.to_numpy(), quick_table.spearman.to_numpy())
