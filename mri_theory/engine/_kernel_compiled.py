r"""The exact error rate of RBF-kernel score rules on Gaussian mixtures, compiled by numba.

Imported by :mod:`mri_theory.engine.kernel_rules` on first use (this module imports numba; the engine imports
without it).  Its functions compile on their first call and are cached on disk next to this module when it can
be.  :mod:`mri_theory.engine.kernel_rules` states the method and its accuracy; here, what each piece does.

A rule has ``kp`` present classes with scores :math:`s_j(x) = \sum_i S_{ji}\,(K(x, p_i) - 1) + c_j`,
:math:`K(x, p) = e^{-\gamma |x - p|^2}`, and predicts the present class of the largest score (ties: the
lowest, a set of measure zero).  Everything is in terms of the pair functions :math:`g_{ab} = s_b - s_a`.

* :func:`scores_on_line`, :func:`curved_scores_on_line` -- the scores and their first (and second)
  derivatives along a vertical line ``x_1 = const``; a kernel term is ``K - 1`` by ``expm1`` near its point and
  ``K`` with its ``-1`` summed into the constant far from it (the relative accuracy of a far, tiny ``K``);
* :func:`line_third_bounds` -- rigorous bounds, over a cell ``[u, v]`` of that line, of each pair function's
  third derivative (each kernel term's bound at its point's distance from the cell);
* :func:`isolate_roots` -- every sign change of a pair function on an interval, certified by Taylor's theorem
  about each cell's middle: a cell is dropped only when the bound proves it root-free, a root is solved (safeguarded
  Newton) only in a cell where the derivative is proved non-zero, and every other cell is bisected, down to
  ``MIN_CELL`` kernel widths, where it is left *unresolved* (its mass bound is returned);
* :func:`line_error` -- the predicted class along a line between the breakpoints, and the mass of each
  component's wrong classes (differences of the normal CDF of its conditional law); within a panel, two-class
  roots are continued from the previous lines and checked (:func:`_continued`; a panel's window edges certified
  free of roots by :func:`edge_free`), else isolated;
* :func:`events` -- where the outer integrand has kinks: a quadtree over the plane keeps the cells where
  Taylor's bounds (the Hessian and third-derivative norms of the kernel terms at their distance from the cell)
  exclude neither a vertical tangency of a pair's boundary (:math:`g = \partial_2 g = 0`) nor, with three or
  more present classes, a point where three classes meet (:math:`g_{ab} = g_{ac} = 0`); Newton's method
  solves the events of each cell left at the finest size, and a cell where it finds none gives a cut at its
  middle (at most ``MAX_EVENT_CELLS`` cells are refined); each such cell's range of :math:`x_1` is a band
  (:func:`add_band`) whose panels isolate every line (:func:`panel_edges`); a two-class cell where the tangency
  equations are proved one-to-one is solved at once (:func:`_single_tangency`);
* :func:`line_log` -- the floored log loss's line integrand of a two-class rule (cut where a class's loss
  reaches the cap, the uncapped pieces by adaptive Gauss-Kronrod);
* :func:`rule_losses` -- the error rate or log loss of many rules: 1-D, one line; 2-D, the outer integral over
  :math:`x_1` split at the events, each panel integrated by adaptive Gauss-Kronrod (7-15 points, QUADPACK's
  error estimate) after the substitution :math:`x_1 = a + (b - a)(3s^2 - 2s^3)`, which makes the square-root
  behaviour at an event analytic, starting from pieces cut where the components' densities change scale.
"""

from __future__ import annotations

import math

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True)
#: For the functions that allocate no array and call none that does: compiled without the runtime's reference
#: counts (``_nrt=False``), since a call of a compiled function otherwise updates each array argument's count
#: twice, atomically, which cost a quarter of the lines' time.  A function that allocates may not be called from
#: one of these (it would be compiled without the runtime too).
lean_jit = numba.njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]  # an option the stubs omit

_RSQRT2 = 0.7071067811865476
_INV_SQRT_2PI = 0.3989422804014327
#: a cell narrower than this (times the kernel's width) is left unresolved (its width is reported)
MIN_CELL = 1e-13
#: quadtree cells whose half-diagonal is below this (times the kernel's width) are solved by Newton's method
EVENT_CELL = 1e-6
#: two events nearer than this (times the kernel's width) are one (the quadtree's duplicates); any two farther
#: apart are both panel edges, since the number of roots on a line may change at each (a panel holding an event
#: would continue the wrong number of roots past it)
SAME_EVENT = 1e-9
#: components are integrated over this many standard deviations each way (the mass beyond: 2e-21)
REACH = 9.5
_NEWTON_STEPS = 40
#: the quadtree refines at most this many cells; the cells open then are cut at their centres
MAX_EVENT_CELLS = 200_000


@lean_jit
def normal_mass(a: float, b: float) -> float:  # pragma: no cover - compiled by numba
    """:math:`\\Phi(b) - \\Phi(a)` for ``a <= b``, from the tail on the side of the interval (accurate in tails)."""
    if a >= 0.0:
        return 0.5 * (math.erfc(a * _RSQRT2) - math.erfc(b * _RSQRT2))
    if b <= 0.0:
        return 0.5 * (math.erfc(-b * _RSQRT2) - math.erfc(-a * _RSQRT2))
    return 1.0 - 0.5 * math.erfc(-a * _RSQRT2) - 0.5 * math.erfc(b * _RSQRT2)


@lean_jit
def scores_on_line(t, d1sq, q, S, c, gamma, values, slopes):  # pragma: no cover - compiled by numba
    r"""The scores ``values[j]`` and their derivatives ``slopes[j]`` in :math:`x_2` at :math:`x_2 = t` on the line
    whose squared first-coordinate distances to the points are ``d1sq`` (zeros in 1-D); ``q`` the points' last
    coordinates.  ``values`` has room for ``3 kp`` entries: the last ``2 kp`` hold the far terms' sums (no
    allocation per call)."""
    kp, n = S.shape
    for j in range(3 * kp):
        values[j] = 0.0
    for j in range(kp):
        slopes[j] = 0.0
    for i in range(n):
        d2 = t - q[i]
        x = gamma * (d1sq[i] + d2 * d2)
        if x < 1.0:  # K - 1 by expm1: its relative accuracy near the point
            em1 = math.expm1(-x)
            dk = -2.0 * gamma * d2 * (em1 + 1.0)
            for j in range(kp):
                values[j] += S[j, i] * em1
                slopes[j] += S[j, i] * dk
        else:  # K itself, its -1 summed with the constant: the relative accuracy of a far, tiny K
            k = math.exp(-x)
            dk = -2.0 * gamma * d2 * k
            for j in range(kp):
                values[kp + j] += S[j, i] * k
                values[2 * kp + j] += S[j, i]
                slopes[j] += S[j, i] * dk
    for j in range(kp):
        values[j] = (c[j] - values[2 * kp + j]) + (values[j] + values[kp + j])


@lean_jit
def curved_scores_on_line(t, d1sq, q, S, c, gamma, values, slopes, curves):  # pragma: no cover - compiled by numba
    """:func:`scores_on_line` with the second derivatives ``curves[j]`` in :math:`x_2` too."""
    kp, n = S.shape
    for j in range(3 * kp):
        values[j] = 0.0
    for j in range(kp):
        slopes[j] = 0.0
        curves[j] = 0.0
    for i in range(n):
        d2 = t - q[i]
        x = gamma * (d1sq[i] + d2 * d2)
        near = x < 1.0
        em1 = math.expm1(-x) if near else 0.0
        k = em1 + 1.0 if near else math.exp(-x)
        dk = -2.0 * gamma * d2 * k
        ddk = (4.0 * gamma * gamma * d2 * d2 - 2.0 * gamma) * k
        for j in range(kp):
            if near:
                values[j] += S[j, i] * em1
            else:
                values[kp + j] += S[j, i] * k
                values[2 * kp + j] += S[j, i]
            slopes[j] += S[j, i] * dk
            curves[j] += S[j, i] * ddk
    for j in range(kp):
        values[j] = (c[j] - values[2 * kp + j]) + (values[j] + values[kp + j])


@lean_jit
def _third_bound(x):  # pragma: no cover - compiled by numba
    r"""A bound, per unit coefficient and :math:`\gamma^{3/2}`, of :math:`|\partial_t^3 e^{-\gamma t^2}|` at
    :math:`\sqrt\gamma |t| \ge v` with ``x`` :math:`= v^2`: :math:`(12v - 8v^3)e^{-v^2}` is at most 3.9 in absolute
    value, and decreasing in absolute value beyond :math:`v^2 = 2.725`."""
    if x < 2.725:
        return 3.9
    v = math.sqrt(x)
    return (8.0 * x * v - 12.0 * v) * math.exp(-x)


