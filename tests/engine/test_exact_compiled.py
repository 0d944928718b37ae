"""The compiled 2-D error rate (:mod:`mri_theory.engine._exact_compiled`) against the numpy code it replaced.

References: the numpy radial error mass ``exact._error_mass`` (kept in the module: the 1-D path uses it) for
single rays, and the numpy 2-D error integral as it was before it was compiled (commit ac96b4b, kept here:
``exact._ray_coefficients`` and ``exact._error_mass`` at the smoothed angles of every panel, integrated by
``exact.adaptive_gauss_kronrod``) for whole items.  Random rays and rules: ``k`` from 2 to 4, absent classes,
classes with equal quadratic parts (linear pairs), equal scores, rays through a crossing and tangent to a
boundary.  The compiled functions must give the numpy values to rounding (the last bits of ``exp``, ``cos``
and ``sin``, and the order of sums, may differ); their pure-Python runs (numba's functions before
compiling) must give the compiled values bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from _optional import given, settings, st

from mri_theory.engine import _quadrature, exact
from mri_theory.engine.exact import TOLERANCE, MixtureTruth

compiled = pytest.importorskip("mri_theory.engine._exact_compiled")


# -- the numpy reference of the 2-D error integral (commit ac96b4b) ------------------------------------------------


def numpy_two_d_errors(items: exact._Items) -> np.ndarray:
    """``exact._two_d(items, "error", inf)`` before it was compiled: the numpy integrand, batched quadrature."""
    n = items.label.shape[0]
    breaks = exact._breakpoints(items, np.inf)
    lo, hi = breaks[:, :-1], breaks[:, 1:]
    valid = np.isfinite(lo) & np.isfinite(hi) & (hi > lo)
    item_of, _ = np.nonzero(valid)
    t0, t1 = lo[valid], hi[valid]

    def integrand(task, s):
        it = item_of[task]
        width = (t1 - t0)[task][:, None]
        theta = t0[task][:, None] + width * (s * s * (3 - 2 * s))
        jac = width * 6 * s * (1 - s) / (2 * np.pi)
        sub = items.take(it)
        al, be, ga = exact._ray_coefficients(sub, np.cos(theta), np.sin(theta))
        label = np.broadcast_to(sub.label[:, None], s.shape)
        return exact._error_mass(al, be, ga, sub.present[:, None, :], label, 2) * jac

    per_panel = exact.adaptive_gauss_kronrod(integrand, np.zeros(t0.size), np.ones(t0.size), TOLERANCE["error"])
    return np.bincount(item_of, weights=per_panel, minlength=n)


# -- random rays -----------------------------------------------------------------------------------------------------


def random_rays(seed: int, k: int, rays: int):
    """Score coefficients ``(R, k)`` along rays with the degenerate cases of the module notes, masks and labels."""
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.uniform(-3, 3, size=(rays, 1))
    al, be, ga = (rng.normal(size=(rays, k)) * scale for _ in range(3))
    kind = rng.integers(0, 7, size=rays)
    j, i = rng.integers(0, k, size=rays), rng.integers(0, k, size=rays)
    i = np.where(i == j, (j + 1) % k, i)
    rows = np.arange(rays)
    r0 = np.abs(rng.normal(size=rays)) * 2
    linear = kind == 1  # equal quadratic parts: one crossing at most
    al[rows[linear], j[linear]] = al[rows[linear], i[linear]]
    constant = kind == 2  # equal quadratic and linear parts: no crossing, or equal scores
    al[rows[constant], j[constant]] = al[rows[constant], i[constant]]
    be[rows[constant], j[constant]] = be[rows[constant], i[constant]]
    same = kind == 3  # equal scores: the lower label wins
    for v in (al, be, ga):
        v[rows[same], j[same]] = v[rows[same], i[same]]
    through = kind == 4  # the ray crosses the boundary of j and i at r0 (to rounding)
    rt, jt, it = rows[through], j[through], i[through]
    ga[rt, jt] = (al[rt, it] - al[rt, jt]) * r0[through] ** 2 + (be[rt, it] - be[rt, jt]) * r0[through] + ga[rt, it]
    tangent = kind == 5  # s_j - s_i = a (r - r0)^2: a double root
    rt, jt, it = rows[tangent], j[tangent], i[tangent]
    a = al[rt, jt] - al[rt, it]
    be[rt, jt] = be[rt, it] - 2 * a * r0[tangent]
    ga[rt, jt] = ga[rt, it] + a * r0[tangent] ** 2
    zero = kind == 6  # a class with a constant score
    al[rows[zero], j[zero]] = 0.0
    be[rows[zero], j[zero]] = 0.0
    present = rng.random((rays, k)) < 0.8
    present[rows, rng.integers(0, k, size=rays)] = True  # at least one present class
    present[rng.random(rays) < 0.5] = True
    label = rng.integers(0, k, size=rays)
    return al, be, ga, present, label


def numpy_error_mass(al, be, ga, present, label):
    """``exact._error_mass`` ray by ray as to its two cases: the two-class formula for the rays with two present
    classes of two, the general segments for the others (numpy took the formula only when every ray of its batch
    had both classes; the compiled code decides ray by ray, see the next test)."""
    pair = np.all(present, axis=1) & (present.shape[1] == 2)
    out = np.empty(label.size)
    for rows in (pair, ~pair):
        if rows.any():
            out[rows] = exact._error_mass(al[rows], be[rows], ga[rows], present[rows], label[rows], 2)
    return out


@settings(deadline=None, derandomize=True, max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 4), rays=st.integers(1, 300))
def test_compiled_ray_masses_equal_the_numpy_error_mass(seed, k, rays):
    al, be, ga, present, label = random_rays(seed, k, rays)
    expected = numpy_error_mass(al, be, ga, present, label)
    got = compiled.ray_error_masses(al, be, ga, present, label, np.empty(rays))
    np.testing.assert_allclose(got, expected, rtol=0, atol=2e-15)


def test_the_two_class_formula_and_the_general_segments_differ_only_between_nearly_equal_roots():
    """Two present classes of two: the sign of :math:`s_1 - s_0` (:func:`pair_error_mass`) or the larger of
    :math:`s_0, s_1` (:func:`general_error_mass`) at each midpoint.  Both are the numpy code's (its two cases);
    they can differ only where rounding decides the winner: between two nearly equal roots (a ray almost
    tangent to the boundary), by at most that segment's mass."""
    al, be, ga, _, label = random_rays(7, 2, 5000)
    radii = np.empty(4)
    present = np.ones(2, dtype=bool)
    differ = 0
    for r in range(label.size):
        d = (al[r, 1] - al[r, 0], be[r, 1] - be[r, 0], ga[r, 1] - ga[r, 0])
        pair = compiled.pair_error_mass(*d, label[r])
        general = compiled.general_error_mass(al[r], be[r], ga[r], present, label[r], radii)
        r1, r2 = compiled.positive_roots(*d)
        between = abs(np.exp(-0.5 * r1 * r1) - np.exp(-0.5 * r2 * r2)) if max(r1, r2) < np.inf else 0.0
        if abs(pair - general) > 2e-16:
            differ += 1
            assert abs(r1 - r2) <= 1e-4 * max(r1, r2) and abs(pair - general) <= between + 2e-16, r
    assert differ > 0  # the tangent rays of random_rays reach the case


