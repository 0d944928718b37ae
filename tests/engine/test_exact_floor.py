"""The floored log loss of three-class rules (:func:`mri_theory.engine.exact.log_losses` with ``floor``) against
an independent reference, early in a learning curve.

With three classes the cap :math:`\\min(-\\ln p_y, -\\ln\\text{floor})` has its kink on the curve
:math:`-\\ln p_y = \\text{cap}`, which is not a conic where two wrong classes compete: the rules below are the
ones that showed it (each off by 5e-11 to 9e-7 before the exact path split its integrals there).

The reference is written here from the definitions and shares no code with the module.  For one Gaussian
component :math:`N(\\mu, \\Sigma)` it integrates :math:`\\min(-\\ln\\operatorname{softmax}(s(x))_y, \\text{cap})`
in polar coordinates :math:`x = \\mu + r L u(\\theta)` (``L`` the Cholesky factor of :math:`\\Sigma`):

* along each ray the kinks (roots of :math:`-\\ln p_y - \\text{cap}`) are found on a grid of 300 radii refined at
  the extrema of :math:`-\\ln p_y` (roots of its derivative, by bisection), then by bisection; the ray is cut
  there and at every pairwise crossing and vertex of the score differences, each piece is either capped (closed
  form) or integrated by Gauss-Legendre (20 points) compared with its two halves and bisected until they agree
  to 1e-15 per unit radius (or to 1e-14 relative, or to the rounding of the score differences, 4e-16 times the
  size of their terms: rules with classes of one point have terms of 1e4);
* over the angle, the integrand is cut where the number of kinks on a ray changes (a ray tangent to the kink
  curve: sampled at 1,024 angles, then bisected on the count) and where a pair's discriminant or leading
  coefficient changes sign (sampled, bisected), and integrated the same way (10 points, tolerance 1e-13) after
  the substitution :math:`\\theta = \\theta_0 + w(3s^2 - 2s^3)` on each panel.

Beyond radius 10 the mass is :math:`e^{-50}`.  The reference reproduces itself with tighter settings
(tolerances a hundred times smaller, 30-point rules, 4,096 angles) to 2e-13 on these rules (1e-14 but for the
anisotropic one), agrees to 1e-13 with a second, slower reference written before it (graded Gauss-Legendre
meshes instead of bisection), and raises if a quadrature does not converge.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mri_theory.classifiers import LDA, QDA, GaussianNaiveBayes, LogisticRegression
from mri_theory.engine.exact import MixtureTruth, log_losses
from mri_theory.engine.losses import LOG_LOSS_FLOOR
from mri_theory.problems import GaussianMixtureProblem, get_problem

CAP = -math.log(LOG_LOSS_FLOOR)
R_MAX = 10.0
TOL = 1e-11  # the documented accuracy of the exact log loss


# -- the reference (independent of the module) ----------------------------------------------------------------


def _along(mu, S, A, b, c, theta):
    """Coefficients ``(T, k)`` of the scores along rays: :math:`s_j(\\mu + r L u) = a_2 r^2 + a_1 r + a_0`."""
    L = np.linalg.cholesky(S)
    v = np.stack([np.cos(theta), np.sin(theta)], axis=-1) @ L.T
    a2 = -0.5 * np.einsum("ti,kij,tj->tk", v, A, v)
    a1 = v @ b.T - np.einsum("ti,kij,j->tk", v, A, mu)
    a0 = np.broadcast_to(c + b @ mu - 0.5 * np.einsum("i,kij,j->k", mu, A, mu), a2.shape)
    return a2, a1, a0


def _nll(a2, a1, a0, y, r):
    """:math:`-\\ln p_y` and its derivative in ``r`` at radii ``r (...)``, from the differences :math:`s_j - s_y`."""
    r = r[..., None]
    d2, d1, d0 = (v - v[..., y:y + 1] for v in (a2, a1, a0))
    d = (d2 * r + d1) * r + d0
    slope = 2 * d2 * r + d1
    top = d.max(axis=-1, keepdims=True)
    e = np.exp(d - top)
    z = e.sum(axis=-1)
    return top[..., 0] + np.log(z), np.sum(e * slope, axis=-1) / z


def _bisect(fun, lo, hi, iters=64):
    """A sign change of ``fun`` in each ``[lo, hi]``."""
    sign_lo = np.sign(fun(lo))
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        left = np.sign(fun(mid)) == sign_lo
        lo, hi = np.where(left, mid, lo), np.where(left, hi, mid)
    return 0.5 * (lo + hi)


def _kinks(a2, a1, a0, y, grid=300):
    """``(ray, radius)`` of the roots of :math:`-\\ln p_y - \\text{cap}` in ``(0, R_MAX)``."""
    T = a2.shape[0]
    rg = np.broadcast_to(np.linspace(0.0, R_MAX, grid + 1), (T, grid + 1))
    h, dh = _nll(a2[:, None], a1[:, None], a0[:, None], y, rg)
    ray, cell = np.nonzero(np.sign(dh[:, :-1]) * np.sign(dh[:, 1:]) < 0)
    ext = _bisect(lambda r: _nll(a2[ray], a1[ray], a0[ray], y, r)[1], rg[ray, cell], rg[ray, cell + 1])
    r_all = np.concatenate([rg.ravel(), ext])
    h_all = np.concatenate([h.ravel(), _nll(a2[ray], a1[ray], a0[ray], y, ext)[0]]) - CAP
    ray_all = np.concatenate([np.repeat(np.arange(T), grid + 1), ray])
    order = np.lexsort((r_all, ray_all))
    r_all, h_all, ray_all = r_all[order], h_all[order], ray_all[order]
    idx = np.nonzero((ray_all[:-1] == ray_all[1:]) & (np.sign(h_all[:-1]) * np.sign(h_all[1:]) < 0))[0]
    rr = ray_all[idx]
    return rr, _bisect(lambda r: _nll(a2[rr], a1[rr], a0[rr], y, r)[0] - CAP, r_all[idx], r_all[idx + 1])


def _pair_points(a2, a1, a0):
    """Radii ``(T, 3P)`` in ``(0, R_MAX)`` (NaN elsewhere) of every pairwise crossing and difference's vertex."""
    k = a2.shape[1]
    out = []
    with np.errstate(all="ignore"):
        for j in range(k):
            for i in range(j + 1, k):
                p2, p1, p0 = a2[:, j] - a2[:, i], a1[:, j] - a1[:, i], a0[:, j] - a0[:, i]
                disc = p1 * p1 - 4 * p2 * p0
                q = -0.5 * (p1 + np.where(p1 >= 0, 1.0, -1.0) * np.sqrt(np.where(disc >= 0, disc, np.nan)))
                out += [np.where(p2 != 0, q / p2, -p0 / p1), np.where(p2 != 0, p0 / q, np.nan), -p1 / (2 * p2)]
    out = np.stack(out, axis=1)
    return np.where((out > 0) & (out < R_MAX), out, np.nan)