@lean_jit
def line_third_bounds(u, v, d1w, q, AD, gamma, out):  # pragma: no cover - compiled by numba
    r"""Bounds of each pair function's third derivative along the line on the cell ``[u, v]`` (each term's at its
    point's distance from the cell; ``d1w[i]`` :math:`= e^{-\gamma d_{1i}^2}` the line's factor of point ``i``)."""
    npairs, n = AD.shape
    g15 = gamma * math.sqrt(gamma)
    for p in range(npairs):
        out[p] = 0.0
    for i in range(n):
        if d1w[i] == 0.0:
            continue
        rho = u - q[i] if q[i] < u else (q[i] - v if q[i] > v else 0.0)
        b3 = d1w[i] * g15 * _third_bound(gamma * rho * rho)
        for p in range(npairs):
            out[p] += AD[p, i] * b3


@lean_jit
def _largest_density(u, v, line_mu, line_sd, line_dens):  # pragma: no cover - compiled by numba
    """The components' largest joint density on the cell ``[u, v]`` of the line (each at its nearest point)."""
    total = 0.0
    for cc in range(line_mu.size):
        if line_dens[cc] == 0.0:
            continue
        mu = line_mu[cc]
        near = u if mu < u else (v if mu > v else mu)
        z = (near - mu) / line_sd[cc]
        total += line_dens[cc] * math.exp(-0.5 * z * z) * _INV_SQRT_2PI / line_sd[cc]
    return total


@_jit
def isolate_roots(pair, a_idx, b_idx, lo, hi, d1sq, d1w, q, S, c, AD, gamma, width,
                  line_mu, line_sd, line_dens, roots, n_roots, scratch_v, scratch_s,
                  bounds):  # pragma: no cover - compiled by numba
    r"""The sign changes of pair ``pair`` (:math:`g = s_b - s_a`) on ``[lo, hi]``, appended to ``roots`` from
    ``n_roots``; returns ``(count, unresolved mass)`` (module notes).

    Cells start at half the kernel's width ``width``.  With :math:`h` a cell's half-width and :math:`L_3` a bound
    of :math:`|g^{(3)}|` on it (first the line's, :math:`3.9\gamma^{3/2}\sum_i |S_{bi} - S_{ai}|
    e^{-\gamma d_{1i}^2}`, then each term's at its distance from the cell), Taylor's theorem about the middle
    :math:`m` proves the cell root-free where :math:`|g(m)| > |g'(m)| h + |g''(m)| h^2/2 + L_3 h^3/6`, and
    :math:`g` monotone where :math:`|g'(m)| > |g''(m)| h + L_3 h^2/2` (then a sign change at the ends is one
    simple root, solved by safeguarded Newton); other cells are bisected, down to ``MIN_CELL`` kernel widths,
    where they are left unresolved (their mass bound: the width times the components' largest density in the
    cell, from their conditional means ``line_mu``, deviations ``line_sd`` and line weights ``line_dens``).  A
    cell where :math:`g` and its two derivatives are 0 as computed is a tie (the lowest class predicted) and
    unresolved.  ``bounds`` is a scratch array of the pairs' size.
    """
    cells = max(1, int(math.ceil(2.0 * (hi - lo) / width)))
    cap = 4 * cells + 256
    stack_u, stack_v = np.empty(cap), np.empty(cap)
    step = (hi - lo) / cells
    top = 0
    for k in range(cells - 1, -1, -1):  # popped from the left
        stack_u[top] = lo + k * step
        stack_v[top] = hi if k == cells - 1 else lo + (k + 1) * step
        top += 1
    line_third = 0.0
    for i in range(AD.shape[1]):
        line_third += AD[pair, i] * d1w[i]
    line_third *= 3.9 * gamma * math.sqrt(gamma)
    curves = np.empty(scratch_v.size)
    min_cell = MIN_CELL * width
    unresolved = 0.0
    count = 0
    while top > 0:
        top -= 1
        u, v = stack_u[top], stack_v[top]
        h = 0.5 * (v - u)
        mid = u + h
        curved_scores_on_line(mid, d1sq, q, S, c, gamma, scratch_v, scratch_s, curves)
        g = scratch_v[b_idx] - scratch_v[a_idx]
        g1 = scratch_s[b_idx] - scratch_s[a_idx]
        g2 = curves[b_idx] - curves[a_idx]
        if g == 0.0 and g1 == 0.0 and g2 == 0.0:  # identically 0 as computed: a tie
            unresolved += 2.0 * h * _largest_density(u, v, line_mu, line_sd, line_dens)
            continue
        decided = 0  # 1: root-free, 2: monotone
        for attempt in range(2):
            if attempt == 0:
                bound = line_third
            else:
                line_third_bounds(u, v, d1w, q, AD, gamma, bounds)
                bound = bounds[pair]
            if abs(g) > abs(g1) * h + abs(g2) * h * h / 2.0 + bound * h * h * h / 6.0:
                decided = 1
                break
            if abs(g1) > abs(g2) * h + bound * h * h / 2.0:
                decided = 2
                break
        if decided == 1:
            continue
        if decided == 2 or 2.0 * h <= min_cell or top + 2 > cap:
            scores_on_line(u, d1sq, q, S, c, gamma, scratch_v, scratch_s)
            gu = scratch_v[b_idx] - scratch_v[a_idx]
            scores_on_line(v, d1sq, q, S, c, gamma, scratch_v, scratch_s)
            gv = scratch_v[b_idx] - scratch_v[a_idx]
            if decided != 2:  # unresolved at the finest size: a sign change is put at the middle
                unresolved += 2.0 * h * _largest_density(u, v, line_mu, line_sd, line_dens)
                if (gu > 0.0) != (gv > 0.0) and n_roots + count < roots.size:
                    roots[n_roots + count] = mid
                    count += 1
                continue
            if gu == 0.0:  # a root at a cell's left end (its right end is the next cell's left end)
                if n_roots + count < roots.size:
                    roots[n_roots + count] = u
                    count += 1
                continue
            if gv == 0.0 or (gu > 0.0) == (gv > 0.0):
                continue  # monotone with equal signs at the ends: no root inside
            a, b, ga = u, v, gu
            x, gx, dx = mid, g, g1
            for _ in range(100):
                if gx == 0.0:
                    break
                if (gx > 0.0) == (ga > 0.0):
                    a, ga = x, gx
                else:
                    b = x
                step_x = x - gx / dx if dx != 0.0 else 0.5 * (a + b)
                if not (min(a, b) < step_x < max(a, b)):
                    step_x = 0.5 * (a + b)
                if abs(step_x - x) <= 4e-16 * max(1.0, abs(x)) or abs(b - a) <= 4e-16 * max(1.0, abs(a)):
                    x = step_x
                    break
                x = step_x
                scores_on_line(x, d1sq, q, S, c, gamma, scratch_v, scratch_s)
                gx = scratch_v[b_idx] - scratch_v[a_idx]
                dx = scratch_s[b_idx] - scratch_s[a_idx]
            if n_roots + count < roots.size:
                roots[n_roots + count] = x
                count += 1
            continue
        stack_u[top], stack_v[top] = mid, v  # the right half after the left
        top += 1
        stack_u[top], stack_v[top] = u, mid
        top += 1
    return count, unresolved


@lean_jit
def _continued(count, ref, ref_roots, prev_roots, x1, d1sq, q, S, c, gamma, lo, hi, roots, scratch_v,
               scratch_s):  # pragma: no cover - compiled by numba
    """Whether the reference line's ``count`` roots continue to this line ``x1`` (:func:`line_error`; ``ref`` its
    layout): each by Newton's method, kept within half the gap to its neighbours, a simple root whose slope has
    the sign that the alternation from the reference's first sign gives it; and, unless the panel's window edges
    are certified free of roots (``ref[6]``, :func:`edge_free`), the sign at the line's two ends as the roots
    say (a root that entered through an end flips it).  Between two events the boundary crosses every line of
    the panel the same number of times, so ``count`` distinct roots found are all of them.  The new roots are
    written to ``roots``.

    Newton's method starts from the linear extrapolation of the last two lines' roots (``prev_roots``, where
    ``ref[4]`` says they are of the same panel and count), and stops once its convergence is quadratic and the
    next step's size, :math:`|s_k|^3 / |s_{k-1}|^2`, is below ``4e-16`` relative (then that step is taken without
    another evaluation)."""
    first_sign = ref[2]
    sign = first_sign
    ref_x1, prev_x1 = ref[3], ref[5]
    extrapolate = ref[4] > 0.0 and prev_x1 != ref_x1
    rate = (x1 - ref_x1) / (ref_x1 - prev_x1) if extrapolate else 0.0
    for k in range(count):
        t = ref_roots[k]
        low = -np.inf if k == 0 else 0.5 * (ref_roots[k - 1] + t)
        high = np.inf if k == count - 1 else 0.5 * (t + ref_roots[k + 1])
        if extrapolate:
            guess = t + rate * (t - prev_roots[k])
            if low < guess < high:
                t = guess
        done = False
        slope = 0.0
        last_step = np.inf
        for _ in range(30):
            scores_on_line(t, d1sq, q, S, c, gamma, scratch_v, scratch_s)
            g, slope = scratch_v[1] - scratch_v[0], scratch_s[1] - scratch_s[0]
            if slope == 0.0:
                return False
            step = g / slope
            t_new = t - step
            if not (low < t_new < high):
                return False
            t = t_new
            size = abs(step)
            scale = 4e-16 * max(1.0, abs(t))
            if g == 0.0 or size <= scale or (last_step < np.inf and size <= 1e-3 * last_step
                                             and size * size * size <= scale * last_step * last_step):
                done = True
                break
            last_step = size
        # the root must change the sign from the interval before it (positive before: a negative slope)
        if not done or (slope > 0.0) == (sign > 0.0):
            return False
        roots[k] = t
        sign = -sign
        if k > 0 and not roots[k - 1] < roots[k]:
            return False
    if ref[6] > 0.0:
        return True
    return ends_agree(count, roots, first_sign, lo, hi, d1sq, q, S, c, gamma, scratch_v, scratch_s)