def test_roots_equal_the_numpy_positive_roots():
    rng = np.random.default_rng(3)
    a, b, g = rng.normal(size=(3, 5000)) * 10.0 ** rng.uniform(-5, 5, size=(3, 5000))
    a[::7], b[::11], g[::13] = 0.0, 0.0, 0.0
    b[::17] = np.sqrt(4 * a[::17] * g[::17] + 0j).real  # a zero discriminant where it is real
    expected = exact._positive_roots(a, b, g)
    got = np.array([compiled.positive_roots(x, y, z) for x, y, z in zip(a, b, g, strict=True)])
    np.testing.assert_array_equal(got, expected)


# -- whole items -----------------------------------------------------------------------------------------------------


def random_items(seed: int, k: int, n_rules: int, n_components: int) -> exact._Items:
    """Whitened items of random quadratic rules under a random 2-D mixture, with the degenerate cases."""
    rng = np.random.default_rng(seed)
    means = rng.normal(size=(n_components, 2))
    L = rng.normal(size=(n_components, 2, 2)) * 0.5 + np.eye(2)
    cov = L @ np.swapaxes(L, 1, 2) + 0.1 * np.eye(2)
    weights = rng.random(n_components) + 0.2
    truth = MixtureTruth.from_arrays(weights / weights.sum(), means, cov, rng.integers(0, k, n_components), k)
    M = n_rules
    R = rng.normal(size=(M, k, 2, 2))
    A = R @ np.swapaxes(R, 2, 3) * rng.choice([-1.0, 1.0, 0.3], size=(M, k, 1, 1))
    b = rng.normal(size=(M, k, 2)) * 2
    c = rng.normal(size=(M, k))
    kind = rng.integers(0, 4, size=M)
    A[kind == 1] = A[kind == 1][:, :1]  # one quadratic part: linear boundaries
    A[kind == 2, 0] = 0.0  # a linear class among quadratic ones
    A[kind == 3, 1], b[kind == 3, 1], c[kind == 3, 1] = A[kind == 3, 0], b[kind == 3, 0], c[kind == 3, 0]  # equal
    present = rng.random((M, k)) < 0.85
    present[np.arange(M), rng.integers(0, k, M)] = True
    A, b, c, mask = exact._check_rules(truth, A, b, c, present)
    return exact._whitened_items(truth, A, b, c, mask)