def _adaptive(fun, lo, hi, tol, n=10, rounds=50, noise=None):
    """Integrals over ``[lo, hi]`` of ``fun(task, x)``: Gauss-Legendre compared with its two halves, bisected
    until they agree to ``tol`` per unit length, to 1e-14 relative or to ``noise[task]`` per unit length (the
    rounding of the integrand); raises if that takes more than ``rounds`` bisections or 200,000 open intervals."""
    x, w = np.polynomial.legendre.leggauss(n)
    x, w = 0.5 * (x + 1.0), 0.5 * w
    task = np.arange(lo.size)
    total = np.zeros(lo.size)
    noise = np.zeros(lo.size) if noise is None else noise

    def rule(t, a, b):
        return (b - a) * (fun(t, a[:, None] + (b - a)[:, None] * x) @ w)

    whole = rule(task, lo, hi)
    for _ in range(rounds):
        if task.size == 0:
            return total
        if task.size > 200_000:  # not converging: stop before the memory runs out
            break
        mid = 0.5 * (lo + hi)
        left, right = rule(task, lo, mid), rule(task, mid, hi)
        bound = np.maximum(np.maximum(tol, noise[task]) * (hi - lo), 1e-14 * np.abs(left + right))
        done = (np.abs(left + right - whole) <= bound) | (hi - lo <= 1e-10 * (1.0 + np.abs(lo)))
        np.add.at(total, task[done], (left + right)[done])
        keep = ~done
        task = np.concatenate([task[keep], task[keep]])
        lo, hi = np.concatenate([lo[keep], mid[keep]]), np.concatenate([mid[keep], hi[keep]])
        whole = np.concatenate([left[keep], right[keep]])
    raise RuntimeError(f"the reference quadrature did not converge on {task.size} intervals")