@lean_jit
def ends_agree(count, roots, first_sign, lo, hi, d1sq, q, S, c, gamma, scratch_v,
               scratch_s):  # pragma: no cover - compiled by numba
    """Whether the two-class pair function's sign at the line's ends ``lo`` and ``hi`` is the one its ``count``
    sorted ``roots`` and the sign ``first_sign`` of its first interval give (no root entered or left the line's
    range through an end)."""
    for end in (lo, hi):
        expected = first_sign
        for k in range(count):
            if roots[k] < end:
                expected = -expected
        scores_on_line(end, d1sq, q, S, c, gamma, scratch_v, scratch_s)
        g = scratch_v[1] - scratch_v[0]
        if g == 0.0 or (g > 0.0) != (expected > 0.0):
            return False
    return True


@_jit
def edge_free(y, A, B, points, S, c, AD, gamma, scratch_v, scratch_s, bounds):  # pragma: no cover - compiled
    r"""Whether the two-class pair function is certified free of sign changes on the horizontal segment
    :math:`x_2 = y`, :math:`A \le x_1 \le B` (a panel's window edge): :func:`isolate_roots` along it finds none
    and leaves no cell unresolved.  Then the sign at that end of every line of the panel is the same, and no
    root can enter a line through it."""
    n = points.shape[0]
    d1sq, d1w, q = np.empty(n), np.empty(n), np.empty(n)
    for i in range(n):
        d = y - points[i, 1]
        d1sq[i] = d * d
        d1w[i] = math.exp(-gamma * d * d)
        q[i] = points[i, 0]
    ones = np.ones(1)
    roots = np.empty(1)
    count, unresolved = isolate_roots(0, 0, 1, A, B, d1sq, d1w, q, S, c, AD, gamma, 1.0 / math.sqrt(gamma),
                                      np.zeros(1), ones, ones, roots, 0, scratch_v, scratch_s, bounds)
    return count == 0 and unresolved == 0.0


@lean_jit
def _wrong_mass(left, right, winner, comp_label, comp_sd, line_mu, line_dens):  # pragma: no cover - compiled by numba
    """The line's mass on ``[left, right]`` (ends may be infinite) of the components whose class is not
    ``winner``: their line weights times differences of the normal CDF of their conditional laws."""
    total = 0.0
    for cc in range(comp_label.size):
        if comp_label[cc] == winner or line_dens[cc] == 0.0:
            continue
        a = -np.inf if left == -np.inf else (left - line_mu[cc]) / comp_sd[cc]
        b = np.inf if right == np.inf else (right - line_mu[cc]) / comp_sd[cc]
        if a < b:
            total += line_dens[cc] * normal_mass(a, b)
    return total


@lean_jit
def two_class_mass(count, roots, first_sign, classes, comp_label, comp_sd, line_mu,
                    line_dens):  # pragma: no cover - compiled by numba
    """The wrong mass on a line of a two-class rule from its sorted roots and the sign of its first interval
    (class ``classes[1]`` where the pair function is positive)."""
    total = 0.0
    sign = first_sign
    for k in range(count + 1):
        left = -np.inf if k == 0 else roots[k - 1]
        right = np.inf if k == count else roots[k]
        total += _wrong_mass(left, right, classes[1] if sign > 0.0 else classes[0], comp_label, comp_sd, line_mu,
                             line_dens)
        sign = -sign
    return total


@lean_jit
def line_setup(x1, dim, points, gamma, comp_w, comp_m1, comp_s1, comp_m2, comp_slope, comp_sd, line_mu, line_dens,
                d1sq, d1w, window):  # pragma: no cover - compiled by numba
    """A line's components (their conditional means ``line_mu`` and weights ``line_dens``: :math:`w_c
    \\varphi_c(x_1)` in 2-D, 0 beyond ``REACH`` deviations; :math:`w_c` in 1-D), its points' squared distances
    ``d1sq`` (``d1w`` marked for :func:`_line_weights`) and its range ``(lo, hi)``: ``window`` in 2-D, the
    components' in 1-D; ``(inf, -inf)`` for a line that no component reaches."""
    lo, hi = np.inf, -np.inf
    active = 0
    for cc in range(comp_w.size):
        line_dens[cc] = 0.0
        if dim == 2:
            z1 = (x1 - comp_m1[cc]) / comp_s1[cc]
            if abs(z1) > REACH:
                continue
            line_dens[cc] = comp_w[cc] * math.exp(-0.5 * z1 * z1) * _INV_SQRT_2PI / comp_s1[cc]
            line_mu[cc] = comp_m2[cc] + comp_slope[cc] * (x1 - comp_m1[cc])
        else:
            line_dens[cc] = comp_w[cc]
            line_mu[cc] = comp_m2[cc]
        lo = min(lo, line_mu[cc] - REACH * comp_sd[cc])
        hi = max(hi, line_mu[cc] + REACH * comp_sd[cc])
        active += 1
    if active == 0:
        return np.inf, -np.inf
    if dim == 2:
        lo, hi = window[0], window[1]
    for i in range(points.shape[0]):
        if dim == 2:
            d = x1 - points[i, 0]
            d1sq[i] = d * d
            d1w[i] = -1.0  # not yet computed (:func:`_line_weights`)
        else:
            d1sq[i] = 0.0
            d1w[i] = 1.0
    return lo, hi


@lean_jit
def _line_weights(gamma, d1sq, d1w):  # pragma: no cover - compiled by numba
    r"""The line's factors :math:`e^{-\gamma d_{1i}^2}` of the points (for the bounds of :func:`isolate_roots`),
    computed only for a line whose roots are isolated."""
    if d1w.size > 0 and d1w[0] < 0.0:
        for i in range(d1sq.size):
            d1w[i] = math.exp(-gamma * d1sq[i])


@_jit
def line_error(x1, dim, points, S, c, AD, pa, pb, classes, gamma, comp_w, comp_m1, comp_s1, comp_m2,
               comp_slope, comp_sd, comp_label, work_roots, scratch_v, scratch_s, first, d1sq, d1w,
               line_mu, line_dens, ref, ref_roots, prev_roots, window):  # pragma: no cover - compiled by numba
    r"""The outer integrand at :math:`x_1` (2-D: :math:`\sum_c w_c \varphi_c(x_1) P_c(\text{wrong} \mid x_1)`;
    1-D: the error itself) and the same integrand of the unresolved mass (:func:`isolate_roots`).

    ``ref`` = ``(valid, count, sign of the first interval, its x_1, previous valid, previous x_1, edges free)``
    with ``ref_roots`` (and ``prev_roots``) describe the last line (and the one before) of the same panel (no
    event between them: the boundary crosses every line of the panel the same number of times, in the same
    order); ``edges free`` is set per panel by :func:`rule_losses` (:func:`edge_free`).  With two present
    classes the roots are continued to this line (:func:`_continued`); otherwise, or if that fails, the line's
    roots are isolated (certified).  This line then becomes the reference.
    """
    kp = S.shape[0]
    npairs = AD.shape[0]
    width = 1.0 / math.sqrt(gamma)
    lo, hi = line_setup(x1, dim, points, gamma, comp_w, comp_m1, comp_s1, comp_m2, comp_slope, comp_sd, line_mu,
                         line_dens, d1sq, d1w, window)
    if not lo < hi:
        return 0.0, 0.0
    q = points[:, dim - 1]
    count = 0
    unresolved = 0.0
    if kp == 2 and ref[0] > 0.0:
        count = int(ref[1])
        if _continued(count, ref, ref_roots, prev_roots, x1, d1sq, q, S, c, gamma, lo, hi, work_roots, scratch_v,
                      scratch_s):
            total = two_class_mass(count, work_roots, ref[2], classes, comp_label, comp_sd, line_mu, line_dens)
            for k in range(count):
                prev_roots[k] = ref_roots[k]
                ref_roots[k] = work_roots[k]
            ref[4], ref[5], ref[3] = 1.0, ref[3], x1
            return total, 0.0
        count = 0
    _line_weights(gamma, d1sq, d1w)
    if kp >= 2:
        for p in range(npairs):
            k, u = isolate_roots(p, pa[p], pb[p], lo, hi, d1sq, d1w, q, S, c, AD, gamma, width,
                                 line_mu, comp_sd, line_dens, work_roots, count, scratch_v, scratch_s, first)
            count += k
            unresolved += u
    breaks = np.sort(work_roots[:count])
    # the class of each interval between breakpoints (and beyond them): the argmax at its middle
    total = 0.0
    nint = count + 1
    if kp == 2:  # the new reference of the panel's later lines
        ref[0], ref[1], ref[3], ref[4] = 1.0, float(count), x1, 0.0
        for k in range(count):
            ref_roots[k] = breaks[k]
    for k in range(nint):
        left = -np.inf if k == 0 else breaks[k - 1]
        right = np.inf if k == count else breaks[k]
        if kp == 1:
            winner = classes[0]
        else:
            if count == 0:
                t = 0.5 * (lo + hi)
            elif k == 0:
                t = 0.5 * (lo + breaks[0])
            elif k == count:
                t = 0.5 * (breaks[count - 1] + hi)
            else:
                t = 0.5 * (left + right)
            scores_on_line(t, d1sq, q, S, c, gamma, scratch_v, scratch_s)
            best = 0
            for j in range(1, kp):
                if scratch_v[j] > scratch_v[best]:
                    best = j
            winner = classes[best]
            if kp == 2 and k == 0:
                ref[2] = 1.0 if scratch_v[1] - scratch_v[0] > 0.0 else -1.0
        total += _wrong_mass(left, right, winner, comp_label, comp_sd, line_mu, line_dens)
    return total, unresolved