@settings(deadline=None, derandomize=True, max_examples=15)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 4), n_rules=st.integers(1, 6),
       n_components=st.integers(1, 3))
def test_compiled_two_d_error_integral_equals_the_numpy_one(seed, k, n_rules, n_components):
    """Every item through the general 2-D path (linear pairs and wedges included), compiled and numpy."""
    items = random_items(seed, k, n_rules, n_components)
    np.testing.assert_allclose(exact._two_d(items, "error", np.inf), numpy_two_d_errors(items), rtol=0, atol=1e-13)


@pytest.mark.parametrize("name", ["four-gaussian", "three-gaussians"])
@pytest.mark.parametrize("classifier", ["qda", "nb"])
def test_a_study_step_of_rules_equals_the_numpy_integral(name, classifier):
    """The retrained rules of one step of QDA and naive Bayes (|D_S| = 8: small classes, sharp boundaries)."""
    from mri_theory.classifiers import QDA, GaussianNaiveBayes
    from mri_theory.problems import get_problem

    problem = get_problem(name)
    rng = np.random.default_rng(5)
    while True:
        X, y = problem.sample(8, rng)
        if np.unique(y).size == problem.n_classes:
            break
    clf = {"qda": QDA, "nb": GaussianNaiveBayes}[classifier]().fit(X, y, n_classes=problem.n_classes)
    counts, means, scatters = clf._updated_statistics(clf._to_frame(problem.sample(10, rng)[0]))
    k = problem.n_classes
    A, b, c = clf._coefficients(counts.reshape(-1, k), means.reshape(-1, k, 2), scatters.reshape(-1, k, 2, 2))
    truth = MixtureTruth.from_problem(problem).in_frame(clf.origin_, clf.scale_)
    A, b, c, mask = exact._check_rules(truth, A, b, c, counts.reshape(-1, k) > 0)
    items = exact._whitened_items(truth, A, b, c, mask)
    np.testing.assert_allclose(exact._two_d(items, "error", np.inf), numpy_two_d_errors(items), rtol=0, atol=1e-13)


# -- the pure-Python runs ------------------------------------------------------------------------------------------


def test_the_pure_python_functions_are_the_compiled_ones():
    """numba compiles the functions it is given: run uncompiled, they give the same bits."""
    for k in (2, 3, 4):
        al, be, ga, present, label = random_rays(11 + k, k, 200)
        np.testing.assert_array_equal(compiled.ray_error_masses.py_func(al, be, ga, present, label, np.empty(200)),
                                      compiled.ray_error_masses(al, be, ga, present, label, np.empty(200)))
        radii = np.empty(k * (k - 1) + 2)
        for r in range(40):
            args = (al[r], be[r], ga[r], present[r], label[r], radii)
            assert compiled.general_error_mass.py_func(*args) == compiled.general_error_mass(*args)
            assert compiled.ray_error_mass.py_func(*args) == compiled.ray_error_mass(*args)
            d = (al[r, 1] - al[r, 0], be[r, 1] - be[r, 0], ga[r, 1] - ga[r, 0])
            assert compiled.pair_error_mass.py_func(*d, label[r]) == compiled.pair_error_mass(*d, label[r])
            assert compiled.positive_roots.py_func(*d) == compiled.positive_roots(*d)
    items = random_items(2, 3, 2, 2)
    breaks = exact._breakpoints(items, np.inf)
    lo, hi = breaks[:, :-1], breaks[:, 1:]
    valid = np.isfinite(lo) & np.isfinite(hi) & (hi > lo)
    item_of = np.nonzero(valid)[0].astype(np.int64)
    args = (items.alpha, items.beta, items.gamma, items.present, items.label.astype(np.int64), item_of, lo[valid],
            hi[valid], TOLERANCE["error"], _quadrature.NODES, _quadrature.KRONROD, _quadrature.GAUSS, exact._ROUNDING,
            exact._NEGLIGIBLE, exact._MAX_ROUNDS)
    np.testing.assert_array_equal(compiled.error_panels.py_func(*args, np.empty(item_of.size)),
                                  compiled.error_panels(*args, np.empty(item_of.size)))