def _radial(a2, a1, a0, y):
    """Per ray: :math:`\\int_0^{R} \\min(-\\ln p_y, \\text{cap})\\, r e^{-r^2/2}\\, dr`."""
    T = a2.shape[0]
    kray, kr = _kinks(a2, a1, a0, y)
    pts = _pair_points(a2, a1, a0)
    pray, pcol = np.nonzero(np.isfinite(pts))
    ray = np.concatenate([np.arange(T), np.arange(T), kray, pray])
    r = np.concatenate([np.zeros(T), np.full(T, R_MAX), kr, pts[pray, pcol]])
    order = np.lexsort((r, ray))
    ray, r = ray[order], r[order]
    same = (ray[:-1] == ray[1:]) & (r[1:] > r[:-1])
    lo, hi, piece = r[:-1][same], r[1:][same], ray[:-1][same]
    capped = _nll(a2[piece], a1[piece], a0[piece], y, 0.5 * (lo + hi))[0] >= CAP
    out = np.zeros(T)
    np.add.at(out, piece[capped], CAP * (np.exp(-0.5 * lo[capped] ** 2) - np.exp(-0.5 * hi[capped] ** 2)))
    piece, lo, hi = piece[~capped], lo[~capped], hi[~capped]

    def f(task, rr):
        p = piece[task][:, None]
        return _nll(a2[p], a1[p], a0[p], y, rr)[0] * rr * np.exp(-0.5 * rr * rr)

    # the rounding of -ln p_y: that of the score differences, about eps times their terms' size
    size = np.max(np.abs(a2[piece] - a2[piece, y:y + 1]) * hi[:, None] ** 2
                  + np.abs(a1[piece] - a1[piece, y:y + 1]) * hi[:, None] + np.abs(a0[piece] - a0[piece, y:y + 1]),
                  axis=1)
    np.add.at(out, piece, _adaptive(f, lo, hi, 1e-15, n=20, noise=4e-16 * size))
    return out


def reference_component_loss(mu, S, y, A, b, c, n_angles=1024):
    """:math:`E_{x \\sim N(\\mu, \\Sigma)}[\\min(-\\ln\\operatorname{softmax}(s(x))_y, \\text{cap})]`,
    :math:`s_j(x) = -\\tfrac12 x^T A_j x + b_j^T x + c_j` (see the module notes)."""
    def count(theta):
        return np.bincount(_kinks(*_along(mu, S, A, b, c, theta), y)[0], minlength=theta.size)

    def pair_forms(theta):
        a2, a1, a0 = _along(mu, S, A, b, c, theta)
        k = a2.shape[1]
        cols = [f for j in range(k) for i in range(j + 1, k) for f in (
            (a1[:, j] - a1[:, i]) ** 2 - 4 * (a2[:, j] - a2[:, i]) * (a0[:, j] - a0[:, i]), a2[:, j] - a2[:, i])]
        return np.stack(cols, axis=1)

    th = np.linspace(0, 2 * np.pi, n_angles + 1)
    n_kinks = count(th)
    i = np.nonzero(n_kinks[:-1] != n_kinks[1:])[0]
    lo, hi, n_lo = th[i], th[i + 1], n_kinks[i]
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        left = count(mid) == n_lo
        lo, hi = np.where(left, mid, lo), np.where(left, hi, mid)
    tangents = 0.5 * (lo + hi)
    forms = pair_forms(th)
    i, col = np.nonzero(np.sign(forms[:-1]) * np.sign(forms[1:]) < 0)
    zeros = _bisect(lambda t: pair_forms(t)[np.arange(t.size), col], th[i], th[i + 1], 55)
    breaks = np.unique(np.concatenate([np.linspace(0, 2 * np.pi, 17), tangents, zeros]))
    t0, t1 = breaks[:-1], breaks[1:]

    def f(task, s):
        a, w = t0[task][:, None], (t1 - t0)[task][:, None]
        theta = a + w * s * s * (3 - 2 * s)
        values = _radial(*_along(mu, S, A, b, c, theta.ravel()), y).reshape(theta.shape)
        return values * w * 6 * s * (1 - s) / (2 * np.pi)

    return float(np.sum(_adaptive(f, np.zeros(t0.size), np.ones(t0.size), 1e-13)))


# -- the rules ------------------------------------------------------------------------------------------------------