@lean_jit
def kronrod_panel(values, half, kronrod, gauss):  # pragma: no cover - compiled by numba
    """A panel's Gauss-Kronrod integral from its ``values`` at the rule's nodes (half-width ``half``; the 15-31
    rule of :mod:`mri_theory.engine._quadrature` or any other with its Gauss weights among the Kronrod ones) and
    QUADPACK's error estimate: the Kronrod-Gauss difference scaled by the integrand's variation."""
    kron, gs, absum = 0.0, 0.0, 0.0
    for i in range(values.size):
        kron += kronrod[i] * values[i]
        gs += gauss[i] * values[i]
    kron *= half
    gs *= half
    mean = kron / (2.0 * half)
    for i in range(values.size):
        absum += kronrod[i] * abs(values[i] - mean)
    absum *= half
    diff = abs(kron - gs)
    err = diff
    if absum > 0.0 and diff > 0.0:
        err = absum * min(1.0, (200.0 * diff / absum) ** 1.5)
    return kron, err


@lean_jit
def _softplus(x):  # pragma: no cover - compiled by numba
    """:math:`\\ln(1 + e^x)` without overflow."""
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


@_jit
def line_log(x1, dim, points, S, c, c_up, c_down, AD, classes, gamma, cap, ell, comp_w, comp_m1, comp_s1,
             comp_m2, comp_slope, comp_sd, comp_label, work_roots, scratch_v, scratch_s, first, d1sq, d1w, line_mu,
             line_dens, window, nodes, kronrod, gauss, tol):  # pragma: no cover - compiled by numba
    r"""The outer integrand of the floored log loss of a two-class rule at :math:`x_1`: each component's
    :math:`\int \min(-\ln \hat p_{y_c}, \text{cap})\,\varphi_c`, with :math:`\hat p_{c_1} = \sigma(g)` of the
    score difference :math:`g = s_1 - s_0`, weighted as in :func:`line_error`; and the unresolved mass.

    The integrand is smooth but where :math:`-\ln \hat p_y` reaches the cap, :math:`g = \pm\ell`
    (:math:`\ell = \ln(e^{\text{cap}} - 1)`), so the line is cut at the certified sign changes of
    :math:`g \mp \ell` (:func:`isolate_roots` with the constants ``c_up``, ``c_down``); a piece where a class's
    loss is capped contributes the cap times its mass (closed form), the others are integrated by adaptive
    Gauss-Kronrod (tolerance ``tol`` per unit length)."""
    width = 1.0 / math.sqrt(gamma)
    C = comp_w.size
    lo, hi = line_setup(x1, dim, points, gamma, comp_w, comp_m1, comp_s1, comp_m2, comp_slope, comp_sd, line_mu,
                         line_dens, d1sq, d1w, window)
    if not lo < hi:
        return 0.0, 0.0
    q = points[:, dim - 1]
    _line_weights(gamma, d1sq, d1w)
    count, unresolved = isolate_roots(0, 0, 1, lo, hi, d1sq, d1w, q, S, c_up, AD, gamma, width, line_mu, comp_sd,
                                      line_dens, work_roots, 0, scratch_v, scratch_s, first)
    more, unres2 = isolate_roots(0, 0, 1, lo, hi, d1sq, d1w, q, S, c_down, AD, gamma, width, line_mu, comp_sd,
                                 line_dens, work_roots, count, scratch_v, scratch_s, first)
    count += more
    unresolved += unres2
    breaks = np.sort(work_roots[:count])
    edges = np.empty(count + 2)
    edges[0] = lo
    edges[1:count + 1] = breaks
    edges[count + 1] = hi
    total = 0.0
    stack_a, stack_b = np.empty(128), np.empty(128)
    stack_d = np.empty(128, dtype=np.int64)
    values = np.empty(nodes.size)
    for k in range(count + 1):
        a0, b0 = edges[k], edges[k + 1]
        if not a0 < b0:
            continue
        scores_on_line(0.5 * (a0 + b0), d1sq, q, S, c, gamma, scratch_v, scratch_s)
        g_mid = scratch_v[1] - scratch_v[0]
        capped_hi = g_mid <= -ell  # -ln sigma(g) >= cap
        capped_lo = g_mid >= ell  # -ln sigma(-g) >= cap
        smooth = False
        for cc in range(C):
            if line_dens[cc] == 0.0:
                continue
            is_hi = comp_label[cc] == classes[1]
            is_lo = comp_label[cc] == classes[0]
            capped = (is_hi and capped_hi) or (is_lo and capped_lo) or not (is_hi or is_lo)
            if capped:
                total += cap * line_dens[cc] * normal_mass((a0 - line_mu[cc]) / comp_sd[cc],
                                                           (b0 - line_mu[cc]) / comp_sd[cc])
            else:
                smooth = True
        if not smooth:
            continue
        # the uncapped components' integrals over [a0, b0], one adaptive Gauss-Kronrod on their sum
        top = 1
        stack_a[0], stack_b[0], stack_d[0] = a0, b0, 0
        while top > 0:
            top -= 1
            s0, s1, depth = stack_a[top], stack_b[top], stack_d[top]
            half = 0.5 * (s1 - s0)
            for i in range(values.size):
                t = s0 + half * (1.0 + nodes[i])
                scores_on_line(t, d1sq, q, S, c, gamma, scratch_v, scratch_s)
                g = scratch_v[1] - scratch_v[0]
                v = 0.0
                for cc in range(C):
                    if line_dens[cc] == 0.0:
                        continue
                    is_hi = comp_label[cc] == classes[1]
                    is_lo = comp_label[cc] == classes[0]
                    if (is_hi and capped_hi) or (is_lo and capped_lo) or not (is_hi or is_lo):
                        continue
                    z = (t - line_mu[cc]) / comp_sd[cc]
                    dens = line_dens[cc] * math.exp(-0.5 * z * z) * _INV_SQRT_2PI / comp_sd[cc]
                    v += dens * min(_softplus(-g) if is_hi else _softplus(g), cap)
                values[i] = v
            kron, err = kronrod_panel(values, half, kronrod, gauss)
            if err <= max(tol * (s1 - s0), 1e-18) or depth >= 40 or top + 2 > stack_a.size:
                total += kron
                continue
            mid = s0 + half
            stack_a[top], stack_b[top], stack_d[top] = mid, s1, depth + 1
            top += 1
            stack_a[top], stack_b[top], stack_d[top] = s0, mid, depth + 1
            top += 1
    return total, unresolved