# -- two classes by lines ------------------------------------------------------------------------------------------


def two_class_items(seed: int, k: int, n_rules: int, n_components: int) -> exact._Items:
    """Random items with exactly two present classes (quadratic or linear), every label among them or not."""
    items = random_items(seed, k, n_rules, n_components)
    rng = np.random.default_rng(seed + 1)
    present = np.zeros_like(items.present)
    for row in range(present.shape[0]):
        present[row, rng.choice(k, 2, replace=False)] = True
    return exact._Items(items.alpha, items.beta, items.gamma, present, items.label, items.rule, items.weight)


@settings(deadline=None, derandomize=True, max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 4), n_rules=st.integers(1, 6),
       n_components=st.integers(1, 3))
def test_two_class_lines_equal_the_angular_integral(seed, k, n_rules, n_components):
    """Lines (Cartesian, Φ differences) against rays (polar, the angular integral at a tolerance of 1e-14): two
    integrations of the same region in different coordinates."""
    items = two_class_items(seed, k, n_rules, n_components)
    old = TOLERANCE["error"]
    try:
        TOLERANCE["error"] = 1e-14
        rays = exact._two_d(items, "error", np.inf)
    finally:
        TOLERANCE["error"] = old
    np.testing.assert_allclose(exact._pair_line_errors(items), rays, rtol=0, atol=1e-12)


def test_a_label_of_neither_class_is_always_wrong_and_linear_pairs_are_normal_cdfs():
    from scipy import special

    items = two_class_items(3, 3, 12, 2)
    lines = exact._pair_line_errors(items)
    neither = ~items.present[np.arange(items.label.size), items.label]
    assert neither.any() and np.all(lines[neither] == 1.0)
    # equal quadratic parts (the 1-D path's case, here through the lines): q = db.z + dg ~ N(dg, |db|^2)
    j, i = np.argsort(~items.present, axis=1, kind="stable")[:, :2].T
    rows = np.arange(items.label.size)
    alpha = items.alpha.copy()
    alpha[rows, i] = alpha[rows, j]
    linear = exact._Items(alpha, items.beta, items.gamma, items.present, items.label, items.rule, items.weight)
    db = items.beta[rows, i] - items.beta[rows, j]
    dg = items.gamma[rows, i] - items.gamma[rows, j]
    norm = np.linalg.norm(db, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):  # equal scores (norm 0): a tie, won by the lower label j
        p_i = np.where(norm > 0, special.ndtr(dg / norm), (dg > 0).astype(float))  # class i wins where q > 0
    assert np.any(norm == 0)
    expected = np.where(neither, 1.0, np.where(items.label == i, 1.0 - p_i, p_i))
    np.testing.assert_allclose(exact._pair_line_errors(linear), expected, rtol=0, atol=1e-14)