def _anisotropic_problem() -> GaussianMixtureProblem:
    """Three classes: a two-component mixture, an elongated Gaussian and a small round one."""
    return GaussianMixtureProblem("anisotropic-three", [
        ([0.6, 0.4], [[0.0, 1.0], [1.2, 0.2]], [[[0.3, 0.1], [0.1, 0.2]], [[0.1, 0.0], [0.0, 0.4]]]),
        ([1.0], [[-1.0, -0.3]], [[[0.5, -0.2], [-0.2, 0.2]]]),
        ([1.0], [[0.8, -1.0]], [[[0.15, 0.0], [0.0, 0.15]]]),
    ], [0.3, 0.3, 0.4])


def _rule(problem, classifier, n: int, seed: int):
    """The rule of ``classifier`` fitted on ``n`` points (``default_rng(seed)``), its truth in the model's frame."""
    X, y = problem.sample(n, np.random.default_rng(seed))
    model = classifier().fit(X, y, problem.n_classes)
    k, d = problem.n_classes, problem.dim
    if isinstance(model, LogisticRegression):
        A, b, c = np.zeros((k, d, d)), np.zeros((k, d)), np.zeros(k)
        b[model.present_], c[model.present_] = model.theta_[:, :-1], model.theta_[:, -1]
        present = np.isin(np.arange(k), model.present_)
    else:
        present = model.counts_ > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            A, b, c = (v[0] for v in model._coefficients(model.counts_[None], model.means_[None],
                                                         model.scatters_[None]))
    truth = MixtureTruth.from_problem(problem).in_frame(model.origin_, model.scale_)
    return truth, A, b, c, present


# (problem, classifier, |D_S|, seed, component): the kink inside a radial segment (old error 1e-7 to 9e-7), the
# rounded corner of a linear rule (5e-11), a ray nearly tangent to the kink curve (2e-9), a triple point next to
# a tangent ray (2e-10), and a logistic regression (right before as well)
CASES = [
    ("three-gaussians", LDA, 5, 102, 1),
    ("three-gaussians", GaussianNaiveBayes, 10, 100, 1),
    ("three-gaussians", QDA, 10, 101, 0),
    ("three-gaussians", QDA, 3, 100, 0),
    ("three-gaussians", QDA, 10, 100, 1),
    ("anisotropic-three", QDA, 6, 200, 0),
    ("three-gaussians", LogisticRegression, 5, 303, 0),
]


@pytest.mark.parametrize("problem_name,classifier,n,seed,component", CASES,
                         ids=[f"{p}-{c.__name__}-{n}-{s}-{i}" for p, c, n, s, i in CASES])
def test_floored_three_class_log_loss_matches_the_reference(problem_name, classifier, n, seed, component):
    problem = _anisotropic_problem() if problem_name == "anisotropic-three" else get_problem(problem_name)
    truth, A, b, c, present = _rule(problem, classifier, n, seed)
    assert present.all()  # three present classes: the case of the kink curve
    i = component
    one = MixtureTruth.from_arrays([1.0], truth.means[i:i + 1], truth.covariances[i:i + 1], truth.labels[i:i + 1],
                                   problem.n_classes)
    exact = log_losses(one, A[None], b[None], c[None], present[None], floor=LOG_LOSS_FLOOR)[0]
    expected = reference_component_loss(truth.means[i], truth.covariances[i], int(truth.labels[i]), A, b, c)
    assert abs(exact - expected) <= TOL, (exact, expected)


def test_the_cap_bites_in_the_cases():
    """The cases are about the floor: without it every one of their losses is larger."""
    for problem_name, classifier, n, seed, component in CASES[:5]:
        truth, A, b, c, present = _rule(get_problem(problem_name), classifier, n, seed)
        i = component
        one = MixtureTruth.from_arrays([1.0], truth.means[i:i + 1], truth.covariances[i:i + 1],
                                       truth.labels[i:i + 1], 3)
        floored = log_losses(one, A[None], b[None], c[None], present[None], floor=LOG_LOSS_FLOOR)[0]
        assert log_losses(one, A[None], b[None], c[None], present[None])[0] > floored + 1e-6


def test_a_whole_rule_is_the_weighted_sum_of_its_components():
    """The mixture's loss from :func:`log_losses` equals the weighted reference over its components."""
    truth, A, b, c, present = _rule(get_problem("three-gaussians"), GaussianNaiveBayes, 5, 101)
    expected = sum(w * reference_component_loss(mu, S, int(y), A, b, c)
                   for w, mu, S, y in zip(truth.weights, truth.means, truth.covariances, truth.labels, strict=True))
    exact = log_losses(truth, A[None], b[None], c[None], present[None], floor=LOG_LOSS_FLOOR)[0]
    assert abs(exact - expected) <= TOL