@_jit
def line_log_smooth(x1, dim, points, S, c, classes, gamma, cap, comp_w, comp_m1, comp_s1, comp_m2, comp_slope,
                    comp_sd, comp_label, scratch_v, scratch_s, d1sq, d1w, line_mu, line_dens, window, nodes, kronrod,
                    gauss, tol):  # pragma: no cover - compiled by numba
    r"""The outer integrand of the floored log loss of a rule with three or more present classes at :math:`x_1`
    (weighted as in :func:`line_error`), the probabilities its normalised sigmoids :math:`\hat p_y = \sigma(s_y)
    / \sum_j \sigma(s_j)` (the one-vs-rest SVM's); a component of an absent class contributes the cap times its
    mass.  The caller has certified that no present class's loss reaches the cap (:func:`floor_free`), so the
    integrand is smooth along the line: adaptive Gauss-Kronrod (tolerance ``tol`` per unit length) from pieces
    cut at each component's conditional mean and 1, 2 and 4 deviations each side.  Returns ``(value, 0.0)``."""
    C = comp_w.size
    kp = S.shape[0]
    lo, hi = line_setup(x1, dim, points, gamma, comp_w, comp_m1, comp_s1, comp_m2, comp_slope, comp_sd, line_mu,
                         line_dens, d1sq, d1w, window)
    if not lo < hi:
        return 0.0, 0.0
    q = points[:, dim - 1]
    total = 0.0
    index = np.full(C, -1, dtype=np.int64)  # each component's class among the present ones (-1: absent)
    for cc in range(C):
        for j in range(kp):
            if classes[j] == comp_label[cc]:
                index[cc] = j
        if index[cc] < 0 and line_dens[cc] > 0.0:  # absent: the cap on the whole line
            total += cap * line_dens[cc]
    cuts = np.empty(len(COMPONENT_CUTS) * C + 2)
    m = 0
    cuts[m] = lo
    m += 1
    for cc in range(C):
        if line_dens[cc] == 0.0 or index[cc] < 0:
            continue
        for z in COMPONENT_CUTS:
            t = line_mu[cc] + z * comp_sd[cc]
            if lo < t < hi:
                cuts[m] = t
                m += 1
    cuts[m] = hi
    m += 1
    edges = np.sort(cuts[:m])
    stack_a, stack_b = np.empty(256), np.empty(256)
    stack_d = np.empty(256, dtype=np.int64)
    values = np.empty(nodes.size)
    for k in range(m - 1):
        if not edges[k] < edges[k + 1]:
            continue
        top = 1
        stack_a[0], stack_b[0], stack_d[0] = edges[k], edges[k + 1], 0
        while top > 0:
            top -= 1
            s0, s1, depth = stack_a[top], stack_b[top], stack_d[top]
            half = 0.5 * (s1 - s0)
            for i in range(values.size):
                t = s0 + half * (1.0 + nodes[i])
                scores_on_line(t, d1sq, q, S, c, gamma, scratch_v, scratch_s)
                peak = -np.inf  # ln sum_j sigma(s_j) by log-sum-exp of -softplus(-s_j)
                for j in range(kp):
                    peak = max(peak, -_softplus(-scratch_v[j]))
                acc = 0.0
                for j in range(kp):
                    acc += math.exp(-_softplus(-scratch_v[j]) - peak)
                log_norm = peak + math.log(acc)
                v = 0.0
                for cc in range(C):
                    if line_dens[cc] == 0.0 or index[cc] < 0:
                        continue
                    zz = (t - line_mu[cc]) / comp_sd[cc]
                    dens = line_dens[cc] * math.exp(-0.5 * zz * zz) * _INV_SQRT_2PI / comp_sd[cc]
                    v += dens * min(_softplus(-scratch_v[index[cc]]) + log_norm, cap)
                values[i] = v
            kron, err = kronrod_panel(values, half, kronrod, gauss)
            if err <= max(tol * (s1 - s0), 1e-18) or depth >= 40 or top + 2 > stack_a.size:
                total += kron
                continue
            mid = s0 + half
            stack_a[top], stack_b[top], stack_d[top] = mid, s1, depth + 1
            top += 1
            stack_a[top], stack_b[top], stack_d[top] = s0, mid, depth + 1
            top += 1
    return total, 0.0


@_jit
def floor_free(points, S, c, threshold, gamma, box):  # pragma: no cover - compiled by numba
    r"""Whether the score :math:`s(x) = c + \sum_i S_i (K(x, p_i) - 1)` (``S`` of shape ``(1, n)``, ``c`` of
    shape ``(1,)``) is certified above ``threshold`` on the box ``(x1_lo, x1_hi, x2_lo, x2_hi)``: a quadtree
    whose cells are dropped where Taylor's bounds about the centre (:func:`_zero_reach`) keep :math:`s` above it;
    False as soon as a centre is at or below it, or when a cell reaches ``EVENT_CELL`` kernel widths undecided
    (points of a 1-D rule carry a second coordinate 0, and the box's second range is ``(0, 0)``)."""
    n = points.shape[0]
    S2 = np.zeros((2, n))  # the pair (0, s): its difference is s
    S2[1] = S[0]
    c2 = np.zeros(2)
    c2[1] = c[0]
    AD = np.abs(S2[1:2])
    pa, pb = np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64)
    width = 1.0 / math.sqrt(gamma)
    nx = max(1, int(math.ceil((box[1] - box[0]) / width)))
    ny = max(1, int(math.ceil((box[3] - box[2]) / width)))
    hx0, hy0 = 0.5 * (box[1] - box[0]) / nx, 0.5 * (box[3] - box[2]) / ny
    cap = 4 * nx * ny + 4096
    sc1, sc2, sh1, sh2 = np.empty(cap), np.empty(cap), np.empty(cap), np.empty(cap)
    top = 0
    for ix in range(nx):
        for iy in range(ny):
            sc1[top], sc2[top] = box[0] + (2 * ix + 1) * hx0, box[2] + (2 * iy + 1) * hy0
            sh1[top], sh2[top] = hx0, hy0
            top += 1
    val, g1, g2 = np.empty(6), np.empty(2), np.empty(2)
    h11, h12, h22 = np.empty(2), np.empty(2), np.empty(2)
    hess, third = np.empty(1), np.empty(1)
    x = np.empty(2)
    smallest = EVENT_CELL * width
    while top > 0:
        top -= 1
        c1, cc2, h1, h2 = sc1[top], sc2[top], sh1[top], sh2[top]
        r = math.sqrt(h1 * h1 + h2 * h2)
        x[0], x[1] = c1, cc2
        point_values(x, points, S2, c2, gamma, val, g1, g2, h11, h12, h22)
        if val[1] <= threshold:
            return False
        _cell_bounds(c1, cc2, h1, h2, points, AD, gamma, hess, third)
        if val[1] - _zero_reach(0, pa, pb, r, g1, g2, h11, h12, h22, hess, third) > threshold:
            continue
        if r <= smallest or top + 4 > cap:
            return False
        for s1 in (-0.5, 0.5):
            for s2 in (-0.5, 0.5):
                sc1[top], sc2[top] = c1 + s1 * h1, cc2 + s2 * h2
                sh1[top], sh2[top] = 0.5 * h1, 0.5 * h2
                top += 1
    return True


@lean_jit
def point_values(x, points, S, c, gamma, val, g1, g2, h11, h12, h22):  # pragma: no cover - compiled by numba
    """The scores at the plane point ``x`` with their gradients and Hessians (per present class)."""
    kp, n = S.shape
    for j in range(kp):
        val[j] = 0.0
        g1[j] = 0.0
        g2[j] = 0.0
        h11[j] = 0.0
        h12[j] = 0.0
        h22[j] = 0.0
    for j in range(kp, 3 * kp):  # the far terms' sums (``val`` has room for 3 kp entries)
        val[j] = 0.0
    for i in range(n):
        a = x[0] - points[i, 0]
        b = x[1] - points[i, 1]
        u = gamma * (a * a + b * b)
        near = u < 1.0  # as scores_on_line: K - 1 by expm1 near the point, K and its -1 apart far from it
        em1 = math.expm1(-u) if near else 0.0
        k = em1 + 1.0 if near else math.exp(-u)
        ka, kb = -2.0 * gamma * a * k, -2.0 * gamma * b * k
        kaa = (4.0 * gamma * gamma * a * a - 2.0 * gamma) * k
        kab = 4.0 * gamma * gamma * a * b * k
        kbb = (4.0 * gamma * gamma * b * b - 2.0 * gamma) * k
        for j in range(kp):
            s = S[j, i]
            if near:
                val[j] += s * em1
            else:
                val[kp + j] += s * k
                val[2 * kp + j] += s
            g1[j] += s * ka
            g2[j] += s * kb
            h11[j] += s * kaa
            h12[j] += s * kab
            h22[j] += s * kbb
    for j in range(kp):
        val[j] = (c[j] - val[2 * kp + j]) + (val[j] + val[kp + j])