def test_line_mass_is_the_normal_mass_of_the_set_where_the_quadratic_is_positive():
    """Against scipy.integrate.quad of the normal density between the real roots of numpy.roots (on +-40)."""
    from scipy import integrate, stats

    rng = np.random.default_rng(9)
    for _ in range(200):
        a, b, c = rng.normal(size=3) * 10.0 ** rng.uniform(-2, 2, size=3)
        if rng.random() < 0.1:
            a = 0.0
        roots = np.sort([r.real for r in np.roots(np.trim_zeros([a, b, c], "f")) if abs(r.imag) < 1e-12])
        cuts = np.concatenate([[-np.inf], roots, [np.inf]])
        positive = 0.0
        for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
            if np.isfinite(lo) and np.isfinite(hi):
                mid = 0.5 * (lo + hi)
            else:  # a half-line or the whole line
                mid = hi - 1.0 if np.isfinite(hi) else (lo + 1.0 if np.isfinite(lo) else 0.0)
            if (a * mid + b) * mid + c > 0:  # beyond +-40 the mass is below 1e-300
                lo, hi = max(lo, -40.0), min(hi, 40.0)
                inner = [x for x in (-1.0, 0.0, 1.0) if lo < x < hi]
                if hi > lo:
                    positive += integrate.quad(stats.norm.pdf, lo, hi, points=inner or None, epsabs=1e-15,
                                               epsrel=1e-13, limit=200)[0]
        assert compiled.line_mass(a, b, c, True) == pytest.approx(positive, abs=1e-12)
        assert compiled.line_mass(a, b, c, False) == pytest.approx(1.0 - positive, abs=1e-12)


@pytest.mark.parametrize("name", ["four-gaussian", "sharp"])
@pytest.mark.parametrize("classifier", ["qda", "nb"])
def test_a_two_class_study_step_by_lines_equals_the_angular_integral(name, classifier):
    """The retrained rules of a QDA / naive Bayes step (|D_S| = 8): error_rates (lines) against the rays."""
    from mri_theory.classifiers import QDA, GaussianNaiveBayes
    from mri_theory.problems import get_problem

    problem = get_problem(name)
    rng = np.random.default_rng(6)
    while True:
        X, y = problem.sample(8, rng)
        if np.unique(y).size == problem.n_classes:
            break
    clf = {"qda": QDA, "nb": GaussianNaiveBayes}[classifier]().fit(X, y, n_classes=problem.n_classes)
    counts, means, scatters = clf._updated_statistics(clf._to_frame(problem.sample(10, rng)[0]))
    A, b, c = clf._coefficients(counts.reshape(-1, 2), means.reshape(-1, 2, 2), scatters.reshape(-1, 2, 2, 2))
    truth = MixtureTruth.from_problem(problem).in_frame(clf.origin_, clf.scale_)
    got = exact.error_rates(truth, A, b, c)
    A, b, c, mask = exact._check_rules(truth, A, b, c, None)
    items = exact._whitened_items(truth, A, b, c, mask)
    old = TOLERANCE["error"]
    try:
        TOLERANCE["error"] = 1e-14
        rays = np.bincount(items.rule, weights=items.weight * exact._two_d(items, "error", np.inf))
    finally:
        TOLERANCE["error"] = old
    np.testing.assert_allclose(got, rays, rtol=0, atol=1e-13)


def test_the_pure_python_line_functions_are_the_compiled_ones():
    rng = np.random.default_rng(4)
    for a, b, c in rng.normal(size=(50, 3)) * 3:
        for positive in (True, False):
            assert compiled.line_mass.py_func(a, b, c, positive) == compiled.line_mass(a, b, c, positive)
        assert compiled.ndtr.py_func(a) == compiled.ndtr(a)
        lo, hi = sorted((b, c))
        assert compiled.normal_mass.py_func(lo, hi) == compiled.normal_mass(lo, hi)
    items = two_class_items(5, 3, 3, 2)
    j, i = np.argsort(~items.present, axis=1, kind="stable")[:, :2].T
    rows = np.arange(items.label.size)
    label = np.where(items.label == i, 1, np.where(items.label == j, 0, -1)).astype(np.int64)
    args = (np.ascontiguousarray(items.alpha[rows, i] - items.alpha[rows, j]),
            np.ascontiguousarray(items.beta[rows, i] - items.beta[rows, j]),
            np.ascontiguousarray(items.gamma[rows, i] - items.gamma[rows, j]), label, exact.LINE_GRID,
            exact.LINE_GAP, exact.LINE_LIMIT, TOLERANCE["lines"], _quadrature.NODES, _quadrature.KRONROD,
            _quadrature.GAUSS, exact._ROUNDING, exact._NEGLIGIBLE, exact._MAX_ROUNDS)
    np.testing.assert_array_equal(compiled.pair_line_errors.py_func(*args, np.empty(rows.size)),
                                  compiled.pair_line_errors(*args, np.empty(rows.size)))