@lean_jit
def _cell_bounds(c1, c2, h1, h2, points, AD, gamma, hess, third):  # pragma: no cover - compiled by numba
    """Bounds over the cell ``[c1 -+ h1] x [c2 -+ h2]`` of each pair function's Hessian norm (``hess``) and of
    its third directional derivatives (``third``), each term's at its point's distance from the cell.

    Per unit coefficient, with :math:`u = \\gamma \\rho^2`: the Hessian of :math:`e^{-\\gamma |x|^2}` has norm
    :math:`2\\gamma e^{-u}\\max(1, |2u - 1|) \\le 2\\gamma` (decreasing beyond :math:`u = 3/2`), a third
    directional derivative at most :math:`\\gamma^{3/2}(12\\sqrt u + 8u^{3/2})e^{-u} \\le 6.5\\,\\gamma^{3/2}`
    (decreasing beyond :math:`u = 2`)."""
    npairs, n = AD.shape
    g15 = gamma * math.sqrt(gamma)
    for p in range(npairs):
        hess[p] = 0.0
        third[p] = 0.0
    for i in range(n):
        r1 = max(0.0, abs(points[i, 0] - c1) - h1)
        r2 = max(0.0, abs(points[i, 1] - c2) - h2)
        x = gamma * (r1 * r1 + r2 * r2)
        tail = math.exp(-x) if x > 1.5 else 1.0
        b2 = 2.0 * gamma if x < 1.5 else 2.0 * gamma * (2.0 * x - 1.0) * tail
        b3 = 6.5 * g15 if x < 2.0 else g15 * (12.0 * math.sqrt(x) + 8.0 * x * math.sqrt(x)) * tail
        for p in range(npairs):
            hess[p] += AD[p, i] * b2
            third[p] += AD[p, i] * b3


@lean_jit
def newton_event(x, kind, p, p2, points, S, c, pa, pb, gamma, val, g1, g2, h11, h12, h22):  # pragma: no cover
    """Newton's method from ``x`` for a tangency (``kind`` 0: pair ``p``'s :math:`g = \\partial_2 g = 0`) or a
    meeting point (``kind`` 1: pairs ``p`` and ``p2`` both 0); returns whether it converged (``x`` updated)."""
    scale = 1.0 / math.sqrt(gamma)
    for _ in range(_NEWTON_STEPS):
        point_values(x, points, S, c, gamma, val, g1, g2, h11, h12, h22)
        a, b = pa[p], pb[p]
        f1 = val[b] - val[a]
        j11, j12 = g1[b] - g1[a], g2[b] - g2[a]
        if kind == 0:
            f2 = j12
            j21, j22 = h12[b] - h12[a], h22[b] - h22[a]
        else:
            a2, b2 = pa[p2], pb[p2]
            f2 = val[b2] - val[a2]
            j21, j22 = g1[b2] - g1[a2], g2[b2] - g2[a2]
        det = j11 * j22 - j12 * j21
        if det == 0.0 or not math.isfinite(det):
            return False
        d1 = (j22 * f1 - j12 * f2) / det
        d2 = (j11 * f2 - j21 * f1) / det
        x[0] -= d1
        x[1] -= d2
        if abs(d1) + abs(d2) <= 1e-14 * scale * (1.0 + abs(x[0]) + abs(x[1])):
            return True
    return False


@lean_jit
def _zero_reach(p, pa, pb, r, g1, g2, h11, h12, h22, hess, third):  # pragma: no cover - compiled by numba
    r"""How far pair ``p``'s function can move from its value at a cell's centre within distance ``r`` (Taylor's
    theorem): :math:`|\nabla g| r` plus the smaller of :math:`H r^2 / 2` (``hess`` bounds the Hessian's norm
    over the cell) and :math:`\|\nabla^2 g(c)\| r^2 / 2 + T r^3 / 6` (the Hessian at the centre, ``third``
    bounding the third derivatives): the second is sharper on small cells, where the Hessian bound's sum of
    absolute terms loses the cancellation between the points."""
    a, b = pa[p], pb[p]
    k11, k12, k22 = h11[b] - h11[a], h12[b] - h12[a], h22[b] - h22[a]
    centre = 0.5 * abs(k11 + k22) + math.sqrt(0.25 * (k11 - k22) ** 2 + k12 * k12)  # the spectral norm
    second = min(0.5 * hess[p] * r * r, 0.5 * centre * r * r + third[p] * r * r * r / 6.0)
    return math.hypot(g1[b] - g1[a], g2[b] - g2[a]) * r + second


@lean_jit
def _single_tangency(x, c1, c2, h1, h2, r, points, S, c, pa, pb, gamma, val, g1, g2, h11, h12, h22, hess,
                     third):  # pragma: no cover - compiled by numba
    r"""Whether the cell ``[c1 -+ h1] x [c2 -+ h2]`` (half-diagonal ``r``) of a two-class rule holds exactly one
    vertical tangency, found (written to ``x``) by Newton's method from its centre.

    The tangency equations :math:`F = (g, \partial_2 g) = 0` have the Jacobian :math:`J` (rows :math:`\nabla g`
    and :math:`\nabla \partial_2 g`), which varies over the cell by at most :math:`r \sqrt{H^2 + T^2}` in norm
    (``hess`` :math:`H` bounds the Hessian's norm, ``third`` :math:`T` the symmetric third-derivative tensor's,
    whose norm is its largest directional value).  Where the smallest singular value of :math:`J` at the centre
    exceeds that, every mean value of :math:`J` along a segment of the cell is invertible, so :math:`F` is
    one-to-one on the cell: it holds one tangency at most, and one that Newton's method finds inside the cell is
    it.  Otherwise (or if Newton's method fails or leaves the cell) False: the cell is subdivided."""
    x[0], x[1] = c1, c2
    point_values(x, points, S, c, gamma, val, g1, g2, h11, h12, h22)
    a, b = pa[0], pb[0]
    j11, j12 = g1[b] - g1[a], g2[b] - g2[a]
    j21, j22 = h12[b] - h12[a], h22[b] - h22[a]
    # the smallest singular value of the 2 x 2 Jacobian: |det| / largest
    frob = j11 * j11 + j12 * j12 + j21 * j21 + j22 * j22
    det = abs(j11 * j22 - j12 * j21)
    largest = math.sqrt(0.5 * (frob + math.sqrt(max(frob * frob - 4.0 * det * det, 0.0))))
    if largest == 0.0 or det / largest <= r * math.sqrt(hess * hess + third * third):
        return False
    if not newton_event(x, 0, 0, 0, points, S, c, pa, pb, gamma, val, g1, g2, h11, h12, h22):
        return False
    return abs(x[0] - c1) <= h1 and abs(x[1] - c2) <= h2


@lean_jit
def add_band(bands, nband, lo, hi):  # pragma: no cover - compiled by numba
    """Append the band ``[lo, hi]`` of :math:`x_1` to ``bands`` (``nband[0]`` rows in use); when they are full the
    last row becomes the whole line, so that no band is lost (every line of the rule is then isolated)."""
    k = nband[0]
    if k < bands.shape[0]:
        bands[k, 0], bands[k, 1] = lo, hi
        nband[0] = k + 1
    else:
        bands[k - 1, 0], bands[k - 1, 1] = -np.inf, np.inf


@_jit
def panel_edges(x_lo, x_hi, cuts, m, bands, nb, gamma, work, edges, uncertain):  # pragma: no cover - compiled
    """The outer integral's panels over ``[x_lo, x_hi]``: their edges (returns their count) at the ``m`` events
    ``cuts`` and at the ends of the ``nb`` ``bands``, two closer than ``SAME_EVENT`` kernel widths one edge; a
    panel inside a band is ``uncertain`` (:func:`events`: its lines' roots are not continued, each line is
    isolated).  ``work`` holds at least ``m + 2 nb`` values."""
    w = 0
    for k in range(m):
        work[w] = cuts[k]
        w += 1
    for k in range(nb):
        work[w], work[w + 1] = bands[k, 0], bands[k, 1]
        w += 2
    work[:w].sort()
    ne = 0
    edges[ne] = x_lo
    ne += 1
    same = SAME_EVENT / math.sqrt(gamma)
    for k in range(w):
        if x_lo < work[k] < x_hi and work[k] - edges[ne - 1] > same:
            edges[ne] = work[k]
            ne += 1
    if x_hi - edges[ne - 1] > 1e-12 * (1.0 + abs(x_hi)):
        edges[ne] = x_hi
        ne += 1
    else:
        edges[ne - 1] = x_hi
    for k in range(ne - 1):
        middle = 0.5 * (edges[k] + edges[k + 1])
        uncertain[k] = False
        for b in range(nb):
            if bands[b, 0] <= middle <= bands[b, 1]:
                uncertain[k] = True
    return ne


@_jit
def events(points, S, c, AD, pa, pb, gamma, box, out, bands, nband):  # pragma: no cover - compiled by numba
    r"""The :math:`x_1` of every event (module notes) in ``box`` = ``(x1_lo, x1_hi, x2_lo, x2_hi)``, written to
    ``out``; returns their count.  Every cell of the box is searched, however far from the components: the lines
    continue their roots across the whole window, so a pair of roots that appears where the mass is negligible
    would otherwise be carried, uncounted, into where it is not.

    The :math:`x_1` range of every cell solved at the finest level (where an event is Newton's solution, or a cut
    where it fails, but no criterion proves it the cell's only one) is appended to ``bands`` (rows ``(lo, hi)``,
    ``nband[0]`` of them; :func:`add_band`): between the events the number of a line's roots is constant only
    outside these ranges."""
    kp, n = S.shape
    npairs = AD.shape[0]
    width = 1.0 / math.sqrt(gamma)
    nx = max(1, int(math.ceil((box[1] - box[0]) / width)))
    ny = max(1, int(math.ceil((box[3] - box[2]) / width)))
    hx0, hy0 = 0.5 * (box[1] - box[0]) / nx, 0.5 * (box[3] - box[2]) / ny
    cap = 4 * nx * ny + 4096
    sc1, sc2, sh1, sh2 = np.empty(cap), np.empty(cap), np.empty(cap), np.empty(cap)
    top = 0
    for ix in range(nx):
        for iy in range(ny):
            sc1[top] = box[0] + (2 * ix + 1) * hx0
            sc2[top] = box[2] + (2 * iy + 1) * hy0
            sh1[top], sh2[top] = hx0, hy0
            top += 1
    val, g1, g2 = np.empty(3 * kp), np.empty(kp), np.empty(kp)
    h11, h12, h22 = np.empty(kp), np.empty(kp), np.empty(kp)
    hess, third = np.empty(npairs), np.empty(npairs)
    x = np.empty(2)
    count = 0
    processed = 0
    solved = np.zeros(out.size, dtype=np.bool_)
    smallest = EVENT_CELL * width
    while top > 0:
        top -= 1
        c1, c2, h1, h2 = sc1[top], sc2[top], sh1[top], sh2[top]
        r = math.sqrt(h1 * h1 + h2 * h2)
        x[0], x[1] = c1, c2
        point_values(x, points, S, c, gamma, val, g1, g2, h11, h12, h22)
        _cell_bounds(c1, c2, h1, h2, points, AD, gamma, hess, third)
        # which events this cell may hold: Taylor's bounds about the centre exclude a zero of g where
        # |g(c)| > |grad g(c)| r + H r^2 / 2, and of its derivative in x_2 where |g_2(c)| > |grad g_2(c)| r + T r^2 / 2
        open_cell = False
        for p in range(npairs):
            a, b = pa[p], pb[p]
            g = val[b] - val[a]
            reach = _zero_reach(p, pa, pb, r, g1, g2, h11, h12, h22, hess, third)
            if abs(g) > reach:
                continue  # no zero of g in the cell
            slope = g2[b] - g2[a]
            slope_reach = math.hypot(h12[b] - h12[a], h22[b] - h22[a]) * r + 0.5 * third[p] * r * r
            if abs(slope) <= slope_reach:
                open_cell = True  # a vertical tangency is possible
                break
            if kp == 2:
                continue
            # kp >= 3: a meeting point with another pair sharing a class
            for p2 in range(npairs):
                if p2 != p and (pa[p2] == a or pb[p2] == a or pa[p2] == b or pb[p2] == b):
                    a2, b2 = pa[p2], pb[p2]
                    reach2 = _zero_reach(p2, pa, pb, r, g1, g2, h11, h12, h22, hess, third)
                    if abs(val[b2] - val[a2]) <= reach2:
                        open_cell = True
                        break
            if open_cell:
                break
        if not open_cell:
            continue
        processed += 1
        if kp == 2 and r > smallest and _single_tangency(x, c1, c2, h1, h2, r, points, S, c, pa, pb, gamma, val, g1,
                                                         g2, h11, h12, h22, hess[0], third[0]):
            known = False  # the cell's one event, found (a neighbour may have found it too)
            for e in range(count):
                if solved[e] and abs(out[e] - x[0]) <= 1e-9 * width:
                    known = True
            if not known and count < out.size:
                out[count], solved[count] = x[0], True
                count += 1
            continue
        if r > smallest and top + 4 <= cap and processed < MAX_EVENT_CELLS:
            for s1 in (-0.5, 0.5):
                for s2 in (-0.5, 0.5):
                    sc1[top], sc2[top] = c1 + s1 * h1, c2 + s2 * h2
                    sh1[top], sh2[top] = 0.5 * h1, 0.5 * h2
                    top += 1
            continue
        # the finest cells: solve every event the cell may hold (each event once); a failure gives a cut
        add_band(bands, nband, c1 - h1, c1 + h1)
        found = False
        for p in range(npairs):
            for kind in range(2 if kp >= 3 else 1):
                for p2 in range(npairs if kind == 1 else 1):
                    if kind == 1 and p2 <= p:
                        continue
                    x[0], x[1] = c1, c2
                    if not newton_event(x, kind, p, p2, points, S, c, pa, pb, gamma, val, g1, g2, h11, h12, h22):
                        continue
                    if abs(x[0] - c1) > 4.0 * r or abs(x[1] - c2) > 4.0 * r:
                        continue
                    found = True
                    known = False
                    for e in range(count):
                        if solved[e] and abs(out[e] - x[0]) <= 1e-9 * width:
                            known = True
                    if not known and count < out.size:
                        out[count], solved[count] = x[0], True
                        count += 1
        if not found and count < out.size:  # no isolated event (a boundary along the line, say): a cut here
            out[count], solved[count] = c1, False
            count += 1
    # a cut near a solved event is that event, seen from a cell where Newton's method did not land
    kept = 0
    for e in range(count):
        drop = False
        if not solved[e]:
            for f in range(count):
                if solved[f] and abs(out[f] - out[e]) <= 64.0 * smallest:
                    drop = True
        if not drop:
            out[kept] = out[e]
            kept += 1
    return kept


#: where each component's density in x_1 starts the outer panels (in its deviations from its mean)
COMPONENT_CUTS = (-4.0, -2.0, -1.0, 0.0, 1.0, 2.0, 4.0)
#: the outer integral's first pieces are cut at each component's mean of the first coordinate, the 15-31 rule's
#: adaptive bisection doing the rest (more first cuts, as ``COMPONENT_CUTS``, cost lines where the rule needs none)
OUTER_CUTS = (0.0,)


@lean_jit
def panel_node(s0, half, node, a_edge, b_edge):  # pragma: no cover - compiled by numba
    """A panel's line :math:`x_1` and the smoothing substitution's Jacobian at the rule's ``node`` (the panel is
    ``[s0, s0 + 2 half]`` of the substituted variable over the outer piece ``[a_edge, b_edge]``)."""
    s = s0 + half * (1.0 + node)
    return a_edge + (b_edge - a_edge) * (s * s * (3.0 - 2.0 * s)), (b_edge - a_edge) * 6.0 * s * (1.0 - s)


@lean_jit
def unsmoothed(tau):  # pragma: no cover - compiled by numba
    """The ``s`` in ``[0, 1]`` with :math:`3s^2 - 2s^3 = \\tau` (the outer substitution inverted; Newton's method
    safeguarded by bisection)."""
    lo, hi = 0.0, 1.0
    s = tau
    for _ in range(60):
        f = s * s * (3.0 - 2.0 * s) - tau
        if f > 0.0:
            hi = s
        else:
            lo = s
        d = 6.0 * s * (1.0 - s)
        step = s - f / d if d > 0.0 else 0.5 * (lo + hi)
        if not (lo < step < hi):
            step = 0.5 * (lo + hi)
        if abs(step - s) <= 1e-16:
            return step
        s = step
    return s


@_jit
def rule_losses(dim, points, S_all, c_all, present_all, classes_all, gamma, comp_w, comp_m, comp_cov,
                comp_label, cap, tol, continued, nodes, kronrod, gauss, out_err, out_unresolved,
                out_estimate):  # pragma: no cover - compiled by numba
    """The exact error rate (``cap`` 0) or floored log loss (``cap`` :math:`= -\\ln` floor; with three or more
    present classes the caller certifies the cap unreached, :func:`floor_free`) of each rule ``r`` (scores
    ``S_all[r]`` over ``points[r]``, constants ``c_all[r]``, its present classes
    ``classes_all[r, :present_all[r]]``); written to ``out_err``, with the unresolved mass
    (what the line cells left at ``MIN_CELL`` can hold, integrated like the error) and the quadrature's error
    estimate; ``continued``: continue a panel's roots from line to line (:func:`line_error`)."""
    R = S_all.shape[0]
    C = comp_w.size
    comp_m1, comp_s1 = np.empty(C), np.empty(C)
    comp_m2, comp_slope, comp_sd = np.empty(C), np.empty(C), np.empty(C)
    for cc in range(C):
        if dim == 2:
            s11, s12, s22 = comp_cov[cc, 0, 0], comp_cov[cc, 0, 1], comp_cov[cc, 1, 1]
            comp_m1[cc], comp_s1[cc] = comp_m[cc, 0], math.sqrt(s11)
            comp_m2[cc], comp_slope[cc] = comp_m[cc, 1], s12 / s11
            comp_sd[cc] = math.sqrt(max(s22 - s12 * s12 / s11, 0.0))
        else:
            comp_m1[cc], comp_s1[cc] = 0.0, 1.0
            comp_m2[cc], comp_slope[cc] = comp_m[cc, 0], 0.0
            comp_sd[cc] = math.sqrt(comp_cov[cc, 0, 0])
    for r in range(R):
        kp = present_all[r]
        S = S_all[r, :kp]
        c = c_all[r, :kp]
        classes = classes_all[r, :kp]
        keep = np.zeros(points.shape[1], dtype=np.bool_)  # the points with a non-zero coefficient
        for i in range(points.shape[1]):
            for j in range(kp):
                if S[j, i] != 0.0:
                    keep[i] = True
        index = np.flatnonzero(keep)
        P = np.ascontiguousarray(points[r][index])
        S = np.ascontiguousarray(S[:, index])
        n = P.shape[0]
        npairs = kp * (kp - 1) // 2
        pa = np.empty(max(npairs, 1), dtype=np.int64)
        pb = np.empty(max(npairs, 1), dtype=np.int64)
        AD = np.zeros((max(npairs, 1), n))
        p = 0
        for a in range(kp):
            for b in range(a + 1, kp):
                pa[p], pb[p] = a, b
                for i in range(n):
                    AD[p, i] = abs(S[b, i] - S[a, i])
                p += 1
        AD = AD[:npairs]
        line_mu, line_dens = np.empty(C), np.empty(C)
        ref, ref_roots, prev_roots = np.zeros(7), np.empty(4096), np.empty(4096)  # continuation (line_error)
        window = np.zeros(2)
        work_roots = np.empty(4096)
        scratch_v, scratch_s = np.empty(3 * max(kp, 1)), np.empty(max(kp, 1))
        first = np.empty(max(npairs, 1))
        d1sq, d1w = np.empty(n), np.empty(n)
        log = cap > 0.0
        if kp == 1:  # one class predicted everywhere, with probability 1 (the others floored)
            err = 0.0
            for cc in range(C):
                if comp_label[cc] != classes[0]:
                    err += comp_w[cc] * (cap if log else 1.0)
            out_err[r], out_unresolved[r], out_estimate[r] = err, 0.0, 0.0
            continue
        ell = math.log(math.expm1(cap)) if log else 0.0  # softplus(ell) = cap
        c_up, c_down = c.copy(), c.copy()  # the pair function minus and plus ell
        c_up[1] -= ell
        c_down[1] += ell
        if dim == 1:
            if log and kp >= 3:
                val, unres = line_log_smooth(0.0, 1, P, S, c, classes, gamma, cap, comp_w, comp_m1, comp_s1, comp_m2,
                                             comp_slope, comp_sd, comp_label, scratch_v, scratch_s, d1sq, d1w,
                                             line_mu, line_dens, window, nodes, kronrod, gauss, 0.1 * tol)
            elif log:
                val, unres = line_log(0.0, 1, P, S, c, c_up, c_down, AD, classes, gamma, cap, ell, comp_w, comp_m1,
                                      comp_s1, comp_m2, comp_slope, comp_sd, comp_label, work_roots, scratch_v,
                                      scratch_s, first, d1sq, d1w, line_mu, line_dens, window, nodes, kronrod,
                                      gauss, 0.1 * tol)
            else:
                val, unres = line_error(0.0, 1, P, S, c, AD, pa, pb, classes, gamma, comp_w, comp_m1,
                                        comp_s1, comp_m2, comp_slope, comp_sd, comp_label, work_roots, scratch_v,
                                        scratch_s, first, d1sq, d1w, line_mu, line_dens, ref, ref_roots, prev_roots,
                                        window)
            out_err[r], out_unresolved[r], out_estimate[r] = val, unres, 0.0
            continue
        x_lo, x_hi, y_lo, y_hi = np.inf, -np.inf, np.inf, -np.inf
        for cc in range(C):
            x_lo = min(x_lo, comp_m1[cc] - REACH * comp_s1[cc])
            x_hi = max(x_hi, comp_m1[cc] + REACH * comp_s1[cc])
            s2 = math.sqrt(comp_cov[cc, 1, 1])
            y_lo = min(y_lo, comp_m2[cc] - REACH * s2)
            y_hi = max(y_hi, comp_m2[cc] + REACH * s2)
        box = np.array([x_lo, x_hi, y_lo, y_hi])
        window[0], window[1] = y_lo, y_hi
        found = np.empty(4096)
        bands, nband = np.empty((1024, 2)), np.zeros(1, dtype=np.int64)
        if log and kp >= 3:  # smooth (the cap never reached, certified by the caller): no kinks
            m = 0
        elif log:  # the kinks of the floored log loss: where the curves g = +-ell touch a line
            m = events(P, S, c_up, AD, pa, pb, gamma, box, found, bands, nband)
            m += events(P, S, c_down, AD, pa, pb, gamma, box, found[m:], bands, nband)
        else:
            m = events(P, S, c, AD, pa, pb, gamma, box, found, bands, nband)
        nb = nband[0]
        edges, uncertain = np.empty(m + 2 * nb + 2), np.zeros(m + 2 * nb + 2, dtype=np.bool_)
        ne = panel_edges(x_lo, x_hi, found[:m], m, bands, nb, gamma, np.empty(m + 2 * nb), edges, uncertain)
        total, unresolved_total, estimate = 0.0, 0.0, 0.0
        stack_a, stack_b, stack_d = np.empty(512), np.empty(512), np.empty(512, dtype=np.int64)
        starts = np.empty(len(OUTER_CUTS) * C)
        values, unresolved_values = np.empty(nodes.size), np.empty(nodes.size)
        for k in range(ne - 1):
            A, B = edges[k], edges[k + 1]
            ref[0] = 0.0  # a new panel: its first line is isolated
            ref[6] = 0.0  # and its window edges are certified free of roots once (then no line checks its ends)
            isolated = not continued or uncertain[k]  # every line isolated (a band: the count may change in it)
            if (not isolated and kp == 2 and not log
                    and edge_free(window[0], A, B, P, S, c, AD, gamma, scratch_v, scratch_s, first)
                    and edge_free(window[1], A, B, P, S, c, AD, gamma, scratch_v, scratch_s, first)):
                ref[6] = 1.0
            # the panel starts cut where the components' densities change scale (their means and +-1, 2, 4
            # deviations), in the substituted variable, pushed so that the panel is integrated from left to right
            m_cuts = 0
            for cc in range(C):
                for z in OUTER_CUTS:
                    xc = comp_m1[cc] + z * comp_s1[cc]
                    if A < xc < B and m_cuts < starts.size:
                        starts[m_cuts] = unsmoothed((xc - A) / (B - A))
                        m_cuts += 1
            pieces = np.sort(starts[:m_cuts])
            top = 0
            right = 1.0
            for k2 in range(m_cuts - 1, -1, -1):
                if right - pieces[k2] > 1e-9 and top < stack_a.size - 2:
                    stack_a[top], stack_b[top], stack_d[top] = pieces[k2], right, 0
                    top += 1
                    right = pieces[k2]
            stack_a[top], stack_b[top], stack_d[top] = 0.0, right, 0
            top += 1
            while top > 0:
                top -= 1
                s0, s1, depth = stack_a[top], stack_b[top], stack_d[top]
                half = 0.5 * (s1 - s0)
                for i in range(values.size):
                    x1, jac = panel_node(s0, half, nodes[i], A, B)
                    if log and kp >= 3:
                        v, u = line_log_smooth(x1, 2, P, S, c, classes, gamma, cap, comp_w, comp_m1, comp_s1,
                                               comp_m2, comp_slope, comp_sd, comp_label, scratch_v, scratch_s, d1sq,
                                               d1w, line_mu, line_dens, window, nodes, kronrod, gauss, 0.1 * tol)
                    elif log:
                        v, u = line_log(x1, 2, P, S, c, c_up, c_down, AD, classes, gamma, cap, ell, comp_w,
                                        comp_m1, comp_s1, comp_m2, comp_slope, comp_sd, comp_label, work_roots,
                                        scratch_v, scratch_s, first, d1sq, d1w, line_mu, line_dens, window, nodes,
                                        kronrod, gauss, 0.1 * tol)
                    else:
                        v, u = line_error(x1, 2, P, S, c, AD, pa, pb, classes, gamma, comp_w, comp_m1,
                                          comp_s1, comp_m2, comp_slope, comp_sd, comp_label, work_roots, scratch_v,
                                          scratch_s, first, d1sq, d1w, line_mu, line_dens, ref, ref_roots, prev_roots,
                                          window)
                    values[i] = v * jac
                    if isolated:
                        ref[0] = 0.0  # every line isolated
                    unresolved_values[i] = u * jac
                kron, err = kronrod_panel(values, half, kronrod, gauss)
                if err <= max(tol * (s1 - s0), 1e-17) or depth >= 40 or top + 2 > stack_a.size:
                    total += kron
                    estimate += err
                    for i in range(values.size):
                        unresolved_total += half * kronrod[i] * unresolved_values[i]
                    continue
                mid = s0 + half
                stack_a[top], stack_b[top], stack_d[top] = mid, s1, depth + 1  # the right half after the left
                top += 1
                stack_a[top], stack_b[top], stack_d[top] = s0, mid, depth + 1
                top += 1
        out_err[r], out_unresolved[r], out_estimate[r] = total, unresolved_total, estimate
